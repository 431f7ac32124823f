/*
 * report-int.h — building a report's document (report-doc.c), for report.c and the tests.
 */
#ifndef VOIDFIT_REPORT_INT_H
#define VOIDFIT_REPORT_INT_H

#include "report.h"

/* Append a block of type with text (copied; NULL for none); returns it. */
struct report_block *report_add(struct report *r, int type, const char *text);
/* Append a block with printf-style text. */
struct report_block *report_addf(struct report *r, int type, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Append a table block with caption and ncol columns (copied; table_new_cols named id);
 * returns the table, to be filled with table_row. */
struct table *report_add_table(struct report *r, const char *id, const char *caption,
			       const struct table_col *cols, size_t ncol, unsigned flags);

#endif
