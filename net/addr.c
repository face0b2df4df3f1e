/* Text forms of addresses; see addr.h. */
#include <stdio.h>
#include "kernel/fmt.h"
#include "net/addr.h"

/* 1-3 decimal digits at *s without a leading zero; advances *s. Returns
 * the value, or -1. */
static int dec3(const char **s)
{
	int v = 0, digits = 0;
	if (**s == '0' && (*s)[1] >= '0' && (*s)[1] <= '9')
		return -1;
	while (**s >= '0' && **s <= '9' && digits < 4) {
		v = v * 10 + (**s - '0');
		(*s)++;
		digits++;
	}
	return digits && digits <= 3 ? v : -1;
}

int ipv4_parse(const char **s, uint32_t *addr)
{
	uint32_t a = 0;
	for (int i = 0; i < 4; i++) {
		int v = dec3(s);
		if (v < 0 || v > 255 || (i < 3 && *(*s)++ != '.'))
			return -1;
		a = a << 8 | (uint32_t)v;
	}
	*addr = a;
	return 0;
}

int ipv4_prefix_parse(const char **s, uint32_t *addr, int *len)
{
	uint32_t a;
	if (ipv4_parse(s, &a) || *(*s)++ != '/')
		return -1;
	int l = dec3(s);
	if (l < 0 || l > 32)
		return -1;
	*addr = a;
	*len = l;
	return 0;
}

char *ipv4_str(char buf[IPV4_STR_MAX], uint32_t a)
{
	snprintf(buf, IPV4_STR_MAX, "%u.%u.%u.%u", a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255);
	return buf;
}

/* Up to 4 hex digits at *s; advances *s. Returns the value, or -1 if
 * there is no digit or a fifth. */
static int hex4(const char **s)
{
	int v = 0, digits = 0;
	while (digit_value(**s) < 16) {
		if (++digits > 4)
			return -1;
		v = v << 4 | digit_value(*(*s)++);
	}
	return digits ? v : -1;
}

int addr6_parse(const char **s, uint8_t addr[16])
{
	uint16_t g[8];
	int n = 0, gap = -1, need = 1;
	const char *p = *s;
	if (p[0] == ':' && p[1] == ':') {
		gap = 0;
		need = 0;
		p += 2;
	}
	while (n < 8) {
		const char *start = p;
		int v = hex4(&p);
		if (v >= 0 && *p == '.') {	/* the last 32 bits as a dotted quad */
			uint32_t a;
			p = start;
			if (n > 6 || ipv4_parse(&p, &a))
				goto bad;
			g[n++] = (uint16_t)(a >> 16);
			g[n++] = (uint16_t)a;
			break;
		}
		if (v < 0) {
			if (need || digit_value(*p) < 16)
				goto bad;
			p = start;
			break;
		}
		g[n++] = (uint16_t)v;
		if (n == 8 || *p != ':')
			break;
		if (p[1] == ':') {
			if (gap >= 0)
				goto bad;
			gap = n;
			need = 0;
			p += 2;
		} else {
			need = 1;
			p++;
		}
	}
	if (gap < 0 ? n != 8 : n > 7)
		goto bad;
	for (int i = 0, j = 0; i < 8; i++) {
		int zero = gap >= 0 && i >= gap && i < gap + 8 - n;
		uint16_t v = zero ? 0 : g[j++];
		addr[2 * i] = (uint8_t)(v >> 8);
		addr[2 * i + 1] = (uint8_t)v;
	}
	*s = p;
	return 0;
bad:
	*s = p;
	return -1;
}

int addr6_prefix_parse(const char **s, uint8_t addr[16], int *len)
{
	uint8_t a[16];
	if (addr6_parse(s, a) || *(*s)++ != '/')
		return -1;
	int l = dec3(s);
	if (l < 0 || l > 128)
		return -1;
	for (int i = 0; i < 16; i++)
		addr[i] = a[i];
	*len = l;
	return 0;
}

char *addr6_fmt(char buf[IPV6_STR_MAX], const uint8_t a[16])
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	uint16_t g[8];
	int best = -1, best_len = 1, run = 0, i, n = 0;
	for (i = 0; i < 8; i++) {
		g[i] = (uint16_t)(a[2 * i] << 8 | a[2 * i + 1]);
		run = g[i] ? 0 : run + 1;
		if (run > best_len) {
			best_len = run;
			best = i - run + 1;
		}
	}
	int mixed = 1;
	for (i = 0; i < 12; i++)
		mixed &= a[i] == mapped[i];
	int groups = mixed ? 6 : 8;
	for (i = 0; i < groups; i++) {
		if (i == best) {
			n += snprintf(buf + n, IPV6_STR_MAX - n, "::");
			i += best_len - 1;
			continue;
		}
		n += snprintf(buf + n, IPV6_STR_MAX - n, "%s%x", n && buf[n - 1] != ':' ? ":" : "", g[i]);
	}
	if (mixed)
		snprintf(buf + n, IPV6_STR_MAX - n, "%s%u.%u.%u.%u", buf[n - 1] != ':' ? ":" : "", a[12], a[13], a[14], a[15]);
	return buf;
}

int mac_parse(const char *s, uint8_t mac[6])
{
	uint8_t m[6];
	for (int i = 0; i < 6; i++, s += 3) {
		int hi = digit_value(s[0]), lo = hi > 15 ? 99 : digit_value(s[1]);
		if (lo > 15 || s[2] != (i < 5 ? ':' : 0))
			return -1;
		m[i] = (uint8_t)(hi << 4 | lo);
	}
	for (int i = 0; i < 6; i++)
		mac[i] = m[i];
	return 0;
}

char *mac_str(char buf[MAC_STR_MAX], const uint8_t m[6])
{
	snprintf(buf, MAC_STR_MAX, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
	return buf;
}
