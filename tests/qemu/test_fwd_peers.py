"""Real peers through the L3 router: two network namespaces made by the
test, each holding a tap device wired to one appliance port, with an
address and a route via the appliance; Debian's ping and iperf3 (UDP at a
bounded rate, and TCP, each for a bounded time) run from one namespace to
the other. Needs root (ip netns, tap devices); only addresses inside the
namespaces are used."""
import json
import os
import re
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from qemurun import Qemu  # noqa: E402

from netns import TapPeer, sh  # noqa: E402

PROMPT = "linerate> "
SUBNET = ("10.1.0", "10.2.0")


@pytest.fixture
def peers():
    made = []
    try:
        for tag in ("fp1", "fp2"):
            made.append(TapPeer(tag))
        yield made
    finally:
        for p in made:
            p.close()


def fwd_counters(q):
    q.send("fwd\r")
    m = q.expect(r"(?s)fwd\r\n(.*?)" + re.escape(PROMPT), 20)
    out = m.group(1).decode()
    return {int(p): {k: int(v) for k, v in re.findall(r"(\w+) (\d+)", line)}
            for p, line in re.findall(r"fwd port(\d): (rx .*)", out)}


def test_ping_and_iperf3_through_router(peers):
    nics = [f"e1000e:netdev=tap,ifname={p.tap}" for p in peers]
    NS = [p.ns for p in peers]
    with Qemu(boot="kernel", mem="256M", nics=nics,
              append="app=fwd ip0=10.1.0.1/24 ip1=10.2.0.1/24 stats=0") as q:
        q.expect("port1: link up", 60)
        q.send("\r")
        q.expect(PROMPT, 30)
        # The taps move into their namespaces with QEMU holding them open.
        for p, net, other in zip(peers, SUBNET, reversed(SUBNET)):
            p.wire(f"{net}.2/24", [(f"{other}.0/24", f"{net}.1")])
        out = sh("ping", "-c", "5", "-i", "0.2", "-W", "2", "10.2.0.2", ns=NS[0], timeout=30)
        assert "5 received" in out, out
        server = subprocess.Popen(["ip", "netns", "exec", NS[1], "iperf3", "-s", "-1", "-J"],
                                  stdout=subprocess.PIPE, text=True)
        time.sleep(0.5)
        before = fwd_counters(q)
        try:
            udp = json.loads(sh("iperf3", "-c", "10.2.0.2", "-u", "-b", "2M", "-t", "3",
                                "-l", "1000", "-J", ns=NS[0], timeout=60))
        finally:
            server.wait(timeout=30)
        after = fwd_counters(q)
        s = udp["end"]["sum"]
        assert s["lost_packets"] == 0, s
        udp_packets = s["packets"]
        # The router forwarded every datagram iperf3 counts, plus only the
        # few packets of iperf3's TCP control connection.
        extra = after[0]["forwarded"] - before[0]["forwarded"] - udp_packets
        assert 0 <= extra <= 60, (extra, udp_packets)
        server = subprocess.Popen(["ip", "netns", "exec", NS[1], "iperf3", "-s", "-1", "-J"],
                                  stdout=subprocess.PIPE, text=True)
        time.sleep(0.5)
        try:
            tcp = json.loads(sh("iperf3", "-c", "10.2.0.2", "-t", "3", "-J", ns=NS[0], timeout=60))
        finally:
            server.wait(timeout=30)
        assert tcp["end"]["sum_received"]["bytes"] > 0
        c = fwd_counters(q)
    # Accounting: every frame the router received is forwarded, for us, ARP,
    # or a named drop (IPv6 neighbour discovery from Linux lands in not_ipv4).
    for port in (0, 1):
        p = c[port]
        named = sum(v for k, v in p.items() if k not in ("rx", "forwarded", "local", "arp"))
        assert p["rx"] == p["forwarded"] + p["local"] + p["arp"] + named, p
    # At least the iperf3 UDP datagrams (plus ping, TCP) crossed 0 -> 1.
    assert c[0]["forwarded"] >= udp_packets + 5
