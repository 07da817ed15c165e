// SPDX-License-Identifier: GPL-2.0
/*
 * tscclock.so: perftest computes its times from rdtsc cycles and a CPU MHz it
 * calibrates, when it prints its report, against gettimeofday() (a linear
 * fit of 200 busy waits of 0.1-2 ms, rejected when r^2 < 0.9). In the TCG
 * guest the TSC is marked unstable, so gettimeofday() is a system call
 * reading the emulated HPET, and with the server and the client calibrating
 * at the same moment on a busy host the fit fails often (every figure then
 * prints as 0 or inf). Preloaded into perftest only, this gettimeofday()
 * counts TSC cycles at the guest kernel's TSC rate ("cpu MHz" in
 * /proc/cpuinfo, calibrated against the HPET at boot): the calibration then
 * returns that rate, the one perftest uses anyway whenever its fit agrees
 * with /proc/cpuinfo within 2 %. Same clock for sroce and rxe;
 * tests/tools/bench.sh checks it against CLOCK_MONOTONIC (clockcheck) before
 * using it.
 *
 * Built by tests/src/Makefile into tests/bin/tscclock.so; preloaded into
 * perftest by scripts/bench (tests/tools/bench.sh) and scripts/demo.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

static double tsc_mhz;
static unsigned long long tsc0;
static long long us0;

__attribute__((constructor)) static void tscclock_init(void)
{
	char line[256];
	struct timespec ts;
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "cpu MHz : %lf", &tsc_mhz) == 1)
			break;
	if (f)
		fclose(f);
	clock_gettime(CLOCK_REALTIME, &ts);
	tsc0 = __rdtsc();
	us0 = ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
	long long us;

	if (tsc_mhz <= 0)
		return syscall(SYS_gettimeofday, tv, tz);
	us = us0 + (long long)((__rdtsc() - tsc0) / tsc_mhz);
	tv->tv_sec = us / 1000000;
	tv->tv_usec = us % 1000000;
	return 0;
}
