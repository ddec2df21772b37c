#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ksft-vm's pure parts without QEMU or a kernel, in the manner of
kunit_tool's kunit_tool_test.py: the cpio writer, the .modinfo reader, the
setup-header reader, argument parsing, QEMU's argv, result decoding, the
root's packing rules, left-over temp dirs, the A/B's reply summary.

usage: test_ksft_vm_unit.py [unittest options]
"""
import os
import re
import stat
import struct
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "vm"))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True

from ksft_vm import ab, cli, guest_init, kernel, modules, process, qemu, reply, result  # noqa: E402
from ksft_vm.cpio import Cpio, read_newc  # noqa: E402
from ksft_vm.errors import GuestError, UsageError, VmError  # noqa: E402
from ksft_vm.root import Root  # noqa: E402
from standin_util import fake_kernel  # noqa: E402


def elf_with_sections(sections):
    """A minimal ELF64 image with the named sections (name -> bytes)."""
    names = b"\0" + b"".join(n.encode() + b"\0" for n in sections) + b".shstrtab\0"
    body = bytearray(0x40)
    body[0:5] = b"\x7fELF\x02"
    offsets = []
    for data in sections.values():
        offsets.append(len(body))
        body += data
    str_off = len(body)
    body += names
    shoff = len(body)
    entries = [bytes(64)]
    pos = 1
    for (name, data), off in zip(sections.items(), offsets):
        e = bytearray(64)
        struct.pack_into("<I", e, 0, pos)
        struct.pack_into("<QQ", e, 0x18, off, len(data))
        entries.append(bytes(e))
        pos += len(name) + 1
    e = bytearray(64)
    struct.pack_into("<I", e, 0, pos)
    struct.pack_into("<QQ", e, 0x18, str_off, len(names))
    entries.append(bytes(e))
    body += b"".join(entries)
    struct.pack_into("<Q", body, 0x28, shoff)
    struct.pack_into("<HHH", body, 0x3A, 64, len(entries), len(entries) - 1)
    return bytes(body)


class TestCpio(unittest.TestCase):
    def test_round_trip(self):
        c = Cpio()
        c.file("/a/b/file", b"hello", 0o644)
        c.symlink("/a/link", "b/file")
        c.dir("/empty")
        c.file("/a/b/file", b"second copy ignored")
        data = c.finish()
        self.assertEqual(len(data) % 512, 0)
        entries = read_newc(data)
        self.assertEqual([n for n, _, _ in entries], ["a", "a/b", "a/b/file", "a/link", "empty"])
        by = {n: (m, d) for n, m, d in entries}
        self.assertEqual(by["a/b/file"], (stat.S_IFREG | 0o644, b"hello"))
        self.assertEqual(by["a/link"], (stat.S_IFLNK | 0o777, b"b/file"))
        self.assertTrue(stat.S_ISDIR(by["empty"][0]))

    def test_padding_every_length(self):
        """Names and data of every length mod 4 stay aligned."""
        c = Cpio()
        for i in range(1, 9):
            c.file("/" + "n" * i, b"x" * i)
        got = [(n, d) for n, _, d in read_newc(c.finish())]
        self.assertEqual(got, [("n" * i, b"x" * i) for i in range(1, 9)])


class TestModinfo(unittest.TestCase):
    def test_reads_depends(self):
        img = elf_with_sections({".text": b"\x90" * 7,
                                 ".modinfo": b"license=GPL\0depends=veth,nf_tables\0name=x\0"})
        self.assertEqual(modules.modinfo(img), [("license", "GPL"), ("depends", "veth,nf_tables"),
                                                ("name", "x")])
        self.assertEqual(modules.depends(img), ["veth", "nf_tables"])

    def test_none_and_not_elf(self):
        self.assertEqual(modules.modinfo(elf_with_sections({".text": b"x"})), [])
        self.assertEqual(modules.modinfo(b"not an elf at all"), [])
        self.assertEqual(modules.depends(elf_with_sections({".modinfo": b"depends=\0"})), [])

    def test_truncated_raises(self):
        img = elf_with_sections({".modinfo": b"depends=a\0"})
        with self.assertRaises(ValueError):
            modules.modinfo(img[:len(img) - 100])


class TestSetupHeader(unittest.TestCase):
    def test_release_and_banner(self):
        with tempfile.TemporaryDirectory() as d:
            k = fake_kernel(d, "6.12.0-rc1-00042-gdeadbeef", " (me@host) #3 SMP")
            v = kernel.read_version(k)
        self.assertEqual(v, "6.12.0-rc1-00042-gdeadbeef (me@host) #3 SMP")
        self.assertEqual(kernel.release_of(v), "6.12.0-rc1-00042-gdeadbeef")

    def test_not_a_bzimage(self):
        self.assertIsNone(kernel.setup_version(b"\0" * 0x400))
        self.assertIsNone(kernel.setup_version(b"short"))

    def test_find_kernel_errors(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "x")
            with open(p, "wb") as f:
                f.write(b"#!/bin/sh\n")
            with self.assertRaisesRegex(VmError, "not a bzImage"):
                kernel.find_kernel(p, None)
            with self.assertRaisesRegex(VmError, "no such file"):
                kernel.find_kernel(os.path.join(d, "none"), None)
            k = fake_kernel(d, "6.1.0-test")
            with self.assertRaisesRegex(VmError, "--modules"):
                kernel.find_kernel(k, d)
            self.assertIsNone(kernel.find_kernel(k, None).moddir)
            os.makedirs(os.path.join(d, "lib", "modules", "6.1.0-test", "kernel"))
            self.assertEqual(kernel.find_kernel(k, None).moddir,
                             os.path.join(d, "lib", "modules", "6.1.0-test"))


class TestConsole(unittest.TestCase):
    def test_panic_named_beyond_the_tail(self):
        """A panic's own line is named even when its oops trace is longer
        than the console tail ksft-vm prints."""
        with tempfile.TemporaryDirectory() as d:
            con = os.path.join(d, "console")
            with open(con, "w") as f:
                f.write("[    1.60] sysrq: Trigger a crash\n"
                        "[    1.61] Kernel panic - not syncing: sysrq triggered crash\n")
                f.writelines("[    1.62]  ? frame_%d+0x1/0x2\n" % i
                             for i in range(2 * cli.CONSOLE_TAIL))
            self.assertNotIn("Kernel panic", cli.tail(con))
            self.assertEqual(cli.panic_line(con),
                             "Kernel panic - not syncing: sysrq triggered crash")
            with open(con, "w") as f:
                f.write("[    0.10] Linux version 6.1\n")
            self.assertIsNone(cli.panic_line(con))
            self.assertIsNone(cli.panic_line(os.path.join(d, "none")))


class TestParse(unittest.TestCase):
    def test_command_after_dashdash(self):
        a = cli.parse(["--smp", "2", "--add", "x", "--", "cmd", "--kvm", "--"])
        self.assertEqual((a.smp, a.add, a.command, a.kvm), (2, ["x"], ["cmd", "--kvm", "--"], False))

    def test_refusals(self):
        for argv, word in ((["--kernel", "A", "B", "--", "c"], "B: a word before --"),
                           (["cmd"], "cmd: a word before --"), (["--"], "no COMMAND"),
                           (["--timeout", "nan", "--", "c"], "finite"),
                           (["--timeout", "0", "--", "c"], "positive"),
                           (["--smp", "3", "--", "c"], "--smp"),
                           (["--memory", "64", "--", "c"], "--memory"),
                           (["--cpu", "a,b", "--", "c"], "--cpu"),
                           (["--bogus", "--", "c"], "--bogus")):
            with self.assertRaisesRegex(UsageError, word, msg=argv):
                cli.parse(argv)

    def test_ab_parse(self):
        a = ab.parse(["-o", "out", "A", "B", "--add", "s", "--", "s", "-x"])
        self.assertEqual((a.out, a.images, a.vm_opts, a.command),
                         ("out", ["A", "B"], ["--add", "s"], ["s", "-x"]))
        for argv in (["A", "B", "c"], ["A", "--", "c"], ["--add", "s", "A", "B", "--", "c"],
                     ["--format", "html", "A", "B", "--", "c"]):
            with self.assertRaises(UsageError, msg=argv):
                ab.parse(argv)


class TestQemuArgv(unittest.TestCase):
    def cfg(self, **kw):
        return qemu.VmConfig(image="/k", initrd="/t,1/initrd", console="/t,1/con",
                             result="/t,1/res", release="6.1", **kw)

    def test_commas_doubled(self):
        argv = qemu.qemu_argv(self.cfg())
        self.assertIn("file,id=con,path=/t,,1/con", argv)
        self.assertIn("file,id=res,path=/t,,1/res", argv)
        self.assertEqual(argv[argv.index("-initrd") + 1], "/t,1/initrd")

    def test_icount_and_kvm(self):
        argv = qemu.qemu_argv(self.cfg())
        self.assertEqual(argv[argv.index("-icount") + 1], "shift=0,sleep=off,align=off")
        self.assertIn("ksftm.icount_shift=0", argv[argv.index("-append") + 1])
        argv = qemu.qemu_argv(self.cfg(kvm=True, extra_args=["-plugin", "x.so"]))
        self.assertNotIn("-icount", argv)
        self.assertEqual(argv[argv.index("-accel") + 1], "kvm")
        self.assertIn("ksftm.clock=kvm", argv[argv.index("-append") + 1])
        self.assertEqual(argv[-2:], ["-plugin", "x.so"])


class TestResult(unittest.TestCase):
    def stream(self, rc, out, err, full=0, end=b"KSFT-VM-RESULT-END\n"):
        return b"noise\nKSFT-VM-RESULT %d %d %d %d\n" % (rc, len(out), len(err), full) + \
            out + err + end

    def test_decode(self):
        r = result.decode(self.stream(2, b"o\nKSFT-VM-RESULT 0 0 0 0\n", b"e"))
        self.assertEqual((r.status, r.out, r.err), (2, b"o\nKSFT-VM-RESULT 0 0 0 0\n", b"e"))

    def test_cut_and_mixed(self):
        with self.assertRaisesRegex(GuestError, "without"):
            result.decode(b"console junk only")
        with self.assertRaisesRegex(GuestError, "cut short"):
            result.decode(self.stream(0, b"out", b"err")[:-10])
        with self.assertRaisesRegex(GuestError, "end mark"):
            result.decode(self.stream(0, b"out", b"err", end=b"late output\nKSFT-VM-RESULT-END\n"))

    def test_full(self):
        with self.assertRaisesRegex(GuestError, "filled") as cm:
            result.decode(self.stream(0, b"o", b"", full=1))
        self.assertEqual(cm.exception.result.out, b"o")


# /proc/timer_list as 6.12 prints it (two CPUs; what the awk lines read).
TIMER_LIST = """Timer List Version: v0.10
HRTIMER_MAX_CLOCK_BASES: 8
now at %d nsecs

cpu: 0
 clock 0:
  .base:               ffff88803e61f300
  .idle_sleeptime : %d nsecs
  .iowait_sleeptime: 0 nsecs
  .idle_waketime  : 0 nsecs
cpu: 1
  .idle_sleeptime : %d nsecs
"""


class TestCommandStats(unittest.TestCase):
    """COMMAND's virtual time, CPU time and the guest's idle time (issue 42,
    doc/vm.rst "Latency tests"): /init's awk lines under busybox's awk (the
    guest's), the header's fields, the line the host prints."""

    def awk(self, script, stdin=""):
        bb = "/bin/busybox"
        if not os.path.exists(bb):
            self.skipTest("no busybox on the host (the guest's awk)")
        with tempfile.TemporaryDirectory() as d:
            os.symlink(bb, os.path.join(d, "awk"))
            return subprocess.run(["/bin/sh", "-c", script], input=stdin, text=True,
                                  capture_output=True, env={"PATH": d + ":/bin:/usr/bin"},
                                  check=True).stdout.strip()

    def test_clock_reads_timer_list(self):
        with tempfile.TemporaryDirectory() as d:
            tl = os.path.join(d, "timer_list")
            with open(tl, "w") as f:
                f.write(TIMER_LIST % (12345678901, 1000000007, 25))
            clock = guest_init.CLOCK.replace("/proc/timer_list", tl)
            self.assertEqual(self.awk(clock), "12345678901 1000000032")
            self.assertEqual(self.awk(guest_init.CLOCK.replace("/proc/timer_list",
                                                               tl + ".none")), "- -")
        delta = "awk '%s'" % guest_init.DELTA
        self.assertEqual(self.awk(delta, "12345678901 1000000032 14345678905 1500000032\n"),
                         "2000000004 500000000")
        self.assertEqual(self.awk(delta, "- - 14345678905 1500000032\n"), "- -")
        self.assertEqual(self.awk(delta, "5 - 9 -\n"), "4 -")

    def test_init_measures_command_alone(self):
        text = guest_init.render(["/bin"], {}, "/w", ["c"])
        run = text.index('"$@" >> $o/out')
        self.assertLess(text.index("echo $$ > $g/cgroup.procs"), run)
        self.assertLess(text.index("t0=$("), text.index("echo $$ > $g/cgroup.procs"))
        after = text[run:]
        self.assertLess(after.index("usage_usec"), after.index("echo $$ > /sys/fs/cgroup/"))
        self.assertLess(after.index("echo $$ > /sys/fs/cgroup/"), after.index("t1=$("))
        self.assertIn('$rc $nout $nerr $full $cpu $(echo $t0 $t1', text)

    def test_header_stats(self):
        data = b"KSFT-VM-RESULT 0 1 0 0 2500000 4000000123 1000000000\nxKSFT-VM-RESULT-END\n"
        r = result.decode(data)
        self.assertEqual((r.status, r.out), (0, b"x"))
        self.assertEqual(r.stats, {"cpu_ns": 2500000000, "elapsed_ns": 4000000123,
                                   "idle_ns": 1000000000})
        line = result.stats_line(r.stats)
        self.assertIn("COMMAND took 4.000000 virtual s: its own CPU 2.500000 s (instructions), "
                      "the guest idle 1.000000 s, the rest 0.500000 s", line)
        self.assertNotIn("virtual", result.stats_line(r.stats, icount=False))
        r = result.decode(b"KSFT-VM-RESULT 0 0 0 0 - 7 -\nKSFT-VM-RESULT-END\n")
        self.assertEqual(r.stats, {"cpu_ns": None, "elapsed_ns": 7, "idle_ns": None})
        self.assertIn("its own CPU ? s", result.stats_line(r.stats))
        # a guest that measured nothing, and one from before the fields
        self.assertIsNone(result.stats_line(
            result.decode(b"KSFT-VM-RESULT 0 0 0 0 - - -\nKSFT-VM-RESULT-END\n").stats))
        self.assertIsNone(result.decode(b"KSFT-VM-RESULT 0 0 0 0\nKSFT-VM-RESULT-END\n").stats)
        # another awk's float or a stray word costs the figure, never the result
        r = result.decode(b"KSFT-VM-RESULT 3 1 0 0 12 5.002845e+09 x\nyKSFT-VM-RESULT-END\n")
        self.assertEqual((r.status, r.out), (3, b"y"))
        self.assertEqual(r.stats, {"cpu_ns": 12000, "elapsed_ns": 5002845000, "idle_ns": None})


class TestRoot(unittest.TestCase):
    def test_dir_after_its_file(self):
        """A directory first made as a file's parent is still walked (item 1)."""
        with tempfile.TemporaryDirectory() as d:
            for n in ("main.sh", "data.txt"):
                with open(os.path.join(d, n), "w") as f:
                    f.write("x")
            r = Root(warn=lambda t: None)
            r.add(os.path.join(d, "main.sh"))
            r.add(d)
            names = [n for n, _, _ in read_newc(r.cpio.finish())]
        real = os.path.realpath(d).lstrip("/")
        self.assertIn(real + "/data.txt", names)

    def test_dangling_link_warns_with_its_name(self):
        with tempfile.TemporaryDirectory() as d:
            os.symlink("nowhere", os.path.join(d, "ln"))
            said = []
            r = Root(warn=said.append)
            r.add(d)
        self.assertEqual(len(said), 1)
        self.assertIn(os.path.join(d, "ln"), said[0])

    def test_init_quotes_every_word(self):
        text = guest_init.render(["/a b"], {"KSFT_X": "$(id)"}, "/w d", ["c", "'", "$x"])
        self.assertIn("set -- c ''\"'\"'' '$x'", text)
        self.assertIn("export KSFT_X='$(id)'", text)
        self.assertIn("mount -t tmpfs", text)
        self.assertIn("kill -TERM -1", text)


class TestLeftOver(unittest.TestCase):
    def test_dead_owner_removed_live_kept(self):
        with tempfile.TemporaryDirectory() as d:
            dead = os.path.join(d, "ksft-vm.dead")
            live = os.path.join(d, "ksft-vm.live")
            other = os.path.join(d, "other.dir")
            for p in (dead, live, other):
                os.mkdir(p)
            child = subprocess.Popen(["true"])
            child.wait()
            with open(os.path.join(dead, "owner"), "w") as f:
                f.write("%d 1\n" % child.pid)
            with open(os.path.join(live, "owner"), "w") as f:
                f.write("%d %s\n" % (os.getpid(), process._start_time(os.getpid())))
            removed = process.remove_left_over(d)
            self.assertEqual(removed, [dead])
            self.assertTrue(os.path.isdir(live) and os.path.isdir(other))


class TestStoppable(unittest.TestCase):
    """process.stoppable(), around the work of ksft-vm-ab's, bisect's and
    --tree's build's main(): a stop signal in the body ends the process of
    that signal after the body's own cleanup, and nothing after the block
    runs; any other way out leaves the stop signals blocked."""

    def child(self, body):
        code = ("import os, signal, sys\n"
                "sys.path.insert(0, %r)\n"
                "from ksft_vm import process\n"
                "with process.stoppable():\n"
                "    try:\n"
                "%s\n"
                "    finally:\n"
                "        print('cleanup', flush=True)\n"
                "print('after', flush=True)\n"
                "os.kill(os.getpid(), signal.SIGTERM)\n"
                "print('blocked', flush=True)\n") % (
                    os.path.join(HERE, "..", "..", "tools", "vm"), body)
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)

    def test_signal_ends_the_process_of_it(self):
        p = self.child("        os.kill(os.getpid(), signal.SIGTERM)\n"
                       "        print('not reached', flush=True)")
        self.assertEqual(p.returncode, -15, p.stderr)
        self.assertEqual(p.stdout, "cleanup\n")

    def test_other_exits_leave_the_signals_blocked(self):
        p = self.child("        print('body', flush=True)")
        self.assertEqual((p.returncode, p.stdout), (0, "body\ncleanup\nafter\nblocked\n"),
                         p.stderr)
        p = self.child("        raise ValueError('x')")
        self.assertEqual((p.returncode, p.stdout), (1, "cleanup\n"))
        self.assertIn("ValueError: x", p.stderr)


class TestReply(unittest.TestCase):
    CTX_A = {"vm_kernel": "6.1.0-57-cloud-amd64", "qemu": "7.2.22", "clock": "icount",
             "icount_shift": "0", "qemu_cpu": "Westmere-v1", "cpu_count": 1}
    CTX_B = dict(CTX_A, vm_kernel="6.12.118+deb12-cloud-amd64")
    ROWS = [{"case": "iperf.forward", "name": "throughput", "labels": {"host": "local"},
             "element": None, "better": "higher", "baseline": 9.104, "current": 10.108,
             "change_pct": 11.03, "fails": False, "verdict": "improvement"},
            {"case": "iperf.forward", "name": "cpu.cost.test.best", "labels": {"host": "both"},
             "element": None, "better": "lower", "baseline": 1.34, "current": 1.0282,
             "change_pct": -23.27, "fails": False, "verdict": "improvement"},
            {"case": "iperf.forward", "name": "nic.rx.dropped", "labels": {}, "element": None,
             "better": None, "baseline": 0, "current": 0, "change_pct": None}]
    UNITS = {("iperf.forward", "throughput{host=local}"): "virtual Gbit/s (icount proxy)",
             ("iperf.forward", "cpu.cost.test.best{host=both}"): "test instructions/byte, best repeat"}

    def test_summary(self):
        lines = reply.summary(self.CTX_A, self.CTX_B, self.ROWS, self.UNITS, 1, "/some/dir",
                              ["ksft-vm-ab", "a/vmlinuz", "b/vmlinuz", "--", "s", "--time", "2"])
        text = "\n".join(lines)
        self.assertTrue(all(len(x) <= 72 for x in lines), text)
        head = " ".join(lines[:lines.index("")])
        for word in ("6.1.0-57-cloud-amd64 -> 6.12.118+deb12-cloud-amd64", "QEMU 7.2.22",
                     "icount", "Westmere-v1", "1 vCPU", "1 boot a kernel (no layout seeds)",
                     "bit-identical per seed"):
            self.assertIn(word, head)
        self.assertIn("9.104 -> 10.11 (+11.0 %) improvement", text)
        self.assertIn("1.340 -> 1.028 (-23.3 %)", text)
        self.assertNotIn("nic.rx.dropped", text)
        rows = [dict(self.ROWS[0], current=9.0, change_pct=-1.14, fails=True, verdict="regression")]
        worse = "\n".join(reply.series_lines(rows, self.UNITS))
        self.assertIn("9.104 -> 9.000 (-1.1 %) REGRESSION", worse)
        self.assertTrue(lines[-1].startswith("reproduce:") or lines[-2].endswith("\\"))
        self.assertIn("cd /some/dir && ksft-vm-ab a/vmlinuz", text)

    def test_verdict_words(self):
        """A row's verdict in compare's words, never its JSON code: NO
        CHANGE unsaid (the new code too, not only the old "ok"), the others
        in small letters, or in capitals when the row fails."""
        said = {"no_change": ("", False), "ok": ("", False),
                "too_noisy": (" too noisy", False), "noise": (" too noisy", False),
                "not_comparable": (" NOT COMPARABLE", True),
                "case_failed": (" CASE FAILED", True), "disturbed": (" disturbed", False),
                "regression": (" REGRESSION", True), "new": (" new", False)}
        for code, (words, fails) in sorted(said.items()):
            row = dict(self.ROWS[0], current=9.0, change_pct=-1.14, fails=fails, verdict=code)
            line = "\n".join(reply.series_lines([row], self.UNITS))
            self.assertTrue(line.endswith("9.104 -> 9.000 (-1.1 %)" + words), (code, line))
            self.assertNotIn("_", line.split("(-1.1 %)")[1], (code, line))

    def test_verdicts_as_the_library_spells_them(self):
        """reply.VERDICTS is lib/common/verdict_vocab.c's table, old codes too."""
        src = os.path.join(HERE, "..", "..", "lib", "common")
        with open(os.path.join(src, "verdict_vocab.h")) as f:
            codes = dict(re.findall(r'#define (KSFTM_VERDICT_\w+)\s+"(\w+)"', f.read()))
        with open(os.path.join(src, "verdict_vocab.c")) as f:
            table = re.findall(r'\{ (KSFTM_VERDICT_\w+), "([A-Z ]+)", (KSFTM_VERDICT_\w+|NULL) \}',
                               f.read())
        want = {}
        for code, name, old in table:
            want[codes[code]] = name
            if old != "NULL":
                want[codes[old]] = name
        self.assertGreaterEqual(len(table), 12)
        self.assertEqual(reply.VERDICTS, want)


class TestManPages(unittest.TestCase):
    """doc/man/ksft-vm.1.rst and ksft-vm-ab.1.rst quote the --help of
    their command (at 80 columns), as scripts/man-help.py keeps
    ksft-metric's pages."""

    def quoted(self, page, text):
        with open(os.path.join(HERE, "..", "..", "doc", "man", page)) as f:
            doc = f.read()
        block = "".join("    " + x if x.strip() else "\n" for x in text.rstrip("\n").splitlines(True))
        self.assertIn(block, doc, "%s: quote `%s --help` again" % (page, page.split(".")[0]))

    def test_quotes(self):
        os.environ["COLUMNS"] = "80"
        self.quoted("ksft-vm.1.rst", cli.parser().format_help())
        self.quoted("ksft-vm-ab.1.rst", ab.HELP + "\n")


if __name__ == "__main__":
    unittest.main(verbosity=1)
