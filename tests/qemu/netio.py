"""Frames in and out of a QEMU NIC through its -netdev stream unix socket
(docs/qemu-nics.md E: a 4-byte big-endian length, then the frame, no FCS)."""
import socket
import struct
import threading
import time


class StreamPort:
    def __init__(self, path, timeout=10):
        end = time.monotonic() + timeout
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > end:
                    raise
                time.sleep(0.05)
        self.buf = b""

    def send(self, frames, timeout=60):
        """Send frames (bytes each); QEMU's back-pressure blocks us when the
        guest's ring is full, so nothing is lost on the way."""
        data = b"".join(struct.pack(">I", len(f)) + f for f in frames)
        self.sock.settimeout(timeout)
        self.sock.sendall(data)

    def send_background(self, frames, timeout=60):
        """Send from a thread, so the caller can receive meanwhile (a guest
        that sends back blocks when nobody reads). Returns the thread."""
        t = threading.Thread(target=self.send, args=(frames, timeout), daemon=True)
        t.start()
        return t

    def recv(self, count, timeout=10):
        """Up to count frames, waiting at most timeout seconds in all."""
        out, end = [], time.monotonic() + timeout
        while len(out) < count:
            while len(self.buf) >= 4:
                n = struct.unpack(">I", self.buf[:4])[0]
                if len(self.buf) < 4 + n:
                    break
                out.append(self.buf[4:4 + n])
                self.buf = self.buf[4 + n:]
                if len(out) == count:
                    return out
            left = end - time.monotonic()
            if left <= 0:
                break
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(1 << 20)
            except socket.timeout:
                break
            if not data:
                break
            self.buf += data
        return out

    def close(self):
        self.sock.close()


def frame(size, seq=0, dst=b"\xff" * 6, src=b"\x02\x00\x00\x00\x00\x01", ethertype=0x88B5):
    """A frame of size bytes (no FCS): Ethernet header, local experimental
    EtherType, then a 4-byte sequence number and a byte pattern."""
    hdr = dst + src + struct.pack(">H", ethertype) + struct.pack(">I", seq)
    body = bytes((seq + i) & 0xff for i in range(size - len(hdr)))
    return hdr + body


def vlan_frame(size, seq=0, vid=5):
    """Like frame(), with an 802.1Q tag (VLAN vid) after the addresses."""
    f = frame(size - 4, seq=seq)
    return f[:12] + struct.pack(">HH", 0x8100, vid) + f[12:]


def udp_flows(n, flows=64, stream=0):
    """n IPv4/UDP frames of 64 bytes (60 without FCS) over flows source
    addresses and ports, for RSS to spread over the queues; the payload is
    build/trafgen's header (magic 0x4c52, stream, sequence number 0..n-1,
    send time 0), which pktgen's receiver counts per stream."""
    out = []
    for i in range(n):
        f = i % flows
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 46, i & 0xffff, 0, 64, 17, 0,
                         bytes([10, 1, 0, 1 + f]), bytes([10, 2, 0, 2]))
        c = sum(struct.unpack(">10H", ip))
        c = (c & 0xffff) + (c >> 16)
        ip = ip[:10] + struct.pack(">H", ~((c & 0xffff) + (c >> 16)) & 0xffff) + ip[12:]
        udp = struct.pack(">HHHHHHQ", 1000 + f, 9, 26, 0, 0x4c52, stream, i) + bytes(6)
        out.append(b"\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00" + ip + udp)
    return out
