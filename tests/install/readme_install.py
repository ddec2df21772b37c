#!/usr/bin/env python3
"""The README's install block, word for word, as a new user runs it (issue
34: its Python snippet failed until an unmentioned PYTHONPATH was set, and
the runners were not installed).

A copy of the source tree stands in for the user's checkout and a fresh
directory for $HOME; the block's lines run in one bash, in order, with
`set -e`. Then the README's Python example runs with the environment the
block exported, and every runner answers --help from the prefix.

Usage: readme_install.py SOURCE_DIR KSELFTEST_H
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import doc_blocks  # noqa: E402  (tests/doc_blocks.py)

RUNNERS = ["ksft-metric", "ksft-iperf3", "ksft-kperf", "ksft-sysmon", "iperf-selftest"]


def copy_source(src, dst):
    """The tracked files (a user's checkout), or the tree less build output."""
    try:
        files = subprocess.run(["git", "-C", src, "ls-files", "-z"], capture_output=True,
                               check=True).stdout.decode().split("\0")
    except (OSError, subprocess.CalledProcessError):
        shutil.copytree(src, dst, ignore=shutil.ignore_patterns("build*", ".git"))
        return
    for f in filter(None, files):
        if not os.path.isfile(os.path.join(src, f)):
            continue
        os.makedirs(os.path.dirname(os.path.join(dst, f)), exist_ok=True)
        shutil.copy2(os.path.join(src, f), os.path.join(dst, f))


def main():
    src, kselftest_h = map(os.path.abspath, sys.argv[1:3])
    text = open(os.path.join(src, "README.rst"), encoding="utf-8").read()
    block = doc_blocks.literal_block(text, "scripts/install-deps.sh", "README")
    assert "meson install" in block, block
    c_example = doc_blocks.literal_block(text, "#include <ksftmetric/ksftmetric.h>", "README")
    py_example = doc_blocks.literal_block(
        text, "from ksftmetric import (ksft_metric, ksft_metric_aggregate,", "README")
    with tempfile.TemporaryDirectory() as tmp:
        tree = os.path.join(tmp, "libksftmetric")
        home = os.path.join(tmp, "home")
        os.mkdir(home)
        copy_source(src, tree)
        # The C example includes "../kselftest.h", as a selftest directory has it.
        shutil.copy(kselftest_h, os.path.join(tmp, "kselftest.h"))
        with open(os.path.join(tree, "example.c"), "w", encoding="utf-8") as f:
            f.write(c_example)
        env = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONPATH", "LD_LIBRARY_PATH", "KSFTMETRIC_LIBRARY",
                            "PKG_CONFIG_PATH", "MANPATH")}
        env.update(HOME=home, MANPAGER="cat", PAGER="cat", MANWIDTH="80")
        # After the block: the exported environment, for the checks below.
        script = ("set -e\n" + block + "\nprintf 'ENV %s\\n' \"PATH=$PATH\" "
                  "\"PYTHONPATH=$PYTHONPATH\"\n")
        r = subprocess.run(["bash", "-c", script], cwd=tree, env=env, capture_output=True,
                           text=True)
        print(r.stdout[-6000:])
        print(r.stderr[-4000:], file=sys.stderr)
        assert r.returncode == 0, f"README install block failed (exit {r.returncode})"
        prefix = os.path.join(home, "ksft")
        # The Python line printed where the library was loaded from: the prefix.
        assert any(l.startswith(prefix + "/lib") and "libksftmetric.so" in l
                   for l in r.stdout.splitlines()), "Python did not load the installed library"
        run_ktap = open(os.path.join(tree, "run.ktap"), encoding="utf-8").read()
        assert run_ktap.count("# ktap-metric-json:") == 5, run_ktap
        exported = dict(l[4:].split("=", 1) for l in r.stdout.splitlines() if l.startswith("ENV "))
        env.update(exported)
        for prog in RUNNERS:
            path = os.path.join(prefix, "bin", prog)
            assert os.access(path, os.X_OK), f"{prog} is not installed in {prefix}/bin"
            h = subprocess.run([path, "--help"], cwd="/", env=env, capture_output=True,
                               text=True)
            assert h.returncode == 0 and "usage" in (h.stdout + h.stderr).lower(), (prog, h)
        # The README's Python example, with nothing but what the block exported.
        out = subprocess.run(["python3", "-c", py_example],
                             cwd="/", env=env, capture_output=True, text=True)
        print(out.stdout, out.stderr)
        assert out.returncode == 0, "README Python example failed after the install block"
        assert out.stdout.count("# ktap-metric-json:") == 3, out.stdout
    print("README install block: ok")


if __name__ == "__main__":
    main()
