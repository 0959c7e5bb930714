// SPDX-License-Identifier: GPL-2.0
/*
 * import.c - the importer registry, mr_import_create(), and what the importers share:
 * key maps, address spaces with their one VMA, tasks, page rows and events.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen_priv.h"
#include "import_priv.h"
#include "mr_util.h"
#include "mr_vm.h"

static const struct mr_importer imp_perf = {
	.name = "perf",
	.help = "`perf script` text of page-fault samples with their data addresses",
	.lacks = "accesses after a page's first fault in each address space, read/write, page cache, "
		 "readahead, file pages (every page is anonymous), mappings, frees, exits",
	.howto = "perf record -e page-faults -c 1 -d -- PROG; "
		 "perf script -F comm,pid,tid,time,event,addr,ip",
	.ops = &imp_perf_ops,
};

static const struct mr_importer imp_damo = {
	.name = "damo",
	.help = "damo's JSON record: DAMON region snapshots (start, end, nr_accesses)",
	.lacks = "accesses within a region (region granularity: every page of an accessed region "
		 "is accessed once per snapshot), access counts, read/write, tasks, page cache, "
		 "file pages, mappings, frees",
	.howto = "damo record --output_type json -o REC.json PROG "
		 "(or damo convert_record_format --format json)",
	.ops = &imp_damo_ops,
};

static const struct mr_importer imp_lackey = {
	.name = "lackey",
	.help = "valgrind --tool=lackey --trace-mem=yes: every load, store and modify",
	.lacks = "time (records are tick_ns apart), threads (one task), page cache, file pages "
		 "(every page is anonymous), mappings, frees, kernel accesses",
	.howto = "valgrind --tool=lackey --trace-mem=yes --log-file=OUT.txt PROG",
	.ops = &imp_lackey_ops,
};

static const struct mr_importer imp_oracle = {
	.name = "oracleGeneral",
	.help = "libCacheSim oracleGeneral binary records (timestamp, obj_id, obj_size, next access)",
	.lacks = "read/write, tasks and address spaces (one synthetic task), page types, page cache "
		 "and readahead, mappings, frees, time below a second (below the unit of "
		 "--time-unit)",
	.howto = "libCacheSim traceConv, or memreplay export --format oracleGeneral",
	.ops = &imp_oracle_ops,
};

static const struct mr_importer *const importers[] = {
	&imp_perf, &imp_damo, &imp_lackey, &imp_oracle, NULL,
};

const struct mr_importer *const *mr_import_list(void)
{
	return importers;
}

const struct mr_importer *mr_import_find(const char *name)
{
	for (size_t i = 0; importers[i]; i++)
		if (!strcmp(importers[i]->name, name))
			return importers[i];
	if (name && !strcmp(name, "oracle"))
		return &imp_oracle;
	return NULL;
}

/* ---- key map ---- */

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static int map_grow(struct imp_map *m)
{
	uint64_t cap = m->cap ? 2 * m->cap : 1024;
	uint64_t *keys = malloc(cap * sizeof(*keys)), *vals = malloc(cap * sizeof(*vals));
	uint8_t *used = calloc(cap, 1);

	if (!keys || !vals || !used) {
		free(keys);
		free(vals);
		free(used);
		return MR_ENOMEM;
	}
	for (uint64_t i = 0; i < m->cap; i++) {
		uint64_t j;

		if (!m->used[i])
			continue;
		for (j = mix64(m->keys[i]) & (cap - 1); used[j]; j = (j + 1) & (cap - 1))
			;
		used[j] = 1;
		keys[j] = m->keys[i];
		vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	free(m->used);
	m->keys = keys;
	m->vals = vals;
	m->used = used;
	m->cap = cap;
	return 0;
}

uint64_t *imp_map_slot(struct imp_map *m, uint64_t key, int *found)
{
	uint64_t j;

	if ((m->n + 1) * 2 > m->cap && map_grow(m))
		return NULL;
	for (j = mix64(key) & (m->cap - 1); m->used[j]; j = (j + 1) & (m->cap - 1)) {
		if (m->keys[j] == key) {
			*found = 1;
			return &m->vals[j];
		}
	}
	m->used[j] = 1;
	m->keys[j] = key;
	m->vals[j] = 0;
	m->n++;
	*found = 0;
	return &m->vals[j];
}

void imp_map_free(struct imp_map *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

/* ---- context ---- */

int imp_fail(struct imp_ctx *c, const char *fmt, ...)
{
	char msg[MR_ERRMSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return mr_error_set(c->err, MR_EINVAL, "%s:%llu: %s", c->input,
			    (unsigned long long)c->line, msg);
}

int imp_wfail(struct imp_ctx *c, int rc, const char *what)
{
	const struct mr_error *we = mr_writer_error(c->w);

	if (we && we->msg[0])
		return mr_error_set(c->err, rc, "writing %s: %s", what, we->msg);
	return mr_error_set(c->err, rc, "writing %s: %s", what, mr_strerror(rc));
}

int imp_stream(struct imp_ctx *c, const char *name, uint32_t *id)
{
	int rc = mr_writer_add_stream(c->w, name, c->imp->name, -1, id);

	if (rc)
		return imp_wfail(c, rc, "a stream row");
	c->streams++;
	return 0;
}

/* A new process: its mms row and the VMA row over the whole user range (mapped from t;
 * the caller emits the MAP event once the task that brought it in has an id). */
static int add_mm(struct imp_ctx *c, uint64_t t, int32_t tgid, const char *comm,
		  uint32_t *mm, uint32_t *vma)
{
	struct mr_vma_row v = {
		.id = c->next_vma, .start = 0, .end = IMP_VA_END,
		.flags = MR_VMA_READ | MR_VMA_WRITE, .map_ns = t,
	};
	int rc;

	if (c->next_mm >= (1u << IMP_MM_BITS))
		return imp_fail(c, "more than %u processes: split the input", (1u << IMP_MM_BITS) - 1);
	v.mm = *mm = c->next_mm++;
	rc = mr_writer_add_mm(c->w, *mm, tgid, comm);
	if (rc)
		return imp_wfail(c, rc, "an mms row");
	rc = mr_writer_add_vma(c->w, &v);
	if (rc)
		return imp_wfail(c, rc, "a vmas row");
	*vma = c->next_vma++;
	c->st.mms++;
	return 0;
}

int imp_task(struct imp_ctx *c, uint32_t stream, uint64_t t, int32_t tgid, int32_t tid,
	     const char *comm, uint32_t *task, uint32_t *mm)
{
	uint64_t key = (uint64_t)(uint32_t)tgid << 32 | (uint32_t)tid;
	uint32_t vma = 0;
	int found, rc;
	uint64_t *slot = imp_map_slot(&c->threads, key, &found), *ps;
	struct mr_task tr;

	if (!slot)
		return mr_error_set(c->err, MR_ENOMEM, "out of memory for the tasks of %s", c->input);
	if (found) {
		*task = (uint32_t)*slot;
		*mm = (uint32_t)(*slot >> 32);
		return 0;
	}
	ps = imp_map_slot(&c->procs, (uint32_t)tgid, &found);
	if (!ps)
		return mr_error_set(c->err, MR_ENOMEM, "out of memory for the tasks of %s", c->input);
	if (!found) {
		rc = add_mm(c, t, tgid, comm ? comm : "?", mm, &vma);
		if (rc)
			return rc;
		*ps = *mm;
	}
	*mm = (uint32_t)*ps;
	tr = (struct mr_task){
		.id = c->next_task++, .pid = tid, .tgid = tgid, .mm = *mm,
		.comm = comm ? comm : "?", .start_ns = t,
	};
	rc = mr_writer_add_task(c->w, &tr);
	if (rc)
		return imp_wfail(c, rc, "a tasks row");
	*task = tr.id;
	c->st.tasks++;
	/* the threads map has not grown since slot was taken: only procs was inserted into */
	*slot = (uint64_t)*mm << 32 | tr.id;
	if (vma)
		return imp_emit(c, stream, t, MR_EV_MAP, MR_PAGE_NONE, tr.id,
				(uint8_t)(MR_VMA_READ | MR_VMA_WRITE), 0, vma);
	return 0;
}

int imp_page_new(struct imp_ctx *c, const struct mr_page *p, uint32_t *id)
{
	struct mr_page row = *p;
	int rc;

	if (c->next_page >= MR_PAGE_NONE)
		return imp_fail(c, "more than %u distinct pages: a trace's page ids are 32-bit",
				MR_PAGE_NONE - 1);
	row.id = (uint32_t)c->next_page;
	rc = mr_writer_add_page(c->w, &row);
	if (rc)
		return imp_wfail(c, rc, "a pages row");
	c->next_page++;
	c->st.pages++;
	*id = row.id;
	return 0;
}

int imp_page(struct imp_ctx *c, uint32_t mm, uint64_t vpage, int exec, uint32_t *id)
{
	int found;
	uint64_t *slot = imp_map_slot(&c->pages, (uint64_t)mm << 44 | vpage, &found);
	struct mr_page p = { .type = MR_PAGE_ANON, .node = -1, .mm = mm, .vpage = vpage };
	int rc;

	if (!slot)
		return mr_error_set(c->err, MR_ENOMEM, "out of memory for the pages of %s", c->input);
	if (found && (!exec || (*slot >> 63))) {
		*id = (uint32_t)((*slot & ~(1ull << 63)) - 1);
		return 0;
	}
	p.exec = exec ? 1 : 0;
	if (found) {
		/* first exec access of a known page: its row again with exec set */
		p.id = *id = (uint32_t)((*slot & ~(1ull << 63)) - 1);
		*slot |= 1ull << 63;
		rc = mr_writer_add_page(c->w, &p);
		return rc ? imp_wfail(c, rc, "a pages row") : 0;
	}
	rc = imp_page_new(c, &p, id);
	if (rc)
		return rc;
	*slot = (uint64_t)*id + 1 + (exec ? 1ull << 63 : 0);
	return 0;
}

int imp_emit(struct imp_ctx *c, uint32_t stream, uint64_t t, uint8_t kind, uint32_t page,
	     uint32_t task, uint8_t flags, uint32_t size, uint64_t arg)
{
	struct mr_event ev = {
		.time = t, .arg = arg, .page = page, .task = task, .size = size,
		.kind = kind, .flags = flags,
	};
	int rc = mr_writer_append(c->w, stream, &ev);

	if (rc)
		return imp_wfail(c, rc, "an event");
	c->st.events++;
	if (kind == MR_EV_ACCESS || kind == MR_EV_FD_ACCESS)
		c->st.accesses += kind == MR_EV_ACCESS ? 1 : size;
	return 0;
}

#define IMP_LINE_MAX (1u << 20)

int imp_getline(struct imp_ctx *c, char **buf, size_t *cap)
{
	long n;

	errno = 0;
	n = mr_getline_max(buf, cap, c->in, IMP_LINE_MAX);
	if (n == -2) { /* stopped there: a file without newlines is not read whole */
		c->line++;
		return imp_fail(c, "a line of more than %u bytes: this is not %s output",
				IMP_LINE_MAX, c->imp->name);
	}
	if (n < 0) {
		if (ferror(c->in) || errno == ENOMEM)
			return mr_error_set(c->err, errno == ENOMEM ? MR_ENOMEM : MR_EIO,
					    "reading %s: %s", c->input, strerror(errno ? errno : EIO));
		return 0;
	}
	c->line++;
	c->st.records++;
	while (n && ((*buf)[n - 1] == '\n' || (*buf)[n - 1] == '\r'))
		(*buf)[--n] = 0;
	if (memchr(*buf, 0, (size_t)n))
		return imp_fail(c, "a NUL byte: this is binary data, not %s text output",
				c->imp->name);
	return 1;
}

int imp_hex(const char *s, size_t len, uint64_t *v)
{
	uint64_t x = 0;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		len -= 2;
	}
	if (!len || len > 16)
		return -1;
	for (size_t i = 0; i < len; i++) {
		char ch = s[i];
		unsigned d = ch >= '0' && ch <= '9' ? (unsigned)(ch - '0') :
			     ch >= 'a' && ch <= 'f' ? (unsigned)(ch - 'a' + 10) :
			     ch >= 'A' && ch <= 'F' ? (unsigned)(ch - 'A' + 10) : 16u;

		if (d > 15)
			return -1;
		x = x << 4 | d;
	}
	*v = x;
	return 0;
}

/* ---- mr_import_create ---- */

/* The output as a generated trace's (gen.c): checked first, built beside it, installed. */
int imp_prepare_output(const char *path, int overwrite, char *tmp, size_t cap,
		       struct mr_error *err)
{
	int rc = trace_out_check(path, overwrite, err);

	if (rc)
		return rc;
	if (snprintf(tmp, cap, "%s.tmp-%ld", path, (long)getpid()) >= (int)cap)
		return mr_error_set(err, MR_EINVAL, "output path '%.60s...' is too long", path);
	return 0;
}

int imp_install_output(const char *tmp, const char *path, int overwrite, struct mr_error *err)
{
	return trace_out_install(tmp, path, overwrite, err);
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static int write_meta(struct imp_ctx *c, const char *input)
{
	const struct mr_import_opts *o = c->o;
	char opts[256];
	int rc;

	/* the options that apply to this format, as the import used them */
	if (c->imp->ops == &imp_lackey_ops)
		snprintf(opts, sizeof(opts), "tick_ns=%llu with_instr=%d",
			 (unsigned long long)(o->tick_ns ? o->tick_ns : 1), o->with_instr);
	else if (c->imp->ops == &imp_oracle_ops)
		snprintf(opts, sizeof(opts), "file_pages=%d one_page=%d time_unit_ns=%llu",
			 o->file_pages, o->one_page,
			 (unsigned long long)mr_oracle_time_unit_ns(o->time_unit));
	else
		snprintf(opts, sizeof(opts), "none");
	rc = mr_writer_set_meta(c->w, "source", "import");
	if (!rc)
		rc = mr_writer_set_meta(c->w, "import.format", c->imp->name);
	if (!rc)
		rc = mr_writer_set_meta(c->w, "import.input", strcmp(input, "-") ?
					base_name(input) : "(standard input)");
	if (!rc)
		rc = mr_writer_set_meta(c->w, "import.lacks", c->imp->lacks);
	if (!rc)
		rc = mr_writer_set_meta(c->w, "import.options", opts);
	if (!rc)
		rc = mr_writer_set_meta_u64(c->w, "page_size", 1u << IMP_PAGE_SHIFT);
	if (!rc)
		rc = mr_writer_set_meta_u64(c->w, "nodes", 1);
	return rc ? imp_wfail(c, rc, "the meta rows") : 0;
}

int mr_import_create(const struct mr_importer *imp, const char *input, const char *path,
		     const struct mr_import_opts *o, struct mr_import_stats *st,
		     struct mr_error *err)
{
	static const struct mr_import_opts defaults;
	struct imp_ctx c = { 0 };
	struct mr_store *s = NULL;
	char tmp[4200];
	int rc;

	if (!imp || !input || !path)
		return mr_error_set(err, MR_EINVAL, "mr_import_create: NULL argument");
	c.imp = imp;
	c.o = o ? o : &defaults;
	c.err = err;
	c.input = strcmp(input, "-") ? input : "(standard input)";
	c.next_mm = c.next_task = c.next_vma = c.next_file = 1;
	rc = strcmp(input, "-") ? trace_out_not_input(input, path, err) : 0;
	if (!rc)
		rc = imp_prepare_output(path, c.o->overwrite, tmp, sizeof(tmp), err);
	if (rc)
		return rc;
	if (!strcmp(input, "-")) {
		c.in = stdin;
	} else {
		c.in = fopen(input, "rb");
		if (!c.in)
			return mr_error_set(err, errno == ENOENT ? MR_ENOENT : MR_EIO,
					    "cannot read %s: %s", input, strerror(errno));
	}
	rc = mr_store_create(tmp, 1, &s, err);
	if (rc)
		goto out;
	rc = mr_writer_create(s, NULL, &c.w, err);
	if (rc)
		goto out;
	rc = write_meta(&c, input);
	if (!rc)
		rc = imp->ops->run(&c);
	if (!rc && !c.st.accesses)
		rc = mr_error_set(err, MR_EINVAL, "%s holds no %s record with a page access: "
				  "nothing to import (make it with: %s)", c.input, imp->name,
				  imp->howto);
	if (!rc)
		rc = mr_writer_set_meta_u64(c.w, "import.skipped", c.st.skipped);
	if (!rc)
		rc = mr_writer_set_meta_u64(c.w, "import.clamped", c.st.clamped);
	if (!rc) {
		rc = mr_writer_finish(c.w);
		if (rc)
			imp_wfail(&c, rc, path);
	}
out:
	mr_writer_destroy(c.w);
	mr_store_close(s);
	if (c.in && c.in != stdin)
		fclose(c.in);
	imp_map_free(&c.pages);
	imp_map_free(&c.procs);
	imp_map_free(&c.threads);
	if (!rc)
		rc = trace_out_install(tmp, path, c.o->overwrite, err);
	/* an import is reproducible from its input: never leave a partial one */
	if (rc)
		mr_store_remove(tmp);
	if (st)
		*st = c.st;
	return rc;
}
