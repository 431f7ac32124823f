/*
 * cmd-check.c — 'voidfit check': verify a store (store_check says what: integrity, header,
 * schema, foreign keys, row checksums and counts, blocks, files, traces, runs) and print
 * what was checked, as text or JSON. Exit 1 if anything is wrong.
 */
#include <stdio.h>

#include "cmd.h"
#include "esc.h"
#include "json.h"
#include "sbuf.h"
#include "store.h"

static int exec_check(int argc, char **argv);
extern const struct cmd_opt cmd_check_opts[]; /* below */

const struct cmd_entry cmd_check_entry = {
	.name = "check",
	.usage = "[-q] [--json] [--wait SECONDS] STORE",
	.summary = "verify a store: integrity, checksums, files, row counts",
	.help = "  -q, --quiet     print only the problems and the closing line\n"
		"  --json          write one JSON object (keys: store, ok, problems, checks:\n"
		"                  what, ok, detail)\n"
		"  --wait SECONDS  how long to wait for a store another voidfit is writing\n"
		"                  (default 60; 0: fail at once)\n",
	.exec_argv = exec_check,
	.opts = cmd_check_opts,
};

struct reporter {
	int quiet;
	struct json *j; /* JSON output, else NULL */
};

static void report(void *ctx, int ok, const char *what, const char *detail)
{
	const struct reporter *r = ctx;
	if (r->j) {
		json_obj(r->j);
		json_key(r->j, "what");
		json_str(r->j, what);
		json_key(r->j, "ok");
		json_bool(r->j, ok);
		json_key(r->j, "detail");
		json_str(r->j, detail);
		json_end(r->j);
	} else if (!ok || !r->quiet) {
		struct sbuf e1 = SBUF_INIT, e2 = SBUF_INIT;
		printf("%s  %s%s%s\n", ok ? "ok " : "BAD", esc_text_s(&e1, what),
		       *detail ? ": " : "", esc_text_s(&e2, detail));
		sbuf_release(&e1);
		sbuf_release(&e2);
	}
}

enum { OPT_WAIT = CMD_LONG_ONLY, OPT_JSON };

static void say_waiting(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "voidfit check: %s\n", msg);
}

const struct cmd_opt cmd_check_opts[] = {
	{"quiet", 'q', 0}, {"json", OPT_JSON, 0}, {"wait", OPT_WAIT, 1}, {NULL, 0, 0}};

static int exec_check(int argc, char **argv)
{
	struct cmd_parser p;
	struct reporter r = {0};
	struct store_wait w = {STORE_WAIT_DEFAULT, say_waiting, NULL};
	struct sbuf b = {0};
	struct json j;
	int c, asjson = 0, rc = CMD_OK;
	cmd_parser_init(&p, argc, argv);
	while ((c = cmd_getopt(&p, cmd_check_opts)) != -1) {
		if (c == 'q') {
			r.quiet = 1;
		} else if (c == OPT_JSON) {
			asjson = 1;
		} else if (c == OPT_WAIT) {
			if ((rc = cmd_num_opt(&cmd_check_entry, "wait", p.arg, 0, 0, &w.seconds)))
				goto out;
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
	if (asjson) {
		json_init(&j, &b, 1);
		r.j = &j;
		json_obj(&j);
		json_key(&j, "store");
		json_str(&j, p.operands[0]);
		json_key(&j, "checks");
		json_arr(&j);
	}
	if (store_open_wait(p.operands[0], STORE_RDONLY | STORE_CHECK, &w, &s, &e) ||
	    store_check(s, report, &r, &nbad, &e)) {
		report(&r, 0, "store", e.msg);
		nbad++;
		rc = cmd_fail(&cmd_check_entry, "%s", e.msg);
	} else if (nbad) {
		if (!asjson)
			printf("%s: %d problem%s\n", esc_text_s(&b, p.operands[0]), nbad,
			       nbad == 1 ? "" : "s");
		rc = cmd_fail(&cmd_check_entry, "%s: %d problem%s found", p.operands[0], nbad,
			      nbad == 1 ? "" : "s");
	} else if (!asjson) {
		printf("%s: no problems\n", esc_text_s(&b, p.operands[0]));
	}
	if (asjson) {
		json_end(&j);
		json_key(&j, "ok");
		json_bool(&j, nbad == 0);
		json_key(&j, "problems");
		json_int(&j, nbad);
		json_end(&j);
		fputs(b.s, stdout);
		fputc('\n', stdout);
	}
	store_close(s);
out:
	sbuf_release(&b);
	cmd_parser_release(&p);
	return rc;
}
