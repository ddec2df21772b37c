#!/bin/sh
# Extract the kernel files this suite runs against from Debian's
# linux-source tarball into the build directory (never into the source
# tree): OUTDIR/linux/... in the kernel's layout, plus flat copies of the
# two C headers for the compiler. Naming the members keeps tar from
# writing the whole tree; it still has to decompress the stream once.
set -eu
tarball=$1
out=$2
top=$(basename "$tarball" .tar.xz)
st=tools/testing/selftests
rm -rf "$out/linux"
mkdir -p "$out/linux"
tar -xJf "$tarball" -C "$out/linux" --strip-components=1 \
	"$top/$st/kselftest.h" \
	"$top/$st/kselftest_harness.h" \
	"$top/$st/run_kselftest.sh" \
	"$top/$st/kselftest/runner.sh" \
	"$top/$st/kselftest/prefix.pl" \
	"$top/$st/net/lib/py" \
	"$top/$st/drivers/net/lib/py" \
	"$top/tools/net/ynl/lib/__init__.py" \
	"$top/tools/net/ynl/lib/nlspec.py" \
	"$top/tools/net/ynl/lib/ynl.py" \
	"$top/tools/testing/kunit/kunit_parser.py" \
	"$top/tools/testing/kunit/kunit_printer.py"
cp "$out/linux/$st/kselftest.h" "$out/linux/$st/kselftest_harness.h" "$out/"
touch "$out/upstream.stamp"
