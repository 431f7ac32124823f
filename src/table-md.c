/*
 * table-md.c — a table as a Markdown (GitHub) table: header "name (unit)", numbers
 * right-aligned, the best value in bold, aggregate rows' labels in italics, notes as a
 * paragraph after the table.
 */
#include <string.h>

#include "esc.h"
#include "table.h"

static void write_md(const struct table *r, struct sbuf *out)
{
	size_t nl = table_nlabels(r), nn = table_nnums(r);
	char buf[64];

	/* the header: the label columns, then the number columns with their units */
	sbuf_addc(out, '|');
	for (size_t i = 0; i < nl + nn; i++) {
		const struct table_col *c = table_col(r, i);
		if (!table_shown(r, i))
			continue;
		sbuf_addc(out, ' ');
		esc_md(out, c->head);
		if (i >= nl && *c->unit) {
			sbuf_adds(out, " (");
			esc_md(out, c->unit);
			sbuf_addc(out, ')');
		}
		sbuf_adds(out, " |");
	}
	sbuf_adds(out, "\n|");
	for (size_t i = 0; i < nl + nn; i++)
		if (table_shown(r, i))
			sbuf_adds(out, i < nl ? " --- |" : " ---: |");
	sbuf_addc(out, '\n');

	for (size_t row = 0; row < table_nrows(r); row++) {
		int agg = table_is_aggregate(r, row);
		sbuf_addc(out, '|');
		for (size_t i = 0; i < nl; i++) {
			if (table_label_col(r, i)->flags & TABLE_C_TEXT_HIDE)
				continue;
			const char *s = table_label(r, row, i);
			sbuf_adds(out, agg ? " _" : " ");
			esc_md(out, s ? s : "-");
			sbuf_adds(out, agg ? "_ |" : " |");
		}
		for (size_t i = 0; i < nn; i++) {
			const struct table_col *c = table_num_col(r, i);
			if (c->flags & TABLE_C_TEXT_HIDE)
				continue;
			int best = table_is_best(r, row, i);
			table_fmt_human(c, table_value(r, row, i), buf, sizeof buf);
			sbuf_adds(out, best ? " **" : " ");
			sbuf_adds(out, buf);
			sbuf_adds(out, best ? "** |" : " |");
		}
		sbuf_addc(out, '\n');
	}
	if (table_nnotes(r))
		sbuf_addc(out, '\n');
	for (size_t i = 0; i < table_nnotes(r); i++) {
		esc_md(out, table_note(r, i));
		sbuf_adds(out, i + 1 < table_nnotes(r) ? "  \n" : "\n");
	}
}

const struct table_ops table_md = {
	.name = "md",
	.write = write_md,
};
