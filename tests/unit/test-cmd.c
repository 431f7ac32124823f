/* test-cmd.c — the option parser every command uses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cmd.h"

/* argv words are writable in C; literals are not. */
#define S(lit) ((char *)(lit))

static const struct cmd_opt opts[] = {
	{"output", 'o', 1}, {"strict", 's', 0}, {"quiet", 'q', 0}, {"format", 'F', 1}, {NULL, 0, 0},
};

static void test_mixed_operands_and_options(void **state)
{
	(void)state;
	char *argv[] = {S("import"),   S("a.csv"),          S("-o"),  S("x.db"), S("b.csv"),
			S("--strict"), S("--format=openb"), S("-qs"), S("-"),    NULL};
	struct cmd_parser p;
	cmd_parser_init(&p, 9, argv);
	assert_int_equal(cmd_getopt(&p, opts), 'o');
	assert_string_equal(p.arg, "x.db");
	assert_int_equal(cmd_getopt(&p, opts), 's');
	assert_int_equal(cmd_getopt(&p, opts), 'F');
	assert_string_equal(p.arg, "openb");
	assert_int_equal(cmd_getopt(&p, opts), 'q');
	assert_int_equal(cmd_getopt(&p, opts), 's');
	assert_int_equal(cmd_getopt(&p, opts), -1);
	assert_int_equal(p.nops, 3);
	assert_string_equal(p.operands[0], "a.csv");
	assert_string_equal(p.operands[1], "b.csv");
	assert_string_equal(p.operands[2], "-");
	cmd_parser_release(&p);
}

static void test_attached_and_separate_arguments(void **state)
{
	(void)state;
	char *argv[] = {S("x"), S("-ofile"), S("--format"), S("dlrm"), NULL};
	struct cmd_parser p;
	cmd_parser_init(&p, 4, argv);
	assert_int_equal(cmd_getopt(&p, opts), 'o');
	assert_string_equal(p.arg, "file");
	assert_int_equal(cmd_getopt(&p, opts), 'F');
	assert_string_equal(p.arg, "dlrm");
	assert_int_equal(cmd_getopt(&p, opts), -1);
	assert_int_equal(p.nops, 0);
	cmd_parser_release(&p);
}

static void test_errors(void **state)
{
	(void)state;
	char *a1[] = {S("x"), S("--nope"), NULL};
	char *a2[] = {S("x"), S("-z"), NULL};
	char *a3[] = {S("x"), S("--output"), NULL};
	char *a4[] = {S("x"), S("--strict=yes"), NULL};
	struct cmd_parser p;
	cmd_parser_init(&p, 2, a1);
	assert_int_equal(cmd_getopt(&p, opts), '?');
	assert_string_equal(p.bad, "--nope");
	cmd_parser_release(&p);
	cmd_parser_init(&p, 2, a2);
	assert_int_equal(cmd_getopt(&p, opts), '?');
	assert_string_equal(p.bad, "-z");
	cmd_parser_release(&p);
	cmd_parser_init(&p, 2, a3);
	assert_int_equal(cmd_getopt(&p, opts), '?');
	cmd_parser_release(&p);
	cmd_parser_init(&p, 2, a4);
	assert_int_equal(cmd_getopt(&p, opts), '?');
	cmd_parser_release(&p);
}

static void test_double_dash_ends_options(void **state)
{
	(void)state;
	char *argv[] = {S("x"), S("-q"), S("--"), S("-o"), S("--strict"), NULL};
	struct cmd_parser p;
	cmd_parser_init(&p, 5, argv);
	assert_int_equal(cmd_getopt(&p, opts), 'q');
	assert_int_equal(cmd_getopt(&p, opts), -1);
	assert_int_equal(p.nops, 2);
	assert_string_equal(p.operands[0], "-o");
	assert_string_equal(p.operands[1], "--strict");
	cmd_parser_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mixed_operands_and_options),
		cmocka_unit_test(test_attached_and_separate_arguments),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_double_dash_ends_options),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
