/* netconsole=: console messages as UDP to collectors (run/netconsole.c,
 * net/netcon.h for the form). */
#ifndef RUN_NETCONSOLE_H
#define RUN_NETCONSOLE_H
#include <stddef.h>
#include <stdint.h>

struct nic;
struct pkt;

/* Bit c: core c sends some target's datagrams (it owns the port's TX
 * queue 0); 0 when netconsole is off. */
extern volatile uint32_t netcon_cores;
/* Bit p: a target on port p waits for an ARP answer (netcon_rx looks at
 * the port's frames until it comes). */
extern volatile uint32_t netcon_arp_ports;
/* Keep n bytes of a message for every console (kernel/conout.c): carriage
 * returns, other control bytes and VT100 sequences are left out; what does
 * not fit a target's 16 KiB buffer is dropped and counted. Nothing when
 * off. Any core, any time (interrupts off inside). */
void netcon_put(const char *s, size_t n);
/* After lcore_place: check the ports netconsole= named exist, make the
 * datagrams' buffers and choose the cores; prints the boot report's
 * "netconsole:" line per target (or why it is not used). */
void netcon_apply(void);
/* Frames nic received, before its app takes them (only while its bit is
 * in netcon_arp_ports): an ARP packet from a target's address gives that
 * target's MAC. Reads the frames only. */
void netcon_rx(const struct nic *nic, struct pkt *const *pkts, int n);
/* On core (a bit of netcon_cores), once a turn of its loop: for the
 * targets it sends, ARP first when their MAC is unknown, then up to a few
 * datagrams of whole lines once the port's link is up and it has a source
 * address; never waits. Returns 1 while lines are left to send. */
int netcon_poll(int core);
/* The `console` command's lines for netconsole (nothing when off). */
void netcon_print(void);
#endif
