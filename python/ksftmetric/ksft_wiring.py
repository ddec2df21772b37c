# SPDX-License-Identifier: GPL-2.0
"""Wire the ksftmetric binding into the kernel's own ksft.py
(tools/testing/selftests/net/lib/py/ksft.py) without editing it: each case
opens right before its test function runs and ends right before
ktap_result() prints its result line (after the deferred cleanups, so the
metrics they record belong to the case).

Three ways in, for an unchanged kernel tree (doc/python.rst):

* ``python3 -m ksftmetric.ksft_wiring ./test.py [ARGS...]`` runs the test
  as ``python3 ./test.py`` would, with the wiring installed first;
* ``ksftmetric.ksft_wiring.install()`` before the test imports ``lib.py``:
  every ksft module imported afterwards (``lib.py.ksft`` from
  ``net/``, ``net.lib.py.ksft`` behind ``drivers/net/lib/py``) is wired as
  it loads, before anything re-exports its functions;
* ``ksftmetric.ksft_wiring.wire(module)`` on an imported ksft module: it
  also rewires every loaded module that re-exported the plain
  ``ksft_run``/``ktap_result`` (``drivers/net/lib/py``, the test's own
  ``from lib.py import ksft_run``).
"""

import functools
import importlib.abc
import os
import runpy
import sys

from ksftmetric import ksft_metric_case_begin, ksft_metric_case_end

__all__ = ["wire", "install", "main"]

_WIRED = "_ksftmetric_wired"


def _begin_first(func):
    @functools.wraps(func)    # ktap_result() names the case by __name__
    def case(*args, **kwargs):
        ksft_metric_case_begin()
        return func(*args, **kwargs)
    return case


def _is_ksft(module):
    return callable(getattr(module, "ksft_run", None)) and \
        callable(getattr(module, "ktap_result", None)) and \
        callable(getattr(module, "ksft_pr", None))


def wire(ksft):
    """Patch the ksft module and every loaded module that re-exports its
    ksft_run or ktap_result (the package, drivers/net/lib/py, a test's
    own names). Wiring a module twice changes nothing."""
    if getattr(ksft, _WIRED, False):
        return
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
    setattr(ksft, _WIRED, True)
    for module in list(sys.modules.values()):
        if module is None or module is ksft:
            continue
        try:
            if getattr(module, "ksft_run", None) is plain_run:
                module.ksft_run = ksft_run
            if getattr(module, "ktap_result", None) is plain_result:
                module.ktap_result = ktap_result
        except Exception:  # pylint: disable=broad-except
            continue        # a module that refuses attributes re-exports nothing


def _ksft_name(fullname):
    return fullname == "lib.py.ksft" or fullname.endswith(".lib.py.ksft")


class _WiringLoader(importlib.abc.Loader):
    """The real loader, then wire() before the package binds the names."""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        if _is_ksft(module):
            wire(module)

    def __getattr__(self, name):
        return getattr(self._loader, name)


class _WiringFinder(importlib.abc.MetaPathFinder):
    """Finds ksft modules with the other finders and wraps their loader."""

    def find_spec(self, fullname, path, target=None):
        if not _ksft_name(fullname):
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _WiringLoader(spec.loader)
                return spec
        return None


def install():
    """Wire every ksft module imported from now on, and the ones already
    imported. Installing twice changes nothing."""
    if not any(isinstance(f, _WiringFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _WiringFinder())
    for name, module in list(sys.modules.items()):
        if module is not None and _ksft_name(name) and _is_ksft(module):
            wire(module)


def main(argv=None):
    """python3 -m ksftmetric.ksft_wiring TEST.py [ARGS...]: run TEST as
    python3 would (its directory first on sys.path, __name__ "__main__"),
    wired. Its exit status is the test's."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        sys.stderr.write("usage: python3 -m ksftmetric.ksft_wiring TEST.py [ARGS...]\n"
                         "Run a kernel ksft.py selftest with its cases' metrics"
                         " wired in (doc/python.rst).\n")
        return 0 if argv else 2
    install()
    test = argv[0]
    sys.argv = argv
    sys.path[0] = os.path.dirname(os.path.realpath(test))
    runpy.run_path(test, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
