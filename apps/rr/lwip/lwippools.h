/* lwIP's PBUF_RAM memory (MEM_USE_POOLS, lwipopts.h) as three pools of
 * fixed blocks instead of a first-fit heap: small segments and headers,
 * a full-MSS segment with its headers (1548 bytes), and ICMP echo replies
 * to reassembled datagrams up to 16 KiB. One token block each here:
 * apps/rr/rr_pools.c refills them from free pages, sized by rr_heap. */
LWIP_MALLOC_MEMPOOL_START
LWIP_MALLOC_MEMPOOL(1, 256)
LWIP_MALLOC_MEMPOOL(1, 1600)
LWIP_MALLOC_MEMPOOL(1, 16384)
LWIP_MALLOC_MEMPOOL_END
