/* test-table.c — result tables: best marking, number formatting, and each output format. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "table.h"

static const struct table_col labels[] = {
	{.key = "policy", .head = "policy"},
	{.key = "seed", .head = "seed", .flags = TABLE_C_INT},
	{.key = "mode", .head = "mode", .flags = TABLE_C_TEXT_HIDE},
};
static const struct table_col nums[] = {
	{.key = "frag", .head = "mean frag", .decimals = 3, .better = TABLE_LOWER},
	{.key = "gpu_h",
	 .head = "productive",
	 .unit = "GPU-h",
	 .decimals = 1,
	 .better = TABLE_HIGHER},
	{.key = "n", .head = "n", .decimals = 0},
};

/* Three runs and their mean: fgd is best on frag, scalar on GPU-h. */
static int setup(void **state)
{
	struct table *r = table_new(labels, 3, nums, 3);
	const char *a[] = {"fgd", "1", "inflate"}, *b[] = {"scalar", "1", "inflate"},
		   *c[] = {"random", NULL, "inflate"}, *m[] = {"all", "mean", "inflate"};
	table_add_row(r, a, (double[]){0.0412, 10.04, 3}, 0);
	table_add_row(r, b, (double[]){0.1, 12.5, 3}, 0);
	table_add_row(r, c, (double[]){0.09, NAN, 3}, 0);
	table_add_row(r, m, (double[]){0.01, 99, 3}, 1);
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	table_free(*state);
	return 0;
}

static char *render(const struct table *r, const char *fmt, struct sbuf *b)
{
	const struct table_ops *ops = table_format_find(fmt);
	assert_non_null(ops);
	sbuf_init(b);
	ops->write(r, b);
	return b->s;
}

static void test_best(void **state)
{
	struct table *r = *state;
	/* marking is off by default */
	assert_false(table_is_best(r, 0, 0));
	table_set_mark_best(r, 1);
	assert_true(table_is_best(r, 0, 0)); /* lowest frag */
	assert_false(table_is_best(r, 1, 0));
	assert_true(table_is_best(r, 1, 1));  /* highest GPU-h */
	assert_false(table_is_best(r, 2, 1)); /* NaN is never best */
	assert_false(table_is_best(r, 3, 0)); /* the aggregate row is not a contender */
	assert_false(table_is_best(r, 3, 1));
	for (size_t row = 0; row < 4; row++) /* neutral column, and all equal anyway */
		assert_false(table_is_best(r, row, 2));
}

static void test_best_ties_after_rounding(void **state)
{
	(void)state;
	struct table *r = table_new(labels, 1, nums, 1);
	table_add_row(r, (const char *[]){"a"}, (double[]){0.12341}, 0);
	table_add_row(r, (const char *[]){"b"}, (double[]){0.12339}, 0);
	table_add_row(r, (const char *[]){"c"}, (double[]){0.2}, 0);
	table_set_mark_best(r, 1);
	/* both print 0.123: both are marked */
	assert_true(table_is_best(r, 0, 0));
	assert_true(table_is_best(r, 1, 0));
	assert_false(table_is_best(r, 2, 0));
	table_free(r);

	/* a single row, or all equal: nothing to mark */
	r = table_new(labels, 1, nums, 1);
	table_set_mark_best(r, 1);
	table_add_row(r, (const char *[]){"a"}, (double[]){0.5}, 0);
	assert_false(table_is_best(r, 0, 0));
	table_add_row(r, (const char *[]){"b"}, (double[]){0.5}, 0);
	assert_false(table_is_best(r, 0, 0));
	assert_false(table_is_best(r, 1, 0));
	table_free(r);

	/* an unranked row is never marked, nor counted: 0.1 is best once 0.05 is unranked */
	r = table_new(labels, 1, nums, 1);
	table_set_mark_best(r, 1);
	table_add_row(r, (const char *[]){"a"}, (double[]){0.05}, 0);
	table_add_row(r, (const char *[]){"b"}, (double[]){0.1}, 0);
	table_add_row(r, (const char *[]){"c"}, (double[]){0.2}, 0);
	assert_true(table_is_best(r, 0, 0));
	table_set_unranked(r, 0);
	assert_false(table_is_best(r, 0, 0));
	assert_true(table_is_best(r, 1, 0));
	assert_false(table_is_aggregate(r, 0));
	table_free(r);
}

static void test_fmt(void **state)
{
	(void)state;
	char buf[32];
	assert_string_equal(table_fmt(&nums[0], 0.12345, buf, sizeof buf), "0.123");
	assert_string_equal(table_fmt(&nums[0], -0.0001, buf, sizeof buf), "0.000");
	assert_string_equal(table_fmt(&nums[0], -0.5, buf, sizeof buf), "-0.500");
	assert_string_equal(table_fmt(&nums[1], NAN, buf, sizeof buf), "-");
	assert_string_equal(table_fmt(&nums[2], 2.5e6, buf, sizeof buf), "2500000");
}

/* Times in human units, dollars grouped by three (fmt.h, test-fmt.c): in text and Markdown;
 * JSON and CSV keep the raw number. */
static void test_human(void **state)
{
	(void)state;
	char b[64];
	/* any number column reads with separators from 1,000 on, in text and Markdown only */
	const struct table_col gh = {.key = "stalled_gpu_hours", .head = "stalled", .decimals = 1};
	assert_string_equal(table_fmt_human(&gh, 59104.34, b, sizeof b), "59,104.3");
	assert_string_equal(table_fmt_human(&gh, 999.94, b, sizeof b), "999.9");
	assert_string_equal(table_fmt_human(&gh, -1234, b, sizeof b), "-1,234.0");
	assert_string_equal(table_fmt(&gh, 59104.34, b, sizeof b), "59104.3");

	static const struct table_col hn[] = {
		{.key = "wait_s", .head = "wait", .unit = "p95", .flags = TABLE_C_SECONDS},
		{.key = "usd", .head = "cost", .unit = "$/yr", .flags = TABLE_C_DOLLARS},
	};
	struct table *r = table_new(labels, 3, hn, 2);
	const char *a[] = {"fgd", "1", "timed"};
	table_add_row(r, a, (double[]){273600, 26280000}, 0);
	struct sbuf o;
	const char *txt = render(r, "text", &o);
	assert_non_null(strstr(txt, "fgd     1     3d 4h  26,280,000\n"));
	sbuf_release(&o);
	assert_non_null(strstr(render(r, "md", &o), "| fgd | 1 | 3d 4h | 26,280,000 |"));
	sbuf_release(&o);
	assert_non_null(strstr(render(r, "csv", &o), "fgd,1,timed,273600,26280000"));
	sbuf_release(&o);
	const char *js = render(r, "json", &o);
	assert_non_null(strstr(js, "\"wait_s\": 273600"));
	assert_non_null(strstr(js, "\"usd\": 26280000"));
	sbuf_release(&o);
	table_free(r);
}

static void test_text(void **state)
{
	struct table *r = *state;
	struct sbuf b;
	table_set_mark_best(r, 1);
	table_add_note(r, "enriched: net, sto");
	const char *want = "policy  seed  mean frag  productive  n\n"
			   "                              GPU-h\n"
			   "fgd     1        0.041*       10.0   3\n"
			   "scalar  1        0.100        12.5*  3\n"
			   "random  -        0.090           -   3\n"
			   "--------------------------------------\n"
			   "all     mean     0.010        99.0   3\n"
			   "* best in its column\n"
			   "enriched: net, sto\n";
	assert_string_equal(render(r, "text", &b), want);
	sbuf_release(&b);
}

static void test_text_no_units(void **state)
{
	(void)state;
	struct table *r = table_new(labels, 1, nums, 1);
	table_add_row(r, (const char *[]){"x"}, (double[]){1}, 0);
	struct sbuf b;
	assert_string_equal(render(r, "text", &b), "policy  mean frag\n"
						   "x           1.000\n");
	sbuf_release(&b);
	table_free(r);
}

static void test_json(void **state)
{
	struct table *r = *state;
	struct sbuf b;
	table_set_mark_best(r, 1);
	table_add_note(r, "n\"ote");
	const char *s = render(r, "json", &b);
	/* seed is a number when it parses, a string otherwise; values are exact */
	assert_non_null(strstr(s, "\"policy\": \"fgd\",\n      \"seed\": 1,\n      \"mode\": "
				  "\"inflate\",\n      \"frag\": 0.0412,"));
	assert_non_null(strstr(s, "\"seed\": \"mean\""));
	assert_non_null(strstr(s, "\"seed\": null"));
	assert_non_null(strstr(s, "\"gpu_h\": null"));
	assert_non_null(strstr(s, "\"aggregate\": true"));
	assert_non_null(strstr(s, "\"best\": [\n        \"frag\"\n      ]"));
	assert_non_null(strstr(s, "\"notes\": [\n    \"n\\\"ote\"\n  ]"));
	assert_int_equal(s[0], '{');
	assert_int_equal(s[b.len - 2], '}');
	sbuf_release(&b);
}

static void test_csv(void **state)
{
	struct table *r = *state;
	struct sbuf b;
	const char *l[] = {"a,\"b\"", "2", "timed"};
	table_add_row(r, l, (double[]){-0.0, 1, 2}, 0);
	const char *s = render(r, "csv", &b);
	assert_string_equal(s, "policy,seed,mode,frag,gpu_h,n,aggregate\r\n"
			       "fgd,1,inflate,0.041,10.0,3,0\r\n"
			       "scalar,1,inflate,0.100,12.5,3,0\r\n"
			       "random,,inflate,0.090,,3,0\r\n"
			       "all,mean,inflate,0.010,99.0,3,1\r\n"
			       "\"a,\"\"b\"\"\",2,timed,0.000,1.0,2,0\r\n");
	sbuf_release(&b);
}

static void test_md(void **state)
{
	struct table *r = *state;
	struct sbuf b;
	table_set_mark_best(r, 1);
	table_add_note(r, "a_b");
	const char *s = render(r, "md", &b);
	assert_string_equal(s, "| policy | seed | mean frag | productive (GPU-h) | n |\n"
			       "| --- | --- | ---: | ---: | ---: |\n"
			       "| fgd | 1 | **0.041** | 10.0 | 3 |\n"
			       "| scalar | 1 | 0.100 | **12.5** | 3 |\n"
			       "| random | - | 0.090 | - | 3 |\n"
			       "| _all_ | _mean_ | 0.010 | 99.0 | 3 |\n"
			       "\n"
			       "a\\_b\n");
	sbuf_release(&b);
}

static void test_formats_and_free(void **state)
{
	(void)state;
	assert_null(table_format_find("xml"));
	int n = 0;
	for (const struct table_ops *const *f = table_formats; *f; f++, n++)
		assert_ptr_equal(table_format_find((*f)->name), *f);
	assert_int_equal(n, 4);
	table_free(NULL);

	/* an empty table still renders its header */
	struct table *r = table_new(labels, 1, nums, 1);
	struct sbuf b;
	assert_string_equal(render(r, "text", &b), "policy  mean frag\n");
	sbuf_release(&b);
	assert_string_equal(render(r, "json", &b), "{\n  \"rows\": [],\n  \"notes\": []\n}\n");
	sbuf_release(&b);
	table_free(r);
}

/* One table for both writers: a result table reads through the report's accessors (its
 * labels are text columns first), and a column's flags choose how a person reads a value. */
static void test_one_model(void **state)
{
	(void)state;
	static const struct table_col lab[] = {{"policy", "policy", NULL, 0, 0, 0}};
	static const struct table_col num[] = {
		{"wait_s", "wait", "", 0, TABLE_LOWER, TABLE_C_SECONDS},
		{"wait_r_s", "wait", "", 0, 0, TABLE_C_SECONDS | TABLE_C_ROUNDED},
		{"price", "price", "", 2, 0, TABLE_C_PRICE},
		{"slowdown", "slowdown", "", 4, 0, TABLE_C_PLAIN},
		{"zero", "zero", "", 0, 0, 0},
	};
	struct table *t = table_new(lab, 1, num, 5);
	const char *l[] = {"fgd"};
	const double v[] = {3599, 3599, 3.064, 1234.5, 0};
	table_add_row(t, l, v, 0);
	assert_int_equal(table_ncols(t), 6);
	assert_string_equal(table_id(t), "");
	assert_true(table_col(t, 0)->flags & TABLE_C_TEXT);
	assert_string_equal(table_cell(t, 0, 0)->s, "fgd");
	assert_true(table_cell(t, 0, 3)->v == 3.064);
	static const char *const want[] = {"fgd", "59m 59s", "1h", "$3.06", "1234.5000", "0"};
	struct sbuf b = SBUF_INIT;
	sbuf_init(&b);
	for (size_t c = 0; c < table_ncols(t); c++) {
		sbuf_reset(&b);
		table_cell_human(t, 0, c, &b);
		assert_string_equal(b.s, want[c]);
	}
	table_hide_zero(t);
	assert_true(table_shown(t, 0));
	assert_true(table_shown(t, 4));
	assert_false(table_shown(t, 5));
	table_show(t, 5, 1);
	assert_true(table_shown(t, 5));
	sbuf_release(&b);
	table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_best, setup, teardown),
		cmocka_unit_test(test_best_ties_after_rounding),
		cmocka_unit_test(test_fmt),
		cmocka_unit_test(test_human),
		cmocka_unit_test(test_one_model),
		cmocka_unit_test_setup_teardown(test_text, setup, teardown),
		cmocka_unit_test(test_text_no_units),
		cmocka_unit_test_setup_teardown(test_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_csv, setup, teardown),
		cmocka_unit_test_setup_teardown(test_md, setup, teardown),
		cmocka_unit_test(test_formats_and_free),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
