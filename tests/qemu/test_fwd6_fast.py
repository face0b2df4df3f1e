"""The IPv6 router's fast path (apps/fwd/l3v6.c, l3v6_fast_run) and the
router's VLAN tags (apps/fwd/l3.c, vlan_untag), one e1000e boot, two
ports on host stream sockets, frames made and checked with scapy.

Once a frame to a destination has been forwarded to a REACHABLE neighbor,
later frames to it take the fast path; every frame in a burst that the
full path would not forward must still leave it and end in its own
counter, with its ICMPv6 error where RFC 4443 asks. A neighbor's new MAC
(an NA with the override flag, RFC 4861 7.2.5) must reach frames to a
remembered destination at once. A priority-tagged frame (802.1Q VID 0) is
routed as untagged; a frame of another VLAN counts vlan_unknown."""
import os
import re
import sys
import time

import pytest
from scapy.all import ARP, IP, UDP, Dot1Q, Ether, Raw, raw
from scapy.layers.inet6 import (HBHOptUnknown, ICMPv6ND_NA, ICMPv6ND_NS, ICMPv6NDOptDstLLAddr, ICMPv6TimeExceeded,
                                IPv6, IPv6ExtHdrHopByHop)

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
sys.path.insert(0, os.path.dirname(__file__))
import test_fwd_l3  # noqa: E402

H0_MAC, H1_MAC, H1_MAC_NEW = "02:00:00:00:00:01", "02:00:00:00:00:22", "02:00:00:00:00:33"
H0_IP6, H1_IP6 = "2001:db8:1::2", "2001:db8:2::2"
APPEND = ("app=fwd stats=0 ip0=10.1.0.1/24,2001:db8:1::1/64 ip1=10.2.0.1/24,2001:db8:2::1/64 "
          "route=10.3.0.0/16,10.2.0.2 route=2001:db8:3::/48,2001:db8:2::2")


class Router(test_fwd_l3.Router):
    def __init__(self):
        super().__init__(APPEND)
        self.h1_mac = H1_MAC		# what 2001:db8:2::2 answers NS with

    def fwd(self):
        """port0's fwd counters (frame counters and events)."""
        return super().fwd()[0]

    def routed(self, count, timeout=10):
        """Up to count routed frames (IPv4, or IPv6 other than ND) out of
        port1; the router's re-checks of 2001:db8:2::2 (NS, RFC 4861 7.3.3,
        once its entry is 30 s old) are answered on the way."""
        out, end = [], time.monotonic() + timeout
        while len(out) < count and time.monotonic() < end:
            for f in self.recv(1, count - len(out), max(0.1, end - time.monotonic())):
                if ICMPv6ND_NS in f:
                    self.p[1].send([na(self, f[IPv6].src, self.h1_mac)])
                else:
                    out.append(f)
        return out


@pytest.fixture(scope="module")
def r():
    router = Router()
    try:
        # Resolve 2001:db8:2::2 (the next hop of 2001:db8:3::/48 and a host
        # of port1's prefix): the first frame is held, the router's NS answered.
        router.p[0].send([v6(router, 0)])
        ns = router.recv(1, 1, 10)
        assert ns and ICMPv6ND_NS in ns[0] and ns[0][ICMPv6ND_NS].tgt == H1_IP6, ns
        router.p[1].send([na(router, ns[0][IPv6].src, H1_MAC)])
        assert len(router.recv(1, 1, 10)) == 1
        yield router
    finally:
        router.close()


def na(r, dst, mac, solicited=1, override=1):
    return raw(Ether(src=mac, dst=r.mac[1]) / IPv6(src=H1_IP6, dst=dst, hlim=255) /
               ICMPv6ND_NA(tgt=H1_IP6, R=0, S=solicited, O=override) / ICMPv6NDOptDstLLAddr(lladdr=mac))


def v6(r, seq, dst="2001:db8:3::5", src=H0_IP6, hlim=64, ext=None, edst=None, size=32, tag=None):
    """An IPv6 UDP frame from host 0 to port0; seq in the UDP source port."""
    l4 = UDP(sport=1000 + seq, dport=2000) / Raw(bytes([seq & 255]) * size)
    ip = IPv6(src=src, dst=dst, hlim=hlim) / (ext / l4 if ext is not None else l4)
    eth = Ether(src=H0_MAC, dst=edst or r.mac[0])
    return raw(eth / tag / ip if tag is not None else eth / ip)


def out_seqs(frames):
    return [f[UDP].sport - 1000 for f in frames if IPv6 in f and UDP in f and ICMPv6TimeExceeded not in f]


def test_burst_forwarded_in_order_hop_limit_less_one(r):
    """300 frames sent back to back (bursts up to 32 on the router):
    every one out of port1 in order, to the neighbor's MAC, hop limit 63,
    the payload unchanged, the padding of a short frame not sent on."""
    before = r.fwd()
    sent = [v6(r, i, dst="2001:db8:3::%x" % (5 + i % 3), size=8 + i % 200) for i in range(300)]
    t = r.p[0].send_background(sent)
    got = r.routed(300, 30)
    t.join(5)
    assert len(got) == 300
    for s, g in zip(sent, got):
        s = Ether(s)
        assert g.dst == H1_MAC and g.src == r.mac[1]
        assert g[IPv6].hlim == 63 and g[IPv6].src == s[IPv6].src and g[IPv6].dst == s[IPv6].dst
        assert raw(g[IPv6].payload) == raw(s[IPv6].payload)
        assert len(raw(g)) == 14 + 40 + s[IPv6].plen
    assert r.fwd()["forwarded"] - before["forwarded"] == 300


def test_frames_the_full_path_refuses_leave_the_fast_path(r):
    """One burst: good frames to a remembered destination with, between
    them, one frame of each kind that must not be forwarded; each ends in
    its own counter, the good ones all come through, in order."""
    bad = [
        (v6(r, 0, hlim=1), "ip6_hop_limit"),
        (v6(r, 0, src="2001:db8:2::1"), "ip6_martian_src"),         # one of our addresses
        (v6(r, 0, src="2001:db8:1::1"), "ip6_martian_src"),
        (v6(r, 0, src="::1"), "ip6_martian_src"),
        (v6(r, 0, src="ff02::1"), "ip6_martian_src"),
        (v6(r, 0, src="fe80::2"), "ip6_beyond_scope"),              # a link-local source leaving its link
        (v6(r, 0, ext=IPv6ExtHdrHopByHop(options=[HBHOptUnknown(otype=0x5e, optdata=b"ab")])), "ip6_hbh_option"),
        (v6(r, 0, size=1501 - 48), "ip6_too_big"),
        (v6(r, 0, dst="2001:db8:1::1"), "local"),                  # ours, not routed
    ]
    # A payload length past the frame: the last byte of the frame cut.
    cut = v6(r, 0)[:-1]
    bad.append((cut, "ip6_bad_paylen"))
    r.recv(0, 100, 0.3)
    before = r.fwd()
    # :: first, where the fast path has found no source valid before it.
    bad.insert(0, (v6(r, 0, src="::"), "ip6_martian_src"))
    burst, good = [bad[0][0]], []
    for k, (f, _) in enumerate(bad[1:]):
        burst += [v6(r, 100 + k), f]
        good.append(100 + k)
    burst.append(v6(r, 200))
    good.append(200)
    r.p[0].send(burst)
    got = r.routed(len(good))
    assert out_seqs(got) == good
    time.sleep(0.3)
    after = r.fwd()
    want = {}
    for _, c in bad:
        want[c] = want.get(c, 0) + 1
    want["forwarded"] = len(good)
    moved = {k: after[k] - before.get(k, 0) for k in after if k in want or k.startswith(("ip6_", "not_", "local"))}
    assert {k: v for k, v in moved.items() if v} == want
    assert after["rx"] - before["rx"] == len(burst)
    # ICMPv6 errors back out of port0: Time Exceeded, beyond scope, Packet Too Big.
    back = [f for f in r.recv(0, 10, 2) if IPv6 in f and f[IPv6].nh == 58 and raw(f[IPv6].payload)[0] in (1, 2, 3)]
    assert sorted(raw(f[IPv6].payload)[0] for f in back) == [1, 2, 3]


def test_new_neighbor_mac_reaches_a_remembered_destination(r):
    """An NA with the override flag gives 2001:db8:2::2 a new MAC: the next
    frames to the remembered destination go to it, and back again."""
    for mac in (H1_MAC_NEW, H1_MAC):
        r.p[0].send([v6(r, 300 + i) for i in range(4)])
        assert len(r.routed(4)) == 4      # the destination is remembered
        r.h1_mac = mac
        r.p[1].send([na(r, "2001:db8:2::1", mac, solicited=0)])
        time.sleep(0.3)
        r.p[0].send([v6(r, 310 + i) for i in range(8)])
        got = r.routed(8)
        assert [g.dst for g in got] == [mac] * 8, [g.dst for g in got]


def test_priority_tag_routed_other_vlans_counted(r):
    """IPv4 and IPv6 frames with a priority tag (802.1Q VID 0) are routed,
    untagged, and a priority-tagged ARP reply resolves the IPv4 next hop;
    VLAN 100 and QinQ frames count vlan_unknown."""
    before = r.fwd()
    v4 = Ether(src=H0_MAC, dst=r.mac[0]) / Dot1Q(vlan=0, prio=3) / IP(src="10.1.0.2", dst="10.3.0.5", id=77) / \
        UDP(sport=1, dport=2) / Raw(b"x" * 32)
    r.p[0].send([raw(v4)])
    req = r.routed(1)
    assert req and ARP in req[0] and req[0][ARP].pdst == "10.2.0.2", req
    r.p[1].send([raw(Ether(src=H1_MAC, dst=r.mac[1]) / Dot1Q(vlan=0) /
                     ARP(op=2, hwsrc=H1_MAC, psrc="10.2.0.2", hwdst=r.mac[1], pdst="10.2.0.1"))])
    got = r.routed(1)
    assert got and IP in got[0] and got[0][IP].id == 77 and Dot1Q not in got[0], got
    assert got[0][IP].ttl == 63 and got[0].dst == H1_MAC
    r.p[0].send([v6(r, 400, tag=Dot1Q(vlan=0, prio=5)), v6(r, 401, tag=Dot1Q(vlan=100)),
                 raw(Ether(src=H0_MAC, dst=r.mac[0]) / Dot1Q(vlan=100) / IP(src="10.1.0.2", dst="10.3.0.5") / UDP()),
                 v6(r, 402, tag=Dot1Q(vlan=5) / Dot1Q(vlan=6)), v6(r, 403)])
    got = r.routed(2)
    assert out_seqs(got) == [400, 403] and all(Dot1Q not in g and g[IPv6].hlim == 63 for g in got), got
    time.sleep(0.3)
    after = r.fwd()
    assert after["forwarded"] - before["forwarded"] == 3
    assert after["vlan_unknown"] - before.get("vlan_unknown", 0) == 3
    assert after["rx"] - before["rx"] == 6


def nd_entry(r):
    """(mac, state) of 2001:db8:2::2 in `fwd nd`."""
    m = re.search(r"port1 +%s +(\S+) +(\w+)" % re.escape(H1_IP6), r.shell("fwd nd"))
    return m.groups() if m else None


def test_stale_neighbor_kept_then_probed_to_failure(r):
    """RFC 4861 7.2.5 and 7.3.3 on the next hop 2001:db8:2::2: an NA
    without the override flag and another MAC makes a REACHABLE entry
    STALE with its MAC kept, and is ignored by a STALE one (solicited or
    not); frames to it go on to the cached MAC through DELAY and PROBE
    (the fast path too); the three unicast NS unanswered, the entry fails
    and frames to the remembered destination are dropped nd_unresolved,
    none sent to the old MAC."""
    r.p[1].send([na(r, "2001:db8:2::1", H1_MAC)])          # solicited, override: REACHABLE at H1_MAC
    r.h1_mac = H1_MAC
    assert wait(lambda: nd_entry(r) == (H1_MAC, "reachable"))
    r.p[0].send([v6(r, 500 + i) for i in range(4)])
    assert len(r.routed(4)) == 4                              # remembered by the fast path
    r.p[1].send([na(r, "2001:db8:2::1", H1_MAC_NEW, solicited=0, override=0)])
    assert wait(lambda: nd_entry(r) == (H1_MAC, "stale"))
    r.p[1].send([na(r, "2001:db8:2::1", H1_MAC_NEW, solicited=1, override=0)])
    r.p[1].send([na(r, "2001:db8:2::1", H1_MAC_NEW, solicited=0, override=0)])
    time.sleep(0.3)
    assert nd_entry(r) == (H1_MAC, "stale")
    before = r.fwd()
    out = []
    for k in range(3):                                       # STALE -> DELAY, then DELAY's frames
        r.p[0].send([v6(r, 510 + 8 * k + i) for i in range(8)])
        out += [f for f in r.recv(1, 8, 5) if UDP in f]
    assert len(out) == 24 and {f.dst for f in out} == {H1_MAC}, out
    assert nd_entry(r) == (H1_MAC, "delay")
    # DELAY_FIRST_PROBE_TIME (5 s), then 3 NS 1 s apart, to the cached MAC; none answered.
    probes, during, end = [], [], time.monotonic() + 15
    while len(probes) < 3 and time.monotonic() < end:
        for f in r.recv(1, 1, 1):
            if UDP in f:
                during.append(f)
                continue
            assert ICMPv6ND_NS in f, f.show(dump=True)
            probes.append(f)
            r.p[0].send([v6(r, 540 + len(probes))])          # PROBE: still sent to the cached MAC
    during += [f for f in r.recv(1, 1, 1) if UDP in f]       # the one after the last NS: remembered again
    assert len(probes) == 3 and all(f.dst == H1_MAC and f[IPv6].dst == H1_IP6 for f in probes), probes
    assert out_seqs(during) == [541, 542, 543] and {f.dst for f in during} == {H1_MAC}, during
    assert wait(lambda: nd_entry(r)[1] == "failed")
    r.p[0].send([v6(r, 550 + i) for i in range(4)])
    assert wait(lambda: r.fwd()["nd_unresolved"] - before.get("nd_unresolved", 0) == 4)
    late = [f for f in r.recv(1, 10, 1) if UDP in f]
    assert [f[UDP].sport - 1000 for f in late] == [], late
    after = r.fwd()
    assert after["forwarded"] - before["forwarded"] == 24 + 3
    # Answered again: the next frame resolves it afresh.
    r.p[0].send([v6(r, 560)])
    assert out_seqs(r.routed(1, 10)) == [560]


def wait(cond, seconds=5):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.1)
    return cond()
