# SPDX-License-Identifier: GPL-2.0
"""cfg.remote as a command prefix, whatever form the test hands it in.

The producers run the remote endpoint's commands as argv behind a prefix
(``ip netns exec NS``, ``ssh HOST``). Besides a prefix, ``cfg.remote`` may be
the remote object of the kernel's own ``NetDrvEpEnv``
(tools/testing/selftests/drivers/net/lib/py): its ``remote_netns.Remote``
and ``remote_ssh.Remote`` keep the namespace or host in ``.name`` and run a
shell string with ``ip netns exec NAME bash -c`` / ``ssh -q NAME``. We map
them to the same prefixes rather than calling their ``cmd()``: the C side
needs a prefix it can exec and quote for, not a Popen.
"""

# The kernel module's last name component -> the prefix its cmd() uses.
_KERNEL_REMOTES = {
    "remote_netns": ("ip", "netns", "exec"),
    "remote_ssh": ("ssh", "-q"),
}


def remote_prefix(remote):
    """A prefix (list, tuple or str, returned as is), None, or the words
    for a kernel remote object; anything else is a ValueError that says
    what was given and what is understood."""
    if remote is None or isinstance(remote, (str, list, tuple)):
        return remote
    module = type(remote).__module__ or ""
    kind = module.rsplit(".", 1)[-1]
    name = getattr(remote, "name", None)
    if kind in _KERNEL_REMOTES and isinstance(name, str) and name:
        return list(_KERNEL_REMOTES[kind]) + [name]
    raise ValueError(
        f"cfg.remote: a {module}.{type(remote).__name__} is not a remote this "
        "package understands; give a command prefix (e.g. ['ip', 'netns', "
        "'exec', 'nsB'] or ['ssh', 'host']), None, or the remote of the "
        "kernel's NetDrvEpEnv (remote_netns / remote_ssh)")
