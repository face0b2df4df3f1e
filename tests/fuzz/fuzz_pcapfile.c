/* Fuzz net/pcapfile.c: a file pcapfile_open accepts is walked by
 * pcapfile_next to its end, every record inside the file and as many as
 * open counted, none of 0 bytes or beyond 64 KiB; a refusal says why. */
#include <assert.h>
#include <string.h>
#include "net/pcapfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pcapfile f;
	struct pcapfile_cur c;
	struct pcapfile_rec r;
	char err[160] = "";

	if (pcapfile_open(&f, data, size, err, sizeof(err))) {
		assert(!strncmp(err, "offset ", 7));
		return 0;
	}
	uint64_t n = 0, bytes = 0;
	pcapfile_rewind(&f, &c);
	while (pcapfile_next(&f, &c, &r)) {
		assert(r.data >= data && r.data + r.caplen <= data + size);
		assert(r.caplen >= 1 && r.caplen <= PCAPFILE_FRAME_MAX);
		n++;
		bytes += r.caplen;
	}
	assert(n == f.frames && n >= 1 && bytes == f.bytes && c.off == size);
	return 0;
}
