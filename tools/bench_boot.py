#!/usr/bin/python3
"""Boot-time and size figures (make bench): for each boot path (q35 also with
two e1000e, the router's usual ports), QEMU start to 'ready' on the console (wall
clock) and the kernel's own entry-to-ready, median and min of N runs; image
sizes. Prints figures; never passes or fails.
Usage: bench_boot.py [N [path ...]] (N runs, default 5; paths below)"""
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qemurun import BUILD, Qemu  # noqa: E402
from usage import help_exit  # noqa: E402

PATHS = [("kernel", "q35", 0), ("kernel", "q35", 2), ("kernel", "pc", 0), ("iso-bios", "pc", 0),
         ("iso-uefi", "q35", 0), ("efi", "q35", 0)]


def one(boot, machine, nics):
    with Qemu(boot=boot, machine=machine, mem="256M", nics=["e1000e:netdev=stream"] * nics) as q:
        if boot.startswith("iso"):
            q.expect("linerate: serial shell", 90)
            q.send("\r")
        m = q.expect(r"linerate: ready in (\d+) us", 90)
        return time.monotonic() - q.started, int(m.group(1))


def main():
    help_exit(__doc__)
    if len(sys.argv) > 1 and not sys.argv[1].isdigit():
        sys.exit(__doc__ + "\npaths: " + " ".join(sorted({p[0] for p in PATHS})))
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    only = sys.argv[2:]	# boot paths to run (kernel, iso-bios, ...), default all
    print("image sizes (bytes):")
    for f in ("linerate.elf", "linerate.iso", "BOOTX64.EFI"):
        print(f"  {f:14} {os.path.getsize(os.path.join(BUILD, f)):>10,}")
    print(f"\nboot time, median of {runs} (GRUB paths: menu skipped at once, after its 4 s of speed prompts;"
          " wall includes firmware;"
          " min: the run least slowed by the host's other work):")
    print(f"  {'path':10} {'machine':8} {'NICs':9} {'QEMU start->ready':>18} {'kernel entry->ready':>20} "
          f"{'(min)':>10}")
    for boot, machine, nics in PATHS:
        if only and boot not in only:
            continue
        r = [one(boot, machine, nics) for _ in range(runs)]
        wall = statistics.median(x[0] for x in r)
        kern = statistics.median(x[1] for x in r)
        print(f"  {boot:10} {machine:8} {f'{nics}x e1000e' if nics else 'none':9} {wall * 1000:>15.0f} ms "
              f"{kern:>17,.0f} us {min(x[1] for x in r):>7,} us")


if __name__ == "__main__":
    main()
