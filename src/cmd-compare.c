/*
 * cmd-compare.c — 'voidfit compare': every policy of one scenario as one table, the best per
 * column marked, and each policy's saving in $ per year against a baseline, paired by seed,
 * with its 95 % interval.
 *
 * Which runs: --scenario ID or --runs IDS, else the newest complete scenario of the trace
 * (runrec_select), and it says which. When the trace has no runs (of that mode), it runs
 * every policy itself and stores nothing.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "esc.h"
#include "grid.h"
#include "report.h"
#include "summary.h"

/* What check works out of the options, and what exec makes. */
struct compare_state {
	struct runrec_query q; /* which runs */
	int64_t *ids;          /* --runs */
	size_t nids;
	const struct policy_ops **pols, *baseline;
	size_t npol;
	uint32_t nres;         /* --resamples (0: none) */
	int64_t block_s;       /* --block (0: the default) */
	int64_t block_used;    /* the block the resamples drew */
	struct runrec_sel sel; /* the stored runs chosen */
	struct grid_row *rows; /* or the runs made here */
	struct runrec *recs;   /* nrecs: sel.runs, or those of rows */
	size_t nrecs;
	char *enriched;     /* what enrichment added, for the notes */
	enum sim_mode mode; /* of the runs */
	unsigned sampled;   /* their --sample-nodes */
};

static int opt_compare(struct cmd_ctx *ctx, int key, const char *arg);
CMD_DECLARE_HOOKS(compare);

const struct cmd_entry cmd_compare_entry = {
	.name = "compare",
	.usage = "STORE [--scenario ID | --runs IDS] [--trace T] [--policies P[,P...]] "
		 "[--mode timed|inflate] [--seed N | --seeds A-B] [--target X] [--sample-nodes K] "
		 "[--baseline P] [--price-tier T] [--gpu-price MODEL=USD]... "
		 "[--resamples N [--block DURATION]] [--json | --format F]",
	.summary =
		"compare policies on one scenario: one table, best marked, $ saved vs a baseline",
	.opts = CMD_USES(
		{CMD_O_SCENARIO, NULL, NULL}, {CMD_O_RUNS | CMD_OPT_BY_HOOK, NULL, NULL},
		{CMD_O_SC(TRACE), NULL, NULL},
		{CMD_O_POLICIES, NULL, "only these policies (default: every policy with runs)"},
		{CMD_O_POLICY, NULL, ""}, /* as replay spells it: no line of its own */
		{CMD_O_SC(MODE), NULL, "only scenarios of mode timed or inflate"},
		{CMD_O_SEED, NULL, "only runs of seed N"},
		{CMD_O_SEEDS, NULL, "only runs of seeds A..B (several: the mean per policy)"},
		{CMD_O_SC(TARGET), NULL,
		 "only inflation scenarios of target X (and the target\n"
		 "when compare runs the policies itself)"},
		{CMD_O_SC(SAMPLE), NULL,
		 "only scenarios made with --sample-nodes K (0: full\n"
		 "searches); when compare runs the policies itself, so"},
		{CMD_O_BASELINE, NULL, NULL},
		{CMD_O_SC(TIER), NULL, "price at on-demand (default), reserved, spot or owned"},
		{CMD_O_SC(PRICE), NULL, NULL},
		{CMD_O_RESAMPLES, NULL,
		 "replay every policy here on N block resamples of the\n"
		 "trace (timed; stores nothing): the saving's 95 %\n"
		 "interval is then over resamples x seeds"},
		{CMD_O_BLOCK, NULL,
		 "the blocks of --resamples (default a day; an hour when\n"
		 "the trace holds less than a week)"},
		{CMD_O_JSON, NULL, NULL}, {CMD_O_FORMAT, NULL, NULL}),
	.help = "Without --scenario or --runs, the newest scenario of the trace whose policies "
		"all\n"
		"have the same seeds (else the newest, flagged incomplete). When the trace has no\n"
		"runs, compare runs every policy itself with the defaults and stores nothing.\n"
		"'saving vs scalar' is scalar's recoverable-by-placement $/yr minus the policy's,\n"
		"seed by seed; '+/-' is the half-width of its 95 % interval (Student t), none\n"
		"when every seed gives the same; with --resamples, 'low' and 'high' bound it.\n",
	.operand = "STORE",
	.store = CMD_STORE_READ,
	.formats = 1,
	.opt = opt_compare,
	CMD_HOOKS(compare, compare_state),
};

/* --runs IDS. */
static int opt_compare(struct cmd_ctx *ctx, int key, const char *arg)
{
	struct compare_state *c = ctx->u;
	(void)key;
	return cmd_runs_opt(ctx, arg, &c->ids, &c->nids);
}

/* The query of the runs compared, from the options (check_compare has checked them). */
static void make_query(struct cmd_ctx *ctx, struct compare_state *c)
{
	struct runrec_query *q = &c->q;
	const struct scenario *sc = &ctx->sc;
	q->scenario_id = (int64_t)cmd_num(ctx, CMD_K_SCENARIO, 0);
	q->trace = sc->trace_arg;
	q->run_ids = c->ids;
	q->target_given = (sc->given & SCENARIO_G_TARGET) != 0;
	q->target = sc->target;
	q->nrun_ids = c->nids;
	q->mode = sc->given & SCENARIO_G_MODE ? (int)sc->mode : -1;
	q->pols = c->pols;
	q->npol = c->npol;
	q->seeds_given = cmd_arg(ctx, 's') || cmd_arg(ctx, CMD_K_SEEDS);
	q->sample_given = (sc->given & SCENARIO_G_SAMPLE) != 0;
	q->sample_nodes = sc->sample_nodes;
}

static int check_compare(struct cmd_ctx *ctx)
{
	struct compare_state *c = ctx->u;
	const struct cmd_entry *ce = ctx->ce;
	const char *pol = cmd_arg(ctx, 'p'), *base = cmd_arg(ctx, CMD_K_BASELINE);
	int scenario = cmd_has(ctx, CMD_K_SCENARIO) > 0, rc;
	struct scenario *sc = &ctx->sc;
	struct err e = {0};

	if (pol && replay_parse_policies(pol, &c->pols, &c->npol, &e))
		return cmd_usage_error(ce, "--policies: %s", e.msg);
	if (!(c->baseline = policy_find(base ? base : "scalar")))
		return cmd_usage_error(ce, "--baseline '%s': not a policy", base);
	if (replay_seed_opts(cmd_arg(ctx, 's'), cmd_arg(ctx, CMD_K_SEEDS), &c->q.lo, &c->q.hi, &e))
		return cmd_usage_error(ce, "%s", e.msg);
	if ((rc = cmd_resample_opts(ce, cmd_arg(ctx, CMD_K_RESAMPLES), cmd_arg(ctx, CMD_K_BLOCK),
				    sc->mode, &c->nres, &c->block_s)))
		return rc;
	if (c->nres && (scenario || c->ids))
		return cmd_usage_error(ce,
				       "--resamples replays here: not with --scenario or --runs");
	if (scenario && c->ids)
		return cmd_usage_error(ce, "give --scenario or --runs, not both");
	if ((rc = cmd_format(ctx)))
		return rc;
	if ((sc->given & SCENARIO_G_TARGET) && (sc->given & SCENARIO_G_MODE) &&
	    sc->mode != SIM_INFLATE)
		return cmd_usage_error(ce, "--target applies to --mode inflate only");
	if (sc->given & SCENARIO_G_TARGET) { /* a target is of inflation */
		sc->mode = SIM_INFLATE;
		sc->given |= SCENARIO_G_MODE;
	}
	make_query(ctx, c);
	return CMD_OK;
}

/* The stored runs chosen: which, on stderr, with what may be wrong with them. */
static void use_stored(struct compare_state *c)
{
	const struct runrec_sel *sel = &c->sel;
	struct sbuf desc = SBUF_INIT, why = SBUF_INIT, e1 = SBUF_INIT, e2 = SBUF_INIT;
	sbuf_init(&desc);
	sbuf_init(&why);
	c->mode = !strcmp(sel->sc.mode, "inflate") ? SIM_INFLATE : SIM_TIMED;
	c->sampled = sel->sc.sample_nodes > 0 ? (unsigned)sel->sc.sample_nodes : 0;
	runrec_describe(&sel->sc, NULL, &desc);
	runrec_why(sel, &c->q, &why);
	fprintf(stderr, "scenario %" PRId64 " of trace %s (%s): %zu run%s; %s\n", sel->scenario_id,
		esc_text_s(&e1, sel->trace_name.s), esc_text_s(&e2, desc.s), sel->n,
		sel->n == 1 ? "" : "s", why.s);
	if (sel->legacy)
		fprintf(stderr, "warning: these runs were made by an earlier voidfit, before "
				"GPU time was priced by bucket over one window: replay them "
				"for the $ figures\n");
	if (sel->partial)
		fprintf(stderr, "warning: the policies do not have the same seeds: the "
				"means are over different seeds (give --seeds, or replay the "
				"missing ones with --resume)\n");
	c->recs = sel->runs;
	c->nrecs = sel->n;
	if (sel->sc.enriched)
		c->enriched = xstrdup(sel->sc.enriched);
	sbuf_release(&desc);
	sbuf_release(&why);
	sbuf_release(&e1);
	sbuf_release(&e2);
}

/* No runs: replay every (or every named) policy here, without storing. */
static int run_here(struct cmd_ctx *ctx, struct compare_state *c)
{
	struct scenario *sc = &ctx->sc;
	struct enrich_summary enr;
	struct err e = {0};
	struct sbuf e1 = SBUF_INIT, note = SBUF_INIT;
	uint64_t lo = c->q.seeds_given ? c->q.lo : 1, hi = c->q.seeds_given ? c->q.hi : 1;
	char at[64] = "";
	if (c->ids || c->q.scenario_id)
		return cmd_fail(ctx->ce, "%s: no such runs", ctx->p.operands[0]);
	if ((!c->pols && replay_parse_policies("all", &c->pols, &c->npol, &e)) ||
	    scenario_load(sc, ctx->st, &e))
		return cmd_fail(ctx->ce, "%s", e.msg);
	store_read_end(ctx->st); /* the replay reads nothing more: writers may commit */
	c->mode = sc->mode;
	c->sampled = sc->sample_nodes;
	if (c->q.target_given)
		snprintf(at, sizeof at, " at target %g", sc->target);
	if (c->nres)
		fprintf(stderr,
			"trace %s: running %zu polic%s on %" PRIu32 " resamples (not stored)\n",
			esc_text_s(&e1, sc->trace_name.s), c->npol, c->npol == 1 ? "y" : "ies",
			c->nres);
	else
		fprintf(stderr,
			"no stored %s runs%s of trace %s: running %zu polic%s (not stored)\n",
			sim_mode_name(sc->mode), at, esc_text_s(&e1, sc->trace_name.s), c->npol,
			c->npol == 1 ? "y" : "ies");
	sbuf_release(&e1);
	struct grid g = {.sc = sc,
			 .pols = c->pols,
			 .npol = c->npol,
			 .lo = lo,
			 .hi = hi,
			 .nthreads = util_ncpu()};
	if (c->nres ? grid_run_resamples(&g, &sc->base, c->nres, c->block_s, &c->rows, &enr,
					 &c->block_used, &e)
		    : grid_run(&g, &sc->base, &c->rows, &enr, &e))
		return cmd_fail(ctx->ce, "%s", e.msg);
	c->nrecs = c->npol * (size_t)(hi - lo + 1) * (c->nres ? c->nres : 1);
	c->recs = xcalloc(c->nrecs, sizeof *c->recs);
	for (size_t i = 0; i < c->nrecs; i++)
		c->recs[i] = c->rows[i].r; /* policy-major then seed: summary_table's order */
	sbuf_init(&note);
	enrich_describe(&enr, &note);
	c->enriched = xstrdup(note.s);
	sbuf_release(&note);
	return CMD_OK;
}

/* The comparison table on stdout, its warnings first on stderr: the exit status. */
static int print_compare(struct cmd_ctx *ctx, struct compare_state *c)
{
	const struct scenario *sc = &ctx->sc;
	struct runrec *recs = c->recs;
	size_t n = c->nrecs;
	uint32_t assumed = 0;
	int has_base = 0;
	struct sbuf note = SBUF_INIT;
	sbuf_init(&note);
	for (size_t i = 0; i < n; i++) {
		runrec_price(&recs[i], &sc->prices, &assumed);
		has_base |= recs[i].policy == c->baseline;
	}
	struct summary_opts so = {.mode = c->mode,
				  .compare = 1,
				  .baseline = c->baseline,
				  .trace = c->sel.n ? c->sel.trace_name.s : sc->trace_name.s};
	struct table *tab = summary_table(recs, n, &so);
	if (!has_base) {
		sbuf_printf(&note, "no %s run: no saving to show (--baseline P)",
			    c->baseline->name);
		table_add_note(tab, note.s);
	}
	summary_notes(tab, c->mode, n ? recs[0].w0 : 0, n ? recs[0].w1 : 0,
		      n ? recs[0].v[RUNREC_PROVISIONED] : 0, &sc->prices, assumed, c->enriched,
		      c->sampled);
	/* the warnings also before the table, where they are read first (an idle cluster's $
	 * measure nothing) */
	sbuf_reset(&note);
	summary_warnings(recs, n, NULL, tab, &note);
	fwrite(note.s, 1, note.len, stderr);
	sbuf_reset(&note); /* the verdict leads: as 'voidfit size' stored it, or its command */
	struct err e = {0};
	double alloc = 0;
	for (size_t i = 0; i < n; i++)
		alloc += recs[i].v[RUNREC_ALLOC] / (double)n;
	if (c->sel.n && !report_verdict_lead(ctx->st, ctx->p.operands[0], &c->sel.sc,
					     c->baseline->name, n ? alloc : NAN, &note, &e)) {
		struct sbuf el = SBUF_INIT; /* it names the scenario's options: on a terminal */
		sbuf_init(&el);
		fprintf(stderr, "%s\n", esc_text_s(&el, note.s));
		sbuf_release(&el);
	}
	if (c->nres)
		summary_resample_note(tab, c->nres, c->block_used);
	int rc = cmd_print_table(ctx, tab);
	table_free(tab);
	sbuf_release(&note);
	return rc;
}

static int exec_compare(struct cmd_ctx *ctx)
{
	struct compare_state *c = ctx->u;
	struct err e = {0};
	int rc;

	if (scenario_prices(&ctx->sc, &e)) /* a model of the store's own table is known now */
		return cmd_usage_error(ctx->ce, "%s", e.msg);
	/* one read transaction: the runs compared and the scenario replayed when there are
	 * none are of one state of the store */
	if (store_read_begin(ctx->st, &e) ||
	    (!c->nres && runrec_select(ctx->st, ctx->p.operands[0], &c->q, &c->sel, &e)))
		return cmd_fail(ctx->ce, "%s", e.msg);
	if (c->sel.n) {
		store_read_end(ctx->st);
		use_stored(c);
	} else if ((rc = run_here(ctx, c))) {
		return rc;
	}
	return print_compare(ctx, c);
}

static void release_compare(struct cmd_ctx *ctx)
{
	struct compare_state *c = ctx->u;
	if (c->recs != c->sel.runs)
		free(c->recs);
	runrec_sel_release(&c->sel);
	FREE_ALL(c->rows, c->pols, c->ids, c->enriched);
}
