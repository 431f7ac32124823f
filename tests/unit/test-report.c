/* test-report.c — the report's document: how a cell reads for a person and raw, and what
 * each format makes of one small document (which blocks and columns it shows, escaping,
 * quoting, the chart files of Markdown). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/report-int.h"

static const struct table_col cols[] = {
	{"policy", "policy", NULL, 0, 0, TABLE_C_TEXT},
	{"run_ids", "runs", NULL, 0, 0, TABLE_C_TEXT | TABLE_C_TEXT_HIDE},
	{"usd", "cost", NULL, 0, 0, TABLE_C_USD},
	{"share", "share", NULL, 1, 0, TABLE_C_SHARE},
	{"gpu_h", "GPU-h", NULL, 1, 0, 0},
	{"wait_s", "wait", NULL, 0, 0, TABLE_C_SECONDS | TABLE_C_ROUNDED},
	{"zero", "zero", NULL, 0, 0, 0},
};

/* A title, a warning, the verdict, a section with a table, a chart and a JSON-only table. */
static int setup(void **state)
{
	struct report *r = xcalloc(1, sizeof *r);
	report_add(r, REPORT_B_TITLE, "Cost <report>");
	report_add(r, REPORT_B_WARN, "seeds differ");
	report_add(r, REPORT_B_VERDICT, "fgd recovers $1,000/yr");
	report_add(r, REPORT_B_HEADING, "1. Cost");
	report_add(r, REPORT_B_PARA, "a & b");
	struct table *t =
		report_add_table(r, "costs", "Costs", cols, sizeof cols / sizeof *cols, 0);
	struct table_cell *c = table_row(t);
	table_cell_text(&c[0], "a|b,c");
	table_cell_text(&c[1], "1,2");
	c[2].v = 1577611.5487426026;
	c[3].v = 0.1234;
	c[4].v = 13195.26;
	c[5].v = 273600;
	c[6].v = 0;
	c = table_row(t);
	table_cell_text(&c[0], "fgd");
	c[2].v = NAN;
	table_hide_zero(t);
	report_add(r, REPORT_B_ITEM, "one");
	report_add(r, REPORT_B_ITEM, "two");
	struct report_block *ch = report_add(r, REPORT_B_CHART, "A chart");
	sbuf_adds(&ch->svg, "<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>\n");
	t = report_add_table(r, "raw", NULL, cols, 1, REPORT_BF_RAW);
	table_cell_text(&table_row(t)[0], "hidden-from-people");
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	report_free(*state);
	return 0;
}

static void render(const struct report *r, const char *fmt, const char *base,
		   struct report_output *o)
{
	report_output_init(o);
	report_format_find(fmt)->write(r, base, o);
}

static void test_cells(void **state)
{
	const struct report *r = *state;
	const struct table *t = r->blocks[5].table;
	struct sbuf b = SBUF_INIT;
	sbuf_init(&b);
	static const char *const human[] = {"a|b,c",    "1,2",   "$1,577,612", "12.3 %",
					    "13,195.3", "3d 4h", "0"};
	for (size_t c = 0; c < table_ncols(t); c++) {
		sbuf_reset(&b);
		table_cell_human(t, 0, c, &b);
		assert_string_equal(b.s, human[c]);
	}
	sbuf_reset(&b);
	table_cell_raw(t, 0, 2, &b); /* unrounded */
	assert_string_equal(b.s, "1577611.5487426026");
	sbuf_reset(&b);
	table_cell_raw(t, 0, 5, &b);
	assert_string_equal(b.s, "273600");
	sbuf_reset(&b);
	table_cell_human(t, 1, 2, &b);
	assert_string_equal(b.s, "-");
	sbuf_reset(&b);
	table_cell_raw(t, 1, 2, &b);
	assert_string_equal(b.s, "");
	/* the raw column and the all-zero column are for JSON and CSV */
	assert_false(table_shown(t, 1));
	assert_false(table_shown(t, 6));
	assert_true(table_shown(t, 2));
	sbuf_release(&b);
}

static void test_text(void **state)
{
	struct report_output o;
	render(*state, "text", NULL, &o);
	assert_true(!strncmp(o.doc.s, "Cost <report>\n=============\n", 28));
	assert_non_null(strstr(o.doc.s, "WARNING: seeds differ\n"));
	assert_non_null(strstr(o.doc.s, "\n1. Cost\n-------\n"));
	assert_non_null(strstr(o.doc.s, "Costs:\npolicy        cost   share     GPU-h   wait\n"
					"a|b,c   $1,577,612  12.3 %  13,195.3  3d 4h\n"
					"fgd              -       -         -      -\n"));
	assert_non_null(strstr(o.doc.s, "  - one\n  - two\n"));
	assert_null(strstr(o.doc.s, "1,2"));    /* run ids: raw only */
	assert_null(strstr(o.doc.s, "zero"));   /* an all-zero column */
	assert_null(strstr(o.doc.s, "<svg"));   /* no charts */
	assert_null(strstr(o.doc.s, "hidden")); /* no JSON-only table */
	assert_int_equal(o.nfiles, 0);
	report_output_release(&o);
}

static void test_md(void **state)
{
	struct report_output o;
	render(*state, "md", "r", &o);
	assert_non_null(strstr(o.doc.s, "# Cost \\<report\\>\n"));
	assert_non_null(strstr(o.doc.s, "**fgd recovers \\$1,000/yr**\n"));
	assert_non_null(strstr(o.doc.s, "> **Warning:** seeds differ\n"));
	assert_non_null(strstr(o.doc.s,
			       "| policy | cost | share | GPU-h | wait |\n"
			       "| :--- | ---: | ---: | ---: | ---: |\n"
			       "| a\\|b,c | \\$1,577,612 | 12.3 % | 13,195.3 | 3d 4h |\n"));
	assert_non_null(strstr(o.doc.s, "![A chart](r-1.svg)"));
	assert_int_equal(o.nfiles, 1);
	assert_string_equal(o.files[0].name, "r-1.svg");
	assert_true(!strncmp(o.files[0].body.s, "<svg", 4));
	report_output_release(&o);
	/* to a stream: no files, and it says so */
	render(*state, "md", NULL, &o);
	assert_int_equal(o.nfiles, 0);
	assert_non_null(strstr(o.doc.s, "1 chart left out"));
	report_output_release(&o);
}

static void test_html(void **state)
{
	struct report_output o;
	render(*state, "html", NULL, &o);
	assert_true(!strncmp(o.doc.s, "<!DOCTYPE html>\n", 16));
	assert_non_null(strstr(o.doc.s, "<title>Cost &lt;report&gt;</title>"));
	assert_non_null(strstr(o.doc.s, "<p>a &amp; b</p>"));
	assert_non_null(strstr(o.doc.s, "<td class=\"n\">$1,577,612</td>"));
	assert_non_null(strstr(o.doc.s, "<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n"));
	assert_non_null(strstr(o.doc.s, "<div class=\"chart\">\n<svg xmlns"));
	assert_null(strstr(o.doc.s, "hidden"));
	assert_true(!strcmp(o.doc.s + o.doc.len - 8, "</html>\n"));
	report_output_release(&o);
}

static void test_json_csv(void **state)
{
	struct report_output o;
	render(*state, "json", NULL, &o);
	assert_non_null(strstr(o.doc.s, "\"title\": \"Cost <report>\""));
	assert_non_null(strstr(o.doc.s, "\"verdict\": \"fgd recovers $1,000/yr\""));
	assert_non_null(strstr(o.doc.s, "\"usd\": 1577611.5487426026"));
	assert_non_null(strstr(o.doc.s, "\"run_ids\": \"1,2\""));
	assert_non_null(strstr(o.doc.s, "\"zero\": 0"));
	assert_non_null(strstr(o.doc.s, "\"usd\": null"));
	assert_non_null(strstr(o.doc.s, "\"policy\": \"hidden-from-people\""));
	report_output_release(&o);
	render(*state, "csv", NULL, &o);
	assert_true(!strncmp(o.doc.s, "table,row,column,value\n", 23));
	assert_non_null(strstr(o.doc.s, "costs,1,policy,\"a|b,c\"\n"));
	assert_non_null(strstr(o.doc.s, "costs,1,run_ids,\"1,2\"\n"));
	assert_non_null(strstr(o.doc.s, "costs,1,usd,1577611.5487426026\n"));
	assert_non_null(strstr(o.doc.s, "costs,2,usd,\n"));
	assert_non_null(strstr(o.doc.s, "raw,1,policy,hidden-from-people\n"));
	report_output_release(&o);
}

static void test_formats(void **state)
{
	(void)state;
	assert_ptr_equal(report_format_find("html"), &report_html);
	assert_null(report_format_find("pdf"));
	assert_ptr_equal(report_format_for_path("out/r.html"), &report_html);
	assert_ptr_equal(report_format_for_path("r.htm"), &report_html);
	assert_ptr_equal(report_format_for_path("r.md"), &report_md);
	assert_ptr_equal(report_format_for_path("r.csv"), &report_csv);
	assert_null(report_format_for_path("report"));
	assert_null(report_format_for_path(".md"));
	report_free(NULL);
	report_output_release(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cells, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_md, setup, teardown),
		cmocka_unit_test_setup_teardown(test_html, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_csv, setup, teardown),
		cmocka_unit_test(test_formats),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
