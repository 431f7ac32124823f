/*
 * svg.c — SVG charts (svg.h): axes, ticks, legend and the two kinds of chart.
 *
 * Every chart is laid out the same way, top to bottom: the title, the plot area
 * (SVG_PLOT_*) with the y tick labels and the y axis title to its left, the x tick labels
 * and x axis title under it, then the legend in rows as wide as the plot, then the line
 * that says how to read the chart, when there is one. The height is what these need.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "esc.h"
#include "svg.h"

const char *const svg_palette[SVG_NCOLOR] = {
	"#0072B2", /* blue */
	"#E69F00", /* orange */
	"#009E73", /* bluish green */
	"#CC79A7", /* reddish purple */
	"#56B4E9", /* sky blue */
	"#D55E00", /* vermillion */
	"#F0E442", /* yellow */
	"#000000", /* black */
};

/* Past the eighth line, colours repeat with these dashes. */
static const char *const dashes[] = {NULL, "7 3", "2 3", "8 3 2 3"};

#define FONT        "font-family=\"sans-serif\""
#define LEGEND_ROW  18
#define CHAR_W      6.5 /* about the width of a character at 11 px */
#define TICK_FONT   11
#define TITLE_Y     22
#define MAX_TICKS_Y 6
#define MAX_TICKS_X 8

void svg_ticks(double lo, double hi, int max, int time, struct svg_ticks *t)
{
	static const double time_steps[] = {
		1,     5,     15,    30,    60,     300,    900,     1800,    3600,    7200,
		10800, 21600, 43200, 86400, 172800, 604800, 1209600, 2419200, 7257600, 31536000};
	if (max < 1)
		max = 1;
	if (!isfinite(lo) || !isfinite(hi)) {
		lo = 0;
		hi = 1;
	}
	if (hi < lo) {
		double x = lo;
		lo = hi;
		hi = x;
	}
	double range = hi - lo, step = 0;
	if (range <= 0)
		range = fabs(hi) > 0 ? fabs(hi) : 1;
	if (time) {
		for (size_t i = 0; i < sizeof time_steps / sizeof *time_steps && !step; i++)
			if (range / time_steps[i] <= max)
				step = time_steps[i];
		if (!step) /* beyond the table: whole years, 1-2-5 */
			step = 31536000 * pow(10, ceil(log10(range / 31536000 / max)));
	} else {
		double mag = pow(10, floor(log10(range / max)));
		static const double mult[] = {1, 2, 5, 10};
		for (size_t i = 0; i < 4 && !step; i++)
			if (range / (mult[i] * mag) <= max)
				step = mult[i] * mag;
		if (!step)
			step = 10 * mag;
	}
	double first = floor(lo / step) * step, last = ceil(hi / step) * step;
	if (last <= first)
		last = first + step;
	/* a range that lands on a multiple needs one step fewer than it might */
	while ((last - first) / step > max + 1e-9) {
		step *= 2;
		first = floor(lo / step) * step;
		last = ceil(hi / step) * step;
	}
	t->first = first;
	t->step = step;
	t->n = (int)lround((last - first) / step) + 1;
}

static void fmt_label(const struct svg_axis *a, double v, char *buf, size_t len)
{
	if (fabs(v) < 1e-12 * (fabs(v) + 1))
		v = 0; /* no "-0" or "1e-17" at the origin */
	if (a->fmt)
		a->fmt(v, buf, len);
	else
		snprintf(buf, len, "%g", v);
}

/* The pixel of value v on an axis from first tick (at p0) to last tick (at p1). */
static double scale(const struct svg_ticks *t, double v, double p0, double p1)
{
	double last = t->first + t->step * (t->n - 1);
	return p0 + (v - t->first) / (last - t->first) * (p1 - p0);
}

/* The legend's rows, laid out from x0 to x1 (the x of each entry into ex, its row into er). */
static int legend_layout(const char *const *names, size_t n, double *ex, int *er)
{
	double x = SVG_PLOT_X0;
	int row = 0;
	for (size_t i = 0; i < n; i++) {
		double w = 26 + CHAR_W * (double)strlen(names[i] ? names[i] : "") + 14;
		if (x > SVG_PLOT_X0 && x + w > SVG_PLOT_X1) {
			x = SVG_PLOT_X0;
			row++;
		}
		ex[i] = x;
		er[i] = row;
		x += w;
	}
	return n ? row + 1 : 0;
}

static void head(struct sbuf *out, const char *title, int height)
{
	sbuf_printf(out,
		    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		    "viewBox=\"0 0 %d %d\" role=\"img\" " FONT ">\n",
		    SVG_W, height, SVG_W, height);
	sbuf_adds(out, "<title>");
	esc_xml(out, title);
	sbuf_adds(out, "</title>\n");
	sbuf_printf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
		    SVG_W, height);
	sbuf_printf(out, "<text x=\"%d\" y=\"%d\" font-size=\"15\" font-weight=\"bold\">",
		    SVG_PLOT_X0, TITLE_Y);
	esc_xml(out, title);
	sbuf_adds(out, "</text>\n");
}

/* The y axis: grid lines and labels at the ticks, its title turned up the left side. */
static void y_axis(struct sbuf *out, const struct svg_axis *a, const struct svg_ticks *t)
{
	char buf[64];
	for (int i = 0; i < t->n; i++) {
		double v = t->first + t->step * i;
		double y = scale(t, v, SVG_PLOT_Y1, SVG_PLOT_Y0);
		sbuf_printf(
			out,
			"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n",
			SVG_PLOT_X0, y, SVG_PLOT_X1, y);
		fmt_label(a, v, buf, sizeof buf);
		sbuf_printf(out, "<text x=\"%d\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"end\">",
			    SVG_PLOT_X0 - 6, y + 4, TICK_FONT);
		esc_xml(out, buf);
		sbuf_adds(out, "</text>\n");
	}
	sbuf_printf(out,
		    "<text x=\"16\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\" "
		    "transform=\"rotate(-90 16 %d)\">",
		    (SVG_PLOT_Y0 + SVG_PLOT_Y1) / 2, (SVG_PLOT_Y0 + SVG_PLOT_Y1) / 2);
	esc_xml(out, a->title);
	sbuf_adds(out, "</text>\n");
}

static void frame(struct sbuf *out)
{
	sbuf_printf(out,
		    "<polyline points=\"%d,%d %d,%d %d,%d\" fill=\"none\" stroke=\"#333333\"/>\n",
		    SVG_PLOT_X0, SVG_PLOT_Y0, SVG_PLOT_X0, SVG_PLOT_Y1, SVG_PLOT_X1, SVG_PLOT_Y1);
}

/* The reading line at y, if any; returns the height it takes. */
static int reading(struct sbuf *out, const char *text, int y)
{
	if (!text)
		return 0;
	sbuf_printf(out, "<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"#333333\">", SVG_PLOT_X0,
		    y + 12);
	esc_xml(out, text);
	sbuf_adds(out, "</text>\n");
	return LEGEND_ROW;
}

static void legend_name(struct sbuf *out, double x, double y, const char *name)
{
	sbuf_printf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\">", x + 26, y + 4, TICK_FONT);
	esc_xml(out, name);
	sbuf_adds(out, "</text>\n");
}

void svg_bar_chart(struct sbuf *out, const struct svg_bars *b)
{
	double top = 0, ex[64];
	int er[64];
	size_t nser = b->nser < 64 ? b->nser : 64;
	for (size_t c = 0; c < b->ncat; c++) {
		double sum = 0;
		for (size_t s = 0; s < nser; s++)
			sum += isnan(b->v[s * b->ncat + c]) ? 0 : b->v[s * b->ncat + c];
		top = sum > top ? sum : top;
	}
	struct svg_ticks t;
	svg_ticks(0, top > 0 ? top : 1, MAX_TICKS_Y, 0, &t);
	/* long or many names under the bars are turned, so they do not run into each other */
	double band = b->ncat ? (double)(SVG_PLOT_X1 - SVG_PLOT_X0) / (double)b->ncat : 1;
	size_t longest = 0;
	for (size_t c = 0; c < b->ncat; c++)
		longest = strlen(b->cats[c]) > longest ? strlen(b->cats[c]) : longest;
	int turned = CHAR_W * (double)longest > band - 4;
	int rows = legend_layout(b->names, nser, ex, er);
	int ly = SVG_PLOT_Y1 + (turned ? 28 + (int)(CHAR_W * 0.6 * (double)longest) : 34);
	int height = ly + rows * LEGEND_ROW + 8 + (b->reading ? LEGEND_ROW : 0);

	head(out, b->title, height);
	y_axis(out, &b->y, &t);
	char buf[64];
	for (size_t c = 0; c < b->ncat; c++) {
		double x = SVG_PLOT_X0 + band * ((double)c + 0.2), w = band * 0.6, cum = 0;
		for (size_t s = 0; s < nser; s++) {
			double v = b->v[s * b->ncat + c];
			if (isnan(v) || v <= 0)
				continue;
			double y1 = scale(&t, cum, SVG_PLOT_Y1, SVG_PLOT_Y0);
			double y0 = scale(&t, cum + v, SVG_PLOT_Y1, SVG_PLOT_Y0);
			int col = b->colors ? b->colors[s] : (int)(s % SVG_NCOLOR);
			sbuf_printf(out,
				    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				    "fill=\"%s\"><title>",
				    x, y0, w, y1 - y0, svg_palette[col % SVG_NCOLOR]);
			fmt_label(&b->y, v, buf, sizeof buf);
			esc_xml(out, b->cats[c]);
			sbuf_adds(out, ", ");
			esc_xml(out, b->names[s]);
			sbuf_adds(out, ": ");
			esc_xml(out, buf);
			sbuf_adds(out, "</title></rect>\n");
			cum += v;
		}
		double cx = SVG_PLOT_X0 + band * ((double)c + 0.5);
		if (turned)
			sbuf_printf(
				out,
				"<text x=\"%.1f\" y=\"%d\" font-size=\"%d\" text-anchor=\"end\" "
				"transform=\"rotate(-35 %.1f %d)\"%s>",
				cx, SVG_PLOT_Y1 + 14, TICK_FONT, cx, SVG_PLOT_Y1 + 14,
				b->strong && b->strong[c] ? " font-weight=\"bold\"" : "");
		else
			sbuf_printf(out,
				    "<text x=\"%.1f\" y=\"%d\" font-size=\"%d\" "
				    "text-anchor=\"middle\"%s>",
				    cx, SVG_PLOT_Y1 + 16, TICK_FONT,
				    b->strong && b->strong[c] ? " font-weight=\"bold\"" : "");
		esc_xml(out, b->cats[c]);
		sbuf_adds(out, "</text>\n");
	}
	frame(out);
	/* the legend in stacking order, bottom first */
	for (size_t s = 0; s < nser; s++) {
		double y = ly + er[s] * LEGEND_ROW;
		int col = b->colors ? b->colors[s] : (int)(s % SVG_NCOLOR);
		sbuf_printf(
			out,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"18\" height=\"10\" fill=\"%s\"/>\n",
			ex[s], y - 5, svg_palette[col % SVG_NCOLOR]);
		legend_name(out, ex[s], y, b->names[s]);
	}
	reading(out, b->reading, ly + rows * LEGEND_ROW);
	sbuf_adds(out, "</svg>\n");
}

static void line_style(struct sbuf *out, size_t i, int strong)
{
	const char *d = dashes[(i / SVG_NCOLOR) % (sizeof dashes / sizeof *dashes)];
	sbuf_printf(out, "fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"",
		    svg_palette[i % SVG_NCOLOR], strong ? "3.6" : "1.8");
	if (d)
		sbuf_printf(out, " stroke-dasharray=\"%s\"", d);
}

void svg_line_chart(struct sbuf *out, const struct svg_lines *c)
{
	double xlo = INFINITY, xhi = -INFINITY, ylo = c->ymin, yhi = -INFINITY;
	double ex[64];
	int er[64];
	const char *names[64];
	size_t nl = c->nlines < 64 ? c->nlines : 64;
	for (size_t i = 0; i < nl; i++) {
		const struct svg_line *l = &c->lines[i];
		names[i] = l->name;
		for (size_t k = 0; k < l->n; k++) {
			if (isnan(l->y[k]))
				continue;
			xlo = l->x[k] < xlo ? l->x[k] : xlo;
			xhi = l->x[k] > xhi ? l->x[k] : xhi;
			ylo = l->y[k] < ylo ? l->y[k] : ylo;
			yhi = l->y[k] > yhi ? l->y[k] : yhi;
		}
	}
	if (xlo > xhi)
		xlo = 0, xhi = 1;
	if (!isnan(c->xmark))
		xhi = c->xmark > xhi ? c->xmark : xhi;
	if (yhi < ylo || yhi == ylo)
		yhi = ylo + (fabs(ylo) > 0 ? fabs(ylo) : 1);
	struct svg_ticks tx, ty;
	svg_ticks(xlo, xhi, MAX_TICKS_X, c->x.time, &tx);
	svg_ticks(ylo, yhi, MAX_TICKS_Y, c->y.time, &ty);
	int rows = legend_layout(names, nl, ex, er);
	int ly = SVG_PLOT_Y1 + 56;
	int height = ly + rows * LEGEND_ROW + 8 + (c->reading ? LEGEND_ROW : 0);
	char buf[64];

	head(out, c->title, height);
	y_axis(out, &c->y, &ty);
	for (int i = 0; i < tx.n; i++) {
		double v = tx.first + tx.step * i, x = scale(&tx, v, SVG_PLOT_X0, SVG_PLOT_X1);
		sbuf_printf(
			out,
			"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333333\"/>\n",
			x, SVG_PLOT_Y1, x, SVG_PLOT_Y1 + 4);
		fmt_label(&c->x, v, buf, sizeof buf);
		sbuf_printf(out,
			    "<text x=\"%.1f\" y=\"%d\" font-size=\"%d\" text-anchor=\"middle\">", x,
			    SVG_PLOT_Y1 + 17, TICK_FONT);
		esc_xml(out, buf);
		sbuf_adds(out, "</text>\n");
	}
	sbuf_printf(out, "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">",
		    (SVG_PLOT_X0 + SVG_PLOT_X1) / 2, SVG_PLOT_Y1 + 36);
	esc_xml(out, c->x.title);
	sbuf_adds(out, "</text>\n");
	if (!isnan(c->xmark)) {
		double x = scale(&tx, c->xmark, SVG_PLOT_X0, SVG_PLOT_X1);
		sbuf_printf(out,
			    "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#777777\" "
			    "stroke-dasharray=\"4 4\"/>\n",
			    x, SVG_PLOT_Y0, x, SVG_PLOT_Y1);
		if (c->xmark_label) {
			sbuf_printf(out,
				    "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" "
				    "text-anchor=\"end\" fill=\"#555555\">",
				    x - 3, SVG_PLOT_Y0 + 10);
			esc_xml(out, c->xmark_label);
			sbuf_adds(out, "</text>\n");
		}
	}
	for (size_t i = 0; i < nl; i++) {
		const struct svg_line *l = &c->lines[i];
		int open = 0;
		for (size_t k = 0; k <= l->n; k++) {
			int gap = k == l->n || isnan(l->y[k]);
			if (gap) {
				if (open) {
					sbuf_adds(out, "\" ");
					line_style(out, i, c->strong && c->strong[i]);
					sbuf_adds(out, "/>\n");
				}
				open = 0;
				continue;
			}
			double x = scale(&tx, l->x[k], SVG_PLOT_X0, SVG_PLOT_X1);
			double y = scale(&ty, l->y[k], SVG_PLOT_Y1, SVG_PLOT_Y0);
			sbuf_printf(out, open ? " %.1f,%.1f" : "<polyline points=\"%.1f,%.1f", x,
				    y);
			open = 1;
		}
	}
	frame(out);
	for (size_t i = 0; i < nl; i++) {
		double y = ly + er[i] * LEGEND_ROW;
		sbuf_printf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" ", ex[i], y,
			    ex[i] + 20, y);
		line_style(out, i, c->strong && c->strong[i]);
		sbuf_adds(out, "/>\n");
		legend_name(out, ex[i], y, names[i]);
	}
	reading(out, c->reading, ly + rows * LEGEND_ROW);
	sbuf_adds(out, "</svg>\n");
}
