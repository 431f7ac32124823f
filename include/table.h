/*
 * table.h — result tables (one row per run or per policy), written as aligned text, JSON,
 * CSV or Markdown.
 *
 * A table has label columns (text: policy, seed, mode) and number columns (mean
 * fragmentation, GPU-hours, dollars), each number column with a unit, a fixed number of
 * decimals and the direction in which it is better. Rows are plain rows or aggregate rows
 * (a mean over seeds), which the text format sets apart. Notes are lines printed under the
 * table (which figures rest on enrichment). The table copies everything it is given.
 *
 * Each output format is one file table-NAME.c exporting one const struct table_ops, listed
 * in the NULL-terminated table_formats. Output depends only on the table: same table, same
 * bytes.
 */
#ifndef VOIDFIT_TABLE_H
#define VOIDFIT_TABLE_H

#include <stddef.h>

#include "sbuf.h"

/* Which way a number column is better; the best value is marked when marking is on. */
enum table_better { TABLE_NEUTRAL, TABLE_LOWER, TABLE_HIGHER };

enum {
	TABLE_C_TEXT_HIDE = 1, /* left out of the text and Markdown tables (JSON, CSV only) */
	TABLE_C_INT = 2,       /* a label that is an integer: a JSON number when it parses */
	/* number columns, in text and Markdown (JSON and CSV stay raw): */
	TABLE_C_SECONDS = 4, /* a time in seconds, in human units: 42s, 15m 20s, 3h 5m, 3d 4h */
	TABLE_C_DOLLARS = 8, /* dollars with thousands separators: 1,234,567 */
};

/* A column. Labels use key, head and flags; number columns all fields. */
struct table_col {
	const char *key;  /* JSON and CSV name: "stalled_gpu_hours" */
	const char *head; /* text header: "stalled" */
	const char *unit; /* text header's second line: "GPU-h"; NULL or "" for none */
	int decimals;     /* fixed decimals in text, CSV and Markdown (JSON: exact) */
	int better;       /* enum table_better */
	unsigned flags;   /* TABLE_C_* */
};

struct table;

/* A new empty table with nlabel label columns and nnum number columns (copied). */
struct table *table_new(const struct table_col *labels, size_t nlabel, const struct table_col *nums,
			size_t nnum);
/* Free r; r may be NULL. */
void table_free(struct table *r);

/* Append a row: nlabel label strings (NULL prints as "-") and nnum values (NaN means "no
 * value": "-" in text, null in JSON, empty in CSV). aggregate marks a row summarising
 * others (a mean over seeds): never marked best, set apart in text. */
void table_add_row(struct table *r, const char *const *labels, const double *vals, int aggregate);
/* Mark the best value of each non-neutral number column with '*' (off by default). Among
 * plain rows, after rounding to the column's decimals; nothing is marked in a column where
 * all rows are equal or with fewer than two rows. */
void table_set_mark_best(struct table *r, int on);
/* Never mark row's values best, nor count them in finding the best (a row whose figures
 * say nothing about what the columns compare, such as an idle cluster's). */
void table_set_unranked(struct table *r, size_t row);
/* Append a note printed under the table (text, Markdown), as "notes" in JSON. */
void table_add_note(struct table *r, const char *note);

/* Reading a table back (the writers and tests use these). */
size_t table_nrows(const struct table *r);
size_t table_nlabels(const struct table *r);
size_t table_nnums(const struct table *r);
const struct table_col *table_label_col(const struct table *r, size_t i);
const struct table_col *table_num_col(const struct table *r, size_t i);
const char *table_label(const struct table *r, size_t row, size_t i); /* may be NULL */
double table_value(const struct table *r, size_t row, size_t i);
int table_is_aggregate(const struct table *r, size_t row);
/* Is row's value in number column i marked best? (0 when marking is off.) */
int table_is_best(const struct table *r, size_t row, size_t i);
size_t table_nnotes(const struct table *r);
const char *table_note(const struct table *r, size_t i);

/* Format v with the column's decimals into buf (fmt_fixed: "-" for NaN, no "-0"); returns
 * buf. */
char *table_fmt(const struct table_col *c, double v, char *buf, size_t len);

/* v as a person reads it (text and Markdown): by c's TABLE_C_SECONDS (fmt_duration's
 * FMT_DUR_UNITS) or TABLE_C_DOLLARS, else as table_fmt, with thousands separators from 1,000
 * on. Returns buf. */
char *table_fmt_human(const struct table_col *c, double v, char *buf, size_t len);

/* An output format. */
struct table_ops {
	const char *name; /* "text", "json", "csv", "md" */
	/* Append r to out. */
	void (*write)(const struct table *r, struct sbuf *out);
};

extern const struct table_ops table_text, table_json, table_csv, table_md;
extern const struct table_ops *const table_formats[]; /* NULL-terminated */

/* The format named name, or NULL. */
const struct table_ops *table_format_find(const char *name);

#endif
