# SPDX-License-Identifier: GPL-2.0
"""Locate libksftmetric and declare the C prototypes the binding calls.

Search order: $KSFTMETRIC_LIBRARY (authoritative when set), the location
meson installed the library to, a meson build tree of the source checkout
this package sits in, then ctypes.util.find_library("ksftmetric") and the
dynamic loader's own search (LD_LIBRARY_PATH, ld.so.cache).
"""

import ctypes
import ctypes.util
import glob
import os

ENV_VAR = "KSFTMETRIC_LIBRARY"
SONAME = "libksftmetric.so.0"

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))


# --- C types (include/ksftmetric/metric.h) ----------------------------------

T_STRING, T_INT, T_DOUBLE, T_BOOL = 1, 2, 3, 4


class ValueUnion(ctypes.Union):
    _fields_ = [("s", ctypes.c_char_p), ("i", ctypes.c_int64),
                ("d", ctypes.c_double), ("b", ctypes.c_int)]


class Value(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("u", ValueUnion)]


class Label(ctypes.Structure):
    _fields_ = [("key", ctypes.c_char_p), ("value", Value)]


LabelPtr = ctypes.POINTER(Label)


def _installed_candidate():
    try:
        from . import _install_paths  # written by meson at install time
    except ImportError:
        return None
    return _install_paths.LIBRARY


def _build_tree_candidates(soname=SONAME):
    """Libraries in meson build trees of our source checkout, newest first."""
    root = os.path.dirname(os.path.dirname(_PKG_DIR))
    try:
        with open(os.path.join(root, "meson.build"), encoding="utf-8") as f:
            if "'libksftmetric'" not in f.read(4096):
                return []
    except OSError:
        return []
    found = []
    for priv in glob.glob(os.path.join(root, "*", "meson-private")):
        lib = os.path.join(os.path.dirname(priv), "lib", soname)
        if os.path.exists(lib):
            found.append(lib)
    found.sort(key=os.path.getmtime, reverse=True)
    return found


def _open(path):
    """dlopen @path twice: CDLL calls drop the GIL, PyDLL calls keep it."""
    return ctypes.CDLL(path), ctypes.PyDLL(path)


def _loaded_path(name):
    """The file a bare soname @name was loaded from (the loader searched
    LD_LIBRARY_PATH or its cache), so LIBRARY_PATH is always a path
    ksft-vm can pack; @name itself when /proc/self/maps does not say."""
    if "/" in name:
        return name
    try:
        with open("/proc/self/maps", encoding="utf-8") as f:
            for line in f:
                path = line.rstrip("\n").split(None, 5)[-1]
                base = os.path.basename(path)  # the symlink resolved: .so.0.1.0
                if (base == name or base.startswith(name + ".")) and os.path.exists(path):
                    return path
    except OSError:
        pass
    return name


def load():
    """Return (CDLL, PyDLL, path) for libksftmetric or raise OSError."""
    env = os.environ.get(ENV_VAR)
    if env:
        try:
            return _open(env) + (env,)
        except OSError as err:
            raise OSError(f"cannot load libksftmetric from ${ENV_VAR}={env}: "
                          f"{err}") from None

    tried = [f"${ENV_VAR} (unset)"]
    candidates = []
    installed = _installed_candidate()
    if installed:
        candidates.append(("installed location", installed))
    else:
        tried.append("installed location (package not installed by meson)")
    builds = _build_tree_candidates()
    if builds:
        candidates += [("build tree", p) for p in builds]
    else:
        tried.append(f"build tree (no meson build directory with lib/{SONAME}"
                     " in the source checkout above "
                     f"{os.path.dirname(_PKG_DIR)})")
    name = ctypes.util.find_library("ksftmetric")
    if name:
        candidates.append(('find_library("ksftmetric")', name))
    else:
        tried.append('ctypes.util.find_library("ksftmetric") (not found)')
    candidates.append(("dynamic loader", SONAME))

    for how, path in candidates:
        try:
            handles = _open(path)
            return handles + (_loaded_path(path),)
        except OSError as err:
            tried.append(f"{how}: {path} ({err})")
    raise OSError("cannot find libksftmetric; tried: " + "; ".join(tried) +
                  f". Set ${ENV_VAR} to the path of {SONAME}.")


def declare(lib, pylib):
    """Set argtypes/restype on both handles; return {name[_gil]: function}."""
    c_char_p, c_int, c_size_t = ctypes.c_char_p, ctypes.c_int, ctypes.c_size_t
    c_void_p = ctypes.c_void_p
    protos = {
        "ksft_metric_errmsg": (ctypes.c_char_p, []),
        "ksft_metric_case_begin": (c_int, []),
        "ksft_metric_case_end_buffer": (c_int, [ctypes.POINTER(c_void_p),
                                                ctypes.POINTER(c_size_t)]),
        "ksft_metric_case_is_open": (c_int, []),
        "ksft_metric_free": (None, [c_void_p]),
        "ksft_metric_int": (c_int, [c_char_p, c_char_p, ctypes.c_int64,
                                    LabelPtr, c_size_t]),
        "ksft_metric_double": (c_int, [c_char_p, c_char_p, ctypes.c_double,
                                       LabelPtr, c_size_t]),
        "ksft_metric_array": (c_int, [c_char_p, c_char_p, c_void_p, c_void_p,
                                      c_size_t, LabelPtr, c_size_t]),
        "ksft_metric_json": (c_int, [c_char_p, c_char_p, c_char_p, c_char_p]),
        "ksft_metric_aggregate_json": (c_int, [c_char_p, c_char_p]),
        "ksft_metric_reporting": (c_int, [c_int]),
        "ksft_metric_reporting_enabled": (c_int, []),
        "ksft_metric_set_prefix": (c_int, [c_char_p]),
        "ksft_metric_context_set": (c_int, [c_char_p, c_char_p]),
        "ksft_metric_context_line": (c_int, [ctypes.POINTER(c_void_p),
                                             ctypes.POINTER(c_size_t)]),
        "ksft_metric_perf_check": (c_int, [c_char_p, c_size_t]),
        "ksft_metric_refused": (c_int, [c_char_p, c_char_p, c_int, c_char_p]),
    }
    fns = {}
    for name, (restype, argtypes) in protos.items():
        for handle, suffix in ((lib, ""), (pylib, "_gil")):
            try:
                fn = getattr(handle, name)
            except AttributeError:
                raise OSError(f"{handle._name} lacks {name}(): not a "
                              "libksftmetric of this version") from None
            fn.restype = restype
            fn.argtypes = argtypes
            fns[name + suffix] = fn
    return fns


REPORT_ENV_VAR = "KSFTMETRIC_REPORT_LIBRARY"
REPORT_SONAME = "libksftmetric-report.so.0"


def load_report(producer_path=None):
    """Return (CDLL, path) for libksftmetric-report or raise OSError.

    Search order: $KSFTMETRIC_REPORT_LIBRARY (authoritative when set), the
    directory of the producer library already loaded (@producer_path: the
    two are built and installed side by side), the installed location, a
    build tree of this checkout, find_library(), the dynamic loader.
    """
    env = os.environ.get(REPORT_ENV_VAR)
    if env:
        try:
            return ctypes.CDLL(env), env
        except OSError as err:
            raise OSError(f"cannot load libksftmetric-report from "
                          f"${REPORT_ENV_VAR}={env}: {err}") from None
    candidates = []
    if producer_path and os.sep in producer_path:
        candidates.append(("beside libksftmetric", os.path.join(
            os.path.dirname(os.path.abspath(producer_path)), REPORT_SONAME)))
    try:
        from . import _install_paths
        if getattr(_install_paths, "REPORT_LIBRARY", None):
            candidates.append(("installed location", _install_paths.REPORT_LIBRARY))
    except ImportError:
        pass
    candidates += [("build tree", p) for p in _build_tree_candidates(REPORT_SONAME)]
    name = ctypes.util.find_library("ksftmetric-report")
    if name:
        candidates.append(('find_library("ksftmetric-report")', name))
    candidates.append(("dynamic loader", REPORT_SONAME))
    tried = [f"${REPORT_ENV_VAR} (unset)"]
    for how, path in candidates:
        try:
            return ctypes.CDLL(path), path
        except OSError as err:
            tried.append(f"{how}: {path} ({err})")
    raise OSError("cannot find libksftmetric-report; tried: " + "; ".join(tried) +
                  f". Set ${REPORT_ENV_VAR} to the path of {REPORT_SONAME}.")
