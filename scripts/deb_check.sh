#!/usr/bin/env bash
# The Debian package, end to end (scripts/test.sh runs it first, before it
# installs the tree's build; SETOPS_TEST_DEB=0 skips it there):
#   1. dpkg-buildpackage -us -uc -b in a copy of the checkout (tracked and
#      untracked files, not ignored ones) in a temporary directory, so that
#      the checkout and its parent directory get nothing;
#   2. lintian: no errors (warnings are printed);
#   3. the package installed (apt-get install ./….deb), after an earlier
#      install of setops is removed (the package purged; a `make install`
#      only with SETOPS_DEB_REPLACE=1); every setops file that pg_config's
#      directories hold must belong to the package, and the library must
#      have no test hooks;
#   4. the pg_regress suites that need no test hooks (make installcheck
#      SETOPS_INSTALLED_HOOKS=no; setops_cache declares hooks) on a
#      throwaway cluster; then the cluster restarted with setops preloaded,
#      as a production server has it: setops_devices() says which build it
#      is (and, in the CUDA build here, that there is no GPU), the CPU
#      engine answers under auto, gpu mode is a clean ERROR;
#   5. the package purged: none of its files left.
#
# Run as root (or with sudo).  It installs into the system's PostgreSQL,
# so never while another run tests setops there (scripts/test.sh runs it
# before installing its own build).  It leaves no setops installed.
#
# Environment:
#   SETOPS_TEST_DEB_CUDA  1: the CUDA build (needs nvcc; about 5 minutes on
#                         2 cores); default 0, the CPU-only build
#                         (DEB_BUILD_OPTIONS=nocuda), as CI runs it
#   SETOPS_DEB_REPLACE    1: remove an installed setops that is not the
#                         package's (a `make install`) instead of failing
#                         (scripts/test.sh sets it: it installs its own next)
#   SETOPS_DEB_KEEP       a directory to copy the built .deb files into
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

PKG=postgresql-$PG_MAJOR-setops
cuda=${SETOPS_TEST_DEB_CUDA:-0}

[ -x "$PG_BINDIR/postgres" ] || die "PostgreSQL $PG_MAJOR server not found in $PG_BINDIR"
need_packages debhelper postgresql-server-dev-all "postgresql-server-dev-$PG_MAJOR" lintian make gcc
PG_CONFIG=$PG_BINDIR/pg_config
if [ "$cuda" = 1 ]; then
	[ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] || die "SETOPS_TEST_DEB_CUDA=1: no nvcc in ${CUDA_HOME:-/usr/local/cuda}/bin"
	build=cuda
else
	build=cpu
fi

pkglibdir=$("$PG_CONFIG" --pkglibdir)
extdir=$("$PG_CONFIG" --sharedir)/extension
setops_files() {
	ls -d "$pkglibdir"/setops.so "$pkglibdir"/bitcode/setops "$pkglibdir"/bitcode/setops.index.bc \
		"$extdir"/setops.control "$extdir"/setops--*.sql 2>/dev/null || true
}
# those of no package: a `make install` from a tree
unowned_files() {
	local f
	for f in $(setops_files); do dpkg-query -S "$f" >/dev/null 2>&1 || echo "$f"; done
}
# (another run may be testing it)
if [ -n "$(unowned_files)" ] && [ "${SETOPS_DEB_REPLACE:-0}" != 1 ]; then
	unowned_files
	die "a setops not from the package is installed (above); another test run may be using it. SETOPS_DEB_REPLACE=1 removes it (make install again afterwards)"
fi

# the package's version is the extension's
ext_version=$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" setops.control)
deb_version=$(dpkg-parsechangelog -l debian/changelog -S Version)
case "${deb_version%-*}" in
"$ext_version" | "$ext_version".*) ;;
*) die "debian/changelog's version $deb_version is not setops.control's default_version $ext_version" ;;
esac

# On exit, also on failure: the cluster stopped, the package purged if
# this script installed it, the copy removed.
installed=0
cleanup() {
	stop_servers
	[ $installed = 1 ] && as_root env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "$PKG" >/dev/null 2>&1
	rm -rf "$work"
}
work=$(mktemp -d /tmp/setops-deb.XXXXXX)
trap cleanup EXIT
trap 'exit 130' INT TERM
src=$work/setops-${deb_version%-*}
mkdir "$src"
git ls-files -co --exclude-standard -z | tar -c --null -T - | tar -x -C "$src"
# (a repository of its own, its files staged: what the build changes or
# leaves that .gitignore does not cover shows in git status below)
git -C "$src" init -q && git -C "$src" add -A

say "dpkg-buildpackage -us -uc -b ($build build) in $work"
opts=${DEB_BUILD_OPTIONS:-}
[ "$build" = cpu ] && opts="$opts nocuda"
if ! (cd "$src" && DEB_BUILD_OPTIONS="$opts" dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1; then
	tail -n 60 "$work/build.log"
	die "dpkg-buildpackage failed"
fi
deb=$(ls "$work/${PKG}_${deb_version}"_*.deb)
dpkg-deb -f "$deb" Package Version Depends
dpkg-deb -f "$deb" Description | sed -n '/holds the/,$p'
dpkg-deb -f "$deb" Description | grep -q "holds the $([ "$build" = cuda ] && echo CUDA || echo CPU-only) build" ||
	die "the package's description does not say it holds the $build build"
[ -n "${SETOPS_DEB_KEEP:-}" ] && mkdir -p "$SETOPS_DEB_KEEP" && cp "$work"/*.deb "$SETOPS_DEB_KEEP"/
# the build leaves the tree as it found it, but for ignored outputs
# (make clean; debian/'s in .gitignore)
git -C "$src" status --porcelain --untracked-files=all | grep -v '^A  ' >"$work/left" || true
[ -s "$work/left" ] && { cat "$work/left"; die "the package build changed or left files that git status shows"; }

say "lintian"
lintian --fail-on error "$work"/*.changes ||
	die "lintian reports errors"

say "installing $(basename "$deb")"
if dpkg-query -W -f='${Status}' "$PKG" 2>/dev/null | grep -q 'ok installed'; then
	as_root env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "$PKG" >/dev/null
fi
for f in $(unowned_files); do
	echo "removing $f (not the package's)"
	as_root rm -rf "$f"
done
installed=1
as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$deb" >/dev/null
dpkg-query -W "$PKG"
for f in $(setops_files); do
	owner=$(dpkg-query -S "$f" 2>/dev/null | cut -d: -f1) || true
	[ "$owner" = "$PKG" ] || die "$f does not belong to $PKG (${owner:-no package})"
done
# its files, and the directories that are its alone
files=$(dpkg-query -L "$PKG" | while read -r f; do [ -d "$f" ] || echo "$f"; done)
files="$files $pkglibdir/bitcode/setops /usr/share/doc/$PKG"
lib=$pkglibdir/setops.so
if nm -D --defined-only "$lib" | grep -w 'setops_test_[a-z_]*'; then
	die "$lib has test hooks"
fi
ldd "$lib"
if ldd "$lib" | grep -E 'not found|libcudart|libcuda\.'; then
	die "$lib needs a library that is not there, or the CUDA runtime as a shared library"
fi

say "pg_regress against the package (the suites without test hooks)"
start_cluster
trap cleanup EXIT		# (new_server set its own)
status=0
# (in the copy, which pg_regress writes into; nothing of the tree's is installed)
if ! make -C "$src" -s installcheck PG_CONFIG="$PG_CONFIG" SETOPS_INSTALLED_HOOKS=no; then
	[ -f "$src/test/regress/regression.diffs" ] && head -c 20000 "$src/test/regress/regression.diffs"
	status=1
fi
stop_cluster

# As a production server has it: the GPU service starts (in the CUDA build,
# the CUDA runtime finds no driver or GPU here), says why there is no GPU,
# and the CPU engine answers under auto; gpu mode is a clean ERROR.
say "the package's library preloaded: the GPU service, the build it is"
SETOPS_SERVER_OPTS="-c shared_preload_libraries=setops" start_cluster
trap cleanup EXIT
psql -XAtq -c 'CREATE EXTENSION setops' >/dev/null || status=1
notice=$(psql -XAtq -c 'SELECT count(*) FROM setops_devices()' 2>&1 || true)
echo "setops_devices(): $notice"
case "$build:$notice" in
*"not in shared_preload_libraries"*) echo "the GPU service did not start"; status=1 ;;
cpu:*"built without CUDA"*) ;;
cuda:*"built without CUDA"*) echo "the CUDA package says it was built without CUDA"; status=1 ;;
cuda:*"no GPU is available"*) ;;	# no GPU or driver here
cuda:*) ;;			# a GPU
*) echo "setops_devices() did not say why there is no GPU"; status=1 ;;
esac
answer=$(psql -XAtq -c 'SET setops.gpu_min_elements = 0' \
	-c "SELECT array_intersect_count(ARRAY(SELECT generate_series(1, 200000))::int4[],
	                                 ARRAY(SELECT generate_series(100001, 300000))::int4[])" 2>&1)
echo "auto, an intersection of 200,000 keys a side: $answer"
[ "$answer" = 100000 ] || status=1
if [ "$(printf '%s\n' "$notice" | tail -n 1)" = 0 ]; then
	out=$(psql -XAtq -c 'SET setops.device = gpu' -c "SELECT array_sort_gpu('{3,1,2}'::int4[])" 2>&1 || true)
	echo "gpu mode without a GPU: $out"
	case "$out" in *ERROR*) ;; *) status=1 ;; esac
fi
if psql -XAtq -c "CREATE FUNCTION pg_temp.h(anyelement) RETURNS text AS '\$libdir/setops', 'setops_test_stored_identity' LANGUAGE C STRICT" 2>/dev/null; then
	echo "the package's library has the test hook setops_test_stored_identity"
	status=1
fi
psql -XAtq -c 'SELECT 1' >/dev/null || { echo "the server did not survive"; status=1; }
stop_cluster

say "removing $PKG"
as_root env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "$PKG" >/dev/null
installed=0
if dpkg-query -W -f='${Status}' "$PKG" 2>/dev/null | grep -q 'installed'; then
	die "$PKG is still installed"
fi
left=0
for f in $files; do
	if [ -e "$f" ] || [ -L "$f" ]; then
		echo "left behind: $f"
		left=1
	fi
done
[ -z "$(setops_files)" ] || { setops_files; left=1; }
[ $left = 0 ] || die "the package's removal left files behind"
echo "removed: no file of $PKG left"

[ $status = 0 ] || die "the Debian package's checks failed"
say "Debian package ($build build): built, lintian clean of errors, pg_regress passed installed, removed cleanly"
