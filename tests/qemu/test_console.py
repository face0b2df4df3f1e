"""The console= knob (issue 24): the console on COM2 in Linux's forms, the
boot report's console line, the shell answering there; two consoles at once,
each command answered on its own; malformed values and a port without a UART
refused on COM1, which is kept."""
import os
import re
import socket
import struct
import sys
import threading
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from qemurun import EXIT_OK, Qemu  # noqa: E402
sys.path.insert(0, os.path.dirname(__file__))
import screen  # noqa: E402

READY = r"linerate: ready in \d+ us"
PROMPT = "linerate> "
ACCEPTED = ("accepted: ttyS0-ttyS9[,BAUD[n|o|e[5-8]]], uart,io|mmio|mmio32,ADDR[,BAUD] or tty0; "
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
    ("ttyS", "names no port"),
    ("tty1", "the screen is tty0 (there are no other virtual terminals)"),
    ("ttyS10", "names no port"),
    ("ttyS1,", "baud '' is not one of 1200..115200"),
    ("ttyS1,57600x8", "parity 'x' is not n, o or e"),
    ("ttyS1,56000n8", "baud '56000' is not one of 1200..115200"),
    ("ttyS1,9600n9", "'9' after the parity is not 5, 6, 7 or 8 bits"),
    ("uart,io,0x10000", "I/O address '0x10000' is not 0x1-0xfff8"),
    ("uart,ioport,0x2f8", "'ioport' is not io, mmio or mmio32"),
    ("uart,io", "I/O address '' is not 0x1-0xfff8"),
    ("uart,mmio32,0xfe000002", "MMIO address '0xfe000002' is not a physical address on a 4-byte boundary"),
    ("uart,mmio,0x1000000000000", "MMIO address '0x1000000000000' is not a physical address"),
])
def test_console_refused_on_com1(value, why):
    with Qemu(boot="kernel", append=f"console={value}") as q:
        q.expect(READY)
        q.expect(PROMPT)
        assert console_lines(q.text()) == [
            f"cmdline: bad value '{value}' for console= ({why}; {ACCEPTED})",
            DEFAULT,
            "cmdline: 1 word refused (console): defaults kept (messages above)"]


@pytest.mark.parametrize("value,port", [
    ("ttyS2,57600", "0x3e8 (ttyS2 io"),
    ("uart,mmio32,0xfe000000,57600", "0xfe000000 (uart mmio32"),
])
def test_console_without_uart_keeps_com1(value, port):
    """QEMU's q35 has no COM3 (an empty ISA bus reads 0xff) and its x86
    machines no MMIO 16550: an address where nothing is (reads 0) is mapped
    uncached, probed without a fault, and refused."""
    with Qemu(boot="kernel", append=f"console={value} selftest=exit") as q:
        q.expect(READY)
        assert q.wait() == EXIT_OK
        assert console_lines(q.text()) == [
            f"console: no UART answers at {port} from console=; its scratch register does not keep a "
            "byte): not used", DEFAULT]


def test_console_same_port_twice():
    with Qemu(boot="kernel", append="console=ttyS0 console=ttyS0,9600") as q:
        q.expect(READY)
        q.expect(PROMPT)
        assert console_lines(q.text()) == [
            "cmdline: bad value 'ttyS0,9600' for console= (an earlier console= names the same port; "
            f"{ACCEPTED})",
            "console: ttyS0 0x3f8 115200 8N1 (from console=)",
            "cmdline: 1 word refused (console): defaults kept (messages above)"]


class Com:
    """The guest's COM port on QEMU's unix socket chardev (-serial
    unix:PATH,server=on,wait=off), connected before the guest prints and
    read all the time by a thread (QEMU writes a byte at a time: an unread
    socket fills after a few hundred and QEMU drops what follows)."""

    def __init__(self, path):
        for _ in range(100):
            try:
                self.sock = socket.socket(socket.AF_UNIX)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                time.sleep(0.1)
        else:
            raise TimeoutError(f"no QEMU socket at {path}")
        self.out = b""
        self.pos = 0
        self.lock = threading.Lock()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        while data := self.sock.recv(65536):
            with self.lock:
                self.out += data

    def text(self):
        with self.lock:
            return self.out.decode(errors="replace")

    def expect(self, pattern, timeout=30):
        rx = re.compile(pattern.encode())
        end = time.monotonic() + timeout
        while True:
            with self.lock:
                m = rx.search(self.out, self.pos)
            if m:
                self.pos = m.end()
                return m
            if time.monotonic() > end:
                raise TimeoutError(f"/{pattern}/ not on COM2; tail:\n{self.text()[-2000:]}")
            time.sleep(0.05)

    def shell(self, line):
        self.sock.sendall(line.encode() + b"\r")
        return self.expect(r"(?s)" + re.escape(line) + r"\r\n(.*?)" + re.escape(PROMPT)).group(1).decode()


def test_two_consoles():
    """console=ttyS0 console=ttyS1,57600: the boot report on both, the shell
    on both, each command's answer only on the console it was typed on."""
    sock = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"linerate-com2-{os.getpid()}.sock")
    with Qemu(boot="kernel", append="console=ttyS0 console=ttyS1,57600",
              extra=["-serial", f"unix:{sock},server=on,wait=off"]) as q:
        com2 = Com(sock)
        try:
            q.expect(READY)
            q.expect(PROMPT)
            com2.expect(READY)
            com2.expect(PROMPT)
            both = ["console: ttyS0 0x3f8 115200 8N1 (from console=)",
                    "console: ttyS1 0x2f8 57600 8N1 (from console=)"]
            assert console_lines(q.text()) == both
            assert console_lines(com2.text()) == both
            assert re.match(r"linerate 0\.1\.0 \(", com2.shell("version"))
            assert re.search(r"^console=ttyS0,115200n8 ttyS1,57600n8 +boot ", q.shell("show config"), re.M)
            # the banner on both; the version command's answer and echo only on COM2
            assert q.text().count("linerate 0.1.0 (") == 1 and "> version" not in q.text()
            assert com2.text().count("linerate 0.1.0 (") == 2
            assert "show config" not in com2.text()
        finally:
            com2.sock.shutdown(socket.SHUT_RDWR)
            os.unlink(sock)


def spcr(interface_type=0, space_id=1, access_size=1, address=0x2f8, baud_code=6, length=80):
    """An SPCR table (Microsoft's SPCR spec, revision 2): header, interface
    type at 36, the base address's GAS at 40, baud rate code at 58; QEMU's
    -acpitable recomputes the checksum."""
    body = bytearray(80)
    body[36] = interface_type
    body[40:52] = struct.pack("<BBBBQ", space_id, 8, 0, access_size, address)
    body[58] = baud_code
    body[60] = 1    # one stop bit
    body[:36] = struct.pack("<4sIBB6s8sI4sI", b"SPCR", length, 2, 0, b"LINRAT", b"TESTSPCR", 1, b"LNRT", 1)
    body = body[:length]
    body[9] = (-sum(body)) & 0xff
    return bytes(body)


def spcr_qemu(tmp_path, table, **kw):
    path = tmp_path / "spcr.bin"
    path.write_bytes(table)
    return Qemu(boot="kernel", extra=["-acpitable", f"file={path}", "-trace", "serial_update_parameters"], **kw)


def test_spcr_com2(tmp_path):
    """No console=: the SPCR's COM2 at 57600 (baud code 6), as Linux's
    earlycon takes it; the shell answers there."""
    with spcr_qemu(tmp_path, spcr(), com=2) as q:
        q.expect(READY)
        q.expect(PROMPT)
        text = q.text()
        assert console_lines(text) == ["console: ttyS1 0x2f8 57600 8N1 (from SPCR)"]
        assert "SPCR" in re.search(r"^acpi: RSDP .*tables:(.*?)\r?$", text, re.M).group(1).split()
        assert re.findall(r"serial_update_parameters (.*?)\r?$", text, re.M)[-1] == \
            "baudrate=57600 parity='N' data=8 stop=1"
        assert re.match(r"linerate 0\.1\.0 \(", q.shell("version"))


def test_spcr_baud_as_is(tmp_path):
    """Baud code 0, "as is": the divisor latch as firmware left it; QEMU's
    16550 resets to divisor 12, 9600 baud, which then stays programmed."""
    with spcr_qemu(tmp_path, spcr(baud_code=0), com=2) as q:
        q.expect(READY)
        q.expect(PROMPT)
        text = q.text()
        assert console_lines(text) == ["console: ttyS1 0x2f8 9600 8N1 (from SPCR)"]
        assert re.findall(r"serial_update_parameters (.*?)\r?$", text, re.M)[-1] == \
            "baudrate=9600 parity='N' data=8 stop=1"


def test_spcr_console_knob_wins(tmp_path):
    with spcr_qemu(tmp_path, spcr(), append="console=ttyS0,9600") as q:
        q.expect(READY)
        q.expect(PROMPT)
        assert console_lines(q.text()) == ["console: ttyS0 0x3f8 9600 8N1 (from console=)"]


@pytest.mark.parametrize("table,why", [
    (spcr(interface_type=3), "interface type 0x3 is not a 16550 (0, 0x12) or 16450 (1)"),
    (spcr(length=60), "it is 60 bytes, fewer than 80"),
    (spcr(baud_code=5), "baud rate code 5 is not 0 (as is), 3 (9600), 4 (19200), 6 (57600) or 7 (115200)"),
    (spcr(space_id=2), "address space 2 is neither memory (0) nor I/O (1)"),
    (spcr(address=0), "base address 0 is no I/O address"),
])
def test_spcr_malformed_keeps_com1(tmp_path, table, why):
    with spcr_qemu(tmp_path, table, append="selftest=exit") as q:
        q.expect(READY)
        assert q.wait() == EXIT_OK
        assert console_lines(q.text()) == [f"console: the ACPI SPCR table's port is not used: {why}", DEFAULT]


@pytest.mark.parametrize("table,port", [
    (spcr(address=0x3e8, baud_code=7), "0x3e8 (ttyS2 io"),
    (spcr(interface_type=0x12, space_id=0, access_size=3, address=0xfe000000), "0xfe000000 (uart mmio32"),
    (spcr(space_id=0, access_size=1, address=0xfe000000), "0xfe000000 (uart mmio"),
])
def test_spcr_port_without_uart_keeps_com1(tmp_path, table, port):
    """The SPCR names COM3, which q35 does not have, or a 16550 in memory
    (dword access: mmio32, byte: mmio) where nothing is."""
    with spcr_qemu(tmp_path, table, append="selftest=exit") as q:
        q.expect(READY)
        assert q.wait() == EXIT_OK
        assert console_lines(q.text()) == [
            f"console: no UART answers at {port} from SPCR; its scratch register does not keep a "
            "byte): not used", DEFAULT]


@pytest.mark.parametrize("device,value,port", [
    ("pci-serial", "ttyS4,57600", 0),
    ("pci-serial-2x", "ttyS5,19200e7", 1),
])
def test_pci_serial(device, value, port):
    """QEMU's pci-serial cards (1b36:0002, -2x 1b36:0003: 16550s 8 bytes
    apart in I/O BAR 0) on chardev stdio; ttyS4 is the first port, as Linux
    numbers them. The shell answers there; lspci names the card."""
    chardevs = ["-chardev", "stdio,id=s0"] if port == 0 else ["-chardev", "null,id=s0", "-chardev", "stdio,id=s1"]
    dev = f"{device},chardev1=s0,chardev2=s1" if port else f"{device},chardev=s0"
    with Qemu(boot="kernel", com=0, append=f"console={value}", extra=chardevs + ["-device", dev]) as q:
        q.expect(READY)
        q.expect(PROMPT)
        m = re.findall(r"^console: (ttyS\d) (0x[0-9a-f]+) (.*?)\r?$", q.text(), re.M)
        assert len(m) == 1 and m[0][0] == value[:5]
        bar = int(m[0][1], 16) - 8 * port
        assert m[0][2] == {0: "57600 8N1", 1: "19200 7E1"}[port] + " (from console=, a PCI serial card's port)"
        lspci = q.shell("lspci")
        assert re.search(r"Serial controller \[0700\]", lspci)
        assert re.search(rf"Region 0: I/O ports at {bar:x} \[size={8 << port}\]", lspci), lspci


def test_pci_serial_absent():
    with Qemu(boot="kernel", append="console=ttyS4 selftest=exit") as q:
        q.expect(READY)
        assert q.wait() == EXIT_OK
        assert console_lines(q.text()) == ["console: ttyS4 is PCI serial port 0, but 0 were found: not used", DEFAULT]


def rates(text):
    """The baud rates QEMU's 16550s were programmed to, in order (its
    serial_update_parameters trace: the chardev itself runs at no rate)."""
    return [int(r) for r in re.findall(r"serial_update_parameters baudrate=(\d+)", text)]


@pytest.mark.parametrize("boot", ["iso-bios", "iso-uefi"])
def test_grub_menu_on_com2(boot):
    """The ISO's GRUB menu is on COM2 too (COM1 goes nowhere); its speed
    (boot/grub.cfg) in QEMU's trace of the UARTs' rate. BIOS: ESC at the
    57600 prompt keeps 57600 from there on, 19200 is never tried, and the
    COM2 entry at 57600, picked over COM2, boots with console=ttyS1,57600,
    which the kernel programs; the entry is edited first ('e') to ask GRUB
    for a 16-bit framebuffer and the kernel for the screen as a console
    too (console=tty0): the kernel names the screen unsupported, draws
    nothing on it, and goes on on COM2. UEFI, where OVMF's terminal reads
    COM2 too and a key at a prompt reached GRUB too late now and then (ESC
    2 of 3 boots, F4 1 of 15): no key, so 57600, 19200, then the menu at
    115200, whose COM2 entry boots with console=ttyS1,115200."""
    speed = 57600 if boot == "iso-bios" else 115200
    with Qemu(boot=boot, machine="q35", mem="256M", com=2, extra=["-trace", "serial_update_parameters"]) as q:
        q.expect(r"linerate: press ESC or F4 now for GRUB's menu at 57600 baud", 90)
        prompt = len(q.text())
        if boot == "iso-bios":
            q.send("\x1b")
        q.expect(rf"linerate: Serial-over-LAN on COM2 \(ttyS1\), {speed}", 60)
        q.expect(r"automatically in \d+s", 30)
        grub = q.text()
        if boot == "iso-bios":
            assert rates(grub[:prompt])[-1] == 57600 and set(rates(grub[prompt:])) <= {57600}, grub
            assert "19200" not in grub
        else:
            at19200 = grub.index("linerate: press ESC or F4 now for GRUB's menu at 19200 baud")
            assert rates(grub[:prompt])[-1] == 57600 and rates(grub[:at19200])[-1] == 19200, grub
            assert set(rates(grub[prompt:at19200])) <= {57600, 19200}, grub
            assert rates(grub)[-1] == 115200, grub
        # Ctrl-N: the second entry (a down arrow is ESC [ B, which OVMF may take)
        q.send("\x0e")
        time.sleep(0.5)
        if boot == "iso-bios":
            q.send("e")
            q.expect(r"multiboot2 /boot/linerate\.elf console=ttyS1,\$\{serial_speed\}", 30)
            time.sleep(0.5)
            # the editor's lines: setparams, an empty one, multiboot2, boot. Ctrl-N: the
            # next line, Ctrl-E: its end, Ctrl-A: its start. The screen as a console too;
            # gfxpayload after multiboot2, which sets it from the kernel's header
            q.send("\x0e\x0e\x05 console=tty0")
            time.sleep(0.5)
            q.send("\x0e\x01set gfxpayload=800x600x16\r")
            time.sleep(0.5)
            q.send("\x18")   # Ctrl-X: boot the edited entry
        else:
            q.send("\r")
        q.expect(PROMPT, 90)
        text = q.text()
        tty0 = " console=tty0" if boot == "iso-bios" else ""
        assert f'boot: path multiboot2, cmdline "console=ttyS1,{speed}{tty0}"' in text
        com2 = f"console: ttyS1 0x2f8 {speed} 8N1 (from console=)"
        if boot == "iso-bios":
            assert console_lines(text) == [
                "console: tty0 is not used: a framebuffer of 16 bits a pixel (5:6:5) is not supported "
                "(24 or 32, 8 bits a colour)", com2]
            assert screen.lit_pixels(q) == 0
        else:
            assert console_lines(text) == [com2]
        assert rates(text)[-1] == speed
        assert re.match(r"linerate 0\.1\.0 \(", q.shell("version"))


def test_stalled_console_drops_and_counts():
    """COM2's peer connects and never reads (a Serial-over-LAN session gone
    away): QEMU's 16550 then keeps THRE clear. The boot, the statistics and
    the shell go on on COM1; what COM2 could not take is dropped and counted,
    and the `console` command says it is stalled."""
    sock = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"linerate-stall-{os.getpid()}.sock")
    with Qemu(boot="kernel", append="console=ttyS0 console=ttyS1",
              extra=["-serial", f"unix:{sock},server=on,wait=off"]) as q:
        peer = None
        for _ in range(100):
            try:
                peer = socket.socket(socket.AF_UNIX)
                peer.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                peer.connect(sock)
                break
            except OSError:
                peer.close()
                time.sleep(0.1)
        try:
            q.expect(READY)
            q.expect(r"stats at \d+\.\d+ s")
            q.expect(r"stats at \d+\.\d+ s")
            q.expect(PROMPT, 10)    # redrawn on COM1 after the report, COM2 stuck or not
            out = q.shell("console")
            lines = out.splitlines()
            assert re.fullmatch(r"ttyS0,115200n8 +sent \d+, dropped 0, waiting 0 of 4096 bytes", lines[0]), out
            m = re.fullmatch(r"ttyS1,115200n8 +sent (\d+), dropped (\d+), waiting \d+ of 4096 bytes, stalled",
                             lines[1])
            assert m and int(m.group(2)) > 0, out
            assert len(lines) == 2
        finally:
            peer.close()
            os.unlink(sock)
