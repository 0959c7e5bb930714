// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_chunk_decode.c - the chunk decoder's contract: any byte string decodes to events or
 * to MR_ECORRUPT (MR_ENOSPC when the caller's buffer is too small), never a crash or an
 * out-of-bounds access. Events it accepts must survive a round trip: encoded again and
 * decoded, they are the same events.
 *
 * Two kinds of input. A blob as stored in a chunk row, which exercises the header, LZ4
 * and checksum checks; a mutation of it rarely gets past the checksum. And, starting with
 * 'P', n_events (4 bytes, little-endian) and a column payload, which the target wraps in
 * a valid blob (LZ4, header, CRC-32C) so the column decoders see every mutation.
 */
#include <lz4.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "mr_codec.h"

/* A valid blob around a column payload: 'P', n_events (LE u32), payload. */
static size_t wrap_payload(const uint8_t *data, size_t size, uint8_t *out, size_t cap)
{
	const uint8_t *payload = data + 5;
	size_t plen = size - 5;
	uint32_t n, crc;
	int clen;

	memcpy(&n, data + 1, 4);
	n = n % MR_CHUNK_MAX_EVENTS + 1;
	if (plen > (size_t)LZ4_MAX_INPUT_SIZE || cap < MR_CHUNK_HEADER_SIZE + (size_t)LZ4_compressBound((int)plen))
		return 0;
	clen = LZ4_compress_default((const char *)payload, (char *)out + MR_CHUNK_HEADER_SIZE, (int)plen,
				    (int)(cap - MR_CHUNK_HEADER_SIZE));
	if (clen <= 0)
		return 0;
	memcpy(out, MR_CHUNK_MAGIC, 4);
	for (int i = 0; i < 4; i++) {
		out[4 + i] = (uint8_t)(n >> (8 * i));
		out[8 + i] = (uint8_t)(plen >> (8 * i));
	}
	crc = mr_crc32c(mr_crc32c(0, out + 4, 8), payload, plen);
	for (int i = 0; i < 4; i++)
		out[12 + i] = (uint8_t)(crc >> (8 * i));
	return MR_CHUNK_HEADER_SIZE + (size_t)clen;
}

static struct mr_event ev[MR_CHUNK_MAX_EVENTS], ev2[MR_CHUNK_MAX_EVENTS];
static void *scratch;
static uint8_t *blob, *wrapped;
static size_t scratch_cap, blob_cap, wrapped_cap;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mr_error err = { 0 };
	struct mr_chunk_info info;
	size_t n = 0, n2 = 0, len = 0, cap;
	int rc;

	if (!scratch) {
		scratch_cap = mr_chunk_scratch_size(MR_CHUNK_MAX_EVENTS);
		blob_cap = mr_chunk_bound(MR_CHUNK_MAX_EVENTS);
		wrapped_cap = MR_CHUNK_HEADER_SIZE + (size_t)LZ4_compressBound(1 << 24);
		scratch = malloc(scratch_cap);
		blob = malloc(blob_cap);
		wrapped = malloc(wrapped_cap);
		if (!scratch || !blob || !wrapped)
			abort();
	}
	if (size >= 5 && data[0] == 'P') {
		size = wrap_payload(data, size, wrapped, wrapped_cap);
		if (!size)
			return 0;
		data = wrapped;
	}
	/* a small event buffer now and then, for the ENOSPC path */
	cap = size && data[size - 1] == 0x5a ? 7 : MR_CHUNK_MAX_EVENTS;
	rc = mr_chunk_decode(data, size, scratch, scratch_cap, ev, cap, &n, &info, &err);
	if (rc != 0 && rc != MR_ECORRUPT && !(rc == MR_ENOSPC && cap < MR_CHUNK_MAX_EVENTS))
		abort();
	if (rc)
		return 0;
	if (n < 1 || n > cap || n != info.n_events)
		abort();
	if (mr_chunk_encode(ev, n, scratch, scratch_cap, blob, blob_cap, &len, &err))
		abort(); /* every decoded event must be encodable */
	if (mr_chunk_decode(blob, len, scratch, scratch_cap, ev2, MR_CHUNK_MAX_EVENTS, &n2, NULL, &err) ||
	    n2 != n || memcmp(ev, ev2, n * sizeof(*ev)))
		abort();
	return 0;
}
