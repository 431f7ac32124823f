/*
 * report-doc.c — a report's document: blocks, tables and their cells, how a cell reads for a
 * person and raw, and the table of output formats (report.h, report-int.h).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "report-int.h"

const struct report_ops *const report_formats[] = {
	&report_text, &report_md, &report_html, &report_json, &report_csv, NULL,
};

const struct report_ops *report_format_find(const char *name)
{
	for (const struct report_ops *const *f = report_formats; *f; f++)
		if (!strcmp((*f)->name, name))
			return *f;
	return NULL;
}

const struct report_ops *report_format_for_path(const char *path)
{
	size_t n = strlen(path);
	for (const struct report_ops *const *f = report_formats; *f; f++) {
		size_t k = strlen((*f)->ext);
		if (n > k && !strcmp(path + n - k, (*f)->ext))
			return *f;
	}
	if (n > 4 && !strcmp(path + n - 4, ".htm"))
		return &report_html;
	return NULL;
}

struct report_block *report_add(struct report *r, int type, const char *text)
{
	xgrow(&r->blocks, &r->cap, r->n + 1, sizeof *r->blocks);
	struct report_block *b = &r->blocks[r->n++];
	memset(b, 0, sizeof *b);
	b->type = type;
	b->text = text ? xstrdup(text) : NULL;
	sbuf_init(&b->svg);
	return b;
}

struct report_block *report_addf(struct report *r, int type, const char *fmt, ...)
{
	va_list ap;
	int n;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *buf = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(buf, (size_t)n + 1, fmt, ap);
	va_end(ap);
	struct report_block *b = report_add(r, type, NULL);
	b->text = buf;
	return b;
}

struct report_table *report_add_table(struct report *r, const char *id, const char *caption,
				      const struct report_col *cols, size_t ncol, unsigned flags)
{
	struct report_block *b = report_add(r, REPORT_B_TABLE, caption);
	struct report_table *t = xcalloc(1, sizeof *t);
	b->flags = flags;
	b->table = t;
	t->id = xstrdup(id);
	t->ncol = ncol;
	t->cols = xcalloc(ncol, sizeof *t->cols);
	memcpy(t->cols, cols, ncol * sizeof *cols);
	t->shown = xcalloc(ncol, 1);
	for (size_t c = 0; c < ncol; c++)
		t->shown[c] = !(cols[c].flags & REPORT_C_RAW);
	return t;
}

struct report_cell *report_row(struct report_table *t)
{
	size_t need = (t->nrow + 1) * t->ncol;
	xgrow(&t->cells, &t->cap, need, sizeof *t->cells);
	struct report_cell *c = &t->cells[t->nrow * t->ncol];
	for (size_t i = 0; i < t->ncol; i++)
		c[i] = (struct report_cell){NAN, NULL};
	t->nrow++;
	return c;
}

void report_cell_text(struct report_cell *c, const char *s)
{
	free(c->s);
	c->s = s ? xstrdup(s) : NULL;
}

void report_hide_zero(struct report_table *t)
{
	for (size_t c = 0; c < t->ncol; c++) {
		if (t->cols[c].kind == REPORT_K_TEXT)
			continue;
		int any = 0;
		for (size_t r = 0; r < t->nrow && !any; r++) {
			double v = t->cells[r * t->ncol + c].v;
			any = !isnan(v) && v != 0;
		}
		if (!any)
			t->shown[c] = 0;
	}
}

void report_free(struct report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		struct report_block *b = &r->blocks[i];
		free(b->text);
		sbuf_release(&b->svg);
		if (b->table) {
			for (size_t k = 0; k < b->table->nrow * b->table->ncol; k++)
				free(b->table->cells[k].s);
			free(b->table->cells);
			free(b->table->cols);
			free(b->table->shown);
			free(b->table->id);
			free(b->table);
		}
	}
	free(r->blocks);
	free(r);
}

void report_output_init(struct report_output *o)
{
	memset(o, 0, sizeof *o);
	sbuf_init(&o->doc);
}

void report_output_release(struct report_output *o)
{
	if (!o)
		return;
	sbuf_release(&o->doc);
	for (size_t i = 0; i < o->nfiles; i++) {
		free(o->files[i].name);
		sbuf_release(&o->files[i].body);
	}
	free(o->files);
	memset(o, 0, sizeof *o);
}

/* ---- how a value reads ---- */

void report_cell_human(const struct report_table *t, size_t row, size_t col, struct sbuf *out)
{
	const struct report_cell *c = &t->cells[row * t->ncol + col];
	char buf[96];
	int kind = t->cols[col].kind;
	if (kind == REPORT_K_TEXT) {
		sbuf_adds(out, c->s ? c->s : "-");
		return;
	}
	if (isnan(c->v)) {
		sbuf_adds(out, "-");
		return;
	}
	switch (kind) {
	case REPORT_K_USD:
		fmt_usd(c->v, buf, sizeof buf);
		break;
	case REPORT_K_PRICE:
		fmt_price(c->v, buf, sizeof buf);
		break;
	case REPORT_K_GPU_H:
		fmt_thousands(c->v, 1, buf, sizeof buf);
		break;
	case REPORT_K_SHARE:
		fmt_share(c->v, buf, sizeof buf);
		break;
	case REPORT_K_FRAC:
		fmt_fixed(c->v, 4, buf, sizeof buf);
		break;
	case REPORT_K_SECONDS:
		fmt_duration(c->v, FMT_DUR_ROUNDED, buf, sizeof buf);
		break;
	default:
		fmt_thousands(c->v, 0, buf, sizeof buf);
	}
	sbuf_adds(out, buf);
}

void report_cell_raw(const struct report_table *t, size_t row, size_t col, struct sbuf *out)
{
	const struct report_cell *c = &t->cells[row * t->ncol + col];
	char buf[32];
	if (t->cols[col].kind == REPORT_K_TEXT) {
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
