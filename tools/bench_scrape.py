#!/usr/bin/python3
"""What a Prometheus scrape every second costs the forwarding core (make
bench; the target is less than 1 % of its instructions), counted in
guest instructions by QEMU's insncount plugin (build/insncount, make
insncount), as tools/bench_insn.py counts them. One core (-smp 1) both
forwards port0 <-> port1 (app=fwd, L2, napi, e1000e) and serves the
management port2 (mgmt=port2 ip2=10.0.2.15/24 on QEMU's user network,
/metrics fetched through a loopback port forward), the worst case:
  idle  no traffic: the idle core's instructions over W_IDLE s without
        a scrape, then over W_IDLE s with one a second: the difference over
        the number of scrapes is one scrape's (lwIP's TCP exchange and
        the page). Whole windows, not each scrape's span less the idle
        rate: the idle core's housekeeping comes in bursts once a second,
        and whether a burst fell inside a span or between two moved that
        figure by tens of thousands of instructions between runs
  max   trafgen both --rate max, 64 B: instructions per forwarded frame in
        W s without a scrape, then in W s with one a second
Two shares: of this run (scrapes x instructions per scrape / every
instruction of the scraped window at max rate; TCG runs the guest at a few
tens of millions of instructions a second, so this depends on the host's
speed and load), and of a core forwarding 64-byte frames at 1 Gb/s line
rate (1.488 Mpps x the instructions per frame measured without scrapes).
The per-frame figures of the two max windows show the cost from the other
side (noisier: batch sizes vary). Prints; saves build/bench/scrape.csv;
never fails.
Usage: bench_scrape.py (no arguments)"""
import csv
import os
import socket
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_insn import insns_at, plugin, reading  # noqa: E402
from qemurun import BUILD, Qemu  # noqa: E402
from usage import help_exit  # noqa: E402

W = 10           # s per window at max rate
W_IDLE = 20      # s per idle window (each holds ~W_IDLE of the idle core's bursts)
WARMUP = 1.0     # s of traffic before the first reading
TAIL = 0.2       # s after a page arrived that still belong to its scrape (the closing segments)
LINE_RATE = 1488095  # 64-byte frames/s at 1 Gb/s
KNOBS = "app=fwd pairs=0-1 promisc=1 mgmt=port2 ip2=10.0.2.15/24 poll=napi stats=0"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pump(q, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        q._read(0.1)


def scrape_for(q, port, seconds):
    """GET /metrics once a second for seconds; (host ns spans of the
    scrapes, from before the request to TAIL s after the page arrived, and
    the bytes of the last page)."""
    spans, size, end = [], 0, time.monotonic() + seconds
    while time.monotonic() < end:
        t = time.monotonic()
        t0 = time.monotonic_ns()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
            size = len(r.read())
        pump(q, TAIL)
        spans.append((t0, time.monotonic_ns()))
        pump(q, max(0.0, 1.0 - (time.monotonic() - t)))
    return spans, size


def run(so):
    log = os.path.join(BUILD, "bench", "insn-scrape.log")
    if os.path.exists(log):
        os.remove(log)
    port = free_port()
    q = Qemu(boot="kernel", mem="256M", nics=["e1000e:netdev=stream"] * 2 + [f"e1000e:netdev=user,hostfwd={port}"],
             append=KNOBS, extra=["-plugin", f"{so},period_ms=20,log={log}"])
    with q:
        mac0 = q.expect(r"port0: \S+ .*MAC ([0-9a-f:]{17})", 60).group(1).decode()
        q.expect("linerate> ", 30)
        for p in ("port0", "port1", "port2"):
            if f"{p}: link up" not in q.text():
                q.expect(f"{p}: link up", 30)
        scrape_for(q, port, 1)    # first connection: ARP, the page's buffers
        pump(q, 1)
        t0 = time.monotonic_ns()
        pump(q, W_IDLE)
        t1 = time.monotonic_ns()
        spans, size = scrape_for(q, port, W_IDLE)
        t2 = time.monotonic_ns()
        tg = [os.path.join(BUILD, "trafgen"), "both", "--port", "stream:" + q.nic_sock(0),
              "--port", "stream:" + q.nic_sock(1), "--rate", "max", "--duration", str(WARMUP + 2 * W + 3),
              "--size", "64", "--quiet", "--dst-mac", mac0, "--max-time", str(WARMUP + 2 * W + 60)]
        proc = subprocess.Popen(tg, stdout=subprocess.DEVNULL)
        try:
            pump(q, WARMUP)
            f0, m0 = reading(q, "l2")
            pump(q, W)
            f1, m1 = reading(q, "l2")
            n_max = len(scrape_for(q, port, W)[0])
            f2, m2 = reading(q, "l2")
            while proc.poll() is None:
                q._read(0.2)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    i = [insns_at(log, t) for t in (t0, t1, m0, m1, m2, t2)]
    if None in i:
        return None
    idle_rate = (i[1] - i[0]) / (t1 - t0)
    per_scrape = (i[5] - i[1] - idle_rate * (t2 - t1)) / len(spans)
    plain, scraped = i[3] - i[2], i[4] - i[3]
    ipf = plain / max(f1 - f0, 1)
    return {"page_bytes": size, "scrapes_idle": len(spans), "insns_per_scrape": int(per_scrape),
            "idle_insns_per_s": int(idle_rate * 1e9),
            "frames_plain": f1 - f0, "frames_scraped": f2 - f1, "scrapes_max": n_max,
            "kpps_plain": round((f1 - f0) / ((m1 - m0) / 1e9) / 1e3, 1),
            "kpps_scraped": round((f2 - f1) / ((m2 - m1) / 1e9) / 1e3, 1),
            "insns_per_frame_plain": round(plain / max(f1 - f0, 1), 1),
            "insns_per_frame_scraped": round(scraped / max(f2 - f1, 1), 1),
            "share_pct": round(100 * n_max * per_scrape / scraped, 3) if scraped else float("nan"),
            "share_line_rate_pct": round(100 * per_scrape / (LINE_RATE * ipf), 3) if ipf else float("nan")}


def main():
    help_exit(__doc__)
    so = plugin()
    if not so:
        print("\nscrape cost: skipped (no QEMU plugin: make insncount)")
        return
    os.makedirs(os.path.join(BUILD, "bench"), exist_ok=True)
    r = run(so)
    print("\nA /metrics scrape a second on the forwarding core (-smp 1, fwd L2 port0<->port1 "
          "+ mgmt port2; insncount plugin)")
    if not r:
        print("  no instruction samples for the windows (plugin log)")
        return
    print(f"  page {r['page_bytes']} bytes; one scrape {r['insns_per_scrape']} guest instructions "
          f"(idle, {r['scrapes_idle']} scrapes; idle core {r['idle_insns_per_s']} insns/s)")
    print(f"  max rate, 64 B, {W} s each: without scrapes {r['frames_plain']} frames, {r['kpps_plain']} kpps, "
          f"{r['insns_per_frame_plain']} insns/frame; with {r['scrapes_max']} scrapes {r['frames_scraped']} "
          f"frames, {r['kpps_scraped']} kpps, {r['insns_per_frame_scraped']} insns/frame")
    print(f"  a scrape a second costs {r['share_pct']} % of the forwarding core's instructions in this run "
          f"(TCG speed), {r['share_line_rate_pct']} % of a core forwarding 64 B at 1 Gb/s line rate "
          f"({LINE_RATE} frames/s x {r['insns_per_frame_plain']} insns; target < 1 %)")
    path = os.path.join(BUILD, "bench", "scrape.csv")
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(r))
        w.writeheader()
        w.writerow(r)
    print(f"CSV: {path}")


if __name__ == "__main__":
    main()
