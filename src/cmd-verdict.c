/*
 * cmd-verdict.c — 'voidfit verdict': the two answers a planner takes to the bill (verdict.h)
 * for a baseline and candidate policies, led by one sentence, then a line per policy (or a
 * table of them with each policy's sentence, in JSON, CSV or Markdown). It computes; nothing
 * is stored (a sizing of each policy is what 'voidfit size' stores).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "metrics.h"
#include "replay.h"
#include "table.h"
#include "verdict.h"

static int exec_verdict(int argc, char **argv);
extern const struct cmd_opt cmd_verdict_opts[]; /* below */

const struct cmd_entry cmd_verdict_entry = {
	.name = "verdict",
	.usage = "STORE [--baseline P] [--policy P[,P...]] [--slo SLO]... [--seeds A-B] "
		 "[--shrink MODEL] [--growth-cap G] [--no-headroom] [--resamples N [--block "
		 "DURATION]] [--no-give-up] [--threads N] [--format F] " SCENARIO_USAGE,
	.summary = "fewer GPUs at the same service, and headroom for more demand, in $/yr",
	.help = "      --baseline P       today's policy, whose service is kept (default scalar)\n"
		"  -p, --policy P[,P...]  candidates, comma-separated, or 'all' (default all)\n"
		"      --slo SLO          the service to keep (as size takes it); default: what\n"
		"                         the baseline gives on the full cluster, its wait p95\n"
		"                         and no more unplaceable jobs\n"
		"      --seeds A-B        the SLO must hold at every seed A..B (default 1)\n"
		"      --shrink MODEL     retire or buy nodes of GPU model MODEL only\n"
		"      --growth-cap G     search headroom up to +G x today's demand (default 1)\n"
		"      --no-headroom      the first answer only\n"
		"      --resamples N      timed: both answers again on N block resamples of the\n"
		"                         trace (the same for every policy), and their 90 %\n"
		"                         percentile interval in the sentence\n"
		"      --block DURATION   the blocks of --resamples (90, 15m, 1h, 1d; default a\n"
		"                         day, an hour when the trace is shorter than a week)\n"
		"      --no-give-up       replay every probe to its end (the answers are the "
		"same,\n"
		"                         later: a probe otherwise stops once it cannot meet the\n"
		"                         SLO)\n"
		"      --threads N        runs at once (default: the number of CPUs; the answers\n"
		"                         do not depend on it where the SLO holds on every larger\n"
		"                         cluster: the search probes more sizes a round with more\n"
		"                         threads, and may find another boundary elsewhere)\n"
		"  -f, --format F         text (default), json, csv or md: a row per policy with\n"
		"                         its answers, their intervals and its sentence\n"
		"\n" SCENARIO_HELP "\n"
		"Fewer GPUs: the baseline's smallest cluster (size's search) minus each policy's,\n"
		"in GPUs by model and x price per GPU-hour x 8760 h. Headroom: the largest growth\n"
		"g (steps of 2 %) each policy absorbs at the SLO on today's cluster, the extra\n"
		"jobs drawn from the trace's own mix; priced as the GPUs the baseline would buy\n"
		"to absorb g too. See voidfit(7).\n",
	.opts = cmd_verdict_opts,
	.exec = exec_verdict,
};

enum {
	O_SEEDS = CMD_LONG_ONLY,
	O_SLO,
	O_SHRINK,
	O_THREADS,
	O_BASELINE,
	O_CAP,
	O_NOHEAD,
	O_RESAMPLES,
	O_BLOCK,
	O_NOGIVEUP
};

const struct cmd_opt cmd_verdict_opts[] = {
	{"baseline", O_BASELINE, 1},
	{"policy", 'p', 1},
	{"slo", O_SLO, 1},
	{"seeds", O_SEEDS, 1},
	{"shrink", O_SHRINK, 1},
	{"growth-cap", O_CAP, 1},
	{"no-headroom", O_NOHEAD, 0},
	{"threads", O_THREADS, 1},
	{"resamples", O_RESAMPLES, 1},
	{"block", O_BLOCK, 1},
	{"no-give-up", O_NOGIVEUP, 0},
	{"format", 'f', 1},
	SCENARIO_OPTS,
	{NULL, 0, 0},
};

/* Called from the runs' threads, serialised. */
static void bar_update(void *u, double done, const char *policy, unsigned step, size_t nodes)
{
	cmd_bar_draw(u, done, "%s on %zu nodes (step %u) ", policy, nodes, step);
}

/* One line per policy: its smallest cluster, the saving, the headroom and its price (and,
 * with resamples, the intervals of the saving and the headroom). */
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
		fprintf(f, "%s\n",
			p->is_base    ? "  baseline"
			: p->buy_over ? "  (lower bound)"
				      : "");
	}
}

/* A row per policy with its answers, their intervals and its own sentence; lead (the
 * verdict's sentence) as the table's note. */
static struct table *verdict_table(const struct verdict *v, const struct scenario *sc, uint64_t lo,
				   uint64_t hi, const char *lead)
{
	static const struct table_col labels[] = {
		{"policy", "policy", NULL, 0, 0, 0},
		{"role", "role", NULL, 0, 0, 0},
		{"slo", "slo", NULL, 0, 0, TABLE_C_TEXT_HIDE},
		{"sentence", "sentence", NULL, 0, 0, TABLE_C_TEXT_HIDE},
		{"usd_per_year_resamples", "resamples", NULL, 0, 0, TABLE_C_TEXT_HIDE},
		{"headroom_resamples", "resamples", NULL, 0, 0, TABLE_C_TEXT_HIDE},
	};
	static const struct table_col nums[] = {
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
		{"resamples", "resamples", NULL, 0, TABLE_NEUTRAL, TABLE_C_TEXT_HIDE},
		{"block_s", "block", "s", 0, TABLE_NEUTRAL, TABLE_C_TEXT_HIDE},
		{"interval_level", "level", NULL, 2, TABLE_NEUTRAL, TABLE_C_TEXT_HIDE},
		{"window_hours", "window", "h", 2, TABLE_NEUTRAL, TABLE_C_TEXT_HIDE},
	};
	struct table *t =
		table_new(labels, sizeof labels / sizeof *labels, nums, sizeof nums / sizeof *nums);
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
				(double)v->nres,
				v->nres ? (double)v->block_s : nan,
				v->nres ? VERDICT_LEVEL : nan,
				(double)(v->w1 - v->w0) / 3600};
		table_add_row(t, lab, val, 0);
	}
	table_add_note(t, lead);
	sbuf_release(&slo);
	sbuf_release(&say);
	sbuf_release(&ru);
	sbuf_release(&rg);
	return t;
}

static int exec_verdict(int argc, char **argv)
{
	struct cmd_parser p;
	struct scenario sc;
	struct err e = {0};
	const struct policy_ops **pols = NULL, *base = NULL;
	size_t npol = 0;
	const char *shrink_arg = NULL, *policy_arg = "all", *seeds_arg = NULL, *base_arg = "scalar";
	const char *nres_arg = NULL, *block_arg = NULL, *fmt = "text";
	int c, rc = CMD_OK, shrink = -1, any_slo = 0, nohead = 0, nogiveup = 0;
	uint32_t nres = 0;
	int64_t block_s = 0;
	struct table *tab = NULL;
	uint64_t lo = 1, hi = 1;
	unsigned nthreads = util_ncpu();
	double cap = VERDICT_GROWTH_CAP;
	struct size_slo slo = {0};
	struct verdict v = {0};
	struct store *st = NULL;
	struct sbuf out = SBUF_INIT;
	struct cmd_bar bar;
	struct cmd_stop stop;

	sbuf_init(&out);
	scenario_init(&sc);
	cmd_parser_init(&p, argc, argv);
	while ((c = cmd_getopt(&p, cmd_verdict_opts)) != -1 && rc == CMD_OK) {
		switch (c) {
		case 'p':
			policy_arg = p.arg;
			break;
		case O_BASELINE:
			base_arg = p.arg;
			break;
		case O_SLO:
			any_slo = 1;
			if (size_slo_parse(p.arg, &slo, &e))
				rc = cmd_usage_error(&cmd_verdict_entry, "%s", e.msg);
			break;
		case O_SEEDS:
			seeds_arg = p.arg;
			break;
		case O_SHRINK:
			shrink_arg = p.arg; /* a model of the store's own table: known once open */
			break;
		case O_CAP:
			if (parse_double(p.arg, &cap) || !(cap > 0 && cap <= 10))
				rc = cmd_usage_error(&cmd_verdict_entry,
						     "--growth-cap '%s': not a number in (0, 10]",
						     p.arg);
			break;
		case O_NOHEAD:
			nohead = 1;
			break;
		case O_RESAMPLES:
			nres_arg = p.arg;
			break;
		case O_BLOCK:
			block_arg = p.arg;
			break;
		case O_NOGIVEUP:
			nogiveup = 1;
			break;
		case 'f':
			fmt = p.arg;
			break;
		case O_THREADS:
			rc = cmd_whole_opt(&cmd_verdict_entry, "threads", p.arg, 1, 1024,
					   &nthreads);
			break;
		default:
			if (scenario_is_key(c)) {
				if (scenario_set(&sc, c, p.arg, &e))
					rc = cmd_usage_error(&cmd_verdict_entry, "%s", e.msg);
				break;
			}
			rc = cmd_opt_error(&cmd_verdict_entry, &p);
		}
	}
	if (rc != CMD_OK)
		goto out;
	if (p.nops != 1) {
		rc = cmd_usage_error(&cmd_verdict_entry,
				     p.nops ? "one STORE only" : "no STORE given");
		goto out;
	}
	if (!(base = policy_find(base_arg))) {
		rc = cmd_usage_error(&cmd_verdict_entry, "--baseline '%s': not a policy", base_arg);
		goto out;
	}
	if (replay_parse_policies(policy_arg, &pols, &npol, &e)) {
		rc = cmd_usage_error(&cmd_verdict_entry, "--policy: %s", e.msg);
		goto out;
	}
	if (scenario_check(&sc, &e) || replay_seed_opts(NULL, seeds_arg, &lo, &hi, &e) ||
	    (any_slo && size_slo_check(&slo, sc.mode, &e))) {
		rc = cmd_usage_error(&cmd_verdict_entry, "%s", e.msg);
		goto out;
	}
	if ((rc = cmd_resample_opts(&cmd_verdict_entry, nres_arg, block_arg, sc.mode, &nres,
				    &block_s)))
		goto out;
	const struct table_ops *fops = table_format_find(fmt);
	if (!fops) {
		rc = cmd_usage_error(&cmd_verdict_entry, "--format '%s': not text, json, csv or md",
				     fmt);
		goto out;
	}
	if (!any_slo && sc.mode != SIM_TIMED) {
		rc = cmd_usage_error(&cmd_verdict_entry,
				     "--mode %s has no default SLO: give --slo (e.g. "
				     "'unallocated_gpu_share<=0.1')",
				     sim_mode_name(sc.mode));
		goto out;
	}
	if (store_open(p.operands[0], STORE_RDONLY, &st, &e)) {
		rc = cmd_fail(&cmd_verdict_entry, "%s", e.msg);
		goto out;
	}
	if (shrink_arg && (rc = cmd_model_opt(&cmd_verdict_entry, "shrink", shrink_arg, &shrink)))
		goto out;
	if (scenario_prices(&sc, &e)) { /* --gpu-price of the store's own models too */
		rc = cmd_usage_error(&cmd_verdict_entry, "%s", e.msg);
		goto out;
	}
	if (scenario_load(&sc, st, &e)) {
		rc = cmd_fail(&cmd_verdict_entry, "%s", e.msg);
		goto out;
	}

	struct verdict_opts o = {.sc = &sc,
				 .base = base,
				 .pols = pols,
				 .npol = npol,
				 .lo = lo,
				 .hi = hi,
				 .slo = any_slo ? &slo : NULL,
				 .shrink_model = shrink,
				 .headroom = !nohead,
				 .growth_cap = cap,
				 .nthreads = nthreads,
				 .progress = bar_update,
				 .u = &bar,
				 .stop = &cmd_stop_signal,
				 .giveup = !nogiveup,
				 .nres = nres,
				 .block_s = block_s};
	cmd_bar_start(&bar);
	cmd_stop_catch(&stop);
	int vrc = verdict_run(&o, &v, &e);
	cmd_stop_release(&stop);
	cmd_bar_clear(&bar);
	if (vrc == VF_ESTOP) {
		fprintf(stderr, "voidfit verdict: stopped\n");
		rc = 130;
		goto out;
	}
	if (vrc) {
		rc = cmd_fail(&cmd_verdict_entry, "trace %s: %s", sc.trace_name.s, e.msg);
		goto out;
	}
	if (v.gave_up)
		fprintf(stderr,
			"voidfit verdict: %zu probe replays stopped early, once they could no "
			"longer meet the SLO\n",
			v.gave_up);
	/* an idle cluster's retired GPUs and headroom measure idle time: said in the verdict */
	if (v.np && v.p[0].size && v.p[0].size->full_alloc < METRICS_IDLE_ALLOC)
		sbuf_printf(
			&out,
			"WARNING: %s's replay allocates %.2f %% of the GPUs on average (under "
			"%.0f %%): the cluster is nearly idle here, so the GPUs retired and the "
			"headroom below measure idle time, not placement; load it with --mode "
			"inflate (the FGD paper's method). ",
			v.p[0].policy->name, 100 * v.p[0].size->full_alloc,
			100 * METRICS_IDLE_ALLOC);
	verdict_sentence(&v, &sc, verdict_best(&v), lo, hi, &out);
	if (fops == &table_text) {
		printf("%s\n", out.s);
		print_policies(&v, stdout);
	} else {
		struct sbuf doc = SBUF_INIT;
		sbuf_init(&doc);
		tab = verdict_table(&v, &sc, lo, hi, out.s);
		fops->write(tab, &doc);
		fputs(doc.s, stdout);
		sbuf_release(&doc);
	}
	if (fflush(stdout) || ferror(stdout))
		rc = cmd_fail(&cmd_verdict_entry, "stdout: write error");
out:
	table_free(tab);
	verdict_release(&v);
	scenario_release(&sc);
	store_close(st);
	sbuf_release(&out);
	free(pols);
	cmd_parser_release(&p);
	return rc;
}
