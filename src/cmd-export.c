/* cmd-export.c — 'voidfit export' (not yet written). */
#include "cmd.h"

static int exec_export(int argc, char **argv);

const struct cmd_entry cmd_export_entry = {
	.name = "export",
	.usage = "",
	.summary = "(not yet written)",
	.help = "",
	.exec = exec_export,
};

static int exec_export(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cmd_fail(&cmd_export_entry, "not yet written");
}
