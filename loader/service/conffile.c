// SPDX-License-Identifier: GPL-2.0
/*
 * The config file, /etc/xdpong/xdpong.conf: INI, parsed with inih (Debian's
 * libinih, a small well-kept INI reader with no dependencies). A [global]
 * section and one [interface NAME] section per interface; every key is a
 * long option of `xdpong run` that the option table marks for config files,
 * and it is parsed by the same code as on the command line (opt_set). A
 * repeated key adds a value; an interface's key replaces the global one of
 * the same name. `include = PATH` (in [global]) reads more files: a glob
 * may match nothing, a plain path must exist.
 *
 * inih's handler sees neither line numbers (the library is built without
 * INI_HANDLER_LINENO) nor sections without keys (an "[interface eth1]" with
 * nothing under it is a whole configuration line): so the lines are fed
 * through our reader, which counts them and notes each section header.
 */
#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <ini.h>
#include "service.h"

#define MAX_DEPTH 4 /* include nesting */

struct parse {
	struct config *c;
	const char *path;
	FILE *f;
	int line;
	int depth;
	int section;      /* -1: [global], else an index into c->ifaces */
	int probe;        /* an index into c->probes in a [probe NAME], else -1 */
	bool bad_section; /* the current section was refused: skip its keys */
	bool failed;
};

static int fail(struct parse *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct parse *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	p->failed = true;
	if (p->c->error[0])
		return 0; /* the first error is the one reported */
	n = snprintf(p->c->error, sizeof(p->c->error), "%s:%d: ", p->path, p->line);
	va_start(ap, fmt);
	vsnprintf(p->c->error + n, sizeof(p->c->error) - n, fmt, ap);
	va_end(ap);
	return 0;
}

/* Levenshtein distance, for "did you mean": option names are short. */
static int distance(const char *a, const char *b)
{
	int la = strlen(a), lb = strlen(b), d[64][64];

	if (la >= 64 || lb >= 64)
		return 99;
	for (int i = 0; i <= la; i++)
		d[i][0] = i;
	for (int j = 0; j <= lb; j++)
		d[0][j] = j;
	for (int i = 1; i <= la; i++)
		for (int j = 1; j <= lb; j++) {
			int x = d[i - 1][j] + 1, y = d[i][j - 1] + 1,
			    z = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			d[i][j] = x < y ? (x < z ? x : z) : (y < z ? y : z);
		}
	return d[la][lb];
}

static const char *closest_key(const char *name)
{
	const char *best = NULL;
	int bd = 4;

	for (int i = 0; i < opt_count; i++) {
		int d;

		if (opt_table[i].config == CFG_NONE)
			continue;
		d = distance(name, opt_table[i].name);
		if (d < bd) {
			bd = d;
			best = opt_table[i].name;
		}
	}
	return best;
}

static bool valid_ifname(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= IF_NAMESIZE || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (*s == '/' || *s == ':' || isspace((unsigned char)*s))
			return false;
	return true;
}

/* "[probe NAME]": a name for the metrics' probe label. */
static void probe_section(struct parse *p, const char *text)
{
	const char *name = text + strlen("probe");
	struct config_probe *cp;

	while (isspace((unsigned char)*name))
		name++;
	p->bad_section = true;
	if (!*name || strlen(name) >= CONFIG_PROBE_NAME ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
		    strlen(name)) {
		fail(p, "invalid probe name in [%s]: 1 to %d letters, digits, '_', '.' or '-'",
		     text, CONFIG_PROBE_NAME - 1);
		return;
	}
	for (int i = 0; i < p->c->n_probes; i++) {
		if (!strcmp(p->c->probes[i].name, name)) {
			fail(p, "[probe %s] again (first at %s:%d): merge the two sections", name,
			     p->c->probes[i].file, p->c->probes[i].line);
			return;
		}
	}
	if (p->c->n_probes >= CONFIG_MAX_PROBES) {
		fail(p, "more than %d [probe] sections", CONFIG_MAX_PROBES);
		return;
	}
	p->bad_section = false;
	p->probe = p->c->n_probes++;
	cp = &p->c->probes[p->probe];
	*cp = (struct config_probe){ .port = XDPONG_STAMP_PORT,
				     .interval = 1,
				     .timeout = 1,
				     .ttl = -1,
				     .tos = -1,
				     .line = p->line };
	snprintf(cp->name, sizeof(cp->name), "%s", name);
	snprintf(cp->file, sizeof(cp->file), "%s", p->path);
}

/* targets: more words; each must be a name or an address. */
static int probe_targets(struct parse *p, struct config_probe *cp, const char *value)
{
	size_t old = cp->targets ? strlen(cp->targets) : 0, len = strlen(value);
	char *more;

	if (!*value || strspn(value, " ,\t") == len)
		return fail(p, "[probe %s]: targets: expected names or addresses", cp->name);
	for (const char *c = value; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr(".-_:%, \t", *c))
			return fail(p, "[probe %s]: targets: '%c' is in no name or address",
				    cp->name, *c);
	more = realloc(cp->targets, old + len + 2);
	if (!more)
		return fail(p, "out of memory");
	snprintf(more + old, len + 2, "%s%s", old ? " " : "", value);
	for (char *c = more; *c; c++)
		*c = *c == ',' || *c == '\t' ? ' ' : *c;
	cp->targets = more;
	return 1;
}

/* ttl, tos, source: probe's -t, -Q and -I, read by their option table
 * rows, so the same values are refused in the same words. */
static int probe_opt(struct parse *p, struct config_probe *cp, const char *name, const char *value)
{
	const struct opt_def *d = opt_by_name(name);
	struct opts o;
	char why[160];

	opts_init(&o, CMD_PROBE);
	if (!d || opt_set(d, value, &o, why, sizeof(why)))
		return fail(p, "invalid value '%s' for %s: %s", value, name, d ? why : "?");
	if (!strcmp(name, "source"))
		snprintf(cp->source, sizeof(cp->source), "%s", value);
	else if (!strcmp(name, "ttl"))
		cp->ttl = (int)o.ttl;
	else
		cp->tos = (int)o.tos;
	return 1;
}

/* A key of a [probe NAME] section. */
static int probe_key(struct parse *p, const char *name, const char *value)
{
	struct config_probe *cp = &p->c->probes[p->probe];
	unsigned long long u;
	double secs;

	if (!strcmp(name, "targets"))
		return probe_targets(p, cp, value);
	if (!strcmp(name, "protocol")) {
		if (strcmp(value, "stamp") && strcmp(value, "icmp"))
			return fail(p, "invalid value '%s' for protocol: expected stamp or icmp",
				    value);
		cp->icmp = !strcmp(value, "icmp");
	} else if (!strcmp(name, "interval") || !strcmp(name, "timeout")) {
		if (parse_seconds(value, 0.01, 86400, &secs))
			return fail(p, "invalid value '%s' for %s: expected seconds, 0.01 to 86400",
				    value, name);
		*(name[0] == 'i' ? &cp->interval : &cp->timeout) = secs;
	} else if (!strcmp(name, "size") || !strcmp(name, "port")) {
		bool size = name[0] == 's';

		if (parse_u64(value, size ? 0 : 1, size ? 65000 : 65535, &u))
			return fail(p, "invalid value '%s' for %s: expected %s", value, name,
				    size ? "bytes, 0 to 65000" : "a port, 1 to 65535");
		*(size ? &cp->size : &cp->port) = (unsigned int)u;
		cp->sized |= size;
	} else if (!strcmp(name, "ttl") || !strcmp(name, "tos") || !strcmp(name, "source")) {
		return probe_opt(p, cp, name, value);
	} else if (!strcmp(name, "family")) {
		if (strcmp(value, "ipv4") && strcmp(value, "ipv6") && strcmp(value, "any"))
			return fail(p, "invalid value '%s' for family: expected ipv4, ipv6 or any",
				    value);
		cp->family = value[0] == 'a' ? AF_UNSPEC : value[3] == '4' ? AF_INET : AF_INET6;
	} else {
		return fail(p,
			    "unknown key '%s' in [probe %s] (the keys are targets, protocol, "
			    "interval, timeout, size, port, ttl, tos, source and family)",
			    name, cp->name);
	}
	return 1;
}

int config_addr_family(const char *a)
{
	unsigned char buf[16];
	char text[64];

	snprintf(text, sizeof(text), "%.*s", (int)strcspn(a, "%"), a);
	return inet_pton(AF_INET, text, buf) == 1  ? AF_INET :
	       inet_pton(AF_INET6, text, buf) == 1 ? AF_INET6 :
						     AF_UNSPEC;
}

/* The family a source address and the family key leave: said in why if
 * they contradict, as probe's -4 and -6 with -I. */
static int probe_family(struct config_probe *cp, char *why, size_t len)
{
	int src = config_addr_family(cp->source);

	if (src != AF_UNSPEC && cp->family != AF_UNSPEC && src != cp->family) {
		snprintf(why, len, "family = ipv%c with the IPv%c source %s",
			 cp->family == AF_INET ? '4' : '6', src == AF_INET ? '4' : '6', cp->source);
		return -1;
	}
	if (src != AF_UNSPEC)
		cp->family = src; /* only the targets of its family are probed */
	for (const char *w = cp->targets; w && *w; w += strcspn(w, " "), w += strspn(w, " ")) {
		char word[64];
		int f;

		snprintf(word, sizeof(word), "%.*s", (int)strcspn(w, " "), w);
		f = config_addr_family(word);
		if (f != AF_UNSPEC && cp->family != AF_UNSPEC && f != cp->family) {
			snprintf(why, len, "target %s is not IPv%c, as %s asks", word,
				 cp->family == AF_INET ? '4' : '6',
				 src != AF_UNSPEC      ? "the source" :
				 cp->family == AF_INET ? "family = ipv4" :
							 "family = ipv6");
			return -1;
		}
	}
	return 0;
}

/* A [probe] section, whole: targets given, and what its protocol and
 * family allow. */
static int probe_check(struct config *c, const char *path, struct config_probe *cp)
{
	char fam[160];
	const char *why = !cp->targets                              ? "no targets" :
			  cp->icmp && cp->port != XDPONG_STAMP_PORT ? "port is STAMP's: ICMP has "
								      "none" :
			  !cp->icmp && cp->sized && cp->size < PROBE_STAMP_BASE ? "a STAMP test "
										  "packet is 44 "
										  "bytes or more" :
										  NULL;

	if (!why && probe_family(cp, fam, sizeof(fam)))
		why = fam;
	if (!why)
		return 0;
	snprintf(c->error, sizeof(c->error), "%s:%d: [probe %s]: %s", path, cp->line, cp->name,
		 why);
	return -1;
}

/* "[global]" or "[interface NAME]", seen by the reader before any key. */
static void section_start(struct parse *p, const char *text)
{
	char name[128];

	p->bad_section = false;
	p->probe = -1;
	if (!strcmp(text, "global")) {
		p->section = -1;
		return;
	}
	if (!strncmp(text, "probe", 5) && (!text[5] || isspace((unsigned char)text[5]))) {
		probe_section(p, text);
		return;
	}
	if (sscanf(text, "interface %127s", name) != 1 ||
	    strlen(text) != strlen("interface ") + strlen(name)) {
		fail(p,
		     "unknown section [%s] (expected [global], [interface NAME] or [probe NAME])",
		     text);
		p->bad_section = true;
		return;
	}
	if (!valid_ifname(name)) {
		fail(p,
		     "invalid interface name '%s' in [interface %s]: 1 to %d characters, no "
		     "'/', ':' or spaces",
		     name, name, IF_NAMESIZE - 1);
		p->bad_section = true;
		return;
	}
	for (int i = 0; i < p->c->n_ifaces; i++) {
		if (!strcmp(p->c->ifaces[i].name, name)) {
			fail(p, "[interface %s] again (first at %s:%d): merge the two sections",
			     name, p->c->ifaces[i].file, p->c->ifaces[i].line);
			p->bad_section = true;
			return;
		}
	}
	if (p->c->n_ifaces >= CONFIG_MAX_IFACES) {
		fail(p, "more than %d interfaces", CONFIG_MAX_IFACES);
		p->bad_section = true;
		return;
	}
	p->section = p->c->n_ifaces++;
	memset(&p->c->ifaces[p->section], 0, sizeof(p->c->ifaces[0]));
	snprintf(p->c->ifaces[p->section].name, IF_NAMESIZE, "%s", name);
	snprintf(p->c->ifaces[p->section].file, sizeof(p->c->ifaces[0].file), "%s", p->path);
	p->c->ifaces[p->section].line = p->line;
	opts_init(&p->c->ifaces[p->section].o, CMD_RUN);
}

static char *reader(char *str, int num, void *stream)
{
	struct parse *p = stream;
	char *s, *e;

	long at = ftell(p->f), got;
	size_t len;

	if (!fgets(str, num, p->f))
		return NULL;
	p->line++;
	len = strlen(str);
	/* A NUL in a line: this is no text file. fgets read more than the
	 * string holds (a pipe cannot tell: a short line that is not the last). */
	got = at >= 0 ? ftell(p->f) - at : -1;
	if (got >= 0 ? got != (long)len :
		       len + 1 < (size_t)num && !feof(p->f) && !strchr(str, '\n')) {
		fail(p, "a NUL byte: this is not a text config file");
		return NULL;
	}
	/* inih would take the rest as the next line, and a value cut short
	 * is another value: refuse, never truncate. */
	if (!strchr(str, '\n') && !feof(p->f)) {
		fail(p, "line longer than %d characters", num - 2);
		return NULL;
	}
	for (s = str; isspace((unsigned char)*s); s++)
		;
	if (*s != '[')
		return str;
	e = strchr(s, ']');
	if (e) {
		char sec[160];

		snprintf(sec, sizeof(sec), "%.*s", (int)(e - s - 1), s + 1);
		section_start(p, sec);
	}
	return str;
}

static int parse_file(struct config *c, const char *path, int depth);

/* A directory that does not exist matches nothing; one that cannot be
 * read is an error (glob then stops: the callback returns non-zero). */
static int glob_error(const char *path, int e)
{
	(void)path;
	return e != ENOENT && e != ENOTDIR;
}

static int include(struct parse *p, const char *pattern)
{
	glob_t g;
	int ret;

	if (p->depth >= MAX_DEPTH)
		return fail(p, "include nested more than %d deep", MAX_DEPTH);
	ret = glob(pattern, 0, glob_error, &g);
	if (ret == GLOB_NOMATCH) {
		if (!strpbrk(pattern, "*?["))
			return fail(p, "include: %s does not exist", pattern);
		return 1; /* an empty conf.d/ is fine */
	}
	if (ret)
		return fail(p, "include: cannot read %s", pattern);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		if (parse_file(p->c, g.gl_pathv[i], p->depth + 1)) {
			globfree(&g);
			p->failed = true;
			return 0;
		}
	}
	globfree(&g);
	return 1;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct parse *p = user;
	const struct opt_def *d;
	struct opts *o;
	char why[160];

	(void)section; /* the reader tracked it, empty sections included */
	if (p->bad_section)
		return 1; /* reported at its header */
	if (p->probe >= 0)
		return probe_key(p, name, value);
	if (p->section == -1 && !strcmp(name, "include"))
		return include(p, value);
	d = opt_by_name(name);
	if (!d || d->config == CFG_NONE || !(d->cmds & CMD_BIT(CMD_RUN))) {
		const char *near = closest_key(name);

		if (d)
			return fail(p, "'%s' is a command-line option only, not a config key",
				    name);
		if (near)
			return fail(p, "unknown key '%s' (did you mean '%s'?)", name, near);
		return fail(p,
			    "unknown key '%s' (the keys are run's long options: see 'xdpong run "
			    "--help')",
			    name);
	}
	if (p->section >= 0 && d->config == CFG_GLOBAL)
		return fail(p, "'%s' belongs in [global], not in [interface %s]", name,
			    p->c->ifaces[p->section].name);
	/* An interface's own addr list starts empty (section_start): merge
	 * puts it in place of the global one. */
	o = p->section >= 0 ? &p->c->ifaces[p->section].o : &p->c->global;
	if (d->arg == ARG_NONE) {
		if (strcmp(value, "yes") && strcmp(value, "true") && strcmp(value, "1"))
			return fail(p,
				    "invalid value '%s' for %s: expected yes (leave the key out "
				    "for no)",
				    value, name);
	}
	if (d->arg == ARG_PATH || d->arg == ARG_LISTEN) {
		/* The value must outlive the parse: keep a copy. */
		char *copy = strdup(value);

		if (!copy || p->c->n_strings >= CONFIG_MAX_STRINGS) {
			free(copy);
			return fail(p, "too many values");
		}
		p->c->strings[p->c->n_strings++] = copy;
		value = copy;
	}
	if (opt_set(d, value, o, why, sizeof(why)))
		return fail(p, "invalid value '%s' for %s: %s", value, name, why);
	return 1;
}

static int parse_file(struct config *c, const char *path, int depth)
{
	struct parse p = { .c = c, .path = path, .depth = depth, .section = -1, .probe = -1 };
	int ret;

	p.f = fopen(path, "r");
	if (!p.f) {
		snprintf(c->error, sizeof(c->error), "%s: cannot read: %s", path, strerror(errno));
		return -1;
	}
	ret = ini_parse_stream(reader, &p, handler, &p);
	fclose(p.f);
	if (ret > 0 && !c->error[0])
		snprintf(c->error, sizeof(c->error),
			 "%s:%d: not 'key = value', '[global]' or '[interface NAME]'", path, ret);
	if (ret < 0 && !c->error[0])
		snprintf(c->error, sizeof(c->error), "%s: cannot parse (out of memory?)", path);
	return ret || p.failed || c->error[0] ? -1 : 0;
}

/* Copy option d's value(s) from one struct opts to another. */
static void opt_copy(const struct opt_def *d, struct opts *to, const struct opts *from)
{
	memcpy((char *)to + d->off, (const char *)from + d->off, d->size);
	memcpy((char *)to + d->off2, (const char *)from + d->off2, d->size2);
	to->seen[opt_index(d)] = from->seen[opt_index(d)];
}

/*
 * An interface's options: the global ones, then its own key by key,
 * through the table (opts.c): a key replaces the global value whole (an
 * addr list too), and a key of a group (GROUP_ADDRS) replaces the
 * group's every option, so that an interface's choice of addresses is
 * its own; both in one section contradict (opts_conflict). Each
 * interface ends with an addr list of its own (the global one copied
 * where it has none), so config_free frees each list once. 0 or -ENOMEM.
 */
static int merge(struct config *c)
{
	for (int i = 0; i < c->n_ifaces; i++) {
		struct opts *o = &c->ifaces[i].o, g = c->global;

		for (int k = 0; k < opt_count; k++) {
			const struct opt_def *d = &opt_table[k];

			if (!o->seen[k])
				continue;
			opt_copy(d, &g, o);
			for (int j = 0; d->group && j < opt_count; j++)
				if (opt_table[j].group == d->group)
					opt_copy(&opt_table[j], &g, o);
		}
		g.cmd = CMD_RUN;
		*o = g;
		if (o->addrs == c->global.addrs && opts_own_addrs(o))
			return -ENOMEM;
	}
	return 0;
}

int config_load(const char *path, struct config *c)
{
	char why[128];

	memset(c, 0, sizeof(*c));
	opts_init(&c->global, CMD_RUN);
	if (parse_file(c, path, 0))
		goto fail;
	if (!c->n_ifaces) {
		snprintf(c->error, sizeof(c->error),
			 "%s: no [interface NAME] section: nothing to serve", path);
		goto fail;
	}
	for (int i = 0; i < c->n_probes; i++)
		if (probe_check(c, c->probes[i].file, &c->probes[i]))
			goto fail;
	if (opts_conflict(&c->global, why, sizeof(why))) {
		snprintf(c->error, sizeof(c->error), "%s: [global]: %s", path, why);
		goto fail;
	}
	if (merge(c)) {
		snprintf(c->error, sizeof(c->error), "%s: out of memory", path);
		goto fail;
	}
	for (int i = 0; i < c->n_ifaces; i++) {
		if (opts_conflict(&c->ifaces[i].o, why, sizeof(why))) {
			snprintf(c->error, sizeof(c->error), "%s: [interface %s]: %s", path,
				 c->ifaces[i].name, why);
			goto fail;
		}
	}
	return 0;
fail:
	config_free(c);
	return -1;
}

void config_free(struct config *c)
{
	for (int i = 0; i < c->n_strings; i++)
		free(c->strings[i]);
	c->n_strings = 0;
	for (int i = 0; i < c->n_ifaces; i++)
		opts_free(&c->ifaces[i].o);
	for (int i = 0; i < c->n_probes; i++) {
		free(c->probes[i].targets);
		c->probes[i].targets = NULL;
	}
	c->n_probes = 0;
	opts_free(&c->global);
}
