/* Knobs: key=value settings from the kernel command line (and later the
 * shell). Each module declares its own with KNOB(); they are gathered in
 * the .knobs section. */
#ifndef KNOBS_H
#define KNOBS_H
#include <stddef.h>
#include "kernel/cmdline.h"
#include "kernel/linkset.h"

#define KNOB(id, ...) \
	static const struct knob knob_##id \
	LINKSET_ENTRY __attribute__((section(".knobs"))) = { .file = __FILE__, .line = __LINE__, __VA_ARGS__ }

extern const struct knob __knobs_start[], __knobs_end[];
#define KNOBS_COUNT ((size_t)(__knobs_end - __knobs_start))

/* Parse the command line against every registered knob, keeping each
 * error for knobs_report. Returns the number of errors. */
int knobs_parse(const char *cmdline);
/* Print the errors kept by knobs_parse. */
void knobs_report(void);
/* One line naming the words knobs_parse refused, if any:
 * "cmdline: 3 words refused (app poll foo): defaults kept (messages above)". */
void knobs_summary(void);
#endif
