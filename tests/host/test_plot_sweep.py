"""make plot's sweep (tools/statplot.py sweep) on a short schedule against
a real guest, and a sweep whose QEMU dies mid-way: the steps measured
before it are kept (plot.csv, plot.log, both PNGs) and the message says
what happened and what to lower."""
import csv
import os
import signal
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import qemurun  # noqa: E402
import statplot  # noqa: E402

PNGS = ("plot_cpu.png", "plot_pkts_per_irq.png")


def steps(outdir):
    """[(config, offered_pps)] of plot.csv's rows, in order."""
    with open(os.path.join(outdir, "plot.csv")) as f:
        return [(r["config"], int(r["offered_pps"])) for r in csv.DictReader(f)]


def test_short_sweep_measures_every_step(tmp_path):
    r = subprocess.run([os.path.join(ROOT, "tools", "statplot.py"), "sweep", "--itr", "0,3",
                        "--rates", "5k,10k", "--reports", "1", "--outdir", str(tmp_path)],
                       capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, r.stderr
    assert steps(tmp_path) == [("InterruptThrottleRate=0", 5000), ("InterruptThrottleRate=0", 10000),
                               ("InterruptThrottleRate=3", 5000), ("InterruptThrottleRate=3", 10000)]
    for png in PNGS:
        assert (tmp_path / png).read_bytes()[:4] == b"\x89PNG"


class DiesAtThirdStep(qemurun.Qemu):
    """A guest whose QEMU is killed while the third step's first report is
    awaited (each step awaits three: sending began, the report, the drain)."""
    reports = 0

    def expect(self, pattern, timeout=30):
        if b'"stats":"core"' in (pattern if isinstance(pattern, bytes) else pattern.encode()):
            self.reports += 1
            if self.reports == 8:
                self.proc.send_signal(signal.SIGKILL)
                self.proc.wait()
        return super().expect(pattern, timeout)


def test_sweep_keeps_the_steps_before_qemu_died(tmp_path, monkeypatch):
    monkeypatch.setattr(statplot, "Qemu", DiesAtThirdStep)
    monkeypatch.setattr(sys, "argv", ["statplot.py", "sweep", "--itr", "0", "--rates", "5k,10k,20k",
                                      "--reports", "1", "--outdir", str(tmp_path)])
    with pytest.raises(SystemExit) as e:
        statplot.main()
    assert str(e.value) == (f"statplot: QEMU exited (-9) at InterruptThrottleRate=0, 20000 pps: kept the 2 "
                            f"steps measured before it in {tmp_path} (plot.csv, plot.log, the PNGs); "
                            "QEMU crashes when a step overloads the guest: lower --rates (or --itr)")
    assert steps(tmp_path) == [("InterruptThrottleRate=0", 5000), ("InterruptThrottleRate=0", 10000)]
    assert (tmp_path / "plot.log").read_text().count('statplot: {"config"') == 2
    for png in PNGS:
        assert (tmp_path / png).read_bytes()[:4] == b"\x89PNG"
