#!/usr/bin/python3
"""Replay figures (make bench): app=replay on one e1000e sends a pcapng of
N frames (64..1514 bytes, 1 ms apart, written by scapy) booted as its
module, to a host socket. At recorded timing (replay_speed=1): how late
the guest sent the frames against their schedule (late_max_ns,
late_avg_ns, TSC) and the gaps the host saw against the file's (median
and 99th percentile of |error|; the host's clock, QEMU and the socket
included); at replay_pps: the rate reached; at topspeed: frames/s and
Mb/s. Prints figures; never passes or fails.
Usage: bench_replay.py [N] (frames, default 2000)"""
import os
import re
import statistics
import struct
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "qemu"))
from netio import StreamPort  # noqa: E402
from qemurun import Qemu  # noqa: E402
from usage import help_exit  # noqa: E402

from scapy.all import IP, UDP, Ether  # noqa: E402
from scapy.utils import PcapNgWriter  # noqa: E402

GAP = 0.001
PROMPT = "linerate> "
DONE = r"replay: port0: done: (\d+) frames, (\d+) bytes in (\d+)\.(\d+) s"


def write_file(path, n):
    with PcapNgWriter(path) as w:
        for i in range(n):
            size = 64 + (1514 - 64) * (i % 16) // 15
            p = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02") / IP(src="10.1.0.2", dst="10.2.0.2") / \
                UDP(sport=1234, dport=5678) / struct.pack(">I", i)
            p = p / bytes(size - len(p))
            p.time = 1000 + i * GAP
            w.write(p)


def recv_times(port, n, timeout):
    """(host time, frame) of n frames, read as they come."""
    out, end = [], time.monotonic() + timeout
    while len(out) < n and time.monotonic() < end:
        for f in port.recv(1, timeout=max(0.01, end - time.monotonic())):
            out.append((time.monotonic(), f))
    return out


def shell(q, line):
    q.send(line + "\r")
    q.expect(re.escape(line) + r"\r\n", 30)
    return q.expect(r"(?s)(.*?)" + PROMPT, 60).group(1).decode()


def run(q, port, n, timeout):
    got = []
    t = threading.Thread(target=lambda: got.extend(recv_times(port, n, timeout)))
    t.start()
    shell(q, "replay start")
    m = q.expect(DONE, timeout)
    t.join()
    frames, nbytes, s, us = (int(x) for x in m.groups())
    secs = s + us / 1e6
    stats = dict(re.findall(r"(\w+) (\d+)", shell(q, "replay")))
    return got, frames, nbytes, secs, stats


def main():
    help_exit(__doc__)
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    d = tempfile.mkdtemp()
    path = os.path.join(d, "bench.pcapng")
    write_file(path, n)
    with Qemu(boot="kernel", mem="128M", nics=["e1000e:netdev=stream"], extra=["-initrd", path],
              append="stats=0 app=replay replay_start=shell") as q:
        q.expect(r"port0: link up", 90)
        q.send("\r")
        q.expect(PROMPT, 30)
        port = StreamPort(q.nic_sock(0))
        print(f"replay of {n} frames, 64..1514 B, {GAP * 1000:g} ms apart (span {(n - 1) * GAP:.3f} s), e1000e:")
        got, frames, nbytes, secs, st = run(q, port, n, 60 + n * GAP * 4)
        gaps = [abs((b[0] - a[0]) - GAP) * 1e6 for a, b in zip(got, got[1:])]
        print(f"  replay_speed=1: {frames} frames in {secs:.6f} s; guest late_max {int(st['late_max_ns']) / 1000:.1f} us, "
              f"late_avg {int(st['late_avg_ns']) / 1000:.1f} us; host-seen gap error median "
              f"{statistics.median(gaps):.0f} us, p99 {sorted(gaps)[int(len(gaps) * 0.99)]:.0f} us "
              f"({len(got)} frames received)")
        shell(q, "set replay_pps 5000")
        got, frames, nbytes, secs, st = run(q, port, n, 120)
        print(f"  replay_pps=5000: {frames} frames in {secs:.6f} s = {frames / secs:,.0f} frames/s "
              f"({len(got)} received)")
        shell(q, "set replay_pps 0")
        shell(q, "set replay_topspeed 1")
        shell(q, "set replay_loop 5")
        got, frames, nbytes, secs, st = run(q, port, 5 * n, 300)
        print(f"  topspeed, 5 loops: {frames} frames in {secs:.6f} s = {frames / secs:,.0f} frames/s, "
              f"{nbytes * 8 / secs / 1e6:,.1f} Mb/s ({len(got)} received, ring_full {st.get('ring_full')})")
        port.close()
    os.remove(path)
    os.rmdir(d)


if __name__ == "__main__":
    main()
