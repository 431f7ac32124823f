/*
 * table.c — the table of every output (table.h): result tables and the report's, a cell as a
 * person reads it and raw, and the marking of the best value per column.
 *
 * Invariants: cols holds ncol columns, the nlabel label columns of a result table first
 * (table_new_cols makes none: nlabel 0, nnum ncol); cells holds nrows * ncol cells, row-major,
 * texts owned; best always matches the rows (recomputed after every change but table_row's:
 * tables are small).
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
	char *id;               /* JSON key and CSV name in a report ("" for none) */
	struct table_col *cols; /* ncol columns (strings owned) */
	size_t ncol;
	size_t nlabel, nnum;      /* a result table's label and number columns (ncol in all) */
	struct table_cell *cells; /* nrows * ncol cells */
	unsigned char *agg;       /* nrows flags: ROW_AGG, ROW_UNRANKED */
	size_t nrows, rowcap;     /* rows and allocated rows */
	char **notes;             /* notes (owned) */
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

static struct table *alloc_table(const char *id, size_t ncol)
{
	struct table *r = xcalloc(1, sizeof *r);
	r->id = xstrdup(id ? id : "");
	r->cols = xcalloc(ncol ? ncol : 1, sizeof *r->cols);
	r->ncol = ncol;
	return r;
}

struct table *table_new(const struct table_col *labels, size_t nlabel, const struct table_col *nums,
			size_t nnum)
{
	struct table *r = alloc_table(NULL, nlabel + nnum);
	copy_cols(r->cols, labels, nlabel);
	copy_cols(r->cols + nlabel, nums, nnum);
	for (size_t i = 0; i < nlabel; i++)
		r->cols[i].flags |= TABLE_C_TEXT;
	r->nlabel = nlabel;
	r->nnum = nnum;
	return r;
}

struct table *table_new_cols(const char *id, const struct table_col *cols, size_t ncol)
{
	struct table *r = alloc_table(id, ncol);
	copy_cols(r->cols, cols, ncol);
	r->nnum = ncol;
	return r;
}

void table_free(struct table *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nrows * r->ncol; i++)
		free(r->cells[i].s);
	for (size_t i = 0; i < r->nnotes; i++)
		free(r->notes[i]);
	for (size_t i = 0; i < r->ncol; i++) {
		free((char *)r->cols[i].key);
		free((char *)r->cols[i].head);
		free((char *)r->cols[i].unit);
	}
	FREE_ALL(r->id, r->cols, r->cells, r->agg, r->notes, r->best, r);
}

struct table_cell *table_row(struct table *r)
{
	if (r->nrows == r->rowcap) {
		size_t cap = r->rowcap ? 2 * r->rowcap : 8;
		r->cells = xrealloc(r->cells, cap * (r->ncol ? r->ncol : 1) * sizeof *r->cells);
		r->agg = xrealloc(r->agg, cap);
		r->rowcap = cap;
	}
	struct table_cell *c = &r->cells[r->nrows * r->ncol];
	for (size_t i = 0; i < r->ncol; i++)
		c[i] = (struct table_cell){NAN, NULL};
	r->agg[r->nrows++] = 0;
	if (r->mark)
		compute_best(r);
	return c;
}

void table_cell_text(struct table_cell *c, const char *s)
{
	free(c->s);
	c->s = dup_or_null(s);
}

void table_add_row(struct table *r, const char *const *labels, const double *vals, int aggregate)
{
	struct table_cell *c = table_row(r);
	for (size_t i = 0; i < r->nlabel; i++)
		c[i].s = dup_or_null(labels ? labels[i] : NULL);
	for (size_t i = 0; i < r->nnum; i++)
		c[r->nlabel + i].v = vals ? vals[i] : NAN;
	r->agg[r->nrows - 1] = aggregate ? ROW_AGG : 0;
	compute_best(r);
}

void table_show(struct table *r, size_t col, int on)
{
	assert(col < r->ncol);
	if (on)
		r->cols[col].flags &= ~(unsigned)TABLE_C_TEXT_HIDE;
	else
		r->cols[col].flags |= TABLE_C_TEXT_HIDE;
}

void table_hide_zero(struct table *r)
{
	for (size_t c = 0; c < r->ncol; c++) {
		if (r->cols[c].flags & TABLE_C_TEXT)
			continue;
		int any = 0;
		for (size_t row = 0; row < r->nrows && !any; row++) {
			double v = r->cells[row * r->ncol + c].v;
			any = !isnan(v) && v != 0;
		}
		if (!any)
			table_show(r, c, 0);
	}
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

const char *table_id(const struct table *r)
{
	return r->id;
}

size_t table_ncols(const struct table *r)
{
	return r->ncol;
}

const struct table_col *table_col(const struct table *r, size_t col)
{
	assert(col < r->ncol);
	return &r->cols[col];
}

const struct table_cell *table_cell(const struct table *r, size_t row, size_t col)
{
	assert(row < r->nrows && col < r->ncol);
	return &r->cells[row * r->ncol + col];
}

int table_shown(const struct table *r, size_t col)
{
	return !(table_col(r, col)->flags & TABLE_C_TEXT_HIDE);
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
	return &r->cols[i];
}

const struct table_col *table_num_col(const struct table *r, size_t i)
{
	assert(i < r->nnum);
	return &r->cols[r->nlabel + i];
}

const char *table_label(const struct table *r, size_t row, size_t i)
{
	assert(i < r->nlabel);
	return table_cell(r, row, i)->s;
}

double table_value(const struct table *r, size_t row, size_t i)
{
	assert(i < r->nnum);
	return table_cell(r, row, r->nlabel + i)->v;
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
	if (c->flags & TABLE_C_USD)
		return fmt_usd(v, buf, len);
	if (c->flags & TABLE_C_PRICE)
		return fmt_price(v, buf, len);
	if (c->flags & TABLE_C_SHARE)
		return fmt_share(v, buf, len);
	if (c->flags & TABLE_C_SECONDS)
		return fmt_duration(v, c->flags & TABLE_C_ROUNDED ? FMT_DUR_ROUNDED : FMT_DUR_UNITS,
				    buf, len);
	if (!(c->flags & TABLE_C_PLAIN) && ((c->flags & TABLE_C_DOLLARS) || fabs(v) >= 1000))
		return fmt_thousands(v, c->decimals, buf, len);
	return table_fmt(c, v, buf, len);
}

void table_cell_human(const struct table *r, size_t row, size_t col, struct sbuf *out)
{
	const struct table_col *c = table_col(r, col);
	const struct table_cell *x = table_cell(r, row, col);
	char buf[96];
	if (c->flags & TABLE_C_TEXT)
		sbuf_adds(out, x->s ? x->s : "-");
	else
		sbuf_adds(out, table_fmt_human(c, x->v, buf, sizeof buf));
}

void table_cell_raw(const struct table *r, size_t row, size_t col, struct sbuf *out)
{
	const struct table_cell *c = table_cell(r, row, col);
	char buf[32];
	if (table_col(r, col)->flags & TABLE_C_TEXT) {
		sbuf_adds(out, c->s ? c->s : "");
		return;
	}
	if (!isfinite(c->v))
		return;
	if (c->v == (double)(long long)c->v && fabs(c->v) < 1e15) {
		snprintf(buf, sizeof buf, "%lld", (long long)c->v);
	} else {
		for (int prec = 1; prec <= 17; prec++) { /* the shortest that reads back */
			snprintf(buf, sizeof buf, "%.*g", prec, c->v);
			if (strtod(buf, NULL) == c->v)
				break;
		}
	}
	sbuf_adds(out, buf);
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
		const struct table_col *c = table_num_col(r, i);
		if (c->better == TABLE_NEUTRAL)
			continue;
		double best = NAN, worst = NAN;
		size_t nplain = 0;
		for (size_t row = 0; row < r->nrows; row++) {
			double v = table_value(r, row, i);
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
			double v = table_value(r, row, i);
			if (!r->agg[row] && !isnan(v) && rounded(c, v) == best)
				r->best[row * r->nnum + i] = 1;
		}
	}
}

int table_is_best(const struct table *r, size_t row, size_t i)
{
	assert(row < r->nrows && i < r->nnum);
	return r->mark && r->best[row * r->nnum + i];
}

const struct table_ops *table_format_find(const char *name)
{
	for (const struct table_ops *const *f = table_formats; *f; f++)
		if (!strcmp((*f)->name, name))
			return *f;
	return NULL;
}
