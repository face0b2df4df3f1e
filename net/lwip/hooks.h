/* lwIP hooks of net/lwip (LWIP_HOOK_FILENAME, included by lwIP's sources). */
#ifndef NET_LWIP_HOOKS_H
#define NET_LWIP_HOOKS_H
#include "lwip/arch.h"
#include "lwip/err.h"

struct tcp_pcb;
struct tcp_hdr;
struct pbuf;
/* Every TCP segment lwIP matched to a connection or a listener, header in
 * host order and p holding the data: counts RSTs received and data outside
 * the receive window (lwIP acknowledges and drops those silently).
 * Returns ERR_OK: lwIP goes on with the segment. net/lwip/netif.c. */
err_t lwif_tcp_inpacket(struct tcp_pcb *pcb, struct tcp_hdr *hdr, u16_t optlen, u16_t opt1len,
			u8_t *opt2, struct pbuf *p);
#endif
