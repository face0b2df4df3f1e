/* ptp knobs: ptp4l's option names (ptp4l(8), default.cfg) where ptp4l has
 * one, with its defaults, except network_transport (L2 here: UDPv4 needs
 * the port's ipN= address) and ptp_role (ptp4l's slaveOnly/masterOnly). */
#include "apps/ptp/ptp.h"
#include "kernel/knobs.h"

struct ptp_conf ptp_conf = {
	.role = ROLE_AUTO, .transport = PTP_L2, .domain = 0,
	.priority1 = 128, .priority2 = 128, .clock_class = 248,
	.log_announce = 1, .log_sync = 0, .log_min_delay_req = 0,
	.announce_receipt_timeout = 3, .summary_interval = 3, .time_stamping = 0, .transport_specific = 0,
	.delay_mechanism = DM_E2E, .log_min_pdelay_req = 0, .neighbor_prop_delay_thresh = 20000000,
};

static const char *const role_choices[] = { "auto", "master", "slave", 0 };
static const char *const transport_choices[] = { "L2", "UDPv4", "UDPv6", 0 };
static const char *const tstamp_choices[] = { "hardware", "software", 0 };
static const char *const dm_choices[] = { "E2E", "P2P", 0 };
static const struct knob_range u8_range[] = { { 0, 255 } };
static const struct knob_range class_range[] = { { 0, 254 } };	/* 255: slave-only, by ptp_role */
static const struct knob_range log_range[] = { { PTP_LOG_MIN, PTP_LOG_MAX } };
static const struct knob_range receipt_range[] = { { 2, 255 } };
static const struct knob_range summary_range[] = { { -3, 10 } };
static const struct knob_range nibble_range[] = { { 0, 15 } };
static const struct knob_range thresh_range[] = { { 0, 1000000000 } };

KNOB(ptp_role, .name = "ptp_role", .type = KNOB_ENUM, .choices = role_choices, .ival = &ptp_conf.role,
     .help = "ptp: auto (best master clock algorithm), master (ptp4l masterOnly), slave "
	     "(slaveOnly, clockClass 255); default auto");
KNOB(network_transport, .name = "network_transport", .type = KNOB_ENUM, .choices = transport_choices,
     .ival = &ptp_conf.transport,
     .help = "ptp: L2 (EtherType 0x88F7 to 01:1B:19:00:00:00), UDPv4 (224.0.1.129 ports 319/320, "
	     "source address from the port's ipN=) or UDPv6 (ff0e::181, peer delay ff02::6b; source the first "
	     "IPv6 address of ipN=, else the port's link-local one); default L2");
KNOB(domainNumber, .name = "domainNumber", .type = KNOB_INT, .ranges = u8_range, .nranges = 1,
     .ival = &ptp_conf.domain, .help = "ptp: domain; messages of other domains are dropped (wrong_domain); default 0");
KNOB(priority1, .name = "priority1", .type = KNOB_INT, .ranges = u8_range, .nranges = 1,
     .ival = &ptp_conf.priority1, .help = "ptp: BMCA priority1 (lower wins); default 128");
KNOB(priority2, .name = "priority2", .type = KNOB_INT, .ranges = u8_range, .nranges = 1,
     .ival = &ptp_conf.priority2, .help = "ptp: BMCA priority2; default 128");
KNOB(clockClass, .name = "clockClass", .type = KNOB_INT, .ranges = class_range, .nranges = 1,
     .ival = &ptp_conf.clock_class, .help = "ptp: clockClass announced; default 248");
KNOB(logAnnounceInterval, .name = "logAnnounceInterval", .type = KNOB_INT, .ranges = log_range, .nranges = 1,
     .ival = &ptp_conf.log_announce, .help = "ptp: master's Announce interval, log2 s; default 1");
KNOB(logSyncInterval, .name = "logSyncInterval", .type = KNOB_INT, .ranges = log_range, .nranges = 1,
     .ival = &ptp_conf.log_sync, .help = "ptp: master's Sync interval, log2 s; default 0");
KNOB(logMinDelayReqInterval, .name = "logMinDelayReqInterval", .type = KNOB_INT, .ranges = log_range,
     .nranges = 1, .ival = &ptp_conf.log_min_delay_req,
     .help = "ptp: Delay_Req interval, log2 s (a slave follows its master's Delay_Resp); default 0");
KNOB(announceReceiptTimeout, .name = "announceReceiptTimeout", .type = KNOB_INT, .ranges = receipt_range,
     .nranges = 1, .ival = &ptp_conf.announce_receipt_timeout,
     .help = "ptp: Announce intervals without one from the master before it is given up; default 3");
KNOB(summary_interval, .name = "summary_interval", .type = KNOB_INT, .ranges = summary_range, .nranges = 1,
     .ival = &ptp_conf.summary_interval,
     .help = "ptp: slave's rms/max/freq/delay summary line every 2^N s; default 3");
KNOB(time_stamping, .name = "time_stamping", .type = KNOB_ENUM, .choices = tstamp_choices,
     .ival = &ptp_conf.time_stamping,
     .help = "ptp: hardware (on ports that stamp in hardware; software elsewhere) or software; default hardware");
KNOB(transportSpecific, .name = "transportSpecific", .type = KNOB_INT, .ranges = nibble_range, .nranges = 1,
     .ival = &ptp_conf.transport_specific,
     .help = "ptp: the header's transportSpecific sent and expected; 1 is 802.1AS (gPTP: needs L2 and P2P; "
	     "every message to 01:80:C2:00:00:0E, Follow_Up with the follow-up information TLV, Sync and "
	     "Announce only while asCapable); messages with another are dropped (wrong_transport_specific); default 0");
KNOB(delay_mechanism, .name = "delay_mechanism", .type = KNOB_ENUM, .choices = dm_choices,
     .ival = &ptp_conf.delay_mechanism,
     .help = "ptp: E2E (Delay_Req/Delay_Resp with the master) or P2P (Pdelay_Req/Resp/Resp_Follow_Up "
	     "with the link's neighbour, 01:80:C2:00:00:0E or 224.0.0.107); default E2E");
KNOB(logMinPdelayReqInterval, .name = "logMinPdelayReqInterval", .type = KNOB_INT, .ranges = log_range,
     .nranges = 1, .ival = &ptp_conf.log_min_pdelay_req,
     .help = "ptp: Pdelay_Req interval with delay_mechanism=P2P, log2 s; default 0");
KNOB(neighborPropDelayThresh, .name = "neighborPropDelayThresh", .type = KNOB_INT, .ranges = thresh_range,
     .nranges = 1, .ival = &ptp_conf.neighbor_prop_delay_thresh,
     .help = "ptp: with transportSpecific=1, the largest link delay (ns) at which the port is asCapable "
	     "(802.1AS 11.2.2; gPTP.cfg sets 800); default 20000000");
