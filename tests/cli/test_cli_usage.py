#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What a new user types wrong or asks for (issue 23): help CMD, --help and
--version after every command, a mistyped option or command answered with
a did-you-mean and a one-line hint (not the whole usage), --tolerance in
percent with a '%', the compare table's width and legend, and errors that
say what a wrong file is.

usage: test_cli_usage.py KSFT_METRIC MAKE_LOG
"""

import os
import shutil
import subprocess
import sys
import tempfile

import cli_util
from cli_util import expect_rc

KSFT, MAKE_LOG = (os.path.abspath(a) for a in sys.argv[1:3])
cli_util.KSFT = KSFT
TMP = tempfile.mkdtemp(prefix="ksft-metric-usage-")
COMMANDS = ("report", "save", "compare", "plot", "html", "ingest", "history", "accept", "pin", "prune",
            "site", "ab")

LOG = ("KTAP version 1\n1..1\n"
       '# ktap-metric-policy-json: {"name":"throughput","regression":{"better":'
       '"higher","compare":"p50","relative_tolerance":0.05},"summarize":"distribution"}\n'
       '# ktap-metric-json: {"name":"throughput","shape":"scalar","time":1,"value":100}\n'
       '# ktap-metric-json: {"name":"throughput","shape":"scalar","time":2,"value":101}\n'
       "ok 1 tcp\n")


def write(name, text):
    path = os.path.join(TMP, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def test_help_and_version_everywhere():
    for cmd in COMMANDS:
        out, _ = expect_rc(0, "help", cmd)
        assert out.startswith(f"usage: ksft-metric {cmd}"), (cmd, out)
        out2, _ = expect_rc(0, cmd, "--help")
        assert out2 == out, cmd
        out, _ = expect_rc(0, cmd, "--version")
        assert out.startswith("ksft-metric ") and len(out.splitlines()) == 1, (cmd, out)
    out, _ = expect_rc(0, "--version")
    assert out.startswith("ksft-metric "), out
    out, _ = expect_rc(0, "help")
    assert "Commands:" in out, out


def test_mistyped_option():
    log = write("a.log", LOG)
    _, err = expect_rc(2, "report", "--formt", "json", log)
    lines = err.splitlines()
    assert lines[0] == "ksft-metric report: unknown option '--formt'; did you mean '--format'?", err
    assert lines[1] == "Run 'ksft-metric report --help' for its options.", err
    assert len(lines) == 2, err         # not the whole usage
    _, err = expect_rc(2, "compare", "--tolerence=5", log)
    assert "ksft-metric compare: unknown option '--tolerence'; did you mean '--tolerance'?" in err
    _, err = expect_rc(2, "history", "--zzzzzzzz")
    assert "unknown option '--zzzzzzzz'\n" in err, err     # nothing close: no guess
    _, err = expect_rc(2, "report", "-Z", log)
    assert "ksft-metric report: unknown option '-Z'" in err, err
    _, err = expect_rc(2, "compare", "--db")
    assert "ksft-metric compare: option '--db' needs a value" in err, err


def test_mistyped_command():
    _, err = expect_rc(2, "reprot", "x.log")
    assert "unknown command 'reprot'; did you mean 'report'?" in err, err
    assert "usage:" not in err, err
    _, err = expect_rc(2, "help", "comapre")
    assert "did you mean 'compare'?" in err, err
    _, err = expect_rc(2, "frobnicate")
    assert "did you mean" not in err, err


def untracked_logs():
    """A series without a regression policy, 100 then 93: only --tolerance gates it."""
    text = ("KTAP version 1\n1..1\n"
            '# ktap-metric-json: {"name":"rate","shape":"scalar","time":1,"value":%s}\n'
            "ok 1 case\n")
    return write("u0.log", text % 100), write("u1.log", text % 93)


def test_tolerance_percent():
    """--tolerance 5% and 5 are both 5 percent (a 7 % drop regresses, 10 % does not)."""
    a, b = untracked_logs()
    base = os.path.join(TMP, "u.json")
    expect_rc(0, "save", "-o", base, a)
    for tol in ("5%", "5"):
        out, _ = expect_rc(1, "compare", "--baseline", base, "--tolerance", tol, b)
        assert "REGRESSION" in out, (tol, out)
    expect_rc(0, "compare", "--baseline", base, "--tolerance", "10%", b)
    _, err = expect_rc(1, "compare", "--baseline", base, "--tolerance", "0.05", b)
    assert "0.05 is 0.05 percent" in err and "write 5% for that" in err, err
    _, err = expect_rc(2, "compare", "--baseline", base, "--tolerance", "5%%", b)
    assert "--tolerance" in err, err


def test_compare_tracked_by_default_and_legend():
    """Untracked series are counted, shown with --all; a legend; 120 columns
    on a realistic producer log (make-log: the main job's series)."""
    log = os.path.join(TMP, "make.log")
    with open(log, "wb") as f:
        subprocess.run([MAKE_LOG], stdout=f, check=True, timeout=120)
    base = os.path.join(TMP, "make.json")
    expect_rc(0, "save", "-o", base, log)
    out, _ = expect_rc(0, "compare", "--baseline", base, log)
    assert "UNTRACKED" not in out and "untracked series (no regression policy) not shown" in out
    flat = " ".join(out.split())	# the legend is wrapped to the width
    assert "^ higher, v lower" in flat and "N: samples baseline/current" in flat, out
    assert "name[n]: element n" in flat and "P: the p-value" in flat, out
    allout, _ = expect_rc(0, "compare", "--all", "--baseline", base, log)
    assert "UNTRACKED" in allout and "not shown" not in allout, allout
    for text in (out, allout):
        width = max(len(line) for line in text.splitlines())
        assert width <= 120, (width, text)
    # one verdict vocabulary: help, table and HTML say NO CHANGE / TOO NOISY
    help_text, _ = expect_rc(0, "compare", "--help")
    for word in ("NO CHANGE", "TOO NOISY", "NOT COMPARABLE", "UNTRACKED"):
        assert word in help_text, word
    assert "NO CHANGE" in out, out
    page = os.path.join(TMP, "make.html")
    expect_rc(0, "html", "-o", page, "--baseline", base, log)
    with open(page, encoding="utf-8") as f:
        html = f.read()
    assert "no change</span>" in html, html[:2000]


def test_wrong_file_says_what_it_is():
    log = write("w.log", LOG)
    base = os.path.join(TMP, "w.json")
    expect_rc(0, "save", "-o", base, log)
    _, err = expect_rc(2, "compare", "--baseline", log, log)
    assert f"{log}: this is a KTAP log with metrics; --baseline wants a file written by" \
           " 'ksft-metric save'" in err, err
    _, err = expect_rc(2, "report", base)
    assert f"no metrics found in {base}: it is a baseline written by ksft-metric save" in err, err
    _, err = expect_rc(2, "report", "/etc/passwd")
    assert "no metrics found in /etc/passwd: it is a text file" in err, err
    txt = write("notes.txt", "just some notes\nabout nothing\n")
    _, err = expect_rc(2, "report", txt)
    assert f"no metrics found in {txt}: it is a text file" in err, err
    bare = write("bare.log", "KTAP version 1\n1..1\nok 1 case\n")
    _, err = expect_rc(2, "report", bare)
    assert f"no metrics found in {bare}: it is a KTAP log without ktap-metric lines" in err, err
    _, err = expect_rc(2, "compare", "--baseline", txt, log)
    assert f"{txt}: this is a text file" in err, err


def test_save_refuses_to_overwrite_a_log():
    log = write("keep.log", LOG)
    other = write("other.log", LOG)
    _, err = expect_rc(2, "save", "-o", other, log)
    assert f"refusing to overwrite {other}: it is a KTAP log" in err and "--force" in err, err
    with open(other, encoding="utf-8") as f:
        assert f.read() == LOG      # untouched
    base = os.path.join(TMP, "keep.json")
    expect_rc(0, "save", "-o", base, log)
    expect_rc(0, "save", "-o", base, log)       # a baseline is replaced
    expect_rc(0, "save", "-o", other, "--force", log)
    with open(other, encoding="utf-8") as f:
        assert '"ksft-metric-baseline"' in f.read()


if __name__ == "__main__":
    try:
        sys.exit(cli_util.run_tests(globals()))
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
