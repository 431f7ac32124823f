/* test-words.c — directive files: comments, blank lines, line numbers, limits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "words.h"

static void test_lines_and_comments(void **state)
{
	(void)state;
	const char *t = "# a comment\n\n  a  b\tc # tail\r\n   \nlast";
	struct words r;
	struct err e = {0};
	assert_int_equal(words_open(&r, t, strlen(t), "f", &e), 0);
	assert_int_equal(words_next(&r, &e), 1);
	assert_int_equal(r.lineno, 3);
	assert_int_equal(r.n, 3);
	assert_string_equal(r.w[0], "a");
	assert_string_equal(r.w[2], "c");
	assert_int_equal(words_next(&r, &e), 1);
	assert_int_equal(r.lineno, 5);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.w[0], "last");
	assert_int_equal(words_next(&r, &e), 0);
	assert_int_equal(words_next(&r, &e), 0);
	words_close(&r);
	words_close(NULL);
}

static void test_errors(void **state)
{
	(void)state;
	struct words r;
	struct err e = {0};
	assert_int_equal(words_open(&r, "a\0b", 3, "x.spec", &e), VF_EINPUT);
	assert_string_equal(e.msg, "x.spec: not a text file (NUL byte)");
	words_close(&r);
	char t[4 * (WORDS_MAX + 1) + 8] = "ok\n";
	for (int i = 0; i <= WORDS_MAX; i++)
		strcat(t, "w ");
	assert_int_equal(words_open(&r, t, strlen(t), "y", &e), 0);
	assert_int_equal(words_next(&r, &e), 1);
	assert_int_equal(words_next(&r, &e), -VF_EINPUT);
	assert_string_equal(e.msg, "y:2: too many words");
	words_close(&r);
	assert_int_equal(words_open(&r, "", 0, "z", &e), 0);
	assert_int_equal(words_next(&r, &e), 0);
	words_close(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_and_comments),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
