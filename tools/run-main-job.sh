#!/bin/bash
# The main job: install packages, build everything, run the example
# selftests and show their KTAP output with its metric lines.
set -eu
cd "$(dirname "$0")/.."
build=${KSFTM_BUILD:-build}
tools/install-deps.sh
[ -f "$build/build.ninja" ] || meson setup "$build" >/dev/null
meson compile -C "$build" >/dev/null
for t in metric-selftest harness-selftest; do
	echo "### $build/examples/selftest/$t"
	"$build/examples/selftest/$t"
done
