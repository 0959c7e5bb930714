/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mr_codec.h - the event chunk codec: column-wise encoding + LZ4 + checksum.
 *
 * Pure functions over caller buffers: no SQLite, no FILE*, no allocation, no globals.
 * Every length read from the input is validated against the buffer it claims to lie in,
 * so any byte string given to mr_chunk_decode() yields either MR_OK with exactly the
 * events that were encoded, or MR_ECORRUPT with a message - never a crash or a wrong
 * event (the checksum covers the decoded payload).
 *
 * Chunk blob layout (all integers little-endian):
 *
 *   offset  size  field
 *   0       4     magic "MRC1"
 *   4       4     n_events      (1 .. MR_CHUNK_MAX_EVENTS)
 *   8       4     payload_len   (bytes of the column payload after LZ4 decompression)
 *   12      4     crc32c        (CRC-32C of bytes 4..11, then of the decompressed
 *                                  column payload: covers n_events, which an all-CONST
 *                                  payload does not repeat)
 *   16      ...   LZ4 block (LZ4_compress_default) of the column payload
 *
 * Column payload: MR_COL_NR columns in the order of enum mr_col, each
 *
 *   +-------+--------------------+------------------------+
 *   | enc 1 | byte_len (varint)  | byte_len encoded bytes |
 *   +-------+--------------------+------------------------+
 *
 * where enc is an enum mr_col_enc chosen per column per chunk as the smallest that fits,
 * or (trace format version 3) MR_ENC_JOINT: the small columns kind, task, cpu, flags and
 * size that vary together, stored once as one column of tuple indices in the slot of the
 * first of them, each other member's slot holding MR_ENC_JOINED and no bytes:
 *
 *   JOINT bytes: mask (1 byte: bit c for each member column c, the slot's own the
 *                lowest, at least two, all of them among kind/task/cpu/flags/size)
 *                d (varint, 1..256: the tuples), then d tuples, each the members'
 *                values as varints in column order, then a mode byte:
 *                  w = 1, 2, 4 or 8: the n indices packed w bits each, LSB first,
 *                                    exactly ceil(n w / 8) bytes, padding bits 0
 *                  0:                (index, run) varint pairs, runs >= 1 summing to n
 *
 * The encoder takes it where it is no larger than the members' own encodings; it
 * decodes with one table look-up per event where the members' runs took one state
 * machine each (docs/store-format.md).
 */
#ifndef MR_CODEC_H
#define MR_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "mr_err.h"
#include "mr_event.h"

#define MR_CHUNK_MAGIC "MRC1"
#define MR_CHUNK_HEADER_SIZE 16
#define MR_CHUNK_MAX_EVENTS 65536u
#define MR_CHUNK_DEFAULT_EVENTS 16384u

/* Columns of an event chunk, in payload order. */
enum mr_col {
	MR_COL_TIME = 0,
	MR_COL_KIND,
	MR_COL_PAGE,
	MR_COL_TASK,
	MR_COL_CPU,
	MR_COL_FLAGS,
	MR_COL_SIZE,
	MR_COL_ARG,
	MR_COL_NR
};

/* Column encodings. Values are u64; zigzag maps deltas to unsigned. */
enum mr_col_enc {
	MR_ENC_CONST = 0,    /* one varint: every value is equal */
	MR_ENC_VARINT = 1,   /* one LEB128 varint per value */
	MR_ENC_DELTA = 2,    /* first value varint, then zigzag(v[i]-v[i-1]) varints */
	MR_ENC_RLE = 3,      /* (value varint, run length varint) pairs */
	MR_ENC_DELTA_RLE = 4, /* first value varint, then RLE over zigzag deltas */
	/* Added in trace format version 2: */
	MR_ENC_NZDELTA = 5,  /* 0 stays 0, others zigzag delta + 1 from the last nonzero */
	MR_ENC_DBITS = 6,    /* first value, then zigzag deltas in groups of 64: zero map,
			      * frame of reference and bit-packed, outliers as varints */
	MR_ENC_NR
};

/* Chunk-level encodings of several columns together (trace format version 3); never
 * the encoding of one column alone (mr_col_*() refuse them). */
#define MR_ENC_JOINT 7  /* the tuples of the member columns and an index per event */
#define MR_ENC_JOINED 8 /* this column is a member of an earlier JOINT column: no bytes */
#define MR_CHUNK_ENC_NR 9

/* Worst-case blob size for n events (LZ4 bound of the worst payload + header). */
size_t mr_chunk_bound(size_t n_events);

/* Scratch bytes mr_chunk_encode()/mr_chunk_decode() need for n events. */
size_t mr_chunk_scratch_size(size_t n_events);

/*
 * Encode n (1..MR_CHUNK_MAX_EVENTS) events into out. scratch must hold
 * mr_chunk_scratch_size(n) bytes; out should hold mr_chunk_bound(n).
 * Returns 0 and sets *out_len, or MR_EINVAL / MR_ENOSPC with a message.
 */
int mr_chunk_encode(const struct mr_event *ev, size_t n, void *scratch, size_t scratch_cap,
		    uint8_t *out, size_t out_cap, size_t *out_len, struct mr_error *err);

/* Header fields of a blob, validated for size, magic, n_events range and payload_len
 * bound only (no decompression, no checksum). */
struct mr_chunk_info {
	uint32_t n_events;
	uint32_t payload_len;
	uint32_t crc;
	uint8_t enc[MR_COL_NR]; /* filled by mr_chunk_decode only */
};
int mr_chunk_peek(const uint8_t *in, size_t in_len, struct mr_chunk_info *info,
		  struct mr_error *err);

/*
 * Decode a blob into ev (capacity ev_cap events). scratch must hold
 * mr_chunk_scratch_size(ev_cap) bytes. Returns 0 and sets *n_out, or MR_ECORRUPT
 * (bad magic, lengths, LZ4 data, checksum, column data) / MR_ENOSPC (ev_cap too small).
 * info may be NULL; when given it receives the header and the encodings used.
 */
int mr_chunk_decode(const uint8_t *in, size_t in_len, void *scratch, size_t scratch_cap,
		    struct mr_event *ev, size_t ev_cap, size_t *n_out,
		    struct mr_chunk_info *info, struct mr_error *err);

/* Column level, exposed for tests and tools. */
size_t mr_col_bound(size_t n);
/* Encode vals with a given encoding; MR_EINVAL if enc cannot represent them (CONST). */
int mr_col_encode(const uint64_t *vals, size_t n, enum mr_col_enc enc, uint8_t *out,
		  size_t out_cap, size_t *out_len);
/* Smallest encoding for vals (ties go to the faster decoder). */
enum mr_col_enc mr_col_choose(const uint64_t *vals, size_t n);
/* Decode exactly n values; MR_ECORRUPT if in is malformed or not fully consumed. */
int mr_col_decode(const uint8_t *in, size_t in_len, enum mr_col_enc enc, uint64_t *vals,
		  size_t n);

/* CRC-32C (Castagnoli), as used for chunk payloads. */
uint32_t mr_crc32c(uint32_t crc, const void *buf, size_t len);

#endif /* MR_CODEC_H */
