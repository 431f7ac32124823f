/*
 * report.h — result tables (one row per run or per policy), written as aligned text, JSON,
 * CSV or Markdown.
 *
 * A table has label columns (text: policy, seed, mode) and number columns (mean
 * fragmentation, GPU-hours, dollars), each number column with a unit, a fixed number of
 * decimals and the direction in which it is better. Rows are plain rows or aggregate rows
 * (a mean over seeds), which the text format sets apart. Notes are lines printed under the
 * table (which figures rest on enrichment). The table copies everything it is given.
 *
 * Each output format is one file report-NAME.c exporting one const struct report_ops, listed
 * in the NULL-terminated report_formats. Output depends only on the table: same table, same
 * bytes.
 */
#ifndef VOIDFIT_REPORT_H
#define VOIDFIT_REPORT_H

#include <stddef.h>

#include "sbuf.h"

/* Which way a number column is better; the best value is marked when marking is on. */
enum report_better { REPORT_NEUTRAL, REPORT_LOWER, REPORT_HIGHER };

enum {
	REPORT_C_TEXT_HIDE = 1, /* left out of the text and Markdown tables (JSON, CSV only) */
	REPORT_C_INT = 2,       /* a label that is an integer: a JSON number when it parses */
};

/* A column. Labels use key, head and flags; number columns all fields. */
struct report_col {
	const char *key;  /* JSON and CSV name: "stalled_gpu_hours" */
	const char *head; /* text header: "stalled" */
	const char *unit; /* text header's second line: "GPU-h"; NULL or "" for none */
	int decimals;     /* fixed decimals in text, CSV and Markdown (JSON: exact) */
	int better;       /* enum report_better */
	unsigned flags;   /* REPORT_C_* */
};

struct report;

/* A new empty table with nlabel label columns and nnum number columns (copied). */
struct report *report_new(const struct report_col *labels, size_t nlabel,
			  const struct report_col *nums, size_t nnum);
/* Free r; r may be NULL. */
void report_free(struct report *r);

/* Append a row: nlabel label strings (NULL prints as "-") and nnum values (NaN means "no
 * value": "-" in text, null in JSON, empty in CSV). aggregate marks a row summarising
 * others (a mean over seeds): never marked best, set apart in text. */
void report_add_row(struct report *r, const char *const *labels, const double *vals, int aggregate);
/* Mark the best value of each non-neutral number column with '*' (off by default). Among
 * plain rows, after rounding to the column's decimals; nothing is marked in a column where
 * all rows are equal or with fewer than two rows. */
void report_set_mark_best(struct report *r, int on);
/* Append a note printed under the table (text, Markdown), as "notes" in JSON. */
void report_add_note(struct report *r, const char *note);

/* Reading a table back (the writers and tests use these). */
size_t report_nrows(const struct report *r);
size_t report_nlabels(const struct report *r);
size_t report_nnums(const struct report *r);
const struct report_col *report_label_col(const struct report *r, size_t i);
const struct report_col *report_num_col(const struct report *r, size_t i);
const char *report_label(const struct report *r, size_t row, size_t i); /* may be NULL */
double report_value(const struct report *r, size_t row, size_t i);
int report_is_aggregate(const struct report *r, size_t row);
/* Is row's value in number column i marked best? (0 when marking is off.) */
int report_is_best(const struct report *r, size_t row, size_t i);
size_t report_nnotes(const struct report *r);
const char *report_note(const struct report *r, size_t i);

/* Format v with the column's decimals into buf ("-" for NaN); returns buf. Negative zero
 * prints as 0, so output does not depend on the sign of a rounded-away value. */
char *report_fmt(const struct report_col *c, double v, char *buf, size_t len);

/* An output format. */
struct report_ops {
	const char *name; /* "text", "json", "csv", "md" */
	/* Append r to out. */
	void (*write)(const struct report *r, struct sbuf *out);
};

extern const struct report_ops report_text, report_json, report_csv, report_md;
extern const struct report_ops *const report_formats[]; /* NULL-terminated */

/* The format named name, or NULL. */
const struct report_ops *report_format_find(const char *name);

#endif
