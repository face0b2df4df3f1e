#!/usr/bin/python3
"""pktgen benchmark (make bench): the appliance as the sender.

1. TX rate per core at 64 and 1518 bytes (FCS included), clone_skb 0 and
   1000, rate=max, into a NIC with no backend (QEMU drops what it sends).
2. Guest instructions per generated frame (QEMU's insncount plugin, from
   make insncount, built into build/insncount/ when missing, or
   INSNCOUNT=path/insncount.so), 64 bytes: clone_skb 1000 at pktgen's burst
   32, 64 and 128, clone_skb 0 at 32; then clone_skb 0 with an 802.1Q tag
   (68 bytes) and over IPv6 (84 bytes).
3. The NAPI field report (docs/field-reports.md) with linerate on both ends: guest A (app=pktgen, rate=max) sweeps
   64..1024 bytes into guest B (app=sink poll=napi InterruptThrottleRate=1)
   over a -netdev stream pair; sent bps (A), received bps and CPU% (B)
   beside the report's own figures (Linux pktgen into Click, e1000e NAPI, a
   dual-core 2.2 GHz box: its CPU% is of 200).
4. Latency histograms of pktgen's probes through guest B's L2
   cross-connect and L3 router (A's port0 -> B -> A's port1, A's TSC at
   both ends), and through the cross-connect with A on igb (NIC PTP
   stamps), at 10 % and 90 % of the rate B forwarded at rate=max.

Prints tables and saves CSV under build/bench/; never passes or fails.
QEMU TCG figures: compare rows, not with silicon.
Usage: bench_pktgen.py (no arguments)"""
import json
import os
import re
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchcsv import save  # noqa: E402
from bench_insn import plugin  # noqa: E402
from qemurun import BUILD, Qemu  # noqa: E402
from usage import help_exit  # noqa: E402

SECONDS = 2
PROMPT = "linerate> "
SEED1 = {64: (427076224, 408209600, 68), 128: (737290240, 757440900, 60),
         256: (907745280, 917091400, 35), 512: (951570432, 981357600, 20),
         1024: (975175680, 1005658000, 12)}   # size: sent bps, received bps (e1000e NAPI), CPU% of 200


def boot(nics, append, extra=()):
    q = Qemu(boot="kernel", mem="256M", nics=nics, append=append, extra=list(extra))
    q.expect(r"apps:.*\n", 90)
    q.pos = 0
    q.expect(r"port0: link up", 60)     # before or after the apps line
    q.send("\r")
    q.expect(PROMPT, 30)
    return q


def tx_status(q):
    m = re.search(r"pktgen port0: \w+ .*? sent (\d+) .*since start (\d+) pps ([\d.]+) Mb/s", q.shell("pktgen"))
    return int(m.group(1)), int(m.group(2)), float(m.group(3))


def tx_rates():
    rows = []
    q = boot(["e1000e"], "stats=0 app=pktgen count=0 lat_rate=0 dst_mac=02:00:00:00:00:02")
    with q:
        for size in (64, 1518):
            for clone in (0, 1000):
                q.shell(f"pktgen set pkt_size {size - 4}")
                q.shell(f"pktgen set clone_skb {clone}")
                q.shell("pktgen start")
                time.sleep(SECONDS)
                q.shell("pktgen stop")
                _, pps, mbps = tx_status(q)
                rows.append({"size": size, "clone_skb": clone, "ratep": None, "tx_pps": pps, "tx_mbps": mbps})
        q.shell("pktgen set clone_skb 0")
        q.shell("pktgen set pkt_size 60")
        for ratep in (1000, 10000, 100000, 500000):
            q.shell(f"pktgen set ratep {ratep}")
            q.shell("pktgen start")
            time.sleep(SECONDS)
            q.shell("pktgen stop")
            _, pps, _ = tx_status(q)
            rows.append({"size": 64, "clone_skb": 0, "ratep": ratep, "tx_pps": pps, "tx_mbps": None})
    print("\npktgen TX rate, one core, e1000e, into a NIC with no backend; rate accuracy: achieved "
          "frames/s from start to stop (TSC) against ratep")
    print(f"{'size':>5} {'clone_skb':>9} {'ratep':>7} {'kpps':>9} {'Mb/s':>10} {'error':>7}")
    for r in rows:
        rate = r.get("ratep") or "max"
        err = f"{100.0 * (r['tx_pps'] - r['ratep']) / r['ratep']:+.2f}%" if r.get("ratep") else ""
        mbps = f"{r['tx_mbps']:.1f}" if r["tx_mbps"] is not None else ""
        print(f"{r['size']:>5} {r['clone_skb']:>9} {rate:>7} {r['tx_pps'] / 1e3:>9.1f} {mbps:>10} {err:>7}")
    return rows


def insns_at(log, t):
    """Guest instructions executed at host CLOCK_MONOTONIC ns t, interpolated."""
    rows = [tuple(map(int, ln.split())) for ln in open(log) if len(ln.split()) == 2]
    for (a, x), (b, y) in zip(rows, rows[1:]):
        if a <= t <= b:
            return x + (y - x) * (t - a) / max(b - a, 1)
    return None


def insn_per_frame():
    so = plugin()
    if not so:
        print("\ninstructions per frame: skipped (no QEMU plugin: make insncount, or INSNCOUNT=)")
        return []
    log = os.path.join(BUILD, "bench", "pktgen_insncount.log")
    rows = []
    q = boot(["e1000e"], "stats=0 app=pktgen count=0 lat_rate=0 dst_mac=02:00:00:00:00:02",
             ["-plugin", f"{so},log={log},period_ms=50"])
    with q:
        for clone, burst, kind, knobs in ((1000, 32, "ipv4", {}), (1000, 64, "ipv4", {}), (1000, 128, "ipv4", {}),
                                          (0, 32, "ipv4", {}), (0, 32, "vlan", {"pkt_size": 64, "vlan_id": 100}),
                                          (0, 32, "ipv6", {"pkt_size": 80, "vlan_id": 9999, "flag": "IPV6"})):
            q.shell(f"pktgen set clone_skb {clone}")
            q.shell(f"pktgen set burst {burst}")
            for k, v in knobs.items():
                q.shell(f"pktgen set {k} {v}")
            q.shell("pktgen start")
            time.sleep(0.5)
            s0, t0 = tx_status(q)[0], time.monotonic_ns()
            time.sleep(SECONDS)
            s1, t1 = tx_status(q)[0], time.monotonic_ns()
            q.shell("pktgen stop")
            time.sleep(0.2)
            n = insns_at(log, t1) - insns_at(log, t0)
            rows.append({"size": knobs.get("pkt_size", 60) + 4, "kind": kind, "clone_skb": clone, "burst": burst,
                         "frames": s1 - s0, "insns": int(n), "insns_per_frame": round(n / max(s1 - s0, 1), 1)})
    print("\nGuest instructions per generated frame (smallest frame of its kind, rate=max, poll=busy; the whole loop)")
    print(f"{'kind':>5} {'size':>4} {'clone_skb':>9} {'burst':>5} {'frames':>10} {'insns/frame':>12}   "
          "(target <= 60 with clone_skb)")
    for r in rows:
        print(f"{r['kind']:>5} {r['size']:>4} {r['clone_skb']:>9} {r['burst']:>5} {r['frames']:>10} "
              f"{r['insns_per_frame']:>12.1f}")
    return rows


def reports(text, kind):
    out = []
    for ln in text.splitlines():
        if '{"stats":"%s"' % kind in ln:
            try:
                out.append(json.loads(ln[ln.index("{"):]))
            except ValueError:
                pass
    return out


def rx_drp(q):
    """RX-DRP of port0 in q's last periodic report."""
    r = reports(q.out.decode(errors="replace"), "port")
    return r[-1]["rx_drp"] if r else 0


def seed1():
    rows = []
    a = boot(["e1000e:netdev=stream"], "stats=0 app=pktgen count=0 lat_rate=0 dst_mac=52:54:00:00:00:02")
    b = boot([f"e1000e:netdev=stream,connect={a.nic_sock(0)},mac=52:54:00:00:00:02"],
             "app=sink poll=napi InterruptThrottleRate=1 stats=1 stats_format=json")
    with a, b:
        for size in SEED1:
            a.shell(f"pktgen set pkt_size {size - 4}")
            b.send("sink clear\r")     # B's console carries reports: no echo matching
            sent0 = tx_status(a)[0]
            drp0 = rx_drp(b)
            a.shell("pktgen start")
            start = len(b.out)
            end = time.monotonic() + SECONDS + 2.2
            while time.monotonic() < end:
                b._read(0.2)
            a.shell("pktgen stop")
            sent, pps, _ = tx_status(a)
            text = b.out[start:].decode(errors="replace")
            time.sleep(1)
            b.send("sink\r")
            got = int(b.expect(r"sink port0 q0: (\d+) packets", 30).group(1))
            b.expect(r'"stats":"port"', 5)
            ports = [r for r in reports(text, "port") if r["rx_pps"] > 0][1:-1] or reports(text, "port")
            times = {r["t_ms"] for r in ports}
            cores = [r for r in reports(text, "core") if r["t_ms"] in times]
            rx_pps = statistics.median(r["rx_pps"] for r in ports) if ports else 0
            cpu = statistics.median(r["cpu_pct"] for r in cores) if cores else 0
            rows.append({"size": size, "sent": sent - sent0, "lost": sent - sent0 - got, "rx_drp": rx_drp(b) - drp0,
                         "sent_bps": pps * size * 8, "received_bps": int(rx_pps * size * 8),
                         "cpu_pct": cpu, "seed_sent_bps": SEED1[size][0], "seed_received_bps": SEED1[size][1],
                         "seed_cpu_pct_of_200": SEED1[size][2]})
    print("\nNAPI field report with linerate on both ends: pktgen guest (rate=max) -> sink guest (poll=napi "
          "InterruptThrottleRate=1), -netdev stream pair; bps = pps x size x 8;\n"
          "lost = sent - counted by sink, RX-DRP = those the sink's NIC dropped (netstat -i)")
    print(f"{'size':>5} {'sent':>8} {'lost':>6} {'RX-DRP':>6} {'sent Mb/s':>10} {'recv Mb/s':>10} {'CPU%':>6} | {'seed sent':>10} "
          f"{'seed recv':>10} {'seed CPU% of 200':>17}")
    for r in rows:
        print(f"{r['size']:>5} {r['sent']:>8} {r['lost']:>6} {r['rx_drp']:>6} {r['sent_bps'] / 1e6:>10.1f} {r['received_bps'] / 1e6:>10.1f} {r['cpu_pct']:>6.1f} | "
              f"{r['seed_sent_bps'] / 1e6:>10.1f} {r['seed_received_bps'] / 1e6:>10.1f} "
              f"{r['seed_cpu_pct_of_200']:>17}")
    return rows


def lat_step(a, ratep, count):
    """Send count frames at ratep from A's port0; port1's loss and latency."""
    a.shell("pktgen clear")
    a.shell(f"pktgen set ratep {ratep}")
    a.shell(f"pktgen set count {count}")
    a.shell("pktgen start port0")
    a.expect(r"pktgen: port0: done", SECONDS * 20 + 60)
    time.sleep(1)
    out = a.shell("pktgen")
    got = re.search(r"stream 0x0000: received (\d+) lost (\d+)", out)
    m = re.search(r"latency \(clock \S+, \d+ NIC-stamped\): n (\d+) min (\d+) mean (\d+) p50 (\d+) p90 (\d+) p99 (\d+) "
                  r"p99.9 (\d+) max (\d+) ns", out)
    keys = ("n", "min_ns", "mean_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns")
    clock = re.search(r"latency \(clock (\S+),", out)
    return {"clock": clock.group(1) if clock else "", "received": int(got.group(1)) if got else 0,
            "lost": int(got.group(2)) if got else 0,
            **dict(zip(keys, map(int, m.groups() if m else [0] * 8)))}


def latency():
    """Probes through guest B's L2 cross-connect and L3 router, both
    between A's port0 and port1 (one TSC at both ends), at 10 % and 90 % of
    the rate B forwarded at rate=max."""
    rows = []
    paths = {"L2 cross-connect": ("e1000e", "app=fwd pairs=0-1 promisc=1"),
             "L3 router": ("e1000e", "app=fwd ip0=10.1.0.1/24 ip1=10.2.0.1/24"),
             "L2, igb NIC stamps": ("igb:bus=rp", "app=fwd pairs=0-1 promisc=1")}
    for path, (model, knobs) in paths.items():
        name, _, opts = model.partition(":")
        a = boot([f"{name}:netdev=stream" + (f",{opts}" if opts else "")] * 2,
                 "stats=0 app=pktgen promisc=1 lat_rate=1000 src_min=10.1.0.2 "
                 "src_max=10.1.0.2 dst=10.2.0.2 dst_mac=52:54:00:00:01:00")
        if name == "igb":
            a.pos = 0
            a.expect(r"port1: link up", 60)
        b = boot([f"e1000e:netdev=stream,connect={a.nic_sock(0)},mac=52:54:00:00:01:00",
                  f"e1000e:netdev=stream,connect={a.nic_sock(1)},mac=52:54:00:00:01:01"], "stats=0 " + knobs)
        with a, b:
            lat_step(a, 1000, 1)            # the router resolves A's port1 (ARP) first
            a.shell("pktgen clear")
            a.shell("pktgen set ratep max")
            a.shell("pktgen set count 0")
            a.shell("pktgen start port0")
            time.sleep(SECONDS)
            a.shell("pktgen stop")
            time.sleep(1)
            m = re.search(r"stream 0x0000: received (\d+)", a.shell("pktgen"))
            top = int(m.group(1)) // SECONDS if m else 0
            for frac in (10, 90):
                pps = max(top * frac // 100, 1)
                rows.append({"path": path, "max_pps": top, "load_pct": frac, "ratep": pps,
                             **lat_step(a, pps, pps * SECONDS)})
    print("\nLatency of pktgen probes (1000/s; guest A's port0 -> guest B -> A's port1, A's clocks at both ends: "
          "the TSC on e1000e, the NICs' PTP stamps on igb), at 10 % and 90 % of the rate B forwarded at rate=max")
    print(f"{'path':19} {'clock':>5} {'max kpps':>8} {'load':>5} {'received':>9} {'lost':>5} {'probes':>6} {'p50 us':>8} "
          f"{'p90 us':>8} {'p99 us':>8} {'p99.9 us':>9} {'max us':>8}")
    for r in rows:
        print(f"{r['path']:19} {r['clock']:>5} {r['max_pps'] / 1e3:>8.1f} {r['load_pct']:>4}% {r['received']:>9} {r['lost']:>5} "
              f"{r['n']:>6} {r['p50_ns'] / 1e3:>8.1f} {r['p90_ns'] / 1e3:>8.1f} {r['p99_ns'] / 1e3:>8.1f} "
              f"{r['p999_ns'] / 1e3:>9.1f} {r['max_ns'] / 1e3:>8.1f}")
    return rows


def main():
    help_exit(__doc__)
    os.makedirs(os.path.join(BUILD, "bench"), exist_ok=True)
    save("pktgen_tx.csv", tx_rates())
    save("pktgen_insns.csv", insn_per_frame())
    save("pktgen_seed1.csv", seed1())
    save("pktgen_latency.csv", latency())


if __name__ == "__main__":
    main()
