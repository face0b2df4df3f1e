/*
 * A server for Debian's sockperf 3.7 client (ping-pong, under-load,
 * throughput) on port 11111, UDP and TCP. Every message starts with a
 * 14-byte header in network byte order: 64-bit sequence number, 16-bit
 * flags, 32-bit message length (header included). Flags: 1 client, 2 the
 * client wants a reply (every message in ping-pong, one in --reply-every in
 * under-load, none in throughput), 4 warm-up. The reply is the message
 * itself with the client bit cleared, as sockperf's own server sends it
 * (checked against a capture of sockperf's UDP and TCP ping-pong under load).
 * UDP: a datagram is a message. TCP: messages follow each other in the
 * stream, framed by their length.
 */
#include <stdio.h>
#include <string.h>
#include "apps/rr/rr.h"
#include "lwip/tcp.h"
#include "lwip/udp.h"
#include "net/lwip/lwif.h"

#define SP_HLEN		14
#define SP_FLAGS	8	/* offset of the flags; the low byte is at 9 */
#define SP_LEN		10
#define SP_CLIENT	0x01
#define SP_PONG_REQUEST	0x02
#define SP_MAX_LEN	65536	/* sockperf's largest message (-m) */

static uint8_t scratch[TCP_WND + SP_HLEN];

static void udp_recv_msg(void *arg, struct udp_pcb *pcb, struct pbuf *p, const ip_addr_t *addr, u16_t port)
{
	(void)arg;
	int pt = lwif_rx_port();
	if (rr_udp_from_service(pt, port)) {
		pbuf_free(p);
		return;
	}
	if (p->tot_len < SP_HLEN) {
		rr_count(pt, RR_sockperf_bad, 1);
		pbuf_free(p);
		return;
	}
	rr_count(pt, RR_sockperf_udp, 1);
	uint8_t flags = pbuf_get_at(p, SP_FLAGS + 1);
	if (flags & SP_PONG_REQUEST) {
		pbuf_put_at(p, SP_FLAGS + 1, flags & (uint8_t)~SP_CLIENT);
		lwif_udp_sendto(pcb, p, addr, port);
		rr_count(pt, RR_sockperf_replies, 1);
	}
	pbuf_free(p);
}

/* Parse the stream bytes of p; the replies go into scratch. Returns the
 * reply bytes, or -1 for a message length sockperf never sends. */
static int parse_stream(struct rr_conn *c, struct pbuf *p)
{
	int out = 0;
	for (u16_t off = 0; off < p->tot_len;) {
		if (c->hlen < SP_HLEN) {
			c->hdr[c->hlen++] = pbuf_get_at(p, off++);
			if (c->hlen < SP_HLEN)
				continue;
			uint32_t len = (uint32_t)c->hdr[SP_LEN] << 24 | (uint32_t)c->hdr[SP_LEN + 1] << 16 |
				       (uint32_t)c->hdr[SP_LEN + 2] << 8 | c->hdr[SP_LEN + 3];
			if (len < SP_HLEN || len > SP_MAX_LEN)
				return -1;
			c->left = len - SP_HLEN;
			c->reply = (c->hdr[SP_FLAGS + 1] & SP_PONG_REQUEST) != 0;
			if (c->reply) {
				c->hdr[SP_FLAGS + 1] &= (uint8_t)~SP_CLIENT;
				memcpy(scratch + out, c->hdr, SP_HLEN);
				out += SP_HLEN;
			}
		} else {
			uint32_t avail = (uint32_t)(p->tot_len - off);
			u16_t n = (u16_t)(avail < c->left ? avail : c->left);
			if (c->reply)
				out += pbuf_copy_partial(p, scratch + out, n, off);
			off = (u16_t)(off + n);
			c->left -= n;
		}
		if (c->hlen == SP_HLEN && !c->left) {
			rr_count(c->port, RR_sockperf_tcp, 1);
			rr_count(c->port, RR_sockperf_replies, c->reply);
			c->hlen = 0;
		}
	}
	return out;
}

int rr_sockperf_recv(struct rr_conn *c, struct pbuf *p)
{
	if (tcp_sndbuf(c->pcb) < p->tot_len + SP_HLEN || tcp_sndqueuelen(c->pcb) > TCP_SND_QUEUELEN / 2)
		return -1;
	int out = parse_stream(c, p);
	if (out < 0) {
		rr_count(c->port, RR_sockperf_bad, 1);
		c->hlen = 0;
		return 0;
	}
	if (out && tcp_write(c->pcb, scratch, (u16_t)out, TCP_WRITE_FLAG_COPY) != ERR_OK)
		lwif_count(c->port, LWIF_tx_no_buffer, 1);
	return 0;
}

int sockperf_init(void)
{
	struct udp_pcb *pcb = udp_new();
	if (!pcb || udp_bind(pcb, IP_ANY_TYPE, RR_SOCKPERF_PORT) != ERR_OK) {
		printf("rr: cannot bind UDP port %d\n", RR_SOCKPERF_PORT);
		return -1;
	}
	udp_recv(pcb, udp_recv_msg, NULL);
	return rr_tcp_listen(RR_SOCKPERF_PORT, RR_SVC_SOCKPERF);
}
