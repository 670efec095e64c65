/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The loader's fourth floor, loader/cmd/: one file per command (attach,
 * detach, status, stats, run, addr, trace, config), each a struct cmd_def
 * that main.c dispatches to, and the commands' JSON (output.c). A command
 * reads through core/core.h, changes interfaces through up/up.h and runs
 * the service through service/service.h; no floor below includes this.
 * Returns: core.h's legend.
 */
#ifndef XDPONG_CMD_H
#define XDPONG_CMD_H

#include "../service/service.h"

struct json_object;

/* ---- output.c: JSON, through json-c ---- */
/* Print o as one line on f and free it. 0, or -1 if f failed. */
int json_print(FILE *f, struct json_object *o);
/* The stats object: counters, histogram, and rates since prev if given. */
struct json_object *json_stats(const struct attachment *a, const struct snapshot *s,
			       const struct snapshot *prev, __u32 sample_every);
/* [{"prefix": ..., "origin": ...}, ...] */
struct json_object *json_addresses(const struct attachment *a);

/* ---- the subcommands, one file each ---- */
extern const struct cmd_def cmd_attach, cmd_detach, cmd_status, cmd_stats, cmd_run, cmd_addr,
	cmd_trace, cmd_config, cmd_probe;

#endif /* XDPONG_CMD_H */
