/*
 * main.c — voidfit's entry point: find the subcommand in cmd_table and run it.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

static void usage(FILE *f)
{
	fputs("usage: voidfit [-h | --version] COMMAND [ARG...]\n\n"
	      "Replay GPU cluster job traces under placement policies and price the waste.\n\n"
	      "commands:\n",
	      f);
	for (const struct cmd_entry *const *c = cmd_table; *c; c++)
		fprintf(f, "  %-10s %s\n", (*c)->name, (*c)->summary);
	fputs("\n'voidfit COMMAND -h' or 'voidfit help COMMAND' describes a command;\n"
	      "man voidfit has them all.\n",
	      f);
}

static const struct cmd_entry *find_cmd(const char *name)
{
	for (const struct cmd_entry *const *c = cmd_table; *c; c++)
		if (!strcmp((*c)->name, name))
			return *c;
	return NULL;
}

/* A usage error of voidfit itself: one line, and where to read more. */
static int usage_error(const char *what, const char *word)
{
	fprintf(stderr, "voidfit: '%s': %s\nsee 'voidfit -h'\n", word, what);
	return CMD_USAGE;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return CMD_USAGE;
	}
	const char *w = argv[1];
	if (!strcmp(w, "help") && argc > 2) { /* 'voidfit help CMD' is 'voidfit CMD -h' */
		const struct cmd_entry *ce = find_cmd(argv[2]);
		if (!ce)
			return usage_error("not a command", argv[2]);
		if (argc > 3)
			return usage_error("unexpected operand", argv[3]);
		cmd_print_help(ce, stdout);
		return CMD_OK;
	}
	if (!strcmp(w, "-h") || !strcmp(w, "--help") || !strcmp(w, "help")) {
		usage(stdout);
		return CMD_OK;
	}
	if (!strcmp(w, "--version") || !strcmp(w, "-V")) {
		printf("voidfit %s\n", VOIDFIT_VERSION);
		return CMD_OK;
	}
	if (w[0] == '-')
		return usage_error("unknown option", w);
	const struct cmd_entry *ce = find_cmd(w);
	if (!ce)
		return usage_error("not a command", w);
	if (cmd_wants_help(argc - 1, argv + 1)) {
		cmd_print_help(ce, stdout);
		return CMD_OK;
	}
	return cmd_run(ce, argc - 1, argv + 1);
}
