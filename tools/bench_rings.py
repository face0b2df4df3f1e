#!/usr/bin/python3
"""Instructions per frame of the ixgbe (82599) and igb RX and TX bursts on
the register model's rings (make bench-rings): QEMU has no 82599, so its
fast path is counted on the host under valgrind's callgrind, which counts
every instruction inside e1000x_rx_burst_* and e1000x_tx_burst_*
(tests/regmodel/bench_rings.c: 2,000 bursts of 32 frames of 60 bytes).
The model's register writes inside them (model_wr32) are subtracted and
each counted as one store. With BIN_VIRTIO, virtio-net's split rings the
same way (tests/regmodel/bench_rings_virtio.c: vnet_rx_burst, and
vnet_tx_burst with the sent buffers' reclaim inside it; a notification
is a plain store there). Prints a table; never fails on a figure.
Usage: bench_rings.py BIN_IXGBE BIN_IGB [BIN_VIRTIO]"""
import re
import subprocess
import sys
import tempfile

FRAMES = 2000 * 32


def inclusive(out, fn):
    """Ir inclusive of the functions matching fn, and model_wr32's calls and Ir."""
    ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", out], capture_output=True,
                         text=True, check=True).stdout
    ir = wr = 0
    for line in ann.splitlines():
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+\S+:(\S+) \[", line)
        if not m:
            continue
        n = int(m.group(1).replace(",", ""))
        if re.fullmatch(fn, m.group(2)):
            ir += n
        elif m.group(2) == "model_wr32":
            wr += n
    return ir, wr


def count(binary, fn, writes=2000):
    with tempfile.NamedTemporaryFile(suffix=".cg") as f:
        subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + f.name,
                        "--toggle-collect=" + fn, binary], capture_output=True, check=True)
        ir, wr = inclusive(f.name, fn.replace("*", ".*"))
    # writes: one tail write per burst, each counted as one store
    return (ir - wr + writes) / FRAMES


def main():
    if len(sys.argv) == 2 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    print(f"{'path':<22}{'RX instr/frame':>16}{'TX instr/frame':>16}")
    for name, binary in (("ixgbe (82599)", sys.argv[1]), ("igb (e1000x ext)", sys.argv[2])):
        rx = count(binary, "e1000x_rx_burst_*")
        tx = count(binary, "e1000x_tx_burst_*")
        print(f"{name:<22}{rx:>16.1f}{tx:>16.1f}")
    if len(sys.argv) == 4:
        rx = count(sys.argv[3], "vnet_rx_burst", 0)
        tx = count(sys.argv[3], "vnet_tx_burst", 0)
        print(f"{'virtio-net (split)':<22}{rx:>16.1f}{tx:>16.1f}")


main()
