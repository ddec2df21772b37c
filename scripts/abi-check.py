#!/usr/bin/env python3
"""Compare a built library with its recorded ABI (abidw XML in abi/).

Passes: no change, added functions (in a new version node or not), and a
size-rule struct (abi/size-rule-structs.txt) grown at its tail. Fails on
anything else abidiff reports about an existing function, variable or type:
abidiff sets its "incompatible" exit bit (8) only for removed symbols, while
a changed struct layout is the same bit (4) as an added function, so the
report itself is read, and every line of it must be one we know is
harmless. After a deliberate change: scripts/abi-update.sh, and commit the
new record in the same commit.

Opaque handles (abi/opaque.ini, a libabigail suppression file) may change
in any way: callers never see inside them.

Usage: abi-check.py LIBRARY.so RECORDED.abi [SIZE-RULE-STRUCTS [OPAQUE.ini]]
"""
import os
import re
import shutil
import subprocess
import sys

# Lines that only say where a change is; they are harmless by themselves.
STRUCTURE = [re.compile(p) for p in (
    r"Functions changes summary: 0 Removed, \d+ Changed( \(\d+ filtered out\))?, 0 Added( \(\d+ filtered out\))? functions?",
    r"Variables changes summary: 0 Removed, \d+ Changed( \(\d+ filtered out\))?, 0 Added( \(\d+ filtered out\))? variables?",
    r"\d+ functions? with some indirect sub-type changes?:",
    r"\d+ Changed variables?:",
    r"\[C\] '.*' has some indirect sub-type changes:",
    r"parameter \d+ of type '.*' has sub-type changes:",
    r"return type changed:",
    r"in (pointed to|referenced|unqualified underlying) type '.*':",
)]
IN_STRUCT = re.compile(r"in (?:pointed to|unqualified underlying|referenced) type 'struct (\w+)':")
SIZE = re.compile(r"type size changed from (\d+) to (\d+) \(in bits\)")
INSERTIONS = re.compile(r"\d+ data member insertions?:")
INSERTED = re.compile(r"'.*', at offset (\d+) \(in bits\)")


def judge(report, size_rule):
    """Return a list of reasons the report is not compatible (empty: it is)."""
    bad, struct, old_size = [], None, None
    for raw in report.splitlines():
        line = raw.strip()
        if not line:
            continue
        m = IN_STRUCT.fullmatch(line)
        if m:
            struct, old_size = m.group(1), None
            continue
        if any(p.fullmatch(line) for p in STRUCTURE):
            continue
        m = SIZE.fullmatch(line)
        if m and struct in size_rule and int(m.group(2)) > int(m.group(1)):
            old_size = int(m.group(1))
            continue
        if INSERTIONS.fullmatch(line) and struct in size_rule and old_size:
            continue
        m = INSERTED.fullmatch(line)
        if m and struct in size_rule and old_size and int(m.group(1)) >= old_size:
            continue
        bad.append(f"{'struct ' + struct + ': ' if struct else ''}{line}")
    return bad


def main():
    if len(sys.argv) not in (3, 4, 5):
        sys.exit(__doc__.strip().splitlines()[-1])
    lib, recorded = sys.argv[1], sys.argv[2]
    here = os.path.dirname(os.path.abspath(__file__))
    rules = sys.argv[3] if len(sys.argv) >= 4 else \
        os.path.join(here, "..", "abi", "size-rule-structs.txt")
    opaque = sys.argv[4] if len(sys.argv) == 5 else \
        os.path.join(here, "..", "abi", "opaque.ini")
    if not shutil.which("abidiff"):
        print("abidiff not found (Debian: abigail-tools)")
        sys.exit(77)
    if not os.path.isfile(recorded):
        sys.exit(f"abi-check: no recorded ABI: {recorded}")
    with open(rules, encoding="utf-8") as f:
        size_rule = {l.strip() for l in f if l.strip() and not l.startswith("#")}

    def abidiff(*extra):
        return subprocess.run(["abidiff", "--no-show-locs", "--suppressions", opaque,
                               *extra, recorded, lib],
                              capture_output=True, text=True)

    changed = abidiff("--no-added-syms")
    name = os.path.basename(lib)
    if changed.returncode & 3:
        print(changed.stdout + changed.stderr)
        sys.exit(f"abi-check: abidiff failed (exit {changed.returncode})")
    if changed.returncode & 8:
        print(changed.stdout)
        sys.exit(f"abi-check: INCOMPATIBLE change in {name} (removed symbols)")
    if changed.returncode & 4:
        print(changed.stdout)
        bad = judge(changed.stdout, size_rule)
        if bad:
            print("not allowed:\n  " + "\n  ".join(bad))
            sys.exit(f"abi-check: INCOMPATIBLE change in {name} against {recorded}")
        print("abi-check: size-rule structs grew at their tail (allowed)")
    added = abidiff()
    if added.returncode & 4 and "Added function" in added.stdout:
        print(added.stdout + "abi-check: added functions (allowed)")
    print(f"abi-check: {name} is compatible with {recorded}")


if __name__ == "__main__":
    main()
