/*
 * svg.h — SVG charts for the reports: a stacked bar chart and a line chart, each a complete
 * <svg> element (usable as a file and inline in HTML), with a title, axes with ticks at round
 * values, axis titles that carry the unit, a legend, and the Okabe-Ito palette, which reads
 * for every kind of colour vision.
 *
 * The layout is fixed (SVG_W x the height a chart needs), so coordinates are reproducible:
 * the plot area spans x SVG_PLOT_X0..SVG_PLOT_X1 and y SVG_PLOT_Y0..SVG_PLOT_Y1 (y grows
 * downwards; an axis's first tick sits at Y1, its last at Y0), and coordinates are written
 * with one decimal. Output depends only on the input: same chart, same bytes.
 *
 * Nothing here prints.
 */
#ifndef VOIDFIT_SVG_H
#define VOIDFIT_SVG_H

#include <stddef.h>

#include "sbuf.h"

#define SVG_W       720
#define SVG_PLOT_X0 88
#define SVG_PLOT_X1 700
#define SVG_PLOT_Y0 40
#define SVG_PLOT_Y1 300
/* Colours: Okabe & Ito (2008), in the order a chart's series take them. */
#define SVG_NCOLOR 8
extern const char *const svg_palette[SVG_NCOLOR];

/* Ticks at round values covering [lo, hi]: first, first + step, ... (n of them, 2 <= n <=
 * max + 1, the last >= hi). Steps are 1, 2 or 5 x 10^k; with time set, human durations in
 * seconds (1, 5, 15, 30 s, 1, 5, 15, 30 min, 1, 2, 3, 6, 12 h, 1, 2 d, 1 week, ...). An empty
 * or inverted range is widened to one step. */
struct svg_ticks {
	double first, step;
	int n;
};
void svg_ticks(double lo, double hi, int max, int time, struct svg_ticks *t);

/* A tick label of value v into buf (NULL: "%g"). */
typedef void (*svg_fmt_fn)(double v, char *buf, size_t len);

struct svg_axis {
	const char *title; /* with the unit: "$ per year", "time since the trace's start" */
	svg_fmt_fn fmt;    /* tick labels */
	int time;          /* ticks at human durations (values in seconds) */
};

/* A stacked bar chart: one bar per category, series stacked bottom first. */
struct svg_bars {
	const char *title;
	const char *const *cats; /* ncat category names, under the bars */
	size_t ncat;
	const char *const *names; /* nser series names, in the legend */
	size_t nser;
	const int *colors; /* palette index of each series, or NULL: series i takes i % 8 */
	const double *v;   /* v[s * ncat + c]: series s of category c, >= 0 (NaN: 0) */
	struct svg_axis y;
	const unsigned char *strong; /* ncat flags: names set in bold (baseline, winner), or NULL */
	const char *reading;         /* one line under the legend: how to read it, or NULL */
};
/* Append the chart to out. */
void svg_bar_chart(struct sbuf *out, const struct svg_bars *b);

/* A line chart: nlines lines of points (x ascending). */
struct svg_line {
	const char *name;
	const double *x, *y; /* n points; a NaN y breaks the line */
	size_t n;
};
struct svg_lines {
	const char *title;
	const struct svg_line *lines;
	size_t nlines;
	struct svg_axis x, y;
	double ymin;  /* the y axis starts here at most (0 for counts and shares) */
	double xmark; /* a dashed vertical line at this x, or NaN */
	const char *xmark_label;
	const unsigned char *strong; /* nlines flags: lines drawn thick, names in bold, or NULL */
	const char *reading;         /* one line under the legend: how to read it, or NULL */
};
/* Append the chart to out. Line i takes colour i % 8 and, past 8 lines, a dash pattern. */
void svg_line_chart(struct sbuf *out, const struct svg_lines *c);

#endif
