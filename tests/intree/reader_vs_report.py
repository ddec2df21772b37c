#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""python/ksft_metric_reader.py against ``ksft-metric report --format nipa``:
the same records (names, keys, status, points, summaries, compare values)
for every KTAP log given (the golden inputs, the fuzz corpus) and for
seeded random logs that nest, repeat, abort, stream and break lines. Also
checks that importing the reader loads no C library.

Usage: reader_vs_report.py KSFT_METRIC READER_DIR LOG_OR_DIR...
"""
import json
import os
import random
import subprocess
import sys
import tempfile


def report(cli, path):
    p = subprocess.run([cli, "report", "--format", "nipa", "--quiet", path],
                       capture_output=True, check=False)
    if p.returncode and b"no metrics found" in p.stderr:
        return {"format": "ksft-metric-nipa", "version": 1, "context": {},
                "results": []}
    if p.returncode:
        raise SystemExit(f"{path}: ksft-metric report failed: {p.stderr.decode()}")
    return json.loads(p.stdout)


NAMES = ["throughput", "cpu.time.usr", "cpu.utilization", "lat", "m\u00e9t",
         "a b", "ctl\\u0001x", "x", "c1\\u0085x\u009b", "c1\\u009f"]
LABELS = ['', '"host":"local"', '"host":"remote"', '"dir":"rx","n":1',
          '"n":1.0', '"n":-0', '"z":true', '"o":{"b":1,"a":[1,2.5]}',
          '"k":"\\u00e9\\ud83d\\ude00"', '"k":null', '"k":"\\u0085\u009b[2J"']
POLICIES = ['"summarize":"distribution"', '"summarize":"max"',
            '"summarize":"total","transform":"rate"',
            '"aggregation":"busy-core-equivalents","summarize":"p90","transform":"rate"',
            '"aggregation":"busy-core-equivalents","summarize":"last"',
            '"regression":{"better":"higher","compare":"p50","relative_tolerance":0.05},"summarize":"distribution"',
            '"regression":{"better":"lower","compare":"p99","absolute_tolerance":2}',
            '"summarize":"p95"', '"regression":{"compare":"p50"}',
            '"display_range":{"min":5,"max":1}', '"display_scale":0.001,"display_label":"Gbps"',
            '"summarize":null,"foo":1']


def number(rng):
    return rng.choice([str(rng.randint(-5, 1000)), repr(rng.uniform(-1, 1e6)),
                       "1e300", "0.1", "-0.0", "7", repr(rng.random())])


def value(rng, array):
    if not array:
        return number(rng)
    return "[" + ",".join(rng.choice(["null", number(rng)])
                          for _ in range(rng.choice([0, 1, 2, 4, 5]))) + "]"


def metric(rng, t):
    name = rng.choice(NAMES)
    array = rng.random() < 0.35
    shape = "per-cpu" if array else "scalar"
    if rng.random() < 0.05:
        shape = "scalar" if array else "per-cpu"
    lab = rng.choice(LABELS)
    body = f'"name":"{name}","shape":"{shape}","time":{t},"value":{value(rng, array)}'
    if lab:
        body = lab + "," + body if rng.random() < 0.5 else body + "," + lab
    line = "ktap-metric-json: {" + body + "}"
    r = rng.random()
    if r < 0.03:
        line = line[:-5]                       # cut short
    elif r < 0.05:
        line = line.replace('"time"', '"time":1,"time"', 1)   # duplicate key
    elif r < 0.07:
        line = line.replace(f'"time":{t}', '"time":null')
    return line


def case_lines(rng, prefix):
    out = []
    t = 0.0
    for _ in range(rng.randint(0, 3)):
        out.append(prefix + "ktap-metric-policy-json: {\"name\":\"%s\",%s}"
                   % (rng.choice(NAMES), rng.choice(POLICIES)))
    for _ in range(rng.randint(0, 12)):
        t = round(t + rng.choice([0, 0.5, 1, 2.25]), 6)
        out.append(prefix + metric(rng, t))
    return out


def random_log(rng):
    out = ["KTAP version 1", "1..3"]
    top = rng.randint(1, 3)
    for i in range(1, top + 1):
        target = rng.choice(["net", "drivers/net/hw", "net/forwarding"])
        prog = rng.choice(["tcp_mmap", "iperf.py", "so_txtime.sh"])
        style = rng.random()
        if style < 0.5:
            # run_kselftest.sh: "# " per level, a harness inside
            out.append(f"# selftests: {target}: {prog}")
            out.append("# TAP version 13")
            n = rng.randint(1, 4)
            out.append(f"# 1..{n}")
            for k in range(1, n + 1):
                if rng.random() < 0.2:
                    out.append("# # ktap-metric-stream-json: {\"state\":\"begin\"}")
                out += case_lines(rng, "# # ")
                r = rng.random()
                if r < 0.1:
                    out.append('# # ktap-metric-abort-json: {"reason":"SIGTERM"}')
                elif r < 0.15:
                    out.append(f"# ok {k} case{k} # SKIP no device")
                    out.append('# # ktap-metric-abort-json: {"reason":"exit","status":4}')
                    continue
                desc = rng.choice([f"case{k}", f"fixture.case_{k}", "", "a#b",
                                   "- dashed", "caf\u00e9 \x01x", "c1\u009b[31m\u0085x"])
                ok = "ok" if rng.random() < 0.8 else "not ok"
                extra = rng.choice(["", "", " # SKIP why", " # xfail", " # TODO"])
                out.append(f"# {ok} {k} {desc}{extra}".rstrip())
            if rng.random() < 0.9:
                out.append(f"ok {i} selftests: {target}: {prog}")
        else:
            # KTAP v1 subtests, four spaces per level
            out.append(f"    KTAP version 1")
            out.append(f"    # Subtest: suite{i}")
            out.append("    1..2")
            for k in (1, 2):
                out += case_lines(rng, "    # ")
                out.append(f"    ok {k} test{k}")
            out += case_lines(rng, "# ")
            out.append(f"ok {i} suite{i}")
    if rng.random() < 0.3:
        out += case_lines(rng, "# ")            # dies with lines pending
    if rng.random() < 0.2:
        out.insert(2, rng.choice([
            '# ktap-metric-context-json: {"commit":"abc","cpu_count":2}',
            '# ktap-metric-context-json: {"commit":"a\\u009bc\u0085","cpu_count":2}']))
    while rng.random() < 0.3:
        # the whole run nested one level deeper, as a runner inside a runner
        out = (["KTAP version 1", "1..1", "# selftests: outer: run.sh"] +
               ["# " + line for line in out] + ["ok 1 selftests: outer: run.sh"])
    return "\n".join(out) + ("\n" if rng.random() < 0.8 else "")


def main():
    cli, reader_dir, inputs = sys.argv[1], sys.argv[2], sys.argv[3:]
    sys.path.insert(0, reader_dir)
    before = set(sys.modules)
    import ksft_metric_reader
    loaded = set(sys.modules) - before
    if "ctypes" in loaded or any(m.startswith("ksftmetric") for m in loaded):
        raise SystemExit(f"importing the reader loaded {sorted(loaded)}")

    files = []
    for p in inputs:
        if os.path.isdir(p):
            files += sorted(os.path.join(p, f) for f in os.listdir(p))
        else:
            files.append(p)
    failed = compared = 0
    with tempfile.TemporaryDirectory() as tmp:
        rng = random.Random(20261201)           # fixed: the same logs each run
        for i in range(150):
            path = os.path.join(tmp, f"random{i:03d}.log")
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(random_log(rng))
            files.append(path)
        for path in files:
            want = report(cli, path)
            want.pop("missing", None)
            got = json.loads(json.dumps(ksft_metric_reader.read(path).nipa()))
            compared += sum(len(r["metrics"]) for r in want["results"])
            if want != got:
                failed += 1
                print(f"{path}: the reader differs from ksft-metric report")
                for a, b in zip(want["results"] + [None], got["results"] + [None]):
                    if a != b:
                        print("  report:", json.dumps(a)[:2000])
                        print("  reader:", json.dumps(b)[:2000])
                        break
                if want["context"] != got["context"]:
                    print("  context:", want["context"], got["context"])
    print(f"{len(files)} logs, {compared} series compared, {failed} differ")
    if compared < 500:
        print("too few series: the logs no longer exercise much")
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
