# SPDX-License-Identifier: GPL-2.0
"""libksftmetric for the Python ksft harness, through ctypes.

The functions take the same arguments as the ones the "selftests: net: add
performance metric reporting" series adds to net/lib/py/ksft.py, raise the
same exceptions, and print the same ``ktap-metric-json`` /
``ktap-metric-policy-json`` lines, so a test written against that series runs
unchanged::

    ksft_metric_case_begin()            # harness: before the test function
    ksft_metric_aggregate("throughput", summarize="distribution")
    ksft_metric("throughput", 32.6, shape="scalar", host="local")
    ksft_metric_case_end(ksft_pr)       # harness: just before ktap_result()

Exceptions:

* ``RuntimeError``: any call outside a test case (like the reference, this
  wins over every other error), a policy registered after its metric was
  observed, leaving a reporting scope that was not entered.
* ``TypeError``: an argument of the wrong kind: a name, shape or policy
  string that is not a ``str``, a label value that is not a str, int, float
  or bool, a ``regression`` / ``display_range`` that is not a dict.
* ``ValueError``: a metric value or policy number that is not a number
  (``True`` and ``False`` included: bools are never numbers here), NaN or
  infinity, an integer outside int64, an array entry that is not a number or
  ``None``, a reserved label name, an invalid or conflicting policy, an empty
  name, a NUL character or lone surrogate in a string.
* ``MemoryError``: the library ran out of memory.

A call refused inside a case (by the library or by this binding) is also
written at the case's end as a ``ktap-metric-warning-json`` line, so an
exception a test catches still reaches the log; KSFTMETRIC_STRICT=1 makes
ksft_metric_case_end() raise RuntimeError after such a case's lines.
"""

import array
import ctypes
import errno
import json
import os
import sys

from . import _library
from ._library import Label, T_BOOL, T_DOUBLE, T_INT, T_STRING

__all__ = ["ksft_metric", "ksft_metric_aggregate", "ksft_metric_reporting",
           "ksft_metric_reporting_enabled", "ksft_metric_case_begin",
           "ksft_metric_case_end", "ksft_metric_context",
           "ksft_metric_perf_check", "LIBRARY_PATH"]

_lib, _pylib, LIBRARY_PATH = _library.load()
_fn = _library.declare(_lib, _pylib)

# Recording calls are short and never block on Python: keep the GIL (PyDLL),
# which is cheaper than dropping and retaking it for a microsecond of C.
_c_int = _fn["ksft_metric_int_gil"]
_c_double = _fn["ksft_metric_double_gil"]
_c_array = _fn["ksft_metric_array_gil"]
_c_json = _fn["ksft_metric_json_gil"]
_c_errmsg = _fn["ksft_metric_errmsg_gil"]
_c_is_open = _fn["ksft_metric_case_is_open_gil"]
_c_aggregate = _fn["ksft_metric_aggregate_json_gil"]
_c_reporting = _fn["ksft_metric_reporting_gil"]
_c_reporting_enabled = _fn["ksft_metric_reporting_enabled_gil"]
_c_begin = _fn["ksft_metric_case_begin_gil"]
_c_refused = _fn["ksft_metric_refused_gil"]
_c_free = _fn["ksft_metric_free"]
# Formatting a case's lines may take a while: let other threads run.
_c_end_buffer = _fn["ksft_metric_case_end_buffer"]

# Lines come back as KTAP diagnostics ("# ..."); for pr() (ksft_pr, which
# adds its own "# ") the prefix is stripped. The library keeps "# " itself so
# that a case it flushes on its own (the process exits or dies with a case
# open) still prints valid KTAP on stdout.
_PREFIX = "# "
if _fn["ksft_metric_set_prefix"](_PREFIX.encode()) != 0:
    raise OSError("ksft_metric_set_prefix() failed: " +
                  _fn["ksft_metric_errmsg"]().decode("utf-8", "replace"))

_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1
_CACHE_MAX = 4096
_NONE_TYPE = type(None)
_FLOAT_OR_NONE = frozenset((float, _NONE_TYPE))


# --- errors ------------------------------------------------------------------

def _raise_if_closed(func):
    """Outside a case every call fails with RuntimeError, whatever else is
    wrong with it: the reference checks for an open case first."""
    if not _c_is_open():
        raise RuntimeError(f"{func}() called outside of a test case") from None


def _raise_c(ret, func, invalid=ValueError):
    """Turn a negative errno from a C call into the matching exception."""
    msg = (_c_errmsg() or b"").decode("utf-8", "replace") or \
        f"{func}() failed: {errno.errorcode.get(-ret, ret)}"
    if ret in (-errno.EPERM, -errno.EALREADY):
        raise RuntimeError(msg)
    if ret == -errno.ENOMEM:
        raise MemoryError(msg)
    if ret in (-errno.EINVAL, -errno.EEXIST):
        _raise_if_closed(func)
        raise (ValueError if ret == -errno.EEXIST else invalid)(msg)
    raise OSError(-ret, msg)


def _refused(func, name, err):
    """A refusal made here, before the library was reached, joins the open
    case's refused calls: the same warning line at the case's end, the same
    count, the same strict mode. Never raises: @err is what the caller gets."""
    def text(s):
        # Any str, as readable UTF-8: a lone surrogate or NUL is why the
        # call was refused, not a reason to lose the refusal.
        return s.encode("utf-8", "backslashreplace").replace(b"\0", b"\\x00")
    bname = text(name) if isinstance(name, str) else None
    _c_refused(text(func), bname, errno.EINVAL, text(str(err)))


# --- string encoding ---------------------------------------------------------

_encoded = {}


def _encode(s, what):
    """UTF-8 bytes for a name, shape or label string (cached for str)."""
    if type(s) is not str:
        if not isinstance(s, str):
            raise TypeError(f"{what} must be a str, not {type(s).__name__}")
        s = str(s)
    if "\0" in s:
        raise ValueError(f"{what} {s!r} contains a NUL character")
    try:
        b = s.encode("utf-8")
    except UnicodeEncodeError as err:
        raise ValueError(f"{what} {s!r} is not valid Unicode: {err.reason}") \
            from None
    if len(_encoded) >= _CACHE_MAX:
        _encoded.clear()
    _encoded[s] = b
    return b


def _int64(v, what):
    if _INT64_MIN <= v <= _INT64_MAX:
        return v
    raise ValueError(f"{what} {v} does not fit in a signed 64-bit integer")


# --- labels ------------------------------------------------------------------

# tuple(labels.items()) -> (label array, count, value types or None).
# Equal keys can still print differently: 1, 1.0 and True are equal, so a
# hit must also match the value types (None: all str, nothing to check),
# and 0.0 == -0.0, so arrays with a zero float are never cached.
_label_cache = {}


def _label_array(labels, name):
    """Build a ctypes label array: (array, n, cacheable, all values str)."""
    n = len(labels)
    arr = (Label * n)()
    keep = []
    all_str = cacheable = True
    for i, (key, v) in enumerate(labels.items()):
        lab = arr[i]
        bkey = _encoded.get(key)
        if bkey is None:
            bkey = _encode(key, f"metric {name}: label name")
        keep.append(bkey)
        lab.key = bkey
        tv = type(v)
        if tv is str or (tv is not bool and isinstance(v, str)):
            bv = _encode(v, f"metric {name}: label {key} value")
            keep.append(bv)
            lab.value.type = T_STRING
            lab.value.u.s = bv
            continue
        all_str = False
        if tv is bool:
            lab.value.type = T_BOOL
            lab.value.u.b = v
        elif isinstance(v, int):
            lab.value.type = T_INT
            lab.value.u.i = _int64(int(v), f"metric {name}: label {key} value")
        elif isinstance(v, float):
            lab.value.type = T_DOUBLE
            lab.value.u.d = v
            if v == 0.0:
                cacheable = False
        else:
            raise TypeError(f"metric {name}: label {key} must be a str, int, "
                            f"float or bool, not {type(v).__name__}")
    arr._keep = keep
    return arr, n, cacheable, all_str


def _labels(labels, name):
    """The C label array for @labels: (array, count)."""
    key = tuple(labels.items())
    try:
        hit = _label_cache.get(key)
    except TypeError:       # unhashable label value: let the builder say so
        hit = None
        key = None
    if hit is not None and (hit[2] is None or
                            hit[2] == tuple(map(type, labels.values()))):
        return hit[0], hit[1]
    arr, n, cacheable, all_str = _label_array(labels, name)
    if cacheable and key is not None:
        if len(_label_cache) >= _CACHE_MAX:
            _label_cache.clear()
        _label_cache[key] = (arr, n, None if all_str else
                             tuple(map(type, labels.values())))
    return arr, n


def _labels_json(labels, name):
    """Labels as a JSON object for ksft_metric_json(), checked like
    _label_array() checks them."""
    out = {}
    for key, v in labels.items():
        _encode(key, f"metric {name}: label name")
        if isinstance(v, str) and type(v) is not bool:
            _encode(v, f"metric {name}: label {key} value")
            out[key] = str(v)
        elif type(v) is bool:
            out[key] = v
        elif isinstance(v, int):
            out[key] = _int64(int(v), f"metric {name}: label {key} value")
        elif isinstance(v, float):
            v = float(v)
            if v - v != 0.0:
                raise ValueError(f"metric {name}: label {key} value is "
                                 f"{'NaN' if v != v else 'infinite'}")
            out[key] = v
        else:
            raise TypeError(f"metric {name}: label {key} must be a str, int, "
                            f"float or bool, not {type(v).__name__}")
    return json.dumps(out, allow_nan=False).encode("ascii")


# --- values ------------------------------------------------------------------

def _value_error(name, value):
    return ValueError(f"metric {name}: value must be a number or a list/tuple "
                      f"of numbers and None, not {type(value).__name__}"
                      + (" (bools are not numbers)" if type(value) is bool
                         else ""))


def _array_json(name, value):
    """JSON text of an array of ints, floats and None (validated here)."""
    parts = []
    for i, v in enumerate(value):
        tv = type(v)
        if tv is float:
            if v - v != 0.0:
                raise ValueError(f"metric {name}: value[{i}] is "
                                 f"{'NaN' if v != v else 'infinite'}")
            parts.append(float.__repr__(v))
        elif v is None:
            parts.append("null")
        elif tv is int or (tv is not bool and isinstance(v, int)):
            parts.append(str(_int64(int(v), f"metric {name}: value[{i}]")))
        elif tv is not bool and isinstance(v, float):
            v = float(v)
            if v - v != 0.0:
                raise ValueError(f"metric {name}: value[{i}] is "
                                 f"{'NaN' if v != v else 'infinite'}")
            parts.append(float.__repr__(v))
        else:
            raise ValueError(f"metric {name}: value[{i}] must be a number or "
                             f"None, not {tv.__name__}")
    return ("[" + ",".join(parts) + "]").encode("ascii")


def _record_other(bname, bshape, name, value, labels):
    """Everything but a plain int or float: subclasses, arrays, errors."""
    tv = type(value)
    if tv is bool:
        raise _value_error(name, value)
    if isinstance(value, int):
        value = _int64(int(value), f"metric {name}: value")
        arr, n = _labels(labels, name) if labels else (None, 0)
        return _c_int(bname, bshape, value, arr, n)
    if isinstance(value, float):
        arr, n = _labels(labels, name) if labels else (None, 0)
        return _c_double(bname, bshape, float(value), arr, n)
    if not isinstance(value, (list, tuple)):
        raise _value_error(name, value)
    kinds = frozenset(map(type, value))
    if kinds <= _FLOAT_OR_NONE:
        # Doubles straight from a buffer; nulls by presence flags.
        if _NONE_TYPE in kinds:
            present = bytes([v is not None for v in value])
            values = array.array("d", [0.0 if v is None else v for v in value])
        else:
            present = None
            values = array.array("d", value)
        arr, n = _labels(labels, name) if labels else (None, 0)
        return _c_array(bname, bshape, values.buffer_info()[0] or None,
                        present, len(value), arr, n)
    text = _array_json(name, value)
    ljson = _labels_json(labels, name) if labels else None
    return _c_json(bname, bshape, text, ljson)


# --- the API -----------------------------------------------------------------

def ksft_metric(name, value, *, shape, **labels):
    """Record a timestamped metric with an explicitly described shape.

    @value is an int, a float, or a list/tuple of ints, floats and None
    (None prints as null, e.g. an offline CPU). @shape names its layout
    ("scalar", "per-cpu", ...); it is never inferred. @labels are extra
    string/int/float/bool fields ("host", "direction", ...); "time" is
    reserved. Must be called inside a test case (any thread).
    """
    try:
        bname = _encoded.get(name) if type(name) is str else None
        if bname is None:
            bname = _encode(name, "metric name")
        bshape = _encoded.get(shape) if type(shape) is str else None
        if bshape is None:
            bshape = _encode(shape, f"metric {name}: shape")
        tv = type(value)
        if tv is float:
            if labels:
                arr, n = _labels(labels, name)
                ret = _c_double(bname, bshape, value, arr, n)
            else:
                ret = _c_double(bname, bshape, value, None, 0)
        elif tv is int:
            if not _INT64_MIN <= value <= _INT64_MAX:
                raise ValueError(f"metric {name}: value {value} does not fit "
                                 "in a signed 64-bit integer")
            if labels:
                arr, n = _labels(labels, name)
                ret = _c_int(bname, bshape, value, arr, n)
            else:
                ret = _c_int(bname, bshape, value, None, 0)
        else:
            ret = _record_other(bname, bshape, name, value, labels)
    except (TypeError, ValueError) as err:
        _raise_if_closed("ksft_metric")
        _refused("ksft_metric", name, err)
        raise
    if ret:
        _raise_c(ret, "ksft_metric")


_POLICY_STRINGS = ("aggregation", "transform", "display_label")
_REGRESSION_KEYS = {"compare": str, "better": str,
                    "relative_tolerance": float, "absolute_tolerance": float}
_RANGE_KEYS = {"min": float, "max": float}


def _policy_number(name, what, v):
    tv = type(v)
    if tv is bool or not isinstance(v, (int, float)):
        raise ValueError(f"metric {name}: {what} must be a number, not "
                         f"{tv.__name__}" +
                         (" (bools are not numbers)" if tv is bool else ""))
    if isinstance(v, int):
        return _int64(int(v), f"metric {name}: {what}")
    v = float(v)
    if v - v != 0.0:
        raise ValueError(f"metric {name}: {what} is "
                         f"{'NaN' if v != v else 'infinite'}")
    return v


def _policy_dict(name, what, d, keys):
    if not isinstance(d, dict):
        raise TypeError(f"metric {name}: {what} must be a dict, not "
                        f"{type(d).__name__}")
    out = {}
    for key, v in d.items():
        if not isinstance(key, str):
            raise TypeError(f"metric {name}: {what} keys must be str, not "
                            f"{type(key).__name__}")
        kind = keys.get(key)
        if kind is None:
            raise ValueError(f"metric {name}: unknown {what} key '{key}' "
                             f"(expected {', '.join(keys)})")
        if kind is str:
            if not isinstance(v, str):
                raise TypeError(f"metric {name}: {what} {key} must be a str, "
                                f"not {type(v).__name__}")
            _encode(v, f"metric {name}: {what} {key}")
            out[key] = str(v)
        else:
            out[key] = _policy_number(name, f"{what} {key}", v)
    return out


def _policy_json(name, summarize, optional):
    """The policy object exactly as the reference builds it, validated."""
    if not isinstance(summarize, str):
        raise TypeError(f"metric {name}: summarize must be a str, not "
                        f"{type(summarize).__name__}")
    _encode(summarize, f"metric {name}: summarize")
    metadata = {"summarize": str(summarize)}
    for key, v in optional.items():
        if v is None:
            continue
        if key in _POLICY_STRINGS:
            if not isinstance(v, str):
                raise TypeError(f"metric {name}: {key} must be a str, not "
                                f"{type(v).__name__}")
            _encode(v, f"metric {name}: {key}")
            v = str(v)
        elif key == "regression":
            v = _policy_dict(name, key, v, _REGRESSION_KEYS)
        elif key == "display_range":
            v = _policy_dict(name, key, v, _RANGE_KEYS)
        else:
            v = _policy_number(name, key, v)
        metadata[key] = v
    return json.dumps(metadata, allow_nan=False).encode("ascii")


def ksft_metric_aggregate(name, summarize="total", *, aggregation=None,
                          transform=None, regression=None,
                          display_range=None, display_scale=None,
                          display_label=None):
    """Register processing and presentation policy for metric @name.

    Call it in the current test case before the metric's first observation;
    the policy is emitted once as a ``ktap-metric-policy-json`` line before
    the observations. Consumers apply transform, then aggregation, then
    summarize:

    * summarize: last, total (default), p50, p90, p99, max, distribution
    * aggregation: None or "busy-core-equivalents"
    * transform: None or "rate"
    * regression: None or {"compare": last/total/p50/p90/p99/max,
      "better": "higher"/"lower", "relative_tolerance": >= 0,
      "absolute_tolerance": >= 0} (at least one tolerance)
    * display_range: None or {"min": n, "max": n} (either or both, min <= max)
    * display_scale: None or a positive number
    * display_label: None or a non-empty str

    Registering an equal policy again is fine. Raises RuntimeError outside a
    case or after a matching observation, ValueError for an invalid policy or
    one that conflicts with an earlier registration.
    """
    try:
        bname = _encode(name, "metric name")
        text = _policy_json(name, summarize, {
            "aggregation": aggregation,
            "transform": transform,
            "regression": regression,
            "display_range": display_range,
            "display_scale": display_scale,
            "display_label": display_label,
        })
    except (TypeError, ValueError) as err:
        _raise_if_closed("ksft_metric_aggregate")
        _refused("ksft_metric_aggregate", name, err)
        raise
    ret = _c_aggregate(bname, text)
    if ret:
        _raise_c(ret, "ksft_metric_aggregate")


def ksft_metric_reporting(enable):
    """Enter (truthy @enable) or leave a scope which enables benchmark metrics.

    Scopes nest; the depth is reset when a test case begins and ends.
    Raises RuntimeError outside a test case or when leaving a scope that was
    not entered.
    """
    ret = _c_reporting(1 if enable else 0)
    if ret < 0:
        # Leaving a scope that was never entered is a state error, not a
        # bad argument.
        _raise_c(ret, "ksft_metric_reporting", invalid=RuntimeError)


def ksft_metric_reporting_enabled():
    """Return whether benchmark metric producers should emit metrics."""
    return _c_reporting_enabled() > 0


def ksft_metric_case_begin():
    """Harness hook: start a test case (before the test function runs).

    Empties the observations and policies, resets the reporting scope and
    starts the case clock. A case left open (a harness that never reached
    ksft_metric_case_end()) is discarded, as the reference's reset does.
    """
    if not _context_printed and os.environ.get("KSFTMETRIC_CONTEXT") == "1":
        ksft_metric_context()
    ret = _c_begin()
    if ret == -errno.EBUSY:
        _take_lines()
        ret = _c_begin()
    if ret:
        _raise_c(ret, "ksft_metric_case_begin")


_strict_failure = None


def _take_lines():
    """Close the case; return its lines as one str ("" if none/no case).

    Strict mode (KSFTMETRIC_STRICT=1): a case with refused calls still
    returns its lines; the failure is kept for ksft_metric_case_end()."""
    global _strict_failure
    buf = ctypes.c_void_p()
    size = ctypes.c_size_t()
    ret = _c_end_buffer(ctypes.byref(buf), ctypes.byref(size))
    try:
        if ret == -errno.ECANCELED:
            _strict_failure = (_c_errmsg() or b"").decode("utf-8", "replace")
        elif ret < 0:
            if ret == -errno.EPERM:
                return ""
            _raise_c(ret, "ksft_metric_case_end")
        if not size.value:
            return ""
        return ctypes.string_at(buf, size.value).decode("utf-8")
    finally:
        if buf.value:
            _c_free(buf)


def ksft_metric_case_end(pr=None):
    """Harness hook: end the case and print its lines (before ktap_result).

    Policy lines come first (registration order, only for observed metrics),
    then one line per observation in recording order. Each line is handed
    to @pr (the harness's print function, e.g. ksft_pr) without a prefix;
    by default "# <line>" is written to sys.stdout, so the lines stay in
    order with the harness's own output. Without an open case nothing is
    printed. Returns the number of lines. Refused calls of the case are
    among the lines ("ktap-metric-warning-json"); with KSFTMETRIC_STRICT=1
    a case that had any raises RuntimeError after printing them.
    """
    global _strict_failure
    text = _take_lines()
    n = 0
    if text and pr is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        n = text.count("\n")
    elif text:
        lines = text[:-1].split("\n")
        for line in lines:
            pr(line[len(_PREFIX):])
        n = len(lines)
    if _strict_failure is not None:
        # Strict mode: refused calls fail the case, after their warning lines.
        msg, _strict_failure = _strict_failure, None
        raise RuntimeError(msg)
    return n


# --- run context and performance-test gating ---------------------------------

_context_printed = False


def _raise_context(ret):
    """The context is not bound to a case: no RuntimeError rule here."""
    msg = (_c_errmsg() or b"").decode("utf-8", "replace")
    if ret == -errno.EINVAL:
        raise ValueError(msg)
    if ret == -errno.ENOMEM:
        raise MemoryError(msg)
    raise OSError(-ret, msg)


def ksft_metric_context(pr=None, **keys):
    """Print the run-context line once: kernel, host, CPU, debug build.

    Keyword arguments add keys of the caller's (commit="...", nic="...";
    str values, None removes a key); so do KSFTMETRIC_CONTEXT_<KEY>=value
    environment variables. The line goes to @pr without its "# " (e.g.
    ksft_pr) or, by default, to sys.stdout. With KSFTMETRIC_CONTEXT=1 in
    the environment the first ksft_metric_case_begin() prints it by
    itself. Returns the line (without prefix and newline).
    """
    global _context_printed
    for key, value in keys.items():
        if value is not None and not isinstance(value, str):
            raise TypeError(f"context value of {key} must be a str, "
                            f"not {type(value).__name__}")
        ret = _fn["ksft_metric_context_set"](
            _encode(key, "context key"),
            None if value is None else _encode(value, "context value"))
        if ret:
            _raise_context(ret)
    buf = ctypes.c_void_p()
    size = ctypes.c_size_t()
    ret = _fn["ksft_metric_context_line"](ctypes.byref(buf), ctypes.byref(size))
    if ret:
        _raise_context(ret)
    try:
        line = ctypes.string_at(buf, size.value).decode("utf-8").rstrip("\n")
    finally:
        _c_free(buf)
    _context_printed = True
    if pr is None:
        sys.stdout.write(_PREFIX + line + "\n")
        sys.stdout.flush()
    else:
        pr(line)
    return line


def ksft_metric_perf_check():
    """Should a performance test run here? Returns (run, reason).

    Not on a debug kernel (KASAN, lockdep, kmemleak... in its config) and
    not with KSFT_MACHINE_SLOW=yes, unless KSFTMETRIC_PERF_FORCE=1. A test
    that gets run=False should raise KsftSkipEx(reason).
    """
    reason = ctypes.create_string_buffer(512)
    ret = _fn["ksft_metric_perf_check"](reason, len(reason))
    if ret < 0:
        _raise_context(ret)
    return ret == 1, reason.value.decode("utf-8", "replace")
