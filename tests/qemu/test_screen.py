"""The screen console (issue 24): console=tty0 on VGA text mode (BIOS, the
kernel booted directly), read back from QEMU's screendump cell by cell with
the kernel's own font (tests/qemu/screen.py), a command typed on the PS/2
keyboard with QMP send-key answered on the screen only; a machine without
a VGA named and the box on COM1; one without an i8042 named, the screen
output only. The framebuffers GRUB (Multiboot2 tag)
and the EFI loader (GOP) hand over are checked the same way in
test_boot.py's test_iso and test_efi_app, on boots those tests make anyway."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from qemurun import Qemu  # noqa: E402
from screen import PROMPT, READY, check_screen_and_keyboard, wait_screen  # noqa: E402


def test_vga_text_console_and_keyboard():
    with Qemu(boot="kernel", append="console=ttyS0 console=tty0 stats=0", extra=["-vga", "std"]) as q:
        q.expect(READY)
        q.expect(PROMPT)
        assert ("console: tty0 text 80x25 at 0xb8000 (VGA text mode), PS/2 keyboard (from console=)"
                in q.text())
        check_screen_and_keyboard(q)


def test_no_vga_named_and_com1_kept():
    """console=tty0 alone on a machine without a VGA: named, and the
    consoles fall back to COM1, where the shell answers."""
    with Qemu(boot="kernel", append="console=tty0", extra=["-vga", "none"]) as q:
        q.expect(READY)
        q.expect(PROMPT)
        lines = re.findall(r"^console: .*?(?=\r?$)", q.text(), re.M)
        assert lines == ["console: tty0 is not used: no VGA answers (its register at 0x3cc reads 0xff)",
                         "console: ttyS0 0x3f8 115200 8N1 (default)"], lines
        assert re.match(r"linerate 0\.1\.0 \(", q.shell("version"))


def test_no_i8042_screen_without_keyboard():
    """q35 without its PS/2 controller (i8042=off: port 0x64 reads 0xff):
    the screen is used for output and says there is no keyboard; the boot
    report's end and the prompt are drawn there as on serial, and the shell
    answers on COM1."""
    with Qemu(boot="kernel", machine="q35,i8042=off", append="console=ttyS0 console=tty0 stats=0",
              extra=["-vga", "std"]) as q:
        q.expect(READY)
        q.expect(PROMPT)
        line = "console: tty0 text 80x25 at 0xb8000 (VGA text mode), no i8042 answers: no keyboard (from console=)"
        assert line in q.text()
        shown = [l for l in wait_screen(q, lambda ls: [l for l in ls if l][-1:] == [PROMPT.rstrip()]) if l]
        serial = re.sub(r"\x1b\[[0-9;]*[A-Za-z]|\r", "", q.text()).expandtabs(8)
        assert len(shown) > 10 and all(l in serial for l in shown), shown
        assert re.match(r"linerate 0\.1\.0 \(", q.shell("version"))
