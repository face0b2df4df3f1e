/* fwd: the forwarding app. A port with an address (ipN=) routes IPv4 at
 * L3 (apps/fwd/l3.h); the others are cross-connected at L2 by pairs=
 * (apps/fwd/fwd.c). Its counters are in apps/fwd/counters.h. */
#ifndef FWD_H
#define FWD_H

struct app;
/* The app (apps/app.h): L3 routes only to ports it runs on. */
extern const struct app app_fwd;
#endif
