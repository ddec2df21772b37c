#!/bin/sh
# Install the Debian 12 packages libksftmetric builds, tests and runs with.
# Run as root (CI does); it is what the README's two commands start with.
# linux-source-6.12 brings the kernel's selftest files the upstream suite
# runs against (python3-yaml: its ksft.py imports the ynl library);
# python3-jsonschema checks the KCIDB output against our schema of its rules;
# make and libssl-dev build the patched selftests (tcp_mmap links -lcrypto);
# python3-docutils (rst2man) builds the man pages, man-db renders them in a test.
# qemu-system-x86, busybox-static and nftables run ksft-vm's guests (doc/vm.rst),
# which boot Debian's cloud kernels fetched below (not installed on this host).
set -eu
packages="meson ninja-build pkg-config gcc g++ clang llvm libclang-rt-14-dev
python3 libjansson-dev libnl-3-dev libnl-route-3-dev check iperf3
iproute2 librsvg2-bin procps python3-venv abigail-tools linux-source-6.12
python3-yaml libsqlite3-dev libpq-dev postgresql python3-prometheus-client
chromium chromium-driver python3-selenium python3-jsonschema make libssl-dev
python3-docutils man-db qemu-system-x86 busybox-static nftables"
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

# Kernels for ksft-vm (tests/vm, bench/vm/vm_bench.py): the newest Debian 6.1
# cloud image (CI boots it) and the newest 6.12 one (the A/B in doc/vm.rst),
# chosen by apt-cache search so this follows Debian's updates; downloaded
# and unpacked into $KSFT_VM_KERNELS/PACKAGE/{boot,lib/modules}, never
# installed. KSFT_VM_KERNELS=none skips them.
kdir=${KSFT_VM_KERNELS:-/var/cache/ksft-vm-kernels}
fetch_kernel() {
	local pkg
	pkg=$(apt-cache search --names-only "$1" | cut -d' ' -f1 | sort -V | tail -n1)
	if [ -z "$pkg" ]; then	# lists never fetched on this host: once more after an update
		apt-get update -qq
		pkg=$(apt-cache search --names-only "$1" | cut -d' ' -f1 | sort -V | tail -n1)
	fi
	if [ -z "$pkg" ]; then
		echo "install-deps: no package matches $1 (apt-get update?)" >&2
		return 1
	fi
	if [ -d "$kdir/$pkg/boot" ]; then
		return 0
	fi
	mkdir -p "$kdir"
	(cd "$kdir" && ls "${pkg}"_*.deb >/dev/null 2>&1 || apt-get download -qq "$pkg")
	rm -rf "$kdir/$pkg.tmp"
	dpkg-deb -x "$(ls "$kdir/${pkg}"_*.deb | sort -V | tail -n1)" "$kdir/$pkg.tmp"
	mv "$kdir/$pkg.tmp" "$kdir/$pkg"
	echo "install-deps: $pkg unpacked in $kdir/$pkg"
}
if [ "$kdir" != none ]; then
	fetch_kernel '^linux-image-6\.1\.0-[0-9]+-cloud-amd64-unsigned$'
	fetch_kernel '^linux-image-6\.12\.[0-9.]+\+deb12-cloud-amd64-unsigned$'
fi
