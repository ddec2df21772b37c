#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The profile plugin (tools/vm/plugin/ksft_profile.c) in a real QEMU, on a
guest small enough to count by hand: a multiboot image of a dozen
instructions (begin marker, a 1000-turn loop, end marker, exit through
isa-debug-exit), booted in well under a second. Its case window holds
exactly 2002 instructions (the begin marker, one mov, 1000 dec + jnz),
per block and per instruction; two runs write the same dump byte for
byte; a bad option and a wrong plugin fail with QEMU's and the plugin's
own words (ksft_vm/profile.py's check_plugin).

usage: test_profile_plugin.py PLUGIN KSFT_VM_PACKAGE_DIR
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

plugin, moddir = sys.argv[1:3]
sys.path.insert(0, moddir)
from ksft_vm import profile as kp  # noqa: E402

QEMU = "qemu-system-x86_64"
if not shutil.which(QEMU):
    print("SKIP: %s not installed" % QEMU)
    sys.exit(77)

BASE = 0x100000
BEGIN = bytes.fromhex("0f1f8400") + struct.pack("<I", 0x4b534231)
END = bytes.fromhex("0f1f8400") + struct.pack("<I", 0x4b534530)
CODE = (BEGIN +
        bytes.fromhex("b9e8030000")      # mov $1000, %ecx
        + bytes.fromhex("49")            # 1: dec %ecx
        + bytes.fromhex("75fd")          # jnz 1b
        + END +
        bytes.fromhex("66baf400"         # mov $0xf4, %dx
                      "b000"             # mov $0, %al
                      "ee"               # out %al, %dx: isa-debug-exit
                      "f4ebfd"))         # hlt; jmp hlt


def image(path):
    """A multiboot (v1, a.out kludge) image: loaded at 1 MiB, entered in
    32-bit protected mode at its code."""
    magic, flags = 0x1BADB002, 0x00010000
    hdr = struct.pack("<8I", magic, flags, (-(magic + flags)) & 0xffffffff, BASE, BASE, 0, 0,
                      BASE + 32)
    with open(path, "wb") as f:
        f.write(hdr + CODE)


def boot(img, opts):
    cmd = [QEMU, "-nodefaults", "-display", "none", "-M", "pc", "-accel", "tcg",
           "-icount", "shift=0,sleep=off,align=off", "-kernel", img,
           "-device", "isa-debug-exit,iobase=0xf4,iosize=4", "-plugin", plugin + "," + opts]
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120,
                          check=False)


def check(cond, what, detail=""):
    if not cond:
        print("FAIL: %s\n%s" % (what, detail))
        sys.exit(1)
    print("ok: %s" % what)


def instructions(entries):
    return sum(n * execs for _, n, execs, _ in entries)


with tempfile.TemporaryDirectory(prefix="ksft-profile-test.") as tmp:
    img = os.path.join(tmp, "guest.bin")
    image(img)
    dumps = {}
    for mode, run in (("block", 1), ("block", 2), ("insn", 1)):
        out = os.path.join(tmp, "%s-%d.dump" % (mode, run))
        r = boot(img, "out=%s,mode=%s" % (out, mode))
        # isa-debug-exit: QEMU exits (0 << 1) | 1
        check(r.returncode == 1, "%s run %d: the guest ran to its exit" % (mode, run),
              r.stdout.decode(errors="replace"))
        with open(out) as f:
            dumps[(mode, run)] = f.read()
    check(dumps[("block", 1)] == dumps[("block", 2)], "two runs write the same dump, byte for byte")
    for mode in ("block", "insn"):
        d = kp.read_dump(dumps[(mode, 1)])
        check(d["mode"] == mode and d["order"] == ["whole", "case 1"],
              "%s: a whole-run profile and one case window" % mode, d["order"])
        case = d["windows"]["case 1"]
        check(instructions(case) == 2002,
              "%s: the window counts exactly 2002 instructions" % mode, case)
        check(all(BASE + 32 <= v < BASE + 32 + len(CODE) for v, _, _, _ in case),
              "%s: the window holds only the guest's own code (no BIOS)" % mode, case)
        check(d["markers"] == "nested=0 stray=0 open=0", "%s: markers paired" % mode,
              d["markers"])
        if mode == "block":
            # dec (1 byte) + jnz: the loop's block, its second instruction at +1
            check((BASE + 45, 2, 999, (1,)) in case,
                  "block: the loop's block, 999 runs, its instructions' offsets", case)
    whole_b = instructions(kp.read_dump(dumps[("block", 1)])["windows"]["whole"])
    whole_i = instructions(kp.read_dump(dumps[("insn", 1)])["windows"]["whole"])
    check(whole_b >= whole_i > 2002, "per block counts at least what per instruction does",
          (whole_b, whole_i))
    print("# whole run: %d per block, %d per instruction (%+d)" % (whole_b, whole_i,
                                                                  whole_b - whole_i))

    # Errors: the plugin's own words, and QEMU's through check_plugin().
    r = boot(img, "mode=fast")
    text = r.stdout.decode(errors="replace")
    check(r.returncode != 0 and "ksft_profile: unknown option 'mode=fast'" in text,
          "a bad option: the plugin says which", text)
    kp.check_plugin(QEMU, plugin)
    print("ok: check_plugin() loads the built plugin")
    try:
        kp.check_plugin(QEMU, img)
        check(False, "check_plugin() refuses a file that is no plugin")
    except kp.ProfileError as e:
        check("cannot load the profile plugin" in str(e) and "Could not load plugin" in str(e),
              "a file that is no plugin: QEMU's own words", str(e))
print("PASS")
