/* Fuzz net/bpf.c: the parser of tcpdump's -dd/-ddd text, the checker, and
 * the interpreter on what the checker accepts. Input: a mode byte, then
 *   mode even: program text, a NUL, the frame;
 *   mode odd:  a count byte n (1..64 instructions), n raw 8-byte
 *              instructions (struct bpf_insn, host order), the frame.
 * A checked program reads only inside the frame and M[], ends (libFuzzer's
 * timeout catches a loop), and a refusal names its instruction. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "net/bpf.h"

#define MAX 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct bpf_insn prog[MAX];
	const char *why = "";
	unsigned pc;
	int n;

	if (size < 2)
		return 0;
	if (data[0] % 2 == 0) {
		const uint8_t *nul = memchr(data + 1, 0, size - 1);
		size_t len = nul ? (size_t)(nul - data - 1) : size - 1;
		n = bpf_parse((const char *)data + 1, len, prog, MAX, &why);
		assert(n == -1 ? why != NULL : n >= 1 && n <= MAX);
		data += 1 + len + (nul != NULL);
		size -= 1 + len + (nul != NULL);
	} else {
		n = data[1] % MAX + 1;
		if (size < 2 + (size_t)n * sizeof(prog[0]))
			return 0;
		memcpy(prog, data + 2, (size_t)n * sizeof(prog[0]));
		data += 2 + (size_t)n * sizeof(prog[0]);
		size -= 2 + (size_t)n * sizeof(prog[0]);
	}
	if (n < 1)
		return 0;
	why = bpf_check(prog, (unsigned)n, &pc);
	if (why) {
		assert(pc < (unsigned)n);
		return 0;
	}
	/* A copy of exactly size bytes: ASan sees a read past the frame. */
	uint8_t *frame = malloc(size ? size : 1);
	memcpy(frame, data, size);
	bpf_run(prog, frame, (uint32_t)size);
	free(frame);
	return 0;
}
