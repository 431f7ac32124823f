/*
 * cmd-report.c — 'voidfit report': the cost report of one scenario's runs, as text,
 * Markdown (with its charts as SVG files beside it), one self-contained HTML file, JSON or
 * CSV, to standard output or -o FILE.
 *
 * Which runs: as compare (runrec_select). A file is written whole or not at all: each file
 * goes to a temporary name beside it and is put into place once every one is written; a
 * FIFO or a device is written through, never replaced (outfile.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "outfile.h"
#include "report.h"

/* What check works out of the options, and what exec makes. */
struct report_state {
	struct runrec_query q;         /* which runs */
	int64_t *ids;                  /* --runs */
	struct report_opts ro;         /* baseline, prices, breakeven */
	const struct report_ops *fops; /* the format */
	const char *outp;              /* -o FILE, or NULL: standard output */
	int flags;                     /* of the files written (outfile.h) */
	struct report *rep;
	struct report_output out; /* the document and its files */
	struct outfile doc;
	char *base; /* the charts' name stem, beside -o */
};

static int opt_report(struct cmd_ctx *ctx, int key, const char *arg);
CMD_DECLARE_HOOKS(report);

const struct cmd_entry cmd_report_entry = {
	.name = "report",
	.usage = "STORE [--scenario ID | --runs IDS] [--trace T] [--baseline P] "
		 "[--price-tier T] [--gpu-price MODEL=USD]... "
		 "[--api-price USD_PER_MTOK --tokens-per-gpu-hour N] "
		 "[--format text|md|html|json|csv] [-o FILE [--follow]]",
	.summary = "the cost report of one scenario: verdict, $ by bucket, charts, breakeven",
	.opts = CMD_USES(
		{CMD_O_SCENARIO, NULL, NULL}, {CMD_O_RUNS | CMD_OPT_BY_HOOK, NULL, NULL},
		{CMD_O_SC(TRACE), NULL, NULL}, {CMD_O_BASELINE, NULL, NULL},
		{CMD_O_SC(TIER), NULL, "price at on-demand (default), reserved, spot or owned"},
		{CMD_O_SC(PRICE), NULL, NULL},
		{CMD_O_API, NULL, "an API's price per million tokens, for the breakeven"},
		{CMD_O_TOKENS, NULL, "tokens a productive GPU-hour makes (with --api-price)"},
		{CMD_O_FORMAT, NULL,
		 "text, md, html, json or csv (default: from -o's\n"
		 "ending, else text); an -o ending that is not the\n"
		 "format's (.txt .md .html .json .csv) is refused"},
		{CMD_O_OUTPUT, NULL,
		 "write FILE (md: and FILE-1.svg, ... beside it) instead\n"
		 "of standard output, whole or not at all; a FIFO or a\n"
		 "device is written through (no charts), never replaced;\n"
		 "'-' is standard output"},
		{CMD_O_FOLLOW, NULL,
		 "with -o: write to what a symbolic link points to (a\n"
		 "link is refused without it)"}),
	.help = "The verdict names the policy with the largest saving of recoverable-by-placement\n"
		"$/yr against the baseline, paired by seed, with its 95 % interval. Runs are\n"
		"chosen as by compare: without --scenario or --runs, the newest scenario of the\n"
		"trace whose policies all have the same seeds.\n",
	.operand = "STORE",
	.store = CMD_STORE_READ,
	.opt = opt_report,
	CMD_HOOKS(report, report_state),
};

/* dir/name of path's directory and name. */
static char *beside(const char *path, const char *name)
{
	const char *slash = strrchr(path, '/');
	size_t d = slash ? (size_t)(slash - path) + 1 : 0;
	char *p = xmalloc(d + strlen(name) + 1);
	memcpy(p, path, d);
	strcpy(p + d, name);
	return p;
}

/* Write out's document to doc (open) and its files beside path, each opened with flags, all
 * or nothing: every file is whole (outfile_close) before the first is put in place, and the
 * document last, once its charts are there. Returns 0, or an error in e: then no file is
 * changed, unless putting one in place failed (the charts before it are new). */
static int write_all(struct outfile *doc, const char *path, int flags,
		     const struct report_output *out, struct err *e)
{
	struct outfile *of = xcalloc(out->nfiles + 1, sizeof *of);
	size_t n = out->nfiles, i;
	int rc = 0;
	of[n] = *doc; /* the document is last: it appears only when its files are in place */
	memset(doc, 0, sizeof *doc);
	for (i = 0; i < n && !rc; i++) {
		char *p = beside(path, out->files[i].name);
		rc = outfile_open(&of[i], p, flags, e);
		free(p);
	}
	for (i = 0; i <= n && !rc; i++) {
		const struct sbuf *b = i < n ? &out->files[i].body : &out->doc;
		if (fwrite(b->s, 1, b->len, of[i].f) != b->len)
			rc = err_set(e, VF_EIO, "%s: %s", of[i].path, strerror(errno));
		else
			rc = outfile_close(&of[i], e);
	}
	if (!rc && cmd_stop_signal)
		rc = err_set(e, VF_ESTOP, "%s: stopped; nothing written", path);
	for (i = 0; i <= n && !rc; i++)
		rc = outfile_commit(&of[i], e);
	for (i = 0; i <= n; i++)
		outfile_abort(&of[i]);
	free(of);
	return rc;
}

/* The format of a report to outp (NULL: standard output) into *f, given as --format or
 * NULL. A file name's ending names its format (report_format_for_path); an ending that
 * names none, or another than --format's, is refused: "-o r.pdf" writing plain text to
 * r.pdf would be read as a PDF that is broken. A name with no ending ("-", a FIFO "ff",
 * /dev/stdout) takes --format, else text. */
static int out_format(const char *outp, const struct report_ops **f)
{
	const char *slash = outp ? strrchr(outp, '/') : NULL, *name = slash ? slash + 1 : outp;
	const char *dot = name ? strrchr(name, '.') : NULL;
	if (!dot || dot == name || !dot[1]) {
		*f = *f ? *f : &report_text;
		return CMD_OK;
	}
	const struct report_ops *by = report_format_for_path(outp);
	if (!by)
		return cmd_usage_error(&cmd_report_entry,
				       "-o '%s': '%s' is not the ending of a report format "
				       "(.txt, .md, .html, .json, .csv)",
				       outp, dot);
	if (*f && *f != by)
		return cmd_usage_error(&cmd_report_entry,
				       "-o '%s': '%s' is not the ending of --format %s (%s)", outp,
				       dot, (*f)->name, (*f)->ext);
	*f = by;
	return CMD_OK;
}

/* --runs IDS. */
static int opt_report(struct cmd_ctx *ctx, int key, const char *arg)
{
	struct report_state *r = ctx->u;
	(void)key;
	return cmd_runs_opt(ctx, arg, &r->ids, &r->q.nrun_ids);
}

static int check_report(struct cmd_ctx *ctx)
{
	struct report_state *r = ctx->u;
	const struct cmd_entry *ce = ctx->ce;
	const char *base = cmd_arg(ctx, CMD_K_BASELINE), *fmt = cmd_arg(ctx, 'f');

	report_output_init(&r->out);
	r->q.mode = -1;
	r->q.scenario_id = (int64_t)cmd_num(ctx, CMD_K_SCENARIO, 0);
	r->ro.api_usd_per_mtok = cmd_num(ctx, CMD_K_API, NAN);
	r->ro.tokens_per_gpu_hour = cmd_num(ctx, CMD_K_TOKENS, NAN);
	r->outp = cmd_arg(ctx, 'o');
	r->flags = OUTFILE_REPLACE | (cmd_has(ctx, CMD_K_FOLLOW) ? OUTFILE_FOLLOW : 0);
	if (!(r->ro.baseline = policy_find(base ? base : "scalar")))
		return cmd_usage_error(ce, "--baseline '%s': not a policy", base);
	if (isnan(r->ro.api_usd_per_mtok) != isnan(r->ro.tokens_per_gpu_hour))
		return cmd_usage_error(ce, "give --api-price and --tokens-per-gpu-hour together");
	if (r->q.scenario_id && r->ids)
		return cmd_usage_error(ce, "give --scenario or --runs, not both");
	if ((r->flags & OUTFILE_FOLLOW) && !r->outp)
		return cmd_usage_error(ce, "--follow is for -o");
	if (r->outp && !*r->outp)
		return cmd_usage_error(ce, "-o: an empty file name");
	if (fmt && !(r->fops = report_format_find(fmt)))
		return cmd_usage_error(ce, "--format '%s': not text, md, html, json or csv", fmt);
	r->q.trace = ctx->sc.trace_arg;
	r->q.run_ids = r->ids;
	return out_format(r->outp, &r->fops);
}

/* The report built, to standard output or -o: the exit status. */
static int write_report(struct cmd_ctx *ctx, struct report_state *r)
{
	const char *outp = r->outp;
	struct err e = {0};
	/* a report that is not written to standard output goes to a file (whole, or not at
	 * all) or through a FIFO or device (then, like standard output, with no chart files) */
	if (outp && outfile_open(&r->doc, outp, r->flags, &e))
		return cmd_fail(ctx->ce, "%s%s", e.msg,
				e.code == VF_EINPUT ? " (--follow writes to what it points to)"
						    : "");
	if (outp && !outfile_is_stream(&r->doc)) {
		/* FILE.md's charts are FILE-1.svg, ... */
		const char *slash = strrchr(outp, '/'), *name = slash ? slash + 1 : outp;
		size_t n = strlen(name);
		if (n > 3 && !strcmp(name + n - 3, ".md"))
			n -= 3;
		r->base = xstrndup(name, n);
	}
	r->fops->write(r->rep, r->base, &r->out);
	if (!outp) {
		fwrite(r->out.doc.s, 1, r->out.doc.len, stdout);
		if (fflush(stdout) || ferror(stdout))
			return cmd_fail(ctx->ce, "stdout: write error");
		return CMD_OK;
	}
	int stream = outfile_is_stream(&r->doc);
	if (write_all(&r->doc, outp, r->flags, &r->out, &e)) {
		int rc = cmd_fail(ctx->ce, "%s", e.msg);
		return cmd_stop_signal ? CMD_STOPPED : rc;
	}
	if (!stream)
		fprintf(stderr, "wrote %s%s\n", outp,
			r->out.nfiles ? " and its charts beside it" : "");
	return CMD_OK;
}

static int exec_report(struct cmd_ctx *ctx)
{
	struct report_state *r = ctx->u;
	struct err e = {0};
	struct cmd_stop stop;

	if (scenario_prices(&ctx->sc, &e)) /* a model of the store's own table is known now */
		return cmd_usage_error(ctx->ce, "%s", e.msg);
	r->ro.prices = ctx->sc.prices;
	/* one read transaction: a report of one state of the store, whatever another voidfit
	 * commits meanwhile (a 'runs rm', a replay) */
	if (store_read_begin(ctx->st, &e) ||
	    report_build(ctx->st, ctx->p.operands[0], &r->q, &r->ro, &r->rep, &e))
		return cmd_fail(ctx->ce, "%s", e.msg);
	store_read_end(ctx->st);
	cmd_stop_catch(&stop);
	int rc = write_report(ctx, r);
	cmd_stop_release(&stop);
	return rc;
}

static void release_report(struct cmd_ctx *ctx)
{
	struct report_state *r = ctx->u;
	outfile_abort(&r->doc);
	FREE_ALL(r->base, r->ids);
	report_output_release(&r->out);
	report_free(r->rep);
}
