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

#include "fmt.h"
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
	return fmt_fixed(v, c->decimals, buf, len);
}

char *table_fmt_human(const struct table_col *c, double v, char *buf, size_t len)
{
	if (isnan(v))
		return table_fmt(c, v, buf, len);
	if (c->flags & TABLE_C_SECONDS)
		return fmt_duration(v, FMT_DUR_UNITS, buf, len);
	if ((c->flags & TABLE_C_DOLLARS) || fabs(v) >= 1000)
		return fmt_thousands(v, c->decimals, buf, len);
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
