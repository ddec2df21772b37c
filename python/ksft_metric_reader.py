# SPDX-License-Identifier: GPL-2.0
"""Read the performance metrics of a KTAP log with the standard library only.

A single module a collector can vendor (it imports nothing of libksftmetric
and loads no C code): it parses ``ktap-metric-json`` and
``ktap-metric-policy-json`` lines at any nesting (``# `` per
run_kselftest.sh level, four spaces per KTAP v1 subtest level), attaches
them to the next result line at their depth, applies each metric's policy
(transform, aggregation, summaries) and returns one record per test case,
keyed as NIPA keys its results: ``group`` (``selftests-`` + namify(target)),
``test`` (namify(program)) and ``subtest`` (namify(case)). The records are
those of ``ksft-metric report --format nipa`` (without verdicts), and the
``reader_vs_report`` test holds the two to the same output::

    import ksft_metric_reader

    log = ksft_metric_reader.read("ktap.log")
    for (group, test, subtest), result in log.by_key().items():
        for m in result["metrics"]:
            print(subtest, m["name"], m["labels"], m["summary"])

Each metric has ``unit`` and ``scale``, the series' display unit as every
output of ``ksft-metric`` shows it: ``value`` and ``summary`` times
``scale`` are in ``unit`` (the ``display_label`` as written, ``"busy
cores"`` for an aggregated series, ``None`` without a label).

``read()`` takes a path, a binary file or bytes; bad lines become
``warnings`` (``(file, line, text)``), never exceptions. Run as a script it
prints the NIPA sidecar of the files given.
"""

import json
import math
import re
import sys

__all__ = ["read", "Log", "namify", "nipa_names"]

MAX_DEPTH = 32
MAX_LINE = 16 << 20
INCOMPLETE = "incomplete"

# Summaries in the report's order, and which may be a regression's compare.
OPS = ("last", "total", "max", "p50", "p90", "p99", "distribution")
STATUS_WORDS = (("SKIP", "skip"), ("XFAIL", "xfail"), ("XPASS", "xpass"),
                ("TODO", "todo"), ("TIMEOUT", "timeout"), ("ERROR", "error"))
_INT64 = (-(1 << 63), (1 << 63) - 1)


def namify(s):
    """NIPA's namify(): runs of other than [0-9a-zA-Z] become one "-"."""
    out = re.sub(r"[^0-9a-zA-Z]+", "-", s)
    if out.endswith("-"):
        out = out[:-1]
    return out or "no-name"


def nipa_names(path, case):
    """(group, test, subtest) of a case under @path (outermost first)."""
    group = test = None
    rest = list(path)
    if rest:
        m = re.match(r"selftests: (.*?): (.*)\Z", rest[0], re.S)
        if m:
            group = "selftests-" + namify(m.group(1))
            test = namify(m.group(2))
        else:
            test = namify(rest[0])
        rest = rest[1:]
    return group, test, namify(" ".join(rest + [case]))


# ---- text ----------------------------------------------------------------

# C0 (but tab), DEL and C1 (U+0080-U+009F): what canon_text_dup() replaces.
_CONTROLS = {c: "?" for c in list(range(0x20)) + [0x7f] + list(range(0x80, 0xa0))
             if c != 9}
_UTF8 = re.compile(rb"[\x00-\x7f]|[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]"
                   rb"|[\xe1-\xec\xee\xef][\x80-\xbf]{2}|\xed[\x80-\x9f][\x80-\xbf]"
                   rb"|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}"
                   rb"|\xf4[\x80-\x8f][\x80-\xbf]{2}|(.)", re.S)


def _text(b):
    """Printable text as the report keeps it: controls and bad bytes -> "?"."""
    if isinstance(b, str):
        return b.translate(_CONTROLS)
    try:
        s = b.decode("utf-8")
    except UnicodeDecodeError:
        s = "".join("?" if m.group(1) is not None else m.group(0).decode("utf-8")
                    for m in _UTF8.finditer(b))
    return s.translate(_CONTROLS)


class _Bad(ValueError):
    pass


def _reject_constant(s):
    raise _Bad(f"invalid token {s}")


def _no_dups(pairs):
    d = {}
    for k, v in pairs:
        if k in d:
            raise _Bad(f"duplicate object key {k}")
        d[k] = v
    return d


_SURROGATE_OR_NUL = re.compile("[\x00\ud800-\udfff]")


def _check_strings(v):
    if isinstance(v, str):
        if _SURROGATE_OR_NUL.search(v):
            raise _Bad("invalid string")
    elif isinstance(v, dict):
        for k, x in v.items():
            _check_strings(k)
            _check_strings(x)
    elif isinstance(v, list):
        for x in v:
            _check_strings(x)


def _numbers_ok(v):
    """jansson's number limits: integers within int64, reals finite."""
    if isinstance(v, float):
        return math.isfinite(v)
    if isinstance(v, int):
        return _INT64[0] <= v <= _INT64[1]
    items = v.values() if isinstance(v, dict) else v if isinstance(v, list) else ()
    if isinstance(v, list) and set(map(type, v)) <= {float, type(None)}:
        return math.inf not in v and -math.inf not in v
    return all(map(_numbers_ok, items))


def _loads(b, dups=False):
    """JSON text as jansson reads it: an object or array, int64 integers,
    finite reals, UTF-8 without NUL or lone surrogates; a repeated key is
    an error unless @dups (then the last one counts)."""
    try:
        s = b.decode("utf-8")
        v = json.loads(s, object_pairs_hook=None if dups else _no_dups,
                       parse_constant=_reject_constant)
    except (ValueError, RecursionError) as e:
        raise _Bad(str(e)) from None
    if not isinstance(v, (dict, list)):
        raise _Bad("'[' or '{' expected")
    try:
        if not _numbers_ok(v):
            raise _Bad("number out of range")
    except RecursionError:
        raise _Bad("too deeply nested") from None
    # Only an escape can spell a NUL or a lone surrogate.
    if "\\u" in s:
        _check_strings(v)
    return v


def _is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _canon(v):
    return json.dumps(v, sort_keys=True, separators=(",", ":"))


# ---- policies ------------------------------------------------------------

class _Policy:
    __slots__ = ("summarize", "transform", "aggregation", "compare", "better",
                 "rel", "abs", "dmin", "dmax", "scale", "label")

    def __init__(self):
        self.summarize = "total"
        self.transform = self.aggregation = self.compare = self.label = None
        self.better = 0
        self.rel = self.abs = self.dmin = self.dmax = self.scale = math.nan

    def key(self):
        return tuple("nan" if isinstance(x, float) and math.isnan(x) else x
                     for x in (getattr(self, k) for k in self.__slots__))


def _policy(obj):
    """A policy object as the report decodes it; _Bad(why) if ignored."""
    p = _Policy()
    for k, v in obj.items():
        if k == "name" or v is None:
            continue
        if k == "regression":
            if not isinstance(v, dict):
                raise _Bad("regression must be an object")
            for rk, rv in v.items():
                if rk == "compare":
                    if not isinstance(rv, str) or rv not in OPS[:6]:
                        raise _Bad(f"unknown regression compare value {rv!r}")
                    p.compare = rv
                elif rk == "better":
                    if rv not in ("higher", "lower"):
                        raise _Bad(f"unknown regression better value {rv!r}")
                    p.better = 1 if rv == "higher" else -1
                elif rk in ("relative_tolerance", "absolute_tolerance"):
                    if not _is_num(rv) or not rv >= 0:
                        raise _Bad(f"unknown regression {rk} value {rv!r}")
                    setattr(p, "rel" if rk[0] == "r" else "abs", float(rv))
            if not p.compare or not p.better:
                raise _Bad('regression needs "compare" and "better"')
        elif k == "display_range":
            if not isinstance(v, dict):
                raise _Bad("display_range must be an object")
            for rk in ("min", "max"):
                if rk in v:
                    if not _is_num(v[rk]):
                        raise _Bad(f"display_range.{rk} must be a number")
                    setattr(p, "d" + rk, float(v[rk]))
            if p.dmin > p.dmax:
                raise _Bad("display_range min is above max")
        elif k == "summarize":
            if not isinstance(v, str) or v not in OPS:
                raise _Bad(f"unknown summarize value {v!r}")
            p.summarize = v
        elif k == "transform":
            if v != "rate":
                raise _Bad(f"unknown transform value {v!r}")
            p.transform = v
        elif k == "aggregation":
            if v != "busy-core-equivalents":
                raise _Bad(f"unknown aggregation value {v!r}")
            p.aggregation = v
        elif k == "display_scale":
            if not _is_num(v) or not v > 0:
                raise _Bad(f"unknown display_scale value {v!r}")
            p.scale = float(v)
        elif k == "display_label":
            if not isinstance(v, str) or not v:
                raise _Bad(f"unknown display_label value {v!r}")
            p.label = _text(v)
    return p


# ---- processing ----------------------------------------------------------

def _padded(rows, width):
    """Rows of one width, NaN where an array was shorter."""
    return [v if len(v) == width else v + [math.nan] * (width - len(v))
            for v in rows]


def _process(points, is_array, pol):
    """(time, value) points after the policy's transform and aggregation;
    arrays stay lists (NaN for a missing entry)."""
    out = points
    rate = pol is not None and pol.transform == "rate"
    if rate:
        out = []
        for (t0, v0), (t1, v1) in zip(points, points[1:]):
            dt = t1 - t0
            if not dt > 0:
                continue
            if not is_array:
                d = v1 - v0
                if d >= 0:
                    out.append((t1, d / dt))
                continue
            if len(v0) != len(v1):
                v0, v1 = _padded([v0, v1], max(len(v0), len(v1)))
            # NaN (a missing entry) fails d >= 0 as well
            out.append((t1, [(b - a) / dt if b - a >= 0 else math.nan
                             for a, b in zip(v0, v1)]))
    if pol is not None and pol.aggregation == "busy-core-equivalents":
        agg = []
        for t, v in out:
            vals = v if is_array else [v]
            kept = [x for x in vals if not math.isnan(x)]
            if kept:
                s = 0.0
                for x in kept:
                    s += x
                agg.append((t, s if rate else s / 100.0))
        return agg, False
    return out, is_array


def _quantile(x, q):
    n = len(x)
    h = (n - 1) * q
    lo = math.floor(h)
    if lo >= n - 1:
        return x[n - 1]
    frac = h - lo
    if frac >= 0.5:
        return x[lo + 1] - (x[lo + 1] - x[lo]) * (1 - frac)
    return x[lo] + (x[lo + 1] - x[lo]) * frac


def _summary(vals):
    """Summaries of the finite values, in point order; None if there are none."""
    x = [v for v in vals if not math.isnan(v)]
    if not x:
        return None
    total, top = 0.0, x[0]
    for v in x:
        total += v
        if v > top:
            top = v
    last = x[-1]
    x.sort()
    return {"last": last, "total": total, "max": top, "p50": _quantile(x, 0.5),
            "p90": _quantile(x, 0.9), "p99": _quantile(x, 0.99)}


def _num(v):
    return v if math.isfinite(v) else None


def _display_unit(pol):
    """A series' display unit and scale, the report's one rule
    (doc/consumer.rst, "Units"): a value times ``scale`` is in ``unit``,
    the author's ``display_label`` as written (``None``: no unit), or
    ``"busy cores"`` for an aggregated series; never another prefix."""
    if pol is None:
        return None, 1.0
    if pol.aggregation:
        return "busy cores", 1.0
    return pol.label, (pol.scale if math.isfinite(pol.scale) else 1.0)


def _metric(s):
    pol = s.policy
    processed, is_array = _process(s.points, s.is_array, pol)
    unit, scale = _display_unit(pol)
    if pol is None:
        summarize, compare, better = "distribution", "p50", 0
    else:
        summarize, better = pol.summarize, pol.better
        compare = pol.compare or (summarize if summarize != "distribution" else "p50")
    if summarize != "distribution":
        ops = [summarize]
    elif len(processed) == 1:
        ops = ["last"]
    else:
        ops = ["p50", "p90", "p99", "max"]
    width = max((len(v) for _, v in processed), default=0) if is_array else 0

    def shown(sm):
        return None if sm is None else {op: _num(sm[op]) for op in ops}
    if is_array and width:
        cols = zip(*_padded([v for _, v in processed], width))
        sums = [_summary(col) for col in cols]
        summary = [shown(sm) for sm in sums]
        value = None
    else:
        sm = None if is_array else _summary([v for _, v in processed])
        summary = shown(sm)
        value = _num(sm[compare]) if sm is not None else None
    if not processed:
        summary = None
    return {"name": s.name, "labels": json.loads(s.labels), "shape": s.shape,
            "points": len(s.points), "processed": len(processed),
            "summarize": summarize, "summary": summary, "compare": compare,
            "better": {1: "higher", -1: "lower"}.get(better), "value": value,
            "unit": unit, "scale": scale}


# ---- the KTAP tree -------------------------------------------------------

class _Node:
    __slots__ = ("parent", "name", "status", "hint", "policies", "lines",
                 "stream")

    def __init__(self, parent):
        self.parent = parent
        self.name = self.hint = None
        self.status = "none"
        self.policies = {}
        self.lines = 0
        self.stream = 0


class _Series:
    __slots__ = ("node", "name", "labels", "shape", "is_array", "points",
                 "policy", "path", "case", "status")

    def __init__(self, node, name, labels, shape, is_array):
        self.node, self.name, self.labels = node, name, labels
        self.shape, self.is_array = shape, is_array
        self.points = []
        self.policy = None


class _Input:
    def __init__(self, log, file):
        self.log, self.file = log, file
        self.lineno = 0
        self.pending = [None] * MAX_DEPTH
        self.pending_line = [0] * MAX_DEPTH
        self.group = [None] * MAX_DEPTH
        self.hint = [None] * MAX_DEPTH
        self.last_skip = [None] * MAX_DEPTH
        self.series = {}
        self.deep_warned = False

    def warn(self, text, line=None):
        self.log.warnings.append((self.file, self.lineno if line is None else line, text))

    # -- nodes
    def group_at(self, d):
        if d <= 0:
            return None
        if self.group[d] is None:
            n = _Node(self.group_at(d - 1))
            n.hint, self.hint[d] = self.hint[d], None
            self.group[d] = n
        return self.group[d]

    def case_at(self, d):
        if self.pending[d] is None:
            self.pending[d] = _Node(self.group_at(d))
            self.pending_line[d] = self.lineno
        return self.pending[d]

    def case_incomplete(self, d):
        n = self.pending[d]
        if n is None:
            return
        self.warn('metric lines without a result line (did the test die?) '
                  'are kept under case "incomplete"', self.pending_line[d])
        n.name, n.status = INCOMPLETE, "incomplete"
        self.pending[d] = None

    def group_unfinished(self, d):
        n = self.group[d]
        if n is None:
            return
        self.group[d] = self.hint[d] = None
        if n.name is not None:
            return
        n.name = n.hint if n.hint is not None else INCOMPLETE
        n.status = "incomplete"
        self.warn(f'enclosing test "{n.name}" has no result line')

    def close_below(self, d):
        for k in range(MAX_DEPTH - 1, d, -1):
            self.last_skip[k] = None
            self.case_incomplete(k)
            if k > d + 1:
                self.group_unfinished(k)

    def version_line(self, d):
        for k in range(MAX_DEPTH - 1, d - 1, -1):
            self.last_skip[k] = None
            self.case_incomplete(k)
            if k > d:
                self.group_unfinished(k)

    # -- lines
    def line(self, b):
        self.lineno += 1
        if b.endswith(b"\r"):
            b = b[:-1]
        p, units, n = 0, 0, len(b)
        while True:
            if b.startswith(b"# ", p):
                p += 2
            elif n - p == 1 and b[p:] == b"#":
                p += 1
            elif b.startswith(b"    ", p):
                p += 4
            else:
                break
            units += 1
        if p == n:
            return
        d = units - 1 if units else 0
        if units >= MAX_DEPTH:
            if not self.deep_warned:
                self.deep_warned = True
                self.warn(f"nesting deeper than {MAX_DEPTH - 1} levels ignored")
            return
        rest = b[p:]
        c = rest[:1]
        if c == b"k":
            if rest.startswith(b"ktap-metric-json:"):
                self.metric_line(d, rest[17:])
            elif rest.startswith(b"ktap-metric-policy-json:"):
                self.policy_line(d, rest[24:])
            elif rest.startswith(b"ktap-metric-abort-json:"):
                self.abort_line(d, rest[23:])
            elif rest.startswith(b"ktap-metric-context-json:"):
                self.context_line(rest[25:])
            elif rest.startswith(b"ktap-metric-stream-json:"):
                self.stream_line(d, rest[24:])
        elif rest.startswith(b"ok"):
            self.result_line(units, rest[2:], True)
        elif rest.startswith(b"not ok"):
            self.result_line(units, rest[6:], False)
        elif rest.startswith(b"TAP version ") or rest.startswith(b"KTAP version "):
            self.version_line(units)
        elif rest.startswith(b"Subtest:") and units >= 1:
            self.hint_line(units - 1, rest[8:])
        elif rest.startswith(b"selftests: ") and units >= 1:
            self.hint_line(units, rest)

    def hint_line(self, d, b):
        if d <= 0 or d >= MAX_DEPTH:
            return
        b = b.lstrip(b" \t\r").rstrip(b" \t")
        if not b:
            return
        h = _text(b)
        g = self.group[d]
        if g is not None and g.name is None and g.hint is None:
            g.hint = h
        else:
            self.hint[d] = h

    def result_line(self, d, b, ok):
        m = re.match(rb" ([0-9]+)(?: |\Z)", b)
        if not m:
            return
        num = m.group(1)
        desc = b[m.end():].lstrip(b" \t\r")
        if desc.startswith(b"- "):
            desc = desc[2:]
        elif desc == b"-":
            desc = b""
        h = re.search(rb"(?:^|[^\\])(#)", desc)
        status = "pass" if ok else "fail"
        if h:
            after = desc[h.start(1) + 1:].lstrip(b" \t\r")
            for word, st in STATUS_WORDS:
                w = after[:len(word)]
                if w.upper() == word.encode() and after[len(word):len(word) + 1] in (b"", b" ", b"\t"):
                    status = st
                    break
            desc = desc[:h.start(1)]
        desc = desc.rstrip(b" \t")
        self.close_below(d)
        self.last_skip[d] = _text(desc) if status == "skip" else None
        name = _text(desc if desc else num)
        if d + 1 < MAX_DEPTH and self.group[d + 1] is not None:
            g = self.group[d + 1]
            self.group[d + 1] = self.hint[d + 1] = None
            g.name, g.status = name, status
        n = self.pending[d]
        if n is not None:
            self.pending[d] = None
            n.name, n.status = name, status
            if n.stream == 1:
                self.warn(f'test case "{name}" was killed before its metrics '
                          f'ended (write-through); its {n.lines} metric lines '
                          'are kept as incomplete')
                n.status = "incomplete"

    def abort_line(self, d, b):
        j = self.json_of(b)
        j = j if isinstance(j, dict) else {}
        why, status = j.get("reason"), j.get("status")
        reason = _text(why) if isinstance(why, str) and why else "unknown"
        skip_exit = why == "exit" and _is_num(status) and isinstance(status, int) \
            and status == 4
        n = self.pending[d]
        if n is None:
            self.warn(f"test case ended abnormally ({reason}) with no metric lines")
            return
        if skip_exit and self.last_skip[d] is not None:
            n.name, n.status = self.last_skip[d], "skip"
            self.last_skip[d] = self.pending[d] = None
            return
        self.warn(f"test case ended abnormally ({reason}); its {n.lines} metric "
                  "lines are kept as incomplete")
        n.name, n.status = INCOMPLETE, "incomplete"
        self.pending[d] = None

    def stream_line(self, d, b):
        j = self.json_of(b)
        state = j.get("state") if isinstance(j, dict) else None
        n = self.case_at(d)
        if state == "begin":
            n.stream = 1
        elif state == "end":
            if n.stream == 1:
                n.stream = 2
        else:
            self.warn('ktap-metric-stream-json line without a known "state" '
                      "(begin, end) is ignored")

    def context_line(self, b):
        j = self.json_of(b)
        if not isinstance(j, dict):
            self.warn("ktap-metric-context-json is not a JSON object; ignored")
            return
        for k, v in j.items():
            if k not in self.log.context:
                self.log.context[k] = v
            elif k == "time" and isinstance(v, str) and \
                    isinstance(self.log.context[k], str):
                # Each program says when it started: the run started at
                # the earliest (lib/report/read/context.c).
                self.log.context[k] = min(self.log.context[k], v)
            elif _canon(self.log.context[k]) != _canon(v):
                self.warn(f'run context "{k}" differs from an earlier context '
                          "line; the first is kept")

    def json_of(self, b, what=None):
        """The line's JSON, or None: with @what, a malformed line is
        warned about and duplicate keys are errors (as the report's
        metric and policy lines); without, the last duplicate counts."""
        try:
            return _loads(b, dups=what is None)
        except _Bad as e:
            if what:
                self.warn(f"malformed {what} JSON: {e}")
            return None

    def policy_line(self, d, b):
        j = self.json_of(b, "policy")
        if j is None:
            return
        name = j.get("name") if isinstance(j, dict) else None
        if not isinstance(name, str) or not name:
            self.warn('policy has no "name" string; line skipped')
            return
        try:
            pol = _policy(j)
        except _Bad as e:
            self.warn(f"policy for metric {name}: {e}; policy ignored")
            return
        node = self.case_at(d)
        old = node.policies.get(name)
        if old is None:
            node.policies[name] = (pol, self.lineno)
        elif old[0].key() != pol.key():
            self.warn(f"conflicting policy for metric {name}: keeping the one "
                      f"from line {old[1]}")

    def metric_line(self, d, b):
        j = self.json_of(b, "metric")
        if j is None:
            return
        if not isinstance(j, dict):
            self.warn("metric JSON is not an object")
            return
        name, shape, t, value = (j.get(k) for k in ("name", "shape", "time", "value"))
        if not isinstance(name, str) or not name:
            self.warn('metric has no "name" string; line skipped')
            return
        if shape is not None and not isinstance(shape, str):
            self.warn(f'metric {name}: "shape" is not a string; line skipped')
            return
        if t is not None and not _is_num(t):
            self.warn(f'metric {name}: "time" is not a number; line skipped')
            return
        if _is_num(value):
            is_array, vals = False, float(value)
        elif isinstance(value, list):
            is_array = True
            types = set(map(type, value))
            if not types <= {float, int, type(None)}:
                i = next(i for i, v in enumerate(value) if not _is_num(v) and v is not None)
                self.warn(f"metric {name}: array entry {i} is neither a number "
                          "nor null; line skipped")
                return
            if type(None) in types:
                vals = [math.nan if v is None else float(v) for v in value]
            else:
                vals = list(map(float, value))
        else:
            self.warn(f'metric {name}: "value" must be a number or an array of '
                      "numbers and nulls; line skipped")
            return
        if shape is None:
            shape = "array" if is_array else "scalar"
        labels = _canon({k: v for k, v in j.items()
                         if k not in ("name", "shape", "time", "value")})
        node = self.case_at(d)
        node.lines += 1
        key = (id(node), name, labels)
        s = self.series.get(key)
        if s is None:
            s = self.series[key] = _Series(node, name, labels, _text(shape), is_array)
        if s.is_array != is_array or s.shape != shape:
            self.warn(f'metric {s.name}: shape "{_text(shape)}" differs from '
                      f'"{s.shape}" earlier in the series; point dropped')
            return
        s.points.append((math.nan if t is None else float(t), vals))

    def finish(self):
        self.version_line(0)
        for s in self.series.values():
            n = s.node
            path = []
            a = n.parent
            while a is not None:
                path.append(a.name if a.name is not None else INCOMPLETE)
                a = a.parent
            s.path = path[::-1]
            s.case = n.name if n.name is not None else INCOMPLETE
            s.status = n.status
            pol = n.policies.get(s.name)
            s.policy = pol[0] if pol else None
            s.name = _text(s.name)
            s.node = None
            self.log._adopt(s, self.file)


# How bad a case status is (lib/report/model/series.c's status_rank()).
_STATUS_RANK = {"fail": 9, "error": 8, "timeout": 7, "incomplete": 6, "xpass": 5,
                "xfail": 4, "todo": 3, "pass": 2, "skip": 1, "none": 0}


class Log:
    """The metrics of one or more KTAP logs, read in order."""

    def __init__(self):
        self.context = {}
        self.warnings = []
        self._series = []
        self._keys = {}

    def _adopt(self, s, file):
        key = (tuple(s.path), s.case, s.name, s.labels)
        e = self._keys.get(key)
        if e is None:
            self._keys[key] = s
            self._series.append(s)
            return
        if e.is_array != s.is_array or e.shape != s.shape:
            self.warnings.append((file, 0, f"series {s.name}: shape \"{s.shape}\" "
                                  f"differs from \"{e.shape}\" seen before; its "
                                  f"{len(s.points)} points are dropped"))
            return
        if s.policy is not None and e.policy is None:
            e.policy = s.policy
        # Repeats have the worst status of theirs, whatever their order
        # (lib/report/model/series.c).
        if _STATUS_RANK.get(s.status, 0) > _STATUS_RANK.get(e.status, 0):
            e.status = s.status
        e.points.extend(s.points)

    def read(self, source, name=None):
        """Add a log: a path, a binary file object or bytes."""
        if isinstance(source, (bytes, bytearray)):
            data = bytes(source)
        elif hasattr(source, "read"):
            data = source.read()
        else:
            with open(source, "rb") as f:
                data = f.read()
            name = name or str(source)
        inp = _Input(self, name or "-")
        head = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
        if head.lstrip(b" \t\r\n").startswith(b"{"):
            # A twister JSON document: not KTAP; ksft-metric report reads it.
            inp.warn("a JSON document, not a KTAP log: skipped", 0)
            return self
        lines = data.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        for b in lines:
            if len(b) > MAX_LINE:
                inp.lineno += 1
                inp.warn(f"line longer than {MAX_LINE} bytes skipped")
            else:
                inp.line(b)
        inp.finish()
        return self

    def results(self):
        """One record per case, in order of first appearance: the NIPA keys,
        the case's KTAP identity and status, and each series' summaries."""
        cases = {}
        for s in self._series:
            cases.setdefault((tuple(s.path), s.case), []).append(s)
        out = []
        for (path, case), members in cases.items():
            group, test, subtest = nipa_names(path, case)
            out.append({"group": group, "test": test, "subtest": subtest,
                        "case": case, "path": list(path),
                        "ktap_status": members[0].status,
                        "metrics": [_metric(s) for s in members]})
        return out

    def by_key(self):
        """{(group, test, subtest): record}: how NIPA looks its results up."""
        return {(r["group"], r["test"], r["subtest"]): r for r in self.results()}

    def nipa(self):
        """The sidecar ``ksft-metric report --format nipa`` writes."""
        return {"format": "ksft-metric-nipa", "version": 1,
                "context": self.context, "results": self.results()}


def read(*sources):
    """Read KTAP logs (paths, binary files or bytes) into a Log."""
    log = Log()
    for src in sources:
        log.read(src)
    return log


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(f"usage: {argv[0]} KTAP_LOG...  (prints the NIPA metrics sidecar)")
        return 2
    log = read(*argv[1:])
    for file, line, text in log.warnings:
        print(f"{file}:{line}: warning: {text}", file=sys.stderr)
    json.dump(log.nipa(), sys.stdout, sort_keys=False, separators=(",", ":"))
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
