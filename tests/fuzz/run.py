#!/usr/bin/python3
"""Run the libFuzzer harnesses (tests/fuzz/fuzz.mk) one after another for a
set time each and print one table: executions, executions per second,
coverage (edges) and features, corpus size, crashes. Each harness starts
from the seeds in tests/fuzz/seeds/NAME/ and the inputs of bugs it found
(tests/fuzz/regress/NAME/, run first, each whole whatever MAX_LEN, and
whatever the time: a regression fails fuzz-ci) and keeps what it finds in
build/fuzz/corpus/NAME/; a crash leaves its input in build/fuzz/crashes/
and makes the exit status 1. Also writes build/fuzz/results.json for
tools/reliability.py.

    tests/fuzz/run.py --seconds 60 ipv4 arp ...
    tests/fuzz/run.py --seconds 10 --cap ipmap=3 ...   (ipmap 3 s, the others 10)
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FUZZ = os.path.join(ROOT, "build", "fuzz")
# Longest input per harness where libFuzzer's default (inputs growing to
# some 4 KB) only slows it down: fuzz_lpm's 7-byte operations on a 16-rule
# table, whose every state 64 operations reach; each operation writes table
# entries, and at 64 twice as many inputs run a second as at ~500.
# fuzz_cmdline: 2 KB, twice the 1,023 bytes boot lines were once cut at
# and room for 65 route= words (one past the table's 64); its cost grows
# with each word, and at libFuzzer's default its saved inputs grew toward
# 4 KB and its rate fell to a quarter.
# fuzz_http: 256 bytes, some 120 client steps (each a few TCP segments
# through lwIP: as inputs grew toward libFuzzer's 4 KB the rate fell to a
# few hundred a second); 24 clients connecting and sending fit (48 bytes),
# and op 7 sends a header longer than HTTP_REQ_MAX (431) in two bytes.
# fuzz_dhcp: 640 bytes, a raw reply with a whole 312-byte options field
# (RFC 2131 2) and the steps around it; an input of clock steps alone
# (up to 88 idle-hook rounds per two bytes) stays a few thousand rounds.
# fuzz_netperf: 700 bytes, a 656-byte control message and a little past it.
# fuzz_iperf3: 256 bytes, as fuzz_http's: a whole -P 4 test is 47 bytes.
# fuzz_lpm6: 64 of its 18-byte operations, as fuzz_lpm: its reference
# holds 32 rules and the input ends there, so 64 operations reach every
# state (32 rules with an invalid, duplicate or ENOSPC add between each);
# each operation looks up every rule, and with inputs grown to libFuzzer's
# 4 KB (227 operations) a run here went at about 500 executions a second
# (at times 100), with this cap at about 3,000 on the same loaded host.
# fuzz_router: 2048 bytes, room for a full burst (32) of 60-byte frames
# (an op, a flags byte, a length byte of 7-byte units, the bytes) or a
# few 1,500-byte ones, with timer and TX-budget operations between: a
# corpus grown to 7 KB inputs ran at about 1,000 executions a second on
# a core, the same corpus cut to 2 KB at about 2,300, reaching the same
# edges (1,160).
MAX_LEN = {"lpm": 7 * 64, "cmdline": 2048, "http": 256, "dhcp": 640, "netperf": 700, "iperf3": 256,
           "lpm6": 18 * 64, "router": 2048}


def errors(err):
    return "\n".join(l for l in err.splitlines()
                     if re.search(r"ERROR|SUMMARY|Assertion|runtime error|artifact", l))[:2000]


def run(name, seconds):
    corpus = os.path.join(FUZZ, "corpus", name)
    crashes = os.path.join(FUZZ, "crashes") + "/"
    os.makedirs(corpus, exist_ok=True)
    os.makedirs(crashes, exist_ok=True)
    binary = os.path.join(FUZZ, "fuzz_" + name)
    regress = os.path.join(ROOT, "tests", "fuzz", "regress", name)
    if os.path.isdir(regress):
        # Each whole, as files: libFuzzer cuts a corpus input to -max_len.
        files = sorted(os.path.join(regress, f) for f in os.listdir(regress))
        p = subprocess.run([binary] + files, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           errors="replace")
        if p.returncode != 0:
            return {"harness": name, "seconds": 0, "execs": len(files), "execs_per_s": 0, "cov": 0, "ft": 0,
                    "corpus": 0, "crashes": 1, "command": " ".join([binary] + files), "error": errors(p.stderr)}
    cmd = [binary, corpus]
    seeds = os.path.join(ROOT, "tests", "fuzz", "seeds", name)
    if os.path.isdir(seeds):
        cmd.append(seeds)
    if os.path.isdir(regress):
        cmd.append(regress)
    d = os.path.join(ROOT, "tests", "fuzz", name + ".dict")
    if os.path.exists(d):
        cmd.append("-dict=" + d)
    if name in MAX_LEN:
        cmd.append("-max_len=%d" % MAX_LEN[name])
    # -reload=0: libFuzzer re-lists the corpus directory every second for
    # inputs other processes added; here each harness is the only writer
    # of its directory (3 % of fuzz_iperf3's time, perf).
    cmd += ["-max_total_time=%d" % seconds, "-print_final_stats=1", "-artifact_prefix=" + crashes,
            "-rss_limit_mb=2048", "-timeout=10", "-reload=0"]
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace")
    err = p.stderr
    stat = lambda k: int((re.findall(r"stat::%s:\s+(\d+)" % k, err) or ["0"])[-1])
    last = (re.findall(r"#\d+\s+(?:DONE|pulse|NEW|REDUCE|INITED)\s+cov: (\d+) ft: (\d+) corp: (\d+)/", err)
            or [("0", "0", "0")])[-1]
    execs = stat("number_of_executed_units")
    crashed = p.returncode != 0
    r = {"harness": name, "seconds": seconds, "execs": execs, "execs_per_s": stat("average_exec_per_sec"),
         "cov": int(last[0]), "ft": int(last[1]), "corpus": int(last[2]), "crashes": int(crashed),
         "command": " ".join(cmd)}
    if crashed:
        r["error"] = errors(err)
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--jobs", type=int, default=1, help="harnesses run at once (each is one process)")
    ap.add_argument("--cap", action="append", default=[], metavar="NAME=SECONDS",
                    help="run harness NAME at most SECONDS (a small one that --seconds would only repeat)")
    ap.add_argument("harness", nargs="+")
    a = ap.parse_args()
    cap = {}
    for c in a.cap:
        name, _, sec = c.partition("=")
        if name not in a.harness or not sec.isdigit():
            ap.error("--cap %s: accepted: NAME=SECONDS with NAME one of the harnesses given" % c)
        cap[name] = int(sec)
    rows = []
    print("%-10s %8s %12s %10s %6s %7s %7s %8s" % ("harness", "seconds", "execs", "execs/s", "cov", "ft",
                                                   "corpus", "crashes"), flush=True)
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs))
    for r in pool.map(lambda name: run(name, min(a.seconds, cap.get(name, a.seconds))), a.harness):
        name = r["harness"]
        rows.append(r)
        print("%-10s %8d %12d %10d %6d %7d %7d %8d" % (name, r["seconds"], r["execs"], r["execs_per_s"],
                                                      r["cov"], r["ft"], r["corpus"], r["crashes"]), flush=True)
        if r["crashes"]:
            print(r["error"], flush=True)
    print("total executions %d, crashes %d" % (sum(r["execs"] for r in rows), sum(r["crashes"] for r in rows)))
    with open(os.path.join(FUZZ, "results.json"), "w") as f:
        json.dump(rows, f, indent=1)
    return 1 if any(r["crashes"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
