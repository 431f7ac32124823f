/*
 * report-md.c — a report as a Markdown (GitHub) table: header "name (unit)", numbers
 * right-aligned, the best value in bold, aggregate rows' labels in italics, notes as a
 * paragraph after the table.
 */
#include <string.h>

#include "report.h"

/* Escape the characters that would break a table cell. */
static void cell(struct sbuf *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '|' || *s == '*' || *s == '_' || *s == '\\')
			sbuf_addc(out, '\\');
		sbuf_addc(out, *s == '\n' ? ' ' : *s);
	}
}

static void write_md(const struct report *r, struct sbuf *out)
{
	size_t nl = report_nlabels(r), nn = report_nnums(r);
	char buf[64];

	sbuf_addc(out, '|');
	for (size_t i = 0; i < nl; i++) {
		const struct report_col *c = report_label_col(r, i);
		if (c->flags & REPORT_C_TEXT_HIDE)
			continue;
		sbuf_addc(out, ' ');
		cell(out, c->head);
		sbuf_adds(out, " |");
	}
	for (size_t i = 0; i < nn; i++) {
		const struct report_col *c = report_num_col(r, i);
		if (c->flags & REPORT_C_TEXT_HIDE)
			continue;
		sbuf_addc(out, ' ');
		cell(out, c->head);
		if (*c->unit) {
			sbuf_adds(out, " (");
			cell(out, c->unit);
			sbuf_addc(out, ')');
		}
		sbuf_adds(out, " |");
	}
	sbuf_adds(out, "\n|");
	for (size_t i = 0; i < nl; i++)
		if (!(report_label_col(r, i)->flags & REPORT_C_TEXT_HIDE))
			sbuf_adds(out, " --- |");
	for (size_t i = 0; i < nn; i++)
		if (!(report_num_col(r, i)->flags & REPORT_C_TEXT_HIDE))
			sbuf_adds(out, " ---: |");
	sbuf_addc(out, '\n');

	for (size_t row = 0; row < report_nrows(r); row++) {
		int agg = report_is_aggregate(r, row);
		sbuf_addc(out, '|');
		for (size_t i = 0; i < nl; i++) {
			if (report_label_col(r, i)->flags & REPORT_C_TEXT_HIDE)
				continue;
			const char *s = report_label(r, row, i);
			sbuf_adds(out, agg ? " _" : " ");
			cell(out, s ? s : "-");
			sbuf_adds(out, agg ? "_ |" : " |");
		}
		for (size_t i = 0; i < nn; i++) {
			const struct report_col *c = report_num_col(r, i);
			if (c->flags & REPORT_C_TEXT_HIDE)
				continue;
			int best = report_is_best(r, row, i);
			report_fmt(c, report_value(r, row, i), buf, sizeof buf);
			sbuf_adds(out, best ? " **" : " ");
			sbuf_adds(out, buf);
			sbuf_adds(out, best ? "** |" : " |");
		}
		sbuf_addc(out, '\n');
	}
	if (report_nnotes(r))
		sbuf_addc(out, '\n');
	for (size_t i = 0; i < report_nnotes(r); i++) {
		cell(out, report_note(r, i));
		sbuf_adds(out, i + 1 < report_nnotes(r) ? "  \n" : "\n");
	}
}

const struct report_ops report_md = {
	.name = "md",
	.write = write_md,
};
