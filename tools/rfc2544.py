#!/usr/bin/python3
"""make rfc2544: RFC 2544's tables of devices under test in QEMU, from a
pktgen appliance, each DUT in turn with the same trials, then the tables
side by side. Per DUT two guests: the DUT and the tester, a pktgen
appliance whose two e1000e ports are wired to the DUT's two by -netdev
stream pairs. The DUTs (--dut):
  appliance  a fwd appliance cross-connecting its two e1000e ports
             (`app=fwd promisc=1`, L2);
  linux      a Debian Linux guest (tools/linux_guest.py: Debian's kernel,
             its e1000e module, a busybox-static initramfs) routing IPv4
             between its two e1000e ports: eth0 10.1.0.1/24 towards the
             tester's port0 (10.1.0.2), eth1 10.2.0.1/24 towards port1
             (10.2.0.2), net.ipv4.ip_forward=1, both tester addresses as
             permanent neighbours; the tester sends to eth0's MAC.
The tester runs `pktgen rfc2544 TESTS` (throughput search, latency at
the throughput rate, frame loss steps, back-to-back bursts) from port0
to port1, 10.1.0.2 -> 10.2.0.2 UDP (with --bidir 1 from port1 to port0
too, 10.2.0.2 -> 10.1.0.2, to eth1's MAC for the router: `back_mac`),
with TSC-timed probes (lat_hwts 0: PTP-typed probes are Ethernet frames
a router does not forward). Each
DUT's console log goes to OUTDIR/DUT/rfc2544.log and tools/statplot.py
rfc2544 draws its figures there (rfc2544_*.png).

In QEMU the rates are QEMU's on a shared host (compare the tables' shape,
not the figures); trials are short (--trial-s) and the ceiling is
--max-ratep, not the link's 1 Gb/s, which a TCG guest cannot offer.
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import linux_guest  # noqa: E402
from qemurun import Qemu  # noqa: E402
from statplot import rfc2544_results  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROMPT = "linerate> "
TESTER_MAC = ("52:54:00:00:01:01", "52:54:00:00:01:02")
DUT_MAC = ("52:54:00:00:02:01", "52:54:00:00:02:02")
SRC, DST = "10.1.0.2", "10.2.0.2"       # the tester's port0, port1 (pktgen's defaults, said again)
DUTS = {"appliance": "fwd appliance (L2 cross-connect)", "linux": "Debian Linux guest (IPv4 router)"}


def up(q, ports):
    q.expect(r"apps:.*\n", 120)
    for i in range(ports):
        q.pos = 0
        q.expect(rf"port{i}: link up", 60)
    q.send("\r")
    q.expect(PROMPT, 30)


def dut_nics():
    return [f"e1000e:netdev=stream,mac={DUT_MAC[i]}" for i in (0, 1)]


def appliance():
    """The fwd appliance DUT, up; the tester's pktgen settings and
    rfc2544 arguments for it (each port sends to the other's MAC)."""
    q = Qemu(boot="kernel", mem="256M", nics=dut_nics(), append="app=fwd promisc=1 stats=0")
    up(q, 2)
    return q, [], "back_mac=off"


def linux():
    """The Debian Linux router DUT, up; the tester's pktgen settings and
    rfc2544 arguments for it: port0 sends to eth0's MAC, port1 (learning
    frames, bidir's way back) to eth1's with the addresses swapped."""
    kernel, initrd = linux_guest.build()
    q = Qemu(boot="kernel", kernel=kernel, mem="256M", nics=dut_nics(), extra=("-initrd", initrd),
             append=linux_guest.ROLES["router"].format(ip0="10.1.0.1/24", ip1="10.2.0.1/24",
                                                       neigh0=f"{SRC}@{TESTER_MAC[0]}",
                                                       neigh1=f"{DST}@{TESTER_MAC[1]}"))
    q.expect("linux-guest: ready", 300)
    for i in (0, 1):
        q.pos = 0
        q.expect(f"linux-guest: eth{i} {DUT_MAC[i]}", 5)
    return q, [f"pktgen set dst_mac {DUT_MAC[0]}"], f"back_mac={DUT_MAC[1]}"


def run(dut, a, outdir):
    """Run the trials against dut; its console text from the tester."""
    os.makedirs(outdir, exist_ok=True)
    log_path = os.path.join(outdir, "rfc2544.log")
    q, settings, back = appliance() if dut == "appliance" else linux()
    with q as d, open(log_path, "wb") as log:
        nics = [f"e1000e:netdev=stream,connect={d.nic_sock(i)},mac={TESTER_MAC[i]}" for i in (0, 1)]
        with Qemu(log=log, boot="kernel", mem="256M", nics=nics, append="app=pktgen stats=0") as gen:
            up(gen, 2)
            for line in settings + [f"pktgen set src_min {SRC}", f"pktgen set src_max {SRC}",
                                    f"pktgen set dst {DST}", "pktgen set lat_hwts 0"]:
                out = gen.shell(line)
                if "pktgen set:" in out:
                    sys.exit(f"rfc2544: {line}: {out}")
            for line in (f"pktgen rfc2544 set tx=port0 rx=port1 sizes={a.sizes} trial_s={a.trial_s}",
                         f"pktgen rfc2544 set max_ratep={a.max_ratep} resolution={a.resolution} format=json",
                         "pktgen rfc2544 set rest_ms=500 drain_ms=1000 lat_trials=2 b2b_trials=3",
                         f"pktgen rfc2544 set bidir={a.bidir} {back}"):
                out = gen.shell(line)
                if "arguments kept" not in out:
                    sys.exit(f"rfc2544: {line}: {out}")
            out = gen.shell(f"pktgen rfc2544 {a.tests}")
            if "pktgen rfc2544:" in out or "pktgen:" in out:
                sys.exit(f"rfc2544: {out}")
            gen.expect(r'\{"rfc2544":"done"[^\n]*\}', 7200)
            text = gen.text()
    subprocess.run([sys.executable, os.path.join(ROOT, "tools", "statplot.py"), "rfc2544", log_path,
                    "--outdir", outdir], check=True)
    return text


def side_by_side(results):
    """The tables of every DUT in results ({dut: rfc2544_results}), one
    column group per DUT, as lines."""
    duts = list(results)
    keys = []
    for res in results.values():
        for o in res.get("throughput", []) + res.get("latency", []) + res.get("loss", []) + res.get("b2b", []):
            if o["size"] not in keys:
                keys.append(o["size"])
    by = {d: {kind: {(o["size"], o.get("load_pct")): o for o in rows} for kind, rows in results[d].items()}
          for d in duts}

    def table(title, kind, cols, load=None):
        if not any(kind in results[d] for d in duts):
            return []
        w = max(12 * len(cols), max(len(d) for d in duts) + 2)
        lines = [title, "  frame B" + "".join(f"  {d:>{w}}" for d in duts),
                 "         " + "".join("  " + "".join(f"{c:>12}" for c, _ in cols).rjust(w) for _ in duts)]
        for size in keys:
            cells = []
            for d in duts:
                o = by[d].get(kind, {}).get((size, load))
                cells.append("".join(f"{f(o) if o else '-':>12}" for _, f in cols).rjust(w))
            lines.append(f"  {str(size):>7}" + "".join("  " + c for c in cells))
        return lines + [""]
    out = table("throughput (26.1): frames/s with zero loss", "throughput",
                [("fps", lambda o: o["pps"]), ("% ceiling", lambda o: f"{o['pct']:.2f}")])
    out += table("latency (26.2) at the throughput rate, us", "latency",
                 [("min", lambda o: f"{o['min_ns'] / 1000:.1f}"), ("mean", lambda o: f"{o['mean_ns'] / 1000:.1f}"),
                  ("p99", lambda o: f"{o['p99_ns'] / 1000:.1f}"), ("max", lambda o: f"{o['max_ns'] / 1000:.1f}")])
    loads = sorted({o["load_pct"] for d in duts for o in results[d].get("loss", [])}, reverse=True)
    for load in loads:
        out += table(f"frame loss (26.3) at {load} % of the ceiling, %", "loss",
                     [("offered fps", lambda o: o["offered_pps"]), ("loss %", lambda o: f"{o['loss_pct']:.3f}")],
                     load)
    out += table("back-to-back (26.4): frames per burst without loss", "b2b",
                 [("mean", lambda o: o["mean_frames"]), ("min", lambda o: o["min_frames"]),
                  ("max", lambda o: o["max_frames"])])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dut", default="appliance,linux",
                    help="the DUTs, in turn: appliance, linux or both comma-separated [appliance,linux]")
    ap.add_argument("--sizes", default="64,512,1518,imix", help="frame sizes with FCS, or imix [64,512,1518,imix]")
    ap.add_argument("--trial-s", default="1", help="trial duration, s [1; RFC 2544: 60]")
    ap.add_argument("--max-ratep", default="20k", help="the search's ceiling, frames/s [20k]")
    ap.add_argument("--resolution", default="5", help="search resolution, %% of the ceiling [5]")
    ap.add_argument("--tests", default="all", help="throughput|latency|loss|b2b|all [all]")
    ap.add_argument("--bidir", type=int, choices=(0, 1), default=0,
                    help="1: both ways at once (RFC 2544 14), counts summed [0]")
    ap.add_argument("--outdir", default=os.path.join(ROOT, "build", "rfc2544"))
    a = ap.parse_args()
    duts = a.dut.split(",")
    bad = [d for d in duts if d not in DUTS]
    if bad or not duts or len(set(duts)) != len(duts):
        ap.error(f"--dut {a.dut}: accepted: appliance, linux, or both comma-separated (each once)")
    results = {}
    for dut in duts:
        text = run(dut, a, os.path.join(a.outdir, dut))
        print(f"DUT {dut}: {DUTS[dut]}, e1000e, -netdev stream pairs; tester: pktgen appliance")
        at = text.find("rfc2544: port0 -> port1")
        print(text[at:].replace("\r", "") if at >= 0 else text[-3000:])
        results[dut] = rfc2544_results(text.replace("\r", "").splitlines())
    print(f"RFC 2544 side by side, {'both ways, ' if a.bidir else ''}{a.trial_s} s trials (RFC 2544: 60 s), ceiling {a.max_ratep} frames/s, "
          f"in QEMU (TCG) on a shared host: " + ", ".join(f"{d} = {DUTS[d]}" for d in duts))
    print("\n".join(side_by_side(results)))


if __name__ == "__main__":
    main()
