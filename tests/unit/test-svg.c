/* test-svg.c — SVG charts: round ticks, escaping, and the coordinates of a bar chart and a
 * line chart worked out by hand from the layout svg.h states. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "esc.h"
#include "svg.h"

static void covers(double lo, double hi, int max, int time)
{
	struct svg_ticks t;
	svg_ticks(lo, hi, max, time, &t);
	double last = t.first + t.step * (t.n - 1);
	assert_true(t.first <= lo + 1e-9);
	assert_true(last >= hi - 1e-9);
	assert_true(t.n >= 2);
	assert_true(t.n <= max + 1);
}

static void test_ticks(void **state)
{
	struct svg_ticks t;
	(void)state;
	/* 9.3 over at most 6 steps: 1 needs 10, 2 needs 5 */
	svg_ticks(0, 9.3, 6, 0, &t);
	assert_true(t.first == 0 && t.step == 2 && t.n == 6);
	svg_ticks(0, 1e6, 6, 0, &t);
	assert_true(t.first == 0 && t.step == 2e5 && t.n == 6);
	svg_ticks(0, 0.23, 6, 0, &t);
	assert_true(fabs(t.step - 0.05) < 1e-12 && t.n == 6);
	/* 34.4 h over at most 8 steps: 3 h needs 12, 6 h needs 6 */
	svg_ticks(0, 123700, 8, 1, &t);
	assert_true(t.first == 0 && t.step == 21600 && t.n == 7);
	svg_ticks(0, 50, 8, 1, &t);
	assert_true(t.step == 15 && t.n == 5);
	covers(-3, 7, 5, 0);
	covers(5, 5, 6, 0); /* an empty range is widened */
	covers(0, 0, 6, 0);
	covers(7, 2, 6, 0);   /* inverted */
	covers(0, 4e8, 8, 1); /* past the table of durations */
	covers(123.4, 9876.5, 6, 0);
}

static void test_escape(void **state)
{
	struct sbuf b = SBUF_INIT;
	(void)state;
	sbuf_init(&b);
	esc_xml(&b, "a<b & \"c\" 'd'>");
	assert_string_equal(b.s, "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
	/* no raw markup from a title, a category or a series name */
	sbuf_reset(&b);
	const char *cats[] = {"<script>"}, *names[] = {"a&b"};
	double v[] = {1};
	struct svg_bars bars = {.title = "x</text><script>",
				.cats = cats,
				.ncat = 1,
				.names = names,
				.nser = 1,
				.v = v,
				.y = {"$ \"per\" year", NULL, 0}};
	svg_bar_chart(&b, &bars);
	assert_null(strstr(b.s, "<script>"));
	assert_null(strstr(b.s, "a&b"));
	assert_non_null(strstr(b.s, "&lt;script&gt;"));
	assert_non_null(strstr(b.s, "a&amp;b"));
	assert_non_null(strstr(b.s, "$ &quot;per&quot; year"));
	sbuf_release(&b);
}

/* One bar of 4 + 6 on ticks 0..10: the plot's 260 px are 26 px a unit; the bar takes the
 * middle 60 % of the band, which is the whole plot width (612 px). */
static void test_bar_coordinates(void **state)
{
	struct sbuf b = SBUF_INIT;
	(void)state;
	sbuf_init(&b);
	const char *cats[] = {"fgd"}, *names[] = {"productive", "stalled"};
	double v[] = {4, 6};
	struct svg_bars bars = {.title = "t",
				.cats = cats,
				.ncat = 1,
				.names = names,
				.nser = 2,
				.v = v,
				.y = {"$ per year", NULL, 0}};
	svg_bar_chart(&b, &bars);
	assert_non_null(strstr(b.s, "<rect x=\"210.4\" y=\"196.0\" width=\"367.2\" "
				    "height=\"104.0\" fill=\"#0072B2\">"));
	assert_non_null(strstr(b.s, "<rect x=\"210.4\" y=\"40.0\" width=\"367.2\" "
				    "height=\"156.0\" fill=\"#E69F00\">"));
	/* the y ticks 0, 2, ..., 10 and their grid lines: 10 at the top, 0 at the axis */
	assert_non_null(strstr(b.s, "<line x1=\"88\" y1=\"40.0\" x2=\"700\" y2=\"40.0\""));
	assert_non_null(strstr(b.s, ">10</text>"));
	assert_non_null(strstr(b.s, ">$ per year</text>"));
	/* the legend names both series, a category sits under its bar */
	assert_non_null(strstr(b.s, ">productive</text>"));
	assert_non_null(strstr(b.s, ">stalled</text>"));
	assert_non_null(strstr(b.s, "x=\"394.0\" y=\"316\" font-size=\"11\" "
				    "text-anchor=\"middle\">fgd</text>"));
	assert_true(!strncmp(b.s, "<svg xmlns=\"http://www.w3.org/2000/svg\"", 39));
	assert_true(b.len > 6 && !strcmp(b.s + b.len - 7, "</svg>\n"));
	/* colours given per series */
	sbuf_reset(&b);
	int colors[] = {7, 2};
	bars.colors = colors;
	svg_bar_chart(&b, &bars);
	assert_non_null(strstr(b.s, "fill=\"#000000\"><title>"));
	assert_non_null(strstr(b.s, "fill=\"#009E73\"><title>"));
	sbuf_release(&b);
}

static void fmt_pct(double v, char *buf, size_t len)
{
	snprintf(buf, len, "%g%%", v);
}

/* (0,0) (10,5) (20,10): x ticks 0..20 by 5 over 612 px, y ticks 0..10 by 2 over 260 px. */
static void test_line_coordinates(void **state)
{
	struct sbuf b = SBUF_INIT;
	(void)state;
	sbuf_init(&b);
	double x[] = {0, 10, 20}, y[] = {0, 5, 10}, y2[] = {10, NAN, 0};
	struct svg_line l[9] = {{"a", x, y, 3}, {"b", x, y2, 3}};
	struct svg_lines c = {.title = "t",
			      .lines = l,
			      .nlines = 2,
			      .x = {"time", NULL, 0},
			      .y = {"share", fmt_pct, 0},
			      .xmark = NAN};
	svg_line_chart(&b, &c);
	assert_non_null(strstr(b.s, "<polyline points=\"88.0,300.0 394.0,170.0 700.0,40.0\" "
				    "fill=\"none\" stroke=\"#0072B2\""));
	/* a NaN breaks the line in two */
	assert_non_null(strstr(b.s, "<polyline points=\"88.0,40.0\" fill=\"none\" "
				    "stroke=\"#E69F00\""));
	assert_non_null(strstr(b.s, "<polyline points=\"700.0,300.0\" fill=\"none\" "
				    "stroke=\"#E69F00\""));
	assert_non_null(strstr(b.s, ">10%</text>")); /* the y labels by the callback */
	assert_non_null(strstr(b.s, ">20</text>"));  /* the last x tick */
	assert_non_null(strstr(b.s, ">time</text>"));
	assert_null(strstr(b.s, "stroke-dasharray"));
	/* past eight lines, colours come back dashed; a mark is a dashed line */
	for (int i = 2; i < 9; i++)
		l[i] = (struct svg_line){"n", x, y, 3};
	c.nlines = 9;
	c.xmark = 10;
	c.xmark_label = "window ends";
	sbuf_reset(&b);
	svg_line_chart(&b, &c);
	assert_non_null(strstr(b.s, "stroke=\"#0072B2\" stroke-width=\"1.8\" "
				    "stroke-dasharray=\"7 3\""));
	assert_non_null(strstr(b.s, "<line x1=\"394.0\" y1=\"40\" x2=\"394.0\" y2=\"300\" "
				    "stroke=\"#777777\""));
	assert_non_null(strstr(b.s, ">window ends</text>"));
	sbuf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ticks),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_bar_coordinates),
		cmocka_unit_test(test_line_coordinates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
