/* rrclient: options, run, report (a table and one `RESULT {json}` line). */
#define _GNU_SOURCE
#include <getopt.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rrclient.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rrclient [-4|-6] --host ADDR [options]\n"
		"  --host ADDR        server address (required): IPv4 A.B.C.D, or IPv6 (fe80::...%%IFNAME\n"
		"                     for a link-local one)\n"
		"  -4, -6             the address must be of this family (as netperf's -4/-6)\n"
		"  --port N           server port (default 12866, app=rr's rr_port)\n"
		"  --proto tcp|udp    default tcp\n"
		"  --sessions N       parallel sessions, 1-4096 (default 1)\n"
		"  --req BYTES        request size, 1-65535 (default 1)\n"
		"  --rsp BYTES        response size, 1-65535 (default 1)\n"
		"  --count N          transactions per session (default 0: until --duration)\n"
		"  --duration S       stop starting transactions after S seconds (default 0: until --count)\n"
		"  --max-time S       hard stop (default 60)\n"
		"  --timeout S        UDP: resend a request unanswered this long (counted); no progress for\n"
		"                     this long (x10 for UDP) ends the run (default 1)\n"
		"  --quiet            print only the RESULT line\n"
		"One of --count and --duration is needed. SIGINT or SIGTERM ends the run as\n"
		"--duration does (stop \"signal\"). Output: transactions/s, latency\n"
		"percentiles, and one line RESULT {json}.\n");
}

static int parse_num(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (!*s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* The server address host (numeric, IPv4 or IPv6 with its scope) into o.
 * Returns 0, or -1 if it is neither or not of family (AF_UNSPEC: any). */
static int parse_host(const char *host, int family, struct rr_opts *o)
{
	struct addrinfo hints = { .ai_family = family, .ai_flags = AI_NUMERICHOST }, *ai;
	if (getaddrinfo(host, NULL, &hints, &ai))
		return -1;
	memcpy(&o->dst, ai->ai_addr, ai->ai_addrlen);
	o->dst_len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

static int parse_args(int argc, char **argv, struct rr_opts *o)
{
	static const struct option opts[] = {
		{ "host", 1, 0, 'h' }, { "port", 1, 0, 'p' }, { "proto", 1, 0, 'P' },
		{ "sessions", 1, 0, 's' }, { "req", 1, 0, 'q' }, { "rsp", 1, 0, 'r' },
		{ "count", 1, 0, 'c' }, { "duration", 1, 0, 'd' }, { "max-time", 1, 0, 'm' },
		{ "timeout", 1, 0, 't' }, { "quiet", 0, 0, 'Q' }, { "help", 0, 0, 'H' }, { 0, 0, 0, 0 },
	};
	*o = (struct rr_opts){ .tcp = 1, .sessions = 1, .req = 1, .rsp = 1, .max_time = 60, .timeout = 1 };
	int c, idx = 0, family = AF_UNSPEC, port = 12866;
	const char *host = NULL;
	double v;
	while ((c = getopt_long(argc, argv, "46", opts, &idx)) != -1) {
		int bad = 0;
		switch (c) {
		case '4': family = AF_INET; break;
		case '6': family = AF_INET6; break;
		case 'h': host = optarg; break;
		case 'p': bad = parse_num(optarg, 1, 65535, &v); port = (int)v; break;
		case 'P': o->tcp = !strcmp(optarg, "tcp"); bad = !o->tcp && strcmp(optarg, "udp"); break;
		case 's': bad = parse_num(optarg, 1, 4096, &v); o->sessions = (int)v; break;
		case 'q': bad = parse_num(optarg, 1, 65535, &v); o->req = (uint32_t)v; break;
		case 'r': bad = parse_num(optarg, 1, 65535, &v); o->rsp = (uint32_t)v; break;
		case 'c': bad = parse_num(optarg, 0, 1e12, &v); o->count = (uint64_t)v; break;
		case 'd': bad = parse_num(optarg, 0, 86400, &v); o->duration = v; break;
		case 'm': bad = parse_num(optarg, 0.1, 86400, &v); o->max_time = v; break;
		case 't': bad = parse_num(optarg, 0.01, 3600, &v); o->timeout = v; break;
		case 'Q': o->quiet = 1; break;
		case 'H': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
		if (bad) {
			fprintf(stderr, "rrclient: bad value '%s' for --%s\n", optarg, opts[idx].name);
			usage(stderr);
			return -1;
		}
	}
	if (!host || optind != argc || (!o->count && o->duration <= 0)) {
		usage(stderr);
		return -1;
	}
	if (parse_host(host, family, o)) {
		fprintf(stderr, "rrclient: bad value '%s' for --host: not an %s address\n", host,
			family == AF_INET ? "IPv4 (-4)" : family == AF_INET6 ? "IPv6 (-6)" : "IPv4 or IPv6");
		usage(stderr);
		return -1;
	}
	if (o->dst.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&o->dst)->sin6_port = htons((uint16_t)port);
	else
		((struct sockaddr_in *)&o->dst)->sin_port = htons((uint16_t)port);
	return 0;
}

static void report(const struct rr_opts *o, const struct rr_result *r)
{
	double tps = r->elapsed > 0 ? (double)r->transactions / r->elapsed : 0;
	const struct lat_hist *h = &r->lat;
	uint64_t mean = h->n ? h->sum / h->n : 0;
	if (!o->quiet) {
		printf("%s%s %d session(s), req %u rsp %u bytes: %lu transactions in %.3f s = %.1f/s\n",
		       o->tcp ? "TCP" : "UDP", o->dst.ss_family == AF_INET6 ? "/IPv6" : "", o->sessions, o->req, o->rsp,
		       r->transactions, r->elapsed, tps);
		printf("latency us: min %.1f mean %.1f p50 %.1f p90 %.1f p99 %.1f p99.9 %.1f max %.1f\n",
		       h->min / 1e3, mean / 1e3, lat_quantile(h, 0.5) / 1e3, lat_quantile(h, 0.9) / 1e3,
		       lat_quantile(h, 0.99) / 1e3, lat_quantile(h, 0.999) / 1e3, h->max / 1e3);
		printf("requests %lu timeouts %lu bad_size %lu connect_failed %lu errors %lu stop %s\n",
		       r->requests, r->timeouts, r->bad_size, r->connect_failed, r->errors, r->stop);
	}
	printf("RESULT {\"proto\":\"%s\",\"family\":%d,\"sessions\":%d,\"req\":%u,\"rsp\":%u,\"transactions\":%lu,"
	       "\"requests\":%lu,\"sessions_done\":%d,\"elapsed_s\":%.3f,\"tps\":%.1f,\"lat_min_ns\":%lu,"
	       "\"lat_mean_ns\":%lu,\"lat_p50_ns\":%lu,\"lat_p90_ns\":%lu,\"lat_p99_ns\":%lu,"
	       "\"lat_p999_ns\":%lu,\"lat_max_ns\":%lu,\"timeouts\":%lu,\"bad_size\":%lu,"
	       "\"connect_failed\":%lu,\"errors\":%lu,\"stop\":\"%s\"}\n",
	       o->tcp ? "tcp" : "udp", o->dst.ss_family == AF_INET6 ? 6 : 4, o->sessions, o->req, o->rsp,
	       r->transactions, r->requests,
	       r->sessions_done, r->elapsed, tps, h->min, mean, lat_quantile(h, 0.5), lat_quantile(h, 0.9),
	       lat_quantile(h, 0.99), lat_quantile(h, 0.999), h->max, r->timeouts, r->bad_size,
	       r->connect_failed, r->errors, r->stop);
}

static void on_signal(int sig)
{
	(void)sig;
	rr_interrupted = 1;
}

int main(int argc, char **argv)
{
	struct rr_opts o;
	static struct rr_result r;
	if (parse_args(argc, argv, &o))
		return 2;
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (rr_run(&o, &r))
		return 1;
	report(&o, &r);
	return r.errors || r.connect_failed || !strcmp(r.stop, "error") ? 1 : 0;
}
