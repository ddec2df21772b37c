#!/bin/bash
# libksftmetric as a Meson subproject: a user project gets both libraries
# with dependency('ksftmetric') and dependency('ksftmetric-report'), builds
# a producer and a consumer, and runs them from its build tree.
# Usage: subproject.sh SOURCE_ROOT PRODUCER.c CONSUMER.c
set -eu
src=$1 producer=$2 consumer=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/user/subprojects"
ln -s "$src" "$tmp/user/subprojects/libksftmetric"
cp "$producer" "$tmp/user/producer.c"
cp "$consumer" "$tmp/user/consumer.c"
cat >"$tmp/user/meson.build" <<'M'
project('user', 'c')
subproject('libksftmetric', default_options: ['tests=disabled',
  'examples=disabled', 'bench=disabled', 'python=disabled'])
executable('producer', 'producer.c', dependencies: dependency('ksftmetric'))
executable('consumer', 'consumer.c', dependencies: dependency('ksftmetric-report'))
M
meson setup "$tmp/build" "$tmp/user" >"$tmp/setup.log" 2>&1 || { cat "$tmp/setup.log"; exit 1; }
ninja -C "$tmp/build" producer consumer >"$tmp/build.log" 2>&1 || { tail -30 "$tmp/build.log"; exit 1; }
out=$("$tmp/build/producer")
echo "$out"
grep -q '^# ktap-metric-json: {"host":"local","name":"throughput"' <<<"$out" ||
	{ echo "FAIL: producer printed no metric line"; exit 1; }
[ "$("$tmp/build/consumer")" = "series 1" ] || { echo "FAIL: consumer"; exit 1; }
echo "subproject: ok"
