// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_prot: RC protection faults complete with the right status on both
 * sides, leave memory untouched and move the right QPs to the error state.
 *
 *   rdma_prot -s -d DEV -g GIDX [-p PORT]                  (server, responder)
 *   rdma_prot -c SERVER -d DEV -g GIDX [-p PORT] [-t CASE[,CASE...]]
 *   rdma_prot -L                                           (list the cases)
 *
 * For every case both ends create a fresh CQ and RC QP (the previous pair
 * usually ended in the error state). The server registers, in PD1 unless
 * the case says otherwise, a "main" MR of L = 6000 bytes that starts and ends
 * inside pages (so an off-by-one past its end stays in the same page) with
 * registered MRs directly below and above it (so an access that escapes the
 * bounds check lands in valid memory, where the background check sees it),
 * posts two receives (#1 of recv_len bytes, #2 of 4096 bytes) and sends the
 * client rkey/VA/L of main. The client then posts the tested work request
 * followed by an 8-byte SEND ("follow-up") and checks:
 *   - CQE 1 status (and opcode on success), CQE 2 SUCCESS after a success,
 *     else IBV_WC_WR_FLUSH_ERR (a QP that completed a WQE in error is in
 *     the error state; the WQEs after it complete as flushed);
 *   - its QP state: ERR after an error completion, else RTS;
 *   - its READ target buffer: the data on success, else untouched;
 * and the server (on CHECK) checks:
 *   - its QP state: ERR after a responder class C fault (NAK Remote Access
 *     Error / Invalid Request: IBTA vol. 1 9.7.5.1.2 and the responder
 *     error classes of 9.9), else RTS; a responder in ERR must not execute
 *     the follow-up SEND that the requester may already have sent;
 *   - its CQEs: receive #1/#2 completed with the expected status (flushed
 *     with IBV_WC_WR_FLUSH_ERR once the QP is in ERR), or still pending;
 *   - every byte of its target area (the three MRs and beyond) and receive
 *     buffers: data only where a successful operation put it.
 *
 * Expected statuses (IBTA vol. 1 9.7.5.1.2 NAK codes, 10.6.3 memory
 * protection checks, chapter 11 completion statuses; rdma_rxe 6.1, run
 * against sroce with this program, agrees unless noted):
 *   R_Key unknown / stale / of another PD, VA range outside the MR (also
 *   wrapping past 2^64), MR lacking REMOTE_WRITE / REMOTE_READ, deregistered
 *   MR -> NAK Remote Access Error: requester IBV_WC_REM_ACCESS_ERR, responder
 *   QP -> ERR, no receive consumed (both get flushed), memory untouched. The
 *   RETH carries the whole DMA length, so a multi-packet WRITE that would
 *   overrun is refused on its first packet: nothing of it may be written.
 *   Zero-length RDMA WRITE / READ with a bad R_Key -> SUCCESS: C9-88, the
 *   R_Key of a zero-length RDMA operation is not validated.
 *   Bad lkey, lkey of another PD, SGE past the end of its MR, READ into an
 *   MR without LOCAL_WRITE -> requester IBV_WC_LOC_PROT_ERR; the responder
 *   sees nothing wrong (stays RTS, receives not completed). (rdma_rxe 6.1
 *   as requester reports a bad lkey as IBV_WC_LOC_QP_OP_ERR.)
 *   SEND larger than the receive buffer -> responder NAK Invalid Request:
 *   receiver IBV_WC_LOC_LEN_ERR (the verbs' Local Length Error: a receive
 *   WQE too small for the incoming message), sender
 *   IBV_WC_REM_INV_REQ_ERR, responder QP -> ERR, nothing past the receive
 *   buffer written. (rdma_rxe 6.1 as responder completes the receive with
 *   IBV_WC_LOC_QP_OP_ERR and NAKs Remote Operational Error, so its
 *   requester sees IBV_WC_REM_OP_ERR; we assert the IBTA statuses.)
 *   SEND with Invalidate naming an MR registered by its owner (the receive
 *   buffer's, local write only, or main, with remote access): a peer may
 *   invalidate only fast-register MRs and type 2 memory windows (IBTA
 *   10.6.7; rdma_rxe refuses other MR types too), so the responder NAKs
 *   Invalid Request: sender IBV_WC_REM_INV_REQ_ERR, receive #1
 *   IBV_WC_REM_INV_REQ_ERR (the status rdma_rxe gives it), responder QP ->
 *   ERR. Then both ends connect a second QP pair and the named MR must
 *   still work: a SEND into a receive on the receive buffer's MR, or an
 *   RDMA WRITE into main, completes and the bytes arrive.
 *
 * Output: `PASS case` or `FAIL case: why` per case; exit 0 if all passed.
 */
#include "rdma_common.h"

#define L_MAIN		6000u		/* main MR length */
#define MAIN_OFF	(4096u + 64)	/* main MR offset in T: mid-page */
#define T_SIZE		(5 * 4096u)	/* below | main | above | unregistered */
#define ABOVE_LEN	4096u
#define RBUF_SIZE	16384u		/* receive #1 at 0, #2 at 8192 */
#define RECV2_OFF	8192u
#define RECV2_LEN	4096u
#define C_SIZE		32768u		/* client: source 0.., READ target.. */
#define C_DST		8192u
#define C_FOLLOW	28672u		/* follow-up SEND payload */
#define FOLLOW_LEN	8u
#define NONE		(-1)		/* no CQE expected for that receive */
#define WAIT_MS		10000

enum op { OP_WRITE, OP_READ, OP_SEND };
enum srv_mode { SM_NORMAL, SM_PD2, SM_DEREG, SM_REREG, SM_SMALL_IOVA };
enum va_mode { VA_START, VA_END, VA_BEFORE, VA_NEAR_END, VA_WRAP };
enum lk_mode { LK_OK, LK_BAD, LK_PD2, LK_PAST_END, LK_NO_LOCAL_WRITE, LK_SECOND_BAD };
enum inv_mode { INV_NONE, INV_RMR, INV_MAIN };	/* MR a SEND with Invalidate names */

struct pcase {
	const char *name;
	enum op op;
	uint32_t len;
	enum va_mode va;
	uint32_t rkey_xor;
	enum lk_mode lk;
	int access;		/* main MR access; 0 = RC_ACCESS */
	enum srv_mode sm;
	uint32_t recv_len;	/* receive #1 bytes; 0 = 4096 */
	int cli;		/* client CQE status of the tested WR */
	int rq[2];		/* server receive #1, #2: status or NONE */
	int srv_err;		/* server QP must end in ERR (else RTS) */
	int no_follow;		/* no follow-up SEND (see the case) */
	enum inv_mode inv;	/* OP_SEND with Invalidate of this MR, then reuse it */
};

#define S_OK IBV_WC_SUCCESS
#define FLUSH IBV_WC_WR_FLUSH_ERR
#define RAE IBV_WC_REM_ACCESS_ERR
#define LPE IBV_WC_LOC_PROT_ERR
#define RMT_FAULT .cli = RAE, .rq = { FLUSH, FLUSH }, .srv_err = 1
#define LOC_FAULT .cli = LPE, .rq = { NONE, NONE }, .srv_err = 0

static const struct pcase cases[] = {
	/* sanity: the same machinery without a fault */
	{ "baseline_write", OP_WRITE, 64, .cli = S_OK, .rq = { S_OK, NONE } },
	{ "baseline_read", OP_READ, 64, .cli = S_OK, .rq = { S_OK, NONE } },
	{ "baseline_send", OP_SEND, 64, .cli = S_OK, .rq = { S_OK, S_OK } },
	{ "baseline_write_small_iova", OP_WRITE, 64, .sm = SM_SMALL_IOVA, .cli = S_OK,
	  .rq = { S_OK, NONE } },
	/* R_Key checks */
	{ "write_bad_rkey_key", OP_WRITE, 64, .rkey_xor = 0xff, RMT_FAULT },
	{ "write_bad_rkey_index", OP_WRITE, 64, .rkey_xor = 0xffff00, RMT_FAULT },
	{ "read_bad_rkey", OP_READ, 64, .rkey_xor = 0xff, RMT_FAULT },
	{ "write_zero_len_bad_rkey", OP_WRITE, 0, .rkey_xor = 0xff, .cli = S_OK,
	  .rq = { S_OK, NONE } },
	{ "read_zero_len_bad_rkey", OP_READ, 0, .rkey_xor = 0xff, .cli = S_OK,
	  .rq = { S_OK, NONE } },
	/* bounds */
	{ "write_past_end", OP_WRITE, L_MAIN + 1, RMT_FAULT },
	{ "write_after_end", OP_WRITE, 1, .va = VA_END, RMT_FAULT },
	{ "write_before_start", OP_WRITE, 16, .va = VA_BEFORE, RMT_FAULT },
	{ "write_multi_packet_past_end", OP_WRITE, 4000, .va = VA_NEAR_END, RMT_FAULT },
	{ "read_past_end", OP_READ, L_MAIN + 1, RMT_FAULT },
	{ "write_va_wrap", OP_WRITE, 64, .va = VA_WRAP, RMT_FAULT },
	{ "write_va_wrap_small_iova", OP_WRITE, 64, .va = VA_WRAP, .sm = SM_SMALL_IOVA, RMT_FAULT },
	{ "read_va_wrap_small_iova", OP_READ, 64, .va = VA_WRAP, .sm = SM_SMALL_IOVA, RMT_FAULT },
	/* access rights */
	{ "read_no_remote_read", OP_READ, 64,
	  .access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, RMT_FAULT },
	{ "write_no_remote_write", OP_WRITE, 64, .access = IBV_ACCESS_REMOTE_READ,
	  RMT_FAULT },
	/* MR lifetime and PD */
	{ "write_deregistered", OP_WRITE, 64, .sm = SM_DEREG, RMT_FAULT },
	{ "read_deregistered", OP_READ, 64, .sm = SM_DEREG, RMT_FAULT },
	{ "write_stale_rkey_reregistered", OP_WRITE, 64, .sm = SM_REREG, RMT_FAULT },
	{ "write_other_pd", OP_WRITE, 64, .sm = SM_PD2, RMT_FAULT },
	{ "read_other_pd", OP_READ, 64, .sm = SM_PD2, RMT_FAULT },
	/* local protection */
	{ "send_bad_lkey", OP_SEND, 64, .lk = LK_BAD, LOC_FAULT },
	{ "send_other_pd_lkey", OP_SEND, 64, .lk = LK_PD2, LOC_FAULT },
	{ "send_sge_past_mr_end", OP_SEND, 64, .lk = LK_PAST_END, LOC_FAULT },
	{ "write_bad_lkey", OP_WRITE, 64, .lk = LK_BAD, LOC_FAULT },
	/* 3000 good bytes, then 64 under a bad lkey: the first packets may have
	 * gone out, but the responder must not complete the unfinished message
	 * (receive #1 may hold part of it) */
	{ "send_second_sge_bad_lkey", OP_SEND, 3064, .lk = LK_SECOND_BAD, LOC_FAULT },
	/* no follow-up: it may reach the responder before the READ response
	 * does, so whether it is received would depend on timing */
	{ "read_into_mr_without_local_write", OP_READ, 64, .lk = LK_NO_LOCAL_WRITE,
	  LOC_FAULT, .no_follow = 1 },
	/* receive buffer too small */
	{ "recv_too_small", OP_SEND, 200, .recv_len = 100, .cli = IBV_WC_REM_INV_REQ_ERR,
	  .rq = { IBV_WC_LOC_LEN_ERR, FLUSH }, .srv_err = 1 },
	{ "recv_too_small_multi_packet", OP_SEND, 3000, .recv_len = 2000,
	  .cli = IBV_WC_REM_INV_REQ_ERR, .rq = { IBV_WC_LOC_LEN_ERR, FLUSH }, .srv_err = 1 },
	/* a peer must not invalidate an MR registered by its owner */
	{ "send_inv_local_only_mr", OP_SEND, 64, .inv = INV_RMR, .cli = IBV_WC_REM_INV_REQ_ERR,
	  .rq = { IBV_WC_REM_INV_REQ_ERR, FLUSH }, .srv_err = 1 },
	{ "send_inv_remote_access_mr", OP_SEND, 64, .inv = INV_MAIN, .cli = IBV_WC_REM_INV_REQ_ERR,
	  .rq = { IBV_WC_REM_INV_REQ_ERR, FLUSH }, .srv_err = 1 },
};

#define NCASES ((int)(sizeof(cases) / sizeof(cases[0])))

enum { CMD_CASE = 1, CMD_CHECK, CMD_BYE, CMD_REUSE, CMD_REUSE_CHECK };

#define REUSE_LEN	64u		/* bytes the reuse check moves */
#define REUSE_WR	3u		/* wr_id of its receive */

static const uint8_t follow_data[FOLLOW_LEN] = "followup";

static uint32_t recv1_len(const struct pcase *pc)
{
	return pc->recv_len ? pc->recv_len : 4096;
}

/* The pattern of case @i (both ends derive the same bytes). */
static uint64_t case_seed(int i)
{
	return 0x70c0ffee00ULL + (uint64_t)i;
}

/* Appends "; what" to @why. */
static __attribute__((format(printf, 3, 4)))
void addwhy(char *why, size_t wn, const char *fmt, ...)
{
	size_t n = strlen(why);
	va_list ap;

	if (n && n + 2 < wn) {
		strcpy(why + n, "; ");
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(why + n, wn - n, fmt, ap);
	va_end(ap);
}

/* Compares @buf with @exp; on a difference adds what and where to @why. */
static void mem_check(const uint8_t *buf, const uint8_t *exp, size_t n, const char *name,
		      char *why, size_t wn)
{
	long d = first_diff(buf, exp, n);
	size_t i, cnt = 0;

	if (d < 0)
		return;
	for (i = (size_t)d; i < n; i++)
		cnt += buf[i] != exp[i];
	addwhy(why, wn, "%s byte %ld changed (%#04x, expected %#04x; %zu bytes differ)",
	       name, d, buf[d], exp[d], cnt);
}

/* Checks the next CQE: wr_id @id, status @st (and, on success, RECV with
 * @len bytes if @len >= 0). Adds to @why. */
static void expect_wc(struct ibv_cq *cq, uint64_t id, int st, int64_t len, const char *who,
		      char *why, size_t wn)
{
	struct ibv_wc wc;
	int n = cq_wait(cq, &wc, WAIT_MS);

	if (n <= 0) {
		addwhy(why, wn, "%s: no CQE for wr_id %llu (expected %s) within %d s", who,
		       (unsigned long long)id, ibv_wc_status_str(st), WAIT_MS / 1000);
		return;
	}
	if (wc.wr_id != id || (int)wc.status != st ||
	    (st == IBV_WC_SUCCESS && len >= 0 &&
	     (wc.opcode != IBV_WC_RECV || wc.byte_len != (uint64_t)len)))
		addwhy(why, wn, "%s: CQE %s, expected wr_id %llu %s%s", who, wc_str(&wc),
		       (unsigned long long)id, ibv_wc_status_str(st),
		       st == IBV_WC_SUCCESS && len >= 0 ? " RECV" : "");
}

/* After @ms, no (further) CQE may be on @cq. */
static void expect_no_wc(struct ibv_cq *cq, int ms, const char *who, char *why, size_t wn)
{
	struct ibv_wc wc;

	if (cq_wait(cq, &wc, ms) != 0)
		addwhy(why, wn, "%s: unexpected CQE %s", who, wc_str(&wc));
}

/* The QP must reach ERR (within 5 s), or still be RTS after the wait. */
static void expect_qp(struct ibv_qp *qp, int err, const char *who, char *why, size_t wn)
{
	int st = err ? qp_wait_state(qp, IBV_QPS_ERR, 5000) : qp_state(qp);

	if (st != (err ? IBV_QPS_ERR : IBV_QPS_RTS))
		addwhy(why, wn, "%s QP state %s, expected %s", who, qp_state_str(st),
		       err ? "ERR" : "RTS");
}

/* ------------------------------------------------------------------ */
/* Server                                                              */
/* ------------------------------------------------------------------ */

struct server {
	struct rdev d;
	struct ibv_pd *pd2;
	uint8_t *t, *tbg, *texp, *r, *rbg, *rexp;
	/* per case */
	struct ibv_cq *cq;
	struct ibv_qp *qp, *qp2;
	struct ibv_mr *below, *main, *above, *rmr;
	int setup_failed;	/* READY said why: nothing to check */
};

static void server_teardown(struct server *sv)
{
	struct ibv_mr **mrs[] = { &sv->below, &sv->main, &sv->above, &sv->rmr };
	size_t i;

	if (sv->qp2 && ibv_destroy_qp(sv->qp2))
		die("server: ibv_destroy_qp: %s", strerror(errno));
	if (sv->qp && ibv_destroy_qp(sv->qp))
		die("server: ibv_destroy_qp: %s", strerror(errno));
	if (sv->cq && ibv_destroy_cq(sv->cq))
		die("server: ibv_destroy_cq: %s", strerror(errno));
	for (i = 0; i < sizeof(mrs) / sizeof(mrs[0]); i++)
		if (*mrs[i] && ibv_dereg_mr(*mrs[i]))
			die("server: ibv_dereg_mr: %s", strerror(errno));
	sv->qp = sv->qp2 = NULL;
	sv->cq = NULL;
	sv->below = sv->main = sv->above = sv->rmr = NULL;
}

/*
 * The main MR; SM_SMALL_IOVA registers it at IOVA MAIN_OFF % 4096 (64:
 * uverbs wants the IOVA's page offset to match the address), so that
 * VA UINT64_MAX - 15 + 64 bytes wraps to inside [64, 64 + L_MAIN).
 */
static struct ibv_mr *server_main_mr(struct server *sv, const struct pcase *pc,
				     struct ctl *a)
{
	struct ibv_pd *pd = pc->sm == SM_PD2 ? sv->pd2 : sv->d.pd;
	int access = pc->access ? pc->access : RC_ACCESS;
	struct ibv_mr *mr;

	if (pc->sm == SM_SMALL_IOVA)
		mr = ibv_reg_mr_iova(pd, sv->t + MAIN_OFF, L_MAIN, MAIN_OFF % 4096, access);
	else
		mr = ibv_reg_mr(pd, sv->t + MAIN_OFF, L_MAIN, access);
	if (!mr) {
		a->status = 1;
		snprintf(a->text, sizeof(a->text), "server: ibv_reg_mr%s(access %#x): %s",
			 pc->sm == SM_SMALL_IOVA ? "_iova" : "", access, strerror(errno));
	}
	return mr;
}

static void post_recv(struct ibv_qp *qp, uint64_t id, void *addr, uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = { (uintptr_t)addr, len, lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 }, *bad;
	int err = ibv_post_recv(qp, &wr, &bad);

	if (err)
		die("ibv_post_recv: %s", strerror(err));
}

/* CASE: set up QP and MRs for case @i, connect to @peer, answer READY. */
static void server_case(struct server *sv, int i, const struct ctl *peer, struct ctl *a)
{
	const struct pcase *pc = &cases[i];
	uint32_t psn, rkey;

	sv->cq = ibv_create_cq(sv->d.ctx, 64, NULL, NULL, 0);
	if (!sv->cq)
		die("ibv_create_cq: %s", strerror(errno));
	sv->qp = qp_create(&sv->d, sv->d.pd, sv->cq, 1, &psn);
	memcpy(sv->t, sv->tbg, T_SIZE);
	memcpy(sv->r, sv->rbg, RBUF_SIZE);
	if (pc->op == OP_READ)		/* data a wrong READ would leak */
		pattern_fill(sv->t + MAIN_OFF, L_MAIN, case_seed(i));
	sv->below = reg_mr(sv->d.pd, sv->t, MAIN_OFF, RC_ACCESS);
	sv->main = server_main_mr(sv, pc, a);
	sv->above = reg_mr(sv->d.pd, sv->t + MAIN_OFF + L_MAIN, ABOVE_LEN, RC_ACCESS);
	sv->rmr = reg_mr(sv->d.pd, sv->r, RBUF_SIZE, IBV_ACCESS_LOCAL_WRITE);
	rkey = sv->main ? sv->main->rkey : 0;
	if (sv->main && (pc->sm == SM_DEREG || pc->sm == SM_REREG)) {
		if (ibv_dereg_mr(sv->main))
			die("ibv_dereg_mr: %s", strerror(errno));
		sv->main = NULL;
	}
	if (pc->sm == SM_REREG && !a->status) {
		sv->main = server_main_mr(sv, pc, a);
		if (sv->main && sv->main->rkey == rkey) {
			a->status = 1;
			snprintf(a->text, sizeof(a->text),
				 "server: re-registering the same memory returned the same rkey %#x: a stale rkey reaches the new MR",
				 rkey);
		}
	}
	post_recv(sv->qp, 1, sv->r, recv1_len(pc), sv->rmr->lkey);
	post_recv(sv->qp, 2, sv->r + RECV2_OFF, RECV2_LEN, sv->rmr->lkey);
	if (qp_connect(&sv->d, sv->qp, psn, peer))
		die("server: QP to RTR/RTS: %s", strerror(errno));
	ctl_put_qp(a, &sv->d, sv->qp, psn);
	a->rkey = pc->inv == INV_RMR ? sv->rmr->rkey : rkey;
	a->addr = pc->sm == SM_SMALL_IOVA ? MAIN_OFF % 4096 : (uintptr_t)sv->t + MAIN_OFF;
	a->len = L_MAIN;
	sv->setup_failed = (int)a->status;
}

/* CHECK: QP state, receive CQEs and memory of case @i; problems in @why. */
static void server_check(struct server *sv, int i, char *why, size_t wn)
{
	const struct pcase *pc = &cases[i];
	int k, wrote = pc->op == OP_WRITE && pc->cli == S_OK && pc->len;
	uint32_t rlen[2] = { recv1_len(pc), RECV2_LEN }, off[2] = { 0, RECV2_OFF };
	int follow_in = pc->op == OP_SEND ? 1 : 0;	/* receive taking the follow-up */

	if (sv->setup_failed)
		return;
	if (pc->srv_err)
		expect_qp(sv->qp, 1, "server", why, wn);
	/* expected image of T: background, main MR data for READ / WRITE */
	memcpy(sv->texp, sv->tbg, T_SIZE);
	if (pc->op == OP_READ)
		pattern_fill(sv->texp + MAIN_OFF, L_MAIN, case_seed(i));
	if (wrote)
		pattern_fill(sv->texp + MAIN_OFF, pc->len, case_seed(i));
	/* expected receive buffers and CQEs */
	memcpy(sv->rexp, sv->rbg, RBUF_SIZE);
	for (k = 0; k < 2; k++) {
		int64_t len = k == follow_in ? FOLLOW_LEN : pc->len;

		if (pc->rq[k] == NONE)
			continue;
		expect_wc(sv->cq, (uint64_t)k + 1, pc->rq[k], len, "server receive", why, wn);
		if (pc->rq[k] == S_OK && k == follow_in)
			memcpy(sv->rexp + off[k], follow_data, FOLLOW_LEN);
		else if (pc->rq[k] == S_OK)
			pattern_fill(sv->rexp + off[k], pc->len, case_seed(i));
		else if (pc->rq[k] == IBV_WC_LOC_LEN_ERR ||	/* contents undefined */
			 pc->rq[k] == IBV_WC_REM_INV_REQ_ERR)
			memcpy(sv->rexp + off[k], sv->r + off[k], rlen[k]);
	}
	expect_no_wc(sv->cq, 300, "server", why, wn);
	if (!pc->srv_err)
		expect_qp(sv->qp, 0, "server", why, wn);
	/* receive #1 may hold the start of the message: packets sent before
	 * the requester met the bad SGE (they may still have been arriving
	 * when the client asked for this check, hence after the wait) */
	if (pc->lk == LK_SECOND_BAD)
		memcpy(sv->rexp, sv->r, recv1_len(pc));
	mem_check(sv->t, sv->texp, T_SIZE, "server target area", why, wn);
	mem_check(sv->r, sv->rexp, RBUF_SIZE, "server receive buffers", why, wn);
}

/*
 * REUSE: a second QP towards the client's in @peer; for INV_RMR a receive
 * (wr_id REUSE_WR) at the start of the receive buffer's MR.
 */
static void server_reuse(struct server *sv, int i, const struct ctl *peer, struct ctl *a)
{
	uint32_t psn;

	memcpy(sv->r, sv->rbg, RBUF_SIZE);
	memcpy(sv->t, sv->tbg, T_SIZE);
	sv->qp2 = qp_create(&sv->d, sv->d.pd, sv->cq, 1, &psn);
	if (cases[i].inv == INV_RMR)
		post_recv(sv->qp2, REUSE_WR, sv->r, RECV2_LEN, sv->rmr->lkey);
	if (qp_connect(&sv->d, sv->qp2, psn, peer))
		die("server: second QP to RTR/RTS: %s", strerror(errno));
	ctl_put_qp(a, &sv->d, sv->qp2, psn);
	a->rkey = sv->main ? sv->main->rkey : 0;
	a->addr = (uintptr_t)sv->t + MAIN_OFF;
}

/* REUSE_CHECK: the bytes of the SEND or WRITE arrived, nothing else moved. */
static void server_reuse_check(struct server *sv, int i, char *why, size_t wn)
{
	uint8_t *buf = cases[i].inv == INV_RMR ? sv->r : sv->t;
	uint8_t *exp = cases[i].inv == INV_RMR ? sv->rexp : sv->texp;
	size_t n = cases[i].inv == INV_RMR ? RBUF_SIZE : T_SIZE;
	uint32_t off = cases[i].inv == INV_RMR ? 0 : MAIN_OFF;

	memcpy(exp, cases[i].inv == INV_RMR ? sv->rbg : sv->tbg, n);
	pattern_fill(exp + off, REUSE_LEN, case_seed(i) ^ 0x5e);
	if (cases[i].inv == INV_RMR)
		expect_wc(sv->cq, REUSE_WR, S_OK, REUSE_LEN, "server reuse receive", why, wn);
	expect_no_wc(sv->cq, 100, "server reuse", why, wn);
	expect_qp(sv->qp2, 0, "server second", why, wn);
	mem_check(buf, exp, n, "server reused MR", why, wn);
}

static int run_server(const struct opts *o)
{
	struct server sv = { 0 };
	struct ctl m, a;
	int fd, i;

	fd = tcp_accept(tcp_listen(o->port));
	rdev_open(&sv.d, o->dev, o->gid_index);
	sv.pd2 = ibv_alloc_pd(sv.d.ctx);
	if (!sv.pd2)
		die("ibv_alloc_pd: %s", strerror(errno));
	sv.t = alloc_buf(T_SIZE);
	sv.tbg = alloc_buf(T_SIZE);
	sv.texp = alloc_buf(T_SIZE);
	sv.r = alloc_buf(RBUF_SIZE);
	sv.rbg = alloc_buf(RBUF_SIZE);
	sv.rexp = alloc_buf(RBUF_SIZE);
	random_fill(sv.tbg, T_SIZE, 0xbac6c0de);
	random_fill(sv.rbg, RBUF_SIZE, 0xbac6c0df);

	while (!ctl_recv(fd, &m)) {
		memset(&a, 0, sizeof(a));
		a.cmd = m.cmd;
		i = (int)m.arg[0];
		if (m.cmd == CMD_BYE)
			return 0;
		if (i < 0 || i >= NCASES)
			die("bad case number %d", i);
		if (m.cmd == CMD_CASE) {
			server_case(&sv, i, &m, &a);
		} else if (m.cmd == CMD_CHECK || m.cmd == CMD_REUSE_CHECK) {
			if (m.cmd == CMD_CHECK)
				server_check(&sv, i, a.text, sizeof(a.text));
			else
				server_reuse_check(&sv, i, a.text, sizeof(a.text));
			a.status = !!a.text[0];
			printf("server: %s: %s\n", cases[i].name, a.status ? a.text : "ok");
			if (!m.arg[1])	/* the client asks for a reuse check next */
				server_teardown(&sv);
		} else if (m.cmd == CMD_REUSE) {
			server_reuse(&sv, i, &m, &a);
		} else {
			die("unknown command %u", m.cmd);
		}
		if (ctl_send(fd, &a))
			break;
	}
	printf("server: client went away\n");
	return 1;
}

/* ------------------------------------------------------------------ */
/* Client                                                              */
/* ------------------------------------------------------------------ */

struct client {
	struct rdev d;
	struct ibv_pd *pd2;
	uint8_t *c, *cbg, *cexp;
	int fd;
};

/* Posts the tested WR (wr_id 1) and the follow-up SEND (wr_id 2). */
static int client_post(struct client *cl, const struct pcase *pc, struct ibv_qp *qp,
		       struct ibv_mr *mr, struct ibv_mr *lmr, const struct ctl *peer)
{
	struct ibv_sge sge[2] = {
		{ (uintptr_t)cl->c + (pc->op == OP_READ ? C_DST : 0), pc->len, lmr->lkey },
		{ (uintptr_t)cl->c + pc->len - 64, 64, lmr->lkey ^ 0xff },
	};
	struct ibv_sge fsge = { (uintptr_t)cl->c + C_FOLLOW, FOLLOW_LEN, mr->lkey };
	struct ibv_send_wr fwr = { .wr_id = 2, .sg_list = &fsge, .num_sge = 1,
				   .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr wr = { .wr_id = 1, .next = &fwr, .sg_list = sge, .num_sge = 1,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	static const enum ibv_wr_opcode wr_op[] = { IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ,
						    IBV_WR_SEND };
	uint64_t va = peer->addr;

	switch (pc->va) {
	case VA_START: break;
	case VA_END: va += peer->len; break;
	case VA_BEFORE: va -= pc->len / 2; break;
	case VA_NEAR_END: va += peer->len - pc->len / 2; break;
	case VA_WRAP: va = UINT64_MAX - 15; break;
	}
	if (pc->lk == LK_BAD)
		sge[0].lkey ^= 0xff;
	if (pc->lk == LK_PAST_END)	/* lmr covers [c, c + 4096) */
		sge[0].addr = (uintptr_t)cl->c + 4096 - pc->len / 2;
	if (pc->lk == LK_SECOND_BAD) {
		sge[0].length = pc->len - 64;
		wr.num_sge = 2;
	}
	if (pc->no_follow)
		wr.next = NULL;
	wr.opcode = wr_op[pc->op];
	if (pc->inv != INV_NONE) {
		wr.opcode = IBV_WR_SEND_WITH_INV;
		wr.invalidate_rkey = peer->rkey;
		return ibv_post_send(qp, &wr, &bad);
	}
	wr.wr.rdma.remote_addr = va;
	wr.wr.rdma.rkey = peer->rkey ^ pc->rkey_xor;
	return ibv_post_send(qp, &wr, &bad);
}

/*
 * After a SEND with Invalidate was refused: a second QP pair, then a SEND
 * into the receive buffer's MR (INV_RMR) or an RDMA WRITE into main must
 * complete, and the server must find the bytes (REUSE_CHECK).
 */
static void client_reuse(struct client *cl, int i, struct ibv_cq *cq, struct ibv_mr *mr,
			 char *why, size_t wn)
{
	const struct pcase *pc = &cases[i];
	struct ibv_sge sge = { (uintptr_t)cl->c, REUSE_LEN, mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 3, .sg_list = &sge, .num_sge = 1,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ctl m, peer;
	struct ibv_qp *qp;
	uint32_t psn;
	int err;

	pattern_fill(cl->c, REUSE_LEN, case_seed(i) ^ 0x5e);
	qp = qp_create(&cl->d, cl->d.pd, cq, 1, &psn);
	memset(&m, 0, sizeof(m));
	m.cmd = CMD_REUSE;
	m.arg[0] = (uint64_t)i;
	ctl_put_qp(&m, &cl->d, qp, psn);
	ctl_call(cl->fd, &m, &peer);
	if (qp_connect(&cl->d, qp, psn, &peer))
		die("client: second QP to RTR/RTS: %s", strerror(errno));
	wr.opcode = pc->inv == INV_RMR ? IBV_WR_SEND : IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = peer.addr;
	wr.wr.rdma.rkey = peer.rkey;
	err = ibv_post_send(qp, &wr, &bad);
	if (err)
		addwhy(why, wn, "client reuse: ibv_post_send: %s", strerror(err));
	else
		expect_wc(cq, 3, S_OK, -1, "client reuse", why, wn);
	memset(&m, 0, sizeof(m));
	m.cmd = CMD_REUSE_CHECK;
	m.arg[0] = (uint64_t)i;
	ctl_call(cl->fd, &m, &peer);
	if (peer.status)
		addwhy(why, wn, "%s", peer.text);
	if (ibv_destroy_qp(qp))
		die("client: ibv_destroy_qp: %s", strerror(errno));
}

/* The CQEs of the tested WR and of the follow-up SEND. */
static void client_cqes(const struct pcase *pc, struct ibv_cq *cq, char *why, size_t wn)
{
	static const int wc_op[] = { IBV_WC_RDMA_WRITE, IBV_WC_RDMA_READ, IBV_WC_SEND };
	struct ibv_wc wc;
	int n = cq_wait(cq, &wc, WAIT_MS);

	if (n <= 0)
		addwhy(why, wn, "client: no CQE within %d s (expected %s)",
		       WAIT_MS / 1000, ibv_wc_status_str(pc->cli));
	else if (wc.wr_id != 1 || (int)wc.status != pc->cli ||
		 (pc->cli == S_OK && (int)wc.opcode != wc_op[pc->op]))
		addwhy(why, wn, "client: CQE %s, expected wr_id 1 %s",
		       wc_str(&wc), ibv_wc_status_str(pc->cli));
	if (n > 0 && !pc->no_follow)
		expect_wc(cq, 2, pc->cli == S_OK ? S_OK : FLUSH, -1,
			  "client follow-up SEND", why, wn);
	expect_no_wc(cq, 0, "client", why, wn);
}

/* The MR the tested WR's SGE names, if not the client's main one. */
static struct ibv_mr *client_lmr(struct client *cl, const struct pcase *pc)
{
	if (pc->lk == LK_PD2)
		return reg_mr(cl->pd2, cl->c, C_SIZE, IBV_ACCESS_LOCAL_WRITE);
	if (pc->lk == LK_PAST_END)
		return reg_mr(cl->d.pd, cl->c, 4096, IBV_ACCESS_LOCAL_WRITE);
	if (pc->lk == LK_NO_LOCAL_WRITE)
		return reg_mr(cl->d.pd, cl->c + C_DST, C_FOLLOW - C_DST, 0);
	return NULL;
}

/* Runs case @i; returns 0 if it passed. */
static int client_case(struct client *cl, int i)
{
	const struct pcase *pc = &cases[i];
	struct ibv_mr *mr, *lmr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ctl m, peer;
	uint32_t psn;
	char why[1024] = "";
	int err;

	cq = ibv_create_cq(cl->d.ctx, 64, NULL, NULL, 0);
	if (!cq)
		die("ibv_create_cq: %s", strerror(errno));
	qp = qp_create(&cl->d, cl->d.pd, cq, 2, &psn);
	memcpy(cl->c, cl->cbg, C_SIZE);
	if (pc->op != OP_READ)
		pattern_fill(cl->c, pc->len, case_seed(i));
	memcpy(cl->c + C_FOLLOW, follow_data, FOLLOW_LEN);
	memcpy(cl->cexp, cl->c, C_SIZE);
	mr = reg_mr(cl->d.pd, cl->c, C_SIZE, IBV_ACCESS_LOCAL_WRITE);
	lmr = client_lmr(cl, pc);

	memset(&m, 0, sizeof(m));
	m.cmd = CMD_CASE;
	m.arg[0] = (uint64_t)i;
	ctl_put_qp(&m, &cl->d, qp, psn);
	ctl_call(cl->fd, &m, &peer);
	if (peer.status) {
		addwhy(why, sizeof(why), "%s", peer.text);
	} else {
		if (qp_connect(&cl->d, qp, psn, &peer))
			die("client: QP to RTR/RTS: %s", strerror(errno));
		err = client_post(cl, pc, qp, mr, lmr ? lmr : mr, &peer);
		if (err)
			addwhy(why, sizeof(why), "client: ibv_post_send: %s", strerror(err));
		else
			client_cqes(pc, cq, why, sizeof(why));
		expect_qp(qp, pc->cli != S_OK, "client", why, sizeof(why));
		if (pc->op == OP_READ && pc->cli == S_OK)
			pattern_fill(cl->cexp + C_DST, pc->len, case_seed(i));
		mem_check(cl->c, cl->cexp, C_SIZE, "client buffer", why, sizeof(why));
	}
	/* the server checks its side (and tears down) in any case */
	memset(&m, 0, sizeof(m));
	m.cmd = CMD_CHECK;
	m.arg[0] = (uint64_t)i;
	m.arg[1] = pc->inv != INV_NONE && !peer.status;	/* reuse check follows */
	ctl_call(cl->fd, &m, &peer);
	if (peer.status)
		addwhy(why, sizeof(why), "%s", peer.text);
	if (m.arg[1])
		client_reuse(cl, i, cq, mr, why, sizeof(why));

	if (ibv_destroy_qp(qp) || ibv_destroy_cq(cq) || ibv_dereg_mr(mr) ||
	    (lmr && ibv_dereg_mr(lmr)))
		die("client: teardown of case %s: %s", pc->name, strerror(errno));
	if (why[0])
		printf("FAIL %s: %s\n", pc->name, why);
	else
		printf("PASS %s\n", pc->name);
	return !!why[0];
}

/* Is case @name selected by the comma separated @list (NULL = all)? */
static int selected(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	if (!list)
		return 1;
	for (p = list; (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return 1;
	return 0;
}

static int run_client(const struct opts *o, const char *only)
{
	struct client cl = { 0 };
	int i, failed = 0, ran = 0;
	struct ctl m;

	cl.fd = tcp_connect(o->server, o->port);
	rdev_open(&cl.d, o->dev, o->gid_index);
	cl.pd2 = ibv_alloc_pd(cl.d.ctx);
	if (!cl.pd2)
		die("ibv_alloc_pd: %s", strerror(errno));
	cl.c = alloc_buf(C_SIZE);
	cl.cbg = alloc_buf(C_SIZE);
	cl.cexp = alloc_buf(C_SIZE);
	random_fill(cl.cbg, C_SIZE, 0xc11e47);
	printf("client: %s, active MTU %d, %d cases\n", o->dev,
	       mtu_bytes(cl.d.port.active_mtu), NCASES);
	for (i = 0; i < NCASES; i++) {
		if (!selected(only, cases[i].name))
			continue;
		failed += client_case(&cl, i);
		ran++;
	}
	memset(&m, 0, sizeof(m));
	m.cmd = CMD_BYE;
	ctl_send(cl.fd, &m);
	printf("client: %d of %d cases passed\n", ran - failed, ran);
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct opts o = { .port = 18700 };
	const char *only = NULL, *err;
	int c, i;

	prog_name = "rdma_prot";
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt(argc, argv, COMMON_OPTSTRING "t:L")) != -1) {
		if (common_opt(&o, c, optarg))
			continue;
		if (c == 't') {
			only = optarg;
		} else if (c == 'L') {
			for (i = 0; i < NCASES; i++)
				printf("%s\n", cases[i].name);
			return 0;
		} else {
			goto usage;
		}
	}
	err = common_opts_check(&o);
	if (err || optind != argc) {
		if (err)
			fprintf(stderr, "rdma_prot: %s\n", err);
usage:
		fprintf(stderr, "usage: rdma_prot -s|-c SERVER -d DEV [-g GIDX] [-p PORT] [-t CASE,...] | -L\n"
			COMMON_USAGE
			"  -t CASE,...      run only these cases (client)\n"
			"  -L               list the cases\n");
		return 2;
	}
	return o.is_server ? run_server(&o) : run_client(&o, only);
}
