/*
 * Unit tests for drivers/pci/pcidecode.c against config-space images
 * captured from QEMU 10 (pci_images.h), and against images broken on
 * purpose: capability loops, pointers out of range, all-ones reads.
 * The fake device sizes BARs as hardware does and flags any BAR probed
 * while its decode was on.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "drivers/pci/pcidecode.h"
#include "tests/unit/pci_images.h"

struct fake {
	uint32_t cfg[1024];
	uint64_t bar_size[6];	/* 0: not implemented */
	int io16;		/* I/O BARs decode 16 address bits only */
	int absent;		/* every read returns all ones */
	int cmd_writes;
	int live_probes;	/* BAR written with ones while its decode was on */
	uint16_t size;		/* config space bytes the function has: reads beyond fail */
};

static uint32_t fake_read(void *ctx, uint16_t off)
{
	struct fake *f = ctx;
	assert_true(off % 4 == 0 && off < f->size);
	return f->absent ? 0xffffffff : f->cfg[off / 4];
}

/* A BAR register write: keep the writable address bits, as hardware does. */
static void bar_write(struct fake *f, int i, uint32_t v)
{
	int base = i;
	if (i > 0 && (f->cfg[4 + i - 1] & 7) == 4)	/* upper half of a 64-bit BAR */
		base = i - 1;
	uint32_t lo = f->cfg[4 + base];
	uint64_t size = f->bar_size[base];
	uint16_t cmd = (uint16_t)f->cfg[1];
	if (!size)
		return;
	if (v == 0xffffffff && (cmd & (lo & 1 ? PCI_COMMAND_IO : PCI_COMMAND_MEMORY)))
		f->live_probes++;
	uint64_t mask = ~(size - 1);
	if (base != i)
		f->cfg[4 + i] = v & (uint32_t)(mask >> 32);
	else if (lo & 1)
		f->cfg[4 + i] = (v & (uint32_t)mask & (f->io16 ? 0xfffc : ~3u)) | 1;
	else
		f->cfg[4 + i] = (v & (uint32_t)mask & ~0xfu) | (lo & 0xf);
}

static void fake_write(void *ctx, uint16_t off, uint32_t v)
{
	struct fake *f = ctx;
	assert_true(off % 4 == 0 && off < 4096);
	if (f->absent)
		return;
	if (off == PCI_COMMAND) {
		f->cmd_writes++;
		f->cfg[1] = (f->cfg[1] & 0xffff0000) | (v & 0xffff);
	} else if (off >= PCI_BAR0 && off < PCI_BAR0 + 24) {
		bar_write(f, (off - PCI_BAR0) / 4, v);
	}
}

static const struct pci_image *image(const char *name)
{
	for (size_t i = 0; i < sizeof(pci_images) / sizeof(pci_images[0]); i++)
		if (!strcmp(pci_images[i].name, name))
			return &pci_images[i];
	fail_msg("no image %s", name);
	return 0;
}

static void load(struct fake *f, struct pci_cfg *c, const char *name, uint16_t size)
{
	const struct pci_image *im = image(name);
	memset(f, 0, sizeof(*f));
	for (int i = 0; im->dw[i].off != 0xffff; i++)
		f->cfg[im->dw[i].off / 4] = im->dw[i].v;
	memcpy(f->bar_size, im->bar_size, sizeof(f->bar_size));
	f->size = size;
	*c = (struct pci_cfg){ fake_read, fake_write, f, size };
}

static void set8(struct fake *f, uint16_t off, uint8_t v)
{
	f->cfg[off / 4] = (f->cfg[off / 4] & ~(0xffu << 8 * (off % 4))) | (uint32_t)v << 8 * (off % 4);
}

/* Decode the BARs; check the image comes back as it was. */
static int bars(struct fake *f, struct pci_cfg *c, struct pci_bar b[6], char *err)
{
	uint32_t before[1024];
	memcpy(before, f->cfg, sizeof(before));
	int n = pci_bars_decode(c, b, err, 96);
	assert_memory_equal(before, f->cfg, sizeof(before));
	assert_int_equal(f->live_probes, 0);
	return n;
}

static void check_bar(const struct pci_bar *b, int type, uint64_t addr, uint64_t size, int prefetch)
{
	assert_int_equal(b->type, type);
	assert_int_equal(b->addr, addr);
	assert_int_equal(b->size, size);
	assert_int_equal(b->prefetch, prefetch);
}

static void test_bars_e1000e(void **state)
{
	struct fake f;
	struct pci_cfg c;
	struct pci_bar b[6];
	char err[96];
	(void)state;
	load(&f, &c, "e1000e", 4096);
	assert_int_equal(bars(&f, &c, b, err), 6);
	assert_string_equal(err, "");
	check_bar(&b[0], PCI_BAR_MEM32, 0xfea40000, 128 << 10, 0);
	check_bar(&b[1], PCI_BAR_MEM32, 0xfea60000, 128 << 10, 0);
	check_bar(&b[2], PCI_BAR_IO, 0xe040, 32, 0);
	check_bar(&b[3], PCI_BAR_MEM32, 0xfea90000, 16 << 10, 0);
	check_bar(&b[4], PCI_BAR_NONE, 0, 0, 0);
	check_bar(&b[5], PCI_BAR_NONE, 0, 0, 0);
	assert_int_equal(f.cmd_writes, 2);	/* decode off, then restored */
}

static void test_bars_igb_64bit(void **state)
{
	struct fake f;
	struct pci_cfg c;
	struct pci_bar b[6];
	char err[96];
	(void)state;
	load(&f, &c, "igb", 4096);
	assert_int_equal(bars(&f, &c, b, err), 6);
	check_bar(&b[0], PCI_BAR_MEM32, 0xfe800000, 128 << 10, 0);
	check_bar(&b[2], PCI_BAR_IO, 0xd000, 32, 0);
	check_bar(&b[3], PCI_BAR_MEM64, 0xfe840000, 16 << 10, 0);
	check_bar(&b[4], PCI_BAR_NONE, 0, 0, 0);	/* upper half of BAR3 */
}

static void test_bars_every_image(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(pci_images) / sizeof(pci_images[0]); i++) {
		struct fake f;
		struct pci_cfg c;
		struct pci_bar b[6];
		char err[96];
		load(&f, &c, pci_images[i].name, 4096);
		int n = bars(&f, &c, b, err);
		assert_int_equal(n, (f.cfg[3] >> 16 & 0x7f) == 1 ? 2 : 6);
		for (int k = 0; k < n; k++) {
			uint32_t reg = f.cfg[4 + k];
			assert_int_equal(b[k].size, b[k].type == PCI_BAR_NONE ? 0 : pci_images[i].bar_size[k]);
			if (b[k].type == PCI_BAR_IO)
				assert_int_equal(b[k].addr, reg & ~3u);
			else if (b[k].type == PCI_BAR_MEM32)
				assert_int_equal(b[k].addr, reg & ~0xfu);
		}
	}
}

/* 64-bit prefetchable BAR of 4 GiB above 4 GiB, in BAR4+5 (the last pair). */
static void test_bar_above_4g(void **state)
{
	struct fake f;
	struct pci_cfg c;
	struct pci_bar b[6];
	char err[96];
	(void)state;
	load(&f, &c, "e1000e", 4096);
	f.cfg[4 + 4] = 0x0000000c;	/* memory, 64-bit, prefetchable */
	f.cfg[4 + 5] = 0x00000008;	/* at 0x8_0000_0000 */
	f.bar_size[4] = 4ull << 30;
	assert_int_equal(bars(&f, &c, b, err), 6);
	assert_string_equal(err, "");
	check_bar(&b[4], PCI_BAR_MEM64, 0x800000000ull, 4ull << 30, 1);
	check_bar(&b[5], PCI_BAR_NONE, 0, 0, 0);
}

/* An I/O BAR whose upper 16 bits read back 0 decodes 16 bits. */
static void test_bar_io16(void **state)
{
	struct fake f;
	struct pci_cfg c;
	struct pci_bar b[6];
	char err[96];
	(void)state;
	load(&f, &c, "e1000", 4096);
	f.io16 = 1;
	assert_int_equal(bars(&f, &c, b, err), 6);
	check_bar(&b[1], PCI_BAR_IO, f.cfg[5] & ~3u, 64, 0);
}

static void test_bar_malformed(void **state)
{
	struct fake f;
	struct pci_cfg c;
	struct pci_bar b[6];
	char err[96];
	(void)state;

	load(&f, &c, "e1000e", 4096);
	f.cfg[4 + 5] = 0x00000004;	/* 64-bit memory in the last slot */
	f.bar_size[5] = 4096;
	assert_int_equal(bars(&f, &c, b, err), -1);
	assert_string_equal(err, "BAR5 is 64-bit but is the last BAR");
	check_bar(&b[3], PCI_BAR_MEM32, 0xfea90000, 16 << 10, 0);	/* kept */

	load(&f, &c, "e1000e", 4096);
	f.cfg[4 + 1] |= 6;	/* memory type 11b */
	assert_int_equal(bars(&f, &c, b, err), -1);
	assert_string_equal(err, "BAR1 has the reserved memory type 11b");

	load(&f, &c, "e1000e", 4096);
	f.cfg[4 + 0] = 0xffffffff;
	f.bar_size[0] = 0;
	assert_int_equal(bars(&f, &c, b, err), -1);
	assert_string_equal(err, "BAR0 reads all ones");
}

/* No BAR holds an address: nothing to turn off, no command write. */
static void test_bar_none_no_command_write(void **state)
{
	struct fake f;
	struct pci_cfg c;
	struct pci_bar b[6];
	char err[96];
	(void)state;
	load(&f, &c, "e1000e", 4096);
	for (int i = 0; i < 6; i++) {
		f.cfg[4 + i] = 0;
		f.bar_size[i] = 0;
	}
	assert_int_equal(bars(&f, &c, b, err), 6);
	for (int i = 0; i < 6; i++)
		assert_int_equal(b[i].type, PCI_BAR_NONE);
	assert_int_equal(f.cmd_writes, 0);
}

static void test_absent_all_ones(void **state)
{
	struct fake f;
	struct pci_cfg c;
	struct pci_bar b[6];
	struct pci_cap caps[PCI_CAPS_MAX];
	char err[96];
	(void)state;
	load(&f, &c, "e1000e", 4096);
	f.absent = 1;
	assert_false(pci_cfg_present(&c));
	assert_int_equal(pci_bars_decode(&c, b, err, sizeof(err)), -1);
	assert_string_equal(err, "no function: vendor ID reads 0xffff");
	assert_int_equal(pci_caps_walk(&c, caps, PCI_CAPS_MAX, err, sizeof(err)), 0);
	assert_string_equal(err, "no function: vendor ID reads 0xffff");
}

struct want_cap {
	uint16_t off, id;
	uint8_t ext;
};

static void check_caps(const char *name, uint16_t size, const struct want_cap *want, int n)
{
	struct fake f;
	struct pci_cfg c;
	struct pci_cap caps[PCI_CAPS_MAX];
	char err[96];
	load(&f, &c, name, size);
	assert_int_equal(pci_caps_walk(&c, caps, PCI_CAPS_MAX, err, sizeof(err)), n);
	assert_string_equal(err, "");
	for (int i = 0; i < n; i++) {
		assert_int_equal(caps[i].off, want[i].off);
		assert_int_equal(caps[i].id, want[i].id);
		assert_int_equal(caps[i].ext, want[i].ext);
	}
}

static void test_caps_captured(void **state)
{
	static const struct want_cap e1000e[] = {
		{ 0xc8, 0x01, 0 }, { 0xd0, 0x05, 0 }, { 0xe0, 0x10, 0 }, { 0xa0, 0x11, 0 },
		{ 0x100, 0x01, 1 }, { 0x140, 0x03, 1 },
	};
	static const struct want_cap igb[] = {
		{ 0x40, 0x01, 0 }, { 0x50, 0x05, 0 }, { 0x70, 0x11, 0 }, { 0xa0, 0x10, 0 },
		{ 0x100, 0x01, 1 }, { 0x150, 0x0e, 1 }, { 0x160, 0x10, 1 },
	};
	static const struct want_cap root_port[] = {
		{ 0x54, 0x10, 0 }, { 0x48, 0x11, 0 }, { 0x40, 0x0d, 0 }, { 0x100, 0x01, 1 }, { 0x148, 0x0d, 1 },
	};
	static const struct want_cap bridge[] = { { 0x4c, 0x05, 0 }, { 0x48, 0x04, 0 }, { 0x40, 0x0c, 0 } };
	(void)state;
	check_caps("e1000e", 4096, e1000e, 6);
	check_caps("e1000e", 256, e1000e, 4);	/* ports 0xcf8/0xcfc: no extended list */
	check_caps("igb", 4096, igb, 7);
	check_caps("pcie_root_port", 4096, root_port, 5);
	check_caps("pci_bridge", 4096, bridge, 3);	/* conventional: no extended walk */
	check_caps("e1000", 4096, 0, 0);	/* no capability list */
}

/* Walk a broken image; return the count and the message. */
static int walk(struct fake *f, struct pci_cfg *c, char *err)
{
	struct pci_cap caps[PCI_CAPS_MAX];
	(void)f;
	return pci_caps_walk(c, caps, PCI_CAPS_MAX, err, 96);
}

static void test_caps_malformed(void **state)
{
	struct fake f;
	struct pci_cfg c;
	struct pci_cap caps[PCI_CAPS_MAX];
	char err[96];
	(void)state;

	load(&f, &c, "e1000e", 4096);
	set8(&f, 0xa1, 0xc8);	/* MSI-X (last) points back to PM (first) */
	assert_int_equal(walk(&f, &c, err), 4);
	assert_string_equal(err, "capability list loops back to 0xc8 from 0xa1");

	load(&f, &c, "e1000e", 4096);
	set8(&f, 0xc9, 0xc8);	/* points at itself */
	assert_int_equal(walk(&f, &c, err), 1);
	assert_string_equal(err, "capability list loops back to 0xc8 from 0xc9");

	load(&f, &c, "e1000e", 4096);
	set8(&f, PCI_CAPABILITY_LIST, 0x20);	/* into the header */
	assert_int_equal(walk(&f, &c, err), 0);
	assert_string_equal(err, "capability pointer 0x20 at 0x34 out of range (0x40-0xfc)");

	load(&f, &c, "e1000e", 4096);
	set8(&f, 0xd1, 0x3c);	/* MSI's next into the header */
	assert_int_equal(walk(&f, &c, err), 2);
	assert_string_equal(err, "capability pointer 0x3c at 0xd1 out of range (0x40-0xfc)");

	load(&f, &c, "e1000e", 4096);
	set8(&f, PCI_CAPABILITY_LIST, 0xcb);	/* reserved low bits are masked */
	assert_int_equal(walk(&f, &c, err), 6);
	assert_string_equal(err, "");

	load(&f, &c, "e1000e", 4096);
	f.cfg[0xd0 / 4] = 0xffffffff;	/* MSI reads all ones */
	assert_int_equal(walk(&f, &c, err), 1);
	assert_string_equal(err, "capability at 0xd0 reads all ones");

	load(&f, &c, "e1000e", 4096);
	f.cfg[1] &= ~((uint32_t)PCI_STATUS_CAP_LIST << 16);	/* no list */
	assert_int_equal(walk(&f, &c, err), 0);
	assert_string_equal(err, "");

	load(&f, &c, "e1000e", 4096);
	f.cfg[0x140 / 4] = (f.cfg[0x140 / 4] & 0xfffff) | 0x100u << 20;	/* DSN -> AER */
	assert_int_equal(walk(&f, &c, err), 6);
	assert_string_equal(err, "extended capability list loops back to 0x100 from 0x140");

	load(&f, &c, "e1000e", 4096);
	f.cfg[0x140 / 4] = (f.cfg[0x140 / 4] & 0xfffff) | 0x0f0u << 20;	/* below 0x100 */
	assert_int_equal(walk(&f, &c, err), 6);
	assert_string_equal(err, "extended capability pointer 0x0f0 at 0x140 out of range (0x100-0xffc)");

	load(&f, &c, "e1000e", 4096);
	f.cfg[0x140 / 4] = 0xffffffff;	/* AER points at an all-ones dword */
	assert_int_equal(walk(&f, &c, err), 5);
	assert_string_equal(err, "extended capability at 0x140 reads all ones");

	load(&f, &c, "e1000e", 4096);
	f.cfg[0x100 / 4] = 0xffffffff;	/* no extended space behind the bus */
	assert_int_equal(walk(&f, &c, err), 4);
	assert_string_equal(err, "");

	load(&f, &c, "igb", 4096);
	assert_int_equal(pci_caps_walk(&c, caps, 2, err, sizeof(err)), 2);
	assert_string_equal(err, "more than 2 capabilities");

	/* A loop through every dword of the space ends too. */
	load(&f, &c, "e1000e", 4096);
	for (int off = 0x40; off < 0x100; off += 4)
		f.cfg[off / 4] = (uint32_t)(off == 0xfc ? 0x40 : off + 4) << 8 | 0x09;
	set8(&f, PCI_CAPABILITY_LIST, 0x40);
	assert_int_equal(walk(&f, &c, err), 48);
	assert_string_equal(err, "capability list loops back to 0x40 from 0xfd");
}

static void describe(const char *name, uint16_t off, char *buf, size_t len)
{
	struct fake f;
	struct pci_cfg c;
	struct pci_cap caps[PCI_CAPS_MAX];
	char err[96];
	load(&f, &c, name, 4096);
	int n = pci_caps_walk(&c, caps, PCI_CAPS_MAX, err, sizeof(err));
	for (int i = 0; i < n; i++)
		if (caps[i].off == off) {
			pci_cap_describe(&c, &caps[i], buf, len);
			return;
		}
	fail_msg("%s has no capability at %#x", name, off);
}

static void test_cap_describe(void **state)
{
	static const struct { const char *dev; uint16_t off; const char *want; } cases[] = {
		{ "e1000e", 0xc8, "Power Management version 2: D0" },
		{ "e1000e", 0xd0, "MSI: Enable- Count=1/1 Maskable- 64bit+" },
		{ "e1000e", 0xe0, "Express (v1) Root Complex Integrated Endpoint, MaxPayload 128 bytes (max 128)" },
		{ "e1000e", 0xa0, "MSI-X: Enable- Count=5 Masked- Vector table: BAR=3 offset=00000000 "
				  "PBA: BAR=3 offset=00002000" },
		{ "e1000e", 0x140, "Device Serial Number" },
		{ "igb", 0x50, "MSI: Enable- Count=1/1 Maskable+ 64bit+" },
		{ "igb", 0x70, "MSI-X: Enable- Count=10 Masked- Vector table: BAR=3 offset=00000000 "
			       "PBA: BAR=3 offset=00002000" },
		{ "igb", 0xa0, "Express (v2) Endpoint, MaxPayload 128 bytes (max 128), Link 2.5GT/s x1 (max 2.5GT/s x1)" },
		{ "igb", 0x160, "Single Root I/O Virtualization (SR-IOV)" },
		{ "pcie_root_port", 0x54, "Express (v2) Root Port, MaxPayload 128 bytes (max 128), "
					  "Link 2.5GT/s x1 (max 16GT/s x32)" },
		{ "pci_bridge", 0x40, "PCI Standard Hot-Plug Controller" },
	};
	char buf[160];
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		describe(cases[i].dev, cases[i].off, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].want);
	}
	describe("e1000e", 0xa0, buf, 12);	/* truncated, terminated */
	assert_string_equal(buf, "MSI-X: Enab");
}

/* Found by tests/fuzz/fuzz_pcicap: a capability in the last dword of a
 * 256-byte space made its decoder read past the end (on ECAM: the next
 * function's registers). Fields beyond the end read as all ones. */
static void test_cap_at_end_of_space(void **state)
{
	struct fake f;
	struct pci_cfg c;
	struct pci_cap caps[PCI_CAPS_MAX];
	char err[96], buf[160];
	(void)state;
	static const uint8_t ids[] = { PCI_CAP_ID_EXP, PCI_CAP_ID_MSIX, PCI_CAP_ID_MSI, PCI_CAP_ID_PM };
	for (size_t i = 0; i < sizeof(ids); i++) {
		load(&f, &c, "e1000e", 256);
		set8(&f, PCI_CAPABILITY_LIST, 0xfc);
		set8(&f, 0xfc, ids[i]);
		set8(&f, 0xfd, 0);
		assert_int_equal(pci_caps_walk(&c, caps, PCI_CAPS_MAX, err, sizeof(err)), 1);
		pci_cap_describe(&c, &caps[0], buf, sizeof(buf));
		if (ids[i] == PCI_CAP_ID_MSIX) {
			struct pci_msix_info m;
			pci_msix_decode(&c, 0xfc, &m);
		}
	}
	assert_int_equal(f.cmd_writes, 0);
}

static void test_bridge_and_msix(void **state)
{
	struct fake f;
	struct pci_cfg c;
	struct pci_bridge_info br;
	struct pci_msix_info m;
	(void)state;
	load(&f, &c, "pcie_root_port", 4096);
	pci_bridge_decode(&c, &br);
	assert_int_equal(br.primary, 0);
	assert_int_equal(br.secondary, 1);
	assert_int_equal(br.subordinate, 1);
	assert_int_equal(br.io_base, 0xd000);
	assert_int_equal(br.io_limit, 0xdfff);
	assert_int_equal(br.mem_base, 0xfe800000);
	assert_int_equal(br.mem_limit, 0xfe9fffff);
	assert_int_equal(br.pref_base, 0xfe200000);
	assert_int_equal(br.pref_limit, 0xfe3fffff);
	f.cfg[0x24 / 4] = 0x0000fff1;	/* prefetchable window disabled: base > limit */
	pci_bridge_decode(&c, &br);
	assert_true(br.pref_base > br.pref_limit);

	load(&f, &c, "e1000e", 4096);
	pci_msix_decode(&c, 0xa0, &m);
	assert_int_equal(m.size, 5);
	assert_int_equal(m.table_bir, 3);
	assert_int_equal(m.table_off, 0);
	assert_int_equal(m.pba_bir, 3);
	assert_int_equal(m.pba_off, 0x2000);
	assert_false(m.enabled);
}

static void test_bridge_check(void **state)
{
	uint8_t seen[32] = { 0x01 };	/* bus 0 walked */
	char err[96];
	struct pci_bridge_info br = { .primary = 0, .secondary = 1, .subordinate = 1 };
	(void)state;
	assert_int_equal(pci_bridge_check(&br, 0, 255, seen, err, sizeof(err)), 0);

	br.secondary = br.subordinate = 0;	/* left alone by firmware */
	assert_int_equal(pci_bridge_check(&br, 0, 255, seen, err, sizeof(err)), -1);
	assert_string_equal(err, "secondary bus 0: not configured by firmware; buses behind it not scanned");

	br.secondary = 2;			/* secondary above subordinate */
	br.subordinate = 1;
	assert_int_equal(pci_bridge_check(&br, 0, 255, seen, err, sizeof(err)), -1);
	assert_string_equal(err, "bus numbers 02-01 invalid behind bus 00; not scanned");

	br.secondary = br.subordinate = 3;	/* pointing back up */
	assert_int_equal(pci_bridge_check(&br, 3, 255, seen, err, sizeof(err)), -1);
	assert_string_equal(err, "bus numbers 03-03 invalid behind bus 03; not scanned");

	br.secondary = br.subordinate = 0x40;	/* outside a 64-bus ECAM window */
	assert_int_equal(pci_bridge_check(&br, 0, 0x3f, seen, err, sizeof(err)), -1);
	assert_string_equal(err, "bus 40 past the last bus 3f config access reaches; not scanned");

	br.secondary = br.subordinate = 9;	/* two bridges claim bus 9 */
	seen[1] = 0x02;
	assert_int_equal(pci_bridge_check(&br, 0, 255, seen, err, sizeof(err)), -1);
	assert_string_equal(err, "bus 09 already scanned; not scanned again");
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(pci_class_name(0x02, 0x00), "Ethernet controller");
	assert_string_equal(pci_class_name(0x06, 0x04), "PCI bridge");
	assert_string_equal(pci_class_name(0x02, 0x80), "Network controller");
	assert_string_equal(pci_class_name(0xfe, 0x00), "Unassigned class");
	assert_string_equal(pci_link_speed(1), "2.5GT/s");
	assert_string_equal(pci_link_speed(4), "16GT/s");
	assert_string_equal(pci_link_speed(0), "unknown");
	assert_string_equal(pci_link_speed(15), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bars_e1000e),
		cmocka_unit_test(test_bars_igb_64bit),
		cmocka_unit_test(test_bars_every_image),
		cmocka_unit_test(test_bar_above_4g),
		cmocka_unit_test(test_bar_io16),
		cmocka_unit_test(test_bar_malformed),
		cmocka_unit_test(test_bar_none_no_command_write),
		cmocka_unit_test(test_absent_all_ones),
		cmocka_unit_test(test_caps_captured),
		cmocka_unit_test(test_caps_malformed),
		cmocka_unit_test(test_cap_describe),
		cmocka_unit_test(test_cap_at_end_of_space),
		cmocka_unit_test(test_bridge_and_msix),
		cmocka_unit_test(test_bridge_check),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
