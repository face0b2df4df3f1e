"""app=fwd routing on two cores (-smp 2, queues=2): RSS spreads the flows
over both queues, so both cores route to the same next hop. ARP is not
RSS-hashed, so the replies to either core's requests arrive on queue 0,
core 0's: what it learns must reach core 1, whose held frames then go out.
Hosts: 10.1.0.x behind port0, 10.2.0.2 behind port1 (the next hop of
10.3.0.0/16); for IPv6 (ND, RFC 4861) 2001:db8:1::x and 2001:db8:2::2;
10.100.0.x on port0's VLAN 100 (ip0.100=, tagged frames on both cores; on
igb with vlan_strip=1, the NIC taking the tags off).
A core applies what another posted in its next timer pass, which a starved
vCPU may run well after the other core's held frames left: the tables are
read until both entries show, with a deadline. ARP requests go 1 s apart
(arp_retrans_time_ms=1000, Linux's default): a test slowed by a loaded host
still answers before an entry gives up (3 requests)."""
import os
import re
import struct
import sys
import time

import pytest
from scapy.all import ARP, IP, UDP, Dot1Q, Ether, Raw, raw
from scapy.layers.inet6 import ICMPv6ND_NA, ICMPv6ND_NS, ICMPv6NDOptDstLLAddr, IPv6

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
sys.path.insert(0, os.path.dirname(__file__))
from test_lcore import box, core_counts  # noqa: E402,F401 (box: the fixture)

H0_MAC = "02:00:00:00:00:01"
H1_MAC, H1_IP = "02:00:00:00:00:22", "10.2.0.2"
APPEND = ("app=fwd queues=2 ip0=10.1.0.1/24 ip1=10.2.0.1/24 route=10.3.0.0/16,10.2.0.2 ip0.100=10.100.0.1/24 "
          "arp_retrans_time_ms=1000")
HV_MAC, HV_IP = "02:00:00:00:01:00", "10.100.0.9"      # a host of VLAN 100 on port0


def arp_of(r, link):
    """{(core, address): (state, held)} of link from `fwd arp`."""
    return {(int(c), a): (s, int(h)) for c, a, s, h in
            re.findall(r"(\d) +%s +(\S+) +\S+ +(\w+) +\d+ +(\d+)" % re.escape(link), r.shell("fwd arp"))}


def arp(r):
    """{(core, address): (state, held)} of port1 from `fwd arp`."""
    return arp_of(r, "port1")


def flows(r, srcs, sports):
    return [raw(Ether(src=H0_MAC, dst=r.mac[0]) / IP(src=f"10.1.0.{10 + s}", dst="10.3.0.5", id=s * 64 + p) /
                UDP(sport=1000 + p, dport=2000) / Raw(b"x" * 32)) for s in srcs for p in sports]


def ip_frames(frames):
    return [f for f in frames if IP in f]


def held_out(port, n, timeout=30):
    """What port sends until n IP frames came (or timeout s): (the IP
    frames, the ARP requests among the rest)."""
    got, asks, end = [], [], time.monotonic() + timeout
    while len(got) < n and time.monotonic() < end:
        for f in (Ether(b) for b in port.recv(1, timeout=0.5)):
            if IP in f:
                got.append(f)
            elif ARP in f and f[ARP].op == 1:
                asks.append(f)
    return got, asks


def settled(read, want, timeout=20):
    """read() once it equals want, or its last value after timeout s: the
    other core applies a posted binding in its next timer pass."""
    end = time.monotonic() + timeout
    while (now := read()) != want and time.monotonic() < end:
        time.sleep(0.2)
    return now


def routed(r, bulk):
    """bulk (UDP datagrams, IPv4 or IPv6) sent into port0 128 at a time,
    while what port1 sends is read until as many datagrams came (30 s a
    chunk): the frames that came out of port1, the router's own (ARP, ND)
    among them."""
    got, n = [], 0
    for i in range(0, len(bulk), 128):
        t = r.p[0].send_background(bulk[i:i + 128])
        n += len(bulk[i:i + 128])
        end = time.monotonic() + 30
        while (have := sum(UDP in g for g in got)) < n and time.monotonic() < end:
            got += [Ether(f) for f in r.p[1].recv(n - have, timeout=1)]
        t.join(5)
    return got


def all_routed(r, total):
    """`fwd`'s counters by port, once port0 received total frames and
    forwarded each, with no drop."""
    c = {}
    for port, body in re.findall(r"fwd port(\d): (.*)", r.shell("fwd")):
        c[int(port)] = {k: int(v) for k, v in re.findall(r"(\w+) (\d+)", body)}
    drops = {k: v for k, v in c[0].items() if v and k not in ("rx", "forwarded")}
    assert c[0]["rx"] == total and c[0]["forwarded"] == total and not drops, c[0]
    return c


@pytest.mark.parametrize("model", ["e1000e", "igb"])
def test_next_hop_learnt_on_core0_reaches_core1(box, model):
    """8 frames (8 sources) held on both cores while they ask for
    10.2.0.2; both requests answered (the answers arrive on queue 0, core
    0's): every held frame goes out, both cores' entries are reachable, then 8 sources x 64 ports
    are all routed, by both cores, with no drop."""
    r = box(APPEND + (" vlan_strip=1" if model == "igb" else ""), nports=2, smp=2, model=model)
    assert "core0: port0/q0" in r.q.text() and "core1: port0/q1" in r.q.text(), r.q.text()
    r.mac = re.findall(r"ether ([0-9a-f:]{17})", r.shell("ifconfig"))
    first = flows(r, range(8), [0])
    r.p[0].send(first)
    # Both cores hold frames for 10.2.0.2 and ask for it (answered at once:
    # an entry gives up after 3 requests 1 s apart).
    asked = [Ether(f) for f in r.p[1].recv(2, timeout=10)]
    assert len(asked) == 2 and all(ARP in a and a[ARP].pdst == H1_IP for a in asked), asked
    reply = raw(Ether(src=H1_MAC, dst=r.mac[1]) /
                ARP(op=2, hwsrc=H1_MAC, psrc=H1_IP, hwdst=r.mac[1], pdst="10.2.0.1"))
    r.p[1].send([reply] * len(asked))
    got, _ = held_out(r.p[1], len(first))
    assert sorted(g[IP].id for g in got) == sorted(Ether(f)[IP].id for f in first), got
    cores = core_counts(r)
    assert sum(cores.values()) == len(first) + len(asked) and cores[1] > 0, cores
    want = {(0, H1_IP): ("reachable", 0), (1, H1_IP): ("reachable", 0)}
    assert settled(lambda: arp(r), want) == want

    bulk = flows(r, range(8), range(1, 64))
    got = ip_frames(routed(r, bulk))
    assert len(got) == len(bulk) and all(g.dst == H1_MAC and g[IP].ttl == 63 for g in got)
    total = len(first) + len(bulk)
    c = all_routed(r, total)
    assert c[1]["rx"] == len(asked) and c[1]["arp"] == len(asked), c[1]
    cores = core_counts(r)
    # The ARP replies on port1 are core 0's; both cores routed a share.
    assert sum(cores.values()) == total + len(asked) and cores[0] > len(asked) and cores[1] > 0, cores
    if model == "igb":      # tagged frames on two cores, stripped by the NIC: one model is enough (~5 s)
        vlan_on_two_cores(r, cores)


def link_counts(r):
    """{link: {counter: value}} from `fwd` (ports and VLAN sub-interfaces)."""
    c = {}
    for link, body in re.findall(r"^fwd (port[0-9.]+)(?: l3[^:]*)?: (.*)$", r.shell("fwd"), re.M):
        c.setdefault(link, {}).update({k: int(v) for k, v in re.findall(r"(\w+) (\d+)", body)})
    return c


def vlan_on_two_cores(r, cores):
    """Port0's VLAN 100 with both cores routing: frames from port1 (8
    sources, so on both queues) to 10.100.0.9, unknown, make each core ask
    for it out of port0 tagged; the tagged answers (both on queue 0) reach
    both cores and every held frame leaves tagged, on both cores. Then
    tagged flows from 8 sources x 16 ports on VLAN 100 are routed out of
    port1 untagged by both cores. Every frame counted on its link, no drop,
    and every ARP request the router counts was seen on the wire.
    vlan_strip=1 (igb's CTRL.VME, RCTL.VFE, VFTA): the tags arrive in the RX
    descriptors, a priority-tagged frame (VID 0's VFTA bit) is port0's and
    routed, and a frame of VLAN 300 (no sub-interface, no VFTA bit) is
    dropped by the NIC: counted nowhere, not vlan_unknown."""
    assert "fwd: port0.100: VLAN tag stripping and filtering by the NIC (vlan_strip=1)" in r.q.text()
    before = link_counts(r)
    # 8 sources: 8 UDP ports from one source all came on queue 0 (QEMU 10's
    # igb), and core 1 then learnt 10.100.0.9 only from core 0's post.
    held = [raw(Ether(src=H1_MAC, dst=r.mac[1]) / IP(src=f"10.2.0.{10 + p}", dst=HV_IP, id=3000 + p) /
                UDP(sport=1000 + p, dport=2000) / Raw(b"v" * 32)) for p in range(8)]
    r.p[1].send(held)
    asked = [Ether(f) for f in r.p[0].recv(2, timeout=10)]
    assert len(asked) == 2, asked
    r.p[0].send([raw(Ether(src=HV_MAC, dst=r.mac[0]) / Dot1Q(vlan=100) /
                     ARP(op=2, hwsrc=HV_MAC, psrc=HV_IP, hwdst=r.mac[0], pdst="10.100.0.1"))] * 2)
    # A core's requests leave on its TX queue before its held frames do.
    got, later = held_out(r.p[0], len(held))
    asked += later
    assert all(ARP in a and a[Dot1Q].vlan == 100 and a[ARP].pdst == HV_IP for a in asked), asked
    assert sorted(g[IP].id for g in got) == [3000 + p for p in range(8)], got
    assert all(g[Dot1Q].vlan == 100 and g.dst == HV_MAC and g[IP].ttl == 63 for g in got), got
    held_on = core_counts(r)
    assert held_on[0] > cores[0] and held_on[1] > cores[1], (cores, held_on)
    want = {(0, HV_IP): "reachable", (1, HV_IP): "reachable"}
    assert settled(lambda: {(c, a): s for (c, a), (s, _) in arp_of(r, "port0.100").items()}, want) == want
    r.p[0].send([raw(Ether(src=HV_MAC, dst=r.mac[0]) / Dot1Q(vlan=300) /
                     IP(src="10.30.0.9", dst="10.3.0.5", id=4300) / UDP(sport=9, dport=2000) / Raw(b"f" * 32))])
    tagged = [raw(Ether(src=HV_MAC, dst=r.mac[0]) / Dot1Q(vlan=100) /
                  IP(src=f"10.100.0.{20 + s}", dst="10.3.0.5", id=4000 + s * 16 + p) /
                  UDP(sport=1000 + p, dport=2000) / Raw(b"t" * 32)) for s in range(8) for p in range(16)]
    prio = raw(Ether(src=H0_MAC, dst=r.mac[0]) / Dot1Q(vlan=0, prio=5) /
               IP(src="10.1.0.7", dst="10.3.0.5", id=4200) / UDP(sport=9, dport=2000) / Raw(b"p" * 32))
    out = routed(r, tagged + [prio])
    got = ip_frames(out)
    missing = sorted({Ether(f)[IP].id for f in tagged + [prio]} - {g[IP].id for g in got})
    assert len(got) == len(tagged) + 1 and not missing, (missing, [g.summary() for g in out if IP not in g],
                                                         r.shell("fwd"))
    assert all(Dot1Q not in g and g.dst == H1_MAC and g[IP].ttl == 63 for g in got)
    after = link_counts(r)
    moved = {link: {k: v - before[link].get(k, 0) for k, v in after[link].items()
                    if v != before[link].get(k, 0) and k not in ("arp_requests", "held")} for link in after}
    assert moved == {"port0": {"rx": 1, "forwarded": 1}, "port1": {"rx": 8, "forwarded": 8},
                     "port0.100": {"rx": 2 + len(tagged), "arp": 2, "forwarded": len(tagged)}}, moved
    assert after["port0.100"]["arp_requests"] == len(asked), (after["port0.100"], asked)
    now = core_counts(r)
    assert now[0] > held_on[0] and now[1] > held_on[1], (held_on, now)


APPEND6 = ("app=fwd queues=2 ip0=2001:db8:1::1/64 ip1=2001:db8:2::1/64 "
           "route=2001:db8:3::/48,2001:db8:2::2")
H1_IP6 = "2001:db8:2::2"


def nd_cache(r):
    """{(core, address): (state, held)} of port1 from `fwd nd`."""
    return {(int(c), a): (s, int(h)) for c, a, s, h in
            re.findall(r"(\d) +port1 +(\S+) +\S+ +(\w+) +\d+ +(\d+)", r.shell("fwd nd"))}


def flows6(r, srcs, sports):
    return [raw(Ether(src=H0_MAC, dst=r.mac[0]) / IPv6(src=f"2001:db8:{10 + s:x}::1", dst="2001:db8:3::5") /
                UDP(sport=1000 + p, dport=2000) / Raw(struct.pack(">H", s * 64 + p) + b"x" * 30))
            for s in srcs for p in sports]


def tag6(f):
    return struct.unpack(">H", raw(f[UDP].payload)[:2])[0]


@pytest.mark.parametrize("model", ["e1000e", "igb"])
def test_nd_learnt_on_one_core_reaches_the_other(box, model):
    """The IPv6 side of the test above (RFC 4861), with sources that differ
    in their high bits (QEMU's Toeplitz hash put 2001:db8:1::a-::11 all on
    one queue): both cores hold frames for 2001:db8:2::2 and solicit it; the advertisements (RSS-hashed by
    their addresses, so both on one queue) are learnt by one core and
    posted to the other: every held frame goes out, both entries are
    reachable, then 8 sources x 64 ports are all routed, by both cores,
    hop limit one less, with no drop."""
    r = box(APPEND6, nports=2, smp=2, model=model)
    r.mac = re.findall(r"ether ([0-9a-f:]{17})", r.shell("ifconfig"))
    first = flows6(r, range(8), [0])
    r.p[0].send(first)
    asked = [Ether(f) for f in r.p[1].recv(2, timeout=5)]
    assert len(asked) == 2 and all(ICMPv6ND_NS in a and a[ICMPv6ND_NS].tgt == H1_IP6 for a in asked), asked
    na = [raw(Ether(src=H1_MAC, dst=r.mac[1]) / IPv6(src=H1_IP6, dst=a[IPv6].src, hlim=255) /
              ICMPv6ND_NA(tgt=H1_IP6, R=0, S=1, O=1) / ICMPv6NDOptDstLLAddr(lladdr=H1_MAC)) for a in asked]
    r.p[1].send(na)
    got = []
    for _ in range(20):
        got += [g for g in (Ether(f) for f in r.p[1].recv(1, timeout=0.5)) if UDP in g]
        if len(got) == len(first):
            break
    assert sorted(tag6(g) for g in got) == sorted(tag6(Ether(f)) for f in first), got
    cores = core_counts(r)
    assert cores[0] > 0 and cores[1] > 0, cores
    want = {(0, H1_IP6): ("reachable", 0), (1, H1_IP6): ("reachable", 0)}
    assert settled(lambda: nd_cache(r), want) == want

    bulk = flows6(r, range(8), range(1, 64))
    got = [g for g in routed(r, bulk) if UDP in g]
    assert len(got) == len(bulk) and all(g.dst == H1_MAC and g[IPv6].hlim == 63 for g in got)
    c = all_routed(r, len(first) + len(bulk))
    assert c[1]["rx"] == len(na) and c[1]["nd"] == len(na), c[1]
    cores = core_counts(r)
    assert cores[0] > 0 and cores[1] > 0, cores
