/*
 * tcpdump -q -n style one-line frame summaries (pktsum.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include "net/addr.h"
#include "net/bytes.h"
#include "net/pktsum.h"

/* a - b, or 0 when b is larger (lengths from the frame's own fields). */
static uint32_t sub0(uint32_t a, uint32_t b)
{
	return a > b ? a - b : 0;
}

struct line {
	char *b;
	size_t cap, len;
};

static void add(struct line *l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(l->b + l->len, l->cap - l->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->len = l->len + (size_t)n < l->cap ? l->len + (size_t)n : l->cap - 1;
}

/* The IPv6 address at a (RFC 5952 form, addr6_fmt). */
static void add_ip6(struct line *l, const uint8_t *a)
{
	char s[IPV6_STR_MAX];
	add(l, "%s", addr6_fmt(s, a));
}

static void add_ip4(struct line *l, const uint8_t *a)
{
	char s[IPV4_STR_MAX];
	add(l, "%s", ipv4_str(s, get32(a)));
}

/* The transport part after "src > dst" (with ports where UDP/TCP): p is the
 * transport header, n its bytes present, plen the IP payload length. */
static void add_l4(struct line *l, int v6, const uint8_t *ip, int proto, const uint8_t *p, uint32_t n, uint32_t plen)
{
	const uint8_t *src = v6 ? ip + 8 : ip + 12, *dst = v6 ? ip + 24 : ip + 16;
	void (*addr)(struct line *, const uint8_t *) = v6 ? add_ip6 : add_ip4;
	int ports = proto == 6 || proto == 17;
	addr(l, src);
	if (ports && n >= 4)
		add(l, ".%u", get16(p));
	add(l, " > ");
	addr(l, dst);
	if (ports && n >= 4)
		add(l, ".%u", get16(p + 2));
	add(l, ": ");
	if (proto == 17)
		n >= 8 ? add(l, "UDP, length %u", sub0(get16(p + 4), 8)) : add(l, "[|udp]");
	else if (proto == 6)
		n >= 20 ? add(l, "tcp %u", sub0(plen, 4u * (p[12] >> 4))) : add(l, "[|tcp]");
	else if (proto == 1 && n >= 8 && (p[0] == 0 || p[0] == 8))
		add(l, "ICMP echo %s, id %u, seq %u, length %u", p[0] ? "request" : "reply", get16(p + 4),
		    get16(p + 6), plen);
	else if (proto == 1)
		n >= 2 ? add(l, "ICMP type %u code %u, length %u", p[0], p[1], plen) : add(l, "[|icmp]");
	else if (proto == 58 && n >= 8 && (p[0] == 128 || p[0] == 129))
		add(l, "ICMP6, echo %s, id %u, seq %u, length %u", p[0] == 128 ? "request" : "reply", get16(p + 4),
		    get16(p + 6), plen);
	else if (proto == 58)
		n >= 1 ? add(l, "ICMP6, type %u, length %u", p[0], plen) : add(l, "[|icmp6]");
	else
		add(l, " ip-proto-%d %u", proto, plen); /* two spaces, as tcpdump */
}

static void add_arp(struct line *l, const uint8_t *a, uint32_t n)
{
	char mac[MAC_STR_MAX];
	if (n < 28 || get16(a) != 1 || get16(a + 2) != 0x0800) {
		add(l, "ARP, [|arp]");
		return;
	}
	add(l, "ARP, ");
	if (get16(a + 6) == 1) {
		add(l, "Request who-has ");
		add_ip4(l, a + 24);
		add(l, " tell ");
		add_ip4(l, a + 14);
	} else if (get16(a + 6) == 2) {
		add(l, "Reply ");
		add_ip4(l, a + 14);
		add(l, " is-at %s", mac_str(mac, a + 8));
	} else {
		add(l, "op %u", get16(a + 6));
	}
	add(l, ", length 28");
}

/* The frame from its ethertype on: p the payload after it, n its bytes. */
static void add_payload(struct line *l, const uint8_t *f, uint16_t type, const uint8_t *p, uint32_t n,
			uint32_t wirelen)
{
	char s[MAC_STR_MAX], d[MAC_STR_MAX];
	if (type == 0x0800 && n >= 20 && (p[0] >> 4) == 4) {
		uint32_t ihl = 4u * (p[0] & 0xf), tot = get16(p + 2);
		add(l, "IP ");
		add_l4(l, 0, p, p[9], p + ihl, sub0(n, ihl), sub0(tot, ihl));
	} else if (type == 0x0800) {
		add(l, "IP [|ip]");
	} else if (type == 0x86dd && n >= 40) {
		add(l, "IP6 ");
		add_l4(l, 1, p, p[6], p + 40, n - 40, get16(p + 4));
	} else if (type == 0x86dd) {
		add(l, "IP6 [|ip6]");
	} else if (type == 0x0806) {
		add_arp(l, p, n);
	} else {
		add(l, "%s > %s, Unknown Ethertype (0x%04x), length %u", mac_str(s, f + 6), mac_str(d, f), type, wirelen);
	}
}

char *pkt_summary(char *buf, size_t cap, const uint8_t *f, uint32_t caplen, uint32_t wirelen)
{
	struct line l = { buf, cap, 0 };
	uint32_t off = 12;
	buf[0] = 0;
	if (caplen < 14) {
		add(&l, "[|ether]");
		return buf;
	}
	uint16_t type = get16(f + 12);
	if ((type == 0x8100 || type == 0x88a8) && caplen >= 18) {
		add(&l, "vlan %u, p %u, ", get16(f + 14) & 0xfff, f[14] >> 5);
		off = 16;
		type = get16(f + 16);
	}
	add_payload(&l, f, type, f + off + 2, caplen - off - 2, wirelen);
	return buf;
}
