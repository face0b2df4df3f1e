#!/usr/bin/python3
"""Boot-time and size figures (make bench): for each boot path, QEMU start to
'ready' on the console (wall clock) and the kernel's own entry-to-ready,
median of N runs; image sizes. Prints figures; never passes or fails."""
import os
import re
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qemurun import BUILD, Qemu  # noqa: E402

PATHS = [("kernel", "q35"), ("kernel", "pc"), ("iso-bios", "pc"), ("iso-uefi", "q35"), ("efi", "q35")]


def one(boot, machine):
    with Qemu(boot=boot, machine=machine, mem="256M") as q:
        if boot.startswith("iso"):
            q.expect("linerate: serial shell", 90)
            q.send("\r")
        m = q.expect(r"linerate: ready in (\d+) us", 90)
        return time.monotonic() - q.started, int(m.group(1))


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    print("image sizes (bytes):")
    for f in ("linerate.elf", "linerate.iso", "BOOTX64.EFI"):
        print(f"  {f:14} {os.path.getsize(os.path.join(BUILD, f)):>10,}")
    print(f"\nboot time, median of {runs} (GRUB paths: menu skipped at once; wall includes firmware):")
    print(f"  {'path':10} {'machine':8} {'QEMU start->ready':>18} {'kernel entry->ready':>20}")
    for boot, machine in PATHS:
        r = [one(boot, machine) for _ in range(runs)]
        wall = statistics.median(x[0] for x in r)
        kern = statistics.median(x[1] for x in r)
        print(f"  {boot:10} {machine:8} {wall * 1000:>15.0f} ms {kern:>17,.0f} us")


if __name__ == "__main__":
    main()
