/*
 * gpumodel.c — the GPU model table, parsed once (lazily, under pthread_once) from the
 * compiled-in schemas/gpu-models.csv into a static array that is read-only afterwards.
 *
 * Invariants after loading: 1 <= count <= GPUMODEL_MAX; exactly one row has is_default = 1;
 * every hbm_mib > 0 and every price > 0 with a source; no two names or aliases match
 * case-insensitively. The table ships with the binary, so a malformed one is a bug: it fails an
 * assert (aborts when asserts are compiled out), leaving the reason in table_error.
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
static int nrows;
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

static void load_table(void)
{
	const struct embed_file *ef = NULL;
	for (const struct embed_file *p = embed_files; p->name; p++)
		if (!strcmp(p->name, TABLE_FILE))
			ef = p;
	if (!ef)
		table_bug(0, "not compiled in");
	int col[C_N], header = 0, lineno = 0;
	const char *s = ef->data, *end = ef->data + ef->len;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);
		const char *line = s;
		s = nl ? nl + 1 : end;
		lineno++;
		if (len && line[len - 1] == '\r')
			len--;
		if (len == 0 || line[0] == '#')
			continue;
		char *f[C_N + 4];
		int nf = split_csv(line, len, f, C_N + 4);
		if (nf > C_N + 4)
			table_bug(lineno, "too many fields");
		if (!header) {
			for (int c = 0; c < C_N; c++) {
				col[c] = -1;
				for (int k = 0; k < nf; k++)
					if (!strcmp(f[k], colnames[c]))
						col[c] = k;
				if (col[c] < 0)
					table_bug(lineno, "a column is missing from the header");
			}
			header = 1;
		} else {
			if (nrows == GPUMODEL_MAX)
				table_bug(lineno, "more than GPUMODEL_MAX models");
			struct row *r = &rows[nrows];
			int64_t hbm, dflt;
			for (int c = 0; c < C_N; c++)
				if (col[c] >= nf)
					table_bug(lineno, "too few fields");
			if (parse_i64(f[col[C_HBM]], &hbm) || hbm <= 0)
				table_bug(lineno, "hbm_mib is not a positive integer");
			for (int t = 0; t < GPUMODEL_NTIER; t++) {
				double price;
				if (parse_double(f[col[C_TIER0 + 2 * t]], &price) || !(price > 0))
					table_bug(lineno, "a price is not a positive number");
				if (!*f[col[C_TIER0 + 2 * t + 1]])
					table_bug(lineno, "a price has no source");
				r->m.usd[t] = price;
				r->m.source[t] = xstrdup(f[col[C_TIER0 + 2 * t + 1]]);
			}
			if (parse_i64(f[col[C_DEFAULT]], &dflt) || (dflt != 0 && dflt != 1))
				table_bug(lineno, "is_default is not 0 or 1");
			if (!*f[col[C_NAME]])
				table_bug(lineno, "empty name");
			for (int k = 0; k < nrows; k++)
				if (name_matches(&rows[k], f[col[C_NAME]]))
					table_bug(lineno, "duplicate model name");
			r->m.name = xstrdup(f[col[C_NAME]]);
			r->aliases = xstrdup(f[col[C_ALIASES]]);
			r->m.hbm_mib = hbm;
			r->m.is_default = (int)dflt;
			if (dflt) {
				if (default_id >= 0)
					table_bug(lineno, "a second is_default row");
				default_id = nrows;
			}
			nrows++;
		}
		for (int k = 0; k < nf; k++)
			free(f[k]);
	}
	if (nrows == 0 || default_id < 0)
		table_bug(lineno, "no models, or no is_default row");
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
