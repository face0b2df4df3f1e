/*
 * The management port's HTTP exporter: /metrics in the Prometheus text
 * exposition format 0.0.4 (one # HELP and # TYPE per family, its samples
 * together; counters end in _total; seconds and bytes) from what
 * registered it (net/prom.h): run/'s families (PROM_WRITER), then each
 * running app's (struct app .metrics); other pages (/, /config) are
 * PROM_WRITERs with a path. Counters are read without locks from the cores
 * that write them (64-bit); hardware registers are as folded by the
 * once-a-second housekeeping.
 */
#include <string.h>
#include "apps/app.h"
#include "apps/mgmt/mgmt.h"
#include "kernel/mem.h"
#include "kernel/version.h"
#include "net/prom.h"

static void metrics(struct prom *o)
{
	prom_family(o, "build_info", "gauge", "version and git describe of the image (value 1)");
	prom_sample_text(o, "build_info", "version", LINERATE_RELEASE, "git", GIT_DESCRIBE, "1");
	for (const struct prom_writer *w = __prom_writers_start; w < __prom_writers_end; w++)
		if (!w->path)
			w->write(o);
	for (int i = 0; apps_running[i]; i++)
		if (apps_running[i]->metrics)
			apps_running[i]->metrics(o);
}

#define PAGE_SLOTS 8192	/* samples of a recorded page: 8 ports of 8 queues fit */

/* /metrics replayed from its recording (prom.h), or recorded anew when its
 * shape changed; a page over len, or no memory for the recording, is
 * built line by line each time. */
static void metrics_page(struct prom *o)
{
	static struct prom_layout lay;
	static int tried;
	if (!tried) {
		tried = 1;
		lay.text = dma_alloc(o->len + PROM_SLACK, 64);
		lay.slot = dma_alloc(PAGE_SLOTS * sizeof(*lay.slot), 64);
		if (lay.text && lay.slot) {
			lay.cap = o->len + PROM_SLACK;
			lay.max_slot = PAGE_SLOTS;
		}
	}
	struct prom start = *o;
	prom_begin(o, &lay);
	metrics(o);
	if (prom_finish(o)) {
		*o = start;
		prom_begin(o, &lay);
		metrics(o);
		prom_finish(o);
	}
}

int mgmt_page(const char *path, char *buf, size_t len, size_t *n, const char **ctype, int *truncated)
{
	struct prom o = { .b = buf, .len = len };
	buf[0] = 0;
	if (!strcmp(path, "/metrics")) {
		*ctype = "text/plain; version=0.0.4; charset=utf-8";
		metrics_page(&o);
		*n = o.used;
		*truncated = o.cut;
		return 200;
	}
	for (const struct prom_writer *w = __prom_writers_start; w < __prom_writers_end; w++)
		if (w->path && !strcmp(path, w->path)) {
			*ctype = w->ctype;
			w->write(&o);
			*n = o.used;
			*truncated = o.cut;
			return 200;
		}
	*n = 0;
	return 404;
}
