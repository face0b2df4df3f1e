"""netconsole= (issue 24): the console's messages as UDP datagrams, as
Linux's netconsole sends them. A real UDP socket in a network namespace on
a tap receives the whole boot report and the periodic statistics, line for
line as on serial, in Linux's extended format ('+'); the plain format packs
whole lines into datagrams (read from a -netdev stream port); counts on
both sides agree; a port that does not exist is named. Needs root (the
namespace)."""
import json
import os
import re
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from netns import TapPeer  # noqa: E402
from netio import StreamPort  # noqa: E402
from qemurun import EXIT_OK, Qemu  # noqa: E402

READY = r"linerate: ready in \d+ us"
PROMPT = "linerate> "
GUEST, PEER = "10.9.0.1", "10.9.0.2"
# Prints one JSON line per datagram received on PEER:6666, after "bound".
LISTENER = f"""
import json, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("{PEER}", 6666))
print("bound", flush=True)
while True:
    data, src = s.recvfrom(2048)
    print(json.dumps([src[0], src[1], data.decode("latin-1")]), flush=True)
"""


def serial_lines(text, first, last):
    """The serial console's lines from the one starting with first through
    the one matching last, without carriage returns and erased prompts."""
    lines = [line.rstrip("\r").split("\x1b[K")[-1].replace("\r", "") for line in text.split("\n")]
    start = next(i for i, line in enumerate(lines) if line.startswith(first))
    end = next(i for i in range(start, len(lines)) if re.match(last, lines[i]))
    return lines[start:end + 1]


TARGET_LINE = (r"^netconsole (\S+): sent (\d+) datagrams \((\d+) bytes\), dropped (\d+) bytes, "
               r"waiting (\d+) of 16384 bytes, TX ring full \d+, no buffer \d+"
               r"(?:, (\d+) ARP requests?, MAC ([^\r\n]+))?\r?$")


def targets(q):
    """{target: (datagrams, bytes, dropped, waiting, ARP requests, MAC)}
    from the console command, once nothing waits (0 and None: no ARP)."""
    end = time.monotonic() + 20
    while True:
        got = {m.group(1): tuple(int(g or 0) for g in m.groups()[1:6]) + (m.group(7),)
               for m in re.finditer(TARGET_LINE, q.shell("console"), re.M)}
        assert got
        if all(t[3] == 0 for t in got.values()) or time.monotonic() > end:
            return got
        time.sleep(0.2)


def sent_count(q):
    """(datagrams, bytes, dropped, waiting) of the one target."""
    (t,) = targets(q).values()
    return t[:4]


def test_extended_to_namespace_peer():
    peer = TapPeer("nc")
    listener = None
    got = []
    try:
        with Qemu(boot="kernel", nics=[f"e1000e:netdev=tap,ifname={peer.tap}"], extra=["-S"],
                  append=f"app=sink ip0={GUEST}/24 stats=1 netconsole=+@/port0,6666@{PEER}/") as q:
            q.qmp_cmd("query-status")     # QEMU holds the tap: it may move
            peer.wire(f"{PEER}/24")
            peer_mac = subprocess.check_output(["ip", "netns", "exec", peer.ns, "cat",
                                                f"/sys/class/net/{peer.tap}/address"], text=True).strip()
            listener = subprocess.Popen(["ip", "netns", "exec", peer.ns, "/usr/bin/python3", "-c", LISTENER],
                                        stdout=subprocess.PIPE, text=True)
            assert listener.stdout.readline() == "bound\n"
            reader = threading.Thread(target=lambda: [got.append(json.loads(line)) for line in listener.stdout],
                                      daemon=True)
            reader.start()
            q.qmp_cmd("cont")     # the guest starts once the peer listens
            q.expect(READY)
            q.expect(r"stats at \S+ s, over .*\n(.*\n)*?Core .*\n.*\n", 30)
            q.expect(r"stats at \S+ s, over .*\n(.*\n)*?Core .*\n.*\n", 30)
            q.send("\r")
            q.shell("set stats 0")
            (target, (datagrams, nbytes, dropped, waiting, arps, mac)), = targets(q).items()
            end = time.monotonic() + 20
            while len(got) < datagrams and time.monotonic() < end:
                time.sleep(0.1)
            text = q.text()
        assert dropped == 0 and waiting == 0
        assert (target, arps, mac) == (f"+6665@/port0,6666@{PEER}/", 1, peer_mac)     # the peer's ARP answer
        assert len(got) == datagrams
        assert sum(len(d) for _, _, d in got) == nbytes
        assert {(src, port) for src, port, _ in got} == {(GUEST, 6665)}
        lines = []
        for seq, (_, _, d) in enumerate(got):
            m = re.fullmatch(r"6,(\d+),(\d+),-;([^\n]*)\n", d)
            assert m, d
            assert int(m.group(1)) == seq
            lines.append(m.group(3))
        boot = serial_lines(text, "linerate 0.1.0 ", READY)
        assert lines[:len(boot) + 1] == [""] + boot     # the report opens with an empty line
        assert "netconsole: +6665@/port0,6666@10.9.0.2/, from port0 (source 10.9.0.1), " \
               "core 0, extended format, MAC by ARP; messages since the boot line kept (16 KiB)" in lines
        stats = serial_lines(text, "stats at ", r"0\s")     # the first report, to core 0's row
        first = lines.index(stats[0])
        assert lines[first:first + len(stats)] == stats
        assert sum(1 for line in lines if line.startswith("stats at ")) >= 2
    finally:
        if listener:
            listener.kill()
            listener.wait()
        peer.close()


def test_plain_lines_packed():
    """Without '+': whole lines, up to 1000 bytes a datagram, to the MAC
    given; the frames' IPv4 and UDP checksums as scapy computes them."""
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether
    with Qemu(boot="kernel", nics=["e1000e:netdev=stream"],
              append="app=sink stats=0 netconsole=4444@10.0.0.1/port0,5555@10.0.0.2/02:00:00:00:00:02") as q:
        port = StreamPort(q.nic_sock(0))
        q.expect(READY)
        q.expect(PROMPT)
        datagrams, nbytes, dropped, waiting = sent_count(q)
        frames = port.recv(datagrams, timeout=10)
        assert port.recv(1, timeout=0.5) == []
        text = q.text()
    assert (dropped, waiting) == (0, 0)
    assert len(frames) == datagrams > 1
    payload = b""
    for f in frames:
        e = Ether(f)
        assert (e.dst, e.src, e[IP].src, e[IP].dst, e[UDP].sport, e[UDP].dport) == \
            ("02:00:00:00:00:02", "52:54:00:12:34:56", "10.0.0.1", "10.0.0.2", 4444, 5555)
        redo = Ether(f)
        del redo[IP].chksum, redo[UDP].chksum
        redo = Ether(bytes(redo))
        assert (e[IP].chksum, e[UDP].chksum) == (redo[IP].chksum, redo[UDP].chksum)
        data = bytes(e[UDP].payload)
        assert data.endswith(b"\n") and len(data) <= 1000
        payload += data
    assert len(payload) == nbytes
    boot = serial_lines(text, "linerate 0.1.0 ", READY)
    assert payload.decode().startswith("\n" + "\n".join(boot) + "\n")
    assert "netconsole: 4444@10.0.0.1/port0,5555@10.0.0.2/02:00:00:00:00:02, from port0 (source 10.0.0.1), " \
           "core 0, plain format; messages since the boot line kept (16 KiB)\n" in payload.decode()


def test_port_missing_named():
    with Qemu(boot="kernel", append="netconsole=@10.0.0.1/port1,@10.0.0.2/") as q:
        q.expect(READY)
        q.expect(PROMPT)
        assert re.findall(r"^netconsole.*?(?=\r?$)", q.text(), re.M) == [
            "netconsole: 6665@10.0.0.1/port1,6666@10.0.0.2/ is not used: port1 does not exist (0 ports)"]
        assert "netconsole" not in q.shell("console")
        assert re.search(r"^netconsole=6665@10.0.0.1/port1,6666@10.0.0.2/ +boot ",
                         q.shell("show config"), re.M)


def test_several_targets_arp_and_broadcast():
    """Three targets on port0, two with ';' between them as Linux takes
    them, the third in the knob given again: the first with its MAC, the second found by ARP (the test answers), the
    third asked three times a second apart and then sent to the broadcast
    MAC. Each gets the whole boot report."""
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import ARP, Ether
    knob = ("netconsole=4444@10.0.0.1/port0,5555@10.0.0.2/02:00:00:00:00:02;@10.0.0.1/port0,@10.0.0.3/ "
            "netconsole=@10.0.0.1/port0,7777@10.0.0.4/")
    with Qemu(boot="kernel", nics=["e1000e:netdev=stream"], append="app=sink stats=0 " + knob) as q:
        port = StreamPort(q.nic_sock(0))
        q.expect(READY)
        q.expect(PROMPT)
        frames, asked = [], []
        end = time.monotonic() + 20
        while time.monotonic() < end and not any(Ether(f).dst == "ff:ff:ff:ff:ff:ff" and UDP in Ether(f)
                                                 for f in frames):
            for f in port.recv(50, timeout=0.5):
                e = Ether(f)
                if ARP in e:
                    asked.append((e[ARP].op, e[ARP].psrc, e[ARP].pdst, e.dst))
                    if e[ARP].pdst == "10.0.0.3":
                        port.send([bytes(Ether(dst=e.src, src="02:00:00:00:00:03") /
                                         ARP(op=2, hwsrc="02:00:00:00:00:03", psrc="10.0.0.3",
                                             hwdst=e.src, pdst="10.0.0.1"))])
                else:
                    frames.append(f)
        got = targets(q)
        want = sum(t[0] for t in got.values())
        frames += port.recv(want - len(frames), timeout=10)
        assert port.recv(1, timeout=0.5) == []
        text = q.text()
    arp3 = got["6665@10.0.0.1/port0,6666@10.0.0.3/"][4]     # 1 unless our answer came after a second
    assert sorted(asked) == [(1, "10.0.0.1", "10.0.0.3", "ff:ff:ff:ff:ff:ff")] * arp3 + \
        [(1, "10.0.0.1", "10.0.0.4", "ff:ff:ff:ff:ff:ff")] * 3
    assert {k: v[2:] for k, v in got.items()} == {
        "4444@10.0.0.1/port0,5555@10.0.0.2/02:00:00:00:00:02": (0, 0, 0, None),
        "6665@10.0.0.1/port0,6666@10.0.0.3/": (0, 0, arp3, "02:00:00:00:00:03"),
        "6665@10.0.0.1/port0,7777@10.0.0.4/": (0, 0, 3, "ff:ff:ff:ff:ff:ff (no answer)")}
    assert 1 <= arp3 <= 2
    by_port = {}
    for f in frames:
        e = Ether(f)
        by_port.setdefault(e[UDP].dport, []).append(e)
    assert {p: len(es) for p, es in by_port.items()} == {5555: got[
        "4444@10.0.0.1/port0,5555@10.0.0.2/02:00:00:00:00:02"][0], 6666: got[
        "6665@10.0.0.1/port0,6666@10.0.0.3/"][0], 7777: got["6665@10.0.0.1/port0,7777@10.0.0.4/"][0]}
    assert {p: {e.dst for e in es} for p, es in by_port.items()} == {
        5555: {"02:00:00:00:00:02"}, 6666: {"02:00:00:00:00:03"}, 7777: {"ff:ff:ff:ff:ff:ff"}}
    boot = "\n" + "\n".join(serial_lines(text, "linerate 0.1.0 ", READY)) + "\n"
    for p, es in by_port.items():
        assert b"".join(bytes(e[UDP].payload) for e in es).decode().startswith(boot), p
    assert "netconsole: 6665@10.0.0.1/port0,7777@10.0.0.4/: no ARP answer from 10.0.0.4 to 3 requests: " \
           "sending to ff:ff:ff:ff:ff:ff" in text
