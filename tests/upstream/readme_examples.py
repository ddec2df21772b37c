#!/usr/bin/env python3
"""The README's examples, as written: its C selftest is compiled against the
real kselftest.h and the built library and run; its ksft-metric commands
run on that program's log; its Python example runs through the binding;
its ksftmetric.report script finds a regression in a slowed copy of the log.

Usage: readme_examples.py README KSELFTEST_H INCLUDE_DIR LIB_DIR KSFT_METRIC PYTHON_DIR CC...
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import doc_blocks  # noqa: E402  (tests/doc_blocks.py)


def literal_block(text, first_line):
    return doc_blocks.literal_block(text, first_line, "README")


def metric_lines(out):
    got = [l for l in out.splitlines() if "ktap-metric-" in l]
    return [(l.split(": ", 1)[0].lstrip("# "), json.loads(l.split(": ", 1)[1])) for l in got]


def main():
    readme, kselftest_h, include, libdir, tool, pydir = map(os.path.abspath, sys.argv[1:7])
    cc = sys.argv[7:]
    text = open(readme, encoding="utf-8").read()
    with tempfile.TemporaryDirectory() as tmp:
        # C: "../kselftest.h" as a selftest directory has it.
        os.mkdir(os.path.join(tmp, "net"))
        with open(kselftest_h, "rb") as f, open(os.path.join(tmp, "kselftest.h"), "wb") as g:
            g.write(f.read())
        src = os.path.join(tmp, "net", "example.c")
        with open(src, "w", encoding="utf-8") as f:
            f.write(literal_block(text, "#include <ksftmetric/ksftmetric.h>"))
        exe = os.path.join(tmp, "example")
        subprocess.run(cc + ["-std=gnu11", "-Wall", "-Werror", "-I", include, "-o", exe, src,
                             "-L", libdir, "-lksftmetric", "-Wl,-rpath," + libdir], check=True)
        out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
        print(out)
        lines = metric_lines(out)
        assert [k for k, _ in lines] == ["ktap-metric-policy-json"] + ["ktap-metric-json"] * 5, lines
        assert [v["value"] for _, v in lines[1:]] == [32.5, 33.5, 32.5, 33.5, 32.5], lines
        result = out.splitlines().index("ok 1 tcp_throughput")
        assert all(out.splitlines().index(l) < result for l in out.splitlines() if "ktap-metric" in l)
        log = os.path.join(tmp, "ktap.log")
        with open(log, "w", encoding="utf-8") as f:
            f.write(out)

        # ksft-metric: every command of the block, in order, in the log's directory.
        block = literal_block(text, "ksft-metric report ktap.log                   # one row per series, with summaries")
        for cmd in block.splitlines():
            argv = cmd.split("#", 1)[0].split()
            assert argv[0] == "ksft-metric", cmd
            r = subprocess.run([tool] + argv[1:], cwd=tmp, capture_output=True, text=True)
            print("$", cmd, "->", r.returncode)
            print(r.stdout[-2000:], r.stderr[-2000:])
            assert r.returncode == 0, cmd
            if argv[1:] == ["report", "ktap.log"]:
                # The policy's unit as the author wrote it (doc/consumer.rst).
                # Issue 34: the value, then the unit once in its column.
                assert re.search(r"^  throughput\{host=local\}\s+5\s+32\.5 \(32\.5\u2026" r"33\.5\)\s+Gbps$",
                                 r.stdout, re.M), r.stdout
        assert os.path.getsize(os.path.join(tmp, "metrics.svg")) > 0
        assert json.load(open(os.path.join(tmp, "base.json")))
        kcidb = json.load(open(os.path.join(tmp, "kcidb.json")))
        assert kcidb["tests"][0]["status"] == "DONE", kcidb
        nipa = json.load(open(os.path.join(tmp, "nipa.json")))
        assert nipa["results"][0]["subtest"] == "tcp-throughput", nipa
        assert nipa["results"][0]["metrics"][0]["verdicts"], nipa

        # Python.
        code = literal_block(text, "from ksftmetric import (ksft_metric, ksft_metric_aggregate,")
        env = dict(os.environ, PYTHONPATH=pydir,
                   KSFTMETRIC_LIBRARY=os.path.join(libdir, "libksftmetric.so.0"))
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True).stdout
        print(out)
        lines = metric_lines(out)
        assert [k for k, _ in lines] == ["ktap-metric-policy-json"] + ["ktap-metric-json"] * 3, lines
        assert lines[0][1]["regression"]["compare"] == "p50"
        assert lines[0][1]["display_label"] == "Gbps", lines[0]

        # Python, the consumer: regressions of a slower copy of the C example's
        # log against base.json (saved above from the original).
        code = literal_block(text, "# regressions.py BASELINE.json [LOG]: exit 1 when "
                             "something regressed")
        slow = os.path.join(tmp, "slow.log")
        with open(log, encoding="utf-8") as f, open(slow, "w", encoding="utf-8") as g:
            g.write(f.read().replace('"value":32.5', '"value":16.5')
                    .replace('"value":33.5', '"value":17.5'))
        base = os.path.join(tmp, "base.json")
        r = subprocess.run([sys.executable, "-c", code, base, slow], env=env,
                           capture_output=True, text=True)
        print(r.stdout, r.stderr)
        assert r.returncode == 1, r
        assert r.stdout == ("tcp_throughput throughput{host=local}: p50 32.5 -> 16.5"
                            " (-49.2 %, 1.625 allowed)\n"), r.stdout
        r = subprocess.run([sys.executable, "-c", code, base, log], env=env,
                           capture_output=True, text=True)
        assert (r.returncode, r.stdout) == (0, ""), r
    print("README examples: ok")


if __name__ == "__main__":
    main()
