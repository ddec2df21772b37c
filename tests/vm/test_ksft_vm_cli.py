#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ksft-vm as a user meets it, with no QEMU: a stand-in
qemu-system-x86_64 (standin/) plays the guest, so each of issue 41's
findings is checked through the real command line in a fraction of a
second (the --kvm one waits its 20 s). Each test fails on ksft-vm before
issue 41.

usage: test_ksft_vm_cli.py KSFT_VM
"""
import os
import signal
import struct
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from standin_util import env, fake_kernel, run  # noqa: E402

VM = None


def state(pid):
    """A process' state letter, None when it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def elf_with_modinfo(items):
    """A little-endian ELF64 whose .modinfo section holds @items (what
    ksft-vm reads of a module: its dependencies)."""
    modinfo = b"".join(i.encode() + b"\0" for i in items if i)
    shstr = b"\0.shstrtab\0.modinfo\0"
    off_str, off_mi = 0x40, 0x40 + len(shstr)
    shoff = (off_mi + len(modinfo) + 7) & ~7
    hdr = bytearray(0x40)
    hdr[:5] = b"\x7fELF\x02"
    struct.pack_into("<Q", hdr, 0x28, shoff)
    struct.pack_into("<HHH", hdr, 0x3A, 0x40, 3, 1)

    def sec(name, off, size):
        s = bytearray(0x40)
        struct.pack_into("<I", s, 0, name)
        struct.pack_into("<QQ", s, 0x18, off, size)
        return bytes(s)
    body = bytes(hdr) + shstr + modinfo
    body += b"\0" * (shoff - len(body))
    return body + sec(0, 0, 0) + sec(1, off_str, len(shstr)) + sec(11, off_mi, len(modinfo))


def wait_for(cond):
    """Poll @cond until it holds (the test's own timeout bounds it)."""
    while not cond():
        time.sleep(0.05)


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="ksft-vm-cli.")
        self.d = self.tmp.name
        self.tmpdir = os.path.join(self.d, "tmp")
        os.mkdir(self.tmpdir)
        self.kernel = fake_kernel(os.path.join(self.d, "k61"), "6.1.0-test")

    def tearDown(self):
        self.tmp.cleanup()

    def vm(self, args, spec=None, **kw):
        kw.setdefault("TMPDIR", self.tmpdir)
        return run(VM, ["--kernel", self.kernel] + args, spec or {"default": {}}, **kw)


class TestPacking(Base):
    def dump(self, args, cwd=None, **kw):
        listing = os.path.join(self.d, "initrd.txt")
        rc, out, err = self.vm(args, {"default": {"dump": listing}}, cwd=cwd, **kw)
        self.assertEqual(rc, 0, err)
        with open(listing) as f:
            return set(f.read().split("\n")), err

    def test_add_dir_of_command_packs_all_of_it(self):
        """--add DIR -- DIR/main.sh: DIR's other files are there (item 1)."""
        t = os.path.join(self.d, "t")
        os.makedirs(os.path.join(t, "sub"))
        for name, text in (("main.sh", "#!/bin/sh\ncat data.txt\n"), ("data.txt", "42\n"),
                           ("sub/more.txt", "43\n")):
            with open(os.path.join(t, name), "w") as f:
                f.write(text)
        os.chmod(os.path.join(t, "main.sh"), 0o755)
        names, _ = self.dump(["--add", t, "--", os.path.join(t, "main.sh")])
        for name in ("main.sh", "data.txt", "sub/more.txt"):
            self.assertIn((t + "/" + name).lstrip("/"), names)
        names, _ = self.dump(["--add", ".", "--", "./main.sh"], cwd=t)
        self.assertIn((t + "/data.txt").lstrip("/"), names)

    def test_add_searches_path(self):
        """--add NAME finds a program in PATH, as COMMAND does (item 11)."""
        bindir = os.path.join(self.d, "bin")
        os.mkdir(bindir)
        tool = os.path.join(bindir, "ksft-vm-test-tool")
        with open(tool, "w") as f:
            f.write("#!/bin/sh\necho tool\n")
        os.chmod(tool, 0o755)
        names, _ = self.dump(["--add", "ksft-vm-test-tool", "--", "true"], cwd=self.d,
                             extra_path=bindir)
        self.assertIn(tool.lstrip("/"), names)

    def test_dangling_link_names_the_link(self):
        """A dangling symlink under --add DIR: a warning naming the link,
        the run goes on (item 6)."""
        t = os.path.join(self.d, "t")
        os.mkdir(t)
        os.symlink("gone-target", os.path.join(t, "stale-link"))
        names, err = self.dump(["--add", t, "--", "true"])
        self.assertIn(os.path.join(t, "stale-link"), err)
        self.assertIn((t + "/stale-link").lstrip("/"), names)

    def test_out_of_tree_module(self):
        """--modules DIR with an out-of-tree module where `make M=...
        modules_install` puts it (updates/): packed with what it depends
        on, replacing an in-tree module of its name (issue 42: netdevsim
        built for Debian's cloud kernel, which has none)."""
        tree = os.path.join(self.d, "lib", "modules", "6.1.0-test")
        mods = {"kernel/drivers/net/dummy.ko": "", "kernel/lib/libdep42.ko": "",
                "kernel/drivers/net/netdevsim/netdevsim.ko": "",
                "kernel/drivers/gpu/unused42.ko": "",
                "updates/netdevsim.ko": "depends=libdep42", "extra/other42.ko": ""}
        for rel, info in mods.items():
            os.makedirs(os.path.dirname(os.path.join(tree, rel)), exist_ok=True)
            with open(os.path.join(tree, rel), "wb") as f:
                f.write(elf_with_modinfo(["name=" + os.path.basename(rel)[:-3], info]))
        names, err = self.dump(["--modules", tree, "--", "true"])
        packed = {n.split("6.1.0-test/", 1)[1] for n in names if "6.1.0-test/" in n}
        for rel in ("updates/netdevsim.ko", "kernel/lib/libdep42.ko", "extra/other42.ko",
                    "kernel/drivers/net/dummy.ko"):
            self.assertIn(rel, packed)
        self.assertNotIn("kernel/drivers/net/netdevsim/netdevsim.ko", packed)
        self.assertNotIn("kernel/drivers/gpu/unused42.ko", packed)

    def test_no_modules_warns(self):
        """0 kernel modules packed: said, with --modules (item 9)."""
        rc, out, err = self.vm(["--", "true"])
        self.assertEqual(rc, 0, err)
        self.assertIn("no kernel modules packed", err)
        self.assertIn("--modules", err)


class TestOptions(Base):
    def test_word_before_dashdash_refused(self):
        """ksft-vm --kernel A B -- cmd: B is refused, not run (item 11)."""
        rc, out, err = self.vm(["B", "--", "true"])
        self.assertEqual(rc, 255, err)
        self.assertIn("B: a word before --", err)

    def test_timeout_nan(self):
        """--timeout nan: a usage error, not a traceback (item 6)."""
        for bad in ("nan", "inf", "-1", "x"):
            rc, out, err = self.vm(["--timeout", bad, "--", "true"])
            self.assertEqual(rc, 255, err)
            self.assertIn("--timeout", err)
            self.assertNotIn("Traceback", err)

    def test_help_names_environment(self):
        """--help says which environment variables pass in (item 11)."""
        r = subprocess.run([sys.executable, VM, "--help"], stdout=subprocess.PIPE, check=False)
        text = r.stdout.decode()
        self.assertEqual(r.returncode, 0)
        for word in ("KSFT_*", "KSFTMETRIC_*", "TMPDIR", "255"):
            self.assertIn(word, text)

    def test_ab_subcommand(self):
        """ksft-vm ab is ksft-vm-ab."""
        r = subprocess.run([sys.executable, VM, "ab", "--help"], stdout=subprocess.PIPE, check=False)
        self.assertEqual(r.returncode, 0)
        self.assertIn("ksft-vm-ab [-o DIR]", r.stdout.decode())

    def test_comma_in_console_and_tmpdir(self):
        """Commas in --console and $TMPDIR reach QEMU as one path (item 6)."""
        tmpdir = os.path.join(self.d, "a,b")
        os.mkdir(tmpdir)
        console = os.path.join(self.d, "con,sole.log")
        rc, out, err = self.vm(["--console", console, "--", "true"],
                               {"default": {"out": "hi\n", "console": "booted\n"}},
                               TMPDIR=tmpdir)
        self.assertEqual((rc, out), (0, "hi\n"), err)
        with open(console) as f:
            self.assertEqual(f.read(), "booted\n")


class TestStatus(Base):
    def test_command_exit_2_is_its_own(self):
        """COMMAND's 2 is COMMAND's: no ksft-vm failure said (exit codes)."""
        rc, out, err = self.vm(["--", "true"], {"default": {"rc": 2, "out": "o\n", "err": "e\n"}})
        self.assertEqual((rc, out), (2, "o\n"))
        self.assertNotIn("ksft-vm:", err.replace("ksft-vm: warning", ""))

    def test_no_boot_is_255(self):
        """A guest that leaves no result: ksft-vm's own 255, said why."""
        rc, out, err = self.vm(["--", "true"], {"default": {"no_result": True,
                                                            "console": "Kernel panic\n"}})
        self.assertEqual(rc, 255)
        self.assertIn("without COMMAND's result", err)
        self.assertIn("Kernel panic", err)

    def test_result_without_end_mark_fails(self):
        """Bytes where the end mark should be: cut or mixed, 255 (item 2)."""
        rc, out, err = self.vm(["--", "true"], {"default": {"out": "o\n", "err": "e\n",
                                                            "end": "late\nlate\n"}})
        self.assertEqual(rc, 255, err)
        self.assertIn("end mark", err)

    def test_full_output_fs_fails(self):
        """The guest says its output file system filled: 255 (item 3)."""
        rc, out, err = self.vm(["--", "true"], {"default": {"out": "o\n", "full": 1}})
        self.assertEqual(rc, 255, err)
        self.assertIn("filled", err)


class TestLeftBehind(Base):
    def start_hung(self, extra=()):
        pidfile = os.path.join(self.d, "qemu.pid")
        p = subprocess.Popen([sys.executable, VM, "--kernel", self.kernel] + list(extra) +
                             ["--", "true"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             env=env({"default": {"hang": pidfile}}, TMPDIR=self.tmpdir))
        wait_for(lambda: os.path.exists(pidfile) and os.path.getsize(pidfile))
        with open(pidfile) as f:
            return p, int(f.read())

    def left(self):
        return sorted(n for n in os.listdir(self.tmpdir) if n.startswith("ksft-vm."))

    def test_term_and_int_leave_nothing(self):
        """SIGTERM, SIGINT: QEMU ended, temp dir gone, ksft-vm dies of the
        signal (item 5)."""
        for sig in (signal.SIGTERM, signal.SIGINT):
            p, qemu = self.start_hung()
            p.send_signal(sig)
            p.wait()
            self.assertEqual(p.returncode, -sig, p.stderr.read())
            p.stderr.close()
            wait_for(lambda: state(qemu) in (None, "Z"))
            self.assertEqual(self.left(), [])

    def test_kill_leaves_no_qemu_and_next_run_cleans(self):
        """SIGKILL: QEMU dies with ksft-vm; the next run removes the temp
        dir (item 5)."""
        p, qemu = self.start_hung()
        p.kill()
        p.wait()
        p.stderr.close()
        wait_for(lambda: state(qemu) in (None, "Z"))
        self.assertEqual(len(self.left()), 1)
        rc, out, err = self.vm(["--", "true"])
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.left(), [])

    def test_timeout_covers_packing(self):
        """--timeout counts from the start: a packing step that hangs (ldd
        here) ends at --timeout with 255 (item 6)."""
        bindir = os.path.join(self.d, "bin")
        os.mkdir(bindir)
        with open(os.path.join(bindir, "ldd"), "w") as f:
            f.write("#!/bin/sh\nexec sleep 30\n")
        os.chmod(os.path.join(bindir, "ldd"), 0o755)
        rc, out, err = self.vm(["--timeout", "2", "--", "true"], extra_path=bindir)
        self.assertEqual(rc, 255, err)
        self.assertIn("while packing", err)
        self.assertEqual(self.left(), [])

    def test_kvm_silent_guest_fails_fast(self):
        """--kvm with a guest that prints nothing: said after 20 s, not at
        --timeout (item 10)."""
        pidfile = os.path.join(self.d, "qemu.pid")
        rc, out, err = self.vm(["--kvm", "--timeout", "600", "--", "true"],
                               {"default": {"hang": pidfile, "console": ""}})
        self.assertEqual(rc, 255, err)
        self.assertIn("printed nothing", err)
        with open(pidfile) as f:
            qemu = int(f.read())
        wait_for(lambda: state(qemu) in (None, "Z"))


if __name__ == "__main__":
    VM = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
