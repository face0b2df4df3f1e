#!/bin/bash
# Capture real linuxptp traffic between two ptp4l instances on a veth pair
# in two network namespaces made here (and removed), for the unit tests'
# tests/unit/data/: ptp4l with software stamps and --free_running 1 (it
# never steers this machine's clock), tcpdump on the master's side, pmc
# asking across the link from the slave's namespace. Needs root.
#   tools/ptp_captures.sh NAME SECONDS "MASTER ARGS" "SLAVE ARGS" "CMD|CMD..." "PMC FLAGS"
# e.g. the management capture:
#   tools/ptp_captures.sh ptp4l-pmc-l2 9 "-2 --priority1 1" "-2 -s" \
#     "GET DEFAULT_DATA_SET|GET CURRENT_DATA_SET|GET PARENT_DATA_SET|GET TIME_STATUS_NP|GET PORT_DATA_SET|SET PRIORITY1 10|GET NULL_MANAGEMENT" -2
# Writes NAME.pcap and the ptp4l/pmc output (NAME.*.log) in the current directory.
set -u
name=$1 secs=$2 margs=$3 sargs=$4 cmds=$5 pflags=${6:--2}
A=lrcapA$$ B=lrcapB$$ VA=lrca$$ VB=lrcb$$
cleanup() { ip netns del "$A" 2>/dev/null; ip netns del "$B" 2>/dev/null; }
trap cleanup EXIT
ip netns add "$A" && ip netns add "$B"
ip link add "$VA" type veth peer name "$VB"
ip link set "$VA" netns "$A" && ip link set "$VB" netns "$B"
ip -n "$A" addr add 10.77.0.1/24 dev "$VA" && ip -n "$B" addr add 10.77.0.2/24 dev "$VB"
for ns in "$A" "$B"; do ip -n "$ns" link set lo up; done
ip -n "$A" link set "$VA" up && ip -n "$B" link set "$VB" up
ip netns exec "$A" tcpdump -i "$VA" -U -w "$name.pcap" not ip6 2>/dev/null & td=$!
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
