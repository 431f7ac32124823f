/*
 * report.c — the result table shared by every output format (report-*.c), and the marking
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

#include "report.h"
#include "util.h"

struct report {
	struct report_col *labels; /* label columns (strings owned) */
	size_t nlabel;
	struct report_col *nums; /* number columns (strings owned) */
	size_t nnum;
	char **cells;         /* nrows * nlabel label strings (owned, may be NULL) */
	double *vals;         /* nrows * nnum values */
	unsigned char *agg;   /* nrows flags: aggregate row */
	size_t nrows, rowcap; /* rows and allocated rows */
	char **notes;         /* notes (owned) */
	size_t nnotes, notecap;
	int mark;            /* mark best values */
	unsigned char *best; /* nrows * nnum: marked best */
};

const struct report_ops *const report_formats[] = {
	&report_text, &report_json, &report_csv, &report_md, NULL,
};

static void compute_best(struct report *r);

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void copy_cols(struct report_col *dst, const struct report_col *src, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		dst[i] = src[i];
		dst[i].key = xstrdup(src[i].key ? src[i].key : "");
		dst[i].head = xstrdup(src[i].head ? src[i].head : dst[i].key);
		dst[i].unit = xstrdup(src[i].unit ? src[i].unit : "");
		assert(src[i].decimals >= 0 && src[i].decimals <= 12);
	}
}

static void free_cols(struct report_col *c, size_t n)
{
	for (size_t i = 0; c && i < n; i++) {
		free((char *)c[i].key);
		free((char *)c[i].head);
		free((char *)c[i].unit);
	}
	free(c);
}

struct report *report_new(const struct report_col *labels, size_t nlabel,
			  const struct report_col *nums, size_t nnum)
{
	struct report *r = xcalloc(1, sizeof *r);
	r->labels = xcalloc(nlabel ? nlabel : 1, sizeof *r->labels);
	r->nums = xcalloc(nnum ? nnum : 1, sizeof *r->nums);
	copy_cols(r->labels, labels, nlabel);
	copy_cols(r->nums, nums, nnum);
	r->nlabel = nlabel;
	r->nnum = nnum;
	return r;
}

void report_free(struct report *r)
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

void report_add_row(struct report *r, const char *const *labels, const double *vals, int aggregate)
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
	r->agg[r->nrows] = aggregate != 0;
	r->nrows++;
	compute_best(r);
}

void report_set_mark_best(struct report *r, int on)
{
	r->mark = on != 0;
	compute_best(r);
}

void report_add_note(struct report *r, const char *note)
{
	xgrow(&r->notes, &r->notecap, r->nnotes + 1, sizeof *r->notes);
	r->notes[r->nnotes++] = xstrdup(note);
}

size_t report_nrows(const struct report *r)
{
	return r->nrows;
}

size_t report_nlabels(const struct report *r)
{
	return r->nlabel;
}

size_t report_nnums(const struct report *r)
{
	return r->nnum;
}

const struct report_col *report_label_col(const struct report *r, size_t i)
{
	assert(i < r->nlabel);
	return &r->labels[i];
}

const struct report_col *report_num_col(const struct report *r, size_t i)
{
	assert(i < r->nnum);
	return &r->nums[i];
}

const char *report_label(const struct report *r, size_t row, size_t i)
{
	assert(row < r->nrows && i < r->nlabel);
	return r->cells[row * r->nlabel + i];
}

double report_value(const struct report *r, size_t row, size_t i)
{
	assert(row < r->nrows && i < r->nnum);
	return r->vals[row * r->nnum + i];
}

int report_is_aggregate(const struct report *r, size_t row)
{
	assert(row < r->nrows);
	return r->agg[row];
}

size_t report_nnotes(const struct report *r)
{
	return r->nnotes;
}

const char *report_note(const struct report *r, size_t i)
{
	assert(i < r->nnotes);
	return r->notes[i];
}

char *report_fmt(const struct report_col *c, double v, char *buf, size_t len)
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

/* Compare the values as printed, so what looks equal is marked equally. */
static double rounded(const struct report_col *c, double v)
{
	char buf[64];
	report_fmt(c, v, buf, sizeof buf);
	return strtod(buf, NULL);
}

static void compute_best(struct report *r)
{
	free(r->best);
	r->best = xcalloc(r->nrows * r->nnum + 1, 1);
	if (!r->mark)
		return;
	for (size_t i = 0; i < r->nnum; i++) {
		const struct report_col *c = &r->nums[i];
		if (c->better == REPORT_NEUTRAL)
			continue;
		double best = NAN, worst = NAN;
		size_t nplain = 0;
		for (size_t row = 0; row < r->nrows; row++) {
			double v = r->vals[row * r->nnum + i];
			if (r->agg[row] || isnan(v))
				continue;
			v = rounded(c, v);
			nplain++;
			int better = c->better == REPORT_LOWER ? v < best : v > best;
			int worse = c->better == REPORT_LOWER ? v > worst : v < worst;
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

int report_is_best(const struct report *r, size_t row, size_t i)
{
	assert(row < r->nrows && i < r->nnum);
	return r->best[row * r->nnum + i];
}

const struct report_ops *report_format_find(const char *name)
{
	for (const struct report_ops *const *f = report_formats; *f; f++)
		if (!strcmp((*f)->name, name))
			return *f;
	return NULL;
}
