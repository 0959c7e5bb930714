// SPDX-License-Identifier: GPL-2.0
/*
 * import_perf.c - `perf script` text of page-fault samples with data addresses.
 *
 * Input: `perf record -e page-faults -c 1 -d -- PROG`, then
 *   perf script -F comm,pid,tid,time,event,addr,ip
 * whose lines read
 *   COMM PID/TID SECONDS.FRACTION: EVENT: ADDR IP
 * perf's default fields with the address added (`perf script -F +addr`) are read too:
 *   COMM TID SECONDS.FRACTION: PERIOD EVENT: ADDR SYM+OFF (DSO) IP SYM+OFF (DSO)
 * The line is read around its time field (the first token that is digits '.' digits
 * ':'), because a comm may hold spaces: before it the thread (PID/TID or TID, an
 * optional [CPU]), after it an optional period and event name, then the address.
 *
 * Each sample is a FAULT at its address then an ACCESS (source fault) of its page,
 * as the recorder writes a fault (storage/mr_event.h); exec when the IP is on the
 * faulting page (a guess, the recorder's without exceptions:page_fault_user).
 */
#include <stdlib.h>
#include <string.h>

#include "import_priv.h"

#define PERF_TOKENS 64

static int is_digits(const char *s, size_t n)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/* "SECONDS.FRACTION:" -> ns; -1 if tok is not a time field. */
static int parse_time(const char *tok, size_t n, uint64_t *ns)
{
	const char *dot = memchr(tok, '.', n);
	uint64_t s = 0, f = 0;
	size_t nf;

	if (n < 4 || tok[n - 1] != ':' || !dot || !is_digits(tok, (size_t)(dot - tok)))
		return -1;
	nf = (size_t)(tok + n - 1 - (dot + 1));
	if (!is_digits(dot + 1, nf) || nf > 9 || dot - tok > 10)
		return -1;
	for (const char *p = tok; p < dot; p++)
		s = s * 10 + (uint64_t)(*p - '0');
	for (size_t i = 0; i < 9; i++)
		f = f * 10 + (i < nf ? (uint64_t)(dot[1 + i] - '0') : 0);
	*ns = s * IMP_NS_PER_S + f;
	return 0;
}

static int parse_int32(const char *s, size_t n, int32_t *v)
{
	uint64_t x = 0;

	if (!is_digits(s, n) || n > 10)
		return -1;
	for (size_t i = 0; i < n; i++)
		x = x * 10 + (uint64_t)(s[i] - '0');
	if (x > INT32_MAX)
		return -1;
	*v = (int32_t)x;
	return 0;
}

static const char *const fault_events[] = {
	"page-faults", "faults", "minor-faults", "major-faults", NULL,
};

struct perf_state {
	uint32_t stream;
	int have_t0;
	uint64_t t0, last;
};

static int perf_line(struct imp_ctx *c, struct perf_state *ps, char *line)
{
	char *tok[PERF_TOKENS];
	size_t len[PERF_TOKENS], nt = 0;
	int32_t pid, tid;
	uint64_t t, addr, ip = 0, vpage;
	size_t ti, i;
	int major = 0, have_ip = 0, period = 0, exec;
	char comm[64];
	uint32_t task, mm, page;
	int rc;

	for (char *p = line; *p && nt < PERF_TOKENS;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		tok[nt] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		len[nt] = (size_t)(p - tok[nt]);
		nt++;
	}
	if (!nt || tok[0][0] == '#')
		return 0; /* blank, or a header line of `perf script --header` */
	for (ti = 0; ti < nt && parse_time(tok[ti], len[ti], &t); ti++)
		;
	if (ti == nt)
		return imp_fail(c, "expected a sample line with a time field SECONDS.FRACTION: "
				"(perf script -F comm,pid,tid,time,event,addr,ip)");
	i = ti;
	if (i && tok[i - 1][0] == '[' && tok[i - 1][len[i - 1] - 1] == ']')
		i--; /* the cpu field */
	if (!i)
		return imp_fail(c, "no thread id before the time: give perf script the tid field "
				"(-F comm,pid,tid,time,event,addr,ip)");
	i--;
	{
		char *slash = memchr(tok[i], '/', len[i]);

		if (slash) {
			if (parse_int32(tok[i], (size_t)(slash - tok[i]), &pid) ||
			    parse_int32(slash + 1, len[i] - (size_t)(slash + 1 - tok[i]), &tid))
				return imp_fail(c, "'%.*s' before the time is not PID/TID", (int)len[i],
						tok[i]);
		} else {
			if (parse_int32(tok[i], len[i], &tid))
				return imp_fail(c, "'%.*s' before the time is not a thread id",
						(int)len[i], tok[i]);
			pid = tid; /* without pid, each thread is its own process */
		}
	}
	/* the comm: every token before the thread, spaces kept */
	comm[0] = 0;
	if (i) {
		size_t n = (size_t)(tok[i - 1] + len[i - 1] - tok[0]);

		if (n >= sizeof(comm))
			n = sizeof(comm) - 1;
		memcpy(comm, tok[0], n);
		comm[n] = 0;
	}
	i = ti + 1;
	if (i + 1 < nt && is_digits(tok[i], len[i]) && tok[i + 1][len[i + 1] - 1] == ':') {
		period = 1; /* perf's default fields: PERIOD EVENT: */
		i++;
	}
	if (i < nt && tok[i][len[i] - 1] == ':') {
		size_t k;

		for (k = 0; fault_events[k]; k++)
			if (len[i] - 1 == strlen(fault_events[k]) &&
			    !memcmp(tok[i], fault_events[k], len[i] - 1))
				break;
		if (!fault_events[k])
			return imp_fail(c, "event '%.*s' is not a page-fault event: record with "
					"perf record -e page-faults -d", (int)len[i] - 1, tok[i]);
		major = !strcmp(fault_events[k], "major-faults");
		i++;
	}
	if (i >= nt || imp_hex(tok[i], len[i], &addr))
		return imp_fail(c, "expected the sample's data address (hex) after the %s: give "
				"perf script the addr field (-F comm,pid,tid,time,event,addr,ip) of a "
				"perf record -d", period ? "event" : "time");
	if (period) {
		/* perf's default fields print the IP after the address's symbol; without addr
		 * the first hex word is the IP: make sure a second one follows */
		size_t k;

		for (k = i + 1; k < nt && imp_hex(tok[k], len[k], &ip); k++)
			;
		if (k == nt)
			return imp_fail(c, "one address in a line of perf's default fields: that "
					"is the IP; add the data address with perf script -F +addr "
					"(and perf record -d)");
		have_ip = 1;
	} else if (i + 1 < nt && !imp_hex(tok[i + 1], len[i + 1], &ip)) {
		have_ip = 1;
	}
	if (!ps->have_t0) {
		ps->have_t0 = 1;
		ps->t0 = t;
	}
	if (t < ps->t0) { /* before the first sample: at the last, as one before the last */
		c->st.clamped++;
		t = ps->t0 + ps->last;
	}
	t -= ps->t0;
	if (t < ps->last) {
		c->st.clamped++; /* perf script sorts by time; keep the stream ordered */
		t = ps->last;
	}
	ps->last = t;
	if (addr >= IMP_VA_END) {
		c->st.skipped++; /* a kernel address */
		return 0;
	}
	vpage = addr >> IMP_PAGE_SHIFT;
	exec = have_ip && (ip >> IMP_PAGE_SHIFT) == vpage;
	rc = imp_task(c, ps->stream, t, pid, tid, comm[0] ? comm : NULL, &task, &mm);
	if (!rc)
		rc = imp_page(c, mm, vpage, exec, &page);
	if (!rc)
		rc = imp_emit(c, ps->stream, t, MR_EV_FAULT, page, task,
			      (uint8_t)((exec ? MR_ACC_EXEC : 0) | (major ? MR_FAULT_MAJOR : 0)), 0,
			      addr);
	if (!rc)
		rc = imp_emit(c, ps->stream, t, MR_EV_ACCESS, page, task,
			      MR_ACC_FLAGS(exec ? MR_ACC_EXEC : MR_ACC_READ, MR_SRC_FAULT), 0, 0);
	return rc;
}

static int perf_run(struct imp_ctx *c)
{
	struct perf_state ps = { 0 };
	char *buf = NULL;
	size_t cap = 0;
	int rc = imp_stream(c, "perf script", &ps.stream);

	while (!rc && (rc = imp_getline(c, &buf, &cap)) > 0)
		rc = perf_line(c, &ps, buf);
	free(buf);
	return rc;
}

const struct mr_importer_ops imp_perf_ops = { .run = perf_run };
