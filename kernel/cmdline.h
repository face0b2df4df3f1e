/*
 * Kernel command line knobs: "key=value" words separated by spaces or tabs,
 * as GRUB, QEMU -append and the EFI load options pass them. The same
 * knob_set() serves the serial shell. Every error is reported with the
 * accepted forms; nothing is silently ignored. No allocation: messages are
 * built in fixed buffers and truncated safely.
 */
#ifndef KERNEL_CMDLINE_H
#define KERNEL_CMDLINE_H
#include <stddef.h>
#include <stdint.h>

/* Longest message cmdline_parse() passes to report(), including the NUL:
 * room for "unknown knob" and every knob's name (past 1024 bytes
 * once ra6= joined pktgen's VLAN and IPv6 knobs). */
#define CMDLINE_MSG_MAX 2048
/* Values a per-port knob holds: one per port, as NIC_MAX_PORTS. */
#define KNOB_MAX_PORTS 8
/* Longest word cmdline_parse() accepts, in bytes; longer ones are errors. */
#define CMDLINE_WORD_MAX 256
/* Most knobs cmdline_parse() takes in one registry (its repeat counts). */
#define CMDLINE_KNOBS_MAX 256

/* An inclusive range of accepted integers. */
struct knob_range {
	int64_t lo, hi;
};

enum knob_type { KNOB_INT, KNOB_ENUM, KNOB_FUNC };

/* One knob. Fill only the fields of its type; leave the others zero. */
struct knob {
	const char *name;	/* e.g. "InterruptThrottleRate" (case-sensitive) */
	enum knob_type type;
	const char *help;	/* one line: meaning, unit, default */
	/*
	 * KNOB_INT: the value must fall in one of ranges[0..nranges-1]
	 * (nranges 0: any int64_t); stored in *ival.
	 */
	const struct knob_range *ranges;
	int nranges;
	int64_t *ival;
	/* KNOB_ENUM: NULL-terminated; the index of the choice goes in *ival. */
	const char *const *choices;
	/*
	 * KNOB_FUNC: parse(value, err, errlen) returns 0, or -1 with a reason
	 * in err; accepted is the text of the accepted forms (KNOB_INT: what a
	 * check adds to the ranges, e.g. "a multiple of 8").
	 */
	int (*parse)(const char *value, char *err, size_t errlen);
	const char *accepted;
	/* KNOB_FUNC, may be NULL: write the current value as text into buf
	 * (len bytes, NUL included), for the shell's `show config`. */
	void (*show)(char *buf, size_t len);
	int repeatable;		/* may appear more than once (e.g. route=) */
	int flag;		/* KNOB_INT 0-1: the bare word NAME also means NAME=1 (Linux's
				 * boolean parameters, e.g. nox2apic) */
	/* KNOB_FUNC, may be NULL: the knob also takes keys NAME.SUB (e.g.
	 * ip0.100=, a VLAN sub-interface): parse_sub(sub, value, err, errlen)
	 * as parse; each such key is its own word, not a repeat of NAME. */
	int (*parse_sub)(const char *sub, const char *value, char *err, size_t errlen);
	/* With parse_sub, may be NULL: the i-th NAME.SUB key given (i from 0),
	 * its SUB into sub and its value into buf, for `show config`; 0, or
	 * -1: no i-th. */
	int (*show_sub)(int i, char *sub, size_t sublen, char *buf, size_t len);
	/*
	 * KNOB_INT and KNOB_ENUM: one value per port, as Linux e1000e module
	 * parameters take one per board: *ival is an array of KNOB_MAX_PORTS;
	 * "v" sets every port, "v0,v1,..." ports 0, 1, ... (the rest keep
	 * theirs).
	 */
	int per_port;
	/* KNOB_INT, may be NULL: a check beyond the ranges; 0, or -1 with a
	 * reason in err (e.g. rxd= must be a multiple of 8). */
	int (*check)(int64_t v, char *err, size_t errlen);
	/*
	 * live: the shell's `set` may change it while the appliance runs
	 * (0: read at boot only; `set` refuses it). apply, may be NULL when
	 * the value is read where it is used: called after `set` stored a new
	 * value, to put it in effect.
	 */
	int live;
	void (*apply)(void);
	/* May be NULL: another shell command that changes it at run time
	 * (e.g. "pktgen set"), which `set` and `show config` name. */
	const char *set_by;
	/* Where KNOB() declared it (__FILE__, __LINE__), for `show config`'s
	 * order; NULL/0 for knobs made otherwise (unit tests). */
	const char *file;
	int line;
};

/*
 * Set knob k from its text value. KNOB_INT takes decimal or 0x hex with an
 * optional leading '-', nothing else, no overflow; KNOB_ENUM an exact
 * choice. Returns 0, or -1 with a message in err (errlen bytes, NUL
 * included) naming the knob, the bad value and the accepted forms:
 * "cmdline: bad value 'abc' for InterruptThrottleRate= (accepted: 0|1|...)".
 * *ival is written only on success. A per-port knob takes a comma list of
 * up to KNOB_MAX_PORTS such values.
 */
int knob_set(const struct knob *k, const char *value, char *err, size_t errlen);
/* Set only port's entry of per-port knob k from one value; as knob_set. */
int knob_set_port(const struct knob *k, int port, const char *value, char *err, size_t errlen);

/* The knob of knobs[0..n) called name (case-sensitive), or NULL. */
const struct knob *knob_find(const struct knob *knobs, size_t n, const char *name);

/* The knob of knobs[0..n) (only the live ones if live_only) whose name is
 * nearest to name, case ignored, within 1 edit for names of up to 4 bytes
 * and 2 for longer ones (a typo: "stat", "InterruptThrotleRate"), or NULL. */
const struct knob *knob_suggest(const struct knob *knobs, size_t n, const char *name, int live_only);

/*
 * Write the text of k's accepted forms into buf (len bytes, NUL included,
 * truncated): "0|1|3|4|100-100000" (ranges "lo-hi", or "lo..hi" when a
 * bound is negative; "integer" for no ranges), "busy|napi|irq", or the
 * accepted text of a KNOB_FUNC.
 */
void knob_accepted(const struct knob *k, char *buf, size_t len);

/*
 * Parse a whole command line (NULL or empty is fine). Words are split on
 * spaces and tabs. Each error is reported by one call of report(msg, word,
 * wlen, ctx) with the refused word w[0..wlen) (NULL, 0 when the error is
 * the registry's; report may be NULL), and parsing goes on with the next
 * word:
 *   an unknown key (the message lists every knob name),
 *   a word without '=' or with an empty key,
 *   an empty value, a bad value (as knob_set),
 *   a non-repeatable knob given more than once (none of its words is
 *   applied: the knob keeps its default; one error per word),
 *   a word longer than CMDLINE_WORD_MAX - 1 bytes.
 * Returns the number of errors. More than CMDLINE_KNOBS_MAX knobs: one
 * error, nothing applied. Time: linear in the line's words times n.
 */
int cmdline_parse(const char *line, const struct knob *knobs, size_t n,
		  void (*report)(const char *msg, const char *word, size_t wlen, void *ctx), void *ctx);

#endif
