// SPDX-License-Identifier: GPL-2.0
/*
 * xrc_verbs: XRC (IBTA annex A14: XRC domains, SRQs, XRCETH) end to end between
 * two devices.  Each side opens an XRC domain from a file, creates two XRC
 * SRQs in it (each completing into a CQ of its own), XRC receive (TGT) QPs
 * and XRC send (INI) QPs connected to the peer's TGT QPs.  An INI QP names
 * the SRQ of every request by number (ibv_get_srq_num): the number, not
 * the TGT QP, picks the SRQ.  Every moved byte is compared; each receive
 * completion must name the TGT QP it arrived on (wc.qp_num) and land on
 * the CQ of the SRQ the sender named.
 *
 * Cases: SEND of 1 B, 4 KiB and 64 KiB (multi-packet) to each SRQ, SEND
 * with immediate, inline SEND, RDMA WRITE, WRITE with immediate (consumes
 * an SRQ WQE), RDMA READ, fetch-and-add and compare-and-swap (the MR is
 * checked against the named SRQ's PD), the reverse direction, two INI QPs
 * feeding one SRQ through two TGT QPs, one batch of the ibv_wr_* API
 * (ibv_wr_set_xrc_srqn) with every opcode, the SRQ limit event of an XRC
 * SRQ (ibv_modify_srq), and a domain shared by a second
 * device context (another uverbs file, as a second process has): it opens
 * the domain through the same file, creates an SRQ there that the peer
 * reaches through the first context's TGT QP, and opens that TGT QP
 * (ibv_open_qp) and queries it.
 *
 * Usage: xrc_verbs -d DEV -g GIDX -D DEV2 -G GIDX2
 *   DEV, GIDX    the device under test (sends first) and its RoCE v2 GID
 *   DEV2, GIDX2  the peer
 *
 * Output: one `PASS name (detail)` or `FAIL name: why` line per case, then
 * `TOTAL N failed`; exit status 1 if any case failed, 2 if the setup failed.
 */
#include "check.h"
#include "rdma_common.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>

#define NTGT		3		/* TGT QPs per side: 0, 1 legacy INI; 2 ex */
#define EX		2		/* index of the INI QP made with send_ops_flags */
#define NSRQ		2
#define SRQ_DEPTH	64
#define BUF_LEN		(1 << 20)
#define SEND_OFF	0		/* source of sends and writes */
#define RECV_OFF(k)	((size_t)(k + 1) << 17)	/* SRQ k's receive buffers */
#define RECV_SLOT	(1 << 16)		/* one receive: 64 KiB */
#define RDMA_OFF	(6 << 17)		/* target of WRITE, source of READ */
#define ATOMIC_OFF	(7 << 17)
#define XRC_OPS		(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
			 IBV_QP_EX_WITH_RDMA_WRITE | \
			 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
			 IBV_QP_EX_WITH_RDMA_READ | \
			 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
			 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)

struct side {
	struct rdev d;
	char path[64];			/* the file naming the XRC domain */
	int fd;
	struct ibv_xrcd *xrcd;
	struct ibv_cq *scq;		/* INI completions */
	struct ibv_cq *rcq[NSRQ];	/* SRQ k completes into rcq[k] */
	struct ibv_srq *srq[NSRQ];
	uint32_t srqn[NSRQ];
	struct ibv_qp *ini[NTGT];	/* ini[i] talks to the peer's tgt[i] */
	struct ibv_qp *tgt[NTGT];
	uint32_t psn[NTGT];
	uint8_t *buf;
	struct ibv_mr *mr;
	uint64_t next_id;
};

static struct side a, b;
static uint64_t seed = 1;
static uint8_t want[RECV_SLOT];

/* ------------------------------------------------------------------ */
/* Setup                                                               */
/* ------------------------------------------------------------------ */

static struct ibv_xrcd *xrcd_open(struct ibv_context *ctx, int fd)
{
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = fd, .oflags = O_CREAT,
	};

	return ibv_open_xrcd(ctx, &xa);
}

static struct ibv_srq *xsrq_create(struct ibv_context *ctx, struct ibv_pd *pd,
				   struct ibv_xrcd *xrcd, struct ibv_cq *cq,
				   uint32_t *srqn)
{
	struct ibv_srq_init_attr_ex sa = {
		.attr = { .max_wr = SRQ_DEPTH, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC, .pd = pd, .xrcd = xrcd, .cq = cq,
	};
	struct ibv_srq *srq = ibv_create_srq_ex(ctx, &sa);
	int err;

	if (!srq)
		die("ibv_create_srq_ex(XRC): %s", strerror(errno));
	err = ibv_get_srq_num(srq, srqn);
	if (err)
		die("ibv_get_srq_num: %s", strerror(err));
	return srq;
}

static struct ibv_qp *tgt_create(struct side *s)
{
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_XRC_RECV, .comp_mask = IBV_QP_INIT_ATTR_XRCD,
		.xrcd = s->xrcd,
	};
	struct ibv_qp_attr qa = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = RC_ACCESS | IBV_ACCESS_REMOTE_ATOMIC,
	};
	struct ibv_qp *qp = ibv_create_qp_ex(s->d.ctx, &ia);

	if (!qp)
		die("ibv_create_qp_ex(XRC_RECV): %s", strerror(errno));
	if (ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		die("TGT QP to INIT: %s", strerror(errno));
	return qp;
}

/* An INI QP: ibv_create_qp (@ops 0) or ibv_create_qp_ex with @ops. */
static struct ibv_qp *ini_create(struct side *s, uint64_t ops)
{
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_XRC_SEND, .send_cq = s->scq, .pd = s->d.pd,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.cap = { .max_send_wr = SRQ_DEPTH, .max_send_sge = 2,
			 .max_inline_data = 64 },
	};
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct ibv_qp *qp;

	if (ops) {
		ia.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		ia.send_ops_flags = ops;
	}
	qp = ibv_create_qp_ex(s->d.ctx, &ia);
	if (!qp)
		die("ibv_create_qp_ex(XRC_SEND, ops %#llx): %s",
		    (unsigned long long)ops, strerror(errno));
	if (ops && !ibv_qp_to_qp_ex(qp))
		die("ibv_qp_to_qp_ex of an INI QP with send_ops_flags: NULL");
	if (ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		die("INI QP to INIT: %s", strerror(errno));
	return qp;
}

static struct ibv_ah_attr av_to(const struct side *s, const struct side *peer)
{
	return (struct ibv_ah_attr){
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = peer->d.gid, .sgid_index = (uint8_t)s->d.gid_index,
			 .hop_limit = 64 },
	};
}

/*
 * Connects @s's INI QP @i to @peer's TGT QP @i: the INI QP to RTS (the
 * RC requester attributes, ib_core's table for XRC INI), the TGT QP to
 * RTS (RTR with the responder attributes; RTS with its own timeout/PSN).
 */
static void connect_pair(struct side *s, struct side *peer, int i)
{
	enum ibv_mtu mtu = s->d.port.active_mtu < peer->d.port.active_mtu ?
			   s->d.port.active_mtu : peer->d.port.active_mtu;
	struct ibv_qp_attr qa = {
		.qp_state = IBV_QPS_RTR, .path_mtu = mtu,
		.dest_qp_num = s->ini[i]->qp_num, .rq_psn = s->psn[i],
		.max_dest_rd_atomic = RC_RD_ATOMIC, .min_rnr_timer = 12,
		.ah_attr = av_to(peer, s),
	};

	if (ibv_modify_qp(peer->tgt[i], &qa, IBV_QP_STATE | IBV_QP_AV |
			  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("TGT QP to RTR: %s", strerror(errno));
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTS;
	qa.timeout = 16;
	qa.sq_psn = peer->psn[i];
	if (ibv_modify_qp(peer->tgt[i], &qa, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_SQ_PSN))
		die("TGT QP to RTS: %s", strerror(errno));

	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTR;
	qa.path_mtu = mtu;
	qa.dest_qp_num = peer->tgt[i]->qp_num;
	qa.rq_psn = peer->psn[i];
	qa.ah_attr = av_to(s, peer);
	if (ibv_modify_qp(s->ini[i], &qa, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN))
		die("INI QP to RTR: %s", strerror(errno));
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTS;
	qa.timeout = 16;
	qa.retry_cnt = 7;
	qa.rnr_retry = 7;
	qa.sq_psn = s->psn[i];
	qa.max_rd_atomic = RC_RD_ATOMIC;
	if (ibv_modify_qp(s->ini[i], &qa, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC))
		die("INI QP to RTS: %s", strerror(errno));
}

static void side_open(struct side *s, const char *dev, int gidx, char tag)
{
	int i;

	rdev_open(&s->d, dev, gidx);
	snprintf(s->path, sizeof(s->path), "/tmp/xrc_verbs.%d.%c", (int)getpid(), tag);
	s->fd = open(s->path, O_RDONLY | O_CREAT, S_IRUSR | S_IWUSR);
	if (s->fd < 0)
		die("open %s: %s", s->path, strerror(errno));
	s->xrcd = xrcd_open(s->d.ctx, s->fd);
	if (!s->xrcd)
		die("ibv_open_xrcd on %s: %s", dev, strerror(errno));
	s->scq = ibv_create_cq(s->d.ctx, 4 * SRQ_DEPTH, NULL, NULL, 0);
	if (!s->scq)
		die("ibv_create_cq: %s", strerror(errno));
	s->buf = alloc_buf(BUF_LEN);
	memset(s->buf, 0, BUF_LEN);
	s->mr = reg_mr(s->d.pd, s->buf, BUF_LEN, RC_ACCESS | IBV_ACCESS_REMOTE_ATOMIC);
	for (i = 0; i < NSRQ; i++) {
		s->rcq[i] = ibv_create_cq(s->d.ctx, 2 * SRQ_DEPTH, NULL, NULL, 0);
		if (!s->rcq[i])
			die("ibv_create_cq: %s", strerror(errno));
		s->srq[i] = xsrq_create(s->d.ctx, s->d.pd, s->xrcd, s->rcq[i], &s->srqn[i]);
	}
	for (i = 0; i < NTGT; i++) {
		s->tgt[i] = tgt_create(s);
		s->ini[i] = ini_create(s, i == EX ? XRC_OPS : 0);
		s->psn[i] = rng_next(&s->d.rng) & 0xffffff;
	}
	s->next_id = (uint64_t)tag << 32;
}

static void side_close(struct side *s)
{
	int i;

	for (i = 0; i < NTGT; i++) {
		ibv_destroy_qp(s->ini[i]);
		ibv_destroy_qp(s->tgt[i]);
	}
	for (i = 0; i < NSRQ; i++) {
		ibv_destroy_srq(s->srq[i]);
		ibv_destroy_cq(s->rcq[i]);
	}
	ibv_destroy_cq(s->scq);
	ibv_dereg_mr(s->mr);
	if (ibv_close_xrcd(s->xrcd))
		fprintf(stderr, "ibv_close_xrcd: %s\n", strerror(errno));
	close(s->fd);
	unlink(s->path);
	ibv_dealloc_pd(s->d.pd);
	ibv_close_device(s->d.ctx);
	free(s->buf);
}

/* ------------------------------------------------------------------ */
/* Completions and data                                                */
/* ------------------------------------------------------------------ */

/*
 * One completion on @cq: @wr_id, success, @op, and for receives @len and
 * the TGT QP @qpn (IBTA annex A14: an XRC SRQ's completion names the QP
 * the message came through), with the immediate @imm when @flags says so.
 */
static int expect_wc(struct ibv_cq *cq, uint64_t wr_id, enum ibv_wc_opcode op,
		     uint32_t len, uint32_t qpn, unsigned int flags, uint32_t imm,
		     const char *what)
{
	struct ibv_wc wc;
	int n = cq_wait(cq, &wc, 5000);

	if (n <= 0) {
		whyf("%s: %s", what, n ? "ibv_poll_cq failed" : "no completion in 5 s");
		return -1;
	}
	if (wc.wr_id != wr_id || wc.status != IBV_WC_SUCCESS || wc.opcode != op ||
	    ((op & IBV_WC_RECV) && (wc.byte_len != len || wc.qp_num != qpn ||
				    (wc.wc_flags & (IBV_WC_WITH_IMM | IBV_WC_WITH_INV)) != flags ||
				    ((flags & IBV_WC_WITH_IMM) && ntohl(wc.imm_data) != imm)))) {
		whyf("%s: got %s qp_num %#x, want wr_id %llu success opcode %d len %u qp_num %#x flags %#x imm %#x",
		     what, wc_str(&wc), wc.qp_num, (unsigned long long)wr_id, op, len,
		     qpn, flags, imm);
		return -1;
	}
	return 0;
}

static void expect_none(struct ibv_cq *cq, const char *what)
{
	struct ibv_wc wc;

	if (cq_wait(cq, &wc, 50) > 0)
		whyf("%s: unexpected completion %s", what, wc_str(&wc));
}

static void check_bytes(const uint8_t *got, const uint8_t *exp, size_t len,
			const char *what)
{
	long d = first_diff(got, exp, len);

	if (d >= 0)
		whyf("%s: byte %ld of %zu differs: %#x, want %#x", what, d, len,
		     got[d], exp[d]);
}

/* Posts one receive of RECV_SLOT bytes at slot @slot (0, 1) of SRQ @k's area. */
static uint64_t srq_post(struct side *s, int k, int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(s->buf + RECV_OFF(k) + (size_t)slot * RECV_SLOT),
		.length = RECV_SLOT, .lkey = s->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = s->next_id++, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	int err;

	err = ibv_post_srq_recv(s->srq[k], &wr, &bad);
	if (err)
		whyf("ibv_post_srq_recv: %s", strerror(err));
	return wr.wr_id;
}

/* A fresh pattern of @len bytes at @s's send area (and in want[]). */
static void make_data(struct side *s, uint32_t len)
{
	pattern_fill(want, len, seed++);
	memcpy(s->buf + SEND_OFF, want, len);
}

static int post(struct side *s, int i, struct ibv_send_wr *wr, const char *what)
{
	struct ibv_send_wr *bad;
	int err = ibv_post_send(s->ini[i], wr, &bad);

	if (err)
		whyf("%s: ibv_post_send: %s", what, strerror(err));
	return err;
}

/*
 * @s's INI QP @i sends @len bytes (with immediate @imm if @with_imm,
 * inline if @inl) to @peer's SRQ @k; the message must complete on the
 * CQ of SRQ @k, through @peer's TGT QP @i, with every byte.
 */
static void send_case(struct side *s, struct side *peer, int i, int k,
		      uint32_t len, int with_imm, int inl, const char *what)
{
	struct ibv_sge sge = { .addr = (uintptr_t)(s->buf + SEND_OFF), .length = len,
			       .lkey = s->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = s->next_id++, .sg_list = &sge, .num_sge = 1,
		.opcode = with_imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED | (inl ? IBV_SEND_INLINE : 0),
		.imm_data = htonl(0x5e000000u | (uint32_t)seed),
		.qp_type.xrc.remote_srqn = peer->srqn[k],
	};
	uint64_t rid;

	make_data(s, len);
	rid = srq_post(peer, k, 0);
	if (why[0] || post(s, i, &wr, what))
		return;
	if (inl)	/* the bytes were copied when posted */
		memset(s->buf + SEND_OFF, 0xee, len);
	if (expect_wc(s->scq, wr.wr_id, IBV_WC_SEND, 0, 0, 0, 0, what) ||
	    expect_wc(peer->rcq[k], rid, IBV_WC_RECV, len, peer->tgt[i]->qp_num,
		      with_imm ? IBV_WC_WITH_IMM : 0, ntohl(wr.imm_data), what))
		return;
	check_bytes(peer->buf + RECV_OFF(k), want, len, what);
	expect_none(peer->rcq[1 - k], "the other SRQ's CQ");
}

static void run_send(int k, uint32_t len, int with_imm, int inl)
{
	char name[80];

	snprintf(name, sizeof(name), "send%s%s/srq%d/%u", with_imm ? "-imm" : "",
		 inl ? "-inline" : "", k, len);
	send_case(&a, &b, k, k, len, with_imm, inl, name);
	result(name, "bytes, wc.qp_num = TGT QP, the named SRQ's CQ");
}

/* RDMA WRITE (with immediate: it takes a WQE of SRQ 1) of @len bytes. */
static void run_write(uint32_t len, int with_imm)
{
	const char *name = with_imm ? "rdma-write-imm" : "rdma-write";
	struct ibv_sge sge = { .addr = (uintptr_t)(a.buf + SEND_OFF), .length = len,
			       .lkey = a.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = a.next_id++, .sg_list = &sge, .num_sge = 1,
		.opcode = with_imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED, .imm_data = htonl(0x77000000u | len),
		.wr.rdma = { .remote_addr = (uintptr_t)(b.buf + RDMA_OFF), .rkey = b.mr->rkey },
		.qp_type.xrc.remote_srqn = b.srqn[1],
	};
	uint64_t rid = 0;

	make_data(&a, len);
	if (with_imm)
		rid = srq_post(&b, 1, 0);
	if (!why[0] && !post(&a, 0, &wr, name) &&
	    !expect_wc(a.scq, wr.wr_id, IBV_WC_RDMA_WRITE, 0, 0, 0, 0, name) &&
	    (!with_imm || !expect_wc(b.rcq[1], rid, IBV_WC_RECV_RDMA_WITH_IMM, len,
				     b.tgt[0]->qp_num, IBV_WC_WITH_IMM, len | 0x77000000u,
				     name)))
		check_bytes(b.buf + RDMA_OFF, want, len, name);
	result(name, with_imm ? "bytes, immediate on the named SRQ" : "bytes");
}

static void run_read(uint32_t len)
{
	struct ibv_sge sge = { .addr = (uintptr_t)(a.buf + RDMA_OFF), .length = len,
			       .lkey = a.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = a.next_id++, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_READ, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)(b.buf + RDMA_OFF), .rkey = b.mr->rkey },
		.qp_type.xrc.remote_srqn = b.srqn[0],
	};

	pattern_fill(want, len, seed++);
	memcpy(b.buf + RDMA_OFF, want, len);
	memset(a.buf + RDMA_OFF, 0, len);
	if (!post(&a, 1, &wr, "rdma-read") &&
	    !expect_wc(a.scq, wr.wr_id, IBV_WC_RDMA_READ, 0, 0, 0, 0, "rdma-read"))
		check_bytes(a.buf + RDMA_OFF, want, len, "rdma-read");
	result("rdma-read", "bytes");
}

static void run_atomics(void)
{
	uint64_t init = 0x1122334455667788ull;
	struct ibv_sge sge = { .addr = (uintptr_t)(a.buf + ATOMIC_OFF), .length = 8,
			       .lkey = a.mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .send_flags = IBV_SEND_SIGNALED,
		.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
		.wr.atomic = { .remote_addr = (uintptr_t)(b.buf + ATOMIC_OFF),
			       .rkey = b.mr->rkey, .compare_add = 5 },
		.qp_type.xrc.remote_srqn = b.srqn[1],
	};

	memcpy(b.buf + ATOMIC_OFF, &init, 8);
	wr.wr_id = a.next_id++;
	if (!post(&a, 0, &wr, "fetch-add") &&
	    !expect_wc(a.scq, wr.wr_id, IBV_WC_FETCH_ADD, 0, 0, 0, 0, "fetch-add")) {
		check_u64(a.buf + ATOMIC_OFF, init, "fetch-add: the value returned");
		check_u64(b.buf + ATOMIC_OFF, init + 5, "fetch-add: the target");
	}
	result("atomic-fetch-add", "old value returned, target added to");

	wr.wr_id = a.next_id++;
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.compare_add = init + 5;
	wr.wr.atomic.swap = 0xfeedfacecafebeefull;
	if (!post(&a, 1, &wr, "cmp-swap") &&
	    !expect_wc(a.scq, wr.wr_id, IBV_WC_COMP_SWAP, 0, 0, 0, 0, "cmp-swap")) {
		check_u64(a.buf + ATOMIC_OFF, init + 5, "cmp-swap: the value returned");
		check_u64(b.buf + ATOMIC_OFF, 0xfeedfacecafebeefull, "cmp-swap: the target");
	}
	result("atomic-cmp-swap", "old value returned, target swapped");
}

/* B's INI QP 0 to A's SRQ 0: A's side as the responder. */
static void run_reverse(void)
{
	send_case(&b, &a, 0, 0, 4096, 0, 0, "reverse/send");
	result("reverse/send/4096", "peer's INI QP to the device's SRQ");
}

/* INI QPs 0 and 1 send in turn to SRQ 0: each message names its TGT QP. */
static void run_two_to_one(void)
{
	struct ibv_sge sge = { .addr = (uintptr_t)(a.buf + SEND_OFF), .length = 512,
			       .lkey = a.mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED, .qp_type.xrc.remote_srqn = b.srqn[0],
	};
	uint32_t seen[2] = { 0, 0 };
	struct ibv_wc wc;
	int i, n;

	make_data(&a, 512);
	for (i = 0; i < 8; i++)
		srq_post(&b, 0, 0);
	for (i = 0; i < 8 && !why[0]; i++) {
		wr.wr_id = a.next_id++;
		post(&a, i & 1, &wr, "two-to-one");
	}
	for (i = 0; i < 8 && !why[0]; i++) {
		n = cq_wait(b.rcq[0], &wc, 5000);
		if (n <= 0 || wc.status != IBV_WC_SUCCESS || wc.byte_len != 512) {
			whyf("receive %d: %s", i, n > 0 ? wc_str(&wc) : "none in 5 s");
			break;
		}
		if (wc.qp_num == b.tgt[0]->qp_num)
			seen[0]++;
		else if (wc.qp_num == b.tgt[1]->qp_num)
			seen[1]++;
		else
			whyf("receive %d: qp_num %#x is no TGT QP of the pair", i, wc.qp_num);
	}
	for (i = 0; i < 8 && !why[0]; i++)
		if (cq_wait(a.scq, &wc, 5000) <= 0 || wc.status != IBV_WC_SUCCESS)
			whyf("send completion %d: %s", i, wc_str(&wc));
	if (!why[0] && (seen[0] != 4 || seen[1] != 4))
		whyf("receives per TGT QP: %u and %u, want 4 and 4", seen[0], seen[1]);
	check_bytes(b.buf + RECV_OFF(0), want, 512, "two-to-one");
	result("two-ini-one-srq", "4 + 4 receives, each naming its TGT QP");
}

/*
 * One ibv_wr_* batch on the extended INI QP: SEND to SRQ 0, SEND with
 * immediate to SRQ 1, inline SEND, RDMA WRITE, RDMA READ, fetch-and-add;
 * one ibv_wr_complete().
 */
static void run_wr_api(void)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(a.ini[EX]);
	uint8_t inl[48], wdata[1024];
	uint64_t rid[3], base = a.next_id, init = 40, got;
	uint32_t tq = b.tgt[EX]->qp_num;
	int err, i;

	a.next_id += 6;
	make_data(&a, 2048);
	pattern_fill(inl, sizeof(inl), seed++);
	pattern_fill(wdata, sizeof(wdata), seed++);
	memcpy(a.buf + SEND_OFF + 4096, wdata, sizeof(wdata));
	memcpy(b.buf + ATOMIC_OFF, &init, 8);
	memset(b.buf + RDMA_OFF, 0, 8192);
	pattern_fill(b.buf + RDMA_OFF + 4096, 1024, 4242);
	rid[0] = srq_post(&b, 0, 0);
	rid[1] = srq_post(&b, 1, 0);
	if (why[0])
		goto out;

	ibv_wr_start(qpx);
	qpx->wr_id = base;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_xrc_srqn(qpx, b.srqn[0]);
	ibv_wr_set_sge(qpx, a.mr->lkey, (uintptr_t)(a.buf + SEND_OFF), 2048);
	qpx->wr_id = base + 1;
	ibv_wr_send_imm(qpx, htonl(0xabcd0001));
	ibv_wr_set_xrc_srqn(qpx, b.srqn[1]);
	ibv_wr_set_sge(qpx, a.mr->lkey, (uintptr_t)(a.buf + SEND_OFF), 16);
	qpx->wr_id = base + 2;
	ibv_wr_rdma_write(qpx, b.mr->rkey, (uintptr_t)(b.buf + RDMA_OFF));
	ibv_wr_set_xrc_srqn(qpx, b.srqn[0]);
	ibv_wr_set_sge(qpx, a.mr->lkey, (uintptr_t)(a.buf + SEND_OFF + 4096), 1024);
	qpx->wr_id = base + 3;
	ibv_wr_rdma_read(qpx, b.mr->rkey, (uintptr_t)(b.buf + RDMA_OFF + 4096));
	ibv_wr_set_xrc_srqn(qpx, b.srqn[1]);
	ibv_wr_set_sge(qpx, a.mr->lkey, (uintptr_t)(a.buf + RDMA_OFF + 4096), 1024);
	qpx->wr_id = base + 4;
	ibv_wr_atomic_fetch_add(qpx, b.mr->rkey, (uintptr_t)(b.buf + ATOMIC_OFF), 2);
	ibv_wr_set_xrc_srqn(qpx, b.srqn[0]);
	ibv_wr_set_sge(qpx, a.mr->lkey, (uintptr_t)(a.buf + ATOMIC_OFF), 8);
	err = ibv_wr_complete(qpx);
	if (err) {
		whyf("ibv_wr_complete: %s", strerror(err));
		goto out;
	}
	/* an inline send in a batch of its own, the bytes reused at once */
	ibv_wr_start(qpx);
	qpx->wr_id = base + 5;
	ibv_wr_send(qpx);
	ibv_wr_set_xrc_srqn(qpx, b.srqn[0]);
	ibv_wr_set_inline_data(qpx, inl, sizeof(inl));
	rid[2] = srq_post(&b, 0, 1);
	err = ibv_wr_complete(qpx);
	if (err) {
		whyf("ibv_wr_complete (inline): %s", strerror(err));
		goto out;
	}
	for (i = 0; i < 6 && !why[0]; i++) {
		static const enum ibv_wc_opcode op[] = {
			IBV_WC_SEND, IBV_WC_SEND, IBV_WC_RDMA_WRITE, IBV_WC_RDMA_READ,
			IBV_WC_FETCH_ADD, IBV_WC_SEND,
		};

		expect_wc(a.scq, base + i, op[i], 0, 0, 0, 0, "the INI QP's completions");
	}
	if (why[0])
		goto out;
	if (!expect_wc(b.rcq[0], rid[0], IBV_WC_RECV, 2048, tq, 0, 0, "send to SRQ 0"))
		check_bytes(b.buf + RECV_OFF(0), want, 2048, "send to SRQ 0");
	if (!expect_wc(b.rcq[1], rid[1], IBV_WC_RECV, 16, tq, IBV_WC_WITH_IMM, 0xabcd0001,
		       "send with immediate to SRQ 1"))
		check_bytes(b.buf + RECV_OFF(1), want, 16, "send with immediate to SRQ 1");
	if (!expect_wc(b.rcq[0], rid[2], IBV_WC_RECV, sizeof(inl), tq, 0, 0, "inline send"))
		check_bytes(b.buf + RECV_OFF(0) + RECV_SLOT, inl, sizeof(inl), "inline send");
	check_bytes(b.buf + RDMA_OFF, wdata, sizeof(wdata), "RDMA WRITE");
	pattern_fill(wdata, sizeof(wdata), 4242);
	check_bytes(a.buf + RDMA_OFF + 4096, wdata, sizeof(wdata), "RDMA READ");
	memcpy(&got, a.buf + ATOMIC_OFF, 8);
	if (got != init)
		whyf("fetch-and-add returned %llu, want %llu", (unsigned long long)got,
		     (unsigned long long)init);
	check_u64(b.buf + ATOMIC_OFF, init + 2, "fetch-and-add target");
out:
	result("wr-api/batch", "send, send-imm, write, read, fetch-add, inline send; ibv_wr_set_xrc_srqn");
}

/*
 * A second context of B's device (another uverbs file, as another process
 * has) opens B's domain through the same file: an SRQ it creates there is
 * reached through the first context's TGT QP 0; it opens that TGT QP
 * (ibv_open_qp) and queries it; the opened handle goes, the QP stays.
 */
static void run_shared_domain(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_srq *srq = NULL;
	struct ibv_xrcd *xrcd = NULL;
	struct ibv_mr *mr = NULL;
	struct ibv_qp *oqp = NULL;
	uint8_t *buf = alloc_buf(8192);
	uint32_t srqn = 0;
	struct ibv_qp_open_attr oa = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			     IBV_QP_OPEN_ATTR_TYPE,
		.qp_num = b.tgt[0]->qp_num, .qp_type = IBV_QPT_XRC_RECV,
	};
	struct ibv_qp_init_attr qia;
	struct ibv_qp_attr qa;
	int fd = open(b.path, O_RDONLY), i, err;

	for (i = 0; list && list[i]; i++)
		if (!ctx && !strcmp(ibv_get_device_name(list[i]),
				    ibv_get_device_name(b.d.ctx->device)))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (fd < 0 || !ctx) {
		whyf("second context: open %s / ibv_open_device: %s", b.path, strerror(errno));
		goto out;
	}
	xrcd = xrcd_open(ctx, fd);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!xrcd || !pd || !cq) {
		whyf("second context: ibv_open_xrcd/alloc_pd/create_cq: %s", strerror(errno));
		goto out;
	}
	srq = xsrq_create(ctx, pd, xrcd, cq, &srqn);
	mr = reg_mr(pd, buf, 8192, IBV_ACCESS_LOCAL_WRITE);
	if (srqn == b.srqn[0] || srqn == b.srqn[1])
		whyf("the second context's SRQ has number %#x, as one of the first's", srqn);
	oa.xrcd = xrcd;
	oqp = ibv_open_qp(ctx, &oa);
	if (!oqp) {
		whyf("ibv_open_qp of TGT QP %#x: %s", oa.qp_num, strerror(errno));
		goto out;
	}
	err = ibv_query_qp(oqp, &qa, IBV_QP_STATE, &qia);
	if (err || qa.qp_state != IBV_QPS_RTS || oqp->qp_num != b.tgt[0]->qp_num)
		whyf("ibv_query_qp of the opened QP: %s, state %d, qp_num %#x",
		     strerror(err), qa.qp_state, oqp->qp_num);
	for (i = 0; i < 2 && !why[0]; i++) {
		struct ibv_sge rs = { .addr = (uintptr_t)buf, .length = 8192, .lkey = mr->lkey };
		struct ibv_recv_wr rwr = { .wr_id = 900 + i, .sg_list = &rs, .num_sge = 1 }, *rbad;
		struct ibv_sge ss = { .addr = (uintptr_t)(a.buf + SEND_OFF), .length = 3000,
				      .lkey = a.mr->lkey };
		struct ibv_send_wr swr = {
			.wr_id = a.next_id++, .sg_list = &ss, .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
			.qp_type.xrc.remote_srqn = srqn,
		};

		/* the second round after the opened handle is gone */
		if (i == 1 && (err = ibv_destroy_qp(oqp)) != 0) {
			whyf("ibv_destroy_qp of the opened QP: %s", strerror(err));
			break;
		}
		if (i == 1)
			oqp = NULL;
		make_data(&a, 3000);
		memset(buf, 0, 8192);
		err = ibv_post_srq_recv(srq, &rwr, &rbad);
		if (err) {
			whyf("ibv_post_srq_recv: %s", strerror(err));
			break;
		}
		if (post(&a, 0, &swr, "send to the shared domain's SRQ") ||
		    expect_wc(a.scq, swr.wr_id, IBV_WC_SEND, 0, 0, 0, 0, "the send") ||
		    expect_wc(cq, rwr.wr_id, IBV_WC_RECV, 3000, b.tgt[0]->qp_num, 0, 0,
			      "the second context's SRQ"))
			break;
		check_bytes(buf, want, 3000, "the second context's receive");
	}
	expect_none(b.rcq[0], "the first context's SRQ 0");
out:
	if (oqp)
		ibv_destroy_qp(oqp);
	if (srq)
		ibv_destroy_srq(srq);
	if (mr)
		ibv_dereg_mr(mr);
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	if (xrcd && (err = ibv_close_xrcd(xrcd)) != 0)
		whyf("ibv_close_xrcd of the second context: %s", strerror(err));
	if (ctx)
		ibv_close_device(ctx);
	if (fd >= 0)
		close(fd);
	free(buf);
	result("shared-domain/second-context", "its SRQ reached through the first's TGT QP; ibv_open_qp, query, destroy");
}

/*
 * ibv_query_srq/ibv_modify_srq on an XRC SRQ, as on a basic one: armed
 * with a limit of 6 over 8 WQEs, three messages through the TGT QP take it
 * below: one IBV_EVENT_SRQ_LIMIT_REACHED for that SRQ (IBTA 10.2.9.3,
 * 11.6.3.3), and the limit reads 0 again (disarmed).
 */
static void run_srq_limit(void)
{
	struct pollfd pfd = { .fd = b.d.ctx->async_fd, .events = POLLIN };
	struct ibv_srq_attr sa = { .srq_limit = 6 };
	struct ibv_async_event ev;
	uint64_t end;
	int i, fl, err, got = 0, left;

	err = ibv_query_srq(b.srq[0], &sa);
	if (err || sa.max_wr < SRQ_DEPTH || sa.srq_limit)
		whyf("ibv_query_srq: %s, max_wr %u limit %u", strerror(err), sa.max_wr,
		     sa.srq_limit);
	for (i = 0; i < 8 && !why[0]; i++)
		srq_post(&b, 0, 0);
	sa.srq_limit = 6;
	if (!why[0] && (err = ibv_modify_srq(b.srq[0], &sa, IBV_SRQ_LIMIT)) != 0)
		whyf("ibv_modify_srq(IBV_SRQ_LIMIT 6): %s", strerror(err));
	for (i = 0; i < 3 && !why[0]; i++) {
		struct ibv_sge sge = { .addr = (uintptr_t)(a.buf + SEND_OFF), .length = 100,
				       .lkey = a.mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = a.next_id++, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
			.qp_type.xrc.remote_srqn = b.srqn[0],
		};

		if (!post(&a, 0, &wr, "send"))
			expect_wc(a.scq, wr.wr_id, IBV_WC_SEND, 0, 0, 0, 0, "send");
	}
	fl = fcntl(pfd.fd, F_GETFL);
	fcntl(pfd.fd, F_SETFL, fl | O_NONBLOCK);
	for (end = now_ms() + 2000; !why[0] && now_ms() < end && !got;) {
		if (poll(&pfd, 1, 100) <= 0 || ibv_get_async_event(b.d.ctx, &ev))
			continue;
		if (ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED && ev.element.srq == b.srq[0])
			got++;
		ibv_ack_async_event(&ev);
	}
	fcntl(pfd.fd, F_SETFL, fl);
	if (!why[0] && !got)
		whyf("no IBV_EVENT_SRQ_LIMIT_REACHED for the XRC SRQ within 2 s");
	if (!why[0] && (err = ibv_query_srq(b.srq[0], &sa)) == 0 && sa.srq_limit)
		whyf("the limit reads %u after the event, want 0 (disarmed)", sa.srq_limit);
	/* take the three receives, leave five posted */
	for (left = 3; left && !why[0]; left--) {
		struct ibv_wc wc;

		if (cq_wait(b.rcq[0], &wc, 5000) <= 0 || wc.status != IBV_WC_SUCCESS)
			whyf("receive: %s", wc_str(&wc));
	}
	result("srq-limit-event", "query, modify IBV_SRQ_LIMIT, IBV_EVENT_SRQ_LIMIT_REACHED, disarmed");
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *dev2 = NULL;
	static const uint32_t sizes[] = { 1, 4096, 65536 };
	int gidx = 0, gidx2 = 0, c, i, k;

	prog_name = "xrc_verbs";
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt(argc, argv, "d:g:D:G:")) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'g': gidx = atoi(optarg); break;
		case 'D': dev2 = optarg; break;
		case 'G': gidx2 = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: xrc_verbs -d DEV -g GIDX -D DEV2 -G GIDX2\n");
			return 2;
		}
	}
	if (!dev || !dev2)
		die("-d DEV and -D DEV2 are required");
	side_open(&a, dev, gidx, 'a');
	side_open(&b, dev2, gidx2, 'b');
	if (b.srqn[0] == b.srqn[1])
		die("two XRC SRQs share the number %#x", b.srqn[0]);
	for (i = 0; i < NTGT; i++) {
		connect_pair(&a, &b, i);
		connect_pair(&b, &a, i);
	}
	seed = (uint64_t)getpid();
	printf("PASS setup (SRQ numbers %#x %#x on %s, %#x %#x on %s)\n", a.srqn[0],
	       a.srqn[1], dev, b.srqn[0], b.srqn[1], dev2);

	for (k = 0; k < NSRQ; k++)
		for (i = 0; i < 3; i++)
			run_send(k, sizes[i], 0, 0);
	run_send(1, 1000, 1, 0);
	run_send(0, 60, 0, 1);
	run_write(8192, 0);
	run_write(3000, 1);
	run_read(8192);
	run_atomics();
	run_reverse();
	run_two_to_one();
	run_wr_api();
	run_srq_limit();
	run_shared_domain();

	side_close(&a);
	side_close(&b);
	printf("TOTAL %d failed\n", nfail);
	return nfail ? 1 : 0;
}
