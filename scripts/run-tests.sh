#!/bin/bash
# The whole test suite, as the README and CI run it: install packages, build,
# run the quick loop (unit and layout suites) and stop there if it fails, then
# every other test, then rebuild and rerun under ASan+UBSan and under TSan.
# --quick: the quick loop alone (plain build, unit and layout suites: no
# sanitizers, fuzzers, guests or PostgreSQL), the one to run before a commit.
# Ends with one line "N passed, N failed". Exit status 0 only if none failed.
set -u
cd "$(dirname "$0")/.." || exit 2
root=$PWD
out=${KSFTM_TEST_BUILD:-$root/build-test}
quick=0
case "${1:-}" in
--quick) quick=1 ;;
"") ;;
*) echo "usage: scripts/run-tests.sh [--quick]" >&2; exit 2 ;;
esac

scripts/install-deps.sh || exit 2

passed=0 failed=0 skipped=0 failures=
log() { printf '\n=== %s\n' "$*"; }

# run_suite NAME BUILDDIR MESON-SETUP-ARGS... -- MESON-TEST-ARGS...
run_suite() {
	local name=$1 dir=$2 setup=() testargs=() seen=0
	shift 2
	for a in "$@"; do
		if [ "$a" = "--" ]; then seen=1; continue; fi
		if [ $seen = 0 ]; then setup+=("$a"); else testargs+=("$a"); fi
	done
	log "$name: configure and build ($dir)"
	if ! { [ -f "$dir/build.ninja" ] || meson setup "$dir" "${setup[@]}" >"$dir.setup.log" 2>&1; } ||
	   ! ninja -C "$dir" >"$dir.build.log" 2>&1; then
		cat "$dir.setup.log" "$dir.build.log" 2>/dev/null | tail -40
		echo "$name: build FAILED"
		failed=$((failed + 1))
		return
	fi
	log "$name: meson test ${testargs[*]}"
	meson test -C "$dir" --print-errorlogs "${testargs[@]}" 2>&1 | tee "$dir.test.log" |
		grep -E '^ *[0-9]+/[0-9]+ |^(Ok|Fail|Skipped|Timeout|Expected Fail|Unexpected Pass):' 
	local ok fail timeout xpass skip
	ok=$(sed -n 's/^Ok: *\([0-9]*\).*/\1/p' "$dir.test.log" | tail -n1)
	skip=$(sed -n 's/^Skipped: *\([0-9]*\).*/\1/p' "$dir.test.log" | tail -n1)
	fail=$(sed -n 's/^Fail: *\([0-9]*\).*/\1/p' "$dir.test.log" | tail -n1)
	timeout=$(sed -n 's/^Timeout: *\([0-9]*\).*/\1/p' "$dir.test.log" | tail -n1)
	xpass=$(sed -n 's/^Unexpected Pass: *\([0-9]*\).*/\1/p' "$dir.test.log" | tail -n1)
	if [ -z "$ok" ]; then
		echo "$name: meson test printed no summary"
		failed=$((failed + 1))
		return
	fi
	# Named again at the end, beside the summary line: a CI that keeps only
	# the tail of the output must still say which test failed (once: meson
	# prints a failure twice, in the progress and in its summary).
	failures+=$(grep -E '^ *[0-9]+/[0-9]+ ' "$dir.test.log" |
		grep -vE ' (OK|SKIP|EXPECTEDFAIL) +[0-9.]+s' | awk '!seen[$0]++' |
		sed "s/^/$name: /")$'\n'
	passed=$((passed + ok))
	skipped=$((skipped + ${skip:-0}))
	failed=$((failed + ${fail:-0} + ${timeout:-0} + ${xpass:-0}))
}

# summary: the closing line, and the exit status
summary() {
	echo
	if [ -n "${failures//$'\n'/}" ]; then
		echo "failed:"
		printf '%s' "$failures" | sed '/^$/d; s/^/  /'
		grep -h '^fuzz.*FAIL\|^fuzz_.*: FAIL' "$out-fuzz.log" 2>/dev/null | sed 's/^/  /'
	fi
	# Skipped tests (exit 77: no root, a package missing) are counted, not hidden.
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" = 0 ]
}

# The quick loop first: a broken build or unit test fails in a minute or two.
run_suite "quick" "$out" -- --suite unit --suite layout
if [ $quick = 1 ] || [ "$failed" != 0 ]; then
	summary
	exit
fi
run_suite "plain" "$out" -- --no-suite unit --no-suite layout
# Sanitizers: the C suites and the benchmarks' checks (the gate replays go
# through compare --db and ingest); ctypes/Python and install tests need no rerun.
UBSAN_OPTIONS="halt_on_error=1 print_stacktrace=1" \
ASAN_OPTIONS="detect_leaks=1" \
run_suite "asan+ubsan" "$out-asan" -Db_sanitize=address,undefined -Db_lundef=false \
	-- --suite unit --suite stress --suite integration --suite bench-check
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
run_suite "tsan" "$out-tsan" -Db_sanitize=thread -Db_lundef=false \
	-- --suite unit --suite stress --suite integration --suite bench-check

# Fuzzers (libFuzzer needs clang): the count is the replay of every
# committed input per target ("fuzz: N targets, N failed"), the same on every
# run of a commit; the seeded exploration after it is reported on
# "fuzz-explore:" lines and not counted (tests/fuzz/README.md), at most
# 120 s a target so that the whole run stays well inside CI's time.
if command -v clang >/dev/null; then
	log "fuzzers: FUZZ_RUNS=20000 scripts/run-fuzzers.sh 120"
	BUILD_DIR="$out-fuzz" FUZZ_RUNS=20000 scripts/run-fuzzers.sh 120 2>&1 | tee "$out-fuzz.log"
	fz=$(sed -n 's/^fuzz: \([0-9]*\) targets, \([0-9]*\) failed$/\1 \2/p' "$out-fuzz.log")
	if [ -n "$fz" ]; then
		read -r fz_targets fz_failed <<<"$fz"
		passed=$((passed + fz_targets - fz_failed))
		failed=$((failed + fz_failed))
	else
		echo "fuzzers: no summary line"
		failed=$((failed + 1))
	fi
fi

summary
