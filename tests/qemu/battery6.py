"""The IPv6 kinds of the router's malformed-frame battery (test_battery.py)
aimed at a host on lwIP (app=rr, the management port): each frame, the
counters it must move (in front of lwIP, net/lwip/filter.c, or lwIP's own
drop and error counters) and what it draws back (RFC 8200 4, 4.5; RFC 5095
3; RFC 4443 2.4, 3.1, 3.4; RFC 4861 7.1.1; RFC 4291 2.7). lwIP 2.1.3's
Parameter Problems for an extension header quote the packet from that
header on, not from its IPv6 header (RFC 4443 3.4 asks for the invoking
packet): the fourth field of the error says where the quote starts."""
import struct

from scapy.all import TCP, UDP, Ether, Raw
from scapy.layers.inet6 import (HBHOptUnknown, ICMPv6EchoRequest, ICMPv6ND_NS, ICMPv6NDOptSrcLLAddr, IPv6,
                                IPv6ExtHdrDestOpt, IPv6ExtHdrFragment, IPv6ExtHdrHopByHop, IPv6ExtHdrRouting)


def kinds6(mac, h_mac, h_ip6, g_ip6, udp_port, tcp_port):
    """(name, frame, the counters it moves, what it draws: the ICMPv6 error
    (type, code, pointer, where its quote starts past the IPv6 header or
    None: at it), "echo" (answered from udp_port) or None) for each kind,
    from h_mac/h_ip6 to the host at mac/g_ip6 that serves UDP udp_port
    (an echo) and TCP tcp_port."""
    e = Ether(src=h_mac, dst=mac)
    echo = UDP(sport=5000, dport=udp_port) / Raw(b"e" * 8)
    other = g_ip6.rsplit(":", 1)[0] + ":99"

    def ip6(**kw):
        return e / IPv6(**{"src": h_ip6, "dst": g_ip6, **kw})
    ext = {"ipv6_ext": 1, "ip6_drop": 1}
    return [
        ("bad_version", ip6(version=4) / echo, {"bad_version": 1}, None),
        ("jumbogram_plen_0", ip6(plen=0) / echo, {"bad_totlen": 1}, None),
        ("plen_past_frame", ip6(plen=200) / echo, {"bad_totlen": 1}, None),
        ("src_multicast", e / IPv6(src="ff02::1", dst=g_ip6) / echo, {"bad_saddr": 1}, None),
        ("dst_not_ours", ip6(dst=other) / echo, {"not_ours": 1}, None),
        ("tcp_to_all_nodes", Ether(src=h_mac, dst="33:33:00:00:00:01") / IPv6(src=h_ip6, dst="ff02::1") /
         TCP(sport=5001, dport=tcp_port, flags="S"), {"not_ours": 1}, None),
        ("udp_cut", ip6(nh=17, plen=4) / Raw(struct.pack(">HH", 5000, udp_port)), {"too_short": 1}, None),
        ("udp_closed_port", ip6() / UDP(sport=5000, dport=9999) / Raw(b"x"),
         {"udp_closed_port": 1, "icmp_unreach_sent": 1}, (1, 4, 0, None)),
        ("frag_too_long", ip6() / IPv6ExtHdrFragment(nh=17, offset=8130, m=1, id=7) / Raw(bytes(600)),
         {"frag_too_long": 1}, None),
        ("bad_proto", ip6(nh=47) / Raw(b"gre!" * 4), {"bad_proto": 1}, None),
        ("tcp_bad_option", ip6() / TCP(sport=5002, dport=tcp_port, flags="S", dataofs=6) / Raw(b"\x02\x00\x00\x00"),
         {"tcp_bad_option": 1}, None),
        ("hbh_unknown_skip", ip6() / IPv6ExtHdrHopByHop(options=[HBHOptUnknown(otype=0x1e, optdata=b"ab")]) / echo,
         {"ipv6_ext": 1, "echo_udp": 1}, "echo"),
        ("hbh_unknown_discard", ip6() / IPv6ExtHdrHopByHop(options=[HBHOptUnknown(otype=0x5e, optdata=b"ab")]) /
         echo, ext, None),
        ("hbh_unknown_icmp", ip6() / IPv6ExtHdrHopByHop(options=[HBHOptUnknown(otype=0x9e, optdata=b"ab")]) / echo,
         ext, (4, 2, 42, 0)),
        ("hbh_not_first", ip6() / IPv6ExtHdrDestOpt() / IPv6ExtHdrHopByHop() / echo, ext, (4, 1, 40, 8)),
        ("rh0", ip6() / IPv6ExtHdrRouting(type=0, segleft=1, addresses=[other]) / echo, ext, (4, 0, 42, 0)),
        ("ext_then_unknown", ip6() / IPv6ExtHdrDestOpt(nh=47) / Raw(b"gre!" * 4),
         {"ipv6_ext": 1, "ip6_drop": 1, "ip6_proterr": 1}, (4, 1, 40, None)),
        ("atomic_fragment", ip6() / IPv6ExtHdrFragment(offset=0, m=0, id=8) / echo,
         {"fragment": 1, "echo_udp": 1}, "echo"),
        ("fragment_not_8n", ip6() / IPv6ExtHdrFragment(nh=17, offset=0, m=1, id=9) / Raw(bytes(13)),
         {"fragment": 1, "ip6_drop": 1}, (4, 0, 4, 0)),
        ("icmp6_bad_checksum", ip6() / ICMPv6EchoRequest(cksum=0x1234), {"icmp6": 1, "icmp6_chkerr": 1,
                                                                          "icmp6_drop": 1}, None),
        ("ns_hop_limit_64", e / IPv6(src=h_ip6, dst=g_ip6, hlim=64) / ICMPv6ND_NS(tgt=g_ip6) /
         ICMPv6NDOptSrcLLAddr(lladdr=h_mac), {"icmp6": 1, "nd6_drop": 1, "nd6_proterr": 1}, None),
        ("udp_bad_checksum", ip6() / UDP(sport=5000, dport=udp_port, chksum=0x1234) / Raw(b"e" * 8),
         {"udp": 1, "udp_chkerr": 1, "udp_drop": 1}, None),
    ]
