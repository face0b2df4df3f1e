# Sourced by tools/fetch-*.sh: debsrc_source OUT ARGS... runs
# `apt-get source ARGS` in OUT/dl through a private deb-src list of Debian
# bookworm main on the machine's own mirror (the first URIs: of
# debian.sources), its lists under OUT/apt; the machine's apt configuration
# is left alone (docs/toolchain.md section 2). Output in OUT/apt/*.log,
# shown when apt-get fails.
debsrc_source() {
	D=$1/apt
	shift
	mkdir -p "$D/lists/partial" "$D/../dl"
	URI=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
	[ -n "$URI" ] || URI=http://deb.debian.org/debian
	printf 'Types: deb-src\nURIs: %s\nSuites: bookworm bookworm-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
		"$URI" > "$D/src.sources"
	APT="-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$D -o Dir::State::Lists=$D/lists -o APT::Sandbox::User=root"
	apt-get $APT update > "$D/update.log" 2>&1 || { cat "$D/update.log"; return 1; }
	(cd "$D/../dl" && apt-get $APT source "$@") > "$D/source.log" 2>&1 || { cat "$D/source.log"; return 1; }
}
