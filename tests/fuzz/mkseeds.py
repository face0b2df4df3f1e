#!/usr/bin/python3
"""Write the seed corpora of the fuzz harnesses into tests/fuzz/seeds/NAME/:
frames from the real captures in --captures (default shared/captures beside
the checkout, when present; the
seeds made from them are committed, so CI needs no captures), the frames
the QEMU tests send (scapy), the config spaces captured from QEMU
(tests/unit/pci_images.h), command lines and shell sessions from docs/.
Run it again after adding a harness; it replaces the seed directories.

    tests/fuzz/mkseeds.py [--captures DIR]
"""
import argparse
import glob
import hashlib
import os
import re
import shutil
import struct
import subprocess
import tempfile

from scapy.all import ARP, ICMP, IP, TCP, UDP, Dot1Q, Ether, Raw, raw, rdpcap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEEDS = os.path.join(ROOT, "tests", "fuzz", "seeds")
MAC0 = "02:00:00:00:00:10"      # fuzz_router's port 0
MAC1 = "02:00:00:00:00:11"


def test_frames():
    """The kinds of frames tests/qemu/test_fwd_l3.py and the battery send."""
    h = "02:00:00:00:00:01"
    u = lambda dst, **kw: Ether(src=h, dst=MAC0) / IP(src="10.1.0.2", dst=dst, **kw) / UDP(sport=1000, dport=2000) / Raw(b"x" * 32)
    out = [u("10.3.0.5"), u("10.4.0.9"), u("10.9.9.9"), u("10.3.0.5", ttl=1), u("10.1.0.1"),
           u("10.2.0.2", options=[b"\x94\x04\x00\x00"]), u("10.3.0.5", flags="MF"), u("10.3.0.5", frag=100),
           u("224.0.0.5"), u("10.1.0.255"),
           Ether(src=h, dst=MAC0) / IP(src="10.1.0.2", dst="10.1.0.1") / ICMP(type=8, id=1, seq=1) / Raw(b"ping"),
           Ether(src=h, dst="ff:ff:ff:ff:ff:ff") / ARP(op=1, hwsrc=h, psrc="10.1.0.2", pdst="10.1.0.1"),
           Ether(src=h, dst=MAC0) / ARP(op=2, hwsrc=h, psrc="10.1.0.254", hwdst=MAC0, pdst="10.1.0.1"),
           Ether(src="02:00:00:00:00:22", dst=MAC1) / ARP(op=2, hwsrc="02:00:00:00:00:22", psrc="10.2.0.2",
                                                          hwdst=MAC1, pdst="10.2.0.1"),
           Ether(src=h, dst=MAC0) / Dot1Q(vlan=5) / IP(src="10.1.0.2", dst="10.3.0.5") / UDP()]
    return [raw(f) for f in out]


def capture_frames(captures, n=12):
    """About n frames of each capture, evenly spaced."""
    frames = []
    for path in sorted(glob.glob(os.path.join(captures, "*.pcap"))):
        pk = rdpcap(path)
        step = max(1, len(pk) // n)
        frames += [raw(p) for p in pk[::step][:n]]
    return frames


def router_program(frames, port=0):
    """fuzz_router ops: a frame on port with flags 1|8 (our MAC, checksum),
    length in units of 7 bytes (the frame padded), then a timer tick."""
    prog = b""
    for f in frames:
        f = f[:1514]
        units = (len(f) + 6) // 7
        f = f + bytes(units * 7 - len(f))
        prog += bytes([port, 1 | 8, units]) + f
    return prog + bytes([4, 20])


def router_burst_program():
    """fuzz_router ops for the lane (apps/fwd/l3.c): a frame to 10.3.0.5
    held while port 1 resolves its next hop 10.2.0.2, then bursts (flag 32)
    of such frames with the NIC's checksum verdict (16), among them one
    with TTL 1, one with a wrong checksum, one with options, one from
    0.0.0.0 and an ARP; the last burst again (its destination known)."""
    t = test_frames()
    fwd, ttl1, opts, arp_in, arp1 = t[0], t[3], t[5], t[11], t[13]
    zero = raw(Ether(src="02:00:00:00:00:01", dst=MAC0) / IP(src="0.0.0.0", dst="10.3.0.5") /
               UDP(sport=1000, dport=2000) / Raw(b"x" * 32))
    bad = bytearray(fwd)
    bad[24] ^= 0xff   # header checksum
    op = lambda port, flags, f: bytes([port, flags, (len(f) + 6) // 7]) + f + bytes(-len(f) % 7)
    prog = op(0, 1 | 8, fwd) + op(1, 1, arp1)
    for burst in ([fwd] * 4, [fwd, fwd, ttl1, fwd, bytes(bad), fwd, opts, fwd, zero, fwd, arp_in, fwd, fwd],
                  [zero, fwd]):
        prog += b"".join(op(0, (1 | 16) | (32 if k else 0), f) for k, f in enumerate(burst))
    return prog + bytes([4, 20])


def router_v6_burst_program():
    """fuzz_router ops for the IPv6 fast path (apps/fwd/l3v6.c) and the
    router's VLAN tags: a frame to 2001:db8:3::5 held while port 1 resolves
    2001:db8:2::2 (an NA answers the NS), then bursts (flag 32) of such
    frames with, among them, hop limit 1, our own source, a link-local
    source, a Hop-by-Hop header, a cut frame, a priority tag (802.1Q VID
    0), VLAN 100 and a double tag; the last burst again."""
    from scapy.layers.inet6 import ICMPv6ND_NA, ICMPv6NDOptDstLLAddr, IPv6, IPv6ExtHdrHopByHop
    h = "02:00:00:00:00:01"

    def u(tag=None, **kw):
        ip = IPv6(**{"src": "2001:db8:1::2", "dst": "2001:db8:3::5", **kw}) / UDP(sport=1000, dport=2000) / \
            Raw(b"x" * 26)
        eth = Ether(src=h, dst=MAC0)
        return raw(eth / tag / ip if tag is not None else eth / ip)
    fwd = u()
    na = raw(Ether(src="02:00:00:00:00:22", dst=MAC1) / IPv6(src="2001:db8:2::2", dst="fe80::ff:fe00:11", hlim=255) /
             ICMPv6ND_NA(tgt="2001:db8:2::2", R=0, S=1, O=1) / ICMPv6NDOptDstLLAddr(lladdr="02:00:00:00:00:22"))
    hbh = raw(Ether(src=h, dst=MAC0) / IPv6(src="2001:db8:1::2", dst="2001:db8:3::5") / IPv6ExtHdrHopByHop() /
              UDP(sport=1000, dport=2000) / Raw(b"x" * 26))
    odd = [u(hlim=1), u(src="2001:db8:2::1"), u(src="fe80::2"), hbh, fwd[:-3], u(tag=Dot1Q(vlan=0, prio=5)),
           u(tag=Dot1Q(vlan=100)), u(tag=Dot1Q(vlan=5) / Dot1Q(vlan=6))]
    op = lambda port, flags, f: bytes([port, flags, (len(f) + 6) // 7]) + f + bytes(-len(f) % 7)
    prog = op(0, 1, fwd) + op(1, 1, na)
    last = [x for o in odd for x in (fwd, o)] + [fwd]
    for burst in ([fwd] * 4, last, last):
        prog += b"".join(op(0, 1 | (32 if k else 0), f) for k, f in enumerate(burst))
    return prog + bytes([4, 20])


def lwip_programs():
    """fuzz_lwip programs: ARP from the peer first (lwIP learns it), then
    ping, UDP to rr's port, echo and sockperf, and TCP sessions to rr and to
    HTTP (lwIP's first ISS after the harness's set-up is 6510), each frame
    with flags 1|4 (our MAC; checksums as the NIC verified), timers after."""
    me, peer, hmac = "10.1.0.1", "10.1.0.2", "02:00:00:00:00:01"
    e = lambda: Ether(src=hmac, dst="02:00:00:00:00:10")
    arp = e() / ARP(op=1, hwsrc=hmac, psrc=peer, pdst=me)
    ip = lambda **kw: e() / IP(src=peer, dst=me, **kw)

    def prog(frames):
        out = b""
        for f in frames:
            if f is None:
                out += bytes([3, 10])
                continue
            f = raw(f)
            units = (len(f) + 6) // 7
            out += bytes([0, 1 | 4, units]) + f + bytes(units * 7 - len(f))
        return out + bytes([3, 100])

    def tcp(dport, data):
        return [ip() / TCP(sport=40000, dport=dport, flags="S", seq=1000), None,
                ip() / TCP(sport=40000, dport=dport, flags="A", seq=1001, ack=6511),
                ip() / TCP(sport=40000, dport=dport, flags="PA", seq=1001, ack=6511) / Raw(data), None,
                ip() / TCP(sport=40000, dport=dport, flags="FA", seq=1001 + len(data), ack=6511), None]
    return [prog([arp]),
            prog([arp, ip() / ICMP(type=8, id=1, seq=1) / Raw(b"ping")]),
            prog([arp, ip() / UDP(sport=1000, dport=12866) / Raw(b"x")]),
            prog([arp, ip() / UDP(sport=1000, dport=7) / Raw(b"echo")]),
            prog([arp, ip() / UDP(sport=1000, dport=11111) / Raw(struct.pack(">IIII", 0, 0, 16, 1) + bytes(8))]),
            prog([arp, ip(flags="MF") / UDP(sport=1000, dport=7) / Raw(b"x" * 16)]),
            prog([arp] + tcp(12866, b"x")),
            prog([arp] + tcp(7, b"hello")),
            prog([arp] + tcp(80, b"GET /metrics HTTP/1.0\r\n\r\n")),
            prog([arp] + tcp(80, b"POST / HTTP/1.1\r\nHost: x\r\n\r\n"))]


def http_programs():
    """fuzz_http programs: client 0 connects (acknowledging), sends a
    request as one segment (op 1) or as two, the idle hook runs; then a
    client that never reads, and a SYN flood of half-open connections."""
    def send(c, data):
        return bytes([c * 8 + 1, len(data)]) + data
    reqs = [b"GET /metrics HTTP/1.0\r\n\r\n", b"GET / HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n",
            b"GET /config?x HTTP/1.0\n\n", b"POST / HTTP/1.0\r\n\r\n", b"GET /nope HTTP/1.0\r\n\r\n",
            b"\r\n\r\n", b"GET / HTTP/1.0\r\nX: \x01\r\n\r\n", b"GET / HTTP/1.0\r\n" + b"X: " + b"a" * 200]
    out = [bytes([0, 0]) + send(0, r) + bytes([6, 6, 5, 10]) for r in reqs]
    out.append(bytes([0, 0]) + send(0, reqs[0][:9]) + bytes([5, 50]) + send(0, reqs[0][9:]) + bytes([6, 6, 3, 6]))
    out.append(bytes([0, 1, 7, 0, 6, 6, 8, 0, 15, 0, 6, 6, 2, 6, 5, 100]))
    out.append(b"".join(bytes([c * 8, 1]) for c in range(20)) + bytes([5, 255, 5, 255]))
    return out


def iperf3_programs():
    """fuzz_iperf3 programs (op b % 13 on client b // 13): whole tests as
    iperf3 -c runs them (TCP, -P 4, -R -P 2, --bidir, UDP, UDP -R -P 2),
    then a second client refused while one runs, a stream with another
    test's cookie, a parameter length past the bound, a control client
    gone silent mid-test and one reset mid-test."""
    def op(c, o, *arg):
        return bytes([c * 13 + o, *arg])
    def start(params, streams, udp=False):
        p = op(0, 0, 2) + op(0, 6, 0) + op(0, 7, params)
        for s in range(1, streams + 1):
            p += op(s, 11, 0) if udp else op(s, 0, 2) + op(s, 6, 0)
        return p
    def end():
        return op(0, 5, 50) + op(0, 8, 0) + op(0, 9, 0) + op(0, 8, 1)
    data = lambda s: op(s, 10, 100) + op(s, 2)
    udp = lambda s: op(s, 11, 1) + op(s, 11, 1 + 5 * 8) + op(s, 11, 3 + 8)
    return [start(0, 1) + data(1) + end(),
            start(1, 4) + b"".join(data(s) for s in range(1, 5)) + end(),
            start(2, 2) + op(1, 2) + op(2, 2) + op(0, 5, 20) + op(1, 2) + end(),
            start(3, 2) + data(1) + op(2, 2) + end(),
            start(4, 1, udp=True) + udp(1) + end(),
            start(5, 2, udp=True) + op(0, 12, 1) + op(0, 5, 10) + end(),
            start(6, 2, udp=True) + op(1, 11, 2) + op(0, 12, 1) + end(),
            start(0, 1) + op(3, 0, 2) + op(3, 6, 0) + data(1) + end(),
            start(1, 0) + op(1, 0, 2) + op(1, 6, 1) + op(2, 0, 2) + op(2, 6, 0x80 | 20) + end(),
            op(0, 0, 2) + op(0, 6, 0) + op(0, 7, 21),
            start(0, 1) + data(1),
            start(2, 2) + data(1) + op(0, 4)]


def dhcp_programs():
    """fuzz_dhcp programs: OFFER, ACK (op 1: type, yiaddr, mask, router,
    lease, T1, T2), the ARP check's second, renewals, a NAK, a claim of the
    address on offer, and one reply as raw BOOTP with its options (op 0)."""
    def whole(t, addr=(10, 1, 0, 50), mask=(255, 255, 255, 0), lease=3600):
        return bytes([1, t]) + bytes(addr) + bytes(mask) + bytes([10, 1, 0, 254]) + \
            struct.pack(">III", lease, lease // 2, lease * 7 // 8)
    tick = lambda k: bytes([3, k])
    bound = whole(2) + tick(0) + whole(5) + tick(6) + tick(6) + tick(6)
    opts = bytes([53, 1, 2, 54, 4, 10, 1, 0, 254, 51, 4, 0, 0, 14, 16, 1, 4, 255, 255, 255, 0, 3, 4, 10, 1, 0, 254,
                  6, 4, 10, 1, 0, 254, 12, 3, 98, 111, 120, 255])
    raw_offer = bytes([0, 0, (len(opts) + 4 + 3) // 4]) + bytes(16) + bytes([10, 1, 0, 51]) + bytes(216) + \
        b"\x63\x82\x53\x63" + opts + bytes(-(len(opts) + 4) % 4 + 4)
    return [bound, bound + tick(17) + whole(5) + tick(17) + tick(19),
            bound + tick(19) + tick(19) + tick(19), whole(2) + tick(0) + whole(6) + tick(5),
            whole(2) + tick(0) + whole(5) + bytes([2]) + tick(6) + tick(6) + tick(6), raw_offer + tick(0) + whole(5) + tick(6) + tick(6) + tick(6),
            whole(2, mask=(255, 0, 255, 0)) + tick(0) + whole(5, mask=(255, 0, 255, 0)) + tick(6) + tick(6) + tick(6),
            whole(2, addr=(10, 1, 0, 255)) + tick(0) + whole(5, addr=(10, 1, 0, 255)) + tick(6) + tick(6) + tick(6),
            whole(2, addr=(10, 2, 0, 9)) + tick(0) + whole(5, addr=(10, 2, 0, 9)) + tick(6) + tick(6) + tick(6)]


def ptpport_programs():
    """fuzz_ptpport programs (op 1: a message built by the harness, op 2:
    time, op 3: hardware stamps): a better master's Announces, then Sync/Follow_Up pairs and the
    Delay_Req exchange with timestamps near the port's clock; a master port
    answering Delay_Req; the same over UDPv4, with software stamps, with RX
    hardware stamps, with TX stamps withheld."""
    def msg(t, flags, li=0, p1=1):
        v = bytes([t, flags, 0, 7]) + bytes(7) + b"\x10" + bytes([li & 255]) + b"\x00\x64" + bytes(8)
        return bytes([1]) + v + bytes([p1, 6, 0x21, 0x43, 0, 128]) + bytes(8) + bytes([0, 0, 0xa0])
    near = 4 | 16 | 32
    wait = lambda n: bytes([2, n])
    pair = msg(0, 8 | near) + msg(1, near) + wait(50)
    slave = msg(4, 32, 1) + wait(100) + msg(4, 32, 1) + wait(100) + pair + pair + msg(3, near) + pair * 3
    master = wait(200) + wait(200) + msg(2, 1 | near) + wait(50) + msg(4, 2 | 32, 1, 200) + wait(50)
    stamps = lambda tx_off, rx_on: bytes([3, tx_off | rx_on << 1, 0, 40])     # op 3: the fake clock's stamps
    return [bytes([0]) + slave, bytes([4]) + slave, bytes([8]) + slave, bytes([1]) + master,
            bytes([2]) + slave + msg(4, 1 | 32, 1, 0) + wait(100) + msg(4, 1 | 32, 1, 0) + wait(255),
            bytes([0]) + stamps(0, 1) + slave, bytes([0]) + stamps(1, 1) + slave + wait(200),
            bytes([1]) + stamps(1, 0) + master]


def pci_spaces():
    text = open(os.path.join(ROOT, "tests", "unit", "pci_images.h")).read()
    out = []
    for name, body in re.findall(r'\{ "(\w+)", \{[^}]*\}, \{(.*?)\{ 0xffff, 0 \}', text, re.S):
        space = bytearray(4096)
        for off, v in re.findall(r"\{ (0x[0-9a-f]+), (0x[0-9a-f]+) \}", body):
            struct.pack_into("<I", space, int(off, 16), int(v, 16))
        out.append(b"\x01" + bytes(space))
        out.append(b"\x00" + bytes(space[:256]))
    return out


def acpi_tables():
    """RSDP (revision 2) at the arena's start, an XSDT and an RSDT listing a
    MADT (2 LAPICs, an I/O APIC, an override) and an MCFG, at fuzz_acpi's
    fixed address; flags byte 7: the harness fixes every checksum."""
    A = 0x20000000
    def sdt(sig, body):
        return sig + struct.pack("<IBB6s8sIII", 36 + len(body), 1, 0, b"LINERA", b"FUZZTBL", 1, 0, 0) + body
    madt = sdt(b"APIC", struct.pack("<II", 0xfee00000, 1) + bytes([0, 8, 0, 0, 1, 0, 0, 0]) +
               bytes([0, 8, 1, 1, 1, 0, 0, 0]) + bytes([1, 12, 0, 0]) + struct.pack("<II", 0xfec00000, 0) +
               bytes([2, 10, 0, 0]) + struct.pack("<IH", 2, 0))
    mcfg = sdt(b"MCFG", bytes(8) + struct.pack("<QHBBI", 0xb0000000, 0, 0, 255, 0))
    img = bytearray(0x400)
    img[0x100:0x100 + len(madt)] = madt
    img[0x200:0x200 + len(mcfg)] = mcfg
    xsdt = sdt(b"XSDT", struct.pack("<QQ", A + 0x100, A + 0x200))
    rsdt = sdt(b"RSDT", struct.pack("<II", A + 0x100, A + 0x200))
    img[0x40:0x40 + len(xsdt)] = xsdt
    img[0x300:0x300 + len(rsdt)] = rsdt
    out = []
    for rev, root in ((2, A + 0x40), (0, A + 0x300)):
        r = b"RSD PTR " + b"\0" + b"LINERA" + bytes([rev]) + struct.pack("<II", A + 0x300, 36)
        r += struct.pack("<Q", root if rev else 0) + bytes(4)
        img[0:36] = r
        out.append(b"\x07" + bytes(img))
    return out


def netperf_messages(captures):
    """netperf's requests and netserver's answers on the control connection
    (port 22865) of the netperf captures, as captured (the stream
    capture's cut at its snap length)."""
    msgs = []
    for path in sorted(glob.glob(os.path.join(captures, "netperf", "*.pcap"))):
        msgs += [bytes(p[Raw]) for p in rdpcap(path)
                 if TCP in p and Raw in p and 22865 in (p[TCP].sport, p[TCP].dport)]
    return msgs


BPF_FILTERS = ("udp port 319", "ip6", "vlan and udp port 319", "arp", "ip[6:2] & 0x1fff != 0",
               "udp[2:2] % 10 = 9", "len > 60 and not tcp")


def bpf_programs(frames):
    """fuzz_bpf's inputs: tcpdump -dd and -ddd text (mode 0), and the same
    programs as raw instructions (mode 1), each before a test frame."""
    out = []
    for i, expr in enumerate(BPF_FILTERS):
        f = frames[i % len(frames)]
        dd = subprocess.run(["tcpdump", "-y", "EN10MB", "-dd", expr], capture_output=True, check=True).stdout
        ddd = subprocess.run(["tcpdump", "-y", "EN10MB", "-ddd", expr], capture_output=True, check=True).stdout
        insns = [tuple(int(x, 0) for x in re.findall(r"0x[0-9a-f]+|\d+", line)) for line in dd.decode().splitlines()]
        out += [b"\0" + dd + b"\0" + f, b"\2" + ddd + b"\0" + f,
                bytes([1, len(insns) - 1]) + b"".join(struct.pack("<HBBI", *i) for i in insns) + f]
    return out


def pcap_files(frames):
    """fuzz_pcapfile's inputs: the test frames as classic pcap (us, and ns
    big-endian) and as pcapng (editcap makes it)."""
    d = tempfile.mkdtemp()
    try:
        recs = b"".join(struct.pack("<IIII", 1000 + i, 10 * i, len(f), len(f)) + f for i, f in enumerate(frames[:6]))
        us = struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1) + recs
        be = struct.pack(">IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 65535, 1) + b"".join(
            struct.pack(">IIII", 1000 + i, 10 * i, len(f), len(f)) + f for i, f in enumerate(frames[:6]))
        src, ng = os.path.join(d, "a.pcap"), os.path.join(d, "a.pcapng")
        with open(src, "wb") as f:
            f.write(us)
        subprocess.run(["editcap", "-F", "pcapng", src, ng], capture_output=True, check=True)
        with open(ng, "rb") as f:
            return [us, be, f.read()]
    finally:
        shutil.rmtree(d)


def ipmap_inputs(frames):
    """fuzz_ipmap's inputs: mode 0 (--srcipmap, --dstipmap) and mode 1
    (--pnat) with maps matching the test frames, before each of them and
    before IPv6 frames behind Routing headers (types 0, 2 and 4, Segments
    Left 0 and 1), Hop-by-Hop, AH and Fragment headers, and ARP."""
    from scapy.layers.inet6 import (IPv6, IPv6ExtHdrFragment, IPv6ExtHdrHopByHop, IPv6ExtHdrRouting,
                                    IPv6ExtHdrSegmentRouting, ICMPv6EchoRequest)
    from scapy.layers.ipsec import AH
    h, fin, hop = "02:00:00:00:00:01", "2001:db8:9::7", "2001:db8:3::5"
    e = lambda: Ether(src=h, dst=MAC0) / IPv6(src="2001:db8:1::2", dst=hop)
    u = UDP(sport=1000, dport=2000) / Raw(b"x" * 20)
    v6 = [e() / IPv6ExtHdrRouting(type=0, addresses=[fin], segleft=1) / u,
          e() / IPv6ExtHdrRouting(type=0, addresses=[fin], segleft=0) / u,
          e() / IPv6ExtHdrSegmentRouting(addresses=[fin, hop], segleft=1) / TCP(),
          e() / IPv6ExtHdrHopByHop() / ICMPv6EchoRequest(),
          e() / AH(nh=17, spi=1, seq=1, icv=b"\0" * 12) / u,
          e() / IPv6ExtHdrFragment(offset=0, m=1, nh=17) / u,
          Ether(src=h, dst=MAC0) / Dot1Q(vlan=5) / IPv6(src="2001:db8:1::2", dst=hop) / u]
    rh2 = bytearray(raw(e() / IPv6ExtHdrRouting(type=0, addresses=[fin], segleft=1) / u))
    rh2[14 + 40 + 2] = 2        # type 2 (RFC 6275), one address: scapy builds type 0 only
    maps = [b"\0" + b"10.1.0.0/16:192.168.7.0/24\0" + b"10.0.0.0/8:172.16.0.0/12,[2001:db8::/32]:[fd00::/8]\0",
            b"\0" + b"[2001:db8:1::/48]:[fd00:aa::/32]\0" + b"[2001:db8::/32]:[2001:db9::/32]\0",
            b"\1" + b"10.1.0.0/16:10.9.0.0/16,10.2.0.0/16:10.8.0.0/16,[2001:db8::/32]:[2001:db9::/32]\0"]
    all_frames = frames + [raw(f) for f in v6] + [bytes(rh2)]
    return [maps[i % len(maps)] + f for i, f in enumerate(all_frames)] + [maps[2] + f for f in frames if f[12:14] == b"\x08\x06"]


def write(name, seeds):
    d = os.path.join(SEEDS, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for s in seeds:
        with open(os.path.join(d, hashlib.sha1(s).hexdigest()[:16]), "wb") as f:
            f.write(s)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    here = [os.path.join(ROOT, *up, "shared", "captures") for up in ([".."], ["..", ".."])]
    ap.add_argument("--captures", default=next((d for d in here if os.path.isdir(d)), here[0]))
    a = ap.parse_args()
    frames = test_frames() + capture_frames(a.captures)
    ip = [f[14:] for f in frames if f[12:14] == b"\x08\x00"]
    write("ipv4", ip)
    write("icmp", [bytes([11, 0, 100]) + f for f in frames] + [bytes([3, 0, 100]) + f for f in frames[:4]])
    write("arp", [f for f in frames if f[12:14] == b"\x08\x06"])
    ptp = [f for f in capture_frames(a.captures, 48) if f[12:14] == b"\x88\xf7" or f[36:38] in (b"\x01\x3f", b"\x01\x40")]
    # ptp4l's messages through port 2's transparent clock (ptp_tc=e2e), in capture order
    write("router", [router_program([f]) for f in frames] + [router_program(test_frames()[:5]), router_burst_program(),
                      router_v6_burst_program(), router_program(ptp, port=2)])
    write("pcicap", pci_spaces())
    write("cmdline", [s.encode() for s in (
        "app=fwd stats=0 ip0=10.1.0.1/24 ip1=10.2.0.1/24 route=10.3.0.0/16,10.2.0.2 route=10.4.0.0/16,10.2.0.99",
        "app=fwd,fwd,sink pairs=0-1,2-3 promisc=1 l2_dmac=02:00:00:00:00:22 rxd=1024 txd=256 queues=2",
        "InterruptThrottleRate=4 poll=napi napi_weight=16 burst=8 copybreak=128 prefetch=0 stats_format=json",
        "selftest=exit IntMode=1 irqtest=1 RxIntDelay=0 RxAbsIntDelay=8 TxIntDelay=8 TxAbsIntDelay=32",
    )])
    write("trafgen", frames)
    write("lwip", lwip_programs())
    write("http", http_programs())
    write("iperf3", iperf3_programs())
    write("dhcp", dhcp_programs())
    write("ptpport", ptpport_programs())
    # byte 0: the transport (0 L2, 1 UDPv4, 2 UDPv6: ptp4l -6 from tests/unit/data)
    ptp6 = [raw(p) for p in rdpcap(os.path.join(ROOT, "tests", "unit", "data", "ptp4l-udp6-e2e-twostep.pcap"))]
    write("ptp", [bytes([f[12:14] != b"\x88\xf7"]) + f for f in ptp] + [b"\x02" + f for f in ptp6])
    write("acpi", acpi_tables())
    write("netperf", netperf_messages(a.captures))
    write("bpf", bpf_programs(test_frames()))
    write("pcapfile", pcap_files(test_frames()))
    write("ipmap", ipmap_inputs(test_frames()))
    write("shell", [s.encode() for s in (
        "help\r", "set InterruptThrottleRate 4\rshow config\r", "ethtool -S port0\r",
        "stats\x1b[A\x1b[D\x7f\r", "fwd\x01\x05\x15x\r\n", "set stats 5" + " " * 120 + "extra\r",
        "ifconfig port0\x1b[3~\x1bOH\x1b[1~x\r",
    )])
    for name in sorted(os.listdir(SEEDS)):
        print(name, len(os.listdir(os.path.join(SEEDS, name))), "seeds")


if __name__ == "__main__":
    main()
