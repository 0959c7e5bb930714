// SPDX-License-Identifier: GPL-2.0
/*
 * presets.c - named sets of policy specs for `memreplay replay --variants NAME`: one pass
 * over the trace replays every member, so a patch is compared with its baseline on the
 * same decode of the same trace.
 */
#include <string.h>

#include "mr_policy.h"

/* The five seed patches as toggles of mglru, each against the baseline (first). */
static const char *const seeds[] = {
	"mglru",
	"mglru:inc_min_seq=v3",      /* seed 000: batched, order-preserving inc_min_seq */
	"mglru:pud_filter=1",        /* seed 001: PUD-level Bloom filter */
	"mglru:ra_placement=B",      /* seed 003: in-fault read-ahead placement, the fix */
	"mglru:ra_placement=C",      /* seed 003: the plain revert */
	"mglru:exec_promote=1",      /* seed 004: promote mapped exec folios on first use */
};

/* Baselines users reach for first. */
static const char *const classic[] = { "lru", "mglru", "opt" };

static const struct {
	const char *name, *help;
	const char *const *specs;
	size_t n;
} presets[] = {
	{ "seeds", "mglru baseline plus each seed patch toggle (000, 001, 003 B/C, 004)", seeds,
	  sizeof(seeds) / sizeof(seeds[0]) },
	{ "classic", "lru, mglru and the opt bound", classic, sizeof(classic) / sizeof(classic[0]) },
};

int mr_policy_preset(const char *name, const char *const **specs, size_t *n,
		     struct mr_error *err)
{
	char known[256] = "";

	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++) {
		if (!strcmp(presets[i].name, name)) {
			*specs = presets[i].specs;
			*n = presets[i].n;
			return 0;
		}
		strncat(known, i ? ", " : "", sizeof(known) - strlen(known) - 1);
		strncat(known, presets[i].name, sizeof(known) - strlen(known) - 1);
	}
	return mr_error_set(err, MR_EINVAL, "unknown variants preset '%s' (known: %s)", name, known);
}
