// SPDX-License-Identifier: GPL-2.0
/* source.c - the engine's event source: the store's time-merging reader behind calls
 * that need no store types (see rp_int.h for why). */
#include <stdlib.h>
#include <string.h>

#include "mr_store.h"
#include "rp_int.h"

struct rp_source {
	struct mr_store *s;
	struct mr_reader *r;
};

int rp_source_open(const char *path, struct rp_source **out, struct mr_error *err)
{
	struct rp_source *src = calloc(1, sizeof(*src));
	int rc;

	*out = NULL;
	if (!src)
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	rc = mr_store_open(path, MR_STORE_RDONLY, &src->s, err);
	if (!rc)
		rc = mr_reader_open(src->s, NULL, &src->r, err);
	if (rc) {
		rp_source_close(src);
		return rc;
	}
	*out = src;
	return 0;
}

int rp_source_read(struct rp_source *s, struct mr_event *ev, size_t cap, size_t *n,
		   struct mr_error *err)
{
	int rc = mr_reader_read(s->r, ev, cap, n);

	if (rc == MR_EOF) {
		*n = 0;
		return 0;
	}
	if (rc) {
		const struct mr_error *re = mr_reader_error(s->r);

		if (re && re->msg[0])
			return mr_error_set(err, rc, "%s", re->msg);
		return mr_error_set(err, rc, "%s: reading events failed: %s", mr_store_path(s->s),
				    mr_strerror(rc));
	}
	return 0;
}

void rp_source_close(struct rp_source *s)
{
	if (!s)
		return;
	mr_reader_close(s->r);
	mr_store_close(s->s);
	free(s);
}
