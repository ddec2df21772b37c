#!/usr/bin/env python3
"""Replay a two-runner recording (bench/record/record_two_runner.sh) as a CI runs
it (issue 40): every run in time order, judged by `ksft-metric compare
--db` with its runner's context, then stored by `ksft-metric ingest`, on a
fresh SQLite history. Prints, per runner, the gate's verdict on each
run's forward and reverse throughput, the first regressed run that failed
(exit 1), and the false alarms on the unchanged runs; beside it, on each
runner's forward throughput (the p50 the gate judges), three references:

  welch       Welch's t of the last k = 2..6 runs against all the runs
              before them, one-sided toward worse, alpha 0.001 Bonferroni
              over the five k (the issue's reference)
  perfherder  Perfherder's test: Student's t of the 12 runs before a
              candidate change against the 12 after it, t > 7; a change is
              found only once 12 runs after it exist (its fore window)
  (each again as welch@cal, perfherder@cal and otava@cal, at the gate's
  false-alarm rate: CAL_WELCH_P, CAL_PERFHERDER_T and CAL_OTAVA_P below)
  otava       Apache Otava's E-divisive change points (bench/otava_cli, our
              port with its defaults) over the runs so far: a change for
              the worse among the last 4 runs

Usage: bench/gate/replay_two_runner.py KSFT_METRIC OTAVA_CLI RECORDING...
(a RECORDING is a directory or a .tar.xz of one)
"""
import json
import math
import os
import subprocess
import sys
import tarfile
import tempfile

# The references' thresholds at the gate's false-alarm rate on the
# recorded unchanged runs (0.94 %, 47 of 4,993 at one repeat a run):
# bench/calibrate_references.py 0.0094 (bench/results/
# calibrate_references-2026-12-07.txt). At alpha 0.001 Welch's test fails
# 9.95 % of those runs; Perfherder's t > 7 0.06 %.
CAL_WELCH_P = 1.4e-8
CAL_PERFHERDER_T = 4.72
# Otava's max_pvalue at that rate: 1e-8 fails 35 of 3,579 runs (1.0 %, runs
# 50 on; 0.001, its default, 8.7 %): build/bench/gate_timeline --repeats 1
# --otava-p 1e-8 (bench/results/gate_timeline-otava1e-8-r1-2026-12-07.txt).
CAL_OTAVA_P = 1e-8


def t_sf(t, df):
    """Upper tail of Student's t (regularized incomplete beta, continued fraction)."""
    if df <= 0 or math.isnan(t):
        return float("nan")
    x = df / (df + t * t)
    a, b = df / 2.0, 0.5
    # Lentz's continued fraction for I_x(a, b)
    def betacf(a, b, x):
        qab, qap, qam = a + b, a + 1, a - 1
        c, d = 1.0, 1 - qab * x / qap
        d = 1 / (d if abs(d) > 1e-300 else 1e-300)
        h = d
        for m in range(1, 300):
            m2 = 2 * m
            aa = m * (b - m) * x / ((qam + m2) * (a + m2))
            d = 1 + aa * d
            d = 1 / (d if abs(d) > 1e-300 else 1e-300)
            c = 1 + aa / c if abs(c) > 1e-300 else 1e300
            h *= d * c
            aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
            d = 1 + aa * d
            d = 1 / (d if abs(d) > 1e-300 else 1e-300)
            c = 1 + aa / c if abs(c) > 1e-300 else 1e300
            de = d * c
            h *= de
            if abs(de - 1) < 1e-12:
                break
        return h
    lbeta = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    front = math.exp(lbeta + a * math.log(x) + b * math.log(1 - x)) / a
    ib = front * betacf(a, b, x)
    p = 0.5 * ib
    return p if t > 0 else 1 - p


def mean_var(v):
    m = sum(v) / len(v)
    return m, sum((x - m) ** 2 for x in v) / (len(v) - 1) if len(v) > 1 else float("nan")


def welch_flags(x):
    """Welch's t of the last k runs against the runs before, toward lower."""
    ps = []
    for k in range(2, 7):
        if len(x) - k < 3:
            break
        a, b = x[:-k], x[-k:]
        ma, va = mean_var(a)
        mb, vb = mean_var(b)
        se2 = va / len(a) + vb / len(b)
        if not se2 > 0:
            continue
        t = (ma - mb) / math.sqrt(se2)
        df = se2 ** 2 / ((va / len(a)) ** 2 / (len(a) - 1) + (vb / len(b)) ** 2 / (len(b) - 1))
        ps.append(t_sf(t, df))
    return bool(ps) and min(ps) * 5 <= 0.001


def welch_p(x):
    """Welch's t of the last k = 2..6 runs against the up to 30 runs before
    them, toward lower: the smallest one-sided p times the five k."""
    best = 1.0
    for k in range(2, 7):
        a, b = x[max(0, len(x) - k - 30):len(x) - k], x[len(x) - k:]
        if len(a) < 3:
            break
        ma, va = mean_var(a)
        mb, vb = mean_var(b)
        se2 = va / len(a) + vb / len(b)
        if not se2 > 0:
            continue
        t = (ma - mb) / se2 ** 0.5
        df = se2 ** 2 / ((va / len(a)) ** 2 / (len(a) - 1) + (vb / len(b)) ** 2 / (len(b) - 1))
        best = min(best, t_sf(t, df))
    return best * 5


def perfherder_t(x):
    """Perfherder's t for a change 12 runs back (12 before against 12 after)."""
    i = len(x) - 12
    if i < 12:
        return float("-inf")
    a, b = x[i - 12:i], x[i:]
    ma, va = mean_var(a)
    mb, vb = mean_var(b)
    sp = (((len(a) - 1) * va + (len(b) - 1) * vb) / (len(a) + len(b) - 2) *
          (1 / len(a) + 1 / len(b))) ** 0.5
    return (ma - mb) / sp if sp > 0 else float("-inf")


def perfherder_flags(x):
    """A change 12 runs back or more, 12 before against 12 after, t > 7."""
    for i in range(12, len(x) - 11):
        a, b = x[i - 12:i], x[i:i + 12]
        ma, va = mean_var(a)
        mb, vb = mean_var(b)
        sp = math.sqrt(((len(a) - 1) * va + (len(b) - 1) * vb) / (len(a) + len(b) - 2) *
                       (1 / len(a) + 1 / len(b)))
        if sp > 0 and (ma - mb) / sp > 7 and i >= len(x) - 12:
            return True
    return False


def otava_flags(otava, x, max_p=None):
    out = subprocess.run([otava] + (["%g" % max_p] if max_p else []), input="\n".join("%.17g" % v for v in x), text=True,
                         capture_output=True, check=True).stdout
    for line in out.split():
        pass
    for line in out.strip().splitlines():
        idx, before, after = line.split()
        if int(idx) >= len(x) - 4 and float(after) < float(before):
            return True
    return False


def rows_of(km, db, log, runner, order):
    r = subprocess.run([km, "compare", "--db", db, "--first-run", "--context",
                        "runner=" + runner, "--order", order, "--format", "json", log],
                       capture_output=True, text=True)
    if r.returncode not in (0, 1):
        raise SystemExit("compare %s: exit %d: %s" % (log, r.returncode, r.stderr))
    return r.returncode, json.loads(r.stdout)["rows"]


def replay(km, otava, rec):
    runs = []
    for line in open(os.path.join(rec, "index.tsv")):
        if not line.startswith("#"):
            nnn, runner, phase, _ = line.split()
            runs.append((nnn, runner, phase))
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "h.sqlite")
        per = {}
        for nnn, runner, phase in runs:
            log = os.path.join(rec, "%s-%s.log" % (nnn, runner))
            code, rows = rows_of(km, db, log, runner, nnn)
            code2, _ = rows_of(km, db, log, runner, nnn)	# judged twice: the same
            assert code == code2, log
            tput = {(r["case"], json.dumps(r["labels"], sort_keys=True)): r for r in rows
                    if r["name"] == "throughput" and r["better"]}
            fwd = [r for (c, _), r in sorted(tput.items()) if c == "iperf.forward"]
            st = per.setdefault(runner, {"x": [], "phase": [], "gate": [], "verdicts": [],
                                         "welch": [], "perfherder": [], "otava": [],
                                         "welch_s": [], "perfherder_s": [], "otava@cal": []})
            st["x"].append(fwd[0]["current"] if fwd else float("nan"))
            st["phase"].append(phase)
            st["gate"].append(code == 1)
            st["verdicts"].append(",".join(r["verdict"] for _, r in sorted(tput.items())))
            x = st["x"]
            st["welch"].append(welch_flags(x))
            st["perfherder"].append(perfherder_flags(x))
            st["otava"].append(otava_flags(otava, x))
            st["otava@cal"].append(otava_flags(otava, x, CAL_OTAVA_P))
            st["welch_s"].append(-welch_p(x))
            st["perfherder_s"].append(perfherder_t(x))
            subprocess.run([km, "ingest", "--db", db, "--create", "--context", "runner=" + runner,
                            "--run", nnn, "--order", nnn, "-q", log], check=True,
                           capture_output=True)
    print("recording %s" % rec)
    for st in per.values():
        st["welch@cal"] = [v <= CAL_WELCH_P for v in (-w for w in st["welch_s"])]
        st["perfherder@cal"] = [v > CAL_PERFHERDER_T for v in st["perfherder_s"]]
    for runner in sorted(per):
        st = per[runner]
        reg = [i for i, p in enumerate(st["phase"]) if p == "regressed"]
        unch = [i for i, p in enumerate(st["phase"]) if p == "unchanged"]
        u = [st["x"][i] for i in unch]
        r = [st["x"][i] for i in reg]
        mu, vu = mean_var(u)
        print("  %s: %d unchanged (throughput %.2f Gbit/s, run-to-run CV %.1f %%), %d regressed "
              "(%.2f, %+.1f %% = %.1f sd)" % (
                  runner, len(unch), mu, 100 * math.sqrt(vu) / mu, len(reg), sum(r) / len(r),
                  100 * (sum(r) / len(r) / mu - 1), (sum(r) / len(r) - mu) / math.sqrt(vu)))
        print("    gate verdicts (forward, reverse throughput) on the regressed runs: " +
              " ".join(st["verdicts"][i].replace("regression", "R").replace("too_noisy", "T")
                       .replace("no_change", "-").replace("improvement", "I")
                       .replace("disturbed", "D") for i in reg))
        for m in ("gate", "welch", "perfherder", "otava", "welch@cal", "perfherder@cal",
                  "otava@cal"):
            first = next((k + 1 for k, i in enumerate(reg) if st[m][i]), None)
            fa = sum(st[m][i] for i in unch)
            print("    %-10s first alarm at regressed run %-4s  alarms on regressed %2d/%d, "
                  "false alarms on unchanged %d/%d" % (
                      m, first if first else ">%d" % len(reg), sum(st[m][i] for i in reg),
                      len(reg), fa, len(unch)))


def main(argv):
    km, otava = argv[1], argv[2]
    for rec in argv[3:]:
        if rec.endswith(".tar.xz"):
            with tempfile.TemporaryDirectory() as d:
                with tarfile.open(rec) as t:
                    t.extractall(d)
                sub = [os.path.join(d, e) for e in os.listdir(d)]
                replay(km, otava, sub[0] if len(sub) == 1 and os.path.isdir(sub[0]) else d)
        else:
            replay(km, otava, rec)


if __name__ == "__main__":
    main(sys.argv)
