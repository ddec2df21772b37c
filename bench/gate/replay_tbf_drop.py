#!/usr/bin/env python3
"""Replay issue 40's 13 %-noise history with a lasting drop (item 4) as a CI
runs it: the 40 unchanged runs of bench/corpus/iperf3-tbf-2026-12-03.jsonl,
then its runs capped by tbf at CAP % of the median (90 by default: 12
runs, 12-32 % below it), one repeat a run, in time order, each judged by
`ksft-metric compare --db` (twice: the same exit both times) and stored by
`ksft-metric ingest` on a fresh SQLite history; throughput (higher, 5 %)
and the host's CPU cost per byte (lower, 10 %) gated, as the recorder's
producer declares them. Prints the gate's verdicts on every capped run and
the first that fails (exit 1), the false alarms on the unchanged runs from
the 6th on, and beside them the references of bench/gate/replay_two_runner.py
on the throughput (Welch's last 2-6 runs, Perfherder's 12 against 12,
Otava's E-divisive), each at its own threshold and again at the gate's
false-alarm rate on the recorded unchanged runs (welch@cal, perfherder@cal:
bench/gate/replay_two_runner.py's CAL_WELCH_P, CAL_PERFHERDER_T, CAL_OTAVA_P).

Usage: bench/gate/replay_tbf_drop.py KSFT_METRIC OTAVA_CLI [CORPUS.jsonl [CAP]]
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import replay_two_runner as ref  # noqa: E402

POLICY = ('# ktap-metric-policy-json: {"name":"throughput","regression":{"better":"higher",'
          '"compare":"p50","relative_tolerance":0.05},"summarize":"distribution"}\n'
          '# ktap-metric-policy-json: {"name":"cpu.cost","regression":{"better":"lower",'
          '"compare":"p50","relative_tolerance":0.1},"summarize":"distribution"}\n')


def log_of(r):
    return ("TAP version 13\n1..1\n" + POLICY +
            '# ktap-metric-json: {"name":"throughput","shape":"scalar","time":1,"value":%.17g}\n'
            '# ktap-metric-json: {"name":"cpu.cost","host":"both","shape":"scalar","time":1,'
            '"value":%.17g}\nok 1 iperf3_netns\n' % (r["gbps"], r["cost"]))


def main(argv):
    km, otava = argv[1], argv[2]
    path = argv[3] if len(argv) > 3 else "bench/corpus/iperf3-tbf-2026-12-03.jsonl"
    cap = int(argv[4]) if len(argv) > 4 else 90
    rows = [json.loads(line) for line in open(path)]
    runs = [r for r in rows if r["cap"] == 0] + [r for r in rows if r["cap"] == cap]
    n0 = sum(r["cap"] == 0 for r in rows)
    gate, verdicts, x, refs = [], [], [], {"welch": [], "perfherder": [], "otava": []}
    stat = {"welch": [], "perfherder": []}	# larger: more of a drop
    otava_cal = []
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "h.sqlite")
        for i, r in enumerate(runs):
            log = os.path.join(tmp, "run.log")
            with open(log, "w") as f:
                f.write(log_of(r))
            codes, out = [], None
            for _ in range(2):
                p = subprocess.run([km, "compare", "--db", db, "--first-run", "--context", "runner=tbf", "--order",
                                    "%04d" % i, "--format", "json", log],
                                   capture_output=True, text=True)
                if p.returncode not in (0, 1):
                    raise SystemExit("compare run %d: exit %d: %s" % (i, p.returncode, p.stderr))
                codes.append(p.returncode)
                out = json.loads(p.stdout)["rows"]
            assert codes[0] == codes[1], i
            gate.append(codes[0] == 1)
            verdicts.append("/".join(w["verdict"] for w in out if w["better"]))
            x.append(r["gbps"])
            refs["welch"].append(ref.welch_flags(x))
            refs["perfherder"].append(ref.perfherder_flags(x))
            refs["otava"].append(ref.otava_flags(otava, x))
            otava_cal.append(ref.otava_flags(otava, x, ref.CAL_OTAVA_P))
            stat["welch"].append(-ref.welch_p(x))
            stat["perfherder"].append(ref.perfherder_t(x))
            subprocess.run([km, "ingest", "--db", db, "--create", "--context", "runner=tbf", "--run", "r%04d" % i, "--order", "%04d" % i,
                            "-q", log], check=True, capture_output=True)
    u = x[:n0]
    m, v = ref.mean_var(u)
    print("%s: %d unchanged runs (%.2f Gbit/s, CV %.1f %%), %d capped at %d %% of the median"
          " (mean %+.1f %%)" % (path, n0, m, 100 * v ** 0.5 / m, len(x) - n0, cap,
                                100 * (sum(x[n0:]) / (len(x) - n0) / m - 1)))
    print("  gate verdicts (throughput/cost) on the capped runs: " + " ".join(
        verdicts[i].replace("regression", "R").replace("too_noisy", "T").replace(
            "no_change", "-").replace("improvement", "I").replace("disturbed", "D")
        for i in range(n0, len(x))))
    for name, fl in [("gate", gate)] + sorted(refs.items()):
        first = next((k - n0 + 1 for k in range(n0, len(x)) if fl[k]), None)
        print("  %-10s first alarm at capped run %-4s alarms on capped %2d/%d, false alarms on"
              " unchanged runs 6-%d: %d" % (name, first if first else ">%d" % (len(x) - n0),
                                            sum(fl[n0:]), len(x) - n0, n0,
                                            sum(fl[5:n0])))
    for name, fl in (("welch@cal", [-v <= ref.CAL_WELCH_P for v in stat["welch"]]),
                     ("perfherder@cal", [v > ref.CAL_PERFHERDER_T for v in stat["perfherder"]]),
                     ("otava@cal", otava_cal)):
        first = next((k - n0 + 1 for k in range(n0, len(x)) if fl[k]), None)
        print("  %-14s first alarm at capped run %-4s alarms on capped %2d/%d, false alarms on"
              " unchanged runs 6-%d: %d" % (name, first if first else ">%d" % (len(x) - n0),
                                            sum(fl[n0:]), len(x) - n0, n0, sum(fl[5:n0])))


if __name__ == "__main__":
    main(sys.argv)
