/* The Prometheus text builder (prom.h). */
#include <stdarg.h>
#include <stdio.h>
#include "apps/mgmt/prom.h"
#include "drivers/net/nic.h"

void prom_end_line(struct prom *o, size_t start)
{
	if (o->cut)
		o->used = start;
	o->b[o->used] = 0;
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
	if (o->cut)
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

void prom_sample_text(struct prom *o, const char *name, const char *k1, const char *v1, const char *k2,
		      const char *v2, const char *value)
{
	size_t start = o->used;
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
	prom_add(o, value);
	prom_add(o, "\n");
	prom_end_line(o, start);
}

void prom_sample(struct prom *o, const char *name, const char *k1, const char *v1, const char *k2,
		 const char *v2, uint64_t v)
{
	char num[PROM_NUM_MAX];
	prom_sample_text(o, name, k1, v1, k2, v2, prom_dec(num, v));
}

void prom_port_sample(struct prom *o, const char *name, int port, const char *k, const char *v, uint64_t value)
{
	prom_sample(o, name, "port", nics[port]->name, k, v, value);
}

void prom_put(struct prom *o, const char *fmt, ...)
{
	if (o->cut)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(o->b + o->used, o->len - o->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->len - o->used) {
		o->b[o->used] = 0;
		o->cut = 1;
		return;
	}
	o->used += (size_t)n;
}
