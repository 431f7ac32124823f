/* test-fmt.c — figures for a person (fmt.h): each duration style, thousands, dollars,
 * prices and shares, and that none prints a negative zero. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "fmt.h"

struct dur_case {
	double s;
	const char *want;
};

static void check_durations(enum fmt_dur st, const struct dur_case *t, size_t n)
{
	char b[64];
	for (size_t i = 0; i < n; i++)
		if (strcmp(fmt_duration(t[i].s, st, b, sizeof b), t[i].want))
			fail_msg("style %d, %g s: '%s', wanted '%s'", (int)st, t[i].s, b,
				 t[i].want);
	assert_string_equal(fmt_duration(NAN, st, b, sizeof b), "-");
}

/* The result tables' style: the pair chosen on the finer rounding, days grouped by three. */
static void test_units(void **state)
{
	(void)state;
	static const struct dur_case t[] = {
		{0, "0s"},
		{0.04, "0s"},
		{0.2, "0.2s"},
		{9.94, "9.9s"},
		{9.96, "10s"},
		{42, "42s"},
		{59.6, "1m"},
		{920, "15m 20s"},
		{3599, "59m 59s"},
		{3599.6, "1h"},
		{3600 + 300, "1h 5m"},
		{2 * 3600, "2h"},
		{86399, "1d"},
		{3 * 86400 + 4 * 3600 + 1700, "3d 4h"},
		{1002 * 86400.0 + 3 * 3600, "1,002d 3h"},
		{-920, "-15m 20s"},
		{-0.01, "0s"},
		{INFINITY, "inf"},
	};
	check_durations(FMT_DUR_UNITS, t, sizeof t / sizeof *t);
}

/* The report's style: the pair chosen after rounding to its smaller unit, zero as "0". */
static void test_rounded(void **state)
{
	(void)state;
	static const struct dur_case t[] = {
		{0, "0"},        {40, "40s"},        {90, "1m 30s"},    {3600, "1h"},
		{7500, "2h 5m"}, {86400, "1d"},      {273600, "3d 4h"}, {-90, "-1m 30s"},
		{0.25, "0.2s"},  {123700, "1d 10h"}, {59.6, "1m"},      {86399, "1d"},
		{3599, "1h"},    {3540, "59m"},      {2.5, "3s"},       {1002 * 86400.0, "1002d"},
	};
	check_durations(FMT_DUR_ROUNDED, t, sizeof t / sizeof *t);
}

/* One unit with one decimal: size's reasons and verdict's sentences. */
static void test_one_unit(void **state)
{
	(void)state;
	static const struct dur_case dec[] = {
		{42, "42s"},    {59.4, "59s"},   {60, "1.0m"},     {1032, "17.2m"},
		{9000, "2.5h"}, {86400, "1.0d"}, {129600, "1.5d"},
	};
	static const struct dur_case words[] = {
		{45, "45 s"},      {119, "119 s"},  {120, "2 min"},   {720, "12 min"},
		{750, "12.5 min"}, {7200, "2.0 h"}, {11520, "3.2 h"},
	};
	static const struct dur_case screen[] = {
		{45, "45s"},    {119.6, "120s"}, {120, "2m"},      {7199, "120m"},
		{7200, "2.0h"}, {11520, "3.2h"}, {172800, "2.0d"}, {388800, "4.5d"},
	};
	check_durations(FMT_DUR_DECIMAL, dec, sizeof dec / sizeof *dec);
	check_durations(FMT_DUR_WORDS, words, sizeof words / sizeof *words);
	static const struct dur_case clock[] = {
		{0, "0d00:00:00"},
		{3 * 86400 + 4 * 3600 + 5 * 60 + 6, "3d04:05:06"},
		{-90, "-0d00:01:30"},
		{400 * 86400.0 + 59, "400d00:00:59"},
	};
	check_durations(FMT_DUR_SCREEN, screen, sizeof screen / sizeof *screen);
	check_durations(FMT_DUR_CLOCK, clock, sizeof clock / sizeof *clock);
}

static void test_thousands(void **state)
{
	char b[64];
	(void)state;
	assert_string_equal(fmt_thousands(1234567, 0, b, sizeof b), "1,234,567");
	assert_string_equal(fmt_thousands(-1234567.25, 1, b, sizeof b), "-1,234,567.2");
	assert_string_equal(fmt_thousands(999, 0, b, sizeof b), "999");
	assert_string_equal(fmt_thousands(-0.2, 0, b, sizeof b), "0");
	assert_string_equal(fmt_thousands(100000, 0, b, sizeof b), "100,000");
	assert_string_equal(fmt_thousands(13195.26, 1, b, sizeof b), "13,195.3");
	assert_string_equal(fmt_thousands(NAN, 1, b, sizeof b), "-");
	assert_string_equal(fmt_fixed(-0.004, 2, b, sizeof b), "0.00");
	assert_string_equal(fmt_fixed(0.1305, 4, b, sizeof b), "0.1305");
	/* a short buffer is cut, never overrun */
	char s[6];
	assert_string_equal(fmt_thousands(1234567, 0, s, sizeof s), "1,234");
}

static void test_money(void **state)
{
	char b[64];
	(void)state;
	assert_string_equal(fmt_usd(1234567.4, b, sizeof b), "$1,234,567");
	assert_string_equal(fmt_usd(999.5, b, sizeof b), "$1,000");
	assert_string_equal(fmt_usd(-12, b, sizeof b), "-$12");
	assert_string_equal(fmt_usd(-0.3, b, sizeof b), "$0"); /* no "-$0" */
	assert_string_equal(fmt_usd(123, b, sizeof b), "$123");
	assert_string_equal(fmt_usd(26280000, b, sizeof b), "$26,280,000");
	assert_string_equal(fmt_usd(NAN, b, sizeof b), "-");
	assert_string_equal(fmt_price(3.064, b, sizeof b), "$3.06");
	assert_string_equal(fmt_price(-0.5, b, sizeof b), "-$0.50");
	assert_string_equal(fmt_share(0.1234, b, sizeof b), "12.3 %");
	assert_string_equal(fmt_share(-0.0, b, sizeof b), "0.0 %");
	assert_string_equal(fmt_share(NAN, b, sizeof b), "-");
	/* in short: a chart's ticks, the dashboard, the verdict's sentences */
	assert_string_equal(fmt_usd_short(1.5e6, FMT_USD_AXIS, b, sizeof b), "$1.5M");
	assert_string_equal(fmt_usd_short(-2e6, FMT_USD_AXIS, b, sizeof b), "$-2M");
	assert_string_equal(fmt_usd_short(250e3, FMT_USD_AXIS, b, sizeof b), "$250k");
	assert_string_equal(fmt_usd_short(3e9, FMT_USD_AXIS, b, sizeof b), "$3B");
	assert_string_equal(fmt_usd_short(40, FMT_USD_AXIS, b, sizeof b), "$40");
	assert_string_equal(fmt_usd_short(1.6e6, FMT_USD_SCREEN, b, sizeof b), "$1.60M");
	assert_string_equal(fmt_usd_short(-12.5e3, FMT_USD_SCREEN, b, sizeof b), "-$12.5k");
	assert_string_equal(fmt_usd_short(2e9, FMT_USD_SCREEN, b, sizeof b), "$2.00B");
	assert_string_equal(fmt_usd_short(40.4, FMT_USD_SCREEN, b, sizeof b), "$40");
	assert_string_equal(fmt_usd_short(1.62e6, FMT_USD_WORDS, b, sizeof b), "$1.6 M");
	assert_string_equal(fmt_usd_short(-250e3, FMT_USD_WORDS, b, sizeof b), "$250 k");
	assert_string_equal(fmt_usd_short(2e9, FMT_USD_WORDS, b, sizeof b), "$2000.0 M");
	assert_string_equal(fmt_usd_short(40, FMT_USD_WORDS, b, sizeof b), "$40");
	assert_string_equal(fmt_usd_range(1.6e6, 2.54e6, b, sizeof b), "$1.6-2.5 M");
	assert_string_equal(fmt_usd_range(-3e5, 2.5e6, b, sizeof b), "$-0.3 M to $2.5 M");
	assert_string_equal(fmt_usd_range(12e3, 950e3, b, sizeof b), "$12-950 k");
	assert_string_equal(fmt_usd_range(40, 950, b, sizeof b), "$40-950");
	assert_string_equal(fmt_usd_range(-10, 2.5e6, b, sizeof b), "$0.0 M to $2.5 M");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units),    cmocka_unit_test(test_rounded),
		cmocka_unit_test(test_one_unit), cmocka_unit_test(test_thousands),
		cmocka_unit_test(test_money),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
