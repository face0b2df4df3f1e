"""app=fwd routing between 802.1Q VLAN sub-interfaces (ipN.VID=) in QEMU:
two e1000e ports wired to host stream sockets, frames made and checked with
scapy, vlan_strip=1: the NIC strips the tags into the RX descriptor and
drops VLANs with no sub-interface on port0 (VFTA). port0 carries untagged 10.1.0.0/24, VLAN 100 (10.100.0.0/24 and
2001:db8:100::/64) and VLAN 200 (10.200.0.0/24); port1 untagged 10.2.0.0/24
and 2001:db8:2::/64; port2 is the management port on a tap (/metrics).
port0 also carries QinQ S-VLAN 10's C-VLAN 100 (ip0.10.100=, 10.110.0.0/24),
which the NIC passes untouched (its S-tag is not VET's TPID). ptp_tc=e2e:
the routed PTP messages get their residence (test_ptp_transparent_clock_routed).
One boot; the bad ipN.VID= forms are on the same command line and must be
refused with the accepted forms while the good ones route."""
import os
import re
import subprocess
import sys

import pytest
import time

from scapy.all import (ARP, ICMP, IP, UDP, Dot1AD, Dot1Q, Ether, ICMPv6ND_NA, ICMPv6ND_NS, ICMPv6ND_RA, ICMPv6ND_RS,
                       ICMPv6NDOptMTU, ICMPv6NDOptPrefixInfo, ICMPv6NDOptDstLLAddr,
                       ICMPv6NDOptSrcLLAddr, IPerror, IPv6, Raw, raw)

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
sys.path.insert(0, os.path.dirname(__file__))
import netns  # noqa: E402
import test_fwd_l3  # noqa: E402

PROMPT = "linerate> "
H0 = ("02:00:00:00:00:01", "10.1.0.2", None)       # untagged on port0
H100 = ("02:00:00:00:01:00", "10.100.0.2", 100)    # VLAN 100 on port0
H200 = ("02:00:00:00:02:00", "10.200.0.2", 200)    # VLAN 200 on port0
H1 = ("02:00:00:00:00:22", "10.2.0.2", None)       # untagged on port1
H100_6 = "2001:db8:100::2"
H7 = ("02:00:00:00:01:07", "10.100.0.7", 100)      # VLAN 100, not yet known to the router
H7_6 = "2001:db8:100::7"
H1_6 = "2001:db8:2::2"
HQ = ("02:00:00:00:0a:64", "10.110.0.2", (10, 100))   # QinQ: S-VLAN 10, C-VLAN 100 on port0
NS, TAP = netns.names("vlan")
BAD = ("ip0.0=10.9.0.1/24 ip0.4095=10.9.1.1/24 ip0.0100=10.9.2.1/24 ip1.100=10.100.0.9/24 ip0.300=dhcp "
       "ip0.10.0=10.9.4.1/24")
APPEND = ("app=fwd stats=0 ip0=10.1.0.1/24 ip0.100=10.100.0.1/24,2001:db8:100::1/64 ip0.200=10.200.0.1/24 "
          "ip0.10.100=10.110.0.1/24,2001:db8:110::1/64 "
          "ip1=10.2.0.1/24,2001:db8:2::1/64 ip5.300=10.5.0.1/24 " + BAD + " ip0.100=10.9.3.1/24 "
          "mgmt=port2 ip2=10.5.5.1/24 vlan_strip=1 route=2001:db8:7::/48,fe80::7%port0.100 "
          "route=2001:db8:8::/48,fe80::8%port0.300 route=2001:db8:9::/48,fe80::9%port0.01 "
          "route=2001:db8:a::/48,fe80::a%port0.10.100 route=2001:db8:b::/48,fe80::b%port0.20.100 ptp_tc=e2e")


class Router(test_fwd_l3.Router):
    def __init__(self, append=APPEND, nics=("e1000e:netdev=stream",) * 2 + (f"e1000e:netdev=tap,ifname={TAP}",)):
        super().__init__(append, nics=nics)

    def fwd(self):
        """{link name: {counter: value}} from the fwd command."""
        c = {}
        for link, body in re.findall(r"^fwd (port[0-9.]+)(?: l3[^:]*)?: (.*)$", self.shell("fwd"), re.M):
            c.setdefault(link, {}).update({k: int(v) for k, v in re.findall(r"(\w+) (\d+)", body)})
        return c


@pytest.fixture(scope="module")
def r():
    netns.tap_add(TAP)
    try:
        router = Router()
        try:
            netns.wire(NS, TAP, "10.5.5.2/24")
            yield router
        finally:
            router.close()
    finally:
        netns.remove(NS, TAP)


def eth(r, host, port=0, **kw):
    """Ether (and Dot1Q for a VLAN host, Dot1AD and Dot1Q for a QinQ one)
    from host to the router's port."""
    e = Ether(src=host[0], dst=kw.pop("dst", r.mac[port]), **kw)
    if isinstance(host[2], tuple):
        return e / Dot1AD(vlan=host[2][0]) / Dot1Q(vlan=host[2][1])
    return e / Dot1Q(vlan=host[2]) if host[2] else e


def udp(r, src, dst, n, port=0, ttl=64):
    return [raw(eth(r, src, port) / IP(src=src[1], dst=dst[1], ttl=ttl, id=i) / UDP(sport=7, dport=1000 + i) /
                Raw(b"v" * 30)) for i in range(n)]


def recv(r, port, n, timeout=10):
    return [Ether(f) for f in r.p[port].recv(n, timeout)]


def test_bad_forms_refused_with_accepted_forms(r):
    out = r.q.text()
    for key, why in [("ip0.0", "is not 1-4094"), ("ip0.4095", "is not 1-4094"), ("ip0.0100", "is not 1-4094"),
                     ("ip0.100", "given before"), ("ip1.100", "overlaps ip0.100=10.100.0.1/24"),
                     ("ip0.300", "a VLAN sub-interface takes"), ("ip0.10.0", "is not 1-4094, nor S.C")]:
        lines = [ln for ln in out.splitlines() if "for %s= (" % key in ln]
        assert len(lines) == 1 and why in lines[0], (key, lines)
        assert "accepted: " in lines[0] and "VID 1-4094" in lines[0].split("accepted: ")[1], lines[0]
    assert "fwd: ip5.300=: no port5; ignored" in out
    assert "fwd: port0.100 routes at L3, 10.100.0.1/24" in out
    assert "fwd: port0.200 routes at L3, 10.200.0.1/24" in out
    for link in ("port0.100", "port0.200"):
        assert "fwd: %s: VLAN tag stripping and filtering by the NIC (vlan_strip=1)" % link in out
    routes = r.shell("fwd routes")
    assert re.search(r"10\.100\.0\.0/24\s+connected\s+port0\.100", routes), routes
    assert re.search(r"10\.200\.0\.0/24\s+connected\s+port0\.200", routes), routes
    assert re.search(r"2001:db8:100::/64 connected port0\.100", routes), routes
    assert "10.9." not in routes and "10.5.0" not in routes


def test_arp_and_nd_on_a_vlan_answered_tagged(r):
    # Each host asks for its router address; the router learns the host from it.
    for h, gw in [(H100, "10.100.0.1"), (H200, "10.200.0.1"), (H0, "10.1.0.1")]:
        r.p[0].send([raw(eth(r, h, dst="ff:ff:ff:ff:ff:ff") / ARP(op=1, hwsrc=h[0], psrc=h[1], pdst=gw))])
        rep = recv(r, 0, 1)
        assert rep and ARP in rep[0], rep
        assert (rep[0][Dot1Q].vlan if Dot1Q in rep[0] else None) == h[2]
        a = rep[0][ARP]
        assert a.op == 2 and a.psrc == gw and a.hwsrc == r.mac[0] and a.pdst == h[1] and a.hwdst == h[0]
    r.p[1].send([raw(eth(r, H1, 1, dst="ff:ff:ff:ff:ff:ff") / ARP(op=1, hwsrc=H1[0], psrc=H1[1], pdst="10.2.0.1"))])
    assert ARP in recv(r, 1, 1)[0]
    # VLAN 200 asking for VLAN 100's address: not its link's.
    r.p[0].send([raw(eth(r, H200, dst="ff:ff:ff:ff:ff:ff") / ARP(op=1, hwsrc=H200[0], psrc=H200[1],
                                                                  pdst="10.100.0.1"))])
    # Neighbor Solicitation for the router's VLAN 100 address, to its solicited-node group.
    ns = (Ether(src=H100[0], dst="33:33:ff:00:00:01") / Dot1Q(vlan=100) /
          IPv6(src=H100_6, dst="ff02::1:ff00:1", hlim=255) / ICMPv6ND_NS(tgt="2001:db8:100::1") /
          ICMPv6NDOptSrcLLAddr(lladdr=H100[0]))
    r.p[0].send([raw(ns)])
    na = recv(r, 0, 1)
    assert na and ICMPv6ND_NA in na[0], na
    assert na[0][Dot1Q].vlan == 100 and na[0].dst == H100[0] and na[0].src == r.mac[0]
    assert na[0][ICMPv6ND_NA].tgt == "2001:db8:100::1" and na[0][IPv6].dst == H100_6
    assert recv(r, 0, 1, timeout=0.5) == []    # the foreign ARP was not answered
    c = r.fwd()
    assert c["port0.100"]["arp"] == 1 and c["port0.100"]["nd"] == 1 and c["port0.100"]["rx"] == 2
    assert c["port0.200"]["arp"] == 1 and c["port0.200"]["arp_not_ours"] == 1 and c["port0.200"]["rx"] == 2
    assert c["port0"]["arp"] == 1 and c["port0"]["rx"] == 1
    arp = r.shell("fwd arp")
    assert re.search(r"port0\.100\s+10\.100\.0\.2\s+%s\s+reachable" % H100[0], arp), arp
    assert re.search(r"port0\.200\s+10\.200\.0\.2\s+%s\s+reachable" % H200[0], arp), arp


def test_routed_between_vlans_and_an_untagged_port(r):
    before = r.fwd()
    n = 16
    flows = [(H100, H200, 0, 0), (H100, H1, 0, 1), (H1, H100, 1, 0), (H0, H200, 0, 0), (H200, H0, 0, 0)]
    for src, dst, pin, pout in flows:
        sent = udp(r, src, dst, n, pin)
        r.p[pin].send(sent)
        got = recv(r, pout, n)
        assert len(got) == n, (src, dst, got)
        for s, g in zip(sent, got):
            s = Ether(s)
            assert (g[Dot1Q].vlan if Dot1Q in g else None) == dst[2], g.show(dump=True)
            assert g.dst == dst[0] and g.src == r.mac[pout]
            assert g[IP].ttl == 63 and g[IP].id == s[IP].id and raw(g[UDP]) == raw(s[UDP])
    after = r.fwd()
    d = {link: {k: after[link][k] - before[link].get(k, 0) for k in after[link]} for link in after}
    assert d["port0.100"]["rx"] == 2 * n and d["port0.100"]["forwarded"] == 2 * n
    assert d["port0.200"]["rx"] == n and d["port0.200"]["forwarded"] == n
    assert d["port0"]["rx"] == n and d["port0"]["forwarded"] == n
    assert d["port1"]["rx"] == n and d["port1"]["forwarded"] == n
    for link in d:
        drops = {k: v for k, v in d[link].items() if k not in ("rx", "forwarded", "held") and v}
        assert not drops, (link, drops)


def test_icmp_from_the_links_address_and_unknown_vlan(r):
    before = r.fwd()
    r.p[0].send(udp(r, H100, H1, 1, ttl=1))
    back = recv(r, 0, 1)
    assert back and ICMP in back[0], back
    e = back[0]
    assert e[Dot1Q].vlan == 100 and e.dst == H100[0]
    assert e[IP].src == "10.100.0.1" and e[IP].dst == H100[1] and e[ICMP].type == 11 and IPerror in e
    ping = eth(r, H100) / IP(src=H100[1], dst="10.100.0.1") / ICMP(type=8, id=5, seq=1) / Raw(b"tagged")
    r.p[0].send([raw(ping)])
    back = recv(r, 0, 1)
    assert back and back[0][Dot1Q].vlan == 100 and back[0][ICMP].type == 0 and back[0][IP].src == "10.100.0.1"
    # VLAN 300 has no sub-interface on port0: the NIC drops it (RCTL.VFE, no
    # VFTA bit; QEMU counts it nowhere). port1 has no sub-interface, so no
    # filter: its VLAN 200 frame reaches fwd and is vlan_unknown.
    r.p[0].send(udp(r, ("02:00:00:00:03:00", "10.30.0.2", 300), H1, 2))
    r.p[1].send(udp(r, ("02:00:00:00:04:00", "10.2.0.9", 200), H0, 1, port=1))
    assert recv(r, 1, 1, timeout=0.5) == [] and recv(r, 0, 1, timeout=0.5) == []
    # A priority tag (VID 0, in the VFTA) is stripped too: the port's frame, answered untagged.
    r.p[0].send([raw(Ether(src=H0[0], dst=r.mac[0]) / Dot1Q(vlan=0, prio=5) / IP(src=H0[1], dst="10.1.0.1") /
                     ICMP(type=8, id=6, seq=1))])
    back = recv(r, 0, 1)
    assert back and Dot1Q not in back[0] and back[0][ICMP].type == 0 and back[0][IP].src == "10.1.0.1", back
    after = r.fwd()
    d = {link: {k: after[link][k] - before[link].get(k, 0) for k in after[link]} for link in after}
    assert d["port0.100"]["rx"] == 2 and d["port0.100"]["ttl_expired"] == 1 and d["port0.100"]["icmp_sent"] == 1
    assert d["port0.100"]["local"] == 1
    assert d["port0"]["rx"] == 1 and d["port0"]["local"] == 1 and d["port0"]["vlan_unknown"] == 0
    assert d["port1"]["rx"] == 1 and d["port1"]["vlan_unknown"] == 1


def test_own_arp_and_ns_out_of_a_vlan(r):
    """Frames routed to hosts of VLAN 100 the router does not know yet: it
    asks for them out of port0 tagged 100 (ARP from 10.100.0.1, NS from the
    port's link-local address to the solicited-node group), each answer
    (tagged) resolves them and the held frames leave tagged; a 1500-byte
    datagram leaves as a 1518-byte frame (the tag on top), and one comes
    back in from VLAN 100 the same way."""
    before = r.fwd()
    r.p[1].send(udp(r, H1, H7, 3, port=1))
    req = recv(r, 0, 1)
    assert req and ARP in req[0], req
    a = req[0]
    assert a[Dot1Q].vlan == 100 and a.dst == "ff:ff:ff:ff:ff:ff" and a.src == r.mac[0]
    assert a[ARP].op == 1 and a[ARP].psrc == "10.100.0.1" and a[ARP].hwsrc == r.mac[0] and a[ARP].pdst == H7[1]
    r.p[0].send([raw(eth(r, H7) / ARP(op=2, hwsrc=H7[0], psrc=H7[1], hwdst=r.mac[0], pdst="10.100.0.1"))])
    got = recv(r, 0, 3)
    assert len(got) == 3 and all(g[Dot1Q].vlan == 100 and g.dst == H7[0] and g[IP].ttl == 63 for g in got), got
    big = raw(eth(r, H1, 1) / IP(src=H1[1], dst=H7[1], id=99) / UDP(sport=7, dport=9) / Raw(b"b" * 1472))
    r.p[1].send([big])
    got = recv(r, 0, 1)
    assert got and len(raw(got[0])) == 1518 and got[0][Dot1Q].vlan == 100 and got[0][IP].id == 99, got
    back = raw(eth(r, H7) / IP(src=H7[1], dst=H1[1], id=98) / UDP(sport=9, dport=7) / Raw(b"c" * 1472))
    assert len(back) == 1518
    r.p[0].send([back])
    got = recv(r, 1, 1)
    assert got and len(raw(got[0])) == 1514 and Dot1Q not in got[0] and got[0][IP].id == 98, got

    six = [raw(eth(r, H1, 1) / IPv6(src=H1_6, dst=H7_6) / UDP(sport=7, dport=3000 + i) / Raw(b"6" * 20))
           for i in range(2)]
    r.p[1].send(six)
    ns = recv(r, 0, 1)
    assert ns and ICMPv6ND_NS in ns[0], ns
    n = ns[0]
    assert n[Dot1Q].vlan == 100 and n.dst == "33:33:ff:00:00:07" and n.src == r.mac[0]
    assert n[IPv6].dst == "ff02::1:ff00:7" and n[IPv6].src.startswith("fe80::") and n[IPv6].hlim == 255
    assert n[ICMPv6ND_NS].tgt == H7_6 and n[ICMPv6NDOptSrcLLAddr].lladdr == r.mac[0]
    r.p[0].send([raw(eth(r, H7) / IPv6(src=H7_6, dst=n[IPv6].src, hlim=255) /
                     ICMPv6ND_NA(tgt=H7_6, R=0, S=1, O=1) / ICMPv6NDOptDstLLAddr(lladdr=H7[0]))])
    got = recv(r, 0, 2)
    assert len(got) == 2 and all(g[Dot1Q].vlan == 100 and g.dst == H7[0] and g[IPv6].hlim == 63 for g in got), got
    assert sorted(g[UDP].dport for g in got) == [3000, 3001]
    after = r.fwd()
    d = {link: {k: after[link][k] - before[link].get(k, 0) for k in after[link]} for link in after}
    moved = {link: {k: v for k, v in d[link].items() if v} for link in d}
    assert moved == {"port0": {}, "port0.200": {}, "port0.10.100": {}, "port1": {"rx": 6, "forwarded": 6},
                     "port0.100": {"rx": 3, "arp": 1, "nd": 1, "forwarded": 1, "arp_requests": 1, "nd_solicits": 1}}
    assert re.search(r"port0\.100\s+%s\s+%s\s+reachable" % (re.escape(H7_6), H7[0]), r.shell("fwd nd"))


def ptp_msg(mtype, seq, corr, flags=0):
    """A 44-byte PTP v2 message (IEEE 1588-2008 13.3, 13.6-13.7) of
    messageType mtype from clock 02:00:00:ff:fe:00:00:07 port 1, with
    correctionField corr (ns * 2^16) and flags (0x0200: two-step)."""
    return (bytes([mtype, 2]) + (44).to_bytes(2, "big") + bytes(2) + flags.to_bytes(2, "big") +
            corr.to_bytes(8, "big", signed=True) + bytes(4) + bytes.fromhex("020000fffe000007") +
            (1).to_bytes(2, "big") + seq.to_bytes(2, "big") + bytes([0, 0x7f]) + bytes(10))


def tc_lines(r):
    """{port: {counter: value}} of the fwd command's transparent clock lines."""
    return {p: {k: int(v) for k, v in re.findall(r"(\w+) (\d+)", body)}
            for p, body in re.findall(r"^fwd (port\d+) ptp_tc e2e: (.*)$", r.shell("fwd"), re.M)}


def test_ptp_transparent_clock_routed(r):
    """ptp_tc=e2e on the router: PTP/UDP event messages it routes get
    their residence added to correctionField, the UDP checksum kept right.
    From VLAN 100 to port1 (untagged): two Delay_Reqs over IPv4, one with
    a UDP checksum (still right: scapy recomputes it) and one without (0
    stays 0); from port1 to VLAN 100 (tagged on the way out, after the
    correction): a two-step Sync over IPv6 unchanged but for the hop
    limit, its Follow_Up given the Sync's residence with IPv6's checksum
    right. Each correction is above 0 and at most the ingress port's
    residence_max_ns; the TC counts them on the ingress port (port0 for
    its sub-interface's)."""
    assert "fwd: routed ports: end-to-end transparent clock (ptp_tc=e2e) on PTP/UDP event messages" in r.q.text()
    # H1's ARP entry and H7_6's neighbor entry made fresh (reachable), so
    # that no probe goes out during this test or into a later test's reads.
    # H7's NS makes its entry (stale, RFC 4861 7.2.3) when no earlier test
    # did; the NA after it, solicited, makes it reachable (7.2.5).
    r.p[1].send([raw(eth(r, H1, 1, dst="ff:ff:ff:ff:ff:ff") / ARP(op=1, hwsrc=H1[0], psrc=H1[1], pdst="10.2.0.1"))])
    assert ARP in recv(r, 1, 1)[0]
    r.p[0].send([raw(eth(r, H7, dst="33:33:ff:00:00:01") / IPv6(src=H7_6, dst="ff02::1:ff00:1", hlim=255) /
                     ICMPv6ND_NS(tgt="2001:db8:100::1") / ICMPv6NDOptSrcLLAddr(lladdr=H7[0]))])
    assert ICMPv6ND_NA in recv(r, 0, 1)[0]
    r.p[0].send([raw(eth(r, H7) / IPv6(src=H7_6, dst="2001:db8:100::1", hlim=255) /
                     ICMPv6ND_NA(tgt=H7_6, R=0, S=1, O=1) / ICMPv6NDOptDstLLAddr(lladdr=H7[0]))])
    end = time.monotonic() + 10
    while time.monotonic() < end:
        nd = [ln for ln in r.shell("fwd nd").splitlines() if H7_6 + " " in ln]
        if nd and all("reachable" in ln for ln in nd):
            break
        time.sleep(0.2)
    before = tc_lines(r)
    dreqs = [eth(r, H7) / IP(src=H7[1], dst=H1[1], ttl=9) / UDP(sport=319, dport=319, chksum=c) /
             Raw(ptp_msg(1, 40 + i, 5 << 16)) for i, c in enumerate((None, 0))]
    r.p[0].send([raw(p) for p in dreqs])
    got = recv(r, 1, 2)
    assert len(got) == 2, got
    res = []
    for g, sent in zip(got, dreqs):
        assert Dot1Q not in g and g[IP].ttl == 8 and g[UDP].dport == 319, g.show(dump=True)
        m, sm = bytes(g[UDP].payload)[:44], bytes(sent[Raw])
        res.append(int.from_bytes(m[8:16], "big", signed=True) - (5 << 16))
        assert m[:8] + m[16:] == sm[:8] + sm[16:]
    g = got[0].copy()
    del g[UDP].chksum
    assert Ether(raw(g))[UDP].chksum == got[0][UDP].chksum
    assert got[1][UDP].chksum == 0
    six = [eth(r, H1, 1) / IPv6(src=H1_6, dst=H7_6, hlim=9) / UDP(sport=319 + k, dport=319 + k) /
           Raw(ptp_msg(t, 50, 1 << 16, 0x0200 if t == 0 else 0) + bytes(2)) for k, t in ((0, 0), (1, 8))]
    r.p[1].send([raw(p) for p in six])
    got6 = recv(r, 0, 2)
    assert len(got6) == 2 and all(g[Dot1Q].vlan == 100 and g[IPv6].hlim == 8 for g in got6), got6
    sync, fup = got6
    assert raw(sync[UDP]) == raw(Ether(raw(six[0]))[UDP])
    res.append(int.from_bytes(bytes(fup[UDP].payload)[8:16], "big", signed=True) - (1 << 16))
    g = fup.copy()
    del g[UDP].chksum
    assert Ether(raw(g))[UDP].chksum == fup[UDP].chksum
    after = tc_lines(r)
    d = {p: {k: after[p][k] - before.get(p, {}).get(k, 0) for k in after[p]} for p in after}
    assert d["port0"]["delay_req"] == 2 and d["port1"]["follow_up"] == 1, d
    assert d["port0"]["rx_hwtstamp"] + d["port0"]["rx_swtstamp"] == 2, d
    assert d["port1"]["rx_hwtstamp"] + d["port1"]["rx_swtstamp"] == 1, d
    assert d["port0"]["tx_swtstamp"] == 2 and d["port1"]["tx_swtstamp"] == 1, d
    for p in d:
        assert not any(d[p][k] for k in ("sync", "no_sync", "overflow", "negative_residence", "bad_ptp",
                                          "tx_hwtstamp", "delay_resp")), d
    assert all(0 < x >> 16 <= after["port0"]["residence_max_ns"] for x in res[:2]), (res, after)
    assert 0 < res[2] >> 16 <= after["port1"]["residence_max_ns"], (res, after)


def test_vlan_links_in_metrics_and_show_config(r):
    """/metrics has each sub-interface's samples under link="port0.100",
    equal to `fwd`'s, beside the ports' (port="port0"), and promtool
    accepts the page; `show config` lists the ipN.VID= given."""
    c = r.fwd()
    page = netns.sh("curl", "-sS", "--max-time", "20", "http://10.5.5.1/metrics", ns=NS)
    for link, label in [("port0", 'port="port0"'), ("port0.100", 'link="port0.100"'),
                        ("port0.200", 'link="port0.200"'), ("port0.10.100", 'link="port0.10.100"')]:
        for name, key in [("fwd_received_total", "rx"), ("fwd_forwarded_total", "forwarded"),
                          ("fwd_arp_total", "arp"), ("fwd_nd_total", "nd")]:
            m = re.search(r"^linerate_%s\{%s\} (\d+)$" % (name, re.escape(label)), page, re.M)
            assert m and int(m.group(1)) == c[link][key], (name, label, m and m.group(0), c[link][key])
        m = re.search(r'^linerate_fwd_events_total\{%s,event="arp_requests"\} (\d+)$' % re.escape(label), page, re.M)
        assert m and int(m.group(1)) == c[link]["arp_requests"], (label, m)
    m = re.search(r'^linerate_fwd_dropped_total\{port="port0",reason="vlan_unknown"\} (\d+)$', page, re.M)
    assert m and int(m.group(1)) == c["port0"]["vlan_unknown"]
    assert 'link="port0.300"' not in page and 'port="port0.100"' not in page
    check = subprocess.run(["promtool", "check", "metrics"], input=page, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=60)
    assert check.returncode == 0, check.stdout
    conf = r.shell("show config")
    lines = {m.group(1): m.group(2) for m in re.finditer(r"^(ip\d(?:\.\d+){0,2})=(\S*)", conf, re.M)}
    assert lines["ip0"] == "10.1.0.1/24" and lines["ip1"] == "10.2.0.1/24,2001:db8:2::1/64"
    assert lines["ip0.100"] == "10.100.0.1/24,2001:db8:100::1/64" and lines["ip0.200"] == "10.200.0.1/24"
    # ip5.300= was taken away at boot (no port5), the refused forms never set.
    assert lines["ip0.10.100"] == "10.110.0.1/24,2001:db8:110::1/64"
    assert sorted(k for k in lines if "." in k) == ["ip0.10.100", "ip0.100", "ip0.200"], lines
    assert re.search(r"^ip0\.100=\S+\s+boot\s+ip0\.SUB: see ip0\r?$", conf, re.M), conf
    assert "ip0.100=10.100.0.1/24" in netns.sh("curl", "-sS", "--max-time", "20", "http://10.5.5.1/config", ns=NS)


def test_link_local_next_hop_through_a_vlan(r):
    """route=2001:db8:7::/48,fe80::7%port0.100: a link-local next hop on a
    sub-interface. A datagram from port1 to 2001:db8:7::5 makes the router
    ask for fe80::7 out of port0 tagged 100; the tagged NA resolves it and
    the datagram leaves tagged 100 to the MAC it gave. %port0.300 (no such
    sub-interface) is refused at boot, %port0.01 (a leading zero) named as
    a bad form with the accepted ones."""
    out = r.q.text()
    assert "fwd: route=2001:db8:8::/48,fe80::8%port0.300 refused: no such VLAN sub-interface (ipN.VID=, ipN.S.C=)" \
        in out
    bad = [ln for ln in out.splitlines() if "2001:db8:9::/48,fe80::9%port0.01" in ln and not ln.startswith("boot:")]
    assert len(bad) == 1 and "PREFIX6/LEN,ADDR6[%portN[.VID|.S.C]]" in bad[0], bad
    assert re.search(r"^2001:db8:7::/48 fe80::7 port0\.100\r?$", r.shell("fwd routes"), re.M)
    before = r.fwd()
    r.p[1].send([raw(eth(r, H1, 1) / IPv6(src=H1_6, dst="2001:db8:7::5") / UDP(sport=7, dport=4000) / Raw(b"7" * 20))])
    ns = recv(r, 0, 1)
    assert ns and ICMPv6ND_NS in ns[0] and ns[0][Dot1Q].vlan == 100 and ns[0][ICMPv6ND_NS].tgt == "fe80::7", ns
    r.p[0].send([raw(eth(r, H7) / IPv6(src="fe80::7", dst=ns[0][IPv6].src, hlim=255) /
                     ICMPv6ND_NA(tgt="fe80::7", R=1, S=1, O=1) / ICMPv6NDOptDstLLAddr(lladdr=H7[0]))])
    got = recv(r, 0, 1)
    assert got and got[0][Dot1Q].vlan == 100 and got[0].dst == H7[0] and got[0][UDP].dport == 4000, got
    assert got[0][IPv6].hlim == 63
    end = time.monotonic() + 10
    while (after := r.fwd())["port1"]["forwarded"] == before["port1"]["forwarded"] and time.monotonic() < end:
        time.sleep(0.1)
    moved = {link: {k: after[link][k] - before[link].get(k, 0) for k in after[link]
                    if after[link][k] != before[link].get(k, 0)} for link in after}
    assert moved == {"port0": {}, "port0.200": {}, "port0.10.100": {}, "port1": {"rx": 1, "forwarded": 1},
                     "port0.100": {"rx": 1, "nd": 1, "nd_solicits": 1}}, moved


def test_qinq_link_routed_to_an_untagged_port(r):
    """ip0.10.100=: frames with an S-tag of VLAN 10 (TPID 0x88a8) outside a
    C-tag of VLAN 100 are port0.10.100's, not port0.100's: its host's ARP
    is answered under both tags, 8 datagrams each way between it and port1
    are routed (both tags taken off, and put back: S-tag outside, TTL one
    less). The NIC's VLAN filter (vlan_strip=1) sees no tag of its TPID and
    passes them all; S-VLAN 10's C-VLAN 200 and S-VLAN 20's C-VLAN 100 have
    no sub-interface: vlan_unknown on port0."""
    out = r.q.text()
    assert "fwd: port0.10.100 routes at L3, 10.110.0.1/24" in out
    assert "fwd: port0.10.100: VLAN tag stripping" not in out
    before = r.fwd()
    r.p[0].send([raw(eth(r, HQ, dst="ff:ff:ff:ff:ff:ff") / ARP(op=1, hwsrc=HQ[0], psrc=HQ[1], pdst="10.110.0.1"))])
    rep = recv(r, 0, 1)
    assert rep and ARP in rep[0] and rep[0][ARP].op == 2 and rep[0][ARP].psrc == "10.110.0.1", rep
    assert raw(rep[0])[12:18] == bytes.fromhex("88a8000a8100") and rep[0][Dot1Q].vlan == 100, rep[0]
    n = 8
    for src, dst, pin, pout in [(HQ, H1, 0, 1), (H1, HQ, 1, 0)]:
        sent = udp(r, src, dst, n, pin)
        r.p[pin].send(sent)
        got = recv(r, pout, n)
        assert len(got) == n, (src, dst, got)
        for s, g in zip(sent, got):
            tags = raw(g)[12:20] if dst is HQ else raw(g)[12:14]
            assert tags == (bytes.fromhex("88a8000a81000064") if dst is HQ else b"\x08\x00"), g.show(dump=True)
            assert g.dst == dst[0] and g.src == r.mac[pout] and g[IP].ttl == 63 and g[IP].id == Ether(s)[IP].id
    r.p[0].send([raw(Ether(src=HQ[0], dst=r.mac[0]) / Dot1AD(vlan=s) / Dot1Q(vlan=c) / IP(src=HQ[1], dst=H1[1]) /
                     UDP(sport=7, dport=9)) for s, c in ((10, 200), (20, 100))])
    assert recv(r, 1, 1, timeout=0.5) == []
    end = time.monotonic() + 10
    while (after := r.fwd())["port0"].get("vlan_unknown", 0) - before["port0"].get("vlan_unknown", 0) < 2 and \
            time.monotonic() < end:
        time.sleep(0.1)
    moved = {link: {k: after[link][k] - before[link].get(k, 0) for k in after[link]
                    if after[link][k] != before[link].get(k, 0) and k != "held"} for link in after}
    assert moved == {"port0": {"rx": 2, "vlan_unknown": 2}, "port0.100": {}, "port0.200": {},
                     "port1": {"rx": n, "forwarded": n},
                     "port0.10.100": {"rx": 1 + n, "arp": 1, "forwarded": n}}, moved
    assert re.search(r"port0\.10\.100\s+10\.110\.0\.2\s+%s\s+reachable" % HQ[0], r.shell("fwd arp"))


def test_link_local_next_hop_through_a_qinq_link(r):
    """route=2001:db8:a::/48,fe80::a%port0.10.100: a link-local next hop on
    a QinQ sub-interface. A datagram from port1 to 2001:db8:a::5 makes the
    router ask for fe80::a out of port0 under S-tag 10 and C-tag 100; the NA
    under both tags resolves it and the datagram leaves with both (S-tag
    outside) to the MAC it gave. %port0.20.100 (no such sub-interface) is
    refused at boot."""
    out = r.q.text()
    assert "fwd: route=2001:db8:a::/48,fe80::a%port0.10.100 port0.10.100" in out
    assert "fwd: route=2001:db8:b::/48,fe80::b%port0.20.100 refused: no such VLAN sub-interface (ipN.VID=, ipN.S.C=)" \
        in out
    assert re.search(r"^2001:db8:a::/48 fe80::a port0\.10\.100\r?$", r.shell("fwd routes"), re.M)
    before = r.fwd()
    r.p[1].send([raw(eth(r, H1, 1) / IPv6(src=H1_6, dst="2001:db8:a::5") / UDP(sport=7, dport=4010) / Raw(b"a" * 20))])
    ns = recv(r, 0, 1)
    assert ns and ICMPv6ND_NS in ns[0] and ns[0][ICMPv6ND_NS].tgt == "fe80::a", ns
    assert raw(ns[0])[12:20] == bytes.fromhex("88a8000a81000064"), ns[0]
    r.p[0].send([raw(eth(r, HQ) / IPv6(src="fe80::a", dst=ns[0][IPv6].src, hlim=255) /
                     ICMPv6ND_NA(tgt="fe80::a", R=1, S=1, O=1) / ICMPv6NDOptDstLLAddr(lladdr=HQ[0]))])
    got = recv(r, 0, 1)
    assert got and raw(got[0])[12:22] == bytes.fromhex("88a8000a8100006486dd"), got
    assert got[0].dst == HQ[0] and got[0][UDP].dport == 4010 and got[0][IPv6].hlim == 63, got
    end = time.monotonic() + 10
    while (after := r.fwd())["port1"]["forwarded"] == before["port1"]["forwarded"] and time.monotonic() < end:
        time.sleep(0.1)
    moved = {link: {k: after[link][k] - before[link].get(k, 0) for k in after[link]
                    if after[link][k] != before[link].get(k, 0) and k != "held"} for link in after}
    assert moved == {"port0": {}, "port0.100": {}, "port0.200": {}, "port1": {"rx": 1, "forwarded": 1},
                     "port0.10.100": {"rx": 1, "nd": 1, "nd_solicits": 1}}, moved
    assert re.search(r"port0\.10\.100\s+fe80::a\s+%s\s+reachable" % HQ[0], r.shell("fwd nd"))


def test_vlan_strip_at_run_time(r):
    """set port0 vlan_strip 0 (ethtool -K rxvlan off rx-vlan-filter off):
    CTRL.VME and RCTL.VFE cleared, so VLAN 300 (no sub-interface) now
    reaches fwd and is counted vlan_unknown, and VLAN 100's echo, its tag
    now read from the frame, is still answered tagged. set port0
    vlan_strip 1: the NIC filters again, VLAN 300 is dropped before any
    counter, VLAN 100 still answered. set port0 vlan_filter 0 (ethtool -K
    rx-vlan-filter off): the NIC strips every tag but filters none, so
    VLAN 300 comes stripped and is counted vlan_unknown; vlan_filter 1
    drops it again. port1 (no sub-interface) says the knobs change
    nothing there."""
    h300 = ("02:00:00:00:03:00", "10.30.0.2", 300)

    def echo(seq):
        return [raw(eth(r, H100) / IP(src=H100[1], dst="10.100.0.1") / ICMP(type=8, id=7, seq=seq) / Raw(b"rt"))]

    def moved(before, want):
        end = time.monotonic() + 10
        while True:
            after = r.fwd()
            m = {link: {k: after[link][k] - before[link].get(k, 0) for k in after[link]
                        if after[link][k] != before[link].get(k, 0) and k != "held"} for link in after}
            if m == want or time.monotonic() > end:
                return m
            time.sleep(0.1)

    quiet = {"port0.200": {}, "port0.10.100": {}, "port1": {}}
    states = [("vlan_strip 0", "off: tags parsed in software", 1, "vlan_strip=0,1,1"),
              ("vlan_strip 1", "on, and filtering", 0, "vlan_strip=1"),
              ("vlan_filter 0", "on, no filtering: fwd counts other VLANs vlan_unknown", 1, "vlan_filter=0,1,1"),
              ("vlan_filter 1", "on, and filtering", 0, "vlan_filter=1")]
    for seq, (knob, said, counted, value) in enumerate(states):
        out = r.shell("set port0 " + knob)
        assert "port0: VLAN tag stripping by the NIC " + said in out, out
        assert re.search("^" + value + r"\r?$", out, re.M), out
        before = r.fwd()
        r.p[0].send(udp(r, h300, H1, 2))
        r.p[0].send(echo(seq))
        back = recv(r, 0, 1)
        assert back and back[0][Dot1Q].vlan == 100 and back[0][ICMP].type == 0 and back[0][ICMP].seq == seq, back
        assert recv(r, 1, 1, timeout=0.5) == []
        want = dict(quiet, **{"port0": {"rx": 2, "vlan_unknown": 2} if counted else {},
                              "port0.100": {"rx": 1, "local": 1}})
        assert moved(before, want) == want, knob
    out = r.shell("set port1 vlan_strip 0")
    assert "port1: vlan_strip=0 vlan_filter=1 change nothing: no VLAN the NIC filters (e1000e; fwd's ipN.VID=)" \
        in out, out
    assert re.search(r"^vlan_strip=1\r?$", r.shell("set port1 vlan_strip 1"), re.M)


def test_router_advertisements_on_a_vlan():
    """ra6=1 on port0, whose only IPv6 link is its sub-interface port0.100
    (a boot of its own: the RAs every 16 s would land in the other tests'
    reads). A Router Solicitation tagged 100 brings an RA forward (RFC 4861
    6.2.6: at most 3 s after the last): tagged 100, from the port's
    link-local address and MAC to all-nodes, hop limit 255, with the MTU
    and VLAN 100's prefix, on-link and autonomous, so a host on the VLAN
    configures itself by SLAAC. The RS counts nd on port0.100, the RAs
    ra_sent there; port0 itself sends none (no IPv6 address)."""
    r = Router("app=fwd stats=0 ip1=10.2.0.1/24 ip0.100=2001:db8:100::1/64 ra6=1", ("e1000e:netdev=stream",) * 2)
    try:
        host = "02:00:00:00:01:00"
        r.p[0].send([raw(Ether(src=host, dst="33:33:00:00:00:02") / Dot1Q(vlan=100) /
                         IPv6(src="fe80::100:2", dst="ff02::2", hlim=255) / ICMPv6ND_RS())])
        ra, end = None, time.monotonic() + 20
        while not ra and time.monotonic() < end:
            ra = next((g for g in recv(r, 0, 1, timeout=1) if ICMPv6ND_RA in g), None)
        assert ra, "no RA within 20 s"
        assert ra[Dot1Q].vlan == 100 and ra.src == r.mac[0] and ra.dst == "33:33:00:00:00:01", ra
        assert ra[IPv6].src.startswith("fe80::") and ra[IPv6].dst == "ff02::1" and ra[IPv6].hlim == 255
        pi = ra[ICMPv6NDOptPrefixInfo]
        assert (pi.prefix, pi.prefixlen, pi.L, pi.A) == ("2001:db8:100::", 64, 1, 1), pi
        assert ra[ICMPv6NDOptMTU].mtu == 1500 and ra[ICMPv6ND_RA].routerlifetime > 0
        c = r.fwd()
        assert c["port0.100"]["nd"] == 1 and c["port0.100"]["rx"] == 1 and c["port0.100"]["ra_sent"] >= 1, c
        assert c["port0"].get("ra_sent", 0) == 0 and c["port0"]["rx"] == 0, c
    finally:
        r.close()
