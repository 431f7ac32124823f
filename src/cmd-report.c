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

static int exec_report(int argc, char **argv);
extern const struct cmd_opt cmd_report_opts[]; /* below */

const struct cmd_entry cmd_report_entry = {
	.name = "report",
	.usage = "STORE [--scenario ID | --runs IDS] [--trace T] [--baseline P] "
		 "[--price-tier T] [--gpu-price MODEL=USD]... "
		 "[--api-price USD_PER_MTOK --tokens-per-gpu-hour N] "
		 "[--format text|md|html|json|csv] [-o FILE [--follow]]",
	.summary = "the cost report of one scenario: verdict, $ by bucket, charts, breakeven",
	.help = "      --scenario ID      the runs of scenario ID ('voidfit runs' lists them)\n"
		"      --runs IDS         these runs (\"3,5-9\"), all of one scenario\n"
		"      --trace T          trace of the store, by name or id (default: the newest)\n"
		"      --baseline P       the policy savings are measured against (default "
		"scalar)\n"
		"      --price-tier T     price at on-demand (default), reserved, spot or owned\n"
		"      --gpu-price M=USD  price of one GPU-hour of model M (repeatable)\n"
		"      --api-price USD    an API's price per million tokens, for the breakeven\n"
		"      --tokens-per-gpu-hour N\n"
		"                         tokens a productive GPU-hour makes (with --api-price)\n"
		"  -f, --format F         text, md, html, json or csv (default: from -o's\n"
		"                         ending, else text); an -o ending that is not the\n"
		"                         format's (.txt .md .html .json .csv) is refused\n"
		"  -o, --output FILE      write FILE (md: and FILE-1.svg, ... beside it) instead\n"
		"                         of standard output, whole or not at all; a FIFO or a\n"
		"                         device is written through (no charts), never replaced;\n"
		"                         '-' is standard output\n"
		"      --follow           with -o: write to what a symbolic link points to (a\n"
		"                         link is refused without it)\n"
		"\n"
		"The verdict names the policy with the largest saving of recoverable-by-placement\n"
		"$/yr against the baseline, paired by seed, with its 95 % interval. Runs are\n"
		"chosen as by compare: without --scenario or --runs, the newest scenario of the\n"
		"trace whose policies all have the same seeds.\n",
	.opts = cmd_report_opts,
	.exec_argv = exec_report,
};

enum { O_SCENARIO = CMD_LONG_ONLY, O_RUNS, O_BASELINE, O_API, O_TOKENS, O_FOLLOW };

const struct cmd_opt cmd_report_opts[] = {
	{"trace", SCENARIO_K_TRACE, 1},
	{"gpu-price", SCENARIO_K_PRICE, 1},
	{"price-tier", SCENARIO_K_TIER, 1},
	{"scenario", O_SCENARIO, 1},
	{"runs", O_RUNS, 1},
	{"baseline", O_BASELINE, 1},
	{"api-price", O_API, 1},
	{"tokens-per-gpu-hour", O_TOKENS, 1},
	{"format", 'f', 1},
	{"output", 'o', 1},
	{"follow", O_FOLLOW, 0},
	{NULL, 0, 0},
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

static int exec_report(int argc, char **argv)
{
	struct cmd_parser p;
	struct err e = {0};
	struct scenario sc;
	const char *fmt = NULL, *base_arg = "scalar", *outp = NULL;
	int c, rc = CMD_OK;
	struct runrec_query q = {.mode = -1};
	int64_t *ids = NULL;
	struct store *st = NULL;
	struct report *rep = NULL;
	struct report_output out;
	struct report_opts ro = {.api_usd_per_mtok = NAN, .tokens_per_gpu_hour = NAN};
	char *base = NULL;
	struct outfile doc = {0};
	struct cmd_stop stop;
	int flags = OUTFILE_REPLACE, caught = 0;

	report_output_init(&out);
	scenario_init(&sc);
	cmd_parser_init(&p, argc, argv);
	while ((c = cmd_getopt(&p, cmd_report_opts)) != -1 && rc == CMD_OK) {
		double v;
		switch (c) {
		case O_SCENARIO:
			if (!(rc = cmd_num_opt(&cmd_report_entry, "scenario", p.arg, 1, 0, &v)))
				q.scenario_id = (int64_t)v;
			break;
		case O_RUNS:
			if (runrec_parse_ids(p.arg, &ids, &q.nrun_ids, &e))
				rc = cmd_usage_error(&cmd_report_entry, "--runs %s", e.msg);
			break;
		case O_BASELINE:
			base_arg = p.arg;
			break;
		case O_API:
			if (!(rc = cmd_num_opt(&cmd_report_entry, "api-price", p.arg, 0, 0, &v)))
				ro.api_usd_per_mtok = v;
			break;
		case O_TOKENS:
			if (!(rc = cmd_num_opt(&cmd_report_entry, "tokens-per-gpu-hour", p.arg, 0,
					       0, &v)))
				ro.tokens_per_gpu_hour = v;
			break;
		case 'f':
			fmt = p.arg;
			break;
		case 'o':
			outp = p.arg;
			break;
		case O_FOLLOW:
			flags |= OUTFILE_FOLLOW;
			break;
		default:
			if (scenario_is_key(c)) {
				if (scenario_set(&sc, c, p.arg, &e))
					rc = cmd_usage_error(&cmd_report_entry, "%s", e.msg);
				break;
			}
			rc = cmd_opt_error(&cmd_report_entry, &p);
		}
	}
	if (rc != CMD_OK)
		goto out;
	if (p.nops != 1) {
		rc = cmd_usage_error(&cmd_report_entry,
				     p.nops ? "one STORE only" : "no STORE given");
		goto out;
	}
	if (!(ro.baseline = policy_find(base_arg))) {
		rc = cmd_usage_error(&cmd_report_entry, "--baseline '%s': not a policy", base_arg);
		goto out;
	}
	if (isnan(ro.api_usd_per_mtok) != isnan(ro.tokens_per_gpu_hour)) {
		rc = cmd_usage_error(&cmd_report_entry,
				     "give --api-price and --tokens-per-gpu-hour together");
		goto out;
	}
	if (q.scenario_id && ids) {
		rc = cmd_usage_error(&cmd_report_entry, "give --scenario or --runs, not both");
		goto out;
	}
	if ((flags & OUTFILE_FOLLOW) && !outp) {
		rc = cmd_usage_error(&cmd_report_entry, "--follow is for -o");
		goto out;
	}
	if (outp && !*outp) {
		rc = cmd_usage_error(&cmd_report_entry, "-o: an empty file name");
		goto out;
	}
	const struct report_ops *fops = fmt ? report_format_find(fmt) : NULL;
	if (fmt && !fops) {
		rc = cmd_usage_error(&cmd_report_entry,
				     "--format '%s': not text, md, html, json or csv", fmt);
		goto out;
	}
	if ((rc = out_format(outp, &fops)) != CMD_OK)
		goto out;
	q.trace = sc.trace_arg;
	q.run_ids = ids;

	/* one read transaction: a report of one state of the store, whatever another voidfit
	 * commits meanwhile (a 'runs rm', a replay) */
	if (store_open(p.operands[0], STORE_RDONLY, &st, &e)) {
		rc = cmd_fail(&cmd_report_entry, "%s", e.msg);
		goto out;
	}
	if (scenario_prices(&sc, &e)) { /* a model of the store's own table is known now */
		rc = cmd_usage_error(&cmd_report_entry, "%s", e.msg);
		goto out;
	}
	ro.prices = sc.prices;
	if (store_read_begin(st, &e) || report_build(st, p.operands[0], &q, &ro, &rep, &e)) {
		rc = cmd_fail(&cmd_report_entry, "%s", e.msg);
		goto out;
	}
	store_read_end(st);
	/* a report that is not written to standard output goes to a file (whole, or not at
	 * all) or through a FIFO or device (then, like standard output, with no chart files) */
	cmd_stop_catch(&stop);
	caught = 1;
	if (outp && outfile_open(&doc, outp, flags, &e)) {
		rc = cmd_fail(&cmd_report_entry, "%s%s", e.msg,
			      e.code == VF_EINPUT ? " (--follow writes to what it points to)" : "");
		goto out;
	}
	if (outp && !outfile_is_stream(&doc)) {
		/* FILE.md's charts are FILE-1.svg, ... */
		const char *slash = strrchr(outp, '/'), *name = slash ? slash + 1 : outp;
		size_t n = strlen(name);
		if (n > 3 && !strcmp(name + n - 3, ".md"))
			n -= 3;
		base = xstrndup(name, n);
	}
	fops->write(rep, base, &out);
	if (!outp) {
		fwrite(out.doc.s, 1, out.doc.len, stdout);
		if (fflush(stdout) || ferror(stdout))
			rc = cmd_fail(&cmd_report_entry, "stdout: write error");
		goto out;
	}
	int stream = outfile_is_stream(&doc);
	if (write_all(&doc, outp, flags, &out, &e)) {
		rc = cmd_fail(&cmd_report_entry, "%s", e.msg);
		rc = cmd_stop_signal ? 130 : rc;
	} else if (!stream) {
		fprintf(stderr, "wrote %s%s\n", outp,
			out.nfiles ? " and its charts beside it" : "");
	}
out:
	if (caught)
		cmd_stop_release(&stop);
	outfile_abort(&doc);
	free(base);
	free(ids);
	report_output_release(&out);
	report_free(rep);
	scenario_release(&sc);
	store_close(st);
	cmd_parser_release(&p);
	return rc;
}
