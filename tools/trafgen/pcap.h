/* A classic libpcap file writer (nanosecond variant, linktype Ethernet),
 * for --pcap: Wireshark, tcpdump -r and scapy read it. */
#ifndef TRAFGEN_PCAP_H
#define TRAFGEN_PCAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Creates path and writes the file header. Returns the open file, or NULL
 * with a message on stderr. */
FILE *pcap_open(const char *path);

/* Appends one frame f[0..len) stamped ts_ns (ns since the Unix epoch). */
void pcap_write(FILE *f, uint64_t ts_ns, const uint8_t *frame, size_t len);

/* Closes the file. Returns 0, or -1 with a message on stderr if any write
 * failed. */
int pcap_close(FILE *f, const char *path);

#endif
