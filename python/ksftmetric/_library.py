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


def _build_tree_candidates():
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
        lib = os.path.join(os.path.dirname(priv), "lib", SONAME)
        if os.path.exists(lib):
            found.append(lib)
    found.sort(key=os.path.getmtime, reverse=True)
    return found


def _open(path):
    """dlopen @path twice: CDLL calls drop the GIL, PyDLL calls keep it."""
    return ctypes.CDLL(path), ctypes.PyDLL(path)


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
            return _open(path) + (path,)
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
