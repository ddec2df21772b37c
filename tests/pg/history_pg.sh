#!/bin/bash
# Run the history suite (test-history) against a real PostgreSQL server
# started for it in a temporary directory, then stop the server.
# Usage: history_pg.sh PG_SERVER_SCRIPT TEST_EXECUTABLE [ARGS...]
set -u
server=$1 test=$2
shift 2
dir=$(mktemp -d /tmp/ksftm-pg.XXXXXX)
url=$(bash "$server" start "$dir")
rc=$?
[ $rc = 0 ] || { rm -rf "$dir"; exit $rc; }
trap 'bash "$server" stop "$dir"' EXIT
echo "server: $url"
KSFTM_HISTORY_URL=$url "$test" "$@"
