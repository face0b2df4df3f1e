/* Kernel state between fuzz inputs: the kernel objects' data and bss (see
 * sections.ld) saved once after the harness's set-up and put back before
 * each input, so every input runs from the same state and a crash
 * reproduces from its input alone. */
#ifndef FUZZ_STATE_H
#define FUZZ_STATE_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* RTLD_NEXT */
#endif
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

extern char __kstate_start[], __kstate_end[];

/* The range holds only the kernel objects' globals and ASan's redzones
 * after them (which no access may touch: a copy of the whole range puts
 * back the same bytes), so libc's memcpy copies it whole; the C library's
 * own, not ASan's interceptor, which would report the redzones and first
 * scans the shadow of both ranges (a tenth of the time of the lwIP
 * harnesses, whose state with their arena is some 0.7-1.9 MB a copy). */
static inline void kstate_copy(void *dst, const void *src, size_t n)
{
	static void *(*libc_memcpy)(void *, const void *, size_t);
	if (!libc_memcpy)
		libc_memcpy = (void *(*)(void *, const void *, size_t))dlsym(RTLD_NEXT, "memcpy");
	libc_memcpy(dst, src, n);
}

static char *kstate_saved;

static inline void kstate_save(void)
{
	size_t n = (size_t)(__kstate_end - __kstate_start);
	kstate_saved = malloc(n ? n : 1);
	kstate_copy(kstate_saved, __kstate_start, n);
}

static inline void kstate_restore(void)
{
	kstate_copy(__kstate_start, kstate_saved, (size_t)(__kstate_end - __kstate_start));
}
#endif
