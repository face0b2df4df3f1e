#!/usr/bin/python3
"""Guest instructions per frame (make bench): how much work the fast path
does per frame, counted by QEMU's insncount TCG plugin (tools/insncount,
built into build/insncount/ by `make insncount`): deterministic, unlike
time under TCG. Paths, 64-byte frames (IPv6: 84), e1000e, igb and virtio-net-pci
(and, named, virtio-in-order: virtio-net-pci with in_order=on), two ports:
  l2     fwd pairs=0-1 promisc=1, trafgen both --rate max    (napi, busy)
  l3     fwd ip0=10.1.0.1/24 ip1=10.2.0.1/24, --rate max     (napi, busy)
  l3m    the same with 64 sources x 8 destinations, each frame's
         pair unlike the one before (no burst cache hits)     (napi)
  l3v6   fwd ip0=2001:db8:1::1/64 ip1=2001:db8:2::1/64, IPv6/UDP,
         84-byte frames (trafgen's smallest IPv6 frame), the
         next hops resolved by ND                             (napi)
  l3v6m  the same with 64 sources x 8 destinations            (napi)
  l2vlan   l2 with every frame under an 802.1Q tag (VID 100,
         trafgen --vlan): passed untouched, 68-byte frames  (napi)
  l3vlan   l3 between VLAN sub-interfaces, ip0.100= to ip1.200=:
         tagged VID 100 in, VID 200 out, 68-byte frames     (napi)
  l2     at --rate 20kpps, interrupt-driven                  (napi)
  macswap  l2 with fwd_mode=macswap (MACs swapped), --rate max (napi)
  l2tc   l2 with ptp_tc=e2e (the transparent clock on the pair):
         its cost to non-PTP frames, against l2            (napi)
  l3tc   l3 with ptp_tc=e2e, against l3                     (napi)
  sink   app=sink, trafgen send --rate max on port0          (napi)
Per run: the guest's frame counter (`fwd` / `sink` in the shell) and the
plugin's instruction count are read twice while traffic flows; the
figure is instructions / frames received between the two readings (the
whole guest: drivers, app, poll loop, interrupts, timers). Also the
forwarded (or received) pps and the appliance's CPU% in the same window.
Targets (docs/benchmarks.md): l2 <= 100, l3 <= 200 with napi at max rate; l2 at
20 kpps <= 300; l3v6 and l3v6m <= 1.2x l3 and l3m (the ratios printed
after the table, with tagged / untagged: l2vlan / l2 and l3vlan / l3). Prints a table, saves build/bench/insn.csv; never fails.
Usage: bench_insn.py [profile|window] [nic ...] [path ...] [napi|busy] [max|Nkpps]
(default: every run). With `profile`, QEMU's hotblocks plugin runs beside
it and tools/insncount/profile.py prints each run's per-function table,
with each function's share of the instructions per frame. With `window`,
each run is profiled twice, with WINDOW_SHORT and WINDOW_LONG s of
traffic, and the short run's blocks are subtracted from the long run's
block by block (profile.py --base; the boot's spin waits, SPIN, left
out): boot, link-up and the readings drop out, and the per-function table and its total are instructions per frame
of the frames between the two runs (steadier than the whole-guest figure,
whose window also holds the report and interrupts of its own 2 s)."""
import json
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchcsv import save  # noqa: E402
from qemurun import BUILD, Qemu  # noqa: E402
from usage import help_exit  # noqa: E402

WARMUP = 1.0     # s of traffic before the first reading
WINDOW = 2.0     # s between the readings
# At a fixed rate the cost per frame is the interrupt work shared over the
# frames each interrupt finds, which varies from one interrupt to the next
# (2 s windows ranged 140-330 at 20 kpps): a longer window averages it.
WINDOW_PACED = 8.0
WINDOW_SHORT, WINDOW_LONG = 2.0, 8.0   # s of traffic of `window`'s two profiled runs
SPIN = "udelay,tsc_from_pit"   # the boot's spin waits, as long as each boot takes: left out of `window`
RUNS = [("l2", "napi", "max"), ("l2", "busy", "max"), ("l3", "napi", "max"),
        ("l3", "busy", "max"), ("l3m", "napi", "max"), ("l3v6", "napi", "max"), ("l3v6m", "napi", "max"),
        ("l2vlan", "napi", "max"), ("l3vlan", "napi", "max"),
        ("l2", "napi", "20kpps"), ("macswap", "napi", "max"), ("l2tc", "napi", "max"), ("l3tc", "napi", "max"),
        ("sink", "napi", "max")]
KNOBS = {"l2": "app=fwd pairs=0-1 promisc=1", "macswap": "app=fwd pairs=0-1 promisc=1 fwd_mode=macswap",
         "l3": "app=fwd ip0=10.1.0.1/24 ip1=10.2.0.1/24",
         "l3m": "app=fwd ip0=10.1.0.1/24 ip1=10.2.0.1/24", "sink": "app=sink promisc=1",
         "l3v6": "app=fwd ip0=2001:db8:1::1/64 ip1=2001:db8:2::1/64",
         "l3v6m": "app=fwd ip0=2001:db8:1::1/64 ip1=2001:db8:2::1/64",
         "l2vlan": "app=fwd pairs=0-1 promisc=1", "l3vlan": "app=fwd ip0.100=10.1.0.1/24 ip1.200=10.2.0.1/24",
         "l2tc": "app=fwd pairs=0-1 promisc=1 ptp_tc=e2e", "l3tc": "app=fwd ip0=10.1.0.1/24 ip1=10.2.0.1/24 ptp_tc=e2e"}
# Addresses trafgen walks (frame s takes element s mod length of each range).
IPS = {"l3": ("10.1.0.2", "10.2.0.2"), "l3m": ("10.1.0.2-10.1.0.65", "10.2.0.2-10.2.0.9"),
       "l3v6": ("2001:db8:1::2", "2001:db8:2::2"),
       "l3v6m": ("2001:db8:1::2-2001:db8:1::41", "2001:db8:2::2-2001:db8:2::9")}
ROUTED = ("l3", "l3m", "l3v6", "l3v6m", "l3vlan", "l3tc")
VLAN = {"l2vlan": 100, "l3vlan": 100}   # trafgen --vlan: the VID frames are sent under
# fwd's counter line of the link the frames come in on.
RX_LINK = {"l3vlan": "port0.100"}
NICS = ("e1000e", "igb", "virtio-net-pci")
# Asked for by name only: virtio-net-pci offering VIRTIO_F_IN_ORDER (QEMU's
# in_order=on, off by default), which the driver takes with split rings.
NIC_SPECS = {"virtio-in-order": "virtio-net-pci:netdev=stream,in_order=1"}
TARGET = {("l2", "napi", "max"): 100, ("l3", "napi", "max"): 200, ("l2", "napi", "20kpps"): 300}
V6_RATIO = 1.2   # l3v6 / l3 and l3v6m / l3m at most (issue #26), printed after the table
TAGGED = (("l2vlan", "l2"), ("l3vlan", "l3"))   # tagged / untagged, printed after the table
TC = (("l2tc", "l2"), ("l3tc", "l3"))   # ptp_tc=e2e / off: the difference printed after the table


def size(path):
    """The frame size of a path's runs, bytes with FCS: trafgen's smallest
    (the same IP packet as 64 bytes untagged when tagged)."""
    return str((84 if path.startswith("l3v6") else 64) + (4 if path in VLAN else 0))


def plugin():
    """INSNCOUNT=, or build/insncount/insncount.so, built by make insncount
    when missing (saying so first: it downloads Debian's QEMU source once);
    None, after saying why, when there is none."""
    so = os.environ.get("INSNCOUNT")
    if so:
        if not os.path.exists(so):
            print(f"INSNCOUNT={so}: no such file")
        return so if os.path.exists(so) else None
    so = os.path.join(BUILD, "insncount", "insncount.so")
    if not os.path.exists(so):
        print("building the insncount plugin (make insncount; downloads Debian's QEMU source once)...", flush=True)
        r = subprocess.run(["make", "-s", "insncount"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if not os.path.exists(so):
            print(f"make insncount failed (exit {r.returncode}): {r.stderr.strip()[-500:]}")
    return so if os.path.exists(so) else None


def samples(log):
    with open(log) as f:
        return [tuple(map(int, ln.split())) for ln in f if len(ln.split()) == 2]


def insns_at(log, t_ns):
    """Instructions executed by host CLOCK_MONOTONIC time t_ns, interpolated
    between the plugin's samples."""
    s = samples(log)
    for (a, x), (b, y) in zip(s, s[1:]):
        if a <= t_ns <= b:
            return x + (y - x) * (t_ns - a) / max(b - a, 1)
    return None


def reading(q, path):
    """(frames received so far by the app on port0, host ns of the reading)."""
    cmd, rx = ("sink", r"sink port0 q0: (\d+) packets") if path == "sink" else \
              ("fwd", r"fwd %s: rx (\d+) forwarded" % re.escape(RX_LINK.get(path, "port0")))
    t0 = time.monotonic_ns()
    q.send(cmd + "\n")
    m = q.expect(rx, 30)
    t1 = time.monotonic_ns()
    return int(m.group(1)), (t0 + t1) // 2


def settled(q, path, timeout=30):
    """Frames received on port0 once the count stops moving (or after
    timeout s): what the sender wrote has all reached the app."""
    last, end = -1, time.monotonic() + timeout
    while (now := reading(q, path)[0]) != last and time.monotonic() < end:
        last = now
        time.sleep(0.5)
    return now


def cpu_pct(text):
    """Median CPU% of core 0 over the JSON reports in text."""
    v = sorted(json.loads(ln[ln.index("{"):]).get("cpu_pct") or 0 for ln in text.splitlines()
               if '{"stats":"core"' in ln and ln.rstrip().endswith("}"))
    return v[len(v) // 2] if v else 0


def run(so, nic, path, poll, rate, profile=False, window=None):
    """One boot and run; with window (s of traffic between the readings)
    its logs are named by it, so `window`'s two runs keep theirs."""
    tag = f"-{window:g}s" if window else ""
    window = window or (WINDOW if rate == "max" else WINDOW_PACED)
    log = os.path.join(BUILD, "bench", f"insn-{nic}-{path}-{poll}-{rate}{tag}.log")
    hot = os.path.join(BUILD, "bench", f"hot-{nic}-{path}-{poll}-{rate}{tag}.log")
    for f in (log, hot):
        if os.path.exists(f):
            os.remove(f)
    extra = ["-plugin", f"{so},period_ms=20,log={log}"]
    if profile:
        extra += ["-plugin", os.path.join(os.path.dirname(so), "hotblocks.so") + ",inline=on",
                  "-d", "plugin", "-D", hot]
    bus = ",bus=rp" if nic == "igb" else ""
    q = Qemu(boot="kernel", mem="256M", nics=[NIC_SPECS.get(nic, f"{nic}:netdev=stream{bus}")] * 2,
             append=f"{KNOBS[path]} poll={poll} stats=1 stats_format=json",
             extra=extra)
    with q:
        mac0 = q.expect(r"port0: \S+ .*MAC ([0-9a-f:]{17})", 60).group(1).decode()
        q.expect("linerate> ", 30)
        for p in ("port0", "port1"):
            if f"{p}: link up" not in q.text():
                q.expect(f"{p}: link up", 30)
        tg = [os.path.join(BUILD, "trafgen"), "send" if path == "sink" else "both",
              "--port", "stream:" + q.nic_sock(0)]
        if path != "sink":
            tg += ["--port", "stream:" + q.nic_sock(1), "--arp-reply"]
        v6 = "6" if path.startswith("l3v6") else ""
        src, dst = IPS.get(path, IPS["l3"])
        tg += ["--rate", rate, "--duration", str(WARMUP + window + 1), "--size", size(path), "--quiet",
               "--src-ip" + v6, src, "--dst-ip" + v6, dst, "--dst-mac", mac0,
               "--rx-mac", "02:00:00:00:00:02", "--max-time", str(WARMUP + window + 40)]
        if path in VLAN:
            tg += ["--vlan", str(VLAN[path])]
        if path in ROUTED:
            # Resolve the next hop first (ARP or ND): frames dropped while it is unresolved
            # (arp_queue_full) would stay in trafgen's window as lost and hold
            # the measured run to a few frames in flight.
            prime = [a if a != "max" else "1kpps" for a in tg]
            prime[prime.index("--duration") + 1] = "0.2"
            subprocess.run(prime, stdout=subprocess.DEVNULL, timeout=60)
        proc = subprocess.Popen(tg, stdout=subprocess.PIPE, text=True)
        try:
            end = time.monotonic() + WARMUP
            while time.monotonic() < end:
                q._read(0.1)
            start = len(q.out)
            f0, t0 = reading(q, path)
            end = time.monotonic() + window
            while time.monotonic() < end:
                q._read(0.1)
            f1, t1 = reading(q, path)
            text = q.out[start:].decode(errors="replace")
            if path == "sink":
                # trafgen send would leave with frames still waiting in QEMU,
                # which QEMU 10.0.2 segfaults on (docs/testing.md), losing the
                # hot-block log it writes at exit: pause it instead, let the
                # guest take what waits, and stop QEMU before it goes.
                proc.send_signal(signal.SIGSTOP)
                f2 = settled(q, path)
                q.stop()
            else:
                while proc.poll() is None:
                    q._read(0.2)
                f2 = reading(q, path)[0] if profile else 0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    i0, i1 = insns_at(log, t0), insns_at(log, t1)
    frames = f1 - f0
    per = (i1 - i0) / frames if frames and i0 is not None and i1 is not None else float("nan")
    return {"nic": nic, "path": path, "poll": poll, "rate": rate, "size": int(size(path)), "frames": frames,
            "insns": int(i1 - i0) if i0 is not None and i1 is not None else 0,
            "insns_per_frame": round(per, 1), "kpps": round(frames / ((t1 - t0) / 1e9) / 1e3, 1),
            "cpu_pct": cpu_pct(text), "run_frames": f2, "hot": hot}


def profile_table(hot, top, base=None):
    """[(function, instructions)] of profile.py's table of a hotblocks log
    (base's blocks subtracted), the listed blocks' total last."""
    cmd = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "insncount", "profile.py"),
           hot, os.path.join(BUILD, "linerate.elf"), str(top)] + (["--base", base, "--exclude", SPIN] if base else [])
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    return [(m.group(1), float(m.group(2))) for m in
            (re.match(r"(\S+(?: blocks\))?)\s+[\d.]+%\s+(\S+) insns", ln) for ln in out.splitlines()) if m]


def window_profile(so, nic, path, poll, rate, top=40):
    """The per-function table of the long run less the short one, per frame
    between them; returns (instructions per frame, frames, kpps of the long run)."""
    short = run(so, nic, path, poll, rate, True, WINDOW_SHORT)
    long_ = run(so, nic, path, poll, rate, True, WINDOW_LONG)
    frames = long_["run_frames"] - short["run_frames"]
    table = profile_table(long_["hot"], top, short["hot"])
    if frames <= 0 or not table:
        print(f"\nwindow profile {nic} {path} {poll} {rate}: no frames between the runs "
              f"({short['run_frames']} and {long_['run_frames']}) or no profile")
        return float("nan"), frames, long_["kpps"]
    total = table[-1][1] / frames
    print(f"\nwindow profile {nic} {path} {poll} {rate}: {total:.1f} insns/frame over the {frames} frames "
          f"between runs of {WINDOW_SHORT:g} s and {WINDOW_LONG:g} s ({long_['kpps']} kpps)")
    print(f"  {'function':32} {'insns/frame':>11}")
    for fn, n in table:
        print(f"  {fn:32} {n / frames:11.2f}")
    return round(total, 1), frames, long_["kpps"]


def print_profile(r, top=25):
    """Per-function table of the run's hotblocks log: each function's share
    of the listed blocks (the whole run, boot included) and its
    instructions per frame received in the run."""
    table = profile_table(r["hot"], top)
    print("\nprofile {nic} {path} {poll} {rate} ({insns_per_frame} insns/frame; {run_frames} frames "
          "in the run):".format(**r))
    print(f"  {'function':32} {'share':>6} {'insns/frame':>11}")
    total = table[-1][1] if table else 1
    for fn, n in table[:-1]:
        print(f"  {fn:32} {100.0 * n / total:5.1f}% {n / max(r['run_frames'], 1):11.1f}")


def main():
    help_exit(__doc__)
    args = sys.argv[1:]
    nics = [a for a in args if a in NICS or a in NIC_SPECS] or list(NICS)
    paths = [a for a in args if a in KNOBS] or list(KNOBS)
    polls = [a for a in args if a in ("napi", "busy")] or ["napi", "busy"]
    rates = [a for a in args if re.fullmatch(r"max|\d+kpps", a)] or ["max", "20kpps"]
    so = plugin()
    if not so:
        print("\ninstructions per frame: skipped (no QEMU plugin: make insncount)")
        return
    os.makedirs(os.path.join(BUILD, "bench"), exist_ok=True)
    rows = []
    if "window" in args:
        print("\nGuest instructions per frame (hotblocks plugin; two runs subtracted, per function)")
    else:
        print("\nGuest instructions per frame (insncount plugin; the whole guest)")
        print(f"{'nic':14} {'path':7} {'poll':5} {'rate':>7} {'size':>4} {'frames':>8} {'insn/frame':>11} "
              f"{'kpps':>7} {'CPU%':>6} {'target':>7}")
    for nic in nics:
        for path, poll, rate in RUNS:
            if path not in paths or poll not in polls or rate not in rates:
                continue
            if "window" in args:
                per, frames, kpps = window_profile(so, nic, path, poll, rate)
                rows.append({"nic": nic, "path": path, "poll": poll, "rate": rate, "size": int(size(path)),
                             "frames": frames, "window_insns_per_frame": per, "kpps": kpps})
                continue
            r = run(so, nic, path, poll, rate, "profile" in args)
            rows.append(r)
            t = TARGET.get((path, poll, rate))
            print(f"{nic:14} {path:7} {poll:5} {rate:>7} {r['size']:>4} {r['frames']:>8} {r['insns_per_frame']:>11.1f} "
                  f"{r['kpps']:>7.1f} {r['cpu_pct']:>6.1f} {'<= %d' % t if t else '':>7}", flush=True)
    per = {(r["nic"], r["path"]): r["insns_per_frame"] for r in rows
           if r["poll"] == "napi" and r["rate"] == "max" and "insns_per_frame" in r}
    for nic in nics:
        for v6, v4 in (("l3v6", "l3"), ("l3v6m", "l3m")):
            if per.get((nic, v4)) and (nic, v6) in per:
                print(f"{nic}: {v6} / {v4} = {per[(nic, v6)] / per[(nic, v4)]:.2f}x IPv4's instructions per frame "
                      f"(target <= {V6_RATIO}x)")
        for tagged, plain in TAGGED:
            if per.get((nic, plain)) and (nic, tagged) in per:
                print(f"{nic}: {tagged} / {plain} = {per[(nic, tagged)] / per[(nic, plain)]:.2f}x untagged "
                      f"instructions per frame (tagged {per[(nic, tagged)]:.1f}, untagged {per[(nic, plain)]:.1f})")
        for tc, plain in TC:
            if (nic, plain) in per and (nic, tc) in per:
                print(f"{nic}: {tc} - {plain} = {per[(nic, tc)] - per[(nic, plain)]:+.1f} instructions per non-PTP frame "
                      f"with ptp_tc=e2e (target 0)")
    if "profile" in args:
        for r in rows:
            print_profile(r)
    for r in rows:
        r.pop("run_frames", None)
        r.pop("hot", None)
    save("insn-window.csv" if "window" in args else "insn.csv", rows)


if __name__ == "__main__":
    main()
