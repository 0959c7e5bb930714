// SPDX-License-Identifier: GPL-2.0
/*
 * crc32c.c - CRC-32C (Castagnoli), the checksum of chunk payloads.
 *
 * Reflected polynomial 0x82F63B78, initial value and final xor ~0, so that
 * mr_crc32c(0, "123456789", 9) == 0xE3069283 and calls chain like zlib's crc32():
 * mr_crc32c(mr_crc32c(0, a, la), b, lb) == mr_crc32c(0, a || b, la + lb).
 *
 * Two implementations give identical results: the SSE4.2 crc32 instruction when the
 * CPU has it (checked at run time), else slicing-by-8 over tables built once, on first
 * use, under pthread_once.
 */
#include "mr_codec.h"

#include <pthread.h>
#include <string.h>

#define CRC32C_POLY 0x82F63B78u

/* Little-endian 64-bit load from any alignment (memcpy: one mov on x86). */
static inline uint64_t load_le64(const uint8_t *p)
{
	uint64_t x;

	memcpy(&x, p, sizeof(x));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	x = __builtin_bswap64(x);
#endif
	return x;
}

/* ---- software: slicing-by-8 ---- */

/* crc_table[k][b]: CRC of byte b followed by k zero bytes. */
static uint32_t crc_table[8][256];
static pthread_once_t crc_table_once = PTHREAD_ONCE_INIT;

static void init_crc_table(void)
{
	for (unsigned b = 0; b < 256; b++) {
		uint32_t c = b;

		for (int i = 0; i < 8; i++)
			c = (c >> 1) ^ (CRC32C_POLY & (0u - (c & 1)));
		crc_table[0][b] = c;
	}
	for (unsigned b = 0; b < 256; b++)
		for (int k = 1; k < 8; k++)
			crc_table[k][b] = (crc_table[k - 1][b] >> 8) ^
					  crc_table[0][crc_table[k - 1][b] & 0xff];
}

/* crc is the running (already inverted) register. */
static uint32_t crc32c_sw(uint32_t crc, const uint8_t *p, size_t len)
{
	pthread_once(&crc_table_once, init_crc_table);

	for (; len >= 8; p += 8, len -= 8) {
		uint64_t x = load_le64(p) ^ crc;

		crc = crc_table[7][x & 0xff] ^ crc_table[6][(x >> 8) & 0xff] ^
		      crc_table[5][(x >> 16) & 0xff] ^ crc_table[4][(x >> 24) & 0xff] ^
		      crc_table[3][(x >> 32) & 0xff] ^ crc_table[2][(x >> 40) & 0xff] ^
		      crc_table[1][(x >> 48) & 0xff] ^ crc_table[0][x >> 56];
	}
	while (len--)
		crc = (crc >> 8) ^ crc_table[0][(crc ^ *p++) & 0xff];
	return crc;
}

/* ---- hardware: SSE4.2 crc32 (same polynomial, same bit order) ---- */

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc32c_hw(uint32_t crc, const uint8_t *p,
							     size_t len)
{
	uint64_t c = crc;

	for (; len >= 32; p += 32, len -= 32) {
		c = __builtin_ia32_crc32di(c, load_le64(p));
		c = __builtin_ia32_crc32di(c, load_le64(p + 8));
		c = __builtin_ia32_crc32di(c, load_le64(p + 16));
		c = __builtin_ia32_crc32di(c, load_le64(p + 24));
	}
	for (; len >= 8; p += 8, len -= 8)
		c = __builtin_ia32_crc32di(c, load_le64(p));
	crc = (uint32_t)c;
	while (len--)
		crc = __builtin_ia32_crc32qi(crc, *p++);
	return crc;
}

static int have_sse42(void)
{
	return __builtin_cpu_supports("sse4.2");
}
#endif

/*
 * The table implementation on its own, whatever the CPU has. Not in mr_codec.h: it
 * exists so that tests/test_codec.c can check both paths on an SSE4.2 machine.
 */
uint32_t mr_crc32c_sw(uint32_t crc, const void *buf, size_t len);

uint32_t mr_crc32c_sw(uint32_t crc, const void *buf, size_t len)
{
	return ~crc32c_sw(~crc, buf, len);
}

uint32_t mr_crc32c(uint32_t crc, const void *buf, size_t len)
{
	if (!len)
		return crc;
#if defined(__x86_64__)
	if (have_sse42())
		return ~crc32c_hw(~crc, buf, len);
#endif
	return ~crc32c_sw(~crc, buf, len);
}
