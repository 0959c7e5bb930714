// SPDX-License-Identifier: GPL-2.0
/*
 * export_oracle.c - a trace's page references as libCacheSim oracleGeneral records.
 *
 * A reference is what a replay counts as one (mr_replay.h): an ACCESS of its page, and
 * each page of an FD_ACCESS. Every other event (faults, page-cache inserts and
 * readahead, maps, frees, host-observed refaults) is not a request of a cache and is
 * left out. Record layout in mr_import.h; next_access_vtime is 1-based, as libCacheSim's
 * traceConv writes it (bin/traceUtils/traceConv.cpp: "reference count starts with 1").
 *
 * One pass, forward: each record is written with next -1, and when its page is
 * referenced again the earlier record is patched, in the write buffer while it is still
 * there, else in the file with pwrite(). Memory: the index of each page's last record
 * (8 bytes a page) and the buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen_priv.h"
#include "import_priv.h"

#define EXP_REC 24
#define EXP_BUF_RECS 65536
#define EXP_BATCH 4096
#define EXP_NONE UINT64_MAX

struct exporter {
	int fd;
	const char *path;
	struct mr_error *err;
	unsigned char *buf;
	uint64_t buf_first; /* record number of buf's first record */
	uint32_t nbuf;
	uint64_t *last;     /* per page: number of its last record, EXP_NONE = none yet */
	uint64_t nrec;
	uint64_t div;       /* ns per timestamp unit */
	const char *unit;
	struct mr_export_stats st;
};

static int write_all(struct exporter *x, const void *p, size_t n, off_t off)
{
	const unsigned char *b = p;

	while (n) {
		ssize_t k = pwrite(x->fd, b, n, off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return mr_error_set(x->err, errno == ENOSPC ? MR_ENOSPC : MR_EIO,
					    "writing %s: %s", x->path, strerror(k < 0 ? errno : EIO));
		b += k;
		n -= (size_t)k;
		off += k;
	}
	return 0;
}

static int flush_buf(struct exporter *x)
{
	int rc = write_all(x, x->buf, (size_t)x->nbuf * EXP_REC, (off_t)(x->buf_first * EXP_REC));

	x->buf_first += x->nbuf;
	x->nbuf = 0;
	return rc;
}

/* Record prev's next_access_vtime = cur + 1 (1-based). */
static int patch_next(struct exporter *x, uint64_t prev, uint64_t cur)
{
	int64_t next = (int64_t)(cur + 1);

	if (prev >= x->buf_first) {
		memcpy(x->buf + (prev - x->buf_first) * EXP_REC + 16, &next, 8);
		return 0;
	}
	return write_all(x, &next, 8, (off_t)(prev * EXP_REC + 16));
}

static int request(struct exporter *x, uint64_t time_ns, uint32_t page)
{
	uint64_t ts = time_ns / x->div, obj = page;
	uint32_t ts32, size = 1u << IMP_PAGE_SHIFT;
	int64_t next = -1;
	unsigned char *r;
	int rc;

	if (ts > UINT32_MAX) {
		/* the finest unit in which this time fits (us: 71 minutes, ms: 49 days) */
		const char *fit = time_ns / 1000 <= UINT32_MAX ? "us" :
				  time_ns / 1000000 <= UINT32_MAX ? "ms" : "s";

		return mr_error_set(x->err, MR_ERANGE,
				    "trace time %.6f s does not fit oracleGeneral's 32-bit timestamp "
				    "in %s (at most %.6f s): give --time-unit %s or coarser",
				    (double)time_ns / 1e9, x->unit, (double)UINT32_MAX * (double)x->div / 1e9,
				    fit);
	}
	ts32 = (uint32_t)ts;
	if (x->last[page] == EXP_NONE)
		x->st.objects++;
	else if ((rc = patch_next(x, x->last[page], x->nrec)))
		return rc;
	x->last[page] = x->nrec;
	if (x->nbuf == EXP_BUF_RECS && (rc = flush_buf(x)))
		return rc;
	r = x->buf + (size_t)x->nbuf * EXP_REC;
	memcpy(r, &ts32, 4);
	memcpy(r + 4, &obj, 8);
	memcpy(r + 12, &size, 4);
	memcpy(r + 16, &next, 8);
	x->nbuf++;
	x->nrec++;
	x->st.requests++;
	return 0;
}

static int export_events(struct exporter *x, struct mr_reader *rd, uint32_t npages)
{
	struct mr_event *ev = malloc(EXP_BATCH * sizeof(*ev));
	const struct mr_error *re;
	size_t n;
	int rc;

	if (!ev)
		return mr_error_set(x->err, MR_ENOMEM, "out of memory for the export");
	while ((rc = mr_reader_read(rd, ev, EXP_BATCH, &n)) == 0 && n) {
		for (size_t i = 0; i < n; i++) {
			const struct mr_event *e = &ev[i];

			if (e->kind == MR_EV_ACCESS && e->page < npages) {
				rc = request(x, e->time, e->page);
			} else if (e->kind == MR_EV_FD_ACCESS && e->page < npages &&
				   e->size <= npages - e->page) {
				for (uint32_t k = 0; k < e->size && !rc; k++)
					rc = request(x, e->time, e->page + k);
			} else {
				x->st.skipped++;
			}
			if (rc) {
				free(ev);
				return rc; /* request() set the message */
			}
		}
	}
	free(ev);
	if (rc == MR_EOF || !rc)
		return 0;
	re = mr_reader_error(rd);
	return mr_error_set(x->err, rc, "%s", re && re->msg[0] ? re->msg : mr_strerror(rc));
}

static const uint64_t unit_ns[] = {
	[MR_EXPORT_S] = 1000000000ull, [MR_EXPORT_MS] = 1000000ull, [MR_EXPORT_US] = 1000ull,
	[MR_EXPORT_NS] = 1,
};
static const char *const unit_name[] = {
	[MR_EXPORT_S] = "s", [MR_EXPORT_MS] = "ms", [MR_EXPORT_US] = "us", [MR_EXPORT_NS] = "ns",
};

int mr_oracle_time_unit(const char *name, enum mr_export_time *unit)
{
	for (unsigned u = 0; u <= MR_EXPORT_NS; u++)
		if (!strcmp(name, unit_name[u])) {
			*unit = (enum mr_export_time)u;
			return 0;
		}
	return -1;
}

uint64_t mr_oracle_time_unit_ns(enum mr_export_time unit)
{
	return (unsigned)unit <= MR_EXPORT_NS ? unit_ns[unit] : unit_ns[MR_EXPORT_S];
}

const char *mr_oracle_time_unit_name(enum mr_export_time unit)
{
	return (unsigned)unit <= MR_EXPORT_NS ? unit_name[unit] : "?";
}

int mr_export_oracle(const char *trace_path, const char *out_path,
		     const struct mr_export_opts *o, struct mr_export_stats *st,
		     struct mr_error *err)
{
	static const struct mr_export_opts defaults;
	struct exporter x = { .fd = -1, .path = out_path, .err = err };
	struct mr_store_summary sum;
	struct mr_store *s = NULL;
	struct mr_reader *rd = NULL;
	char tmp[4200];
	int rc;

	if (!trace_path || !out_path)
		return mr_error_set(err, MR_EINVAL, "mr_export_oracle: NULL argument");
	if (!o)
		o = &defaults;
	if ((unsigned)o->unit > MR_EXPORT_NS)
		return mr_error_set(err, MR_EINVAL, "unknown time unit %d", (int)o->unit);
	x.div = unit_ns[o->unit];
	x.unit = unit_name[o->unit];
	rc = trace_out_not_input(trace_path, out_path, err);
	if (rc)
		return rc;
	rc = mr_store_open(trace_path, MR_STORE_RDONLY, &s, err);
	if (rc)
		return rc;
	rc = mr_store_summarize(s, &sum, err);
	if (!rc)
		rc = imp_prepare_output(out_path, o->overwrite, tmp, sizeof(tmp), err);
	if (rc)
		goto out;
	x.buf = malloc((size_t)EXP_BUF_RECS * EXP_REC);
	x.last = malloc((sum.n_pages ? sum.n_pages : 1) * sizeof(*x.last));
	if (!x.buf || !x.last) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory for %llu pages",
				  (unsigned long long)sum.n_pages);
		goto out;
	}
	memset(x.last, 0xff, (sum.n_pages ? sum.n_pages : 1) * sizeof(*x.last));
	x.fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (x.fd < 0) {
		rc = mr_error_set(err, MR_EIO, "cannot write %s: %s", tmp, strerror(errno));
		goto out;
	}
	rc = mr_reader_open(s, NULL, &rd, err);
	if (!rc)
		rc = export_events(&x, rd, sum.n_pages > UINT32_MAX ? UINT32_MAX : (uint32_t)sum.n_pages);
	if (!rc)
		rc = flush_buf(&x);
	if (!rc && fsync(x.fd))
		rc = mr_error_set(err, MR_EIO, "writing %s: %s", out_path, strerror(errno));
	if (!rc && !x.st.requests)
		rc = mr_error_set(err, MR_EINVAL, "%s has no page references (ACCESS or FD_ACCESS "
				  "events): nothing to export", trace_path);
out:
	mr_reader_close(rd);
	mr_store_close(s);
	if (x.fd >= 0) {
		if (close(x.fd) && !rc)
			rc = mr_error_set(err, MR_EIO, "writing %s: %s", out_path, strerror(errno));
		if (!rc)
			rc = imp_install_output(tmp, out_path, o->overwrite, err);
		if (rc)
			unlink(tmp);
	}
	free(x.buf);
	free(x.last);
	if (st)
		*st = x.st;
	return rc;
}
