"""Defects found by using the appliance as an adversarial user would
(issue 16): each test failed before its fix. Bad knobs and command lines,
overlong shell lines, too little memory for a port's buffers."""
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
sys.path.insert(0, os.path.dirname(__file__))
from netio import StreamPort, frame  # noqa: E402
from qemurun import EXIT_OK, Qemu  # noqa: E402

PROMPT = "linerate> "
ROUTES = ["route=10.100.%d.0/24,10.1.0.25" % i for i in range(64)]


def cmdline_errors(text):
    return re.findall(r"^cmdline: .*?(?=\r?$)", text, re.M)


def test_bad_knobs_refused_whole_and_defaults_kept():
    bad = ["ip1=10.2.0.1/24", "ip2=10.2.128.1/16", "ip3=10.1.0.1/24",   # overlapping subnets
           "route=010.6.0.0/16,10.1.0.2", "route=10.100.5.0/24,10.1.0.3",  # octal-looking, duplicate
           "pairs=0-1,", "rxd=81", "txd=4104", "copybreak=64", "copybreak=128"]
    line = " ".join(["app=fwd", "stats=0", "ip0=10.1.0.1/24"] + ROUTES + bad)
    assert len(line) > 2048    # was cut at 1023 bytes
    with Qemu(boot="kernel", mem="256M", nics=["e1000e"] * 2, append=line) as q:
        q.expect(r"port1: e1000e .* rxd (\d+) txd (\d+)", 60)
        q.send("\r")
        q.expect(PROMPT, 30)
        text = q.text()
        errs = cmdline_errors(text)
        want = [
            r"cmdline: bad value '10\.2\.128\.1/16' for ip2= \(overlaps ip1=10\.2\.0\.1/24: "
            r"a subnet may be on one link only; accepted: .*\)",
            r"cmdline: bad value '10\.1\.0\.1/24' for ip3= \(overlaps ip0=10\.1\.0\.1/24: .*\)",
            r"cmdline: bad value '010\.6\.0\.0/16,10\.1\.0\.2' for route= \('010\.6\.0\.0/16,10\.1\.0\.2' is not "
            r"A\.B\.C\.D/LEN,A\.B\.C\.D; accepted: .*decimal without leading zeros.*\)",
            r"cmdline: bad value '10\.100\.5\.0/24,10\.1\.0\.3' for route= \('10\.100\.5\.0/24,10\.1\.0\.3': "
            r"a route to this prefix was given before; accepted: .*\)",
            r"cmdline: bad value '0-1,' for pairs= \(bad pair at '0-1,'; accepted: .*\)",
            r"cmdline: bad value '81' for rxd= \(81 is not a multiple of 8 descriptors .*; "
            r"accepted: 80-4096, a multiple of 8, or one per port: V,V,\.\.\. \(up to 8\)\)",
            r"cmdline: bad value '4104' for txd= \(accepted: 80-4096, a multiple of 8, "
            r"or one per port: V,V,\.\.\. \(up to 8\)\)",
            r"cmdline: copybreak= given more than once, ignoring '64' \(the default stays\)",
            r"cmdline: copybreak= given more than once, ignoring '128' \(the default stays\)",
            r"cmdline: 9 words refused \(ip2 ip3 route route pairs rxd txd copybreak copybreak\): "
            r"defaults kept \(messages above\)",
        ]
        assert len(errs) == len(want), errs
        for w, e in zip(want, errs):
            assert re.fullmatch(w, e), (w, e)
        # A refused ring size leaves the default in force.
        assert re.findall(r"port\d: e1000e .* rxd (\d+) txd (\d+)", text) == [("512", "512")] * 2
        # Every one of the 64 routes arrived whole and is in the table.
        got = re.findall(r"^fwd: route=(\S+) port0\r?$", text, re.M)
        assert got == [r[len("route="):] for r in ROUTES], got
        conf = q.shell("show config")
        m = re.search(r"^route=(.*?) +boot ", conf, re.M)
        assert m and m.group(1).split(" ") == [r[len("route="):] for r in ROUTES], conf[:300]
        assert re.search(r"^copybreak=0 ", conf, re.M) and re.search(r"^pairs=0-1 ", conf, re.M)
        # An overlong shell line is refused, not cut and run.
        q.send("set stats 5" + " " * 120 + "extra\r")
        q.expect(re.escape("line longer than 128 bytes (8 more): not run\r\n" + PROMPT))
        assert re.search(r"^stats=0 ", q.shell("show config"), re.M)


def test_many_bad_knobs_messages_whole():
    line = " ".join("bogus%d=1" % i for i in range(40)) + " selftest=exit"
    with Qemu(boot="kernel", append=line) as q:
        assert q.wait(60) == EXIT_OK
        text = q.text()
    errs = cmdline_errors(text)
    shown = [e for e in errs if e.startswith("cmdline: unknown knob")]
    assert shown and all(e.endswith(" selftest=)") or e.endswith("=)") for e in shown), errs
    assert all(re.fullmatch(r"cmdline: unknown knob 'bogus\d+' \(accepted: (\S+= )*\S+=\)", e) for e in shown)
    assert errs[-1] == "cmdline: %d more error(s) not shown (over 8192 bytes of messages)" % (40 - len(shown))


def test_port_without_memory_is_removed():
    """-m 7M: port1's buffers do not fit; it is removed and port0 runs."""
    with Qemu(boot="kernel", mem="7M", nics=["e1000e:netdev=stream"] * 2,
              append="app=fwd pairs=0-1 stats=0") as q:
        q.expect(PROMPT, 60)
        p = [StreamPort(q.nic_sock(i)) for i in (0, 1)]
        for s in p:
            s.send([frame(60, seq=k) for k in range(20)])
        time.sleep(2)
        out = q.shell("fwd")
        text = q.text()
        for s in p:
            s.close()
    assert "EXCEPTION" not in text
    assert re.search(r"port1: no memory for \d+ packet buffers \(\d+ bytes\) and \d+ small ones \(\d+ bytes\); "
                     r"free: \d+ bytes", text), text[-2000:]
    assert "port1: e1000e 82574L Gigabit Network Connection not set up: port removed, the other ports run" in text
    assert re.search(r"fwd port0: rx 20 forwarded 0 runt 0 no_peer 20 ", out), out
    assert "port1" not in out


def test_rings_too_big_for_memory():
    """-m 24M with 4096-descriptor rings and two queues: no port fits; the
    appliance says so and the shell runs."""
    with Qemu(boot="kernel", mem="24M", nics=["e1000e"] * 2,
              append="app=fwd rxd=4096 txd=4096 queues=2 stats=0") as q:
        q.expect(PROMPT, 60)
        out = q.shell("ifconfig")
        text = q.text()
    assert "EXCEPTION" not in text
    assert len(re.findall(r"port0: e1000e .* not set up: port removed", text)) == 2, text[-2000:]
    assert "port0" not in out


def test_address_knobs_no_app_reads_are_named():
    """ipN= on a port whose app takes no address, ipN= for a port that does
    not exist, and route= with no routing app: said at boot, not silent."""
    ips = "ip0=10.1.0.1/24 ip1=10.2.0.1/24 ip3=10.4.0.1/24 route=10.9.0.0/16,10.1.0.2"
    with Qemu(boot="kernel", nics=["e1000e"] * 2, append="app=fwd,sink " + ips) as q:
        q.expect(PROMPT, 60)
        text = q.text()
    assert cmdline_errors(text) == ["cmdline: ip1= ignored: port1 runs sink, which does not use an address "
                                    "(fwd, mgmt, ptp, rr do)"], cmdline_errors(text)
    assert "fwd: ip3=10.4.0.1/24: no port3; ignored" in text     # fwd says so itself
    with Qemu(boot="kernel", nics=["e1000e"] * 2, append="app=sink " + ips) as q:
        q.expect(PROMPT, 60)
        errs = cmdline_errors(q.text())
    assert errs == ["cmdline: ip0= ignored: port0 runs sink, which does not use an address "
                    "(fwd, mgmt, ptp, rr do)",
                    "cmdline: ip1= ignored: port1 runs sink, which does not use an address "
                    "(fwd, mgmt, ptp, rr do)",
                    "cmdline: ip3= ignored: there is no port3",
                    "cmdline: route= ignored: no port runs an app that routes (fwd)"], errs
