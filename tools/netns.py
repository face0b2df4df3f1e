"""Network namespaces holding a tap device wired to a QEMU guest, for the
tests, benchmarks and demos that talk to the appliance through Linux's own
stack (ping, iperf3, sockperf, ptp4l, prometheus). Every name carries the
calling process's id, so runs from several checkouts do not collide; the
tap and the namespace are removed by remove() / TapPeer.close(). Traffic
stays between the namespace and the guest. Needs root."""
import os
import subprocess


def sh(*cmd, ns=None, timeout=120, check=True):
    """Run cmd (inside namespace ns if given); its output, or RuntimeError
    with the output when it fails and check is set."""
    full = (["ip", "netns", "exec", ns] if ns else []) + list(cmd)
    r = subprocess.run(full, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=timeout)
    if check and r.returncode:
        raise RuntimeError(f"{' '.join(full)}: exit {r.returncode}\n{r.stdout}")
    return r.stdout


def names(tag):
    """(namespace, tap) names for tag, unique to this process (a tap name
    has at most 15 characters)."""
    pid = os.getpid()
    return f"lr{tag}{pid}", f"lr{tag}t{pid % 100000}"[:15]


def tap_add(tap, queues=1):
    """Make the tap device, before QEMU opens it by name (netdev=tap,ifname=);
    multi_queue when QEMU opens it with queues > 1."""
    if os.geteuid() != 0:
        raise PermissionError("this needs root for network namespaces and tap devices")
    sh("ip", "tuntap", "add", "dev", tap, "mode", "tap", *(["multi_queue"] if queues > 1 else []))


def wire(ns, tap, addr=None, routes=()):
    """Once QEMU holds the tap: move it into a new namespace ns and bring it
    up there with addr ("A.B.C.D/LEN") and routes ((prefix, via), ...)."""
    sh("ip", "netns", "add", ns)
    sh("ip", "link", "set", tap, "netns", ns)
    if addr:
        sh("ip", "addr", "add", addr, "dev", tap, ns=ns)
    sh("ip", "link", "set", tap, "up", ns=ns)
    sh("ip", "link", "set", "lo", "up", ns=ns)
    for prefix, via in routes:
        sh("ip", "route", "add", prefix, "via", via, ns=ns)


def remove(ns, tap):
    """The tap and the namespace gone, whichever exists."""
    sh("ip", "link", "del", tap, check=False)
    sh("ip", "netns", "del", ns, check=False)


class TapPeer:
    """tap_add now; wire() into its namespace later; close() removes both."""

    def __init__(self, tag, queues=1):
        self.ns, self.tap = names(tag)
        tap_add(self.tap, queues)

    def wire(self, addr=None, routes=()):
        wire(self.ns, self.tap, addr, routes)

    def close(self):
        remove(self.ns, self.tap)
