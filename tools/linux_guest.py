#!/usr/bin/python3
"""A Debian Linux guest for comparisons in the same QEMU: Debian's own
kernel (linux-image-amd64's current image) and an initramfs of
busybox-static, the kernel's e1000e module and the host's sockperf 3.7
with its libraries, archived by Debian's cpio. Its /init reads the kernel
command line:
  lg_ip0=A.B.C.D/LEN, lg_ip1=...    eth0's, eth1's address (link up)
  lg_neigh0=A.B.C.D@MAC, lg_neigh1  a permanent neighbour (ARP entry) on eth0, eth1
  lg_forward=1                      IPv4 forwarding (net.ipv4.ip_forward=1)
  lg_sockperf=1                     `sockperf server`, UDP and TCP on 11111
  lg_vlan0=VID:A.B.C.D/LEN          an 802.1Q sub-interface eth0.VID with that
                                    address (the kernel's 8021q module, `ip link
                                    add link eth0 name eth0.VID type vlan id VID`)
  lg_gw=A.B.C.D                     the default route
then prints each interface ("linux-guest: eth0 MAC") and "linux-guest:
ready". tools/bench_rr.py boots it as a sockperf server (ROLES["server"]),
tools/rfc2544.py as an IPv4 router between two ports (ROLES["router"]).

The packages come with `apt-get download` (the machine's apt sources) into
build/linuxguest/ once; nothing is installed on the host but cpio.

Usage: tools/linux_guest.py [DIR]   prints the kernel and initramfs paths"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qemurun import BUILD  # noqa: E402
from usage import help_exit  # noqa: E402

# The initramfs opens no console (no /dev/console in an archive made
# without root): /init mounts devtmpfs, then takes /dev/console itself.
INIT = r"""#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
exec 0</dev/console 1>/dev/console 2>&1
for a in $(cat /proc/cmdline); do
	case $a in lg_ip[01]=*|lg_neigh[01]=*|lg_forward=*|lg_sockperf=*|lg_vlan0=*|lg_gw=*) eval "${a%%=*}=${a#*=}";; esac
done
insmod /e1000e.ko
ip link set lo up
for i in 0 1; do
	eval "addr=\$lg_ip$i neigh=\$lg_neigh$i"
	[ -n "$addr" ] || continue
	ip addr add $addr dev eth$i
	ip link set eth$i up
	[ -z "$neigh" ] || arp -i eth$i -s ${neigh%@*} ${neigh#*@}
done
if [ -n "$lg_vlan0" ]; then
	for m in llc stp garp mrp 8021q; do insmod /$m.ko; done
	vid=${lg_vlan0%%:*}
	ip link set eth0 up
	ip link add link eth0 name eth0.$vid type vlan id $vid
	ip addr add ${lg_vlan0#*:} dev eth0.$vid
	ip link set eth0.$vid up
fi
[ -z "$lg_gw" ] || ip route add default via $lg_gw
[ "$lg_forward" != 1 ] || sysctl -w net.ipv4.ip_forward=1
if [ "$lg_sockperf" = 1 ]; then
	sockperf server -i 0.0.0.0 > /dev/null 2>&1 &
	sockperf server --tcp -i 0.0.0.0 > /dev/null 2>&1 &
fi
for d in /sys/class/net/eth*; do echo "linux-guest: ${d##*/} $(cat $d/address)"; done
echo "linux-guest: ready $(uname -r)"
exec sh
"""

# Kernel command lines of the guest's roles, formatted with the caller's
# addresses: "console=ttyS0 quiet" (the console to the serial pipe, the
# kernel's own lines left out), ipv6.disable=1 on the router (no router
# solicitations or MLD reports among the trial's frames).
ROLES = {
    "server": "console=ttyS0 quiet lg_ip0={ip0} lg_sockperf=1",
    "router": "console=ttyS0 quiet ipv6.disable=1 lg_ip0={ip0} lg_ip1={ip1} lg_neigh0={neigh0} "
              "lg_neigh1={neigh1} lg_forward=1",
}


def download(dl, pkg):
    """The .deb of pkg in dl (apt-get download once)."""
    os.makedirs(dl, exist_ok=True)
    have = [f for f in os.listdir(dl) if f.startswith(pkg + "_") and f.endswith(".deb")]
    if not have:
        subprocess.run(["apt-get", "-o", "APT::Sandbox::User=root", "download", pkg], cwd=dl, check=True,
                       stdout=subprocess.DEVNULL)
        have = [f for f in os.listdir(dl) if f.startswith(pkg + "_") and f.endswith(".deb")]
    return os.path.join(dl, have[0])


def cpio(root, path):
    """An initramfs at path: the tree root as a newc cpio archive (Debian's
    cpio, every file owned by root), uncompressed: under TCG the kernel's
    gunzip of it took longer than QEMU's load of the 10 MB."""
    names = subprocess.run(["find", "."], cwd=root, capture_output=True, check=True).stdout
    with open(path, "wb") as f:
        subprocess.run(["cpio", "--quiet", "-o", "-H", "newc", "-R", "0:0"], cwd=root, input=names, stdout=f,
                       check=True)


# The kernel modules the initramfs carries, under lib/modules/KVER/kernel/:
# e1000e, and 8021q with the modules it needs (INIT loads them in this order).
MODULES = ("drivers/net/ethernet/intel/e1000e/e1000e.ko", "net/llc/llc.ko", "net/802/stp.ko", "net/802/garp.ko",
           "net/802/mrp.ko", "net/8021q/8021q.ko")


def initramfs(x, kver, path):
    """Write the initramfs at path from x, the tree the .debs were
    extracted into (busybox-static's bin/busybox, linux-image-KVER's
    e1000e.ko and 8021q.ko with the modules it needs), with INIT, the host's sockperf and its libraries."""
    root = path + ".root"
    shutil.rmtree(root, ignore_errors=True)
    for d in ("bin", "proc", "sys", "dev", "tmp"):
        os.makedirs(os.path.join(root, d))
    with open(os.path.join(root, "init"), "w") as f:
        f.write(INIT)
    os.chmod(os.path.join(root, "init"), 0o755)
    shutil.copy(os.path.join(x, "bin", "busybox"), os.path.join(root, "bin", "busybox"))
    mods = os.path.join(x, "lib", "modules", kver, "kernel")
    for m in MODULES:
        shutil.copy(os.path.join(mods, m), os.path.join(root, os.path.basename(m)))
    sockperf = shutil.which("sockperf")
    shutil.copy(sockperf, os.path.join(root, "bin", "sockperf"))
    libs = re.findall(r"(/\S+\.so[.\d]*) \(", subprocess.run(["ldd", sockperf], capture_output=True,
                                                               text=True).stdout)
    for lib in libs:
        os.makedirs(os.path.join(root, os.path.dirname(lib.lstrip("/"))), exist_ok=True)
        shutil.copy(os.path.realpath(lib), os.path.join(root, lib.lstrip("/")))
    cpio(root, path + ".new")
    os.replace(path + ".new", path)
    shutil.rmtree(root)


def build(out=os.path.join(BUILD, "linuxguest")):
    """(kernel, initramfs) paths, made under out when missing (the
    initramfs again when INIT changed)."""
    initrd = os.path.join(out, "initrd.cpio")
    x = os.path.join(out, "x")
    boot = os.path.join(x, "boot")
    kernels = [f for f in os.listdir(boot) if f.startswith("vmlinuz-")] if os.path.isdir(boot) else []
    if not kernels:
        deps = subprocess.run(["apt-cache", "depends", "linux-image-amd64"], capture_output=True, text=True).stdout
        image = re.search(r"Depends: (linux-image-\S+-amd64)", deps).group(1)
        shutil.rmtree(x, ignore_errors=True)
        for pkg in (image, "busybox-static"):
            subprocess.run(["dpkg-deb", "-x", download(os.path.join(out, "dl"), pkg), x], check=True)
        kernels = [f"vmlinuz-{image[len('linux-image-'):]}"]
    kernel = os.path.join(boot, kernels[0])
    stamp = initrd + ".init"
    if not os.path.exists(initrd) or not os.path.exists(stamp) or open(stamp).read() != INIT:
        if not shutil.which("cpio"):
            raise SystemExit("linux_guest: no cpio; make deps installs it (Debian package cpio)")
        initramfs(x, kernels[0][len("vmlinuz-"):], initrd)
        with open(stamp, "w") as f:
            f.write(INIT)
    return kernel, initrd


if __name__ == "__main__":
    help_exit(__doc__)
    print(*build(*sys.argv[1:2]))
