# SPDX-License-Identifier: GPL-2.0
"""Wire the ksftmetric binding into the kernel's own ksft.py at test time,
without editing it: the case opens right before each test function runs
and ends right before ktap_result() prints the result line (after the
deferred cleanups, so metrics they record belong to the case)."""

import functools
import sys

from ksftmetric import ksft_metric_case_begin, ksft_metric_case_end


def _begin_first(func):
    @functools.wraps(func)    # ktap_result() names the case by __name__
    def case(*args, **kwargs):
        ksft_metric_case_begin()
        return func(*args, **kwargs)
    return case


def wire(ksft):
    """Patch the ksft module (lib.py.ksft) and its package's re-exports."""
    plain_result, plain_run = ksft.ktap_result, ksft.ksft_run

    def ktap_result(ok, cnt=1, case="", comment=""):
        ksft_metric_case_end(ksft.ksft_pr)
        plain_result(ok, cnt, case, comment)

    def ksft_run(cases=None, globs=None, case_pfx=None, args=()):
        cases = [_begin_first(c) for c in cases or []]
        if globs and case_pfx:
            globs = {k: _begin_first(v) if callable(v) and
                     any(k.startswith(p) for p in case_pfx) else v
                     for k, v in globs.items()}
        return plain_run(cases, globs, case_pfx, args)

    ksft.ktap_result, ksft.ksft_run = ktap_result, ksft_run
    package = sys.modules.get(ksft.__package__)
    if package is not None and getattr(package, "ksft_run", None) is plain_run:
        package.ksft_run = ksft_run
