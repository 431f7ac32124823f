/*
 * report-csv.c — the report as CSV (report.h): every cell of every table, one a line, as
 * table,row,column,value (RFC 4180 quoting), numbers unrounded, so that any tool pivots it
 * back into the tables: table names the table (its JSON id), row counts from 1 in each.
 * The warnings come first, as the rows of a table "warnings" (column "text"), so that a
 * file read only as numbers still says what misleads.
 */
#include <stdio.h>
#include <string.h>

#include "esc.h"
#include "report.h"

static void write_csv(const struct report *r, const char *base, struct report_output *o)
{
	struct sbuf *out = &o->doc, v = SBUF_INIT;
	(void)base;
	sbuf_init(&v);
	sbuf_adds(out, "table,row,column,value\n");
	for (size_t i = 0, k = 0; i < r->n; i++)
		if (r->blocks[i].type == REPORT_B_WARN) {
			sbuf_printf(out, "warnings,%zu,text,", ++k);
			esc_csv(out, r->blocks[i].text);
			sbuf_addc(out, '\n');
		}
	for (size_t i = 0; i < r->n; i++) {
		const struct table *t = r->blocks[i].table;
		if (r->blocks[i].type != REPORT_B_TABLE)
			continue;
		for (size_t row = 0; row < table_nrows(t); row++)
			for (size_t c = 0; c < table_ncols(t); c++) {
				sbuf_reset(&v);
				table_cell_raw(t, row, c, &v);
				esc_csv(out, table_id(t));
				sbuf_printf(out, ",%zu,", row + 1);
				esc_csv(out, table_col(t, c)->key);
				sbuf_addc(out, ',');
				esc_csv(out, v.s);
				sbuf_addc(out, '\n');
			}
	}
	sbuf_release(&v);
}

const struct report_ops report_csv = {"csv", ".csv", write_csv};
