/* 802.1Q tags on received frames and per-VLAN counts (net/vlan.h). */
#include <stdio.h>
#include <string.h>
#include "net/bytes.h"
#include "net/vlan.h"

void vlan_parse(const uint8_t *d, uint32_t len, struct vlan_tags *v)
{
	v->n = 0;
	v->l3 = 14;
	v->type = len < 14 ? 0 : (uint16_t)get16(d + 12);
	while (v->n < 2 && vlan_is_tpid(v->type) && v->l3 + VLAN_HLEN <= len) {
		v->tci[v->n++] = (uint16_t)get16(d + v->l3);
		v->type = (uint16_t)get16(d + v->l3 + 2);
		v->l3 += VLAN_HLEN;
	}
}

void vlan_count(struct vlan_table *t, const struct vlan_tags *v, uint32_t len)
{
	if (!v->n)
		return;
	uint16_t outer = v->tci[0] & 0xfff, inner = v->n > 1 ? v->tci[1] & 0xfff : VLAN_NONE;
	int i = 0;
	while (i < t->n && (t->e[i].outer != outer || t->e[i].inner != inner))
		i++;
	if (i == VLAN_TABLE_MAX) {
		t->full++;
		return;
	}
	if (i == t->n)
		t->e[t->n++] = (struct vlan_count){ .outer = outer, .inner = inner };
	t->e[i].frames++;
	t->e[i].bytes += len;
}

void vlan_table_print(const struct vlan_table *t, const char *prefix)
{
	for (int i = 0; i < t->n; i++) {
		const struct vlan_count *e = &t->e[i];
		if (e->inner == VLAN_NONE)
			printf("%s vlan %u: %llu frames %llu bytes\n", prefix, e->outer,
			       (unsigned long long)e->frames, (unsigned long long)e->bytes);
		else
			printf("%s svlan %u vlan %u: %llu frames %llu bytes\n", prefix, e->outer, e->inner,
			       (unsigned long long)e->frames, (unsigned long long)e->bytes);
	}
	if (t->full)
		printf("%s vlan_full: %llu frames (more than %d VLANs)\n", prefix, (unsigned long long)t->full,
		       VLAN_TABLE_MAX);
}
