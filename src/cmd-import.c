/* cmd-import.c — 'voidfit import' (not yet written). */
#include "cmd.h"

static int exec_import(int argc, char **argv);

const struct cmd_entry cmd_import_entry = {
	.name = "import",
	.usage = "",
	.summary = "(not yet written)",
	.help = "",
	.exec = exec_import,
};

static int exec_import(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cmd_fail(&cmd_import_entry, "not yet written");
}
