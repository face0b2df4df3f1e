#!/bin/bash
# Capture real linuxptp traffic between two ptp4l instances on a veth pair
# in two network namespaces made here (and removed), for the unit tests'
# tests/unit/data/: ptp4l with software stamps and --free_running 1 (it
# never steers this machine's clock), tcpdump on the master's side, pmc
# asking across the link from the slave's namespace. Needs root.
#   tools/ptp_captures.sh NAME SECONDS "MASTER ARGS" "SLAVE ARGS" "CMD|CMD..." "PMC FLAGS" ["TCPDUMP FILTER"]
# e.g. the management capture:
#   tools/ptp_captures.sh ptp4l-pmc-l2 9 "-2 --priority1 1" "-2 -s" \
#     "GET DEFAULT_DATA_SET|GET CURRENT_DATA_SET|GET PARENT_DATA_SET|GET TIME_STATUS_NP|GET PORT_DATA_SET|SET PRIORITY1 10|GET NULL_MANAGEMENT" -2
# UDPv6 (ptp4l -6; the veths also have fd77::1 and fd77::2, without DAD):
#   tools/ptp_captures.sh ptp4l-udp6-e2e-twostep 8 "-6 --priority1 1" "-6 -s" \
#     "GET CURRENT_DATA_SET|GET PARENT_DATA_SET" -6 "udp port 319 or udp port 320"
# Writes NAME.pcap and the ptp4l/pmc output (NAME.*.log) in the current directory.
set -u
name=$1 secs=$2 margs=$3 sargs=$4 cmds=$5 pflags=${6:--2} filter=${7:-not ip6}
A=lrcapA$$ B=lrcapB$$ VA=lrca$$ VB=lrcb$$
cleanup() { ip netns del "$A" 2>/dev/null; ip netns del "$B" 2>/dev/null; }
trap cleanup EXIT
ip netns add "$A" && ip netns add "$B"
ip link add "$VA" type veth peer name "$VB"
ip link set "$VA" netns "$A" && ip link set "$VB" netns "$B"
ip -n "$A" addr add 10.77.0.1/24 dev "$VA" && ip -n "$B" addr add 10.77.0.2/24 dev "$VB"
ip -n "$A" -6 addr add fd77::1/64 dev "$VA" nodad && ip -n "$B" -6 addr add fd77::2/64 dev "$VB" nodad
for ns in "$A" "$B"; do ip -n "$ns" link set lo up; done
ip -n "$A" link set "$VA" up && ip -n "$B" link set "$VB" up
# Checksums filled in before the capture sees them (a veth leaves UDP's to
# the receiver: the capture would hold the pseudo-header sum): ethtool -K
# tx off, as its ioctl (SIOCETHTOOL, ETHTOOL_STXCSUM 0), ethtool not needed.
txoff='import ctypes, fcntl, socket, struct, sys
v = ctypes.create_string_buffer(struct.pack("II", 0x17, 0))
fcntl.ioctl(socket.socket(socket.AF_INET, socket.SOCK_DGRAM), 0x8946,
            struct.pack("16sQ", sys.argv[1].encode(), ctypes.addressof(v)) + bytes(16))'
ip netns exec "$A" python3 -c "$txoff" "$VA" && ip netns exec "$B" python3 -c "$txoff" "$VB"
ip netns exec "$A" tcpdump -i "$VA" -U -w "$name.pcap" "$filter" 2>/dev/null & td=$!
sleep 1
# shellcheck disable=SC2086 # the argument strings are word lists
ip netns exec "$A" ptp4l -i "$VA" -S -m -q --free_running 1 --uds_address "/tmp/$A.uds" $margs > "$name.master.log" 2>&1 & pa=$!
# shellcheck disable=SC2086
ip netns exec "$B" ptp4l -i "$VB" -S -m -q --free_running 1 --uds_address "/tmp/$B.uds" $sargs > "$name.slave.log" 2>&1 & pb=$!
sleep "$secs"
if [ -n "$cmds" ]; then
	IFS='|' read -ra c <<< "$cmds"
	# shellcheck disable=SC2086
	ip netns exec "$B" pmc $pflags -i "$VB" -b 0 "${c[@]}" > "$name.pmc.log" 2>&1
	sleep 1
fi
kill "$pa" "$pb"; wait "$pa" "$pb"
sleep 1
kill "$td"; wait "$td"
rm -f "/tmp/$A.uds" "/tmp/$B.uds"
