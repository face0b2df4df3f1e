"""Console statistics and the shell commands about them, in QEMU: the JSON
report counts exactly the frames sent from the host, `set`/`show config`/
`clear stats`/`ifconfig`/`stats` with good and bad input, and serial garbage
that must not disturb the appliance while it counts."""
import json
import os
import re
import sys
import threading
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
sys.path.insert(0, os.path.dirname(__file__))
from netio import StreamPort, frame  # noqa: E402
from qemurun import Qemu  # noqa: E402

PROMPT = "linerate> "
JSON_LINE = rb'\{"stats":"(port|queue|core)".*?\}(?=\r?\n)'


class Box:
    """An e1000e appliance running the sink app, port 0 wired to the host."""

    def __init__(self, append=""):
        self.q = Qemu(boot="kernel", mem="256M", nics=["e1000e:netdev=stream"],
                      append=("app=sink " + append).strip())
        self.q.expect(r"port0: link up", 60)   # after the prompt: autonegotiation restarts at probe
        self.q.send("\r")
        self.q.expect(PROMPT, 30)
        self.port = StreamPort(self.q.nic_sock(0))

    def shell(self, line, timeout=60):
        return self.q.shell(line, timeout)

    def next_report(self, timeout=10):
        """The objects of the next whole JSON report: port, queue(s), core(s)."""
        objs = []
        while True:
            m = self.q.expect(JSON_LINE, timeout)
            o = json.loads(m.group(0))
            objs.append(o)
            if o["stats"] == "core":
                return objs

    def close(self):
        self.port.close()
        self.q.stop()


def by_kind(report):
    return {o["stats"]: o for o in report}


def test_json_counts_exactly_what_was_sent():
    # 2,000 frames of 60..1514 bytes (no FCS): RX-OK, the queue's packets
    # and bytes and the core's processed count each of them once.
    sizes = [60 + (i * 37) % 1455 for i in range(2000)]
    b = Box("stats=1 stats_format=json")
    try:
        b.port.send([frame(s, i) for i, s in enumerate(sizes)])
        end = time.monotonic() + 60
        while True:
            r = by_kind(b.next_report())
            if r["port"]["rx_ok"] == len(sizes) or time.monotonic() > end:
                break
        # One more report: nothing else arrives, rates drop to 0.
        last = by_kind(b.next_report())
    finally:
        b.close()
    for rep in (r, last):
        p, q, c = rep["port"], rep["queue"], rep["core"]
        assert p["port"] == "port0" and p["mtu"] == 1500
        assert (p["rx_ok"], p["rx_err"], p["rx_drp"], p["tx_ok"], p["tx_drp"]) == (2000, 0, 0, 0, 0)
        assert (q["rx_packets"], q["rx_bytes"]) == (2000, sum(sizes))
        assert (q["tx_packets"], q["tx_bytes"]) == (0, 0)
        assert c["processed"] == 2000 and c["dropped"] == 0
        assert 0 <= c["cpu_pct"] <= 100
        assert p["dt_ms"] > 0 and q["polls"] > 0
    assert (last["port"]["rx_pps"], last["queue"]["rx_bps"]) == (0, 0)
    assert last["queue"]["pkts_per_irq"] is None  # poll=busy: no interrupts


def test_fwd_periodic_report_leaves_out_zeros():
    """fwd's line in the periodic report names only the counters that
    moved (issue 34 N18): 7 broadcast frames on a port without a peer are
    rx 7 and no_peer 7; JSON and the fwd command keep every counter."""
    q = Qemu(boot="kernel", mem="256M", nics=["e1000e:netdev=stream"], append="app=fwd stats=1")
    try:
        q.expect(r"port0: link up", 60)
        q.send("\r")
        q.expect(PROMPT, 30)
        port = StreamPort(q.nic_sock(0))
        port.send([frame(60, i) for i in range(7)])
        q.expect(r"\nfwd: port0 rx 7 forwarded 0 no_peer 7\r\n", 30)
        q.shell("set stats_format json")
        o = json.loads(q.expect(rb'\{"stats":"fwd".*?\}(?=\r?\n)', 10).group(0))
        assert (o["port"], o["rx"], o["forwarded"], o["no_peer"], o["runt"], o["local"]) == \
            ("port0", 7, 0, 7, 0, 0)
        q.shell("set stats 0")
        assert re.search(r"^fwd port0: rx 7 forwarded 0 runt 0 no_peer 7 tx_ring_full 0 ", q.shell("fwd"), re.M)
        port.close()
    finally:
        q.stop()


def test_port_stop_app_switch_start_under_traffic():
    """testpmd's stop, set fwd, start, per port and without a reboot: while
    the host streams into port0, port0 goes fwd -> stopped -> sink -> fwd.
    Every frame port0 delivered is in exactly one of fwd's rx, sink's count
    and port0's rx_port_stopped (the stopped spans; core 0's dropped has
    only fwd's named drops), and port1 sent each one fwd forwarded; port1
    (fwd, its peer on sink) counts no_peer meanwhile."""
    q = Qemu(boot="kernel", mem="256M", nics=["e1000e:netdev=stream"] * 2, append="app=fwd stats=0")
    ports, threads = [], []
    try:
        q.expect(r"port1: link up", 60)
        q.send("\r")
        q.expect(PROMPT, 30)
        ports = [StreamPort(q.nic_sock(i)) for i in range(2)]
        assert "usage: port | port stop|start PORT|all | port config PORT app NAME (NAME: " in q.shell("port go")
        assert q.shell("port config port0 app sink") == "port: port0 is started: port stop port0 first\r\n"
        sent, got, stop, done = [0], [0], threading.Event(), threading.Event()

        def stream():
            while not stop.is_set():
                ports[0].send([frame(60, sent[0] + i) for i in range(10)])
                sent[0] += 10
                time.sleep(0.005)

        def drain():   # port1's frames read as they come: QEMU never waits on us
            while not done.is_set():
                got[0] += len(ports[1].recv(100000, 0.2))
        threads[:] = [threading.Thread(target=stream, daemon=True), threading.Thread(target=drain, daemon=True)]
        for th in threads:
            th.start()
        time.sleep(0.5)
        assert q.shell("port stop port0") == "port0: stopped: frames dropped, counted in rx_port_stopped (fwd)\r\n"
        time.sleep(0.3)
        assert q.shell("port config port0 app replay") == \
            "port: not at run time: 'replay': at run time a port takes fwd pktgen sink rr\r\n"
        assert q.shell("port config port0 app sink") == \
            "sink: counting and dropping on 1 port(s)\r\nport0: app sink (was fwd); port start port0 delivers to it\r\n"
        assert q.shell("port start port0") == "port0: started (sink)\r\n"
        ports[1].send([frame(60, i) for i in range(5)])      # port1's peer runs sink: no_peer
        time.sleep(0.5)
        q.shell("port stop port0")
        q.shell("port config port0 app fwd")
        q.shell("port start port0")
        assert q.shell("port") == "port0: fwd, started\r\nport1: fwd, started\r\n"
        time.sleep(0.5)
        stop.set()
        threads[0].join(30)
        n = sent[0]
        end = time.monotonic() + 30
        while True:   # the last frames forwarded
            fwd = dict(re.findall(r"^fwd (port\d): (.*?)\r?$", q.shell("fwd"), re.M))
            f0 = dict(zip(*[iter(fwd["port0"].split())] * 2))
            f1 = dict(zip(*[iter(fwd["port1"].split())] * 2))
            sink = int(re.search(r"^sink port0 q0: (\d+) packets", q.shell("sink"), re.M).group(1))
            core = re.search(r"^0 +\S+ +(\d+) +(\d+) ", q.shell("stats"), re.M)
            ethtool = q.shell("ethtool -S port0")
            delivered = int(re.search(r"rx_delivered: (\d+)", ethtool).group(1))
            dropped = int(re.search(r"rx_port_stopped: (\d+)", ethtool).group(1))
            if delivered == n or time.monotonic() > end:
                break
            time.sleep(0.2)
        end = time.monotonic() + 30
        while got[0] < int(f0["forwarded"]) and time.monotonic() < end:
            time.sleep(0.2)
    finally:
        stop.set()
        done.set()
        for th in threads:
            th.join(30)
        for p in ports:
            p.close()
        q.stop()
    assert int(core.group(2)) == int(f1["no_peer"])
    assert delivered == n and 0 < int(f0["rx"]) < n and sink > 0 and dropped > 0, (n, f0, sink, dropped)
    assert int(f0["rx"]) + sink + dropped == n, (n, f0, sink, dropped)
    assert int(f0["forwarded"]) == int(f0["rx"]) == got[0]
    assert (f1["rx"], f1["no_peer"], f1["forwarded"]) == ("5", "5", "0")


def test_napi_rates_and_packets_per_interrupt():
    b = Box("stats=1 stats_format=json poll=napi InterruptThrottleRate=1000")
    try:
        b.next_report()
        b.port.send([frame(100, i) for i in range(3000)])
        reps = [by_kind(b.next_report()) for _ in range(3)]
    finally:
        b.close()
    q = reps[-1]["queue"]
    assert q["rx_packets"] == 3000 and q["itr_setting"] == 1000 and q["irqs"] > 0
    # Rates integrate back to the counts: sum(pps * dt) over the reports.
    got = sum(r["queue"]["rx_pps"] * r["queue"]["dt_ms"] / 1000 for r in reps)
    assert abs(got - 3000) < 10, got
    busy = [r["queue"] for r in reps if r["queue"]["rx_pps"]]
    assert all(x["pkts_per_irq"] > 1 for x in busy), busy
    assert all(r["core"]["cpu_pct"] < 100 for r in reps)


def test_table_report_and_stats_command():
    b = Box("stats=0")
    try:
        b.port.send([frame(64, i) for i in range(100)])
        time.sleep(1)
        out = b.shell("stats")
        one = b.shell("stats port0")
        bad = b.shell("stats port7")
        # QEMU's e1000e pads a 42-byte frame to 60 B, delivers it and counts
        # it in rx_short_length_errors (RX-ERR): the report it first shows in
        # says so in one line under the netstat table; the next does not.
        b.port.send([frame(42, i) for i in range(5)])
        time.sleep(1)
        runts = b.shell("stats")
        again = b.shell("stats")
        # stats=0: no periodic report appears on its own.
        with pytest.raises(TimeoutError):
            b.q.expect("stats at", 2.5)
        b.shell("set stats 1")
        b.q.expect(r"stats at \d+\.\d{3} s, over \d+\.\d{3} s", 10)
        b.q.expect(r"stats at \d+\.\d{3} s, over 1\.0\d\d s", 10)
    finally:
        b.close()
    assert re.search(r"^Iface +MTU +RX-OK +RX-ERR +RX-DRP +RX-OVR +TX-OK +TX-ERR +TX-DRP +TX-OVR", out, re.M)
    assert re.search(r"^port0 +1500 +100 +0 +0 +0 +0 +0 +0 +0\r?$", out, re.M), out
    assert re.search(r"^port0 +0 +\d+ +\d+ +0 +0 +0 +- +\d+ +\d+\.\d\d\r?$", out, re.M), out
    # poll=busy (the default): the core never halts, its CPU% says so
    assert re.search(r"^0 +busy +100 +0 +0\r?$", out, re.M), out
    assert "port0  1500" in one and "Core" not in one
    assert "usage: stats [port]; ports: port0" in bad
    assert re.search(r"^port0 +1500 +105 +5 +0 +0 +0 +0 +0 +0\r\n"
                     r"port0: RX-ERR 5 are all runts \(rx_short_length_errors\): QEMU's e1000e\r\n"
                     r"  and igb pad them to 60 B, deliver them \(in RX-OK too\) and count them;\r\n"
                     r"  silicon drops them; see docs/stats.md\r\nIface +Q ", runts, re.M), runts
    assert "runts" not in again and re.search(r"^port0 +1500 +105 +5 ", again, re.M), again



# The knobs `set` takes at run time (the rest are read at boot).
RUNTIME_KNOBS = ("InterruptThrottleRate napi_weight copybreak prefetch stats stats_format fwd_mode "
                 "replay_speed replay_pps replay_mbps replay_topspeed replay_loop replay_dmac replay_smac "
                 "replay_srcipmap replay_dstipmap replay_pnat vlan_strip vlan_filter").split()

def test_set_show_and_clear():
    b = Box("stats=0 poll=napi")
    try:
        show = b.shell("show config")
        replies = {line: b.shell(line) for line in (
            "set InterruptThrottleRate 4000", "set rxd 1024", "set poll busy",
            "set InterruptThrottleRate 2", "set InterruptThrottleRate", "set napi_weight 0x10",
            "set frobnicate 1", "set stat 1", "set stats_format xml", "show", "show confi", "clear", "clear all",
            "set copybreak 256 extra", "set port9 copybreak 1", "set port0 InterruptThrottleRate 1,3")}
        itr = b.shell("ethtool -S port0")
        show2 = b.shell("show config")
        b.port.send([frame(200, i) for i in range(50)])
        time.sleep(1)
        before = b.shell("ethtool -S port0")
        cleared = b.shell("clear stats")
        after = b.shell("ethtool -S port0")
        table = b.shell("stats")
        version = b.shell("version")
        one_port = b.shell("set port0 InterruptThrottleRate 8000")
        show3 = b.shell("show config")
    finally:
        b.close()
    # one port: its value alone, not eight (N17)
    assert one_port.strip() == "InterruptThrottleRate=8000"
    assert re.search(r"^InterruptThrottleRate=8000 +run", show3, re.M), show3
    # grouped by declaring file: general, NIC, addresses, apps; ip0 first
    heads = re.findall(r"^\[([a-z/_.]+)\]\r?$", show3, re.M)
    assert heads.index("run/statscmds.c") < heads.index("apps/app.c") < heads.index("drivers/net/nic.c") \
        < heads.index("net/ifaddr.c") < heads.index("apps/fwd/fwd.c") < heads.index("apps/pktgen/conf.c"), heads
    assert show3.index("\nip0=") < show3.index("\nip1=") < show3.index("\nip7="), show3
    for knob, where in (("InterruptThrottleRate=3", "run"), ("napi_weight=64", "run"),
                        ("copybreak=0", "run"), ("prefetch=1", "run"), ("stats=0", "run"),
                        ("stats_format=table", "run"), ("poll=napi", "boot"), ("queues=1", "boot"),
                        ("burst=32", "boot"), ("IntMode=2", "boot"), ("selftest=none", "boot")):
        assert re.search(rf"^{re.escape(knob)} +{where} +\S", show, re.M), (knob, show)
    assert replies["set InterruptThrottleRate 4000"].strip() == "InterruptThrottleRate=4000"
    assert "queue_0_itr: 4000" in itr
    assert re.search(r"^InterruptThrottleRate=4000 +run", show2, re.M)
    assert re.search(r"^napi_weight=16 +run", show2, re.M)
    m = re.match(r"set: rxd is read at boot only: give rxd= on the kernel command line "
                 r"\(run-time knobs: ([^)]*)\)", replies["set rxd 1024"])
    assert m, replies["set rxd 1024"]
    assert sorted(m.group(1).split()) == sorted(RUNTIME_KNOBS)
    assert replies["set poll busy"].startswith("set: poll is read at boot only")
    assert replies["set InterruptThrottleRate 2"].strip() == (
        "set: bad value '2' for InterruptThrottleRate= (accepted: 0-1|3-4|100-100000, "
        "or one per port: V,V,... (up to 8))")
    m = re.match(r"usage: set \[port\] <knob> <value>; run-time knobs: (.*) \(show config lists them all\)",
                 replies["set InterruptThrottleRate"])
    assert m and sorted(m.group(1).split()) == sorted(RUNTIME_KNOBS)
    assert replies["set copybreak 256 extra"].strip() == (
        "set: one value after copybreak: usage: set [port] <knob> <value>")
    assert replies["set port9 copybreak 1"].startswith("set: no port 'port9'; ports: port0")
    assert replies["set port0 InterruptThrottleRate 1,3"].strip() == (
        "set: bad value '1,3' for InterruptThrottleRate= of port0 (one port takes one value; "
        "accepted: 0-1|3-4|100-100000)")
    assert replies["set frobnicate 1"].startswith("set: unknown knob 'frobnicate' (run-time knobs:")
    assert replies["set stat 1"].startswith("set: unknown knob 'stat'; did you mean stats? (run-time knobs: ")
    assert "accepted: table|json" in replies["set stats_format xml"]
    for cmd in ("show", "show confi"):
        assert replies[cmd].strip() == "usage: show config"
    for cmd in ("clear", "clear all"):
        assert replies[cmd].strip() == "usage: clear stats"
    assert "rx_packets: 50\r" in before and "rx_delivered: 50\r" in before
    assert cleared.strip() == "counters of 1 port(s) and 1 core(s) cleared"
    assert "rx_packets: 0\r" in after and "rx_delivered: 0\r" in after
    assert "rx_queue_0_packets: 0\r" in after and "queue_0_itr: 4000" in after
    assert re.search(r"^port0 +1500 +0 +0 +0 +0 +0 +0 +0 +0\r?$", table, re.M), table
    assert re.search(r"^0 +\d+\.\d\d +0 +0 +0\r?$", table, re.M), table
    assert version.startswith("linerate ")


def test_ifconfig_and_link():
    b = Box("stats=0")
    try:
        out = b.shell("ifconfig")
        same = b.shell("link port0")
        bad = b.shell("ifconfig eth0")
    finally:
        b.close()
    assert re.match(r"port0: e1000e 82574L .* at 00:02\.0, MSI-X\r\n"
                    r" +ether 52:54:00:12:34:56  mtu 1500  link up 1000 Mb/s full duplex\r\n"
                    r" +queues 1  rxd 512  txd 512\r\n$", out), out
    assert same == out
    assert "usage: ifconfig [port]; ports: port0" in bad


def test_serial_garbage_while_counting():
    # Frames flow while the console takes binary garbage, control bytes,
    # stray escape sequences and over-long lines; the count stays exact, the
    # JSON reports stay whole lines, and the shell still answers.
    b = Box("stats=1 stats_format=json")
    try:
        b.port.send([frame(128, i) for i in range(1000)])
        b.q.send(bytes(range(0x80, 0x100)) + bytes(range(0, 0x20)).replace(b"\r", b"").replace(b"\n", b""))
        b.q.send(b"\x1b[999;999H\x1b]0;title\x07\x1b[6n\x1bc" + b"\x00" * 64)
        b.q.send(b"set " + b"A" * 500 + b"\r")
        b.q.send(b"\x15")  # Ctrl-U: drop what the garbage left on the line
        b.port.send([frame(128, 1000 + i) for i in range(1000)])
        version = b.shell("version")
        end = time.monotonic() + 60
        while True:
            r = by_kind(b.next_report())
            if r["port"]["rx_ok"] == 2000 or time.monotonic() > end:
                break
        text = b.q.text()
    finally:
        b.close()
    assert version.startswith("linerate ")
    assert r["port"]["rx_ok"] == 2000 and r["queue"]["rx_bytes"] == 2000 * 128
    assert r["core"]["processed"] == 2000
    # Every report line parses: the console echo never splits one.
    lines = re.findall(r'\{"stats":.*', text)
    assert lines and all(json.loads(x.rstrip("\r")) for x in lines)


def test_commands_without_ports():
    with Qemu(boot="kernel", append="stats=0") as q:
        q.expect(PROMPT, 60)
        replies = {}
        for line in ("stats", "ifconfig", "stats port0", "link port0", "rr", "fwd", "pktgen", "pktgen start", "ptp"):
            q.send(line + "\r")
            m = q.expect(r"(?s)" + re.escape(line) + r"\r\n(.*?)" + re.escape(PROMPT), 20)
            replies[line] = m.group(1).decode()
    assert re.match(r"stats at \d+\.\d{3} s, over \d+\.\d{3} s\r\nIface +MTU +RX-OK .*\r\n"
                    r"Iface +Q +rx_pps .*\r\nCore +CPU% .*\r\n0 +\d+\.\d\d +0 +0 +0\r\n$",
                    replies["stats"]), replies["stats"]
    assert replies["ifconfig"] == "no ports\r\n"
    assert replies["stats port0"] == "usage: stats [port]; ports: none\r\n"
    assert replies["link port0"] == "usage: link [port]; ports: none\r\n"
    for app in ("rr", "fwd", "ptp", "pktgen"):
        assert replies[app] == f"{app}: the app runs on no port (app={app})\r\n", replies
    assert replies["pktgen start"] == "pktgen: the app runs on no port (app=pktgen)\r\n"
