"""Raw HTTP clients for tests/qemu/test_mgmt.py, run inside the test's
network namespace: `httpraw.py HOST CASE` sends one case's bytes and
prints the status line it got back (or "closed" / "reset") and, for the
"head" cases, "body N": the bytes after the header; CASE "hold N"
opens N connections that send half a request and prints how many the
server reset within 15 s; "trickle N S" opens N connections that send a
request a byte every S seconds (slowloris) and prints how many the server
reset within 30 s; "synflood N MAC [PORT]" sends N TCP SYNs to PORT
(80) from forged addresses of HOST's subnet that nobody has (.100-.199, ports
20000 up; scapy), which never answer, and prints N."""
import re
import socket
import sys
import time

CASES = {
    "no_request_line": b"\r\n\r\n",
    "post": b"POST /metrics HTTP/1.0\r\n\r\n",
    "not_found": b"GET /nope HTTP/1.0\r\n\r\n",
    "huge_headers": b"GET / HTTP/1.0\r\n" + b"X-Pad: " + b"a" * 4000 + b"\r\n\r\n",
    "binary": bytes(range(256)),
    "ok": b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n",
    "head_config": b"HEAD /config HTTP/1.0\r\n\r\n",
    "get_config": b"GET /config HTTP/1.0\r\n\r\n",
    "absolute": b"GET http://10.5.0.1/metrics HTTP/1.1\r\nHost: 10.5.0.1\r\n\r\n",
    "absolute_no_path": b"GET http://10.5.0.1 HTTP/1.0\r\n\r\n",
    # Bytes after the header's blank line, in the same segment: a body or
    # the next request, not looked at (was a 400; found by fuzz_http).
    "binary_after_header": b"GET / HTTP/1.0\r\n\r\n\x01\x02\x00",
}


def one(host, data):
    s = socket.create_connection((host, 80), timeout=20)
    try:
        s.sendall(data)
    except OSError:
        pass
    got = b""
    try:
        while True:
            d = s.recv(65536)
            if not d:
                break
            got += d
    except ConnectionResetError:
        return "reset" if not got else got.split(b"\r\n", 1)[0].decode()
    s.close()
    if not got:
        return "closed"
    head, _, body = got.partition(b"\r\n\r\n")
    status = head.split(b"\r\n", 1)[0].decode()
    length = re.search(rb"Content-Length: (\d+)", head)
    return f"{status} body {len(body)} length {int(length.group(1)) if length else -1}"


def hold(host, n):
    socks, reset = [], 0
    for _ in range(n):
        try:
            s = socket.create_connection((host, 80), timeout=20)
            s.sendall(b"GET / HTTP/1.0\r\nX-Slow: ")
        except ConnectionResetError:
            reset += 1  # refused: the reset came before the half request went out
            continue
        socks.append(s)
    end = time.monotonic() + 15
    for s in socks:
        s.settimeout(max(0.1, end - time.monotonic()))
        try:
            if s.recv(1) == b"":
                reset += 1
        except (ConnectionResetError, socket.timeout):
            reset += 1
        s.close()
    return reset


def trickle(host, n, secs):
    socks, reset = [], 0
    for _ in range(n):
        s = socket.create_connection((host, 80), timeout=20)
        s.setblocking(False)
        socks.append(s)
    line = b"GET / HTTP/1.0\r\nX-Slow: " + b"a" * 2000
    end = time.monotonic() + 30
    for i in range(len(line)):
        for s in list(socks):
            try:
                s.send(line[i:i + 1])
                if s.recv(1) == b"":
                    raise ConnectionResetError
            except BlockingIOError:
                pass
            except (ConnectionResetError, BrokenPipeError):
                reset += 1
                socks.remove(s)
                s.close()
        if not socks or time.monotonic() > end:
            break
        time.sleep(secs)
    for s in socks:
        s.close()
    return reset


def synflood(host, n, mac, port=80):
    from scapy.all import IP, TCP, Ether, conf, sendp
    conf.verb = 0
    net = host.rsplit(".", 1)[0]
    iface = conf.route.route(host)[0]
    frames = [Ether(dst=mac) / IP(src=f"{net}.{100 + i % 100}", dst=host) /
              TCP(sport=20000 + i, dport=port, flags="S", seq=i * 7919) for i in range(n)]
    sendp(frames, iface=iface)
    return n


if __name__ == "__main__":
    host, case = sys.argv[1], sys.argv[2]
    if case == "hold":
        print(hold(host, int(sys.argv[3])))
    elif case == "trickle":
        print(trickle(host, int(sys.argv[3]), float(sys.argv[4])))
    elif case == "synflood":
        print(synflood(host, int(sys.argv[3]), sys.argv[4], *map(int, sys.argv[5:6])))
    else:
        print(one(host, CASES[case]))
