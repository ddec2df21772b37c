# SPDX-License-Identifier: GPL-2.0
"""Print where a pure-Python package must go under PREFIX for this python3.

Run by meson with the interpreter it found. The answer is a directory the
interpreter itself searches, so `import ksftmetric` works right after
`meson install`: Debian's python3 searches /usr/local/lib/python3.X/
dist-packages, not the /usr/local/lib/python3/dist-packages meson 1.0
picks. Where the interpreter searches nothing under PREFIX (a private
prefix, pyenv), the stock layout PREFIX/lib/python3.X/site-packages is used
and a second output line says PYTHONPATH is needed.
"""

import os
import site
import sys
import sysconfig


def searched_dirs():
    """Site directories of this interpreter, whether they exist yet or not."""
    dirs = []
    if hasattr(site, "getsitepackages"):
        dirs += site.getsitepackages()
    dirs += [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]
    return dirs


def purelib_dir(prefix):
    prefix = os.path.normpath(prefix)
    ver = "python%d.%d" % sys.version_info[:2]
    under = [d for d in searched_dirs()
             if os.path.normpath(d).startswith(prefix + os.sep)]
    # Prefer the versioned directory (/usr/local/lib/python3.11/...): the
    # unversioned /usr/lib/python3/dist-packages belongs to Debian's packages.
    for d in sorted(under, key=lambda d: (ver not in d, len(d))):
        return os.path.normpath(d), True
    path = sysconfig.get_path("purelib", "posix_prefix",
                              vars={"base": prefix, "platbase": prefix})
    return os.path.normpath(path), False


if __name__ == "__main__":
    if len(sys.argv) != 2 or not os.path.isabs(sys.argv[1]):
        sys.exit("usage: purelib_dir.py ABSOLUTE-PREFIX")
    path, searched = purelib_dir(sys.argv[1])
    print(path)
    print("searched" if searched else "not-searched")
