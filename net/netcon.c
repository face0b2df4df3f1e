/* Netconsole's knob value and its UDP datagrams (net/netcon.h). */
#include <stdio.h>
#include <string.h>
#include "kernel/fmt.h"
#include "net/addr.h"
#include "net/bytes.h"
#include "net/ipv4.h"
#include "net/netcon.h"

#define IP_PROTO_UDP 17
#define UDP_HLEN 8

/* A port number 1-65535 of s[0..n) into *p; n 0 keeps the default. */
static int udp_port(const char *s, size_t n, uint16_t *p)
{
	char num[8];
	uint64_t v;

	if (n == 0)
		return 0;
	if (n >= sizeof(num) || s[0] < '0' || s[0] > '9')
		return -1;
	memcpy(num, s, n);
	num[n] = '\0';
	if (parse_u64(num, &v) != 0 || v == 0 || v > 65535)
		return -1;
	*p = (uint16_t)v;
	return 0;
}

/* "[port]@[ip]" at *s up to '/': *s left at the '/'. want_ip: the address
 * is required. */
static int endpoint(const char **s, uint16_t *port, uint32_t *ip, int want_ip, const char *what, char *err,
		    size_t errlen)
{
	const char *at = strchr(*s, '@');
	const char *slash = strchr(*s, '/');

	if (!at || (slash && slash < at)) {
		snprintf(err, errlen, "the %s part has no '@' ([port]@ip)", what);
		return -1;
	}
	if (udp_port(*s, (size_t)(at - *s), port) != 0) {
		snprintf(err, errlen, "%s port '%.*s' is not 1-65535", what, (int)(at - *s < 12 ? at - *s : 12), *s);
		return -1;
	}
	*s = at + 1;
	if (**s == '[' || (strchr(*s, ':') && (!slash || strchr(*s, ':') < slash))) {
		snprintf(err, errlen, "%s address: IPv6 is not supported (A.B.C.D)", what);
		return -1;
	}
	if (!want_ip && (**s == '/' || **s == '\0'))
		return 0;
	const char *p = *s;
	if (ipv4_parse(&p, ip) != 0 || (*p != '/' && *p != '\0' && *p != ',')) {
		snprintf(err, errlen, "%s address '%.*s' is not A.B.C.D", what, (int)strcspn(*s, "/,") < 16 ?
			 (int)strcspn(*s, "/,") : 16, *s);
		return -1;
	}
	*s = p;
	return 0;
}

int netcon_parse(const char *v, struct netcon_target *t, char *err, size_t errlen)
{
	struct netcon_target n = { .src_port = NETCON_SRC_PORT, .tgt_port = NETCON_TGT_PORT,
				   .tgt_mac = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } };
	const char *s = v;
	const char *comma = strchr(v, ',');

	if (*s == '+')
		n.extended = 1, s++;
	if (*s == 'r' || *s == '+') {
		snprintf(err, errlen, "'%c' after the start: only '+' (extended messages) is supported", *s);
		return -1;
	}
	if (!comma) {
		snprintf(err, errlen, "no ',' between the source and the target");
		return -1;
	}
	if (endpoint(&s, &n.src_port, &n.src_ip, 0, "source", err, errlen) != 0)
		return -1;
	if (*s != '/') {
		snprintf(err, errlen, "the source has no '/' before the port ([src-port]@[src-ip]/[portN])");
		return -1;
	}
	s++;
	if (s < comma) {
		uint64_t p;
		char num[8];
		size_t len = (size_t)(comma - s);
		if (len < 5 || len > 5 + 2 || strncmp(s, "port", 4) != 0 ||
		    (memcpy(num, s + 4, len - 4), num[len - 4] = '\0', parse_u64(num, &p) != 0) || p > 7) {
			snprintf(err, errlen, "device '%.*s' is not port0-port7", (int)(len < 16 ? len : 16), s);
			return -1;
		}
		n.port = (int)p;
	}
	s = comma + 1;
	if (endpoint(&s, &n.tgt_port, &n.tgt_ip, 1, "target", err, errlen) != 0)
		return -1;
	if (*s == '/' && s[1] != '\0') {
		if (mac_parse(s + 1, n.tgt_mac) != 0) {
			snprintf(err, errlen, "target MAC '%.20s' is not xx:xx:xx:xx:xx:xx", s + 1);
			return -1;
		}
		n.mac_given = 1;
	}
	if (*s != '\0' && *s != '/') {
		snprintf(err, errlen, "'%.20s' after the target address", s);
		return -1;
	}
	if (n.tgt_ip == 0 || n.tgt_ip == 0xffffffffu || (n.tgt_ip >> 28) == 14) {
		snprintf(err, errlen, "target address must be a unicast address");
		return -1;
	}
	*t = n;
	return 0;
}

int netcon_parse_list(const char *v, struct netcon_target *t, int max, char *err, size_t errlen)
{
	int n = 0;

	for (;;) {
		char one[160], why[120];
		size_t len = strcspn(v, ";");
		if (n == max) {
			snprintf(err, errlen, "more than %d targets (';' between them)", max);
			return -1;
		}
		if (len >= sizeof(one)) {
			snprintf(err, errlen, "target %d: longer than %zu characters", n + 1, sizeof(one) - 1);
			return -1;
		}
		memcpy(one, v, len);
		one[len] = '\0';
		if (netcon_parse(one, &t[n], why, sizeof(why)) != 0) {
			snprintf(err, errlen, "target %d: %s", n + 1, why);
			return -1;
		}
		n++;
		if (v[len] == '\0')
			return n;
		v += len + 1;
	}
}

void netcon_show(const struct netcon_target *t, char *buf, size_t len)
{
	char src[IPV4_STR_MAX], tgt[IPV4_STR_MAX], mac[MAC_STR_MAX];

	snprintf(buf, len, "%s%u@%s/port%d,%u@%s/%s", t->extended ? "+" : "", t->src_port,
		 t->src_ip ? ipv4_str(src, t->src_ip) : "", t->port, t->tgt_port, ipv4_str(tgt, t->tgt_ip),
		 t->mac_given ? mac_str(mac, t->tgt_mac) : "");
}

size_t netcon_frame(uint8_t *out, size_t cap, const struct netcon_target *t, const uint8_t src_mac[6],
		    uint32_t src_ip, uint16_t id, const char *payload, size_t n)
{
	size_t udp_len = UDP_HLEN + n, len = ETH_HLEN + IPV4_HLEN + udp_len;
	uint8_t *ip = out + ETH_HLEN, *udp = ip + IPV4_HLEN;
	uint8_t pseudo[12];

	if (len > cap || len > NETCON_FRAME_MAX)
		return 0;
	memcpy(out, t->tgt_mac, 6);
	memcpy(out + 6, src_mac, 6);
	put16(out + 12, ETHERTYPE_IPV4);
	ip[0] = 0x45;
	ip[1] = 0;
	put16(ip + 2, (uint16_t)(IPV4_HLEN + udp_len));
	put16(ip + 4, id);
	put16(ip + 6, 0);
	ip[8] = 64;
	ip[9] = IP_PROTO_UDP;
	put16(ip + 10, 0);
	put32(ip + 12, src_ip);
	put32(ip + 16, t->tgt_ip);
	put16(ip + 10, inet_csum(ip, IPV4_HLEN));
	put16(udp, t->src_port);
	put16(udp + 2, t->tgt_port);
	put16(udp + 4, (uint16_t)udp_len);
	put16(udp + 6, 0);
	memcpy(udp + UDP_HLEN, payload, n);
	memcpy(pseudo, ip + 12, 8);	/* RFC 768: source, destination, zero, protocol, UDP length */
	pseudo[8] = 0;
	pseudo[9] = IP_PROTO_UDP;
	put16(pseudo + 10, (uint16_t)udp_len);
	uint16_t sum = inet_csum_fold(inet_sum(pseudo, sizeof(pseudo)) + inet_sum(udp, udp_len));
	put16(udp + 6, sum ? sum : 0xffff);	/* 0 means none: all ones instead */
	return len;
}
