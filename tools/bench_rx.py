#!/usr/bin/python3
"""RX benchmark (make bench): pps into app=sink per NIC family at 64 and 1024
bytes, for poll=busy, napi and irq, with interrupts/s, packets per interrupt
and CPU% as the appliance measures them (its JSON statistics), while
build/trafgen offers as much as the -netdev stream backend takes (window
256). Prints a table and saves CSV under build/bench/; never passes or fails.
Figures are QEMU TCG on this machine: compare rows, not absolute values.
Usage: bench_rx.py (no arguments)"""
import json
import os
import signal
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchcsv import save  # noqa: E402
from qemurun import BUILD, Qemu  # noqa: E402
from usage import help_exit  # noqa: E402

SECONDS = 4


def run(model, poll, size):
    bus = ",bus=rp" if model == "igb" else ""
    with Qemu(boot="kernel", mem="256M", nics=[f"{model}:netdev=stream{bus}"],
              append=f"app=sink poll={poll} promisc=1 stats=1 stats_format=json") as q:
        q.expect("sink: counting", 60)
        if "port0: link up" not in q.text():   # igb's link comes up later
            q.expect("port0: link up", 30)
        if model == "e1000":
            q.expect(r'"stats":"core"', 10)   # past QEMU's 1 s RX hold after RCTL writes
        start = len(q.out)
        # trafgen must not leave while frames it sent wait in QEMU, which QEMU 10.0.2
        # segfaults on (docs/testing.md): it sends longer than measured, is paused
        # after SECONDS, and is killed only once QEMU has stopped.
        cmd = [os.path.join(BUILD, "trafgen"), "send", "--port", "stream:" + q.nic_sock(0),
               "--rate", "max", "--duration", str(SECONDS + 60), "--size", str(size), "--quiet"]
        tg = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
        try:
            end = time.monotonic() + SECONDS
            while time.monotonic() < end and tg.poll() is None:
                q._read(0.2)
            tg.send_signal(signal.SIGSTOP)
            q._read(1.5)
            lines = q.out[start:].decode(errors="replace").splitlines()
            q.stop()
        finally:
            tg.kill()
            tg.wait()
    reports = []
    for ln in lines:
        if '{"stats":' in ln:
            try:
                reports.append(json.loads(ln[ln.index("{"):]))
            except ValueError:
                pass   # the line the console was cut in

    queues = [r for r in reports if r["stats"] == "queue" and r["rx_pps"] > 0]
    if len(queues) > 2:   # drop the partial first and last periods
        queues = queues[1:-1]
    times = {r["t_ms"] for r in queues}
    cores = [r for r in reports if r["stats"] == "core" and r["t_ms"] in times]
    med = lambda k, rs: statistics.median(r[k] or 0 for r in rs) if rs else 0  # noqa: E731
    return {"nic": model, "poll": poll, "size": size, "rx_pps": med("rx_pps", queues),
            "rx_bps": med("rx_bps", queues), "irqs_per_s": med("irqs_per_s", queues),
            "pkts_per_irq": med("pkts_per_irq", queues), "cpu_pct": med("cpu_pct", cores)}


def main():
    help_exit(__doc__)
    rows = [run(m, p, s) for m in ("e1000", "e1000e", "igb") for s in (64, 1024)
            for p in ("busy", "napi", "irq")]
    print("\nRX into app=sink, -netdev stream, trafgen --rate max, median of 1 s reports")
    print(f"{'nic':7} {'size':>5} {'poll':5} {'rx kpps':>9} {'rx Mbps':>9} {'irq/s':>8} "
          f"{'pkt/irq':>8} {'CPU%':>7}")
    for r in rows:
        print(f"{r['nic']:7} {r['size']:>5} {r['poll']:5} {r['rx_pps'] / 1e3:>9.1f} "
              f"{r['rx_bps'] / 1e6:>9.1f} {r['irqs_per_s']:>8.0f} {r['pkts_per_irq']:>8.2f} "
              f"{r['cpu_pct']:>7.1f}")
    save("rx.csv", rows)


if __name__ == "__main__":
    main()
