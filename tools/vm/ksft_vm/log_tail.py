# SPDX-License-Identifier: GPL-2.0
"""The last lines of a log, for a message that quotes them (ksft-vm-ab's
boots, --tree's build)."""


def log_tail(path, n, missing=""):
    """@path's last @n lines (bytes that are not UTF-8 replaced), or
    @missing when it cannot be read."""
    try:
        with open(path, "rb") as f:
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return missing
    return "\n".join(lines[-n:])
