#!/bin/bash
# The run history at scale (issue 13): bench-history against a fresh
# SQLite file, then against a real PostgreSQL server started for it with
# tests/pg/pg_server.sh (as root, the server runs as "postgres" via its
# runuser logic) and stopped at exit, whatever happens.
#
#   bench/perf/bench_history.sh build/bench/bench-history [RUNS [BIG_RUNS [REPS]]]
#
# Defaults 10000 runs of a 40-series log, 300 runs of a 1000-series log,
# 7 repetitions per latency. Set BACKENDS="sqlite" (or "postgresql") to run
# one only. The PostgreSQL part is skipped with a message when the server
# cannot be started here (no postgresql package, no "postgres" user).
set -u
bench=$(realpath "$1")
shift
here=$(cd "$(dirname "$0")" && pwd)
pg_server=$here/../../tests/pg/pg_server.sh
backends=${BACKENDS:-sqlite postgresql}
tmp=$(mktemp -d /tmp/ksftm-bench-history.XXXXXX)
pgdir=
cleanup() {
	[ -n "$pgdir" ] && bash "$pg_server" stop "$pgdir"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "host: $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
rc=0
for b in $backends; do
	case $b in
	sqlite)
		"$bench" "$tmp/history.db" "$@" || rc=1
		;;
	postgresql)
		# Its own directory: pg_server.sh hands it to the postgres user.
		pgdir=$(mktemp -d /tmp/ksftm-pg.XXXXXX)
		if url=$(bash "$pg_server" start "$pgdir"); then
			echo "server: $url ($("$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n1)/postgres" --version))"
			"$bench" "$url" "$@" || rc=1
		else
			echo "PostgreSQL: server not started here, skipped"
			rm -rf "$pgdir"
			pgdir=
		fi
		;;
	*)
		echo "unknown backend $b" >&2
		rc=2
		;;
	esac
	echo
done
exit $rc
