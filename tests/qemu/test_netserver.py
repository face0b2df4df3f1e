"""app=rr's netserver against Debian's unmodified netperf 2.7.0 over IPv4 in
a network namespace over a tap device: TCP_RR (with -P's data port), UDP_RR,
TCP_CRR, TCP_STREAM, TCP_MAERTS and UDP_STREAM for 2 s each, their results
(netperf -k's output selectors) equal to the appliance's own counters, and
-C's CPU% in netperf's table; 128 parallel TCP_RR -r 1024,1024 (seed 4's
load), every instance reporting, the sum the appliance's count; bad control
messages and a client vanishing mid-test, counted by name. The same tests
over IPv6 (netperf -6), with -s/-S, are test_rr6.py's. Needs root and
netperf."""
import re
import shutil
import socket
import struct
import subprocess

import pytest

from rrpeer import GUEST, NS, assert_accounted, assert_deltas, assert_no_leak, boot, delta, rr_counters, sh, \
    tap  # noqa: F401

pytestmark = pytest.mark.skipif(not shutil.which("netperf"), reason="netperf not installed (make deps)")

KEYS = "LOCAL_BYTES_SENT,LOCAL_BYTES_RECVD,REMOTE_BYTES_SENT,REMOTE_BYTES_RECVD,REMOTE_CPU_UTIL,REMOTE_CPU_METHOD"


def netperf(test, *extra, length=2):
    out = sh("timeout", "60", "netperf", "-H", GUEST, "-t", test, "-l", str(length), "--", *extra,
             "-k", KEYS, ns=NS, timeout=90)
    return {k: v for k, v in re.findall(r"^(\w+)=(\S*)$", out, re.M)}


def request(req=1, rsp=1, length=1, kind="TCP_RR", port=0):
    """netperf's omni request (656 bytes) as netperf 2.7.0 sends it."""
    w = [0] * 164
    sock, proto, direction = {"TCP_RR": (1, 6, 6), "UDP_RR": (2, 17, 6)}[kind]
    w[0], w[2], w[3], w[4], w[6], w[7] = 97, -1, -1, 8, 1, req
    w[8], w[9], w[10], w[12], w[13], w[14] = -1, -1, 8, 1, rsp, 0x20
    w[16], w[19], w[20], w[21], w[22] = length, -1, -1, -1, port
    w[23], w[24], w[25], w[26], w[38], w[39] = 4, sock, proto, direction, -1, -1
    return struct.pack(">164i", *w)


PY_CLIENT = r"""
import socket, struct, sys, time
def recv_all(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            break
        b += c
    return b
req = bytes.fromhex(sys.argv[2])
mode = sys.argv[3]
s = socket.create_connection((sys.argv[1], 12865), timeout=20)
if mode == "short":
    s.sendall(req[:100]); time.sleep(0.5); s.close(); print("done"); sys.exit()
s.sendall(req)
r = recv_all(s, 656)
w = struct.unpack(">164i", r)
print("answer", w[0], w[1], w[13])
if mode == "wait":
    print("results", struct.unpack(">164i", recv_all(s, 656))[:2])
if mode == "gone":
    d = socket.create_connection((sys.argv[1], w[13]), timeout=20)
    d.sendall(b"x" * 10)
    s.close()
    print("data", len(recv_all(d, 1 << 20)))
"""


def py_client(req, mode):
    return sh("timeout", "60", "python3", "-c", PY_CLIENT, GUEST, req.hex(), mode, ns=NS, timeout=90)


def test_six_tests(tap):
    q = boot()
    try:
        out = sh("ping", "-c", "1", "-w", "30", GUEST, ns=NS, timeout=60)
        assert "1 received" in out, out
        cases = [("TCP_RR", ("-r", "1024,1024", "-P", ",30002"), 1024, 1024),
                 ("UDP_RR", ("-r", "1,1"), 1, 1),
                 ("TCP_CRR", ("-r", "1,1"), 1, 1),
                 ("TCP_STREAM", ("-m", "16384"), 0, 0),
                 ("TCP_MAERTS", ("-m", "16384"), 0, 0),
                 ("UDP_STREAM", ("-m", "1024"), 0, 0)]
        for test, extra, req, rsp in cases:
            a = rr_counters(q)
            r = netperf(test, *extra)
            b = rr_counters(q)
            sent, got = int(r["REMOTE_BYTES_SENT"]), int(r["REMOTE_BYTES_RECVD"])
            assert delta(a, b, "netserver_tests") == 1, (test, b["port0"])
            assert delta(a, b, "netserver_rx_bytes") == got, (test, r, b["port0"])
            assert delta(a, b, "netserver_tx_bytes") == sent, (test, r, b["port0"])
            if req:   # a transaction test: every request answered
                trans = delta(a, b, "netserver_transactions")
                assert trans > 10 and sent == trans * rsp, (test, r)
                assert got == trans * req, (test, r)
                if test != "UDP_RR":   # netperf counts what it sent and received itself; at
                    # its timer it stops with its last request's response unread
                    assert int(r["LOCAL_BYTES_SENT"]) == got, (test, r)
                    assert sent - rsp <= int(r["LOCAL_BYTES_RECVD"]) <= sent, (test, r)
            elif test == "TCP_STREAM":
                # netperf does not count the part of a send its timer cut short
                assert 0 < int(r["LOCAL_BYTES_SENT"]) <= got < int(r["LOCAL_BYTES_SENT"]) + 16384, r
            elif test == "TCP_MAERTS":
                assert sent > 0 and int(r["LOCAL_BYTES_RECVD"]) <= sent, r
            else:
                assert got > 0 and got % 1024 == 0, r
            for bad in ("netserver_short", "netserver_unknown", "netserver_bad_size", "netserver_no_data",
                        "netserver_client_gone", "conns_reset"):
                assert delta(a, b, bad) == 0, (test, bad, b["port0"])

        # -C: the appliance's CPU% ('I': its halted cycles), in the usual table.
        out = sh("timeout", "60", "netperf", "-H", GUEST, "-t", "TCP_RR", "-l", "1", "-C", "--", "-r", "64,64",
                 ns=NS, timeout=90)
        assert re.search(r"^\d+\s+\d+\s+64\s+64\s+[\d.]+\s+[\d.]+\s+-1\.00\s+[\d.]+", out, re.M), out
        assert "% I" in out, out
        b = assert_no_leak(q)
        assert_accounted(b)
    finally:
        q.__exit__(None, None, None)


def test_128_parallel_tcp_rr(tap):
    """Seed 4's load: 128 netperf -t TCP_RR -- -r 1024,1024 at once, every
    one reporting; their transactions sum to the appliance's count."""
    q = boot()
    try:
        out = sh("ping", "-c", "1", "-w", "30", GUEST, ns=NS, timeout=60)
        assert "1 received" in out, out
        a = rr_counters(q)
        cmd = ["ip", "netns", "exec", NS, "netperf", "-H", GUEST, "-t", "TCP_RR", "-l", "3", "--",
               "-r", "1024,1024", "-k", "LOCAL_BYTES_SENT,REMOTE_BYTES_SENT"]
        procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                 for _ in range(128)]
        total = 0
        for p in procs:
            out, _ = p.communicate(timeout=120)
            assert p.returncode == 0, out
            m = re.search(r"^REMOTE_BYTES_SENT=(\d+)$", out, re.M)
            assert m, out
            assert int(re.search(r"^LOCAL_BYTES_SENT=(\d+)$", out, re.M).group(1)) == int(m.group(1)), out
            total += int(m.group(1)) // 1024
        b = assert_no_leak(q)
        assert delta(a, b, "netserver_tests") == 128
        assert delta(a, b, "netserver_transactions") == total and total > 128, (total, b["port0"])
        assert delta(a, b, "netserver_busy") == 0 and delta(a, b, "conns_refused") == 0
        assert_accounted(b)
    finally:
        q.__exit__(None, None, None)


def test_bad_control(tap):
    """A control message cut short, an unknown request, absurd sizes, a
    data connection that never comes, a client gone mid-test: each
    counted by name, answered as netserver answers, nothing leaked."""
    q = boot()
    try:
        out = sh("ping", "-c", "1", "-w", "30", GUEST, ns=NS, timeout=60)
        assert "1 received" in out, out
        a = rr_counters(q)
        py_client(request(), "short")
        unknown = bytearray(request())
        unknown[0:4] = struct.pack(">i", 12)   # DO_TCP_RR: netperf's pre-omni request
        assert "answer 12 998 " in py_client(bytes(unknown), "answer")
        for size in (0, -(1 << 31), (1 << 31) - 1, -5, 65536):
            assert "answer 98 22 " in py_client(request(req=size), "answer")
        out = py_client(request(length=1), "wait")   # no data connection: results at 1 + 4 s
        assert "answer 98 0 " in out and "results (98, 0)" in out, out
        out = py_client(request(req=100, length=30), "gone")
        assert "data 0" in out, out   # the test ended: the data connection closed
        b = assert_no_leak(q)
        assert_deltas(a, b, {"netserver_short": 1, "netserver_unknown": 1, "netserver_bad_size": 5,
                             "netserver_client_gone": 1, "netserver_tests": 2, "netserver_no_data": 1})
        assert_accounted(b)
    finally:
        q.__exit__(None, None, None)
