"""PCI tests: what lspci prints must equal what QEMU itself reports for the
same command line (QMP query-pci for IDs, classes, BARs and bridges; config
space read through the monitor, ECAM with `xp` or ports 0xcf8/0xcfc with
`o`/`i`, for the capability lists), on q35 (ECAM) and pc (ports only), with
NICs on the root bus, behind pcie-root-ports, pci-bridges and a
pcie-pci-bridge; and interrupts from real devices (irqtest=1) in each
IntMode, with exact counts."""
import os
import re
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from qemurun import Qemu  # noqa: E402

PROMPT = "linerate> "
# Capability names lspci prints, by ID (PCI Code and ID Assignment 1.11).
STD_CAPS = {0x01: "Power Management", 0x04: "Slot ID", 0x05: "MSI", 0x09: "Vendor Specific Information",
            0x0c: "PCI Standard Hot-Plug Controller", 0x0d: "Subsystem", 0x10: "Express",
            0x11: "MSI-X", 0x12: "SATA HBA"}
EXT_CAPS = {0x01: "Advanced Error Reporting", 0x03: "Device Serial Number",
            0x0d: "Access Control Services", 0x0e: "Alternative Routing-ID Interpretation (ARI)",
            0x10: "Single Root I/O Virtualization (SR-IOV)"}


def shell(q, line):
    """What the command printed, with LF line ends."""
    return q.shell(line).replace("\r\n", "\n")


def parse_lspci(text):
    """{bdf: {...}} from lspci output."""
    devs, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"^([0-9a-f]{2}:[0-9a-f]{2}\.\d) (.+) \[([0-9a-f]{4})\]: (.+) "
                     r"\[([0-9a-f]{4}):([0-9a-f]{4})\] \(rev ([0-9a-f]{2})\)$", line)
        if m:
            cur = devs[m.group(1)] = {"class": int(m.group(3), 16), "name": m.group(4),
                                      "id": (int(m.group(5), 16), int(m.group(6), 16)),
                                      "rev": int(m.group(7), 16), "bars": {}, "caps": [],
                                      "lines": [line]}
            continue
        if cur is None or not line.startswith("\t"):
            cur = None
            continue
        cur["lines"].append(line)
        m = re.match(r"\tRegion (\d): (?:I/O ports at ([0-9a-f]+)|Memory at ([0-9a-f]+) "
                     r"\((32|64)-bit, (non-)?prefetchable\))(?: \[disabled\])? \[size=(\w+)\]$", line)
        if m:
            size = int(re.match(r"\d+", m.group(6)).group(0)) << \
                {"": 0, "K": 10, "M": 20, "G": 30}[m.group(6).lstrip("0123456789")]
            if m.group(2):
                cur["bars"][int(m.group(1))] = ("io", int(m.group(2), 16), size, False)
            else:
                cur["bars"][int(m.group(1))] = ("mem" + m.group(4), int(m.group(3), 16), size,
                                               not m.group(5))
            continue
        m = re.match(r"\tCapabilities: \[([0-9a-f]+)(?: v\d+)?\] (.*)$", line)
        if m:
            cur["caps"].append((int(m.group(1), 16), m.group(2)))
            continue
        m = re.match(r"\tBus: primary=([0-9a-f]{2}), secondary=([0-9a-f]{2}), subordinate=([0-9a-f]{2})", line)
        if m:
            cur["buses"] = tuple(int(x, 16) for x in m.groups())
        m = re.match(r"\tMemory behind bridge: ([0-9a-f]+)-([0-9a-f]+)$", line)
        if m:
            cur["mem_window"] = (int(m.group(1), 16), int(m.group(2), 16))
        m = re.match(r"\tInterrupt: pin ([A-D]) routed to IRQ (\d+)$", line)
        if m:
            cur["intx"] = ("ABCD".index(m.group(1)) + 1, int(m.group(2)))
    return devs


def hmp(q, cmd):
    return q.qmp_cmd("human-monitor-command", **{"command-line": cmd})


def config_space(q, machine, bus, dev, fn):
    """QEMU's view of a function's config space: 4096 bytes through ECAM on
    q35, 256 through ports 0xcf8/0xcfc on pc (as little-endian dwords)."""
    if machine == "q35":
        out = hmp(q, f"xp /1024wx {0xb0000000 + (bus << 20 | dev << 15 | fn << 12):#x}")
        return [int(w, 16) for line in out.splitlines() for w in re.findall(r"0x([0-9a-f]{8})",
                                                                            line.split(":", 1)[1])]
    words = []
    for off in range(0, 256, 4):
        hmp(q, f"o /w 0xcf8 {0x80000000 | bus << 16 | dev << 11 | fn << 8 | off:#x}")
        words.append(int(re.search(r"= 0x([0-9a-f]+)", hmp(q, "i /w 0xcfc")).group(1), 16))
    return words


def cap_walk(cfg):
    """[(offset, name)] from raw config dwords, as PCI 3.0 6.7 and PCIe 4.0 7.6 say."""
    def b(off):
        return cfg[off // 4] >> (8 * (off % 4)) & 0xff
    caps, seen = [], set()
    if cfg[1] >> 16 & 0x10:
        ptr = b(0x34) & 0xfc
        while ptr and ptr not in seen:
            seen.add(ptr)
            caps.append((ptr, b(ptr)))
            ptr = b(ptr + 1) & 0xfc
    out = [(off, STD_CAPS[cid]) for off, cid in caps]
    if len(cfg) > 64 and any(cid == 0x10 for _, cid in caps) and cfg[0x40] not in (0, 0xffffffff):
        ptr = 0x100
        while ptr and ptr not in seen:
            seen.add(ptr)
            h = cfg[ptr // 4]
            out.append((ptr, EXT_CAPS[h & 0xffff]))
            ptr = h >> 20 & 0xffc
    return out


def cap_details(cfg, off, cid):
    """The lspci detail QEMU's config space implies, for MSI and MSI-X."""
    ctrl = cfg[off // 4] >> 16
    if cid == "MSI":
        return (f"MSI: Enable{'+-'[not ctrl & 1]} Count={1 << (ctrl >> 4 & 7)}/{1 << (ctrl >> 1 & 7)} "
                f"Maskable{'+-'[not ctrl & 0x100]} 64bit{'+-'[not ctrl & 0x80]}")
    table, pba = cfg[off // 4 + 1], cfg[off // 4 + 2]
    return (f"MSI-X: Enable{'+-'[not ctrl & 0x8000]} Count={(ctrl & 0x7ff) + 1} "
            f"Masked{'+-'[not ctrl & 0x4000]} Vector table: BAR={table & 7} offset={table & ~7:08x} "
            f"PBA: BAR={pba & 7} offset={pba & ~7:08x}")


def qemu_devices(q):
    """Functions QEMU exposes (query-pci flattened; its unrealized SR-IOV
    VF placeholders read as ffff:ffff and are not there for the guest)."""
    def flat(devs):
        for d in devs:
            yield d
            yield from flat(d.get("pci_bridge", {}).get("devices", []))
    return {f"{d['bus']:02x}:{d['slot']:02x}.{d['function']}": d
            for b in q.qmp_cmd("query-pci") for d in flat(b["devices"]) if d["id"]["vendor"] != 0xffff}


def compare(q, machine, lspci):
    """Assert lspci equals QEMU's own view, function by function."""
    theirs = qemu_devices(q)
    assert sorted(lspci) == sorted(theirs)
    for bdf, d in theirs.items():
        mine = lspci[bdf]
        assert mine["id"] == (d["id"]["vendor"], d["id"]["device"]), bdf
        assert mine["class"] == d["class_info"]["class"], bdf
        bars = {}
        for r in d["regions"]:
            if r["bar"] == 6:	# expansion ROM: not listed
                continue
            if r["type"] == "io":
                bars[r["bar"]] = ("io", r["address"], r["size"], False)
            else:
                bars[r["bar"]] = ("mem64" if r["mem_type_64"] else "mem32", r["address"], r["size"],
                                  r["prefetch"])
        assert mine["bars"] == bars, bdf
        if d["irq_pin"]:
            assert mine["intx"] == (d["irq_pin"], d["irq"]), bdf
        else:
            assert "intx" not in mine, bdf
        if "pci_bridge" in d:
            br = d["pci_bridge"]["bus"]
            assert mine["buses"] == (br["number"], br["secondary"], br["subordinate"]), bdf
            mr = br["memory_range"]
            if mr["base"] <= mr["limit"]:
                assert mine["mem_window"] == (mr["base"], mr["limit"]), bdf
        bus, dev, fn = int(bdf[:2], 16), int(bdf[3:5], 16), int(bdf[6])
        cfg = config_space(q, machine, bus, dev, fn)
        want = cap_walk(cfg)
        assert [off for off, _ in mine["caps"]] == [off for off, _ in want], bdf
        for (off, detail), (_, name) in zip(mine["caps"], want):
            if name in ("MSI", "MSI-X"):
                assert detail == cap_details(cfg, off, name), bdf
            else:
                assert detail.startswith(name), (bdf, detail, name)


def boot_lspci(q):
    """The boot report's list and the shell's lspci, parsed; checks they agree."""
    q.expect(PROMPT, 60)
    text = q.text().replace("\r\n", "\n")
    boot = text[text.index("pci: "):text.rindex(PROMPT)]
    shell_out = shell(q, "lspci")
    assert shell_out.splitlines()[0] == boot.splitlines()[0]
    mine, at_boot = parse_lspci(shell_out), parse_lspci(boot)
    for bdf in mine:	# drivers may have changed control bits and enabled MSI-X since
        assert (mine[bdf]["bars"], [o for o, _ in mine[bdf]["caps"]]) == \
            (at_boot[bdf]["bars"], [o for o, _ in at_boot[bdf]["caps"]])
    return shell_out, mine


Q35_NICS = ["e1000e", "igb:bus=rp", "e1000:bus=bridge", "e1000e:bus=rp-bridge", "igb:bus=rp", "e1000"]
PC_NICS = ["e1000e", "igb", "e1000:bus=bridge", "e1000"]


@pytest.mark.parametrize("machine,nics", [
    ("q35", ["e1000e"]), ("q35", ["igb:bus=rp"]), ("q35", ["e1000:bus=bridge"]),
    ("q35", Q35_NICS), ("pc", ["e1000"]), ("pc", PC_NICS),
])
def test_lspci_matches_qemu(machine, nics):
    with Qemu(boot="kernel", machine=machine, nics=nics) as q:
        out, mine = boot_lspci(q)
        access = "ECAM at 0xb0000000" if machine == "q35" else "ports 0xcf8/0xcfc (no MCFG)"
        assert re.match(rf"pci: {len(mine)} functions, config space through {re.escape(access)}\n", out)
        assert "pci: bridge" not in out	# firmware configured every bridge
        compare(q, machine, mine)
    models = {"e1000": 0x100e, "e1000e": 0x10d3, "igb": 0x10c9}
    found = sorted(d["id"][1] for d in mine.values() if d["id"][0] == 0x8086 and d["class"] == 0x0200)
    assert found == sorted(models[n.split(":")[0]] for n in nics)


def test_nested_bridges_and_bar_above_4g():
    """An e1000e behind pcie-root-port -> pcie-pci-bridge (two buses down),
    and a 2 GiB 64-bit prefetchable BAR that firmware places above 4 GiB."""
    extra = ["-object", "memory-backend-ram,id=hm,size=2G", "-device", "ivshmem-plain,memdev=hm"]
    with Qemu(boot="kernel", machine="q35", nics=["e1000e:bus=rp-bridge", "igb:bus=rp"], extra=extra) as q:
        _, mine = boot_lspci(q)
        compare(q, "q35", mine)
    ivshmem = [d for d in mine.values() if d["id"] == (0x1af4, 0x1110)][0]
    kind, addr, size, pref = ivshmem["bars"][2]
    assert (kind, size, pref) == ("mem64", 2 << 30, True) and addr >= 4 << 30
    e1000e = [bdf for bdf, d in mine.items() if d["id"] == (0x8086, 0x10d3)]
    assert len(e1000e) == 1 and int(e1000e[0][:2], 16) >= 2


IRQ_LINE = (r"irqtest: (\S+) 8086:([0-9a-f]{4}) IntMode=(\d) (INTx|MSI|MSI-X) vector (0x[0-9a-f]+) "
            r"\((\d) of (\d)\): (\d+) interrupt\(s\) in (\d+) us, (\d+) more in 40 ms, (\d+) on other vectors, "
            r"(\d+) on a wrong vector")


def run_irqtest(machine, nics, mode):
    with Qemu(boot="kernel", machine=machine, nics=nics, append=f"irqtest=1 IntMode={mode}") as q:
        q.expect(r"irqtest: \d+ device\(s\) tested, \d+ failed", 60)
        q.expect(PROMPT)
        text = q.text().replace("\r\n", "\n")
        irq = shell(q, "irq")
        lspci = parse_lspci(shell(q, "lspci"))
    return text, irq, lspci


@pytest.mark.parametrize("machine,nics", [
    ("q35", ["e1000e", "igb:bus=rp", "e1000:bus=bridge"]),
    ("pc", PC_NICS),
])
@pytest.mark.parametrize("mode", [2, 1, 0])
def test_irq_reaches_handler(machine, nics, mode):
    text, irq, lspci = run_irqtest(machine, nics, mode)
    n = len(nics)
    assert f"irqtest: {n} device(s) tested, 0 failed" in text
    results = {m.group(1): m for m in re.finditer(IRQ_LINE, text)}
    assert len(results) == n
    expect_mode = {
        "10d3": ["INTx", "MSI", "MSI-X"][mode],	# 82574L: MSI-X 5, MSI (no mask), INTx
        "10c9": ["INTx", "MSI", "MSI-X"][mode],	# 82576: MSI-X 10, MSI with mask, INTx
        "100e": "INTx",				# 82540EM: INTx only
    }
    vectors = []
    for bdf, m in results.items():
        dev = m.group(2)
        assert int(m.group(3)) == mode
        assert m.group(4) == expect_mode[dev], bdf
        # 82574L in MSI-X: three vectors, link causes on "Other" (IVAR), vector 2.
        nvec, k = (3, 2) if dev == "10d3" and mode == 2 else (1, 0)
        assert (int(m.group(6)), int(m.group(7))) == (k, nvec), bdf
        # Exactly one interrupt, on the handler's own vector. QEMU's 82574L
        # repeats an MSI-X message when its EITR window ends (16.8 ms here).
        late = 1 if dev == "10d3" and mode == 2 else 0
        # QEMU's 82574L in MSI mode at times sends the message twice within
        # the first wait when the host is loaded (seen in 4 of 24 boots with
        # three QEMUs on two cores); the second finds no cause (counted below).
        first = int(m.group(8))
        dup = first - 1 if dev == "10d3" and mode == 1 else 0
        assert dup in (0, 1), bdf
        assert [first - dup] + [int(x) for x in m.group(10, 11, 12)] == [1, late, 0, 0], bdf
        vectors.append((bdf, m.group(4), int(m.group(5), 16), lspci[bdf].get("intx")))
        if dev == "10d3" and mode == 1:	# MSI without per-vector masking
            assert f"irqtest: {bdf} masked: no per-vector mask in this mode" in text
        else:
            assert f"irqtest: {bdf} masked: 0 interrupt(s), pending 1; unmasked: 1 interrupt(s)" in text
        # Handler calls that found no cause: the repeated MSI-X message, or on
        # INTx the other devices' interrupts on the same line (two each).
        if m.group(4) == "INTx":
            sharing = [b for b, o in results.items() if b != bdf and o.group(4) == "INTx"
                       and lspci[b]["intx"][1] == lspci[bdf]["intx"][1]]
            idle = 2 * len(sharing)
        else:
            idle = late + dup
        assert f"irqtest: {bdf} released; {idle} handler call(s) found no cause" in text
    # INTx devices on one IRQ share its vector; every message vector is the
    # device's own.
    by_vector = {}
    for bdf, kind, vec, intx in vectors:
        by_vector.setdefault(vec, set()).add(("INTx", intx[1]) if kind == "INTx" else (kind, bdf))
    assert all(len(v) == 1 for v in by_vector.values()), by_vector
    assert all(0x30 <= vec < 0xf0 for _, _, vec, _ in vectors)
    assert re.search(r"^unhandled: 0$", irq, re.M)


def test_irq_lines_shared_on_q35():
    """Two NICs whose INTA# firmware routed to one IRQ share an I/O APIC
    line: both handlers run for each interrupt, each claims only its own."""
    text, irq, lspci = run_irqtest("q35", ["e1000e", "igb:bus=rp"], 0)
    assert lspci["00:02.0"]["intx"][1] == lspci["01:00.0"]["intx"][1]
    assert "irqtest: 00:02.0 released; 2 handler call(s) found no cause" in text
    assert "irqtest: 01:00.0 released; 2 handler call(s) found no cause" in text
    assert "irqtest: 2 device(s) tested, 0 failed" in text
    vec = re.findall(r"irqtest: \S+ 8086:\w+ IntMode=0 INTx vector (0x[0-9a-f]+)", text)
    assert len(vec) == 2 and vec[0] == vec[1]
    assert re.search(r"^unhandled: 0$", irq, re.M)


def test_no_irqtest_by_default():
    with Qemu(boot="kernel", machine="q35", nics=["e1000e"]) as q:
        q.expect(PROMPT, 60)
        assert "irqtest" not in q.text()
        assert re.search(r"^unhandled: 0$", shell(q, "irq"), re.M)
