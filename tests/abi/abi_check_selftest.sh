#!/bin/bash
# The ABI check itself: a tiny library is recorded with abidw, then rebuilt
# with one change at a time; scripts/abi-check.py (with the project's own
# abi/size-rule-structs.txt) must refuse each incompatible change and accept each
# compatible one. Usage: abi_check_selftest.sh SOURCE_ROOT CC
set -u
src=$1 cc=$2
command -v abidw >/dev/null || { echo "SKIP: abidw not found (abigail-tools)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/include"
bad=0

# build NAME HEADER-BODY EXTRA-C MAP: a versioned shared library.
build() {
	printf '#include <stddef.h>\n%s\n' "$2" >"$tmp/include/t.h"
	cat >"$tmp/$1.c" <<C
#include "t.h"
#define API __attribute__((visibility("default")))
API int f_opts(const struct ksft_metric_report_opts *o) { return o->a; }
API int f_plain(const struct plain *p) { return p->x; }
/* An opaque handle: its body is in no header. */
#ifndef OPAQUE_N
#define OPAQUE_N 1
#endif
struct ksft_metric_report { int hidden[OPAQUE_N]; };
API int f_handle(struct ksft_metric_report *h) { return h->hidden[0]; }
$3
C
	printf '%s\n' "$4" >"$tmp/$1.map"
	"$cc" -g -shared -fPIC -fvisibility=hidden -I"$tmp/include" ${5:-} \
		-Wl,--version-script="$tmp/$1.map" -o "$tmp/$1.so" "$tmp/$1.c" ||
		{ echo "cannot build $1"; exit 1; }
}
map1='V_1 { global: f_opts; f_plain; f_handle; local: *; };'
map2='V_1 { global: f_opts; f_plain; f_handle; local: *; }; V_2 { global: f_new; } V_1;'
# An opts struct under the size rule (its name is in size-rule-structs.txt) and
# a plain struct (not).
opts='struct ksft_metric_report_opts { size_t sz; int a; int b; };'
plain='struct plain { int x; int y; };'

build v1 "$opts $plain" "" "$map1"
abidw --no-show-locs "$tmp/v1.so" >"$tmp/v1.abi"

# expect VERDICT NAME: run the check on NAME.so against v1's record.
expect() {
	"$src/scripts/abi-check.py" "$tmp/$2.so" \
		"$tmp/v1.abi" "$src/abi/size-rule-structs.txt" "$src/abi/opaque.ini" >"$tmp/$2.out" 2>&1
	local rc=$?
	if { [ "$1" = pass ] && [ $rc != 0 ]; } || { [ "$1" = fail ] && [ $rc = 0 ]; }; then
		echo "FAIL: $2 should $1, check exited $rc:"; sed 's/^/    /' "$tmp/$2.out"; bad=1
	else
		echo "ok: $2 (expected to $1): $(tail -n1 "$tmp/$2.out")"
	fi
}

expect pass v1
build reordered 'struct ksft_metric_report_opts { size_t sz; int b; int a; };'" $plain" "" "$map1"
expect fail reordered
build plain_grown "$opts"' struct plain { int x; int y; int z; };' "" "$map1"
expect fail plain_grown
build type_changed 'struct ksft_metric_report_opts { size_t sz; long a; int b; };'" $plain" "" "$map1"
expect fail type_changed
build removed "$opts $plain" "" 'V_1 { global: f_opts; f_handle; local: *; };'
expect fail removed
build shrunk 'struct ksft_metric_report_opts { size_t sz; int a; };'" $plain" "" "$map1"
expect fail shrunk
build opaque_changed "$opts $plain" "" "$map1" -DOPAQUE_N=4
expect pass opaque_changed
build tail_grown 'struct ksft_metric_report_opts { size_t sz; int a; int b; int c; };'" $plain" \
	'API int f_new(void) { return 1; }' "$map2"
expect pass tail_grown
exit $bad
