#!/usr/bin/python3
"""Forwarding benchmark (make bench): the table of the NAPI field
report, docs/field-reports.md (offered and forwarded
pps and bps per frame size, with the appliance's CPU% and packets per
interrupt, for e1000e and igb, poll=busy and napi) and the copybreak field report's table at
64 bytes (copybreak on/off x prefetch on/off), through the L3 router between
two ports (app=fwd ip0=10.1.0.1/24 ip1=10.2.0.1/24). build/trafgen sends
10.1.0.2 -> 10.2.0.2 into port0 as fast as the -netdev stream window of 256
allows and receives on port1. Prints tables and saves CSV under
build/bench/; never passes or fails. QEMU TCG figures: compare rows.
Usage: bench_fwd.py (no arguments)"""
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchcsv import save  # noqa: E402
from qemurun import BUILD, Qemu  # noqa: E402
from usage import help_exit  # noqa: E402

SECONDS = 3
KNOBS = "app=fwd ip0=10.1.0.1/24 ip1=10.2.0.1/24 stats=1 stats_format=json"


def reports(text):
    out = []
    for ln in text.splitlines():
        if '{"stats":' in ln:
            try:
                out.append(json.loads(ln[ln.index("{"):]))
            except ValueError:
                pass   # the line the console was cut in
    return out


def boot(model, extra):
    bus = ",bus=rp" if model == "igb" else ""
    q = Qemu(boot="kernel", mem="256M", nics=[f"{model}:netdev=stream{bus}"] * 2,
             append=f"{KNOBS} {extra}")
    mac0 = q.expect(r"port0: \S+ .*MAC ([0-9a-f:]{17})", 60).group(1).decode()
    q.expect("linerate> ", 30)
    if "port1: link up" not in q.text():
        q.expect("port1: link up", 30)
    return q, mac0


def step(q, mac0, size):
    """One trafgen run of SECONDS at size; the appliance's median figures."""
    start = len(q.out)
    cmd = [os.path.join(BUILD, "trafgen"), "both", "--port", "stream:" + q.nic_sock(0),
           "--port", "stream:" + q.nic_sock(1), "--rate", "max", "--duration", str(SECONDS),
           "--size", str(size), "--src-ip", "10.1.0.2", "--dst-ip", "10.2.0.2",
           "--dst-mac", mac0, "--rx-mac", "02:00:00:00:00:02", "--arp-reply", "--quiet",
           "--max-time", str(SECONDS + 30)]
    tg = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    while tg.poll() is None:
        q._read(0.2)
    res = json.loads(tg.stdout.read().split("RESULT ", 1)[1])
    rs = reports(q.out[start:].decode(errors="replace"))
    rxq = [r for r in rs if r["stats"] == "queue" and r["port"] == "port0" and r["rx_pps"] > 0]
    times = {r["t_ms"] for r in rxq}
    cores = [r for r in rs if r["stats"] == "core" and r["t_ms"] in times]
    med = lambda k, xs: statistics.median(x[k] or 0 for x in xs) if xs else 0  # noqa: E731
    return {"size": size, "offered_pps": res["tx_pps"], "offered_bps": res["tx_bps"],
            "forwarded_pps": res["pps"], "forwarded_bps": res["bps"], "lost": res["lost"],
            "cpu_pct": med("cpu_pct", cores), "pkts_per_irq": med("pkts_per_irq", rxq)}


def main():
    help_exit(__doc__)
    seed1 = []
    for model in ("e1000e", "igb"):
        for poll in ("busy", "napi"):
            q, mac0 = boot(model, f"poll={poll}")
            with q:
                for size in (64, 128, 256, 512, 1024):
                    seed1.append({"nic": model, "poll": poll, **step(q, mac0, size)})
    print("\nNAPI field report: L3 forwarding, port0 -> port1, trafgen --rate max (window 256)")
    print(f"{'nic':7} {'poll':5} {'size':>5} {'offered kpps':>13} {'fwd kpps':>9} "
          f"{'offered Mbps':>13} {'fwd Mbps':>9} {'lost':>6} {'CPU%':>6} {'pkt/irq':>8}")
    for r in seed1:
        print(f"{r['nic']:7} {r['poll']:5} {r['size']:>5} {r['offered_pps'] / 1e3:>13.1f} "
              f"{r['forwarded_pps'] / 1e3:>9.1f} {r['offered_bps'] / 1e6:>13.1f} "
              f"{r['forwarded_bps'] / 1e6:>9.1f} {r['lost']:>6} {r['cpu_pct']:>6.1f} "
              f"{r['pkts_per_irq']:>8.2f}")
    save("fwd_seed1.csv", seed1)

    seed2 = []
    for copybreak in (0, 256):
        for prefetch in (1, 0):
            q, mac0 = boot("e1000e", f"copybreak={copybreak} prefetch={prefetch}")
            with q:
                seed2.append({"copybreak": copybreak, "prefetch": prefetch, **step(q, mac0, 64)})
    print("\nCopybreak field report: L3 forwarding at 64 bytes, e1000e, poll=busy")
    print(f"{'copybreak':>9} {'prefetch':>8} {'fwd kpps':>9} {'lost':>6} {'CPU%':>6}")
    for r in seed2:
        print(f"{r['copybreak']:>9} {r['prefetch']:>8} {r['forwarded_pps'] / 1e3:>9.1f} "
              f"{r['lost']:>6} {r['cpu_pct']:>6.1f}")
    save("fwd_seed2.csv", seed2)


if __name__ == "__main__":
    main()
