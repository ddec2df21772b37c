# SPDX-License-Identifier: GPL-2.0
"""What the ksft-metric CLI tests share: running the tool (failing on any
sanitizer report, which may hide behind an expected exit status) and
running every test_* function of a module, reporting each."""

import os
import subprocess
import traceback

KSFT = None     # set by the test module: the ksft-metric executable


def run(*args, stdin=None, cwd=None, columns=None):
    """ksft-metric ARGS; its text as wide as @columns ($COLUMNS), else
    the default 120 whatever the terminal the tests run from."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    if columns is not None:
        env["COLUMNS"] = str(columns)
    p = subprocess.run([KSFT, *args], input=stdin, capture_output=True,
                       cwd=cwd, timeout=300, env=env)
    err = p.stderr.decode("utf-8", "replace")
    for marker in ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                   "runtime error:", "WARNING: ThreadSanitizer"):
        assert marker not in err, f"ksft-metric {' '.join(args)}:\n{err}"
    return p.returncode, p.stdout.decode("utf-8", "replace"), err


def expect_rc(want, *args, **kw):
    rc, out, err = run(*args, **kw)
    assert rc == want, f"ksft-metric {' '.join(args)}: rc {rc}, want {want}\n" \
                       f"stdout:\n{out}\nstderr:\n{err}"
    return out, err


def run_tests(namespace):
    """Run the test_* functions of @namespace (a module's globals());
    returns the exit status."""
    tests = [(name, fn) for name, fn in sorted(namespace.items())
             if name.startswith("test_") and callable(fn)]
    failed = 0
    for name, fn in tests:
        try:
            fn()
            print(f"ok {name}")
        except Exception:  # report every failure, then fail
            failed += 1
            print(f"FAIL {name}")
            traceback.print_exc()
    print(f"{len(tests) - failed} passed, {failed} failed")
    return 1 if failed else 0
