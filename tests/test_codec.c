// SPDX-License-Identifier: GPL-2.0
/*
 * test_codec.c - the pure chunk codec: CRC-32C, column encodings, chunk round trips,
 * and that damaged or hostile blobs give MR_ECORRUPT (never a crash, never wrong events).
 *
 * Random streams print their seed (MR_TEST_SEED=... replays them). Hand-crafted blobs
 * are built here from the layout in mr_codec.h: payload bytes, LZ4_compress_default and
 * the CRC computed by the test, so the column checks are reached past LZ4 and CRC.
 */
#include <stdlib.h>
#include <string.h>

#include <lz4.h>

#include "mr_codec.h"
#include "mr_test.h"

/* The table implementation of crc32c.c, whatever the CPU has (not in mr_codec.h). */
uint32_t mr_crc32c_sw(uint32_t crc, const void *buf, size_t len);

static uint64_t rs; /* random state, from the printed seed */

static uint64_t rnd(void)
{
	return mr_test_rand(&rs);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return p;
}

/* ---- CRC-32C ---- */

static void test_crc32c(void)
{
	uint8_t buf[300 + 8];
	uint8_t zeros[32] = { 0 }, ones[32], inc[32];

	CHECK_EQ_U64(mr_crc32c(0, "123456789", 9), 0xE3069283u);
	CHECK_EQ_U64(mr_crc32c_sw(0, "123456789", 9), 0xE3069283u);
	CHECK_EQ_U64(mr_crc32c(0, "", 0), 0);
	CHECK_EQ_U64(mr_crc32c(0x1234, NULL, 0), 0x1234);
	/* RFC 3720 (iSCSI) B.4 vectors */
	memset(ones, 0xff, sizeof(ones));
	for (int i = 0; i < 32; i++)
		inc[i] = (uint8_t)i;
	CHECK_EQ_U64(mr_crc32c(0, zeros, 32), 0x8A9136AAu);
	CHECK_EQ_U64(mr_crc32c(0, ones, 32), 0x62A8AB43u);
	CHECK_EQ_U64(mr_crc32c(0, inc, 32), 0x46DD794Eu);

	/* both implementations agree at every length and alignment, and calls chain */
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)rnd();
	for (size_t off = 0; off < 8; off++) {
		for (size_t len = 0; len <= 300; len++) {
			uint32_t whole = mr_crc32c(0, buf + off, len);
			size_t cut = len ? (size_t)(rnd() % (len + 1)) : 0;

			CHECK_EQ_U64(whole, mr_crc32c_sw(0, buf + off, len));
			CHECK_EQ_U64(whole, mr_crc32c(mr_crc32c(0, buf + off, cut), buf + off + cut,
						      len - cut));
		}
	}
}

/* ---- columns ---- */

/* Bytes of the LEB128 varint of v, the slow obvious way. */
static size_t vlen(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

enum shape {
	SH_CONST, SH_ZERO, SH_MAX, SH_RANDOM, SH_SMALL, SH_MONO, SH_SEQ, SH_ALT,
	SH_RUNS, SH_DRUNS, SH_EXTREME, SH_BITLEN, SH_NR
};

static const char *const shape_name[SH_NR] = {
	"const", "zero", "max", "random", "small", "monotone", "sequential", "alternating",
	"runs", "delta-runs", "extreme", "bit-lengths",
};

/* n values of a shape, each <= max (kind: max 17, so reduced mod 18). */
static void gen_column(uint64_t *v, size_t n, int shape, uint64_t max)
{
	uint64_t a = rnd(), b = rnd(), cur = rnd(), step = rnd() % 5;
	size_t left = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t x;

		switch (shape) {
		case SH_CONST:
			x = a;
			break;
		case SH_ZERO:
			x = 0;
			break;
		case SH_MAX:
			x = max;
			break;
		case SH_RANDOM:
			x = rnd();
			break;
		case SH_SMALL:
			x = rnd() % 200;
			break;
		case SH_MONO:
			x = cur += rnd() % 300;
			break;
		case SH_SEQ:
			x = a + i;
			break;
		case SH_ALT:
			x = i & 1 ? a : b;
			break;
		case SH_RUNS:
			if (!left) {
				left = 1 + rnd() % (rnd() & 1 ? 600 : 4);
				cur = rnd() % 1000;
			}
			left--;
			x = cur;
			break;
		case SH_DRUNS:
			if (!left) {
				left = 1 + rnd() % (rnd() & 1 ? 700 : 6);
				step = rnd() & 1 ? rnd() % 9 : rnd();
			}
			left--;
			x = cur += step;
			break;
		case SH_EXTREME:
			x = rnd() & 1 ? 0 : UINT64_MAX;
			break;
		default: /* SH_BITLEN: every varint length */
			x = rnd() >> (rnd() % 64);
			break;
		}
		if (max == MR_EV_NR_KINDS - 1)
			x %= MR_EV_NR_KINDS;
		else
			x &= max;
		v[i] = x;
	}
}

/* Encode vals with every encoding; sz[e] = size, or SIZE_MAX where enc refuses. */
static void col_all_sizes(const uint64_t *vals, size_t n, uint8_t *buf, size_t cap,
			  size_t sz[MR_ENC_NR])
{
	for (int e = 0; e < MR_ENC_NR; e++) {
		size_t len = 0;
		int rc = mr_col_encode(vals, n, (enum mr_col_enc)e, buf, cap, &len);

		sz[e] = rc ? SIZE_MAX : len;
		if (rc)
			/* CONST of differing values; NZDELTA of a delta whose zigzag + 1 wraps */
			CHECK((e == MR_ENC_CONST || e == MR_ENC_NZDELTA) && rc == MR_EINVAL);
	}
}

/* Round trip vals through enc; the checks that every valid column passes. */
static void col_roundtrip(const uint64_t *vals, size_t n, enum mr_col_enc enc, uint8_t *buf,
			  size_t cap, uint64_t *out)
{
	size_t len = 0;
	int rc = mr_col_encode(vals, n, enc, buf, cap, &len);

	if (rc) {
		CHECK(enc == MR_ENC_CONST && rc == MR_EINVAL);
		return;
	}
	CHECK(len <= mr_col_bound(n));
	memset(out, 0xa5, n * sizeof(*out));
	rc = mr_col_decode(buf, len, enc, out, n);
	CHECK_EQ_U64(rc, MR_OK);
	if (!rc && memcmp(out, vals, n * sizeof(*out)))
		CHECK(!"column round trip differs");
	/* every encoding ends with a whole varint: one byte less or more is corrupt */
	CHECK_EQ_U64(mr_col_decode(buf, len - 1, enc, out, n), MR_ECORRUPT);
	buf[len] = 0;
	CHECK_EQ_U64(mr_col_decode(buf, len + 1, enc, out, n), MR_ECORRUPT);
	/* and the count is part of every encoding but CONST */
	if (enc != MR_ENC_CONST) {
		CHECK_EQ_U64(mr_col_decode(buf, len, enc, out, n + 1), MR_ECORRUPT);
		if (n > 1)
			CHECK_EQ_U64(mr_col_decode(buf, len, enc, out, n - 1), MR_ECORRUPT);
	}
}

/* What mr_col_choose() must pick, from every encoding's exact size. */
static enum mr_col_enc expected_choice(const uint64_t *vals, size_t n, const size_t sz[MR_ENC_NR])
{
	enum mr_col_enc best = MR_ENC_CONST;
	int all_equal = 1;

	for (size_t i = 1; i < n; i++)
		all_equal &= vals[i] == vals[0];
	if (all_equal)
		return MR_ENC_CONST;
	for (int e = 1; e < MR_ENC_DBITS; e++)
		if (sz[e] < sz[best])
			best = (enum mr_col_enc)e;
	if (sz[MR_ENC_DBITS] < sz[best] && sz[MR_ENC_DBITS] <= sz[best] - sz[best] / 4)
		best = MR_ENC_DBITS;
	return best;
}

static void test_col_shapes(void)
{
	static const size_t lens[] = { 1, 2, 3, 9, 10, 11, 100, 1000, 5000 };
	size_t maxn = 5000;
	uint64_t *vals = xmalloc((maxn + 1) * sizeof(*vals));
	uint64_t *out = xmalloc((maxn + 1) * sizeof(*out));
	size_t cap = mr_col_bound(maxn) + 1;
	uint8_t *buf = xmalloc(cap);

	for (int sh = 0; sh < SH_NR; sh++) {
		for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
			for (int rep = 0; rep < 3; rep++) {
				size_t n = lens[li], sz[MR_ENC_NR];
				enum mr_col_enc best;
				uint64_t max = rep == 2 ? UINT32_MAX : UINT64_MAX;

				gen_column(vals, n, sh, max);
				for (int e = 0; e < MR_ENC_NR; e++)
					col_roundtrip(vals, n, (enum mr_col_enc)e, buf, cap, out);

				/* choose: a constant column is CONST; else the smallest, ties to
				 * the lowest enum value, DBITS only when it saves a quarter of
				 * the best other */
				col_all_sizes(vals, n, buf, cap, sz);
				best = mr_col_choose(vals, n);
				CHECK_EQ_U64(best, expected_choice(vals, n, sz));
				if (best != expected_choice(vals, n, sz))
					fprintf(stderr, "shape %s n %zu: chose %d (%zu B)\n",
						shape_name[sh], n, best, sz[best]);
				mr_test_checks++;
			}
		}
	}
	free(vals);
	free(out);
	free(buf);
}

static void test_col_edges(void)
{
	uint8_t buf[256];
	uint64_t out[64];
	size_t len;

	/* every varint length, at the boundaries */
	for (int k = 0; k <= 64; k++) {
		uint64_t vs[3] = { k < 64 ? (1ull << k) - 1 : UINT64_MAX, k < 64 ? 1ull << k : 0,
				   k < 64 ? (1ull << k) + 1 : 1 };

		for (int j = 0; j < 3; j++) {
			CHECK_EQ_U64(mr_col_encode(&vs[j], 1, MR_ENC_VARINT, buf, sizeof(buf), &len), 0);
			CHECK_EQ_U64(len, vlen(vs[j]));
			CHECK_EQ_U64(mr_col_decode(buf, len, MR_ENC_VARINT, out, 1), 0);
			CHECK_EQ_U64(out[0], vs[j]);
			CHECK_EQ_U64(mr_col_choose(&vs[j], 1), MR_ENC_CONST);
		}
	}

	/* the largest varint is 10 bytes: ff x 9, 01 */
	{
		uint64_t v = UINT64_MAX;
		static const uint8_t max10[10] = { 0xff, 0xff, 0xff, 0xff, 0xff,
						   0xff, 0xff, 0xff, 0xff, 0x01 };

		CHECK_EQ_U64(mr_col_encode(&v, 1, MR_ENC_CONST, buf, sizeof(buf), &len), 0);
		CHECK_EQ_U64(len, 10);
		CHECK(!memcmp(buf, max10, 10));
	}
	/* overlong and overflowing varints, alone and after 20 good ones (fast path) */
	for (int pre = 0; pre <= 20; pre += 20) {
		size_t o = (size_t)pre;

		memset(buf, 0x05, o);
		memset(buf + o, 0xff, 9);
		buf[o + 9] = 0x01;
		CHECK_EQ_U64(mr_col_decode(buf, o + 10, MR_ENC_VARINT, out, o + 1), 0);
		CHECK_EQ_U64(out[o], UINT64_MAX);
		buf[o + 9] = 0x02; /* bit 64 */
		CHECK_EQ_U64(mr_col_decode(buf, o + 10, MR_ENC_VARINT, out, o + 1), MR_ECORRUPT);
		buf[o + 9] = 0x81; /* an 11th byte */
		buf[o + 10] = 0x00;
		CHECK_EQ_U64(mr_col_decode(buf, o + 11, MR_ENC_VARINT, out, o + 1), MR_ECORRUPT);
		memset(buf + o, 0x80, 10);
		buf[o + 10] = 0x00;
		CHECK_EQ_U64(mr_col_decode(buf, o + 11, MR_ENC_VARINT, out, o + 1), MR_ECORRUPT);
		/* a varint running off the end of its column */
		memset(buf + o, 0x80, 3);
		CHECK_EQ_U64(mr_col_decode(buf, o + 3, MR_ENC_VARINT, out, o + 1), MR_ECORRUPT);
		/* ... and the same varint followed by more bytes that are not the column's */
		memset(buf + o + 3, 0x01, 40);
		CHECK_EQ_U64(mr_col_decode(buf, o + 3, MR_ENC_VARINT, out, o + 1), MR_ECORRUPT);
	}

	/* CONST refuses differing values; n == 0 is not a column */
	{
		uint64_t v2[2] = { 7, 8 };

		CHECK_EQ_U64(mr_col_encode(v2, 2, MR_ENC_CONST, buf, sizeof(buf), &len), MR_EINVAL);
		CHECK_EQ_U64(mr_col_encode(v2, 0, MR_ENC_VARINT, buf, sizeof(buf), &len), MR_EINVAL);
		CHECK_EQ_U64(mr_col_encode(v2, 2, MR_ENC_NR, buf, sizeof(buf), &len), MR_EINVAL);
		CHECK_EQ_U64(mr_col_encode(v2, 2, MR_ENC_VARINT, buf, 1, &len), MR_ENOSPC);
		CHECK_EQ_U64(mr_col_decode(buf, 2, MR_ENC_NR, out, 2), MR_ECORRUPT);
		CHECK_EQ_U64(mr_col_choose(v2, 2), MR_ENC_VARINT); /* 2 bytes; DELTA ties */
	}

	/* deltas wrap in u64: zigzag(v[i] - v[i-1]) round-trips for any sequence */
	{
		uint64_t w[8] = { UINT64_MAX, 0, UINT64_MAX, 1, 1ull << 63, (1ull << 63) - 1, 0, 0 };

		for (int e = MR_ENC_DELTA; e <= MR_ENC_DELTA_RLE; e += MR_ENC_DELTA_RLE - MR_ENC_DELTA) {
			CHECK_EQ_U64(mr_col_encode(w, 8, (enum mr_col_enc)e, buf, sizeof(buf), &len), 0);
			CHECK_EQ_U64(mr_col_decode(buf, len, (enum mr_col_enc)e, out, 8), 0);
			CHECK(!memcmp(out, w, sizeof(w)));
		}
		/* UINT64_MAX -> 0 is +1: zigzag 2, one byte */
		CHECK_EQ_U64(mr_col_encode(w, 2, MR_ENC_DELTA, buf, sizeof(buf), &len), 0);
		CHECK_EQ_U64(len, 10 + 1);
		CHECK_EQ_U64(buf[10], 2);
	}

	/* RLE and DELTA_RLE: run of 0, runs short of n, runs past n */
	{
		static const uint8_t run0[] = { 5, 0, 6, 2 };
		static const uint8_t short_runs[] = { 5, 1, 6, 2 };
		static const uint8_t long_runs[] = { 5, 2, 6, 3 };
		static const uint8_t drle[] = { 10, 2, 2, 1, 1 }; /* 10, +1, +1, -1 */

		CHECK_EQ_U64(mr_col_decode(run0, 4, MR_ENC_RLE, out, 2), MR_ECORRUPT);
		CHECK_EQ_U64(mr_col_decode(short_runs, 4, MR_ENC_RLE, out, 3), 0);
		CHECK_EQ_U64(out[0], 5);
		CHECK_EQ_U64(out[2], 6);
		CHECK_EQ_U64(mr_col_decode(short_runs, 4, MR_ENC_RLE, out, 4), MR_ECORRUPT);
		CHECK_EQ_U64(mr_col_decode(long_runs, 4, MR_ENC_RLE, out, 4), MR_ECORRUPT);
		CHECK_EQ_U64(mr_col_decode(drle, 5, MR_ENC_DELTA_RLE, out, 4), 0);
		CHECK_EQ_U64(out[0], 10);
		CHECK_EQ_U64(out[2], 12);
		CHECK_EQ_U64(out[3], 11);
		CHECK_EQ_U64(mr_col_decode(drle, 5, MR_ENC_DELTA_RLE, out, 5), MR_ECORRUPT);
		CHECK_EQ_U64(mr_col_decode(drle, 1, MR_ENC_DELTA_RLE, out, 1), 0);
	}
}

/* ---- chunks ---- */

struct bufs {
	size_t cap;     /* events */
	void *scratch;
	size_t scratch_cap;
	uint8_t *blob;
	size_t blob_cap;
	struct mr_event *out;
	uint64_t *col;
};

static void bufs_init(struct bufs *b, size_t cap)
{
	b->cap = cap;
	b->scratch_cap = mr_chunk_scratch_size(cap);
	b->scratch = xmalloc(b->scratch_cap);
	b->blob_cap = mr_chunk_bound(cap);
	b->blob = xmalloc(b->blob_cap);
	b->out = xmalloc(cap * sizeof(*b->out));
	b->col = xmalloc(cap * sizeof(*b->col));
}

static void bufs_free(struct bufs *b)
{
	free(b->scratch);
	free(b->blob);
	free(b->out);
	free(b->col);
}

static const uint64_t field_max[MR_COL_NR] = {
	UINT64_MAX, MR_EV_NR_KINDS - 1, UINT32_MAX, UINT32_MAX,
	UINT16_MAX, UINT8_MAX, UINT32_MAX, UINT64_MAX,
};

/* Column c of event e, widened to u64. */
static uint64_t get_field(const struct mr_event *e, int c)
{
	switch (c) {
	case MR_COL_TIME:
		return e->time;
	case MR_COL_KIND:
		return e->kind;
	case MR_COL_PAGE:
		return e->page;
	case MR_COL_TASK:
		return e->task;
	case MR_COL_CPU:
		return e->cpu;
	case MR_COL_FLAGS:
		return e->flags;
	case MR_COL_SIZE:
		return e->size;
	default:
		return e->arg;
	}
}

/* Set column c of event e; x fits the field (gen_column() makes sure). */
static void set_field(struct mr_event *e, int c, uint64_t x)
{
	switch (c) {
	case MR_COL_TIME:
		e->time = x;
		break;
	case MR_COL_KIND:
		e->kind = (uint8_t)x;
		break;
	case MR_COL_PAGE:
		e->page = (uint32_t)x;
		break;
	case MR_COL_TASK:
		e->task = (uint32_t)x;
		break;
	case MR_COL_CPU:
		e->cpu = (uint16_t)x;
		break;
	case MR_COL_FLAGS:
		e->flags = (uint8_t)x;
		break;
	case MR_COL_SIZE:
		e->size = (uint32_t)x;
		break;
	default:
		e->arg = x;
		break;
	}
}

static void set_col(struct mr_event *ev, size_t n, int c, const uint64_t *v)
{
	for (size_t i = 0; i < n; i++)
		set_field(&ev[i], c, v[i]);
}

static void get_col(const struct mr_event *ev, size_t n, int c, uint64_t *v)
{
	for (size_t i = 0; i < n; i++)
		v[i] = get_field(&ev[i], c);
}

/* Events whose column c has shape shapes[c]. */
static void gen_events(struct mr_event *ev, size_t n, const int shapes[MR_COL_NR], uint64_t *tmp)
{
	memset(ev, 0, n * sizeof(*ev));
	for (int c = 0; c < MR_COL_NR; c++) {
		gen_column(tmp, n, shapes[c], field_max[c]);
		set_col(ev, n, c, tmp);
	}
}

/* Encode, decode, compare; and the encodings reported are what mr_col_choose picks. */
static size_t joint_cols; /* columns chunk_roundtrip() saw in a JOINT column */

static int chunk_roundtrip(struct bufs *b, const struct mr_event *ev, size_t n, const char *what)
{
	struct mr_error err = { 0 };
	struct mr_chunk_info info;
	size_t len = 0, got = 0;
	int rc, ok = 1;

	rc = mr_chunk_encode(ev, n, b->scratch, b->scratch_cap, b->blob, b->blob_cap, &len, &err);
	CHECK_EQ_U64(rc, 0);
	if (rc) {
		fprintf(stderr, "%s: n %zu: encode: %s\n", what, n, err.msg);
		return 0;
	}
	CHECK(len <= mr_chunk_bound(n));
	memset(b->out, 0x5a, n * sizeof(*b->out));
	rc = mr_chunk_decode(b->blob, len, b->scratch, b->scratch_cap, b->out, b->cap, &got,
			     &info, &err);
	CHECK_EQ_U64(rc, 0);
	CHECK_EQ_U64(got, n);
	if (rc || got != n || memcmp(b->out, ev, n * sizeof(*ev))) {
		fprintf(stderr, "%s: n %zu: round trip failed: %s\n", what, n, rc ? err.msg : "");
		CHECK(!"chunk round trip differs");
		ok = 0;
	}
	CHECK_EQ_U64(info.n_events, n);
	for (int c = 0; c < MR_COL_NR; c++) {
		enum mr_col_enc want;

		get_col(ev, n, c, b->col);
		want = mr_col_choose(b->col, n);
		if (want == MR_ENC_DBITS && c != MR_COL_TIME) {
			/* chunks use DBITS for time only: the smallest of the others */
			size_t cap = mr_col_bound(n), sz[MR_ENC_NR];
			uint8_t *tmp = xmalloc(cap);

			col_all_sizes(b->col, n, tmp, cap, sz);
			free(tmp);
			want = MR_ENC_CONST;
			for (int e = 1; e < MR_ENC_DBITS; e++)
				if (sz[e] < sz[want])
					want = (enum mr_col_enc)e;
		}
		if (info.enc[c] == MR_ENC_JOINT || info.enc[c] == MR_ENC_JOINED) {
			/* one of the small columns, varying, taken into the joint column
			 * (test_joint checks when) */
			joint_cols++;
			if (want != MR_ENC_CONST && c != MR_COL_TIME && c != MR_COL_PAGE &&
			    c != MR_COL_ARG)
				continue;
		}
		if (info.enc[c] != want) {
			fprintf(stderr, "%s: column %d encoded %u, expected %d\n", what, c,
				info.enc[c], want);
			CHECK(!"chunk column not in its chosen encoding");
		}
	}
	/* too little room for the events */
	if (n > 1)
		CHECK_EQ_U64(mr_chunk_decode(b->blob, len, b->scratch, b->scratch_cap, b->out, n - 1,
					     &got, NULL, NULL),
			     MR_ENOSPC);
	return ok;
}

static void test_chunk_roundtrip(void)
{
	static const size_t lens[] = { 1, 2, 3, 7, 255, 256, 257, 1000, 4097 };
	struct bufs b;
	struct mr_event *ev;
	uint64_t *tmp;
	int shapes[MR_COL_NR];
	char what[64];

	bufs_init(&b, MR_CHUNK_MAX_EVENTS);
	ev = xmalloc(MR_CHUNK_MAX_EVENTS * sizeof(*ev));
	tmp = xmalloc(MR_CHUNK_MAX_EVENTS * sizeof(*tmp));

	/* random shape per column, many lengths */
	for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
		for (int rep = 0; rep < 40; rep++) {
			for (int c = 0; c < MR_COL_NR; c++)
				shapes[c] = (int)(rnd() % SH_NR);
			gen_events(ev, lens[li], shapes, tmp);
			snprintf(what, sizeof(what), "mixed shapes rep %d", rep);
			chunk_roundtrip(&b, ev, lens[li], what);
		}
	}
	/* every column in the same shape, at the usual and the largest chunk sizes */
	for (int sh = 0; sh < SH_NR; sh++) {
		static const size_t big[] = { 16383, 16384, 65536 };

		for (int c = 0; c < MR_COL_NR; c++)
			shapes[c] = sh;
		for (size_t li = 0; li < 3; li++) {
			if (li == 2 && sh % 3)
				continue; /* keep the test quick: a third of the shapes at 64 Ki */
			gen_events(ev, big[li], shapes, tmp);
			chunk_roundtrip(&b, ev, big[li], shape_name[sh]);
		}
	}
	/* a typical access stream: time rising by small varying steps, skewed pages */
	{
		uint64_t t = 1000000;

		memset(ev, 0, 16384 * sizeof(*ev));
		for (size_t i = 0; i < 16384; i++) {
			uint64_t r = rnd();

			ev[i].time = t += 1 + r % 90;
			ev[i].page = (uint32_t)((r >> 8) % (1 + ((r >> 40) % 100000)));
			ev[i].task = 1;
			ev[i].flags = MR_ACC_FLAGS(MR_ACC_READ, MR_SRC_SYNTH);
		}
		chunk_roundtrip(&b, ev, 16384, "access stream");
	}
	CHECK(joint_cols > 0); /* some shapes were joined */
	free(ev);
	free(tmp);
	bufs_free(&b);
}

static void test_chunk_args(void)
{
	struct bufs b;
	struct mr_event ev[4];
	struct mr_error err = { 0 };
	size_t len, got;

	bufs_init(&b, 4);
	memset(ev, 0, sizeof(ev));
	CHECK_EQ_U64(mr_chunk_encode(ev, 0, b.scratch, b.scratch_cap, b.blob, b.blob_cap, &len,
				     &err),
		     MR_EINVAL);
	CHECK_EQ_U64(mr_chunk_encode(ev, MR_CHUNK_MAX_EVENTS + 1, b.scratch, b.scratch_cap, b.blob,
				     b.blob_cap, &len, &err),
		     MR_EINVAL);
	CHECK_EQ_U64(mr_chunk_encode(ev, 4, b.scratch, b.scratch_cap - 1, b.blob, b.blob_cap, &len,
				     &err),
		     MR_EINVAL);
	CHECK_EQ_U64(mr_chunk_encode(ev, 4, b.scratch, b.scratch_cap, b.blob, 17, &len, &err),
		     MR_ENOSPC);
	CHECK_EQ_U64(mr_chunk_encode(ev, 4, b.scratch, b.scratch_cap, b.blob, 10, &len, &err),
		     MR_ENOSPC);
	ev[2].kind = MR_EV_NR_KINDS;
	CHECK_EQ_U64(mr_chunk_encode(ev, 4, b.scratch, b.scratch_cap, b.blob, b.blob_cap, &len,
				     &err),
		     MR_EINVAL);
	CHECK(strstr(err.msg, "event 2") != NULL);
	ev[2].kind = MR_EV_EXIT;
	CHECK_EQ_U64(mr_chunk_encode(ev, 4, b.scratch, b.scratch_cap, b.blob, b.blob_cap, &len,
				     &err),
		     0);
	CHECK_EQ_U64(mr_chunk_decode(b.blob, len, b.scratch, b.scratch_cap, b.out, 3, &got, NULL,
				     &err),
		     MR_ENOSPC);
	CHECK_EQ_U64(mr_chunk_decode(b.blob, len, b.scratch, mr_chunk_scratch_size(4) - 1, b.out, 4,
				     &got, NULL, &err),
		     MR_EINVAL);
	CHECK_EQ_U64(mr_chunk_decode(b.blob, len, b.scratch, b.scratch_cap, b.out, 4, &got, NULL,
				     &err),
		     0);
	CHECK_EQ_U64(got, 4);
	CHECK(!memcmp(b.out, ev, sizeof(ev)));
	/* bounds are clamped, not zero, beyond the largest chunk */
	CHECK(mr_chunk_bound(MR_CHUNK_MAX_EVENTS + 5) == mr_chunk_bound(MR_CHUNK_MAX_EVENTS));
	CHECK(mr_chunk_scratch_size(1u << 30) == mr_chunk_scratch_size(MR_CHUNK_MAX_EVENTS));
	bufs_free(&b);

	/* the bound holds for the least compressible events there are */
	{
		size_t n = 4096;
		struct mr_chunk_info info;

		bufs_init(&b, n);
		struct mr_event *w = xmalloc(n * sizeof(*w));

		for (size_t i = 0; i < n; i++) {
			w[i].time = rnd() | 1ull << 63;
			w[i].arg = rnd() | 1ull << 63;
			w[i].page = (uint32_t)rnd() | 1u << 31;
			w[i].task = (uint32_t)rnd() | 1u << 31;
			w[i].size = (uint32_t)rnd() | 1u << 31;
			w[i].cpu = (uint16_t)rnd() | 1u << 15;
			w[i].kind = (uint8_t)(rnd() % MR_EV_NR_KINDS);
			w[i].flags = (uint8_t)rnd() | 0x80;
		}
		CHECK_EQ_U64(mr_chunk_encode(w, n, b.scratch, b.scratch_cap, b.blob, b.blob_cap, &len,
					     &err),
			     0);
		CHECK(len <= mr_chunk_bound(n));
		CHECK_EQ_U64(mr_chunk_peek(b.blob, len, &info, &err), 0);
		CHECK(info.payload_len >= 36 * n); /* near the worst: 41 bytes per event */
		CHECK_EQ_U64(mr_chunk_decode(b.blob, len, b.scratch, b.scratch_cap, b.out, n, &got,
					     NULL, &err),
			     0);
		CHECK(!memcmp(b.out, w, n * sizeof(*w)));
		free(w);
		bufs_free(&b);
	}
}

/*
 * Decode blob and require MR_ECORRUPT, or success with exactly the n events of ref.
 * Returns 1 when it decoded.
 */
static int decode_corrupt_or_same(struct bufs *b, const uint8_t *blob, size_t len,
				  const struct mr_event *ref, size_t n)
{
	struct mr_error err = { 0 };
	size_t got = 0;
	int rc = mr_chunk_decode(blob, len, b->scratch, b->scratch_cap, b->out, b->cap, &got, NULL,
				 &err);

	if (rc == 0) {
		CHECK(got == n && !memcmp(b->out, ref, n * sizeof(*ref)));
		return 1;
	}
	CHECK_EQ_U64(rc, MR_ECORRUPT);
	CHECK(err.msg[0] != 0);
	return 0;
}

static void damage_chunk(struct bufs *b, const struct mr_event *ev, size_t n, size_t flips,
			 size_t cuts, const char *what)
{
	struct mr_error err = { 0 };
	size_t len = 0, decoded = 0;
	uint8_t *copy;

	CHECK_EQ_U64(mr_chunk_encode(ev, n, b->scratch, b->scratch_cap, b->blob, b->blob_cap, &len,
				     &err),
		     0);
	copy = xmalloc(len);

	/* single bit flips: all of them, or a sample */
	for (size_t k = 0; k < (flips ? flips : len * 8); k++) {
		size_t bit = flips ? (size_t)(rnd() % (len * 8)) : k;

		memcpy(copy, b->blob, len);
		copy[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		decoded += decode_corrupt_or_same(b, copy, len, ev, n);
	}
	/* every truncation, or a sample */
	for (size_t k = 0; k < (cuts ? cuts : len); k++) {
		size_t cut = cuts ? (size_t)(rnd() % len) : k;

		memcpy(copy, b->blob, cut);
		CHECK(!decode_corrupt_or_same(b, copy, cut, ev, n));
	}
	/*
	 * A flip that decodes must have given the same events (checked above). The CRC
	 * covers header and payload, so only bits LZ4 ignores get here: the match-length
	 * nibble of the last sequence's token, which has literals only.
	 */
	if (decoded)
		printf("%s: %zu of the bit flips decoded to the same events\n", what, decoded);
	free(copy);
}

static void test_chunk_damage(void)
{
	struct bufs b;
	struct mr_event *ev;
	uint64_t *tmp;
	int shapes[MR_COL_NR];

	bufs_init(&b, 16384);
	ev = xmalloc(16384 * sizeof(*ev));
	tmp = xmalloc(16384 * sizeof(*tmp));

	/* small chunks: every bit and every length; all-CONST has no count in its payload */
	for (int rep = 0; rep < 4; rep++) {
		for (int c = 0; c < MR_COL_NR; c++)
			shapes[c] = rep == 0 ? SH_CONST : (int)(rnd() % SH_NR);
		gen_events(ev, 24, shapes, tmp);
		damage_chunk(&b, ev, 24, 0, 0, rep ? "small chunk" : "all-const chunk");
	}
	/* a large one: a sample */
	for (int c = 0; c < MR_COL_NR; c++)
		shapes[c] = (int)(rnd() % SH_NR);
	shapes[MR_COL_TIME] = SH_MONO;
	gen_events(ev, 16384, shapes, tmp);
	damage_chunk(&b, ev, 16384, 2000, 300, "large chunk");

	/* garbage: random bytes, random bytes behind a plausible header */
	for (int rep = 0; rep < 2000; rep++) {
		size_t len = (size_t)(rnd() % 300), got;
		uint8_t g[300];
		struct mr_error err = { 0 };
		int rc;

		for (size_t i = 0; i < len; i++)
			g[i] = (uint8_t)rnd();
		if (rep & 1 && len >= 16) {
			uint32_t n = 1 + (uint32_t)(rnd() % 64), plen = (uint32_t)(rnd() % 400);

			memcpy(g, MR_CHUNK_MAGIC, 4);
			memcpy(g + 4, &n, 4); /* test host is little-endian like the format */
			memcpy(g + 8, &plen, 4);
		}
		rc = mr_chunk_decode(g, len, b.scratch, b.scratch_cap, b.out, b.cap, &got, NULL, &err);
		CHECK_EQ_U64(rc, MR_ECORRUPT);
	}
	free(ev);
	free(tmp);
	bufs_free(&b);
}

/* ---- hand-crafted payloads: valid LZ4 and CRC around malformed columns ---- */

struct pay {
	uint8_t b[8192];
	size_t len;
};

static void pay_byte(struct pay *p, uint8_t x)
{
	p->b[p->len++] = x;
}

static void pay_varint(struct pay *p, uint64_t v)
{
	while (v >= 0x80) {
		pay_byte(p, (uint8_t)(v | 0x80));
		v >>= 7;
	}
	pay_byte(p, (uint8_t)v);
}

static void pay_bytes(struct pay *p, const void *src, size_t n)
{
	memcpy(p->b + p->len, src, n);
	p->len += n;
}

/* A column: enc, byte_len, bytes. */
static void pay_col(struct pay *p, uint8_t enc, const struct pay *data)
{
	pay_byte(p, enc);
	pay_varint(p, data->len);
	pay_bytes(p, data->b, data->len);
}

static void pay_const(struct pay *p, uint64_t v)
{
	struct pay d = { .len = 0 };

	pay_varint(&d, v);
	pay_col(p, MR_ENC_CONST, &d);
}

static void put_le32(uint8_t *p, uint32_t x)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(x >> (8 * i));
}

/* The blob for payload as the format defines it: header, CRC, LZ4. */
static size_t craft_blob(const struct pay *p, uint32_t n, uint8_t *out, size_t cap)
{
	int clen;

	memcpy(out, MR_CHUNK_MAGIC, 4);
	put_le32(out + 4, n);
	put_le32(out + 8, (uint32_t)p->len);
	put_le32(out + 12, mr_crc32c(mr_crc32c(0, out + 4, 8), p->b, p->len));
	clen = LZ4_compress_default((const char *)p->b, (char *)out + 16, (int)p->len,
				    (int)(cap - 16));
	if (clen <= 0) {
		fprintf(stderr, "LZ4 failed\n");
		exit(2);
	}
	return 16 + (size_t)clen;
}

/*
 * Payload of n events: time as given (enc + data), then the other columns CONST unless
 * col/enc/data override one of them.
 */
static void build(struct pay *p, int col, uint8_t enc, const struct pay *data)
{
	static const uint64_t cval[MR_COL_NR] = { 0, MR_EV_ACCESS, 5, 1, 0, 1, 0, 0 };

	p->len = 0;
	for (int c = 0; c < MR_COL_NR; c++) {
		if (c == col)
			pay_col(p, enc, data);
		else
			pay_const(p, c == MR_COL_TIME ? 1000 : cval[c]);
	}
}

/* A well-formed column of m small values (most fit every field) in enc. */
static void rand_column(struct pay *d, uint32_t m, uint8_t enc)
{
	uint64_t lim = rnd() & 1 ? 18 : 300;
	uint32_t left;

	d->len = 0;
	switch (enc) {
	case MR_ENC_CONST:
		pay_varint(d, rnd() % lim);
		break;
	case MR_ENC_VARINT:
	case MR_ENC_DELTA:
		for (uint32_t i = 0; i < m; i++)
			pay_varint(d, rnd() % (i || enc == MR_ENC_VARINT ? lim : 4 * lim));
		break;
	default:
		left = m;
		if (enc == MR_ENC_DELTA_RLE) {
			pay_varint(d, lim + rnd() % lim); /* room for small negative steps */
			left--;
		}
		while (left) {
			uint32_t run = 1 + (uint32_t)(rnd() % left);

			pay_varint(d, rnd() % (enc == MR_ENC_RLE ? lim : 3));
			pay_varint(d, run);
			left -= run;
		}
		break;
	}
}

static int decode_crafted(struct bufs *b, const struct pay *p, uint32_t n, struct mr_error *err)
{
	uint8_t *blob = xmalloc(LZ4_COMPRESSBOUND(sizeof(p->b)) + 16);
	size_t len = craft_blob(p, n, blob, LZ4_COMPRESSBOUND(sizeof(p->b)) + 16), got;
	int rc;

	memset(err, 0, sizeof(*err));
	rc = mr_chunk_decode(blob, len, b->scratch, b->scratch_cap, b->out, b->cap, &got, NULL, err);
	free(blob);
	return rc;
}

static void test_crafted(void)
{
	struct bufs b;
	struct pay p, d;
	struct mr_error err;
	const uint32_t n = 600; /* long enough for the word-at-a-time decoder */

	bufs_init(&b, 1024);

	/* the builder makes valid chunks */
	d.len = 0;
	for (uint32_t i = 0; i < n; i++)
		pay_varint(&d, 100000 + i * 1000);
	build(&p, MR_COL_TIME, MR_ENC_VARINT, &d);
	CHECK_EQ_U64(decode_crafted(&b, &p, n, &err), 0);
	CHECK_EQ_U64(b.out[599].time, 100000 + 599 * 1000);
	CHECK_EQ_U64(b.out[599].page, 5);
	/* ... and the same payload under a different n is corrupt (VARINT count) */
	CHECK_EQ_U64(decode_crafted(&b, &p, n - 1, &err), MR_ECORRUPT);
	CHECK_EQ_U64(decode_crafted(&b, &p, n + 1, &err), MR_ECORRUPT);

	/* varint overrun: the last varint of the column keeps its continuation bit */
	d.b[d.len - 1] |= 0x80;
	build(&p, MR_COL_TIME, MR_ENC_VARINT, &d);
	CHECK_EQ_U64(decode_crafted(&b, &p, n, &err), MR_ECORRUPT);
	CHECK(strstr(err.msg, "time") != NULL);
	/* an 11-byte varint in the middle of a long column */
	d.len = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (i == 300) {
			for (int k = 0; k < 10; k++)
				pay_byte(&d, 0x80);
			pay_byte(&d, 0);
		} else {
			pay_varint(&d, i);
		}
	}
	build(&p, MR_COL_TIME, MR_ENC_VARINT, &d);
	CHECK_EQ_U64(decode_crafted(&b, &p, n, &err), MR_ECORRUPT);
	/* a 10-byte varint beyond 2^64 - 1 in the middle of a long column */
	{
		size_t at = 0;

		d.len = 0;
		for (uint32_t i = 0; i < n; i++) {
			if (i == 300) {
				at = d.len;
				for (int k = 0; k < 9; k++)
					pay_byte(&d, 0xff);
				pay_byte(&d, 0x02);
			} else {
				pay_varint(&d, i);
			}
		}
		build(&p, MR_COL_ARG, MR_ENC_VARINT, &d);
		CHECK_EQ_U64(decode_crafted(&b, &p, n, &err), MR_ECORRUPT);
		CHECK(strstr(err.msg, "varint") != NULL);
		d.b[at + 9] = 0x01; /* the same at exactly 2^64 - 1 is fine */
	}
	build(&p, MR_COL_ARG, MR_ENC_VARINT, &d);
	CHECK_EQ_U64(decode_crafted(&b, &p, n, &err), 0);
	CHECK_EQ_U64(b.out[300].arg, UINT64_MAX);

	/* RLE totals other than n */
	for (int delta = 0; delta <= 1; delta++) {
		for (int off = -1; off <= 1; off++) {
			d.len = 0;
			if (delta)
				pay_varint(&d, 3); /* first value, then n - 1 by runs */
			pay_varint(&d, delta ? 2 : 3); /* value (or zigzag +1) */
			pay_varint(&d, 250);
			pay_varint(&d, delta ? 0 : 4);
			pay_varint(&d, (uint64_t)((int)n - 250 - delta + off));
			build(&p, MR_COL_PAGE, delta ? MR_ENC_DELTA_RLE : MR_ENC_RLE, &d);
			CHECK_EQ_U64(decode_crafted(&b, &p, n, &err), off ? MR_ECORRUPT : 0);
		}
	}
	/* run of length 0 */
	d.len = 0;
	pay_varint(&d, 3);
	pay_varint(&d, 0);
	pay_varint(&d, 3);
	pay_varint(&d, n);
	build(&p, MR_COL_PAGE, MR_ENC_RLE, &d);
	CHECK_EQ_U64(decode_crafted(&b, &p, n, &err), MR_ECORRUPT);

	/* values too large for their fields, in each encoding that can carry them */
	{
		static const struct {
			int col;
			uint64_t bad;
		} cases[] = {
			{ MR_COL_KIND, MR_EV_NR_KINDS }, { MR_COL_KIND, 200 },
			{ MR_COL_PAGE, 1ull << 32 },     { MR_COL_TASK, 1ull << 32 },
			{ MR_COL_SIZE, UINT64_MAX },     { MR_COL_CPU, 1u << 16 },
			{ MR_COL_FLAGS, 256 },
		};

		for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
			int col = cases[k].col;
			uint64_t bad = cases[k].bad, good = bad - 1 < 17 ? bad - 1 : 17;

			d.len = 0;
			pay_varint(&d, bad);
			build(&p, col, MR_ENC_CONST, &d);
			CHECK_EQ_U64(decode_crafted(&b, &p, n, &err), MR_ECORRUPT);
			CHECK(strstr(err.msg, "too large") != NULL);

			/* VARINT: one bad value among good ones, late in the column */
			d.len = 0;
			for (uint32_t i = 0; i < n; i++)
				pay_varint(&d, i == 555 ? bad : good);
			build(&p, col, MR_ENC_VARINT, &d);
			CHECK_EQ_U64(decode_crafted(&b, &p, n, &err), MR_ECORRUPT);

			/* RLE */
			d.len = 0;
			pay_varint(&d, good);
			pay_varint(&d, n - 1);
			pay_varint(&d, bad);
			pay_varint(&d, 1);
			build(&p, col, MR_ENC_RLE, &d);
			CHECK_EQ_U64(decode_crafted(&b, &p, n, &err), MR_ECORRUPT);

			/* DELTA: climbs past the field's maximum */
			d.len = 0;
			pay_varint(&d, good);
			for (uint32_t i = 1; i < n; i++)
				pay_varint(&d, i == 400 ? (bad - good) * 2 : 0);
			build(&p, col, MR_ENC_DELTA, &d);
			CHECK_EQ_U64(decode_crafted(&b, &p, n, &err), MR_ECORRUPT);

			/* DELTA_RLE: a run that climbs past it */
			d.len = 0;
			pay_varint(&d, good);
			pay_varint(&d, 0);
			pay_varint(&d, 300);
			pay_varint(&d, (bad - good) * 2);
			pay_varint(&d, 1);
			pay_varint(&d, 0);
			pay_varint(&d, n - 302);
			build(&p, col, MR_ENC_DELTA_RLE, &d);
			CHECK_EQ_U64(decode_crafted(&b, &p, n, &err), MR_ECORRUPT);
		}
	}
	/*
	 * Short DELTA_RLE runs are stored by a fixed number of stores, past the run's end;
	 * only the run's own values are range-checked: kind 0, 17, 0, 17, ... is valid
	 * although 17 + 17 is not a kind.
	 */
	d.len = 0;
	pay_varint(&d, 0);
	for (uint32_t i = 1; i < n; i++) {
		pay_varint(&d, i & 1 ? 34 : 33); /* zigzag +17, -17 */
		pay_varint(&d, 1);
	}
	build(&p, MR_COL_KIND, MR_ENC_DELTA_RLE, &d);
	CHECK_EQ_U64(decode_crafted(&b, &p, n, &err), 0);
	CHECK_EQ_U64(b.out[1].kind, 17);
	CHECK_EQ_U64(b.out[598].kind, 0);
	CHECK_EQ_U64(b.out[599].kind, 17);

	/* a page id past u32 reached by a negative (wrapping) delta */
	d.len = 0;
	pay_varint(&d, 0);
	pay_varint(&d, 1); /* zigzag -1: 0 - 1 wraps to 2^64 - 1 */
	for (uint32_t i = 2; i < n; i++)
		pay_varint(&d, 0);
	build(&p, MR_COL_PAGE, MR_ENC_DELTA, &d);
	CHECK_EQ_U64(decode_crafted(&b, &p, n, &err), MR_ECORRUPT);

	/* framing: unknown encoding, byte_len past the payload, trailing bytes, missing column */
	d.len = 0;
	pay_varint(&d, 7);
	build(&p, MR_COL_TASK, MR_ENC_NR, &d);
	CHECK_EQ_U64(decode_crafted(&b, &p, n, &err), MR_ECORRUPT);
	build(&p, -1, 0, NULL);
	CHECK_EQ_U64(decode_crafted(&b, &p, n, &err), 0);
	p.b[p.len - 1 - 1] = 3; /* arg's byte_len 1 -> 3 */
	CHECK_EQ_U64(decode_crafted(&b, &p, n, &err), MR_ECORRUPT);
	build(&p, -1, 0, NULL);
	pay_byte(&p, 0);
	CHECK_EQ_U64(decode_crafted(&b, &p, n, &err), MR_ECORRUPT);
	build(&p, -1, 0, NULL);
	p.len -= 3; /* no arg column */
	CHECK_EQ_U64(decode_crafted(&b, &p, n, &err), MR_ECORRUPT);
	/* CONST with a byte after its value */
	d.len = 0;
	pay_varint(&d, 7);
	pay_byte(&d, 0);
	build(&p, MR_COL_TASK, MR_ENC_CONST, &d);
	CHECK_EQ_U64(decode_crafted(&b, &p, n, &err), MR_ECORRUPT);
	/*
	 * Random columns behind a valid LZ4 block and CRC, mostly well formed with small
	 * values, some with a byte changed: each decodes to MR_ECORRUPT, or to valid events
	 * (they encode again and round-trip).
	 */
	for (int rep = 0, parsed = 0; rep < 3000; rep++) {
		uint32_t m = 1 + (uint32_t)(rnd() % 40);
		int rc;

		p.len = 0;
		for (int c = 0; c < MR_COL_NR; c++) {
			uint8_t enc = (uint8_t)(rnd() % MR_ENC_NR);

			rand_column(&d, m, enc);
			if (rnd() % 16 == 0 && d.len)
				d.b[rnd() % d.len] = (uint8_t)rnd();
			pay_col(&p, rnd() % 64 ? enc : (uint8_t)(rnd() % 256), &d);
		}
		rc = decode_crafted(&b, &p, m, &err);
		CHECK(rc == 0 || rc == MR_ECORRUPT);
		if (rc == 0) {
			struct mr_event copy[40];

			memcpy(copy, b.out, m * sizeof(*copy));
			chunk_roundtrip(&b, copy, m, "random payload that parsed");
			parsed++;
		}
		if (rep == 2999)
			printf("random payloads: %d of 3000 decoded\n", parsed);
	}

	/* the header's payload_len must be what LZ4 gives back */
	{
		uint8_t blob[256];
		size_t len, got;

		build(&p, -1, 0, NULL);
		len = craft_blob(&p, n, blob, sizeof(blob));
		put_le32(blob + 8, (uint32_t)p.len + 1);
		CHECK_EQ_U64(mr_chunk_decode(blob, len, b.scratch, b.scratch_cap, b.out, b.cap, &got,
					     NULL, &err),
			     MR_ECORRUPT);
		put_le32(blob + 8, (uint32_t)p.len - 1);
		CHECK_EQ_U64(mr_chunk_decode(blob, len, b.scratch, b.scratch_cap, b.out, b.cap, &got,
					     NULL, &err),
			     MR_ECORRUPT);
		put_le32(blob + 8, (uint32_t)p.len);
		put_le32(blob + 4, 0);
		CHECK_EQ_U64(mr_chunk_peek(blob, len, NULL, &err), MR_ECORRUPT);
		put_le32(blob + 4, MR_CHUNK_MAX_EVENTS + 1);
		CHECK_EQ_U64(mr_chunk_peek(blob, len, NULL, &err), MR_ECORRUPT);
	}
	bufs_free(&b);
}

/*
 * The version-2 encodings on the shapes they exist for: recorded fault streams, where
 * timestamps jitter by microseconds (DBITS: packed bits, outliers escaped) and the
 * fault address alternates with the 0 of the access event after it (NZDELTA); their
 * size bounds, and damage that a count or a field limit must catch.
 */
static void test_col_v2(void)
{
	enum { N = 4096 };
	static uint64_t t[N], a[N], out[N + 1];
	static uint8_t buf[N * 11 + 16];
	size_t len, lt;
	uint64_t now = 1000000;

	for (size_t i = 0; i < N; i += 2) {
		uint64_t d = 2500 + rnd() % 1200;

		if (i % 128 == 64)
			d += 6000 + rnd() % 100000; /* an outlier: a page zeroing, a preemption */
		now += d;
		t[i] = t[i + 1] = now;      /* the fault and its access share a timestamp */
		a[i] = 0x7f0000000000ull + (i / 2) * 4096 + (rnd() % 4096);
		a[i + 1] = 0;
	}
	CHECK_EQ_U64(mr_col_choose(t, N), MR_ENC_DBITS);
	CHECK_EQ_U64(mr_col_encode(t, N, MR_ENC_DBITS, buf, sizeof(buf), &lt), 0);
	/* about 1 bit of zero map and 12 of jitter per pair, 2 bytes per outlier */
	if (lt >= N * 9 / 10)
		fprintf(stderr, "DBITS of the timestamps: %zu bytes\n", lt);
	CHECK(lt < N * 9 / 10);
	CHECK_EQ_U64(mr_col_decode(buf, lt, MR_ENC_DBITS, out, N), 0);
	CHECK(!memcmp(out, t, sizeof(t)));
	CHECK_EQ_U64(mr_col_decode(buf, lt, MR_ENC_DBITS, out, N - 1), MR_ECORRUPT);
	CHECK_EQ_U64(mr_col_decode(buf, lt, MR_ENC_DBITS, out, N + 1), MR_ECORRUPT);
	CHECK_EQ_U64(mr_col_decode(buf, lt - 1, MR_ENC_DBITS, out, N), MR_ECORRUPT);

	CHECK_EQ_U64(mr_col_choose(a, N), MR_ENC_NZDELTA);
	CHECK_EQ_U64(mr_col_encode(a, N, MR_ENC_NZDELTA, buf, sizeof(buf), &len), 0);
	CHECK(len <= N / 2 * 3 + N / 2); /* 2-byte varint per address, 1 byte per 0 */
	CHECK_EQ_U64(mr_col_decode(buf, len, MR_ENC_NZDELTA, out, N), 0);
	CHECK(!memcmp(out, a, sizeof(a)));
	CHECK_EQ_U64(mr_col_decode(buf, len - 1, MR_ENC_NZDELTA, out, N), MR_ECORRUPT);
	CHECK_EQ_U64(mr_col_decode(buf, len, MR_ENC_NZDELTA, out, N + 1), MR_ECORRUPT);

	/* every width: values 0..2^w spread over a group, and full-range u64 deltas */
	for (unsigned w = 0; w <= 64; w++) {
		uint64_t v[65];

		v[0] = rnd();
		for (int i = 1; i < 65; i++)
			v[i] = v[i - 1] + (w == 64 ? rnd() : (rnd() & (w ? (1ull << w) - 1 : 0)) * (i & 1));
		CHECK_EQ_U64(mr_col_encode(v, 65, MR_ENC_DBITS, buf, sizeof(buf), &len), 0);
		CHECK(len <= mr_col_bound(65));
		CHECK_EQ_U64(mr_col_decode(buf, len, MR_ENC_DBITS, out, 65), 0);
		CHECK(!memcmp(out, v, sizeof(v)));
	}

	/* hand-made damage behind a valid count: base 0, width 65, a short outlier */
	{
		/* v0 = 5, 1 delta; bitmap 01; base 0 */
		static const uint8_t base0[] = { 5, 1, 0x01, 0, 3, 0x01 };
		/* bitmap 01, base 1, width 65 */
		static const uint8_t w65[] = { 5, 1, 0x01, 1, 65, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
		/* width 2, packed 11 = escape, then a cut varint */
		static const uint8_t esc[] = { 5, 1, 0x01, 1, 2, 0x03, 0x80 };
		/* a bitmap bit past the one delta */
		static const uint8_t past[] = { 5, 1, 0x03, 1, 0, };

		CHECK_EQ_U64(mr_col_decode(base0, sizeof(base0), MR_ENC_DBITS, out, 2), MR_ECORRUPT);
		CHECK_EQ_U64(mr_col_decode(w65, sizeof(w65), MR_ENC_DBITS, out, 2), MR_ECORRUPT);
		CHECK_EQ_U64(mr_col_decode(esc, sizeof(esc), MR_ENC_DBITS, out, 2), MR_ECORRUPT);
		CHECK_EQ_U64(mr_col_decode(past, sizeof(past), MR_ENC_DBITS, out, 2), MR_ECORRUPT);
	}
	mr_test_checks++;
}

/*
 * DBITS read the slow way, one bit at a time, from docs/store-format.md alone: the
 * reference the codec's decoder (a word-at-a-time path for whole groups, a checked
 * loop for the rest) must agree with on every input, valid or not. 0 or MR_ECORRUPT.
 */
static int ref_varint(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
	const uint8_t *p = *pp;

	*v = 0;
	for (unsigned i = 0; i < 10; i++) {
		if (p == end || (i == 9 && *p > 1))
			return MR_ECORRUPT;
		*v |= (uint64_t)(*p & 0x7f) << (7 * i);
		if (*p++ < 0x80) {
			*pp = p;
			return 0;
		}
	}
	return MR_ECORRUPT;
}

static int ref_dbits(const uint8_t *in, size_t len, uint64_t *out, size_t n)
{
	const uint8_t *p = in, *end = in + len;
	uint64_t val, cnt;
	size_t i = 1;

	if (ref_varint(&p, end, &val) || ref_varint(&p, end, &cnt) || cnt >> 1 != n - 1)
		return MR_ECORRUPT;
	out[0] = val;
	while (i < n) {
		size_t g = n - i < 64 ? n - i : 64, k = 0, pos = 0;
		uint64_t map = 0, base = 0, w = 0;
		const uint8_t *bits, *ep;

		for (size_t b = 0; b < (g + 7) / 8; b++) {
			if (p == end)
				return MR_ECORRUPT;
			map |= (uint64_t)*p++ << (8 * b);
		}
		for (size_t j = 0; j < 64; j++)
			if (map >> j & 1) {
				if (j >= g)
					return MR_ECORRUPT;
				k++;
			}
		if (k) {
			if (ref_varint(&p, end, &base) || !base || p == end)
				return MR_ECORRUPT;
			w = *p++;
			if (w > 64 || (size_t)(end - p) < (k * w + 7) / 8)
				return MR_ECORRUPT;
		}
		bits = p;
		ep = p + (k * w + 7) / 8;
		for (size_t j = 0; j < g; j++, i++) {
			uint64_t z = 0;

			if (map >> j & 1) {
				uint64_t x = 0;

				for (unsigned b = 0; b < w; b++, pos++)
					x |= (uint64_t)(bits[pos / 8] >> (pos % 8) & 1) << b;
				if (w < 64 && x == (1ull << w) - 1) {
					uint64_t more;

					if (ref_varint(&ep, end, &more) || more > UINT64_MAX - x)
						return MR_ECORRUPT;
					x += more;
				}
				if (x > UINT64_MAX - base)
					return MR_ECORRUPT;
				z = base + x;
			}
			val += (cnt & 1) ? z : (z >> 1) ^ (0 - (z & 1));
			out[i] = val;
		}
		p = ep;
	}
	return p == end ? 0 : MR_ECORRUPT;
}

/*
 * DBITS columns of many whole groups - the decoder's word-at-a-time path - at every
 * width, with zero deltas, outliers (escapes) and decreasing values, decode to what
 * was encoded and to what the reference reads; then the same bytes cut short and
 * garbled must give the reference's answer too: MR_ECORRUPT, or exactly its values.
 */
static void test_dbits_groups(void)
{
	enum { N = 64 * 12 + 1 };
	static uint64_t v[N], out[N], ref[N];
	static uint8_t buf[N * 11 + 16], bad[N * 11 + 16];
	size_t len;

	for (unsigned w = 0; w <= 60; w++) {
		for (int shape = 0; shape < 4; shape++) {
			uint64_t spread = w ? (w >= 64 ? ~0ull : (1ull << w) - 1) : 0;

			v[0] = rnd() >> (shape & 1 ? 1 : 8);
			for (size_t i = 1; i < N; i++) {
				uint64_t d = 1000 + (rnd() & spread);

				if (shape >= 2 && rnd() % 3 == 0)
					d = 0; /* events that share a timestamp */
				if (rnd() % 50 == 0)
					d += rnd() >> (rnd() % 64); /* an outlier */
				/* shape 1 and 3: some steps go back (zigzagged deltas) */
				v[i] = (shape & 1) && rnd() % 4 == 0 ? v[i - 1] - d / 2 : v[i - 1] + d;
			}
			CHECK_EQ_U64(mr_col_encode(v, N, MR_ENC_DBITS, buf, sizeof(buf), &len), 0);
			CHECK_EQ_U64(mr_col_decode(buf, len, MR_ENC_DBITS, out, N), 0);
			CHECK(!memcmp(out, v, sizeof(v)));
			CHECK_EQ_U64(ref_dbits(buf, len, ref, N), 0);
			CHECK(!memcmp(ref, v, sizeof(v)));

			for (int t = 0; t < 24; t++) {
				size_t l = len;
				int want, got;

				memcpy(bad, buf, len);
				if (t % 3 == 0)
					l = (size_t)(rnd() % len); /* cut short */
				for (int f = 0; f < 1 + t % 4; f++)
					bad[rnd() % len] ^= (uint8_t)(1u << (rnd() % 8));
				/* a copy of exactly l bytes: ASan sees any read past the end */
				{
					uint8_t *exact = xmalloc(l);

					memcpy(exact, bad, l);
					want = ref_dbits(exact, l, ref, N);
					got = mr_col_decode(exact, l, MR_ENC_DBITS, out, N);
					free(exact);
				}
				CHECK_EQ_U64(got, want);
				if (!want && !got)
					CHECK(!memcmp(out, ref, sizeof(v)));
			}
		}
	}
	/* an escape whose excess wraps u64, with room for whole-word loads behind it */
	{
		/* v0 = 5, one delta (m = 1); bitmap 01, base 1, width 1, bits 1 = escape,
		 * excess 2^64 - 1: 1 + 1 + excess wraps */
		static const uint8_t wrap[] = { 5, 3, 0x01, 1, 1, 0x01, 0xff, 0xff, 0xff, 0xff,
						0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
		/* the same with excess 2^64 - 3: 1 + 1 + excess = 2^64 - 1, no wrap */
		static const uint8_t edge[] = { 5, 3, 0x01, 1, 1, 0x01, 0xfd, 0xff, 0xff, 0xff,
						0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };

		CHECK_EQ_U64(ref_dbits(wrap, sizeof(wrap), ref, 2), MR_ECORRUPT);
		CHECK_EQ_U64(mr_col_decode(wrap, sizeof(wrap), MR_ENC_DBITS, out, 2), MR_ECORRUPT);
		CHECK_EQ_U64(ref_dbits(edge, sizeof(edge), ref, 2), 0);
		CHECK_EQ_U64(mr_col_decode(edge, sizeof(edge), MR_ENC_DBITS, out, 2), 0);
		CHECK_EQ_U64(out[1], 5 + UINT64_MAX); /* the delta 2^64 - 1 wraps the value */
	}
	mr_test_checks++;
}

/*
 * JOINT (format version 3): the small columns kind, task, cpu, flags and size as one
 * column of tuple indices. Which index layout is used, when the encoder takes it or
 * leaves it, and every malformed form the decoder must refuse.
 */
static int chunk_encs(struct bufs *b, const struct mr_event *ev, size_t n, uint8_t enc[MR_COL_NR])
{
	struct mr_error err = { 0 };
	struct mr_chunk_info info;
	size_t len = 0, got = 0;

	if (mr_chunk_encode(ev, n, b->scratch, b->scratch_cap, b->blob, b->blob_cap, &len, &err) ||
	    mr_chunk_decode(b->blob, len, b->scratch, b->scratch_cap, b->out, b->cap, &got, &info,
			    &err) ||
	    got != n || memcmp(b->out, ev, n * sizeof(*ev))) {
		fprintf(stderr, "joint round trip failed: %s\n", err.msg);
		CHECK(!"joint round trip");
		return -1;
	}
	memcpy(enc, info.enc, MR_COL_NR);
	return 0;
}

/* n events cycling through t tuples of (kind, flags, size) in runs of run events, with
 * task and cpu constant unless vary_task; pages and times vary. */
static void joint_events(struct mr_event *ev, size_t n, unsigned t, size_t run, int vary_task)
{
	memset(ev, 0, n * sizeof(*ev));
	for (size_t i = 0; i < n; i++) {
		unsigned k = (unsigned)((i / run) % t);

		ev[i].time = 1000 + i * 7;
		ev[i].page = (uint32_t)(rnd() % 100000);
		ev[i].kind = (uint8_t)(k % 2 ? MR_EV_FD_ACCESS : MR_EV_ACCESS);
		ev[i].flags = (uint8_t)(k % 7);
		ev[i].size = k;
		ev[i].task = vary_task ? 1 + (uint32_t)(k % 3) : 1;
		ev[i].cpu = 3;
	}
}

static void test_joint(void)
{
	struct bufs b;
	struct mr_event *ev = xmalloc(MR_CHUNK_MAX_EVENTS * sizeof(*ev));
	uint8_t enc[MR_COL_NR];
	struct pay p, d;
	struct mr_error err;

	bufs_init(&b, MR_CHUNK_MAX_EVENTS);
	/* every index width, from 2 tuples (1 bit) to 256 (8 bits), in chunks that do and do
	 * not fill their last byte; each round-trips with kind and flags joined (size, a
	 * count up the tuples, is smaller in its own DELTA_RLE at some widths) */
	{
		static const unsigned tuples[] = { 2, 3, 4, 5, 16, 17, 200, 256 };
		static const size_t lens[] = { 7, 512, 513, 16384, 65536 };

		for (size_t a = 0; a < sizeof(tuples) / sizeof(tuples[0]); a++)
			for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
				size_t n = lens[l];

				joint_events(ev, n, tuples[a], 1, a % 2);
				if (chunk_encs(&b, ev, n, enc))
					continue;
				if (n < 100)
					continue; /* a short chunk may keep its own columns */
				CHECK_EQ_U64(enc[MR_COL_KIND], MR_ENC_JOINT);
				CHECK_EQ_U64(enc[MR_COL_FLAGS], MR_ENC_JOINED);
				CHECK_EQ_U64(enc[MR_COL_CPU], MR_ENC_CONST);
				CHECK_EQ_U64(enc[MR_COL_PAGE] == MR_ENC_JOINED, 0);
			}
	}
	/* more than 256 tuples of all five: task and size leave the joint column */
	joint_events(ev, 16384, 256, 1, 0);
	for (size_t i = 0; i < 16384; i++)
		ev[i].task = 1 + (uint32_t)(i % 300);
	if (!chunk_encs(&b, ev, 16384, enc)) {
		CHECK_EQ_U64(enc[MR_COL_TASK] == MR_ENC_JOINT || enc[MR_COL_TASK] == MR_ENC_JOINED, 0);
		CHECK_EQ_U64(enc[MR_COL_KIND], MR_ENC_JOINT);
	}
	/* long runs: runs of indices, or the members' own runs, whichever is smaller; both
	 * decode to the same events */
	joint_events(ev, 16384, 5, 1000, 1);
	chunk_encs(&b, ev, 16384, enc);
	/* one varying small column alone is never joined */
	joint_events(ev, 16384, 1, 1, 0);
	for (size_t i = 0; i < 16384; i++)
		ev[i].flags = (uint8_t)(i % 3);
	if (!chunk_encs(&b, ev, 16384, enc))
		for (int c = 0; c < MR_COL_NR; c++)
			CHECK_EQ_U64(enc[c] >= MR_ENC_NR, 0);

	/*
	 * Crafted: n = 10 events, time CONST 1000, kind (member) + flags (member) joined,
	 * the rest CONST; tuples (access, 1) and (fd_access, 2), indices 0101010101.
	 */
#define JOINT_BUILD(body_stmts, flags_enc, flags_len)                                  \
	do {                                                                           \
		p.len = 0;                                                             \
		pay_const(&p, 1000);                                                   \
		d.len = 0;                                                             \
		body_stmts;                                                            \
		pay_col(&p, MR_ENC_JOINT, &d);                                         \
		pay_const(&p, 5);                                                      \
		pay_const(&p, 1);                                                      \
		pay_const(&p, 0);                                                      \
		pay_byte(&p, flags_enc);                                               \
		pay_varint(&p, flags_len);                                             \
		for (int z_ = 0; z_ < (flags_len); z_++)                               \
			pay_byte(&p, 0);                                               \
		pay_const(&p, 0);                                                      \
		pay_const(&p, 0);                                                      \
	} while (0)
#define JOINT_GOOD_HEAD()                                                               \
	pay_byte(&d, 1u << MR_COL_KIND | 1u << MR_COL_FLAGS);                          \
	pay_varint(&d, 2);                                                             \
	pay_varint(&d, MR_EV_ACCESS);                                                  \
	pay_varint(&d, 1);                                                             \
	pay_varint(&d, MR_EV_FD_ACCESS);                                               \
	pay_varint(&d, 2)

	JOINT_BUILD(JOINT_GOOD_HEAD(); pay_byte(&d, 1); pay_byte(&d, 0xaa); pay_byte(&d, 0x02),
		    MR_ENC_JOINED, 0);
	CHECK_EQ_U64(decode_crafted(&b, &p, 10, &err), 0);
	for (int i = 0; i < 10; i++) {
		CHECK_EQ_U64(b.out[i].kind, i % 2 ? MR_EV_FD_ACCESS : MR_EV_ACCESS);
		CHECK_EQ_U64(b.out[i].flags, i % 2 ? 2 : 1);
		CHECK_EQ_U64(b.out[i].page, 5);
		CHECK_EQ_U64(b.out[i].task, 1);
		CHECK_EQ_U64(b.out[i].time, 1000);
	}
	/* the same as runs: (0, 3) (1, 7) */
	JOINT_BUILD(JOINT_GOOD_HEAD(); pay_byte(&d, 0); pay_varint(&d, 0); pay_varint(&d, 3);
		    pay_varint(&d, 1); pay_varint(&d, 7), MR_ENC_JOINED, 0);
	CHECK_EQ_U64(decode_crafted(&b, &p, 10, &err), 0);
	CHECK_EQ_U64(b.out[2].kind, MR_EV_ACCESS);
	CHECK_EQ_U64(b.out[3].kind, MR_EV_FD_ACCESS);
	CHECK_EQ_U64(b.out[9].flags, 2);

	/* a varying column decoded before the joint one (kind, in runs) is kept: the joint
	 * column of flags and size merges its tuples under their bytes only */
	p.len = 0;
	pay_const(&p, 1000);
	d.len = 0;
	pay_varint(&d, MR_EV_ACCESS);
	pay_varint(&d, 5);
	pay_varint(&d, MR_EV_FD_ACCESS);
	pay_varint(&d, 5);
	pay_col(&p, MR_ENC_RLE, &d);
	pay_const(&p, 5);
	pay_const(&p, 1);
	pay_const(&p, 0);
	d.len = 0;
	pay_byte(&d, 1u << MR_COL_FLAGS | 1u << MR_COL_SIZE);
	pay_varint(&d, 2);
	pay_varint(&d, 1);
	pay_varint(&d, 7);
	pay_varint(&d, 2);
	pay_varint(&d, 9);
	pay_byte(&d, 1);
	pay_byte(&d, 0xaa);
	pay_byte(&d, 0x02);
	pay_col(&p, MR_ENC_JOINT, &d);
	pay_byte(&p, MR_ENC_JOINED);
	pay_varint(&p, 0);
	pay_const(&p, 0);
	CHECK_EQ_U64(decode_crafted(&b, &p, 10, &err), 0);
	for (int i = 0; i < 10; i++) {
		CHECK_EQ_U64(b.out[i].kind, i < 5 ? MR_EV_ACCESS : MR_EV_FD_ACCESS);
		CHECK_EQ_U64(b.out[i].flags, i % 2 ? 2 : 1);
		CHECK_EQ_U64(b.out[i].size, i % 2 ? 9 : 7);
		CHECK_EQ_U64(b.out[i].cpu, 0);
		CHECK_EQ_U64(b.out[i].task, 1);
	}

	/* refused, each naming the column */
	{
		static const char *const bad_why[] = {
			"member mask", "member mask", "member mask", "tuples", "tuples",
			"too large", "width", "index width reaches", "packed index",
			"padding", "beyond its tuples", "more events", "run of 0",
			"beyond its tuples", "fewer events", "not joined", "holds bytes",
			"no joint column",
		};
		for (int k = 0; k < (int)(sizeof(bad_why) / sizeof(bad_why[0])); k++) {
			uint8_t fenc = MR_ENC_JOINED;
			int flen = 0;

#define HEAD_MASK(m)                                                                   \
	pay_byte(&d, m);                                                               \
	pay_varint(&d, 2);                                                             \
	pay_varint(&d, 0);                                                             \
	pay_varint(&d, 1);                                                             \
	pay_varint(&d, 1);                                                             \
	pay_varint(&d, 2)
			switch (k) {
			case 0: /* the page column is no member */
				JOINT_BUILD(HEAD_MASK(1u << MR_COL_KIND | 1u << MR_COL_PAGE);
					    pay_byte(&d, 1); pay_byte(&d, 0xaa); pay_byte(&d, 2),
					    fenc, flen);
				break;
			case 1: /* one member only */
				JOINT_BUILD(pay_byte(&d, 1u << MR_COL_KIND); pay_varint(&d, 1);
					    pay_varint(&d, 0); pay_byte(&d, 1); pay_byte(&d, 0);
					    pay_byte(&d, 0), fenc, flen);
				break;
			case 2: /* its own column not the lowest member */
				JOINT_BUILD(HEAD_MASK(1u << MR_COL_FLAGS | 1u << MR_COL_SIZE);
					    pay_byte(&d, 1); pay_byte(&d, 0xaa); pay_byte(&d, 2),
					    fenc, flen);
				break;
			case 3: /* no tuple */
				JOINT_BUILD(pay_byte(&d, 1u << MR_COL_KIND | 1u << MR_COL_FLAGS);
					    pay_varint(&d, 0); pay_byte(&d, 0), fenc, flen);
				break;
			case 4: /* 257 tuples */
				JOINT_BUILD(pay_byte(&d, 1u << MR_COL_KIND | 1u << MR_COL_FLAGS);
					    pay_varint(&d, 257); for (int e = 0; e < 20; e++) {
						    pay_varint(&d, 0);
						    pay_varint(&d, e);
					    } pay_byte(&d, 8);
					    for (int e = 0; e < 10; e++) pay_byte(&d, 0), fenc, flen);
				break;
			case 5: /* a kind no event has */
				JOINT_BUILD(pay_byte(&d, 1u << MR_COL_KIND | 1u << MR_COL_FLAGS);
					    pay_varint(&d, 2); pay_varint(&d, 0); pay_varint(&d, 1);
					    pay_varint(&d, 200); pay_varint(&d, 2); pay_byte(&d, 1);
					    pay_byte(&d, 0xaa); pay_byte(&d, 2), fenc, flen);
				break;
			case 6: /* 3-bit indices */
				JOINT_BUILD(JOINT_GOOD_HEAD(); pay_byte(&d, 3);
					    for (int e = 0; e < 4; e++) pay_byte(&d, 0), fenc, flen);
				break;
			case 7: /* 2 tuples... claimed, 3 reached by 1-bit indices: d > 2^w */
				JOINT_BUILD(pay_byte(&d, 1u << MR_COL_KIND | 1u << MR_COL_FLAGS);
					    pay_varint(&d, 3);
					    for (int e = 0; e < 6; e++) pay_varint(&d, e % 2);
					    pay_byte(&d, 1); pay_byte(&d, 0xaa); pay_byte(&d, 2),
					    fenc, flen);
				break;
			case 8: /* one byte short of ten 1-bit indices */
				JOINT_BUILD(JOINT_GOOD_HEAD(); pay_byte(&d, 1); pay_byte(&d, 0xaa),
					    fenc, flen);
				break;
			case 9: /* padding bits after the tenth index */
				JOINT_BUILD(JOINT_GOOD_HEAD(); pay_byte(&d, 1); pay_byte(&d, 0xaa);
					    pay_byte(&d, 0x06), fenc, flen);
				break;
			case 10: /* 2-bit index 3 of 2 tuples */
				JOINT_BUILD(JOINT_GOOD_HEAD(); pay_byte(&d, 2); pay_byte(&d, 0x0c);
					    pay_byte(&d, 0); pay_byte(&d, 0), fenc, flen);
				break;
			case 11: /* runs over the chunk */
				JOINT_BUILD(JOINT_GOOD_HEAD(); pay_byte(&d, 0); pay_varint(&d, 0);
					    pay_varint(&d, 11), fenc, flen);
				break;
			case 12: /* a run of 0 */
				JOINT_BUILD(JOINT_GOOD_HEAD(); pay_byte(&d, 0); pay_varint(&d, 0);
					    pay_varint(&d, 0); pay_varint(&d, 1); pay_varint(&d, 10),
					    fenc, flen);
				break;
			case 13: /* a run's index beyond the tuples */
				JOINT_BUILD(JOINT_GOOD_HEAD(); pay_byte(&d, 0); pay_varint(&d, 2);
					    pay_varint(&d, 10), fenc, flen);
				break;
			case 14: /* runs that stop short */
				JOINT_BUILD(JOINT_GOOD_HEAD(); pay_byte(&d, 0); pay_varint(&d, 1);
					    pay_varint(&d, 9), fenc, flen);
				break;
			case 15: /* the flags member in its own encoding */
				JOINT_BUILD(JOINT_GOOD_HEAD(); pay_byte(&d, 1); pay_byte(&d, 0xaa);
					    pay_byte(&d, 2), MR_ENC_CONST, 1);
				break;
			case 16: /* a joined column with bytes */
				JOINT_BUILD(JOINT_GOOD_HEAD(); pay_byte(&d, 1); pay_byte(&d, 0xaa);
					    pay_byte(&d, 2), MR_ENC_JOINED, 1);
				break;
			default: /* joined with no joint column: kind in its own encoding */
				p.len = 0;
				pay_const(&p, 1000);
				pay_const(&p, MR_EV_ACCESS);
				for (int c = MR_COL_PAGE; c < MR_COL_NR; c++) {
					if (c == MR_COL_FLAGS) {
						pay_byte(&p, MR_ENC_JOINED);
						pay_varint(&p, 0);
					} else {
						pay_const(&p, 1);
					}
				}
				break;
			}
#undef HEAD_MASK
			CHECK_EQ_U64(decode_crafted(&b, &p, 10, &err), MR_ECORRUPT);
			if (!strstr(err.msg, bad_why[k])) {
				fprintf(stderr, "joint case %d: \"%s\" does not say \"%s\"\n", k,
					err.msg, bad_why[k]);
				CHECK(!"joint refusal names its reason");
			}
		}
	}
#undef JOINT_BUILD
#undef JOINT_GOOD_HEAD
	/* the column level has no joint encoding */
	{
		uint64_t v[2] = { 1, 2 }, out[2];
		uint8_t buf[64];
		size_t len;

		CHECK_EQ_U64(mr_col_encode(v, 2, MR_ENC_JOINT, buf, sizeof(buf), &len), MR_EINVAL);
		CHECK_EQ_U64(mr_col_decode(buf, 2, MR_ENC_JOINT, out, 2), MR_ECORRUPT);
	}
	free(ev);
	bufs_free(&b);
}

static const struct mr_test_case cases[] = {
	MR_CASE(test_crc32c),
	MR_CASE(test_col_edges),
	MR_CASE(test_col_shapes),
	MR_CASE(test_col_v2),
	MR_CASE(test_dbits_groups),
	MR_CASE(test_chunk_args),
	MR_CASE(test_chunk_roundtrip),
	MR_CASE(test_chunk_damage),
	MR_CASE(test_crafted),
	MR_CASE(test_joint),
};

int main(int argc, char **argv)
{
	rs = mr_test_seed();

	return mr_test_main("test_codec", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
