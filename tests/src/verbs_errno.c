// SPDX-License-Identifier: GPL-2.0
/*
 * verbs_errno: bad arguments to the verbs fail with the errno that rdma-core,
 * ib_core and the IBTA specify, leave the objects they name unchanged, and
 * break nothing: after all the bad calls, the QPs that were refused illegal
 * transitions are brought up properly and pass a send/recv and RDMA ping.
 *
 * Usage: verbs_errno -d DEV -g GIDX [-D DEV2 -G GIDX2] [-v]
 *   DEV, GIDX    the device under test and the index of a RoCE v2 GID on
 *                port 1 (tests/lib.sh gid_index); all bad calls go to DEV
 *   DEV2, GIDX2  the peer of the ping (default DEV/GIDX: loopback)
 *   -v           print the source of each expectation on PASS lines too
 *
 * Output: one `PASS name (got E)`, `FAIL name: why` or `SKIP name: why`
 * line per case of the table cases[] below, in table order; exit status 1
 * if any case failed, 2 if the setup failed before the first case.
 *
 * Every expectation is a row of cases[]: the accepted results (0 = must
 * succeed) and a comment naming where the value comes from:
 *   man X(3)   the rdma-core 44 manual page
 *   IBTA       InfiniBand Architecture Specification vol. 1 (1.4), with
 *              annex A17 (RoCEv2); chapter 10 (software transport
 *              interface, QP state machine 10.3) and 11 (verbs)
 *   ib_core    Linux 6.1 drivers/infiniband/core, which checks some
 *              arguments before any driver sees them (file: function)
 *   rxe        Linux 6.1 drivers/infiniband/sw/rxe, the software RoCE
 *              device sroce must behave like; mlx5 where it differs
 * Where two errnos are listed, the documents and the reference drivers
 * disagree and either is right.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <infiniband/verbs.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define END		(-1)	/* ends a list of accepted results */
#define X(...)		{ __VA_ARGS__, END }
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define BUF_SIZE	65536
#define RQ_PSN_A	0x00a0a0	/* first PSN B sends to A */
#define RQ_PSN_B	0x00b0b0	/* first PSN A sends to B */
#define UD_QKEY		0x11111111
#define NO_SUCH_QPN	0xfffff0	/* UD sends go here: nobody answers */
#define RECV_INIT_ID	0x1717		/* the receive A posts in INIT */
#define QUIET_MS	500	/* X's timeouts (timeout 14: 67 ms) have run out */
#define WATCHDOG_S	150	/* below the 180 s t-40 gives it */

/* Indices of the QPs the modify rows act on. */
enum { QPA, QPU };

/* An attribute a modify row overrides with its @value. */
enum field {
	F_NONE, F_STATE, F_PORT, F_PKEY, F_MTU, F_DQPN, F_MAX_DEST_RD,
	F_MIN_RNR, F_TIMEOUT, F_RETRY, F_RNR_RETRY, F_MAX_RD, F_SGID,
	F_AV_PORT, F_NO_GRH, F_QKEY, F_ALT_PATH,
};

/* Values a modify row can only name, resolved at run time. */
enum {
	V_ABOVE_ACTIVE_MTU = -100,	/* port's active MTU + 1 */
	V_PKEY_TBL_LEN,			/* first index past the P_Key table */
	V_EMPTY_GID,			/* an index with no GID */
	V_ABOVE_RD_ATOM,		/* max_qp_rd_atom + 1 */
	V_ABOVE_INIT_RD_ATOM,		/* max_qp_init_rd_atom + 1 */
};

struct t {
	struct ibv_context *ctx, *ctx1;	/* device under test, peer */
	struct ibv_device_attr dattr;
	struct ibv_port_attr pattr;
	union ibv_gid gid, gid1;
	int gidx, gidx1, empty_gidx;
	struct ibv_pd *pd, *pd1;
	struct ibv_cq *cq, *cq1, *cqu;	/* A's, B's and the UD QP's CQ */
	struct ibv_qp *qpa, *qpb, *qpu;	/* RC A (dev) <-> RC B (peer), UD */
	struct ibv_ah *ah;		/* dev -> peer GID, for the UD QP */
	char *buf, *buf1;
	struct ibv_mr *mr, *mr1;
	char why[512];			/* set by a case: fails it */
	const char *skip;		/* set by a case: skips it */
	char detail[128];		/* set by a case: shown on PASS */
	int verbose;
};

struct tcase {
	const char *name;
	int (*run)(struct t *t, const struct tcase *c);
	int expect[4];			/* accepted results, END-terminated */
	const char *src;		/* where the expectation comes from */
	int step;			/* later cases need this one to succeed */
	/* modify rows (run_modify) */
	int qp;				/* QPA or QPU */
	enum ibv_qp_state to;		/* target state of the good attributes */
	int drop;			/* mask bits removed from the good mask */
	int add;			/* mask bits added */
	enum field field;		/* attribute overridden ... */
	int value;			/* ... with this value (or a V_*) */
	int unprivileged;		/* in a child without CAP_NET_RAW */
};

static void whyf(struct t *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void whyf(struct t *t, const char *fmt, ...)
{
	size_t n = strlen(t->why);
	va_list ap;

	if (n && n < sizeof(t->why) - 2) {
		t->why[n++] = ';';
		t->why[n++] = ' ';
		t->why[n] = 0;
	}
	va_start(ap, fmt);
	vsnprintf(t->why + n, sizeof(t->why) - n, fmt, ap);
	va_end(ap);
}

static const char *errname(int e)
{
	static char s[64];

	switch (e) {
	case 0: return "success";
	case EINVAL: return "EINVAL";
	case ENOMEM: return "ENOMEM";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EBUSY: return "EBUSY";
	case EFAULT: return "EFAULT";
	case EPERM: return "EPERM";
	case ENODATA: return "ENODATA";
	case EACCES: return "EACCES";
	case ENOSYS: return "ENOSYS";
	case ENOENT: return "ENOENT";
	case EAGAIN: return "EAGAIN";
	}
	snprintf(s, sizeof(s), "errno %d (%s)", e, strerror(e));
	return s;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* rdma-core returns errno values; a few paths return -1 and set errno. */
static int rc_errno(int rc)
{
	return rc < 0 ? errno : rc;
}

/* The QP's state from ibv_query_qp, or -1. */
static int qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return -1;
	return a.qp_state;
}

static const char *state_name(int s)
{
	static const char *const n[] = {
		"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"
	};

	return s >= 0 && s < (int)ARRAY_SIZE(n) ? n[s] : "?";
}

/* One CQE within @ms milliseconds: 1, 0 (none), -1 (poll error). */
static int cq_wait(struct ibv_cq *cq, struct ibv_wc *wc, int ms)
{
	uint64_t end = now_ms() + (uint64_t)ms;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n < 0 ? -1 : 1;
		if (now_ms() >= end)
			return 0;
		usleep(100);
	}
}

/* Waits for one successful CQE with @wr_id on @cq; records why not. */
static int expect_cqe(struct t *t, struct ibv_cq *cq, uint64_t wr_id,
		      enum ibv_wc_opcode op, const char *what)
{
	struct ibv_wc wc;
	int n = cq_wait(cq, &wc, 5000);

	if (n <= 0) {
		whyf(t, "%s: %s", what, n ? "ibv_poll_cq failed" : "no completion in 5 s");
		return -1;
	}
	if (wc.status != IBV_WC_SUCCESS || wc.wr_id != wr_id || wc.opcode != op) {
		whyf(t, "%s: completion wr_id %llu status %s opcode %d, expected wr_id %llu success opcode %d",
		     what, (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status),
		     wc.opcode, (unsigned long long)wr_id, op);
		return -1;
	}
	return (int)wc.byte_len;
}

/* No CQE arrives on @cq within @ms milliseconds. */
static void expect_no_cqe(struct t *t, struct ibv_cq *cq, int ms, const char *what)
{
	struct ibv_wc wc;

	if (cq_wait(cq, &wc, ms) > 0)
		whyf(t, "%s: unexpected completion wr_id %llu status %s", what,
		     (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status));
}

/* ------------------------------------------------------------------ */
/* Memory regions                                                      */
/* ------------------------------------------------------------------ */

/* ibv_reg_mr(@addr, @len, @access); an MR that should not exist is freed. */
static int try_reg(struct t *t, void *addr, size_t len, int access)
{
	struct ibv_mr *mr;

	errno = 0;
	mr = ibv_reg_mr(t->pd, addr, len, (unsigned int)access);
	if (!mr)
		return errno ? errno : -1;
	ibv_dereg_mr(mr);
	return 0;
}

static int mr_remote_write_only(struct t *t, const struct tcase *c)
{
	(void)c;
	return try_reg(t, t->buf, 4096, IBV_ACCESS_REMOTE_WRITE);
}

static int mr_remote_atomic_only(struct t *t, const struct tcase *c)
{
	(void)c;
	return try_reg(t, t->buf, 4096, IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_REMOTE_READ);
}

static int mr_unknown_bit(struct t *t, const struct tcase *c)
{
	(void)c;
	return try_reg(t, t->buf, 4096, IBV_ACCESS_LOCAL_WRITE | (1 << 12));
}

static int mr_on_demand(struct t *t, const struct tcase *c)
{
	struct ibv_device_attr_ex ax = {};

	(void)c;
	if (!ibv_query_device_ex(t->ctx, NULL, &ax) &&
	    (ax.odp_caps.general_caps & IBV_ODP_SUPPORT)) {
		t->skip = "the device supports on-demand paging";
		return 0;
	}
	return try_reg(t, t->buf, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
}

static int mr_zero_length(struct t *t, const struct tcase *c)
{
	(void)c;
	return try_reg(t, t->buf, 0, IBV_ACCESS_LOCAL_WRITE);
}

static int mr_above_max_size(struct t *t, const struct tcase *c)
{
	(void)c;
	if (t->dattr.max_mr_size >= (uint64_t)SIZE_MAX / 2) {
		t->skip = "max_mr_size is not below the address space";
		return 0;
	}
	return try_reg(t, t->buf, (size_t)t->dattr.max_mr_size + 1, IBV_ACCESS_LOCAL_WRITE);
}

static int mr_wraps(struct t *t, const struct tcase *c)
{
	(void)c;
	/* addr + length passes 2^64 */
	return try_reg(t, t->buf, (size_t)0 - (uintptr_t)t->buf + 4096,
		       IBV_ACCESS_LOCAL_WRITE);
}

static int mr_unmapped(struct t *t, const struct tcase *c)
{
	void *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)c;
	if (p == MAP_FAILED) {
		whyf(t, "mmap: %s", strerror(errno));
		return -1;
	}
	munmap(p, 8192);
	return try_reg(t, p, 8192, IBV_ACCESS_LOCAL_WRITE);
}

static int mr_null(struct t *t, const struct tcase *c)
{
	(void)c;
	return try_reg(t, NULL, 4096, IBV_ACCESS_LOCAL_WRITE);
}

static int mr_good(struct t *t, const struct tcase *c)
{
	(void)c;
	return try_reg(t, t->buf, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		       IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
}

/*
 * RDMA FLUSH rights (IBTA 1.5 annex A19.4), IBV_ACCESS_FLUSH_GLOBAL and
 * _PERSISTENT of rdma-core 45, which 44 does not name.  Linux 6.2 and
 * later take the global one on a device that says
 * IB_UVERBS_DEVICE_FLUSH_GLOBAL (device_cap_flags_ex bit 38), as sroce
 * does there, and refuse the persistent one without bit 39 (no persistent
 * memory) with EOPNOTSUPP (ib_core ib_check_mr_access); 6.1 refuses both
 * with EINVAL (bits outside its IB_ACCESS_SUPPORTED).
 */
#define ACCESS_FLUSH_GLOBAL	(1 << 8)
#define ACCESS_FLUSH_PERSISTENT	(1 << 9)
#define DEVICE_FLUSH_GLOBAL	(1ULL << 38)
#define DEVICE_FLUSH_PERSISTENT	(1ULL << 39)

/* The running kernel is Linux 6.2 or later (it knows the flush bits). */
static int kernel_has_flush(void)
{
	struct utsname u;
	int major, minor;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return 0;
	return major > 6 || (major == 6 && minor >= 2);
}

/*
 * ibv_reg_mr with flush right @access: the result and the device's @cap
 * bit as this kernel has them (see above), @refused when 6.2+ refuses it.
 */
static int mr_flush(struct t *t, int access, uint64_t cap, int refused)
{
	struct ibv_device_attr_ex ax = {};
	int rc, want, has_cap, new_kernel = kernel_has_flush();

	if (ibv_query_device_ex(t->ctx, NULL, &ax)) {
		whyf(t, "ibv_query_device_ex: %s", strerror(errno));
		return -1;
	}
	has_cap = !!(ax.device_cap_flags_ex & cap);
	rc = try_reg(t, t->buf, 4096, IBV_ACCESS_LOCAL_WRITE |
		     IBV_ACCESS_REMOTE_READ | access);
	want = !new_kernel ? EINVAL : refused;
	if (rc != want)
		whyf(t, "got %s on Linux %s, want %s", errname(rc),
		     new_kernel ? "6.2+" : "6.1", errname(want));
	if (has_cap != (new_kernel && !refused))
		whyf(t, "device_cap_flags_ex %#llx: bit %d %s on Linux %s",
		     (unsigned long long)ax.device_cap_flags_ex,
		     __builtin_ctzll(cap), has_cap ? "set" : "clear",
		     new_kernel ? "6.2+" : "6.1");
	return rc;
}

static int mr_flush_global(struct t *t, const struct tcase *c)
{
	(void)c;
	return mr_flush(t, ACCESS_FLUSH_GLOBAL, DEVICE_FLUSH_GLOBAL, 0);
}

static int mr_flush_persistent(struct t *t, const struct tcase *c)
{
	(void)c;
	return mr_flush(t, ACCESS_FLUSH_PERSISTENT, DEVICE_FLUSH_PERSISTENT,
			EOPNOTSUPP);
}

/* ------------------------------------------------------------------ */
/* Completion queues                                                   */
/* ------------------------------------------------------------------ */

static int try_cq(struct t *t, int cqe, int vector)
{
	struct ibv_cq *cq;

	errno = 0;
	cq = ibv_create_cq(t->ctx, cqe, NULL, NULL, vector);
	if (!cq)
		return errno ? errno : -1;
	ibv_destroy_cq(cq);
	return 0;
}

static int cq_above_max(struct t *t, const struct tcase *c)
{
	(void)c;
	return try_cq(t, t->dattr.max_cqe + 1, 0);
}

static int cq_zero(struct t *t, const struct tcase *c)
{
	(void)c;
	return try_cq(t, 0, 0);
}

static int cq_negative(struct t *t, const struct tcase *c)
{
	(void)c;
	return try_cq(t, -1, 0);
}

static int cq_vector_num(struct t *t, const struct tcase *c)
{
	(void)c;
	return try_cq(t, 16, t->ctx->num_comp_vectors);
}

static int cq_vector_negative(struct t *t, const struct tcase *c)
{
	(void)c;
	return try_cq(t, 16, -1);
}

/* Destroying a completion channel that a CQ still uses. */
static int channel_busy(struct t *t, const struct tcase *c)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(t->ctx);
	struct ibv_cq *cq;
	int rc, r2;

	(void)c;
	if (!ch) {
		whyf(t, "ibv_create_comp_channel: %s", strerror(errno));
		return -1;
	}
	cq = ibv_create_cq(t->ctx, 16, NULL, ch, 0);
	if (!cq) {
		whyf(t, "ibv_create_cq on a channel: %s", strerror(errno));
		ibv_destroy_comp_channel(ch);
		return -1;
	}
	rc = rc_errno(ibv_destroy_comp_channel(ch));
	if (rc == 0)
		return 0;	/* the channel is gone; leak the CQ */
	r2 = rc_errno(ibv_destroy_cq(cq));
	if (r2)
		whyf(t, "then ibv_destroy_cq: %s", errname(r2));
	r2 = rc_errno(ibv_destroy_comp_channel(ch));
	if (r2)
		whyf(t, "then ibv_destroy_comp_channel without CQ: %s", errname(r2));
	return rc;
}

/* ------------------------------------------------------------------ */
/* QP creation, SRQ, MW                                                 */
/* ------------------------------------------------------------------ */

static int try_qp(struct t *t, enum ibv_qp_type type, struct ibv_qp_cap cap)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = t->cq, .recv_cq = t->cq, .qp_type = type, .cap = cap,
	};
	struct ibv_qp *qp;

	errno = 0;
	qp = ibv_create_qp(t->pd, &ia);
	if (!qp)
		return errno ? errno : -1;
	ibv_destroy_qp(qp);
	return 0;
}

#define CAP(sw, rw, ss, rs, il) \
	((struct ibv_qp_cap){ .max_send_wr = (sw), .max_recv_wr = (rw), \
			      .max_send_sge = (ss), .max_recv_sge = (rs), \
			      .max_inline_data = (il) })

static int qp_send_wr(struct t *t, const struct tcase *c)
{
	(void)c;
	return try_qp(t, IBV_QPT_RC, CAP(t->dattr.max_qp_wr + 1, 4, 1, 1, 0));
}

static int qp_recv_wr(struct t *t, const struct tcase *c)
{
	(void)c;
	return try_qp(t, IBV_QPT_RC, CAP(4, t->dattr.max_qp_wr + 1, 1, 1, 0));
}

static int qp_send_sge(struct t *t, const struct tcase *c)
{
	(void)c;
	return try_qp(t, IBV_QPT_RC, CAP(4, 4, t->dattr.max_sge + 1, 1, 0));
}

static int qp_recv_sge(struct t *t, const struct tcase *c)
{
	(void)c;
	return try_qp(t, IBV_QPT_RC, CAP(4, 4, 1, t->dattr.max_sge + 1, 0));
}

static int qp_inline(struct t *t, const struct tcase *c)
{
	(void)c;
	return try_qp(t, IBV_QPT_RC, CAP(4, 4, 1, 1, 1 << 20));
}

static int qp_raw_packet(struct t *t, const struct tcase *c)
{
	(void)c;
	return try_qp(t, IBV_QPT_RAW_PACKET, CAP(4, 4, 1, 1, 0));
}

static int qp_undefined_type(struct t *t, const struct tcase *c)
{
	(void)c;
	return try_qp(t, (enum ibv_qp_type)0x42, CAP(4, 4, 1, 1, 0));
}

static struct ibv_sge sge_of(struct t *t, size_t off, uint32_t len);

/* An SRQ of @max_wr WQEs of @max_sge entries; errno on failure. */
static int try_srq(struct t *t, uint32_t max_wr, uint32_t max_sge,
		   struct ibv_srq **keep)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = max_wr, .max_sge = max_sge } };
	struct ibv_srq *srq;

	if (!t->dattr.max_srq) {
		t->skip = "the device offers no SRQ (max_srq 0)";
		return 0;
	}
	errno = 0;
	srq = ibv_create_srq(t->pd, &sa);
	if (!srq)
		return errno ? errno : -1;
	if (keep)
		*keep = srq;
	else
		ibv_destroy_srq(srq);
	return 0;
}

static int srq_max_wr(struct t *t, const struct tcase *c)
{
	(void)c;
	return try_srq(t, t->dattr.max_srq_wr + 1, 1, NULL);
}

static int srq_max_sge(struct t *t, const struct tcase *c)
{
	(void)c;
	return try_srq(t, 16, t->dattr.max_srq_sge + 1, NULL);
}

/* ibv_query_srq reports what ibv_create_srq granted, the limit disarmed. */
static int srq_good(struct t *t, const struct tcase *c)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 10, .max_sge = 2 } };
	struct ibv_srq_attr qa;
	struct ibv_srq *srq;
	int rc;

	(void)c;
	if (!t->dattr.max_srq) {
		t->skip = "the device offers no SRQ (max_srq 0)";
		return 0;
	}
	srq = ibv_create_srq(t->pd, &sa);
	if (!srq)
		return errno;
	rc = ibv_query_srq(srq, &qa);
	if (!rc && (sa.attr.max_wr < 10 || sa.attr.max_sge < 2 ||
		    qa.max_wr != sa.attr.max_wr || qa.max_sge != sa.attr.max_sge ||
		    qa.srq_limit))
		whyf(t, "created max_wr %u max_sge %u, queried %u %u limit %u",
		     sa.attr.max_wr, sa.attr.max_sge, qa.max_wr, qa.max_sge, qa.srq_limit);
	snprintf(t->detail, sizeof(t->detail), "max_wr %u max_sge %u",
		 qa.max_wr, qa.max_sge);
	ibv_destroy_srq(srq);
	return rc;
}

/* Posts @n receives of @nsge entries; the errno of the first refused. */
static int srq_post(struct t *t, struct ibv_srq *srq, uint32_t n, int nsge)
{
	struct ibv_sge sg[2] = { sge_of(t, 0, 64), sge_of(t, 64, 64) };
	struct ibv_recv_wr wr = { .sg_list = sg, .num_sge = nsge }, *bad = NULL;
	uint32_t i;
	int rc;

	for (i = 0; i < n; i++) {
		wr.wr_id = i;
		rc = ibv_post_srq_recv(srq, &wr, &bad);
		if (rc) {
			if (bad != &wr)
				whyf(t, "bad_wr not set to the refused WR");
			return rc;
		}
	}
	return 0;
}

static int srq_overflow(struct t *t, const struct tcase *c)
{
	struct ibv_srq *srq = NULL;
	struct ibv_srq_attr qa;
	int rc;

	(void)c;
	rc = try_srq(t, 16, 1, &srq);
	if (rc || !srq)
		return rc ? rc : 0;
	rc = ibv_query_srq(srq, &qa);
	if (!rc)
		rc = srq_post(t, srq, qa.max_wr, 1);
	if (rc)
		whyf(t, "posting max_wr (%u) WQEs failed: %s", qa.max_wr, errname(rc));
	else
		rc = srq_post(t, srq, 1, 1);
	ibv_destroy_srq(srq);
	return rc;
}

static int srq_too_many_sge(struct t *t, const struct tcase *c)
{
	struct ibv_srq *srq = NULL;
	int rc;

	(void)c;
	rc = try_srq(t, 16, 1, &srq);
	if (rc || !srq)
		return rc ? rc : 0;
	rc = srq_post(t, srq, 1, 2);
	ibv_destroy_srq(srq);
	return rc;
}

static int srq_modify(struct t *t, int mask, int above)
{
	struct ibv_srq *srq = NULL;
	struct ibv_srq_attr qa, ma = {};
	int rc;

	rc = try_srq(t, 16, 1, &srq);
	if (rc || !srq)
		return rc ? rc : 0;
	rc = ibv_query_srq(srq, &qa);
	ma.max_wr = qa.max_wr * 2;
	ma.srq_limit = qa.max_wr + above;
	if (!rc)
		rc = ibv_modify_srq(srq, &ma, mask);
	ibv_destroy_srq(srq);
	return rc;
}

static int srq_limit_above(struct t *t, const struct tcase *c)
{
	(void)c;
	return srq_modify(t, IBV_SRQ_LIMIT, 1);
}

static int srq_limit_max_wr(struct t *t, const struct tcase *c)
{
	(void)c;
	return srq_modify(t, IBV_SRQ_LIMIT, 0);
}

static int srq_resize(struct t *t, const struct tcase *c)
{
	(void)c;
	return srq_modify(t, IBV_SRQ_MAX_WR, 0);
}

static struct ibv_qp *srq_qp(struct t *t, struct ibv_srq *srq,
			     enum ibv_qp_type type)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = t->cq, .recv_cq = t->cq, .srq = srq, .qp_type = type,
		.cap = CAP(4, 0, 1, 0, 0),
	};

	return ibv_create_qp(t->pd, &ia);
}

/* The SRQ stays while a QP is attached; fine once the QP is gone. */
static int srq_destroy_attached(struct t *t, const struct tcase *c)
{
	struct ibv_srq *srq = NULL;
	struct ibv_qp *qp;
	int rc;

	(void)c;
	rc = try_srq(t, 16, 1, &srq);
	if (rc || !srq)
		return rc ? rc : 0;
	qp = srq_qp(t, srq, IBV_QPT_RC);
	if (!qp) {
		rc = errno;
		whyf(t, "create_qp with the SRQ: %s", errname(rc));
		ibv_destroy_srq(srq);
		return rc;
	}
	rc = ibv_destroy_srq(srq);
	if (!rc)
		return whyf(t, "SRQ destroyed under its QP"), 0;
	if (ibv_destroy_qp(qp) || ibv_destroy_srq(srq))
		whyf(t, "destroy after the QP went: %s", strerror(errno));
	return rc;
}

/*
 * Affiliated events of @type for the QP or SRQ @obj on the device under
 * test within @ms (all of @ms unless @enough came earlier); other events
 * are acked and skipped.
 */
static int async_events(struct t *t, enum ibv_event_type type, void *obj,
			int ms, int enough)
{
	struct pollfd pfd = { .fd = t->ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	int fl, got = 0;
	uint64_t end;

	fl = fcntl(pfd.fd, F_GETFL);
	fcntl(pfd.fd, F_SETFL, fl | O_NONBLOCK);
	for (end = now_ms() + (uint64_t)ms; got < enough && now_ms() < end;) {
		if (poll(&pfd, 1, 100) <= 0 || ibv_get_async_event(t->ctx, &ev))
			continue;
		if (ev.event_type == type &&
		    (ev.element.qp == obj || ev.element.srq == obj))
			got++;
		ibv_ack_async_event(&ev);
	}
	fcntl(pfd.fd, F_SETFL, fl);
	return got;
}

/*
 * IBTA 11.6.3.4: an SRQ-attached QP moved to the error state raises
 * IBV_EVENT_QP_LAST_WQE_REACHED.
 */
static int srq_last_wqe(struct t *t, const struct tcase *c)
{
	struct ibv_qp_attr init = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = UD_QKEY,
	};
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_srq *srq = NULL;
	struct ibv_qp *qp;
	int rc;

	(void)c;
	rc = try_srq(t, 16, 1, &srq);
	if (rc || !srq)
		return rc ? rc : 0;
	qp = srq_qp(t, srq, IBV_QPT_UD);
	if (!qp) {
		rc = errno;
		goto out;
	}
	rc = ibv_modify_qp(qp, &init, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			   IBV_QP_PORT | IBV_QP_QKEY);
	if (!rc)
		rc = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	if (rc)
		goto out;
	if (async_events(t, IBV_EVENT_QP_LAST_WQE_REACHED, qp, 2000, 1) != 1)
		whyf(t, "no IBV_EVENT_QP_LAST_WQE_REACHED within 2 s");
out:
	if (qp)
		ibv_destroy_qp(qp);
	ibv_destroy_srq(srq);
	return rc;
}

static int rc_up(struct t *t, struct ibv_qp *x, struct ibv_qp *y, int peer);
static struct ibv_qp *rc_qp(struct ibv_pd *pd, struct ibv_cq *cq);

/* Sends @n messages of @len bytes from the peer's @y, each signaled. */
static int peer_sends(struct t *t, struct ibv_qp *y, struct ibv_cq *cq,
		      int n, uint32_t len)
{
	struct ibv_sge ss = { (uintptr_t)t->buf1, len, t->mr1->lkey };
	struct ibv_send_wr swr = {
		.sg_list = &ss, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *sbad;
	int i, rc;

	for (i = 0; i < n; i++) {
		swr.wr_id = 950 + (uint64_t)i;
		rc = ibv_post_send(y, &swr, &sbad);
		if (rc)
			return rc;
		if (expect_cqe(t, cq, swr.wr_id, IBV_WC_SEND, "peer's send") < 0)
			return 0;
	}
	return 0;
}

/*
 * Data over an RC QP that takes its receives from an SRQ: the WQEs are
 * taken in order and an armed limit raises IBV_EVENT_SRQ_LIMIT_REACHED
 * once, then reads 0 (IBTA 10.2.9, man ibv_modify_srq(3)).
 */
static int srq_limit_traffic(struct t *t, const struct tcase *c)
{
	struct ibv_cq *cq = ibv_create_cq(t->ctx, 16, NULL, NULL, 0);
	struct ibv_cq *cq1 = ibv_create_cq(t->ctx1, 16, NULL, NULL, 0);
	struct ibv_srq_attr la = { .srq_limit = 3 }, qa;
	struct ibv_qp *x = NULL, *y = NULL;
	struct ibv_srq *srq = NULL;
	struct ibv_sge sg;
	struct ibv_recv_wr wr = { .sg_list = &sg, .num_sge = 1 }, *bad;
	struct ibv_qp_init_attr ia = { .qp_type = IBV_QPT_RC, .cap = CAP(4, 0, 1, 0, 0) };
	int rc, i, len;

	(void)c;
	rc = try_srq(t, 8, 1, &srq);
	if (rc || !srq || !cq || !cq1)
		goto out;
	ia.recv_cq = ia.send_cq = cq;
	ia.srq = srq;
	x = ibv_create_qp(t->pd, &ia);
	y = rc_qp(t->pd1, cq1);
	if (!x || !y || rc_up(t, x, y, 0) || rc_up(t, y, x, 1)) {
		rc = x && y ? 0 : errno;
		goto out;
	}
	for (i = 0; i < 4 && !rc; i++) {
		sg = sge_of(t, 16384 + (size_t)i * 1024, 1024);
		wr.wr_id = 900 + (uint64_t)i;
		rc = ibv_post_srq_recv(srq, &wr, &bad);
	}
	if (!rc)
		rc = ibv_modify_srq(srq, &la, IBV_SRQ_LIMIT);
	if (!rc)
		rc = peer_sends(t, y, cq1, 2, 100);
	if (rc)
		goto out;
	for (i = 0; i < 2; i++) {
		len = expect_cqe(t, cq, 900 + (uint64_t)i, IBV_WC_RECV, "receive from the SRQ");
		if (len >= 0 && (len != 100 || memcmp(t->buf1, t->buf + 16384 + i * 1024, 100)))
			whyf(t, "receive %d: %d bytes, or other bytes than sent", i, len);
	}
	i = async_events(t, IBV_EVENT_SRQ_LIMIT_REACHED, srq, 1000, 2);
	if (i != 1)
		whyf(t, "%d IBV_EVENT_SRQ_LIMIT_REACHED events, expected 1", i);
	rc = ibv_query_srq(srq, &qa);
	if (!rc && qa.srq_limit)
		whyf(t, "srq_limit %u after the event, expected 0 (disarmed)", qa.srq_limit);
	snprintf(t->detail, sizeof(t->detail), "2 receives, %d limit event", i);
out:
	if (x)
		ibv_destroy_qp(x);
	if (y)
		ibv_destroy_qp(y);
	if (srq)
		ibv_destroy_srq(srq);
	if (cq)
		ibv_destroy_cq(cq);
	if (cq1)
		ibv_destroy_cq(cq1);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Address handles                                                     */
/* ------------------------------------------------------------------ */

static struct ibv_ah_attr good_av(struct t *t)
{
	struct ibv_ah_attr av = {
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = t->gid1, .sgid_index = (uint8_t)t->gidx, .hop_limit = 64 },
	};

	return av;
}

static int try_ah(struct t *t, struct ibv_ah_attr *av, struct ibv_ah **keep)
{
	struct ibv_ah *ah;

	errno = 0;
	ah = ibv_create_ah(t->pd, av);
	if (!ah)
		return errno ? errno : -1;
	if (keep)
		*keep = ah;
	else
		ibv_destroy_ah(ah);
	return 0;
}

static int ah_empty_gid(struct t *t, const struct tcase *c)
{
	struct ibv_ah_attr av = good_av(t);

	(void)c;
	if (t->empty_gidx < 0) {
		t->skip = "no empty GID index below 256";
		return 0;
	}
	av.grh.sgid_index = (uint8_t)t->empty_gidx;
	return try_ah(t, &av, NULL);
}

static int ah_port2(struct t *t, const struct tcase *c)
{
	struct ibv_ah_attr av = good_av(t);

	(void)c;
	av.port_num = 2;
	return try_ah(t, &av, NULL);
}

static int ah_no_grh(struct t *t, const struct tcase *c)
{
	struct ibv_ah_attr av = good_av(t);

	(void)c;
	av.is_global = 0;
	return try_ah(t, &av, NULL);
}

static int ah_good(struct t *t, const struct tcase *c)
{
	struct ibv_ah_attr av = good_av(t);

	(void)c;
	return try_ah(t, &av, &t->ah);
}

/* ------------------------------------------------------------------ */
/* QP state machine                                                    */
/* ------------------------------------------------------------------ */

/* Attributes and mask of a legal transition to @to (ibv_modify_qp(3) tables). */
static int good_attr(struct t *t, enum ibv_qp_type type, enum ibv_qp_state to,
		     struct ibv_qp_attr *a, int peer)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = to;
	if (type == IBV_QPT_UD) {
		switch (to) {
		case IBV_QPS_INIT:
			a->port_num = 1;
			a->qkey = UD_QKEY;
			return IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY;
		case IBV_QPS_RTR:
			return IBV_QP_STATE;
		default:
			a->sq_psn = 0x123;
			return IBV_QP_STATE | IBV_QP_SQ_PSN;
		}
	}
	switch (to) {
	case IBV_QPS_INIT:
		a->port_num = 1;
		a->qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
		return IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	case IBV_QPS_RTR:
		a->ah_attr.is_global = 1;
		a->ah_attr.port_num = 1;
		a->ah_attr.grh.hop_limit = 64;
		a->ah_attr.grh.sgid_index = (uint8_t)(peer ? t->gidx1 : t->gidx);
		a->ah_attr.grh.dgid = peer ? t->gid : t->gid1;
		a->path_mtu = t->pattr.active_mtu;
		a->dest_qp_num = peer ? t->qpa->qp_num : t->qpb->qp_num;
		a->rq_psn = peer ? RQ_PSN_B : RQ_PSN_A;
		a->max_dest_rd_atomic = 4;
		a->min_rnr_timer = 12;
		return IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		       IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	default:
		a->sq_psn = peer ? RQ_PSN_A : RQ_PSN_B;
		a->timeout = 14;
		a->retry_cnt = 7;
		a->rnr_retry = 7;
		a->max_rd_atomic = 4;
		return IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
		       IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
	}
}

static int resolve(struct t *t, int v)
{
	switch (v) {
	case V_ABOVE_ACTIVE_MTU:
		if (t->pattr.active_mtu >= IBV_MTU_4096)
			t->skip = "the active MTU is 4096: nothing above it";
		return t->pattr.active_mtu + 1;
	case V_PKEY_TBL_LEN:
		return t->pattr.pkey_tbl_len;
	case V_EMPTY_GID:
		if (t->empty_gidx < 0)
			t->skip = "no empty GID index below 256";
		return t->empty_gidx;
	case V_ABOVE_RD_ATOM:
		if (t->dattr.max_qp_rd_atom >= 255)
			t->skip = "max_qp_rd_atom is 255";
		return t->dattr.max_qp_rd_atom + 1;
	case V_ABOVE_INIT_RD_ATOM:
		if (t->dattr.max_qp_init_rd_atom >= 255)
			t->skip = "max_qp_init_rd_atom is 255";
		return t->dattr.max_qp_init_rd_atom + 1;
	}
	return v;
}

static void apply_field(struct t *t, struct ibv_qp_attr *a, enum field f, int v)
{
	switch (f) {
	case F_NONE: break;
	case F_STATE: a->qp_state = (enum ibv_qp_state)v; break;
	case F_PORT: a->port_num = (uint8_t)v; break;
	case F_PKEY: a->pkey_index = (uint16_t)v; break;
	case F_MTU: a->path_mtu = (enum ibv_mtu)v; break;
	case F_DQPN: a->dest_qp_num = (uint32_t)v; break;
	case F_MAX_DEST_RD: a->max_dest_rd_atomic = (uint8_t)v; break;
	case F_MIN_RNR: a->min_rnr_timer = (uint8_t)v; break;
	case F_TIMEOUT: a->timeout = (uint8_t)v; break;
	case F_RETRY: a->retry_cnt = (uint8_t)v; break;
	case F_RNR_RETRY: a->rnr_retry = (uint8_t)v; break;
	case F_MAX_RD: a->max_rd_atomic = (uint8_t)v; break;
	case F_SGID: a->ah_attr.grh.sgid_index = (uint8_t)v; break;
	case F_AV_PORT: a->ah_attr.port_num = (uint8_t)v; break;
	case F_NO_GRH: a->ah_attr.is_global = 0; break;
	case F_QKEY: a->qkey = (uint32_t)v; break;
	case F_ALT_PATH:
		a->alt_ah_attr = good_av(t);
		a->alt_port_num = 1;
		a->alt_timeout = 14;
		a->alt_pkey_index = 0;
		break;
	}
}

/*
 * The modify of a row that needs a process without CAP_NET_RAW: uverbs
 * refuses commands from a process whose credentials changed after it opened
 * the device (ib_safe_file_access: EACCES), so a child drops the capability
 * first, then opens its own context and UD QP (RESET) and tries @a/@mask.
 * Returns the errno of ibv_modify_qp, or -1 (why set).
 */
static int unprivileged_modify(struct t *t, struct ibv_qp_attr *a, int mask)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];
	int status, rc;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		whyf(t, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		struct ibv_qp_init_attr ia = { .qp_type = IBV_QPT_UD, .cap = CAP(1, 1, 1, 1, 0) };
		struct ibv_context *ctx;
		struct ibv_pd *pd;
		struct ibv_qp *qp;

		if (syscall(SYS_capget, &h, d))
			_exit(250);
		d[0].effective &= ~(1U << CAP_NET_RAW);
		d[0].permitted &= ~(1U << CAP_NET_RAW);
		if (syscall(SYS_capset, &h, d))
			_exit(250);
		ctx = ibv_open_device(t->ctx->device);
		pd = ctx ? ibv_alloc_pd(ctx) : NULL;
		ia.send_cq = ia.recv_cq = ctx ? ibv_create_cq(ctx, 4, NULL, NULL, 0) : NULL;
		qp = ia.send_cq && pd ? ibv_create_qp(pd, &ia) : NULL;
		if (!qp)
			_exit(251);
		rc = rc_errno(ibv_modify_qp(qp, a, mask));
		if (rc && qp_state(qp) != IBV_QPS_RESET)
			_exit(252);
		_exit(rc > 0 && rc < 250 ? rc : 253);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
		whyf(t, "the unprivileged child died");
		return -1;
	}
	rc = WEXITSTATUS(status);
	switch (rc) {
	case 250: t->skip = "cannot drop CAP_NET_RAW"; return 0;
	case 251: whyf(t, "child: cannot set up its UD QP"); return -1;
	case 252: whyf(t, "refused, yet the child's QP left RESET"); return -1;
	case 253: return 0;	/* accepted (or an errno we cannot pass) */
	}
	return rc;
}

/*
 * A modify row: the good attributes for c->to, minus c->drop, plus c->add,
 * with c->field set to c->value. A refused call must leave the QP in its
 * state (man ibv_modify_qp(3): "If any of the modify attributes or the
 * modify mask are invalid, none of the attributes will be modified
 * (including the QP state)"), seen by ibv_query_qp and in ibv_qp.state.
 */
static int run_modify(struct t *t, const struct tcase *c)
{
	struct ibv_qp *qp = c->qp == QPU ? t->qpu : t->qpa;
	struct ibv_qp_attr a;
	int mask, before, after, rc, v;

	mask = good_attr(t, qp->qp_type, c->to, &a, 0);
	mask = (mask & ~c->drop) | c->add;
	v = resolve(t, c->value);
	if (t->skip)
		return 0;
	apply_field(t, &a, c->field, v);
	if (c->add & IBV_QP_ALT_PATH) {
		if (t->dattr.device_cap_flags & IBV_DEVICE_AUTO_PATH_MIG) {
			t->skip = "the device supports alternate paths";
			return 0;
		}
		apply_field(t, &a, F_ALT_PATH, 0);
	}
	if (c->unprivileged)
		return unprivileged_modify(t, &a, mask);
	before = qp_state(qp);
	rc = rc_errno(ibv_modify_qp(qp, &a, mask));
	after = qp_state(qp);
	if (rc && after != before)
		whyf(t, "refused, yet the QP went from %s to %s", state_name(before),
		     state_name(after));
	if (rc && (int)qp->state != before)
		whyf(t, "refused, yet ibv_qp.state changed to %s", state_name(qp->state));
	if (!rc && (mask & IBV_QP_STATE) && after != (int)a.qp_state)
		whyf(t, "accepted, but ibv_query_qp says %s, not %s", state_name(after),
		     state_name(a.qp_state));
	return rc;
}

/* A good transition of A (and B with it: the ping needs both). */
static int step_rc(struct t *t, const struct tcase *c)
{
	struct ibv_qp_attr a;
	int mask, rc;

	rc = run_modify(t, c);
	if (rc)
		return rc;
	mask = good_attr(t, IBV_QPT_RC, c->to, &a, 1);
	rc = rc_errno(ibv_modify_qp(t->qpb, &a, mask));
	if (rc)
		whyf(t, "peer QP B to %s: %s", state_name(c->to), errname(rc));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Posting work requests                                               */
/* ------------------------------------------------------------------ */

static struct ibv_sge sge_of(struct t *t, size_t off, uint32_t len)
{
	struct ibv_sge s = {
		.addr = (uintptr_t)t->buf + off, .length = len, .lkey = t->mr->lkey,
	};

	return s;
}

/* ibv_post_send must fail with bad_wr pointing at @want. */
static int post_send_bad(struct t *t, struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr *want)
{
	struct ibv_send_wr *bad = (struct ibv_send_wr *)0x1;	/* poison */
	int rc = rc_errno(ibv_post_send(qp, wr, &bad));

	if (rc && bad != want)
		whyf(t, "bad_wr is %p, expected the failing WR %p", (void *)bad, (void *)want);
	return rc;
}

static int post_recv_bad(struct t *t, struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr *want)
{
	struct ibv_recv_wr *bad = (struct ibv_recv_wr *)0x1;
	int rc = rc_errno(ibv_post_recv(qp, wr, &bad));

	if (rc && bad != want)
		whyf(t, "bad_wr is %p, expected the failing WR %p", (void *)bad, (void *)want);
	return rc;
}

/* A signaled SEND of 64 bytes on A: refused in RESET, INIT and RTR. */
static int send_on_a(struct t *t, const struct tcase *c)
{
	struct ibv_sge s = sge_of(t, 0, 64);
	struct ibv_send_wr wr = {
		.wr_id = 7, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	int rc;

	(void)c;
	rc = post_send_bad(t, t->qpa, &wr, &wr);
	if (rc)
		expect_no_cqe(t, t->cq, 50, "after the refused post");
	return rc;
}

static int recv_on_a_reset(struct t *t, const struct tcase *c)
{
	struct ibv_sge s = sge_of(t, 8192, 4096);
	struct ibv_recv_wr wr = { .wr_id = 8, .sg_list = &s, .num_sge = 1 };

	(void)c;
	return post_recv_bad(t, t->qpa, &wr, &wr);
}

/* IBTA 10.3.1.2: receives may be posted in INIT; this one serves the ping. */
static int recv_on_a_init(struct t *t, const struct tcase *c)
{
	struct ibv_sge s = sge_of(t, 8192, 8192);
	struct ibv_recv_wr wr = { .wr_id = RECV_INIT_ID, .sg_list = &s, .num_sge = 1 };
	struct ibv_recv_wr *bad = NULL;

	(void)c;
	return rc_errno(ibv_post_recv(t->qpa, &wr, &bad));
}

/* A UD QP on its own CQ, taken to @to (INIT or RTS). */
static struct ibv_qp *ud_qp(struct t *t, struct ibv_cq *cq, uint32_t depth,
			    enum ibv_qp_state to)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_UD,
		.cap = CAP(depth, depth, 2, 2, 0),
	};
	enum ibv_qp_state s;
	struct ibv_qp_attr a;
	struct ibv_qp *qp;
	int mask, rc;

	qp = ibv_create_qp(t->pd, &ia);
	if (!qp) {
		whyf(t, "ibv_create_qp(UD): %s", strerror(errno));
		return NULL;
	}
	for (s = IBV_QPS_INIT; s <= to; s++) {
		mask = good_attr(t, IBV_QPT_UD, s, &a, 0);
		rc = rc_errno(ibv_modify_qp(qp, &a, mask));
		if (rc) {
			whyf(t, "UD QP to %s: %s", state_name(s), errname(rc));
			ibv_destroy_qp(qp);
			return NULL;
		}
	}
	return qp;
}

/* UD receive queue (INIT): one WR with one SGE too many. */
static int recv_too_many_sge(struct t *t, const struct tcase *c)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	struct ibv_sge s[64];
	struct ibv_recv_wr wr = { .wr_id = 9, .sg_list = s };
	uint32_t i;

	(void)c;
	if (ibv_query_qp(t->qpu, &a, IBV_QP_CAP, &ia)) {
		whyf(t, "ibv_query_qp: %s", strerror(errno));
		return -1;
	}
	if (a.cap.max_recv_sge + 1 > ARRAY_SIZE(s)) {
		t->skip = "max_recv_sge >= 64";
		return 0;
	}
	for (i = 0; i <= a.cap.max_recv_sge; i++)
		s[i] = sge_of(t, 16384 + i * 64, 64);
	wr.num_sge = (int)a.cap.max_recv_sge + 1;
	return post_recv_bad(t, t->qpu, &wr, &wr);
}

/*
 * A fresh UD QP in INIT with room for N receives: a list of N + 1 fails at
 * the last one (nothing consumes receives in INIT, so this is exact).
 */
static int recv_overflow(struct t *t, const struct tcase *c)
{
	struct ibv_cq *cq = ibv_create_cq(t->ctx, 64, NULL, NULL, 0);
	struct ibv_recv_wr *wr = NULL;
	struct ibv_sge s = sge_of(t, 32768, 256);
	struct ibv_qp_init_attr ia;
	struct ibv_qp *qp = NULL;
	struct ibv_qp_attr a;
	uint32_t n = 0, i;
	int rc = -1;

	(void)c;
	if (!cq) {
		whyf(t, "ibv_create_cq: %s", strerror(errno));
		return -1;
	}
	qp = ud_qp(t, cq, 8, IBV_QPS_INIT);
	if (!qp)
		goto out;
	if (ibv_query_qp(qp, &a, IBV_QP_CAP, &ia)) {
		whyf(t, "ibv_query_qp: %s", strerror(errno));
		goto out;
	}
	n = a.cap.max_recv_wr;
	if (n < 8 || n > 65536) {
		whyf(t, "ibv_query_qp reports max_recv_wr %u for a request of 8", n);
		goto out;
	}
	wr = calloc(n + 1, sizeof(*wr));
	if (!wr)
		goto out;
	for (i = 0; i <= n; i++) {
		wr[i].wr_id = 100 + i;
		wr[i].sg_list = &s;
		wr[i].num_sge = 1;
		wr[i].next = i < n ? &wr[i + 1] : NULL;
	}
	rc = post_recv_bad(t, qp, wr, &wr[n]);
out:
	free(wr);
	if (qp)
		ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	return rc;
}

static struct ibv_send_wr ud_send_wr(struct t *t, uint64_t id, struct ibv_sge *s, int nsge)
{
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = s, .num_sge = nsge, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { .ah = t->ah, .remote_qpn = NO_SUCH_QPN, .remote_qkey = UD_QKEY },
	};

	return wr;
}

/*
 * [good, one SGE too many, good]: the call fails at the second WR and says
 * so in bad_wr; the first WR was posted and completes, the third was not.
 */
static int send_too_many_sge(struct t *t, const struct tcase *c)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	struct ibv_sge s[64], one = sge_of(t, 0, 16);
	struct ibv_send_wr wr[3];
	uint32_t i;
	int rc;

	(void)c;
	if (ibv_query_qp(t->qpu, &a, IBV_QP_CAP, &ia)) {
		whyf(t, "ibv_query_qp: %s", strerror(errno));
		return -1;
	}
	if (a.cap.max_send_sge + 1 > ARRAY_SIZE(s)) {
		t->skip = "max_send_sge >= 64";
		return 0;
	}
	for (i = 0; i <= a.cap.max_send_sge; i++)
		s[i] = sge_of(t, i * 8, 8);
	wr[0] = ud_send_wr(t, 201, &one, 1);
	wr[1] = ud_send_wr(t, 202, s, (int)a.cap.max_send_sge + 1);
	wr[2] = ud_send_wr(t, 203, &one, 1);
	wr[0].next = &wr[1];
	wr[1].next = &wr[2];
	rc = post_send_bad(t, t->qpu, wr, &wr[1]);
	if (rc) {
		expect_cqe(t, t->cqu, 201, IBV_WC_SEND, "the good WR before the bad one");
		expect_no_cqe(t, t->cqu, 100, "WRs at and after bad_wr");
	}
	return rc;
}

static int send_write_on_ud(struct t *t, const struct tcase *c)
{
	struct ibv_sge s = sge_of(t, 0, 16);
	struct ibv_send_wr wr = ud_send_wr(t, 204, &s, 1);

	(void)c;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uintptr_t)t->buf1;
	wr.wr.rdma.rkey = t->mr1->rkey;
	return post_send_bad(t, t->qpu, &wr, &wr);
}

/* A UD SEND asking for IP checksum offload, which sroce does not offer. */
static int send_ip_csum_on_ud(struct t *t, const struct tcase *c)
{
	struct ibv_sge s = sge_of(t, 0, 16);
	struct ibv_send_wr wr = ud_send_wr(t, 206, &s, 1);
	int rc;

	(void)c;
	if (t->dattr.device_cap_flags & IBV_DEVICE_UD_IP_CSUM) {
		t->skip = "the device offers UD IP checksum offload";
		return 0;
	}
	wr.send_flags |= IBV_SEND_IP_CSUM;
	rc = post_send_bad(t, t->qpu, &wr, &wr);
	if (rc)
		expect_no_cqe(t, t->cqu, 50, "after the refused post");
	return rc;
}

static int send_inline_too_long(struct t *t, const struct tcase *c)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	struct ibv_sge s;
	struct ibv_send_wr wr;

	(void)c;
	if (ibv_query_qp(t->qpu, &a, IBV_QP_CAP, &ia)) {
		whyf(t, "ibv_query_qp: %s", strerror(errno));
		return -1;
	}
	if (a.cap.max_inline_data + 1 > BUF_SIZE) {
		t->skip = "max_inline_data >= 64 KiB";
		return 0;
	}
	s = sge_of(t, 0, a.cap.max_inline_data + 1);
	wr = ud_send_wr(t, 205, &s, 1);
	wr.send_flags |= IBV_SEND_INLINE;
	return post_send_bad(t, t->qpu, &wr, &wr);
}

/*
 * A fresh UD QP (RTS) with room for N sends gets a list of N + 1 in one
 * call: the provider cannot have consumed any of them before the call
 * returns, so it fails exactly at the last; the first N complete.
 */
static int send_overflow(struct t *t, const struct tcase *c)
{
	struct ibv_cq *cq = ibv_create_cq(t->ctx, 256, NULL, NULL, 0);
	struct ibv_sge s = sge_of(t, 0, 16);
	struct ibv_send_wr *wr = NULL;
	struct ibv_qp_init_attr ia;
	struct ibv_qp *qp = NULL;
	struct ibv_qp_attr a;
	uint32_t n = 0, i;
	int rc = -1;

	(void)c;
	if (!cq) {
		whyf(t, "ibv_create_cq: %s", strerror(errno));
		return -1;
	}
	qp = ud_qp(t, cq, 16, IBV_QPS_RTS);
	if (!qp)
		goto out;
	if (ibv_query_qp(qp, &a, IBV_QP_CAP, &ia)) {
		whyf(t, "ibv_query_qp: %s", strerror(errno));
		goto out;
	}
	n = a.cap.max_send_wr;
	if (n < 16 || n > 255) {
		whyf(t, "ibv_query_qp reports max_send_wr %u for a request of 16", n);
		goto out;
	}
	wr = calloc(n + 1, sizeof(*wr));
	if (!wr)
		goto out;
	for (i = 0; i <= n; i++) {
		wr[i] = ud_send_wr(t, 300 + i, &s, 1);
		wr[i].next = i < n ? &wr[i + 1] : NULL;
	}
	rc = post_send_bad(t, qp, wr, &wr[n]);
	if (rc) {
		for (i = 0; i < n; i++) {
			char what[64];

			snprintf(what, sizeof(what), "send %u of the %u accepted", i + 1, n);
			if (expect_cqe(t, cq, 300 + i, IBV_WC_SEND, what) < 0)
				break;
		}
		expect_no_cqe(t, cq, 100, "the refused WR");
	}
out:
	free(wr);
	if (qp)
		ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Destroying objects still in use                                     */
/* ------------------------------------------------------------------ */

static int destroy_cq_in_use(struct t *t, const struct tcase *c)
{
	(void)c;
	return rc_errno(ibv_destroy_cq(t->cq));
}

static int dealloc_pd_in_use(struct t *t, const struct tcase *c)
{
	(void)c;
	return rc_errno(ibv_dealloc_pd(t->pd));
}

/* A PD whose only user is one MR (or AH): busy until that goes. */
static int dealloc_pd_with(struct t *t, int with_ah)
{
	struct ibv_pd *pd = ibv_alloc_pd(t->ctx);
	struct ibv_ah_attr av = good_av(t);
	struct ibv_mr *mr = NULL;
	struct ibv_ah *ah = NULL;
	int rc, r2;

	if (!pd) {
		whyf(t, "ibv_alloc_pd: %s", strerror(errno));
		return -1;
	}
	if (with_ah)
		ah = ibv_create_ah(pd, &av);
	else
		mr = ibv_reg_mr(pd, t->buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	if (!mr && !ah) {
		whyf(t, "creating the PD's only object: %s", strerror(errno));
		ibv_dealloc_pd(pd);
		return -1;
	}
	rc = rc_errno(ibv_dealloc_pd(pd));
	if (rc == 0)
		return 0;	/* leak the orphan */
	r2 = with_ah ? rc_errno(ibv_destroy_ah(ah)) : rc_errno(ibv_dereg_mr(mr));
	if (r2)
		whyf(t, "then freeing the PD's object: %s", errname(r2));
	r2 = rc_errno(ibv_dealloc_pd(pd));
	if (r2)
		whyf(t, "then ibv_dealloc_pd of the empty PD: %s", errname(r2));
	return rc;
}

static int dealloc_pd_mr(struct t *t, const struct tcase *c)
{
	(void)c;
	return dealloc_pd_with(t, 0);
}

static int dealloc_pd_ah(struct t *t, const struct tcase *c)
{
	(void)c;
	return dealloc_pd_with(t, 1);
}

/*
 * Deregistering an MR that a posted receive still names succeeds (only a
 * bound memory window blocks it, man ibv_dereg_mr(3)); a message that then
 * arrives for that receive must not land in the memory: it completes with
 * an error status, or not at all (a UD receiver may drop it).
 * X: fresh UD QP on the device under test; Y: UD QP on the peer sending to X.
 */
static int dereg_with_posted_recv(struct t *t, const struct tcase *c)
{
	struct ibv_cq *cqx = ibv_create_cq(t->ctx, 16, NULL, NULL, 0);
	struct ibv_cq *cqy = ibv_create_cq(t->ctx1, 16, NULL, NULL, 0);
	struct ibv_qp_init_attr ia = {
		.send_cq = cqy, .recv_cq = cqy, .qp_type = IBV_QPT_UD,
		.cap = CAP(4, 4, 1, 1, 0),
	};
	struct ibv_ah_attr av = {
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = t->gid, .sgid_index = (uint8_t)t->gidx1, .hop_limit = 64 },
	};
	struct ibv_qp *x = NULL, *y = NULL;
	struct ibv_ah *ah = NULL;
	struct ibv_mr *mr = NULL;
	char *page = NULL;
	struct ibv_wc wc;
	int rc = -1, n, i;

	(void)c;
	if (!cqx || !cqy) {
		whyf(t, "ibv_create_cq: %s", strerror(errno));
		goto out;
	}
	x = ud_qp(t, cqx, 4, IBV_QPS_RTS);
	y = ibv_create_qp(t->pd1, &ia);
	ah = ibv_create_ah(t->pd1, &av);
	page = aligned_alloc(4096, 4096);
	if (!x || !y || !ah || !page) {
		whyf(t, "setup (UD QPs, AH): %s", strerror(errno));
		goto out;
	}
	for (i = IBV_QPS_INIT; i <= IBV_QPS_RTS; i++) {
		struct ibv_qp_attr a;
		int mask = good_attr(t, IBV_QPT_UD, (enum ibv_qp_state)i, &a, 0);

		if (rc_errno(ibv_modify_qp(y, &a, mask))) {
			whyf(t, "peer UD QP to %s failed", state_name(i));
			goto out;
		}
	}
	memset(page, 0x5a, 4096);
	mr = ibv_reg_mr(t->pd, page, 4096, IBV_ACCESS_LOCAL_WRITE);
	if (!mr) {
		whyf(t, "ibv_reg_mr: %s", strerror(errno));
		goto out;
	}
	{
		struct ibv_sge s = { (uintptr_t)page, 4096, mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = 601, .sg_list = &s, .num_sge = 1 }, *bad;

		rc = rc_errno(ibv_post_recv(x, &wr, &bad));
		if (rc) {
			whyf(t, "ibv_post_recv: %s", errname(rc));
			rc = -1;
			goto out;
		}
	}
	rc = rc_errno(ibv_dereg_mr(mr));
	if (rc)
		goto out;	/* the MR still exists: leak it with the QP */
	mr = NULL;
	{
		struct ibv_sge s = { (uintptr_t)t->buf1, 256, t->mr1->lkey };
		struct ibv_send_wr wr = {
			.wr_id = 602, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.ud = { .ah = ah, .remote_qpn = x->qp_num, .remote_qkey = UD_QKEY },
		}, *bad;

		memset(t->buf1, 0xc3, 256);
		if (rc_errno(ibv_post_send(y, &wr, &bad))) {
			whyf(t, "peer's ibv_post_send failed");
			goto out;
		}
		expect_cqe(t, cqy, 602, IBV_WC_SEND, "the peer's UD send");
	}
	n = cq_wait(cqx, &wc, 1000);
	if (n > 0 && wc.status == IBV_WC_SUCCESS)
		whyf(t, "the receive into the deregistered MR completed successfully");
	snprintf(t->detail, sizeof(t->detail), "then the receive %s%s",
		 n > 0 ? "completed with " : "did not complete",
		 n > 0 ? ibv_wc_status_str(wc.status) : "");
	for (i = 0; i < 4096; i++)
		if ((unsigned char)page[i] != 0x5a) {
			whyf(t, "byte %d of the deregistered MR was written", i);
			break;
		}
out:
	if (x)
		ibv_destroy_qp(x);
	if (y)
		ibv_destroy_qp(y);
	if (ah)
		ibv_destroy_ah(ah);
	if (mr)
		ibv_dereg_mr(mr);
	if (cqx)
		ibv_destroy_cq(cqx);
	if (cqy)
		ibv_destroy_cq(cqy);
	free(page);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Error state the kernel entered by itself                            */
/* ------------------------------------------------------------------ */

/* Takes RC QP @x (local end) to RTS towards @y; @peer: @x is on the peer. */
static int rc_up(struct t *t, struct ibv_qp *x, struct ibv_qp *y, int peer)
{
	struct ibv_qp_attr a;
	int s, mask, rc;

	for (s = IBV_QPS_INIT; s <= IBV_QPS_RTS; s++) {
		mask = good_attr(t, IBV_QPT_RC, (enum ibv_qp_state)s, &a, peer);
		a.dest_qp_num = y->qp_num;
		rc = rc_errno(ibv_modify_qp(x, &a, mask));
		if (rc) {
			whyf(t, "%s QP to %s: %s", peer ? "peer" : "local",
			     state_name(s), errname(rc));
			return -1;
		}
	}
	return 0;
}

/* One CQE with @wr_id and @status on @cq within @ms ms; records why not. */
static void expect_status(struct t *t, struct ibv_cq *cq, uint64_t wr_id,
			  enum ibv_wc_status status, int ms, const char *what)
{
	struct ibv_wc wc;
	int n = cq_wait(cq, &wc, ms);

	if (n <= 0)
		whyf(t, "%s: %s", what, n ? "ibv_poll_cq failed" : "no completion");
	else if (wc.wr_id != wr_id || wc.status != status)
		whyf(t, "%s: completion wr_id %llu status %s, expected wr_id %llu %s",
		     what, (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status),
		     (unsigned long long)wr_id, ibv_wc_status_str(status));
}

/*
 * X is in ERR, moved there by the kernel; its cached state says RTS.  A
 * receive, then a send, posted to it complete with IBV_WC_WR_FLUSH_ERR
 * within a second, without a modify_qp.  Returns 0 or an errno.
 */
static int flush_after_err(struct t *t, struct ibv_qp *x, struct ibv_cq *cqx)
{
	struct ibv_sge s = sge_of(t, 0, 64);
	struct ibv_recv_wr rwr = { .wr_id = 702, .sg_list = &s, .num_sge = 1 }, *rbad;
	struct ibv_send_wr swr = {
		.wr_id = 703, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *sbad;
	uint64_t t0 = now_ms();
	int rc;

	rc = rc_errno(ibv_post_recv(x, &rwr, &rbad));
	if (rc) {
		whyf(t, "ibv_post_recv in ERR: %s", errname(rc));
		return rc;
	}
	expect_status(t, cqx, 702, IBV_WC_WR_FLUSH_ERR, 1000, "the receive posted in ERR");
	snprintf(t->detail, sizeof(t->detail), "receive flushed after %llu ms",
		 (unsigned long long)(now_ms() - t0));
	rc = rc_errno(ibv_post_send(x, &swr, &sbad));
	if (rc) {
		whyf(t, "ibv_post_send in ERR: %s", errname(rc));
		return rc;
	}
	expect_status(t, cqx, 703, IBV_WC_WR_FLUSH_ERR, 1000, "the send posted in ERR");
	expect_no_cqe(t, cqx, 50, "X's CQ after the flushes");
	if (qp_state(x) != IBV_QPS_ERR)
		whyf(t, "X is %s, expected ERR", state_name(qp_state(x)));
	return 0;
}

/*
 * X (device under test) and Y (peer), RC, in RTS.  X's RDMA WRITE names an
 * rkey Y does not have: Y answers with a remote access NAK and the kernel
 * moves X to ERR by itself (IBTA 9.7.5.2.5, 10.3.1.7); X's cached state
 * (ibv_qp.state, which only modify_qp and query_qp update) still says
 * RTS.  Once the timers the WRITE left ran out, posts to X are flushed
 * (flush_after_err(); IBTA 10.3.1.7, 11.4.1.1).
 */
static int post_after_kernel_err(struct t *t, const struct tcase *c)
{
	struct ibv_cq *cqx = ibv_create_cq(t->ctx, 16, NULL, NULL, 0);
	struct ibv_cq *cqy = ibv_create_cq(t->ctx1, 16, NULL, NULL, 0);
	struct ibv_qp_init_attr ia = { .qp_type = IBV_QPT_RC, .cap = CAP(4, 4, 1, 1, 0) };
	struct ibv_sge s = sge_of(t, 0, 64);
	struct ibv_send_wr swr = {
		.wr_id = 701, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)t->buf1, .rkey = t->mr1->rkey ^ 0x5a5a00 },
	}, *sbad;
	struct ibv_qp *x = NULL, *y = NULL;
	int rc = -1;

	(void)c;
	ia.send_cq = ia.recv_cq = cqx;
	x = cqx ? ibv_create_qp(t->pd, &ia) : NULL;
	ia.send_cq = ia.recv_cq = cqy;
	y = cqy ? ibv_create_qp(t->pd1, &ia) : NULL;
	if (!x || !y) {
		whyf(t, "ibv_create_cq/qp(RC): %s", strerror(errno));
		goto out;
	}
	if (rc_up(t, x, y, 0) || rc_up(t, y, x, 1))
		goto out;
	rc = rc_errno(ibv_post_send(x, &swr, &sbad));
	if (rc) {
		whyf(t, "the RDMA WRITE with a bad rkey: %s", errname(rc));
		goto out;
	}
	expect_status(t, cqx, 701, IBV_WC_REM_ACCESS_ERR, 5000, "the bad RDMA WRITE");
	/* ibv_query_qp() would refresh the cache: no query until the end */
	if (x->state != IBV_QPS_RTS) {
		whyf(t, "after the NAK X's cached state is %s, expected RTS",
		     state_name(x->state));
		goto out;
	}
	/* let the timers the failed WRITE left run out: nothing else runs X */
	usleep(QUIET_MS * 1000);
	rc = flush_after_err(t, x, cqx);
out:
	if (x)
		ibv_destroy_qp(x);
	if (y)
		ibv_destroy_qp(y);
	if (cqx)
		ibv_destroy_cq(cqx);
	if (cqy)
		ibv_destroy_cq(cqy);
	return rc;
}

/* ------------------------------------------------------------------ */
/* ibv_resize_cq                                                       */
/* ------------------------------------------------------------------ */

static void fill(char *p, size_t len, unsigned int seed);

#define RS_LEN		64	/* bytes per RDMA READ */
#define RS_MAX		64	/* READs per scenario */

/* An RC pair whose local end X completes into a CQ that gets resized. */
struct rs {
	struct ibv_cq *cqx, *cqy;
	struct ibv_qp *x, *y;
	char *lbuf, *rbuf;
	struct ibv_mr *lmr, *rmr;
};

static void rs_down(struct rs *r)
{
	if (r->x)
		ibv_destroy_qp(r->x);
	if (r->y)
		ibv_destroy_qp(r->y);
	if (r->cqx)
		ibv_destroy_cq(r->cqx);
	if (r->cqy)
		ibv_destroy_cq(r->cqy);
	if (r->lmr)
		ibv_dereg_mr(r->lmr);
	if (r->rmr)
		ibv_dereg_mr(r->rmr);
	free(r->lbuf);
	free(r->rbuf);
}

/*
 * X (in @pd, CQ of @cqe entries) <-> Y, in RTS; the peer's buffer
 * patterned.
 */
static int rs_up_pd(struct t *t, struct rs *r, int cqe, struct ibv_pd *pd)
{
	struct ibv_qp_init_attr ia = { .qp_type = IBV_QPT_RC, .cap = CAP(RS_MAX, 4, 1, 1, 0) };
	size_t len = RS_LEN * RS_MAX;

	memset(r, 0, sizeof(*r));
	r->cqx = ibv_create_cq(t->ctx, cqe, NULL, NULL, 0);
	r->cqy = ibv_create_cq(t->ctx1, 16, NULL, NULL, 0);
	r->lbuf = calloc(1, len);
	r->rbuf = malloc(len);
	if (!r->cqx || !r->cqy || !r->lbuf || !r->rbuf) {
		whyf(t, "ibv_create_cq/malloc: %s", strerror(errno));
		return -1;
	}
	fill(r->rbuf, len, 9);
	r->lmr = ibv_reg_mr(t->pd, r->lbuf, len, IBV_ACCESS_LOCAL_WRITE);
	r->rmr = ibv_reg_mr(t->pd1, r->rbuf, len, IBV_ACCESS_LOCAL_WRITE |
			    IBV_ACCESS_REMOTE_READ);
	ia.send_cq = ia.recv_cq = r->cqx;
	r->x = ibv_create_qp(pd, &ia);
	ia.send_cq = ia.recv_cq = r->cqy;
	r->y = ibv_create_qp(t->pd1, &ia);
	if (!r->lmr || !r->rmr || !r->x || !r->y) {
		whyf(t, "ibv_reg_mr/ibv_create_qp(RC): %s", strerror(errno));
		return -1;
	}
	return rc_up(t, r->x, r->y, 0) || rc_up(t, r->y, r->x, 1) ? -1 : 0;
}

static int rs_up(struct t *t, struct rs *r, int cqe)
{
	return rs_up_pd(t, r, cqe, t->pd);
}

/*
 * Posts signaled READs @first .. @first + @n - 1 (wr_id = number, RS_LEN
 * bytes each), then waits until the last one's data is in place and a
 * little longer: its CQE is written right after the data, so all @n CQEs
 * are then pending in X's CQ, unpolled.
 */
static int rs_reads(struct t *t, struct rs *r, int first, int n)
{
	uint64_t end = now_ms() + 5000;
	size_t last;
	int i, rc;

	for (i = first; i < first + n; i++) {
		struct ibv_sge s = { (uintptr_t)r->lbuf + (size_t)i * RS_LEN, RS_LEN, r->lmr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = (uint64_t)i, .sg_list = &s, .num_sge = 1,
			.opcode = IBV_WR_RDMA_READ, .send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { .remote_addr = (uintptr_t)r->rbuf + (size_t)i * RS_LEN,
				     .rkey = r->rmr->rkey },
		}, *bad;

		rc = rc_errno(ibv_post_send(r->x, &wr, &bad));
		if (rc) {
			whyf(t, "RDMA READ %d: %s", i, errname(rc));
			return -1;
		}
	}
	last = (size_t)(first + n) * RS_LEN;
	while (memcmp(r->lbuf + last - RS_LEN, r->rbuf + last - RS_LEN, RS_LEN)) {
		if (now_ms() >= end) {
			whyf(t, "READ %d's data did not arrive in 5 s", first + n - 1);
			return -1;
		}
		usleep(1000);
	}
	usleep(200 * 1000);
	return 0;
}

/* Polls @n CQEs: READs 0 .. @n - 1 in order, successful, data compared. */
static void rs_poll_all(struct t *t, struct rs *r, int n)
{
	struct ibv_wc wc[RS_MAX];
	int got = 0, k, i;

	while (got < n) {
		k = ibv_poll_cq(r->cqx, n - got, wc + got);
		if (k <= 0)
			break;
		got += k;
	}
	if (got != n) {
		whyf(t, "polled %d CQEs after the resizes, expected %d", got, n);
		return;
	}
	for (i = 0; i < n; i++)
		if (wc[i].wr_id != (uint64_t)i || wc[i].status != IBV_WC_SUCCESS ||
		    wc[i].opcode != IBV_WC_RDMA_READ) {
			whyf(t, "CQE %d: wr_id %llu status %s opcode %d", i,
			     (unsigned long long)wc[i].wr_id,
			     ibv_wc_status_str(wc[i].status), wc[i].opcode);
			return;
		}
	if (memcmp(r->lbuf, r->rbuf, (size_t)n * RS_LEN))
		whyf(t, "the READs brought other bytes than the peer holds");
	expect_no_cqe(t, r->cqx, 10, "X's CQ after the last CQE");
}

static int resize_fresh(struct t *t, int cqe)
{
	struct ibv_cq *cq = ibv_create_cq(t->ctx, 16, NULL, NULL, 0);
	int rc;

	if (!cq) {
		whyf(t, "ibv_create_cq: %s", strerror(errno));
		return -1;
	}
	rc = ibv_resize_cq(cq, cqe);
	if (cq->cqe != 16)
		whyf(t, "after the refused resize cq->cqe is %d, was 16", cq->cqe);
	ibv_destroy_cq(cq);
	return rc;
}

static int resize_zero(struct t *t, const struct tcase *c)
{
	(void)c;
	return resize_fresh(t, 0);
}

static int resize_above_max(struct t *t, const struct tcase *c)
{
	(void)c;
	return resize_fresh(t, t->dattr.max_cqe + 1);
}

/* 16 CQEs pending: shrinking to 8 fails, and every CQE is still there. */
static int resize_below_pending(struct t *t, const struct tcase *c)
{
	struct rs r;
	int rc = -1;

	(void)c;
	if (rs_up(t, &r, 16) || rs_reads(t, &r, 0, 16))
		goto out;
	rc = ibv_resize_cq(r.cqx, 8);
	rs_poll_all(t, &r, 16);
out:
	rs_down(&r);
	return rc;
}

/*
 * A full CQ grows (16 -> 64), fills further (32 pending) and shrinks to
 * exactly its contents (32): every CQE comes out once, in order.
 */
static int resize_keeps_cqes(struct t *t, const struct tcase *c)
{
	struct rs r;
	int rc = -1;

	(void)c;
	if (rs_up(t, &r, 16) || rs_reads(t, &r, 0, 16))
		goto out;
	rc = ibv_resize_cq(r.cqx, 64);
	if (rc || r.cqx->cqe < 64) {
		whyf(t, "resize 16 -> 64: %s, cqe %d", errname(rc), r.cqx->cqe);
		goto out;
	}
	if (rs_reads(t, &r, 16, 16))
		goto out;
	rc = ibv_resize_cq(r.cqx, 32);
	if (rc || r.cqx->cqe < 32) {
		whyf(t, "resize 64 -> 32 with 32 pending: %s, cqe %d", errname(rc), r.cqx->cqe);
		goto out;
	}
	rs_poll_all(t, &r, 32);
	snprintf(t->detail, sizeof(t->detail), "32 CQEs kept through 16 -> 64 -> 32");
out:
	rs_down(&r);
	return rc;
}

/* ------------------------------------------------------------------ */
/* ibv_rereg_mr                                                        */
/* ------------------------------------------------------------------ */

#define RG_LEN		4096	/* each translation of the MR under test */
#define RG_XFER		256	/* bytes the peer moves */

/* The MR under test, on X's side, and the two buffers it may cover. */
struct rg {
	char *a, *b;
	struct ibv_mr *mr;
};

static int rg_up(struct t *t, struct rg *g, struct ibv_pd *pd, int access)
{
	memset(g, 0, sizeof(*g));
	g->a = aligned_alloc(4096, RG_LEN);
	g->b = aligned_alloc(4096, RG_LEN);
	if (g->a && g->b) {
		memset(g->a, 0, RG_LEN);
		memset(g->b, 0, RG_LEN);
		g->mr = ibv_reg_mr(pd, g->a, RG_LEN, access);
	}
	if (!g->mr)
		whyf(t, "ibv_reg_mr: %s", strerror(errno));
	return g->mr ? 0 : -1;
}

static void rg_down(struct rg *g)
{
	if (g->mr)
		ibv_dereg_mr(g->mr);
	free(g->a);
	free(g->b);
}

/* ibv_rereg_mr()'s result as an errno value (0: done). */
static int rereg_errno(struct ibv_mr *mr, int flags, struct ibv_pd *pd,
		       void *addr, size_t len, int access)
{
	int rc = ibv_rereg_mr(mr, flags, pd, addr, len, access);

	if (rc == IBV_REREG_MR_ERR_INPUT || rc == IBV_REREG_MR_ERR_CMD)
		return errno;
	return rc ? 1000 - rc : 0;	/* a fork-range error: no errno */
}

/*
 * Y does @op (RDMA WRITE or READ) of RG_XFER bytes between its buffer and
 * @raddr/@rkey on X's side.  Returns the CQE's status, or -1.
 */
static int rg_peer(struct t *t, struct rs *r, enum ibv_wr_opcode op,
		   char *raddr, uint32_t rkey)
{
	struct ibv_sge s = { (uintptr_t)r->rbuf, RG_XFER, r->rmr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 801, .sg_list = &s, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)raddr, .rkey = rkey },
	}, *bad;
	struct ibv_wc wc;

	if (rc_errno(ibv_post_send(r->y, &wr, &bad)) || cq_wait(r->cqy, &wc, 5000) <= 0) {
		whyf(t, "the peer's RDMA %s: not posted or no completion",
		     op == IBV_WR_RDMA_READ ? "READ" : "WRITE");
		return -1;
	}
	return (int)wc.status;
}

/* Y writes RG_XFER patterned bytes to @dst through @rkey: they land. */
static void rg_write_lands(struct t *t, struct rs *r, char *dst, uint32_t rkey,
			   unsigned int seed, const char *what)
{
	int st;

	fill(r->rbuf, RG_XFER, seed);
	st = rg_peer(t, r, IBV_WR_RDMA_WRITE, dst, rkey);
	if (st >= 0 && st != IBV_WC_SUCCESS)
		whyf(t, "%s: the peer's RDMA WRITE ended %s", what,
		     ibv_wc_status_str((enum ibv_wc_status)st));
	else if (st == IBV_WC_SUCCESS && memcmp(dst, r->rbuf, RG_XFER))
		whyf(t, "%s: other bytes landed than the peer wrote", what);
}

/* Y's write to @dst through @rkey is refused and changes nothing there. */
static void rg_write_refused(struct t *t, struct rs *r, char *dst,
			     uint32_t rkey, const char *what)
{
	char before[RG_XFER];
	int st;

	memcpy(before, dst, RG_XFER);
	fill(r->rbuf, RG_XFER, 77);
	st = rg_peer(t, r, IBV_WR_RDMA_WRITE, dst, rkey);
	if (st >= 0 && st != IBV_WC_REM_ACCESS_ERR)
		whyf(t, "%s: the peer's RDMA WRITE ended %s, expected %s", what,
		     ibv_wc_status_str((enum ibv_wc_status)st),
		     ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR));
	if (memcmp(before, dst, RG_XFER))
		whyf(t, "%s: the refused WRITE changed the memory", what);
}

/*
 * A remote write lands in buffer a; after CHANGE_TRANSLATION to buffer b
 * the keys are the same (as with mlx5 and rxe), a write lands in b and a
 * keeps its bytes; a write to a's addresses is refused (outside the MR).
 */
static int rereg_translation(struct t *t, const struct tcase *c)
{
	struct rs r = { 0 };
	struct rg g = { 0 };
	char a_bytes[RG_XFER];
	uint32_t old_rkey;
	int rc = -1;

	(void)c;
	if (rs_up(t, &r, 16) || rg_up(t, &g, t->pd, IBV_ACCESS_LOCAL_WRITE |
					IBV_ACCESS_REMOTE_WRITE))
		goto out;
	rg_write_lands(t, &r, g.a, g.mr->rkey, 1, "before the rereg");
	memcpy(a_bytes, g.a, RG_XFER);
	old_rkey = g.mr->rkey;
	rc = rereg_errno(g.mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, g.b, RG_LEN, 0);
	if (rc)
		goto out;
	if (g.mr->addr != g.b || g.mr->length != RG_LEN)
		whyf(t, "after the rereg mr->addr/length do not name the new buffer");
	if (g.mr->rkey != old_rkey)
		whyf(t, "the rereg changed the rkey %#x -> %#x", old_rkey, g.mr->rkey);
	rg_write_lands(t, &r, g.b, g.mr->rkey, 2, "into the new translation");
	if (memcmp(a_bytes, g.a, RG_XFER))
		whyf(t, "the old buffer changed after the rereg");
	rg_write_refused(t, &r, g.a, g.mr->rkey, "the old addresses");
out:
	rs_down(&r);
	rg_down(&g);
	return rc;
}

/*
 * CHANGE_ACCESS adding remote read: the peer READs the bytes; then dropping
 * remote access: the peer's WRITE is refused.
 */
static int rereg_access(struct t *t, const struct tcase *c)
{
	struct rs r = { 0 };
	struct rg g = { 0 };
	int rc = -1, st;

	(void)c;
	if (rs_up(t, &r, 16) || rg_up(t, &g, t->pd, IBV_ACCESS_LOCAL_WRITE |
					IBV_ACCESS_REMOTE_WRITE))
		goto out;
	fill(g.a, RG_XFER, 3);
	rc = rereg_errno(g.mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			 IBV_ACCESS_REMOTE_READ);
	if (rc)
		goto out;
	memset(r.rbuf, 0, RG_XFER);
	st = rg_peer(t, &r, IBV_WR_RDMA_READ, g.a, g.mr->rkey);
	if (st >= 0 && st != IBV_WC_SUCCESS)
		whyf(t, "the peer's READ after adding remote read ended %s",
		     ibv_wc_status_str((enum ibv_wc_status)st));
	else if (st == IBV_WC_SUCCESS && memcmp(r.rbuf, g.a, RG_XFER))
		whyf(t, "the peer READ other bytes than the MR holds");
	rc = rereg_errno(g.mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			 IBV_ACCESS_LOCAL_WRITE);
	if (rc)
		goto out;
	rg_write_refused(t, &r, g.a, g.mr->rkey, "after dropping remote write");
out:
	rs_down(&r);
	rg_down(&g);
	return rc;
}

/*
 * CHANGE_PD into the PD of X's QP: the peer's write lands; back into
 * another PD: it is refused (IBTA 10.6.3.2: MR and QP in one PD).
 */
static int rereg_pd(struct t *t, const struct tcase *c)
{
	struct ibv_pd *pd2 = ibv_alloc_pd(t->ctx);
	struct rs r = { 0 };
	struct rg g = { 0 };
	int rc = -1;

	(void)c;
	if (!pd2 || rs_up_pd(t, &r, 16, pd2) ||
	    rg_up(t, &g, t->pd, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE))
		goto out;
	rc = rereg_errno(g.mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0);
	if (rc)
		goto out;
	if (g.mr->pd != pd2)
		whyf(t, "after the rereg mr->pd is not the new PD");
	rg_write_lands(t, &r, g.a, g.mr->rkey, 5, "in the QP's PD");
	rc = rereg_errno(g.mr, IBV_REREG_MR_CHANGE_PD, t->pd, NULL, 0, 0);
	if (rc)
		goto out;
	rg_write_refused(t, &r, g.a, g.mr->rkey, "in another PD than the QP's");
out:
	rs_down(&r);
	rg_down(&g);
	if (pd2)
		ibv_dealloc_pd(pd2);
	return rc;
}

/* A refused rereg of a fresh MR; the MR keeps its keys and deregisters. */
static int rereg_fresh(struct t *t, int flags, void *addr, size_t len, int access)
{
	struct rg g;
	uint32_t lkey;
	int rc;

	if (rg_up(t, &g, t->pd, IBV_ACCESS_LOCAL_WRITE))
		return -1;
	lkey = g.mr->lkey;
	rc = rereg_errno(g.mr, flags, NULL, addr, len, access);
	if (rc && (g.mr->lkey != lkey || g.mr->addr != g.a))
		whyf(t, "the refused rereg changed the MR's lkey or address");
	if (ibv_dereg_mr(g.mr))
		whyf(t, "ibv_dereg_mr after the rereg failed");
	g.mr = NULL;
	rg_down(&g);
	return rc;
}

static int rereg_no_flags(struct t *t, const struct tcase *c)
{
	(void)c;
	return rereg_fresh(t, 0, NULL, 0, 0);
}

static int rereg_remote_write_only(struct t *t, const struct tcase *c)
{
	(void)c;
	return rereg_fresh(t, IBV_REREG_MR_CHANGE_ACCESS, NULL, 0,
			   IBV_ACCESS_REMOTE_WRITE);
}

static int rereg_zero_length(struct t *t, const struct tcase *c)
{
	(void)c;
	return rereg_fresh(t, IBV_REREG_MR_CHANGE_TRANSLATION, t->buf, 0, 0);
}

static int rereg_unmapped(struct t *t, const struct tcase *c)
{
	void *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)c;
	if (p == MAP_FAILED) {
		whyf(t, "mmap: %s", strerror(errno));
		return -1;
	}
	munmap(p, 8192);
	return rereg_fresh(t, IBV_REREG_MR_CHANGE_TRANSLATION, p, 8192, 0);
}

/* ------------------------------------------------------------------ */
/* After the errors                                                    */
/* ------------------------------------------------------------------ */

/* ibv_query_qp of A returns what the good transitions set, nothing else. */
static int query_after(struct t *t, const struct tcase *c)
{
	struct ibv_qp_attr q, w;
	struct ibv_qp_init_attr ia;
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS |
		   IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER | IBV_QP_TIMEOUT |
		   IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_AV;
	int rc;

	(void)c;
	rc = rc_errno(ibv_query_qp(t->qpa, &q, mask, &ia));
	if (rc)
		return rc;
#define SAME(field, want) do {						\
		if ((long)q.field != (long)(want))			\
			whyf(t, #field " %ld, expected %ld",		\
			     (long)q.field, (long)(want));		\
	} while (0)
	SAME(qp_state, IBV_QPS_RTS);
	good_attr(t, IBV_QPT_RC, IBV_QPS_INIT, &w, 0);
	SAME(pkey_index, w.pkey_index);
	SAME(port_num, w.port_num);
	SAME(qp_access_flags, w.qp_access_flags);
	good_attr(t, IBV_QPT_RC, IBV_QPS_RTR, &w, 0);
	SAME(path_mtu, w.path_mtu);
	SAME(dest_qp_num, w.dest_qp_num);
	SAME(max_dest_rd_atomic, w.max_dest_rd_atomic);
	SAME(min_rnr_timer, 12);	/* also set RTS->RTS */
	SAME(ah_attr.grh.sgid_index, w.ah_attr.grh.sgid_index);
	if (memcmp(&q.ah_attr.grh.dgid, &w.ah_attr.grh.dgid, 16))
		whyf(t, "ah_attr.grh.dgid is not the peer's GID");
	good_attr(t, IBV_QPT_RC, IBV_QPS_RTS, &w, 0);
	SAME(timeout, w.timeout);
	SAME(retry_cnt, w.retry_cnt);
	SAME(rnr_retry, w.rnr_retry);
	SAME(max_rd_atomic, w.max_rd_atomic);
#undef SAME
	if (qp_state(t->qpu) != IBV_QPS_RTS)
		whyf(t, "UD QP in %s, expected RTS", state_name(qp_state(t->qpu)));
	return 0;
}

static void fill(char *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (char)(seed + i * 7 + (i >> 8));
}

/* A sends to B: B's receive gets it whole. */
static int ping_a_to_b(struct t *t, const struct tcase *c)
{
	struct ibv_sge rs = { (uintptr_t)t->buf1 + 8192, 8192, t->mr1->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 501, .sg_list = &rs, .num_sge = 1 }, *rbad;
	struct ibv_sge ss = sge_of(t, 0, 4000);
	struct ibv_send_wr swr = {
		.wr_id = 502, .sg_list = &ss, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *sbad;
	int rc, len;

	(void)c;
	fill(t->buf, 4000, 1);
	memset(t->buf1 + 8192, 0, 8192);
	rc = rc_errno(ibv_post_recv(t->qpb, &rwr, &rbad));
	if (rc) {
		whyf(t, "B's ibv_post_recv: %s", errname(rc));
		return rc;
	}
	rc = rc_errno(ibv_post_send(t->qpa, &swr, &sbad));
	if (rc)
		return rc;
	expect_cqe(t, t->cq, 502, IBV_WC_SEND, "A's send");
	len = expect_cqe(t, t->cq1, 501, IBV_WC_RECV, "B's receive");
	if (len >= 0 && len != 4000)
		whyf(t, "B received %d bytes, sent 4000", len);
	if (len == 4000 && memcmp(t->buf, t->buf1 + 8192, 4000))
		whyf(t, "B received other bytes than A sent");
	return 0;
}

/* B sends to A: the receive A posted back in INIT takes it. */
static int ping_b_to_a(struct t *t, const struct tcase *c)
{
	struct ibv_sge ss = { (uintptr_t)t->buf1, 3000, t->mr1->lkey };
	struct ibv_send_wr swr = {
		.wr_id = 503, .sg_list = &ss, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *sbad;
	int rc, len;

	(void)c;
	fill(t->buf1, 3000, 2);
	rc = rc_errno(ibv_post_send(t->qpb, &swr, &sbad));
	if (rc) {
		whyf(t, "B's ibv_post_send: %s", errname(rc));
		return rc;
	}
	expect_cqe(t, t->cq1, 503, IBV_WC_SEND, "B's send");
	len = expect_cqe(t, t->cq, RECV_INIT_ID, IBV_WC_RECV, "A's receive posted in INIT");
	if (len >= 0 && len != 3000)
		whyf(t, "A received %d bytes, B sent 3000", len);
	if (len == 3000 && memcmp(t->buf1, t->buf + 8192, 3000))
		whyf(t, "A received other bytes than B sent");
	return 0;
}

static int ping_rdma(struct t *t, enum ibv_wr_opcode op)
{
	size_t la = 16384, rb = 24576, n = 5000;
	struct ibv_sge s = sge_of(t, la, (uint32_t)n);
	struct ibv_send_wr wr = {
		.wr_id = 504 + op, .sg_list = &s, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)t->buf1 + rb, .rkey = t->mr1->rkey },
	}, *bad;
	int rc;

	if (op == IBV_WR_RDMA_WRITE) {
		fill(t->buf + la, n, 3);
		memset(t->buf1 + rb, 0, n);
	} else {
		fill(t->buf1 + rb, n, 4);
		memset(t->buf + la, 0, n);
	}
	rc = rc_errno(ibv_post_send(t->qpa, &wr, &bad));
	if (rc)
		return rc;
	if (expect_cqe(t, t->cq, wr.wr_id, op == IBV_WR_RDMA_WRITE ? IBV_WC_RDMA_WRITE :
		       IBV_WC_RDMA_READ, "A's RDMA") >= 0 &&
	    memcmp(t->buf + la, t->buf1 + rb, n))
		whyf(t, "the two buffers differ after the RDMA %s",
		     op == IBV_WR_RDMA_WRITE ? "WRITE" : "READ");
	return 0;
}

static int ping_write(struct t *t, const struct tcase *c)
{
	(void)c;
	return ping_rdma(t, IBV_WR_RDMA_WRITE);
}

static int ping_read(struct t *t, const struct tcase *c)
{
	(void)c;
	return ping_rdma(t, IBV_WR_RDMA_READ);
}

static int no_stray_cqes(struct t *t, const struct tcase *c)
{
	(void)c;
	expect_no_cqe(t, t->cq, 100, "A's CQ");
	expect_no_cqe(t, t->cq1, 10, "B's CQ");
	expect_no_cqe(t, t->cqu, 10, "the UD QP's CQ");
	if (qp_state(t->qpa) != IBV_QPS_RTS || qp_state(t->qpb) != IBV_QPS_RTS)
		whyf(t, "after the ping A is %s and B is %s", state_name(qp_state(t->qpa)),
		     state_name(qp_state(t->qpb)));
	return 0;
}

/* Everything is destroyed in order, each call returning 0. */
static int teardown(struct t *t, const struct tcase *c)
{
	int rc;

	(void)c;
#define FREE(call, what) do {						\
		rc = rc_errno(call);					\
		if (rc)							\
			whyf(t, "%s: %s", what, errname(rc));		\
	} while (0)
	FREE(ibv_destroy_qp(t->qpa), "ibv_destroy_qp(A)");
	FREE(ibv_destroy_qp(t->qpb), "ibv_destroy_qp(B)");
	FREE(ibv_destroy_qp(t->qpu), "ibv_destroy_qp(UD)");
	FREE(ibv_destroy_ah(t->ah), "ibv_destroy_ah");
	FREE(ibv_dereg_mr(t->mr), "ibv_dereg_mr(A)");
	FREE(ibv_dereg_mr(t->mr1), "ibv_dereg_mr(B)");
	FREE(ibv_destroy_cq(t->cq), "ibv_destroy_cq(A)");
	FREE(ibv_destroy_cq(t->cq1), "ibv_destroy_cq(B)");
	FREE(ibv_destroy_cq(t->cqu), "ibv_destroy_cq(UD)");
	FREE(ibv_dealloc_pd(t->pd), "ibv_dealloc_pd(A)");
	FREE(ibv_dealloc_pd(t->pd1), "ibv_dealloc_pd(B)");
#undef FREE
	t->qpa = t->qpb = t->qpu = NULL;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The table                                                           */
/* ------------------------------------------------------------------ */

#define MOD(q, st)	.run = run_modify, .qp = (q), .to = (st)
#define STEP(q, st)	.run = step_rc, .qp = (q), .to = (st), .step = 1
#define ALL		(~0)

/* ------------------------------------------------------------------ */
/* Memory windows (IBTA 10.6.7)                                        */
/* ------------------------------------------------------------------ */

#define MW_MR_OFF	32768		/* A's MR for windows: 8 KiB of t->buf */
#define MW_MR_LEN	8192
#define MW_OFF		1024		/* the window, inside that MR */
#define MW_LEN		2048
#define MW_RIGHTS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ)

/* What a memory window case does (its tcase @value). */
enum mw_mode {
	MW_DATA_T1,		/* type 1: WRITE and READ in the window */
	MW_DATA_T2,		/* type 2: the same */
	MW_OUTSIDE_T1,		/* type 1: a WRITE past the window's end */
	MW_OUTSIDE_T2,		/* type 2: a READ before its start */
	MW_NO_RIGHT_T2,		/* type 2: READ through a write-only window */
	MW_UNBIND_T1,		/* type 1: zero-length bind, then WRITE */
	MW_LOCAL_INV_T2,	/* type 2: IBV_WR_LOCAL_INV, then WRITE */
	MW_REMOTE_INV_T2,	/* type 2: peer's SEND_WITH_INV, then WRITE */
	MW_DEALLOC_T2,		/* type 2: ibv_dealloc_mw, then WRITE */
};

/* A's RC QP @x (t->pd) and the peer's @y (t->pd1), on CQs of their own. */
struct mw_pair {
	struct ibv_cq *cq, *cq1;
	struct ibv_qp *x, *y;
	struct ibv_mr *mr;
	struct ibv_mw *mw;
	uint32_t rkey;		/* the window's rkey once bound */
};

static void mw_pair_down(struct mw_pair *p)
{
	if (p->mw)
		ibv_dealloc_mw(p->mw);
	if (p->mr)
		ibv_dereg_mr(p->mr);
	if (p->x)
		ibv_destroy_qp(p->x);
	if (p->y)
		ibv_destroy_qp(p->y);
	if (p->cq)
		ibv_destroy_cq(p->cq);
	if (p->cq1)
		ibv_destroy_cq(p->cq1);
}

/*
 * Connects a fresh pair and registers A's MR with @mr_access; with @type
 * (1 or 2) allocates a window.  Returns 0 (t->why set if the pair did not
 * come up) or an errno.
 */
static int mw_pair_up(struct t *t, struct mw_pair *p, int mr_access, int type)
{
	memset(p, 0, sizeof(*p));
	p->cq = ibv_create_cq(t->ctx, 16, NULL, NULL, 0);
	p->cq1 = ibv_create_cq(t->ctx1, 16, NULL, NULL, 0);
	if (!p->cq || !p->cq1)
		return errno ? errno : ENOMEM;
	p->x = rc_qp(t->pd, p->cq);
	p->y = rc_qp(t->pd1, p->cq1);
	if (!p->x || !p->y)
		return errno ? errno : ENOMEM;
	if (rc_up(t, p->x, p->y, 0) || rc_up(t, p->y, p->x, 1))
		return 0;
	p->mr = ibv_reg_mr(t->pd, t->buf + MW_MR_OFF, MW_MR_LEN, mr_access);
	if (!p->mr)
		return errno;
	if (!type)
		return 0;
	p->mw = ibv_alloc_mw(t->pd, type == 1 ? IBV_MW_TYPE_1 : IBV_MW_TYPE_2);
	return p->mw ? 0 : errno;
}

/*
 * Binds @p's window to [MW_MR_OFF + @off, + @len) of t->buf with @rights,
 * signaled (wr_id 600): type 1 with ibv_bind_mw(), type 2 with an
 * IBV_WR_BIND_MW work request and the next rkey.  Returns the posting's
 * errno; p->rkey is the window's rkey.
 */
static int mw_bind(struct mw_pair *p, uint64_t off, uint64_t len, int rights)
{
	struct ibv_mw_bind_info bi = {
		.mr = p->mr, .addr = (uintptr_t)p->mr->addr + off,
		.length = len, .mw_access_flags = (unsigned int)rights,
	};
	struct ibv_mw_bind b = {
		.wr_id = 600, .send_flags = IBV_SEND_SIGNALED, .bind_info = bi,
	};
	struct ibv_send_wr wr = {
		.wr_id = 600, .opcode = IBV_WR_BIND_MW,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_mw = { .mw = p->mw, .rkey = ibv_inc_rkey(p->mw->rkey), .bind_info = bi },
	}, *bad;
	int rc;

	if (p->mw->type == IBV_MW_TYPE_1) {
		rc = ibv_bind_mw(p->x, p->mw, &b);
		p->rkey = p->mw->rkey;
		return rc;
	}
	rc = ibv_post_send(p->x, &wr, &bad);
	p->rkey = wr.bind_mw.rkey;
	return rc;
}

/*
 * The peer's RDMA @op of @len bytes at window offset @off through
 * p->rkey, from t->buf1; its completion must have @status.
 */
static void mw_peer_rdma(struct t *t, struct mw_pair *p, enum ibv_wr_opcode op,
			 int64_t off, uint32_t len, enum ibv_wc_status status)
{
	struct ibv_sge s = { (uintptr_t)t->buf1, len, t->mr1->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 610 + (uint64_t)op, .sg_list = &s, .num_sge = 1,
		.opcode = op, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = {
			.remote_addr = (uintptr_t)t->buf + MW_MR_OFF + MW_OFF + (uint64_t)off,
			.rkey = p->rkey,
		},
	}, *bad;

	if (ibv_post_send(p->y, &wr, &bad)) {
		whyf(t, "peer's ibv_post_send: %s", errname(errno));
		return;
	}
	expect_status(t, p->cq1, wr.wr_id, status, 5000,
		      op == IBV_WR_RDMA_READ ? "peer's READ" : "peer's WRITE");
}

/* WRITE 512 bytes into the window, READ 256 back; the bytes compared. */
static void mw_data(struct t *t, struct mw_pair *p)
{
	char *mem = t->buf + MW_MR_OFF + MW_OFF;
	int i;

	for (i = 0; i < 512; i++)
		t->buf1[i] = (char)(i * 7 + 3);
	memset(mem, 0, MW_LEN);
	mw_peer_rdma(t, p, IBV_WR_RDMA_WRITE, 64, 512, IBV_WC_SUCCESS);
	if (!t->why[0] && memcmp(mem + 64, t->buf1, 512))
		whyf(t, "the WRITE through the window left other bytes");
	for (i = 0; i < 256; i++)
		mem[MW_LEN - 256 + i] = (char)(0x5a ^ i);
	memset(t->buf1, 0, 256);
	mw_peer_rdma(t, p, IBV_WR_RDMA_READ, MW_LEN - 256, 256, IBV_WC_SUCCESS);
	if (!t->why[0] && memcmp(mem + MW_LEN - 256, t->buf1, 256))
		whyf(t, "the READ through the window returned other bytes");
}

/* The peer's SEND_WITH_INV of p->rkey, received by A with IBV_WC_WITH_INV. */
static void mw_remote_inv(struct t *t, struct mw_pair *p)
{
	struct ibv_sge rs = sge_of(t, 0, 64), ss = { (uintptr_t)t->buf1, 16, t->mr1->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 620, .sg_list = &rs, .num_sge = 1 }, *rbad;
	struct ibv_send_wr swr = {
		.wr_id = 621, .sg_list = &ss, .num_sge = 1,
		.opcode = IBV_WR_SEND_WITH_INV, .send_flags = IBV_SEND_SIGNALED,
		.invalidate_rkey = p->rkey,
	}, *sbad;
	struct ibv_wc wc;

	if (ibv_post_recv(p->x, &rwr, &rbad) || ibv_post_send(p->y, &swr, &sbad)) {
		whyf(t, "posting the SEND_WITH_INV: %s", errname(errno));
		return;
	}
	expect_status(t, p->cq1, 621, IBV_WC_SUCCESS, 5000, "peer's SEND_WITH_INV");
	if (cq_wait(p->cq, &wc, 5000) <= 0 || wc.status != IBV_WC_SUCCESS ||
	    !(wc.wc_flags & IBV_WC_WITH_INV) || wc.invalidated_rkey != p->rkey)
		whyf(t, "A's receive: no successful completion with IBV_WC_WITH_INV and rkey %#x",
		     p->rkey);
}

/* Unbinds or invalidates the window as @m says (the *_INV, UNBIND modes). */
static void mw_invalidate(struct t *t, struct mw_pair *p, enum mw_mode m)
{
	struct ibv_send_wr wr = {
		.wr_id = 630, .opcode = IBV_WR_LOCAL_INV,
		.send_flags = IBV_SEND_SIGNALED, .invalidate_rkey = p->rkey,
	}, *bad;

	if (m == MW_UNBIND_T1) {
		if (mw_bind(p, 0, 0, 0))
			whyf(t, "zero-length ibv_bind_mw: %s", errname(errno));
		else
			expect_status(t, p->cq, 600, IBV_WC_SUCCESS, 5000, "zero-length bind");
	} else if (m == MW_LOCAL_INV_T2) {
		if (ibv_post_send(p->x, &wr, &bad))
			whyf(t, "IBV_WR_LOCAL_INV: %s", errname(errno));
		else
			expect_status(t, p->cq, 630, IBV_WC_SUCCESS, 5000, "local invalidate");
	} else if (m == MW_REMOTE_INV_T2) {
		mw_remote_inv(t, p);
	} else if (m == MW_DEALLOC_T2) {
		if (ibv_dealloc_mw(p->mw))
			whyf(t, "ibv_dealloc_mw: %s", errname(errno));
		p->mw = NULL;
	}
}

/*
 * A binds a window on its MR (local write and MW bind, no remote access of
 * its own); the peer accesses A's memory through it as @c->value says.
 */
static int mw_traffic(struct t *t, const struct tcase *c)
{
	enum mw_mode m = (enum mw_mode)c->value;
	int type = (m == MW_DATA_T1 || m == MW_OUTSIDE_T1 || m == MW_UNBIND_T1) ? 1 : 2;
	struct mw_pair p;
	int rc;

	rc = mw_pair_up(t, &p, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND, type);
	if (rc || t->why[0])
		goto out;
	rc = mw_bind(&p, MW_OFF, MW_LEN, m == MW_NO_RIGHT_T2 ?
		     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE : MW_RIGHTS);
	if (rc)
		goto out;
	expect_status(t, p.cq, 600, IBV_WC_SUCCESS, 5000, "the bind");
	if (m == MW_OUTSIDE_T1)
		mw_peer_rdma(t, &p, IBV_WR_RDMA_WRITE, MW_LEN - 4, 8, IBV_WC_REM_ACCESS_ERR);
	else if (m == MW_OUTSIDE_T2)
		mw_peer_rdma(t, &p, IBV_WR_RDMA_READ, -4, 8, IBV_WC_REM_ACCESS_ERR);
	else if (m == MW_NO_RIGHT_T2)
		mw_peer_rdma(t, &p, IBV_WR_RDMA_READ, 0, 8, IBV_WC_REM_ACCESS_ERR);
	else
		mw_data(t, &p);
	if (m >= MW_UNBIND_T1 && !t->why[0]) {
		mw_invalidate(t, &p, m);
		if (!t->why[0])
			mw_peer_rdma(t, &p, IBV_WR_RDMA_WRITE, 0, 8, IBV_WC_REM_ACCESS_ERR);
	}
out:
	mw_pair_down(&p);
	return rc;
}

/* What a bad bind case does (its tcase @value). */
enum mw_bad {
	MWB_OUTSIDE_MR,		/* the window ends past the MR: bind error */
	MWB_NO_MW_BIND,		/* the MR lacks IBV_ACCESS_MW_BIND: bind error */
	MWB_WRITE_NO_LW,	/* remote write on an MR without local write */
	MWB_ZERO_BASED,		/* IBV_ACCESS_ZERO_BASED window: refused */
	MWB_UD_QP,		/* ibv_bind_mw on a UD QP: refused */
	MWB_TYPE2_BIND_MW,	/* ibv_bind_mw with a type 2 window: refused */
	MWB_DEREG_BOUND,	/* ibv_dereg_mr of an MR a window is bound to */
};

/*
 * A bind refused when posted returns its errno; one the device refuses
 * completes with IBV_WC_MW_BIND_ERR (0 returned); deregistering a bound
 * MR returns its errno, and succeeds once the window is gone.
 */
static int mw_bad_bind(struct t *t, const struct tcase *c)
{
	enum mw_bad m = (enum mw_bad)c->value;
	int access = m == MWB_NO_MW_BIND ? IBV_ACCESS_LOCAL_WRITE :
		     m == MWB_WRITE_NO_LW ? IBV_ACCESS_MW_BIND :
		     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND;
	struct ibv_mw_bind b = { .wr_id = 640 };
	struct mw_pair p;
	int rc;

	rc = mw_pair_up(t, &p, access, m == MWB_TYPE2_BIND_MW ? 2 : 1);
	if (rc || t->why[0])
		goto out;
	if (m == MWB_UD_QP || m == MWB_TYPE2_BIND_MW) {
		b.bind_info = (struct ibv_mw_bind_info){ p.mr, (uintptr_t)p.mr->addr, 64, MW_RIGHTS };
		rc = ibv_bind_mw(m == MWB_UD_QP ? t->qpu : p.x, p.mw, &b);
		goto out;
	}
	rc = mw_bind(&p, m == MWB_OUTSIDE_MR ? MW_MR_LEN - 64 : 0, 128,
		     m == MWB_ZERO_BASED ? MW_RIGHTS | IBV_ACCESS_ZERO_BASED : MW_RIGHTS);
	if (rc || m == MWB_DEREG_BOUND)
		goto deregister;
	expect_status(t, p.cq, 600, IBV_WC_MW_BIND_ERR, 5000, "the bind");
deregister:
	if (!rc && m == MWB_DEREG_BOUND) {
		expect_status(t, p.cq, 600, IBV_WC_SUCCESS, 5000, "the bind");
		rc = ibv_dereg_mr(p.mr);
		if (!rc)
			p.mr = NULL;
		else if (ibv_dealloc_mw(p.mw) || ibv_dereg_mr(p.mr))
			whyf(t, "the MR after ibv_dealloc_mw: %s", errname(errno));
		else
			p.mw = NULL, p.mr = NULL;
	}
out:
	mw_pair_down(&p);
	return rc;
}

/* ibv_alloc_mw of an unknown type fails; types 1 and 2 are offered. */
static int mw_alloc(struct t *t, const struct tcase *c)
{
	struct ibv_mw *mw, *mw2;

	if (!t->dattr.max_mw) {
		whyf(t, "max_mw is 0");
		return 0;
	}
	errno = 0;
	mw = ibv_alloc_mw(t->pd, (enum ibv_mw_type)c->value);
	if (!mw)
		return errno ? errno : -1;
	mw2 = c->value == IBV_MW_TYPE_1 ? ibv_alloc_mw(t->pd, IBV_MW_TYPE_2) : NULL;
	if (c->value == IBV_MW_TYPE_1 && (!mw2 || ibv_dealloc_mw(mw2)))
		whyf(t, "a type 2 window: %s", errname(errno));
	return ibv_dealloc_mw(mw);
}

/* ------------------------------------------------------------------ */
/* XRC (IBTA annex A14: domains, XRC SRQs, INI/TGT QPs, XRCETH)       */
/* ------------------------------------------------------------------ */

/* What an XRC case does (its tcase @value). */
enum xrc_mode {
	XRC_SRQ_NO_CQ,		/* ibv_create_srq_ex(XRC) without a CQ */
	XRC_SRQ_NO_XRCD,	/* ... without a domain */
	XRC_SRQ_TM,		/* a tag matching SRQ */
	XRC_SRQ_BASIC_EX,	/* a basic SRQ through ibv_create_srq_ex */
	XRC_TGT_NO_XRCD,	/* an XRC_RECV QP with comp_mask PD only */
	XRC_TGT_NO_XRCD_EX,	/* ... through the provider's create_qp_ex */
	XRC_INI_NO_PD,		/* an XRC_SEND QP with an XRCD but no PD */
	XRC_INI_ATOMIC_WRITE,	/* send_ops_flags an INI QP does not take */
	XRC_INI_BIND_MW,
	XRC_INI_POST_RECV,	/* ibv_post_recv on an INI QP */
	XRC_TGT_POST_SEND,	/* ibv_post_send on a TGT QP */
	XRC_TGT_POST_RECV,	/* ibv_post_recv on a TGT QP */
	XRC_XRCD_NO_FD,		/* ibv_open_xrcd without IBV_XRCD_INIT_ATTR_FD */
	XRC_XRCD_NO_CREAT,	/* a file without a domain, no O_CREAT */
	XRC_XRCD_EXCL,		/* a file with a domain, O_EXCL */
	XRC_XRCD_BUSY,		/* ibv_close_xrcd under an XRC SRQ */
	XRC_OPEN_NO_QP,		/* ibv_open_qp of a number with no TGT QP */
	XRC_OPEN_RC_TYPE,	/* ibv_open_qp with type RC */
	XRC_INI_BAD_OPCODE,	/* ATOMIC WRITE / BIND_MW posted to an INI QP */
	XRC_INI_SRQN_25_BITS,	/* a remote SRQ number above 24 bits */
	XRC_NAK_NO_SRQ,		/* a send to an SRQ number nobody has */
	XRC_NAK_OTHER_XRCD,	/* a send to an SRQ of another domain */
	XRC_GOOD_SEND,		/* INI -> TGT -> SRQ: bytes, wc.qp_num */
	XRC_WRITE_OTHER_PD,	/* RDMA WRITE to an MR outside the SRQ's PD */
	XRC_RC_ON_XRC_SRQ,	/* an RC QP taking its receives from an XRC SRQ */
	XRC_NAK_DESTROYED_SRQ,	/* a send to the number of a destroyed SRQ */
};

/*
 * The XRC objects of a case: A (device under test) has an INI QP on its
 * own CQ; the peer B an XRC domain named by a file, a second domain
 * without a file (fd -1), an XRC SRQ in each (both completing into one
 * CQ) and a TGT QP in the first.
 */
struct xrc_env {
	char path[64];
	int fd;
	struct ibv_xrcd *xrcd, *xrcd2;
	struct ibv_cq *cq, *cq1;
	struct ibv_srq *srq, *srq2;
	uint32_t srqn, srqn2;
	struct ibv_qp *ini, *tgt;
};

static struct ibv_xrcd *xrcd_open(struct ibv_context *ctx, int fd, int oflags, uint32_t mask)
{
	struct ibv_xrcd_init_attr xa = { .comp_mask = mask, .fd = fd, .oflags = oflags };

	errno = 0;
	return ibv_open_xrcd(ctx, &xa);
}

/* A fresh file for an XRC domain in @e->path, opened into @e->fd. */
static int xrc_file(struct t *t, struct xrc_env *e)
{
	snprintf(e->path, sizeof(e->path), "/tmp/verbs_errno.xrcd.XXXXXX");
	e->fd = mkstemp(e->path);
	if (e->fd < 0)
		whyf(t, "mkstemp: %s", strerror(errno));
	return e->fd < 0 ? -1 : 0;
}

static int xsrq(struct ibv_context *ctx, struct ibv_pd *pd, struct ibv_xrcd *xrcd,
		struct ibv_cq *cq, uint32_t mask, enum ibv_srq_type type,
		struct ibv_srq **out)
{
	struct ibv_srq_init_attr_ex sa = {
		.attr = { .max_wr = 16, .max_sge = 1 }, .comp_mask = mask,
		.srq_type = type, .pd = pd, .xrcd = xrcd, .cq = cq,
		.tm_cap = { .max_num_tags = 8, .max_ops = 8 },
	};

	errno = 0;
	*out = ibv_create_srq_ex(ctx, &sa);
	return *out ? 0 : (errno ? errno : -1);
}

#define XSRQ_MASK	(IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD | \
			 IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ)

static struct ibv_qp *xrc_qp(struct ibv_context *ctx, enum ibv_qp_type type,
			     struct ibv_pd *pd, struct ibv_xrcd *xrcd, struct ibv_cq *cq,
			     uint32_t mask, uint64_t ops)
{
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = type, .comp_mask = mask, .pd = pd, .xrcd = xrcd,
		.send_cq = cq, .send_ops_flags = ops,
		.cap = { .max_send_wr = 8, .max_send_sge = 1 },
	};

	errno = 0;
	return ibv_create_qp_ex(ctx, &ia);
}

static void xrc_down(struct xrc_env *e)
{
	if (e->ini)
		ibv_destroy_qp(e->ini);
	if (e->tgt)
		ibv_destroy_qp(e->tgt);
	if (e->srq)
		ibv_destroy_srq(e->srq);
	if (e->srq2)
		ibv_destroy_srq(e->srq2);
	if (e->cq)
		ibv_destroy_cq(e->cq);
	if (e->cq1)
		ibv_destroy_cq(e->cq1);
	if (e->xrcd)
		ibv_close_xrcd(e->xrcd);
	if (e->xrcd2)
		ibv_close_xrcd(e->xrcd2);
	if (e->fd >= 0) {
		close(e->fd);
		unlink(e->path);
	}
}

/*
 * Builds @e: the peer's domains, SRQs and TGT QP, A's INI QP and CQ.
 * Returns 0, or an errno (XRC unsupported: the case reports it) with
 * t->why set.
 */
static int xrc_up(struct t *t, struct xrc_env *e)
{
	int rc;

	memset(e, 0, sizeof(*e));
	e->fd = -1;
	if (xrc_file(t, e))
		return -1;
	e->xrcd = xrcd_open(t->ctx1, e->fd, O_CREAT, IBV_XRCD_INIT_ATTR_FD |
			    IBV_XRCD_INIT_ATTR_OFLAGS);
	e->xrcd2 = xrcd_open(t->ctx1, -1, O_CREAT, IBV_XRCD_INIT_ATTR_FD |
			     IBV_XRCD_INIT_ATTR_OFLAGS);
	if (!e->xrcd || !e->xrcd2) {
		rc = errno;
		whyf(t, "ibv_open_xrcd on the peer (file, then fd -1): %s", errname(rc));
		return rc;
	}
	e->cq = ibv_create_cq(t->ctx, 16, NULL, NULL, 0);
	e->cq1 = ibv_create_cq(t->ctx1, 16, NULL, NULL, 0);
	if (!e->cq || !e->cq1) {
		whyf(t, "ibv_create_cq: %s", strerror(errno));
		return -1;
	}
	rc = xsrq(t->ctx1, t->pd1, e->xrcd, e->cq1, XSRQ_MASK, IBV_SRQT_XRC, &e->srq);
	if (!rc)
		rc = xsrq(t->ctx1, t->pd1, e->xrcd2, e->cq1, XSRQ_MASK, IBV_SRQT_XRC, &e->srq2);
	if (!rc)
		rc = ibv_get_srq_num(e->srq, &e->srqn);
	if (!rc)
		rc = ibv_get_srq_num(e->srq2, &e->srqn2);
	if (rc) {
		whyf(t, "XRC SRQs on the peer (ibv_create_srq_ex, ibv_get_srq_num): %s", errname(rc));
		return rc;
	}
	e->tgt = xrc_qp(t->ctx1, IBV_QPT_XRC_RECV, NULL, e->xrcd, NULL,
			IBV_QP_INIT_ATTR_XRCD, 0);
	e->ini = xrc_qp(t->ctx, IBV_QPT_XRC_SEND, t->pd, NULL, e->cq, IBV_QP_INIT_ATTR_PD, 0);
	if (!e->tgt || !e->ini) {
		rc = errno;
		whyf(t, "ibv_create_qp_ex of the %s QP: %s", e->tgt ? "INI" : "TGT", errname(rc));
		return rc;
	}
	return 0;
}

/* A's INI QP to RTS towards the peer's TGT QP, which goes to RTR. */
static int xrc_connect(struct t *t, struct xrc_env *e)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qp_access_flags = IBV_ACCESS_REMOTE_WRITE };
	int init_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	int rc;

	rc = rc_errno(ibv_modify_qp(e->tgt, &a, init_mask));
	a.qp_access_flags = 0;
	if (!rc)
		rc = rc_errno(ibv_modify_qp(e->ini, &a, init_mask));
	if (rc) {
		whyf(t, "XRC QPs to INIT: %s", errname(rc));
		return rc;
	}
	good_attr(t, IBV_QPT_RC, IBV_QPS_RTR, &a, 1);
	a.dest_qp_num = e->ini->qp_num;
	rc = rc_errno(ibv_modify_qp(e->tgt, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER));
	if (rc) {
		whyf(t, "TGT QP to RTR: %s", errname(rc));
		return rc;
	}
	good_attr(t, IBV_QPT_RC, IBV_QPS_RTR, &a, 0);
	a.dest_qp_num = e->tgt->qp_num;
	a.rq_psn = RQ_PSN_A;
	rc = rc_errno(ibv_modify_qp(e->ini, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN));
	if (!rc) {
		/* sq_psn RQ_PSN_B: the TGT QP's rq_psn (good_attr's peer RTR) */
		good_attr(t, IBV_QPT_RC, IBV_QPS_RTS, &a, 0);
		rc = rc_errno(ibv_modify_qp(e->ini, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
					    IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					    IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC));
	}
	if (rc)
		whyf(t, "INI QP to RTR/RTS: %s", errname(rc));
	return rc;
}

/* A send of 64 bytes from A's INI QP to SRQ number @srqn, signaled (wr_id 800). */
static int xrc_send(struct t *t, struct xrc_env *e, uint32_t srqn,
		    enum ibv_wr_opcode op)
{
	struct ibv_sge s = sge_of(t, 0, 64);
	struct ibv_send_wr wr = {
		.wr_id = 800, .sg_list = &s, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED, .qp_type.xrc.remote_srqn = srqn,
	}, *bad = NULL;
	int rc = rc_errno(ibv_post_send(e->ini, &wr, &bad));

	if (rc && bad != &wr)
		whyf(t, "bad_wr not set to the refused WR");
	return rc;
}

/* Posts a receive of 64 bytes at t->buf1 + 4096 to @srq (wr_id 810). */
static int xrc_recv(struct t *t, struct ibv_srq *srq)
{
	struct ibv_sge s = { .addr = (uintptr_t)t->buf1 + 4096, .length = 64,
			     .lkey = t->mr1->lkey };
	struct ibv_recv_wr wr = { .wr_id = 810, .sg_list = &s, .num_sge = 1 }, *bad;
	int rc = rc_errno(ibv_post_srq_recv(srq, &wr, &bad));

	if (rc)
		whyf(t, "ibv_post_srq_recv: %s", errname(rc));
	return rc;
}

/*
 * A send that names @srqn: none of the TGT QP's domain has it, so the
 * target answers with an invalid request NAK (IBTA 9.7.5.2.4); the send
 * completes with IBV_WC_REM_INV_REQ_ERR and the INI QP is in ERR, while
 * nothing lands on the peer's SRQs.
 */
static void xrc_nak(struct t *t, struct xrc_env *e, uint32_t srqn)
{
	if (xrc_recv(t, e->srq) || xrc_recv(t, e->srq2))
		return;
	if (xrc_send(t, e, srqn, IBV_WR_SEND)) {
		whyf(t, "ibv_post_send: %s", strerror(errno));
		return;
	}
	expect_status(t, e->cq, 800, IBV_WC_REM_INV_REQ_ERR, 5000, "the send");
	expect_no_cqe(t, e->cq1, 100, "the peer's SRQ CQ");
	if (qp_state(e->ini) != IBV_QPS_ERR)
		whyf(t, "the INI QP is %s after the NAK, expected ERR",
		     state_name(qp_state(e->ini)));
	snprintf(t->detail, sizeof(t->detail), "IBV_WC_REM_INV_REQ_ERR, INI QP in ERR");
}

static void xrc_good_send(struct t *t, struct xrc_env *e)
{
	struct ibv_wc wc;

	fill(t->buf, 64, 77);
	memset(t->buf1 + 4096, 0, 64);
	if (xrc_recv(t, e->srq) || xrc_send(t, e, e->srqn, IBV_WR_SEND))
		return;
	expect_status(t, e->cq, 800, IBV_WC_SUCCESS, 5000, "the send");
	if (cq_wait(e->cq1, &wc, 5000) <= 0 || wc.status != IBV_WC_SUCCESS ||
	    wc.wr_id != 810 || wc.byte_len != 64 || wc.qp_num != e->tgt->qp_num)
		whyf(t, "the SRQ's receive: wr_id %llu %s len %u qp_num %#x, want 810 success 64 TGT %#x",
		     (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status), wc.byte_len,
		     wc.qp_num, e->tgt->qp_num);
	else if (memcmp(t->buf, t->buf1 + 4096, 64))
		whyf(t, "the received bytes differ");
}

/*
 * An RDMA WRITE whose rkey is an MR of another PD than the one of the SRQ
 * the request names: the target checks memory in the SRQ's PD (an XRC
 * receive QP has none), so it answers with a remote access NAK; the bytes
 * stay.
 */
static void xrc_write_other_pd(struct t *t, struct xrc_env *e)
{
	struct ibv_pd *pd2 = ibv_alloc_pd(t->ctx1);
	struct ibv_mr *mr2 = pd2 ? ibv_reg_mr(pd2, t->buf1 + 8192, 4096,
					      IBV_ACCESS_LOCAL_WRITE |
					      IBV_ACCESS_REMOTE_WRITE) : NULL;
	struct ibv_sge s = sge_of(t, 0, 64);
	struct ibv_send_wr wr = {
		.wr_id = 800, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED, .qp_type.xrc.remote_srqn = e->srqn,
	}, *bad;
	int rc;

	if (!mr2) {
		whyf(t, "a second PD and MR on the peer: %s", strerror(errno));
		goto out;
	}
	fill(t->buf, 64, 91);
	memset(t->buf1 + 8192, 0x5a, 64);
	wr.wr.rdma.remote_addr = (uintptr_t)t->buf1 + 8192;
	wr.wr.rdma.rkey = mr2->rkey;
	rc = rc_errno(ibv_post_send(e->ini, &wr, &bad));
	if (rc) {
		whyf(t, "ibv_post_send: %s", errname(rc));
		goto out;
	}
	expect_status(t, e->cq, 800, IBV_WC_REM_ACCESS_ERR, 5000, "the RDMA WRITE");
	if (t->buf1[8192] != 0x5a || memcmp(t->buf1 + 8192, t->buf1 + 8193, 63))
		whyf(t, "the MR of the other PD was written");
	snprintf(t->detail, sizeof(t->detail), "IBV_WC_REM_ACCESS_ERR, bytes unchanged");
out:
	if (mr2)
		ibv_dereg_mr(mr2);
	if (pd2)
		ibv_dealloc_pd(pd2);
}

static int xrc_case(struct t *t, const struct tcase *c)
{
	enum xrc_mode m = (enum xrc_mode)c->value;
	struct ibv_recv_wr rwr = {}, *rbad;
	struct ibv_qp_open_attr oa = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			     IBV_QP_OPEN_ATTR_TYPE,
		.qp_type = IBV_QPT_XRC_RECV,
	};
	struct ibv_xrcd *x = NULL;
	struct ibv_srq *srq = NULL;
	struct ibv_qp *qp = NULL;
	struct xrc_env e;
	int rc;

	if (!(t->dattr.device_cap_flags & IBV_DEVICE_XRC)) {
		t->skip = "the device does not offer XRC (no IBV_DEVICE_XRC)";
		return 0;
	}
	rc = xrc_up(t, &e);
	if (rc)
		goto out;
	switch (m) {
	case XRC_SRQ_NO_CQ:
		rc = xsrq(t->ctx1, t->pd1, e.xrcd, NULL, XSRQ_MASK & ~IBV_SRQ_INIT_ATTR_CQ,
			  IBV_SRQT_XRC, &srq);
		break;
	case XRC_SRQ_NO_XRCD:
		rc = xsrq(t->ctx1, t->pd1, NULL, e.cq1, XSRQ_MASK & ~IBV_SRQ_INIT_ATTR_XRCD,
			  IBV_SRQT_XRC, &srq);
		break;
	case XRC_SRQ_TM:
		rc = xsrq(t->ctx1, t->pd1, NULL, e.cq1, IBV_SRQ_INIT_ATTR_TYPE |
			  IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_CQ | IBV_SRQ_INIT_ATTR_TM,
			  IBV_SRQT_TM, &srq);
		break;
	case XRC_SRQ_BASIC_EX:
		rc = xsrq(t->ctx, t->pd, NULL, e.cq, IBV_SRQ_INIT_ATTR_TYPE |
			  IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_CQ, IBV_SRQT_BASIC, &srq);
		if (!rc)
			rc = srq_post(t, srq, 4, 1);
		break;
	case XRC_TGT_NO_XRCD:
	case XRC_TGT_NO_XRCD_EX:
		qp = xrc_qp(t->ctx1, IBV_QPT_XRC_RECV, t->pd1, NULL, e.cq1,
			    IBV_QP_INIT_ATTR_PD | (m == XRC_TGT_NO_XRCD_EX ?
						   IBV_QP_INIT_ATTR_CREATE_FLAGS : 0), 0);
		rc = qp ? 0 : errno;
		break;
	case XRC_INI_NO_PD:
		qp = xrc_qp(t->ctx1, IBV_QPT_XRC_SEND, NULL, e.xrcd, e.cq1,
			    IBV_QP_INIT_ATTR_XRCD, 0);
		rc = qp ? 0 : errno;
		break;
	case XRC_INI_ATOMIC_WRITE:
	case XRC_INI_BIND_MW:
		qp = xrc_qp(t->ctx, IBV_QPT_XRC_SEND, t->pd, NULL, e.cq,
			    IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			    IBV_QP_EX_WITH_SEND | (m == XRC_INI_BIND_MW ? IBV_QP_EX_WITH_BIND_MW :
						   IBV_QP_EX_WITH_ATOMIC_WRITE));
		rc = qp ? 0 : errno;
		break;
	case XRC_INI_POST_RECV:
	case XRC_TGT_POST_RECV:
		rc = rc_errno(ibv_post_recv(m == XRC_INI_POST_RECV ? e.ini : e.tgt, &rwr, &rbad));
		break;
	case XRC_TGT_POST_SEND:
		if (!(rc = xrc_connect(t, &e))) {
			struct ibv_send_wr swr = { .opcode = IBV_WR_SEND }, *sbad;

			rc = rc_errno(ibv_post_send(e.tgt, &swr, &sbad));
		}
		break;
	case XRC_XRCD_NO_FD:
		x = xrcd_open(t->ctx, e.fd, O_CREAT, IBV_XRCD_INIT_ATTR_OFLAGS);
		rc = x ? 0 : errno;
		break;
	case XRC_XRCD_NO_CREAT: {
		struct xrc_env f = { .fd = -1 };

		/* a file no domain of the device is named by */
		if (xrc_file(t, &f))
			break;
		x = xrcd_open(t->ctx, f.fd, 0, IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS);
		rc = x ? 0 : errno;
		close(f.fd);
		unlink(f.path);
		break;
	}
	case XRC_XRCD_EXCL:
		x = xrcd_open(t->ctx1, e.fd, O_CREAT | O_EXCL,
			      IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS);
		rc = x ? 0 : errno;
		break;
	case XRC_XRCD_BUSY:
		rc = rc_errno(ibv_close_xrcd(e.xrcd2));
		if (!rc)
			e.xrcd2 = NULL;	/* gone under its SRQ */
		break;
	case XRC_OPEN_NO_QP:
	case XRC_OPEN_RC_TYPE:
		oa.xrcd = e.xrcd;
		oa.qp_num = m == XRC_OPEN_NO_QP ? e.tgt->qp_num ^ 0x800000 : e.tgt->qp_num;
		if (m == XRC_OPEN_RC_TYPE)
			oa.qp_type = IBV_QPT_RC;
		errno = 0;
		qp = ibv_open_qp(t->ctx1, &oa);
		rc = qp ? 0 : errno;
		break;
	case XRC_INI_BAD_OPCODE:
		if (!(rc = xrc_connect(t, &e))) {
			rc = xrc_send(t, &e, e.srqn, IBV_WR_BIND_MW);
			if (rc == EINVAL) {
				rc = xrc_send(t, &e, e.srqn, IBV_WR_ATOMIC_WRITE);
				if (rc != EINVAL)
					whyf(t, "IBV_WR_ATOMIC_WRITE: %s", errname(rc));
			}
			expect_no_cqe(t, e.cq, 50, "the INI QP's CQ");
		}
		break;
	case XRC_INI_SRQN_25_BITS:
		if (!(rc = xrc_connect(t, &e))) {
			rc = xrc_send(t, &e, e.srqn | 0x1000000, IBV_WR_SEND);
			expect_no_cqe(t, e.cq, 50, "the INI QP's CQ");
		}
		break;
	case XRC_NAK_NO_SRQ:
	case XRC_NAK_OTHER_XRCD:
		if (!(rc = xrc_connect(t, &e))) {
			uint32_t n = e.srqn2;

			/* a number neither SRQ has */
			if (m == XRC_NAK_NO_SRQ)
				for (n = 0x4242; n == e.srqn || n == e.srqn2; n++)
					;
			xrc_nak(t, &e, n);
		}
		break;
	case XRC_GOOD_SEND:
		if (!(rc = xrc_connect(t, &e)))
			xrc_good_send(t, &e);
		break;
	case XRC_WRITE_OTHER_PD:
		if (!(rc = xrc_connect(t, &e)))
			xrc_write_other_pd(t, &e);
		break;
	case XRC_NAK_DESTROYED_SRQ: {
		uint32_t n = 0;

		/* a third SRQ of the TGT QP's domain, numbered, then destroyed */
		rc = xsrq(t->ctx1, t->pd1, e.xrcd, e.cq1, XSRQ_MASK, IBV_SRQT_XRC, &srq);
		if (!rc)
			rc = ibv_get_srq_num(srq, &n);
		if (!rc)
			rc = rc_errno(ibv_destroy_srq(srq));
		srq = NULL;
		if (rc) {
			whyf(t, "the SRQ to destroy: %s", errname(rc));
			break;
		}
		if (!(rc = xrc_connect(t, &e)))
			xrc_nak(t, &e, n);
		break;
	}
	case XRC_RC_ON_XRC_SRQ: {
		struct ibv_qp_init_attr ia = {
			.send_cq = e.cq1, .recv_cq = e.cq1, .srq = e.srq,
			.qp_type = IBV_QPT_RC, .cap = CAP(4, 0, 1, 0, 0),
		};

		errno = 0;
		qp = ibv_create_qp(t->pd1, &ia);
		rc = qp ? 0 : errno;
		break;
	}
	}
out:
	if (qp)
		ibv_destroy_qp(qp);
	if (srq)
		ibv_destroy_srq(srq);
	if (x)
		ibv_close_xrcd(x);
	xrc_down(&e);
	return rc;
}

static const struct tcase cases[] = {
	/* ---- ibv_reg_mr ---- */
	{ .name = "reg_mr/remote-write-without-local-write", .run = mr_remote_write_only, .expect = X(EINVAL),
	  .src = "man ibv_reg_mr(3): REMOTE_WRITE or REMOTE_ATOMIC need LOCAL_WRITE; IBTA 10.6.3.1; ib_core ib_check_mr_access" },
	{ .name = "reg_mr/remote-atomic-without-local-write", .run = mr_remote_atomic_only, .expect = X(EINVAL),
	  .src = "man ibv_reg_mr(3); ib_core ib_check_mr_access" },
	{ .name = "reg_mr/undefined-access-bit", .run = mr_unknown_bit, .expect = X(EINVAL),
	  .src = "ib_core ib_check_mr_access: flags outside IB_ACCESS_SUPPORTED" },
	{ .name = "reg_mr/on-demand-without-odp", .run = mr_on_demand, .expect = X(EINVAL, EOPNOTSUPP),
	  .src = "ib_core ib_check_mr_access: ON_DEMAND on a device without IBK_ON_DEMAND_PAGING: EINVAL on 6.1, EOPNOTSUPP on 6.12" },
	{ .name = "reg_mr/zero-length", .run = mr_zero_length, .expect = X(EINVAL),
	  .src = "ib_core ib_umem_get: no pages; rxe, mlx5 (same path)" },
	{ .name = "reg_mr/length-above-max_mr_size", .run = mr_above_max_size, .expect = X(EINVAL),
	  .src = "man ibv_query_device(3): max_mr_size is the largest registrable block; IBTA 11.2.8.1 invalid length" },
	{ .name = "reg_mr/address-plus-length-wraps", .run = mr_wraps, .expect = X(EINVAL),
	  .src = "ib_core ib_umem_get: addr + size overflow" },
	{ .name = "reg_mr/unmapped-address", .run = mr_unmapped, .expect = X(EFAULT),
	  .src = "ib_core ib_umem_get: pin_user_pages_fast fails; rxe, mlx5 (same path)" },
	{ .name = "reg_mr/null-address", .run = mr_null, .expect = X(EFAULT),
	  .src = "ib_core ib_umem_get: pin_user_pages_fast fails" },
	{ .name = "reg_mr/good-all-access", .run = mr_good, .expect = X(0), .src = "man ibv_reg_mr(3)" },
	{ .name = "reg_mr/flush-global", .run = mr_flush_global, .expect = X(0, EINVAL),
	  .src = "IBTA 1.5 A19.4; ib_core ib_check_mr_access: 0 on 6.2+ (IB_DEVICE_FLUSH_GLOBAL), EINVAL on 6.1" },
	{ .name = "reg_mr/flush-persistent", .run = mr_flush_persistent, .expect = X(EOPNOTSUPP, EINVAL),
	  .src = "ib_core ib_check_mr_access: EOPNOTSUPP on 6.2+ (no IB_DEVICE_FLUSH_PERSISTENT), EINVAL on 6.1" },

	/* ---- ibv_create_cq, completion channels ---- */
	{ .name = "create_cq/cqe-above-max_cqe", .run = cq_above_max, .expect = X(EINVAL),
	  .src = "man ibv_query_device(3) max_cqe; IBTA 11.2.7.1 invalid CQ size; rxe_cq_chk_attr" },
	{ .name = "create_cq/cqe-0", .run = cq_zero, .expect = X(EINVAL), .src = "rxe_cq_chk_attr: cqe <= 0; IBTA 11.2.7.1" },
	{ .name = "create_cq/cqe-negative", .run = cq_negative, .expect = X(EINVAL), .src = "rxe_cq_chk_attr: cqe <= 0" },
	{ .name = "create_cq/comp_vector-num_comp_vectors", .run = cq_vector_num, .expect = X(EINVAL),
	  .src = "man ibv_create_cq(3): comp_vector < num_comp_vectors; ib_core uverbs create_cq" },
	{ .name = "create_cq/comp_vector-negative", .run = cq_vector_negative, .expect = X(EINVAL),
	  .src = "man ibv_create_cq(3): at least zero; ib_core uverbs create_cq" },
	{ .name = "destroy_comp_channel/with-cq", .run = channel_busy, .expect = X(EBUSY),
	  .src = "man ibv_create_comp_channel(3): fails while a CQ uses it; libibverbs returns EBUSY" },

	/* ---- ibv_create_qp, SRQ, MW ---- */
	{ .name = "create_qp/max_send_wr-above-max_qp_wr", .run = qp_send_wr, .expect = X(EINVAL),
	  .src = "man ibv_query_device(3) max_qp_wr; IBTA 11.2.5.1; rxe_qp_chk_cap" },
	{ .name = "create_qp/max_recv_wr-above-max_qp_wr", .run = qp_recv_wr, .expect = X(EINVAL), .src = "rxe_qp_chk_cap" },
	{ .name = "create_qp/max_send_sge-above-max_sge", .run = qp_send_sge, .expect = X(EINVAL),
	  .src = "man ibv_query_device(3) max_sge; rxe_qp_chk_cap" },
	{ .name = "create_qp/max_recv_sge-above-max_sge", .run = qp_recv_sge, .expect = X(EINVAL), .src = "rxe_qp_chk_cap" },
	{ .name = "create_qp/max_inline_data-1MiB", .run = qp_inline, .expect = X(EINVAL),
	  .src = "rxe_qp_chk_cap: above the device's inline limit" },
	{ .name = "create_qp/raw-packet", .run = qp_raw_packet, .expect = X(EOPNOTSUPP),
	  .src = "rxe_qp_chk_init: types other than RC/UC/UD/GSI (the device has no raw Ethernet QPs)" },
	{ .name = "create_qp/undefined-type", .run = qp_undefined_type, .expect = X(EOPNOTSUPP, EINVAL),
	  .src = "rxe_qp_chk_init EOPNOTSUPP; providers that validate the type first say EINVAL" },
	{ .name = "create_srq/max_wr-above-max_srq_wr", .run = srq_max_wr, .expect = X(EINVAL),
	  .src = "man ibv_create_srq(3), ibv_query_device(3) max_srq_wr; rxe_srq_chk_init" },
	{ .name = "create_srq/max_sge-above-max_srq_sge", .run = srq_max_sge, .expect = X(EINVAL),
	  .src = "man ibv_query_device(3) max_srq_sge; rxe_srq_chk_init" },
	{ .name = "create_srq/good", .run = srq_good, .expect = X(0),
	  .src = "man ibv_create_srq(3): max_wr/max_sge updated to what was granted; man ibv_query_srq(3): limit 0 = disarmed" },
	{ .name = "post_srq_recv/above-max_wr", .run = srq_overflow, .expect = X(ENOMEM),
	  .src = "man ibv_post_srq_recv(3); mlx5/rxe: a full SRQ refuses with ENOMEM" },
	{ .name = "post_srq_recv/too-many-sge", .run = srq_too_many_sge, .expect = X(EINVAL),
	  .src = "man ibv_post_srq_recv(3); rxe post_one_recv: num_sge above max_sge" },
	{ .name = "modify_srq/limit-above-max_wr", .run = srq_limit_above, .expect = X(EINVAL),
	  .src = "man ibv_modify_srq(3); rxe_srq_chk_attr: srq_limit above max_wr" },
	{ .name = "modify_srq/limit-max_wr", .run = srq_limit_max_wr, .expect = X(0),
	  .src = "man ibv_modify_srq(3): a limit up to max_wr arms the SRQ" },
	{ .name = "modify_srq/resize", .run = srq_resize, .expect = X(EINVAL, EOPNOTSUPP),
	  .src = "man ibv_modify_srq(3): resizing is optional; mlx5_ib_modify_srq EINVAL" },
	{ .name = "destroy_srq/qp-attached", .run = srq_destroy_attached, .expect = X(EBUSY),
	  .src = "ib_core ib_destroy_srq_user: usecnt, EBUSY" },
	{ .name = "srq/last-wqe-reached", .run = srq_last_wqe, .expect = X(0),
	  .src = "IBTA 11.6.3.4: QP with an SRQ in the error state; rxe/mlx5 raise it" },
	{ .name = "srq/rc-data-and-limit-event", .run = srq_limit_traffic, .expect = X(0),
	  .src = "IBTA 10.2.9; man ibv_modify_srq(3): below the armed limit, one event, then disarmed" },
	{ .name = "alloc_mw/type-1-and-2", .run = mw_alloc, .value = IBV_MW_TYPE_1, .expect = X(0),
	  .src = "man ibv_alloc_mw(3); IBTA 10.6.7: the device offers type 1 and type 2B windows" },
	{ .name = "alloc_mw/type-3", .run = mw_alloc, .value = 3, .expect = X(EINVAL),
	  .src = "man ibv_alloc_mw(3): IBV_MW_TYPE_1 or _2; rxe EINVAL (pyverbs test_reg_mw_wrong_type)" },
	{ .name = "bind_mw/window-outside-the-mr", .run = mw_bad_bind, .value = MWB_OUTSIDE_MR,
	  .expect = X(0), .src = "IBTA 10.6.7.2: the window lies in the MR; rxe, mlx5 IBV_WC_MW_BIND_ERR" },
	{ .name = "bind_mw/mr-without-mw-bind-access", .run = mw_bad_bind, .value = MWB_NO_MW_BIND,
	  .expect = X(0), .src = "IBTA 10.6.7.2: the MR allows binding (IBV_ACCESS_MW_BIND); rxe IBV_WC_MW_BIND_ERR" },
	{ .name = "bind_mw/remote-write-on-mr-without-local-write", .run = mw_bad_bind,
	  .value = MWB_WRITE_NO_LW, .expect = X(0),
	  .src = "IBTA 10.6.7.2.2: remote write needs local write on the MR; rxe IBV_WC_MW_BIND_ERR" },
	{ .name = "bind_mw/zero-based-window", .run = mw_bad_bind, .value = MWB_ZERO_BASED,
	  .expect = X(EINVAL), .src = "mlx5 provider EINVAL: no zero-based windows" },
	{ .name = "bind_mw/ud-qp", .run = mw_bad_bind, .value = MWB_UD_QP, .expect = X(EINVAL),
	  .src = "IBTA 10.6.7.2: windows are bound through RC/UC QPs; rxe, mlx5 EINVAL" },
	{ .name = "bind_mw/type-2-with-ibv_bind_mw", .run = mw_bad_bind, .value = MWB_TYPE2_BIND_MW,
	  .expect = X(EINVAL), .src = "man ibv_bind_mw(3): type 1 only; libibverbs EINVAL" },
	{ .name = "dereg_mr/with-a-bound-window", .run = mw_bad_bind, .value = MWB_DEREG_BOUND,
	  .expect = X(EINVAL, EBUSY), .src = "man ibv_dereg_mr(3), IBTA 10.6.7.2.6: fails while MWs are bound; rxe EINVAL" },
	{ .name = "mw/type1-write-read-in-window", .run = mw_traffic, .value = MW_DATA_T1, .expect = X(0),
	  .src = "IBTA 10.6.7: a bound window grants its rights on its bytes; bytes compared" },
	{ .name = "mw/type2-write-read-in-window", .run = mw_traffic, .value = MW_DATA_T2, .expect = X(0),
	  .src = "IBTA 10.6.7: a bound window grants its rights on its bytes; bytes compared" },
	{ .name = "mw/type1-write-past-the-window", .run = mw_traffic, .value = MW_OUTSIDE_T1, .expect = X(0),
	  .src = "IBTA 9.7.5.1.2, 10.6.7: out of the window: IBV_WC_REM_ACCESS_ERR" },
	{ .name = "mw/type2-read-before-the-window", .run = mw_traffic, .value = MW_OUTSIDE_T2, .expect = X(0),
	  .src = "IBTA 9.7.5.1.2, 10.6.7: out of the window: IBV_WC_REM_ACCESS_ERR" },
	{ .name = "mw/type2-read-without-the-right", .run = mw_traffic, .value = MW_NO_RIGHT_T2, .expect = X(0),
	  .src = "IBTA 10.6.7: the window's own rights: IBV_WC_REM_ACCESS_ERR" },
	{ .name = "mw/type1-zero-length-bind-invalidates", .run = mw_traffic, .value = MW_UNBIND_T1,
	  .expect = X(0), .src = "man ibv_bind_mw(3), IBTA 10.6.7.2: length 0 unbinds; then IBV_WC_REM_ACCESS_ERR" },
	{ .name = "mw/type2-local-invalidate", .run = mw_traffic, .value = MW_LOCAL_INV_T2, .expect = X(0),
	  .src = "IBTA 10.6.7.2.5: IBV_WR_LOCAL_INV; then IBV_WC_REM_ACCESS_ERR" },
	{ .name = "mw/type2-remote-invalidate", .run = mw_traffic, .value = MW_REMOTE_INV_T2, .expect = X(0),
	  .src = "IBTA 9.4.1.1, 10.6.7: SEND_WITH_INV, IBV_WC_WITH_INV; then IBV_WC_REM_ACCESS_ERR" },
	{ .name = "mw/type2-dealloc-invalidates", .run = mw_traffic, .value = MW_DEALLOC_T2, .expect = X(0),
	  .src = "IBTA 10.6.7: a deallocated window's rkey is invalid: IBV_WC_REM_ACCESS_ERR" },

	/* ---- XRC ---- */
	{ .name = "create_srq_ex/xrc-without-cq", .run = xrc_case, .value = XRC_SRQ_NO_CQ,
	  .expect = X(EINVAL), .src = "man ibv_create_srq_ex(3): an XRC SRQ names its CQ; libibverbs EINVAL" },
	{ .name = "create_srq_ex/xrc-without-xrcd", .run = xrc_case, .value = XRC_SRQ_NO_XRCD,
	  .expect = X(EINVAL), .src = "man ibv_create_srq_ex(3): an XRC SRQ names its XRC domain; libibverbs EINVAL" },
	{ .name = "create_srq_ex/tag-matching", .run = xrc_case, .value = XRC_SRQ_TM,
	  .expect = X(EOPNOTSUPP), .src = "man ibv_create_srq_ex(3): IBV_SRQT_TM is optional (no tag matching)" },
	{ .name = "create_srq_ex/basic", .run = xrc_case, .value = XRC_SRQ_BASIC_EX, .expect = X(0),
	  .src = "man ibv_create_srq_ex(3): IBV_SRQT_BASIC, then ibv_post_srq_recv" },
	{ .name = "create_qp_ex/xrc-recv-without-xrcd", .run = xrc_case, .value = XRC_TGT_NO_XRCD,
	  .expect = X(EINVAL), .src = "man ibv_create_qp_ex(3): an XRC receive QP needs IBV_QP_INIT_ATTR_XRCD; libibverbs EINVAL" },
	{ .name = "create_qp_ex/xrc-recv-without-xrcd-create-flags", .run = xrc_case,
	  .value = XRC_TGT_NO_XRCD_EX, .expect = X(EINVAL),
	  .src = "man ibv_create_qp_ex(3): as above, through the provider's create_qp_ex" },
	{ .name = "create_qp_ex/xrc-send-without-pd", .run = xrc_case, .value = XRC_INI_NO_PD,
	  .expect = X(EINVAL), .src = "man ibv_create_qp_ex(3): an XRC send QP needs a PD; libibverbs EINVAL" },
	{ .name = "create_qp_ex/xrc-send-atomic-write", .run = xrc_case, .value = XRC_INI_ATOMIC_WRITE,
	  .expect = X(EOPNOTSUPP), .src = "IBTA 9.2: no XRC ATOMIC WRITE opcode; man ibv_create_qp_ex(3) send_ops_flags" },
	{ .name = "create_qp_ex/xrc-send-bind-mw", .run = xrc_case, .value = XRC_INI_BIND_MW,
	  .expect = X(EOPNOTSUPP), .src = "IBTA 10.6.7.2: windows are bound through RC/UC QPs" },
	{ .name = "post_recv/xrc-send-qp", .run = xrc_case, .value = XRC_INI_POST_RECV,
	  .expect = X(EINVAL), .src = "IBTA annex A14: an XRC send QP has no receive queue; EINVAL as for bad WRs" },
	{ .name = "post_recv/xrc-recv-qp", .run = xrc_case, .value = XRC_TGT_POST_RECV,
	  .expect = X(EINVAL), .src = "IBTA annex A14: an XRC receive QP takes its WQEs from XRC SRQs" },
	{ .name = "post_send/xrc-recv-qp-in-rtr", .run = xrc_case, .value = XRC_TGT_POST_SEND,
	  .expect = X(EINVAL), .src = "IBTA annex A14: an XRC receive QP has no send queue" },
	{ .name = "post_send/xrc-bind-mw-and-atomic-write", .run = xrc_case, .value = XRC_INI_BAD_OPCODE,
	  .expect = X(EINVAL), .src = "man ibv_post_send(3) opcode table: XRC takes RC's but bind and ATOMIC WRITE" },
	{ .name = "post_send/xrc-srqn-above-24-bits", .run = xrc_case, .value = XRC_INI_SRQN_25_BITS,
	  .expect = X(EINVAL), .src = "IBTA annex A14: XRCETH carries a 24-bit SRQ number; sroce refuses a wider one" },
	{ .name = "open_xrcd/without-fd-in-comp_mask", .run = xrc_case, .value = XRC_XRCD_NO_FD,
	  .expect = X(EINVAL), .src = "man ibv_open_xrcd(3): fd and oflags are required; libibverbs EINVAL" },
	{ .name = "open_xrcd/no-domain-without-O_CREAT", .run = xrc_case, .value = XRC_XRCD_NO_CREAT,
	  .expect = X(EAGAIN), .src = "man ibv_open_xrcd(3): O_CREAT creates a missing domain; ib_core ib_uverbs_open_xrcd EAGAIN" },
	{ .name = "open_xrcd/O_EXCL-with-a-domain", .run = xrc_case, .value = XRC_XRCD_EXCL,
	  .expect = X(EINVAL), .src = "man ibv_open_xrcd(3): O_EXCL fails if the domain exists; ib_core EINVAL" },
	{ .name = "close_xrcd/with-an-xrc-srq", .run = xrc_case, .value = XRC_XRCD_BUSY,
	  .expect = X(EBUSY), .src = "ib_core uverbs_free_xrcd: SRQs and QPs hold the domain, EBUSY" },
	{ .name = "open_qp/no-such-tgt-qp", .run = xrc_case, .value = XRC_OPEN_NO_QP,
	  .expect = X(EINVAL), .src = "man ibv_open_qp(3); ib_core ib_open_qp: no TGT QP of that number in the domain" },
	{ .name = "open_qp/rc-type", .run = xrc_case, .value = XRC_OPEN_RC_TYPE,
	  .expect = X(EINVAL), .src = "man ibv_open_qp(3): only XRC receive QPs are opened; ib_core ib_open_qp" },
	{ .name = "xrc/send-to-unknown-srq-number", .run = xrc_case, .value = XRC_NAK_NO_SRQ,
	  .expect = X(0), .src = "IBTA 9.7.5.2.4, annex A14: no such XRC SRQ: invalid request NAK, "
				 "IBV_WC_REM_INV_REQ_ERR, INI QP to ERR" },
	{ .name = "xrc/send-to-srq-of-another-domain", .run = xrc_case, .value = XRC_NAK_OTHER_XRCD,
	  .expect = X(0), .src = "IBTA annex A14: an SRQ outside the TGT QP's domain is not reachable: "
				 "invalid request NAK, IBV_WC_REM_INV_REQ_ERR" },
	{ .name = "xrc/rdma-write-to-mr-outside-the-srq-pd", .run = xrc_case, .value = XRC_WRITE_OTHER_PD,
	  .expect = X(0), .src = "IBTA annex A14: an XRC receive QP checks memory in the named SRQ's PD; "
				 "IBTA 9.7.5.2.5 remote access NAK, IBV_WC_REM_ACCESS_ERR" },
	{ .name = "xrc/send-to-a-destroyed-srq", .run = xrc_case, .value = XRC_NAK_DESTROYED_SRQ,
	  .expect = X(0), .src = "IBTA 9.7.5.2.4, annex A14: the number names no SRQ any more: "
				 "invalid request NAK, IBV_WC_REM_INV_REQ_ERR" },
	{ .name = "create_qp/rc-on-an-xrc-srq", .run = xrc_case, .value = XRC_RC_ON_XRC_SRQ,
	  .expect = X(EINVAL), .src = "IBTA annex A14: XRC SRQs serve XRC receive QPs only; "
				      "ib_core's write path (create_qp) EINVAL" },
	{ .name = "xrc/send-to-own-domain", .run = xrc_case, .value = XRC_GOOD_SEND, .expect = X(0),
	  .src = "IBTA annex A14: the named SRQ takes the message; wc.qp_num is the TGT QP" },

	/* ---- ibv_create_ah ---- */
	{ .name = "create_ah/empty-sgid_index", .run = ah_empty_gid, .expect = X(ENODATA),
	  .src = "ib_core rdma_get_gid_attr: index inside the table, no GID there" },
	{ .name = "create_ah/port-2", .run = ah_port2, .expect = X(EINVAL), .src = "ib_core rdma_check_ah_attr: rdma_is_port_valid" },
	{ .name = "create_ah/roce-without-grh", .run = ah_no_grh, .expect = X(EINVAL),
	  .src = "ib_core rdma_check_ah_attr: RoCE AHs need a GRH (IBTA A17.4.5)" },
	{ .name = "create_ah/good", .run = ah_good, .expect = X(0), .src = "man ibv_create_ah(3)", .step = 1 },

	/* ---- RC QP A in RESET ---- */
	{ .name = "post_send/in-RESET", .run = send_on_a, .expect = X(EINVAL),
	  .src = "IBTA 10.3.1.1/10.8.2: posting to a QP in RESET is an immediate error; rxe_post_send" },
	{ .name = "post_recv/in-RESET", .run = recv_on_a_reset, .expect = X(EINVAL),
	  .src = "IBTA 10.3.1.1 C10-97.2.1; rxe_post_recv: state < INIT" },
	{ .name = "modify_qp/RESET-to-RTS", .expect = X(EINVAL),
	  .src = "IBTA 10.3.1 state diagram; ib_core ib_modify_qp_is_ok", MOD(QPA, IBV_QPS_RTS) },
	{ .name = "modify_qp/RESET-to-RTR", .expect = X(EINVAL), .src = "ib_core ib_modify_qp_is_ok", MOD(QPA, IBV_QPS_RTR) },
	{ .name = "modify_qp/RESET-to-INIT-no-access-flags", .expect = X(EINVAL),
	  .src = "man ibv_modify_qp(3) table RC Init: ACCESS_FLAGS required",
	  MOD(QPA, IBV_QPS_INIT), .drop = IBV_QP_ACCESS_FLAGS },
	{ .name = "modify_qp/RESET-to-INIT-no-port", .expect = X(EINVAL), .src = "man ibv_modify_qp(3) table",
	  MOD(QPA, IBV_QPS_INIT), .drop = IBV_QP_PORT },
	{ .name = "modify_qp/RESET-to-INIT-no-pkey_index", .expect = X(EINVAL), .src = "man ibv_modify_qp(3) table",
	  MOD(QPA, IBV_QPS_INIT), .drop = IBV_QP_PKEY_INDEX },
	{ .name = "modify_qp/RESET-to-INIT-with-sq_psn", .expect = X(EINVAL),
	  .src = "ib_core ib_modify_qp_is_ok: attribute not allowed in this transition (IBTA 11.2.4.2)",
	  MOD(QPA, IBV_QPS_INIT), .add = IBV_QP_SQ_PSN },
	{ .name = "modify_qp/RESET-to-INIT-port-0", .expect = X(EINVAL), .src = "ib_core uverbs modify_qp: rdma_is_port_valid",
	  MOD(QPA, IBV_QPS_INIT), .field = F_PORT, .value = 0 },
	{ .name = "modify_qp/RESET-to-INIT-port-2", .expect = X(EINVAL), .src = "ib_core uverbs modify_qp: rdma_is_port_valid",
	  MOD(QPA, IBV_QPS_INIT), .field = F_PORT, .value = 2 },
	{ .name = "modify_qp/RESET-to-INIT-pkey_index-past-table", .expect = X(EINVAL),
	  .src = "IBTA 11.2.4.2: P_Key index outside the port's table; rxe/mlx5 EINVAL",
	  MOD(QPA, IBV_QPS_INIT), .field = F_PKEY, .value = V_PKEY_TBL_LEN },
	{ .name = "modify_qp/state-8", .expect = X(EINVAL), .src = "ib_core uverbs modify_qp: qp_state > IB_QPS_ERR",
	  MOD(QPA, IBV_QPS_INIT), .field = F_STATE, .value = 8 },
	{ .name = "modify_qp/RESET-to-INIT", .expect = X(0), .src = "man ibv_modify_qp(3) table", STEP(QPA, IBV_QPS_INIT) },

	/* ---- INIT ---- */
	{ .name = "post_send/in-INIT", .run = send_on_a, .expect = X(EINVAL),
	  .src = "IBTA 10.3.1.2: send WRs in INIT are an immediate error; rxe_post_send: state < RTS" },
	{ .name = "post_recv/in-INIT", .run = recv_on_a_init, .expect = X(0),
	  .src = "IBTA 10.3.1.2: receive WRs may be posted in INIT (used by the ping below)", .step = 1 },
	{ .name = "modify_qp/INIT-to-RTS", .expect = X(EINVAL), .src = "ib_core ib_modify_qp_is_ok", MOD(QPA, IBV_QPS_RTS) },
	{ .name = "modify_qp/INIT-to-RTR-no-av", .expect = X(EINVAL), .src = "man ibv_modify_qp(3) table RC RTR",
	  MOD(QPA, IBV_QPS_RTR), .drop = IBV_QP_AV },
	{ .name = "modify_qp/INIT-to-RTR-no-path_mtu", .expect = X(EINVAL), .src = "man ibv_modify_qp(3) table RC RTR",
	  MOD(QPA, IBV_QPS_RTR), .drop = IBV_QP_PATH_MTU },
	{ .name = "modify_qp/INIT-to-RTR-no-dest_qpn", .expect = X(EINVAL), .src = "man ibv_modify_qp(3) table RC RTR",
	  MOD(QPA, IBV_QPS_RTR), .drop = IBV_QP_DEST_QPN },
	{ .name = "modify_qp/INIT-to-RTR-no-rq_psn", .expect = X(EINVAL), .src = "man ibv_modify_qp(3) table RC RTR",
	  MOD(QPA, IBV_QPS_RTR), .drop = IBV_QP_RQ_PSN },
	{ .name = "modify_qp/INIT-to-RTR-no-max_dest_rd_atomic", .expect = X(EINVAL), .src = "man ibv_modify_qp(3) table RC RTR",
	  MOD(QPA, IBV_QPS_RTR), .drop = IBV_QP_MAX_DEST_RD_ATOMIC },
	{ .name = "modify_qp/INIT-to-RTR-no-min_rnr_timer", .expect = X(EINVAL), .src = "man ibv_modify_qp(3) table RC RTR",
	  MOD(QPA, IBV_QPS_RTR), .drop = IBV_QP_MIN_RNR_TIMER },
	{ .name = "modify_qp/INIT-to-RTR-path_mtu-above-active", .expect = X(EINVAL),
	  .src = "IBTA 11.2.4.2 / A17: path MTU above the port's active MTU (netdev MTU - RoCE headers, rocev2-wire.md)",
	  MOD(QPA, IBV_QPS_RTR), .field = F_MTU, .value = V_ABOVE_ACTIVE_MTU },
	{ .name = "modify_qp/INIT-to-RTR-path_mtu-0", .expect = X(EINVAL), .src = "IBTA 9.6 / enum ibv_mtu: 1 (256) .. 5 (4096)",
	  MOD(QPA, IBV_QPS_RTR), .field = F_MTU, .value = 0 },
	{ .name = "modify_qp/INIT-to-RTR-path_mtu-6", .expect = X(EINVAL), .src = "enum ibv_mtu: 1 .. 5",
	  MOD(QPA, IBV_QPS_RTR), .field = F_MTU, .value = 6 },
	{ .name = "modify_qp/INIT-to-RTR-empty-sgid_index", .expect = X(ENODATA),
	  .src = "ib_core rdma_fill_sgid_attr -> rdma_get_gid_attr: no GID at that index",
	  MOD(QPA, IBV_QPS_RTR), .field = F_SGID, .value = V_EMPTY_GID },
	{ .name = "modify_qp/INIT-to-RTR-av-port-2", .expect = X(EINVAL), .src = "ib_core uverbs modify_qp: AV port not valid",
	  MOD(QPA, IBV_QPS_RTR), .field = F_AV_PORT, .value = 2 },
	{ .name = "modify_qp/INIT-to-RTR-av-without-grh", .expect = X(EINVAL),
	  .src = "ib_core rdma_check_ah_attr: RoCE needs a GRH (IBTA A17.4.5)",
	  MOD(QPA, IBV_QPS_RTR), .field = F_NO_GRH },
	{ .name = "modify_qp/INIT-to-RTR-dest_qpn-25-bits", .expect = X(EINVAL), .src = "IBTA 9.2: QPNs are 24 bits",
	  MOD(QPA, IBV_QPS_RTR), .field = F_DQPN, .value = 0x1000000 },
	{ .name = "modify_qp/INIT-to-RTR-max_dest_rd_atomic-above-max", .expect = X(EINVAL),
	  .src = "IBTA 11.2.4.2: responder resources above max_qp_rd_atom (man ibv_query_device(3))",
	  MOD(QPA, IBV_QPS_RTR), .field = F_MAX_DEST_RD, .value = V_ABOVE_RD_ATOM },
	{ .name = "modify_qp/INIT-to-RTR-min_rnr_timer-32", .expect = X(EINVAL),
	  .src = "IBTA 9.7.5.2.8 table 45: the RNR timer is a 5-bit code (0..31)",
	  MOD(QPA, IBV_QPS_RTR), .field = F_MIN_RNR, .value = 32 },
	{ .name = "modify_qp/INIT-to-RTR-alt-path-unsupported", .expect = X(EOPNOTSUPP, EINVAL),
	  .src = "man ibv_modify_qp(3): alternate paths need IBV_DEVICE_AUTO_PATH_MIG",
	  MOD(QPA, IBV_QPS_RTR), .add = IBV_QP_ALT_PATH },
	{ .name = "modify_qp/INIT-to-RTR", .expect = X(0), .src = "man ibv_modify_qp(3) table", STEP(QPA, IBV_QPS_RTR) },

	/* ---- RTR ---- */
	{ .name = "post_send/in-RTR", .run = send_on_a, .expect = X(EINVAL),
	  .src = "IBTA 10.3.1.3: send WRs in RTR are an immediate error; rxe_post_send: state < RTS" },
	{ .name = "modify_qp/RTR-to-INIT", .expect = X(EINVAL), .src = "IBTA 10.3.1 state diagram; ib_modify_qp_is_ok",
	  MOD(QPA, IBV_QPS_INIT) },
	{ .name = "modify_qp/RTR-to-RTS-no-sq_psn", .expect = X(EINVAL), .src = "man ibv_modify_qp(3) table RC RTS",
	  MOD(QPA, IBV_QPS_RTS), .drop = IBV_QP_SQ_PSN },
	{ .name = "modify_qp/RTR-to-RTS-no-timeout", .expect = X(EINVAL), .src = "man ibv_modify_qp(3) table RC RTS",
	  MOD(QPA, IBV_QPS_RTS), .drop = IBV_QP_TIMEOUT },
	{ .name = "modify_qp/RTR-to-RTS-no-retry_cnt", .expect = X(EINVAL), .src = "man ibv_modify_qp(3) table RC RTS",
	  MOD(QPA, IBV_QPS_RTS), .drop = IBV_QP_RETRY_CNT },
	{ .name = "modify_qp/RTR-to-RTS-no-rnr_retry", .expect = X(EINVAL), .src = "man ibv_modify_qp(3) table RC RTS",
	  MOD(QPA, IBV_QPS_RTS), .drop = IBV_QP_RNR_RETRY },
	{ .name = "modify_qp/RTR-to-RTS-no-max_rd_atomic", .expect = X(EINVAL), .src = "man ibv_modify_qp(3) table RC RTS",
	  MOD(QPA, IBV_QPS_RTS), .drop = IBV_QP_MAX_QP_RD_ATOMIC },
	{ .name = "modify_qp/RTR-to-RTS-timeout-32", .expect = X(EINVAL),
	  .src = "IBTA 9.7.6.1.3: Local ACK Timeout is 5 bits; rxe_qp_chk_attr: timeout > 31",
	  MOD(QPA, IBV_QPS_RTS), .field = F_TIMEOUT, .value = 32 },
	{ .name = "modify_qp/RTR-to-RTS-retry_cnt-8", .expect = X(EINVAL), .src = "IBTA 9.7.6.1.3 / 11.2.4.2: Retry Count is 3 bits",
	  MOD(QPA, IBV_QPS_RTS), .field = F_RETRY, .value = 8 },
	{ .name = "modify_qp/RTR-to-RTS-rnr_retry-8", .expect = X(EINVAL), .src = "IBTA 9.7.5.2.8 / 11.2.4.2: RNR Retry is 3 bits",
	  MOD(QPA, IBV_QPS_RTS), .field = F_RNR_RETRY, .value = 8 },
	{ .name = "modify_qp/RTR-to-RTS-max_rd_atomic-above-max", .expect = X(EINVAL),
	  .src = "IBTA 11.2.4.2; rxe_qp_chk_attr: above max_qp_init_rd_atom",
	  MOD(QPA, IBV_QPS_RTS), .field = F_MAX_RD, .value = V_ABOVE_INIT_RD_ATOM },
	{ .name = "modify_qp/RTR-to-RTS", .expect = X(0), .src = "man ibv_modify_qp(3) table", STEP(QPA, IBV_QPS_RTS) },

	/* ---- RTS ---- */
	{ .name = "modify_qp/RTS-to-RTS-min_rnr_timer-32", .expect = X(EINVAL), .src = "IBTA 9.7.5.2.8 table 45: 5-bit code",
	  MOD(QPA, IBV_QPS_RTS), .drop = ALL, .add = IBV_QP_MIN_RNR_TIMER,
	  .field = F_MIN_RNR, .value = 32 },
	{ .name = "modify_qp/RTS-to-RTS-min_rnr_timer-12", .expect = X(0),
	  .src = "IBTA 11.2.4.2: min_rnr_timer is optional in RTS->RTS (the mask above was legal)",
	  MOD(QPA, IBV_QPS_RTS), .drop = ALL, .add = IBV_QP_MIN_RNR_TIMER,
	  .field = F_MIN_RNR, .value = 12 },
	{ .name = "modify_qp/RTS-to-RTR", .expect = X(EINVAL), .src = "IBTA 10.3.1 state diagram; ib_modify_qp_is_ok",
	  MOD(QPA, IBV_QPS_RTR) },

	/* ---- UD QP ---- */
	{ .name = "modify_qp/UD-RESET-to-INIT-no-qkey", .expect = X(EINVAL), .src = "man ibv_modify_qp(3) table UD Init",
	  MOD(QPU, IBV_QPS_INIT), .drop = IBV_QP_QKEY },
	{ .name = "modify_qp/UD-RESET-to-INIT-with-access-flags", .expect = X(EINVAL),
	  .src = "ib_core ib_modify_qp_is_ok: no access flags for UD",
	  MOD(QPU, IBV_QPS_INIT), .add = IBV_QP_ACCESS_FLAGS },
	{ .name = "modify_qp/UD-RESET-to-INIT-controlled-qkey-unprivileged", .expect = X(EPERM),
	  .src = "IBTA 10.2.5 controlled Q_Keys (MSB set) need privilege; ib_core uverbs modify_qp: "
		 "EPERM without CAP_NET_RAW (a child process drops it) unless `rdma system set privileged-qkey on`",
	  MOD(QPU, IBV_QPS_INIT), .field = F_QKEY, .value = (int)0x80000011, .unprivileged = 1 },
	{ .name = "modify_qp/UD-RESET-to-INIT", .expect = X(0), .src = "man ibv_modify_qp(3) table UD",
	  MOD(QPU, IBV_QPS_INIT), .step = 1 },
	{ .name = "post_recv/num_sge-above-max", .run = recv_too_many_sge, .expect = X(EINVAL, ENOMEM),
	  .src = "rxe post_one_recv EINVAL; mlx5 ENOMEM; bad_wr = the WR (man ibv_post_recv(3))" },
	{ .name = "post_recv/beyond-queue-depth", .run = recv_overflow, .expect = X(ENOMEM),
	  .src = "rxe, mlx5: receive queue full; bad_wr = first WR not posted (man ibv_post_recv(3))" },
	{ .name = "modify_qp/UD-INIT-to-RTR-with-av", .expect = X(EINVAL), .src = "ib_core ib_modify_qp_is_ok: no AV for UD",
	  MOD(QPU, IBV_QPS_RTR), .add = IBV_QP_AV },
	{ .name = "modify_qp/UD-INIT-to-RTR", .expect = X(0), .src = "man ibv_modify_qp(3) table UD",
	  MOD(QPU, IBV_QPS_RTR), .step = 1 },
	{ .name = "modify_qp/UD-RTR-to-RTS-no-sq_psn", .expect = X(EINVAL), .src = "man ibv_modify_qp(3) table UD RTS",
	  MOD(QPU, IBV_QPS_RTS), .drop = IBV_QP_SQ_PSN },
	{ .name = "modify_qp/UD-RTR-to-RTS", .expect = X(0), .src = "man ibv_modify_qp(3) table UD",
	  MOD(QPU, IBV_QPS_RTS), .step = 1 },
	{ .name = "post_send/num_sge-above-max-mid-list", .run = send_too_many_sge, .expect = X(EINVAL, ENOMEM),
	  .src = "rxe EINVAL, mlx5 ENOMEM; man ibv_post_send(3): stops at the first failure, returns it in bad_wr" },
	{ .name = "post_send/rdma-write-on-ud", .run = send_write_on_ud, .expect = X(EINVAL),
	  .src = "man ibv_post_send(3) opcode table: UD has SEND only; IBTA 10.8.2; rxe EINVAL" },
	{ .name = "post_send/ip-csum-on-ud", .run = send_ip_csum_on_ud, .expect = X(EINVAL),
	  .src = "man ibv_post_send(3): IBV_SEND_IP_CSUM is valid only when device_cap_flags offers "
		 "checksum offload (IBV_DEVICE_UD_IP_CSUM), which sroce does not; EINVAL as for other bad WRs" },
	{ .name = "post_send/inline-above-max_inline_data", .run = send_inline_too_long, .expect = X(EINVAL, ENOMEM),
	  .src = "rxe EINVAL, mlx5 ENOMEM: inline data above the QP's max_inline_data" },
	{ .name = "post_send/beyond-queue-depth", .run = send_overflow, .expect = X(ENOMEM),
	  .src = "rxe, mlx5: send queue full; bad_wr = first WR not posted" },

	/* ---- objects still in use ---- */
	{ .name = "destroy_cq/in-use-by-qp", .run = destroy_cq_in_use, .expect = X(EBUSY),
	  .src = "man ibv_destroy_cq(3): fails while a QP uses the CQ; ib_core ib_destroy_cq_user EBUSY" },
	{ .name = "dealloc_pd/with-qp-mr-ah", .run = dealloc_pd_in_use, .expect = X(EBUSY),
	  .src = "man ibv_alloc_pd(3): may fail while resources use it; ib_core uverbs_free_pd EBUSY" },
	{ .name = "dealloc_pd/with-mr-only", .run = dealloc_pd_mr, .expect = X(EBUSY), .src = "ib_core uverbs_free_pd: usecnt" },
	{ .name = "dealloc_pd/with-ah-only", .run = dealloc_pd_ah, .expect = X(EBUSY), .src = "ib_core uverbs_free_pd: usecnt" },

	{ .name = "dereg_mr/while-a-posted-recv-names-it", .run = dereg_with_posted_recv, .expect = X(0),
	  .src = "man ibv_dereg_mr(3): only bound MWs make it fail; IBTA 10.6.3: later use is a local "
		 "protection error, never a write to the old memory" },

	{ .name = "post/after-kernel-moved-qp-to-err", .run = post_after_kernel_err, .expect = X(0),
	  .src = "IBTA 10.3.1.7, 11.4.1.1: in ERR posted receives and sends complete with "
		 "IBV_WC_WR_FLUSH_ERR, also when the QP entered ERR without a modify_qp (remote access NAK)" },

	/* ---- ibv_resize_cq ---- */
	{ .name = "resize_cq/zero", .run = resize_zero, .expect = X(EINVAL),
	  .src = "man ibv_resize_cq(3): cqe at least 1; rxe EINVAL" },
	{ .name = "resize_cq/above-max_cqe", .run = resize_above_max, .expect = X(EINVAL),
	  .src = "man ibv_resize_cq(3), ibv_query_device(3) max_cqe; rxe, mlx5 EINVAL" },
	{ .name = "resize_cq/below-pending-cqes", .run = resize_below_pending, .expect = X(EINVAL),
	  .src = "IBTA 11.2.7 (Resize CQ): not smaller than the CQEs outstanding; rxe, mlx5 EINVAL" },
	{ .name = "resize_cq/grow-and-shrink-keep-every-cqe", .run = resize_keeps_cqes, .expect = X(0),
	  .src = "IBTA 11.2.7 (Resize CQ): resizing keeps the CQEs outstanding" },

	/* ---- ibv_rereg_mr ---- */
	{ .name = "rereg_mr/no-flags", .run = rereg_no_flags, .expect = X(EINVAL),
	  .src = "ib_core ib_uverbs_rereg_mr: flags 0 EINVAL; man ibv_rereg_mr(3) IBV_REREG_MR_ERR_CMD" },
	{ .name = "rereg_mr/access-remote-write-without-local-write", .run = rereg_remote_write_only,
	  .expect = X(EINVAL), .src = "IBTA 10.6.3.1 C10-10; ib_core ib_check_mr_access EINVAL" },
	{ .name = "rereg_mr/translation-zero-length", .run = rereg_zero_length, .expect = X(EINVAL),
	  .src = "man ibv_rereg_mr(3): IBV_REREG_MR_ERR_INPUT, libibverbs EINVAL" },
	{ .name = "rereg_mr/translation-unmapped", .run = rereg_unmapped, .expect = X(EFAULT),
	  .src = "ib_umem_get EFAULT, as ibv_reg_mr of unmapped memory; the old MR stays valid" },
	{ .name = "rereg_mr/change-translation-data", .run = rereg_translation, .expect = X(0),
	  .src = "man ibv_rereg_mr(3): dereg + reg; the new translation takes the data, the old addresses are gone; keys kept as mlx5, rxe" },
	{ .name = "rereg_mr/change-access-data", .run = rereg_access, .expect = X(0),
	  .src = "man ibv_rereg_mr(3); IBTA 10.6.3: the new rights apply, dropped ones refuse (remote access error)" },
	{ .name = "rereg_mr/change-pd-data", .run = rereg_pd, .expect = X(0),
	  .src = "man ibv_rereg_mr(3); IBTA 10.6.3.2: an MR serves QPs of its PD only" },

	/* ---- nothing broke ---- */
	{ .name = "query_qp/after-errors", .run = query_after, .expect = X(0),
	  .src = "man ibv_modify_qp(3): refused calls modify nothing" },
	{ .name = "ping/send-A-to-B", .run = ping_a_to_b, .expect = X(0), .src = "the QP pair still works" },
	{ .name = "ping/send-B-to-A-into-recv-posted-in-INIT", .run = ping_b_to_a, .expect = X(0), .src = "IBTA 10.3.1.2" },
	{ .name = "ping/rdma-write", .run = ping_write, .expect = X(0), .src = "the QP pair still works" },
	{ .name = "ping/rdma-read", .run = ping_read, .expect = X(0), .src = "the QP pair still works" },
	{ .name = "ping/no-stray-completions", .run = no_stray_cqes, .expect = X(0), .src = "refused WRs leave no CQE" },
	{ .name = "teardown/all-objects", .run = teardown, .expect = X(0), .src = "every destroy succeeds once unused" },
};

/* ------------------------------------------------------------------ */
/* Setup and main                                                      */
/* ------------------------------------------------------------------ */

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; l && l[i]; i++)
		if (!strcmp(ibv_get_device_name(l[i]), name))
			ctx = ibv_open_device(l[i]);
	if (l)
		ibv_free_device_list(l);
	return ctx;
}

static void setup_fail(const char *what)
{
	printf("FAIL setup: %s: %s\n", what, strerror(errno));
	exit(2);
}

static struct ibv_qp *rc_qp(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = CAP(16, 16, 2, 2, 64),
	};

	return ibv_create_qp(pd, &ia);
}

static void setup(struct t *t, const char *dev, const char *dev1)
{
	union ibv_gid g;
	int i;

	t->ctx = open_dev(dev);
	t->ctx1 = open_dev(dev1);
	if (!t->ctx || !t->ctx1)
		setup_fail("ibv_open_device");
	if (ibv_query_device(t->ctx, &t->dattr) || ibv_query_port(t->ctx, 1, &t->pattr))
		setup_fail("ibv_query_device/port");
	if (ibv_query_gid(t->ctx, 1, t->gidx, &t->gid) ||
	    ibv_query_gid(t->ctx1, 1, t->gidx1, &t->gid1))
		setup_fail("ibv_query_gid");
	/* An index inside the table with no GID (the AH and AV cases). */
	t->empty_gidx = -1;
	for (i = 255; i >= 0 && i >= t->pattr.gid_tbl_len; i--)
		;
	for (; i >= 0; i--) {
		static const union ibv_gid zero;

		if (ibv_query_gid(t->ctx, 1, i, &g) || !memcmp(&g, &zero, sizeof(g))) {
			t->empty_gidx = i;
			break;
		}
	}
	t->pd = ibv_alloc_pd(t->ctx);
	t->pd1 = ibv_alloc_pd(t->ctx1);
	t->cq = ibv_create_cq(t->ctx, 64, NULL, NULL, 0);
	t->cq1 = ibv_create_cq(t->ctx1, 64, NULL, NULL, 0);
	t->cqu = ibv_create_cq(t->ctx, 64, NULL, NULL, 0);
	if (!t->pd || !t->pd1 || !t->cq || !t->cq1 || !t->cqu)
		setup_fail("PD/CQ");
	t->buf = aligned_alloc(4096, BUF_SIZE);
	t->buf1 = aligned_alloc(4096, BUF_SIZE);
	if (!t->buf || !t->buf1)
		setup_fail("malloc");
	memset(t->buf, 0, BUF_SIZE);
	memset(t->buf1, 0, BUF_SIZE);
	t->mr = ibv_reg_mr(t->pd, t->buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	t->mr1 = ibv_reg_mr(t->pd1, t->buf1, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
			    IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!t->mr || !t->mr1)
		setup_fail("ibv_reg_mr");
	t->qpa = rc_qp(t->pd, t->cq);
	t->qpb = rc_qp(t->pd1, t->cq1);
	if (!t->qpa || !t->qpb)
		setup_fail("ibv_create_qp(RC)");
	{
		struct ibv_qp_init_attr ia = {
			.send_cq = t->cqu, .recv_cq = t->cqu, .qp_type = IBV_QPT_UD,
			.cap = CAP(16, 16, 2, 2, 64),
		};

		t->qpu = ibv_create_qp(t->pd, &ia);
		if (!t->qpu)
			setup_fail("ibv_create_qp(UD)");
	}
}

static int accepted(const struct tcase *c, int rc)
{
	const int *e;

	for (e = c->expect; *e != END; e++)
		if (*e == rc)
			return 1;
	return 0;
}

static const char *expected_str(const struct tcase *c)
{
	static char s[128];
	const int *e;
	size_t n = 0;

	s[0] = 0;
	for (e = c->expect; *e != END; e++)
		n += (size_t)snprintf(s + n, sizeof(s) - n, "%s%s", n ? " or " : "",
				      errname(*e));
	return s;
}

static void on_alarm(int sig)
{
	static const char m[] = "FAIL watchdog: a verb did not return within the time limit\n";

	(void)sig;
	if (write(1, m, sizeof(m) - 1) < 0)
		_exit(1);
	_exit(1);
}

static void usage(void)
{
	fprintf(stderr, "usage: verbs_errno -d DEV -g GIDX [-D DEV2 -G GIDX2] [-v]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *dev1 = NULL, *blocked = NULL;
	static struct t t;
	int opt, failed = 0, gidx1 = -1;
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	t.gidx = -1;
	while ((opt = getopt(argc, argv, "d:g:D:G:v")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'g': t.gidx = atoi(optarg); break;
		case 'D': dev1 = optarg; break;
		case 'G': gidx1 = atoi(optarg); break;
		case 'v': t.verbose = 1; break;
		default: usage();
		}
	}
	if (!dev || t.gidx < 0)
		usage();
	t.gidx1 = dev1 ? gidx1 : t.gidx;
	if (t.gidx1 < 0)
		usage();
	signal(SIGALRM, on_alarm);
	alarm(WATCHDOG_S);
	setup(&t, dev, dev1 ? dev1 : dev);

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct tcase *c = &cases[i];
		int rc;

		if (blocked) {
			printf("FAIL %s: not run, the step %s failed\n", c->name, blocked);
			failed = 1;
			continue;
		}
		t.why[0] = 0;
		t.detail[0] = 0;
		t.skip = NULL;
		rc = c->run(&t, c);
		if (t.skip) {
			printf("SKIP %s: %s\n", c->name, t.skip);
			continue;
		}
		if (accepted(c, rc) && !t.why[0]) {
			printf("PASS %s (%s%s%s%s%s)\n", c->name, errname(rc),
			       t.detail[0] ? ", " : "", t.detail, t.verbose ? "; " : "",
			       t.verbose ? c->src : "");
			continue;
		}
		failed = 1;
		if (!accepted(c, rc))
			printf("FAIL %s: got %s, expected %s [%s]%s%s\n", c->name,
			       rc < 0 ? "a test error" : errname(rc), expected_str(c), c->src,
			       t.why[0] ? "; " : "", t.why);
		else
			printf("FAIL %s: %s [%s]\n", c->name, t.why, c->src);
		if (c->step)
			blocked = c->name;
	}
	return failed;
}
