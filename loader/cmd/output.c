// SPDX-License-Identifier: GPL-2.0
/*
 * JSON output, through json-c. Chosen over jansson because its runtime,
 * libjson-c5, is already on a standard Debian system, and because it holds
 * unsigned 64-bit integers as such (json_object_new_uint64): every counter
 * here is a __u64, which jansson's signed json_int_t cannot carry whole.
 * Object members keep their insertion order, so the output is stable.
 */
#include <json-c/json.h>
#include "cmd.h"

int json_print(FILE *f, struct json_object *o)
{
	int ret;

	ret = fprintf(f, "%s\n",
		      json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
								JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return ret < 0 || fflush(f) ? -1 : 0;
}

/* A double printed with fmt, as the text output rounds it. */
static struct json_object *json_fixed(double v, const char *fmt)
{
	char buf[64];

	snprintf(buf, sizeof(buf), fmt, v);
	return json_object_new_double_s(v, buf);
}

struct json_object *json_stats(const struct attachment *a, const struct snapshot *s,
			       const struct snapshot *prev, __u32 sample_every)
{
	struct json_object *o = json_object_new_object(), *reasons, *lat, *slots;
	double dt = prev ? seconds_between(&prev->mono, &s->mono) : 0;

	json_object_object_add(o, "time",
			       json_fixed(s->wall.tv_sec + s->wall.tv_nsec / 1e9, "%.3f"));
	json_object_object_add(o, "iface", json_object_new_string(a->li.name));
	json_object_object_add(o, "ifindex", json_object_new_int(a->li.ifindex));
	json_object_object_add(o, "prog_id", json_object_new_uint64(a->prog_id));
	json_object_object_add(o, "mode", json_object_new_string(a->mode));
	json_object_object_add(o, "received", json_object_new_uint64(s->received));
	for (int i = 0; i < 3; i++)
		json_object_object_add(o, outcome_names[i], json_object_new_uint64(s->outcome[i]));
	/* Of the replied, those the driver did not send; counted: whether
	 * anything counts them now (false: the count stands still). */
	json_object_object_add(o, "tx_failed", json_object_new_uint64(s->tx_failed));
	json_object_object_add(o, "tx_failed_counted",
			       json_object_new_boolean(s->tx_watch == TXWATCH_LINKS));
	reasons = json_object_new_object();
	for (int r = 0; r < XDPONG_R_MAX; r++)
		json_object_object_add(reasons, reason_names[r],
				       json_object_new_uint64(s->reason[r]));
	for (int i = 0; i < s->n_extra; i++)
		json_object_object_add(reasons, s->extra_name[i],
				       json_object_new_uint64(s->extra[i]));
	json_object_object_add(o, "reasons", reasons);
	lat = json_object_new_object();
	json_object_object_add(lat, "sample_every", json_object_new_uint64(sample_every));
	json_object_object_add(lat, "count", json_object_new_uint64(s->lat_count));
	json_object_object_add(lat, "sum_ns", json_object_new_uint64(s->lat_sum_ns));
	slots = json_object_new_array_ext(XDPONG_LAT_SLOTS);
	for (int i = 0; i < XDPONG_LAT_SLOTS; i++)
		json_object_array_add(slots, json_object_new_uint64(s->slots[i]));
	json_object_object_add(lat, "slots", slots);
	json_object_object_add(o, "latency", lat);
	if (prev && dt > 0) {
		struct json_object *rates = json_object_new_object();

		json_object_object_add(o, "interval_s", json_fixed(dt, "%.3f"));
		json_object_object_add(rates, "received",
				       json_fixed((s->received - prev->received) / dt, "%.1f"));
		for (int i = 0; i < 3; i++)
			json_object_object_add(rates, outcome_names[i],
					       json_fixed((s->outcome[i] - prev->outcome[i]) / dt,
							  "%.1f"));
		json_object_object_add(rates, "tx_failed",
				       json_fixed((s->tx_failed - prev->tx_failed) / dt, "%.1f"));
		json_object_object_add(o, "rates", rates);
	}
	return o;
}

static int address_cb(const struct prefix *p, __u32 origin, void *arg)
{
	struct json_object *e = json_object_new_object();
	char buf[64];

	json_object_object_add(e, "prefix",
			       json_object_new_string(prefix_str(p, buf, sizeof(buf))));
	json_object_object_add(e, "origin", json_object_new_string(addr_origin_name(origin)));
	json_object_array_add(arg, e);
	return 0;
}

struct json_object *json_addresses(const struct attachment *a)
{
	struct json_object *arr = json_object_new_array();

	addr_map_walk(a->map_fd[MAP_ADDR4], a->map_fd[MAP_ADDR6], address_cb, arr);
	return arr;
}
