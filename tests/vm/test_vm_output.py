#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What only a boot shows of issue 41, in one boot of a 256 MB guest:
--add DIR -- DIR/main.sh has all of DIR (item 1); a test that fills its
/tmp still gets every line of its output back (item 3: the output has a
RAM file system of its own); a process the test leaves writing is
stopped before the output is measured, so stdout and stderr come back
whole and apart (item 2); COMMAND's exit 2 is its own.

usage: test_vm_output.py KSFT_VM
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vm_util import check, kernel, run  # noqa: E402

vm = sys.argv[1]
k = kernel()
LINES = 203
MAIN = r"""#!/bin/sh
d=$(dirname "$0")
( while :; do echo left-behind; echo left-behind-err >&2; done ) &
cat "$d/data.txt"
dd if=/dev/zero of=/tmp/fill bs=1M 2>/dev/null
i=0; while [ $i -lt %d ]; do echo "line $i"; i=$((i+1)); done
echo stderr-end >&2
exit 2
""" % LINES

with tempfile.TemporaryDirectory(prefix="ksft-vm-output.") as tmp:
    t = os.path.join(tmp, "t")
    os.mkdir(t)
    with open(os.path.join(t, "main.sh"), "w") as f:
        f.write(MAIN)
    os.chmod(os.path.join(t, "main.sh"), 0o755)
    with open(os.path.join(t, "data.txt"), "w") as f:
        f.write("data 41\n")
    rc, out, err = run(vm, ["--kernel", k, "--memory", "256", "--add", ".", "--", "./main.sh"],
                       cwd=t)
    text = out.decode("utf-8", "replace")
    mine = [x for x in text.splitlines() if not x.startswith("left-behind")]
    check(rc == 2, "COMMAND's exit 2 is ksft-vm's exit", "rc %d\n%s" % (rc, err[-3000:]))
    check(mine[:1] == ["data 41"], "--add . -- ./main.sh: the directory's other files", text[:500])
    check(mine[1:] == ["line %d" % i for i in range(LINES)],
          "every line after the root filled, none cut", "\n".join(mine[-5:]))
    check("stderr-end" in err.splitlines() and "line " not in err and
          all(x.startswith(("left-behind", "stderr-end", "ksft-vm: warning",
                             "ksft-vm: COMMAND took")) or not x
              for x in err.splitlines()),
          "stderr whole and apart from stdout", err[-2000:])
print("PASS")
