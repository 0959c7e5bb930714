// SPDX-License-Identifier: GPL-2.0
/*
 * mglru_debugfs.c - /sys/kernel/debug/lru_gen of the model, as mm/vmscan.c has it:
 * lru_gen_seq_show() (the read format, lru_gen and lru_gen_full) and
 * lru_gen_seq_write() / run_cmd() / run_aging() / run_eviction() (the write commands).
 *
 * Read format (one block per memcg and node; [7.x] "%llu" memcg ids):
 *
 *   memcg <id> <path>
 *    node <nid>                                     " node %5d"
 *    <seq> <age_ms> <anon><m> <file><m>             " %10lu %10u" + 2 x " %10lu%c"
 *   lru_gen_full adds, per seq, 4 tier lines and an mm stats line:
 *               <tier>  3 x " %10lu%c" per type       RTx / rep / xxx
 *                         4 x " %10lu%c"              TYFA / tyfa / xxxx
 *
 * Model conventions: memcg <id> is the engine's memcg index, its path "/" for memcg 0
 * and "/<id>" for the others; age_ms is trace time (ns / 10^6, no HZ rounding).
 */
#include "mglru.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mr_util.h"


/* mm/vmscan.c:lru_gen_seq_show_full(): the tier lines and the mm stats line of seq */
static void lru_gen_seq_show_full(struct mr_strbuf *o, struct mglru *mg, struct lruvec *lv,
				  uint64_t max_seq, const uint64_t *min_seq, uint64_t seq)
{
	int i, type, tier;
	unsigned hist = lru_hist_from_seq(mg, seq);
	struct lru_gen_folio *lrugen = &lv->lrugen;
	struct lru_gen_mm_state *mm_state = &lv->mm_state;

	for (tier = 0; tier < MAX_NR_TIERS; tier++) {
		mr_strbuf_printf(o, "            %10d", tier);
		for (type = 0; type < ANON_AND_FILE; type++) {
			const char *s = "xxx";
			uint64_t n[3] = { 0, 0, 0 };

			if (seq == max_seq) {
				s = "RTx";
				n[0] = lrugen->avg_refaulted[type][tier];
				n[1] = lrugen->avg_total[type][tier];
			} else if (seq == min_seq[type] || mg->nr_hist_gens > 1) {
				s = "rep";
				n[0] = lrugen->refaulted[hist][type][tier];
				n[1] = lrugen->evicted[hist][type][tier];
				n[2] = lrugen->protected[hist][type][tier];
			}

			for (i = 0; i < 3; i++)
				mr_strbuf_printf(o, " %10llu%c", (unsigned long long)n[i], s[i]);
		}
		mr_strbuf_printf(o, "\n");
	}

	mr_strbuf_printf(o, "                      ");
	for (i = 0; i < (int)mg->nr_mm_stats; i++) {
		/* S001 extends the letters to TYFALWEES */
		const char *s = "xxxxxxxxx";
		uint64_t n = 0;

		if (seq == max_seq && mg->nr_hist_gens == 1) {
			s = "TYFALWEES";
			n = mm_state->stats[hist][i];
		} else if (seq != max_seq && mg->nr_hist_gens > 1) {
			s = "tyfalwees";
			n = mm_state->stats[hist][i];
		}

		mr_strbuf_printf(o, " %10llu%c", (unsigned long long)n, s[i]);
	}
	mr_strbuf_printf(o, "\n");
}

/* mm/vmscan.c:lru_gen_seq_show() for one lruvec */
static void lru_gen_seq_show(struct mr_strbuf *o, struct mglru *mg, struct lruvec *lv, bool full)
{
	uint64_t seq;
	struct lru_gen_folio *lrugen = &lv->lrugen;
	uint64_t max_seq = lrugen->max_seq;
	uint64_t min_seq[ANON_AND_FILE] = { lrugen->min_seq[LRU_GEN_ANON],
					    lrugen->min_seq[LRU_GEN_FILE] };

	if (lv->node == 0) { /* first_memory_node */
		if (lv->memcg)
			mr_strbuf_printf(o, "memcg %llu /%u\n", (unsigned long long)lv->memcg, lv->memcg);
		else
			mr_strbuf_printf(o, "memcg %llu /\n", 0ull);
	}

	mr_strbuf_printf(o, " node %5d\n", (int)lv->node);

	if (!full)
		seq = evictable_min_seq(min_seq, MAX_SWAPPINESS / 2);
	else if (max_seq >= MAX_NR_GENS)
		seq = max_seq - MAX_NR_GENS + 1;
	else
		seq = 0;

	for (; seq <= max_seq; seq++) {
		int type, zone;
		unsigned gen = lru_gen_from_seq(seq);
		uint64_t birth = lrugen->timestamps[gen];
		uint64_t age_ns = mg->m->now_ns > birth ? mg->m->now_ns - birth : 0;

		/* jiffies_to_msecs(jiffies - birth) is an unsigned int */
		mr_strbuf_printf(o, " %10llu %10u", (unsigned long long)seq,
			   (unsigned)(uint32_t)(age_ns / 1000000u));

		for (type = 0; type < ANON_AND_FILE; type++) {
			int64_t size = 0;
			char mark = full && seq < min_seq[type] ? 'x' : ' ';

			for (zone = 0; zone < MAX_NR_ZONES; zone++) {
				int64_t n = lrugen->nr_pages[gen][type][zone];

				size += n > 0 ? n : 0;
			}
			mr_strbuf_printf(o, " %10llu%c", (unsigned long long)size, mark);
		}
		mr_strbuf_printf(o, "\n");

		if (full)
			lru_gen_seq_show_full(o, mg, lv, max_seq, min_seq, seq);
	}
}

/*
 * The lru_gen (full = 0) or lru_gen_full (full = 1) file of the model: every memcg,
 * every node. Writes at most cap - 1 bytes and a NUL into buf (cap > 0); returns the
 * length of the whole text, which is larger than cap - 1 when it was truncated.
 */
size_t lru_gen_show(struct mr_policy *p, int full, char *buf, size_t cap)
{
	struct mglru *mg = mglru_of(p);
	struct mr_strbuf o = { buf, cap, 0 };
	uint32_t i;

	if (cap)
		buf[0] = '\0';
	for (i = 0; i < mg->m->nr_lruvecs; i++)
		lru_gen_seq_show(&o, mg, &mg->lruvecs[i], full != 0);
	return o.len;
}

/* ---- write commands ---- */

/* mm/vmscan.c:run_aging(): a max_gen beyond max_seq is invalid; otherwise age once from
 * the current max_seq, even if max_gen is stale. */
static int run_aging(struct mglru *mg, struct lruvec *lv, uint64_t seq, int swappiness,
		     bool force_scan, struct mr_error *err)
{
	uint64_t max_seq = lv->lrugen.max_seq;

	if (seq > max_seq)
		return mr_error_set(err, MR_EINVAL,
				    "lru_gen: '+' max_gen %llu is beyond max_seq %llu (EINVAL)",
				    (unsigned long long)seq, (unsigned long long)max_seq);

	if (!try_to_inc_max_seq(mg, lv, max_seq, swappiness, force_scan))
		return mr_error_set(err, MR_EBUSY,
				    "lru_gen: '+' could not age: generation %llu is already being "
				    "made (EEXIST)", (unsigned long long)max_seq + 1);
	return 0;
}

/* Pages on the oldest generation lists of the evictable types. */
static int64_t oldest_pages(const struct lruvec *lv, int swappiness)
{
	int64_t n = 0;
	int type, zone;

	for (type = min_type(swappiness); type <= max_type(swappiness); type++)
		for (zone = 0; zone < MAX_NR_ZONES; zone++)
			n += lv->lrugen.nr_pages[lru_gen_from_seq(lv->lrugen.min_seq[type])][type]
					       [zone];
	return n;
}

/* Model stand-in for signal_pending(): passes without progress before '-' gives up. */
#define EVICT_STALL_PASSES 16

/*
 * mm/vmscan.c:run_eviction(): evict until min_gen is gone, nr_to_reclaim pages are
 * reclaimed, or nothing more is scanned. Differs: the kernel loops until a signal when
 * passes keep scanning folios that go back to the oldest generation (S003 mode B, R1/R2:
 * a livelock); the model stops after EVICT_STALL_PASSES passes in a row that reclaimed
 * nothing, advanced no min_seq and left the oldest generations no smaller, and counts
 * mglru_evict_stalls.
 */
static int run_eviction(struct mglru *mg, struct lruvec *lv, uint64_t seq,
			struct mr_scan_control *sc, int swappiness, uint64_t nr_to_reclaim,
			struct mr_error *err)
{
	uint64_t max_seq = lv->lrugen.max_seq;
	int stalls = 0;

	if (seq + MIN_NR_GENS > max_seq)
		return mr_error_set(err, MR_EINVAL,
				    "lru_gen: '-' min_gen %llu must be at most max_seq - 2 = %llu "
				    "(EINVAL)", (unsigned long long)seq,
				    (unsigned long long)(max_seq - MIN_NR_GENS));

	sc->nr_reclaimed = 0;

	for (;;) {
		uint64_t reclaimed = sc->nr_reclaimed;
		uint64_t min_anon = lv->lrugen.min_seq[LRU_GEN_ANON];
		uint64_t min_file = lv->lrugen.min_seq[LRU_GEN_FILE];
		int64_t oldest = oldest_pages(lv, swappiness);

		if (seq < evictable_min_seq(lv->lrugen.min_seq, swappiness))
			return 0;

		if (sc->nr_reclaimed >= nr_to_reclaim)
			return 0;

		if (!evict_folios(mg, nr_to_reclaim - sc->nr_reclaimed, lv, sc, swappiness))
			return 0;

		if (sc->nr_reclaimed == reclaimed && lv->lrugen.min_seq[LRU_GEN_ANON] == min_anon &&
		    lv->lrugen.min_seq[LRU_GEN_FILE] == min_file &&
		    oldest_pages(lv, swappiness) >= oldest) {
			if (++stalls >= EVICT_STALL_PASSES) {
				mg->stat.evict_stalls++;
				return 0;
			}
		} else {
			stalls = 0;
		}
	}
}

/* mm/vmscan.c:run_cmd() */
static int run_cmd(struct mglru *mg, char cmd, uint64_t memcg_id, uint64_t nid, uint64_t seq,
		   struct mr_scan_control *sc, int swappiness, uint64_t opt, struct mr_error *err)
{
	struct lruvec *lv;

	if (nid >= mg->m->nr_nodes)
		return mr_error_set(err, MR_EINVAL, "lru_gen: no memory node %llu (EINVAL)",
				    (unsigned long long)nid);
	if (memcg_id >= mg->m->nr_memcgs)
		return mr_error_set(err, MR_EINVAL, "lru_gen: no memcg with id %llu (EINVAL)",
				    (unsigned long long)memcg_id);

	sc->memcg = (uint32_t)memcg_id;
	sc->node = (uint32_t)nid;
	sc->memcg_reclaim = memcg_id != 0; /* sc->target_mem_cgroup = memcg */
	lv = &mg->lruvecs[memcg_id * mg->m->nr_nodes + nid];

	if (swappiness < MIN_SWAPPINESS)
		swappiness = get_swappiness(mg, lv, sc);
	else if (swappiness > SWAPPINESS_ANON_ONLY)
		return mr_error_set(err, MR_EINVAL,
				    "lru_gen: swappiness %d is out of range 0..200 or 'max' (EINVAL)",
				    swappiness);

	switch (cmd) {
	case '+':
		return run_aging(mg, lv, seq, swappiness, opt != 0, err);
	case '-':
		return run_eviction(mg, lv, seq, sc, swappiness, opt, err);
	}
	return mr_error_set(err, MR_EINVAL, "lru_gen: unknown command '%c' (use '+' or '-') (EINVAL)",
			    cmd);
}

/* Whitespace as the kernel's vsscanf() and skip_spaces() see it. */
static bool is_space(char c)
{
	return isspace((unsigned char)c) != 0;
}

static const char *skip_spaces(const char *s)
{
	while (is_space(*s))
		s++;
	return s;
}

/* A decimal "%llu" conversion after optional whitespace: digits only (the kernel's
 * vsscanf() takes no sign for an unsigned conversion). */
static bool scan_u64(const char **s, uint64_t *out)
{
	const char *p = skip_spaces(*s);
	uint64_t v = 0;

	if (!isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p)) {
		v = v * 10 + (uint64_t)(*p - '0');
		p++;
	}
	*out = v;
	*s = p;
	return true;
}

/* kstrtouint(s, 0): decimal, 0x hex or 0 octal, an optional '+', nothing after. */
static bool kstrtouint(const char *s, unsigned *out)
{
	unsigned base = 10;
	uint64_t v = 0;

	if (*s == '+')
		s++;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isxdigit((unsigned char)s[2])) {
		base = 16;
		s += 2;
	} else if (s[0] == '0' && s[1]) {
		base = 8;
		s++;
	}
	if (!*s)
		return false;
	for (; *s; s++) {
		unsigned d;

		if (isdigit((unsigned char)*s))
			d = (unsigned)(*s - '0');
		else if (isxdigit((unsigned char)*s))
			d = (unsigned)(tolower((unsigned char)*s) - 'a' + 10);
		else
			return false;
		if (d >= base)
			return false;
		v = v * base + d;
		if (v > UINT32_MAX)
			return false;
	}
	*out = (unsigned)v;
	return true;
}

/*
 * One command as lru_gen_seq_write() parses it, with
 *   sscanf(cur, "%c %llu %u %lu %n %4s %n %lu %n", &cmd, &memcg_id, &nid, &seq, &end,
 *          swap_string, &end, &opt, &end)
 * and n < 4 or anything left after &end -> EINVAL.
 */
static int parse_and_run(struct mglru *mg, const char *cur, struct mr_scan_control *sc,
			 struct mr_error *err)
{
	const char *p = cur, *end;
	char cmd, swap_string[5] = "";
	uint64_t memcg_id, nid, seq, opt = UINT64_MAX;
	unsigned swp_u;
	int n = 0, swappiness;
	size_t len;

	cmd = *p++;
	n++;
	if (!scan_u64(&p, &memcg_id) || !(++n, scan_u64(&p, &nid)) || !(++n, scan_u64(&p, &seq)))
		goto bad;
	n++;
	end = skip_spaces(p);
	p = end;
	for (len = 0; len < 4 && *p && !is_space(*p); len++)
		swap_string[len] = *p++;
	swap_string[len] = '\0';
	if (len) {
		n++;
		end = skip_spaces(p);
		p = end;
		if (scan_u64(&p, &opt)) {
			n++;
			end = skip_spaces(p);
		}
	}
	if (*end)
		goto bad;

	if (n == 4) {
		swappiness = -1;
	} else if (!strcmp("max", swap_string)) {
		/* set by userspace for anonymous memory only */
		swappiness = SWAPPINESS_ANON_ONLY;
	} else {
		if (!kstrtouint(swap_string, &swp_u))
			return mr_error_set(err, MR_EINVAL,
					    "lru_gen: swappiness '%s' is not a number or 'max' (EINVAL)",
					    swap_string);
		swappiness = swp_u > SWAPPINESS_ANON_ONLY ? SWAPPINESS_ANON_ONLY + 1 : (int)swp_u;
	}
	if (nid > UINT32_MAX)
		nid = UINT32_MAX; /* "%u" */

	return run_cmd(mg, cmd, memcg_id, nid, seq, sc, swappiness, opt, err);
bad:
	return mr_error_set(err, MR_EINVAL,
			    "lru_gen: cannot parse '%s': use '+ memcg node max_gen [swappiness "
			    "[force_scan]]' or '- memcg node min_gen [swappiness [nr_to_reclaim]]' "
			    "(EINVAL)", cur);
}

/*
 * mm/vmscan.c:lru_gen_seq_write(): run the commands of cmd, separated by ',', ';' or
 * newlines, in order, stopping at the first that fails:
 *   + memcg node max_gen [swappiness [force_scan]]   age once (force_scan defaults on)
 *   - memcg node min_gen [swappiness [nr_to_reclaim]] evict up to min_gen
 * swappiness: 0..200, or "max" for anon only; omitted: get_swappiness().
 * Runs as proactive reclaim (not kswapd) with a walk context. Returns 0, or MR_EINVAL
 * (the kernel's EINVAL) or MR_EBUSY (the kernel's EEXIST: aging found its generation
 * already made) with a message in err.
 */
int lru_gen_command(struct mr_policy *p, const char *cmd, struct mr_error *err)
{
	struct mglru *mg = mglru_of(p);
	struct mr_scan_control sc = {
		.may_writepage = 1,
		.may_unmap = 1,
		.may_swap = 1,
		.reclaim_idx = MAX_NR_ZONES - 1,
		.gfp_io = 1, /* GFP_KERNEL */
		.proactive = 1,
	};
	char line[256];
	const char *s = cmd;
	int rc = 0;

	if (!cmd)
		return mr_error_set(err, MR_EINVAL, "lru_gen: no command");

	/* set_mm_walk(NULL, true) */
	mg->walk_active = true;

	while (!rc) {
		size_t len = strcspn(s, ",;\n");
		const char *cur;

		if (len >= sizeof(line)) {
			rc = mr_error_set(err, MR_EINVAL, "lru_gen: command too long (EINVAL)");
			break;
		}
		memcpy(line, s, len);
		line[len] = '\0';
		cur = skip_spaces(line);
		if (*cur)
			rc = parse_and_run(mg, cur, &sc, err);
		if (!s[len])
			break;
		s += len + 1;
	}

	/* clear_mm_walk() */
	MR_WARN_ON_ONCE(mg->walk.batched);
	mg->walk_active = false;
	return rc;
}
