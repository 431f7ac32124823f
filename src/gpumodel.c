/*
 * gpumodel.c — the GPU model table: the compiled-in schemas/gpu-models.csv, parsed once
 * (lazily, under pthread_once), and the models a store adds to it (gpumodel_add).
 *
 * Invariants: 1 <= count <= GPUMODEL_MAX; the first nbuiltin rows are the compiled-in
 * table, in its order; exactly one row has is_default = 1 (a built-in one); every hbm_mib
 * > 0 and every price > 0 with a source; no two names or aliases match case-insensitively.
 * The compiled-in table ships with the binary, so a malformed one is a bug: it fails an
 * assert (aborts when asserts are compiled out), leaving the reason in table_error.
 *
 * Rows are added only by gpumodel_add, which its callers (store_open) run on the main
 * thread before any other starts; the table is read-only while threads run, and a row once
 * added keeps its id for the life of the process.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "embed.h"
#include "gpumodel.h"

#define TABLE_FILE "gpu-models.csv"

struct row {
	struct gpumodel m; /* what gpumodel_get hands out */
	char *aliases;     /* '|'-separated other spellings, "" when none (owned) */
};

static struct row rows[GPUMODEL_MAX];
static int nrows, nbuiltin;
static int default_id = -1;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* What was wrong with the table, for a debugger or core dump: library code does not print. */
static char table_error[128];

static void table_bug(int line, const char *what)
{
	snprintf(table_error, sizeof table_error, "schemas/" TABLE_FILE ":%d: %s", line, what);
	assert(!"schemas/gpu-models.csv is malformed: see table_error");
	abort();
}

/* Split one CSV line into at most max fields (double quotes allowed); returns the count.
 * Writes NUL-terminated copies into the caller's freshly allocated fields. */
static int split_csv(const char *s, size_t len, char **f, int max)
{
	int n = 0;
	size_t i = 0;
	for (;;) {
		char *out = xmalloc(len + 1);
		size_t o = 0;
		if (i < len && s[i] == '"') {
			for (i++; i < len; i++) {
				if (s[i] == '"' && i + 1 < len && s[i + 1] == '"')
					out[o++] = s[i++];
				else if (s[i] == '"') {
					i++;
					break;
				} else
					out[o++] = s[i];
			}
		}
		while (i < len && s[i] != ',')
			out[o++] = s[i++];
		out[o] = '\0';
		if (n == max) {
			free(out);
			return max + 1;
		}
		f[n++] = out;
		if (i >= len)
			return n;
		i++; /* the comma */
	}
}

/* The columns: the tiers' price and source columns follow C_TIER0 in tier order. */
enum { C_NAME, C_ALIASES, C_HBM, C_DEFAULT, C_TIER0, C_N = C_TIER0 + 2 * GPUMODEL_NTIER };
static const char *const colnames[C_N] = {
	"name",     "aliases",         "hbm_mib", "is_default",  "on_demand", "on_demand_source",
	"reserved", "reserved_source", "spot",    "spot_source", "owned",     "owned_source"};
static const char *const tier_names[GPUMODEL_NTIER] = {"on-demand", "reserved", "spot", "owned"};

const char *gpumodel_tier_name(enum gpumodel_tier t)
{
	return (unsigned)t < GPUMODEL_NTIER ? tier_names[t] : "?";
}

int gpumodel_tier_parse(const char *s, enum gpumodel_tier *t)
{
	for (int i = 0; i < GPUMODEL_NTIER; i++)
		if (!strcmp(s, tier_names[i])) {
			*t = (enum gpumodel_tier)i;
			return 0;
		}
	return -1;
}

int gpumodel_price_assumed(const char *source)
{
	return !strncmp(source, "assumed", 7) || !strncmp(source, "derived", 7);
}

static int name_matches(const struct row *r, const char *s);
static size_t name_key(const char *s, size_t n, char *out, size_t size);

/* A name or an alias: what a mask spec and a key can hold. */
static int bad_name(const char *s, size_t len)
{
	char k[96];
	return len == 0 || len >= 64 || memchr(s, '|', len) || memchr(s, ',', len) ||
	       name_key(s, len, k, sizeof k) == 0;
}

static const char *const opt_cols[] = {"aliases", "is_default"};

static int col_optional(int c)
{
	for (size_t i = 0; i < sizeof opt_cols / sizeof *opt_cols; i++)
		if (!strcmp(colnames[c], opt_cols[i]))
			return 1;
	return 0;
}

/* One data row f (nf fields, columns at col) into d, strings copied; 0 or VF_EINPUT with
 * "FILE:LINE: ..." in e. A user's row may leave hbm_mib, prices and sources all empty (a
 * row of aliases); builtin rows may not. */
static int parse_row(const char *file, int line, char **f, int nf, const int *col, int builtin,
		     struct gpumodel_def *d, struct err *e)
{
	const char *v[C_N];
	int given = 0, empty = 0;
	for (int c = 0; c < C_N; c++) {
		v[c] = col[c] >= 0 && col[c] < nf ? f[col[c]] : "";
		if (col[c] >= nf && !builtin)
			return err_set(e, VF_EINPUT, "%s:%d: %d fields, the header has more", file,
				       line, nf);
		if (c >= C_HBM && c != C_DEFAULT)
			*v[c] ? given++ : empty++;
	}
	memset(d, 0, sizeof *d);
	d->line = line;
	if (!*v[C_NAME] || bad_name(v[C_NAME], strlen(v[C_NAME])))
		return err_set(e, VF_EINPUT,
			       "%s:%d: name '%s' is not a GPU model name (1 to 63 characters, no "
			       "'|' or ',')",
			       file, line, v[C_NAME]);
	for (const char *p = v[C_ALIASES]; *p;) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		if (bad_name(p, len))
			return err_set(e, VF_EINPUT,
				       "%s:%d: alias '%.*s' of '%s' is not a GPU model name (1 to "
				       "63 characters, '|' between aliases)",
				       file, line, (int)len, p, v[C_NAME]);
		p += len + (bar != NULL);
	}
	int64_t dflt = 0, hbm = 0;
	if ((builtin || *v[C_DEFAULT]) &&
	    (parse_i64(v[C_DEFAULT], &dflt) || (dflt != 0 && dflt != 1)))
		return err_set(e, VF_EINPUT, "%s:%d: is_default '%s' is not 0 or 1", file, line,
			       v[C_DEFAULT]);
	if (dflt && !builtin)
		return err_set(e, VF_EINPUT,
			       "%s:%d: '%s': is_default 1 (the built-in UNKNOWN row is the one "
			       "default)",
			       file, line, v[C_NAME]);
	if (!builtin && !given) { /* aliases of a model the table knows */
		d->m.name = xstrdup(v[C_NAME]);
		d->aliases = xstrdup(v[C_ALIASES]);
		return 0;
	}
	if (empty)
		for (int c = C_HBM; c < C_N; c++)
			if (c != C_DEFAULT && !*v[c])
				return err_set(
					e, VF_EINPUT,
					"%s:%d: '%s': %s is empty (a new model gives hbm_mib "
					"and every price with its source; a row of aliases "
					"gives none)",
					file, line, v[C_NAME], colnames[c]);
	if (parse_i64(v[C_HBM], &hbm) || hbm <= 0)
		return err_set(e, VF_EINPUT,
			       "%s:%d: '%s': hbm_mib '%s' is not a positive integer (MiB)", file,
			       line, v[C_NAME], v[C_HBM]);
	double usd[GPUMODEL_NTIER];
	for (int t = 0; t < GPUMODEL_NTIER; t++) {
		const char *pv = v[C_TIER0 + 2 * t];
		if (parse_double(pv, &usd[t]) || !(usd[t] > 0) || usd[t] > 1e6)
			return err_set(
				e, VF_EINPUT,
				"%s:%d: '%s': %s '%s' is not a price (US dollars a GPU-hour, "
				"over 0)",
				file, line, v[C_NAME], colnames[C_TIER0 + 2 * t], pv);
	}
	d->m.name = xstrdup(v[C_NAME]);
	d->aliases = xstrdup(v[C_ALIASES]);
	d->m.hbm_mib = hbm;
	d->m.is_default = (int)dflt;
	for (int t = 0; t < GPUMODEL_NTIER; t++) {
		d->m.usd[t] = usd[t];
		d->m.source[t] = xstrdup(v[C_TIER0 + 2 * t + 1]);
	}
	return 0;
}

void gpumodel_def_release(struct gpumodel_def *d)
{
	if (!d)
		return;
	free((char *)d->m.name);
	free((char *)d->aliases);
	for (int t = 0; t < GPUMODEL_NTIER; t++)
		free((char *)d->m.source[t]);
	memset(d, 0, sizeof *d);
}

void gpumodel_defs_release(struct gpumodel_defs *ds)
{
	if (!ds)
		return;
	for (size_t i = 0; i < ds->n; i++)
		gpumodel_def_release(&ds->v[i]);
	free(ds->v);
	memset(ds, 0, sizeof *ds);
}

/* Parse a table's text (see gpumodel_defs_read); builtin: the compiled-in table, whose
 * every column is required and every row a model. */
static int parse_table(const char *file, const char *text, size_t size, int builtin,
		       struct gpumodel_defs *out, struct err *e)
{
	int col[C_N], header = 0, lineno = 0, rc = 0;
	size_t cap = 0;
	const char *s = text, *end = text + size;
	memset(out, 0, sizeof *out);
	while (s < end && !rc) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);
		const char *line = s;
		s = nl ? nl + 1 : end;
		lineno++;
		if (len && line[len - 1] == '\r')
			len--;
		if (len == 0 || line[0] == '#')
			continue;
		if (memchr(line, '\0', len)) {
			rc = err_set(e, VF_EINPUT, "%s:%d: a NUL byte (not a text file)", file,
				     lineno);
			break;
		}
		char *f[C_N + 4];
		int nf = split_csv(line, len, f, C_N + 4);
		if (nf > C_N + 4) {
			nf = C_N + 4;
			rc = err_set(e, VF_EINPUT, "%s:%d: more than %d fields", file, lineno, C_N);
		} else if (!header) {
			for (int c = 0; c < C_N; c++) {
				col[c] = -1;
				for (int k = 0; k < nf; k++)
					if (!strcmp(f[k], colnames[c]))
						col[c] = k;
				if (col[c] < 0 && (builtin || !col_optional(c))) {
					rc = err_set(e, VF_EINPUT,
						     "%s:%d: the header lacks column '%s' (the "
						     "columns of schemas/gpu-models.csv)",
						     file, lineno, colnames[c]);
					break;
				}
			}
			for (int k = 0; k < nf && !rc; k++) {
				int c = 0;
				while (c < C_N && strcmp(f[k], colnames[c]))
					c++;
				if (c == C_N)
					rc = err_set(
						e, VF_EINPUT,
						"%s:%d: '%s' is not a column of a GPU model "
						"table (valid: name, aliases, hbm_mib, "
						"is_default, on_demand, reserved, spot, owned, "
						"each price with its *_source)",
						file, lineno, f[k]);
			}
			header = 1;
		} else {
			if (out->n == cap) {
				cap = cap ? 2 * cap : 16;
				out->v = xrealloc(out->v, cap * sizeof *out->v);
			}
			rc = parse_row(file, lineno, f, nf, col, builtin, &out->v[out->n], e);
			if (!rc)
				out->n++;
		}
		for (int k = 0; k < nf; k++)
			free(f[k]);
	}
	if (!rc && !header)
		rc = err_set(e, VF_EINPUT,
			     "%s: no header line (the columns of "
			     "schemas/gpu-models.csv)",
			     file);
	if (rc)
		gpumodel_defs_release(out);
	return rc;
}

int gpumodel_defs_read(const char *file, const char *text, size_t size, struct gpumodel_defs *out,
		       struct err *e)
{
	int rc = parse_table(file, text, size, 0, out, e);
	if (!rc && out->n == 0)
		rc = err_set(e, VF_EINPUT, "%s: no model in it", file);
	return rc;
}

static void load_table(void)
{
	const struct embed_file *ef = NULL;
	struct gpumodel_defs ds;
	struct err e = {0};
	for (const struct embed_file *p = embed_files; p->name; p++)
		if (!strcmp(p->name, TABLE_FILE))
			ef = p;
	if (!ef)
		table_bug(0, "not compiled in");
	if (parse_table("schemas/" TABLE_FILE, ef->data, ef->len, 1, &ds, &e)) {
		table_bug(0, e.msg);
	}
	for (size_t i = 0; i < ds.n; i++) {
		struct gpumodel_def *d = &ds.v[i];
		if (nrows == GPUMODEL_MAX)
			table_bug(d->line, "more than GPUMODEL_MAX models");
		for (int k = 0; k < nrows; k++)
			if (name_matches(&rows[k], d->m.name))
				table_bug(d->line, "duplicate model name");
		struct row *r = &rows[nrows];
		r->m = d->m; /* the strings move to the table */
		r->aliases = (char *)d->aliases;
		if (d->m.is_default) {
			if (default_id >= 0)
				table_bug(d->line, "a second is_default row");
			default_id = nrows;
		}
		nrows++;
	}
	free(ds.v);
	nbuiltin = nrows;
	if (nrows == 0 || default_id < 0)
		table_bug(0, "no models, or no is_default row");
}

static void ensure_loaded(void)
{
	int rc = pthread_once(&once, load_table);
	assert(rc == 0);
	(void)rc;
}

/* s as names are compared: lowercase, without blanks, '-' and '_', and without a leading
 * vendor or brand word, so that "NVIDIA A100-SXM4-80GB" (nvidia-smi), "NVIDIA-A100-SXM4-80GB"
 * (a Kubernetes label) and "a100-sxm4-80gb" are one name (a brand word counts only
 * followed by a blank, '-' or '_'). Writes at most size bytes with
 * the NUL; returns the length, or size when s is too long to compare. */
static size_t name_key(const char *s, size_t n, char *out, size_t size)
{
	static const char *const brand[] = {"nvidia", "tesla", "amd", "instinct"};
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == ' ' || c == '-' || c == '_' || c == '\t')
			continue;
		if (o + 1 >= size)
			return size;
		out[o++] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
		out[o] = '\0';
		for (size_t b = 0; b < sizeof brand / sizeof *brand; b++)
			if (!strcmp(out, brand[b]) && i + 1 < n &&
			    (s[i + 1] == ' ' || s[i + 1] == '-' || s[i + 1] == '_')) {
				o = 0;
				break;
			}
	}
	out[o] = '\0';
	return o;
}

/* 1 if s is r's name or one of its aliases, compared as name_key does. */
static int name_matches(const struct row *r, const char *s)
{
	char k[96], a[96];
	size_t n = name_key(s, strlen(s), k, sizeof k);
	if (n == 0 || n >= sizeof k)
		return 0;
	if (name_key(r->m.name, strlen(r->m.name), a, sizeof a) == n && !strcmp(a, k))
		return 1;
	for (const char *p = r->aliases; *p;) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		if (name_key(p, len, a, sizeof a) == n && !strcmp(a, k))
			return 1;
		p += len + (bar != NULL);
	}
	return 0;
}

int gpumodel_count(void)
{
	ensure_loaded();
	return nrows;
}

const struct gpumodel *gpumodel_get(int id)
{
	ensure_loaded();
	assert(id >= 0 && id < nrows);
	return &rows[id].m;
}

int gpumodel_find(const char *s)
{
	ensure_loaded();
	if (!s || !*s)
		return -1;
	for (int i = 0; i < nrows; i++)
		if (name_matches(&rows[i], s))
			return i;
	return -1;
}

int gpumodel_unknown(void)
{
	ensure_loaded();
	return default_id;
}

int gpumodel_mask(const char *spec, uint32_t *mask, struct err *e)
{
	uint32_t m = 0;
	const char *p = spec ? spec : "";
	static_assert(GPUMODEL_MAX <= 32, "a mask of model ids must fit in a uint32_t");
	while (*p) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		char name[64];
		if (len == 0 || len >= sizeof name)
			return err_set(e, VF_EINPUT,
				       "gpu spec '%s': '%.*s' is not a GPU model name", spec,
				       (int)len, p);
		memcpy(name, p, len);
		name[len] = '\0';
		int id = gpumodel_find(name);
		if (id < 0)
			return err_set(e, VF_EINPUT, "gpu spec '%s': unknown GPU model '%s'", spec,
				       name);
		m |= 1u << id;
		p += len;
		if (bar) {
			p++;
			if (!*p)
				return err_set(e, VF_EINPUT, "gpu spec '%s': ends with '|'", spec);
		}
	}
	*mask = m;
	return VF_OK;
}

int gpumodel_builtin_count(void)
{
	ensure_loaded();
	return nbuiltin;
}

/* The row matching the len bytes at s, or -1. */
static int find_n(const char *s, size_t len)
{
	char buf[96];
	if (len >= sizeof buf)
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return gpumodel_find(buf);
}

/* 1 if a and b price and size a GPU alike. */
static int same_model(const struct gpumodel *a, const struct gpumodel *b)
{
	if (a->hbm_mib != b->hbm_mib)
		return 0;
	for (int t = 0; t < GPUMODEL_NTIER; t++)
		if (a->usd[t] != b->usd[t] || strcmp(a->source[t], b->source[t]))
			return 0;
	return 1;
}

int gpumodel_add(const struct gpumodel_def *d, int *id, struct err *e)
{
	ensure_loaded();
	int k = gpumodel_find(d->m.name);
	const char *aliases = d->aliases ? d->aliases : "";
	for (const char *p = aliases; *p;) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		int a = find_n(p, len);
		if (a >= 0 && a != k)
			return err_set(e, VF_EINPUT,
				       "GPU model '%s': alias '%.*s' already names model '%s'",
				       d->m.name, (int)len, p, rows[a].m.name);
		p += len + (bar != NULL);
	}
	if (k >= 0 && d->m.hbm_mib && !(k >= nbuiltin && same_model(&rows[k].m, &d->m)))
		return err_set(e, VF_EINPUT,
			       k < nbuiltin
				       ? "GPU model '%s' is built in as '%s': a row naming "
					 "it adds aliases only (its HBM and prices stay; "
					 "--gpu-price sets a price)"
				       : "GPU model '%s' is known already as '%s', with another "
					 "HBM, price or source",
			       d->m.name, rows[k].m.name);
	if (k < 0 && !d->m.hbm_mib)
		return err_set(e, VF_EINPUT,
			       "GPU model '%s' is not one voidfit knows: a new model gives hbm_mib "
			       "and its prices",
			       d->m.name);
	if (k < 0 && nrows == GPUMODEL_MAX)
		return err_set(e, VF_EINPUT,
			       "GPU model '%s': the table is full (%d models: %d built in, %d "
			       "added)",
			       d->m.name, GPUMODEL_MAX, nbuiltin, nrows - nbuiltin);
	if (k < 0) {
		struct row *r = &rows[nrows];
		r->m = d->m;
		r->m.is_default = 0;
		r->m.name = xstrdup(d->m.name);
		for (int t = 0; t < GPUMODEL_NTIER; t++)
			r->m.source[t] = xstrdup(d->m.source[t]);
		r->aliases = xstrdup("");
		k = nrows++;
	}
	/* the aliases this row does not match yet */
	struct row *r = &rows[k];
	for (const char *p = aliases; *p;) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		if (find_n(p, len) < 0) {
			size_t old = strlen(r->aliases);
			r->aliases = xrealloc(r->aliases, old + len + 2);
			snprintf(r->aliases + old, len + 2, "%s%.*s", old ? "|" : "", (int)len, p);
		}
		p += len + (bar != NULL);
	}
	*id = k;
	return 0;
}

const char *gpumodel_aliases(int id)
{
	ensure_loaded();
	assert(id >= 0 && id < nrows);
	return rows[id].aliases;
}
