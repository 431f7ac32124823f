/*
 * main.c — voidfit's entry point: find the subcommand in cmd_table and run it.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

extern const struct cmd_entry cmd_import_entry, cmd_info_entry, cmd_export_entry, cmd_check_entry,
	cmd_gen_entry, cmd_replay_entry, cmd_compare_entry, cmd_policies_entry;
extern const struct cmd_entry cmd_report_entry;

const struct cmd_entry *const cmd_table[] = {
	&cmd_import_entry,  &cmd_info_entry,
	&cmd_export_entry,  &cmd_check_entry,
	&cmd_gen_entry,     &cmd_replay_entry,
	&cmd_compare_entry, &cmd_policies_entry,
	&cmd_report_entry,  NULL,
};

static void usage(FILE *f)
{
	fputs("usage: voidfit [-h | --version] COMMAND [ARG...]\n\n"
	      "Replay GPU cluster job traces under placement policies and price the waste.\n\n"
	      "commands:\n",
	      f);
	for (const struct cmd_entry *const *c = cmd_table; *c; c++)
		fprintf(f, "  %-10s %s\n", (*c)->name, (*c)->summary);
	fputs("\n'voidfit COMMAND -h' describes a command; man voidfit has them all.\n", f);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return CMD_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return CMD_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("voidfit %s\n", VOIDFIT_VERSION);
		return CMD_OK;
	}
	for (const struct cmd_entry *const *c = cmd_table; *c; c++) {
		if (strcmp((*c)->name, argv[1]))
			continue;
		if (cmd_wants_help(argc - 1, argv + 1)) {
			cmd_print_help(*c, stdout);
			return CMD_OK;
		}
		return (*c)->exec(argc - 1, argv + 1);
	}
	fprintf(stderr, "voidfit: '%s' is not a command (see 'voidfit -h')\n", argv[1]);
	return CMD_USAGE;
}
