/* cmd-gen.c — 'voidfit gen' (not yet written). */
#include "cmd.h"

static int exec_gen(int argc, char **argv);

const struct cmd_entry cmd_gen_entry = {
	.name = "gen",
	.usage = "",
	.summary = "(not yet written)",
	.help = "",
	.exec = exec_gen,
};

static int exec_gen(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cmd_fail(&cmd_gen_entry, "not yet written");
}
