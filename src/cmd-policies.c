/* cmd-policies.c — 'voidfit policies' (not yet written). */
#include "cmd.h"

static int exec_policies(int argc, char **argv);

const struct cmd_entry cmd_policies_entry = {
	.name = "policies",
	.usage = "",
	.summary = "(not yet written)",
	.help = "",
	.exec = exec_policies,
};

static int exec_policies(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cmd_fail(&cmd_policies_entry, "not yet written");
}
