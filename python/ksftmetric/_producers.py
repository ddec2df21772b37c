# SPDX-License-Identifier: GPL-2.0
"""Load libksftmetric-producers (the C system monitor, iperf3 and kperf
runners) lazily, on the first producer call, and read the ``cfg`` object
the producers take (see doc/python.rst, "The cfg protocol").

The producer library records through libksftmetric, so it must bind to the
very library this package loaded: it is looked for beside it (installed
alongside, or the same meson build tree) unless
``$KSFTMETRIC_PRODUCERS_LIBRARY`` names it.
"""

import ctypes
import errno
import os
import shlex
import threading

from . import LIBRARY_PATH
from . import _remote

ENV_VAR = "KSFTMETRIC_PRODUCERS_LIBRARY"
SONAME = "libksftmetric-producers.so.0"

_lock = threading.Lock()
_lib = None


def _candidates():
    env = os.environ.get(ENV_VAR)
    if env:
        return [(f"${ENV_VAR}", env)]
    here = os.path.dirname(os.path.abspath(LIBRARY_PATH)) if os.sep in LIBRARY_PATH else None
    found = []
    if here:
        found.append(("beside libksftmetric", os.path.join(here, SONAME)))
        found.append(("build tree", os.path.join(os.path.dirname(here), "examples",
                                                 "pyproducers", SONAME)))
    found.append(("dynamic loader", SONAME))
    return found


def _declare(lib):
    c_char_p, c_int, c_void_p, c_double = (ctypes.c_char_p, ctypes.c_int,
                                           ctypes.c_void_p, ctypes.c_double)
    argv = ctypes.POINTER(c_char_p)
    out4 = ctypes.POINTER(c_double * 4)
    out5 = ctypes.POINTER(c_double * 5)
    protos = {
        "ksftmetric_prod_errmsg": (c_char_p, []),
        "ksftmetric_prod_monitor_start": (c_void_p, [c_char_p, argv, c_char_p, c_double,
                                                     c_int]),
        "ksftmetric_prod_monitor_counters_missing": (c_char_p, [c_void_p]),
        "ksftmetric_prod_monitor_stop": (c_int, [c_void_p]),
        "ksftmetric_prod_iperf3_run": (c_int, [c_char_p, c_char_p, c_char_p, argv, c_int,
                                               c_double, c_int, c_int, c_int, c_void_p,
                                               out4]),
        "ksftmetric_prod_iperf3_run_on": (c_int, [c_char_p, c_char_p, c_char_p, argv,
                                                  c_int, c_double, c_int, c_int, c_int,
                                                  c_void_p, c_char_p, out5]),
        "ksftmetric_prod_kperf_start": (c_void_p, [c_char_p, c_char_p, c_char_p, c_char_p,
                                                   argv, c_int, c_char_p, c_void_p]),
        "ksftmetric_prod_kperf_start_on": (c_void_p, [c_char_p, c_char_p, c_char_p,
                                                      c_char_p, argv, c_int, c_char_p,
                                                      c_void_p, c_char_p]),
        "ksftmetric_prod_kperf_client": (c_int, [c_void_p, argv, out4]),
        "ksftmetric_prod_kperf_stop": (c_int, [c_void_p]),
    }
    for name, (restype, argtypes) in protos.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    return lib


def lib():
    """The producer library (loaded on first use) or OSError saying what was tried."""
    global _lib
    with _lock:
        if _lib is None:
            tried = []
            for how, path in _candidates():
                try:
                    # ctypes.CDLL drops the GIL during calls: runs take seconds.
                    _lib = _declare(ctypes.CDLL(path, use_errno=True))
                    break
                except (OSError, AttributeError) as err:
                    tried.append(f"{how}: {path} ({err})")
            else:
                raise OSError("cannot load the producer library; tried: " +
                              "; ".join(tried) + f". Set ${ENV_VAR} to the path of "
                              f"{SONAME} (built with the system monitor, libnl).")
        return _lib


def raise_last_errno(what):
    """raise_errno() for a call that returned NULL and set errno."""
    raise_errno(-(ctypes.get_errno() or errno.EIO), what)


def raise_errno(ret, what):
    """Raise the exception for a negative errno from the producer library."""
    msg = f"{what}: {lib().ksftmetric_prod_errmsg().decode(errors='replace')}"
    code = -ret
    if code == errno.ENOENT:
        raise FileNotFoundError(code, msg)
    if code == errno.ETIMEDOUT:
        raise TimeoutError(code, msg)
    if code == errno.EPERM:
        raise RuntimeError(msg + " (is a test case open?)")
    if code == errno.ENOMEM:
        raise MemoryError(msg)
    if code == errno.EINVAL:
        raise ValueError(msg)
    raise RuntimeError(msg)


def argv(words, what):
    """A NULL-terminated char** for @words (kept alive by the caller), or None."""
    if words is None:
        return None
    if isinstance(words, str):
        words = shlex.split(words)
    if not isinstance(words, (list, tuple)) or not words or \
            not all(isinstance(w, str) and w and "\0" not in w for w in words):
        raise ValueError(f"{what}: a command prefix must be a non-empty list of "
                         f"words (or a string to split), got {words!r}")
    arr = (ctypes.c_char_p * (len(words) + 1))()
    for i, w in enumerate(words):
        arr[i] = w.encode()
    arr[len(words)] = None
    return arr


def words(args, what):
    """Client arguments as a NULL-terminated char** (numbers become str)."""
    args = [str(a) for a in args]
    return argv(args, what) if args else None


def cfg_str(cfg, name, required=True):
    """cfg.NAME as bytes: a non-empty str, or None when optional and absent."""
    value = getattr(cfg, name, None)
    if value is None:
        if required:
            raise ValueError(f"cfg.{name} is missing: the producers need it "
                             "(see doc/python.rst, the cfg protocol)")
        return None
    if not isinstance(value, str) or not value or "\0" in value:
        raise ValueError(f"cfg.{name} must be a non-empty str, got {value!r}")
    return value.encode()


def cfg_remote(cfg):
    """cfg.remote as a char** prefix, or None (the remote endpoint is this host)."""
    if not hasattr(cfg, "remote"):
        raise ValueError("cfg.remote is missing: give the remote endpoint's command "
                         "prefix (e.g. ['ip', 'netns', 'exec', 'nsB']) or None")
    return argv(_remote.remote_prefix(cfg.remote), "cfg.remote")
