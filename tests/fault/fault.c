/*
 * Fault injection for the tests of issue 16 ("faults under traffic"),
 * linked only into build/linerate-fault.elf, never into linerate.elf: the
 * shell command `fault`.
 *
 *   fault txhang <port>    clear TCTL.EN (82574 10.2.5.1, 82576 8.9.1): the
 *                          transmit unit stops taking descriptors, as a
 *                          hung one does; the watchdog must find the hang
 *                          (no descriptor done for 2 s), count it in
 *                          tx_timeout_count and reset the port
 *   fault hold <port> [n]  take n buffers (default all free) out of the
 *                          port's RX pool, as a consumer that keeps them
 *   fault release          give every held buffer back
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "drivers/net/e1000x/e1000x.h"
#include "drivers/net/nic.h"
#include "kernel/shell.h"

#define HOLD_MAX 16384

static struct pkt *held[HOLD_MAX];
static int nheld;

static int usage(void)
{
	printf("usage: fault txhang <port> | fault hold <port> [n] | fault release\n");
	return -1;
}

static int txhang(struct nic *nic)
{
	if (!strcmp(nic->driver, "virtio_net")) {
		printf("fault: txhang clears an Intel port's TCTL.EN; %s is virtio_net\n", nic->name);
		return -1;
	}
	clear_flags32(to_port(nic)->regs, TCTL, TCTL_EN);
	printf("fault: %s TCTL.EN cleared (TX stopped)\n", nic->name);
	return 0;
}

static int hold(struct nic *nic, long n)
{
	int got = 0;
	struct pkt *p;
	while (got < n && nheld < HOLD_MAX && (p = pkt_alloc(nic->pool))) {
		held[nheld++] = p;
		got++;
	}
	printf("fault: holding %d buffers of %s (pool_free now %u)\n", got, nic->name, nic->pool->nfree);
	return 0;
}

static int cmd_fault(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "release")) {
		printf("fault: released %d buffers\n", nheld);
		pkt_free_bulk(held, nheld);
		nheld = 0;
		return 0;
	}
	struct nic *nic = argc >= 3 ? nic_find(argv[2]) : 0;
	if (!nic)
		return usage();
	if (argc == 3 && !strcmp(argv[1], "txhang"))
		return txhang(nic);
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "hold")) {
		char *end = 0;
		long n = argc == 4 ? strtol(argv[3], &end, 10) : HOLD_MAX;
		if (end && (*end || n < 0))
			return usage();
		return hold(nic, n);
	}
	return usage();
}
SHELL_CMD(fault, "fault", "fault txhang <port> | fault hold <port> [n] | fault release",
	  "test image only: stop a port's TX unit, or hold/release RX pool buffers", cmd_fault);
