"""app=fwd as an IPv4 router (ip0=, ip1=, route=) in QEMU, two e1000e ports
wired to host stream sockets; frames made and checked with scapy. Hosts:
10.1.0.2 behind port0, 10.2.0.2 behind port1 (the next hop of 10.3.0.0/16);
10.4.0.0/16 goes via 10.2.0.99, which never answers ARP."""
import os
import re
import sys
import time

import pytest
from scapy.all import ARP, ICMP, IP, UDP, Ether, IPerror, Raw, UDPerror, raw

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
sys.path.insert(0, os.path.dirname(__file__))
import capcheck  # noqa: E402
from netio import StreamPort  # noqa: E402
from qemurun import Qemu  # noqa: E402

PROMPT = "linerate> "
H0_MAC, H0_IP = "02:00:00:00:00:01", "10.1.0.2"
H1_MAC, H1_IP = "02:00:00:00:00:22", "10.2.0.2"
APPEND = ("app=fwd stats=0 ip0=10.1.0.1/24 ip1=10.2.0.1/24 "
          "route=10.3.0.0/16,10.2.0.2 route=10.4.0.0/16,10.2.0.99")


class Router:
    """The router booted with append on nics (ports 0 and 1 on host stream
    sockets, in p), every port's MAC in mac."""
    def __init__(self, append=APPEND, nics=("e1000e:netdev=stream",) * 2):
        self.q = Qemu(boot="kernel", mem="256M", nics=list(nics), append=append)
        up = set()
        while len(up) < len(nics):      # in whatever order the links come up
            up.add(self.q.expect(r"port(\d): link up", 90).group(1))
        self.q.send("\r")
        self.q.expect(PROMPT, 30)
        self.p = [StreamPort(self.q.nic_sock(i)) for i in (0, 1)]
        out = self.shell("ifconfig")
        self.mac = re.findall(r"ether ([0-9a-f:]{17})", out)
        assert len(self.mac) == len(nics), out

    def shell(self, line, timeout=60):
        return self.q.shell(line, timeout)

    def fwd(self):
        """{port: {counter: value}} from the fwd command (both lines)."""
        c = {0: {}, 1: {}}
        for port, body in re.findall(r"fwd port(\d)[^:]*: (.*)", self.shell("fwd")):
            c[int(port)].update({k: int(v) for k, v in re.findall(r"(\w+) (\d+)", body)})
        return c

    def recv(self, port, count, timeout=5):
        return [Ether(f) for f in self.p[port].recv(count, timeout)]

    def close(self):
        for s in self.p:
            s.close()
        self.q.stop()


@pytest.fixture(scope="module")
def r():
    router = Router()
    yield router
    router.close()


def udp_to(r, dst, ttl=64, n=1, sport=1000):
    return [raw(Ether(src=H0_MAC, dst=r.mac[0]) / IP(src=H0_IP, dst=dst, ttl=ttl, id=i) /
                UDP(sport=sport, dport=2000 + i) / Raw(b"x" * 32)) for i in range(n)]


def csum_ok(pkt):
    """IP (and ICMP) checksums as scapy recomputes them."""
    again = Ether(raw(pkt))
    del again[IP].chksum
    if ICMP in again:
        del again[ICMP].chksum
    again = Ether(raw(again))
    return again[IP].chksum == pkt[IP].chksum and (ICMP not in pkt or again[ICMP].chksum == pkt[ICMP].chksum)


def test_arp_reply_for_our_address(r):
    req = Ether(src=H0_MAC, dst="ff:ff:ff:ff:ff:ff") / ARP(op=1, hwsrc=H0_MAC, psrc=H0_IP, pdst="10.1.0.1")
    r.p[0].send([raw(req)])
    rep = r.recv(0, 1)
    assert rep and ARP in rep[0], rep
    a = rep[0][ARP]
    assert a.op == 2 and a.psrc == "10.1.0.1" and a.hwsrc == r.mac[0] and a.pdst == H0_IP and a.hwdst == H0_MAC
    assert rep[0].dst == H0_MAC and rep[0].src == r.mac[0]


def test_forward_resolves_next_hop_by_arp_and_rewrites(r, tmp_path):
    # port1's frames captured meanwhile (issue 28): the ARP request it
    # sends, the reply it receives, the 10 routed frames it sends.
    capcheck.start(r.q, "port1", 12)
    sent = udp_to(r, "10.3.0.5", n=5)
    r.p[0].send(sent)
    # The router holds the frames and asks for 10.2.0.2 on port1.
    wire_req = r.p[1].recv(1, 5)
    req = [Ether(f) for f in wire_req]
    assert req and ARP in req[0], req
    a = req[0][ARP]
    assert a.op == 1 and a.pdst == H1_IP and a.psrc == "10.2.0.1" and a.hwsrc == r.mac[1]
    assert req[0].dst == "ff:ff:ff:ff:ff:ff"
    reply = raw(Ether(src=H1_MAC, dst=r.mac[1]) / ARP(op=2, hwsrc=H1_MAC, psrc=H1_IP, hwdst=r.mac[1],
                                                       pdst="10.2.0.1"))
    r.p[1].send([reply])
    more = udp_to(r, "10.3.0.5", n=5, sport=1001)
    time.sleep(0.2)
    r.p[0].send(more)          # resolved now: straight through
    wire = r.p[1].recv(10, 5)
    got = [Ether(f) for f in wire]
    assert len(got) == 10, got
    cap, counts = capcheck.finish(r.q, "port1", tmp_path / "port1.pcapng")
    assert (counts["seen"], counts["filtered"], counts["kept"], counts["dropped"]) == (12, 0, 12, 0), counts
    want = [("tx", wire_req[0]), ("rx", reply)] + [("tx", f) for f in wire]
    assert [d for d, _ in cap] == [d for d, _ in want], cap
    assert all(capcheck.same(c, w) for (_, c), (_, w) in zip(cap, want)), cap
    for s, g in zip(sent + more, got):
        s = Ether(s)
        assert g.dst == H1_MAC and g.src == r.mac[1]
        assert g[IP].ttl == s[IP].ttl - 1
        assert csum_ok(g), g.show(dump=True)
        # Nothing else changed: the IP header apart from TTL and checksum, and the payload.
        assert raw(g[IP])[:8] == raw(s[IP])[:8] and raw(g[IP])[12:] == raw(s[IP])[12:]


def test_bulk_routed_in_order(r):
    """2000 frames of 60..1514 bytes through the router in windows of 256
    (bursts of 32 end to end): all arrive, in order, each TTL one lower."""
    before = r.fwd()[0]
    sent = [raw(Ether(src=H0_MAC, dst=r.mac[0]) / IP(src=H0_IP, dst="10.3.1.%d" % (i % 250 + 1), id=i) /
                UDP(sport=5000, dport=6000) / Raw(bytes(18 + i % 1450))) for i in range(2000)]
    got = []
    for i in range(0, len(sent), 256):
        t = r.p[0].send_background(sent[i:i + 256])
        got += r.recv(1, len(sent[i:i + 256]), timeout=30)
        t.join(5)
    assert len(got) == len(sent)
    for s, g in zip(sent, got):
        s = Ether(s)
        assert g[IP].id == s[IP].id and g[IP].ttl == 63 and g.dst == H1_MAC
        assert raw(g[IP].payload) == raw(s[IP].payload)
    assert r.fwd()[0]["forwarded"] - before["forwarded"] == 2000


def test_unresolvable_next_hop_is_a_counted_drop(r):
    before = r.fwd()[0]
    r.p[0].send(udp_to(r, "10.4.0.7", n=3))
    reqs = [f for f in r.recv(1, 3, timeout=3) if ARP in f]
    # ARP_TRIES requests 100 ms apart, then the held frames go.
    assert len(reqs) == 3 and all(f[ARP].pdst == "10.2.0.99" for f in reqs), reqs
    time.sleep(0.5)
    after = r.fwd()[0]
    assert after["arp_unresolved"] - before["arp_unresolved"] == 3, after
    assert after["held"] == 0


def test_echo_request_to_us_is_answered(r):
    before = r.fwd()[0]
    ping = Ether(src=H0_MAC, dst=r.mac[0]) / IP(src=H0_IP, dst="10.2.0.1", ttl=9) / \
        ICMP(type=8, id=7, seq=3) / Raw(b"linerate" * 8)
    r.p[0].send([raw(ping)])
    back = r.recv(0, 1)
    assert back and ICMP in back[0], back
    e = back[0]
    assert e.dst == H0_MAC and e.src == r.mac[0]
    assert e[IP].src == "10.2.0.1" and e[IP].dst == H0_IP
    assert e[ICMP].type == 0 and e[ICMP].id == 7 and e[ICMP].seq == 3
    assert raw(e[ICMP].payload) == b"linerate" * 8 and csum_ok(e)
    assert r.fwd()[0]["local"] - before["local"] == 1


def test_ttl1_gives_time_exceeded(r):
    f = udp_to(r, "10.3.0.5", ttl=1)[0]
    r.p[0].send([f])
    back = r.recv(0, 1)
    assert back and ICMP in back[0], back
    e = back[0]
    assert e.dst == H0_MAC and e.src == r.mac[0]
    assert e[IP].src == "10.1.0.1" and e[IP].dst == H0_IP and e[IP].ttl == 64
    assert e[ICMP].type == 11 and e[ICMP].code == 0
    assert csum_ok(e)
    # RFC 792: the original IP header and the first 8 bytes of its data.
    orig = Ether(f)[IP]
    assert raw(e[ICMP].payload) == raw(orig)[:20 + 8]
    assert IPerror in e and UDPerror in e


def test_no_route_gives_net_unreachable(r):
    before = r.fwd()[0]
    r.p[0].send(udp_to(r, "192.168.7.7"))
    back = r.recv(0, 1)
    assert back and ICMP in back[0], back
    assert back[0][ICMP].type == 3 and back[0][ICMP].code == 0 and csum_ok(back[0])
    assert back[0][IPerror].dst == "192.168.7.7"
    after = r.fwd()[0]
    assert after["no_route"] - before["no_route"] == 1
    assert after["icmp_sent"] - before["icmp_sent"] == 1


def test_bad_checksum_and_others_are_named_drops(r):
    before = r.fwd()[0]
    bad = Ether(src=H0_MAC, dst=r.mac[0]) / IP(src=H0_IP, dst="10.3.0.5", chksum=0x1234) / UDP()
    v6 = Ether(src=H0_MAC, dst=r.mac[0], type=0x86dd) / Raw(b"\x60" + b"\x00" * 50)
    bcast = Ether(src=H0_MAC, dst="ff:ff:ff:ff:ff:ff") / IP(src=H0_IP, dst="10.3.0.5") / UDP()
    local = Ether(src=H0_MAC, dst=r.mac[0]) / IP(src=H0_IP, dst="10.2.0.1") / UDP(dport=9)
    r.p[0].send([raw(bad), raw(v6), raw(bcast), raw(local)])
    time.sleep(0.5)
    after = r.fwd()[0]
    delta = {k: after[k] - before[k] for k in after}
    assert delta["bad_csum"] == 1 and delta["not_ipv4"] == 1 and delta["not_our_mac"] == 1
    assert delta["local"] == 1 and delta["forwarded"] == 0
    assert r.recv(1, 1, timeout=0.5) == []


def test_icmp_errors_are_rate_limited(r):
    before = r.fwd()[0]
    r.p[0].send(udp_to(r, "192.168.7.7", n=150))
    back = r.recv(0, 150, timeout=3)
    after = r.fwd()[0]
    sent = after["icmp_sent"] - before["icmp_sent"]
    limited = after["icmp_rate_limited"] - before["icmp_rate_limited"]
    assert len(back) == sent and sent + limited == 150
    assert 100 <= sent < 150, (sent, limited)   # a bucket of 100, refilled at 100/s


def test_accounting_frames_in_equal_outcomes(r):
    c = r.fwd()
    for port in (0, 1):
        st = c[port]
        drops = sum(v for k, v in st.items() if k not in
                    ("rx", "forwarded", "local", "arp", "held") and not k.startswith(("icmp_", "arp_requests", "arp_no_buffer", "own_", "neigh_")))
        assert st["rx"] == st["forwarded"] + st["local"] + st["arp"] + drops + st["held"], st
    assert c[0]["rx"] > 0 and c[0]["forwarded"] == 2010 and c[1]["arp"] == 1


def test_bad_knobs_are_reported():
    q = Qemu(boot="kernel", mem="256M", nics=["e1000e:netdev=stream"] * 2,
             append="app=fwd stats=0 ip0=10.1.0.1/24 ip1=10.2.0.0/24 route=10.5.0.1/16,10.1.0.2 "
                    "route=10.6.0.0/16,10.9.0.1 route=10.7.0.0/16,10.1.0.2 route=10.8.0.0/16,10.1.0.1 "
                    "route=10.9.0.0/16,10.1.0.0 route=10.10.0.0/16,10.1.0.255")
    try:
        q.expect(r"bad value '10.2.0.0/24' for ip1= \(.*network or broadcast.*accepted: A.B.C.D/LEN", 60)
        q.expect(r"bad value '10.5.0.1/16,10.1.0.2' for route= \(.*bits beyond /16", 10)
        q.expect(r"fwd: port0 routes at L3, 10.1.0.1/24", 90)
        q.expect(r"route=10.6.0.0/16,10.9.0.1 refused: the next hop is on no connected subnet", 10)
        q.expect(r"route=10.8.0.0/16,10.1.0.1 refused: the next hop is one of our own addresses", 10)
        q.expect(r"route=10.9.0.0/16,10.1.0.0 refused: the next hop is its subnet's network or broadcast", 10)
        q.expect(r"route=10.10.0.0/16,10.1.0.255 refused: the next hop is its subnet's network or broadcast", 10)
        q.expect(r"route=10.7.0.0/16,10.1.0.2 port0", 10)
        assert "port1 routes at L3" not in q.text()
        q.expect(r"port0: link up", 60)
        q.send("\r")
        q.expect("linerate> ", 30)
        q.send("show config\r")
        q.expect(r"\r\nroute=10.7.0.0/16,10.1.0.2 +boot", 20)   # the refused ones are gone
    finally:
        q.stop()


def test_arp_rules(r):
    """RFC 826 merge and a table strangers cannot take over: 251 unsolicited
    replies and stray requests from other hosts of 10.2.0.0/24 leave the
    next hop of 10.3.0.0/16 resolved (no new request, every frame through);
    a gratuitous ARP from the next hop with a new MAC (not addressed to us)
    moves it; a next hop that never answers is asked 3 times, then frames
    to it are dropped at once for a second (negative cache)."""
    r.p[0].send(udp_to(r, "10.3.0.9", n=1, sport=1500))
    first = r.recv(1, 5)
    if first and ARP in first[0]:      # not resolved yet by an earlier test
        r.p[1].send([raw(Ether(src=H1_MAC, dst=r.mac[1]) /
                         ARP(op=2, hwsrc=H1_MAC, psrc=H1_IP, hwdst=r.mac[1], pdst="10.2.0.1"))])
        r.recv(1, 5)
    hosts = [h for h in range(3, 255) if h != 99]      # 251 strangers; .99 stays silent
    strangers = [raw(Ether(src="02:00:00:01:00:%02x" % h, dst=r.mac[1]) /
                     ARP(op=2, hwsrc="02:00:00:01:00:%02x" % h, psrc="10.2.0.%d" % h,
                         hwdst=r.mac[1], pdst="10.2.0.1")) for h in hosts]
    strangers += [raw(Ether(src="02:00:00:02:00:%02x" % i, dst="ff:ff:ff:ff:ff:ff") /
                      ARP(op=1, hwsrc="02:00:00:02:00:%02x" % i, psrc="10.2.0.%d" % (i + 3),
                          pdst="10.2.0.1")) for i in range(4)]
    r.p[1].send(strangers)
    replies = r.recv(1, 4, timeout=5)
    assert len(replies) == 4 and all(ARP in g and g[ARP].op == 2 for g in replies)
    r.p[0].send(udp_to(r, "10.3.0.9", n=50, sport=1501))
    got = r.recv(1, 50)
    assert len(got) == 50 and all(IP in g and g.dst == H1_MAC for g in got), [g.summary() for g in got[:3]]
    table = r.shell("fwd arp")
    assert re.search(r"port1\s+10\.2\.0\.2\s+" + H1_MAC + r"\s+reachable", table), table
    routes = r.shell("fwd routes")
    assert re.search(r"^10\.3\.0\.0/16\s+10\.2\.0\.2\s+port1", routes, re.M), routes
    assert re.search(r"^10\.1\.0\.0/24\s+connected\s+port0", routes, re.M), routes
    # Merge: a gratuitous request from the next hop, for itself, moves it.
    new_mac = "02:00:00:00:00:33"
    r.p[1].send([raw(Ether(src=new_mac, dst="ff:ff:ff:ff:ff:ff") /
                     ARP(op=1, hwsrc=new_mac, psrc=H1_IP, pdst=H1_IP))])
    time.sleep(0.2)
    r.p[0].send(udp_to(r, "10.3.0.9", n=1, sport=1502))
    got = r.recv(1, 1)
    assert got and got[0].dst == new_mac
    r.p[1].send([raw(Ether(src=H1_MAC, dst="ff:ff:ff:ff:ff:ff") /
                     ARP(op=1, hwsrc=H1_MAC, psrc=H1_IP, pdst=H1_IP))])
    # Negative cache: 10.2.0.99 never answers.
    before = r.fwd()[1]
    r.p[0].send(udp_to(r, "10.4.0.1", n=1, sport=1503))
    asks = r.recv(1, 3, timeout=3)
    assert len(asks) == 3 and all(ARP in g and g[ARP].pdst == "10.2.0.99" for g in asks)
    r.p[0].send(udp_to(r, "10.4.0.1", n=5, sport=1504))
    assert r.recv(1, 1, timeout=0.3) == []
    after = r.fwd()
    assert after[1]["arp_requests"] - before["arp_requests"] == 3
    assert after[0]["arp_unresolved"] >= 6
