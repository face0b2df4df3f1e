#!/usr/bin/python3
"""make reliability: run the fuzz harnesses (FUZZ_SECONDS each, default 60)
and the malformed-frame battery on every NIC model, then print one table:
kinds of malformed frames tried and passed per model, fuzz executions and
crashes per harness, the faults under traffic survived (tests/qemu/
test_faults.py on e1000e and igb, flaps and the TX hang on e1000 too, 100
link flaps per port), frames miscounted and buffers
leaked (both must be 0).
The battery writes build/reliability/battery-MODEL.json only when all of
its assertions held; a model without one counts as failed, and so do the
fault tests' build/reliability/faults-NAME-MODEL.json.
Usage: reliability.py [harness ...] (default every harness; FUZZ_SECONDS=N each)"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from usage import help_exit  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = "/usr/bin/python3"


def main():
    help_exit(__doc__)
    secs = os.environ.get("FUZZ_SECONDS", "60")
    harnesses = sys.argv[1:]
    fuzz_rc = subprocess.run([PY, "tests/fuzz/run.py", "--seconds", secs] + harnesses, cwd=ROOT).returncode
    out = os.path.join(ROOT, "build", "reliability")
    for m in ("e1000", "e1000e", "igb"):
        try:
            os.remove(os.path.join(out, "battery-%s.json" % m))
        except FileNotFoundError:
            pass
    bat_rc = subprocess.run([PY, "-m", "pytest", "-q", "tests/qemu/test_battery.py"], cwd=ROOT).returncode
    for f in os.listdir(out) if os.path.isdir(out) else []:
        if f.startswith("faults-"):
            os.remove(os.path.join(out, f))
    env = dict(os.environ, LINERATE_FLAPS=os.environ.get("LINERATE_FLAPS", "100"))
    fault_rc = subprocess.run([PY, "-m", "pytest", "-q", "tests/qemu/test_faults.py"], cwd=ROOT, env=env).returncode
    print("\nreliability report")
    print("%-24s %10s %10s %12s %10s" % ("malformed frames", "kinds", "passed", "miscounted", "leaked"))
    for m in ("e1000", "e1000e", "igb"):
        try:
            b = json.load(open(os.path.join(out, "battery-%s.json" % m)))
            print("%-24s %10d %10d %12d %10d" % (m, b["kinds"], b["passed"], b["miscounted"], b["leaked"]))
        except FileNotFoundError:
            print("%-24s %10s %10s %12s %10s" % (m, "-", "FAILED", "-", "-"))
    print("%-24s %10s %12s %10s" % ("fuzz harness", "seconds", "executions", "crashes"))
    for r in json.load(open(os.path.join(ROOT, "build", "fuzz", "results.json"))):
        print("%-24s %10d %12d %10d" % (r["harness"], r["seconds"], r["execs"], r["crashes"]))
    print("%-24s %30s %12s %10s" % ("fault under traffic", "survived", "miscounted", "leaked"))
    faults = (("flaps", "flaps_per_port"), ("txhang", "hangs"), ("pool", "dropped"),
              ("backpressure-busy", "sent"), ("backpressure-napi", "sent"), ("backpressure-irq", "sent"))
    rows = [("%s-%s" % (n, m), w) for m in ("e1000e", "igb") for n, w in faults]
    rows += [("%s-e1000" % n, w) for n, w in faults[:2]]     # one queue: flaps and the TX hang
    for name, what in rows:
        try:
            r = json.load(open(os.path.join(out, "faults-%s.json" % name)))
            n = r[what] * (r.get("ports", 1))
            print("%-24s %30s %12d %10d" % (name, "%d %s" % (n, what if what != "flaps_per_port" else "flaps"),
                                            r["miscounted"], r["leaked"]))
        except FileNotFoundError:
            print("%-24s %30s %12s %10s" % (name, "FAILED", "-", "-"))
    return 1 if fuzz_rc or bat_rc or fault_rc else 0


if __name__ == "__main__":
    sys.exit(main())
