/*
 * Instructions per frame of the RX and TX bursts on the register model's
 * rings (make bench-rings, tools/bench_rings.py): QEMU has no 82599, so
 * the ixgbe fast path is counted on the host, beside igb's (the e1000x
 * extended format) for comparison. 2,000 rounds: the "device" writes back
 * 32 frames of 60 bytes, rx_burst takes them, tx_burst sends them, the
 * "device" marks them sent. Run under callgrind, which counts the
 * instructions inside e1000x_rx_burst_* and e1000x_tx_burst_*; the
 * model's register writes (model_wr32, one RDT and one TDT per round) are
 * subtracted there, an MMIO store counted as one instruction.
 */
#include <stdio.h>
#include "tests/regmodel/model.h"
#ifdef MODEL_IXGBE
#include "drivers/net/ixgbe/ixgbe.c"
#define DRV pci_driver_ixgbe
#define DEV 0x10fb
#define FLAV M_82599
#else
#include "drivers/net/igb/igb.c"
#include "drivers/net/igb/igb_hw.c"
#define DRV pci_driver_igb
#define DEV 0x10c9
#define FLAV M_82576
#endif
#define ROUNDS 2000
#define BURST 32

extern struct nic *model_nic;

int main(void)
{
	model_init(FLAV);
	if (model_probe(&DRV, DEV))
		return 1;
	struct nic *nic = model_nic;
	struct e1000x_rxq *rq = &to_port(nic)->rxq[0];
	struct e1000x_txq *tq = &to_port(nic)->txq[0];
	struct pkt *pk[BURST];
	long frames = 0;
	for (int round = 0; round < ROUNDS; round++) {
		for (uint32_t k = 0; k < BURST; k++) {
			uint32_t i = (rq->next + k) % rq->n;
			rq->ring[i].wb.length = 60;
			rq->ring[i].wb.staterr = RXDEXT_DD | RXDEXT_EOP;
		}
		M.nlog = 0;
		int n = nic->ops->rx_burst(nic, 0, pk, BURST);
		int s = nic->ops->tx_burst(nic, 0, pk, n);
		for (int k = 0; k < s; k++)
			tq->ring[(tq->tail + tq->n - 1 - (uint32_t)k) % tq->n].d.status |= TXD_DD;
		frames += s;
	}
	printf("frames %ld\n", frames);
	return frames == (long)ROUNDS * BURST ? 0 : 1;
}
