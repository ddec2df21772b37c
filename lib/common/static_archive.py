#!/usr/bin/env python3
"""Build a static library so that only its public API is global in it.

Usage: static_archive.py OUTPUT OBJCOPY AR INTERNAL.a... -- CC [CC-ARGS...]

The library's internal functions (strbuf_free, float_repr, ...) are
global in their object files so that the objects can call each other; in
an archive they would clash with a user's own symbols of the same names
(and the producer's and the report engine's copies of the shared internals
with each other). All objects are joined into one relocatable object
(CC -r), then every hidden symbol (all internals: they are built with
-fvisibility=hidden) is made local (objcopy --localize-hidden), leaving
the public API, which has default visibility, as the only global
definitions.
"""
import os
import subprocess
import sys
import tempfile


def main():
    out, objcopy, ar = sys.argv[1:4]
    rest = sys.argv[4:]
    if "--" not in rest:
        sys.exit(__doc__.strip().splitlines()[2])
    sep = rest.index("--")
    internals, cc = rest[:sep], rest[sep + 1:]
    with tempfile.TemporaryDirectory(dir=os.path.dirname(os.path.abspath(out))) as tmp:
        obj = os.path.join(tmp, os.path.basename(out)[:-2] + '.o')
        subprocess.run(cc + ['-r', '-nostdlib', '-o', obj, '-Wl,--whole-archive'] +
                       internals + ['-Wl,--no-whole-archive'], check=True)
        subprocess.run([objcopy, '--localize-hidden', obj], check=True)
        if os.path.exists(out):
            os.unlink(out)
        subprocess.run([ar, 'rcD', out, obj], check=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
