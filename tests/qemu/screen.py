"""Read the guest's screen back as text: QMP screendump (PPM), each 8x16
cell compared with the glyphs of the font the kernel was built with
(tools/psf2c.py reads the same PSF file). VGA text mode's cells are 9
pixels wide (the ninth column blank for letters); a cell matching no glyph
exactly takes the nearest (the cursor's underline). Type on the guest's
PS/2 keyboard with QMP send-key; check_screen_and_keyboard is the check
tests/qemu/test_screen.py and test_boot.py's framebuffer boots share."""
import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import psf2c  # noqa: E402

FONT_PSF = "/usr/share/consolefonts/Lat15-VGA16.psf.gz"
_glyphs = None


def glyphs():
    global _glyphs
    if _glyphs is None:
        _glyphs = {bytes(rows): chr(c) for c, rows in sorted(psf2c.load(FONT_PSF).items(), reverse=True)}
    return _glyphs


def read_ppm(path):
    """(width, height, rgb bytes) of a binary PPM (P6, maxval 255)."""
    with open(path, "rb") as f:
        data = f.read()
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos)
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    assert fields[0] == b"P6" and fields[3] == b"255", fields
    return int(fields[1]), int(fields[2]), data[pos + 1:]


ON = bytes([ord("0")] + [ord("1")] * 255)   # a colour byte: lit or not


def cell(bits, width, x0, y0):
    """The 16 row bytes of the 8x16 cell at pixel (x0, y0); bits: one
    ASCII '0'/'1' per pixel."""
    return bytes(int(bits[(y0 + r) * width + x0:(y0 + r) * width + x0 + 8], 2) for r in range(16))


def nearest(rows):
    g = glyphs()
    if rows in g:
        return g[rows]
    return min(g.items(), key=lambda kv: sum(bin(a ^ b).count("1") for a, b in zip(kv[0], rows)))[1]


def text(q, cell_width=None):
    """The screen of Qemu q as lines of text (trailing blanks cut)."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "screen.ppm")
        q.qmp_cmd("screendump", filename=path)
        width, height, rgb = read_ppm(path)
    cw = cell_width or (9 if width == 720 else 8)
    bits = bytes(a | b | c for a, b, c in zip(rgb[0::3], rgb[1::3], rgb[2::3])).translate(ON)
    lines = []
    for y in range(height // 16):
        lines.append("".join(nearest(cell(bits, width, x * cw, y * 16)) for x in range(width // cw)).rstrip())
    return lines


def lit_pixels(q):
    """How many pixels of Qemu q's screen are not black."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "screen.ppm")
        q.qmp_cmd("screendump", filename=path)
        _, _, rgb = read_ppm(path)
    return sum(1 for i in range(0, len(rgb), 3) if rgb[i:i + 3] != b"\0\0\0")


READY = r"linerate: ready in \d+ us"
PROMPT = "linerate> "
# The boot report's line for a framebuffer screen, from: "Multiboot2 framebuffer tag" or "UEFI GOP".
FB_LINE = (r"console: tty0 framebuffer (\d+)x(\d+) (24|32) bpp at 0x[0-9a-f]+, (\d+)x(\d+) characters "
           r"\(from the {}\), PS/2 keyboard \(default\)")
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
            lines = text(q)
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
    # The table's lines fit 80 columns: each header is whole on one line
    assert any(re.fullmatch(r"Iface +MTU +RX-OK .* TX-OVR", l) for l in table), table
    assert any(re.fullmatch(r"Iface +Q +rx_pps .* pkt/poll", l) for l in table), table
    type_keys(q, "VERSION\r")
    wait_screen(q, lambda ls: any(l.startswith("unknown command 'VERSION'") for l in ls))
    with q.pumping():
        time.sleep(0.5)
    assert q.text()[before:] == "", q.text()[before:]
