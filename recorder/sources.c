// SPDX-License-Identifier: GPL-2.0
/*
 * sources.c - the recording sources by name: one table of the --sources names and their
 * MR_RSRC_* bits, read by the CLI's --sources (mr_record_parse_sources()) and by the
 * recorder when it names the state of each source (struct mr_record_stats.src).
 */
#include <stdio.h>
#include <string.h>

#include "mr_recorder.h"
#include "mr_util.h"

/* In the order the CLI's usage lists them: each MR_RSRC_* bit, then the sets. */
static const struct {
	const char *name;
	unsigned int bit;
} source_tab[] = {
	{ "faults", MR_RSRC_FAULTS }, { "mmap", MR_RSRC_MMAP },
	{ "pagecache", MR_RSRC_PAGECACHE }, { "readahead", MR_RSRC_READAHEAD },
	{ "young", MR_RSRC_YOUNG }, { "hwsample", MR_RSRC_HWSAMPLE },
	{ "numa", MR_RSRC_NUMA }, { "fault_rw", MR_RSRC_FAULT_RW },
	{ "refault", MR_RSRC_REFAULT },
	{ "default", MR_RSRC_DEFAULT }, { "all", MR_RSRC_ALL },
};

#define NSOURCE_TAB (sizeof(source_tab) / sizeof(source_tab[0]))

const char *mr_record_source_name(unsigned int bit)
{
	for (size_t i = 0; i < NSOURCE_TAB; i++)
		if (source_tab[i].bit == bit)
			return source_tab[i].name;
	return NULL;
}

size_t mr_record_source_names(char *buf, size_t cap)
{
	struct mr_strbuf sb = { .buf = buf, .cap = cap };

	if (cap)
		buf[0] = '\0';
	for (size_t i = 0; i < NSOURCE_TAB; i++)
		mr_strbuf_printf(&sb, "%s%s", i ? "," : "", source_tab[i].name);
	MR_WARN_ON_ONCE(sb.len >= MR_RECORD_SOURCE_NAMES_MAX);
	return sb.len;
}

int mr_record_parse_sources(const char *list, unsigned int *out, struct mr_error *err)
{
	char buf[256], *tok, *save = NULL;

	*out = 0;
	snprintf(buf, sizeof(buf), "%s", list);
	/* left to right: NAME adds a set, -NAME takes it away (default,-refault) */
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int minus = tok[0] == '-';
		size_t i;

		for (i = 0; i < NSOURCE_TAB; i++)
			if (!strcmp(source_tab[i].name, tok + minus))
				break;
		if (i == NSOURCE_TAB)
			return mr_error_set(err, MR_EINVAL, "--sources '%s': no source '%s'",
					    list, tok + minus);
		if (minus)
			*out &= ~source_tab[i].bit;
		else
			*out |= source_tab[i].bit;
	}
	return *out ? 0 : mr_error_set(err, MR_EINVAL, "--sources '%s': no source left",
				       list);
}
