#!/bin/sh
# Install what linerate needs from Debian 12 packages (README.md, "Two commands").
# QEMU >= 8.1 comes from bookworm-backports: 7.2 has no igb and no 1588 registers.
# The Debian Linux guest (tools/linux_guest.py) takes linux-image-amd64's image and
# busybox-static with apt-get download, not installed; cpio archives its initramfs.
set -eu
PKGS="gcc make binutils gdb git newlib-source gnu-efi grub-pc-bin grub-efi-amd64-bin grub-common
xorriso mtools ovmf libcmocka-dev clang libclang-rt-14-dev python3 python3-pytest python3-scapy python3-matplotlib
iproute2 iputils-ping iputils-tracepath
iperf3 sockperf netperf linuxptp prometheus curl ipxe-qemu tcpdump tshark tcpreplay
pkg-config libglib2.0-dev console-setup-linux valgrind cpio"
BACKPORTS_PKGS="qemu-system-x86 qemu-utils"

missing=""
for p in $PKGS $BACKPORTS_PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
qemu_ok=0
if command -v qemu-system-x86_64 >/dev/null; then
	v=$(qemu-system-x86_64 --version | sed -n 's/.*version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
	set -- $v
	[ "$1" -gt 8 ] || { [ "$1" -eq 8 ] && [ "$2" -ge 1 ]; } && qemu_ok=1
fi
[ -z "$missing" ] && [ $qemu_ok = 1 ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "make deps: missing:$missing; run as root (or with sudo) to install them" >&2
	exit 1
fi
# The machine's own Debian mirror (first URIs: of debian.sources, else sources.list's).
URI=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[ -n "$URI" ] || URI=$(awk '$1 == "deb" && $2 !~ /^\[/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
[ -n "$URI" ] || { echo "make deps: no Debian source configured in /etc/apt" >&2; exit 1; }
src() { # FILE SUITE COMPONENT: a deb822 source on the machine's mirror
	printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: %s\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$URI" "$2" "$3" > "$1"
}
grep -rqs bookworm-backports /etc/apt/sources.list /etc/apt/sources.list.d/ ||
	src /etc/apt/sources.list.d/linerate-backports.sources bookworm-backports main
# netperf is in Debian's non-free component only.
grep -rqsE '^(Components:|deb ).*[[:space:]]non-free([[:space:]]|$)' /etc/apt/sources.list /etc/apt/sources.list.d/ ||
	src /etc/apt/sources.list.d/linerate-non-free.sources bookworm non-free
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends $PKGS
apt-get install -y --no-install-recommends -t bookworm-backports $BACKPORTS_PKGS
