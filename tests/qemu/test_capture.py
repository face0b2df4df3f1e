"""Packet capture (issue 28) in QEMU: two e1000e ports forwarding to each
other at L2 (app=fwd pairs=0-1); the console's `capture` of port1 sees
the frames sent into port0 as port1's TX and those sent into port1 as its
RX. Its text2pcap dump becomes a pcapng that tshark reads without a warning,
whose frames equal those sent, byte for byte, with their directions; a
filter from tcpdump -ddd keeps exactly the frames it names; summary lines
read like tcpdump -q -n's. QEMU's own filter-dump on port1's netdev is
the independent record of what that wire carried."""
import os
import re
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
sys.path.insert(0, os.path.dirname(__file__))
from capcheck import tshark  # noqa: E402
from netio import StreamPort, frame  # noqa: E402
from qemurun import Qemu  # noqa: E402

PROMPT = "linerate> "
DONE = r"capture: port1: (\d+) frames printed; seen (\d+), filtered (\d+), kept (\d+), dropped (\d+) \(ring full\)\r?\n"


@pytest.fixture
def box(tmp_path):
    wire = tmp_path / "wire1.pcap"   # QEMU's filter-dump of port1's netdev (n1): both directions
    q = Qemu(boot="kernel", mem="256M", nics=["e1000e:netdev=stream"] * 2,
             append="stats=0 promisc=1 app=fwd pairs=0-1",
             extra=["-object", f"filter-dump,id=wire1,netdev=n1,file={wire}"])
    q.wire = wire
    try:
        q.expect(r"port1: link up", 90)
        q.send("\r")
        q.expect(PROMPT, 30)
        p = [StreamPort(q.nic_sock(i)) for i in (0, 1)]
        yield q, p
        for s in p:
            s.close()
    finally:
        q.stop()


def forward(p, into, frames):
    """Send frames into port `into`; return what came out of the other port.
    Sent from a thread while the other port is read: a burst larger than the
    sockets hold would otherwise block QEMU's stream netdev on the unread
    port, and with it the guest and our send."""
    t = p[into].send_background(frames)
    got = p[1 - into].recv(len(frames), timeout=30)
    t.join(timeout=60)
    assert not t.is_alive()
    assert got == frames
    return got


def start(q, line):
    """Start a console capture; the prompt stays away until it ends."""
    q.send(line + "\r")
    q.expect(re.escape(line) + r"\r\n", 30)


def finish(q, n):
    """The text the capture printed until its count line; the counts."""
    m = q.expect(r"(?s)(.*?)" + DONE, 60)
    q.expect(PROMPT, 30)
    text = m.group(1).decode().replace("\r\n", "\n")
    counts = [int(x) for x in m.groups()[1:]]
    assert counts[0] == n
    return text, counts


def test_console_text2pcap(box, tmp_path):
    """6 frames: 3 forwarded out of port1 (tx), then 3 into it (rx)."""
    q, p = box
    start(q, "capture port1 count 6")
    tx = [frame(60 + 10 * i, seq=i, dst=b"\x02\x00\x00\x00\x00\xaa") for i in range(3)]
    rx = [frame(1514 - i, seq=100 + i, dst=b"\x02\x00\x00\x00\x00\xbb") for i in range(3)]
    forward(p, 0, tx)
    forward(p, 1, rx)
    text, (printed, seen, filtered, kept, dropped) = finish(q, 6)
    assert (filtered, dropped) == (0, 0) and seen == kept >= 6
    dump = tmp_path / "dump.txt"
    dump.write_text(text)
    pcap = str(tmp_path / "dump.pcapng")
    r = subprocess.run(["text2pcap", "-q", "-D", "-t", "ISO", str(dump), pcap], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rows = tshark(pcap, "frame.packet_flags_direction", "frame.len", "frame.time_epoch")
    assert [(int(d, 16), int(n)) for d, n, _ in rows] == [(2, len(f)) for f in tx] + [(1, len(f)) for f in rx]
    times = [float(t) for _, _, t in rows]
    assert times == sorted(times)
    from scapy.all import rdpcap
    assert [bytes(f) for f in rdpcap(pcap)] == tx + rx
    # QEMU's filter-dump saw the same frames cross port1's wire, and nothing else
    assert [bytes(f) for f in rdpcap(str(q.wire))] == tx + rx


def test_console_filter_and_summary(box):
    """`tcpdump -ddd 'ether[14:4] = 101'` as one word keeps only that frame
    of the five sent into port1; summary lines after it."""
    q, p = box
    prog = subprocess.run(["tcpdump", "-y", "EN10MB", "-ddd", "ether[14:4] = 101"], capture_output=True,
                          text=True, check=True).stdout
    word = prog.strip().replace("\n", ",").replace(" ", ",")
    start(q, "capture port1 count 1 dir rx filter " + word)
    forward(p, 1, [frame(64, seq=100 + i) for i in range(5)])
    text, (printed, seen, filtered, kept, dropped) = finish(q, 1)
    assert (seen, filtered, kept, dropped) == (5, 4, 1, 0)
    assert re.search(r"^000010 00 65 65 66", text, re.M), text

    start(q, "capture port1 count 2 summary")
    udp = bytes.fromhex("020000000002020000000001" "0800" "4500002400010000401100000a0100020a020002"
                        "04d2162e001000000000000000000000" + "00" * 10)  # 60 bytes: no padding on the way
    forward(p, 0, [udp])
    forward(p, 1, [udp])
    text, _ = finish(q, 2)
    lines = text.strip().splitlines()
    want = "IP 10.1.0.2.1234 > 10.2.0.2.5678: UDP, length 8"
    assert re.fullmatch(r"\d\d:\d\d:\d\d\.\d{9} port1 tx " + re.escape(want), lines[0]), lines
    assert re.fullmatch(r"\d\d:\d\d:\d\d\.\d{9} port1 rx " + re.escape(want), lines[1]), lines


def test_console_refusals(box):
    """Bad options and a second capture are refused with the reason."""
    q, _ = box
    assert "snaplen 1..2048" in q.shell("capture port1 snaplen 0")
    assert "usage: capture <port>" in q.shell("capture port9")
    assert "jump past the end" in q.shell("capture port1 filter 21,1,0,0,6,0,0,0")
    assert "expected tcpdump -dd" in q.shell("capture port1 filter 6,0,0")
    start(q, "capture port1 count 1")
    q.send("capture port0\r")
    q.expect(r"capture: port0: a capture of port1 runs already", 30)
    q.send("capture stop\r")
    text, counts = finish(q, 0)



# GET /capture on the management port (mgmt=port2 over a tap, as in
# test_mgmt.py), port1 captured while port0 and port1 forward.
def mgmt_count(q, name):
    m = re.search(r"\b%s (\d+)" % name, q.shell("mgmt"))
    return int(m.group(1)) if m else 0


def http_capture(q, p, query, tx, rx, path, during=None, stall=False):
    """curl the capture into path while tx frames go port0 -> port1 and rx
    frames port1 -> port0 (once the capture runs: mgmt's captures moved;
    during() first); curl's exit status."""
    import test_mgmt
    ns = ["ip", "netns", "exec", test_mgmt.NS]
    cmd = ns + ["curl", "-sS", "-N", "--max-time", "40", f"http://{test_mgmt.GUEST}/capture?{query}", "-o", str(path)]
    if stall:   # a client that sends its request, then reads nothing
        cmd = ns + ["python3", "-c", "import socket,sys,time;s=socket.socket();"
                    "s.setsockopt(socket.SOL_SOCKET,socket.SO_RCVBUF,4096);s.connect((sys.argv[1],80));"
                    "s.sendall(b'GET /capture?'+sys.argv[2].encode()+b' HTTP/1.0\\r\\n\\r\\n');time.sleep(20)",
                    test_mgmt.GUEST, query]
    before = mgmt_count(q, "captures")
    client = subprocess.Popen(cmd)
    try:
        end = time.monotonic() + 20
        while mgmt_count(q, "captures") == before and time.monotonic() < end:
            time.sleep(0.2)
        if during:
            during()
        forward(p, 0, tx)
        forward(p, 1, rx)
        if stall:
            return client   # the caller ends it
        return client.wait(timeout=60)
    finally:
        if not stall and client.poll() is None:
            client.kill()
            client.wait()


@pytest.fixture
def mbox():
    import test_mgmt
    with test_mgmt.mgmt_box() as q:
        p = [StreamPort(q.nic_sock(i)) for i in (0, 1)]
        yield q, p
        for s in p:
            s.close()


def test_http_pcapng(mbox, tmp_path):
    """count=6 of port1: tshark reads the stream without a warning; the
    frames equal those sent, with directions; capinfos agrees; the last
    block is the ISB; a second capture meanwhile is refused with 409."""
    import test_mgmt
    q, p = mbox
    tx = [frame(60 + 10 * i, seq=i) for i in range(3)]     # broadcast: test_mgmt's box is not promiscuous
    rx = [frame(1514 - i, seq=100 + i) for i in range(3)]
    out = tmp_path / "c.pcapng"

    def second():
        got = test_mgmt.sh("curl", "-sS", "-w", "%{http_code}", "--max-time", "20",
                           f"http://{test_mgmt.GUEST}/capture?port=0")
        assert got == "a capture's stream is being sent already; one at a time\n409", got

    assert http_capture(q, p, "port=1&count=6", tx, rx, out, during=second) == 0
    rows = tshark(str(out), "frame.packet_flags_direction", "frame.len", "frame.interface_name",
                  "frame.interface_description")
    assert [(int(d, 16), int(n)) for d, n, _, _ in rows] == [(2, len(f)) for f in tx] + [(1, len(f)) for f in rx]
    assert {(i, d) for _, _, i, d in rows} == {("port1", "e1000e 82574L Gigabit Network Connection")}
    from scapy.all import rdpcap
    assert [bytes(f) for f in rdpcap(str(out))] == tx + rx
    info = subprocess.run(["capinfos", "-c", "-M", str(out)], capture_output=True, text=True).stdout
    assert re.search(r"Number of packets:\s+6$", info, re.M), info
    assert out.read_bytes()[-76:][:4] == b"\x05\x00\x00\x00"      # the ISB, 76 bytes
    assert mgmt_count(q, "capture_busy") == 1


def test_http_filter_refusals_and_stall(mbox, tmp_path):
    """A URL-encoded tcpdump -dd filter keeps one frame of five; bad queries
    get 400 with the reason; a client that stops reading ends its capture
    (capture_stalled) while forwarding goes on."""
    import urllib.parse
    import test_mgmt
    q, p = mbox
    prog = subprocess.run(["tcpdump", "-y", "EN10MB", "-dd", "ether[14:4] = 102"], capture_output=True,
                          text=True, check=True).stdout
    out = tmp_path / "f.pcapng"
    query = "port=1&dir=rx&count=1&filter=" + urllib.parse.quote_plus(prog)
    assert http_capture(q, p, query, [], [frame(64, seq=100 + i) for i in range(5)], out) == 0
    from scapy.all import rdpcap
    assert [bytes(f) for f in rdpcap(str(out))] == [frame(64, seq=102)]

    for query, want in (("port=9", "port=N dir="), ("port=1&snaplen=0", "snaplen=1..2048"),
                        ("port=1&filter=6,0,0", "expected tcpdump -dd"), ("dir=rx", "port=N: the port"),
                        ("port=1&filter=%4", "query: key=value")):
        got = test_mgmt.get("/capture?" + query)
        assert want in got, (query, got)

    client = http_capture(q, p, "port=1&seconds=60", [frame(1514, seq=i) for i in range(300)], [], None,
                          stall=True)
    try:
        end = time.monotonic() + 15
        while mgmt_count(q, "capture_stalled") == 0 and time.monotonic() < end:
            time.sleep(0.5)
        assert mgmt_count(q, "capture_stalled") == 1, q.shell("mgmt")
    finally:
        client.kill()
        client.wait()
    start(q, "capture port1 count 1 dir tx")    # the stalled capture let the port go
    forward(p, 0, [frame(64, seq=7)])
    finish(q, 1)


def test_mirror_delivers_every_frame():
    """mirror=0:2: port2 sends a copy of each frame port0 receives (into
    port0, forwarded to port1) and sends (into port1, forwarded out of
    port0), in order, and counts them. (A port2 peer that stops reading
    would test the drops, but QEMU's stream netdev then stalls the whole
    guest, consoles included.)"""
    q = Qemu(boot="kernel", mem="256M", nics=["e1000e:netdev=stream"] * 3,
             append="stats=0 promisc=1 app=fwd pairs=0-1 mirror=0:2")
    try:
        q.expect(r"mirror: port0 rx\+tx -> port2", 90)
        q.expect(r"port2: link up", 90)
        q.send("\r")
        q.expect(PROMPT, 30)
        p = [StreamPort(q.nic_sock(i)) for i in (0, 1, 2)]
        rx = [frame(64 + i, seq=i) for i in range(5)]
        tx = [frame(100 + i, seq=50 + i) for i in range(5)]
        forward(p, 0, rx)
        forward(p, 1, tx)
        assert p[2].recv(10, timeout=30) == rx + tx
        out = q.shell("capture mirror")
        assert "mirror: port0 -> port2: mirrored 10, dropped 0" in out, out

        for s in p:
            s.close()
    finally:
        q.stop()


def test_http_epb_carries_the_nic_timestamps(tmp_path):
    """igb stamps PTP event messages in hardware; a ptp master has it stamp
    the Delay_Req it receives and the Syncs it sends. GET /capture of that
    port for 3 s (mgmt on a second port, QEMU's user network): the
    Delay_Req's Enhanced Packet Block holds, to the ns, the
    receiveTimestamp the master's Delay_Resp carries (the NIC's RX stamp),
    and each Sync's the preciseOriginTimestamp of its Follow_Up (the NIC's
    TX stamp); the frames sent meanwhile are a run of those this test got,
    byte for byte."""
    import capcheck
    import struct
    import test_mgmt
    from test_ptp import INTERVALS, ptp_counters, ptp_msg
    port = test_mgmt.free_port()
    with Qemu(boot="kernel", mem="256M",
              nics=["igb:bus=rp,netdev=stream", f"e1000e:netdev=user,hostfwd={port}"],
              append="app=ptp ptp_role=master mgmt=port0 ip0=10.0.2.15/24 stats=0 " + " ".join(INTERVALS)) as q:
        # the e1000e on the root bus comes first in PCI order: port0, the igb port1
        q.expect(r"apps: port0=mgmt port1=ptp", 90)
        q.expect(r"port1: link up", 90)
        q.send("\r")
        q.expect(PROMPT, 30)
        ptp = StreamPort(q.nic_sock(0))
        got = []

        def until(pred, timeout=30):
            end = time.monotonic() + timeout
            while time.monotonic() < end:
                for f in ptp.recv(1, max(0.01, end - time.monotonic())):
                    got.append(f)
                    if pred(f):
                        return f
            raise AssertionError(f"not seen in {timeout} s: {[f.hex() for f in got[-5:]]}")

        ptp_type = lambda f: f[12:14] == b"\x88\xf7" and f[14] & 0x0f
        until(lambda f: f[12:14] == b"\x88\xf7" and ptp_type(f) == 0)     # a Sync: it is master
        before = ptp_counters(q, 1)
        out = tmp_path / "ptp.pcapng"
        curl = subprocess.Popen(["curl", "-sS", "-N", "--max-time", "40",
                                 f"http://127.0.0.1:{port}/capture?port=1&seconds=3", "-o", str(out)])
        try:
            end = time.monotonic() + 20
            while mgmt_count(q, "captures") == 0 and time.monotonic() < end:
                time.sleep(0.2)
            del got[:]
            req = ptp_msg(1, 7)
            ptp.send([req])
            resp = until(lambda f: ptp_type(f) == 9 and f[14 + 30:14 + 32] == b"\x00\x07")
            while curl.poll() is None:
                got += ptp.recv(100, 0.2)
            assert curl.wait(timeout=60) == 0
            got += ptp.recv(100, 1)     # the last captured Sync's Follow_Up
        finally:
            if curl.poll() is None:
                curl.kill()
                curl.wait()
        after = ptp_counters(q, 1)
        ptp.close()
    assert after["delay_req"] - before["delay_req"] == 1 and after["rx_hwtstamp"] - before["rx_hwtstamp"] == 1, \
        (before, after)
    assert after["tx_swtstamp"] == 0, after     # every Sync stamped by the NIC

    def ts(f):      # a message's 10-byte timestamp (originTimestamp and the like), ns
        sec_hi, sec_lo, ns = struct.unpack(">HII", f[14 + 34:14 + 44])
        return ((sec_hi << 32) | sec_lo) * 10**9 + ns

    seq = lambda f: f[14 + 30:14 + 32]
    capcheck.tshark(str(out), "frame.number")
    blocks = capcheck.epbs(str(out))
    rx = [(t, f) for t, d, f in blocks if d & 3 == 1]
    tx = [f for t, d, f in blocks if d & 3 == 2]
    assert len(rx) == 1 and capcheck.same(rx[0][1], req), rx
    assert rx[0][0] == ts(resp), (rx[0][0], ts(resp))
    assert resp in tx and capcheck.run_in(tx, got), ([f.hex() for f in tx], [f.hex() for f in got])
    follow_up = {seq(f): ts(f) for f in got if ptp_type(f) == 8}
    syncs = [(t, follow_up.get(seq(f))) for t, d, f in blocks if d & 3 == 2 and ptp_type(f) == 0]
    assert len(syncs) >= 4 and all(t == fu for t, fu in syncs), syncs      # 4 Hz for 3 s

