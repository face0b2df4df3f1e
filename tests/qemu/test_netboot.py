"""Network boot (make netboot): SeaBIOS and the NIC's iPXE ROM load GRUB's
PXE image, or OVMF's network stack on the NIC's UEFI driver loads GRUB's
EFI image, from QEMU's built-in DHCP/TFTP (-boot n, -netdev
user,tftp=,bootfile=); GRUB loads linerate.elf with the command line of
the box's MAC file, or the default file for a MAC without one, and the
module the MAC file names (GRUB's module2), none for the default. GRUB's
own lines run at the speed of the box's console=ttyS0,57600 (QEMU's trace
of the 16550's rate), the default box's at 115200."""
import os
import re
import shutil
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from qemurun import BUILD, Qemu  # noqa: E402

TREE = os.path.join(BUILD, "netboot")
# The box with a MAC file also gets a boot module (app=replay's pcap).
PTP_PCAP = os.path.join(os.path.dirname(__file__), "..", "unit", "data", "ptp4l-l2-e2e-twostep.pcap")
MODULE = "boot: module of %d bytes at" % os.path.getsize(PTP_PCAP)


@pytest.fixture
def tree(tmp_path):
    if not os.path.exists(os.path.join(TREE, "boot", "grub", "i386-pc", "core.0")):
        pytest.fail("build/netboot is missing: run make netboot (make qemu-test does)")
    t = tmp_path / "tftp"
    shutil.copytree(TREE, t)
    (t / "linerate" / "mac-52:54:00:12:34:70.cfg").write_text(
        'set linerate_args="stats=0 app=sink rxd=256 console=ttyS0,57600"\nset linerate_module="/linerate/replay.pcap"\n')
    shutil.copy(PTP_PCAP, t / "linerate" / "replay.pcap")
    return str(t)


def boot(tree, mac, firmware="bios"):
    bootfile, rom = ("boot/grub/i386-pc/core.0", "1") if firmware == "bios" else \
        ("boot/grub/x86_64-efi/core.efi", "efi")
    nic = f"e1000e:netdev=user,tftp={tree},bootfile={bootfile},rom={rom},mac={mac}"
    with Qemu(boot=f"net-{firmware}", mem="256M", nics=[nic], extra=["-trace", "serial_update_parameters"]) as q:
        m = q.expect(r'boot: path multiboot2, cmdline "([^"]*)"', 180)
        q.expect("linerate> ", 60)
        text = q.text()
        return m.group(1).decode(), text


def grub_rate(text):
    """The rate of COM1's 16550 when GRUB wrote its knobs line (QEMU's
    serial_update_parameters trace)."""
    rates = re.findall(r"serial_update_parameters baudrate=(\d+)", text[:text.index("linerate netboot: MAC")])
    return int(rates[-1])


def flat(text):
    """The console with GRUB's line wrapping (at 80 columns) undone."""
    return re.sub(r"\s+", " ", text)


def test_bios_pxe_mac_file_and_default(tree):
    cmdline, text = boot(tree, "52:54:00:12:34:70")
    assert cmdline == "stats=0 app=sink rxd=256 console=ttyS0,57600"
    assert "knobs from /linerate/mac-52:54:00:12:34:70.cfg: stats=0 app=sink rxd=256 console=ttyS0,57600" in flat(text)
    assert grub_rate(text) == 57600
    assert "console: ttyS0 0x3f8 57600 8N1 (from console=)" in text
    assert "MAC 52:54:00:12:34:70, 1 queue(s), rxd 256 txd 512" in text
    assert "linerate netboot: module /linerate/replay.pcap" in flat(text) and MODULE in text
    cmdline, text = boot(tree, "52:54:00:12:34:71")
    assert cmdline == "stats=0"
    assert grub_rate(text) == 115200
    assert "knobs from /linerate/default.cfg: stats=0" in flat(text)
    assert "MAC 52:54:00:12:34:71, 1 queue(s), rxd 512 txd 512" in text
    assert "boot: module of" not in text


def test_uefi_pxe_mac_file_and_default(tree):
    cmdline, text = boot(tree, "52:54:00:12:34:70", "uefi")
    assert cmdline == "stats=0 app=sink rxd=256 console=ttyS0,57600"
    assert "knobs from /linerate/mac-52:54:00:12:34:70.cfg: stats=0 app=sink rxd=256 console=ttyS0,57600" in flat(text)
    assert grub_rate(text) == 57600
    assert "console: ttyS0 0x3f8 57600 8N1 (from console=)" in text
    assert "MAC 52:54:00:12:34:70, 1 queue(s), rxd 256 txd 512" in text
    assert "linerate netboot: module /linerate/replay.pcap" in flat(text) and MODULE in text
    cmdline, text = boot(tree, "52:54:00:12:34:71", "uefi")
    assert cmdline == "stats=0"
    assert grub_rate(text) == 115200
    assert "knobs from /linerate/default.cfg: stats=0" in flat(text)
    assert "MAC 52:54:00:12:34:71, 1 queue(s), rxd 512 txd 512" in text
    assert "boot: module of" not in text
