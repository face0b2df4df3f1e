"""tools/statplot.py on synthetic console logs: JSON reports to CSV rows,
labelled sweep steps and unlabelled reports to curves, and the two PNGs."""
import csv
import json
import os
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import statplot  # noqa: E402


def report(t_ms, rx_pps, irqs_per_s, cpu_pct, itr=3, dt_ms=1000, prompt=""):
    """One report as the kernel prints it with stats_format=json (run/stats.h)."""
    q = {"stats": "queue", "t_ms": t_ms, "dt_ms": dt_ms, "port": "port0", "queue": 0,
         "rx_packets": rx_pps * t_ms // 1000, "rx_bytes": 0, "tx_packets": 0, "tx_bytes": 0,
         "irqs": 0, "polls": 0, "rx_pps": rx_pps, "rx_bps": rx_pps * 480, "tx_pps": 0, "tx_bps": 0,
         "irqs_per_s": irqs_per_s,
         "pkts_per_irq": round(rx_pps / irqs_per_s, 2) if irqs_per_s else None,
         "polls_per_s": 0, "pkts_per_poll": None, "itr_setting": itr, "itr_ints_per_s": 20000}
    p = {"stats": "port", "t_ms": t_ms, "dt_ms": dt_ms, "port": "port0", "mtu": 1500, "rx_ok": 0}
    other = dict(q, port="port1", rx_pps=999999)
    c = {"stats": "core", "t_ms": t_ms, "dt_ms": dt_ms, "core": 0, "cpu_pct": cpu_pct,
         "processed": 7, "dropped": 0, "time_squeeze": 1}
    dumps = [json.dumps(o, separators=(",", ":")) for o in (p, q, other, c)]
    return [prompt + dumps[0]] + dumps[1:]


LABELLED = (
    ["linerate> set InterruptThrottleRate 1", "InterruptThrottleRate=1"]
    + report(1000, 0, 0, 0.1)
    + ['statplot: {"config": "InterruptThrottleRate=1", "offered_pps": 10000}']
    + report(2000, 10000, 2000, 10.0, itr=1) + report(3000, 10000, 3000, 20.0, itr=1)
    + ["statplot: {}"]
    + report(4000, 5000, 100, 50.0, itr=1)  # between steps: left out
    + ['statplot: {"config": "InterruptThrottleRate=1", "offered_pps": 20000}']
    + report(5000, 20000, 4000, 30.0, itr=1, prompt="linerate> ")
    + ["statplot: {}"]
    + ['statplot: {"config": "InterruptThrottleRate=0", "offered_pps": 10000}']
    + report(6000, 10000, 0, 100.0, itr=0)
    + ['{"stats":"queue","t_ms":7000,"dt_ms":1000,"port":"po']  # cut short
    + ["statplot: {}"]
)


def test_parse_rows():
    rows = statplot.parse(LABELLED)
    assert [(r["config"], r["offered_pps"], r["t_ms"]) for r in rows] == [
        ("InterruptThrottleRate=1", 10000, 2000), ("InterruptThrottleRate=1", 10000, 3000),
        ("InterruptThrottleRate=1", 20000, 5000), ("InterruptThrottleRate=0", 10000, 6000)]
    r = rows[0]
    assert (r["rx_pps"], r["irqs_per_s"], r["pkts_per_irq"], r["cpu_pct"]) == (10000, 2000, 5.0, 10.0)
    assert (r["port"], r["queue"], r["itr_setting"], r["time_squeeze"]) == ("port0", 0, 1, 1)
    assert rows[3]["pkts_per_irq"] is None


def test_curves_average_steps():
    c = statplot.curves(statplot.parse(LABELLED))
    assert list(c) == ["InterruptThrottleRate=0", "InterruptThrottleRate=1"]
    # 10 kpps step: CPU% is the mean over its two reports; packets per
    # interrupt is packets over interrupts (20000 / 5000), not a mean of ratios.
    assert c["InterruptThrottleRate=1"] == [(10000, 15.0, 4.0), (20000, 30.0, 5.0)]
    assert c["InterruptThrottleRate=0"] == [(10000, 100.0, None)]


def test_unlabelled_reports_are_points():
    lines = (report(1000, 0, 0, 0.5) + report(2000, 3000, 1000, 5.0)
             + report(3000, 1000, 1000, 2.0, itr=4))
    c = statplot.curves(statplot.parse(lines))
    assert c == {"InterruptThrottleRate=3": [(3000, 5.0, 3.0)],
                 "InterruptThrottleRate=4": [(1000, 2.0, 1.0)]}


def test_csv_and_plot_command(tmp_path):
    log = tmp_path / "console.log"
    log.write_text("\r\n".join(LABELLED) + "\r\n")
    out = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "statplot.py"), "plot",
                          str(log), "--outdir", str(tmp_path)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    pngs = [tmp_path / "plot_cpu.png", tmp_path / "plot_pkts_per_irq.png"]
    assert out.stdout.split() == [str(p) for p in pngs]
    for p in pngs:
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and p.stat().st_size > 5000
    with open(tmp_path / "plot.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 4 and rows[0]["config"] == "InterruptThrottleRate=1"
    assert rows[0]["cpu_pct"] == "10.0" and rows[3]["pkts_per_irq"] == ""


def test_no_reports_is_an_error(tmp_path):
    log = tmp_path / "empty.log"
    log.write_text("linerate> version\nlinerate 0.1.0\n")
    out = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "statplot.py"), "csv",
                          str(log)], capture_output=True, text=True)
    assert out.returncode == 1 and "no JSON reports for port0 queue 0 found" in out.stderr


def lat_line(port, n, buckets, prompt=""):
    o = {"stats": "pktgen", "kind": "lat", "port": port, "clock": "tsc", "n": n, "min_ns": buckets[0][0],
         "mean_ns": 5000, "p50_ns": 4000, "p90_ns": 9000, "p99_ns": 20000, "p999_ns": 30000,
         "max_ns": buckets[-1][1], "buckets": buckets}
    return prompt + json.dumps(o, separators=(",", ":"))


def test_latency_histogram_plot(tmp_path):
    old = lat_line("port1", 1, [[3968, 4095, 1]])
    new = lat_line("port1", 6, [[3968, 4095, 3], [8704, 9215, 2], [28672, 30719, 1]], prompt="linerate> ")
    other = lat_line("port0", 2, [[100, 103, 2]])
    lines = [old, "noise", new, other, '{"stats":"pktgen","kind":"lat","port":"port1"']  # last one cut
    h = statplot.lat_hist(lines, "port1")
    assert h["n"] == 6 and sum(b[2] for b in h["buckets"]) == 6
    log = tmp_path / "console.log"
    log.write_text("\r\n".join(lines) + "\r\n")
    png = tmp_path / "lat.png"
    out = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "statplot.py"), "lat", str(log),
                          "--port", "port1", "-o", str(png)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "port1: n 6 p50 4000 p90 9000 p99 20000 p99.9 30000 max 30719 ns; 3 buckets" in out.stdout
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
    out = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "statplot.py"), "lat", str(log),
                          "--port", "port3", "-o", str(png)], capture_output=True, text=True)
    assert out.returncode == 1 and "no pktgen latency histogram of port3" in out.stderr
