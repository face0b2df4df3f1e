/* Unit tests for net/bpf.c: programs Debian's tcpdump compiles (run here:
 * `tcpdump -dd EXPR`, and -ddd) select exactly the expected frames of a set
 * (PTP over UDP/IPv4 and IPv6, another port, TCP, a VLAN tag, ARP, a later
 * IPv4 fragment, a frame cut short); hand-written programs cover what
 * tcpdump does not write (scratch memory, RET A, division by X = 0) and
 * every refusal of the checker and the parser. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "net/bpf.h"

enum { F_UDP4_319, F_UDP4_320, F_TCP4_319, F_UDP6_319, F_VLAN_UDP4_319, F_ARP, F_FRAG4_319,
       F_SHORT4_319, F_COUNT };

struct frame {
	uint8_t b[128];
	uint32_t len;
};
static struct frame frames[F_COUNT];

/* Ethernet (with an 802.1Q tag if vlan), then ethertype; returns its end. */
static uint8_t *eth(uint8_t *p, int vlan, uint16_t type)
{
	static const uint8_t macs[12] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1 };
	memcpy(p, macs, 12);
	p += 12;
	if (vlan) {
		*p++ = 0x81, *p++ = 0x00, *p++ = 0x00, *p++ = 0x64; /* VID 100 */
	}
	*p++ = (uint8_t)(type >> 8), *p++ = (uint8_t)type;
	return p;
}

/* UDP or TCP ports 1234 > dport and 8 bytes more (UDP length 16). */
static uint8_t *l4(uint8_t *p, uint16_t dport)
{
	uint8_t h[16] = { 0x04, 0xd2, (uint8_t)(dport >> 8), (uint8_t)dport, 0, 16 };
	memcpy(p, h, sizeof(h));
	return p + sizeof(h);
}

/* IPv4 10.1.0.2 > 10.2.0.2 of protocol proto, fragment offset frag (8 B units). */
static uint8_t *ip4(uint8_t *p, uint8_t proto, uint16_t frag)
{
	uint8_t h[20] = { 0x45, 0, 0, 36, 0, 1, (uint8_t)(frag >> 8), (uint8_t)frag, 64, proto, 0, 0,
			  10, 1, 0, 2, 10, 2, 0, 2 };
	memcpy(p, h, sizeof(h));
	return p + sizeof(h);
}

static void make(int i, uint8_t *end, struct frame *f)
{
	f->len = (uint32_t)(end - f->b);
	frames[i] = *f;
}

static int setup(void **state)
{
	struct frame f = { 0 };
	(void)state;
	make(F_UDP4_319, l4(ip4(eth(f.b, 0, 0x0800), 17, 0), 319), &f);
	make(F_UDP4_320, l4(ip4(eth(f.b, 0, 0x0800), 17, 0), 320), &f);
	make(F_TCP4_319, l4(ip4(eth(f.b, 0, 0x0800), 6, 0), 319), &f);
	make(F_VLAN_UDP4_319, l4(ip4(eth(f.b, 1, 0x0800), 17, 0), 319), &f);
	make(F_FRAG4_319, l4(ip4(eth(f.b, 0, 0x0800), 17, 185), 319), &f);
	make(F_SHORT4_319, ip4(eth(f.b, 0, 0x0800), 17, 0) + 2, &f);
	/* IPv6 fe80::2 > ff02::6b, next header UDP, payload length 16 */
	uint8_t *p = eth(f.b, 0, 0x86dd);
	uint8_t v6[40] = { 0x60, 0, 0, 0, 0, 16, 17, 1, 0xfe, 0x80, [23] = 2, [24] = 0xff, 2, [39] = 0x6b };
	memcpy(p, v6, sizeof(v6));
	make(F_UDP6_319, l4(p + 40, 319), &f);
	/* ARP request who-has 10.1.0.1 tell 10.1.0.2 */
	p = eth(f.b, 0, 0x0806);
	uint8_t arp[28] = { 0, 1, 8, 0, 6, 4, 0, 1, 2, 0, 0, 0, 0, 2, 10, 1, 0, 2, [24] = 10, 1, 0, 1 };
	memcpy(p, arp, sizeof(arp));
	make(F_ARP, p + 28, &f);
	return 0;
}

/* tcpdump's program for expr, printed with flag (-dd or -ddd), parsed and checked. */
static int compile(const char *flag, const char *expr, struct bpf_insn *prog)
{
	char cmd[256], text[16384];
	const char *why = NULL;
	unsigned pc;
	snprintf(cmd, sizeof(cmd), "tcpdump -y EN10MB %s '%s' 2>/dev/null", flag, expr);
	FILE *f = popen(cmd, "r");
	assert_non_null(f);
	size_t n = fread(text, 1, sizeof(text), f);
	assert_int_equal(pclose(f), 0);
	assert_true(n > 0 && n < sizeof(text));
	int len = bpf_parse(text, n, prog, BPF_MAXINSNS, &why);
	if (len < 0)
		fail_msg("%s: %s", expr, why);
	assert_null(bpf_check(prog, (unsigned)len, &pc));
	return len;
}

/* expr selects exactly the frames in the bit mask want (1 << F_*). */
static void selects(const char *expr, unsigned want)
{
	static struct bpf_insn dd[BPF_MAXINSNS], ddd[BPF_MAXINSNS];
	int n = compile("-dd", expr, dd);
	assert_int_equal(compile("-ddd", expr, ddd), n);
	assert_memory_equal(dd, ddd, (size_t)n * sizeof(dd[0]));
	for (int i = 0; i < F_COUNT; i++) {
		uint32_t keep = bpf_run(dd, frames[i].b, frames[i].len);
		if (keep != ((want >> i & 1) ? 262144u : 0u))
			fail_msg("'%s' on frame %d returned %u", expr, i, keep);
	}
}

static void test_tcpdump_filters(void **state)
{
	(void)state;
	selects("udp port 319", 1 << F_UDP4_319 | 1 << F_UDP6_319);
	selects("udp port 320", 1 << F_UDP4_320);
	selects("tcp port 319", 1 << F_TCP4_319);
	selects("ip6", 1 << F_UDP6_319);
	selects("arp", 1 << F_ARP);
	selects("vlan", 1 << F_VLAN_UDP4_319);
	selects("vlan 100 and udp port 319", 1 << F_VLAN_UDP4_319);
	selects("vlan 101", 0);
	selects("ip", 1 << F_UDP4_319 | 1 << F_UDP4_320 | 1 << F_TCP4_319 | 1 << F_FRAG4_319 | 1 << F_SHORT4_319);
	selects("ip[6:2] & 0x1fff != 0", 1 << F_FRAG4_319);
	selects("udp[2:2] % 10 = 9", 1 << F_UDP4_319);
	selects("len > 60", 1 << F_UDP6_319);
	selects("arp[24:4] = 0x0a010001 or ether src 02:00:00:00:00:09", 1 << F_ARP);
	selects("not arp and not ip and not ip6", 1 << F_VLAN_UDP4_319);
}

/* Run the hand-written program on frame F_UDP4_319. */
static uint32_t run(const struct bpf_insn *prog, unsigned len)
{
	unsigned pc;
	const char *why = bpf_check(prog, len, &pc);
	if (why)
		fail_msg("refused at %u: %s", pc, why);
	return bpf_run(prog, frames[F_UDP4_319].b, frames[F_UDP4_319].len);
}

static void test_machine(void **state)
{
	(void)state;
	/* M[3] = len; X = 4 * IHL; A = M[3] - X; RET A: 50 - 20 */
	const struct bpf_insn scratch[] = {
		{ BPF_LD | BPF_W | BPF_LEN, 0, 0, 0 }, { BPF_ST, 0, 0, 3 },
		{ BPF_LDX | BPF_B | BPF_MSH, 0, 0, 14 }, { BPF_LD | BPF_W | BPF_MEM, 0, 0, 3 },
		{ BPF_ALU | BPF_SUB | BPF_X, 0, 0, 0 }, { BPF_RET | BPF_A, 0, 0, 0 } };
	assert_int_equal(frames[F_UDP4_319].len, 50);
	assert_int_equal(run(scratch, 6), 30);
	/* A = 7; X = 0; A /= X: no match, as in Linux */
	const struct bpf_insn div0[] = {
		{ BPF_LD | BPF_IMM, 0, 0, 7 }, { BPF_LDX | BPF_W | BPF_IMM, 0, 0, 0 },
		{ BPF_ALU | BPF_DIV | BPF_X, 0, 0, 0 }, { BPF_RET | BPF_K, 0, 0, 1 } };
	assert_int_equal(run(div0, 4), 0);
	/* A = ~0; A <<= X (X = 33, taken & 31); JA over a RET; TAX; TXA; NEG */
	const struct bpf_insn misc[] = {
		{ BPF_LD | BPF_IMM, 0, 0, 0xffffffff }, { BPF_LDX | BPF_W | BPF_IMM, 0, 0, 33 },
		{ BPF_ALU | BPF_LSH | BPF_X, 0, 0, 0 }, { BPF_JMP | BPF_JA, 0, 0, 1 },
		{ BPF_RET | BPF_K, 0, 0, 5 }, { BPF_MISC | BPF_TAX, 0, 0, 0 },
		{ BPF_LD | BPF_IMM, 0, 0, 0 }, { BPF_MISC | BPF_TXA, 0, 0, 0 },
		{ BPF_ALU | BPF_NEG, 0, 0, 0 }, { BPF_RET | BPF_A, 0, 0, 0 } };
	assert_int_equal(run(misc, 10), 2);
	/* A word load ending exactly at the end matches; one byte further does not. */
	const struct bpf_insn edge[] = { { BPF_LD | BPF_W | BPF_ABS, 0, 0, 46 }, { BPF_RET | BPF_K, 0, 0, 9 } };
	assert_int_equal(run(edge, 2), 9);
	const struct bpf_insn past[] = { { BPF_LD | BPF_W | BPF_ABS, 0, 0, 47 }, { BPF_RET | BPF_K, 0, 0, 9 } };
	assert_int_equal(run(past, 2), 0);
	/* X + k wrapping past 2^32 lands at 0x0c: the ethertype */
	const struct bpf_insn wrap[] = {
		{ BPF_LDX | BPF_W | BPF_IMM, 0, 0, 0x7ffffffe }, { BPF_LD | BPF_H | BPF_IND, 0, 0, 0x8000000e },
		{ BPF_RET | BPF_A, 0, 0, 0 } };
	assert_int_equal(run(wrap, 3), 0x0800);
	const struct bpf_insn huge[] = {
		{ BPF_LDX | BPF_W | BPF_IMM, 0, 0, 0xfffffff0 }, { BPF_LD | BPF_B | BPF_IND, 0, 0, 4 },
		{ BPF_RET | BPF_K, 0, 0, 1 } };
	assert_int_equal(run(huge, 3), 0);
}

/* bpf_check refuses prog with a reason containing want, at instruction at. */
static void refused(const struct bpf_insn *prog, unsigned len, const char *want, unsigned at)
{
	unsigned pc = 99;
	const char *why = bpf_check(prog, len, &pc);
	assert_non_null(why);
	assert_non_null(strstr(why, want));
	assert_int_equal(pc, at);
}

static void test_checker(void **state)
{
	static struct bpf_insn big[BPF_MAXINSNS + 1];
	const struct bpf_insn ret = { BPF_RET | BPF_K, 0, 0, 0 };
	(void)state;
	refused(big, 0, "length", 0);
	for (unsigned i = 0; i < BPF_MAXINSNS + 1; i++)
		big[i] = ret;
	refused(big, BPF_MAXINSNS + 1, "length", 0);
	unsigned pc;
	assert_null(bpf_check(big, BPF_MAXINSNS, &pc));

	const struct bpf_insn noret[] = { ret, { BPF_LD | BPF_IMM, 0, 0, 1 } };
	refused(noret, 2, "last instruction", 1);
	const struct bpf_insn unknown[] = { { 0xffff, 0, 0, 0 }, ret };
	refused(unknown, 2, "unknown opcode", 0);
	const struct bpf_insn retx[] = { { BPF_RET | BPF_X, 0, 0, 0 } };
	refused(retx, 1, "unknown opcode", 0);
	const struct bpf_insn div[] = { { BPF_ALU | BPF_DIV | BPF_K, 0, 0, 0 }, ret };
	refused(div, 2, "division", 0);
	const struct bpf_insn mod[] = { ret, { BPF_ALU | BPF_MOD | BPF_K, 0, 0, 0 }, ret };
	refused(mod, 3, "division", 1);
	const struct bpf_insn shift[] = { { BPF_ALU | BPF_RSH | BPF_K, 0, 0, 32 }, ret };
	refused(shift, 2, "shift", 0);
	const struct bpf_insn mem[] = { { BPF_ST, 0, 0, 16 }, ret };
	refused(mem, 2, "M[k]", 0);
	const struct bpf_insn ldmem[] = { { BPF_LDX | BPF_W | BPF_MEM, 0, 0, 16 }, ret };
	refused(ldmem, 2, "M[k]", 0);
	const struct bpf_insn neg[] = { { BPF_LD | BPF_H | BPF_ABS, 0, 0, 0xfffff000 }, ret };
	refused(neg, 2, "negative offset", 0);
	const struct bpf_insn ja[] = { { BPF_JMP | BPF_JA, 0, 0, 1 }, ret };
	refused(ja, 2, "jump past the end", 0);
	const struct bpf_insn ja_back[] = { ret, { BPF_JMP | BPF_JA, 0, 0, 0xffffffff }, ret };
	refused(ja_back, 3, "jump past the end", 1);
	const struct bpf_insn jt[] = { { BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 0 }, ret };
	refused(jt, 2, "jump past the end", 0);
	const struct bpf_insn jf[] = { { BPF_JMP | BPF_JGT | BPF_X, 0, 1, 0 }, ret };
	refused(jf, 2, "jump past the end", 0);
	const struct bpf_insn ok[] = { { BPF_JMP | BPF_JSET | BPF_K, 1, 0, 1 }, ret, ret };
	assert_null(bpf_check(ok, 3, &pc));
}

/* bpf_parse refuses text with a reason containing want. */
static void unparsed(const char *text, unsigned max, const char *want)
{
	struct bpf_insn prog[4];
	const char *why = NULL;
	assert_int_equal(bpf_parse(text, strlen(text), prog, max, &why), -1);
	assert_non_null(why);
	if (!strstr(why, want))
		fail_msg("'%s': %s", text, why);
}

static void test_parser(void **state)
{
	struct bpf_insn prog[4];
	const char *why = NULL;
	const char *iptables = "4,48 0 0 9,21 0 1 6,6 0 0 1,6 0 0 0";
	(void)state;
	assert_int_equal(bpf_parse(iptables, strlen(iptables), prog, 4, &why), 4);
	assert_int_equal(prog[1].code, 21);
	assert_int_equal(prog[1].jf, 1);
	assert_int_equal(prog[1].k, 6);
	assert_int_equal(prog[3].code, BPF_RET);
	/* n bounds the text: the trailing instruction is not read */
	const char *dd = "{ 0x6, 0, 0, 0x00040000 },\n{ 0x6, 0, 0, 0x00000000 },\n";
	assert_int_equal(bpf_parse(dd, 26, prog, 4, &why), 1);
	assert_int_equal(prog[0].k, 0x40000);

	static const struct { const char *text; unsigned max; const char *why; } bad[] = {
		{ "", 4, "expected tcpdump -dd" },
		{ "0", 4, "expected tcpdump -dd" },
		{ "6 0 0", 4, "expected tcpdump -dd" },
		{ "2 6 0 0 1", 4, "expected tcpdump -dd" },
		{ "{ 0x6, 0, 0, 1 }, { 0x6, 0, 0 }", 4, "expected tcpdump -dd" },
		{ "{ 0x6, 0, 0, -1 }", 4, "not a number" },
		{ "{ 0x6, 0, 0, 1 }; rm", 4, "not a number" },
		{ "6 0 0 012", 4, "not a number" },
		{ "6 0 0 0x1234567890abcdef1234", 4, "not a number" },
		{ "0x10000 0 0 0", 4, "field too large" },
		{ "6 256 0 0", 4, "field too large" },
		{ "6 0 0 0x100000000", 4, "field too large" },
		{ "6 0 0 0 6 0 0 0", 1, "more instructions" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		unparsed(bad[i].text, bad[i].max, bad[i].why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tcpdump_filters),
		cmocka_unit_test(test_machine),
		cmocka_unit_test(test_checker),
		cmocka_unit_test(test_parser),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
