/*
 * Portable config-space decoding (see pcidecode.h). No hardware access of
 * its own: everything goes through the struct pci_cfg callbacks.
 */
#include <stdio.h>
#include <string.h>
#include "drivers/pci/pcidecode.h"

/* The dword at off, or all ones past the end of the space: a capability
 * placed at its last bytes must not make a decoder read the next
 * function's registers (ECAM) or wrap to offset 0 (port 0xcf8). */
static uint32_t cfg32(const struct pci_cfg *c, uint32_t off)
{
	return off + 4 <= c->size ? c->read32(c->ctx, (uint16_t)off) : 0xffffffffu;
}

uint8_t pci_cfg_read8(const struct pci_cfg *c, uint16_t off)
{
	return (uint8_t)(cfg32(c, off & ~3u) >> (8 * (off & 3)));
}

uint16_t pci_cfg_read16(const struct pci_cfg *c, uint16_t off)
{
	return (uint16_t)(cfg32(c, off & ~3u) >> (8 * (off & 2)));
}

int pci_cfg_present(const struct pci_cfg *c)
{
	uint16_t v = pci_cfg_read16(c, PCI_VENDOR_ID);
	return v != 0xffff && v != 0;
}

/* Write ones to a BAR register, read what sticks, put the old value back. */
static uint32_t bar_probe(const struct pci_cfg *c, uint16_t off, uint32_t old)
{
	c->write32(c->ctx, off, 0xffffffff);
	uint32_t mask = c->read32(c->ctx, off);
	c->write32(c->ctx, off, old);
	return mask;
}

/* Decode BAR i into b; returns how many registers it used (1 or 2), 0 when
 * unimplemented, or -1 with a message. */
static int bar_decode(const struct pci_cfg *c, int i, int n, struct pci_bar *b, char *err, size_t errlen)
{
	uint16_t off = PCI_BAR0 + 4 * i;
	uint32_t lo = c->read32(c->ctx, off);
	if (lo == 0xffffffff) {
		snprintf(err, errlen, "BAR%d reads all ones", i);
		return -1;
	}
	uint32_t mask = bar_probe(c, off, lo);
	if (lo & 1) {	/* I/O space */
		uint32_t addr = lo & ~3u;
		mask &= ~3u;
		if (!mask)
			return 0;
		if (!(mask & 0xffff0000)) {	/* decodes 16 address bits only */
			mask |= 0xffff0000;
			addr &= 0xffff;
		}
		*b = (struct pci_bar){ .addr = addr, .size = mask & -mask, .type = PCI_BAR_IO };
		return 1;
	}
	int type = (lo >> 1) & 3;
	if (type == 3) {
		snprintf(err, errlen, "BAR%d has the reserved memory type 11b", i);
		return -1;
	}
	uint64_t mask64 = 0xffffffff00000000ull | (mask & ~0xfu), addr = lo & ~0xfu;
	if (type == 2) {
		if (i + 1 >= n) {
			snprintf(err, errlen, "BAR%d is 64-bit but is the last BAR", i);
			return -1;
		}
		uint32_t hi = c->read32(c->ctx, off + 4);
		uint32_t mhi = bar_probe(c, off + 4, hi);
		mask64 = (uint64_t)mhi << 32 | (mask & ~0xfu);
		addr |= (uint64_t)hi << 32;
	}
	if (!(mask & ~0xfu) && (type != 2 || mask64 == 0))
		return 0;
	*b = (struct pci_bar){ .addr = addr, .size = mask64 & -mask64,
			       .type = type == 2 ? PCI_BAR_MEM64 : PCI_BAR_MEM32,
			       .prefetch = (lo >> 3) & 1 };
	return type == 2 ? 2 : 1;
}

/*
 * The decode bits the BARs can be live under: I/O if one is an I/O BAR,
 * memory if one holds a memory address. A BAR reading 0 is unimplemented,
 * or unassigned; firmware does not leave an unassigned BAR with decode on
 * (it would claim address 0), so probing it moves no live decoder. Each
 * command register change costs QEMU a memory map rebuild (0.2-0.7 ms under
 * TCG), so the bits not needed are left alone.
 */
static uint16_t decode_in_use(const struct pci_cfg *c, int n)
{
	uint16_t bits = 0;
	for (int i = 0; i < n; i++) {
		uint32_t v = c->read32(c->ctx, PCI_BAR0 + 4 * i);
		if (v & 1)
			bits |= PCI_COMMAND_IO;
		else if (v)
			bits |= PCI_COMMAND_MEMORY;
		if ((v & 7) == 4)	/* 64-bit memory: skip the upper half */
			i++;
	}
	return bits;
}

int pci_bars_decode(const struct pci_cfg *c, struct pci_bar bar[6], char *err, size_t errlen)
{
	memset(bar, 0, 6 * sizeof(*bar));
	err[0] = 0;
	if (!pci_cfg_present(c)) {
		snprintf(err, errlen, "no function: vendor ID reads %#06x", pci_cfg_read16(c, PCI_VENDOR_ID));
		return -1;
	}
	int layout = pci_cfg_read8(c, PCI_HEADER_TYPE) & 0x7f;
	int n = layout == PCI_HEADER_NORMAL ? 6 : layout == PCI_HEADER_BRIDGE ? 2 : 0;
	uint16_t cmd = pci_cfg_read16(c, PCI_COMMAND);
	uint16_t off = cmd & decode_in_use(c, n);
	/* The upper half (status) is RW1C: writing zeros there changes nothing. */
	if (off)
		c->write32(c->ctx, PCI_COMMAND, cmd & ~off);
	int ret = n;
	for (int i = 0; i < n; i++) {
		int used = bar_decode(c, i, n, &bar[i], err, errlen);
		if (used < 0) {
			ret = -1;
			break;
		}
		if (used == 2)
			i++;
	}
	if (off)
		c->write32(c->ctx, PCI_COMMAND, cmd);
	return ret;
}

static int walk_std(const struct pci_cfg *c, struct pci_cap *caps, int max, char *err, size_t errlen)
{
	if (!(pci_cfg_read16(c, PCI_STATUS) & PCI_STATUS_CAP_LIST))
		return 0;
	int layout = pci_cfg_read8(c, PCI_HEADER_TYPE) & 0x7f;
	uint16_t from = layout == PCI_HEADER_CARDBUS ? PCI_CB_CAPABILITY_LIST : PCI_CAPABILITY_LIST;
	uint8_t ptr = pci_cfg_read8(c, from) & 0xfc;
	uint64_t seen = 0;	/* one bit per dword of the 256-byte space */
	int n = 0;
	while (ptr) {
		if (ptr < 0x40) {
			snprintf(err, errlen, "capability pointer %#04x at %#04x out of range (0x40-0xfc)",
				 ptr, from);
			break;
		}
		if (seen & (1ull << (ptr >> 2))) {
			snprintf(err, errlen, "capability list loops back to %#04x from %#04x", ptr, from);
			break;
		}
		seen |= 1ull << (ptr >> 2);
		uint32_t h = c->read32(c->ctx, ptr);
		if (h == 0xffffffff) {
			snprintf(err, errlen, "capability at %#04x reads all ones", ptr);
			break;
		}
		if (n == max) {
			snprintf(err, errlen, "more than %d capabilities", max);
			break;
		}
		caps[n++] = (struct pci_cap){ .off = ptr, .id = h & 0xff };
		from = ptr + 1;
		ptr = (h >> 8) & 0xfc;
	}
	return n;
}

static int walk_ext(const struct pci_cfg *c, struct pci_cap *caps, int n, int max, char *err, size_t errlen)
{
	uint64_t seen[16] = { 0 };	/* one bit per dword of the 4 KiB space */
	uint16_t ptr = 0x100, from = 0;
	uint32_t h = c->read32(c->ctx, ptr);
	if (h == 0 || h == 0xffffffff)	/* no extended capabilities */
		return n;
	for (;;) {
		if (n == max) {
			snprintf(err, errlen, "more than %d capabilities", max);
			break;
		}
		caps[n++] = (struct pci_cap){ .off = ptr, .id = h & 0xffff, .ext = 1, .ver = (h >> 16) & 0xf };
		seen[ptr >> 8] |= 1ull << ((ptr >> 2) & 63);
		from = ptr;
		ptr = (h >> 20) & 0xffc;
		if (!ptr)
			break;
		if (ptr < 0x100 || ptr >= c->size) {
			snprintf(err, errlen, "extended capability pointer %#05x at %#05x out of range (0x100-0xffc)",
				 ptr, from);
			break;
		}
		if (seen[ptr >> 8] & (1ull << ((ptr >> 2) & 63))) {
			snprintf(err, errlen, "extended capability list loops back to %#05x from %#05x", ptr, from);
			break;
		}
		h = c->read32(c->ctx, ptr);
		if (h == 0xffffffff) {
			snprintf(err, errlen, "extended capability at %#05x reads all ones", ptr);
			break;
		}
	}
	return n;
}

int pci_caps_walk(const struct pci_cfg *c, struct pci_cap *caps, int max, char *err, size_t errlen)
{
	err[0] = 0;
	if (!pci_cfg_present(c)) {
		snprintf(err, errlen, "no function: vendor ID reads %#06x", pci_cfg_read16(c, PCI_VENDOR_ID));
		return 0;
	}
	int n = walk_std(c, caps, max, err, errlen);
	if (!err[0] && c->size > 0x100 && pci_cap_find(caps, n, PCI_CAP_ID_EXP))
		n = walk_ext(c, caps, n, max, err, errlen);
	return n;
}

uint16_t pci_cap_find(const struct pci_cap *caps, int n, uint16_t id)
{
	for (int i = 0; i < n; i++)
		if (!caps[i].ext && caps[i].id == id)
			return caps[i].off;
	return 0;
}

void pci_bridge_decode(const struct pci_cfg *c, struct pci_bridge_info *b)
{
	uint32_t buses = c->read32(c->ctx, PCI_PRIMARY_BUS);
	b->primary = (uint8_t)buses;
	b->secondary = (uint8_t)(buses >> 8);
	b->subordinate = (uint8_t)(buses >> 16);
	/* I/O: bits 15:12 of base and limit in the high nibbles; 32-bit when
	 * the low nibble is 1, with the upper halves at 0x30/0x32. */
	uint32_t io = c->read32(c->ctx, PCI_IO_BASE), io_up = c->read32(c->ctx, 0x30);
	b->io_base = (io & 0xf0) << 8;
	b->io_limit = (io & 0xf000) | 0xfff;
	if ((io & 0xf) == 1) {
		b->io_base |= (io_up & 0xffff) << 16;
		b->io_limit |= (io_up >> 16) << 16;
	}
	uint32_t mem = c->read32(c->ctx, PCI_MEMORY_BASE);
	b->mem_base = (mem & 0xfff0) << 16;
	b->mem_limit = (mem & 0xfff00000) | 0xfffff;
	uint32_t pref = c->read32(c->ctx, PCI_PREF_MEMORY_BASE);
	b->pref_base = (uint64_t)(pref & 0xfff0) << 16;
	b->pref_limit = (pref & 0xfff00000) | 0xfffff;
	if ((pref & 0xf) == 1) {	/* 64-bit prefetchable window */
		b->pref_base |= (uint64_t)c->read32(c->ctx, 0x28) << 32;
		b->pref_limit |= (uint64_t)c->read32(c->ctx, 0x2c) << 32;
	}
}

int pci_bridge_check(const struct pci_bridge_info *b, uint8_t bus, uint8_t bus_end,
		     const uint8_t seen[256 / 8], char *err, size_t errlen)
{
	uint8_t sec = b->secondary;
	if (sec == 0)
		snprintf(err, errlen, "secondary bus 0: not configured by firmware; buses behind it not scanned");
	else if (sec <= bus || b->subordinate < sec)
		snprintf(err, errlen, "bus numbers %02x-%02x invalid behind bus %02x; not scanned", sec,
			 b->subordinate, bus);
	else if (sec > bus_end)
		snprintf(err, errlen, "bus %02x past the last bus %02x config access reaches; not scanned", sec,
			 bus_end);
	else if (seen[sec / 8] & (1 << (sec % 8)))
		snprintf(err, errlen, "bus %02x already scanned; not scanned again", sec);
	else
		return 0;
	return -1;
}

void pci_msix_decode(const struct pci_cfg *c, uint16_t cap, struct pci_msix_info *m)
{
	uint16_t flags = pci_cfg_read16(c, cap + PCI_MSIX_FLAGS);
	uint32_t table = cfg32(c, cap + PCI_MSIX_TABLE);
	uint32_t pba = cfg32(c, cap + PCI_MSIX_PBA);
	*m = (struct pci_msix_info){
		.size = (flags & PCI_MSIX_FLAGS_QSIZE) + 1,
		.table_bir = table & 7, .table_off = table & ~7u,
		.pba_bir = pba & 7, .pba_off = pba & ~7u,
		.enabled = !!(flags & PCI_MSIX_FLAGS_ENABLE),
		.masked = !!(flags & PCI_MSIX_FLAGS_MASKALL),
	};
}

const char *pci_link_speed(unsigned code)
{
	static const char *const names[] = { "unknown", "2.5GT/s", "5GT/s", "8GT/s", "16GT/s", "32GT/s", "64GT/s" };
	return code < sizeof(names) / sizeof(names[0]) ? names[code] : "unknown";
}

static const char *pcie_type_name(unsigned type)
{
	static const char *const names[] = {
		"Endpoint", "Legacy Endpoint", "type 2", "type 3", "Root Port", "Upstream Port",
		"Downstream Port", "PCI-Express to PCI/PCI-X Bridge", "PCI/PCI-X to PCI-Express Bridge",
		"Root Complex Integrated Endpoint", "Root Complex Event Collector",
	};
	return type < sizeof(names) / sizeof(names[0]) ? names[type] : "unknown type";
}

static void describe_pcie(const struct pci_cfg *c, uint16_t cap, char *buf, size_t len)
{
	uint16_t flags = pci_cfg_read16(c, cap + PCI_EXP_FLAGS);
	unsigned type = (flags >> 4) & 0xf;
	uint32_t devcap = cfg32(c, cap + PCI_EXP_DEVCAP);
	uint16_t devctl = pci_cfg_read16(c, cap + PCI_EXP_DEVCTL);
	int n = snprintf(buf, len, "Express (v%u) %s, MaxPayload %u bytes (max %u)", flags & 0xf,
			 pcie_type_name(type), 128u << ((devctl >> 5) & 7), 128u << (devcap & 7));
	if (type == PCI_EXP_TYPE_RC_END || type == PCI_EXP_TYPE_RC_EC || n < 0 || (size_t)n >= len)
		return;	/* no link */
	uint32_t lnkcap = cfg32(c, cap + PCI_EXP_LNKCAP);
	uint16_t lnksta = pci_cfg_read16(c, cap + PCI_EXP_LNKSTA);
	snprintf(buf + n, len - (size_t)n, ", Link %s x%u (max %s x%u)", pci_link_speed(lnksta & 0xf),
		 (lnksta >> 4) & 0x3f, pci_link_speed(lnkcap & 0xf), (lnkcap >> 4) & 0x3f);
}

static void describe_msi(const struct pci_cfg *c, uint16_t cap, char *buf, size_t len)
{
	uint16_t f = pci_cfg_read16(c, cap + PCI_MSI_FLAGS);
	snprintf(buf, len, "MSI: Enable%c Count=%u/%u Maskable%c 64bit%c", f & PCI_MSI_FLAGS_ENABLE ? '+' : '-',
		 1u << ((f & PCI_MSI_FLAGS_QSIZE) >> 4), 1u << ((f & PCI_MSI_FLAGS_QMASK) >> 1),
		 f & PCI_MSI_FLAGS_MASKBIT ? '+' : '-', f & PCI_MSI_FLAGS_64BIT ? '+' : '-');
}

static void describe_msix(const struct pci_cfg *c, uint16_t cap, char *buf, size_t len)
{
	struct pci_msix_info m;
	pci_msix_decode(c, cap, &m);
	snprintf(buf, len, "MSI-X: Enable%c Count=%u Masked%c Vector table: BAR=%u offset=%08x PBA: BAR=%u offset=%08x",
		 m.enabled ? '+' : '-', m.size, m.masked ? '+' : '-', m.table_bir, m.table_off, m.pba_bir, m.pba_off);
}

static const char *const std_names[] = {
	[0x01] = "Power Management", [0x02] = "AGP", [0x03] = "Vital Product Data",
	[0x04] = "Slot ID", [0x05] = "MSI", [0x06] = "CompactPCI hot-swap", [0x07] = "PCI-X",
	[0x08] = "HyperTransport", [0x09] = "Vendor Specific Information", [0x0a] = "Debug port",
	[0x0b] = "CompactPCI central resource control", [0x0c] = "PCI Standard Hot-Plug Controller",
	[0x0d] = "Subsystem", [0x0e] = "AGP3", [0x0f] = "Secure device", [0x10] = "Express",
	[0x11] = "MSI-X", [0x12] = "SATA HBA", [0x13] = "PCI Advanced Features",
	[0x14] = "Enhanced Allocation",
};

static const char *const ext_names[] = {
	[0x01] = "Advanced Error Reporting", [0x02] = "Virtual Channel",
	[0x03] = "Device Serial Number", [0x04] = "Power Budgeting", [0x05] = "Root Complex Link",
	[0x0b] = "Vendor Specific", [0x0d] = "Access Control Services",
	[0x0e] = "Alternative Routing-ID Interpretation (ARI)",
	[0x0f] = "Address Translation Service (ATS)",
	[0x10] = "Single Root I/O Virtualization (SR-IOV)", [0x13] = "Page Request Interface (PRI)",
	[0x15] = "Physical Resizable BAR", [0x17] = "Transaction Processing Hints",
	[0x18] = "Latency Tolerance Reporting", [0x19] = "Secondary PCI Express",
	[0x1e] = "L1 PM Substates", [0x23] = "Designated Vendor-Specific",
	[0x25] = "Data Link Feature", [0x26] = "Physical Layer 16.0 GT/s",
};

void pci_cap_describe(const struct pci_cfg *c, const struct pci_cap *cap, char *buf, size_t len)
{
	const char *name = 0;
	if (cap->ext && cap->id < sizeof(ext_names) / sizeof(ext_names[0]))
		name = ext_names[cap->id];
	else if (!cap->ext && cap->id < sizeof(std_names) / sizeof(std_names[0]))
		name = std_names[cap->id];
	if (!name) {
		snprintf(buf, len, "%s capability %#x", cap->ext ? "Extended" : "Unknown", cap->id);
		return;
	}
	if (cap->ext) {
		snprintf(buf, len, "%s", name);
		return;
	}
	switch (cap->id) {
	case PCI_CAP_ID_PM:
		snprintf(buf, len, "%s version %u: D%u", name, pci_cfg_read16(c, cap->off + PCI_PM_PMC) & 7,
			 pci_cfg_read16(c, cap->off + PCI_PM_CTRL) & PCI_PM_CTRL_STATE_MASK);
		break;
	case PCI_CAP_ID_MSI:
		describe_msi(c, cap->off, buf, len);
		break;
	case PCI_CAP_ID_MSIX:
		describe_msix(c, cap->off, buf, len);
		break;
	case PCI_CAP_ID_EXP:
		describe_pcie(c, cap->off, buf, len);
		break;
	default:
		snprintf(buf, len, "%s", name);
	}
}

const char *pci_class_name(uint8_t class, uint8_t subclass)
{
	static const struct { uint8_t class, subclass; const char *name; } names[] = {
		{ 0x00, 0x01, "VGA compatible unclassified device" },
		{ 0x01, 0x00, "SCSI storage controller" }, { 0x01, 0x01, "IDE interface" },
		{ 0x01, 0x05, "ATA controller" }, { 0x01, 0x06, "SATA controller" },
		{ 0x01, 0x08, "Non-Volatile memory controller" },
		{ 0x02, 0x00, "Ethernet controller" },
		{ 0x03, 0x00, "VGA compatible controller" }, { 0x04, 0x03, "Audio device" },
		{ 0x06, 0x00, "Host bridge" }, { 0x06, 0x01, "ISA bridge" },
		{ 0x06, 0x04, "PCI bridge" }, { 0x07, 0x00, "Serial controller" },
		{ 0x0c, 0x03, "USB controller" }, { 0x0c, 0x05, "SMBus" },
	};
	static const char *const classes[] = {
		"Unclassified device", "Mass storage controller", "Network controller",
		"Display controller", "Multimedia controller", "Memory controller", "Bridge",
		"Communication controller", "Generic system peripheral", "Input device controller",
		"Docking station", "Processor", "Serial bus controller", "Wireless controller",
		"Intelligent controller", "Satellite communications controller",
		"Encryption controller", "Signal processing controller",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].class == class && names[i].subclass == subclass)
			return names[i].name;
	return class < sizeof(classes) / sizeof(classes[0]) ? classes[class] : "Unassigned class";
}

uint16_t pci_cfg_aspm_clear(const struct pci_cfg *c, uint16_t cap, uint16_t which)
{
	uint16_t off = (uint16_t)(cap + PCI_EXP_LNKCTL);	/* dword-aligned: cap is */
	uint32_t v = c->read32(c->ctx, off);
	uint16_t was = (uint16_t)(v & (PCI_EXP_LNKCTL_ASPM_L0S | PCI_EXP_LNKCTL_ASPM_L1));
	if (v & which)
		c->write32(c->ctx, off, v & ~(uint32_t)which);
	return was;
}
