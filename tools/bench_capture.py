#!/usr/bin/python3
"""What capture and the mirror cost the forwarding core (make bench; issue
28): guest instructions per frame forwarded, counted by QEMU's insncount
TCG plugin (tools/insncount, as tools/bench_insn.py counts them), e1000e,
L2 between port0 and port1 (app=fwd pairs=0-1, poll=napi), trafgen into
port0 out of port1, 64-byte frames:
  off       no capture, no mirror (the driver's own bursts)
  none      a console capture of port1, both directions, whose filter
            (RET #0) keeps nothing: the tap and the filter per frame
  mirror    mirror=0:2: a copy of every frame port0 receives and sends
            out of port2 (a host thread reads port2)
at --rate max, and at 500 frames/s:
  off       as above
  summary   `capture port1 summary`: a tcpdump-like line per frame
  hex       `capture port1`: each frame as text2pcap reads it
with the capture's own counts (kept, dropped: the ring full). The extra
instructions per frame over `off` at the same rate is the cost; at 500/s
every frame is kept, so it is the cost of a captured frame, printed.
Prints a table, saves build/bench/capture.csv; never fails.
Usage: bench_capture.py"""
import os
import re
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_insn import insns_at, plugin  # noqa: E402
from benchcsv import save  # noqa: E402
from qemurun import BUILD, Qemu  # noqa: E402
from usage import help_exit  # noqa: E402

WARMUP = 1.0
WINDOW = {"max": 2.0, "500pps": 8.0}
FOREVER = "count 1000000000"
# (name, rate, knobs beyond the L2 pair's, console command started before the traffic)
RUNS = [("off", "max", "", None),
        ("none", "max", "", f"capture port1 {FOREVER} filter 1,6,0,0,0"),
        ("mirror", "max", "mirror=0:2", None),
        ("off", "500pps", "", None),
        ("summary", "500pps", "", f"capture port1 {FOREVER} summary"),
        ("hex", "500pps", "", f"capture port1 {FOREVER}")]
DONE = r"capture: port1: \d+ frames printed; seen (\d+), filtered (\d+), kept (\d+), dropped (\d+)"


def drain(path, stop):
    """Read port2's stream socket until stop is set (QEMU's stream netdev
    would stall the guest on an unread socket)."""
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    s.settimeout(0.2)
    while not stop.is_set():
        try:
            if not s.recv(1 << 16):
                break
        except socket.timeout:
            pass
    s.close()


def forwarded(q):
    """(frames port0 received so far, host ns of the reading)."""
    t0 = time.monotonic_ns()
    q.send("fwd\r")
    m = q.expect(r"fwd port0: rx (\d+) forwarded", 30)
    return int(m.group(1)), (t0 + time.monotonic_ns()) // 2


def run(so, name, rate, knobs, cmd):
    log = os.path.join(BUILD, "bench", f"capture-{name}-{rate}.log")
    if os.path.exists(log):
        os.remove(log)
    nports = 3 if "mirror" in knobs else 2
    q = Qemu(boot="kernel", mem="256M", nics=["e1000e:netdev=stream"] * nports,
             append=f"app=fwd pairs=0-1 promisc=1 poll=napi stats=0 {knobs}",
             extra=["-plugin", f"{so},period_ms=20,log={log}"])
    stop = threading.Event()
    with q:
        q.expect(f"port{nports - 1}: link up", 60)
        q.send("\r")
        q.expect("linerate> ", 30)
        if nports == 3:
            threading.Thread(target=drain, args=(q.nic_sock(2), stop), daemon=True).start()
        if cmd:
            q.send(cmd + "\r")
            q.expect(re.escape(cmd) + r"\r\n", 30)
        window = WINDOW[rate]
        tg = subprocess.Popen([os.path.join(BUILD, "trafgen"), "both", "--port", "stream:" + q.nic_sock(0),
                               "--port", "stream:" + q.nic_sock(1), "--rate", rate, "--size", "64",
                               "--duration", str(WARMUP + window + 1), "--quiet",
                               "--max-time", str(WARMUP + window + 40)], stdout=subprocess.DEVNULL)
        try:
            end = time.monotonic() + WARMUP
            while time.monotonic() < end:
                q._read(0.1)
            f0, t0 = forwarded(q)
            end = time.monotonic() + window
            while time.monotonic() < end:
                q._read(0.1)
            f1, t1 = forwarded(q)
            tg.wait(timeout=120)
            kept = dropped = mirrored = ""
            if cmd:
                q.send("capture stop\r")
                kept, dropped = (int(x) for x in q.expect(DONE, 60).groups()[2:])
            if nports == 3:
                q.send("capture mirror\r")
                m = q.expect(r"mirrored (\d+), dropped (\d+)", 30)
                mirrored, dropped = (int(x) for x in m.groups())
        finally:
            stop.set()
            if tg.poll() is None:
                tg.kill()
                tg.wait()
    i0, i1 = insns_at(log, t0), insns_at(log, t1)
    frames = f1 - f0
    per = (i1 - i0) / frames if frames and i0 is not None and i1 is not None else float("nan")
    return {"run": name, "rate": rate, "frames": frames, "insns_per_frame": round(per, 1),
            "kpps": round(frames / ((t1 - t0) / 1e9) / 1e3, 2), "kept": kept, "mirrored": mirrored,
            "dropped": dropped}


def main():
    help_exit(__doc__)
    so = plugin()
    if not so:
        print("\ncapture cost: skipped (no QEMU plugin: make insncount)")
        return
    os.makedirs(os.path.join(BUILD, "bench"), exist_ok=True)
    print("\nCapture and mirror: guest instructions per frame forwarded (insncount; e1000e L2, napi, 64 B)")
    print(f"{'run':8} {'rate':>7} {'frames':>8} {'insn/frame':>11} {'extra':>8} {'kpps':>7} {'kept':>8} "
          f"{'mirrored':>8} {'dropped':>8}")
    rows, base = [], {}
    for name, rate, knobs, cmd in RUNS:
        r = run(so, name, rate, knobs, cmd)
        rows.append(r)
        if name == "off":
            base[rate] = r["insns_per_frame"]
        extra = r["insns_per_frame"] - base.get(rate, float("nan"))
        print(f"{name:8} {rate:>7} {r['frames']:>8} {r['insns_per_frame']:>11.1f} "
              f"{'' if name == 'off' else '%+.1f' % extra:>8} {r['kpps']:>7.2f} {r['kept']!s:>8} "
              f"{r['mirrored']!s:>8} {r['dropped']!s:>8}", flush=True)
    save("capture.csv", rows)


if __name__ == "__main__":
    main()
