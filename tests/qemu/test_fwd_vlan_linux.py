"""A Linux peer on a VLAN sub-interface through app=fwd (issue 26): this
host's kernel has no 802.1Q (CONFIG_VLAN_8021Q unset, no modules), so the
peer is the Debian Linux guest (tools/linux_guest.py: Debian's kernel and
its 8021q module) on the router's port0, with `ip link add link eth0 name
eth0.100 type vlan id 100` at 10.100.0.2/24 and its default route via the
router's ip0.100= (10.100.0.1); the other peer is a network namespace on a
tap wired to port1, untagged, 10.2.0.2/24. Debian's ping both ways through
the router, every echo and reply counted on its link; with vlan_strip=1 the
NIC takes the Linux peer's tags off (e1000e's CTRL.VME, RCTL.VFE). Needs
root (ip netns, tap devices) and the guest's packages (apt-get download);
about 45 s, most of it the guest's boot under TCG, so not in make test:
`make linux-peers` runs it."""
import os
import re
import sys
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import linux_guest  # noqa: E402
import netns  # noqa: E402
from qemurun import Qemu  # noqa: E402

PROMPT = "linerate> "
NS, TAP = netns.names("vlx")


def fwd(q):
    """{link: {counter: value}} from the router's fwd command."""
    c = {}
    for link, body in re.findall(r"^fwd (port[0-9.]+)(?: l3[^:]*)?: (.*)$", q.shell("fwd"), re.M):
        c.setdefault(link, {}).update({k: int(v) for k, v in re.findall(r"(\w+) (\d+)", body)})
    return c


def moved(a, b):
    return {link: {k: b[link][k] - a[link].get(k, 0) for k in b[link] if b[link][k] != a[link].get(k, 0)
                   and k != "held"} for link in b}


@pytest.mark.skipif("LINUX_PEERS" not in os.environ, reason="make linux-peers (LINUX_PEERS=1)")
def test_linux_vlan_peer_routed_to_an_untagged_port():
    netns.tap_add(TAP)
    try:
        with Qemu(boot="kernel", mem="256M", nics=["e1000e:netdev=stream", f"e1000e:netdev=tap,ifname={TAP}"],
                  append="app=fwd stats=0 ip0.100=10.100.0.1/24 ip1=10.2.0.1/24 vlan_strip=1") as r:
            r.expect("port1: link up", 90)
            r.send("\r")
            r.expect(PROMPT, 30)
            assert "fwd: port0.100: VLAN tag stripping and filtering by the NIC (vlan_strip=1)" in r.text()
            netns.wire(NS, TAP, "10.2.0.2/24", [("10.100.0.0/24", "10.2.0.1")])
            kernel, initrd = linux_guest.build()
            with Qemu(boot="kernel", kernel=kernel, mem="256M", extra=("-initrd", initrd),
                      nics=[f"e1000e:netdev=stream,connect={r.nic_sock(0)}"],
                      append="console=ttyS0 quiet ipv6.disable=1 lg_vlan0=100:10.100.0.2/24 "
                             "lg_gw=10.100.0.1") as g:
                g.expect(r"linux-guest: ready (\S+)", 300)
                # The guest asks for its gateway (ARP, tagged 100) on its first
                # echo; from then on each echo and reply is routed.
                out = netns.sh("ping", "-c", "1", "-W", "5", "10.100.0.2", ns=NS, timeout=60, check=False)
                if "1 received" not in out:      # the guest's link came up late
                    out = netns.sh("ping", "-c", "1", "-W", "5", "10.100.0.2", ns=NS, timeout=60)
                a = fwd(r)
                out = netns.sh("ping", "-c", "5", "-i", "0.2", "-W", "3", "10.100.0.2", ns=NS, timeout=60)
                assert "5 received" in out, out
                end = time.monotonic() + 10
                while (m := moved(a, fwd(r)))["port0.100"].get("forwarded", 0) < 5 and time.monotonic() < end:
                    time.sleep(0.2)
                assert m == {"port0": {}, "port0.100": {"rx": 5, "forwarded": 5},
                             "port1": {"rx": 5, "forwarded": 5}}, m
                # From the Linux peer's side: its VLAN's echo requests routed out
                # untagged and the namespace's replies back tagged.
                g.send("ping -c 3 -W 3 10.2.0.2\n")
                g.expect(r"3 packets transmitted, 3 packets received", 60)
                arp = r.shell("fwd arp")
                assert re.search(r"port0\.100\s+10\.100\.0\.2\s+\S+\s+(reachable|stale|delay|probe)", arp), arp
                print("Linux", g.text().split("linux-guest: ready ")[1].split()[0],
                      "eth0.100 (8021q) through the router: ping both ways")
    finally:
        netns.remove(NS, TAP)
