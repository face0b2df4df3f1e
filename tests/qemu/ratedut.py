"""A device under test with a known drop threshold, for `pktgen rfc2544`:
a wire between two QEMU NICs' -netdev stream sockets (netio.StreamPort)
that forwards port A's frames to port B through a token bucket of `pps`
frames/s and `depth` frames, dropping what finds it empty; frames from B
to A, and frames that are not pktgen's, pass untouched. The Ethernet and
IPv4 headers of the first SEEN pktgen frames each way are kept
(seen[True]: A to B, seen[False]: B to A).

The bucket runs on the sender's clock: the TX time (ns, 48 bits) pktgen
writes into its payload header (untagged IPv4: bytes 54-59), so this
process being descheduled does not drop frames. A trial at r frames/s for
T s is lossless when r <= pps, and loses frames once (r - pps) * T > depth
(pktgen's rfc2544 trials keep at most 2 ms of catch-up credit, so bursts
stay below depth)."""
import struct
import threading

from netio import StreamPort

MAGIC = 0x4C52
SEEN = 256


class RateLimitedWire:
    def __init__(self, path_a, path_b, pps, depth=64):
        self.a, self.b = StreamPort(path_a), StreamPort(path_b)
        self.pps, self.depth = pps, depth
        self.tokens, self.last = float(depth), None
        self.passed = self.dropped = 0
        self.seen = {True: [], False: []}
        self.stopping = False
        self.threads = [threading.Thread(target=self._pump, args=(self.a, self.b, True), daemon=True),
                        threading.Thread(target=self._pump, args=(self.b, self.a, False), daemon=True)]
        for t in self.threads:
            t.start()

    def _admit(self, f):
        if len(f) < 60 or struct.unpack_from(">H", f, 42)[0] != MAGIC:
            return True
        ts = int.from_bytes(f[54:60], "big")
        if self.last is not None:
            dt = ((ts - self.last) & ((1 << 48) - 1)) / 1e9
            self.tokens = min(self.depth, self.tokens + dt * self.pps)
        self.last = ts
        if self.tokens >= 1:
            self.tokens -= 1
            self.passed += 1
            return True
        self.dropped += 1
        return False

    def _pump(self, src, dst, limited):
        while not self.stopping:
            try:
                frames = src.recv(256, timeout=0.2)
                seen = self.seen[limited]
                seen += [f[:34] for f in frames[:SEEN - len(seen)]
                         if len(f) >= 60 and struct.unpack_from(">H", f, 42)[0] == MAGIC]
                out = [f for f in frames if not limited or self._admit(f)]
                if out:
                    dst.send(out, timeout=10)
            except OSError:
                return

    def close(self):
        self.stopping = True
        for t in self.threads:
            t.join(timeout=5)
        self.a.close()
        self.b.close()
