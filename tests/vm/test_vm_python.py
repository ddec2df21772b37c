#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What only a boot shows of issue 42: a Python test with a
#!/usr/bin/env python3 shebang runs in the guest with no extra option
(the interpreter starts: its standard library is whole enough; ksftmetric
loads its library there) and records a metric; --seed 3 names its seed
and what it produced in the run's context line. One boot.

usage: test_vm_python.py KSFT_VM PYTHON_PKG_DIR
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vm_util import check, kernel, run  # noqa: E402

vm, pypkg = sys.argv[1], os.path.abspath(sys.argv[2])
k = kernel()
TEST = r"""#!/usr/bin/env python3
import json, socket, sys
import ksftmetric
ksftmetric.ksft_metric_context()
ksftmetric.ksft_metric_case_begin()
ksftmetric.ksft_metric("answer", 42, shape="scalar")
ksftmetric.ksft_metric_case_end()
print("ok 1 python in the guest")
"""

with tempfile.TemporaryDirectory(prefix="ksft-vm-python.") as tmp:
    with open(os.path.join(tmp, "t.py"), "w") as f:
        f.write(TEST)
    os.chmod(os.path.join(tmp, "t.py"), 0o755)
    env = dict(os.environ, PYTHONPATH=pypkg)
    env.pop("KSFTMETRIC_LIBRARY", None)
    rc, out, err = run(vm, ["--kernel", k, "--seed", "3", "--", "./t.py"], cwd=tmp, env=env)
    text = out.decode("utf-8", "replace")
    check(rc == 0, "./t.py exits 0 in the guest", "rc %d\n%s\n%s" % (rc, text, err[-3000:]))
    check("ok 1 python in the guest" in text.splitlines(),
          "the interpreter PATH finds on the host runs", text[-2000:])
    check('"name":"answer"' in text and '"value":42' in text,
          "ksftmetric recorded a metric with its library", text[-2000:])
    ctx = [json.loads(x.split(":", 1)[1]) for x in text.splitlines()
           if x.startswith("# ktap-metric-context-json:")]
    check(ctx and ctx[0].get("seed") == "3" and ctx[0].get("seed_spin", "").isdigit() and
          len(ctx[0].get("seed_urandom", "")) == 16,
          "the context line names the seed, its busy loop and its urandom hash", text[:2000])
print("PASS")
