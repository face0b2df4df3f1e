/*
 * The 82599's software/firmware semaphore (SWSM, SW_FW_SYNC): the
 * manageability firmware and the drivers of the other port share the
 * EEPROM, the PHYs and the SFP+ I2C buses. Software takes SWSM.SMBI
 * (against other software), then SWSM.SWESMBI (against the firmware),
 * then sets its resource bit in SW_FW_SYNC if neither owner's bit is set,
 * and lets SWSM go; the same steps free the resource. The bounds are
 * Linux ixgbe's (ixgbe_get_swfw_sync_semaphore, ixgbe_acquire_swfw_sync):
 * 100 ms for each SWSM bit, 200 tries 5 ms apart for the resource.
 */
#include <stdio.h>
#include "drivers/net/ixgbe/ixgbe.h"
#include "drivers/net/ixgbe/regs.h"

static void swsm_put(struct e1000x_port *p)
{
	clear_flags32(p->regs, IXGBE_SWSM, IXGBE_SWSM_SMBI | IXGBE_SWSM_SWESMBI);
}

/* SMBI: the read that finds it clear sets it; 2000 reads 50 us apart. */
static int smbi_get(struct e1000x_port *p)
{
	for (int i = 0; i < 2000; i++) {
		if (!(rd32(p->regs, IXGBE_SWSM) & IXGBE_SWSM_SMBI))
			return 0;
		udelay(50);
	}
	return -1;
}

/* SMBI, then SWESMBI written and read back; 0 or -1 (printed). An SMBI
 * held 100 ms is taken for a driver that died holding it: cleared once
 * and tried again, as Linux does. */
static int swsm_get(struct e1000x_port *p)
{
	if (smbi_get(p)) {
		printf("%s: SWSM.SMBI held for 100 ms: cleared once, as Linux does\n", p->nic.name);
		swsm_put(p);
		if (smbi_get(p)) {
			printf("%s: SWSM.SMBI held by another agent for 100 ms\n", p->nic.name);
			return -1;
		}
	}
	for (int i = 0; i < 2000; i++) {
		set_flags32(p->regs, IXGBE_SWSM, IXGBE_SWSM_SWESMBI);
		if (rd32(p->regs, IXGBE_SWSM) & IXGBE_SWSM_SWESMBI)
			return 0;
		udelay(50);
	}
	swsm_put(p);
	printf("%s: SWSM.SWESMBI not granted in 100 ms: the firmware holds the semaphore\n", p->nic.name);
	return -1;
}

int ixgbe_swfw_acquire(struct e1000x_port *p, uint32_t mask)
{
	uint32_t busy = mask | mask << IXGBE_SW_FW_SYNC_FW_SHIFT, sync = 0;
	for (int i = 0; i < 200; i++) {
		if (swsm_get(p))
			return -1;
		sync = rd32(p->regs, IXGBE_SW_FW_SYNC);
		if (!(sync & busy)) {
			wr32(p->regs, IXGBE_SW_FW_SYNC, sync | mask);
			swsm_put(p);
			return 0;
		}
		swsm_put(p);
		udelay(5000);
	}
	printf("%s: SW_FW_SYNC resource %#x held for 1 s (SW_FW_SYNC %#x: %s)\n", p->nic.name, mask, sync,
	       sync & mask << IXGBE_SW_FW_SYNC_FW_SHIFT ? "by the firmware" : "by another driver");
	return -1;
}

/* Without SWSM the bit is cleared all the same (Linux does): a resource
 * left set would lock every later user out. */
void ixgbe_swfw_release(struct e1000x_port *p, uint32_t mask)
{
	int held = !swsm_get(p);
	clear_flags32(p->regs, IXGBE_SW_FW_SYNC, mask);
	if (held)
		swsm_put(p);
}
