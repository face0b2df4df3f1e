/* Setting a port up: its interrupt vectors, and the steps around a reset; see nic.h. */
#include <stdio.h>
#include "drivers/net/nic.h"

int nic_setup_vectors(struct nic *nic, irq_handler_t other, void *arg, const char *what)
{
	int nq = nic->nqueues;
	irq_handler_t handlers[NIC_MAX_QUEUES + 1];
	void *args[NIC_MAX_QUEUES + 1];
	const char *names[NIC_MAX_QUEUES + 1];
	char label[NIC_MAX_QUEUES + 1][32];	/* as /proc/interrupts names them; pciirq copies */
	for (int q = 0; q < nq; q++) {
		handlers[q] = napi_queue_irq;
		args[q] = napi_queue_arg(nic, q);
		snprintf(label[q], sizeof(label[q]), "%s-rx%d", nic->name, q);
		names[q] = label[q];
	}
	handlers[nq] = other;
	args[nq] = arg;
	snprintf(label[nq], sizeof(label[nq]), "%s-%s", nic->name, what);
	names[nq] = label[nq];
	int got = pci_irq_setup(nic->pci, nq + 1, handlers, args, names);
	if (got < 0)
		return -1;
	if (nic->pci->int_mode == INT_MODE_MSIX && got == nq + 1)
		return 1;
	if (nq > 1)
		printf("%s: one interrupt vector: 1 queue instead of %d\n", nic->name, nq);
	nic->nqueues = 1;
	return 0;
}

void nic_reset_begin(struct nic *nic, const char *why)
{
	printf("%s: %s: resetting\n", nic->name, why);
	if (nic_stop_others)
		nic_stop_others(1);
}

/* A reset takes the port's link down as Linux's does (e1000e_reinit_locked:
 * e1000e_down turns the carrier off, the watchdog on again at STATUS.LU),
 * whether or not the link itself dropped (QEMU's stays up): a port that
 * was up counts 2 in link_changes per reset, never 1 or 0 by timing. */
void nic_reset_end(struct nic *nic, int err)
{
	nic->stats[NS_resets]++;
	if (err) {
		printf("%s: reset failed; port stopped\n", nic->name);
	} else {
		for (int q = 0; q < nic->nqueues; q++)
			if (nic->cfg.poll != POLL_BUSY)
				(void)nic->ops->irq_enable(nic, q);
		if (nic->link_up == 1) {
			nic->stats[NS_link_changes]++;
			printf("%s: link down (reset)\n", nic->name);
		}
		nic->link_up = 0;
	}
	if (nic_stop_others)
		nic_stop_others(0);
}
