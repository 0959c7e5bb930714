// SPDX-License-Identifier: GPL-2.0
/*
 * sort.c - mr_sort_keys(): a stable least-significant-digit radix sort of (hi, lo, id)
 * keys, for the million-entry sorts of loading a trace (page indices by owner and key)
 * and of choosing a sample (pages by region, regions by heat), where qsort() took a tenth
 * of the load. 11-bit digits: the id's first (skipped when ids come ascending, as every
 * caller builds them), then lo's, then hi's; a digit every entry shares costs one
 * counting pass and no move, so keys that use few of their bits sort in few passes.
 */
#include <stdlib.h>
#include <string.h>

#include "mr_util.h"

#define RADIX_BITS 11
#define RADIX_N (1u << RADIX_BITS)
/* digits: 3 of the id (33 bits), 6 of lo, 6 of hi (66 bits) */
#define ID_DIGITS 3
#define WORD_DIGITS 6

int mr_sort_key_cmp(const void *a, const void *b)
{
	const struct mr_sort_key *x = a, *y = b;

	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static inline uint32_t digit(const struct mr_sort_key *x, unsigned pass)
{
	if (pass < ID_DIGITS)
		return (x->id >> (pass * RADIX_BITS)) & (RADIX_N - 1);
	pass -= ID_DIGITS;
	if (pass < WORD_DIGITS)
		return (uint32_t)(x->lo >> (pass * RADIX_BITS)) & (RADIX_N - 1);
	pass -= WORD_DIGITS;
	return (uint32_t)(x->hi >> (pass * RADIX_BITS)) & (RADIX_N - 1);
}

int mr_sort_keys(struct mr_sort_key *e, uint64_t n)
{
	struct mr_sort_key *tmp, *src = e;
	uint64_t *count;
	int ascending = 1;

	if (n < 2)
		return 0;
	if (n < 1024) {
		qsort(e, n, sizeof(*e), mr_sort_key_cmp);
		return 0;
	}
	for (uint64_t i = 1; i < n && ascending; i++)
		ascending = e[i].id > e[i - 1].id;
	tmp = malloc(n * sizeof(*tmp));
	count = malloc(RADIX_N * sizeof(*count));
	if (!tmp || !count) {
		free(tmp);
		free(count);
		return MR_ENOMEM;
	}
	for (unsigned pass = ascending ? ID_DIGITS : 0; pass < ID_DIGITS + 2 * WORD_DIGITS; pass++) {
		uint64_t sum = 0;
		struct mr_sort_key *sw;

		memset(count, 0, RADIX_N * sizeof(*count));
		for (uint64_t i = 0; i < n; i++)
			count[digit(&src[i], pass)]++;
		if (count[digit(&src[0], pass)] == n)
			continue; /* every entry has this digit */
		for (uint32_t d = 0; d < RADIX_N; d++) {
			uint64_t c = count[d];

			count[d] = sum;
			sum += c;
		}
		for (uint64_t i = 0; i < n; i++)
			tmp[count[digit(&src[i], pass)]++] = src[i];
		sw = src;
		src = tmp;
		tmp = sw;
	}
	if (src != e) {
		memcpy(e, src, n * sizeof(*e));
		tmp = src;
	}
	free(tmp);
	free(count);
	return 0;
}
