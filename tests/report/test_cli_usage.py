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
COMMANDS = ("report", "save", "compare", "plot", "html", "ingest", "history", "accept", "pin")

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
