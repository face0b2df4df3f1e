"""reboot through the FADT's reset register first, poweroff through ACPI S5
with \\_S5 read from the DSDT's bytes (issue 24). QEMU's trace tells a
guest shutdown (qemu_system_shutdown_request reason=6, SHUTDOWN_CAUSE_GUEST_
SHUTDOWN) from a reset, which -no-reboot turns into an exit without it."""
import os
import re
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from qemurun import Qemu  # noqa: E402

PROMPT = "linerate> "
SHUTDOWN = "qemu_system_shutdown_request reason=6"


def run(cmd, machine):
    with Qemu(boot="kernel", machine=machine, extra=["-trace", "qemu_system_shutdown_request"]) as q:
        q.expect(PROMPT)
        q.send(cmd + "\r")
        assert q.wait() == 0
        text = q.text()
        return re.findall(r"^(?:reboot|rebooting|poweroff|qemu_system).*?(?=\r?$)", text[text.index(cmd + "\r"):],
                          re.M)


REBOOTING = "rebooting (a QEMU started with -no-reboot, as make run and make shell start it, exits instead)"


@pytest.mark.parametrize("machine,pm1a", [("q35", "0x604"), ("pc", "0x604")])
def test_poweroff_acpi_s5(machine, pm1a):
    """QEMU's DSDTs say Name (_S5, Package (4) {Zero, Zero, Zero, Zero})."""
    assert run("poweroff", machine) == ["poweroff", f"poweroff: ACPI S5: PM1a_CNT {pm1a} SLP_TYP 0", SHUTDOWN]


def test_reboot_acpi_reset_register():
    """q35's FADT (revision 3) has RESET_REG_SUP: I/O 0xcf9, value 0xf; the
    reset comes from it, before the fallbacks are announced."""
    assert run("reboot", "q35") == ["reboot", REBOOTING, "reboot: ACPI reset register: I/O 0xcf9 <- 0xf"]


def test_reboot_without_reset_register():
    """pc's FADT is revision 1, without RESET_REG: the fallbacks."""
    assert run("reboot", "pc") == ["reboot", REBOOTING, "reboot: the FADT offers no reset register",
                                   "reboot: port 0xcf9, then the 8042, then a triple fault"]


def test_poweroff_usage():
    with Qemu(boot="kernel") as q:
        q.expect(PROMPT)
        assert q.shell("poweroff now") == "usage: poweroff (no arguments)\r\n"
