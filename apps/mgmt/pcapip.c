/*
 * PCAP-over-IP on the management port: with pcap_over_ip=TCPPORT (57012
 * by the convention of pcap-broker, Arkime and Zeek), a client that
 * connects (`tshark -i TCP@BOX:57012`, `nc BOX 57012 | tcpdump -r -`) gets
 * the frames port pcap_over_ip_if receives and sends as a classic pcap
 * stream (draft-ietf-opsawg-pcap: the nanosecond magic, Ethernet, snaplen
 * 2048) until it closes. It shares the one capture (drivers/net/capture.h)
 * with /capture and the console: while another runs a client is refused
 * (closed at once, pcapip_refused), and one client at a time. A client
 * that takes nothing for HTTP_STALL_MS is reset (pcapip_stalled); the
 * copies stop, forwarding never waits.
 */
#include <stdio.h>
#include <string.h>
#include "apps/mgmt/mgmt.h"
#include "drivers/net/capture.h"
#include "drivers/net/nic.h"
#include "kernel/knobs.h"
#include "kernel/mem.h"	/* before lwIP's headers, which rename lwIP's mem_init */
#include "lwip/sys.h"
#include "lwip/tcp.h"

#define PCAP_MAGIC_NS 0xa1b23c4du
#define BUF_MAX (32 * 1024)

static int64_t tcp_port, cap_port;
static const struct knob_range tcp_range[] = { { 0, 65535 } };
static const struct knob_range if_range[] = { { 0, NIC_MAX_PORTS - 1 } };
KNOB(pcap_over_ip, .name = "pcap_over_ip", .type = KNOB_INT, .ranges = tcp_range, .nranges = 1, .ival = &tcp_port,
     .help = "mgmt: TCP port streaming a capture as classic pcap (PCAP-over-IP, tshark -i TCP@BOX:57012); 0 off; "
	     "default 0");
KNOB(pcap_over_ip_if, .name = "pcap_over_ip_if", .type = KNOB_INT, .ranges = if_range, .nranges = 1,
     .ival = &cap_port, .help = "mgmt: the port PCAP-over-IP captures (rx and tx), by number; default 0");

uint64_t mgmt_pcapip[PCAPIP_N];
#define PCAPIP_NAME(name) "pcapip_" #name,
const char *const mgmt_pcapip_names[PCAPIP_N] = { PCAPIP_COUNTERS(PCAPIP_NAME) };

static struct tcp_pcb *client;
static uint8_t buf[BUF_MAX];
static size_t len, off;
static uint32_t last_ms;	/* the last write, or nothing waiting */

int pcapip_ours(uint16_t dport)
{
	return tcp_port && dport == tcp_port;
}

/* The client is gone (closed, reset or stalled): the capture ends. */
static void client_gone(void)
{
	struct capture_stats st;
	capture_stop(&st);
	client = NULL;
	printf("pcap-over-ip: %s: client gone; seen %lu, kept %lu, dropped %lu (ring full)\n", nics[cap_port]->name,
	       st.seen, st.kept, st.dropped);
}

static err_t on_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
	(void)arg, (void)err;
	if (!p) {	/* the client closed its side: close ours */
		tcp_arg(pcb, 0);
		tcp_recv(pcb, 0);
		tcp_err(pcb, 0);
		if (tcp_close(pcb) != ERR_OK) {
			tcp_abort(pcb);
			client_gone();
			return ERR_ABRT;
		}
		client_gone();
		return ERR_OK;
	}
	tcp_recved(pcb, p->tot_len);	/* what it sends is not read */
	pbuf_free(p);
	return ERR_OK;
}

static void on_err(void *arg, err_t err)
{
	(void)arg, (void)err;
	client_gone();	/* lwIP freed the pcb */
}

/* The pcap file header (draft-ietf-opsawg-pcap 4). */
static void header(void)
{
	uint32_t h[6] = { PCAP_MAGIC_NS, 2 | 4u << 16, 0, 0, CAPTURE_SNAPLEN_MAX, 1 };
	memcpy(buf, h, sizeof(h));
	len = sizeof(h);
	off = 0;
}

static err_t on_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
	(void)arg;
	const char *why = "a client is served already";
	struct capture_req req = { .port = (int)cap_port, .dir = CAPTURE_RX | CAPTURE_TX,
				   .snaplen = CAPTURE_SNAPLEN_MAX };
	if (err != ERR_OK || !pcb)
		return ERR_VAL;
	if (client || capture_start(&req, &why)) {
		mgmt_pcapip[PCAPIP_refused]++;
		printf("pcap-over-ip: client refused: %s\n", why);
		tcp_abort(pcb);
		return ERR_ABRT;
	}
	mgmt_pcapip[PCAPIP_clients]++;
	client = pcb;
	tcp_recv(pcb, on_recv);
	tcp_err(pcb, on_err);
	header();
	last_ms = sys_now();
	printf("pcap-over-ip: %s: a client, pcap stream\n", nics[cap_port]->name);
	return ERR_OK;
}

int pcapip_init(void)
{
	if (!tcp_port)
		return 0;
	if (cap_port >= nic_count) {
		printf("pcap-over-ip: pcap_over_ip_if=%lld: no such port (%d ports)\n", (long long)cap_port, nic_count);
		return -1;
	}
	struct tcp_pcb *pcb = tcp_new();
	if (!pcb || tcp_bind(pcb, IP_ANY_TYPE, (u16_t)tcp_port) != ERR_OK || !(pcb = tcp_listen(pcb))) {
		printf("pcap-over-ip: cannot listen on TCP %lld\n", (long long)tcp_port);
		return -1;
	}
	tcp_accept(pcb, on_accept);
	printf("pcap-over-ip: TCP %lld streams %s as pcap (tshark -i TCP@<address>:%lld)\n", (long long)tcp_port,
	       nics[cap_port]->name, (long long)tcp_port);
	return 0;
}

/* Records of the frames captured into buf, while they fit. */
static void fill(void)
{
	const struct capture_rec *r;
	len = off = 0;
	while ((r = capture_peek()) && len + 16 + r->caplen <= BUF_MAX) {
		uint32_t h[4] = { (uint32_t)(r->ns / 1000000000), (uint32_t)(r->ns % 1000000000), r->caplen, r->wirelen };
		memcpy(buf + len, h, sizeof(h));
		memcpy(buf + len + 16, r->data, r->caplen);
		len += 16 + r->caplen;
		mgmt_pcapip[PCAPIP_frames]++;
		capture_next();
	}
}

int pcapip_poll(void)
{
	if (!client)
		return 0;
	uint32_t now = sys_now();
	if (off == len) {
		fill();
		last_ms = now;	/* nothing waited */
	}
	size_t n = len - off, room = tcp_sndbuf(client);
	n = n < room ? n : room;
	n = n < 0xffff ? n : 0xffff;
	if (n && tcp_write(client, buf + off, (u16_t)n, TCP_WRITE_FLAG_COPY) == ERR_OK) {
		tcp_output(client);
		off += n;
		last_ms = now;
		return 1;
	}
	if (now - last_ms > HTTP_STALL_MS) {
		mgmt_pcapip[PCAPIP_stalled]++;
		tcp_arg(client, 0);
		tcp_err(client, 0);
		tcp_abort(client);
		client_gone();
	}
	return 0;
}
