/*
 * cmd-check.c — 'voidfit check': verify a store (SQLite integrity, application_id and
 * schema version, every block's checksum and decoding, every imported file against its
 * size and sha256, job and node counts against their traces) and print what was checked.
 * Exit 1 if anything is wrong.
 */
#include <stdio.h>

#include "cmd.h"
#include "store.h"

static int exec_check(int argc, char **argv);
extern const struct cmd_opt cmd_check_opts[]; /* below */

const struct cmd_entry cmd_check_entry = {
	.name = "check",
	.usage = "[-q] STORE",
	.summary = "verify a store: integrity, checksums, files, row counts",
	.help = "  -q, --quiet  print only the problems and the closing line\n",
	.exec = exec_check,
	.opts = cmd_check_opts,
};

struct reporter {
	int quiet;
};

static void report(void *ctx, int ok, const char *what)
{
	const struct reporter *r = ctx;
	if (!ok || !r->quiet)
		printf("%s  %s\n", ok ? "ok " : "BAD", what);
}

const struct cmd_opt cmd_check_opts[] = {{"quiet", 'q', 0}, {NULL, 0, 0}};

static int exec_check(int argc, char **argv)
{
	struct cmd_parser p;
	struct reporter r = {0};
	int c, rc = CMD_OK;
	cmd_parser_init(&p, argc, argv);
	while ((c = cmd_getopt(&p, cmd_check_opts)) != -1) {
		if (c == 'q') {
			r.quiet = 1;
		} else {
			rc = cmd_opt_error(&cmd_check_entry, &p);
			goto out;
		}
	}
	if (p.nops != 1) {
		rc = cmd_usage_error(&cmd_check_entry,
				     p.nops ? "one store at a time" : "no store given");
		goto out;
	}
	struct err e = {0};
	struct store *s = NULL;
	int nbad = 0;
	if (store_open(p.operands[0], STORE_RDONLY, &s, &e) ||
	    store_check(s, report, &r, &nbad, &e)) {
		printf("BAD  %s\n", e.msg);
		rc = cmd_fail(&cmd_check_entry, "%s", e.msg);
	} else if (nbad) {
		printf("%s: %d problem%s\n", p.operands[0], nbad, nbad == 1 ? "" : "s");
		rc = cmd_fail(&cmd_check_entry, "%s: %d problem%s found", p.operands[0], nbad,
			      nbad == 1 ? "" : "s");
	} else {
		printf("%s: no problems\n", p.operands[0]);
	}
	store_close(s);
out:
	cmd_parser_release(&p);
	return rc;
}
