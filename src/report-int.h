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
/* Append a table block with caption and ncol columns (copied); returns the table. */
struct report_table *report_add_table(struct report *r, const char *id, const char *caption,
				      const struct report_col *cols, size_t ncol, unsigned flags);
/* Append an empty row to t; returns its cells (values NaN, texts NULL). */
struct report_cell *report_row(struct report_table *t);
/* Set a text cell (copied). */
void report_cell_text(struct report_cell *c, const char *s);
/* Hide from a person's formats the number columns of t whose every value is 0 or none. */
void report_hide_zero(struct report_table *t);

#endif
