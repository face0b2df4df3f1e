/* Kernel command line knobs; see cmdline.h. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "kernel/cmdline.h"
#include "kernel/fmt.h"

/* Append s to the NUL-terminated string in buf of len bytes, truncating. */
static void append(char *buf, size_t len, const char *s)
{
	fmt_put(buf, len, strlen(buf), s);
}

/* Decimal or 0x hex with an optional leading '-' (not "-0"); 0 or -1. */
static int parse_i64(const char *s, int64_t *out)
{
	int neg = s[0] == '-';
	uint64_t mag;

	if (parse_u64(s + neg, &mag) != 0 || mag > (uint64_t)INT64_MAX + (uint64_t)neg || (neg && mag == 0))
		return -1;
	*out = neg && mag != 0 ? -(int64_t)(mag - 1) - 1 : (int64_t)mag;
	return 0;
}

static int in_ranges(const struct knob *k, int64_t v)
{
	int i;

	if (k->nranges == 0)
		return 1;
	for (i = 0; i < k->nranges; i++)
		if (v >= k->ranges[i].lo && v <= k->ranges[i].hi)
			return 1;
	return 0;
}

void knob_accepted(const struct knob *k, char *buf, size_t len)
{
	const struct knob_range *r;
	char part[48];
	int i;

	if (len == 0)
		return;
	buf[0] = '\0';
	switch (k->type) {
	case KNOB_INT:
		if (k->nranges == 0)
			append(buf, len, "integer");
		for (i = 0; i < k->nranges; i++) {
			r = &k->ranges[i];
			if (r->lo == r->hi)
				snprintf(part, sizeof(part), "%s%lld", i ? "|" : "", (long long)r->lo);
			else
				snprintf(part, sizeof(part), "%s%lld%s%lld", i ? "|" : "",
					 (long long)r->lo, r->lo < 0 || r->hi < 0 ? ".." : "-",
					 (long long)r->hi);
			append(buf, len, part);
		}
		if (k->accepted != NULL) {	/* what the check adds, e.g. "a multiple of 8" */
			append(buf, len, ", ");
			append(buf, len, k->accepted);
		}
		break;
	case KNOB_ENUM:
		for (i = 0; k->choices[i] != NULL; i++) {
			if (i > 0)
				append(buf, len, "|");
			append(buf, len, k->choices[i]);
		}
		break;
	case KNOB_FUNC:
		append(buf, len, k->accepted != NULL ? k->accepted : "");
		break;
	}
	if (k->per_port)
		append(buf, len, ", or one per port: V,V,... (up to 8)");
}

/* One value of an INT or ENUM knob into *v; 0, or -1 with why. */
static int one_value(const struct knob *k, const char *s, int64_t *v, char *why, size_t len)
{
	if (k->type == KNOB_ENUM) {
		for (int i = 0; k->choices[i] != NULL; i++)
			if (strcmp(s, k->choices[i]) == 0) {
				*v = i;
				return 0;
			}
		return -1;
	}
	if (parse_i64(s, v) != 0 || !in_ranges(k, *v))
		return -1;
	return k->check != NULL ? k->check(*v, why, len) : 0;
}

/* "V" or "V0,V1,...": every port, or the first ones. */
static int set_per_port(const struct knob *k, const char *value, char *why, size_t len)
{
	int64_t v[KNOB_MAX_PORTS];
	char elem[64];
	int n = 0;
	for (const char *s = value;; n++) {
		size_t w = strcspn(s, ",");
		if (n == KNOB_MAX_PORTS) {
			snprintf(why, len, "more than %d values", KNOB_MAX_PORTS);
			return -1;
		}
		snprintf(elem, sizeof(elem), "%.*s", (int)(w < sizeof(elem) - 1 ? w : sizeof(elem) - 1), s);
		if (w == 0 || w >= sizeof(elem) || one_value(k, elem, &v[n], why, len) != 0) {
			if (why[0] == '\0' && (n > 0 || s[w] == ','))
				snprintf(why, len, "port %d: '%s'", n, elem);
			return -1;
		}
		s += w;
		if (*s++ == '\0')
			break;
	}
	for (int i = 0; i < KNOB_MAX_PORTS; i++)	/* n + 1 values were given */
		if (n == 0 || i <= n)
			k->ival[i] = v[n == 0 ? 0 : i];
	return 0;
}

int knob_set_port(const struct knob *k, int port, const char *value, char *err, size_t errlen)
{
	char why[128] = "", acc[256];
	int64_t v;
	if (k->per_port && port >= 0 && port < KNOB_MAX_PORTS && one_value(k, value, &v, why, sizeof(why)) == 0) {
		k->ival[port] = v;
		return 0;
	}
	knob_accepted(k, acc, sizeof(acc));
	char *list = strstr(acc, ", or one per port");
	if (list)
		*list = 0;	/* one port takes one value */
	if (strchr(value, ','))
		snprintf(why, sizeof(why), "one port takes one value");
	snprintf(err, errlen, "cmdline: bad value '%.64s' for %s= of port%d (%s%saccepted: %s)", value, k->name,
		 port, why, why[0] != '\0' ? "; " : "", acc);
	return -1;
}

int knob_set(const struct knob *k, const char *value, char *err, size_t errlen)
{
	char why[128] = "";
	char acc[256];
	int64_t v;
	int i;

	if (k->per_port) {
		if (set_per_port(k, value, why, sizeof(why)) == 0)
			return 0;
	} else switch (k->type) {
	case KNOB_INT:
		if (one_value(k, value, &v, why, sizeof(why)) == 0) {
			*k->ival = v;
			return 0;
		}
		break;
	case KNOB_ENUM:
		for (i = 0; k->choices[i] != NULL; i++) {
			if (strcmp(value, k->choices[i]) == 0) {
				*k->ival = i;
				return 0;
			}
		}
		break;
	case KNOB_FUNC:
		if (k->parse(value, why, sizeof(why)) == 0)
			return 0;
		break;
	}
	knob_accepted(k, acc, sizeof(acc));
	snprintf(err, errlen, "cmdline: bad value '%.64s' for %s= (%s%saccepted: %s)",
		 value, k->name, why, why[0] != '\0' ? "; " : "", acc);
	return -1;
}

const struct knob *knob_find(const struct knob *knobs, size_t n, const char *name)
{
	size_t i;

	/* The first byte first: most names differ there, and a call per
	 * knob made the lookups of a long line a third of its parse (more so
	 * in a fuzz build, whose strcmp runs through ASan's hooks). */
	for (i = 0; i < n; i++)
		if (knobs[i].name[0] == name[0] && strcmp(knobs[i].name, name) == 0)
			return &knobs[i];
	return NULL;
}

#define SUGGEST_MAX 40	/* longest name knob_suggest compares */

/* Edit distance between a and b, letters' case ignored: insertions,
 * deletions, substitutions and swaps of two neighbours count one each
 * (optimal string alignment); SUGGEST_MAX for a name longer than that. */
static size_t distance(const char *a, const char *b)
{
	uint8_t pp[SUGGEST_MAX + 1], p[SUGGEST_MAX + 1], c[SUGGEST_MAX + 1];	/* rows i-2, i-1, i */
	size_t la = strlen(a), lb = strlen(b);

	if (la > SUGGEST_MAX || lb > SUGGEST_MAX)
		return SUGGEST_MAX;
	for (size_t j = 0; j <= lb; j++)
		p[j] = (uint8_t)j;
	for (size_t i = 1; i <= la; i++) {
		c[0] = (uint8_t)i;
		for (size_t j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
			int d = p[j - 1] + (ca != cb);
			d = p[j] + 1 < d ? p[j] + 1 : d;
			d = c[j - 1] + 1 < d ? c[j - 1] + 1 : d;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && pp[j - 2] + 1 < d)
				d = pp[j - 2] + 1;
			c[j] = (uint8_t)d;
		}
		memcpy(pp, p, lb + 1);
		memcpy(p, c, lb + 1);
	}
	return p[lb];
}

const struct knob *knob_suggest(const struct knob *knobs, size_t n, const char *name, int live_only)
{
	const struct knob *best = NULL;
	size_t best_d = strlen(name) <= 4 ? 1 : 2;	/* more is another word */

	for (size_t i = 0; i < n; i++) {
		if (live_only && !knobs[i].live)
			continue;
		size_t d = distance(name, knobs[i].name);
		if (d <= best_d && (best == NULL || d < best_d)) {
			best = &knobs[i];
			best_d = d;
		}
	}
	return best;
}

/* Append " (accepted: a= b= c=)" to msg. */
static void append_names(char *msg, size_t len, const struct knob *knobs, size_t n)
{
	size_t i, used = fmt_put(msg, len, strlen(msg), " (accepted:");

	for (i = 0; i < n; i++) {
		used = fmt_put(msg, len, used, " ");
		used = fmt_put(msg, len, used, knobs[i].name);
		used = fmt_put(msg, len, used, "=");
	}
	fmt_put(msg, len, used, ")");
}

/* The knob of knobs[0..n) that the word w[0..wlen) names before its '=',
 * or NULL (no '=', or no such knob). */
static const struct knob *word_knob(const char *w, size_t wlen, const struct knob *knobs, size_t n)
{
	char key[CMDLINE_WORD_MAX];
	const char *eq = memchr(w, '=', wlen);

	if (eq == NULL || (size_t)(eq - w) >= sizeof(key))
		return NULL;
	memcpy(key, w, (size_t)(eq - w));
	key[eq - w] = '\0';
	return knob_find(knobs, n, key);
}

/* Count the words of line naming each knob: times[i] for knobs[i], 0, 1
 * or 2 (twice or more). One pass over the line: a check per word that
 * scanned the whole line again made a long line quadratic. */
static void count_words(const char *line, const struct knob *knobs, size_t n, unsigned char *times)
{
	const char *p = line;
	const struct knob *k;
	size_t wlen;

	memset(times, 0, n);
	for (;;) {
		p += strspn(p, " \t");
		if (*p == '\0')
			return;
		wlen = strcspn(p, " \t");
		k = word_knob(p, wlen, knobs, n);
		if (k != NULL && times[k - knobs] < 2)
			times[k - knobs]++;
		p += wlen;
	}
}

/* A key NAME.SUB (with value) of a knob that takes them (parse_sub):
 * applied, 0, *k NULL; refused, 0, *k that knob, the message in msg.
 * -1 when key is no such form. */
static int sub_word(char *key, const char *value, const struct knob *knobs, size_t n, char *msg, size_t len,
		    const struct knob **k)
{
	char *dot = strchr(key, '.');
	char err[256];
	const struct knob *f;
	if (dot == NULL)
		return -1;
	*dot = '\0';
	f = knob_find(knobs, n, key);
	*dot = '.';
	if (f == NULL || f->parse_sub == NULL)
		return -1;
	*k = NULL;
	if (f->parse_sub(dot + 1, value, err, sizeof(err)) == 0)
		return 0;
	*k = f;
	snprintf(msg, len, "cmdline: bad value '%.64s' for %s= (%s; accepted: %s)", value, key, err,
		 f->accepted ? f->accepted : "");
	return 0;
}

/* Apply the word w[0..wlen), whose knobs' words times counts (count_words);
 * 0, or -1 with a message in msg. */
static int parse_word(const unsigned char *times, const char *w, size_t wlen,
		      const struct knob *knobs, size_t n, char *msg, size_t len)
{
	char word[CMDLINE_WORD_MAX];
	char acc[256];
	const struct knob *k;
	char *eq;

	if (wlen >= sizeof(word)) {
		snprintf(msg, len, "cmdline: word '%.32s...' is longer than %d bytes",
			 w, CMDLINE_WORD_MAX - 1);
		return -1;
	}
	memcpy(word, w, wlen);
	word[wlen] = '\0';
	eq = strchr(word, '=');
	k = eq ? NULL : knob_find(knobs, n, word);
	if (k && k->flag)
		return knob_set(k, "1", msg, len);
	if (eq == NULL || eq == word) {
		snprintf(msg, len, "cmdline: '%.64s' is not key=value", word);
		append_names(msg, len, knobs, n);
		return -1;
	}
	*eq = '\0';
	k = knob_find(knobs, n, word);
	if (k == NULL && sub_word(word, eq + 1, knobs, n, msg, len, &k) == 0)
		return k ? -1 : 0;
	if (k == NULL) {
		const struct knob *like = knob_suggest(knobs, n, word, 0);
		snprintf(msg, len, "cmdline: unknown knob '%.64s'%s%s%s", word, like ? "; did you mean " : "",
			 like ? like->name : "", like ? "?" : "");
		append_names(msg, len, knobs, n);
		return -1;
	}
	if (!k->repeatable && times[k - knobs] > 1) {
		snprintf(msg, len, "cmdline: %s= given more than once, ignoring '%.64s' (the default stays)",
			 k->name, eq + 1);
		return -1;
	}
	if (eq[1] == '\0') {
		knob_accepted(k, acc, sizeof(acc));
		snprintf(msg, len, "cmdline: empty value for %s= (accepted: %s)", k->name, acc);
		return -1;
	}
	return knob_set(k, eq + 1, msg, len);
}

int cmdline_parse(const char *line, const struct knob *knobs, size_t n,
		  void (*report)(const char *msg, const char *word, size_t wlen, void *ctx), void *ctx)
{
	char msg[CMDLINE_MSG_MAX];
	unsigned char times[CMDLINE_KNOBS_MAX];
	const char *p = line;
	size_t wlen;
	int errors = 0;

	if (line == NULL)
		return 0;
	if (n > CMDLINE_KNOBS_MAX) {
		snprintf(msg, sizeof(msg), "cmdline: %zu knobs registered, more than %d: nothing applied",
			 n, CMDLINE_KNOBS_MAX);
		if (report != NULL)
			report(msg, NULL, 0, ctx);
		return 1;
	}
	count_words(line, knobs, n, times);
	for (;;) {
		p += strspn(p, " \t");
		if (*p == '\0')
			return errors;
		wlen = strcspn(p, " \t");
		if (parse_word(times, p, wlen, knobs, n, msg, sizeof(msg)) != 0) {
			errors++;
			if (report != NULL)
				report(msg, p, wlen, ctx);
		}
		p += wlen;
	}
}
