/*
 * One line per frame as `tcpdump -q -n` prints it, for the console's
 * `capture ... summary`:
 *   IP 10.1.0.2.1234 > 10.2.0.2.5678: UDP, length 18
 *   IP 10.1.0.2.1234 > 10.2.0.2.80: tcp 0
 *   IP 10.1.0.2 > 10.2.0.2: ICMP echo request, id 1, seq 1, length 8
 *   IP6 fe80::2.1234 > ff02::6b.5678: UDP, length 8
 *   IP6 ::1 > 1::: ICMP6, echo request, id 7, seq 9, length 8
 *   ARP, Request who-has 10.1.0.1 tell 10.1.0.2, length 28
 *   ARP, Reply 10.1.0.2 is-at 02:00:00:00:00:01, length 28
 *   vlan 100, p 0, IP ...            (one 802.1Q/802.1ad tag)
 *   02:00:00:00:00:01 > 02:00:00:00:00:02, Unknown Ethertype (0x88f7), length 60
 *                                    (any other ethertype, tcpdump -q -e's words)
 * A header cut short (snaplen, a runt) ends the line with tcpdump's
 * "[|ip]" ("[|ip6]", "[|arp]", "[|udp]", "[|tcp]", "[|icmp]", "[|icmp6]", "[|ether]").
 */
#ifndef NET_PKTSUM_H
#define NET_PKTSUM_H
#include <stddef.h>
#include <stdint.h>

/* The summary of the caplen bytes at f (of a wirelen-byte frame) into buf
 * (cap bytes, NUL-terminated, cut if need be). Returns buf. */
char *pkt_summary(char *buf, size_t cap, const uint8_t *f, uint32_t caplen, uint32_t wirelen);
#endif
