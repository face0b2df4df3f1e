"""Tests of the host traffic tool, build/trafgen, with no guest.

Paths used: a QEMU with two stream and two dgram netdevs joined by hubs
(frames sent into one come out of the other), fake peers written here
(a lossy "appliance" between two unix sockets, a UDP sender of hand-made
sequences, an echo server, an ARP asker), and a veth pair in a network
namespace the test makes (root only). Frames are checked against scapy.
Every socket is a unix socket in a temporary directory or UDP on 127.0.0.1.
"""
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest
from scapy.all import ARP, IP, UDP, Dot1Q, Ether, ICMPv6ND_NA, ICMPv6ND_NS, ICMPv6NDOptDstLLAddr, IPv6, Raw, rdpcap
from scapy.layers.inet6 import in6_getnsma, in6_getnsmac

ROOT = Path(__file__).resolve().parents[2]
TRAFGEN = ROOT / "build" / "trafgen"
MAGIC = 0x4C52
SEQ_AT = 14 + 20 + 8 + 4      # offset of the sequence number in a test frame


@pytest.fixture(scope="session")
def trafgen():
    subprocess.run(["make", "-s", "-f", "tools/trafgen/trafgen.mk", "BUILD=build",
                    "build/trafgen"], cwd=ROOT, check=True, timeout=120)
    return str(TRAFGEN)


@pytest.fixture
def tmp():
    d = tempfile.mkdtemp(prefix="tg-", dir="/tmp")   # short: unix paths <= 107 bytes
    yield d
    shutil.rmtree(d, ignore_errors=True)


def run(trafgen, *args, timeout=60):
    return subprocess.run([trafgen, *args], capture_output=True, text=True, timeout=timeout)


def result_line(proc):
    """The RESULT line's JSON object."""
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert len(lines) == 1, proc.stdout + proc.stderr
    return json.loads(lines[0][len("RESULT "):])


def result(proc):
    """The RESULT line's JSON object of a run that exited 0."""
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return result_line(proc)


def free_udp_ports(n):
    socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def wait_for(cond, what, limit=5.0):
    end = time.monotonic() + limit
    while not cond():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.02)


def udp_bound(port):
    with open("/proc/net/udp") as f:
        return any(line.split()[1].endswith(":%04X" % port) for line in f.readlines()[1:])


@pytest.fixture
def hub(tmp):
    """QEMU with no machine: stream netdevs a, b on hub 0, dgram c, d on hub 1."""
    qemu = shutil.which("qemu-system-x86_64")
    if not qemu:
        pytest.skip("qemu-system-x86_64 not installed")
    a, b = f"{tmp}/a.sock", f"{tmp}/b.sock"
    qc, tc, qd, td = free_udp_ports(4)     # QEMU's local ports and ours

    def dgram(name, local, remote):
        return ["-netdev", f"dgram,id={name},local.type=inet,local.host=127.0.0.1,"
                f"local.port={local},remote.type=inet,remote.host=127.0.0.1,remote.port={remote}"]

    args = [qemu, "-M", "none", "-nodefaults", "-display", "none",
            *dgram("c", qc, tc), *dgram("d", qd, td),
            "-netdev", f"stream,id=a,server=on,addr.type=unix,addr.path={a}",
            "-netdev", f"stream,id=b,server=on,addr.type=unix,addr.path={b}",
            "-netdev", "hubport,id=ha,hubid=0,netdev=a", "-netdev", "hubport,id=hb,hubid=0,netdev=b",
            "-netdev", "hubport,id=hc,hubid=1,netdev=c", "-netdev", "hubport,id=hd,hubid=1,netdev=d"]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_for(lambda: os.path.exists(b) or proc.poll() is not None, "QEMU's sockets")
        assert proc.poll() is None, proc.stderr.read().decode()
        yield {"stream": (f"stream:{a}", f"stream:{b}"),
               "dgram": (f"dgram:{tc}:{qc}", f"dgram:{td}:{qd}")}
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_frame(stream, seq, ts, size=64, src="10.1.0.2", dst="10.2.0.2"):
    """A frame of ours built by scapy (the reference), carried length size - 4."""
    hdr = struct.pack(">HHQ", MAGIC, stream, seq) + (ts & (2**48 - 1)).to_bytes(6, "big")
    pkt = (Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
           / IP(src=src, dst=dst, ttl=64, flags="DF", id=0) / UDP(sport=1000, dport=9)
           / Raw(hdr + bytes(size - 4 - 60)))
    return bytes(pkt)


test_frame.__test__ = False      # a helper, not a test


def seq_of(frame):
    return struct.unpack(">Q", frame[SEQ_AT:SEQ_AT + 8])[0]


class StreamPeer:
    """The QEMU side of -netdev stream: a unix server, 4-byte BE length + frame."""

    def __init__(self, path):
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(1)
        self.conn, self.buf = None, b""

    def accept(self, limit=10):
        self.listener.settimeout(limit)
        self.conn, _ = self.listener.accept()

    def send(self, frame):
        self.conn.sendall(struct.pack(">I", len(frame)) + frame)

    def recv(self, limit=5.0):
        """The next frame, or None at EOF or after `limit` seconds."""
        self.conn.settimeout(limit)
        while True:
            if len(self.buf) >= 4:
                n = struct.unpack(">I", self.buf[:4])[0]
                if len(self.buf) >= 4 + n:
                    frame, self.buf = self.buf[4:4 + n], self.buf[4 + n:]
                    return frame
            try:
                data = self.conn.recv(65536)
            except socket.timeout:
                return None
            if not data:
                return None
            self.buf += data

    def close(self):
        for s in (self.conn, self.listener):
            if s:
                s.close()


def in_thread(fn, *args):
    t = threading.Thread(target=fn, args=args, daemon=True)
    t.start()
    return t


# ---- arguments ----

def test_help_lists_every_option(trafgen):
    p = run(trafgen, "--help")
    assert p.returncode == 0
    for opt in ("--port stream:PATH", "dgram:LPORT:RPORT", "tap:IFNAME", "--count", "--duration",
                "--rate", "--window", "--size", "--sweep", "--src-mac", "--dst-mac", "--src-ip",
                "--dst-ip", "--src-ip6", "--dst-ip6", "--src-port", "--dst-port", "--stream", "--vlan", "--timeout", "--max-time",
                "--arp-reply", "--rx-mac", "--quiet", "--pcap", "(B + 20) * 8", "RESULT"):
        assert opt in p.stdout, opt


@pytest.mark.parametrize("args, message", [
    ([], "missing the mode; accepted: send, recv or both"),
    (["both"], "missing --port; accepted: stream:PATH"),
    (["fast", "--port", "stream:/x"], "unknown mode fast"),
    (["both", "--port", "udp:1:2"], "--port udp:1:2: unknown port type; accepted:"),
    (["both", "--port", "dgram:1:70000"], "a UDP port is 1..65535"),
    (["both", "--port", "dgram:5:5"], "LOCALPORT and REMOTEPORT must differ"),
    (["both", "--port", "stream:/a", "--port", "stream:/b", "--port", "stream:/c"],
     "--port given more than 2 times"),
    (["send", "--port", "stream:/x", "--size", "63"], "--size 63: a size is 64..1518"),
    (["send", "--port", "stream:/x", "--size", "1523"], "--size 1523: a size is 64..1518 (with --vlan 68..1522)"),
    (["send", "--port", "stream:/x", "--size", "1519"], "--size 1519: an IPv4 frame is 64..1518 bytes"),
    (["send", "--port", "stream:/x", "--vlan", "100", "--size", "67"], "--size 67: a tagged IPv4 frame is 68..1522"),
    (["send", "--port", "stream:/x", "--vlan", "4095"], "--vlan 4095: not a VLAN ID; accepted: VLAN ID 0..4094"),
    (["send", "--port", "stream:/x", "--vlan", "1", "--src-ip6", "::2", "--dst-ip6", "::3", "--sweep", "88,87"],
     "--size 87: a tagged IPv6 frame is 88..1522 bytes"),
    (["recv", "--port", "stream:/x", "--vlan", "5"], "--vlan does not apply to recv mode"),
    (["send", "--port", "stream:/x", "--sweep", "64,,128"], "--sweep 64,,128: not a size"),
    (["send", "--port", "stream:/x", "--size", "64", "--sweep", "64,128"],
     "--size and --sweep exclude each other"),
    (["send", "--port", "stream:/x", "--rate", "10kbs"], "--rate 10kbs: unknown unit; accepted: max |"),
    (["send", "--port", "stream:/x", "--rate", "-5pps"], "--rate -5pps: not a rate"),
    (["send", "--port", "stream:/x", "--count", "0"], "--count 0: not a count"),
    (["send", "--port", "stream:/x", "--count"], "--count needs a value"),
    (["send", "--port", "stream:/x", "--duration", "soon"], "--duration soon: not a number of seconds"),
    (["send", "--port", "stream:/x", "--dst-ip", "10.2.0.9-10.2.0.2"], "the range ends before it starts"),
    (["send", "--port", "stream:/x", "--src-mac", "02:00:00:00:00"], "--src-mac 02:00:00:00:00: not a value"),
    (["send", "--port", "stream:/x", "--src-port", "1000-70000"], "not a value or range"),
    (["send", "--port", "stream:/x", "--src-ip6", "2001:db8:1::2"],
     "IPv6 frames need both --src-ip6 and --dst-ip6"),
    (["send", "--port", "stream:/x", "--src-ip6", "::2", "--dst-ip6", "::3", "--dst-ip", "10.2.0.2"],
     "--src-ip6/--dst-ip6 and --src-ip/--dst-ip exclude each other"),
    (["send", "--port", "stream:/x", "--src-ip6", "::2", "--dst-ip6", "::3", "--size", "83"],
     "--size 83: an IPv6 frame is 84..1518 bytes"),
    (["send", "--port", "stream:/x", "--dst-ip6", "2001:db8::2-2001:db9::2"],
     "the ends differ before their last 32 bits"),
    (["send", "--port", "stream:/x", "--dst-ip6", "10.2.0.2"], "--dst-ip6 10.2.0.2: not an IPv6 address"),
    (["send", "--port", "stream:/x", "--window", "8"], "--window does not apply to send mode"),
    (["recv", "--port", "stream:/x", "--rate", "1kpps"], "--rate does not apply to recv mode"),
    (["send", "--port", "stream:/x", "--quiet=yes"], "--quiet takes no value"),
    (["send", "--port", "stream:/x", "--bogus"], "unknown option --bogus"),
    (["send", "--port", "stream:/x", "--count", "5", "--count", "6"], "--count given more than 1 time"),
    (["send", "both", "--port", "stream:/x"], "unexpected argument both: the mode is already send"),
])
def test_bad_arguments_exit_2_with_the_accepted_forms(trafgen, args, message):
    p = run(trafgen, *args)
    assert p.returncode == 2
    assert message in p.stderr
    assert p.stderr.startswith("trafgen: ") and "Try 'trafgen --help'." in p.stderr
    assert "RESULT" not in p.stdout


def test_unreachable_peers_are_errors_exit_1(trafgen, tmp):
    p = run(trafgen, "both", "--port", f"stream:{tmp}/none.sock")
    assert p.returncode == 1
    assert f"stream:{tmp}/none.sock: connect: No such file or directory; is QEMU running" in p.stderr
    mine, nobody = free_udp_ports(2)
    p = run(trafgen, "send", "--port", f"dgram:{mine}:{nobody}", "--count", "100", "--rate", "1kpps")
    assert p.returncode == 1 and "nothing listens on REMOTEPORT" in p.stderr
    assert result_line(p)["stop"] == "error"


# ---- through QEMU's hubs: exact counts ----

@pytest.mark.parametrize("kind, count", [("stream", 20000), ("dgram", 5000)])
def test_through_qemu_hub_every_frame_arrives(trafgen, hub, kind, count):
    r = result(run(trafgen, "both", "--port", hub[kind][0], "--port", hub[kind][1],
                   "--count", str(count), "--max-time", "30"))
    assert r["mode"] == "both" and r["stop"] == "complete"
    assert r["sent"] == r["expected"] == r["received"] == count
    assert (r["lost"], r["reordered"], r["duplicates"], r["bad"]) == (0, 0, 0, 0)
    assert r["bytes"] == count * 64
    assert r["lat_min_ns"] <= r["lat_p50_ns"] <= r["lat_p90_ns"] <= r["lat_p99_ns"] \
        <= r["lat_p999_ns"] <= r["lat_max_ns"]
    assert [(row["stream"], row["size"], row["received"]) for row in r["rows"]] == [(0, 64, count)]
    if kind == "dgram":
        # the table's bit rate names its convention: L1, 20 B a frame over the FCS-ful frame
        table = run(trafgen, "both", "--port", hub[kind][0], "--port", hub[kind][1], "--count", "10",
                    "--max-time", "30").stdout
        assert re.search(r"^ +size .* rx kpps rx Mbps\(L1\) +p50 us", table, re.M), table


@pytest.mark.parametrize("kind", ["stream", "dgram"])
def test_sweep_gives_one_exact_row_per_size(trafgen, hub, kind):
    sizes = [64, 128, 256, 512, 1024, 1518]
    p = run(trafgen, "both", "--port", hub[kind][0], "--port", hub[kind][1], "--count", "500",
            "--sweep", ",".join(map(str, sizes)), "--stream", "100", "--max-time", "30")
    r = result(p)
    assert [(row["stream"], row["size"], row["stop"]) for row in r["rows"]] == \
        [(100 + i, s, "complete") for i, s in enumerate(sizes)]
    for row, size in zip(r["rows"], sizes):
        assert row["sent"] == row["received"] == 500 and row["lost"] == 0
        assert row["bytes"] == 500 * size
    assert r["sent"] == r["received"] == 3000 and r["bytes"] == 500 * sum(sizes)
    table = p.stdout.splitlines()
    assert [ln.split()[0] for ln in table[2:9]] == [str(s) for s in sizes] + ["total"]


def test_quiet_prints_only_the_result_line(trafgen, hub):
    p = run(trafgen, "both", "--port", hub["stream"][0], "--port", hub["stream"][1],
            "--count", "10", "--quiet")
    assert p.stdout.count("\n") == 1 and result(p)["received"] == 10


def test_rate_in_pps_and_bps_is_never_exceeded(trafgen, hub):
    # Frame k leaves no earlier than k / rate after the start: 400 frames at
    # 2 kpps take at least 0.1995 s. A 108-byte frame counts (108 + 20) * 8 =
    # 1024 bits, so 1.024 Mbps is 1000 frames/s.
    r = result(run(trafgen, "both", "--port", hub["stream"][0], "--port", hub["stream"][1],
                   "--count", "400", "--rate", "2kpps"))
    assert r["received"] == 400 and r["tx_pps"] <= 2000 * 400 / 399 + 1
    r = result(run(trafgen, "both", "--port", hub["stream"][0], "--port", hub["stream"][1],
                   "--count", "200", "--rate", "1.024Mbps", "--size", "108"))
    assert r["received"] == 200 and r["tx_pps"] <= 1000 * 200 / 199 + 1
    assert r["tx_bps"] == pytest.approx(r["tx_pps"] * 1024, rel=1e-4)


def test_duration_bounds_the_send(trafgen, hub):
    r = result(run(trafgen, "both", "--port", hub["dgram"][0], "--port", hub["dgram"][1],
                   "--duration", "0.3", "--rate", "1kpps"))
    assert 200 <= r["sent"] <= 301 and r["received"] == r["sent"] and r["lost"] == 0


# ---- fake peers: exact loss, reordering, duplicates ----

def lossy_appliance(a, b):
    """Forwards a -> b, except: drops 5, 17 and 60, sends 30 twice, swaps 40
    and 41, breaks 70's UDP checksum, and adds one ARP request of its own."""
    a.accept()
    b.accept()
    held = None
    while (f := a.recv()) is not None:
        s = seq_of(f)
        if s == 0:
            b.send(bytes(Ether(src="02:00:00:00:aa:01", dst="ff:ff:ff:ff:ff:ff")
                         / ARP(op=1, psrc="10.2.0.1", pdst="10.9.9.9")))
        if s in (5, 17, 60):
            continue
        if s == 40:
            held = f
            continue
        if s == 70:
            f = f[:-1] + bytes([f[-1] ^ 0xFF])
        b.send(f)
        if s == 30:
            b.send(f)
        if s == 41:
            b.send(held)


def test_fake_lossy_path_gives_exact_loss_reordering_duplicates(trafgen, tmp):
    a, b = StreamPeer(f"{tmp}/a.sock"), StreamPeer(f"{tmp}/b.sock")
    t = in_thread(lossy_appliance, a, b)
    r = result(run(trafgen, "both", "--port", f"stream:{tmp}/a.sock", "--port",
                   f"stream:{tmp}/b.sock", "--count", "100", "--timeout", "0.5"))
    t.join(5)
    a.close()
    b.close()
    assert r["stop"] == "timeout"
    assert r["sent"] == 100
    assert r["received"] == 100 - 3 - 1 + 1          # drops, the broken one, the duplicate
    assert (r["lost"], r["reordered"], r["duplicates"]) == (4, 1, 1)
    assert (r["bad"], r["other"]) == (1, 1)


def blackout(a, b, gone):
    """Forwards a -> b, dropping the frames whose sequence number is in gone."""
    a.accept()
    b.accept()
    while (f := a.recv()) is not None:
        if seq_of(f) not in gone:
            b.send(f)


def test_a_window_full_of_lost_frames_is_written_off(trafgen, tmp):
    # 100 frames in a row vanish: each full window of 16 is given up after
    # 100 ms without a frame back, and sending goes on.
    a, b = StreamPeer(f"{tmp}/a.sock"), StreamPeer(f"{tmp}/b.sock")
    t = in_thread(blackout, a, b, range(10, 110))
    r = result(run(trafgen, "both", "--port", f"stream:{tmp}/a.sock", "--port",
                   f"stream:{tmp}/b.sock", "--count", "200", "--window", "16", "--timeout", "0.5"))
    t.join(5)
    a.close()
    b.close()
    assert (r["sent"], r["received"], r["lost"], r["stop"]) == (200, 100, 100, "timeout")
    assert r["elapsed_s"] < 5


def udp_sender(port, frames, ready):
    """Sends frames [(bytes, age_ns)] from 127.0.0.1:port[1] to port[0]. A
    frame with an age gets its send time written just before it goes:
    now - age, with the UDP checksum set to 0 (none)."""
    ready()
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", port[1]))
    for f, age in frames:
        if age is not None:
            ts = (time.monotonic_ns() - age) & (2**48 - 1)
            f = f[:40] + b"\0\0" + f[42:54] + ts.to_bytes(6, "big") + f[60:]
        s.sendto(f, ("127.0.0.1", port[0]))
        time.sleep(0.0002)
    s.close()


def test_recv_mode_counts_each_stream_from_its_highest_sequence(trafgen):
    mine, theirs = free_udp_ports(2)
    seqs7 = [s for s in range(50) if s not in (3, 9)]
    seqs7.insert(seqs7.index(20), 20)                          # a duplicate
    i = seqs7.index(30)
    seqs7[i], seqs7[i + 1] = seqs7[i + 1], seqs7[i]            # 31 before 30
    frames = [(test_frame(7, s, 0), None) for s in seqs7]
    # Stream 8: frame s is stamped (s + 1) ms in the past: latency > (s + 1) ms.
    frames += [(test_frame(8, s, 0, size=128), (s + 1) * 1_000_000) for s in range(100)]
    t = in_thread(udp_sender, (mine, theirs), frames, lambda: wait_for(lambda: udp_bound(mine), "trafgen"))
    r = result(run(trafgen, "recv", "--port", f"dgram:{mine}:{theirs}", "--timeout", "0.5"))
    t.join(5)
    assert r["stop"] == "timeout" and r["sent"] is None
    row7, row8 = r["rows"]
    assert (row7["stream"], row7["size"], row7["expected"], row7["received"]) == (7, 64, 50, 49)
    assert (row7["lost"], row7["reordered"], row7["duplicates"]) == (2, 1, 1)
    assert (row8["stream"], row8["size"], row8["expected"], row8["received"], row8["lost"]) == \
        (8, 128, 100, 100, 0)
    assert row8["bytes"] == 100 * 128
    # Ranks 50, 90, 99, 100 of 100: (s + 1) ms plus the time in flight,
    # within a histogram bucket (1/64).
    for key, ms in (("lat_p50_ns", 50), ("lat_p90_ns", 90), ("lat_p99_ns", 99), ("lat_p999_ns", 100)):
        assert ms * 1e6 * (1 - 1 / 64) <= row8[key] <= ms * 1e6 * (1 + 1 / 64) + 20e6, key
    assert row8["lat_max_ns"] >= 100e6 and row8["lat_min_ns"] >= 1e6
    assert r["received"] == 149 and r["lost"] == 2


def test_recv_count_and_max_time_stop_it(trafgen, tmp):
    t0 = time.monotonic()
    r = result(run(trafgen, "recv", "--port", f"dgram:{free_udp_ports(2)[0]}:9", "--max-time", "0.3"))
    assert r["stop"] == "max-time" and r["received"] == 0 and time.monotonic() - t0 < 5
    peer = StreamPeer(f"{tmp}/p.sock")

    def feed():
        peer.accept()
        peer.conn.sendall(b"".join(struct.pack(">I", 60) + test_frame(0, s, 0) for s in range(20)))
        peer.recv(5)                        # until trafgen hangs up

    t = in_thread(feed)
    r = result(run(trafgen, "recv", "--port", f"stream:{tmp}/p.sock", "--count", "12"))
    t.join(5)
    peer.close()
    assert (r["stop"], r["received"], r["expected"], r["lost"]) == ("count", 12, 12, 0)


def test_sigint_prints_the_results_so_far_and_exits_130(trafgen):
    p = subprocess.Popen([trafgen, "recv", "--port", f"dgram:{free_udp_ports(2)[0]}:9", "--quiet"],
                         stdout=subprocess.PIPE, text=True)
    time.sleep(0.3)
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=10)
    assert p.returncode == 130
    assert json.loads(out[len("RESULT "):])["stop"] == "interrupted"


def echo(peer):
    peer.accept()
    while (f := peer.recv()) is not None:
        peer.send(f)


def test_both_on_one_port_with_an_echo_peer(trafgen, tmp):
    peer = StreamPeer(f"{tmp}/e.sock")
    t = in_thread(echo, peer)
    r = result(run(trafgen, "both", "--port", f"stream:{tmp}/e.sock", "--count", "3000",
                   "--sweep", "64,1518"))
    t.join(5)
    peer.close()
    assert r["stop"] == "complete" and r["sent"] == r["received"] == 6000 and r["lost"] == 0


# ---- frames: checked by scapy ----

def sink(peer, out):
    peer.accept()
    while (f := peer.recv()) is not None:
        out.append(f)


def test_frames_are_valid_ethernet_ipv4_udp_walking_the_ranges(trafgen, tmp):
    peer, got = StreamPeer(f"{tmp}/s.sock"), []
    t = in_thread(sink, peer, got)
    pcap = f"{tmp}/sent.pcap"
    r = result(run(trafgen, "send", "--port", f"stream:{tmp}/s.sock", "--count", "70",
                   "--sweep", "64,65,1518", "--stream", "3", "--pcap", pcap,
                   "--src-mac", "02:00:00:00:01:fe-02:00:00:00:02:01",
                   "--dst-mac", "02:00:00:00:00:09", "--src-ip", "10.1.0.2",
                   "--dst-ip", "10.2.0.2-10.2.0.9", "--src-port", "1000-1063", "--dst-port", "7"))
    t.join(5)
    peer.close()
    assert r["sent"] == 210 and r["stop"] == "count" and r["lost"] is None
    assert [bytes(p) for p in rdpcap(pcap)] == got           # the capture is what went out
    assert len(got) == 210
    for i, raw in enumerate(got):
        size, seq = (64, 65, 1518)[i // 70], i % 70
        assert len(raw) == size - 4
        p = Ether(raw)
        assert p.src == "02:00:00:00:%02x:%02x" % divmod(0x1fe + seq % 4, 256)
        assert p.dst == "02:00:00:00:00:09"
        assert (p[IP].src, p[IP].dst) == ("10.1.0.2", "10.2.0.%d" % (2 + seq % 8))
        assert (p[UDP].sport, p[UDP].dport) == (1000 + seq % 64, 7)
        assert (p[IP].ttl, p[IP].flags, p[IP].len) == (64, "DF", size - 4 - 14)
        assert p[UDP].chksum != 0
        # scapy recomputes both checksums from scratch.
        q = Ether(raw)
        del q[IP].chksum, q[UDP].chksum
        q = Ether(bytes(q))
        assert (q[IP].chksum, q[UDP].chksum) == (p[IP].chksum, p[UDP].chksum)
        magic, stream, s = struct.unpack(">HHQ", bytes(p[UDP].payload)[:12])
        assert (magic, stream, s) == (MAGIC, 3 + i // 70, seq)
        assert bytes(p[UDP].payload)[18:] == bytes(size - 4 - 60)


def test_ipv6_frames_are_valid_udp_walking_the_ranges(trafgen, tmp):
    peer, got = StreamPeer(f"{tmp}/s.sock"), []
    t = in_thread(sink, peer, got)
    r = result(run(trafgen, "send", "--port", f"stream:{tmp}/s.sock", "--count", "40",
                   "--sweep", "84,85,1518", "--stream", "5", "--src-ip6", "2001:db8:1::2-2001:db8:1::41",
                   "--dst-ip6", "2001:db8:2::fffe-2001:db8:2::1:5", "--src-port", "1000-1009"))
    t.join(5)
    peer.close()
    assert r["sent"] == 120 and len(got) == 120
    for i, raw in enumerate(got):
        size, seq = (84, 85, 1518)[i // 40], i % 40
        assert len(raw) == size - 4
        p = Ether(raw)
        assert p.type == 0x86DD and (p[IPv6].nh, p[IPv6].hlim, p[IPv6].plen) == (17, 64, size - 4 - 54)
        assert p[IPv6].src == "2001:db8:1::%x" % (2 + seq % 64)
        assert p[IPv6].dst == "2001:db8:2::%s" % ("fffe", "ffff", "1:0", "1:1", "1:2", "1:3", "1:4", "1:5")[seq % 8]
        assert (p[UDP].sport, p[UDP].dport, p[UDP].len) == (1000 + seq % 10, 9, size - 4 - 54)
        q = Ether(raw)
        del q[UDP].chksum                                       # scapy recomputes it
        assert p[UDP].chksum != 0 and Ether(bytes(q))[UDP].chksum == p[UDP].chksum
        magic, stream, s = struct.unpack(">HHQ", bytes(p[UDP].payload)[:12])
        assert (magic, stream, s) == (MAGIC, 5 + i // 40, seq)


def test_tagged_frames_carry_the_tag_in_their_size_and_are_read_under_it(trafgen, tmp):
    """--vlan: each frame has an 802.1Q tag (VID, PCP 0, DEI 0) after its
    MACs, counted in the size (68 is the smallest IPv4 frame, 1522 the
    largest); the same frames fed back are ours, under any VID."""
    peer, got = StreamPeer(f"{tmp}/s.sock"), []
    t = in_thread(sink, peer, got)
    r = result(run(trafgen, "send", "--port", f"stream:{tmp}/s.sock", "--count", "3", "--vlan", "100"))
    t.join(5)
    peer.close()
    assert r["sent"] == 3 and [len(f) for f in got] == [64] * 3
    peer, got6 = StreamPeer(f"{tmp}/t.sock"), []
    t = in_thread(sink, peer, got6)
    r6 = result(run(trafgen, "send", "--port", f"stream:{tmp}/t.sock", "--count", "2", "--vlan", "4094",
                    "--sweep", "88,1522", "--src-ip6", "2001:db8:1::2", "--dst-ip6", "2001:db8:2::2"))
    t.join(5)
    peer.close()
    assert r6["sent"] == 4 and [len(f) for f in got6] == [84, 84, 1518, 1518]
    for raw_ in got + got6:
        p = Ether(raw_)
        assert p.type == 0x8100 and (p[Dot1Q].prio, p[Dot1Q].id) == (0, 0), p
        assert p[Dot1Q].vlan == (100 if raw_ in got else 4094)
        q = Ether(raw_)
        del q[UDP].chksum                                       # scapy recomputes it
        assert p[UDP].chksum != 0 and Ether(bytes(q))[UDP].chksum == p[UDP].chksum
    assert Ether(got[0])[IP].len == 68 - 4 - 18 and Ether(got6[3])[IPv6].plen == 1522 - 4 - 58
    retag = bytearray(got[2])
    retag[15] = 7                                               # VID 7: still ours
    r = received(trafgen, tmp, [got[0], got[1], bytes(retag)])
    assert (r["received"], r["bad"], r["other"]) == (3, 0, 0)


def received(trafgen, tmp, frames):
    """The RESULT of trafgen recv fed frames over a stream port."""
    peer = StreamPeer(f"{tmp}/p.sock")

    def feed():
        peer.accept()
        for f in frames:
            peer.send(f)
        peer.recv(5)

    t = in_thread(feed)
    r = result(run(trafgen, "recv", "--port", f"stream:{tmp}/p.sock", "--timeout", "0.3"))
    t.join(5)
    peer.close()
    return r


def test_ipv6_frames_built_by_scapy_are_recognised_and_bad_checksums_are_not(trafgen, tmp):

    def frame(seq, chksum=None):
        hdr = struct.pack(">HHQ", MAGIC, 1, seq) + bytes(6)
        return bytearray(bytes(Ether() / IPv6(src="2001:db8:1::2", dst="2001:db8:2::2")
                               / UDP(sport=1000, dport=9, chksum=chksum) / Raw(hdr + bytes(8))))

    bad = frame(1)
    bad[-1] ^= 1                                               # payload changed: UDP checksum wrong
    zero = frame(2, chksum=0)                                  # 0: forbidden over IPv6
    short = frame(3)[:-1]                                      # shorter than its payload length

    r = received(trafgen, tmp, [bytes(f) for f in (frame(0), bad, zero, short, frame(4))])
    assert (r["received"], r["bad"], r["other"]) == (2, 3, 0)


def test_neighbor_solicitations_for_our_ipv6_addresses_are_answered(trafgen, tmp):
    asker, asker_ip = "02:00:00:00:aa:01", "2001:db8:2::1"

    def ns(peer, target, src=asker_ip):
        nsma = in6_getnsma(socket.inet_pton(socket.AF_INET6, target))
        peer.send(bytes(Ether(src=asker, dst=in6_getnsmac(nsma))
                        / IPv6(src=src, dst=socket.inet_ntop(socket.AF_INET6, nsma), hlim=255)
                        / ICMPv6ND_NS(tgt=target)))

    def talk(a, b, replies):
        ns(b, "2001:db8:2::99")                # nobody's: no reply
        ns(b, "2001:db8:2::5", src="::")       # a DAD probe: not answered
        ns(b, "2001:db8:2::5")                 # port 1, in --dst-ip6
        replies["b"], replies["b2"] = b.recv(3), b.recv(0.5)

    r, replies = ask(trafgen, tmp, talk, "--src-ip6", "2001:db8:1::2", "--dst-ip6", "2001:db8:2::2-2001:db8:2::9")
    assert (r["arp_replies"], r["other"]) == (1, 3)
    assert replies["b2"] is None
    p = Ether(replies["b"])
    assert len(replies["b"]) == 86 and (p.src, p.dst) == ("02:00:00:00:00:22", asker)
    assert (p[IPv6].src, p[IPv6].dst, p[IPv6].hlim) == ("2001:db8:2::5", asker_ip, 255)
    na = p[ICMPv6ND_NA]
    assert (na.tgt, na.R, na.S, na.O, p[ICMPv6NDOptDstLLAddr].lladdr) == ("2001:db8:2::5", 0, 1, 1,
                                                                          "02:00:00:00:00:22")
    q = Ether(replies["b"])
    del q[ICMPv6ND_NA].cksum                                   # scapy recomputes it
    assert Ether(bytes(q))[ICMPv6ND_NA].cksum == na.cksum


def test_frames_built_by_scapy_are_recognised_and_bad_checksums_are_not(trafgen, tmp):
    good = test_frame(1, 0, 0)
    bad_ip = bytearray(test_frame(1, 1, 0))
    bad_ip[14 + 10] ^= 1                                       # IPv4 header checksum
    no_udp_csum = bytearray(test_frame(1, 2, 0, size=200))
    no_udp_csum[14 + 20 + 6:14 + 20 + 8] = b"\0\0"              # 0: no UDP checksum, valid
    padded = test_frame(1, 3, 0) + bytes(10)                   # Ethernet padding after IP
    short = test_frame(1, 4, 0, size=100)[:-1]                 # shorter than its IP length
    other = bytes(Ether() / IP(dst="10.2.0.2") / UDP(dport=9) / Raw(b"not ours" * 3))

    r = received(trafgen, tmp, [good, bad_ip, bytes(no_udp_csum), padded, short, other])
    assert (r["received"], r["bad"], r["other"]) == (3, 2, 1)
    assert r["expected"] == 4 and r["lost"] == 1      # seq 1 (bad) never counted


def ask(trafgen, tmp, talk, *args):
    """trafgen recv --arp-reply with args on two stream ports, while
    talk(a, b, replies) asks through the peers. Returns (RESULT, replies)."""
    a, b = StreamPeer(f"{tmp}/a.sock"), StreamPeer(f"{tmp}/b.sock")
    replies = {}

    def run_talk():
        a.accept()
        b.accept()
        talk(a, b, replies)

    t = in_thread(run_talk)
    r = result(run(trafgen, "recv", "--port", f"stream:{tmp}/a.sock", "--port", f"stream:{tmp}/b.sock",
                   "--arp-reply", "--rx-mac", "02:00:00:00:00:22", *args, "--duration", "1.5"))
    t.join(5)
    a.close()
    b.close()
    return r, replies


def test_arp_requests_for_our_addresses_are_answered_per_port(trafgen, tmp):
    asker = "02:00:00:00:aa:01"

    def who_has(peer, ip):
        peer.send(bytes(Ether(src=asker, dst="ff:ff:ff:ff:ff:ff")
                        / ARP(op=1, hwsrc=asker, psrc="10.0.0.1", pdst=ip)))

    def talk(a, b, replies):
        who_has(a, "10.9.9.9")                 # nobody's: no reply
        who_has(a, "10.1.0.2")                 # port 0, --src-ip
        who_has(b, "10.2.0.5")                 # port 1, in --dst-ip
        replies["a"], replies["b"] = a.recv(3), b.recv(3)
        replies["a2"] = a.recv(0.5)

    r, replies = ask(trafgen, tmp, talk, "--src-mac", "02:00:00:00:00:11", "--dst-ip", "10.2.0.2-10.2.0.9")
    assert (r["arp_replies"], r["other"]) == (2, 3)
    assert replies["a2"] is None
    for key, mac, ip in (("a", "02:00:00:00:00:11", "10.1.0.2"), ("b", "02:00:00:00:00:22", "10.2.0.5")):
        p = Ether(replies[key])
        assert len(replies[key]) == 60 and (p.src, p.dst) == (mac, asker)
        assert (p[ARP].op, p[ARP].hwsrc, p[ARP].psrc) == (2, mac, ip)
        assert (p[ARP].hwdst, p[ARP].pdst) == (asker, "10.0.0.1")


def test_tagged_requests_are_answered_under_their_tag(trafgen, tmp):
    """An ARP request and an NS under an 802.1Q tag (a router's VLAN
    sub-interface asking) get their answers under the same tag."""
    asker = "02:00:00:00:aa:01"

    def talk(a, b, replies):
        a.send(bytes(Ether(src=asker, dst="ff:ff:ff:ff:ff:ff") / Dot1Q(vlan=100, prio=3)
                     / ARP(op=1, hwsrc=asker, psrc="10.1.0.1", pdst="10.1.0.2")))
        replies["a"] = a.recv(3)

    r, replies = ask(trafgen, tmp, talk, "--src-mac", "02:00:00:00:00:11")
    assert (r["arp_replies"], r["other"]) == (1, 1)
    p = Ether(replies["a"])
    assert len(replies["a"]) == 60 and (p.src, p.dst) == ("02:00:00:00:00:11", asker)
    assert (p[Dot1Q].vlan, p[Dot1Q].prio, p[Dot1Q].type) == (100, 3, 0x0806)
    assert (p[ARP].op, p[ARP].hwsrc, p[ARP].psrc, p[ARP].pdst) == (2, "02:00:00:00:00:11", "10.1.0.2", "10.1.0.1")

    def talk6(a, b, replies):
        nsma = in6_getnsma(socket.inet_pton(socket.AF_INET6, "2001:db8:2::2"))
        b.send(bytes(Ether(src=asker, dst=in6_getnsmac(nsma)) / Dot1Q(vlan=200)
                     / IPv6(src="2001:db8:2::1", dst=socket.inet_ntop(socket.AF_INET6, nsma), hlim=255)
                     / ICMPv6ND_NS(tgt="2001:db8:2::2")))
        replies["b"] = b.recv(3)

    os.mkdir(f"{tmp}/6")
    r, replies = ask(trafgen, f"{tmp}/6", talk6, "--src-ip6", "2001:db8:1::2", "--dst-ip6", "2001:db8:2::2")
    assert (r["arp_replies"], r["other"]) == (1, 1)
    p = Ether(replies["b"])
    assert len(replies["b"]) == 90 and p[Dot1Q].vlan == 200 and p[ICMPv6ND_NA].tgt == "2001:db8:2::2"
    q = Ether(replies["b"])
    del q[ICMPv6ND_NA].cksum                                   # scapy recomputes it
    assert Ether(bytes(q))[ICMPv6ND_NA].cksum == p[ICMPv6ND_NA].cksum


def test_send_mode_dgram_delivers_exactly_count(trafgen):
    mine, theirs = free_udp_ports(2)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    s.bind(("127.0.0.1", theirs))
    r = result(run(trafgen, "send", "--port", f"dgram:{mine}:{theirs}", "--count", "1000",
                   "--rate", "50kpps", "--size", "1518"))
    s.settimeout(1)
    lens = []
    try:
        while True:
            data, src = s.recvfrom(65536)
            assert src == ("127.0.0.1", mine)
            lens.append(len(data))
    except socket.timeout:
        pass
    s.close()
    assert r["sent"] == 1000 and lens == [1514] * 1000


# ---- tap: a veth pair in a namespace this test makes ----

@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("ip"), reason="needs root and iproute2")
def test_tap_ports_on_a_veth_pair_in_a_namespace(trafgen):
    ns = f"tgtest{os.getpid()}"

    def sh(*cmd):
        subprocess.run(["ip", "netns", "exec", ns, *cmd], check=True, timeout=10,
                       capture_output=True)

    subprocess.run(["ip", "netns", "add", ns], check=True, timeout=10)
    try:
        sh("sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1")
        sh("sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1")
        sh("ip", "link", "add", "tg0", "type", "veth", "peer", "name", "tg1")
        sh("ip", "link", "set", "tg0", "up")
        sh("ip", "link", "set", "tg1", "up")
        p = subprocess.run(["ip", "netns", "exec", ns, trafgen, "both", "--port", "tap:tg0",
                            "--port", "tap:tg1", "--count", "2000", "--sweep", "64,1518"],
                           capture_output=True, text=True, timeout=60)
        r = result(p)
        assert r["stop"] == "complete"
        assert [(row["sent"], row["received"], row["lost"], row["bytes"]) for row in r["rows"]] == \
            [(2000, 2000, 0, 2000 * 64), (2000, 2000, 0, 2000 * 1518)]
    finally:
        subprocess.run(["ip", "netns", "del", ns], timeout=10)
