/* Entries of the tables the linker gathers from every file (KNOB,
 * SHELL_CMD, APP, PCI_DRIVER, PROM_WRITER): laid end to end in their section and walked
 * as one array. AddressSanitizer (the fuzz builds) would put a redzone
 * after each global; these it must leave alone, every other global it
 * checks. */
#ifndef KERNEL_LINKSET_H
#define KERNEL_LINKSET_H
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LINKSET_ENTRY __attribute__((used, no_sanitize("address"), aligned(8)))
#endif
#endif
#ifndef LINKSET_ENTRY
#define LINKSET_ENTRY __attribute__((used, aligned(8)))
#endif
#endif
