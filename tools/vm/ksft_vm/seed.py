# SPDX-License-Identifier: GPL-2.0
"""--seed S: the same test under a different, reproducible starting state.

Under icount nothing costs more or less because of its address; what moves
a test's counts is control flow, first the phase of the periodic timer
against the test (issue 42 measured a UDP round trip's mode flip from a
busy loop alone). A seed S > 0 runs a busy loop of spin(S) iterations in
/init before COMMAND; its count travels in KSFT_VM_SEED_SPIN, whose value
has the same length for every S, so the environment's size does not move
with S. The words ksftm.seed=S and ksftm.seed_spin=N on the kernel's
command line (which the kernel also mixes into its RNG) put both in the
run's context line, and /init adds the hash of the first urandom bytes it
reads (KSFTMETRIC_CONTEXT_SEED_URANDOM, fixed length too). S = 0 adds
nothing: today's boot, byte for byte."""
import hashlib

SPIN_BASE = 1000000       # the loop counts from here: 7 digits for every S
SPIN_RANGE = 5000         # a few timer ticks of a shell loop under icount
SPIN_VAR = "KSFT_VM_SEED_SPIN"
URANDOM_VAR = "KSFTMETRIC_CONTEXT_SEED_URANDOM"

# Run by /init before COMMAND when S > 0 (the variables come from env()).
INIT_LINES = r"""i=%(base)d
while [ $i -lt $%(spin)s ]; do i=$((i+1)); done
export %(urandom)s=$(head -c 16 /dev/urandom | sha256sum | cut -c1-16)
""" % {"base": SPIN_BASE, "spin": SPIN_VAR, "urandom": URANDOM_VAR}


def spin(seed):
    """The busy loop's iterations for @seed (0 for 0)."""
    if seed == 0:
        return 0
    digest = hashlib.sha256(b"ksft-vm seed %d" % seed).digest()
    return int.from_bytes(digest[:8], "big") % SPIN_RANGE


def env(seed):
    """The guest's variables for @seed ({} for 0)."""
    return {SPIN_VAR: "%d" % (SPIN_BASE + spin(seed))} if seed else {}


def context_words(seed):
    """The ksftm.KEY=VALUE words for @seed ([] for 0)."""
    return ["ksftm.seed=%d" % seed, "ksftm.seed_spin=%d" % spin(seed)] if seed else []


def init_lines(seed):
    return INIT_LINES if seed else ""
