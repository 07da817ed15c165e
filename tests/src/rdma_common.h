/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdma_common.h: what rdma_data.c and rdma_prot.c share: options, the TCP
 * control channel, RC QP setup, CQ polling, a seeded PRNG and byte patterns.
 *
 * A test runs as a pair: the server (-s) in one place, the client
 * (-c SERVER-IP) in another. They talk over one TCP connection with fixed
 * size `struct ctl` messages (QPN, PSN, GID, path MTU, rkey/addr/len and
 * test specific arguments); the client drives, the server answers each
 * message. Everything here is static: each program is one .c file that
 * includes this header (tests/src/Makefile builds every .c into tests/bin/).
 */
#ifndef RDMA_COMMON_H
#define RDMA_COMMON_H

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <infiniband/verbs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define HELPER static __attribute__((unused))

/* ------------------------------------------------------------------ */
/* Errors and time                                                     */
/* ------------------------------------------------------------------ */

static const char *prog_name = "rdma";

/* Setup failures are not test results: print and exit 2. */
HELPER __attribute__((noreturn, format(printf, 1, 2)))
void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

HELPER uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

HELPER void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

/* ------------------------------------------------------------------ */
/* Options shared by both programs                                     */
/* ------------------------------------------------------------------ */

struct opts {
	const char *dev;	/* -d: RDMA device name */
	int gid_index;		/* -g: GID table index (RoCE v2 GID of the IP) */
	int port;		/* -p: TCP port of the control channel */
	const char *server;	/* -c: the server's address; NULL with -s */
	int is_server;		/* -s */
};

#define COMMON_OPTSTRING "sc:d:g:p:"
#define COMMON_USAGE \
	"  -s | -c SERVER   run as server, or as client of SERVER (IPv4/IPv6)\n" \
	"  -d DEV           RDMA device (required)\n" \
	"  -g N             GID index (default 0)\n" \
	"  -p PORT          TCP port of the control channel (default 18700)\n"

/* Handles one common getopt() option; returns 0 if @c is not one of them. */
HELPER int common_opt(struct opts *o, int c, const char *arg)
{
	switch (c) {
	case 's': o->is_server = 1; return 1;
	case 'c': o->server = arg; return 1;
	case 'd': o->dev = arg; return 1;
	case 'g': o->gid_index = atoi(arg); return 1;
	case 'p': o->port = atoi(arg); return 1;
	}
	return 0;
}

/* Returns an error message if the common options are inconsistent. */
HELPER const char *common_opts_check(const struct opts *o)
{
	if (!o->dev)
		return "-d DEV is required";
	if (o->is_server == !!o->server)
		return "give exactly one of -s and -c SERVER";
	if (o->port <= 0 || o->port > 65535)
		return "bad -p PORT";
	return NULL;
}

/* ------------------------------------------------------------------ */
/* PRNG (splitmix64) and byte patterns                                 */
/* ------------------------------------------------------------------ */

HELPER uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n) (0 when n is 0). */
HELPER uint64_t rng_below(uint64_t *s, uint64_t n)
{
	return n ? rng_next(s) % n : 0;
}

/* Fills @buf[0, len) with random bytes from @seed. */
HELPER void random_fill(uint8_t *buf, size_t len, uint64_t seed)
{
	uint64_t s = seed, v = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		if ((i & 7) == 0)
			v = rng_next(&s);
		buf[i] = (uint8_t)(v >> ((i & 7) * 8));
	}
}

/*
 * Fills @buf[0, len) with the pattern named by @seed: mostly random bytes,
 * sometimes a constant byte or an incrementing sequence. Both ends of a
 * test regenerate a pattern from its seed instead of shipping the bytes.
 */
HELPER void pattern_fill(uint8_t *buf, size_t len, uint64_t seed)
{
	uint64_t s = seed;
	unsigned int kind = rng_next(&s) % 8;
	uint8_t b = (uint8_t)rng_next(&s);
	size_t i;

	if (kind < 6) {
		random_fill(buf, len, rng_next(&s));
		return;
	}
	for (i = 0; i < len; i++)
		buf[i] = kind == 6 ? b : (uint8_t)(b + i);
}

/* Index of the first byte where @a and @b differ, or -1. */
HELPER long first_diff(const uint8_t *a, const uint8_t *b, size_t len)
{
	size_t i;

	if (!memcmp(a, b, len))
		return -1;
	for (i = 0; a[i] == b[i]; i++)
		;
	return (long)i;
}

/* ------------------------------------------------------------------ */
/* Control channel                                                     */
/* ------------------------------------------------------------------ */

/*
 * One control message. Integers travel big-endian (ctl_send/ctl_recv
 * convert); the meaning of arg[] depends on cmd (see each program).
 */
struct ctl {
	uint32_t cmd;
	uint32_t status;	/* answers: 0 = ok, else text says why */
	uint32_t qpn;
	uint32_t psn;
	uint32_t mtu;		/* enum ibv_mtu, the port's active MTU */
	uint32_t rkey;
	uint64_t addr;
	uint64_t len;
	uint64_t arg[8];
	uint8_t gid[16];
	char text[512];
};

HELPER int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

HELPER int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

HELPER void ctl_swap(struct ctl *m, int to_wire)
{
	uint32_t *w[] = { &m->cmd, &m->status, &m->qpn, &m->psn, &m->mtu, &m->rkey };
	uint64_t *d[] = { &m->addr, &m->len };
	size_t i;

	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		*w[i] = to_wire ? htobe32(*w[i]) : be32toh(*w[i]);
	for (i = 0; i < sizeof(d) / sizeof(d[0]); i++)
		*d[i] = to_wire ? htobe64(*d[i]) : be64toh(*d[i]);
	for (i = 0; i < 8; i++)
		m->arg[i] = to_wire ? htobe64(m->arg[i]) : be64toh(m->arg[i]);
}

/* Sends @m; 0 or -1 (peer gone). */
HELPER int ctl_send(int fd, const struct ctl *m)
{
	struct ctl w = *m;

	w.text[sizeof(w.text) - 1] = 0;
	ctl_swap(&w, 1);
	return write_all(fd, &w, sizeof(w));
}

/* Receives one message into @m; 0 or -1 (peer gone). */
HELPER int ctl_recv(int fd, struct ctl *m)
{
	if (read_all(fd, m, sizeof(*m)))
		return -1;
	ctl_swap(m, 0);
	m->text[sizeof(m->text) - 1] = 0;
	return 0;
}

/* Sends @req and waits for the answer in @ans; dies if the peer is gone. */
HELPER void ctl_call(int fd, const struct ctl *req, struct ctl *ans)
{
	if (ctl_send(fd, req) || ctl_recv(fd, ans))
		die("control connection lost (server died?)");
}

HELPER void tcp_tune(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* Server: listens on @port (IPv6 socket accepting IPv4 too, else IPv4). */
HELPER int tcp_listen(int port)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(port),
				   .sin6_addr = IN6ADDR_ANY_INIT };
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_ANY) };
	int one = 1, zero = 0, fd;

	fd = socket(AF_INET6, SOCK_STREAM, 0);
	if (fd >= 0) {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
		if (!bind(fd, (struct sockaddr *)&a6, sizeof(a6)) && !listen(fd, 1))
			return fd;
		close(fd);
	}
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a4, sizeof(a4)) || listen(fd, 1))
		die("bind/listen on TCP port %d: %s", port, strerror(errno));
	return fd;
}

HELPER int tcp_accept(int lfd)
{
	int fd;

	do
		fd = accept(lfd, NULL, NULL);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		die("accept: %s", strerror(errno));
	close(lfd);
	tcp_tune(fd);
	return fd;
}

/* Client: connects to @host:@port, retrying for up to 30 s. */
HELPER int tcp_connect(const char *host, int port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	uint64_t deadline = now_ms() + 30000;
	char service[16];
	int fd = -1, err;

	snprintf(service, sizeof(service), "%d", port);
	err = getaddrinfo(host, service, &hints, &res);
	if (err)
		die("%s: %s", host, gai_strerror(err));
	while (fd < 0) {
		for (ai = res; ai && fd < 0; ai = ai->ai_next) {
			fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
			if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen)) {
				close(fd);
				fd = -1;
			}
		}
		if (fd < 0) {
			if (now_ms() > deadline)
				die("cannot connect to %s port %d: %s", host, port,
				    strerror(errno));
			sleep_us(100000);
		}
	}
	freeaddrinfo(res);
	tcp_tune(fd);
	return fd;
}

/* ------------------------------------------------------------------ */
/* Device, QP setup and completions                                    */
/* ------------------------------------------------------------------ */

struct rdev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_device_attr attr;
	struct ibv_port_attr port;
	union ibv_gid gid;
	int gid_index;
	uint64_t rng;		/* for PSNs */
};

/* Opens device @name, port 1, GID @gid_index and a PD; dies on failure. */
HELPER void rdev_open(struct rdev *d, const char *name, int gid_index)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	int i;

	if (!list)
		die("ibv_get_device_list: %s", strerror(errno));
	for (i = 0; list[i] && strcmp(ibv_get_device_name(list[i]), name); i++)
		;
	if (!list[i])
		die("no RDMA device %s", name);
	d->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!d->ctx)
		die("ibv_open_device %s: %s", name, strerror(errno));
	if (ibv_query_device(d->ctx, &d->attr))
		die("ibv_query_device: %s", strerror(errno));
	if (ibv_query_port(d->ctx, 1, &d->port))
		die("ibv_query_port: %s", strerror(errno));
	if (d->port.state != IBV_PORT_ACTIVE)
		die("%s port 1 is not ACTIVE (state %d)", name, d->port.state);
	if (ibv_query_gid(d->ctx, 1, gid_index, &d->gid))
		die("ibv_query_gid %d: %s", gid_index, strerror(errno));
	d->gid_index = gid_index;
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd)
		die("ibv_alloc_pd: %s", strerror(errno));
	d->rng = (uint64_t)getpid() << 32 ^ now_ms();
}

HELPER struct ibv_mr *reg_mr(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	struct ibv_mr *mr = ibv_reg_mr(pd, addr, len, access);

	if (!mr)
		die("ibv_reg_mr(%zu bytes, access %#x): %s", len, access, strerror(errno));
	return mr;
}

HELPER void *alloc_buf(size_t len)
{
	void *p;

	if (posix_memalign(&p, 4096, len))
		die("out of memory (%zu bytes)", len);
	return p;
}

#define RC_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		   IBV_ACCESS_REMOTE_READ)
#define RC_RD_ATOMIC 16

/*
 * Creates an RC QP on @cq in @pd (send and receive SGE caps @max_sge) and
 * moves it to INIT; picks its first PSN into *@psn. Dies on failure.
 */
HELPER struct ibv_qp *qp_create(struct rdev *d, struct ibv_pd *pd, struct ibv_cq *cq,
				uint32_t max_sge, uint32_t *psn)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = max_sge, .max_recv_sge = max_sge },
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
		.qp_access_flags = RC_ACCESS,
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &ia);

	if (!qp)
		die("ibv_create_qp (max_sge %u): %s", max_sge, strerror(errno));
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		die("modify QP to INIT: %s", strerror(errno));
	*psn = rng_next(&d->rng) & 0xffffff;
	return qp;
}

/* Puts the QPN, PSN, GID and active MTU of this end into @m. */
HELPER void ctl_put_qp(struct ctl *m, const struct rdev *d, const struct ibv_qp *qp,
		       uint32_t psn)
{
	m->qpn = qp->qp_num;
	m->psn = psn;
	m->mtu = d->port.active_mtu;
	memcpy(m->gid, d->gid.raw, sizeof(m->gid));
}

/* The path MTU of a pair: the smaller active MTU. */
HELPER enum ibv_mtu path_mtu(const struct rdev *d, const struct ctl *peer)
{
	return peer->mtu < (uint32_t)d->port.active_mtu ? (enum ibv_mtu)peer->mtu
							 : d->port.active_mtu;
}

HELPER int mtu_bytes(enum ibv_mtu m)
{
	return 128 << m;	/* IBV_MTU_256 = 1 */
}

/*
 * Moves @qp (INIT, first PSN @psn) to RTR and RTS towards the peer in @peer
 * (QPN, PSN, GID, MTU): RoCE v2 address via the GID, path MTU the smaller
 * active MTU, ACK timeout 4.096 us * 2^16 (268 ms), 7 retries, RNR retry
 * forever. Returns 0 or an errno.
 */
HELPER int qp_connect(struct rdev *d, struct ibv_qp *qp, uint32_t psn, const struct ctl *peer)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = path_mtu(d, peer),
		.dest_qp_num = peer->qpn, .rq_psn = peer->psn,
		.max_dest_rd_atomic = RC_RD_ATOMIC, .min_rnr_timer = 12,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .sgid_index = d->gid_index, .hop_limit = 64 } },
	};
	int err;

	memcpy(a.ah_attr.grh.dgid.raw, peer->gid, 16);
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			    IBV_QP_MIN_RNR_TIMER);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 16;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = psn;
	a.max_rd_atomic = RC_RD_ATOMIC;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* The QP's current state, or -1 if ibv_query_qp fails. */
HELPER int qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return -1;
	return a.qp_state;
}

/* Polls qp_state() until it is @want or @timeout_ms pass; the last state. */
HELPER int qp_wait_state(struct ibv_qp *qp, int want, int timeout_ms)
{
	uint64_t deadline = now_ms() + (uint64_t)timeout_ms;
	int st;

	while ((st = qp_state(qp)) != want && now_ms() < deadline)
		sleep_us(2000);
	return st;
}

HELPER const char *qp_state_str(int st)
{
	static const char *const names[] = { "RESET", "INIT", "RTR", "RTS", "SQD",
					     "SQE", "ERR" };

	return st >= 0 && st < 7 ? names[st] : "?";
}

/*
 * Waits up to @timeout_ms for one CQE on @cq. Returns 1 (CQE in *@wc),
 * 0 (none came), -1 (ibv_poll_cq failed).
 */
HELPER int cq_wait(struct ibv_cq *cq, struct ibv_wc *wc, int timeout_ms)
{
	uint64_t deadline = now_ms() + (uint64_t)timeout_ms;
	unsigned int spins = 0;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n < 0 ? -1 : 1;
		if (now_ms() >= deadline)
			return 0;
		if (++spins < 200)
			sched_yield();
		else
			sleep_us(100);
	}
}

HELPER const char *wc_opcode_str(enum ibv_wc_opcode op)
{
	switch (op) {
	case IBV_WC_SEND: return "SEND";
	case IBV_WC_RDMA_WRITE: return "RDMA_WRITE";
	case IBV_WC_RDMA_READ: return "RDMA_READ";
	case IBV_WC_RECV: return "RECV";
	case IBV_WC_RECV_RDMA_WITH_IMM: return "RECV_RDMA_WITH_IMM";
	default: return "other";
	}
}

/* One line describing a CQE, for failure messages. */
HELPER const char *wc_str(const struct ibv_wc *wc)
{
	static char s[160];

	snprintf(s, sizeof(s), "{wr_id %llu status %s opcode %s byte_len %u flags %#x imm %#x}",
		 (unsigned long long)wc->wr_id, ibv_wc_status_str(wc->status),
		 wc->status == IBV_WC_SUCCESS ? wc_opcode_str(wc->opcode) : "-",
		 wc->byte_len, wc->wc_flags, ntohl(wc->imm_data));
	return s;
}

#endif /* RDMA_COMMON_H */
