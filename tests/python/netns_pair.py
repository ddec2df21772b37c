# SPDX-License-Identifier: GPL-2.0
"""Two network namespaces this test creates, joined by a veth pair, each
end with an address of its own and loopback up; deleted on the way out.
Shared by the tests that run producers between namespaces."""
import contextlib
import os
import secrets
import subprocess


@contextlib.contextmanager
def netns_pair(kind, addr_a, addr_b):
    """Yield (ns_a, ns_b, if_a, if_b); @kind (two letters) tells tests apart."""
    tag = f"{os.getpid()}-{secrets.token_hex(3)}"
    ns_a, ns_b = f"ksftm-{kind}a-{tag}", f"ksftm-{kind}b-{tag}"
    if_a, if_b = f"{kind}a{os.getpid() % 100000}", f"{kind}b{os.getpid() % 100000}"
    setup = [["ip", "netns", "add", ns_a], ["ip", "netns", "add", ns_b],
             ["ip", "-n", ns_a, "link", "add", if_a, "type", "veth", "peer", "name", if_b,
              "netns", ns_b],
             ["ip", "-n", ns_a, "addr", "add", addr_a + "/24", "dev", if_a],
             ["ip", "-n", ns_b, "addr", "add", addr_b + "/24", "dev", if_b],
             ["ip", "-n", ns_a, "link", "set", if_a, "up"],
             ["ip", "-n", ns_b, "link", "set", if_b, "up"],
             ["ip", "-n", ns_a, "link", "set", "lo", "up"],
             ["ip", "-n", ns_b, "link", "set", "lo", "up"]]
    try:
        for c in setup:
            subprocess.run(c, check=True)
        yield ns_a, ns_b, if_a, if_b
    finally:
        for ns in (ns_a, ns_b):
            subprocess.run(["ip", "netns", "del", ns], check=False)
