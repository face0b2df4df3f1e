/* lwIP's PBUF_RAM memory (MEM_USE_POOLS, lwipopts.h) as three pools of
 * fixed blocks instead of a first-fit heap: small segments and headers,
 * a full-MSS segment with its headers (1548 bytes), and ICMP echo replies
 * to reassembled datagrams (icmp.c copies the request into one PBUF_RAM
 * pbuf: 40 bytes of pbuf and link header, 8 of the pool's, the datagram
 * rounded up to 8). lwIP's pool element sizes are 16-bit: the largest
 * block, 65520 bytes and 8 of lwIP's, holds a datagram of 65480 bytes
 * (ping -s 65452); a longer one is not answered (lwIP's icmp_err). One token
 * block each here: net/lwip/pools.c refills them from free pages, sized
 * by rr_heap. */
LWIP_MALLOC_MEMPOOL_START
LWIP_MALLOC_MEMPOOL(1, 256)
LWIP_MALLOC_MEMPOOL(1, 1600)
LWIP_MALLOC_MEMPOOL(1, 65520)
LWIP_MALLOC_MEMPOOL_END
