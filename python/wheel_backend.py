# SPDX-License-Identifier: GPL-2.0
"""A PEP 517 build backend for the ksftmetric package, with no requirements.

Why not setuptools: pip builds in an isolated environment and must first
download setuptools and wheel, which fails on offline CI machines and on
build hosts without a package index; the package is three pure-Python files,
so writing the wheel (a zip with METADATA, WHEEL and RECORD, PEP 427) here
is shorter than working around that. `pip install ./python` then works in
any virtual environment.
"""

import base64
import hashlib
import os
import tomllib
import zipfile

_HERE = os.path.dirname(os.path.abspath(__file__))
_TAG = "py3-none-any"


def _project():
    with open(os.path.join(_HERE, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]


def _metadata(proj):
    lines = ["Metadata-Version: 2.1", f"Name: {proj['name']}",
             f"Version: {proj['version']}", f"Summary: {proj['description']}",
             f"License: {proj['license']['text']}",
             f"Requires-Python: {proj['requires-python']}"]
    lines += [f"Classifier: {c}" for c in proj.get("classifiers", [])]
    with open(os.path.join(_HERE, proj["readme"]), encoding="utf-8") as f:
        lines += ["Description-Content-Type: text/markdown", "", f.read()]
    return "\n".join(lines)


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest())
    return f"{name},sha256={digest.rstrip(b'=').decode()},{len(data)}"


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    proj = _project()
    dist = f"{proj['name']}-{proj['version']}"
    info = f"{dist}.dist-info"
    files = []
    pkg = os.path.join(_HERE, "ksftmetric")
    for name in sorted(os.listdir(pkg)):
        # _install_paths.py is meson's; a wheel finds the library at run time.
        if name.endswith(".py") and name != "_install_paths.py":
            with open(os.path.join(pkg, name), "rb") as f:
                files.append((f"ksftmetric/{name}", f.read()))
    files.append((f"{info}/METADATA", _metadata(proj).encode()))
    files.append((f"{info}/WHEEL", (
        "Wheel-Version: 1.0\nGenerator: ksftmetric wheel_backend\n"
        f"Root-Is-Purelib: true\nTag: {_TAG}\n").encode()))
    record = [_record_line(n, d) for n, d in files] + [f"{info}/RECORD,,"]
    files.append((f"{info}/RECORD", ("\n".join(record) + "\n").encode()))

    wheel = f"{dist}-{_TAG}.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w",
                         zipfile.ZIP_DEFLATED) as z:
        for name, data in files:
            z.writestr(zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0)), data)
    return wheel


def build_sdist(sdist_directory, config_settings=None):
    import tarfile
    proj = _project()
    base = f"{proj['name']}-{proj['version']}"
    path = os.path.join(sdist_directory, base + ".tar.gz")
    with tarfile.open(path, "w:gz") as tar:
        for name in ("pyproject.toml", "wheel_backend.py", proj["readme"],
                     "ksftmetric"):
            tar.add(os.path.join(_HERE, name), f"{base}/{name}",
                    filter=lambda t: None if t.name.endswith(
                        ("__pycache__", ".pyc", "_install_paths.py")) else t)
    return base + ".tar.gz"
