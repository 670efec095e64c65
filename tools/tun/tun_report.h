/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tun-helper's log of an experiment: every packet READ and every WRITE,
 * with when each happened, which request a reply went to and the verdict
 * of the reply check. At the end it gives the table the original
 * experiment kept by hand (read, replied, turnaround, verdict) and the
 * same as JSON for --report.
 */
#ifndef XDPONG_TUN_REPORT_H
#define XDPONG_TUN_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <json-c/json.h>

#include "reply_check.h"

/* Requests a WRITE is matched against: the newest echo requests keep their bytes. */
#define TR_MATCH_WINDOW 1024

struct tun_report;

struct tun_report *tr_new(void);
void tr_free(struct tun_report *t);

/* A packet READ from the TUN, now. */
void tr_read(struct tun_report *t, const uint8_t *pkt, size_t len);

/*
 * The newest echo requests (at most TR_MATCH_WINDOW), oldest first, for
 * rc_check_reply(); idx[i] names out[i] for tr_write(). Returns how many.
 */
size_t tr_window(const struct tun_report *t, struct rc_request *out, size_t *idx);

/*
 * A WRITE, now: request is idx[res->request] from tr_window(), or -1;
 * written: the packet reached the TUN; answer: the line sent back.
 */
void tr_write(struct tun_report *t, long request, const struct rc_result *res, size_t len,
	      bool written, const char *answer);

/* Per request: read, replied, turnaround, verdict; at most max_rows rows. */
void tr_print(const struct tun_report *t, FILE *f, size_t max_rows);

/* "requests" and "unmatched_writes" added to obj. */
void tr_json(const struct tun_report *t, json_object *obj);

/* An ISO 8601 UTC time with microseconds, as a JSON string. */
json_object *tr_json_time(const struct timespec *realtime);

#endif /* XDPONG_TUN_REPORT_H */
