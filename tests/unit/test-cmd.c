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

/* The short options, as cmd.h lists them: a printable key means this long option (or its
 * alias) in every command that has it. */
static const struct {
	int key;
	const char *name, *alias;
} shorts[] = {
	{'C', "cluster", NULL},      {'d', "dir", NULL},      {'F', "format", NULL},
	{'f', "format", NULL},       {'j', "jobs", NULL},     {'m', "mode", NULL},
	{'N', "nodes", NULL},        {'n', "no-store", NULL}, {'o', "output", NULL},
	{'p', "policy", "policies"}, {'q', "quiet", NULL},    {'s', "seed", NULL},
	{'t', "target", NULL},
};

static void test_short_options_mean_one_thing(void **state)
{
	(void)state;
	int ncmds = 0, nshort = 0, bad = 0;
	for (const struct cmd_entry *const *c = cmd_table; *c; c++, ncmds++) {
		const struct cmd_entry *ce = *c;
		if (!ce->opts) {
			print_error("%s: no option table in its cmd_entry\n", ce->name);
			bad++;
			continue;
		}
		for (const struct cmd_opt *o = ce->opts; o->name; o++) {
			if (o->key >= CMD_LONG_ONLY)
				continue;
			if (o->key < 0x21 || o->key > 0x7e || o->key == '?' || o->key == '-') {
				print_error("%s --%s: key %d is neither a short option nor long "
					    "only (>= CMD_LONG_ONLY)\n",
					    ce->name, o->name, o->key);
				bad++;
				continue;
			}
			size_t i = 0, n = sizeof shorts / sizeof *shorts;
			while (i < n && shorts[i].key != o->key)
				i++;
			if (i == n) {
				print_error("%s: -%c (--%s) is not one of the short options in "
					    "cmd.h\n",
					    ce->name, o->key, o->name);
				bad++;
			} else if (strcmp(o->name, shorts[i].name) &&
				   (!shorts[i].alias || strcmp(o->name, shorts[i].alias))) {
				print_error("%s: -%c is --%s, but -%c means --%s everywhere\n",
					    ce->name, o->key, o->name, o->key, shorts[i].name);
				bad++;
			}
			nshort++;
		}
	}
	assert_int_equal(bad, 0);
	assert_true(ncmds >= 8);
	assert_true(nshort >= 10); /* the walk saw the tables */
}

/* A wrong option is named in the error with what is wrong with it. */
static void test_why(void **state)
{
	(void)state;
	char *a1[] = {S("x"), S("-z"), NULL};
	char *a2[] = {S("x"), S("-qo"), NULL};
	char *a3[] = {S("x"), S("--output"), NULL};
	char *a4[] = {S("x"), S("--strict=yes"), NULL};
	char *a5[] = {S("x"), S("--nope=1"), NULL};
	struct {
		char **argv;
		const char *bad, *why;
	} cases[] = {
		{a1, "-z", "unknown option"},          {a2, "-o", "needs an argument"},
		{a3, "--output", "needs an argument"}, {a4, "--strict=yes", "takes no argument"},
		{a5, "--nope=1", "unknown option"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct cmd_parser p;
		cmd_parser_init(&p, 2, cases[i].argv);
		int c;
		while ((c = cmd_getopt(&p, opts)) != '?')
			assert_int_not_equal(c, -1);
		assert_string_equal(p.bad, cases[i].bad);
		assert_string_equal(p.why, cases[i].why);
		cmd_parser_release(&p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mixed_operands_and_options),
		cmocka_unit_test(test_attached_and_separate_arguments),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_double_dash_ends_options),
		cmocka_unit_test(test_short_options_mean_one_thing),
		cmocka_unit_test(test_why),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
