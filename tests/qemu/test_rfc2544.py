"""pktgen rfc2544 (apps/pktgen/rfc2544.c) against a device under test whose
drop threshold is known: ratedut.RateLimitedWire between the guest's two
e1000e ports forwards port0's frames to port1 through a token bucket of
DUT_PPS frames/s and DUT_DEPTH frames. The throughput search must land
within its resolution of the threshold, every trial's loss must be the
frames the wire dropped, and a wire that forwards nothing gives
throughput 0 said plainly. Then back_mac (port1's frames to a router's
MAC, addresses swapped), IMIX per-size counts, bad input with its
messages, a run ended by `pktgen stop`, and the figures statplot draws
from the recorded JSON. One boot, about 35 s."""
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
sys.path.insert(0, os.path.dirname(__file__))
from qemurun import Qemu  # noqa: E402
from ratedut import RateLimitedWire  # noqa: E402

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
PROMPT = "linerate> "
DUT_PPS, DUT_DEPTH = 1500, 64
MACS = ("52:54:00:00:01:01", "52:54:00:00:01:02")
TRIAL_S, MAX_PPS, RES_PCT = 0.5, 4000, 5
RES_PPS = MAX_PPS * RES_PCT // 100
# The console's line is 128 bytes: arguments stay from one run to the next.
SETUP = (f"pktgen rfc2544 set tx=port0 rx=port1 sizes=64 trial_s={TRIAL_S} max_ratep={MAX_PPS} "
         "rest_ms=50 drain_ms=1000 learn=4 format=json")
RUN = f"pktgen rfc2544 throughput resolution={RES_PCT}"


class Box:
    def __init__(self):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.http = s.getsockname()[1]
        s.close()
        self.q = Qemu(boot="kernel", mem="256M",
                      nics=[f"e1000e:netdev=stream,mac={m}" for m in MACS] +
                      [f"e1000e:netdev=user,hostfwd={self.http}"],
                      append="app=pktgen mgmt=port2 ip2=dhcp stats=0 lat_rate=0")
        self.q.expect(r"port1: link up", 90)
        self.q.send("\r")
        self.q.expect(PROMPT, 30)
        self.wire = RateLimitedWire(self.q.nic_sock(0), self.q.nic_sock(1), DUT_PPS, DUT_DEPTH)
        assert "arguments kept" in self.shell(SETUP)

    def shell(self, line, timeout=60):
        return self.q.shell(line, timeout)

    def rfc2544(self, line, timeout=120):
        """Run line; the JSON lines of the run, up to its done (or stopped) line."""
        start = len(self.q.out)
        out = self.shell(line)
        assert "pktgen rfc2544:" not in out, out
        self.q.expect(r'\{"rfc2544":"done"[^\n]*\}', timeout)
        text = self.q.out[start:self.q.pos].decode(errors="replace")
        return [json.loads(m) for m in re.findall(r'\{"rfc2544":[^\n]*?\}(?=\s|$)', text)]

    def metrics(self, deadline=60):
        """/metrics of the management port (port2, its DHCP lease may still be coming)."""
        end = time.monotonic() + deadline
        while True:
            try:
                return urllib.request.urlopen(f"http://127.0.0.1:{self.http}/metrics", timeout=5).read().decode()
            except OSError:
                if time.monotonic() > end:
                    raise
                time.sleep(0.5)

    def close(self):
        self.wire.close()
        self.q.stop()


@pytest.fixture(scope="module")
def box():
    b = Box()
    yield b
    b.close()


def test_throughput_search_finds_the_dut_threshold(box, tmp_path):
    dropped0 = box.wire.dropped
    lines = box.rfc2544(RUN)
    trials = [x for x in lines if x["rfc2544"] == "trial"]
    res = [x for x in lines if x["rfc2544"] == "throughput"]
    assert len(res) == 1 and res[0]["size"] == 64 and res[0]["ceiling_pps"] == MAX_PPS
    # Every trial's count: frames the rate and trial time ask for, and the
    # lost ones are exactly those the wire dropped.
    for t in trials:
        assert t["sent"] == int(t["asked_pps"] * TRIAL_S) and t["received"] + t["lost"] == t["sent"], t
        assert t["duplicates"] == 0 and t["reordered"] == 0, t
    assert sum(t["lost"] for t in trials) == box.wire.dropped - dropped0
    # At or below the DUT's rate nothing is lost; well above it (where
    # (rate - DUT_PPS) * trial exceeds twice the bucket) a trial that
    # offered its rate loses frames.
    for t in trials:
        if t["asked_pps"] <= DUT_PPS:
            assert t["pass"] == 1 and t["lost"] == 0, t
        if t["asked_pps"] > DUT_PPS + 2 * DUT_DEPTH / TRIAL_S and not t["behind"]:
            assert t["pass"] == 0 and t["lost"] > 0, t
    assert trials[0]["asked_pps"] == MAX_PPS and trials[0]["pass"] == 0
    # The search (on the rates offered) ends within its resolution of the
    # threshold: the bucket lets DUT_DEPTH frames more through in a trial.
    assert DUT_PPS - RES_PPS <= res[0]["pps"] <= DUT_PPS + DUT_DEPTH / TRIAL_S + RES_PPS, (res, trials)
    assert res[0]["pct"] == pytest.approx(100 * res[0]["pps"] / MAX_PPS, abs=0.01)
    # statplot draws the figures from this recorded JSON.
    log = tmp_path / "rfc2544.log"
    log.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    subprocess.run([sys.executable, os.path.join(ROOT, "tools", "statplot.py"), "rfc2544", str(log),
                    "--outdir", str(tmp_path)], check=True, timeout=120)
    png = (tmp_path / "rfc2544_throughput.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000


def test_dut_forwarding_nothing_gives_zero_throughput(box):
    box.wire.pps, box.wire.depth, box.wire.tokens = 0, 0, 0.0
    try:
        lines = box.rfc2544(f"pktgen rfc2544 throughput resolution=25 drain_ms=300")
    finally:
        box.wire.pps, box.wire.depth = DUT_PPS, DUT_DEPTH
    trials = [x for x in lines if x["rfc2544"] == "trial"]
    assert trials[0]["asked_pps"] == MAX_PPS and all(x["received"] == 0 and x["pass"] == 0 for x in trials)
    res = [x for x in lines if x["rfc2544"] == "throughput"]
    assert res[0]["pps"] == 0
    note = [x for x in lines if x["rfc2544"] == "note"]
    assert note and "throughput 0: every trial lost frames, the lowest at" in note[0]["text"], note


def test_back_mac_sends_port1s_frames_back_through_a_router(box):
    """back_mac: port1's learning frames go to that MAC from 10.2.0.2 to
    10.1.0.2 (pktgen's dst and src swapped), port0's as before; off: port1's
    go to port0's MAC with port0's addresses again."""
    port0, port1 = (bytes.fromhex(m.replace(":", "")) for m in MACS)
    box.wire.pps = 10 ** 9
    try:
        for back, dst1, src_ip1, dst_ip1 in (("02:00:00:00:00:09", bytes.fromhex("020000000009"), "10.2.0.2",
                                              "10.1.0.2"),
                                             ("off", port0, "10.1.0.2", "10.2.0.2")):
            box.wire.seen = {True: [], False: []}
            lines = box.rfc2544(f"pktgen rfc2544 throughput back_mac={back} resolution=50 drain_ms=300")
            assert len([x for x in lines if x["rfc2544"] == "throughput"]) == 1, lines
            fwd, rev = box.wire.seen[True], box.wire.seen[False]
            assert len(rev) == 4 * len([x for x in lines if x["rfc2544"] == "trial"]), len(rev)
            for h in rev:
                assert (h[:6], h[6:12], socket.inet_ntoa(h[26:30]), socket.inet_ntoa(h[30:34])) == \
                    (dst1, port1, src_ip1, dst_ip1), h.hex()
            assert fwd and all((h[:6], socket.inet_ntoa(h[26:30]), socket.inet_ntoa(h[30:34])) ==
                               (port1, "10.1.0.2", "10.2.0.2") for h in fwd)
    finally:
        box.wire.pps = DUT_PPS
        box.shell("pktgen rfc2544 set back_mac=off drain_ms=1000")


def test_imix_per_size_counts_exact(box):
    box.wire.pps = 10 ** 9
    try:
        for imix, count, want in (("simple", 1200, {64: 700, 594: 400, 1518: 100}),
                                  ("100:1,200:3", 400, {100: 100, 200: 300})):
            box.shell("pktgen clear")
            for k, v in (("imix", imix), ("count", count), ("ratep", 4000)):
                assert box.shell(f"pktgen set {k} {v}").startswith(f"{k}="), (k, v)
            out = box.shell("pktgen start port0")
            assert "IMIX sizes" in out, out
            box.q.expect(r"pktgen: port0: done", 60)
            box.q.expect(r"(?s).", 1)
            for _ in range(50):     # the wire may still hold the last frames
                st = box.shell("pktgen")
                m = re.search(r"pktgen port1 rx sizes \(bytes with FCS: frames; sizes_full 0\): (.*)\r", st)
                got = {int(k): int(v) for k, v in re.findall(r"(\d+): (\d+)", m.group(1))} if m else None
                if got == want:
                    break
            assert got == want, st
    finally:
        box.wire.pps = DUT_PPS
        box.shell("pktgen set imix off")
        box.shell("pktgen set count 1000")


@pytest.mark.parametrize("line,msg", [
    ("pktgen rfc2544 tx=port0 rx=port0", "tx and rx are the same port (port0): the DUT sits between two ports"),
    ("pktgen rfc2544 tx=port0 rx=port9", "bad value 'port9' for rx"),
    ("pktgen rfc2544 speed tx=port0 rx=port1", "unknown test 'speed'"),
    ("pktgen rfc2544 tx=port0 rx=port1 trial_s=0.01", "bad value '0.01' for trial_s"),
    ("pktgen rfc2544 tx=port0 rx=port1 sizes=64,63", "bad value '64,63' for sizes"),
    ("pktgen rfc2544 tx=port0 rx=port1 resolution=60", "bad value '60' for resolution"),
    ("pktgen rfc2544 tx=port0 rx=port1 color=red", "unknown argument 'color'"),
    ("pktgen rfc2544 tx=port0 rx=port1 back_mac=52:54", "bad value '52:54' for back_mac"),
    ("pktgen set imix 64", "'64' is not SIZE:WEIGHT"),
    ("pktgen set imix 64:0", "not a number in 1-1000"),
    ("pktgen set imix 63:1", "not a number in 64-1518"),
])
def test_bad_input_messages(box, line, msg):
    out = box.shell(line)
    assert msg in out, out
    if line.startswith("pktgen rfc2544"):
        assert "usage: pktgen rfc2544" in out or "same port" in out, out


def test_link_down_refused_and_stop_ends_a_run(box):
    box.q.qmp_cmd("set_link", name="nic1", up=False)
    try:
        box.q.expect(r"port1: link down", 30)
        out = box.shell("pktgen rfc2544 tx=port0 rx=port1 max_ratep=1000")
        assert "port1's link is down: no trial can run" in out, out
    finally:
        box.q.qmp_cmd("set_link", name="nic1", up=True)
    box.q.expect(r"port1: link up", 30)
    box.shell("pktgen rfc2544 all tx=port0 rx=port1 trial_s=30 max_ratep=1000 rest_ms=0 learn=0 format=text")
    m = box.metrics()
    assert "linerate_pktgen_rfc2544_running 1" in m and \
        'linerate_pktgen_rfc2544_trial_rate{test="throughput"} 1000' in m, m
    assert "rfc2544 is running" in box.shell("pktgen start")
    assert "rfc2544 is running" in box.shell("pktgen set count 5")
    out = box.shell("pktgen stop")
    assert "rfc2544: stopped during the throughput test's trial 1 (not counted); results so far:" in out, out
    assert "rfc2544: stopped: 0 trials" in out, out
    assert box.shell("pktgen set count 1000").startswith("count=")
    m = box.metrics()
    assert "linerate_pktgen_rfc2544_running 0" in m, m
