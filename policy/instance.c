// SPDX-License-Identifier: GPL-2.0
/*
 * instance.c - policy instances: the one place that sizes, initialises and frees a
 * policy's parameters, private state and per-page state (mr_policy.h), for the replay
 * engine and the tests alike.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mr_policy.h"
#include "mr_util.h"

_Static_assert(sizeof(struct mr_folio) == 32, "a frame record is half a cache line");
_Static_assert(offsetof(struct mr_folio, priv) % 8 == 0, "policy state aligned for 64-bit fields");

struct instance {
	struct mr_policy p; /* first: the instance is handed out as &p */
	size_t page_bytes;  /* size of p.pages, for mr_big_free(); 0 when in the folios */
	int started;        /* ops->init succeeded: fini is owed */
};

int mr_policy_create(const struct mr_policy_ops *ops, struct mr_machine *m, const char *spec,
		     struct mr_policy **out, struct mr_error *err)
{
	struct instance *in = calloc(1, sizeof(*in));

	*out = NULL;
	if (!spec)
		spec = ops->name;
	if (!in)
		goto nomem;
	in->p.ops = ops;
	in->p.m = m;
	snprintf(in->p.spec, sizeof(in->p.spec), "%s", spec);
	in->p.params = calloc(1, ops->params_size ? ops->params_size : 1);
	in->p.priv = calloc(1, ops->priv_size ? ops->priv_size : 1);
	if (ops->page_priv_size <= MR_FOLIO_PRIV && m->folios) {
		/* in each frame's record: a victim's state comes with its folio's line. The
		 * machine's frames are fresh (zero) when its one policy is created. */
		in->p.pages = (uint8_t *)m->folios + offsetof(struct mr_folio, priv);
		in->p.page_stride = sizeof(struct mr_folio);
	} else {
		in->page_bytes = (size_t)m->nr_pages * (ops->page_priv_size ? ops->page_priv_size : 1);
		in->p.pages = mr_big_alloc(in->page_bytes);
		in->p.page_stride = ops->page_priv_size;
	}
	if (!in->p.params || !in->p.priv || !in->p.pages)
		goto nomem;
	for (size_t i = 0; i < ops->nparams; i++)
		mr_param_set(ops, in->p.params, i, ops->params[i].def);
	*out = &in->p;
	return 0;
nomem:
	mr_policy_destroy(in ? &in->p : NULL);
	return mr_error_set(err, MR_ENOMEM, "out of memory for policy %s state", spec);
}

void mr_policy_set_params(struct mr_policy *p, const void *params)
{
	if (params && p->ops->params_size)
		memcpy(p->params, params, p->ops->params_size);
}

int mr_policy_set_param(struct mr_policy *p, const char *name, int64_t value)
{
	struct instance *in = (struct instance *)p;

	if (in->started)
		return MR_EBUSY;
	for (size_t i = 0; i < p->ops->nparams; i++) {
		const struct mr_param_desc *d = &p->ops->params[i];

		if (strcmp(d->name, name))
			continue;
		if (value < d->min || value > d->max)
			return MR_ERANGE;
		mr_param_set(p->ops, p->params, i, value);
		return 0;
	}
	return MR_EINVAL;
}

int mr_policy_start(struct mr_policy *p, struct mr_error *err)
{
	struct instance *in = (struct instance *)p;
	int rc = p->ops->init ? p->ops->init(p, err) : 0;

	in->started = rc == 0;
	return rc;
}

void mr_policy_destroy(struct mr_policy *p)
{
	struct instance *in = (struct instance *)p;

	if (!p)
		return;
	if (in->started && p->ops->fini)
		p->ops->fini(p);
	free(p->params);
	free(p->priv);
	if (in->page_bytes) /* else the state lives in the machine's frame records */
		mr_big_free(p->pages, in->page_bytes);
	free(in);
}
