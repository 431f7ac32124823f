/*
 * table.c — the result table shared by every output format (table-*.c), and the marking
 * of the best value per column.
 *
 * Invariants: cells holds nrows * nlabel strings (owned, NULL allowed) and vals nrows * nnum
 * values; best always matches the rows (recomputed after every change: tables are small).
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"
#include "util.h"

struct table {
	struct table_col *labels; /* label columns (strings owned) */
	size_t nlabel;
	struct table_col *nums; /* number columns (strings owned) */
	size_t nnum;
	char **cells;         /* nrows * nlabel label strings (owned, may be NULL) */
	double *vals;         /* nrows * nnum values */
	unsigned char *agg;   /* nrows flags: ROW_AGG, ROW_UNRANKED */
	size_t nrows, rowcap; /* rows and allocated rows */
	char **notes;         /* notes (owned) */
	size_t nnotes, notecap;
	int mark;            /* mark best values */
	unsigned char *best; /* nrows * nnum: marked best */
};

const struct table_ops *const table_formats[] = {
	&table_text, &table_json, &table_csv, &table_md, NULL,
};

enum { ROW_AGG = 1, ROW_UNRANKED = 2 };

static void compute_best(struct table *r);

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void copy_cols(struct table_col *dst, const struct table_col *src, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		dst[i] = src[i];
		dst[i].key = xstrdup(src[i].key ? src[i].key : "");
		dst[i].head = xstrdup(src[i].head ? src[i].head : dst[i].key);
		dst[i].unit = xstrdup(src[i].unit ? src[i].unit : "");
		assert(src[i].decimals >= 0 && src[i].decimals <= 12);
	}
}

static void free_cols(struct table_col *c, size_t n)
{
	for (size_t i = 0; c && i < n; i++) {
		free((char *)c[i].key);
		free((char *)c[i].head);
		free((char *)c[i].unit);
	}
	free(c);
}

struct table *table_new(const struct table_col *labels, size_t nlabel, const struct table_col *nums,
			size_t nnum)
{
	struct table *r = xcalloc(1, sizeof *r);
	r->labels = xcalloc(nlabel ? nlabel : 1, sizeof *r->labels);
	r->nums = xcalloc(nnum ? nnum : 1, sizeof *r->nums);
	copy_cols(r->labels, labels, nlabel);
	copy_cols(r->nums, nums, nnum);
	r->nlabel = nlabel;
	r->nnum = nnum;
	return r;
}

void table_free(struct table *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nrows * r->nlabel; i++)
		free(r->cells[i]);
	for (size_t i = 0; i < r->nnotes; i++)
		free(r->notes[i]);
	free_cols(r->labels, r->nlabel);
	free_cols(r->nums, r->nnum);
	free(r->cells);
	free(r->vals);
	free(r->agg);
	free(r->notes);
	free(r->best);
	free(r);
}

void table_add_row(struct table *r, const char *const *labels, const double *vals, int aggregate)
{
	if (r->nrows == r->rowcap) {
		size_t cap = r->rowcap ? 2 * r->rowcap : 8;
		r->cells = xrealloc(r->cells, cap * (r->nlabel ? r->nlabel : 1) * sizeof *r->cells);
		r->vals = xrealloc(r->vals, cap * (r->nnum ? r->nnum : 1) * sizeof *r->vals);
		r->agg = xrealloc(r->agg, cap);
		r->rowcap = cap;
	}
	for (size_t i = 0; i < r->nlabel; i++)
		r->cells[r->nrows * r->nlabel + i] = dup_or_null(labels ? labels[i] : NULL);
	for (size_t i = 0; i < r->nnum; i++)
		r->vals[r->nrows * r->nnum + i] = vals ? vals[i] : NAN;
	r->agg[r->nrows] = aggregate ? ROW_AGG : 0;
	r->nrows++;
	compute_best(r);
}

void table_set_unranked(struct table *r, size_t row)
{
	assert(row < r->nrows);
	r->agg[row] |= ROW_UNRANKED;
	compute_best(r);
}

void table_set_mark_best(struct table *r, int on)
{
	r->mark = on != 0;
	compute_best(r);
}

void table_add_note(struct table *r, const char *note)
{
	xgrow(&r->notes, &r->notecap, r->nnotes + 1, sizeof *r->notes);
	r->notes[r->nnotes++] = xstrdup(note);
}

size_t table_nrows(const struct table *r)
{
	return r->nrows;
}

size_t table_nlabels(const struct table *r)
{
	return r->nlabel;
}

size_t table_nnums(const struct table *r)
{
	return r->nnum;
}

const struct table_col *table_label_col(const struct table *r, size_t i)
{
	assert(i < r->nlabel);
	return &r->labels[i];
}

const struct table_col *table_num_col(const struct table *r, size_t i)
{
	assert(i < r->nnum);
	return &r->nums[i];
}

const char *table_label(const struct table *r, size_t row, size_t i)
{
	assert(row < r->nrows && i < r->nlabel);
	return r->cells[row * r->nlabel + i];
}

double table_value(const struct table *r, size_t row, size_t i)
{
	assert(row < r->nrows && i < r->nnum);
	return r->vals[row * r->nnum + i];
}

int table_is_aggregate(const struct table *r, size_t row)
{
	assert(row < r->nrows);
	return (r->agg[row] & ROW_AGG) != 0;
}

size_t table_nnotes(const struct table *r)
{
	return r->nnotes;
}

const char *table_note(const struct table *r, size_t i)
{
	assert(i < r->nnotes);
	return r->notes[i];
}

char *table_fmt(const struct table_col *c, double v, char *buf, size_t len)
{
	if (isnan(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	snprintf(buf, len, "%.*f", c->decimals, v);
	/* "-0.00" would make equal runs print differently */
	if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1))
		memmove(buf, buf + 1, strlen(buf));
	return buf;
}

char *table_fmt_thousands(double v, int decimals, char *buf, size_t len)
{
	char raw[64];
	struct table_col c = {.decimals = decimals};
	table_fmt(&c, v, raw, sizeof raw);
	const char *d = raw + (raw[0] == '-');
	size_t whole = strcspn(d, "."), o = 0;
	if (d != raw && o + 1 < len)
		buf[o++] = '-';
	for (size_t i = 0; d[i] && o + 1 < len; i++) {
		buf[o++] = d[i];
		if (i + 1 < whole && (whole - i - 1) % 3 == 0 && o + 1 < len)
			buf[o++] = ',';
	}
	buf[o] = '\0';
	return buf;
}

/* "<a><ua>" or "<a><ua> <b><ub>" (b left out when 0), a with thousands separators. */
static void two_units(long long a, const char *ua, long long b, const char *ub, char *buf,
		      size_t len)
{
	char n[48];
	table_fmt_thousands((double)a, 0, n, sizeof n);
	if (b)
		snprintf(buf, len, "%s%s %lld%s", n, ua, b, ub);
	else
		snprintf(buf, len, "%s%s", n, ua);
}

char *table_fmt_seconds(double s, char *buf, size_t len)
{
	if (isnan(s)) {
		snprintf(buf, len, "-");
		return buf;
	}
	if (s < 0) {
		table_fmt_seconds(-s, buf + 1, len - 1);
		if (strcmp(buf + 1, "0s"))
			buf[0] = '-';
		else
			memmove(buf, buf + 1, strlen(buf + 1) + 1);
		return buf;
	}
	if (isinf(s)) {
		snprintf(buf, len, "inf");
		return buf;
	}
	long long t = llround(s), m = llround(s / 60), h = llround(s / 3600);
	if (s < 9.95 && fabs(s - (double)t) >= 0.05)
		snprintf(buf, len, "%.1fs", s);
	else if (t < 60)
		snprintf(buf, len, "%llds", t);
	else if (t < 3600)
		two_units(t / 60, "m", t % 60, "s", buf, len);
	else if (m < 24 * 60)
		two_units(m / 60, "h", m % 60, "m", buf, len);
	else
		two_units(h / 24, "d", h % 24, "h", buf, len);
	return buf;
}

char *table_fmt_human(const struct table_col *c, double v, char *buf, size_t len)
{
	if (isnan(v))
		return table_fmt(c, v, buf, len);
	if (c->flags & TABLE_C_SECONDS)
		return table_fmt_seconds(v, buf, len);
	if ((c->flags & TABLE_C_DOLLARS) || fabs(v) >= 1000)
		return table_fmt_thousands(v, c->decimals, buf, len);
	return table_fmt(c, v, buf, len);
}

/* Compare the values as printed, so what looks equal is marked equally. */
static double rounded(const struct table_col *c, double v)
{
	char buf[64];
	table_fmt(c, v, buf, sizeof buf);
	return strtod(buf, NULL);
}

static void compute_best(struct table *r)
{
	free(r->best);
	r->best = xcalloc(r->nrows * r->nnum + 1, 1);
	if (!r->mark)
		return;
	for (size_t i = 0; i < r->nnum; i++) {
		const struct table_col *c = &r->nums[i];
		if (c->better == TABLE_NEUTRAL)
			continue;
		double best = NAN, worst = NAN;
		size_t nplain = 0;
		for (size_t row = 0; row < r->nrows; row++) {
			double v = r->vals[row * r->nnum + i];
			if (r->agg[row] || isnan(v))
				continue;
			v = rounded(c, v);
			nplain++;
			int better = c->better == TABLE_LOWER ? v < best : v > best;
			int worse = c->better == TABLE_LOWER ? v > worst : v < worst;
			if (isnan(best) || better)
				best = v;
			if (isnan(worst) || worse)
				worst = v;
		}
		if (nplain < 2 || best == worst)
			continue;
		for (size_t row = 0; row < r->nrows; row++) {
			double v = r->vals[row * r->nnum + i];
			if (!r->agg[row] && !isnan(v) && rounded(c, v) == best)
				r->best[row * r->nnum + i] = 1;
		}
	}
}

int table_is_best(const struct table *r, size_t row, size_t i)
{
	assert(row < r->nrows && i < r->nnum);
	return r->best[row * r->nnum + i];
}

const struct table_ops *table_format_find(const char *name)
{
	for (const struct table_ops *const *f = table_formats; *f; f++)
		if (!strcmp((*f)->name, name))
			return *f;
	return NULL;
}
