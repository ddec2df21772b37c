# SPDX-License-Identifier: GPL-2.0
"""The consumer side from Python: libksftmetric-report through ctypes.

Read KTAP logs (zperf console output, twister JSON), walk their series,
compare them with baselines, get verdicts and warnings::

    from ksftmetric.report import Report

    report = Report.read("ktap.log")
    for s in report:
        print(s.title, s.summary)
    for row in report.compare(baselines=["base.json"]).regressions:
        print(row.title, row.baseline, "->", row.current)

Importing ``ksftmetric`` (the producer binding a selftest uses) never loads
this library; only ``import ksftmetric.report`` does.

Exceptions: ``InputError`` (a ``ValueError``) for bad input when reading
with ``strict=True`` and ``BaselineError`` for a malformed baseline file,
both ``ReportError`` with ``file``, ``line`` (0: the whole file) and
``reason``; ``OSError`` for files that cannot be read, ``TypeError`` /
``ValueError`` for bad arguments, ``MemoryError``.
"""

import ctypes
import dataclasses
import errno
import json
import math
import os
import re
from typing import Dict, Iterator, List, Optional, Sequence, Tuple, Union

from . import LIBRARY_PATH as _PRODUCER_PATH
from . import _library

__all__ = ["Report", "Series", "Policy", "Points", "InputWarning", "Comparison",
           "Row", "History", "ReportError", "InputError", "BaselineError",
           "HistoryMismatchError", "read",
           "LIBRARY_PATH", "VERDICTS"]

_lib, LIBRARY_PATH = _library.load_report(_PRODUCER_PATH)

c_char_p, c_int, c_size_t, c_double = (ctypes.c_char_p, ctypes.c_int,
                                       ctypes.c_size_t, ctypes.c_double)
c_void_p = ctypes.c_void_p
_PP = ctypes.POINTER(c_char_p)


# --- C types (include/ksftmetric/report.h) ---------------------------------

class _Opts(ctypes.Structure):
    _fields_ = [("sz", c_size_t), ("max_line", c_size_t),
                ("max_warnings", c_size_t)]


class _Warning(ctypes.Structure):
    _fields_ = [("file", c_char_p), ("line", ctypes.c_ulong),
                ("reason", c_char_p)]


class _Series(ctypes.Structure):
    _fields_ = [("sz", c_size_t), ("case_name", c_char_p), ("path", _PP),
                ("path_len", c_size_t), ("name", c_char_p),
                ("labels_json", c_char_p), ("shape", c_char_p),
                ("status", c_char_p), ("source", c_char_p),
                ("points", c_size_t), ("is_array", c_int),
                ("policy_json", c_char_p), ("summarize", c_char_p),
                ("transform", c_char_p), ("aggregation", c_char_p),
                ("compare", c_char_p), ("better", c_char_p),
                ("relative_tolerance", c_double),
                ("absolute_tolerance", c_double), ("display_min", c_double),
                ("display_max", c_double), ("display_scale", c_double),
                ("display_label", c_char_p), ("abort_reason", c_char_p),
                ("status_reason", c_char_p),
                ("repeats", c_size_t)]


class _Points(ctypes.Structure):
    _fields_ = [("n", c_size_t), ("width", c_size_t),
                ("t", ctypes.POINTER(c_double)), ("v", ctypes.POINTER(c_double)),
                ("off", ctypes.POINTER(c_size_t))]


class _CompareOpts(ctypes.Structure):
    _fields_ = [("sz", c_size_t), ("tolerance_pct", c_double),
                ("alpha", c_double), ("allow_missing", c_int),
                ("max_tolerance_pct", c_double), ("seeds", c_void_p),
                ("allow_context_mismatch", c_int)]


class _Row(ctypes.Structure):
    _fields_ = [("sz", c_size_t), ("case_name", c_char_p), ("path", _PP),
                ("path_len", c_size_t), ("name", c_char_p),
                ("labels_json", c_char_p), ("element", ctypes.c_long),
                ("compare", c_char_p), ("better", c_char_p),
                ("baseline", c_double), ("current", c_double),
                ("change_pct", c_double), ("allowance", c_double),
                ("p_value", c_double), ("n_baseline", c_size_t),
                ("n_current", c_size_t), ("baseline_runs", c_size_t),
                ("verdict", c_char_p), ("fails", c_int)]


class _FormatOpts(ctypes.Structure):
    _fields_ = [("sz", c_size_t), ("origin", c_char_p), ("build_id", c_char_p),
                ("start_time", c_char_p), ("run_id", c_char_p),
                ("context", _PP), ("n_context", c_size_t),
                ("name_style", c_int), ("comparison", c_void_p)]


class _IngestOpts(ctypes.Structure):
    _fields_ = [("sz", c_size_t), ("run_id", c_char_p), ("order", c_char_p),
                ("context", _PP), ("n_context", c_size_t), ("window", c_size_t),
                ("fdr", c_double)]


class _GateOpts(ctypes.Structure):
    _fields_ = [("sz", c_size_t), ("window", c_size_t), ("context", _PP),
                ("n_context", c_size_t), ("fdr", c_double),
                ("allow_missing", c_int), ("order", c_char_p)]


class _HistoryOpts(ctypes.Structure):
    _fields_ = [("sz", c_size_t), ("context", _PP), ("n_context", c_size_t),
                ("series", c_char_p), ("last", c_size_t), ("all_status", c_int),
                ("report", c_void_p)]


def _declare():
    P = ctypes.POINTER
    protos = {
        "ksft_metric_report_errmsg": (c_char_p, []),
        "ksft_metric_report_new": (c_void_p, [P(_Opts)]),
        "ksft_metric_report_free": (None, [c_void_p]),
        "ksft_metric_report_text_free": (None, [c_void_p]),
        "ksft_metric_report_read_buffer": (c_int, [c_void_p, c_char_p, c_size_t,
                                                   c_char_p]),
        "ksft_metric_report_warnings": (c_size_t, [c_void_p, P(P(_Warning)),
                                                   P(c_size_t)]),
        "ksft_metric_report_context_json": (c_char_p, [c_void_p]),
        "ksft_metric_report_series_count": (c_size_t, [c_void_p]),
        "ksft_metric_report_series_get": (c_int, [c_void_p, c_size_t, P(_Series)]),
        "ksft_metric_report_series_points": (c_int, [c_void_p, c_size_t, c_int,
                                                     P(_Points)]),
        "ksft_metric_report_points_release": (None, [P(_Points)]),
        "ksft_metric_report_series_summary": (c_int, [c_void_p, c_size_t, c_char_p,
                                                      P(c_double), c_size_t]),
        "ksft_metric_report_display_unit": (c_int, [c_double, c_char_p, c_char_p,
                                                    P(c_double), P(c_char_p)]),
        "ksft_metric_report_format_ext": (c_int, [c_void_p, c_int, P(_FormatOpts),
                                                  P(c_void_p), P(c_size_t)]),
        "ksft_metric_report_baseline_new": (c_void_p, []),
        "ksft_metric_report_baseline_free": (None, [c_void_p]),
        "ksft_metric_report_baseline_load": (c_int, [c_void_p, c_char_p, c_size_t,
                                                     c_char_p]),
        "ksft_metric_report_baseline_add_report": (c_int, [c_void_p, c_void_p,
                                                           _PP, c_size_t]),
        "ksft_metric_report_baseline_format": (c_int, [c_void_p, P(c_void_p),
                                                       P(c_size_t)]),
        "ksft_metric_report_compare": (c_int, [c_void_p, c_void_p, P(_CompareOpts),
                                               P(c_void_p)]),
        "ksft_metric_report_comparison_free": (None, [c_void_p]),
        "ksft_metric_report_comparison_rows": (c_size_t, [c_void_p]),
        "ksft_metric_report_comparison_context_diff": (c_char_p, [c_void_p]),
        "ksft_metric_report_comparison_row": (c_int, [c_void_p, c_size_t, P(_Row)]),
        "ksft_metric_report_history_redact": (c_char_p, [c_char_p, c_char_p,
                                                         c_size_t]),
        "ksft_metric_report_history_open": (c_int, [c_char_p, P(c_void_p)]),
        "ksft_metric_report_history_close": (None, [c_void_p]),
        "ksft_metric_report_history_ingest": (c_int, [c_void_p, c_void_p, P(_IngestOpts),
                                                      P(c_void_p)]),
        "ksft_metric_report_history_format": (c_int, [c_void_p, P(_HistoryOpts), c_int,
                                                      P(c_void_p), P(c_size_t)]),
        "ksft_metric_report_history_compare": (c_int, [c_void_p, c_void_p, P(_GateOpts),
                                                       P(c_void_p)]),
        "ksft_metric_report_history_check": (c_int, [c_void_p, c_void_p, P(_GateOpts),
                                                     P(c_void_p)]),
    }
    fns = {}
    for name, (restype, argtypes) in protos.items():
        try:
            fn = getattr(_lib, name)
        except AttributeError:
            raise OSError(f"{LIBRARY_PATH} lacks {name}(): not a "
                          "libksftmetric-report of this version") from None
        fn.restype, fn.argtypes = restype, argtypes
        fns[name] = fn
    return fns


_c = _declare()

# The verdicts (code: name people read), as lib/common/verdict_vocab.c
# spells them; tests/cli/test_verdict_vocab.py keeps the two equal.
VERDICTS = {"regression": "REGRESSION", "improvement": "IMPROVEMENT",
            "disturbed": "DISTURBED", "missing": "MISSING", "case_failed": "CASE FAILED",
            "too_noisy": "TOO NOISY",
            "no_change": "NO CHANGE", "new": "NEW", "not_comparable": "NOT COMPARABLE",
            "untracked": "UNTRACKED", "no_history": "NO HISTORY", "accepted": "ACCEPTED"}
_FORMATS = {"text": 0, "json": 1, "csv": 2, "openmetrics": 3, "kcidb": 4, "nipa": 5}
_NAME_STYLES = {"ktap": 0, "nipa": 1}
_PROCESSED, _RAW, _TRANSFORMED = 2, 0, 1
_STAGES = {"raw": _RAW, "transformed": _TRANSFORMED, "processed": _PROCESSED}
_SUMMARIES = ("last", "total", "max", "p50", "p90", "p99")


# --- errors -----------------------------------------------------------------

class ReportError(Exception):
    """A problem with an input: ``file``, ``line`` (0: the whole file), ``reason``."""

    def __init__(self, file: str, line: int, reason: str):
        self.file, self.line, self.reason = file, line, reason
        where = f"{file}:{line}" if line else file
        super().__init__(f"{where}: {reason}")


class HistoryMismatchError(LookupError):
    """A history that cannot judge this run, as ``ksft-metric compare --db``
    refuses it (exit 2; the library's ksft_metric_report_history_check()):
    it holds no run, or holds this run's series only under other contexts,
    or the run's context lacks a key (runner=...) every other machine of
    its series has while its own holds fewer than five runs (a mistyped db,
    a forgotten or mistyped context). ``first_run=True`` says the history
    starts here."""


class InputError(ReportError, ValueError):
    """Bad input in a log read with ``strict=True``."""


class BaselineError(ReportError, ValueError):
    """A baseline file that is not one (the whole file is refused)."""


def _errmsg() -> str:
    return (_c["ksft_metric_report_errmsg"]() or b"").decode("utf-8", "replace")


def _check(ret: int, what: str) -> int:
    if ret >= 0:
        return ret
    msg = _errmsg() or what
    if ret == -errno.ENOMEM:
        raise MemoryError(msg)
    if ret == -errno.ERANGE:
        raise IndexError(msg)
    raise ValueError(msg)


def _check_db(ret: int, what: str) -> int:
    """History calls: database trouble is an OSError with its errno."""
    if ret >= 0:
        return ret
    if -ret in (errno.ENOMEM, errno.EINVAL, errno.ERANGE):
        return _check(ret, what)
    raise OSError(-ret, f"{what}: {_errmsg() or os.strerror(-ret)}")


# What the C side takes: a size_t (the CLI's limits), a double in a range
# (0: the default) and NUL-free UTF-8 text; checked here so that a bad
# argument is a ValueError or TypeError naming it, never a wrapped size_t,
# a silent default or a string cut at its first NUL.
_MAX_WINDOW, _MAX_LAST = 100000, 10000000


def _size_arg(what: str, v, limit: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"{what} must be an int, not {type(v).__name__}")
    if not 0 <= v <= limit:
        raise ValueError(f"{what} must be 0 (the default) to {limit}, not {v}")
    return v


def _fdr_arg(v) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"fdr must be a number, not {type(v).__name__}")
    if not (v == 0 or 1e-9 <= v <= 0.5):
        raise ValueError(f"fdr must be 0 (the default) or in [1e-9, 0.5], not {v}")
    return float(v)


def _text_arg(what: str, v) -> Optional[bytes]:
    if v is None:
        return None
    if not isinstance(v, str):
        raise TypeError(f"{what} must be a str, not {type(v).__name__}")
    if "\0" in v:
        # A url is not quoted back: it may carry a password.
        shown = "" if what == "url" else f" {v!r}"
        raise ValueError(f"{what}{shown} holds a NUL character")
    return v.encode("utf-8", "surrogateescape")


def _report_arg(v) -> "Report":
    if not isinstance(v, Report):
        raise TypeError(f"report must be a Report, not {type(v).__name__}")
    return v


def _strings(items) -> Tuple[ctypes.Array, int]:
    """A "KEY=VALUE" C array from a dict (or a list of such strings)."""
    if isinstance(items, dict):
        items = [f"{k}={v}" for k, v in items.items()]
    enc = [_text_arg("a context item", str(x)) for x in (items or [])]
    return (c_char_p * (len(enc) + 1))(*enc), len(enc)


def _s(b: Optional[bytes]) -> Optional[str]:
    return None if b is None else b.decode("utf-8", "replace")


def _num(x: float) -> Optional[float]:
    return None if math.isnan(x) else x


def _path(pp, n) -> Tuple[str, ...]:
    return tuple(pp[i].decode("utf-8", "replace") for i in range(n))


def _title(path, case, name, labels, element=None) -> str:
    lab = ",".join(f"{k}={v}" for k, v in labels.items())
    t = " / ".join(list(path) + [case]) + " " + name + (f"{{{lab}}}" if lab else "")
    return t + (f"[{element}]" if element is not None else "")


def _name_arg(name) -> bytes:
    if not isinstance(name, str):
        raise TypeError(f"an input name must be a str, not {type(name).__name__}")
    return name.encode("utf-8", "surrogateescape")


# --- values -----------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class InputWarning:
    """Something wrong in an input, which was skipped: where and why."""
    file: str
    line: int
    reason: str

    def __str__(self):
        return f"{self.file}:{self.line}: {self.reason}" if self.line else \
            f"{self.file}: {self.reason}"


@dataclasses.dataclass(frozen=True)
class Policy:
    """A metric's processing policy (``ktap-metric-policy-json``)."""
    summarize: str
    transform: Optional[str]
    aggregation: Optional[str]
    compare: Optional[str]
    better: Optional[str]
    relative_tolerance: Optional[float]
    absolute_tolerance: Optional[float]
    display_min: Optional[float]
    display_max: Optional[float]
    display_scale: Optional[float]
    display_label: Optional[str]
    raw: dict                     # the policy object as logged (canonical)


@dataclasses.dataclass(frozen=True)
class Points:
    """A series' points at one stage: ``times[i]`` (None if not logged) and
    ``values[i]`` (a float, or a list with None for missing entries)."""
    times: List[Optional[float]]
    values: List[Union[float, List[Optional[float]]]]

    def __len__(self):
        return len(self.values)

    def __iter__(self):
        return iter(zip(self.times, self.values))


@dataclasses.dataclass(frozen=True)
class Series:
    """One series: identity (path, case, name, labels), status, policy and
    summary (one dict per element for arrays, None without processed points)."""
    index: int
    path: Tuple[str, ...]
    case: str
    name: str
    labels: Dict[str, object]
    shape: str
    status: str
    status_reason: Optional[str]
    abort_reason: Optional[str]
    source: str
    n_points: int
    is_array: bool
    policy: Optional[Policy]
    summarize: str
    summary: Union[None, Dict[str, float], List[Optional[Dict[str, float]]]]
    _report: "Report" = dataclasses.field(repr=False, compare=False)

    @property
    def title(self) -> str:
        return _title(self.path, self.case, self.name, self.labels)

    @property
    def unit(self) -> Optional[str]:
        """The display unit every output shows (doc/consumer.rst, "Units"):
        ``display_label`` as written, "busy cores" when the policy
        aggregates, None without a label. Values times ``scale`` are in it."""
        return self._display()[0]

    @property
    def scale(self) -> float:
        """The factor from the metric's own numbers to ``unit``."""
        return self._display()[1]

    def _display(self):
        p = self.policy
        label = p.display_label.encode() if p and p.display_label else None
        agg = p.aggregation.encode() if p and p.aggregation else None
        scale, unit = c_double(), c_char_p()
        _check(_c["ksft_metric_report_display_unit"](
            p.display_scale if p and p.display_scale is not None else math.nan,
            label, agg, ctypes.byref(scale), ctypes.byref(unit)), "display_unit")
        # unit points into label (kept alive here) or a static string.
        return _s(unit.value), scale.value

    def points(self, stage: str = "raw") -> Points:
        """The points ``raw``, ``transformed`` or ``processed`` (after the
        aggregation too): what was logged, what is summarized."""
        if stage not in _STAGES:
            raise ValueError(f"stage must be one of {', '.join(_STAGES)}, not {stage!r}")
        stage_n = _STAGES[stage]
        # busy-core-equivalents turns each array into one number.
        arrays = self.is_array and not (stage_n == _PROCESSED and self.policy
                                        and self.policy.aggregation)
        return self._report._points(self.index, stage_n, arrays)


@dataclasses.dataclass(frozen=True)
class Row:
    """One compared series (or array element) and its verdict."""
    path: Tuple[str, ...]
    case: str
    name: str
    labels: Dict[str, object]
    element: Optional[int]
    compare: str
    better: Optional[str]
    baseline: Optional[float]
    current: Optional[float]
    change_pct: Optional[float]
    allowance: Optional[float]
    p_value: Optional[float]
    n_baseline: int
    n_current: int
    baseline_runs: int
    verdict: str           # one of VERDICTS
    fails: bool

    @property
    def title(self) -> str:
        return _title(self.path, self.case, self.name, self.labels, self.element)


class Comparison:
    """The rows of a comparison with baselines; iterate for every row."""

    def __init__(self, handle, report):
        self._h = handle
        self._report = report        # the rows' strings live in the handle
        self.rows: List[Row] = [self._row(i) for i in range(
            _c["ksft_metric_report_comparison_rows"](handle))]

    def _row(self, i) -> Row:
        r = _Row()
        r.sz = ctypes.sizeof(_Row)
        _check(_c["ksft_metric_report_comparison_row"](self._h, i, ctypes.byref(r)),
               "comparison_row")
        return Row(path=_path(r.path, r.path_len), case=_s(r.case_name),
                   name=_s(r.name), labels=json.loads(r.labels_json),
                   element=None if r.element < 0 else r.element,
                   compare=_s(r.compare), better=_s(r.better),
                   baseline=_num(r.baseline), current=_num(r.current),
                   change_pct=_num(r.change_pct), allowance=_num(r.allowance),
                   p_value=_num(r.p_value), n_baseline=r.n_baseline,
                   n_current=r.n_current, baseline_runs=r.baseline_runs,
                   verdict=_s(r.verdict), fails=bool(r.fails))

    def __iter__(self) -> Iterator[Row]:
        return iter(self.rows)

    def __len__(self):
        return len(self.rows)

    @property
    def context_mismatch(self) -> Optional[str]:
        """How the baseline and the run were measured differently, when
        judged anyway (allow_context_mismatch); None when alike."""
        return _s(_c["ksft_metric_report_comparison_context_diff"](self._h))

    @property
    def failing(self) -> List[Row]:
        """Rows that fail the gate (``ksft-metric compare`` exits 1 on any)."""
        return [r for r in self.rows if r.fails]

    @property
    def regressions(self) -> List[Row]:
        return [r for r in self.rows if r.verdict == "regression"]

    def __del__(self):
        h, self._h = getattr(self, "_h", None), None
        if h:
            _c["ksft_metric_report_comparison_free"](h)


# --- the report -------------------------------------------------------------


class Report:
    """Series read from one or more inputs (all inputs are one run)."""

    def __init__(self, *, max_line: int = 0, max_warnings: int = 0):
        opts = _Opts(ctypes.sizeof(_Opts), max_line, max_warnings)
        self._h = _c["ksft_metric_report_new"](ctypes.byref(opts))
        if not self._h:
            raise MemoryError(_errmsg())
        self._names: List[str] = []
        self._cache: Optional[List[Series]] = None

    @classmethod
    def read(cls, *sources, strict: bool = False, name: Optional[str] = None,
             **opts) -> "Report":
        """A report of @sources (paths, binary file objects or bytes)."""
        report = cls(**opts)
        for src in sources:
            report.add(src, strict=strict, name=name)
        return report

    def add(self, source, *, strict: bool = False, name: Optional[str] = None) -> int:
        """Read one more input: a path, a file object opened in binary mode
        (``sys.stdin.buffer``) or ``bytes``. @name is what warnings call it
        (default: the path, the file object's name, or "<bytes>"). With
        @strict the first warning of this input raises InputError. Returns
        the number of metric points kept."""
        if isinstance(source, (bytes, bytearray, memoryview)):
            data, label = bytes(source), name or "<bytes>"
        elif isinstance(source, (str, os.PathLike)):
            with open(source, "rb") as f:
                data = f.read()
            label = name or os.fspath(source)
        elif hasattr(source, "read"):
            data = source.read()
            if isinstance(data, str):
                raise TypeError("a file object must be opened in binary mode "
                                "(the library reads bytes)")
            label = name or str(getattr(source, "name", "<stream>"))
        else:
            raise TypeError("an input is a path, a binary file object or bytes, "
                            f"not {type(source).__name__}")
        if not isinstance(label, str):
            label = os.fsdecode(label)
        before = self._warning_count()
        n = _check(_c["ksft_metric_report_read_buffer"](
            self._h, data, len(data), _name_arg(label)), f"reading {label}")
        self._names.append(label)
        self._cache = None
        if strict:
            new = self.warnings[before:]
            if new:
                w = new[0]
                raise InputError(w.file, w.line, w.reason)
        return n

    def _warning_count(self) -> int:
        total = c_size_t()
        lst = ctypes.POINTER(_Warning)()
        _c["ksft_metric_report_warnings"](self._h, ctypes.byref(lst),
                                          ctypes.byref(total))
        return total.value

    @property
    def warnings(self) -> List[InputWarning]:
        """What was wrong in the inputs and skipped (the first 1000 kept)."""
        lst = ctypes.POINTER(_Warning)()
        n = _c["ksft_metric_report_warnings"](self._h, ctypes.byref(lst), None)
        return [InputWarning(_s(lst[i].file), lst[i].line, _s(lst[i].reason))
                for i in range(n)]

    @property
    def warnings_total(self) -> int:
        """Warnings including those beyond the kept ones."""
        return self._warning_count()

    @property
    def context(self) -> dict:
        """The run context the logs carried (ktap-metric-context-json)."""
        return json.loads(_c["ksft_metric_report_context_json"](self._h))

    @property
    def sources(self) -> List[str]:
        return list(self._names)

    def __len__(self) -> int:
        return _c["ksft_metric_report_series_count"](self._h)

    def __iter__(self) -> Iterator[Series]:
        return iter(self.series)

    def __getitem__(self, i: int) -> Series:
        return self.series[i]

    @property
    def series(self) -> List[Series]:
        if self._cache is None:
            self._cache = [self._series(i) for i in range(len(self))]
        return self._cache

    def find(self, name: str, **labels) -> List[Series]:
        """Series of metric @name whose labels include @labels."""
        return [s for s in self.series if s.name == name and
                all(s.labels.get(k) == v for k, v in labels.items())]

    def _series(self, i: int) -> Series:
        s = _Series()
        s.sz = ctypes.sizeof(_Series)
        _check(_c["ksft_metric_report_series_get"](self._h, i, ctypes.byref(s)),
               "series_get")
        pol = None
        if s.policy_json:
            pol = Policy(summarize=_s(s.summarize), transform=_s(s.transform),
                         aggregation=_s(s.aggregation), compare=_s(s.compare),
                         better=_s(s.better),
                         relative_tolerance=_num(s.relative_tolerance),
                         absolute_tolerance=_num(s.absolute_tolerance),
                         display_min=_num(s.display_min),
                         display_max=_num(s.display_max),
                         display_scale=_num(s.display_scale),
                         display_label=_s(s.display_label),
                         raw=json.loads(s.policy_json))
        return Series(index=i, path=_path(s.path, s.path_len), case=_s(s.case_name),
                      name=_s(s.name), labels=json.loads(s.labels_json),
                      shape=_s(s.shape), status=_s(s.status),
                      status_reason=_s(s.status_reason),
                      abort_reason=_s(s.abort_reason), source=_s(s.source),
                      n_points=s.points, is_array=bool(s.is_array), policy=pol,
                      summarize=_s(s.summarize),
                      summary=self._summary(i, _s(s.summarize), bool(s.is_array)
                                            and not s.aggregation),
                      _report=self)

    def _summary(self, i: int, summarize: str, is_array: bool):
        """As ``ksft-metric report`` shows it (distribution: p50, p90, p99
        and max, or last for a single point)."""
        pts = self._points(i, _PROCESSED, is_array)
        if not len(pts):
            return None
        if summarize != "distribution":
            ops = (summarize,)
        elif len(pts) == 1:
            ops = ("last",)
        else:
            ops = ("p50", "p90", "p99", "max")
        width = max([1] + [len(v) for v in pts.values if isinstance(v, list)])
        out = (c_double * width)()
        per_op = {}
        for op in ops:
            n = _check(_c["ksft_metric_report_series_summary"](
                self._h, i, op.encode(), out, width), "series_summary")
            per_op[op] = [_num(out[e]) for e in range(min(n, width))]
        elems = [{op: per_op[op][e] for op in ops} for e in range(len(per_op[ops[0]]))]
        elems = [None if all(v is None for v in d.values()) else d for d in elems]
        return elems if is_array else elems[0]

    def _points(self, i: int, stage: int, is_array: bool) -> Points:
        p = _Points()
        _check(_c["ksft_metric_report_series_points"](self._h, i, stage,
                                                      ctypes.byref(p)), "series_points")
        try:
            times = [_num(p.t[k]) for k in range(p.n)]
            if is_array:
                values = [[_num(p.v[j]) for j in range(p.off[k], p.off[k + 1])]
                          for k in range(p.n)]
            else:
                values = [_num(p.v[p.off[k]]) if p.off[k + 1] > p.off[k] else None
                          for k in range(p.n)]
        finally:
            _c["ksft_metric_report_points_release"](ctypes.byref(p))
        return Points(times, values)

    # -- output and comparison --

    def format(self, fmt: str = "text", *, name_style: str = "ktap",
               origin: Optional[str] = None, build_id: Optional[str] = None,
               start_time: Optional[str] = None, run_id: Optional[str] = None,
               context: Optional[Dict[str, str]] = None,
               comparison: Optional[Comparison] = None) -> str:
        """What ``ksft-metric report --format FMT`` prints."""
        if fmt not in _FORMATS:
            raise ValueError(f"format must be one of {', '.join(_FORMATS)}, not {fmt!r}")
        if name_style not in _NAME_STYLES:
            raise ValueError(f"name_style must be ktap or nipa, not {name_style!r}")
        arr, n = _strings(context)
        enc = lambda x: None if x is None else str(x).encode()  # noqa: E731
        o = _FormatOpts(ctypes.sizeof(_FormatOpts), enc(origin), enc(build_id),
                        enc(start_time), enc(run_id), arr, n,
                        _NAME_STYLES[name_style], comparison._h if comparison else None)
        out, n = c_void_p(), c_size_t()
        _check(_c["ksft_metric_report_format_ext"](self._h, _FORMATS[fmt], ctypes.byref(o),
                                                   ctypes.byref(out), ctypes.byref(n)),
               "format")
        try:
            return ctypes.string_at(out, n.value).decode("utf-8", "replace")
        finally:
            _c["ksft_metric_report_text_free"](out)

    def baseline(self) -> str:
        """This report as a baseline file with one run (``ksft-metric save``)."""
        b = _new_baseline()
        try:
            srcs = [n.encode() for n in self._names]
            _check(_c["ksft_metric_report_baseline_add_report"](
                b, self._h, (c_char_p * (len(srcs) + 1))(*srcs), len(srcs)), "baseline")
            return _baseline_text(b)
        finally:
            _c["ksft_metric_report_baseline_free"](b)

    def compare(self, baselines: Sequence = (), *, db=None,
                tolerance: Optional[float] = None, alpha: float = 0.05,
                allow_missing: bool = False, window: int = 0, fdr: float = 0.0,
                context: Optional[Dict[str, str]] = None,
                order: Optional[str] = None, first_run: bool = False,
                max_tolerance: Optional[float] = None,
                allow_context_mismatch: bool = False) -> Comparison:
        """Compare with the pooled runs of @baselines (paths, binary file
        objects, bytes or Reports), as ``ksft-metric compare`` does; or,
        with @db (a History or its URL), with the run history as
        ``ksft-metric compare --db`` does (@window, @fdr, @context,
        @order are the history gate's; @tolerance and @alpha are the
        baselines': with repeats on both sides a change needs
        Mann-Whitney p < @alpha, else it is too noisy; 0 turns that off;
        @max_tolerance, percent, tightens every series, a policy's too; a
        baseline measured otherwise (another clock, CPU model or count,
        QEMU, icount shift) is a ValueError naming the keys unless
        @allow_context_mismatch, then Comparison.context_mismatch says it).
        A @db path is never created: one that holds nothing is
        FileNotFoundError, a file that is no SQLite database ValueError, and
        a history that cannot judge the run HistoryMismatchError, as the
        CLI's errors; @first_run (``--first-run``) says the history starts
        here: every series new."""
        if baselines is None:
            raise TypeError("baselines must be paths, file objects, bytes or Reports, "
                            "not None")
        if db is not None:
            if baselines:
                raise ValueError("compare against baselines or a history db, not both")
            kw = dict(window=window, fdr=fdr, context=context, order=order,
                      allow_missing=allow_missing, first_run=first_run)
            if isinstance(db, History):
                return db.compare(self, **kw)
            if not _history_there(db, first_run):
                # Nothing there, and first_run says so: every series new,
                # against no run (the CLI's --first-run); no file made.
                return self.compare((), allow_missing=allow_missing)
            with History(db) as h:
                return h.compare(self, **kw)
        if isinstance(baselines, (str, bytes, os.PathLike, Report)):
            baselines = [baselines]
        b = _new_baseline()
        try:
            for src in baselines:
                _load_baseline(b, src)
            if max_tolerance is not None and not float(max_tolerance) > 0:
                raise ValueError(f"max_tolerance must be above 0 percent, not {max_tolerance!r}")
            opts = _CompareOpts(ctypes.sizeof(_CompareOpts),
                                -1.0 if tolerance is None else float(tolerance),
                                float(alpha), int(bool(allow_missing)),
                                0.0 if max_tolerance is None else float(max_tolerance), None,
                                int(bool(allow_context_mismatch)))
            h = c_void_p()
            _check(_c["ksft_metric_report_compare"](self._h, b, ctypes.byref(opts),
                                                    ctypes.byref(h)), "compare")
            return Comparison(h.value, self)
        finally:
            _c["ksft_metric_report_baseline_free"](b)

    def __del__(self):
        h, self._h = getattr(self, "_h", None), None
        if h:
            _c["ksft_metric_report_free"](h)


class History:
    """A run history (a SQLite file path or a ``postgresql://`` URL), as
    ``ksft-metric ingest`` / ``compare --db`` / ``history`` use it. One
    connection: use it from one thread at a time. A context manager."""

    def __init__(self, url: Union[str, os.PathLike]):
        self._h = None
        if not isinstance(url, (str, os.PathLike)):
            raise TypeError(f"url must be a str or a path, not {type(url).__name__}")
        self.url = os.fspath(url)
        if isinstance(self.url, bytes):
            self.url = os.fsdecode(self.url)
        enc = _text_arg("url", self.url)
        buf = ctypes.create_string_buffer(512)
        # What messages show: no credentials (the library's one redaction).
        self._shown = (_c["ksft_metric_report_history_redact"](
            enc, buf, len(buf)) or b"").decode("utf-8", "replace")
        h = c_void_p()
        _check_db(_c["ksft_metric_report_history_open"](
            enc, ctypes.byref(h)), f"opening {self._shown}")
        self._h = h.value

    def _handle(self):
        if not self._h:
            raise ValueError(f"the history {self._shown} is closed")
        return self._h

    def ingest(self, report: Report, *, run_id: Optional[str] = None,
               order: Optional[str] = None,
               context: Optional[Dict[str, str]] = None,
               window: int = 0, fdr: float = 0.0) -> str:
        """Store @report as one run; returns its run id. A run of the same
        content stored already (the same context and series, whatever
        @order; with @run_id, that run) is not stored again: its id is
        returned (a retry is idempotent). FileExistsError when @run_id is
        there with other content."""
        _report_arg(report)
        arr, n = _strings(context)
        o = _IngestOpts(ctypes.sizeof(_IngestOpts), _text_arg("run_id", run_id),
                        _text_arg("order", order), arr, n,
                        _size_arg("window", window, _MAX_WINDOW), _fdr_arg(fdr))
        out = c_void_p()
        ret = _c["ksft_metric_report_history_ingest"](
            self._handle(), report._h, ctypes.byref(o), ctypes.byref(out))
        if not (ret == -errno.EALREADY and out.value):
            _check_db(ret, "ingest")
        try:
            return ctypes.string_at(out).decode("utf-8")
        finally:
            _c["ksft_metric_report_text_free"](out)

    def compare(self, report: Report, *, window: int = 0, fdr: float = 0.0,
                context: Optional[Dict[str, str]] = None,
                order: Optional[str] = None,
                allow_missing: bool = False, first_run: bool = False) -> Comparison:
        """Judge @report against its history (read-only). A history that
        cannot judge it (no run at all, or its series only under other
        contexts) is HistoryMismatchError naming the contexts found, as
        ``ksft-metric compare --db`` refuses it, unless @first_run."""
        _report_arg(report)
        arr, n = _strings(context)
        o = _GateOpts(ctypes.sizeof(_GateOpts), _size_arg("window", window, _MAX_WINDOW),
                      arr, n, _fdr_arg(fdr), int(bool(allow_missing)),
                      _text_arg("order", order))
        h = c_void_p()
        _check_db(_c["ksft_metric_report_history_compare"](
            self._handle(), report._h, ctypes.byref(o), ctypes.byref(h)), "compare")
        c = Comparison(h.value, report)
        if not first_run:
            self._check_usable(report, o)
        return c

    # What a caller can do about each answer of ksft_metric_report_history_check()
    # (1: no run, 2: other contexts only, 3: a context key missing).
    _UNUSABLE_HINTS = {
        1: " (a mistyped db? on a CI's first run, first_run=True says the history "
           "starts here)",
        2: " (a mistyped or forgotten context? first_run=True says the history starts "
           "here)",
        3: " (a forgotten or mistyped context key? first_run=True says this run's "
           "context starts here)",
    }

    def _check_usable(self, report: "Report", o: "_GateOpts"):
        """The library's answer (ksft_metric_report_history_check(), as the
        CLI's): a history that cannot judge this run is an error."""
        why = c_void_p()
        fit = _check_db(_c["ksft_metric_report_history_check"](
            self._handle(), report._h, ctypes.byref(o), ctypes.byref(why)), "compare")
        try:
            text = ctypes.string_at(why).decode("utf-8", "replace") if why.value else ""
        finally:
            _c["ksft_metric_report_text_free"](why)
        if fit:
            raise HistoryMismatchError(text + self._UNUSABLE_HINTS.get(fit, ""))

    def format(self, fmt: str = "text", *, series: Optional[str] = None,
               context: Optional[Dict[str, str]] = None, last: int = 0,
               all_status: bool = False) -> str:
        """Each series' compare value run by run (``ksft-metric history``):
        ``text``, ``json`` or ``csv``."""
        if fmt not in ("text", "json", "csv"):
            raise ValueError(f"format must be text, json or csv, not {fmt!r}")
        arr, n = _strings(context)
        o = _HistoryOpts(ctypes.sizeof(_HistoryOpts), arr, n, _text_arg("series", series),
                         _size_arg("last", last, _MAX_LAST), int(bool(all_status)))
        out, ln = c_void_p(), c_size_t()
        _check_db(_c["ksft_metric_report_history_format"](
            self._handle(), ctypes.byref(o), _FORMATS[fmt], ctypes.byref(out),
            ctypes.byref(ln)), "history")
        try:
            return ctypes.string_at(out, ln.value).decode("utf-8", "replace")
        finally:
            _c["ksft_metric_report_text_free"](out)

    def close(self):
        h, self._h = getattr(self, "_h", None), None
        if h:
            _c["ksft_metric_report_history_close"](h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    __del__ = close


def _history_there(db, first_run: bool) -> bool:
    """Does @db (a path or URL) hold a history to judge against? A server's
    URL is opened to tell. A path that does not exist or is an empty file
    is FileNotFoundError (False with @first_run), anything
    but a SQLite file ValueError: a compare never creates a history."""
    url = os.fsdecode(os.fspath(db)) if isinstance(db, (str, bytes, os.PathLike)) else db
    if not isinstance(url, str) or url.startswith(("postgresql://", "postgres://")):
        return True
    try:
        with open(url, "rb") as f:
            head = f.read(16)
    except FileNotFoundError:
        head = b""
    except IsADirectoryError:
        raise IsADirectoryError(errno.EISDIR, f"{url}: a directory, not a run history",
                                url) from None
    if not head:
        if first_run:
            return False
        raise FileNotFoundError(errno.ENOENT, f"{url}: no run history there (a mistyped "
                                "db? History.ingest creates one; on a CI's first run "
                                "first_run=True says the history starts here)", url)
    if head != b"SQLite format 3\0":
        raise ValueError(f"{url}: not a run history (not a SQLite database; "
                         "History.ingest writes one)")
    return True


def _new_baseline():
    b = _c["ksft_metric_report_baseline_new"]()
    if not b:
        raise MemoryError(_errmsg())
    return b


def _baseline_text(b) -> str:
    out, n = c_void_p(), c_size_t()
    _check(_c["ksft_metric_report_baseline_format"](b, ctypes.byref(out),
                                                    ctypes.byref(n)), "baseline")
    try:
        return ctypes.string_at(out, n.value).decode("utf-8")
    finally:
        _c["ksft_metric_report_text_free"](out)


def _load_baseline(b, src):
    if isinstance(src, Report):
        _check(_c["ksft_metric_report_baseline_add_report"](b, src._h, None, 0),
               "baseline")
        return
    if isinstance(src, (bytes, bytearray, memoryview)):
        data, name = bytes(src), "<bytes>"
    elif isinstance(src, (str, os.PathLike)):
        with open(src, "rb") as f:
            data = f.read()
        name = os.fspath(src)
    elif hasattr(src, "read"):
        data, name = src.read(), str(getattr(src, "name", "<stream>"))
    else:
        raise TypeError("a baseline is a path, a binary file object, bytes or a "
                        f"Report, not {type(src).__name__}")
    ret = _c["ksft_metric_report_baseline_load"](b, data, len(data), _name_arg(name))
    if ret == -errno.EINVAL:
        # "NAME:LINE: reason" (malformed JSON) or "NAME: reason".
        msg = _errmsg()
        m = re.match(re.escape(name) + r":(\d+): (.*)$", msg, re.S)
        if m:
            raise BaselineError(name, int(m.group(1)), m.group(2))
        raise BaselineError(name, 0, msg[len(name) + 2:] if msg.startswith(name + ": ")
                            else msg)
    _check(ret, "baseline_load")


def read(*sources, strict: bool = False, **opts) -> Report:
    """``Report.read()``: one report of every input."""
    return Report.read(*sources, strict=strict, **opts)
