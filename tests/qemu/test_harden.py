"""Hardening (issue 31): each protection ends a broken kernel in its report
and QEMU exit status 35 (EXIT_FAIL), never a hang or a silent reboot. The
faults come from the shell's `fault` command of the test image
build/linerate-fault.elf (tests/fault/fault.c):
  wtext   a write to the kernel's text: #PF, error code 0x3 (present, write)
  xheap   a call into the heap: #PF, error code 0x11 (present, fetch)
  stack   recursion through core 0's stack into its guard page: #DF on
          its own stack, CR2 named `stack guard of core 0`; `stack 1` the
          same on core 1, from an interrupt handler there
  canary  an overrun of a local array: __stack_chk_fail's report
docs/hardening.md describes each protection."""
import os
import re
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from qemurun import EXIT_FAIL, Qemu  # noqa: E402

PROMPT = "linerate> "
PROTECT = ("protect: W^X (kernel text read-only, all else no-execute), CR0.WP, guard pages under every stack, "
           "#DF/NMI/#MC on their own stacks, stack canary from ")


def fault(cmd):
    """Boot the test image on two cores, run `fault cmd`; the console from
    the command on, once QEMU has exited with EXIT_FAIL."""
    with Qemu(boot="kernel", mem="128M", smp=2, kernel="linerate-fault.elf") as q:
        q.expect(PROMPT, 60)
        q.send("fault %s\r" % cmd)
        assert q.wait(60) == EXIT_FAIL
        text = q.text()
    text = text.decode() if isinstance(text, bytes) else text
    assert PROTECT + "TSC\r\n" in text
    text = text[text.index("fault " + cmd):]
    assert text.rstrip().endswith("halted"), text
    return text


def hexes(text, name):
    return int(re.search(name + r" 0x([0-9a-f]{16})", text).group(1), 16)


def test_write_to_text_is_a_page_fault_named_kernel_text():
    text = fault("wtext")
    target = int(re.search(r"fault: writing to the kernel text at 0x([0-9a-f]+)", text).group(1), 16)
    assert "*** EXCEPTION 14 #PF page fault, error code 0x3, core 0\r\n" in text
    assert re.search(r"CR2 0x%016x \(kernel text\)  CR3 " % target, text), text


def test_call_into_heap_is_a_fetch_page_fault():
    text = fault("xheap")
    target = int(re.search(r"fault: calling the heap at 0x([0-9a-f]+)", text).group(1), 16)
    assert "*** EXCEPTION 14 #PF page fault, error code 0x11, core 0\r\n" in text
    assert hexes(text, "RIP") == target and hexes(text, "CR2") == target


@pytest.mark.parametrize("cmd,core", [("stack", 0), ("stack 1", 1)])
def test_stack_overflow_is_a_double_fault_in_the_guard_page(cmd, core):
    """On the shell's core, and on core 1 from the handler of an IPI sent to it."""
    text = fault(cmd)
    assert "fault: recursing, 1 KiB a call, into core %d's guard page" % core in text
    assert "*** EXCEPTION 8 #DF double fault, error code 0, core %d\r\n" % core in text
    assert re.search(r"CR2 0x[0-9a-f]{16} \(stack guard of core %d\)  CR3 " % core, text), text
    assert "did not fault" not in text
    frames = re.findall(r"^  0x[0-9a-f]{16}\r?$", text.split("backtrace")[1], re.M)
    assert len(frames) == 17, text    # the report's bound: the fault's RIP and 16 frames


def test_smashed_canary_is_reported():
    text = fault("canary")
    assert "fault: writing 64 bytes into a 16-byte local array" in text
    assert re.search(r"\*\*\* STACK SMASHED: canary overwritten in the function at 0x[0-9a-f]{16}, core 0\r\n",
                     text), text
    assert "  0x4141414141414141" in text    # the overrun's bytes where the return address was


@pytest.mark.parametrize("cpu,source", [(None, "TSC"), ("max", "RDRAND")])
def test_canary_source(cpu, source):
    with Qemu(boot="kernel", mem="128M", cpu=cpu, append="selftest=exit") as q:
        q.wait(60)
        text = q.text()
    text = text.decode() if isinstance(text, bytes) else text
    assert PROTECT + source + "\r\n" in text
