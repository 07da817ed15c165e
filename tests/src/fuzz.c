// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz: mutate live RoCEv2 traffic between two sroce devices and inject the
 * mutants with a valid ICRC, so that they pass the ICRC check and reach the
 * transport logic (plus a share with a bad ICRC).
 *
 * Usage: fuzz [-a NETNS_A] [-A IF_A] [-b NETNS_B] [-B IF_B] [-d DEV_A]
 *             [-D DEV_B] [-n PKTS] [-r RATE] [-t SECS] [-w SECS] [-x BAD_PCT]
 *             [-S SEED]
 *   NETNS_A/IF_A  netns file and veth of device DEV_A (default /run/netns/A,
 *                 vethA, sroce0); likewise B (/run/netns/B, vethB, sroce1)
 *   PKTS          packets to inject (default 100000); SECS the most time
 *                 to take for them (default 900); -w the most time to wait
 *                 for the first captured packets (default 60); RATE the
 *                 most packets per second (default 0: as fast as it goes;
 *                 a limit leaves the real traffic CPU time to run)
 *   BAD_PCT       share of packets sent with a bad ICRC (default 10)
 *   SEED          the mutations' seed (default: random; always printed)
 * Run it in init_net (where the devices' hw_counters are) while real RC, UC,
 * UD and XRC traffic runs between the devices.
 *
 * Capture: an AF_PACKET socket on IF_B sees every frame of the link, both
 * ways. RoCEv2 frames (IPv4, UDP port 4791) go into a pool of the 8 latest
 * per BTH opcode (requests and responses of RC, UC, UD and XRC: BTH,
 * XRCETH, RETH, AETH, AtomicETH, AtomicAckETH, ImmDt, DETH, CNP; FETH and
 * IETH only from mutants: no traffic here sends FLUSH or SEND with
 * invalidate); their QPNs, PSNs, rkeys, VAs, MSNs and
 * Q_Keys are remembered too. The pool is refilled all the while, so the
 * mutants target live QPs near their current PSNs.
 *
 * Targets: traffic runs are short, so many pool packets name QPs that are
 * gone. Half of the draws take an opcode seen in the last LIVE_S seconds,
 * and nine in ten packets of a gone QP are aimed at a live QP of the same
 * direction and transport (its QPN, the PSN it expects next) instead; the
 * `targets:` line says how many mutants were of (or aimed at) a live QP.
 *
 * Mutation: a pool packet (a uniformly drawn opcode, then one of its
 * packets, the newest half of the time) gets 1 to 3 mutations (table
 * muts[]: every BTH field, PSNs at the window edges, each extension header's
 * fields (the XRCETH's SRQ number: another one seen, 0, 0xffffff, a
 * neighbour, its reserved byte set), opcode swaps within a message, RC <->
 * XRC and across transports with the headers laid out anew, payload length and pad count, truncation at and
 * inside header boundaries, extra bytes, replays, ECN CE, the source
 * address). The mutant gets new IP total length and checksum, UDP length
 * (checksum 0), TTL 43 (so the capture can tell it from real traffic; the
 * ICRC masks the TTL) and a valid ICRC, except BAD_PCT % of them (one bit
 * flipped, or the ICRC left out). It is sent through an AF_PACKET socket on
 * the veth of the packet's sender, so it arrives over the link like the
 * real ones. The draws derive from SEED only; what they apply to is live
 * traffic, so a replay repeats the mutations, not the exact bytes.
 *
 * Outcome: fuzz predicts for each mutant whether sroce's header checks
 * before the ICRC check (sroce_recv.c: length, opcode, TVer, pad) let it
 * reach the ICRC check. From the devices' hw_counters before and after:
 * the valid-ICRC mutants that failed the ICRC check are
 * rx_drop_icrc - (bad-ICRC mutants that reached it), the others passed it.
 * Packets the stack dropped before sroce (softnet backlog) count against
 * both. fuzz/past-icrc requires more than half of the valid-ICRC mutants
 * past the check, fuzz/bad-icrc every bad-ICRC one that reached the check
 * dropped there (rx_drop_icrc), fuzz/pool every extension header kind but
 * the IETH and the FETH (which no traffic here sends; mutants get them
 * from opcode swaps and the flush mutation) captured, fuzz/count all PKTS sent within SECS.
 * Output: the mutation and target counts, the pool by opcode, `PASS name
 * (...)` / `FAIL name: why` lines for fuzz/pool, fuzz/count, fuzz/bad-icrc
 * and fuzz/past-icrc, then one `SUMMARY ...` line (packets, rate, share
 * past the ICRC check, rcvd_pkts and every rx_drop_* counter's change,
 * both devices summed); exit 1 if a check failed, 2 on a setup error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
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
#define MARK_TTL	43		/* our mutants; real traffic has 64 */
#define FRAME_MAX	1514		/* veth MTU 1500 */
#define RMAX		(1500 - 20 - 8 - 4)	/* BTH.. without ICRC */
#define PER_OP		8		/* pool packets kept per opcode */
#define NSAMPLE		16		/* remembered field values per kind */
#define NFLOW		64		/* (direction, QPN) -> last PSN */
#define BTH_LEN		12
#define PSN_MASK	0xffffffU
#define LIVE_S		2.0		/* a QP seen that recently is live */

static uint64_t n_retarget;	/* mutants aimed at another, live QP */
static uint64_t n_live;		/* mutants of a live QP's packet (or aimed at one) */

/* ------------------------------------------------------------------ */
/* PRNG (splitmix64): every draw derives from the seed                 */
/* ------------------------------------------------------------------ */

static uint64_t rng_state;

static uint64_t rnd64(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t rnd(uint32_t n)
{
	return n ? (uint32_t)(rnd64() % n) : 0;
}

static uint32_t rnd32(void)
{
	return (uint32_t)rnd64();
}

/* ------------------------------------------------------------------ */
/* Header layouts (IBTA 9.2, table 43; annex A17.9.3 for the CNP)      */
/* ------------------------------------------------------------------ */

/* Extension headers, in the order they follow the BTH. */
enum xh { X_XRC, X_DETH, X_FETH, X_RETH, X_ATM, X_AETH, X_ATMACK, X_IMM, X_IETH, X_CNP, NX };

static const uint8_t xsize[NX] = {
	[X_XRC] = 4, [X_DETH] = 8, [X_FETH] = 4, [X_RETH] = 16, [X_ATM] = 28, [X_AETH] = 4,
	[X_ATMACK] = 8, [X_IMM] = 4, [X_IETH] = 4, [X_CNP] = 16,
};

static const char *const xname[NX] = {
	[X_XRC] = "XRCETH", [X_DETH] = "DETH", [X_FETH] = "FETH", [X_RETH] = "RETH", [X_ATM] = "AtomicETH",
	[X_AETH] = "AETH", [X_ATMACK] = "AtomicAckETH", [X_IMM] = "ImmDt",
	[X_IETH] = "IETH", [X_CNP] = "CNP",
};

#define XB(x)	(1u << (x))
#define L_PAY	0x1000		/* carries a payload (or, CNP, may be longer) */
#define L_KNOWN	0x2000		/* an opcode sroce knows */
_Static_assert(XB(NX) <= L_PAY, "the layout flags above the header bits");

static uint16_t layout[256];
static const char *opname[256];

struct opdef {
	uint8_t op;
	uint16_t l;
	const char *name;
};

/*
 * RC opcodes; UC has those below 0x0c at 0x20 + op, XRC (IBTA annex A14)
 * every one up to 0x17 at 0xa0 + op, its requests with an XRCETH after the
 * BTH.
 */
static const struct opdef rc_ops[] = {
	{ 0x00, L_PAY, "SEND_FIRST" }, { 0x01, L_PAY, "SEND_MIDDLE" },
	{ 0x02, L_PAY, "SEND_LAST" }, { 0x03, XB(X_IMM) | L_PAY, "SEND_LAST_IMM" },
	{ 0x04, L_PAY, "SEND_ONLY" }, { 0x05, XB(X_IMM) | L_PAY, "SEND_ONLY_IMM" },
	{ 0x06, XB(X_RETH) | L_PAY, "WRITE_FIRST" }, { 0x07, L_PAY, "WRITE_MIDDLE" },
	{ 0x08, L_PAY, "WRITE_LAST" }, { 0x09, XB(X_IMM) | L_PAY, "WRITE_LAST_IMM" },
	{ 0x0a, XB(X_RETH) | L_PAY, "WRITE_ONLY" },
	{ 0x0b, XB(X_RETH) | XB(X_IMM) | L_PAY, "WRITE_ONLY_IMM" },
	{ 0x0c, XB(X_RETH), "READ_REQUEST" },
	{ 0x0d, XB(X_AETH) | L_PAY, "READ_RESP_FIRST" },
	{ 0x0e, L_PAY, "READ_RESP_MIDDLE" },
	{ 0x0f, XB(X_AETH) | L_PAY, "READ_RESP_LAST" },
	{ 0x10, XB(X_AETH) | L_PAY, "READ_RESP_ONLY" },
	{ 0x11, XB(X_AETH), "ACK" }, { 0x12, XB(X_AETH) | XB(X_ATMACK), "ATOMIC_ACK" },
	{ 0x13, XB(X_ATM), "CMP_SWAP" }, { 0x14, XB(X_ATM), "FETCH_ADD" },
	{ 0x16, XB(X_IETH) | L_PAY, "SEND_LAST_INV" },
	{ 0x17, XB(X_IETH) | L_PAY, "SEND_ONLY_INV" },
	/* IBTA 1.5 annex A19: RC only, no XRC counterpart */
	{ 0x1c, XB(X_FETH) | XB(X_RETH), "FLUSH" },
	{ 0x1d, XB(X_RETH) | L_PAY, "ATOMIC_WRITE" },
};

static void layout_init(void)
{
	static char names[96][32];
	unsigned int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(rc_ops); i++) {
		const struct opdef *d = &rc_ops[i];

		layout[d->op] = d->l | L_KNOWN;
		snprintf(names[n], sizeof(names[n]), "RC_%s", d->name);
		opname[d->op] = names[n++];
		if (d->op > 0x17)
			continue;
		layout[0xa0 + d->op] = (d->l | L_KNOWN) |
			(d->op < 0x0d || d->op > 0x12 ? XB(X_XRC) : 0);
		snprintf(names[n], sizeof(names[n]), "XRC_%s", d->name);
		opname[0xa0 + d->op] = names[n++];
		if (d->op >= 0x0c)
			continue;
		layout[0x20 + d->op] = d->l | L_KNOWN;
		snprintf(names[n], sizeof(names[n]), "UC_%s", d->name);
		opname[0x20 + d->op] = names[n++];
	}
	layout[0x64] = XB(X_DETH) | L_PAY | L_KNOWN;
	opname[0x64] = "UD_SEND_ONLY";
	layout[0x65] = XB(X_DETH) | XB(X_IMM) | L_PAY | L_KNOWN;
	opname[0x65] = "UD_SEND_ONLY_IMM";
	layout[0x81] = XB(X_CNP) | L_PAY | L_KNOWN;
	opname[0x81] = "CNP";
}

/* Header length of @op: BTH and its extension headers. */
static size_t hlen(unsigned int op)
{
	size_t n = BTH_LEN;
	int x;

	for (x = 0; x < NX; x++)
		if (layout[op] & XB(x))
			n += xsize[x];
	return n;
}

/* Offset of extension header @x in a packet of opcode @op, or 0. */
static size_t xoff(unsigned int op, int x)
{
	size_t n = BTH_LEN;
	int i;

	if (!(layout[op] & XB(x)))
		return 0;
	for (i = 0; i < x; i++)
		if (layout[op] & XB(i))
			n += xsize[i];
	return n;
}

/* ------------------------------------------------------------------ */
/* Byte access                                                         */
/* ------------------------------------------------------------------ */

static uint32_t get_be(const uint8_t *p, int n)
{
	uint32_t v = 0;

	while (n--)
		v = v << 8 | *p++;
	return v;
}

static void put_be(uint8_t *p, int n, uint64_t v)
{
	while (n--) {
		p[n] = (uint8_t)v;
		v >>= 8;
	}
}

static uint64_t get_be64(const uint8_t *p)
{
	return (uint64_t)get_be(p, 4) << 32 | get_be(p + 4, 4);
}

static void fill_rand(uint8_t *p, size_t n)
{
	while (n--)
		*p++ = (uint8_t)rnd64();
}

/* ------------------------------------------------------------------ */
/* The pool of captured packets and what they tell                     */
/* ------------------------------------------------------------------ */

/* dir 0: sent by B to A (re-sent on IF_B), 1: by A to B (on IF_A). */
struct cap {
	uint8_t eth[14];
	uint8_t ip[20];
	uint8_t udp[8];
	uint8_t r[RMAX];	/* BTH ... pad, the ICRC left out */
	uint16_t len;
	uint8_t dir;
	double at;		/* when captured */
};

/* A destination QP seen on the link: direction, QPN, its last PSN. */
struct flow {
	uint8_t dir, used, tr;	/* tr: transport, the opcode's top 3 bits */
	uint32_t qpn, psn;
	double seen;		/* when its last packet was captured */
};

struct pool {
	struct cap pkt[256][PER_OP];
	uint64_t seen[256];		/* captured per opcode */
	uint8_t nops;			/* opcodes present */
	uint8_t ops[256];
	uint8_t xhdr[NX][NSAMPLE][28];	/* extension headers seen */
	uint32_t nx[NX];
	uint32_t qpn[2][NSAMPLE];	/* destination QPNs per direction */
	uint32_t nqpn[2];
	struct flow flow[NFLOW];
	uint64_t total;
};

static struct pool P;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The flow of (@dir, @qpn); with @create a new one replaces the oldest. */
static struct flow *flow_of(unsigned int dir, uint32_t qpn, int create)
{
	struct flow *f, *victim = &P.flow[0];
	int i;

	for (i = 0; i < NFLOW; i++) {
		f = &P.flow[i];
		if (f->used && f->dir == dir && f->qpn == qpn)
			return f;
		if (!f->used || (victim->used && f->seen < victim->seen))
			victim = f;
	}
	if (!create)
		return NULL;
	victim->used = 1;
	victim->dir = (uint8_t)dir;
	victim->qpn = qpn;
	return victim;
}

/* Remembers @c's QPN, PSN and extension headers. */
static void pool_learn(const struct cap *c)
{
	unsigned int op = c->r[0];
	uint32_t qpn = get_be(c->r + 5, 3);
	struct flow *f = flow_of(c->dir, qpn, 1);
	uint32_t i;
	int x;

	f->psn = get_be(c->r + 9, 3);
	f->tr = op & 0xe0;
	f->seen = now_s();
	for (i = 0; i < P.nqpn[c->dir] && i < NSAMPLE; i++)
		if (P.qpn[c->dir][i] == qpn)
			break;
	if (i == P.nqpn[c->dir] || i == NSAMPLE)
		P.qpn[c->dir][P.nqpn[c->dir]++ % NSAMPLE] = qpn;
	for (x = 0; x < NX; x++) {
		if (!(layout[op] & XB(x)) || x == X_CNP)
			continue;
		memcpy(P.xhdr[x][P.nx[x]++ % NSAMPLE], c->r + xoff(op, x), xsize[x]);
	}
}

/*
 * Takes the frame @f (@n bytes) seen on IF_B into the pool if it is a
 * real RoCEv2 packet over IPv4 (not one of ours) with all its headers.
 */
static void pool_add(const uint8_t *f, size_t n, int outgoing)
{
	const uint8_t *ip = f + 14, *udp = ip + 20;
	size_t ulen, rlen;
	unsigned int op, slot;
	struct cap *c;

	if (n < 14 + 20 + 8 + BTH_LEN + 4 || f[12] != 0x08 || f[13] != 0 ||
	    ip[0] != 0x45 || ip[9] != 17 || ip[8] == MARK_TTL ||
	    get_be(udp + 2, 2) != ROCE_PORT)
		return;
	ulen = get_be(udp + 4, 2);
	if (ulen < 8 + BTH_LEN + 4 || 14 + 20 + ulen > n || ulen - 8 - 4 > RMAX)
		return;
	rlen = ulen - 8 - 4;
	op = udp[8];
	if (!(layout[op] & L_KNOWN) || rlen < hlen(op))
		return;
	if (!P.seen[op])
		P.ops[P.nops++] = (uint8_t)op;
	slot = P.seen[op]++ % PER_OP;
	c = &P.pkt[op][slot];
	memcpy(c->eth, f, 14);
	memcpy(c->ip, ip, 20);
	memcpy(c->udp, udp, 8);
	memcpy(c->r, udp + 8, rlen);
	c->len = (uint16_t)rlen;
	c->dir = outgoing ? 0 : 1;
	c->at = now_s();
	P.total++;
	pool_learn(c);
}

/*
 * Picks a pool packet: a uniformly drawn opcode (half of the time one with
 * a packet of the last LIVE_S seconds, if any), its newest packet or any.
 */
static const struct cap *pool_pick(void)
{
	unsigned int op = P.ops[rnd(P.nops)];
	uint64_t n, k;
	int tries;

	for (tries = rnd(2) ? 8 : 0; tries > 0; tries--) {
		if (now_s() - P.pkt[op][(P.seen[op] - 1) % PER_OP].at < LIVE_S)
			break;
		op = P.ops[rnd(P.nops)];
	}
	n = P.seen[op];

	if (n > PER_OP)
		n = PER_OP;
	k = rnd(2) ? (P.seen[op] - 1) % PER_OP : rnd((uint32_t)n);
	return &P.pkt[op][k];
}

/* ------------------------------------------------------------------ */
/* Sockets                                                             */
/* ------------------------------------------------------------------ */

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("FAIL fuzz/setup: ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	exit(2);
}

/* An AF_PACKET socket on @ifname in netns @ns; @proto ETH_P_ALL captures. */
static int packet_socket(const char *ns, const char *ifname, int proto)
{
	int self = open("/proc/self/ns/net", O_RDONLY), nsfd, fd, ifindex;
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };

	nsfd = open(ns, O_RDONLY);
	if (self < 0 || nsfd < 0 || setns(nsfd, CLONE_NEWNET))
		die("netns %s: %s", ns, strerror(errno));
	close(nsfd);
	ifindex = (int)if_nametoindex(ifname);
	fd = socket(AF_PACKET, SOCK_RAW, htons(proto));
	if (!ifindex || fd < 0)
		die("%s in %s: %s", ifname, ns, strerror(errno));
	sll.sll_protocol = htons(proto);
	sll.sll_ifindex = ifindex;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)))
		die("bind %s: %s", ifname, strerror(errno));
	if (proto) {
		int sz = 4 << 20;

		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	}
	if (setns(self, CLONE_NEWNET))
		die("setns back: %s", strerror(errno));
	close(self);
	return fd;
}

/* Takes up to @max frames from the capture socket into the pool. */
static int capture(int fd, int max)
{
	static uint8_t f[FRAME_MAX + 64];
	struct sockaddr_ll sll;
	socklen_t sl;
	ssize_t n;
	int got = 0;

	while (got < max) {
		sl = sizeof(sll);
		n = recvfrom(fd, f, sizeof(f), MSG_DONTWAIT, (struct sockaddr *)&sll, &sl);
		if (n <= 0)
			break;
		pool_add(f, (size_t)n, sll.sll_pkttype == PACKET_OUTGOING);
		got++;
	}
	return got;
}

/* ------------------------------------------------------------------ */
/* Mutants                                                             */
/* ------------------------------------------------------------------ */

enum icrc_mode { IC_GOOD, IC_FLIP, IC_NONE };

struct mutant {
	uint8_t r[RMAX + 64];	/* BTH ... (no ICRC) */
	size_t len;
	uint8_t ip[20], udp[8];
	enum icrc_mode icrc;
	const struct cap *c;
};

static uint8_t op_of(const struct mutant *m)
{
	return m->r[0];
}

static unsigned int pad_of(const struct mutant *m)
{
	return m->len > 1 ? (m->r[1] >> 4) & 3 : 0;
}

static void set_pad(struct mutant *m, unsigned int pad)
{
	m->r[1] = (uint8_t)((m->r[1] & ~0x30) | (pad & 3) << 4);
}

/* Payload length of @m by its own opcode's layout and pad (>= 0). */
static size_t paylen(const struct mutant *m)
{
	size_t h = hlen(op_of(m)) + pad_of(m);

	return m->len > h ? m->len - h : 0;
}

/* Offset of header @x in @m, 0 if @m's opcode has none (or it is cut). */
static size_t mx(const struct mutant *m, int x)
{
	size_t o = xoff(op_of(m), x);

	return o && o + xsize[x] <= m->len ? o : 0;
}

/* An extension header @x for a mutant: one seen on the link, or random. */
static void fill_x(int x, uint8_t *p)
{
	memset(p, 0, xsize[x]);
	if (x == X_CNP)
		return;
	if (P.nx[x] && rnd(4))
		memcpy(p, P.xhdr[x][rnd(P.nx[x] < NSAMPLE ? P.nx[x] : NSAMPLE)], xsize[x]);
	else
		fill_rand(p, xsize[x]);
}

/* Changes @m's opcode to @nop with the headers @nop has, keeping payload. */
static void relayout(struct mutant *m, unsigned int nop)
{
	uint8_t old[sizeof(m->r)];
	unsigned int oop = op_of(m);
	size_t olen = m->len, pos = BTH_LEN, pl = paylen(m), poff;
	int x;

	memcpy(old, m->r, olen);
	poff = hlen(oop) < olen ? hlen(oop) : olen;
	m->r[0] = (uint8_t)nop;
	for (x = 0; x < NX; x++) {
		if (!(layout[nop] & XB(x)))
			continue;
		if ((layout[oop] & XB(x)) && xoff(oop, x) + xsize[x] <= olen)
			memcpy(m->r + pos, old + xoff(oop, x), xsize[x]);
		else
			fill_x(x, m->r + pos);
		pos += xsize[x];
	}
	if (!(layout[nop] & L_PAY) || (layout[nop] & XB(X_CNP)))
		pl = 0;
	if (pos + pl + 3 > RMAX)
		pl = RMAX - pos - 3;
	memcpy(m->r + pos, old + poff, pl);
	pos += pl;
	set_pad(m, (unsigned int)(-pl & 3));
	memset(m->r + pos, 0, -pl & 3);
	m->len = pos + (-pl & 3);
}

/* A PSN near @m's flow's window edges, or the absolute edges of 2^24. */
static uint32_t psn_edge(const struct mutant *m)
{
	static const int32_t d[] = {
		0, 1, -1, 2, -2, 3, 64, -64, 0x7fffff, -0x7fffff, 0x800000,
		-0x800000, 0x800001, 0x7ffffe, 0x400000, -0x400000,
	};
	static const uint32_t abs_psn[] = { 0, 1, 0xffffff, 0xfffffe, 0x7fffff, 0x800000 };
	const struct flow *f = flow_of(m->c->dir, get_be(m->r + 5, 3), 0);
	uint32_t base = get_be(m->r + 9, 3);

	if (f && rnd(2))
		base = f->psn + 1;		/* the next one expected */
	switch (rnd(8)) {
	case 0:
		return abs_psn[rnd(ARRAY_SIZE(abs_psn))];
	case 1:
		return rnd32() & PSN_MASK;
	default:
		return (base + (uint32_t)d[rnd(ARRAY_SIZE(d))]) & PSN_MASK;
	}
}

/* A 32-bit value near @v or at the edges. */
static uint32_t edge32(uint32_t v)
{
	static const uint32_t e[] = {
		0, 1, 2, 3, 4, 7, 8, 0x7f, 0x80, 0xff, 0x100, 0x3ff, 0x400, 0x1000,
		0x7fffffff, 0x80000000, 0xfffffff8, 0xfffffffc, 0xffffffff,
	};

	switch (rnd(5)) {
	case 0:
		return e[rnd(ARRAY_SIZE(e))];
	case 1:
		return rnd32();
	case 2:
		return v ^ (1u << rnd(32));
	default:
		return v + (uint32_t)((int32_t)rnd(33) - 16);
	}
}

static uint64_t edge64(uint64_t v)
{
	switch (rnd(6)) {
	case 0:
		return 0;
	case 1:
		return ~0ULL - rnd(16);
	case 2:
		return v + rnd(8) - 4;		/* unaligned */
	case 3:
		return v + ((uint64_t)rnd(1 << 20) << rnd(24));
	case 4:
		return v ^ (1ULL << rnd(64));
	default:
		return rnd64();
	}
}

/* A field of @n bytes at @p (n <= 4) set to an edge of its old value. */
static void mut_field(uint8_t *p, int n)
{
	uint32_t v = edge32(get_be(p, n));

	put_be(p, n, v);
}

/* An rkey seen on the link (another MR, another QP's) or an edge. */
static uint32_t rkey_pick(uint32_t cur)
{
	int x = rnd(2) ? X_RETH : X_ATM;	/* both have the rkey at 8 */

	if (P.nx[x] && rnd(2))
		return get_be(P.xhdr[x][rnd(P.nx[x] < NSAMPLE ? P.nx[x] : NSAMPLE)] + 8, 4);
	return edge32(cur);
}

typedef int (*mut_fn)(struct mutant *m);

static int mu_opcode_raw(struct mutant *m)
{
	m->r[0] = rnd(4) ? (uint8_t)rnd32() : (uint8_t)(m->r[0] ^ (1u << rnd(8)));
	return 0;
}

/* Within the message: FIRST/MIDDLE/LAST/ONLY of the same transport. */
static int mu_opcode_msg(struct mutant *m)
{
	unsigned int tr = op_of(m) & 0xe0, nop;
	int tries;

	for (tries = 0; tries < 32; tries++) {
		nop = tr | rnd(0x18);
		if (layout[nop] & L_KNOWN)
			break;
	}
	if (!(layout[nop] & L_KNOWN))
		return -1;
	if (rnd(4))
		relayout(m, nop);
	else
		m->r[0] = (uint8_t)nop;		/* headers not matching */
	return 0;
}

/* Across transports (RC/UC/RD/UD/CNP) or to any known opcode. */
static int mu_opcode_any(struct mutant *m)
{
	unsigned int nop;

	do
		nop = rnd(3) ? (op_of(m) & 0x1f) | rnd(8) << 5 : rnd(256);
	while (!(layout[nop] & L_KNOWN) && rnd(8));
	relayout(m, nop);
	return 0;
}

static int mu_cnp(struct mutant *m)
{
	relayout(m, 0x81);
	if (rnd(4) == 0)
		fill_rand(m->r + BTH_LEN, m->len - BTH_LEN);
	return 0;
}

/* IETH opcodes (SEND with invalidate), which no traffic here sends. */
static int mu_ieth(struct mutant *m)
{
	if (!mx(m, X_IETH))
		relayout(m, rnd(2) ? 0x16 : 0x17);
	put_be(m->r + mx(m, X_IETH), 4, rkey_pick(get_be(m->r + mx(m, X_IETH), 4)));
	return 0;
}

/*
 * FLUSH (IBTA 1.5 annex A19.4), which no traffic here sends: a request
 * becomes one, its FETH a valid global flush of a range or the MR, a
 * persistent one, no type, unknown type bits, a reserved level, or random;
 * the RETH's rkey one seen on the link or an edge.
 */
static int mu_flush(struct mutant *m)
{
	static const uint32_t feth[] = { 0x01, 0x11, 0x02, 0x12, 0x00, 0x0c, 0x21, 0x31 };

	if (!mx(m, X_FETH))
		relayout(m, 0x1c);
	if (!mx(m, X_FETH))
		return -1;
	put_be(m->r + mx(m, X_FETH), 4, rnd(8) ? feth[rnd(ARRAY_SIZE(feth))] : rnd32());
	put_be(m->r + mx(m, X_RETH) + 8, 4, rkey_pick(get_be(m->r + mx(m, X_RETH) + 8, 4)));
	return 0;
}

/*
 * XRCETH: the SRQ number of another XRC request seen on the link (another
 * SRQ of the domain, or of another domain), a neighbour, 0, 0xffffff, a
 * random one; or the reserved byte set.  A request without one first
 * becomes its XRC counterpart.
 */
static int mu_xrceth(struct mutant *m)
{
	static const uint32_t q[] = { 0, 1, 0xffffff, 0xfffffe, 0x800000 };
	uint32_t v, n = P.nx[X_XRC];
	size_t o;

	if (!mx(m, X_XRC)) {
		if (!(layout[0xa0 | (op_of(m) & 0x1f)] & XB(X_XRC)))
			return -1;
		relayout(m, 0xa0 | (op_of(m) & 0x1f));
		if (!mx(m, X_XRC))
			return -1;
	}
	o = mx(m, X_XRC);
	v = get_be(m->r + o, 4);
	switch (rnd(6)) {
	case 0:
		m->r[o] = (uint8_t)(rnd(2) ? 0xff : 1u << rnd(8));	/* reserved */
		return 0;
	case 1:
		v = q[rnd(ARRAY_SIZE(q))];
		break;
	case 2:
		v += rnd(2) ? 1 : -1;
		break;
	case 3:
		v = rnd32();
		break;
	default:
		if (n)
			v = get_be(P.xhdr[X_XRC][rnd(n < NSAMPLE ? n : NSAMPLE)], 4);
	}
	put_be(m->r + o + 1, 3, v & 0xffffff);
	return 0;
}

/* RC <-> XRC: the same operation on the other transport. */
static int mu_rc_xrc(struct mutant *m)
{
	unsigned int op = op_of(m), nop;

	if ((op & 0xe0) != 0 && (op & 0xe0) != 0xa0)
		return -1;
	nop = op ^ 0xa0;
	if (!(layout[nop] & L_KNOWN))
		return -1;
	if (rnd(4))
		relayout(m, nop);
	else
		m->r[0] = (uint8_t)nop;		/* XRCETH missing or left over */
	return 0;
}

/* SE, M, pad count, TVer. */
static int mu_bth_flags(struct mutant *m)
{
	switch (rnd(4)) {
	case 0:
		m->r[1] ^= 0x80;		/* SE */
		break;
	case 1:
		m->r[1] ^= 0x40;		/* M */
		break;
	case 2:
		set_pad(m, pad_of(m) + 1 + rnd(3));
		break;
	default:
		m->r[1] = (uint8_t)((m->r[1] & 0xf0) | (1 + rnd(15)));	/* TVer */
	}
	return 0;
}

static int mu_pkey(struct mutant *m)
{
	static const uint16_t k[] = { 0xffff, 0x7fff, 0, 0x8000, 0xfffe, 0x7ffe, 0x8001 };

	put_be(m->r + 2, 2, rnd(4) ? k[rnd(ARRAY_SIZE(k))] : rnd(0x10000));
	return 0;
}

/* F/B/reserved byte (the ICRC masks it) and the AckReq/reserved byte. */
static int mu_bth_resv(struct mutant *m)
{
	if (rnd(2))
		m->r[4] = (uint8_t)rnd32();
	else
		m->r[8] = (uint8_t)(rnd(2) ? m->r[8] ^ 0x80 : rnd32());
	return 0;
}

static int mu_dqpn(struct mutant *m)
{
	static const uint32_t q[] = { 0, 1, 2, 0xffffff, 0xfffffe, 0x800000 };
	uint32_t cur = get_be(m->r + 5, 3), n = P.nqpn[m->c->dir];

	switch (rnd(4)) {
	case 0:
		cur = q[rnd(ARRAY_SIZE(q))];
		break;
	case 1:
		cur += rnd(2) ? 1 : -1;
		break;
	case 2:
		if (n) {	/* another live QP, maybe of another type */
			cur = P.qpn[m->c->dir][rnd(n < NSAMPLE ? n : NSAMPLE)];
			break;
		}
		/* fall through */
	default:
		cur = rnd32();
	}
	put_be(m->r + 5, 3, cur & PSN_MASK);
	return 0;
}

static int mu_psn(struct mutant *m)
{
	put_be(m->r + 9, 3, psn_edge(m));
	return 0;
}

/* The VA (edges, unaligned) or the rkey of the RETH or AtomicETH at @p. */
static void mut_va_rkey(uint8_t *p)
{
	if (rnd(2))
		put_be(p, 8, edge64(get_be64(p)));
	else
		put_be(p + 8, 4, rkey_pick(get_be(p + 8, 4)));
}

/* RETH: VA, rkey, DMA length (0, huge, unaligned, payload +-). */
static int mu_reth(struct mutant *m)
{
	size_t o = mx(m, X_RETH);
	uint32_t dl;

	if (!o)
		return -1;
	if (rnd(3)) {
		mut_va_rkey(m->r + o);
		return 0;
	}
	dl = get_be(m->r + o + 12, 4);
	dl = rnd(3) ? edge32(dl) : (uint32_t)paylen(m) + rnd(9) - 4;
	put_be(m->r + o + 12, 4, dl);
	return 0;
}

/* AETH: syndrome (ACK credits, RNR timers, NAK codes, reserved), MSN. */
static int mu_aeth(struct mutant *m)
{
	static const uint8_t syn[] = {
		0x00, 0x1f, 0x20, 0x21, 0x3f, 0x40, 0x5f, 0x60, 0x61, 0x62, 0x63,
		0x64, 0x65, 0x6f, 0x7f, 0x80, 0xff,
	};
	size_t o = mx(m, X_AETH);

	if (!o)
		return -1;
	if (rnd(2))
		m->r[o] = rnd(3) ? syn[rnd(ARRAY_SIZE(syn))] : (uint8_t)rnd32();
	else
		put_be(m->r + o + 1, 3, rnd(2) ? psn_edge(m) : edge32(get_be(m->r + o + 1, 3)));
	return 0;
}

/* AtomicETH: VA (unaligned), rkey, swap/add and compare data. */
static int mu_atm(struct mutant *m)
{
	size_t o = mx(m, X_ATM);

	if (!o)
		return -1;
	if (rnd(3))
		mut_va_rkey(m->r + o);
	else
		put_be(m->r + o + 12 + 8 * rnd(2), 8, edge64(get_be64(m->r + o + 12)));
	return 0;
}

static int mu_atmack(struct mutant *m)
{
	size_t o = mx(m, X_ATMACK);

	if (!o)
		return -1;
	put_be(m->r + o, 8, edge64(get_be64(m->r + o)));
	return 0;
}

static int mu_imm(struct mutant *m)
{
	size_t o = mx(m, X_IMM);

	if (!o)
		return -1;
	mut_field(m->r + o, 4);
	return 0;
}

/* DETH: Q_Key (incl. the privileged high bit) or source QP. */
static int mu_deth(struct mutant *m)
{
	size_t o = mx(m, X_DETH);

	if (!o)
		return -1;
	if (rnd(2)) {
		uint32_t qk = get_be(m->r + o, 4);

		put_be(m->r + o, 4, rnd(3) ? edge32(qk) : qk | 0x80000000U);
	} else {
		put_be(m->r + o + 5, 3, rnd(2) ? rnd(4) : rnd32());
	}
	return 0;
}

/* The payload: shorter, longer, none, MTU-sized; pad fixed or not. */
static int mu_paylen(struct mutant *m)
{
	size_t h = hlen(op_of(m)), pl = paylen(m), npl;

	if (h > m->len)
		return -1;
	switch (rnd(5)) {
	case 0:
		npl = 0;
		break;
	case 1:
		npl = pl ? pl - 1 - rnd((uint32_t)pl) : 0;
		break;
	case 2:
		npl = pl + 1 + rnd(64);
		break;
	case 3:
		npl = 1024 + rnd(3) - 1;	/* path MTU 1024 */
		break;
	default:
		npl = RMAX - h - 3 - rnd(4);
	}
	if (h + npl + 3 > RMAX)
		npl = RMAX - h - 3;
	if (npl > pl)
		fill_rand(m->r + h + pl, npl - pl);
	m->len = h + npl;
	if (rnd(4)) {
		memset(m->r + m->len, 0, -npl & 3);
		m->len += -npl & 3;
		set_pad(m, (unsigned int)(-npl & 3));
	}
	return 0;
}

static int mu_pad(struct mutant *m)
{
	set_pad(m, rnd(4));
	return 0;
}

/* Cut at a header boundary or inside a header; the ICRC after it or none. */
static int mu_trunc(struct mutant *m)
{
	size_t b[NX + 3], nb = 0, o = 0;
	unsigned int op = op_of(m);
	int x;

	b[nb++] = 0;
	b[nb++] = BTH_LEN;
	for (x = 0, o = BTH_LEN; x < NX; x++) {
		if (!(layout[op] & XB(x)))
			continue;
		o += xsize[x];
		b[nb++] = o;
	}
	o = b[rnd((uint32_t)nb)];
	if (rnd(3) == 0)
		o = o ? o - 1 - rnd((uint32_t)(o < 12 ? o : 12)) : 0;	/* inside */
	if (o < m->len)
		m->len = o;
	if (rnd(2))
		m->icrc = IC_NONE;
	return 0;
}

static int mu_extend(struct mutant *m)
{
	size_t n = 1 + rnd(rnd(2) ? 4 : 64);

	if (m->len + n > RMAX)
		n = RMAX - m->len;
	fill_rand(m->r + m->len, n);
	m->len += n;
	return 0;
}

/* The real packet again (a duplicate, or a stale one of the pool). */
static int mu_replay(struct mutant *m)
{
	(void)m;
	return 0;
}

static int mu_bitflip(struct mutant *m)
{
	size_t n = m->len < 48 ? m->len : 48;
	int k = 1 + rnd(3);

	while (n && k--)
		m->r[rnd((uint32_t)n)] ^= (uint8_t)(1u << rnd(8));
	return 0;
}

/*
 * IP: ECN CE (the ICRC masks the TOS), or another source address of the
 * /24: .3 to .254, not the devices' .1 and .2 nor the subnet's broadcast,
 * which the IP layer drops as martians before sroce sees them.
 */
static int mu_ip(struct mutant *m)
{
	if (rnd(2))
		m->ip[1] |= 3;
	else
		m->ip[15] = (uint8_t)(3 + rnd(252));
	return 0;
}

static int mu_sport(struct mutant *m)
{
	put_be(m->udp, 2, rnd(0x10000));
	return 0;
}

struct mut {
	const char *name;
	mut_fn fn;
	unsigned int weight;
	uint64_t n;
};

#define MUT(nm, f, w)	{ .name = nm, .fn = f, .weight = w }

static struct mut muts[] = {
	MUT("opcode-raw", mu_opcode_raw, 2), MUT("opcode-msg", mu_opcode_msg, 6),
	MUT("opcode-any", mu_opcode_any, 4), MUT("cnp", mu_cnp, 2),
	MUT("ieth", mu_ieth, 3), MUT("bth-flags", mu_bth_flags, 3),
	MUT("pkey", mu_pkey, 2), MUT("bth-resv", mu_bth_resv, 3),
	MUT("dqpn", mu_dqpn, 4), MUT("psn", mu_psn, 14),
	MUT("reth", mu_reth, 10), MUT("aeth", mu_aeth, 10),
	MUT("atomiceth", mu_atm, 8), MUT("atomicacketh", mu_atmack, 4),
	MUT("immdt", mu_imm, 2), MUT("deth", mu_deth, 6),
	MUT("paylen", mu_paylen, 6), MUT("pad", mu_pad, 2),
	MUT("trunc", mu_trunc, 3), MUT("extend", mu_extend, 3),
	MUT("replay", mu_replay, 4), MUT("bitflip", mu_bitflip, 3),
	MUT("ip", mu_ip, 2), MUT("udp-sport", mu_sport, 1),
	MUT("xrceth", mu_xrceth, 8), MUT("rc-xrc", mu_rc_xrc, 4),
	MUT("flush", mu_flush, 3),
};

static struct mut *mut_draw(void)
{
	static unsigned int total;
	unsigned int i, w;

	if (!total)
		for (i = 0; i < ARRAY_SIZE(muts); i++)
			total += muts[i].weight;
	w = rnd(total);
	for (i = 0; w >= muts[i].weight; i++)
		w -= muts[i].weight;
	return &muts[i];
}

/*
 * Traffic runs are short: most pool packets name QPs that are gone by now.
 * Nine times in ten, such a packet is aimed at a live QP (one seen in the
 * last LIVE_S seconds) of the same direction and transport instead, at the
 * PSN it expects next, so that the mutant reaches the transport logic.
 */
static void retarget(struct mutant *m)
{
	const struct flow *f = flow_of(m->c->dir, get_be(m->r + 5, 3), 0), *live[NFLOW];
	double now = now_s();
	int i, n = 0;

	if (f && now - f->seen < LIVE_S) {
		n_live++;
		return;
	}
	if (rnd(10) == 0)
		return;
	for (i = 0; i < NFLOW; i++) {
		f = &P.flow[i];
		if (f->used && f->dir == m->c->dir && f->tr == (op_of(m) & 0xe0) &&
		    now - f->seen < LIVE_S)
			live[n++] = f;
	}
	if (!n)
		return;
	f = live[rnd(n)];
	put_be(m->r + 5, 3, f->qpn);
	put_be(m->r + 9, 3, (f->psn + 1) & PSN_MASK);
	n_retarget++;
	n_live++;
}

/* A mutant of a pool packet: 1..3 mutations, the ICRC mode by @bad_pct. */
static void mutate(struct mutant *m, unsigned int bad_pct)
{
	int k = 1 + (rnd(4) == 0) + (rnd(8) == 0), tries = 0;
	struct mut *mu;

	m->c = pool_pick();
	memcpy(m->r, m->c->r, m->c->len);
	m->len = m->c->len;
	memcpy(m->ip, m->c->ip, 20);
	memcpy(m->udp, m->c->udp, 8);
	m->icrc = IC_GOOD;
	retarget(m);
	while (k > 0 && tries++ < 16) {
		mu = mut_draw();
		if (mu->fn(m))
			continue;
		mu->n++;
		k--;
	}
	if (m->icrc == IC_GOOD && rnd(100) < bad_pct)
		m->icrc = rnd(4) ? IC_FLIP : IC_NONE;
}

/*
 * Does @m get to sroce's ICRC check?  Mirrors the checks before it in
 * sroce_recv_hdrs(): BTH and the opcode's headers present, a known opcode,
 * TVer 0, headers + pad + ICRC fit, no pad or payload where none belongs.
 */
static int reaches_icrc(const struct mutant *m)
{
	size_t len = m->len + (m->icrc == IC_NONE ? 0 : 4), min;
	unsigned int op = op_of(m);

	if (len < BTH_LEN || !(layout[op] & L_KNOWN) || len < hlen(op))
		return 0;
	if (m->r[1] & 0x0f)
		return 0;
	min = hlen(op) + pad_of(m) + 4;
	if (len < min)
		return 0;
	if (layout[op] & L_PAY)
		return 1;
	return len == min && !pad_of(m);
}

/* ------------------------------------------------------------------ */
/* Frames                                                              */
/* ------------------------------------------------------------------ */

static uint16_t ip_csum(const uint8_t *ip)
{
	uint32_t s = 0;
	int i;

	for (i = 0; i < 20; i += 2)
		s += get_be(ip + i, 2);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* The Ethernet frame of @m in @f; returns its length. */
static size_t build(const struct mutant *m, uint8_t *f)
{
	static uint16_t ip_id;
	uint8_t *ip = f + 14, *udp = ip + 20;
	size_t rl = m->len + (m->icrc == IC_NONE ? 0 : 4);
	uint32_t icrc;

	memcpy(f, m->c->eth, 14);
	memcpy(ip, m->ip, 20);
	put_be(ip + 2, 2, 28 + rl);
	put_be(ip + 4, 2, ++ip_id);
	ip[8] = MARK_TTL;
	put_be(ip + 10, 2, 0);
	put_be(ip + 10, 2, ip_csum(ip));
	memcpy(udp, m->udp, 8);
	put_be(udp + 4, 2, 8 + rl);
	put_be(udp + 6, 2, 0);
	memcpy(udp + 8, m->r, m->len);
	if (m->icrc != IC_NONE) {
		icrc = roce_icrc(ip, 28 + m->len, 1);
		if (m->icrc == IC_FLIP)
			icrc ^= 1u << rnd(32);
		icrc_put(udp + 8 + m->len, icrc);
	}
	return 14 + 28 + rl;
}

/* ------------------------------------------------------------------ */
/* Counters                                                            */
/* ------------------------------------------------------------------ */

#define MAXCNT	64

struct cnts {
	int n;
	char name[MAXCNT][48];
	long long v[MAXCNT];
};

static long long read_num(const char *path)
{
	char buf[64];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return atoll(buf);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* All hw_counters of @dev0 and @dev1, summed per name. */
static void read_cnts(const char *dev0, const char *dev1, struct cnts *c)
{
	char dir[256], path[512];
	struct dirent *e;
	DIR *d;
	int i;

	snprintf(dir, sizeof(dir), "/sys/class/infiniband/%s/ports/1/hw_counters", dev0);
	d = opendir(dir);
	if (!d)
		die("%s: %s", dir, strerror(errno));
	c->n = 0;
	while ((e = readdir(d)) && c->n < MAXCNT) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "lifespan"))
			continue;
		snprintf(c->name[c->n++], sizeof(c->name[0]), "%.47s", e->d_name);
	}
	closedir(d);
	qsort(c->name, c->n, sizeof(c->name[0]), name_cmp);
	for (i = 0; i < c->n; i++) {
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/hw_counters/%s",
			 dev0, c->name[i]);
		c->v[i] = read_num(path);
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/hw_counters/%s",
			 dev1, c->name[i]);
		c->v[i] += read_num(path);
	}
}

static long long cnt_delta(const struct cnts *a, const struct cnts *b, const char *name)
{
	int i;

	for (i = 0; i < a->n; i++)
		if (!strcmp(a->name[i], name))
			return b->v[i] - a->v[i];
	return 0;
}

/* Packets the stack dropped for a full backlog (/proc/net/softnet_stat). */
static long long softnet_drops(void)
{
	unsigned int processed, dropped;
	long long sum = 0;
	char line[512];
	FILE *f = fopen("/proc/net/softnet_stat", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%x %x", &processed, &dropped) == 2)
			sum += dropped;
	fclose(f);
	return sum;
}

/* ------------------------------------------------------------------ */
/* Main                                                                */
/* ------------------------------------------------------------------ */

struct opts {
	const char *ns[2], *ifn[2], *dev[2];
	uint64_t pkts;
	unsigned int secs, wait_s, bad_pct, rate;
	uint64_t seed;
};

struct tally {
	uint64_t sent, good, bad, good_reach, bad_reach, errs;
	long long lost;		/* dropped by the stack, before sroce */
	double secs;
};

/* Headers the capture must have seen: each kind real traffic sends. */
static const int need[] = { X_XRC, X_DETH, X_RETH, X_ATM, X_AETH, X_ATMACK, X_IMM };

static int pool_report(void)
{
	char ops[4096] = "", miss[256] = "";
	size_t n = 0, k = 0;
	unsigned int i;

	for (i = 0; i < P.nops && n < sizeof(ops) - 64; i++)
		n += snprintf(ops + n, sizeof(ops) - n, " %s=%llu", opname[P.ops[i]],
			      (unsigned long long)P.seen[P.ops[i]]);
	for (i = 0; i < ARRAY_SIZE(need); i++)
		if (!P.nx[need[i]])
			k += snprintf(miss + k, sizeof(miss) - k, " %s", xname[need[i]]);
	printf("pool: %llu packets captured, %u opcodes:%s\n",
	       (unsigned long long)P.total, P.nops, ops);
	if (k) {
		printf("FAIL fuzz/pool: the live traffic had no%s\n", miss);
		return 1;
	}
	printf("PASS fuzz/pool (%u opcodes, every extension header but IETH and FETH captured)\n",
	       P.nops);
	return 0;
}

/* Sends one frame, retrying while the socket is short of buffers. */
static int send_frame(int fd, const uint8_t *f, size_t n)
{
	int tries;

	for (tries = 0; tries < 100; tries++) {
		if (send(fd, f, n, 0) == (ssize_t)n)
			return 0;
		if (errno != ENOBUFS && errno != EAGAIN)
			return -1;
		usleep(500);
	}
	return -1;
}

static void fuzz_loop(const struct opts *o, int cap_fd, const int *tx_fd, struct tally *t)
{
	static struct mutant m;
	static uint8_t f[FRAME_MAX + 64];
	double t0 = now_s(), next_note = t0 + 10;
	int i;

	while (t->sent < o->pkts && now_s() - t0 < o->secs) {
		capture(cap_fd, 64);
		if (o->rate && t->sent > o->rate * (now_s() - t0)) {
			usleep(2000);	/* leave the real traffic time to run */
			continue;
		}
		for (i = 0; i < 32 && t->sent < o->pkts; i++) {
			mutate(&m, o->bad_pct);
			if (send_frame(tx_fd[m.c->dir], f, build(&m, f))) {
				t->errs++;
				continue;
			}
			t->sent++;
			if (m.icrc == IC_GOOD) {
				t->good++;
				t->good_reach += reaches_icrc(&m);
			} else {
				t->bad++;
				t->bad_reach += reaches_icrc(&m);
			}
		}
		if (now_s() > next_note) {
			printf("fuzz: %llu sent after %.0f s\n", (unsigned long long)t->sent,
			       now_s() - t0);
			fflush(stdout);
			next_note += 10;
		}
	}
	t->secs = now_s() - t0;
}

static void usage(void)
{
	fprintf(stderr, "usage: fuzz [-a NETNS_A] [-A IF_A] [-b NETNS_B] [-B IF_B] [-d DEV_A] [-D DEV_B]\n"
		"            [-n PKTS] [-r RATE] [-t SECS] [-w SECS] [-x BAD_PCT] [-S SEED]\n");
	exit(2);
}

static void parse(int argc, char **argv, struct opts *o)
{
	int c;

	while ((c = getopt(argc, argv, "a:A:b:B:d:D:n:r:t:w:x:S:")) != -1) {
		switch (c) {
		case 'a':
			o->ns[1] = optarg;
			break;
		case 'A':
			o->ifn[1] = optarg;
			break;
		case 'b':
			o->ns[0] = optarg;
			break;
		case 'B':
			o->ifn[0] = optarg;
			break;
		case 'd':
			o->dev[0] = optarg;
			break;
		case 'D':
			o->dev[1] = optarg;
			break;
		case 'n':
			o->pkts = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			o->rate = (unsigned int)atoi(optarg);
			break;
		case 't':
			o->secs = (unsigned int)atoi(optarg);
			break;
		case 'w':
			o->wait_s = (unsigned int)atoi(optarg);
			break;
		case 'x':
			o->bad_pct = (unsigned int)atoi(optarg);
			break;
		case 'S':
			o->seed = strtoull(optarg, NULL, 0);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || o->bad_pct > 100)
		usage();
}

/* Waits (at most -w) until the pool has every extension header kind. */
static void wait_pool(const struct opts *o, int cap_fd)
{
	double t0 = now_s();
	struct pollfd pfd = { .fd = cap_fd, .events = POLLIN };
	unsigned int i, have;

	do {
		poll(&pfd, 1, 100);
		capture(cap_fd, 1024);
		for (i = 0, have = 0; i < ARRAY_SIZE(need); i++)
			have += !!P.nx[need[i]];
	} while (have < ARRAY_SIZE(need) && now_s() - t0 < o->wait_s);
	printf("fuzz: pool of %u opcodes after %.1f s of capture\n", P.nops, now_s() - t0);
}

static void mut_report(void)
{
	char buf[2048];
	size_t n = 0, i;

	for (i = 0; i < ARRAY_SIZE(muts); i++)
		n += snprintf(buf + n, sizeof(buf) - n, " %s=%llu", muts[i].name,
			      (unsigned long long)muts[i].n);
	printf("mutations:%s\n", buf);
	printf("targets: %llu mutants of a live QP's packet, %llu of them aimed at a live QP instead of a gone one\n",
	       (unsigned long long)n_live, (unsigned long long)n_retarget);
}

/*
 * What the transport made of the packets (real and mutated): every other
 * counter that changed (sequence errors, duplicates, NAKs, CNPs, ...).
 */
static void transport_report(const struct cnts *a, const struct cnts *b)
{
	char buf[2048] = "";
	size_t n = 0;
	int i;

	for (i = 0; i < a->n; i++)
		if (strncmp(a->name[i], "rx_drop_", 8) && b->v[i] != a->v[i])
			n += snprintf(buf + n, sizeof(buf) - n, " %s=%lld", a->name[i],
				      b->v[i] - a->v[i]);
	printf("counters (both devices, real traffic included):%s\n", buf);
}

/* The checks and the SUMMARY line; returns the number of FAILs. */
static int verdict(const struct opts *o, const struct tally *t,
		   const struct cnts *a, const struct cnts *b)
{
	long long icrc = cnt_delta(a, b, "rx_drop_icrc"), seen = cnt_delta(a, b, "rcvd_pkts");
	long long good_fail = icrc - (long long)t->bad_reach + t->lost, past;
	char drops[2048] = "";
	size_t n = 0;
	int i, fails = 0;

	for (i = 0; i < a->n; i++) {
		if (strncmp(a->name[i], "rx_drop_", 8))
			continue;
		seen += b->v[i] - a->v[i];
		n += snprintf(drops + n, sizeof(drops) - n, " %s=%lld", a->name[i] + 8,
			      b->v[i] - a->v[i]);
	}
	if (good_fail < 0)
		good_fail = 0;
	past = (long long)t->good_reach - good_fail - t->lost;	/* at least */
	if (t->sent < o->pkts) {
		printf("FAIL fuzz/count: %llu of %llu packets sent in %.0f s (%llu send errors)\n",
		       (unsigned long long)t->sent, (unsigned long long)o->pkts, t->secs,
		       (unsigned long long)t->errs);
		fails++;
	} else {
		printf("PASS fuzz/count (%llu packets in %.1f s, %.0f pkt/s)\n",
		       (unsigned long long)t->sent, t->secs, t->sent / t->secs);
	}
	if (icrc + t->lost < (long long)t->bad_reach) {
		printf("FAIL fuzz/bad-icrc: rx_drop_icrc +%lld, but %llu bad-ICRC packets reached the check (%lld lost on the way)\n",
		       icrc, (unsigned long long)t->bad_reach, t->lost);
		fails++;
	} else {
		printf("PASS fuzz/bad-icrc (%llu sent, %llu reached the check, rx_drop_icrc +%lld)\n",
		       (unsigned long long)t->bad, (unsigned long long)t->bad_reach, icrc);
	}
	if (past * 2 <= (long long)t->good || seen < (long long)t->sent * 9 / 10) {
		printf("FAIL fuzz/past-icrc: %lld of %llu valid-ICRC packets past the ICRC check; the devices counted %lld packets in all\n",
		       past, (unsigned long long)t->good, seen);
		fails++;
	} else {
		printf("PASS fuzz/past-icrc (%lld of %llu valid-ICRC packets, %.1f %%)\n",
		       past, (unsigned long long)t->good, 100.0 * past / t->good);
	}
	transport_report(a, b);
	printf("SUMMARY seed %#llx: fuzzed %llu packets in %.1f s (%.0f pkt/s), %llu with a valid ICRC, %llu bad; past the ICRC check: %lld (%.1f %% of the valid-ICRC ones); rcvd_pkts +%lld; lost before sroce (backlog) %lld; drops by reason:%s\n",
	       (unsigned long long)o->seed, (unsigned long long)t->sent, t->secs,
	       t->sent / (t->secs > 0 ? t->secs : 1), (unsigned long long)t->good,
	       (unsigned long long)t->bad, past, t->good ? 100.0 * past / t->good : 0.0,
	       cnt_delta(a, b, "rcvd_pkts"), t->lost, drops);
	return fails;
}

int main(int argc, char **argv)
{
	static struct opts o = {
		.ns = { "/run/netns/B", "/run/netns/A" }, .ifn = { "vethB", "vethA" },
		.dev = { "sroce0", "sroce1" }, .pkts = 100000, .secs = 900,
		.wait_s = 60, .bad_pct = 10,
	};
	struct tally t = { 0 };
	struct cnts a, b;
	int cap_fd, tx_fd[2];

	o.seed = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
	parse(argc, argv, &o);
	rng_state = o.seed;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("fuzz: seed %#llx (replay the draws: -S %#llx), %llu packets, %u %% bad ICRC\n",
	       (unsigned long long)o.seed, (unsigned long long)o.seed,
	       (unsigned long long)o.pkts, o.bad_pct);
	if (crc32z_selftest())
		die("CRC-32 self test failed");
	layout_init();
	/* tx_fd[0] re-sends B's packets towards A, tx_fd[1] A's towards B */
	cap_fd = packet_socket(o.ns[0], o.ifn[0], ETH_P_ALL);
	tx_fd[0] = packet_socket(o.ns[0], o.ifn[0], 0);
	tx_fd[1] = packet_socket(o.ns[1], o.ifn[1], 0);
	wait_pool(&o, cap_fd);
	if (!P.nops)
		die("no RoCEv2 packet captured on %s in %u s", o.ifn[0], o.wait_s);
	read_cnts(o.dev[0], o.dev[1], &a);
	t.lost = -softnet_drops();
	fuzz_loop(&o, cap_fd, tx_fd, &t);
	sleep(1);	/* the last packets processed, hw_stats' 10 ms cache */
	read_cnts(o.dev[0], o.dev[1], &b);
	t.lost += softnet_drops();
	mut_report();
	return pool_report() + verdict(&o, &t, &a, &b) ? 1 : 0;
}
