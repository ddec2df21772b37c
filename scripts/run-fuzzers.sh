#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the libFuzzer harnesses of tests/fuzz with clang (ASan+UBSan on every
# object, coverage on the library too) in build-fuzz, then, per target:
#
# 1. the gate (replay): run the binary once over every committed input,
#    tests/fuzz/corpus/<target>/* and tests/fuzz/regressions/<target>/*, with
#    no time limits. The same commit gives the same verdict on every run; the
#    summary line "fuzz: N targets, N failed" counts this step only.
# 2. exploration: libFuzzer on a scratch copy of the corpus (the repository
#    is never written to), from a fixed seed for FUZZ_RUNS runs (CI) or for
#    SECONDS. Its findings are reported on "fuzz-explore:" lines with the
#    reproducer saved outside the scratch area, and do NOT count in the gate
#    (see tests/fuzz/README.md for why): a finding becomes a gate failure
#    once its input is committed under tests/fuzz/regressions/<target>/.
#
# usage: scripts/run-fuzzers.sh [SECONDS] [TARGET...]
#   SECONDS  exploration time per target, default 60 (an upper bound only
#            when FUZZ_RUNS is set); 0 skips exploration
#   TARGET   one of the list below (default: all)
# Environment: BUILD_DIR (default build-fuzz), FUZZ_RUNS, FUZZ_SEED (default
# 1), FUZZ_WORK (scratch directory, default a new mktemp -d, removed unless
# KEEP_WORK=1), FUZZ_FOUND (where findings are kept, default a new mktemp -d
# per finding), CC (default clang).
set -u

secs=${1:-60}
[ $# -gt 0 ] && shift
case $secs in
''|*[!0-9]*) echo "usage: $0 [SECONDS] [TARGET...]" >&2; exit 2 ;;
esac

src=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$src/build-fuzz}
# One target a line, so that branches adding targets merge cleanly.
all_targets="
ktap
zperf
twister
baseline
kperf
iperf3
metric_json
metric_line
proc_stat
remote_reply
history_db
cachegrind
"
# shellcheck disable=SC2086
targets=$(echo ${*:-$all_targets})
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

# Exploration without address-space randomisation where the kernel lets us:
# pointer values feed hash tables and so the coverage libFuzzer steers by.
norand=
if setarch "$(uname -m)" -R true 2>/dev/null; then
	norand="setarch $(uname -m) -R"
fi

dict_of() {
	case $1 in
	ktap|zperf) echo ktap.dict ;;
	kperf|proc_stat|remote_reply) echo text.dict ;;
	*) echo json.dict ;;
	esac
}

# Keep what reproduces a failure outside the scratch area; print it.
keep_failure() {	# TARGET LOG FILES...
	local t=$1 log=$2 keep a
	shift 2
	grep -E '^==[0-9]+==ERROR|SUMMARY:|runtime error|^ +#[0-9]+ |^Running: ' "$log" |
		head -n 40 | sed 's/^/  /'
	if [ -n "${FUZZ_FOUND:-}" ]; then
		keep=$FUZZ_FOUND/$t
		mkdir -p "$keep"
	else
		keep=$(mktemp -d /tmp/ksftm-fuzz-fail.XXXXXX)
	fi
	cp "$log" "$@" "$keep/" 2>/dev/null
	for a in "$@"; do
		a=$keep/$(basename "$a")
		echo "  reproducer: $a (rerun: $build/tests/fuzz/fuzz_$t $a;" \
			"keep it: cp $a $src/tests/fuzz/regressions/$t/)"
	done
	echo "  log: $keep/$(basename "$log")"
}

# 1. The gate: every committed input, once, no time limit.
n=0
failed=0
for t in $targets; do
	n=$((n + 1))
	rm -rf "${work:?}/$t"
	mkdir -p "$work/$t"
	log=$work/$t/replay.log
	files=$(find "$src/tests/fuzz/corpus/$t" "$src/tests/fuzz/regressions/$t" \
		-type f ! -name 'README*' 2>/dev/null | LC_ALL=C sort)
	count=$(printf '%s' "$files" | grep -c .)
	if [ "$count" = 0 ]; then
		failed=$((failed + 1))
		echo "fuzz_$t: FAILED replay: no committed input"
		continue
	fi
	# -runs=1 per file; -timeout=0 and no rss limit: the verdict must not
	# depend on how loaded the machine is.
	# shellcheck disable=SC2086
	printf '%s\n' "$files" | tr '\n' '\0' | xargs -0 \
		"$build/tests/fuzz/fuzz_$t" -timeout=0 -rss_limit_mb=0 \
		>"$log" 2>&1
	rc=$?
	# A sanitizer report fails the input even if it let the run go on.
	if [ $rc -eq 0 ] && grep -qE 'runtime error:|ERROR: (Address|Leak)Sanitizer' "$log"; then
		rc=99
	fi
	if [ $rc -ne 0 ]; then
		failed=$((failed + 1))
		echo "fuzz_$t: FAILED replay of $count committed inputs (exit $rc)"
		keep_failure "$t" "$log"
	else
		echo "fuzz_$t: ok replay of $count committed inputs"
	fi
done
echo "fuzz: $n targets, $failed failed"
gate=$failed

# 2. Exploration: reported, kept, not part of the verdict.
if [ "$secs" != 0 ]; then
	found=0
	for t in $targets; do
		corpus=$work/$t/corpus
		artifacts=$work/$t/artifacts
		log=$work/$t/fuzz.log
		mkdir -p "$corpus" "$artifacts"
		cp -R "$src/tests/fuzz/corpus/$t/." "$corpus/" 2>/dev/null
		cp -R "$src/tests/fuzz/regressions/$t/." "$corpus/" 2>/dev/null
		# FUZZ_RUNS (CI): a fixed number of runs from a fixed seed;
		# SECONDS is then only an upper bound. -reload=0: no rereading
		# of the corpus directory on a timer.
		limit="-max_total_time=$secs"
		[ -n "${FUZZ_RUNS:-}" ] && limit="-runs=$FUZZ_RUNS -seed=${FUZZ_SEED:-1} $limit"
		# shellcheck disable=SC2086
		$norand "$build/tests/fuzz/fuzz_$t" "$corpus" \
			-dict="$src/tests/fuzz/$(dict_of "$t")" $limit -reload=0 \
			-timeout=60 -rss_limit_mb=2048 -max_len=65536 \
			-print_final_stats=1 \
			-artifact_prefix="$artifacts/" >"$log" 2>&1
		rc=$?
		if [ $rc -eq 0 ] && grep -qE 'runtime error:|ERROR: (Address|Leak)Sanitizer' "$log"; then
			rc=99
		fi
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
		speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
		done_line=$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -n 1)
		arts=$(find "$artifacts" -type f 2>/dev/null | LC_ALL=C sort)
		if [ $rc -ne 0 ] || [ -n "$arts" ] || [ -z "$done_line" ]; then
			found=$((found + 1))
			echo "fuzz-explore: fuzz_$t: FOUND (exit $rc) runs=${runs:-?} exec/s=${speed:-?} (not part of the gate)"
			# shellcheck disable=SC2086
			keep_failure "$t" "$log" $arts
		else
			echo "fuzz-explore: fuzz_$t: ok runs=$runs exec/s=$speed ($done_line)"
		fi
	done
	echo "fuzz-explore: $n targets, $found with findings" \
		"(seed ${FUZZ_SEED:-1}, ${FUZZ_RUNS:+runs $FUZZ_RUNS, }at most ${secs}s each;" \
		"not part of the gate)"
fi
[ "$gate" -eq 0 ]
