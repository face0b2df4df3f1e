/*
 * Packet buffers: fixed-size slots carved from DMA memory, kept in per-pool
 * free stacks. A slot is PKT_SLOT bytes: struct pkt, headroom, then the
 * 2048-byte buffer the NIC writes (PKT_BUF_SIZE). Physical = virtual, so
 * pkt->data is also the DMA address. No allocation on the fast path: a pool
 * is filled once at init and buffers only move between it, the rings and
 * the apps.
 */
#ifndef PKT_H
#define PKT_H
#include <stdint.h>

#define PKT_BUF_SIZE 2048	/* bytes the NIC may write (RCTL.BSIZE 2048) */
#define PKT_HEADROOM 128
#define PKT_SLOT (PKT_HEADROOM + PKT_BUF_SIZE)
#define PKT_SMALL_SLOT 512	/* copybreak pool: frames <= 256 bytes */
#define PKT_SMALL_HEADROOM 128	/* its struct pkt and the room before its buffer */

/* struct pkt flags: receive results and transmit requests. */
#define PKT_RX_IP_CSUM_OK	(1u << 0)	/* hardware checked the IPv4 header checksum */
#define PKT_RX_IP_CSUM_BAD	(1u << 1)
#define PKT_RX_L4_CSUM_OK	(1u << 2)	/* hardware checked the TCP/UDP checksum */
#define PKT_RX_L4_CSUM_BAD	(1u << 3)
#define PKT_RX_TSTAMP		(1u << 4)	/* tstamp holds the hardware RX timestamp */
#define PKT_RX_RSS		(1u << 5)	/* rss_hash is valid */
#define PKT_RX_VLAN		(1u << 6)	/* the NIC took the 802.1Q tag off: vlan_tci holds it */
#define PKT_TX_TSTAMP		(1u << 8)	/* ask the NIC for a TX timestamp */
/* Checksum insertion by the NIC, where the port's nic->tx_csum says it
 * can: an IPv4 header of 20 bytes right after a 14-byte Ethernet header,
 * its checksum field 0 (PKT_TX_IP_CSUM); TCP or UDP right after it, its
 * checksum field holding the pseudo-header sum, not inverted
 * (PKT_TX_L4_CSUM; POPTS.TXSM in Intel's data descriptors). */
#define PKT_TX_IP_CSUM		(1u << 9)
#define PKT_TX_L4_CSUM		(1u << 10)
/* With PKT_TX_L4_CSUM, where nic->tx_csum6 says the driver can: the
 * packet is IPv6, a 40-byte fixed header after the Ethernet header and
 * TCP or UDP right after it, its checksum field holding the RFC 8200 8.1
 * pseudo-header sum, not inverted. */
#define PKT_TX_IP6		(1u << 11)
/* With PKT_TX_L4_CSUM: the L4 header is UDP (checksum field at offset 6,
 * Intel's L4T UDP), else TCP (offset 16). */
#define PKT_TX_UDP		(1u << 12)

struct pktpool;

/* One packet: metadata in front of its buffer. */
struct pkt {
	uint8_t *data;		/* first byte of the frame (no FCS) */
	uint16_t len;		/* frame bytes */
	uint16_t port;		/* port it arrived on */
	uint16_t queue;		/* RX queue it arrived on */
	uint16_t clones;	/* extra references (pktgen's clone_skb): pkt_free drops
				   one, and only a free at 0 returns the slot to its pool */
	uint16_t flags;		/* PKT_* */
	uint16_t vlan_tci;	/* the stripped tag's TCI (PCP, DEI, VID), when PKT_RX_VLAN */
	uint32_t rss_hash;
	uint64_t tstamp;	/* hardware timestamp, ns, when PKT_RX_TSTAMP */
	struct pktpool *pool;
	uint8_t *buf;		/* start of the buffer the NIC writes */
};

/* A pool of equal slots with a LIFO free stack. */
struct pktpool {
	const char *name;
	uint32_t size;		/* slots in all */
	uint32_t nfree;		/* slots on the free stack */
	uint32_t slot;		/* bytes per slot */
	uint32_t buf_size;	/* bytes of buffer per slot */
	uint64_t alloc_failed;	/* pkt_alloc calls that found the pool empty */
	int shared;		/* used by more than one core: alloc and free take lock */
	volatile int lock;
	uint8_t *mem;
	struct pkt **free;
};

/* Make a pool of n slots of slot bytes (PKT_SLOT or PKT_SMALL_SLOT).
 * Returns NULL if DMA memory ran out. */
struct pktpool *pktpool_create(const char *name, uint32_t n, uint32_t slot);
/* The same with every slot below limit (0 = anywhere): buffers for a
 * device that addresses only 32 bits. */
struct pktpool *pktpool_create_below(const char *name, uint32_t n, uint32_t slot, uint64_t limit);
/* Give a pool's memory back (NULL: nothing); every packet must be in it. */
void pktpool_destroy(struct pktpool *pool);
/* A fresh packet (len 0, data at the buffer start), or NULL if the pool is empty. */
struct pkt *pkt_alloc(struct pktpool *pool);
/* Up to n packets into out; returns how many. */
int pkt_alloc_bulk(struct pktpool *pool, struct pkt **out, int n);
/* Back to its own pool; with clones > 0 only one reference is dropped. */
void pkt_free(struct pkt *p);
/* pkt_free of p[0..n): one lock per run of packets from the same pool. */
void pkt_free_bulk(struct pkt **p, int n);

/* A pool whose port's queues are polled by more than one core is marked
 * shared at placement (run/lcore.c); its free stack is then guarded by a
 * spinlock. Pools used by one core (every pool with queues=1) take none. */
static inline void pktpool_lock(struct pktpool *pool)
{
	if (pool->shared)
		while (__atomic_exchange_n(&pool->lock, 1, __ATOMIC_ACQUIRE))
			__builtin_ia32_pause();
}
static inline void pktpool_unlock(struct pktpool *pool)
{
	if (pool->shared)
		__atomic_store_n(&pool->lock, 0, __ATOMIC_RELEASE);
}

static inline struct pkt *pkt_alloc_inline(struct pktpool *pool)
{
	pktpool_lock(pool);
	if (!pool->nfree) {
		pool->alloc_failed++;
		pktpool_unlock(pool);
		return 0;
	}
	struct pkt *p = pool->free[--pool->nfree];
	pktpool_unlock(pool);
	p->data = p->buf;
	p->len = 0;
	p->flags = 0;
	return p;
}

/* pkt_free inline, for fast paths outside the drivers (rr's netif). */
static inline void pkt_free_inline(struct pkt *p)
{
	if (p->clones) {
		p->clones--;
		return;
	}
	struct pktpool *pool = p->pool;
	pktpool_lock(pool);
	pool->free[pool->nfree++] = p;
	pktpool_unlock(pool);
}
#endif
