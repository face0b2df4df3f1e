"""Soak (issue 31): SOAK_SECONDS (default 60; `make soak` runs 3600) of L2
forwarding on two cores (app=fwd pairs=0-1, the host sending 64 frames
every 10 ms into port0) beside the management port (mgmt=port2 on QEMU's
user network, /metrics through a loopback port forward), while the test,
in turn every 5 s: flaps port0's link, sets every live knob to its value
and to a bad one (which must leave it as it was), resets port1 (`reset`,
as after a TX hang). Every second /metrics is scraped and no counter
(a *_total sample) may go backwards; every minute the shell must answer
and, after the first minute, heap use must not grow. At the end every
frame port0 received ends in exactly one counter, port1 sent what fwd gave
it, the host got what port1 sent, and every buffer is back in its pool
(test_faults.check_ends). Not yet in it (issue 31): the L3 router, rr with
128 sessions, pktgen and the malformed-frame battery at the same time."""
import os
import re
import socket
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
sys.path.insert(0, os.path.dirname(__file__))
from netio import StreamPort  # noqa: E402
from qemurun import Qemu  # noqa: E402
from test_faults import PROMPT, Pair, Reader, batch, check_ends  # noqa: E402

SECONDS = int(os.environ.get("SOAK_SECONDS", "60"))
LIVE = re.compile(r"^(\w+)=(\S*)\s+run\s", re.M)


class SoakBox(Pair):
    """Pair's L2 pair on two cores, plus the management port on port2."""

    def __init__(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.http = s.getsockname()[1]
        self.q = Qemu(boot="kernel", mem="256M", smp=2,
                      nics=["e1000e:netdev=stream"] * 2 + ["e1000e:netdev=user,hostfwd=%d" % self.http],
                      append="stats=0 promisc=1 app=fwd pairs=0-1 mgmt=port2 ip2=10.0.2.15/24")
        self.q.expect(r"port2: link up", 90)
        self.q.send("\r")
        self.q.expect(PROMPT, 30)
        self.p = {i: StreamPort(self.q.nic_sock(i)) for i in (0, 1)}

    def counters(self):
        """Every counter sample of /metrics: {'name{labels}': value}."""
        page = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % self.http, timeout=20).read().decode()
        return {m.group(1): float(m.group(2))
                for m in re.finditer(r"^(linerate_\w+_total(?:\{[^}]*\})?) (\S+)$", page, re.M)}

    def heap(self):
        return re.search(r"heap (\S+ \S+) of", self.shell("mem")).group(1)


def set_live_knobs(b):
    """Each live knob set to its own value, then to a bad one: the shell
    refuses the bad one and the value stays."""
    before = b.shell("show config")
    for name, value in LIVE.findall(before):
        assert "bad value" not in b.shell("set %s %s" % (name, value)), name
        assert "bad value" in b.shell("set %s bogus!" % name), name
    assert LIVE.findall(b.shell("show config")) == LIVE.findall(before)


def flap(b):
    b.q.qmp_cmd("set_link", name="n0", up=False)
    b.q.expect(r"port0: link down", 30)
    b.q.qmp_cmd("set_link", name="n0", up=True)
    b.q.expect(r"port0: link up", 30)


def reset(b):
    b.shell("reset port1")
    b.q.expect(r"port1: link up", 30)


def test_soak():
    b = SoakBox()
    try:
        rd = Reader(b.p[1])
        stop, sent = threading.Event(), [0]

        def send():
            while not stop.is_set():
                b.p[0].send(batch(sent[0], 64))
                sent[0] += 64
                time.sleep(0.01)
        tx = threading.Thread(target=send, daemon=True)
        tx.start()
        actions, last, backwards, heap = (flap, set_live_knobs, reset), b.counters(), [], None
        # Heap use at the first check (1 min, or half of a shorter soak), then the same at each later one.
        checks = {min(60, SECONDS // 2), SECONDS} | set(range(60, SECONDS, 60))
        start = time.monotonic()
        for second in range(1, SECONDS + 1):
            time.sleep(max(0.0, start + second - time.monotonic()))
            now = b.counters()
            backwards += [(k, last[k], v) for k, v in now.items() if k in last and v < last[k]]
            last = now
            if second % 5 == 0:
                actions[second // 5 % len(actions)](b)
            if second in checks:
                heap = heap or b.heap()
                assert b.heap() == heap, (second, heap)
        stop.set()
        tx.join(60)
        assert not backwards, backwards[:20]
        got = rd.stop()
        e0, e1, f0 = check_ends(b, None, len(got))
        assert f0["forwarded"] > 0 and sent[0] > 0
        print("soak %d s: sent %d, port0 rx %d, forwarded %d, host got %d, heap %s"
              % (SECONDS, sent[0], e0["rx_packets"], f0["forwarded"], len(got), heap))
    finally:
        b.close()
