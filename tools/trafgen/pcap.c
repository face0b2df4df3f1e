/* Classic libpcap writer, nanosecond timestamps (see pcap.h). */
#include "pcap.h"

#include <errno.h>
#include <string.h>

#define PCAP_MAGIC_NS 0xa1b23c4d
#define PCAP_SNAPLEN 65535
#define LINKTYPE_ETHERNET 1

struct pcap_file_hdr {
	uint32_t magic;
	uint16_t major, minor;
	int32_t thiszone;
	uint32_t sigfigs, snaplen, linktype;
};

struct pcap_rec_hdr {
	uint32_t sec, nsec, caplen, len;
};

FILE *pcap_open(const char *path)
{
	struct pcap_file_hdr h = {
		.magic = PCAP_MAGIC_NS, .major = 2, .minor = 4,
		.snaplen = PCAP_SNAPLEN, .linktype = LINKTYPE_ETHERNET,
	};
	FILE *f = fopen(path, "wb");

	if (!f) {
		fprintf(stderr, "trafgen: --pcap %s: %s\n", path, strerror(errno));
		return NULL;
	}
	fwrite(&h, sizeof(h), 1, f);
	return f;
}

void pcap_write(FILE *f, uint64_t ts_ns, const uint8_t *frame, size_t len)
{
	struct pcap_rec_hdr r = {
		.sec = (uint32_t)(ts_ns / 1000000000), .nsec = (uint32_t)(ts_ns % 1000000000),
		.caplen = (uint32_t)(len < PCAP_SNAPLEN ? len : PCAP_SNAPLEN), .len = (uint32_t)len,
	};

	fwrite(&r, sizeof(r), 1, f);
	fwrite(frame, 1, r.caplen, f);
}

int pcap_close(FILE *f, const char *path)
{
	int bad = ferror(f);

	if (fclose(f) != 0 || bad) {
		fprintf(stderr, "trafgen: --pcap %s: write failed\n", path);
		return -1;
	}
	return 0;
}
