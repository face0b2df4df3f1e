"""What a NIC passed through with vfio-pci meets, on emulated NICs (a
vfio-pci guest cannot run on this machine; docs/vfio.md "Passing a real NIC
through"): 6 GiB of guest RAM with dma_high=1, so descriptor rings and
packet buffers sit above 4 GiB; igb's 64-bit BAR3, which holds its MSI-X
table, placed above 4 GiB by the firmware; an e1000e behind a PCIe root
port and a PCIe-PCI bridge; an e1000 (32-bit DMA) behind a PCI bridge,
whose memory must stay below 4 GiB. Frames go igb -> e1000e and back with
interrupts (poll=napi, MSI-X), and out of the e1000 again, intact and
counted exactly."""
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
sys.path.insert(0, os.path.dirname(__file__))
from netio import StreamPort, frame  # noqa: E402
from qemurun import Qemu  # noqa: E402

PROMPT = "linerate> "
GIB4 = 4 << 30
PROBE = (r"(port\d): (\w+) .* at ([0-9a-f]{2}):[0-9a-f]{2}\.\d, MAC \S+, 1 queue\(s\), rxd \d+ txd \d+, "
         r"(\S+)\n\1: DMA: RX ring (0x[0-9a-f]+), buffers (0x[0-9a-f]+)")


def through(src, dst, frames):
    """Send frames into src in windows of 256 and read as many from dst."""
    back = []
    for i in range(0, len(frames), 256):
        t = src.send_background(frames[i:i + 256])
        back += dst.recv(len(frames[i:i + 256]), timeout=30)
        t.join(5)
    return back


def test_passthrough_conditions():
    nics = ["igb:netdev=stream", "e1000e:bus=rp-bridge,netdev=stream", "e1000:bus=bridge,netdev=stream"]
    with Qemu(boot="kernel", machine="q35", mem="6G", nics=nics,
              append="stats=0 dma_high=1 poll=napi app=fwd pairs=0-1,2-2") as q:
        for p in range(3):
            q.expect(rf"port{p}: link up", 90)
        q.send("\r")
        q.expect(PROMPT, 30)
        text = q.text().replace("\r\n", "\n")
        probes = {m[0]: m for m in re.findall(PROBE, text)}
        assert set(probes) == {"port0", "port1", "port2"}, text
        # DMA above 4 GiB for the 64-bit parts, below for the 82540EM
        for port, (_, drv, bus, mode, ring, bufs) in probes.items():
            high = int(ring, 16) >= GIB4 and int(bufs, 16) >= GIB4
            assert high == (drv != "e1000"), probes[port]
        assert probes["port2"][1] == "e1000" and int(probes["port2"][5], 16) + (1 << 20) < GIB4
        # igb in MSI-X mode, its table in BAR3 above 4 GiB; e1000e two buses down
        assert probes["port0"][3] == "MSI-X" and probes["port1"][3] == "MSI-X"
        assert int(probes["port1"][2], 16) >= 2
        lspci = q.shell("lspci")
        igb = lspci[lspci.index("[8086:10c9]"):]
        bar3 = re.search(r"Region 3: Memory at ([0-9a-f]+) \(64-bit", igb)
        assert bar3 and int(bar3.group(1), 16) >= GIB4, igb[:600]
        assert re.search(r"MSI-X: Enable\+ Count=\d+ \S+ Vector table: BAR=3", igb), igb[:1500]
        time.sleep(1.2)   # QEMU's e1000 holds RX for 1 s after RCTL is written
        ports = [StreamPort(q.nic_sock(i)) for i in range(3)]
        a = [frame(60 + (i % 1400), seq=i) for i in range(600)]
        b = [frame(1500 - (i % 1400), seq=10000 + i) for i in range(600)]
        c = [frame(64 + (i % 900), seq=20000 + i) for i in range(300)]
        assert through(ports[0], ports[1], a) == a
        assert through(ports[1], ports[0], b) == b
        assert through(ports[2], ports[2], c) == c
        out = q.shell("fwd")
        for port, n in (("port0", 600), ("port1", 600), ("port2", 300)):
            line = re.search(rf"fwd {port}: rx (\d+) forwarded (\d+)(.*)", out)
            assert line and line.group(1) == line.group(2) == str(n), out
            assert set(re.findall(r" \w+ (\d+)", line.group(3))) <= {"0"}, out   # no drop of any kind
        irq = q.shell("irq")
        # the queue vectors (the first of each NIC) took interrupts: MSI-X
        # messages from tables in BAR3 (igb: above 4 GiB) arrived
        for bdf in ("00:02.0", "02:01.0"):
            counts = [int(n) for n in re.findall(rf"0x[0-9a-f]+\s+(\d+)  {bdf} port\d-\w+", irq)]
            assert len(counts) == 2 and counts[0] > 0, irq
        assert "unhandled: 0" in irq, irq
        for p in ports:
            p.close()
