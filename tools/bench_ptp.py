#!/usr/bin/python3
"""PTP benchmark (make bench): servo offset rms and max after convergence
for the appliance as slave of linuxptp's ptp4l (L2, igb hardware stamps on
the appliance, software stamps in ptp4l), for two appliances with igb
hardware stamps on both sides (-netdev stream pair), and for ptp4l against
ptp4l over a veth pair in two namespaces (the same kind of link; ptp4l runs
with --free_running 1, as always here, so its figures are the residuals of
its offsets around their trend: what its servo would have to follow).
Then each mode with the appliance between a ptp4l master and a slave-only
ptp4l (two igb ports on two taps in two namespaces, as the QEMU tests wire
them): boundary clock (E2E), fwd's E2E and P2P transparent clocks, fwd's
plain L2 pair (ptp_tc=off: the baseline the TCs are compared with), and an
802.1AS time-aware relay (gPTP.cfg on both ptp4l), each beside ptp4l
slave of ptp4l over veth with the same delay mechanism (E2E, P2P, gPTP):
the slave's residuals, as for ptp4l against ptp4l, and its mean path
delay; for fwd, the mean residence time its `fwd` command reports. The
TC's slave should show a path delay shorter than the plain pair's by
about that residence, and residuals no larger. Then
the check of the PTP field report (docs/field-reports.md): app=rr transactions/s and guest instructions per
transaction on igb with hardware timestamping off and on (hwtstamp=1):
frames that are not PTP must cost nothing. Prints tables and CSV under
build/bench/; never passes or fails. QEMU TCG figures: compare rows, not
machines.

    tools/bench_ptp.py [--seconds 20] [--rr-seconds 3] [--modes bc,e2e,l2,p2p,gptp] [--no-rr]
"""
import argparse
import csv
import math
import os
import re
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from netns import TapPeer, names, remove, sh, tap_add, wire  # noqa: E402
from qemurun import BUILD, Qemu  # noqa: E402
import bench_rr  # noqa: E402

NS, TAP = names("ptpb")
INTERVALS = "logSyncInterval=-2 logAnnounceInterval=0 logMinDelayReqInterval=-2"
PTP4L_INTERVALS = ["--logSyncInterval", "-2", "--logAnnounceInterval", "0", "--logMinDelayReqInterval", "-2"]
SAMPLE = re.compile(rb"master offset\s+(-?\d+) s2 freq\s+[+-]?\d+ path delay\s+(-?\d+)")
PTP4L_SAMPLE = re.compile(r"ptp4l\[([\d.]+)\]: master offset\s+(-?\d+) s0 freq\s+[+-]?\d+ path delay\s+(-?\d+)")


def ptp4l(ns, iface, *args):
    """ptp4l -S --free_running 1 in ns; returns (process, lines list filled by a thread)."""
    p = subprocess.Popen(["ip", "netns", "exec", ns, "ptp4l", "-i", iface, "-S", "-m", "-q", "-2",
                          "--free_running", "1"] + PTP4L_INTERVALS + list(args),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    threading.Thread(target=lambda: [lines.append(x) for x in p.stdout], daemon=True).start()
    return p, lines


def stop(p):
    p.terminate()
    try:
        p.wait(10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def stats(offsets):
    n = len(offsets)
    if not n:
        return {"samples": 0, "rms_ns": None, "max_ns": None}
    return {"samples": n, "rms_ns": round(math.sqrt(sum(o * o for o in offsets) / n)),
            "max_ns": max(abs(o) for o in offsets)}


def residuals(pts):
    """Offsets less their least-squares line over time (free-running ptp4l)."""
    if len(pts) < 3:
        return []
    o0 = pts[0][1]
    pts = [(t, o - o0) for t, o in pts]
    n = len(pts)
    mt = sum(t for t, _ in pts) / n
    mo = sum(o for _, o in pts) / n
    slope = sum((t - mt) * (o - mo) for t, o in pts) / sum((t - mt) ** 2 for t, _ in pts)
    return [round(o - (mo + slope * (t - mt))) for t, o in pts]


def appliance_samples(q, seconds, settle=40):
    """s2 offsets over seconds after settle samples."""
    end = time.monotonic() + 120
    got = []
    while time.monotonic() < end:
        m = q.expect(SAMPLE, 60)
        got.append(int(m.group(1)))
        if len(got) == settle:
            end = time.monotonic() + seconds
    return got[settle:]


def appliance_vs_ptp4l(seconds):
    tap_add(TAP)
    try:
        with Qemu(boot="kernel", mem="256M", nics=[f"igb:bus=rp,netdev=tap,ifname={TAP}"],
                  append=f"app=ptp ptp_role=slave stats=0 {INTERVALS}") as q:
            q.expect("port0: link up", 90)
            wire(NS, TAP)
            p, _ = ptp4l(NS, TAP, "--priority1", "1")
            try:
                return stats(appliance_samples(q, seconds))
            finally:
                stop(p)
    finally:
        remove(NS, TAP)


def appliance_vs_appliance(seconds):
    common = f"app=ptp stats=0 {INTERVALS}"
    with Qemu(boot="kernel", mem="256M", nics=["igb:bus=rp,netdev=stream"],
              append=common + " ptp_role=master") as m:
        m.expect("port0: link up", 90)
        halt = threading.Event()
        t = threading.Thread(target=lambda: [m._read(0.2) for _ in iter(halt.is_set, True)], daemon=True)
        t.start()
        try:
            with Qemu(boot="kernel", mem="256M",
                      nics=[f"igb:bus=rp,netdev=stream,connect={m.nic_sock(0)},mac=52:54:00:00:00:02"],
                      append=common + " ptp_role=slave") as s:
                return stats(appliance_samples(s, seconds))
        finally:
            halt.set()
            t.join(5)


def ptp4l_offsets(lines):
    """(time, offset) of a free-running ptp4l's sample lines."""
    return [(float(m.group(1)), int(m.group(2))) for m in map(PTP4L_SAMPLE.search, lines) if m]


def path_delay_mean(lines, skip):
    """Mean path delay (ns) of a ptp4l's sample lines after the first skip, None without any."""
    d = [int(m.group(3)) for m in map(PTP4L_SAMPLE.search, lines) if m][skip:]
    return round(sum(d) / len(d)) if d else None


def residence_means(q):
    """fwd's mean residence time (ns) per ingress port, as its `fwd`
    command prints it: port0's the master's Syncs, port1's the slave's
    Delay_Reqs (e2e). "" with ptp_tc=off."""
    got = re.findall(r"fwd port(\d+) ptp_tc \w+:.*?residence_mean_ns (\d+)", q.shell("fwd"))
    return " ".join(f"port{p}:{m}" for p, m in got)


def ptp4l_vs_ptp4l(seconds, master_args=(), slave_args=()):
    a, b = NS + "a", NS + "b"
    sh("ip", "netns", "add", a)
    sh("ip", "netns", "add", b)
    try:
        va, vb = names("pva")[1], names("pvb")[1]
        sh("ip", "link", "add", va, "type", "veth", "peer", "name", vb)
        sh("ip", "link", "set", va, "netns", a)
        sh("ip", "link", "set", vb, "netns", b)
        sh("ip", "link", "set", va, "up", ns=a)
        sh("ip", "link", "set", vb, "up", ns=b)
        pm, _ = ptp4l(a, va, "--priority1", "1", *master_args)
        ps, lines = ptp4l(b, vb, "-s", "--summary_interval", "-2", *slave_args)
        try:
            time.sleep(15 + seconds)	# announce timeout, master qualification, then samples
        finally:
            stop(ps)
            stop(pm)
        return {**stats(residuals(ptp4l_offsets(lines)[8:])), "path_delay_ns": path_delay_mean(lines, 8)}
    finally:
        sh("ip", "netns", "del", a, check=False)
        sh("ip", "netns", "del", b, check=False)


# Announce every 0.5 s (the qualifications and timeouts come sooner), Sync
# and Delay_Req 4 Hz; gPTP.cfg as test_ptp.py's gPTP tests run it.
FAST = ["--logAnnounceInterval", "-1"]
GPTP = ["-f", "/usr/share/doc/linuxptp/configs/gPTP.cfg", "--neighborPropDelayThresh", "100000000",
        "--logMinPdelayReqInterval", "-2"]
SYNC = ["logSyncInterval=-2", "logMinDelayReqInterval=-2", "tx_timestamp_timeout=100"]
# mode: (the appliance's knobs, the master ptp4l's extra arguments, the
# slave's, the veth pair's master and slave arguments). P2P: the slave's
# first Pdelay_Req 2 s on (test_transparent_clock says why).
MODES = {
    "bc": (["app=ptp", "ptp_role=auto", "logAnnounceInterval=-1"] + SYNC, FAST, FAST, FAST, FAST),
    "e2e": (["app=fwd", "pairs=0-1", "ptp_tc=e2e"] + SYNC, FAST, FAST, FAST, FAST),
    # promisc=1: with ptp_tc=off fwd joins no PTP group
    "l2": (["app=fwd", "pairs=0-1", "ptp_tc=off", "promisc=1"] + SYNC, FAST, FAST, FAST, FAST),
    "p2p": (["app=fwd", "pairs=0-1", "ptp_tc=p2p", "logMinPdelayReqInterval=-2"] + SYNC,
            FAST + ["-P", "--logMinPdelayReqInterval", "-2"], FAST + ["-P", "--logMinPdelayReqInterval", "1"],
            FAST + ["-P", "--logMinPdelayReqInterval", "-2"], FAST + ["-P", "--logMinPdelayReqInterval", "-2"]),
    "gptp": (["app=ptp", "transportSpecific=1", "delay_mechanism=P2P", "logMinPdelayReqInterval=-2",
              "neighborPropDelayThresh=100000000", "logAnnounceInterval=0"] + SYNC, GPTP, GPTP, GPTP, GPTP),
}
MODE_NAMES = {"bc": "boundary clock (app=ptp, 2 ports, E2E)", "e2e": "E2E transparent clock (fwd ptp_tc=e2e)",
              "l2": "plain L2 pair (fwd ptp_tc=off)", "p2p": "P2P transparent clock (fwd ptp_tc=p2p)",
              "gptp": "802.1AS relay (app=ptp, gPTP.cfg)"}


def through_appliance(mode, seconds, settle=40):
    """A ptp4l master on port0's tap, a slave-only ptp4l on port1's, the
    appliance in mode between: the slave's residuals over seconds after
    settle sample lines (a free-running ptp4l prints one every 2 s; up to
    120 s)."""
    knobs, m_args, s_args = MODES[mode][:3]
    fwd = "app=fwd" in knobs
    up, down = TapPeer("pbm"), TapPeer("pbs")
    try:
        with Qemu(boot="kernel", mem="256M", nics=[f"igb:bus=rp,netdev=tap,ifname={up.tap}",
                                                   f"igb:bus=rp,netdev=tap,ifname={down.tap}"],
                  append=" ".join(["stats=0"] + knobs)) as q:
            q.expect("port1: link up", 90)
            up.wire()
            down.wire()
            pm, _ = ptp4l(up.ns, up.tap, "--priority1", "1", *m_args)
            ps, lines = None, []
            try:
                with q.pumping():
                    # the appliance's port0 selects the master (BC, relay)
                    # or passes it on (TC) before the slave starts
                    time.sleep(5)
                    ps, lines = ptp4l(down.ns, down.tap, "-s", "--summary_interval", "-2", *s_args)
                    end = time.monotonic() + 120
                    while time.monotonic() < end and len(ptp4l_offsets(lines)) < settle:
                        time.sleep(0.5)
                    n = len(ptp4l_offsets(lines))
                    time.sleep(seconds)
            finally:
                if ps:
                    stop(ps)
                stop(pm)
            return {**stats(residuals(ptp4l_offsets(lines)[n:])), "path_delay_ns": path_delay_mean(lines, n),
                    "residence_ns": residence_means(q) if fwd else ""}
    finally:
        up.close()
        down.close()


def rr_tstamp(seconds):
    """The PTP field report's case: rr on igb, UDP 1/1, one session, hardware timestamping off and on."""
    so = bench_rr.plugin()
    log = os.path.join(BUILD, "bench", "ptp-rr-insns.log")
    rows = []
    for on in (0, 1):
        extra = ("-plugin", f"{so},log={log},period_ms=50") if so else ()
        g = bench_rr.Guest("igb", "napi", 1, extra=extra, append=f"hwtstamp={on}")
        try:
            time.sleep(1)
            t0 = time.monotonic_ns()
            time.sleep(1)
            t1 = time.monotonic_ns()
            r = g.client("udp", 1, 1, seconds)
            t2 = time.monotonic_ns()
            time.sleep(0.2)
            row = {"hwtstamp": on, "tps": round(r["transactions"] / seconds), "transactions": r["transactions"]}
            if so:
                s = bench_rr.samples(log)
                idle = (bench_rr.insns_at(s, t1) - bench_rr.insns_at(s, t0)) / max(1, t1 - t0)
                busy = bench_rr.insns_at(s, t2) - bench_rr.insns_at(s, t1)
                row["insns_per_transaction"] = round((busy - idle * (t2 - t1)) / max(1, r["transactions"]))
            rows.append(row)
        finally:
            g.close()
    return rows


def save(name, rows):
    with open(os.path.join(BUILD, "bench", name), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--rr-seconds", type=float, default=3)
    ap.add_argument("--modes", default="oc,bc,e2e,l2,p2p,gptp",
                    help="comma-separated: oc (the first three rows), bc, e2e, l2, p2p, gptp")
    ap.add_argument("--no-rr", action="store_true", help="leave out the rr field report check")
    a = ap.parse_args()
    modes = a.modes.split(",")
    bad = [m for m in modes if m != "oc" and m not in MODES]
    if bad:
        print(f"bench_ptp: --modes: {','.join(bad)}: accepted: oc, " + ", ".join(MODES))
        return 2
    if os.geteuid() != 0:
        print("bench_ptp: skipped (needs root for network namespaces and tap devices)")
        return 0
    os.makedirs(os.path.join(BUILD, "bench"), exist_ok=True)
    print(f"\nPTP: offset after 40 samples (4 Hz Sync), then over {a.seconds:.0f} s; ns")
    rows = []
    runs = []
    if "oc" in modes:
        runs += [("appliance slave of ptp4l (L2, igb hw stamps; ptp4l -S)", appliance_vs_ptp4l),
                 ("appliance slave of appliance (igb hw stamps both)", appliance_vs_appliance),
                 ("ptp4l slave of ptp4l, veth (-S, free running: residuals)", ptp4l_vs_ptp4l)]
    for m in (m for m in MODES if m in modes):
        runs += [(f"ptp4l-{MODE_NAMES[m]}-ptp4l (slave's residuals)",
                  lambda s, m=m: through_appliance(m, s)),
                 (f"  beside: ptp4l slave of ptp4l, veth, {m} options",
                  lambda s, m=m: ptp4l_vs_ptp4l(s, *MODES[m][3:]))]
    for name, fn in runs:
        r = {"pair": name.strip(), "path_delay_ns": None, "residence_ns": "", **fn(a.seconds)}
        rows.append(r)
        extra = f" path delay {r['path_delay_ns']}" if r["path_delay_ns"] is not None else ""
        extra += f" residence {r['residence_ns']}" if r["residence_ns"] else ""
        print(f"  {name:70} samples {r['samples']:4} rms {r['rms_ns']!s:>9} max {r['max_ns']!s:>9}{extra}",
              flush=True)
    save("ptp.csv", rows)
    if a.no_rr:
        return 0
    print(f"\nPTP field report: app=rr on igb, UDP 1/1 B, 1 session, {a.rr_seconds:.0f} s; hardware timestamping off / on")
    rr = rr_tstamp(a.rr_seconds)
    for r in rr:
        ins = r.get("insns_per_transaction")
        print(f"  hwtstamp={r['hwtstamp']}: {r['tps']:7} transactions/s"
              + (f", {ins} guest instructions/transaction" if ins is not None else ""), flush=True)
    if len(rr) == 2 and rr[0]["tps"]:
        d = 100.0 * (rr[1]["tps"] - rr[0]["tps"]) / rr[0]["tps"]
        line = f"  on vs off: {d:+.1f} % transactions/s"
        if "insns_per_transaction" in rr[0] and rr[0]["insns_per_transaction"]:
            di = 100.0 * (rr[1]["insns_per_transaction"] - rr[0]["insns_per_transaction"]) \
                / rr[0]["insns_per_transaction"]
            line += f", {di:+.1f} % instructions/transaction"
        print(line)
    save("ptp-rr.csv", rr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
