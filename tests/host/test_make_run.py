"""make run / make shell take APP= and NIC= as they say, and refuse other
values with the accepted ones (make -n: nothing is built or booted);
tools/qemurun.py's help documents the whole --nic grammar and its checks
refuse what cannot boot."""
import os
import re
import io
import shlex
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
QEMURUN = os.path.join(ROOT, "tools", "qemurun.py")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import qemurun  # noqa: E402


def make_n(*args):
    return subprocess.run(["make", "-n", *args], cwd=ROOT, capture_output=True, text=True, timeout=60)


def qemurun_line(out):
    """The qemurun.py command make -n prints (its continuation joined)."""
    text = out.replace("\\\n", " ")
    return next(ln for ln in text.splitlines() if "tools/qemurun.py" in ln)


@pytest.mark.parametrize("args,message", [
    (["run", "APP=pktgen"], "make run APP=pktgen: make run's demos are APP=fwd (the default) and APP=rr; "
                            "for pktgen: make shell APP=pktgen"),
    (["run", "APP=sink"], "for sink: make shell APP=sink"),
    (["run", "APP=ptp"], "for ptp: make shell APP=ptp"),
    (["run", "NIC=rtl8139"], "NIC=rtl8139: accepted: e1000 e1000e igb virtio"),
    (["shell", "APP=fwdd"], "make shell APP=fwdd: accepted: fwd mgmt pktgen ptp replay rr sink, or one per port: "
                            "APP=pktgen,sink"),
    (["shell", "APP=pktgen,snk"], "accepted: fwd mgmt pktgen ptp replay rr sink"),
    (["shell", "NIC=e1000x"], "NIC=e1000x: accepted: e1000 e1000e igb virtio"),
])
def test_refused_with_the_accepted_values(args, message):
    r = make_n(*args)
    assert r.returncode != 0
    assert message in r.stderr
    assert "qemurun.py" not in r.stdout and "demo" not in r.stdout


@pytest.mark.parametrize("args,demo", [
    (["run"], "tools/demo.py --nic e1000e"),
    (["run", "APP=fwd", "NIC=igb"], "tools/demo.py --nic igb"),
    (["run", "APP=rr", "NIC=e1000"], "tools/demo_rr.py --nic e1000"),
    (["run", "APPEND=poll=napi stats=5"], "tools/demo.py --nic e1000e --append 'poll=napi stats=5'"),
])
def test_run_picks_the_demo_and_nic(args, demo):
    r = make_n(*args)
    assert r.returncode == 0, r.stderr
    assert demo in r.stdout


def test_shell_boots_the_app_on_two_ports_of_the_model():
    r = make_n("shell", "APP=pktgen,sink", "NIC=igb", "APPEND=poll=napi")
    assert r.returncode == 0, r.stderr
    argv = shlex.split(qemurun_line(r.stdout))
    assert argv[argv.index("--append") + 1] == "stats=0 app=pktgen,sink poll=napi"
    assert [argv[i + 1] for i, a in enumerate(argv) if a == "--nic"] == ["igb:netdev=stream,bus=rp"] * 2
    # qemurun itself accepts what make composed
    argv[argv.index("--interactive")] = "--print"
    p = subprocess.run(argv[1:], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    assert p.stdout.count("-device igb,") == 2 and "stats=0 app=pktgen,sink poll=napi" in p.stdout


@pytest.mark.parametrize("append,knobs", [
    ("", "poll=napi stats=0"),    # quiet, and an idle guest leaves the host's core idle
    ("stats=5", "poll=napi stats=5"),
    ("poll=busy stats=1 rxd=256", "poll=busy stats=1 rxd=256"),
])
def test_shell_is_quiet_and_idle_unless_append_says(append, knobs):
    r = make_n("shell", f"APPEND={append}")
    argv = shlex.split(qemurun_line(r.stdout))
    assert argv[argv.index("--append") + 1] == knobs


def test_qemurun_help_lists_the_nic_grammar():
    out = subprocess.run([QEMURUN, "--help"], capture_output=True, text=True, timeout=30).stdout
    for word in ("stream", "dgram", "user", "tap", "hub", "none", "root", "rp", "bridge", "rp-bridge",
                 "tftp=", "bootfile=", "rom=", "mac=", "hostfwd=", "ifname=", "connect=",
                 "default q35", "default 256M", "default 1"):
        assert word in out, word
    assert len(re.findall(r"^    tools/qemurun\.py ", out, re.M)) == 3


@pytest.mark.parametrize("args,message", [
    (["--boot", "net-bios"], "--boot net-bios needs a NIC to boot from"),
    (["--boot", "net-uefi"], "--boot net-uefi needs a NIC to boot from"),
    (["--nic", "e1000e:netdve=stream"], "unknown option netdve= (options: bus= netdev="),
])
def test_qemurun_refuses(args, message):
    r = subprocess.run([QEMURUN, *args, "--print"], capture_output=True, text=True, timeout=30)
    assert r.returncode != 0
    assert message in r.stderr


def test_console_log_lines_end_in_one_newline():
    """The demos' console (Qemu's log) ends lines in "\\n" alone: a terminal
    adds its own CR, so the serial line's "\\r\\n" had shown as ^M^M."""
    log = io.BytesIO()
    with qemurun.Qemu(boot="kernel", append="selftest=exit", log=log) as q:
        assert q.wait(60) == qemurun.EXIT_OK
    text = log.getvalue()
    assert b"\r\n" in q.out and b"linerate: ready in " in text
    assert b"\r\n" not in text and text.count(b"\n") == q.out.count(b"\r\n")


def test_demo_knobs_replaced_not_doubled():
    """A knob given to a demo replaces the demo's own (twice, both were
    refused and the default kept)."""
    assert qemurun.merge_knobs("app=fwd ip0=10.1.0.1/24 stats=2", "stats=5 poll=napi") == \
        "app=fwd ip0=10.1.0.1/24 stats=5 poll=napi"
    assert qemurun.merge_knobs("app=rr stats=5", "") == "app=rr stats=5"
