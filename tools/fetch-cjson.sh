#!/bin/sh
# Fetch cJSON 1.7.15 from Debian's source package, Debian's patches (its
# security fixes) applied, into $1/cjson-1.7.15 (iperf3 3.12 is built with
# the same cJSON; rr's iperf3 server parses its JSON with it).
set -eu
OUT=$(realpath -m "$1")
[ -f "$OUT/cjson-1.7.15/cJSON.c" ] && exit 0
. "$(dirname "$0")/debsrc.sh"
debsrc_source "$OUT" cjson
rm -rf "$OUT/cjson-1.7.15"
mv "$(find "$OUT/dl" -maxdepth 1 -type d -name 'cjson-1.7.15*' | head -1)" "$OUT/cjson-1.7.15"
test -f "$OUT/cjson-1.7.15/cJSON.c"
