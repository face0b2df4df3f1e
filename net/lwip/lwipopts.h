/*
 * lwIP 2.1.3 options of net/lwip, under apps rr and mgmt (lwIP's src/include/lwip/opt.h documents
 * each): NO_SYS raw API on one core, dual-stack: IPv4 with ARP, IPv6 with ND,
 * MLD and SLAAC, ICMP and ICMPv6 echo, UDP and TCP over both.
 * The heap and the pools that grow with load (TCP PCBs, segments, pbuf
 * headers) are sized by knobs at init (net/lwip/pools.c): here they get
 * token sizes only.
 */
#ifndef LWIPOPTS_H
#define LWIPOPTS_H

#define NO_SYS			1
#define SYS_LIGHTWEIGHT_PROT	0
#define LWIP_SOCKET		0
#define LWIP_NETCONN		0
#define LWIP_IPV4		1
#define LWIP_IPV6		1
/* IPv6 (RFC 8200): per netif the link-local address (slot 0), the global
 * ones of ipN= (IFADDR6_MAX) and one SLAAC address (ipN=...,auto);
 * Neighbor Discovery (RFC 4861) with DAD (RFC 4862 5.4, one probe, as
 * Linux's dad_transmits); MLDv1 reports (RFC 2710) for the solicited-node
 * groups, which the netif also joins in the NIC's filter (mld_mac_filter);
 * RS at start and prefixes from RAs when SLAAC is on. No DHCPv6. */
#define LWIP_IPV6_NUM_ADDRESSES	6
#define LWIP_IPV6_MLD		1
#define LWIP_ICMP6		1
#define LWIP_IPV6_AUTOCONFIG	1
#define LWIP_IPV6_SEND_ROUTER_SOLICIT 1
#define LWIP_IPV6_DUP_DETECT_ATTEMPTS 1
#define LWIP_IPV6_DHCP6		0
#define LWIP_IPV6_REASS		1
/* A datagram's fragments are held 3 s, as IPv4's (IP_REASS_MAXAGE), not
 * RFC 8200 4.5's 60 s: they are received buffers of the port's pool; at
 * most IP_REASS_MAX_PBUFS frames in all, as for IPv4. */
#define IPV6_REASS_MAXAGE	3
/* Reassembly keeps its 12-byte helper (a 64-bit pointer and two offsets)
 * where a fragment's 8-byte Fragment header was: without this it wrote 4
 * bytes into the fragment's data, and a fragmented datagram never came
 * together (lwIP's assertion is off, LWIP_NOASSERT). With it the helper
 * takes 4 bytes of the IPv6 header before it, kept in a copy (lwIP
 * ip6_frag.h: "for platforms where sizeof(void*) > 4"). */
#define IPV6_FRAG_COPYHEADER	1
#define LWIP_IPV6_FRAG		1
#define LWIP_ND6_NUM_NEIGHBORS	64
#define LWIP_ND6_NUM_DESTINATIONS 64
#define LWIP_ND6_QUEUEING	1
/* No reachability hint from every TCP ACK (a neighbor and destination
 * cache search per segment): a neighbor's entry goes stale after its
 * reachable time and ND's probe confirms it (RFC 4861 7.3.3). */
#define LWIP_ND6_TCP_REACHABILITY_HINTS 0
#define MEMP_NUM_ND6_QUEUE	64
#define MEMP_NUM_MLD6_GROUP	(4 * (LWIP_IPV6_NUM_ADDRESSES + 1))
#define ND6_STATS		1
#define IP6_STATS		1
#define ICMP6_STATS		1
#define MLD6_STATS		1
#define IP6_FRAG_STATS		1
#define LWIP_ARP		1
#define LWIP_ETHERNET		1
#define LWIP_ICMP		1
#define LWIP_RAW		0
#define LWIP_UDP		1
#define LWIP_TCP		1
#define LWIP_DHCP		1	/* the management port's ipN=dhcp (apps/mgmt/dhcp.c) */
#define LWIP_AUTOIP		0
#define LWIP_IGMP		0
#define LWIP_DNS		0
#define LWIP_NETIF_STATUS_CALLBACK 0
#define LWIP_NETIF_LINK_CALLBACK 0
#define LWIP_SINGLE_NETIF	0
#define LWIP_ERRNO_STDINCLUDE	1
#define LWIP_TIMERS		1

/* Memory: the heap (PBUF_RAM: TCP segments waiting for their ACK, ICMP
 * replies) and the fixed pools. 4 bytes of alignment is not enough for
 * x86_64 pointers in pool elements. */
#define MEM_ALIGNMENT		8
/* The "heap" (PBUF_RAM: segments awaiting their ACK, small responses,
 * ICMP replies) is three pools of fixed blocks (lwippools.h), rr_heap KiB
 * in all from free pages at init (net/lwip/pools.c): a pool takes and
 * gives back a block in a few instructions, where a first-fit heap walks
 * the blocks in use (many, with 128 connections). */
#define MEM_USE_POOLS		1
/* Unused with MEM_USE_POOLS but for its type: above 64000, mem_size_t is
 * 32-bit. A 16-bit one wraps in mem_malloc (size + 8 for the pool's
 * helper): a request of 65528-65535 bytes (the copy of a reassembled echo
 * request of 65481-65488) became one of 0-7 and got a 256-byte block. */
#define MEM_SIZE		(1024 * 1024)
#define MEMP_USE_CUSTOM_POOLS	1
#define MEM_USE_POOLS_TRY_BIGGER_POOL 1
/* Token sizes, refilled at init: the PCBs the app asks for, rr_pbufs segments and
 * PBUF_ROM/REF headers (responses sent without a copy). */
#define MEMP_NUM_TCP_PCB	1
#define MEMP_NUM_TCP_SEG	TCP_SND_QUEUELEN
#define MEMP_NUM_PBUF		1
#define MEMP_NUM_TCP_PCB_LISTEN	8
#define MEMP_NUM_UDP_PCB	8
#define MEMP_NUM_REASSDATA	16
#define MEMP_NUM_FRAG_PBUF	16
#define MEMP_NUM_ARP_QUEUE	64
/* No PBUF_POOL is used (received frames are custom pbufs, and lwIP
 * allocates none itself): the fewest that lwIP's sanity check accepts
 * with TCP_WND (8 of 1536 bytes), 12 KB of image instead of 24 KB. */
#define PBUF_POOL_SIZE		8
#define PBUF_POOL_BUFSIZE	1536
#define ARP_TABLE_SIZE		64
#define ARP_QUEUEING		1
#define ETHARP_SUPPORT_STATIC_ENTRIES 0

/* IPv4: fragments are reassembled (at most IP_REASS_MAX_PBUFS frames held,
 * for IP_REASS_MAXAGE seconds: a datagram of 65535 bytes in 1500-byte
 * frames is 45); what is longer than the MTU is sent in fragments (an echo
 * reply to a reassembled request; TCP segments never are). */
#define IP_REASSEMBLY		1
#define IP_FRAG			1
#define IP_REASS_MAX_PBUFS	48
#define IP_REASS_MAXAGE		3
#define IP_DEFAULT_TTL		64

/* TCP: Linux-like window and buffers for 1 KiB request-response; out of
 * order segments are dropped, so no received frame is held by TCP. */
#define TCP_MSS			1460
#define TCP_WND			(8 * TCP_MSS)
#define TCP_SND_BUF		(16 * TCP_MSS)
#define TCP_SND_QUEUELEN	64
#define TCP_OVERSIZE		0	/* a small response's pbuf is its size (no trim at output) */
#define TCP_QUEUE_OOSEQ		0
#define TCP_LISTEN_BACKLOG	0
#define LWIP_TCP_KEEPALIVE	0
#define TCP_MSL			1000UL	/* TIME-WAIT lasts 2 s */
#define LWIP_TCP_TIMESTAMPS	0
#define LWIP_WND_SCALE		0

/* Received checksums: the netif turns checking off per frame for what the
 * NIC verified (PKT_RX_*_CSUM_OK). Sent checksums are computed by lwIP,
 * with the inline sum of arch/chksum.h (LWIP_CHKSUM, arch/cc.h). */
#define LWIP_CHECKSUM_CTRL_PER_NETIF 1
#define LWIP_CHECKSUM_ON_COPY	0

/* Counters for the rr command: lwIP's per-protocol errors and pool use. */
#define LWIP_STATS		1
#define LWIP_STATS_DISPLAY	0
#define LWIP_STATS_LARGE	1	/* 32-bit counters */
#define LINK_STATS		1
#define ETHARP_STATS		1
#define IP_STATS		1
#define IPFRAG_STATS		1
#define ICMP_STATS		1
#define UDP_STATS		1
#define TCP_STATS		1
#define MEM_STATS		0	/* the heap pools' own counters instead (the rr command, apps/rr/rr_show.c) */
#define MEMP_STATS		1
#define SYS_STATS		0

#define LWIP_NETIF_TX_SINGLE_PBUF 0
#define LWIP_SUPPORT_CUSTOM_PBUF 1	/* zero-copy receive (net/lwip/netif.c) */
#define LWIP_NOASSERT_ON_ERROR	0

/* Counting what lwIP drops silently (hooks.h). */
#define LWIP_HOOK_FILENAME	"hooks.h"
#define LWIP_HOOK_TCP_INPACKET_PCB lwif_tcp_inpacket

/* kernel/mem.c has a mem_init of its own: lwIP's heap set-up is renamed. */
#define mem_init lwip_mem_init
#endif
