"""Captures taken inside other tests' boots (issue 28): a console `capture`
started before the traffic, its dump turned into a pcapng by Debian's
text2pcap and read by capinfos without a warning (test_capture.py reads
the same dumps with tshark; capinfos spares each boot tshark's seconds of
start-up); pcapng Enhanced Packet Blocks read exactly (ns timestamps,
directions); frames compared byte for byte with those the test sent and
received."""
import re
import struct
import subprocess

PROMPT = "linerate> "


def start(q, port, count, opts=""):
    """`capture PORT count N [opts]`; the prompt stays away until it ends."""
    line = f"capture {port} count {count}{opts}"
    q.send(line + "\r")
    q.expect(re.escape(line) + r"\r\n", 30)


DUMP_LINE = re.compile(r"[IO] \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z|[0-9a-f]{6}( [0-9a-f]{2})+|")


def finish(q, port, path, timeout=60, others=None):
    """Wait for the capture's count line; its dump through text2pcap into
    path (a pcapng), counted by capinfos (no warning allowed). Returns
    ([(dir, frame)], counts): dir "rx" or "tx", counts the line's
    printed, seen, filtered, kept, dropped. others: a list that gets the
    console's lines that are not the dump's (a command typed while the
    capture ran, its answer), which are left out as grep would; without
    it there must be none."""
    m = q.expect(r"(?s)(.*?)capture: %s: (\d+) frames printed; seen (\d+), filtered (\d+), kept (\d+), "
                 r"dropped (\d+) \(ring full\)\r?\n" % port, timeout)
    q.expect(PROMPT, 30)
    counts = dict(zip(("printed", "seen", "filtered", "kept", "dropped"), (int(x) for x in m.groups()[1:])))
    lines = m.group(1).decode().replace("\r\n", "\n").split("\n")
    if others is not None:
        others += [line for line in lines if not DUMP_LINE.fullmatch(line)]
        lines = [line for line in lines if DUMP_LINE.fullmatch(line)]
    text = "\n".join(lines)
    dump = str(path) + ".txt"
    with open(dump, "w") as f:
        f.write(text + "\n")
    r = subprocess.run(["text2pcap", "-q", "-D", "-t", "ISO", dump, str(path)], capture_output=True, text=True)
    # text2pcap -q still ends stderr with a line of dashes
    said = [w for w in r.stderr.splitlines() if "Running as user" not in w and w.strip("-")]
    assert r.returncode == 0 and not said, r.stderr
    assert capinfos(str(path)) == counts["printed"], counts
    blocks = epbs(str(path))
    assert len(blocks) == counts["printed"] and all(d & 3 in (1, 2) for _, d, _ in blocks), blocks
    return [({1: "rx", 2: "tx"}[d & 3], f) for _, d, f in blocks], counts


def capinfos(path):
    """The frames Wireshark's capinfos counts in path (its file reader,
    without tshark's seconds of start-up); no warning allowed."""
    out = subprocess.run(["capinfos", "-c", "-M", path], capture_output=True, text=True, timeout=60)
    said = [w for w in out.stderr.splitlines() if "Running as user" not in w]
    assert out.returncode == 0 and not said, out.stderr
    return int(re.search(r"^Number of packets:\s+(\d+)$", out.stdout, re.M).group(1))


def tshark(path, *fields):
    """tshark -r path's fields, one list a frame; no warning on stderr."""
    out = subprocess.run(["tshark", "-r", path, "-T", "fields"] + [a for f in fields for a in ("-e", f)],
                         capture_output=True, text=True, timeout=60)
    # tshark run as root (the tests' user) says so on stderr: not a warning about the file
    warnings = [w for w in out.stderr.splitlines() if not w.startswith("Running as user")]
    assert out.returncode == 0 and warnings == [], out.stderr
    return [line.split("\t") for line in out.stdout.splitlines()]


def epbs(path):
    """The Enhanced Packet Blocks of a little-endian pcapng file with ns
    timestamps (if_tsresol 9, as the appliance writes; text2pcap's ISO
    times are read as written too): [(ns, epb_flags, frame)]. Wireshark's
    float epoch loses the last ns digits; this does not."""
    data = open(path, "rb").read()
    out, off, tsresol = [], 0, 6
    while off < len(data):
        btype, blen = struct.unpack_from("<II", data, off)
        if btype == 1:      # IDB: if_tsresol (option 9), else µs
            opt = off + 16
            while opt < off + blen - 4:
                code, olen = struct.unpack_from("<HH", data, opt)
                if code == 0:
                    break
                if code == 9:
                    tsresol = data[opt + 4]
                opt += 4 + (olen + 3) // 4 * 4
        elif btype == 6:
            _, hi, lo, caplen, _ = struct.unpack_from("<IIIII", data, off + 8)
            frame = data[off + 28:off + 28 + caplen]
            flags, opt = 0, off + 28 + (caplen + 3) // 4 * 4
            while opt < off + blen - 4:
                code, olen = struct.unpack_from("<HH", data, opt)
                if code == 0:
                    break
                if code == 2:
                    flags = struct.unpack_from("<I", data, opt + 4)[0]
                opt += 4 + (olen + 3) // 4 * 4
            assert tsresol in (6, 9), tsresol
            ts = (hi << 32) | lo
            out.append((ts if tsresol == 9 else ts * 1000, flags, frame))
        off += blen
    return out


def same(captured, wire):
    """A captured frame is the wire's, byte for byte; a frame under 60 bytes
    is padded with zeros on the way (the NIC pads a short TX frame, QEMU's
    model a short RX one) and compared so."""
    pad = lambda f: f + bytes(60 - len(f)) if len(f) < 60 else f
    return captured == wire or pad(captured) == pad(wire)


def run_in(frames, stream):
    """True if frames appear in stream as one contiguous run, in order
    (each compared with same())."""
    n = len(frames)
    return any(all(same(c, w) for c, w in zip(frames, stream[i:i + n])) for i in range(len(stream) - n + 1))


def differ(captured, wire):
    """The pairs that are not the same(), as hex, for an assertion's message."""
    return [(i, c.hex(), w.hex()) for i, (c, w) in enumerate(zip(captured, wire)) if not same(c, w)]
