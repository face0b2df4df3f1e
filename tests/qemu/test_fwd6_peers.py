"""Real IPv6 peers through the L3 router: two network namespaces made by
the test, each holding a tap wired to one appliance port with a global
address and a route via the router's. Debian's ping -6 runs from one to
the other (forwarded both ways, every echo counted), to the router's own
address (echo answered), with hop limit 1 (Time Exceeded back, RFC 4443
3.3) and to a prefix with no route (Destination Unreachable code 0);
Debian's tracepath -6 sees the router's Time Exceeded and, port1's link
having MTU 1400 (mtu=1500,1400 and the peer's tap), its Packet Too Big
(RFC 4443 3.1, RFC 8201); iperf3 -6 UDP (bounded rate, no loss, every datagram forwarded) and TCP
through it; with
ra6=1 the peers configure themselves from the router's advertisements. Needs
root (ip netns, tap devices); only addresses inside the namespaces are
used."""
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
NET = ("2001:db8:1", "2001:db8:2")


@pytest.fixture
def peers():
    made = []
    try:
        for tag in ("f61", "f62"):
            made.append(TapPeer(tag))
        yield made
    finally:
        for p in made:
            p.close()


def shell(q, cmd):
    q.send(cmd + "\r")
    m = q.expect(r"(?s)" + re.escape(cmd) + r"\r\n(.*?)" + re.escape(PROMPT), 20)
    return m.group(1).decode()


def fwd_counters(q):
    """{port: {counter: value}} from `fwd`: the frame counters (rx, then
    where each ended) and, under "ev", the L3 line (held, events)."""
    out = shell(q, "fwd")
    c = {int(p): {k: int(v) for k, v in re.findall(r"(\w+) (\d+)", body)}
         for p, body in re.findall(r"fwd port(\d): (rx .*)", out)}
    for p, body in re.findall(r"fwd port(\d) l3[^:]*: (held .*)", out):
        c[int(p)]["ev"] = {k: int(v) for k, v in re.findall(r"(\w+) (\d+)", body)}
    return c


def delta(a, b, port, name):
    if name in a[port]:
        return b[port][name] - a[port][name]
    return b[port]["ev"][name] - a[port]["ev"][name]


def booted(peers, append):
    """The router (e1000e ports on the peers' taps) at its prompt."""
    q = Qemu(boot="kernel", mem="256M", nics=[f"e1000e:netdev=tap,ifname={p.tap}" for p in peers],
             append=f"app=fwd stats=0 {append}")
    q.expect("port1: link up", 60)
    q.send("\r")
    q.expect(PROMPT, 30)
    return q


def test_ping6_through_router(peers):
    ns = [p.ns for p in peers]
    with booted(peers, f"ip0=10.1.0.1/24,{NET[0]}::1/64 ip1=10.2.0.1/24,{NET[1]}::1/64 mtu=1500,1400") as q:
        for p, net, other, mtu in zip(peers, NET, reversed(NET), ("1500", "1400")):
            p.wire()
            sh("ip", "link", "set", p.tap, "mtu", mtu, ns=p.ns)
            sh("ip", "addr", "add", f"{net}::2/64", "dev", p.tap, "nodad", ns=p.ns)
            sh("ip", "-6", "route", "add", f"{other}::/64", "via", f"{net}::1", ns=p.ns)
            sh("ip", "-6", "route", "add", "2001:db8:99::/48", "via", f"{net}::1", ns=p.ns)
        routes = shell(q, "fwd routes")
        assert re.search(r"2001:db8:1::/64 connected port0 \(ours 2001:db8:1::1\)", routes), routes
        assert re.search(r"fe80::/64 link-local port1 \(ours fe80::", routes), routes
        # The first echo resolves both ways (ND on each port), then five more.
        sh("ping", "-6", "-c", "1", "-W", "3", f"{NET[1]}::2", ns=ns[0], timeout=30)
        a = fwd_counters(q)
        out = sh("ping", "-6", "-c", "5", "-i", "0.2", "-W", "2", f"{NET[1]}::2", ns=ns[0], timeout=30)
        assert "5 received" in out, out
        b = fwd_counters(q)
        assert delta(a, b, 0, "forwarded") == 5, (a, b)
        assert delta(a, b, 1, "forwarded") == 5, (a, b)
        nd = shell(q, "fwd nd")
        assert re.search(r"port1\s+2001:db8:2::2\s+\S+ (reachable|stale|delay|probe)", nd), nd
        # The router's own address answers.
        out = sh("ping", "-6", "-c", "3", "-i", "0.2", "-W", "2", f"{NET[0]}::1", ns=ns[0], timeout=30)
        assert "3 received" in out, out
        c = fwd_counters(q)
        assert delta(b, c, 0, "local") == 3, (b, c)
        # Hop limit 1: Time Exceeded from the router, the echo not forwarded.
        out = sh("ping", "-6", "-c", "1", "-t", "1", "-W", "2", f"{NET[1]}::2", ns=ns[0], timeout=30, check=False)
        assert re.search(r"From 2001:db8:1::1.*Time exceeded", out), out
        d = fwd_counters(q)
        assert delta(c, d, 0, "ip6_hop_limit") == 1 and delta(c, d, 0, "icmp6_sent") == 1, (c, d)
        assert delta(c, d, 0, "forwarded") == 0, (c, d)
        # No route: Destination Unreachable, no route (code 0).
        out = sh("ping", "-6", "-c", "1", "-W", "2", "2001:db8:99::1", ns=ns[0], timeout=30, check=False)
        assert re.search(r"From 2001:db8:1::1.*Destination unreachable: No route", out), out
        e = fwd_counters(q)
        assert delta(d, e, 0, "ip6_no_route") == 1 and delta(d, e, 0, "icmp6_sent") == 1, (d, e)
        # tracepath -6: hop 1 is the router (Time Exceeded), whose next link
        # takes 1400 bytes (Packet Too Big with MTU 1400 for the 1500-byte
        # probes), hop 2 the peer. Each error tracepath printed is one the
        # router counted; none rate-limited.
        out = sh("tracepath", "-6", "-n", "-m", "5", f"{NET[1]}::2", ns=ns[0], timeout=60)
        t = fwd_counters(q)
        assert re.search(r"^ 1: +2001:db8:1::1 ", out, re.M), out
        assert re.search(r"^ \d: +2001:db8:1::1 .*pmtu 1400$", out, re.M), out
        assert re.search(r"^ 2: +2001:db8:2::2 .*reached$", out, re.M), out
        assert re.search(r"Resume: pmtu 1400 hops 2 ", out), out
        sent, te, ptb = (delta(e, t, 0, k) for k in ("icmp6_sent", "ip6_hop_limit", "ip6_too_big"))
        assert te >= 1 and ptb >= 1 and sent == te + ptb, (e, t)
        assert delta(e, t, 0, "icmp_rate_limited") == 0 and delta(e, t, 0, "icmp_no_buffer") == 0, (e, t)
        assert len(re.findall(r"^ \d: +2001:db8:1::1 ", out, re.M)) <= sent, (out, sent)
        assert delta(e, t, 0, "forwarded") >= 1, (e, t)
        print("tracepath -6 through the router:\n" + out)
        # iperf3 -6: UDP at a bounded rate with no loss, every datagram
        # forwarded (plus the few of iperf3's control connection), then TCP.
        server = subprocess.Popen(["ip", "netns", "exec", ns[1], "iperf3", "-s", "-1", "-J"],
                                  stdout=subprocess.PIPE, text=True)
        time.sleep(0.5)
        g = fwd_counters(q)
        try:
            udp = json.loads(sh("iperf3", "-6", "-c", f"{NET[1]}::2", "-u", "-b", "2M", "-t", "3",
                                "-l", "1000", "-J", ns=ns[0], timeout=60))
        finally:
            server.wait(timeout=30)
        h = fwd_counters(q)
        u = udp["end"]["sum"]
        assert u["lost_packets"] == 0, u
        extra = delta(g, h, 0, "forwarded") - u["packets"]
        assert 0 <= extra <= 60, (extra, u["packets"])
        server = subprocess.Popen(["ip", "netns", "exec", ns[1], "iperf3", "-s", "-1", "-J"],
                                  stdout=subprocess.PIPE, text=True)
        time.sleep(0.5)
        try:
            tcp = json.loads(sh("iperf3", "-6", "-c", f"{NET[1]}::2", "-t", "3", "-J", ns=ns[0], timeout=60))
        finally:
            server.wait(timeout=30)
        rcv = tcp["end"]["sum_received"]
        assert rcv["bytes"] > 0
        print("iperf3 -6 TCP through the router: %.1f Mbit/s" % (rcv["bits_per_second"] / 1e6))
        # IPv4 beside it still routes.
        sh("ip", "addr", "add", "10.1.0.2/24", "dev", peers[0].tap, ns=ns[0])
        sh("ip", "addr", "add", "10.2.0.2/24", "dev", peers[1].tap, ns=ns[1])
        sh("ip", "route", "add", "10.2.0.0/24", "via", "10.1.0.1", ns=ns[0])
        sh("ip", "route", "add", "10.1.0.0/24", "via", "10.2.0.1", ns=ns[1])
        out = sh("ping", "-c", "3", "-i", "0.2", "-W", "2", "10.2.0.2", ns=ns[0], timeout=30)
        assert "3 received" in out, out
        f = fwd_counters(q)
    # Every frame the router received is forwarded, for us, ARP, ND, a
    # named drop, or still held.
    for port in (0, 1):
        p = f[port]
        assert p["rx"] == sum(v for k, v in p.items() if k not in ("rx", "ev")) + p["ev"]["held"], p


def global_addr(ns, tap, prefix, timeout=20):
    """The address Linux autoconfigured in prefix on tap (DAD done), or None."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        out = sh("ip", "-6", "addr", "show", "dev", tap, "scope", "global", "-tentative", ns=ns)
        m = re.search(r"inet6 (" + re.escape(prefix) + r":\S+)/64 scope global dynamic", out)
        if m:
            return m.group(1)
        time.sleep(0.5)
    return None


def test_slaac_from_router_advertisements(peers):
    """ra6=1: both Linux peers autoconfigure an address in their port's
    prefix and a default route via the router's link-local address from
    its Router Advertisements (RFC 4861 6, RFC 4862 5.5), with no address
    or route given them, then ping -6 each other through it."""
    ns = [p.ns for p in peers]
    with booted(peers, f"ip0={NET[0]}::1/64 ip1={NET[1]}::1/64 ra6=1") as q:
        ll = re.findall(r"fwd: port\d link-local (\S+)", q.text())
        assert len(ll) == 2, q.text()
        got = []
        for p, net in zip(peers, NET):
            p.wire()
            got.append(global_addr(p.ns, p.tap, net))
        assert all(got), [sh("ip", "-6", "addr", ns=n) for n in ns]
        for p, router in zip(peers, ll):
            route = sh("ip", "-6", "route", "show", "default", ns=p.ns)
            assert re.search(r"default via " + re.escape(router) + r" dev " + p.tap + r" proto ra", route), route
        out = sh("ping", "-6", "-c", "3", "-i", "0.2", "-W", "2", got[1], ns=ns[0], timeout=30)
        assert "3 received" in out, out
        c = fwd_counters(q)
        assert c[0]["ev"]["ra_sent"] >= 1 and c[1]["ev"]["ra_sent"] >= 1, c
