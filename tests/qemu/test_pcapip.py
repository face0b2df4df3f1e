"""PCAP-over-IP (issue 28) in QEMU: pcap_over_ip=57012 on the management
port (mgmt=port2 over a tap, as test_mgmt.py), port1 captured while port0
and port1 forward at L2. A client in the tap's namespace reads the stream
as `tshark -i TCP@GUEST:57012` does (the pcap header, then a record per
frame; tshark itself takes 7 s to start on this host: checked by hand, see
docs/capture.md) until it has 6 frames; scapy reads what it got as a pcap
file: the frames sent through port1, byte for byte and in order. The
client's close ends the capture, counted."""
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
sys.path.insert(0, os.path.dirname(__file__))
import test_mgmt  # noqa: E402
from netio import StreamPort, frame  # noqa: E402
from test_capture import forward, mgmt_count  # noqa: E402


# The pcap header (24 bytes), then 6 records (16-byte header, caplen
# bytes), into the file; then the close.
READER = """
import socket, struct, sys
s = socket.create_connection((sys.argv[1], 57012), timeout=30)
data = b""
def need(n):
    global data
    while len(data) < n:
        b = s.recv(65536)
        if not b:
            sys.exit("closed after %d bytes" % len(data))
        data += b
need(24)
end = 24
for _ in range(6):
    need(end + 16)
    end += 16 + struct.unpack("<I", data[end + 8:end + 12])[0]
need(end)
open(sys.argv[2], "wb").write(data[:end])
s.close()
"""


def test_pcap_over_ip(tmp_path):
    out = tmp_path / "pip.pcap"
    tx = [frame(60 + 10 * i, seq=i) for i in range(3)]     # broadcast: the box is not promiscuous
    rx = [frame(1514 - i, seq=100 + i) for i in range(3)]
    with test_mgmt.mgmt_box(extra="pcap_over_ip=57012 pcap_over_ip_if=1") as q:
        p = [StreamPort(q.nic_sock(i)) for i in (0, 1)]
        client = subprocess.Popen(["ip", "netns", "exec", test_mgmt.NS, sys.executable, "-c", READER,
                                   test_mgmt.GUEST, str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            end = time.monotonic() + 30
            while mgmt_count(q, "pcapip_clients") == 0 and time.monotonic() < end:
                time.sleep(0.2)
            assert mgmt_count(q, "pcapip_clients") == 1
            forward(p, 0, tx)
            forward(p, 1, rx)
            _, err = client.communicate(timeout=60)
            assert client.returncode == 0, err
        finally:
            if client.poll() is None:
                client.kill()
                client.wait()
        m = q.expect(r"pcap-over-ip: port1: client gone; seen (\d+), kept (\d+), dropped (\d+)", 30)
        assert int(m.group(1)) >= 6 and int(m.group(3)) == 0
        assert mgmt_count(q, "pcapip_frames") >= 6
        for s in p:
            s.close()
    from scapy.all import rdpcap
    assert [bytes(f) for f in rdpcap(str(out))] == tx + rx
