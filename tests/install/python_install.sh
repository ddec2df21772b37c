#!/bin/bash
# The Python binding where users install it (issue: Debian's python3 did not
# search the directory `meson install` used):
#  1. for prefix /usr/local, the directory chosen for Debian's /usr/bin/python3
#     is one that interpreter searches;
#  2. a real `meson install` into a fresh prefix, then import and record with
#     that interpreter, the library found through the installed path alone;
#  3. `pip install ./python` into a venv (offline: no build requirements),
#     then import and record, the library found by $KSFTMETRIC_LIBRARY and
#     by the dynamic loader (LD_LIBRARY_PATH).
set -eu
src=$1
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Records one metric in one case; prints the lines and where it loaded from.
cat >"$tmp/record.py" <<'PY'
import ksftmetric as k
print("module", k.__file__)
print("library", k.LIBRARY_PATH)
k.ksft_metric_case_begin()
k.ksft_metric("throughput", 32.5, shape="scalar", host="local")
k.ksft_metric_case_end()
PY
expect='^# ktap-metric-json: \{"host":"local","name":"throughput","shape":"scalar","time":[0-9.e-]+,"value":32\.5\}$'

echo "== 1. install directory for $py, prefix /usr/local"
out=$("$py" "$src/python/purelib_dir.py" /usr/local)
dir=$(sed -n 1p <<<"$out")
[ "$(sed -n 2p <<<"$out")" = searched ] || fail "$py does not search $dir"
"$py" -c 'import site, sys; sys.exit(sys.argv[1] not in site.getsitepackages())' "$dir" ||
	fail "$dir is not among $py's site-packages directories"
echo "$dir: searched by $py"

echo "== 2. meson install --prefix $tmp/prefix, import with $py"
meson setup "$tmp/build" "$src" --prefix "$tmp/prefix" -Dpython_interpreter="$py" \
	-Dtests=disabled -Dexamples=disabled -Dbench=disabled >"$tmp/setup.log" 2>&1 ||
	{ cat "$tmp/setup.log"; fail "meson setup"; }
ninja -C "$tmp/build" >"$tmp/build.log" 2>&1 || { tail -30 "$tmp/build.log"; fail "build"; }
meson install -C "$tmp/build" --quiet >/dev/null || fail "meson install"
site=$("$py" "$src/python/purelib_dir.py" "$tmp/prefix" | sed -n 1p)
[ -f "$site/ksftmetric/__init__.py" ] || fail "binding not installed in $site"
out=$(cd / && env -u KSFTMETRIC_LIBRARY PYTHONPATH="$site" "$py" "$tmp/record.py")
echo "$out"
grep -qx "module $site/ksftmetric/__init__.py" <<<"$out" || fail "imported from elsewhere"
grep -qE "^library $tmp/prefix/lib.*/libksftmetric\.so\.0$" <<<"$out" ||
	fail "library not loaded from the installed location"
grep -qE "$expect" <<<"$out" || fail "no metric line"
# The ksft.py wiring is part of the installed package (issue 42).
(cd / && env -u KSFTMETRIC_LIBRARY PYTHONPATH="$site" "$py" -m ksftmetric.ksft_wiring --help) \
	2>&1 | grep -q "usage: python3 -m ksftmetric.ksft_wiring" ||
	fail "ksftmetric.ksft_wiring not installed"

echo "== 3. pip install ./python into a venv"
"$py" -m venv "$tmp/venv" || fail "python3 -m venv (package python3-venv)"
cp -r "$src/python" "$tmp/pysrc"	# pip may write into the source tree
"$tmp/venv/bin/pip" install --quiet --no-index "$tmp/pysrc" || fail "pip install"
lib=$(find "$tmp/prefix" -name libksftmetric.so.0 | head -n1)
for how in env loader; do
	if [ $how = env ]; then
		out=$(cd / && KSFTMETRIC_LIBRARY="$lib" "$tmp/venv/bin/python" "$tmp/record.py")
	else
		out=$(cd / && env -u KSFTMETRIC_LIBRARY LD_LIBRARY_PATH="$(dirname "$lib")" \
			"$tmp/venv/bin/python" "$tmp/record.py")
	fi
	echo "$out"
	grep -q "^module $tmp/venv/lib/python3[.0-9]*/site-packages/ksftmetric/__init__.py$" <<<"$out" ||
		fail "venv ($how): imported from elsewhere"
	grep -qE "$expect" <<<"$out" || fail "venv ($how): no metric line"
done
echo "python install: ok"
