// SPDX-License-Identifier: GPL-2.0
/*
 * gen.c - the generator registry, typed parameters, mr_gen_write(), and the seeded
 * randomness every generator draws from (xoshiro256** PRNG, Zipf sampler, shuffle).
 *
 * Parameters are declared per generator in a table (name, type, bounds, default, help)
 * and parsed here only, so a generator's run() sees validated numbers. The parameters
 * are also written to the store's meta table as text that parses back to the same
 * values, so a trace says how to regenerate it.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen_priv.h"
#include "mr_util.h"

static const struct mr_gen *const gen_table[] = {
	&mr_gen_zipf,	 &mr_gen_seq,	      &mr_gen_loop,   &mr_gen_agetest,
	&mr_gen_numa,	 &mr_gen_filerefault, &mr_gen_kbuild, &mr_gen_execbuild,
	&mr_gen_memwalk, NULL,
};

const struct mr_gen *const *mr_gen_list(void)
{
	return gen_table;
}

const struct mr_gen *mr_gen_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; gen_table[i]; i++)
		if (!strcmp(gen_table[i]->name, name))
			return gen_table[i];
	return NULL;
}

/* ---- parameters ---- */

/* The seed parses like a count, as the CLI's --seed does ("42", "1M"). */
static int parse_seed(const char *gname, const char *value, uint64_t *out, struct mr_error *err)
{
	struct mr_error e = { 0 };
	int rc = mr_parse_count(value, out, &e);

	if (rc)
		return mr_error_set(err, rc, "%s: parameter 'seed': %s", gname,
				    e.msg[0] ? e.msg : mr_strerror(rc));
	return 0;
}

static int range_error(const struct mr_gen *g, const struct mr_gen_param *p, uint64_t u,
		       struct mr_error *err)
{
	char b0[32], b1[32], b2[32];

	if (p->type == MR_GP_PAGES)
		return mr_error_set(err, MR_ERANGE,
				    "%s: parameter '%s' = %" PRIu64
				    " pages (%s) is out of range: %.0f .. %.0f pages (%s .. %s)",
				    g->name, p->name, u,
				    mr_format_bytes(u * MR_PAGE_SIZE, b0, sizeof(b0)), p->min, p->max,
				    mr_format_bytes((uint64_t)p->min * MR_PAGE_SIZE, b1, sizeof(b1)),
				    mr_format_bytes((uint64_t)p->max * MR_PAGE_SIZE, b2, sizeof(b2)));
	return mr_error_set(err, MR_ERANGE,
			    "%s: parameter '%s' = %" PRIu64 "%s is out of range: %.0f .. %.0f%s",
			    g->name, p->name, u, p->type == MR_GP_DURATION ? " ns" : "", p->min,
			    p->max, p->type == MR_GP_DURATION ? " ns" : "");
}

/* Parse value for parameter p into *out. */
static int parse_one(const struct mr_gen *g, const struct mr_gen_param *p, const char *value,
		     struct mr_gen_values *vals, size_t i, struct mr_error *err)
{
	struct mr_error e = { 0 };
	uint64_t u = 0;
	double d = 0;
	int rc;

	if (!value)
		return mr_error_set(err, MR_EINVAL, "%s: parameter '%s' needs a value", g->name,
				    p->name);
	switch (p->type) {
	case MR_GP_PAGES:
		rc = mr_parse_pages(value, MR_PAGE_SIZE, p->min <= 0, &u, &e);
		break;
	case MR_GP_COUNT:
		rc = mr_parse_count(value, &u, &e);
		break;
	case MR_GP_DURATION:
		rc = mr_parse_duration(value, &u, &e);
		break;
	case MR_GP_DOUBLE:
		rc = mr_parse_double(value, p->min, p->max, &d, &e);
		if (!rc && isnan(d))
			rc = mr_error_set(&e, MR_EINVAL, "'%s' is not a number", value);
		break;
	default:
		return mr_error_set(err, MR_EINVAL, "%s: parameter '%s' has an unknown type",
				    g->name, p->name);
	}
	if (rc)
		return mr_error_set(err, rc, "%s: parameter '%s': %s", g->name, p->name,
				    e.msg[0] ? e.msg : mr_strerror(rc));
	if (p->type == MR_GP_DOUBLE) {
		vals->v[i].d = d;
		return 0;
	}
	if ((double)u < p->min || (double)u > p->max)
		return range_error(g, p, u, err);
	vals->v[i].u = u;
	return 0;
}

int mr_gen_defaults(const struct mr_gen *g, struct mr_gen_values *vals, struct mr_error *err)
{
	int rc;

	if (!g || !vals)
		return mr_error_set(err, MR_EINVAL, "mr_gen_defaults: NULL argument");
	if (g->nparams > MR_GEN_MAX_PARAMS)
		return mr_error_set(err, MR_EINVAL, "%s: too many parameters", g->name);
	memset(vals, 0, sizeof(*vals));
	vals->seed = 1;
	for (size_t i = 0; i < g->nparams; i++) {
		rc = parse_one(g, &g->params[i], g->params[i].def, vals, i, err);
		if (rc)
			return rc;
	}
	return 0;
}

int mr_gen_set(const struct mr_gen *g, struct mr_gen_values *vals, const char *name,
	       const char *value, struct mr_error *err)
{
	char known[512];
	size_t len = 0;

	if (!g || !vals || !name)
		return mr_error_set(err, MR_EINVAL, "mr_gen_set: NULL argument");
	if (!strcmp(name, "seed")) {
		if (!value)
			return mr_error_set(err, MR_EINVAL, "%s: parameter 'seed' needs a value",
					    g->name);
		return parse_seed(g->name, value, &vals->seed, err);
	}
	for (size_t i = 0; i < g->nparams; i++)
		if (!strcmp(g->params[i].name, name))
			return parse_one(g, &g->params[i], value, vals, i, err);

	known[0] = 0;
	for (size_t i = 0; i < g->nparams && len < sizeof(known); i++)
		len += (size_t)snprintf(known + len, sizeof(known) - len, "%s, ",
					g->params[i].name);
	if (len < sizeof(known))
		snprintf(known + len, sizeof(known) - len, "seed");
	return mr_error_set(err, MR_EINVAL, "%s: unknown parameter '%s' (known: %s)", g->name,
			    name, known);
}

/* Values set without mr_gen_set() are checked again before a run. */
static int check_values(const struct mr_gen *g, const struct mr_gen_values *vals,
			struct mr_error *err)
{
	for (size_t i = 0; i < g->nparams; i++) {
		const struct mr_gen_param *p = &g->params[i];

		if (p->type == MR_GP_DOUBLE) {
			double d = vals->v[i].d;

			if (!(d >= p->min && d <= p->max))
				return mr_error_set(err, MR_ERANGE,
						    "%s: parameter '%s' = %g is out of range: %g .. %g",
						    g->name, p->name, d, p->min, p->max);
		} else if ((double)vals->v[i].u < p->min || (double)vals->v[i].u > p->max) {
			return range_error(g, p, vals->v[i].u, err);
		}
	}
	return 0;
}

/* The shortest %g form that parses back to exactly d. */
static void format_double(double d, char *buf, size_t cap)
{
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, cap, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			return;
	}
}

/* "name=value name=value ..." that mr_gen_set() parses back to the same values. */
static void format_params(const struct mr_gen *g, const struct mr_gen_values *vals, char *buf,
			  size_t cap)
{
	size_t len = 0;

	buf[0] = 0;
	for (size_t i = 0; i < g->nparams && len < cap; i++) {
		const struct mr_gen_param *p = &g->params[i];

		if (p->type == MR_GP_DOUBLE) {
			char num[32];

			format_double(vals->v[i].d, num, sizeof(num));
			len += (size_t)snprintf(buf + len, cap - len, "%s%s=%s", i ? " " : "",
						p->name, num);
		} else
			len += (size_t)snprintf(buf + len, cap - len, "%s%s=%" PRIu64,
						i ? " " : "", p->name, vals->v[i].u);
	}
}

/*
 * May path be written? Never through a symbolic link (a dangling one would have its
 * target created wherever it points); an existing file only when overwrite, for it may
 * be a recorded trace that cannot be made again.
 */
int trace_out_check(const char *path, int overwrite, struct mr_error *err)
{
	struct stat sb;

	if (lstat(path, &sb)) {
		if (errno == ENOENT)
			return 0;
		return mr_error_set(err, MR_EIO, "cannot write %s: %s", path, strerror(errno));
	}
	if (S_ISLNK(sb.st_mode))
		return mr_error_set(err, MR_EINVAL,
				    "%s is a symbolic link: give the path of the trace file itself (-o)", path);
	if (!overwrite)
		return mr_error_set(err, MR_EINVAL,
				    "%s already exists: remove it, choose another -o, or give --force to replace it",
				    path);
	if (!S_ISREG(sb.st_mode))
		return mr_error_set(err, MR_EINVAL, "%s exists and is not a regular file", path);
	return 0;
}

int trace_out_not_input(const char *input, const char *path, struct mr_error *err)
{
	if (mr_same_file(input, path))
		return mr_error_set(err, MR_EINVAL,
				    "-o %s is the input %s itself: writing it would destroy what is "
				    "read; give another -o", path, input);
	return 0;
}

/* Move the finished store tmp to path: with overwrite by rename() (the old file stays
 * whole until then); without, by link(), which fails if path appeared meanwhile. */
int trace_out_install(const char *tmp, const char *path, int overwrite, struct mr_error *err)
{
	char side[4200];

	/* a WAL or shared-memory file of an older store at path would be applied to ours */
	for (int i = 0; i < 2; i++) {
		snprintf(side, sizeof(side), "%s%s", path, i ? "-shm" : "-wal");
		if (unlink(side) && errno != ENOENT)
			return mr_error_set(err, MR_EIO, "cannot replace %s: removing %s: %s", path,
					    side, strerror(errno));
	}
	if (!overwrite) {
		if (!link(tmp, path)) {
			unlink(tmp);
			return 0;
		}
		if (errno == EEXIST)
			return trace_out_check(path, 0, err);
		/* a file system without hard links: fall back to rename() below */
	}
	if (rename(tmp, path))
		return mr_error_set(err, MR_EIO, "cannot write %s: %s", path, strerror(errno));
	return 0;
}

int mr_gen_create(const struct mr_gen *g, const struct mr_gen_values *vals, const char *path,
		  int overwrite, const struct mr_writer_opts *wopts, struct mr_error *err)
{
	struct mr_store *s = NULL;
	struct mr_writer *w = NULL;
	char params[1024], tmp[4200];
	int rc;

	if (!g || !vals || !path)
		return mr_error_set(err, MR_EINVAL, "mr_gen_create: NULL argument");
	rc = check_values(g, vals, err);
	if (!rc)
		rc = trace_out_check(path, overwrite, err);
	if (rc)
		return rc;
	/* written beside path and moved there when complete: a failed or interrupted run
	 * leaves path as it was */
	if (snprintf(tmp, sizeof(tmp), "%s.tmp-%ld", path, (long)getpid()) >= (int)sizeof(tmp))
		return mr_error_set(err, MR_EINVAL, "output path '%.60s...' is too long", path);
	rc = mr_store_create(tmp, 1, &s, err);
	if (rc)
		return rc;
	rc = mr_writer_create(s, wopts, &w, err);
	if (rc)
		goto out;

	format_params(g, vals, params, sizeof(params));
	rc = mr_writer_set_meta(w, "source", "generator");
	if (!rc)
		rc = mr_writer_set_meta(w, "generator", g->name);
	if (!rc)
		rc = mr_writer_set_meta(w, "generator_params", params);
	if (!rc)
		rc = mr_writer_set_meta_u64(w, "seed", vals->seed);
	if (!rc)
		rc = mr_writer_set_meta_u64(w, "page_size", MR_PAGE_SIZE);
	if (rc)
		goto writer_fail;

	rc = g->run(vals, w, err);
	if (rc)
		goto out;
	rc = mr_writer_finish(w);
	if (rc)
		goto writer_fail;
	goto out;

writer_fail:
	if (mr_writer_error(w) && mr_writer_error(w)->msg[0])
		mr_error_set(err, rc, "%s: %s", g->name, mr_writer_error(w)->msg);
	else
		mr_error_set(err, rc, "%s: writing %s failed: %s", g->name, path,
			     mr_strerror(rc));
out:
	mr_writer_destroy(w);
	mr_store_close(s);
	if (!rc)
		rc = trace_out_install(tmp, path, overwrite, err);
	/* A generated trace is reproducible from its parameters: drop a partial one rather
	 * than leave a store that looks usable but stops early. */
	if (rc)
		mr_store_remove(tmp);
	return rc;
}

int mr_gen_write(const struct mr_gen *g, const struct mr_gen_values *vals, const char *path,
		 const struct mr_writer_opts *wopts, struct mr_error *err)
{
	return mr_gen_create(g, vals, path, 1, wopts, err);
}

/* ---- PRNG ---- */


void gen_rng_seed(struct gen_rng *r, uint64_t seed)
{
	uint64_t x = seed;

	for (int i = 0; i < 4; i++)
		r->s[i] = mr_splitmix64(&x);
	/* splitmix64 never yields four zero words from one seed, but keep the guarantee
	 * xoshiro needs explicit. */
	if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3]))
		r->s[0] = 1;
}

void gen_shuffle_u32(uint32_t *perm, uint32_t n, struct gen_rng *r)
{
	for (uint32_t i = 0; i < n; i++)
		perm[i] = i;
	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = (uint32_t)gen_rng_below(r, i);
		uint32_t t = perm[i - 1];

		perm[i - 1] = perm[j];
		perm[j] = t;
	}
}

/* ---- Zipf: rejection-inversion, W. Hoermann and G. Derflinger, "Rejection-inversion
 * to generate variates from monotone discrete distributions", ACM TOMACS 6(3), 1996.
 * H is an integral of h(x) = x^-s written with log1p/expm1 helpers that stay exact
 * through s = 1, where H degenerates to log(x). Ranks are 1..n inside, 0..n-1 outside. */

/* log1p(x)/x, continuous at 0 */
static double helper1(double x)
{
	return fabs(x) > 1e-8 ? log1p(x) / x : 1 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
}

/* expm1(x)/x, continuous at 0 */
static double helper2(double x)
{
	return fabs(x) > 1e-8 ? expm1(x) / x : 1 + x * 0.5 * (1 + x * (1.0 / 3.0) * (1 + 0.25 * x));
}

static double zipf_h(double s, double x)
{
	return exp(-s * log(x));
}

static double zipf_hint(double s, double x)
{
	double lx = log(x);

	return helper2((1 - s) * lx) * lx;
}

static double zipf_hinv(double s, double x)
{
	double t = x * (1 - s);

	if (t < -1)
		t = -1;
	return exp(helper1(t) * x);
}

int gen_zipf_init(struct gen_zipf *z, uint64_t n, double s)
{
	if (!n || !(s >= 0 && s <= 3))
		return MR_EINVAL;
	z->n = n;
	z->s = s;
	z->hx1 = zipf_hint(s, 1.5) - 1;
	z->hn = zipf_hint(s, (double)n + 0.5);
	z->sq = 2 - zipf_hinv(s, zipf_hint(s, 2.5) - zipf_h(s, 2));
	return 0;
}

uint64_t gen_zipf_next(const struct gen_zipf *z, struct gen_rng *r)
{
	if (z->n == 1)
		return 0;
	if (z->s == 0)
		return gen_rng_below(r, z->n);
	for (;;) {
		double u = z->hn + gen_rng_double(r) * (z->hx1 - z->hn);
		double x = zipf_hinv(z->s, u);
		double kd = floor(x + 0.5);
		uint64_t k;

		if (kd < 1)
			kd = 1;
		else if (kd > (double)z->n)
			kd = (double)z->n;
		k = (uint64_t)kd;
		if (kd - x <= z->sq || u >= zipf_hint(z->s, kd + 0.5) - zipf_h(z->s, kd))
			return k - 1;
	}
}
