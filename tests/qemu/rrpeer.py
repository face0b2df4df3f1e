"""Helpers for the app=rr tests: a network namespace holding a tap device
wired to the appliance's port 0 (made and removed by the fixture), and the
rr command's counters."""
import os
import re
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from netns import names, remove, sh, tap_add, wire  # noqa: E402,F401  (sh: for the tests)
from qemurun import Qemu  # noqa: E402

PROMPT = "linerate> "
NS, TAP = names("rr")
GUEST, PEER = "10.3.0.1", "10.3.0.2"
BUILD = os.path.join(os.path.dirname(__file__), "..", "..", "build")
RRCLIENT = os.path.abspath(os.path.join(BUILD, "rrclient"))


@pytest.fixture
def tap():
    tap_add(TAP)
    yield TAP
    remove(NS, TAP)


def boot(append="", nic="e1000e", ip0=f"{GUEST}/24"):
    """Boot app=rr on one port (address ip0=) wired to the tap; returns the
    Qemu (a context manager) once the prompt is up, with the tap in its
    namespace."""
    bus = ",bus=rp" if nic == "igb" else ""   # igb on a PCIe root port, as on real boards
    q = Qemu(boot="kernel", mem="256M", nics=[f"{nic}:netdev=tap,ifname={TAP}{bus}"],
             append=f"app=rr ip0={ip0} stats=0 {append}")
    q.__enter__()
    try:
        q.expect("rr: lwIP on 1 port", 60)
        q.send("\r")
        q.expect(PROMPT, 30)
        wire(NS, TAP, f"{PEER}/24")
    except BaseException:
        q.__exit__(None, None, None)
        raise
    return q


def rr_counters(q):
    """The rr command as {"port0": {...}, "lwip": {...}}: every "name value"
    pair of its lines."""
    q.send("rr\r")
    m = q.expect(r"(?s)rr\r\n(.*?)" + re.escape(PROMPT), 30)
    out = {}
    for line in m.group(1).decode().splitlines():
        mm = re.match(r"rr (\w+): (.*)", line)
        if mm:
            out.setdefault(mm.group(1), {}).update(
                {k: int(v) for k, v in re.findall(r"(\w+) (\d+)", mm.group(2))})
    out["lwip"].update(out.pop("pools"))
    return out


def delta(a, b, key, port="port0"):
    return b[port][key] - a[port][key]


def assert_deltas(a, b, want, port="port0"):
    """Each counter of want moved by exactly its value from a to b."""
    got = {k: delta(a, b, k, port) for k in want}
    assert got == want, (got, b[port])


def assert_accounted(c):
    """Every frame rr received is in exactly one of the stack or drop counters."""
    p = c["port0"]
    stack = sum(p[k] for k in ("arp", "icmp", "udp", "tcp", "fragment", "icmp6", "ipv6_ext"))
    drops = sum(p[k] for k in ("not_ip", "too_short", "bad_version", "bad_ihl", "bad_totlen",
                               "bad_csum", "not_ours", "bad_proto", "udp_closed_port",
                               "tcp_bad_option", "syn_over_limit", "no_pbuf", "frag_too_long", "not_allowed",
                               "bad_saddr"))
    assert p["rx"] == stack + drops, p


def assert_no_leak(q, rxd=512):
    """Nothing held: no custom RX pbuf, TCP segment, pbuf or heap block in
    use, no connection open, and the port's pool back to its level at rest:
    every buffer free or in the RX ring (rxd of them; sent frames' buffers
    are reclaimed by tx_burst and the once-a-second housekeeping: wait)."""
    import time
    for _ in range(10):
        c = rr_counters(q)
        lw = c["lwip"]
        held = (lw["rx_pbufs"], lw["tcp_seg_used"], lw["pbuf_used"], lw["heap_used"],
                lw["conns_open"], c["port0"]["conns_open"])
        rest = c["port0"]["pool_size"] - rxd
        if held == (0,) * 6 and c["port0"]["pool_free"] == rest:
            return c
        time.sleep(1)
    assert held == (0,) * 6, lw
    assert c["port0"]["pool_free"] == rest, c["port0"]
    return c
