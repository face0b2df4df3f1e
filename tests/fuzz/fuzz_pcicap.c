/* Fuzz the PCI config-space decoders (drivers/pci/pcidecode.c) over a
 * random config space of 256 bytes (port 0xcf8) or 4 KiB (ECAM): the
 * capability walk (loops, pointers out of range, lists of all ones),
 * BAR sizing (BARs answer the sizing write with a fuzzed mask), bridge
 * windows, MSI-X tables and the lspci descriptions. Reads stay inside the
 * space; a walk ends within PCI_CAPS_MAX entries; every message and
 * description is NUL-terminated within its buffer. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "drivers/pci/pcidecode.h"

struct space {
	uint8_t b[4096];
	uint32_t sizing[6];	/* what each BAR reads after writing all ones */
	uint32_t saved[6];
	uint16_t size;
};

static uint32_t rd(void *ctx, uint16_t off)
{
	struct space *s = ctx;
	assert(off % 4 == 0 && off < s->size);
	uint32_t v;
	memcpy(&v, s->b + off, 4);
	return v;
}

static void wr(void *ctx, uint16_t off, uint32_t v)
{
	struct space *s = ctx;
	assert(off % 4 == 0 && off < s->size);
	int bar = (off - 0x10) / 4;
	if (off >= 0x10 && off < 0x28 && v == 0xffffffffu) {
		memcpy(&s->saved[bar], s->b + off, 4);
		v = s->sizing[bar];	/* the size mask the device answers */
	}
	memcpy(s->b + off, &v, 4);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static struct space s;
	if (len < 1)
		return 0;
	memset(&s, 0xff, sizeof(s));
	s.size = data[0] & 1 ? 4096 : 256;
	size_t n = len - 1 < s.size ? len - 1 : s.size;
	memcpy(s.b, data + 1, n);
	for (int i = 0; i < 6; i++)
		memcpy(&s.sizing[i], s.b + 0x10 + 4 * i, 4), s.sizing[i] = ~s.sizing[i];
	struct pci_cfg c = { rd, wr, &s, s.size };
	char err[160], desc[256];
	struct pci_cap caps[PCI_CAPS_MAX];
	int nc = pci_caps_walk(&c, caps, PCI_CAPS_MAX, err, sizeof(err));
	assert(nc >= 0 && nc <= PCI_CAPS_MAX && memchr(err, 0, sizeof(err)));
	for (int i = 0; i < nc; i++) {
		assert(caps[i].off < s.size);
		pci_cap_describe(&c, &caps[i], desc, sizeof(desc));
		assert(memchr(desc, 0, sizeof(desc)));
	}
	uint16_t msix = pci_cap_find(caps, nc, 0x11);
	if (msix) {
		struct pci_msix_info m;
		pci_msix_decode(&c, msix, &m);
	}
	struct pci_bar bar[6];
	int nb = pci_bars_decode(&c, bar, err, sizeof(err));
	assert(nb <= 6 && memchr(err, 0, sizeof(err)));
	struct pci_bridge_info b;
	uint8_t seen[32] = { 0 };
	pci_bridge_decode(&c, &b);
	pci_bridge_check(&b, data[0] >> 1, 0xff, seen, err, sizeof(err));
	assert(memchr(err, 0, sizeof(err)));
	assert(pci_class_name(s.b[0xb], s.b[0xa]) && pci_link_speed(s.b[0x40]));
	return 0;
}
