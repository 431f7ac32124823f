/*
 * report-md.c — the report as Markdown (report.h): headings, paragraphs, pipe tables with
 * the numbers to the right, and each chart as an image link to an SVG file written beside
 * the document (BASE-1.svg, BASE-2.svg, ...).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "report.h"

static void text(struct sbuf *out, const char *pre, const char *s, const char *post)
{
	sbuf_adds(out, pre);
	esc_md(out, s);
	sbuf_adds(out, post);
}

static void table(struct sbuf *out, const struct table *t)
{
	struct sbuf b = SBUF_INIT;
	sbuf_init(&b);
	sbuf_adds(out, "|");
	for (size_t c = 0; c < table_ncols(t); c++)
		if (table_shown(t, c)) {
			sbuf_addc(out, ' ');
			esc_md(out, table_col(t, c)->head);
			sbuf_adds(out, " |");
		}
	sbuf_adds(out, "\n|");
	for (size_t c = 0; c < table_ncols(t); c++)
		if (table_shown(t, c))
			sbuf_adds(out,
				  (table_col(t, c)->flags & TABLE_C_TEXT) ? " :--- |" : " ---: |");
	sbuf_addc(out, '\n');
	for (size_t r = 0; r < table_nrows(t); r++) {
		sbuf_adds(out, "|");
		for (size_t c = 0; c < table_ncols(t); c++)
			if (table_shown(t, c)) {
				sbuf_reset(&b);
				table_cell_human(t, r, c, &b);
				sbuf_addc(out, ' ');
				esc_md(out, b.s);
				sbuf_adds(out, " |");
			}
		sbuf_addc(out, '\n');
	}
	sbuf_release(&b);
}

/* What a block of one line of text is written between. */
static const struct {
	const char *open, *close;
} wrap[] = {
	[REPORT_B_TITLE] = {"# ", "\n\n"},
	[REPORT_B_HEADING] = {"## ", "\n\n"},
	[REPORT_B_WARN] = {"> **Warning:** ", "\n\n"},
	[REPORT_B_VERDICT] = {"**", "**\n\n"},
};

static void write_md(const struct report *r, const char *base, struct report_output *o)
{
	struct sbuf *out = &o->doc;
	int charts_left = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct report_block *b = &r->blocks[i];
		if (b->flags & REPORT_BF_RAW)
			continue;
		switch (b->type) {
		case REPORT_B_TITLE:
		case REPORT_B_HEADING:
		case REPORT_B_WARN:
		case REPORT_B_VERDICT:
			text(out, wrap[b->type].open, b->text, wrap[b->type].close);
			break;
		case REPORT_B_ITEM:
			text(out, "- ", b->text, "\n");
			if (i + 1 >= r->n || r->blocks[i + 1].type != REPORT_B_ITEM)
				sbuf_addc(out, '\n');
			break;
		case REPORT_B_TABLE:
			if (b->text)
				text(out, "*", b->text, "*\n\n");
			table(out, b->table);
			sbuf_addc(out, '\n');
			break;
		case REPORT_B_CHART:
			if (!base) {
				charts_left++;
				break;
			}
			o->files = xrealloc(o->files, (o->nfiles + 1) * sizeof *o->files);
			{
				struct report_file *f = &o->files[o->nfiles++];
				struct sbuf n = SBUF_INIT;
				sbuf_init(&n);
				sbuf_printf(&n, "%s-%zu.svg", base, o->nfiles);
				f->name = xstrdup(n.s);
				sbuf_init(&f->body);
				sbuf_add(&f->body, b->svg.s, b->svg.len);
				sbuf_adds(out, "![");
				esc_md(out, b->text);
				sbuf_printf(out, "](%s)\n\n", n.s);
				sbuf_release(&n);
			}
			break;
		default:
			text(out, "", b->text, "\n\n");
		}
	}
	if (charts_left)
		sbuf_printf(out,
			    "*%d chart%s left out: written to standard output, the document has no "
			    "place for its SVG files (give -o FILE.md).*\n",
			    charts_left, charts_left == 1 ? "" : "s");
}

const struct report_ops report_md = {"md", ".md", write_md};
