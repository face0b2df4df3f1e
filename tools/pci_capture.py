#!/usr/bin/python3
"""Capture PCI config-space images from QEMU for the unit tests.

Boots linerate on q35 with an e1000e on the root bus, an igb behind a
pcie-root-port and an e1000 behind a pci-bridge; reads each function's 4 KiB
of config space through the ECAM window with the monitor's `xp` and its BAR
sizes from QMP query-pci; writes them as C (non-zero dwords only) to
stdout. Regenerate tests/unit/pci_images.h with:

Usage: tools/pci_capture.py > tests/unit/pci_images.h
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qemurun import Qemu  # noqa: E402
from usage import help_exit  # noqa: E402

ECAM = 0xb0000000
NICS = ["e1000e", "igb:bus=rp", "e1000:bus=bridge"]
# (name in C, bus, dev, fn)
FUNCS = [("e1000e", 0, 2, 0), ("pcie_root_port", 0, 3, 0), ("igb", 1, 0, 0),
         ("pci_bridge", 0, 4, 0), ("e1000", 2, 1, 0), ("ich9_sata", 0, 0x1f, 2)]


def flat(devs):
    for d in devs:
        yield d
        yield from flat(d.get("pci_bridge", {}).get("devices", []))


def config(q, bus, dev, fn):
    addr = ECAM + (bus << 20 | dev << 15 | fn << 12)
    out = q.qmp_cmd("human-monitor-command", **{"command-line": f"xp /1024wx {addr:#x}"})
    words = []
    for line in out.splitlines():
        words += [int(w, 16) for w in re.findall(r"0x([0-9a-f]{8})", line.split(":", 1)[1])]
    assert len(words) == 1024, len(words)
    return words


def main():
    help_exit(__doc__)
    version = subprocess.run(["qemu-system-x86_64", "--version"], capture_output=True,
                             text=True).stdout.splitlines()[0]
    with Qemu(boot="kernel", machine="q35", nics=NICS) as q:
        q.expect("linerate> ", 60)
        devs = {(d["bus"], d["slot"], d["function"]): d
                for b in q.qmp_cmd("query-pci") for d in flat(b["devices"])}
        images = [(name, config(q, b, d, f), devs[(b, d, f)]) for name, b, d, f in FUNCS]
    print("/*\n * Config-space images captured by tools/pci_capture.py from")
    print(" * %s," % version)
    print(" * q35 with an e1000e on the root bus, an igb behind a pcie-root-port and")
    print(" * an e1000 behind a pci-bridge: the non-zero dwords of each function, and")
    print(" * the BAR sizes QMP query-pci reports (bar_size[i], bytes).\n */")
    print("#include <stdint.h>\n")
    print("struct pci_image {\n\tconst char *name;\n\tuint64_t bar_size[6];")
    print("\tstruct { uint16_t off; uint32_t v; } dw[1024];\n};\n")
    print("static const struct pci_image pci_images[] = {")
    for name, words, dev in images:
        sizes = [0] * 6
        for r in dev["regions"]:
            if r["bar"] < 6:
                sizes[r["bar"]] = r["size"]
        print("\t{ \"%s\", { %s }, {" % (name, ", ".join("%#x" % s for s in sizes)))
        nz = [(i * 4, w) for i, w in enumerate(words) if w]
        for i in range(0, len(nz), 4):
            print("\t\t" + " ".join("{ %#05x, %#010x }," % p for p in nz[i:i + 4]))
        print("\t\t{ 0xffff, 0 } } },")
    print("};")


if __name__ == "__main__":
    main()
