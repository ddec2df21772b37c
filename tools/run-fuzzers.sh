#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the libFuzzer harnesses of tests/fuzz with clang (ASan+UBSan on every
# object, coverage on the library too) in build-fuzz, then run each one for
# SECONDS on a scratch copy of its seed corpus (the repository is never
# written to). Fails on any crash, leak, timeout or OOM.
#
# usage: tools/run-fuzzers.sh [SECONDS] [TARGET...]
#   SECONDS  per target, default 60
#   TARGET   ktap zperf twister baseline kperf iperf3 metric_json metric_line
#            proc_stat history_db
#            (default: all)
# Environment: BUILD_DIR (default build-fuzz), FUZZ_WORK (scratch directory,
# default a new mktemp -d, removed unless KEEP_WORK=1), CC (default clang).
set -u

secs=${1:-60}
[ $# -gt 0 ] && shift
case $secs in
''|*[!0-9]*) echo "usage: $0 [SECONDS] [TARGET...]" >&2; exit 2 ;;
esac

src=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$src/build-fuzz}
all_targets="ktap zperf twister baseline kperf iperf3 metric_json metric_line proc_stat history_db"
targets=${*:-$all_targets}
export CC=${CC:-clang}

if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" "$src" \
		-Db_sanitize=address,undefined -Db_lundef=false \
		-Dc_args=-fsanitize=fuzzer-no-link \
		-Dfuzzers=enabled -Dtests=enabled \
		-Dbench=disabled -Dpython=disabled || exit 1
fi
ninja_targets=
for t in $targets; do
	ninja_targets="$ninja_targets tests/fuzz/fuzz_$t"
done
# shellcheck disable=SC2086
ninja -C "$build" $ninja_targets || exit 1

work=${FUZZ_WORK:-$(mktemp -d /tmp/ksftm-fuzz.XXXXXX)}
mkdir -p "$work"
[ "${KEEP_WORK:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT

# Leaks fail the run; a stack of 30 frames is enough to read.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:symbolize=1:malloc_context_size=30}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

n=0
failed=0
for t in $targets; do
	n=$((n + 1))
	corpus=$work/$t/corpus
	artifacts=$work/$t/artifacts
	log=$work/$t/fuzz.log
	rm -rf "${work:?}/$t"
	mkdir -p "$corpus" "$artifacts"
	cp -R "$src/tests/fuzz/corpus/$t/." "$corpus/" 2>/dev/null
	case $t in
	ktap|zperf) dict=ktap.dict ;;
	kperf|proc_stat) dict=text.dict ;;
	*) dict=json.dict ;;
	esac
	# FUZZ_RUNS (CI): a fixed number of runs from a fixed seed, so that a
	# run that passed once passes again; SECONDS stays the upper bound.
	limit=""
	[ -n "${FUZZ_RUNS:-}" ] && limit="-runs=$FUZZ_RUNS -seed=${FUZZ_SEED:-1}"
	# shellcheck disable=SC2086
	"$build/tests/fuzz/fuzz_$t" "$corpus" -dict="$src/tests/fuzz/$dict" $limit \
		-max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-max_len=65536 -print_final_stats=1 \
		-artifact_prefix="$artifacts/" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	done_line=$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -n 1)
	if [ -z "$runs" ] && [ -n "$done_line" ]; then
		runs=$(echo "$done_line" | awk '{print $2}')
	fi
	arts=$(find "$artifacts" -type f 2>/dev/null | sort)
	if [ $rc -ne 0 ] || [ -n "$arts" ] || [ -z "$done_line" ]; then
		failed=$((failed + 1))
		echo "fuzz_$t: FAILED (exit $rc) runs=${runs:-?} exec/s=${speed:-?}"
		grep -E '^==[0-9]+==ERROR|SUMMARY:|runtime error|^ +#[0-9]+ ' "$log" | head -n 40 | sed 's/^/  /'
		if [ "${KEEP_WORK:-0}" = 1 ]; then
			keep=$work/$t
		else
			# Keep what is needed to reproduce outside the scratch area.
			keep=$(mktemp -d /tmp/ksftm-fuzz-fail.XXXXXX)
			# shellcheck disable=SC2086
			cp "$log" $arts "$keep/" 2>/dev/null
		fi
		for a in $arts; do
			[ "${KEEP_WORK:-0}" = 1 ] || a=$keep/$(basename "$a")
			echo "  reproducer: $a (rerun: $build/tests/fuzz/fuzz_$t $a)"
		done
		echo "  log: $keep/$(basename "$log")"
	else
		echo "fuzz_$t: ok runs=$runs exec/s=$speed ($done_line)"
	fi
done
echo "fuzz: $n targets, $failed failed"
[ $failed -eq 0 ]
