#!/usr/bin/env bash
# Builds insncount.so (and QEMU's contrib hotblocks.so) against the installed QEMU's plugin header, taken from
# Debian's source package of that QEMU (downloaded into the output directory once).
set -eu
command -v pkg-config >/dev/null && pkg-config --exists glib-2.0 || \
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends pkg-config libglib2.0-dev >/dev/null
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-/tmp/insncount}
mkdir -p "$out/lists/partial" "$out/parts"
ver=$(dpkg-query -W -f='${Version}' qemu-system-x86)
# the same Debian mirror the machine already uses, for source packages
uri=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null)
[ -n "$uri" ] || uri=$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list)
cat > "$out/parts/src.sources" <<SRC
Types: deb-src
URIs: $uri
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
A="-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$out/parts -o Dir::State::Lists=$out/lists -o APT::Sandbox::User=root"
if [ ! -f "$out/qemu-plugin.h" ]; then
  (cd "$out" && apt-get $A update >/dev/null && apt-get $A source --download-only "qemu=$ver" >/dev/null 2>&1 || true)
  tarball=$(ls "$out"/qemu_*.orig.tar.xz | head -1)
  tar xf "$tarball" -C "$out" --wildcards '*/include/qemu/qemu-plugin.h' '*/contrib/plugins/hotblocks.c'
  cp "$out"/qemu-*/include/qemu/qemu-plugin.h "$out/"
fi
# list the 20000 hottest blocks, not 20, so a per-function profile covers the whole fast path
for src in "$out"/qemu-*/contrib/plugins/hotblocks.c; do
  [ -f "$src" ] && sed -E 's/limit = [0-9]+;/limit = 20000;/' "$src" > "$out/hotblocks.c"
done
gcc -O2 -shared -fPIC -I"$out" $(pkg-config --cflags glib-2.0) -o "$out/insncount.so" "$here/insncount.c" -lpthread
[ -f "$out/hotblocks.c" ] && gcc -O2 -shared -fPIC -I"$out" $(pkg-config --cflags glib-2.0) -o "$out/hotblocks.so" "$out/hotblocks.c" $(pkg-config --libs glib-2.0)
echo "$out/insncount.so"
