#!/usr/bin/python3
"""Turn linerate's JSON statistics (stats_format=json) into CSV and draw the
two graphs of the coalescing field report (docs/field-reports.md): CPU% against offered load, and received packets
per interrupt against offered load, one curve per configuration.

    statplot.py csv LOG [-o out.csv]          console log -> CSV
    statplot.py csv --socket PATH --seconds N live QEMU serial socket -> CSV
    statplot.py plot LOG [--outdir DIR]       CSV + the two PNGs
    statplot.py sweep [--outdir DIR]          boot QEMU, offer load with
                                              build/trafgen, log, CSV, PNGs
    statplot.py lat LOG [--port P] [-o PNG]   pktgen's latency histogram (the
                                              last {"stats":"pktgen","kind":"lat"}
                                              line of port P) as a bar chart
    statplot.py rfc2544 LOG [--outdir DIR]    `pktgen rfc2544 ... format=json`'s
                                              results: throughput and latency
                                              against frame size, frame loss
                                              against offered load (PNGs)

A log is the console text; the JSON objects (run/stats.h) may follow a
prompt on the same line. Lines `statplot: {"config": ..., "offered_pps": ...}`
(written by `sweep`) label the reports after them, `statplot: {}` ends a
label; in a labelled log, reports outside labels are left out. Without
labels every report that received something is a point at its measured
receive rate, with one curve per InterruptThrottleRate setting.
"""
import argparse
import csv
import json
import os
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qemurun import Qemu  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build")
MARK = "statplot: "
# QEMU 10.0.2 dies (SIGSEGV) when a -netdev stream client disconnects while
# frames it sent are still queued: trafgen at the end of a step that
# overloaded the guest (README, Graphs).
HINT = "QEMU crashes when a step overloads the guest: lower --rates (or --itr)"
FIELDS = ["config", "offered_pps", "t_ms", "dt_ms", "port", "queue", "rx_pps", "rx_bps",
          "tx_pps", "tx_bps", "irqs_per_s", "pkts_per_irq", "polls_per_s", "pkts_per_poll",
          "itr_setting", "itr_ints_per_s", "cpu_pct", "processed", "dropped", "time_squeeze"]


def parse(lines, port="port0", queue=0, core=0):
    """CSV rows from console lines: one per report, for one port's queue,
    with the core's CPU% and softnet counters and the label in force."""
    label = {} if any(line.startswith(MARK) for line in lines) else None
    rows, pending = [], {}
    for line in lines:
        if line.startswith(MARK):
            label = json.loads(line[len(MARK):])
            continue
        if label == {}:
            continue  # between labelled steps
        at = line.find('{"stats":')
        if at < 0:
            continue
        try:
            o = json.loads(line[at:].strip())
        except ValueError:
            continue  # a line cut short (the log began or ended mid-line)
        if o["stats"] == "queue" and o["port"] == port and o["queue"] == queue:
            pending = dict(o, config=(label or {}).get("config"),
                           offered_pps=(label or {}).get("offered_pps"))
        elif o["stats"] == "core" and o["core"] == core and pending.get("t_ms") == o["t_ms"]:
            pending.update(cpu_pct=o["cpu_pct"], processed=o["processed"], dropped=o["dropped"],
                           time_squeeze=o["time_squeeze"])
            if pending["config"] is None:
                pending["config"] = f"InterruptThrottleRate={pending['itr_setting']}"
            rows.append({k: pending.get(k) for k in FIELDS})
            pending = {}
    return rows


def write_csv(rows, path):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        w.writeheader()
        w.writerows(rows)


def read_socket(path, seconds):
    """Console lines from a QEMU serial unix socket (-serial unix:PATH,server=on)
    for the given number of seconds."""
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    data, end = b"", time.monotonic() + seconds
    while time.monotonic() < end:
        s.settimeout(max(0.01, end - time.monotonic()))
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            break
        if not chunk:
            break
        data += chunk
    s.close()
    return data.decode(errors="replace").splitlines()


def curves(rows):
    """{config: [(offered_pps, cpu_pct, pkts_per_irq or None)]} sorted by load.
    Labelled steps average their reports (packets per interrupt as a ratio
    of sums); unlabelled reports are points at their measured rx_pps."""
    steps = {}
    for r in rows:
        if r["offered_pps"] is None and not r["rx_pps"]:
            continue
        key = (r["config"], r["offered_pps"] if r["offered_pps"] is not None else r["rx_pps"],
               None if r["offered_pps"] is not None else r["t_ms"])
        steps.setdefault(key, []).append(r)
    out = {}
    for (config, load, _), rs in steps.items():
        dt = sum(r["dt_ms"] for r in rs)
        cpu = sum(r["cpu_pct"] * r["dt_ms"] for r in rs) / dt if dt else 0.0
        pkts = sum(r["rx_pps"] * r["dt_ms"] for r in rs)
        irqs = sum(r["irqs_per_s"] * r["dt_ms"] for r in rs)
        out.setdefault(config, []).append((load, cpu, pkts / irqs if irqs else None))
    return {c: sorted(v) for c, v in sorted(out.items())}


def plot(rows, outdir, title=""):
    """Write outdir/plot_cpu.png and outdir/plot_pkts_per_irq.png; return their paths."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    cs = curves(rows)
    paths = []
    for name, col, ylabel in (("plot_cpu.png", 1, "CPU % (TSC cycles outside hlt)"),
                              ("plot_pkts_per_irq.png", 2, "received packets per interrupt")):
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for config, pts in cs.items():
            pts = [(p[0] / 1000, p[col]) for p in pts if p[col] is not None]
            if pts:
                ax.plot(*zip(*pts), marker="o", label=config)
        ax.set_xlabel("offered load (kpps)")
        ax.set_ylabel(ylabel)
        ax.set_title(f"{ylabel} against offered load{title}", fontsize=10)
        ax.grid(True, alpha=0.3)
        ax.set_ylim(bottom=0)
        if ax.lines:
            ax.legend()
        fig.tight_layout()
        path = os.path.join(outdir, name)
        fig.savefig(path, dpi=100)
        plt.close(fig)
        paths.append(path)
    return paths


def labelled(out, marks):
    """Console lines of out (bytes) with each (offset, label) of marks
    written as a `statplot: {...}` line at its offset."""
    text, last = [], 0
    for pos, label in marks:
        text.append(out[last:pos].decode(errors="replace"))
        text.append(MARK + json.dumps(label) + "\n")
        last = pos
    text.append(out[last:].decode(errors="replace"))
    return "".join(text).splitlines()


def keep(lines, outdir):
    """Write outdir/plot.log and outdir/plot.csv from a sweep's lines; return the rows."""
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "plot.log"), "w") as f:
        f.write("\n".join(lines) + "\n")
    rows = parse(lines)
    write_csv(rows, os.path.join(outdir, "plot.csv"))
    return rows


def sweep(a):
    """Boot the appliance (sink app, poll=napi, JSON every second), then for
    each InterruptThrottleRate and offered load run build/trafgen into port
    0 and label the reports taken under that load; plot.log and plot.csv
    are rewritten after each step. Returns the labelled console lines and
    None, or, when QEMU died or stopped reporting, the lines of the steps
    finished before it and what happened."""
    trafgen = os.path.join(BUILD, "trafgen")
    append = f"app=sink poll={a.poll} stats=1 stats_format=json {a.append}".strip()
    marks = []  # (offset in the console bytes, label)
    report_end = rb'\{"stats":"core".*?\}\r?\n'
    failed, tg = None, None
    with Qemu(boot="kernel", mem="256M", nics=["e1000e:netdev=stream"], append=append) as q:
        mac = q.expect(r"MAC ([0-9a-f:]{17})", 60).group(1).decode()
        q.expect(r"port0: link up", 60)   # after the probe: the driver restarts autonegotiation
        try:
            for itr in a.itr.split(","):
                q.send(f"set InterruptThrottleRate {itr}\r")
                q.expect(rf"InterruptThrottleRate={itr}\r\n")
                for rate in a.rates.split(","):
                    pps = int(float(rate.rstrip("k")) * (1000 if rate.endswith("k") else 1))
                    step = f"InterruptThrottleRate={itr}, {pps} pps"
                    print(f"statplot: {step}", file=sys.stderr)
                    tg = subprocess.Popen([trafgen, "send", "--port", "stream:" + q.nic_sock(0),
                                           "--dst-mac", mac, "--size", str(a.size), "--rate",
                                           f"{pps}pps", "--duration", str(a.reports + 2), "--quiet"],
                                          stdout=subprocess.DEVNULL)
                    q.expect(report_end, 10)  # the report in which sending began
                    marks.append((q.pos, {"config": f"InterruptThrottleRate={itr}", "offered_pps": pps}))
                    for _ in range(a.reports):
                        q.expect(report_end, 10)
                    marks.append((q.pos, {}))
                    tg.wait(a.reports + 30)
                    q.expect(report_end, 10)  # one report to drain
                    keep(labelled(q.out, marks), a.outdir)
        except TimeoutError:
            status = q.proc.poll()
            failed = (f"QEMU exited ({status})" if status is not None else "no report for 10 s") + f" at {step}"
            if len(marks) % 2:
                marks.pop()   # the unfinished step's reports are left out
            if tg.poll() is None:
                tg.kill()
                tg.wait()
        out = q.out
    return labelled(out, marks), failed


def lat_hist(lines, port="port1"):
    """The last pktgen latency histogram of port in console lines, or None."""
    found = None
    for line in lines:
        at = line.find('{"stats":"pktgen","kind":"lat"')
        if at < 0:
            continue
        try:
            o = json.loads(line[at:].strip())
        except ValueError:
            continue
        if o["port"] == port:
            found = o
    return found


def plot_lat(h, path):
    """Bar chart of h's buckets (count per bucket, log-scaled ns axis) with
    the percentiles marked."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4))
    for lo, hi, n in h["buckets"]:
        ax.bar(lo, n, width=hi - lo + 1, align="edge", color="tab:blue")
    for key, style in (("p50_ns", "-"), ("p90_ns", "--"), ("p99_ns", "-."), ("p999_ns", ":")):
        ax.axvline(h[key], color="tab:red", linestyle=style, label=f"{key[:-3]} {h[key]} ns")
    ax.set_xscale("log")
    ax.set_xlabel(f"latency, ns (clock {h['clock']})")
    ax.set_ylabel("probes per bucket")
    ax.set_title(f"pktgen {h['port']}: {h['n']} probes, max {h['max_ns']} ns")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def rfc2544_results(lines):
    """{kind: [objects]} of the {"rfc2544": kind, ...} result lines in a log
    (trials and notes left out); a later run's rows replace an earlier's."""
    out = {}
    for line in lines:
        at = line.find('{"rfc2544":')
        if at < 0:
            continue
        try:
            o = json.loads(line[at:].strip())
        except ValueError:
            continue
        if o["rfc2544"] == "start":
            out = {}
        elif o["rfc2544"] in ("throughput", "latency", "loss", "b2b"):
            out.setdefault(o["rfc2544"], []).append(o)
    return out


def plot_rfc2544(res, outdir):
    """The report's figures (RFC 2544 26): throughput (frames/s and % of the
    ceiling) and latency against frame size, loss against offered load, one
    curve per size; returns the PNG paths."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    paths = []

    def save(fig, name):
        fig.tight_layout()
        path = os.path.join(outdir, name)
        fig.savefig(path)
        plt.close(fig)
        paths.append(path)
    if "throughput" in res:
        rows = res["throughput"]
        labels = [str(r["size"]) for r in rows]
        fig, ax = plt.subplots(figsize=(7, 4))
        ax.bar(labels, [r["pps"] for r in rows], color="tab:blue", label="throughput")
        ax.plot(labels, [r["ceiling_pps"] for r in rows], "k--", marker="_", label="ceiling")
        for i, r in enumerate(rows):
            ax.annotate(f"{r['pct']:.1f} %", (i, r["pps"]), ha="center", va="bottom")
        ax.set_xlabel("frame size, bytes")
        ax.set_ylabel("frames/s without loss")
        ax.set_title("RFC 2544 throughput (26.1)")
        ax.legend()
        save(fig, "rfc2544_throughput.png")
    if "latency" in res:
        rows = res["latency"]
        labels = [str(r["size"]) for r in rows]
        fig, ax = plt.subplots(figsize=(7, 4))
        for key, style in (("min_ns", "v-"), ("mean_ns", "o-"), ("p99_ns", "s--"), ("max_ns", "^-")):
            ax.plot(labels, [r[key] / 1000 for r in rows], style, label=key[:-3])
        ax.set_xlabel("frame size, bytes")
        ax.set_ylabel("latency, us")
        ax.set_title(f"RFC 2544 latency at the throughput rate (26.2), clock {rows[0]['clock']}")
        ax.legend()
        save(fig, "rfc2544_latency.png")
    if "loss" in res:
        fig, ax = plt.subplots(figsize=(7, 4))
        sizes = []
        for r in res["loss"]:
            if r["size"] not in sizes:
                sizes.append(r["size"])
        for size in sizes:
            rows = [r for r in res["loss"] if r["size"] == size]
            ax.plot([r["load_pct"] for r in rows], [r["loss_pct"] for r in rows], "o-", label=f"{size} B")
        ax.set_xlabel("offered load, % of the ceiling")
        ax.set_ylabel("frames lost, %")
        ax.set_title("RFC 2544 frame loss rate (26.3)")
        ax.legend()
        save(fig, "rfc2544_loss.png")
    if "b2b" in res:
        rows = res["b2b"]
        fig, ax = plt.subplots(figsize=(7, 4))
        ax.bar([str(r["size"]) for r in rows], [r["mean_frames"] for r in rows], color="tab:green")
        ax.set_xlabel("frame size, bytes")
        ax.set_ylabel("frames in a burst without loss (mean)")
        ax.set_title("RFC 2544 back-to-back frames (26.4)")
        save(fig, "rfc2544_b2b.png")
    return paths


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("csv", "plot"):
        p = sub.add_parser(name)
        p.add_argument("log", nargs="?", help="console log file")
        p.add_argument("--socket", help="read a live QEMU serial unix socket instead")
        p.add_argument("--seconds", type=float, default=10, help="how long to read --socket [10]")
        p.add_argument("--port", default="port0")
        p.add_argument("--queue", type=int, default=0)
        p.add_argument("-o", "--output", help="CSV file [stdout for csv, OUTDIR/plot.csv for plot]")
        p.add_argument("--outdir", default=BUILD, help="where plot writes [build]")
    p = sub.add_parser("lat")
    p.add_argument("log", help="console log file with stats_format=json reports")
    p.add_argument("--port", default="port1", help="receiving pktgen port [port1]")
    p.add_argument("-o", "--output", default=os.path.join(BUILD, "plot_lat.png"), help="PNG [build/plot_lat.png]")
    p = sub.add_parser("rfc2544")
    p.add_argument("log", help="console log of pktgen rfc2544 ... format=json")
    p.add_argument("--outdir", default=BUILD, help="where the PNGs go [build]")
    p = sub.add_parser("sweep")
    p.add_argument("--itr", default="0,1,3,4", help="InterruptThrottleRate values, one curve each")
    p.add_argument("--rates", default="5k,10k,20k,40k",
                   help="offered loads, pps [5k,10k,20k,40k: what a TCG guest on a shared 2-core host "
                        "absorbs at every InterruptThrottleRate; above, QEMU 10 may crash]")
    p.add_argument("--size", type=int, default=64, help="frame size with FCS, bytes [64]")
    p.add_argument("--reports", type=int, default=3, help="reports (seconds) per step [3]")
    p.add_argument("--poll", default="napi", help="poll= knob [napi]")
    p.add_argument("--append", default="", help="more kernel knobs")
    p.add_argument("--outdir", default=BUILD)
    a = ap.parse_args()

    if a.cmd == "lat":
        h = lat_hist(open(a.log, errors="replace").read().splitlines(), a.port)
        if not h or not h["n"]:
            raise SystemExit(f"statplot: no pktgen latency histogram of {a.port} in {a.log}")
        plot_lat(h, a.output)
        print(f"{a.port}: n {h['n']} p50 {h['p50_ns']} p90 {h['p90_ns']} p99 {h['p99_ns']} "
              f"p99.9 {h['p999_ns']} max {h['max_ns']} ns; {len(h['buckets'])} buckets -> {a.output}")
        return
    if a.cmd == "rfc2544":
        res = rfc2544_results(open(a.log, errors="replace").read().splitlines())
        if not res:
            raise SystemExit(f"statplot: no pktgen rfc2544 results (format=json) in {a.log}")
        os.makedirs(a.outdir, exist_ok=True)
        for path in plot_rfc2544(res, a.outdir):
            print(path)
        return
    failed = None
    if a.cmd == "sweep":
        lines, failed = sweep(a)
        rows = keep(lines, a.outdir)
        if failed and not rows:
            sys.exit(f"statplot: {failed}, before any step was measured ({a.outdir}/plot.log); {HINT}")
        a.output = None
    elif a.socket:
        rows = parse(read_socket(a.socket, a.seconds), a.port, a.queue)
    elif a.log:
        with open(a.log, errors="replace") as f:
            rows = parse(f.read().splitlines(), a.port, a.queue)
    else:
        ap.error("give a LOG file or --socket PATH")
    if not rows:
        port = getattr(a, "port", "port0")
        queue = getattr(a, "queue", 0)
        sys.exit(f"statplot: no JSON reports for {port} queue {queue} found "
                 "(boot with stats_format=json)")
    if a.cmd == "csv":
        if a.output:
            write_csv(rows, a.output)
        else:
            w = csv.DictWriter(sys.stdout, FIELDS)
            w.writeheader()
            w.writerows(rows)
        return 0
    os.makedirs(a.outdir, exist_ok=True)
    write_csv(rows, a.output or os.path.join(a.outdir, "plot.csv"))
    title = f" ({a.size} B frames, poll={a.poll})" if a.cmd == "sweep" else ""
    for path in plot(rows, a.outdir, title):
        print(path)
    if failed:
        steps = len({(r["config"], r["offered_pps"]) for r in rows})
        sys.exit(f"statplot: {failed}: kept the {steps} steps measured before it in {a.outdir} "
                 f"(plot.csv, plot.log, the PNGs); {HINT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
