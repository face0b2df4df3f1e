# Sourced by tools/fetch-*.sh: debsrc DIR sets APT to apt-get options for
# a private deb-src list of Debian bookworm main on the machine's own mirror
# (the first URIs: of debian.sources), its lists under DIR, updated; the
# machine's apt configuration is left alone (docs/toolchain.md section 2).
debsrc() {
	mkdir -p "$1/lists/partial"
	URI=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
	[ -n "$URI" ] || URI=http://deb.debian.org/debian
	printf 'Types: deb-src\nURIs: %s\nSuites: bookworm bookworm-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
		"$URI" > "$1/src.sources"
	APT="-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$1 -o Dir::State::Lists=$1/lists -o APT::Sandbox::User=root"
	apt-get $APT update > "$1/update.log" 2>&1 || { cat "$1/update.log"; return 1; }
}
