/* The app= knob: picks one of the apps registered with APP(). */
#include <stdio.h>
#include <string.h>
#include "apps/app.h"
#include "kernel/knobs.h"

static const struct app *chosen;

static int parse_app(const char *v, char *err, size_t len)
{
	for (const struct app *a = __apps_start; a < __apps_end; a++)
		if (!strcmp(a->name, v)) {
			chosen = a;
			return 0;
		}
	snprintf(err, len, "no app '%s'", v);
	return -1;
}
static void show_app(char *buf, size_t len)
{
	snprintf(buf, len, "%s", app_selected()->name);
}
KNOB(app, .name = "app", .type = KNOB_FUNC, .parse = parse_app, .show = show_app, .accepted = "sink|fwd",
     .help = "what the appliance does with received packets; default sink");

const struct app *app_selected(void)
{
	if (!chosen)
		parse_app("sink", 0, 0);
	return chosen;
}
