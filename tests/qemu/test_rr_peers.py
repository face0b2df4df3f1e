"""app=rr against real clients in a network namespace over a tap device:
Debian's ping and sockperf 3.7 (ping-pong UDP and TCP, under-load,
throughput), and build/rrclient with 300 and 128 parallel TCP sessions; exact counts on both sides,
every frame accounted, nothing leaked. Then the other NIC families: 64 TCP
sessions and one UDP session, 1024-byte transactions, and TCP and UDP
over IPv4 and IPv6 whose checksums are checked on the tap (the NIC fills
them in). Needs root."""
import json
import re
import sys

import pytest

from rrpeer import GUEST, NS, RRCLIENT, TAP, assert_accounted, assert_no_leak, boot, delta, \
    rr_counters, sh, tap  # noqa: F401


def sockperf(*args):
    out = sh("timeout", "60", "sockperf", *args, "-i", GUEST, "-t", "2", ns=NS, timeout=90)
    if args[0] == "throughput":
        m = re.search(r"Total of (\d+) messages sent", out)
        assert m, out
        return int(m.group(1)), 0
    m = re.search(r"\[Total Run\].*SentMessages=(\d+); ReceivedMessages=(\d+)", out)
    assert m, out
    assert "# dropped messages = 0; # duplicated messages = 0; # out-of-order messages = 0" in out, out
    return int(m.group(1)), int(m.group(2))


def rrclient(*args):
    out = sh(RRCLIENT, "--host", GUEST, *args, ns=NS, timeout=120)
    return json.loads(out.split("RESULT ", 1)[1])


def test_ping_sockperf_and_128_sessions(tap):
    q = boot()
    try:
        start = rr_counters(q)
        out = sh("ping", "-c", "5", "-i", "0.2", "-W", "2", GUEST, ns=NS, timeout=30)
        assert "5 received" in out, out
        c = rr_counters(q)
        assert delta(start, c, "icmp") == 5

        # Echo of reassembled requests: the longest rr takes (fragment data
        # ending at 65420 bytes: 45 fragments each way) answered in
        # fragments; one byte more and the last fragment is dropped
        # (frag_too_long), the other 44 held until reassembly gives up.
        out = sh("ping", "-c", "2", "-i", "0.5", "-W", "5", "-s", "65412", GUEST, ns=NS, timeout=60)
        assert "2 received" in out, out
        d = rr_counters(q)
        assert delta(c, d, "fragment") == 2 * 45 and d["lwip"]["icmp_err"] == c["lwip"]["icmp_err"]
        out = sh("ping", "-c", "1", "-W", "2", "-s", "65413", GUEST, ns=NS, timeout=60, check=False)
        assert " 0 received" in out, out
        e = rr_counters(q)
        assert delta(d, e, "fragment") == 44 and delta(d, e, "frag_too_long") == 1

        for proto, extra, key in (("udp", (), "sockperf_udp"), ("tcp", ("--tcp",), "sockperf_tcp")):
            a = rr_counters(q)
            sent, got = sockperf("ping-pong", "-m", "64", *extra)
            b = rr_counters(q)
            # The server took every message sent and answered each; the
            # client stops reading after its last send.
            assert delta(a, b, key) == sent, (proto, sent, b["port0"])
            assert delta(a, b, "sockperf_replies") == sent
            assert sent - 1 <= got <= sent
            assert delta(a, b, "sockperf_bad") == 0

        a = rr_counters(q)
        sent, got = sockperf("under-load", "-m", "64", "--mps", "500", "--reply-every", "10")
        b = rr_counters(q)
        assert delta(a, b, "sockperf_udp") == sent
        assert delta(a, b, "sockperf_replies") == sent // 10

        a = rr_counters(q)
        sent, got = sockperf("throughput", "-m", "64", "--mps", "500", "--tcp")
        b = rr_counters(q)
        assert delta(a, b, "sockperf_tcp") == sent and delta(a, b, "sockperf_replies") == 0

        # More connections at once than the seed's 128: 300 of rr_conns=512.
        a = rr_counters(q)
        r = rrclient("--sessions", "300", "--count", "5", "--max-time", "90", "--timeout", "10")
        assert r["transactions"] == 300 * 5 and r["errors"] == 0 and r["connect_failed"] == 0, r
        b = assert_no_leak(q)
        assert delta(a, b, "tcp_rr") == 300 * 5 and delta(a, b, "conns_accepted") == 300
        assert b["lwip"]["tcp_pcb_max"] >= 300

        a = rr_counters(q)
        r = rrclient("--sessions", "128", "--count", "50", "--max-time", "90", "--timeout", "10")
        b = assert_no_leak(q)
        assert r["stop"] == "count" and r["errors"] == 0 and r["connect_failed"] == 0, r
        assert r["transactions"] == 128 * 50 and r["sessions_done"] == 128, r
        assert delta(a, b, "tcp_rr") == 128 * 50
        assert delta(a, b, "conns_accepted") == 128 and delta(a, b, "conns_closed") == 128
        assert delta(a, b, "conns_reset") == 0 and delta(a, b, "conns_refused") == 0
        assert_accounted(b)
    finally:
        q.__exit__(None, None, None)


GUEST6 = "2001:db8:3::1"

# Transactions with rr over one family (4 or 6), every frame from the
# appliance captured on the tap (PACKET_AUXDATA: a frame whose L4 checksum
# the kernel is still to complete, as QEMU hands a NIC's checksum request
# to a tap with vnet headers, has TP_STATUS_CSUMNOTREADY and the
# pseudo-header sum in its field): one TCP session of n 1024/1024-byte
# transactions, n UDP ones, and one 3000-byte datagram to the echo port
# (its answer fragmented: the UDP checksum lwIP's, as the NIC sees only
# fragments; a first fragment's checksum must not be 0, IPv4's "none").
# Each checksum is completed where it is due, then checked against the
# pseudo-header (RFC 9293 3.1, RFC 768, RFC 8200 8.1). Prints "frames N
# partial P bad B transactions T udp U echo E zero Z".
CSUM = r"""
import socket, struct, sys
dst, tap, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
fam = socket.AF_INET6 if ":" in dst else socket.AF_INET
raw = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x86dd if fam == socket.AF_INET6 else 0x800))
raw.setsockopt(263, 8, 1)   # SOL_PACKET, PACKET_AUXDATA
raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
raw.bind((tap, 0))
c = socket.create_connection((dst, 12866), timeout=10)
done = 0
for _ in range(n):
    c.sendall(b"q" * 1024)
    got = 0
    while got < 1024:
        m = c.recv(1024 - got)
        if not m:
            break
        got += len(m)
    done += got == 1024
c.close()
u = socket.socket(fam, socket.SOCK_DGRAM)
u.settimeout(5)
udp = 0
for i in range(n):
    u.sendto(bytes([i]) * 1024, (dst, 12866))
    udp += len(u.recvfrom(2048)[0]) == 1024
u.sendto(b"e" * 3000, (dst, 7))
echo = u.recvfrom(4096)[0] == b"e" * 3000


def fold(x):
    while x >> 16:
        x = (x & 0xffff) + (x >> 16)
    return x


def sum16(b):
    b += b"\0" * (len(b) & 1)
    return sum(struct.unpack(f">{len(b) // 2}H", b))


frames = partial = bad = zero = 0
ours = socket.inet_pton(fam, dst)
raw.settimeout(2)
while True:
    try:
        data, anc, _, _ = raw.recvmsg(4096, socket.CMSG_SPACE(20))
    except socket.timeout:
        break
    if fam == socket.AF_INET6:
        ip, hl = data[14:54], 40
        proto, src, plen, pseudo = ip[6], ip[8:24], struct.unpack(">H", ip[4:6])[0], ip[8:40]
        first = proto != 44
    else:
        hl = (data[14] & 15) * 4
        ip = data[14:14 + hl]
        proto, src, plen, pseudo = ip[9], ip[12:16], struct.unpack(">H", ip[2:4])[0] - hl, ip[12:20]
        first = not struct.unpack(">H", ip[6:8])[0] & 0x1fff
        if first and struct.unpack(">H", ip[6:8])[0] & 0x2000:   # a first fragment: its UDP checksum
            zero += proto == 17 and data[14 + hl + 6:14 + hl + 8] == b"\0\0"
            continue
    if src != ours or proto not in (6, 17) or not first:
        continue
    off = 16 if proto == 6 else 6
    status = next((struct.unpack("=I", d[:4])[0] for lv, ty, d in anc if (lv, ty) == (263, 8)), 0)
    seg = data[14 + hl:14 + hl + plen]
    frames += 1
    if status & 8:   # TP_STATUS_CSUMNOTREADY
        partial += 1
        seg = seg[:off] + struct.pack(">H", ~fold(sum16(seg)) & 0xffff) + seg[off + 2:]
    if fam == socket.AF_INET6:
        ph = pseudo + struct.pack(">IxxxB", plen, proto)
    else:
        ph = pseudo + struct.pack(">xBH", proto, plen)
    bad += fold(sum16(ph + seg)) != 0xffff
print("frames", frames, "partial", partial, "bad", bad, "transactions", done, "udp", udp, "echo", int(echo),
      "zero", zero)
"""


def csum_session(q, nic, dst, n=50):
    """CSUM to dst (either family) with n transactions each way: every TCP
    and UDP checksum the appliance sent right and none summed by the
    netif (tx_csum_sw); on igb and virtio each was asked of the NIC and
    reaches the tap as a request, on e1000 QEMU fills it in from the
    context (TUCSO)."""
    a = rr_counters(q)
    out = sh("timeout", "60", sys.executable, "-c", CSUM, dst, TAP, str(n), ns=NS, timeout=90)
    b = rr_counters(q)
    f, partial, bad, done, udp, echo, zero = (int(x) for x in re.search(
        r"frames (\d+) partial (\d+) bad (\d+) transactions (\d+) udp (\d+) echo (\d+) zero (\d+)", out).groups())
    assert done == n and udp == n and echo == 1 and zero == 0, out
    assert delta(a, b, "tcp_rr") == n and delta(a, b, "udp_rr") == n and delta(a, b, "echo_udp") == 1, out
    assert bad == 0 and f > 2 * n and delta(a, b, "tx_csum_sw") == 0, (out, b["port0"])
    assert partial == (0 if nic == "e1000" else f), out


@pytest.mark.parametrize("nic", ["igb", "e1000", "virtio-net-pci"])
def test_rr_on_nic(tap, nic):
    """64 TCP sessions of 20 and one UDP session of 200 1024/1024-byte
    transactions (frames of 1066 and 1078 bytes): exact counts on both
    sides, every frame accounted, nothing leaked. Then csum_session over
    IPv4 and IPv6."""
    q = boot("req=1024 rsp=1024", nic=nic, ip0=f"{GUEST}/24,{GUEST6}/64")
    try:
        # igb's link comes up a little after the prompt: ping until it answers.
        out = sh("ping", "-c", "1", "-w", "30", GUEST, ns=NS, timeout=60)
        assert "1 received" in out, out
        a = rr_counters(q)
        r = rrclient("--sessions", "64", "--count", "20", "--req", "1024", "--rsp", "1024",
                     "--max-time", "90", "--timeout", "10")
        assert r["transactions"] == 64 * 20 and r["errors"] == 0 and r["connect_failed"] == 0, r
        u = rrclient("--proto", "udp", "--sessions", "1", "--count", "200", "--req", "1024",
                     "--rsp", "1024", "--max-time", "60", "--timeout", "10")
        assert u["transactions"] == 200 and u["timeouts"] == 0 and u["errors"] == 0, u
        rxd = int(re.search(r"port0: .* rxd (\d+) ", q.text()).group(1))   # virtio: 256, its queue size
        b = assert_no_leak(q, rxd)
        assert delta(a, b, "tcp_rr") == 64 * 20 and delta(a, b, "udp_rr") == 200
        assert delta(a, b, "conns_accepted") == 64 and delta(a, b, "conns_closed") == 64
        assert delta(a, b, "conns_reset") == 0 and delta(a, b, "udp_rr_short") == 0
        assert_accounted(b)
        csum_session(q, nic, GUEST)
        sh("ip", "-6", "addr", "add", "2001:db8:3::2/64", "dev", TAP, "nodad", ns=NS)
        csum_session(q, nic, GUEST6)
        assert_accounted(assert_no_leak(q, rxd))
    finally:
        q.__exit__(None, None, None)
