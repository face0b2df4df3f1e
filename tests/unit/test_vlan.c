/* Unit tests for net/vlan.c: tags read from frames, the per-VLAN table. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "net/vlan.h"

/* A frame: MACs, then the 16-bit words given (TPID, TCI, ..., type). */
static uint32_t frame(uint8_t *f, const uint16_t *w, int n)
{
	memset(f, 0, 64);
	for (int i = 0; i < n; i++) {
		f[12 + 2 * i] = (uint8_t)(w[i] >> 8);
		f[13 + 2 * i] = (uint8_t)w[i];
	}
	return 64;
}

static void test_parse(void **state)
{
	(void)state;
	uint8_t f[64];
	struct vlan_tags v;
	vlan_parse(f, frame(f, (const uint16_t[]){ 0x0800 }, 1), &v);
	assert_int_equal(v.n, 0);
	assert_int_equal(v.type, 0x0800);
	assert_int_equal(v.l3, 14);
	vlan_parse(f, frame(f, (const uint16_t[]){ 0x8100, vlan_tci(100, 1, 5), 0x86dd }, 3), &v);
	assert_int_equal(v.n, 1);
	assert_int_equal(v.tci[0], 0xb064);	/* PCP 5, DEI 1, VID 100 */
	assert_int_equal(v.type, 0x86dd);
	assert_int_equal(v.l3, 18);
	vlan_parse(f, frame(f, (const uint16_t[]){ 0x88a8, 22, 0x8100, 100, 0x0800 }, 5), &v);
	assert_int_equal(v.n, 2);
	assert_int_equal(v.tci[0], 22);
	assert_int_equal(v.tci[1], 100);
	assert_int_equal(v.type, 0x0800);
	assert_int_equal(v.l3, 22);
	/* a third tag is left as the type */
	vlan_parse(f, frame(f, (const uint16_t[]){ 0x9100, 1, 0x8100, 2, 0x8100, 3, 0x0800 }, 7), &v);
	assert_int_equal(v.n, 2);
	assert_int_equal(v.type, 0x8100);
	/* a tag cut by the frame's end is not read; a runt has no type */
	vlan_parse(f, 16, &v);
	assert_int_equal(v.n, 0);
	assert_int_equal(v.type, 0x9100);
	vlan_parse(f, 10, &v);
	assert_int_equal(v.n, 0);
	assert_int_equal(v.type, 0);
}

static void test_table_counts_pairs_and_full(void **state)
{
	(void)state;
	static struct vlan_table t;
	struct vlan_tags untagged = { .n = 0 }, one = { .n = 1, .tci = { 0xe064 } }, two = { .n = 2, .tci = { 22, 100 } };
	vlan_count(&t, &untagged, 60);
	assert_int_equal(t.n, 0);
	vlan_count(&t, &one, 64);
	vlan_count(&t, &one, 100);
	vlan_count(&t, &two, 68);
	assert_int_equal(t.n, 2);
	assert_int_equal(t.e[0].outer, 100);	/* the VID, not the PCP */
	assert_int_equal(t.e[0].inner, VLAN_NONE);
	assert_int_equal(t.e[0].frames, 2);
	assert_int_equal(t.e[0].bytes, 164);
	assert_int_equal(t.e[1].outer, 22);
	assert_int_equal(t.e[1].inner, 100);
	for (uint16_t vid = 1; vid <= VLAN_TABLE_MAX; vid++) {
		struct vlan_tags v = { .n = 1, .tci = { vid } };
		vlan_count(&t, &v, 60);
	}
	assert_int_equal(t.n, VLAN_TABLE_MAX);
	assert_int_equal(t.full, 2);	/* VIDs 15 and 16 found it full */
	vlan_count(&t, &one, 64);	/* a known pair still counts */
	assert_int_equal(t.e[0].frames, 3);
	assert_int_equal(t.full, 2);
}

/* vlan_tagged says 1 exactly where vlan_parse finds a tag: each TPID with
 * room for the tag, not a frame too short for it or another type. */
static void test_tagged_agrees_with_parse(void **state)
{
	(void)state;
	static const uint16_t types[] = { 0x8100, 0x88a8, 0x9100, 0x0800, 0x86dd, 0x8101, 0x0081 };
	uint8_t f[64];
	for (unsigned t = 0; t < sizeof(types) / sizeof(types[0]); t++)
		for (uint32_t len = 14; len <= 20; len++) {
			struct vlan_tags v;
			frame(f, (const uint16_t[]){ types[t], vlan_tci(7, 0, 0), 0x0800 }, 3);
			vlan_parse(f, len, &v);
			assert_int_equal(vlan_tagged(f, len), v.n > 0);
			assert_int_equal(vlan_tagged(f, len), t < 3 && len >= 18);
		}
}

/* vlan_insert puts a C-tag after the MACs, 4 bytes before the frame, and
 * vlan_parse reads back the VID, the priority and the type under it. */
static void test_insert(void **state)
{
	(void)state;
	uint8_t buf[4 + 64], want[64];
	uint8_t *f = buf + 4;
	frame(f, (const uint16_t[]){ 0x0800 }, 1);
	for (int i = 0; i < 12; i++)
		f[i] = (uint8_t)(i + 1);
	f[14] = 0x45;
	memcpy(want, f, 64);
	uint8_t *t = vlan_insert(f, vlan_tci(4094, 0, 3));
	assert_ptr_equal(t, buf);
	assert_memory_equal(t, want, 12);
	assert_int_equal(t[12], 0x81);
	assert_int_equal(t[13], 0x00);
	assert_int_equal(t[14], 0x6f);	/* PCP 3, DEI 0, VID 0xffe */
	assert_int_equal(t[15], 0xfe);
	assert_memory_equal(t + 16, want + 12, 52);
	struct vlan_tags v;
	vlan_parse(t, 68, &v);
	assert_int_equal(v.n, 1);
	assert_int_equal(v.tci[0] & 0xfff, 4094);
	assert_int_equal(v.type, 0x0800);
	assert_int_equal(v.l3, 18);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_table_counts_pairs_and_full),
		cmocka_unit_test(test_tagged_agrees_with_parse),
		cmocka_unit_test(test_insert),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
