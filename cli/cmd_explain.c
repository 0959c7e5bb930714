// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_explain.c - `memreplay explain RESULTS --runs A,B`: the pages whose outcomes
 * differ most between two runs, each with its history under both (mr_explain(),
 * replayer/explain.c; docs/replay.md "Why was this page evicted").
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mr_detail.h"
#include "mr_event.h"
#include "mr_policy.h"
#include "mr_replay.h"

static const struct {
	uint32_t bit;
	const char *name;
} flag_names[] = {
	{ MR_PG_ACTIVE, "active" },       { MR_PG_REFERENCED, "referenced" },
	{ MR_PG_WORKINGSET, "workingset" }, { MR_PG_RECLAIM, "reclaim" },
	{ MR_PG_DIRTY, "dirty" },         { MR_PG_WRITEBACK, "writeback" },
	{ MR_PG_SWAPCACHE, "swapcache" }, { MR_PG_UNEVICTABLE, "unevictable" },
	{ MR_PG_MLOCKED, "mlocked" },
};

static const char *reclaim_name(uint32_t how)
{
	switch (how) {
	case MR_PRC_MEMCG:
		return "memcg";
	case MR_PRC_KSWAPD:
		return "kswapd";
	case MR_PRC_DIRECT:
		return "direct";
	default:
		return "other";
	}
}

static const char *kind_name(uint32_t kind)
{
	static const char *const names[] = { "?", "insert", "move", "evict", "free" };

	return kind < 5 ? names[kind] : "?";
}

static const char *cause_name(uint16_t cause)
{
	return cause == UINT16_MAX ? "time" : mr_event_kind_name(cause);
}

/* Where the page is after entry e, one phrase. */
static void place(const struct mr_page_event *e, char *buf, size_t cap)
{
	size_t l;

	if (!e) {
		snprintf(buf, cap, "never in memory yet");
		return;
	}
	if (!(e->flags & MR_PG_RESIDENT)) {
		snprintf(buf, cap, "not in memory");
		return;
	}
	if (!strcmp(e->list, "gen"))
		l = (size_t)snprintf(buf, cap, "gen seq %" PRIu64 " (min_seq %" PRIu64 ", max_seq %"
				     PRIu64 "), refs %u", e->seq, e->min_seq, e->max_seq, e->tier_refs);
	else if (!strcmp(e->list, "queue") && e->next_use == UINT64_MAX)
		l = (size_t)snprintf(buf, cap, "queued, never used again");
	else if (!strcmp(e->list, "queue"))
		l = (size_t)snprintf(buf, cap, "queued, next use at reference %" PRIu64, e->next_use);
	else
		l = (size_t)snprintf(buf, cap, "%s", e->list[0] ? e->list : "on no list");
	for (size_t i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]) && l < cap; i++)
		if (e->flags & flag_names[i].bit)
			l += (size_t)snprintf(buf + l, cap - l, ", %s", flag_names[i].name);
	if (l < cap && e->mapcount)
		snprintf(buf + l, cap - l, ", mapped %u", e->mapcount);
}

/* What entry e says happened, given the entry before it (prev, may be NULL). */
static void happened(const struct mr_page_event *e, const struct mr_page_event *prev, char *buf,
		     size_t cap)
{
	char where[256], was[256];

	place(e, where, sizeof(where));
	switch (e->kind) {
	case MR_PEV_INSERT:
		snprintf(buf, cap, "in by %s%s%s%s%s -> %s", cause_name(e->cause),
			 (e->how & MR_PEV_REFAULT) ? ", a refault" : ", first time",
			 (e->how & MR_ADD_REFAULT) ? ", shadow found" : "",
			 (e->how & MR_ADD_IN_FAULT) ? ", in fault" : "",
			 (e->how & MR_ADD_SWAPIN) ? ", swap-in" : "", where);
		break;
	case MR_PEV_EVICT:
		place(prev, was, sizeof(was));
		if (e->priority >= 0)
			snprintf(buf, cap, "EVICTED by %s reclaim (priority %d, %" PRIu64 " scanned, %"
				 PRIu64 " of %" PRIu64 " reclaimed), was %s", reclaim_name(e->how),
				 e->priority, e->nr_scanned, e->nr_reclaimed, e->nr_to_reclaim, was);
		else
			snprintf(buf, cap, "EVICTED by %s reclaim, was %s", reclaim_name(e->how), was);
		break;
	case MR_PEV_FREE:
		snprintf(buf, cap, "freed by %s", cause_name(e->cause));
		break;
	default:
		snprintf(buf, cap, "-> %s (at %s)", where, cause_name(e->cause));
	}
}

/* The other run's last entry at or before event ev. */
static const struct mr_page_event *state_at(const struct mr_page_event *ev, size_t n, uint64_t at)
{
	const struct mr_page_event *last = NULL;

	for (size_t i = 0; i < n && ev[i].ev <= at; i++)
		last = &ev[i];
	return last;
}

static void print_counts(const char *label, const struct mr_detail_counts *c)
{
	printf("  %-22s %7u %9u %7u %8u %9u %6u %7u\n", label, c->faults, c->majfaults, c->misses,
	       c->refaults, c->evictions, c->freed, c->pswpin);
}

static void print_text(const struct mr_explain *x, const int64_t *runs)
{
	char label[2][64];

	for (int k = 0; k < 2; k++) {
		char mem[32];

		snprintf(label[k], sizeof(label[k]), "%c = run %lld", 'A' + k, (long long)runs[k]);
		printf("%c: run %lld, %s at %s\n", 'A' + k, (long long)runs[k], x->spec[k],
		       x->memory_pages[k] ? mr_replay_format_memory(x->memory_pages[k], mem, sizeof(mem)) :
		       "cgroup limits");
	}
	if (!x->npages) {
		printf("no page's refaults or evictions differ between runs %lld and %lld\n",
		       (long long)runs[0], (long long)runs[1]);
		return;
	}
	if (x->differing) {
		static const char *const type[3] = { "anon", "file", "shmem" };
		const char *sep = "";

		printf("%zu pages differ (%s): ", x->differing,
		       x->from_table ? "the results' detail_pages" : "replayed to count them");
		for (int k = 0; k < 3; k++)
			if (x->differing_type[k]) {
				printf("%s%zu %s (refaults + evictions A - B %+lld)", sep,
				       x->differing_type[k], type[k], (long long)x->score_type[k]);
				sep = ", ";
			}
		printf("; the %zu whose refaults + evictions differ most (A minus B):\n", x->npages);
	}
	for (size_t i = 0; i < x->npages; i++) {
		const struct mr_explain_page *p = &x->pages[i];
		size_t a = 0, b = 0;

		printf("\npage %u: %s; refaults + evictions A - B = %+lld\n", p->page, p->what,
		       (long long)p->score);
		printf("  %-22s %7s %9s %7s %8s %9s %6s %7s\n", "", "faults", "majfaults", "misses",
		       "refaults", "evictions", "freed", "pswpin");
		print_counts(label[0], &p->c[0]);
		print_counts(label[1], &p->c[1]);
		printf("  %-10s %-16s %-3s %-s\n", "event", "time (s)", "run", "what happened | the other run then");
		/* both histories, interleaved by event (A first within one event) */
		while (a < p->nev[0] || b < p->nev[1]) {
			int k = b >= p->nev[1] || (a < p->nev[0] && p->ev[0][a].ev <= p->ev[1][b].ev) ? 0 : 1;
			size_t *pos = k ? &b : &a;
			const struct mr_page_event *e = &p->ev[k][*pos];
			const struct mr_page_event *prev = *pos ? e - 1 : NULL;
			char what[512], other[256];

			happened(e, prev, what, sizeof(what));
			place(state_at(p->ev[!k], p->nev[!k], e->ev), other, sizeof(other));
			printf("  %-10" PRIu64 " %-16.9f %-3c %s", e->ev, (double)e->t_ns / 1e9,
			       'A' + k, what);
			if (e->refs)
				printf(" [%u refs before]", e->refs);
			printf(" | %c: %s\n", 'B' - k, other);
			(*pos)++;
		}
		for (int k = 0; k < 2; k++)
			if (p->dropped[k])
				printf("  (%c: %llu later entries not kept, past %d)\n", 'A' + k,
				       (unsigned long long)p->dropped[k], MR_TRACE_MAX_EVENTS);
	}
}

static void json_counts(const struct mr_detail_counts *c)
{
	printf("{\"faults\":%u,\"majfaults\":%u,\"misses\":%u,\"refaults\":%u,"
	       "\"shadow_refaults\":%u,\"evictions\":%u,\"freed\":%u,\"pswpin\":%u,"
	       "\"writebacks\":%u}", c->faults, c->majfaults, c->misses, c->refaults,
	       c->shadow_refaults, c->evictions, c->freed, c->pswpin, c->writebacks);
}

static void json_entry(const struct mr_page_event *e)
{
	int first = 1;

	printf("{\"ev\":%" PRIu64 ",\"t_ns\":%" PRIu64 ",\"kind\":\"%s\",\"cause\":\"%s\","
	       "\"refs\":%u,\"resident\":%s,\"mapcount\":%u,\"list\":", e->ev, e->t_ns,
	       kind_name(e->kind), cause_name(e->cause), e->refs,
	       (e->flags & MR_PG_RESIDENT) ? "true" : "false", e->mapcount);
	cli_json_string(e->list);
	if (!strcmp(e->list, "gen"))
		printf(",\"gen\":%d,\"seq\":%" PRIu64 ",\"min_seq\":%" PRIu64 ",\"max_seq\":%" PRIu64
		       ",\"tier_refs\":%u", e->gen, e->seq, e->min_seq, e->max_seq, e->tier_refs);
	if (!strcmp(e->list, "queue")) {
		if (e->next_use == UINT64_MAX)
			printf(",\"next_use\":null");
		else
			printf(",\"next_use\":%" PRIu64, e->next_use);
	}
	printf(",\"flags\":[");
	for (size_t i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++)
		if (e->flags & flag_names[i].bit) {
			printf("%s\"%s\"", first ? "" : ",", flag_names[i].name);
			first = 0;
		}
	printf("]");
	if (e->kind == MR_PEV_INSERT)
		printf(",\"refault\":%s,\"shadow\":%s,\"in_fault\":%s,\"readahead\":%s,\"swapin\":%s",
		       (e->how & MR_PEV_REFAULT) ? "true" : "false",
		       (e->how & MR_ADD_REFAULT) ? "true" : "false",
		       (e->how & MR_ADD_IN_FAULT) ? "true" : "false",
		       (e->how & MR_ADD_READAHEAD) ? "true" : "false",
		       (e->how & MR_ADD_SWAPIN) ? "true" : "false");
	if (e->kind == MR_PEV_EVICT) {
		printf(",\"reclaim\":\"%s\"", reclaim_name(e->how));
		if (e->priority >= 0)
			printf(",\"priority\":%d,\"nr_scanned\":%" PRIu64 ",\"nr_reclaimed\":%" PRIu64
			       ",\"nr_to_reclaim\":%" PRIu64, e->priority, e->nr_scanned,
			       e->nr_reclaimed, e->nr_to_reclaim);
	}
	printf("}");
}

static void print_json(const struct mr_explain *x, const char *results, const int64_t *runs)
{
	printf("{\"results\":");
	cli_json_string(results);
	printf(",\"trace\":");
	cli_json_string(x->trace);
	printf(",\"runs\":[");
	for (int k = 0; k < 2; k++) {
		printf("%s{\"id\":%lld,\"spec\":", k ? "," : "", (long long)runs[k]);
		cli_json_string(x->spec[k]);
		printf(",\"memory_pages\":%" PRIu64 "}", x->memory_pages[k]);
	}
	printf("],\"differing\":%zu,\"differing_by_type\":{\"anon\":{\"pages\":%zu,\"score\":%lld},"
	       "\"file\":{\"pages\":%zu,\"score\":%lld},\"shmem\":{\"pages\":%zu,\"score\":%lld}}",
	       x->differing, x->differing_type[0], (long long)x->score_type[0], x->differing_type[1],
	       (long long)x->score_type[1], x->differing_type[2], (long long)x->score_type[2]);
	printf(",\"ranked_from\":\"%s\",\"pages\":[", x->from_table ? "detail_pages" : "replay");
	for (size_t i = 0; i < x->npages; i++) {
		const struct mr_explain_page *p = &x->pages[i];

		printf("%s{\"page\":%u,\"what\":", i ? "," : "", p->page);
		cli_json_string(p->what);
		printf(",\"score\":%lld,\"counts\":[", (long long)p->score);
		json_counts(&p->c[0]);
		printf(",");
		json_counts(&p->c[1]);
		printf("],\"dropped\":[%llu,%llu],\"history\":[", (unsigned long long)p->dropped[0],
		       (unsigned long long)p->dropped[1]);
		for (int k = 0; k < 2; k++) {
			printf("%s[", k ? "," : "");
			for (size_t j = 0; j < p->nev[k]; j++) {
				if (j)
					printf(",");
				json_entry(&p->ev[k][j]);
			}
			printf("]");
		}
		printf("]}");
	}
	printf("]}\n");
}

static int parse_id(const char *s, const char *end, int64_t *v)
{
	char *e;
	long long x;

	errno = 0;
	x = strtoll(s, &e, 10);
	if (e == s || e != end || x < 1 || errno == ERANGE) /* not read as 2^63 - 1 */
		return -1;
	*v = x;
	return 0;
}

int cmd_explain(int argc, char **argv)
{
	enum { O_RUNS = 256, O_TOP, O_PAGE, O_TRACE, O_TMPDIR };
	static const struct option opts[] = {
		{ "runs", required_argument, NULL, O_RUNS },
		{ "top", required_argument, NULL, O_TOP },
		{ "page", required_argument, NULL, O_PAGE },
		{ "trace", required_argument, NULL, O_TRACE },
		{ "tmpdir", required_argument, NULL, O_TMPDIR },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct mr_explain_opts o = { 0 };
	struct mr_explain *x = NULL;
	struct mr_error err = { 0 };
	uint32_t pages[MR_TRACE_MAX_PAGES];
	const char *format = "text";
	int have_runs = 0, c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
		switch (c) {
		case O_RUNS: {
			const char *comma = strchr(optarg, ',');

			if (!comma || parse_id(optarg, comma, &o.runs[0]) ||
			    parse_id(comma + 1, comma + 1 + strlen(comma + 1), &o.runs[1]))
				return cli_usage_error("explain", "--runs '%s': give two run ids, A,B (the runs table's id)",
						       optarg);
			have_runs = 1;
			break;
		}
		case O_TOP: {
			char *end;
			long n = strtol(optarg, &end, 10);

			if (*end || end == optarg || n < 1 || n > MR_TRACE_MAX_PAGES)
				return cli_usage_error("explain", "--top '%s': give 1 to %d pages", optarg,
						       MR_TRACE_MAX_PAGES);
			o.top = (size_t)n;
			break;
		}
		case O_PAGE:
			for (const char *p = optarg;;) {
				char *end;
				unsigned long long v = strtoull(p, &end, 10);

				if (end == p || (*end && *end != ',') || v > UINT32_MAX || *p == '-')
					return cli_usage_error("explain", "--page '%s': give page ids (the trace's pages.id), comma-separated",
							       optarg);
				if (o.npages == MR_TRACE_MAX_PAGES)
					return cli_usage_error("explain", "--page: at most %d pages at a time",
							       MR_TRACE_MAX_PAGES);
				pages[o.npages++] = (uint32_t)v;
				if (!*end)
					break;
				p = end + 1;
			}
			break;
		case O_TRACE:
			o.trace = optarg;
			break;
		case O_TMPDIR:
			o.tmpdir = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "json"))
				return cli_usage_error("explain", "--format '%s': use text or json", optarg);
			format = optarg;
			break;
		case 'h':
			return cli_help("explain");
		default:
			return cli_usage_error("explain", "bad option (see `memreplay explain --help`)");
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("explain", optind >= argc ? "name a results database" :
				       "one results database at a time");
	if (!have_runs)
		return cli_usage_error("explain", "give the two runs to compare: --runs A,B (run ids; `memreplay query RESULTS 'SELECT id, spec FROM runs'` lists them)");
	if (o.top && o.npages)
		return cli_usage_error("explain", "--top and --page: --page names the pages, --top picks them; give one");
	o.results = argv[optind];
	o.pages = o.npages ? pages : NULL;
	if (!o.tmpdir)
		o.tmpdir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	if (mr_explain(&o, &x, &err))
		return cli_fail("explain", &err);
	if (!strcmp(format, "json"))
		print_json(x, o.results, o.runs);
	else
		print_text(x, o.runs);
	mr_explain_free(x);
	return 0;
}
