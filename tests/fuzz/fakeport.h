/*
 * The fake port of the harnesses that run an app behind a NIC (fuzz_lwip,
 * fuzz_http, fuzz_dhcp, fuzz_ptpport): a registered struct nic of one
 * queue whose frames sent go to the harness's tx_burst and which receives
 * nothing on its own; the harness hands each frame to the port's app as
 * rx_burst would (fake_port_rx).
 */
#ifndef FUZZ_FAKEPORT_H
#define FUZZ_FAKEPORT_H
#include <assert.h>
#include <string.h>
#include "apps/app.h"
#include "drivers/net/nic.h"
#include "net/pkt.h"

static int fake_rx(struct nic *nic, int q, struct pkt **pkts, int n)
{
	(void)nic, (void)q, (void)pkts, (void)n;
	return 0;
}

/* nic registered as port index port, MAC mac, its frames sent to ops's
 * tx_burst; pools of bufs packet buffers and 8 small ones. */
static void fake_port(struct nic *nic, const struct nic_ops *ops, const uint8_t mac[6], int port, uint32_t bufs)
{
	*nic = (struct nic){ .driver = "fake", .model = "fuzz", .ops = ops, .nqueues = 1, .rxd = 64, .txd = 64,
			     .link_up = 1, .mtu = 1500 };
	memcpy(nic->mac, mac, 6);
	assert(nic_register(nic) == port);
	nic->pool = pktpool_create("fuzz", bufs, PKT_SLOT);
	nic->small_pool = pktpool_create("fuzz", 8, PKT_SMALL_SLOT);
}

/* Frame p received on queue 0 of nic, handed to the port's app. */
static void fake_port_rx(struct nic *nic, struct pkt *p)
{
	p->port = (uint16_t)nic->port;
	p->queue = 0;
	app_of_port(nic->port)->rx(nic, 0, &p, 1);
}
#endif
