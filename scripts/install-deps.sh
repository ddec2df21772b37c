#!/bin/sh
# Install the Debian 12 packages libksftmetric builds, tests and runs with.
# Run as root (CI does); it is what the README's two commands start with.
# linux-source-6.12 brings the kernel's selftest files the upstream suite
# runs against (python3-yaml: its ksft.py imports the ynl library);
# python3-jsonschema checks the KCIDB output against our schema of its rules;
# make and libssl-dev build the patched selftests (tcp_mmap links -lcrypto);
# python3-docutils (rst2man) builds the man pages, man-db renders them in a test.
set -eu
packages="meson ninja-build pkg-config gcc g++ clang llvm libclang-rt-14-dev
python3 libjansson-dev libnl-3-dev libnl-route-3-dev check iperf3
iproute2 librsvg2-bin procps python3-venv abigail-tools linux-source-6.12
python3-yaml libsqlite3-dev libpq-dev postgresql python3-prometheus-client
chromium chromium-driver python3-selenium python3-jsonschema make libssl-dev
python3-docutils man-db"
missing=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
echo "install-deps: all packages present"
