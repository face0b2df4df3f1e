/* The check of a port's receive accounts that the lwIP harnesses make
 * after every frame (arena.h, tcpclient.c). */
#ifndef FUZZ_LWIFCHECK_H
#define FUZZ_LWIFCHECK_H
#include <assert.h>
#include <stdint.h>
#include "net/lwip/lwif.h"

/* Port port's frames received = those handed to lwIP + the drops before it, exactly. */
static inline void lwif_accounts_check(int port)
{
	const struct lwif_stats *s = &lwif_stats[port];
	uint64_t n = 0;
	for (int i = 0; i < LWIF_STACK_N; i++)
		n += s->stack[i];
	for (int i = 0; i < LWIF_DROP_N; i++)
		n += s->drop[i];
	assert(s->rx == n);
}
#endif
