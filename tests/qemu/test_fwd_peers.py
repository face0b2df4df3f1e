"""Real peers through the L3 router: two network namespaces made by the
test, each holding a tap device wired to one appliance port, with an
address and a route via the appliance; Debian's ping and iperf3 (UDP at a
bounded rate, and TCP, each for a bounded time) run from one namespace to
the other, then linuxptp's ptp4l, master in one and slave in the other,
unicast over UDPv4 through the router with ptp_tc=e2e; and in a boot of
its own ptp4l -P (peer delay) through the router with ptp_tc=p2p, each
routed port answering its neighbour's Pdelay. Needs root (ip netns, tap
devices); only addresses inside the namespaces are used."""
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from qemurun import Qemu  # noqa: E402

from netns import TapPeer, sh  # noqa: E402

PROMPT = "linerate> "
SUBNET = ("10.1.0", "10.2.0")


@pytest.fixture
def peers():
    made = []
    try:
        for tag in ("fp1", "fp2"):
            made.append(TapPeer(tag))
        yield made
    finally:
        for p in made:
            p.close()


def fwd_counters(q):
    q.send("fwd\r")
    m = q.expect(r"(?s)fwd\r\n(.*?)" + re.escape(PROMPT), 20)
    out = m.group(1).decode()
    return {int(p): {k: int(v) for k, v in re.findall(r"(\w+) (\d+)", line)}
            for p, line in re.findall(r"fwd port(\d): (rx .*)", out)}


# ptp4l over UDPv4 at 4 Hz Sync and Delay_Req, Announce 2 Hz, software
# stamps, free running (both on this machine's clock); the slave asks the
# master for unicast service (the router forwards no multicast).
PTP4L = ["ptp4l", "-4", "-S", "-m", "-q", "--free_running", "1", "--logSyncInterval", "-2",
         "--logAnnounceInterval", "-1", "--logMinDelayReqInterval", "-2"]
PTP4L_SLAVE_CFG = """[global]
slaveOnly 1
summary_interval -2
[unicast_master_table]
table_id 1
logQueryInterval 0
UDPv4 {master}
[{iface}]
unicast_master_table 1
"""


def ptp4l(ns, *args):
    """ptp4l in namespace ns: (process, its output lines, filled by a thread)."""
    p = subprocess.Popen(["ip", "netns", "exec", ns] + PTP4L + list(args),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    threading.Thread(target=lambda: [lines.append(x.rstrip()) for x in p.stdout], daemon=True).start()
    return p, lines


def ptp4l_through_router(q, master, slave, master_ip, margs=(), sargs=()):
    """A ptp4l master in peer master's namespace, a slave-only ptp4l in
    slave's asking it for unicast Announce, Sync and Delay_Resp (margs,
    sargs: more options of each): the slave's lines once it has printed 4
    offsets (up to 60 s after start)."""
    with tempfile.NamedTemporaryFile("w", suffix=".cfg") as cfg:
        cfg.write(PTP4L_SLAVE_CFG.format(master=master_ip, iface=slave.tap))
        cfg.flush()
        pm, _ = ptp4l(master.ns, "-i", master.tap, "--unicast_listen", "1", "--priority1", "1", *margs)
        ps, lines = ptp4l(slave.ns, "-f", cfg.name, *sargs)
        try:
            with q.pumping():
                end = time.monotonic() + 60
                while time.monotonic() < end and sum("master offset" in x for x in lines) < 4:
                    time.sleep(0.5)
        finally:
            for p in (ps, pm):
                p.terminate()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
    return lines


def tc_counters(q):
    """The transparent clock's line of each port of `fwd`: {port: {name: int}}."""
    return {int(p): {k: int(v) for k, v in re.findall(r"(\w+) (-?\d+)", body)}
            for p, body in re.findall(r"fwd port(\d) ptp_tc (?:e2e|p2p): ([^\r\n]*)", q.shell("fwd"))}


def test_ping_and_iperf3_through_router(peers):
    nics = [f"e1000e:netdev=tap,ifname={p.tap}" for p in peers]
    NS = [p.ns for p in peers]
    with Qemu(boot="kernel", mem="256M", nics=nics,
              append="app=fwd ip0=10.1.0.1/24 ip1=10.2.0.1/24 stats=0 ptp_tc=e2e") as q:
        q.expect("port1: link up", 60)
        q.send("\r")
        q.expect(PROMPT, 30)
        # The taps move into their namespaces with QEMU holding them open.
        for p, net, other in zip(peers, SUBNET, reversed(SUBNET)):
            p.wire(f"{net}.2/24", [(f"{other}.0/24", f"{net}.1")])
        out = sh("ping", "-c", "5", "-i", "0.2", "-W", "2", "10.2.0.2", ns=NS[0], timeout=30)
        assert "5 received" in out, out
        server = subprocess.Popen(["ip", "netns", "exec", NS[1], "iperf3", "-s", "-1", "-J"],
                                  stdout=subprocess.PIPE, text=True)
        time.sleep(0.5)
        before = fwd_counters(q)
        try:
            udp = json.loads(sh("iperf3", "-c", "10.2.0.2", "-u", "-b", "2M", "-t", "3",
                                "-l", "1000", "-J", ns=NS[0], timeout=60))
        finally:
            server.wait(timeout=30)
        after = fwd_counters(q)
        s = udp["end"]["sum"]
        assert s["lost_packets"] == 0, s
        udp_packets = s["packets"]
        # The router forwarded every datagram iperf3 counts, plus only the
        # few packets of iperf3's TCP control connection.
        extra = after[0]["forwarded"] - before[0]["forwarded"] - udp_packets
        assert 0 <= extra <= 60, (extra, udp_packets)
        server = subprocess.Popen(["ip", "netns", "exec", NS[1], "iperf3", "-s", "-1", "-J"],
                                  stdout=subprocess.PIPE, text=True)
        time.sleep(0.5)
        try:
            tcp = json.loads(sh("iperf3", "-c", "10.2.0.2", "-t", "3", "-J", ns=NS[0], timeout=60))
        finally:
            server.wait(timeout=30)
        assert tcp["end"]["sum_received"]["bytes"] > 0
        slave = ptp4l_through_router(q, peers[1], peers[0], "10.2.0.2")
        tc = tc_counters(q)
        c = fwd_counters(q)
    # ptp4l's slave follows the master through the router's transparent
    # clock: the master's two-step Syncs (into port1) get their residence
    # in their Follow_Ups, the slave's Delay_Reqs (into port0) in place.
    assert any("selected best master clock" in x for x in slave), "\n".join(slave[-30:])
    assert sum("master offset" in x for x in slave) >= 4, "\n".join(slave[-30:])
    assert not any("FAULTY" in x for x in slave), "\n".join(slave)
    assert tc[1]["follow_up"] >= 4 and tc[1]["no_sync"] <= 1 and tc[0]["delay_req"] >= 2, tc
    for p in tc.values():
        assert p["overflow"] == p["negative_residence"] == p["bad_ptp"] == 0, tc
    # Accounting: every frame the router received is forwarded, for us, ARP,
    # or a named drop (IPv6 neighbour discovery from Linux lands in not_ipv4).
    for port in (0, 1):
        p = c[port]
        named = sum(v for k, v in p.items() if k not in ("rx", "forwarded", "local", "arp"))
        assert p["rx"] == p["forwarded"] + p["local"] + p["arp"] + named, p
    # At least the iperf3 UDP datagrams (plus ping, TCP) crossed 0 -> 1.
    assert c[0]["forwarded"] >= udp_packets + 5


def test_ptp4l_p2p_through_router(peers):
    """ptp_tc=p2p on the router (network_transport=UDPv4): a ptp4l -P
    master and a slave-only ptp4l -P, unicast through it as above, each
    measuring its link with Pdelay to 224.0.0.107, which the router's port
    on its link answers and never routes; the router measures both links
    itself; the master's Follow_Ups get the residence plus port1's link
    delay; the slave locks, its path delay its link to port0."""
    nics = [f"e1000e:netdev=tap,ifname={p.tap}" for p in peers]
    with Qemu(boot="kernel", mem="256M", nics=nics,
              append="app=fwd ip0=10.1.0.1/24 ip1=10.2.0.1/24 stats=0 ptp_tc=p2p network_transport=UDPv4 "
                     "logMinPdelayReqInterval=-2") as q:
        q.expect(r"fwd: routed ports: peer-to-peer transparent clock \(ptp_tc=p2p\) on PTP/UDP event "
                 r"messages; each link answers Pdelay", 60)
        q.expect("port1: link up", 60)
        q.send("\r")
        q.expect(PROMPT, 30)
        for p, net, other in zip(peers, SUBNET, reversed(SUBNET)):
            p.wire(f"{net}.2/24", [(f"{other}.0/24", f"{net}.1")])
        # ptp4l forgets an open Pdelay_Req on entering UNCALIBRATED (an
        # answer after it is "rogue", FAULTY): the slave asks every 2 s.
        slave = ptp4l_through_router(q, peers[1], peers[0], "10.2.0.2",
                                     margs=("-P", "--logMinPdelayReqInterval", "-2"),
                                     sargs=("-P", "--logMinPdelayReqInterval", "1"))
        tc = tc_counters(q)
        c = fwd_counters(q)
    text = "\n".join(slave[-30:])
    assert any("selected best master clock" in x for x in slave), text
    offsets = [x for x in slave if "master offset" in x]
    assert len(offsets) >= 4 and not any("FAULTY" in x for x in slave), "\n".join(slave)
    assert int(re.search(r"path delay\s+(-?\d+)", offsets[-1]).group(1)) > 0, text
    for port in (0, 1):
        t, p = tc[port], c[port]
        # each port answered its peer's Pdelay_Req and measured its link
        assert t["tx_pdelay_resp"] > 0 and t["pdelay_samples"] > 0 and t["peer_delay_ns"] > 0, tc
        assert t["pdelay_unserved"] == 0 and t["pdelay_refused"] <= t["pdelay"] // 8, tc
        # Pdelay ends at the port, counted local (nothing else is for the router here)
        assert p["local"] == t["pdelay"] + t["pdelay_refused"] > 0, (tc, c)
        named = sum(v for k, v in p.items() if k not in ("rx", "forwarded", "local", "arp"))
        assert p["rx"] == p["forwarded"] + p["local"] + p["arp"] + named, p
        assert t["overflow"] == t["negative_residence"] == t["bad_ptp"] == t["delay_req"] == 0, tc
    # the master's two-step Syncs (into port1): residence + port1's link into their Follow_Ups
    assert tc[1]["follow_up"] >= 4 and tc[1]["no_sync"] <= 1 and tc[1]["no_peer_delay"] <= 1, tc
