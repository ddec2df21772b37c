#!/bin/bash
# The man pages after `meson install --destdir`: each is installed under
# share/man and renders with man-db (`man -l`, and `man ksft-metric-compare`
# through MANPATH), naming its command and options.
# Usage: man_pages.sh BUILDDIR
set -u
build=$1
command -v man >/dev/null || { echo "SKIP: man-db is not installed (no man)"; exit 77; }
dest=$(mktemp -d) || exit 1
trap 'rm -rf "$dest"' EXIT
meson install -C "$build" --destdir "$dest" --no-rebuild >/dev/null 2>&1 ||
	{ echo "FAIL: meson install --destdir failed"; exit 1; }
mandir=$(find "$dest" -type d -path '*/share/man' | head -n1)
[ -n "$mandir" ] || { echo "FAIL: nothing installed under share/man"; exit 1; }
fail=0
for p in man1/ksft-metric.1 man1/ksft-metric-compare.1 man1/ksft-metric-report.1 \
	man1/ksft-metric-pin.1 man1/ksft-metric-site.1 man3/libksftmetric.3 \
	man1/ksft-vm.1 man1/ksft-vm-ab.1 man1/ksft-vm-build.1 man1/ksft-vm-bisect.1; do
	[ -f "$mandir/$p" ] || { echo "FAIL: $mandir/$p not installed"; fail=1; }
done
out=$(MANPATH="$mandir" MANWIDTH=80 man ksft-metric-compare 2>&1 | col -b)
grep -qE "ksft-metric-compare +- +compare +the +inputs" <<<"$out" &&
	grep -q -- "--baseline" <<<"$out" ||
	{ echo "FAIL: man ksft-metric-compare: $out" | head -20; fail=1; }
out=$(MANWIDTH=80 man -l "$mandir/man3/libksftmetric.3" 2>&1 | col -b)
grep -q "ksft_metric_case_begin" <<<"$out" ||
	{ echo "FAIL: man -l libksftmetric.3: $out" | head -20; fail=1; }
[ $fail = 0 ] && echo "ok: man pages"
exit $fail
