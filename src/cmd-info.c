/* cmd-info.c — 'voidfit info' (not yet written). */
#include "cmd.h"

static int exec_info(int argc, char **argv);

const struct cmd_entry cmd_info_entry = {
	.name = "info",
	.usage = "",
	.summary = "(not yet written)",
	.help = "",
	.exec = exec_info,
};

static int exec_info(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cmd_fail(&cmd_info_entry, "not yet written");
}
