// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_data: randomized RC data-path test with byte-exact verification.
 *
 *   rdma_data -s -d DEV -g GIDX [-p PORT]                      (server)
 *   rdma_data -c SERVER -d DEV -g GIDX [-p PORT] [-n OPS] [-S SEED]
 *
 * The client performs OPS operations (default 200) of random kind: RDMA
 * WRITE, RDMA READ, SEND/RECV (half of them with immediate data) and RDMA
 * WRITE with immediate. Each has a random length from 0 B to 1 MiB (the
 * first 24 operations cover 0, 1, MTU-1, MTU, MTU+1 and 1 MiB for every
 * kind; later ones favour such edges), a random byte pattern, a random
 * remote offset (sometimes the very start or end of the server's MR) and 0..
 * max_sge local SGEs at random places in random order. Most operations run
 * alone; after the first 24, one in four starts a burst of 2..8 operations
 * posted together (each in its own slice of the buffers, at most 64 KiB and
 * 4 SGEs), so that several are in flight at once. Patterns, lengths and
 * layouts all derive from SEED (printed): a failing run replays with -S.
 *
 * Protocol (struct ctl over TCP, the client drives; addr/len of PREP and
 * CHECK name the operation's slice of the buffers):
 *   HELLO  client QPN/PSN/GID/MTU, arg0 seed, arg1 ops -> server answers
 *          with its QP, and its buffer T as rkey/addr/len.
 *   PREP   before READ: the server fills T[toff, +len) with the pattern;
 *          before SEND: the server posts a receive of random SGEs
 *          (capacity >= len) scattered in the slice of T; before
 *          WRITE_IMM: a receive with 0..2 small SGEs in the slice (that
 *          must stay untouched).
 *   CHECK  after the client's CQEs, one per operation of the burst, in
 *          order: the server checks the receive CQE of a SEND/WRITE_IMM
 *          (SUCCESS, wr_id, opcode, byte_len, IMM flag, imm_data). On the
 *          last one (arg7) it checks that no other CQE is there and
 *          compares ALL of T with the expected image: the pattern where
 *          data was placed, its background pattern everywhere else (so
 *          guard bytes around every target range and every SGE are
 *          checked); then restores the background.
 *   DONE   the server checks its CQ is empty and exits.
 * For READ the client likewise compares all of its read buffer R (pattern
 * in the SGEs, background elsewhere). Every client CQE must be SUCCESS with
 * the right wr_id and opcode, in posting order, and no extra CQE may appear.
 *
 * With -k MASK the client draws its kinds from MASK only (bits: 1 WRITE,
 * 2 READ, 4 SEND, 8 WRITE_IMM, 16 ATOMIC; default 15, the four above).
 * ATOMIC is an 8-byte COMPARE_SWAP (that succeeds) or FETCH_ADD on an
 * aligned word of T: PREP fills it with the pattern, the client checks the
 * original value returned into R, the server that T holds the new value
 * (an atomic executed twice, e.g. for a duplicate request, fails that).
 *
 * Output: one line per operation, then `PASS rdma_data: ...` or
 * `FAIL rdma_data: op N (...): why`; exit 0 on PASS, 1 on FAIL, 2 on a
 * setup error. The server exits 0 when all its checks passed.
 */
#include "rdma_common.h"

#define MAX_LEN		(1u << 20)			/* largest message */
#define BUF_SIZE	(MAX_LEN + (256u << 10))	/* T, S and R */
#define MAX_SGE		32
#define GAP_MAX		4096				/* between SGEs */
#define CQE_TIMEOUT_MS	30000
#define MAX_BURST	8
#define BURST_LEN	(64u << 10)			/* longest op in a burst */
#define BURST_SGE	4

enum kind { K_WRITE, K_READ, K_SEND, K_WRITE_IMM, K_ATOMIC, K_NUM };
static const char *const kind_name[K_NUM] = { "WRITE", "READ", "SEND", "WRITE_IMM",
					      "ATOMIC" };
#define KINDS_DEFAULT	0xfu	/* all but ATOMIC */
static unsigned int kind_mask = KINDS_DEFAULT;	/* -k */

enum { CMD_HELLO = 1, CMD_PREP, CMD_CHECK, CMD_DONE };

/* One operation; PREP and CHECK carry it in addr, len and arg[0..7]. */
struct op {
	uint32_t idx;
	enum kind kind;
	uint32_t len;
	uint64_t slice;		/* its slice [slice, +slice_len) of T, S, R */
	uint64_t slice_len;
	int last;		/* last op of its burst */
	uint64_t toff;		/* offset in the server's T (WRITE, READ, WRITE_IMM) */
	uint64_t pseed;		/* pattern seed */
	int with_imm;		/* WRITE_IMM always, SEND sometimes; ATOMIC: CMP_SWAP */
	uint32_t imm;
	int nsge;		/* client SGEs, in S (source) or R (READ target) */
	uint32_t off[MAX_SGE];
	uint32_t sl[MAX_SGE];
};

/* A range of a buffer that must hold @data (else: the background). */
struct seg {
	uint64_t off;
	uint32_t len;
	const uint8_t *data;
};

static void op_to_ctl(const struct op *op, struct ctl *m, uint32_t cmd)
{
	memset(m, 0, sizeof(*m));
	m->cmd = cmd;
	m->arg[0] = op->idx;
	m->arg[1] = op->kind;
	m->arg[2] = op->len;
	m->arg[3] = op->toff;
	m->arg[4] = op->pseed;
	m->arg[5] = (uint64_t)op->with_imm;
	m->arg[6] = op->imm;
	m->arg[7] = (uint64_t)op->last;
	m->addr = op->slice;
	m->len = op->slice_len;
}

static void op_from_ctl(struct op *op, const struct ctl *m)
{
	memset(op, 0, sizeof(*op));
	op->idx = (uint32_t)m->arg[0];
	op->kind = (enum kind)(m->arg[1] % K_NUM);
	op->len = (uint32_t)m->arg[2];
	op->toff = m->arg[3];
	op->pseed = m->arg[4];
	op->with_imm = !!m->arg[5];
	op->imm = (uint32_t)m->arg[6];
	op->last = !!m->arg[7];
	op->slice = m->addr;
	op->slice_len = m->len;
}

static int op_str(char *s, size_t n, const struct op *op)
{
	const char *sfx = op->kind == K_SEND && op->with_imm ? "_IMM" :
			  op->kind == K_ATOMIC ? (op->with_imm ? " CMP_SWAP" : " FETCH_ADD") : "";
	int k = snprintf(s, n, "op %u: %s%s len %u toff %llu nsge %d pattern %#llx",
			 op->idx, kind_name[op->kind], sfx, op->len,
			 (unsigned long long)op->toff, op->nsge, (unsigned long long)op->pseed);

	if (op->with_imm && op->kind != K_ATOMIC && k >= 0 && (size_t)k < n)
		k += snprintf(s + k, n - (size_t)k, " imm %#x", op->imm);
	return k;
}

/* ATOMIC: the original value of T's word (its pattern) and the operand. */
static uint64_t atomic_orig(const struct op *op)
{
	uint8_t b[8];
	uint64_t v;

	pattern_fill(b, sizeof(b), op->pseed);
	memcpy(&v, b, sizeof(v));
	return v;
}

static uint64_t atomic_operand(const struct op *op)
{
	return (uint64_t)op->imm << 32 | (op->imm ^ 0x5a5a5a5au);
}

/* ATOMIC: the value T's word holds afterwards. */
static uint64_t atomic_result(const struct op *op)
{
	return op->with_imm ? atomic_operand(op) : atomic_orig(op) + atomic_operand(op);
}

/*
 * Splits @total bytes into *@n pieces (each at least 1 byte; @total 0 gives
 * zero or one empty piece) and places them from offset 0..GAP_MAX on, in a
 * random order with random gaps (often none). Fills off[] and len[] in SGE
 * order. The pieces end before GAP_MAX + total + n * GAP_MAX.
 */
static void layout(uint64_t *rng, uint32_t total, int *n, uint32_t *off, uint32_t *len)
{
	uint32_t cut[MAX_SGE], perm[MAX_SGE], t;
	uint64_t cur;
	int i, j, k = *n;

	if (k > (int)total)
		k = total ? (int)total : (int)rng_below(rng, 2);
	*n = k;
	if (!total) {
		if (k)
			off[0] = (uint32_t)rng_below(rng, GAP_MAX), len[0] = 0;
		return;
	}
	/* k-1 sorted cut values in [0, total-k]: piece i = difference + 1 */
	for (i = 0; i < k - 1; i++) {
		t = (uint32_t)rng_below(rng, (uint64_t)total - k + 1);
		for (j = i; j > 0 && cut[j - 1] > t; j--)
			cut[j] = cut[j - 1];
		cut[j] = t;
	}
	for (i = 0; i < k; i++) {
		uint32_t lo = i ? cut[i - 1] : 0, hi = i < k - 1 ? cut[i] : total - k;

		len[i] = hi - lo + 1;
		perm[i] = (uint32_t)i;
	}
	for (i = k - 1; i > 0; i--) {	/* Fisher-Yates */
		j = (int)rng_below(rng, (uint64_t)i + 1);
		t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	cur = rng_below(rng, GAP_MAX);
	for (i = 0; i < k; i++) {
		off[perm[i]] = (uint32_t)cur;
		cur += len[perm[i]];
		if (rng_below(rng, 4))
			cur += rng_below(rng, GAP_MAX);
	}
}

/*
 * Compares @buf[0, size) with its expected image: segs[] data inside the
 * segments, @bg elsewhere. Returns 0, or 1 with the first difference
 * described in @why and its offset in *@bad_at.
 */
static int image_check(const uint8_t *buf, const uint8_t *bg, uint64_t size,
		       struct seg *segs, int n, const char *name, uint64_t *bad_at,
		       char *why, size_t wn)
{
	uint64_t pos = 0, end;
	int i, j, k;

	for (i = 1; i < n; i++) {		/* sort by offset */
		struct seg s = segs[i];

		for (j = i; j > 0 && segs[j - 1].off > s.off; j--)
			segs[j] = segs[j - 1];
		segs[j] = s;
	}
	for (k = 0; k <= n; k++) {
		const uint8_t *want;
		uint64_t at, cnt = 0, x;
		long d;

		/* the gap before segment k (background), then segment k */
		for (i = 0; i < 2; i++) {
			if (i == 0) {
				end = k < n ? segs[k].off : size;
				want = bg + pos;
			} else {
				if (k == n)
					break;
				end = pos + segs[k].len;
				want = segs[k].data;
			}
			d = first_diff(buf + pos, want, end - pos);
			if (d >= 0) {
				at = pos + (uint64_t)d;
				*bad_at = at;
				for (x = at; x < end; x++)
					cnt += buf[x] != want[x - pos];
				snprintf(why, wn,
					 "%s byte %llu (%s [%llu, %llu)) is %#04x, expected %#04x; %llu bytes of that range differ",
					 name, (unsigned long long)at,
					 i ? "in data range" : "OUTSIDE the data ranges, background/guard",
					 (unsigned long long)pos, (unsigned long long)end,
					 buf[at], want[at - pos], (unsigned long long)cnt);
				return 1;
			}
			pos = end;
		}
	}
	return 0;
}

static void image_restore(uint8_t *buf, const uint8_t *bg, const struct seg *segs, int n)
{
	int i;

	for (i = 0; i < n; i++)
		memcpy(buf + segs[i].off, bg + segs[i].off, segs[i].len);
}

/* Checks the next CQE of @cq: SUCCESS, @wr_id, @opcode and, if @len >= 0,
 * byte_len; with @imm >= 0 also IBV_WC_WITH_IMM and imm_data; with @imm == -1
 * no IBV_WC_WITH_IMM. With @last, no further CQE may be there. 0 or 1 + @why.
 */
static int expect_cqe(struct ibv_cq *cq, uint64_t wr_id, enum ibv_wc_opcode opcode,
		      int64_t len, int64_t imm, int last, const char *who, char *why, size_t wn)
{
	struct ibv_wc wc;
	int n = cq_wait(cq, &wc, CQE_TIMEOUT_MS);

	if (n <= 0) {
		snprintf(why, wn, "%s: %s (expected wr_id %llu)", who,
			 n ? "ibv_poll_cq failed" : "no CQE within 30 s",
			 (unsigned long long)wr_id);
		return 1;
	}
	if (wc.status != IBV_WC_SUCCESS || wc.wr_id != wr_id || wc.opcode != opcode ||
	    (len >= 0 && wc.byte_len != (uint64_t)len) ||
	    (imm >= 0 && (!(wc.wc_flags & IBV_WC_WITH_IMM) ||
			  ntohl(wc.imm_data) != (uint32_t)imm)) ||
	    (imm == -1 && (wc.wc_flags & IBV_WC_WITH_IMM))) {
		char exp[64] = "", ims[32] = "";

		if (len >= 0)
			snprintf(exp, sizeof(exp), " byte_len %lld", (long long)len);
		if (imm >= 0)
			snprintf(ims, sizeof(ims), " WITH_IMM %#x", (uint32_t)imm);
		snprintf(why, wn, "%s: CQE %s, expected {wr_id %llu SUCCESS %s%s%s}", who,
			 wc_str(&wc), (unsigned long long)wr_id, wc_opcode_str(opcode), exp, ims);
		return 1;
	}
	n = last ? ibv_poll_cq(cq, 1, &wc) : 0;
	if (n) {
		snprintf(why, wn, "%s: unexpected extra CQE %s", who,
			 n > 0 ? wc_str(&wc) : "(poll error)");
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Server                                                              */
/* ------------------------------------------------------------------ */

struct recv_layout {
	uint32_t idx;		/* op */
	int n;
	uint32_t off[MAX_SGE], cap[MAX_SGE];
};

struct server {
	struct rdev d;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *t, *bg, *msg;	/* T, its background, expected data by slice */
	uint32_t max_sge;
	struct recv_layout rl[MAX_BURST];	/* posted receives, in order */
	int nrl, rl_next;
	struct seg segs[MAX_BURST * MAX_SGE];	/* expected data of the burst */
	int nsegs;
};

/* The op's ranges must lie in T (only our client talks to us, but still). */
static int op_valid(const struct op *op)
{
	return op->len <= MAX_LEN && op->slice_len <= BUF_SIZE &&
	       op->slice <= BUF_SIZE - op->slice_len && op->toff <= BUF_SIZE - op->len &&
	       op->slice_len >= GAP_MAX + op->len + 512;
}

/* PREP: fill T for a READ, or post the receive of a SEND / WRITE_IMM. */
static int server_prep(struct server *sv, const struct op *op, char *why, size_t wn)
{
	struct ibv_sge sge[MAX_SGE];
	struct ibv_recv_wr wr = { .wr_id = op->idx, .sg_list = sge }, *bad;
	uint64_t rng = op->pseed ^ 0x5eedf00dcafeULL, room;
	struct recv_layout *rl;
	uint32_t base, cap, max;
	int i, err;

	if (op->kind == K_READ || op->kind == K_ATOMIC) {
		pattern_fill(sv->t + op->toff, op->len, op->pseed);
		return 0;
	}
	if (sv->nrl == MAX_BURST) {
		snprintf(why, wn, "server: protocol error (more than %d receives)", MAX_BURST);
		return 1;
	}
	rl = &sv->rl[sv->nrl++];
	rl->idx = op->idx;
	if (op->kind == K_SEND) {
		cap = op->len + (rng_below(&rng, 3) ? (uint32_t)rng_below(&rng, 300) : 0);
		if (cap + GAP_MAX > op->slice_len)
			cap = op->len;
		/* as many SGEs as fit: GAP_MAX + cap + n * GAP_MAX <= slice */
		room = (op->slice_len - GAP_MAX - cap) / GAP_MAX;
		max = room < sv->max_sge ? (uint32_t)room : sv->max_sge;
		rl->n = rng_below(&rng, 2) || !max ? 1 : 1 + (int)rng_below(&rng, max);
		layout(&rng, cap, &rl->n, rl->off, rl->cap);
		base = (uint32_t)(op->slice + rng_below(&rng, op->slice_len -
			(GAP_MAX + cap + (uint64_t)rl->n * GAP_MAX) + 1));
	} else {		/* WRITE_IMM: SGEs that must not be touched */
		rl->n = (int)rng_below(&rng, 3);
		for (i = 0; i < rl->n; i++) {
			rl->cap[i] = 1 + (uint32_t)rng_below(&rng, 64);
			rl->off[i] = (uint32_t)(i * 128);
		}
		base = (uint32_t)(op->slice + rng_below(&rng, op->slice_len - 512));
	}
	for (i = 0; i < rl->n; i++) {
		rl->off[i] += base;
		sge[i].addr = (uintptr_t)sv->t + rl->off[i];
		sge[i].length = rl->cap[i];
		sge[i].lkey = sv->mr->lkey;
	}
	wr.num_sge = rl->n;
	err = ibv_post_recv(sv->qp, &wr, &bad);
	if (err)
		snprintf(why, wn, "server: ibv_post_recv (%d SGEs): %s", rl->n, strerror(err));
	return !!err;
}

/* CHECK: the op's receive CQE; after the burst's last op, all of T. */
static int server_check(struct server *sv, const struct op *op, uint64_t *bad_at,
			char *why, size_t wn)
{
	uint8_t *msg = sv->msg + op->slice;	/* slices keep the data apart */
	struct recv_layout *rl;
	uint32_t done = 0, take;
	struct ibv_wc wc;
	int i, n, bad = 0;

	pattern_fill(msg, op->len, op->pseed);
	if (op->kind == K_ATOMIC) {
		uint64_t v = atomic_result(op);

		memcpy(msg, &v, sizeof(v));
	}
	if (op->kind == K_SEND || op->kind == K_WRITE_IMM) {
		rl = &sv->rl[sv->rl_next++];
		if (sv->rl_next > sv->nrl || rl->idx != op->idx) {
			snprintf(why, wn, "server: protocol error (no receive for op %u)", op->idx);
			return 1;
		}
		bad = expect_cqe(sv->cq, op->idx, op->kind == K_SEND ? IBV_WC_RECV
				 : IBV_WC_RECV_RDMA_WITH_IMM, op->len,
				 op->with_imm ? (int64_t)op->imm : -1, 0, "server receive", why, wn);
		if (op->kind == K_SEND) {
			for (i = 0; i < rl->n; i++) {
				take = op->len - done < rl->cap[i] ? op->len - done : rl->cap[i];
				sv->segs[sv->nsegs++] = (struct seg){ rl->off[i], take, msg + done };
				done += take;
			}
		}
	}
	if (op->kind != K_SEND)
		sv->segs[sv->nsegs++] = (struct seg){ op->toff, op->len, msg };
	if (!op->last && !bad)
		return 0;
	n = bad ? 0 : ibv_poll_cq(sv->cq, 1, &wc);
	if (n) {
		snprintf(why, wn, "server: unexpected CQE %s", n > 0 ? wc_str(&wc) : "(poll error)");
		bad = 1;
	}
	if (!bad)
		bad = image_check(sv->t, sv->bg, BUF_SIZE, sv->segs, sv->nsegs, "server T",
				  bad_at, why, wn);
	/* restore all of T after a mismatch, else only what was written */
	if (bad)
		memcpy(sv->t, sv->bg, BUF_SIZE);
	else
		image_restore(sv->t, sv->bg, sv->segs, sv->nsegs);
	sv->nsegs = sv->nrl = sv->rl_next = 0;
	return bad;
}

static int run_server(const struct opts *o)
{
	struct server sv = { 0 };
	struct ctl m, a;
	uint32_t psn;
	uint64_t rng;
	int fd, failed = 0, bad;
	uint64_t at;
	char why[400];
	struct op op;

	fd = tcp_accept(tcp_listen(o->port));
	rdev_open(&sv.d, o->dev, o->gid_index);
	sv.max_sge = sv.d.attr.max_sge < MAX_SGE ? (uint32_t)sv.d.attr.max_sge : MAX_SGE;
	sv.cq = ibv_create_cq(sv.d.ctx, 256, NULL, NULL, 0);
	if (!sv.cq)
		die("ibv_create_cq: %s", strerror(errno));
	sv.qp = qp_create(&sv.d, sv.d.pd, sv.cq, sv.max_sge, &psn);
	sv.t = alloc_buf(BUF_SIZE);
	sv.bg = alloc_buf(BUF_SIZE);
	sv.msg = alloc_buf(BUF_SIZE);
	sv.mr = reg_mr(sv.d.pd, sv.t, BUF_SIZE, RC_ACCESS | IBV_ACCESS_REMOTE_ATOMIC);
	{
		struct ibv_qp_attr qa = { .qp_access_flags = RC_ACCESS |
						IBV_ACCESS_REMOTE_ATOMIC };

		if (ibv_modify_qp(sv.qp, &qa, IBV_QP_ACCESS_FLAGS))
			die("server: allow remote atomics: %s", strerror(errno));
	}

	if (ctl_recv(fd, &m) || m.cmd != CMD_HELLO)
		die("no HELLO from the client");
	rng = m.arg[0] ^ 0xb16b00b5ULL;
	random_fill(sv.bg, BUF_SIZE, rng_next(&rng));
	memcpy(sv.t, sv.bg, BUF_SIZE);
	if (qp_connect(&sv.d, sv.qp, psn, &m))
		die("server: QP to RTR/RTS: %s", strerror(errno));
	printf("server: %s QPN %#x, client QPN %#x, path MTU %d, seed %#llx, %llu ops\n",
	       o->dev, sv.qp->qp_num, m.qpn, mtu_bytes(path_mtu(&sv.d, &m)),
	       (unsigned long long)m.arg[0], (unsigned long long)m.arg[1]);
	memset(&a, 0, sizeof(a));
	a.cmd = CMD_HELLO;
	ctl_put_qp(&a, &sv.d, sv.qp, psn);
	a.rkey = sv.mr->rkey;
	a.addr = (uintptr_t)sv.t;
	a.len = BUF_SIZE;
	if (ctl_send(fd, &a))
		die("control connection lost");

	for (;;) {
		if (ctl_recv(fd, &m)) {
			printf("server: client went away before DONE\n");
			return 1;
		}
		memset(&a, 0, sizeof(a));
		a.cmd = m.cmd;
		why[0] = 0;
		at = UINT64_MAX;
		op_from_ctl(&op, &m);
		if ((m.cmd == CMD_PREP || m.cmd == CMD_CHECK) && !op_valid(&op)) {
			bad = 1;
			snprintf(why, sizeof(why), "server: op %u out of range", op.idx);
		} else if (m.cmd == CMD_PREP) {
			bad = server_prep(&sv, &op, why, sizeof(why));
		} else if (m.cmd == CMD_CHECK) {
			bad = server_check(&sv, &op, &at, why, sizeof(why));
			a.arg[0] = at;
		} else if (m.cmd == CMD_DONE) {
			struct ibv_wc wc;

			bad = ibv_poll_cq(sv.cq, 1, &wc) != 0;
			if (bad)
				snprintf(why, sizeof(why), "server: stray CQE at the end %s",
					 wc_str(&wc));
		} else {
			bad = 1;
			snprintf(why, sizeof(why), "server: unknown command %u", m.cmd);
		}
		if (bad) {
			failed = 1;
			printf("server: %s\n", why);
		}
		a.status = (uint32_t)bad;
		snprintf(a.text, sizeof(a.text), "%s", why);
		if (ctl_send(fd, &a) || m.cmd == CMD_DONE)
			break;
	}
	printf("server: %s\n", failed ? "FAILED" : "all checks passed");
	return failed;
}

/* ------------------------------------------------------------------ */
/* Client                                                              */
/* ------------------------------------------------------------------ */

struct client {
	struct rdev d;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *smr, *rmr;
	uint8_t *s, *r, *rbg, *msg;	/* source S, read target R (+ background) */
	uint32_t max_sge, max_rd_sge, mtu;
	int fd;
	struct ctl peer;
};

/* Length: 40 % an edge value, else log-uniform in [1, 1 MiB]. */
static uint32_t pick_len(uint64_t *rng, uint32_t mtu)
{
	const uint32_t edge[] = { 0, 1, 2, 3, 4, 7, 8, 63, 64, 65, mtu - 1, mtu, mtu + 1,
				  2 * mtu - 1, 2 * mtu, 2 * mtu + 1, 4095, 4096, 4097,
				  65535, 65536, 65537, MAX_LEN - 1, MAX_LEN };
	uint32_t e;

	if (rng_below(rng, 10) < 4)
		return edge[rng_below(rng, sizeof(edge) / sizeof(edge[0]))];
	e = (uint32_t)rng_below(rng, 21);
	e = (1u << e) + (uint32_t)rng_below(rng, 1u << e);
	return e > MAX_LEN ? MAX_LEN : e;
}

/* A kind from kind_mask (the n-th set bit: the default draws as before). */
static enum kind pick_kind(uint64_t *rng)
{
	unsigned int n = (unsigned int)__builtin_popcount(kind_mask);
	unsigned int r = (unsigned int)rng_below(rng, n), k;

	for (k = 0; k < K_NUM; k++)
		if (kind_mask & (1u << k) && !r--)
			break;
	return (enum kind)k;
}

/* Operation @i, number @j of a burst of @nb (slice j of nb of the buffers). */
static void gen_op(struct client *c, uint64_t *rng, uint32_t i, int j, int nb, struct op *op)
{
	const uint32_t must[] = { 0, 1, c->mtu - 1, c->mtu, c->mtu + 1, MAX_LEN };
	uint32_t r, max, maxlen = nb > 1 ? BURST_LEN : MAX_LEN;

	memset(op, 0, sizeof(*op));
	op->idx = i;
	op->slice_len = BUF_SIZE / (uint32_t)nb & ~4095u;
	op->slice = (uint64_t)j * op->slice_len;
	op->last = j == nb - 1;
	if (i < 4 * 6) {		/* every kind with every must-have length */
		op->kind = (enum kind)(i % 4);
		if (!(kind_mask & (1u << op->kind)))
			op->kind = pick_kind(rng);
		op->len = must[i / 4];
	} else {
		op->kind = pick_kind(rng);
		op->len = pick_len(rng, c->mtu);
		if (op->len > maxlen)
			op->len = (uint32_t)rng_below(rng, maxlen + 1);
	}
	if (op->kind == K_ATOMIC)
		op->len = 8;
	r = (uint32_t)rng_below(rng, 10);
	op->toff = op->slice + (r == 0 ? 0 : r == 1 ? op->slice_len - op->len
				: rng_below(rng, op->slice_len - op->len + 1));
	if (op->kind == K_ATOMIC)
		op->toff &= ~7ull;	/* IBTA 9.4.5: an aligned word */
	op->pseed = rng_next(rng);
	op->with_imm = op->kind == K_WRITE_IMM ||
		       ((op->kind == K_SEND || op->kind == K_ATOMIC) && rng_below(rng, 2));
	op->imm = (uint32_t)rng_next(rng);
	max = op->kind == K_READ ? c->max_rd_sge : c->max_sge;
	if (nb > 1 && max > BURST_SGE)
		max = BURST_SGE;
	r = (uint32_t)rng_below(rng, 10);
	op->nsge = r < 5 ? 1 : r == 5 ? (int)max : 2 + (int)rng_below(rng, max - 1);
	if (op->nsge > (int)max || op->kind == K_ATOMIC)
		op->nsge = op->kind == K_ATOMIC ? 1 : (int)max;
	layout(rng, op->len, &op->nsge, op->off, op->sl);
	for (r = 0; r < (uint32_t)op->nsge; r++)
		op->off[r] += (uint32_t)op->slice;
}

/* Posts the work requests of the burst @ops[0, nb) with one ibv_post_send. */
static int client_post(struct client *c, const struct op *ops, int nb, char *why, size_t wn)
{
	static const enum ibv_wr_opcode wr_op[K_NUM] = {
		IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ, IBV_WR_SEND, IBV_WR_RDMA_WRITE_WITH_IMM,
		IBV_WR_ATOMIC_FETCH_AND_ADD };
	struct ibv_sge sge[MAX_BURST][MAX_SGE];
	struct ibv_send_wr wr[MAX_BURST], *bad;
	int i, j, err;

	memset(wr, 0, sizeof(wr));
	for (j = 0; j < nb; j++) {
		const struct op *op = &ops[j];
		int into_r = op->kind == K_READ || op->kind == K_ATOMIC;
		uint8_t *base = into_r ? c->r : c->s;
		uint32_t lkey = into_r ? c->rmr->lkey : c->smr->lkey;

		for (i = 0; i < op->nsge; i++) {
			sge[j][i].addr = (uintptr_t)base + op->off[i];
			sge[j][i].length = op->sl[i];
			sge[j][i].lkey = lkey;
		}
		wr[j].wr_id = op->idx;
		wr[j].next = j + 1 < nb ? &wr[j + 1] : NULL;
		wr[j].sg_list = sge[j];
		wr[j].num_sge = op->nsge;
		wr[j].opcode = wr_op[op->kind];
		if (op->kind == K_SEND && op->with_imm)
			wr[j].opcode = IBV_WR_SEND_WITH_IMM;
		wr[j].send_flags = IBV_SEND_SIGNALED;
		wr[j].imm_data = htonl(op->imm);
		wr[j].wr.rdma.remote_addr = c->peer.addr + op->toff;
		wr[j].wr.rdma.rkey = c->peer.rkey;
		if (op->kind != K_ATOMIC)
			continue;
		wr[j].wr.atomic.remote_addr = c->peer.addr + op->toff;
		wr[j].wr.atomic.rkey = c->peer.rkey;
		wr[j].wr.atomic.swap = atomic_operand(op);
		wr[j].wr.atomic.compare_add = atomic_operand(op);
		if (op->with_imm) {
			wr[j].opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
			wr[j].wr.atomic.compare_add = atomic_orig(op);
		}
	}
	err = ibv_post_send(c->qp, wr, &bad);
	if (err)
		snprintf(why, wn, "client: ibv_post_send: %s", strerror(err));
	return !!err;
}

/*
 * A burst end to end: PREPs, one post, the client's CQEs in order, the
 * READ targets, then the server's CHECKs. 0, or 1 with @why and *@failed
 * set to the op that failed.
 */
static int client_burst(struct client *c, const struct op *ops, int nb, int *failed,
			char *why, size_t wn)
{
	static const enum ibv_wc_opcode wc_op[K_NUM] = {
		IBV_WC_RDMA_WRITE, IBV_WC_RDMA_READ, IBV_WC_SEND, IBV_WC_RDMA_WRITE,
		IBV_WC_FETCH_ADD };
	struct seg segs[MAX_BURST * MAX_SGE];
	uint64_t at = UINT64_MAX;
	int i, j, n = 0, bad = 0;
	struct ctl m, a;

	*failed = 0;
	for (j = 0; j < nb; j++) {
		const struct op *op = &ops[j];
		uint8_t *msg = c->msg + op->slice;
		uint32_t done = 0;

		pattern_fill(msg, op->len, op->pseed);
		for (i = 0; i < op->nsge; i++) {
			if (op->kind == K_READ || op->kind == K_ATOMIC)
				segs[n++] = (struct seg){ op->off[i], op->sl[i], msg + done };
			else
				memcpy(c->s + op->off[i], msg + done, op->sl[i]);
			done += op->sl[i];
		}
		if (op->kind == K_WRITE)
			continue;
		op_to_ctl(op, &m, CMD_PREP);
		ctl_call(c->fd, &m, &a);
		if (a.status) {
			*failed = j;
			snprintf(why, wn, "%s", a.text);
			return 1;
		}
	}
	if (client_post(c, ops, nb, why, wn))
		return 1;
	/* a send-side byte_len is not defined by the verbs: not checked */
	for (j = 0; j < nb && !bad; j++) {
		*failed = j;
		bad = expect_cqe(c->cq, ops[j].idx,
				 ops[j].kind == K_ATOMIC && ops[j].with_imm ? IBV_WC_COMP_SWAP :
				 wc_op[ops[j].kind], -1, -2, j == nb - 1, "client", why, wn);
	}
	if (!bad && n) {
		bad = image_check(c->r, c->rbg, BUF_SIZE, segs, n, "client R", &at, why, wn);
		memcpy(c->r, c->rbg, BUF_SIZE);
	}
	for (j = 0; j < nb && !bad; j++) {
		*failed = j;
		op_to_ctl(&ops[j], &m, CMD_CHECK);
		ctl_call(c->fd, &m, &a);
		bad = !!a.status;
		if (bad) {
			snprintf(why, wn, "%s", a.text);
			at = a.arg[0];
		}
	}
	/* blame a wrong byte on the op whose slice holds it */
	for (j = 0; bad && nb > 1 && j < nb; j++)
		if (at >= ops[j].slice && at - ops[j].slice < ops[j].slice_len)
			*failed = j;
	return bad;
}

static int run_client(const struct opts *o, uint64_t seed, uint32_t nops)
{
	struct client c = { 0 };
	uint64_t rng = seed, bytes = 0, t0;
	uint32_t psn, i, count[K_NUM] = { 0 }, bursts = 0;
	struct op ops[MAX_BURST];
	char line[MAX_BURST][200], why[600];
	int j, nb, failed;
	struct ctl m;

	c.fd = tcp_connect(o->server, o->port);
	rdev_open(&c.d, o->dev, o->gid_index);
	c.max_sge = c.d.attr.max_sge < MAX_SGE ? (uint32_t)c.d.attr.max_sge : MAX_SGE;
	c.max_rd_sge = c.d.attr.max_sge_rd > 0 && (uint32_t)c.d.attr.max_sge_rd < c.max_sge
		       ? (uint32_t)c.d.attr.max_sge_rd : c.max_sge;
	c.cq = ibv_create_cq(c.d.ctx, 256, NULL, NULL, 0);
	if (!c.cq)
		die("ibv_create_cq: %s", strerror(errno));
	c.qp = qp_create(&c.d, c.d.pd, c.cq, c.max_sge, &psn);
	c.s = alloc_buf(BUF_SIZE);
	c.r = alloc_buf(BUF_SIZE);
	c.rbg = alloc_buf(BUF_SIZE);
	c.msg = alloc_buf(BUF_SIZE);
	memset(c.s, 0xee, BUF_SIZE);
	random_fill(c.rbg, BUF_SIZE, seed ^ 0x0123456789ULL);
	memcpy(c.r, c.rbg, BUF_SIZE);
	c.smr = reg_mr(c.d.pd, c.s, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE);
	c.rmr = reg_mr(c.d.pd, c.r, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE);

	memset(&m, 0, sizeof(m));
	m.cmd = CMD_HELLO;
	ctl_put_qp(&m, &c.d, c.qp, psn);
	m.arg[0] = seed;
	m.arg[1] = nops;
	ctl_call(c.fd, &m, &c.peer);
	if (c.peer.cmd != CMD_HELLO)
		die("bad HELLO answer");
	if (qp_connect(&c.d, c.qp, psn, &c.peer))
		die("client: QP to RTR/RTS: %s", strerror(errno));
	c.mtu = (uint32_t)mtu_bytes(path_mtu(&c.d, &c.peer));
	printf("client: %s QPN %#x -> QPN %#x, path MTU %u, max_sge %u (READ %u), seed %#llx, %u ops\n",
	       o->dev, c.qp->qp_num, c.peer.qpn, c.mtu, c.max_sge, c.max_rd_sge,
	       (unsigned long long)seed, nops);
	fflush(stdout);

	t0 = now_ms();
	for (i = 0; i < nops; i += (uint32_t)nb) {
		nb = i >= 24 && !rng_below(&rng, 4) ? 2 + (int)rng_below(&rng, MAX_BURST - 1) : 1;
		if (nb > (int)(nops - i))
			nb = (int)(nops - i);
		bursts += nb > 1;
		for (j = 0; j < nb; j++) {
			gen_op(&c, &rng, i + (uint32_t)j, j, nb, &ops[j]);
			op_str(line[j], sizeof(line[j]), &ops[j]);
			printf("%s%s\n", line[j], nb > 1 ? " (in a burst)" : "");
			count[ops[j].kind]++;
			bytes += ops[j].len;
		}
		if (client_burst(&c, ops, nb, &failed, why, sizeof(why))) {
			printf("FAIL rdma_data: %s%s (seed %#llx, path MTU %u): %s\n", line[failed],
			       nb > 1 ? " (in a burst)" : "", (unsigned long long)seed, c.mtu, why);
			return 1;
		}
	}
	memset(&m, 0, sizeof(m));
	m.cmd = CMD_DONE;
	ctl_call(c.fd, &m, &m);
	if (m.status) {
		printf("FAIL rdma_data: after %u ops: %s\n", nops, m.text);
		return 1;
	}
	if (ibv_poll_cq(c.cq, 1, (struct ibv_wc[1]){}) != 0) {
		printf("FAIL rdma_data: stray client CQE at the end\n");
		return 1;
	}
	printf("PASS rdma_data: %u ops (WRITE %u READ %u SEND %u WRITE_IMM %u ATOMIC %u; %u bursts), %.1f MiB in %.1f s, path MTU %u, seed %#llx\n",
	       nops, count[K_WRITE], count[K_READ], count[K_SEND], count[K_WRITE_IMM],
	       count[K_ATOMIC], bursts,
	       (double)bytes / (1 << 20), (double)(now_ms() - t0) / 1000, c.mtu,
	       (unsigned long long)seed);
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = { .port = 18700 };
	uint64_t seed = 0;
	uint32_t nops = 200;
	const char *err;
	int c;

	prog_name = "rdma_data";
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt(argc, argv, COMMON_OPTSTRING "n:S:k:")) != -1) {
		if (common_opt(&o, c, optarg))
			continue;
		if (c == 'n')
			nops = (uint32_t)strtoul(optarg, NULL, 0);
		else if (c == 'S')
			seed = strtoull(optarg, NULL, 0);
		else if (c == 'k')
			kind_mask = (unsigned int)strtoul(optarg, NULL, 0) & ((1u << K_NUM) - 1);
		else
			goto usage;
	}
	err = common_opts_check(&o);
	if (!err && !kind_mask)
		err = "-k MASK selects no kind";
	if (err || optind != argc) {
		if (err)
			fprintf(stderr, "rdma_data: %s\n", err);
usage:
		fprintf(stderr, "usage: rdma_data -s|-c SERVER -d DEV [-g GIDX] [-p PORT] [-n OPS] [-S SEED] [-k MASK]\n"
			COMMON_USAGE
			"  -n OPS           operations (client, default 200)\n"
			"  -S SEED          PRNG seed (client, default: time based, printed)\n"
			"  -k MASK          kinds (client): 1 WRITE 2 READ 4 SEND 8 WRITE_IMM 16 ATOMIC\n"
			"                   (default 15)\n");
		return 2;
	}
	if (o.is_server)
		return run_server(&o);
	if (!seed)
		seed = (now_ms() * 0x9e3779b97f4a7c15ULL) ^ (uint64_t)getpid();
	return run_client(&o, seed, nops);
}
