#!/usr/bin/env python3
"""Fail unless the shared library exports exactly the symbols in the version map."""
import re
import subprocess
import sys

lib, map_file = sys.argv[1], sys.argv[2]
text = open(map_file, encoding="utf-8").read()
glob = text.split("global:")[1].split("local:")[0]
wanted = set(re.findall(r"([A-Za-z_][A-Za-z0-9_]*)\s*;", glob))
out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True,
                     capture_output=True, text=True).stdout
exported = {line.split()[-1].split("@")[0] for line in out.splitlines()
            if line.split() and line.split()[1] in "TDBRVWiu"}
exported = {s for s in exported if not re.fullmatch(r"KSFTMETRIC_[A-Z0-9_]+", s)}
extra, missing = exported - wanted, wanted - exported
for name in sorted(extra):
    print(f"exported but not in {map_file}: {name}")
for name in sorted(missing):
    print(f"in the map but not exported: {name}")
if not wanted:
    print("no symbols parsed from the map")
sys.exit(1 if extra or missing or not wanted else 0)
