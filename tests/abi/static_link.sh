#!/bin/bash
# Link tests/abi/static_consumer.c (which defines its own strbuf_free,
# float_repr and arena_alloc) statically against libksftmetric.a and run
# it: internal names must not leak from the static library.
# Usage: static_link.sh SRCROOT LIBKSFTMETRIC.A CONSUMER.C SANITIZE CC...
set -eu
src=$1 lib=$2 consumer=$3 sanitize=$4
shift 4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
san=()
[ "$sanitize" = none ] || san=("-fsanitize=$sanitize")
"$@" "${san[@]}" -I"$src/include" -o "$tmp/consumer" "$consumer" "$lib" \
	$(pkg-config --libs jansson) -lpthread -lm
out=$("$tmp/consumer")
echo "$out"
[ "$(echo "$out" | sed -n 1p | grep -c '^# ktap-metric-json: {"host":"local","name":"throughput"')" = 1 ] ||
	{ echo "unexpected metric line"; exit 1; }
[ "$(echo "$out" | tail -n1)" = "ok 1 static consumer" ] || { echo "no result line"; exit 1; }
# Really the archive: no libksftmetric.so among the program's libraries.
if ldd "$tmp/consumer" | grep -q libksftmetric; then
	echo "consumer linked a shared libksftmetric"; exit 1
fi
echo "static consumer: ok"
