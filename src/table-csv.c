/*
 * table-csv.c — a table as CSV (RFC 4180): a header of column keys, then one line per
 * row with the numbers at their column's decimals (empty for none) and a last column
 * "aggregate" (0 or 1). Notes are not written: CSV is for data.
 */
#include <string.h>

#include "esc.h"
#include "table.h"

static void write_csv(const struct table *r, struct sbuf *out)
{
	size_t nl = table_nlabels(r), nn = table_nnums(r);
	char buf[64];
	for (size_t i = 0; i < nl; i++) {
		esc_csv(out, table_label_col(r, i)->key);
		sbuf_addc(out, ',');
	}
	for (size_t i = 0; i < nn; i++) {
		esc_csv(out, table_num_col(r, i)->key);
		sbuf_addc(out, ',');
	}
	sbuf_adds(out, "aggregate\r\n");
	for (size_t row = 0; row < table_nrows(r); row++) {
		for (size_t i = 0; i < nl; i++) {
			esc_csv(out, table_label(r, row, i));
			sbuf_addc(out, ',');
		}
		for (size_t i = 0; i < nn; i++) {
			table_fmt(table_num_col(r, i), table_value(r, row, i), buf, sizeof buf);
			if (strcmp(buf, "-"))
				sbuf_adds(out, buf);
			sbuf_addc(out, ',');
		}
		sbuf_adds(out, table_is_aggregate(r, row) ? "1\r\n" : "0\r\n");
	}
}

const struct table_ops table_csv = {
	.name = "csv",
	.write = write_csv,
};
