/* lwIP's port header for linerate: newlib types, x86_64 little endian, the
 * console for diagnostics (docs/toolchain.md section 2, pitfalls). */
#ifndef LWIP_ARCH_CC_H
#define LWIP_ARCH_CC_H
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

/* newlib's limits.h has no SSIZE_MAX: without it lwIP typedefs its own ssize_t. */
#ifndef SSIZE_MAX
#define SSIZE_MAX LONG_MAX
#endif
#ifndef BYTE_ORDER
#define BYTE_ORDER LITTLE_ENDIAN
#endif
/* Byte order by the compiler's bswap, inline (lwIP's are out-of-line calls). */
#define lwip_htons(x) ((u16_t)__builtin_bswap16((u16_t)(x)))
#define lwip_htonl(x) ((u32_t)__builtin_bswap32((u32_t)(x)))
#define LWIP_RAND() ((u32_t)rand())

#include "arch/chksum.h"
#define LWIP_CHKSUM lwif_chksum
#define LWIP_PLATFORM_DIAG(x) do { printf x; } while (0)
/* Assertions are lwIP's own consistency checks, off on the fast path;
 * LWIP_ERROR's checks of arguments stay. */
#define LWIP_NOASSERT
#define LWIP_PLATFORM_ASSERT(x) do { printf("lwip: assertion \"%s\" failed at %s:%d\n", x, __FILE__, __LINE__); abort(); } while (0)
#define LWIP_NO_STDINT_H 0
#define LWIP_NO_INTTYPES_H 0
#endif
