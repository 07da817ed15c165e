// SPDX-License-Identifier: GPL-2.0
/*
 * hostile: what an unprivileged local user can do to sroce, and what must
 * come of it (only errnos and error completions, never a kernel splat).
 *
 * Usage: hostile -d DEV -g GIDX -D DEV2 -G GIDX2 [-t TESTS] [-s SECS]
 *   DEV, GIDX    the device under test, index of a RoCE v2 GID on port 1
 *   DEV2, GIDX2  the peer device of the RC pairs (the other end of a veth)
 *   TESTS        comma list of dump, dereg, limits, scribble, memcg,
 *                memcg_sq (default: all)
 *   SECS         how long the dump race runs (default 20)
 *
 * Tests (each runs in a child process of its own, with a time limit, so a
 * verb stuck in the kernel shows as a FAIL line instead of a hang):
 *   dump      destroy QPs and CQs while a forked loop runs
 *             `rdma -dd resource show qp` / `... cq`, whose driver details
 *             read the rings being destroyed
 *   dereg     deregister an MR, local or remote, while a big RDMA WRITE,
 *             RDMA READ or SEND over it is in flight: the dereg returns
 *             within DEREG_MAX_MS and the transfer completes (either way)
 *   limits    create PDs, CQs, QPs, MRs and AHs up to the limits
 *             ibv_query_device() advertises, and one more: the one more
 *             fails with ENOMEM, a freed slot can be taken again; CQE, WR
 *             and SGE counts above the maxima fail with EINVAL
 *   scribble  write garbage WQEs, indices and CQ entries straight into the
 *             rings the provider mapped (found in /proc/self/maps), ring the
 *             doorbell: only errnos, error CQEs or a queue put in error;
 *             then a new pair still moves data intact
 *   memcg     ring memory is charged to the caller's memory cgroup:
 *             memory.current grows by the ring sizes when a CQ and a QP
 *             with big rings are created (SKIP without a memory cgroup)
 *   memcg_sq  the kernel's own per-WQE state of a send queue is charged
 *             too: under a memory.max with room for the rings but not
 *             for that state, a QP with the largest send queue is refused
 *             with ENOMEM; without the limit it is created (SKIP without
 *             a memory cgroup)
 *
 * Output: `PASS name (detail)`, `FAIL name: why` or `SKIP name: why` lines;
 * exit status 1 when anything failed.
 */
#include "rdma_common.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/sroce-abi.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define RDMA_TOOL	"/usr/bin/rdma"
#define BIG		(16u << 20)	/* bytes of an in-flight transfer */
#define DEREG_MAX_MS	5000		/* a dereg must return within this */
#define CHILD_MAX_S	120		/* a test child must end within this */
#define LIMIT_MAX	4096		/* create no more objects than this */
#define KERNEL_OBJS	4		/* objects the core may hold per type */

struct cfg {
	const char *dev, *dev2;
	int gidx, gidx2;
	int secs;
};

static int nfail;

static void __attribute__((format(printf, 2, 3))) pass(const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("PASS %s (", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(")\n");
	fflush(stdout);
}

static void __attribute__((format(printf, 2, 3))) fail(const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("FAIL %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	nfail++;
}

/* ------------------------------------------------------------------ */
/* An RC pair: A on the device under test, B on the peer                */
/* ------------------------------------------------------------------ */

struct pair {
	struct rdev a, b;
	struct ibv_cq *cqa, *cqb;
	struct ibv_qp *qpa, *qpb;
};

static struct ibv_qp *rc_qp(struct rdev *d, struct ibv_cq *cq, uint32_t swr,
			    uint32_t rwr, uint32_t *psn)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
		.cap = { .max_send_wr = swr, .max_recv_wr = rwr,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = RC_ACCESS,
	};
	struct ibv_qp *qp = ibv_create_qp(d->pd, &ia);

	if (!qp)
		die("ibv_create_qp: %s", strerror(errno));
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("modify QP to INIT: %s", strerror(errno));
	*psn = rng_next(&d->rng) & 0xffffff;
	return qp;
}

/* A's CQ and QP exist: creates B's, connects the two QPs. */
static void pair_link(struct pair *p, uint32_t psna)
{
	struct ctl ma, mb;
	uint32_t psnb;

	p->cqb = ibv_create_cq(p->b.ctx, 128, NULL, NULL, 0);
	if (!p->cqb)
		die("ibv_create_cq: %s", strerror(errno));
	p->qpb = rc_qp(&p->b, p->cqb, 16, 16, &psnb);
	memset(&ma, 0, sizeof(ma));
	memset(&mb, 0, sizeof(mb));
	ctl_put_qp(&ma, &p->a, p->qpa, psna);
	ctl_put_qp(&mb, &p->b, p->qpb, psnb);
	if (qp_connect(&p->a, p->qpa, psna, &mb) ||
	    qp_connect(&p->b, p->qpb, psnb, &ma))
		die("connect RC pair: %s", strerror(errno));
}

/* Devices must be open; creates CQs and the two QPs, connects them. */
static void pair_connect(struct pair *p, uint32_t swr, uint32_t rwr)
{
	uint32_t psna;

	p->cqa = ibv_create_cq(p->a.ctx, 128, NULL, NULL, 0);
	if (!p->cqa)
		die("ibv_create_cq: %s", strerror(errno));
	p->qpa = rc_qp(&p->a, p->cqa, swr, rwr, &psna);
	pair_link(p, psna);
}

static void pair_open(struct pair *p, const struct cfg *c)
{
	memset(p, 0, sizeof(*p));
	rdev_open(&p->a, c->dev, c->gidx);
	rdev_open(&p->b, c->dev2, c->gidx2);
}

/* Destroys the QPs and CQs (not the PDs); returns the first errno. */
static int pair_destroy_qps(struct pair *p)
{
	int err = 0, e;

	if (p->qpa && (e = ibv_destroy_qp(p->qpa)) && !err)
		err = e;
	if (p->qpb && (e = ibv_destroy_qp(p->qpb)) && !err)
		err = e;
	if (p->cqa && (e = ibv_destroy_cq(p->cqa)) && !err)
		err = e;
	if (p->cqb && (e = ibv_destroy_cq(p->cqb)) && !err)
		err = e;
	p->qpa = p->qpb = NULL;
	p->cqa = p->cqb = NULL;
	return err;
}

static int post_rdma(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t id,
		     void *buf, uint32_t len, uint32_t lkey, uint64_t raddr,
		     uint32_t rkey)
{
	struct ibv_sge sge = { (uintptr_t)buf, len, lkey };
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(qp, &wr, &bad);
}

static int post_recv(struct ibv_qp *qp, uint64_t id, void *buf, uint32_t len,
		     uint32_t lkey)
{
	struct ibv_sge sge = { (uintptr_t)buf, len, lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

/* ------------------------------------------------------------------ */
/* dump: destroy against rdma resource dumps                           */
/* ------------------------------------------------------------------ */

/* Runs `rdma -dd resource show WHAT` with its output to @out_fd. */
static int rdma_show(const char *what, int out_fd)
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(out_fd, 1);
		dup2(out_fd, 2);
		execl(RDMA_TOOL, "rdma", "-dd", "resource", "show", what,
		      (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* The dump shows sroce's driver details of a live QP at all. */
static int dump_has_details(void)
{
	char path[] = "/tmp/hostile-dump.XXXXXX", buf[65536];
	int fd = mkstemp(path), found;
	ssize_t n;

	if (fd < 0)
		return 0;
	unlink(path);
	rdma_show("qp", fd);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	found = strstr(buf, "sq_used") != NULL;
	if (!found)
		fprintf(stderr, "rdma -dd resource show qp printed:\n%s\n", buf);
	return found;
}

/* First make sure the dumps read the rings at all. */
static void dump_check_details(struct rdev *d)
{
	struct ibv_cq *cq = ibv_create_cq(d->ctx, 64, NULL, NULL, 0);
	struct ibv_qp *qp;
	uint32_t psn;

	if (!cq)
		die("ibv_create_cq: %s", strerror(errno));
	qp = rc_qp(d, cq, 64, 64, &psn);
	if (!dump_has_details())
		fail("dump-details", "`rdma -dd resource show qp` shows no sq_used of a live QP");
	else
		pass("dump-details", "sq_used shown");
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
}

static void dumper(volatile unsigned long *count)
{
	int null = open("/dev/null", O_WRONLY);

	for (;;) {
		rdma_show("qp", null);
		rdma_show("cq", null);
		(*count)++;
	}
}

static void t_dump(const struct cfg *c)
{
	volatile unsigned long *dumps;
	unsigned long iters = 0;
	uint64_t end;
	struct rdev d;
	pid_t pid;
	int err = 0;

	if (access(RDMA_TOOL, X_OK)) {
		printf("SKIP dump-race: no %s\n", RDMA_TOOL);
		return;
	}
	rdev_open(&d, c->dev, c->gidx);
	dumps = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (dumps == MAP_FAILED)
		die("mmap: %s", strerror(errno));

	dump_check_details(&d);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid)
		dumper(dumps);

	end = now_ms() + (uint64_t)c->secs * 1000;
	while (now_ms() < end && !err) {
		struct ibv_cq *cq = ibv_create_cq(d.ctx, 64, NULL, NULL, 0);
		struct ibv_qp *qp;
		uint32_t psn;
		char buf[64];
		struct ibv_mr *mr;

		if (!cq) {
			err = errno;
			break;
		}
		qp = rc_qp(&d, cq, 64, 64, &psn);
		mr = reg_mr(d.pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
		/* something in the RQ, so that rq_used is not 0 */
		post_recv(qp, 1, buf, sizeof(buf), mr->lkey);
		if (ibv_destroy_qp(qp) || ibv_destroy_cq(cq) || ibv_dereg_mr(mr))
			err = errno ? errno : EIO;
		iters++;
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);

	if (err)
		fail("dump-race", "create/destroy failed after %lu rounds: %s",
		     iters, strerror(err));
	else if (*dumps < 2)
		fail("dump-race", "only %lu dumps ran in %d s", *dumps, c->secs);
	else
		pass("dump-race", "%lu QP+CQ create/destroy rounds against %lu qp+cq dumps",
		     iters, *dumps);
}

/* ------------------------------------------------------------------ */
/* dereg: deregister MRs under in-flight transfers                     */
/* ------------------------------------------------------------------ */

struct dereg_case {
	const char *name;
	enum ibv_wr_opcode op;	/* IBV_WR_SEND: B posts a receive */
	int remote;		/* dereg B's MR (else A's) */
};

static const struct dereg_case dereg_cases[] = {
	{ .name = "dereg-write-local", .op = IBV_WR_RDMA_WRITE, .remote = 0 },
	{ .name = "dereg-write-remote", .op = IBV_WR_RDMA_WRITE, .remote = 1 },
	{ .name = "dereg-read-local", .op = IBV_WR_RDMA_READ, .remote = 0 },
	{ .name = "dereg-read-remote", .op = IBV_WR_RDMA_READ, .remote = 1 },
	{ .name = "dereg-send-local", .op = IBV_WR_SEND, .remote = 0 },
	{ .name = "dereg-send-remote", .op = IBV_WR_SEND, .remote = 1 },
};

/* The status of the first CQE on @cq within @ms, or -1 when none came. */
static int first_status(struct ibv_cq *cq, int ms)
{
	struct ibv_wc wc;

	return cq_wait(cq, &wc, ms) == 1 ? (int)wc.status : -1;
}

static const char *status_str(int st)
{
	return st < 0 ? "none" : ibv_wc_status_str(st);
}

static void dereg_one(struct pair *p, const struct dereg_case *dc,
		      uint8_t *bufa, uint8_t *bufb)
{
	struct ibv_mr *mra = reg_mr(p->a.pd, bufa, BIG, RC_ACCESS);
	struct ibv_mr *mrb = reg_mr(p->b.pd, bufb, BIG, RC_ACCESS);
	struct ibv_mr **victim = dc->remote ? &mrb : &mra;
	uint64_t t0, took;
	int sa, sb, err;

	pair_connect(p, 16, 16);
	if (dc->op == IBV_WR_SEND)
		err = post_recv(p->qpb, 2, bufb, BIG, mrb->lkey) ||
		      post_rdma(p->qpa, IBV_WR_SEND, 1, bufa, BIG, mra->lkey, 0, 0);
	else
		err = post_rdma(p->qpa, dc->op, 1, bufa, BIG, mra->lkey,
				(uintptr_t)bufb, mrb->rkey);
	if (err)
		die("%s: post: %s", dc->name, strerror(err));
	sleep_us(3000);		/* let the first packets go */

	t0 = now_ms();
	err = ibv_dereg_mr(*victim);
	took = now_ms() - t0;
	*victim = NULL;

	sa = first_status(p->cqa, 15000);
	sb = dc->op == IBV_WR_SEND ? first_status(p->cqb, 2000) : -2;
	if (err)
		fail(dc->name, "ibv_dereg_mr: %s", strerror(err));
	else if (took > DEREG_MAX_MS)
		fail(dc->name, "ibv_dereg_mr took %llu ms", (unsigned long long)took);
	else if (sa < 0)
		fail(dc->name, "no completion of the transfer on A within 15 s");
	else
		pass(dc->name, "dereg %llu ms, A: %s%s%s", (unsigned long long)took,
		     status_str(sa), sb == -2 ? "" : ", B: ",
		     sb == -2 ? "" : status_str(sb));

	if ((err = pair_destroy_qps(p)))
		fail(dc->name, "destroy after the dereg: %s", strerror(err));
	if (mra)
		ibv_dereg_mr(mra);
	if (mrb)
		ibv_dereg_mr(mrb);
}

static void t_dereg(const struct cfg *c)
{
	uint8_t *bufa = alloc_buf(BIG), *bufb = alloc_buf(BIG);
	struct pair p;
	size_t i;

	memset(bufa, 0xa5, BIG);
	memset(bufb, 0x5a, BIG);
	pair_open(&p, c);
	for (i = 0; i < ARRAY_SIZE(dereg_cases); i++)
		dereg_one(&p, &dereg_cases[i], bufa, bufb);
}

/* ------------------------------------------------------------------ */
/* limits: objects up to and past every advertised limit               */
/* ------------------------------------------------------------------ */

enum { L_PD, L_CQ, L_QP, L_MR, L_AH, L_SRQ, L_NUM };

struct lim {
	struct rdev *d;
	struct ibv_cq *cq;	/* of the QPs */
	void *buf;		/* of the MRs */
	struct ibv_ah_attr av;	/* of the AHs */
};

static void *lim_create(struct lim *l, int type)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = l->cq, .recv_cq = l->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 1, .max_sge = 1 } };

	switch (type) {
	case L_PD: return ibv_alloc_pd(l->d->ctx);
	case L_CQ: return ibv_create_cq(l->d->ctx, 1, NULL, NULL, 0);
	case L_QP: return ibv_create_qp(l->d->pd, &ia);
	case L_MR: return ibv_reg_mr(l->d->pd, l->buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	case L_SRQ: return ibv_create_srq(l->d->pd, &sa);
	default:   return ibv_create_ah(l->d->pd, &l->av);
	}
}

static int lim_destroy(int type, void *o)
{
	switch (type) {
	case L_PD: return ibv_dealloc_pd(o);
	case L_CQ: return ibv_destroy_cq(o);
	case L_QP: return ibv_destroy_qp(o);
	case L_MR: return ibv_dereg_mr(o);
	case L_SRQ: return ibv_destroy_srq(o);
	default:   return ibv_destroy_ah(o);
	}
}

static void lim_one(struct lim *l, int type, const char *name, int max)
{
	void **objs;
	int n, e, again;
	char tname[64];

	snprintf(tname, sizeof(tname), "limit-%s", name);
	if (max > LIMIT_MAX) {
		printf("SKIP %s: advertised %d, more than %d to create here (lower it with sroce's max_%s parameter)\n",
		       tname, max, LIMIT_MAX, name);
		return;
	}
	objs = calloc(max + 16, sizeof(*objs));
	if (!objs)
		die("out of memory");
	errno = 0;
	for (n = 0; n < max + 16; n++) {
		objs[n] = lim_create(l, type);
		if (!objs[n])
			break;
	}
	e = errno;
	/* a freed slot can be taken again */
	again = -1;
	if (n > 0 && !lim_destroy(type, objs[n - 1])) {
		objs[n - 1] = lim_create(l, type);
		again = objs[n - 1] != NULL;
		if (!again)
			n--;
	}
	if (n > max)
		fail(tname, "created %d, advertised max %d", n, max);
	else if (n < max - KERNEL_OBJS)
		fail(tname, "only %d of %d created: %s", n, max, strerror(e));
	else if (e != ENOMEM)
		fail(tname, "create %d of max %d failed with %s, not ENOMEM", n + 1,
		     max, strerror(e));
	else if (again != 1)
		fail(tname, "a freed slot could not be taken again: %s", strerror(errno));
	else
		pass(tname, "%d created (max %d, the core holds the rest), then ENOMEM", n, max);
	while (n-- > 0)
		if (objs[n] && lim_destroy(type, objs[n]))
			fail(tname, "destroy: %s", strerror(errno));
	free(objs);
}

/* Attributes above the maxima are EINVAL (man ibv_create_cq/qp). */
static void lim_attrs(struct lim *l)
{
	const struct ibv_device_attr *a = &l->d->attr;
	struct ibv_qp_init_attr ia = {
		.send_cq = l->cq, .recv_cq = l->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = a->max_qp_wr + 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_cq *cq;
	struct ibv_qp *qp;

	errno = 0;
	cq = ibv_create_cq(l->d->ctx, a->max_cqe + 1, NULL, NULL, 0);
	if (cq || errno != EINVAL)
		fail("limit-cqe", "cqe max_cqe+1: %s", cq ? "created" : strerror(errno));
	else
		pass("limit-cqe", "cqe %d: EINVAL", a->max_cqe + 1);
	if (cq)
		ibv_destroy_cq(cq);

	errno = 0;
	qp = ibv_create_qp(l->d->pd, &ia);
	if (qp || errno != EINVAL)
		fail("limit-qp-wr", "max_send_wr max_qp_wr+1: %s", qp ? "created" : strerror(errno));
	else
		pass("limit-qp-wr", "max_send_wr %d: EINVAL", a->max_qp_wr + 1);
	if (qp)
		ibv_destroy_qp(qp);

	ia.cap.max_send_wr = 1;
	ia.cap.max_send_sge = a->max_sge + 1;
	errno = 0;
	qp = ibv_create_qp(l->d->pd, &ia);
	if (qp || errno != EINVAL)
		fail("limit-qp-sge", "max_send_sge max_sge+1: %s", qp ? "created" : strerror(errno));
	else
		pass("limit-qp-sge", "max_send_sge %d: EINVAL", a->max_sge + 1);
	if (qp)
		ibv_destroy_qp(qp);
}

static void t_limits(const struct cfg *c)
{
	struct rdev d, peer;
	struct lim l = { .d = &d };
	const struct ibv_device_attr *a = &d.attr;

	rdev_open(&d, c->dev, c->gidx);
	rdev_open(&peer, c->dev2, c->gidx2);
	l.buf = alloc_buf(4096);
	l.av = (struct ibv_ah_attr){ .is_global = 1, .port_num = 1,
		.grh = { .sgid_index = c->gidx, .hop_limit = 64 } };
	memcpy(l.av.grh.dgid.raw, peer.gid.raw, 16);

	/* the PD rdev_open() took counts: one fewer for us */
	lim_one(&l, L_PD, "pd", a->max_pd - 1);
	lim_one(&l, L_CQ, "cq", a->max_cq);
	l.cq = ibv_create_cq(d.ctx, 1, NULL, NULL, 0);
	if (!l.cq)
		die("ibv_create_cq: %s", strerror(errno));
	lim_one(&l, L_QP, "qp", a->max_qp);
	lim_one(&l, L_MR, "mr", a->max_mr);
	lim_one(&l, L_AH, "ah", a->max_ah);
	lim_one(&l, L_SRQ, "srq", a->max_srq);
	lim_attrs(&l);
	ibv_destroy_cq(l.cq);
}

/* ------------------------------------------------------------------ */
/* scribble: garbage in the mapped rings                               */
/* ------------------------------------------------------------------ */

#define MAX_MAPS 256

struct maps {
	unsigned long start[MAX_MAPS], len[MAX_MAPS];
	int n;
};

/* The process's mappings of a uverbs device (the provider's rings). */
static void uverbs_maps(struct maps *m)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	unsigned long s, e;

	m->n = 0;
	if (!f)
		die("/proc/self/maps: %s", strerror(errno));
	while (fgets(line, sizeof(line), f) && m->n < MAX_MAPS) {
		if (!strstr(line, "/dev/infiniband/uverbs") ||
		    sscanf(line, "%lx-%lx", &s, &e) != 2)
			continue;
		m->start[m->n] = s;
		m->len[m->n++] = e - s;
	}
	fclose(f);
}

/* Mappings in @now that are not in @before, largest first, up to @max. */
static int new_maps(const struct maps *before, const struct maps *now,
		    void **out, size_t *len, int max)
{
	int i, j, k = 0;

	for (i = 0; i < now->n && k < max; i++) {
		for (j = 0; j < before->n; j++)
			if (before->start[j] == now->start[i])
				break;
		if (j < before->n)
			continue;
		out[k] = (void *)now->start[i];
		len[k++] = now->len[i];
	}
	if (k == 2 && len[1] > len[0]) {
		void *t = out[0];
		size_t tl = len[0];

		out[0] = out[1];
		len[0] = len[1];
		out[1] = t;
		len[1] = tl;
	}
	return k;
}

struct rings {
	struct sroce_queue_hdr *sq, *rq, *cq;
	uint32_t sq_num, rq_num, cq_num;
};

static void *slot(struct sroce_queue_hdr *h, uint32_t num, size_t size, uint32_t i)
{
	return (uint8_t *)h + SROCE_QUEUE_HDR_SIZE + (size_t)(i & (num - 1)) * size;
}

/*
 * Connects a pair whose A side's CQ and QP rings are located in
 * /proc/self/maps; SQ 32 slots (3 pages), RQ 4 slots (1 page).
 */
static void scribble_pair(struct pair *p, struct rings *r)
{
	struct maps m0, m1, m2;
	void *at[4];
	size_t len[4];
	uint32_t psna;

	uverbs_maps(&m0);
	p->cqa = ibv_create_cq(p->a.ctx, 128, NULL, NULL, 0);
	if (!p->cqa)
		die("ibv_create_cq: %s", strerror(errno));
	uverbs_maps(&m1);
	p->qpa = rc_qp(&p->a, p->cqa, 32, 4, &psna);
	uverbs_maps(&m2);
	if (new_maps(&m0, &m1, at, len, 4) != 1)
		die("cannot find the CQ ring in /proc/self/maps");
	r->cq = at[0];
	r->cq_num = (len[0] - SROCE_QUEUE_HDR_SIZE) / sizeof(struct sroce_cqe);
	if (new_maps(&m1, &m2, at, len, 4) != 2)
		die("cannot find the SQ and RQ rings in /proc/self/maps");
	r->sq = at[0];
	r->rq = at[1];
	r->sq_num = 32;
	r->rq_num = 4;
	r->cq_num = 1u << (31 - __builtin_clz(r->cq_num));
	pair_link(p, psna);
}

/* The empty POST_SEND command the provider uses as its doorbell. */
static int doorbell(struct ibv_qp *qp)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send core;
	} cmd;
	struct ib_uverbs_post_send_resp resp;
	ssize_t n;

	memset(&cmd, 0, sizeof(cmd));
	cmd.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	cmd.hdr.in_words = sizeof(cmd) / 4;
	cmd.hdr.out_words = sizeof(resp) / 4;
	cmd.core.response = (uintptr_t)&resp;
	cmd.core.qp_handle = qp->handle;
	cmd.core.wqe_size = sizeof(struct ib_uverbs_send_wr);
	n = write(qp->context->cmd_fd, &cmd, sizeof(cmd));
	return n == (ssize_t)sizeof(cmd) ? 0 : n < 0 ? errno : EIO;
}

enum scr {
	S_RANDOM, S_OPCODE, S_NUM_SGE, S_SGE_LEN, S_LKEY, S_INLINE_LEN,
	S_FLAGS, S_READ_RKEY, S_ATOMIC_ALIGN, S_PROD_AHEAD, S_PROD_BEHIND,
	S_RQ_WQE, S_RQ_PROD, S_CQ_CONS, S_CQ_GARBAGE, S_BIND, S_LOCAL_INV,
};

static const struct {
	const char *name;
	enum scr what;
	int must_fail;		/* a success CQE for the WQE would be wrong */
} scr_cases[] = {
	{ "scribble-random-wqe", S_RANDOM, 0 },
	{ "scribble-opcode", S_OPCODE, 1 },
	{ "scribble-num-sge", S_NUM_SGE, 1 },
	{ "scribble-sge-length", S_SGE_LEN, 1 },
	{ "scribble-lkey", S_LKEY, 1 },
	{ "scribble-inline-len", S_INLINE_LEN, 1 },
	{ "scribble-send-flags", S_FLAGS, 1 },
	{ "scribble-read-rkey", S_READ_RKEY, 1 },
	{ "scribble-atomic-align", S_ATOMIC_ALIGN, 1 },
	{ "scribble-sq-producer-ahead", S_PROD_AHEAD, 1 },
	{ "scribble-sq-producer-behind", S_PROD_BEHIND, 1 },
	{ "scribble-rq-wqe", S_RQ_WQE, 1 },
	{ "scribble-rq-producer", S_RQ_PROD, 1 },
	{ "scribble-cq-consumer", S_CQ_CONS, 0 },
	{ "scribble-cq-garbage", S_CQ_GARBAGE, 0 },
	{ "scribble-bind-mw", S_BIND, 1 },
	{ "scribble-local-inv", S_LOCAL_INV, 1 },
};

#define SCR_ID	0x5c5c

/*
 * A memory operation of garbage: a bind whose keys name no window, or a
 * local invalidate of the caller's own MR (not a fast-register MR) or of
 * a random key.
 */
static void scr_mem_wqe(struct sroce_send_wqe *w, enum scr what, uint64_t *rng,
			uint32_t lkey)
{
	w->num_sge = 0;
	if (what == S_BIND) {
		w->opcode = IBV_WR_BIND_MW;
		random_fill((uint8_t *)&w->wr, sizeof(w->wr), rng_next(rng));
		w->wr.bind.mr_lkey = lkey;
		return;
	}
	w->opcode = IBV_WR_LOCAL_INV;
	w->ex.invalidate_rkey = rng_next(rng) & 1 ? lkey : (uint32_t)rng_next(rng);
}

/* Writes a bad send WQE of kind @what at the SQ producer and publishes it. */
static void scr_wqe(struct rings *r, enum scr what, uint64_t *rng, void *buf,
		    uint32_t lkey)
{
	uint32_t prod = __atomic_load_n(&r->sq->producer, __ATOMIC_RELAXED);
	struct sroce_send_wqe *w = slot(r->sq, r->sq_num, sizeof(*w), prod);
	int i;

	memset(w, 0, sizeof(*w));
	w->wr_id = SCR_ID;
	w->opcode = IBV_WR_RDMA_WRITE;
	w->send_flags = IBV_SEND_SIGNALED;
	w->num_sge = 1;
	w->sge[0].addr = (uintptr_t)buf;
	w->sge[0].length = 64;
	w->sge[0].lkey = lkey;
	switch (what) {
	case S_RANDOM:
		random_fill((uint8_t *)w, sizeof(*w), rng_next(rng));
		break;
	case S_OPCODE:
		w->opcode = 0x40 + (rng_next(rng) & 0xffff);
		break;
	case S_NUM_SGE:
		w->num_sge = 0xffffffffu;
		break;
	case S_SGE_LEN:
		w->num_sge = SROCE_MAX_SGE;
		for (i = 0; i < SROCE_MAX_SGE; i++)
			w->sge[i] = (struct sroce_sge){ (uintptr_t)buf, 0x80000000u, lkey };
		break;
	case S_LKEY:
		w->sge[0].lkey = lkey ^ 0x5a5a5a00;
		w->sge[0].addr = rng_next(rng);
		break;
	case S_INLINE_LEN:
		w->opcode = IBV_WR_SEND;
		w->send_flags |= IBV_SEND_INLINE;
		w->inline_len = 0xfffffff0u;
		break;
	case S_FLAGS:
		w->send_flags = 0xffffffffu;
		break;
	case S_READ_RKEY:
		w->opcode = IBV_WR_RDMA_READ;
		w->wr.rdma.remote_addr = rng_next(rng);
		w->wr.rdma.rkey = (uint32_t)rng_next(rng);
		break;
	case S_BIND:
	case S_LOCAL_INV:
		scr_mem_wqe(w, what, rng, lkey);
		break;
	default:	/* S_ATOMIC_ALIGN */
		w->opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		w->sge[0].length = 8;
		w->wr.atomic.remote_addr = 0x1003;
		break;
	}
	__atomic_store_n(&r->sq->producer, prod + 1, __ATOMIC_RELEASE);
}

/* Scribbles kind @what; returns 1 when a WQE of ours is in the SQ. */
static int scr_apply(struct pair *p, struct rings *r, enum scr what,
		     uint64_t *rng, void *buf, struct ibv_mr *mra, struct ibv_mr *mrb)
{
	uint32_t v;

	switch (what) {
	case S_PROD_AHEAD:
		v = __atomic_load_n(&r->sq->consumer, __ATOMIC_ACQUIRE);
		__atomic_store_n(&r->sq->producer, v + r->sq_num + 7, __ATOMIC_RELEASE);
		return 1;
	case S_PROD_BEHIND:
		v = __atomic_load_n(&r->sq->consumer, __ATOMIC_ACQUIRE);
		__atomic_store_n(&r->sq->producer, v - 1, __ATOMIC_RELEASE);
		return 1;
	case S_RQ_WQE: {
		uint32_t prod = r->rq->producer;
		struct sroce_recv_wqe *w = slot(r->rq, r->rq_num, sizeof(*w), prod);

		random_fill((uint8_t *)w, sizeof(*w), rng_next(rng));
		w->wr_id = SCR_ID;
		w->num_sge = 0x7fffffff;
		__atomic_store_n(&r->rq->producer, prod + 1, __ATOMIC_RELEASE);
		/* B sends to A: A's responder takes the garbage WQE */
		post_rdma(p->qpb, IBV_WR_SEND, 3, (uint8_t *)buf + 4096, 64, mrb->lkey, 0, 0);
		return 0;
	}
	case S_RQ_PROD:
		r->rq->producer += 1000;
		post_rdma(p->qpb, IBV_WR_SEND, 3, (uint8_t *)buf + 4096, 64, mrb->lkey, 0, 0);
		return 0;
	case S_CQ_CONS:
		__atomic_store_n(&r->cq->consumer, r->cq->producer + 1000, __ATOMIC_RELEASE);
		r->cq->producer ^= 0x12345;
		post_rdma(p->qpa, IBV_WR_RDMA_WRITE, 4, buf, 64, mra->lkey,
			  (uintptr_t)buf + 4096, mrb->rkey);
		return 0;
	case S_CQ_GARBAGE:
		random_fill((uint8_t *)r->cq + SROCE_QUEUE_HDR_SIZE,
			    (size_t)r->cq_num * sizeof(struct sroce_cqe), rng_next(rng));
		post_rdma(p->qpa, IBV_WR_RDMA_WRITE, 4, buf, 64, mra->lkey,
			  (uintptr_t)buf + 4096, mrb->rkey);
		return 0;
	default:
		scr_wqe(r, what, rng, buf, mra->lkey);
		return 1;
	}
}

/*
 * What came of the scribble on A: 1 error CQE, 2 queue flagged dead, 3 QP
 * in error, 0 nothing; *@ok_cqe set when our WQE completed successfully.
 */
static int scr_outcome(struct pair *p, struct rings *r, int *ok_cqe)
{
	uint64_t end = now_ms() + 3000;
	struct ibv_wc wc;
	int seen = 0, n, st;

	*ok_cqe = 0;
	while (now_ms() < end && !seen) {
		n = ibv_poll_cq(p->cqa, 1, &wc);
		if (n < 0)
			seen = 2;	/* the provider saw the ring dead */
		else if (n == 1 && wc.status != IBV_WC_SUCCESS)
			seen = 1;
		else if (n == 1 && wc.wr_id == SCR_ID)
			*ok_cqe = 1;
		if ((r->sq->flags | r->rq->flags | r->cq->flags) & SROCE_QUEUE_F_ERROR)
			seen = 2;
		st = qp_state(p->qpa);
		if (!seen && (st == IBV_QPS_ERR || st == IBV_QPS_SQE))
			seen = 3;
		if (!n)
			sleep_us(1000);
	}
	return seen;
}

static void scr_one(struct pair *p, int ci, uint64_t *rng, uint8_t *buf)
{
	const char *name = scr_cases[ci].name;
	struct ibv_mr *mra, *mrb;
	struct rings r;
	int wqe, db, seen, ok_cqe, err;
	static const char *const what[] = { "nothing", "error CQE", "queue in error",
					     "QP in error" };

	scribble_pair(p, &r);
	mra = reg_mr(p->a.pd, buf, 8192, RC_ACCESS);
	mrb = reg_mr(p->b.pd, buf, 8192, RC_ACCESS);
	post_recv(p->qpb, 9, buf + 4096, 4096, mrb->lkey);

	wqe = scr_apply(p, &r, scr_cases[ci].what, rng, buf, mra, mrb);
	db = wqe ? doorbell(p->qpa) : 0;
	seen = scr_outcome(p, &r, &ok_cqe);
	if (scr_cases[ci].must_fail && ok_cqe)
		fail(name, "the bad WQE completed successfully");
	else if (scr_cases[ci].must_fail && !db && !seen)
		fail(name, "no errno, error CQE or error state within 3 s");
	else
		pass(name, "doorbell %s, then %s", db ? strerror(db) : "ok", what[seen]);

	if ((err = pair_destroy_qps(p)))
		fail(name, "destroy: %s", strerror(err));
	if (ibv_dereg_mr(mra) || ibv_dereg_mr(mrb))
		fail(name, "dereg: %s", strerror(errno));
}

/* A fresh pair moves data intact: RDMA WRITE then SEND, bytes compared. */
static void scr_after(struct pair *p, uint8_t *buf)
{
	const size_t len = 65536;
	uint8_t *src = buf, *dst = buf + len, *rcv = buf + 2 * len;
	struct ibv_mr *mra = reg_mr(p->a.pd, src, len, RC_ACCESS);
	struct ibv_mr *mrb = reg_mr(p->b.pd, dst, 2 * len, RC_ACCESS);
	struct ibv_wc wc;
	int ok;

	pair_connect(p, 16, 16);
	pattern_fill(src, len, 65);
	memset(dst, 0, 2 * len);
	ok = !post_recv(p->qpb, 7, rcv, len, mrb->lkey) &&
	     !post_rdma(p->qpa, IBV_WR_RDMA_WRITE, 5, src, len, mra->lkey,
			(uintptr_t)dst, mrb->rkey) &&
	     cq_wait(p->cqa, &wc, 10000) == 1 && wc.status == IBV_WC_SUCCESS &&
	     !post_rdma(p->qpa, IBV_WR_SEND, 6, src, len, mra->lkey, 0, 0) &&
	     cq_wait(p->cqa, &wc, 10000) == 1 && wc.status == IBV_WC_SUCCESS &&
	     cq_wait(p->cqb, &wc, 10000) == 1 && wc.status == IBV_WC_SUCCESS;
	if (!ok)
		fail("scribble-after", "transfer on a new pair failed: %s", wc_str(&wc));
	else if (memcmp(src, dst, len) || memcmp(src, rcv, len))
		fail("scribble-after", "data differ at byte %ld", first_diff(src, dst, len));
	else
		pass("scribble-after", "64 KiB RDMA WRITE and SEND verified");
	pair_destroy_qps(p);
	ibv_dereg_mr(mra);
	ibv_dereg_mr(mrb);
}

static void t_scribble(const struct cfg *c)
{
	uint8_t *buf = alloc_buf(3 * 65536);
	uint64_t rng = 0x5eed0000 ^ (uint64_t)getpid();
	struct pair p;
	size_t i;

	pair_open(&p, c);
	for (i = 0; i < ARRAY_SIZE(scr_cases); i++)
		scr_one(&p, i, &rng, buf);
	scr_after(&p, buf);
}

/* ------------------------------------------------------------------ */
/* memcg: ring memory is charged to the caller                         */
/* ------------------------------------------------------------------ */

/* Path of file @name of our cgroup (cgroup2) in @path; -1 if none. */
static int memcg_file(const char *name, char *path, size_t size)
{
	char line[4096];
	FILE *f = fopen("/proc/self/cgroup", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3))
			break;
	fclose(f);
	line[strcspn(line, "\n")] = 0;
	if (strncmp(line, "0::", 3))
		return -1;
	snprintf(path, size, "/sys/fs/cgroup%s/%s", line + 3, name);
	return 0;
}

static long memcg_current(void)
{
	char path[4200];
	long v = -1;
	FILE *f;

	if (memcg_file("memory.current", path, sizeof(path)))
		return -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static void t_memcg(const struct cfg *c)
{
	struct rdev d;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	long before, after, freed = -1, rings;
	uint32_t psn;
	uint64_t end;

	if (memcg_current() < 0) {
		printf("SKIP memcg: not in a cgroup with the memory controller\n");
		return;
	}
	rdev_open(&d, c->dev, c->gidx);
	before = memcg_current();
	cq = ibv_create_cq(d.ctx, d.attr.max_cqe, NULL, NULL, 0);
	if (!cq)
		die("ibv_create_cq %d: %s", d.attr.max_cqe, strerror(errno));
	qp = rc_qp(&d, cq, d.attr.max_qp_wr, d.attr.max_qp_wr, &psn);
	after = memcg_current();
	rings = (long)d.attr.max_cqe * sizeof(struct sroce_cqe) +
		(long)d.attr.max_qp_wr * (sizeof(struct sroce_send_wqe) +
					  sizeof(struct sroce_recv_wqe));
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	/* rings are freed after an RCU grace period */
	for (end = now_ms() + 5000; now_ms() < end; sleep_us(50000)) {
		freed = memcg_current();
		if (after - freed >= rings * 9 / 10)
			break;
	}
	if (after - before < rings * 9 / 10)
		fail("memcg", "memory.current grew by %ld bytes for %ld bytes of rings",
		     after - before, rings);
	else if (after - freed < rings * 9 / 10)
		fail("memcg", "memory.current fell by only %ld bytes after destroy",
		     after - freed);
	else
		pass("memcg", "+%ld KiB on create, -%ld KiB on destroy, rings %ld KiB",
		     (after - before) >> 10, (after - freed) >> 10, rings >> 10);
}

/* Writes @v to the open memory.max @fd; 0 or an errno value. */
static int memcg_set_max(int fd, const char *v)
{
	return pwrite(fd, v, strlen(v), 0) == (ssize_t)strlen(v) ? 0 : errno;
}

/* An RC QP with a send queue of @swr WQEs and one receive WQE, or NULL. */
static struct ibv_qp *sq_qp(struct rdev *d, struct ibv_cq *cq, uint32_t swr)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = swr, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(d->pd, &ia);
}

/*
 * memcg_sq: the send queue's kernel state (an entry per WQE holding a
 * copy of it: the ring's size again at least) is charged to the caller as
 * well.  memory.max is set to what is in use plus the rings plus
 * SQ_SLACK: a QP whose rings alone are charged fits, one whose kernel
 * state is charged too does not.
 */
#define SQ_SLACK	(2l << 20)

static void t_memcg_sq(const struct cfg *c)
{
	char path[4200], lim[32];
	struct rdev d;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	long rings, state, cur;
	int fd, err;

	if (memcg_current() < 0 || memcg_file("memory.max", path, sizeof(path))) {
		printf("SKIP memcg_sq: not in a cgroup with the memory controller\n");
		return;
	}
	fd = open(path, O_WRONLY);
	if (fd < 0)
		die("open %s: %s", path, strerror(errno));
	rdev_open(&d, c->dev, c->gidx);
	cq = ibv_create_cq(d.ctx, 16, NULL, NULL, 0);
	if (!cq)
		die("ibv_create_cq: %s", strerror(errno));
	state = (long)d.attr.max_qp_wr * sizeof(struct sroce_send_wqe);
	rings = state + 3 * 4096;	/* the SQ, the 1-WQE RQ, headers */
	if (state < 2 * SQ_SLACK) {
		printf("SKIP memcg_sq: max_qp_wr %d too small to tell\n",
		       d.attr.max_qp_wr);
		return;
	}
	cur = memcg_current();
	snprintf(lim, sizeof(lim), "%ld", cur + rings + SQ_SLACK);
	err = memcg_set_max(fd, lim);
	if (err)
		die("write %s to %s: %s", lim, path, strerror(err));
	qp = sq_qp(&d, cq, d.attr.max_qp_wr);
	err = qp ? 0 : errno;
	if (memcg_set_max(fd, "max"))
		die("write max to %s: %s", path, strerror(errno));
	if (qp) {
		fail("memcg_sq", "a %d-WQE send queue created under memory.max = in use + %ld KiB (rings %ld KiB): its kernel state is not charged",
		     d.attr.max_qp_wr, (rings + SQ_SLACK) >> 10, rings >> 10);
		ibv_destroy_qp(qp);
		return;
	}
	if (err != ENOMEM) {
		fail("memcg_sq", "ibv_create_qp under the limit: %s, expected ENOMEM",
		     strerror(err));
		return;
	}
	qp = sq_qp(&d, cq, d.attr.max_qp_wr);
	if (!qp) {
		fail("memcg_sq", "ibv_create_qp without the limit: %s",
		     strerror(errno));
		return;
	}
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	close(fd);
	pass("memcg_sq", "ENOMEM under memory.max = in use + %ld KiB, created without it",
	     (rings + SQ_SLACK) >> 10);
}

/* ------------------------------------------------------------------ */
/* main                                                                */
/* ------------------------------------------------------------------ */

static const struct {
	const char *name;
	void (*run)(const struct cfg *c);
} tests[] = {
	{ "dump", t_dump },
	{ "dereg", t_dereg },
	{ "limits", t_limits },
	{ "scribble", t_scribble },
	{ "memcg", t_memcg },
	{ "memcg_sq", t_memcg_sq },
};

/* Runs @i in a child; FAIL lines when it dies or outlives CHILD_MAX_S. */
static void run_test(int i, const struct cfg *c)
{
	uint64_t end = now_ms() + (uint64_t)(CHILD_MAX_S + c->secs) * 1000;
	int st;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		tests[i].run(c);
		fflush(stdout);
		_exit(nfail ? 1 : 0);
	}
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (now_ms() > end) {
			fail(tests[i].name, "still running after %d s (stuck in a verb?)",
			     CHILD_MAX_S + c->secs);
			kill(pid, SIGKILL);
			return;
		}
		sleep_us(100000);
	}
	if (WIFSIGNALED(st))
		fail(tests[i].name, "killed by signal %d", WTERMSIG(st));
	else if (WEXITSTATUS(st) == 2)
		fail(tests[i].name, "setup failed (see stderr)");
	else if (WEXITSTATUS(st))
		nfail++;
}

int main(int argc, char **argv)
{
	struct cfg c = { .gidx = -1, .gidx2 = -1, .secs = 20 };
	const char *which = "dump,dereg,limits,scribble,memcg,memcg_sq";
	char list[256];
	size_t i;
	int opt;

	prog_name = "hostile";
	while ((opt = getopt(argc, argv, "d:g:D:G:t:s:")) != -1) {
		switch (opt) {
		case 'd': c.dev = optarg; break;
		case 'g': c.gidx = atoi(optarg); break;
		case 'D': c.dev2 = optarg; break;
		case 'G': c.gidx2 = atoi(optarg); break;
		case 't': which = optarg; break;
		case 's': c.secs = atoi(optarg); break;
		default: die("usage: hostile -d DEV -g GIDX -D DEV2 -G GIDX2 [-t TESTS] [-s SECS]");
		}
	}
	if (!c.dev || !c.dev2 || c.gidx < 0 || c.gidx2 < 0)
		die("usage: hostile -d DEV -g GIDX -D DEV2 -G GIDX2 [-t TESTS] [-s SECS]");
	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(list, sizeof(list), ",%s,", which);
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		char key[32];

		snprintf(key, sizeof(key), ",%s,", tests[i].name);
		if (strstr(list, key))
			run_test(i, &c);
	}
	return nfail ? 1 : 0;
}
