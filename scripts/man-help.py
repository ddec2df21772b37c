#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The man pages quote each command's --help: keep them equal.

    scripts/man-help.py KSFT_METRIC DOC_MAN_DIR          rewrite the quoted blocks
    scripts/man-help.py --check KSFT_METRIC DOC_MAN_DIR  exit 1 naming each page
                                                         whose block differs

A page's quoted block is the literal block (four-space indented) that
starts with "usage: ksft-metric"; ksft-metric.1.rst quotes the top-level
--help, ksft-metric-CMD.1.rst that of CMD. Every command the top-level
help lists must have a page.
"""
import os
import re
import subprocess
import sys


def help_text(tool, cmd):
    argv = [tool, "--help"] if cmd is None else [tool, cmd, "--help"]
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    return "".join("    " + l if l.strip() else "\n" for l in out.rstrip("\n").splitlines(True)) + "\n"


def quoted(text):
    """(start, end) of the block that begins with '    usage: ksft-metric'."""
    m = re.search(r"^    usage: ksft-metric.*?(?=\n\S|\Z)", text, re.S | re.M)
    return (m.start(), m.end()) if m else None


def main():
    args = sys.argv[1:]
    check = bool(args) and args[0] == "--check"
    if check:
        args = args[1:]
    tool, mandir = args
    top = subprocess.run([tool, "--help"], capture_output=True, text=True, check=True).stdout
    cmds = re.findall(r"^  ([a-z][a-z-]*)  ", top.split("Commands:", 1)[1], re.M)
    bad = []
    for cmd in [None] + cmds:
        page = os.path.join(mandir, "ksft-metric.1.rst" if cmd is None
                            else f"ksft-metric-{cmd}.1.rst")
        if not os.path.exists(page):
            bad.append(f"{page}: missing (the top-level help lists '{cmd}')")
            continue
        with open(page, encoding="utf-8") as f:
            text = f.read()
        span = quoted(text)
        if span is None:
            bad.append(f"{page}: no quoted 'usage: ksft-metric' block")
            continue
        want = help_text(tool, cmd).rstrip("\n")
        # The block, then one blank line before the text that follows.
        if text[span[0]:span[1]].rstrip("\n") == want and \
                text[span[0]:].startswith(want + "\n\n"):
            continue
        if check:
            bad.append(f"{page}: its quoted --help differs from the tool's "
                       "(run scripts/man-help.py to update it)")
        else:
            with open(page, "w", encoding="utf-8") as f:
                f.write(text[:span[0]] + want + "\n\n" + text[span[1]:].lstrip("\n"))
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
