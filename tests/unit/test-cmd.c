/* test-cmd.c — the option parser every command uses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmd.h"

/* argv words are writable in C; literals are not. */
#define S(lit) ((char *)(lit))

static const struct cmd_opt opts[] = {
	{"output", 'o', 1, 0, 0, 0}, {"strict", 's', 0, 0, 0, 0}, {"quiet", 'q', 0, 0, 0, 0},
	{"format", 'F', 1, 0, 0, 0}, {NULL, 0, 0, 0, 0, 0},
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
		struct cmd_opt *eo;
		cmd_entry_opts(ce, &eo);
		for (const struct cmd_opt *o = eo; o->name; o++) {
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
		free(eo);
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

/* ---- cmd_run: a command as a declaration ---- */

/* Rows of cmd_options of each kind: --speed a number in [1e-3, 1e9], --threads a whole
 * number in [1, 1024], --slo read by the hook, --name kept as given. */
enum { K_NUM = CMD_K_SPEED, K_WHOLE = CMD_K_THREADS, K_HOOK = CMD_K_SLO, K_STR = CMD_K_NAME };

/* What the test command saw (a test's own record; the commands keep theirs in ctx->u). */
static struct {
	char hooked[16]; /* the hook's values, in the order it was called */
	int checked, ran;
	double num, whole;
	const char *str;
	unsigned nhook;
} seen;

static int run_hook(struct cmd_ctx *ctx, int key, const char *arg)
{
	assert_int_equal(key, K_HOOK);
	strncat(seen.hooked, arg, sizeof seen.hooked - strlen(seen.hooked) - 1);
	return strcmp(arg, "bad") ? CMD_OK : cmd_usage_error(ctx->ce, "--hook bad");
}

static int run_check(struct cmd_ctx *ctx)
{
	(void)ctx;
	seen.checked++;
	return CMD_OK;
}

static int run_exec(struct cmd_ctx *ctx)
{
	seen.ran++;
	seen.num = cmd_num(ctx, K_NUM, -1);
	seen.whole = cmd_num(ctx, K_WHOLE, -1);
	seen.str = cmd_arg(ctx, K_STR);
	seen.nhook = cmd_has(ctx, K_HOOK);
	return CMD_OK;
}

static const struct cmd_entry run_entry = {
	.name = "t",
	.usage = "OP",
	.opts = CMD_USES({CMD_O_SPEED, NULL, "x"}, {CMD_O_THREADS, NULL, "x"},
			 {CMD_O_SLO | CMD_OPT_BY_HOOK, NULL, "x"}, {CMD_O_NAME, NULL, "x"}),
	.operand = "OP",
	.opt = run_hook,
	.check = run_check,
	.exec = run_exec,
};

static int run(const struct cmd_entry *ce, int argc, char **argv)
{
	memset(&seen, 0, sizeof seen);
	return cmd_run(ce, argc, argv);
}

static void test_run_reads_declared_kinds(void **state)
{
	(void)state;
	char *a[] = {S("t"), S("--speed"),   S("2.5"), S("--slo"),  S("a"), S("op"), S("--slo"),
		     S("b"), S("--threads"), S("3"),   S("--name"), S("x"), NULL};
	assert_int_equal(run(&run_entry, 12, a), CMD_OK);
	assert_int_equal(seen.ran, 1);
	assert_true(seen.num == 2.5);
	assert_true(seen.whole == 3);
	assert_string_equal(seen.str, "x");
	assert_string_equal(seen.hooked, "ab");
	assert_int_equal(seen.nhook, 2);
	char *d[] = {S("t"), S("op"), NULL}; /* nothing given: the defaults */
	assert_int_equal(run(&run_entry, 2, d), CMD_OK);
	assert_true(seen.num == -1 && seen.whole == -1 && !seen.str && !seen.nhook);
}

/* The first bad option is the error, in argv order: what follows it is not read, and
 * neither check nor exec runs. */
static void test_run_stops_at_first_bad_option(void **state)
{
	(void)state;
	char *a[] = {S("t"), S("--speed"), S("2e9"), S("--slo"), S("a"), S("op"), NULL};
	assert_int_equal(run(&run_entry, 6, a), CMD_USAGE);
	assert_string_equal(seen.hooked, "");
	char *b[] = {S("t"), S("--slo"), S("bad"), S("--slo"), S("c"), S("op"), NULL};
	assert_int_equal(run(&run_entry, 6, b), CMD_USAGE);
	assert_string_equal(seen.hooked, "bad");
	char *c[] = {S("t"), S("--threads"), S("1.5"), S("op"), NULL};
	assert_int_equal(run(&run_entry, 4, c), CMD_USAGE);
	char *d[] = {S("t"), S("--nope"), S("op"), NULL};
	assert_int_equal(run(&run_entry, 3, d), CMD_USAGE);
	assert_int_equal(seen.checked + seen.ran, 0);
}

static void test_run_checks_operands(void **state)
{
	(void)state;
	char *none[] = {S("t"), NULL}, *two[] = {S("t"), S("a"), S("b"), NULL};
	assert_int_equal(run(&run_entry, 1, none), CMD_USAGE);
	assert_int_equal(run(&run_entry, 3, two), CMD_USAGE);
	assert_int_equal(seen.checked + seen.ran, 0);
	struct cmd_entry bare = run_entry;
	bare.operand = NULL;
	bare.no_operand = 1;
	assert_int_equal(run(&bare, 3, two), CMD_USAGE);
	assert_int_equal(run(&bare, 1, none), CMD_OK);
	assert_int_equal(seen.checked, 1);
	assert_int_equal(seen.ran, 1);
}

/* Runs of set flags print joined, as sbatch --array takes them; a lone one alone. */
static void test_print_ranges(void **state)
{
	(void)state;
	const unsigned char in[] = {0, 0, 1, 0, 1, 1, 1, 1, 1, 0, 1};
	char buf[64] = "";
	FILE *f = tmpfile();
	assert_non_null(f);
	cmd_print_ranges(f, in, sizeof in);
	rewind(f);
	assert_non_null(fgets(buf, sizeof buf, f));
	assert_string_equal(buf, "3,5-9,11");
	fclose(f);
}

/* The help of an entry as cmd_print_help writes it. */
static char *help_of(const struct cmd_entry *ce)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	assert_non_null(f);
	cmd_print_help(ce, f);
	fclose(f);
	return buf;
}

/* -h is assembled from the entry's options: the registry's short option, name and value,
 * padded to the layout's column (a label too long for it on a line of its own), each line
 * of the meaning at that column; a meaning every command shares comes from the registry,
 * a scenario option's from its own lines, and an alias has none. */
static void test_help_from_options(void **state)
{
	(void)state;
	const struct cmd_entry ce = {
		.name = "t",
		.usage = "STORE",
		.summary = "a test",
		.opts = CMD_USES({CMD_O_POLICY, NULL, "which\npolicies"},
				 {CMD_O_POLICIES, NULL, ""}, {CMD_O_OUTPUT, "DIR", "where"},
				 {CMD_O_TRACE, "-T", "whole label"},
				 {CMD_O_TOKENS, NULL, "too long a label"}, {CMD_O_JSON, NULL, NULL},
				 {CMD_O_SC(TRACE), NULL, NULL}, {CMD_O_SC(MODE), NULL, "own"}),
		.help = "More.\n",
	};
	char *got = help_of(&ce);
	assert_string_equal(
		got,
		"usage: voidfit t STORE\n\na test\n\n"
		"  -p, --policy P[,P...]  which\n"
		"                         policies\n"
		"  -o, --output DIR       where\n"
		"  -T                     whole label\n"
		"      --tokens-per-gpu-hour N\n"
		"                         too long a label\n"
		"      --json             print JSON (same as --format json)\n"
		"      --trace T          trace of the store, by name or id (default: the newest)\n"
		"  -m, --mode M           own\n"
		"\nMore.\n");
	free(got);

	const struct cmd_entry flush = {
		.name = "f",
		.usage = "[-q] [--wait SECONDS]",
		.opts = CMD_USES({CMD_O_QUIET, NULL, "quiet"}, {CMD_O_WAIT, NULL, NULL}),
		.layout = {17, 1},
		.scenario = 1,
	};
	got = help_of(&flush);
	assert_string_equal(got, "usage: voidfit f [-q] [--wait SECONDS]\n\n"
				 "  -q, --quiet    quiet\n"
				 "  --wait SECONDS how long to wait for a store another voidfit is "
				 "writing\n"
				 "                 (default 60; 0: fail at once)\n"
				 "\n" SCENARIO_HELP);
	free(got);
}

/* Every option of every command has its line of -h, its own or the registry's (cmd.c
 * asserts it as it prints). */
static void test_every_option_has_help(void **state)
{
	(void)state;
	int bad = 0;
	for (const struct cmd_entry *const *c = cmd_table; *c; c++)
		for (const struct cmd_use *u = (*c)->opts; u && u->row >= 0; u++) {
			int row = u->row & ~CMD_OPT_BY_HOOK;
			if (!u->help && row < CMD_NOPT && !cmd_option_help[row]) {
				print_error("%s --%s: no help\n", (*c)->name,
					    cmd_options[row].name);
				bad++;
			}
		}
	assert_int_equal(bad, 0);
}

/* A bar's time: what was taken, and from 1 % done and 3 s on what is left at the same pace
 * (worked out by hand: 90 s for a quarter leaves 270 s). */
static void test_bar_time(void **state)
{
	(void)state;
	char b[80];
	assert_string_equal(cmd_bar_time(90, 0.25, b, sizeof b), "1m 30s, about 4m 30s left");
	assert_string_equal(cmd_bar_time(7200, 0.4, b, sizeof b), "2h, about 3h left");
	assert_string_equal(cmd_bar_time(1, 0.5, b, sizeof b), "1s");        /* too soon */
	assert_string_equal(cmd_bar_time(90, 0.005, b, sizeof b), "1m 30s"); /* too little done */
	assert_string_equal(cmd_bar_time(10, 1, b, sizeof b), "10s");        /* done */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mixed_operands_and_options),
		cmocka_unit_test(test_attached_and_separate_arguments),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_print_ranges),
		cmocka_unit_test(test_double_dash_ends_options),
		cmocka_unit_test(test_short_options_mean_one_thing),
		cmocka_unit_test(test_why),
		cmocka_unit_test(test_run_reads_declared_kinds),
		cmocka_unit_test(test_run_stops_at_first_bad_option),
		cmocka_unit_test(test_run_checks_operands),
		cmocka_unit_test(test_help_from_options),
		cmocka_unit_test(test_every_option_has_help),
		cmocka_unit_test(test_bar_time),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
