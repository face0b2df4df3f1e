/* Text forms of addresses for knobs and the console: IPv4 dotted quads and
 * prefixes, IPv6 addresses and prefixes, Ethernet MACs. Parsing is strict: every character is accounted
 * for, so a value never means something else than what was typed. */
#ifndef NET_ADDR_H
#define NET_ADDR_H
#include <stdint.h>

#define IPV4_STR_MAX	16	/* "255.255.255.255" and its NUL */
#define IPV6_STR_MAX	46	/* INET6_ADDRSTRLEN: "ffff:...:255.255.255.255" */
#define MAC_STR_MAX	18	/* "xx:xx:xx:xx:xx:xx" and its NUL */

/*
 * A dotted quad "A.B.C.D" at *s: four decimal parts 0-255 of 1-3 digits,
 * no sign, space or leading zero ("010" is octal 8 to inet_aton(3) and 10
 * to others, so it is refused). Advances *s past it and stores the address
 * in host order. Returns 0, or -1 (*s then points somewhere inside).
 */
int ipv4_parse(const char **s, uint32_t *addr);
/* "A.B.C.D/LEN" at *s, LEN 0-32 without leading zero; as ipv4_parse. */
int ipv4_prefix_parse(const char **s, uint32_t *addr, int *len);
/* addr (host order) as "A.B.C.D" into buf; returns buf. */
char *ipv4_str(char buf[IPV4_STR_MAX], uint32_t addr);

/*
 * An IPv6 address at *s in a text form of RFC 4291 section 2.2: eight groups
 * of 1-4 hex digits (either case) split by ':', one "::" standing for one or
 * more zero groups, and the last 32 bits optionally a dotted quad as
 * ipv4_parse takes it ("::ffff:10.1.0.1"). Stops at the first character
 * that cannot continue the address ('/', '%', ',', NUL...), advancing *s to
 * it, and stores the 16 bytes in network order. Returns 0, or -1 with addr
 * untouched (*s then points somewhere inside).
 */
int addr6_parse(const char **s, uint8_t addr[16]);
/* "ADDR/LEN" at *s, LEN 0-128 without leading zero; as addr6_parse. */
int addr6_prefix_parse(const char **s, uint8_t addr[16], int *len);
/* addr as RFC 5952 section 4 writes it: lower case, no leading zeros, the
 * longest run of two or more zero groups (the first of equals) as "::", and
 * an IPv4-mapped address (::ffff:0:0/96) with a dotted quad (section 5).
 * Into buf; returns buf. */
char *addr6_fmt(char buf[IPV6_STR_MAX], const uint8_t addr[16]);

/* A whole string "xx:xx:xx:xx:xx:xx": six pairs of hex digits (either
 * case) split by ':'. Returns 0 and fills mac, or -1 and leaves it. */
int mac_parse(const char *s, uint8_t mac[6]);
/* mac as "xx:xx:xx:xx:xx:xx" (lower case) into buf; returns buf. */
char *mac_str(char buf[MAC_STR_MAX], const uint8_t mac[6]);
#endif
