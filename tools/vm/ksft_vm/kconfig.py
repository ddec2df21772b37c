# SPDX-License-Identifier: GPL-2.0
"""Kconfig fragments: read (every line named by file and number), merged
onto a base .config (a later setting wins), and checked against the
.config make olddefconfig wrote: a requested value Kconfig dropped (an
unmet dependency, a symbol this tree lacks) is named, never silent."""
import re

from .errors import VmError

SET = re.compile(r"^(CONFIG_[A-Za-z0-9_]+)=(.*)$")
UNSET = re.compile(r"^# (CONFIG_[A-Za-z0-9_]+) is not set$")


class ConfigError(VmError):
    """A fragment that is no Kconfig text."""


class Setting:
    """One requested value: NAME, VALUE ("y", "m", "n", a number or a
    quoted string) and where it was asked for (FILE:LINE)."""

    def __init__(self, name, value, where):
        self.name = name
        self.value = value
        self.where = where

    def line(self):
        return "# %s is not set" % self.name if self.value == "n" else \
            "%s=%s" % (self.name, self.value)


def parse(text, source):
    """The settings of the fragment @text read from @source (a name for
    messages), in order. ConfigError naming SOURCE:LINE for a line that is
    neither blank, a comment, CONFIG_X=VALUE nor "# CONFIG_X is not set"."""
    out = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        m = SET.match(line) or UNSET.match(line)
        if m:
            value = m.group(2) if m.re is SET else "n"
            if value == "":
                raise ConfigError("%s:%d: %s: no value (CONFIG_X=y, m, n, a number or "
                                  "\"a string\")" % (source, n, line))
            out.append(Setting(m.group(1), value, "%s:%d" % (source, n)))
        elif line and not line.startswith("#"):
            raise ConfigError("%s:%d: %r is no Kconfig line (CONFIG_X=VALUE or "
                              "\"# CONFIG_X is not set\")" % (source, n, line[:60]))
    return out


def values(config_text):
    """NAME -> value of a .config's text ("n" for "is not set")."""
    return {s.name: s.value for s in parse(config_text, ".config")}


def requested(fragments):
    """NAME -> the Setting that wins among @fragments ((source, text)
    pairs in order: a later one overrides an earlier one)."""
    out = {}
    for source, text in fragments:
        for s in parse(text, source):
            out[s.name] = s
    return out


def merge(base_text, fragments):
    """@base_text (a .config) with every setting of @fragments applied:
    a symbol the base has changes in place, a new one is appended in the
    order asked. The text to write as .config before make olddefconfig."""
    want = requested(fragments)
    lines, seen = [], set()
    for raw in base_text.splitlines():
        m = SET.match(raw.strip()) or UNSET.match(raw.strip())
        if m and m.group(1) in want:
            lines.append(want[m.group(1)].line())
            seen.add(m.group(1))
        else:
            lines.append(raw)
    lines += [s.line() for name, s in want.items() if name not in seen]
    return "\n".join(lines) + "\n"


def satisfied(asked, final):
    """Whether the final value @final (None: absent) gives what was asked:
    "m" is met by "y" (built in serves a test as well), "n" by absence."""
    final = "n" if final is None else final
    return asked == final or (asked == "m" and final == "y")


def dropped(want, config_text):
    """The Settings of @want (NAME -> Setting) the final .config text
    does not satisfy, each with its final value: [(Setting, final)]."""
    have = values(config_text)
    return [(s, have.get(s.name, "n")) for s in want.values()
            if not satisfied(s.value, have.get(s.name))]
