#!/usr/bin/python3
"""The copybreak field report's set-up (docs/field-reports.md) on more than one core (make bench): two L2 port pairs
(app=fwd pairs=0-1,2-3 promisc=1, four e1000e ports), trafgen pushing
64-byte frames at --rate max into port0 and port2 and receiving on port1
and port3, with the two pairs on one core (cores=1) and on two cores
(cores=2, pair i on core i, as that report ran eth0->eth1 on CPU0 and
eth2->eth3 on CPU1). Prints aggregate kpps, the netstat-style table per
port and the softnet-style table per core, and guest instructions per
forwarded frame (QEMU's insncount plugin, all vCPUs summed): per-core cost
must not grow from one core to two. QEMU TCG figures on a 2-core host whose
cores also run QEMU's device emulation: compare rows; never passes or
fails. CSV under build/bench/smp.csv.
Then the same report's set-up routed: four routed ports (ip0= .. ip3=,
queues=2, each core sending on its own TX queue of every port), 64 hosts
behind port0 and port2 (10.1.0.2-65, 10.3.0.2-65: RSS spreads them over
both queues) sending to 10.2.0.2 behind port1 and 10.4.0.2 behind port3,
poll=napi: on one core, and on two with lcore_map=0:0,1:0,2:1,3:1 (eth0->eth1
on CPU0, eth2->eth3 on CPU1) for copybreak on/off x prefetch on/off; the same
tables, guest instructions per routed frame on one core and on two (the
target: within 5 %). CSV under build/bench/smp_routed.csv.
Usage: bench_smp.py [routed] (routed: only the routed runs)"""
import csv
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_pktgen import insns_at, plugin, reports  # noqa: E402
from qemurun import BUILD, Qemu  # noqa: E402
from usage import help_exit  # noqa: E402

SECONDS = 4
KNOBS = "app=fwd pairs=0-1,2-3 promisc=1 stats=1 stats_format=json"
ROUTED = ("app=fwd ip0=10.1.0.1/24 ip1=10.2.0.1/24 ip2=10.3.0.1/24 ip3=10.4.0.1/24 queues=2 "
          "stats=1 stats_format=json")


def forwarded(q):
    """(frames port0 and port2 received so far, cumulative from `fwd`; host
    ns of the reading), as tools/bench_insn.py reads its window."""
    t0 = time.monotonic_ns()
    q.send("fwd\n")
    m = q.expect(r"(?s)fwd port0: rx (\d+) forwarded.*?fwd port2: rx (\d+) forwarded", 30)
    return int(m.group(1)) + int(m.group(2)), (t0 + time.monotonic_ns()) // 2


def trafgen_args(q, a, routed):
    """trafgen's addresses for the pair a -> a + 1: L2 frames from its own
    MAC; routed, 64 hosts to the next port's host, answering its ARP."""
    if not routed:
        return ["--src-mac", f"02:00:00:00:0{a}:01"]
    mac = re.search(rf"port{a}: \S+ .*MAC ([0-9a-f:]{{17}})", q.text()).group(1)
    return ["--src-ip", f"10.{a + 1}.0.2-10.{a + 1}.0.65", "--dst-ip", f"10.{a + 2}.0.2", "--dst-mac", mac,
            "--rx-mac", f"02:00:00:00:0{a + 1}:02", "--arp-reply"]


def run(cores, poll, so, routed=False, knobs=""):
    tag = f"{'routed_' if routed else ''}{cores}_{poll}{knobs.replace(' ', '_').replace('=', '')}"
    log = os.path.join(BUILD, "bench", f"smp_insn_{tag}.log")
    extra = ["-plugin", f"{so},log={log},period_ms=50"] if so else []
    base = ROUTED + (" lcore_map=0:0,1:0,2:1,3:1" if cores == 2 else "") if routed else KNOBS
    q = Qemu(boot="kernel", mem="256M", smp=2, nics=["e1000e:netdev=stream"] * 4,
             append=f"{base} cores={cores} poll={poll} {knobs}", extra=extra)
    with q:
        q.expect("port3: link up", 90)
        start = len(q.out)
        tgs = [subprocess.Popen([os.path.join(BUILD, "trafgen"), "both", "--port", "stream:" + q.nic_sock(a),
                                 "--port", "stream:" + q.nic_sock(b), "--rate", "max", "--size", "64",
                                 "--duration", str(SECONDS), *trafgen_args(q, a, routed),
                                 "--quiet", "--max-time", str(SECONDS + 30)], stdout=subprocess.PIPE, text=True)
               for a, b in ((0, 1), (2, 3))]
        time.sleep(1)
        f0, t0 = forwarded(q)
        time.sleep(SECONDS - 2)
        f1, t1 = forwarded(q)
        ports = reports(q.out[start:].decode(errors="replace"), "port")[-4:]
        while any(t.poll() is None for t in tgs):
            q._read(0.2)
        res = [json.loads(t.stdout.read().split("RESULT ", 1)[1]) for t in tgs]
        text = q.out[start:].decode(errors="replace")
        core_rows = reports(text, "core")
        n = insns_at(log, t1) - insns_at(log, t0) if so else None
    per_core = {}
    for r in core_rows:
        per_core.setdefault(r["core"], []).append(r)
    return {"cores": cores, "poll": poll, "knobs": knobs, "kpps": sum(r["pps"] for r in res) / 1e3,
            "pair_kpps": [round(r["pps"] / 1e3, 1) for r in res],
            "lost": sum(r["lost"] for r in res),
            "insns_per_frame": round(n / max(f1 - f0, 1), 1) if n else None,
            "ports": {p["port"]: p for p in ports},
            "cores_last": {c: rows[-2] if len(rows) > 1 else rows[-1] for c, rows in per_core.items()}}


def print_tables(title, rows):
    print(f"\n{title}")
    print(f"{'poll':5} {'cores':>5} {'knobs':22} {'aggregate kpps':>15} {'pair kpps':>14} {'lost':>6} "
          f"{'insns/frame':>12}")
    for r in rows:
        ipf = f"{r['insns_per_frame']:.1f}" if r["insns_per_frame"] else "-"
        print(f"{r['poll']:5} {r['cores']:>5} {r['knobs'] or '-':22} {r['kpps']:>15.1f} {str(r['pair_kpps']):>14} "
              f"{r['lost']:>6} {ipf:>12}")
    for r in rows:
        print(f"\nnetstat -i, poll={r['poll']} cores={r['cores']} (since boot)")
        print(f"{'Iface':6} {'RX-OK':>10} {'RX-ERR':>7} {'RX-DRP':>8} {'RX-OVR':>8} {'TX-OK':>10} {'TX-DRP':>7}")
        for name, p in sorted(r["ports"].items()):
            print(f"{name:6} {p['rx_ok']:>10} {p['rx_err']:>7} {p['rx_drp']:>8} {p['rx_ovr']:>8} "
                  f"{p['tx_ok']:>10} {p['tx_drp']:>7}")
        print(f"softnet, poll={r['poll']} cores={r['cores']}")
        print(f"{'core':>4} {'processed':>10} {'dropped':>8} {'time_squeeze':>13} {'CPU%':>6}")
        for c, x in sorted(r["cores_last"].items()):
            print(f"{c:>4} {x['processed']:>10} {x['dropped']:>8} {x['time_squeeze']:>13} {x['cpu_pct']:>6.1f}")


def save_csv(name, rows):
    path = os.path.join(BUILD, "bench", name)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["poll", "cores", "knobs", "kpps", "pair0_kpps", "pair1_kpps", "lost", "insns_per_frame"])
        for r in rows:
            w.writerow([r["poll"], r["cores"], r["knobs"], r["kpps"], *r["pair_kpps"], r["lost"],
                        r["insns_per_frame"]])
    print(f"CSV: {path}")


def main():
    help_exit(__doc__)
    os.makedirs(os.path.join(BUILD, "bench"), exist_ok=True)
    so = plugin()
    if sys.argv[1:] != ["routed"]:
        rows = [run(c, poll, so) for poll in ("napi", "busy") for c in (1, 2)]
        print_tables("Copybreak field report's set-up on cores: two L2 pairs (0->1, 2->3), e1000e, 64 B, "
                     "trafgen --rate max into both", rows)
        save_csv("smp.csv", rows)
    rows = [run(1, "napi", so, routed=True)] + [
        run(2, "napi", so, routed=True, knobs=f"copybreak={cb} prefetch={pf}") for cb in (0, 256) for pf in (1, 0)]
    print_tables("Seed 2 routed: 0->1 on core 0, 2->3 on core 1 (cores=2; cores=1: both on core 0), e1000e, "
                 "64 B, poll=napi, trafgen --rate max into both", rows)
    one = rows[0]["insns_per_frame"]
    two = [r["insns_per_frame"] for r in rows[1:] if r["knobs"] == "copybreak=0 prefetch=1"][0]
    if one and two:
        print(f"routed insns/frame, two cores against one (copybreak=0 prefetch=1): {two:.1f} / {one:.1f} = "
              f"{two / one:.3f} (target <= 1.05)")
    save_csv("smp_routed.csv", rows)


if __name__ == "__main__":
    main()
