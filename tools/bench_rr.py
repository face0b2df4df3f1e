#!/usr/bin/python3
"""Request-response benchmark (make bench): transactions/s and latency p50 /
p99 of app=rr for UDP and TCP, 1/1 and 1024/1024 bytes, 1 and 128 sessions,
on e1000e and igb with poll=napi and busy, driven by build/rrclient from a
network namespace over a tap device (made and removed here; needs root).
Then guest instructions per transaction (QEMU's TCG plugin
built by make insncount into build/insncount/ when missing; the
column is left out when it cannot be built): e1000e, poll=napi, one session,
the instructions counted over the run less the idle rate measured before it,
divided by the transactions. Then sockperf UDP ping-pong and ping p50 of
app=rr (napi, busy) beside a Debian Linux guest in the same QEMU with the
same NIC model, tap and clients (tools/linux_guest.py: Debian's kernel
and busybox-static fetched with apt-get download into build/linuxguest/),
and the guest instructions per sockperf ping-pong transaction of both.
Then IPv6 beside IPv4: guest instructions per netperf 2.7.0 TCP_RR and
UDP_RR -r 1,1 transaction, and per build/rrclient TCP and UDP 1/1
transaction, -4 and -6 against one boot (e1000e napi). Then bulk
throughput: netperf TCP_STREAM and TCP_MAERTS, iperf3 TCP and -R, Mbit/s
and guest instructions per byte (e1000e napi).
Then the many-sessions load with the real client: 128 Debian netperf 2.7.0
`-t TCP_RR -- -r 1024,1024` at once against the appliance's netserver,
transactions/s summed, e1000e and igb with hwtstamp=0 and =1.
Prints tables and saves CSV under build/bench/;
never passes or fails. QEMU TCG figures: compare rows, not machines.

    tools/bench_rr.py [--seconds 2] [--quick]   (--quick: e1000e napi only)
    tools/bench_rr.py --insns        (only the instructions per transaction)
    tools/bench_rr.py --netperf      (only the 128 netperf TCP_RR table)
    tools/bench_rr.py --ipv6 [--nic igb] (only IPv6 beside IPv4, instructions)
    tools/bench_rr.py --stream [--nic igb] (only netperf TCP_STREAM/MAERTS and
        iperf3 TCP/-R: Mbit/s and guest instructions per byte)
    tools/bench_rr.py --linux        (only the comparisons with a Linux guest:
        latency p50, then guest instructions per sockperf transaction)
    tools/bench_rr.py --profile tcp 1 [128] (QEMU's hotblocks plugin beside
        it: the per-function table of one run, e1000e napi, 1 session or
        as many as given, in instructions per transaction)
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import linux_guest  # noqa: E402
from benchcsv import save  # noqa: E402
from netns import names, remove, sh, tap_add, wire  # noqa: E402
from bench_insn import plugin  # noqa: E402
from qemurun import BUILD, Qemu  # noqa: E402

NS, TAP = names("bench")
GUEST, PEER = "10.5.0.1", "10.5.0.2"
GUEST6, PEER6 = "2001:db8:5::1", "2001:db8:5::2"


class Guest:
    """app=rr on one port wired to the tap in NS; or with linux=(kernel,
    initramfs) a Debian Linux guest (tools/linux_guest.py) instead."""

    def __init__(self, nic, poll, size, extra=(), append="", linux=None, ip0=f"{GUEST}/24"):
        tap_add(TAP)
        bus = ",bus=rp" if nic == "igb" else ""
        nics = [f"{nic}:netdev=tap,ifname={TAP}{bus}"]
        if linux:
            self.q = Qemu(boot="kernel", kernel=linux[0], mem="256M", nics=nics, extra=("-initrd", linux[1]) + extra,
                          append=linux_guest.ROLES["server"].format(ip0=f"{GUEST}/24"))
            self.q.__enter__()
            self.q.expect("linux-guest: ready", 300)
        else:
            self.q = Qemu(boot="kernel", mem="256M", nics=nics, extra=extra,
                          append=f"app=rr ip0={ip0} req={size} rsp={size} poll={poll} stats=0 "
                          "rr_conns=1024 " + append)
            self.q.__enter__()
            self.q.expect("rr: lwIP on", 60)
            self.q.expect("linerate> ", 30)
        wire(NS, TAP, f"{PEER}/24")
        # igb's link comes up late; wait until the guest answers.
        sh("ping", "-c", "1", "-w", "30", GUEST, ns=NS, timeout=60)

    def client(self, proto, sessions, size, seconds, host=GUEST, family="-4"):
        out = sh(os.path.join(BUILD, "rrclient"), family, "--host", host, "--proto", proto, "--sessions",
                 str(sessions), "--req", str(size), "--rsp", str(size), "--duration", str(seconds),
                 "--max-time", str(seconds + 30), "--timeout", "2", "--quiet", ns=NS, check=False,
                 timeout=seconds + 60)
        return json.loads(out.split("RESULT ", 1)[1])

    def close(self):
        self.q.__exit__(None, None, None)
        remove(NS, TAP)


def table(seconds, configs):
    rows = []
    print(f"\nRR: app=rr, build/rrclient over a tap, {seconds} s per row "
          "(tps: transactions/s; latency in us)")
    print(f"{'nic':7} {'poll':5} {'proto':5} {'bytes':>5} {'sess':>4} {'tps':>9} {'p50':>8} {'p99':>8} errors")
    for nic, poll in configs:
        for size in (1, 1024):
            g = Guest(nic, poll, size)
            try:
                for proto in ("udp", "tcp"):
                    for sessions in (1, 128):
                        r = g.client(proto, sessions, size, seconds)
                        row = {"nic": nic, "poll": poll, "proto": proto, "bytes": size, "sessions": sessions,
                               "tps": r["tps"], "p50_us": r["lat_p50_ns"] / 1e3, "p99_us": r["lat_p99_ns"] / 1e3,
                               "errors": r["errors"] + r["connect_failed"], "timeouts": r["timeouts"]}
                        rows.append(row)
                        print(f"{nic:7} {poll:5} {proto:5} {size:>5} {sessions:>4} {row['tps']:>9.0f} "
                              f"{row['p50_us']:>8.1f} {row['p99_us']:>8.1f} {row['errors']} "
                              f"{'(timeouts %d)' % row['timeouts'] if row['timeouts'] else ''}", flush=True)
            finally:
                g.close()
    return rows


def samples(log):
    with open(log) as f:
        return [tuple(map(int, ln.split())) for ln in f if len(ln.split()) == 2]


def insns_at(s, t_ns):
    """Instructions counted at host time t_ns (the last sample before it)."""
    before = [n for t, n in s if t <= t_ns]
    return before[-1] if before else 0


def instructions(seconds):
    so = plugin()
    if not so:
        print("\ninstructions per transaction: skipped (no QEMU plugin: make insncount)")
        return []
    log = os.path.join(BUILD, "bench", "rr-insns.log")
    rows = []
    print("\nGuest instructions per transaction (e1000e, poll=napi, idle rate subtracted; "
          "target TCP 1 B 1 session <= 2000)")
    for size in (1, 1024):
        g = Guest("e1000e", "napi", size, extra=("-plugin", f"{so},log={log},period_ms=50"))
        try:
            for proto, sessions in (("udp", 1), ("tcp", 1), ("tcp", 128)):
                n, per, idle = per_transaction(log, lambda: g.client(proto, sessions, size, seconds)["transactions"])
                rows.append({"proto": proto, "bytes": size, "sessions": sessions, "transactions": n,
                             "insns_per_transaction": round(per)})
                print(f"  {proto} {size:>4} B x{sessions:<3}: {per:8.0f} instructions/transaction over "
                      f"{n} transactions (idle {idle:.0f} instructions/s)", flush=True)
        finally:
            g.close()
    return rows


def insns_v6(seconds, nic="e1000e"):
    """Guest instructions per netperf TCP_RR / UDP_RR -r 1,1 transaction
    over IPv4 and IPv6 on one boot (the transactions: the appliance's
    response bytes netperf reports, one byte each)."""
    so = plugin()
    if not so:
        print("\nIPv6 beside IPv4: skipped (no QEMU plugin: make insncount)")
        return []
    if not shutil.which("netperf"):
        print("\nIPv6 beside IPv4: skipped (netperf not installed: make deps)")
        return []
    log = os.path.join(BUILD, "bench", "rr-insns-v6.log")
    rows = []
    print(f"\nIPv6 beside IPv4: guest instructions per netperf -r 1,1 transaction ({nic}, poll=napi, "
          "idle rate subtracted; target IPv6 <= 1.1 x IPv4)")
    g = Guest(nic, "napi", 1, extra=("-plugin", f"{so},log={log},period_ms=50"), ip0=f"{GUEST}/24,{GUEST6}/64")
    try:
        sh("ip", "-6", "addr", "add", f"{PEER6}/64", "dev", TAP, "nodad", ns=NS)
        sh("ping", "-6", "-c", "1", "-w", "30", GUEST6, ns=NS, timeout=60)   # past the guest's DAD

        def run(test, family, host):
            out = sh("timeout", str(seconds + 60), "netperf", family, "-H", host, "-t", test, "-l",
                     str(max(1, round(seconds))), "--", "-r", "1,1", "-k", "REMOTE_BYTES_SENT", ns=NS,
                     check=False, timeout=seconds + 90)
            m = re.search(r"^REMOTE_BYTES_SENT=(\d+)$", out, re.M)
            return int(m.group(1)) if m else 0
        for test in ("TCP_RR", "UDP_RR"):
            per = {}
            for family, host in (("-4", GUEST), ("-6", GUEST6)):
                n, per[family], idle = per_transaction(log, lambda: run(test, family, host))
                rows.append({"test": test, "family": family, "transactions": n,
                             "insns_per_transaction": round(per[family])})
            print(f"  {test}: IPv4 {per['-4']:6.0f}  IPv6 {per['-6']:6.0f}  ({per['-6'] / max(1, per['-4']):.2f} x)",
                  flush=True)
        # The same with our own client against rr_port (build/rrclient -4/-6, one session).
        for proto in ("tcp", "udp"):
            per = {}
            for family, host in (("-4", GUEST), ("-6", GUEST6)):
                n, per[family], idle = per_transaction(
                    log, lambda: g.client(proto, 1, 1, seconds, host, family)["transactions"])
                rows.append({"test": f"rrclient {proto}", "family": family, "transactions": n,
                             "insns_per_transaction": round(per[family])})
            print(f"  rrclient {proto}: IPv4 {per['-4']:6.0f}  IPv6 {per['-6']:6.0f}  "
                  f"({per['-6'] / max(1, per['-4']):.2f} x)", flush=True)
    finally:
        g.close()
    return rows


def stream_insns(seconds, nic="e1000e"):
    """Bulk throughput against app=rr's netserver and iperf3 server: netperf
    TCP_STREAM and TCP_MAERTS (-m 16384), iperf3 TCP and -R, Mbit/s as the
    tool reports it and guest instructions per byte the appliance received
    or sent (the tool's own count of the bytes), one boot with the plugin."""
    so = plugin()
    if not so or not (shutil.which("netperf") and shutil.which("iperf3")):
        print("\nstream throughput: skipped (needs make insncount, and netperf and iperf3: make deps)")
        return []
    log = os.path.join(BUILD, "bench", "rr-insns-stream.log")
    secs = str(max(1, round(seconds)))
    print(f"\nStream throughput and guest instructions per byte ({nic}, poll=napi, idle rate subtracted)")
    rows = []
    g = Guest(nic, "napi", 1, extra=("-plugin", f"{so},log={log},period_ms=50"))
    try:
        def netperf_run(test, key, got):
            out = sh("timeout", str(seconds + 60), "netperf", "-H", GUEST, "-t", test, "-l", secs, "--", "-m",
                     "16384", "-k", f"{key},THROUGHPUT", ns=NS, check=False, timeout=seconds + 90)
            kv = dict(re.findall(r"^(\w+)=(\S+)$", out, re.M))
            got["mbps"] = float(kv.get("THROUGHPUT", "nan"))
            return int(kv.get(key, 0))

        def iperf3_run(args, got):
            out = sh("timeout", str(seconds + 60), "iperf3", "-c", GUEST, "-t", secs, "-J", *args, ns=NS,
                     check=False, timeout=seconds + 90)
            end = json.loads(out).get("end", {})
            s = end.get("sum_received", {})
            got["mbps"] = s.get("bits_per_second", float("nan")) / 1e6
            return s.get("bytes", 0)
        cases = (("netperf TCP_STREAM", lambda got: netperf_run("TCP_STREAM", "REMOTE_BYTES_RECVD", got)),
                 ("netperf TCP_MAERTS", lambda got: netperf_run("TCP_MAERTS", "REMOTE_BYTES_SENT", got)),
                 ("iperf3 TCP", lambda got: iperf3_run((), got)),
                 ("iperf3 TCP -R", lambda got: iperf3_run(("-R",), got)))
        for name, run in cases:
            got = {}
            n, per, idle = per_transaction(log, lambda: run(got))
            rows.append({"test": name, "bytes": n, "mbps": round(got.get("mbps", float("nan")), 1),
                         "insns_per_byte": round(per, 2)})
            print(f"  {name:20} {got.get('mbps', float('nan')):8.1f} Mbit/s  {per:6.2f} instructions/byte "
                  f"over {n} bytes", flush=True)
    finally:
        g.close()
    return rows


def per_transaction(log, run):
    """Guest instructions per transaction of run() (which returns its
    transactions), less the idle rate of the second before it, from the
    insncount plugin's samples in log: (transactions, per transaction,
    idle instructions/s)."""
    time.sleep(1)
    t0 = time.monotonic_ns()
    time.sleep(1)
    t1 = time.monotonic_ns()
    n = run()
    t2 = time.monotonic_ns()
    time.sleep(0.2)
    s = samples(log)
    idle_rate = (insns_at(s, t1) - insns_at(s, t0)) / max(1, t1 - t0)
    busy = insns_at(s, t2) - insns_at(s, t1)
    return n, (busy - idle_rate * (t2 - t1)) / max(1, n), idle_rate * 1e9


def sockperf_answered(proto, seconds):
    """Messages answered in one sockperf ping-pong run of 14-byte messages
    (its [Total Run] ReceivedMessages), UDP or TCP."""
    out = sh("timeout", str(seconds + 30), "sockperf", "ping-pong", *(["--tcp"] if proto == "tcp" else []), "-i",
             GUEST, "-t", str(max(1, round(seconds))), "-m", "14", ns=NS, check=False, timeout=seconds + 60)
    m = re.search(r"\[Total Run\].*ReceivedMessages=(\d+)", out)
    return int(m.group(1)) if m else 0


def insns_linux(seconds):
    """Guest instructions per sockperf ping-pong transaction (14 B, UDP and
    TCP, one session) of app=rr (e1000e, napi) beside the Debian Linux
    guest answering the same client with sockperf's own server."""
    so = plugin()
    try:
        linux = linux_guest.build() if so else None
    except (OSError, subprocess.CalledProcessError, AttributeError) as e:
        linux = None
        print(f"\nLinux guest instructions: skipped (no Debian kernel and busybox-static to fetch: {e})")
    if not linux:
        return []
    log = os.path.join(BUILD, "bench", "rr-insns-linux.log")
    print(f"\nGuest instructions per sockperf ping-pong transaction, 14 B, 1 session, e1000e, idle rate subtracted: "
          f"linerate app=rr poll=napi beside a Debian Linux guest ({os.path.basename(linux[0])}) running sockperf server")
    rows = []
    for name, lx in (("linerate", None), ("Linux", linux)):
        g = Guest("e1000e", "napi", 1, extra=("-plugin", f"{so},log={log},period_ms=50"), linux=lx)
        try:
            for proto in ("udp", "tcp"):
                n, per, idle = per_transaction(log, lambda: sockperf_answered(proto, seconds))
                rows.append({"guest": name, "proto": proto, "transactions": n, "insns_per_transaction": round(per)})
                print(f"  {name:8} {proto}: {per:8.0f} instructions/transaction over {n} transactions "
                      f"(idle {idle:.0f} instructions/s)", flush=True)
        finally:
            g.close()
    for proto in ("udp", "tcp"):
        lr, lx = (next(r["insns_per_transaction"] for r in rows if r["guest"] == gname and r["proto"] == proto)
                  for gname in ("linerate", "Linux"))
        print(f"  {proto}: Linux needs {lx / max(1, lr):.1f}x linerate's instructions")
    rate = tcg_rate(so, log)
    for r in rows:
        r["guest_us_per_transaction"] = round(r["insns_per_transaction"] / rate * 1e6, 1)
    print(f"  at {rate / 1e6:.0f} M guest instructions/s (TCG on this host now: linerate's busy poll loop, idle), "
          "guest time per transaction (the rest of a round trip is QEMU's and the host's): " +
          ", ".join(f"{r['guest']} {r['proto']} {r['guest_us_per_transaction']} us" for r in rows))
    return rows


def tcg_rate(so, log):
    """Guest instructions/s TCG runs on this host now: app=rr poll=busy,
    idle, counted by the insncount plugin for 2 s."""
    g = Guest("e1000e", "busy", 1, extra=("-plugin", f"{so},log={log},period_ms=50"))
    try:
        time.sleep(1)
        t0 = time.monotonic_ns()
        time.sleep(2)
        t1 = time.monotonic_ns()
        time.sleep(0.2)
        s = samples(log)
    finally:
        g.close()
    return (insns_at(s, t1) - insns_at(s, t0)) / max(1, t1 - t0) * 1e9


def profile(proto, size, seconds, sessions=1, top=40, nic="e1000e", family="-4", append=""):
    """Two runs with QEMU's hotblocks plugin, one with the client's traffic
    and one that only boots and idles as long: the difference, block by
    block, is the traffic's; printed per function and per source file in
    guest instructions per transaction. nic: the model; family -4 or -6
    (build/rrclient's, to the port's IPv4 or IPv6 address); append: more
    knobs on the guest's command line (hwtstamp=1)."""
    so = plugin()
    hotso = so and os.path.join(os.path.dirname(so), "hotblocks.so")
    if not hotso or not os.path.exists(hotso):
        print("profile: no hotblocks plugin (make insncount)")
        return
    logs = {}
    for run in ("base", "traffic"):
        logs[run] = os.path.join(BUILD, "bench", f"rr-hot-{proto}-{size}-{run}.log")
        g = Guest(nic, "napi", size, extra=("-plugin", hotso + ",inline=on", "-d", "plugin", "-D", logs[run]),
                  append=append, ip0=f"{GUEST}/24,{GUEST6}/64")
        try:
            if run == "base":
                time.sleep(seconds)
            else:
                host = GUEST
                if family == "-6":
                    host = GUEST6
                    sh("ip", "-6", "addr", "add", f"{PEER6}/64", "dev", TAP, "nodad", ns=NS)
                    sh("ping", "-6", "-c", "1", "-w", "30", GUEST6, ns=NS, timeout=60)   # past the guest's DAD
                r = g.client(proto, sessions, size, seconds, host, family)
        finally:
            g.close()
    n = max(1, r["transactions"])
    print(f"\nprofile {nic} napi {family} {append} {proto} {size}/{size} {sessions} session(s): "
          f"{r['transactions']} transactions, "
          "boot and idle subtracted, the boot's spin waits (udelay, tsc_from_pit) left out")
    layers = {}
    for by in ("file", "function"):
        out = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "insncount",
                                                           "profile.py"), logs["traffic"],
                              os.path.join(BUILD, "linerate.elf"), str(1000 if by == "file" else top),
                              "--base", logs["base"], "--by", by, "--exclude", "udelay,tsc_from_pit"],
                             capture_output=True, text=True).stdout
        print(f"  {by:40} {'share':>6} {'insns/trans':>11}")
        for ln in out.splitlines():
            m = re.match(r"(.+?)\s+([\d.]+)%\s+(\S+) insns", ln)
            if not m:
                continue
            name, per = m.group(1), float(m.group(3)) / n
            if by == "file" and not name.startswith("(listed"):
                layer = layer_of(name)
                layers[layer] = layers.get(layer, 0) + per
            if per >= 1:
                print(f"  {name:40} {float(m.group(2)):5.1f}% {per:11.1f}")
    print("  by layer: " + ", ".join(f"{k} {v:.0f}" for k, v in sorted(layers.items(), key=lambda kv: -kv[1])))


def layer_of(path):
    """The layer a source file belongs to, for the profile's summary."""
    for prefix, layer in (("lwip/", "lwIP"), ("net/lwip/", "lwIP netif"), ("apps/rr/", "rr"), ("drivers/", "driver"), ("net/pkt", "driver"),
                          ("run/", "poll loop"), ("kernel/", "kernel (irq, clock)"), ("vectors", "kernel (irq, clock)")):
        if path.startswith(prefix):
            return layer
    return "other"


def p50(values):
    v = sorted(values)
    return v[len(v) // 2] if v else float("nan")


def latencies(g, seconds):
    """(sockperf UDP ping-pong p50, ping p50), us, against the guest."""
    out = sh("timeout", str(seconds + 30), "sockperf", "ping-pong", "-i", GUEST, "-t", str(max(1, round(seconds))), "-m", "14",
             ns=NS, check=False, timeout=seconds + 60)
    m = re.search(r"percentile 50\.000 =\s*([\d.]+)", out)
    ping = sh("ping", "-c", "20", "-i", "0.05", "-W", "2", GUEST, ns=NS, check=False, timeout=60)
    rtts = [float(x) * 1000 for x in re.findall(r"time=([\d.]+) ms", ping)]
    return float(m.group(1)) if m else float("nan"), p50(rtts)


def linux_compare(seconds):
    """UDP ping-pong and ICMP echo p50 of app=rr beside a Debian Linux guest
    in the same QEMU, same NIC model, same tap and client (the
    target: linerate's UDP p50 <= 1/3 of Linux's)."""
    try:
        linux = linux_guest.build()
    except (OSError, subprocess.CalledProcessError, AttributeError) as e:
        print(f"\nLinux guest comparison: skipped (no Debian kernel and busybox-static to fetch: {e})")
        return []
    print(f"\nLatency p50 beside a Debian Linux guest ({os.path.basename(linux[0])}), same QEMU, e1000e, "
          f"same tap; sockperf ping-pong UDP 14 B for {seconds} s, ping x20 (us)")
    print(f"{'guest':34} {'sockperf p50':>12} {'ping p50':>9}")
    rows = []
    for name, poll, lx in (("linerate app=rr poll=napi", "napi", None), ("linerate app=rr poll=busy", "busy", None),
                           ("Linux guest, same QEMU", None, linux)):
        g = Guest("e1000e", poll, 1, linux=lx)
        try:
            udp, icmp = latencies(g, seconds)
        finally:
            g.close()
        rows.append({"guest": name, "sockperf_udp_p50_us": udp, "ping_p50_us": icmp})
        print(f"{name:34} {udp:>12.1f} {icmp:>9.1f}", flush=True)
    lin = rows[-1]["sockperf_udp_p50_us"]
    for r in rows[:-1]:
        print(f"{r['guest']}: UDP p50 {r['sockperf_udp_p50_us'] / lin:.2f} of Linux's (target <= 0.33)")
    return rows


def netperf_table(seconds, instances=128):
    """instances netperf TCP_RR -r 1024,1024 at once for seconds: the
    transactions/s they report, summed, and how many reported."""
    if not shutil.which("netperf"):
        print("\nnetperf TCP_RR: skipped (no netperf: make deps)")
        return []
    print(f"\nSeed 4's load: {instances} x netperf -t TCP_RR -l {seconds:g} -- -r 1024,1024 against app=rr's "
          "netserver, poll=napi (tps: transactions/s summed over the instances)")
    print(f"{'nic':7} {'hwtstamp':>8} {'tps':>9} {'reported':>8}")
    rows = []
    for nic, hwts in (("e1000e", 0), ("igb", 0), ("igb", 1)):
        g = Guest(nic, "napi", 1024, append=f"hwtstamp={hwts}")
        try:
            cmd = ["ip", "netns", "exec", NS, "netperf", "-H", GUEST, "-t", "TCP_RR", "-l", f"{seconds:g}", "--",
                   "-r", "1024,1024", "-k", "TRANSACTION_RATE"]
            procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                     for _ in range(instances)]
            rates = []
            for p in procs:
                out, _ = p.communicate(timeout=seconds + 120)
                m = re.search(r"^TRANSACTION_RATE=([\d.]+)$", out, re.M)
                if p.returncode == 0 and m:
                    rates.append(float(m.group(1)))
        finally:
            g.close()
        rows.append({"nic": nic, "hwtstamp": hwts, "tps": sum(rates), "reported": len(rates)})
        print(f"{nic:7} {hwts:>8} {sum(rates):>9.0f} {len(rates):>4}/{instances}", flush=True)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=2)
    ap.add_argument("--quick", action="store_true", help="e1000e poll=napi only")
    ap.add_argument("--insns", action="store_true", help="only the instructions per transaction")
    ap.add_argument("--linux", action="store_true", help="only the comparisons with a Debian Linux guest")
    ap.add_argument("--netperf", action="store_true", help="only 128 x netperf TCP_RR")
    ap.add_argument("--ipv6", action="store_true", help="only IPv6 beside IPv4, instructions per transaction")
    ap.add_argument("--stream", action="store_true", help="only stream throughput and instructions per byte")
    ap.add_argument("--nic", default="e1000e", help="--ipv6's and --stream's NIC model (igb: IPv6 TCP checksums "
                    "by the NIC)")
    ap.add_argument("--profile", nargs="+", metavar="PROTO BYTES [SESSIONS]",
                    help="per-function profile of one run (1 session unless given; with --nic, --ipv6 over "
                    "IPv6, --append)")
    ap.add_argument("--append", default="", help="--profile's extra knobs for the guest (hwtstamp=1)")
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("bench_rr: skipped (needs root for a network namespace and a tap device)")
        return 0
    os.makedirs(os.path.join(BUILD, "bench"), exist_ok=True)
    if a.profile:
        profile(a.profile[0], int(a.profile[1]), a.seconds, *map(int, a.profile[2:3]), nic=a.nic,
                family="-6" if a.ipv6 else "-4", append=a.append)
        return 0
    if a.netperf:
        save("rr-netperf.csv", netperf_table(a.seconds))
        return 0
    if a.ipv6:
        save("rr-insns-v6.csv", insns_v6(a.seconds, a.nic))
        return 0
    if a.stream:
        save("rr-stream.csv", stream_insns(a.seconds, a.nic))
        return 0
    if a.linux:
        linux_compare(a.seconds)
        insns_linux(a.seconds)
        return 0
    configs = [("e1000e", "napi")] if a.quick else \
        [("e1000e", "napi"), ("e1000e", "busy"), ("igb", "napi"), ("igb", "busy")]
    if not a.insns:
        save("rr.csv", table(a.seconds, configs))
    save("rr-insns.csv", instructions(a.seconds))
    if a.insns:
        return 0
    save("rr-linux.csv", linux_compare(a.seconds))
    save("rr-insns-linux.csv", insns_linux(a.seconds))
    save("rr-insns-v6.csv", insns_v6(a.seconds))
    save("rr-stream.csv", stream_insns(a.seconds))
    save("rr-netperf.csv", netperf_table(a.seconds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
