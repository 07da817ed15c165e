// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_dereg: deregistering an MR while a peer's RDMA WRITE into it is half
 * done must not block, and the WRITE must not go on into it.
 *
 *   rdma_dereg -d TDEV -g TGIDX -D PDEV -G PGIDX [-u CMD] [-l LEN]
 *
 * One process opens both devices: TDEV (target, responder) and PDEV (peer,
 * requester), connects an RC QP pair, registers LEN bytes (default 16384,
 * zeroed) on TDEV with remote write access and has the peer post one RDMA
 * WRITE of LEN bytes into it. The caller has made the network drop the
 * WRITE's MIDDLE and LAST packets (tests/t-60-protection.sh: a tc filter on
 * the target's link), so the target's responder took WRITE FIRST, holds
 * the MR for the rest of the message and waits for it. Then:
 *   dereg_during_write    ibv_dereg_mr() returns within 2 s (the time is
 *                         printed); the target saw exactly the first
 *                         packet's bytes before it
 *   dereg_write_refused   after CMD (run with system(): lifts the drop
 *                         filter) the peer's retransmissions reach the
 *                         responder, which must refuse them: the peer's
 *                         WRITE completes with IBV_WC_REM_ACCESS_ERR (NAK
 *                         Remote Access Error, IBTA 9.7.5.1.2: the R_Key is
 *                         no longer valid) and no byte after the first
 *                         packet's arrives in the (still mapped) buffer
 *   dereg_teardown        destroying the target's QP and CQ, its PD and
 *                         closing the device each return within 2 s
 * With -R the target re-registers the MR instead, onto another buffer
 * (ibv_rereg_mr IBV_REREG_MR_CHANGE_TRANSLATION), which is deregistration
 * followed by registration: the cases are named rereg_during_write,
 * rereg_write_refused (nothing lands in the old buffer nor in the new
 * one) and rereg_teardown (the re-registered MR is deregistered first).
 * Every wait here is bounded; a verb blocked in the kernel cannot be: the
 * caller runs this under a time limit (tests/lib.sh bounded).
 * Output: `PASS case (detail)` or `FAIL case: why` per case; exit 0 if all
 * passed.
 */
#include "rdma_common.h"

#define BOUND_MS	2000

static const char *mode = "dereg";	/* or "rereg" (-R) */

struct end {
	struct rdev d;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint32_t psn;
	struct ctl c;
};

static void end_open(struct end *e, const char *dev, int gidx)
{
	rdev_open(&e->d, dev, gidx);
	e->cq = ibv_create_cq(e->d.ctx, 16, NULL, NULL, 0);
	if (!e->cq)
		die("ibv_create_cq: %s", strerror(errno));
	e->qp = qp_create(&e->d, e->d.pd, e->cq, 1, &e->psn);
	memset(&e->c, 0, sizeof(e->c));
	ctl_put_qp(&e->c, &e->d, e->qp, e->psn);
}

/* Milliseconds @call takes; dies if it fails. */
#define TIMED(what, call)						\
	({								\
		uint64_t t0_ = now_ms();				\
									\
		if (call)						\
			die("%s: %s", what, strerror(errno));		\
		now_ms() - t0_;						\
	})

/* Waits up to @ms for the first @n bytes of @buf to equal @exp. */
static int wait_bytes(const uint8_t *buf, const uint8_t *exp, size_t n, int ms)
{
	uint64_t deadline = now_ms() + (uint64_t)ms;

	while (memcmp((const void *)buf, exp, n)) {
		if (now_ms() > deadline)
			return -1;
		sleep_us(1000);
	}
	return 0;
}

static int teardown(struct end *t)
{
	uint64_t ms[4];
	int fail = 0, i;

	ms[0] = TIMED("ibv_destroy_qp", ibv_destroy_qp(t->qp));
	ms[1] = TIMED("ibv_destroy_cq", ibv_destroy_cq(t->cq));
	ms[2] = TIMED("ibv_dealloc_pd", ibv_dealloc_pd(t->d.pd));
	ms[3] = TIMED("ibv_close_device", ibv_close_device(t->d.ctx));
	for (i = 0; i < 4; i++)
		fail |= ms[i] > BOUND_MS;
	printf("%s %s_teardown%sdestroy_qp %llu ms, destroy_cq %llu ms, dealloc_pd %llu ms, close %llu ms%s\n",
	       fail ? "FAIL" : "PASS", mode, fail ? ": " : " (", (unsigned long long)ms[0],
	       (unsigned long long)ms[1], (unsigned long long)ms[2],
	       (unsigned long long)ms[3], fail ? "" : ")");
	return fail;
}

struct run {
	struct end t, p;		/* target (responder), peer (requester) */
	uint8_t *tbuf, *pbuf, *zero;
	uint8_t *tbuf2;			/* -R: the MR's new translation */
	size_t len;
	int first;			/* bytes of the WRITE's first packet */
	struct ibv_mr *tmr, *pmr;
};

/* Connects the pair, posts the WRITE and waits until just FIRST landed. */
static void start_write(struct run *r)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;

	if (qp_connect(&r->t.d, r->t.qp, r->t.psn, &r->p.c) ||
	    qp_connect(&r->p.d, r->p.qp, r->p.psn, &r->t.c))
		die("QP to RTR/RTS: %s", strerror(errno));
	r->first = mtu_bytes(path_mtu(&r->t.d, &r->p.c));
	r->tbuf = alloc_buf(r->len);
	r->pbuf = alloc_buf(r->len);
	r->zero = alloc_buf(r->len);
	memset(r->tbuf, 0, r->len);
	memset(r->zero, 0, r->len);
	pattern_fill(r->pbuf, r->len, 0xde7e9);
	r->tmr = reg_mr(r->t.d.pd, r->tbuf, r->len, RC_ACCESS);
	r->pmr = reg_mr(r->p.d.pd, r->pbuf, r->len, IBV_ACCESS_LOCAL_WRITE);

	sge = (struct ibv_sge){ (uintptr_t)r->pbuf, (uint32_t)r->len, r->pmr->lkey };
	wr.wr.rdma.remote_addr = (uintptr_t)r->tbuf;
	wr.wr.rdma.rkey = r->tmr->rkey;
	if (ibv_post_send(r->p.qp, &wr, &bad))
		die("ibv_post_send: %s", strerror(errno));
	if (wait_bytes(r->tbuf, r->pbuf, (size_t)r->first, 10000))
		die("the WRITE's first %d bytes did not arrive within 10 s", r->first);
	sleep_us(300000);	/* the rest must be held back by the filter */
	if (cq_wait(r->p.cq, &wc, 0) ||
	    memcmp(r->tbuf + r->first, r->zero, r->len - (size_t)r->first))
		die("more than the WRITE's first packet arrived: is the drop filter in place?");
}

/* After @unblock: the peer's WRITE must end NAKed, nothing more written. */
static int check_refused(struct run *r, const char *unblock)
{
	int head_ok, rest_ok, new_ok;
	struct ibv_wc wc;

	if (unblock && system(unblock))
		die("`%s` failed", unblock);
	if (cq_wait(r->p.cq, &wc, 20000) != 1) {
		printf("FAIL %s_write_refused: the peer's WRITE did not complete within 20 s\n", mode);
		return 1;
	}
	head_ok = !memcmp(r->tbuf, r->pbuf, (size_t)r->first);
	rest_ok = !memcmp(r->tbuf + r->first, r->zero, r->len - (size_t)r->first);
	new_ok = !r->tbuf2 || !memcmp(r->tbuf2, r->zero, r->len);
	if (wc.status != IBV_WC_REM_ACCESS_ERR || !head_ok || !rest_ok || !new_ok) {
		printf("FAIL %s_write_refused: peer CQE %s (expected %s); first packet's bytes %s, rest %s%s\n",
		       mode, wc_str(&wc), ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR),
		       head_ok ? "as written" : "changed",
		       rest_ok ? "untouched" : "WRITTEN after it",
		       new_ok ? "" : ", the new translation WRITTEN");
		return 1;
	}
	printf("PASS %s_write_refused (peer %s, nothing written after the first %d bytes%s)\n",
	       mode, ibv_wc_status_str(wc.status), r->first,
	       r->tbuf2 ? ", nor into the new translation" : "");
	return 0;
}

int main(int argc, char **argv)
{
	const char *tdev = NULL, *pdev = NULL, *unblock = NULL;
	int tg = -1, pg = -1, c, failed = 0;
	struct run r = { .len = 16384 };
	uint64_t ms;

	prog_name = "rdma_dereg";
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt(argc, argv, "d:g:D:G:u:l:R")) != -1) {
		switch (c) {
		case 'd': tdev = optarg; break;
		case 'g': tg = atoi(optarg); break;
		case 'D': pdev = optarg; break;
		case 'G': pg = atoi(optarg); break;
		case 'u': unblock = optarg; break;
		case 'l': r.len = strtoul(optarg, NULL, 0); break;
		case 'R': mode = "rereg"; break;
		default: tdev = NULL; break;
		}
	}
	if (!tdev || !pdev || tg < 0 || pg < 0 || optind != argc || r.len < 8192) {
		fprintf(stderr, "usage: rdma_dereg -d TDEV -g TGIDX -D PDEV -G PGIDX [-u CMD] [-l LEN >= 8192] [-R]\n");
		return 2;
	}
	end_open(&r.t, tdev, tg);
	end_open(&r.p, pdev, pg);
	start_write(&r);
	if (!strcmp(mode, "rereg")) {
		r.tbuf2 = alloc_buf(r.len);
		memset(r.tbuf2, 0, r.len);
	}

	if (r.tbuf2) {
		ms = TIMED("ibv_rereg_mr", ibv_rereg_mr(r.tmr, IBV_REREG_MR_CHANGE_TRANSLATION,
							NULL, r.tbuf2, r.len, 0));
	} else {
		ms = TIMED("ibv_dereg_mr", ibv_dereg_mr(r.tmr));
	}
	failed += ms > BOUND_MS;
	printf("%s %s_during_write%sibv_%s_mr %llu ms%s\n", ms > BOUND_MS ? "FAIL" : "PASS", mode,
	       ms > BOUND_MS ? ": " : " (", mode, (unsigned long long)ms, ms > BOUND_MS ? "" : ")");

	failed += check_refused(&r, unblock);
	if (r.tbuf2 && ibv_dereg_mr(r.tmr))
		die("ibv_dereg_mr of the re-registered MR: %s", strerror(errno));
	failed += teardown(&r.t);
	if (ibv_destroy_qp(r.p.qp) || ibv_destroy_cq(r.p.cq) || ibv_dereg_mr(r.pmr) ||
	    ibv_dealloc_pd(r.p.d.pd) || ibv_close_device(r.p.d.ctx))
		die("peer teardown: %s", strerror(errno));
	return failed ? 1 : 0;
}
