#!/bin/sh
# Fetch and unpack lwIP 2.1.3 from Debian's source package (docs/toolchain.md
# section 2) into $1/lwip-2.1.3, through a private deb-src list under $1
# (tools/debsrc.sh). The plain upstream tarball is
# used; Debian's patches touch the socket API and ppp only.
set -eu
OUT=$(realpath -m "$1")
[ -f "$OUT/lwip-2.1.3/src/core/tcp.c" ] && exit 0
. "$(dirname "$0")/debsrc.sh"
debsrc_source "$OUT" --download-only lwip=2.1.3+dfsg1-2
tar xf "$OUT/dl/lwip_2.1.3+dfsg1.orig.tar.xz" -C "$OUT"
test -f "$OUT/lwip-2.1.3/src/core/tcp.c"
