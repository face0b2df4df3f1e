/* rrclient's sessions: one non-blocking socket each, driven by epoll. */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "rrclient.h"

struct session {
	int fd;
	int connected;
	uint64_t done;		/* transactions completed */
	uint32_t sent, got;	/* bytes of the current request sent, response received */
	uint64_t t0;		/* ns: the current request's first byte left */
	int finished;
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint8_t *reqbuf, *rspbuf;

static void set_events(int ep, struct session *s, uint32_t ev)
{
	struct epoll_event e = { .events = ev, .data.ptr = s };
	epoll_ctl(ep, EPOLL_CTL_MOD, s->fd, &e);
}

/* Send (the rest of) the current request. 0, or -1 on a socket error. */
static int send_req(int ep, struct session *s, const struct rr_opts *o, struct rr_result *r)
{
	if (!s->sent) {
		s->t0 = now_ns();
		s->got = 0;
		r->requests++;
	}
	ssize_t n = send(s->fd, reqbuf + s->sent, o->req - s->sent, MSG_NOSIGNAL);
	if (n < 0 && errno != EAGAIN)
		return -1;
	if (n > 0)
		s->sent += (uint32_t)n;
	if (!o->tcp && n == (ssize_t)o->req)
		s->sent = o->req;
	set_events(ep, s, s->sent < o->req ? EPOLLIN | EPOLLOUT : EPOLLIN);
	return 0;
}

static void finish(struct session *s, struct rr_result *r)
{
	if (s->finished)
		return;
	s->finished = 1;
	r->sessions_done++;
	shutdown(s->fd, SHUT_WR);
}

/* Readable: take the response; on completion count it and start the next. */
static int on_read(int ep, struct session *s, const struct rr_opts *o, struct rr_result *r, int stopping)
{
	ssize_t n = recv(s->fd, rspbuf, o->tcp ? o->rsp - s->got : 65536, 0);
	if (n < 0)
		return errno == EAGAIN ? 0 : -1;
	if (n == 0)
		return s->finished ? 1 : -1;
	if (!o->tcp && (uint32_t)n != o->rsp) {
		r->bad_size++;
		return 0;
	}
	s->got += (uint32_t)n;
	if (s->got < o->rsp || s->sent < o->req)
		return 0;
	lat_add(&r->lat, now_ns() - s->t0);
	r->transactions++;
	s->done++;
	s->sent = 0;
	if ((o->count && s->done >= o->count) || stopping) {
		finish(s, r);
		return 0;
	}
	return send_req(ep, s, o, r);
}

static int open_session(int ep, struct session *s, const struct rr_opts *o)
{
	s->fd = socket(o->dst.ss_family, (o->tcp ? SOCK_STREAM : SOCK_DGRAM) | SOCK_NONBLOCK, 0);
	if (s->fd < 0)
		return -1;
	if (o->tcp) {
		int one = 1;
		setsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	if (connect(s->fd, (const struct sockaddr *)&o->dst, o->dst_len) && errno != EINPROGRESS)
		return -1;
	struct epoll_event e = { .events = EPOLLOUT | EPOLLIN, .data.ptr = s };
	return epoll_ctl(ep, EPOLL_CTL_ADD, s->fd, &e);
}

static int event(int ep, struct session *s, uint32_t ev, const struct rr_opts *o, struct rr_result *r,
		 int stopping)
{
	if (!s->connected) {
		int err = 0;
		socklen_t len = sizeof(err);
		getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &err, &len);
		if (err || (ev & (EPOLLERR | EPOLLHUP))) {
			r->connect_failed++;
			return -1;
		}
		s->connected = 1;
		if (stopping) {
			finish(s, r);
			return 0;
		}
		return send_req(ep, s, o, r);
	}
	if ((ev & EPOLLOUT) && s->sent < o->req && send_req(ep, s, o, r))
		return -1;
	if (ev & (EPOLLIN | EPOLLERR | EPOLLHUP))
		return on_read(ep, s, o, r, stopping);
	return 0;
}

/* UDP: requests unanswered for timeout are counted and sent again. */
static void udp_timeouts(int ep, struct session *ss, const struct rr_opts *o, struct rr_result *r, uint64_t now)
{
	for (int i = 0; i < o->sessions; i++) {
		struct session *s = &ss[i];
		if (s->fd < 0 || s->finished || !s->sent || now - s->t0 < (uint64_t)(o->timeout * 1e9))
			continue;
		r->timeouts++;
		s->sent = 0;
		send_req(ep, s, o, r);
	}
}

volatile sig_atomic_t rr_interrupted;

int rr_run(const struct rr_opts *o, struct rr_result *r)
{
	struct session *ss = calloc((size_t)o->sessions, sizeof(*ss));
	reqbuf = calloc(1, o->req);
	rspbuf = calloc(1, o->rsp > 65536 ? o->rsp : 65536);
	int ep = epoll_create1(0);
	if (!ss || !reqbuf || !rspbuf || ep < 0)
		return -1;
	memset(reqbuf, 'q', o->req);
	memset(r, 0, sizeof(*r));
	uint64_t start = now_ns(), end_by = start + (uint64_t)(o->duration * 1e9),
		 hard = start + (uint64_t)(o->max_time * 1e9), last_progress = start;
	for (int i = 0; i < o->sessions; i++)
		if (open_session(ep, &ss[i], o)) {
			perror("rrclient: socket");
			return -1;
		}
	int open = o->sessions, stopping = 0;
	r->stop = "count";
	struct epoll_event evs[256];
	while (open > 0) {
		uint64_t now = now_ns();
		if (!stopping && (rr_interrupted || (o->duration > 0 && now >= end_by))) {
			stopping = 1;
			r->stop = rr_interrupted ? "signal" : "duration";
		}
		if (now >= hard || now - last_progress > (uint64_t)(o->timeout * 1e9) * (o->tcp ? 1 : 10)) {
			r->stop = now >= hard ? "max-time" : "error";
			break;
		}
		int n = epoll_wait(ep, evs, 256, 10);
		for (int i = 0; i < n; i++) {
			struct session *s = evs[i].data.ptr;
			uint64_t before = r->transactions;
			int rc = event(ep, s, evs[i].events, o, r, stopping);
			if (r->transactions != before || rc)
				last_progress = now_ns();
			if (rc) {
				if (rc < 0 && s->connected)
					r->errors++;
				if (rc < 0 && !s->finished && !stopping)
					r->stop = "error";
				epoll_ctl(ep, EPOLL_CTL_DEL, s->fd, NULL);
				close(s->fd);
				s->fd = -1;
				open--;
			}
		}
		if (stopping || o->count)
			for (int i = 0; i < o->sessions; i++)
				if (ss[i].fd >= 0 && !o->tcp && ss[i].finished) {
					epoll_ctl(ep, EPOLL_CTL_DEL, ss[i].fd, NULL);
					close(ss[i].fd);
					ss[i].fd = -1;
					open--;
				}
		if (!o->tcp)
			udp_timeouts(ep, ss, o, r, now_ns());
		if (stopping)
			for (int i = 0; i < o->sessions; i++)
				if (ss[i].fd >= 0 && ss[i].connected && !ss[i].sent)
					finish(&ss[i], r);
	}
	r->elapsed = (double)(now_ns() - start) / 1e9;
	for (int i = 0; i < o->sessions; i++)
		if (ss[i].fd >= 0)
			close(ss[i].fd);
	close(ep);
	free(ss);
	return 0;
}
