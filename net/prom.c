/* The Prometheus text builder (prom.h). */
#include <stdarg.h>
#include <stdio.h>
#include "net/prom.h"
#include "drivers/net/nic.h"

void prom_end_line(struct prom *o, size_t start)
{
	if (o->cut)
		o->used = start;
	o->b[o->used] = 0;
}

void prom_begin(struct prom *o, struct prom_layout *lay)
{
	o->lay = lay;
	o->replay = lay->valid;
	o->mismatch = o->overflow = 0;
	o->slot = 0;
	o->val_end = o->used;
	if (!lay->valid)
		lay->nslot = 0;
}

/* Copy n bytes 64 at a time (a stretch is ~60 bytes): d has room and s is
 * readable for n + 63 (PROM_SLACK). */
static inline void copy_words(char *d, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i += 64)
		memcpy(d + i, s + i, 64);
}

/* Replay: the stretch of recorded text before the next sample, which must
 * be name{v1,v2}; 0, or -1 (mismatch, or cut: nothing more is written). */
static inline __attribute__((always_inline)) int replay_pre(struct prom *o, const char *name, const char *v1,
							     const char *v2, size_t vlen)
{
	struct prom_layout *l = o->lay;
	if (o->mismatch || o->cut)
		return -1;
	const struct prom_slot *s = &l->slot[o->slot];
	if (o->slot >= l->nslot || s->name != name || s->v1 != v1 || s->v2 != v2) {
		o->mismatch = 1;
		return -1;
	}
	if (s->pre_len + vlen + PROM_SLACK + 1 > o->len - o->used) {	/* 1 for the last newline */
		o->cut = 1;
		if (o->slot)	/* after the previous value: its line ends */
			o->b[o->used++] = '\n';
		return -1;
	}
	copy_words(o->b + o->used, l->text + s->pre_off, s->pre_len);
	o->used += s->pre_len;
	o->slot++;
	return 0;
}

/* Recording: a sample whose value's text is b[start, end). */
static void record(struct prom *o, const char *name, const char *v1, const char *v2, size_t start, size_t end)
{
	struct prom_layout *l = o->lay;
	if (!l || o->cut)
		return;
	if (l->nslot == l->max_slot) {
		o->overflow = 1;
		return;
	}
	l->slot[l->nslot++] = (struct prom_slot){ name, v1, v2, (uint32_t)o->val_end, (uint32_t)(start - o->val_end) };
	o->val_end = end;
}

int prom_finish(struct prom *o)
{
	struct prom_layout *l = o->lay;
	if (o->replay) {
		if (o->mismatch || (!o->cut && o->slot != l->nslot)) {
			l->valid = 0;
			return -1;
		}
		if (!o->cut && l->tail_len + 1 <= o->len - o->used) {
			memcpy(o->b + o->used, l->text + l->tail_off, l->tail_len);
			o->used += l->tail_len;
		} else {
			o->cut = 1;
		}
		o->b[o->used] = 0;
		return 0;
	}
	l->valid = !o->cut && !o->overflow && o->used + PROM_SLACK <= l->cap;
	if (l->valid) {
		memcpy(l->text, o->b, o->used);
		l->tail_off = (uint32_t)o->val_end;
		l->tail_len = (uint32_t)(o->used - o->val_end);
	}
	return 0;
}

const char *prom_dec(char *buf, uint64_t v)
{
	char *p = buf + 20;
	*p = 0;
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	return p;
}

const char *prom_fixed(char *buf, uint64_t n, uint64_t scale)
{
	char f[PROM_NUM_MAX];
	char *p = (char *)prom_dec(buf, n / scale);
	size_t i = strlen(p);
	memmove(buf, p, i);
	buf[i++] = '.';
	strcpy(buf + i, prom_dec(f, scale + n % scale) + 1);	/* the leading 1 keeps the zeros */
	return buf;
}

const char *prom_seconds(char *buf, int64_t ns)
{
	if (ns >= 0)
		return prom_fixed(buf, (uint64_t)ns, 1000000000);
	buf[0] = '-';
	prom_fixed(buf + 1, -(uint64_t)ns, 1000000000);
	return buf;
}

const char *prom_int(char *buf, int64_t v)
{
	if (v >= 0)
		return prom_dec(buf, (uint64_t)v);
	char *p = (char *)prom_dec(buf + 1, -(uint64_t)v);
	*--p = '-';
	return p;
}

void prom_family(struct prom *o, const char *name, const char *type, const char *help)
{
	size_t start = o->used;
	if (o->cut || o->replay)	/* replayed: part of the next sample's recorded text */
		return;
	prom_add(o, "# HELP linerate_");
	prom_add(o, name);
	prom_add(o, " ");
	prom_add(o, help);
	prom_add(o, "\n# TYPE linerate_");
	prom_add(o, name);
	prom_add(o, " ");
	prom_add(o, type);
	prom_add(o, "\n");
	prom_end_line(o, start);
}

/* A sample line whose value is value's vlen bytes. */
static void sample(struct prom *o, const char *name, const char *k1, const char *v1, const char *k2,
		   const char *v2, const char *value, size_t vlen)
{
	if (o->replay) {
		if (replay_pre(o, name, v1, v2, vlen))
			return;
		for (size_t i = 0; i < vlen; i++)
			o->b[o->used + i] = value[i];
		o->used += vlen;
		return;
	}
	size_t start = o->used, vstart;
	if (o->cut)
		return;
	prom_add(o, "linerate_");
	prom_add(o, name);
	if (k1) {
		prom_add(o, "{");
		prom_add(o, k1);
		prom_add(o, "=\"");
		prom_add(o, v1);
		if (k2) {
			prom_add(o, "\",");
			prom_add(o, k2);
			prom_add(o, "=\"");
			prom_add(o, v2);
		}
		prom_add(o, "\"}");
	}
	prom_add(o, " ");
	vstart = o->used;
	prom_add(o, value);
	size_t vend = o->used;
	prom_add(o, "\n");
	prom_end_line(o, start);
	record(o, name, v1, v2, vstart, vend);
}

void prom_sample_text(struct prom *o, const char *name, const char *k1, const char *v1, const char *k2,
		      const char *v2, const char *value)
{
	sample(o, name, k1, v1, k2, v2, value, strlen(value));
}

/* v in decimal at d, which has room for 24 bytes; returns its length. */
static inline size_t put_dec(char *d, uint64_t v)
{
	char buf[48], *e = buf + 24, *p = e;	/* 20 digits at most; 24 bytes copied from p */
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	memcpy(d, p, 24);
	return (size_t)(e - p);
}

/* A sample line whose value is the number v: replayed with the number
 * written in place, or recorded. */
static inline __attribute__((always_inline)) void sample_num(struct prom *o, const char *name, const char *k1,
							    const char *v1, const char *k2, const char *v2, uint64_t v)
{
	if (o->replay) {
		if (!replay_pre(o, name, v1, v2, 24))
			o->used += put_dec(o->b + o->used, v);
		return;
	}
	char num[PROM_NUM_MAX];
	const char *t = prom_dec(num, v);
	sample(o, name, k1, v1, k2, v2, t, (size_t)(num + 20 - t));
}

void prom_sample(struct prom *o, const char *name, const char *k1, const char *v1, const char *k2,
		 const char *v2, uint64_t v)
{
	sample_num(o, name, k1, v1, k2, v2, v);
}

void prom_port_sample(struct prom *o, const char *name, int port, const char *k, const char *v, uint64_t value)
{
	sample_num(o, name, "port", nics[port]->name, k, v, value);
}

void prom_put(struct prom *o, const char *fmt, ...)
{
	if (o->replay && replay_pre(o, fmt, NULL, NULL, 0))
		return;
	if (o->cut)
		return;
	size_t start = o->used;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(o->b + o->used, o->len - o->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n + (o->replay ? 1 : 0) >= o->len - o->used) {
		o->b[o->used] = 0;
		o->cut = 1;
		return;
	}
	o->used += (size_t)n;
	if (!o->replay)
		record(o, fmt, NULL, NULL, start, o->used);
}
