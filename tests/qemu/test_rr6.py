"""app=rr dual-stack (lwIP with LWIP_IPV6): Debian's unmodified netperf
2.7.0 and iperf3 3.12 against the appliance's IPv6 address from a network
namespace over a tap, beside IPv4 on the same boot: ping -6 to the global
and the link-local address, netperf -6 TCP_RR, UDP_RR and TCP_STREAM with their
results equal to the appliance's counters, build/rrclient -6 TCP and UDP
against rr_port (its transactions the appliance's), iperf3 -6 TCP, -R, UDP (-u),
UDP -R, UDP --bidir and TCP -P 4 with bytes and datagrams equal on both sides, ICMPv6 port
unreachable for UDP to a closed port (each one sent seen by the peer, the
rest counted rate-limited), and SLAAC (ip0=...,auto) from a Router
Advertisement (RFC 4861 4.2, built here), on one boot. Nothing leaked.
Needs root, netperf and iperf3."""
import json
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

from rrpeer import GUEST, NS, RRCLIENT, TAP, assert_accounted, assert_deltas, assert_no_leak, boot, delta, \
    rr_counters, sh, tap  # noqa: F401

pytestmark = pytest.mark.skipif(not (shutil.which("netperf") and shutil.which("iperf3")),
                                reason="netperf or iperf3 not installed (make deps)")

GUEST6, PEER6 = "2001:db8:3::1", "2001:db8:3::2"
CAPTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "unit", "data",
                       "sockperf-udp-tcp-pingpong-underload.pcap")
KEYS = "LOCAL_BYTES_SENT,LOCAL_BYTES_RECVD,REMOTE_BYTES_SENT,REMOTE_BYTES_RECVD"


def link_local(mac):
    """fe80:: with mac's modified EUI-64 (RFC 4291 2.5.6)."""
    b = bytes.fromhex(mac.replace(":", ""))
    iid = bytes([b[0] ^ 2]) + b[1:3] + b"\xff\xfe" + b[3:]
    return "fe80::" + ":".join(f"{iid[i] << 8 | iid[i + 1]:x}" for i in range(0, 8, 2))


MAC = "52:54:00:12:34:56"   # QEMU's default for the guest's one NIC (tools/qemurun.py)


def netperf(host, test, *extra, family="-6", length=2, keys=KEYS):
    out = sh("timeout", "60", "netperf", family, "-H", host, "-t", test, "-l", str(length), "--", *extra,
             "-k", keys, ns=NS, timeout=90)
    return {k: int(v) for k, v in re.findall(r"^(\w+)=(-?\d+)$", out, re.M)}


def ping6(addr):
    """ping -6 addr until a reply (the guest's address is tentative for
    its DAD probe's second); the output of the one that answered."""
    deadline = time.time() + 30
    while True:
        out = sh("ping", "-6", "-c", "1", "-W", "1", addr, ns=NS, timeout=30, check=False)
        if "1 received" in out or time.time() > deadline:
            return out


RA = r"""
import socket, struct, sys
tap = sys.argv[1]
mac = bytes.fromhex(open(f"/sys/class/net/{tap}/address").read().strip().replace(":", ""))
src = socket.inet_pton(socket.AF_INET6, "fe80::99")
dst = socket.inet_pton(socket.AF_INET6, "ff02::1")
prefix = socket.inet_pton(socket.AF_INET6, "2001:db8:5::")
body = (struct.pack(">BBHBBHII", 134, 0, 0, 64, 0, 0, 0, 0) + bytes([1, 1]) + mac +
        struct.pack(">BBBBIII", 3, 4, 64, 0xc0, 3600, 1800, 0) + prefix)   # L and A set
pseudo = src + dst + struct.pack(">IxxxB", len(body), 58)
words = pseudo + body
csum = sum(struct.unpack(f">{len(words) // 2}H", words))
while csum >> 16:
    csum = (csum & 0xffff) + (csum >> 16)
body = body[:2] + struct.pack(">H", ~csum & 0xffff) + body[4:]
ip6 = struct.pack(">IHBB", 6 << 28, len(body), 58, 255) + src + dst
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((tap, 0))
s.send(b"\x33\x33\x00\x00\x00\x01" + mac + b"\x86\xdd" + ip6 + body)
"""


UNREACH = r"""
import select, socket, struct, sys, time
dst, n = sys.argv[1], int(sys.argv[2])
c = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
c.connect((dst, 4000))   # no service of rr's: port unreachable, the error on the socket
c.send(b"x")
c.settimeout(10)
try:
    c.recv(10)
    print("refused False")
except ConnectionRefusedError:
    print("refused True")
raw = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
for i in range(n):
    s.sendto(b"y", (dst, 4001))
got, end = 0, time.time() + 3
while time.time() < end:
    if select.select([raw], [], [], 0.5)[0]:
        m = raw.recv(2000)   # type 1 code 4, then the quoted IPv6 header and UDP
        if m[0] == 1 and m[1] == 4 and m[8 + 6] == 17 and struct.unpack(">H", m[8 + 40 + 2:8 + 40 + 4])[0] == 4001:
            got += 1
print("errors", got)
"""


# The TCP segments peer (argv[2]) sends over tap (argv[1]) to iperf3's
# port 5201, and the RSTs among them, from "ready" until stdin closes:
# "segments N rsts R".
RSTS = r"""
import select, socket, sys
raw = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))   # ETH_P_ALL: what the peer sends too
raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
raw.bind((sys.argv[1], 0))
peer = socket.inet_pton(socket.AF_INET6, sys.argv[2])
print("ready", flush=True)
segs, rsts, open_ = 0, 0, True
while True:
    r = select.select([raw] + [sys.stdin] * open_, [], [], 0 if not open_ else None)[0]
    if sys.stdin in r:
        open_ = bool(sys.stdin.read(1))
    if raw not in r:
        if not open_:
            break
        continue
    f = raw.recv(128)
    if len(f) >= 74 and f[12:14] == b"\x86\xdd" and f[20] == 6 and f[22:38] == peer and f[56:58] == b"\x14\x51":
        segs += 1
        rsts += f[67] >> 2 & 1
print("segments", segs, "rsts", rsts)
"""


# sockperf 3.7's own messages over IPv6 (Debian's sockperf refuses an IPv6
# address): each client message of the capture (UDP to 11111, TCP to
# 11112, ping-pong and under-load) sent in order to the appliance's
# sockperf port, argv[1]; each one the capture has an answer to, awaited and
# compared with sockperf's server's answer byte for byte. Prints
# "udp SENT REPLIES tcp SENT REPLIES".
SOCKPERF6 = r"""
import socket, struct, sys
udp, tcp = [], []
data = open(sys.argv[2], "rb").read()
off = 24   # the pcap file header; then records (16-byte header each) of Ethernet, IPv4, UDP or TCP
while off < len(data):
    n = struct.unpack_from("<I", data, off + 8)[0]
    ip = data[off + 16 + 14:off + 16 + n]
    off += 16 + n
    l4 = ip[(ip[0] & 15) * 4:struct.unpack(">H", ip[2:4])[0]]
    msg = l4[8:] if ip[9] == 17 else l4[(l4[12] >> 4) * 4:]
    if not msg:
        continue
    mine = udp if ip[9] == 17 else tcp
    if struct.unpack(">H", l4[2:4])[0] in (11111, 11112):
        mine.append([msg, None])
    else:
        nxt = [m for m in mine if m[0][:8] == msg[:8] and m[0][9] & 2 and m[1] is None]
        nxt[0][1] = msg
u = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
u.settimeout(5)
u.connect((sys.argv[1], 11111))
t = socket.create_connection((sys.argv[1], 11111), timeout=5)
out = []
for s, msgs in ((u, udp), (t, tcp)):
    replies = 0
    for msg, reply in msgs:
        s.send(msg)
        if reply is not None:
            got = s.recv(len(reply)) if s is u else b""
            while s is t and len(got) < len(reply):
                got += s.recv(len(reply) - len(got))
            assert got == reply, (msg.hex(), reply.hex(), got.hex())
            replies += 1
    out += [len(msgs), replies]
print("udp %d %d tcp %d %d" % tuple(out))
"""


def iperf3_6(*args):
    out = sh("timeout", "60", "iperf3", "-6", "-c", GUEST6, "-t", "2", "-J", *args, ns=NS, timeout=90)
    r = json.loads(out)
    assert "error" not in r, (args, r)
    return r


def test_dual_stack_netperf_iperf3(tap):
    q = boot(ip0=f"{GUEST}/24,{GUEST6}/64,auto")
    try:
        sh("ip", "-6", "addr", "add", f"{PEER6}/64", "dev", TAP, "nodad", ns=NS)
        sh("ip", "-6", "addr", "add", "2001:db8:5::2/64", "dev", TAP, "nodad", ns=NS)
        sh(sys.executable, "-c", RA, TAP, ns=NS, timeout=60)   # SLAAC's prefix, checked below
        assert "1 received" in ping6(GUEST6)
        ll = link_local(MAC)
        assert "1 received" in ping6(f"{ll}%{TAP}")
        assert "1 received" in sh("ping", "-c", "1", "-w", "30", GUEST, ns=NS, timeout=60)

        for host, family in ((GUEST6, "-6"), (GUEST, "-4")):
            a = rr_counters(q)
            r = netperf(host, "TCP_RR", "-r", "1024,1024", family=family)
            b = rr_counters(q)
            trans = delta(a, b, "netserver_transactions")
            assert delta(a, b, "netserver_tests") == 1, (family, b["port0"])
            assert trans > 10 and r["REMOTE_BYTES_SENT"] == trans * 1024, (family, r, trans)
            assert r["REMOTE_BYTES_RECVD"] == trans * 1024 == r["LOCAL_BYTES_SENT"], (family, r)
            assert trans * 1024 - 1024 <= r["LOCAL_BYTES_RECVD"] <= trans * 1024, (family, r)

        # Our own client over IPv6 (rrclient -6) against rr_port: each
        # transaction it counts is one the appliance counts.
        a = rr_counters(q)
        for proto, sessions in (("tcp", 8), ("udp", 1)):
            out = sh(RRCLIENT, "-6", "--host", GUEST6, "--proto", proto, "--sessions", str(sessions), "--count",
                     "50", "--max-time", "60", "--timeout", "5", ns=NS, timeout=90)
            r = json.loads(out.split("RESULT ", 1)[1])
            assert r["family"] == 6 and r["transactions"] == sessions * 50 and r["sessions_done"] == sessions, r
            assert r["errors"] == 0 and r["connect_failed"] == 0 and r["timeouts"] == 0, r
        b = rr_counters(q)
        assert delta(a, b, "tcp_rr") == 8 * 50 and delta(a, b, "udp_rr") == 50, b["port0"]
        assert delta(a, b, "conns_accepted") == 8, b["port0"]

        # sockperf's messages over IPv6 (the capture's, TCP and UDP): every
        # answer sockperf's server gave is the appliance's, byte for byte.
        a = rr_counters(q)
        out = sh("timeout", "60", sys.executable, "-c", SOCKPERF6, GUEST6, CAPTURE, ns=NS, timeout=90)
        b = rr_counters(q)
        assert "udp 302 121 tcp 101 101" in out, out
        assert_deltas(a, b, {"sockperf_udp": 302, "sockperf_tcp": 101, "sockperf_replies": 222, "sockperf_bad": 0})

        # UDP_RR over IPv6 (the direct path, fast_input6): the transactions
        # the appliance counts are the ones netperf's results carry.
        a = rr_counters(q)
        r = netperf(GUEST6, "UDP_RR", "-r", "64,64")
        b = rr_counters(q)
        trans = delta(a, b, "netserver_transactions")
        assert trans > 10 and r["REMOTE_BYTES_SENT"] == trans * 64 == r["REMOTE_BYTES_RECVD"], (r, trans)
        assert r["LOCAL_BYTES_SENT"] == r["REMOTE_BYTES_RECVD"], r

        a = rr_counters(q)
        r = netperf(GUEST6, "TCP_STREAM", "-m", "16384")
        b = rr_counters(q)
        got = delta(a, b, "netserver_rx_bytes")
        assert got == r["REMOTE_BYTES_RECVD"] and 0 < r["LOCAL_BYTES_SENT"] <= got < r["LOCAL_BYTES_SENT"] + 16384, r

        a = rr_counters(q)
        out = sh("timeout", "60", "iperf3", "-6", "-c", GUEST6, "-t", "2", "-J", ns=NS, timeout=90)
        b = rr_counters(q)
        end = json.loads(out)["end"]
        assert delta(a, b, "iperf3_tests") == 1, b["port0"]
        assert delta(a, b, "iperf3_rx_bytes") == end["sum_received"]["bytes"] > 0, end["sum_received"]

        # -R: the appliance sends; the bytes it counts are the sender's in
        # iperf3's report. At TEST_END it stops and closes the data stream
        # with a FIN; a client that closes its socket with bytes it never
        # read (some of the last ones sent before TEST_END) answers with a
        # RST instead of its own FIN (Linux's tcp_close, RFC 2525 2.17), in
        # about one run of four: each counted conns_reset, exactly the
        # RSTs the client sent, at most one (its one data stream).
        a = rr_counters(q)
        cap = subprocess.Popen(["ip", "netns", "exec", NS, sys.executable, "-c", RSTS, TAP, PEER6],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            assert cap.stdout.readline() == "ready\n"
            end = iperf3_6("-R")["end"]
        finally:
            out = cap.communicate(timeout=30)[0]
        b = rr_counters(q)
        resets = delta(a, b, "conns_reset")
        segs, rsts = (int(x) for x in re.search(r"segments (\d+) rsts (\d+)", out).groups())
        assert segs > 10, out   # the capture saw the client's side of the test
        assert resets == delta(a, b, "tcp_rst_received") == rsts <= 1, (out, b["port0"])
        assert delta(a, b, "iperf3_tx_bytes") == end["sum_sent"]["bytes"] > 0, end["sum_sent"]
        assert end["sum_received"]["bytes"] <= end["sum_sent"]["bytes"], end

        # UDP: the datagrams and losses iperf3 reports are the appliance's,
        # and its bytes what they carried.
        a = rr_counters(q)
        s = iperf3_6("-u", "-b", "10M", "-l", "1200")["end"]["sum"]
        b = rr_counters(q)
        assert delta(a, b, "iperf3_rx_bytes") == (s["packets"] - s["lost_packets"]) * 1200 > 0, (s, b["port0"])
        assert delta(a, b, "iperf3_udp") == 1

        # UDP -R at 5 Mbit/s: the appliance paces 1200-byte datagrams; what
        # it counts sent are the packets iperf3 reports, each of them
        # received or counted lost by the client.
        a = rr_counters(q)
        s = iperf3_6("-u", "-R", "-b", "5M", "-l", "1200")["end"]["sum"]
        b = rr_counters(q)
        sent = delta(a, b, "iperf3_tx_bytes")
        assert sent == s["packets"] * 1200 > 1200 * 500, (s, b["port0"])   # 2 s at 5 Mbit/s: ~1040
        assert s["lost_packets"] == 0 and delta(a, b, "iperf3_udp_no_buffer") == 0, (s, b["port0"])

        # UDP --bidir at 5 Mbit/s each way: one test, a stream each way;
        # the appliance received what the client sent less what it
        # reports lost, and sent what the client's reverse stream counts,
        # none of it lost.
        a = rr_counters(q)
        r = iperf3_6("-u", "--bidir", "-b", "5M", "-l", "1200")["end"]
        b = rr_counters(q)
        fwd, rev = r["sum"], r["sum_bidir_reverse"]
        assert delta(a, b, "iperf3_tests") == 1 and delta(a, b, "iperf3_udp") == 1, b["port0"]
        assert delta(a, b, "iperf3_rx_bytes") == (fwd["packets"] - fwd["lost_packets"]) * 1200 > 1200 * 500, (r, b)
        assert delta(a, b, "iperf3_tx_bytes") == rev["packets"] * 1200 > 1200 * 500, (rev, b["port0"])
        assert rev["lost_packets"] == 0 and delta(a, b, "iperf3_udp_no_buffer") == 0, (rev, b["port0"])

        # -P 4 (after -R, whose RSTs are counted exactly): four data
        # connections beside the control one, each stream's bytes in
        # iperf3's report the appliance's results for it, their sum its
        # count; no stream closed by a RST (conns_reset checked at the end).
        a = rr_counters(q)
        end = iperf3_6("-P", "4")["end"]
        b = rr_counters(q)
        got = [s["receiver"]["bytes"] for s in end["streams"]]
        assert len(got) == 4 and min(got) > 0, end["streams"]
        assert delta(a, b, "iperf3_rx_bytes") == sum(got) == end["sum_received"]["bytes"], (got, b["port0"])
        assert end["sum_received"]["bytes"] <= end["sum_sent"]["bytes"], end
        assert delta(a, b, "iperf3_tests") == 1 and delta(a, b, "conns_accepted") == 5, b["port0"]

        # TCP_CRR, TCP_MAERTS and UDP_STREAM over IPv6, 1 s each, after
        # iperf3's -R (whose RSTs are counted exactly: a late segment of
        # these tests' connections would draw one): the bytes netperf
        # reports as the remote's are the appliance's counts; with no -S
        # the sizes reported are lwIP's TCP_WND and TCP_SND_BUF; MAERTS
        # with -s/-S (socket buffer sizes: netperf sets its own with -s, the
        # appliance reports -S's back as its sizes, at the start and in the
        # results); UDP_STREAM's -M the appliance's receive size.
        a = rr_counters(q)
        r = netperf(GUEST6, "TCP_CRR", "-r", "1,1", length=1, keys=KEYS + ",RSR_SIZE,RSS_SIZE")
        b = rr_counters(q)
        trans = delta(a, b, "netserver_transactions")
        assert trans > 5 and r["REMOTE_BYTES_SENT"] == trans == r["REMOTE_BYTES_RECVD"] == r["LOCAL_BYTES_SENT"], r
        assert trans - 1 <= r["LOCAL_BYTES_RECVD"] <= trans, (r, trans)
        # a connection for each transaction, the control one, and the one
        # netperf may have opened when its timer ended the test
        assert trans + 1 <= delta(a, b, "conns_accepted") <= trans + 2, (trans, b["port0"])
        assert (r["RSR_SIZE"], r["RSS_SIZE"]) == (11680, 23360), r
        sizes = "LSS_SIZE_REQ,LSR_SIZE_REQ,RSS_SIZE_REQ,RSR_SIZE_REQ,RSS_SIZE,RSR_SIZE,RSS_SIZE_END,RSR_SIZE_END"
        a = rr_counters(q)
        r = netperf(GUEST6, "TCP_MAERTS", "-m", "16384", "-s", "65536", "-S", "32768", length=1,
                    keys=KEYS + "," + sizes)
        b = rr_counters(q)
        sent = delta(a, b, "netserver_tx_bytes")
        assert sent == r["REMOTE_BYTES_SENT"] > 0 and r["LOCAL_BYTES_RECVD"] <= sent, (r, sent)
        assert (r["LSS_SIZE_REQ"], r["LSR_SIZE_REQ"]) == (65536, 65536), r
        assert {r[k] for k in sizes.split(",")[2:]} == {32768}, r
        a = rr_counters(q)
        r = netperf(GUEST6, "UDP_STREAM", "-m", "1024", "-M", "2048", length=1, keys=KEYS + ",REMOTE_RECV_SIZE")
        b = rr_counters(q)
        got = delta(a, b, "netserver_rx_bytes")
        assert got == r["REMOTE_BYTES_RECVD"] > 0 and got % 1024 == 0 and r["REMOTE_RECV_SIZE"] == 2048, (r, got)
        assert delta(a, b, "netserver_tests") == 1 and delta(a, b, "netserver_tx_bytes") == 0, b["port0"]

        # ICMPv6 port unreachable (RFC 4443 3.1) for UDP to a closed port:
        # the first makes the peer's connected socket refused; of a burst
        # of 250 the port's bucket (100, 100 a second) lets about 100
        # through, each seen by the peer, the rest counted rate-limited.
        a = rr_counters(q)
        out = sh("timeout", "60", sys.executable, "-c", UNREACH, GUEST6, "250", ns=NS, timeout=90)
        b = rr_counters(q)
        got = int(re.search(r"errors (\d+)", out).group(1))
        sent, limited = delta(a, b, "icmp_unreach_sent"), delta(a, b, "icmp_rate_limited")
        assert "refused True" in out, out
        assert delta(a, b, "udp_closed_port") == 251 == sent + limited, b["port0"]
        assert got == sent - 1 and 100 <= sent < 251 and limited > 0, (got, sent, limited)

        # SLAAC (auto): the Router Advertisement sent at the start gave the
        # port a second global address, the prefix and the MAC's EUI-64.
        slaac = "2001:db8:5:0:" + ll[len("fe80::"):]
        assert "1 received" in ping6(slaac)
        a = rr_counters(q)
        r = netperf(slaac, "TCP_RR", "-r", "64,64")
        b = rr_counters(q)
        assert r["REMOTE_BYTES_SENT"] == delta(a, b, "netserver_transactions") * 64 > 0, (r, b["port0"])
        assert r["REMOTE_BYTES_RECVD"] == r["LOCAL_BYTES_SENT"], r

        assert b["port0"]["conns_reset"] == resets, b["port0"]
        for bad in ("netserver_short", "netserver_unknown", "netserver_no_data", "netserver_client_gone",
                    "iperf3_bad_cookie", "iperf3_client_gone", "bad_saddr", "no_pbuf"):
            assert b["port0"][bad] == 0, (bad, b["port0"])
        assert b["lwip"]["ip6_chkerr"] == 0 and b["lwip"]["tcp_chkerr"] == 0, b["lwip"]
        c = assert_no_leak(q)
        assert_accounted(c)
        assert c["port0"]["icmp6"] > 0 and c["port0"]["tcp"] > 0, c["port0"]
    finally:
        q.__exit__(None, None, None)


