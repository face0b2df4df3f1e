/* Text forms of addresses for knobs and the console: IPv4 dotted quads and
 * prefixes, Ethernet MACs. Parsing is strict: every character is accounted
 * for, so a value never means something else than what was typed. */
#ifndef NET_ADDR_H
#define NET_ADDR_H
#include <stdint.h>

#define IPV4_STR_MAX	16	/* "255.255.255.255" and its NUL */
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

/* A whole string "xx:xx:xx:xx:xx:xx": six pairs of hex digits (either
 * case) split by ':'. Returns 0 and fills mac, or -1 and leaves it. */
int mac_parse(const char *s, uint8_t mac[6]);
/* mac as "xx:xx:xx:xx:xx:xx" (lower case) into buf; returns buf. */
char *mac_str(char buf[MAC_STR_MAX], const uint8_t mac[6]);
#endif
