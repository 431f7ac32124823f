/*
 * report.h — the cost report a capacity planner hands upstairs: one scenario's runs read
 * back from a store (runrec_select) and turned into a document of sections, written as
 * text, Markdown, HTML, JSON or CSV.
 *
 *   report_build    the document: at a glance (the verdict: the best policy's saving
 *                   against a baseline, paired by seed, with its 95 % interval; the cluster's
 *                   cost a year, the productive share, what rests on assumptions), service
 *                   levels per policy and class, $/yr by bucket, by GPU model
 *                   and by job class, fragmentation, stalled GPUs and queue over time, the
 *                   right-sizing (when one is stored), the what-ifs of the trace, owned
 *                   against rented, and the assumptions (prices and their sources, window,
 *                   seeds, enrichment); warnings first
 *   report_formats  the writers, one report-NAME.c each, exporting a const struct
 *                   report_ops
 *
 * A document is blocks in order: headings, paragraphs, list items, warnings, tables and
 * charts. Its tables are the tables of table.h, the one table of every output (the report's
 * tables are tables, not a model of their own): a column's flags say how a person reads its
 * cells (dollars, GPU-hours, a share, a duration), so that text, Markdown and HTML print them
 * for a person ("$1,234,567", "3d 4h", table_cell_human) and JSON and CSV print the raw
 * value, unrounded (table_cell_raw). Some tables or columns are only for JSON and CSV (the
 * per-run figures, the plotted series); charts (SVG, svg.h) only for Markdown and HTML.
 *
 * Nothing here prints; output depends only on the document.
 */
#ifndef VOIDFIT_REPORT_H
#define VOIDFIT_REPORT_H

#include <stddef.h>

#include "metrics.h"
#include "policy.h"
#include "runrec.h"
#include "sbuf.h"
#include "store.h"
#include "table.h"
#include "util.h"

enum report_block_type {
	REPORT_B_TITLE,   /* the document's title */
	REPORT_B_HEADING, /* a section */
	REPORT_B_PARA,    /* a paragraph */
	REPORT_B_ITEM,    /* an item of a list (consecutive items make one list) */
	REPORT_B_WARN,    /* a warning, near the top */
	REPORT_B_VERDICT, /* the one sentence that goes upstairs */
	REPORT_B_TABLE,   /* a table (with a caption in text) */
	REPORT_B_CHART,   /* an SVG chart (text: its title) */
};

enum {
	REPORT_BF_RAW = 1, /* JSON and CSV only (a table of every figure) */
};

struct report_block {
	int type;            /* enum report_block_type */
	unsigned flags;      /* REPORT_BF_* */
	char *text;          /* heading, paragraph, item, warning, verdict; caption */
	struct table *table; /* REPORT_B_TABLE (owned; its id names it in JSON, CSV) */
	struct sbuf svg;     /* REPORT_B_CHART: a complete <svg> element */
};

struct report {
	struct report_block *blocks;
	size_t n, cap;
};

/* What the report is priced at and compared against. */
struct report_opts {
	const struct policy_ops *baseline; /* the savings' reference (NULL: scalar) */
	struct metrics_opts prices;        /* the tier and --gpu-price overrides */
	double api_usd_per_mtok;           /* an API's price per million tokens, or NaN */
	double tokens_per_gpu_hour;        /* tokens a productive GPU-hour makes (with the API) */
};

/* Build the report of the runs q names in st (path names the store in messages). Returns 0
 * with *out set (free with report_free), VF_EINPUT when q names nothing (no runs, an unknown
 * scenario or run id), or the store's error. */
int report_build(struct store *st, const char *path, const struct runrec_query *q,
		 const struct report_opts *o, struct report **out, struct err *e);
/* Free r; r may be NULL. */
void report_free(struct report *r);

/* The line report and compare lead with, into out: where st holds sizings ('voidfit size')
 * of scenario sc (its row, as runrec_select reads it) for baseline and another policy at one SLO,
 * seeds and prices, the fewer GPUs and $ a year of the one that retires the most ("Sized at the
 * same SLO (...): switching scalar -> fgd needs 96 fewer GPUs, $2.1 M/yr less at on-demand
 * prices"); in any case the 'voidfit verdict' command (path: the store) that gives both answers on
 * sc (its mode and target; in timed mode with the interval of 20 resamples, and naming the
 * scenario's other options where it has some). alloc: the mean allocated GPU share of the runs the
 * caller shows (NaN: none); under METRICS_IDLE_ALLOC the line begins with the warning that the
 * cluster is nearly idle, so that its GPUs retired measure idle time. Returns 0 or the store's
 * error (a sizing that cannot be read). */
int report_verdict_lead(struct store *st, const char *path, const struct store_scenario *sc,
			const char *baseline, double alloc, struct sbuf *out, struct err *e);

/* The right-sizing section's text when no right-sizing is stored. */
#define REPORT_NO_SIZING "no right-sizing stored (voidfit size)"

/* A file written beside the document (Markdown's charts). */
struct report_file {
	char *name; /* file name, relative to the document's directory (owned) */
	struct sbuf body;
};
struct report_output {
	struct sbuf doc; /* the document */
	struct report_file *files;
	size_t nfiles;
};
void report_output_init(struct report_output *o);
void report_output_release(struct report_output *o);

/* An output format. */
struct report_ops {
	const char *name; /* "text", "md", "html", "json", "csv" */
	const char *ext;  /* its usual file name ending: ".txt", ".md", ... */
	/* Write r into out. base names the files beside the document ("FILE" for
	 * FILE.md: FILE-1.svg, ...), or is NULL when the document goes to a stream (the
	 * formats that need files then say where the charts are not). */
	void (*write)(const struct report *r, const char *base, struct report_output *out);
};
extern const struct report_ops report_text, report_md, report_html, report_json, report_csv;
extern const struct report_ops *const report_formats[]; /* NULL-terminated */
/* The format named name, or NULL. */
const struct report_ops *report_format_find(const char *name);
/* The format whose ext ends path, or NULL. */
const struct report_ops *report_format_for_path(const char *path);

#endif
