#!/bin/bash
# Compile generic_rejects.c as C11: without CASE it must build; with CASE=1
# (bool), 2 (string) and 3 (array) ksft_metric() must be a compile error.
set -u
cc=$1 inc=$2 src=$3
"$cc" -std=c11 -Wall -Werror -fsyntax-only -I"$inc" "$src" ||
	{ echo "FAIL: the valid call did not compile"; exit 1; }
for c in 1 2 3; do
	if "$cc" -std=c11 -Wall -Werror -fsyntax-only -DCASE=$c -I"$inc" "$src" 2>/dev/null; then
		echo "FAIL: CASE=$c compiled"; exit 1
	fi
done
echo "ok: bool, string and array values are compile errors"
