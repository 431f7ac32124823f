/*
 * table-text.c — a table as an aligned text table: labels left-aligned, numbers
 * right-aligned with fixed decimals, a header line of names and one of units, the best value
 * of a column followed by '*', aggregate rows under a rule, notes under the table.
 */
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "table.h"
#include "util.h"

#define GAP 2 /* spaces between columns */

/* A visible column: a label (num == 0) or a number column, and its width. */
struct tcol {
	int num;      /* 1 for a number column */
	size_t i;     /* index among labels or numbers */
	size_t width; /* printed width, mark slot included */
	int markslot; /* a number column that may carry a '*' */
};

static void pad(struct sbuf *b, size_t n)
{
	while (n--)
		sbuf_addc(b, ' ');
}

/* Drop the spaces at the end of the current line. */
static void end_line(struct sbuf *b)
{
	while (b->len && b->s[b->len - 1] == ' ')
		b->s[--b->len] = '\0';
	sbuf_addc(b, '\n');
}

static size_t max_sz(size_t a, size_t b)
{
	return a > b ? a : b;
}

/* A label as printed: escaped into e, "-" for none. */
static const char *label_text(const struct table *r, size_t row, size_t i, struct sbuf *e)
{
	const char *s = table_label(r, row, i);
	return esc_text_s(e, s ? s : "-");
}

static void write_text(const struct table *r, struct sbuf *out)
{
	size_t nl = table_nlabels(r), nn = table_nnums(r), nrows = table_nrows(r);
	struct tcol *cols = xcalloc(nl + nn + 1, sizeof *cols);
	size_t ncols = 0;
	int any_best = 0, any_plain = 0;
	char buf[64];
	struct sbuf e = SBUF_INIT;

	for (size_t row = 0; row < nrows; row++) {
		if (!table_is_aggregate(r, row))
			any_plain = 1;
	}
	for (size_t i = 0; i < nl; i++) {
		const struct table_col *c = table_label_col(r, i);
		if (c->flags & TABLE_C_TEXT_HIDE)
			continue;
		size_t w = max_sz(strlen(c->head), strlen(c->unit));
		for (size_t row = 0; row < nrows; row++)
			w = max_sz(w, strlen(label_text(r, row, i, &e)));
		cols[ncols++] = (struct tcol){0, i, w, 0};
	}
	for (size_t i = 0; i < nn; i++) {
		const struct table_col *c = table_num_col(r, i);
		if (c->flags & TABLE_C_TEXT_HIDE)
			continue;
		int slot = 0;
		size_t w = 0;
		for (size_t row = 0; row < nrows; row++) {
			if (table_is_best(r, row, i))
				slot = any_best = 1;
			w = max_sz(w, strlen(table_fmt_human(c, table_value(r, row, i), buf,
							     sizeof buf)));
		}
		w = max_sz(w + (size_t)slot, max_sz(strlen(c->head), strlen(c->unit)));
		cols[ncols++] = (struct tcol){1, i, w, slot};
	}

	size_t total = 0;
	for (size_t k = 0; k < ncols; k++)
		total += cols[k].width + (k ? GAP : 0);

	for (int line = 0; line < 2; line++) {
		int any_unit = 0;
		for (size_t k = 0; k < ncols; k++) {
			const struct table_col *c = cols[k].num ? table_num_col(r, cols[k].i)
								: table_label_col(r, cols[k].i);
			const char *s = line ? c->unit : c->head;
			any_unit |= *c->unit != '\0';
			if (k)
				pad(out, GAP);
			if (cols[k].num)
				pad(out, cols[k].width - strlen(s));
			sbuf_adds(out, s);
			if (!cols[k].num)
				pad(out, cols[k].width - strlen(s));
		}
		if (line == 0 || any_unit)
			end_line(out);
		else /* no unit anywhere: drop the empty line */
			while (out->len && out->s[out->len - 1] != '\n')
				out->s[--out->len] = '\0';
	}

	int ruled = 0;
	for (size_t row = 0; row < nrows; row++) {
		if (table_is_aggregate(r, row) && any_plain && !ruled) {
			for (size_t k = 0; k < total; k++)
				sbuf_addc(out, '-');
			end_line(out);
			ruled = 1;
		}
		for (size_t k = 0; k < ncols; k++) {
			if (k)
				pad(out, GAP);
			if (!cols[k].num) {
				const char *s = label_text(r, row, cols[k].i, &e);
				sbuf_adds(out, s);
				pad(out, cols[k].width - strlen(s));
				continue;
			}
			const struct table_col *c = table_num_col(r, cols[k].i);
			const char *s =
				table_fmt_human(c, table_value(r, row, cols[k].i), buf, sizeof buf);
			int best = table_is_best(r, row, cols[k].i);
			pad(out, cols[k].width - strlen(s) - (size_t)cols[k].markslot);
			sbuf_adds(out, s);
			if (cols[k].markslot)
				sbuf_addc(out, best ? '*' : ' ');
		}
		end_line(out);
	}
	if (any_best)
		sbuf_adds(out, "* best in its column\n");
	for (size_t i = 0; i < table_nnotes(r); i++) {
		esc_text(out, table_note(r, i));
		sbuf_addc(out, '\n');
	}
	sbuf_release(&e);
	free(cols);
}

const struct table_ops table_text = {
	.name = "text",
	.write = write_text,
};
