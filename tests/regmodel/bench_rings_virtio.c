/*
 * Instructions per frame of virtio-net's RX and TX bursts on the register
 * model's split rings (make bench-rings, tools/bench_rings.py), the driver's
 * part of what tools/bench_insn.py counts in QEMU: 2,000 rounds of the
 * "device" returning 32 frames of 60 bytes used (vmodel_rx), rx_burst
 * taking them, tx_burst sending them and the "device" returning those
 * used (vmodel_tx). Run under callgrind, which counts the instructions
 * inside vnet_rx_burst and vnet_tx_burst (the sent buffers' reclaim, when
 * due, is inside tx_burst); the model's side is outside them.
 */
#include <stdio.h>
#include "drivers/net/virtio/net.c"
#include "tests/regmodel/model.h"
#include "tests/regmodel/virtio_model.h"
#define ROUNDS 2000
#define BURST 32

extern struct nic *model_nic;

int main(void)
{
	vmodel_init();
	if (model_probe(&pci_driver_virtio_net, 0x1041))
		return 1;
	struct nic *nic = model_nic;
	struct pkt *pk[BURST];
	uint8_t f[60] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
	long frames = 0;
	for (int round = 0; round < ROUNDS; round++) {
		for (int k = 0; k < BURST; k++)
			vmodel_rx(0, f, sizeof(f), 0);
		int n = nic->ops->rx_burst(nic, 0, pk, BURST);
		frames += nic->ops->tx_burst(nic, 0, pk, n);
		vmodel_tx(1);
	}
	printf("frames %ld\n", frames);
	return frames == (long)ROUNDS * BURST ? 0 : 1;
}
