/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mr_err.h - error codes and the error context shared by every memreplay library.
 *
 * Libraries never print or exit: a failing call returns a negative enum mr_err and,
 * when the caller passed a struct mr_error, leaves a one-line message there that names
 * the problem and, where there is one, the fix. The CLI decides what to show.
 */
#ifndef MR_ERR_H
#define MR_ERR_H

#include <stdarg.h>
#include <stddef.h>

enum mr_err {
	MR_OK = 0,
	MR_ENOMEM = -1,    /* allocation failed */
	MR_EINVAL = -2,    /* bad argument or parameter value */
	MR_EIO = -3,       /* read/write/SQLite failure */
	MR_ECORRUPT = -4,  /* stored data fails validation (checksum, bounds, format) */
	MR_EVERSION = -5,  /* store written by a newer or unknown format version */
	MR_ENOTSTORE = -6, /* file is not a memreplay store (application id) */
	MR_ENOENT = -7,    /* missing file or object */
	MR_EPERM = -8,     /* missing privilege */
	MR_ENOTSUP = -9,   /* unsupported by this host/kernel/build */
	MR_ERANGE = -10,   /* value out of its allowed range */
	MR_ENOSPC = -11,   /* disk or buffer full */
	MR_EBUSY = -12,    /* resource owned by someone else */
	MR_EOF = -13,      /* iterator exhausted (not an error for callers that expect it) */
};

#define MR_ERRMSG_MAX 512

/* Error context: code of the last failure and its message. Zero-initialise before use. */
struct mr_error {
	int code;
	char msg[MR_ERRMSG_MAX];
};

/* Record an error in err (may be NULL) and return code, so callers write
 * `return mr_error_set(err, MR_EINVAL, "bad size '%s'", s);`. */
int mr_error_set(struct mr_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int mr_error_vset(struct mr_error *err, int code, const char *fmt, va_list ap);

/* Static name of a code ("corrupt data", ...). */
const char *mr_strerror(int code);

/*
 * MR_WARN_ON_ONCE(cond): invariant check in the spirit of the kernel's VM_WARN_ON_ONCE.
 * The condition is type-checked in every build; it is evaluated and reported (once per
 * call site, to stderr, because an invariant violation is a bug in memreplay itself and
 * must be seen) only when MR_DEBUG_CHECKS is defined: debug and sanitizer builds.
 * Evaluates to the truth of cond in checking builds and to 0 otherwise.
 */
void mr_warn_report(const char *file, int line, const char *cond);
#ifdef MR_DEBUG_CHECKS
#define MR_WARN_ON_ONCE(cond)                                                  \
	({                                                                      \
		static int mr_warned_;                                          \
		int mr_c_ = !!(cond);                                           \
		if (__builtin_expect(mr_c_, 0) && !mr_warned_) {                \
			mr_warned_ = 1;                                         \
			mr_warn_report(__FILE__, __LINE__, #cond);              \
		}                                                               \
		mr_c_;                                                          \
	})
#else
#define MR_WARN_ON_ONCE(cond) __extension__({ (void)sizeof(!!(cond)); 0; })
#endif

/*
 * MR_CHECK_COUNT(n, cond): for a policy's check(), which the replay calls to count
 * invariant violations (--check): when cond is false, count it in n and report it, in
 * every build (the caller asked for the check).
 */
#define MR_CHECK_COUNT(n, cond)                                                 \
	do {                                                                    \
		if (!(cond)) {                                                  \
			(n)++;                                                  \
			mr_warn_report(__FILE__, __LINE__, #cond);              \
		}                                                               \
	} while (0)

#endif /* MR_ERR_H */
