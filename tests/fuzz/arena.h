/*
 * The fuzz harnesses that run lwIP (fuzz_lwip, fuzz_http, fuzz_dhcp): lwIP's
 * pools and heap (net/lwip/pools.c) and the apps' DMA buffers are taken from this
 * arena during set-up (fuzz_dma_alloc = arena_alloc), saved once after it
 * and put back before each input with the kernel state (and, from
 * lwifcheck.h, the check of the receive accounts they make after every
 * frame). fuzz_router takes the
 * router's per-core state from it the same way.
 */
#ifndef FUZZ_ARENA_H
#define FUZZ_ARENA_H
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tests/fuzz/fuzz_state.h"
#include "tests/fuzz/lwifcheck.h"

static uint8_t arena[1 << 20] __attribute__((aligned(4096)));	/* fuzz_http: 140 KB */
static size_t arena_used;
static uint8_t *arena_saved;	/* NULL until set-up has run */
extern void *(*fuzz_dma_alloc)(size_t bytes, size_t align);

/* Buffers of ARENA_BIG bytes or more are not state and stay out of the
 * arena, not put back: in these harnesses only the HTTP server's answer
 * buffer (each answer written before it is read) and, in fuzz_http, the
 * recording of /metrics (made at set-up and only replayed after it: the
 * page's lines follow the ports, cores and apps, fixed at set-up). They
 * were 256 KB each, 37 % (fuzz_lwip, fuzz_dhcp) and 52 % (fuzz_http) of
 * the bytes put back per input. */
#define ARENA_BIG (128 * 1024)

/* bytes zeroed bytes at align, or NULL when the arena is full. */
static void *arena_alloc(size_t bytes, size_t align)
{
	if (bytes >= ARENA_BIG) {
		void *p = aligned_alloc(align < 64 ? 64 : align, (bytes + 63) / 64 * 64);
		if (p)
			memset(p, 0, bytes);
		return p;
	}
	size_t at = (arena_used + align - 1) / align * align;
	if (at + bytes > sizeof(arena))
		return NULL;
	arena_used = at + bytes;
	memset(arena + at, 0, bytes);
	return arena + at;
}

/* Keep what set-up allocated, to put back with arena_restore. */
static void arena_save(void)
{
	arena_saved = malloc(arena_used);
	kstate_copy(arena_saved, arena, arena_used);
}

static void arena_restore(void)
{
	kstate_copy(arena, arena_saved, arena_used);
}

#endif
