/* cmd-replay.c — 'voidfit replay' (not yet written). */
#include "cmd.h"

static int exec_replay(int argc, char **argv);

const struct cmd_entry cmd_replay_entry = {
	.name = "replay",
	.usage = "",
	.summary = "(not yet written)",
	.help = "",
	.exec = exec_replay,
};

static int exec_replay(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cmd_fail(&cmd_replay_entry, "not yet written");
}
