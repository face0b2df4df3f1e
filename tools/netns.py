"""Network namespaces holding a tap device wired to a QEMU guest, for the
tests, benchmarks and demos that talk to the appliance through Linux's own
stack (ping, iperf3, sockperf, ptp4l, prometheus). Every name carries the
calling process's id, so runs from several checkouts do not collide; the
tap and the namespace are removed by close(). Traffic stays between the
namespace and the guest. Needs root."""
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


def need_root():
    if os.geteuid() != 0:
        raise PermissionError("this needs root for network namespaces and tap devices")


class TapPeer:
    """A tap device made now (QEMU opens it by name: `netdev=tap,ifname=`),
    moved by wire() into a namespace of its own once QEMU holds it."""

    def __init__(self, tag):
        pid = os.getpid()
        self.ns, self.tap = f"lr{tag}{pid}", f"lr{tag}t{pid % 100000}"[:15]
        self.wired = False
        need_root()
        sh("ip", "tuntap", "add", "dev", self.tap, "mode", "tap")

    def wire(self, addr=None, routes=()):
        """Into the namespace, up, with addr ("A.B.C.D/LEN") and routes
        ((prefix, via), ...)."""
        sh("ip", "netns", "add", self.ns)
        self.wired = True
        sh("ip", "link", "set", self.tap, "netns", self.ns)
        if addr:
            sh("ip", "addr", "add", addr, "dev", self.tap, ns=self.ns)
        sh("ip", "link", "set", self.tap, "up", ns=self.ns)
        sh("ip", "link", "set", "lo", "up", ns=self.ns)
        for prefix, via in routes:
            sh("ip", "route", "add", prefix, "via", via, ns=self.ns)

    def run(self, *cmd, **kw):
        """sh(cmd) inside the namespace."""
        return sh(*cmd, ns=self.ns, **kw)

    def close(self):
        sh("ip", "link", "del", self.tap, check=False)
        if self.wired:
            sh("ip", "netns", "del", self.ns, check=False)
