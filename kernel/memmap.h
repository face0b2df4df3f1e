/*
 * Physical memory map clean-up. Firmware maps (E820, EFI, Multiboot) come
 * unsorted, overlapping and unaligned; after memmap_sanitize() the map is
 * sorted, disjoint, merged, and every MEM_USABLE region is whole 4 KiB pages.
 * Works in place on caller arrays; no allocation.
 */
#ifndef KERNEL_MEMMAP_H
#define KERNEL_MEMMAP_H
#include <stdint.h>
#include "kernel/boot_info.h"

/*
 * Sanitize r[0..n), an array with room for max entries:
 *  - drop zero-length regions (and clip one running past 2^64 - 1);
 *  - sort by base;
 *  - where regions overlap, the more restrictive type wins: any type beats
 *    MEM_USABLE, otherwise the higher type number wins;
 *  - merge adjacent or overlapping regions of equal type;
 *  - shrink MEM_USABLE regions inward to 4 KiB boundaries, dropping those
 *    left empty.
 * Splitting a region around a stronger one needs an extra entry. Returns
 * the new count, or -1 if max was too small (r is then partly done).
 */
int memmap_sanitize(struct mem_region *r, int n, int max);

/*
 * Mark [base, base + len) MEM_RESERVED in the sanitized map r[0..n),
 * splitting usable regions (the usable pieces left keep whole pages).
 * Parts over other non-usable types keep their type; parts over holes
 * become MEM_RESERVED. Returns the new count (n if len is 0), or -1 if max
 * entries are not enough.
 */
int memmap_reserve(struct mem_region *r, int n, int max, uint64_t base, uint64_t len);

/* Total length in bytes of the MEM_USABLE regions of r[0..n). */
uint64_t memmap_usable_bytes(const struct mem_region *r, int n);

/* Number of regions of r[0..n) with this type. */
int memmap_count_type(const struct mem_region *r, int n, uint32_t type);

/* Highest end address (base + len) among regions of type, 0 if none. */
uint64_t memmap_top(const struct mem_region *r, int n, uint32_t type);

/* "usable", "reserved", "acpi", "nvs", "bad", or "unknown". */
const char *memmap_type_name(uint32_t type);

#endif
