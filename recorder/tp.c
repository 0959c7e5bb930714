// SPDX-License-Identifier: GPL-2.0
/*
 * tp.c - tracepoint ids and field layouts read from tracefs at run time
 * (<tracefs>/events/<sys>/<name>/{id,format}), so a kernel that moves a field is read
 * right, and one that lacks a field leaves it absent (off = -1) instead of misread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rec_int.h"

static void add_layout(struct tp_info *tp, const char *name, const struct tp_field *f)
{
	size_t n = strlen(tp->layout);

	if (f->off < 0)
		return;
	snprintf(tp->layout + n, sizeof(tp->layout) - n, "%s%s@%d:%d", n ? "," : "", name,
		 f->off, f->size);
}

/* "\tfield:unsigned long i_ino;\toffset:16;\tsize:8;\tsigned:0;" */
static void parse_field(struct tp_info *tp, const char *line)
{
	static const struct {
		const char *name;
		size_t off;
		unsigned bit;
	} want[] = {
		{ "pfn", offsetof(struct tp_info, pfn), TPF_PFN },
		{ "i_ino", offsetof(struct tp_info, ino), TPF_INO },
		{ "index", offsetof(struct tp_info, index), TPF_INDEX },
		{ "s_dev", offsetof(struct tp_info, dev), TPF_DEV },
		{ "order", offsetof(struct tp_info, order), TPF_ORDER },
		{ "last_index", offsetof(struct tp_info, last_index), TPF_LAST_INDEX },
		{ "size", offsetof(struct tp_info, size), TPF_SIZE },
		{ "async_size", offsetof(struct tp_info, async_size), TPF_ASYNC_SIZE },
		{ "item", offsetof(struct tp_info, item), TPF_ITEM },
		{ "val", offsetof(struct tp_info, val), TPF_VAL },
		{ "addr", offsetof(struct tp_info, addr), TPF_ADDR },
		{ "len", offsetof(struct tp_info, len), TPF_LEN },
		{ "address", offsetof(struct tp_info, address), TPF_ADDRESS },
		{ "error_code", offsetof(struct tp_info, error_code), TPF_ERROR_CODE },
	};
	const char *decl = strstr(line, "field:"), *semi, *p, *o, *s;
	char name[64];
	size_t len;

	if (!decl)
		return;
	decl += 6;
	semi = strchr(decl, ';');
	if (!semi)
		return;
	p = semi;
	while (p > decl && (p[-1] == ']' || (p[-1] >= '0' && p[-1] <= '9') || p[-1] == '['))
		p--; /* arrays: drop [N] */
	len = 0;
	while (p > decl && (p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') ||
			    (p[-1] >= 'A' && p[-1] <= 'Z') || (p[-1] >= '0' && p[-1] <= '9'))) {
		p--;
		len++;
	}
	if (!len || len >= sizeof(name))
		return;
	memcpy(name, p, len);
	name[len] = '\0';
	o = strstr(semi, "offset:");
	s = strstr(semi, "size:");
	if (!o || !s)
		return;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct tp_field *f;

		if (strcmp(want[i].name, name))
			continue;
		f = (struct tp_field *)((char *)tp + want[i].off);
		f->off = atoi(o + 7);
		f->size = atoi(s + 5);
		if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8) {
			f->off = -1;
		} else {
			tp->have |= want[i].bit;
			add_layout(tp, name, f);
		}
	}
}

int rec_tp_load(struct tp_info *tp, const char *tracefs, const char *sys, const char *name,
		unsigned need)
{
	char path[512], line[512];
	FILE *f;

	memset(tp, 0, sizeof(*tp));
	tp->pfn.off = tp->ino.off = tp->index.off = tp->dev.off = tp->order.off = -1;
	tp->last_index.off = tp->size.off = tp->async_size.off = -1;
	tp->item.off = tp->val.off = tp->addr.off = tp->len.off = -1;
	tp->address.off = tp->error_code.off = -1;
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", tracefs, sys, name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	tp->id = strtoull(line, NULL, 10);
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs, sys, name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		parse_field(tp, line);
	fclose(f);
	if ((tp->have & need) != need)
		return -EPROTO; /* a layout we cannot use */
	tp->present = 1;
	return 0;
}

/* Field value from a raw record (little-endian host); 0 when absent or out of bounds. */
uint64_t rec_tp_get(const void *raw, uint32_t rawlen, const struct tp_field *f)
{
	const unsigned char *b = raw;
	uint64_t v8;
	uint32_t v4;
	uint16_t v2;

	if (f->off < 0 || (uint32_t)(f->off + f->size) > rawlen)
		return 0;
	switch (f->size) {
	case 1:
		return b[f->off];
	case 2:
		memcpy(&v2, b + f->off, 2);
		return v2;
	case 4:
		memcpy(&v4, b + f->off, 4);
		return v4;
	default:
		memcpy(&v8, b + f->off, 8);
		return v8;
	}
}
