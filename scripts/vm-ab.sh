#!/bin/sh
# Kernel A/B from a checkout: the build tree's ksft-vm-ab (installed, it
# is just ksft-vm-ab; ksft-vm-ab(1), doc/vm.rst). Paths stay the caller's:
# nothing here changes directory. $KSFTM_BUILD: the build tree (default:
# build/ beside this script's checkout).
build=${KSFTM_BUILD:-$(dirname "$0")/../build}
exec python3 "$build/tools/vm/ksft-vm-ab" "$@"
