#!/bin/bash
# A throwaway PostgreSQL server for the history tests: initdb in a
# temporary directory as the unprivileged user "postgres" (initdb refuses
# root), listening only on a Unix socket in that directory, trust auth.
#   pg_server.sh start DIR   -> prints the connection URL on stdout
#   pg_server.sh stop DIR
# Exit 77 (skip) where Debian's postgresql package is not installed.
set -eu
cmd=$1 dir=$2
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)
[ -n "$bindir" ] && [ -x "$bindir/initdb" ] || { echo "postgresql is not installed" >&2; exit 77; }
user=postgres
id "$user" >/dev/null 2>&1 || { echo "no user $user" >&2; exit 77; }
as_user() {
	if [ "$(id -u)" = 0 ]; then runuser -u "$user" -- "$@"; else "$@"; fi
}
case $cmd in
start)
	mkdir -p "$dir"
	[ "$(id -u)" = 0 ] && chown "$user" "$dir"
	as_user "$bindir/initdb" -D "$dir/data" -A trust -U "$user" --no-sync >"$dir/initdb.log" 2>&1 ||
		{ cat "$dir/initdb.log" >&2; exit 1; }
	as_user "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 120 start \
		-o "-c listen_addresses='' -k $dir -c fsync=off -c max_connections=60" >/dev/null ||
		{ cat "$dir/server.log" >&2; exit 1; }
	as_user "$bindir/createdb" -h "$dir" -U "$user" ksftm_test
	echo "postgresql:///ksftm_test?host=$dir&user=$user"
	;;
stop)
	as_user "$bindir/pg_ctl" -D "$dir/data" -w -t 60 -m fast stop >/dev/null 2>&1 || true
	rm -rf "$dir"
	;;
*)
	echo "usage: pg_server.sh start|stop DIR" >&2
	exit 2
	;;
esac
