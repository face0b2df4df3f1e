"""Soak (issue 31). test_soak, in make qemu-test: SOAK_SECONDS (default 60) of L2
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
(test_faults.check_ends).

test_soak_under_fire, `make soak` only (SOAK_SECONDS, 3600 there): the
same beside the L3 router, pktgen, rr with 128 TCP sessions and the
malformed-frame battery every minute, on one box (FULL below; the checks
are listed in docs/hardening.md)."""
import functools
import os
import re
import signal
import socket
import sys
import threading
import time
import urllib.request

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
sys.path.insert(0, os.path.dirname(__file__))
from netio import StreamPort  # noqa: E402
from qemurun import BUILD, Qemu  # noqa: E402
from test_faults import PROMPT, Pair, Reader, batch, check_ends  # noqa: E402

SECONDS = int(os.environ.get("SOAK_SECONDS", "60"))
LIVE = re.compile(r"^(\w+)=(\S*)\s+run\s", re.M)


class SoakBox(Pair):
    """Pair's L2 pair on two cores, plus the management port on port2."""

    def __init__(self, streams=2, append="stats=0 promisc=1 app=fwd pairs=0-1 mgmt=port2 ip2=10.0.2.15/24"):
        """streams ports on host stream sockets (self.p), then the
        management port with /metrics forwarded to self.http."""
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.http = s.getsockname()[1]
        self.q = Qemu(boot="kernel", mem="256M", smp=2,
                      nics=["e1000e:netdev=stream"] * streams + ["e1000e:netdev=user,hostfwd=%d" % self.http],
                      append=append)
        self.q.expect(r"port%d: link up" % streams, 120)
        self.q.send("\r")
        self.q.expect(PROMPT, 30)
        self.p = {i: StreamPort(self.q.nic_sock(i)) for i in range(streams)}

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


def flap(b, port=0):
    b.q.qmp_cmd("set_link", name="n%d" % port, up=False)
    b.q.expect(r"port%d: link down" % port, 30)
    b.q.qmp_cmd("set_link", name="n%d" % port, up=True)
    b.q.expect(r"port%d: link up" % port, 30)


def reset(b, port=1):
    b.shell("reset port%d" % port)
    b.q.expect(r"port%d: link up" % port, 30)


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


# ---- `make soak`: everything at once (issue 31) ----
# The box: ports 0-1 an L2 pair, 2-3 routed (test_battery's router, so its
# battery runs there), 4 pktgen, 5 the management port. rr cannot run beside
# mgmt (both use lwIP, which is one core's: docs/apps/mgmt.md), so rr runs
# in a second guest at the same time (RrBox): one port on a tap in a
# network namespace, 128 TCP sessions of build/rrclient.
FULL = ("stats=0 app=fwd,fwd,fwd,fwd,pktgen pairs=0-1 mgmt=port5 ip5=10.0.2.15/24 "
        "ip2=10.1.0.1/24,2001:db8:1::1/64 ip3=10.2.0.1/24,2001:db8:2::1/64 "
        "route=10.3.0.0/16,10.2.0.2 route=2001:db8:3::/48,2001:db8:2::2 "
        "count=0 ratep=1000 lat_rate=0 dst_mac=02:00:00:00:00:44")
RR_GUEST, RR_PEER = "10.5.0.1", "10.5.0.2"


class FullBox(SoakBox):
    """The six ports above on two cores."""

    def __init__(self):
        super().__init__(5, FULL)
        self.mac = re.findall(r"ether ([0-9a-f:]{17})", self.shell("ifconfig"))

    def fwd(self, port):
        """The outcome counters of port (its first line of `fwd`)."""
        m = re.search(r"^fwd port%d: (.*?)\r?$" % port, self.shell("fwd"), re.M)
        return {k: int(v) for k, v in re.findall(r"(\w+) (\d+)", m.group(1))}

    def pktgen_sent(self):
        return int(re.search(r"pktgen port4: \w+ .*? sent (\d+) ", self.shell("pktgen")).group(1))


class Drained:
    """A stream port read all the time by a thread of its own. QEMU's
    stream netdev sends with a blocking write under its big lock: a port
    whose host side stops reading freezes the whole guest (console, QMP,
    the other ports), which is what the hour's "silent shell" was. recv()
    and send() as StreamPort's; recv takes what the thread kept (the last
    65536 frames)."""

    def __init__(self, port):
        import collections
        self.port, self.kept, self.cv, self.done = port, collections.deque(maxlen=65536), threading.Condition(), False
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()

    def _run(self):
        while not self.done:
            got = self.port.recv(256, timeout=0.2)
            if got:
                with self.cv:
                    self.kept.extend(got)
                    self.cv.notify_all()

    def recv(self, count, timeout=10):
        out, end = [], time.monotonic() + timeout
        with self.cv:
            while True:
                while self.kept and len(out) < count:
                    out.append(self.kept.popleft())
                left = end - time.monotonic()
                if len(out) == count or left <= 0:
                    return out
                self.cv.wait(left)

    def send(self, frames, timeout=60):
        self.port.send(frames, timeout)

    def close(self):
        self.done = True
        self.t.join(5)
        self.port.close()


class RrBox:
    """app=rr on one e1000e port wired to tap (10.5.0.1)."""

    def __init__(self, tap):
        self.q = Qemu(boot="kernel", mem="128M", nics=["e1000e:netdev=tap,ifname=%s" % tap],
                      append="stats=0 app=rr ip0=%s/24" % RR_GUEST)
        self.q.expect("rr: lwIP on 1 port", 90)
        self.q.send("\r")
        self.q.expect(PROMPT, 30)

    def rr(self):
        """The rr command's port0 and lwIP (pools) counters, one dict each."""
        out = {}
        for name, body in re.findall(r"^rr (\w+): (.*?)\r?$", self.q.shell("rr", 60), re.M):
            out.setdefault(name, {}).update({k: int(v) for k, v in re.findall(r"(\w+) (\d+)", body)})
        out["lwip"].update(out.pop("pools"))
        return out


class Routed:
    """FullBox's ports 2-3 as test_battery's Router (its port0 and port1)."""

    def __init__(self, b):
        self.b, self.p, self.mac = b, [b.p[2], b.p[3]], b.mac[2:4]

    def shell(self, line, timeout=60):
        return self.b.shell(line, timeout)

    def fwd(self, port=0):
        """Both lines of the port: the outcomes and the router's (held, events)."""
        c = {}
        for body in re.findall(r"^fwd port%d[^:]*: (.*?)\r?$" % (2 + port), self.shell("fwd"), re.M):
            c.update({k: int(v) for k, v in re.findall(r"(\w+) (\d+)", body)})
        return c

    def ethtool(self, port=0):
        return self.b.ethtool(2 + port)

    def netstat(self, port=0):
        m = re.search(r"^port%d\s+\d+\s+(\d+)\s+(\d+)\s+(\d+)" % (2 + port),
                      self.shell("stats port%d" % (2 + port)), re.M)
        return tuple(int(x) for x in m.groups())


def routed_udp(mac2, seq):
    """A UDP frame 10.1.0.2 -> 10.3.0.<seq % 200>, routed out of port3 to 10.2.0.2."""
    from test_battery import udp
    return udp(mac2, dst="10.3.0.%d" % (seq % 200 + 1), ident=seq & 0xffff)


class Routing:
    """The host's side of ports 2-3: 16 routed frames every 20 ms into port2;
    port3's frames counted, the router's ARP for 10.2.0.2 answered.
    pause() stops both (for the battery, which reads port3 itself)."""

    def __init__(self, b, na):
        from scapy.all import ARP, Ether, raw
        self.b, self.na, self.sent, self.got = b, na, 0, 0
        self.run, self.stop = threading.Event(), threading.Event()
        self.idle = threading.Event()
        self.arp = lambda dst: raw(Ether(src="02:00:00:00:00:22", dst=dst) /
                                   ARP(op=2, hwsrc="02:00:00:00:00:22", psrc="10.2.0.2", hwdst=dst,
                                       pdst="10.2.0.1"))
        self.frames = [bytes(routed_udp(b.mac[2], i)) for i in range(16)]
        self.t = threading.Thread(target=self._loop, daemon=True)
        self.run.set()
        self.t.start()

    def _read(self, timeout):
        """port3's frames within timeout s (the router's ARP requests and
        Neighbor Solicitations answered); how many."""
        got = self.b.p[3].recv(256, timeout=timeout)
        for f in got:
            if f[12:14] == b"\x08\x06" and f[20:22] == b"\x00\x01":
                self.b.p[3].send([self.arp(":".join("%02x" % x for x in f[6:12]))])
            if f[12:14] == b"\x86\xdd" and f[20] == 58 and f[54] == 135:
                self.b.p[3].send([self.na])
        self.got += len(got)
        return len(got)

    def _loop(self):
        while not self.stop.is_set():
            if not self.run.is_set():
                if not self.idle.is_set():
                    while self._read(1.0):      # what is still on its way, then idle
                        pass
                    self.b.p[2].recv(256, timeout=0)
                    self.idle.set()
                self.run.wait(0.1)
                continue
            self.idle.clear()
            self.b.p[2].send(self.frames)
            self.sent += len(self.frames)
            end = time.monotonic() + 0.02
            while time.monotonic() < end:
                self._read(0.005)
            self.b.p[2].recv(256, timeout=0)

    def pause(self):
        self.run.clear()
        assert self.idle.wait(30)

    def resume(self):
        self.run.set()

    def close(self):
        self.stop.set()
        self.t.join(10)


def fwd_accounted(b, port):
    """fwd's rx on port = the sum of its outcome counters (each frame in one)."""
    f = b.fwd(port)
    assert f["rx"] == sum(v for k, v in f.items() if k != "rx"), (port, f)
    return f


def pools_home(b, ports, timeout=15):
    """Each port's buffers free or in its RX ring, small pools full (waits:
    sent frames' buffers come back at the next once-a-second reclaim)."""
    end = time.monotonic() + timeout
    while True:
        es = {p: b.ethtool(p) for p in ports}
        bad = {p: e for p, e in es.items() if e["pool_free"] + b.rxd != e["pool_size"] or
               e["small_pool_free"] != e["small_pool_size"]}
        if not bad or time.monotonic() > end:
            assert not bad, bad
            return es
        time.sleep(0.5)


def minute_check(b, l2, routing, na_h1):
    """With the host's L2 and L3 senders paused (pktgen and rr go on): the
    shell answers, every fwd frame in one counter, ports 0-3's pools home,
    then the malformed-frame battery into the router (its exact counts)."""
    from test_battery import battery
    l2.clear()
    routing.pause()
    time.sleep(0.5)
    for port in range(4):
        fwd_accounted(b, port)
    pools_home(b, range(4))
    # 2001:db8:2::2 REACHABLE again (RFC 4861 7.2.5), and 10.2.0.2 too (RFC
    # 826: a known sender is updated by any ARP): arp_timeout's re-probe,
    # unanswered while the host's side is paused, would otherwise fail the
    # entry and drop the battery's first frame (arp_unresolved, 1 s)
    b.p[3].send([na_h1, routing.arp(b.mac[3])])
    time.sleep(0.2)
    e = b.ethtool(2)
    battery(Routed(b), "e1000e", na_h1=na_h1, home=(e["pool_size"] - b.rxd, e["small_pool_size"]))
    routing.resume()
    l2.set()


def where(b):
    """What the box does when its shell does not answer: each vCPU's RIP
    (QEMU's `info registers -a`) and its function in linerate.elf, whether
    /metrics answers, and what a bare Enter brings within 10 s."""
    import subprocess
    out = []
    regs = b.q.qmp_cmd("human-monitor-command", **{"command-line": "info registers -a"})
    for cpu, rip in re.findall(r"CPU#(\d+)\s+RAX.*?RIP=([0-9a-f]+)", regs, re.S):
        sym = subprocess.run(["addr2line", "-f", "-i", "-e", os.path.join(BUILD, "linerate.elf"), "0x" + rip],
                             capture_output=True, text=True).stdout.split()
        out.append("cpu%s rip %s %s" % (cpu, rip, " ".join(sym)))
    try:
        out.append("/metrics: %d samples" % len(b.counters()))
    except OSError as e:
        out.append("/metrics: %s" % e)
    n = len(b.q.out)
    b.q.send("\r")
    end = time.monotonic() + 10
    while time.monotonic() < end and b.q._read(0.5) is not None:
        pass
    out.append("after Enter: %r" % b.q.out[n:][-400:])
    return "\n".join(out)


@pytest.mark.skipif("SOAK_SECONDS" not in os.environ, reason="make soak (SOAK_SECONDS=...)")
def test_soak_under_fire():
    import json
    import subprocess
    from netns import names, remove, tap_add, wire
    from test_battery import resolve
    ns, tap = names("soak")
    tap_add(tap)
    b, rb, routing, rrc = None, None, None, None
    try:
        rb = RrBox(tap)
        wire(ns, tap, "%s/24" % RR_PEER)
        b = FullBox()
        b.p.update({i: Drained(b.p[i]) for i in (0, 2, 3)})   # 1 and 4 have their Readers
        na_h1 = resolve(Routed(b))
        routing = Routing(b, na_h1)
        rd = Reader(b.p[1])
        gen = Reader(b.p[4])
        rrc = subprocess.Popen(["ip", "netns", "exec", ns, os.path.join(BUILD, "rrclient"), "--host", RR_GUEST,
                                "--sessions", "128", "--duration", str(2 * SECONDS + 60), "--max-time",
                                str(2 * SECONDS + 300), "--timeout", "10", "--quiet"],
                               stdout=subprocess.PIPE, text=True)
        # The 128 connections up before the rest starts (at once, on a loaded host, some SYNs wait).
        end = time.monotonic() + 60
        while rb.rr()["port0"]["conns_open"] < 128 and time.monotonic() < end:
            time.sleep(0.5)
        assert rb.rr()["port0"]["conns_open"] == 128
        assert "not started" not in b.shell("pktgen start port4")
        stop, l2, sent = threading.Event(), threading.Event(), [0]
        l2.set()

        def send():
            while not stop.is_set():
                if l2.wait(0.1):
                    b.p[0].send(batch(sent[0], 32))
                    sent[0] += 32
                    time.sleep(0.02)
        tx = threading.Thread(target=send, daemon=True)
        tx.start()

        actions = (flap, set_live_knobs, reset, functools.partial(flap, port=2), functools.partial(reset, port=3))
        last, backwards, heap = b.counters(), [], None
        checks = set(range(60, SECONDS, 60))
        start = time.monotonic()
        for second in range(1, SECONDS + 1):
            time.sleep(max(0.0, start + second - time.monotonic()))
            now = b.counters()
            backwards += [(k, last[k], v) for k, v in now.items() if k in last and v < last[k]]
            last = now
            if second % 5 == 0:
                actions[second // 5 % len(actions)](b)
            if second in checks:
                try:
                    minute_check(b, l2, routing, na_h1)
                except TimeoutError as e:
                    raise AssertionError("second %d: %s\n%s" % (second, where(b), str(e)[-1500:])) from e
                heap = heap or b.heap()
                assert b.heap() == heap, (second, heap)
        stop.set()
        tx.join(60)
        rrc.send_signal(signal.SIGINT)     # the loop overruns SECONDS: rr runs until it ends
        out, _ = rrc.communicate(timeout=180)
        rr = json.loads(re.search(r"RESULT (\{.*\})", out).group(1))
        assert rr["stop"] == "signal", rr
        b.shell("pktgen stop port4")
        minute_check(b, l2, routing, na_h1)
        routing.close()
        assert not backwards, backwards[:20]
        got = rd.stop()
        e0, e1, f0 = check_ends(b, None, len(got))
        # pktgen: the host got every frame port4 sent.
        time.sleep(1.2)
        gen.stop()
        e4 = b.ethtool(4)
        assert gen.other == e4["tx_packets"] == b.pktgen_sent() > 0, (gen.other, e4)
        # rr: the 128 sessions ran without an error; every frame its port
        # received is in one counter; lwIP holds nothing once they closed.
        assert rr["sessions_done"] == 128 and rr["errors"] == rr["connect_failed"] == 0 and \
            rr["transactions"] > 0, rr
        end = time.monotonic() + 20
        while True:
            c = rb.rr()
            p, lw = c["port0"], c["lwip"]
            held = [lw[k] for k in ("rx_pbufs", "tcp_seg_used", "pbuf_used", "heap_used", "conns_open")]
            home = p["pool_free"] + 512 == p["pool_size"]        # free or in the RX ring (rxd 512)
            if (held == [0] * 5 and home) or time.monotonic() > end:
                break
            time.sleep(1)
        assert held == [0] * 5 and home, (lw, p)
        stack = sum(p[k] for k in ("arp", "icmp", "udp", "tcp", "fragment", "icmp6", "ipv6_ext"))
        drops = sum(p[k] for k in ("not_ip", "too_short", "bad_version", "bad_ihl", "bad_totlen", "bad_csum",
                                   "not_ours", "bad_proto", "udp_closed_port", "tcp_bad_option",
                                   "syn_over_limit", "no_pbuf", "frag_too_long", "not_allowed", "bad_saddr"))
        assert p["rx"] == stack + drops, p
        pools_home(b, range(5))
        assert heap is None or b.heap() == heap, heap	# a run under a minute has no baseline
        f2 = fwd_accounted(b, 2)
        print("soak under fire %d s: L2 sent %d, forwarded %d, host got %d; routed sent %d, port2 rx %d, "
              "forwarded %d, port3 host got %d; pktgen sent %d; rr %d transactions (%.0f/s, 128 sessions, "
              "p99 %d us); heap %s; %d /metrics scrapes, no counter backwards"
              % (SECONDS, sent[0], f0["forwarded"], len(got), routing.sent, f2["rx"], f2["forwarded"],
                 routing.got, e4["tx_packets"], rr["transactions"], rr["tps"], rr["lat_p99_ns"] // 1000,
                 heap, SECONDS))
    finally:
        if rrc and rrc.poll() is None:
            rrc.kill()
            rrc.wait()
        if routing:
            routing.close()
        if b:
            b.close()
        if rb:
            rb.q.stop()
        remove(ns, tap)
