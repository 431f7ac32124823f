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

const struct cmd_entry cmd_check_entry = {
	.name = "check",
	.usage = "[-q] [--wait SECONDS] STORE",
	.summary = "verify a store: integrity, checksums, files, row counts",
	.help = "  -q, --quiet     print only the problems and the closing line\n"
		"  --wait SECONDS  how long to wait for a store another voidfit is writing\n"
		"                  (default 60; 0: fail at once)\n",
	.exec = exec_check,
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

enum { OPT_WAIT = 256 };

static void say_waiting(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "voidfit check: %s\n", msg);
}

static int exec_check(int argc, char **argv)
{
	static const struct cmd_opt opts[] = {
		{"quiet", 'q', 0}, {"wait", OPT_WAIT, 1}, {NULL, 0, 0}};
	struct cmd_parser p;
	struct reporter r = {0};
	struct store_wait w = {STORE_WAIT_DEFAULT, say_waiting, NULL};
	int c, rc = CMD_OK;
	cmd_parser_init(&p, argc, argv);
	while ((c = cmd_getopt(&p, opts)) != -1) {
		if (c == 'q') {
			r.quiet = 1;
		} else if (c == OPT_WAIT) {
			if ((rc = cmd_num_opt(&cmd_check_entry, "wait", p.arg, 0, 0, &w.seconds)))
				goto out;
		} else {
			rc = cmd_usage_error(&cmd_check_entry, "unknown option '%s'", p.bad);
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
	if (store_open_wait(p.operands[0], STORE_RDONLY, &w, &s, &e) ||
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
