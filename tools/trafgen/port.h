/* trafgen's ports: the host ends of QEMU NIC backends, and tap/veth devices.
 *
 *   stream:PATH        connects to QEMU's `-netdev stream,server=on,addr.type=unix,
 *                      addr.path=PATH`; each frame is a 4-byte big-endian
 *                      length and the frame, both ways; a full socket blocks
 *                      the writer (lossless back-pressure).
 *   dgram:LPORT:RPORT  UDP on 127.0.0.1, bound to LPORT, sending to RPORT: the
 *                      peer of `-netdev dgram,local.port=RPORT,remote.port=LPORT`
 *                      (both host 127.0.0.1); one frame per datagram; what
 *                      QEMU's socket cannot hold is dropped by the kernel.
 *   tap:IFNAME         an AF_PACKET raw socket bound to IFNAME, promiscuous,
 *                      not seeing its own transmissions; needs CAP_NET_RAW.
 *
 * All sockets are non-blocking; frames are always whole.
 */
#ifndef TRAFGEN_PORT_H
#define TRAFGEN_PORT_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>

#define PORT_BATCH 64          /* frames per sendmmsg/recvmmsg */
#define PORT_FRAME_MAX 9216    /* largest frame received whole, bytes */

enum port_kind { PORT_STREAM, PORT_DGRAM, PORT_TAP };

struct port_spec {
	enum port_kind kind;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];   /* stream */
	uint16_t lport, rport;                                    /* dgram */
	char ifname[IF_NAMESIZE];                                 /* tap */
	char text[160];                                           /* as given */
};

struct port {
	enum port_kind kind;
	int fd;
	const char *name;          /* the spec as given, for messages */
	uint8_t *txbuf;            /* stream: length-prefixed frames ... */
	size_t txoff, txlen;       /* ... of which txbuf[txoff..txlen) is unwritten */
	uint8_t *rxbuf;            /* stream: bytes read; datagram: PORT_BATCH frames */
	size_t rxlen;              /* stream: rxbuf[0..rxlen) not yet parsed */
	uint64_t sock_drops;       /* frames the kernel dropped in our receive socket */
};

/* Called for each received frame: the carried bytes f[0..len). */
typedef void port_rx_fn(void *ctx, struct port *p, const uint8_t *f, size_t len);

/* Parses "stream:PATH", "dgram:LPORT:RPORT" or "tap:IFNAME" into *s.
 * Returns NULL, or what was wrong. */
const char *port_spec_parse(const char *text, struct port_spec *s);

/* Opens the port (connects, binds). Returns 0, or -1 with a message on
 * stderr. */
int port_open(struct port *p, const struct port_spec *s);
void port_close(struct port *p);

/* Hands frames[0..n) (carried lengths lens[]) to the port, in order.
 * Returns how many were taken, 0..n (fewer when the socket is full), or -1
 * with a message on stderr. Stream frames taken may still wait in txbuf:
 * see port_flush. */
int port_send(struct port *p, uint8_t *const frames[], const size_t lens[], int n);

/* Writes what txbuf holds. Returns 0 when it is empty, 1 when some is left
 * (wait for POLLOUT), -1 with a message on stderr. */
int port_flush(struct port *p);

/* Stream: drops the frames in txbuf not yet started (a frame partly
 * written stays, to keep the stream framed) and returns how many of them
 * were test frames (IPv4), which the caller counted as sent. 0 for the
 * other kinds. */
unsigned port_discard_unsent(struct port *p);

/* Reads one batch and calls fn for each frame. Returns the number of
 * frames, 0 when nothing was waiting, -1 with a message on stderr (also
 * when a stream peer closed the connection). */
int port_recv(struct port *p, port_rx_fn *fn, void *ctx);

/* Brings sock_drops up to date (tap: PACKET_STATISTICS; dgram counts them
 * as it receives, from SO_RXQ_OVFL). */
void port_update_drops(struct port *p);

#endif
