"""Apps placed per port (app=fwd,fwd,sink) and the poll loop that runs them:
each port's frames go to its own app, and an app that cannot start leaves
its ports dropping (counted), never forwarding."""
import os
import re
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
sys.path.insert(0, os.path.dirname(__file__))
from netio import StreamPort, frame  # noqa: E402
from qemurun import Qemu  # noqa: E402

PROMPT = "linerate> "


class Box:
    def __init__(self, append, nports=3, smp=1, mem="256M"):
        self.q = Qemu(boot="kernel", mem=mem, smp=smp, nics=["e1000e:netdev=stream"] * nports,
                      append="stats=0 promisc=1 " + append)
        self.q.expect(rf"port{nports - 1}: link up", 90)
        self.q.send("\r")
        self.q.expect(PROMPT, 30)
        self.p = [StreamPort(self.q.nic_sock(i)) for i in range(nports)]

    def shell(self, line, timeout=20):
        self.q.send(line + "\r")
        m = self.q.expect(r"(?s)" + re.escape(line) + r"\r\n(.*?)" + re.escape(PROMPT), timeout)
        return m.group(1).decode(errors="replace")

    def sink(self):
        return {int(p): int(n) for p, n in re.findall(r"sink port(\d) q\d: (\d+) packets", self.shell("sink"))}

    def fwd(self):
        return {int(p): (int(rx), int(f)) for p, rx, f in
                re.findall(r"fwd port(\d): rx (\d+) forwarded (\d+)", self.shell("fwd"))}

    def close(self):
        for s in self.p:
            s.close()
        self.q.stop()


@pytest.fixture
def box():
    made = []

    def make(*a, **kw):
        made.append(Box(*a, **kw))
        return made[-1]
    yield make
    for b in made:
        b.close()


def test_apps_per_port(box):
    b = box("app=fwd,fwd,sink pairs=0-1")
    assert "apps: port0=fwd port1=fwd port2=sink" in b.q.text()
    b.p[0].send([frame(64, seq=i) for i in range(100)])
    got = b.p[1].recv(100, timeout=30)
    b.p[2].send([frame(128, seq=i) for i in range(70)])
    assert len(got) == 100
    assert [g[14:18] for g in got] == [i.to_bytes(4, "big") for i in range(100)]
    assert b.fwd() == {0: (100, 100), 1: (0, 0)}
    b.shell("stats")
    for _ in range(50):
        if b.sink() == {2: 70}:
            break
    assert b.sink() == {2: 70}


def test_one_app_name_means_every_port(box):
    b = box("app=sink", nports=2)
    assert "apps: port0=sink port1=sink" in b.q.text()


def test_bad_app_list_is_refused(box):
    b = box("app=fwd,bogus,sink", nports=2)
    out = b.q.text()
    assert re.search(r"bad value 'fwd,bogus,sink' for app=.*no app 'bogus'", out), out
    assert "accepted: NAME or NAME,NAME" in out
    assert "apps: port0=sink port1=sink" in out
