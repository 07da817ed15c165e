// SPDX-License-Identifier: GPL-2.0
/*
 * inject: crafted RoCEv2 packets (UDP port 4791) against a sroce device,
 * each class checked against the device's drop counters.
 *
 * Usage: inject -d DEV -g GIDX -s SRC_IP -t DST_IP [-n NETNS] [-c COUNT]
 *               [-S SEED] [-v]
 *   DEV       the sroce device that owns DST_IP (the receiver under test)
 *   GIDX      index of DST_IP's RoCE v2 GID on DEV (tests/lib.sh gid_index)
 *   SRC_IP    an address of the sending side (used in the IP header and as
 *             the remote address of the QPs we create); SRC_IP and DST_IP
 *             are both IPv4 or both IPv6. With IPv6 the class names get an
 *             "ipv6/" prefix.
 *   NETNS     a netns file (e.g. /run/netns/B) holding SRC_IP: the raw
 *             socket is created there, so packets arrive over the link like
 *             real traffic. Everything else (verbs, the counters in
 *             /sys/class/infiniband/DEV) stays in the caller's namespace:
 *             run this in init_net, where the device's hw_counters live.
 *   COUNT     number of random-garbage packets (default 200), SEED its seed
 *
 * How: a raw socket (IPPROTO_RAW, so the header is ours: IP_HDRINCL for
 * IPv4, implied for IPv6) sends IP + UDP + BTH + ... packets we build byte
 * by byte. We set every IP header field (the kernel fills only the IPv4
 * header checksum, which the ICRC masks), so we can compute a correct ICRC
 * ourselves (icrc.c): CRC-32 (zlib's) over 8 bytes of 0xff, the IP
 * header with TOS, TTL and checksum (IPv4) or traffic class, flow label and
 * hop limit (IPv6) set to ones, the UDP header (checksum 0, as rxe sends)
 * with the checksum set to ones, the BTH with its byte 4 set to ones, and
 * the rest up to the ICRC; stored little-endian
 * (IBTA annex A17.3.3, "ICRC"). The
 * control classes prove the ICRC is right: the device accepts them.
 *
 * The device's QPs for the packets to hit: U (UD, RTS, receives posted),
 * R (RC, RTS) and C (UC, RTS), both towards a QPN that does not exist on the
 * sending side at SRC_IP, W (UD left in INIT), V (RC left in RESET), and the
 * number of a destroyed QP. The addr/ classes send from another address
 * of SRC_IP's subnet (SRC_IP with bit 0x40 of its last byte flipped), which
 * the raw socket may put in the header: R and C must not take those
 * packets, U must.
 *
 * Each class sends its packets, then reads the counters until the
 * expected ones are reached (5 s at most) and again 300 ms later, and
 * requires the change of every tracked counter to equal the class's
 * expected vector exactly: each packet is counted once, either in
 * rcvd_pkts (delivered to a QP and not dropped there) or in the one
 * rx_drop_* counter of the first reason to drop it; nothing is ever sent
 * back (sent_pkts unchanged). It also requires no unexpected completion
 * and U, R, C still in RTS. Output: `PASS class (detail)` or
 * `FAIL class: why` lines, then `TOTAL dropped N delivered M`; exit 1 if
 * any class failed, 2 if the setup failed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "icrc.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define ROCE_PORT	4791
#define UD_QKEY		0x11111111
#define PEER_QPN	0xabcd00	/* R's and C's remote QPN: nobody */
#define SRC_QPN		0x000123	/* DETH source QP of our UD packets */
#define NO_QPN		0xabcdef	/* not a QP of the device */
#define NRECV		64		/* receives posted on U */
#define RECV_SIZE	256
#define WATCHDOG_S	170	/* below the 200 s t-50 gives it */

/* BTH opcodes (IBTA 9.2.3 table 43). */
enum {
	OP_RC_SEND_ONLY = 0x04, OP_RC_WRITE_ONLY = 0x0a, OP_RC_ACK = 0x11,
	OP_RC_CMP_SWAP = 0x13, OP_UC_SEND_ONLY = 0x24, OP_UD_SEND_ONLY = 0x64,
	OP_CNP = 0x81,
};

/* ------------------------------------------------------------------ */
/* Counters                                                            */
/* ------------------------------------------------------------------ */

/* Tracked counters (drivers/sroce/sroce_counters.c names). */
enum cnt {
	RCVD, SENT, CNP_RCVD, RATE_RED, D_MALFORMED, D_ICRC, D_OPCODE, D_NO_QP,
	D_PKEY, D_QKEY, D_STATE, D_ADDR, NCNT,
};

#define FIRST_DROP	D_MALFORMED

static const char *const cnt_name[NCNT] = {
	[RCVD] = "rcvd_pkts", [SENT] = "sent_pkts", [CNP_RCVD] = "cnp_rcvd",
	[RATE_RED] = "rate_reductions",
	[D_MALFORMED] = "rx_drop_malformed", [D_ICRC] = "rx_drop_icrc",
	[D_OPCODE] = "rx_drop_opcode", [D_NO_QP] = "rx_drop_no_qp",
	[D_PKEY] = "rx_drop_pkey", [D_QKEY] = "rx_drop_qkey",
	[D_STATE] = "rx_drop_state", [D_ADDR] = "rx_drop_addr",
};

struct snap {
	long long v[NCNT];
};

/* ------------------------------------------------------------------ */
/* Packets                                                             */
/* ------------------------------------------------------------------ */

enum icrc { ICRC_GOOD, ICRC_NONE, ICRC_FLIP, ICRC_STALE, ICRC_UNMASKED, ICRC_BE };

/* UDP payload under construction: BTH ... payload + pad (ICRC added later). */
struct pkt {
	uint8_t b[2048];
	size_t len;
	enum icrc icrc;
	int other_src;		/* send from struct net's other, not src */
};

static void put8(struct pkt *p, unsigned int v)
{
	p->b[p->len++] = (uint8_t)v;
}

static void put16(struct pkt *p, unsigned int v)
{
	put8(p, v >> 8);
	put8(p, v);
}

static void put24(struct pkt *p, uint32_t v)
{
	put8(p, v >> 16);
	put16(p, v & 0xffff);
}

static void put32(struct pkt *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p, v & 0xffff);
}

static void put64(struct pkt *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p, (uint32_t)v);
}

static void putfill(struct pkt *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		put8(p, seed + i * 13);
}

/* BTH (IBTA 9.2): OpCode, SE|M|PadCnt|TVer, P_Key, F|B|resv, DestQP, A|resv, PSN. */
static void bth(struct pkt *p, unsigned int op, unsigned int pad, unsigned int tver,
		unsigned int pkey, uint32_t qpn, uint32_t psn)
{
	put8(p, op);
	put8(p, (pad & 3) << 4 | (tver & 15));
	put16(p, pkey);
	put8(p, 0);
	put24(p, qpn);
	put8(p, 0);
	put24(p, psn);
}

static void deth(struct pkt *p, uint32_t qkey, uint32_t src_qp)
{
	put32(p, qkey);
	put8(p, 0);
	put24(p, src_qp);
}

/* A UD SEND ONLY of @n payload bytes (pattern @seed) with the right pad. */
static void ud_send(struct pkt *p, unsigned int pkey, uint32_t qpn, uint32_t qkey,
		    size_t n, unsigned int seed)
{
	unsigned int pad = (unsigned int)(-n & 3);

	bth(p, OP_UD_SEND_ONLY, pad, 0, pkey, qpn, 0);
	deth(p, qkey, SRC_QPN);
	putfill(p, n, seed);
	p->len += pad;
}

struct net {
	int fd;
	int af;				/* AF_INET or AF_INET6 */
	union { struct in_addr v4; struct in6_addr v6; } src, dst, other;
	uint16_t ip_id;
	uint16_t sport;
	uint64_t sent;
};

/*
 * The IP header of a packet with @ulen bytes from the UDP header on, from
 * n->src or, with @other_src, from n->other.
 */
static size_t ip_header(struct net *n, uint8_t *f, size_t ulen, int other_src)
{
	if (++n->ip_id == 0)
		n->ip_id = 1;	/* IPv4: 0 would let the kernel choose */
	if (n->af == AF_INET6) {
		f[0] = 0x60;	/* version 6, traffic class 0, flow label 0 */
		f[1] = f[2] = f[3] = 0;
		f[4] = (uint8_t)(ulen >> 8);
		f[5] = (uint8_t)ulen;
		f[6] = IPPROTO_UDP;
		f[7] = 64;
		memcpy(f + 8, other_src ? &n->other.v6 : &n->src.v6, 16);
		memcpy(f + 24, &n->dst.v6, 16);
		return 40;
	}
	/* IPv4: no options, DF, TTL 64; the kernel fills the checksum */
	f[0] = 0x45;
	f[1] = 0;
	f[2] = (uint8_t)((20 + ulen) >> 8);
	f[3] = (uint8_t)(20 + ulen);
	f[4] = (uint8_t)(n->ip_id >> 8);
	f[5] = (uint8_t)n->ip_id;
	f[6] = 0x40;
	f[7] = 0;
	f[8] = 64;
	f[9] = IPPROTO_UDP;
	f[10] = f[11] = 0;
	memcpy(f + 12, other_src ? &n->other.v4 : &n->src.v4, 4);
	memcpy(f + 16, &n->dst.v4, 4);
	return 20;
}

/*
 * Sends @p as IP/UDP to port 4791, appending the ICRC @p->icrc asks for.
 * Returns 0 or -1.
 */
static int send_pkt(struct net *n, const struct pkt *p)
{
	uint8_t f[2048 + 64];
	size_t body = p->len + (p->icrc == ICRC_NONE ? 0 : 4);
	size_t hl, tot, u;
	struct sockaddr_storage ss = {};
	socklen_t sl;
	uint32_t icrc;
	ssize_t r;

	if (p->len > sizeof(p->b))
		return -1;
	hl = ip_header(n, f, 8 + body, p->other_src);
	tot = hl + 8 + body;
	u = hl;
	/* UDP: checksum 0 (none, as rxe sends) */
	f[u + 0] = (uint8_t)(n->sport >> 8);
	f[u + 1] = (uint8_t)n->sport;
	f[u + 2] = ROCE_PORT >> 8;
	f[u + 3] = ROCE_PORT & 0xff;
	f[u + 4] = (uint8_t)((8 + body) >> 8);
	f[u + 5] = (uint8_t)(8 + body);
	f[u + 6] = f[u + 7] = 0;
	memcpy(f + u + 8, p->b, p->len);

	if (p->icrc != ICRC_NONE) {
		icrc = roce_icrc(f, hl + 8 + p->len, p->icrc != ICRC_UNMASKED);
		if (p->icrc == ICRC_FLIP)
			icrc ^= 1;
		if (p->icrc == ICRC_BE)
			icrc = __builtin_bswap32(icrc);
		icrc_put(f + u + 8 + p->len, icrc);
		if (p->icrc == ICRC_STALE && p->len)
			f[u + 8 + p->len - 1] ^= 0x80;	/* last byte changed after */
	}
	n->sport = (uint16_t)(0xc000 | ((n->sport + 1) & 0x3fff));
	if (n->af == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		a->sin6_family = AF_INET6;
		a->sin6_addr = n->dst.v6;	/* sin6_port 0: IPPROTO_RAW */
		sl = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		a->sin_family = AF_INET;
		a->sin_addr = n->dst.v4;
		sl = sizeof(*a);
	}
	r = sendto(n->fd, f, tot, 0, (struct sockaddr *)&ss, sl);
	if (r != (ssize_t)tot)
		return -1;
	n->sent++;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Test state                                                          */
/* ------------------------------------------------------------------ */

struct inj {
	const char *dev;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	struct ibv_qp *u, *r, *c, *w, *v;
	uint32_t dead_qpn;
	struct ibv_port_attr pattr;
	int gidx;
	struct net net;
	uint64_t seed;
	int garbage;
	char why[1024];
	uint64_t total_drop, total_rcvd;
	int verbose;
	const char *prefix;		/* "" or "ipv6/" */
};

static void whyf(struct inj *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void whyf(struct inj *t, const char *fmt, ...)
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

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int read_snap(struct inj *t, struct snap *s)
{
	char path[256], val[64];
	int i, fd;
	ssize_t n;

	for (i = 0; i < NCNT; i++) {
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/hw_counters/%s",
			 t->dev, cnt_name[i]);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			return -1;
		n = read(fd, val, sizeof(val) - 1);
		close(fd);
		if (n <= 0)
			return -1;
		val[n] = 0;
		s->v[i] = atoll(val);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Classes                                                             */
/* ------------------------------------------------------------------ */

/*
 * A class builds its packets with build(t, i, p) for i = 0 .. count - 1.
 * Expected change: want[] (exact, every tracked counter not named is 0);
 * with any_drop, the rx_drop_* counters together rise by count instead.
 * deliver: that many UD receives complete on U with the packets' payload.
 */
struct klass {
	const char *name;
	void (*build)(struct inj *t, int i, struct pkt *p);
	int count;
	struct { enum cnt c; int n; } want[3];	/* n = -1: "count" */
	int any_drop;
	int deliver;
	const char *src;
};

/* Payload length of control packet i: 29..32 bytes, so every pad 0..3. */
static size_t ctl_len(int i)
{
	return 32 - (size_t)(i % 4);
}

static void b_ctl_ud(struct inj *t, int i, struct pkt *p)
{
	ud_send(p, 0xffff, t->u->qp_num, UD_QKEY, ctl_len(i), 0x40 + (unsigned int)i);
}

/* A CNP (annex A17.9.3) naming @qpn: BTH with BECN, 16 reserved bytes. */
static void cnp(struct pkt *p, uint32_t qpn)
{
	bth(p, OP_CNP, 0, 0, 0xffff, qpn, 0);
	p->b[4] = 0x40;		/* BECN (masked in the ICRC) */
	p->len += 16;		/* reserved, zero */
}

/* CNPs from the peer to R, then to C: they lower the QP's rate. */
static void b_ctl_cnp(struct inj *t, int i, struct pkt *p)
{
	cnp(p, i < 2 ? t->r->qp_num : t->c->qp_num);
}

/* Shorter than a BTH: 0, 1, 2, 4, 8 and 11 bytes, a valid first byte. */
static void b_short(struct inj *t, int i, struct pkt *p)
{
	static const size_t len[] = { 0, 1, 2, 4, 8, 11 };

	bth(p, OP_RC_SEND_ONLY, 0, 0, 0xffff, t->r->qp_num, 0);
	p->len = len[i];
	p->icrc = ICRC_NONE;
}

/* All headers, no room for the ICRC. */
static void b_no_icrc(struct inj *t, int i, struct pkt *p)
{
	if (i == 0) {
		bth(p, OP_RC_SEND_ONLY, 0, 0, 0xffff, t->r->qp_num, 0);
	} else {
		bth(p, OP_UD_SEND_ONLY, 0, 0, 0xffff, t->u->qp_num, 0);
		deth(p, UD_QKEY, SRC_QPN);
	}
	p->icrc = ICRC_NONE;
}

/* Undefined or unsupported opcodes, otherwise valid, to an existing QP. */
static const unsigned int bad_ops[] = {
	0x15, 0x18, 0x1f,	/* RC: reserved */
	0x2c, 0x3f,		/* UC: reserved */
	0x44,			/* RD SEND ONLY: no RD on RoCE */
	0x60, 0x66, 0x7f,	/* UD: only SEND ONLY (+IMM) exist */
	0x80, 0xa0,		/* CNP range but not CNP; reserved */
	0xc0, 0xff,		/* manufacturer specific, none defined */
};

static void b_bad_op(struct inj *t, int i, struct pkt *p)
{
	bth(p, bad_ops[i], 0, 0, 0xffff, t->r->qp_num, 0);
	putfill(p, 32, (unsigned int)i);
}

/* The opcode's headers do not fit; a correct ICRC at the end. */
static void b_hdr_beyond(struct inj *t, int i, struct pkt *p)
{
	switch (i) {
	case 0:	/* RDMA WRITE ONLY: 8 of the RETH's 16 bytes */
		bth(p, OP_RC_WRITE_ONLY, 0, 0, 0xffff, t->r->qp_num, 0);
		put64(p, 0x1000);
		break;
	case 1:	/* COMPARE SWAP: 20 of the AtomicETH's 28 bytes */
		bth(p, OP_RC_CMP_SWAP, 0, 0, 0xffff, t->r->qp_num, 0);
		putfill(p, 20, 1);
		break;
	case 2:	/* UD SEND ONLY: 4 of the DETH's 8 bytes */
		bth(p, OP_UD_SEND_ONLY, 0, 0, 0xffff, t->u->qp_num, 0);
		put32(p, UD_QKEY);
		break;
	case 3:	/* ACKNOWLEDGE: 2 of the AETH's 4 bytes */
		bth(p, OP_RC_ACK, 0, 0, 0xffff, t->r->qp_num, 0);
		put16(p, 0);
		break;
	default: /* RDMA WRITE ONLY, whole RETH, but the ICRC is missing */
		bth(p, OP_RC_WRITE_ONLY, 0, 0, 0xffff, t->r->qp_num, 0);
		put64(p, 0x1000);
		put32(p, 0x1234);
		put32(p, 0);
		p->icrc = ICRC_NONE;
		break;
	}
}

/* PadCnt larger than the payload that precedes the ICRC. */
static void b_pad(struct inj *t, int i, struct pkt *p)
{
	switch (i) {
	case 0:	/* RC SEND ONLY: pad 3, 2 bytes */
		bth(p, OP_RC_SEND_ONLY, 3, 0, 0xffff, t->r->qp_num, 0);
		putfill(p, 2, 0);
		break;
	case 1:	/* RC SEND ONLY: pad 3, no payload at all */
		bth(p, OP_RC_SEND_ONLY, 3, 0, 0xffff, t->r->qp_num, 0);
		break;
	case 2:	/* UD SEND ONLY: pad 2, no payload */
		bth(p, OP_UD_SEND_ONLY, 2, 0, 0xffff, t->u->qp_num, 0);
		deth(p, UD_QKEY, SRC_QPN);
		break;
	default: /* ACKNOWLEDGE carries no payload: pad 1 and one byte */
		bth(p, OP_RC_ACK, 1, 0, 0xffff, t->r->qp_num, 0);
		put32(p, 0x1f000000);
		put8(p, 0);
		break;
	}
}

static void b_tver(struct inj *t, int i, struct pkt *p)
{
	ud_send(p, 0xffff, t->u->qp_num, UD_QKEY, 32, (unsigned int)i);
	p->b[1] |= (uint8_t)(1 + i);	/* TVer 1, 2 */
}

static void b_icrc(struct inj *t, int i, struct pkt *p)
{
	static const enum icrc how[] = { ICRC_FLIP, ICRC_STALE, ICRC_UNMASKED, ICRC_BE };

	ud_send(p, 0xffff, t->u->qp_num, UD_QKEY, 32, (unsigned int)i);
	p->icrc = how[i];
}

static void b_pkey(struct inj *t, int i, struct pkt *p)
{
	static const unsigned int pkeys[] = { 0x1234, 0x0000, 0x8001, 0x7ffe };

	if (i < 4) {
		ud_send(p, pkeys[i], t->u->qp_num, UD_QKEY, 32, (unsigned int)i);
	} else {
		bth(p, OP_RC_SEND_ONLY, 0, 0, 0x1234, t->r->qp_num, 0);
		putfill(p, 32, 0);
	}
}

static void b_no_qp(struct inj *t, int i, struct pkt *p)
{
	switch (i) {
	case 0:
		ud_send(p, 0xffff, NO_QPN, UD_QKEY, 32, 0);
		break;
	case 1:	/* QP0 does not exist on RoCE (IBTA A17.4.1) */
		ud_send(p, 0xffff, 0, UD_QKEY, 32, 0);
		break;
	case 2:	/* a QP that was destroyed */
		ud_send(p, 0xffff, t->dead_qpn, UD_QKEY, 32, 0);
		break;
	default:
		bth(p, OP_RC_SEND_ONLY, 0, 0, 0xffff, 0xfffffe, 0);
		putfill(p, 32, 0);
		break;
	}
}

/* A valid packet of another transport than the QP's. */
static void b_transport(struct inj *t, int i, struct pkt *p)
{
	switch (i) {
	case 0:	/* UD SEND to the RC QP */
		ud_send(p, 0xffff, t->r->qp_num, UD_QKEY, 32, 0);
		break;
	case 1:	/* RC SEND to the UD QP */
		bth(p, OP_RC_SEND_ONLY, 0, 0, 0xffff, t->u->qp_num, 0);
		putfill(p, 32, 0);
		break;
	case 2:	/* UC SEND to the RC QP */
		bth(p, OP_UC_SEND_ONLY, 0, 0, 0xffff, t->r->qp_num, 0);
		putfill(p, 32, 0);
		break;
	case 3:	/* RC SEND to the UC QP */
		bth(p, OP_RC_SEND_ONLY, 0, 0, 0xffff, t->c->qp_num, 0);
		putfill(p, 32, 0);
		break;
	default: /* RC RDMA WRITE ONLY to the UD QP */
		bth(p, OP_RC_WRITE_ONLY, 0, 0, 0xffff, t->u->qp_num, 0);
		put64(p, (uintptr_t)t->buf);
		put32(p, t->mr->rkey);
		put32(p, 32);
		putfill(p, 32, 0);
		break;
	}
}

static void b_qkey(struct inj *t, int i, struct pkt *p)
{
	ud_send(p, 0xffff, t->u->qp_num, i ? 0x22222222 : 0, 32, 0);
}

/* To QPs that are not ready to receive: W (UD, INIT) and V (RC, RESET). */
static void b_state(struct inj *t, int i, struct pkt *p)
{
	if (i == 0) {
		ud_send(p, 0xffff, t->w->qp_num, UD_QKEY, 32, 0);
	} else {
		bth(p, OP_RC_SEND_ONLY, 0, 0, 0xffff, t->v->qp_num, 0);
		putfill(p, 32, 0);
	}
}

/* Valid packets to R and C, but from another address than their peer's. */
static void b_addr(struct inj *t, int i, struct pkt *p)
{
	switch (i) {
	case 0:	/* RC SEND ONLY, the PSN R expects */
		bth(p, OP_RC_SEND_ONLY, 0, 0, 0xffff, t->r->qp_num, 0);
		putfill(p, 32, 0);
		break;
	case 1:	/* RC ACKNOWLEDGE (a response) */
		bth(p, OP_RC_ACK, 0, 0, 0xffff, t->r->qp_num, 0);
		put32(p, 0x1f000000);
		break;
	case 2:	/* UC SEND ONLY */
		bth(p, OP_UC_SEND_ONLY, 0, 0, 0xffff, t->c->qp_num, 0);
		putfill(p, 32, 0);
		break;
	default: /* CNP to R */
		b_ctl_cnp(t, i, p);
		break;
	}
	p->other_src = 1;
}

/* CNPs to R and C from another address than their peer's: spoofed. */
static void b_cnp_spoofed(struct inj *t, int i, struct pkt *p)
{
	cnp(p, i % 2 ? t->c->qp_num : t->r->qp_num);
	p->other_src = 1;
}

/* CNPs to datagram QPs (U in RTS, W in INIT), from the peer or not. */
static void b_cnp_ud(struct inj *t, int i, struct pkt *p)
{
	cnp(p, i < 3 ? t->u->qp_num : t->w->qp_num);
	p->other_src = i % 2;
}

/* CNPs to V: an RC QP in RESET, which has no path. */
static void b_cnp_no_path(struct inj *t, int i, struct pkt *p)
{
	(void)i;
	cnp(p, t->v->qp_num);
}

/* The UD control packets from the other address. */
static void b_ctl_ud_other(struct inj *t, int i, struct pkt *p)
{
	b_ctl_ud(t, i, p);
	p->other_src = 1;
}

/* splitmix64 */
static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* 0 .. 300 random bytes; no ICRC (the last 4 random bytes stand for one). */
static void b_garbage(struct inj *t, int i, struct pkt *p)
{
	size_t n = (size_t)(rnd(&t->seed) % 301), k;

	(void)i;
	for (k = 0; k < n; k++)
		p->b[k] = (uint8_t)rnd(&t->seed);
	p->len = n;
	p->icrc = ICRC_NONE;
}

#define N	(-1)	/* "count" in want[] */

static struct klass classes[] = {
	{ "control/ud-send-delivered", b_ctl_ud, 8, { { RCVD, N } }, 0, 8,
	  "valid UD SEND ONLY, payload 29..32 B (every PadCnt): proves our ICRC and headers" },
	{ "control/cnp-received", b_ctl_cnp, 3,
	  { { RCVD, N }, { CNP_RCVD, N }, { RATE_RED, N } }, 0, 0,
	  "valid CNPs (annex A17.9.3) from the peer to R and C: each cuts the QP's rate (DCQCN)" },
	{ "truncated/shorter-than-bth", b_short, 6, { { D_MALFORMED, N } }, 0, 0,
	  "IBTA 9.2 / 9.6: a packet without a whole BTH is malformed" },
	{ "truncated/headers-without-icrc", b_no_icrc, 2, { { D_MALFORMED, N } }, 0, 0,
	  "A17.3.3: every RoCEv2 packet ends with a 4-byte ICRC" },
	{ "opcode/undefined-or-unsupported", b_bad_op, (int)ARRAY_SIZE(bad_ops),
	  { { D_OPCODE, N } }, 0, 0,
	  "IBTA 9.2.3 table 43 (reserved, RD, vendor opcodes) and 9.6 OpCode check: silently dropped; valid ICRC" },
	{ "malformed/header-beyond-packet", b_hdr_beyond, 5, { { D_MALFORMED, N } }, 0, 0,
	  "IBTA 9.2-9.3 / 9.6: the opcode's extended headers and the ICRC must fit" },
	{ "malformed/pad-beyond-payload", b_pad, 4, { { D_MALFORMED, N } }, 0, 0,
	  "IBTA 9.2.4 PadCnt: pad bytes are part of the payload; none without a payload" },
	{ "malformed/tver-not-0", b_tver, 2, { { D_MALFORMED, N } }, 0, 0,
	  "IBTA 9.2 / 9.6: TVer must be 0, else the packet is dropped" },
	{ "icrc/bad", b_icrc, 4, { { D_ICRC, N } }, 0, 0,
	  "A17.3.3: flipped bit, stale after a payload change, computed unmasked, big-endian" },
	{ "pkey/wrong", b_pkey, 5, { { D_PKEY, N } }, 0, 0,
	  "IBTA 9.6 P_Key check / 10.9: P_Key not the port's default 0xffff/0x7fff; valid ICRC" },
	{ "qpn/unknown", b_no_qp, 4, { { D_NO_QP, N } }, 0, 0,
	  "IBTA 9.6 DestQP check: no such QP (unused, QP0, destroyed); valid ICRC" },
	{ "opcode/wrong-transport-for-qp", b_transport, 5, { { D_OPCODE, N } }, 0, 0,
	  "IBTA 9.6 OpCode check: the opcode's transport is not the QP's service type; valid ICRC" },
	{ "qkey/wrong", b_qkey, 2, { { D_QKEY, N } }, 0, 0,
	  "IBTA 10.2.5 / 9.6 Q_Key check: UD Q_Key mismatch, silently dropped; counted once (rxe: not in rcvd_pkts)" },
	{ "state/qp-not-ready", b_state, 2, { { D_STATE, N } }, 0, 0,
	  "IBTA 10.3.1: QPs in RESET/INIT silently drop what they receive; counted once (rxe: not in rcvd_pkts)" },
	{ "addr/wrong-source-to-rc-uc", b_addr, 4, { { D_ADDR, N } }, 0, 0,
	  "IBTA 9.6: a connected QP takes packets from its path only (RC SEND, ACK, CNP to R, UC SEND to C from another address of the peer's subnet); valid ICRC, nothing delivered or answered" },
	{ "cnp/spoofed-source-to-rc-uc", b_cnp_spoofed, 4, { { D_ADDR, N } }, 0, 0,
	  "annex A17.9: a CNP throttles the QP it names; R and C take CNPs from their peer only, "
	  "a spoofed one is dropped and cuts no rate (rate_reductions unchanged)" },
	{ "cnp/to-datagram-qp", b_cnp_ud, 5, { { D_OPCODE, N } }, 0, 0,
	  "UD QPs take packets from anyone, so they take no CNP (anyone could throttle them): "
	  "dropped as a wrong-transport opcode, no rate cut" },
	{ "cnp/to-rc-without-path", b_cnp_no_path, 2, { { D_STATE, N } }, 0, 0,
	  "an RC QP in RESET has no path (IBTA 10.3.1.1): a CNP to it is dropped" },
	{ "addr/ud-any-source-delivered", b_ctl_ud_other, 4, { { RCVD, N } }, 0, 4,
	  "UD QPs take packets from any address" },
	{ "garbage/random", b_garbage, 0 /* -c */, { { RCVD, 0 } }, 1, 0,
	  "random 0..300-byte UDP payloads, fixed seed: each dropped once, in some rx_drop_*" },
	{ "control/ud-send-still-delivered", b_ctl_ud, 4, { { RCVD, N } }, 0, 4,
	  "after all the above, U still receives" },
};

/* Expected change of counter @k for class @c. */
static long long want_of(const struct klass *c, enum cnt k)
{
	size_t j;

	for (j = 0; j < ARRAY_SIZE(c->want); j++)
		if (c->want[j].n && c->want[j].c == k)
			return c->want[j].n == N ? c->count : c->want[j].n;
	return 0;
}

static long long drops(const struct snap *a, const struct snap *b)
{
	long long d = 0;
	int k;

	for (k = FIRST_DROP; k < NCNT; k++)
		d += b->v[k] - a->v[k];
	return d;
}

/* All expected increments reached (the class's packets were processed). */
static int reached(const struct klass *c, const struct snap *a, const struct snap *b)
{
	int k;

	if (c->any_drop && drops(a, b) < c->count)
		return 0;
	for (k = 0; k < NCNT; k++)
		if (b->v[k] - a->v[k] < want_of(c, (enum cnt)k))
			return 0;
	return 1;
}

static void check_deltas(struct inj *t, const struct klass *c, const struct snap *a,
			 const struct snap *b)
{
	long long d, w;
	int k;

	for (k = 0; k < NCNT; k++) {
		d = b->v[k] - a->v[k];
		if (c->any_drop && k >= FIRST_DROP)
			continue;
		w = want_of(c, (enum cnt)k);
		if (d != w)
			whyf(t, "%s +%lld, expected +%lld", cnt_name[k], d, w);
	}
	if (c->any_drop && (d = drops(a, b)) != c->count)
		whyf(t, "rx_drop_* together +%lld, expected +%d", d, c->count);
}

static void post_recvs(struct inj *t, struct ibv_qp *qp, int n, uint64_t base)
{
	struct ibv_sge s;
	struct ibv_recv_wr wr = { .sg_list = &s, .num_sge = 1 }, *bad;
	int i;

	for (i = 0; i < n; i++) {
		s.addr = (uintptr_t)t->buf + (size_t)((base + (uint64_t)i) % 256) * RECV_SIZE;
		s.length = RECV_SIZE;
		s.lkey = t->mr->lkey;
		wr.wr_id = base + (uint64_t)i;
		if (ibv_post_recv(qp, &wr, &bad))
			whyf(t, "ibv_post_recv: %s", strerror(errno));
	}
}

/* @n receive completions on U carrying control packets 0 .. n-1. */
static void check_delivery(struct inj *t, const struct klass *c, int n)
{
	uint64_t end = now_ms() + 5000;
	struct ibv_wc wc;
	int got = 0, r;

	while (got < n && now_ms() < end) {
		r = ibv_poll_cq(t->cq, 1, &wc);
		if (r < 0) {
			whyf(t, "ibv_poll_cq failed");
			return;
		}
		if (!r) {
			usleep(200);
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS || wc.qp_num != t->u->qp_num ||
		    wc.opcode != IBV_WC_RECV) {
			whyf(t, "completion on QP %#x status %s opcode %d", wc.qp_num,
			     ibv_wc_status_str(wc.status), wc.opcode);
			continue;
		}
		{
			size_t len = ctl_len(got);
			const uint8_t *d = t->buf + (size_t)(wc.wr_id % 256) * RECV_SIZE + 40;
			struct pkt ref = { .len = 0 };

			putfill(&ref, len, 0x40 + (unsigned int)got);
			if (wc.byte_len != 40 + len)
				whyf(t, "packet %d: byte_len %u, expected %zu (40 GRH + %zu)", got,
				     wc.byte_len, 40 + len, len);
			else if (memcmp(d, ref.b, len))
				whyf(t, "packet %d: payload differs", got);
			if (wc.src_qp != SRC_QPN)
				whyf(t, "packet %d: src_qp %#x, sent %#x", got, wc.src_qp, SRC_QPN);
		}
		got++;
	}
	if (got < n)
		whyf(t, "%d of %d UD receives completed", got, n);
	(void)c;
}

static void check_quiet(struct inj *t)
{
	struct ibv_qp *qps[] = { t->u, t->r, t->c };
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_UNKNOWN };
	struct ibv_wc wc;
	size_t i;

	if (ibv_poll_cq(t->cq, 1, &wc) > 0)
		whyf(t, "unexpected completion on QP %#x: status %s opcode %d", wc.qp_num,
		     ibv_wc_status_str(wc.status), wc.opcode);
	for (i = 0; i < ARRAY_SIZE(qps); i++)
		if (ibv_query_qp(qps[i], &a, IBV_QP_STATE, &ia) || a.qp_state != IBV_QPS_RTS)
			whyf(t, "QP %#x (%s) left RTS: state %d", qps[i]->qp_num,
			     i == 0 ? "UD" : i == 1 ? "RC" : "UC", a.qp_state);
}

static int run_class(struct inj *t, struct klass *c)
{
	struct snap a, b;
	struct pkt p;
	uint64_t end;
	int i;

	t->why[0] = 0;
	if (c->deliver)
		post_recvs(t, t->u, c->deliver, 1000 + (uint64_t)(c - classes) * 64);
	if (read_snap(t, &a)) {
		whyf(t, "cannot read /sys/class/infiniband/%s/ports/1/hw_counters", t->dev);
		goto out;
	}
	for (i = 0; i < c->count; i++) {
		memset(&p, 0, sizeof(p));
		p.icrc = ICRC_GOOD;
		c->build(t, i, &p);
		if (send_pkt(&t->net, &p)) {
			whyf(t, "sendto: %s", strerror(errno));
			goto out;
		}
		if (i % 16 == 15)
			usleep(2000);	/* stay far below the receive backlog */
	}
	/* The counters are refreshed at most every 10 ms (hw_stats lifespan). */
	end = now_ms() + 5000;
	do {
		usleep(20000);
		if (read_snap(t, &b))
			break;
	} while (!reached(c, &a, &b) && now_ms() < end);
	usleep(300000);
	if (read_snap(t, &b)) {
		whyf(t, "cannot read the counters");
		goto out;
	}
	check_deltas(t, c, &a, &b);
	t->total_drop += (uint64_t)drops(&a, &b);
	t->total_rcvd += (uint64_t)(b.v[RCVD] - a.v[RCVD]);
	if (c->deliver)
		check_delivery(t, c, c->deliver);
	check_quiet(t);
out:
	if (t->why[0]) {
		printf("FAIL %s%s: %s [%s]\n", t->prefix, c->name, t->why, c->src);
		return 1;
	}
	if (t->verbose)
		printf("PASS %s%s (%d packets; %s)\n", t->prefix, c->name, c->count, c->src);
	else
		printf("PASS %s%s (%d packets)\n", t->prefix, c->name, c->count);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Setup                                                               */
/* ------------------------------------------------------------------ */

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

static void die(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL setup: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(2);
}

static struct ibv_qp *make_qp(struct inj *t, enum ibv_qp_type type, enum ibv_qp_state to)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = t->cq, .recv_cq = t->cq, .qp_type = type,
		.cap = { .max_send_wr = 8, .max_recv_wr = NRECV, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct ibv_qp *qp = ibv_create_qp(t->pd, &ia);
	int mask;

	if (!qp)
		die("ibv_create_qp(type %d): %s", type, strerror(errno));
	if (to == IBV_QPS_RESET)
		return qp;
	mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
	if (type == IBV_QPT_UD) {
		a.qkey = UD_QKEY;
		mask |= IBV_QP_QKEY;
	} else {
		a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				    (type == IBV_QPT_RC ? IBV_ACCESS_REMOTE_READ : 0);
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	if (ibv_modify_qp(qp, &a, mask))
		die("QP type %d to INIT: %s", type, strerror(errno));
	if (to == IBV_QPS_INIT)
		return qp;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	mask = IBV_QP_STATE;
	if (type != IBV_QPT_UD) {
		a.ah_attr.is_global = 1;
		a.ah_attr.port_num = 1;
		a.ah_attr.grh.sgid_index = (uint8_t)t->gidx;
		a.ah_attr.grh.hop_limit = 64;
		if (t->net.af == AF_INET6) {
			memcpy(a.ah_attr.grh.dgid.raw, &t->net.src.v6, 16);
		} else {	/* IPv4-mapped */
			a.ah_attr.grh.dgid.raw[10] = a.ah_attr.grh.dgid.raw[11] = 0xff;
			memcpy(&a.ah_attr.grh.dgid.raw[12], &t->net.src.v4, 4);
		}
		a.path_mtu = t->pattr.active_mtu;
		a.dest_qp_num = PEER_QPN;
		a.rq_psn = 0;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
		if (type == IBV_QPT_RC) {
			a.max_dest_rd_atomic = 1;
			a.min_rnr_timer = 12;
			mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		}
	}
	if (ibv_modify_qp(qp, &a, mask))
		die("QP type %d to RTR: %s", type, strerror(errno));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (type == IBV_QPT_RC) {
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	if (ibv_modify_qp(qp, &a, mask))
		die("QP type %d to RTS: %s", type, strerror(errno));
	return qp;
}

/*
 * n->other: n->src with bit 0x40 of its last byte flipped (0x60 if that
 * is n->dst), so it stays in the subnet of a /24 or /64.
 */
static void other_addr(struct net *n)
{
	size_t len = n->af == AF_INET6 ? 16 : 4;
	uint8_t *o = (uint8_t *)&n->other;

	memcpy(&n->other, &n->src, sizeof(n->other));
	o[len - 1] ^= 0x40;
	if (!memcmp(&n->other, &n->dst, len))
		o[len - 1] ^= 0x20;
}

/* The raw socket, created in the netns @ns (NULL: ours). */
static int raw_socket(const char *ns, int af)
{
	int fd, self = -1, nsfd;

	if (ns) {
		self = open("/proc/self/ns/net", O_RDONLY);
		nsfd = open(ns, O_RDONLY);
		if (self < 0 || nsfd < 0)
			die("open %s: %s", ns, strerror(errno));
		if (setns(nsfd, CLONE_NEWNET))
			die("setns %s: %s", ns, strerror(errno));
		close(nsfd);
	}
	fd = socket(af, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0)
		die("raw socket: %s", strerror(errno));
	if (ns) {
		if (setns(self, CLONE_NEWNET))
			die("setns back: %s", strerror(errno));
		close(self);
	}
	return fd;
}

static void setup(struct inj *t, const char *ns)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	struct ibv_qp *d;
	int i;

	for (i = 0; l && l[i]; i++)
		if (!strcmp(ibv_get_device_name(l[i]), t->dev))
			t->ctx = ibv_open_device(l[i]);
	if (l)
		ibv_free_device_list(l);
	if (!t->ctx)
		die("cannot open RDMA device %s", t->dev);
	if (ibv_query_port(t->ctx, 1, &t->pattr))
		die("ibv_query_port: %s", strerror(errno));
	t->pd = ibv_alloc_pd(t->ctx);
	t->cq = ibv_create_cq(t->ctx, 4 * NRECV, NULL, NULL, 0);
	t->buf = aligned_alloc(4096, 256 * RECV_SIZE);
	if (!t->pd || !t->cq || !t->buf)
		die("PD/CQ/buffer: %s", strerror(errno));
	memset(t->buf, 0, 256 * RECV_SIZE);
	t->mr = ibv_reg_mr(t->pd, t->buf, 256 * RECV_SIZE, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE);
	if (!t->mr)
		die("ibv_reg_mr: %s", strerror(errno));
	t->u = make_qp(t, IBV_QPT_UD, IBV_QPS_RTS);
	t->r = make_qp(t, IBV_QPT_RC, IBV_QPS_RTS);
	t->c = make_qp(t, IBV_QPT_UC, IBV_QPS_RTS);
	t->w = make_qp(t, IBV_QPT_UD, IBV_QPS_INIT);
	t->v = make_qp(t, IBV_QPT_RC, IBV_QPS_RESET);
	d = make_qp(t, IBV_QPT_UD, IBV_QPS_RTS);
	t->dead_qpn = d->qp_num;
	if (ibv_destroy_qp(d))
		die("ibv_destroy_qp: %s", strerror(errno));
	/* R and C get receives too: a packet slipping through would show */
	post_recvs(t, t->r, 8, 100);
	post_recvs(t, t->c, 8, 200);
	if (t->why[0])
		die("%s", t->why);
	t->net.fd = raw_socket(ns, t->net.af);
	t->net.sport = 0xc000;
	t->net.ip_id = (uint16_t)(getpid() | 1);
}

static void on_alarm(int sig)
{
	static const char m[] = "FAIL watchdog: inject did not finish in time\n";

	(void)sig;
	if (write(1, m, sizeof(m) - 1) < 0)
		_exit(1);
	_exit(1);
}

static void usage(void)
{
	fprintf(stderr, "usage: inject -d DEV -g GIDX -s SRC_IP -t DST_IP [-n NETNS] "
		"[-c COUNT] [-S SEED] [-v]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static struct inj t = { .gidx = -1, .garbage = 200, .seed = 0x5eed5eedULL };
	const char *ns = NULL, *src = NULL, *dst = NULL;
	int opt, failed = 0;
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "d:g:s:t:n:c:S:v")) != -1) {
		switch (opt) {
		case 'd': t.dev = optarg; break;
		case 'g': t.gidx = atoi(optarg); break;
		case 's': src = optarg; break;
		case 't': dst = optarg; break;
		case 'n': ns = optarg; break;
		case 'c': t.garbage = atoi(optarg); break;
		case 'S': t.seed = strtoull(optarg, NULL, 0); break;
		case 'v': t.verbose = 1; break;
		default: usage();
		}
	}
	if (!t.dev || t.gidx < 0 || !src || !dst || t.garbage < 0)
		usage();
	t.net.af = strchr(src, ':') ? AF_INET6 : AF_INET;
	if (inet_pton(t.net.af, src, &t.net.src) != 1 || inet_pton(t.net.af, dst, &t.net.dst) != 1)
		usage();
	t.prefix = t.net.af == AF_INET6 ? "ipv6/" : "";
	other_addr(&t.net);

	/* zlib's check value, and the ICRC seed of rocev2-wire.md */
	if (crc32z_selftest())
		die("CRC-32 self test failed");

	signal(SIGALRM, on_alarm);
	alarm(WATCHDOG_S);
	setup(&t, ns);
	for (i = 0; i < ARRAY_SIZE(classes); i++) {
		if (classes[i].build == b_garbage)
			classes[i].count = t.garbage;
		failed |= run_class(&t, &classes[i]);
	}
	printf("TOTAL dropped %llu delivered %llu sent %llu\n",
	       (unsigned long long)t.total_drop, (unsigned long long)t.total_rcvd,
	       (unsigned long long)t.net.sent);
	ibv_destroy_qp(t.u);
	ibv_destroy_qp(t.r);
	ibv_destroy_qp(t.c);
	ibv_destroy_qp(t.w);
	ibv_destroy_qp(t.v);
	ibv_dereg_mr(t.mr);
	ibv_destroy_cq(t.cq);
	ibv_dealloc_pd(t.pd);
	return failed;
}
