"""The console= knob (issue 24, first increment): the console on COM2 in
Linux's forms, the boot report's console line, the shell answering there;
malformed values and a port without a UART refused on COM1, which is kept."""
import os
import re
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from qemurun import EXIT_OK, Qemu  # noqa: E402

READY = r"linerate: ready in \d+ us"
PROMPT = "linerate> "
ACCEPTED = ("accepted: ttyS0|ttyS1|ttyS2|ttyS3[,BAUD[n|o|e[5-8]]] or uart,io,ADDR[,BAUD]; "
            "BAUD 1200|2400|4800|9600|19200|38400|57600|115200")
DEFAULT = "console: ttyS0 0x3f8 115200 8N1 (default)"


def console_lines(text):
    return re.findall(r"^(?:cmdline|console): .*?(?=\r?$)", text, re.M)


@pytest.mark.parametrize("value,line,shown,uart", [
    ("ttyS1,57600n8", "console: ttyS1 0x2f8 57600 8N1 (from console=)", "ttyS1,57600n8",
     "baudrate=57600 parity='N' data=8 stop=1"),
    ("ttyS1,9600e7", "console: ttyS1 0x2f8 9600 7E1 (from console=)", "ttyS1,9600e7",
     "baudrate=9600 parity='E' data=7 stop=1"),
    ("uart,io,0x2f8,19200", "console: uart 0x2f8 19200 8N1 (from console=)", "uart,io,0x2f8,19200",
     "baudrate=19200 parity='N' data=8 stop=1"),
])
def test_console_on_com2(value, line, shown, uart):
    """QEMU's COM1 goes nowhere: the boot report and the shell are on COM2,
    whose line settings QEMU's trace shows as the guest programmed them last
    (its stderr is in q.text())."""
    with Qemu(boot="kernel", com=2, append=f"console={value}",
              extra=["-trace", "serial_update_parameters"]) as q:
        q.expect(READY)
        q.expect(PROMPT)
        text = q.text()
        assert console_lines(text) == [line]
        assert re.findall(r"serial_update_parameters (.*?)\r?$", text, re.M)[-1] == uart
        assert re.match(r"linerate 0\.1\.0 \(", q.shell("version"))
        assert re.search(rf"^console={re.escape(shown)} +boot ", q.shell("show config"), re.M)


@pytest.mark.parametrize("value,why", [
    ("ttyS4", "names no port"),
    ("ttyS10", "names no port"),
    ("ttyS1,", "baud '' is not one of 1200..115200"),
    ("ttyS1,57600x8", "parity 'x' is not n, o or e"),
    ("ttyS1,56000n8", "baud '56000' is not one of 1200..115200"),
    ("ttyS1,9600n9", "'9' after the parity is not 5, 6, 7 or 8 bits"),
    ("uart,io,0x10000", "I/O address '0x10000' is not 0x1-0xfff8"),
    ("uart,mmio32,0xfe000000", "MMIO UARTs are not supported"),
])
def test_console_refused_on_com1(value, why):
    with Qemu(boot="kernel", append=f"console={value}") as q:
        q.expect(READY)
        q.expect(PROMPT)
        assert console_lines(q.text()) == [
            f"cmdline: bad value '{value}' for console= ({why}; {ACCEPTED})",
            DEFAULT,
            "cmdline: 1 word refused (console): defaults kept (messages above)"]


def test_console_without_uart_keeps_com1():
    """QEMU's q35 has no COM3: its LSR reads 0xff, as an empty ISA bus."""
    with Qemu(boot="kernel", append="console=ttyS2,57600 selftest=exit") as q:
        q.expect(READY)
        assert q.wait() == EXIT_OK
        assert console_lines(q.text()) == [
            "console: no UART answers at 0x3e8 (ttyS2 from console=, LSR reads 0xff): ttyS0 kept", DEFAULT]
