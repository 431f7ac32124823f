/*
 * report-text.c — the report as plain text (report.h): headings underlined, paragraphs
 * wrapped, tables aligned (numbers to the right), the numbers for a person. No charts: a
 * chart's figures are in the tables beside it.
 */
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "report.h"

#define WIDTH 88 /* wrap paragraphs here */

/* Append s (escaped) wrapped at WIDTH, the first line after first, the others after
 * indent. */
static void wrap(struct sbuf *out, const char *text, const char *first, const char *indent)
{
	struct sbuf e = SBUF_INIT;
	const char *s = esc_text_s(&e, text);
	size_t col = strlen(first);
	int fresh = 1; /* nothing on the line yet but its prefix */
	sbuf_adds(out, first);
	for (;;) {
		while (*s == ' ')
			s++;
		if (!*s)
			break;
		size_t w = strcspn(s, " ");
		if (!fresh && col + 1 + w > WIDTH) {
			sbuf_printf(out, "\n%s", indent);
			col = strlen(indent);
			fresh = 1;
		}
		if (!fresh) {
			sbuf_addc(out, ' ');
			col++;
		}
		sbuf_add(out, s, w);
		col += w;
		s += w;
		fresh = 0;
	}
	sbuf_addc(out, '\n');
	sbuf_release(&e);
}

static void table(struct sbuf *out, const struct table *t)
{
	size_t nc = table_ncols(t), nrow = table_nrows(t), *w = xcalloc(nc, sizeof *w);
	struct sbuf *cells = xcalloc(nrow * nc + 1, sizeof *cells);
	struct sbuf raw = SBUF_INIT;
	sbuf_init(&raw);
	for (size_t c = 0; c < nc; c++)
		w[c] = strlen(table_col(t, c)->head);
	for (size_t r = 0; r < nrow; r++)
		for (size_t c = 0; c < nc; c++) {
			struct sbuf *b = &cells[r * nc + c];
			sbuf_init(b);
			if (!table_shown(t, c))
				continue;
			sbuf_reset(&raw);
			table_cell_human(t, r, c, &raw);
			esc_text(b, raw.s);
			w[c] = b->len > w[c] ? b->len : w[c];
		}
	sbuf_release(&raw);
	const char *sep = "";
	for (size_t c = 0; c < nc; c++) {
		if (!table_shown(t, c))
			continue;
		int left = (table_col(t, c)->flags & TABLE_C_TEXT) != 0;
		sbuf_printf(out, "%s%*s", sep, left ? -(int)w[c] : (int)w[c],
			    table_col(t, c)->head);
		sep = "  ";
	}
	sbuf_addc(out, '\n');
	for (size_t r = 0; r < nrow; r++) {
		sep = "";
		for (size_t c = 0; c < nc; c++) {
			if (!table_shown(t, c))
				continue;
			int left = (table_col(t, c)->flags & TABLE_C_TEXT) != 0;
			sbuf_printf(out, "%s%*s", sep, left ? -(int)w[c] : (int)w[c],
				    cells[r * nc + c].s);
			sep = "  ";
		}
		/* no blanks at the end of a line */
		while (out->len && out->s[out->len - 1] == ' ')
			out->s[--out->len] = '\0';
		sbuf_addc(out, '\n');
	}
	for (size_t i = 0; i < nrow * nc; i++)
		sbuf_release(&cells[i]);
	free(cells);
	free(w);
}

static void underline(struct sbuf *out, const char *text, char c)
{
	struct sbuf e = SBUF_INIT;
	sbuf_printf(out, "%s\n", esc_text_s(&e, text));
	for (size_t i = e.len; i > 0; i--)
		sbuf_addc(out, c);
	sbuf_addc(out, '\n');
	sbuf_release(&e);
}

static void write_text(const struct report *r, const char *base, struct report_output *o)
{
	struct sbuf *out = &o->doc;
	int prev = -1;
	(void)base;
	for (size_t i = 0; i < r->n; i++) {
		const struct report_block *b = &r->blocks[i];
		if (b->flags & REPORT_BF_RAW || b->type == REPORT_B_CHART)
			continue;
		if (prev >= 0 && !(prev == REPORT_B_ITEM && b->type == REPORT_B_ITEM) &&
		    !(prev == REPORT_B_WARN && b->type == REPORT_B_WARN))
			sbuf_addc(out, '\n');
		switch (b->type) {
		case REPORT_B_TITLE:
			underline(out, b->text, '=');
			break;
		case REPORT_B_HEADING:
			underline(out, b->text, '-');
			break;
		case REPORT_B_ITEM:
			wrap(out, b->text, "  - ", "    ");
			break;
		case REPORT_B_WARN:
			wrap(out, b->text, "WARNING: ", "         ");
			break;
		case REPORT_B_TABLE:
			if (b->text) {
				esc_text(out, b->text);
				sbuf_adds(out, ":\n");
			}
			table(out, b->table);
			break;
		default:
			wrap(out, b->text, "", "");
		}
		prev = b->type;
	}
}

const struct report_ops report_text = {"text", ".txt", write_text};
