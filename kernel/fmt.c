/* Number formatting and parsing, and message pieces; see fmt.h. */
#include <stdio.h>
#include <string.h>
#include "kernel/fmt.h"

char *fmt_group(char *buf, size_t len, uint64_t v)
{
	char tmp[FMT_MAX];
	char *p = tmp + sizeof(tmp);
	int digits = 0;

	*--p = '\0';
	do {
		if (digits > 0 && digits % 3 == 0)
			*--p = ',';
		*--p = (char)('0' + v % 10);
		v /= 10;
		digits++;
	} while (v != 0);
	snprintf(buf, len, "%s", p);
	return buf;
}

/* Return v / div rounded to hundredths: the whole part, and *hund 0..99. */
static uint64_t split(uint64_t v, uint64_t div, unsigned *hund)
{
	uint64_t whole = v / div, rem = v % div;

	if (div > UINT64_MAX / 100) {	/* EiB: keep rem * 100 in range */
		rem >>= 10;
		div >>= 10;
	}
	*hund = (unsigned)((rem * 100 + div / 2) / div);
	if (*hund == 100) {
		*hund = 0;
		whole++;
	}
	return whole;
}

char *fmt_bytes(char *buf, size_t len, uint64_t bytes)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	uint64_t whole;
	unsigned hund;
	int i = 0;

	while (i < 6 && bytes >> (10 * (i + 1)) != 0)
		i++;
	if (bytes % ((uint64_t)1 << (10 * i)) == 0) {
		snprintf(buf, len, "%llu %s", (unsigned long long)(bytes >> (10 * i)), unit[i]);
		return buf;
	}
	whole = split(bytes, (uint64_t)1 << (10 * i), &hund);
	if (whole == 1024) {	/* rounded up into the next unit: "1.00 MiB" */
		whole = 1;
		i++;
	}
	snprintf(buf, len, "%llu.%02u %s", (unsigned long long)whole, hund, unit[i]);
	return buf;
}

char *fmt_rate(char *buf, size_t len, uint64_t v, const char *unit)
{
	static const char prefix[] = "kMGT";
	uint64_t div = 1000, whole;
	unsigned hund;
	int i = 0;

	if (v < 1000) {
		snprintf(buf, len, "%llu %s", (unsigned long long)v, unit);
		return buf;
	}
	while (i < 3 && v / div >= 1000) {
		div *= 1000;
		i++;
	}
	whole = split(v, div, &hund);
	if (whole == 1000 && i < 3) {
		whole = 1;
		i++;
	}
	snprintf(buf, len, "%llu.%02u %c%s", (unsigned long long)whole, hund, prefix[i], unit);
	return buf;
}

int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

int parse_u64(const char *s, uint64_t *out)
{
	unsigned base = 10;
	uint64_t v = 0;
	int d;

	if (s == NULL)
		return -1;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (*s == '\0' || (base == 10 && s[0] == '0' && s[1] != '\0'))
		return -1;	/* a leading 0: octal to Linux's kstrtoint, so refused */
	for (; *s != '\0'; s++) {
		d = digit_value(*s);
		if (d >= (int)base || v > (UINT64_MAX - (uint64_t)d) / base)
			return -1;
		v = v * base + (uint64_t)d;
	}
	*out = v;
	return 0;
}

int parse_u64_si(const char *s, uint64_t *out)
{
	static const char suffix[] = "kMG";
	char num[24];
	uint64_t scale = 1, v;

	if (!s)
		return -1;
	size_t n = strlen(s);
	const char *p = n ? strchr(suffix, s[n - 1]) : NULL;

	if (p) {
		for (const char *q = suffix; q <= p; q++)
			scale *= 1000;
		n--;
	}
	if (n >= sizeof(num))
		return -1;
	memcpy(num, s, n);
	num[n] = '\0';
	if (parse_u64(num, &v) || v > UINT64_MAX / scale)
		return -1;
	*out = v * scale;
	return 0;
}

size_t fmt_put(char *buf, size_t len, size_t used, const char *s)
{
	/* Byte by byte: the pieces are names of a few bytes, where strlen
	 * and memcpy cost more in calls (and in a fuzz build's ASan hooks). */
	if (used + 1 >= len)
		return used;
	while (*s != '\0' && used + 1 < len)
		buf[used++] = *s++;
	buf[used] = '\0';
	return used;
}
