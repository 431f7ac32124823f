/* test-util.c — the number parsers every module reads numbers with: plain decimals only
 * (no blanks, no hex, no inf or nan), overflow refused, and the whole uint64 range for
 * seeds; FREE_ALL, the releases' list of what a struct owns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

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

/* Bytes of the heap in use, or 0 where they cannot be asked (not glibc). */
static size_t heap_in_use(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
	return mallinfo2().uordblks;
#else
	return 0;
#endif
}

/* FREE_ALL frees every pointer it lists, the struct that holds the others among them, and
 * passes a NULL one by: the heap's bytes in use are back where they were. Every block is
 * above glibc's per-thread cache (1 KiB), which would keep a small one counted in use.
 * (Under ASan the heap is the sanitizer's and mallinfo2 sees no change at all; its leak
 * check at exit tells instead.) */
static void test_free_all(void **state)
{
	(void)state;
	struct owner {
		char *a, *none, *b;
		char name[2000];
	};
	size_t before = heap_in_use();
	struct owner *o = xmalloc(sizeof *o);
	o->a = xmalloc(4000);
	o->none = NULL;
	o->b = xmalloc(4000);
	size_t during = heap_in_use();
	assert_true(during == before || during >= before + 10000);
	FREE_ALL(o->a, o->none, o->b, o);
	assert_int_equal(heap_in_use(), before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_i64),      cmocka_unit_test(test_u64),
		cmocka_unit_test(test_double),   cmocka_unit_test(test_cmp),
		cmocka_unit_test(test_free_all),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
