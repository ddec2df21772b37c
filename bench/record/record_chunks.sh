#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Record the interference corpus in chunks of ROUNDS rounds until UNTIL
# (epoch seconds), each chunk with its own seed and round offset, so that a
# stopped recording loses at most one chunk (issue 21). Usage (root):
#   bench/record/record_chunks.sh OUT FIRST-SEED ROUNDS UNTIL [record_interference args...]
set -eu
out=$1 seed=$2 rounds=$3 until=$4
shift 4
offset=0
[ -f "$out" ] && offset=$(python3 -c 'import json,sys
r=[json.loads(l)["round"] for l in open(sys.argv[1])]
print(max(r)+1 if r else 0)' "$out")
while [ "$(date +%s)" -lt "$until" ]; do
	echo "chunk: seed $seed round-offset $offset rounds $rounds $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
	python3 "$(dirname "$0")/record_interference.py" --out "$out" --rounds "$rounds" \
		--round-offset "$offset" --seed "$seed" "$@"
	offset=$((offset + rounds))
	seed=$((seed + 1))
done
echo "chunks done $(date -u +%H:%M:%S)"
