/* test-util.c — the number parsers every module reads numbers with: plain decimals only
 * (no blanks, no hex, no inf or nan), overflow refused, and the whole uint64 range for
 * seeds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "util.h"

/* Strings no parser takes: what strtod and strtoll would also read. */
static const char *const not_numbers[] = {
	"",     " 12", "\t12", "\n12",     "12 ", "0x10", "0X1F", "0x1p3", "1p3", "inf",
	"-inf", "nan", "NAN",  "infinity", "1,5", "12a",  "e5",   "-",     "+",   "1e",
};

static void test_i64(void **state)
{
	(void)state;
	int64_t v = 7;
	assert_int_equal(parse_i64("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(parse_i64("-42", &v), 0);
	assert_int_equal(v, -42);
	assert_int_equal(parse_i64("+42", &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(parse_i64("007", &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(parse_i64("9223372036854775807", &v), 0);
	assert_true(v == INT64_MAX);
	assert_int_equal(parse_i64("-9223372036854775808", &v), 0);
	assert_true(v == INT64_MIN);
	v = 7;
	assert_int_equal(parse_i64("9223372036854775808", &v), -1);
	assert_int_equal(parse_i64("1.5", &v), -1);
	assert_int_equal(parse_i64(".5", &v), -1);
	assert_int_equal(parse_i64("1e3", &v), -1);
	assert_int_equal(parse_i64(NULL, &v), -1);
	for (size_t i = 0; i < sizeof not_numbers / sizeof *not_numbers; i++)
		if (parse_i64(not_numbers[i], &v) != -1)
			fail_msg("parse_i64 took '%s'", not_numbers[i]);
	assert_int_equal(v, 7); /* untouched by every refusal */
}

static void test_u64(void **state)
{
	(void)state;
	uint64_t v = 7;
	assert_int_equal(parse_u64("0", &v), 0);
	assert_true(v == 0);
	assert_int_equal(parse_u64("9223372036854775808", &v), 0);
	assert_true(v == (uint64_t)1 << 63);
	assert_int_equal(parse_u64("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	v = 7;
	assert_int_equal(parse_u64("18446744073709551616", &v), -1);
	assert_int_equal(parse_u64("99999999999999999999999", &v), -1);
	assert_int_equal(parse_u64("-1", &v), -1); /* strtoull: 2^64 - 1 */
	assert_int_equal(parse_u64("+1", &v), -1);
	assert_int_equal(parse_u64("1.0", &v), -1);
	assert_int_equal(parse_u64(NULL, &v), -1);
	for (size_t i = 0; i < sizeof not_numbers / sizeof *not_numbers; i++)
		if (parse_u64(not_numbers[i], &v) != -1)
			fail_msg("parse_u64 took '%s'", not_numbers[i]);
	assert_true(v == 7);
}

static void test_double(void **state)
{
	(void)state;
	double v = 7;
	assert_int_equal(parse_double("1.5", &v), 0);
	assert_true(v == 1.5);
	assert_int_equal(parse_double("-.5", &v), 0);
	assert_true(v == -0.5);
	assert_int_equal(parse_double("5.", &v), 0);
	assert_true(v == 5);
	assert_int_equal(parse_double("1e3", &v), 0);
	assert_true(v == 1000);
	assert_int_equal(parse_double("+2.5E-1", &v), 0);
	assert_true(v == 0.25);
	v = 7;
	assert_int_equal(parse_double("1e999", &v), -1); /* overflow */
	assert_int_equal(parse_double(".", &v), -1);
	assert_int_equal(parse_double("1.2.3", &v), -1);
	assert_int_equal(parse_double("1e3e3", &v), -1);
	assert_int_equal(parse_double(NULL, &v), -1);
	for (size_t i = 0; i < sizeof not_numbers / sizeof *not_numbers; i++)
		if (parse_double(not_numbers[i], &v) != -1)
			fail_msg("parse_double took '%s'", not_numbers[i]);
	assert_true(v == 7);
}

/* A comparator's order, also where a - b would overflow. */
static void test_cmp(void **state)
{
	(void)state;
	assert_int_equal(util_cmp_i64(INT64_MIN, INT64_MAX), -1);
	assert_int_equal(util_cmp_i64(INT64_MAX, INT64_MIN), 1);
	assert_int_equal(util_cmp_i64(-5, -5), 0);
	assert_int_equal(util_cmp_double(-1e300, 1e300), -1);
	assert_int_equal(util_cmp_double(0.5, 0.25), 1);
	assert_int_equal(util_cmp_double(2.0, 2.0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_i64),
		cmocka_unit_test(test_u64),
		cmocka_unit_test(test_double),
		cmocka_unit_test(test_cmp),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
