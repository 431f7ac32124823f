/*
 * replay.c — one replay run: prepare the job set for a seed (copy, enrich, target workload),
 * make the sim of a scenario, run it, compute the metrics, keep the series and per-job
 * results (replay.h).
 *
 * Every text produced here is deterministic: the same trace, scenario, policy and seed give
 * the same bytes (the wall time is kept in the result but never written).
 */
#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

#define PROGRESS_EVERY 64 /* sim steps between progress calls */

/* ---- preparing a trace ---- */

/* Enrich t->js for seed and build its target workload. */
static void prepare(struct replay_trace *t, const struct scenario *sc, uint64_t seed)
{
	t->seed = seed;
	enrich_apply(sc->profile, seed, sc->io_pressure, &t->js);
	enrich_summarize(&t->js, &t->enr);
	frag_workload_build(&t->wl, t->js.jobs, t->js.njobs, sc->coverage);
}

void replay_prepare(struct replay_trace *t, const struct job_set *base, const struct scenario *sc,
		    uint64_t seed)
{
	memset(t, 0, sizeof *t);
	job_set_reserve(&t->js, base->njobs);
	for (size_t i = 0; i < base->njobs; i++)
		job_set_add_job(&t->js, &base->jobs[i]);
	for (size_t i = 0; i < base->nnodes; i++)
		job_set_add_node(&t->js, &base->nodes[i]);
	prepare(t, sc, seed);
}

void replay_prepare_take(struct replay_trace *t, struct job_set *base, const struct scenario *sc,
			 uint64_t seed)
{
	memset(t, 0, sizeof *t);
	t->js = *base;
	memset(base, 0, sizeof *base);
	prepare(t, sc, seed);
}

void replay_trace_release(struct replay_trace *t)
{
	if (!t)
		return;
	frag_workload_release(&t->wl);
	job_set_release(&t->js);
}

/* ---- running ---- */

void replay_sim_opts(const struct scenario *sc, uint64_t seed, struct sim_opts *o)
{
	sim_opts_init(o);
	o->mode = sc->mode;
	o->queue = sc->queue;
	o->preempt = sc->preempt;
	o->seed = seed;
	o->target = sc->target;
	o->dims = sc->dims;
	for (int i = 0; i < SCENARIO_NPARAM; i++)
		if (scenario_params[i].pol >= 0)
			o->param[scenario_params[i].pol] = scenario_real(sc, &scenario_params[i]);
	o->sample_nodes = sc->sample_nodes;
	o->io_admission = sc->io_admission;
	o->faults = sc->faults;
	o->nfaults = sc->nfaults;
	o->win_start = sc->win_start;
	o->win_end = sc->win_end;
	o->scoring = sc->scoring;
	o->k8s_tie = sc->tie;
	o->k8s_weights = sc->k8s_weights;
	o->node_mtbf = sc->node_mtbf;
	o->node_repair = sc->node_repair;
	o->ckpt_every = sc->ckpt_every;
	o->ckpt_cost = sc->ckpt_cost;
	o->gang_spread = sc->gang_spread;
	o->runtime_over = sc->runtime_over;
	o->xswitch = sc->xswitch;
}

int replay_new(const struct replay_trace *t, const struct scenario *sc,
	       const struct policy_ops *ops, struct sim **out, struct err *e)
{
	struct sim_opts o;
	replay_sim_opts(sc, t->seed, &o);
	return sim_new(&t->js, ops, &t->wl, &o, out, e);
}

static void write_jobs(const struct sim *s, struct sbuf *out)
{
	struct sim_job_result jr;
	sbuf_adds(out, "job_id,state,why,class,node,submit,start,end,t_alone,slowdown,"
		       "stalled_gpu_s,preemptions\n");
	for (size_t i = 0; i < sim_njobs(s); i++) {
		sim_job_result(s, i, &jr);
		const char *why = "";
		if (jr.state == SIM_JOB_UNPLACEABLE)
			why = sim_why_name((enum sim_why)jr.why);
		sbuf_printf(out,
			    "%" PRId64 ",%s,%s,%s,%" PRId32 ",%" PRId64 ",%" PRId64 ",%" PRId64
			    ",%" PRId64 ",%.6g,%.6g,%" PRId32 "\n",
			    jr.job_id, sim_job_state_name((enum sim_job_state)jr.state), why,
			    job_class_name((enum job_class)jr.cls), jr.node, jr.submit, jr.start,
			    jr.end, jr.t_alone, jr.slowdown, jr.stalled_gpu_s, jr.npreempt);
	}
}

static double progress_of(const struct sim *s, const struct scenario *sc)
{
	const struct sim_counters *c = sim_counters(s);
	if (sc->mode == SIM_INFLATE) {
		double cap = 0;
		for (int m = 0; m < GPUMODEL_MAX; m++)
			cap += (double)c->gpu_cap[m];
		return cap > 0 ? (double)c->requested_gpu / (sc->target * cap) : 1;
	}
	size_t n = sim_njobs(s);
	double done = (double)(c->finished + c->unplaceable + c->skipped);
	return n ? done / (double)n : 1;
}

int replay_run(const struct replay_trace *t, const struct scenario *sc,
	       const struct policy_ops *ops, int records, replay_progress_fn progress, void *u,
	       const volatile sig_atomic_t *stop, struct replay_result *r, struct err *e)
{
	return replay_run_giveup(t, sc, ops, records, progress, u, NULL, stop, r, e);
}

int replay_run_giveup(const struct replay_trace *t, const struct scenario *sc,
		      const struct policy_ops *ops, int records, replay_progress_fn progress,
		      void *u, const struct replay_giveup *g, const volatile sig_atomic_t *stop,
		      struct replay_result *r, struct err *e)
{
	struct sim *s = NULL;
	int rc;

	memset(r, 0, sizeof *r);
	sbuf_init(&r->jobs);
	r->policy = ops;
	r->seed = t->seed;
	r->mode = sc->mode;
	r->dims = sc->dims ? sc->dims : ops->dims;
	r->unalloc_at_100 = NAN;
	if ((rc = replay_new(t, sc, ops, &s, e)))
		goto out;
	struct sim_observer obs = metrics_series_observer(&r->series);
	sim_observe(s, &obs);
	if (g && (g->obs.on_place || g->obs.on_finish || g->obs.on_preempt ||
		  g->obs.on_unplaceable || g->obs.on_fault || g->obs.on_sample))
		sim_observe(s, &g->obs);

	double t_start = util_mono();
	for (uint64_t n = 1; sim_step(s); n++) {
		if (g && n % g->every == 0 && g->test(g->u, s)) {
			r->gave_up = 1;
			r->events = sim_counters(s)->events;
			metrics_series_release(&r->series);
			goto out;
		}
		if (n % PROGRESS_EVERY)
			continue;
		if (stop && *stop) {
			rc = err_set(e, VF_ESTOP, "stopped");
			goto out;
		}
		if (progress)
			progress(u, progress_of(s, sc));
	}
	r->wall_s = util_mono() - t_start;
	if (progress)
		progress(u, 1);

	metrics_compute(s, &sc->prices, &r->m);
	r->events = sim_counters(s)->events;
	r->placed = sim_counters(s)->placed;
	if (sc->mode == SIM_INFLATE && sc->target >= 1) {
		double curve[1024];
		size_t n = metrics_unalloc_curve(&r->series, sc->target, curve, 1024);
		if (n > 100)
			r->unalloc_at_100 = curve[100];
	}
	r->nfaults = sc->nfaults;
	r->fault_jobs = xcalloc(sc->nfaults ? sc->nfaults : 1, sizeof *r->fault_jobs);
	for (size_t i = 0; i < sc->nfaults; i++)
		r->fault_jobs[i] = sim_fault_jobs(s, i);
	if (records)
		write_jobs(s, &r->jobs);
	else
		metrics_series_release(&r->series);
out:
	sim_free(s);
	if (rc)
		replay_result_release(r);
	return rc;
}

void replay_result_release(struct replay_result *r)
{
	if (!r)
		return;
	metrics_series_release(&r->series);
	sbuf_release(&r->jobs);
	free(r->fault_jobs);
	r->fault_jobs = NULL;
}

/* ---- command-line pieces ---- */

int replay_parse_policies(const char *s, const struct policy_ops ***out, size_t *n, struct err *e)
{
	size_t cap = 0, len = 0;
	const struct policy_ops **v = NULL;

	*out = NULL;
	*n = 0;
	if (!strcmp(s, "all")) {
		for (const struct policy_ops *const *p = policy_table; *p; p++) {
			xgrow(&v, &cap, len + 1, sizeof *v);
			v[len++] = *p;
		}
		*out = v;
		*n = len;
		return 0;
	}
	const char *w = s;
	for (;;) {
		size_t wl = strcspn(w, ",");
		char *name = xstrndup(w, wl);
		const struct policy_ops *ops = policy_find(name);
		if (!ops && !strcmp(name, "all")) {
			free(name);
			free(v);
			return err_set(e, VF_EINPUT, "'%s': 'all' stands alone, not in a list", s);
		}
		if (!ops) {
			struct sbuf valid = SBUF_INIT;
			sbuf_init(&valid);
			for (const struct policy_ops *const *p = policy_table; *p; p++)
				sbuf_printf(&valid, "%s, ", (*p)->name);
			sbuf_adds(&valid, "or all alone");
			err_set(e, VF_EINPUT, "'%s' is not a policy (valid: %s)", name, valid.s);
			sbuf_release(&valid);
			free(name);
			free(v);
			return VF_EINPUT;
		}
		free(name);
		int dup = 0;
		for (size_t i = 0; i < len; i++)
			dup |= v[i] == ops;
		if (!dup) {
			xgrow(&v, &cap, len + 1, sizeof *v);
			v[len++] = ops;
		}
		if (!w[wl])
			break;
		w += wl + 1;
	}
	*out = v;
	*n = len;
	return 0;
}

int replay_parse_seeds(const char *s, uint64_t *lo, uint64_t *hi, struct err *e)
{
	const char *dash = strchr(s, '-');
	if (!dash) {
		if (parse_u64(s, lo))
			return err_set(e, VF_EINPUT, "'%s': not a seed (a whole number >= 0)", s);
		*hi = *lo;
		return 0;
	}
	char *a = xstrndup(s, (size_t)(dash - s));
	int bad = parse_u64(a, lo) || parse_u64(dash + 1, hi);
	free(a);
	if (bad)
		return err_set(e, VF_EINPUT, "'%s': not a seed range A-B (whole numbers >= 0)", s);
	if (*lo > *hi)
		return err_set(e, VF_EINPUT, "'%s': the range is empty (A > B)", s);
	if (*hi - *lo >= REPLAY_MAX_SEEDS)
		return err_set(e, VF_EINPUT, "'%s': more than %d seeds", s, REPLAY_MAX_SEEDS);
	return 0;
}

int replay_seed_opts(const char *seed, const char *seeds, uint64_t *lo, uint64_t *hi, struct err *e)
{
	if (seed && seeds)
		return err_set(e, VF_EINPUT, "give --seed or --seeds, not both");
	if (seed && (replay_parse_seeds(seed, lo, hi, e) || *lo != *hi))
		return err_set(e, VF_EINPUT, "--seed '%s': not a seed (a whole number >= 0)", seed);
	if (seeds && replay_parse_seeds(seeds, lo, hi, e))
		return err_prefix(e, "--seeds ");
	return 0;
}
