/* Knobs from the serial shell; see config.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "kernel/config.h"
#include "kernel/fmt.h"

int config_ports = KNOB_MAX_PORTS;

/* `show config`'s groups, by the prefix of the declaring file: general
 * (kernel, placement, apps), NIC, addresses and lwIP, then each app. */
static const char *const config_groups[] = {
	"kernel/", "run/", "apps/app.c", "drivers/", "net/", "apps/fwd/", "apps/pktgen/",
	"apps/ptp/", "apps/rr/", "apps/mgmt/", "apps/",
};

/* Append " name" for each knob of knobs[0..n) (only the live ones if
 * live_only) to msg of len bytes. */
static void append_names(char *msg, size_t len, const struct knob *knobs, size_t n, int live_only)
{
	size_t used = strlen(msg);
	for (size_t i = 0; i < n && used + 1 < len; i++) {
		if (live_only && !knobs[i].live)
			continue;
		used = fmt_put(msg, len, fmt_put(msg, len, used, " "), knobs[i].name);
	}
}

int config_set(const struct knob *knobs, size_t n, int port, const char *name, const char *value, char *msg,
	       size_t len)
{
	const struct knob *k = knob_find(knobs, n, name);
	if (k && k->live && port >= 0 && !k->per_port) {
		snprintf(msg, len, "set: %s is one value for every port: set %s <value>", k->name, k->name);
		return -1;
	}
	if (!k) {
		const struct knob *like = knob_suggest(knobs, n, name, 1);
		snprintf(msg, len, "set: unknown knob '%.64s'%s%s%s (run-time knobs:", name,
			 like ? "; did you mean " : "", like ? like->name : "", like ? "?" : "");
		append_names(msg, len, knobs, n, 1);
	} else if (!k->live && k->set_by) {
		snprintf(msg, len, "set: %s is changed with: %s %s <value>", k->name, k->set_by, k->name);
		return -1;
	} else if (!k->live) {
		snprintf(msg, len, "set: %s is read at boot only: give %s= on the kernel command line "
			 "(run-time knobs:", k->name, k->name);
		append_names(msg, len, knobs, n, 1);
	} else if (port >= 0 ? knob_set_port(k, port, value, msg, len) : knob_set(k, value, msg, len)) {
		/* knob_set words it for the command line: "cmdline: bad value ..." */
		if (!strncmp(msg, "cmdline: ", 9)) {
			memcpy(msg, "set: ", 5);
			memmove(msg + 5, msg + 9, strlen(msg + 9) + 1);
		}
		return -1;
	} else {
		if (k->apply)
			k->apply();
		char v[160];
		knob_value(k, v, sizeof(v));
		snprintf(msg, len, "%s=%s", k->name, v);
		return 0;
	}
	size_t used = strlen(msg);
	snprintf(msg + used, len - used, ")");
	return -1;
}

/* A per-port knob: "v" when every port has the same, else "v0,v1,...". */
static void per_port_value(const struct knob *k, char *buf, size_t len)
{
	int same = 1;
	size_t used = 0;
	for (int i = 1; i < config_ports; i++)
		same &= k->ival[i] == k->ival[0];
	buf[0] = 0;
	for (int i = 0; i < (same ? 1 : config_ports) && used < len; i++) {
		if (k->type == KNOB_ENUM)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "," : "", k->choices[k->ival[i]]);
		else
			used += (size_t)snprintf(buf + used, len - used, "%s%lld", i ? "," : "", (long long)k->ival[i]);
	}
}

void knob_value(const struct knob *k, char *buf, size_t len)
{
	if (k->per_port) {
		per_port_value(k, buf, len);
		return;
	}
	switch (k->type) {
	case KNOB_INT:
		snprintf(buf, len, "%lld", (long long)*k->ival);
		break;
	case KNOB_ENUM:
		snprintf(buf, len, "%s", k->choices[*k->ival]);
		break;
	case KNOB_FUNC:
		if (k->show)
			k->show(buf, len);
		else
			snprintf(buf, len, "?");
		break;
	}
}

#define NGROUPS (sizeof(config_groups) / sizeof(config_groups[0]))

/* Where k's file comes in config_groups: 0 without a file, NGROUPS + 1 for
 * a file no prefix matches. */
static size_t group_of(const struct knob *k)
{
	if (!k->file)
		return 0;
	for (size_t g = 0; g < NGROUPS; g++)
		if (!strncmp(k->file, config_groups[g], strlen(config_groups[g])))
			return g + 1;
	return NGROUPS + 1;
}

/* Whether a comes after b in a group of knobs with files: by file, then line. */
static int file_after(const struct knob *a, const struct knob *b)
{
	int c = strcmp(a->file, b->file);
	return c ? c > 0 : a->line > b->line;
}

/* Sort the n knobs of one group (all with files) by binary insertion,
 * each after the equal ones before it (stable): one comparison a knob in
 * order (clang's), log2 for one out of order (GCC emits a file's knobs
 * last first). */
static void sort_by_file(const struct knob **order, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		const struct knob *k = order[i];
		if (!file_after(order[i - 1], k))
			continue;
		size_t lo = 0, hi = i - 1;	/* order[i - 1] is after k */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (file_after(order[mid], k))
				hi = mid;
			else
				lo = mid + 1;
		}
		memmove(&order[lo + 1], &order[lo], (i - lo) * sizeof(*order));
		order[lo] = k;
	}
}

/* knobs[0..n) in show config's order (see config.h) into order: each
 * knob's group found once, a stable counting sort by group, then each
 * group with files sorted by file and line. */
static void config_order(const struct knob **order, const struct knob *knobs, size_t n)
{
	static unsigned char group[CMDLINE_KNOBS_MAX];
	size_t first[NGROUPS + 3] = { 0 }, next[NGROUPS + 2];	/* group g: order[first[g]..first[g + 1]) */
	for (size_t i = 0; i < n; i++) {
		group[i] = (unsigned char)group_of(&knobs[i]);
		first[group[i] + 1]++;
	}
	for (size_t g = 1; g < NGROUPS + 3; g++)
		first[g] += first[g - 1];
	memcpy(next, first, sizeof(next));
	for (size_t i = 0; i < n; i++)
		order[next[group[i]]++] = &knobs[i];
	for (size_t g = 1; g < NGROUPS + 2; g++)
		sort_by_file(order + first[g], first[g + 1] - first[g]);
}

/* Append a printf-formatted line to buf (len bytes) at *used; -1 (and
 * nothing written) if it does not fit whole. */
static int put_line(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(buf + *used, len - *used, fmt, ap);
	va_end(ap);
	if (w < 0 || (size_t)w >= len - *used) {
		buf[*used] = 0;
		return -1;
	}
	*used += (size_t)w;
	return 0;
}

/* show config's line of knob k under key (its name, or NAME.SUB) = v, with help. */
static int put_knob(char *buf, size_t len, size_t *used, const struct knob *k, const char *key, const char *v,
		    const char *help)
{
	int kv = (int)strlen(key) + 1 + (int)strlen(v);
	return put_line(buf, len, used, "%s=%s%*s %-4s  %s\n", key, v, kv < 30 ? 30 - kv : 0, "",
			k->live ? "run" : k->set_by ? k->set_by : "boot", help ? help : "");
}

size_t config_show(char *buf, size_t len, const struct knob *knobs, size_t n)
{
	static const struct knob *order[CMDLINE_KNOBS_MAX];
	size_t used = 0;
	if (!len)
		return 0;
	buf[0] = 0;
	n = n < CMDLINE_KNOBS_MAX ? n : CMDLINE_KNOBS_MAX;
	config_order(order, knobs, n);
	for (size_t i = 0; i < n; i++) {
		static char v[CONFIG_VALUE_MAX];	/* 64 routes of 31 bytes */
		char key[48], help[96];
		int j = 0;
		const struct knob *k = order[i];
		size_t start = used;
		int cut = k->file && (!i || !order[i - 1]->file || strcmp(k->file, order[i - 1]->file)) &&
			  put_line(buf, len, &used, "[%s]\n", k->file);
		knob_value(k, v, sizeof(v));
		cut = cut || put_knob(buf, len, &used, k, k->name, v, k->help);
		if (cut) {	/* a file's header goes with its first line */
			used = start;
			buf[used] = 0;
			break;
		}
		for (char sub[16]; !cut && k->show_sub && !k->show_sub(j, sub, sizeof(sub), v, sizeof(v)); j++) {
			snprintf(key, sizeof(key), "%s.%s", k->name, sub);
			snprintf(help, sizeof(help), "%s.SUB: see %s", k->name, k->name);
			cut = put_knob(buf, len, &used, k, key, v, help);
		}
		if (cut)
			break;
	}
	return used;
}
