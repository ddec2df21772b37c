# SPDX-License-Identifier: GPL-2.0
"""ksft-vm --profile: an exact instruction profile of the guest.

QEMU loads tools/vm/plugin/ksft_profile.so, which counts every translated
block's executions and dumps them at exit, the whole run and one window per
test case (the library's begin/end markers). After COMMAND, the guest's
/init sends its own /proc/kallsyms behind the result; this module turns the
counts into functions (kernel and modules by that table, user space as one
entry) and writes cachegrind's format (cg_annotate, cg_diff, ksft-metric
profile-diff read it). doc/vm.rst, "Profiling a guest", says what it sees.

Pure functions and a typed error; ksft-vm's main() decides what to print.
"""
import bisect
import os
import re
import subprocess

PLUGIN = "ksft_profile.so"
# The guest learns whether to send its symbols after COMMAND from a fw_cfg
# file present in every boot with the same size (only its byte differs),
# so a profiled boot runs the same instructions as a plain one until then.
FW_CFG_NAME = "opt/ksft-vm/profile"
SYMS_MARK = b"KSFT-VM-KALLSYMS"
# A KTAP diagnostic COMMAND prints inside a case: the work that case's
# window did (bytes moved...), one line a case; profile-diff divides by it.
WORK_LINE = re.compile(rb"^# profile-work: ([0-9]+(?:\.[0-9]+)?) ([A-Za-z][A-Za-z0-9_/-]*)$", re.M)
USER_END = 0x0000800000000000   # below: user space (any process)
FAR = 1 << 20                   # a block this far past its symbol is not its


class ProfileError(Exception):
    """A profile cannot be made or read; the message says why."""


def find_plugin(plugin_dir=None):
    """The plugin in @plugin_dir (the launcher's: build/tools/vm/plugin in a
    build tree, libexec/ksftmetric once installed); ProfileError when it is
    not there."""
    if plugin_dir is None:
        from . import install
        plugin_dir = install.PLUGIN_DIR
    if not plugin_dir:
        raise ProfileError("this ksft-vm was not built with the profile plugin "
                           "(x86 only) or was run without its launcher")
    c = os.path.join(plugin_dir, PLUGIN)
    if os.path.isfile(c):
        return c
    raise ProfileError("the profile plugin %s is not built (looked in %s)" % (PLUGIN, plugin_dir))


def check_plugin(qemu, plugin):
    """Load @plugin in @qemu without a guest (-M none, then quit): a
    ProfileError with QEMU's own words when it cannot (no plugin support,
    another API version, a foreign build)."""
    cmd = [qemu, "-M", "none", "-accel", "tcg", "-display", "none", "-nodefaults",
           "-monitor", "stdio"] + plugin_args(plugin, os.devnull)
    try:
        res = subprocess.run(cmd, input=b"quit\n", stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ProfileError("%s with the profile plugin: %s" % (qemu, e))
    if res.returncode:
        lines = res.stdout.decode("utf-8", "replace").replace("(qemu) ", "").splitlines()
        words = "; ".join(l for l in lines if l.strip() and "monitor - type" not in l)
        raise ProfileError("%s cannot load the profile plugin %s: %s" % (qemu, plugin, words))


def fw_cfg_args(profile):
    """QEMU arguments every icount boot carries: the guest's flag."""
    return ["-fw_cfg", "name=%s,string=%d" % (FW_CFG_NAME, 1 if profile else 0)]


def plugin_args(plugin, dump, mode="block"):
    """QEMU arguments loading the plugin, its counts to @dump (commas in a
    path doubled: QEMU's option syntax)."""
    if mode not in ("block", "insn"):
        raise ProfileError("profile mode %r: block or insn" % mode)
    return ["-plugin", "%s,out=%s,mode=%s" % (plugin.replace(",", ",,"),
                                               dump.replace(",", ",,"), mode)]


# /init, after the result left and before the reboot: with the flag set,
# the guest's symbols follow the result on /dev/ttyS1 (text symbols only).
# qemu_fw_cfg is a module in Debian's kernels, maybe built in elsewhere.
INIT_SEND_SYMBOLS = r"""
modprobe qemu_fw_cfg 2>/dev/null
if [ "$(cat /sys/firmware/qemu_fw_cfg/by_name/%(name)s/raw 2>/dev/null)" = 1 ]; then
	{
		echo "%(mark)s"
		grep -E '^[0-9a-f]+ [tTwW] ' /proc/kallsyms
		echo "%(mark)s-END"
	} > /dev/ttyS1
fi
""" % {"name": FW_CFG_NAME, "mark": SYMS_MARK.decode()}
# Set before COMMAND in every boot: JIT-ed BPF programs get kallsyms names.
INIT_BEFORE = "sysctl -qw net.core.bpf_jit_kallsyms=1 2>/dev/null\n"
# The module the guest reads its flag with, packed in every root.
MODULE_GLOBS = ("kernel/drivers/firmware/qemu_fw_cfg.ko*",)


def read_dump(text, where="profile dump"):
    """The plugin's dump: {"mode", "windows": {name: [(vaddr, n, execs,
    offsets)]}}, offsets: where instructions 2..n start (None in a version
    1 dump, or for one instruction)."""
    lines = text.splitlines()
    if not lines or lines[0] not in ("ksft-profile 1", "ksft-profile 2"):
        raise ProfileError("%s: line 1: not a ksft_profile dump (QEMU ended before "
                           "the plugin wrote it?)" % where)
    out = {"mode": None, "windows": {}, "order": [], "markers": ""}
    cur = None
    for i, line in enumerate(lines[1:], 2):
        w = line.split()
        if not w:
            continue
        if w[0] == "mode":
            out["mode"] = w[1]
        elif w[0] == "markers":
            out["markers"] = " ".join(w[1:])
        elif w[0] == "error":
            raise ProfileError("%s: line %d: the plugin says: %s" % (where, i, line[6:]))
        elif w[0] == "window":
            cur = " ".join(w[1:])
            out["windows"][cur] = []
            out["order"].append(cur)
        elif w[0] == "end":
            return out
        elif cur is not None and len(w) in (3, 4):
            try:
                offs = tuple(int(o, 16) for o in w[3].split(",")) if len(w) == 4 else None
                n = int(w[1])
                if offs is not None and len(offs) != n - 1:
                    raise ValueError
                out["windows"][cur].append((int(w[0], 16), n, int(w[2]), offs))
            except ValueError:
                raise ProfileError("%s: line %d: bad count line %r" % (where, i, line))
        else:
            raise ProfileError("%s: line %d: unexpected %r" % (where, i, line))
    raise ProfileError("%s: no end line (cut short)" % where)


def split_symbols(result):
    """The guest's symbol table behind the result on ttyS1 (bytes), or None."""
    start = result.find(SYMS_MARK + b"\n")
    if start < 0:
        return None
    end = result.find(SYMS_MARK + b"-END", start)
    if end < 0:
        raise ProfileError("the guest's symbol table was cut short")
    return result[start + len(SYMS_MARK) + 1:end].decode("utf-8", "replace")


class Symbols:
    """Text symbols of /proc/kallsyms: an address's function and module."""

    def __init__(self, text):
        best = {}
        for line in text.splitlines():
            w = line.split()
            if len(w) < 3 or w[1] not in "tTwW":
                continue
            addr = int(w[0], 16)
            mod = w[3].strip("[]") if len(w) > 3 else "kernel"
            name = w[2]
            old = best.get(addr)
            # Aliases: the first name, but never a 6.x "__pfx_" padding one.
            if old is None or (old[0].startswith("__pfx_") and not name.startswith("__pfx_")):
                best[addr] = (name, mod)
        self.addrs = sorted(best)
        self.names = [best[a] for a in self.addrs]
        if not self.addrs:
            raise ProfileError("the guest's /proc/kallsyms has no text symbol "
                               "(kptr_restrict?)")

    def lookup(self, vaddr):
        """(module, function) of @vaddr: "[user]" below the kernel's half,
        "[unknown]" where no symbol covers it (code freed before the table
        was read, or never named)."""
        return self.lookup_span(vaddr)[0]

    def lookup_span(self, vaddr):
        """lookup() and the address where that name's code ends (the next
        symbol; None: unbounded)."""
        if vaddr < USER_END:
            return ("[user]", "user space (all processes)"), USER_END
        i = bisect.bisect_right(self.addrs, vaddr) - 1
        if i < 0 or vaddr - self.addrs[i] >= FAR:
            return ("[unknown]", "no symbol (freed or unnamed code)"), None
        name, mod = self.names[i]
        end = self.addrs[i + 1] if i + 1 < len(self.addrs) else None
        return ("[%s]" % mod, name), end


def fold(entries, syms):
    """Instructions per (module, function) of a window's (vaddr, n, execs,
    offsets): a block counts to its first instruction's function, or
    instruction by instruction when it runs on past that function's end
    (a label inside an assembly function, a fall-through)."""
    out = {}
    for vaddr, n, execs, offs in entries:
        key, end = syms.lookup_span(vaddr)
        if not offs or end is None or vaddr + offs[-1] < end:
            out[key] = out.get(key, 0) + n * execs
            continue
        for addr in [vaddr] + [vaddr + o for o in offs]:
            k = syms.lookup(addr)
            out[k] = out.get(k, 0) + execs
    return out


def one_line(text):
    """@text with its control characters (a script's newlines) as spaces:
    a line of the format holds one field."""
    return re.sub(r"[\x00-\x1f\x7f]", " ", text)


def cachegrind_text(costs, desc, cmd):
    """cachegrind's output format: one event (Ir: instructions), a file
    name per module, each function's count on line 0."""
    out = ["desc: %s" % one_line(d) for d in desc]
    out += ["cmd: %s" % one_line(cmd), "events: Ir"]
    last = None
    for (mod, fn) in sorted(costs):
        if costs[(mod, fn)] == 0:
            continue
        if mod != last:
            out.append("fl=" + mod)
            last = mod
        out.append("fn=" + fn)
        out.append("0 %d" % costs[(mod, fn)])
    out.append("summary: %d" % sum(costs.values()))
    return "\n".join(out) + "\n"


def case_works(out, n_cases):
    """The work each of @n_cases case windows did, from COMMAND's output
    @out (bytes): [(text, unit)] a case, in order, or None with the reason
    when the lines do not give one work a case in one unit."""
    works = [(m.group(1).decode(), m.group(2).decode()) for m in WORK_LINE.finditer(out)]
    if not works:
        return None, None
    if len(works) != n_cases:
        return None, ("COMMAND printed %d '# profile-work:' lines for %d case windows: "
                      "no work written (one a case)" % (len(works), n_cases))
    if len({u for _, u in works}) > 1:
        return None, "'# profile-work:' lines in several units: no work written"
    return works, None


def _work_sum(works):
    total = sum(float(w) for w, _ in works)
    return "%d" % total if total == int(total) else repr(total)


def write_profiles(path, dump_text, result, cmd, where="profile dump", out=b"", warn=None):
    """Write @path (the case windows summed), @path.whole (the whole run)
    and @path.caseN (each window); the paths written. With one
    "# profile-work: N UNIT" line a case in COMMAND's output @out, each
    case file says its work ("desc: work: N UNIT") and @path their sum;
    when the lines do not match the windows, @warn(reason) and no work
    (without @warn: ProfileError)."""
    dump = read_dump(dump_text, where)
    table = split_symbols(result)
    if table is None:
        raise ProfileError("the guest sent no symbol table (it did not reach the end "
                           "of /init, or its kernel has no CONFIG_FW_CFG_SYSFS)")
    syms = Symbols(table)
    mode = "per instruction" if dump["mode"] == "insn" else "per block (address, instructions)"
    cases = [w for w in dump["order"] if w.startswith("case ")]
    written = []
    works, why = case_works(out, len(cases))
    if why and not warn:
        raise ProfileError(why)
    if why:
        warn(why)

    def one(name, windows, what, work=None):
        costs = {}
        for w in windows:
            for k, v in fold(dump["windows"][w], syms).items():
                costs[k] = costs.get(k, 0) + v
        desc = ["ksft-vm profile: %s" % what, "counted %s; symbols: the guest's "
                "/proc/kallsyms after COMMAND" % mode, "markers: %s" % dump["markers"]]
        if work:
            desc.append("work: %s %s" % work)
        with open(name, "w") as f:
            f.write(cachegrind_text(costs, desc, cmd))
        written.append(name)

    if cases:
        one(path, cases, "%d case window%s summed" % (len(cases), "s" if len(cases) > 1 else ""),
            (_work_sum(works), works[0][1]) if works else None)
    else:
        one(path, ["whole"], "whole run (COMMAND marked no case)")
    one(path + ".whole", ["whole"], "whole run: boot, COMMAND and after")
    for i, w in enumerate(cases, 1):
        one("%s.case%d" % (path, i), [w], "case window %d" % i, works[i - 1] if works else None)
    return written

