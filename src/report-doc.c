/*
 * report-doc.c — a report's document: its blocks (a table block holds a table.h table) and
 * the table of output formats (report.h, report-int.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

struct table *report_add_table(struct report *r, const char *id, const char *caption,
			       const struct table_col *cols, size_t ncol, unsigned flags)
{
	struct report_block *b = report_add(r, REPORT_B_TABLE, caption);
	b->flags = flags;
	b->table = table_new_cols(id, cols, ncol);
	return b->table;
}

void report_free(struct report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		struct report_block *b = &r->blocks[i];
		free(b->text);
		sbuf_release(&b->svg);
		table_free(b->table);
	}
	FREE_ALL(r->blocks, r);
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
