/*
 * table.h — the one table of voidfit's output: the result tables of replay, compare, size and
 * sweep (one row per run or per policy), and every table of the report's document
 * (report.h: a REPORT_B_TABLE block holds a struct table).
 *
 * A table has columns in order, each text (a policy, a seed, a class) or a number (mean
 * fragmentation, GPU-hours, dollars); a number column has a unit, a fixed number of
 * decimals, the direction in which it is better and flags saying how a person reads it
 * (fmt.h: a duration, dollars, a share). Cells are a number (NaN: none) or a text (NULL:
 * none). Rows are plain rows or aggregate rows (a mean over seeds), which the text format
 * sets apart. Notes are lines printed under the table (which figures rest on enrichment). A
 * column may be hidden from a person's formats (text, Markdown, HTML) and kept in JSON and
 * CSV. The table copies everything it is given.
 *
 * Two kinds of writer read it: a result table is written on its own by the formats below,
 * one file table-NAME.c each exporting one const struct table_ops, listed in the
 * NULL-terminated table_formats (its text columns come first: table_new); a report's tables
 * are written by the report's formats (report-NAME.c) in the document's layout. Both take a
 * cell's text for a person from table_fmt_human. Output depends only on the table: same
 * table, same bytes.
 */
#ifndef VOIDFIT_TABLE_H
#define VOIDFIT_TABLE_H

#include <stddef.h>

#include "sbuf.h"

/* Which way a number column is better; the best value is marked when marking is on. */
enum table_better { TABLE_NEUTRAL, TABLE_LOWER, TABLE_HIGHER };

enum {
	TABLE_C_TEXT_HIDE = 1, /* left out of a person's formats (text, Markdown, HTML) */
	TABLE_C_INT = 2,       /* a label that is an integer: a JSON number when it parses */
	/* number columns, for a person (JSON and CSV stay raw): */
	TABLE_C_SECONDS = 4,   /* a duration: fmt_duration's FMT_DUR_UNITS ("15m 20s") */
	TABLE_C_DOLLARS = 8,   /* dollars with thousands separators: 1,234,567 */
	TABLE_C_TEXT = 16,     /* a text column (table_new makes its labels so) */
	TABLE_C_USD = 32,      /* whole dollars with their sign: "$1,234,567" (fmt_usd) */
	TABLE_C_PRICE = 64,    /* dollars and cents: "$3.06" (fmt_price) */
	TABLE_C_SHARE = 128,   /* a share as a percentage: "12.3 %" (fmt_share) */
	TABLE_C_PLAIN = 256,   /* no thousands separators: "0.1305" */
	TABLE_C_ROUNDED = 512, /* with TABLE_C_SECONDS: FMT_DUR_ROUNDED ("3d 4h", "0") */
};

/* A column. Text columns use key, head and flags; number columns all fields. */
struct table_col {
	const char *key;  /* JSON and CSV name: "stalled_gpu_hours" */
	const char *head; /* text header: "stalled" */
	const char *unit; /* text header's second line: "GPU-h"; NULL or "" for none */
	int decimals;     /* fixed decimals in text, CSV and Markdown (JSON: exact) */
	int better;       /* enum table_better */
	unsigned flags;   /* TABLE_C_* */
};

/* A cell: a number column's value or a text column's text. */
struct table_cell {
	double v; /* the value (NaN: none) */
	char *s;  /* a text column's text (owned; NULL: none) */
};

struct table;

/* A new empty result table with nlabel label (text) columns and then nnum number columns
 * (copied). */
struct table *table_new(const struct table_col *labels, size_t nlabel, const struct table_col *nums,
			size_t nnum);
/* A new empty table named id (the report's JSON key and CSV table name) with ncol columns in
 * their order (copied), text where TABLE_C_TEXT. Its number accessors below (table_value,
 * table_num_col) count every column. */
struct table *table_new_cols(const char *id, const struct table_col *cols, size_t ncol);
/* Free r; r may be NULL. */
void table_free(struct table *r);

/* Append an empty row (values NaN, texts NULL) and return its cells, to be filled in place
 * (table_cell_text for a text); for tables that mark no best value. */
struct table_cell *table_row(struct table *r);
/* Set a cell's text (copied; NULL for none). */
void table_cell_text(struct table_cell *c, const char *s);
/* Show column col in a person's formats (on) or hide it (TABLE_C_TEXT_HIDE). */
void table_show(struct table *r, size_t col, int on);
/* Hide from a person's formats the number columns whose every value is 0 or none. */
void table_hide_zero(struct table *r);

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
const char *table_id(const struct table *r); /* "" for a result table */
size_t table_ncols(const struct table *r);
const struct table_col *table_col(const struct table *r, size_t col);
const struct table_cell *table_cell(const struct table *r, size_t row, size_t col);
/* Is col shown in a person's formats? */
int table_shown(const struct table *r, size_t col);
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

/* v as a person reads it (text, Markdown, HTML): by c's flags through fmt.h, else as
 * table_fmt with thousands separators from 1,000 on; "-" for NaN. Returns buf. */
char *table_fmt_human(const struct table_col *c, double v, char *buf, size_t len);
/* Cell (row, col) for a person into out: its text ("-" for none) or table_fmt_human. */
void table_cell_human(const struct table *r, size_t row, size_t col, struct sbuf *out);
/* The raw value of cell (row, col): the text, the shortest decimal that reads back exactly,
 * or "" for none. */
void table_cell_raw(const struct table *r, size_t row, size_t col, struct sbuf *out);

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
