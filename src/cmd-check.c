/* cmd-check.c — 'voidfit check' (not yet written). */
#include "cmd.h"

static int exec_check(int argc, char **argv);

const struct cmd_entry cmd_check_entry = {
	.name = "check",
	.usage = "",
	.summary = "(not yet written)",
	.help = "",
	.exec = exec_check,
};

static int exec_check(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cmd_fail(&cmd_check_entry, "not yet written");
}
