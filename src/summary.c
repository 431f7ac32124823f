/*
 * summary.c — the summary tables of replay and compare (summary.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enrich.h"
#include "fmt.h"
#include "stats.h"
#include "resample.h"
#include "summary.h"

/* The columns shown in text and Markdown, per mode; the others are in JSON and CSV only. */
static const int timed_text[] = {RUNREC_FRAG,
				 RUNREC_FRAG_MD,
				 RUNREC_STALLED,
				 RUNREC_BLOCKED,
				 RUNREC_UNNEEDED,
				 RUNREC_CARRY,
				 RUNREC_WAIT_P95,
				 RUNREC_SLOWDOWN,
				 RUNREC_USD_PLACE,
				 RUNREC_USD_SIZE,
				 -1};
static const int inflate_text[] = {RUNREC_FRAG,
				   RUNREC_FRAG_MD,
				   RUNREC_UNALLOC,
				   RUNREC_UNALLOC100,
				   RUNREC_LOAD,
				   RUNREC_FAILED,
				   RUNREC_BLOCKED,
				   RUNREC_UNNEEDED,
				   RUNREC_USD_PLACE,
				   RUNREC_USD_SIZE,
				   -1};

enum { EXTRA_SAVING, EXTRA_CI, EXTRA_LO = EXTRA_CI, EXTRA_HI, NEXTRA };

/* The level of the resample interval of a saving (the percentile interval). */
#define SUMMARY_LEVEL 0.95

static int shown(const int *list, int c)
{
	for (; *list >= 0; list++)
		if (*list == c)
			return 1;
	return 0;
}

/* Mean of each column over rows[0..n) (NaN where all are NaN). */
static void mean_row(const struct runrec *rows, size_t n, double *v)
{
	double *x = xcalloc(n ? n : 1, sizeof *x), hw;
	for (int c = 0; c < RUNREC_NCOL; c++) {
		for (size_t i = 0; i < n; i++)
			x[i] = rows[i].v[c];
		stats_mean_ci(x, n, &v[c], &hw);
	}
	free(x);
}

/* The saving of recoverable-by-placement $/yr of rows[0..n) against base[0..nb), paired by
 * (resample, seed): its mean into *mean. Over seeds alone, the half-width of its 95 %
 * Student interval into ci[0]; over resamples, the 95 % percentile interval into ci[0] and
 * ci[1] (resample_interval). NaN without a common run; the half-width NaN too when every
 * seed gives the same saving (a zero-width interval is no confidence interval). */
static void saving(const struct runrec *rows, size_t n, const struct runrec *base, size_t nb,
		   int resampled, double *mean, double *ci, int *zero)
{
	double *d = xcalloc(n ? n : 1, sizeof *d), hw;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < nb; j++)
			if (base[j].seed == rows[i].seed && base[j].resample == rows[i].resample)
				d[k++] = base[j].v[RUNREC_USD_PLACE] - rows[i].v[RUNREC_USD_PLACE];
	stats_mean_ci(d, k, mean, &hw);
	if (resampled)
		resample_interval(d, k, SUMMARY_LEVEL, &ci[0], &ci[1]);
	else
		ci[0] = hw == 0 ? NAN : hw;
	*zero = resampled ? k > 0 && ci[0] == ci[1] : k > 1 && hw == 0;
	free(d);
}

/* Replay with several seeds: a note that the mean rows carry no spread, naming the policies
 * that gave one run at every seed (nothing they see is drawn from the seed), so their mean
 * rows are not read as averages of a spread. */
static void seeds_note(const struct runrec *rows, size_t n, struct table *t)
{
	struct sbuf b = SBUF_INIT;
	sbuf_init(&b);
	size_t nsame = 0, nmulti = 0;
	for (size_t g = 0, g2; g < n; g = g2) {
		for (g2 = g; g2 < n && rows[g2].policy == rows[g].policy; g2++)
			;
		if (g2 - g < 2)
			continue;
		nmulti++;
		int same = 1;
		for (size_t i = g + 1; i < g2 && same; i++)
			for (int c = 0; c < RUNREC_NCOL && same; c++)
				same = rows[i].v[c] == rows[g].v[c] ||
				       (isnan(rows[i].v[c]) && isnan(rows[g].v[c]));
		if (same)
			sbuf_printf(&b, "%s%s", nsame++ ? ", " : "", rows[g].policy->name);
	}
	if (nmulti) {
		struct sbuf note = SBUF_INIT;
		sbuf_init(&note);
		sbuf_adds(&note, "mean rows: the mean over the seeds, without their spread "
				 "('voidfit compare' gives each policy's 95 % interval)");
		if (nsame)
			sbuf_printf(
				&note,
				"; %s gave the same figures at every seed (a seed draws only "
				"enriched values, random's choices and the --sample-nodes order)",
				nsame == nmulti ? "every policy" : b.s);
		table_add_note(t, note.s);
		sbuf_release(&note);
	}
	sbuf_release(&b);
}

/* Compare: what the saving's interval is, and why a cell has none. */
static void interval_note(struct table *t, int resampled, uint32_t nres, int same)
{
	struct sbuf b = SBUF_INIT;
	sbuf_init(&b);
	if (resampled)
		sbuf_printf(
			&b,
			"low, high: the 2.5th and 97.5th percentiles of the saving over %" PRIu32
			" block resamples of the trace x the seeds, paired on the same resample "
			"and seed: how much the saving depends on which days were traced%s",
			nres,
			same ? "; where low = high, every resample and seed give the same: "
			       "deterministic on this trace"
			     : "");
	else if (same)
		sbuf_adds(&b, "+/-: none where every seed gives the same saving: deterministic on "
			      "this trace, which says nothing of other days; --resamples N gives "
			      "the interval over which days were traced");
	if (b.len)
		table_add_note(t, b.s);
	sbuf_release(&b);
}

struct table *summary_table(const struct runrec *rows, size_t n, const struct summary_opts *o)
{
	static const struct table_col labels[] = {
		{.key = "policy", .head = "policy"},
		{.key = "seed", .head = "seed", .flags = TABLE_C_INT},
		{.key = "mode", .head = "mode", .flags = TABLE_C_TEXT_HIDE},
		{.key = "trace", .head = "trace", .flags = TABLE_C_TEXT_HIDE},
		{.key = "resample", .head = "resample"}, /* only when resampled */
	};
	const int *text = o->mode == SIM_INFLATE ? inflate_text : timed_text;
	struct table_col nums[RUNREC_NCOL + NEXTRA];
	int map[RUNREC_NCOL];
	size_t nn = 0;
	char bname[64];
	const char *base = o->baseline ? o->baseline->name : "scalar";
	int unplaceable = 0, failures = 0, gangs = 0; /* shown where there are some */
	for (size_t i = 0; i < n; i++) {
		gangs |= !isnan(rows[i].v[RUNREC_WHOLE_WANT]);
		unplaceable |= rows[i].v[RUNREC_UNPLACEABLE] > 0;
		failures |= rows[i].v[RUNREC_FAILURES] > 0 || rows[i].v[RUNREC_DOWN] > 0 ||
			    rows[i].v[RUNREC_CKPT] > 0;
	}

	for (int c = 0; c < RUNREC_NCOL; c++) {
		map[c] = -1;
		if (!runrec_col_applies((enum runrec_col)c, o->mode) ||
		    runrec_col_omit((enum runrec_col)c, rows, n))
			continue;
		map[c] = (int)nn;
		nums[nn] = *runrec_col((enum runrec_col)c);
		if (!shown(text, c) && !(c == RUNREC_UNPLACEABLE && unplaceable) &&
		    !((c == RUNREC_FAILURES || c == RUNREC_DOWN || c == RUNREC_CKPT) && failures) &&
		    !((c == RUNREC_WHOLE_FREE || c == RUNREC_WHOLE_WANT) && gangs))
			nums[nn].flags |= TABLE_C_TEXT_HIDE;
		nn++;
	}
	size_t xs = nn;
	int resampled = 0;
	for (size_t i = 0; i < n; i++)
		resampled |= rows[i].resample > 0;
	/* compare's saving against the baseline (head: bname), then its interval: over the
	 * resamples, low and high; else +/- the 95 % half-width over the seeds */
	static const struct table_col saving_cols[] = {
		{"saving_usd_per_year", NULL, "$/yr", 0, TABLE_HIGHER, TABLE_C_DOLLARS},
		{"saving_low_usd_per_year", "low", "95% $/yr", 0, TABLE_NEUTRAL, TABLE_C_DOLLARS},
		{"saving_high_usd_per_year", "high", "95% $/yr", 0, TABLE_NEUTRAL, TABLE_C_DOLLARS},
		{"saving_ci95_usd_per_year", "+/-", "95% $/yr", 0, TABLE_NEUTRAL, TABLE_C_DOLLARS},
	};
	if (o->compare) {
		snprintf(bname, sizeof bname, "saving vs %s", base);
		nums[nn] = saving_cols[0];
		nums[nn++].head = bname;
		if (resampled) {
			nums[nn++] = saving_cols[1];
			nums[nn++] = saving_cols[2];
		} else {
			nums[nn++] = saving_cols[3];
		}
	}
	struct table *t = table_new(labels, resampled ? 5 : 4, nums, nn);
	char rs[64];
	int same = 0; /* a policy's saving is the same at every resample and seed */
	uint32_t maxr = 0;
	for (size_t i = 0; i < n; i++)
		maxr = rows[i].resample > maxr ? rows[i].resample : maxr;
	table_set_mark_best(t, o->compare);
	const char *mname = sim_mode_name(o->mode);
	double *v = xcalloc(nn, sizeof *v), mean[RUNREC_NCOL];
	char seed[64];

	/* the baseline's rows */
	const struct runrec *brows = NULL;
	size_t nbrows = 0;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].policy->name, base)) {
			if (!brows)
				brows = &rows[i];
			nbrows++;
		}
	if (!o->compare)
		for (size_t i = 0; i < n; i++) {
			for (int c = 0; c < RUNREC_NCOL; c++)
				if (map[c] >= 0)
					v[map[c]] = rows[i].v[c];
			snprintf(seed, sizeof seed, "%" PRIu64, rows[i].seed);
			snprintf(rs, sizeof rs, "%" PRIu32, rows[i].resample);
			const char *lab[] = {rows[i].policy->name, seed, mname, o->trace, rs};
			table_add_row(t, lab, v, 0);
		}
	for (size_t g = 0, g2; g < n; g = g2) {
		for (g2 = g; g2 < n && rows[g2].policy == rows[g].policy; g2++)
			;
		if (!o->compare && g2 - g < 2)
			continue;
		mean_row(rows + g, g2 - g, mean);
		for (int c = 0; c < RUNREC_NCOL; c++)
			if (map[c] >= 0)
				v[map[c]] = mean[c];
		if (o->compare) {
			int zero = 0;
			saving(rows + g, g2 - g, brows, nbrows, resampled, &v[xs + EXTRA_SAVING],
			       &v[xs + EXTRA_CI], &zero);
			same |= zero && strcmp(rows[g].policy->name, base);
		}
		uint64_t slo = rows[g].seed, shi = rows[g].seed;
		for (size_t i = g; i < g2; i++) {
			slo = rows[i].seed < slo ? rows[i].seed : slo;
			shi = rows[i].seed > shi ? rows[i].seed : shi;
		}
		if (g2 - g == 1)
			snprintf(seed, sizeof seed, "%" PRIu64, rows[g].seed);
		else if (o->compare && slo < shi)
			snprintf(seed, sizeof seed, "%" PRIu64 "-%" PRIu64, slo, shi);
		else if (o->compare)
			snprintf(seed, sizeof seed, "%" PRIu64, slo);
		else
			snprintf(seed, sizeof seed, "mean");
		snprintf(rs, sizeof rs, o->compare ? "1-%" PRIu32 : "mean", maxr);
		const char *lab[] = {rows[g].policy->name, seed, mname, o->trace, rs};
		table_add_row(t, lab, v, !o->compare);
	}
	free(v);
	if (!o->compare)
		seeds_note(rows, n, t);
	if (o->compare)
		interval_note(t, resampled, maxr, same);
	return t;
}

void summary_resample_note(struct table *t, uint32_t nres, int64_t block_s)
{
	struct sbuf b = SBUF_INIT;
	char blk[64];
	sbuf_init(&b);
	fmt_duration((double)block_s, FMT_DUR_UNITS, blk, sizeof blk);
	sbuf_printf(&b,
		    "resamples: %" PRIu32 " block resamples of the trace's window, blocks of %s "
		    "drawn with replacement and put back in order, jobs in order within a block "
		    "(resample r of seed s draws from both; every policy replays the same one)",
		    nres, blk);
	table_add_note(t, b.s);
	sbuf_release(&b);
}

void summary_notes(struct table *t, enum sim_mode mode, int64_t w0, int64_t w1,
		   double provisioned_gpu_h, const struct metrics_opts *prices, uint32_t assumed,
		   const char *enriched, unsigned k)
{
	struct sbuf b = SBUF_INIT;
	char num[64], span[64];
	sbuf_init(&b);
	fmt_thousands(provisioned_gpu_h, 0, num, sizeof num);
	/* the window's length: under an hour in human units, else in hours (the $/yr divisor),
	 * and from a day on in days too */
	if (w1 - w0 < 3600)
		fmt_duration((double)(w1 - w0), FMT_DUR_UNITS, span, sizeof span);
	else {
		int n = snprintf(span, sizeof span, "%.1f h", (double)(w1 - w0) / 3600);
		if (w1 - w0 >= 86400) {
			snprintf(span + n, sizeof span - (size_t)n, " = ");
			fmt_duration((double)(w1 - w0), FMT_DUR_UNITS, span + n + 3,
				     sizeof span - (size_t)n - 3);
		}
	}
	if (mode == SIM_TIMED && w1 <= w0)
		sbuf_printf(&b,
			    "window: not recorded (runs of an earlier voidfit, each priced over "
			    "its own span)");
	else if (mode == SIM_TIMED)
		sbuf_printf(&b,
			    "window: trace seconds %" PRId64 " to %" PRId64
			    " (%s), the same for every policy; provisioned %s GPU-h; $/yr = "
			    "GPU-h x price x 8760 / window hours",
			    w0, w1, span, num);
	else
		sbuf_printf(&b, "inflation: the GPUs of the final state, each held for a year "
				"($/yr = GPUs x price x 8760 h)");
	table_add_note(t, b.s);
	sbuf_reset(&b);
	sbuf_adds(&b, "recoverable by placement = stalled + lost + idle-blocked (but by a full "
		      "cluster); by sizing = idle while no GPU job waits; prices: ");
	metrics_prices_note(prices, assumed, &b);
	table_add_note(t, b.s);
	sbuf_reset(&b);
	sbuf_printf(&b, "enriched values: %s", enriched ? enriched : "unknown");
	table_add_note(t, b.s);
	struct enrich_summary es;
	if (!enriched || enrich_describe_parse(enriched, &es) || es.jobs_any || es.nodes_any)
		table_add_note(t,
			       "these rest on enriched values: md frag, stalled, wait, slowdown, "
			       "$/yr, and placements by policies that see net, sto or iocpu");
	if (k) {
		sbuf_reset(&b);
		sbuf_printf(&b,
			    "each placement scored at most %u feasible nodes, met in a seeded "
			    "random order (--sample-nodes): an approximation of each policy but "
			    "first-fit and random",
			    k);
		table_add_note(t, b.s);
	}
	sbuf_release(&b);
}

/* ---- warnings ---- */

/* Add one line to t and lines. */
static void say(struct table *t, struct sbuf *lines, const char *line)
{
	if (t)
		table_add_note(t, line);
	if (lines) {
		sbuf_adds(lines, line);
		sbuf_addc(lines, '\n');
	}
}

/* The mean of column c over rows[0..n) that have it (NaN if none). */
static double col_mean(const struct runrec *rows, size_t n, int c)
{
	double sum = 0;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!isnan(rows[i].v[c])) {
			sum += rows[i].v[c];
			k++;
		}
	return k ? sum / (double)k : NAN;
}

size_t summary_warnings(const struct runrec *rows, size_t n, const struct summary_check *ck,
			struct table *t, struct sbuf *lines)
{
	struct sbuf b = SBUF_INIT, low = SBUF_INIT, over = SBUF_INIT;
	size_t nwarn = 0, npol = 0, nlow = 0, nover = 0, allunp = 0;
	char x[256], y[64];
	double run_s = ck ? ck->run_mean_s : NAN;

	sbuf_init(&b);
	sbuf_init(&low);
	sbuf_init(&over);
	/* every job unplaceable: no placement at all, in some run (the same in every run: a
	 * job that fits no node even empty fits none under any policy) */
	for (size_t i = 0; i < n && !allunp; i++)
		if (rows[i].v[RUNREC_PLACED] == 0 && rows[i].v[RUNREC_UNPLACEABLE] > 0)
			allunp = (size_t)rows[i].v[RUNREC_UNPLACEABLE];
	if (allunp) {
		sbuf_printf(&b,
			    "warning: every job is unplaceable (%zu fit no node, even empty): the "
			    "figures are those of an idle cluster; check the trace's node list or "
			    "give a cluster that fits its jobs (--cluster)",
			    allunp);
		say(t, lines, b.s);
		nwarn++;
	}
	/* some jobs unplaceable: they never ran, so no figure counts their demand */
	struct sbuf unp = SBUF_INIT;
	sbuf_init(&unp);
	size_t nunp = 0;
	for (size_t g = 0, g2; g < n && !allunp; g = g2) {
		for (g2 = g; g2 < n && rows[g2].policy == rows[g].policy; g2++)
			;
		/* in inflation every draw that fails counts as unplaceable: those are its
		 * failed jobs, a column of their own, not jobs no node could hold */
		double u = col_mean(rows + g, g2 - g, RUNREC_UNPLACEABLE), jobs = 0,
		       failed = col_mean(rows + g, g2 - g, RUNREC_FAILED);
		u -= isnan(failed) ? 0 : failed;
		for (size_t i = g; i < g2; i++)
			jobs += runrec_jobs(&rows[i]) / (double)(g2 - g);
		if (!(u > 0))
			continue;
		sbuf_printf(&unp, "%s%s %s", nunp++ ? ", " : "", rows[g].policy->name,
			    fmt_thousands(u, u == floor(u) ? 0 : 1, x, sizeof x));
		if (jobs > 0)
			sbuf_printf(&unp, " of %s = %.1f %%", fmt_thousands(jobs, 0, y, sizeof y),
				    100 * u / jobs);
	}
	if (nunp) {
		sbuf_reset(&b);
		sbuf_printf(&b,
			    "warning: jobs unplaceable, that never ran (%s): no node could hold "
			    "them, even empty, or had their GPU model (for a gang: no set of as "
			    "many nodes could); no wait, slowdown or $ "
			    "figure counts them, so the figures describe a smaller workload than "
			    "the trace's",
			    unp.s);
		say(t, lines, b.s);
		nwarn++;
	}
	sbuf_release(&unp);
	for (size_t g = 0, g2; g < n; g = g2) {
		for (g2 = g; g2 < n && rows[g2].policy == rows[g].policy; g2++)
			;
		npol++;
		const char *name = rows[g].policy->name;
		double alloc = col_mean(rows + g, g2 - g, RUNREC_ALLOC);
		if (!allunp && alloc < METRICS_IDLE_ALLOC) {
			sbuf_printf(&low, "%s%s %.2f %%", nlow ? ", " : "", name, alloc * 100);
			nlow++;
		}
		double wait = col_mean(rows + g, g2 - g, RUNREC_WAIT);
		double run = !isnan(run_s) ? run_s : col_mean(rows + g, g2 - g, RUNREC_JCT) - wait;
		if (wait > 10 * run && wait > 0) {
			sbuf_printf(&over, "%s%s %s", nover ? ", " : "", name,
				    fmt_duration(wait, FMT_DUR_UNITS, x, sizeof x));
			nover++;
		}
	}
	if (nlow) {
		sbuf_reset(&b);
		sbuf_printf(&b, "warning: mean allocated GPU share under 1 %% (%s",
			    nlow == npol && npol > 1 ? "every policy: " : "");
		sbuf_add(&b, low.s, low.len);
		sbuf_adds(&b,
			  "): the cluster is far larger than the load, so its cost is nearly "
			  "all idle-unneeded (by sizing) and no $ figure measures placement; "
			  "check the trace's span and the nodes, or replay with --mode inflate, "
			  "which loads the cluster to a target");
		say(t, lines, b.s);
		nwarn++;
	}
	if (nover) {
		sbuf_reset(&b);
		sbuf_adds(&b, "warning: overload: mean wait over ten times the mean run time");
		if (!isnan(run_s))
			sbuf_printf(&b, " of %s", fmt_duration(run_s, FMT_DUR_UNITS, y, sizeof y));
		sbuf_printf(&b, " (%s", nover == npol && npol > 1 ? "every policy: " : "");
		sbuf_add(&b, over.s, over.len);
		sbuf_addc(&b, ')');
		sbuf_adds(&b,
			  ": the cluster cannot keep up with the arrivals, so waits and "
			  "carried-over work dominate the figures; give more nodes (--cluster) or "
			  "check the trace's arrival times");
		say(t, lines, b.s);
		nwarn++;
	}
	/* faults: how many jobs each touched (fewest to most over the runs that say) */
	if (ck && ck->faults && ck->nfaults && ck->fault_jobs) {
		struct sbuf note = SBUF_INIT;
		sbuf_init(&note);
		sbuf_adds(&note,
			  "jobs each fault touched (slowed or held; fewest-most over the runs): ");
		int known = 0;
		for (size_t f = 0; f < ck->nfaults; f++) {
			int64_t lo = INT64_MAX, hi = -1;
			for (size_t i = 0; i < n; i++)
				if (ck->fault_jobs[i]) {
					int64_t v = ck->fault_jobs[i][f];
					lo = v < lo ? v : lo;
					hi = v > hi ? v : hi;
				}
			if (hi < 0)
				break; /* no run says */
			known = 1;
			fault_format(&ck->faults[f], x, sizeof x);
			if (f < 20) {
				sbuf_printf(&note, "%s'%s' %" PRId64, f ? "; " : "", x, lo);
				if (hi > lo)
					sbuf_printf(&note, "-%" PRId64, hi);
			} else if (f == 20)
				sbuf_printf(&note, "; and %zu more", ck->nfaults - 20);
			if (hi == 0) {
				sbuf_reset(&b);
				sbuf_printf(
					&b,
					"warning: fault '%s' touched no job in any run: no job "
					"demanding %s ran on its nodes while it was on; check its "
					"start and duration against the trace's span",
					x, job_dim_name(ck->faults[f].dim));
				say(t, lines, b.s);
				nwarn++;
			}
		}
		if (known && t)
			table_add_note(t, note.s);
		sbuf_release(&note);
	}
	sbuf_release(&b);
	sbuf_release(&low);
	sbuf_release(&over);
	return nwarn;
}
