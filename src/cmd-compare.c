/* cmd-compare.c — 'voidfit compare' (not yet written). */
#include "cmd.h"

static int exec_compare(int argc, char **argv);

const struct cmd_entry cmd_compare_entry = {
	.name = "compare",
	.usage = "",
	.summary = "(not yet written)",
	.help = "",
	.exec = exec_compare,
};

static int exec_compare(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cmd_fail(&cmd_compare_entry, "not yet written");
}
