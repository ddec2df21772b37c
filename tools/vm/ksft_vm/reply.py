# SPDX-License-Identifier: GPL-2.0
"""The A/B's summary to paste into a mailing-list reply: one header (both
kernels by their full release, QEMU, the clock, the CPU model, the vCPUs,
the layouts), `old -> new (+x.x %)` a series under its case, the command
that reproduces it; never wider than 72 columns."""
import math
import shlex
import textwrap

WIDTH = 72
# The verdicts (code: the name compare prints), as lib/common/verdict_vocab.c
# spells them, its old codes too; tests/vm/test_ksft_vm_unit.py keeps the two
# equal. A line says the name as `compare --format reply` does: in capitals
# when the row fails, else in small letters, and NO CHANGE not at all (the
# change itself says it).
VERDICTS = {"regression": "REGRESSION", "improvement": "IMPROVEMENT",
            "disturbed": "DISTURBED", "missing": "MISSING", "case_failed": "CASE FAILED",
            "too_noisy": "TOO NOISY", "noise": "TOO NOISY",
            "no_change": "NO CHANGE", "ok": "NO CHANGE", "new": "NEW",
            "not_comparable": "NOT COMPARABLE", "incomparable": "NOT COMPARABLE",
            "untracked": "UNTRACKED", "no_history": "NO HISTORY", "accepted": "ACCEPTED"}


def _ctx(ctx, key, default="?"):
    v = ctx.get(key)
    return default if v is None or v == "" else str(v)


def _both(a, b, key, default="?"):
    va, vb = _ctx(a, key, default), _ctx(b, key, default)
    return va if va == vb else "%s/%s" % (va, vb)


def header(ctx_a, ctx_b, seeds):
    """The header's words, from the two runs' contexts."""
    clock = _both(ctx_a, ctx_b, "clock", "native")
    if clock == "icount":
        clock = "TCG icount shift %s" % _both(ctx_a, ctx_b, "icount_shift")
    n = _both(ctx_a, ctx_b, "cpu_count")
    words = "%s -> %s, QEMU %s %s, %s, %s vCPU%s, %s, %s" % (
        _ctx(ctx_a, "vm_kernel", _ctx(ctx_a, "kernel")), _ctx(ctx_b, "vm_kernel", _ctx(ctx_b, "kernel")),
        _both(ctx_a, ctx_b, "qemu"), clock, _both(ctx_a, ctx_b, "qemu_cpu"), n,
        "" if n == "1" else "s",
        "1 boot a kernel (no layout seeds)" if seeds == 1 else "%d layout seeds a kernel" % seeds,
        "bit-identical per seed")
    return textwrap.wrap(words, WIDTH, break_on_hyphens=False)


def number(v):
    """4 significant digits, no exponent for the usual sizes."""
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "-"
    if v == 0:
        return "0"
    digits = max(0, 3 - int(math.floor(math.log10(abs(v)))))
    return "%.*f" % (min(digits, 9), v)


def change(row):
    pct = row.get("change_pct")
    if pct is None:
        return "(n/a)"
    return "(%+.1f %%)" % pct


def title(row):
    labels = row.get("labels") or {}
    t = row["name"]
    if labels:
        t += "{%s}" % ",".join("%s=%s" % kv for kv in sorted(labels.items()))
    if row.get("element") is not None:
        t += "[%d]" % row["element"]
    return t


def verdict_words(row):
    """" REGRESSION", " too noisy", or "" for no change, as compare says it."""
    code = row.get("verdict") or ""
    name = VERDICTS.get(code, code)
    if name in ("NO CHANGE", ""):
        return ""
    return " " + (name.upper() if row.get("fails") else name.lower())


def series_lines(rows, units):
    """`old -> new (+x.x %)` a tracked row under its case. @units maps
    (case, title) to the series' display unit."""
    out, case = [], None
    for row in rows:
        if row.get("better") is None:
            continue        # untracked: no direction, not a result
        if row.get("case") != case:
            case = row.get("case")
            out.append(case or "(no case)")
        t = title(row)
        unit = units.get((row.get("case"), t))
        name = "  %s%s" % (t, (", " + unit) if unit else "")
        vals = "%s -> %s %s" % (number(row.get("baseline")), number(row.get("current")), change(row))
        vals += verdict_words(row)
        if len(name) + 2 + len(vals) <= WIDTH:
            out.append(name + " " * (WIDTH - len(name) - len(vals)) + vals)
        else:
            out += textwrap.wrap(name, WIDTH, subsequent_indent="    ", break_on_hyphens=False)
            out.append(" " * (WIDTH - len(vals)) + vals if len(vals) < WIDTH - 6 else "      " + vals)
    return out


def command_lines(cwd, argv):
    """The reproducing command as shell words, continued with \\ to fit."""
    words = ["cd", shlex.quote(cwd), "&&"] + [shlex.quote(a) for a in argv]
    out, line = [], "reproduce:"
    for w in words:
        if len(line) + 1 + len(w) + 2 > WIDTH and line.strip():
            out.append(line + " \\")
            line = " "      # a continuation: two spaces in (a longer word alone overflows)
        line += " " + w
    out.append(line)
    return out


def summary(ctx_a, ctx_b, rows, units, seeds, cwd, argv):
    """The whole summary as a list of lines."""
    return header(ctx_a, ctx_b, seeds) + [""] + series_lines(rows, units) + [""] + \
        command_lines(cwd, argv)


def units_of(report):
    """(case, title) -> display unit, from a `report --format json`."""
    out = {}
    for s in report.get("series", []):
        u = (s.get("policy") or {}).get("display_label") or s.get("unit")
        if u:
            out[(s.get("case"), title(s))] = u
    return out
