/*
 * report.c — the cost report's content (report.h): one scenario's runs read back, priced,
 * and laid out as sections.
 *
 * Order of the document: the title, what the report covers and which scenario (and why),
 * its warnings (runs made before buckets were stored, an incomplete set of seeds, runs that
 * placed nothing, left jobs unplaceable, barely used the cluster or were overloaded), at a
 * glance (the verdict, an idle cluster said in it first, then the cost, the productive
 * share and what rests on assumptions), service levels, then sections 1-8. Each figure per
 * policy is the mean over its seeds; the verdict's saving is summary.c's, paired by seed.
 * Everything is priced here from the stored GPU time by bucket (runrec.buckets), by metrics_cost,
 * at the prices asked for.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "report-int.h"
#include "stats.h"
#include "summary.h"
#include "svg.h"

#define MS_PER_HOUR 3.6e6 /* GPU-milli-seconds in a GPU-hour, as the buckets are stored */
#define SERIES_BINS 120   /* points of a line chart: the series averaged over this many bins */
/* Lines a chart draws at most: past the palette's 8 colours, lines are told apart only by
 * dashes, and a reader no longer finds the two that matter. */
#define REPORT_MAX_LINES SVG_NCOLOR

/* The buckets as a person reads them: the five idle-blocked causes but a full cluster are
 * one, "blocked" (by cause in their own table). */
enum show { SH_PROD, SH_STALL, SH_LOST, SH_BLOCKED, SH_FULL, SH_UNNEEDED, SH_N };
static const struct {
	const char *key, *head;
	int color; /* svg_palette index: the same bucket has the same colour in every chart */
} shows[SH_N] = {
	{"productive_usd_per_year", "productive", 2},
	{"stalled_usd_per_year", "stalled", 1},
	{"lost_usd_per_year", "lost", 5},
	{"idle_blocked_usd_per_year", "blocked", 3},
	{"idle_full_usd_per_year", "full cluster", 0},
	{"idle_unneeded_usd_per_year", "unneeded", 4},
};

static enum show show_of(int b)
{
	switch (b) {
	case SIM_B_PRODUCTIVE:
		return SH_PROD;
	case SIM_B_STALLED:
		return SH_STALL;
	case SIM_B_LOST:
	case SIM_B_FAILED: /* node failures: the runs table has them on their own */
	case SIM_B_DOWN:
	case SIM_B_CKPT:
		return SH_LOST;
	case SIM_B_FULL:
		return SH_FULL;
	case SIM_B_UNNEEDED:
		return SH_UNNEEDED;
	default:
		return SH_BLOCKED;
	}
}

/* A policy's runs: a run of sel.runs (grouped by policy, seeds ascending). */
struct group {
	const struct policy_ops *pol;
	const struct runrec *runs;
	size_t n;
};

struct ctx {
	struct store *st;
	const char *path;
	const struct runrec_query *q;
	const struct report_opts *o;
	const struct policy_ops *baseline;
	struct runrec_sel sel;
	struct group *g;
	size_t ng;
	enum sim_mode mode;
	int buckets; /* every run has its GPU time by bucket */
	uint32_t assumed;
	uint32_t models;                 /* models with GPU time in some run */
	const struct policy_ops *winner; /* the verdict's policy, or NULL */
	struct table *summary;           /* summary_table's compare table: the savings */
	struct report *r;
};

static void group_runs(struct runrec *runs, size_t n, struct group **out, size_t *ng)
{
	*out = NULL;
	*ng = 0;
	size_t cap = 0;
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && runs[j].policy == runs[i].policy; j++)
			;
		xgrow(out, &cap, *ng + 1, sizeof **out);
		(*out)[(*ng)++] = (struct group){runs[i].policy, &runs[i], j - i};
	}
}

/* $ per year of run r's GPU time of model m (-1: all), class c (-1: all) by bucket. */
static void run_usd(const struct runrec *r, const struct metrics_opts *o, int m, int c,
		    double out[SIM_NBUCKET])
{
	struct metrics_cost cost;
	metrics_cost(&r->buckets, o, m, c, r->v[RUNREC_WINDOW_H], &cost);
	memcpy(out, cost.usd_year, sizeof cost.usd_year);
}

/* The mean over a group's runs of run_usd, and of recoverable by placement. */
static void group_usd(const struct group *g, const struct metrics_opts *o, int m, int c,
		      double out[SIM_NBUCKET], double *place)
{
	double one[SIM_NBUCKET];
	for (int b = 0; b < SIM_NBUCKET; b++)
		out[b] = 0;
	*place = 0;
	for (size_t i = 0; i < g->n; i++) {
		run_usd(&g->runs[i], o, m, c, one);
		for (int b = 0; b < SIM_NBUCKET; b++) {
			out[b] += one[b] / (double)g->n;
			if (metrics_by_placement((enum sim_bucket)b))
				*place += one[b] / (double)g->n;
		}
	}
}

/* GPU-hours of a group (mean over its runs) of model m in bucket b (-1: every bucket). */
static double group_hours(const struct group *g, int m, int b)
{
	double h = 0;
	for (size_t i = 0; i < g->n; i++)
		for (int k = 0; k <= JOB_NCLASS; k++)
			for (int x = 0; x < SIM_NBUCKET; x++)
				if (b < 0 || x == b)
					h += (double)g->runs[i].buckets.ms[m][k][x] / MS_PER_HOUR;
	return g->n ? h / (double)g->n : NAN;
}

/* "1-3" or "1,4,9" of runs' seeds; "12,23,34" of their ids. */
static void seeds_text(const struct runrec *runs, size_t n, struct sbuf *out)
{
	int run = n > 1;
	for (size_t i = 1; i < n && run; i++)
		run = runs[i].seed == runs[i - 1].seed + 1;
	if (run) {
		sbuf_printf(out, "%" PRIu64 "-%" PRIu64, runs[0].seed, runs[n - 1].seed);
		return;
	}
	for (size_t i = 0; i < n; i++)
		sbuf_printf(out, "%s%" PRIu64, i ? "," : "", runs[i].seed);
}

static void ids_text(const struct runrec *runs, size_t n, struct sbuf *out)
{
	for (size_t i = 0; i < n; i++)
		sbuf_printf(out, "%s%" PRId64, i ? "," : "", runs[i].id);
}

/* Fill the policy, seeds and run-id cells (columns 0, 1, 2) of a row of group g. */
static void label_cells(struct table_cell *c, const struct group *g)
{
	struct sbuf b = SBUF_INIT;
	sbuf_init(&b);
	table_cell_text(&c[0], g->pol->name);
	seeds_text(g->runs, g->n, &b);
	table_cell_text(&c[1], b.s);
	sbuf_reset(&b);
	ids_text(g->runs, g->n, &b);
	table_cell_text(&c[2], b.s);
	sbuf_release(&b);
}

#define LABEL_COLS                                                                                 \
	{"policy", "policy", NULL, 0, 0, TABLE_C_TEXT},                                            \
		{"seeds", "seeds", NULL, 0, 0, TABLE_C_TEXT},                                      \
	{                                                                                          \
		"run_ids", "runs", NULL, 0, 0, TABLE_C_TEXT | TABLE_C_TEXT_HIDE                    \
	}

/* Chart tick labels. */
static void fmt_usd_axis(double v, char *buf, size_t len)
{
	fmt_usd_short(v, FMT_USD_AXIS, buf, len);
}

static void fmt_seconds_axis(double v, char *buf, size_t len)
{
	fmt_duration(v, FMT_DUR_ROUNDED, buf, len);
}

static void fmt_share_axis(double v, char *buf, size_t len)
{
	snprintf(buf, len, "%g %%", v * 100);
}

static void fmt_count_axis(double v, char *buf, size_t len)
{
	snprintf(buf, len, "%g", v);
}

/* The mean of figure c over a group's runs that have it (NaN: none has). */
static double group_mean(const struct group *g, enum runrec_col c)
{
	double s = 0;
	size_t k = 0;
	for (size_t i = 0; i < g->n; i++)
		if (!isnan(g->runs[i].v[c]))
			s += g->runs[i].v[c], k++;
	return k ? s / (double)k : NAN;
}

/* The jobs of a group's runs, their mean (the scenario's jobs when the runs do not say). */
static double group_jobs(const struct ctx *x, const struct group *g)
{
	double s = 0;
	size_t k = 0;
	for (size_t i = 0; i < g->n; i++) {
		double j = runrec_jobs(&g->runs[i]);
		if (!isnan(j))
			s += j, k++;
	}
	return k ? s / (double)k : (double)x->sel.sc.jobs;
}

/* ---- warnings ---- */

enum warn { W_UNPLACEABLE, W_IDLE, W_OVERLOAD, W_N };

/* Does run r carry warning w? */
static int has_warn(const struct runrec *r, enum warn w, enum sim_mode mode)
{
	const double *v = r->v;
	switch (w) {
	case W_UNPLACEABLE:
		return v[RUNREC_PLACED] == 0 && v[RUNREC_UNPLACEABLE] > 0;
	case W_IDLE:
		return v[RUNREC_ALLOC] < METRICS_IDLE_ALLOC;
	default:
		/* the mean run is about mean JCT - mean wait */
		return mode == SIM_TIMED &&
		       v[RUNREC_WAIT] > 10 * (v[RUNREC_JCT] - v[RUNREC_WAIT]) && v[RUNREC_WAIT] > 0;
	}
}

static void warnings(struct ctx *x)
{
	static const char *const what[W_N] = {
		"every job was unplaceable: nothing ran, so its figures say nothing about "
		"placement",
		"the mean allocated GPU share is under 1 %: the cluster is almost idle, and its $ "
		"are mostly idle time (--mode inflate loads it)",
		"overloaded: the mean wait is over ten times the mean run time (mean JCT less "
		"mean wait), so the queue, not placement, decides most figures",
	};
	struct report *r = x->r;
	if (x->sel.legacy)
		report_add(r, REPORT_B_WARN,
			   "these runs were made by an earlier voidfit, before GPU time was stored "
			   "by bucket: the $ by bucket, model and class are missing and the $ "
			   "figures are as stored, not repriced (replay them)");
	if (x->sel.partial)
		report_add(
			r, REPORT_B_WARN,
			"the policies do not have the same seeds: each mean is over its own seeds, "
			"and the savings over the seeds the two policies share (replay the missing "
			"ones with --resume)");
	struct sbuf b = SBUF_INIT, s = SBUF_INIT;
	sbuf_init(&b);
	sbuf_init(&s);
	for (int w = 0; w < W_N; w++)
		for (size_t i = 0; i < x->ng; i++) {
			const struct group *g = &x->g[i];
			sbuf_reset(&b);
			sbuf_reset(&s);
			size_t k = 0;
			for (size_t j = 0; j < g->n; j++)
				if (has_warn(&g->runs[j], (enum warn)w, x->mode)) {
					sbuf_printf(&s, "%s%" PRId64, k++ ? ", " : "",
						    g->runs[j].id);
				}
			if (!k)
				continue;
			report_addf(r, REPORT_B_WARN, "%s (%s %s): %s", g->pol->name,
				    k == 1 ? "run" : "runs", s.s, what[w]);
		}
	/* jobs left out: some unplaceable (all of them is said above); inflation's failed jobs
	 * are how it ends, shown in Service levels */
	for (size_t i = 0; i < x->ng && x->mode != SIM_INFLATE; i++) {
		const struct group *g = &x->g[i];
		double u = group_mean(g, RUNREC_UNPLACEABLE), jobs = group_jobs(x, g);
		int all = 0;
		for (size_t j = 0; j < g->n; j++)
			all |= has_warn(&g->runs[j], W_UNPLACEABLE, x->mode);
		if (u > 0 && !all)
			report_addf(
				r, REPORT_B_WARN,
				"%s: %.0f of %.0f jobs (%.1f %%) were unplaceable and never ran "
				"(no node could hold them, even empty, or had their GPU model; for "
				"a "
				"gang, no set of as many nodes could): "
				"no wait, slowdown or $ figure counts their demand (see Service "
				"levels)",
				g->pol->name, u, jobs, jobs > 0 ? 100 * u / jobs : NAN);
	}
	sbuf_release(&b);
	sbuf_release(&s);
}

/* ---- the verdict ---- */

static size_t col_index(const struct table *t, const char *key)
{
	for (size_t i = 0; i < table_nnums(t); i++)
		if (!strcmp(table_num_col(t, i)->key, key))
			return i;
	return (size_t)-1;
}

static const struct group *find_group(const struct ctx *x, const struct policy_ops *p)
{
	for (size_t i = 0; i < x->ng; i++)
		if (x->g[i].pol == p)
			return &x->g[i];
	return NULL;
}

/* Seeds of a that b also has. */
static size_t paired(const struct group *a, const struct group *b)
{
	size_t k = 0;
	for (size_t i = 0; i < a->n; i++)
		for (size_t j = 0; j < b->n; j++)
			k += a->runs[i].seed == b->runs[j].seed;
	return k;
}

static void verdict(struct ctx *x)
{
	struct summary_opts so = {.mode = x->mode,
				  .compare = 1,
				  .baseline = x->baseline,
				  .trace = x->sel.trace_name.s};
	x->summary = summary_table(x->sel.runs, x->sel.n, &so);
	size_t cs = col_index(x->summary, "saving_usd_per_year");
	size_t ch = col_index(x->summary, "saving_ci95_usd_per_year");
	size_t cp = col_index(x->summary, runrec_col_key(RUNREC_USD_PLACE));
	const struct group *base = find_group(x, x->baseline);
	static const struct table_col cols[] = {
		{"policy", "policy", NULL, 0, 0, TABLE_C_TEXT},
		{"baseline", "baseline", NULL, 0, 0, TABLE_C_TEXT},
		{"saving_usd_per_year", "saving", NULL, 0, 0, TABLE_C_USD},
		{"ci95_low_usd_per_year", "95% low", NULL, 0, 0, TABLE_C_USD},
		{"ci95_high_usd_per_year", "95% high", NULL, 0, 0, TABLE_C_USD},
		{"paired_seeds", "seeds", NULL, 0, 0, 0},
		{"recoverable_by_placement_usd_per_year", "recoverable", NULL, 0, 0, TABLE_C_USD},
		{"baseline_recoverable_by_placement_usd_per_year", "baseline's", NULL, 0, 0,
		 TABLE_C_USD},
		{"run_ids", "runs", NULL, 0, 0, TABLE_C_TEXT},
		{"baseline_run_ids", "baseline runs", NULL, 0, 0, TABLE_C_TEXT},
	};
	/* the best: the largest saving against the baseline, else the least recoverable */
	size_t best = (size_t)-1;
	for (size_t i = 0; i < table_nrows(x->summary); i++) {
		const struct group *g = &x->g[i]; /* summary rows follow the groups */
		if (g->pol == x->baseline)
			continue;
		double v = base ? table_value(x->summary, i, cs) : -table_value(x->summary, i, cp);
		if (isnan(v))
			continue;
		double bv = best == (size_t)-1 ? -INFINITY
			    : base             ? table_value(x->summary, best, cs)
					       : -table_value(x->summary, best, cp);
		if (v > bv)
			best = i;
	}
	char a[64], lo[64], hi[64], pl[64];
	struct sbuf t = SBUF_INIT, ids = SBUF_INIT;
	sbuf_init(&t);
	sbuf_init(&ids);
	/* the bill's verdict leads, a paragraph of its own: as 'voidfit size' stored it, or the
	 * command that gives it (a sizing that cannot be read fails the report in section 5) */
	struct err le = {0};
	double alloc = 0;
	size_t nrun = 0;
	for (size_t i = 0; i < x->ng; i++)
		for (size_t j = 0; j < x->g[i].n; j++, nrun++)
			alloc += x->g[i].runs[j].v[RUNREC_ALLOC];
	alloc = nrun ? alloc / (double)nrun : NAN;
	if (!report_verdict_lead(x->st, x->path, &x->sel.sc, x->baseline->name, alloc, &t, &le))
		report_add(x->r, REPORT_B_PARA, t.s);
	sbuf_reset(&t);
	if (best == (size_t)-1) {
		sbuf_printf(&t,
			    "Only %s ran on this trace (%s): there is nothing to compare it with.",
			    x->g[0].pol->name, x->sel.trace_name.s);
	} else if (!base) {
		fmt_usd(table_value(x->summary, best, cp), pl, sizeof pl);
		sbuf_printf(
			&t,
			"No %s run to measure against (--baseline P): of the policies that ran "
			"on this trace (%s), %s leaves the least recoverable by placement, %s/yr.",
			x->baseline->name, x->sel.trace_name.s, x->g[best].pol->name, pl);
	} else {
		const struct group *g = &x->g[best];
		double m = table_value(x->summary, best, cs),
		       hw = table_value(x->summary, best, ch);
		size_t n = paired(g, base);
		fmt_usd(m, a, sizeof a);
		fmt_usd(m - hw, lo, sizeof lo);
		fmt_usd(m + hw, hi, sizeof hi);
		if (m <= 0)
			sbuf_printf(&t,
				    "No policy wastes less by placement than %s on this trace "
				    "(%s): the "
				    "best, ",
				    x->baseline->name, x->sel.trace_name.s);
		sbuf_printf(&t, "%s wastes %s/yr less by placement", g->pol->name, a);
		if (n < 2)
			sbuf_adds(&t, " (one seed: no interval)");
		else if (isnan(hw)) /* no interval of zero width is a confidence interval */
			sbuf_adds(&t, " (deterministic on this trace: every seed gives the same; "
				      "'compare --resamples N' gives its interval over which days "
				      "were traced)");
		else
			sbuf_printf(&t, " (95 %% CI %s to %s)", lo, hi);
		sbuf_printf(&t, " than %s", x->baseline->name);
		if (m > 0)
			sbuf_printf(&t, " on this trace (%s)", x->sel.trace_name.s);
		sbuf_printf(&t, ", over %zu seed%s.", n, n == 1 ? "" : "s");
		if (n >= 2 && m > 0 && m - hw <= 0)
			sbuf_adds(&t,
				  " The interval includes zero: on these seeds the saving is not "
				  "told apart from none.");
		/* re-labelled waste is no saving: say so where it is read first */
		sbuf_adds(&t, " That is where the waste goes (stalled, lost and idle-blocked "
			      "GPU-hours), not money off the bill: every policy provisions the "
			      "same GPUs. 'voidfit verdict' prices the GPUs a policy lets you "
			      "retire, and the demand it absorbs, at the same service.");
	}
	report_add(x->r, REPORT_B_VERDICT, t.s);
	x->winner = best != (size_t)-1 ? x->g[best].pol : NULL;
	struct table *tab = report_add_table(x->r, "verdict", NULL, cols,
					     sizeof cols / sizeof *cols, REPORT_BF_RAW);
	if (best != (size_t)-1) {
		const struct group *g = &x->g[best];
		struct table_cell *c = table_row(tab);
		double m = base ? table_value(x->summary, best, cs) : NAN;
		double hw = base ? table_value(x->summary, best, ch) : NAN;
		table_cell_text(&c[0], g->pol->name);
		table_cell_text(&c[1], x->baseline->name);
		c[2].v = m;
		c[3].v = m - hw;
		c[4].v = m + hw;
		c[5].v = base ? (double)paired(g, base) : 0;
		c[6].v = table_value(x->summary, best, cp);
		if (base)
			c[7].v = table_value(x->summary, (size_t)(base - x->g), cp);
		ids_text(g->runs, g->n, &ids);
		table_cell_text(&c[8], ids.s);
		if (base) {
			sbuf_reset(&ids);
			ids_text(base->runs, base->n, &ids);
			table_cell_text(&c[9], ids.s);
		}
	}
	sbuf_release(&t);
	sbuf_release(&ids);
}

/* The guard in the verdict itself: when some policy's runs barely used the cluster (mean
 * allocated GPU share under METRICS_IDLE_ALLOC), the verdict's $ are idle time, and it
 * says so before anything else, pointing to inflation. */
static void verdict_guard(struct ctx *x)
{
	struct report_block *v = NULL;
	for (size_t i = 0; i < x->r->n; i++)
		if (x->r->blocks[i].type == REPORT_B_VERDICT)
			v = &x->r->blocks[i];
	struct sbuf b = SBUF_INIT, who = SBUF_INIT;
	sbuf_init(&b);
	sbuf_init(&who);
	size_t n = 0;
	for (size_t i = 0; i < x->ng; i++) {
		double a = 0;
		for (size_t j = 0; j < x->g[i].n; j++)
			a += x->g[i].runs[j].v[RUNREC_ALLOC] / (double)x->g[i].n;
		if (a < METRICS_IDLE_ALLOC)
			sbuf_printf(&who, "%s%s %.2f %%", n++ ? ", " : "", x->g[i].pol->name,
				    a * 100);
	}
	if (v && n) {
		sbuf_printf(&b,
			    "WARNING: the cluster is almost idle (mean allocated GPU share under "
			    "1 %%: %s), so these $ are idle time and say nothing about placement; "
			    "replay with --mode inflate --target X to compare policies on a loaded "
			    "cluster. ",
			    who.s);
		sbuf_adds(&b, v->text);
		free(v->text);
		v->text = xstrdup(b.s);
	}
	sbuf_release(&b);
	sbuf_release(&who);
}

/* A section opens with its heading and a paragraph on what it shows. */
static void section_open(struct report *r, const char *heading, const char *intro)
{
	report_add(r, REPORT_B_HEADING, heading);
	report_add(r, REPORT_B_PARA, intro);
}

/* ---- at a glance: the one screen a CFO reads ---- */

/* What the cluster costs a year and how much of it does useful work, the verdict (the
 * answers a planner takes to the bill go here, after it), and what these rest on. */
static void glance_head(struct ctx *x)
{
	report_add(x->r, REPORT_B_HEADING, "At a glance");
}

static void glance_items(struct ctx *x)
{
	struct report *r = x->r;
	const struct group *base = find_group(x, x->baseline);
	const struct group *g0 = base ? base : &x->g[0];
	char a[64];
	if (x->buckets) {
		double usd[SIM_NBUCKET], place, prov = 0;
		group_usd(g0, &x->o->prices, -1, -1, usd, &place);
		for (int b = 0; b < SIM_NBUCKET; b++)
			prov += usd[b];
		fmt_usd(prov, a, sizeof a);
		report_addf(r, REPORT_B_ITEM,
			    "The cluster (%" PRId64 " GPUs) costs %s a year at %s prices%s.",
			    x->sel.sc.gpus, a, gpumodel_tier_name(x->o->prices.tier),
			    x->mode == SIM_TIMED ? ", the pricing window's cost scaled to a year"
						 : ", its GPUs held for a year");
		struct sbuf b = SBUF_INIT;
		sbuf_init(&b);
		for (size_t i = 0; i < x->ng; i++) {
			double v = 0;
			group_usd(&x->g[i], &x->o->prices, -1, -1, usd, &place);
			for (int k = 0; k < SIM_NBUCKET; k++)
				v += usd[k];
			sbuf_printf(&b, "%s%s %.1f %%", i ? ", " : "", x->g[i].pol->name,
				    v > 0 ? 100 * usd[SIM_B_PRODUCTIVE] / v : NAN);
		}
		report_addf(r, REPORT_B_ITEM,
			    "Productive share of that cost (GPUs doing work at full rate): %s.",
			    b.s);
		sbuf_release(&b);
	}
	/* the two answers, fewer GPUs at the same service and headroom for more demand, go
	 * here when the verdict gives them */
	double left = 0;
	for (size_t i = 0; i < x->ng; i++)
		left = fmax(left, group_mean(&x->g[i], RUNREC_UNPLACEABLE));
	if (x->mode == SIM_INFLATE) { /* a draw that finds no room fails: how inflation ends */
		struct sbuf f = SBUF_INIT;
		sbuf_init(&f);
		for (size_t i = 0; i < x->ng; i++)
			sbuf_printf(&f, "%s%s %.0f", i ? ", " : "", x->g[i].pol->name,
				    group_mean(&x->g[i], RUNREC_FAILED));
		report_addf(r, REPORT_B_ITEM,
			    "Service: the jobs drawn that found no room and failed: %s (Service "
			    "levels).",
			    f.s);
		sbuf_release(&f);
	} else if (left > 0)
		report_addf(r, REPORT_B_ITEM,
			    "Service: up to %.0f jobs were unplaceable and never ran; no figure "
			    "counts them (Service levels).",
			    left);
	else
		report_add(r, REPORT_B_ITEM,
			   "Service: every job could be placed (wait and slowdown per policy in "
			   "Service levels).");
	struct sbuf b = SBUF_INIT;
	sbuf_init(&b);
	for (int m = 0; m < gpumodel_count(); m++)
		if (x->assumed >> m & 1)
			sbuf_printf(&b, "%s%s", b.len ? ", " : "", gpumodel_get(m)->name);
	report_addf(r, REPORT_B_ITEM, "Prices: %s%s%s.",
		    b.len ? "assumed, not list prices, for " : "list prices for every model", b.s,
		    b.len ? " (section 8)" : "");
	report_addf(r, REPORT_B_ITEM, "Enriched (filled in, not measured): %s.",
		    x->sel.sc.enriched && *x->sel.sc.enriched ? x->sel.sc.enriched : "not known");
	sbuf_release(&b);
}

/* ---- service levels: what each policy's $ were bought with ---- */

/* The whole-node measure, when the runs have gangs: the free nodes against what the
 * waiting gangs need. */
static void whole_nodes(struct ctx *x)
{
	if (runrec_col_omit(RUNREC_WHOLE_WANT, x->sel.runs, x->sel.n))
		return;
	report_add(x->r, REPORT_B_PARA,
		   "Whole nodes: the GPU nodes with nothing on them against the nodes the "
		   "waiting gangs need (their workers, one a node), means over the run. Gangs "
		   "that want many more nodes than are free wait for nodes that small jobs keep "
		   "broken up; free nodes beside a large want say the gangs wait for something "
		   "else (a GPU model, the queue).");
	static const struct table_col cols[] = {
		LABEL_COLS,
		{"whole_free_nodes", "free nodes", NULL, 1, 0, TABLE_C_PLAIN},
		{"gang_nodes_wanted", "gangs want", NULL, 1, 0, TABLE_C_PLAIN},
		{"wanted_per_free_node", "want / free", NULL, 2, 0, TABLE_C_PLAIN},
	};
	struct table *t = report_add_table(x->r, "whole_nodes", "Whole nodes, per policy", cols,
					   sizeof cols / sizeof *cols, 0);
	for (size_t i = 0; i < x->ng; i++) {
		const struct group *g = &x->g[i];
		struct table_cell *c = table_row(t);
		label_cells(c, g);
		double fr = group_mean(g, RUNREC_WHOLE_FREE),
		       want = group_mean(g, RUNREC_WHOLE_WANT);
		c[3].v = fr;
		c[4].v = want;
		c[5].v = fr > 0 ? want / fr : NAN;
	}
}

static void section_service(struct ctx *x)
{
	struct report *r = x->r;
	section_open(r, "Service levels",
		     "What users got under each policy, beside its dollars: the jobs that were "
		     "unplaceable (they never ran, and no figure counts them), the jobs that "
		     "failed to fit when they arrived (inflation), the work carried past the "
		     "pricing window, the wait from arrival to start (median and 95th "
		     "percentile) and the mean slowdown (run time over time alone). Mean over "
		     "each policy's seeds.");
	static const struct table_col cols[] = {
		LABEL_COLS,
		{"jobs", "jobs", NULL, 0, 0, 0},
		{"unplaceable_jobs", "unplaceable", NULL, 0, 0, 0},
		{"unplaceable_share", "unplaceable share", NULL, 1, 0, TABLE_C_SHARE},
		{"failed_jobs", "failed", NULL, 0, 0, 0},
		{"carried_over_jobs", "carried jobs", NULL, 0, 0, 0},
		{"carried_over_gpu_hours", "carried GPU-h", NULL, 1, 0, 0},
		{"wait_p50_s", "wait p50", NULL, 0, 0, TABLE_C_SECONDS | TABLE_C_ROUNDED},
		{"wait_p95_s", "wait p95", NULL, 0, 0, TABLE_C_SECONDS | TABLE_C_ROUNDED},
		{"slowdown_mean", "slowdown", NULL, 4, 0, TABLE_C_PLAIN},
	};
	struct table *t = report_add_table(r, "service", "Service levels, per policy", cols,
					   sizeof cols / sizeof *cols, 0);
	for (size_t i = 0; i < x->ng; i++) {
		const struct group *g = &x->g[i];
		struct table_cell *c = table_row(t);
		label_cells(c, g);
		double jobs = group_jobs(x, g), u = group_mean(g, RUNREC_UNPLACEABLE);
		c[3].v = x->mode == SIM_TIMED ? jobs : NAN;
		c[4].v = u;
		c[5].v = x->mode == SIM_TIMED && jobs > 0 ? u / jobs : NAN;
		c[6].v = group_mean(g, RUNREC_FAILED);
		c[7].v = group_mean(g, RUNREC_CARRY_JOBS);
		c[8].v = group_mean(g, RUNREC_CARRY);
		c[9].v = group_mean(g, RUNREC_WAIT_P50);
		c[10].v = group_mean(g, RUNREC_WAIT_P95);
		c[11].v = group_mean(g, RUNREC_SLOWDOWN);
	}
	table_hide_zero(t);
	table_show(t, 4, 1); /* none unplaceable is said, not hidden */
	if (x->mode != SIM_TIMED)
		return;
	static const struct table_col ccols[] = {
		LABEL_COLS,
		{"class", "class", NULL, 0, 0, TABLE_C_TEXT},
		{"jobs", "jobs", NULL, 0, 0, 0},
		{"unplaceable_jobs", "unplaceable", NULL, 0, 0, 0},
		{"wait_p50_s", "wait p50", NULL, 0, 0, TABLE_C_SECONDS | TABLE_C_ROUNDED},
		{"wait_p95_s", "wait p95", NULL, 0, 0, TABLE_C_SECONDS | TABLE_C_ROUNDED},
		{"slowdown_mean", "slowdown", NULL, 4, 0, TABLE_C_PLAIN},
	};
	t = report_add_table(r, "service_by_class", "Service levels, by job class", ccols,
			     sizeof ccols / sizeof *ccols, 0);
	for (int k = 0; k < JOB_NCLASS; k++)
		for (size_t i = 0; i < x->ng; i++) {
			const struct group *g = &x->g[i];
			double v[RUNREC_CLS_N] = {0};
			size_t n[RUNREC_CLS_N] = {0};
			for (size_t j = 0; j < g->n; j++)
				for (int q = 0; q < RUNREC_CLS_N; q++)
					if (!isnan(g->runs[j].cls[k][q]))
						v[q] += g->runs[j].cls[k][q], n[q]++;
			if (!n[RUNREC_CLS_JOBS])
				continue;
			struct table_cell *c = table_row(t);
			label_cells(c, g);
			table_cell_text(&c[3], job_class_name((enum job_class)k));
			for (int q = 0; q < RUNREC_CLS_N; q++)
				c[4 + q].v = n[q] ? v[q] / (double)n[q] : NAN;
		}
	if (!table_nrows(t))
		report_add(r, REPORT_B_PARA,
			   "Not stored for these runs: they were made before the service of each "
			   "job class was read back (replay them).");
	whole_nodes(x);
}

/* ---- 1-3: $ per year by bucket, by GPU model, by class ---- */

static int legacy_says(struct ctx *x)
{
	if (x->buckets)
		return 0;
	report_add(x->r, REPORT_B_PARA,
		   "Not stored for these runs: they were made before GPU time was stored by "
		   "bucket (replay them).");
	return 1;
}

/* The columns of a bucket table after its labels: the shown buckets, provisioned and
 * recoverable by placement, then (JSON and CSV) the finer buckets and sizing. */
static size_t bucket_cols(struct table_col *cols, size_t n)
{
	for (int s = 0; s < SH_N; s++)
		cols[n++] =
			(struct table_col){shows[s].key, shows[s].head, NULL, 0, 0, TABLE_C_USD};
	cols[n++] = (struct table_col){
		"provisioned_usd_per_year", "= provisioned", NULL, 0, 0, TABLE_C_USD};
	cols[n++] = (struct table_col){
		"recoverable_by_placement_usd_per_year", "by placement", NULL, 0, 0, TABLE_C_USD};
	static const char *const fine[] = {"blocked_shape_usd_per_year", "blocked_dim_usd_per_year",
					   "blocked_model_usd_per_year",
					   "blocked_queue_usd_per_year"};
	for (int i = 0; i < 4; i++)
		cols[n++] = (struct table_col){fine[i], fine[i], NULL,
					       0,       0,       TABLE_C_USD | TABLE_C_TEXT_HIDE};
	return n;
}

static void bucket_cells(struct table_cell *c, const double usd[SIM_NBUCKET], double place)
{
	double prov = 0;
	for (int s = 0; s < SH_N; s++)
		c[s].v = 0;
	for (int b = 0; b < SIM_NBUCKET; b++) {
		c[show_of(b)].v += usd[b];
		prov += usd[b];
	}
	c[SH_N].v = prov;
	c[SH_N + 1].v = place;
	c[SH_N + 2].v = usd[SIM_B_SHAPE];
	c[SH_N + 3].v = usd[SIM_B_DIM];
	c[SH_N + 4].v = usd[SIM_B_MODEL];
	c[SH_N + 5].v = usd[SIM_B_QUEUE];
}

/* The policies as a chart names them, the baseline and the verdict's policy said and set
 * strong (in bold, or drawn thick), so the two a reader compares are found at once. */
struct chart_pols {
	const char **names; /* ng of them */
	char **own;         /* the names made here */
	unsigned char *strong;
	size_t n;
};

static void chart_pols_init(const struct ctx *x, struct chart_pols *c)
{
	size_t n = x->ng ? x->ng : 1;
	c->names = xcalloc(n, sizeof *c->names);
	c->own = xcalloc(n, sizeof *c->own);
	c->strong = xcalloc(n, 1);
	c->n = x->ng;
	for (size_t i = 0; i < x->ng; i++) {
		const struct policy_ops *p = x->g[i].pol;
		const char *tag = p == x->baseline ? " (baseline)"
				  : p == x->winner ? " (best)"
						   : "";
		if (*tag) {
			struct sbuf b = SBUF_INIT;
			sbuf_init(&b);
			sbuf_printf(&b, "%s%s", p->name, tag);
			c->own[i] = xstrdup(b.s);
			sbuf_release(&b);
		}
		c->names[i] = c->own[i] ? c->own[i] : p->name;
		c->strong[i] = *tag != '\0';
	}
}

static void chart_pols_release(struct chart_pols *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->own[i]);
	FREE_ALL(c->own, c->names, c->strong);
}

static void section_buckets(struct ctx *x)
{
	struct report *r = x->r;
	section_open(
		r, "1. Cost by bucket",
		"What the cluster's provisioned GPU time costs a year, split by what the GPUs "
		"were doing: productive (progress at full rate), stalled (allocated but slowed "
		"by contention), lost (runs undone by preemption), blocked (idle while a GPU job "
		"waited: wrong shape, another resource short, model not allowed, held by the "
		"queue), full cluster (idle, but too few free GPUs for any waiting job) and "
		"unneeded (idle while no GPU job waited: recoverable by sizing). Recoverable "
		"by placement = stalled + lost + blocked. Mean over each policy's seeds.");
	if (legacy_says(x))
		return;
	struct table_col cols[32] = {LABEL_COLS};
	size_t nc = bucket_cols(cols, 3);
	struct table *t = report_add_table(r, "buckets", "$ per year by bucket", cols, nc, 0);
	double *v = xcalloc((size_t)SH_N * (x->ng ? x->ng : 1), sizeof *v);
	for (size_t i = 0; i < x->ng; i++) {
		double usd[SIM_NBUCKET], place;
		struct table_cell *c = table_row(t);
		label_cells(c, &x->g[i]);
		group_usd(&x->g[i], &x->o->prices, -1, -1, usd, &place);
		bucket_cells(c + 3, usd, place);
		for (int s = 0; s < SH_N; s++)
			v[(size_t)s * x->ng + i] = c[3 + s].v;
	}
	table_hide_zero(t);

	/* the chart: the buckets some policy has */
	const char *names[SH_N];
	int colors[SH_N];
	double *vv = xcalloc((size_t)SH_N * (x->ng ? x->ng : 1), sizeof *vv);
	size_t ns = 0;
	for (int s = 0; s < SH_N; s++) {
		if (!table_shown(t, 3 + s))
			continue;
		names[ns] = shows[s].head;
		colors[ns] = shows[s].color;
		memcpy(vv + ns * x->ng, v + (size_t)s * x->ng, x->ng * sizeof *v);
		ns++;
	}
	struct chart_pols cp;
	chart_pols_init(x, &cp);
	struct svg_bars b = {.title = "Cost by bucket, per policy",
			     .cats = cp.names,
			     .ncat = x->ng,
			     .names = names,
			     .nser = ns,
			     .colors = colors,
			     .v = vv,
			     .y = {"$ per year", fmt_usd_axis, 0},
			     .strong = cp.strong,
			     .reading =
				     "Each bar is the cluster's cost a year under a policy; less "
				     "stalled, lost and blocked is better (they are recoverable "
				     "by placement)."};
	svg_bar_chart(&report_add(r, REPORT_B_CHART, b.title)->svg, &b);

	/* idle-blocked by cause */
	static const struct table_col ccols[] = {
		LABEL_COLS,
		{"blocked_shape_usd_per_year", "wrong shape", NULL, 0, 0, TABLE_C_USD},
		{"blocked_dim_usd_per_year", "other resource short", NULL, 0, 0, TABLE_C_USD},
		{"blocked_model_usd_per_year", "model not allowed", NULL, 0, 0, TABLE_C_USD},
		{"blocked_queue_usd_per_year", "held by the queue", NULL, 0, 0, TABLE_C_USD},
	};
	t = report_add_table(r, "blocked", "Blocked, by cause, $ per year", ccols,
			     sizeof ccols / sizeof *ccols, 0);
	for (size_t i = 0; i < x->ng; i++) {
		double usd[SIM_NBUCKET], place;
		struct table_cell *c = table_row(t);
		label_cells(c, &x->g[i]);
		group_usd(&x->g[i], &x->o->prices, -1, -1, usd, &place);
		c[3].v = usd[SIM_B_SHAPE];
		c[4].v = usd[SIM_B_DIM];
		c[5].v = usd[SIM_B_MODEL];
		c[6].v = usd[SIM_B_QUEUE];
	}
	table_hide_zero(t);
	chart_pols_release(&cp);
	free(v);
	free(vv);
}

/* Section 2 (by model) or 3 (by class): a table of rows per policy and part, and a chart of
 * each part's recoverable by placement. */
static void section_split(struct ctx *x, int by_class)
{
	struct report *r = x->r;
	section_open(r, by_class ? "3. Cost by job class" : "2. Cost by GPU model",
		     by_class ? "The same by the class of the job the time served or waited for "
				"(none: idle while no GPU job waited)."
			      : "The same by GPU model, each priced at its own price.");
	if (legacy_says(x))
		return;
	int nparts = by_class ? JOB_NCLASS + 1 : gpumodel_count();
	struct table_col cols[32] = {LABEL_COLS};
	cols[3] = by_class ? (struct table_col){"class", "class", NULL, 0, 0, TABLE_C_TEXT}
			   : (struct table_col){"model", "model", NULL, 0, 0, TABLE_C_TEXT};
	size_t nc = bucket_cols(cols, 4);
	struct table *t = report_add_table(
		r, by_class ? "by_class" : "by_model",
		by_class ? "$ per year by job class" : "$ per year by GPU model", cols, nc, 0);
	const char *names[GPUMODEL_MAX + JOB_NCLASS + 1];
	double *v = xcalloc((size_t)(nparts + 1) * (x->ng ? x->ng : 1), sizeof *v);
	size_t ns = 0;
	for (int p = 0; p < nparts; p++) {
		double usd[SIM_NBUCKET], place, any = 0;
		for (size_t i = 0; i < x->ng; i++) {
			group_usd(&x->g[i], &x->o->prices, by_class ? -1 : p, by_class ? p : -1,
				  usd, &place);
			for (int b = 0; b < SIM_NBUCKET; b++)
				any += usd[b];
		}
		if (any == 0)
			continue;
		const char *name =
			by_class ? (p == SIM_CLS_NONE ? "none" : job_class_name((enum job_class)p))
				 : gpumodel_get(p)->name;
		int placed_any = 0;
		for (size_t i = 0; i < x->ng; i++) {
			group_usd(&x->g[i], &x->o->prices, by_class ? -1 : p, by_class ? p : -1,
				  usd, &place);
			struct table_cell *c = table_row(t);
			label_cells(c, &x->g[i]);
			table_cell_text(&c[3], name);
			bucket_cells(c + 4, usd, place);
			v[ns * x->ng + i] = place;
			placed_any |= place > 0;
		}
		if (placed_any)
			names[ns++] = name;
	}
	table_hide_zero(t);
	struct chart_pols cp;
	chart_pols_init(x, &cp);
	struct svg_bars b = {.title = by_class ? "Recoverable by placement, by job class"
					       : "Recoverable by placement, by GPU model",
			     .cats = cp.names,
			     .ncat = x->ng,
			     .names = names,
			     .nser = ns,
			     .v = v,
			     .y = {"$ per year", fmt_usd_axis, 0},
			     .strong = cp.strong,
			     .reading = "Lower is better: $ a year of GPU time a better placement "
					"would win back."};
	svg_bar_chart(&report_add(r, REPORT_B_CHART, b.title)->svg, &b);
	chart_pols_release(&cp);
	free(v);
}

/* ---- 4: over time ---- */

enum { SER_FRAG, SER_STALL, SER_QUEUED, SER_N };

struct pts {
	double *t, *y[SER_N];
	size_t n, cap;
};

static int point_cb(void *ctx, const struct store_point *p)
{
	struct pts *s = ctx;
	if (s->n == s->cap) {
		size_t cap = s->cap;
		xgrow(&s->t, &cap, s->n + 1, sizeof *s->t);
		for (int k = 0; k < SER_N; k++) {
			size_t c2 = s->cap;
			xgrow(&s->y[k], &c2, s->n + 1, sizeof *s->y[k]);
		}
		s->cap = cap;
	}
	s->t[s->n] = (double)p->t;
	s->y[SER_FRAG][s->n] = p->frag;
	s->y[SER_STALL][s->n] = p->stall_share;
	s->y[SER_QUEUED][s->n] = (double)p->queued;
	s->n++;
	return 0;
}

static void pts_release(struct pts *s)
{
	free(s->t);
	for (int k = 0; k < SER_N; k++)
		free(s->y[k]);
}

/* A series that cannot be read fails the report (VF_ESTORE in e): every block is sealed and
 * checksummed, so it is a damaged store, not a gap to write around. */
static int section_series(struct ctx *x, struct err *e)
{
	struct report *r = x->r;
	section_open(
		r, "4. Fragmentation, stalled GPUs and queue over time",
		"From each run's stored series: the FGD fragmentation (free GPU capacity the "
		"common job shapes cannot use, as a share of all), the share of GPU capacity "
		"stalled by contention, and the jobs waiting. The table is over the pricing "
		"window (compare's mean fragmentation is over the whole replay, the drain "
		"included): means are time-weighted, the mean over seeds; peaks are the highest "
		"sample of any seed. The charts show the mean over seeds in equal slices of "
		"time, up to a quarter past the end of the window (after it the last jobs "
		"drain).");
	size_t nr = x->sel.n, ng = x->ng;
	struct pts *p = xcalloc(nr ? nr : 1, sizeof *p);
	double tmax = 0;
	int rc = 0;
	for (size_t i = 0; i < nr && !rc; i++) {
		rc = store_run_series(x->st, x->sel.runs[i].id, point_cb, &p[i], e);
		if (p[i].n)
			tmax = p[i].t[p[i].n - 1] > tmax ? p[i].t[p[i].n - 1] : tmax;
	}
	if (rc)
		goto out;
	/* the drain after the window would take most of a chart's width */
	int64_t w1 = x->sel.sc.window_end;
	double wend = x->mode == SIM_TIMED && w1 > 0 ? (double)w1 : tmax;
	if (x->mode == SIM_TIMED && w1 > 0 && 1.25 * (double)w1 < tmax) {
		tmax = 1.25 * (double)w1;
		for (size_t i = 0; i < nr; i++)
			while (p[i].n && p[i].t[p[i].n - 1] > tmax)
				p[i].n--;
	}
	static const struct table_col cols[] = {
		LABEL_COLS,
		{"frag_mean", "frag mean", NULL, 4, 0, TABLE_C_PLAIN},
		{"frag_peak", "frag peak", NULL, 4, 0, TABLE_C_PLAIN},
		{"stall_share_mean", "stalled mean", NULL, 1, 0, TABLE_C_SHARE},
		{"stall_share_peak", "stalled peak", NULL, 1, 0, TABLE_C_SHARE},
		{"queued_mean", "queue mean", NULL, 0, 0, 0},
		{"queued_peak", "queue peak", NULL, 0, 0, 0},
		{"queued_peak_s", "peak at", NULL, 0, 0, TABLE_C_SECONDS | TABLE_C_ROUNDED},
	};
	struct table *t = report_add_table(r, "over_time", "Over time, per policy", cols,
					   sizeof cols / sizeof *cols, 0);
	/* the binned lines: line[k][policy][bin] */
	double *line[SER_N], *bt = xcalloc(SERIES_BINS, sizeof *bt);
	double width = tmax > 0 ? tmax / SERIES_BINS : 1;
	for (int k = 0; k < SER_N; k++)
		line[k] = xcalloc((ng ? ng : 1) * SERIES_BINS, sizeof *line[k]);
	for (size_t b = 0; b < SERIES_BINS; b++)
		bt[b] = ((double)b + 0.5) * width;
	size_t off = 0;
	for (size_t gi = 0; gi < ng; gi++) {
		const struct group *g = &x->g[gi];
		struct table_cell *c = table_row(t);
		double mean[SER_N] = {0}, peak[SER_N] = {0}, peak_t = NAN;
		double cnt[SERIES_BINS] = {0};
		label_cells(c, g);
		for (size_t j = 0; j < g->n; j++) {
			const struct pts *s = &p[off + j];
			double sum[SER_N][SERIES_BINS] = {{0}}, num[SERIES_BINS] = {0};
			size_t m = 0; /* the samples in the pricing window */
			while (m < s->n && s->t[m] <= wend)
				m++;
			for (size_t k = 0; k < s->n; k++) {
				double dt = k + 1 < m ? s->t[k + 1] - s->t[k] : 0;
				size_t b = (size_t)(s->t[k] / width);
				b = b < SERIES_BINS ? b : SERIES_BINS - 1;
				num[b]++;
				for (int q = 0; q < SER_N; q++) {
					double y = s->y[q][k];
					sum[q][b] += y;
					if (k >= m)
						continue;
					if (m > 1)
						mean[q] += y * dt / (s->t[m - 1] - s->t[0]) /
							   (double)g->n;
					if (y > peak[q]) {
						peak[q] = y;
						if (q == SER_QUEUED)
							peak_t = s->t[k];
					}
				}
			}
			/* a bin without a sample holds the value before it */
			double last[SER_N] = {NAN, NAN, NAN};
			for (size_t b = 0; b < SERIES_BINS; b++) {
				if (num[b] > 0)
					for (int q = 0; q < SER_N; q++)
						last[q] = sum[q][b] / num[b];
				if (isnan(last[0]))
					continue;
				for (int q = 0; q < SER_N; q++)
					line[q][gi * SERIES_BINS + b] += last[q];
				cnt[b]++;
			}
		}
		for (size_t b = 0; b < SERIES_BINS; b++)
			for (int q = 0; q < SER_N; q++)
				line[q][gi * SERIES_BINS + b] =
					cnt[b] ? line[q][gi * SERIES_BINS + b] / cnt[b] : NAN;
		for (int q = 0; q < SER_N; q++) {
			c[3 + 2 * q].v = mean[q];
			c[4 + 2 * q].v = peak[q];
		}
		c[9].v = peak_t;
		off += g->n;
	}
	/* the plotted points, for JSON and CSV */
	static const struct table_col pcols[] = {
		{"policy", "policy", NULL, 0, 0, TABLE_C_TEXT},
		{"t_s", "t", NULL, 0, 0, TABLE_C_SECONDS | TABLE_C_ROUNDED},
		{"frag", "frag", NULL, 4, 0, TABLE_C_PLAIN},
		{"stall_share", "stalled", NULL, 1, 0, TABLE_C_SHARE},
		{"queued", "queued", NULL, 0, 0, 0},
	};
	struct table *pt = report_add_table(r, "series", "The plotted points", pcols,
					    sizeof pcols / sizeof *pcols, REPORT_BF_RAW);
	for (size_t gi = 0; gi < ng; gi++)
		for (size_t b = 0; b < SERIES_BINS; b++) {
			if (isnan(line[0][gi * SERIES_BINS + b]))
				continue;
			struct table_cell *c = table_row(pt);
			table_cell_text(&c[0], x->g[gi].pol->name);
			c[1].v = bt[b];
			for (int q = 0; q < SER_N; q++)
				c[2 + q].v = line[q][gi * SERIES_BINS + b];
		}
	static const struct {
		const char *title, *axis, *reading;
		svg_fmt_fn fmt;
	} charts[SER_N] = {
		{"Fragmentation over time", "FGD fragmentation, share of GPU capacity",
		 "Lower is better: less free GPU capacity the common job shapes cannot use",
		 fmt_share_axis},
		{"Stalled GPUs over time", "stalled, share of GPU capacity",
		 "Lower is better: less GPU capacity slowed by contention", fmt_share_axis},
		{"Queue over time", "jobs waiting", "Lower is better: fewer jobs waiting",
		 fmt_count_axis},
	};
	/* at most REPORT_MAX_LINES lines: the baseline and the verdict's policy first, then
	 * the others in table order; the rest are in the table above and the series */
	struct chart_pols cp;
	chart_pols_init(x, &cp);
	size_t *pick = xcalloc(ng ? ng : 1, sizeof *pick), np = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t gi = 0; gi < ng && np < REPORT_MAX_LINES; gi++)
			if (cp.strong[gi] == !pass)
				pick[np++] = gi;
	struct sbuf rd = SBUF_INIT;
	sbuf_init(&rd);
	struct svg_line *lines = xcalloc(ng ? ng : 1, sizeof *lines);
	unsigned char *strong = xcalloc(ng ? ng : 1, 1);
	for (int q = 0; q < SER_N; q++) {
		for (size_t k = 0; k < np; k++) {
			size_t gi = pick[k];
			lines[k] = (struct svg_line){cp.names[gi], bt, line[q] + gi * SERIES_BINS,
						     SERIES_BINS};
			strong[k] = cp.strong[gi];
		}
		sbuf_reset(&rd);
		sbuf_adds(&rd, charts[q].reading);
		if (np < ng)
			sbuf_printf(&rd,
				    "; %zu more polic%s in the table above and in the JSON "
				    "and CSV series",
				    ng - np, ng - np == 1 ? "y" : "ies");
		sbuf_addc(&rd, '.');
		struct svg_lines lc = {
			.title = charts[q].title,
			.lines = lines,
			.nlines = np,
			.strong = strong,
			.reading = rd.s,
			.x = {"time since the trace's first arrival", fmt_seconds_axis, 1},
			.y = {charts[q].axis, charts[q].fmt, 0},
			.ymin = 0,
			.xmark = x->mode == SIM_TIMED && w1 > 0 ? (double)w1 : NAN,
			.xmark_label = "pricing window ends"};
		svg_line_chart(&report_add(r, REPORT_B_CHART, lc.title)->svg, &lc);
	}
	free(lines);
	free(strong);
	free(pick);
	sbuf_release(&rd);
	chart_pols_release(&cp);
	for (int k = 0; k < SER_N; k++)
		free(line[k]);
	free(bt);
out:
	for (size_t i = 0; i < nr; i++)
		pts_release(&p[i]);
	free(p);
	return rc;
}

/* ---- 5: right-sizing ---- */

struct sizing_rows {
	struct ctx *x;
	struct table *t;
	size_t n;
};

static int sizing_cb(void *ctx, const struct store_sizing *z)
{
	struct sizing_rows *sr = ctx;
	struct sbuf b = SBUF_INIT;
	sbuf_init(&b);
	if (!sr->t) {
		static const struct table_col cols[] = {
			{"policy", "policy", NULL, 0, 0, TABLE_C_TEXT},
			{"slo", "SLO", NULL, 0, 0, TABLE_C_TEXT},
			{"seeds", "seeds", NULL, 0, 0, TABLE_C_TEXT},
			{"shrink", "shrink", NULL, 0, 0, TABLE_C_TEXT},
			{"nodes_full", "nodes", NULL, 0, 0, 0},
			{"nodes_min", "nodes kept", NULL, 0, 0, 0},
			{"gpus_full", "GPUs", NULL, 0, 0, 0},
			{"gpus_retired", "GPUs retired", NULL, 0, 0, 0},
			{"usd_per_year", "saved $/yr", NULL, 0, 0, TABLE_C_USD},
			{"price_tier", "prices", NULL, 0, 0, TABLE_C_TEXT},
			{"margin", "larger sizes", NULL, 0, 0, TABLE_C_TEXT},
		};
		sr->t = report_add_table(sr->x->r, "sizing",
					 "The smallest cluster that still meets the SLO", cols,
					 sizeof cols / sizeof *cols, 0);
	}
	struct table_cell *c = table_row(sr->t);
	table_cell_text(&c[0], z->policy);
	table_cell_text(&c[1], *z->slo ? z->slo : "no more unplaceable jobs");
	if (z->seed_lo == z->seed_hi)
		sbuf_printf(&b, "%llu", (unsigned long long)z->seed_lo);
	else
		sbuf_printf(&b, "%llu-%llu", (unsigned long long)z->seed_lo,
			    (unsigned long long)z->seed_hi);
	table_cell_text(&c[2], b.s);
	table_cell_text(&c[3], *z->shrink ? z->shrink : "every GPU group");
	c[4].v = (double)z->nodes_full;
	c[5].v = (double)z->nodes_min;
	c[6].v = (double)z->gpus_full;
	c[7].v = (double)z->gpus_retired;
	c[8].v = z->usd_per_year;
	table_cell_text(&c[9], z->price_tier);
	/* whether the size is a margin: the larger sizes tried meet the SLO too */
	sbuf_reset(&b);
	if (z->checked_above < 0)
		sbuf_adds(&b, "not checked (an older voidfit)");
	else if (z->miss_above_nodes > 0)
		sbuf_printf(&b, "NOT MONOTONE: %lld nodes miss the SLO (%s)",
			    (long long)z->miss_above_nodes, z->miss_above ? z->miss_above : "");
	else if (z->checked_above == 0)
		sbuf_adds(&b, "no size between it and the full cluster");
	else
		sbuf_printf(&b, "the next %lld meet it too", (long long)z->checked_above);
	table_cell_text(&c[10], b.s);
	sr->n++;
	sbuf_release(&b);
	return 0;
}

/* The results of 'voidfit size' stored for this scenario: the smallest cluster that still
 * meets the SLO, and what it saves (at the prices the sizing was made with). Sizings that
 * cannot be read fail the report, as a series does. */
static int section_sizing(struct ctx *x, struct err *e)
{
	struct sizing_rows sr = {x, NULL, 0};
	report_add(x->r, REPORT_B_HEADING, "5. Right-sizing");
	int rc = store_sizing_list(x->st, x->sel.scenario_id, sizing_cb, &sr, e);
	if (rc)
		return rc;
	if (!sr.n)
		report_add(x->r, REPORT_B_PARA, REPORT_NO_SIZING);
	else
		report_add(
			x->r, REPORT_B_PARA,
			"Each row: the smallest cluster (every node group shrunk in proportion, "
			"or one GPU model) on which the policy still meets the SLO at every seed "
			"and places every job the full cluster places; the GPUs it retires a "
			"year, at the prices of the sizing; and whether the next larger sizes "
			"meet the SLO too: where one does not, the size is a boundary, not a "
			"margin (voidfit size; man 7 voidfit, right-sizing).");
	return 0;
}

/* ---- 6: what-ifs ---- */

/* The columns of the what-if table. */
static const struct table_col whatif_cols[] = {
	{"what_if", "what-if", NULL, 0, 0, TABLE_C_TEXT},
	{"scenario", "scenario", NULL, 0, 0, 0},
	{"policy", "policy", NULL, 0, 0, TABLE_C_TEXT},
	{"seeds", "seeds", NULL, 0, 0, TABLE_C_TEXT},
	{"plain_usd_per_year", "plain", NULL, 0, 0, TABLE_C_USD},
	{"what_if_usd_per_year", "what-if", NULL, 0, 0, TABLE_C_USD},
	{"change_usd_per_year", "change", NULL, 0, 0, TABLE_C_USD},
	{"change_ci95_usd_per_year", "+/- 95%", NULL, 0, 0, TABLE_C_USD},
	{"run_ids", "runs", NULL, 0, 0, TABLE_C_TEXT | TABLE_C_TEXT_HIDE},
	{"plain_run_ids", "plain runs", NULL, 0, 0, TABLE_C_TEXT | TABLE_C_TEXT_HIDE},
};

/* What the rows of the what-if table are made with, scenario by scenario. */
struct whatif {
	struct ctx *x;
	struct table *t;       /* the table, once it has a row */
	struct sbuf d, b;      /* a scenario's description; a cell's text */
	size_t skipped_legacy; /* scenarios made before buckets were stored */
	struct err *e;
};

/* store_scenario_list: the rows of scenario s, each of its policies against the same policy
 * in this report's scenario, if s is another scenario of this mode with runs. */
static int whatif_rows(void *ctx, const struct store_scenario *s)
{
	struct whatif *w = ctx;
	struct ctx *x = w->x;
	if (s->id == x->sel.scenario_id || strcmp(s->mode, x->sel.sc.mode) || !s->nruns)
		return 0;
	if (!strncmp(s->key, "legacy:", 7)) {
		w->skipped_legacy++;
		return 0;
	}
	struct runrec_query q = {.scenario_id = s->id,
				 .mode = -1,
				 .pols = x->q->pols,
				 .npol = x->q->npol,
				 .seeds_given = x->q->seeds_given,
				 .lo = x->q->lo,
				 .hi = x->q->hi};
	struct runrec_sel ws;
	int rc = runrec_select(x->st, x->path, &q, &ws, w->e);
	if (rc)
		return rc;
	for (size_t k = 0; k < ws.n; k++)
		runrec_price(&ws.runs[k], &x->o->prices, &x->assumed);
	struct group *wg;
	size_t nwg;
	group_runs(ws.runs, ws.n, &wg, &nwg);
	sbuf_reset(&w->d);
	runrec_describe(s, &x->sel.sc, &w->d);
	for (size_t k = 0; k < nwg; k++) {
		const struct group *pg = find_group(x, wg[k].pol);
		if (!pg)
			continue;
		double pm, ph, wm, wh, dm, dh;
		double *pv = xcalloc(pg->n, sizeof *pv), *wv = xcalloc(wg[k].n, sizeof *wv),
		       *dv = xcalloc(wg[k].n, sizeof *dv);
		size_t nd = 0;
		for (size_t j = 0; j < pg->n; j++)
			pv[j] = pg->runs[j].v[RUNREC_USD_PLACE];
		for (size_t j = 0; j < wg[k].n; j++) {
			wv[j] = wg[k].runs[j].v[RUNREC_USD_PLACE];
			for (size_t m = 0; m < pg->n; m++)
				if (pg->runs[m].seed == wg[k].runs[j].seed)
					dv[nd++] = wv[j] - pv[m];
		}
		stats_mean_ci(pv, pg->n, &pm, &ph);
		stats_mean_ci(wv, wg[k].n, &wm, &wh);
		stats_mean_ci(dv, nd, &dm, &dh);
		if (!w->t)
			w->t = report_add_table(x->r, "what_if", "What-ifs against this scenario",
						whatif_cols,
						sizeof whatif_cols / sizeof *whatif_cols, 0);
		struct table_cell *c = table_row(w->t);
		table_cell_text(&c[0], w->d.s);
		c[1].v = (double)s->id;
		table_cell_text(&c[2], wg[k].pol->name);
		sbuf_reset(&w->b);
		seeds_text(wg[k].runs, wg[k].n, &w->b);
		table_cell_text(&c[3], w->b.s);
		c[4].v = pm;
		c[5].v = wm;
		c[6].v = nd ? dm : NAN;
		c[7].v = dh;
		sbuf_reset(&w->b);
		ids_text(wg[k].runs, wg[k].n, &w->b);
		table_cell_text(&c[8], w->b.s);
		sbuf_reset(&w->b);
		ids_text(pg->runs, pg->n, &w->b);
		table_cell_text(&c[9], w->b.s);
		free(pv);
		free(wv);
		free(dv);
	}
	free(wg);
	runrec_sel_release(&ws);
	return 0;
}

static int section_whatif(struct ctx *x, struct err *e)
{
	struct report *r = x->r;
	struct whatif w = {.x = x, .e = e};
	section_open(r, "6. What-ifs",
		     "The other scenarios of this trace and mode (faults, io-pressure, another "
		     "cluster, ...), each against this report's scenario: recoverable by placement "
		     "of the same policy, $ per year, the change paired by seed.");
	sbuf_init(&w.d);
	sbuf_init(&w.b);
	int rc = store_scenario_list(x->st, x->sel.trace_id, whatif_rows, &w, e);
	if (!rc && !w.t)
		report_add(
			r, REPORT_B_PARA,
			"No what-if runs of this trace: replay it with --fault, --io-pressure or "
			"--cluster to make some.");
	if (!rc && w.skipped_legacy)
		report_addf(
			r, REPORT_B_PARA,
			"%zu scenario%s made before buckets were stored left out (replay them).",
			w.skipped_legacy, w.skipped_legacy == 1 ? "" : "s");
	sbuf_release(&w.d);
	sbuf_release(&w.b);
	return rc;
}

/* ---- 7: owned against rented ---- */

/* The price of model m in tier t: the --gpu-price override when t is the tier asked for. */
static double tier_price(const struct metrics_opts *o, enum gpumodel_tier t, int m)
{
	if (o->tier == t && o->price[m] >= 0)
		return o->price[m];
	return gpumodel_get(m)->usd[t];
}

static const char *tier_source(const struct metrics_opts *o, enum gpumodel_tier t, int m)
{
	if (o->tier == t && o->price[m] >= 0)
		return "--gpu-price";
	return gpumodel_get(m)->source[t];
}

static void section_breakeven(struct ctx *x)
{
	struct report *r = x->r;
	const struct metrics_opts *o = &x->o->prices;
	int api = !isnan(x->o->api_usd_per_mtok);
	double api_h = api ? x->o->tokens_per_gpu_hour / 1e6 * x->o->api_usd_per_mtok : NAN;
	report_add(r, REPORT_B_HEADING, "7. Owned against rented");
	report_addf(
		r, REPORT_B_PARA,
		"Owning pays for every provisioned GPU-hour; renting, ideally, only for the "
		"productive ones. Owned cost per productive GPU-hour = owned price x "
		"provisioned GPU-h / productive GPU-h. Owning breaks even with renting when the "
		"productive share reaches owned price / rental price.%s",
		api ? " The API figure is what an API charges for the tokens a productive "
		      "GPU-hour makes (tokens per GPU-hour / 1e6 x price per million tokens)."
		    : " (--api-price and --tokens-per-gpu-hour add an API's token price.)");
	if (legacy_says(x))
		return;
	struct table_col cols[16] = {
		LABEL_COLS,
		{"productive_share", "productive", NULL, 1, 0, TABLE_C_SHARE},
		{"owned_usd_per_productive_gpu_hour", "owned $/prod GPU-h", NULL, 2, 0,
		 TABLE_C_PRICE},
		{"on_demand_usd_per_gpu_hour", "on-demand", NULL, 2, 0, TABLE_C_PRICE},
		{"spot_usd_per_gpu_hour", "spot", NULL, 2, 0, TABLE_C_PRICE},
		{"breakeven_share_on_demand", "breakeven vs on-demand", NULL, 1, 0, TABLE_C_SHARE},
		{"breakeven_share_spot", "vs spot", NULL, 1, 0, TABLE_C_SHARE},
		{"cheapest", "cheapest", NULL, 0, 0, TABLE_C_TEXT},
	};
	size_t nc = 10;
	if (api) {
		cols[nc++] = (struct table_col){
			"api_usd_per_productive_gpu_hour", "API", NULL, 2, 0, TABLE_C_PRICE};
		cols[nc++] = (struct table_col){"breakeven_share_api", "vs API", NULL, 1, 0,
						TABLE_C_SHARE};
	}
	struct table *t = report_add_table(r, "breakeven", "Owned against rented", cols, nc, 0);
	for (size_t i = 0; i < x->ng; i++) {
		const struct group *g = &x->g[i];
		double own = 0, od = 0, spot = 0, prod = 0, prov = 0, od_prov = 0, spot_prov = 0;
		for (int m = 0; m < gpumodel_count(); m++) {
			double pv = group_hours(g, m, -1), pr = group_hours(g, m, SIM_B_PRODUCTIVE);
			if (!(pv > 0))
				continue;
			own += tier_price(o, GPUMODEL_OWNED, m) * pv;
			od += tier_price(o, GPUMODEL_ON_DEMAND, m) * pr;
			spot += tier_price(o, GPUMODEL_SPOT, m) * pr;
			od_prov += tier_price(o, GPUMODEL_ON_DEMAND, m) * pv;
			spot_prov += tier_price(o, GPUMODEL_SPOT, m) * pv;
			prod += pr;
			prov += pv;
		}
		struct table_cell *c = table_row(t);
		label_cells(c, g);
		c[3].v = prov > 0 ? prod / prov : NAN;
		c[4].v = prod > 0 ? own / prod : NAN;
		c[5].v = prod > 0 ? od / prod : NAN;
		c[6].v = prod > 0 ? spot / prod : NAN;
		c[7].v = od_prov > 0 ? own / od_prov : NAN;
		c[8].v = spot_prov > 0 ? own / spot_prov : NAN;
		const char *best = "owned";
		double bv = c[4].v;
		if (c[5].v < bv)
			best = "on-demand", bv = c[5].v;
		if (c[6].v < bv)
			best = "spot", bv = c[6].v;
		if (api) {
			c[10].v = api_h;
			c[11].v = prov > 0 && api_h > 0 ? own / prov / api_h : NAN;
			if (api_h < bv)
				best = "API", bv = api_h;
		}
		table_cell_text(&c[9], isnan(bv) ? NULL : best);
	}
	report_add(r, REPORT_B_PARA,
		   "Spot capacity can be taken back at short notice; its price fits work that can "
		   "be interrupted.");
}

/* ---- 8: assumptions ---- */

static void section_assumptions(struct ctx *x)
{
	struct report *r = x->r;
	const struct metrics_opts *o = &x->o->prices;
	struct sbuf b = SBUF_INIT;
	char buf[64];
	sbuf_init(&b);
	report_add(r, REPORT_B_HEADING, "8. Assumptions");
	if (x->mode == SIM_TIMED) {
		int64_t w0 = x->sel.sc.window_start, w1 = x->sel.sc.window_end;
		fmt_duration((double)(w1 - w0), FMT_DUR_ROUNDED, buf, sizeof buf);
		report_addf(
			r, REPORT_B_ITEM,
			"Window: trace seconds %" PRId64 " to %" PRId64
			" (%s), the same for every policy; $ per year = the window's $ x 8760 h "
			"/ window hours.",
			w0, w1, buf);
	} else {
		report_add(
			r, REPORT_B_ITEM,
			"Inflation: the GPUs of the final state, each held for a year ($ per year "
			"= GPUs x price x 8760 h).");
	}
	sbuf_reset(&b);
	seeds_text(x->sel.runs, x->g[0].n, &b);
	report_addf(r, REPORT_B_ITEM,
		    "Seeds: %s%s; %zu run%s of scenario %" PRId64 " (%zu polic%s).", b.s,
		    x->sel.partial ? " for the first policy (the others differ)" : "", x->sel.n,
		    x->sel.n == 1 ? "" : "s", x->sel.scenario_id, x->ng, x->ng == 1 ? "y" : "ies");
	/* summary.c's notes: the prices, the enrichment and what rests on it, sampling (the
	 * first, the window, is said above in human units) */
	struct table *nt = summary_table(NULL, 0, &(struct summary_opts){.mode = x->mode});
	summary_notes(nt, x->mode, x->sel.sc.window_start, x->sel.sc.window_end, 0, o, x->assumed,
		      x->sel.sc.enriched,
		      x->sel.sc.sample_nodes > 0 ? (unsigned)x->sel.sc.sample_nodes : 0);
	for (size_t i = 1; i < table_nnotes(nt); i++) {
		sbuf_reset(&b);
		sbuf_adds(&b, table_note(nt, i));
		b.s[0] = (char)(b.s[0] >= 'a' && b.s[0] <= 'z' ? b.s[0] - 32 : b.s[0]);
		sbuf_addc(&b, '.');
		report_add(r, REPORT_B_ITEM, b.s);
	}
	table_free(nt);

	report_add(r, REPORT_B_PARA,
		   "Prices per GPU-hour of the models in the cluster, with their sources; those "
		   "marked assumed are not list prices:");
	static const struct table_col cols[] = {
		{"model", "model", NULL, 0, 0, TABLE_C_TEXT},
		{"tier", "tier", NULL, 0, 0, TABLE_C_TEXT},
		{"usd_per_gpu_hour", "price", NULL, 2, 0, TABLE_C_PRICE},
		{"assumed", "assumed", NULL, 0, 0, 0},
		{"source", "source", NULL, 0, 0, TABLE_C_TEXT},
	};
	struct table *t = report_add_table(r, "prices", "Prices", cols, sizeof cols / sizeof *cols,
					   REPORT_BF_RAW);
	enum gpumodel_tier tiers[] = {o->tier, GPUMODEL_ON_DEMAND, GPUMODEL_SPOT, GPUMODEL_OWNED};
	for (int m = 0; m < gpumodel_count(); m++) {
		if (!(x->models >> m & 1))
			continue;
		for (size_t k = 0; k < 4; k++) {
			int dup = 0;
			for (size_t j = 0; j < k; j++)
				dup |= tiers[j] == tiers[k];
			if (dup)
				continue;
			const char *src = tier_source(o, tiers[k], m);
			int assumed = strcmp(src, "--gpu-price") && gpumodel_price_assumed(src);
			double p = tier_price(o, tiers[k], m);
			report_addf(r, REPORT_B_ITEM, "%s %s%s: $%.2f per GPU-hour%s. Source: %s",
				    gpumodel_get(m)->name, gpumodel_tier_name(tiers[k]),
				    k == 0 ? " (the report's tier)" : "", p,
				    assumed ? ", ASSUMED (not a list price)" : "", src);
			struct table_cell *c = table_row(t);
			table_cell_text(&c[0], gpumodel_get(m)->name);
			table_cell_text(&c[1], gpumodel_tier_name(tiers[k]));
			c[2].v = p;
			c[3].v = assumed;
			table_cell_text(&c[4], src);
		}
	}
	if (!isnan(x->o->api_usd_per_mtok))
		report_addf(r, REPORT_B_ITEM,
			    "API: $%g per million tokens at %g tokens per productive GPU-hour "
			    "(--api-price, --tokens-per-gpu-hour: as given, not checked).",
			    x->o->api_usd_per_mtok, x->o->tokens_per_gpu_hour);
	sbuf_release(&b);
}

/* Every figure of every run, for JSON and CSV. */
static void runs_table(struct ctx *x)
{
	struct table_col cols[RUNREC_NCOL + 4] = {
		{"run_id", "run", NULL, 0, 0, 0},
		{"policy", "policy", NULL, 0, 0, TABLE_C_TEXT},
		{"seed", "seed", NULL, 0, 0, 0},
	};
	size_t nc = 3;
	int map[RUNREC_NCOL];
	for (int k = 0; k < RUNREC_NCOL; k++) {
		map[k] = -1;
		if (!runrec_col_applies((enum runrec_col)k, x->mode) ||
		    runrec_col_omit((enum runrec_col)k, x->sel.runs, x->sel.n))
			continue;
		map[k] = (int)nc;
		cols[nc++] = (struct table_col){runrec_col_key((enum runrec_col)k),
						runrec_col((enum runrec_col)k)->head,
						NULL,
						1,
						0,
						0};
	}
	struct table *t = report_add_table(x->r, "runs", "Every run", cols, nc, REPORT_BF_RAW);
	for (size_t i = 0; i < x->sel.n; i++) {
		const struct runrec *rr = &x->sel.runs[i];
		struct table_cell *c = table_row(t);
		c[0].v = (double)rr->id;
		table_cell_text(&c[1], rr->policy->name);
		c[2].v = (double)rr->seed;
		for (int k = 0; k < RUNREC_NCOL; k++)
			if (map[k] >= 0)
				c[map[k]].v = rr->v[k];
	}
}

int report_build(struct store *st, const char *path, const struct runrec_query *q,
		 const struct report_opts *o, struct report **out, struct err *e)
{
	struct ctx x = {.st = st, .path = path, .q = q, .o = o};
	struct sbuf b = SBUF_INIT;
	int rc;

	*out = NULL;
	x.baseline = o->baseline ? o->baseline : policy_find("scalar");
	if ((rc = runrec_select(st, path, q, &x.sel, e)))
		goto out;
	if (!x.sel.n) {
		rc = err_set(e, VF_EINPUT, "%s: no runs%s%s (voidfit replay makes them)", path,
			     q->trace ? " of trace " : "", q->trace ? q->trace : "");
		goto out;
	}
	x.mode = !strcmp(x.sel.sc.mode, "inflate") ? SIM_INFLATE : SIM_TIMED;
	x.buckets = 1;
	for (size_t i = 0; i < x.sel.n; i++) {
		struct runrec *rr = &x.sel.runs[i];
		runrec_price(rr, &o->prices, &x.assumed);
		x.buckets &= rr->has_buckets;
		for (int m = 0; m < GPUMODEL_MAX; m++)
			for (int k = 0; k <= JOB_NCLASS; k++)
				for (int bk = 0; bk < SIM_NBUCKET; bk++)
					if (rr->buckets.ms[m][k][bk])
						x.models |= 1u << m;
	}
	group_runs(x.sel.runs, x.sel.n, &x.g, &x.ng);
	x.r = xcalloc(1, sizeof *x.r);

	sbuf_init(&b);
	runrec_describe(&x.sel.sc, NULL, &b);
	report_addf(x.r, REPORT_B_TITLE, "Cost report: trace %s, scenario %" PRId64 " (%s)",
		    x.sel.trace_name.s, x.sel.scenario_id, b.s);
	sbuf_reset(&b);
	seeds_text(x.sel.runs, x.g[0].n, &b);
	report_addf(x.r, REPORT_B_PARA,
		    "%zu polic%s, seed%s %s, %zu run%s; %" PRId64 " jobs on %" PRId64
		    " nodes with %" PRId64 " GPUs; priced at %s prices%s.",
		    x.ng, x.ng == 1 ? "y" : "ies", x.g[0].n == 1 ? "" : "s", b.s, x.sel.n,
		    x.sel.n == 1 ? "" : "s", x.sel.sc.jobs, x.sel.sc.nodes, x.sel.sc.gpus,
		    gpumodel_tier_name(o->prices.tier),
		    x.assumed ? ", some assumed (section 8)" : "");
	sbuf_reset(&b);
	runrec_why(&x.sel, q, &b);
	report_addf(x.r, REPORT_B_PARA, "Scenario %" PRId64 ": %s.", x.sel.scenario_id, b.s);
	warnings(&x);
	glance_head(&x);
	verdict(&x);
	verdict_guard(&x);
	glance_items(&x);
	section_service(&x);
	section_buckets(&x);
	section_split(&x, 0);
	section_split(&x, 1);
	if ((rc = section_series(&x, e)) || (rc = section_sizing(&x, e)) ||
	    (rc = section_whatif(&x, e)))
		goto out;
	section_breakeven(&x);
	section_assumptions(&x);
	runs_table(&x);
	*out = x.r;
	x.r = NULL;
out:
	report_free(x.r);
	table_free(x.summary);
	free(x.g);
	runrec_sel_release(&x.sel);
	sbuf_release(&b);
	return rc;
}
