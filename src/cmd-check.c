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

static int exec_check(struct cmd_ctx *ctx);

const struct cmd_entry cmd_check_entry = {
	.name = "check",
	.usage = "[-q] [--json] [--wait SECONDS] STORE",
	.summary = "verify a store: integrity, checksums, files, row counts",
	.opts = CMD_USES({CMD_O_QUIET, NULL, "print only the problems and the closing line"},
			 {CMD_O_JSON, NULL,
			  "write one JSON object (keys: store, ok, problems, checks:\n"
			  "what, ok, detail)"},
			 {CMD_O_WAIT, NULL, NULL}),
	.layout = {18, 1},
	.operand = "store",
	.one_only = "one store at a time",
	.exec = exec_check, /* opens the store itself: a store that fails to open is a problem */
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
		json_key_str(r->j, "what", what);
		json_key_bool(r->j, "ok", ok);
		json_key_str(r->j, "detail", detail);
		json_end(r->j);
	} else if (!ok || !r->quiet) {
		struct sbuf e1 = SBUF_INIT, e2 = SBUF_INIT;
		printf("%s  %s%s%s\n", ok ? "ok " : "BAD", esc_text_s(&e1, what),
		       *detail ? ": " : "", esc_text_s(&e2, detail));
		sbuf_release(&e1);
		sbuf_release(&e2);
	}
}

static int exec_check(struct cmd_ctx *ctx)
{
	const char *path = ctx->p.operands[0];
	struct reporter r = {.quiet = cmd_has(ctx, 'q') > 0};
	struct store_wait w = cmd_store_wait(ctx, CMD_K_WAIT);
	int asjson = cmd_has(ctx, CMD_K_JSON) > 0, rc = CMD_OK, nbad = 0;
	struct sbuf b = {0};
	struct json j;
	struct err e = {0};
	if (asjson) {
		json_init(&j, &b, 1);
		r.j = &j;
		json_obj(&j);
		json_key_str(&j, "store", path);
		json_key(&j, "checks");
		json_arr(&j);
	}
	if (store_open_wait(path, STORE_RDONLY | STORE_CHECK, &w, &ctx->st, &e) ||
	    store_check(ctx->st, report, &r, &nbad, &e)) {
		report(&r, 0, "store", e.msg);
		nbad++;
		rc = cmd_fail(ctx->ce, "%s", e.msg);
	} else if (nbad) {
		if (!asjson)
			printf("%s: %d problem%s\n", esc_text_s(&b, path), nbad,
			       nbad == 1 ? "" : "s");
		rc = cmd_fail(ctx->ce, "%s: %d problem%s found", path, nbad, nbad == 1 ? "" : "s");
	} else if (!asjson) {
		printf("%s: no problems\n", esc_text_s(&b, path));
	}
	if (asjson) {
		json_end(&j);
		json_key_bool(&j, "ok", nbad == 0);
		json_key_int(&j, "problems", nbad);
		json_end(&j);
		fputs(b.s, stdout);
		fputc('\n', stdout);
	}
	sbuf_release(&b);
	return rc;
}
