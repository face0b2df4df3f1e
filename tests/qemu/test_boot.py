"""Boot tests: every boot path reaches ready with a consistent boot report;
machines, memory sizes and CPU counts; the fault report; command-line errors;
the serial shell."""
import os
import re
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import gendocs  # noqa: E402
from qemurun import BUILD, EXIT_FAIL, EXIT_OK, Qemu  # noqa: E402
sys.path.insert(0, os.path.dirname(__file__))
import screen  # noqa: E402

READY = r"linerate: ready in (\d+) us"
PROMPT = "linerate> "


def boot_report(q, timeout=60):
    """Wait for ready; return the console text up to it."""
    q.expect(READY, timeout)
    return q.text()


def usable_bytes(text):
    m = re.search(r"memory: (\d+) bytes \([\d.]+ [MG]iB\) usable in (\d+) regions", text)
    assert m, text
    return int(m.group(1))


def region_usable_bytes(text):
    total = 0
    for a, b in re.findall(r"\[0x([0-9a-f]+)-0x([0-9a-f]+)\] usable", text):
        total += int(b, 16) + 1 - int(a, 16)
    return total


def check_report(text, path, cpus, mem_mib, ecam):
    assert f"boot: path {path}," in text
    assert re.search(r"cpu: .*TSC \d+\.\d{3} MHz \((CPUID 0x15|PIT channel 2, >= 2 ms)", text)
    usable = usable_bytes(text)
    # The report's total is the sum of its usable regions, and fits the guest's RAM
    # less the first MiB, the kernel image and firmware reservations.
    assert usable == region_usable_bytes(text)
    assert (mem_mib - 12) * 2**20 < usable < mem_mib * 2**20
    assert f"acpi: MADT {cpus} CPU(s), APIC IDs {' '.join(str(i) for i in range(cpus))};" in text
    assert re.search(r"acpi: RSDP 0x[0-9a-f]+ rev \d", text)
    if ecam:
        assert "acpi: MCFG ECAM 0xb0000000 segment 0 buses 0-255" in text
    else:
        assert "acpi: no MCFG" in text
    assert re.search(r"boot time \(us\): to C \d+, memory \d+, cmdline \d+, acpi \d+, tsc \d+, "
                     r"lapic \d+, pci \d+, smp \d+, rest \d+", text)


@pytest.mark.parametrize("machine", ["q35", "pc"])
def test_kernel_pvh(machine):
    with Qemu(boot="kernel", machine=machine, mem="128M", append="selftest=exit") as q:
        text = boot_report(q)
        assert q.wait() == EXIT_OK
    check_report(text, "pvh", 1, 128, ecam=machine == "q35")
    assert 'cmdline "selftest=exit"' in text


def test_cores_knob_limits_cores():
    with Qemu(boot="kernel", mem="128M", smp=4, append="cores=2 selftest=exit") as q:
        text = boot_report(q)
        assert q.wait() == EXIT_OK
    assert "smp: 2 core(s) running (MADT lists 4)" in text, text


def test_six_gib_two_cpus_cpu_max():
    """-cpu max offers x2APIC; the bare word nox2apic (Linux's) keeps the
    LAPICs in xAPIC mode, leaving x2APIC after the TSC calibration, and
    both cores come up (test_lcore covers x2APIC with two cores)."""
    with Qemu(boot="kernel", mem="6G", smp=2, cpu="max", append="selftest=exit nox2apic") as q:
        text = boot_report(q)
        assert q.wait() == EXIT_OK
    check_report(text, "pvh", 2, 6144, ecam=True)
    # QEMU's MADT: one Local APIC NMI entry, all processors, LINT1
    assert re.search(r"^lapic: 0xfee00000, xAPIC \(MMIO, nox2apic\), timer 100 Hz on vector 0xf0, NMI on LINT1\r?$",
                     text, re.M), text
    m = re.search(r"memory: above 4 GiB: page 0x([0-9a-f]+) written and read back", text)
    assert m and int(m.group(1), 16) >= 2**32
    assert re.search(r"smp: 2 core\(s\) running \(MADT lists 2\), TSC [^:]*: core0 apic 0 skew 0\+-0 "
                     r"core1 apic 1 skew -?\d+\+-\d+ \(ns\)", text), text
    assert re.search(r"identity-mapped to 0x2[0-9a-f]{8}\b", text)


@pytest.mark.parametrize("fault,name,extra", [
    ("pagefault", "14 #PF page fault", "CR2 0x0000700000000000"),
    ("divzero", "0 #DE divide error", "RIP 0x"),
    ("ud", "6 #UD invalid opcode", "RIP 0x"),
    ("gp", "13 #GP general protection", "RIP 0x"),
])
def test_fault_report(fault, name, extra):
    with Qemu(boot="kernel", append=f"selftest={fault}") as q:
        q.expect(READY)
        q.expect(rf"\*\*\* EXCEPTION {name}, error code 0x[0-9a-f]+|\*\*\* EXCEPTION {name}, error code 0")
        assert q.wait() == EXIT_FAIL
        text = q.text()
    assert extra in text
    for reg in ("RAX", "RBX", "RCX", "RDX", "RSI", "RDI", "RBP", "R8 ", "R15", "RFLAGS", "CR3"):
        assert reg in text
    frames = re.findall(r"^  0x[0-9a-f]{16}\r?$", text.split("backtrace")[1], re.M)
    assert len(frames) >= 2, text
    assert text.rstrip().endswith("halted")


# Other modules register knobs too: the list of names is matched loosely.
KNOBS = r"\(accepted: (\S+= )*selftest=( \S+=)*\)"


@pytest.mark.parametrize("line,errors", [
    ("selftest=bogus", [r"cmdline: bad value 'bogus' for selftest= "
                        r"\(accepted: none\|exit\|pagefault\|divzero\|ud\|gp\)",
                        r"cmdline: 1 word refused \(selftest\): defaults kept \(messages above\)"]),
    ("selftest= foo NoSuchKnob=3 selftest=exit", [
        r"cmdline: selftest= given more than once, ignoring '' \(the default stays\)",
        r"cmdline: 'foo' is not key=value " + KNOBS,
        r"cmdline: unknown knob 'NoSuchKnob' " + KNOBS,
        r"cmdline: selftest= given more than once, ignoring 'exit' \(the default stays\)",
        r"cmdline: 4 words refused \(selftest foo NoSuchKnob selftest\): defaults kept \(messages above\)"]),
    ("IntMode=3 irqtest=2", [
        r"cmdline: bad value '3' for IntMode= \(accepted: 0-2\)",
        r"cmdline: bad value '2' for irqtest= \(accepted: 0-1\)",
        r"cmdline: 2 words refused \(IntMode irqtest\): defaults kept \(messages above\)"]),
    ("interruptthrottlerate=1 stats=2x", [
        r"cmdline: unknown knob 'interruptthrottlerate'; did you mean InterruptThrottleRate\? " + KNOBS,
        r"cmdline: bad value '2x' for stats= \(accepted: 0-3600\)",
        r"cmdline: 2 words refused \(interruptthrottlerate stats\): defaults kept \(messages above\)"]),
    ("mgmt_allow=10.5.0.1/24,10.0.0.0/8", [
        r"cmdline: bad value '10.5.0.1/24,10.0.0.0/8' for mgmt_allow= \(host bits set in prefix 1; accepted: any, "
        r"or up to 16 prefixes A.B.C.D/LEN \(host bits zero\) split by commas\)",
        r"cmdline: 1 word refused \(mgmt_allow\): defaults kept \(messages above\)"]),
])
def test_malformed_cmdline_reported(line, errors):
    with Qemu(boot="kernel", append=line) as q:
        q.expect(READY)
        q.expect(PROMPT)
        text = q.text()
    got = re.findall(r"^cmdline: .*?(?=\r?$)", text, re.M)
    assert len(got) == len(errors), got
    # the summary is the last line before the first prompt
    assert text.split(PROMPT)[0].rstrip("\r\n").endswith(got[-1])
    for want, line in zip(errors, got):
        assert re.fullmatch(want, line), (want, line)
    if "NoSuchKnob" in text:
        for name in ("IntMode=", "irqtest="):
            assert name in got[-3]


def test_docs_knob_table_words_accepted_forms_as_the_console():
    """docs/knobs.md's accepted forms (tools/gendocs.py) are the ones the
    console prints for a bad value, for every integer and choice knob."""
    knobs = [k for k in gendocs.read_image(os.path.join(BUILD, "linerate.elf"))["knobs"]
             if k["type"] in (0, 1) and k["name"] != "selftest"]
    with Qemu(boot="kernel", append=" ".join(k["name"] + "=@" for k in knobs) + " selftest=exit") as q:
        q.expect(READY)
        assert q.wait() == EXIT_OK
        got = dict(re.findall(r"^cmdline: bad value '@' for (\w+)= \(accepted: (.*)\)\r?$", q.text(), re.M))
    assert len(got) == len(knobs), got
    for k in knobs:
        per_port = ", or one per port: V,V,... (up to 8)" if k["per_port"] else ""
        assert got[k["name"]] == gendocs.accepted(k) + per_port, k["name"]


def test_shell_commands_and_bad_input():
    with Qemu(boot="kernel") as q:
        q.expect(PROMPT)
        assert re.match(r"linerate 0\.1\.0 \(", q.shell("version"))
        assert re.match(r"up \d+\.\d{3} s \(\d+ timer ticks at 100 Hz\)", q.shell("uptime"))
        out = q.shell("mem")
        assert re.search(r"usable [\d.]+ MiB, free pages \d+ \([\d.]+ MiB\), heap", out)
        out = q.shell("help")
        for cmd in ("help", "version", "uptime", "mem", "reboot", "lspci", "irq", "quit", "exit"):
            assert re.search(rf"^  {cmd}\s", out, re.M), out
        assert q.shell("help uptime") == "  uptime                   time since boot\r\n"
        assert q.shell("help pktgen").startswith("  pktgen [start|stop [port] | set <knob> <value>")
        assert re.fullmatch(r"help: no command 'frob'; commands:( \w+)+\r\n", q.shell("help frob"))
        assert q.shell("help a b") == "usage: help [command]\r\n"
        for cmd in ("quit", "exit"):
            assert q.shell(cmd) == (f"{cmd}: the appliance runs until it is switched off; `reboot` resets it. "
                                    "Under QEMU, Ctrl-A X quits QEMU (Ctrl-A C: its monitor)\r\n")
        out = q.shell("frobnicate now")
        assert "unknown command 'frobnicate'; commands:" in out and " reboot" in out
        assert "usage: version (no arguments)" in q.shell("version extra")
        # Binary garbage and control bytes are dropped, not echoed or run.
        q.send(bytes(range(0x80, 0x100)) + b"\x01\x02\x05\x07\x0b")
        assert re.match(r"linerate 0\.1\.0", q.shell("version"))
        # An over-long line rings the bell past 128 bytes and is not run.
        q.send("x" * 300 + "\r")
        # (The boot's "link up" may come while it is typed: that redraws the prompt.)
        m = q.expect(r"\a\r\n([^\r]*)\r\n" + re.escape(PROMPT))
        assert m.group(1) == b"line longer than 128 bytes (172 more): not run"
        assert re.match(r"up \d", q.shell("uptime"))


def test_reboot_command():
    # -no-reboot turns the guest's reset into a QEMU exit with status 0.
    with Qemu(boot="kernel") as q:
        q.expect(PROMPT)
        q.send("reboot\r")
        q.expect("rebooting")
        assert q.wait() == 0


def grub_boot(q):
    """Take GRUB's default entry at once instead of waiting for its timeout."""
    q.expect("linerate: serial shell", 60)
    q.send("\r")


@pytest.mark.parametrize("boot,machine", [("iso-bios", "pc"), ("iso-bios", "q35"), ("iso-uefi", "q35")])
def test_iso(boot, machine):
    """GRUB's framebuffer (the kernel's Multiboot2 header asks for one) is
    the screen console beside COM1; on BIOS q35 it is read back and typed
    on (tests/qemu/screen.py)."""
    with Qemu(boot=boot, machine=machine, mem="256M") as q:
        q.expect("linerate: serial shell", 60)
        # the entries of the usual first boots, drawn after the console ones
        for entry in ("fwd, L2 between port0 and port1 (app=fwd)",
                      "pktgen on port0, sink on port1 (app=pktgen,sink)",
                      "pktgen on every port (app=pktgen)"):
            q.expect(re.escape("linerate: " + entry), 30)
        if boot == "iso-uefi":
            # GRUB's menu on COM1 is its own ASCII only: the firmware's copy
            # of its console (CP437 frame bytes) stays off the line, and
            # the screen shows the menu through gfxterm (boot/serial.cfg);
            # the firmware's copy came after GRUB's own, before a countdown
            q.expect(r"automatically in 2s", 30)
            assert not re.search(rb"[\x80-\xff]", q.out), q.out[-2000:]
            assert screen.lit_pixels(q) > 10000   # the menu (about 25,000 at 800x600)
        q.send("\r")
        text = boot_report(q, 90)
        assert re.search(screen.FB_LINE.format("Multiboot2 framebuffer tag"), text), text
        if (boot, machine) == ("iso-bios", "q35"):
            q.expect(PROMPT)
            q.shell("set stats 0")
            screen.check_screen_and_keyboard(q, None)
    check_report(text, "multiboot2", 1, 256, ecam=machine == "q35")
    assert 'cmdline ""' in text


def test_efi_app():
    """The GOP's framebuffer, which the EFI loader passes on, is the screen
    console beside COM1: read back and typed on (tests/qemu/screen.py)."""
    with Qemu(boot="efi", mem="256M") as q:
        text = boot_report(q, 90)
        assert re.search(screen.FB_LINE.format("UEFI GOP"), text), text
        q.expect(PROMPT)
        q.shell("set stats 0")
        screen.check_screen_and_keyboard(q, None)
    check_report(text, "uefi", 1, 256, ecam=True)
    assert "(boot info)" in text


def test_efi_load_options_and_initrd():
    """The EFI shell's arguments are the command line; initrd=PATH (Linux's
    EFI stub option) is the loader's: it reads the file from the ESP as the
    boot module, which the kernel keeps out of its allocator and replay
    reads (the capture's 54 frames), and the word is not passed on."""
    pcap = os.path.join(os.path.dirname(__file__), "..", "unit", "data", "ptp4l-l2-e2e-twostep.pcap")
    size = os.path.getsize(pcap)
    with Qemu(boot="efi", mem="256M", nics=["e1000e:netdev=stream"], esp_files=[pcap],
              append="stats=0 app=replay replay_start=shell initrd=/ptp4l-l2-e2e-twostep.pcap") as q:
        q.expect("startup.nsh", 90)
        q.send("\r")
        q.expect(r"replay: pcap of 54 frames, 3432 bytes", 90)
        text = q.text()
    assert re.search(r"linerate: initrd \\ptp4l-l2-e2e-twostep\.pcap: %d bytes at 0x([0-9A-F]+)\r?$" % size, text, re.M), text
    assert 'boot: path uefi, cmdline "stats=0 app=replay replay_start=shell"' in text
    assert re.search(r"boot: module of %d bytes at 0x[0-9a-f]+ \(reserved\)" % size, text), text


def test_no_port_names_the_controllers_without_driver():
    """No port comes up: the boot says which Ethernet controllers have no
    driver (an RTL8139 here), with the drivers there are; without any,
    that there is none."""
    with Qemu(boot="kernel", extra=["-device", "rtl8139,addr=0x5"]) as q:
        q.expect(PROMPT)
        text = q.text()
    assert re.search(r"^ports: none: the Ethernet controllers 00:05\.0 \[10ec:8139\] have no driver here "
                     r"\(drivers: (e1000e?|igb|ixgbe|virtio_net)( (e1000e?|igb|ixgbe|virtio_net)){4}\)\r$", text, re.M), text[-1500:]
    with Qemu(boot="kernel") as q:
        q.expect(PROMPT)
        text = q.text()
    assert "ports: none: no Ethernet controller found (QEMU: --nic e1000, e1000e, igb or virtio-net-pci)\r\n" in text


def test_prompt_comes_back_after_a_message():
    """A console message while nothing is typed takes the prompt's line,
    and the prompt is printed again after it (stats=1: the report)."""
    with Qemu(boot="kernel", append="stats=1") as q:
        q.expect(PROMPT)
        q.expect(r"(?s)" + re.escape("\r\x1b[Kstats at ") + r".*?time_squeeze\r\n\d+ +[\d.]+ +\d+ +\d+ +\d+\r\n"
                 + re.escape(PROMPT), 10)
