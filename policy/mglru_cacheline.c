// SPDX-License-Identifier: GPL-2.0
/*
 * mglru_cacheline.c - S002 (stats_layout=before|after, docs/seeds.md, "S002"): a cache-line
 * model of include/linux/mmzone.h:struct lru_gen_folio. It changes no reclaim decision:
 * the hot paths report which fields they read and write (mglru_cl() in mglru.h), and
 * this file maps each field to its byte offset in the kernel's layout before or after
 * the seed patch, to the cache line floor((base + offset) / 64), and runs a MESI-like
 * protocol per line and lruvec over the CPUs of the replayed events (m->cpu).
 *
 * Layout assumptions (docs/seeds.md, "S002 layout"): x86_64, MAX_NR_ZONES = 5,
 * NR_HIST_GENS = 1. The model's one zone is the kernel's ZONE_NORMAL (2); with
 * lru_gen_stats=1 the history slot is folded to 0 (the layout has one slot).
 *
 * Protocol, per (lruvec, line): a sharers set and a modified owner (or none).
 *   read by c:  hit if c holds it; else a transfer if another CPU holds it modified
 *               (that copy becomes shared); c joins the sharers. A cold miss is not a
 *               transfer.
 *   write by c: hit if c owns it modified; else a transfer if any other CPU holds it,
 *               invalidating each of them; c becomes the modified owner. An upgrade from
 *               c's own shared copy is not a transfer.
 */
#include "mglru.h"

#include <stdlib.h>
#include <string.h>

/* kernel constants of the layout, not of the model */
#define KMAX_NR_ZONES 5
#define KZONE_NORMAL 2

struct lrugen_layout {
	unsigned off[NR_LGF];
	unsigned size;
};

/* the offsets of docs/seeds.md, "S002 layout" */
static const struct lrugen_layout layouts[2] = {
	[STATS_LAYOUT_BEFORE] = {
		.off = {
			[LGF_MAX_SEQ] = 0, [LGF_MIN_SEQ] = 8, [LGF_TIMESTAMPS] = 24,
			[LGF_FOLIOS] = 56, [LGF_NR_PAGES] = 696, [LGF_AVG_REFAULTED] = 1016,
			[LGF_AVG_TOTAL] = 1080, [LGF_PROTECTED] = 1144, [LGF_EVICTED] = 1208,
			[LGF_REFAULTED] = 1272, [LGF_ENABLED] = 1336, [LGF_GEN] = 1337,
			[LGF_SEG] = 1338, [LGF_LIST] = 1344,
		},
		.size = 1360,
	},
	[STATS_LAYOUT_AFTER] = {
		.off = {
			[LGF_MAX_SEQ] = 0, [LGF_MIN_SEQ] = 8, [LGF_TIMESTAMPS] = 24,
			[LGF_ENABLED] = 56, [LGF_GEN] = 57, [LGF_SEG] = 58, [LGF_LIST] = 64,
			[LGF_FOLIOS] = 80, [LGF_NR_PAGES] = 720, [LGF_AVG_REFAULTED] = 1040,
			[LGF_AVG_TOTAL] = 1104, [LGF_PROTECTED] = 1168, [LGF_EVICTED] = 1280,
			[LGF_REFAULTED] = 1344,
		},
		.size = 1408,
	},
};

/* bytes per element of each field's array (0 for scalars) */
static const unsigned elem_size[NR_LGF] = {
	[LGF_MIN_SEQ] = 8, [LGF_TIMESTAMPS] = 8, [LGF_FOLIOS] = 16, [LGF_NR_PAGES] = 8,
	[LGF_AVG_REFAULTED] = 8, [LGF_AVG_TOTAL] = 8, [LGF_PROTECTED] = 8, [LGF_EVICTED] = 8,
	[LGF_REFAULTED] = 8,
};

/*
 * Byte offset of element idx of field f in the kernel's struct lru_gen_folio. idx is
 * the type (min_seq), the gen (timestamps), (gen * 2 + type) * 5 + kernel zone (folios,
 * nr_pages) or type * MAX_NR_TIERS + tier (avg_*, protected, evicted, refaulted).
 */
unsigned lrugen_field_offset(int layout, unsigned f, unsigned idx)
{
	return layouts[layout].off[f] + elem_size[f] * idx;
}

unsigned lrugen_size(int layout)
{
	return layouts[layout].size;
}

/* The index of lrugen_field_offset() for a model (gen, type) list or size. */
unsigned lrugen_gen_idx(unsigned gen, int type)
{
	return (gen * ANON_AND_FILE + (unsigned)type) * KMAX_NR_ZONES + KZONE_NORMAL;
}

/* lrugen base modulo 64 in effect: the patched struct is 64-aligned (docs/seeds.md,
 * "S002 layout"). */
unsigned lrugen_eff_base(int layout, unsigned base)
{
	return layout == STATS_LAYOUT_AFTER ? 0 : base % CL_LINE;
}

unsigned lrugen_line(int layout, unsigned base, unsigned f, unsigned idx)
{
	return (lrugen_eff_base(layout, base) + lrugen_field_offset(layout, f, idx)) / CL_LINE;
}

int mglru_cl_init(struct mglru *mg, int layout, unsigned base)
{
	struct mglru_cl *cl = calloc(1, sizeof(*cl));
	size_t i, n = (size_t)mg->m->nr_lruvecs * CL_MAX_LINES;

	if (!cl)
		return -1;
	cl->lines = malloc(n * sizeof(*cl->lines));
	if (!cl->lines) {
		free(cl);
		return -1;
	}
	for (i = 0; i < n; i++) {
		cl->lines[i].sharers = 0;
		cl->lines[i].owner = -1;
	}
	cl->layout = layout;
	cl->base = lrugen_eff_base(layout, base);
	cl->enabled_line = lrugen_line(layout, base, LGF_ENABLED, 0);
	mg->cl = cl;
	return 0;
}

void mglru_cl_fini(struct mglru *mg)
{
	if (mg->cl) {
		free(mg->cl->lines);
		free(mg->cl);
		mg->cl = NULL;
	}
}

void mglru_cl_access_cpu(struct mglru_cl *cl, uint32_t lruvec, unsigned path, unsigned f,
			 unsigned idx, bool write, unsigned cpu)
{
	unsigned line = (cl->base + lrugen_field_offset(cl->layout, f, idx)) / CL_LINE;
	struct cl_line *l = &cl->lines[(size_t)lruvec * CL_MAX_LINES + line];
	uint64_t bit;

	cpu %= CL_MAX_CPUS;
	bit = 1ull << cpu;
	if (!write) {
		cl->reads++;
		if (l->sharers & bit)
			return;
		if (l->owner >= 0) {
			cl->transfers++;
			cl->path_transfers[path]++;
			cl->line_transfers[line]++;
			l->owner = -1;
		}
		l->sharers |= bit;
		return;
	}
	cl->writes++;
	if (l->owner == (int8_t)cpu)
		return;
	if (l->sharers & ~bit) {
		cl->transfers++;
		cl->path_transfers[path]++;
		cl->line_transfers[line]++;
		cl->invalidations += (uint64_t)__builtin_popcountll(l->sharers & ~bit);
	}
	l->sharers = bit;
	l->owner = (int8_t)cpu;
}

void mglru_cl_access(struct mglru *mg, const struct lruvec *lv, unsigned path, unsigned f,
		     unsigned idx, bool write)
{
	mglru_cl_access_cpu(mg->cl, lv->id, path, f, idx, write, mg->m->cpu);
}

static const char *const path_names[NR_CL_PATHS] = {
	"mglru_cl_transfers_add", "mglru_cl_transfers_eviction", "mglru_cl_transfers_refault",
	"mglru_cl_transfers_memcg_walk", "mglru_cl_transfers_read_ctrl_pos",
	"mglru_cl_transfers_reset_ctrl_pos", "mglru_cl_transfers_sort",
	"mglru_cl_transfers_aging",
};

void mglru_cl_counters(const struct mglru *mg,
		       void (*emit)(void *arg, const char *name, double value), void *arg)
{
	const struct mglru_cl *cl = mg->cl;
	int i;

	if (!cl)
		return;
	emit(arg, "mglru_cl_reads", (double)cl->reads);
	emit(arg, "mglru_cl_writes", (double)cl->writes);
	emit(arg, "mglru_cl_transfers", (double)cl->transfers);
	emit(arg, "mglru_cl_invalidations", (double)cl->invalidations);
	for (i = 0; i < NR_CL_PATHS; i++)
		emit(arg, path_names[i], (double)cl->path_transfers[i]);
	emit(arg, "mglru_cl_transfers_enabled_line", (double)cl->line_transfers[cl->enabled_line]);
	emit(arg, "mglru_cl_lrugen_size", (double)lrugen_size(cl->layout));
}
