/*
 * Netconsole's target and its datagrams, as Linux's netconsole
 * (Documentation/networking/netconsole.rst) takes and sends them:
 * netconsole=[+][src-port]@[src-ip]/[dev],[tgt-port]@<tgt-ip>/[tgt-mac],
 * several targets separated by ';'.
 * Portable (host unit tests): the kernel side is run/netconsole.c.
 */
#ifndef NET_NETCON_H
#define NET_NETCON_H
#include <stddef.h>
#include <stdint.h>

#define NETCON_SRC_PORT 6665	/* Linux's defaults */
#define NETCON_TGT_PORT 6666
#define NETCON_CHUNK 1000	/* payload bytes a datagram at most (Linux's MAX_PRINT_CHUNK) */
#define NETCON_TARGETS 4	/* targets at most */
#define NETCON_FRAME_MAX (14 + 20 + 8 + 32 + NETCON_CHUNK)	/* Ethernet, IPv4, UDP, extended header */

/* One target. Addresses in host order; src_ip 0: the port's IPv4 address. */
struct netcon_target {
	int extended;		/* '+': Linux's extended format, "LEVEL,SEQ,USEC,-;" before each line */
	int port;		/* dev: portN */
	uint16_t src_port, tgt_port;
	uint32_t src_ip, tgt_ip;
	uint8_t tgt_mac[6];	/* as given; else ff:ff:ff:ff:ff:ff (Linux's default) until ARP answers */
	int mac_given;		/* tgt-mac given: no ARP */
};

/* Parse a netconsole= value into t. Returns 0, or -1 with what was wrong
 * in err (the part named). */
int netcon_parse(const char *v, struct netcon_target *t, char *err, size_t errlen);
/* Parse a list of up to max targets separated by ';' (Linux's form for
 * several) into t[]. Returns how many, or -1 with what was wrong in err,
 * the target named by its place ("target 2: ..."). */
int netcon_parse_list(const char *v, struct netcon_target *t, int max, char *err, size_t errlen);
/* t as Linux writes it back: "6665@10.0.0.1/port0,6666@10.0.0.2/02:00:00:00:00:02"
 * (a src-ip of 0 and a tgt-mac not given shown empty). */
void netcon_show(const struct netcon_target *t, char *buf, size_t len);
/* An Ethernet II / IPv4 / UDP frame from src_mac and src_ip (host order) to
 * t carrying payload[0..n) (n <= NETCON_CHUNK + 32), IPv4 id id, TTL 64,
 * both checksums set (RFC 791, RFC 768). Writes out (cap bytes); returns
 * the frame's length, or 0 if it does not fit. */
size_t netcon_frame(uint8_t *out, size_t cap, const struct netcon_target *t, const uint8_t src_mac[6],
		    uint32_t src_ip, uint16_t id, const char *payload, size_t n);
#endif
