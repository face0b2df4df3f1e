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
