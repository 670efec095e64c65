/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The reasons of include/xdpong.h as text, for user space: the one place
 * the XDPONG_REASONS X-macro becomes names, descriptions and outcomes.
 * The loader, lib/ and the tests all read these tables. Static, so a
 * program that includes this header needs nothing linked in; unused
 * tables cost nothing.
 */
#ifndef XDPONG_NAMES_H
#define XDPONG_NAMES_H

#include <linux/types.h> /* xdpong.h needs __u8..__u64 */
#include "xdpong.h"

#define XDPONG_X_NAME(name, outcome, desc) #name,
#define XDPONG_X_DESC(name, outcome, desc) desc,
#define XDPONG_X_OUTCOME(name, outcome, desc) XDPONG_##outcome,

/* "reply_echo4", ...: the counter, JSON and metric label of each reason. */
static const char *const reason_names[XDPONG_R_MAX]
	__attribute__((unused)) = { XDPONG_REASONS(XDPONG_X_NAME) };
/* One line each, for --help, tables and stats. */
static const char *const reason_descs[XDPONG_R_MAX]
	__attribute__((unused)) = { XDPONG_REASONS(XDPONG_X_DESC) };
static const enum xdpong_outcome reason_outcomes[XDPONG_R_MAX]
	__attribute__((unused)) = { XDPONG_REASONS(XDPONG_X_OUTCOME) };
/* Indexed by enum xdpong_outcome. */
static const char *const outcome_names[3]
	__attribute__((unused)) = { "replied", "passed", "dropped" };

#undef XDPONG_X_NAME
#undef XDPONG_X_DESC
#undef XDPONG_X_OUTCOME

#endif /* XDPONG_NAMES_H */
