"""IEEE 1588: the ptp app against linuxptp's ptp4l (Debian 3.1.1) over a tap
device in a network namespace the test creates (L2, UDPv4 and UDPv6; ptp4l with
software timestamps, -S, and always --free_running 1, so that it never
steers this machine's clock, which a namespace does not isolate), two
appliances with igb hardware timestamps against each other, and the igb RX
timestamp latch lock-up (docs/qemu-nics.md C.3) reproduced and recovered.

"Locked" for the appliance: servo state s2 with small offsets. ptp4l with
--free_running never adjusts its clock, so it never reaches s2; locked for
it means: it chose the appliance as its master and the offsets it measures
lie on a straight line (a constant frequency difference), as a clock it
would steer needs."""
import ipaddress
import os
import re
import struct
import subprocess
import sys
import tempfile
import threading
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
sys.path.insert(0, os.path.dirname(__file__))
from netio import StreamPort  # noqa: E402
from netns import TapPeer, sh  # noqa: E402
from qemurun import Qemu  # noqa: E402

PROMPT = "linerate> "
INTERVALS = ["logSyncInterval=-2", "logAnnounceInterval=0", "logMinDelayReqInterval=-2"]
PTP4L_INTERVALS = ["--logSyncInterval", "-2", "--logAnnounceInterval", "0",
                   "--logMinDelayReqInterval", "-2"]
SAMPLE = re.compile(rb"ptp\[\d+\.\d{3}\]: port0: master offset\s+(-?\d+) s(\d) freq\s+([+-]?\d+) "
                    rb"path delay\s+(-?\d+)")


class Ptp4l:
    """ptp4l in the peer's namespace, its output collected by a thread."""

    def __init__(self, peer, *args):
        cmd = ["ip", "netns", "exec", peer.ns, "ptp4l", "-i", peer.tap, "-S", "-m", "-q",
               "--free_running", "1"] + PTP4L_INTERVALS + list(args)
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines = []
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line.rstrip())

    def wait_for(self, pattern, timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if any(re.search(pattern, line) for line in self.lines):
                return
            time.sleep(0.2)
        raise TimeoutError(f"ptp4l: no /{pattern}/ in {timeout} s:\n" + "\n".join(self.lines[-30:]))

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.thread.join(5)


@pytest.fixture
def tap():
    """A tap and namespace named after this process (tools/netns.py), so
    that runs from other checkouts do not collide."""
    if os.geteuid() != 0:
        pytest.fail("this test needs root for a network namespace and a tap device")
    peer = TapPeer("ptp")
    yield peer
    peer.close()


def samples(q, n, timeout):
    """The next n servo lines of the appliance: (offset, state, freq, delay)."""
    out = []
    for _ in range(n):
        m = q.expect(SAMPLE, timeout)
        out.append(tuple(int(g) for g in (m.group(1), m.group(2), m.group(3), m.group(4))))
    return out


def ptp_counters(q, port=0):
    """`ptp` command: {name: count} of the frames and events lines."""
    q.send("ptp\r")
    rx = q.expect(rb"ptp port%d: (rx \d+[^\r\n]*)\r\n" % port, 20).group(1).decode()
    ev = q.expect(rb"ptp port%d: (tx_sync[^\r\n]*)\r\n" % port, 20).group(1).decode()
    return {k: int(v) for k, v in re.findall(r"(\w+) (\d+)", rx + " " + ev)}


def median_abs(values):
    v = sorted(abs(x) for x in values)
    return v[len(v) // 2]


PTP6_SRC = "fd09::1"	# the appliance's UDPv6 source: ip0's IPv6 address


@pytest.mark.parametrize("transport", ["L2", "UDPv4", "UDPv6"])
def test_ptp4l_interop(tap, transport):
    """Appliance (ptp_role=auto) as slave of ptp4l (priority1 1), then as
    master of a slave-only ptp4l, over one transport; over UDPv4 that ptp4l
    sends its Delay_Req unicast (--hybrid_e2e 1: it needs the appliance's
    ARP reply), and the appliance answers ping (RFC 1122 2.3.2.1, 3.2.2.6).
    Over UDPv6 (ptp4l -6, Annex E: ff0e::181, every message multicast) the
    appliance's frames come from ip0's IPv6 address with a right UDP
    checksum, or ptp4l's kernel would drop them, and pmc -6 gets its
    answer."""
    append = ["app=ptp", "stats=0", f"network_transport={transport}", "ptp_role=auto",
              f"ip0=10.9.0.1/24,{PTP6_SRC}/64"] + INTERVALS
    flag = {"L2": "-2", "UDPv4": "-4", "UDPv6": "-6"}[transport]
    with Qemu(boot="kernel", mem="256M", nics=[f"igb:bus=rp,netdev=tap,ifname={tap.tap}"],
              append=" ".join(append)) as q:
        q.expect("port0: link up", 90)
        tap.wire("10.9.0.2/24")
        sh("ip", "-6", "addr", "add", "fd09::2/64", "dev", tap.tap, "nodad", ns=tap.ns)
        master = Ptp4l(tap, flag, "--priority1", "1")
        try:
            # It may have become master before ptp4l's Announce messages came.
            q.expect(r"(LISTENING|MASTER) to UNCALIBRATED on RS_SLAVE", 60)
            # UDPv4 on QEMU's igb: software RX stamps, ptp4l's software servo
            # constants, whose frequency estimate takes 16 s.
            q.expect(r"UNCALIBRATED to SLAVE on MASTER_CLOCK_SELECTED", 90)
            s = samples(q, 12, 30)
        finally:
            master.stop()
        assert all(state == 2 for _, state, _, _ in s), s
        last = [off for off, _, _, _ in s[-8:]]
        # ns. QEMU stamps a frame when its model handles it, under TCG on a
        # busy machine milliseconds late, unevenly (make bench measures it):
        # the bound only tells a lock from none (the servo is judged against
        # a known frequency error between two appliances, below).
        assert median_abs(last) < 50_000_000, s
        # QEMU stamps a frame when its model sees it, ptp4l when the host
        # kernel does: the two directions differ, a few samples come out < 0.
        assert all(abs(d) < 10_000_000 for _, _, _, d in s), s
        c = ptp_counters(q)
        assert c["sync"] > 12 and c["follow_up"] > 12 and c["delay_resp"] > 0, c
        # igb stamps TX of any frame (Sync messages too, if it was master for
        # a while); the last one may still be waiting to be read, and one
        # taken across a clock step or a state change is dropped.
        sent = c["tx_delay_req"] + c["tx_sync"]
        assert sent - 2 <= c["tx_hwtstamp"] + c["tx_tstamp_missing"] <= sent, c
        if transport == "L2":	# QEMU's igb stamps L2 Sync (one may come before the filter is set)
            assert c["rx_hwtstamp"] >= c["sync"] - 1, c
        else:			# ... never UDP over IPv4 or IPv6 (docs/qemu-nics.md C.3)
            assert c["rx_hwtstamp"] == 0 and c["rx_swtstamp"] >= c["sync"], c
        if transport == "UDPv6":	# ptp4l's frames all parsed: IPv6, UDP checksum
            assert c["bad_ip"] == 0 and c["arp_request"] == 0 and c["echo_request"] == 0, c
        drops = sum(v for k, v in c.items() if k not in ("rx", "sync", "follow_up", "delay_req",
                                                          "delay_resp", "announce")
                    and k in RX_DROPS)
        assert c["rx"] == c["sync"] + c["follow_up"] + c["delay_req"] + c["delay_resp"] + \
            c["announce"] + c["arp_request"] + c["echo_request"] + c["management"] + drops, str(c)
        # The master is gone: the appliance takes over, its clock set 2 % fast
        # (phc_ctl); ptp4l, slave-only and free running, follows it and
        # measures that rate.
        # The first unicast Delay_Req leaves once the guest's ARP reply is in,
        # milliseconds under TCG: past ptp4l's 1 ms wait for its TX stamp.
        hybrid = ["--hybrid_e2e", "1", "--tx_timestamp_timeout", "100"] if transport == "UDPv4" else []
        slave = Ptp4l(tap, flag, "-s", "--summary_interval", "-2", *hybrid)
        dump = None
        if transport == "UDPv6":	# the appliance's messages as ptp4l's host sees them
            dump_out = tempfile.TemporaryFile(mode="w+")
            dump = subprocess.Popen(["ip", "netns", "exec", tap.ns, "tcpdump", "-l", "-n", "-v", "-i", tap.tap,
                                     "ip6 and udp and src", PTP6_SRC], stdout=dump_out,
                                    stderr=subprocess.DEVNULL, text=True)
        try:
            q.expect(r"to MASTER on ANNOUNCE_RECEIPT_TIMEOUT_EXPIRES", 60)
            # No master followed: the servo reads unlocked, no offset, frequency or delay.
            q.send("ptp\r")
            q.expect(r"ptp port0: state MASTER .* servo s0 offset 0 freq \+0 path_delay 0\r\n", 20)
            q.send(f"phc_ctl port0 freq {SKEW_PPB}\r")
            q.expect(f"adjusted clock frequency offset to {SKEW_PPB} ppb", 20)
            ident = re.search(rb"ordinary clock ([0-9a-f.]+)-1", q.out).group(1).decode()
            follow(slave, ident, 16, 60)
        finally:
            slave.stop()
            if dump:
                dump.terminate()
                dump.wait(10)
        if dump:	# hop limit 1 to ff0e::181 ports 319/320, the checksum tcpdump checked;
            # UDP carries messageLength + 2 bytes (ptp4l's udp6 trailer)
            dump_out.seek(0)
            frames = dump_out.read()
            assert re.search(r"\(hlim 1, next-header UDP \(17\) payload length: 54\) fd09::1\.319 > ff0e::181\.319: "
                             r"\[udp sum ok\] PTPv2, .*msg type : sync msg, length : 44", frames), frames[-3000:]
            assert re.search(r"payload length: 74\) fd09::1\.320 > ff0e::181\.320: \[udp sum ok\] PTPv2, "
                             r".*msg type : announce msg, length : 64", frames), frames[-3000:]
            assert "bad udp cksum" not in frames, frames[-3000:]
        pts = offsets(slave.lines)[-14:]
        assert len(pts) == 14, slave.lines[-30:]
        slope, residual = fit(pts)
        assert residual < 50_000_000, pts
        # ptp4l's offset is its clock less the master's: it falls at the
        # master's rate (3.5 s of samples; ms of jitter: a few % of 2 %).
        assert -1.2 * SKEW_PPB < slope < -0.8 * SKEW_PPB, (slope, pts)
        c = ptp_counters(q)
        sent = c["tx_sync"] - c["tx_tstamp_missing"]	# a Follow_Up may still wait for its stamp
        assert c["tx_sync"] > 14 and sent - 1 <= c["tx_follow_up"] <= sent, c
        assert c["delay_req"] > 0 and c["tx_delay_resp"] == c["delay_req"], c
        assert not any("FAULTY" in line for line in slave.lines), "\n".join(slave.lines)
        if transport == "UDPv4":
            out = sh("ping", "-c", "3", "-i", "0.2", "-W", "2", "10.9.0.1", ns=tap.ns, timeout=30)
            assert "3 received" in out, out
            d = ptp_counters(q)
            assert d["echo_request"] - c["echo_request"] == 3 and d["arp_request"] >= 1, d
        if transport == "UDPv6":	# pmc -6 from ptp4l's side, answered on ff0e::181
            got, n = pmc_ask(tap, ["-6", "-i", tap.tap], "GET PARENT_DATA_SET", ident)
            assert got[:3] == (ident + "-1", "RESPONSE", "PARENT_DATA_SET"), got
            assert got[3]["grandmasterIdentity"] == ident, got
            d = ptp_counters(q)
            assert d["management"] - c["management"] == n == d["tx_management"] - c["tx_management"], d
            # The IPv6 battery's kinds that reach PTP's UDPv6 parser, to
            # ff0e::181 port 319: each bad_ip, exactly, nothing answered.
            bad = [udp6_ptp(csum=0x1234), udp6_ptp(csum=0), udp6_ptp(src="ff02::1"),
                   udp6_ptp(ulen=8 + 44 + 3), udp6_ptp(plen=0), udp6_ptp(version=4)]
            sh(sys.executable, "-c", SEND_RAW, tap.tap, *(f.hex() for f in bad), ns=tap.ns, timeout=30)
            e = wait_count(q, "bad_ip", d["bad_ip"] + len(bad))
            assert e["bad_ip"] - d["bad_ip"] == len(bad), e
            assert e["tx_delay_resp"] == d["tx_delay_resp"] and e["tx_management"] == d["tx_management"], e


# Frames (hex, argv[2:]) sent on the tap argv[1].
SEND_RAW = r"""
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
for f in sys.argv[2:]:
    s.send(bytes.fromhex(f))
"""


def udp6_ptp(src="fd09::2", plen=None, ulen=None, csum=None, version=6):
    """A Delay_Req of a foreign clock over UDPv6 to ff0e::181 port 319 as
    ptp4l -6 frames it (2 bytes after the message), its checksum right
    unless csum is given; plen, ulen, version: the fields to spoil."""
    msg = ptp_msg(1, 9)[14:] + bytes(2)
    sa, da = ipaddress.IPv6Address(src).packed, ipaddress.IPv6Address("ff0e::181").packed
    n = 8 + len(msg)
    udp = struct.pack(">HHHH", 319, 319, n if ulen is None else ulen, 0) + msg
    if csum is None:
        words = sa + da + struct.pack(">IxxxB", n, 17) + udp
        csum = sum(struct.unpack(f">{len(words) // 2}H", words))
        while csum >> 16:
            csum = (csum & 0xffff) + (csum >> 16)
        csum = ~csum & 0xffff or 0xffff
    udp = udp[:6] + struct.pack(">H", csum) + udp[8:]
    ip = struct.pack(">IHBB", version << 28, n if plen is None else plen, 17, 1) + sa + da
    return bytes.fromhex("333300000181020000000001") + b"\x86\xdd" + ip + udp


SKEW_PPB = 20_000_000	# a master clock 2 % fast: far beyond QEMU's stamping noise

RX_DROPS = ("not_ptp", "bad_ip", "too_short", "bad_version", "bad_length", "bad_tlv",
            "unsupported_type", "bad_management", "wrong_domain", "wrong_transport_specific", "from_self",
            "wrong_state", "wrong_delay_mechanism", "not_from_master", "other_master", "no_matching_sync",
            "not_our_request", "bad_timestamp", "foreign_table_full", "steps_removed_255",
            "mgmt_not_for_us", "mgmt_refused", "mgmt_unsupported_id", "mgmt_wrong_length")


def offsets(lines):
    """ptp4l's free-running sample lines: (t, offset, path delay)."""
    out = []
    for line in lines:
        m = re.search(r"ptp4l\[([\d.]+)\]: master offset\s+(-?\d+) s0 freq\s+[+-]?\d+ path delay\s+(-?\d+)",
                      line)
        if m:
            out.append((float(m.group(1)), int(m.group(2)), int(m.group(3))))
    return out


def follow(slave, ident, n, seconds):
    """A slave-only ptp4l following the clock ident: it selects ident as
    best master and goes UNCALIBRATED, then it has up to `seconds` for n
    sample lines. Returns its samples (offsets(), fewer than n if late)."""
    slave.wait_for(r"selected best master clock " + re.escape(ident), 60)
    slave.wait_for(r"LISTENING to UNCALIBRATED on RS_SLAVE", 30)
    end = time.monotonic() + seconds
    while time.monotonic() < end and len(offsets(slave.lines)) < n:
        time.sleep(0.5)
    return offsets(slave.lines)


def fit(pts):
    """Least-squares line of the offsets over time: (slope in ns/s = ppb,
    largest distance of an offset from the line)."""
    n = len(pts)
    pts = [(t, o - pts[0][1], d) for t, o, d in pts]	# exact ints before floats
    mt = sum(t for t, _, _ in pts) / n
    mo = sum(o for _, o, _ in pts) / n
    var = sum((t - mt) ** 2 for t, _, _ in pts)
    slope = sum((t - mt) * (o - mo) for t, o, _ in pts) / var
    return slope, max(abs(o - (mo + slope * (t - mt))) for t, o, _ in pts)


def rms(values):
    return (sum(v * v for v in values) / len(values)) ** 0.5


def assert_unbiased(offsets):
    """A PI servo in lock drives the mean offset to zero: over 24 samples
    the mean lies well within their spread (QEMU's stamping jitter, which
    grows with the machine's load, scales both; 0.38 of it was the most
    seen). A servo without working integral action holds a frequency error
    with a standing offset (2 % at 4 Hz with kp ~1: ~20 ms)."""
    mean = sum(offsets) / len(offsets)
    spread = rms([o - mean for o in offsets])
    assert abs(mean) < spread, (mean, spread, offsets)


def ptp_msg(msg_type, seq, dst=b"\x01\x1b\x19\x00\x00\x00", domain=0):
    """An L2 PTPv2 event/general message from a foreign clock (44-byte body
    of Sync/Delay_Req/Follow_Up shape), as ptp4l frames it."""
    src_id = bytes.fromhex("020000fffe000001")
    hdr = struct.pack(">BBHBBHq4s8sHHBb", msg_type, 2, 44, domain, 0, 0x0200 if msg_type == 0 else 0, 0,
                      b"\0" * 4, src_id, 1, seq, 0 if msg_type == 0 else 5, -2)
    body = hdr + bytes(10)
    return dst + b"\x02\x00\x00\x00\x00\x01" + struct.pack(">H", 0x88F7) + body


def wait_count(q, name, want, timeout=20, port=0):
    end = time.monotonic() + timeout
    while True:
        c = ptp_counters(q, port)
        if c[name] >= want or time.monotonic() > end:
            return c
        time.sleep(0.5)


def test_rx_latch_lockup_recovered():
    """QEMU's igb latches the RX timestamp of a PTP frame before its
    address filter: a Sync to a foreign unicast MAC is dropped after the
    latch, no later frame is stamped, until the driver sees the latch held
    across two housekeeping checks with no stamped frame, reads RXSTMPH and
    RXSATRH, and counts rx_hwtstamp_cleared."""
    with Qemu(boot="kernel", mem="256M", nics=["igb:bus=rp,netdev=stream"],
              append="app=ptp ptp_role=slave stats=0") as q:
        q.expect("port0: link up", 90)
        q.send("\r")
        q.expect(PROMPT, 30)
        port = StreamPort(q.nic_sock(0))
        # A listening slave stamps Sync; with no master selected each is
        # counted wrong_state, its timestamp counted hardware or software.
        # One at a time: the latch holds one frame's time until it is read.
        def sync(seq, dst=b"\x01\x1b\x19\x00\x00\x00", count=True):
            port.send([ptp_msg(0, seq, dst=dst)])
            return wait_count(q, "wrong_state", seq + 1) if count else None
        for i in range(3):
            c = sync(i)
        assert (c["wrong_state"], c["rx_hwtstamp"], c["rx_swtstamp"]) == (3, 3, 0), c
        sync(3, dst=b"\x02\xaa\xbb\xcc\xdd\xee", count=False)	# latches, then filtered
        time.sleep(0.3)
        for i in range(2):
            c = sync(3 + i)
        assert (c["wrong_state"], c["rx_hwtstamp"], c["rx_swtstamp"]) == (5, 3, 2), c
        q.expect(r"port0: RX timestamp latched with no frame for it; released \(rx_hwtstamp_cleared 1\)", 20)
        for i in range(3):
            c = sync(5 + i)
        assert (c["wrong_state"], c["rx_hwtstamp"], c["rx_swtstamp"]) == (8, 6, 2), c
        assert c["rx"] == 8, c	# the filtered frame never reached the app
        q.send("ethtool -S port0\r")
        assert int(q.expect(rb"rx_hwtstamp_cleared: (\d+)", 20).group(1)) == 1


def test_two_appliances_hardware_timestamps():
    """Two appliances, igb to igb over a -netdev stream pair (the second
    QEMU a client of the first's socket), both stamping in hardware: the
    slave locks (s2) to the master; no timestamp is taken in software."""
    common = "app=ptp stats=0 " + " ".join(INTERVALS)
    with Qemu(boot="kernel", mem="256M", nics=["igb:bus=rp,netdev=stream"],
              append=common + " ptp_role=master") as m:
        m.expect("port0: link up", 90)	# its stream socket listens
        # The master's clock runs 2 % fast: the slave's servo must find that
        # frequency, not the 0 two QEMU clocks would otherwise share.
        m.send("phc_ctl port0 freq fast\r")
        m.expect("phc_ctl: not a ppb value 'fast'", 20)
        m.send("phc_ctl port0 get\r")
        m.expect(r"port0: clock time is \d+\.\d{9} \(hardware clock, adjfreq 0 ppb\)", 20)
        m.send(f"phc_ctl port0 freq {SKEW_PPB}\r")
        m.expect(f"adjusted clock frequency offset to {SKEW_PPB} ppb", 20)
        # Read the master's console meanwhile: a full pipe would stop its
        # QEMU, and with it the link to the slave.
        stop = threading.Event()
        reader = threading.Thread(target=lambda: [m._read(0.2) for _ in iter(stop.is_set, True)],
                                  daemon=True)
        reader.start()
        try:
            with Qemu(boot="kernel", mem="256M",
                      nics=[f"igb:bus=rp,netdev=stream,connect={m.nic_sock(0)},mac=52:54:00:00:00:02"],
                      append=common + " ptp_role=slave") as s:
                s.expect("UNCALIBRATED to SLAVE on MASTER_CLOCK_SELECTED", 90)
                got = samples(s, 48, 60)
                cs = ptp_counters(s)
                stamps = re.findall(rb"ptp\[([^]]*)\]: port0: (\w+)", s.out)
                s.send("ethtool -S port0\r")
                mismatch = int(s.expect(rb"rx_hwtstamp_mismatch: (\d+)", 20).group(1))
        finally:
            stop.set()
            reader.join(5)
        cm = ptp_counters(m)
    assert all(st == 2 for _, st, _, _ in got), got
    # Every line in ptp4l's one stamp format, seconds.ms: state changes too.
    assert {w for _, w in stamps} >= {b"port", b"master"}, stamps
    assert all(re.fullmatch(rb"\d+\.\d{3}", t) for t, _ in stamps), stamps
    # Each QEMU stamps a frame when its model handles it: between two TCG
    # QEMUs on a busy machine that is milliseconds late, unevenly (path
    # delays of 1-7 ms, make bench); the bound only tells a lock from none.
    late = got[-24:]
    assert median_abs([o for o, _, _, _ in late]) < 100_000_000, got
    # The servo: no standing offset, and the frequency it settled on is the
    # master's 2 % (ptp4l's sign: the printed freq is the negated
    # adjustment). Its noise is about kp (~1 at 4 Hz) x the offset jitter.
    assert_unbiased([o for o, _, _, _ in late])
    freq = sum(f for _, _, f, _ in late) / len(late)
    tol = 0.25 * SKEW_PPB + rms([o for o, _, _, _ in late])
    assert abs(freq + SKEW_PPB) < tol, (freq, tol, got)
    # Event messages are stamped in hardware; the NIC holds one RX stamp at
    # a time, so when a stalled QEMU hands two Syncs (or Delay_Reqs) to its
    # model at once the second gets a software stamp.
    assert cs["rx_hwtstamp"] + cs["rx_swtstamp"] >= cs["sync"] > 16, cs
    assert mismatch == 0	# every latch's RXSATRL/H named its frame (QEMU's layout)
    assert cs["rx_swtstamp"] <= cs["sync"] // 8, cs
    assert cs["tx_swtstamp"] == 0 and cs["tx_hwtstamp"] > 0, cs
    assert cm["rx_hwtstamp"] + cm["rx_swtstamp"] == cm["delay_req"] > 0, cm
    assert cm["rx_swtstamp"] <= cm["delay_req"] // 8, cm
    assert cm["tx_swtstamp"] == 0 and cm["tx_hwtstamp"] > 16, cm


PDELAY_REQ, ANNOUNCE, SIGNALING, MANAGEMENT = 0x02, 0x0b, 0x0c, 0x0d
GET, SET, RESPONSE = 0, 1, 2


def mgmt_msg(action, mid, data=b"", length=None, tlv=True):
    """An L2 management message as pmc frames it (IEEE 1588 15.4.1): to
    every clock (targetPortIdentity all ones), boundaryHops 0, one
    MANAGEMENT TLV with managementId mid and dataField data; length
    overrides messageLength, tlv=False leaves the TLV out."""
    body = b"\xff" * 10 + bytes([0, 0, action, 0])
    if tlv:
        body += struct.pack(">HHH", 0x0001, 2 + len(data), mid) + data
    n = 34 + len(body) if length is None else length
    hdr = struct.pack(">BBHBBHq4s8sHHBb", MANAGEMENT, 2, n, 0, 0, 0, 0, b"\0" * 4,
                      bytes.fromhex("020000fffe000002"), 1, 9, 4, 0x7f)
    return b"\x01\x1b\x19\x00\x00\x00\x02\x00\x00\x00\x00\x02" + struct.pack(">H", 0x88F7) + hdr + body


def test_ptp_beside_sink_and_bad_input():
    """app=sink,ptp: port0 (e1000e, no hardware clock) counts frames, port1
    (igb) is a slave-only ordinary clock. The boot line and ethtool -T say
    which port stamps in hardware; malformed messages land in their named
    counters, nothing else moves, and the sink still counts its frames.
    Neither clock has SDP pins (only the I350/I210/I211 do, register model):
    ptp_pps and ptp_extts are refused by name on each."""
    with Qemu(boot="kernel", mem="256M", nics=["e1000e:netdev=stream", "igb:bus=rp,netdev=stream"],
              append="app=sink,ptp ptp_role=slave stats=0 ptp_pps=1 ptp_extts=2") as q:
        q.expect(r"ptp: hardware timestamps on port1 \(igb 82576 SYSTIM, PHC 1\); "
                 r"software timestamps on port0 \(e1000e\)", 60)
        q.expect(r"port0: ptp_pps/ptp_extts not set: its clock \(software\) has no SDP pins here", 20)
        q.expect(r"port1: ptp_pps/ptp_extts not set: its clock \(82576 SYSTIM\) has no SDP pins here", 20)
        q.expect("port1: link up", 90)
        q.send("\r")
        q.expect(PROMPT, 30)
        q.send("phc_ctl port1 pins\r")
        q.expect(r"port1: no pins \(82576 SYSTIM clock; SDP pins on the I350, I210 and I211 only\)", 20)
        q.send("phc_ctl port1 pins 2\r")
        q.expect(r"phc_ctl: pins takes nothing after it, not '2'", 20)
        q.send("ethtool -T port0\r")
        q.expect(r"PTP Hardware Clock: none", 20)
        q.send("ethtool -T port1\r")
        q.expect(r"PTP Hardware Clock: 1 \(82576 SYSTIM", 20)
        q.expect(r"In use: tx on, rx ptpv2-event", 20)
        sink, ptp = StreamPort(q.nic_sock(0)), StreamPort(q.nic_sock(1))
        good = ptp_msg(0, 1)
        bad = {
            # an Announce (64 bytes) cut at 46: frames shorter than 60 bytes are padded
            "too_short": good[:14] + bytes([ANNOUNCE]) + good[15:16] + struct.pack(">H", 64) + good[18:],
            "bad_version": good[:15] + bytes([1]) + good[16:],
            "bad_length": good[:16] + struct.pack(">H", 200) + good[18:],
            "unsupported_type": good[:14] + bytes([SIGNALING]) + good[15:],
            "wrong_delay_mechanism": good[:14] + bytes([PDELAY_REQ]) + good[15:16] + struct.pack(">H", 54) +
            good[18:] + bytes(10),
            "wrong_domain": ptp_msg(0, 2, domain=7),
            "not_ptp": good[:12] + struct.pack(">H", 0x88b5) + good[14:],
            # an Announce 255 steps from its grandmaster (IEEE 1588 9.3.2.5: not considered)
            "steps_removed_255": good[:14] + bytes([ANNOUNCE]) + good[15:16] + struct.pack(">H", 64) +
            good[18:46] + bytes([5, 0]) + bytes(10) + struct.pack(">hxBBBHB8sHB", 37, 128, 248, 0xfe, 0xffff,
                                                                  128, bytes.fromhex("020000fffe000001"), 255, 0xa0),
            # an 802.1AS (transportSpecific 1) Sync to a 1588 clock
            "wrong_transport_specific": good[:14] + bytes([0x10 | good[14]]) + good[15:],
            # management (answered with MANAGEMENT_ERROR_STATUS where it asks something)
            "bad_management": mgmt_msg(GET, 0x2001, tlv=False),
            "bad_tlv": mgmt_msg(GET, 0x2001, bytes(18), length=34 + 14 + 4 + 10),
            "mgmt_wrong_length": mgmt_msg(GET, 0x2001, bytes(4)),	# CURRENT_DATA_SET holds 18
            "mgmt_refused": mgmt_msg(SET, 0x2005, bytes([10, 0])),	# SET PRIORITY1 10
            "mgmt_unsupported_id": mgmt_msg(GET, 0x2003),	# TIME_PROPERTIES_DATA_SET
            "mgmt_not_for_us": mgmt_msg(RESPONSE, 0x2001, bytes(18)),
        }
        for frame in bad.values():
            ptp.send([frame])
        # a Sync with an unknown TLV after its body: counted, skipped, the message used
        tlv = struct.pack(">HH", 0x7ff0, 2) + b"\xaa\xbb"
        with_tlv = good[:16] + struct.pack(">H", 44 + len(tlv)) + good[18:] + tlv
        ptp.send([with_tlv])
        sink.send([b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x09" + b"\x88\xb5" + bytes(46)] * 5)
        c = wait_count(q, "rx", len(bad) + 1, port=1)
        for name in bad:
            assert c[name] == 1, (name, c)
        assert c["wrong_state"] == 1 and c["unknown_tlv"] == 1, c	# the TLV Sync, listening
        assert c["rx"] == len(bad) + 1 and c["announce"] == c["other_master"] == 0, c
        assert c["tx_management_error"] == 3 and c["tx_management"] == c["management"] == 0, c
        # port0's frames come through their own socket: QEMU may hand them
        # over after port1's, so the count is read until it is there.
        end = time.monotonic() + 20
        while "sink port0 q0: 5 packets" not in (out := q.shell("sink")) and time.monotonic() < end:
            time.sleep(0.5)
        assert "sink port0 q0: 5 packets" in out, (out, q.shell("ethtool -S port0"))


MGMT_GETS = ["DEFAULT_DATA_SET", "CURRENT_DATA_SET", "PARENT_DATA_SET", "TIME_STATUS_NP", "PORT_DATA_SET"]


def parse_pmc(out):
    """pmc's answers: [(source port identity, action, TLV name, {field: value})]."""
    answers = []
    for line in out.splitlines():
        m = re.match(r"\t(\S+) seq \d+ (\w+) (MANAGEMENT_ERROR_STATUS|MANAGEMENT (\w+))", line)
        if m:
            answers.append((m.group(1), m.group(2), m.group(4) or m.group(3), {}))
        elif line.startswith("\t\t") and answers:
            parts = line.split(None, 1)
            answers[-1][3][parts[0]] = parts[1].strip() if len(parts) > 1 else ""
    return answers


def pmc_run(peer, flags, command):
    """pmc's output for one batch command. pmc exits 100 ms after the last
    PTP message its socket hears, and on a link busy with Sync and Pdelay
    that can be never (a CI run timed out after 30 s holding the answer):
    what it printed in 10 s then (it flushes after each message)."""
    full = ["ip", "netns", "exec", peer.ns, "pmc", *flags, "-b", "0", command]
    try:
        return subprocess.run(full, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=10).stdout.decode()
    except subprocess.TimeoutExpired as e:
        return (e.output or b"").decode()


def pmc_ask(peer, flags, command, source, tries=5):
    """Ask with pmc until the clock `source` answers (pmc waits 100 ms for
    an answer in batch mode; QEMU under TCG can take longer): its answer,
    and how many requests went out."""
    for n in range(1, tries + 1):
        out = pmc_run(peer, flags, command)
        got = [a for a in parse_pmc(out) if a[0].startswith(source)]
        if got:
            return got[0], n
    raise AssertionError(f"pmc {command}: no answer from {source} in {tries} tries: {out}")


def test_pmc_management_peer_delay(tap):
    """Management and the peer delay mechanism against linuxptp, in one
    boot: the appliance (delay_mechanism=P2P) follows a ptp4l -2 -P master
    through the link delay it measures with its Pdelay_Req, and answers
    ptp4l's Pdelay_Req with Pdelay_Resp and Pdelay_Resp_Follow_Up, from
    which ptp4l measures the link. linuxptp's pmc asks the appliance (pmc
    -2 -b 0 from the master's namespace) what ptp4l answers through its
    UNIX socket for itself: every field ptp4l reports is there, the
    appliance's parent, grandmaster and stepsRemoved are ptp4l's clock
    (IEEE 1588 15.5.3), both report delayMechanism 2 and a link delay,
    and a SET from the network is refused with MANAGEMENT_ERROR_STATUS
    NOT_SUPPORTED, as ptp4l refuses it. Every request ends in one counter
    and gets one answer; no Delay_Req is sent."""
    # tx_timestamp_timeout=100: the default 10 ms is ptp4l's, for silicon; QEMU under TCG on a loaded
    # two-core machine can leave the guest unscheduled longer than that between a send and its stamp.
    append = ["app=ptp", "stats=0", "ptp_role=auto", "delay_mechanism=P2P", "logMinPdelayReqInterval=-2",
              "tx_timestamp_timeout=100"]
    uds = f"/tmp/lr-ptp4l-{os.getpid()}"
    with Qemu(boot="kernel", mem="256M", nics=[f"igb:bus=rp,netdev=tap,ifname={tap.tap}"],
              append=" ".join(append + INTERVALS)) as q:
        q.expect(r"ordinary clock [0-9a-f.]+-1, role auto, L2, P2P", 60)
        q.expect("port0: link up", 90)
        ident = re.search(rb"ordinary clock ([0-9a-f.]+)-1", q.out).group(1).decode()
        tap.wire()
        master = Ptp4l(tap, "-2", "-P", "--priority1", "1", "--logMinPdelayReqInterval", "-2",
                       "--uds_address", uds)
        try:
            q.expect(r"UNCALIBRATED to SLAVE on MASTER_CLOCK_SELECTED", 90)
            s = samples(q, 8, 30)
            with q.pumping():
                own = {name: pmc_ask(tap, ["-u", "-s", uds], "GET " + name, "")[0] for name in MGMT_GETS}
                sent, got = 0, {}
                for name in MGMT_GETS:
                    got[name], n = pmc_ask(tap, ["-2", "-i", tap.tap], "GET " + name, ident)
                    sent += n
                refused, nset = pmc_ask(tap, ["-2", "-i", tap.tap], "SET PRIORITY1 10", ident)
        finally:
            master.stop()
            if os.path.exists(uds):
                os.unlink(uds)
        c = ptp_counters(q)
    assert all(state == 2 for _, state, _, _ in s), s
    # QEMU's stamping noise (ms, see test_ptp4l_interop): the bounds tell a lock from none.
    assert median_abs([o for o, _, _, _ in s]) < 50_000_000, s
    # The link delay under TCG: ms of stamping noise (a sample of 10.1 ms seen on a loaded host).
    assert all(abs(d) < 30_000_000 for _, _, _, d in s), s
    gm = own["DEFAULT_DATA_SET"][3]["clockIdentity"]
    for name in MGMT_GETS:
        src, action, tlv, fields = got[name]
        assert (src, action, tlv) == (ident + "-1", "RESPONSE", name), got[name]
        assert list(fields) == list(own[name][3]), (name, fields, own[name])	# ptp4l's fields, in its order
    d = got["DEFAULT_DATA_SET"][3]
    assert (d["clockIdentity"], d["priority1"], d["numberPorts"], d["twoStepFlag"], d["domainNumber"]) == \
        (ident, "128", "1", "1", "0"), d
    assert d["clockClass"] == own["DEFAULT_DATA_SET"][3]["clockClass"] == "248", d
    p, theirs = got["PARENT_DATA_SET"][3], own["PARENT_DATA_SET"][3]
    assert p["parentPortIdentity"] == own["PORT_DATA_SET"][3]["portIdentity"] == gm + "-1", p
    for f in ("grandmasterIdentity", "grandmasterPriority1", "gm.ClockClass", "gm.ClockAccuracy",
              "gm.OffsetScaledLogVariance", "grandmasterPriority2", "observedParentClockPhaseChangeRate"):
        assert p[f] == theirs[f], (f, p, theirs)
    assert int(got["CURRENT_DATA_SET"][3]["stepsRemoved"]) == int(own["CURRENT_DATA_SET"][3]["stepsRemoved"]) + 1
    t = got["TIME_STATUS_NP"][3]
    assert (t["gmPresent"], t["gmIdentity"]) == ("true", gm), t
    assert int(t["ingress_time"]) > 0, t
    o, theirs = got["PORT_DATA_SET"][3], own["PORT_DATA_SET"][3]
    assert (o["portIdentity"], o["portState"], theirs["portState"]) == (ident + "-1", "SLAVE", "MASTER"), o
    for f in ("logAnnounceInterval", "announceReceiptTimeout", "logSyncInterval", "delayMechanism",
              "versionNumber", "logMinDelayReqInterval", "logMinPdelayReqInterval"):
        assert o[f] == theirs[f], (f, o, theirs)
    # ptp4l measured the link from the appliance's answers; the appliance from ptp4l's.
    assert o["delayMechanism"] == "2" and int(o["peerMeanPathDelay"]) != 0 != int(theirs["peerMeanPathDelay"]), \
        (o, theirs)
    assert refused[1:3] == ("RESPONSE", "MANAGEMENT_ERROR_STATUS"), refused
    assert c["management"] + c["mgmt_refused"] == sent + nset, (c, sent, nset)
    assert c["mgmt_refused"] == nset and c["tx_management_error"] == nset, c
    assert c["tx_management"] == c["management"] == sent, c
    assert c["pdelay_req"] > 8 and c["pdelay_samples"] > 8, c
    # every request answered; a Follow_Up may still wait for its stamp
    assert c["tx_pdelay_resp"] == c["pdelay_req"], c
    assert c["pdelay_req"] - 1 <= c["tx_pdelay_resp_follow_up"] <= c["pdelay_req"], c
    assert c["pdelay_resp"] >= c["pdelay_samples"] and c["tx_pdelay_req"] >= c["pdelay_resp"], c
    assert c["tx_delay_req"] == c["delay_resp"] == c["multiple_peers"] == c["tx_tstamp_missing"] == 0, c
    used = ("sync", "follow_up", "announce", "management", "pdelay_req", "pdelay_resp", "pdelay_resp_follow_up")
    assert c["rx"] == sum(c[k] for k in used) + sum(c[k] for k in RX_DROPS), c


# The 802.1AS profile as both gPTP tests run it: ptp4l with linuxptp's
# gPTP.cfg and the appliance's knobs for the same, neighborPropDelayThresh
# raised on both sides (QEMU's stamps are milliseconds late, gPTP.cfg's
# 800 ns is for hardware), Pdelay_Req every 250 ms.
GPTP_PTP4L = ["-f", "/usr/share/doc/linuxptp/configs/gPTP.cfg", "--neighborPropDelayThresh", "100000000",
              "--logMinPdelayReqInterval", "-2"]
GPTP_KNOBS = ["app=ptp", "stats=0", "transportSpecific=1", "delay_mechanism=P2P", "logMinPdelayReqInterval=-2",
              "neighborPropDelayThresh=100000000", "tx_timestamp_timeout=100"] + INTERVALS


def test_ptp4l_gptp(tap):
    """The 802.1AS profile (transportSpecific 1, L2 to 01:80:C2:00:00:0E,
    peer delay, the follow-up information TLV, asCapable) against ptp4l
    with linuxptp's gPTP.cfg: the appliance, master, sends no Sync or
    Announce while it has no neighbour (not asCapable); once a gPTP ptp4l
    slave answers its Pdelay_Req it does, and ptp4l follows it, which it
    would not without the follow-up information TLV in each Follow_Up.
    (The appliance as slave of a P2P master: test_ptp4l_peer_delay.)"""
    with Qemu(boot="kernel", mem="256M", nics=[f"igb:bus=rp,netdev=tap,ifname={tap.tap}"],
              append=" ".join(GPTP_KNOBS + ["ptp_role=master"])) as q:
        q.expect("port0: link up", 90)
        ident = re.search(rb"ordinary clock ([0-9a-f.]+)-1", q.out).group(1).decode()
        q.expect(r"to MASTER on ANNOUNCE_RECEIPT_TIMEOUT_EXPIRES", 60)
        c = wait_count(q, "tx_pdelay_req", 4)
        # nobody answers: not asCapable
        assert c["tx_pdelay_req"] >= 4 and c["tx_sync"] == c["tx_announce"] == c["pdelay_samples"] == 0, c
        tap.wire()
        slave = Ptp4l(tap, *GPTP_PTP4L, "-s", "--summary_interval", "-2")
        try:
            # a sample every 2 s; 2 in 30 s seen once at load 9-12 (QEMU starved)
            follow(slave, ident, 4, 60)
        finally:
            slave.stop()
        d = ptp_counters(q)
        q.send("ptp\r")
        q.expect(r"ptp port0: peer measured neighbor_delay -?\d+ asCapable 1\r\n", 20)
    # ptp4l (gPTP.cfg, free running) prints a sample every 2 s here
    assert len(offsets(slave.lines)) >= 4, slave.lines[-30:]
    assert not any("FAULTY" in line for line in slave.lines), "\n".join(slave.lines)
    # A stamp QEMU gives later than tx_timestamp_timeout on a loaded host is
    # counted missing and its (Resp_)Follow_Up not sent: 1 seen in CI, 8 of
    # some 60 beside five helpers at load 7; a quarter bounds the host's
    # share, a TX stamp path that failed would miss them all.
    miss = d["tx_tstamp_missing"]
    assert miss <= (d["tx_sync"] + d["tx_pdelay_resp"]) // 4, d
    assert d["tx_pdelay_resp_follow_up"] >= d["tx_pdelay_resp"] - 1 - miss, d
    assert d["tx_follow_up"] > 8 and d["pdelay_samples"] > 4 and d["tx_pdelay_resp"] == d["pdelay_req"] > 4, d
    assert d["wrong_transport_specific"] == d["unknown_tlv"] == d["multiple_peers"] == 0, d


def test_boundary_clock():
    """app=ptp on two igb ports is one boundary clock (IEEE 1588 10.1, as
    ptp4l with two interfaces): one clockIdentity, ports 1 and 2. A ptp4l
    master (priority1 1) on port0's tap wins the state decision over both
    ports: port0 SLAVE, port1 MASTER (M3). A slave-only ptp4l on port1's
    tap, in another namespace, follows the appliance: it selects the
    ptp4l master's clock as grandmaster (the Announce carries it), two
    steps away, the appliance's port 2 its parent, and the time port1
    serves is port0's, steered to the master's: both ptp4l run on this
    machine's clock, so the slave's offsets are QEMU's stamping noise, not
    the appliance's boot time. port1's own clock is set 2 % fast
    (phc_ctl): its stamps are converted to port0's clock through the TSC,
    so the slave sees no such rate. pmc asked over port1 reports
    numberPorts 2. Every frame ends in one counter."""
    if os.geteuid() != 0:
        pytest.fail("this test needs root for network namespaces and tap devices")
    up, down = TapPeer("bcm"), TapPeer("bcs")
    uds_m, uds_s = f"/tmp/lr-ptp4l-bcm-{os.getpid()}", f"/tmp/lr-ptp4l-bcs-{os.getpid()}"
    # Announce every 0.5 s: the two qualifications and the timeout come sooner.
    append = ["app=ptp", "stats=0", "ptp_role=auto", "tx_timestamp_timeout=100", "logAnnounceInterval=-1"] + \
        [i for i in INTERVALS if not i.startswith("logAnnounceInterval")]
    fast = ["--logAnnounceInterval", "-1"]
    try:
        with Qemu(boot="kernel", mem="256M", nics=[f"igb:bus=rp,netdev=tap,ifname={up.tap}",
                                                   f"igb:bus=rp,netdev=tap,ifname={down.tap}"],
                  append=" ".join(append)) as q:
            ident = q.expect(rb"port0: boundary clock ([0-9a-f.]+)-1, role auto, L2, E2E", 60).group(1).decode()
            q.expect(rf"port1: boundary clock {re.escape(ident)}-2, role auto", 60)
            up.wire()
            down.wire()
            master = Ptp4l(up, "-2", "--priority1", "1", "--uds_address", uds_m, *fast)
            try:
                gm = q.expect(rb"port0: selected best master clock ([0-9a-f.]+)\r\n", 60).group(1).decode()
                q.expect(r"port0: port 1: UNCALIBRATED to SLAVE on MASTER_CLOCK_SELECTED", 90)
                q.send("ptp\r")
                q.expect(rf"ptp: boundary clock {re.escape(ident)} ports 2 slave port0 parent "
                         rf"{re.escape(gm)}-1 grandmaster {re.escape(gm)} stepsRemoved 1\r\n", 20)
                q.expect(r"ptp port1: state MASTER ", 20)
                q.send(f"phc_ctl port1 freq {SKEW_PPB}\r")
                q.expect(f"adjusted clock frequency offset to {SKEW_PPB} ppb", 20)
                slave = Ptp4l(down, "-2", "-s", "--summary_interval", "-2", "--uds_address", uds_s, *fast)
                try:
                    follow(slave, gm, 7, 60)	# free running, ptp4l prints a sample every 2 s
                    with q.pumping():
                        cur, _ = pmc_ask(down, ["-u", "-s", uds_s], "GET CURRENT_DATA_SET", "")
                        par, _ = pmc_ask(down, ["-u", "-s", uds_s], "GET PARENT_DATA_SET", "")
                        dflt, nget = pmc_ask(down, ["-2", "-i", down.tap], "GET DEFAULT_DATA_SET", ident)
                finally:
                    slave.stop()
                c0, c1 = ptp_counters(q, 0), ptp_counters(q, 1)
            finally:
                master.stop()
    finally:
        up.close()
        down.close()
        for path in (uds_m, uds_s):
            if os.path.exists(path):
                os.unlink(path)
    assert cur[3]["stepsRemoved"] == "2", cur
    assert (par[3]["parentPortIdentity"], par[3]["grandmasterIdentity"]) == (ident + "-2", gm), par
    assert (dflt[0], dflt[3]["numberPorts"], dflt[3]["clockIdentity"]) == (ident + "-2", "2", ident), dflt
    pts = offsets(slave.lines)[-6:]
    assert len(pts) == 6, slave.lines[-30:]
    # The master's time, through two QEMU-stamped hops (ms late, unevenly):
    # the bound tells the grandmaster's time from any other (the appliance
    # booted at 0, decades away).
    assert median_abs([o for _, o, _ in pts]) < 50_000_000, pts
    slope, _ = fit(pts)
    assert abs(slope) < 0.5 * SKEW_PPB, (slope, pts)	# port1's 2 % is not served
    assert not any("FAULTY" in line for line in slave.lines), "\n".join(slave.lines)
    # port0, slave of the ptp4l master
    assert c0["sync"] > 12 and c0["follow_up"] > 12 and c0["delay_resp"] > 0, c0
    assert c0["delay_req"] == c0["management"] == 0, c0	# (it was master before ptp4l came: tx_sync)
    assert c0["rx"] == c0["sync"] + c0["follow_up"] + c0["delay_resp"] + c0["announce"] + \
        sum(c0[k] for k in RX_DROPS), c0
    # port1, master of the ptp4l slave (slave-only: no Announce), asked by pmc
    assert c1["announce"] == c1["sync"] == c1["delay_resp"] == 0, c1
    assert c1["tx_announce"] > 0 and c1["tx_sync"] > 14 and c1["delay_req"] > 0, c1
    assert c1["tx_delay_resp"] == c1["delay_req"] and c1["management"] == c1["tx_management"] == nget, c1
    sent = c1["tx_sync"] - c1["tx_tstamp_missing"]	# a Follow_Up may still wait for its stamp
    assert sent - 1 <= c1["tx_follow_up"] <= sent, c1
    assert c1["rx"] == c1["delay_req"] + c1["management"] + sum(c1[k] for k in RX_DROPS), c1


def test_gptp_boundary_clock():
    """802.1AS over two ports (a time-aware relay, as ptp4l with gPTP.cfg
    and two interfaces): app=ptp on two igb ports with
    transportSpecific=1 and P2P. A gPTP ptp4l master (priority1 1) on
    port0's tap: port0 SLAVE, port1 MASTER; each port measures its link
    (asCapable 1), so port1 sends Sync with the follow-up information TLV
    and Announce, and a gPTP ptp4l slave on port1's tap follows the
    grandmaster through the appliance. Every frame ends in one counter."""
    if os.geteuid() != 0:
        pytest.fail("this test needs root for network namespaces and tap devices")
    up, down = TapPeer("gbm"), TapPeer("gbs")
    try:
        with Qemu(boot="kernel", mem="256M", nics=[f"igb:bus=rp,netdev=tap,ifname={up.tap}",
                                                   f"igb:bus=rp,netdev=tap,ifname={down.tap}"],
                  append=" ".join(GPTP_KNOBS)) as q:
            ident = q.expect(rb"port0: boundary clock ([0-9a-f.]+)-1, role auto, L2, P2P", 60).group(1).decode()
            q.expect("port1: link up", 90)
            up.wire()
            down.wire()
            master = Ptp4l(up, *GPTP_PTP4L, "--priority1", "1")
            try:
                gm = q.expect(rb"port0: selected best master clock ([0-9a-f.]+)\r\n", 60).group(1).decode()
                q.expect(r"port0: port 1: UNCALIBRATED to SLAVE", 90)
                slave = Ptp4l(down, *GPTP_PTP4L, "-s", "--summary_interval", "-2")
                try:
                    follow(slave, gm, 5, 60)
                finally:
                    slave.stop()
                out = q.shell("ptp")
                c0, c1 = ptp_counters(q, 0), ptp_counters(q, 1)
            finally:
                master.stop()
    finally:
        up.close()
        down.close()
    assert f"ptp: boundary clock {ident} ports 2 slave port0 parent {gm}-1 grandmaster {gm} stepsRemoved 1" in out, out
    assert re.search(rf"ptp port1: state MASTER clock {re.escape(ident)}-2 ", out), out
    assert len(re.findall(r"ptp port\d: peer measured neighbor_delay -?\d+ asCapable 1\r\n", out)) == 2, out
    pts = offsets(slave.lines)
    assert len(pts) >= 5, slave.lines[-30:]
    # The grandmaster's time through two QEMU-stamped hops, port0's servo
    # maybe still settling (medians of 2-200 ms seen): the bound tells it
    # from any other time (the appliance booted at 0, decades away).
    assert median_abs([o for _, o, _ in pts[-4:]]) < 1_000_000_000, pts
    assert not any("FAULTY" in line for line in slave.lines), "\n".join(slave.lines)
    pdelay = ("pdelay_req", "pdelay_resp", "pdelay_resp_follow_up")
    assert c0["sync"] > 8 and c0["follow_up"] > 8 and c0["pdelay_samples"] > 4, c0
    assert c1["tx_sync"] > 8 and c1["tx_sync"] - 1 <= c1["tx_follow_up"] <= c1["tx_sync"], c1
    assert c1["tx_announce"] > 0 and c1["pdelay_samples"] > 4 and c1["tx_pdelay_resp"] == c1["pdelay_req"], c1
    for c in (c0, c1):
        assert c["wrong_transport_specific"] == c["multiple_peers"] == 0 and c["tx_tstamp_missing"] <= 1, c
        assert c["rx"] == sum(c[k] for k in ("sync", "follow_up", "announce") + pdelay) + \
            sum(c[k] for k in RX_DROPS), c


# Run in a namespace: print "type seq correction_ns" for the first n
# Follow_Up (8) and n Delay_Resp (9) messages received on the tap (L2).
CAPTURE = r"""
import socket, struct, sys, time
tap, n, end = sys.argv[1], int(sys.argv[2]), time.monotonic() + float(sys.argv[3])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x88F7))
s.bind((tap, 0))
s.settimeout(1)
got = {int(t): 0 for t in sys.argv[4].split(",")}
while min(got.values()) < n and time.monotonic() < end:
    try:
        f, addr = s.recvfrom(2048)
    except socket.timeout:
        continue
    if addr[2] == socket.PACKET_OUTGOING or len(f) < 48:
        continue
    t = f[14] & 0x0f
    if t in got and got[t] < n:
        got[t] += 1
        print(t, struct.unpack(">H", f[44:46])[0], struct.unpack(">q", f[22:30])[0] / 65536, flush=True)
"""


def fwd_counters(q):
    """`fwd` command: {port: {name: int}}, each port's frame counters and
    its transparent-clock counters (ptp_tc) in one dict."""
    out, got = q.shell("fwd"), {}
    for port, line in re.findall(r"fwd port(\d+)(?::| ptp_tc \w+:)([^\r\n]*)", out):
        got.setdefault(int(port), {}).update((k, int(v)) for k, v in re.findall(r"(\w+) (\d+)", line))
    return got


@pytest.mark.parametrize("mode", ["e2e", "p2p"])
def test_transparent_clock(mode):
    """fwd with ptp_tc=e2e (p2p) between two igb ports is an end-to-end
    (peer-to-peer) transparent clock (IEEE 1588 11.5) between a ptp4l
    master on port0's tap and a slave-only ptp4l on port1's, each in its
    own namespace: the slave follows the master through it; the master's
    two-step Syncs get their residence time (port0's hardware RX stamp,
    mapped to port1's clock, to port1's hardware TX stamp) in their
    Follow_Up. e2e: the slave's Delay_Req gets its residence in place (to
    the TSC before port0's TX ring), which the master copies into its
    Delay_Resp, and the Delay_Resp coming back gets the Delay_Req's wait
    in the ring (port0's hardware TX stamp): the slave sees both
    corrections nonzero and below the largest residence the appliance
    reports; fwd forwards every frame. p2p (both ptp4l -P): each port
    answers its neighbour's Pdelay_Req and measures its link with its own;
    no Pdelay message is forwarded (fwd counts them local); the Follow_Ups
    carry residence plus port0's link delay."""
    if os.geteuid() != 0:
        pytest.fail("this test needs root for network namespaces and tap devices")
    up, down = TapPeer("tcm"), TapPeer("tcs")
    append = ["app=fwd", "pairs=0-1", f"ptp_tc={mode}", "stats=0", "tx_timestamp_timeout=100"]
    fast = ["--logAnnounceInterval", "-1"]
    fast_m = fast_s = fast
    if mode == "p2p":
        append.append("logMinPdelayReqInterval=-2")
        # ptp4l forgets its open Pdelay_Req on entering UNCALIBRATED, and
        # an answer that comes after is "rogue" (FAULTY): the slave's first
        # request, 2 s after start, goes after it selects the master (two
        # Announces, 0.5 s apart).
        fast_m = fast + ["-P", "--logMinPdelayReqInterval", "-2"]
        fast_s = fast + ["-P", "--logMinPdelayReqInterval", "1"]
    kind = {"e2e": "end-to-end", "p2p": "peer-to-peer"}[mode]
    try:
        with Qemu(boot="kernel", mem="256M", nics=[f"igb:bus=rp,netdev=tap,ifname={up.tap}",
                                                   f"igb:bus=rp,netdev=tap,ifname={down.tap}"],
                  append=" ".join(append)) as q:
            q.expect(rf"fwd: L2 cross-connect \(io\) on 2 port\(s\), {kind} transparent clock \(ptp_tc={mode}\)",
                     60)
            q.expect("port1: link up", 90)
            up.wire()
            down.wire()
            master = Ptp4l(up, "-2", "--priority1", "1", *fast_m)
            slave = None
            try:
                master.wait_for(r"assuming the grand master role", 60)
                gm = re.search(r"selected local clock (\S+) as best master",
                               "\n".join(master.lines)).group(1)
                slave = Ptp4l(down, "-2", "-s", "--summary_interval", "-2", *fast_s)
                with q.pumping():
                    pts = follow(slave, gm, 5, 40)
                    cap = subprocess.run(["ip", "netns", "exec", down.ns, "/usr/bin/python3", "-c", CAPTURE,
                                          down.tap, "4", "15", "8,9" if mode == "e2e" else "8"],
                                         capture_output=True, text=True, timeout=30)
            finally:
                if slave:
                    slave.stop()
                    # the master answers the Delay_Reqs the slave sent before it stopped: on a loaded
                    # host QEMU may hold them a second or more (CI: 46 answers to 48 when it did not wait)
                    end = time.monotonic() + 10
                    while mode == "e2e" and time.monotonic() < end:
                        c = fwd_counters(q)
                        if c[0]["delay_resp"] >= c[1]["delay_req"] - 1:
                            break
                        time.sleep(0.5)
                master.stop()
            c = fwd_counters(q)
            boot = q.text()
    finally:
        up.close()
        down.close()
    # QEMU's 82576 stamps L2 Syncs alone, behind a latch: the TC tests each
    # frame there, never goes by the descriptor's bit (phc_rx_each_event)
    assert "descriptors' timestamp bit" not in boot
    assert len(pts) >= 5, slave.lines[-30:]
    assert not any("FAULTY" in line for line in slave.lines), "\n".join(slave.lines)
    # Both ptp4l run on this machine's clock: the offsets are the path's
    # stamping noise (QEMU's model, TCG), not a clock difference.
    assert median_abs([o for _, o, _ in pts[-4:]]) < 50_000_000, pts
    seen = [tuple(float(x) for x in line.split()) for line in cap.stdout.split("\n") if line]
    fups = [c for t, _, c in seen if t == 8]
    resps = [c for t, _, c in seen if t == 9]
    assert len(fups) == 4 and len(resps) == (4 if mode == "e2e" else 0), (cap.stdout, cap.stderr)
    c0, c1 = c[0], c[1]
    top = max(c0["residence_max_ns"], c1["residence_max_ns"])
    # p2p: plus port0's link delay, a median of software-stamped exchanges
    # (ms under TCG: bounded as the offsets are).
    assert all(0 < c <= top + (50_000_000 if mode == "p2p" else 0) for c in fups + resps), (seen, c0, c1)
    # port0 (the master's side): two-step Syncs (hardware stamped on the
    # way in and out) into their Follow_Ups, none of them missing its TX
    # stamp; e2e: the Delay_Resps given their Delay_Req's wait in port0's
    # TX ring (its hardware TX stamp); port1 (the slave's): e2e Delay_Req
    # in place, p2p none.
    assert c0["follow_up"] > 8 and c0["rx_hwtstamp"] > 8 and c0["no_sync"] <= 1, c0
    # the last Delay_Req's stamp may be taken with its Delay_Resp still on the way (98 = 53 + 44 + 1 in CI)
    assert 0 <= c0["tx_hwtstamp"] - c0["follow_up"] - c0["delay_resp"] <= 1, c0
    assert c0["tx_tstamp_missing"] == c0["tx_swtstamp"] == 0, c0
    # the Follow_Ups came within 1 s of their Syncs, the Delay_Resps of
    # their Delay_Reqs: no wait given up but, as a ptp4l stopped, the last
    assert c0["no_follow_up"] <= 1 and c0["no_delay_resp"] <= 1, c0
    assert c1["follow_up"] == c1["sync"] == c1["tx_hwtstamp"] == 0, c1
    for p in c.values():
        assert p["overflow"] == p["negative_residence"] == p["bad_ptp"] == 0, c
    # A residence under TCG is as long as the host keeps QEMU off a CPU (167 ms
    # once at load 10); a wrong time base would give seconds or more.
    for p in (c0, c1) if mode == "e2e" else (c0,):	# p2p: port1 corrects nothing
        assert 0 < p["residence_mean_ns"] <= p["residence_max_ns"] < 1_000_000_000, c
    if mode == "e2e":
        assert c1["delay_req"] > 4 and c1["tx_swtstamp"] == c1["delay_req"], c1
        assert c0["delay_resp"] >= c1["delay_req"] - 1, (c0, c1)	# the last answer may be on its way
        for p in c.values():	# every frame forwarded
            assert p["rx"] == p["forwarded"] > 0 and p["local"] == 0, c
        return
    # p2p: each port measured its link and answered its neighbour's
    # requests; the slave's path delay is its link to port1.
    assert c1["delay_req"] == 0, c1
    for p in c.values():
        assert p["pdelay_samples"] > 0 and p["tx_pdelay_resp"] > 0 and p["peer_delay_ns"] > 0, c
        # refused: an answer that came after the port's next Pdelay_Req
        # (250 ms on), its exchange given up (11.4; 2 and 6 of ~180 seen
        # on a host loaded by the hour soak, QEMU starved for 0.3-1 s)
        assert p["local"] == p["pdelay"] + p["pdelay_refused"] > 0 and p["pdelay_refused"] <= p["pdelay"] // 8, c
        assert p["rx"] == p["forwarded"] + p["local"], c	# port1: a slave-only ptp4l -P sends only Pdelay
    assert c0["forwarded"] > 0 and c0["no_peer_delay"] <= 1, c0
    assert pts[-1][2] > 0, pts
