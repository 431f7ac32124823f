/*
 * sizerec.c — a sizing's record (sizerec.h): the table 'voidfit size' prints and the rows it
 * stores, both from size_run's results, so that the command only prints them.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "gpumodel.h"
#include "metrics.h"
#include "replay.h"
#include "sizerec.h"

/* The models of plan whose groups shrink, as a mask, and each model's nodes and GPUs. */
struct model_sum {
	size_t nodes_full, nodes_min;
	int64_t gpus_full, gpus_min;
};

static void sum_models(const struct size_plan *plan, const size_t *kept, struct model_sum *out)
{
	memset(out, 0, GPUMODEL_MAX * sizeof *out);
	for (size_t g = 0; g < plan->ng; g++) {
		const struct size_group *gr = &plan->g[g];
		if (gr->model < 0)
			continue;
		size_t k = kept ? kept[g] : gr->n;
		out[gr->model].nodes_full += gr->n;
		out[gr->model].nodes_min += k;
		out[gr->model].gpus_full += (int64_t)gr->n * gr->ngpu;
		out[gr->model].gpus_min += (int64_t)k * gr->ngpu;
	}
}

/* The GPU models of plan in the order their first group comes into order, then -1. */
static void model_order(const struct size_plan *plan, int order[GPUMODEL_MAX + 1])
{
	uint32_t seen = 0;
	int n = 0;
	for (size_t g = 0; g < plan->ng; g++) {
		int m = plan->g[g].model;
		if (m >= 0 && !(seen >> m & 1)) {
			seen |= 1u << m;
			order[n++] = m;
		}
	}
	order[n] = -1;
}

static uint32_t shrinking_models(const struct size_plan *plan)
{
	uint32_t m = 0;
	for (size_t g = 0; g < plan->ng; g++)
		if (plan->g[g].shrinks)
			m |= 1u << plan->g[g].model;
	return m;
}

/* 1 if column col is in seconds (its key ends in "_s"). */
static int in_seconds(int col)
{
	const char *k = runrec_col_key((enum runrec_col)col);
	size_t n = strlen(k);
	return n > 2 && !strcmp(k + n - 2, "_s");
}

/* The figure of term i of slo (SIZE_UNPLACEABLE: the unplaceable rule) as a person reads
 * it. */
static void say_value(const struct size_slo *slo, size_t i, double v, struct sbuf *out)
{
	char buf[32];
	if (i < slo->n && in_seconds(slo->t[i].col) && !isnan(v))
		sbuf_adds(out, fmt_duration(v, FMT_DUR_DECIMAL, buf, sizeof buf));
	else if (isnan(v))
		sbuf_adds(out, "none");
	else
		sbuf_printf(out, "%.*f", i < slo->n ? runrec_col(slo->t[i].col)->decimals : 0, v);
}

void sizerec_miss(const struct size_slo *slo, const struct size_check *c,
		  const struct size_check *full, struct sbuf *out)
{
	if (c->term < 0) {
		sbuf_adds(out, "no node is left to run on");
		return;
	}
	size_t i = (size_t)c->term;
	if (i == SIZE_UNPLACEABLE(slo)) {
		sbuf_printf(out, "%.0f jobs are unplaceable (full cluster: %.0f) at seed %" PRIu64,
			    c->value, full->worst[i], c->seed);
		return;
	}
	size_term_text(&slo->t[i], out);
	sbuf_adds(out, ": ");
	say_value(slo, i, c->value, out);
	sbuf_printf(out, " at seed %" PRIu64, c->seed);
}

/* The nodes of each shrinking model at check c's step: "A100 23, T4 12". */
static void say_kept(const struct size_plan *plan, unsigned step, struct sbuf *out)
{
	size_t *kept = xcalloc(plan->ng, sizeof *kept);
	struct model_sum ms[GPUMODEL_MAX];
	uint32_t shr = shrinking_models(plan);
	int order[GPUMODEL_MAX + 1];
	model_order(plan, order);
	for (size_t g = 0; g < plan->ng; g++)
		kept[g] = size_plan_kept(plan, g, step);
	sum_models(plan, kept, ms);
	const char *sep = "";
	for (const int *m = order; *m >= 0; m++)
		if (shr >> *m & 1) {
			sbuf_printf(out, "%s%s %zu", sep, gpumodel_get(*m)->name, ms[*m].nodes_min);
			sep = ", ";
		}
	free(kept);
}

void sizerec_wait_warning(const struct size_slo *slo, enum sim_mode mode, struct sbuf *out)
{
	if (size_slo_bounds_wait(slo, mode))
		return;
	sbuf_adds(out, "WARNING: the SLO bounds no wait (wait_p95, wait_p50, wait_mean, "
		       "slowdown_mean, jct_mean or carried_over_jobs/gpu_hours): a smaller cluster "
		       "only queues the same jobs longer, so the smallest that meets it is where "
		       "the queue still drains, not a service; bound a wait, "
		       "e.g. --slo 'wait_p95<=1h'");
}

static void idle_warning(const struct size_opts *o, const struct size_result *res, struct sbuf *out)
{
	size_t n = 0;
	for (size_t p = 0; p < o->npol; p++) {
		if (!res[p].full_ok || !(res[p].full_alloc < METRICS_IDLE_ALLOC))
			continue;
		sbuf_printf(out, "%s%s %.2f %%", n++ ? ", " : "", res[p].policy->name,
			    res[p].full_alloc * 100);
	}
	if (!n)
		return;
	struct sbuf b = SBUF_INIT;
	sbuf_init(&b);
	sbuf_printf(&b,
		    "WARNING: the full cluster is almost idle (mean allocated GPU share under "
		    "1 %%: %s): the GPUs retired are the idle ones, the saving is the cluster's "
		    "excess over a trace too small for it, not a sizing (not marked best); "
		    "replay with --mode inflate --target X to size a loaded cluster",
		    out->s);
	sbuf_reset(out);
	sbuf_add(out, b.s, b.len);
	sbuf_release(&b);
}

void sizerec_warning(const struct size_opts *o, const struct size_result *res, struct sbuf *out)
{
	struct sbuf w = SBUF_INIT;
	sbuf_init(&w);
	idle_warning(o, res, out);
	sizerec_wait_warning(o->slo, o->sc->mode, &w);
	if (w.len)
		sbuf_printf(out, "%s%s", out->len ? " " : "", w.s);
	sbuf_release(&w);
}

/* The sizes r tried: its probes, and the full cluster where its runs were read, not run
 * (size_opts.known), so that a sizing reads alike either way. */
static size_t tried(const struct size_result *r)
{
	return r->probes + (r->reused > 0);
}

/* The notes of the table: first what voids the figures, then the cluster, the SLO, the
 * search, each policy's next step down, the prices (assumed: the models priced by the
 * placeholder). */
static void add_notes(struct table *tab, const struct size_opts *o, const struct size_result *res,
		      const char *slo_text, uint32_t assumed)
{
	const struct size_plan *plan = o->plan;
	const struct size_slo *slo = o->slo;
	uint32_t shr = shrinking_models(plan);
	int order[GPUMODEL_MAX + 1];
	struct model_sum full[GPUMODEL_MAX];
	struct sbuf b = SBUF_INIT;
	size_t ncpu = 0;

	model_order(plan, order);
	sum_models(plan, NULL, full);
	for (size_t g = 0; g < plan->ng; g++)
		ncpu += plan->g[g].model < 0 ? plan->g[g].n : 0;
	sbuf_init(&b);
	sizerec_warning(o, res, &b);
	if (b.len)
		table_add_note(tab, b.s);
	sbuf_reset(&b);

	/* the notes: the cluster, the SLO, the search, each policy's next step down, prices */
	sbuf_printf(&b, "full cluster: %zu nodes, %" PRId64 " GPUs (", plan->nnodes, plan->gpus);
	const char *sep = "";
	for (const int *m = order; *m >= 0; m++)
		if (full[*m].nodes_full) {
			sbuf_printf(&b, "%s%s %zu nodes, %" PRId64 " GPUs", sep,
				    gpumodel_get(*m)->name, full[*m].nodes_full,
				    full[*m].gpus_full);
			sep = "; ";
		}
	if (ncpu)
		sbuf_printf(&b, "%s%zu CPU-only nodes, never retired", sep, ncpu);
	sbuf_adds(&b, ")");
	table_add_note(tab, b.s);
	sbuf_reset(&b);
	sbuf_printf(&b,
		    "SLO: %s%sno more unplaceable jobs than on the full cluster, at every seed "
		    "(%" PRIu64 "-%" PRIu64 "); full and sized figures are the worst seed's",
		    slo_text, *slo_text ? " and " : "", o->lo, o->hi);
	if (o->lo == o->hi) {
		sbuf_reset(&b);
		sbuf_printf(&b,
			    "SLO: %s%sno more unplaceable jobs than on the full cluster, at seed "
			    "%" PRIu64,
			    slo_text, *slo_text ? " and " : "", o->lo);
	}
	table_add_note(tab, b.s);
	sbuf_reset(&b);
	sbuf_printf(&b, "search: step k keeps ceil(k x n / %u) of the n nodes of each ",
		    plan->steps);
	int all = 1;
	for (size_t g = 0; g < plan->ng; g++)
		all &= plan->g[g].shrinks || plan->g[g].model < 0;
	sep = "";
	for (const int *m = order; *m >= 0 && !all; m++)
		if (shr >> *m & 1) {
			sbuf_printf(&b, "%s%s", sep, gpumodel_get(*m)->name);
			sep = ", ";
		}
	sbuf_adds(&b, all ? "GPU node group" : " node group");
	sbuf_adds(&b, " (removed in a seeded order): a bisection over k to one node per group, "
		      "which assumes that a cluster meeting the SLO still meets it with more "
		      "nodes (voidfit(7))");
	table_add_note(tab, b.s);
	for (size_t p = 0; p < o->npol; p++) {
		const struct size_result *r = &res[p];
		if (!r->full_ok)
			continue;
		sbuf_reset(&b);
		sbuf_printf(&b, "%s: ", r->policy->name);
		if (!r->has_smaller) {
			sbuf_adds(&b, "meets the SLO with every shrinking group at 0 nodes");
		} else {
			sbuf_adds(&b, "one step smaller (");
			say_kept(plan, r->below.step, &b);
			sbuf_adds(&b, ") misses ");
			sizerec_miss(slo, &r->below, &r->full, &b);
		}
		if (r->above_miss) {
			sbuf_adds(&b, "; NOT MONOTONE: a larger size (");
			say_kept(plan, r->above.step, &b);
			sbuf_adds(&b, ") misses ");
			sizerec_miss(slo, &r->above, &r->full, &b);
			sbuf_adds(&b, ", so the size found is a boundary, not a margin");
		} else if (r->above_checked) {
			sbuf_printf(&b, "; the %u next larger size%s meet%s it too",
				    r->above_checked, r->above_checked > 1 ? "s" : "",
				    r->above_checked > 1 ? "" : "s");
		}
		sbuf_printf(&b, "; %zu sizes tried", tried(r));
		table_add_note(tab, b.s);
	}
	sbuf_reset(&b);
	sbuf_adds(&b, "saved $/yr = retired GPUs x price x 8760 h; prices: ");
	metrics_prices_note(&o->sc->prices, assumed, &b);
	table_add_note(tab, b.s);
	sbuf_release(&b);
}

struct table *sizerec_table(const struct size_opts *o, const struct size_result *res,
			    const char *slo_text)
{
	const struct size_plan *plan = o->plan;
	const struct size_slo *slo = o->slo;
	uint32_t shr = shrinking_models(plan), assumed = 0;
	int order[GPUMODEL_MAX + 1];
	model_order(plan, order);
	struct model_sum full[GPUMODEL_MAX], ms[GPUMODEL_MAX];
	struct table_col cols[10 + GPUMODEL_MAX + 2 * SIZE_MAX_TERMS];
	struct sbuf strs[2 + 2 * GPUMODEL_MAX + 6 * SIZE_MAX_TERMS];
	size_t nc = 0, ns = 0;
	double v[10 + GPUMODEL_MAX + 2 * SIZE_MAX_TERMS];

	sum_models(plan, NULL, full);
	for (size_t i = 0; i < sizeof strs / sizeof *strs; i++)
		sbuf_init(&strs[i]);
		/* STR: the next of strs, printed (one a statement: an initializer's order is unset)
		 */
#define STR(...) (sbuf_printf(&strs[ns], __VA_ARGS__), strs[ns++].s)
	const char *u0 = STR("of %zu", plan->nnodes);
	cols[nc++] = (struct table_col){"nodes", "nodes", u0, 0, TABLE_LOWER, 0};
	for (const int *m = order; *m >= 0; m++)
		if (shr >> *m & 1) {
			const char *key = STR("nodes_%s", gpumodel_get(*m)->name);
			const char *unit = STR("of %zu", full[*m].nodes_full);
			cols[nc++] = (struct table_col){key, gpumodel_get(*m)->name, unit,
							0,   TABLE_NEUTRAL,          0};
		}
	const char *u1 = STR("of %" PRId64, plan->gpus);
	cols[nc++] = (struct table_col){"gpus", "GPUs", u1, 0, TABLE_LOWER, 0};
	cols[nc++] = (struct table_col){"gpus_retired", "retired", "GPUs", 0, TABLE_HIGHER, 0};
	cols[nc++] = (struct table_col){"usd_per_year", "saved", "$/yr", 0, TABLE_HIGHER, 0};
	for (size_t i = 0; i < slo->n; i++) {
		const struct size_term *t = &slo->t[i];
		const struct table_col *rc = runrec_col((enum runrec_col)t->col);
		int secs = in_seconds(t->col);
		struct sbuf name = SBUF_INIT;
		sbuf_init(&name);
		size_term_name(t, &name);
		const char *kf = STR("%s_full", name.s);
		const char *hf = STR("%s", name.s);
		cols[nc++] = (struct table_col){
			kf, hf, secs ? "full s" : "full", rc->decimals, TABLE_NEUTRAL, 0};
		const char *ks = STR("%s_sized", name.s);
		const char *hs = STR("%s", name.s);
		cols[nc++] = (struct table_col){
			ks, hs, secs ? "sized s" : "sized", rc->decimals, TABLE_NEUTRAL, 0};
		sbuf_release(&name);
	}
	cols[nc++] = (struct table_col){"nodes_full", "", "", 0, TABLE_NEUTRAL, TABLE_C_TEXT_HIDE};
	cols[nc++] = (struct table_col){"gpus_full", "", "", 0, TABLE_NEUTRAL, TABLE_C_TEXT_HIDE};
	cols[nc++] = (struct table_col){"probes", "", "", 0, TABLE_NEUTRAL, TABLE_C_TEXT_HIDE};
	cols[nc++] =
		(struct table_col){"checked_above", "", "", 0, TABLE_NEUTRAL, TABLE_C_TEXT_HIDE};
	cols[nc++] =
		(struct table_col){"miss_above_nodes", "", "", 0, TABLE_NEUTRAL, TABLE_C_TEXT_HIDE};
	cols[nc++] =
		(struct table_col){"full_runs_reused", "", "", 0, TABLE_NEUTRAL, TABLE_C_TEXT_HIDE};
	const struct table_col lab = {"policy", "policy", NULL, 0, 0, 0};
	struct table *tab = table_new(&lab, 1, cols, nc);
	table_set_mark_best(tab, 1);

	for (size_t p = 0; p < o->npol; p++) {
		const struct size_result *r = &res[p];
		size_t k = 0;
		if (!r->full_ok)
			continue;
		int idle = r->full_alloc < METRICS_IDLE_ALLOC ||
			   !size_slo_bounds_wait(slo, o->sc->mode);
		sum_models(plan, r->kept, ms);
		assumed |= r->assumed;
		v[k++] = (double)r->min.nodes;
		for (const int *m = order; *m >= 0; m++)
			if (shr >> *m & 1)
				v[k++] = (double)ms[*m].nodes_min;
		v[k++] = (double)r->gpus;
		v[k++] = (double)(plan->gpus - r->gpus);
		v[k++] = r->usd_year;
		for (size_t i = 0; i < slo->n; i++) {
			v[k++] = r->full.worst[i];
			v[k++] = r->min.worst[i];
		}
		v[k++] = (double)plan->nnodes;
		v[k++] = (double)plan->gpus;
		v[k++] = (double)r->probes;
		v[k++] = (double)r->above_checked;
		v[k++] = r->above_miss ? (double)r->above.nodes : 0;
		v[k++] = (double)r->reused;
		const char *name = r->policy->name;
		table_add_row(tab, &name, v, 0);
		if (idle)
			table_set_unranked(tab, table_nrows(tab) - 1);
	}
#undef STR
	add_notes(tab, o, res, slo_text, assumed);
	for (size_t i = 0; i < sizeof strs / sizeof *strs; i++)
		sbuf_release(&strs[i]);
	return tab;
}

int sizerec_store(struct store *st, const struct size_opts *o, const struct size_result *res,
		  const char *slo_text, const char *shrink, int64_t *scenario_id, size_t *nstored,
		  struct err *e)
{
	const struct size_plan *plan = o->plan;
	struct replay_trace t;
	struct store_sizing_model zm[GPUMODEL_MAX];
	struct model_sum full[GPUMODEL_MAX], ms[GPUMODEL_MAX];
	struct sbuf prices = SBUF_INIT, miss = SBUF_INIT;
	const struct size_result *first = NULL;
	int order[GPUMODEL_MAX + 1];
	model_order(plan, order);
	int rc;

	*nstored = 0;
	for (size_t p = 0; p < o->npol && !first; p++)
		if (res[p].full_ok)
			first = &res[p];
	if (!first)
		return VF_OK;
	sbuf_init(&prices);
	sbuf_init(&miss);
	for (size_t i = 0; i < o->sc->nprice_specs; i++)
		sbuf_printf(&prices, "%s%s", i ? "," : "", o->sc->price_specs[i]);
	sum_models(plan, NULL, full);
	replay_prepare(&t, &o->sc->base, o->sc, o->lo); /* the scenario row's trace */
	if ((rc = store_begin(st, e)))
		goto out;
	rc = runrec_scenario_put(st, o->sc, &t, first->w0, first->w1, scenario_id, e);
	for (size_t p = 0; p < o->npol && !rc; p++) {
		const struct size_result *r = &res[p];
		size_t nm = 0;
		if (!r->full_ok)
			continue;
		sum_models(plan, r->kept, ms);
		for (const int *m = order; *m >= 0; m++)
			if (full[*m].nodes_full)
				zm[nm++] = (struct store_sizing_model){
					gpumodel_get(*m)->name, (int64_t)full[*m].nodes_full,
					(int64_t)ms[*m].nodes_min, full[*m].gpus_full,
					ms[*m].gpus_min};
		sbuf_reset(&miss);
		if (r->above_miss)
			sizerec_miss(o->slo, &r->above, &r->full, &miss);
		struct store_sizing z = {
			.scenario_id = *scenario_id,
			.policy = r->policy->name,
			.slo = slo_text,
			.seed_lo = o->lo,
			.seed_hi = o->hi,
			.shrink = shrink,
			.nodes_full = (int64_t)plan->nnodes,
			.nodes_min = (int64_t)r->min.nodes,
			.gpus_full = plan->gpus,
			.gpus_min = r->gpus,
			.gpus_retired = plan->gpus - r->gpus,
			.usd_per_year = r->usd_year,
			.price_tier = gpumodel_tier_name(o->sc->prices.tier),
			.prices = prices.s,
			.probes = (int64_t)tried(r),
			.checked_above = r->above_checked,
			.miss_above_nodes = r->above_miss ? (int64_t)r->above.nodes : 0,
			.miss_above = miss.s,
			.models = zm,
			.nmodels = nm,
		};
		if (!(rc = store_sizing_put(st, &z, e)))
			(*nstored)++;
	}
	if (rc)
		store_rollback(st);
	else
		rc = store_commit(st, e);
out:
	replay_trace_release(&t);
	sbuf_release(&prices);
	sbuf_release(&miss);
	return rc;
}

int sizerec_can_store(struct store *st, struct err *e)
{
	int rc = store_begin(st, e);
	if (!rc)
		store_rollback(st);
	return rc;
}
