#!/usr/bin/env bash
# scripts/check_layers.sh: fail when an #include points up a layer.
#
# The layers (docs/design.md, "Source layout"), each allowed to include
# only what is listed for it (project headers; PostgreSQL's and the
# system's are not checked here):
#   engine/common    engine/common
#   engine/cpu, gpu  itself and engine/common: no PostgreSQL inside
#   extension/args   setops.h, args/, engine/
#   extension/exec   setops.h, exec/, args/, the service's client.h, engine/
#   extension/funcs  setops.h, exec/, args/ (fmgr entry points only)
#   service client   setops.h, protocol.h, client.h, engine/
#   service worker   setops.h, protocol.h, worker.h, device_ops.h, engine/
#                    (never exec/ or funcs/: the worker does not call back)
# and only exec/ reads setops.device (module.c defines it).
set -uo pipefail
cd "$(dirname "$0")/.."

fail=0
bad() {
	echo "check_layers: $1" >&2
	fail=1
}

# allowed FILE: the include patterns (regexes on the resolved path) FILE may use
allowed() {
	case "$1" in
	engine/common/*) echo '^engine/common/' ;;
	engine/cpu/*) echo '^engine/(cpu|common)/' ;;
	engine/gpu/*) echo '^engine/(gpu|common)/' ;;
	extension/setops.h) echo '^engine/' ;;
	extension/module.c) echo '.' ;;
	extension/args/*) echo '^(extension/setops\.h|extension/test_hooks\.h|extension/args/|engine/)' ;;
	extension/exec/*) echo '^(extension/setops\.h|extension/exec/|extension/args/|extension/service/client\.h|engine/)' ;;
	extension/funcs/*) echo '^(extension/setops\.h|extension/test_hooks\.h|extension/exec/|extension/args/)' ;;
	extension/service/protocol.h) echo '^extension/setops\.h' ;;
	extension/service/client*) echo '^(extension/setops\.h|extension/service/(protocol|client)\.h|engine/)' ;;
	extension/service/*) echo '^(extension/setops\.h|extension/service/(protocol|worker|device_ops)\.h|engine/)' ;;
	*) echo 'UNKNOWN' ;;
	esac
}

# resolve FILE INCLUDE: the project path it names, or nothing (not ours)
resolve() {
	local dir inc=$2 p
	dir=$(dirname "$1")
	for p in "$dir/$inc" "$inc" "extension/$inc"; do
		p=$(realpath -m --relative-to=. "$p")
		[ -f "$p" ] && { echo "$p"; return; }
	done
	# generated, not yet built
	[ "$inc" = test_hooks.h ] && echo extension/test_hooks.h
}

# (find, not git: the GPU machine's copy of the tree has no .git)
sources() {
	find "$@" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) \
		! -name test_hooks.h | sort
}
files=$(sources engine extension)
for f in $files; do
	pattern=$(allowed "$f")
	if [ "$pattern" = UNKNOWN ]; then
		bad "$f: in no layer (add it to scripts/check_layers.sh)"
		continue
	fi
	while read -r inc; do
		target=$(resolve "$f" "$inc")
		[ -z "$target" ] && continue
		[ "$target" = "$f" ] && continue
		echo "$target" | grep -Eq "$pattern" ||
			bad "$f includes $inc ($target): not a layer it may use"
	done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
done

# where operations run is decided by exec/ alone (comment lines aside)
while read -r line; do
	bad "$line: setops.device read outside exec/"
done < <(sources extension | grep -v '^extension/exec/\|^extension/module\.c$' |
	xargs grep -nHw 'setops_device' | grep -v '^[^:]*:[0-9]*:[[:space:]]*\*')

[ $fail -eq 0 ] && echo "check_layers: every include points down a layer"
exit $fail
