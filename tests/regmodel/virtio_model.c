/*
 * The virtio-net device of tests/regmodel/virtio_model.h. Offsets and
 * semantics are written from the virtio 1.2 specification (4.1.4 the PCI
 * capabilities and common configuration, 2.7 split virtqueues, 5.1.4 the
 * net device's configuration), not taken from the driver's regs.h.
 */
#include <string.h>
#include "tests/regmodel/model.h"
#include "tests/regmodel/virtio_model.h"

struct vmodel V;
uint8_t vmodel_last_hdr[20];
uint32_t vmodel_last_len;

/* The LAPIC calls of irq_raise: one core, nothing to send to. */
uint32_t lapic_id(void) { return 0; }
void lapic_ipi(uint32_t apic_id, uint32_t icr) { (void)apic_id; (void)icr; }

/* Capabilities at 0x40: common, notify (20 bytes with its multiplier),
 * ISR, device; each a struct virtio_pci_cap (4.1.4). */
static const struct { uint8_t at, type, len; uint32_t off, size; } caps[] = {
	{ 0x40, 1, 16, VM_COMMON, 0x3c }, { 0x50, 2, 20, VM_NOTIFY, 0x1000 },
	{ 0x64, 3, 16, VM_ISR, 4 }, { 0x74, 4, 16, VM_DEVICE, sizeof(V.devcfg) },
};

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void ctrl_serve(void);

/* 4.1.4.3.2: writing 0 to device_status resets the device. */
static void device_reset(void)
{
	V.driver_features = 0;
	V.dfselect = V.gfselect = 0;
	V.status = V.isr = 0;
	V.qselect = 0;
	V.config_msix = 0xffff;
	for (int i = 0; i < VM_QUEUES; i++)
		V.q[i] = (struct vm_queue){ .size = V.s.qsize[i], .msix = 0xffff };
}

void vmodel_init(void)
{
	model_init(M_82574);
	memset(&V, 0, sizeof(V));
	/* VERSION_1, MAC, STATUS, CSUM, GUEST_CSUM, MTU, EVENT_IDX */
	V.s.features = 1ull << 32 | 1u << 5 | 1u << 16 | 1u << 0 | 1u << 1 | 1u << 3 | 1u << 29;
	for (int i = 0; i < VM_QUEUES; i++)
		V.s.qsize[i] = 256;
	static const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
	memcpy(V.devcfg, mac, 6);
	V.devcfg[6] = 1;		/* status: VIRTIO_NET_S_LINK_UP */
	V.devcfg[8] = 1;		/* max_virtqueue_pairs */
	V.devcfg[10] = 1500 & 0xff;	/* mtu */
	V.devcfg[11] = 1500 >> 8;
	M.cfg[0x34] = caps[0].at;
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		uint8_t *c = &M.cfg[caps[i].at];
		c[0] = 0x09;	/* vendor-specific */
		c[1] = i + 1 < sizeof(caps) / sizeof(caps[0]) ? caps[i + 1].at : 0;
		c[2] = caps[i].len;
		c[3] = caps[i].type;
		c[4] = 0;	/* BAR 0 */
		put32(c + 8, caps[i].off);
		put32(c + 12, caps[i].size);
		if (caps[i].type == 2)
			put32(c + 16, VM_NOTIFY_MULT);
	}
	device_reset();
	model_delay_hook = ctrl_serve;
}

uint8_t vmodel_cap(int type)
{
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
		if (caps[i].type == type)
			return caps[i].at;
	return 0;
}

static struct vm_queue *sel(void)
{
	return V.qselect < VM_QUEUES ? &V.q[V.qselect] : 0;
}

/* Common configuration reads (4.1.4.3); a queue field of a queue that
 * does not exist reads 0. */
static uint32_t common_read(uint32_t off)
{
	struct vm_queue *q = sel();
	switch (off) {
	case 0x00: return V.dfselect;
	case 0x04: return V.dfselect < 2 ? (uint32_t)(V.s.features >> (32 * V.dfselect)) : 0;
	case 0x08: return V.gfselect;
	case 0x0c: return V.gfselect < 2 ? (uint32_t)(V.driver_features >> (32 * V.gfselect)) : 0;
	case 0x10: return V.config_msix;
	case 0x12: return VM_QUEUES;
	case 0x14: return V.status;
	case 0x15: return 0;	/* config_generation: the configuration never changes */
	case 0x16: return V.qselect;
	}
	if (!q)
		return 0;
	switch (off) {
	case 0x18: return q->size;
	case 0x1a: return q->msix;
	case 0x1c: return q->enable;
	case 0x1e: return V.qselect;	/* queue_notify_off */
	case 0x3a: return q->reset;
	}
	V.bad_access++;
	return 0;
}

/* FEATURES_OK stays set only for features the device offered (3.1.1 step 6). */
static void status_write(uint8_t v)
{
	V.status_seen |= v;
	if (!v) {
		device_reset();
		V.resets++;
		return;
	}
	if ((v & 8) && !(V.status & 8) &&
	    (V.s.refuse_features_ok || (V.driver_features & ~V.s.features)))
		v &= (uint8_t)~8;
	V.status = v;
}

static void set_half(uint64_t *f, uint32_t off, uint32_t v)
{
	int hi = (off & 4) != 0;
	*f = hi ? (*f & 0xffffffffu) | (uint64_t)v << 32 : (*f & ~0xffffffffull) | v;
}

static void common_write(uint32_t off, uint32_t v)
{
	struct vm_queue *q = sel();
	switch (off) {
	case 0x00: V.dfselect = v; return;
	case 0x08: V.gfselect = v; return;
	case 0x0c:
		if (V.gfselect < 2)
			set_half(&V.driver_features, V.gfselect ? 4 : 0, v);
		return;
	case 0x10: V.config_msix = (uint16_t)v; return;
	case 0x14: status_write((uint8_t)v); return;
	case 0x16: V.qselect = (uint16_t)v; return;
	}
	if (!q) {
		V.bad_access++;
		return;
	}
	switch (off) {
	case 0x18: q->size = (uint16_t)v; return;
	case 0x1a: q->msix = V.s.refuse_msix ? 0xffff : (uint16_t)v; return;
	case 0x1c:	/* 4.1.4.3.1: enabling ends a queue reset */
		q->enable = (uint16_t)v;
		q->reset = 0;
		return;
	case 0x3a:	/* 4.1.4.3.1: the queue to its reset values; 0 in queue_reset when done */
		if (v != 1 || !(V.driver_features >> 40 & 1))
			break;
		*q = (struct vm_queue){ .size = V.s.qsize[V.qselect], .msix = 0xffff,
					.reset = (uint16_t)(V.s.stuck_queue_reset != 0) };
		V.queue_resets++;
		return;
	case 0x20: case 0x24: set_half(&q->desc, off, v); return;
	case 0x28: case 0x2c: set_half(&q->avail, off, v); return;
	case 0x30: case 0x34: set_half(&q->used, off, v); return;
	}
	V.bad_access++;
}

uint32_t vmodel_read(volatile uint8_t *a, int len)
{
	uint32_t off = (uint32_t)(a - (volatile uint8_t *)M.reg), v = 0;
	if (off < VM_ISR)
		return common_read(off - VM_COMMON);
	if (off == VM_ISR) {
		v = V.isr;
		V.isr = 0;	/* 4.1.4.5: reading clears */
		return v;
	}
	if (off >= VM_DEVICE && off + (uint32_t)len <= VM_DEVICE + sizeof(V.devcfg)) {
		memcpy(&v, &V.devcfg[off - VM_DEVICE], (size_t)len);
		return v;
	}
	V.bad_access++;
	return 0;
}

void vmodel_write(volatile uint8_t *a, int len, uint32_t v)
{
	uint32_t off = (uint32_t)(a - (volatile uint8_t *)M.reg);
	(void)len;
	if (off < VM_ISR)
		common_write(off - VM_COMMON, v);
	else
		V.bad_access++;
}

/* ---- the device's side of a split virtqueue (2.7) ---- */

struct vring_d { uint64_t addr; uint32_t len; uint16_t flags, next; };

static struct vring_d *ring_desc(struct vm_queue *q) { return (struct vring_d *)(uintptr_t)q->desc; }
static uint16_t *avail_ring(struct vm_queue *q) { return (uint16_t *)(uintptr_t)q->avail; }	/* flags, idx, ring[] */
static uint16_t *used_hdr(struct vm_queue *q) { return (uint16_t *)(uintptr_t)q->used; }	/* flags, idx */
static uint32_t *used_ring(struct vm_queue *q) { return (uint32_t *)(uintptr_t)(q->used + 4); }	/* id, len pairs */

/* ---- packed virtqueues (2.8), with VIRTIO_F_RING_PACKED (34) ---- */

struct vring_p { uint64_t addr; uint32_t len; uint16_t id, flags; };
#define P_AVAIL (1u << 7)
#define P_USED (1u << 15)

static int packed(void) { return (V.driver_features >> 34) & 1; }
static struct vring_p *pring(struct vm_queue *q) { return (struct vring_p *)(uintptr_t)q->desc; }
/* The wrap counter of index i (2.8.1): 1 for the first pass over the ring. */
static int wrap(const struct vm_queue *q, uint16_t i) { return !((i / q->size) & 1); }
/* What each buffer id taken from a packed ring pointed at. */
static struct vring_d taken[VM_QUEUES][256];

/* The buffer of id taken from queue qi: its split descriptor, or what the
 * packed slot it came in said. */
static struct vring_d *buf_of(int qi, uint16_t id)
{
	return packed() ? &taken[qi][id % 256] : &ring_desc(&V.q[qi])[id];
}

int vmodel_take(int qi, uint16_t *ids, int max)
{
	struct vm_queue *q = &V.q[qi];
	int k = 0;
	if (!q->enable || !(V.status & 4))
		return 0;
	while (packed() && k < max) {	/* 2.8.1: AVAIL equal to the wrap counter, USED not */
		struct vring_p *d = &pring(q)[q->last_avail % q->size];
		int w = wrap(q, q->last_avail);
		if (!(d->flags & P_AVAIL) != !w || !(d->flags & P_USED) == !w)
			break;
		taken[qi][d->id % 256] = (struct vring_d){ .addr = d->addr, .len = d->len, .flags = d->flags };
		ids[k++] = d->id;
		q->last_avail++;
	}
	while (!packed() && k < max && avail_ring(q)[1] != q->last_avail) {
		ids[k++] = avail_ring(q)[2 + (q->last_avail % q->size)];
		q->last_avail++;
	}
	return k;
}

void vmodel_use(int qi, uint32_t id, uint32_t len)
{
	struct vm_queue *q = &V.q[qi];
	if (packed()) {	/* 2.8.1: both flags equal to the used wrap counter */
		struct vring_p *d = &pring(q)[q->used_idx % q->size];
		d->id = (uint16_t)id;
		d->len = len;
		d->flags = wrap(q, q->used_idx) ? P_AVAIL | P_USED : 0;
		q->used_idx++;
		return;
	}
	uint32_t *e = &used_ring(q)[2 * (q->used_idx % q->size)];
	e[0] = id;
	e[1] = len;
	q->used_idx++;
	used_hdr(q)[1] = q->used_idx;
}

void vmodel_use_batch(int qi, uint32_t id, uint32_t len, uint16_t count)
{
	struct vm_queue *q = &V.q[qi];
	uint32_t *e = &used_ring(q)[2 * (q->used_idx % q->size)];
	e[0] = id;
	e[1] = len;
	q->used_idx = (uint16_t)(q->used_idx + count);
	used_hdr(q)[1] = q->used_idx;
}

/* The header's length (5.1.6): 20 bytes with VIRTIO_NET_F_HASH_REPORT (57). */
static uint32_t hdr_len(void)
{
	return V.driver_features & 1ull << 57 ? 20 : 12;
}

int vmodel_rx(int qi, const uint8_t *frame, uint16_t len, uint8_t flags)
{
	uint16_t id;
	uint32_t h = hdr_len();
	if (vmodel_take(qi, &id, 1) != 1)
		return 0;
	struct vring_d *d = buf_of(qi, id);
	uint8_t *b = (uint8_t *)(uintptr_t)d->addr;
	if (h + len > d->len || !(d->flags & 2))	/* VRING_DESC_F_WRITE */
		return 0;
	memset(b, 0, h);
	b[0] = flags;
	b[10] = 1;	/* num_buffers */
	if (h == 20) {
		put32(b + 12, V.s.rx_hash);
		memcpy(b + 16, &V.s.rx_hash_report, 2);
	}
	memcpy(b + h, frame, len);
	vmodel_use(qi, id, h + len);
	return 1;
}

/* The control queue (5.1.6.5): each chain made available is a 2-byte
 * class and command, the data, then a 1-byte ack the device writes; the
 * data is kept in V.ctrl and the ack is VIRTIO_NET_OK (0). */
static void ctrl_serve(void)
{
	uint16_t head;
	while (vmodel_take(VM_CTRLQ, &head, 1) == 1) {
		struct vring_d *t = ring_desc(&V.q[VM_CTRLQ]), *d = &t[head];
		const uint8_t *c = (const uint8_t *)(uintptr_t)d->addr;
		V.ctrl.class = c[0];
		V.ctrl.cmd = c[1];
		V.ctrl.len = 0;
		while (d->flags & 1) {	/* VRING_DESC_F_NEXT */
			d = &t[d->next % V.q[VM_CTRLQ].size];
			if (d->flags & 2) {	/* the ack */
				*(uint8_t *)(uintptr_t)d->addr = 0;
				break;
			}
			if (V.ctrl.len + d->len <= sizeof(V.ctrl.data)) {
				memcpy(V.ctrl.data + V.ctrl.len, (void *)(uintptr_t)d->addr, d->len);
				V.ctrl.len += d->len;
			}
		}
		V.ctrl.commands++;
		vmodel_use(VM_CTRLQ, head, 1);
	}
}

int vmodel_tx(int qi)
{
	uint16_t ids[256];
	int n = vmodel_take(qi, ids, 256);
	for (int i = 0; i < n; i++) {
		struct vring_d *d = buf_of(qi, ids[i]);
		memcpy(vmodel_last_hdr, (void *)(uintptr_t)d->addr, 20);
		vmodel_last_len = d->len;
		vmodel_use(qi, ids[i], 0);
	}
	return n;
}

void vmodel_set_avail_event(int qi, uint16_t v)
{
	struct vm_queue *q = &V.q[qi];
	memcpy((uint8_t *)(uintptr_t)q->used + 4 + 8u * q->size, &v, 2);
}

uint16_t vmodel_used_event(int qi)
{
	struct vm_queue *q = &V.q[qi];
	return avail_ring(q)[2 + q->size];
}

void vmodel_used_jump(int qi, uint16_t delta)
{
	struct vm_queue *q = &V.q[qi];
	q->used_idx = (uint16_t)(q->used_idx + delta);
	used_hdr(q)[1] = q->used_idx;
}
