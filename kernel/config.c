/* Knobs from the serial shell; see config.h. */
#include <stdio.h>
#include <string.h>
#include "kernel/config.h"

static const struct knob_live *live_find(const struct knob_live *live, size_t nlive, const char *name)
{
	for (size_t i = 0; i < nlive; i++)
		if (!strcmp(live[i].name, name))
			return &live[i];
	return 0;
}

/* Append " name" for each knob (or live knob) to msg of len bytes. */
static void append_names(char *msg, size_t len, const struct knob *knobs, size_t n,
			 const struct knob_live *live, size_t nlive)
{
	size_t used = strlen(msg);
	for (size_t i = 0; i < (knobs ? n : nlive) && used + 1 < len; i++) {
		snprintf(msg + used, len - used, " %s", knobs ? knobs[i].name : live[i].name);
		used += strlen(msg + used);
	}
}

int config_set(const struct knob *knobs, size_t n, const struct knob_live *live, size_t nlive,
	       const char *name, const char *value, char *msg, size_t len)
{
	const struct knob *k = knob_find(knobs, n, name);
	const struct knob_live *l = live_find(live, nlive, name);
	if (!k) {
		snprintf(msg, len, "set: unknown knob '%.64s' (knobs:", name);
		append_names(msg, len, knobs, n, 0, 0);
	} else if (!l) {
		snprintf(msg, len, "set: %s is read at boot only: give %s= on the kernel command line "
			 "(run-time knobs:", k->name, k->name);
		append_names(msg, len, 0, 0, live, nlive);
	} else if (knob_set(k, value, msg, len)) {
		/* knob_set words it for the command line: "cmdline: bad value ..." */
		if (!strncmp(msg, "cmdline: ", 9)) {
			memcpy(msg, "set: ", 5);
			memmove(msg + 5, msg + 9, strlen(msg + 9) + 1);
		}
		return -1;
	} else {
		if (l->apply)
			l->apply();
		char v[64];
		knob_value(k, v, sizeof(v));
		snprintf(msg, len, "%s=%s", k->name, v);
		return 0;
	}
	size_t used = strlen(msg);
	snprintf(msg + used, len - used, ")");
	return -1;
}

void knob_value(const struct knob *k, char *buf, size_t len)
{
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

size_t config_show(char *buf, size_t len, const struct knob *knobs, size_t n,
		   const struct knob_live *live, size_t nlive)
{
	size_t used = 0;
	if (!len)
		return 0;
	buf[0] = 0;
	for (size_t i = 0; i < n; i++) {
		static char v[CONFIG_VALUE_MAX];	/* 64 routes of 31 bytes */
		knob_value(&knobs[i], v, sizeof(v));
		int kv = (int)strlen(knobs[i].name) + 1 + (int)strlen(v);
		int w = snprintf(buf + used, len - used, "%s=%s%*s %-4s  %s\n", knobs[i].name, v,
				 kv < 30 ? 30 - kv : 0, "",
				 live_find(live, nlive, knobs[i].name) ? "run" : "boot",
				 knobs[i].help ? knobs[i].help : "");
		if (w < 0 || (size_t)w >= len - used) {
			buf[used] = 0;
			break;
		}
		used += (size_t)w;
	}
	return used;
}
