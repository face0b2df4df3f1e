"""Apps placed per port (app=fwd,fwd,sink) and the poll loop that runs them:
each port's frames go to its own app, and an app that cannot start leaves
its ports dropping (counted), never forwarding."""
import os
import re
import struct
import sys
import threading
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
sys.path.insert(0, os.path.dirname(__file__))
from netio import StreamPort, frame, udp_flows, vlan_frame  # noqa: E402
from qemurun import Qemu  # noqa: E402

PROMPT = "linerate> "


class Box:
    def __init__(self, append, nports=3, smp=1, mem="256M", model="e1000e", connect=True, cpu=None, extra=()):
        spec = f"{model}:netdev=stream" + (",bus=rp" if model == "igb" else "")
        self.q = Qemu(boot="kernel", mem=mem, smp=smp, cpu=cpu, nics=[spec] * nports,
                      append="stats=0 promisc=1 " + append, extra=list(extra))
        self.q.expect(rf"port{nports - 1}: link up", 90)
        self.q.send("\r")
        self.q.expect(PROMPT, 30)
        self.p = [StreamPort(self.q.nic_sock(i)) for i in range(nports)] if connect else []

    def shell(self, line, timeout=60):
        return self.q.shell(line, timeout)

    def sink(self):
        return {int(p): int(n) for p, n in re.findall(r"sink port(\d) q\d: (\d+) packets", self.shell("sink"))}

    def fwd(self):
        return {int(p): (int(rx), int(f)) for p, rx, f in
                re.findall(r"fwd port(\d): rx (\d+) forwarded (\d+)", self.shell("fwd"))}

    def close(self):
        # QEMU first: a stream client that leaves while frames it sent wait
        # in QEMU can crash it (docs/testing.md, "QEMU's own faults").
        self.q.stop()
        for s in self.p:
            s.close()


@pytest.fixture
def box():
    made = []

    def make(*a, **kw):
        made.append(Box(*a, **kw))
        return made[-1]
    yield make
    for b in made:
        b.close()


def test_apps_per_port(box):
    b = box("app=fwd,fwd,sink pairs=0-1")
    assert "apps: port0=fwd port1=fwd port2=sink" in b.q.text()
    b.p[0].send([frame(64, seq=i) for i in range(100)])
    got = b.p[1].recv(100, timeout=30)
    b.p[2].send([frame(128, seq=i) for i in range(70)])
    assert len(got) == 100
    assert [g[14:18] for g in got] == [i.to_bytes(4, "big") for i in range(100)]
    assert b.fwd() == {0: (100, 100), 1: (0, 0)}
    b.shell("stats")
    for _ in range(50):
        if b.sink() == {2: 70}:
            break
    assert b.sink() == {2: 70}


def test_one_app_name_means_every_port(box):
    b = box("app=sink", nports=2)
    assert "apps: port0=sink port1=sink" in b.q.text()


def test_bad_app_list_is_refused(box):
    b = box("app=fwd,bogus,sink", nports=2)
    out = b.q.text()
    assert re.search(r"bad value 'fwd,bogus,sink' for app=.*no app 'bogus'", out), out
    assert "accepted: NAME or NAME,NAME" in out
    assert "apps: port0=sink port1=sink" in out


def core_counts(b):
    """{core: processed} from the JSON core lines of `stats`."""
    b.shell("set stats_format json")
    out = b.shell("stats")
    b.shell("set stats_format table")
    return {int(c): int(p) for c, p in re.findall(r'"stats":"core".*?"core":(\d+).*?"processed":(\d+)', out)}


def two_pairs(b, n0, n2):
    """Send n0 frames into port0 and n2 into port2 at once; returns what
    came out of port1 and port3. Both outputs are read while the inputs are
    written: with two vCPUs, QEMU 10's stream backend loses frames a port
    sends while nobody reads its socket (seen with multi-threaded TCG only)."""
    got, sent = {1: [], 3: []}, threading.Event()

    def read(i, n):
        """Until n frames, or 3 s without one once every frame is sent
        (virtio may count some in tx_ring_full: they never come)."""
        end = time.monotonic() + 60
        while len(got[i]) < n and time.monotonic() < end:
            more = b.p[i].recv(n - len(got[i]), timeout=3)
            got[i] += more
            if not more and sent.is_set():
                break
    readers = [threading.Thread(target=read, args=(i, n)) for i, n in ((1, n0), (3, n2))]
    for r in readers:
        r.start()
    t = b.p[2].send_background([frame(64, seq=i) for i in range(n2)])
    b.p[0].send([frame(64, seq=i) for i in range(n0)])
    t.join()
    sent.set()
    for r in readers:
        r.join()
    end = time.monotonic() + 30	# a guest slower than the quiet 3 s: what it forwarded still comes
    while (f := b.fwd()) and (f[0][0], f[2][0]) != (n0, n2) and time.monotonic() < end:
        time.sleep(0.5)
    for i, fw in ((1, f[0][1]), (3, f[2][1])):
        if len(got[i]) < fw:
            got[i] += b.p[i].recv(fw - len(got[i]), timeout=30)
    return got[1], got[3]


@pytest.mark.parametrize("model", ["e1000e", "virtio-net-pci"])
@pytest.mark.parametrize("smp", [2, 4])
def test_two_pairs_on_two_cores(box, smp, model):
    """Seed 2's placement: pair 0-1 on core 0, pair 2-3 on core 1; with four
    cores the other two have no queues (and halt). e1000e forwards every
    frame. On virtio-net QEMU sends a port's frames from its main loop,
    which also delivers the input burst: port3's 256 descriptors can all be
    in flight before QEMU sends one, and a frame tx_burst did not take is
    in fwd's tx_ring_full of its input port (docs/drivers.md); every frame
    is in one counter, and the frames sent come out in order."""
    b = box("app=fwd pairs=0-1,2-3", nports=4, smp=smp, model=model)
    out = b.q.text()
    assert f"smp: {smp} core(s) running" in out
    assert "core0: port0/q0 port1/q0" in out and "core1: port2/q0 port3/q0" in out, out
    got0, got2 = two_pairs(b, 200, 300)
    full = {int(p): int(n) for p, n in re.findall(r"fwd port(\d): .* tx_ring_full (\d+) ", b.shell("fwd"))}
    if model == "e1000e":
        assert full == {0: 0, 1: 0, 2: 0, 3: 0}
    assert len(got0) == 200 - full[0] and len(got2) == 300 - full[2], full
    seq = [int.from_bytes(g[14:18], "big") for g in got2]
    assert seq == sorted(set(seq)) and set(seq) <= set(range(300)), seq
    assert b.fwd() == {0: (200, 200 - full[0]), 1: (0, 0), 2: (300, 300 - full[2]), 3: (0, 0)}
    assert core_counts(b) == {0: 200, 1: 300, **{c: 0 for c in range(2, smp)}}
    if smp == 4:
        assert "core2: no queues" in out and "core3: no queues" in out


@pytest.mark.parametrize("model,cpu", [("e1000e", None), ("igb", None), ("e1000e", "max,+x2apic")])
def test_queues_on_their_own_cores(box, model, cpu):
    """queues=2 on two cores: RSS spreads 64 flows over both queues, queue q
    is polled by core q, and its MSI-X interrupts arrive on core q. QEMU's
    default CPU has no x2APIC: the LAPICs are driven through MMIO; with
    -cpu max,+x2apic through MSRs (the AP started, MSI-X, EOI, the wake-up
    IPI). On e1000e with the default CPU, pktgen on port1 (both its RX
    queues on core 0) sends from both cores as Linux pktgen's threads do
    (issue 34): queue_map 0..1, core q on TX queue q with its own stream,
    count split 101 + 100; then until `pktgen stop`, which both obey."""
    pg = model == "e1000e" and cpu is None
    b = box("app=sink,pktgen queues=2 poll=napi lat_rate=0 count=201 ratep=2000" if pg else
            "app=sink queues=2 poll=napi", nports=2 if pg else 1, smp=2, model=model, connect=False, cpu=cpu)
    mode = "x2APIC (MSRs)" if cpu else "xAPIC (MMIO)"
    assert re.search(rf"^lapic: 0xfee00000, {re.escape(mode)}, timer 100 Hz on vector 0xf0, NMI on LINT1\r?$",
                     b.q.text(), re.M), b.q.text()
    assert "core0: port0/q0" in b.q.text() and "core1: port0/q1" in b.q.text()
    rows = two_queues_spread(b)
    assert rows["port0-rx0"][0] > 0 and rows["port0-rx0"][1] == 0, rows
    assert rows["port0-rx1"][1] > 0 and rows["port0-rx1"][0] == 0, rows
    if not pg:
        return
    assert "core0: port0/q0 port1/q0 port1/q1" in b.q.text()
    host = StreamPort(b.q.nic_sock(1))
    try:
        b.shell("pktgen set queue_map_max 1")
        out = b.shell("pktgen start")
        assert "sending 201 frames of 60 B at 2000 pps to 52:54:00:12:34:56 (port0), stream 0x0100, split over 2 " \
               "cores (count and rate): core0 stream 0x0100 core1 stream 0x0900" in out, out
        frames = host.recv(201, 60)
    finally:
        host.close()
    # The last core to end prints the Result, maybe core 1 while the shell is idle.
    b.q.expect(r"pktgen: port1: done, 201 frames sent", 30)
    seqs = {}
    for f in frames:   # trafgen's payload header after Ethernet, IPv4, UDP: magic, stream, sequence
        magic, stream, seq = struct.unpack(">HHQ", f[42:54])
        assert magic == 0x4c52
        seqs.setdefault(stream, []).append(seq)
    assert seqs == {0x0100: list(range(101)), 0x0900: list(range(100))}, {k: len(v) for k, v in seqs.items()}
    out = b.shell("pktgen")
    assert "pktgen port1: stopped step 1/1 pkt_size 60 sent 201 built 201 " in out, out
    assert "pktgen port1 tx queues: q0 101 q1 100" in out, out
    assert "pktgen: port1: done, 201 frames sent" in b.q.text()
    # count=0: both cores send until `pktgen stop`, which core 1 takes at its
    # next turn; one Result line for the port, with both cores' frames.
    b.shell("pktgen clear")
    b.shell("pktgen set count 0")
    b.shell("pktgen start")
    end = time.monotonic() + 30
    while not re.search(r"tx queues: q0 [1-9]\d* q1 [1-9]", b.shell("pktgen")) and time.monotonic() < end:
        time.sleep(0.2)
    if "pktgen: port1: stopped, " not in b.shell("pktgen stop"):
        b.q.expect(r"pktgen: port1: stopped, ", 30)   # core 1's lane ended last
    out = b.shell("pktgen")
    sent = int(re.search(r"pktgen port1: stopped step 1/1 pkt_size 60 sent (\d+) ", out).group(1))
    q0, q1 = map(int, re.search(r"tx queues: q0 (\d+) q1 (\d+)", out).groups())
    assert q0 + q1 == sent and q0 > 0 and q1 > 0, out
    assert b.q.text().count("pktgen: port1: stopped, ") == 1
    assert f"pktgen: port1: stopped, {sent} frames sent" in b.q.text()
    time.sleep(0.5)
    assert f" sent {sent} " in b.shell("pktgen")   # neither core sends any more


def sink_queues(b, want, timeout=30):
    """{queue: packets} of port0's sink once they add up to want, or after
    timeout s."""
    end = time.monotonic() + timeout
    while True:
        sink = {int(q): int(n) for q, n in re.findall(r"sink port0 q(\d): (\d+) packets", b.shell("sink"))}
        if sum(sink.values()) >= want or time.monotonic() > end:
            return sink
        time.sleep(0.2)


def two_queues_spread(b):
    """2000 frames of 64 flows into port0 (queues=2, a queue a core): all
    counted, on both queues, each by its own core; the port's MSI-X
    vectors by name, as /proc/interrupts has them: {name: (core0, core1)}.
    Sent in windows of 256, each awaited (QEMU's igb drops what the ring of
    the queue RSS picked cannot take), from a socket that stays open until
    QEMU stops (QEMU 10.0.2 segfaults when a stream client leaves while
    frames it sent still wait in QEMU: docs/testing.md)."""
    port = StreamPort(b.q.nic_sock(0))
    b.p.append(port)
    load = udp_flows(2000)
    for i in range(0, len(load), 256):
        port.send(load[i:i + 256])
        sink = sink_queues(b, min(i + 256, len(load)))
    assert sum(sink.values()) == 2000 and sink[0] > 0 and sink[1] > 0, sink
    assert core_counts(b) == {0: sink[0], 1: sink[1]}
    irq = b.shell("irq")
    rows = {name: (int(c0), int(c1)) for c0, c1, name in
            re.findall(r"0x\w+ +\d+ +(\d+) +(\d+)  \S+ (port0-\w+)\r", irq)}
    assert set(rows) == {"port0-rx0", "port0-rx1", "port0-other"}, irq
    return rows


def test_x2apic_id_above_255(box):
    """QEMU's own MADT with a Local x2APIC entry (type 9, which it writes
    for APIC IDs above 254): two sockets of 256 cores, the second CPU
    plugged in socket 1, so its APIC ID is 256. The AP starts through the
    x2APIC ICR and polls queue 1; an MSI names 8 bits of APIC ID without
    interrupt remapping, so queue 1's vector stays on core 0, whose handler
    wakes core 1 (before, the message went to 0xfef00000 and queue 1 took
    nothing)."""
    b = box("app=sink queues=2 poll=napi", nports=1, smp="1,maxcpus=512,sockets=2,cores=256,threads=1",
            connect=False, cpu="max,+x2apic", extra=["-device", "max-x86_64-cpu,socket-id=1,core-id=0,thread-id=0"])
    text = b.q.text()
    assert "acpi: MADT 2 CPU(s), APIC IDs 0 256;" in text
    assert re.search(r"^lapic: 0xfee00000, x2APIC \(MSRs\), ", text, re.M)
    assert re.search(r"^smp: 2 core\(s\) running \(MADT lists 2\), .* core1 apic 256 ", text, re.M), text
    assert ("port0: queue 1's interrupt stays on core 0, which wakes core1: an MSI names APIC IDs up to 255 "
            "without interrupt remapping, and core1's is 256") in text
    assert "core0: port0/q0" in text and "core1: port0/q1" in text
    rows = two_queues_spread(b)
    assert rows["port0-rx0"][0] > 0 and rows["port0-rx1"][0] > 0, rows
    assert rows["port0-rx0"][1] == rows["port0-rx1"][1] == 0, rows


def qitr(b, port):
    return int(re.search(r"queue_0_itr: (\d+)", b.shell(f"ethtool -S port{port}")).group(1))


def test_per_port_knob_lists(box):
    """InterruptThrottleRate=100,0: port0 throttled to 100 ints/s, port1 off;
    set port1 changes port1 only; a bad list is refused whole."""
    b = box("app=sink InterruptThrottleRate=100,0 poll=napi,irq rxd=512,256", nports=2)
    assert (qitr(b, 0), qitr(b, 1)) == (100, 0)
    out = b.shell("ifconfig")
    assert re.search(r"port0:.*\n.*\n +queues 1 +rxd 512", out) and re.search(r"port1:.*\n.*\n +queues 1 +rxd 256", out), out
    cfg = b.shell("show config")
    # the values of the two ports that exist, not of eight
    assert re.search(r"^InterruptThrottleRate=100,0 ", cfg, re.M) and re.search(r"^poll=napi,irq ", cfg, re.M), cfg
    assert b.shell("set port1 InterruptThrottleRate 8000") .strip() == "InterruptThrottleRate=100,8000"
    assert (qitr(b, 0), qitr(b, 1)) == (100, 8000)
    assert "set: rxd is read at boot only" in b.shell("set port0 rxd 128")
    assert "set: stats is one value for every port" in b.shell("set port0 stats 5")
    assert "set: no port 'port9'" in b.shell("set port9 InterruptThrottleRate 100")


def test_bad_per_port_list_keeps_defaults(box):
    b = box("app=sink InterruptThrottleRate=100,2 rxd=512,84", nports=2)
    out = b.q.text()
    assert "bad value '100,2' for InterruptThrottleRate= (port 1: '2'; accepted:" in out, out
    assert "bad value '512,84' for rxd= (84 is not a multiple of 8" in out, out
    assert (qitr(b, 0), qitr(b, 1)) == (20000, 20000)   # default 3: dynamic, starting at 20000


def test_reset_under_traffic_on_two_cores(box):
    """`reset port3` while core 1 forwards 2->3: core 0 parks core 1, resets
    the port and lets it go; forwarding carries on, nothing leaks."""
    b = box("app=fwd pairs=0-1,2-3", nports=4, smp=2)
    got = []
    reader = threading.Thread(target=lambda: got.extend(b.p[3].recv(3000, timeout=60)))
    reader.start()
    t = b.p[2].send_background([frame(64, seq=i) for i in range(3000)])
    time.sleep(0.3)
    assert "port3: reset requested" in b.shell("reset port3")
    b.q.expect("port3: reset asked for from the shell: resetting", 30)
    t.join()
    reader.join()
    b.q.expect("port3: link up", 60)
    after = []
    reader = threading.Thread(target=lambda: after.extend(b.p[3].recv(200, timeout=60)))
    reader.start()
    b.p[2].send([frame(64, seq=5000 + i) for i in range(200)])
    reader.join()
    assert len(after) == 200
    e = b.shell("ethtool -S port3")
    assert re.search(r"resets: 1\r", e), e
    f = b.fwd()[2]
    assert f[0] == 3200 and f[1] <= 3200   # rx, forwarded: frames in port3's TX ring at the reset are tx_dropped
    # The reset keeps port3's counters: every frame fwd handed it is in tx_sent.
    assert re.search(rf"tx_sent: {f[1]}\r", e), (f, e)
    time.sleep(1.2)
    for p in range(4):
        c = dict(re.findall(r"(\w+): (\d+)", b.shell(f"ethtool -S port{p}")))
        assert int(c["pool_free"]) + 512 == int(c["pool_size"]), (p, c)
    assert "reset <port>" in b.shell("reset")


def test_reset_of_a_receiving_port_counts_its_ring(box):
    """`reset port0` while port0 receives, its interrupts throttled to 100/s
    so frames wait in its RX ring: those the reset gives back undelivered
    are counted in rx_drop_reset (RX-DRP), so rx_packets = rx_delivered +
    rx_drop_reset exactly (they were lost uncounted before)."""
    b = box("app=fwd pairs=0-1 InterruptThrottleRate=100", nports=2)
    changes = int(re.search(r"link_changes: (\d+)", b.shell("ethtool -S port0")).group(1))
    got = []
    reader = threading.Thread(target=lambda: got.extend(b.p[1].recv(4000, timeout=8)))
    reader.start()

    def paced():   # ~5,000 frames/s for ~1 s, so frames arrive while the reset runs
        for i in range(0, 4000, 10):
            b.p[0].send([frame(64, seq=i + k) for k in range(10)])
            time.sleep(0.002)
    t = threading.Thread(target=paced)
    t.start()
    time.sleep(0.3)
    assert "port0: reset requested" in b.shell("reset port0")
    b.q.expect("port0: reset asked for from the shell: resetting", 30)
    t.join()
    reader.join()
    b.q.expect("port0: link up", 60)
    time.sleep(1.2)
    c = {k: int(v) for k, v in re.findall(r"(\w+): (\d+)", b.shell("ethtool -S port0"))}
    drops = ("rx_missed_errors", "rx_fifo_errors", "rx_drop_oversize", "rx_drop_desc_error", "alloc_rx_buff_failed")
    assert c["resets"] == 1 and all(c[d] == 0 for d in drops), c
    assert c["link_changes"] == changes + 2, (changes, c)   # down at the reset, up after
    assert "port0: link down (reset)" in b.q.text()
    assert c["rx_packets"] == c["rx_delivered"] + c["rx_drop_reset"], c
    assert b.fwd()[0][0] == c["rx_delivered"] and len(got) == c["rx_delivered"], (len(got), c)
    assert int(c["pool_free"]) + 512 == int(c["pool_size"]), c


def test_core_that_does_not_start(box):
    """A CPU the MADT lists that never answers INIT-SIPI-SIPI (smp_dead_apicid
    starts it into a halt) is waited for 10 s (Linux's wait; 100 ms let a
    late AP reset the box under load), reported, and left out; the two that
    started forward a pair each with exact counts."""
    b = box("app=fwd pairs=0-1,2-3 smp_dead_apicid=1", nports=4, smp=3)
    out = b.q.text()
    assert "smp: 2 core(s) running (MADT lists 3)" in out, out
    assert "smp: CPU with APIC ID 1 did not start (no answer to INIT-SIPI-SIPI within 10 s)" in out
    assert re.search(r"core1 apic 2 skew", out), out
    assert "core0: port0/q0 port1/q0" in out and "core1: port2/q0 port3/q0" in out, out
    got1, got3 = two_pairs(b, 150, 250)
    assert len(got1) == 150 and len(got3) == 250
    assert b.fwd() == {0: (150, 150), 1: (0, 0), 2: (250, 250), 3: (0, 0)}
    assert core_counts(b) == {0: 150, 1: 250}


def test_clear_stats_while_another_core_forwards(box):
    """`clear stats` while core 1 forwards 2->3 zeroes core 1's counters with
    core 1 parked between bursts: afterwards port2's rx_delivered and core
    1's processed count the same frames, and both count exactly the frames
    sent after the clear plus those in flight at it."""
    b = box("app=fwd pairs=0-1,2-3", nports=4, smp=2)
    got = []
    reader = threading.Thread(target=lambda: got.extend(b.p[3].recv(4000, timeout=90)))
    reader.start()

    def paced():   # 40 bursts of 100 over ~2 s, so the clear falls inside
        for k in range(40):
            b.p[2].send([frame(64, seq=k * 100 + i) for i in range(100)])
            time.sleep(0.05)
    t = threading.Thread(target=paced)
    t.start()
    time.sleep(0.6)
    assert "counters of 4 port(s) and 2 core(s) cleared" in b.shell("clear stats")
    t.join()
    reader.join()
    assert len(got) == 4000
    e = dict(re.findall(r"(\w+): (\d+)", b.shell("ethtool -S port2")))
    cores = core_counts(b)
    assert 0 < int(e["rx_delivered"]) < 4000, e
    assert cores == {0: 0, 1: int(e["rx_delivered"])}, (cores, e["rx_delivered"])
    tx = dict(re.findall(r"(\w+): (\d+)", b.shell("ethtool -S port3")))
    assert int(tx["tx_sent"]) == int(e["rx_delivered"]), (tx, e)


@pytest.mark.parametrize("lmap,expect", [
    ("0:1,1:1", "core1: port0/q0 port1/q0"),
    ("0:5", "lcore_map: entry 1: there is no core 5 (2 core(s) run)"),
    ("0:0,1:0,", "bad value '0:0,1:0,' for lcore_map= (a ',' ends the list"),
    ("0:0,0:1", "bad value '0:0,0:1' for lcore_map= (port0 is given twice"),
])
def test_lcore_map(box, lmap, expect):
    """lcore_map= places ports on cores; a map that names what does not run,
    or a malformed one, is refused with the reason and the default stays
    (also in show config)."""
    b = box(f"app=sink lcore_map={lmap}", nports=2, smp=2, connect=False)
    show = b.shell("show config")
    out = b.q.text()
    assert expect in out, out
    if lmap == "0:1,1:1":
        assert re.search(r"^lcore_map=0:1,1:1 ", show, re.M), show
    else:
        assert "core0: port0/q0\r\ncore1: port1/q0\r\n" in out, out   # sink: a port per core
        assert re.search(r"^lcore_map=default ", show, re.M), show


def test_fwd_says_which_ports_cannot_forward(box):
    """A fwd port whose pair runs another app, is in no pair, or is paired
    with a port that does not exist: said at boot, and its frames counted
    no_peer."""
    b = box("app=fwd,sink,fwd pairs=0-1,2-5", nports=3)
    b.shell("fwd")
    out = b.q.text()
    assert "fwd: port0 is paired with port1, which runs sink: its frames are dropped (no_peer)" in out, out
    assert "fwd: port2 is paired with port5, which does not exist: its frames are dropped (no_peer)" in out, out
    b.p[0].send([frame(64, seq=i) for i in range(7)])
    for _ in range(50):
        if "no_peer 7" in b.shell("fwd"):
            break
    assert re.search(r"fwd port0: rx 7 forwarded 0 .*no_peer 7", b.shell("fwd")), b.shell("fwd")


def test_l2_short_frames_padded(box):
    """QEMU's e1000 delivers frames from a socket as short as they came
    (e1000e and igb pad them to 60). fwd L2 drops one shorter than an
    Ethernet header (runt); the 82540EM's TX pads the 14-16 byte ones with
    zeros to ETH_ZLEN in software, as Linux e1000_xmit_frame does (its
    TCTL.PSP padding may corrupt short frames on PCI/PCI-X parts): all
    three reach port1 as 60 bytes with a zero tail, counted sent by the
    NIC too."""
    b = box("app=fwd pairs=0-1", nports=2, model="e1000")
    frames = [frame(64)[:n] for n in (13, 14, 15, 16)]
    got = []
    r = threading.Thread(target=lambda: got.extend(b.p[1].recv(3, timeout=30)))
    r.start()
    b.p[0].send(frames)
    r.join()
    assert [g[:len(f)] for g, f in zip(got, frames[1:])] == frames[1:], got
    assert [len(g) for g in got] == [60, 60, 60], got
    assert all(g[len(f):] == bytes(60 - len(f)) for g, f in zip(got, frames[1:])), got
    assert re.search(r"fwd port0: rx 4 forwarded 3 runt 1 ", b.shell("fwd")), b.shell("fwd")
    for _ in range(30):
        e = dict(re.findall(r"(\w+): (\d+)", b.shell("ethtool -S port1")))
        if e["tx_packets"] == "3":
            break
        time.sleep(0.2)
    assert e["tx_packets"] == "3" and e["tx_sent"] == "3", e


def test_l2_tagged_frames_pass_untouched(box):
    """fwd L2 passes tagged frames as they came: 802.1Q VLAN 100, a
    priority tag (PCP 5, VID 0: only the router takes that off) and QinQ
    (802.1ad S-tag 22 over C-tag 100), byte for byte, counted forwarded."""
    b = box("app=fwd pairs=0-1", nports=2)
    inner = frame(56, seq=3)
    qinq = inner[:12] + struct.pack(">HHHH", 0x88A8, 22, 0x8100, 100) + inner[12:]
    frames = [vlan_frame(64, seq=1, vid=100), vlan_frame(64, seq=2, vid=0xA000), qinq]
    got = []
    r = threading.Thread(target=lambda: got.extend(b.p[1].recv(3, timeout=30)))
    r.start()
    b.p[0].send(frames)
    r.join()
    assert got == frames, got
    assert b.fwd()[0] == (3, 3), b.shell("fwd")


class Hosts:
    """The hosts behind ports: a thread per port answers the router's ARP
    requests for its host's address (its MAC: 02:00:00:00:0P:02) and keeps
    the IPv4 frames that come out of the port."""
    def __init__(self, b, hosts):
        from scapy.all import ARP, Ether, raw
        self.ipv4 = {p: [] for p in hosts}
        self.arp = {p: 0 for p in hosts}
        self.stop = threading.Event()

        def serve(p, ip):
            mac = f"02:00:00:00:0{p}:02"
            while not self.stop.is_set():
                for f in b.p[p].recv(64, timeout=0.2):
                    e = Ether(f)
                    if ARP in e and e[ARP].op == 1 and e[ARP].pdst == ip:
                        self.arp[p] += 1
                        b.p[p].send([raw(Ether(src=mac, dst=e.src) / ARP(op=2, hwsrc=mac, psrc=ip,
                                                                          hwdst=e[ARP].hwsrc, pdst=e[ARP].psrc))])
                    elif e.type == 0x0800:
                        self.ipv4[p].append(e)
        self.threads = [threading.Thread(target=serve, args=(p, ip), daemon=True) for p, ip in hosts.items()]
        for t in self.threads:
            t.start()

    def wait(self, counts, seconds=60):
        """Until port p has counts[p] IPv4 frames (each), or the deadline."""
        end = time.monotonic() + seconds
        while any(len(self.ipv4[p]) < n for p, n in counts.items()) and time.monotonic() < end:
            time.sleep(0.1)
        return {p: len(self.ipv4[p]) for p in counts}

    def close(self):
        self.stop.set()
        for t in self.threads:
            t.join()


def txq_packets(b, port):
    e = dict(re.findall(r"(\w+): (\d+)", b.shell(f"ethtool -S port{port}")))
    return int(e["tx_queue_0_packets"]), int(e["tx_queue_1_packets"])


def test_routed_pairs_on_two_cores(box):
    """Seed 2 routed: four routed ports, queues=2 on two cores, lcore_map=
    puts port0 and port1 on core 0, port2 and port3 on core 1 (refused
    before: the routed ports were one domain). Each core sends on its own
    TX queue of every port: port0's frames (both of its RX queues, RSS)
    routed to port1 and port3 leave on TX queue 0 of each, port2's on TX
    queue 1, while both cores send into both ports at once. Exact counts:
    every frame forwarded, none dropped, each TX queue's packets those of
    its core."""
    from scapy.all import IP, UDP, Ether, raw
    b = box("app=fwd ip0=10.1.0.1/24 ip1=10.2.0.1/24 ip2=10.3.0.1/24 ip3=10.4.0.1/24 queues=2 poll=napi "
            "lcore_map=0:0,1:0,2:1,3:1", nports=4, smp=2)
    out = b.q.text()
    assert "core0: port0/q0 port0/q1 port1/q0 port1/q1\r\ncore1: port2/q0 port2/q1 port3/q0 port3/q1" in out, out
    assert "fwd: routed ports: core N sends on TX queue N of each" in out, out
    mac = re.findall(r"ether ([0-9a-f:]{17})", b.shell("ifconfig"))
    dst = {1: "10.2.0.2", 3: "10.4.0.2"}
    hosts = Hosts(b, dst)

    def udp(inp, to, n):
        """n frames from 64 hosts behind port inp (RSS hashes their addresses over both
        queues) to the one behind port to."""
        return [raw(Ether(src=f"02:00:00:00:0{inp}:02", dst=mac[inp]) /
                    IP(src=f"10.{inp + 1}.0.{2 + i % 64}", dst=dst[to], id=i) / UDP(sport=1000, dport=9) /
                    (b"x" * 18)) for i in range(n)]
    try:
        for inp in (0, 2):	# each core resolves both next hops
            b.p[inp].send(udp(inp, 1, 1) + udp(inp, 3, 1))
        assert hosts.wait({1: 2, 3: 2}) == {1: 2, 3: 2}
        end = time.monotonic() + 30
        while len(re.findall(r"reachable", arp := b.shell("fwd arp"))) < 4 and time.monotonic() < end:
            time.sleep(0.2)
        assert len(re.findall(r"^[01] +port[13] .* reachable", arp, re.M)) == 4, arp
        before = {p: txq_packets(b, p) for p in (1, 3)}
        n = 150
        f0 = [f for pair in zip(udp(0, 1, n), udp(0, 3, n)) for f in pair]
        t = b.p[2].send_background([f for pair in zip(udp(2, 3, n), udp(2, 1, n)) for f in pair])
        b.p[0].send(f0)
        t.join()
        assert hosts.wait({1: 2 + 2 * n, 3: 2 + 2 * n}) == {1: 2 + 2 * n, 3: 2 + 2 * n}
    finally:
        hosts.close()
    for p in (1, 3):
        after = txq_packets(b, p)
        assert (after[0] - before[p][0], after[1] - before[p][1]) == (n, n), (p, before[p], after)
        src = sorted(str(e[IP].src).rsplit(".", 2)[0] for e in hosts.ipv4[p])
        assert src == ["10.1"] * (n + 1) + ["10.3"] * (n + 1), src
        assert all(e[IP].ttl == 63 and e.src == mac[p] and e.dst == f"02:00:00:00:0{p}:02" for e in hosts.ipv4[p])
    c = {int(p): dict((k, int(v)) for k, v in re.findall(r"(\w+) (\d+)", body))
         for p, body in re.findall(r"fwd port(\d): (.*)", b.shell("fwd"))}
    for p in (0, 2):
        assert c[p]["rx"] == c[p]["forwarded"] == 2 + 2 * n, c[p]
    for p in range(4):
        assert sum(v for k, v in c[p].items() if k not in ("rx", "forwarded", "arp")) == 0, c[p]
        assert c[p]["rx"] == c[p]["forwarded"] + c[p]["arp"], c[p]
    assert (c[1]["arp"], c[3]["arp"]) == (hosts.arp[1], hosts.arp[3])
    e = {p: dict(re.findall(r"(\w+): (\d+)", b.shell(f"ethtool -S port{p}"))) for p in range(4)}
    for p in (0, 2):	# both RX queues of each input port carried frames, all to one core
        assert int(e[p]["rx_queue_0_packets"]) > 0 and int(e[p]["rx_queue_1_packets"]) > 0, e[p]
    rx = {p: int(e[p]["rx_delivered"]) for p in range(4)}
    assert core_counts(b) == {0: rx[0] + rx[1], 1: rx[2] + rx[3]}, rx


def test_port_switched_sink_pktgen_rr_sink_on_core1(box):
    """testpmd's stop / set fwd / start for the apps that run on one core
    (issue 34): port1, polled by core 1 of 2, goes sink -> pktgen (sends
    exactly 100 frames, counted at the host) -> rr (answers one UDP
    request; a TCP connection it holds is aborted, a RST to the host, when
    it is taken off) -> sink while the host streams into it. Every frame port1
    delivered is in exactly one of sink's count, pktgen's rx, rr's rx and
    port1's rx_port_stopped. Refusals name why: ptp is placed at boot only,
    rr runs on one core (port0 is core 0's), a port without an address."""
    from scapy.all import ARP, IP, TCP, UDP, Ether, Raw, raw
    b = box("app=sink ip1=10.9.0.1/24", nports=2, smp=2)
    host, host_ip = "02:00:00:00:00:01", "10.9.0.2"
    assert "core1: port1/q0" in b.q.text()
    sent, got, stop, done = [0], [], threading.Event(), threading.Event()
    lock = threading.Lock()   # one socket, three users: its timeout is per socket

    def send(frames):
        with lock:
            b.p[1].send(frames)

    def stream():
        while not stop.is_set():
            send([frame(60, sent[0] + i) for i in range(10)])
            sent[0] += 10
            time.sleep(0.01)

    def drain():
        while not done.is_set():
            with lock:
                frames = b.p[1].recv(100000, 0.05)
            got.extend(Ether(f) for f in frames)
            time.sleep(0.01)
    threads = [threading.Thread(target=stream, daemon=True), threading.Thread(target=drain, daemon=True)]

    def first(pred, timeout=30):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for f in list(got):
                if pred(f):
                    return f
            time.sleep(0.1)
        return None

    def switch(port, app):
        b.shell(f"port stop {port}")
        out = b.shell(f"port config {port} app {app}")
        b.shell(f"port start {port}")
        return out

    def pg_frame(f):
        return UDP in f and bytes(f[UDP].payload)[:2] == b"\x4c\x52"
    try:
        for th in threads:
            th.start()
        time.sleep(0.5)
        b.shell("port stop port1")
        # ten frames while it is stopped, whatever the stream's pace on a loaded host (a CI run saw none
        # of the stream's frames land in the stop windows): dropped, counted in rx_port_stopped
        send([frame(60, 1_000_000 + i) for i in range(10)])
        end = time.monotonic() + 30
        while int(re.search(r"rx_port_stopped: (\d+)", b.shell("ethtool -S port1")).group(1)) < 10 and \
                time.monotonic() < end:
            time.sleep(0.2)
        assert b.shell("port config port1 app ptp").startswith(
            "port: not at run time: 'ptp' (its ports make one clock, ordinary or boundary, numbered with their "
            "PHCs when it starts): at run time a port takes ")
        out = b.shell("port config port1 app pktgen")
        assert out.endswith("port1: app pktgen (was sink); port start port1 delivers to it\r\n"), out
        assert b.shell("port start port1") == "port1: started (pktgen)\r\n"
        for k, v in (("count", "100"), ("ratep", "2000"), ("dst_mac", host)):
            b.shell(f"pktgen set {k} {v}")
        assert "pktgen: port1: sending 100 frames of 60 B at 2000 pps to 02:00:00:00:00:01" in \
            b.shell("pktgen start")
        # core 1 prints pktgen's "done" line when it has sent, wherever the console is: inside the echo of a
        # command typed meanwhile it broke that command's match (a CI run): waited for before the next command
        done_line = "pktgen: port1: done, 100 frames sent"
        if done_line not in b.q.text():
            b.q.expect(re.escape(done_line), 30)
        assert "pktgen port1: stopped step 1/1 pkt_size 60 sent 100 " in b.shell("pktgen")
        out = switch("port1", "rr")
        assert "rr: lwIP on 1 port(s)" in out and out.endswith("port1: app rr (was pktgen); port start port1 "
                                                              "delivers to it\r\n"), out
        b.shell("port stop port0")
        assert b.shell("port config port0 app rr") == \
            "port: rr runs on one core, but port0 queue 0 is on core0 and port1 queue 0 on core1 (placed at " \
            "boot: lcore_map= puts them on one core)\r\n"
        send([raw(Ether(src=host, dst="ff:ff:ff:ff:ff:ff") /
                         ARP(op=1, hwsrc=host, psrc=host_ip, pdst="10.9.0.1"))])
        reply = first(lambda f: ARP in f and f[ARP].op == 2 and f[ARP].psrc == "10.9.0.1")
        assert reply is not None
        send([raw(Ether(src=host, dst=reply[ARP].hwsrc) / IP(src=host_ip, dst="10.9.0.1") /
                         UDP(sport=4000, dport=12866) / Raw(b"q"))])
        assert first(lambda f: UDP in f and f[UDP].sport == 12866 and f[UDP].dport == 4000) is not None
        tcp = Ether(src=host, dst=reply[ARP].hwsrc) / IP(src=host_ip, dst="10.9.0.1")
        send([raw(tcp / TCP(sport=4001, dport=12866, flags="S", seq=1000))])
        sa = first(lambda f: TCP in f and f[TCP].dport == 4001 and f[TCP].flags == "SA")
        assert sa is not None
        send([raw(tcp / TCP(sport=4001, dport=12866, flags="A", seq=1001, ack=sa[TCP].seq + 1))])
        end = time.monotonic() + 30
        while " conns_open 1 " not in b.shell("rr") and time.monotonic() < end:
            time.sleep(0.2)
        # rr taken off: its connection aborted, a RST to the peer
        assert switch("port1", "sink") == "port1: app sink (was rr); port start port1 delivers to it\r\n"
        assert first(lambda f: TCP in f and f[TCP].dport == 4001 and "R" in str(f[TCP].flags)) is not None
        assert b.shell("port config port0 app rr") == \
            "rr: port0 has no address: rr answers on ports with one, given at boot (ip0=A.B.C.D/LEN and/or " \
            "ADDR6/LEN)\r\nport: port0 not given to rr\r\n"
        b.shell("port start port0")
        assert b.shell("port") == "port0: sink, started\r\nport1: sink, started\r\n"
        time.sleep(0.5)
        stop.set()
        threads[0].join(30)
        n = sent[0] + 14   # the stream, the ten while stopped, the ARP request, the UDP request, SYN and ACK
        end = time.monotonic() + 30
        while True:
            e = dict(re.findall(r"(\w+): (\d+)", b.shell("ethtool -S port1")))
            if int(e["rx_delivered"]) == n or time.monotonic() > end:
                break
            time.sleep(0.2)
        pg, rr = b.shell("pktgen"), b.shell("rr")
        sink = b.sink()
    finally:
        stop.set()
        done.set()
        for th in threads:
            th.join(30)
    pg_rx = int(re.search(r"^pktgen port1 rx: (\d+) frames", pg, re.M).group(1))
    rr_rx = int(re.search(r"^rr port1: rx (\d+)", rr, re.M).group(1))
    stopped = int(e["rx_port_stopped"])
    assert int(e["rx_delivered"]) == n
    assert pg_rx > 0 and rr_rx > 0 and sink[1] > 0 and stopped >= 10, (pg_rx, rr_rx, sink, stopped)
    assert sink[1] + pg_rx + rr_rx + stopped == n, (n, sink, pg_rx, rr_rx, stopped)
    assert re.search(r"^pktgen port1: stopped step 1/1 pkt_size 60 sent 100 ", pg, re.M), pg
    data = [struct.unpack(">HHQ", bytes(f[UDP].payload)[:12]) for f in got if pg_frame(f)]
    probes = int(re.search(r"^pktgen port1: .* probes (\d+) ", pg, re.M).group(1))
    assert [d for d in data if d[1] == 0x0100] == [(0x4c52, 0x0100, i) for i in range(100)]   # port1, run 0
    assert len(data) == 100 + probes   # and the latency probes (stream | 0x8000)
    assert re.search(r"^rr port1: conns_open 0 udp_rr 1 ", rr, re.M), rr
    assert re.search(r"^rr port1:.* conns_accepted 1 .*conns_aborted 1 ", rr, re.M), rr
    assert len([f for f in got if UDP in f and f[UDP].sport == 12866]) == 1
