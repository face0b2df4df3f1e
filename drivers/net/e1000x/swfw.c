/*
 * The software/firmware semaphore of the 82575 and later and of the
 * 82599 (82576 datasheet 4.7.1, 8.2.5-8.2.6; 82599 datasheet 10.5.4,
 * 8.2.3.4.10-11): the manageability firmware and the other ports' drivers
 * share the NVM, the PHYs and (82599) the SFP+ I2C buses. Software takes
 * SWSM.SMBI (against other software: the read that finds it clear sets
 * it), then SWSM.SWESMBI (against the firmware: written, read back), then
 * sets its resource bit in SW_FW_SYNC if neither owner's bit is set, and
 * lets SWSM go; the same steps free the resource. The X540 has no
 * SWESMBI: against the firmware it takes SW_FW_SYNC.REGSMP (bit 31), set
 * by the read that finds it clear as SMBI is, and freed by writing it 0
 * before SMBI (the X540's SWFW_SYNC; Linux ixgbe_x540.c's
 * ixgbe_get_swfw_sync_semaphore). The bounds are Linux's
 * (igb_get_hw_semaphore, ixgbe_get_swfw_sync_semaphore): 100 ms for each
 * SWSM bit, 200 tries 5 ms apart for the resource.
 */
#include <stdio.h>
#include "drivers/net/e1000x/e1000x.h"

static void swsm_put(struct e1000x_port *p, const struct e1000x_swfw *s)
{
	if (s->regsmp)
		clear_flags32(p->regs, s->sync, s->regsmp);
	clear_flags32(p->regs, s->swsm, SWSM_SMBI | (s->regsmp ? 0 : SWSM_SWESMBI));
}

/* The firmware's side: SWESMBI written and read back or, on the X540,
 * REGSMP read until a read finds it clear (that read set it); 2000 tries
 * 50 us apart. 0 or -1. */
static int fw_sem_get(struct e1000x_port *p, const struct e1000x_swfw *s)
{
	for (int i = 0; i < 2000; i++) {
		if (s->regsmp && !(rd32(p->regs, s->sync) & s->regsmp))
			return 0;
		if (!s->regsmp) {
			set_flags32(p->regs, s->swsm, SWSM_SWESMBI);
			if (rd32(p->regs, s->swsm) & SWSM_SWESMBI)
				return 0;
		}
		udelay(50);
	}
	return -1;
}

/* SMBI: the read that finds it clear sets it; 2000 reads 50 us apart. */
static int smbi_get(struct e1000x_port *p, const struct e1000x_swfw *s)
{
	for (int i = 0; i < 2000; i++) {
		if (!(rd32(p->regs, s->swsm) & SWSM_SMBI))
			return 0;
		udelay(50);
	}
	return -1;
}

/* SMBI, then the firmware's bit (fw_sem_get); 0 or -1 (printed). An SMBI
 * held 100 ms is taken, where s allows it, for a driver that died holding
 * it: cleared and tried once more. */
static int swsm_get(struct e1000x_port *p, const struct e1000x_swfw *s)
{
	int err = smbi_get(p, s);
	if (err && s->may_clear_smbi) {
		p->smbi_cleared = 1;
		printf("%s: SWSM.SMBI held for 100 ms: cleared once, as Linux does\n", p->nic.name);
		swsm_put(p, s);
		err = smbi_get(p, s);
	}
	if (err) {
		printf("%s: SWSM.SMBI held by another agent for 100 ms\n", p->nic.name);
		return -1;
	}
	if (!fw_sem_get(p, s))
		return 0;
	swsm_put(p, s);
	printf("%s: %s not granted in 100 ms: the firmware holds the semaphore\n", p->nic.name,
	       s->regsmp ? "SW_FW_SYNC.REGSMP" : "SWSM.SWESMBI");
	return -1;
}

int e1000x_swfw_acquire(struct e1000x_port *p, const struct e1000x_swfw *s, uint32_t mask)
{
	uint32_t busy = mask | mask << s->fw_shift, sync = 0;
	for (int i = 0; i < 200; i++) {
		if (swsm_get(p, s))
			return -1;
		sync = rd32(p->regs, s->sync);
		if (!(sync & busy)) {
			wr32(p->regs, s->sync, sync | mask);
			swsm_put(p, s);
			return 0;
		}
		swsm_put(p, s);
		udelay(5000);
	}
	printf("%s: SW_FW_SYNC resource %#x held for 1 s (SW_FW_SYNC %#x: %s)\n", p->nic.name, mask, sync,
	       sync & mask << s->fw_shift ? "by the firmware" : "by another driver");
	return -1;
}

/* Without SWSM the bit is cleared all the same (Linux does): a resource
 * left set would lock every later user out. */
void e1000x_swfw_release(struct e1000x_port *p, const struct e1000x_swfw *s, uint32_t mask)
{
	int held = !swsm_get(p, s);
	clear_flags32(p->regs, s->sync, mask);
	if (held)
		swsm_put(p, s);
}
