#!/bin/bash
# The meson summary says which parts were built (issue 23): every part's
# line is in this build's meson log with YES or NO, and the SQLite line
# agrees with whether the history library was linked against sqlite3.
set -eu
build=$1 sqlite=$2
log="$build/meson-logs/meson-log.txt"
fail() { echo "FAIL: $*"; exit 1; }
[ -f "$log" ] || fail "no $log"
grep -q 'Parts built' "$log" || fail "no 'Parts built' section in $log"
for part in 'SQLite history backend' 'PostgreSQL history backend' 'Python binding' \
	'System monitor (libnl)' 'Fuzzers (libFuzzer)' 'Benchmarks'; do
	grep -qE "^ *$(sed 's/[()]/\\&/g' <<<"$part") *: (YES|NO)\$" "$log" ||
		fail "summary has no '$part: YES|NO' line"
done
want=$([ "$sqlite" = true ] && echo YES || echo NO)
grep -qE "^ *SQLite history backend *: $want\$" "$log" ||
	fail "SQLite line does not say $want"
echo PASS
