#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# SQLite's own instructions a statement or a row of the history's hot
# statements (issue 45), on copies of HISTORY (a history after a few
# ingests: bench/perf/bench_ingest_callgrind.py's, KEEP_DB=FILE keeps it):
# each measurement under callgrind with the work and without it (SKIP=1),
# the difference divided by the rows. Passes or fails nothing.
#   bench/perf/bench_sqlite_row_cost.sh build/bench/sqlite_row_cost HISTORY
set -eu
prog=$1 hist=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count() {	# count ENV... : callgrind's total of prog on a fresh copy
	rm -f "$tmp"/h.db*
	cp "$hist" "$tmp/h.db"
	env "$@" valgrind --tool=callgrind --callgrind-out-file=/dev/null "$prog" "$tmp/h.db" \
		$args 2>&1 >"$tmp/out" | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
for args in "window" "slab" "insert 1 1" "insert 1 0" "insert 16 0" "insert 40 0"; do
	with=$(count X=1)
	rows=$(sed -n 's/^rows //p' "$tmp/out")
	without=$(count SKIP=1)
	echo "$args: $rows rows, $(( (with - without) / rows )) instructions a row," \
	     "$(( (with - without) / 1000 )) a series"
done
