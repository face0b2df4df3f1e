"""virtio-net with several queue pairs (issue 25): QEMU's virtio-net-pci
with mq=on on a multiqueue tap inside a network namespace this test makes
and removes, two cores, `queues=2`: UDP flows sent by the namespace's own
stack arrive on both queue pairs, each polled by its own core, and every
frame is counted exactly once. Needs root (ip netns, tap devices); traffic
stays between the namespace and the guest."""
import os
import re
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from netns import TapPeer, sh  # noqa: E402
from qemurun import Qemu  # noqa: E402

PROMPT = "linerate> "
FRAMES, FLOWS = 400, 64
GUEST_MAC = "52:54:00:12:34:56"      # QEMU's default for port0


@pytest.fixture
def mq_box():
    peer = TapPeer("vmq", queues=2)
    q = None
    try:
        q = Qemu(boot="kernel", mem="256M", smp=2,
                 nics=[f"virtio-net-pci:netdev=tap,ifname={peer.tap},queues=2"],
                 append="stats=0 app=sink queues=2 promisc=1")
        q.expect(r"port0: link up", 90)
        peer.wire("10.9.0.2/24")
        # No IPv6 autoconfiguration or ARP from the namespace: only the test's frames.
        sh("sysctl", "-qw", f"net.ipv6.conf.{peer.tap}.disable_ipv6=1", ns=peer.ns)
        sh("ip", "neigh", "replace", "10.9.0.1", "lladdr", GUEST_MAC, "dev", peer.tap, "nud", "permanent",
           ns=peer.ns)
        q.send("\r")
        q.expect(PROMPT, 30)
        yield q, peer
    finally:
        if q:
            q.stop()
        peer.close()


def sink_queues(q):
    return {int(n): int(p) for n, p in re.findall(r"sink port0 q(\d+): (\d+) packets", q.shell("sink", 30))}


def test_two_queue_pairs_on_two_cores(mq_box):
    q, peer = mq_box
    text = q.text()
    assert re.search(r"port0: virtio_net .*, 2 queue\(s\), rxd 256 txd 256, MSI-X\r", text), text[-2000:]
    assert re.search(r"port0: virtio features \w+: VERSION_1 .* CTRL_VQ CTRL_RX MQ, MTU 1500\r", text)
    assert "core0: port0/q0\r" in text and "core1: port0/q1\r" in text
    # What came before (the namespace's IPv6 start-up, before it was disabled) is not counted.
    before = sink_queues(q)
    c0 = {k: int(v) for k, v in re.findall(r"(\w+): (\d+)", q.shell("ethtool -S port0", 30))}
    sh("python3", "-c", f"""
import socket
for i in range({FRAMES}):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("10.9.0.2", 20000 + i % {FLOWS}))
    s.sendto(i.to_bytes(4, "big") + bytes(14), ("10.9.0.1", 9))
    s.close()
""", ns=peer.ns)
    got = {}
    for _ in range(100):
        got = {n: v - before[n] for n, v in sink_queues(q).items()}
        if sum(got.values()) >= FRAMES:
            break
    assert sum(got.values()) == FRAMES, got
    assert got[0] > 0 and got[1] > 0, got          # the tap spread the 64 flows over both pairs
    c = {k: int(v) for k, v in re.findall(r"(\w+): (\d+)", q.shell("ethtool -S port0", 30))}
    for n in (0, 1):
        assert c["rx_queue_%d_packets" % n] - c0["rx_queue_%d_packets" % n] == got[n], (n, c)
        assert c["rx_queue_%d_drops" % n] == 0, c
    assert c["rx_packets"] - c0["rx_packets"] == c["rx_delivered"] - c0["rx_delivered"] == FRAMES, c
