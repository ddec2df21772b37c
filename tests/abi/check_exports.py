#!/usr/bin/env python3
"""Fail unless a library exports exactly the symbols in the version map.

Usage: check_exports.py LIBRARY MAP. For a shared library: its dynamic
symbols; for a static archive (.a): the global definitions of all its
members, which a program linking it statically could clash with.
"""
import re
import subprocess
import sys

lib, map_file = sys.argv[1], sys.argv[2]
text = open(map_file, encoding="utf-8").read()
# Every version node's "global:" list (a node ends at its "local:" or "}").
wanted = set()
for node in text.split("global:")[1:]:
    glob = re.split(r"local:|}", node)[0]
    wanted |= set(re.findall(r"([A-Za-z_][A-Za-z0-9_]*)\s*;", glob))
static = lib.endswith(".a")
nm = ["nm", "-g", "--defined-only"] if static else ["nm", "-D", "--defined-only"]
out = subprocess.run(nm + [lib], check=True, capture_output=True, text=True).stdout
# Archive listings have "member.o:" headers and blank lines.
out = "\n".join(line for line in out.splitlines() if len(line.split()) >= 3)
exported = {line.split()[-1].split("@")[0] for line in out.splitlines()
            if line.split() and line.split()[1] in "TDBRVWiuCGS"}
exported = {s for s in exported if not re.fullmatch(r"KSFTMETRIC_[A-Z0-9_]+", s)}
extra, missing = exported - wanted, wanted - exported
for name in sorted(extra):
    print(f"exported but not in {map_file}: {name}")
for name in sorted(missing):
    print(f"in the map but not exported: {name}")
if not wanted:
    print("no symbols parsed from the map")
sys.exit(1 if extra or missing or not wanted else 0)
