#!/usr/bin/env python3
"""scripts/check_meta.py: META.json, the PGXN distribution metadata, checked
against the PGXN Meta Spec v1.0.0 (https://pgxn.org/meta/spec.txt) and
against the tree:

  * the spec: the required keys (name, version, abstract, maintainer,
    license, provides, meta-spec) and the types and forms of every key
    present (Terms, SemVer versions, version ranges, the license names,
    paths, prereq phases and relationships, tags, no_index, resources,
    release_status); no key outside the spec but custom x_ ones;
  * the tree: the distribution's name is the extension's (setops.control),
    its version is the control file's default_version as SemVer ('0.4' is
    0.4.0), the provided extension has that version, its file and docfile
    exist and are tracked by git (so `make dist`, a git archive, holds
    them), and the default version's install script is installed by the
    Makefile.

Then it plants defects in a copy (a version off by one, a required key
missing, a license outside the spec, a bad path, a bad range, an unknown
key): each must be rejected, or the check itself fails.  SETOPS_TEST_MUTATE
set: the real META.json is checked with its version changed, and so fails.

Usage: python3 scripts/check_meta.py [META.json]; exit status 1 on any
error.  Only the standard library.
"""
import copy
import json
import os
import re
import subprocess
import sys

SEMVER = (r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
          r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
          r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?")
SEMVER_RE = re.compile("^" + SEMVER + "$")
RANGE_ONE = r"(?:(?:[=!]=|[<>]=?)\s*)?(?:" + SEMVER + ")"
RANGE_RE = re.compile(r"^(?:" + RANGE_ONE + r"|0)(?:,\s*" + RANGE_ONE + r")*$")
CUSTOM_RE = re.compile(r"^[xX]_.")
LICENSES = {
    "agpl_3", "apache_1_1", "apache_2_0", "artistic_1", "artistic_2", "bsd", "freebsd",
    "gfdl_1_2", "gfdl_1_3", "gpl_1", "gpl_2", "gpl_3", "lgpl_2_1", "lgpl_3_0", "mit",
    "mozilla_1_0", "mozilla_1_1", "openssl", "perl_5", "postgresql", "qpl_1_0", "ssleay",
    "sun", "zlib", "open_source", "restricted", "unrestricted", "unknown",
}
TOP_KEYS = {"name", "version", "abstract", "maintainer", "license", "provides", "meta-spec",
            "description", "generated_by", "tags", "no_index", "prereqs", "release_status",
            "resources"}
REQUIRED = ["name", "version", "abstract", "maintainer", "license", "provides", "meta-spec"]
PHASES = {"configure", "build", "test", "runtime", "develop"}
RELATIONS = {"requires", "recommends", "suggests", "conflicts"}


class Checker:
    def __init__(self):
        self.errors = []

    def err(self, where, what):
        self.errors.append(f"{where}: {what}")

    # ---- the spec's types
    def string(self, where, v, min_len=1):
        if not isinstance(v, str):
            self.err(where, f"must be a string, not {type(v).__name__}")
            return False
        if len(v) < min_len:
            self.err(where, f"must have at least {min_len} characters")
            return False
        return True

    def term(self, where, v):
        if self.string(where, v, 2) and re.search(r"[/\\\s\x00-\x1f\x7f]", v):
            self.err(where, f"{v!r} is not a Term (no slash, backslash, space or control character)")

    def semver(self, where, v):
        if self.string(where, v) and not SEMVER_RE.match(v):
            self.err(where, f"{v!r} is not a semantic version (major.minor.patch)")

    def version_range(self, where, v):
        if v == 0 and not isinstance(v, bool):
            return
        if not isinstance(v, str) or not RANGE_RE.match(v):
            self.err(where, f"{v!r} is not a version range (0, '1.2.0', '>= 1.2.0, < 2.0.0')")

    def path(self, where, v):
        if self.string(where, v, 2):
            if v.startswith("/") or "\\" in v or ".." in v.split("/"):
                self.err(where, f"{v!r} is not a relative path in Unix form")

    def uri(self, where, v):
        if self.string(where, v) and not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:\S+$", v):
            self.err(where, f"{v!r} is not a URI")

    def only_keys(self, where, obj, allowed):
        for k in obj:
            if k not in allowed and not CUSTOM_RE.match(k):
                self.err(where, f"unknown key {k!r} (custom keys start with x_)")

    def obj(self, where, v, min_props=0):
        if not isinstance(v, dict):
            self.err(where, f"must be an object, not {type(v).__name__}")
            return False
        if len(v) < min_props:
            self.err(where, f"must have at least {min_props} key(s)")
            return False
        return True

    def license(self, where, v):
        if isinstance(v, str):
            if v not in LICENSES:
                self.err(where, f"{v!r} is not one of the spec's license names")
        elif isinstance(v, list):
            if not v:
                self.err(where, "an empty list")
            for i, x in enumerate(v):
                if not isinstance(x, str) or x not in LICENSES:
                    self.err(f"{where}[{i}]", f"{x!r} is not one of the spec's license names")
        elif self.obj(where, v, 1):
            for k, u in v.items():
                self.uri(f"{where}.{k}", u)
        else:
            return

    def maintainer(self, where, v):
        if isinstance(v, list):
            if not v:
                self.err(where, "an empty list")
            for i, x in enumerate(v):
                self.string(f"{where}[{i}]", x)
        else:
            self.string(where, v)

    def provides(self, where, v):
        if not self.obj(where, v, 1):
            return
        for name, ext in v.items():
            w = f"{where}.{name}"
            self.term(w, name)
            if not self.obj(w, ext):
                continue
            self.only_keys(w, ext, {"file", "version", "abstract", "docfile", "docpath"})
            for k in ("file", "version"):
                if k not in ext:
                    self.err(w, f"missing required key {k!r}")
            if "file" in ext:
                self.path(f"{w}.file", ext["file"])
            if "version" in ext:
                self.semver(f"{w}.version", ext["version"])
            if "abstract" in ext:
                self.string(f"{w}.abstract", ext["abstract"])
            if "docfile" in ext:
                self.path(f"{w}.docfile", ext["docfile"])
            if "docpath" in ext:
                self.string(f"{w}.docpath", ext["docpath"])

    def meta_spec(self, where, v):
        if not self.obj(where, v):
            return
        self.only_keys(where, v, {"version", "url"})
        if "version" not in v:
            self.err(where, "missing required key 'version'")
        elif not isinstance(v["version"], str) or not re.match(r"^1\.0\.\d+$", v["version"]):
            self.err(f"{where}.version", f"{v['version']!r} is not 1.0.x")
        if "url" in v and v["url"] not in ("https://pgxn.org/meta/spec.txt", "http://pgxn.org/meta/spec.txt"):
            self.err(f"{where}.url", f"{v['url']!r} is not the spec's URL")

    def tags(self, where, v):
        if not isinstance(v, list) or not v:
            self.err(where, "must be a non-empty list")
            return
        for i, t in enumerate(v):
            if self.string(f"{where}[{i}]", t, 2):
                if len(t) > 255 or re.search(r"[/\\\x00-\x1f\x7f]", t):
                    self.err(f"{where}[{i}]", f"{t!r} is not a tag (under 256 characters, no slash, backslash or control character)")

    def no_index(self, where, v):
        if not self.obj(where, v):
            return
        self.only_keys(where, v, {"file", "directory"})
        if "file" not in v and "directory" not in v:
            self.err(where, "needs 'file' or 'directory'")
        for k in ("file", "directory"):
            if k not in v:
                continue
            x = v[k]
            if isinstance(x, list):
                if not x or len(set(map(str, x))) != len(x):
                    self.err(f"{where}.{k}", "must be a non-empty list of distinct paths")
                for i, p in enumerate(x):
                    self.path(f"{where}.{k}[{i}]", p)
            else:
                self.path(f"{where}.{k}", x)

    def prereqs(self, where, v):
        if not self.obj(where, v, 1):
            return
        self.only_keys(where, v, PHASES)
        for phase, rels in v.items():
            if phase not in PHASES:
                continue
            w = f"{where}.{phase}"
            if not self.obj(w, rels, 1):
                continue
            self.only_keys(w, rels, RELATIONS)
            for rel, reqs in rels.items():
                if rel not in RELATIONS:
                    continue
                if not self.obj(f"{w}.{rel}", reqs, 1):
                    continue
                for name, rng in reqs.items():
                    self.term(f"{w}.{rel}", name)
                    self.version_range(f"{w}.{rel}.{name}", rng)

    def resources(self, where, v):
        if not self.obj(where, v, 1):
            return
        self.only_keys(where, v, {"homepage", "bugtracker", "repository"})
        if "homepage" in v:
            self.uri(f"{where}.homepage", v["homepage"])
        if "bugtracker" in v and self.obj(f"{where}.bugtracker", v["bugtracker"], 1):
            b = v["bugtracker"]
            self.only_keys(f"{where}.bugtracker", b, {"web", "mailto"})
            if "web" in b:
                self.uri(f"{where}.bugtracker.web", b["web"])
            if "mailto" in b:
                self.string(f"{where}.bugtracker.mailto", b["mailto"])
        if "repository" in v and self.obj(f"{where}.repository", v["repository"], 1):
            r = v["repository"]
            self.only_keys(f"{where}.repository", r, {"url", "web", "type"})
            for k in ("url", "web"):
                if k in r:
                    self.uri(f"{where}.repository.{k}", r[k])
            if "type" in r:
                self.string(f"{where}.repository.type", r["type"])

    def spec(self, meta):
        if not self.obj("META.json", meta):
            return
        for k in REQUIRED:
            if k not in meta:
                self.err("META.json", f"missing required key {k!r}")
        self.only_keys("META.json", meta, TOP_KEYS)
        if "name" in meta:
            self.term("name", meta["name"])
        if "version" in meta:
            self.semver("version", meta["version"])
        for k in ("abstract", "description", "generated_by"):
            if k in meta:
                self.string(k, meta[k])
        if "maintainer" in meta:
            self.maintainer("maintainer", meta["maintainer"])
        if "license" in meta:
            self.license("license", meta["license"])
        if "provides" in meta:
            self.provides("provides", meta["provides"])
        if "meta-spec" in meta:
            self.meta_spec("meta-spec", meta["meta-spec"])
        if "tags" in meta:
            self.tags("tags", meta["tags"])
        if "no_index" in meta:
            self.no_index("no_index", meta["no_index"])
        if "prereqs" in meta:
            self.prereqs("prereqs", meta["prereqs"])
        if "release_status" in meta and meta["release_status"] not in ("stable", "testing", "unstable"):
            self.err("release_status", f"{meta['release_status']!r} is not stable, testing or unstable")
        if "resources" in meta:
            self.resources("resources", meta["resources"])

    # ---- the tree
    def tree(self, meta, root):
        controls = [f for f in os.listdir(root) if f.endswith(".control")]
        if len(controls) != 1:
            self.err("tree", f"expected one .control file at the root, found {controls}")
            return
        ext = controls[0][:-len(".control")]
        with open(os.path.join(root, controls[0])) as f:
            m = re.search(r"^\s*default_version\s*=\s*'([^']*)'", f.read(), re.M)
        if not m:
            self.err(controls[0], "no default_version")
            return
        control_version = m.group(1)
        parts = control_version.split(".")
        want = ".".join(parts + ["0"] * (3 - len(parts))) if len(parts) <= 3 else control_version
        if meta.get("name") != ext:
            self.err("name", f"{meta.get('name')!r} is not the extension's name {ext!r}")
        if meta.get("version") != want:
            self.err("version", f"{meta.get('version')!r} does not match {controls[0]}'s "
                                f"default_version {control_version!r} (as SemVer: {want!r})")
        provides = meta.get("provides")
        if not isinstance(provides, dict) or ext not in provides:
            self.err("provides", f"does not provide the extension {ext!r}")
            return
        tracked = None
        try:
            out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True, check=True)
            tracked = set(out.stdout.decode().split("\0"))
        except (OSError, subprocess.CalledProcessError):
            pass		# not a git checkout: existence only
        for name, e in provides.items():
            if not isinstance(e, dict):
                continue
            if e.get("version") != meta.get("version"):
                self.err(f"provides.{name}.version", f"{e.get('version')!r} is not the distribution's "
                                                      f"{meta.get('version')!r}")
            for k in ("file", "docfile"):
                p = e.get(k)
                if not isinstance(p, str):
                    continue
                if not os.path.isfile(os.path.join(root, p)):
                    self.err(f"provides.{name}.{k}", f"{p!r} does not exist")
                elif tracked is not None and p not in tracked:
                    self.err(f"provides.{name}.{k}", f"{p!r} is not tracked by git (not in `make dist`)")
        makefile = os.path.join(root, "Makefile")
        script = f"{ext}--{control_version}.sql"
        if os.path.isfile(makefile):
            with open(makefile) as f:
                if script not in f.read():
                    self.err("Makefile", f"does not install {script}, the default version's script")


def check(meta, root):
    c = Checker()
    c.spec(meta)
    c.tree(meta, root)
    return c.errors


def planted(meta):
    """Copies of meta, each with one defect the check must find."""
    def bump(v):
        p = v.split(".")
        p[-1] = str(int(p[-1]) + 1)
        return ".".join(p)
    out = []
    m = copy.deepcopy(meta); m["version"] = bump(m["version"]); out.append(("the version off by one", m))
    m = copy.deepcopy(meta); del m["license"]; out.append(("no license", m))
    m = copy.deepcopy(meta); m["license"] = "gpl"; out.append(("a license outside the spec", m))
    m = copy.deepcopy(meta); m["version"] = m["version"].rsplit(".", 1)[0]; out.append(("a version of two parts", m))
    m = copy.deepcopy(meta)
    ext = next(iter(m["provides"]))
    m["provides"][ext]["file"] = "no/such/file.sql"; out.append(("a provided file missing", m))
    m = copy.deepcopy(meta); m["provides"][ext]["version"] = bump(m["provides"][ext]["version"])
    out.append(("the provided version off", m))
    m = copy.deepcopy(meta); del m["provides"][ext]["file"]; out.append(("no file for the extension", m))
    m = copy.deepcopy(meta); m["prereqs"] = {"runtime": {"requires": {"PostgreSQL": ">= 15"}}}
    out.append(("a range that is not SemVer", m))
    m = copy.deepcopy(meta); m["homepage"] = "https://example.org/"; out.append(("an unknown key", m))
    m = copy.deepcopy(meta); m["meta-spec"] = {"version": "2.0.0"}; out.append(("meta-spec 2.0.0", m))
    m = copy.deepcopy(meta); m["name"] = "set ops"; out.append(("a name that is not a Term", m))
    return out


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "META.json"
    root = os.path.dirname(os.path.abspath(path))
    try:
        with open(path) as f:
            meta = json.load(f)
    except (OSError, ValueError) as e:
        print(f"{path}: cannot be read as JSON: {e}")
        return 1
    if os.environ.get("SETOPS_TEST_MUTATE", "0") not in ("", "0"):
        print("SETOPS_TEST_MUTATE is set: checking META.json with its version changed, which must fail")
        meta = planted(meta)[0][1]
    errors = check(meta, root)
    for e in errors:
        print(f"{path}: {e}")
    status = 1 if errors else 0
    if not errors:
        print(f"{path}: valid (PGXN Meta Spec {meta['meta-spec']['version']}), {meta['name']} "
              f"{meta['version']} as the control file says")
    missed = [what for what, m in planted(meta) if not check(m, root)]
    if missed:
        print(f"the check accepted planted defects: {', '.join(missed)}")
        status = 1
    else:
        print(f"planted defects: {len(planted(meta))} of {len(planted(meta))} rejected")
    return status


if __name__ == "__main__":
    sys.exit(main())
