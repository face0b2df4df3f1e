"""app=rr's iperf3 server against Debian's unmodified iperf3 3.12 in a
network namespace over a tap device: TCP, -R, -P 4, --bidir, UDP -P 2 and
UDP -R, each for 2 s, the bytes and datagrams iperf3's JSON reports equal to
the appliance's counters; a second client during a test gets iperf3's busy
answer; nothing leaked. Needs root and iperf3."""
import json
import shutil
import subprocess
import time

import pytest

from rrpeer import GUEST, NS, assert_accounted, assert_deltas, assert_no_leak, boot, delta, rr_counters, sh, \
    tap  # noqa: F401

pytestmark = pytest.mark.skipif(not shutil.which("iperf3"), reason="iperf3 not installed (make deps)")


def iperf3(*args, check=True):
    out = sh("timeout", "60", "iperf3", "-c", GUEST, "-t", "2", "-J", *args, ns=NS, timeout=90, check=check)
    return json.loads(out)


def test_iperf3(tap):
    q = boot()
    try:
        out = sh("ping", "-c", "1", "-w", "30", GUEST, ns=NS, timeout=60)
        assert "1 received" in out, out
        for args, rx, tx in ((), True, False), (("-R",), False, True), (("-P", "4"), True, False), \
                (("--bidir",), True, True):
            a = rr_counters(q)
            r = iperf3(*args)
            b = rr_counters(q)
            assert "error" not in r, (args, r)
            assert delta(a, b, "iperf3_tests") == 1, (args, b["port0"])
            end = r["end"]
            # The receiver's bytes in iperf3's report are the server's own
            # (our results) when the server receives, and the sender's are
            # when it sends.
            if rx and not tx:
                assert delta(a, b, "iperf3_rx_bytes") == end["sum_received"]["bytes"] > 0, (args, end["sum_received"])
            if tx and not rx:
                assert delta(a, b, "iperf3_tx_bytes") == end["sum_sent"]["bytes"] > 0, (args, end["sum_sent"])
            if rx and tx:
                assert delta(a, b, "iperf3_rx_bytes") > 0 and delta(a, b, "iperf3_tx_bytes") > 0
            for bad in ("iperf3_busy", "iperf3_bad_cookie", "iperf3_bad_json", "iperf3_client_gone"):
                assert delta(a, b, bad) == 0, (args, bad, b["port0"])

        # A second client while a test runs: iperf3's busy answer.
        a = rr_counters(q)
        first = subprocess.Popen(["ip", "netns", "exec", NS, "iperf3", "-c", GUEST, "-t", "3", "-J"],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        time.sleep(1.5)
        second = iperf3(check=False)
        out, _ = first.communicate(timeout=60)
        assert "busy" in second["error"], second
        assert "error" not in json.loads(out)
        b = assert_no_leak(q)
        assert delta(a, b, "iperf3_busy") == 1 and delta(a, b, "iperf3_tests") == 1

        # UDP -R at 5 Mbit/s: the appliance paces 1200-byte datagrams
        # (iperf3_poll); each it counts sent is one iperf3 reports, none lost.
        a = b
        r = iperf3("-u", "-R", "-b", "5M", "-l", "1200")
        b = rr_counters(q)
        s = r["end"]["sum"]
        assert "error" not in r and delta(a, b, "iperf3_udp") == 1, r
        assert delta(a, b, "iperf3_tx_bytes") == s["packets"] * 1200 > 1200 * 500, (s, b["port0"])
        assert s["lost_packets"] == 0 and delta(a, b, "iperf3_udp_no_buffer") == 0, (s, b["port0"])

        # UDP, 2 streams at 20 Mbit/s: the datagrams and losses iperf3
        # reports are the appliance's, and its bytes what they carried.
        r = iperf3("-u", "-b", "20M", "-P", "2", "-l", "1200")
        c = rr_counters(q)
        assert "error" not in r, r
        s = r["end"]["sum"]   # bytes: the client's sent; packets, lost: the appliance's
        assert delta(b, c, "iperf3_rx_bytes") == (s["packets"] - s["lost_packets"]) * 1200 > 0, (s, c["port0"])
        assert s["packets"] <= s["bytes"] // 1200, s
        assert delta(b, c, "iperf3_udp_stray") == 0 and delta(b, c, "iperf3_tests") == 1
        assert_accounted(b)
    finally:
        q.__exit__(None, None, None)


PY_CLIENT = r"""
import json, socket, struct, sys
mode = sys.argv[2]
s = socket.create_connection((sys.argv[1], 5201), timeout=10)
s.sendall(b"a" * 36 + b"\0")
assert s.recv(1) == b"\x09"   # PARAM_EXCHANGE
params = {"tcp": True, "parallel": 1, "time": 1, "len": 1000}
if mode == "big":
    s.sendall(struct.pack(">I", 100000))
    print("closed", s.recv(10) == b"")
    sys.exit()
body = {"badjson": b"{not json", "streams": json.dumps(dict(params, parallel=17)).encode()}.get(
    mode, json.dumps(dict(params, frobnicate=1)).encode())
s.sendall(struct.pack(">I", len(body)) + body)
r = s.recv(1)
print("state", r[0] if r else None)
if mode == "badcookie":
    d = socket.create_connection((sys.argv[1], 5201), timeout=10)
    d.sendall(b"b" * 36 + b"\0")
    print("stream closed", d.recv(10) == b"")
"""


def test_iperf3_bad_input(tap):
    """JSON that does not parse or is past its bound, a stream count past
    the limit, an unknown key, a stream with another cookie, the client
    gone mid-test: counted by name, the server free for the next test."""
    q = boot()
    try:
        out = sh("ping", "-c", "1", "-w", "30", GUEST, ns=NS, timeout=60)
        assert "1 received" in out, out
        a = rr_counters(q)
        py = lambda mode: sh("timeout", "30", "python3", "-c", PY_CLIENT, GUEST, mode, ns=NS, timeout=60)
        assert "closed True" in py("big")
        assert "state None" in py("badjson")
        assert "state None" in py("streams")
        assert "state 10" in py("unknown")   # CREATE_STREAMS: the key ignored
        out = py("badcookie")
        assert "state 10" in out and "stream closed True" in out, out
        r = iperf3()
        assert "error" not in r, r
        b = assert_no_leak(q)
        assert_deltas(a, b, {"iperf3_bad_json": 3, "iperf3_unknown_key": 2, "iperf3_bad_cookie": 1,
                             "iperf3_client_gone": 2, "iperf3_tests": 1})
        assert_accounted(b)
    finally:
        q.__exit__(None, None, None)
