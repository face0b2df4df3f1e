/*
 * mgmt: the management port (mgmt=portN). lwIP (net/lwip, as under
 * app=rr) answers ARP and ping on the port's ipN= address
 * (static, or from a DHCP lease with ipN=dhcp, dhcp.c)
 * and a minimal HTTP/1.0 server (http.c) serves /metrics in the Prometheus
 * text format 0.0.4 (metrics.c), / (status) and /config. The port never
 * carries forwarded traffic: fwd neither pairs with nor routes to it.
 * Received frames are counted by net/lwip (lwif_stats: handed to lwIP by
 * protocol, or a named drop); HTTP outcomes in mgmt_http.
 */
#ifndef APPS_MGMT_H
#define APPS_MGMT_H
#include <stddef.h>
#include <stdint.h>

struct app;
extern const struct app app_mgmt;
struct prom;

#define HTTP_PORT	80
#define HTTP_CONNS	8	/* connections at once; more are reset (conns_refused) */
#define HTTP_REQ_MAX	2048	/* request line and headers, bytes; more: 431 */
#define HTTP_IDLE_MS	5000	/* a connection silent this long is reset (timeouts) */
#define HTTP_REQ_MS	10000	/* a request not all received this long after the accept is reset (timeouts) */
#define HTTP_BUDGET	16384	/* bytes written to TCP per poll round */
#define HTTP_HALF_OPEN	16	/* handshakes under way at once; more SYNs are dropped (syn_over_limit) */
#define HTTP_SYN_MS	3000	/* a handshake not done in this long is dropped (half_open_expired) */
/* lwIP's TCP PCBs: HTTP's connections and handshakes, and as many again
 * closing or in TIME-WAIT (lwIP reuses the oldest of those when out). */
#define MGMT_PCBS	(2 * (HTTP_CONNS + HTTP_HALF_OPEN) + 2)	/* + PCAP-over-IP's client, in TIME_WAIT too */

/* HTTP outcomes: one per request answered, or one per connection dropped. */
#define HTTP_COUNTERS(X) \
	X(ok) X(not_found) X(bad_method) X(bad_request) X(too_large) X(truncated) \
	X(timeouts) X(conns_refused) X(conns_accepted) X(conns_reset) X(no_memory) X(half_open_expired) \
	X(captures) X(capture_busy) X(capture_stalled)
#define HTTP_ENUM(name) HTTP_##name,
enum http_counter { HTTP_COUNTERS(HTTP_ENUM) HTTP_N };
extern uint64_t mgmt_http[HTTP_N];
extern const char *const mgmt_http_names[HTTP_N];

/* http.c: listen on HTTP_PORT; 0 or -1. */
int http_init(void);
/* http.c: handshakes to HTTP_PORT under way (lwIP's SYN_RCVD PCBs). */
int http_half_open(void);
/* http.c: from the poll loop: answer at most one request and write at most
 * HTTP_BUDGET bytes; reset idle connections. Returns work done (> 0 busy). */
int http_poll(void);

/* PCAP-over-IP's outcomes (pcapip.c): clients served, refused (a capture
 * ran, or a client was served), reset for reading nothing for
 * HTTP_STALL_MS; frames streamed. */
#define PCAPIP_COUNTERS(X) X(clients) X(refused) X(stalled) X(frames)
#define PCAPIP_ENUM(name) PCAPIP_##name,
enum pcapip_counter { PCAPIP_COUNTERS(PCAPIP_ENUM) PCAPIP_N };
extern uint64_t mgmt_pcapip[PCAPIP_N];
extern const char *const mgmt_pcapip_names[PCAPIP_N];
/* pcapip.c: listen on pcap_over_ip's TCP port if set; 0 or -1. */
int pcapip_init(void);
/* pcapip.c: 1 if dport is PCAP-over-IP's. */
int pcapip_ours(uint16_t dport);
/* pcapip.c: from the poll loop: the captured frames to the client, as its
 * window takes them; a stalled client reset. Returns work done. */
int pcapip_poll(void);

/* Longest wait before asking DHCP again after leases refused in a row, s:
 * RFC 2131 4.1's 64 s bound on retransmission delays. */
#define DHCP_BACKOFF_MAX_S 64

/* A DHCP lease of the management port (ipN=dhcp); addresses in host order. */
struct mgmt_lease {
	int bound;			/* 1 while the port holds a lease; the rest is 0 otherwise */
	uint32_t addr, mask, router, server;
	uint32_t lease_s, renew_s, rebind_s;	/* lease time, T1 and T2 of the last ACK, s */
	uint32_t refused;		/* leases refused since boot (bound or not) */
};
/* dhcp.c: start lwIP's DHCP client on port (its netif added); 0 or -1. */
int mgmt_dhcp_start(int port);
/* dhcp.c: port's lease into *l; 0, or -1 if port does not run DHCP. */
int mgmt_dhcp_lease(int port, struct mgmt_lease *l);
/* dhcp.c: from the idle hook, every 10 ms at most: a lease bound, changed
 * or lost is printed and becomes the port's address (ifaddrs); a lease the
 * port cannot take is refused and the client asked again after a wait
 * doubling from 1 s to DHCP_BACKOFF_MAX_S. */
void mgmt_dhcp_poll(void);
/* dhcp.c: the lease's /metrics families (mgmt_dhcp_*), if a port runs
 * the client. */
void mgmt_dhcp_metrics(struct prom *o);
/* dhcp.c: print port's lease (the line printed when it was bound), or that
 * it has none yet; nothing if port does not run DHCP. */
void mgmt_dhcp_show(int port);

/* A /capture stream whose client reads nothing for this long ends
 * (capture_stalled); forwarding is never held up meanwhile. */
#define HTTP_STALL_MS 2000
struct pcapng_buf;
/* capture.c: start the capture GET /capture?query asks for (query after
 * the '?', NUL-terminated, may be NULL). 0, or -1 with *why (for a 400
 * answer; a capture already running: capture_start's message). */
int mgmt_capture_open(const char *query, const char **why);
/* capture.c: append what is due to b: the SHB and IDB first, then an EPB
 * per frame captured, and the ISB once count frames went or the seconds
 * passed. 1 while the capture goes on, 0 once it ended (ISB written). */
int mgmt_capture_read(struct pcapng_buf *b);
/* capture.c: end the capture now (its client went or stalled). */
void mgmt_capture_close(void);

/* metrics.c: the page for path into buf (len bytes): 200 and its length,
 * or 404 (len 0). ctype: its Content-Type. A page that does not fit is cut
 * at the last whole line (*truncated set). */
#define MGMT_PATHS "/metrics / /config"	/* the pages mgmt_page serves */
int mgmt_page(const char *path, char *buf, size_t len, size_t *out, const char **ctype, int *truncated);
#endif
