/*
 * The Prometheus text exposition format 0.0.4 built into a buffer (the
 * management port's /metrics, apps/mgmt/metrics.c): families (# HELP, # TYPE) and
 * sample lines linerate_<name>{labels} value. Lines are whole or absent:
 * one that does not fit sets cut and nothing after it is written. Built
 * piece by piece, not by vsnprintf: a page has ~500 lines, built on the
 * core that may also forward, and newlib's formatting costs ~1000
 * instructions a line (tools/bench_scrape.py measures a scrape).
 *
 * A page built with a layout (prom_begin .. prom_finish) is recorded the
 * first time: its text and, per sample, the text between the previous
 * value and this one (# HELP, # TYPE, the name and labels). Later builds
 * replay it: each sample copies its stretch of recorded text in 64-byte
 * steps and formats only its number; # HELP and # TYPE cost nothing. A
 * sample whose name or label values differ from the recording's (a PTP
 * port that starts following a master, a DHCP lease bound) makes
 * prom_finish fail and the page is recorded anew.
 */
#ifndef NET_PROM_H
#define NET_PROM_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "kernel/linkset.h"

/* A sample of a recorded page: what identifies it (pointers compared, the
 * strings are the callers' constants) and its stretch of recorded text. */
struct prom_slot {
	const char *name, *v1, *v2;
	uint32_t pre_off, pre_len;
};

#define PROM_SLACK 64	/* bytes copied beyond a stretch of text (whole steps) */

/* A recorded page (prom.c fills it). The caller gives the room: text of
 * cap bytes (the page and PROM_SLACK more) and max_slot slots; a page that
 * does not fit is never recorded and always built line by line. */
struct prom_layout {
	char *text;
	size_t cap;
	struct prom_slot *slot;
	uint32_t max_slot, nslot;
	uint32_t tail_off, tail_len;	/* after the last value: its newline, families without samples */
	int valid;
};

struct prom {
	char *b;
	size_t len, used;
	int cut;	/* a line did not fit: nothing after it is written */
	struct prom_layout *lay;	/* NULL: text only (prom_begin sets it) */
	int replay, mismatch, overflow;
	uint32_t slot;		/* the next sample's slot */
	size_t val_end;		/* recording: where the last value's text ended */
};

#define PROM_NUM_MAX 32	/* the text of a number: prom_dec, prom_fixed, prom_seconds */

/* Append s to the line being built (inline: a literal's length is known
 * when compiling); sets cut if it does not fit. */
static inline __attribute__((always_inline)) void prom_add(struct prom *o, const char *s)
{
	size_t n = strlen(s);
	if (o->cut || n >= o->len - o->used) {
		o->cut = 1;
		return;
	}
	memcpy(o->b + o->used, s, n);
	o->used += n;
}
/* End the line begun at start: kept whole, or taken back if cut. */
void prom_end_line(struct prom *o, size_t start);

/* Build o's page with lay: replayed if lay holds a recording, else recorded. */
void prom_begin(struct prom *o, struct prom_layout *lay);
/* End the page begun by prom_begin: 0, or -1 if the replay met a sample the
 * recording does not have (lay is then empty: build the page again). */
int prom_finish(struct prom *o);

/* Numbers as text into buf (PROM_NUM_MAX bytes); return where the text starts. */
const char *prom_dec(char *buf, uint64_t v);
/* n / scale with as many decimals as scale has zeros (scale 10 ... 10^9). */
const char *prom_fixed(char *buf, uint64_t n, uint64_t scale);
/* ns as seconds, nine decimals, with its sign. */
const char *prom_seconds(char *buf, int64_t ns);
/* v in decimal with its sign. */
const char *prom_int(char *buf, int64_t v);

/* # HELP and # TYPE (counter, gauge, histogram) of family linerate_<name>. */
void prom_family(struct prom *o, const char *name, const char *type, const char *help);
/* linerate_<name>{k1="v1",k2="v2"} value; k2, or k1 and k2, NULL for fewer
 * labels; value is a number's text. */
void prom_sample_text(struct prom *o, const char *name, const char *k1, const char *v1, const char *k2,
		      const char *v2, const char *value);
void prom_sample(struct prom *o, const char *name, const char *k1, const char *v1, const char *k2,
		 const char *v2, uint64_t v);
/* linerate_<name>{port="portN"[,k="v"]} value. */
void prom_port_sample(struct prom *o, const char *name, int port, const char *k, const char *v, uint64_t value);

/* printf-formatted whole lines, for the few with many labels. */
void prom_put(struct prom *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Text the management port serves that is no app's, gathered by the
 * linker as KNOB/APP are (kernel/linkset.h): with path NULL, families of
 * /metrics (run/'s core and port counters; the apps' come from their
 * struct app .metrics), else a page of its own at path (run/'s / and
 * /config) with Content-Type ctype. write appends to o. */
struct prom_writer {
	const char *path, *ctype;
	void (*write)(struct prom *o);
};
#define PROM_WRITER(id_, ...) \
	const struct prom_writer prom_writer_##id_ \
	LINKSET_ENTRY __attribute__((section(".prom_writers"))) = { __VA_ARGS__ }
extern const struct prom_writer __prom_writers_start[], __prom_writers_end[];
#endif
