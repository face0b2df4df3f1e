/*
 * TCP clients that speak TCP correctly, for the harnesses that drive a
 * server on lwIP (fuzz_http, fuzz_iperf3): up to TC_MAX clients at
 * 10.1.0.2 (client k's ports 40000 + k + 32 * generation), the server at
 * 10.1.0.1 on the fake port 0 (tests/fuzz/fakeport.h). Each client
 * follows RFC 9293's sequence numbers for what it sends and what the
 * server sends it; what it owes the server (the ACK of a SYN-ACK or of
 * data, an ARP reply) goes after the server's burst (tc_settle), never
 * from inside it. Every frame handed to lwIP is followed by lwif's
 * accounting check (rx = frames handed in + drops, exactly).
 */
#ifndef FUZZ_TCPCLIENT_H
#define FUZZ_TCPCLIENT_H
#include <stddef.h>
#include <stdint.h>
#include "drivers/net/nic.h"

#define TC_MAX 32		/* clients at most */
#define TC_SENT_MAX 2048	/* the first bytes a client sent, kept */
#define TC_RECV_MAX 8192	/* the first bytes a client received, kept */
#define TC_SRV_IP 0x0a010001u
#define TC_CLI_IP 0x0a010002u

enum { TC_CLOSED, TC_SYN_SENT, TC_OPEN, TC_DEAD };
struct tc_client {
	int st;
	uint16_t port, gen;
	uint32_t snd_nxt, rcv_nxt;
	uint32_t iss;		/* the SYN's sequence number */
	uint32_t acked;		/* the server's highest acknowledgement of data, bytes */
	int noack;		/* acknowledges only when told (tc_ack) */
	uint16_t mss;		/* the SYN's MSS option; 0: none */
	int fin_sent, srv_fin;
	uint8_t sent_data[TC_SENT_MAX];	/* the first bytes sent */
	size_t sent;
	char recv_data[TC_RECV_MAX];	/* the first bytes received, NUL-terminated */
	size_t recv_total;
};

/* The harness's side: the server's TCP port, its hooks (each may be NULL):
 * data: n bytes the server sent c, in order; fin: the server's FIN
 * reached c; udp: a UDP datagram (n payload bytes) from the server's
 * port sport to the client port dport. */
struct tc_world {
	uint16_t srv_port;
	int n;			/* clients in use (<= TC_MAX) */
	uint16_t wnd;		/* the clients' receive window, bytes; 0: 65535 */
	void (*data)(struct tc_client *c, const uint8_t *d, size_t n);
	void (*fin)(struct tc_client *c);
	void (*udp)(uint16_t sport, uint16_t dport, const uint8_t *d, size_t n);
};

extern struct tc_world tc;
extern struct tc_client tc_cl[TC_MAX];
extern struct nic tc_port;
extern int tc_quiet;		/* clients send nothing owed (a silence) */

/* The fake port 0 with MAC 02:00:00:00:00:10 and bufs packet buffers;
 * before the app starts. */
void tc_port_create(uint32_t bufs);
/* Every client closed, nothing owed (before each input). */
void tc_reset(void);
/* An ARP packet of operation op from the clients' address. */
void tc_arp_in(uint16_t op);
/* A segment from c with flags and n bytes of data. */
void tc_segment(struct tc_client *c, uint8_t flags, const uint8_t *data, size_t n);
/* A UDP datagram from the clients' address, port sport to dport. */
void tc_udp_in(uint16_t sport, uint16_t dport, const uint8_t *data, size_t n);
/* What the clients owe the server after its last frames. */
void tc_settle(void);
/* The port's app's idle hook, then tc_settle. */
void tc_idle(void);
/* c (re)connects: a SYN, with an MSS option of 1460 if mss; noack: c
 * acknowledges nothing by itself (the handshake's SYN-ACK included). */
void tc_connect(struct tc_client *c, int noack, int mss);
/* n bytes from c (open, no FIN sent) in segments of at most 1460. */
void tc_send(struct tc_client *c, const uint8_t *d, size_t n);
/* c acknowledges what it received; c's FIN; c's RST. */
void tc_ack(struct tc_client *c);
void tc_fin(struct tc_client *c);
void tc_rst(struct tc_client *c);
/* The program steps both harnesses share, op 0-5 on client c: 0 connect
 * (arg bit 0: noack, bit 1: mss), 1 send the input's next arg bytes
 * (data, len; *i moves past them), 2 ACK, 3 FIN, 4 RST, 5 the clock on by
 * arg * 10 ms and the idle hook. 1 if op was one of them, else 0. */
int tc_step(struct tc_client *c, int op, uint8_t arg, const uint8_t *data, size_t len, size_t *i);
/* libFuzzer's coverage counters (the __sancov_cntrs section) kept by
 * tc_cov_save and put back by tc_cov_restore, around the end's liveness
 * client: it runs on a server the silence has emptied, the same steps
 * after every input, and its 130 (fuzz_http) to 230 (fuzz_iperf3)
 * counters were features libFuzzer counted in every execution. Its
 * checks run as before. */
void tc_cov_save(void);
void tc_cov_restore(void);
#endif
