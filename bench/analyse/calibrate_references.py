#!/usr/bin/env python3
"""The references' thresholds at the gate's false-alarm rate (issue 40).

Every unchanged stream of the recorded corpora that bench/gate_timeline
replays (one configuration a job, as its "one case per job" false
alarms; the calibration recording left out as there), one repeat a run,
in time order from the 6th run on: Welch's t of the last k = 2..6 runs
against the up to 30 runs before them (the smallest one-sided p times
five) and Perfherder's t (the 12 runs before a change 12 runs back
against the 12 after it), on the throughput alone. Prints the threshold
at which each fails RATE of the runs (the gate's rate on the same runs at
r = 1, counting a run failed when any of its three gated series fails:
the references, judged on one series, get the whole rate).

Usage: bench/analyse/calibrate_references.py RATE CORPUS.jsonl...
"""
import collections
import json
import os
import sys

# The references' code is the two-runner replay's (bench/gate/).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gate"))
import replay_two_runner as ref  # noqa: E402


def streams(path):
    out = collections.OrderedDict()
    for line in open(path):
        r = json.loads(line)
        if r.get("failed") or r.get("gbps") is None:
            continue
        if "rules" in r or "cap" in r:
            name = ("cap=%d" % r["cap"]) if "cap" in r else ("rules=%d" % r["rules"])
        else:
            name = "nb=%d cpus=%s dose=%d" % (r["neighbours"], r["cpus"], r["dose"])
        out.setdefault(name, []).append(r["gbps"])
    return out


def main(argv):
    rate = float(argv[1])
    w, p = [], []
    for path in argv[2:]:
        if "calib" in path:
            continue
        for name, x in streams(path).items():
            for j in range(5, len(x)):
                w.append(ref.welch_p(x[:j + 1]))
                p.append(ref.perfherder_t(x[:j + 1]))
    n = len(w)
    k = int(rate * n)
    ws, ps = sorted(w), sorted(p, reverse=True)
    print("%d unchanged runs; at %.2f %% (%d runs):" % (n, 100 * rate, k))
    print("  welch      fails at p <= %.3g (at alpha 0.001: %d runs, %.2f %%)" % (
        ws[k] if k < n else 1.0, sum(v <= 0.001 for v in w), 100.0 * sum(v <= 0.001 for v in w) / n))
    print("  perfherder fails at t > %.3g (at t > 7: %d runs, %.2f %%)" % (
        ps[k] if k < n else float("-inf"), sum(v > 7 for v in p), 100.0 * sum(v > 7 for v in p) / n))


if __name__ == "__main__":
    main(sys.argv)
