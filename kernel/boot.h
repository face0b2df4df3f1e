/* Boot-path parsing: what boot/entry.S saved, turned into struct boot_info. */
#ifndef BOOT_H
#define BOOT_H
#include <stdint.h>
#include "kernel/boot_info.h"

/* Saved by boot/entry.S. */
extern uint64_t boot_entry_tsc, boot_info_addr;
extern uint32_t boot_magic, boot_path;

/* Fill bi from the loader's data. Returns 0, or -1 if the loader's data is
 * not what its magic promises. */
int boot_parse(struct boot_info *bi);
/* "multiboot2", "pvh", "uefi". */
const char *boot_path_name(uint32_t path);
#endif
