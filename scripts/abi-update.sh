#!/bin/bash
# Record both libraries' ABI (after a deliberate change; commit the result
# with the change). Usage: scripts/abi-update.sh [BUILD_DIR] (default: build)
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
for lib in libksftmetric libksftmetric-report; do
	# Build paths are dropped so the record
	# does not depend on where it was built.
	abidw --no-show-locs --no-corpus-path \
		"$build/lib/$lib.so.0" |
		sed -e "s/ path='[^']*\/\(lib\/[^']*\)'/ path='\1'/" -e "s/ comp-dir-path='[^']*'//" >"abi/$lib.abi"
	echo "recorded abi/$lib.abi"
done
