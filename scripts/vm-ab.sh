#!/bin/bash
# Kernel A/B under ksft-vm (doc/vm.rst): the same COMMAND on two kernel
# images, both boots at once (under icount the host's load moves the wall
# time, not the result), then B judged against A with compare --baseline.
#   scripts/vm-ab.sh [-o DIR] IMAGE_A IMAGE_B [ksft-vm OPTION]... -- COMMAND [ARG]...
# Exit status: compare's (0 no regression, 1 regression, 2 error), or 2 when
# a guest failed. $KSFTM_BUILD: the build tree (default build).
set -u
cd "$(dirname "$0")/.." || exit 2
build=${KSFTM_BUILD:-build}
out=$(mktemp -d "${TMPDIR:-/tmp}/vm-ab.XXXXXX") || exit 2
if [ "${1:-}" = -o ]; then
	out=$2
	shift 2
	mkdir -p "$out" || exit 2
fi
if [ $# -lt 4 ]; then
	echo "usage: $0 [-o DIR] IMAGE_A IMAGE_B [ksft-vm OPTION]... -- COMMAND [ARG]..." >&2
	exit 2
fi
a=$1 b=$2
shift 2
vm=("$build/tools/vm/ksft-vm")
python3 "${vm[@]}" --kernel "$a" "$@" > "$out/a.log" 2> "$out/a.err" &
pa=$!
python3 "${vm[@]}" --kernel "$b" "$@" > "$out/b.log" 2> "$out/b.err" &
pb=$!
sa=0 sb=0
wait $pa || sa=$?
wait $pb || sb=$?
for v in a b; do
	s=$sa
	[ $v = b ] && s=$sb
	if [ "$s" = 2 ]; then
		echo "vm-ab: the guest of $v failed:" >&2
		cat "$out/$v.err" >&2
		exit 2
	fi
done
echo "vm-ab: logs in $out (A: $a; B: $b)"
"$build/tools/ksft-metric" save --quiet -o "$out/a.json" "$out/a.log" >/dev/null || exit 2
exec "$build/tools/ksft-metric" compare --baseline "$out/a.json" "$out/b.log"
