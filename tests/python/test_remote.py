#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""cfg.remote forms: prefixes pass through, the kernel's NetDrvEpEnv remote
objects (module remote_netns / remote_ssh, the host in .name) become the
prefix their cmd() uses, anything else is a ValueError saying so."""
import types
import unittest

from ksftmetric import _remote


def kernel_remote(module, name):
    cls = type("Remote", (), {"__module__": module})
    obj = cls()
    obj.name = name
    return obj


class RemoteTest(unittest.TestCase):
    def test_prefixes_pass_through(self):
        for r in (None, "ssh host", ["ip", "netns", "exec", "nsB"], ("ssh", "h")):
            self.assertIs(_remote.remote_prefix(r), r)

    def test_kernel_remotes(self):
        self.assertEqual(_remote.remote_prefix(kernel_remote("lib.py.remote_netns", "nsB")),
                         ["ip", "netns", "exec", "nsB"])
        self.assertEqual(_remote.remote_prefix(kernel_remote("lib.py.remote_ssh", "dut2")),
                         ["ssh", "-q", "dut2"])

    def test_unknown_object_is_a_clear_error(self):
        for bad in (kernel_remote("lib.py.remote_telnet", "x"),
                    kernel_remote("lib.py.remote_netns", ""), types.SimpleNamespace()):
            with self.assertRaisesRegex(ValueError, "not a remote this package understands"):
                _remote.remote_prefix(bad)


if __name__ == "__main__":
    unittest.main()
