#!/bin/bash
# Install the built tree into a temporary prefix, then compile and run a
# program using nothing but pkg-config's flags for it.
set -eu
src=$1 build=$2 consumer=$3 report_consumer=$4
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
DESTDIR="$prefix" meson install -C "$build" --no-rebuild --quiet
root=$(find "$prefix" -name ksftmetric.pc -printf '%h\n' | head -n1)
[ -n "$root" ] || { echo "ksftmetric.pc was not installed"; exit 1; }
# The .pc file names the configured prefix; point pkg-config at the copy.
export PKG_CONFIG_PATH="$root"
export PKG_CONFIG_SYSROOT_DIR="$prefix"
cflags=$(pkg-config --cflags ksftmetric)
libs=$(pkg-config --libs ksftmetric)
echo "pkg-config: $cflags $libs"
cc $cflags -o "$prefix/consumer" "$consumer" $libs
libdir=$(dirname "$(find "$prefix" -name 'libksftmetric.so.0' | head -n1)")
out=$(LD_LIBRARY_PATH="$libdir" "$prefix/consumer")
echo "$out"
expect_re='^# ktap-metric-json: \{"host":"local","name":"throughput","shape":"scalar","time":[0-9.e-]+,"value":32\.5\}$'
[ "$(echo "$out" | head -n1 | grep -cE "$expect_re")" = 1 ] || { echo "unexpected metric line"; exit 1; }
[ "$(echo "$out" | sed -n 2p)" = "ok 1 consumer" ] || { echo "result line missing or out of order"; exit 1; }
# The program must really use the installed shared library.
LD_LIBRARY_PATH="$libdir" ldd "$prefix/consumer" | grep -q "$libdir/libksftmetric.so.0" ||
	{ echo "consumer did not link the installed libksftmetric.so.0"; exit 1; }
# Static linking with what `pkg-config --static` says (Libs.private and
# Requires.private must name everything the archive needs).
archive=$(find "$prefix" -name libksftmetric.a | head -n1)
[ -n "$archive" ] || { echo "libksftmetric.a was not installed"; exit 1; }
static_libs=$(pkg-config --static --libs ksftmetric | sed 's/-lksftmetric\b//')
cc $cflags -o "$prefix/consumer-static" "$consumer" "$archive" $static_libs
out=$("$prefix/consumer-static")
[ "$(echo "$out" | head -n1 | grep -cE "$expect_re")" = 1 ] || { echo "static: unexpected metric line"; exit 1; }
echo "pkgconfig consumer: ok"

# The report engine, through its own pkg-config file and library only.
cflags=$(pkg-config --cflags ksftmetric-report)
libs=$(pkg-config --libs ksftmetric-report)
echo "pkg-config ksftmetric-report: $cflags $libs"
cc $cflags -o "$prefix/report_consumer" "$report_consumer" $libs
[ "$(LD_LIBRARY_PATH="$libdir" "$prefix/report_consumer")" = "series 1" ] ||
	{ echo "report consumer failed"; exit 1; }
deps=$(LD_LIBRARY_PATH="$libdir" ldd "$prefix/report_consumer")
grep -q "$libdir/libksftmetric-report.so.0" <<<"$deps" ||
	{ echo "report consumer did not link the installed libksftmetric-report.so.0"; exit 1; }
# Headers: both installed, each compiles on its own.
for h in metric.h report.h ksftmetric.h; do
	echo "#include <ksftmetric/$h>" | cc $(pkg-config --cflags ksftmetric) -x c -fsyntax-only - ||
		{ echo "installed header ksftmetric/$h does not compile alone"; exit 1; }
done
echo "pkgconfig report consumer: ok"
