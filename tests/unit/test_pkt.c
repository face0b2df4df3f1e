/* Unit tests for net/pkt.c: pkt_free_bulk's runs (four at a time and one
 * at a time) over packets of two pools, with clones among them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "kernel/mem.h"
#include "net/pkt.h"

/* The pools' memory: host heap (physical = virtual does not matter here). */
void *dma_alloc_below(size_t bytes, size_t align, uint64_t limit)
{
	(void)limit;
	return aligned_alloc(align, (bytes + align - 1) / align * align);
}

void dma_free(void *p, size_t bytes)
{
	(void)bytes;
	free(p);
}

/* 13 packets alternating in runs from pools a and b (a a a a a b b a a a
 * a a a), one of a's with a clone: every one goes back to its own pool
 * in order, the cloned one only loses its clone. */
static void test_free_bulk_runs_and_clones(void **state)
{
	(void)state;
	struct pktpool *a = pktpool_create("a", 16, PKT_SLOT), *b = pktpool_create("b", 4, PKT_SLOT);
	assert_non_null(a);
	assert_non_null(b);
	struct pkt *p[13];
	const char from[] = "aaaaabbaaaaaa";
	for (int i = 0; i < 13; i++)
		assert_non_null(p[i] = pkt_alloc(from[i] == 'a' ? a : b));
	assert_int_equal(a->nfree, 5);
	assert_int_equal(b->nfree, 2);
	p[9]->clones = 1;
	pkt_free_bulk(p, 13);
	assert_int_equal(a->nfree, 15);
	assert_int_equal(b->nfree, 4);
	assert_int_equal(p[9]->clones, 0);
	assert_ptr_equal(a->free[5], p[0]);
	assert_ptr_equal(a->free[9], p[4]);
	assert_ptr_equal(a->free[10], p[7]);
	assert_ptr_equal(a->free[11], p[8]);
	assert_ptr_equal(a->free[12], p[10]);
	assert_ptr_equal(a->free[14], p[12]);
	assert_ptr_equal(b->free[2], p[5]);
	assert_ptr_equal(b->free[3], p[6]);
	pkt_free_bulk(&p[9], 1);
	assert_int_equal(a->nfree, 16);
	pkt_free_bulk(p, 0);
	assert_int_equal(a->nfree, 16);
	pktpool_destroy(a);
	pktpool_destroy(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_free_bulk_runs_and_clones),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
