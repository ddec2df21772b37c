# SPDX-License-Identifier: GPL-2.0
"""Where this ksft-vm was built or installed: its launcher's directory
(ksft-vm and ksft-vm-ab live there) and the ksft-metric built or installed
with it. The launcher sets both; run from the source tree, the build
directory's are guessed."""
import os

BINDIR = None
KSFT_METRIC = None
PLUGIN_DIR = None       # where ksft_profile.so is (ksft-vm --profile)


def ksft_vm():
    """The ksft-vm launcher beside this one."""
    return os.path.join(BINDIR, "ksft-vm") if BINDIR else "ksft-vm"


def ksft_metric():
    return KSFT_METRIC or "ksft-metric"
