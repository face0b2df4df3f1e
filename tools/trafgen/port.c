/* trafgen's ports: QEMU stream and dgram backends, tap/veth devices (see
 * port.h). */
#define _GNU_SOURCE
#include "port.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STREAM_TXBUF (256 * 1024)              /* bytes */
#define STREAM_LEN_MAX 65536                   /* largest frame accepted, bytes */
#define STREAM_RXBUF (256 * 1024 + 4 + STREAM_LEN_MAX)
#define RCVBUF (4 * 1024 * 1024)               /* receive socket buffer asked for, bytes */

static const char *parse_udp_port(const char *s, char **end, uint16_t *out)
{
	unsigned long v;

	if (*s < '0' || *s > '9')
		return "a UDP port is 1..65535";
	errno = 0;
	v = strtoul(s, end, 10);
	if (errno || v < 1 || v > 65535)
		return "a UDP port is 1..65535";
	*out = (uint16_t)v;
	return NULL;
}

const char *port_spec_parse(const char *text, struct port_spec *s)
{
	const char *err;
	char *end;

	memset(s, 0, sizeof(*s));
	snprintf(s->text, sizeof(s->text), "%s", text);
	if (strncmp(text, "stream:", 7) == 0) {
		s->kind = PORT_STREAM;
		if (text[7] == 0 || strlen(text + 7) >= sizeof(s->path))
			return "the socket path is empty or longer than 107 bytes";
		strcpy(s->path, text + 7);
		return NULL;
	}
	if (strncmp(text, "dgram:", 6) == 0) {
		s->kind = PORT_DGRAM;
		err = parse_udp_port(text + 6, &end, &s->lport);
		if (err)
			return err;
		if (*end != ':')
			return "expected LOCALPORT:REMOTEPORT";
		err = parse_udp_port(end + 1, &end, &s->rport);
		if (err)
			return err;
		if (*end != 0)
			return "expected LOCALPORT:REMOTEPORT";
		return s->lport == s->rport ? "LOCALPORT and REMOTEPORT must differ" : NULL;
	}
	if (strncmp(text, "tap:", 4) == 0) {
		s->kind = PORT_TAP;
		if (text[4] == 0 || strlen(text + 4) >= sizeof(s->ifname))
			return "the interface name is empty or longer than 15 bytes";
		strcpy(s->ifname, text + 4);
		return NULL;
	}
	return "unknown port type";
}

/* Says what failed, with errno's text and a hint (or NULL). Returns -1. */
static int fail_hint(const struct port *p, const char *what, const char *hint)
{
	fprintf(stderr, "trafgen: %s: %s: %s%s%s\n", p->name, what, strerror(errno),
		hint ? "; " : "", hint ? hint : "");
	return -1;
}

static int fail(const struct port *p, const char *what)
{
	return fail_hint(p, what, NULL);
}

/* A bigger receive buffer, so that our own socket drops nothing; the
 * FORCE variant (root) passes net.core.rmem_max. */
static void grow_rcvbuf(int fd)
{
	int v = RCVBUF;

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
}

static int open_stream(struct port *p, const struct port_spec *s)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };

	memcpy(a.sun_path, s->path, sizeof(s->path));
	p->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (p->fd < 0)
		return fail(p, "socket");
	/* Non-blocking connect on a unix socket completes at once or fails. */
	if (connect(p->fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		return fail_hint(p, "connect", "is QEMU running with -netdev stream,server=on on this path?");
	p->txbuf = malloc(STREAM_TXBUF);
	p->rxbuf = malloc(STREAM_RXBUF);
	return p->txbuf && p->rxbuf ? 0 : fail(p, "malloc");
}

static int open_dgram(struct port *p, const struct port_spec *s)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int one = 1;

	p->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (p->fd < 0)
		return fail(p, "socket");
	grow_rcvbuf(p->fd);
	if (setsockopt(p->fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one)) < 0)
		return fail(p, "SO_RXQ_OVFL");
	a.sin_port = htons(s->lport);
	if (bind(p->fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		return fail(p, "bind 127.0.0.1:LOCALPORT");
	/* Connected: only QEMU's address is heard, and send needs no address. */
	a.sin_port = htons(s->rport);
	if (connect(p->fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		return fail(p, "connect 127.0.0.1:REMOTEPORT");
	p->rxbuf = malloc((size_t)PORT_BATCH * PORT_FRAME_MAX);
	return p->rxbuf ? 0 : fail(p, "malloc");
}

static int open_tap(struct port *p, const struct port_spec *s)
{
	struct sockaddr_ll a = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	struct packet_mreq mr = { .mr_type = PACKET_MR_PROMISC };
	int one = 1;

	/* Protocol 0: nothing is received until bind names the device. */
	p->fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (p->fd < 0)
		return fail_hint(p, "socket(AF_PACKET)", "needs root or CAP_NET_RAW");
	a.sll_ifindex = (int)if_nametoindex(s->ifname);
	if (a.sll_ifindex == 0)
		return fail(p, "no such interface");
	grow_rcvbuf(p->fd);
	if (setsockopt(p->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)) < 0)
		return fail(p, "PACKET_IGNORE_OUTGOING");
	mr.mr_ifindex = a.sll_ifindex;
	if (setsockopt(p->fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr)) < 0)
		return fail(p, "promiscuous mode");
	if (bind(p->fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		return fail(p, "bind");
	p->rxbuf = malloc((size_t)PORT_BATCH * PORT_FRAME_MAX);
	return p->rxbuf ? 0 : fail(p, "malloc");
}

int port_open(struct port *p, const struct port_spec *s)
{
	memset(p, 0, sizeof(*p));
	p->kind = s->kind;
	p->name = s->text;
	p->fd = -1;
	switch (s->kind) {
	case PORT_STREAM:
		return open_stream(p, s);
	case PORT_DGRAM:
		return open_dgram(p, s);
	case PORT_TAP:
		return open_tap(p, s);
	}
	return -1;
}

void port_close(struct port *p)
{
	if (p->fd >= 0)
		close(p->fd);
	free(p->txbuf);
	free(p->rxbuf);
	p->fd = -1;
	p->txbuf = p->rxbuf = NULL;
}

int port_flush(struct port *p)
{
	ssize_t w;

	while (p->txoff < p->txlen) {
		w = send(p->fd, p->txbuf + p->txoff, p->txlen - p->txoff, MSG_NOSIGNAL);
		if (w < 0 && (errno == EAGAIN || errno == EINTR))
			return errno == EAGAIN;
		if (w < 0)
			return fail(p, "send");
		p->txoff += (size_t)w;
	}
	p->txoff = p->txlen = 0;
	return 0;
}

static int stream_send(struct port *p, uint8_t *const frames[], const size_t lens[], int n)
{
	int i;

	if (p->txoff > 0) {
		memmove(p->txbuf, p->txbuf + p->txoff, p->txlen - p->txoff);
		p->txlen -= p->txoff;
		p->txoff = 0;
	}
	for (i = 0; i < n && p->txlen + 4 + lens[i] <= STREAM_TXBUF; i++) {
		uint8_t *b = p->txbuf + p->txlen;

		b[0] = (uint8_t)(lens[i] >> 24);
		b[1] = (uint8_t)(lens[i] >> 16);
		b[2] = (uint8_t)(lens[i] >> 8);
		b[3] = (uint8_t)lens[i];
		memcpy(b + 4, frames[i], lens[i]);
		p->txlen += 4 + lens[i];
	}
	return port_flush(p) < 0 ? -1 : i;
}

static int datagram_send(struct port *p, uint8_t *const frames[], const size_t lens[], int n)
{
	struct mmsghdr m[PORT_BATCH];
	struct iovec v[PORT_BATCH];
	int i, r;

	if (n > PORT_BATCH)
		n = PORT_BATCH;
	memset(m, 0, sizeof(m[0]) * (size_t)n);
	for (i = 0; i < n; i++) {
		v[i].iov_base = frames[i];
		v[i].iov_len = lens[i];
		m[i].msg_hdr.msg_iov = &v[i];
		m[i].msg_hdr.msg_iovlen = 1;
	}
	r = sendmmsg(p->fd, m, (unsigned)n, 0);
	if (r >= 0)
		return r;
	/* ENOBUFS: a tap device's queue is full, as EAGAIN. */
	if (errno == EAGAIN || errno == ENOBUFS || errno == EINTR)
		return 0;
	if (errno == ECONNREFUSED)
		return fail_hint(p, "send", "nothing listens on REMOTEPORT (QEMU's dgram local.port)");
	return fail(p, "sendmmsg");
}

int port_send(struct port *p, uint8_t *const frames[], const size_t lens[], int n)
{
	if (n <= 0)
		return 0;
	return p->kind == PORT_STREAM ? stream_send(p, frames, lens, n)
				      : datagram_send(p, frames, lens, n);
}

unsigned port_discard_unsent(struct port *p)
{
	unsigned n = 0;
	size_t pos = 0, keep = 0, len;

	if (p->kind != PORT_STREAM)
		return 0;
	/* txbuf[0..txlen) holds whole records; keep the one being written, so
	 * that the stream stays framed, and drop those not started. */
	while (pos + 4 <= p->txlen) {
		const uint8_t *b = p->txbuf + pos;

		len = (size_t)b[0] << 24 | (size_t)b[1] << 16 | (size_t)b[2] << 8 | b[3];
		if (pos < p->txoff)
			keep = pos + 4 + len;
		else if (b[4 + 12] == 0x08 && b[4 + 13] == 0x00)   /* IPv4: a test frame */
			n++;
		pos += 4 + len;
	}
	p->txlen = keep > p->txoff ? keep : p->txoff;
	return n;
}

static int stream_recv(struct port *p, port_rx_fn *fn, void *ctx)
{
	ssize_t r = recv(p->fd, p->rxbuf + p->rxlen, STREAM_RXBUF - p->rxlen, 0);
	size_t pos = 0, len;
	int n = 0;

	if (r < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : fail(p, "recv");
	if (r == 0) {
		fprintf(stderr, "trafgen: %s: the peer closed the connection\n", p->name);
		return -1;
	}
	p->rxlen += (size_t)r;
	while (p->rxlen - pos >= 4) {
		const uint8_t *b = p->rxbuf + pos;

		len = (size_t)b[0] << 24 | (size_t)b[1] << 16 | (size_t)b[2] << 8 | b[3];
		if (len == 0 || len > STREAM_LEN_MAX) {
			fprintf(stderr, "trafgen: %s: frame length %zu: the stream lost its framing\n",
				p->name, len);
			return -1;
		}
		if (p->rxlen - pos < 4 + len)
			break;
		fn(ctx, p, b + 4, len);
		pos += 4 + len;
		n++;
	}
	memmove(p->rxbuf, p->rxbuf + pos, p->rxlen - pos);
	p->rxlen -= pos;
	return n;
}

/* The kernel's count of frames dropped in this socket, if msg carries it. */
static void note_drops(struct port *p, struct msghdr *msg)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		uint32_t d;

		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
			memcpy(&d, CMSG_DATA(c), sizeof(d));
			p->sock_drops = d;
		}
	}
}

static int datagram_recv(struct port *p, port_rx_fn *fn, void *ctx)
{
	struct mmsghdr m[PORT_BATCH];
	struct iovec v[PORT_BATCH];
	char ctl[PORT_BATCH][CMSG_SPACE(sizeof(uint32_t))];
	int i, r;

	memset(m, 0, sizeof(m));
	for (i = 0; i < PORT_BATCH; i++) {
		v[i].iov_base = p->rxbuf + (size_t)i * PORT_FRAME_MAX;
		v[i].iov_len = PORT_FRAME_MAX;
		m[i].msg_hdr.msg_iov = &v[i];
		m[i].msg_hdr.msg_iovlen = 1;
		m[i].msg_hdr.msg_control = ctl[i];
		m[i].msg_hdr.msg_controllen = sizeof(ctl[i]);
	}
	r = recvmmsg(p->fd, m, PORT_BATCH, 0, NULL);
	if (r < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return 0;
		if (errno == ECONNREFUSED)
			return fail_hint(p, "recv", "nothing listens on REMOTEPORT (QEMU's dgram local.port)");
		return fail(p, "recvmmsg");
	}
	for (i = 0; i < r; i++) {
		if (p->kind == PORT_DGRAM)
			note_drops(p, &m[i].msg_hdr);
		fn(ctx, p, v[i].iov_base, m[i].msg_len);
	}
	return r;
}

int port_recv(struct port *p, port_rx_fn *fn, void *ctx)
{
	return p->kind == PORT_STREAM ? stream_recv(p, fn, ctx) : datagram_recv(p, fn, ctx);
}

void port_update_drops(struct port *p)
{
	struct tpacket_stats st;
	socklen_t len = sizeof(st);

	/* PACKET_STATISTICS counts since the last call. */
	if (p->kind == PORT_TAP && getsockopt(p->fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) == 0)
		p->sock_drops += st.tp_drops;
}
