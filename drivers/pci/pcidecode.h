/*
 * Portable decoding of one function's configuration space: presence, BAR
 * sizing, the capability lists, bridge windows, MSI/MSI-X/PCIe/PM fields.
 * Everything goes through a struct pci_cfg of callbacks, so the same code
 * runs on the hardware (drivers/pci/pci.c) and on captured images in the
 * host unit tests (tests/unit/test_pcidecode.c).
 * PCI Local Bus 3.0 chapter 6, PCI-to-PCI Bridge 1.2 chapter 3,
 * PCI Express Base 4.0 chapter 7, PCI PM 1.2 chapter 3.
 */
#ifndef PCIDECODE_H
#define PCIDECODE_H
#include <stddef.h>
#include <stdint.h>
#include "drivers/pci/pci.h"

/* Type 0/1 header registers (PCI 3.0 6.1, PCI-to-PCI Bridge 1.2 3.2). */
#define PCI_VENDOR_ID 0x00	/* RO, 16 bits */
#define PCI_DEVICE_ID 0x02	/* RO, 16 bits */
#define PCI_COMMAND 0x04	/* RW, 16 bits */
#define PCI_COMMAND_IO 0x0001
#define PCI_COMMAND_MEMORY 0x0002
#define PCI_COMMAND_MASTER 0x0004
#define PCI_COMMAND_INTX_DISABLE 0x0400
#define PCI_STATUS 0x06		/* RO and RW1C, 16 bits */
#define PCI_STATUS_INTERRUPT 0x0008
#define PCI_STATUS_CAP_LIST 0x0010
#define PCI_REVISION_ID 0x08	/* RO; class code in bytes 0x09-0x0b */
#define PCI_HEADER_TYPE 0x0e	/* RO: bits 6:0 layout, bit 7 multi-function */
#define PCI_BAR0 0x10		/* RW, 6 (type 0) or 2 (type 1) dwords */
#define PCI_SUBSYSTEM_VENDOR_ID 0x2c	/* RO, type 0 */
#define PCI_CAPABILITY_LIST 0x34	/* RO, types 0 and 1 */
#define PCI_CB_CAPABILITY_LIST 0x14	/* RO, type 2 (CardBus) */
#define PCI_INTERRUPT_LINE 0x3c	/* RW, set by firmware */
#define PCI_INTERRUPT_PIN 0x3d	/* RO: 1 = INTA .. 4 = INTD */
#define PCI_PRIMARY_BUS 0x18	/* RW, type 1; then secondary, subordinate */
#define PCI_IO_BASE 0x1c	/* RW, type 1; limit at 0x1d, upper halves at 0x30 */
#define PCI_MEMORY_BASE 0x20	/* RW, type 1; limit at 0x22 */
#define PCI_PREF_MEMORY_BASE 0x24	/* RW, type 1; limit 0x26, upper 0x28/0x2c */

#define PCI_HEADER_NORMAL 0
#define PCI_HEADER_BRIDGE 1
#define PCI_HEADER_CARDBUS 2

/* Capability IDs (PCI Code and ID Assignment 1.11, chapters 2 and 3). */
#define PCI_CAP_ID_PM 0x01
#define PCI_CAP_ID_MSI 0x05
#define PCI_CAP_ID_EXP 0x10
#define PCI_CAP_ID_MSIX 0x11

/* MSI capability (PCI 3.0 6.8.1); offsets from the capability. */
#define PCI_MSI_FLAGS 0x02	/* RW, 16 bits */
#define PCI_MSI_FLAGS_ENABLE 0x0001
#define PCI_MSI_FLAGS_QMASK 0x000e	/* multiple message capable: log2 */
#define PCI_MSI_FLAGS_QSIZE 0x0070	/* multiple message enable: log2 */
#define PCI_MSI_FLAGS_64BIT 0x0080
#define PCI_MSI_FLAGS_MASKBIT 0x0100
#define PCI_MSI_ADDRESS_LO 0x04
#define PCI_MSI_ADDRESS_HI 0x08	/* 64-bit only */
#define PCI_MSI_DATA_32 0x08
#define PCI_MSI_DATA_64 0x0c
#define PCI_MSI_MASK_32 0x0c
#define PCI_MSI_MASK_64 0x10
#define PCI_MSI_PENDING_32 0x10
#define PCI_MSI_PENDING_64 0x14

/* MSI-X capability (PCIe 4.0 7.7.2); offsets from the capability. */
#define PCI_MSIX_FLAGS 0x02	/* RW, 16 bits */
#define PCI_MSIX_FLAGS_QSIZE 0x07ff	/* table size - 1 */
#define PCI_MSIX_FLAGS_MASKALL 0x4000
#define PCI_MSIX_FLAGS_ENABLE 0x8000
#define PCI_MSIX_TABLE 0x04	/* RO: BIR bits 2:0, offset bits 31:3 */
#define PCI_MSIX_PBA 0x08	/* RO: BIR bits 2:0, offset bits 31:3 */
#define PCI_MSIX_ENTRY_SIZE 16
#define PCI_MSIX_ENTRY_ADDR_LO 0x0
#define PCI_MSIX_ENTRY_ADDR_HI 0x4
#define PCI_MSIX_ENTRY_DATA 0x8
#define PCI_MSIX_ENTRY_CTRL 0xc
#define PCI_MSIX_ENTRY_CTRL_MASKBIT 0x1

/* Power management capability (PCI PM 1.2 3.2); offsets from it. */
#define PCI_PM_PMC 0x02		/* RO: version bits 2:0 */
#define PCI_PM_CTRL 0x04	/* RW: power state bits 1:0 */
#define PCI_PM_CTRL_STATE_MASK 0x0003

/* PCI Express capability (PCIe 4.0 7.5.3); offsets from it. */
#define PCI_EXP_FLAGS 0x02	/* RO: version bits 3:0, port type bits 7:4 */
#define PCI_EXP_DEVCAP 0x04	/* RO: max payload supported bits 2:0 */
#define PCI_EXP_DEVCTL 0x08	/* RW: max payload bits 7:5 */
#define PCI_EXP_LNKCAP 0x0c	/* RO: max speed bits 3:0, max width bits 9:4 */
#define PCI_EXP_LNKCTL 0x10	/* RW: ASPM control bits 1:0 */
#define PCI_EXP_LNKCTL_ASPM_L0S 0x0001
#define PCI_EXP_LNKCTL_ASPM_L1 0x0002
#define PCI_EXP_LNKSTA 0x12	/* RO: speed bits 3:0, width bits 9:4 */
#define PCI_EXP_TYPE_RC_END 0x9	/* root complex integrated endpoint */
#define PCI_EXP_TYPE_RC_EC 0xa	/* root complex event collector */

/* Config space of one function, as callbacks. off is dword-aligned. */
struct pci_cfg {
	uint32_t (*read32)(void *ctx, uint16_t off);
	void (*write32)(void *ctx, uint16_t off, uint32_t v);
	void *ctx;
	uint16_t size;		/* bytes readable: 256 (port 0xcf8) or 4096 (ECAM) */
};

/* The byte / 16-bit word at off (any alignment within its dword), through
 * c->read32. */
uint8_t pci_cfg_read8(const struct pci_cfg *c, uint16_t off);
uint16_t pci_cfg_read16(const struct pci_cfg *c, uint16_t off);

/* Clear the ASPM control bits in which (PCI_EXP_LNKCTL_ASPM_*) in the Link
 * Control register of the PCI Express capability at cap (PCIe 4.0
 * 7.5.3.7), leaving the rest of the dword as it was. Returns the ASPM
 * bits that were set before. */
uint16_t pci_cfg_aspm_clear(const struct pci_cfg *c, uint16_t cap, uint16_t which);

/* 1 if a function answers: vendor ID neither 0xffff (nothing there, or
 * all-ones from an absent device) nor 0. */
int pci_cfg_present(const struct pci_cfg *c);

/*
 * Size and decode the BARs: 6 for a type 0 header, 2 for a bridge, none
 * otherwise. The decode (memory, I/O) of the BARs that hold an address is
 * off while sizing (PCI 3.0 6.2.5.1); the command register is restored. An unimplemented BAR, and the upper
 * half of a 64-bit one, are PCI_BAR_NONE. An I/O BAR that decodes only 16
 * bits has its upper address bits ignored. Returns the number of BAR
 * registers, or -1 with a message in err (errlen bytes) for an absent
 * function, a reserved memory type, a 64-bit BAR in the last slot or a BAR
 * that reads all ones; the BARs before the bad one are kept.
 */
int pci_bars_decode(const struct pci_cfg *c, struct pci_bar bar[6], char *err, size_t errlen);

/* One capability: offset in config space, ID, and whether it is in the
 * extended list (then ver is its version). */
struct pci_cap {
	uint16_t off;
	uint16_t id;
	uint8_t ext, ver;
};
#define PCI_CAPS_MAX 64

/*
 * Walk the capability list (PCI 3.0 6.7) and, when the function has a PCI
 * Express capability and c->size is 4096, the extended list (PCIe 4.0
 * 7.6). Pointers are masked to dwords; a pointer out of range (below 0x40,
 * or outside 0x100-0xffc for the extended list), a loop, an entry reading
 * all ones, or more than max entries stops the walk with a message in err
 * (errlen bytes; "" when the list is sound). An extended header of all
 * ones or zero at 0x100 means no extended capabilities, as in Linux.
 * Returns the number of entries stored in caps.
 */
int pci_caps_walk(const struct pci_cfg *c, struct pci_cap *caps, int max, char *err, size_t errlen);

/* Offset of the first capability id in caps[0..n) (standard list), or 0. */
uint16_t pci_cap_find(const struct pci_cap *caps, int n, uint16_t id);

/* Bus numbers and windows of a type 1 header. A window is disabled when
 * base > limit. */
struct pci_bridge_info {
	uint8_t primary, secondary, subordinate;
	uint64_t io_base, io_limit, mem_base, mem_limit, pref_base, pref_limit;
};
void pci_bridge_decode(const struct pci_cfg *c, struct pci_bridge_info *b);

/*
 * Whether the bus behind bridge b, which sits on bus `bus`, can be walked.
 * Returns 0, or -1 with the reason in err (errlen bytes): secondary bus 0
 * (firmware left the bridge unconfigured; bus numbers are not assigned
 * here), a secondary bus not above `bus` or above the subordinate, a bus
 * past bus_end (the last bus config access reaches), or a bus already
 * walked (seen: one bit per bus number).
 */
int pci_bridge_check(const struct pci_bridge_info *b, uint8_t bus, uint8_t bus_end,
		     const uint8_t seen[256 / 8], char *err, size_t errlen);

/* MSI-X fields (PCIe 4.0 7.7.2.2-7.7.2.4). */
struct pci_msix_info {
	uint16_t size;		/* table entries */
	uint8_t table_bir, pba_bir;
	uint32_t table_off, pba_off;	/* bytes into the BAR */
	uint8_t enabled, masked;
};
void pci_msix_decode(const struct pci_cfg *c, uint16_t cap, struct pci_msix_info *m);

/* Link speed name for a PCIe speed code (1 = "2.5GT/s" .. 6 = "64GT/s"),
 * or "unknown". */
const char *pci_link_speed(unsigned code);

/*
 * One line of detail about capability cap, in the style of Linux
 * `lspci -vv` ("MSI: Enable- Count=1/1 Maskable- 64bit+"), written to buf
 * (len bytes, truncated). Unknown IDs give their number.
 */
void pci_cap_describe(const struct pci_cfg *c, const struct pci_cap *cap, char *buf, size_t len);

/* Name of a class code as lspci prints it ("Ethernet controller"); a
 * class without a known subclass gives the class name. */
const char *pci_class_name(uint8_t class, uint8_t subclass);
#endif
