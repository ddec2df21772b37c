#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ksft-vm --profile's files without a guest: a plugin dump and a guest
symbol table as /init sends them (kernel, a module, a BPF program, user
space, freed code) become cachegrind files that Debian's cg_annotate and
cg_diff read, and `ksft-metric profile-diff` names the functions that
changed with their shares (by module too, per unit of work); an
unchanged pair is all zero; bad input is refused naming file and line.
Each diff is run twice and must print the same. The test's own
'# profile-work:' lines become each window's work; the A/B summary's lines
(--format reply) against a golden file; html --profile-a/--profile-b puts
the same table on the page beside the verdicts (issue 43).

usage: test_profile_format.py KSFT_VM_PACKAGE_DIR KSFT_METRIC REPLY_GOLDEN LOG
"""
import os
import shutil
import subprocess
import sys
import tempfile

moddir, cli, reply_golden, page_log = sys.argv[1:5]
sys.path.insert(0, moddir)
from ksft_vm import profile as kp  # noqa: E402

SYMS = b"""KSFT-VM-RESULT 0 0 0
KSFT-VM-RESULT-END
KSFT-VM-KALLSYMS
ffffffff81000000 T _stext
ffffffff81000000 T startup_64
ffffffff81001000 T __pfx_copy_user_generic_string
ffffffff81001000 T copy_user_generic_string
ffffffff81002000 t nf_hook_slow
ffffffff81003000 W weak_fn
ffffffffc0001000 t nft_do_chain\t[nf_tables]
ffffffffc0002000 t nft_meta_get_eval\t[nf_tables]
ffffffffc0100000 t bpf_prog_0123456789abcdef_prog\t[bpf]
KSFT-VM-KALLSYMS-END
"""


def dump(case):
    """A plugin dump: a whole run and one case window of @case's blocks."""
    lines = ["ksft-profile 1", "mode block", "markers nested=0 stray=0 open=0", "window whole"]
    lines += ["%016x %d %d" % e for e in sorted(case + [(0xffffffff81000010, 5, 1000)])]
    lines.append("window case 1")
    lines += ["%016x %d %d" % e for e in sorted(case)]
    return "\n".join(lines + ["end"]) + "\n"


A = [(0xffffffff81001000, 10, 1000),      # copy_user_generic_string: 10000
     (0xffffffff81001040, 4, 500),        # same function: 2000
     (0x0000555555554000, 3, 100),        # user space: 300
     (0xffffffff81002000, 2, 10)]         # nf_hook_slow: 20
B = A[:-1] + [(0xffffffff81002000, 2, 110),    # nf_hook_slow +200
              (0xffffffffc0001000, 6, 100),    # nft_do_chain +600
              (0xffffffffc0002010, 3, 100),    # nft_meta_get_eval +300
              (0xffffffffc0100000, 5, 10),     # a BPF program +50
              (0xffffffffc0900000, 2, 5)]      # freed code +10


def check(cond, what, detail=""):
    if not cond:
        print("FAIL: %s\n%s" % (what, detail))
        sys.exit(1)
    print("ok: %s" % what)


def run(args):
    outs = [subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
            for _ in range(2)]
    check(outs[0].returncode == outs[1].returncode and outs[0].stdout == outs[1].stdout,
          "%s: the same output twice" % " ".join(args[1:3]))
    return outs[0].returncode, outs[0].stdout.decode(), outs[0].stderr.decode()


with tempfile.TemporaryDirectory(prefix="ksft-profile-format.") as tmp:
    pa, pb, pa2 = (os.path.join(tmp, n) for n in ("a.prof", "b.prof", "a2.prof"))
    written = kp.write_profiles(pa, dump(A), SYMS, "iperf-selftest --loopback")
    check(written == [pa, pa + ".whole", pa + ".case1"], "the case sum, the whole run, each case",
          written)
    kp.write_profiles(pb, dump(B), SYMS, "sh -ec nft add table inet dose\nexec iperf-selftest")
    kp.write_profiles(pa2, dump(A), SYMS, "iperf-selftest --loopback")
    with open(pa) as f, open(pa2) as g:
        text = f.read()
        check(text == g.read(), "one dump and table: the same file, byte for byte")
    check("fl=[kernel]\nfn=copy_user_generic_string\n0 12000\n" in text,
          "blocks fold into their function; an alias is named without __pfx_", text)
    check("fl=[user]\nfn=user space (all processes)\n0 300\n" in text, "user space is one entry", text)
    check(text.endswith("summary: 12320\n"), "the summary is the sum", text)
    syms = kp.Symbols(kp.split_symbols(SYMS))
    # A block of 4 instructions from 8 bytes before nf_hook_slow: 2 in
    # copy_user_generic_string, 2 in nf_hook_slow; without offsets (a
    # version 1 dump) all 4 to where it began.
    got = kp.fold([(0xffffffff81001ff8, 4, 10, (4, 8, 12))], syms)
    check(got == {("[kernel]", "copy_user_generic_string"): 20, ("[kernel]", "nf_hook_slow"): 20},
          "a block running past its function: each instruction to its own", got)
    got = kp.fold([(0xffffffff81001ff8, 4, 10, None)], syms)
    check(got == {("[kernel]", "copy_user_generic_string"): 40},
          "without offsets: the block to its first instruction's function", got)
    with open(pb) as f:
        tb = f.read()
    check("cmd: sh -ec nft add table inet dose exec iperf-selftest\nevents: Ir\n" in tb,
          "a command of several lines is one cmd: line", tb[:400])
    for want in ("fl=[nf_tables]\nfn=nft_do_chain\n0 600\n", "fn=nft_meta_get_eval\n0 300\n",
                 "fl=[bpf]\nfn=bpf_prog_0123456789abcdef_prog\n0 50\n",
                 "fl=[unknown]\nfn=no symbol (freed or unnamed code)\n0 10\n"):
        check(want in tb, "B: " + want.split("\n")[1], tb)

    if shutil.which("cg_annotate"):
        r = subprocess.run(["cg_annotate", pb], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, check=False)
        out = r.stdout.decode()
        check(r.returncode == 0 and "[nf_tables]:nft_do_chain" in out and "13,480" in out,
              "cg_annotate reads the file", out)
        r = subprocess.run(["cg_diff", pa, pb], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, check=False)
        out = r.stdout.decode()
        check(r.returncode == 0 and "fn=nft_do_chain\n0 600" in out and "summary: 1160" in out,
              "cg_diff reads the pair", out)
    else:
        print("# cg_annotate not installed (valgrind): not checked")

    rc, out, err = run([cli, "profile-diff", pa, pb])
    check(rc == 0, "profile-diff: exit 0", err)
    lines = out.splitlines()
    check("total: A 12320, B 13480, change +1160 (+9.42 %)" in out, "the total change", out)
    top = [l for l in lines[lines.index(next(l for l in lines if l.startswith("Top "))) + 2:]
           if l.strip() and not l.startswith("The top")]
    check(top[0].split()[0] == "+600" and top[0].endswith("nft_do_chain [nf_tables]") and
          "51.7 %" in top[0], "the top function, its change and share", out)
    check(top[1].endswith("nft_meta_get_eval [nf_tables]") and
          top[2].endswith("nf_hook_slow [kernel]"), "then the next by change", out)
    mods = lines[lines.index(next(l for l in lines if l.startswith("By module"))) + 2:]
    check(mods[0].endswith("[nf_tables]") and "77.6 %" in mods[0], "grouped by module", out)
    check("The top 5 functions explain 100.0 % of the total change." in out,
          "what the top functions explain", out)

    rc, out, err = run([cli, "profile-diff", "--format", "reply", pa, pb])
    with open(reply_golden) as f:
        golden = f.read()
    check(rc == 0 and out == golden, "--format reply: the A/B summary's lines (golden %s)"
          % reply_golden, "got:\n%s\nwant:\n%s" % (out, golden))
    check(all(len(l) <= 72 for l in out.splitlines()), "--format reply: 72 columns", out)
    rc, out, err = run([cli, "profile-diff", "--format", "reply", pa, pa2])
    check(rc == 0 and out == "Profile, B against A: no change (all 3 functions count the same)\n",
          "--format reply: an unchanged pair in one line", out)
    rc, out, err = run([cli, "profile-diff", "--format", "json", pa, pb])
    check(rc == 2 and "--format json: text or reply" in err, "--format: an unknown one named", err)

    page = os.path.join(tmp, "page.html")
    rc, out, err = run([cli, "html", "-o", page, "--profile-a", pa, "--profile-b", pb, page_log])
    with open(page) as f:
        html = f.read()
    check(rc == 0 and '<section id="profile">' in html, "html: the profile diff's section", err)
    check(html.index('id="profile"') < html.index('<section class="case"')
          if '<section class="case"' in html else True,
          "html: the profile before the cases")
    check("Total: A 12320, B 13480, change <span class=\"regression\">+1160 (+9.42 %)</span>; "
          "the top 5 of 5 changed functions explain 100.0 % of it." in html,
          "html: the total, and what the top functions explain", html[html.index('id="profile"'):][:900])
    row = html[html.index("<code>nft_do_chain</code>"):].split("</tr>")[0]
    check("[nf_tables]" in row and ">+600<" in row and ">51.7 %<" in row and ">0<" in row,
          "html: a function's row: module, change, share, A, B", row)
    check(html.index("nft_do_chain") < html.index("nft_meta_get_eval") <
          html.index("nf_hook_slow</code>"), "html: functions by change")
    rc, out, err = run([cli, "html", "-o", page, "--profile-a", pa, page_log])
    check(rc == 2 and "--profile-a and --profile-b go together" in err,
          "html: one profile alone is refused", err)
    with open(os.path.join(tmp, "w.prof"), "w") as f:
        f.write("desc: work: 10 byte\ncmd: x\nevents: Ir\nfl=[kernel]\nfn=f\n0 5\nsummary: 5\n")
    rc, out, err = run([cli, "html", "-o", page, "--profile-a", pa, "--profile-b",
                        os.path.join(tmp, "w.prof"), page_log])
    check(rc == 2 and "only " in err and "says its work" in err,
          "html: a work on one side only is refused as profile-diff does", err)

    # The test's '# profile-work: N UNIT' lines: one a case window.
    pw = os.path.join(tmp, "w1.prof")
    kp.write_profiles(pw, dump(A), SYMS, "x", out=b"TAP version 13\n# profile-work: 1000 byte\nok 1 a\n")
    for ext in ("", ".case1"):
        with open(pw + ext) as f:
            check("desc: work: 1000 byte\n" in f.read(), "the case's work in %s" % (pw + ext))
    with open(pw + ".whole") as f:
        check("work:" not in f.read(), "the whole run has no work")
    two = b"# profile-work: 1000 byte\n# profile-work: 5 byte\n"
    try:
        kp.write_profiles(pw, dump(A), SYMS, "x", out=two)
        check(False, "two work lines for one window are refused")
    except kp.ProfileError as e:
        check("2 '# profile-work:' lines for 1 case windows" in str(e), "work lines against windows",
              str(e))
    said = []
    kp.write_profiles(pw, dump(A), SYMS, "x", out=two, warn=said.append)
    with open(pw) as f:
        check(len(said) == 1 and "work:" not in f.read(), "with warn: said, and no work written",
              said)

    rc, out, err = run([cli, "profile-diff", "--work-a", "1000", "--work-b", "2000",
                        "--unit", "byte", pa, pb])
    check(rc == 0 and "per byte" in out and "total: A 12.32, B 6.74, change -5.58" in out,
          "per unit of work: B did twice the work", out)

    pc = os.path.join(tmp, "c.prof")
    kp.write_profiles(pc, dump([(0xffffffff81001000, 10, 940)] + A[1:] +
                               [(0xffffffffc0001000, 6, 100)]), SYMS, "x")
    rc, out, err = run([cli, "profile-diff", pa, pc])
    check(rc == 0 and "change 0\nnote: the total moved 0.0 % of the functions' changes" in out,
          "gains and losses that cancel: a note, not shares of nothing", out)

    rc, out, err = run([cli, "profile-diff", pa, pa2])
    check(rc == 0 and "no change: every function counts the same" in out and "+" not in out,
          "an unchanged pair: every entry zero", out)

    bad = os.path.join(tmp, "bad.prof")
    with open(bad, "w") as f:
        f.write("cmd: x\nevents: Ir\nfl=[kernel]\nfn=f\n0 12x\nsummary: 1\n")
    rc, out, err = run([cli, "profile-diff", pa, bad])
    check(rc == 2 and bad + ":5: a count is not a whole number" in err,
          "a bad count: file, line and reason", err)
    rc, out, err = run([cli, "profile-diff", pa, kp.__file__])
    check(rc == 2 and "not a line of cachegrind's format" in err, "not a profile at all", err)
    try:
        kp.read_dump("ksft-profile 1\nwindow whole\nffffffff81000000 1\n")
        check(False, "a cut dump is refused")
    except kp.ProfileError as e:
        check("line 3" in str(e), "a bad dump line: its line number", str(e))
print("PASS")
