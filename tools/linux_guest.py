#!/usr/bin/python3
"""A Debian Linux guest for comparisons in the same QEMU (tools/bench_rr.py):
Debian's own kernel (linux-image-amd64's current image) and an initramfs
of busybox-static, the kernel's e1000e module and the host's sockperf 3.7
with its libraries. /init brings eth0 up with the address given on the
kernel command line (lg_addr=A.B.C.D/LEN), starts `sockperf server` (UDP
and TCP on 11111, as linerate's) and prints "linux-guest: ready".

The packages come with `apt-get download` (the machine's apt sources) into
build/linuxguest/ once; nothing is installed on the host.

Usage: tools/linux_guest.py [DIR]   prints the kernel and initramfs paths"""
import gzip
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qemurun import BUILD  # noqa: E402
from usage import help_exit  # noqa: E402

INIT = """#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for a in $(cat /proc/cmdline); do case $a in lg_addr=*) addr=${a#lg_addr=};; esac; done
insmod /e1000e.ko
ip link set lo up
ip addr add $addr dev eth0
ip link set eth0 up
sockperf server -i 0.0.0.0 > /dev/null 2>&1 &
sockperf server --tcp -i 0.0.0.0 > /dev/null 2>&1 &
echo "linux-guest: ready $(uname -r)"
exec sh
"""


def newc(entries):
    """An initramfs (cpio newc, gzip) of entries: (path, mode, bytes), or
    (path, mode, b"", (major, minor)) for a device node."""
    out = bytearray()
    for ino, (path, mode, data, *rdev) in enumerate(entries + [("TRAILER!!!", 0, b"")], 1):
        name = path.encode() + b"\0"
        major, minor = rdev[0] if rdev else (0, 0)
        hdr = "070701" + "".join(f"{v:08x}" for v in (ino, mode, 0, 0, 1, 0, len(data), 0, 0, major, minor,
                                                        len(name), 0))
        out += hdr.encode() + name
        out += b"\0" * (-len(out) % 4) + data
        out += b"\0" * (-len(out) % 4)
    return gzip.compress(bytes(out))


def download(dl, pkg):
    """The .deb of pkg in dl (apt-get download once)."""
    os.makedirs(dl, exist_ok=True)
    have = [f for f in os.listdir(dl) if f.startswith(pkg + "_") and f.endswith(".deb")]
    if not have:
        subprocess.run(["apt-get", "-o", "APT::Sandbox::User=root", "download", pkg], cwd=dl, check=True,
                       stdout=subprocess.DEVNULL)
        have = [f for f in os.listdir(dl) if f.startswith(pkg + "_") and f.endswith(".deb")]
    return os.path.join(dl, have[0])


def build(out=os.path.join(BUILD, "linuxguest")):
    """(kernel, initramfs) paths, made under out when missing."""
    initrd = os.path.join(out, "initrd.gz")
    kernels = [f for f in os.listdir(os.path.join(out, "x", "boot"))] if os.path.isdir(
        os.path.join(out, "x", "boot")) else []
    if kernels and os.path.exists(initrd):
        return os.path.join(out, "x", "boot", kernels[0]), initrd
    deps = subprocess.run(["apt-cache", "depends", "linux-image-amd64"], capture_output=True, text=True).stdout
    image = re.search(r"Depends: (linux-image-\S+-amd64)", deps).group(1)
    x = os.path.join(out, "x")
    shutil.rmtree(x, ignore_errors=True)
    for pkg in (image, "busybox-static"):
        subprocess.run(["dpkg-deb", "-x", download(os.path.join(out, "dl"), pkg), x], check=True)
    kver = image[len("linux-image-"):]
    e1000e = os.path.join(x, "lib", "modules", kver, "kernel", "drivers", "net", "ethernet", "intel",
                          "e1000e", "e1000e.ko")
    entries = [(d, 0o40755, b"") for d in ("bin", "proc", "sys", "dev", "lib", "lib64",
                                          "lib/x86_64-linux-gnu", "tmp")]
    entries += [("dev/console", 0o20600, b"", (5, 1)),
                ("init", 0o100755, INIT.encode()),
                ("bin/busybox", 0o100755, open(os.path.join(x, "bin", "busybox"), "rb").read()),
                ("e1000e.ko", 0o100644, open(e1000e, "rb").read()),
                ("bin/sockperf", 0o100755, open(shutil.which("sockperf"), "rb").read())]
    libs = re.findall(r"(/\S+\.so[.\d]*) \(", subprocess.run(["ldd", shutil.which("sockperf")],
                                                            capture_output=True, text=True).stdout)
    for lib in libs:
        entries.append((lib.lstrip("/"), 0o100755, open(os.path.realpath(lib), "rb").read()))
    with open(initrd, "wb") as f:
        f.write(newc(entries))
    return os.path.join(x, "boot", f"vmlinuz-{kver}"), initrd


if __name__ == "__main__":
    help_exit(__doc__)
    print(*build(*sys.argv[1:2]))
