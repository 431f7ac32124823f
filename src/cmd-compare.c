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

static int exec_compare(int argc, char **argv);
extern const struct cmd_opt cmd_compare_opts[]; /* below */

const struct cmd_entry cmd_compare_entry = {
	.name = "compare",
	.usage = "STORE [--scenario ID | --runs IDS] [--trace T] [--policies P[,P...]] "
		 "[--mode timed|inflate] [--seed N | --seeds A-B] [--target X] [--sample-nodes K] "
		 "[--baseline P] [--price-tier T] [--gpu-price MODEL=USD]... "
		 "[--resamples N [--block DURATION]] [--json | --format F]",
	.summary =
		"compare policies on one scenario: one table, best marked, $ saved vs a baseline",
	.help = "      --scenario ID      the runs of scenario ID ('voidfit runs' lists them)\n"
		"      --runs IDS         these runs (\"3,5-9\"), all of one scenario\n"
		"      --trace T          trace of the store, by name or id (default: the newest)\n"
		"  -p, --policies P,...   only these policies (default: every policy with runs)\n"
		"  -m, --mode M           only scenarios of mode timed or inflate\n"
		"  -s, --seed N           only runs of seed N\n"
		"      --seeds A-B        only runs of seeds A..B (several: the mean per policy)\n"
		"  -t, --target X         only inflation scenarios of target X (and the target\n"
		"                         when compare runs the policies itself)\n"
		"      --sample-nodes K   only scenarios made with --sample-nodes K (0: full\n"
		"                         searches); when compare runs the policies itself, so\n"
		"      --baseline P       the policy savings are measured against (default "
		"scalar)\n"
		"      --price-tier T     price at on-demand (default), reserved, spot or owned\n"
		"      --gpu-price M=USD  price of one GPU-hour of model M (repeatable)\n"
		"      --resamples N      replay every policy here on N block resamples of the\n"
		"                         trace (timed; stores nothing): the saving's 95 %\n"
		"                         interval is then over resamples x seeds\n"
		"      --block DURATION   the blocks of --resamples (default a day; an hour when\n"
		"                         the trace holds less than a week)\n"
		"      --json             print JSON (same as --format json)\n"
		"  -f, --format F         text (default), json, csv or md\n"
		"\n"
		"Without --scenario or --runs, the newest scenario of the trace whose policies "
		"all\n"
		"have the same seeds (else the newest, flagged incomplete). When the trace has no\n"
		"runs, compare runs every policy itself with the defaults and stores nothing.\n"
		"'saving vs scalar' is scalar's recoverable-by-placement $/yr minus the policy's,\n"
		"seed by seed; '+/-' is the half-width of its 95 % interval (Student t), none\n"
		"when every seed gives the same; with --resamples, 'low' and 'high' bound it.\n",
	.opts = cmd_compare_opts,
	.exec = exec_compare,
};

enum { O_SEEDS = CMD_LONG_ONLY, O_JSON, O_SCENARIO, O_RUNS, O_BASELINE, O_RESAMPLES, O_BLOCK };

const struct cmd_opt cmd_compare_opts[] = {
	{"trace", SCENARIO_K_TRACE, 1},
	{"policies", 'p', 1},
	{"policy", 'p', 1},
	{"mode", SCENARIO_K_MODE, 1},
	{"seed", 's', 1},
	{"seeds", O_SEEDS, 1},
	{"target", SCENARIO_K_TARGET, 1},
	{"sample-nodes", SCENARIO_K_SAMPLE, 1},
	{"gpu-price", SCENARIO_K_PRICE, 1},
	{"price-tier", SCENARIO_K_TIER, 1},
	{"scenario", O_SCENARIO, 1},
	{"runs", O_RUNS, 1},
	{"baseline", O_BASELINE, 1},
	{"resamples", O_RESAMPLES, 1},
	{"block", O_BLOCK, 1},
	{"json", O_JSON, 0},
	{"format", 'f', 1},
	{NULL, 0, 0},
};

static int exec_compare(int argc, char **argv)
{
	struct cmd_parser p;
	struct err e = {0};
	struct scenario sc;
	const char *pol_arg = NULL, *fmt = "text", *seed_arg = NULL, *seeds_arg = NULL;
	const char *base_arg = "scalar", *nres_arg = NULL, *block_arg = NULL;
	uint32_t nres = 0;
	int64_t block_s = 0, block_used = 0;
	int c, rc = CMD_OK, json = 0;
	struct runrec_query q = {.mode = -1};
	int64_t *ids = NULL;
	size_t nids = 0;
	const struct policy_ops **pols = NULL, *baseline = NULL;
	size_t npol = 0;
	struct store *st = NULL;
	struct runrec_sel sel = {0};
	struct grid_row *rows = NULL;
	struct runrec *recs = NULL;
	size_t nrecs = 0;
	struct table *tab = NULL;
	struct sbuf out = SBUF_INIT, desc = SBUF_INIT, note = SBUF_INIT;
	char *enriched = NULL;

	sbuf_init(&out);
	sbuf_init(&desc);
	sbuf_init(&note);
	scenario_init(&sc);
	cmd_parser_init(&p, argc, argv);
	while ((c = cmd_getopt(&p, cmd_compare_opts)) != -1 && rc == CMD_OK) {
		switch (c) {
		case 'p':
			pol_arg = p.arg;
			break;
		case 's':
			seed_arg = p.arg;
			break;
		case O_SEEDS:
			seeds_arg = p.arg;
			break;
		case O_SCENARIO: {
			double v;
			if (!(rc = cmd_num_opt(&cmd_compare_entry, "scenario", p.arg, 1, 0, &v)))
				q.scenario_id = (int64_t)v;
			break;
		}
		case O_RUNS:
			if (runrec_parse_ids(p.arg, &ids, &nids, &e))
				rc = cmd_usage_error(&cmd_compare_entry, "--runs %s", e.msg);
			break;
		case O_BASELINE:
			base_arg = p.arg;
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
					rc = cmd_usage_error(&cmd_compare_entry, "%s", e.msg);
				break;
			}
			rc = cmd_opt_error(&cmd_compare_entry, &p);
		}
	}
	if (rc != CMD_OK)
		goto out;
	if (p.nops != 1) {
		rc = cmd_usage_error(&cmd_compare_entry,
				     p.nops ? "one STORE only" : "no STORE given");
		goto out;
	}
	if (pol_arg && replay_parse_policies(pol_arg, &pols, &npol, &e)) {
		rc = cmd_usage_error(&cmd_compare_entry, "--policies: %s", e.msg);
		goto out;
	}
	if (!(baseline = policy_find(base_arg))) {
		rc = cmd_usage_error(&cmd_compare_entry, "--baseline '%s': not a policy", base_arg);
		goto out;
	}
	if (replay_seed_opts(seed_arg, seeds_arg, &q.lo, &q.hi, &e)) {
		rc = cmd_usage_error(&cmd_compare_entry, "%s", e.msg);
		goto out;
	}
	if ((rc = cmd_resample_opts(&cmd_compare_entry, nres_arg, block_arg, sc.mode, &nres,
				    &block_s)))
		goto out;
	if (nres && (q.scenario_id || ids)) {
		rc = cmd_usage_error(&cmd_compare_entry,
				     "--resamples replays here: not with --scenario or --runs");
		goto out;
	}
	if (q.scenario_id && ids) {
		rc = cmd_usage_error(&cmd_compare_entry, "give --scenario or --runs, not both");
		goto out;
	}
	if (json)
		fmt = "json";
	const struct table_ops *fops = table_format_find(fmt);
	if (!fops) {
		rc = cmd_usage_error(&cmd_compare_entry, "--format '%s': not text, json, csv or md",
				     fmt);
		goto out;
	}
	if ((sc.given & SCENARIO_G_TARGET) && (sc.given & SCENARIO_G_MODE) &&
	    sc.mode != SIM_INFLATE) {
		rc = cmd_usage_error(&cmd_compare_entry, "--target applies to --mode inflate only");
		goto out;
	}
	if (sc.given & SCENARIO_G_TARGET) { /* a target is of inflation */
		sc.mode = SIM_INFLATE;
		sc.given |= SCENARIO_G_MODE;
	}
	q.trace = sc.trace_arg;
	q.run_ids = ids;
	q.target_given = (sc.given & SCENARIO_G_TARGET) != 0;
	q.target = sc.target;
	q.nrun_ids = nids;
	q.mode = sc.given & SCENARIO_G_MODE ? (int)sc.mode : -1;
	q.pols = pols;
	q.npol = npol;
	q.seeds_given = seed_arg || seeds_arg;
	q.sample_given = (sc.given & SCENARIO_G_SAMPLE) != 0;
	q.sample_nodes = sc.sample_nodes;

	/* one read transaction: the runs compared and the scenario replayed when there are
	 * none are of one state of the store */
	if (store_open(p.operands[0], STORE_RDONLY, &st, &e)) {
		rc = cmd_fail(&cmd_compare_entry, "%s", e.msg);
		goto out;
	}
	if (scenario_prices(&sc, &e)) { /* a model of the store's own table is known now */
		rc = cmd_usage_error(&cmd_compare_entry, "%s", e.msg);
		goto out;
	}
	if (store_read_begin(st, &e) || (!nres && runrec_select(st, p.operands[0], &q, &sel, &e))) {
		rc = cmd_fail(&cmd_compare_entry, "%s", e.msg);
		goto out;
	}
	uint32_t assumed = 0;
	enum sim_mode mode;
	if (sel.n)
		store_read_end(st);
	unsigned sampled = 0;
	if (sel.n) {
		mode = !strcmp(sel.sc.mode, "inflate") ? SIM_INFLATE : SIM_TIMED;
		sampled = sel.sc.sample_nodes > 0 ? (unsigned)sel.sc.sample_nodes : 0;
		runrec_describe(&sel.sc, NULL, &desc);
		struct sbuf e1 = SBUF_INIT, e2 = SBUF_INIT;
		sbuf_reset(&note);
		runrec_why(&sel, &q, &note);
		fprintf(stderr, "scenario %" PRId64 " of trace %s (%s): %zu run%s; %s\n",
			sel.scenario_id, esc_text_s(&e1, sel.trace_name.s), esc_text_s(&e2, desc.s),
			sel.n, sel.n == 1 ? "" : "s", note.s);
		sbuf_release(&e1);
		sbuf_release(&e2);
		if (sel.legacy)
			fprintf(stderr,
				"warning: these runs were made by an earlier voidfit, before "
				"GPU time was priced by bucket over one window: replay them "
				"for the $ figures\n");
		if (sel.partial)
			fprintf(stderr,
				"warning: the policies do not have the same seeds: the "
				"means are over different seeds (give --seeds, or replay the "
				"missing ones with --resume)\n");
		recs = sel.runs;
		nrecs = sel.n;
		if (sel.sc.enriched)
			enriched = xstrdup(sel.sc.enriched);
	} else {
		/* no runs: replay every (or every named) policy here, without storing */
		struct enrich_summary enr;
		uint64_t lo = q.seeds_given ? q.lo : 1, hi = q.seeds_given ? q.hi : 1;
		if (ids || q.scenario_id) {
			rc = cmd_fail(&cmd_compare_entry, "%s: no such runs", p.operands[0]);
			goto out;
		}
		if (!pols && replay_parse_policies("all", &pols, &npol, &e)) {
			rc = cmd_fail(&cmd_compare_entry, "%s", e.msg);
			goto out;
		}
		if (scenario_load(&sc, st, &e)) {
			rc = cmd_fail(&cmd_compare_entry, "%s", e.msg);
			goto out;
		}
		store_read_end(st); /* the replay reads nothing more: writers may commit */
		mode = sc.mode;
		sampled = sc.sample_nodes;
		struct sbuf e1 = SBUF_INIT;
		char at[64] = "";
		if (q.target_given)
			snprintf(at, sizeof at, " at target %g", sc.target);
		if (nres)
			fprintf(stderr,
				"trace %s: running %zu polic%s on %" PRIu32
				" resamples (not stored)\n",
				esc_text_s(&e1, sc.trace_name.s), npol, npol == 1 ? "y" : "ies",
				nres);
		else
			fprintf(stderr,
				"no stored %s runs%s of trace %s: running %zu polic%s (not "
				"stored)\n",
				sim_mode_name(sc.mode), at, esc_text_s(&e1, sc.trace_name.s), npol,
				npol == 1 ? "y" : "ies");
		sbuf_release(&e1);
		struct grid g = {.sc = &sc,
				 .pols = pols,
				 .npol = npol,
				 .lo = lo,
				 .hi = hi,
				 .nthreads = util_ncpu()};
		if (nres ? grid_run_resamples(&g, &sc.base, nres, block_s, &rows, &enr, &block_used,
					      &e)
			 : grid_run(&g, &sc.base, &rows, &enr, &e)) {
			rc = cmd_fail(&cmd_compare_entry, "%s", e.msg);
			goto out;
		}
		nrecs = npol * (size_t)(hi - lo + 1) * (nres ? nres : 1);
		recs = xcalloc(nrecs, sizeof *recs);
		for (size_t i = 0; i < nrecs; i++)
			recs[i] = rows[i].r;
		/* rows are policy-major then seed: the order summary_table wants */
		enrich_describe(&enr, &note);
		enriched = xstrdup(note.s);
	}
	for (size_t i = 0; i < nrecs; i++)
		runrec_price(&recs[i], &sc.prices, &assumed);
	struct summary_opts so = {.mode = mode,
				  .compare = 1,
				  .baseline = baseline,
				  .trace = sel.n ? sel.trace_name.s : sc.trace_name.s};
	tab = summary_table(recs, nrecs, &so);
	int has_base = 0;
	for (size_t i = 0; i < nrecs; i++)
		has_base |= recs[i].policy == baseline;
	if (!has_base) {
		sbuf_reset(&note);
		sbuf_printf(&note, "no %s run: no saving to show (--baseline P)", baseline->name);
		table_add_note(tab, note.s);
	}
	summary_notes(tab, mode, nrecs ? recs[0].w0 : 0, nrecs ? recs[0].w1 : 0,
		      nrecs ? recs[0].v[RUNREC_PROVISIONED] : 0, &sc.prices, assumed, enriched,
		      sampled);
	/* the warnings also before the table, where they are read first (an idle cluster's $
	 * measure nothing) */
	sbuf_reset(&note);
	summary_warnings(recs, nrecs, NULL, tab, &note);
	fwrite(note.s, 1, note.len, stderr);
	sbuf_reset(&note); /* the verdict leads: as 'voidfit size' stored it, or its command */
	if (sel.n &&
	    !report_verdict_lead(st, p.operands[0], sel.scenario_id, baseline->name, &note, &e))
		fprintf(stderr, "%s\n", note.s);
	if (nres)
		summary_resample_note(tab, nres, block_used);
	fops->write(tab, &out);
	fwrite(out.s, 1, out.len, stdout);
	if (fflush(stdout) || ferror(stdout))
		rc = cmd_fail(&cmd_compare_entry, "stdout: write error");
out:
	if (recs != sel.runs)
		free(recs);
	runrec_sel_release(&sel);
	free(rows);
	free(pols);
	free(ids);
	free(enriched);
	table_free(tab);
	scenario_release(&sc);
	store_close(st);
	sbuf_release(&out);
	sbuf_release(&desc);
	sbuf_release(&note);
	cmd_parser_release(&p);
	return rc;
}
