#!/bin/bash
# The bash completion script (tools/completion/ksft-metric), sourced in a
# real bash against the built tool: `ksft-metric com<TAB>` completes to
# compare, `ksft-metric compare --<TAB>` offers compare's options (from its
# --help), and the top level offers every command.
# Usage: completion.sh COMPLETION_SCRIPT KSFT_METRIC
set -u
script=$1 tool=$2
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
# The tool under its installed name, first on PATH.
ln -s "$(readlink -f "$tool")" "$dir/ksft-metric"
export PATH="$dir:$PATH"
# shellcheck disable=SC1090
source "$script" || { echo "FAIL: cannot source $script"; exit 1; }
fail=0
complete_words() {	# complete_words WORD... : COMPREPLY for the last word
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_ksft_metric
	printf '%s\n' "${COMPREPLY[@]}" | sort
}
got=$(complete_words ksft-metric com)
[ "$got" = compare ] || { echo "FAIL: com<TAB> gave '$got'"; fail=1; }
got=$(complete_words ksft-metric "")
for c in report save compare plot html ingest history accept pin; do
	grep -qx "$c" <<<"$got" || { echo "FAIL: no command $c in '$got'"; fail=1; }
done
got=$(complete_words ksft-metric compare --)
for o in --baseline --db --tolerance --format --allow-missing --window; do
	grep -qx -- "$o" <<<"$got" || { echo "FAIL: compare --<TAB> lacks $o: $got"; fail=1; }
done
grep -qx -- "--title" <<<"$got" && { echo "FAIL: compare offers plot's --title"; fail=1; }
got=$(complete_words ksft-metric compare --basel)
[ "$got" = --baseline ] || { echo "FAIL: --basel<TAB> gave '$got'"; fail=1; }
# ab's two-command mode (issue 33 item 4): its options, and a command after --run-a.
got=$(complete_words ksft-metric ab --)
for o in --run-a --run-b --pairs --seed --alpha; do
	grep -qx -- "$o" <<<"$got" || { echo "FAIL: ab --<TAB> lacks $o: $got"; fail=1; }
done
got=$(complete_words ksft-metric ab --run-a ksft-metri)
grep -qx -- ksft-metric <<<"$got" || { echo "FAIL: ab --run-a <TAB> offers no command: $got"; fail=1; }
[ $fail = 0 ] && echo "ok: completion"
exit $fail
