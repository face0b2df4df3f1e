/*
 * Classic BPF: parser of tcpdump's -dd/-ddd text, checker and interpreter
 * (bpf.h; Linux's Documentation/networking/filter.rst and net/core/filter.c).
 */
#include "net/bpf.h"
#include "kernel/fmt.h"
#include "net/bytes.h"

static int is_sep(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == '{' || c == '}';
}

/*
 * The next number of s[*i..n) into *v: 1 if one was read, 0 at the end,
 * -1 on a bad token.
 */
static int next_number(const char *s, size_t n, size_t *i, uint64_t *v)
{
	char tok[24];
	size_t len = 0;

	while (*i < n && is_sep(s[*i]))
		(*i)++;
	if (*i == n)
		return 0;
	while (*i < n && !is_sep(s[*i])) {
		if (len == sizeof(tok) - 1)
			return -1;
		tok[len++] = s[(*i)++];
	}
	tok[len] = 0;
	return parse_u64(tok, v) == 0 ? 1 : -1;
}

/* Field f (0 code, 1 jt, 2 jf, 3 k) of an instruction, or -1 if too large. */
static int set_field(struct bpf_insn *in, int f, uint64_t v)
{
	static const uint64_t lim[4] = { 0xffff, 0xff, 0xff, 0xffffffff };

	if (v > lim[f])
		return -1;
	if (f == 0)
		in->code = (uint16_t)v;
	else if (f == 1)
		in->jt = (uint8_t)v;
	else if (f == 2)
		in->jf = (uint8_t)v;
	else
		in->k = (uint32_t)v;
	return 0;
}

/*
 * Read every number of s[0..n); from the skip-th on, into prog's fields.
 * Returns how many numbers there are, or -1 with *why set.
 */
static long read_numbers(const char *s, size_t n, struct bpf_insn *prog, unsigned skip, const char **why)
{
	size_t i = 0;
	uint64_t v;
	long count = 0;
	int r;

	while ((r = next_number(s, n, &i, &v)) == 1) {
		if (prog && count >= skip && set_field(&prog[(count - skip) / 4], (count - skip) % 4, v) < 0) {
			*why = "a field too large (code 0..0xffff, jt and jf 0..255, k 32 bits)";
			return -1;
		}
		count++;
	}
	if (r < 0) {
		*why = "not a number (decimal or 0x hex, separated by spaces, commas or braces)";
		return -1;
	}
	return count;
}

int bpf_parse(const char *s, size_t n, struct bpf_insn *prog, unsigned max, const char **why)
{
	uint64_t first = 0;
	size_t i = 0;
	long count = read_numbers(s, n, NULL, 0, why);
	unsigned skip = count % 4 == 1; /* -ddd: the count comes first */

	if (count < 0)
		return -1;
	if (skip && (next_number(s, n, &i, &first) != 1 || first != (uint64_t)count / 4))
		skip = 2;
	if (count / 4 == 0 || count % 4 > 1 || skip == 2) {
		*why = "expected tcpdump -dd output ({ code, jt, jf, k } per instruction) "
		       "or -ddd output (the count, then code jt jf k per instruction)";
		return -1;
	}
	if ((unsigned long)count / 4 > max) {
		*why = "more instructions than a program may have";
		return -1;
	}
	if (read_numbers(s, n, prog, skip, why) < 0)
		return -1;
	return (int)(count / 4);
}

/* Linux's bpf_check_classic table of the opcodes a program may use. */
static int known_opcode(uint16_t c)
{
	switch (c) {
	case BPF_ALU | BPF_ADD | BPF_K: case BPF_ALU | BPF_ADD | BPF_X:
	case BPF_ALU | BPF_SUB | BPF_K: case BPF_ALU | BPF_SUB | BPF_X:
	case BPF_ALU | BPF_MUL | BPF_K: case BPF_ALU | BPF_MUL | BPF_X:
	case BPF_ALU | BPF_DIV | BPF_K: case BPF_ALU | BPF_DIV | BPF_X:
	case BPF_ALU | BPF_MOD | BPF_K: case BPF_ALU | BPF_MOD | BPF_X:
	case BPF_ALU | BPF_AND | BPF_K: case BPF_ALU | BPF_AND | BPF_X:
	case BPF_ALU | BPF_OR | BPF_K: case BPF_ALU | BPF_OR | BPF_X:
	case BPF_ALU | BPF_XOR | BPF_K: case BPF_ALU | BPF_XOR | BPF_X:
	case BPF_ALU | BPF_LSH | BPF_K: case BPF_ALU | BPF_LSH | BPF_X:
	case BPF_ALU | BPF_RSH | BPF_K: case BPF_ALU | BPF_RSH | BPF_X:
	case BPF_ALU | BPF_NEG:
	case BPF_LD | BPF_W | BPF_ABS: case BPF_LD | BPF_H | BPF_ABS: case BPF_LD | BPF_B | BPF_ABS:
	case BPF_LD | BPF_W | BPF_IND: case BPF_LD | BPF_H | BPF_IND: case BPF_LD | BPF_B | BPF_IND:
	case BPF_LD | BPF_W | BPF_LEN: case BPF_LD | BPF_W | BPF_MEM: case BPF_LD | BPF_IMM:
	case BPF_LDX | BPF_W | BPF_IMM: case BPF_LDX | BPF_W | BPF_MEM: case BPF_LDX | BPF_W | BPF_LEN:
	case BPF_LDX | BPF_B | BPF_MSH:
	case BPF_ST: case BPF_STX:
	case BPF_MISC | BPF_TAX: case BPF_MISC | BPF_TXA:
	case BPF_RET | BPF_K: case BPF_RET | BPF_A:
	case BPF_JMP | BPF_JA:
	case BPF_JMP | BPF_JEQ | BPF_K: case BPF_JMP | BPF_JEQ | BPF_X:
	case BPF_JMP | BPF_JGE | BPF_K: case BPF_JMP | BPF_JGE | BPF_X:
	case BPF_JMP | BPF_JGT | BPF_K: case BPF_JMP | BPF_JGT | BPF_X:
	case BPF_JMP | BPF_JSET | BPF_K: case BPF_JMP | BPF_JSET | BPF_X:
		return 1;
	}
	return 0;
}

/* The reason instruction pc of a len-instruction program may not run, or NULL. */
static const char *check_insn(const struct bpf_insn *in, unsigned pc, unsigned len)
{
	uint16_t c = in->code;

	if (!known_opcode(c))
		return "unknown opcode";
	if ((c == (BPF_ALU | BPF_DIV | BPF_K) || c == (BPF_ALU | BPF_MOD | BPF_K)) && in->k == 0)
		return "division by the constant 0";
	if ((c == (BPF_ALU | BPF_LSH | BPF_K) || c == (BPF_ALU | BPF_RSH | BPF_K)) && in->k >= 32)
		return "shift by a constant of 32 or more";
	if ((BPF_MODE(c) == BPF_MEM && (BPF_CLASS(c) == BPF_LD || BPF_CLASS(c) == BPF_LDX)) ||
	    BPF_CLASS(c) == BPF_ST || BPF_CLASS(c) == BPF_STX)
		if (in->k >= BPF_MEMWORDS)
			return "scratch memory index M[k] past 15";
	if ((BPF_CLASS(c) == BPF_LD && BPF_MODE(c) == BPF_ABS) || c == (BPF_LDX | BPF_B | BPF_MSH))
		if (in->k >= 0x80000000u)
			return "load at a negative offset (Linux's SKF_AD_*, SKF_NET_OFF, SKF_LL_OFF socket fields)";
	if (c == (BPF_JMP | BPF_JA) && in->k >= len - pc - 1)
		return "jump past the end";
	if (BPF_CLASS(c) == BPF_JMP && c != (BPF_JMP | BPF_JA) &&
	    (pc + in->jt + 1 >= len || pc + in->jf + 1 >= len))
		return "jump past the end";
	return NULL;
}

const char *bpf_check(const struct bpf_insn *prog, unsigned len, unsigned *pc)
{
	*pc = 0;
	if (len == 0 || len > BPF_MAXINSNS)
		return "length not 1..4096 instructions";
	for (*pc = 0; *pc < len; (*pc)++) {
		const char *why = check_insn(&prog[*pc], *pc, len);
		if (why)
			return why;
	}
	*pc = len - 1;
	if (BPF_CLASS(prog[len - 1].code) != BPF_RET)
		return "the last instruction is not a RET";
	return NULL;
}

/*
 * The size-byte big-endian value at offset off of the frame into *v; -1 if
 * it does not lie wholly inside.
 */
static int load(const uint8_t *pkt, uint32_t len, uint32_t off, uint32_t size, uint32_t *v)
{
	if (off >= len || len - off < size)
		return -1;
	*v = size == 4 ? get32(pkt + off) : size == 2 ? get16(pkt + off) : pkt[off];
	return 0;
}

/* A op operand for the ALU instruction c; -1 on a division by 0. */
static int alu(uint16_t c, uint32_t *a, uint32_t v)
{
	switch (BPF_OP(c)) {
	case BPF_ADD: *a += v; break;
	case BPF_SUB: *a -= v; break;
	case BPF_MUL: *a *= v; break;
	case BPF_DIV: if (v == 0) return -1; *a /= v; break;
	case BPF_MOD: if (v == 0) return -1; *a %= v; break;
	case BPF_AND: *a &= v; break;
	case BPF_OR: *a |= v; break;
	case BPF_XOR: *a ^= v; break;
	case BPF_LSH: *a <<= v & 31; break;
	case BPF_RSH: *a >>= v & 31; break;
	default: *a = -*a; break; /* BPF_NEG */
	}
	return 0;
}

/* Whether the conditional jump c holds for A and operand v (JA: always). */
static int jump_taken(uint16_t c, uint32_t a, uint32_t v)
{
	switch (BPF_OP(c)) {
	case BPF_JEQ: return a == v;
	case BPF_JGT: return a > v;
	case BPF_JGE: return a >= v;
	case BPF_JSET: return (a & v) != 0;
	}
	return 1;
}

uint32_t bpf_run(const struct bpf_insn *prog, const uint8_t *pkt, uint32_t len)
{
	static const uint8_t size[] = { [BPF_W >> 3] = 4, [BPF_H >> 3] = 2, [BPF_B >> 3] = 1 };
	uint32_t a = 0, x = 0, v, mem[BPF_MEMWORDS] = { 0 };

	for (const struct bpf_insn *in = prog;; in++) {
		uint16_t c = in->code;
		uint32_t src = BPF_SRC(c) == BPF_X ? x : in->k;

		switch (BPF_CLASS(c)) {
		case BPF_LD:
			if (BPF_MODE(c) == BPF_IMM) a = in->k;
			else if (BPF_MODE(c) == BPF_MEM) a = mem[in->k];
			else if (BPF_MODE(c) == BPF_LEN) a = len;
			else if (load(pkt, len, BPF_MODE(c) == BPF_IND ? x + in->k : in->k, size[BPF_SIZE(c) >> 3], &a))
				return 0;
			break;
		case BPF_LDX:
			if (BPF_MODE(c) == BPF_IMM) x = in->k;
			else if (BPF_MODE(c) == BPF_MEM) x = mem[in->k];
			else if (BPF_MODE(c) == BPF_LEN) x = len;
			else if (load(pkt, len, in->k, 1, &v)) /* BPF_MSH: the IPv4 header length */
				return 0;
			else
				x = 4 * (v & 0xf);
			break;
		case BPF_ST: mem[in->k] = a; break;
		case BPF_STX: mem[in->k] = x; break;
		case BPF_ALU:
			if (alu(c, &a, src))
				return 0;
			break;
		case BPF_JMP:
			if (BPF_OP(c) == BPF_JA) in += in->k;
			else in += jump_taken(c, a, src) ? in->jt : in->jf;
			break;
		case BPF_RET: return BPF_RVAL(c) == BPF_A ? a : in->k;
		default: if (BPF_MISCOP(c) == BPF_TAX) x = a; else a = x; break;
		}
	}
}
