/*
 * Classic BPF (cBPF): the filters tcpdump compiles, run on a frame with the
 * semantics of Linux's socket filters (Documentation/networking/filter.rst,
 * net/core/filter.c). The host compiles (`tcpdump -dd 'udp port 319'`),
 * bpf_parse reads that text, bpf_check refuses what Linux's
 * bpf_check_classic refuses, and bpf_run returns how many bytes of the frame
 * to keep (0: no match).
 *
 * Machine: 32-bit accumulator A and index X, 16 words of scratch memory M[]
 * (zero at the start of each run: Linux refuses a program that may read a
 * word before writing it; here such a program reads 0), packet loads in
 * network byte order. Differences from Linux, all for programs tcpdump does
 * not write for a capture file:
 *   - absolute loads at negative offsets (Linux's ancillary SKF_AD_*
 *     fields, SKF_NET_OFF, SKF_LL_OFF: socket metadata) are refused by
 *     bpf_check; an indexed load whose X + k (32-bit sum) is negative is
 *     past the frame;
 *   - a shift by X of 32 or more shifts by X & 31 (what x86 does; Linux
 *     leaves it to the CPU), a shift by a constant of 32 or more is refused
 *     as in Linux.
 * A load past the end of the frame, a division or modulo by X = 0, end the
 * run with 0 (no match), as in Linux.
 */
#ifndef NET_BPF_H
#define NET_BPF_H
#include <stddef.h>
#include <stdint.h>

/* One instruction: Linux's struct sock_filter (linux/filter.h). */
struct bpf_insn {
	uint16_t code; /* class | size/op | mode/src */
	uint8_t jt;    /* conditional jumps: forward offset if true */
	uint8_t jf;    /* ... if false */
	uint32_t k;    /* constant operand */
};

/* Longest program accepted (Linux's BPF_MAXINSNS). */
#define BPF_MAXINSNS 4096
/* Scratch memory words (Linux's BPF_MEMWORDS). */
#define BPF_MEMWORDS 16

/* Instruction classes and fields (linux/bpf_common.h, linux/filter.h). */
#define BPF_CLASS(c) ((c) & 0x07)
#define BPF_LD 0x00
#define BPF_LDX 0x01
#define BPF_ST 0x02
#define BPF_STX 0x03
#define BPF_ALU 0x04
#define BPF_JMP 0x05
#define BPF_RET 0x06
#define BPF_MISC 0x07
#define BPF_SIZE(c) ((c) & 0x18)
#define BPF_W 0x00
#define BPF_H 0x08
#define BPF_B 0x10
#define BPF_MODE(c) ((c) & 0xe0)
#define BPF_IMM 0x00
#define BPF_ABS 0x20
#define BPF_IND 0x40
#define BPF_MEM 0x60
#define BPF_LEN 0x80
#define BPF_MSH 0xa0
#define BPF_OP(c) ((c) & 0xf0)
#define BPF_ADD 0x00
#define BPF_SUB 0x10
#define BPF_MUL 0x20
#define BPF_DIV 0x30
#define BPF_OR 0x40
#define BPF_AND 0x50
#define BPF_LSH 0x60
#define BPF_RSH 0x70
#define BPF_NEG 0x80
#define BPF_MOD 0x90
#define BPF_XOR 0xa0
#define BPF_JA 0x00
#define BPF_JEQ 0x10
#define BPF_JGT 0x20
#define BPF_JGE 0x30
#define BPF_JSET 0x40
#define BPF_SRC(c) ((c) & 0x08)
#define BPF_K 0x00
#define BPF_X 0x08
#define BPF_RVAL(c) ((c) & 0x18)
#define BPF_A 0x10
#define BPF_MISCOP(c) ((c) & 0xf8)
#define BPF_TAX 0x00
#define BPF_TXA 0x80

/*
 * Read a program from the text tcpdump prints: -dd (`{ 0x28, 0, 0,
 * 0x0000000c },` per instruction) or -ddd (the count, then `40 0 0 12` per
 * instruction; also iptables' `-m bpf --bytecode` form with commas).
 * Numbers are decimal or 0x hex; braces, commas and white space separate
 * them. s need not end in NUL: n bytes are read. Fills prog[0..max).
 * Returns the number of instructions, or -1 with *why the reason (a bad
 * number, a field too large, a count that fits neither form, more than
 * max). The program still needs bpf_check.
 */
int bpf_parse(const char *s, size_t n, struct bpf_insn *prog, unsigned max, const char **why);

/*
 * Check a program as Linux's bpf_check_classic does: 1..BPF_MAXINSNS
 * instructions, each a known opcode; no division or modulo by a constant
 * 0; shifts by a constant below 32; M[] indices below BPF_MEMWORDS; every
 * jump forward and landing inside the program; the last instruction a
 * RET; no absolute load at a negative offset (see above). Returns NULL if the
 * program may be given to bpf_run, else the reason, with *pc the index of
 * the instruction at fault.
 */
const char *bpf_check(const struct bpf_insn *prog, unsigned len, unsigned *pc);

/*
 * Run a checked program on the len bytes at pkt (BPF_LEN loads len).
 * Returns the RET value: the number of bytes to keep, 0 for no match
 * (also when a load falls past the frame or X is 0 in a division).
 */
uint32_t bpf_run(const struct bpf_insn *prog, const uint8_t *pkt, uint32_t len);

#endif
