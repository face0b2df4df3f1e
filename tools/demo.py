#!/usr/bin/python3
"""`make run`: boot linerate in QEMU as an IPv4 router between two ports
(e1000e, or --nic; app=fwd ip0=10.1.0.1/24 ip1=10.2.0.1/24), push UDP traffic from
10.1.0.2 to 10.2.0.2 through it with build/trafgen at a modest rate for a
bounded time (trafgen answers the router's ARP for 10.2.0.2, resolved by
five frames before the measured run), and show the appliance's console
statistics as they come and the traffic tool's result.
Everything stops by itself.

    tools/demo.py [--rate 5kpps] [--seconds 10] [--size 64] [--nic e1000e] [--append 'poll=napi']
"""
import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qemurun import BUILD, Qemu, merge_knobs  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rate", default="5kpps", help="trafgen --rate (default 5kpps)")
    ap.add_argument("--seconds", type=int, default=10, help="seconds of traffic (default 10)")
    ap.add_argument("--size", type=int, default=64, help="frame size with FCS (default 64)")
    ap.add_argument("--nic", default="e1000e", choices=("e1000", "e1000e", "igb", "virtio-net-pci"))
    ap.add_argument("--append", default="", help="more kernel knobs, e.g. 'poll=napi'; each replaces the demo's own")
    a = ap.parse_args()
    bus = ",bus=rp" if a.nic == "igb" else ""
    nics = [f"{a.nic}:netdev=stream{bus}"] * 2
    knobs = merge_knobs("app=fwd ip0=10.1.0.1/24 ip1=10.2.0.1/24 stats=2", a.append)
    print(f"linerate demo: two {a.nic} ports routing 10.1.0.0/24 <-> 10.2.0.0/24 ({knobs}); "
          f"{a.rate} of {a.size}-byte UDP frames for {a.seconds} s from 10.1.0.2 (host, port0) "
          "to 10.2.0.2 (host, port1)\n", flush=True)
    with Qemu(boot="kernel", mem="256M", nics=nics, append=knobs, log=sys.stdout.buffer) as q:
        mac0 = q.expect(r"port0: \S+ .*MAC ([0-9a-f:]{17})", 60).group(1).decode()
        q.expect(r"port1: \S+ .*MAC ", 60)
        q.expect("linerate> ", 30)
        if "port1: link up" not in q.text():
            q.expect("port1: link up", 30)
        time.sleep(1.2)
        with q.pumping():   # keep the console flowing to the terminal
            base = [os.path.join(BUILD, "trafgen"), "both", "--port", "stream:" + q.nic_sock(0),
                    "--port", "stream:" + q.nic_sock(1), "--size", str(a.size),
                    "--src-ip", "10.1.0.2", "--dst-ip", "10.2.0.2", "--dst-mac", mac0,
                    "--rx-mac", "02:00:00:00:00:02", "--arp-reply"]
            # A few frames first, so the router has resolved 10.2.0.2 (ARP)
            # before the measured run: at 5 kpps the frames that arrive while
            # it asks are more than its ARP queue holds (arp_queue_full).
            subprocess.run(base + ["--rate", "50pps", "--count", "5", "--max-time", "20"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            cmd = base + ["--rate", a.rate, "--duration", str(a.seconds), "--max-time", str(a.seconds + 20)]
            print("\n$ " + " ".join(cmd), flush=True)
            res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            time.sleep(2.5)   # one more statistics period after the traffic
        q.send("fwd\r")
        q.expect(r"fwd port1: .*\r\n", 10)
        print("\n--- traffic tool (host side) ---")
        print(res.stdout)
        print("linerate demo: done. For the shell: tools/qemurun.py --interactive "
              f"--nic {a.nic}{bus.replace(',', ':')} --nic {a.nic}{bus.replace(',', ':')} --append '{knobs}'")
        return res.returncode


if __name__ == "__main__":
    sys.exit(main())
