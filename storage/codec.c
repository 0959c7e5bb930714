// SPDX-License-Identifier: GPL-2.0
/*
 * codec.c - the event chunk codec: columns, LZ4, CRC-32C (blob layout in mr_codec.h).
 *
 * Column encodings, n values v[0..n-1], every number an LEB128 varint of at most 10
 * bytes; zz(d) is the zigzag of the u64 difference d = v[i] - v[i-1] (wrapping), so
 * any u64 sequence round-trips:
 *
 *   CONST      v[0]                                  all n values equal
 *   VARINT     v[0] v[1] ... v[n-1]
 *   DELTA      v[0] zz(v[1]-v[0]) ... zz(v[n-1]-v[n-2])
 *   RLE        (value, run)...                       runs >= 1, summing to n
 *   DELTA_RLE  v[0] (zz delta, run)...               runs >= 1, summing to n - 1
 *   NZDELTA    per value: 0 for v[i] == 0, else zz(v[i] - last) + 1, where last is the
 *              latest nonzero value before i (0 at first). For columns where one kind
 *              of event carries a sequence (fault addresses) and the others 0.
 *   DBITS      v[0], 2 (n - 1) + m (the count, so that a wrong one cannot decode; m = 1
 *              when the column never decreases), then the deltas - v[i] - v[i-1] itself
 *              when m, else its zz (half the spread for timestamps) - in groups of 64
 *              (the last may be shorter):
 *                bitmap   ceil(g/8) bytes, bit j (LSB first) set when delta j != 0
 *                if k deltas are nonzero:
 *                  base   the smallest nonzero delta
 *                  w      one byte, 0..64
 *                  bits   ceil(k*w/8) bytes: x = delta - base of each nonzero delta,
 *                         w bits each, LSB first; x >= 2^w - 1 (w < 64) is stored as
 *                         2^w - 1 and its excess x - (2^w - 1) follows the bits as a
 *                         varint, in order
 *              For jittery timestamps: about log2(jitter) bits per event, where
 *              varints take whole bytes. Version 2 of the trace format.
 *
 *   JOINT      (version 3) several of kind, task, cpu, flags, size as one column: their
 *              distinct tuples (at most 256) and an index per event, packed or as runs
 *              (layout in mr_codec.h); each other member's slot is JOINED, empty.
 *
 * Encoding: one pass over the events finds the columns that hold a single value (CONST,
 * nothing more to do); each other column is copied into a u64 array in the scratch
 * buffer, the five byte-oriented encodings are measured exactly in one branch-free
 * pass and NZDELTA and DBITS in two more, and the smallest is written (DBITS only for
 * the time column, and only when it saves a quarter: its bits are already dense,
 * where LZ4 still shrinks varints). Then the varying small columns are tried as one
 * JOINT column (joint_choose()), taken where it is no larger than their own encodings.
 * The payload is checksummed and LZ4-compressed behind the header.
 *
 * Decoding never goes through u64 arrays: each column has a small state machine
 * (struct col_dec) and a decoder per field and encoding that writes straight into its
 * struct mr_event field. The chunk is decoded in blocks of DEC_BLOCK events, so that a
 * block stays in L1 while all eight columns visit it; CONST columns reach the events
 * through one template event copied per event. The hot loops avoid data-dependent
 * branches: varints are found a word at a time by their stop bits, runs are stored
 * RUN_FILL values at a time whatever their length, a DBITS group's packed values are
 * unpacked with one word load each and spread over the group by its zero map with
 * masks (dbits_group_fast(); the checked loop takes the groups it does not), and range
 * checks are accumulated per block.
 *
 * Reads of untrusted bytes never go past a column's end: whole-word loads happen only
 * while enough bytes remain, and a checked byte-at-a-time decoder does the rest. Every
 * value is range-checked against its field; on failure the event array holds partial
 * data and the caller gets MR_ECORRUPT with the column and the reason.
 */
#include "mr_codec.h"

#include <limits.h>
#include <stddef.h>
#include <string.h>

#include <lz4.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#define VARINT_MAX 10
#define DEC_BLOCK 512 /* events per decode block: 16 KiB of struct mr_event, half an L1d */
#define COL_HDR_MAX 6 /* enc byte + byte_len varint (< 2^32, so <= 5 bytes) */
#define RUN_FILL 8     /* runs up to this long are stored without a loop */
#define PAYLOAD_SLACK 8 /* encode: room for a whole-word store past the payload */

static const char *const col_name[MR_COL_NR] = {
	"time", "kind", "page", "task", "cpu", "flags", "size", "arg",
};

/* Largest value each column's field may hold. */
static const uint64_t col_max[MR_COL_NR] = {
	[MR_COL_TIME] = UINT64_MAX, [MR_COL_KIND] = MR_EV_NR_KINDS - 1,
	[MR_COL_PAGE] = UINT32_MAX, [MR_COL_TASK] = UINT32_MAX,
	[MR_COL_CPU] = UINT16_MAX,  [MR_COL_FLAGS] = UINT8_MAX,
	[MR_COL_SIZE] = UINT32_MAX, [MR_COL_ARG] = UINT64_MAX,
};

/* Varint bytes of col_max: the VARINT size per value, which bounds the chosen one. */
static const uint8_t col_max_bytes[MR_COL_NR] = {
	[MR_COL_TIME] = 10, [MR_COL_KIND] = 1, [MR_COL_PAGE] = 5, [MR_COL_TASK] = 5,
	[MR_COL_CPU] = 3,   [MR_COL_FLAGS] = 2, [MR_COL_SIZE] = 5, [MR_COL_ARG] = 10,
};

/* ---- little-endian and varint primitives ---- */

static inline uint64_t le64_load(const uint8_t *p)
{
	uint64_t x;

	memcpy(&x, p, sizeof(x));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	x = __builtin_bswap64(x);
#endif
	return x;
}

static inline uint32_t le32_load(const uint8_t *p)
{
	uint32_t x;

	memcpy(&x, p, sizeof(x));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	x = __builtin_bswap32(x);
#endif
	return x;
}

static inline void le32_store(uint8_t *p, uint32_t x)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	x = __builtin_bswap32(x);
#endif
	memcpy(p, &x, sizeof(x));
}

static inline uint64_t zigzag(uint64_t d)
{
	return (d << 1) ^ (0 - (d >> 63));
}

static inline uint64_t unzigzag(uint64_t z)
{
	return (z >> 1) ^ (0 - (z & 1));
}

/* Varint bytes of a value with lz leading zero bits: ceil((64 - lz) / 7). */
static const uint8_t varint_len_by_lz[64] = {
	10, 9, 9, 9, 9, 9, 9, 9, 8, 8, 8, 8, 8, 8, 8, 7, 7, 7, 7, 7, 7, 7,
	6,  6, 6, 6, 6, 6, 6, 5, 5, 5, 5, 5, 5, 5, 4, 4, 4, 4, 4, 4, 4, 3,
	3,  3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
};

/* Bytes of the varint of x, without a loop. */
static inline __attribute__((always_inline)) size_t varint_len(uint64_t x)
{
	return varint_len_by_lz[__builtin_clzll(x | 1)];
}

static inline uint8_t *put_varint(uint8_t *p, uint64_t x)
{
	while (x >= 0x80) {
		*p++ = (uint8_t)(x | 0x80);
		x >>= 7;
	}
	*p++ = (uint8_t)x;
	return p;
}

static inline void le64_store(uint8_t *p, uint64_t x)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	x = __builtin_bswap64(x);
#endif
	memcpy(p, &x, sizeof(x));
}

/* A decoded varint and the byte after it; p == NULL when malformed. */
struct vres {
	const uint8_t *p;
	uint64_t v;
};

/* Checked byte-at-a-time decoder: the last bytes of a column, and 9/10-byte varints. */
static __attribute__((noinline)) struct vres varint_slow(const uint8_t *p, const uint8_t *end)
{
	struct vres r = { NULL, 0 };

	for (unsigned shift = 0; shift < 64; shift += 7) {
		uint8_t b;

		if (p == end)
			return r;
		b = *p++;
		if (shift == 63 && b > 1)
			return r; /* overflows 64 bits, or an 11th byte follows */
		r.v |= (uint64_t)(b & 0x7f) << shift;
		if (b < 0x80) {
			r.p = p;
			return r;
		}
	}
	return r; /* not reached: the 10th byte is 0 or 1 */
}

/* Why varint_slow() failed at p: for the message only. */
static const char *varint_why(const uint8_t *p, const uint8_t *end)
{
	for (int i = 0; i < VARINT_MAX; i++, p++) {
		if (p == end)
			return "column data ends inside a varint";
		if (*p < 0x80)
			break;
	}
	return "varint longer than 10 bytes or above 2^64-1";
}

/* The low len bytes: len_mask[len], len 0..8. */
static const uint64_t len_mask[9] = {
	0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xffffffffffull, 0xffffffffffffull,
	0xffffffffffffffull, 0xffffffffffffffffull,
};

/*
 * Value of a varint of len (1..8) bytes whose bytes are the low bytes of x: drop what
 * follows it, then pack the 7-bit groups in three shift-and-merge steps.
 */
static inline uint64_t varint_pack(uint64_t x, size_t len)
{
	x &= len_mask[len];
	x = (x & 0x007f007f007f007full) | ((x & 0x7f007f007f007f00ull) >> 1);
	x = (x & 0x00003fff00003fffull) | ((x & 0x3fff00003fff0000ull) >> 2);
	x = (x & 0x000000000fffffffull) | ((x & 0x0fffffff00000000ull) >> 4);
	return x;
}

/* The same for len 1..4 in 32-bit arithmetic: two steps, no 64-bit constants. */
static inline uint32_t varint_pack4(uint32_t x, size_t len)
{
	x &= (uint32_t)len_mask[len];
	x = (x & 0x007f007fu) | ((x & 0x7f007f00u) >> 1);
	x = (x & 0x00003fffu) | ((x & 0x3fff0000u) >> 2);
	return x;
}

/*
 * The inverse of varint_pack(): the 7-bit groups of x (below 2^56) spread over len
 * bytes, each but the last with its continuation bit.
 */
static inline uint64_t varint_spread(uint64_t x, size_t len)
{
	x = (x & 0x000000000fffffffull) | ((x << 4) & 0x0fffffff00000000ull);
	x = (x & 0x00003fff00003fffull) | ((x << 2) & 0x3fff00003fff0000ull);
	x = (x & 0x007f007f007f007full) | ((x << 1) & 0x7f007f007f007f00ull);
	return x | (0x8080808080808080ull & len_mask[len - 1]);
}

/*
 * put_varint() without a loop when 8 bytes of room are left before end: varints of
 * varying length then cost no mispredicted branch.
 */
static inline __attribute__((always_inline)) uint8_t *put_varint_fast(uint8_t *p, uint64_t x,
									const uint8_t *end)
{
	if (__builtin_expect(x < 1ull << 56 && end - p >= 8, 1)) {
		size_t len = varint_len(x);

		le64_store(p, varint_spread(x, len));
		return p + len;
	}
	return put_varint(p, x);
}

/*
 * One varint. Branch-free for up to 8 bytes (values below 2^56) when at least 10 bytes
 * remain: one load, and the first byte without the continuation bit gives the length.
 */
static inline __attribute__((always_inline)) struct vres varint_get(const uint8_t *p,
								   const uint8_t *end)
{
	if (__builtin_expect(end - p >= VARINT_MAX, 1)) {
		uint64_t x = le64_load(p);
		uint64_t stop = ~x & 0x8080808080808080ull;

		if (__builtin_expect(stop != 0, 1)) {
			size_t len = ((unsigned)__builtin_ctzll(stop) >> 3) + 1;
			struct vres r = { p + len, varint_pack(x, len) };

			return r;
		}
	}
	return varint_slow(p, end);
}

/* ---- column encoding ---- */

/* The smallest; ties go to the lower enum value, which is also the faster decoder. */
static enum mr_col_enc col_pick(const size_t sz[MR_ENC_NR])
{
	enum mr_col_enc best = MR_ENC_CONST;

	for (int e = 1; e < MR_ENC_NR; e++)
		if (sz[e] < sz[best])
			best = (enum mr_col_enc)e;
	return best;
}

/* A run reaching length r makes its length varint one byte longer: r = 2^(7k), k >= 1. */
static inline __attribute__((always_inline)) size_t run_grows(size_t r)
{
	return r >= 0x80 && !(r & (r - 1)) && __builtin_ctzll(r) % 7 == 0;
}

#define DBITS_GROUP 64

/* Bits to tell x + 1 apart (65 when x + 1 wraps): x needs an escape below that width. */
static inline size_t dbits_len(uint64_t x)
{
	return x == UINT64_MAX ? 65 : 64 - (size_t)__builtin_clzll(x + 1);
}

/*
 * The width for k values whose dbits_len() histogram is h[0..65]: the fewest packed
 * bits plus escape varints (their excess counted at its upper bound, the value's own
 * varint length, so that the choice needs only the histogram).
 */
static unsigned dbits_width(const uint32_t h[66], size_t k)
{
	size_t best = SIZE_MAX, above = 0, esc = 0;
	unsigned bw = 64;

	for (unsigned b = 1; b <= 65; b++) {
		above += h[b];
		esc += h[b] * (b == 65 ? VARINT_MAX : (b + 6) / 7);
	}
	/* w = 0: every value escapes */
	for (unsigned w = 0; w <= 64; w++) {
		size_t cost;

		if (w) {
			above -= h[w];
			esc -= h[w] * ((w + 6) / 7);
		}
		cost = (k * w + 7) / 8 + (w < 64 ? esc : 0);
		if (cost < best) {
			best = cost;
			bw = w;
		}
	}
	(void)above;
	return bw;
}

static inline uint64_t dbits_escape(unsigned w)
{
	return w >= 64 ? UINT64_MAX : ((uint64_t)1 << w) - 1;
}

/*
 * One DBITS group of the deltas z[0..g-1]: its size, or, with out, its bytes written
 * there (returns the end). The same computation serves both, so they cannot disagree.
 */
static size_t dbits_group(const uint64_t *z, size_t g, uint8_t *out, uint8_t **endp)
{
	uint32_t h[66] = { 0 };
	uint64_t base = UINT64_MAX, map = 0, esc;
	size_t k = 0, size = (g + 7) / 8;
	unsigned w;

	for (size_t j = 0; j < g; j++) {
		if (z[j]) {
			map |= (uint64_t)1 << j;
			base = z[j] < base ? z[j] : base;
			k++;
		}
	}
	if (out) {
		for (size_t b = 0; b < (g + 7) / 8; b++)
			*out++ = (uint8_t)(map >> (8 * b));
	}
	if (!k) {
		if (endp)
			*endp = out;
		return size;
	}
	for (size_t j = 0; j < g; j++)
		if (z[j])
			h[dbits_len(z[j] - base)]++;
	w = dbits_width(h, k);
	esc = dbits_escape(w);
	size += varint_len(base) + 1 + (k * w + 7) / 8;
	for (size_t j = 0; j < g; j++)
		if (z[j] && w < 64 && z[j] - base >= esc)
			size += varint_len(z[j] - base - esc);
	if (out) {
		uint8_t *bits, *q;
		uint64_t acc = 0;
		unsigned have = 0;

		out = put_varint(out, base);
		*out++ = (uint8_t)w;
		bits = out;
		for (size_t j = 0; j < g; j++) {
			uint64_t x;

			if (!z[j])
				continue;
			x = z[j] - base;
			if (w < 64 && x >= esc)
				x = esc;
			/* append w bits of x at bit position have of acc, flushing bytes */
			for (unsigned done = 0; done < w;) {
				unsigned take = w - done < 8 - have ? w - done : 8 - have;

				acc |= ((x >> done) & ((1u << take) - 1)) << have;
				have += take;
				done += take;
				if (have == 8) {
					*out++ = (uint8_t)acc;
					acc = 0;
					have = 0;
				}
			}
		}
		if (have)
			*out++ = (uint8_t)acc;
		q = out;
		(void)bits;
		for (size_t j = 0; j < g; j++)
			if (z[j] && w < 64 && z[j] - base >= esc)
				q = put_varint(q, z[j] - base - esc);
		out = q;
	}
	if (endp)
		*endp = out;
	return size;
}

/* DBITS: bytes of vals (n >= 1), or write them at out. tmp holds DBITS_GROUP values. */
static size_t dbits_col(const uint64_t *vals, size_t n, uint8_t *out, uint8_t **endp)
{
	uint64_t z[DBITS_GROUP], mono = 1;
	size_t size;

	for (size_t i = 1; i < n && mono; i++)
		mono = vals[i] >= vals[i - 1];
	size = varint_len(vals[0]) + varint_len(2 * (uint64_t)(n - 1) + mono);
	if (out) {
		out = put_varint(out, vals[0]);
		out = put_varint(out, 2 * (uint64_t)(n - 1) + mono);
	}
	for (size_t i = 1; i < n; i += DBITS_GROUP) {
		size_t g = n - i < DBITS_GROUP ? n - i : DBITS_GROUP;

		for (size_t j = 0; j < g; j++) {
			uint64_t d = vals[i + j] - vals[i + j - 1];

			z[j] = mono ? d : zigzag(d);
		}
		size += dbits_group(z, g, out, out ? &out : NULL);
	}
	if (endp)
		*endp = out;
	return size;
}

/* NZDELTA: bytes of vals, or SIZE_MAX when a delta's zigzag + 1 would wrap. */
static inline __attribute__((always_inline)) size_t nzdelta_size(const uint64_t *vals, size_t n)
{
	uint64_t last = 0;
	size_t size = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t x = vals[i], z = zigzag(x - last);

		if (!x) {
			size++;
			continue;
		}
		if (z == UINT64_MAX)
			return SIZE_MAX;
		size += varint_len(z + 1);
		last = x;
	}
	return size;
}

static uint8_t *nzdelta_write(const uint64_t *vals, size_t n, uint8_t *p)
{
	uint64_t last = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t x = vals[i];

		if (!x) {
			*p++ = 0;
			continue;
		}
		p = put_varint(p, zigzag(x - last) + 1);
		last = x;
	}
	return p;
}

/*
 * Exact bytes of every encoding of vals (n >= 1) in one pass without data-dependent
 * branches, and the smallest; sz[MR_ENC_CONST] is SIZE_MAX when the values differ.
 * A run costs its value (or delta) plus its length: one byte, counted when the run
 * starts, and one more each time the run grows to 2^7, 2^14, ... (rare: the branch
 * is tested once in 128 values of a run).
 */
static inline __attribute__((always_inline)) enum mr_col_enc
col_measure_body(const uint64_t *vals, size_t n, size_t sz[MR_ENC_NR], int dbits)
{
	const uint64_t *v = vals + 2, *end = vals + n;
	uint64_t prev = vals[0], zprev = 0;
	size_t first = varint_len(prev);
	size_t s_var = first, s_delta = first, s_rle = first + 1, s_drle = first;
	size_t run = 1, drun = 0; /* length of the current run of values, of deltas */

	if (n >= 2) {
		uint64_t x = vals[1];
		size_t chg = x != prev;

		zprev = zigzag(x - prev);
		s_var += varint_len(x);
		s_delta += varint_len(zprev);
		s_rle += (varint_len(x) + 1) & (0 - chg);
		run = chg ? 1 : 2;
		s_drle += varint_len(zprev) + 1;
		drun = 1;
		prev = x;
	}
	for (; v < end; v++) {
		uint64_t x = *v, z = zigzag(x - prev);
		size_t lx = varint_len(x), lz = varint_len(z);
		size_t chg = x != prev, dchg = z != zprev;

		s_var += lx;
		s_delta += lz;
		s_rle += (lx + 1) & (0 - chg);
		s_drle += (lz + 1) & (0 - dchg);
		run = (run & (chg - 1)) + 1;
		drun = (drun & (dchg - 1)) + 1;
		if (__builtin_expect(!(run & 0x7f), 0))
			s_rle += run_grows(run);
		if (__builtin_expect(!(drun & 0x7f), 0))
			s_drle += run_grows(drun);
		prev = x;
		zprev = z;
	}

	sz[MR_ENC_CONST] = run == n ? first : SIZE_MAX;
	sz[MR_ENC_VARINT] = s_var;
	sz[MR_ENC_DELTA] = s_delta;
	sz[MR_ENC_RLE] = s_rle;
	sz[MR_ENC_DELTA_RLE] = s_drle;
	sz[MR_ENC_NZDELTA] = nzdelta_size(vals, n);
	/* not measured (SIZE_MAX) where the caller will not use it: the chunk encoder's
	 * columns other than time (see mr_chunk_encode) */
	sz[MR_ENC_DBITS] = dbits ? dbits_col(vals, n, NULL, NULL) : SIZE_MAX;
	if (run == n) /* a constant column is CONST: the decoders' fastest path */
		return MR_ENC_CONST;
	{
		/* DBITS only when it saves a quarter (see the top) */
		size_t keep = sz[MR_ENC_DBITS];
		enum mr_col_enc e;

		sz[MR_ENC_DBITS] = SIZE_MAX;
		e = col_pick(sz);
		sz[MR_ENC_DBITS] = keep;
		if (keep < sz[e] && keep <= sz[e] - sz[e] / 4)
			e = MR_ENC_DBITS;
		return e;
	}
}

/*
 * (value, run) pairs of vals[from..n-1], or of their zigzag deltas. While value and run
 * are single bytes - the usual case for short runs - the pair is stored at every step
 * and p moves on only where a run ends, so short runs cost no mispredicted branch.
 * Those stores never pass the end of the final pair, which takes at least two bytes.
 */
static uint8_t *write_runs(const uint64_t *vals, size_t n, size_t from, int delta, uint8_t *p)
{
	uint64_t cur = delta ? zigzag(vals[from] - vals[from - 1]) : vals[from];
	size_t run = 1;

	for (size_t i = from + 1; i < n; i++) {
		uint64_t x = delta ? zigzag(vals[i] - vals[i - 1]) : vals[i];
		size_t chg = x != cur;

		if (__builtin_expect((cur | run) < 0x80, 1)) {
			p[0] = (uint8_t)cur;
			p[1] = (uint8_t)run;
			p += 2 * chg;
		} else if (chg) {
			p = put_varint(p, cur);
			p = put_varint(p, run);
		}
		run = (run & (chg - 1)) + 1;
		cur = x;
	}
	p = put_varint(p, cur);
	return put_varint(p, run);
}

/*
 * Write vals in enc at out; there is room up to end for what col_measure() said it
 * takes. Returns the end of what was written.
 */
static inline __attribute__((always_inline)) uint8_t *
col_write_body(const uint64_t *vals, size_t n, enum mr_col_enc enc, uint8_t *out,
	       const uint8_t *end)
{
	uint8_t *p = out;
	size_t i;

	switch (enc) {
	case MR_ENC_CONST:
		p = put_varint(p, vals[0]);
		break;
	case MR_ENC_VARINT:
		for (i = 0; i < n; i++)
			p = put_varint_fast(p, vals[i], end);
		break;
	case MR_ENC_DELTA:
		p = put_varint(p, vals[0]);
		for (i = 1; i < n; i++)
			p = put_varint_fast(p, zigzag(vals[i] - vals[i - 1]), end);
		break;
	case MR_ENC_RLE:
		p = write_runs(vals, n, 0, 0, p);
		break;
	case MR_ENC_DELTA_RLE:
		p = put_varint(p, vals[0]);
		if (n >= 2)
			p = write_runs(vals, n, 1, 1, p);
		break;
	case MR_ENC_NZDELTA:
		p = nzdelta_write(vals, n, p);
		break;
	case MR_ENC_DBITS:
		dbits_col(vals, n, p, &p);
		break;
	default:
		break;
	}
	return p;
}

/*
 * varint_len() counts leading zeros, twice per value in col_measure(). Without LZCNT
 * that is BSR, several times slower on AMD cores: both hot functions come in a
 * generic and an LZCNT build, chosen at run time from CPUID (once; the answer is the
 * same for every thread, so a relaxed atomic is enough to keep it).
 */
#if defined(__x86_64__)
static int have_lzcnt(void)
{
	static int known; /* 0: not asked yet, 1: no, 2: yes */
	int v = __atomic_load_n(&known, __ATOMIC_RELAXED);

	if (!v) {
		unsigned int a, b, c, d;

		v = __get_cpuid(0x80000001, &a, &b, &c, &d) && (c & bit_LZCNT) ? 2 : 1;
		__atomic_store_n(&known, v, __ATOMIC_RELAXED);
	}
	return v == 2;
}

#define LZCNT_DISPATCH(ret, name, params, args)                                         \
	static ret name##_generic params                                                \
	{                                                                               \
		return name##_body args;                                                \
	}                                                                               \
	__attribute__((target("lzcnt"))) static ret name##_lzcnt params                 \
	{                                                                               \
		return name##_body args;                                                \
	}                                                                               \
	static ret name params                                                          \
	{                                                                               \
		if (have_lzcnt())                                                       \
			return name##_lzcnt args;                                       \
		return name##_generic args;                                             \
	}
#else
#define LZCNT_DISPATCH(ret, name, params, args) \
	static ret name params                  \
	{                                       \
		return name##_body args;        \
	}
#endif

LZCNT_DISPATCH(enum mr_col_enc, col_measure,
	       (const uint64_t *vals, size_t n, size_t sz[MR_ENC_NR], int dbits),
	       (vals, n, sz, dbits))
LZCNT_DISPATCH(uint8_t *, col_write,
	       (const uint64_t *vals, size_t n, enum mr_col_enc enc, uint8_t *out,
		const uint8_t *end),
	       (vals, n, enc, out, end))

size_t mr_col_bound(size_t n)
{
	/* RLE with runs of one: 10-byte value + 1-byte run per value; the rest need less. */
	return 11 * n + VARINT_MAX;
}

enum mr_col_enc mr_col_choose(const uint64_t *vals, size_t n)
{
	size_t sz[MR_ENC_NR];

	if (!vals || !n)
		return MR_ENC_VARINT;
	return col_measure(vals, n, sz, 1);
}

int mr_col_encode(const uint64_t *vals, size_t n, enum mr_col_enc enc, uint8_t *out,
		  size_t out_cap, size_t *out_len)
{
	size_t sz[MR_ENC_NR];
	uint8_t *end;

	if (!vals || !n || !out_len || (unsigned)enc >= MR_ENC_NR)
		return MR_EINVAL;
	col_measure(vals, n, sz, 1);
	if (sz[enc] == SIZE_MAX)
		return MR_EINVAL; /* CONST of differing values */
	if (!out || out_cap < sz[enc])
		return MR_ENOSPC;
	end = col_write(vals, n, enc, out, out + out_cap);
	if (MR_WARN_ON_ONCE((size_t)(end - out) != sz[enc]))
		return MR_EINVAL;
	*out_len = sz[enc];
	return MR_OK;
}

/* ---- column decoding ---- */

/* Where one column's decoder stands; lives across blocks of events. */
struct col_dec {
	const uint8_t *p, *end; /* the column's bytes not yet read */
	uint64_t val;  /* CONST, RLE: the value; DELTA, DELTA_RLE: the last value */
	uint64_t step; /* DELTA_RLE: delta of the current run */
	uint64_t left; /* RLE, DELTA_RLE: values left in the current run */
	uint8_t enc;
	uint8_t one_byte;   /* VARINT, DELTA: every value (delta) left is a single byte;
			     * DBITS: the column never decreases, deltas are stored as such */
	uint8_t first_left; /* DELTA, DELTA_RLE, DBITS: val is v[0], still to be stored */
	uint8_t gpos, glen; /* DBITS: next value of grp[], values in it */
	uint64_t dleft;     /* DBITS: deltas not yet read into grp[] */
	const char *why;    /* reason of the last failure */
	uint64_t grp[DBITS_GROUP]; /* DBITS: the values of the current group */
};

/* Store v into element i of an array of stride bytes whose elements are width wide. */
static inline __attribute__((always_inline)) void put_field(uint8_t *dst, size_t i,
							     size_t stride, unsigned width,
							     uint64_t v)
{
	uint8_t *q = dst + i * stride;

	if (width == 8) {
		memcpy(q, &v, 8);
	} else if (width == 4) {
		uint32_t x = (uint32_t)v;

		memcpy(q, &x, 4);
	} else if (width == 2) {
		uint16_t x = (uint16_t)v;

		memcpy(q, &x, 2);
	} else {
		*q = (uint8_t)v;
	}
}

/*
 * Collect into *acc what makes v too large for a field holding at most max (keep:
 * all-ones, or 0 to ignore v); the caller tests *acc once per block. Branch-free, and
 * nothing at all for u64 fields.
 */
static inline __attribute__((always_inline)) void check_max(uint64_t *acc, uint64_t v,
							     uint64_t max, uint64_t keep)
{
	if (max == UINT64_MAX)
		return;
	if ((max & (max + 1)) == 0)
		*acc |= v & ~max & keep; /* 2^k - 1: any higher bit */
	else
		*acc |= (uint64_t)(v > max) & keep;
}

static int col_fail(struct col_dec *d, const char *why)
{
	d->why = why;
	return -1;
}

/*
 * Prepare d for the len bytes at in holding n values in enc; values above max are
 * corrupt. Reads the leading value of CONST, DELTA and DELTA_RLE.
 */
static int col_start(struct col_dec *d, const uint8_t *in, size_t len, unsigned enc, size_t n,
		     uint64_t max)
{
	struct vres r;

	memset(d, 0, sizeof(*d));
	d->p = in;
	d->end = in + len;
	d->enc = (uint8_t)enc;
	switch (enc) {
	case MR_ENC_VARINT:
		d->one_byte = len == n;
		return 0;
	case MR_ENC_RLE:
	case MR_ENC_NZDELTA:
		return 0;
	case MR_ENC_CONST:
	case MR_ENC_DELTA:
	case MR_ENC_DELTA_RLE:
	case MR_ENC_DBITS:
		r = varint_get(d->p, d->end);
		if (!r.p)
			return col_fail(d, varint_why(d->p, d->end));
		if (r.v > max)
			return col_fail(d, "value too large for its field");
		d->p = r.p;
		d->val = r.v;
		d->first_left = enc != MR_ENC_CONST;
		if (enc == MR_ENC_DELTA)
			d->one_byte = (size_t)(d->end - d->p) == n - 1;
		if (enc == MR_ENC_DBITS) {
			r = varint_get(d->p, d->end);
			if (!r.p)
				return col_fail(d, varint_why(d->p, d->end));
			if (r.v >> 1 != n - 1)
				return col_fail(d, "holds a different number of values than the chunk");
			d->p = r.p;
			d->dleft = n - 1;
			d->one_byte = r.v & 1; /* DBITS: deltas are not zigzagged */
		}
		return 0;
	default:
		return col_fail(d, "unknown column encoding");
	}
}

/* After the last value: every byte used and no run left over. */
static int col_finish(struct col_dec *d)
{
	if (d->left)
		return col_fail(d, "runs add up to more values than the chunk holds");
	if (d->enc == MR_ENC_DBITS && (d->dleft || d->gpos != d->glen))
		return col_fail(d, "groups hold more values than the chunk holds");
	if (d->p != d->end)
		return col_fail(d, "column has bytes left after its last value");
	return 0;
}

/*
 * VARINT and DELTA bulk decoder: values i.. of the block, while 16 bytes remain past
 * the word being scanned (so every 8-byte load is in bounds). Scans the column a word
 * at a time for stop bytes (no continuation bit) and decodes the varint ending at each:
 * where the next varint starts depends only on the stop mask, not on the previous
 * varint's bytes, so the loads and unpacking of successive values overlap instead of
 * forming one long dependency chain. Returns the next value index, or SIZE_MAX on a
 * malformed varint (with *pp at it). The caller finishes the tail with varint_get().
 */
static inline __attribute__((always_inline)) size_t varint_bulk(
	const uint8_t **pp, const uint8_t *end, uint8_t *dst, size_t stride, unsigned width,
	uint64_t max, int delta, size_t i, size_t cnt, uint64_t *valp, uint64_t *accp)
{
	const uint8_t *s = *pp, *w = s; /* s: start of the next varint; s <= w */
	uint8_t *q = dst + i * stride, *qend = dst + cnt * stride;
	uint64_t val = *valp, acc = *accp;

	while (q != qend && end - w >= 16) {
		uint64_t stops = ~le64_load(w) & 0x8080808080808080ull;

		while (stops) {
			const uint8_t *e = w + ((unsigned)__builtin_ctzll(stops) >> 3) + 1;
			size_t len = (size_t)(e - s);
			int small = 0; /* v < 2^28 */
			uint64_t v;

			/* values (deltas) below 2^28 are the common case */
			if (__builtin_expect(len <= 4, 1)) {
				v = varint_pack4(le32_load(s), len);
				small = 1;
			} else if (__builtin_expect(len <= 8, 1)) {
				v = varint_pack(le64_load(s), len);
			} else {
				struct vres r = varint_slow(s, end);

				if (!r.p) {
					*pp = s;
					return SIZE_MAX;
				}
				v = r.v;
			}
			if (delta) {
				val += unzigzag(v);
				v = val;
				small = 0;
			}
			if (!small || max < 0x0fffffff)
				check_max(&acc, v, max, ~0ull);
			put_field(q, 0, stride, width, v);
			q += stride;
			s = e;
			if (q == qend)
				goto out;
			stops &= stops - 1;
		}
		w += 8;
	}
out:
	*pp = s;
	*valp = val;
	*accp = acc;
	return (size_t)(q - dst) / stride;
}

/*
 * The decoders of each encoding: the next cnt values of d into dst[0..cnt-1] (stride,
 * width: the element layout), each checked against max; 0, or -1 with d->why. They
 * are specialised per field by inlining - dst's offset, stride, width and max are
 * constants in every caller - and kept in separate functions per field and encoding so
 * that each loop gets the registers to itself.
 */

static inline __attribute__((always_inline)) int dec_const(struct col_dec *d, uint8_t *dst,
							    size_t stride, unsigned width,
							    size_t cnt)
{
	for (size_t i = 0; i < cnt; i++)
		put_field(dst, i, stride, width, d->val);
	return 0;
}

/* DELTA, DELTA_RLE: the first value, read by col_start(), goes out first. */
static inline __attribute__((always_inline)) size_t put_first(struct col_dec *d, uint8_t *dst,
							       size_t stride, unsigned width,
							       size_t cnt)
{
	if (!d->first_left || !cnt)
		return 0;
	put_field(dst, 0, stride, width, d->val);
	d->first_left = 0;
	return 1;
}

/* VARINT (delta 0) and DELTA (delta 1). */
static inline __attribute__((always_inline)) int dec_varints(struct col_dec *d, uint8_t *dst,
							      size_t stride, unsigned width,
							      uint64_t max, int delta, size_t cnt)
{
	const uint8_t *p = d->p, *end = d->end;
	uint64_t val = d->val, acc = 0;
	size_t i = delta ? put_first(d, dst, stride, width, cnt) : 0;

	if (d->one_byte) {
		/* col_start() saw exactly one byte per value left */
		for (; i < cnt; i++) {
			uint8_t b = *p++;

			acc |= b >> 7;
			if (delta) {
				val += unzigzag(b);
				check_max(&acc, val, max, ~0ull);
			} else {
				val = b;
				if (max < 0x7f)
					check_max(&acc, val, max, ~0ull);
			}
			put_field(dst, i, stride, width, val);
		}
	} else {
		i = varint_bulk(&p, end, dst, stride, width, max, delta, i, cnt, &val, &acc);
		if (i == SIZE_MAX)
			return col_fail(d, varint_why(p, end));
		for (; i < cnt; i++) {
			struct vres r = varint_get(p, end);

			if (__builtin_expect(!r.p, 0))
				return col_fail(d, varint_why(p, end));
			p = r.p;
			val = delta ? val + unzigzag(r.v) : r.v;
			check_max(&acc, val, max, ~0ull);
			put_field(dst, i, stride, width, val);
		}
	}
	d->p = p;
	d->val = val;
	if (acc)
		return col_fail(d, "value too large for its field");
	return 0;
}

/* RLE (delta 0) and DELTA_RLE (delta 1). */
static inline __attribute__((always_inline)) int dec_runs(struct col_dec *d, uint8_t *dst,
							   size_t stride, unsigned width,
							   uint64_t max, int delta, size_t cnt)
{
	const uint8_t *p = d->p, *end = d->end;
	uint64_t val = d->val, step = d->step, left = d->left, acc = 0;
	size_t i = delta ? put_first(d, dst, stride, width, cnt) : 0;

	while (i < cnt) {
		size_t k;

		if (!left) {
			uint64_t v;

			if (__builtin_expect(end - p >= 2 && (p[0] | p[1]) < 0x80, 1)) {
				/* the usual pair: value and run of one byte each */
				v = p[0];
				left = p[1];
				p += 2;
			} else {
				struct vres r = varint_get(p, end);

				if (__builtin_expect(!r.p, 0))
					return col_fail(d, varint_why(p, end));
				v = r.v;
				p = r.p;
				r = varint_get(p, end);
				if (__builtin_expect(!r.p, 0))
					return col_fail(d, varint_why(p, end));
				p = r.p;
				left = r.v;
			}
			if (!left)
				return col_fail(d, "run of length 0");
			if (delta) {
				step = unzigzag(v);
			} else {
				val = v;
				check_max(&acc, val, max, ~0ull);
			}
		}
		if (cnt - i >= RUN_FILL) {
			/*
			 * RUN_FILL slots left in the block: store RUN_FILL values whatever
			 * the run's length, so that there is no branch on it to mispredict,
			 * and take up to RUN_FILL of the run (a longer one comes back here
			 * for the rest). The slots past the run are rewritten by the runs
			 * after it.
			 */
			uint64_t x = val;
			size_t take = left < RUN_FILL ? (size_t)left : RUN_FILL;

#pragma GCC unroll 8
			for (size_t j = 0; j < RUN_FILL; j++) {
				if (delta) {
					x += step;
					check_max(&acc, x, max, 0 - (uint64_t)(j < take));
				}
				put_field(dst, i + j, stride, width, x);
			}
			if (delta)
				val += step * take;
			i += take;
			left -= take;
			continue;
		}
		k = left < cnt - i ? (size_t)left : cnt - i;
		left -= k;
		for (; k; k--, i++) {
			if (delta) {
				val += step;
				check_max(&acc, val, max, ~0ull);
			}
			put_field(dst, i, stride, width, val);
		}
	}
	d->p = p;
	d->val = val;
	d->step = step;
	d->left = left;
	if (acc)
		return col_fail(d, "value too large for its field");
	return 0;
}

/* NZDELTA: 0 stays 0; anything else is the zigzag delta + 1 from the last nonzero. */
static inline __attribute__((always_inline)) int dec_nzdelta(struct col_dec *d, uint8_t *dst,
							      size_t stride, unsigned width,
							      uint64_t max, size_t cnt)
{
	const uint8_t *p = d->p, *end = d->end;
	uint64_t last = d->val, acc = 0;

	for (size_t i = 0; i < cnt; i++) {
		uint64_t v = 0;

		if (__builtin_expect(p < end && *p == 0, 1)) {
			p++;
		} else {
			struct vres r = varint_get(p, end);

			if (__builtin_expect(!r.p, 0))
				return col_fail(d, varint_why(p, end));
			p = r.p;
			if (r.v) {
				last += unzigzag(r.v - 1);
				v = last;
				if (!v)
					return col_fail(d, "a nonzero entry decodes to 0");
			}
		}
		check_max(&acc, v, max, ~0ull);
		put_field(dst, i, stride, width, v);
	}
	d->p = p;
	d->val = last;
	if (acc)
		return col_fail(d, "value too large for its field");
	return 0;
}

/*
 * w bits (w <= 64) at bit position pos of bits, LSB first; the caller checked the bytes
 * up to bits + nbytes. One word load while a whole word lies inside them.
 */
/* A DBITS group of g values decoded into d->grp, its bytes ending at ep. */
static inline void group_done(struct col_dec *d, const uint8_t *ep, uint64_t val, size_t g)
{
	d->p = ep;
	d->val = val;
	d->dleft -= g;
	d->gpos = 0;
	d->glen = (uint8_t)g;
}

static inline uint64_t get_bits(const uint8_t *bits, size_t nbytes, size_t pos, unsigned w)
{
	const uint8_t *b = bits + (pos >> 3);
	unsigned off = pos & 7, got = 0;
	uint64_t x = 0;

	if (w + off <= 64 && (pos >> 3) + 8 <= nbytes)
		return w == 64 ? le64_load(b) : (le64_load(b) >> off) & (((uint64_t)1 << w) - 1);

	while (got < w) {
		unsigned take = 8 - off < w - got ? 8 - off : w - got;

		x |= (uint64_t)((*b++ >> off) & ((1u << take) - 1)) << got;
		got += take;
		off = 0;
	}
	return x;
}

/*
 * The usual DBITS group, without a branch per value: 1 <= w <= 56, base + 2^w - 1 does
 * not wrap, and a whole word can be loaded at every value's bit position inside the
 * column (end - bits covers the group's bits and 8 bytes more). The k packed values are
 * unpacked first (each one load, shift and mask, independent of the others), the
 * escaped ones (a bit mask of them) then get their excess varints, and all are spread
 * over the group's g slots by the bitmap: slot j takes xs[idx] masked by its bit, idx
 * moves on by the bit. Returns 1 when the group was decoded into d->grp (and d->p, d->val
 * and the counts moved past it), 0 to leave it to the general loop, which also produces
 * every error message: this path only accepts groups that loop would decode the same.
 */
static inline __attribute__((always_inline)) int
dbits_group_fast(struct col_dec *d, uint64_t map, size_t g, size_t k, uint64_t base,
		 unsigned w, const uint8_t *bits, const uint8_t *end)
{
	uint64_t xs[DBITS_GROUP + 1], mask, escs = 0, val = d->val;
	size_t nbytes = (k * w + 7) / 8, pos = 0, idx = 0;
	const uint8_t *ep = bits + nbytes;

	if (w < 1 || w > 56 || (size_t)(end - bits) < nbytes + 8)
		return 0;
	mask = ((uint64_t)1 << w) - 1;
	if (base > UINT64_MAX - mask)
		return 0;
	for (size_t i = 0; i < k; i++, pos += w) {
		uint64_t x = (le64_load(bits + (pos >> 3)) >> (pos & 7)) & mask;

		escs |= (uint64_t)(x == mask) << i;
		xs[i] = base + x;
	}
	/* the escaped values, in order: their excess follows the bits as varints */
	while (escs) {
		unsigned i = (unsigned)__builtin_ctzll(escs);
		struct vres r = varint_get(ep, end);

		if (!r.p || r.v > UINT64_MAX - xs[i])
			return 0; /* the general loop says what is wrong */
		ep = r.p;
		xs[i] += r.v;
		escs &= escs - 1;
	}
	xs[k] = 0; /* read, masked out, by the slots after the last nonzero delta */
	if (k == g) {
		if (d->one_byte)
			for (size_t j = 0; j < g; j++)
				d->grp[j] = val += xs[j];
		else
			for (size_t j = 0; j < g; j++)
				d->grp[j] = val += unzigzag(xs[j]);
	} else if (d->one_byte) {
		for (size_t j = 0; j < g; j++) {
			uint64_t bit = map >> j & 1;

			val += xs[idx] & (0 - bit);
			idx += bit;
			d->grp[j] = val;
		}
	} else {
		for (size_t j = 0; j < g; j++) {
			uint64_t bit = map >> j & 1;

			val += unzigzag(xs[idx] & (0 - bit));
			idx += bit;
			d->grp[j] = val;
		}
	}
	group_done(d, ep, val, g);
	return 1;
}

/* DBITS: read the next group of deltas into d->grp as values. */
static int dbits_refill(struct col_dec *d)
{
	const uint8_t *p = d->p, *end = d->end, *bits, *ep;
	size_t g = d->dleft < DBITS_GROUP ? (size_t)d->dleft : DBITS_GROUP, nb = (g + 7) / 8;
	uint64_t map = 0, base = 0, esc = 0, val = d->val;
	size_t k, pos = 0;
	unsigned w = 0;

	if (!g)
		return col_fail(d, "more values than the column holds");
	if ((size_t)(end - p) < nb)
		return col_fail(d, "group bitmap cut short");
	for (size_t b = 0; b < nb; b++)
		map |= (uint64_t)p[b] << (8 * b);
	p += nb;
	if (g < 64 && map >> g)
		return col_fail(d, "bitmap marks deltas past the column's end");
	k = (size_t)__builtin_popcountll(map);
	ep = bits = p;
	if (k) {
		struct vres r = varint_get(p, end);

		if (!r.p)
			return col_fail(d, varint_why(p, end));
		base = r.v;
		p = r.p;
		if (!base)
			return col_fail(d, "group base of 0");
		if (p == end)
			return col_fail(d, "group width missing");
		w = *p++;
		if (w > 64)
			return col_fail(d, "group width over 64 bits");
		if ((size_t)(end - p) < (k * w + 7) / 8)
			return col_fail(d, "group bits cut short");
		bits = p;
		ep = p + (k * w + 7) / 8;
		esc = dbits_escape(w);
		if (dbits_group_fast(d, map, g, k, base, w, bits, end))
			return 0;
	}
	for (size_t j = 0; j < g; j++) {
		uint64_t z = 0;

		if (map >> j & 1) {
			uint64_t x = get_bits(bits, (k * w + 7) / 8, pos, w);

			pos += w;
			if (w < 64 && x == esc) {
				struct vres r = varint_get(ep, end);

				if (!r.p)
					return col_fail(d, varint_why(ep, end));
				ep = r.p;
				if (r.v > UINT64_MAX - esc)
					return col_fail(d, "outlier too large");
				x = esc + r.v;
			}
			if (x > UINT64_MAX - base)
				return col_fail(d, "delta too large");
			z = base + x;
		}
		val += d->one_byte ? z : unzigzag(z);
		d->grp[j] = val;
	}
	group_done(d, ep, val, g);
	return 0;
}

static inline __attribute__((always_inline)) int dec_dbits(struct col_dec *d, uint8_t *dst,
							    size_t stride, unsigned width,
							    uint64_t max, size_t cnt)
{
	uint64_t acc = 0;
	size_t i = put_first(d, dst, stride, width, cnt);

	if (i)
		check_max(&acc, d->val, max, ~0ull);
	while (i < cnt) {
		size_t take;

		if (d->gpos == d->glen && dbits_refill(d))
			return -1;
		take = (size_t)(d->glen - d->gpos) < cnt - i ? (size_t)(d->glen - d->gpos) : cnt - i;
		for (size_t j = 0; j < take; j++, i++) {
			uint64_t v = d->grp[d->gpos + j];

			check_max(&acc, v, max, ~0ull);
			put_field(dst, i, stride, width, v);
		}
		d->gpos = (uint8_t)(d->gpos + take);
	}
	if (acc)
		return col_fail(d, "value too large for its field");
	return 0;
}

typedef int (*col_dec_fn)(struct col_dec *d, struct mr_event *ev, size_t cnt);

#define EV_FIELD(ev, f)                                                                \
	((uint8_t *)(ev) + offsetof(struct mr_event, f)), sizeof(struct mr_event), \
		sizeof((ev)->f)

#define DEFINE_FIELD_DECODERS(f, max)                                                   \
	static int dec_##f##_const(struct col_dec *d, struct mr_event *ev, size_t cnt)    \
	{                                                                                 \
		return dec_const(d, EV_FIELD(ev, f), cnt);                                \
	}                                                                                 \
	static int dec_##f##_varint(struct col_dec *d, struct mr_event *ev, size_t cnt)   \
	{                                                                                 \
		return dec_varints(d, EV_FIELD(ev, f), max, 0, cnt);                      \
	}                                                                                 \
	static int dec_##f##_delta(struct col_dec *d, struct mr_event *ev, size_t cnt)    \
	{                                                                                 \
		return dec_varints(d, EV_FIELD(ev, f), max, 1, cnt);                      \
	}                                                                                 \
	static int dec_##f##_rle(struct col_dec *d, struct mr_event *ev, size_t cnt)      \
	{                                                                                 \
		return dec_runs(d, EV_FIELD(ev, f), max, 0, cnt);                         \
	}                                                                                 \
	static int dec_##f##_drle(struct col_dec *d, struct mr_event *ev, size_t cnt)     \
	{                                                                                 \
		return dec_runs(d, EV_FIELD(ev, f), max, 1, cnt);                         \
	}                                                                                 \
	static int dec_##f##_nzdelta(struct col_dec *d, struct mr_event *ev, size_t cnt)  \
	{                                                                                 \
		return dec_nzdelta(d, EV_FIELD(ev, f), max, cnt);                         \
	}                                                                                 \
	static int dec_##f##_dbits(struct col_dec *d, struct mr_event *ev, size_t cnt)    \
	{                                                                                 \
		return dec_dbits(d, EV_FIELD(ev, f), max, cnt);                           \
	}

DEFINE_FIELD_DECODERS(time, UINT64_MAX)
DEFINE_FIELD_DECODERS(kind, MR_EV_NR_KINDS - 1)
DEFINE_FIELD_DECODERS(page, UINT32_MAX)
DEFINE_FIELD_DECODERS(task, UINT32_MAX)
DEFINE_FIELD_DECODERS(cpu, UINT16_MAX)
DEFINE_FIELD_DECODERS(flags, UINT8_MAX)
DEFINE_FIELD_DECODERS(size, UINT32_MAX)
DEFINE_FIELD_DECODERS(arg, UINT64_MAX)

#define FIELD_DECODERS(f) \
	{ dec_##f##_const, dec_##f##_varint, dec_##f##_delta, dec_##f##_rle, dec_##f##_drle, \
	  dec_##f##_nzdelta, dec_##f##_dbits }

/* field_dec[column][encoding] */
static const col_dec_fn field_dec[MR_COL_NR][MR_ENC_NR] = {
	[MR_COL_TIME] = FIELD_DECODERS(time), [MR_COL_KIND] = FIELD_DECODERS(kind),
	[MR_COL_PAGE] = FIELD_DECODERS(page), [MR_COL_TASK] = FIELD_DECODERS(task),
	[MR_COL_CPU] = FIELD_DECODERS(cpu),   [MR_COL_FLAGS] = FIELD_DECODERS(flags),
	[MR_COL_SIZE] = FIELD_DECODERS(size), [MR_COL_ARG] = FIELD_DECODERS(arg),
};

int mr_col_decode(const uint8_t *in, size_t in_len, enum mr_col_enc enc, uint64_t *vals,
		  size_t n)
{
	static const uint8_t empty[1];
	uint8_t *dst = (uint8_t *)vals;
	struct col_dec d;
	int rc;

	if (!vals || !n || (!in && in_len))
		return MR_EINVAL;
	if (!in)
		in = empty;
	if (col_start(&d, in, in_len, enc, n, UINT64_MAX))
		return MR_ECORRUPT;
	switch (enc) {
	case MR_ENC_CONST:
		rc = dec_const(&d, dst, 8, 8, n);
		break;
	case MR_ENC_VARINT:
	case MR_ENC_DELTA:
		rc = dec_varints(&d, dst, 8, 8, UINT64_MAX, enc == MR_ENC_DELTA, n);
		break;
	case MR_ENC_NZDELTA:
		rc = dec_nzdelta(&d, dst, 8, 8, UINT64_MAX, n);
		break;
	case MR_ENC_DBITS:
		rc = dec_dbits(&d, dst, 8, 8, UINT64_MAX, n);
		break;
	default:
		rc = dec_runs(&d, dst, 8, 8, UINT64_MAX, enc == MR_ENC_DELTA_RLE, n);
		break;
	}
	if (rc || col_finish(&d))
		return MR_ECORRUPT;
	return MR_OK;
}

/* ---- chunks ---- */

/* Largest column payload n events can produce: every column at most its VARINT size. */
static size_t payload_max(size_t n)
{
	size_t sum = 0;

	for (int c = 0; c < MR_COL_NR; c++)
		sum += COL_HDR_MAX + col_max_bytes[c] * n;
	return sum;
}

size_t mr_chunk_bound(size_t n_events)
{
	if (n_events > MR_CHUNK_MAX_EVENTS)
		n_events = MR_CHUNK_MAX_EVENTS; /* no chunk holds more */
	return MR_CHUNK_HEADER_SIZE + (size_t)LZ4_COMPRESSBOUND(payload_max(n_events));
}

/*
 * Encode: 8-byte alignment slack, one u64 column (n values), the column payload and
 * PAYLOAD_SLACK bytes for whole-word varint stores, then a byte per event for the JOINT
 * column's indices. Decode: the payload at the start.
 */
size_t mr_chunk_scratch_size(size_t n_events)
{
	if (n_events > MR_CHUNK_MAX_EVENTS)
		n_events = MR_CHUNK_MAX_EVENTS;
	return sizeof(uint64_t) + n_events * sizeof(uint64_t) + payload_max(n_events) +
	       PAYLOAD_SLACK + n_events; /* the joint column's indices */
}

/* Copy column c of ev into vals. */
static void col_extract(const struct mr_event *ev, size_t n, int c, uint64_t *vals)
{
	size_t i;

#define EXTRACT(field)                     \
	for (i = 0; i < n; i++)            \
		vals[i] = ev[i].field;     \
	break

	switch (c) {
	case MR_COL_TIME:
		EXTRACT(time);
	case MR_COL_KIND:
		EXTRACT(kind);
	case MR_COL_PAGE:
		EXTRACT(page);
	case MR_COL_TASK:
		EXTRACT(task);
	case MR_COL_CPU:
		EXTRACT(cpu);
	case MR_COL_FLAGS:
		EXTRACT(flags);
	case MR_COL_SIZE:
		EXTRACT(size);
	case MR_COL_ARG:
		EXTRACT(arg);
	}
#undef EXTRACT
}

/*
 * One pass over the events: bit c of the result is set when column c holds more than
 * one value, so the usual constant columns are never extracted or measured.
 * *kind_max gets the largest kind.
 */
static unsigned col_varying(const struct mr_event *ev, size_t n, unsigned *kind_max)
{
	uint64_t time = 0, arg = 0;
	uint32_t page = 0, task = 0, size = 0;
	unsigned cpu = 0, kind = 0, flags = 0, kmax = 0, mask = 0;

	for (size_t i = 0; i < n; i++) {
		time |= ev[i].time ^ ev[0].time;
		arg |= ev[i].arg ^ ev[0].arg;
		page |= ev[i].page ^ ev[0].page;
		task |= ev[i].task ^ ev[0].task;
		size |= ev[i].size ^ ev[0].size;
		cpu |= ev[i].cpu ^ ev[0].cpu;
		kind |= ev[i].kind ^ ev[0].kind;
		flags |= ev[i].flags ^ ev[0].flags;
		kmax = ev[i].kind > kmax ? ev[i].kind : kmax;
	}
	mask |= !!time << MR_COL_TIME | !!kind << MR_COL_KIND | !!page << MR_COL_PAGE;
	mask |= !!task << MR_COL_TASK | !!cpu << MR_COL_CPU | !!flags << MR_COL_FLAGS;
	mask |= !!size << MR_COL_SIZE | !!arg << MR_COL_ARG;
	*kind_max = kmax;
	return mask;
}

/* Extract varying column c into vals and measure it: its encoding and size. */
static void col_plan(const struct mr_event *ev, size_t n, int c, uint64_t *vals,
		     enum mr_col_enc *enc, size_t *sz)
{
	size_t all[MR_ENC_NR];

	col_extract(ev, n, c, vals);
	/*
	 * DBITS is for timestamps. The other columns are small integers (kind, flags) or
	 * ids whose runs and repeats LZ4 shrinks well below their size before it, which is
	 * what the sizes compare; packed bits it cannot shrink. Not even measured for them.
	 */
	*enc = col_measure(vals, n, all, c == MR_COL_TIME);
	*sz = all[*enc];
}

/*
 * ---- JOINT: the small columns as one (format version 3) ----
 *
 * kind, task, cpu, flags and size often vary together and little: a trace of accesses
 * and fd accesses alternates (kind, flags, size) between a handful of tuples, each
 * column in runs of one or two events, so four run decoders each pay per run for what
 * one index per event into a table of tuples carries. Fields size, cpu, kind and flags
 * are the last 8 bytes of struct mr_event ("tail"); the decoder merges a tuple's tail
 * into an event with one masked store, and task with one more when it is a member.
 */
#define JOINT_COLS                                                                       \
	(1u << MR_COL_KIND | 1u << MR_COL_TASK | 1u << MR_COL_CPU | 1u << MR_COL_FLAGS | \
	 1u << MR_COL_SIZE)
#define JOINT_MAX 256u
#define JOINT_HASH_BITS 10
#define TAIL_OFF offsetof(struct mr_event, size)

_Static_assert(offsetof(struct mr_event, size) == 24 && offsetof(struct mr_event, cpu) == 28 &&
		       offsetof(struct mr_event, kind) == 30 &&
		       offsetof(struct mr_event, flags) == 31 && sizeof(struct mr_event) == 32,
	       "the joint columns' fields must be the last 8 bytes of struct mr_event");

static inline uint64_t tail_load(const struct mr_event *e)
{
	uint64_t t;

	memcpy(&t, (const uint8_t *)e + TAIL_OFF, 8);
	return t;
}

static inline void tail_store(struct mr_event *e, uint64_t t)
{
	memcpy((uint8_t *)e + TAIL_OFF, &t, 8);
}

/* The bytes of the tail the member columns of mask own, in memory order. */
static uint64_t tail_mask(unsigned mask)
{
	struct mr_event m;

	memset(&m, 0, sizeof(m));
	if (mask & 1u << MR_COL_SIZE)
		m.size = UINT32_MAX;
	if (mask & 1u << MR_COL_CPU)
		m.cpu = UINT16_MAX;
	if (mask & 1u << MR_COL_KIND)
		m.kind = UINT8_MAX;
	if (mask & 1u << MR_COL_FLAGS)
		m.flags = UINT8_MAX;
	return tail_load(&m);
}

static uint64_t col_value(const struct mr_event *e, int c)
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

/* The encoder's plan for one joint column. */
struct joint_plan {
	unsigned mask;
	uint32_t d;    /* tuples */
	unsigned w;    /* index bits when packed; 0 = (index, run) pairs */
	size_t body;   /* bytes of the column */
	uint8_t *idx;  /* n indices (the scratch's) */
	struct mr_event ent[JOINT_MAX]; /* a representative event of each tuple */
};

/* Index each event's tuple of the members of jp->mask; -1 when there are more than
 * JOINT_MAX tuples. Otherwise sizes the column (jp->w, jp->body). */
static int joint_build(const struct mr_event *ev, size_t n, struct joint_plan *jp)
{
	struct slot {
		uint64_t tail;
		uint32_t task;
		uint32_t idx1; /* index + 1, 0 = free */
	} tab[1u << JOINT_HASH_BITS];
	uint64_t tm = tail_mask(jp->mask), last_t = 0;
	uint32_t km = jp->mask & 1u << MR_COL_TASK ? UINT32_MAX : 0, last_k = 0;
	uint8_t last_i = 0;
	size_t dict = 2, runs = 0, run = 0; /* mask and mode bytes */
	uint32_t d = 0;

	memset(tab, 0, sizeof(tab));
	for (size_t i = 0; i < n; i++) {
		uint64_t t = tail_load(&ev[i]) & tm;
		uint32_t k = ev[i].task & km;

		if (i && t == last_t && k == last_k) {
			jp->idx[i] = last_i;
			run++;
			continue;
		}
		uint64_t h = (t ^ ((uint64_t)k << 29)) * 0x9e3779b97f4a7c15ull;
		size_t s = (size_t)(h >> (64 - JOINT_HASH_BITS));

		while (tab[s].idx1 && (tab[s].tail != t || tab[s].task != k))
			s = (s + 1) & ((1u << JOINT_HASH_BITS) - 1);
		if (!tab[s].idx1) {
			if (d == JOINT_MAX)
				return -1;
			tab[s] = (struct slot){ t, k, ++d };
			jp->ent[d - 1] = ev[i];
			for (int c = 0; c < MR_COL_NR; c++)
				if (jp->mask & 1u << c)
					dict += varint_len(col_value(&ev[i], c));
		}
		if (i)
			runs += varint_len(last_i) + varint_len(run);
		last_t = t;
		last_k = k;
		last_i = (uint8_t)(tab[s].idx1 - 1);
		jp->idx[i] = last_i;
		run = 1;
	}
	runs += varint_len(last_i) + varint_len(run);
	jp->d = d;
	dict += varint_len(d);
	jp->w = d <= 2 ? 1 : d <= 4 ? 2 : d <= 16 ? 4 : 8;
	if (runs < (n * jp->w + 7) / 8) {
		jp->w = 0;
		jp->body = dict + runs;
	} else {
		jp->body = dict + (n * jp->w + 7) / 8;
	}
	return 0;
}

static size_t col_slot_size(size_t body)
{
	return 1 + varint_len(body) + body;
}

/*
 * Which of the varying small columns go into one JOINT column, given their own sizes
 * sz[c]: the largest set whose tuples fit in JOINT_MAX and whose column is no larger
 * than the members' own (task and size, the columns with many values in recordings,
 * are dropped first). 0 = none, jp->mask = 0.
 */
static unsigned joint_choose(const struct mr_event *ev, size_t n, unsigned varying,
			     const size_t sz[MR_COL_NR], struct joint_plan *jp)
{
	static const unsigned drop[] = {
		0,
		1u << MR_COL_TASK,
		1u << MR_COL_SIZE,
		1u << MR_COL_TASK | 1u << MR_COL_SIZE,
		1u << MR_COL_TASK | 1u << MR_COL_SIZE | 1u << MR_COL_CPU,
	};
	unsigned cand = varying & JOINT_COLS, tried[5];

	jp->mask = 0;
	for (size_t a = 0; a < sizeof(drop) / sizeof(drop[0]); a++) {
		unsigned m = cand & ~drop[a];
		size_t own = 0, joint;
		int dup = 0;

		tried[a] = m;
		for (size_t b = 0; b < a; b++)
			dup |= tried[b] == m;
		if (dup || __builtin_popcount(m) < 2)
			continue;
		jp->mask = m;
		if (joint_build(ev, n, jp))
			continue;
		for (int c = 0; c < MR_COL_NR; c++)
			if (m & 1u << c)
				own += col_slot_size(sz[c]);
		/* the other members' slots: an enc byte and a zero length each */
		joint = col_slot_size(jp->body) + 2 * ((size_t)__builtin_popcount(m) - 1);
		if (joint <= own)
			return m;
	}
	jp->mask = 0;
	return 0;
}

/* Write the JOINT column's bytes (jp->body of them) at p. */
static uint8_t *joint_write(const struct joint_plan *jp, size_t n, uint8_t *p)
{
	*p++ = (uint8_t)jp->mask;
	p = put_varint(p, jp->d);
	for (uint32_t e = 0; e < jp->d; e++)
		for (int c = 0; c < MR_COL_NR; c++)
			if (jp->mask & 1u << c)
				p = put_varint(p, col_value(&jp->ent[e], c));
	*p++ = (uint8_t)jp->w;
	if (jp->w) {
		size_t bytes = (n * jp->w + 7) / 8;

		memset(p, 0, bytes);
		for (size_t i = 0; i < n; i++)
			p[i * jp->w / 8] |= (uint8_t)(jp->idx[i] << (i * jp->w % 8));
		return p + bytes;
	}
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;

		while (j < n && jp->idx[j] == jp->idx[i])
			j++;
		p = put_varint(p, jp->idx[i]);
		p = put_varint(p, j - i);
		i = j;
	}
	return p;
}

/*
 * The chunk checksum: header bytes 4..11 (n_events, payload_len) and then the payload.
 * n_events must be covered: a chunk whose columns are all CONST holds no count of its
 * own, so a damaged n_events would otherwise decode into a different number of events.
 */
static uint32_t chunk_crc(const uint8_t *blob, const uint8_t *payload, size_t plen)
{
	return mr_crc32c(mr_crc32c(0, blob + 4, 8), payload, plen);
}

int mr_chunk_encode(const struct mr_event *ev, size_t n, void *scratch, size_t scratch_cap,
		    uint8_t *out, size_t out_cap, size_t *out_len, struct mr_error *err)
{
	uint64_t *vals;
	uint8_t *payload, *p;
	size_t plen, payload_cap, sz[MR_COL_NR];
	enum mr_col_enc enc[MR_COL_NR];
	struct joint_plan plan, *jp = &plan;
	unsigned varying, kind_max, joint, measured;
	int clen;

	if (!ev || !out_len || n < 1 || n > MR_CHUNK_MAX_EVENTS)
		return mr_error_set(err, MR_EINVAL,
				    "chunk encode: %zu events (must be 1..%u, with buffers)", n,
				    MR_CHUNK_MAX_EVENTS);
	if (!scratch || scratch_cap < mr_chunk_scratch_size(n))
		return mr_error_set(err, MR_EINVAL,
				    "chunk encode: scratch of %zu bytes, %zu needed for %zu events",
				    scratch_cap, mr_chunk_scratch_size(n), n);
	vals = (uint64_t *)(((uintptr_t)scratch + 7) & ~(uintptr_t)7);
	payload = (uint8_t *)(vals + n);
	payload_cap = payload_max(n) + PAYLOAD_SLACK;
	p = payload;

	varying = col_varying(ev, n, &kind_max);
	if (kind_max >= MR_EV_NR_KINDS) {
		size_t i = 0;

		while (ev[i].kind < MR_EV_NR_KINDS)
			i++;
		return mr_error_set(err, MR_EINVAL, "chunk encode: event %zu has kind %u (max %u)",
				    i, ev[i].kind, MR_EV_NR_KINDS - 1);
	}

	/*
	 * The small columns as one, where that is no larger than their own encodings,
	 * which are measured first; the other columns are extracted once, below.
	 */
	joint = 0;
	measured = 0;
	if (__builtin_popcount(varying & JOINT_COLS) >= 2) {
		measured = varying & JOINT_COLS;
		for (int c = 0; c < MR_COL_NR; c++)
			if (measured & 1u << c)
				col_plan(ev, n, c, vals, &enc[c], &sz[c]);
		jp->idx = (uint8_t *)(payload + payload_cap);
		joint = joint_choose(ev, n, varying, sz, jp);
	}

	for (int c = 0; c < MR_COL_NR; c++) {
		uint8_t *q;

		if (joint & 1u << c) {
			int first = !(joint & ((1u << c) - 1));

			*p++ = first ? MR_ENC_JOINT : MR_ENC_JOINED;
			p = put_varint(p, first ? jp->body : 0);
			if (!first)
				continue;
			q = joint_write(jp, n, p);
			if (MR_WARN_ON_ONCE((size_t)(q - p) != jp->body))
				return mr_error_set(err, MR_EINVAL, "chunk encode: joint size mismatch");
			p = q;
			continue;
		}
		if (!(varying & 1u << c)) {
			enc[c] = MR_ENC_CONST;
			sz[c] = varint_len(col_value(ev, c));
			col_extract(ev, 1, c, vals);
		} else if (measured & 1u << c) {
			col_extract(ev, n, c, vals); /* measured above, not joined */
		} else {
			col_plan(ev, n, c, vals, &enc[c], &sz[c]);
		}
		*p++ = (uint8_t)enc[c];
		p = put_varint(p, sz[c]);
		q = col_write(vals, n, enc[c], p, payload + payload_cap);
		if (MR_WARN_ON_ONCE((size_t)(q - p) != sz[c]))
			return mr_error_set(err, MR_EINVAL, "chunk encode: column size mismatch");
		p = q;
	}
	plen = (size_t)(p - payload);
	if (MR_WARN_ON_ONCE(plen > payload_max(n)))
		return mr_error_set(err, MR_EINVAL, "chunk encode: payload over its bound");

	if (!out || out_cap <= MR_CHUNK_HEADER_SIZE)
		return mr_error_set(err, MR_ENOSPC, "chunk encode: output buffer of %zu bytes",
				    out_cap);
	clen = LZ4_compress_default((const char *)payload, (char *)out + MR_CHUNK_HEADER_SIZE,
				    (int)plen,
				    out_cap - MR_CHUNK_HEADER_SIZE > INT_MAX ?
					    INT_MAX :
					    (int)(out_cap - MR_CHUNK_HEADER_SIZE));
	if (clen <= 0)
		return mr_error_set(err, MR_ENOSPC,
				    "chunk encode: output buffer of %zu bytes too small "
				    "(mr_chunk_bound(%zu) = %zu)",
				    out_cap, n, mr_chunk_bound(n));
	memcpy(out, MR_CHUNK_MAGIC, 4);
	le32_store(out + 4, (uint32_t)n);
	le32_store(out + 8, (uint32_t)plen);
	le32_store(out + 12, chunk_crc(out, payload, plen));
	*out_len = MR_CHUNK_HEADER_SIZE + (size_t)clen;
	return MR_OK;
}

int mr_chunk_peek(const uint8_t *in, size_t in_len, struct mr_chunk_info *info,
		  struct mr_error *err)
{
	uint32_t n, plen;

	if (!in || in_len < MR_CHUNK_HEADER_SIZE)
		return mr_error_set(err, MR_ECORRUPT,
				    "corrupt chunk: %zu bytes, shorter than its %d-byte header",
				    in ? in_len : 0, MR_CHUNK_HEADER_SIZE);
	if (memcmp(in, MR_CHUNK_MAGIC, 4))
		return mr_error_set(err, MR_ECORRUPT, "corrupt chunk: bad magic (not \"%s\")",
				    MR_CHUNK_MAGIC);
	n = le32_load(in + 4);
	plen = le32_load(in + 8);
	if (n < 1 || n > MR_CHUNK_MAX_EVENTS)
		return mr_error_set(err, MR_ECORRUPT,
				    "corrupt chunk: %u events (must be 1..%u)", n,
				    MR_CHUNK_MAX_EVENTS);
	if (plen > payload_max(n))
		return mr_error_set(err, MR_ECORRUPT,
				    "corrupt chunk: payload of %u bytes, more than %zu events can need",
				    plen, (size_t)n);
	if (info) {
		memset(info, 0, sizeof(*info));
		info->n_events = n;
		info->payload_len = plen;
		info->crc = le32_load(in + 12);
	}
	return MR_OK;
}

/* ---- JOINT decoding ---- */

/* Where the chunk's joint column stands; lives across blocks of events. */
struct joint_dec {
	const uint8_t *p, *end; /* packed: the indices; runs: the pairs not yet read */
	const uint8_t *bits;    /* packed: the first byte of the indices */
	size_t next;            /* index of the next event */
	uint64_t tmask;         /* the tail bytes the members own */
	uint32_t d, left, cur;  /* tuples; runs: events left in the run, its index */
	unsigned w, task;       /* index bits (0 = runs); task is a member */
	unsigned plain;         /* tail[] holds every tail byte an event needs before the
				 * later columns write theirs: stored, not merged */
	const char *why;
	uint64_t tail[JOINT_MAX]; /* each tuple's tail bytes (outside tmask: 0) */
	uint32_t taskv[JOINT_MAX];
};

static int joint_fail(struct joint_dec *j, const char *why)
{
	j->why = why;
	return -1;
}

/* Read the joint column of slot c: len bytes at in, n events. */
static int joint_start(struct joint_dec *j, int c, const uint8_t *in, size_t len, size_t n)
{
	const uint8_t *p = in, *end = in + len;
	struct vres r;
	unsigned mask;

	memset(j, 0, offsetof(struct joint_dec, tail));
	memset(j->tail, 0, sizeof(j->tail));
	memset(j->taskv, 0, sizeof(j->taskv));
	if (p == end)
		return joint_fail(j, "joint column: no member mask");
	mask = *p++;
	if ((mask & ~JOINT_COLS) || !(mask & 1u << c) || (mask & ((1u << c) - 1)) ||
	    __builtin_popcount(mask) < 2)
		return joint_fail(j, "joint column: its member mask is not one the format allows");
	r = varint_get(p, end);
	if (!r.p)
		return joint_fail(j, varint_why(p, end));
	if (r.v < 1 || r.v > JOINT_MAX)
		return joint_fail(j, "joint column: not 1 to 256 tuples");
	p = r.p;
	j->d = (uint32_t)r.v;
	j->tmask = tail_mask(mask);
	j->task = !!(mask & 1u << MR_COL_TASK);
	for (uint32_t e = 0; e < j->d; e++) {
		struct mr_event t;

		memset(&t, 0, sizeof(t));
		for (int m = 0; m < MR_COL_NR; m++) {
			if (!(mask & 1u << m))
				continue;
			r = varint_get(p, end);
			if (!r.p)
				return joint_fail(j, varint_why(p, end));
			if (r.v > col_max[m])
				return joint_fail(j, "joint column: a tuple's value is too large for its field");
			p = r.p;
			switch (m) {
			case MR_COL_KIND:
				t.kind = (uint8_t)r.v;
				break;
			case MR_COL_TASK:
				t.task = (uint32_t)r.v;
				break;
			case MR_COL_CPU:
				t.cpu = (uint16_t)r.v;
				break;
			case MR_COL_FLAGS:
				t.flags = (uint8_t)r.v;
				break;
			default:
				t.size = (uint32_t)r.v;
				break;
			}
		}
		j->tail[e] = tail_load(&t);
		j->taskv[e] = t.task;
	}
	if (p == end)
		return joint_fail(j, "joint column: no index mode");
	j->w = *p++;
	if (j->w) {
		size_t bytes;

		if (j->w != 1 && j->w != 2 && j->w != 4 && j->w != 8)
			return joint_fail(j, "joint column: index width not 1, 2, 4 or 8 bits");
		if (j->w < 8 && j->d > 1u << j->w)
			return joint_fail(j, "joint column: more tuples than its index width reaches");
		bytes = (n * j->w + 7) / 8;
		if ((size_t)(end - p) != bytes)
			return joint_fail(j, "joint column: not one packed index per event");
		if ((n * j->w) % 8 && (p[bytes - 1] >> ((n * j->w) % 8)))
			return joint_fail(j, "joint column: padding bits after the last index");
		j->bits = p;
		p = end;
	}
	j->p = p;
	j->end = end;
	return 0;
}

/*
 * After the column headers: the CONST columns' values go into every tuple's tail, so
 * that a tuple's 8 bytes can be stored as they are, without a load, unless a varying
 * column outside the tuple is decoded before the joint one (kind, when the joint column
 * is task's or a later one's) and must be kept: then the tuple is merged under tmask.
 */
static void joint_fold(struct joint_dec *j, int jcol, const uint8_t enc[MR_COL_NR],
		       const struct mr_event *tmpl)
{
	uint64_t cmask = 0, cval;

	for (int c = MR_COL_KIND; c < MR_COL_NR; c++) {
		uint64_t m = tail_mask(1u << c);

		if (!m || (j->tmask & m))
			continue;
		if (enc[c] == MR_ENC_CONST)
			cmask |= m;
		else if (c < jcol)
			return; /* merged: plain stays 0 */
	}
	cval = tail_load(tmpl) & cmask;
	for (uint32_t e = 0; e < j->d; e++)
		j->tail[e] |= cval;
	j->plain = 1;
}

/* One event's tuple stored, or merged under tm (with_task, plain: constants). */
static inline __attribute__((always_inline)) void joint_apply(const struct joint_dec *j,
							       struct mr_event *e, unsigned ix,
							       uint64_t tm, int with_task,
							       int plain)
{
	tail_store(e, plain ? j->tail[ix] : (tail_load(e) & ~tm) | j->tail[ix]);
	if (with_task)
		e->task = j->taskv[ix];
}

/* Packed indices of w bits (a constant in each caller): cnt events of the block. */
static inline __attribute__((always_inline)) int joint_packed(struct joint_dec *j,
							       struct mr_event *ev, size_t cnt,
							       unsigned w, int with_task, int plain)
{
	const uint8_t *bits = j->bits;
	uint64_t tm = j->tmask;
	unsigned bad = 0, lim = j->d, m = (1u << w) - 1;
	size_t x = j->next;

	for (size_t i = 0; i < cnt; i++, x++) {
		unsigned ix = (bits[x * w / 8] >> (x * w % 8)) & m;

		bad |= ix >= lim;
		joint_apply(j, &ev[i], ix, tm, with_task, plain);
	}
	j->next = x;
	return bad ? joint_fail(j, "joint column: an index beyond its tuples") : 0;
}

static inline __attribute__((always_inline)) int joint_runs(struct joint_dec *j,
							     struct mr_event *ev, size_t cnt,
							     int with_task, int plain)
{
	const uint8_t *p = j->p, *end = j->end;
	uint64_t tm = j->tmask;
	uint32_t cur = j->cur, left = j->left;
	size_t i = 0;

	while (i < cnt) {
		if (!left) {
			uint64_t ix, run;

			if (__builtin_expect(end - p >= 2 && (p[0] | p[1]) < 0x80, 1)) {
				/* the usual pair: index and run of one byte each */
				ix = p[0];
				run = p[1];
				p += 2;
			} else {
				struct vres r;

				if (p == end)
					return joint_fail(j, "joint column: runs add up to fewer events than the chunk holds");
				r = varint_get(p, end);
				if (!r.p)
					return joint_fail(j, varint_why(p, end));
				ix = r.v;
				p = r.p;
				r = varint_get(p, end);
				if (!r.p)
					return joint_fail(j, varint_why(p, end));
				run = r.v;
				p = r.p;
			}
			if (ix >= j->d)
				return joint_fail(j, "joint column: an index beyond its tuples");
			if (!run || run > MR_CHUNK_MAX_EVENTS)
				return joint_fail(j, "joint column: a run of 0 or more events than a chunk holds");
			cur = (uint32_t)ix;
			left = (uint32_t)run;
		}
		if (cnt - i >= RUN_FILL) {
			/* as dec_runs(): RUN_FILL events whatever the run's length, no branch
			 * on it; the runs after it rewrite the events past it */
			size_t take = left < RUN_FILL ? left : RUN_FILL;

#pragma GCC unroll 8
			for (size_t e = 0; e < RUN_FILL; e++)
				joint_apply(j, &ev[i + e], cur, tm, with_task, plain);
			i += take;
			left -= (uint32_t)take;
			continue;
		}
		size_t k = left < cnt - i ? left : cnt - i;

		for (size_t e = 0; e < k; e++)
			joint_apply(j, &ev[i + e], cur, tm, with_task, plain);
		i += k;
		left -= (uint32_t)k;
	}
	j->p = p;
	j->cur = cur;
	j->left = left;
	j->next += cnt;
	return 0;
}

static int joint_block(struct joint_dec *j, struct mr_event *ev, size_t cnt)
{
#define JOINT_TP(call, ...)                                                          \
	(j->task ? (j->plain ? call(__VA_ARGS__, 1, 1) : call(__VA_ARGS__, 1, 0)) :   \
		   (j->plain ? call(__VA_ARGS__, 0, 1) : call(__VA_ARGS__, 0, 0)))
#define JOINT_W(w) \
	case w:    \
		return JOINT_TP(joint_packed, j, ev, cnt, w)

	switch (j->w) {
		JOINT_W(1);
		JOINT_W(2);
		JOINT_W(4);
		JOINT_W(8);
	default:
		return JOINT_TP(joint_runs, j, ev, cnt);
	}
#undef JOINT_W
#undef JOINT_TP
}

static int joint_finish(struct joint_dec *j)
{
	if (j->left)
		return joint_fail(j, "joint column: runs add up to more events than the chunk holds");
	if (j->p != j->end)
		return joint_fail(j, "joint column: bytes left after its last index");
	return 0;
}

static int corrupt_col(struct mr_error *err, int c, const char *why)
{
	return mr_error_set(err, MR_ECORRUPT, "corrupt chunk: column %s: %s", col_name[c], why);
}

int mr_chunk_decode(const uint8_t *in, size_t in_len, void *scratch, size_t scratch_cap,
		    struct mr_event *ev, size_t ev_cap, size_t *n_out,
		    struct mr_chunk_info *info, struct mr_error *err)
{
	struct mr_chunk_info hdr;
	struct col_dec dec[MR_COL_NR];
	struct joint_dec jd;
	col_dec_fn fn[MR_COL_NR];
	struct mr_event tmpl;
	uint8_t *payload = scratch;
	const uint8_t *p, *end;
	int active[MR_COL_NR], n_active = 0, n_const = 0, got, rc, too_many, jcol = -1;
	unsigned joined = 0; /* the members of the joint column */
	size_t n;

	if (n_out)
		*n_out = 0;
	rc = mr_chunk_peek(in, in_len, &hdr, err);
	if (rc)
		return rc;
	n = hdr.n_events;
	if (!ev || !n_out)
		return mr_error_set(err, MR_EINVAL, "chunk decode: no event array");
	/*
	 * Too many events for ev: still verify the chunk when the scratch can hold its
	 * payload, so that a damaged n_events reads as MR_ECORRUPT, not MR_ENOSPC.
	 */
	too_many = n > ev_cap;
	if (too_many && (!scratch || scratch_cap < hdr.payload_len))
		return mr_error_set(err, MR_ENOSPC, "chunk decode: %zu events, room for %zu", n,
				    ev_cap);
	if (!too_many && (!scratch || scratch_cap < mr_chunk_scratch_size(n)))
		return mr_error_set(err, MR_EINVAL,
				    "chunk decode: scratch of %zu bytes, %zu needed for %zu events",
				    scratch_cap, mr_chunk_scratch_size(n), n);
	if (in_len - MR_CHUNK_HEADER_SIZE > INT_MAX)
		return mr_error_set(err, MR_ECORRUPT, "corrupt chunk: %zu bytes is too long",
				    in_len);

	got = LZ4_decompress_safe((const char *)in + MR_CHUNK_HEADER_SIZE, (char *)payload,
				  (int)(in_len - MR_CHUNK_HEADER_SIZE), (int)hdr.payload_len);
	if (got < 0 || (uint32_t)got != hdr.payload_len)
		return mr_error_set(err, MR_ECORRUPT,
				    "corrupt chunk: LZ4 data damaged or not %u bytes long",
				    hdr.payload_len);
	if (chunk_crc(in, payload, hdr.payload_len) != hdr.crc)
		return mr_error_set(err, MR_ECORRUPT, "corrupt chunk: checksum mismatch");
	if (too_many)
		return mr_error_set(err, MR_ENOSPC, "chunk decode: %zu events, room for %zu", n,
				    ev_cap);

	/* column headers: enc, byte_len, then byte_len bytes */
	p = payload;
	end = payload + hdr.payload_len;
	memset(&tmpl, 0, sizeof(tmpl));
	for (int c = 0; c < MR_COL_NR; c++) {
		struct vres r;
		unsigned enc;

		if (p == end)
			return corrupt_col(err, c, "missing");
		enc = *p++;
		if (enc >= MR_CHUNK_ENC_NR)
			return corrupt_col(err, c, "unknown encoding");
		r = varint_get(p, end);
		if (!r.p)
			return corrupt_col(err, c, varint_why(p, end));
		if (r.v > (uint64_t)(end - r.p))
			return corrupt_col(err, c, "longer than the payload");
		hdr.enc[c] = (uint8_t)enc;
		if ((enc == MR_ENC_JOINED) != !!(joined & 1u << c))
			return corrupt_col(err, c, enc == MR_ENC_JOINED ?
						   "joined to no joint column before it" :
						   "a member of the joint column, but not joined to it");
		if (enc == MR_ENC_JOINED) {
			if (r.v)
				return corrupt_col(err, c, "a joined column holds bytes");
			p = r.p;
			continue;
		}
		if (enc == MR_ENC_JOINT) {
			if (jcol >= 0)
				return corrupt_col(err, c, "a second joint column");
			if (joint_start(&jd, c, r.p, (size_t)r.v, n))
				return corrupt_col(err, c, jd.why);
			jcol = c;
			joined = (unsigned)r.p[0] & ~(1u << c);
			p = r.p + r.v;
			continue;
		}
		if (col_start(&dec[c], r.p, (size_t)r.v, enc, n, col_max[c]))
			return corrupt_col(err, c, dec[c].why);
		p = r.p + r.v;
		fn[c] = field_dec[c][enc];
		if (enc == MR_ENC_CONST) {
			/* the template takes it; fn fills it if there is no template */
			fn[c](&dec[c], &tmpl, 1);
			n_const++;
		}
	}
	if (p != end)
		return mr_error_set(err, MR_ECORRUPT,
				    "corrupt chunk: %zu bytes after the last column",
				    (size_t)(end - p));
	if (jcol >= 0)
		joint_fold(&jd, jcol, hdr.enc, &tmpl);
	for (int c = 0; c < MR_COL_NR; c++)
		if (hdr.enc[c] != MR_ENC_JOINED && (hdr.enc[c] != MR_ENC_CONST || n_const < 2))
			active[n_active++] = c;

	/* Block by block, so the events stay in L1 while every column visits them. */
	for (size_t base = 0; base < n; base += DEC_BLOCK) {
		size_t cnt = n - base < DEC_BLOCK ? n - base : DEC_BLOCK;
		struct mr_event *blk = ev + base;

		if (n_const >= 2)
			for (size_t i = 0; i < cnt; i++)
				blk[i] = tmpl;
		for (int a = 0; a < n_active; a++) {
			int c = active[a];

			if (c == jcol) {
				if (joint_block(&jd, blk, cnt))
					return corrupt_col(err, c, jd.why);
			} else if (fn[c](&dec[c], blk, cnt)) {
				return corrupt_col(err, c, dec[c].why);
			}
		}
	}
	for (int c = 0; c < MR_COL_NR; c++) {
		if (c == jcol ? joint_finish(&jd) :
				hdr.enc[c] != MR_ENC_JOINED && col_finish(&dec[c]))
			return corrupt_col(err, c, c == jcol ? jd.why : dec[c].why);
	}

	*n_out = n;
	if (info)
		*info = hdr;
	return MR_OK;
}
