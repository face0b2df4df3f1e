/* fwd: the forwarding app. L2 cross-connect of port pairs now; the L3
 * router joins it (issue 5). Counters: every frame received ends in
 * forwarded or one named drop. */
#ifndef FWD_H
#define FWD_H
#include <stdint.h>
#include "drivers/net/nic.h"

/* Why a frame was not forwarded, as printed by the `fwd` command. */
#define FWD_DROPS(X) \
	X(no_peer) X(tx_ring_full)

#define FWD_DROP_ENUM(name) FWD_DROP_##name,
enum fwd_drop { FWD_DROPS(FWD_DROP_ENUM) FWD_DROP_N };

/* Per-port forwarding counters, owned by the core that polls the port. */
struct fwd_stats {
	uint64_t rx;			/* frames the app received */
	uint64_t forwarded;		/* frames handed to tx_burst and taken */
	uint64_t drop[FWD_DROP_N];
};
extern struct fwd_stats fwd_stats[NIC_MAX_PORTS];
#endif
