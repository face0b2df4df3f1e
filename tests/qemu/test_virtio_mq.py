"""virtio-net with several queue pairs (issue 25): QEMU's virtio-net-pci
with mq=on on a multiqueue tap inside a network namespace this test makes
and removes, two cores, `queues=2`: UDP flows sent by the namespace's own
stack arrive on both queue pairs, each polled by its own core, and every
frame is counted exactly once. Three boots: MQ alone (VQ_PAIRS_SET, the tap
spreads flows by its own hash), and rss=on,hash=on (RSS_CONFIG with
HASH_REPORT: QEMU steers each frame by the driver's table, so the count
on each pair is known in advance from the Toeplitz hash of each flow), and
the same with 2 MSI-X vectors for 2 queue pairs and configuration changes,
so that one vector serves both receive queues (Linux's fallback). In the
rss boot, queue pair 1 is reset alone (VIRTIO_F_RING_RESET, which QEMU
offers by default: queue_reset=on) while flows of pair 0 arrive.
Needs root (ip netns, tap devices); traffic stays between the namespace
and the guest."""
import os
import re
import struct
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from netns import TapPeer, sh  # noqa: E402
from qemurun import Qemu  # noqa: E402

PROMPT = "linerate> "
FRAMES, FLOWS = 400, 64
GUEST_MAC = "52:54:00:12:34:56"      # QEMU's default for port0
PEER_IP, GUEST_IP, SPORT, DPORT = "10.9.0.2", "10.9.0.1", 20056, 9
# The driver's RSS key (nic_rss_key_word: word i is 0x6d5a6d5a + i x 0x01010101,
# low byte first) and table (entry i is pair i mod queues, 128 entries).
RSS_KEY = b"".join(struct.pack("<I", 0x6d5a6d5a + i * 0x01010101) for i in range(10))
RSS_TABLE = 128


def toeplitz(key, data):
    """The Toeplitz hash of data (Microsoft RSS; virtio 1.2 5.1.6.4.3.1):
    for each set bit of data, MSB first, the 32 key bits starting there."""
    k, kbits, h = int.from_bytes(key, "big"), len(key) * 8, 0
    for i in range(len(data) * 8):
        if data[i // 8] & (0x80 >> (i % 8)):
            h ^= (k >> (kbits - 32 - i)) & 0xffffffff
    return h


def rss_pair(sport, queues=2):
    """The queue pair an IPv4 UDP frame from PEER_IP:sport to GUEST_IP:DPORT
    is steered to (hash type UDPv4: source and destination address, then
    ports)."""
    data = bytes(map(int, PEER_IP.split("."))) + bytes(map(int, GUEST_IP.split("."))) + \
        struct.pack(">HH", sport, DPORT)
    return (toeplitz(RSS_KEY, data) % RSS_TABLE) % queues


def test_toeplitz_known_answer():
    """The hash against the RSS specification's IPv4 verification suite
    (its 40-byte key; 66.9.149.187:2794 -> 161.142.100.80:1766)."""
    key = bytes.fromhex("6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c6a42b73bbeac01fa")
    ips = bytes([66, 9, 149, 187, 161, 142, 100, 80])
    assert toeplitz(key, ips) == 0x323e8fc2
    assert toeplitz(key, ips + struct.pack(">HH", 2794, 1766)) == 0x51ccc178


@pytest.fixture(params=["mq", "rss", "shared"])
def mq_box(request):
    peer = TapPeer("vmq", queues=2)
    q = None
    try:
        # shared: RSS with 2 MSI-X vectors for 2 queues and config (one shared).
        rss = {"mq": "", "rss": ",rss=1", "shared": ",rss=1,vectors=2"}[request.param]
        q = Qemu(boot="kernel", mem="256M", smp=2,
                 nics=[f"virtio-net-pci:netdev=tap,ifname={peer.tap},queues=2{rss}"],
                 append="stats=0 app=sink queues=2 promisc=1 poll=napi")
        q.expect(r"port0: link up", 90)
        peer.wire(f"{PEER_IP}/24")
        # No IPv6 autoconfiguration or ARP from the namespace: only the test's frames.
        sh("sysctl", "-qw", f"net.ipv6.conf.{peer.tap}.disable_ipv6=1", ns=peer.ns)
        sh("ip", "neigh", "replace", GUEST_IP, "lladdr", GUEST_MAC, "dev", peer.tap, "nud", "permanent",
           ns=peer.ns)
        q.send("\r")
        q.expect(PROMPT, 30)
        yield q, peer, request.param
    finally:
        if q:
            q.stop()
        peer.close()


def sink_queues(q):
    return {int(n): int(p) for n, p in re.findall(r"sink port0 q(\d+): (\d+) packets", q.shell("sink", 30))}


def ethtool_s(q):
    return {k: int(v) for k, v in re.findall(r"(\w+): (\d+)", q.shell("ethtool -S port0", 30))}


def flows_script(frames, sports, pause=0.0, mark=None):
    """Python for the namespace: frames UDP datagrams to the guest, datagram
    i from PEER_IP:sports[i % len(sports)]; pause seconds after each one
    past the first mark of them, whose end is printed ("mark")."""
    return f"""
import socket, sys, time
sports = {list(sports)}
for i in range({frames}):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("{PEER_IP}", sports[i % len(sports)]))
    s.sendto(i.to_bytes(4, "big") + bytes(14), ("{GUEST_IP}", {DPORT}))
    s.close()
    if i + 1 == {mark}:
        print("mark", flush=True)
    if {mark} is not None and i + 1 > {mark}:
        time.sleep({pause})
"""


def wait_sink(q, before, frames):
    """Per-pair frames the sink counted since before, once frames came (or
    after 100 looks)."""
    got = {}
    for _ in range(100):
        got = {n: v - before[n] for n, v in sink_queues(q).items()}
        if sum(got.values()) >= frames:
            break
    return got


def send_and_count(q, peer):
    """FRAMES datagrams over the FLOWS flows; the sink's per-pair counts of them."""
    before = sink_queues(q)
    sh("python3", "-c", flows_script(FRAMES, range(SPORT, SPORT + FLOWS)), ns=peer.ns)
    got = wait_sink(q, before, FRAMES)
    assert sum(got.values()) == FRAMES, got
    return got


def rss_want():
    """QEMU's software RSS: each flow on the pair its hash names in the driver's table."""
    want = {0: 0, 1: 0}
    for i in range(FRAMES):
        want[rss_pair(SPORT + i % FLOWS)] += 1
    assert want[0] and want[1], want
    return want


def check_queue_reset(q, peer):
    """`reset port0 queue 1` while 300 datagrams of the flows RSS puts on
    pair 0 arrive (the second 150 paced 5 ms apart, after the reset was
    asked for): pair 1 alone is reset (queue_1_resets 1, no port reset, no
    link change, no frame lost or dropped: every one of the 300 on pair 0,
    pair 1's idle ring given back and filled again, pool_free as before);
    then the 400 datagrams over all flows land on each pair exactly as RSS
    predicts. Bad forms of the command are refused by name."""
    assert "reset: queue '2': port0 has queue pairs 0 to 1" in q.shell("reset port0 queue 2")
    assert "usage: reset <port> [queue <q>]" in q.shell("reset port0 pair 1")
    pair0 = [s for s in range(SPORT, SPORT + FLOWS) if rss_pair(s) == 0]
    c0, before = ethtool_s(q), sink_queues(q)
    sender = subprocess.Popen(["ip", "netns", "exec", peer.ns, "python3", "-c",
                               flows_script(300, pair0, pause=0.005, mark=150)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert sender.stdout.readline().strip() == "mark"
        assert "port0: queue pair 1 reset requested" in q.shell("reset port0 queue 1")
        q.expect(r"port0: queue pair 1: reset asked for from the shell: resetting it alone", 30)
        assert sender.wait(60) == 0
    finally:
        if sender.poll() is None:
            sender.kill()
            sender.wait()
    got = wait_sink(q, before, 300)
    assert got == {0: 300, 1: 0}, got
    end = time.monotonic() + 30
    while (c := ethtool_s(q))["queue_1_resets"] != 1 and time.monotonic() < end:
        pass
    assert c["queue_1_resets"] == 1 and c["queue_0_resets"] == 0, c
    for k in ("resets", "link_changes", "rx_drop_reset", "tx_dropped", "rx_queue_0_drops", "rx_queue_1_drops",
              "rx_queue_1_packets", "pool_free"):
        assert c[k] == c0[k], (k, c0[k], c[k])
    assert c["rx_queue_0_packets"] - c0["rx_queue_0_packets"] == 300, c
    assert send_and_count(q, peer) == rss_want()


def test_two_queue_pairs_on_two_cores(mq_box):
    q, peer, mode = mq_box
    text = q.text()
    assert re.search(r"port0: virtio_net .*, 2 queue\(s\), rxd 256 txd 256, MSI-X\r", text), text[-2000:]
    features = " CTRL_VQ CTRL_RX MQ RING_RESET," if mode == "mq" else " CTRL_VQ CTRL_RX MQ RSS HASH_REPORT RING_RESET,"
    shared = "port0: 2 MSI-X vectors for 2 queues and configuration changes: one shared by the receive queues"
    assert (shared in text) == (mode == "shared"), text[-2000:]
    assert re.search(r"port0: virtio features \w+: VERSION_1 .*" + features + r" MTU 1500\r", text), text[-2000:]
    assert "core0: port0/q0\r" in text and "core1: port0/q1\r" in text
    assert "queue pairs not taken" not in text and "control command" not in text, text[-2000:]
    # What came before (the namespace's IPv6 start-up, before it was disabled) is not counted.
    c0 = ethtool_s(q)
    got = send_and_count(q, peer)
    if mode != "mq":
        assert got == rss_want(), (got, rss_want())
    else:
        assert got[0] > 0 and got[1] > 0, got      # the tap spread the 64 flows over both pairs
    c = ethtool_s(q)
    for n in (0, 1):
        assert c["rx_queue_%d_packets" % n] - c0["rx_queue_%d_packets" % n] == got[n], (n, c)
        assert c["rx_queue_%d_drops" % n] == 0, c
        assert c["queue_%d_irqs" % n] > c0["queue_%d_irqs" % n], (n, c)    # each woken by its vector
    assert c["rx_packets"] - c0["rx_packets"] == c["rx_delivered"] - c0["rx_delivered"] == FRAMES, c
    if mode == "rss":
        check_queue_reset(q, peer)
