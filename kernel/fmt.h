/*
 * Number formatting for the console reports, and the one number parser the
 * kernel uses for knobs and shell arguments. Portable C: no hardware access,
 * no allocation, no floating point.
 */
#ifndef KERNEL_FMT_H
#define KERNEL_FMT_H
#include <stddef.h>
#include <stdint.h>

/* Buffer size for any fmt_group or fmt_bytes result, and any fmt_rate
 * result whose unit has at most 8 characters. */
#define FMT_MAX 32

/*
 * Decimal with thousands separators: 1234567 -> "1,234,567".
 * Writes at most len bytes including the NUL (truncates); returns buf.
 */
char *fmt_group(char *buf, size_t len, uint64_t v);

/*
 * Bytes with binary units B, KiB, MiB, GiB, TiB, PiB, EiB. Exact multiples
 * of the unit print without decimals ("0 B", "128 MiB", "6 GiB"), others
 * rounded to two decimals ("1.50 KiB"). Truncates to len; returns buf.
 */
char *fmt_bytes(char *buf, size_t len, uint64_t bytes);

/*
 * A rate v (in unit per second) with SI prefixes: below 1000 as an integer
 * ("950 bps"), otherwise k, M, G or T with two decimals ("1.23 Mpps").
 * unit is appended as given. Truncates to len; returns buf.
 */
char *fmt_rate(char *buf, size_t len, uint64_t v, const char *unit);

/*
 * Put s at buf[used] of a buffer of len bytes, truncating and keeping it
 * NUL-terminated; returns the new used length (used itself when full). A
 * copy, not snprintf: messages built of many pieces (all knob names).
 */
size_t fmt_put(char *buf, size_t len, size_t used, const char *s);

/*
 * Parse an unsigned decimal or 0x/0X hexadecimal number filling all of s.
 * Returns 0 with *out set, or -1 (leaving *out alone) if s is NULL or
 * empty, has any other character (sign, space, trailing junk), is decimal
 * with a leading zero (octal to Linux's kstrtoint), or the value does not
 * fit in 64 bits.
 */
int parse_u64(const char *s, uint64_t *out);
/*
 * parse_u64 with an optional SI suffix, as trafgen's and iperf's rates
 * take them: k (x 1000), M (x 10^6) or G (x 10^9), e.g. "10G", "20k".
 * Returns 0 with *out set, or -1 (leaving *out alone) as parse_u64 does,
 * also when the scaled value does not fit in 64 bits.
 */
int parse_u64_si(const char *s, uint64_t *out);
/* The value of c as a hex digit (0-9, a-f, A-F): 0-15, else 99. */
int digit_value(char c);

#endif
