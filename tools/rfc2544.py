#!/usr/bin/python3
"""make rfc2544: RFC 2544's tables of a device under test in QEMU, from a
pktgen appliance. Two guests: the DUT, a fwd appliance cross-connecting
its two e1000e ports (`app=fwd promisc=1`), and the tester, a pktgen
appliance whose two ports are wired to the DUT's by -netdev stream pairs.
The tester runs `pktgen rfc2544 all` (throughput search, latency at the
throughput rate, frame loss steps, back-to-back bursts), its console goes
to OUTDIR/rfc2544.log, the tables are printed, and tools/statplot.py
rfc2544 draws the figures (OUTDIR/rfc2544_*.png).

In QEMU the rates are QEMU's on a shared host (compare the tables' shape,
not the figures); trials are short (--trial-s) and the ceiling is
--max-ratep, not the link's 1 Gb/s, which a TCG guest cannot offer.
A Debian Linux guest as the DUT (tools/linux_guest.py) is not wired in yet.
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qemurun import Qemu  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROMPT = "linerate> "


def up(q, ports):
    q.expect(r"apps:.*\n", 120)
    for i in range(ports):
        q.pos = 0
        q.expect(rf"port{i}: link up", 60)
    q.send("\r")
    q.expect(PROMPT, 30)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="64,512,1518,imix", help="frame sizes with FCS, or imix [64,512,1518,imix]")
    ap.add_argument("--trial-s", default="1", help="trial duration, s [1; RFC 2544: 60]")
    ap.add_argument("--max-ratep", default="20k", help="the search's ceiling, frames/s [20k]")
    ap.add_argument("--resolution", default="5", help="search resolution, %% of the ceiling [5]")
    ap.add_argument("--tests", default="all", help="throughput|latency|loss|b2b|all [all]")
    ap.add_argument("--outdir", default=os.path.join(ROOT, "build", "rfc2544"))
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    log_path = os.path.join(a.outdir, "rfc2544.log")
    with open(log_path, "wb") as log, \
            Qemu(boot="kernel", mem="256M", nics=["e1000e:netdev=stream"] * 2,
                 append="app=fwd promisc=1 stats=0") as dut:
        up(dut, 2)
        nics = [f"e1000e:netdev=stream,connect={dut.nic_sock(i)},mac=52:54:00:00:01:0{i + 1}" for i in (0, 1)]
        with Qemu(log=log, boot="kernel", mem="256M", nics=nics, append="app=pktgen stats=0") as gen:
            up(gen, 2)
            for line in (f"pktgen rfc2544 set tx=port0 rx=port1 sizes={a.sizes} trial_s={a.trial_s}",
                         f"pktgen rfc2544 set max_ratep={a.max_ratep} resolution={a.resolution} format=json",
                         "pktgen rfc2544 set rest_ms=500 drain_ms=1000 lat_trials=2 b2b_trials=3"):
                out = gen.shell(line)
                if "arguments kept" not in out:
                    sys.exit(f"rfc2544: {line}: {out}")
            out = gen.shell(f"pktgen rfc2544 {a.tests}")
            if "pktgen rfc2544:" in out or "pktgen:" in out:
                sys.exit(f"rfc2544: {out}")
            gen.expect(r'\{"rfc2544":"done"[^\n]*\}', 7200)
            text = gen.text()
    print("DUT: fwd appliance (L2 cross-connect, e1000e, -netdev stream pairs); tester: pktgen appliance")
    at = text.find("rfc2544: port0 -> port1")
    print(text[at:].replace("\r", "") if at >= 0 else text[-3000:])
    subprocess.run([sys.executable, os.path.join(ROOT, "tools", "statplot.py"), "rfc2544", log_path,
                    "--outdir", a.outdir], check=True)


if __name__ == "__main__":
    main()
