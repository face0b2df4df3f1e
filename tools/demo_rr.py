#!/usr/bin/python3
"""`make run APP=rr`: boot linerate in QEMU as the request-response server
(app=rr ip0=10.3.0.1/24) on a port (e1000e, or --nic) wired to a tap device in a
network namespace this script makes (and removes), drive it from there with
build/rrclient (parallel TCP sessions, then UDP) for a bounded time, and
show the appliance's statistics, its rr counters and the client's figures.
Needs root (ip netns, tap). Everything stops by itself.

    tools/demo_rr.py [--seconds 10] [--sessions 32] [--req 1] [--rsp 1] [--nic e1000e] [--append 'poll=napi']
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from netns import names, remove, tap_add, wire  # noqa: E402
from qemurun import BUILD, Qemu, merge_knobs  # noqa: E402

NS, TAP = names("demo")
GUEST, PEER = "10.3.0.1", "10.3.0.2"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=int, default=10, help="seconds of TCP traffic (default 10; UDP gets 2 more)")
    ap.add_argument("--sessions", type=int, default=32, help="parallel sessions (default 32)")
    ap.add_argument("--req", type=int, default=1, help="request bytes (default 1)")
    ap.add_argument("--rsp", type=int, default=1, help="response bytes (default 1)")
    ap.add_argument("--nic", default="e1000e", choices=("e1000", "e1000e", "igb", "virtio-net-pci"))
    ap.add_argument("--append", default="", help="more kernel knobs, e.g. 'poll=napi'; each replaces the demo's own")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("make run APP=rr needs root (a network namespace and a tap device)")
    knobs = merge_knobs(f"app=rr ip0={GUEST}/24 req={a.req} rsp={a.rsp} stats=5", a.append)
    print(f"linerate demo: request-response server on one {a.nic} port ({knobs}); {a.sessions} TCP "
          f"sessions from {PEER} (network namespace {NS}) for {a.seconds} s, then UDP for 2 s\n", flush=True)
    tap_add(TAP)
    rc = 1
    try:
        bus = ",bus=rp" if a.nic == "igb" else ""
        with Qemu(boot="kernel", mem="256M", nics=[f"{a.nic}:netdev=tap,ifname={TAP}{bus}"], append=knobs,
                  log=sys.stdout.buffer) as q:
            q.expect("rr: lwIP on", 60)
            q.expect("linerate> ", 30)
            wire(NS, TAP, f"{PEER}/24")
            with q.pumping():   # keep the console flowing to the terminal
                out = []
                for proto, secs in (("tcp", a.seconds), ("udp", 2)):
                    cmd = [os.path.join(BUILD, "rrclient"), "--host", GUEST, "--proto", proto,
                           "--sessions", str(a.sessions), "--req", str(a.req), "--rsp", str(a.rsp),
                           "--duration", str(secs), "--max-time", str(secs + 30)]
                    print("\n$ " + " ".join(cmd), flush=True)
                    r = subprocess.run(["ip", "netns", "exec", NS] + cmd, stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT, text=True, timeout=secs + 60)
                    out.append(r.stdout)
                    rc = r.returncode
            q.send("rr\r")
            q.expect(r"rr pools: .*\r\n", 10)
            print("\n--- request-response client (host side) ---")
            print("".join(out))
            print("linerate demo: done. For the shell: tools/qemurun.py --interactive "
                  f"--nic {a.nic}{bus.replace(',', ':')} --append '{knobs}' (no peer wired)")
    finally:
        remove(NS, TAP)
    return rc


if __name__ == "__main__":
    sys.exit(main())
