// SPDX-License-Identifier: GPL-2.0
/*
 * test_replay.c - the replay engine on hand-made traces with known answers, driven by a
 * tiny FIFO policy registered from the test through mr_policy_register (the plugin
 * path): memcg accounting and swap, refaults through shadows, munmap/exit freeing, a file
 * page shared by two mms found by rmap and walk_mm, next-use positions, script commands
 * at times and markers, determinism across runs and thread counts, the results schema,
 * and error messages. When the built-in policies exist (lru, opt, mglru), opt must not
 * evict more than the others on the same trace and size.
 */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mr_gen.h"
#include "mr_test.h"

#include "mr_policy.h"
#include "mr_replay.h"

#include "test_replay_trace.h"
#include "rp_int.h" /* rp_nextuse_set_block */

/* ================= the FIFO test policy ================= */

#define NTAGS 8
#define MAXLOG 4096

struct fifo_stats {
	uint64_t adds, adds_fault, adds_ra, adds_refault, adds_swapin, marks, dels, rotates;
	uint64_t refaults, bad_shadow, shrinks, nodes_seen, max_rmap;
	uint64_t cmds;
	uint64_t cmd_t[16];
	char cmd_text[16][64];
	uint64_t walk_young, walk_tables, walk_puds, walk_vmas, walk_calls;
	uint64_t nacc;
	uint32_t acc_page[MAXLOG];
	uint64_t acc_nu[MAXLOG];
};
static struct fifo_stats stats[NTAGS];

struct fifo_params {
	int64_t tag;
	int64_t access; /* also log access() (makes the engine compute next-use) */
};

static const struct mr_param_desc fifo_param_table[] = {
	{ "tag", MR_PARAM_INT, 0, NTAGS - 1, 0, NULL, offsetof(struct fifo_params, tag),
	  "which stats slot this instance fills" },
};

struct fifo_page {
	uint32_t prev, next; /* towards the oldest / the newest */
	uint8_t on;
};

struct fifo_lv {
	uint32_t oldest, newest;
	uint64_t n;
};

struct fifo_priv {
	struct fifo_lv *lv;
	struct fifo_stats *st;
};

static struct fifo_page *fp(struct mr_policy *p, uint32_t page)
{
	return mr_policy_page(p, page);
}

static struct fifo_priv *fpriv(struct mr_policy *p)
{
	return p->priv;
}

static void fifo_unlink(struct mr_policy *p, uint32_t page)
{
	struct fifo_page *x = fp(p, page);
	struct fifo_lv *lv = &fpriv(p)->lv[p->m->folios[page].lruvec];

	if (!x->on)
		return;
	if (x->prev != MR_NONE)
		fp(p, x->prev)->next = x->next;
	else
		lv->oldest = x->next;
	if (x->next != MR_NONE)
		fp(p, x->next)->prev = x->prev;
	else
		lv->newest = x->prev;
	x->on = 0;
	lv->n--;
	p->m->folios[page].flags &= ~MR_PG_LRU;
}

/* newest = 1: append as the newest; else put at the oldest end (next victim). */
static void fifo_link(struct mr_policy *p, uint32_t page, int newest)
{
	struct fifo_page *x = fp(p, page);
	struct fifo_lv *lv = &fpriv(p)->lv[p->m->folios[page].lruvec];

	if (x->on)
		return;
	if (newest) {
		x->prev = lv->newest;
		x->next = MR_NONE;
		if (lv->newest != MR_NONE)
			fp(p, lv->newest)->next = page;
		else
			lv->oldest = page;
		lv->newest = page;
	} else {
		x->next = lv->oldest;
		x->prev = MR_NONE;
		if (lv->oldest != MR_NONE)
			fp(p, lv->oldest)->prev = page;
		else
			lv->newest = page;
		lv->oldest = page;
	}
	x->on = 1;
	lv->n++;
	p->m->folios[page].flags |= MR_PG_LRU;
}

static int fifo_init(struct mr_policy *p, struct mr_error *err)
{
	struct fifo_priv *pr = fpriv(p);
	const struct fifo_params *par = p->params;

	pr->lv = calloc(p->m->nr_lruvecs, sizeof(*pr->lv));
	if (!pr->lv)
		return mr_error_set(err, MR_ENOMEM, "fifo: out of memory");
	for (uint32_t i = 0; i < p->m->nr_lruvecs; i++)
		pr->lv[i].oldest = pr->lv[i].newest = MR_NONE;
	pr->st = &stats[par->tag];
	memset(pr->st, 0, sizeof(*pr->st));
	return 0;
}

static void fifo_fini(struct mr_policy *p)
{
	free(fpriv(p)->lv);
}

static void fifo_add(struct mr_policy *p, uint32_t page, unsigned ctx)
{
	struct fifo_stats *st = fpriv(p)->st;

	st->adds++;
	st->adds_fault += !!(ctx & MR_ADD_IN_FAULT);
	st->adds_ra += !!(ctx & MR_ADD_READAHEAD);
	st->adds_refault += !!(ctx & MR_ADD_REFAULT);
	st->adds_swapin += !!(ctx & MR_ADD_SWAPIN);
	fifo_link(p, page, 1);
}

static void fifo_mark(struct mr_policy *p, uint32_t page)
{
	(void)page;
	fpriv(p)->st->marks++;
}

static void fifo_del(struct mr_policy *p, uint32_t page)
{
	fpriv(p)->st->dels++;
	fifo_unlink(p, page);
}

static void fifo_refault(struct mr_policy *p, uint32_t page, uint64_t shadow, unsigned ctx)
{
	(void)ctx;
	fpriv(p)->st->refaults++;
	if (shadow != (uint64_t)mr_frame_page(p->m, page) * 2 + 1)
		fpriv(p)->st->bad_shadow++;
}

static void fifo_rotate(struct mr_policy *p, uint32_t page)
{
	fpriv(p)->st->rotates++;
	if (fp(p, page)->on) {
		fifo_unlink(p, page);
		fifo_link(p, page, 0);
	}
}

static int count_pte(void *arg, const struct mr_vma *vma, struct mr_pte_table *pt,
		     unsigned slot)
{
	(void)vma;
	(void)pt;
	(void)slot;
	(*(uint64_t *)arg)++;
	return 0;
}

static void fifo_shrink(struct mr_policy *p, uint32_t lruvec, struct mr_scan_control *sc)
{
	struct mr_machine *m = p->m;
	struct fifo_lv *lv = &fpriv(p)->lv[lruvec];
	struct fifo_stats *st = fpriv(p)->st;
	uint64_t budget = lv->n;

	st->shrinks++;
	st->nodes_seen |= 1ull << (sc->node & 63);
	while (budget-- && sc->nr_reclaimed < sc->nr_to_reclaim && lv->oldest != MR_NONE) {
		uint32_t page = lv->oldest;
		struct mr_folio *f = &m->folios[page];
		uint64_t n = 0;
		int rc;

		fifo_unlink(p, page);
		sc->nr_scanned++;
		m->ops->rmap_walk(m, page, count_pte, &n);
		if (n > st->max_rmap)
			st->max_rmap = n;
		if (f->flags & MR_PG_WRITEBACK) {
			f->flags |= MR_PG_RECLAIM;
			fifo_link(p, page, 1);
			continue;
		}
		if ((f->flags & MR_PG_SWAPBACKED) && !(f->flags & MR_PG_SWAPCACHE) &&
		    m->ops->add_to_swap(m, page)) {
			fifo_link(p, page, 1);
			continue;
		}
		rc = m->ops->remove_mapping(m, page, (uint64_t)mr_frame_page(m, page) * 2 + 1);
		if (rc == MR_REMOVED) {
			sc->nr_reclaimed++;
			continue;
		}
		if (f->flags & MR_PG_DIRTY) {
			f->flags |= MR_PG_RECLAIM;
			m->ops->start_writeback(m, page);
			if (f->flags & MR_PG_SWAPBACKED)
				mr_count(m, f->lruvec, MR_VM_PSWPOUT, 1);
		}
		fifo_link(p, page, 1);
	}
}

static void fifo_access(struct mr_policy *p, uint32_t page, uint64_t next_use)
{
	struct fifo_stats *st = fpriv(p)->st;

	if (st->nacc < MAXLOG) {
		st->acc_page[st->nacc] = mr_frame_page(p->m, page);
		st->acc_nu[st->nacc] = next_use;
	}
	st->nacc++;
}

struct walk_arg {
	struct fifo_stats *st;
};

static int w_pud(void *arg, const struct mr_vma *vma, uint64_t addr)
{
	(void)vma;
	(void)addr;
	((struct walk_arg *)arg)->st->walk_puds++;
	return 0;
}

static int w_pmd(void *arg, const struct mr_vma *vma, struct mr_pte_table *pt,
		 unsigned first, unsigned last)
{
	struct fifo_stats *st = ((struct walk_arg *)arg)->st;

	(void)vma;
	st->walk_tables++;
	for (unsigned s = first; s <= last; s++)
		if (pt->page[s] != MR_NONE && (pt->bits[s] & MR_PTE_YOUNG))
			st->walk_young++;
	return 0;
}

static int w_vma(void *arg, const struct mr_vma *vma)
{
	(void)vma;
	((struct walk_arg *)arg)->st->walk_vmas++;
	return 0;
}

/* "+ 9 9 9": walk every alive mm; "- 1 1 1": fails; anything else is recorded. */
static int fifo_command(struct mr_policy *p, const char *cmd, struct mr_error *err)
{
	struct fifo_stats *st = fpriv(p)->st;

	if (st->cmds < 16) {
		st->cmd_t[st->cmds] = p->m->now_ns;
		snprintf(st->cmd_text[st->cmds], sizeof(st->cmd_text[0]), "%s", cmd);
	}
	st->cmds++;
	if (!strcmp(cmd, "- 1 1 1"))
		return mr_error_set(err, MR_EINVAL, "fifo: min_gen 1 does not exist");
	if (!strcmp(cmd, "+ 9 9 9")) {
		static const struct mr_walk_ops ops = { .pud_entry = w_pud, .pmd_entry = w_pmd,
							.vma_entry = w_vma };
		struct walk_arg a = { st };

		for (uint32_t mm = 0; mm < p->m->nr_mms; mm++) {
			if (!p->m->mms[mm].alive)
				continue;
			st->walk_calls++;
			p->m->ops->walk_mm(p->m, mm, &ops, &a);
		}
	}
	return 0;
}

static size_t fifo_show(struct mr_policy *p, int full, char *buf, size_t cap)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < p->m->nr_lruvecs; i++)
		n += fpriv(p)->lv[i].n;
	return (size_t)snprintf(buf, cap, "fifo %s listed=%llu\n", full ? "full" : "short",
				(unsigned long long)n);
}

static void fifo_model(struct mr_policy *p, void (*emit)(void *, const char *, double), void *arg)
{
	struct fifo_stats *st = fpriv(p)->st;

	emit(arg, "fifo_adds", (double)st->adds);
	emit(arg, "fifo_refaults", (double)st->refaults);
}

static unsigned fifo_check(struct mr_policy *p)
{
	uint64_t listed = 0, resident = 0;

	for (uint32_t i = 0; i < p->m->nr_lruvecs; i++)
		listed += fpriv(p)->lv[i].n;
	for (uint32_t i = 0; i < p->m->nr_pages; i++)
		resident += (p->m->folios[i].flags & MR_PG_RESIDENT) != 0;
	return listed != resident;
}

static const struct mr_policy_ops fifo_ops = {
	.abi = MR_POLICY_ABI,
	.name = "fifo",
	.help = "test FIFO",
	.params = fifo_param_table,
	.nparams = 1,
	.params_size = sizeof(struct fifo_params),
	.priv_size = sizeof(struct fifo_priv),
	.page_priv_size = sizeof(struct fifo_page),
	.init = fifo_init,
	.fini = fifo_fini,
	.folio_add = fifo_add,
	.mark_accessed = fifo_mark,
	.folio_del = fifo_del,
	.refault = fifo_refault,
	.rotate = fifo_rotate,
	.shrink_lruvec = fifo_shrink,
	.lru_gen_command = fifo_command,
	.lru_gen_show = fifo_show,
	.model_counters = fifo_model,
	.check = fifo_check,
};

/* The same with an access hook (engine computes next-use positions). */
static struct mr_policy_ops fifonu_ops;

/* ================= helpers ================= */

struct run_opts {
	const char *trace;
	const char *pol[8];
	size_t npol;
	uint64_t memory;
	const struct mr_replay_limit *limits;
	size_t nlimits;
	uint64_t swap;
	const char *script;
	int threads;
	const char *out;
	uint64_t wb_delay;
};

static struct mr_replay *replay(const struct run_opts *ro, struct mr_error *err)
{
	struct mr_replay_opts o = {
		.trace = ro->trace, .policies = ro->pol, .npolicies = ro->npol,
		.memory_pages = ro->memory, .limits = ro->limits, .nlimits = ro->nlimits,
		.swap_pages = ro->swap, .script_text = ro->script, .threads = ro->threads,
		.tmpdir = mr_test_tmpdir(), .check = 1, .writeback_delay_ns = ro->wb_delay,
	};
	struct mr_replay *r = NULL;
	int rc = mr_replay_create(&o, &r, err);

	if (!rc)
		rc = mr_replay_run(r, err);
	if (!rc && ro->out)
		rc = mr_replay_write_results(r, ro->out, err);
	if (rc) {
		fprintf(stderr, "replay %s: %s\n", ro->trace, err->msg);
		mr_replay_destroy(r);
		return NULL;
	}
	return r;
}

static uint64_t ctr_cg(const struct mr_replay *r, size_t run, const char *name, int64_t cg)
{
	uint64_t v = UINT64_MAX;

	if (mr_replay_counter(r, run, name, cg, &v))
		fprintf(stderr, "no counter %s for memcg %lld\n", name, (long long)cg);
	return v;
}

/* The summary's totals (filled by the machine, not looked up) are the named counters. */
static void check_summary(const struct mr_replay *r, size_t run)
{
	struct mr_replay_summary s;

	CHECK(mr_replay_summary(r, run, &s) == 0);
	CHECK_EQ_U64(s.pgfault, ctr(r, run, "pgfault"));
	CHECK_EQ_U64(s.pgmajfault, ctr(r, run, "pgmajfault"));
	CHECK_EQ_U64(s.misses, ctr(r, run, "mr_misses"));
	CHECK_EQ_U64(s.refaults, ctr(r, run, "workingset_refault_anon") +
				 ctr(r, run, "workingset_refault_file"));
	CHECK_EQ_U64(s.evictions, ctr(r, run, "mr_evictions"));
	CHECK_EQ_U64(s.pswpin, ctr(r, run, "pswpin"));
	CHECK_EQ_U64(s.pswpout, ctr(r, run, "pswpout"));
	CHECK_EQ_U64(s.oom, ctr(r, run, "mr_oom"));
	CHECK_EQ_U64(s.usage_max, ctr(r, run, "mr_usage_max"));
}

static void check_balance(const struct mr_replay *r, size_t run)
{
	/* every page brought in is still resident, was evicted, or was freed */
	CHECK_EQ_U64(ctr(r, run, "mr_misses"),
		     ctr(r, run, "mr_resident") + ctr(r, run, "mr_evictions") + ctr(r, run, "mr_freed"));
	CHECK_EQ_U64(ctr(r, run, "mr_resident"),
		     ctr(r, run, "mr_resident_anon") + ctr(r, run, "mr_resident_file"));
	CHECK_EQ_U64(ctr(r, run, "mr_check_problems"), 0);
	CHECK_EQ_U64(ctr(r, run, "mr_bad_events"), 0);
	CHECK_EQ_U64(ctr(r, run, "mr_swap_unwritten"), 0);
	check_summary(r, run);
}

#define T(i) ((uint64_t)(i) * 1000)
#define ANON_BASE 0x10000000ull /* vpage base 0x10000 */

/* ================= tests ================= */

/* Anon memory cycled through a small memcg: swap, accounting, shadows. */
static void test_anon_swap(void)
{
	const char *trace = path_in("anon.db");
	struct tb *b = tb_anon_process(trace, ANON_BASE, 64, T(1));
	struct run_opts ro = { .trace = trace, .pol = { "fifo:tag=0" }, .npol = 1, .memory = 16 };
	struct mr_error err = { 0 };
	struct mr_replay *r;
	uint64_t t = 2;

	for (int round = 0; round < 3; round++)
		for (uint32_t i = 0; i < 64; i++)
			tb_ev(b, T(t++), MR_EV_ACCESS, i, 1, MR_ACC_FLAGS(round ? MR_ACC_READ : MR_ACC_WRITE, 0), 0, 0);
	CHECK(tb_finish(b) == 0);

	r = replay(&ro, &err);
	CHECK(r != NULL);
	if (!r)
		return;
	check_balance(r, 0);
	CHECK(ctr(r, 0, "mr_usage_max") <= 16);
	CHECK_EQ_U64(ctr(r, 0, "mr_oom"), 0);
	CHECK_EQ_U64(ctr_cg(r, 0, "mr_usage_max", 1), ctr(r, 0, "mr_usage_max"));
	CHECK_EQ_U64(ctr_cg(r, 0, "mr_usage", 1), ctr(r, 0, "mr_resident"));
	CHECK_EQ_U64(ctr_cg(r, 0, "mr_limit", 1), 16);
	CHECK_EQ_U64(ctr(r, 0, "mr_first_touch"), 64);
	/* FIFO over a 64-page cycle with 16 pages: every later access misses */
	CHECK_EQ_U64(ctr(r, 0, "mr_misses"), 192);
	CHECK_EQ_U64(ctr(r, 0, "mr_refaults"), 128);
	CHECK_EQ_U64(ctr(r, 0, "pswpin"), 128);
	CHECK_EQ_U64(ctr(r, 0, "pgmajfault"), 128);
	CHECK(ctr(r, 0, "pgfault") >= 192);
	CHECK(ctr(r, 0, "pswpout") >= 64 - 16);
	CHECK_EQ_U64(ctr(r, 0, "workingset_refault_anon"), 0); /* fifo counts none itself */
	CHECK_EQ_U64(stats[0].refaults, 128);
	CHECK_EQ_U64(stats[0].bad_shadow, 0);
	CHECK_EQ_U64(stats[0].adds_swapin, 128);
	CHECK_EQ_U64(stats[0].adds_refault, 128);
	CHECK_EQ_U64(stats[0].adds_fault, 192);
	CHECK(stats[0].rotates > 0);
	CHECK(ctr(r, 0, "mr_swap_used") <= 64);
	CHECK_EQ_U64(ctr(r, 0, "pgfault"), ctr_cg(r, 0, "pgfault", 1));
	mr_replay_destroy(r);

	/* limited swap: 20 slots for 64 pages -> most pages cannot leave; OOM counted */
	ro.swap = 20;
	r = replay(&ro, &err);
	CHECK(r != NULL);
	if (r) {
		check_balance(r, 0);
		CHECK(ctr(r, 0, "mr_swap_max") <= 20);
		CHECK(ctr(r, 0, "mr_oom") > 0);
		CHECK(ctr(r, 0, "mr_usage_max") > 16);
		mr_replay_destroy(r);
	}
}

/* munmap frees anon (resident and swapped); exit of the last task frees the rest. */
static void test_unmap_exit(void)
{
	const char *trace = path_in("unmap.db");
	struct tb *b = tb_create(trace, 1);
	struct run_opts ro = { .trace = trace, .pol = { "fifo:tag=1" }, .npol = 1, .memory = 8 };
	struct mr_error err = { 0 };
	struct mr_replay *r;
	uint64_t t = 1;

	tb_cgroup(b, 1, "/test");
	tb_mm(b, 1);
	tb_mm(b, 2);
	tb_task(b, 1, 1, 1);
	tb_task(b, 2, 2, 1);
	tb_task(b, 3, 2, 1); /* a second thread of mm 2 */
	tb_vma(b, 1, 1, ANON_BASE, 20, MR_VMA_READ | MR_VMA_WRITE, 0, 0);
	tb_vma(b, 2, 2, ANON_BASE, 4, MR_VMA_READ | MR_VMA_WRITE, 0, 0);
	for (uint32_t i = 0; i < 20; i++)
		tb_page_anon(b, i, 1, (ANON_BASE >> 12) + i, 1, 0);
	for (uint32_t i = 0; i < 4; i++)
		tb_page_anon(b, 20 + i, 2, (ANON_BASE >> 12) + i, 1, 0);
	tb_ev(b, T(t++), MR_EV_MAP, MR_PAGE_NONE, 1, 0, 0, 1);
	tb_ev(b, T(t++), MR_EV_MAP, MR_PAGE_NONE, 2, 0, 0, 2);
	for (uint32_t i = 0; i < 4; i++)
		tb_ev(b, T(t++), MR_EV_ACCESS, 20 + i, 2, MR_ACC_WRITE, 0, 0);
	for (uint32_t i = 0; i < 20; i++)
		tb_ev(b, T(t++), MR_EV_ACCESS, i, 1, MR_ACC_WRITE, 0, 0);
	tb_ev(b, T(t++), MR_EV_UNMAP, MR_PAGE_NONE, 1, 0, 0, 1);
	tb_ev(b, T(t++), MR_EV_EXIT, MR_PAGE_NONE, 1, 0, 0, 0);
	tb_ev(b, T(t++), MR_EV_EXIT, MR_PAGE_NONE, 2, 0, 0, 0); /* mm 2 still has task 3 */
	CHECK(tb_finish(b) == 0);

	r = replay(&ro, &err);
	CHECK(r != NULL);
	if (!r)
		return;
	check_balance(r, 0);
	/* mm 1's 20 pages are gone, resident or swapped; mm 2's stay (task 3 lives) */
	CHECK_EQ_U64(ctr(r, 0, "mr_unmaps"), 1);
	CHECK_EQ_U64(ctr(r, 0, "mr_mm_exits"), 1);
	CHECK(ctr(r, 0, "mr_resident") + ctr(r, 0, "mr_swap_used") == 4);
	CHECK_EQ_U64(ctr_cg(r, 0, "mr_usage", 1), ctr(r, 0, "mr_resident"));
	CHECK(ctr(r, 0, "pswpout") > 0);
	mr_replay_destroy(r);

	/* now task 3 exits as well: mm 2 goes, nothing is left */
	b = tb_create(path_in("exit.db"), 1);
	t = 1;
	tb_cgroup(b, 1, "/test");
	tb_mm(b, 2);
	tb_task(b, 2, 2, 1);
	tb_task(b, 3, 2, 1);
	tb_vma(b, 2, 2, ANON_BASE, 4, MR_VMA_READ | MR_VMA_WRITE, 0, 0);
	for (uint32_t i = 0; i < 4; i++)
		tb_page_anon(b, i, 2, (ANON_BASE >> 12) + i, 1, 0);
	for (uint32_t i = 0; i < 4; i++)
		tb_ev(b, T(t++), MR_EV_ACCESS, i, 3, MR_ACC_WRITE, 0, 0); /* no MAP: lazily live */
	tb_ev(b, T(t++), MR_EV_EXIT, MR_PAGE_NONE, 2, 0, 0, 0);
	tb_ev(b, T(t++), MR_EV_EXIT, MR_PAGE_NONE, 3, 0, 0, 0);
	CHECK(tb_finish(b) == 0);
	ro.trace = path_in("exit.db");
	r = replay(&ro, &err);
	CHECK(r != NULL);
	if (!r)
		return;
	check_balance(r, 0);
	CHECK_EQ_U64(ctr(r, 0, "mr_resident"), 0);
	CHECK_EQ_U64(ctr(r, 0, "mr_freed"), 4);
	CHECK_EQ_U64(ctr(r, 0, "mr_mm_exits"), 1);
	CHECK_EQ_U64(ctr(r, 0, "pgfree"), 4);
	CHECK_EQ_U64(ctr_cg(r, 0, "mr_usage", 1), 0);
	mr_replay_destroy(r);
}

/* A file page mapped in two mms: rmap finds both PTEs, walk_mm sees both tables. */
static void test_shared_file(void)
{
	const char *trace = path_in("shared.db");
	struct tb *b = tb_create(trace, 1);
	struct run_opts ro = { .trace = trace, .pol = { "fifo:tag=2" }, .npol = 1, .memory = 64,
			       .script = "@1 + 9 9 9\n" };
	struct mr_error err = { 0 };
	struct mr_replay *r;
	uint64_t t = 1;
	const uint64_t base1 = 0x400000, base2 = 0x7f0000200000ull;

	tb_cgroup(b, 1, "/test");
	tb_mm(b, 1);
	tb_mm(b, 2);
	tb_task(b, 1, 1, 1);
	tb_task(b, 2, 2, 1);
	tb_file(b, 1, 8);
	tb_vma(b, 1, 1, base1, 8, MR_VMA_READ | MR_VMA_EXEC | MR_VMA_FILE, 1, 0);
	tb_vma(b, 2, 2, base2, 8, MR_VMA_READ | MR_VMA_EXEC | MR_VMA_FILE, 1, 0);
	for (uint32_t i = 0; i < 8; i++)
		tb_page_file(b, i, 1, i, 1, 1);
	tb_ev(b, T(t++), MR_EV_MAP, MR_PAGE_NONE, 1, 0, 0, 1);
	tb_ev(b, T(t++), MR_EV_MAP, MR_PAGE_NONE, 2, 0, 0, 2);
	for (uint32_t i = 0; i < 4; i++)
		tb_ev(b, T(t++), MR_EV_ACCESS, i, 1, MR_ACC_EXEC, 0, 0);
	for (uint32_t i = 0; i < 4; i++)
		tb_ev(b, T(t++), MR_EV_ACCESS, i, 2, MR_ACC_EXEC, 0, 0);
	tb_marker(b, 1, T(t++));
	for (uint32_t i = 4; i < 8; i++)
		tb_ev(b, T(t++), MR_EV_ACCESS, i, 1, MR_ACC_EXEC, 0, 0);
	/* unmapping mm 1's text: young PTEs of a file page -> folio_mark_accessed */
	tb_ev(b, T(t++), MR_EV_UNMAP, MR_PAGE_NONE, 1, 0, 0, 1);
	CHECK(tb_finish(b) == 0);

	r = replay(&ro, &err);
	CHECK(r != NULL);
	if (!r)
		return;
	check_balance(r, 0);
	/* 8 faults in mm 1; in mm 2 the first (page 0, resident: minor) maps 1-3 around it */
	CHECK_EQ_U64(ctr(r, 0, "pgfault"), 9);
	CHECK_EQ_U64(ctr(r, 0, "mr_fault_around"), 3);
	CHECK_EQ_U64(ctr(r, 0, "pgmajfault"), 8);
	CHECK_EQ_U64(ctr(r, 0, "mr_resident_file"), 8);
	CHECK_EQ_U64(stats[2].walk_calls, 2);
	CHECK_EQ_U64(stats[2].walk_young, 8);
	CHECK_EQ_U64(stats[2].walk_tables, 2);
	CHECK_EQ_U64(stats[2].walk_puds, 2);
	CHECK_EQ_U64(stats[2].walk_vmas, 2);
	CHECK_EQ_U64(stats[2].marks, 8); /* zap of 8 young file PTEs */
	CHECK_EQ_U64(stats[2].adds_fault, 8);
	mr_replay_destroy(r);

	/* under pressure the shrinker's rmap sees both mappings */
	ro.memory = 4;
	ro.script = NULL;
	ro.pol[0] = "fifo:tag=3";
	r = replay(&ro, &err);
	CHECK(r != NULL);
	if (!r)
		return;
	check_balance(r, 0);
	CHECK_EQ_U64(stats[3].max_rmap, 2);
	CHECK(ctr(r, 0, "mr_evict_file") > 0);
	mr_replay_destroy(r);
}

/*
 * Fault-around (do_fault_around(), mm/memory.c): a read fault on a file mapping maps the
 * resident, unmapped pages of a 16-page window, aligned, or starting at the VMA's start
 * when the aligned one would begin before it, and ending at the VMA's end; a write fault
 * maps none. The VMA starts 4 pages into its page table (the table's slot of file page
 * i is 4 + i).
 */
static void test_fault_around(void)
{
	const char *trace = path_in("around.db");
	struct tb *b = tb_create(trace, 1);
	struct run_opts ro = { .trace = trace, .pol = { "fifo:tag=4" }, .npol = 1, .memory = 64 };
	struct mr_error err = { 0 };
	struct mr_replay *r;
	uint64_t t = 1;
	const uint64_t base = 0x20000000ull + 4 * 4096;

	tb_cgroup(b, 1, "/test");
	tb_mm(b, 1);
	tb_task(b, 1, 1, 1);
	tb_file(b, 1, 40);
	tb_vma(b, 1, 1, base, 40, MR_VMA_READ | MR_VMA_FILE, 1, 0);
	for (uint32_t i = 0; i < 40; i++)
		tb_page_file(b, i, 1, i, 1, 0);
	tb_ev(b, T(t++), MR_EV_MAP, MR_PAGE_NONE, 1, 0, 0, 1);
	tb_ev(b, T(t++), MR_EV_READAHEAD, 0, 1, 0, 35, 0);
	tb_ev(b, T(t++), MR_EV_READAHEAD, 36, 1, 0, 4, 0);
	tb_ev(b, T(t++), MR_EV_ACCESS, 5, 1, MR_ACC_READ, 0, 0);
	for (uint32_t i = 0; i < 12; i++)	/* mapped by the fault: no fault */
		tb_ev(b, T(t++), MR_EV_ACCESS, i, 1, MR_ACC_READ, 0, 0);
	tb_ev(b, T(t++), MR_EV_ACCESS, 20, 1, MR_ACC_WRITE, 0, 0);
	tb_ev(b, T(t++), MR_EV_ACCESS, 21, 1, MR_ACC_READ, 0, 0); /* in 20's window */
	tb_ev(b, T(t++), MR_EV_ACCESS, 30, 1, MR_ACC_READ, 0, 0);
	/* a file whose trace pages are sparse in it (indices 0, 100, ..., 1500 and 501-503:
	 * searched, not mapped directly): 501's window is [496, 512), pages 500, 502, 503 */
	tb_file(b, 2, 2048);
	tb_vma(b, 2, 1, 0x40000000ull, 2048, MR_VMA_READ | MR_VMA_FILE, 2, 0);
	for (uint32_t i = 0; i < 4; i++)
		tb_page_file(b, 40 + i, 2, 500 + i, 1, 0);
	for (uint32_t i = 0, id = 44; i < 16; i++)
		if (i != 5)
			tb_page_file(b, id++, 2, 100 * i, 1, 0);
	tb_ev(b, T(t++), MR_EV_MAP, MR_PAGE_NONE, 1, 0, 0, 2);
	tb_ev(b, T(t++), MR_EV_READAHEAD, 40, 1, 0, 4, 0);
	tb_ev(b, T(t++), MR_EV_ACCESS, 41, 1, MR_ACC_READ, 0, 0);
	/* a fault's own in-fault inserts named before it (traces without
	 * pagecache.inserts_held, as this one): locked and not uptodate when the kernel
	 * maps around, so none of pages 60-66 is mapped with 59 */
	tb_file(b, 3, 8);
	tb_vma(b, 3, 1, 0x60000000ull, 8, MR_VMA_READ | MR_VMA_FILE, 3, 0);
	for (uint32_t i = 0; i < 8; i++)
		tb_page_file(b, 59 + i, 3, i, 1, 0);
	tb_ev(b, T(t++), MR_EV_MAP, MR_PAGE_NONE, 1, 0, 0, 3);
	tb_ev(b, T(t++), MR_EV_PC_INSERT, 59, 1, MR_PC_IN_FAULT, 0, 0);
	for (uint32_t i = 1; i < 8; i++)
		tb_ev(b, T(t), MR_EV_PC_INSERT, 59 + i, 1, MR_PC_IN_FAULT, 0, 0);
	tb_ev(b, T(t++), MR_EV_ACCESS, 59, 1, MR_ACC_READ, 0, 0);
	CHECK(tb_finish(b) == 0);

	r = replay(&ro, &err);
	CHECK(r != NULL);
	if (!r)
		return;
	check_balance(r, 0);
	/* page 5 (slot 9): slots [4, 20), pages 0-15 but 5; the write to 20 maps none;
	 * 21 (slot 25): [16, 32), pages 12-27 but 12-15, 20, 21; 30 (slot 34): [32, 44)
	 * clamped by the VMA's end, pages 28-39 but 30 and 35 (not in the page cache) */
	CHECK_EQ_U64(ctr(r, 0, "mr_fault_around"), 15 + 10 + 10 + 3);
	CHECK_EQ_U64(ctr(r, 0, "pgfault"), 6);
	CHECK_EQ_U64(ctr(r, 0, "pgmajfault"), 1); /* 59: its own I/O */
	mr_replay_destroy(r);
}

/* File pages: readahead, fd reads, refaults through shadows, dirty writeback. */
static void test_file_cache(void)
{
	const char *trace = path_in("file.db");
	struct tb *b = tb_create(trace, 1);
	struct run_opts ro = { .trace = trace, .pol = { "fifo:tag=4" }, .npol = 1, .memory = 8 };
	struct mr_error err = { 0 };
	struct mr_replay *r;
	uint64_t t = 1;

	tb_cgroup(b, 1, "/test");
	tb_mm(b, 1);
	tb_task(b, 1, 1, 1);
	tb_file(b, 1, 32);
	for (uint32_t i = 0; i < 32; i++)
		tb_page_file(b, i, 1, i, 1, 0);
	/* readahead of 8 pages, read them, then read the rest twice */
	tb_ev(b, T(t++), MR_EV_READAHEAD, 0, 1, 0, 8, 2);
	tb_ev(b, T(t++), MR_EV_FD_ACCESS, 0, 1, MR_ACC_READ, 8, 0);
	for (int round = 0; round < 2; round++)
		for (uint32_t i = 0; i < 32; i++)
			tb_ev(b, T(t++), MR_EV_FD_ACCESS, i, 1, round ? MR_ACC_WRITE : MR_ACC_READ, 1, 0);
	CHECK(tb_finish(b) == 0);

	r = replay(&ro, &err);
	CHECK(r != NULL);
	if (!r)
		return;
	check_balance(r, 0);
	CHECK_EQ_U64(ctr(r, 0, "mr_readahead_pages"), 8);
	CHECK_EQ_U64(stats[4].adds_ra, 8);
	CHECK_EQ_U64(stats[4].adds_fault, 0);
	CHECK_EQ_U64(ctr(r, 0, "mr_fd_access_pages"), 8 + 64);
	CHECK_EQ_U64(stats[4].marks, 8 + 64);
	CHECK_EQ_U64(ctr(r, 0, "pgfault"), 0);
	CHECK(ctr(r, 0, "mr_usage_max") <= 8);
	CHECK_EQ_U64(stats[4].refaults, ctr(r, 0, "mr_refaults"));
	CHECK(stats[4].refaults > 0);
	CHECK_EQ_U64(stats[4].bad_shadow, 0);
	CHECK(ctr(r, 0, "mr_writebacks") > 0); /* written pages went dirty */
	mr_replay_destroy(r);
}

/* Next-use positions against a brute-force answer. */
/* Is every value handed to the access hook the true one (refs from the trace): one call
 * per reference, with the position of the page's next reference, a use or an insertion
 * (nextuse.c)? refuse is kept for the trace's shape; both kinds count alike. */
static int nextuse_exact(const uint32_t *refp, const uint8_t *refuse, size_t nref)
{
	size_t k = 0;
	int bad = 0;

	(void)refuse;
	for (size_t i = 0; i < nref; i++) {
		uint64_t want = UINT64_MAX;

		for (size_t j = i + 1; j < nref; j++) {
			if (refp[j] == refp[i]) {
				want = j;
				break;
			}
		}
		if (k >= stats[5].nacc || stats[5].acc_page[k] != refp[i] ||
		    stats[5].acc_nu[k] != want) {
			if (!bad)
				fprintf(stderr, "next-use mismatch at call %zu (ref %zu page %u): got page %u nu %llu, want %llu\n",
					k, i, refp[i], k < stats[5].nacc ? stats[5].acc_page[k] : 0,
					k < stats[5].nacc ? (unsigned long long)stats[5].acc_nu[k] : 0ull,
					(unsigned long long)want);
			bad = 1;
		}
		k++;
	}
	return !bad && stats[5].nacc == k;
}

/* Flip one byte of a file at off. */
static void flip_byte(const char *path, long off)
{
	FILE *f = fopen(path, "r+b");
	int c;

	CHECK(f != NULL);
	if (!f)
		return;
	fseek(f, off, SEEK_SET);
	c = fgetc(f);
	fseek(f, off, SEEK_SET);
	fputc(c ^ 0x40, f);
	fclose(f);
}

/* The one cache file in dir (its path into buf), or NULL. */
static const char *cache_file(const char *dir, char *buf, size_t cap)
{
	char cmd[1200];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls %s/nextuse-*.mrnu 2>/dev/null", dir);
	p = popen(cmd, "r");
	if (!p)
		return NULL;
	if (!fgets(buf, (int)cap, p))
		*buf = 0;
	pclose(p);
	buf[strcspn(buf, "\n")] = 0;
	return *buf ? buf : NULL;
}

/* One task (cgroup 1, mm 1) with an anon VMA of n pages at ANON_BASE (pages 0..n-1) and
 * a file of n pages (pages n..2n-1). */
static void one_task_anon_file(struct tb *b, uint32_t n)
{
	tb_cgroup(b, 1, "/test");
	tb_mm(b, 1);
	tb_task(b, 1, 1, 1);
	tb_file(b, 1, n);
	tb_vma(b, 1, 1, ANON_BASE, n, MR_VMA_READ | MR_VMA_WRITE, 0, 0);
	for (uint32_t i = 0; i < n; i++)
		tb_page_anon(b, i, 1, (ANON_BASE >> 12) + i, 1, 0);
	for (uint32_t i = 0; i < n; i++)
		tb_page_file(b, n + i, 1, i, 1, 0);
}

/* A trace of ACCESS, FD_ACCESS and READAHEAD events from seed; its reference list
 * (page, is it a use) into refp/refuse. */
static void write_nu_trace(const char *path, uint64_t seed, uint32_t *refp, uint8_t *refuse,
			   size_t *nref_out)
{
	struct tb *b = tb_create(path, 1);
	uint64_t st = seed, t = 1;
	size_t nref = 0, ev = 0;

	one_task_anon_file(b, 16);
	while (nref < 560 && ev < 400) {
		unsigned k = (unsigned)(mr_test_rand(&st) % 3);

		ev++;
		if (k == 0) {
			uint32_t p = (uint32_t)(mr_test_rand(&st) % 16);

			tb_ev(b, T(t++), MR_EV_ACCESS, p, 1, MR_ACC_READ, 0, 0);
			refp[nref] = p;
			refuse[nref++] = 1;
		} else {
			uint32_t p = 16 + (uint32_t)(mr_test_rand(&st) % 14), n = 1 + (uint32_t)(mr_test_rand(&st) % 2);

			tb_ev(b, T(t++), k == 1 ? MR_EV_FD_ACCESS : MR_EV_READAHEAD, p, 1, MR_ACC_READ, n, 0);
			for (uint32_t j = 0; j < n; j++) {
				refp[nref] = p + j;
				refuse[nref++] = k == 1;
			}
		}
	}
	CHECK(tb_finish(b) == 0);
	*nref_out = nref;
}

/*
 * Next-use values are exact: in one block and in many (tiny blocks), computed or taken
 * from the cache; a damaged or foreign cache file is rebuilt, never used; two traces
 * keep two files.
 */
static void test_nextuse(void)
{
	const char *trace = path_in("nu.db"), *trace2 = path_in("nu2.db");
	const char *cache = path_in("nucache");
	struct mr_error err = { 0 };
	uint64_t seed = mr_test_seed();
	uint32_t refp[600], refp2[600];
	uint8_t refuse[600], refuse2[600];
	size_t nref = 0, nref2 = 0;
	char path[1200];
	struct {
		int trace2;
		uint32_t block;
		const char *cache;
		const char *note; /* expected in mr_replay_nextuse_note() */
		int damage;       /* before the run: 1 = flip a value byte, 2 = truncate */
	} runs[] = {
		{ 0, 0, NULL, "computed in", 0 },
		{ 0, 7, NULL, "computed in", 0 },
		{ 0, 7, cache, "kept in", 0 },
		{ 0, 7, cache, "reused from", 0 },
		{ 0, 7, cache, "another build's or damaged", 1 },
		{ 0, 7, cache, "reused from", 0 },
		{ 0, 7, cache, "another build's or damaged", 2 },
		{ 0, 64, cache, "another build's or damaged", 0 }, /* another block size */
		{ 0, 64, path_in("nu.db"), "not kept", 0 },        /* a file, not a directory */
		{ 1, 64, cache, "kept in", 0 },
		{ 1, 64, cache, "reused from", 0 },
		{ 0, 64, cache, "reused from", 0 },
	};

	write_nu_trace(trace, seed, refp, refuse, &nref);
	write_nu_trace(trace2, seed + 1, refp2, refuse2, &nref2);
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		const char *pol[1] = { "fifonu:tag=5" };
		struct mr_replay_opts o = {
			.trace = runs[i].trace2 ? trace2 : trace, .policies = pol, .npolicies = 1,
			.memory_pages = 1000, .tmpdir = mr_test_tmpdir(), .check = 1,
			.nextuse_cache = runs[i].cache,
		};
		const char *note;
		struct mr_replay *r = NULL;

		if (runs[i].damage && cache_file(cache, path, sizeof(path))) {
			if (runs[i].damage == 1)
				flip_byte(path, 128 + 4 * 300); /* a value in block 300 / 7 */
			else
				CHECK(truncate(path, 200) == 0);
		}
		rp_nextuse_set_block(runs[i].block);
		CHECK(mr_replay_create(&o, &r, &err) == 0 && mr_replay_run(r, &err) == 0);
		rp_nextuse_set_block(0);
		if (!r)
			continue;
		if (runs[i].trace2)
			CHECK(nextuse_exact(refp2, refuse2, nref2));
		else
			CHECK(nextuse_exact(refp, refuse, nref));
		note = mr_replay_nextuse_note(r);
		CHECK(note && strstr(note, runs[i].note));
		if (note && !strstr(note, runs[i].note))
			fprintf(stderr, "  nextuse run %zu: %s\n", i, note);
		mr_replay_destroy(r);
	}
	/* both traces' files are kept side by side, under their own names */
	{
		char cmd[1200];
		FILE *p;
		int n = 0;

		snprintf(cmd, sizeof(cmd), "ls %s | grep -c '^nextuse-[0-9a-f]*\\.mrnu$'", cache);
		p = popen(cmd, "r");
		if (p) {
			if (fscanf(p, "%d", &n) != 1)
				n = 0;
			pclose(p);
		}
		CHECK_EQ_U64(n, 2);
	}
}

/*
 * Host ground truth: FAULT, the kernel's refault/restore/activate labels (anon without
 * FILE, file with it) and key-matched refaults and host activations are counted apart,
 * each under its own name, and do not drive the replay.
 */
static void test_host_counters(void)
{
	const char *trace = path_in("host.db");
	struct tb *b = tb_create(trace, 1);
	struct run_opts ro = { .trace = trace, .pol = { "fifo:tag=6" }, .npol = 1, .memory = 64 };
	struct mr_error err = { 0 };
	struct mr_replay *r;
	const unsigned k = MR_REFAULT_KERNEL;

	one_task_anon_file(b, 4);
	tb_ev(b, T(1), MR_EV_MAP, MR_PAGE_NONE, 1, 0, 0, 1);
	/* a swap-in: the major fault, its anon label, its activation */
	tb_ev(b, T(2), MR_EV_FAULT, 0, 1, MR_FAULT_MAJOR, 0, ANON_BASE);
	tb_ev(b, T(2), MR_EV_REFAULT, 0, 1, k, 0, 0);
	tb_ev(b, T(2), MR_EV_ACTIVATE, 0, 1, k, 0, 0);
	tb_ev(b, T(2), MR_EV_ACCESS, 0, 1, MR_ACC_FLAGS(MR_ACC_READ, MR_SRC_FAULT), 0, 0);
	/* a page-cache refault, restored and activated, and its key match */
	tb_ev(b, T(3), MR_EV_PC_INSERT, 5, 1, 0, 0, 0);
	tb_ev(b, T(3), MR_EV_REFAULT, 5, 1, k | MR_REFAULT_FILE | MR_REFAULT_WORKINGSET, 0, 0);
	tb_ev(b, T(3), MR_EV_ACTIVATE, 5, 1, k, 0, 0);
	tb_ev(b, T(3), MR_EV_REFAULT, 5, 1, MR_REFAULT_FILE, 0, 0);
	/* an anon restore, and a host LRU activation */
	tb_ev(b, T(4), MR_EV_FAULT, 1, 1, MR_FAULT_MAJOR, 0, ANON_BASE + 4096);
	tb_ev(b, T(4), MR_EV_REFAULT, 1, 1, k | MR_REFAULT_WORKINGSET, 0, 0);
	tb_ev(b, T(4), MR_EV_ACTIVATE, 6, 1, 0, 0, 0);
	CHECK(tb_finish(b) == 0);

	r = replay(&ro, &err);
	CHECK(r != NULL);
	if (!r)
		return;
	CHECK_EQ_U64(ctr(r, 0, "host_pgfault"), 2);
	CHECK_EQ_U64(ctr(r, 0, "host_pgmajfault"), 2);
	CHECK_EQ_U64(ctr(r, 0, "host_workingset_refault"), 3);
	CHECK_EQ_U64(ctr(r, 0, "host_workingset_refault_anon"), 2);
	CHECK_EQ_U64(ctr(r, 0, "host_workingset_refault_file"), 1);
	CHECK_EQ_U64(ctr(r, 0, "host_workingset_restore"), 2);
	CHECK_EQ_U64(ctr(r, 0, "host_workingset_restore_anon"), 1);
	CHECK_EQ_U64(ctr(r, 0, "host_workingset_restore_file"), 1);
	CHECK_EQ_U64(ctr(r, 0, "host_workingset_activate"), 2);
	CHECK_EQ_U64(ctr(r, 0, "host_workingset_activate_anon"), 1);
	CHECK_EQ_U64(ctr(r, 0, "host_workingset_activate_file"), 1);
	CHECK_EQ_U64(ctr(r, 0, "host_refault"), 1);
	CHECK_EQ_U64(ctr(r, 0, "host_refault_file"), 1);
	CHECK_EQ_U64(ctr(r, 0, "host_pgactivate"), 1);
	/* the replay itself saw one access and no refault */
	CHECK_EQ_U64(ctr(r, 0, "workingset_refault_anon"), 0);
	CHECK_EQ_U64(ctr(r, 0, "pgfault"), 1);
	mr_replay_destroy(r);
}

/* Script commands at times and markers reach the policy in order, errors are logged. */
static void test_script(void)
{
	const char *trace = path_in("script.db");
	const char *out = path_in("script-results.db");
	struct tb *b = tb_create(trace, 1);
	struct run_opts ro = { .trace = trace, .pol = { "fifo:tag=6" }, .npol = 1, .memory = 64,
			       .script = "# aging by hand\n"
					 "5500 + 0 0 5\n"
					 "@7 - 0 0 1 60 32; + 0 0 6\n"
					 "2us + 0 0 4 max 1\n"
					 "9s - 1 1 1\n",
			       .out = out };
	struct mr_error err = { 0 };
	struct mr_replay *r;

	tb_cgroup(b, 1, "/test");
	tb_mm(b, 1);
	tb_task(b, 1, 1, 1);
	tb_vma(b, 1, 1, ANON_BASE, 4, MR_VMA_READ | MR_VMA_WRITE, 0, 0);
	for (uint32_t i = 0; i < 4; i++)
		tb_page_anon(b, i, 1, (ANON_BASE >> 12) + i, 1, 0);
	for (uint32_t i = 0; i < 4; i++)
		tb_ev(b, T(1 + i), MR_EV_ACCESS, i, 1, MR_ACC_WRITE, 0, 0);
	tb_marker(b, 7, T(6));
	tb_ev(b, T(8), MR_EV_ACCESS, 0, 1, MR_ACC_READ, 0, 0);
	CHECK(tb_finish(b) == 0);

	r = replay(&ro, &err);
	CHECK(r != NULL);
	if (!r)
		return;
	CHECK_EQ_U64(stats[6].cmds, 5);
	CHECK(!strcmp(stats[6].cmd_text[0], "+ 0 0 4 max 1"));
	CHECK_EQ_U64(stats[6].cmd_t[0], 2000);
	CHECK(!strcmp(stats[6].cmd_text[1], "+ 0 0 5"));
	CHECK_EQ_U64(stats[6].cmd_t[1], 5500);
	CHECK(!strcmp(stats[6].cmd_text[2], "- 0 0 1 60 32"));
	CHECK_EQ_U64(stats[6].cmd_t[2], 6000);
	CHECK(!strcmp(stats[6].cmd_text[3], "+ 0 0 6"));
	CHECK(!strcmp(stats[6].cmd_text[4], "- 1 1 1"));
	CHECK_EQ_U64(stats[6].cmd_t[4], 9000000000ull); /* after the last event, at its time */
	CHECK_EQ_U64(ctr(r, 0, "mr_script_errors"), 1);
	CHECK_EQ_U64(sql_int(out, "SELECT count(*) FROM script_log"), 5);
	CHECK_EQ_U64(sql_int(out, "SELECT count(*) FROM script_log WHERE rc <> 0 AND message LIKE '%min_gen 1%'"), 1);
	CHECK_EQ_U64(sql_int(out, "SELECT count(*) FROM lru_gen WHERE why = 'script'"), 5);
	CHECK_EQ_U64(sql_int(out, "SELECT count(*) FROM lru_gen WHERE why = 'end'"), 2);
	CHECK_EQ_U64(sql_int(out, "SELECT count(*) FROM lru_gen WHERE why = 'end' AND full = 1 AND text LIKE 'fifo full%'"), 1);
	mr_replay_destroy(r);

	/* bad scripts fail at parse time, naming the line */
	{
		struct mr_replay_opts o = { .trace = trace, .policies = ro.pol, .npolicies = 1,
					    .memory_pages = 64, .script_text = "100 + 0 x 1\n" };
		struct mr_replay *rr = NULL;

		memset(&err, 0, sizeof(err));
		CHECK(mr_replay_create(&o, &rr, &err) == MR_EINVAL);
		CHECK(strstr(err.msg, ":1:") && strstr(err.msg, "'x'"));
		o.script_text = "soon + 0 0 1\n";
		CHECK(mr_replay_create(&o, &rr, &err) == MR_EINVAL);
		CHECK(strstr(err.msg, "not a time") != NULL);
		o.script_text = "1 flush\n";
		CHECK(mr_replay_create(&o, &rr, &err) == MR_EINVAL);
		CHECK(strstr(err.msg, "lru_gen command") != NULL);
	}
}

/* Two memcgs with their own limit and a parent limit; two NUMA nodes. */
static void test_memcgs_nodes(void)
{
	const char *trace = path_in("memcg.db");
	struct tb *b = tb_create(trace, 2);
	struct mr_replay_limit lim[1] = { { .cgroup = 2, .pages = 8 } };
	struct run_opts ro = { .trace = trace, .pol = { "fifo:tag=7" }, .npol = 1, .memory = 24,
			       .limits = lim, .nlimits = 1 };
	struct mr_error err = { 0 };
	struct mr_replay *r;
	uint64_t t = 1;

	tb_cgroup(b, 1, "/a");
	tb_cgroup(b, 2, "/b");
	tb_mm(b, 1);
	tb_mm(b, 2);
	tb_task(b, 1, 1, 1);
	tb_task(b, 2, 2, 2);
	tb_vma(b, 1, 1, ANON_BASE, 40, MR_VMA_READ | MR_VMA_WRITE, 0, 0);
	/* mm 2 has no vmas row: its VMA is derived */
	for (uint32_t i = 0; i < 40; i++)
		tb_page_anon(b, i, 1, (ANON_BASE >> 12) + i, 1, (int)(i & 1));
	for (uint32_t i = 0; i < 40; i++)
		tb_page_anon(b, 40 + i, 2, (ANON_BASE >> 12) + i, 2, 0);
	for (int round = 0; round < 2; round++)
		for (uint32_t i = 0; i < 40; i++) {
			tb_ev(b, T(t++), MR_EV_ACCESS, i, 1, MR_ACC_WRITE, 0, 0);
			tb_ev(b, T(t++), MR_EV_ACCESS, 40 + i, 2, MR_ACC_WRITE, 0, 0);
		}
	CHECK(tb_finish(b) == 0);

	r = replay(&ro, &err);
	CHECK(r != NULL);
	if (!r)
		return;
	check_balance(r, 0);
	CHECK(ctr_cg(r, 0, "mr_usage_max", 2) <= 8);
	CHECK(ctr(r, 0, "mr_usage_max") <= 24);
	CHECK_EQ_U64(ctr(r, 0, "mr_oom"), 0);
	CHECK_EQ_U64(ctr_cg(r, 0, "mr_usage", 1) + ctr_cg(r, 0, "mr_usage", 2), ctr(r, 0, "mr_resident"));
	CHECK_EQ_U64(stats[7].nodes_seen, 3); /* both nodes shrunk */
	CHECK_EQ_U64(ctr(r, 0, "mr_access_unmapped"), 0);
	CHECK_EQ_U64(ctr_cg(r, 0, "pgfault", 1) + ctr_cg(r, 0, "pgfault", 2), ctr(r, 0, "pgfault"));
	mr_replay_destroy(r);

	/* an unknown cgroup in --memory is refused with the list */
	{
		struct mr_replay_limit bad[1] = { { .cgroup = 9, .pages = 8 } };

		ro.limits = bad;
		CHECK(replay(&ro, &err) == NULL);
		CHECK(strstr(err.msg, "cgroup 9") && strstr(err.msg, "1 (/a)"));
	}
}

/* Determinism: same trace, same results bytes; any thread count. */
static void test_determinism(void)
{
	const struct mr_gen *g = mr_gen_find("zipf");
	struct mr_gen_values v;
	const char *trace = path_in("zipf.db");
	const char *outs[4] = { path_in("d0.db"), path_in("d1.db"), path_in("d2.db"), path_in("d3.db") };
	int threads[4] = { 0, 0, 1, 2 };
	struct mr_error err = { 0 };

	CHECK(g != NULL);
	if (!g)
		return;
	CHECK(mr_gen_defaults(g, &v, &err) == 0);
	CHECK(mr_gen_set(g, &v, "pages", "4096", &err) == 0);
	CHECK(mr_gen_set(g, &v, "events", "200000", &err) == 0);
	v.seed = 7;
	CHECK(mr_gen_write(g, &v, trace, NULL, &err) == 0);
	for (int i = 0; i < 4; i++) {
		struct run_opts ro = { .trace = trace,
				       .pol = { "fifo:tag=0", "fifonu:tag=1", "fifo:tag=2" },
				       .npol = 3, .memory = 1024, .threads = threads[i], .out = outs[i] };
		struct mr_replay *r = replay(&ro, &err);

		CHECK(r != NULL);
		if (r) {
			check_balance(r, 0);
			CHECK(ctr(r, 0, "mr_evictions") > 0);
			CHECK(ctr(r, 0, "mr_usage_max") <= 1024);
		}
		mr_replay_destroy(r);
	}
	CHECK(same_file(outs[0], outs[1]));
	CHECK(same_file(outs[0], outs[2]));
	CHECK(same_file(outs[0], outs[3]));

	/* the documented schema */
	CHECK_EQ_U64(sql_int(outs[0], "PRAGMA application_id"), MR_RESULTS_APP_ID);
	CHECK_EQ_U64(sql_int(outs[0], "PRAGMA user_version"), MR_RESULTS_VERSION);
	CHECK_EQ_U64(sql_int(outs[0], "SELECT count(*) FROM runs"), 3);
	CHECK_EQ_U64(sql_int(outs[0], "SELECT count(*) FROM runs WHERE spec='fifo:tag=2' AND params='tag=2'"
				      " AND trace_id LIKE 'sha256:%' AND memory_pages=1024 AND events=trace_events"), 1);
	CHECK_EQ_U64(sql_int(outs[0], "SELECT count(DISTINCT name) FROM counters WHERE memcg IS NULL"
				      " AND name IN ('pgfault','workingset_refault_file','pswpout','mr_evictions')"), 4);
	CHECK_EQ_U64(sql_int(outs[0], "SELECT count(*) FROM memory_stat WHERE run=1 AND name='pgfault'"), 1);
	CHECK_EQ_U64(sql_int(outs[0], "SELECT value FROM vmstat WHERE run=1 AND name='mr_events'"),
		     sql_int(outs[0], "SELECT trace_events FROM runs WHERE id=1"));
	CHECK(sql_int(outs[0], "SELECT count(DISTINCT t_ns) FROM timeseries WHERE run=1") >= 100);
	CHECK_EQ_U64(sql_int(outs[0], "SELECT max(value) FROM timeseries WHERE run=2 AND name='mr_evictions'"),
		     sql_int(outs[0], "SELECT value FROM vmstat WHERE run=2 AND name='mr_evictions'"));
	CHECK_EQ_U64(sql_int(outs[0], "SELECT count(*) FROM model_counters WHERE name='fifo_adds'"), 3);
	CHECK_EQ_U64(sql_int(outs[0], "SELECT count(*) FROM timing"), 0);
	CHECK_EQ_U64(sql_int(outs[0], "SELECT count(*) FROM memcgs"), 3);

	/* compare: first run as baseline, identical FIFOs give zero deltas */
	{
		struct mr_results *res = NULL;
		struct mr_compare *c = NULL;
		const char *names[2] = { "mr_evictions", "pgfault" };
		struct mr_compare_opts co = { .baseline = "fifo:tag=2", .counters = names, .ncounters = 2 };
		double a, p;

		CHECK(mr_results_open(outs[0], &res, &err) == 0);
		CHECK(mr_results_compare(res, &co, &c, &err) == 0);
		if (c) {
			CHECK_EQ_U64(c->nruns, 3);
			CHECK_EQ_U64(c->baseline, 2);
			CHECK_EQ_U64(c->nrows, 2);
			CHECK(mr_compare_delta(c, 0, 0, &a, &p) == 0 && a == 0 && p == 0);
			CHECK(c->rows[0].value[1] == c->rows[0].value[0]);
		}
		mr_compare_free(c);
		co.baseline = "nosuch";
		CHECK(mr_results_compare(res, &co, &c, &err) == MR_ENOENT);
		CHECK(strstr(err.msg, "(runs: 1=fifo, 2=fifonu:tag=1, 3=fifo:tag=2)") != NULL); /* as the run list shows them */
		co.baseline = NULL;
		names[1] = "no_such_counter";
		CHECK(mr_results_compare(res, &co, &c, &err) == MR_ENOENT);
		mr_results_close(res);
	}
	/* results never overwrite a trace */
	{
		struct run_opts ro = { .trace = trace, .pol = { "fifo:tag=0" }, .npol = 1,
				       .memory = 1024, .out = trace };

		CHECK(replay(&ro, &err) == NULL);
		CHECK(strstr(err.msg, "not a memreplay results database") != NULL);
		CHECK(mr_results_open(trace, &(struct mr_results *){ NULL }, &err) == MR_ENOTSTORE);
	}
}

/*
 * The results database from plain run results, no engine: what any producer (a test, an
 * importer) hands mr_results_write() is what the tables and compare give back.
 */
static void test_results_plain(void)
{
	const char *path = path_in("plain-results.db");
	const struct mr_result_counter c1[] = { { "pgfault", -1, 100 }, { "pgfault", 7, 60 },
						{ "mr_evictions", -1, 40 } };
	const struct mr_result_counter c2[] = { { "pgfault", -1, 150 }, { "pgfault", 7, 90 },
						{ "mr_evictions", -1, 10 } };
	const struct mr_result_model_counter m1[] = { { "aging_cost", 2.5 }, { "nan", NAN } };
	const struct mr_results_memcg cg[] = { { 7, "/a", 256 } };
	const char *const notes[] = { NULL, "a note" };
	const struct mr_run_result runs[2] = {
		{ .spec = "x:k=1", .name = "x", .events = 5, .counters = c1, .ncounters = 3,
		  .model = m1, .nmodel = 2 },
		{ .spec = "y", .name = "y", .events = 5, .counters = c2, .ncounters = 3 },
	};
	const struct mr_results_setup setup = {
		.trace_path = "t.db", .trace_id = "id", .trace_events = 5, .trace_t_last = 9,
		.nodes = 1, .memcgs = cg, .nr_memcgs = 1, .memory_pages = 512,
		.interval_ns = 1, .notes = notes, .note_kind = "k",
	};
	const char *names[1] = { "pgfault" };
	struct mr_compare_opts co = { .baseline = "y", .counters = names, .ncounters = 1 };
	struct mr_error err = { 0 };
	struct mr_results *res = NULL;
	struct mr_compare *c = NULL;
	double a = 0, p = 0;

	CHECK(mr_results_write(path, &setup, runs, 2, &err) == 0);
	CHECK(mr_results_open(path, &res, &err) == 0);
	if (!res)
		return;
	CHECK(sql_int(path, "SELECT count(*) FROM runs WHERE params = 'k=1' AND "
		      "trace = 't.db' AND memory_pages = 512 AND reclaim = 'memcg'") == 1);
	CHECK(sql_int(path, "SELECT value FROM memory_stat WHERE run = 2 AND "
		      "memcg = 7") == 90);
	CHECK(sql_int(path, "SELECT limit_pages FROM memcgs WHERE cgroup = 7 "
		      "AND path = '/a'") == 256);
	CHECK(sql_int(path, "SELECT count(*) FROM model_counters WHERE "
		      "name = 'nan' AND value IS NULL") == 1);
	CHECK(sql_int(path, "SELECT run FROM notes WHERE kind = 'k' AND "
		      "message = 'a note'") == 2);
	CHECK(mr_results_compare(res, &co, &c, &err) == 0);
	if (c) {
		CHECK_EQ_U64(c->baseline, 1);
		CHECK(mr_compare_delta(c, 0, 0, &a, &p) == 0 && a == -50);
	}
	mr_compare_free(c);
	mr_results_close(res);
}

/* A trace another case writes, for a case run alone: that case first. */
static const char *trace_of(const char *name, void (*maker)(void))
{
	if (access(path_in(name), F_OK))
		maker();
	return path_in(name);
}

/* End to end with the built-in policies: opt is never worse in evictions. */
static void test_builtin(void)
{
	const char *trace = trace_of("zipf.db", test_determinism);
	const char *names[3] = { "lru", "opt", "mglru" };
	const char *pols[3];
	size_t n = 0;
	struct mr_error err = { 0 };

	for (int i = 0; i < 3; i++)
		if (mr_policy_find(names[i]))
			pols[n++] = names[i];
	if (!mr_policy_find("opt") || n < 2) {
		printf("built-in policies not all present: skipping the end-to-end comparison\n");
		return;
	}
	for (int size = 0; size < 2; size++) {
		struct run_opts ro = { .trace = trace, .npol = n, .memory = size ? 2048 : 410,
				       .threads = 2 };
		struct mr_replay *r;
		size_t iopt = 0;

		for (size_t i = 0; i < n; i++) {
			ro.pol[i] = pols[i];
			if (!strcmp(pols[i], "opt"))
				iopt = i;
		}
		r = replay(&ro, &err);
		CHECK(r != NULL);
		if (!r)
			continue;
		for (size_t i = 0; i < n; i++) {
			check_balance(r, i);
			CHECK(ctr(r, i, "mr_usage_max") <= ro.memory || ctr(r, i, "mr_oom") > 0);
			printf("%-6s @%4llu pages: evictions %llu, misses %llu, oom %llu\n", pols[i],
			       (unsigned long long)ro.memory, (unsigned long long)ctr(r, i, "mr_evictions"),
			       (unsigned long long)ctr(r, i, "mr_misses"),
			       (unsigned long long)ctr(r, i, "mr_oom"));
		}
		for (size_t i = 0; i < n; i++)
			CHECK(ctr(r, iopt, "mr_evictions") <= ctr(r, i, "mr_evictions"));
		mr_replay_destroy(r);
	}
}

static void test_errors(void)
{
	const char *pol[1] = { "fifo:tag=0,nosuch=1" };
	struct mr_replay_opts o = { .trace = trace_of("anon.db", test_anon_swap), .policies = pol,
				    .npolicies = 1,
				    .memory_pages = 16 };
	struct mr_replay *r = NULL;
	struct mr_error err = { 0 };
	FILE *f;

	CHECK(mr_replay_create(&o, &r, &err) != 0);
	CHECK(strstr(err.msg, "nosuch") != NULL);
	pol[0] = "nosuchpolicy";
	CHECK(mr_replay_create(&o, &r, &err) != 0);
	CHECK(strstr(err.msg, "unknown policy 'nosuchpolicy'") && strstr(err.msg, "fifo"));
	pol[0] = "fifo";
	o.memory_pages = 0;
	CHECK(mr_replay_create(&o, &r, &err) == MR_EINVAL);
	CHECK(strstr(err.msg, "--memory") != NULL);
	o.memory_pages = 16;
	o.trace = path_in("missing.db");
	CHECK(mr_replay_create(&o, &r, &err) == MR_ENOENT);
	f = fopen(path_in("junk.db"), "w");
	if (f) {
		fputs("not sqlite at all, just some text that is long enough", f);
		fclose(f);
	}
	o.trace = path_in("junk.db");
	CHECK(mr_replay_create(&o, &r, &err) == MR_ENOTSTORE);
	CHECK(r == NULL);
}

static const struct mr_test_case cases[] = {
	MR_CASE(test_anon_swap),
	MR_CASE(test_unmap_exit),
	MR_CASE(test_shared_file),
	MR_CASE(test_fault_around),
	MR_CASE(test_file_cache),
	MR_CASE(test_host_counters),
	MR_CASE(test_nextuse),
	MR_CASE(test_script),
	MR_CASE(test_memcgs_nodes),
	MR_CASE(test_determinism),
	MR_CASE(test_results_plain),
	MR_CASE(test_builtin),
	MR_CASE(test_errors),
};

int main(int argc, char **argv)
{
	struct mr_error err = { 0 };

	if (mr_policy_register(&fifo_ops, &err)) {
		fprintf(stderr, "register: %s\n", err.msg);
		return 1;
	}
	fifonu_ops = fifo_ops;
	fifonu_ops.name = "fifonu";
	fifonu_ops.access = fifo_access;
	if (mr_policy_register(&fifonu_ops, &err)) {
		fprintf(stderr, "register: %s\n", err.msg);
		return 1;
	}
	return mr_test_main("test_replay", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
