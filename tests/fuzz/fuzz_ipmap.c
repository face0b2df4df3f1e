/* Fuzz net/ipmap.c: input = a mode byte (bit 0: tcprewrite's --pnat, one
 * map; else --srcipmap/--dstipmap), two NUL-ended map strings, a frame.
 * A map is refused naming the accepted forms, or parses into one that
 * ipmap_show writes back as a string that parses into the same map.
 * Rewriting the frame (in a buffer of its exact size) changes only its
 * addresses and the checksums over them; the return counts the addresses
 * that changed; an IPv4 header checksum, and a TCP/UDP/ICMPv6 checksum of
 * a whole datagram, right before are right after. The harness finds the
 * pseudo-header's destination itself: a Routing header's final address
 * (types 0 and 2: the last; 4: Segment List[0]) when Segments Left is not
 * 0 (RFC 8200 8.1), which net/ipmap.c never looks for. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "net/bytes.h"
#include "net/ipmap.h"
#include "net/ipv4.h"
#include "net/ipv6.h"
#include "net/vlan.h"

/* Where the frame's rewritable fields are, as the harness reads them. */
struct view {
	uint32_t addr[2], alen;	/* the two addresses' offsets (alen 0: none) */
	uint32_t hsum;		/* IPv4 header checksum's offset, 0: none */
	uint32_t ihl;		/* IPv4 header's length when sound, else 0 */
	uint32_t l4, lsum;	/* the upper-layer header's and its checksum's offsets, lsum 0: none */
	uint32_t l4len;		/* the datagram's length when whole in the frame, else 0 */
	uint8_t proto;
	const uint8_t *final;	/* IPv6: the pseudo-header's destination when not the header's */
};

static uint32_t sum_at(uint8_t proto, int v6)
{
	return proto == 6 ? 16 : proto == 17 ? 6 : proto == 58 && v6 ? 2 : 0;
}

/* The IPv6 upper-layer header: offset or 0; final destination if routed. */
static uint32_t v6_l4(const uint8_t *ip, uint32_t len, uint8_t *proto, const uint8_t **final)
{
	uint32_t off = 40;
	uint8_t nh = ip[6];
	*final = NULL;
	for (;;) {
		if (nh != 0 && nh != 43 && nh != 44 && nh != 60 && nh != 51)
			break;
		if (off + 8 > len)
			return 0;
		const uint8_t *h = ip + off;
		uint32_t hl = nh == 44 ? 8 : nh == 51 ? (h[1] + 2u) * 4 : (h[1] + 1u) * 8;
		if (nh == 44 && get16(h + 2) >> 3)
			return 0;
		if (nh == 43 && h[3]) {
			uint32_t n = h[1] / 2;	/* addresses of 16 bytes */
			int known = (h[2] == 0 || h[2] == 2 || h[2] == 4) && n && off + hl <= len;
			*final = !known ? ip : h[2] == 4 ? h + 8 : h + 8 + 16 * (n - 1);
		}
		off += hl;
		nh = h[0];
	}
	*proto = nh;
	return off <= len ? off : 0;
}

/* The upper-layer checksum's place (at: its offset in the datagram, 0:
 * none) when inside the frame; the datagram when whole (tot: where the IP
 * header says it ends, in frame bytes from ip). */
static void upper(struct view *w, uint32_t l3, uint32_t room, uint32_t off, uint32_t at, uint32_t tot)
{
	if (!at || off + at + 2 > room)
		return;
	w->l4 = l3 + off;
	w->lsum = w->l4 + at;
	if (tot <= room && tot >= off + at + 2)
		w->l4len = tot - off;
}

static void look(const uint8_t *f, uint32_t len, int pnat, struct view *w)
{
	struct vlan_tags v;
	memset(w, 0, sizeof(*w));
	vlan_parse(f, len, &v);
	const uint8_t *ip = f + v.l3;
	uint32_t room = len >= v.l3 ? len - v.l3 : 0;
	if (v.type == ETHERTYPE_IPV4 && room >= 20 && ip[0] >> 4 == 4) {
		w->addr[0] = v.l3 + 12;
		w->addr[1] = v.l3 + 16;
		w->alen = 4;
		w->hsum = v.l3 + 10;	/* fixed whatever the IHL */
		w->ihl = (ip[0] & 15) * 4u;
		if (w->ihl < 20 || w->ihl > room) {
			w->ihl = 0;
			return;
		}
		w->proto = ip[9];
		if (!(get16(ip + 6) & IPV4_OFFSET))
			upper(w, v.l3, room, w->ihl, sum_at(w->proto, 0), get16(ip + 2));
	} else if (v.type == ETHERTYPE_IPV6 && room >= 40 && ip[0] >> 4 == 6) {
		w->addr[0] = v.l3 + 8;
		w->addr[1] = v.l3 + 24;
		w->alen = 16;
		uint32_t tot = 40 + get16(ip + 4);
		uint32_t off = v6_l4(ip, tot < room ? tot : room, &w->proto, &w->final);
		if (off)
			upper(w, v.l3, room, off, sum_at(w->proto, 1), w->final == ip ? room + 1 : tot);
	} else if (pnat && v.type == ETHERTYPE_ARP && room >= 8 && get16(ip + 2) == 0x0800 && ip[5] == 4 &&
		   (get16(ip + 6) == 1 || get16(ip + 6) == 2) && 8u + 2u * (ip[4] + 4u) <= room) {
		w->addr[0] = v.l3 + 8 + ip[4];
		w->addr[1] = v.l3 + 8 + 2u * ip[4] + 4;
		w->alen = 4;
	}
}

/* Whether the datagram's checksum is right with the addresses in f. */
static int l4_ok(const uint8_t *f, const struct view *w)
{
	uint8_t ph[40] = { 0 };
	uint32_t a = w->alen;
	if (w->proto == 17 && !get16(f + w->lsum))
		return 1;
	memcpy(ph, f + w->addr[0], a);
	memcpy(ph + a, w->final ? w->final : f + w->addr[1], a);
	put32(ph + 2 * a, w->l4len);
	ph[2 * a + 7] = w->proto;
	return inet_csum_fold(inet_sum(f + w->l4, w->l4len) + inet_sum(ph, 2 * a + 8)) == 0;
}

/* A map from the NUL-ended string at *p (n bytes left); NULL when refused. */
static const struct ipmap *map(const uint8_t **p, size_t *n, struct ipmap *m)
{
	const uint8_t *end = memchr(*p, 0, *n);
	char err[256] = "", shown[512];
	if (!end)
		return NULL;
	const char *s = (const char *)*p;
	*n -= (size_t)(end - *p) + 1;
	*p = end + 1;
	if (ipmap_parse(m, s, err, sizeof(err))) {
		assert(strstr(err, "accepted: ") || strstr(err, "(accepted: "));
		return NULL;
	}
	struct ipmap again;
	ipmap_show(m, shown, sizeof(shown));
	assert(!ipmap_parse(&again, shown, err, sizeof(err)));
	assert(again.n == m->n);
	for (int i = 0; i < m->n; i++) {
		const struct ipmap_pair *x = &m->p[i], *y = &again.p[i];
		assert(x->alen == y->alen && x->from_len == y->from_len && x->to_len == y->to_len);
		assert(!memcmp(x->from, y->from, x->alen) && !memcmp(x->to, y->to, x->alen));
	}
	return m;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ipmap m1, m2;
	if (size < 1)
		return 0;
	int pnat = data[0] & 1;
	const uint8_t *p = data + 1;
	size_t n = size - 1;
	const struct ipmap *src = map(&p, &n, &m1);
	const struct ipmap *dst = pnat ? src : map(&p, &n, &m2);
	if (!src || !dst)
		return 0;
	uint8_t *f = malloc(n ? n : 1), *before = malloc(n ? n : 1);
	memcpy(f, p, n);
	memcpy(before, p, n);
	struct view w;
	look(f, (uint32_t)n, pnat, &w);
	int hsum_ok = w.ihl && !inet_csum(f + w.hsum - 10, w.ihl);
	int lsum_ok = w.l4len && l4_ok(f, &w);
	uint16_t lsum = w.lsum ? (uint16_t)get16(f + w.lsum) : 0;

	int changed = pnat ? ipmap_pnat(src, f, (uint32_t)n) : ipmap_rewrite(src, dst, f, (uint32_t)n);

	int differ = 0;
	for (int d = 0; d < 2 && w.alen; d++)
		differ += !!memcmp(f + w.addr[d], before + w.addr[d], w.alen);
	assert(changed == differ);
	for (uint32_t i = 0; i < n; i++) {	/* nothing else moved */
		int field = (w.alen && ((i >= w.addr[0] && i < w.addr[0] + w.alen) ||
					(i >= w.addr[1] && i < w.addr[1] + w.alen))) ||
			    (w.hsum && i >= w.hsum && i < w.hsum + 2) || (w.lsum && i >= w.lsum && i < w.lsum + 2);
		assert(field || f[i] == before[i]);
	}
	if (hsum_ok)
		assert(!inet_csum(f + w.hsum - 10, w.ihl));
	if (lsum_ok)
		assert(l4_ok(f, &w));
	if (w.lsum && w.proto == 17)
		assert(!lsum == !get16(f + w.lsum));	/* 0 (none) stays 0, a sum never becomes 0 */
	free(f);
	free(before);
	return 0;
}
