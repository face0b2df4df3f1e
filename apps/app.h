/* Apps: what the poll loop does with received packets. Each app registers
 * itself with APP() and is chosen with the app= knob. */
#ifndef APP_H
#define APP_H
#include "drivers/net/nic.h"

struct app {
	const char *name;
	const char *help;
	/* After the drivers probed: set up; 0, or -1 after printing why. */
	int (*init)(void);
	/* A burst of n packets received on queue q of nic; the app owns them. */
	void (*rx)(struct nic *nic, int q, struct pkt **pkts, int n);
	/* Called from the poll loop between bursts (may be NULL): TX-only work
	 * such as pktgen's. Returns packets it handled, for CPU accounting. */
	int (*idle)(void);
};

#define APP(id_, ...) \
	static const struct app app_##id_ \
	__attribute__((used, section(".apps"), aligned(8))) = { __VA_ARGS__ }

extern const struct app __apps_start[], __apps_end[];
/* The app chosen by the app= knob. */
const struct app *app_selected(void);
#endif
