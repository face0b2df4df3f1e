"""The hardware watchdog (issue 24): watchdog=SECONDS arms QEMU's i6300esb,
or without it q35's ICH9 TCO timer; while the poll loop runs it is fed and
the box stays up past SECONDS; when core 0's loop stops (the fault image's
`fault stall`) QEMU resets the guest (its QMP events WATCHDOG, action
reset, then RESET), which boots again with the same knobs and says the
last reset was the watchdog's."""
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from qemurun import Qemu  # noqa: E402

READY = r"linerate: ready in \d+ us"
PROMPT = "linerate> "
ARMED = "watchdog: i6300esb 00:03.0 armed: a reset 2 s after the cores' loops stop"
TCO_ARMED = "watchdog: iTCO 00:1f.0 (ICH9 TCO at 0x660) armed: a reset 2 s after the cores' loops stop"
TCO_OFF = "watchdog: iTCO 00:1f.0 (ICH9 TCO at 0x660), off (watchdog=0)"


def watchdog_lines(text):
    return re.findall(r"^watchdog: .*?(?=\r?$)", text, re.M)


def fed_then_reset(q, armed, fed_s):
    """Fed for fed_s s with watchdog=2: the box stays up, no reset; then
    core 0's loop stalls, the watchdog resets the box, and it boots again
    with the same knobs saying the reset was the watchdog's (armed: its
    boot line)."""
    up = q.shell("uptime")
    with q.pumping():
        time.sleep(fed_s)
    assert q.shell("uptime") != up
    assert q.text().count("linerate 0.1.0 (") == 1
    q.qmp_cmd("query-status")   # QMP connected: its events from here on
    assert q.qmp_events == []
    q.send("fault stall\r")
    q.expect("fault: core 0 stalls")
    q.expect(r"boot: path pvh, cmdline \"watchdog=2 stats=0\"", 30)
    q.expect(re.escape(armed + "; the last reset was this watchdog's"))
    q.expect(PROMPT)
    q.qmp_cmd("query-status")   # the events that came meanwhile are read before its answer
    # the watchdog's reset, then SeaBIOS's own: on a warm start it resets
    # the machine again (its hard reboot) before booting
    reset = ("RESET", {"guest": True, "reason": "guest-reset"})
    assert [(e["event"], e.get("data")) for e in q.qmp_events] == [
        ("WATCHDOG", {"action": "reset"}), reset, reset], q.qmp_events


def test_watchdog_fed_then_fires_on_a_stalled_loop():
    # -action reboot=reset after qemurun's -no-reboot: the reset reboots.
    with Qemu(boot="kernel", kernel="linerate-fault.elf", append="watchdog=2 stats=0",
              extra=["-device", "i6300esb,addr=0x3", "-action", "reboot=reset"]) as q:
        q.expect(READY)
        q.expect(PROMPT)
        assert watchdog_lines(q.text()) == [
            ARMED, "watchdog: iTCO 00:1f.0 not armed: i6300esb 00:03.0 is (one watchdog at a time)"]
        fed_then_reset(q, ARMED, 4)	# twice the timeout
        assert re.match(r"linerate 0\.1\.0 \(", q.shell("version"))


def test_watchdog_off_by_default():
    with Qemu(boot="kernel", extra=["-device", "i6300esb,addr=0x3"]) as q:
        q.expect(PROMPT)
        assert watchdog_lines(q.text()) == ["watchdog: i6300esb 00:03.0, off (watchdog=0)", TCO_OFF]


def test_tco_fed_then_fires_on_a_stalled_loop():
    """q35 without an i6300esb: the ICH9 TCO timer (ticks of 0.6 s, two
    rounds), with the board's NO_REBOOT strap off
    (ICH9-LPC.noreboot: QEMU 10's default, set here all the same)."""
    with Qemu(boot="kernel", kernel="linerate-fault.elf", append="watchdog=2 stats=0",
              extra=["-global", "ICH9-LPC.noreboot=false", "-action", "reboot=reset"]) as q:
        q.expect(READY)
        q.expect(PROMPT)
        assert watchdog_lines(q.text()) == [TCO_ARMED]
        fed_then_reset(q, TCO_ARMED, 3)	# past the 2.4 s of two rounds
        assert q.text().count("linerate 0.1.0 (") == 2
