#!/bin/bash
# Installed programs and a pkg-config-built test start from any prefix with
# no LD_LIBRARY_PATH (issue 23: `libksftmetric-report.so.0: cannot open
# shared object file` after `meson install --prefix DIR`):
#  1. `meson install --prefix DIR`: DIR/bin/ksft-metric runs and loads the
#     libraries from DIR; a C test built with `pkg-config --cflags --libs
#     ksftmetric` runs and prints a metric line, its library from DIR;
#  2. DESTDIR staging then moving the tree elsewhere (what a package does):
#     the programs still find their libraries ($ORIGIN-relative rpath).
set -eu
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
unset LD_LIBRARY_PATH KSFTMETRIC_LIBRARY

cat >"$tmp/t.c" <<'C'
#include <ksftmetric/metric.h>
int main(void)
{
	if (ksft_metric_case_begin() < 0)
		return 1;
	if (ksft_metric("throughput", "scalar", 32.5, NULL, 0) < 0)
		return 2;
	return ksft_metric_case_end() < 0 ? 3 : 0;
}
C

# check_prefix DIR: every installed program and the pkg-config test run.
check_prefix() {
	local dir=$1 pcdir bin
	bin="$dir/bin/ksft-metric"
	[ -x "$bin" ] || fail "$bin not installed"
	(cd / && "$bin" --version) || fail "$bin does not start"
	ldd "$bin" | grep -q "=> $dir/.*libksftmetric-report\.so\.0" ||
		{ ldd "$bin"; fail "$bin: libksftmetric-report not from $dir"; }
	# The guest runner (doc/vm.rst): installed executable beside it.
	[ -x "$dir/bin/ksft-vm" ] || fail "$dir/bin/ksft-vm not installed"
	(cd / && "$dir/bin/ksft-vm" --help | grep -q -- "--kernel IMAGE") ||
		fail "$dir/bin/ksft-vm --help"
	for lib in "$dir"/lib*/*/libksftmetric-producers.so.0 "$dir"/lib/libksftmetric-producers.so.0; do
		[ -e "$lib" ] || continue
		ldd "$lib" | grep -q "not found" && { ldd "$lib"; fail "$lib: unresolved"; }
	done
	pcdir=$(dirname "$(find "$dir" -name ksftmetric.pc | head -n1)")
	[ -d "$pcdir" ] || fail "no ksftmetric.pc under $dir"
	# shellcheck disable=SC2046
	cc -o "$tmp/t" "$tmp/t.c" $(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs ksftmetric) ||
		fail "build with pkg-config"
	out=$(cd / && "$tmp/t") || fail "pkg-config-built test does not run (rc $?)"
	grep -q '^# ktap-metric-json: {.*"name":"throughput"' <<<"$out" || fail "no metric line: $out"
	ldd "$tmp/t" | grep -q "=> $dir/.*libksftmetric\.so\.0" ||
		{ ldd "$tmp/t"; fail "test: libksftmetric not from $dir"; }
}

echo "== 1. meson install --prefix $tmp/prefix"
meson setup "$tmp/build" "$src" --prefix "$tmp/prefix" \
	-Dtests=disabled -Dbench=disabled >"$tmp/setup.log" 2>&1 ||
	{ cat "$tmp/setup.log"; fail "meson setup"; }
ninja -C "$tmp/build" >"$tmp/build.log" 2>&1 || { tail -30 "$tmp/build.log"; fail "build"; }
meson install -C "$tmp/build" --quiet >/dev/null || fail "meson install"
check_prefix "$tmp/prefix"

echo "== 2. DESTDIR staging, then the tree moved"
DESTDIR="$tmp/stage" meson install -C "$tmp/build" --quiet >/dev/null || fail "DESTDIR install"
mv "$tmp/stage$tmp/prefix" "$tmp/moved"
(cd / && "$tmp/moved/bin/ksft-metric" --version) || fail "relocated ksft-metric does not start"
ldd "$tmp/moved/bin/ksft-metric" | grep -q "=> $tmp/moved/.*libksftmetric-report\.so\.0" ||
	{ ldd "$tmp/moved/bin/ksft-metric"; fail "relocated: library not from the moved tree"; }
echo PASS
