"""NIC driver tests for e1000, e1000e, igb and virtio-net in QEMU, frames injected from
the host through -netdev stream: exact RX counts, frame sizes, oversize
drops, TX order and contents, every poll mode and IntMode, interrupt
moderation, link flaps, buffer accounting."""
import os
import re
import sys
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
sys.path.insert(0, os.path.dirname(__file__))
from netio import StreamPort, frame, udp_flows, vlan_frame  # noqa: E402
from qemurun import Qemu  # noqa: E402

PROMPT = "linerate> "
# virtio-net-pci: offering VIRTIO_F_IN_ORDER (QEMU's in_order=on), which the
# driver takes with split rings; virtio-packed: offering packed virtqueues too
# (packed=on), taken instead of IN_ORDER (virtio_packed=0: split and IN_ORDER).
MODELS = ["e1000", "e1000e", "igb", "virtio-net-pci", "virtio-packed"]
# The driver each model's boot line names.
DRIVERS = {"e1000": "e1000", "e1000e": "e1000e", "igb": "igb", "virtio-net-pci": "virtio_net",
           "virtio-packed": "virtio_net"}


def nic_spec(model):
    # igb goes behind its own root port (docs/qemu-nics.md, Addenda);
    # virtio-net-pci-legacy: QEMU's default transitional device (1af4:1000).
    if model == "virtio-net-pci-legacy":
        return "virtio-net-pci:netdev=stream,legacy=1"
    if model == "virtio-packed":
        return "virtio-net-pci:netdev=stream,packed=1,in_order=1"
    if model == "virtio-legacy-only":
        return "virtio-net-pci:netdev=stream,legacy=only"
    return f"{model}:netdev=stream" + (",bus=rp" if model == "igb" else ",in_order=1" if model == "virtio-net-pci" else "")


class Box:
    """A booted appliance with its port 0 wired to a host stream socket."""

    def __init__(self, model, append="app=sink", machine="q35", connect=True):
        self.model = model
        # stats=0: no periodic table between a command and its reply.
        self.q = Qemu(boot="kernel", machine=machine, mem="256M", nics=[nic_spec(model)],
                      append="stats=0 " + append)
        self.q.expect(r"port0: link up", 90)
        self.q.send("\r")
        self.q.expect(PROMPT, 30)
        # Ring size in use: rxd=512 unless the device's queue is smaller (virtio: 256).
        self.rxd = int(re.search(r"port0: .* rxd (\d+) ", self.q.text()).group(1))
        if model == "e1000":
            # QEMU's e1000 holds frames for 1 s after every RCTL write, then
            # pushes all it queued into the ring and drops what does not fit
            # (docs/qemu-nics.md A.1): let that second pass first.
            time.sleep(1.2)
        self.port = StreamPort(self.q.nic_sock(0)) if connect else None

    def shell(self, line, timeout=60):
        return self.q.shell(line, timeout)

    def feed(self, frames, delivered_before=0):
        """Send frames for the sink. QEMU's e1000 drops and its igb stalls
        when more than a ring's worth waits in QEMU (test_rx_exact_counts):
        those get windows of 256, each waited for; e1000e gets them at once."""
        step = 256 if self.model in ("e1000", "igb") else len(frames)
        for i in range(0, len(frames), step):
            self.port.send(frames[i:i + step])
            if step < len(frames):
                self.wait_counter("rx_delivered", delivered_before + min(i + step, len(frames)))

    def ethtool(self):
        out = self.shell("ethtool -S port0")
        return {k: int(v) for k, v in re.findall(r"^\s+(\w+): (\d+)", out, re.M)}

    def settled(self, name, timeout=15):
        """Poll ethtool until counter name reads the same twice 0.6 s apart
        (frames in flight have landed); return the counters."""
        c = self.ethtool()
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            time.sleep(0.6)
            n = self.ethtool()
            if n[name] == c[name]:
                return n
            c = n
        return c

    def wait_counter(self, name, want, timeout=30):
        """Poll ethtool until counter name (or the sum of a tuple of names)
        reaches want; return the counters."""
        names = name if isinstance(name, tuple) else (name,)
        end = time.monotonic() + timeout
        while True:
            c = self.ethtool()
            if sum(c[n] for n in names) >= want or time.monotonic() > end:
                return c
            time.sleep(0.3)

    def sink(self):
        out = self.shell("sink")
        return {int(q): (int(p), int(b)) for q, p, b in
                re.findall(r"sink port0 q(\d+): (\d+) packets (\d+) bytes", out)}

    def close(self):
        # QEMU first: a stream client that leaves while frames it sent wait
        # in QEMU can crash it (docs/testing.md, "QEMU's own faults").
        self.q.stop()
        if self.port:
            self.port.close()


@pytest.fixture
def box(request):
    boxes = []

    def make(*a, **kw):
        b = Box(*a, **kw)
        boxes.append(b)
        return b
    yield make
    for b in boxes:
        b.close()


def assert_buffers_home(c, rxd=512, queues=1):
    """Every packet buffer is in its pool or in an RX ring slot."""
    assert c["pool_free"] + queues * rxd == c["pool_size"], c
    assert c["small_pool_free"] == c["small_pool_size"], c


@pytest.mark.parametrize("model", MODELS)
def test_rx_exact_counts(box, model):
    b = box(model)
    total, nbytes = 0, 0
    for burst in (1, 31, 32, 33, 10000):
        frames = [frame(60, seq=total + i) for i in range(burst)]
        # QEMU's igb stops taking frames for good once more than a ring's
        # worth waits in its queue (seen on 10.0.2, not root-caused): feed it
        # in windows of 256, as trafgen does, waiting for each.
        step = 256 if model == "igb" else burst
        for i in range(0, burst, step):
            b.port.send(frames[i:i + step])
            if step < burst:
                b.wait_counter("rx_delivered", total + min(i + step, burst))
        total += burst
        c = b.wait_counter(("rx_delivered", "rx_missed_errors"), total)
        lost = c["rx_missed_errors"]
        # Every frame ends in exactly one counter: delivered to the app, or
        # missed for want of a descriptor. Only QEMU's e1000 misses: when
        # RDT moves it pushes every frame it queued into the ring and drops
        # what does not fit, instead of holding it (hw/net/e1000.c).
        end = time.monotonic() + 30
        while c["rx_delivered"] + lost < total and time.monotonic() < end:
            c = b.ethtool()
            lost = c["rx_missed_errors"]
        assert c["rx_delivered"] + lost == total, (burst, c)
        if model != "e1000" or burst <= 33:
            assert lost == 0 and c["rx_delivered"] == total, (burst, c)
        nbytes = 60 * c["rx_delivered"]
    assert c["rx_no_buffer_count"] == c["rx_missed_errors"]
    assert b.sink() == {0: (c["rx_delivered"], nbytes)}
    assert c["rx_packets"] == c["rx_delivered"]
    assert c["rx_drop_oversize"] == 0 and c["rx_drop_desc_error"] == 0
    assert c["alloc_rx_buff_failed"] == 0
    time.sleep(1.2)
    assert_buffers_home(b.ethtool(), b.rxd)


@pytest.mark.parametrize("model", MODELS)
def test_frame_sizes_and_oversize(box, model):
    b = box(model)
    # Sizes as QEMU carries them, without FCS: the largest untagged frame is
    # 1514 bytes; 1518 is legal with an 802.1Q tag.
    sizes = [60, 64, 1514, 1518]
    b.port.send([frame(s, seq=i) for i, s in enumerate(sizes[:3])] +
                [vlan_frame(1518, seq=3)])
    c = b.wait_counter("rx_delivered", len(sizes))
    assert c["rx_delivered"] == len(sizes)
    assert b.sink() == {0: (len(sizes), sum(sizes))}
    # 1600 bytes: over the 1518 (VLAN-tagged, no FCS) limit. e1000/e1000e
    # drop it in hardware (ROC, rx_long_length_errors); igb runs with long
    # packets on up to a buffer and the driver drops it (rx_drop_oversize).
    # Either way exactly one counter says so.
    b.port.send([frame(1600, seq=99), frame(60, seq=100)])
    c = b.wait_counter("rx_delivered", len(sizes) + 1)
    assert c["rx_delivered"] == len(sizes) + 1
    assert c["rx_long_length_errors"] + c["rx_drop_oversize"] == 1, c
    assert b.sink() == {0: (len(sizes) + 1, sum(sizes) + 60)}


@pytest.mark.parametrize("model", MODELS)
def test_tx_intact_and_in_order(box, model):
    b = box(model, append="app=fwd pairs=0-0")
    frames = [frame(64 + (i % 1400), seq=i) for i in range(2000)]
    # A window of 256 frames in flight: QEMU's e1000 drops and its igb
    # stalls when more than a ring's worth waits (see test_rx_exact_counts).
    back = []
    for i in range(0, len(frames), 256):
        sender = b.port.send_background(frames[i:i + 256])
        back += b.port.recv(len(frames[i:i + 256]), timeout=30)
        sender.join(5)
    assert len(back) == len(frames)
    assert back == frames
    out = b.shell("fwd")
    assert re.search(r"fwd port0: rx 2000 forwarded 2000 runt 0 no_peer 0 tx_ring_full 0", out), out
    time.sleep(1.2)   # the watchdog reclaims what the NIC sent
    c = b.ethtool()
    assert c["tx_sent"] == 2000 and c["tx_packets"] == 2000
    assert_buffers_home(c, b.rxd)


MODES = [(poll, intmode) for poll in ("busy", "napi", "irq") for intmode in (0, 1, 2)]


@pytest.mark.parametrize("model", ["e1000e", "igb", "virtio-net-pci"])
@pytest.mark.parametrize("poll,intmode", MODES)
def test_poll_and_intmode_deliver_all(box, model, poll, intmode):
    b = box(model, append=f"app=sink poll={poll} IntMode={intmode}")
    # virtio-pci has no MSI capability: IntMode=1 gets INTx.
    mode = {0: "INTx", 1: "INTx" if model == "virtio-net-pci" else "MSI", 2: "MSI-X"}[intmode]
    assert re.search(rf"port0: {DRIVERS[model]} .*, {mode}\r", b.q.text())
    b.feed([frame(60, seq=i) for i in range(3000)])
    c = b.wait_counter("rx_delivered", 3000)
    assert c["rx_delivered"] == 3000
    if poll != "busy":
        assert c["queue_0_irqs"] > 0
    else:
        assert c["queue_0_irqs"] == 0


@pytest.mark.parametrize("poll", ["busy", "napi", "irq"])
def test_e1000_poll_modes(box, poll):
    b = box("e1000", append=f"app=sink poll={poll}")
    assert re.search(r"port0: e1000 .*, INTx\r", b.q.text())
    b.feed([frame(60, seq=i) for i in range(3000)])
    assert b.wait_counter("rx_delivered", 3000)["rx_delivered"] == 3000


def paced_irqs(b, n=400, gap=0.002):
    for i in range(n):
        b.port.send([frame(60, seq=i)])
        time.sleep(gap)
    c = b.wait_counter("rx_delivered", n)
    assert c["rx_delivered"] == n
    return c["queue_0_irqs"]


@pytest.mark.parametrize("model", ["e1000e", "igb"])
def test_itr_lowers_interrupt_rate(box, model):
    slow = paced_irqs(box(model, append="app=sink poll=irq InterruptThrottleRate=100"))
    fast = paced_irqs(box(model, append="app=sink poll=irq InterruptThrottleRate=0"))
    # 100 ints/s over ~1 s of paced traffic against an unthrottled port.
    assert slow * 2 < fast, (slow, fast)


@pytest.mark.parametrize("model", MODELS)
def test_link_flap_during_traffic(box, model):
    b = box(model)
    b.port.send([frame(60, seq=i) for i in range(500)])
    flaps = b.ethtool()["link_changes"]   # igb's first link-up counts too
    b.q.qmp_cmd("set_link", name="n0", up=False)
    b.q.expect(r"port0: link down", 10)
    b.q.qmp_cmd("set_link", name="n0", up=True)
    b.q.expect(r"port0: link up", 10)
    # The first 500 may still be in QEMU's stream backend at the flap (it
    # reads the socket only while the NIC has room; CI saw 96 delivered
    # here, the rest after link-up): taken by link-up or dropped by QEMU
    # while down, they settle before the exact count of the next 500.
    c0 = b.settled("rx_delivered")
    b.feed([frame(60, seq=1000 + i) for i in range(500)], c0["rx_delivered"])
    c = b.wait_counter("rx_delivered", c0["rx_delivered"] + 500)
    assert c["rx_delivered"] == c0["rx_delivered"] + 500
    assert c["link_changes"] == flaps + 2
    time.sleep(1.2)
    assert_buffers_home(b.ethtool(), b.rxd)


@pytest.mark.parametrize("model", ["e1000e", "virtio-net-pci", "virtio-packed"])
@pytest.mark.parametrize("promisc", [0, 1])
def test_address_filter(box, model, promisc):
    """promisc=0: the port takes its own MAC and broadcast, not another
    host's unicast nor a group it did not join (virtio: the filter is set
    through the control virtqueue; QEMU's device starts promiscuous);
    promisc=1 takes them all. The filtered frames go first, so once the
    last frame is in, every earlier one was decided."""
    b = box(model, append=f"app=sink promisc={promisc}")
    mac = bytes(int(x, 16) for x in re.search(r"port0: \S+ .*MAC ([0-9a-f:]{17})", b.q.text()).group(1).split(":"))
    other = [frame(60, seq=i, dst=b"\x02\x00\x00\x00\x00\x99") for i in range(10)]
    group = [frame(60, seq=100 + i, dst=b"\x01\x00\x5e\x00\x00\x09") for i in range(5)]
    ours = [frame(60, seq=200 + i, dst=mac) for i in range(10)] + [frame(60, seq=300 + i) for i in range(10)]
    b.port.send(other + group + ours)
    want = 20 + 15 * promisc
    c = b.wait_counter("rx_delivered", want)
    assert c["rx_delivered"] == want, c
    assert b.sink() == {0: (want, 60 * want)}


def test_virtio_transitional_device(box):
    """QEMU's default virtio-net-pci (transitional, 1af4:1000, with its
    legacy I/O BAR) is driven through its virtio 1.x capabilities: exact
    counts as on the modern-only device."""
    b = box("virtio-net-pci-legacy")
    assert re.search(r"port0: virtio_net Virtio network device at .*, MSI-X\r", b.q.text())
    b.port.send([frame(60 + i, seq=i) for i in range(300)])
    c = b.wait_counter("rx_delivered", 300)
    assert c["rx_delivered"] == c["rx_packets"] == 300, c
    assert b.sink() == {0: (300, sum(60 + i for i in range(300)))}


@pytest.mark.parametrize("append,packed", [("app=sink", True), ("app=sink virtio_packed=0", False)])
def test_virtio_packed_rings(box, append, packed):
    """A device offering packed virtqueues and IN_ORDER gets packed ones
    (IN_ORDER not asked for) unless virtio_packed=0 (then split ones with
    IN_ORDER): the boot line says which, and 600 frames of 300
    sizes (more than two rings' worth, so the wrap counters flip) arrive
    counted exactly, with every buffer back home."""
    b = box("virtio-packed", append)
    line = re.search(r"port0: virtio features \w+: (.*), MTU", b.q.text()).group(1)
    assert ("RING_PACKED" in line) == packed, line
    assert ("IN_ORDER" in line) != packed, line
    b.port.send([frame(60 + i % 300, seq=i) for i in range(600)])
    c = b.wait_counter("rx_delivered", 600)
    assert c["rx_delivered"] == c["rx_packets"] == 600, c
    assert b.sink() == {0: (600, 2 * sum(60 + i for i in range(300)))}
    time.sleep(1.2)
    assert_buffers_home(b.ethtool(), b.rxd)


def test_virtio_legacy_interface(box):
    """A transitional device without virtio 1.x capabilities (QEMU's
    disable-modern=on) is driven through its legacy I/O BAR: MRG_RXBUF for
    the 12-byte header, the device's fixed queue size (rxd=128 said and not
    taken), frames forwarded intact and in order; a 9000-byte frame, which
    QEMU spreads over five buffers there, is dropped once in
    rx_drop_oversize and the frame after it still arrives."""
    b = box("virtio-legacy-only", append="app=fwd pairs=0-0 rxd=128")
    text = b.q.text()
    assert re.search(r"port0: virtio_net Virtio network device at .* rxd 256 txd 256, MSI-X\r", text), text[-2000:]
    assert re.search(r"port0: virtio features \w+: legacy interface, MRG_RXBUF MAC STATUS EVENT_IDX CTRL_VQ CTRL_RX, "
                     r"MTU 1500\r", text)
    assert "port0: rxd=128: the legacy interface fixes virtqueue 0 at 256 descriptors\r" in text
    frames = [frame(60 + i, seq=i) for i in range(400)]
    back = []
    for i in range(0, len(frames), 200):    # within the 256-descriptor TX ring
        sender = b.port.send_background(frames[i:i + 200])
        back += b.port.recv(200, timeout=30)
        sender.join(5)
    assert back == frames
    b.port.send([frame(9000, seq=1000), frame(100, seq=1001)])
    assert b.port.recv(1, timeout=30) == [frame(100, seq=1001)]
    c = b.ethtool()
    assert c["rx_packets"] == 402 and c["rx_delivered"] == 401 and c["rx_drop_oversize"] == 1, c
    assert c["tx_sent"] == c["tx_packets"] == 401, c


@pytest.mark.parametrize("append,rings,said", [
    ("app=sink", ("256", "256"), []),
    ("app=sink rxd=1024 txd=200", ("256", "128"),
     ["port0: rxd=1024: virtqueue 0 holds 256 descriptors (a power of two); using 256",
      "port0: txd=200: virtqueue 1 holds 256 descriptors (a power of two); using 128"]),
    ("app=sink rxd=128 txd=512", ("128", "256"), []),
])
def test_virtio_ring_sizes(box, append, rings, said):
    """rxd=/txd= not given (or at their default): the device's queue size
    (QEMU's 256), silently; a value given is cut to a power of two within
    it, said when that is not the value asked for."""
    b = box("virtio-net-pci", append)
    text = b.q.text()
    assert re.search(r"port0: virtio_net .* rxd (\d+) txd (\d+), ", text).groups() == rings, text
    assert re.findall(r"port0: [rt]xd=.*", text.replace("\r", "")) == said, text
    assert_buffers_home(b.ethtool(), int(rings[0]))


def test_message_while_a_line_is_typed(box):
    """A console message (link down) while a command is half typed takes
    the prompt line's place (CR, erase line) and the prompt and the typed
    part come back after it; the finished line then runs as typed."""
    b = box("e1000e")
    b.q.send("vers")
    b.q.expect("vers", 10)
    b.q.qmp_cmd("set_link", name="n0", up=False)
    b.q.expect(re.escape("\r\x1b[Kport0: link down\r\n" + PROMPT + "vers"), 10)
    assert re.search(r"linerate 0\.\d+\.\d+ ", b.shell("ion"))


def test_ethtool_set_coalesce_refuse_rings(box):
    """ethtool -C rx-usecs sets the port's InterruptThrottleRate while it
    runs, with Linux e1000e's meaning (0-4 the modes, else us between
    interrupts); bad values are refused with the accepted forms; -G is
    refused with the reason (rings are sized at boot), nothing changed."""
    b = box("e1000e", "app=sink")
    assert b.shell("ethtool -C port0 rx-usecs 100").startswith("InterruptThrottleRate=10000")
    c = b.shell("ethtool -c port0")
    assert "Adaptive RX: off  TX: n/a\r\nrx-usecs: 100\r\nInterruptThrottleRate: 10000 " in c, c
    assert b.shell("ethtool -C port0 rx-usecs 3").startswith("InterruptThrottleRate=3")
    assert "Adaptive RX: on  TX: n/a\r\nrx-usecs: 3\r\n" in b.shell("ethtool -c port0")
    for bad in ("rx-usecs 2", "rx-usecs 5", "rx-usecs 10001", "rx-usecs x", "tx-usecs 8", "rx-usecs"):
        assert b.shell("ethtool -C port0 " + bad).startswith(
            "ethtool -C: accepted: ethtool -C <port> rx-usecs 0|1|3|4|10-10000 "), bad
    assert "rx-usecs: 3\r\n" in b.shell("ethtool -c port0")
    assert b.shell("ethtool -G port0 rx 256") == (
        "ethtool -G: port0's rings are sized at boot (rxd=, txd= on the kernel command line, now 512 and 512): "
        "the rings and the buffer pools sized from them are made when the port is set up, which it is not "
        "again while it runs\r\n")
    assert "RX:\t\t512\r\nRX Mini:\tn/a\r\nRX Jumbo:\tn/a\r\nTX:\t\t512\r\n" in b.shell("ethtool -g port0")
    assert b.shell("ethtool -C port5 rx-usecs 100") == "ethtool: no port5; ports: port0\r\n"


@pytest.mark.parametrize("model", ["e1000e", "igb"])
def test_rss_spreads_flows(box, model):
    """queues=2: RSS spreads 64 IPv4/UDP flows over both queues, each with its
    own MSI-X vector; every frame is counted once. On e1000e queues=3 asks
    for more than the 82574 has: cut to its 2, and the console says so.
    The frames go in through feed(): on igb in windows of 256, each awaited,
    as QEMU's igb drops what the ring of the queue RSS picked cannot take
    (trafgen unwindowed at 20 kpps lost 58 of 2000 in 1 boot of 4 here, 5
    of 10 for another developer). The socket stays open until the guest
    counted every frame: QEMU 10.0.2 segfaults when a stream client leaves
    while frames it sent still wait in QEMU (docs/testing.md, "QEMU's own faults")."""
    queues = 3 if model == "e1000e" else 2
    b = box(model, append=f"app=sink queues={queues} promisc=1")
    assert re.search(rf"port0: {model} .*, 2 queue\(s\), .*MSI-X\r", b.q.text())
    cut = "port0: queues=3: the 82574L Gigabit Network Connection has 2 queue pair(s); using 2"
    assert (cut in b.q.text()) == (model == "e1000e")
    load = udp_flows(2000)
    b.feed(load)
    c = b.wait_counter("rx_delivered", len(load))
    assert c["rx_delivered"] == len(load), c   # the counters say where a missing frame went
    sink = b.sink()
    assert set(sink) == {0, 1}
    assert sink[0][0] + sink[1][0] == len(load)
    assert sink[0][0] > 0 and sink[1][0] > 0, sink


def test_l2_mac_rewrite(box):
    """fwd L2 with l2_dmac=: frames leave with that destination MAC and the
    port's own MAC as source; the rest of the frame is unchanged."""
    b = box("e1000e", append="app=fwd pairs=0-0 l2_dmac=02:aa:bb:cc:dd:ee")
    mac = re.search(r"port0: e1000e .*MAC ([0-9a-f:]{17})", b.q.text()).group(1)
    frames = [frame(100, seq=i) for i in range(50)]
    sender = b.port.send_background(frames)
    back = b.port.recv(len(frames), timeout=30)
    sender.join(5)
    assert len(back) == len(frames)
    want_src = bytes(int(x, 16) for x in mac.split(":"))
    for sent, got in zip(frames, back):
        assert got[:6] == bytes.fromhex("02aabbccddee")
        assert got[6:12] == want_src
        assert got[12:] == sent[12:]


def test_fwd_macswap(box):
    """fwd_mode=macswap (testpmd's macswap): each frame comes back out of
    the port it came in on (pairs=0-0) with destination and source MAC
    swapped, the rest unchanged; every frame counted once as forwarded.
    `set fwd_mode io` at run time: frames come back unchanged."""
    b = box("e1000e", append="app=fwd pairs=0-0 promisc=1 fwd_mode=macswap")
    assert "fwd: L2 cross-connect (macswap) on 1 port(s)" in b.q.text()
    dst, src = bytes.fromhex("02aabbccddee"), bytes.fromhex("020000000001")
    frames = [frame(60 + i, seq=i, dst=dst, src=src) for i in range(200)]
    sender = b.port.send_background(frames)
    back = b.port.recv(len(frames), timeout=30)
    sender.join(5)
    assert back == [src + dst + f[12:] for f in frames]
    out = b.shell("fwd")
    assert re.search(r"fwd port0: rx 200 forwarded 200 runt 0 no_peer 0 tx_ring_full 0", out), out
    assert b.shell("set fwd_mode io") == "fwd_mode=io\r\n"
    sender = b.port.send_background(frames[:50])
    assert b.port.recv(50, timeout=30) == frames[:50]
    sender.join(5)
    out = b.shell("fwd")
    assert re.search(r"fwd port0: rx 250 forwarded 250 runt 0 no_peer 0 tx_ring_full 0", out), out


def test_fwd_mode_bad_value_refused(box):
    """A bad fwd_mode= is refused with the accepted forms; io stays."""
    b = box("e1000e", append="app=fwd pairs=0-0 fwd_mode=swap")
    text = b.q.text()
    assert "cmdline: bad value 'swap' for fwd_mode= (accepted: io|macswap)" in text, text
    assert "fwd: L2 cross-connect (io) on 1 port(s)" in text, text


@pytest.mark.parametrize("model", ["e1000e", "igb"])
def test_rx_csum_offload_counts_once_per_frame(box, model):
    """rx_csum_offload_good/_errors as Linux e1000e counts them: one per
    frame, good when the NIC verified the TCP/UDP checksum, an error when
    it found the IPv4 header or TCP/UDP checksum wrong."""
    from scapy.all import IP, UDP, Ether, raw
    b = box(model, append="app=sink")

    def udp(**ip):
        return Ether(dst="ff:ff:ff:ff:ff:ff", src="02:00:00:00:00:01") / IP(src="10.1.0.2", dst="10.2.0.9", **ip) \
            / UDP(sport=1234, dport=5678) / (b"x" * 40)
    good = [raw(udp(id=i)) for i in range(20)]
    bad_ip = [raw(udp(id=100 + i, chksum=0x1234)) for i in range(5)]
    p = udp(id=200)
    p[UDP].chksum = 0x4321
    bad_udp = [raw(p)] * 4
    other = [frame(64, seq=i) for i in range(3)]
    b.port.send(good + bad_ip + bad_udp + other)
    c = b.wait_counter("rx_delivered", 32)
    assert c["rx_delivered"] == 32, c
    assert c["rx_csum_offload_good"] == 20, c
    assert c["rx_csum_offload_errors"] == 9, c


@pytest.mark.parametrize("model,driver,bus,queues,delays", [
    ("e1000e", "e1000e", "0000:00:02.0", 2, True),
    ("igb", "igb", "0000:01:00.0", 8, False),
])
def test_ethtool_read_only_views(box, model, driver, bus, queues, delays):
    """ethtool -i/-g/-c/-l/-k print the port as Linux's ethtool does, from
    the knobs in force; a port that does not exist is named."""
    b = box(model, "app=sink rxd=256 txd=1024 InterruptThrottleRate=8000 RxAbsIntDelay=16")
    i = b.shell("ethtool -i port0")
    assert i.startswith(f"driver: {driver}\r\nversion: 0.1.0 (") and f"\r\nbus-info: {bus}\r\n" in i, i
    assert "supports-statistics: yes\r\n" in i
    assert b.shell("ethtool -g port0") == (
        "Ring parameters for port0:\r\nPre-set maximums:\r\nRX:\t\t4096\r\nRX Mini:\tn/a\r\nRX Jumbo:\tn/a\r\n"
        "TX:\t\t4096\r\nCurrent hardware settings:\r\nRX:\t\t256\r\nRX Mini:\tn/a\r\nRX Jumbo:\tn/a\r\n"
        "TX:\t\t1024\r\n")
    c = b.shell("ethtool -c port0")
    assert c.startswith("Coalesce parameters for port0:\r\nAdaptive RX: off  TX: n/a\r\nrx-usecs: 125\r\n"
                        "InterruptThrottleRate: 8000 "), c
    if delays:
        assert "RxIntDelay (RDTR): 0\r\nRxAbsIntDelay (RADV): 16\r\nTxIntDelay (TIDV): 8\r\n" \
               "TxAbsIntDelay (TADV): 32\r\n" in c, c
    else:
        assert "n/a (igb has EITR only)" in c, c
    b.shell("set InterruptThrottleRate 3")
    assert "Adaptive RX: on  TX: n/a\r\nrx-usecs: 3\r\n" in b.shell("ethtool -c port0")
    assert b.shell("ethtool -l port0") == (
        f"Channel parameters for port0:\r\nPre-set maximums:\r\nRX:\t\tn/a\r\nTX:\t\tn/a\r\nOther:\t\t1\r\n"
        f"Combined:\t{queues}\r\nCurrent hardware settings:\r\nRX:\t\tn/a\r\nTX:\t\tn/a\r\nOther:\t\t1\r\n"
        "Combined:\t1\r\n")
    k = b.shell("ethtool -k port0")
    assert k.startswith("Features for port0:\r\nrx-checksumming: on [fixed]\r\ntx-checksumming: off "), k
    # app=sink asks for no insertion; both take IPv6 too (tx_csum6)
    assert "\ttx-checksum-ipv4: off\r\n\ttx-checksum-ipv6: off\r\n" in k, k
    assert "receive-hashing: off [fixed]\r\n" in k and "tcp-segmentation-offload: off [fixed]\r\n" in k
    assert b.shell("ethtool -g port5") == "ethtool: no port5; ports: port0\r\n"
    assert b.shell("ethtool port0") == \
        "usage: ethtool -i|-g|-c|-l|-k|-S|-T <port> | -C <port> rx-usecs <n>; ports: port0\r\n"
    assert "rx_packets: " in b.shell("ethtool -S port0")
