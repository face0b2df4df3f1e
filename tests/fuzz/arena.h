/*
 * The fuzz harnesses that run lwIP (fuzz_lwip, fuzz_http, fuzz_dhcp): lwIP's
 * pools and heap (rr_pools.c) and the apps' DMA buffers are taken from this
 * arena during set-up (fuzz_dma_alloc = arena_alloc), saved once after it
 * and put back before each input with the kernel state; and the check of
 * rr's receive accounts they make after every frame.
 */
#ifndef FUZZ_ARENA_H
#define FUZZ_ARENA_H
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "apps/rr/rr.h"
#include "tests/fuzz/fuzz_state.h"

static uint8_t arena[2 << 20] __attribute__((aligned(4096)));	/* fuzz_http: 1.3 MB */
static size_t arena_used;
static uint8_t *arena_saved;	/* NULL until set-up has run */
extern void *(*fuzz_dma_alloc)(size_t bytes, size_t align);

/* bytes zeroed bytes at align, or NULL when the arena is full. */
static void *arena_alloc(size_t bytes, size_t align)
{
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

/* Port port's frames received = those handed to lwIP + rr's drops, exactly. */
static void rr_accounts_check(int port)
{
	const struct rr_stats *s = &rr_stats[port];
	uint64_t n = 0;
	for (int i = 0; i < RR_STACK_N; i++)
		n += s->stack[i];
	for (int i = 0; i < RR_DROP_N; i++)
		n += s->drop[i];
	assert(s->rx == n);
}
#endif
