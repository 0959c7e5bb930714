// SPDX-License-Identifier: GPL-2.0
/* err.c - error context helpers (see mr_err.h). */
#include "mr_err.h"

#include <stdio.h>
#include <string.h>

int mr_error_vset(struct mr_error *err, int code, const char *fmt, va_list ap)
{
	if (err) {
		int n;

		err->code = code;
		n = vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		/* cut: said, not a message that seems to end mid-word for no reason */
		if (n >= (int)sizeof(err->msg))
			memcpy(err->msg + sizeof(err->msg) - 4, "...", 4);
	}
	return code;
}

int mr_error_set(struct mr_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mr_error_vset(err, code, fmt, ap);
	va_end(ap);
	return code;
}

const char *mr_strerror(int code)
{
	switch (code) {
	case MR_OK: return "success";
	case MR_ENOMEM: return "out of memory";
	case MR_EINVAL: return "invalid argument";
	case MR_EIO: return "I/O error";
	case MR_ECORRUPT: return "corrupt data";
	case MR_EVERSION: return "unsupported format version";
	case MR_ENOTSTORE: return "not a memreplay store";
	case MR_ENOENT: return "not found";
	case MR_EPERM: return "permission denied";
	case MR_ENOTSUP: return "not supported";
	case MR_ERANGE: return "out of range";
	case MR_ENOSPC: return "no space";
	case MR_EBUSY: return "busy";
	case MR_EOF: return "end of data";
	}
	return "unknown error";
}

/* Invariant violations are memreplay bugs: report them where a developer will see them. */
void mr_warn_report(const char *file, int line, const char *cond)
{
	fprintf(stderr, "memreplay: WARNING: invariant violated at %s:%d: %s\n", file, line, cond);
}
