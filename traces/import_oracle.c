// SPDX-License-Identifier: GPL-2.0
/*
 * import_oracle.c - libCacheSim's oracleGeneral binary trace in.
 *
 * Records of 24 bytes, little-endian, packed (libCacheSim
 * traceReader/customizedReader/oracle/oracleGeneralBin.h):
 *
 *   offset 0   uint32 timestamp (seconds in libCacheSim's traces; time_unit says
 *              another unit, as memreplay export --time-unit wrote it)
 *   offset 4   uint64 obj_id
 *   offset 12  uint32 obj_size (bytes)
 *   offset 16  int64  next_access_vtime (ignored: a replay computes its own)
 *
 * Each object becomes ceil(obj_size / 4096) pages (one for size 0), given consecutive
 * page ids when it is first requested; with one_page, every object is one page (what
 * libCacheSim's ignore_obj_size does). A request references each page of its object:
 * ACCESS events of one task's anonymous pages, or with file_pages one FD_ACCESS of the
 * object's pages in one file (a read()). An object requested later with a larger size
 * keeps its first size (counted in clamped, as is a timestamp that goes back, which is
 * placed at the previous one): a page's identity cannot grow.
 */
#include <string.h>

#include "import_priv.h"
#include "mr_vm.h"

#define ORACLE_REC 24
#define ORACLE_BATCH 4096
#define ORACLE_MAX_OBJ_PAGES (1u << 20) /* uint32 sizes: at most 4 GiB, 2^20 pages */
#define ORACLE_VPAGE_BASE (1ull << 32)   /* anon objects from address 2^44 */
/*
 * Past 2^22 pages (16 GiB of objects) and 16 records, objects of more than 64 MiB on
 * average with more than a quarter of the records out of time order are taken for data
 * that is not an oracleGeneral trace: random bytes average 2 GiB objects and half their
 * timestamps go back, and would write some 10^9 pages rows first. A trace of a few huge
 * objects in time order is not refused; libCacheSim's traces of CDN, block and key-value
 * caches average bytes to a few MiB.
 */
#define ORACLE_IMPLAUSIBLE_PAGES (1ull << 22)
#define ORACLE_IMPLAUSIBLE_AVG 16384ull

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "oracleGeneral is little-endian: reads need byte swaps on this host");

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

struct oracle_state {
	uint32_t stream, task, mm, file;
	uint64_t next_index; /* next free page index (file) or vpage offset (anon) */
	int have_t0;
	uint32_t t0;
	uint64_t last;
	struct imp_map objs; /* obj_id -> first page id << 32 | pages */
};

static int new_object(struct imp_ctx *c, struct oracle_state *os, uint32_t npages,
		      uint32_t *first)
{
	for (uint32_t i = 0; i < npages; i++) {
		struct mr_page p = { .node = -1 };
		uint32_t id;
		int rc;

		if (c->o->file_pages) {
			p.type = MR_PAGE_FILE;
			p.file = os->file;
			p.index = os->next_index + i;
		} else {
			p.type = MR_PAGE_ANON;
			p.mm = os->mm;
			p.vpage = ORACLE_VPAGE_BASE + os->next_index + i;
		}
		rc = imp_page_new(c, &p, &id);
		if (rc)
			return rc;
		if (!i)
			*first = id;
	}
	os->next_index += npages;
	return 0;
}

static int oracle_record(struct imp_ctx *c, struct oracle_state *os, const unsigned char *r)
{
	uint32_t ts = get32(r), size = get32(r + 12), npages, first;
	uint64_t obj = get64(r + 4), t, *slot;
	int found, rc;

	npages = c->o->one_page || !size ? 1 : (uint32_t)((size + 4095ull) >> IMP_PAGE_SHIFT);
	if (!os->have_t0) {
		os->have_t0 = 1;
		os->t0 = ts;
	}
	t = ts >= os->t0 ? (uint64_t)(ts - os->t0) * mr_oracle_time_unit_ns(c->o->time_unit) : 0;
	if (t < os->last || ts < os->t0) { /* before the previous record, or the first */
		c->st.clamped++;
		t = os->last;
	}
	os->last = t;
	slot = imp_map_slot(&os->objs, obj, &found);
	if (!slot)
		return mr_error_set(c->err, MR_ENOMEM, "out of memory for the objects of %s", c->input);
	if (found) {
		first = (uint32_t)(*slot >> 32);
		if (npages > (uint32_t)*slot) {
			c->st.clamped++;
			npages = (uint32_t)*slot;
		}
	} else {
		if (npages > ORACLE_MAX_OBJ_PAGES)
			return imp_fail(c, "object size %u bytes is beyond %u pages", size,
					ORACLE_MAX_OBJ_PAGES);
		*slot = 0; /* new_object inserts into no map: slot stays valid */
		rc = new_object(c, os, npages, &first);
		if (rc)
			return rc;
		*slot = (uint64_t)first << 32 | npages;
		/* random bytes read as records: ORACLE_IMPLAUSIBLE */
		if (c->st.pages > ORACLE_IMPLAUSIBLE_PAGES && c->st.records >= 16 &&
		    c->st.pages / c->st.records > ORACLE_IMPLAUSIBLE_AVG &&
		    c->st.clamped * 4 > c->st.records)
			return imp_fail(c, "%llu pages for the first %llu records, objects of %llu MiB "
					"on average, and %llu of the records earlier than the one before: "
					"this is not an oracleGeneral trace (or give --one-page to take "
					"each object as one page)",
					(unsigned long long)c->st.pages, (unsigned long long)c->st.records,
					(unsigned long long)(c->st.pages / c->st.records / 256),
					(unsigned long long)c->st.clamped);
	}
	if (c->o->file_pages)
		return imp_emit(c, os->stream, t, MR_EV_FD_ACCESS, first, os->task, MR_ACC_READ,
				npages, 0);
	for (uint32_t i = 0; i < npages; i++) {
		rc = imp_emit(c, os->stream, t, MR_EV_ACCESS, first + i, os->task,
			      MR_ACC_FLAGS(MR_ACC_READ, MR_SRC_SYNTH), 0, 0);
		if (rc)
			return rc;
	}
	return 0;
}

static int oracle_run(struct imp_ctx *c)
{
	static const unsigned char zstd_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };
	unsigned char buf[ORACLE_REC * ORACLE_BATCH];
	struct oracle_state os = { 0 };
	size_t carry = 0; /* bytes of a record a short read cut, kept at buf's start */
	int rc = imp_stream(c, "oracleGeneral", &os.stream);

	if (!rc)
		rc = imp_task(c, os.stream, 0, 1, 1, "oracleGeneral", &os.task, &os.mm);
	if (!rc && c->o->file_pages) {
		struct mr_file f = { .id = c->next_file++, .dev = 0, .ino = 1,
				     .path = "oracleGeneral-objects" };

		os.file = f.id;
		rc = mr_writer_add_file(c->w, &f);
		if (rc)
			rc = imp_wfail(c, rc, "the files row");
	}
	while (!rc) {
		size_t got = fread(buf + carry, 1, sizeof(buf) - carry, c->in), n = carry + got, k;

		if (!got) {
			if (ferror(c->in))
				rc = mr_error_set(c->err, MR_EIO, "reading %s failed", c->input);
			else if (carry) {
				c->line++;
				rc = imp_fail(c, "record cut short: %zu of its %d bytes at the end of "
					      "the input (oracleGeneral records are 24 bytes; "
					      "oracleGeneralOpNS has 27 and lcs a header: this is not "
					      "an oracleGeneral file, or it was truncated)", carry,
					      ORACLE_REC);
			}
			break;
		}
		if (!c->line && n >= 4 && !memcmp(buf, zstd_magic, 4)) {
			c->line = 1;
			rc = imp_fail(c, "zstd-compressed data (a .zst trace): decompress it first "
				      "(zstd -d FILE)");
			break;
		}
		for (k = 0; !rc && k + ORACLE_REC <= n; k += ORACLE_REC) {
			c->line++;
			c->st.records++;
			rc = oracle_record(c, &os, buf + k);
		}
		carry = n - k;
		memmove(buf, buf + k, carry);
	}
	imp_map_free(&os.objs);
	return rc;
}

const struct mr_importer_ops imp_oracle_ops = { .run = oracle_run };
