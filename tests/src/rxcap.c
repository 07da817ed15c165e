// SPDX-License-Identifier: GPL-2.0
/*
 * rxcap: print RoCEv2 frames received on a netdev, as hex from the IP header
 * on (IP header through ICRC), one frame per line.  A minimal stand-in for
 * tcpdump in the VM guest, used to capture wire vectors (e.g. packets sent by
 * rdma_rxe on the peer of a veth) for kunit/sroce_icrc_kunit.c.
 *
 * Usage: rxcap IFNAME COUNT SECS
 * Prints at most COUNT frames of IPv4/IPv6 UDP to port 4791 that arrive on
 * IFNAME (frames sent from IFNAME itself are skipped), and stops after SECS
 * seconds.  Needs CAP_NET_RAW.  Exit status 0 when COUNT frames were printed,
 * 1 when the time ran out first, 2 on errors.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define ROCE_V2_PORT	4791

/* Is @buf (@len bytes from the IP header) UDP to the RoCEv2 port? */
static int is_rocev2(const unsigned char *buf, size_t len)
{
	size_t udp;

	if (len >= 20 && (buf[0] >> 4) == 4) {
		if (buf[9] != 17)
			return 0;
		udp = (size_t)(buf[0] & 0xf) * 4;
	} else if (len >= 40 && (buf[0] >> 4) == 6) {
		if (buf[6] != 17)	/* no extension headers expected */
			return 0;
		udp = 40;
	} else {
		return 0;
	}
	if (len < udp + 8)
		return 0;
	return ((buf[udp + 2] << 8) | buf[udp + 3]) == ROCE_V2_PORT;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned char buf[65536];
	struct sockaddr_ll sll;
	double deadline;
	long count, secs, got = 0;
	unsigned int ifindex;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: %s IFNAME COUNT SECS\n", argv[0]);
		return 2;
	}
	ifindex = if_nametoindex(argv[1]);
	count = strtol(argv[2], NULL, 0);
	secs = strtol(argv[3], NULL, 0);
	if (!ifindex || count <= 0 || secs <= 0) {
		fprintf(stderr, "rxcap: bad interface, count or time\n");
		return 2;
	}
	/* SOCK_DGRAM: the link-layer header is removed, data starts at IP */
	fd = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_ALL));
	if (fd < 0) {
		perror("rxcap: socket");
		return 2;
	}
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = ifindex;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		perror("rxcap: bind");
		return 2;
	}
	deadline = now() + secs;
	while (got < count) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		socklen_t sl = sizeof(sll);
		double left = deadline - now();
		ssize_t n, i;

		if (left <= 0)
			break;
		if (poll(&pfd, 1, (int)(left * 1000) + 1) <= 0)
			continue;
		n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&sll,
			     &sl);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("rxcap: recvfrom");
			return 2;
		}
		if (sll.sll_pkttype == PACKET_OUTGOING ||
		    !is_rocev2(buf, (size_t)n))
			continue;
		for (i = 0; i < n; i++)
			printf("%02x", buf[i]);
		printf("\n");
		fflush(stdout);
		got++;
	}
	close(fd);
	return got < count;
}
