#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Is a virtme-ng (vng) run on QEMU's instruction-counted clock deterministic
# (issue 44, doc/vm.rst "virtme-ng (NIPA's executor), run")? For each
# kernel image: one ksft-vm run of the main job's selftest, then RUNS vng
# runs of the same selftest with the same QEMU clock options (TCG, -icount
# shift=0,sleep=off,align=off, -rtc clock=vm, -seed 1, -cpu Westmere-v1) and
# the same ksftm.* context words; prints each run's wall time, its KTAP
# log's md5sum and guest uptime, and how many metric lines differ between
# vng runs 1 and N (and by how much).
#
# Usage: bench/vm/vng_determinism.sh VNG_CHECKOUT [RUNS] [IMAGE]...
#   VNG_CHECKOUT  a virtme-ng source tree (git clone of arighi/virtme-ng);
#                 run from the tree with /usr/bin/python3 (needs
#                 python3-argcomplete, python3-requests and kmod's depmod)
#   RUNS          vng runs per kernel (default 2)
#   IMAGE         vmlinuz inside an extracted linux-image package (default:
#                 every /var/cache/ksft-vm-kernels/*/boot/vmlinuz-*); the
#                 package is copied to a temp dir first, as vng runs depmod
#                 in it
# Environment: BUILD (default build), OUT (default a new temp dir; kept),
# PREREAD=1: the guest first reads the selftest, iperf3 and their
# libraries (into its page cache), so that the test itself reads less over
# virtiofs.
#
# The Debian cloud kernels have no 9p (CONFIG_NET_9P unset), so vng's root
# must be virtiofs; vng accepts only the Rust virtiofsd's options, and
# Debian 12 has only QEMU's C one (/usr/lib/qemu/virtiofsd): without a Rust
# virtiofsd on PATH this script puts a shim there that translates the
# options (--socket-path, --shared-dir, -o cache=) and writes the pid file
# vng waits for. vng's Rust init (virtme-ng-init) needs crates.io to build,
# so the run uses --no-virtme-ng-init (the bash virtme-init); without udev
# that init finds no virtio-serial ports and writes the command's output to
# the console, which is why --verbose is given and the log is cut out of
# the console between two marker lines.
set -eu
[ $# -ge 1 ] || { sed -n '/^# Usage/,/^# The Debian/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }
vng_dir=$(realpath "$1")
runs=${2:-2}
shift $(($# >= 2 ? 2 : 1))
build=$(realpath "${BUILD:-build}")
selftest=$build/examples/perf_selftest/iperf-selftest
[ -x "$vng_dir/vng" ] || { echo "vng_determinism: $vng_dir/vng: not a virtme-ng checkout" >&2; exit 2; }
[ -x "$selftest" ] || { echo "vng_determinism: $selftest: not built (meson setup build && ninja -C build)" >&2; exit 2; }
if [ $# = 0 ]; then
	set -- /var/cache/ksft-vm-kernels/*/boot/vmlinuz-*
fi
out=${OUT:-$(mktemp -d /tmp/vng-determinism.XXXXXX)}
mkdir -p "$out/shim" "$out/kernels"
echo "vng: $(git -C "$vng_dir" describe --tags 2>/dev/null || echo unknown), $(/usr/bin/python3 "$vng_dir/vng" --version 2>/dev/null || true)"
echo "qemu: $(qemu-system-x86_64 --version | head -n1)"
echo "results in $out"

if ! virtiofsd --version 2>/dev/null | head -n1 | grep -q '^virtiofsd [0-9]'; then
	cat > "$out/shim/virtiofsd" <<-EOF
	#!/bin/bash
	# vng's virtiofsd options -> QEMU's C virtiofsd (vng_determinism.sh)
	[ "\${1:-}" = --version ] && exec /usr/lib/qemu/virtiofsd --version
	sock= dir= cache=auto
	while [ \$# -gt 0 ]; do
		case \$1 in
		--socket-path) sock=\$2; shift;;
		--shared-dir) dir=\$2; shift;;
		-o) case \$2 in cache=*) cache=\${2#cache=};; esac; shift;;
		--sandbox) shift;;
		esac
		shift
	done
	/usr/lib/qemu/virtiofsd -f --socket-path="\$sock" \\
		-o source="\$dir",cache="\$cache",sandbox=chroot 2>>"$out/virtiofsd.log" &
	echo \$! > "\$sock.pid"
	wait
	EOF
	chmod +x "$out/shim/virtiofsd"
	echo "virtiofsd: QEMU's C one behind $out/shim/virtiofsd"
fi

# the guest's command: the selftest's output stays in the guest's /tmp (a
# tmpfs overlay) until the end, then goes to the console between markers
preread=
if [ "${PREREAD:-0}" = 1 ]; then
	iperf3=$(command -v iperf3)
	preread=$(for f in "$selftest" "$iperf3"; do echo "$f"; ldd "$f" | awk '/=>/ { print $3 }'; done |
		sort -u | tr '\n' ' ')
fi
cat > "$out/guest.sh" <<-EOF
	for f in $preread; do cat "\$f" > /dev/null; done
	ip link set lo up 2>/dev/null
	"$selftest" --loopback --time 2 --repeat 1 > /tmp/ktap.log 2> /tmp/err.log
	rc=\$?
	echo "@@vng-determinism-begin rc=\$rc uptime=\$(cut -d' ' -f1 /proc/uptime)"
	cat /tmp/ktap.log
	echo "@@vng-determinism-end"
EOF

seconds() { date +%s.%N; }

for image in "$@"; do
	pkg=$(dirname "$(dirname "$(realpath "$image")")")
	release=${image##*/vmlinuz-}
	name=$(basename "$pkg")
	echo
	echo "== $release ($(uptime | sed 's/.*load/load/'))"
	for ((i = 1; i <= runs; i++)); do
		log=$out/$release.ksft-vm$i
		t0=$(seconds)
		rc=0
		"$build/tools/vm/ksft-vm" --kernel "$image" --add "$selftest" -- \
			"$selftest" --loopback --time 2 --repeat 1 > "$log.ktap" 2> "$log.err" || rc=$?
		t1=$(seconds)
		printf 'ksft-vm run %d rc %d  wall %6.1f s  md5 %s\n' "$i" "$rc" "$(echo "$t1 - $t0" | bc)" \
			"$(md5sum < "$log.ktap" | cut -c1-12)"
	done
	config=$(sed -n 's/.*"vm_kernel_config":"\([0-9a-f]*\)".*/\1/p' "$out/$release.ksft-vm1.ktap" | head -n1)
	[ -d "$out/kernels/$name" ] || cp -a "$pkg" "$out/kernels/"
	kimg=$out/kernels/$name/boot/vmlinuz-$release
	ctx="nokaslr random.trust_cpu=off random.trust_bootloader=off tsc=reliable no_timer_check"
	ctx+=" ksftm.clock=icount ksftm.qemu=$(qemu-system-x86_64 --version | sed -n 's/.*version \([0-9.]*\).*/\1/p')"
	ctx+=" ksftm.qemu_cpu=Westmere-v1 ksftm.vm_kernel=$release ksftm.vm_kernel_config=${config:-unknown}"
	ctx+=" ksftm.icount_shift=0 quiet loglevel=0"
	for ((i = 1; i <= runs; i++)); do
		log=$out/$release.vng$i
		t0=$(seconds)
		rc=0
		(cd "$out" && PATH=$out/shim:/usr/sbin:/usr/bin:$PATH timeout 1800 /usr/bin/python3 "$vng_dir/vng" \
			--verbose --run "$kimg" --disable-kvm --no-virtme-ng-init --cpus 1 --memory 1G \
			--qemu-opts "-icount shift=0,sleep=off,align=off -rtc base=2026-01-01T00:00:00,clock=vm -seed 1 -cpu Westmere-v1" \
			--append "$ctx" --exec "bash $out/guest.sh") < /dev/null > "$log.console" 2>&1 || rc=$?
		t1=$(seconds)
		sed -n '/^@@vng-determinism-begin/,/^@@vng-determinism-end/p' "$log.console" |
			sed '1d;$d' | tr -d '\r' > "$log.ktap"
		status=$(grep -a -o '^@@vng-determinism-begin.*' "$log.console" | tr -d '\r' | head -n1)
		printf 'vng     run %d rc %d  wall %6.1f s  md5 %s  %s\n' "$i" "$rc" "$(echo "$t1 - $t0" | bc)" \
			"$(md5sum < "$log.ktap" | cut -c1-12)" "${status#@@vng-determinism-begin }"
	done
	python3 - "$runs" "$out/$release".ksft-vm*.ktap "$out/$release".vng*.ktap <<-'EOF'
	import json, sys
	def metrics(path):
	    rows = []
	    for line in open(path, errors="replace"):
	        if line.startswith("# ktap-metric-json: "):
	            rows.append(json.loads(line.split(": ", 1)[1]))
	    return rows
	def summary(path):
	    import re
	    return ["%s Gbit/s %s instr/B" % m.groups() for l in open(path, errors="replace")
	            for m in [re.search(r"([0-9.]+) virtual Gbps.*own ([0-9.]+) instructions/byte", l)] if m]
	logs = sys.argv[2:]
	for p in logs:
	    print("   ", p.rsplit("/", 1)[1] + ":", len(metrics(p)), "metric lines;",
	          "forward, reverse:", ", ".join(summary(p)))
	def keyed(path):
	    """metric lines by (host, name, k-th occurrence)"""
	    seen, rows = {}, {}
	    for r in metrics(path):
	        k = (r.get("host"), r.get("name"))
	        seen[k] = seen.get(k, 0) + 1
	        rows[k + (seen[k],)] = r
	    return rows
	def diff(a, b):
	    ma, mb = keyed(a), keyed(b)
	    only = len(set(ma) ^ set(mb))
	    values, times, worst = 0, 0, (0.0, "")
	    for k in sorted(set(ma) & set(mb), key=str):
	        x, y = ma[k], mb[k]
	        vx, vy = x.get("value"), y.get("value")
	        if vx != vy:
	            values += 1
	            if isinstance(vx, (int, float)) and isinstance(vy, (int, float)):
	                rel = abs(vy - vx) / max(abs(vx), abs(vy))
	                if rel > worst[0]:
	                    worst = (rel, "%s/%s %.4g->%.4g" % (k[1], k[0], vx, vy))
	        elif x != y:
	            times += 1
	    return ("%d/%d metric lines; %d in one log only; of the rest %d differ in value, %d more "
	            "only in time; largest change %.2f %% (%s)"
	            % (len(ma), len(mb), only, values, times, 100 * worst[0], worst[1]))
	runs = int(sys.argv[1])
	for first in (1, 1 + runs):
	    for later in logs[first:first + runs - 1]:
	        print("    %s against %s: %s" % (logs[first - 1].rsplit(".", 2)[1], later.rsplit(".", 2)[1],
	                                         diff(logs[first - 1], later)))
	EOF
done
