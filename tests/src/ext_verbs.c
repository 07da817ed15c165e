// SPDX-License-Identifier: GPL-2.0
/*
 * ext_verbs: the extended verbs of a device, end to end.  QPs made with
 * ibv_create_qp_ex(send_ops_flags) post every opcode through the ibv_wr_*
 * API (send, send with immediate, RDMA write with and without immediate,
 * RDMA read, compare-and-swap, fetch-and-add, memory window bind and local
 * invalidate; gather lists, inline data and lists, UD addresses; batches,
 * abort), and CQs made with
 * ibv_create_cq_ex are read with start/next/end_poll: the moved bytes are
 * compared and every read_* accessor's value is checked.  Then bad input
 * (ibv_wr_post(3), ibv_create_qp_ex(3), ibv_create_cq_ex(3)): an opcode
 * the QP type or its send_ops_flags do not allow, too many SGEs, inline
 * data too large or on RDMA READ, a full SQ, a UD send without address;
 * ibv_wr_complete() returns the documented errno and posts nothing of the
 * batch, and the QP then still carries traffic.
 *
 * Usage: ext_verbs -d DEV -g GIDX -D DEV2 -G GIDX2 [-x]
 *   DEV, GIDX    the device under test (its ports' RoCE v2 GID index);
 *                all bad input goes to it
 *   DEV2, GIDX2  the peer, also driven through the extended verbs
 *   -x           the peer is not sroce: skip the cases whose peer side is
 *                sroce's own (its refusal of a Send with Invalidate)
 *
 * Output: one `PASS name (detail)` or `FAIL name: why` line per case;
 * exit status 1 if any case failed, 2 if the setup failed.
 */
#include "check.h"
#include "rdma_common.h"

#include <limits.h>
#include <rdma/sroce-abi.h>

#define BUF_LEN		65536
#define UD_QKEY		0x11111111
#define DEPTH		64
#define SEND_OPS_RC	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
			 IBV_QP_EX_WITH_RDMA_WRITE | \
			 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
			 IBV_QP_EX_WITH_RDMA_READ | \
			 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
			 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
#define SEND_OPS_UC	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
			 IBV_QP_EX_WITH_RDMA_WRITE | \
			 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
#define SEND_OPS_UD	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)

/* One end: device, extended CQ, one QP, a registered buffer. */
struct end {
	struct rdev d;
	struct ibv_cq_ex *cqx;
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;
	struct ibv_qp_cap cap;
	uint8_t *buf;
	struct ibv_mr *mr;
	uint32_t psn;
};

/* Every accessor's value of one completion. */
struct cqe {
	uint64_t wr_id;
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	uint32_t vendor_err;
	uint32_t byte_len;
	uint32_t imm;		/* host order */
	uint32_t qp_num;
	uint32_t src_qp;
	unsigned int wc_flags;
	uint32_t slid;
	uint8_t sl;
	uint8_t dlid_path_bits;
};

static struct end a, b;		/* a: the device under test */
static int peer_foreign;	/* -x */

/* ------------------------------------------------------------------ */
/* Extended CQ                                                         */
/* ------------------------------------------------------------------ */

static void cqe_read(struct ibv_cq_ex *cq, struct cqe *e)
{
	e->wr_id = cq->wr_id;
	e->status = cq->status;
	e->opcode = ibv_wc_read_opcode(cq);
	e->vendor_err = ibv_wc_read_vendor_err(cq);
	e->byte_len = ibv_wc_read_byte_len(cq);
	e->wc_flags = ibv_wc_read_wc_flags(cq);
	e->imm = e->wc_flags & IBV_WC_WITH_INV ? ibv_wc_read_invalidated_rkey(cq)
					       : ntohl(ibv_wc_read_imm_data(cq));
	e->qp_num = ibv_wc_read_qp_num(cq);
	e->src_qp = ibv_wc_read_src_qp(cq);
	e->slid = ibv_wc_read_slid(cq);
	e->sl = ibv_wc_read_sl(cq);
	e->dlid_path_bits = ibv_wc_read_dlid_path_bits(cq);
}

/*
 * Reads up to @n completions into @e within @ms: start_poll, then
 * next_poll while more are there, end_poll.  Returns how many, and in
 * *@nexts how many came from next_poll.
 */
static int cq_take(struct ibv_cq_ex *cq, struct cqe *e, int n, int ms, int *nexts)
{
	struct ibv_poll_cq_attr attr = {};
	uint64_t deadline = now_ms() + (uint64_t)ms;
	int got = 0, ret;

	if (nexts)
		*nexts = 0;
	while (got < n) {
		ret = ibv_start_poll(cq, &attr);
		if (ret == ENOENT) {
			if (now_ms() >= deadline)
				break;
			sched_yield();
			continue;
		}
		if (ret) {
			whyf("ibv_start_poll: %s", strerror(ret));
			break;
		}
		cqe_read(cq, &e[got++]);
		while (got < n && !(ret = ibv_next_poll(cq))) {
			cqe_read(cq, &e[got++]);
			if (nexts)
				(*nexts)++;
		}
		ibv_end_poll(cq);
		if (ret && ret != ENOENT) {
			whyf("ibv_next_poll: %s", strerror(ret));
			break;
		}
	}
	return got;
}

static const char *cqe_str(const struct cqe *e)
{
	static char s[200];

	snprintf(s, sizeof(s), "{wr_id %llu %s opcode %d len %u flags %#x imm %#x qpn %#x src %#x}",
		 (unsigned long long)e->wr_id, ibv_wc_status_str(e->status), e->opcode,
		 e->byte_len, e->wc_flags, e->imm, e->qp_num, e->src_qp);
	return s;
}

/*
 * Expected completion on @x's CQ: wr_id and status; on success also
 * opcode, byte_len, immediate data (or invalidated rkey), wc_flags (but
 * IBV_WC_GRH, checked apart), src_qp when @want names one (UD) and a zero
 * vendor_err.  Always: qp_num is @x's QP, slid and dlid_path_bits are 0 on
 * RoCE, and so is the SL, but for a UD receive's (its packet type).
 */
static int expect_cqe(struct end *x, const struct cqe *want, struct cqe *got,
		      const char *what)
{
	/*
	 * A UD receive's sl on sroce is its packet type: RoCEv2 over IPv4
	 * (sroce-abi.h); a foreign peer (-x) reports 0.
	 */
	int on_sroce = !(peer_foreign && x == &b);
	unsigned int want_sl = on_sroce && want->src_qp &&
			       want->status == IBV_WC_SUCCESS ?
			       SROCE_WC_SL_ROCEV2 | SROCE_WC_SL_L3_IPV4 : 0;
	struct cqe e;

	if (cq_take(x->cqx, &e, 1, 3000, NULL) != 1) {
		whyf("%s: no completion within 3 s", what);
		return -1;
	}
	if (got)
		*got = e;
	if (e.wr_id != want->wr_id || e.status != want->status ||
	    (e.status == IBV_WC_SUCCESS &&
	     (e.opcode != want->opcode || e.byte_len != want->byte_len ||
	      e.imm != want->imm || (e.wc_flags & ~IBV_WC_GRH) != want->wc_flags ||
	      (want->src_qp && e.src_qp != want->src_qp) || e.vendor_err)) ||
	    e.qp_num != x->qp->qp_num || e.slid || e.sl != want_sl || e.dlid_path_bits) {
		whyf("%s: got %s vendor_err %u slid %u sl %u dlid_path_bits %u, want %s",
		     what, cqe_str(&e), e.vendor_err, e.slid, e.sl, e.dlid_path_bits,
		     cqe_str(want));
		return -1;
	}
	return 0;
}

static void expect_no_cqe(struct end *x, int ms, const char *what)
{
	struct cqe e;

	if (cq_take(x->cqx, &e, 1, ms, NULL))
		whyf("%s: unexpected completion %s", what, cqe_str(&e));
}

static struct ibv_cq_ex *cq_create(struct end *x, uint64_t wc_flags)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 4 * DEPTH, .wc_flags = wc_flags,
	};

	return ibv_create_cq_ex(x->d.ctx, &ca);
}

/* ------------------------------------------------------------------ */
/* Extended QPs                                                        */
/* ------------------------------------------------------------------ */

static struct ibv_qp *qp_create_ex(struct end *x, enum ibv_qp_type type,
				   uint64_t ops, uint32_t depth, struct ibv_qp_cap *cap)
{
	struct ibv_qp_init_attr_ex ia = {
		.send_cq = ibv_cq_ex_to_cq(x->cqx), .recv_cq = ibv_cq_ex_to_cq(x->cqx),
		.qp_type = type, .pd = x->d.pd,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = ops,
		.cap = { .max_send_wr = depth, .max_recv_wr = DEPTH,
			 .max_send_sge = 4, .max_recv_sge = 4, .max_inline_data = 64 },
	};
	struct ibv_qp *qp = ibv_create_qp_ex(x->d.ctx, &ia);

	if (qp && cap)
		*cap = ia.cap;
	return qp;
}

static int modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask, const char *what)
{
	int err = ibv_modify_qp(qp, a, mask);

	if (err)
		whyf("modify QP to %s: %s", what, strerror(err));
	return err;
}

/* RESET -> INIT -> RTR -> RTS towards @peer (RC, UC or UD). */
static int qp_up(struct end *x, struct ibv_qp *qp, const struct end *peer,
		 struct ibv_qp *pqp)
{
	enum ibv_qp_type t = qp->qp_type;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qp_access_flags = RC_ACCESS | IBV_ACCESS_REMOTE_ATOMIC,
				 .qkey = UD_QKEY };
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	mask |= t == IBV_QPT_UD ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS;
	if (t == IBV_QPT_UC)
		a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	if (modify(qp, &a, mask, "INIT"))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	mask = IBV_QP_STATE;
	if (t != IBV_QPT_UD) {
		a.path_mtu = peer->d.port.active_mtu < x->d.port.active_mtu ?
			     peer->d.port.active_mtu : x->d.port.active_mtu;
		a.dest_qp_num = pqp->qp_num;
		a.rq_psn = peer->psn;
		a.ah_attr = (struct ibv_ah_attr){ .is_global = 1, .port_num = 1,
			.grh = { .dgid = peer->d.gid, .sgid_index = (uint8_t)x->d.gid_index,
				 .hop_limit = 64 } };
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
	}
	if (t == IBV_QPT_RC) {
		a.max_dest_rd_atomic = RC_RD_ATOMIC;
		a.min_rnr_timer = 12;
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	}
	if (modify(qp, &a, mask, "RTR"))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = x->psn;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (t == IBV_QPT_RC) {
		a.timeout = 16;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = RC_RD_ATOMIC;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	return modify(qp, &a, mask, "RTS");
}

/* Both ends get a fresh QP of @type with @ops, connected to each other. */
static int pair_up(enum ibv_qp_type type, uint64_t ops)
{
	struct end *x[2] = { &a, &b };
	int i;

	for (i = 0; i < 2; i++) {
		if (x[i]->qp)
			ibv_destroy_qp(x[i]->qp);
		x[i]->qp = qp_create_ex(x[i], type, ops, DEPTH, &x[i]->cap);
		if (!x[i]->qp) {
			whyf("ibv_create_qp_ex (type %d) on %s: %s", type,
			     ibv_get_device_name(x[i]->d.ctx->device), strerror(errno));
			return -1;
		}
		x[i]->qpx = ibv_qp_to_qp_ex(x[i]->qp);
		if (!x[i]->qpx) {
			whyf("ibv_qp_to_qp_ex returned NULL");
			return -1;
		}
		x[i]->psn = rng_next(&x[i]->d.rng) & 0xffffff;
	}
	if (qp_up(&a, a.qp, &b, b.qp) || qp_up(&b, b.qp, &a, a.qp))
		return -1;
	return 0;
}

static void post_recv(struct end *x, uint64_t wr_id, size_t off, uint32_t len)
{
	struct ibv_sge sge = { .addr = (uintptr_t)(x->buf + off), .length = len,
			       .lkey = x->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 }, *bad;
	int err = ibv_post_recv(x->qp, &wr, &bad);

	if (err)
		whyf("ibv_post_recv: %s", strerror(err));
}

static void check_bytes(const uint8_t *got, const uint8_t *want, size_t len,
			const char *what)
{
	long d = first_diff(got, want, len);

	if (d >= 0)
		whyf("%s: byte %ld of %zu differs (%#x, want %#x)", what, d, len,
		     got[d], want[d]);
}

/* ------------------------------------------------------------------ */
/* Data movement: every opcode with every kind of data setter          */
/* ------------------------------------------------------------------ */

enum op { OP_SEND, OP_SEND_IMM, OP_WRITE, OP_WRITE_IMM, OP_READ };
enum data { D_SGE, D_SGE_LIST, D_INLINE, D_INLINE_LIST };

struct dcase {
	const char *name;
	enum ibv_qp_type type;
	enum op op;
	enum data data;
	uint32_t len;
};

static const struct dcase dcases[] = {
	{ "rc/send-sge", IBV_QPT_RC, OP_SEND, D_SGE, 3000 },
	{ "rc/send-sge-list", IBV_QPT_RC, OP_SEND, D_SGE_LIST, 9001 },
	{ "rc/send-inline", IBV_QPT_RC, OP_SEND, D_INLINE, 200 },
	{ "rc/send-inline-list-256", IBV_QPT_RC, OP_SEND, D_INLINE_LIST, 256 },
	{ "rc/send-zero-length", IBV_QPT_RC, OP_SEND, D_SGE, 0 },
	{ "rc/send-imm-sge", IBV_QPT_RC, OP_SEND_IMM, D_SGE, 5000 },
	{ "rc/send-imm-inline", IBV_QPT_RC, OP_SEND_IMM, D_INLINE, 64 },
	{ "rc/write-sge", IBV_QPT_RC, OP_WRITE, D_SGE, 20000 },
	{ "rc/write-sge-list", IBV_QPT_RC, OP_WRITE, D_SGE_LIST, 7000 },
	{ "rc/write-inline-list", IBV_QPT_RC, OP_WRITE, D_INLINE_LIST, 150 },
	{ "rc/write-imm-sge", IBV_QPT_RC, OP_WRITE_IMM, D_SGE, 4096 },
	{ "rc/write-imm-inline", IBV_QPT_RC, OP_WRITE_IMM, D_INLINE, 100 },
	{ "rc/read-sge", IBV_QPT_RC, OP_READ, D_SGE, 10000 },
	{ "rc/read-sge-list", IBV_QPT_RC, OP_READ, D_SGE_LIST, 6000 },
	{ "uc/send-sge-list", IBV_QPT_UC, OP_SEND, D_SGE_LIST, 3333 },
	{ "uc/send-imm-inline", IBV_QPT_UC, OP_SEND_IMM, D_INLINE, 77 },
	{ "uc/write-sge", IBV_QPT_UC, OP_WRITE, D_SGE, 8192 },
	{ "uc/write-imm-inline-list", IBV_QPT_UC, OP_WRITE_IMM, D_INLINE_LIST, 180 },
	{ "ud/send-sge", IBV_QPT_UD, OP_SEND, D_SGE, 1000 },
	{ "ud/send-sge-list", IBV_QPT_UD, OP_SEND, D_SGE_LIST, 900 },
	{ "ud/send-imm-inline-list", IBV_QPT_UD, OP_SEND_IMM, D_INLINE_LIST, 120 },
};

#define SRC_OFF		0		/* pieces of a gather list: 8 KiB apart */
#define DST_OFF		32768		/* RDMA READ lands here, same spacing */
#define PIECE_GAP	8192
#define GRH_LEN		40

static uint8_t want[BUF_LEN];
static uint8_t scratch[BUF_LEN];
static struct ibv_ah *ah_ab;		/* UD: a -> b */
static uint64_t seed = 1;

/* Length of piece @k (of 3) of @len bytes. */
static uint32_t piece_len(uint32_t len, int k)
{
	return k < 2 ? len / 3 : len - 2 * (len / 3);
}

/*
 * Attaches @len bytes to the request being built.  Outgoing data (@out)
 * is taken from want[]: laid out in x->buf at @off (pieces PIECE_GAP
 * apart) for the SGE setters, or handed from scratch[] to the inline
 * setters, which must copy it at once: scratch[] is overwritten right
 * after.  Incoming data (RDMA READ) lands in x->buf at @off the same way.
 */
static void attach(struct end *x, enum data d, uint32_t len, size_t off, int out)
{
	int single = d == D_SGE || d == D_INLINE;
	struct ibv_sge sge[3];
	struct ibv_data_buf db[3];
	uint32_t done = 0;
	int k;

	for (k = 0; k < (single ? 1 : 3); k++) {
		uint32_t n = single ? len : piece_len(len, k);
		size_t at = off + (size_t)k * PIECE_GAP;

		if (out)
			memcpy((d == D_INLINE || d == D_INLINE_LIST ? scratch : x->buf) +
			       at, want + done, n);
		sge[k] = (struct ibv_sge){ .addr = (uintptr_t)(x->buf + at),
					   .length = n, .lkey = x->mr->lkey };
		db[k] = (struct ibv_data_buf){ .addr = scratch + at, .length = n };
		done += n;
	}
	switch (d) {
	case D_SGE: ibv_wr_set_sge(x->qpx, sge[0].lkey, sge[0].addr, len); break;
	case D_SGE_LIST: ibv_wr_set_sge_list(x->qpx, 3, sge); break;
	case D_INLINE: ibv_wr_set_inline_data(x->qpx, db[0].addr, len); break;
	case D_INLINE_LIST: ibv_wr_set_inline_data_list(x->qpx, 3, db); break;
	}
	memset(scratch, 0xee, sizeof(scratch));
}

/* Gathers @len bytes of x->buf laid out by attach() at @off into scratch. */
static const uint8_t *gather(struct end *x, enum data d, uint32_t len, size_t off)
{
	uint32_t done = 0;
	int k;

	if (d == D_SGE)
		return x->buf + off;
	for (k = 0; k < 3; k++) {
		memcpy(scratch + done, x->buf + off + (size_t)k * PIECE_GAP,
		       piece_len(len, k));
		done += piece_len(len, k);
	}
	return scratch;
}

/* Builds the request of @c on a's QP: opcode, data, UD address. */
static void build(const struct dcase *c, uint64_t id, uint32_t imm)
{
	struct ibv_qp_ex *q = a.qpx;
	uint64_t raddr = (uintptr_t)b.buf;

	q->wr_id = id;
	q->wr_flags = IBV_SEND_SIGNALED;
	switch (c->op) {
	case OP_SEND: ibv_wr_send(q); break;
	case OP_SEND_IMM: ibv_wr_send_imm(q, htonl(imm)); break;
	case OP_WRITE: ibv_wr_rdma_write(q, b.mr->rkey, raddr); break;
	case OP_WRITE_IMM: ibv_wr_rdma_write_imm(q, b.mr->rkey, raddr, htonl(imm)); break;
	case OP_READ: ibv_wr_rdma_read(q, b.mr->rkey, raddr); break;
	}
	if (c->type == IBV_QPT_UD)
		ibv_wr_set_ud_addr(q, ah_ab, b.qp->qp_num, UD_QKEY);
	attach(&a, c->data, c->len, c->op == OP_READ ? DST_OFF : SRC_OFF,
	       c->op != OP_READ);
}

/* What b's receive completion of @c must be; 0 when @c consumes none. */
static int responder_cqe(const struct dcase *c, uint32_t imm, struct cqe *w)
{
	*w = (struct cqe){ .wr_id = 7000, .opcode = IBV_WC_RECV, .byte_len = c->len };
	if (c->type == IBV_QPT_UD) {
		w->byte_len += GRH_LEN;
		w->src_qp = a.qp->qp_num;
	}
	switch (c->op) {
	case OP_SEND: return 1;
	case OP_SEND_IMM: break;
	case OP_WRITE_IMM: w->opcode = IBV_WC_RECV_RDMA_WITH_IMM; break;
	default: return 0;
	}
	w->wc_flags = IBV_WC_WITH_IMM;
	w->imm = imm;
	return 1;
}

static void run_dcase(const struct dcase *c)
{
	static const enum ibv_wc_opcode req_op[] = {
		[OP_SEND] = IBV_WC_SEND, [OP_SEND_IMM] = IBV_WC_SEND,
		[OP_WRITE] = IBV_WC_RDMA_WRITE, [OP_WRITE_IMM] = IBV_WC_RDMA_WRITE,
		[OP_READ] = IBV_WC_RDMA_READ,
	};
	uint32_t imm = (uint32_t)rng_next(&seed);
	struct cqe w, got;
	char detail[32];
	int recv, err;

	pattern_fill(want, c->len, seed++);
	memset(b.buf, 0, BUF_LEN);
	memset(a.buf + DST_OFF, 0, BUF_LEN - DST_OFF);
	if (c->op == OP_READ)
		memcpy(b.buf, want, c->len);
	recv = responder_cqe(c, imm, &w);
	if (recv)
		post_recv(&b, 7000, 0, BUF_LEN / 2);
	ibv_wr_start(a.qpx);
	build(c, 100, imm);
	err = ibv_wr_complete(a.qpx);
	if (err) {
		whyf("ibv_wr_complete: %s", strerror(err));
		result(c->name, "");
		return;
	}
	if (recv)
		expect_cqe(&b, &w, &got, "responder");
	if (c->type == IBV_QPT_UD && recv && !(got.wc_flags & IBV_WC_GRH))
		whyf("UD receive without IBV_WC_GRH");
	w = (struct cqe){ .wr_id = 100, .opcode = req_op[c->op], .byte_len = c->len };
	expect_cqe(&a, &w, NULL, "requester");
	if (c->op == OP_READ)
		check_bytes(gather(&a, c->data, c->len, DST_OFF), want, c->len, "read");
	else
		check_bytes(b.buf + (c->type == IBV_QPT_UD ? GRH_LEN : 0), want, c->len,
			    "received");
	snprintf(detail, sizeof(detail), "%u B", c->len);
	result(c->name, detail);
}

/* ------------------------------------------------------------------ */
/* Atomics, batches, abort                                             */
/* ------------------------------------------------------------------ */

/*
 * One atomic on the 8 bytes at b.buf + 8: CAS when @cas, else FAA with
 * @cmp_add.  The original value lands in a.buf + DST_OFF.
 */
static int atomic_once(int cas, uint64_t cmp_add, uint64_t swap, uint64_t id)
{
	struct cqe w = { .wr_id = id, .byte_len = 8,
			 .opcode = cas ? IBV_WC_COMP_SWAP : IBV_WC_FETCH_ADD };
	uint64_t raddr = (uintptr_t)(b.buf + 8);
	int err;

	ibv_wr_start(a.qpx);
	a.qpx->wr_id = id;
	a.qpx->wr_flags = IBV_SEND_SIGNALED;
	if (cas)
		ibv_wr_atomic_cmp_swp(a.qpx, b.mr->rkey, raddr, cmp_add, swap);
	else
		ibv_wr_atomic_fetch_add(a.qpx, b.mr->rkey, raddr, cmp_add);
	ibv_wr_set_sge(a.qpx, a.mr->lkey, (uintptr_t)(a.buf + DST_OFF), 8);
	err = ibv_wr_complete(a.qpx);
	if (err) {
		whyf("ibv_wr_complete: %s", strerror(err));
		return -1;
	}
	return expect_cqe(&a, &w, NULL, "requester");
}

static void rc_atomics(void)
{
	uint64_t v = 0x0123456789abcdefULL, w = 0xfedcba9876543210ULL;

	memcpy(b.buf + 8, &v, 8);
	if (!atomic_once(1, v, w, 201)) {
		check_u64(a.buf + DST_OFF, v, "CAS returned");
		check_u64(b.buf + 8, w, "CAS target");
	}
	result("rc/atomic-cmp-swp-equal", "swapped");
	if (!atomic_once(1, v, 1, 202)) {
		check_u64(a.buf + DST_OFF, w, "CAS returned");
		check_u64(b.buf + 8, w, "CAS target");
	}
	result("rc/atomic-cmp-swp-differs", "left alone");
	if (!atomic_once(0, 0x10, 0, 203)) {
		check_u64(a.buf + DST_OFF, w, "FAA returned");
		check_u64(b.buf + 8, w + 0x10, "FAA target");
	}
	result("rc/atomic-fetch-add", "added");
}

/*
 * Three sends in one batch, the middle one unsignaled, one doorbell: the
 * requester completes the first and the last, the responder all three in
 * order, read in one start_poll/next_poll/end_poll sequence.
 */
static void rc_batch(void)
{
	static const uint32_t len[3] = { 100, 2000, 3 };
	struct cqe w, e[4];
	int k, nexts = 0, err;
	char detail[32];
	size_t off = 0;

	pattern_fill(want, 2103, seed++);
	memcpy(a.buf, want, 2103);
	for (k = 0; k < 3; k++)
		post_recv(&b, 300 + k, 4096 * (size_t)k, 4096);
	ibv_wr_start(a.qpx);
	for (k = 0; k < 3; k++) {
		a.qpx->wr_id = 310 + k;
		a.qpx->wr_flags = k == 1 ? 0 : IBV_SEND_SIGNALED;
		ibv_wr_send(a.qpx);
		ibv_wr_set_sge(a.qpx, a.mr->lkey, (uintptr_t)(a.buf + off), len[k]);
		off += len[k];
	}
	err = ibv_wr_complete(a.qpx);
	if (err)
		whyf("ibv_wr_complete: %s", strerror(err));
	for (k = 0; k < 3 && !err; k += 2) {
		w = (struct cqe){ .wr_id = 310 + k, .opcode = IBV_WC_SEND, .byte_len = len[k] };
		expect_cqe(&a, &w, NULL, "requester");
	}
	expect_no_cqe(&a, 50, "requester, unsignaled");
	if (!err && cq_take(b.cqx, e, 3, 3000, &nexts) != 3)
		whyf("responder: fewer than 3 completions");
	for (k = 0, off = 0; k < 3 && !why[0]; off += len[k], k++) {
		if (e[k].wr_id != 300 + (uint64_t)k || e[k].status ||
		    e[k].opcode != IBV_WC_RECV || e[k].byte_len != len[k] ||
		    e[k].qp_num != b.qp->qp_num)
			whyf("responder completion %d: %s", k, cqe_str(&e[k]));
		check_bytes(b.buf + 4096 * (size_t)k, want + off, len[k], "received");
	}
	if (!why[0] && !nexts)
		whyf("next_poll never returned a completion");
	snprintf(detail, sizeof(detail), "%d by next_poll", nexts);
	result("rc/batch-3-sends-one-doorbell", detail);
}

/* ibv_wr_abort() discards the batch; the next one goes out alone. */
static void rc_abort(void)
{
	struct cqe w;
	int err;

	post_recv(&b, 400, 0, 4096);
	pattern_fill(want, 64, seed++);
	memcpy(a.buf, want, 64);
	memset(a.buf + 64, 0x55, 256);
	ibv_wr_start(a.qpx);
	a.qpx->wr_id = 401;
	a.qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(a.qpx);
	ibv_wr_set_sge(a.qpx, a.mr->lkey, (uintptr_t)(a.buf + 64), 256);
	ibv_wr_abort(a.qpx);
	expect_no_cqe(&a, 200, "requester after abort");
	expect_no_cqe(&b, 10, "responder after abort");

	ibv_wr_start(a.qpx);
	a.qpx->wr_id = 402;
	ibv_wr_send(a.qpx);
	ibv_wr_set_sge(a.qpx, a.mr->lkey, (uintptr_t)a.buf, 64);
	err = ibv_wr_complete(a.qpx);
	if (err)
		whyf("ibv_wr_complete after abort: %s", strerror(err));
	w = (struct cqe){ .wr_id = 402, .opcode = IBV_WC_SEND, .byte_len = 64 };
	expect_cqe(&a, &w, NULL, "requester");
	w = (struct cqe){ .wr_id = 400, .opcode = IBV_WC_RECV, .byte_len = 64 };
	expect_cqe(&b, &w, NULL, "responder");
	check_bytes(b.buf, want, 64, "received");
	result("rc/abort", "nothing sent, next batch alone");
}

/* ------------------------------------------------------------------ */
/* Bad work requests: the batch fails as a whole                       */
/* ------------------------------------------------------------------ */

/* A signaled 64-byte send of a.buf + @off (UD: to b's QP). */
static void good_send(uint64_t id, size_t off, uint32_t len)
{
	a.qpx->wr_id = id;
	a.qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(a.qpx);
	if (a.qp->qp_type == IBV_QPT_UD)
		ibv_wr_set_ud_addr(a.qpx, ah_ab, b.qp->qp_num, UD_QKEY);
	ibv_wr_set_sge(a.qpx, a.mr->lkey, (uintptr_t)(a.buf + off), len);
}

static void sge_a(struct ibv_sge *s, int n)
{
	int k;

	for (k = 0; k < n; k++)
		s[k] = (struct ibv_sge){ .addr = (uintptr_t)(a.buf + 64 * k),
					 .length = 8, .lkey = a.mr->lkey };
}

static void bad_send_inv_unrequested(void)
{
	ibv_wr_send_inv(a.qpx, b.mr->rkey);
	ibv_wr_set_sge(a.qpx, a.mr->lkey, (uintptr_t)a.buf, 8);
}

static void bad_read(void)
{
	ibv_wr_rdma_read(a.qpx, b.mr->rkey, (uintptr_t)b.buf);
	ibv_wr_set_sge(a.qpx, a.mr->lkey, (uintptr_t)a.buf, 8);
}

static void bad_fetch_add(void)
{
	ibv_wr_atomic_fetch_add(a.qpx, b.mr->rkey, (uintptr_t)b.buf, 1);
	ibv_wr_set_sge(a.qpx, a.mr->lkey, (uintptr_t)a.buf, 8);
}

static void bad_write_ud(void)
{
	ibv_wr_rdma_write(a.qpx, b.mr->rkey, (uintptr_t)b.buf);
	ibv_wr_set_ud_addr(a.qpx, ah_ab, b.qp->qp_num, UD_QKEY);
	ibv_wr_set_sge(a.qpx, a.mr->lkey, (uintptr_t)a.buf, 8);
}

static void bad_sge_over_cap(void)
{
	struct ibv_sge s[SROCE_MAX_SGE + 1];

	sge_a(s, (int)a.cap.max_send_sge + 1);
	ibv_wr_send(a.qpx);
	ibv_wr_set_sge_list(a.qpx, a.cap.max_send_sge + 1, s);
}

static void bad_sge_over_wqe(void)
{
	struct ibv_sge s[SROCE_MAX_SGE + 1];

	sge_a(s, SROCE_MAX_SGE + 1);
	ibv_wr_send(a.qpx);
	ibv_wr_set_sge_list(a.qpx, SROCE_MAX_SGE + 1, s);
}

static void bad_inline_too_large(void)
{
	ibv_wr_send(a.qpx);
	ibv_wr_set_inline_data(a.qpx, scratch, SROCE_MAX_INLINE + 1);
}

static void bad_inline_read(void)
{
	ibv_wr_rdma_read(a.qpx, b.mr->rkey, (uintptr_t)b.buf);
	ibv_wr_set_inline_data(a.qpx, scratch, 8);
}

static void bad_ip_csum(void)
{
	a.qpx->wr_flags = IBV_SEND_IP_CSUM | IBV_SEND_SIGNALED;
	ibv_wr_send(a.qpx);
	ibv_wr_set_sge(a.qpx, a.mr->lkey, (uintptr_t)a.buf, 8);
}

/* With the good send before it: one more than the SQ holds. */
static void bad_sq_full(void)
{
	uint32_t k;

	for (k = 0; k < a.cap.max_send_wr; k++) {
		a.qpx->wr_id = 550 + k;
		a.qpx->wr_flags = 0;
		ibv_wr_send(a.qpx);
		ibv_wr_set_sge(a.qpx, a.mr->lkey, (uintptr_t)a.buf, 8);
	}
}

static void bad_setter_first(void)
{
	ibv_wr_set_sge(a.qpx, a.mr->lkey, (uintptr_t)a.buf, 8);
}

static void bad_ud_no_addr(void)
{
	ibv_wr_send(a.qpx);
	ibv_wr_set_sge(a.qpx, a.mr->lkey, (uintptr_t)a.buf, 8);
}

static void bad_ud_null_ah(void)
{
	ibv_wr_send(a.qpx);
	ibv_wr_set_ud_addr(a.qpx, NULL, b.qp->qp_num, UD_QKEY);
	ibv_wr_set_sge(a.qpx, a.mr->lkey, (uintptr_t)a.buf, 8);
}

struct bcase {
	const char *name;
	enum ibv_qp_type type;
	void (*bad)(void);
	int first;		/* the bad call opens the batch */
	int expect;
};

static const struct bcase bcases[] = {
	{ "rc/bad/send-inv-not-in-send-ops", IBV_QPT_RC, bad_send_inv_unrequested, 0, EINVAL },
	{ "rc/bad/sge-over-max-send-sge", IBV_QPT_RC, bad_sge_over_cap, 0, EINVAL },
	{ "rc/bad/sge-over-wqe", IBV_QPT_RC, bad_sge_over_wqe, 0, EINVAL },
	{ "rc/bad/inline-too-large", IBV_QPT_RC, bad_inline_too_large, 0, EINVAL },
	{ "rc/bad/inline-rdma-read", IBV_QPT_RC, bad_inline_read, 0, EINVAL },
	{ "rc/bad/ip-csum-flag", IBV_QPT_RC, bad_ip_csum, 0, EINVAL },
	{ "rc/bad/sq-full", IBV_QPT_RC, bad_sq_full, 0, ENOMEM },
	{ "rc/bad/setter-without-builder", IBV_QPT_RC, bad_setter_first, 1, EINVAL },
	{ "uc/bad/rdma-read", IBV_QPT_UC, bad_read, 0, EINVAL },
	{ "uc/bad/atomic-fetch-add", IBV_QPT_UC, bad_fetch_add, 0, EINVAL },
	{ "ud/bad/rdma-write", IBV_QPT_UD, bad_write_ud, 0, EINVAL },
	{ "ud/bad/send-without-ud-addr", IBV_QPT_UD, bad_ud_no_addr, 0, EINVAL },
	{ "ud/bad/send-null-ah", IBV_QPT_UD, bad_ud_null_ah, 0, EINVAL },
};

/*
 * Good send, bad call(s), good send in one batch: ibv_wr_complete() fails
 * with c->expect and nothing arrives; then a batch of one send goes out
 * and fills the receive the failed batch would have used.
 */
static void run_bcase(const struct bcase *c)
{
	size_t grh = c->type == IBV_QPT_UD ? GRH_LEN : 0;
	struct cqe w;
	int err;

	post_recv(&b, 500, 0, 4096);
	memset(a.buf, 0x11, 1024);
	ibv_wr_start(a.qpx);
	if (!c->first)
		good_send(501, 0, 64);
	c->bad();
	good_send(502, 0, 64);
	err = ibv_wr_complete(a.qpx);
	if (err != c->expect)
		whyf("ibv_wr_complete: %s, want %s", err ? strerror(err) : "success",
		     strerror(c->expect));
	expect_no_cqe(&a, 100, "requester after the failed batch");
	expect_no_cqe(&b, 10, "responder after the failed batch");

	pattern_fill(want, 50, seed++);
	memcpy(a.buf + 2048, want, 50);
	ibv_wr_start(a.qpx);
	good_send(503, 2048, 50);
	err = ibv_wr_complete(a.qpx);
	if (err)
		whyf("the next batch: ibv_wr_complete: %s", strerror(err));
	w = (struct cqe){ .wr_id = 503, .opcode = IBV_WC_SEND, .byte_len = 50 };
	expect_cqe(&a, &w, NULL, "the next batch, requester");
	w = (struct cqe){ .wr_id = 500, .opcode = IBV_WC_RECV, .byte_len = 50 + grh,
			  .src_qp = grh ? a.qp->qp_num : 0 };
	expect_cqe(&b, &w, NULL, "the next batch, responder");
	check_bytes(b.buf + grh, want, 50, "received");
	result(c->name, strerror(c->expect));
}

/* A batch on a QP still in RESET fails with EINVAL (IBTA 10.3.1). */
static void qp_not_rts(void)
{
	struct ibv_qp *qp = qp_create_ex(&a, IBV_QPT_RC, SEND_OPS_RC, DEPTH, NULL);
	struct ibv_qp_ex *qpx = qp ? ibv_qp_to_qp_ex(qp) : NULL;
	int err;

	if (!qpx) {
		whyf("ibv_create_qp_ex: %s", strerror(errno));
	} else {
		ibv_wr_start(qpx);
		qpx->wr_id = 1;
		ibv_wr_send(qpx);
		ibv_wr_set_sge(qpx, a.mr->lkey, (uintptr_t)a.buf, 8);
		err = ibv_wr_complete(qpx);
		if (err != EINVAL)
			whyf("ibv_wr_complete in RESET: %s, want EINVAL",
			     err ? strerror(err) : "success");
	}
	if (qp)
		ibv_destroy_qp(qp);
	result("rc/bad/qp-in-reset", "EINVAL");
}

/* ------------------------------------------------------------------ */
/* Creation: what the device cannot do is refused                     */
/* ------------------------------------------------------------------ */

struct qcase {
	const char *name;
	enum ibv_qp_type type;
	uint64_t ops;
	uint32_t extra_mask;	/* comp_mask bits besides PD | SEND_OPS_FLAGS */
	uint32_t create_flags;
	int expect;
	int plain;		/* comp_mask PD alone: no ibv_qp_ex */
};

#define QC(n, t, o, e) { .name = "create-qp/" n, .type = t, .ops = o, .expect = e }

static const struct qcase qcases[] = {
	QC("rc-all-ops", IBV_QPT_RC, SEND_OPS_RC | IBV_QP_EX_WITH_SEND_WITH_INV, 0),
	QC("uc-all-ops", IBV_QPT_UC, SEND_OPS_UC, 0),
	QC("ud-all-ops", IBV_QPT_UD, SEND_OPS_UD, 0),
	QC("rc-bind-mw", IBV_QPT_RC, IBV_QP_EX_WITH_BIND_MW, 0),
	QC("rc-local-inv", IBV_QPT_RC, IBV_QP_EX_WITH_LOCAL_INV, 0),
	QC("uc-bind-mw", IBV_QPT_UC, IBV_QP_EX_WITH_BIND_MW, 0),
	QC("ud-local-inv", IBV_QPT_UD, IBV_QP_EX_WITH_LOCAL_INV, 0),
	QC("ud-bind-mw", IBV_QPT_UD, IBV_QP_EX_WITH_BIND_MW, EOPNOTSUPP),
	QC("ud-tso", IBV_QPT_UD, IBV_QP_EX_WITH_TSO, EOPNOTSUPP),
	QC("uc-rdma-read", IBV_QPT_UC, IBV_QP_EX_WITH_RDMA_READ, EOPNOTSUPP),
	QC("uc-atomic", IBV_QPT_UC, IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP, EOPNOTSUPP),
	QC("uc-send-inv", IBV_QPT_UC, IBV_QP_EX_WITH_SEND_WITH_INV, EOPNOTSUPP),
	QC("ud-rdma-write", IBV_QPT_UD, IBV_QP_EX_WITH_RDMA_WRITE, EOPNOTSUPP),
	QC("ud-send-inv", IBV_QPT_UD, IBV_QP_EX_WITH_SEND_WITH_INV, EOPNOTSUPP),
	QC("rc-atomic-write", IBV_QPT_RC, IBV_QP_EX_WITH_ATOMIC_WRITE, 0),
	QC("uc-atomic-write", IBV_QPT_UC, IBV_QP_EX_WITH_ATOMIC_WRITE, EOPNOTSUPP),
	QC("ud-atomic-write", IBV_QPT_UD, IBV_QP_EX_WITH_ATOMIC_WRITE, EOPNOTSUPP),
	/* CREATE_FLAGS asking for no flag, as pyverbs' random attributes do */
	{ .name = "create-qp/create-flags-none", .type = IBV_QPT_UC, .ops = IBV_QP_EX_WITH_SEND,
	  .extra_mask = IBV_QP_INIT_ATTR_CREATE_FLAGS },
	{ .name = "create-qp/create-flags-fcs", .type = IBV_QPT_RC, .ops = IBV_QP_EX_WITH_SEND,
	  .extra_mask = IBV_QP_INIT_ATTR_CREATE_FLAGS,
	  .create_flags = IBV_QP_CREATE_SCATTER_FCS, .expect = EOPNOTSUPP },
	{ .name = "create-qp/plain-rc", .type = IBV_QPT_RC, .plain = 1 },
	{ .name = "create-qp/plain-uc", .type = IBV_QPT_UC, .plain = 1 },
	{ .name = "create-qp/plain-ud", .type = IBV_QPT_UD, .plain = 1 },
};

static void run_qcase(const struct qcase *c)
{
	struct ibv_qp_init_attr_ex ia = {
		.send_cq = ibv_cq_ex_to_cq(a.cqx), .recv_cq = ibv_cq_ex_to_cq(a.cqx),
		.qp_type = c->type, .pd = a.d.pd, .send_ops_flags = c->ops,
		.create_flags = c->create_flags,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS |
			     c->extra_mask,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ibv_qp *qp;
	int err;

	if (c->plain)
		ia.comp_mask = IBV_QP_INIT_ATTR_PD;
	qp = ibv_create_qp_ex(a.d.ctx, &ia);
	err = qp ? 0 : errno;
	if (err != c->expect)
		whyf("ibv_create_qp_ex: %s, want %s", err ? strerror(err) : "success",
		     c->expect ? strerror(c->expect) : "success");
	if (qp && (ibv_qp_to_qp_ex(qp) == NULL) != c->plain)
		whyf("ibv_qp_to_qp_ex: %s", c->plain ? "not NULL" : "NULL");
	if (qp)
		ibv_destroy_qp(qp);
	result(c->name, c->expect ? strerror(c->expect) : "created");
}

/* ------------------------------------------------------------------ */
/* Parent domains                                                      */
/* ------------------------------------------------------------------ */

/* ibv_alloc_parent_domain() of @pd with @mask and @td: 0 or its errno. */
static int parent_try(struct ibv_pd *pd, uint32_t mask, struct ibv_td *td,
		      struct ibv_pd **out)
{
	struct ibv_parent_domain_init_attr pa = { .pd = pd, .td = td, .comp_mask = mask };

	*out = ibv_alloc_parent_domain(a.d.ctx, &pa);
	return *out ? 0 : errno;
}

static void expect_err(int got, int want, const char *what)
{
	if (got != want)
		whyf("%s: %s, want %s", what, got ? strerror(got) : "success",
		     want ? strerror(want) : "success");
}

/*
 * A parent domain stands for its protection domain: an MR, an extended CQ
 * (IBV_CQ_INIT_ATTR_MASK_PD) and a QP made through it; what
 * ibv_alloc_parent_domain(3) refuses; a protection domain outlives its
 * parent domains (ibv_dealloc_pd EBUSY until they are gone).
 */
static void parent_domains(void)
{
	struct ibv_td_init_attr ta = {};
	struct ibv_cq_init_attr_ex ca = { .cqe = 16, .wc_flags = IBV_WC_STANDARD_FLAGS,
					  .comp_mask = IBV_CQ_INIT_ATTR_MASK_PD };
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1 } };
	struct ibv_pd *own, *pd, *nested;
	struct ibv_cq_ex *cq = NULL;
	struct ibv_qp *qp = NULL;
	struct ibv_mr *mr = NULL;
	struct ibv_td *td;

	own = ibv_alloc_pd(a.d.ctx);
	if (!own)
		die("ibv_alloc_pd");
	expect_err(parent_try(own, IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			      IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT, NULL, &pd),
		   0, "ibv_alloc_parent_domain");
	if (pd) {
		mr = ibv_reg_mr(pd, a.buf, 4096, IBV_ACCESS_LOCAL_WRITE);
		if (!mr)
			whyf("ibv_reg_mr through a parent domain: %s", strerror(errno));
		ca.parent_domain = pd;
		cq = ibv_create_cq_ex(a.d.ctx, &ca);
		if (!cq)
			whyf("ibv_create_cq_ex with a parent domain: %s", strerror(errno));
		qa.send_cq = qa.recv_cq = cq ? ibv_cq_ex_to_cq(cq) : NULL;
		qp = cq ? ibv_create_qp(pd, &qa) : NULL;
		if (cq && !qp)
			whyf("ibv_create_qp through a parent domain: %s", strerror(errno));
		expect_err(ibv_dealloc_pd(own), EBUSY, "ibv_dealloc_pd of a PD with a parent domain");
	}
	result("parent-domain/mr-cq-qp", "made through it");

	if (pd) {
		expect_err(parent_try(pd, 0, NULL, &nested), EINVAL, "a parent domain of a parent domain");
		if (nested)
			ibv_dealloc_pd(nested);
	}
	expect_err(parent_try(own, 1u << 7, NULL, &nested), EINVAL, "unknown comp_mask bit");
	if (nested)
		ibv_dealloc_pd(nested);
	td = ibv_alloc_td(a.d.ctx, &ta);
	expect_err(td ? 0 : errno, EOPNOTSUPP, "ibv_alloc_td");
	expect_err(parent_try(own, 0, (struct ibv_td *)&ta, &nested), EINVAL, "with a thread domain");
	if (nested)
		ibv_dealloc_pd(nested);
	ca.parent_domain = own;
	expect_err(ibv_create_cq_ex(a.d.ctx, &ca) ? 0 : errno, EINVAL,
		   "ibv_create_cq_ex with a protection domain as parent_domain");
	result("parent-domain/bad", "EINVAL; thread domains EOPNOTSUPP");

	if (qp && ibv_destroy_qp(qp))
		whyf("ibv_destroy_qp: %s", strerror(errno));
	if (cq && ibv_destroy_cq(ibv_cq_ex_to_cq(cq)))
		whyf("ibv_destroy_cq: %s", strerror(errno));
	if (mr && ibv_dereg_mr(mr))
		whyf("ibv_dereg_mr: %s", strerror(errno));
	if (pd)
		expect_err(ibv_dealloc_pd(pd), 0, "ibv_dealloc_pd of the parent domain");
	expect_err(ibv_dealloc_pd(own), 0, "ibv_dealloc_pd of its PD afterwards");
	result("parent-domain/dealloc", "parent first, then its PD");
}

/* A QP of ibv_create_qp() has no ibv_qp_ex. */
static void legacy_qp(void)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = ibv_cq_ex_to_cq(a.cqx), .recv_cq = ibv_cq_ex_to_cq(a.cqx),
		.qp_type = IBV_QPT_RC, .cap = { .max_send_wr = 8, .max_recv_wr = 8,
						.max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(a.d.pd, &ia);

	if (!qp)
		whyf("ibv_create_qp: %s", strerror(errno));
	else if (ibv_qp_to_qp_ex(qp))
		whyf("ibv_qp_to_qp_ex of an ibv_create_qp() QP is not NULL");
	if (qp)
		ibv_destroy_qp(qp);
	result("create-qp/legacy-has-no-qp-ex", "NULL");
}

struct ccase {
	const char *name;
	uint64_t wc_flags;
	uint32_t comp_mask;
	uint32_t flags;
	int expect;
};

static const struct ccase ccases[] = {
	{ "create-cq/standard-flags", IBV_WC_STANDARD_FLAGS, 0, 0, 0 },
	{ "create-cq/single-threaded", IBV_WC_EX_WITH_BYTE_LEN, IBV_CQ_INIT_ATTR_MASK_FLAGS,
	  IBV_CREATE_CQ_ATTR_SINGLE_THREADED, 0 },
	{ "create-cq/completion-timestamp", IBV_WC_EX_WITH_COMPLETION_TIMESTAMP, 0, 0,
	  EOPNOTSUPP },
	{ "create-cq/completion-timestamp-wallclock",
	  IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK, 0, 0, EOPNOTSUPP },
	{ "create-cq/cvlan", IBV_WC_EX_WITH_CVLAN, 0, 0, EOPNOTSUPP },
	{ "create-cq/flow-tag", IBV_WC_EX_WITH_FLOW_TAG, 0, 0, EOPNOTSUPP },
	{ "create-cq/ignore-overrun", 0, IBV_CQ_INIT_ATTR_MASK_FLAGS,
	  IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN, EOPNOTSUPP },
	{ "create-cq/unknown-comp-mask", 0, 1u << 7, 0, EINVAL },
};

static void run_ccase(const struct ccase *c)
{
	struct ibv_cq_init_attr_ex ca = { .cqe = 16, .wc_flags = c->wc_flags,
					  .comp_mask = c->comp_mask, .flags = c->flags };
	struct ibv_poll_cq_attr pa = {};
	struct ibv_cq_ex *cq = ibv_create_cq_ex(a.d.ctx, &ca);
	int err = cq ? 0 : errno, ret;

	if (err != c->expect)
		whyf("ibv_create_cq_ex: %s, want %s", err ? strerror(err) : "success",
		     c->expect ? strerror(c->expect) : "success");
	if (cq) {
		ret = ibv_start_poll(cq, &pa);
		if (ret != ENOENT)
			whyf("ibv_start_poll on an empty CQ: %s, want ENOENT", strerror(ret));
		pa.comp_mask = 1;
		ret = ibv_start_poll(cq, &pa);
		if (ret != EINVAL)
			whyf("ibv_start_poll with comp_mask 1: %s, want EINVAL", strerror(ret));
		if (ibv_destroy_cq(ibv_cq_ex_to_cq(cq)))
			whyf("ibv_destroy_cq: %s", strerror(errno));
	}
	result(c->name, c->expect ? strerror(c->expect) : "created");
}

/* ------------------------------------------------------------------ */
/* Send with Invalidate                                                */
/* ------------------------------------------------------------------ */

/*
 * ibv_wr_send_inv() puts a SEND with an IETH on the wire: sroce refuses
 * to let a peer invalidate an MR its owner registered (IBTA 10.6.7), so
 * both ends complete with IBV_WC_REM_INV_REQ_ERR.  Leaves the pair in ERR.
 */
static void rc_send_inv(void)
{
	struct cqe w;
	int err;

	if (pair_up(IBV_QPT_RC, SEND_OPS_RC | IBV_QP_EX_WITH_SEND_WITH_INV)) {
		result("rc/send-inv", "");
		return;
	}
	post_recv(&b, 600, 0, 4096);
	ibv_wr_start(a.qpx);
	a.qpx->wr_id = 601;
	a.qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_inv(a.qpx, b.mr->rkey);
	ibv_wr_set_inline_data(a.qpx, scratch, 16);
	err = ibv_wr_complete(a.qpx);
	if (err)
		whyf("ibv_wr_complete: %s", strerror(err));
	w = (struct cqe){ .wr_id = 601, .status = IBV_WC_REM_INV_REQ_ERR };
	expect_cqe(&a, &w, NULL, "requester");
	w = (struct cqe){ .wr_id = 600, .status = IBV_WC_REM_INV_REQ_ERR };
	expect_cqe(&b, &w, NULL, "responder");
	result("rc/send-inv", "IETH sent, refused by the peer");
}

/* The peer's RDMA WRITE of its first 256 bytes through @rkey at @va. */
static void mw_peer_write(uint64_t wr_id, uint32_t rkey, uint64_t va,
			  enum ibv_wc_status status)
{
	struct cqe w = { .wr_id = wr_id, .status = status,
			 .opcode = IBV_WC_RDMA_WRITE, .byte_len = 256,
			 .qp_num = b.qp->qp_num };
	int err;

	ibv_wr_start(b.qpx);
	b.qpx->wr_id = wr_id;
	b.qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(b.qpx, rkey, va);
	ibv_wr_set_sge(b.qpx, b.mr->lkey, (uintptr_t)b.buf, 256);
	err = ibv_wr_complete(b.qpx);
	if (err)
		whyf("peer's ibv_wr_complete: %s", strerror(err));
	else
		expect_cqe(&b, &w, NULL, "peer's WRITE");
}

/* A's ibv_wr_bind_mw (@len 0: none) or ibv_wr_local_inv, signaled. */
static void mw_local_op(struct ibv_mw *mw, uint32_t rkey,
			const struct ibv_mw_bind_info *bi, uint64_t wr_id)
{
	struct cqe w = { .wr_id = wr_id, .status = IBV_WC_SUCCESS,
			 .opcode = bi ? IBV_WC_BIND_MW : IBV_WC_LOCAL_INV,
			 .qp_num = a.qp->qp_num };
	int err;

	ibv_wr_start(a.qpx);
	a.qpx->wr_id = wr_id;
	a.qpx->wr_flags = IBV_SEND_SIGNALED;
	if (bi)
		ibv_wr_bind_mw(a.qpx, mw, rkey, bi);
	else
		ibv_wr_local_inv(a.qpx, rkey);
	err = ibv_wr_complete(a.qpx);
	if (err)
		whyf("ibv_wr_complete: %s", strerror(err));
	else
		expect_cqe(&a, &w, NULL, bi ? "bind" : "local invalidate");
}

/*
 * ibv_wr_bind_mw binds a type 2 window on A (4 KiB of an MR registered
 * with MW_BIND only, no remote access); the peer's WRITE through it lands
 * there, one past its end fails; ibv_wr_local_inv then makes its rkey
 * unusable (IBTA 10.6.7).
 */
static void rc_bind_mw(void)
{
	uint64_t ops = SEND_OPS_RC | IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_LOCAL_INV;
	struct ibv_mr *mr = NULL;
	struct ibv_mw *mw = NULL;
	struct ibv_mw_bind_info bi;
	uint32_t rkey;
	int i;

	if (pair_up(IBV_QPT_RC, ops))
		goto out;
	mr = ibv_reg_mr(a.d.pd, a.buf + 32768, 8192,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	mw = mr ? ibv_alloc_mw(a.d.pd, IBV_MW_TYPE_2) : NULL;
	if (!mw) {
		whyf("ibv_reg_mr/ibv_alloc_mw: %s", strerror(errno));
		goto out;
	}
	bi = (struct ibv_mw_bind_info){ .mr = mr, .addr = (uintptr_t)a.buf + 36864,
		.length = 4096, .mw_access_flags = IBV_ACCESS_REMOTE_WRITE };
	rkey = ibv_inc_rkey(mw->rkey);
	for (i = 0; i < 256; i++)
		b.buf[i] = (uint8_t)(i * 13 + 5);
	memset(a.buf + 36864, 0, 4096);
	mw_local_op(mw, rkey, &bi, 700);
	if (!*why)
		mw_peer_write(701, rkey, bi.addr + 4096 - 256, IBV_WC_SUCCESS);
	if (!*why && memcmp(a.buf + 36864 + 4096 - 256, b.buf, 256))
		whyf("the WRITE through the window left other bytes");
	if (!*why)
		mw_local_op(mw, rkey, NULL, 702);
	if (!*why)
		mw_peer_write(703, rkey, bi.addr, IBV_WC_REM_ACCESS_ERR);
out:
	if (mw)
		ibv_dealloc_mw(mw);
	if (mr)
		ibv_dereg_mr(mr);
	result("rc/bind-mw-write-local-inv", "bytes through the window, then REM_ACCESS_ERR");
}

/* ------------------------------------------------------------------ */
/* ATOMIC WRITE (IBTA 1.5 oA19-28)                                     */
/* ------------------------------------------------------------------ */

/*
 * One ATOMIC WRITE from @rq of @val to @raddr under @rkey: through the
 * builder (the value copied at once: its buffer is scribbled over right
 * after), or through ibv_post_send() with an 8-byte gather entry
 * (@legacy).  Returns the requester's completion status, or -1.
 */
static int awrite_once(struct end *rq, uint64_t val, uint64_t raddr,
		       uint32_t rkey, uint64_t id, int legacy)
{
	struct ibv_sge sge = { .addr = (uintptr_t)(rq->buf + SRC_OFF),
			       .length = 8, .lkey = rq->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_ATOMIC_WRITE,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	uint8_t tmp[8];
	struct cqe e;
	int err;

	if (legacy) {
		memcpy(rq->buf + SRC_OFF, &val, 8);
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
		err = ibv_post_send(rq->qp, &wr, &bad);
	} else {
		memcpy(tmp, &val, 8);
		ibv_wr_start(rq->qpx);
		rq->qpx->wr_id = id;
		rq->qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_atomic_write(rq->qpx, rkey, raddr, tmp);
		memset(tmp, 0xee, sizeof(tmp));
		err = ibv_wr_complete(rq->qpx);
	}
	if (err) {
		whyf("posting: %s", strerror(err));
		return -1;
	}
	if (cq_take(rq->cqx, &e, 1, 3000, NULL) != 1) {
		whyf("requester: no completion within 3 s");
		return -1;
	}
	if (e.wr_id != id || (e.status == IBV_WC_SUCCESS &&
			      (e.opcode != IBV_WC_ATOMIC_WRITE || e.byte_len != 8))) {
		whyf("requester: got %s", cqe_str(&e));
		return -1;
	}
	return e.status;
}

/* Does @x's device report ATOMIC WRITE (bit 40 of device_cap_flags_ex)? */
static int awrite_cap(const struct end *x)
{
	struct ibv_device_attr_ex attr = {};
	int err = ibv_query_device_ex(x->d.ctx, NULL, &attr);

	if (err) {
		whyf("ibv_query_device_ex: %s", strerror(err));
		return 0;
	}
	return !!(attr.device_cap_flags_ex & (1ULL << 40));
}

/* A failing ATOMIC WRITE from @rq on a fresh pair completes with @status. */
static void awrite_bad(struct end *rq, const char *name, uint64_t raddr,
		       uint32_t rkey, int status)
{
	int got;

	if (pair_up(IBV_QPT_RC, SEND_OPS_RC | IBV_QP_EX_WITH_ATOMIC_WRITE))
		die("%s", why);
	got = awrite_once(rq, 0x1122334455667788ULL, raddr, rkey, 811, 0);
	if (got >= 0 && got != status)
		whyf("requester status %s, want %s",
		     ibv_wc_status_str((enum ibv_wc_status)got),
		     ibv_wc_status_str((enum ibv_wc_status)status));
	result(name, ibv_wc_status_str((enum ibv_wc_status)status));
}

/*
 * RC ATOMIC WRITE from @rq to @rs: 8 bytes stored at the remote address
 * (the bytes around it untouched) with the builder and with
 * ibv_post_send(); a misaligned address is an invalid request, an MR
 * without remote write a remote access error.  Case names start @pfx.
 */
static void awrite_cases(struct end *rq, struct end *rs, const char *pfx)
{
	uint64_t v = 0x8877665544332211ULL, w = 0x0102030405060708ULL;
	uint64_t raddr = (uintptr_t)(rs->buf + 16);
	char name[64];
	struct ibv_mr *ro;

	if (pair_up(IBV_QPT_RC, SEND_OPS_RC | IBV_QP_EX_WITH_ATOMIC_WRITE))
		die("%s", why);
	memset(rs->buf, 0x5a, 32);
	if (!awrite_once(rq, v, raddr, rs->mr->rkey, 801, 0)) {
		check_u64(rs->buf + 16, v, "target");
		check_u64(rs->buf + 8, 0x5a5a5a5a5a5a5a5aULL, "before the target");
		check_u64(rs->buf + 24, 0x5a5a5a5a5a5a5a5aULL, "after the target");
	}
	snprintf(name, sizeof(name), "rc/%s", pfx);
	result(name, "8 B stored");
	if (!awrite_once(rq, w, raddr, rs->mr->rkey, 802, 1))
		check_u64(rs->buf + 16, w, "target");
	snprintf(name, sizeof(name), "rc/%s-post-send", pfx);
	result(name, "8 B stored");
	snprintf(name, sizeof(name), "rc/bad/%s-misaligned", pfx);
	awrite_bad(rq, name, raddr + 4, rs->mr->rkey, IBV_WC_REM_INV_REQ_ERR);
	ro = ibv_reg_mr(rs->d.pd, rs->buf, BUF_LEN,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!ro)
		die("ibv_reg_mr: %s", strerror(errno));
	snprintf(name, sizeof(name), "rc/bad/%s-no-remote-write", pfx);
	awrite_bad(rq, name, raddr, ro->rkey, IBV_WC_REM_ACCESS_ERR);
	ibv_dereg_mr(ro);
}

/*
 * RC ATOMIC WRITE both ways: a (sroce) reports the capability; towards a
 * peer whose device does not (rdma_rxe of Linux 6.1 lacks the operation)
 * nothing is sent.
 */
static void rc_atomic_write(void)
{
	if (!awrite_cap(&a))
		whyf("device_cap_flags_ex lacks ATOMIC_WRITE (bit 40)");
	result("rc/atomic-write/device-cap", "bit 40");
	if (!awrite_cap(&b)) {
		printf("SKIP rc/atomic-write: %s reports no ATOMIC_WRITE\n",
		       ibv_get_device_name(b.d.ctx->device));
		return;
	}
	awrite_cases(&a, &b, "atomic-write");
	awrite_cases(&b, &a, "atomic-write-reverse");
}

/* ------------------------------------------------------------------ */
/* Main                                                                */
/* ------------------------------------------------------------------ */

static void end_open(struct end *x, const char *dev, int gidx)
{
	rdev_open(&x->d, dev, gidx);
	x->buf = alloc_buf(BUF_LEN);
	memset(x->buf, 0, BUF_LEN);
	x->mr = reg_mr(x->d.pd, x->buf, BUF_LEN, RC_ACCESS | IBV_ACCESS_REMOTE_ATOMIC);
	x->cqx = cq_create(x, IBV_WC_STANDARD_FLAGS);
	if (!x->cqx)
		die("ibv_create_cq_ex on %s: %s", dev, strerror(errno));
}

static void end_close(struct end *x)
{
	if (x->qp)
		ibv_destroy_qp(x->qp);
	ibv_destroy_cq(ibv_cq_ex_to_cq(x->cqx));
	ibv_dereg_mr(x->mr);
	ibv_dealloc_pd(x->d.pd);
	ibv_close_device(x->d.ctx);
	free(x->buf);
}

/* Data cases and bad cases of QP type @t on a fresh pair of @ops. */
static void run_type(enum ibv_qp_type t, uint64_t ops)
{
	size_t i;

	if (pair_up(t, ops))
		die("%s", why);
	for (i = 0; i < sizeof(dcases) / sizeof(dcases[0]); i++)
		if (dcases[i].type == t)
			run_dcase(&dcases[i]);
	if (t == IBV_QPT_RC) {
		rc_atomics();
		rc_batch();
		rc_abort();
	}
	for (i = 0; i < sizeof(bcases) / sizeof(bcases[0]); i++)
		if (bcases[i].type == t)
			run_bcase(&bcases[i]);
}

static void make_ah(void)
{
	struct ibv_ah_attr av = {
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = b.d.gid, .sgid_index = (uint8_t)a.d.gid_index,
			 .hop_limit = 64 },
	};

	ah_ab = ibv_create_ah(a.d.pd, &av);
	if (!ah_ab)
		die("ibv_create_ah: %s", strerror(errno));
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *dev2 = NULL;
	int gidx = 0, gidx2 = 0, c;
	size_t i;

	prog_name = "ext_verbs";
	while ((c = getopt(argc, argv, "d:g:D:G:x")) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'g': gidx = atoi(optarg); break;
		case 'D': dev2 = optarg; break;
		case 'G': gidx2 = atoi(optarg); break;
		case 'x': peer_foreign = 1; break;
		default:
			fprintf(stderr, "usage: ext_verbs -d DEV -g GIDX -D DEV2 -G GIDX2 [-x]\n");
			return 2;
		}
	}
	if (!dev || !dev2)
		die("-d DEV and -D DEV2 are required");
	end_open(&a, dev, gidx);
	end_open(&b, dev2, gidx2);
	seed = (uint64_t)getpid();

	for (i = 0; i < sizeof(ccases) / sizeof(ccases[0]); i++)
		run_ccase(&ccases[i]);
	for (i = 0; i < sizeof(qcases) / sizeof(qcases[0]); i++)
		run_qcase(&qcases[i]);
	legacy_qp();
	qp_not_rts();
	parent_domains();

	run_type(IBV_QPT_RC, SEND_OPS_RC);
	run_type(IBV_QPT_UC, SEND_OPS_UC);
	make_ah();
	run_type(IBV_QPT_UD, SEND_OPS_UD);
	if (!peer_foreign)
		rc_send_inv();
	rc_atomic_write();
	rc_bind_mw();

	ibv_destroy_ah(ah_ab);
	end_close(&a);
	end_close(&b);
	printf("TOTAL %d failed\n", nfail);
	return nfail ? 1 : 0;
}
