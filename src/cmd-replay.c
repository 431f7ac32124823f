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

static int exec_replay(int argc, char **argv);
extern const struct cmd_opt cmd_replay_opts[]; /* below */

const struct cmd_entry cmd_replay_entry = {
	.name = "replay",
	.usage = "STORE --policy P[,P...] [--seed N | --seeds A-B] [--resume] [--threads N] "
		 "[--no-store] [--into TASKSTORE [--force]] [--resamples N [--block DURATION]] "
		 "[--json | --format F] " SCENARIO_USAGE,
	.summary = "replay a trace under placement policies; store the runs; print a summary",
	.help = "  -p, --policy P[,P...]  policies to run, comma-separated, or 'all'\n"
		"  -s, --seed N           PRNG and enrichment seed (default 1)\n"
		"      --seeds A-B        one run per seed A..B, then the mean per policy\n"
		"      --resume           run only the (policy, seed) pairs the store lacks in\n"
		"                         this scenario (after an interrupted replay)\n"
		"      --threads N        run up to N (policy, seed) runs at once (default: the\n"
		"                         number of CPUs; the results do not depend on it)\n"
		"  -n, --no-store         do not store the runs; print only\n"
		"      --into TASKSTORE   store the runs in a new task store instead (a task of\n"
		"                         'voidfit sweep'; 'voidfit merge' folds it into STORE);\n"
		"                         a file there is refused unless it is a finished task\n"
		"                         store of the same trace (the task run again); each\n"
		"                         run is kept in TASKSTORE.part as it ends, and a task\n"
		"                         stopped (a signal, a time limit) or killed resumes\n"
		"                         after them when run again\n"
		"      --force            with --into: replace any regular file at TASKSTORE "
		"(never\n"
		"                         STORE itself)\n"
		"      --resamples N      timed: replay each (policy, seed) on N block resamples\n"
		"                         of the trace (whole days drawn with replacement; hours\n"
		"                         when it holds less than a week), each stored as a\n"
		"                         scenario of its own; the same resample for every policy\n"
		"      --block DURATION   the blocks of --resamples (90, 15m, 1h, 1d)\n"
		"      --json             print JSON (same as --format json)\n"
		"  -f, --format F         text (default), json, csv or md\n"
		"\n" SCENARIO_HELP "\n"
		"Provisioned GPU time over the window goes to buckets: productive, stalled (rate "
		"<\n"
		"1), lost (preempted), idle-blocked (a GPU job waits: wrong shape, another dim\n"
		"short, model not allowed, queue discipline, cluster full) and idle-unneeded (no\n"
		"GPU job waits). $/yr recoverable by placement = stalled + lost + blocked (but\n"
		"full); by sizing = unneeded. The notes under the table give the window, the\n"
		"prices and which figures rest on enrichment.\n",
	.opts = cmd_replay_opts,
	.exec = exec_replay,
};

enum {
	O_SEEDS = CMD_LONG_ONLY,
	O_JSON,
	O_THREADS,
	O_RESUME,
	O_INTO,
	O_FORCE,
	O_RESAMPLES,
	O_BLOCK
};

const struct cmd_opt cmd_replay_opts[] = {
	{"policy", 'p', 1},
	{"seed", 's', 1},
	{"seeds", O_SEEDS, 1},
	{"resume", O_RESUME, 0},
	{"threads", O_THREADS, 1},
	{"no-store", 'n', 0},
	{"into", O_INTO, 1},
	{"force", O_FORCE, 0},
	{"resamples", O_RESAMPLES, 1},
	{"block", O_BLOCK, 1},
	{"json", O_JSON, 0},
	{"format", 'f', 1},
	SCENARIO_OPTS,
	{NULL, 0, 0},
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

static int exec_replay(int argc, char **argv)
{
	struct cmd_parser p;
	struct scenario sc;
	struct err e = {0};
	const struct policy_ops **pols = NULL;
	size_t npol = 0;
	const char *policy_arg = NULL, *seeds_arg = NULL, *seed_arg = NULL, *fmt = "text";
	const char *into = NULL, *nres_arg = NULL, *block_arg = NULL;
	uint32_t nres = 0;
	int64_t block_s = 0;
	struct sweep_task task = {0};
	int no_store = 0, json = 0, resume = 0, force = 0, c, rc = CMD_OK;
	uint64_t lo = 1, hi = 1;
	unsigned nthreads = util_ncpu();
	struct store *st = NULL;
	struct sbuf out = SBUF_INIT, note = SBUF_INIT, warn = SBUF_INIT;
	const int64_t **fjobs = NULL;
	struct grid_row *rows = NULL;
	struct runrec *recs = NULL;
	struct enrich_summary enr = {0};
	struct table *tab = NULL;
	struct cmd_bar bar;
	struct cmd_stop stop;

	sbuf_init(&out);
	sbuf_init(&note);
	sbuf_init(&warn);
	scenario_init(&sc);
	cmd_parser_init(&p, argc, argv);
	while ((c = cmd_getopt(&p, cmd_replay_opts)) != -1 && rc == CMD_OK) {
		switch (c) {
		case 'p':
			policy_arg = p.arg;
			break;
		case 's':
			seed_arg = p.arg;
			break;
		case O_SEEDS:
			seeds_arg = p.arg;
			break;
		case O_RESUME:
			resume = 1;
			break;
		case O_THREADS:
			rc = cmd_whole_opt(&cmd_replay_entry, "threads", p.arg, 1, 1024, &nthreads);
			break;
		case 'n':
			no_store = 1;
			break;
		case O_INTO:
			into = p.arg;
			break;
		case O_FORCE:
			force = 1;
			break;
		case O_RESAMPLES:
			nres_arg = p.arg;
			break;
		case O_BLOCK:
			block_arg = p.arg;
			break;
		case O_JSON:
			json = 1;
			break;
		case 'f':
			fmt = p.arg;
			break;
		default:
			if (scenario_is_key(c)) {
				if (scenario_set(&sc, c, p.arg, &e))
					rc = cmd_usage_error(&cmd_replay_entry, "%s", e.msg);
				break;
			}
			rc = cmd_opt_error(&cmd_replay_entry, &p);
		}
	}
	if (rc != CMD_OK)
		goto out;

	/* ---- checks that need all the options ---- */
	if (p.nops != 1) {
		rc = cmd_usage_error(&cmd_replay_entry,
				     p.nops ? "one STORE only" : "no STORE given");
		goto out;
	}
	if (!policy_arg) {
		rc = cmd_usage_error(&cmd_replay_entry, "no --policy given");
		goto out;
	}
	if (replay_parse_policies(policy_arg, &pols, &npol, &e)) {
		rc = cmd_usage_error(&cmd_replay_entry, "--policy: %s", e.msg);
		goto out;
	}
	if (scenario_check(&sc, &e)) {
		rc = cmd_usage_error(&cmd_replay_entry, "%s", e.msg);
		goto out;
	}
	if (replay_seed_opts(seed_arg, seeds_arg, &lo, &hi, &e)) {
		rc = cmd_usage_error(&cmd_replay_entry, "%s", e.msg);
		goto out;
	}
	if ((rc = cmd_resample_opts(&cmd_replay_entry, nres_arg, block_arg, sc.mode, &nres,
				    &block_s)))
		goto out;
	if (force && !into) {
		rc = cmd_usage_error(&cmd_replay_entry, "--force is for --into");
		goto out;
	}
	if (into && (no_store || resume)) {
		rc = cmd_usage_error(&cmd_replay_entry, "--into: not with --no-store or --resume");
		goto out;
	}
	if (resume && no_store) {
		rc = cmd_usage_error(&cmd_replay_entry,
				     "--resume needs the store: not with --no-store");
		goto out;
	}
	if (json)
		fmt = "json";
	const struct table_ops *fops = table_format_find(fmt);
	if (!fops) {
		rc = cmd_usage_error(&cmd_replay_entry, "--format '%s': not text, json, csv or md",
				     fmt);
		goto out;
	}

	/* ---- inputs: a store the runs cannot go into fails now, not after computing them ---- */
	if (into)
		no_store = 1; /* STORE is only read; the runs go to the task store */
	if (store_open(p.operands[0], no_store ? STORE_RDONLY : 0, &st, &e)) {
		rc = cmd_fail(&cmd_replay_entry, "%s", e.msg);
		goto out;
	}
	if (scenario_prices(&sc, &e)) { /* a model of the store's own table is known now */
		rc = cmd_usage_error(&cmd_replay_entry, "%s", e.msg);
		goto out;
	}
	if ((!no_store && store_can_write(st, &e)) || scenario_load(&sc, st, &e) ||
	    (into && sweep_task_begin(st, p.operands[0], sc.trace_id, into, force, &task, &e))) {
		rc = cmd_fail(&cmd_replay_entry, "%s", e.msg);
		goto out;
	}

	/* ---- the runs ---- */
	struct grid g = {.sc = &sc,
			 .pols = pols,
			 .npol = npol,
			 .lo = lo,
			 .hi = hi,
			 .nthreads = nthreads,
			 .st = into       ? task.t
			       : no_store ? NULL
					  : st,
			 .resume = resume || task.resumed,
			 .progress = bar_update,
			 .u = &bar,
			 .stop = &cmd_stop_signal};
	/* the trace's mean run time, for the overload warning (grid_run consumes base) */
	double dur = 0;
	size_t ndur = 0;
	for (size_t i = 0; i < sc.base.njobs; i++)
		if (sc.base.jobs[i].duration > 0) {
			dur += (double)sc.base.jobs[i].duration;
			ndur++;
		}
	struct summary_check ck = {.run_mean_s = ndur ? dur / (double)ndur : NAN,
				   .faults = sc.faults,
				   .nfaults = sc.nfaults};

	cmd_bar_start(&bar);
	cmd_stop_catch(&stop);
	int64_t block_used = 0;
	int grc =
		nres ? grid_run_resamples(&g, &sc.base, nres, block_s, &rows, &enr, &block_used, &e)
		     : grid_run(&g, &sc.base, &rows, &enr, &e);
	if (into && sweep_task_end(&task, sc.trace_id,
				   !grc              ? SWEEP_END_DONE
				   : grc == VF_ESTOP ? SWEEP_END_KEEP
						     : SWEEP_END_FAIL,
				   &e))
		grc = VF_ESTORE;
	cmd_stop_release(&stop);
	cmd_bar_clear(&bar);
	size_t nrows = npol * (size_t)(hi - lo + 1) * (nres ? nres : 1);
	if (grc) {
		if (grc != VF_ESTOP)
			cmd_fail(&cmd_replay_entry, "%s", e.msg);
		if (!no_store && !nres)
			say_stored(rows, pols, npol, lo, hi, p.operands[0], argc, argv,
				   grc == VF_ESTOP);
		else if (into && grc == VF_ESTOP)
			fprintf(stderr,
				"voidfit replay: stopped: the runs done are kept in %s" SWEEP_PART
				"; run the task again to resume\n",
				into);
		else if (!no_store && rows) /* by resample: --resume runs what is missing */
			fprintf(stderr, "the runs done are stored; the same command with --resume "
					"runs the rest\n");
		rc = grc == VF_ESTOP ? 130 : CMD_FAIL;
		goto out;
	}
	uint32_t assumed = 0;
	recs = xcalloc(nrows, sizeof *recs);
	for (size_t i = 0; i < nrows; i++) {
		recs[i] = rows[i].r;
		runrec_price(&recs[i], &sc.prices, &assumed);
	}
	struct summary_opts so = {.mode = sc.mode, .trace = sc.trace_name.s};
	tab = summary_table(recs, nrows, &so);
	enrich_describe(&enr, &note);
	summary_notes(tab, sc.mode, recs[0].w0, recs[0].w1, recs[0].v[RUNREC_PROVISIONED],
		      &sc.prices, assumed, note.s, sc.sample_nodes);
	fjobs = xcalloc(nrows, sizeof *fjobs);
	for (size_t i = 0; i < nrows; i++)
		fjobs[i] = rows[i].fault_jobs;
	ck.fault_jobs = fjobs;
	summary_warnings(recs, nrows, &ck, tab, &warn);
	if (nres)
		summary_resample_note(tab, nres, block_used);
	fops->write(tab, &out);
	fwrite(out.s, 1, out.len, stdout);
	if (fflush(stdout) || ferror(stdout)) {
		rc = cmd_fail(&cmd_replay_entry, "stdout: write error");
		goto out;
	}
	fputs(warn.s, stderr);
	if ((!no_store || into) && nrows) {
		size_t made = 0, back = 0;
		int64_t *ids = xcalloc(nrows, sizeof *ids);
		for (size_t i = 0; i < nrows; i++) {
			if (rows[i].done == 1)
				ids[made++] = rows[i].r.id;
			back += rows[i].done == 2;
		}
		if (made) {
			/* the ids this replay inserted: another replay of the store may have
			 * stored runs between them */
			sbuf_reset(&out);
			id_ranges(ids, made, &out);
			fprintf(stderr, "stored %zu run%s in %s (ids %s)", made,
				made == 1 ? "" : "s", into ? into : p.operands[0], out.s);
		} else {
			fprintf(stderr, "stored no new run in %s", into ? into : p.operands[0]);
		}
		free(ids);
		if (back)
			fprintf(stderr, "; %zu %s", back,
				into ? "kept from a run stopped before" : "read back (--resume)");
		fprintf(stderr, "\n");
	}
out:
	sweep_task_end(&task, 0, SWEEP_END_FAIL, NULL);
	table_free(tab);
	free(rows);
	free(recs);
	scenario_release(&sc);
	store_close(st);
	sbuf_release(&out);
	sbuf_release(&note);
	sbuf_release(&warn);
	free(fjobs);
	free(pols);
	cmd_parser_release(&p);
	return rc;
}
