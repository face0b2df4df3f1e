"""pcap replay (issue 28) in QEMU: app=replay on one e1000e port sends the
frames of a file booted as its module (-initrd, as GRUB's module2) out of
the port. A pcapng file written by scapy: at its recorded timing, at
replay_pps, at topspeed with replay_loop and tcprewrite's MAC rewrites,
then its address maps (checksums as scapy computes them) and
tcprewrite's --pnat (ARP's addresses too) against Debian's tcprewrite;
every frame arrives on the host socket byte for byte (QEMU's e1000e
pads no short frame) and in order, the frame too large for
the MTU counted in skipped_mtu; ptp4l's capture (tests/unit/data) as
classic pcap; the same capture loaded by GRUB's module2 from an ISO; a
truncated file refused at boot with the offset; ptp4l's UDP capture at
replay_speed=1 under QEMU's -icount, its gaps read back from QEMU's
filter-dump."""
import os
import re
import shutil
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
sys.path.insert(0, os.path.dirname(__file__))
from netio import StreamPort  # noqa: E402
from qemurun import Qemu  # noqa: E402

from scapy.all import ARP, IP, UDP, Ether, rdpcap, wrpcap  # noqa: E402
from scapy.utils import PcapNgWriter  # noqa: E402

PROMPT = "linerate> "
ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
BUILD = os.path.join(ROOT, "build")
PTP_PCAP = os.path.join(os.path.dirname(__file__), "..", "unit", "data", "ptp4l-l2-e2e-twostep.pcap")
PTP_UDP_PCAP = os.path.join(os.path.dirname(__file__), "..", "unit", "data", "ptp4l-udp4-e2e-twostep.pcap")
GAP = 0.01      # s between the pcapng file's frames
DONE = r"replay: port0: done: (\d+) frames, (\d+) bytes in (\d+)\.(\d+) s, (\d+) loops, skipped_mtu (\d+)"


def pcap_frames():
    """20 frames of 42..1514 bytes, GAP apart, and one of 1600 (past the MTU)
    between them."""
    out = []
    for i in range(20):
        if i % 5 == 0:
            p = Ether(src="02:00:00:00:00:01", dst="ff:ff:ff:ff:ff:ff") / ARP(psrc="10.1.0.2", pdst=f"10.1.0.{i}")
        else:
            size = 60 + (1514 - 60) * i // 19
            p = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02") / IP(src="10.1.0.2", dst="10.2.0.2") / \
                UDP(sport=1234, dport=5678 + i)
            p = p / bytes((i + k) & 0xff for k in range(size - len(p)))
        p.time = 1000 + i * GAP
        out.append(p)
    big = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02") / IP() / UDP() / bytes(1600 - 42)
    big.time = 1000 + 9.5 * GAP
    out.insert(10, big)
    return out


def same(got, want):
    """got equals want, frame by frame (the first difference named, not
    the whole lists)."""
    assert len(got) == len(want), (len(got), len(want))
    bad = [i for i, (g, w) in enumerate(zip(got, want)) if g != w]
    assert not bad, (bad[0], got[bad[0]].hex(), want[bad[0]].hex())


def tcprewrite(tmp_path, frames, *opts):
    """frames as Debian's tcprewrite rewrites them with opts."""
    src, dst = tmp_path / "in.pcap", tmp_path / "out.pcap"
    wrpcap(str(src), [Ether(f) for f in frames])
    subprocess.run(["tcprewrite", "-i", str(src), "-o", str(dst)] + list(opts), check=True, capture_output=True)
    return [bytes(p) for p in rdpcap(str(dst))]


def boot(module, tmp_path, extra=""):
    return Qemu(boot="kernel", mem="128M", nics=["e1000e:netdev=stream"],
                extra=["-initrd", str(module)], append="stats=0 app=replay replay_start=shell " + extra)


@pytest.fixture
def pcapng(tmp_path):
    path = tmp_path / "replay.pcapng"
    with PcapNgWriter(str(path)) as w:
        for p in pcap_frames():
            w.write(p)
    return path


def shell(q, line):
    q.send(line + "\r")
    q.expect(re.escape(line) + r"\r\n", 30)
    return q.expect(r"(?s)(.*?)" + PROMPT, 30).group(1).decode()


def run(q, port, n):
    """replay start; the n frames received and the done line's numbers."""
    shell(q, "replay start")
    got = port.recv(n, timeout=60)
    m = q.expect(DONE, 60)
    return got, [int(x) for x in m.groups()]


def test_replay_pcapng(pcapng, tmp_path):
    frames = [bytes(p) for p in pcap_frames() if len(p) <= 1514]
    q = boot(pcapng, tmp_path)
    try:
        q.expect(r"replay: pcapng of 21 frames, (\d+) bytes, longest 1600, over 0\.190000 s", 60)
        q.expect(r"port0: link up", 60)
        q.send("\r")
        q.expect(PROMPT, 30)
        port = StreamPort(q.nic_sock(0))

        # recorded timing: every frame, in order; the run lasts the file's span at least
        got, (n, nbytes, s, us, loops, skipped) = run(q, port, 20)
        same(got, frames)
        assert (n, nbytes, loops, skipped) == (20, sum(len(f) for f in frames), 1, 1)
        assert s * 1000000 + us >= 19 * GAP * 1e6
        out = shell(q, "replay")
        assert re.search(r"replay port0: packets 20 bytes \d+ loops 1 skipped_mtu 1 ", out), out

        # 200 frames/s: 20 frames take 95 ms at least
        shell(q, "set replay_pps 200")
        got, (n, _, s, us, loops, skipped) = run(q, port, 20)
        same(got, frames)
        assert (n, loops, skipped) == (20, 1, 1)
        assert s * 1000000 + us >= 19 * 1e6 / 200

        # two of the paces at once: refused
        shell(q, "set replay_topspeed 1")
        out = shell(q, "replay start")
        assert "replay_pps=200, replay_mbps=0, replay_topspeed=1: give one of them" in out, out

        # topspeed, three passes, MACs rewritten as tcprewrite --enet-dmac/--enet-smac
        for line in ("set replay_pps 0", "set replay_loop 3", "set replay_dmac 02:00:00:00:00:99",
                     "set replay_smac 02:00:00:00:00:98"):
            shell(q, line)
        got, (n, _, _, _, loops, skipped) = run(q, port, 60)
        rewritten = [bytes.fromhex("020000000099020000000098") + f[12:] for f in frames]
        same(got, rewritten * 3)
        assert (n, loops, skipped) == (60, 3, 3)
        assert port.recv(1, timeout=1) == []

        # and the addresses, as tcprewrite --srcipmap/--dstipmap: scapy
        # recomputes the IPv4 and UDP checksums of what we expect
        out = shell(q, "set replay_srcipmap 10.1.0.0/16")
        assert "bad pair '10.1.0.0/16'" in out and "[ADDR6/LEN]:[ADDR6/LEN]" in out, out
        for line in ("set replay_loop 1", "set replay_srcipmap 10.1.0.0/16:192.168.7.0/24",
                     "set replay_dstipmap 10.0.0.0/8:172.16.0.0/12,[2001:db8::/32]:[fd00::/8]"):
            assert "bad" not in shell(q, line), line
        assert "replay_dstipmap=10.0.0.0/8:172.16.0.0/12,[2001:db8::/32]:[fd00::/8]" in shell(q, "show config")
        got, (n, _, _, _, loops, skipped) = run(q, port, 20)
        want = []
        for f in rewritten:
            p = Ether(f)
            if IP in p:
                p[IP].src, p[IP].dst = "192.168.7.2", "172.18.0.2"
                del p[IP].chksum, p[UDP].chksum
            want.append(bytes(p))
        same(got, want)
        assert (n, loops, skipped) == (20, 1, 1)
        assert re.search(r"replay port0: .* rewritten 16( |$)", shell(q, "replay"), re.M)

        # tcprewrite --pnat (one map for both addresses, ARP's too): refused
        # beside --srcipmap as tcprewrite refuses it; then the frames equal
        # what Debian's tcprewrite makes of the same file
        pnat = "10.1.0.0/16:192.168.7.0/24,10.2.0.0/16:172.16.0.0/12"
        shell(q, "set replay_pnat " + pnat)
        out = shell(q, "replay start")
        assert "replay: replay_pnat and replay_srcipmap conflict (as tcprewrite's --pnat and --srcipmap)" in out, out
        shell(q, "set replay_srcipmap off")
        shell(q, "set replay_dstipmap off")
        got, (n, _, _, _, loops, skipped) = run(q, port, 20)
        same(got, tcprewrite(tmp_path, rewritten, "--pnat=" + pnat))
        assert (n, loops, skipped) == (20, 1, 1)
        assert re.search(r"replay port0: .* rewritten 20( |$)", shell(q, "replay"), re.M)
        port.close()
    finally:
        q.stop()


def test_replay_ptp4l_pcap(tmp_path):
    """ptp4l's capture as it was recorded (classic pcap, us), at topspeed:
    its 54 frames. replay_start=link (the default): the first run as the
    link comes up, before the test listens (QEMU drops what it sends then);
    the second at `replay start`."""
    frames = [bytes(p) for p in rdpcap(PTP_PCAP)]
    q = Qemu(boot="kernel", mem="128M", nics=["e1000e:netdev=stream"], extra=["-initrd", PTP_PCAP],
             append="stats=0 app=replay replay_topspeed=1")
    try:
        q.expect(rf"replay: pcap of {len(frames)} frames, {sum(map(len, frames))} bytes", 60)
        q.expect(rf"replay: port0: started: {len(frames)} frames, topspeed, loop 1", 60)
        q.expect(rf"replay: port0: done: {len(frames)} frames, {sum(map(len, frames))} bytes", 60)
        q.send("\r")
        q.expect(PROMPT, 30)
        port = StreamPort(q.nic_sock(0))
        got, (n, _, _, _, loops, skipped) = run(q, port, len(frames))
        same(got, frames)
        assert (n, loops, skipped) == (len(frames), 1, 0)
        port.close()
    finally:
        q.stop()


def grub_iso(tmp_path, module, knobs):
    """A BIOS GRUB ISO made as make makes build/linerate.iso, whose one
    entry boots the kernel with knobs and loads module as GRUB's module2
    (the issue's `module2 /replay.pcap replay`)."""
    root = tmp_path / "iso"
    (root / "boot" / "grub").mkdir(parents=True)
    shutil.copy(os.path.join(BUILD, "linerate.elf"), root / "boot" / "linerate.elf")
    shutil.copy(os.path.join(ROOT, "boot", "serial.cfg"), root / "boot" / "grub" / "serial.cfg")
    shutil.copy(module, root / "replay.pcap")
    (root / "boot" / "grub" / "grub.cfg").write_text(
        'source "${prefix}/serial.cfg"\nset timeout=0\nmenuentry "linerate: replay /replay.pcap" {\n'
        f"\tmultiboot2 /boot/linerate.elf {knobs}\n\tmodule2 /replay.pcap replay\n\tboot\n}}\n")
    iso = tmp_path / "replay.iso"
    subprocess.run(["grub-mkrescue", "-d", "/usr/lib/grub/i386-pc", "-o", str(iso), "--fonts=", "--locales=",
                    "--themes=", "--install-modules=normal configfile multiboot2 iso9660 serial terminal test",
                    str(root)], check=True, capture_output=True)
    return iso


def test_replay_grub_module2(tmp_path):
    """ptp4l's capture loaded by GRUB (BIOS, from an ISO) as a Multiboot2
    module: read as with -initrd, and its 54 frames sent byte for byte."""
    frames = [bytes(p) for p in rdpcap(PTP_PCAP)]
    iso = grub_iso(tmp_path, PTP_PCAP, "stats=0 app=replay replay_start=shell replay_topspeed=1")
    q = Qemu(boot="iso-bios", iso=str(iso), mem="128M", nics=["e1000e:netdev=stream"])
    try:
        q.expect(rf"replay: pcap of {len(frames)} frames, {sum(map(len, frames))} bytes", 120)  # BIOS, GRUB, then the kernel
        q.expect(r"port0: link up", 60)
        q.send("\r")
        q.expect(PROMPT, 30)
        port = StreamPort(q.nic_sock(0))
        got, (n, _, _, _, loops, skipped) = run(q, port, len(frames))
        same(got, frames)
        assert (n, loops, skipped) == (len(frames), 1, 0)
        port.close()
    finally:
        q.stop()


def test_replay_truncated_refused(tmp_path):
    """A classic pcap whose last record runs past the end: refused at boot
    with its offset; `replay` says it does not run."""
    path = tmp_path / "cut.pcap"
    frames = [Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02") / IP() / UDP() / bytes(100)] * 3
    wrpcap(str(path), frames)
    data = path.read_bytes()
    path.write_bytes(data[:-10])
    last = 24 + 2 * (16 + 142)
    q = boot(path, tmp_path)
    try:
        q.expect(rf"replay: the module \({len(data) - 10} bytes\) refused: offset {last}: record of 142 bytes runs "
                 rf"past the end of the file \(132 bytes left\)", 60)
        q.expect(r"port0: link up", 60)
        q.send("\r")
        q.expect(PROMPT, 30)
        assert "replay: not running" in shell(q, "replay")
    finally:
        q.stop()


def test_replay_recorded_gaps_under_icount(tmp_path):
    """ptp4l's UDP/IPv4 capture (53 frames over 19.7 s, gaps of 14 us to
    2.7 s) at replay_speed=1. Under TCG the guest's time is the host's, so
    a loaded host stretches gaps by milliseconds; with -icount shift=5 the
    guest's TSC and QEMU's virtual clock, which filter-dump stamps frames
    with (us), both count guest instructions (32 ns each), and the 20 s run
    takes a few host seconds. The wire equals the file byte for byte; its
    gaps are the file's times one scale, the error of the TSC frequency the
    guest measured against the PIT over 2 ms (78 ppm when tried), each
    within 40 us of it (a turn of the poll loop; 11 us when tried)."""
    frames = rdpcap(PTP_UDP_PCAP)
    wire = tmp_path / "wire.pcap"
    q = Qemu(boot="kernel", mem="128M", nics=["e1000e:netdev=stream"],
             extra=["-initrd", PTP_UDP_PCAP, "-icount", "shift=5",
                    "-object", f"filter-dump,id=wire,netdev=n0,file={wire}"],
             append="stats=0 app=replay replay_start=shell")
    try:
        q.expect(r"port0: link up", 60)
        q.send("\r")
        q.expect(PROMPT, 30)
        port = StreamPort(q.nic_sock(0))
        got, (n, _, _, _, loops, skipped) = run(q, port, len(frames))
        same(got, [bytes(f) for f in frames])
        assert (n, loops, skipped) == (len(frames), 1, 0)
        port.close()
    finally:
        q.stop()
    sent = rdpcap(str(wire))
    same([bytes(f) for f in sent], [bytes(f) for f in frames])
    tf = [float(f.time) for f in frames]
    tw = [float(f.time) for f in sent]
    scale = (tw[-1] - tw[0]) / (tf[-1] - tf[0])
    assert abs(scale - 1) < 5e-4, scale
    err = [(d - c) - (b - a) * scale for a, b, c, d in zip(tf, tf[1:], tw, tw[1:])]
    assert max(map(abs, err)) < 40e-6, [round(e * 1e6) for e in err]
