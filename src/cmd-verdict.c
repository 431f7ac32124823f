/*
 * cmd-verdict.c — 'voidfit verdict': the two answers a planner takes to the bill (verdict.h)
 * for a baseline and candidate policies, led by one sentence, then a line per policy (or a
 * table of them with each policy's sentence, in JSON, CSV or Markdown). Nothing is stored (a
 * sizing of each policy is what 'voidfit size' stores). --sweep DIR writes the resamples as
 * the tasks of a sweep and, once they are done, reads their answers from DIR's task stores;
 * such a task (--resample R --hints H --into TASKSTORE) answers one resample. The runs of
 * the trace's own searches go to DIR/trace.db (verdict_memo, store_probe_put), so that the
 * same command run again judges them there instead of replaying the trace.
 */
#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "metrics.h"
#include "replay.h"
#include "sizerec.h"
#include "sweep.h"
#include "table.h"
#include "verdict.h"

/* What check works out of the options, and what exec makes. */
struct verdict_state {
	const struct policy_ops **pols, *base;
	size_t npol;
	uint64_t lo, hi;     /* the seeds */
	struct size_slo slo; /* --slo */
	int any_slo;         /* --slo given */
	double cap;          /* --growth-cap */
	uint32_t nres;       /* --resamples (0: none) */
	int64_t block_s;     /* --block (0: the default) */
	const char *sweep;   /* --sweep DIR */
	const char *into;    /* --into TASKSTORE: a task of a verdict's sweep */
	uint32_t only;       /* its --resample */
	struct verdict v;    /* the answers */
	struct sbuf
		scen_key; /* the scenario's (scenario_key): what answers and runs are kept under */

	struct cmd_known full_runs; /* full-cluster runs read from the store (--no-reuse: none) */
	/* with --sweep: the runs of the trace's searches, read from and kept in DIR/trace.db,
	 * under the key memo_key (verdict_memo_key) */
	int memo_on;
	size_t memo_loaded; /* runs read from DIR/trace.db */
	struct verdict_memo memo;
	struct sbuf memo_key;
};

/* Reading the resample answers of the task stores of --sweep DIR (verdict_known.get): task
 * r (resample r) is runs/r.db, read when 'sweep status' would call it done. */
struct known_ctx {
	const char *dir; /* or NULL: none known */
	struct sweep_id id;
	int have_id;
	int64_t trace_id;
	const char *scen_key;
	uint32_t r;      /* the resample whose task store t is (0: none yet) */
	struct store *t; /* NULL when it is not there or not done */
	int rc;          /* the first error reading them; then nothing more is read */
	struct err e;
};

/* Reading DIR/trace.db into a memo (store_probe_list's callback): the runs of this
 * verdict's key, scenario and trace are taken, the others counted. */
struct memo_read {
	struct verdict_memo *m;
	int64_t trace_id;
	const char *scen_key, *key;
	size_t taken, other;
};

static int opt_verdict(struct cmd_ctx *ctx, int key, const char *arg);
CMD_DECLARE_HOOKS(verdict);

const struct cmd_entry cmd_verdict_entry = {
	.name = "verdict",
	.usage = "STORE [--baseline P] [--policy P[,P...]] [--slo SLO]... [--seeds A-B] "
		 "[--shrink MODEL] [--growth-cap G] [--no-headroom] [--resamples N [--block "
		 "DURATION]] [--sweep DIR] [--resample R --hints H --into TASKSTORE [--force]] "
		 "[--no-give-up] [--no-reuse] [--threads N] [--format F] " SCENARIO_USAGE,
	.summary = "fewer GPUs at the same service, and headroom for more demand, in $/yr",
	.opts = CMD_USES(
		{CMD_O_BASELINE, NULL, "today's policy, whose service is kept (default scalar)"},
		{CMD_O_POLICY, NULL, "candidates, comma-separated, or 'all' (default all)"},
		{CMD_O_POLICIES, NULL, ""}, /* as sweep and compare spell it */
		{CMD_O_SLO | CMD_OPT_BY_HOOK, NULL,
		 "the service to keep (as size takes it); default: what\n"
		 "the baseline gives on the full cluster, its wait p95\n"
		 "and no more unplaceable jobs (inflation: no more failed\n"
		 "draws, every size asked today's demand)"},
		{CMD_O_SEEDS, NULL, "the SLO must hold at every seed A..B (default 1)"},
		{CMD_O_SHRINK, NULL, "retire or buy nodes of GPU model MODEL only"},
		{CMD_O_CAP | CMD_OPT_BY_HOOK, NULL,
		 "search headroom up to +G x today's demand (default 1)"},
		{CMD_O_NO_HEADROOM, NULL, "the first answer only"},
		{CMD_O_RESAMPLES, NULL,
		 "timed: both answers again on N block resamples of the\n"
		 "trace (the same for every policy), and their 90 %\n"
		 "percentile interval in the sentence"},
		{CMD_O_BLOCK, NULL,
		 "the blocks of --resamples (90, 15m, 1h, 1d; default a\n"
		 "day, an hour when the trace is shorter than a week)"},
		{CMD_O_SWEEP, NULL,
		 "with --resamples: answer the trace here, then write the\n"
		 "resamples as the tasks of a sweep in DIR (GNU parallel,\n"
		 "Slurm: see voidfit sweep) and stop; once they are done,\n"
		 "the same command reads their answers from DIR and prints\n"
		 "the verdict"},
		{CMD_O_RESAMPLE, NULL,
		 "a task of such a sweep: resample R alone, its searches\n"
		 "started from the trace's answers H (--hints, as the\n"
		 "sweep's task lines give them), into --into TASKSTORE"},
		{CMD_O_HINTS, NULL, "the trace's answers, for --resample"},
		{CMD_O_INTO, NULL,
		 "with --resample: the task store its answers go to (read\n"
		 "by the verdict's --sweep DIR)"},
		{CMD_O_FORCE, NULL, "with --into: replace any regular file at TASKSTORE"},
		{CMD_O_NO_GIVE_UP, NULL,
		 "replay every probe to its end (the answers are the same,\n"
		 "later: a probe otherwise stops once it cannot meet the\n"
		 "SLO)"},
		{CMD_O_NO_REUSE, NULL,
		 "replay the full cluster even where the store holds its\n"
		 "runs (as size takes it)"},
		{CMD_O_THREADS, NULL,
		 "runs at once (default: the number of CPUs; the answers\n"
		 "do not depend on it)"},
		{CMD_O_FORMAT, NULL,
		 "text (default), json, csv or md: a row per policy with\n"
		 "its answers, their intervals and its sentence"}),
	.help = "Fewer GPUs: the baseline's smallest cluster (size's search) minus each policy's,\n"
		"in GPUs by model and x price per GPU-hour x 8760 h. Headroom: the largest growth\n"
		"g (steps of 2 %) each policy absorbs at the SLO on today's cluster, the extra\n"
		"jobs drawn from the trace's own mix; priced as the GPUs the baseline would buy\n"
		"to absorb g too. See voidfit(7).\n",
	.scenario = 1,
	.operand = "STORE",
	.store = CMD_STORE_READ,
	.formats = 1,
	.opt = opt_verdict,
	CMD_HOOKS(verdict, verdict_state),
};

/* One line per policy: its smallest cluster, the saving, the headroom and its price (and,
 * with resamples, the intervals of the saving and the headroom), and which of its sizes
 * is a boundary, not a margin (the sentence says how). */
static void print_policies(const struct verdict *v, FILE *f)
{
	fprintf(f, "\n%-12s %8s %8s %14s %10s %14s", "policy", "gpus_min", "fewer", "usd_per_year",
		"headroom", "buy_usd_year");
	if (v->nres)
		fprintf(f, " %14s %10s", "usd_interval", "headroom_iv");
	fputc('\n', f);
	for (size_t i = 0; i < v->np; i++) {
		const struct verdict_pol *p = &v->p[i];
		char g[32] = "-";
		if (p->growth >= 0)
			snprintf(g, sizeof g, "%s%.0f%%", p->capped ? ">=" : "", 100 * p->growth);
		if (!p->ok) {
			fprintf(f,
				"%-12s %8s %8s %14s %10s %14s  misses the SLO on today's cluster\n",
				p->policy->name, "-", "-", "-", g, "-");
			continue;
		}
		fprintf(f, "%-12s %8" PRId64 " %8" PRId64 " %14.0f %10s %14.0f", p->policy->name,
			p->size->gpus, p->fewer, p->usd_year, g, p->buy_usd_year);
		if (v->nres) {
			char a[48] = "-", b[32] = "-";
			if (!isnan(p->usd_lo))
				snprintf(a, sizeof a, "%.0f..%.0f", p->usd_lo, p->usd_hi);
			if (!isnan(p->growth_lo))
				snprintf(b, sizeof b, "%.0f..%.0f%%", 100 * p->growth_lo,
					 100 * p->growth_hi);
			fprintf(f, " %14s %10s", a, b);
		}
		fprintf(f, "%s%s%s\n",
			p->is_base    ? "  baseline"
			: p->buy_over ? "  (lower bound)"
				      : "",
			p->size_above ? "  (size a boundary)" : "",
			p->buy_above ? "  (purchase a boundary)" : "");
	}
}

/* The columns of -f json|csv|md: a policy's answers, their intervals and its sentence. */
static const struct table_col verdict_labels[] = {
	{"policy", "policy", NULL, 0, 0, 0},
	{"role", "role", NULL, 0, 0, 0},
	{"slo", "slo", NULL, 0, 0, TABLE_C_TEXT_HIDE},
	{"sentence", "sentence", NULL, 0, 0, TABLE_C_TEXT_HIDE},
	{"usd_per_year_resamples", "resamples", NULL, 0, 0, TABLE_C_TEXT_HIDE},
	{"headroom_resamples", "resamples", NULL, 0, 0, TABLE_C_TEXT_HIDE},
};
static const struct table_col verdict_nums[] = {
	{"gpus_min", "gpus_min", "GPUs", 0, TABLE_LOWER, 0},
	{"fewer_gpus", "fewer", "GPUs", 0, TABLE_HIGHER, 0},
	{"usd_per_year", "saving", "$/yr", 0, TABLE_HIGHER, TABLE_C_DOLLARS},
	{"usd_per_year_lo", "saving lo", "$/yr", 0, TABLE_NEUTRAL, TABLE_C_DOLLARS},
	{"usd_per_year_hi", "saving hi", "$/yr", 0, TABLE_NEUTRAL, TABLE_C_DOLLARS},
	{"headroom", "headroom", "share", 2, TABLE_HIGHER, 0},
	{"headroom_lo", "headroom lo", "share", 2, TABLE_NEUTRAL, 0},
	{"headroom_hi", "headroom hi", "share", 2, TABLE_NEUTRAL, 0},
	{"buy_gpus", "buy", "GPUs", 0, TABLE_NEUTRAL, 0},
	{"buy_usd_year", "deferred", "$/yr", 0, TABLE_HIGHER, TABLE_C_DOLLARS},
	{"buy_usd_year_lo", "deferred lo", "$/yr", 0, TABLE_NEUTRAL, TABLE_C_DOLLARS},
	{"buy_usd_year_hi", "deferred hi", "$/yr", 0, TABLE_NEUTRAL, TABLE_C_DOLLARS},
	{"size_boundary_nodes", "boundary", "nodes", 0, TABLE_NEUTRAL, TABLE_C_TEXT_HIDE},
	{"buy_boundary_nodes", "buy boundary", "nodes", 0, TABLE_NEUTRAL, TABLE_C_TEXT_HIDE},
	{"resamples", "resamples", NULL, 0, TABLE_NEUTRAL, TABLE_C_TEXT_HIDE},
	{"block_s", "block", "s", 0, TABLE_NEUTRAL, TABLE_C_TEXT_HIDE},
	{"interval_level", "level", NULL, 2, TABLE_NEUTRAL, TABLE_C_TEXT_HIDE},
	{"window_hours", "window", "h", 2, TABLE_NEUTRAL, TABLE_C_TEXT_HIDE},
	{"full_runs_reused", "reused", "runs", 0, TABLE_NEUTRAL, TABLE_C_TEXT_HIDE},
};

/* A row per policy with its answers, their intervals and its own sentence; lead (the
 * verdict's sentence) as the table's note. */
static struct table *verdict_table(const struct verdict *v, const struct scenario *sc, uint64_t lo,
				   uint64_t hi, const char *lead, const struct cmd_known *kn)
{
	struct table *t = table_new(verdict_labels, sizeof verdict_labels / sizeof *verdict_labels,
				    verdict_nums, sizeof verdict_nums / sizeof *verdict_nums);
	struct sbuf slo = SBUF_INIT, say = SBUF_INIT, ru = SBUF_INIT, rg = SBUF_INIT;
	sbuf_init(&slo);
	sbuf_init(&say);
	sbuf_init(&ru);
	sbuf_init(&rg);
	size_slo_text(&v->slo, &slo);
	for (size_t i = 0; i < v->np; i++) {
		const struct verdict_pol *p = &v->p[i];
		double nan = NAN, r = v->nres ? 1 : nan;
		sbuf_reset(&say);
		sbuf_reset(&ru);
		sbuf_reset(&rg);
		verdict_sentence(v, sc, i, lo, hi, &say);
		for (uint32_t k = 0; k < v->nres; k++) { /* each answer, space-separated */
			sbuf_printf(&ru, "%s%.15g", k ? " " : "", p->r_usd[k]);
			sbuf_printf(&rg, "%s%.15g", k ? " " : "", p->r_growth[k]);
		}
		const char *lab[] = {p->policy->name,
				     p->is_base ? "baseline" : "candidate",
				     slo.s,
				     say.s,
				     v->nres ? ru.s : NULL,
				     v->nres ? rg.s : NULL};
		double val[] = {p->ok ? (double)p->size->gpus : nan,
				p->ok ? (double)p->fewer : nan,
				p->ok ? p->usd_year : nan,
				r * p->usd_lo,
				r * p->usd_hi,
				p->growth >= 0 ? p->growth : nan,
				r * p->growth_lo,
				r * p->growth_hi,
				p->ok ? (double)p->buy : nan,
				p->ok ? p->buy_usd_year : nan,
				r * p->buy_lo,
				r * p->buy_hi,
				p->ok ? (double)p->size_above : nan,
				p->ok ? (double)p->buy_above : nan,
				(double)v->nres,
				v->nres ? (double)v->block_s : nan,
				v->nres ? VERDICT_LEVEL : nan,
				(double)(v->w1 - v->w0) / 3600,
				(double)cmd_known_count(kn, p->policy, (size_t)(hi - lo) + 1)};
		table_add_row(t, lab, val, 0);
	}
	table_add_note(t, lead);
	sbuf_release(&slo);
	sbuf_release(&say);
	sbuf_release(&ru);
	sbuf_release(&rg);
	return t;
}

/* --slo (each adds its terms) and --growth-cap, in argv order. */
static int opt_verdict(struct cmd_ctx *ctx, int key, const char *arg)
{
	struct verdict_state *t = ctx->u;
	if (key == CMD_K_CAP) {
		if (parse_double(arg, &t->cap) || !(t->cap > 0 && t->cap <= 10))
			return cmd_usage_error(ctx->ce,
					       "--growth-cap '%s': not a number in (0, 10]", arg);
		return CMD_OK;
	}
	return cmd_slo_opt(ctx, arg, &t->slo, &t->any_slo);
}

static int check_verdict(struct cmd_ctx *ctx)
{
	struct verdict_state *t = ctx->u;
	const struct cmd_entry *ce = ctx->ce;
	const char *base = cmd_arg(ctx, CMD_K_BASELINE), *policy = cmd_arg(ctx, 'p');
	struct err e = {0};

	t->lo = t->hi = 1;
	if (!(t->base = policy_find(base ? base : "scalar")))
		return cmd_usage_error(ce, "--baseline '%s': not a policy", base);
	if (replay_parse_policies(policy ? policy : "all", &t->pols, &t->npol, &e))
		return cmd_usage_error(ce, "--policy: %s", e.msg);
	if (scenario_check(&ctx->sc, &e) ||
	    replay_seed_opts(NULL, cmd_arg(ctx, CMD_K_SEEDS), &t->lo, &t->hi, &e) ||
	    (t->any_slo && size_slo_check(&t->slo, ctx->sc.mode, &e)))
		return cmd_usage_error(ce, "%s", e.msg);
	int rc = cmd_resample_opts(ce, cmd_arg(ctx, CMD_K_RESAMPLES), cmd_arg(ctx, CMD_K_BLOCK),
				   ctx->sc.mode, &t->nres, &t->block_s);
	if (rc)
		return rc;
	t->sweep = cmd_arg(ctx, CMD_K_SWEEP);
	t->into = cmd_arg(ctx, CMD_K_INTO);
	t->only = (uint32_t)cmd_num(ctx, CMD_K_RESAMPLE, 0);
	if ((t->sweep || t->only) && !t->nres)
		return cmd_usage_error(ce, "--%s: with --resamples N only",
				       t->sweep ? "sweep" : "resample");
	if (t->sweep && (t->only || t->into || cmd_has(ctx, CMD_K_HINTS)))
		return cmd_usage_error(ce, "--sweep: not with --resample, --hints or --into");
	if (t->only > t->nres)
		return cmd_usage_error(ce, "--resample %u: more than --resamples %u", t->only,
				       t->nres);
	if (t->only && (!t->into || !cmd_has(ctx, CMD_K_HINTS)))
		return cmd_usage_error(ce, "--resample: a sweep's task, with --hints and --into");
	if (!t->only && (t->into || cmd_has(ctx, CMD_K_HINTS)))
		return cmd_usage_error(ce, "--%s: with --resample only",
				       t->into ? "into" : "hints");
	if (cmd_has(ctx, CMD_K_FORCE) && !t->into)
		return cmd_usage_error(ce, "--force is for --into");
	return CMD_OK;
}

/* The task store of resample r into k->t, if its task is done (as 'sweep status' says). */
static void known_open(struct known_ctx *k, uint32_t r)
{
	struct sbuf path = SBUF_INIT, line = SBUF_INIT;
	struct err te = {0};
	store_close(k->t);
	k->t = NULL;
	k->r = r;
	sbuf_init(&path);
	sbuf_init(&line);
	sbuf_printf(&path, "%s/runs/%" PRIu32 ".db", k->dir, r);
	if (k->have_id && !access(path.s, F_OK) && !sweep_task_line(k->dir, r, &line) &&
	    !sweep_task_check(&k->id, path.s, line.s, &te) &&
	    store_open(path.s, STORE_RDONLY, &k->t, &te)) {
		store_close(k->t);
		k->t = NULL;
	}
	sbuf_release(&path);
	sbuf_release(&line);
}

static int known_get(void *u, const char *key, uint32_t r, const char *policy, double out[3])
{
	struct known_ctx *k = u;
	struct store_answer a = {.trace_id = k->trace_id,
				 .scen_key = k->scen_key,
				 .verdict_key = key,
				 .resample = r,
				 .policy = policy};
	int found = 0;
	if (!k->dir || k->rc)
		return 0;
	if (r != k->r)
		known_open(k, r);
	if (!k->t || (k->rc = store_answer_get(k->t, &a, &found, &k->e)) || !found)
		return 0;
	out[0] = a.usd_year;
	out[1] = a.growth;
	out[2] = a.buy_usd_year;
	return 1;
}

/* The words of this command for a task of its sweep into out: the options as given but
 * --sweep, --threads and the format's, each as a long option, the files they name by
 * absolute path (a task runs in the sweep's directory). */
static int task_words(struct cmd_ctx *ctx, struct sbuf *out)
{
	struct cmd_parser p;
	int c, rc = CMD_OK;
	cmd_parser_init(&p, ctx->argc, ctx->argv);
	while (rc == CMD_OK && (c = cmd_getopt(&p, ctx->opts)) != -1) {
		const struct cmd_opt *o = ctx->opts;
		while (o->name && o->key != c)
			o++;
		if (c == '?' || !o->name || c == CMD_K_SWEEP || c == CMD_K_THREADS ||
		    c == CMD_K_FORMAT || c == CMD_K_JSON)
			continue;
		sbuf_printf(out, " --%s", o->name);
		if (!p.arg)
			continue;
		char *abs = NULL;
		if ((c == SCENARIO_K_CLUSTER || c == SCENARIO_K_FAULT_FILE ||
		     c == SCENARIO_K_PROFILE) &&
		    !(abs = realpath(p.arg, NULL)))
			rc = cmd_fail(ctx->ce, "--%s %s: cannot resolve its path", o->name, p.arg);
		sweep_add_word(out, abs ? abs : p.arg);
		free(abs);
	}
	cmd_parser_release(&p);
	return rc;
}

/* The resamples of t->v as the tasks of a sweep in t->sweep, one a resample: 0, or the
 * failure said. */
static int write_sweep(struct cmd_ctx *ctx, struct verdict_state *t)
{
	const char *store = ctx->p.operands[0];
	struct sweep w;
	struct sbuf lines = SBUF_INIT, opts = SBUF_INIT;
	struct err e = {0};
	char digest[65];
	int same = 0, rc;
	sweep_init(&w);
	sbuf_init(&lines);
	sbuf_init(&opts);
	if ((rc = task_words(ctx, &opts)))
		goto out;
	if (store_trace_digest(ctx->st, ctx->sc.trace_id, digest, &e)) {
		rc = cmd_fail(ctx->ce, "%s", e.msg);
		goto out;
	}
	if (!(w.store = realpath(store, NULL))) {
		rc = cmd_fail(ctx->ce, "%s: cannot resolve its path", store);
		goto out;
	}
	for (uint32_t r = 1; r <= t->nres; r++) {
		char buf[64];
		sbuf_adds(&lines, "voidfit verdict");
		sweep_add_word(&lines, w.store);
		snprintf(buf, sizeof buf, "runs/%" PRIu32 ".db", r);
		sbuf_adds(&lines, " --into");
		sweep_add_word(&lines, buf);
		sbuf_printf(&lines, " --force --threads 1 --resample %" PRIu32 " --hints", r);
		sweep_add_word(&lines, t->v.hints.s);
		sbuf_printf(&lines, "%s\n", opts.s);
	}
	w.lines = lines.s;
	w.nlines = t->nres;
	w.per_task = t->v.np;
	w.verb = "verdict";
	w.no_merge = 1;
	w.digests = &digest;
	w.bindir = sweep_bin_dir();
	if (sweep_write(&w, t->sweep, &same, &e))
		rc = cmd_fail(ctx->ce, "%s", e.msg);
	free((char *)w.bindir);
	w.bindir = NULL;
	if (rc)
		goto out;
	fprintf(stderr,
		"voidfit verdict: %s: %s %" PRIu32 " tasks, one a resample (%" PRIu32
		" of them not done)\n"
		"run them: %s/parallel.sh [-j N] | %s/slurm.sh [SBATCH-OPTION...]\n"
		"then this command again: it reads their answers from %s/runs\n",
		t->sweep, same ? "holds this sweep already, its scripts written anew:" : "wrote",
		t->nres, t->v.nmissing, t->sweep, t->sweep, t->sweep);
out:
	w.digests = NULL;
	sweep_release(&w);
	sbuf_release(&lines);
	sbuf_release(&opts);
	return rc;
}

/* A task of a verdict's sweep: resample t->only's answers into the task store t->into. */
static int store_task(struct cmd_ctx *ctx, struct verdict_state *t, struct sweep_task *k)
{
	struct err e = {0};
	int rc = store_begin(k->t, &e);
	for (size_t i = 0; i < t->v.np && !rc; i++) {
		const struct verdict_pol *p = &t->v.p[i];
		struct store_answer a = {.trace_id = ctx->sc.trace_id,
					 .scen_key = t->scen_key.s,
					 .verdict_key = t->v.key.s,
					 .resample = t->only,
					 .policy = p->policy->name,
					 .usd_year = p->r_usd[t->only - 1],
					 .growth = p->r_growth[t->only - 1],
					 .buy_usd_year = p->r_buy[t->only - 1]};
		rc = store_answer_put(k->t, &a, &e);
	}
	if (!rc)
		rc = store_commit(k->t, &e);
	if (rc)
		store_rollback(k->t);
	if (sweep_task_end(k, ctx->sc.trace_id, rc ? SWEEP_END_FAIL : SWEEP_END_DONE,
			   rc ? NULL : &e) ||
	    rc)
		return cmd_fail(ctx->ce, "%s: %s", t->into, e.msg);
	fprintf(stderr,
		"voidfit verdict: resample %" PRIu32 ": the answers of %zu policies in %s\n",
		t->only, t->v.np, t->into);
	return CMD_OK;
}

/* ---- the trace's runs in DIR/trace.db ---- */

/* The length of dir without its trailing '/'s (one kept for "/"), so that "%.*s/trace.db"
 * names the file once, however the directory was given. */
static int dir_len(const char *dir)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	return (int)n;
}

static int memo_take(void *u, const struct store_probe *p)
{
	struct memo_read *r = u;
	const struct policy_ops *pol = policy_find(p->policy);
	int search = verdict_memo_search_find(p->search);
	struct verdict_memo_entry x = {
		.search = search,
		.growth = p->growth,
		.policy = pol,
		.step = (unsigned)p->step,
		.seed = p->seed,
		.run = {.w0 = p->w0, .w1 = p->w1, .gave_up = p->gave_up, .events = p->events}};
	int mine = p->trace_id == r->trace_id && !strcmp(p->scen_key, r->scen_key) &&
		   !strcmp(p->verdict_key, r->key) && pol && search >= 0 && p->step >= 0 &&
		   p->step <= UINT32_MAX && p->nfig == RUNREC_NCOL;
	uint64_t seen = 0; /* each figure once */
	static_assert(RUNREC_NCOL <= 64, "a bit a figure");
	for (size_t i = 0; mine && i < p->nfig; i++) {
		int c = runrec_col_find(p->fig_key[i]);
		if (c < 0 || (seen & (UINT64_C(1) << c)))
			mine = 0;
		else
			x.run.fig[c] = p->fig[i], seen |= UINT64_C(1) << c;
	}
	if (mine) {
		verdict_memo_add(r->m, &x);
		r->taken++;
	} else {
		r->other++;
	}
	return 0;
}

/* DIR/trace.db of --sweep DIR into m, when it holds the runs of this verdict (its key, the
 * scenario scen_key, the trace, this voidfit); one of another is not read, and stderr says
 * so. Returns CMD_OK, or the failure said: a file there that is not such a task store, or
 * one damaged, is refused. */
static int memo_load(struct cmd_ctx *ctx, struct verdict_state *t, const char *key,
		     const char *scen_key, struct verdict_memo *m)
{
	struct sbuf path = SBUF_INIT;
	struct store *s = NULL;
	struct store_task_info info = {.pairs = NULL};
	struct memo_read r = {
		.m = m, .trace_id = ctx->sc.trace_id, .scen_key = scen_key, .key = key};
	struct err e = {0};
	char digest[65];
	int rc = CMD_OK;
	sbuf_init(&path);
	sbuf_printf(&path, "%.*s/trace.db", dir_len(t->sweep), t->sweep);
	if (access(path.s, F_OK))
		goto out; /* none yet */
	if (store_trace_digest(ctx->st, ctx->sc.trace_id, digest, &e)) {
		rc = cmd_fail(ctx->ce, "%s", e.msg);
		goto out;
	}
	if (store_open(path.s, STORE_RDONLY, &s, &e) || store_task_verify(s, &info, &e) ||
	    (!info.finished && err_set(&e, VF_ESTORE, "%s: not a finished task store", path.s)) ||
	    (!strcmp(info.sha256, digest) && !strcmp(info.version, VOIDFIT_VERSION) &&
	     store_probe_list(s, memo_take, &r, &e))) {
		rc = cmd_fail(ctx->ce,
			      "%s (the trace's runs of the sweep, refused: remove it, and the "
			      "trace is searched again)",
			      e.msg);
		goto out;
	}
	t->memo_loaded = r.taken;
	t->memo.complete = r.taken > 0;
	if (strcmp(info.sha256, digest))
		fprintf(stderr,
			"voidfit verdict: %s: the runs of another trace, not read: the trace is "
			"searched again\n",
			path.s);
	else if (strcmp(info.version, VOIDFIT_VERSION))
		fprintf(stderr,
			"voidfit verdict: %s: made by voidfit %s, not read: the trace is searched "
			"again\n",
			path.s, info.version);
	else if (!r.taken && r.other)
		fprintf(stderr,
			"voidfit verdict: %s: the trace's runs of another verdict (baseline, "
			"seeds, SLO, shrink, headroom or give-up) or scenario, not read: the "
			"trace is searched again\n",
			path.s);
out:
	free(info.pairs);
	store_close(s);
	sbuf_release(&path);
	return rc;
}

/* The runs of m, made under key and scen_key, into DIR/trace.db of --sweep DIR (a task
 * store of the trace, put in place once whole): CMD_OK, or the failure said. */
static int memo_save(struct cmd_ctx *ctx, const struct verdict_state *t, const char *key,
		     const char *scen_key, const struct verdict_memo *m)
{
	struct sbuf path = SBUF_INIT;
	struct sweep_task k = {0};
	struct err e = {0};
	const char *fig_key[RUNREC_NCOL];
	int rc;
	for (int c = 0; c < RUNREC_NCOL; c++)
		fig_key[c] = runrec_col_key((enum runrec_col)c);
	sbuf_init(&path);
	sbuf_printf(&path, "%.*s/trace.db", dir_len(t->sweep), t->sweep);
	rc = sweep_task_begin(ctx->st, ctx->p.operands[0], ctx->sc.trace_id, path.s, 1, &k, &e);
	if (!rc && !(rc = store_begin(k.t, &e)))
		rc = store_probes_clear(k.t, &e);
	for (size_t i = 0; i < m->n && !rc; i++) {
		const struct verdict_memo_entry *x = &m->e[i];
		struct store_probe p = {.trace_id = ctx->sc.trace_id,
					.scen_key = scen_key,
					.verdict_key = key,
					.search = verdict_memo_search_name(x->search),
					.growth = x->growth,
					.policy = x->policy->name,
					.step = x->step,
					.seed = x->seed,
					.w0 = x->run.w0,
					.w1 = x->run.w1,
					.gave_up = x->run.gave_up,
					.events = x->run.events,
					.nfig = RUNREC_NCOL,
					.fig_key = fig_key,
					.fig = x->run.fig};
		rc = store_probe_put(k.t, &p, &e);
	}
	if (!rc)
		rc = store_commit(k.t, &e);
	else if (k.t)
		store_rollback(k.t);
	if (sweep_task_end(&k, ctx->sc.trace_id, rc ? SWEEP_END_FAIL : SWEEP_END_DONE,
			   rc ? NULL : &e) ||
	    rc)
		rc = cmd_fail(ctx->ce, "%s", e.msg);
	sbuf_release(&path);
	return rc;
}

/* After the verdict of --sweep DIR: when DIR/trace.db was read, say how many of the trace's
 * runs were not replayed (those it held, and those the searches asked for again, such as a
 * step checked above a size that the bisection had run); keep there those it did not hold
 * (all of them, under this key). CMD_OK or the failure said. */
static int memo_keep(struct cmd_ctx *ctx, struct verdict_state *t)
{
	const struct verdict_memo *m = &t->memo;
	int rc = CMD_OK;
	if (!t->memo_on)
		return CMD_OK;
	if (t->memo_loaded && m->made)
		fprintf(stderr,
			"voidfit verdict: the trace's answers read from %.*s/trace.db: %zu probe "
			"runs not replayed, %zu not in it replayed\n",
			dir_len(t->sweep), t->sweep, m->hits, m->made);
	else if (t->memo_loaded)
		fprintf(stderr,
			"voidfit verdict: the trace's answers read from %.*s/trace.db: %zu probe "
			"runs not replayed\n",
			dir_len(t->sweep), t->sweep, m->hits);
	if (!m->made)
		return CMD_OK;
	if (!(rc = memo_save(ctx, t, t->memo_key.s, t->scen_key.s, m)))
		fprintf(stderr,
			"voidfit verdict: the trace's %zu probe runs kept in %.*s/trace.db, for "
			"this command again\n",
			m->n, dir_len(t->sweep), t->sweep);
	return rc;
}

/* The verdict on stdout: the sentence, led by a warning when the cluster is nearly idle
 * (its retired GPUs and headroom then measure idle time), and a line per policy; or, in
 * another format, the table of verdict_table with the sentence as its note. */
static int print_verdict(struct cmd_ctx *ctx, const struct verdict_state *t)
{
	const struct verdict *v = &t->v;
	struct sbuf out = SBUF_INIT;
	int rc = CMD_OK;
	sbuf_init(&out);
	if (v->np && v->p[0].size && v->p[0].size->full_alloc < METRICS_IDLE_ALLOC)
		sbuf_printf(
			&out,
			"WARNING: %s's replay allocates %.2f %% of the GPUs on average (under "
			"%.0f %%): the cluster is nearly idle here, so the GPUs retired and the "
			"headroom below measure idle time, not placement; load it with --mode "
			"inflate (the FGD paper's method). ",
			v->p[0].policy->name, 100 * v->p[0].size->full_alloc,
			100 * METRICS_IDLE_ALLOC);
	if (v->np) { /* an --slo that bounds no wait */
		struct sbuf w = SBUF_INIT;
		sbuf_init(&w);
		sizerec_wait_warning(&v->slo, ctx->sc.mode, &w);
		if (w.len)
			sbuf_printf(&out, "%s. ", w.s);
		sbuf_release(&w);
	}
	verdict_sentence(v, &ctx->sc, verdict_best(v), t->lo, t->hi, &out);
	if (ctx->fmt == &table_text) {
		printf("%s\n", out.s);
		print_policies(v, stdout);
		if (fflush(stdout) || ferror(stdout))
			rc = cmd_fail(ctx->ce, "stdout: write error");
	} else {
		struct table *tab = verdict_table(v, &ctx->sc, t->lo, t->hi, out.s, &t->full_runs);
		rc = cmd_print_table(ctx, tab);
		table_free(tab);
	}
	sbuf_release(&out);
	return rc;
}

static int exec_verdict(struct cmd_ctx *ctx)
{
	struct verdict_state *t = ctx->u;
	struct err e = {0};
	struct cmd_long lg;
	int shrink, rc;

	if ((rc = cmd_scenario_load(ctx, CMD_K_SHRINK, &shrink)))
		return rc;
	if (!t->only) { /* the trace's answer takes the runs of the baseline and candidates */
		const struct policy_ops **all = xcalloc(t->npol + 1, sizeof *all);
		size_t nall = verdict_policies(t->base, t->pols, t->npol, all);
		rc = cmd_known_runs(ctx, all, nall, t->lo, t->hi, &t->full_runs);
		free(all);
		if (rc)
			return rc;
	}
	struct sweep_task task = {0};
	/* a task store the answers cannot go into fails now, not after computing them */
	if (t->into && sweep_task_begin(ctx->st, ctx->p.operands[0], ctx->sc.trace_id, t->into,
					cmd_has(ctx, CMD_K_FORCE) > 0, &task, &e))
		return cmd_fail(ctx->ce, "%s", e.msg);
	sbuf_init(&t->scen_key);
	scenario_key(&ctx->sc, &t->scen_key);
	struct known_ctx kc = {
		.dir = t->sweep, .trace_id = ctx->sc.trace_id, .scen_key = t->scen_key.s};
	struct verdict_known known = {.get = known_get, .u = &kc, .compute = 0};
	struct err ie = {0};
	kc.have_id = t->sweep && !sweep_id_read(t->sweep, &kc.id, &ie);
	struct verdict_opts o = {.sc = &ctx->sc,
				 .base = t->base,
				 .pols = t->pols,
				 .npol = t->npol,
				 .lo = t->lo,
				 .hi = t->hi,
				 .slo = t->any_slo ? &t->slo : NULL,
				 .shrink_model = shrink,
				 .headroom = !cmd_has(ctx, CMD_K_NO_HEADROOM),
				 .growth_cap =
					 cmd_has(ctx, CMD_K_CAP) ? t->cap : VERDICT_GROWTH_CAP,
				 .nthreads = (unsigned)cmd_num(ctx, CMD_K_THREADS, util_ncpu()),
				 .progress = cmd_bar_step,
				 .u = &lg.bar,
				 .stop = &cmd_stop_signal,
				 .giveup = !cmd_has(ctx, CMD_K_NO_GIVE_UP),
				 .nres = t->nres,
				 .block_s = t->block_s,
				 .known = t->sweep ? &known : NULL,
				 .only = t->only,
				 .hints = cmd_arg(ctx, CMD_K_HINTS),
				 .full_runs = t->full_runs.k,
				 .nfull_runs = t->full_runs.n};
	if (t->sweep && !t->only) { /* the trace's runs of an earlier verdict of this sweep */
		t->memo_on = 1;
		verdict_memo_init(&t->memo);
		sbuf_init(&t->memo_key);
		verdict_memo_key(&o, &t->memo_key);
		o.memo = &t->memo;
		if ((rc = memo_load(ctx, t, t->memo_key.s, t->scen_key.s, &t->memo))) {
			if (kc.have_id)
				sweep_id_release(&kc.id);
			return rc;
		}
	}
	cmd_long_begin(&lg);
	int vrc = verdict_run(&o, &t->v, &e);
	cmd_long_end(&lg);
	store_close(kc.t);
	if (kc.have_id)
		sweep_id_release(&kc.id);
	if (!vrc && kc.rc) {
		vrc = kc.rc;
		e = kc.e;
	}
	if (vrc && t->into)
		sweep_task_end(&task, 0, SWEEP_END_FAIL, NULL);
	if (vrc == VF_ESTOP) {
		cmd_fail(ctx->ce, "stopped");
		return CMD_STOPPED;
	}
	if (vrc)
		return cmd_fail(ctx->ce, "trace %s: %s", ctx->sc.trace_name.s, e.msg);
	if (t->into)
		return store_task(ctx, t, &task);
	if (t->v.nmissing)
		return (rc = write_sweep(ctx, t)) ? rc : memo_keep(ctx, t);
	if ((rc = memo_keep(ctx, t)))
		return rc;
	if (t->v.nknown)
		fprintf(stderr,
			"voidfit verdict: the %" PRIu32 " resamples read from the tasks of %s\n",
			t->v.nknown, t->sweep);
	if (t->v.gave_up)
		fprintf(stderr,
			"voidfit verdict: %zu probe replays stopped early, once they could no "
			"longer meet the SLO\n",
			t->v.gave_up);
	const struct verdict_work *w = t->v.work;
	fprintf(stderr,
		"voidfit verdict: probes (sim events): fewer GPUs %zu (%" PRId64
		"), headroom %zu (%" PRId64 "), purchases %zu (%" PRId64 ")\n",
		w[VERDICT_W_FEWER].probes, w[VERDICT_W_FEWER].events, w[VERDICT_W_HEADROOM].probes,
		w[VERDICT_W_HEADROOM].events, w[VERDICT_W_BUY].probes, w[VERDICT_W_BUY].events);
	for (size_t i = 0; i < t->v.np; i++) {
		const struct size_result *r = t->v.p[i].size;
		if (t->v.p[i].ok && t->v.p[i].size_above)
			fprintf(stderr,
				"voidfit verdict: %s is not monotone in the cluster's size here: "
				"its smallest cluster (%zu nodes, %" PRId64 " GPUs) meets the SLO "
				"but a cluster %zu node%s larger misses it, so its answer is a "
				"boundary, not a margin ('voidfit size' shows the sizes around "
				"it)\n",
				r->policy->name, r->min.nodes, r->gpus, t->v.p[i].size_above,
				t->v.p[i].size_above > 1 ? "s" : "");
	}
	for (size_t i = 0; i < t->v.np; i++) {
		const struct verdict_pol *p = &t->v.p[i];
		if (!isnan(p->gave_growth))
			fprintf(stderr,
				"voidfit verdict: %s is not monotone in demand here: it meets the "
				"SLO at +%.0f %% but misses it at +%.0f %%, so its headroom is "
				"taken "
				"below that miss: +%.0f %%, with the growth steps below it met "
				"too\n",
				p->policy->name, 100 * p->gave_growth, 100 * p->gave_miss,
				100 * p->growth);
	}
	for (size_t i = 1; i < t->v.np; i++) {
		const struct verdict_pol *p = &t->v.p[i];
		if (p->buy && p->buy_above)
			fprintf(stderr,
				"voidfit verdict: %s is not monotone in the cluster's size on the "
				"trace grown by %.0f %% (%s's headroom): the cluster of its "
				"purchase "
				"(%" PRId64 " GPUs more) meets the SLO but one %zu node%s larger "
				"misses it, so the purchase is a boundary, not a margin\n",
				t->v.p[0].policy->name, 100 * p->growth, p->policy->name, p->buy,
				p->buy_above, p->buy_above > 1 ? "s" : "");
	}
	return print_verdict(ctx, t);
}

static void release_verdict(struct cmd_ctx *ctx)
{
	struct verdict_state *t = ctx->u;
	verdict_release(&t->v);
	cmd_known_release(&t->full_runs);
	sbuf_release(&t->scen_key);
	if (t->memo_on) {
		verdict_memo_release(&t->memo);
		sbuf_release(&t->memo_key);
	}
	free(t->pols);
}
