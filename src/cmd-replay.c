/*
 * cmd-replay.c — 'voidfit replay': replay a trace of a store under one or more policies and
 * seeds, store each run, print the summary table (text, JSON, CSV or Markdown).
 */
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "grid.h"
#include "summary.h"
#include "sweep.h"

/* What check works out of the options, and what exec makes. */
struct replay_state {
	const struct policy_ops **pols;
	size_t npol;
	uint64_t lo, hi;    /* the seeds */
	uint32_t nres;      /* --resamples (0: none) */
	int64_t block_s;    /* --block (0: the default) */
	int64_t block_used; /* the block the resamples drew */
	int no_store;       /* STORE is only read (--no-store, --into) */
	const char *into;   /* --into TASKSTORE */
	struct sweep_task task;
	double run_mean_s; /* the trace's mean run time, for the overload warning */
	struct grid_row *rows;
	struct enrich_summary enr;
};

CMD_DECLARE_HOOKS(replay);

const struct cmd_entry cmd_replay_entry = {
	.name = "replay",
	.usage = "STORE --policy P[,P...] [--seed N | --seeds A-B] [--resume] [--threads N] "
		 "[--no-store] [--into TASKSTORE [--force]] [--resamples N [--block DURATION]] "
		 "[--json | --format F] " SCENARIO_USAGE,
	.summary = "replay a trace under placement policies; store the runs; print a summary",
	.opts = CMD_USES({CMD_O_POLICY, NULL, "policies to run, comma-separated, or 'all'"},
			 {CMD_O_POLICIES, NULL, ""}, /* as sweep and compare spell it */
			 {CMD_O_SEED, NULL, NULL},
			 {CMD_O_SEEDS, NULL, "one run per seed A..B, then the mean per policy"},
			 {CMD_O_RESUME, NULL,
			  "run only the (policy, seed) pairs the store lacks in\n"
			  "this scenario (after an interrupted replay)"},
			 {CMD_O_THREADS, NULL,
			  "run up to N (policy, seed) runs at once (default: the\n"
			  "number of CPUs; the results do not depend on it)"},
			 {CMD_O_NO_STORE, NULL, "do not store the runs; print only"},
			 {CMD_O_INTO, NULL,
			  "store the runs in a new task store instead (a task of\n"
			  "'voidfit sweep'; 'voidfit merge' folds it into STORE);\n"
			  "a file there is refused unless it is a finished task\n"
			  "store of the same trace (the task run again); each\n"
			  "run is kept in TASKSTORE.part as it ends, and a task\n"
			  "stopped (a signal, a time limit) or killed resumes\n"
			  "after them when run again"},
			 {CMD_O_FORCE, NULL,
			  "with --into: replace any regular file at TASKSTORE (never\n"
			  "STORE itself)"},
			 {CMD_O_RESAMPLES, NULL,
			  "timed: replay each (policy, seed) on N block resamples\n"
			  "of the trace (whole days drawn with replacement; hours\n"
			  "when it holds less than a week), each stored as a\n"
			  "scenario of its own; the same resample for every policy"},
			 {CMD_O_BLOCK, NULL, "the blocks of --resamples (90, 15m, 1h, 1d)"},
			 {CMD_O_JSON, NULL, NULL}, {CMD_O_FORMAT, NULL, NULL}),
	.help = "Provisioned GPU time over the window goes to buckets: productive, stalled (rate "
		"<\n"
		"1), lost (preempted), idle-blocked (a GPU job waits: wrong shape, another dim\n"
		"short, model not allowed, queue discipline, cluster full) and idle-unneeded (no\n"
		"GPU job waits). $/yr recoverable by placement = stalled + lost + blocked (but\n"
		"full); by sizing = unneeded. The notes under the table give the window, the\n"
		"prices and which figures rest on enrichment.\n",
	.scenario = 1,
	.operand = "STORE",
	.store = CMD_STORE_WRITE,
	.formats = 1,
	CMD_HOOKS(replay, replay_state),
};

static void bar_update(void *u, size_t run, size_t nruns, const char *policy, uint64_t seed,
		       double done)
{
	double all = ((double)run + fmin(fmax(done, 0), 1)) / (double)nruns;
	cmd_bar_draw(u, all, "run %zu/%zu  %s seed %" PRIu64 " ", run + 1, nruns, policy, seed);
}

/* Is row r among those pairs_text lists: stored ones (r->done 1 with a run id, or 2: read
 * back), or the others? */
static int row_is(const struct grid_row *r, int stored)
{
	int is_stored = (r->done == 1 && r->r.id) || r->done == 2;
	return stored ? is_stored : !is_stored;
}

/* The (policy, seed) pairs of rows (npol x nseed, policy-major, seeds lo..) that are stored
 * or not, as "fgd seeds 1-3, 5; ragp7 seed 2" into out. Returns how many. */
static size_t pairs_text(const struct grid_row *rows, const struct policy_ops *const *pols,
			 size_t npol, uint64_t lo, size_t nseed, int stored, struct sbuf *out)
{
	size_t count = 0;
	for (size_t p = 0; p < npol; p++) {
		const struct grid_row *r = rows + p * nseed;
		size_t np = 0;
		for (size_t k = 0; k < nseed; k++)
			np += (size_t)row_is(&r[k], stored);
		if (!np)
			continue;
		sbuf_printf(out, "%s%s seed%s ", count ? "; " : "", pols[p]->name,
			    np > 1 ? "s" : "");
		count += np;
		const char *sep = "";
		for (size_t k = 0; k < nseed; k++) {
			if (!row_is(&r[k], stored))
				continue;
			size_t k2 = k;
			while (k2 + 1 < nseed && row_is(&r[k2 + 1], stored))
				k2++;
			sbuf_printf(out, "%s%" PRIu64, sep, lo + k);
			if (k2 > k)
				sbuf_printf(out, "-%" PRIu64, lo + k2);
			sep = ", ";
			k = k2;
		}
	}
	return count;
}

/* arg quoted for a shell where it needs it. */
static void shell_word(const char *arg, struct sbuf *out)
{
	if (*arg && strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
				"-_=+./,:@%") == strlen(arg)) {
		sbuf_adds(out, arg);
		return;
	}
	sbuf_addc(out, '\'');
	for (; *arg; arg++)
		if (*arg == '\'')
			sbuf_adds(out, "'\\''");
		else
			sbuf_addc(out, *arg);
	sbuf_addc(out, '\'');
}

/* What a stopped or failed replay leaves: which runs are stored, which are not, and the
 * command that runs only those (argv: "replay" and its arguments). */
static void say_stored(const struct grid_row *rows, const struct policy_ops *const *pols,
		       size_t npol, uint64_t lo, uint64_t hi, const char *store, int argc,
		       char **argv, int stopped)
{
	size_t nseed = (size_t)(hi - lo) + 1, n = npol * nseed;
	struct sbuf b = SBUF_INIT;
	sbuf_init(&b);
	size_t kept = pairs_text(rows, pols, npol, lo, nseed, 1, &b);
	fprintf(stderr, "voidfit replay: %s: %zu of %zu runs stored in %s%s%s\n",
		stopped ? "stopped" : "failed", kept, n, store, kept ? ": " : "", b.s);
	if (kept < n) {
		int resume = 0;
		sbuf_reset(&b);
		pairs_text(rows, pols, npol, lo, nseed, 0, &b);
		fprintf(stderr, "not stored: %s\n", b.s);
		sbuf_reset(&b);
		sbuf_adds(&b, "voidfit");
		for (int i = 0; i < argc; i++) {
			sbuf_addc(&b, ' ');
			shell_word(argv[i], &b);
			resume |= !strcmp(argv[i], "--resume");
		}
		fprintf(stderr, "to run only those: %s%s\n", b.s, resume ? "" : " --resume");
	}
	sbuf_release(&b);
}

static int cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* ids (sorted here) as "1-3, 7, 9-10". */
static void id_ranges(int64_t *ids, size_t n, struct sbuf *out)
{
	qsort(ids, n, sizeof *ids, cmp_id);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && ids[j] == ids[j - 1] + 1; j++)
			;
		sbuf_printf(out, "%s%" PRId64, i ? ", " : "", ids[i]);
		if (j - i > 1)
			sbuf_printf(out, "-%" PRId64, ids[j - 1]);
	}
}

static int check_replay(struct cmd_ctx *ctx)
{
	struct replay_state *r = ctx->u;
	const struct cmd_entry *ce = ctx->ce;
	const char *policy = cmd_arg(ctx, 'p');
	int resume = cmd_has(ctx, CMD_K_RESUME) > 0, rc;
	struct err e = {0};

	r->lo = r->hi = 1;
	r->into = cmd_arg(ctx, CMD_K_INTO);
	r->no_store = cmd_has(ctx, 'n') > 0;
	if (!policy)
		return cmd_usage_error(ce, "no --policy given");
	if (replay_parse_policies(policy, &r->pols, &r->npol, &e))
		return cmd_usage_error(ce, "--policy: %s", e.msg);
	if (scenario_check(&ctx->sc, &e) ||
	    replay_seed_opts(cmd_arg(ctx, 's'), cmd_arg(ctx, CMD_K_SEEDS), &r->lo, &r->hi, &e))
		return cmd_usage_error(ce, "%s", e.msg);
	if ((rc = cmd_resample_opts(ce, cmd_arg(ctx, CMD_K_RESAMPLES), cmd_arg(ctx, CMD_K_BLOCK),
				    ctx->sc.mode, &r->nres, &r->block_s)))
		return rc;
	if (cmd_has(ctx, CMD_K_FORCE) && !r->into)
		return cmd_usage_error(ce, "--force is for --into");
	if (r->into && (r->no_store || resume))
		return cmd_usage_error(ce, "--into: not with --no-store or --resume");
	if (resume && r->no_store)
		return cmd_usage_error(ce, "--resume needs the store: not with --no-store");
	r->no_store |= r->into != NULL; /* STORE is only read; the runs go to the task store */
	if (r->no_store)
		ctx->store_mode = CMD_STORE_READ;
	return CMD_OK;
}

/* The runs of the scenario: 0, VF_ESTOP, or another failure in e. */
static int run_grid(struct cmd_ctx *ctx, struct replay_state *r, struct err *e)
{
	struct scenario *sc = &ctx->sc;
	struct cmd_long lg;
	struct grid g = {.sc = sc,
			 .pols = r->pols,
			 .npol = r->npol,
			 .lo = r->lo,
			 .hi = r->hi,
			 .nthreads = (unsigned)cmd_num(ctx, CMD_K_THREADS, util_ncpu()),
			 .st = r->into       ? r->task.t
			       : r->no_store ? NULL
					     : ctx->st,
			 .resume = cmd_has(ctx, CMD_K_RESUME) || r->task.resumed,
			 .progress = bar_update,
			 .u = &lg.bar,
			 .stop = &cmd_stop_signal};
	/* the trace's mean run time, for the overload warning (grid_run consumes base) */
	double dur = 0;
	size_t ndur = 0;
	for (size_t i = 0; i < sc->base.njobs; i++)
		if (sc->base.jobs[i].duration > 0) {
			dur += (double)sc->base.jobs[i].duration;
			ndur++;
		}
	r->run_mean_s = ndur ? dur / (double)ndur : NAN;
	cmd_long_begin(&lg);
	int grc = r->nres ? grid_run_resamples(&g, &sc->base, r->nres, r->block_s, &r->rows,
					       &r->enr, &r->block_used, e)
			  : grid_run(&g, &sc->base, &r->rows, &r->enr, e);
	if (r->into && sweep_task_end(&r->task, sc->trace_id,
				      !grc              ? SWEEP_END_DONE
				      : grc == VF_ESTOP ? SWEEP_END_KEEP
							: SWEEP_END_FAIL,
				      e))
		grc = VF_ESTORE;
	cmd_long_end(&lg);
	return grc;
}

/* What a stopped or failed replay says: its exit status. */
static int say_failed(struct cmd_ctx *ctx, const struct replay_state *r, int grc,
		      const struct err *e)
{
	int stored = !r->no_store;
	if (grc != VF_ESTOP)
		cmd_fail(ctx->ce, "%s", e->msg);
	if (stored && !r->nres)
		say_stored(r->rows, r->pols, r->npol, r->lo, r->hi, ctx->p.operands[0], ctx->argc,
			   ctx->argv, grc == VF_ESTOP);
	else if (r->into && grc == VF_ESTOP)
		fprintf(stderr,
			"voidfit replay: stopped: the runs done are kept in %s" SWEEP_PART
			"; run the task again to resume\n",
			r->into);
	else if (stored && r->rows) /* by resample: --resume runs what is missing */
		fprintf(stderr, "the runs done are stored; the same command with --resume "
				"runs the rest\n");
	return grc == VF_ESTOP ? CMD_STOPPED : CMD_FAIL;
}

/* "stored 3 runs in STORE (ids 4-6)", and how many were read back, on stderr. */
static void say_ids(const struct replay_state *r, size_t nrows, const char *store)
{
	size_t made = 0, back = 0;
	int64_t *ids = xcalloc(nrows, sizeof *ids);
	struct sbuf b = SBUF_INIT;
	sbuf_init(&b);
	for (size_t i = 0; i < nrows; i++) {
		if (r->rows[i].done == 1)
			ids[made++] = r->rows[i].r.id;
		back += r->rows[i].done == 2;
	}
	if (made) {
		/* the ids this replay inserted: another replay of the store may have stored
		 * runs between them */
		id_ranges(ids, made, &b);
		fprintf(stderr, "stored %zu run%s in %s (ids %s)", made, made == 1 ? "" : "s",
			store, b.s);
	} else {
		fprintf(stderr, "stored no new run in %s", store);
	}
	if (back)
		fprintf(stderr, "; %zu %s", back,
			r->into ? "kept from a run stopped before" : "read back (--resume)");
	fprintf(stderr, "\n");
	free(ids);
	sbuf_release(&b);
}

/* The summary table of the runs on stdout, its warnings on stderr: the exit status. */
static int print_runs(struct cmd_ctx *ctx, const struct replay_state *r, size_t nrows)
{
	const struct scenario *sc = &ctx->sc;
	struct sbuf note = SBUF_INIT, warn = SBUF_INIT;
	struct runrec *recs = xcalloc(nrows, sizeof *recs);
	const int64_t **fjobs = xcalloc(nrows, sizeof *fjobs);
	uint32_t assumed = 0;
	sbuf_init(&note);
	sbuf_init(&warn);
	for (size_t i = 0; i < nrows; i++) {
		recs[i] = r->rows[i].r;
		runrec_price(&recs[i], &sc->prices, &assumed);
		fjobs[i] = r->rows[i].fault_jobs;
	}
	struct summary_opts so = {.mode = sc->mode, .trace = sc->trace_name.s};
	struct table *tab = summary_table(recs, nrows, &so);
	enrich_describe(&r->enr, &note);
	summary_notes(tab, sc->mode, recs[0].w0, recs[0].w1, recs[0].v[RUNREC_PROVISIONED],
		      &sc->prices, assumed, note.s, sc->sample_nodes);
	struct summary_check ck = {.run_mean_s = r->run_mean_s,
				   .faults = sc->faults,
				   .nfaults = sc->nfaults,
				   .fault_jobs = fjobs};
	summary_warnings(recs, nrows, &ck, tab, &warn);
	if (r->nres)
		summary_resample_note(tab, r->nres, r->block_used);
	int rc = cmd_print_table(ctx, tab);
	if (!rc)
		fputs(warn.s, stderr);
	table_free(tab);
	free(recs);
	free(fjobs);
	sbuf_release(&note);
	sbuf_release(&warn);
	return rc;
}

static int exec_replay(struct cmd_ctx *ctx)
{
	struct replay_state *r = ctx->u;
	struct err e = {0};
	const char *store = ctx->p.operands[0];
	int rc;

	/* a store the runs cannot go into fails now, not after computing them */
	if (scenario_prices(&ctx->sc, &e)) /* a model of the store's own table is known now */
		return cmd_usage_error(ctx->ce, "%s", e.msg);
	if ((!r->no_store && store_can_write(ctx->st, &e)) ||
	    scenario_load(&ctx->sc, ctx->st, &e) ||
	    (r->into && sweep_task_begin(ctx->st, store, ctx->sc.trace_id, r->into,
					 cmd_has(ctx, CMD_K_FORCE) > 0, &r->task, &e)))
		return cmd_fail(ctx->ce, "%s", e.msg);
	int grc = run_grid(ctx, r, &e);
	if (grc)
		return say_failed(ctx, r, grc, &e);
	size_t nrows = r->npol * (size_t)(r->hi - r->lo + 1) * (r->nres ? r->nres : 1);
	if ((rc = print_runs(ctx, r, nrows)))
		return rc;
	if ((!r->no_store || r->into) && nrows)
		say_ids(r, nrows, r->into ? r->into : store);
	return CMD_OK;
}

static void release_replay(struct cmd_ctx *ctx)
{
	struct replay_state *r = ctx->u;
	sweep_task_end(&r->task, 0, SWEEP_END_FAIL, NULL);
	FREE_ALL(r->rows, r->pols);
}
