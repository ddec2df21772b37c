# SPDX-License-Identifier: GPL-2.0
"""ksft-vm-ab --profile: both kernels profiled (ksft-vm --profile a boot),
each side's seeds summed into one profile (a.prof, b.prof: the case
windows of every seed, with their work when every boot said it), and the
diff's lines (`ksft-metric profile-diff --format reply`) put into the A/B
summary beside the verdicts, before the command that reproduces it."""
import os
import re

from .profile import ProfileError, cachegrind_text

WORK = re.compile(r"^desc: work: (\S+) (\S+)$")


def read_own(path):
    """A profile ksft-vm wrote: ({(module, function): count}, work, unit);
    work and unit None without a "desc: work:" line. ProfileError for a
    line ksft-vm does not write."""
    costs, fl, fn, work, unit = {}, None, None, None, None
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise ProfileError("%s: %s" % (path, e.strerror))
    for i, line in enumerate(lines, 1):
        m = WORK.match(line)
        if m:
            try:
                work, unit = float(m.group(1)), m.group(2)
            except ValueError:
                raise ProfileError("%s:%d: a work that is not a number" % (path, i))
        elif line.startswith(("desc:", "cmd:", "events:", "summary:")) or not line:
            continue
        elif line.startswith("fl="):
            fl = line[3:]
        elif line.startswith("fn="):
            fn = line[3:]
        elif line.startswith("0 ") and fl is not None and fn is not None:
            try:
                costs[(fl, fn)] = costs.get((fl, fn), 0) + int(line[2:])
            except ValueError:
                raise ProfileError("%s:%d: a count that is not a whole number" % (path, i))
        else:
            raise ProfileError("%s:%d: not a line ksft-vm --profile writes" % (path, i))
    return costs, work, unit


def work_text(w):
    """A work as a "desc: work:" line holds it: a whole number exactly."""
    return "%d" % w if w == int(w) else repr(w)


def sum_profiles(paths, dest, what):
    """Write @dest, the sum of the profiles @paths (@what says which);
    with the work summed when every one says its work in one unit."""
    total, works, units = {}, [], set()
    for p in paths:
        costs, work, unit = read_own(p)
        for k, v in costs.items():
            total[k] = total.get(k, 0) + v
        works.append(work)
        units.add(unit)
    desc = ["ksft-vm-ab profile: %s, %d boots summed" % (what, len(paths))]
    if None not in works and len(units) == 1:
        desc.append("work: %s %s" % (work_text(sum(works)), units.pop()))
    with open(dest, "w") as f:
        f.write(cachegrind_text(total, desc, "ksft-vm-ab --profile"))


def side_profile(out, names, v):
    """Variant @v's profile of the case windows: the one boot's file, or
    its seeds' files summed into OUT/v.prof. The path."""
    paths = [os.path.join(out, n) for n in names]
    if len(paths) == 1:
        return paths[0]
    dest = os.path.join(out, v + ".prof")
    sum_profiles(paths, dest, "the case windows of seeds 1-%d" % len(paths))
    return dest


def splice(summary, profile_lines):
    """@summary's lines with @profile_lines and a blank line before the
    reproducing command (the last block, from "reproduce:")."""
    at = next((i for i, l in enumerate(summary) if l.startswith("reproduce:")), len(summary))
    return summary[:at] + profile_lines + [""] + summary[at:]
