"""The screen console (issue 24): console=tty0 on VGA text mode (BIOS, the
kernel booted directly), the framebuffer GRUB hands over in the Multiboot2
framebuffer tag (the ISO) and the UEFI GOP's (the EFI loader), read back
from QEMU's screendump cell by cell with the kernel's own font
(tests/qemu/screen.py); a command typed on the PS/2 keyboard with QMP
send-key is answered on the screen only."""
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from qemurun import Qemu  # noqa: E402
import screen  # noqa: E402

READY = r"linerate: ready in \d+ us"
PROMPT = "linerate> "
QCODE = {" ": "spc", "\r": "ret", "-": "minus", ".": "dot", "\b": "backspace"}


def type_keys(q, s):
    """Type s on the guest's PS/2 keyboard, a key at a time (upper case
    with shift)."""
    for ch in s:
        keys = [QCODE.get(ch.lower(), ch.lower())]
        if ch.isupper():
            keys.insert(0, "shift")
        q.qmp_cmd("send-key", keys=[{"type": "qcode", "data": k} for k in keys])


def wait_screen(q, check, timeout=30):
    """Read the screen until check(lines) holds; return the lines. On
    timeout, fail showing the screen."""
    end = time.monotonic() + timeout
    while True:
        with q.pumping():
            lines = screen.text(q)
        if check(lines):
            return lines
        assert time.monotonic() < end, "screen:\n" + "\n".join(lines)
        time.sleep(0.3)


def check_screen_and_keyboard(q, last="core0: no queues"):
    """The screen shows what the serial console shows (each line of it is
    a line, or a wrapped piece of one, of the serial text), down to the
    boot report's last line and the prompt; lines typed there (a typo
    rubbed out with Backspace, Shift) are answered there, not on serial.
    The guest runs stats=0 (or was set so): nothing else is printed
    meanwhile; last: the line above the prompt."""
    prompt = PROMPT.rstrip()
    lines = wait_screen(q, lambda ls: [l for l in ls if l][-1:] == [prompt])
    serial = re.sub(r"\x1b\[[0-9;]*[A-Za-z]|\r", "", q.text()).expandtabs(8)
    shown = [l for l in lines if l][:-1]
    assert (last is None or shown[-1] == last) and len(shown) > 10, lines
    assert all(l in serial for l in shown), (shown, serial[-2000:])
    before = len(q.text())
    type_keys(q, "versiom\bn\r")
    lines = wait_screen(q, lambda ls: [l for l in ls if l][-1:] == [prompt] and PROMPT + "version" in ls)
    at = lines.index(PROMPT + "version")
    assert re.match(r"linerate 0\.1\.0 \(", lines[at + 1]), lines
    type_keys(q, "stats\r")
    lines = wait_screen(q, lambda ls: [l for l in ls if l][-1:] == [prompt] and PROMPT + "stats" in ls)
    table = lines[lines.index(PROMPT + "stats") + 1:]
    assert any(l.startswith("Iface") for l in table) and any(l.startswith("Core   CPU%") for l in table), lines
    type_keys(q, "VERSION\r")
    wait_screen(q, lambda ls: any(l.startswith("unknown command 'VERSION'") for l in ls))
    with q.pumping():
        time.sleep(0.5)
    assert q.text()[before:] == "", q.text()[before:]


def test_vga_text_console_and_keyboard():
    with Qemu(boot="kernel", append="console=ttyS0 console=tty0 stats=0", extra=["-vga", "std"]) as q:
        q.expect(READY)
        q.expect(PROMPT)
        assert ("console: tty0 text 80x25 at 0xb8000 (VGA text mode), PS/2 keyboard (from console=)"
                in q.text())
        check_screen_and_keyboard(q)


def test_framebuffer_from_grub():
    """The ISO's default entry: no console=, so COM1 and the screen GRUB set up."""
    with Qemu(boot="iso-bios", mem="256M", extra=["-vga", "std"]) as q:
        q.expect("linerate: serial shell", 60)
        q.send("\r")
        q.expect(READY, 90)
        q.expect(PROMPT)
        m = re.search(r"console: tty0 framebuffer (\d+)x(\d+) 32 bpp at 0x[0-9a-f]+, (\d+)x(\d+) characters "
                      r"\(from the Multiboot2 framebuffer tag\), PS/2 keyboard \(default\)", q.text())
        assert m, q.text()[-2000:]
        q.shell("set stats 0")
        check_screen_and_keyboard(q, None)


def test_framebuffer_from_gop():
    with Qemu(boot="efi", mem="256M", extra=["-vga", "std"]) as q:
        q.expect(READY, 120)
        q.expect(PROMPT)
        m = re.search(r"console: tty0 framebuffer (\d+)x(\d+) 32 bpp at 0x[0-9a-f]+, (\d+)x(\d+) characters "
                      r"\(from the UEFI GOP\), PS/2 keyboard \(default\)", q.text())
        assert m, q.text()[-2000:]
        q.shell("set stats 0")
        check_screen_and_keyboard(q, None)
