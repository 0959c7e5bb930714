// SPDX-License-Identifier: GPL-2.0
/*
 * script.c - the replay script: lru_gen debugfs commands at trace times or markers.
 *
 *   # comment
 *   TIME   COMMAND[; COMMAND...]      TIME = a duration (mr_parse_duration): 250ms, 1.5s,
 *                                     10us, 5ns; a bare number is ns
 *   @ID    COMMAND                    right after the MARKER event with id ID
 *
 * COMMAND is the kernel's /sys/kernel/debug/lru_gen write syntax
 * (Documentation/admin-guide/mm/multigen_lru.rst, mm/vmscan.c:lru_gen_seq_write()):
 *   + memcg node max_gen [swappiness [force_scan]]
 *   - memcg node min_gen [swappiness [nr_to_reclaim]]
 * (swappiness may be `max`). The shape is checked here; the values (does max_gen exist,
 * is the memcg known) are the policy's to judge when the command runs.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mr_util.h"
#include "rp_int.h"

static int is_uint(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

/*
 * The largest value each field may hold: the type mm/vmscan.c:lru_gen_seq_write() reads
 * it into ("%c %u %d %lu %n %4s %n %lu"), so a number that does not fit is refused here
 * instead of wrapping into another generation or memcg. Field 4 (swappiness) is
 * kstrtouint()'s; its 0..200 range is the policy's to judge.
 */
static const struct {
	const char *what;
	uint64_t max;
} cmd_field[6] = {
	{ "", 0 },
	{ "memcg id", UINT32_MAX },
	{ "node id", INT32_MAX },
	{ "generation", UINT64_MAX },
	{ "swappiness", UINT32_MAX },
	{ "count", UINT64_MAX },
};

/* digits (is_uint) as a value no larger than max */
static int fits(const char *s, uint64_t max)
{
	uint64_t v = 0;

	for (; *s; s++) {
		unsigned d = (unsigned)(*s - '0');

		if (v > (max - d) / 10)
			return 0;
		v = v * 10 + d;
	}
	return 1;
}

/* Check one command's shape; normalise spacing into out. */
static int check_cmd(const char *name, unsigned line, const char *cmd, char *out, size_t cap,
		     struct mr_error *err)
{
	char buf[256], *tok[8], *save = NULL, *p;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", cmd);
	for (p = strtok_r(buf, " \t", &save); p; p = strtok_r(NULL, " \t", &save)) {
		if (n == 8)
			break;
		tok[n++] = p;
	}
	if (n < 4 || n > 6 || (strcmp(tok[0], "+") && strcmp(tok[0], "-")))
		return mr_error_set(err, MR_EINVAL,
				    "%s:%u: '%s' is not an lru_gen command: expected '+ memcg node max_gen [swappiness [force_scan]]' or '- memcg node min_gen [swappiness [nr_to_reclaim]]'",
				    name, line, cmd);
	for (int i = 1; i < n; i++) {
		if (i == 4 && !strcmp(tok[i], "max"))
			continue;
		if (!is_uint(tok[i]))
			return mr_error_set(err, MR_EINVAL, "%s:%u: '%s' in '%s' is not a non-negative integer%s",
					    name, line, tok[i], cmd, i == 4 ? " or 'max'" : "");
		if (!fits(tok[i], cmd_field[i].max))
			return mr_error_set(err, MR_ERANGE, "%s:%u: %s %.40s in '%.60s' is too large (at most %llu)",
					    name, line, cmd_field[i].what, tok[i], cmd,
					    (unsigned long long)cmd_field[i].max);
	}
	out[0] = 0;
	for (int i = 0; i < n; i++) {
		size_t l = strlen(out);

		snprintf(out + l, cap - l, "%s%s", i ? " " : "", tok[i]);
	}
	if (strlen(out) >= cap - 1)
		return mr_error_set(err, MR_EINVAL, "%s:%u: command too long", name, line);
	return 0;
}

static int cmp_cmd(const void *a, const void *b)
{
	const struct rp_script_cmd *x = a, *y = b;

	if (x->at_marker != y->at_marker)
		return x->at_marker ? 1 : -1;
	if (!x->at_marker && x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return 0; /* same line: kept apart by the stable order below */
}

int rp_script_parse_text(const char *text, const char *name, struct rp_script *s,
			 struct mr_error *err)
{
	const char *p = text;
	unsigned line = 0;
	size_t cap = 0;

	memset(s, 0, sizeof(*s));
	while (*p) {
		char l[1024], *c, *when, *rest, *save = NULL, *one;
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		struct rp_script_cmd proto = { 0 };
		struct mr_error why = { 0 };

		line++;
		if (len >= sizeof(l)) {
			rp_script_free(s);
			return mr_error_set(err, MR_EINVAL, "%s:%u: line too long", name, line);
		}
		memcpy(l, p, len);
		l[len] = 0;
		p += len + (e ? 1 : 0);
		if ((c = strchr(l, '#')))
			*c = 0;
		when = l;
		while (isspace((unsigned char)*when))
			when++;
		if (!*when)
			continue;
		rest = when;
		while (*rest && !isspace((unsigned char)*rest))
			rest++;
		if (*rest)
			*rest++ = 0;
		proto.line = line;
		if (when[0] == '@') {
			char *end;

			errno = 0;
			proto.marker = strtoull(when + 1, &end, 10);
			if (!when[1] || *end || errno) {
				rp_script_free(s);
				return mr_error_set(err, MR_EINVAL, "%s:%u: '%s' is not a marker reference (expected @ID)",
						    name, line, when);
			}
			proto.at_marker = 1;
		} else if (mr_parse_duration(when, &proto.time, &why)) {
			rp_script_free(s);
			return mr_error_set(err, MR_EINVAL, "%s:%u: '%s' is not a time or @MARKER_ID: %s",
					    name, line, when, why.msg);
		} else if (proto.time > RP_TIME_MAX) {
			rp_script_free(s);
			return mr_error_set(err, MR_ERANGE, "%s:%u: time '%s' is beyond 2^63 - 1 ns (292 years), the latest a trace can reach",
					    name, line, when);
		}
		for (one = strtok_r(rest, ";,", &save); one; one = strtok_r(NULL, ";,", &save)) {
			struct rp_script_cmd *cmd;
			char *q = one;
			int rc;

			while (isspace((unsigned char)*q))
				q++;
			if (!*q)
				continue;
			if (s->n == cap) {
				struct rp_script_cmd *nc;

				cap = cap ? 2 * cap : 16;
				nc = realloc(s->cmds, cap * sizeof(*nc));
				if (!nc) {
					rp_script_free(s);
					return mr_error_set(err, MR_ENOMEM, "out of memory");
				}
				s->cmds = nc;
			}
			cmd = &s->cmds[s->n];
			*cmd = proto;
			rc = check_cmd(name, line, q, cmd->text, sizeof(cmd->text), err);
			if (rc) {
				rp_script_free(s);
				return rc;
			}
			s->n++;
		}
	}
	/* stable: commands of one line keep their order (insertion sort, scripts are short) */
	for (size_t i = 1; i < s->n; i++) {
		struct rp_script_cmd x = s->cmds[i];
		size_t j = i;

		while (j > 0 && cmp_cmd(&s->cmds[j - 1], &x) > 0) {
			s->cmds[j] = s->cmds[j - 1];
			j--;
		}
		s->cmds[j] = x;
	}
	for (size_t i = 0; i < s->n; i++)
		if (!s->cmds[i].at_marker)
			s->n_timed++;
	return 0;
}

int rp_script_parse(const char *text, size_t len, const char *name, struct rp_script *s,
		    struct mr_error *err)
{
	const char *nul = memchr(text, 0, len);
	char *copy;
	int rc;

	memset(s, 0, sizeof(*s));
	if (nul) {
		size_t off = (size_t)(nul - text);
		unsigned line = 1;

		for (const char *c = text; c < nul; c++)
			line += *c == '\n';
		/* the parser reads text up to a NUL: what follows would be dropped unread */
		return mr_error_set(err, MR_EINVAL, "%s:%u: a NUL byte at offset %zu: a script is text, one command per line; remove it (the commands after it would be ignored)",
				    name, line, off);
	}
	copy = malloc(len + 1);
	if (!copy)
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	memcpy(copy, text, len);
	copy[len] = 0;
	rc = rp_script_parse_text(copy, name, s, err);
	free(copy);
	return rc;
}

void rp_script_free(struct rp_script *s)
{
	if (!s)
		return;
	free(s->cmds);
	s->cmds = NULL;
	s->n = s->n_timed = 0;
}
