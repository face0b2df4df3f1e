"""Read the guest's screen back as text: QMP screendump (PPM), each 8x16
cell compared with the glyphs of the font the kernel was built with
(tools/psf2c.py reads the same PSF file). VGA text mode's cells are 9
pixels wide (the ninth column blank for letters); a cell matching no glyph
exactly takes the nearest (the cursor's underline)."""
import os
import sys
import tempfile

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
