"""build/rrclient against request-response servers in this test, on
127.0.0.1 only: exact transaction counts on both sides for TCP and UDP,
the time bound, a UDP server that ignores requests (timeouts counted and
resent), a refused connection, and bad options."""
import json
import os
import socket
import subprocess
import threading

import pytest

RRCLIENT = os.path.join(os.path.dirname(__file__), "..", "..", "build", "rrclient")


def run(*args, timeout=60):
    r = subprocess.run([RRCLIENT, "--host", "127.0.0.1", *args], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=timeout)
    res = json.loads(r.stdout.split("RESULT ", 1)[1]) if "RESULT " in r.stdout else None
    return r.returncode, res, r.stdout


class TcpServer:
    """Every req bytes of a connection are answered with rsp bytes."""

    def __init__(self, req, rsp):
        self.req, self.rsp, self.transactions, self.conns = req, rsp, 0, 0
        self.lock = threading.Lock()
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(256)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self.serve, args=(c,), daemon=True).start()

    def serve(self, c):
        have = 0
        with self.lock:
            self.conns += 1
        while True:
            d = c.recv(65536)
            if not d:
                break
            have += len(d)
            n, have = divmod(have, self.req)
            with self.lock:
                self.transactions += n
            if n:
                c.sendall(b"r" * (self.rsp * n))
        c.close()


class UdpServer:
    """Answers a datagram of req bytes with rsp bytes; ignores the first
    `ignore` datagrams."""

    def __init__(self, req, rsp, ignore=0):
        self.req, self.rsp, self.ignore, self.got = req, rsp, ignore, 0
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                d, a = self.sock.recvfrom(65536)
            except OSError:
                return
            self.got += 1
            if self.got > self.ignore and len(d) == self.req:
                self.sock.sendto(b"r" * self.rsp, a)


@pytest.fixture(autouse=True)
def built():
    if not os.path.exists(RRCLIENT):
        pytest.fail("build/rrclient missing: run make")


def test_tcp_exact_counts():
    s = TcpServer(100, 300)
    rc, r, out = run("--port", str(s.port), "--sessions", "16", "--count", "25", "--req", "100",
                     "--rsp", "300")
    assert rc == 0, out
    assert r["transactions"] == 400 and r["requests"] == 400 and r["sessions_done"] == 16
    assert r["stop"] == "count" and r["errors"] == 0 and r["connect_failed"] == 0
    assert s.transactions == 400 and s.conns == 16
    assert 0 < r["lat_min_ns"] <= r["lat_p50_ns"] <= r["lat_p90_ns"] <= r["lat_p99_ns"] \
        <= r["lat_p999_ns"] <= r["lat_max_ns"]


def test_udp_exact_counts_and_timeouts_resent():
    s = UdpServer(64, 32, ignore=3)
    rc, r, out = run("--proto", "udp", "--port", str(s.port), "--sessions", "4", "--count", "10",
                     "--req", "64", "--rsp", "32", "--timeout", "0.2")
    assert rc == 0, out
    assert r["transactions"] == 40 and r["timeouts"] == 3 and r["requests"] == 43
    assert s.got == 43


def test_duration_bound():
    s = TcpServer(1, 1)
    rc, r, out = run("--port", str(s.port), "--sessions", "2", "--duration", "0.5")
    assert rc == 0 and r["stop"] == "duration", out
    assert 0.5 <= r["elapsed_s"] < 5 and r["transactions"] == s.transactions > 0


def test_refused_connection_is_an_error():
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()   # nothing listens there now
    rc, r, out = run("--port", str(port), "--count", "1")
    assert rc == 1 and r["connect_failed"] == 1, out


@pytest.mark.parametrize("args", [("--sessions", "0"), ("--req", "70000"), ("--proto", "sctp"),
                                  ("--count", "-1"), ()])
def test_bad_options(args):
    r = subprocess.run([RRCLIENT, "--host", "127.0.0.1", *args], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=10)
    assert r.returncode == 2 and "usage: rrclient" in r.stdout
