/* lwIP hooks of app=rr (LWIP_HOOK_FILENAME, included by lwIP's sources). */
#ifndef RR_HOOKS_H
#define RR_HOOKS_H
#include "lwip/arch.h"
#include "lwip/err.h"

struct tcp_pcb;
struct tcp_hdr;
struct pbuf;
/* Every TCP segment lwIP matched to a connection or a listener, header in
 * host order and p holding the data: counts RSTs received and data outside
 * the receive window (lwIP acknowledges and drops those silently).
 * Returns ERR_OK: lwIP goes on with the segment. apps/rr/rr_tcp.c. */
err_t rr_tcp_inpacket(struct tcp_pcb *pcb, struct tcp_hdr *hdr, u16_t optlen, u16_t opt1len,
		      u8_t *opt2, struct pbuf *p);
#endif
