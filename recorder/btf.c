// SPDX-License-Identifier: GPL-2.0
/*
 * btf.c - a minimal reader of the kernel's BTF (/sys/kernel/btf/vmlinux) that finds the
 * values of named enumerators, so that numbers which change between kernels (enum
 * node_stat_item: WORKINGSET_REFAULT_FILE is 18 on one kernel and 21 on another) are
 * read from the running kernel instead of compiled in.
 *
 * Layout (include/uapi/linux/btf.h; all fields in the host's byte order):
 *
 *   +----------------------------+  0
 *   | struct btf_header          |  magic 0xeB9F (u16), version (u8), flags (u8),
 *   |                            |  hdr_len, type_off, type_len, str_off, str_len (u32)
 *   +----------------------------+  hdr_len
 *   | type section               |  at hdr_len + type_off, type_len bytes:
 *   |   struct btf_type + extra  |    name_off, info (vlen:16 | kind:5 << 24), size/type
 *   |   struct btf_type + extra  |    followed by kind-specific data (see kind_extra())
 *   |   ...                      |
 *   +----------------------------+
 *   | string section             |  at hdr_len + str_off, str_len bytes of NUL-terminated
 *   |                            |  names; a name_off indexes into it
 *   +----------------------------+
 *
 * Only BTF_KIND_ENUM (members: name_off, s32 val) and BTF_KIND_ENUM64 (name_off, lo32,
 * hi32) are read; every other kind is skipped by its size rule. An unknown kind stops
 * the walk (its size is unknown): the reader then says so rather than guessing.
 * Big-endian BTF (magic read as 0x9FeB) is not supported. The parser is pure: buffer in,
 * values out, every offset checked against the buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rec_int.h"

#define BTF_MAGIC 0xeB9F
#define BTF_HDR_MIN 24
#define BTF_TYPE_SIZE 12

enum {
	KIND_INT = 1, KIND_PTR, KIND_ARRAY, KIND_STRUCT, KIND_UNION, KIND_ENUM, KIND_FWD,
	KIND_TYPEDEF, KIND_VOLATILE, KIND_CONST, KIND_RESTRICT, KIND_FUNC, KIND_FUNC_PROTO,
	KIND_VAR, KIND_DATASEC, KIND_FLOAT, KIND_DECL_TAG, KIND_TYPE_TAG, KIND_ENUM64,
};

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* Bytes that follow struct btf_type for this kind; -1 for a kind we do not know. */
static long kind_extra(unsigned kind, uint32_t vlen)
{
	switch (kind) {
	case KIND_INT:
	case KIND_VAR:
	case KIND_DECL_TAG:
		return 4;
	case KIND_ARRAY:
		return 12;
	case KIND_STRUCT:
	case KIND_UNION:
	case KIND_DATASEC:
	case KIND_ENUM64:
		return 12l * vlen;
	case KIND_ENUM:
	case KIND_FUNC_PROTO:
		return 8l * vlen;
	case KIND_PTR:
	case KIND_FWD:
	case KIND_TYPEDEF:
	case KIND_VOLATILE:
	case KIND_CONST:
	case KIND_RESTRICT:
	case KIND_FUNC:
	case KIND_FLOAT:
	case KIND_TYPE_TAG:
		return 0;
	default:
		return -1;
	}
}

/* String at off in the string section; NULL when off or the string runs outside it. */
static const char *btf_str(const unsigned char *s, uint32_t slen, uint32_t off)
{
	if (off >= slen || !memchr(s + off, '\0', slen - off))
		return NULL;
	return (const char *)s + off;
}

int rec_btf_enum_values(const void *buf, size_t len, const char *enum_name,
			const char *const *names, int n, int64_t *vals, char *why, size_t cap)
{
	const unsigned char *b = buf, *t, *s;
	uint32_t hdr_len, type_off, type_len, str_off, str_len;
	uint16_t magic;
	size_t pos;
	int found = 0;

	for (int i = 0; i < n; i++)
		vals[i] = -1;
	if (len < BTF_HDR_MIN) {
		snprintf(why, cap, "BTF too short (%zu bytes)", len);
		return MR_EINVAL;
	}
	memcpy(&magic, b, 2);
	if (magic != BTF_MAGIC) {
		snprintf(why, cap, "not BTF in this byte order (magic 0x%04x)", magic);
		return MR_EINVAL;
	}
	hdr_len = rd32(b + 4);
	type_off = rd32(b + 8);
	type_len = rd32(b + 12);
	str_off = rd32(b + 16);
	str_len = rd32(b + 20);
	if (hdr_len < BTF_HDR_MIN || hdr_len > len ||
	    (uint64_t)type_off + type_len > len - hdr_len ||
	    (uint64_t)str_off + str_len > len - hdr_len) {
		snprintf(why, cap, "BTF header sections outside the %zu-byte blob", len);
		return MR_EINVAL;
	}
	t = b + hdr_len + type_off;
	s = b + hdr_len + str_off;
	for (pos = 0; pos + BTF_TYPE_SIZE <= type_len;) {
		uint32_t info = rd32(t + pos + 4), vlen = info & 0xffff;
		unsigned kind = (info >> 24) & 0x1f;
		long extra = kind_extra(kind, vlen);
		const char *tname;

		if (extra < 0) {
			snprintf(why, cap, "unknown BTF kind %u at type offset %zu", kind, pos);
			return MR_EINVAL;
		}
		if (pos + BTF_TYPE_SIZE + (size_t)extra > type_len) {
			snprintf(why, cap, "BTF type at offset %zu runs past the type section",
				 pos);
			return MR_EINVAL;
		}
		tname = btf_str(s, str_len, rd32(t + pos));
		if ((kind == KIND_ENUM || kind == KIND_ENUM64) && tname &&
		    !strcmp(tname, enum_name)) {
			const unsigned char *m = t + pos + BTF_TYPE_SIZE;
			size_t msz = kind == KIND_ENUM ? 8 : 12;

			for (uint32_t k = 0; k < vlen; k++, m += msz) {
				const char *mname = btf_str(s, str_len, rd32(m));
				int64_t v;

				if (!mname)
					continue;
				if (kind == KIND_ENUM)
					v = (int32_t)rd32(m + 4);
				else
					v = (int64_t)(((uint64_t)rd32(m + 8) << 32) | rd32(m + 4));
				for (int i = 0; i < n; i++)
					if (vals[i] < 0 && !strcmp(mname, names[i])) {
						vals[i] = v;
						found++;
					}
			}
			break;
		}
		pos += BTF_TYPE_SIZE + (size_t)extra;
	}
	if (found < n) {
		for (int i = 0; i < n; i++)
			if (vals[i] < 0) {
				snprintf(why, cap, "enum %s has no %s in this kernel's BTF",
					 enum_name, names[i]);
				break;
			}
		return MR_ENOENT;
	}
	why[0] = '\0';
	return 0;
}

int rec_btf_enum_file(const char *path, const char *enum_name, const char *const *names,
		      int n, int64_t *vals, char *why, size_t cap)
{
	struct stat sb;
	unsigned char *buf = NULL;
	size_t got = 0;
	int fd, rc;

	for (int i = 0; i < n; i++)
		vals[i] = -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, cap, "%s: %s (kernel without CONFIG_DEBUG_INFO_BTF?)", path,
			 strerror(errno));
		return errno == ENOENT ? MR_ENOENT : MR_EIO;
	}
	/* sysfs reports the blob's size in st_size */
	if (fstat(fd, &sb) || sb.st_size <= 0 || sb.st_size > (1l << 30) ||
	    !(buf = malloc((size_t)sb.st_size))) {
		snprintf(why, cap, "%s: cannot size or buffer it", path);
		close(fd);
		return MR_EIO;
	}
	while (got < (size_t)sb.st_size) {
		ssize_t k = read(fd, buf + got, (size_t)sb.st_size - got);

		if (k <= 0)
			break;
		got += (size_t)k;
	}
	close(fd);
	rc = rec_btf_enum_values(buf, got, enum_name, names, n, vals, why, cap);
	free(buf);
	return rc;
}
