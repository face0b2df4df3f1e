#!/bin/sh
# Fetch and unpack lwIP 2.1.3 from Debian's source package (docs/toolchain.md
# section 2) into $1/lwip-2.1.3, through a private deb-src list under $1 (the
# machine's apt configuration is left alone). The plain upstream tarball is
# used; Debian's patches touch the socket API and ppp only.
set -eu
OUT=$(realpath -m "$1")
[ -f "$OUT/lwip-2.1.3/src/core/tcp.c" ] && exit 0
D=$OUT/apt
mkdir -p "$D/lists/partial" "$OUT/dl"
URI=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[ -n "$URI" ] || URI=http://deb.debian.org/debian
printf 'Types: deb-src\nURIs: %s\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
	"$URI" > "$D/src.sources"
APT="-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$D -o Dir::State::Lists=$D/lists -o APT::Sandbox::User=root"
apt-get $APT update > "$D/update.log" 2>&1 || { cat "$D/update.log"; exit 1; }
cd "$OUT/dl"
apt-get $APT source --download-only lwip=2.1.3+dfsg1-2 > "$D/source.log" 2>&1 || { cat "$D/source.log"; exit 1; }
tar xf lwip_2.1.3+dfsg1.orig.tar.xz -C "$OUT"
test -f "$OUT/lwip-2.1.3/src/core/tcp.c"
