// SPDX-License-Identifier: GPL-2.0
/*
 * registry.c - the list of reclaim policies (built-ins and plugins), validation of their
 * parameter tables, parsing of policy specs ("mglru:swappiness=100,min_ttl_ms=0") into
 * typed parameters, and the help text for `memreplay replay --list-policies`.
 *
 * The registry is process-wide: built-ins are registered once, on first use
 * (pthread_once); plugins are added by mr_policy_load_plugin(). Registration is not
 * thread-safe: load plugins before machines start on other threads. Lookups after that
 * only read. Plugins stay loaded until exit, because their ops tables are referenced.
 *
 * Spec grammar:   spec  = name [ ":" [ param *( "," param ) ] ]
 *                 param = key "=" value
 * Values: int (decimal, optional sign), bool (0/1/true/false/on/off, any case), enum (a
 * value name or its index). The canonical spec lists every parameter in table order with
 * bools as 0/1 and enums by name, so identical configurations give identical strings.
 */
#include "mr_policy.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "builtin.h"
#include "mr_util.h"

#define MR_POLICY_MAX 64
#define NAME_MAX_LEN 63

static const struct mr_policy_ops *registry[MR_POLICY_MAX];
static size_t nr_registered;
static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;

/* ---- small string helpers ---- */


/* Names are what a spec can carry unquoted: [a-z0-9_-], starting with a letter. */
static int valid_name(const char *s)
{
	size_t i;

	if (!s || !islower((unsigned char)s[0]))
		return 0;
	for (i = 0; s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (i >= NAME_MAX_LEN || !(islower(c) || isdigit(c) || c == '_' || c == '-'))
			return 0;
	}
	return 1;
}

/* "lru, mglru, opt" */
static void list_policies(struct mr_strbuf *sb)
{
	size_t i;

	for (i = 0; i < nr_registered; i++)
		mr_strbuf_printf(sb, "%s%s", i ? ", " : "", registry[i]->name);
}

/* "swappiness, min_ttl_ms" */
static void list_params(struct mr_strbuf *sb, const struct mr_policy_ops *ops)
{
	size_t i;

	for (i = 0; i < ops->nparams; i++)
		mr_strbuf_printf(sb, "%s%s", i ? ", " : "", ops->params[i].name);
}

static const char *type_name(enum mr_param_type t)
{
	switch (t) {
	case MR_PARAM_BOOL: return "bool";
	case MR_PARAM_INT: return "int";
	case MR_PARAM_ENUM: return "enum";
	}
	return "?";
}

/* ---- registration ---- */

static int validate_param(const struct mr_policy_ops *ops, size_t i, struct mr_error *err)
{
	const struct mr_param_desc *d = &ops->params[i];
	size_t j;
	int64_t v;

	if (!valid_name(d->name))
		return mr_error_set(err, MR_EINVAL,
				    "policy '%s': parameter %zu has an invalid name '%s' "
				    "(use lower-case letters, digits, '_' and '-')",
				    ops->name, i, d->name ? d->name : "(null)");
	for (j = 0; j < i; j++)
		if (!strcmp(ops->params[j].name, d->name))
			return mr_error_set(err, MR_EINVAL,
					    "policy '%s': parameter '%s' is declared twice",
					    ops->name, d->name);
	if (d->type != MR_PARAM_BOOL && d->type != MR_PARAM_INT && d->type != MR_PARAM_ENUM)
		return mr_error_set(err, MR_EINVAL, "policy '%s': parameter '%s' has unknown type %d",
				    ops->name, d->name, (int)d->type);
	if (d->min > d->max || d->def < d->min || d->def > d->max)
		return mr_error_set(err, MR_EINVAL,
				    "policy '%s': parameter '%s' needs min <= default <= max "
				    "(has min %" PRId64 ", default %" PRId64 ", max %" PRId64 ")",
				    ops->name, d->name, d->min, d->def, d->max);
	if (d->type == MR_PARAM_BOOL && (d->min != 0 || d->max != 1))
		return mr_error_set(err, MR_EINVAL, "policy '%s': bool parameter '%s' must range 0..1",
				    ops->name, d->name);
	if (d->type == MR_PARAM_ENUM) {
		if (!d->enum_names || d->min < 0 || d->max - d->min > 255)
			return mr_error_set(err, MR_EINVAL,
					    "policy '%s': enum parameter '%s' needs value names for "
					    "a range within 0..255",
					    ops->name, d->name);
		for (v = d->min; v <= d->max; v++)
			if (!d->enum_names[v - d->min] || !*d->enum_names[v - d->min])
				return mr_error_set(err, MR_EINVAL,
						    "policy '%s': enum parameter '%s' has no name for "
						    "value %" PRId64,
						    ops->name, d->name, v);
	}
	if (d->offset > ops->params_size || ops->params_size - d->offset < sizeof(int64_t))
		return mr_error_set(err, MR_EINVAL,
				    "policy '%s': parameter '%s' at offset %zu does not fit in "
				    "params_size %zu",
				    ops->name, d->name, d->offset, ops->params_size);
	for (j = 0; j < i; j++) {
		size_t o = ops->params[j].offset;

		if (o < d->offset + sizeof(int64_t) && d->offset < o + sizeof(int64_t))
			return mr_error_set(err, MR_EINVAL,
					    "policy '%s': parameters '%s' and '%s' overlap in the "
					    "params struct",
					    ops->name, ops->params[j].name, d->name);
	}
	return 0;
}

static int validate_ops(const struct mr_policy_ops *ops, struct mr_error *err)
{
	size_t i;
	int rc;

	if (!ops)
		return mr_error_set(err, MR_EINVAL, "cannot register a NULL policy");
	/* before any other field: in another ABI's layout they are not what they seem */
	if (ops->abi != MR_POLICY_ABI)
		return mr_error_set(err, MR_EVERSION, "policy ops built for plugin ABI %u, but "
				    "this memreplay has ABI %u; fix: rebuild the plugin against "
				    "this memreplay's mr_policy.h", ops->abi, MR_POLICY_ABI);
	if (!valid_name(ops->name))
		return mr_error_set(err, MR_EINVAL,
				    "invalid policy name '%s' (use lower-case letters, digits, "
				    "'_' and '-', starting with a letter)",
				    ops->name ? ops->name : "(null)");
	if (!ops->folio_add || !ops->mark_accessed || !ops->folio_del || !ops->refault ||
	    !ops->rotate || !ops->shrink_lruvec)
		return mr_error_set(err, MR_EINVAL,
				    "policy '%s' lacks a required hook (folio_add, mark_accessed, "
				    "folio_del, refault, rotate and shrink_lruvec are required)",
				    ops->name);
	if (ops->nparams && !ops->params)
		return mr_error_set(err, MR_EINVAL, "policy '%s' declares %zu parameters but no table",
				    ops->name, ops->nparams);
	for (i = 0; i < ops->nparams; i++) {
		rc = validate_param(ops, i, err);
		if (rc)
			return rc;
	}
	return 0;
}

static int register_one(const struct mr_policy_ops *ops, struct mr_error *err)
{
	size_t i;
	int rc = validate_ops(ops, err);

	if (rc)
		return rc;
	for (i = 0; i < nr_registered; i++)
		if (!strcmp(registry[i]->name, ops->name))
			return mr_error_set(err, MR_EINVAL, "a policy named '%s' is already registered",
					    ops->name);
	if (nr_registered == MR_POLICY_MAX)
		return mr_error_set(err, MR_ENOSPC, "cannot register policy '%s': the limit of %d "
				    "policies is reached", ops->name, MR_POLICY_MAX);
	registry[nr_registered++] = ops;
	return 0;
}

static void register_builtins(void)
{
	static const struct mr_policy_ops *const builtins[] = {
		&mr_lru_ops,
		&mr_mglru_ops,
		&mr_opt_ops,
	};
	size_t i;

	for (i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++) {
		struct mr_error err = { 0 };
		int rc = register_one(builtins[i], &err);

		/* A built-in with a bad table is a memreplay bug: report it, leave it out. */
		if (MR_WARN_ON_ONCE(rc != 0))
			mr_warn_report(__FILE__, __LINE__, err.msg);
	}
}

static void ensure_builtins(void)
{
	pthread_once(&builtin_once, register_builtins);
}

const struct mr_policy_ops *const *mr_policy_list(size_t *n)
{
	ensure_builtins();
	*n = nr_registered;
	return registry;
}

/* The policy named by the len bytes at name (a spec's name part), or NULL. */
static const struct mr_policy_ops *find_n(const char *name, size_t len)
{
	ensure_builtins();
	for (size_t i = 0; name && i < nr_registered; i++)
		if (strlen(registry[i]->name) == len && !strncmp(registry[i]->name, name, len))
			return registry[i];
	return NULL;
}

const struct mr_policy_ops *mr_policy_find(const char *name)
{
	return name ? find_n(name, strlen(name)) : NULL;
}

int mr_policy_register(const struct mr_policy_ops *ops, struct mr_error *err)
{
	ensure_builtins();
	return register_one(ops, err);
}

/* ---- plugins ---- */

typedef int (*mr_plugin_init_fn)(struct mr_error *err);

int mr_policy_load_plugin(const char *path, struct mr_error *err)
{
	struct mr_error init_err = { 0 };
	struct stat st;
	mr_plugin_init_fn init;
	size_t before;
	void *handle;
	int rc;

	ensure_builtins();
	if (!path || !*path)
		return mr_error_set(err, MR_EINVAL, "no policy plugin path given");
	/* A name without '/' is searched for by dlopen; a path must exist. */
	if (strchr(path, '/') && stat(path, &st) != 0)
		return mr_error_set(err, MR_ENOENT, "policy plugin '%s' not found: %s", path,
				    strerror(errno));
	handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!handle)
		return mr_error_set(err, MR_EINVAL,
				    "cannot load policy plugin '%s': %s (it must be a shared "
				    "object built against policy/mr_policy.h)",
				    path, dlerror());
	dlerror();
	init = (mr_plugin_init_fn)(uintptr_t)dlsym(handle, "mr_plugin_init");
	if (!init) {
		const char *why = dlerror();

		rc = mr_error_set(err, MR_EINVAL,
				  "'%s' is not a memreplay policy plugin: it does not export "
				  "'int mr_plugin_init(struct mr_error *)' (%s)",
				  path, why ? why : "symbol is NULL");
		dlclose(handle);
		return rc;
	}
	before = nr_registered;
	rc = init(&init_err);
	if (rc) {
		/* Forget what it registered before failing: its tables are about to go. */
		nr_registered = before;
		dlclose(handle);
		return mr_error_set(err, rc < 0 ? rc : MR_EINVAL, "policy plugin '%s' failed to "
				    "initialise: %s", path,
				    init_err.msg[0] ? init_err.msg : mr_strerror(rc));
	}
	/* Registered ops point into the object: it stays loaded for the process lifetime. */
	return 0;
}

/* ---- parsing ---- */

/* Parse a whole decimal int64 from [s, s+n); 0, or MR_EINVAL / MR_ERANGE. */
static int parse_int(const char *s, size_t n, int64_t *out)
{
	char tmp[32], *end;
	long long v;

	if (!n || n >= sizeof(tmp))
		return n ? MR_ERANGE : MR_EINVAL;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	if (!isdigit((unsigned char)tmp[0]) && !((tmp[0] == '-' || tmp[0] == '+') &&
						 isdigit((unsigned char)tmp[1])))
		return MR_EINVAL;
	errno = 0;
	v = strtoll(tmp, &end, 10);
	if (*end)
		return MR_EINVAL;
	if (errno == ERANGE)
		return MR_ERANGE;
	*out = v;
	return 0;
}

static int token_is(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && !strncasecmp(s, word, n);
}

/* Parse one value for parameter d; value text is [v, v+n). */
static int parse_value(const struct mr_policy_ops *ops, const struct mr_param_desc *d,
		       const char *v, size_t n, int64_t *out, struct mr_error *err)
{
	int64_t x;
	int rc;

	switch (d->type) {
	case MR_PARAM_BOOL:
		if (token_is(v, n, "1") || token_is(v, n, "true") || token_is(v, n, "on")) {
			*out = 1;
			return 0;
		}
		if (token_is(v, n, "0") || token_is(v, n, "false") || token_is(v, n, "off")) {
			*out = 0;
			return 0;
		}
		return mr_error_set(err, MR_EINVAL,
				    "%s: parameter '%s' is a bool: '%.*s' is not one of "
				    "0, 1, true, false, on, off",
				    ops->name, d->name, (int)n, v);
	case MR_PARAM_ENUM:
		for (x = d->min; x <= d->max; x++) {
			if (token_is(v, n, d->enum_names[x - d->min])) {
				*out = x;
				return 0;
			}
		}
		rc = parse_int(v, n, &x);
		if (rc == 0 && x >= d->min && x <= d->max) {
			*out = x;
			return 0;
		} else {
			struct mr_strbuf sb = { err ? err->msg : NULL, err ? sizeof(err->msg) : 0, 0 };

			if (err)
				err->code = rc == 0 || rc == MR_ERANGE ? MR_ERANGE : MR_EINVAL;
			mr_strbuf_printf(&sb, "%s: parameter '%s' is one of ", ops->name, d->name);
			for (x = d->min; x <= d->max; x++)
				mr_strbuf_printf(&sb, "%s%s (%" PRId64 ")", x > d->min ? ", " : "",
					  d->enum_names[x - d->min], x);
			mr_strbuf_printf(&sb, "; '%.*s' is not", (int)n, v);
			return rc == 0 || rc == MR_ERANGE ? MR_ERANGE : MR_EINVAL;
		}
	case MR_PARAM_INT:
		rc = parse_int(v, n, &x);
		if (rc == MR_EINVAL)
			return mr_error_set(err, MR_EINVAL,
					    "%s: parameter '%s' needs an integer, not '%.*s'",
					    ops->name, d->name, (int)n, v);
		if (rc == MR_ERANGE || x < d->min || x > d->max)
			return mr_error_set(err, MR_ERANGE,
					    "%s: %s=%.*s is out of range [%" PRId64 ", %" PRId64 "]",
					    ops->name, d->name, (int)n, v, d->min, d->max);
		*out = x;
		return 0;
	}
	return mr_error_set(err, MR_EINVAL, "%s: parameter '%s' has an unknown type", ops->name,
			    d->name);
}

/* Canonical text of a parsed configuration into canon (cap bytes). */
static int write_canon(const struct mr_policy_ops *ops, const void *params, char *canon,
		       size_t cap, struct mr_error *err)
{
	struct mr_strbuf sb = { canon, cap, 0 };
	size_t i;

	mr_strbuf_printf(&sb, "%s", ops->name);
	for (i = 0; i < ops->nparams; i++) {
		const struct mr_param_desc *d = &ops->params[i];
		int64_t v = mr_param_get(ops, params, i);

		mr_strbuf_printf(&sb, "%c%s=", i ? ',' : ':', d->name);
		if (d->type == MR_PARAM_ENUM)
			mr_strbuf_printf(&sb, "%s", d->enum_names[v - d->min]);
		else
			mr_strbuf_printf(&sb, "%" PRId64, v);
	}
	if (sb.len >= cap)
		return mr_error_set(err, MR_ENOSPC,
				    "canonical spec of policy '%s' needs %zu bytes, buffer has %zu",
				    ops->name, sb.len + 1, cap);
	return 0;
}

int mr_policy_parse(const char *spec, const struct mr_policy_ops **ops_out, void *params,
		    size_t params_cap, char *canon, size_t canon_cap, struct mr_error *err)
{
	const struct mr_policy_ops *ops = NULL;
	unsigned char seen[256] = { 0 };
	const char *colon, *s;
	size_t namelen, i;

	ensure_builtins();
	if (!spec || !*spec)
		return mr_error_set(err, MR_EINVAL, "empty policy spec (expected name[:key=value,...])");
	colon = strchr(spec, ':');
	namelen = colon ? (size_t)(colon - spec) : strlen(spec);
	ops = find_n(spec, namelen);
	if (!ops) {
		struct mr_strbuf sb = { err ? err->msg : NULL, err ? sizeof(err->msg) : 0, 0 };

		if (err)
			err->code = MR_EINVAL;
		mr_strbuf_printf(&sb, "unknown policy '%.*s' (known policies: ", (int)namelen, spec);
		list_policies(&sb);
		mr_strbuf_printf(&sb, ")");
		return MR_EINVAL;
	}
	if (params_cap < ops->params_size || (ops->params_size && !params))
		return mr_error_set(err, MR_EINVAL,
				    "policy '%s' needs a %zu-byte parameter buffer (got %zu)",
				    ops->name, ops->params_size, params ? params_cap : 0);
	if (ops->nparams > sizeof(seen))
		return mr_error_set(err, MR_EINVAL, "policy '%s' has too many parameters", ops->name);

	if (ops->params_size)
		memset(params, 0, ops->params_size);
	for (i = 0; i < ops->nparams; i++)
		mr_param_set(ops, params, i, ops->params[i].def);

	for (s = colon ? colon + 1 : NULL; s && *s;) {
		const char *end = strchr(s, ',');
		const char *eq;
		size_t len = end ? (size_t)(end - s) : strlen(s);
		size_t klen;
		const struct mr_param_desc *d = NULL;
		int64_t v = 0;
		int rc;

		eq = memchr(s, '=', len);
		klen = eq ? (size_t)(eq - s) : len;
		if (!len)
			return mr_error_set(err, MR_EINVAL,
					    "policy spec '%s' has an empty parameter (expected "
					    "key=value separated by ',')",
					    spec);
		for (i = 0; i < ops->nparams; i++) {
			if (strlen(ops->params[i].name) == klen &&
			    !strncmp(ops->params[i].name, s, klen)) {
				d = &ops->params[i];
				break;
			}
		}
		if (!d) {
			struct mr_strbuf sb = { err ? err->msg : NULL, err ? sizeof(err->msg) : 0, 0 };

			if (err)
				err->code = MR_EINVAL;
			mr_strbuf_printf(&sb, "policy '%s' has no parameter '%.*s' ", ops->name, (int)klen,
				  s);
			if (ops->nparams) {
				mr_strbuf_printf(&sb, "(its parameters: ");
				list_params(&sb, ops);
				mr_strbuf_printf(&sb, ")");
			} else {
				mr_strbuf_printf(&sb, "(it has no parameters)");
			}
			return MR_EINVAL;
		}
		if (!eq)
			return mr_error_set(err, MR_EINVAL,
					    "%s: parameter '%s' needs a value (%s=VALUE)",
					    ops->name, d->name, d->name);
		if (seen[i])
			return mr_error_set(err, MR_EINVAL, "%s: parameter '%s' is given twice",
					    ops->name, d->name);
		seen[i] = 1;
		rc = parse_value(ops, d, eq + 1, len - klen - 1, &v, err);
		if (rc)
			return rc;
		mr_param_set(ops, params, i, v);
		s = end ? end + 1 : NULL;
		if (end && !*s)
			return mr_error_set(err, MR_EINVAL,
					    "policy spec '%s' ends with ',' (remove it or add "
					    "key=value)",
					    spec);
	}
	if (canon) {
		int rc = write_canon(ops, params, canon, canon_cap, err);

		if (rc)
			return rc;
	}
	if (ops_out)
		*ops_out = ops;
	return 0;
}

int mr_policy_check_spec(const char *spec, struct mr_error *err)
{
	const struct mr_policy_ops *ops = spec ? find_n(spec, strcspn(spec, ":")) : NULL;
	size_t need = ops ? ops->params_size : 0;
	void *params = malloc(need ? need : 1);
	int rc;

	if (!params)
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	rc = mr_policy_parse(spec, &ops, params, need, NULL, 0, err);
	free(params);
	return rc;
}

/* ---- help ---- */

static void describe_one(struct mr_strbuf *sb, const struct mr_policy_ops *ops)
{
	size_t i;
	int64_t v;

	mr_strbuf_printf(sb, "%s - %s\n", ops->name, ops->help ? ops->help : "");
	if (!ops->nparams)
		mr_strbuf_printf(sb, "    (no parameters)\n");
	for (i = 0; i < ops->nparams; i++) {
		const struct mr_param_desc *d = &ops->params[i];

		mr_strbuf_printf(sb, "    %s (%s", d->name, type_name(d->type));
		switch (d->type) {
		case MR_PARAM_BOOL:
			mr_strbuf_printf(sb, ", default %" PRId64 ")", d->def);
			break;
		case MR_PARAM_INT:
			mr_strbuf_printf(sb, ", %" PRId64 "..%" PRId64 ", default %" PRId64 ")", d->min,
				  d->max, d->def);
			break;
		case MR_PARAM_ENUM:
			mr_strbuf_printf(sb, ": ");
			for (v = d->min; v <= d->max; v++)
				mr_strbuf_printf(sb, "%s%s", v > d->min ? "|" : "", d->enum_names[v - d->min]);
			mr_strbuf_printf(sb, ", default %s)", d->enum_names[d->def - d->min]);
			break;
		}
		mr_strbuf_printf(sb, "\n        %s\n", d->help ? d->help : "");
	}
}

/*
 * Help for one policy, or for every registered policy when ops is NULL. Writes at most
 * cap bytes (NUL-terminated when cap > 0) and returns the length of the whole text, as
 * snprintf does, so a caller can size its buffer.
 */
size_t mr_policy_describe(const struct mr_policy_ops *ops, char *buf, size_t cap)
{
	struct mr_strbuf sb = { buf, cap, 0 };
	size_t i;

	ensure_builtins();
	if (cap)
		buf[0] = '\0';
	if (ops) {
		describe_one(&sb, ops);
		return sb.len;
	}
	for (i = 0; i < nr_registered; i++) {
		if (i)
			mr_strbuf_printf(&sb, "\n");
		describe_one(&sb, registry[i]);
	}
	return sb.len;
}

size_t mr_policy_short_spec(const char *spec, char *out, size_t cap)
{
	const struct mr_policy_ops *ops = NULL;
	struct mr_strbuf sb = { out, cap, 0 };
	int64_t buf[64]; /* parameters are int64s at their offsets */
	size_t shown = 0;

	if (!spec)
		spec = "";
	/* the registry's lookup, with no canonical text: a spec that does not parse
	 * (unknown policy, bad value) or whose parameters need more room is copied */
	if (mr_policy_parse(spec, &ops, buf, sizeof(buf), NULL, 0, NULL)) {
		mr_strbuf_printf(&sb, "%s", spec);
		return sb.len;
	}
	mr_strbuf_printf(&sb, "%s", ops->name);
	for (size_t i = 0; i < ops->nparams; i++) {
		const struct mr_param_desc *d = &ops->params[i];
		int64_t v = mr_param_get(ops, buf, i);

		if (v == d->def)
			continue;
		mr_strbuf_printf(&sb, "%c%s=", shown++ ? ',' : ':', d->name);
		if (d->type == MR_PARAM_ENUM)
			mr_strbuf_printf(&sb, "%s", d->enum_names[v - d->min]);
		else
			mr_strbuf_printf(&sb, "%" PRId64, v);
	}
	return sb.len;
}
