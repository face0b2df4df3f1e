"""The management port (mgmt=port2) beside fwd on port0/port1: ping and
HTTP from a network namespace over a tap, /metrics checked by promtool and
scraped every second by Debian's Prometheus server started in the
namespace, whose HTTP API must show port0's rx_packets equal to the frames
the test sent through the data ports, and up 1; malformed HTTP answered or
dropped under named counters while forwarding goes on. Needs root."""
import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.parse

import pytest

from battery6 import kinds6
from netio import StreamPort, frame

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import netns  # noqa: E402
from qemurun import Qemu  # noqa: E402

NS, TAP = netns.names("mgmt")
GUEST, PEER = "10.5.0.1", "10.5.0.2"
FAR = "192.0.2.7"      # a client behind PEER, off port2's subnet
HTTPRAW = os.path.join(os.path.dirname(os.path.abspath(__file__)), "httpraw.py")


def sh(*cmd, ns=NS, timeout=60, check=True):
    """A command inside the peer's namespace (ns=None: outside)."""
    return netns.sh(*cmd, ns=ns, timeout=timeout, check=check)


@contextlib.contextmanager
def mgmt_box(ip2=f"{GUEST}/24", extra=""):
    """fwd on port0/port1, mgmt=port2 ip2=ip2 (and the knobs in extra) over
    the tap, whose peer namespace holds PEER."""
    netns.tap_add(TAP)
    q = Qemu(boot="kernel", mem="256M",
             nics=["e1000e:netdev=stream", "e1000e:netdev=stream", f"e1000e:netdev=tap,ifname={TAP}"],
             append=f"app=fwd mgmt=port2 ip2={ip2} stats=0 {extra}")
    try:
        q.expect(r"apps: port0=fwd port1=fwd port2=mgmt", 90)
        q.expect("linerate> ", 30)
        netns.wire(NS, TAP, f"{PEER}/24")
        yield q
    finally:
        q.__exit__(None, None, None)
        netns.remove(NS, TAP)


@pytest.fixture
def box():
    with mgmt_box() as q:
        yield q


def get(path):
    return sh("curl", "-sS", "--max-time", "20", f"http://{GUEST}{path}")


def metric(text, name, **labels):
    want = ",".join(f'{k}="{v}"' for k, v in labels.items())
    m = re.search(rf"^{re.escape(name)}{{{re.escape(want)}}} (\S+)$", text, re.M) if labels else \
        re.search(rf"^{re.escape(name)} (\S+)$", text, re.M)
    assert m, (name, labels)
    return float(m.group(1))


def forward(q, n, seq0=0):
    """n frames into port0; all n must come out of port1."""
    p0, p1 = StreamPort(q.nic_sock(0)), StreamPort(q.nic_sock(1))
    try:
        p0.send([frame(64, seq=seq0 + i) for i in range(n)])
        got = p1.recv(n, timeout=60)
        assert len(got) == n
    finally:
        p0.close()
        p1.close()


def wait_metric(name, want, **labels):
    """/metrics until the sample reads want (hardware counters are folded
    once a second); returns the page."""
    for _ in range(20):
        page = get("/metrics")
        if metric(page, name, **labels) == want:
            return page
        time.sleep(1)
    assert metric(page, name, **labels) == want
    return page


def prom_query(expr):
    url = "http://127.0.0.1:9090/api/v1/query?query=" + urllib.parse.quote(expr)
    r = json.loads(sh("curl", "-sS", "--max-time", "10", url))
    assert r["status"] == "success", r
    return [(s["metric"], float(s["value"][1])) for s in r["data"]["result"]]


def test_metrics_promtool_and_prometheus(box, tmp_path):
    q = box
    out = sh("ping", "-c", "3", "-i", "0.3", "-W", "2", GUEST)
    assert "3 received" in out, out
    sent = 300
    forward(q, sent)
    page = wait_metric("linerate_rx_packets_total", sent, port="port0")
    assert metric(page, "linerate_tx_packets_total", port="port1") == sent
    assert metric(page, "linerate_fwd_forwarded_total", port="port0") == sent
    assert metric(page, "linerate_fwd_dropped_total", port="port0", reason="no_peer") == 0
    assert metric(page, "linerate_mgmt_stack_total", port="port2", proto="icmp") == 3
    assert "linerate_rr_" not in page
    assert metric(page, "linerate_build_info", version="0.1.0", git=re.search(
        r'git="([^"]*)"', page).group(1)) == 1
    assert 'linerate_rx_queue_packets_total{port="port0",queue="0"} 300' in page
    assert 'linerate_softnet_processed_total{core="0"}' in page
    prom_file = tmp_path / "metrics.txt"
    prom_file.write_text(page)
    r = subprocess.run(["promtool", "check", "metrics"], stdin=open(prom_file), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=60)
    assert r.returncode == 0, r.stdout
    assert "linerate" in get("/") and "RX-OK" in get("/")
    assert "mgmt=port2" in get("/config")

    _, _, rx = prometheus_scrape(tmp_path, f"{GUEST}:80", 'linerate_rx_packets_total{port="port0"}')
    assert rx and rx[0][1] == sent, rx


def prometheus_scrape(tmp_path, target, expr):
    """Debian's Prometheus in the namespace scraping target ("ADDR:80",
    "[ADDR6]:80") every second until it has scraped it (up 1, more than
    100 samples) and expr has a result, for at most 60 s; its log free of
    scrape and parse warnings. Returns (up, scrape_samples_scraped, expr)
    as prom_query gives them."""
    cfg = tmp_path / "prometheus.yml"
    cfg.write_text("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                   "scrape_configs:\n  - job_name: linerate\n"
                   f"    static_configs:\n      - targets: ['{target}']\n")
    log = open(tmp_path / "prometheus.log", "w+")
    prom = subprocess.Popen(["ip", "netns", "exec", NS, "prometheus", f"--config.file={cfg}",
                             f"--storage.tsdb.path={tmp_path / 'tsdb'}",
                             "--web.listen-address=127.0.0.1:9090"], stdout=log, stderr=subprocess.STDOUT)
    up = samples = got = []
    try:
        end = time.monotonic() + 60
        while time.monotonic() < end:
            time.sleep(2)
            try:
                up = prom_query("up")
                samples = prom_query("scrape_samples_scraped")
                got = prom_query(expr)
            except (RuntimeError, json.JSONDecodeError, KeyError):
                continue
            if up and got and samples:
                break
        assert up and up[0][1] == 1, up
        assert samples and samples[0][1] > 100, samples
    finally:
        prom.terminate()
        prom.wait(timeout=30)
    log.seek(0)
    text = log.read()
    assert "Server is ready to receive web requests" in text, text[-2000:]
    assert not re.search(r"level=(warn|error).*(scrape|append|parse)", text), text[-2000:]
    return up, samples, got


def raw(case, *extra):
    return sh("/usr/bin/python3", HTTPRAW, GUEST, case, *extra, timeout=60).strip()


def test_http_and_metrics_over_ipv6(tmp_path):
    """The management port's HTTP server on its IPv6 address (ip2=...,
    ADDR6/LEN; lwIP dual-stack): /metrics fetched with curl -6 and scraped
    by Debian's Prometheus at [ADDR6]:80, the netif's ICMPv6 and TCP
    counted, IPv4 still answered."""
    with mgmt_box(ip2=f"{GUEST}/24,2001:db8:6::1/64") as q:
        sh("ip", "-6", "addr", "add", "2001:db8:6::2/64", "dev", TAP, "nodad")
        deadline = time.time() + 30   # the guest's address answers after its DAD probe
        while "1 received" not in sh("ping", "-6", "-c", "1", "-W", "1", "2001:db8:6::1", check=False):
            assert time.time() < deadline, "no answer to ping -6"
        page = sh("curl", "-sS", "-g", "--max-time", "20", "http://[2001:db8:6::1]/metrics")
        assert metric(page, "linerate_mgmt_stack_total", port="port2", proto="icmp6") > 0
        assert metric(page, "linerate_mgmt_stack_total", port="port2", proto="tcp") > 0
        assert metric(page, "linerate_mgmt_dropped_total", port="port2", reason="bad_saddr") == 0
        assert "linerate_build_info" in get("/metrics")
        _, _, icmp6 = prometheus_scrape(tmp_path, "[2001:db8:6::1]:80",
                                        'linerate_mgmt_stack_total{port="port2",proto="icmp6"}')
        assert icmp6 and icmp6[0][1] > 0, icmp6
        battery6(q)


# The IPv6 battery's kinds that land the same on any lwIP host (argv[3]:
# their names) sent from the tap (argv[1]) at the guest's MAC (argv[2]),
# each with its index as flow label; then what the guest sends back, for
# up to 5 s, or 0.5 s more once argv[5] errors came: "error TYPE CODE
# LABEL" for each ICMPv6 error.
BATTERY6 = r"""
import select, socket, sys, time
sys.path.insert(0, sys.argv[4])
from battery6 import kinds6
from scapy.all import IPv6, raw
tap, mac, names = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.bind((tap, 0))
me = open(f"/sys/class/net/{tap}/address").read().strip()
for i, (name, f, _, _) in enumerate(kinds6(mac, me, "2001:db8:6::2", "2001:db8:6::1", 7, 80)):
    if name in names:
        f[IPv6].fl = i + 1
        s.send(raw(f))
end, errors = time.time() + 5, 0
while time.time() < end:
    if select.select([s], [], [], 0.2)[0]:
        b = s.recv(2000)
        if b[6:12] == bytes.fromhex(mac.replace(":", "")) and b[12:14] == b"\x86\xdd" and b[20] == 58 and b[54] < 128:
            print("error", b[54], b[55], int.from_bytes(b[63:66], "big") & 0xfffff)
            errors += 1
            if errors == int(sys.argv[5]):
                end = min(end, time.time() + 0.5)
"""
MGMT6_KINDS = ("bad_version", "jumbogram_plen_0", "plen_past_frame", "src_multicast", "dst_not_ours", "udp_cut",
               "udp_closed_port", "frag_too_long", "bad_proto", "tcp_bad_option", "ext_then_unknown")


def battery6(q):
    """The router's IPv6 kinds that land alike on any lwIP host
    (tests/qemu/battery6.py) aimed at the management port's IPv6 address:
    each in its named counter, exactly, the ICMPv6 errors they draw seen
    (their quotes' flow labels the kinds'), HTTP over IPv6 still answered."""
    mac = re.search(r"lladdr (\S+)", sh("ip", "-6", "neigh", "show", "2001:db8:6::1")).group(1)
    kinds = kinds6(mac, "02:00:00:00:00:01", "2001:db8:6::2", "2001:db8:6::1", 7, 80)
    _, rx0, stack0, drop0 = mgmt_counts(q)
    out = sh("/usr/bin/python3", "-c", BATTERY6, TAP, mac, ",".join(MGMT6_KINDS), os.path.dirname(HTTPRAW), "2")
    want = {}
    for name, _, moves, _ in kinds:
        for k, n in moves.items():
            if name in MGMT6_KINDS and k in drop0:
                want[k] = want.get(k, 0) + n
    _, rx, stack, drop = wait_counts(q, lambda c: sum(c[3].values()) - sum(drop0.values()) >= sum(want.values()))
    assert {k: drop[k] - drop0[k] for k in drop if drop[k] != drop0[k]} == want, (drop, drop0)
    assert stack["ipv6_ext"] - stack0["ipv6_ext"] == 1 and stack["tcp"] == stack0["tcp"], (stack, stack0)
    errors = sorted(tuple(int(x) for x in m) for m in re.findall(r"error (\d+) (\d+) (\d+)", out))
    label = {name: i + 1 for i, (name, *_) in enumerate(kinds)}
    assert errors == sorted([(1, 4, label["udp_closed_port"]), (4, 1, label["ext_then_unknown"])]), out
    assert "linerate_build_info" in sh("curl", "-sS", "-g", "--max-time", "20", "http://[2001:db8:6::1]/metrics")


def test_malformed_http(box):
    q = box
    assert raw("no_request_line").startswith("HTTP/1.0 400")
    assert raw("binary").startswith("HTTP/1.0 400")
    assert raw("post").startswith("HTTP/1.0 405")
    assert raw("not_found").startswith("HTTP/1.0 404")
    assert raw("huge_headers").startswith("HTTP/1.0 431")
    assert raw("ok").startswith("HTTP/1.0 200")
    assert raw("binary_after_header").startswith("HTTP/1.0 200")
    # Twelve half requests at once: eight are held and time out, four refused.
    assert raw("hold", "12") == "12"
    forward(q, 100)
    page = get("/metrics")
    c = {e: metric(page, "linerate_mgmt_http_total", event=e) for e in
         ("bad_request", "bad_method", "not_found", "too_large", "ok", "timeouts", "conns_refused")}
    assert c == {"bad_request": 2, "bad_method": 1, "not_found": 1, "too_large": 1, "ok": 2,
                 "timeouts": 8, "conns_refused": 4}, c
    assert metric(page, "linerate_fwd_forwarded_total", port="port0") == 100


def test_head_absolute_form_404_and_slowloris(box):
    """HEAD gets GET's headers without the body (RFC 9110 9.1); a request
    line in absolute form is served (RFC 9112 3.2.2); a 404 names the
    pages; 8 connections sending a byte every 3 s (never silent 5 s) are
    reset once their request is 10 s old, and a scrape gets through."""
    q = box
    http0, *_ = mgmt_counts(q)
    head, full = raw("head_config"), raw("get_config")
    n = int(full.split(" length ")[1])
    assert full == f"HTTP/1.0 200 OK body {n} length {n}" and n > 0, full
    assert head == f"HTTP/1.0 200 OK body 0 length {n}", head
    assert raw("absolute").startswith("HTTP/1.0 200 OK")
    assert raw("absolute_no_path").startswith("HTTP/1.0 200 OK")
    assert raw("post").startswith("HTTP/1.0 405")
    page = sh("curl", "-sS", "--max-time", "20", f"http://{GUEST}/nope")
    assert page == "404 Not Found\npages: /metrics / /config\n", page
    assert raw("trickle", "8", "3") == "8"
    assert "linerate_mgmt_http_total" in get("/metrics")
    http, *_ = mgmt_counts(q)
    assert {k: http[k] - http0[k] for k in ("ok", "not_found", "bad_method", "timeouts")} == \
        {"ok": 5, "not_found": 1, "bad_method": 1, "timeouts": 8}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def mgmt_counts(q):
    """The mgmt command's counters: HTTP outcomes and the port's frame counters."""
    q.pos = len(q.out)
    q.send("mgmt\r")
    m = q.expect(r"mgmt http:(.*)\r?\nmgmt port2: rx (\d+), to lwIP(.*), dropped(.*)\r?\n", 30)
    pairs = lambda t: {k: int(v) for k, v in re.findall(r"(\w+) (\d+)", t)}
    return pairs(m.group(1).decode()), int(m.group(2)), pairs(m.group(3).decode()), pairs(m.group(4).decode())


def wait_counts(q, done, timeout=60):
    end = time.monotonic() + timeout
    while True:
        c = mgmt_counts(q)
        if done(c) or time.monotonic() > end:
            return c
        time.sleep(1)


def test_udp_to_a_port_of_no_service(box):
    """UDP to rr's ports (12866, echo 7, sockperf 11111) on the management
    port: the netif asks mgmt whether the port is its (HTTP's 80 only) and
    drops each before lwIP as udp_closed_port, answered with an ICMP port
    unreachable (net/lwip/filter.c); none reaches lwIP."""
    q = box
    _, _, stack0, drop0 = mgmt_counts(q)
    sh("/usr/bin/python3", "-c", "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
       f"[s.sendto(b'x', ('{GUEST}', p)) for p in (12866, 7, 11111)]")
    _, _, stack, drop = wait_counts(q, lambda c: c[3]["udp_closed_port"] - drop0["udp_closed_port"] >= 3)
    assert drop["udp_closed_port"] - drop0["udp_closed_port"] == 3
    assert stack["udp"] == stack0["udp"]
    page = get("/metrics")
    assert metric(page, "linerate_mgmt_events_total", port="port2", event="icmp_unreach_sent") == 3


def test_mgmt_allow_drops_sources_outside_the_prefixes():
    """mgmt_allow=10.5.0.0/25,198.51.100.0/24: PEER (10.5.0.2) is inside and
    is answered; a second address of the namespace (10.5.0.200) is outside
    and is not: its three pings and its one SYN to HTTP are dropped before
    lwIP as not_allowed, exactly 4, and none of them reaches lwIP."""
    outside = "10.5.0.200"
    with mgmt_box(extra="mgmt_allow=10.5.0.0/25,198.51.100.0/24") as q:
        sh("ip", "addr", "add", f"{outside}/24", "dev", TAP)
        assert "linerate_mgmt_dropped_total" in get("/metrics")
        sh("ping", "-c", "2", "-W", "2", GUEST)
        q.send("show config\r")
        q.expect(r"mgmt_allow=10\.5\.0\.0/25,198\.51\.100\.0/24 ", 30)
        _, _, stack0, drop0 = mgmt_counts(q)
        assert drop0["not_allowed"] == 0
        out = sh("ping", "-c", "3", "-W", "1", "-I", outside, GUEST, check=False)
        assert " 0 received" in out, out
        # One SYN to HTTP: the connect gives up before Linux's first retransmission (1 s).
        out = sh("/usr/bin/python3", "-c", "import socket; s = socket.socket(); "
                 f"s.bind(('{outside}', 0)); s.settimeout(0.5); print(s.connect_ex(('{GUEST}', 80)))")
        assert out.strip() != "0", out
        _, _, stack, drop = wait_counts(q, lambda c: c[3]["not_allowed"] >= 4)
        assert drop["not_allowed"] == 4, drop
        assert {k: stack[k] - stack0[k] for k in ("icmp", "udp", "tcp", "fragment")} == \
            {"icmp": 0, "udp": 0, "tcp": 0, "fragment": 0}
        assert "linerate_mgmt_dropped_total" in get("/metrics")


def test_connection_floods(box):
    """200 connections held at once: 8 are taken and time out, 192 are
    refused; then 400 SYNs from forged addresses: 16 handshakes at a time
    are let through to lwIP and dropped after 3 s, the other SYNs are
    dropped before lwIP (syn_over_limit). Every SYN is one or the other;
    forwarding goes on, and the server answers again afterwards."""
    q = box
    http0, *_ = mgmt_counts(q)
    assert raw("hold", "200") == "200"
    http, *_ = wait_counts(q, lambda c: c[0]["timeouts"] - http0["timeouts"] == 8)
    assert {k: http[k] - http0[k] for k in ("conns_accepted", "conns_refused", "timeouts")} == \
        {"conns_accepted": 8, "conns_refused": 192, "timeouts": 8}
    forward(q, 100)
    assert "mgmt=port2" in get("/config")

    mac = re.search(r"lladdr (\S+)", sh("ip", "neigh", "show", GUEST)).group(1)
    http0, rx0, stack0, drop0 = mgmt_counts(q)
    assert raw("synflood", "400", mac) == "400"
    forward(q, 100, seq0=100)
    http, rx, stack, drop = wait_counts(
        q, lambda c: c[3]["syn_over_limit"] - drop0["syn_over_limit"] +
        c[0]["half_open_expired"] - http0["half_open_expired"] >= 400)
    over = drop["syn_over_limit"] - drop0["syn_over_limit"]
    expired = http["half_open_expired"] - http0["half_open_expired"]
    assert over + expired == 400 and over > 0 and expired >= 16, (over, expired)
    assert stack["tcp"] - stack0["tcp"] == expired
    page = get("/metrics")
    assert metric(page, "linerate_mgmt_dropped_total", port="port2", reason="syn_over_limit") == drop["syn_over_limit"]
    assert metric(page, "linerate_fwd_forwarded_total", port="port0") == 200


def test_client_off_the_subnet_answered_through_gw():
    """Issue 35: with ip2=ADDR/LEN lwIP's netif had gateway 0, so nothing
    went to a client off the port's subnet (Prometheus on a routed
    management network). ip2=ADDR/LEN,gw=PEER hands the gateway to lwIP:
    ping and HTTP from FAR, an address behind the peer, are answered
    through it, and show config gives the knob back as written."""
    with mgmt_box(f"{GUEST}/24,gw={PEER}") as q:
        sh("ip", "addr", "add", f"{FAR}/32", "dev", "lo")
        sh("ping", "-c", "2", "-W", "5", "-I", FAR, GUEST)
        page = sh("curl", "-sS", "--max-time", "20", "--interface", FAR, f"http://{GUEST}/metrics")
        assert "# TYPE" in page
        assert f"ip2={GUEST}/24,gw={PEER}" in q.shell("show config")


def test_dhcp_lease(tmp_path):
    """ip0=dhcp: lwIP's DHCP client takes a lease from QEMU's user network
    (its built-in DHCP server, 10.0.2.15/24 from 10.0.2.2, no router as the
    network is restricted); the lease is on
    the console and in /metrics, fetched through a loopback port forward."""
    port = free_port()
    with Qemu(boot="kernel", mem="256M", nics=[f"e1000e:netdev=user,hostfwd={port}"],
              append="app=sink mgmt=port0 ip0=dhcp stats=0") as q:
        q.expect("mgmt: port0 asks DHCP for its address", 90)
        q.expect(r"mgmt: port0: DHCP lease 10\.0\.2\.15/24 from 10\.0\.2\.2, router none, 86400 s", 60)
        page = subprocess.run(["curl", "-sS", "--max-time", "20", f"http://127.0.0.1:{port}/metrics"],
                              stdout=subprocess.PIPE, text=True, timeout=60, check=True).stdout
        assert metric(page, "linerate_mgmt_dhcp_bound", port="port0") == 1
        assert metric(page, "linerate_mgmt_dhcp_lease_info", port="port0", address="10.0.2.15", prefix="24",
                      router="", server="10.0.2.2") == 1
        assert metric(page, "linerate_mgmt_dhcp_lease_seconds", port="port0") == 86400
        assert metric(page, "linerate_mgmt_dhcp_refused_total", port="port0") == 0
        r = subprocess.run(["promtool", "check", "metrics"], input=page, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=60)
        assert r.returncode == 0, r.stdout
        config = subprocess.run(["curl", "-sS", "--max-time", "20", f"http://127.0.0.1:{port}/config"],
                                stdout=subprocess.PIPE, text=True, timeout=60, check=True).stdout
        assert "ip0=dhcp" in config, config
        q.send("mgmt\r")
        q.expect(r"mgmt: port0: DHCP lease 10\.0\.2\.15/24 from 10\.0\.2\.2, router none, 86400 s", 30)


def test_dhcp_only_on_the_management_port():
    with Qemu(boot="kernel", mem="256M", nics=["e1000e:netdev=stream", "e1000e:netdev=stream"],
              append="app=fwd ip0=dhcp stats=0") as q:
        q.expect(r"fwd: ip0=dhcp is for the management port \(mgmt=port0\); "
                 r"a port that routes needs ip0=A\.B\.C\.D/LEN", 90)
        q.expect("linerate> ", 30)


def fetch(port, path="/metrics"):
    return subprocess.run(["curl", "-sS", "--max-time", "20", f"http://127.0.0.1:{port}{path}"],
                          stdout=subprocess.PIPE, text=True, timeout=60, check=True).stdout


def promtool(page):
    r = subprocess.run(["promtool", "check", "metrics"], input=page, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=60)
    assert r.returncode == 0, r.stdout


def test_pktgen_latency_histogram():
    """pktgen's latency probes (two igb ports on QEMU's hub, as in
    test_pktgen) as the Prometheus histogram linerate_pktgen_latency_seconds:
    cumulative buckets, +Inf and _count equal to the probes the receiver
    counted, promtool clean."""
    port = free_port()
    with Qemu(boot="kernel", mem="256M",
              nics=["igb:netdev=hub,bus=rp", "igb:netdev=hub,bus=rp", f"e1000e:netdev=user,hostfwd={port},bus=rp"],
              append="app=pktgen promisc=1 count=2000 ratep=5000 lat_rate=500 mgmt=port2 ip2=10.0.2.15/24 "
                     "stats=0") as q:
        q.expect(r"apps: port0=pktgen port1=pktgen port2=mgmt", 90)
        q.expect("port1: link up", 60)
        q.send("pktgen start port0\r")
        q.expect(r"pktgen: port0: done, 2000 frames sent", 120)
        time.sleep(1)
        page = fetch(port)
    probes = metric(page, "linerate_pktgen_probes_total", port="port0")
    assert probes > 0
    buckets = [(float(le), float(v)) for le, v in re.findall(
        r'^linerate_pktgen_latency_seconds_bucket\{port="port1",le="([^"]+)"\} (\S+)$', page, re.M)]
    assert buckets[-1][0] == float("inf") and buckets[-1][1] == probes
    assert [le for le, _ in buckets] == sorted(le for le, _ in buckets)
    assert all(a[1] <= b[1] for a, b in zip(buckets, buckets[1:]))
    assert metric(page, "linerate_pktgen_latency_seconds_count", port="port1") == probes
    assert metric(page, "linerate_pktgen_latency_seconds_sum", port="port1") >= 0
    assert "# TYPE linerate_pktgen_latency_seconds histogram" in page
    promtool(page)


def test_ptp_gauges():
    """A ptp port follows another appliance's master over a stream pair
    (two ports of one box are one boundary clock, which does not follow
    itself): UNCALIBRATED, then SLAVE once its servo locks (~30 s of
    software stamps here, which test_ptp covers); its state, servo,
    offset, frequency and path delay are in /metrics; promtool clean."""
    port = free_port()
    follower = r'^linerate_ptp_port_state\{port="port0",state="(?:UNCALIBRATED|SLAVE)"\} 1$'
    intervals = "stats=0 logSyncInterval=-2 logAnnounceInterval=0 logMinDelayReqInterval=-2"
    with Qemu(boot="kernel", mem="256M", nics=["e1000e:netdev=stream"],
              append="app=ptp ptp_role=master " + intervals) as m:
        m.expect("port0: link up", 90)	# its stream socket listens
        stop = threading.Event()	# read the master's console: a full pipe would stop its QEMU
        reader = threading.Thread(target=lambda: [m._read(0.2) for _ in iter(stop.is_set, True)], daemon=True)
        reader.start()
        try:
            with Qemu(boot="kernel", mem="256M",
                      nics=[f"e1000e:netdev=stream,connect={m.nic_sock(0)},mac=52:54:00:00:00:02",
                            f"e1000e:netdev=user,hostfwd={port}"],
                      append="app=ptp ptp_role=slave mgmt=port1 ip1=10.0.2.15/24 " + intervals) as q:
                q.expect(r"apps: port0=ptp port1=mgmt", 90)
                q.expect("linerate> ", 30)
                end = time.monotonic() + 90
                while time.monotonic() < end:
                    q._read(1.0)
                    page = fetch(port)
                    if re.search(follower, page, re.M) and \
                            re.search(r'^linerate_ptp_path_delay_seconds\{port="port0"\} ', page, re.M):
                        break
        finally:
            stop.set()
            reader.join(5)
    assert re.search(follower, page, re.M), page[-3000:]
    s = "port0"
    assert sum(metric(page, "linerate_ptp_port_state", port=s, state=st) for st in
               re.findall(rf'^linerate_ptp_port_state\{{port="{s}",state="(\w+)"\}}', page, re.M)) == 1
    # seconds: two guests' clocks start apart by their boot times, the first step comes in SLAVE
    assert abs(metric(page, "linerate_ptp_offset_seconds", port=s)) < 60
    metric(page, "linerate_ptp_frequency_ppb", port=s)
    assert 0 <= metric(page, "linerate_ptp_path_delay_seconds", port=s) < 1
    assert metric(page, "linerate_ptp_servo_state", port=s) in (0, 1, 2)
    assert metric(page, "linerate_ptp_received_total", port=s, message="sync") > 0
    assert metric(page, "linerate_ptp_events_total", port=s, event="tx_delay_req") > 0
    assert not re.search(r'^linerate_ptp_\w+\{port="port1"', page, re.M)	# the mgmt port has no PTP
    promtool(page)


class DhcpServer(threading.Thread):
    """A DHCP server (RFC 2131) on the management port's stream socket: to
    each DISCOVER an OFFER and to each REQUEST an ACK of leases[k], k the
    number of DHCPRELEASEs seen so far (one per lease the guest refused);
    the last lease is offered from then on. Answers ARP for its own
    address (lwIP sends the DHCPRELEASE to it), not for the leases'. Keeps
    (time, message type, yiaddr) of what it saw."""

    SERVER, MAC = "10.7.0.1", "02:00:00:00:07:01"

    def __init__(self, port, leases):
        super().__init__(daemon=True)
        self.port, self.leases, self.seen, self.stop = port, leases, [], False

    def releases(self):
        return sum(1 for _, t, _ in self.seen if t == "release")

    def run(self):
        from scapy.all import ARP, BOOTP, DHCP, IP, UDP, Ether
        names = {1: "discover", 3: "request", 7: "release"}
        while not self.stop:
            for f in self.port.recv(16, timeout=0.2):
                p = Ether(f)
                if ARP in p and p[ARP].op == 1 and p[ARP].pdst == self.SERVER:
                    self.port.send([bytes(Ether(dst=p.src, src=self.MAC) /
                                          ARP(op=2, hwsrc=self.MAC, psrc=self.SERVER, hwdst=p.src,
                                              pdst=p[ARP].psrc))])
                    continue
                if DHCP not in p or p[BOOTP].op != 1:
                    continue
                opts = dict(o for o in p[DHCP].options if isinstance(o, tuple) and len(o) == 2)
                kind = names.get(opts.get("message-type"))
                if kind is None:
                    continue
                addr, mask = self.leases[min(self.releases(), len(self.leases) - 1)]
                self.seen.append((time.monotonic(), kind, addr))
                if kind == "release":
                    continue
                reply = (Ether(dst=p.src, src=self.MAC) / IP(src=self.SERVER, dst="255.255.255.255") /
                         UDP(sport=67, dport=68) /
                         BOOTP(op=2, xid=p[BOOTP].xid, yiaddr=addr, siaddr=self.SERVER, chaddr=p[BOOTP].chaddr) /
                         DHCP(options=[("message-type", "offer" if kind == "discover" else "ack"),
                                       ("server_id", self.SERVER), ("subnet_mask", mask),
                                       ("lease_time", 3600), "end"]))
                self.port.send([bytes(reply)])


def test_dhcp_bad_leases_refused_with_backoff():
    """A server that offers leases the port cannot take: a subnet's
    broadcast address, then a /16 overlapping port1's /24 (both with the
    server inside, so the DHCPRELEASE reaches it). Each is refused
    on the console and in mgmt_dhcp_refused_total, released, and asked for
    again after 1 s, then 2 s (the wait doubles up to 64 s, docs/apps/mgmt.md); the
    good lease offered next is taken and `mgmt` shows it with the count.
    Before the back-off the client asked again at once, about once a
    second for as long as the server offered a bad lease."""
    bad = [("10.7.0.255", "255.255.255.0"), ("10.7.0.30", "255.255.0.0")]
    good = ("10.7.0.20", "255.255.255.0")
    with Qemu(boot="kernel", mem="256M", nics=["e1000e:netdev=stream"] * 3,
              append="app=fwd mgmt=port0 ip0=dhcp ip1=10.7.128.1/24 ip2=10.9.0.1/24 stats=0") as q:
        q.expect("mgmt: port0 asks DHCP for its address", 90)
        port = StreamPort(q.nic_sock(0))
        server = DhcpServer(port, bad + [good])
        server.start()
        try:
            q.expect(r"mgmt: port0: DHCP lease 10\.7\.0\.255 from 10\.7\.0\.1 refused: the subnet's network or "
                     r"broadcast address; asking again in 1 s", 90)
            q.expect(r"mgmt: port0: DHCP lease 10\.7\.0\.30 from 10\.7\.0\.1 refused: overlaps ip1=10\.7\.128\.1/24: "
                     r"a subnet may be on one link only; asking again in 2 s", 90)
            q.expect(r"mgmt: port0: DHCP lease 10\.7\.0\.20/24 from 10\.7\.0\.1, router none, 3600 s", 90)
            q.send("\r")
            q.expect("linerate> ", 30)
            q.send("mgmt\r")
            q.expect(r"mgmt: port0: DHCP lease 10\.7\.0\.20/24 from 10\.7\.0\.1, router none, 3600 s: ping, HTTP on 80\r\n"
                     r"mgmt: port0: DHCP leases refused 2\r\n", 30)
        finally:
            server.stop = True
            server.join(10)
            port.close()
    seen = server.seen
    assert [a for _, t, a in seen if t == "release"] == ["10.7.0.255", "10.7.0.30"], seen
    # The next DISCOVER comes at least the wait after the REQUEST of the
    # lease refused (the refusal follows its ACK; a lower bound: load only
    # lengthens it). The DHCPRELEASE itself waits for ARP, so it is no mark.
    for i, wait in ((0, 1), (1, 2)):
        rel = [t for t, k, _ in seen if k == "release"][i]
        req = max(t for t, k, _ in seen if k == "request" and t < rel)
        nxt = min(t for t, k, _ in seen if k == "discover" and t > rel)
        assert nxt - req >= wait - 0.05, (i, nxt - req, seen)
