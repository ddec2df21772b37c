#!/usr/bin/env python3
"""Run the example selftests and check their KTAP output and metric lines."""
import json
import re
import subprocess
import sys

RESULT = re.compile(r"^(not )?ok (\d+) (\S+)")
METRIC = re.compile(r"^# ktap-metric(-policy)?-json: (\{.*\})$")
errors = []


def check(cond, what):
    if not cond:
        errors.append(what)


def run(path, expect):
    """expect: {case name: (policy names, observation name counts)}"""
    proc = subprocess.run([path], capture_output=True, text=True, timeout=60)
    lines = proc.stdout.splitlines()
    check(proc.returncode == 0, f"{path}: exit {proc.returncode}\n{proc.stderr}")
    check(lines[:2] == ["TAP version 13", f"1..{len(expect)}"], f"{path}: bad header {lines[:2]}")
    pending_pol, pending_obs, seen = [], [], []
    for line in lines[2:]:
        m = METRIC.match(line)
        if m:
            obj = json.loads(m.group(2))
            # Each line must be json.dumps(sort_keys, compact) of itself.
            check(json.dumps(obj, sort_keys=True, separators=(",", ":")) == m.group(2),
                  f"{path}: not canonical JSON: {line}")
            if m.group(1):
                check(not pending_obs, f"{path}: policy after an observation: {line}")
                pending_pol.append(obj["name"])
            else:
                check(isinstance(obj["time"], float), f"{path}: time not a float: {line}")
                pending_obs.append(obj["name"])
            continue
        r = RESULT.match(line)
        if r:
            name = r.group(3)
            check(not r.group(1), f"{path}: {line}")
            pols, obs = expect.get(name, (None, None))
            check(pending_pol == pols, f"{path}: {name}: policies {pending_pol} != {pols}")
            for metric, count in (obs or {}).items():
                got = pending_obs.count(metric)
                check(got >= count if count < 0 or metric == "cpu.utilization" else got == count,
                      f"{path}: {name}: {got} x {metric}, expected {count}")
            seen.append(name)
            pending_pol, pending_obs = [], []
    check(seen == list(expect), f"{path}: results {seen}")
    check(not pending_pol and not pending_obs, f"{path}: metric lines after the last result")


run(sys.argv[1], {
    "metric_selftest.throughput": (["throughput"], {"throughput": 1}),
    "metric_selftest.sampled": (["cpu.utilization"], {"cpu.utilization": 2, "ops": 1}),
})
run(sys.argv[2], {
    "harness.latency": (["latency.us"], {"latency.us": 3}),
    "harness.counters": ([], {"tx.packets": 2}),
})
for e in errors:
    print("FAIL:", e)
print(f"{'FAIL' if errors else 'ok'}: example selftests")
sys.exit(1 if errors else 0)
