// SPDX-License-Identifier: GPL-2.0
/*
 * STAMP's clock (core.h): which one the program reads, the offset that
 * makes it UTC, and the Error Estimate (RFC 4656 4.1.2, which RFC 8762
 * 4.2.1 uses) that the kernel's clock discipline justifies.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/timex.h>
#include <linux/ethtool.h>
#include <linux/ptp_clock.h>
#include <linux/sockios.h>
#include "core.h"

#define NS 1000000000LL

enum xdpong_stamp_clock stamp_clock_source(void)
{
	return feature_have(FEAT_TAI) ? XDPONG_STAMP_CLOCK_TAI : XDPONG_STAMP_CLOCK_MONO;
}

const char *stamp_clock_name(enum xdpong_stamp_clock source)
{
	return source == XDPONG_STAMP_CLOCK_TAI ? "tai" : "monotonic+offset";
}

int phc_index(const char *ifname, int *index)
{
	struct ethtool_ts_info info = { .cmd = ETHTOOL_GET_TS_INFO };
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), e = 0;

	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)&info;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		e = -errno;
	close(fd);
	*index = e ? -1 : info.phc_index;
	return e == -EOPNOTSUPP ? 0 : e; /* a driver that says nothing has none */
}

static long long ptp_ns(const struct ptp_clock_time *t)
{
	return t->sec * NS + t->nsec;
}

/* One PHC reading between two of the system's clock: kept in *off_ns
 * (UTC less the PHC, against the pair's midpoint) if the pair is the
 * narrowest yet (*best, -1 before the first). */
static void phc_sample(const struct ptp_clock_time *sys0, const struct ptp_clock_time *phc,
		       const struct ptp_clock_time *sys1, long long *best, long long *off_ns)
{
	long long t0 = ptp_ns(sys0), t1 = ptp_ns(sys1);

	if (*best < 0 || t1 - t0 < *best) {
		*best = t1 - t0;
		*off_ns = t0 + (t1 - t0) / 2 - ptp_ns(phc);
	}
}

/*
 * UTC less PHC index's reading, in ns: the kernel reads the system's real
 * time clock before and after each of several PHC readings
 * (PTP_SYS_OFFSET_EXTENDED, else PTP_SYS_OFFSET's alternation); the
 * narrowest pair is set against its midpoint.
 */
int phc_offset(int index, long long *off_ns)
{
	struct ptp_sys_offset_extended x = { .n_samples = 5 };
	struct ptp_sys_offset b = { .n_samples = 5 };
	long long best = -1;
	char dev[32];
	int fd, e = 0;

	snprintf(dev, sizeof(dev), "/dev/ptp%d", index);
	fd = open(dev, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (!ioctl(fd, PTP_SYS_OFFSET_EXTENDED, &x)) {
		for (unsigned int i = 0; i < x.n_samples; i++)
			phc_sample(&x.ts[i][0], &x.ts[i][1], &x.ts[i][2], &best, off_ns);
	} else if (!ioctl(fd, PTP_SYS_OFFSET, &b)) {
		/* ts[]: system, PHC, system, ... , system */
		for (unsigned int i = 0; i < b.n_samples; i++)
			phc_sample(&b.ts[2 * i], &b.ts[2 * i + 1], &b.ts[2 * i + 2], &best, off_ns);
	} else {
		e = -errno;
	}
	close(fd);
	return e;
}

static long long ns_of(const struct timespec *t)
{
	return t->tv_sec * NS + t->tv_nsec;
}

/*
 * The real time clock's lead over the monotonic one: read between two
 * monotonic readings and set against their midpoint, so that the offset
 * is off by at most half the time the three reads took.
 */
static int mono_offset(long long *off)
{
	struct timespec m0, r, m1;

	if (clock_gettime(CLOCK_MONOTONIC, &m0) || clock_gettime(CLOCK_REALTIME, &r) ||
	    clock_gettime(CLOCK_MONOTONIC, &m1))
		return -errno;
	*off = ns_of(&r) - (ns_of(&m0) + (ns_of(&m1) - ns_of(&m0)) / 2);
	return 0;
}

unsigned int stamp_errest(bool synced, long long error_us)
{
	/* The error in units of 2^-32 s, rounded up: error * 2^32 / 1e6. */
	unsigned long long units, scale = 0;

	if (error_us < 1)
		error_us = 1;
	if (error_us > 1000000LL * 3600)
		error_us = 1000000LL * 3600;
	units = ((unsigned long long)error_us * 4294967296ULL + 999999) / 1000000;
	while (units > 255) { /* halved, rounding up: never below the error */
		units = (units + 1) / 2;
		scale++;
	}
	if (!units)
		units = 1; /* RFC 4656 4.1.2: the multiplier is never 0 */
	return (synced ? 0x8000 : 0) | (unsigned int)(scale & 0x3f) << 8 | (unsigned int)units;
}

int stamp_clock_read(enum xdpong_stamp_clock source, bool followed, struct stamp_clock *c)
{
	struct timex tx = { 0 };
	int state = adjtimex(&tx);

	if (state < 0)
		return -errno;
	c->source = source;
	/* TIME_ERROR or STA_UNSYNC: the kernel's clock is not disciplined. */
	c->synced = state != TIME_ERROR && !(tx.status & STA_UNSYNC);
	c->error_us = c->synced ? tx.esterror : tx.maxerror;
	c->maxerror_us = tx.maxerror;
	c->errest = followed ? stamp_errest(c->synced, c->error_us) :
			       stamp_errest(false, c->maxerror_us);
	/* CLOCK_TAI is UTC plus the kernel's TAI offset (0 unless an NTP
	 * daemon set it: then the two clocks are one). */
	if (source == XDPONG_STAMP_CLOCK_TAI) {
		c->off_ns = -(long long)tx.tai * NS;
		return 0;
	}
	return mono_offset(&c->off_ns);
}
