#!/usr/bin/python3
"""What the consoles cost (make bench), in guest instructions
counted by QEMU's insncount TCG plugin (as tools/bench_insn.py counts them):
1. The periodic statistics report on a 115200-baud serial console (a
   report a second, buffered and sent 16 bytes a millisecond): an idle box
   with two e1000e ports, stats=0 against stats=1, 8 s each: the
   instructions a second more, per report; then whether any frame waited while core 0
   forwards (e1000e L2, app=fwd, napi, trafgen into port0 at 20 kpps for
   8 s, stats=1): frames lost (trafgen), rx_missed_errors and
   rx_no_buffer_count on port0. (Against stats=0 under traffic the figure
   drowns in how many frames each interrupt finds, which the host's load
   moves.)
2. The screen (console=tty0, VGA text mode) beside COM1: an idle box with
   stats=1, whose report goes to every console, with and without tty0;
   the instructions a second more per line of report (a scroll each).
Prints figures; never fails.
Usage: bench_console.py"""
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_insn import insns_at, plugin  # noqa: E402
from benchcsv import save  # noqa: E402
from qemurun import BUILD, Qemu  # noqa: E402
from usage import help_exit  # noqa: E402

RATE = "20kpps"
WINDOW = 8.0
PROMPT = "linerate> "


def log_path(name):
    path = os.path.join(BUILD, "bench", f"console-{name}.log")
    if os.path.exists(path):
        os.remove(path)
    return path


def counter(q, name):
    m = re.search(rf"{name}: (\d+)", q.shell("ethtool -S port0"))
    return int(m.group(1)) if m else 0


def report_run(so, stats):
    """(instructions a second, trafgen's result, missed + no-buffer frames)
    of a forwarding run."""
    log = log_path(f"report-{stats}")
    q = Qemu(boot="kernel", mem="256M", nics=["e1000e:netdev=stream"] * 2,
             append=f"app=fwd pairs=0-1 promisc=1 poll=napi stats={stats}",
             extra=["-plugin", f"{so},period_ms=20,log={log}"])
    with q:
        q.expect("port1: link up", 60)
        q.send("\r")
        q.expect(PROMPT, 30)
        missed0 = counter(q, "rx_missed_errors") + counter(q, "rx_no_buffer_count")
        tg = subprocess.Popen([os.path.join(BUILD, "trafgen"), "both", "--port", "stream:" + q.nic_sock(0),
                               "--port", "stream:" + q.nic_sock(1), "--rate", RATE, "--size", "64",
                               "--duration", str(WINDOW + 2), "--quiet", "--max-time", str(WINDOW + 60)],
                              stdout=subprocess.PIPE, text=True)
        end = time.monotonic() + 1
        while time.monotonic() < end:
            q._read(0.1)
        t0 = time.monotonic_ns()
        end = time.monotonic() + WINDOW
        while time.monotonic() < end:
            q._read(0.1)
        t1 = time.monotonic_ns()
        out, _ = tg.communicate(timeout=120)
        res = json.loads(out.split("RESULT ", 1)[1])
        missed = counter(q, "rx_missed_errors") + counter(q, "rx_no_buffer_count") - missed0
    per_s = (insns_at(log, t1) - insns_at(log, t0)) / ((t1 - t0) / 1e9)
    return per_s, res, missed


def idle_run(so, stats, tty0):
    """(instructions, report lines, reports: each a second) of an idle box with
    two e1000e ports, with or without the screen beside COM1: the periodic
    report goes to every console."""
    log = log_path(f"idle-{stats}-{tty0}")
    q = Qemu(boot="kernel", mem="256M", nics=["e1000e:netdev=stream"] * 2,
             append=f"poll=napi stats={stats}" + (" console=ttyS0 console=tty0" if tty0 else ""),
             extra=["-plugin", f"{so},period_ms=20,log={log}", "-vga", "std"])
    with q:
        q.expect(PROMPT, 60)
        for _ in range(2 if stats else 0):
            q.expect(r"stats at \d+", 30)
        time.sleep(0 if stats else 2)
        start, t0 = len(q.out), time.monotonic_ns()
        end = time.monotonic() + WINDOW
        while time.monotonic() < end:
            q._read(0.1)
        t1 = time.monotonic_ns()
        lines = q.out[start:].count(b"\n")
        reports = q.out[start:].count(b"stats at ")
    s = (t1 - t0) / 1e9
    return (insns_at(log, t1) - insns_at(log, t0)) / s, lines / s, reports / s


def main():
    help_exit(__doc__)
    so = plugin()
    if not so:
        print("\nconsole cost: skipped (no QEMU plugin: make insncount)")
        return
    os.makedirs(os.path.join(BUILD, "bench"), exist_ok=True)
    quiet, _, _ = idle_run(so, 0, False)
    loud, n, reports = idle_run(so, 1, False)
    drawn, m, _ = idle_run(so, 1, True)
    _, res, missed = report_run(so, 1)
    per_line = (drawn - loud) / m if m else float("nan")
    print(f"\nThe periodic report (stats=1, two e1000e ports, {n:.1f} lines a second) on COM1, 115200 baud "
          f"(insncount): {(loud - quiet) / reports:,.0f} instructions a report ({quiet:,.0f} a second idle "
          f"with stats=0, {loud:,.0f} with stats=1, {reports:.2f} reports a second); while the core forwards 64-byte frames at {RATE}, frames that waited: "
          f"lost {res.get('lost')}, rx_missed + rx_no_buffer {missed}")
    print(f"The screen (VGA text, console=tty0 beside COM1): {per_line:,.0f} instructions more a line "
          f"of the report ({drawn:,.0f} instructions a second)")
    save("console.csv", [{"report_insns": round((loud - quiet) / reports), "stats0_insns_s": round(quiet),
                          "stats1_insns_s": round(loud), "lost": res.get("lost"), "missed": missed,
                          "screen_insns_per_line": round(per_line), "screen_lines_s": round(m, 1)}])


if __name__ == "__main__":
    main()
