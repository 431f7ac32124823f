/*
 * runrec.c — a run's record in the store and reading runs back (runrec.h).
 */
#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gang.h"
#include "json.h"
#include "runrec.h"
#include "table.h"

/* ---- columns ---- */

struct colspec {
	struct table_col c;
	int modes; /* TIMED, INFLATE: the modes it applies to */
};

#define TIMED   1
#define INFLATE 2
#define BOTH    (TIMED | INFLATE)
static const struct colspec cols[RUNREC_NCOL] = {
	[RUNREC_FRAG] = {{"mean_fragmentation", "frag", "mean", 4, TABLE_LOWER, 0}, BOTH},
	[RUNREC_FRAG_MD] = {{"md_fragmentation", "md frag", "mean", 4, TABLE_LOWER, 0}, BOTH},
	[RUNREC_UNALLOC] = {{"unallocated_gpu_share", "unalloc", "GPU share", 4, TABLE_LOWER, 0},
			    INFLATE},
	[RUNREC_UNALLOC100] = {{"unallocated_gpu_share_at_100", "unalloc@100%", "GPU share", 4,
				TABLE_LOWER, 0},
			       INFLATE},
	[RUNREC_LOAD] = {{"arrived_load", "load", "arrived", 3, TABLE_NEUTRAL, 0}, INFLATE},
	[RUNREC_FAILED] = {{"failed_jobs", "failed", "jobs", 0, TABLE_LOWER, 0}, INFLATE},
	[RUNREC_PRODUCTIVE] = {{"productive_gpu_hours", "productive", "GPU-h", 1, TABLE_HIGHER, 0},
			       BOTH},
	[RUNREC_STALLED] = {{"stalled_gpu_hours", "stalled", "GPU-h", 1, TABLE_LOWER, 0}, TIMED},
	[RUNREC_LOST] = {{"lost_gpu_hours", "lost", "GPU-h", 1, TABLE_LOWER, 0}, TIMED},
	[RUNREC_FAILURES] = {{"failures_gpu_hours", "failures", "GPU-h", 1, TABLE_LOWER, 0}, TIMED},
	[RUNREC_DOWN] = {{"down_gpu_hours", "down", "GPU-h", 1, TABLE_NEUTRAL, 0}, TIMED},
	[RUNREC_CKPT] = {{"checkpoint_gpu_hours", "checkpoint", "GPU-h", 1, TABLE_LOWER, 0}, TIMED},
	[RUNREC_BLOCKED] = {{"idle_blocked_gpu_hours", "blocked", "GPU-h", 1, TABLE_LOWER, 0},
			    BOTH},
	[RUNREC_FULL] = {{"idle_full_gpu_hours", "full", "GPU-h", 1, TABLE_NEUTRAL, 0}, TIMED},
	[RUNREC_UNNEEDED] = {{"idle_unneeded_gpu_hours", "unneeded", "GPU-h", 1, TABLE_NEUTRAL, 0},
			     BOTH},
	[RUNREC_PROVISIONED] = {{"provisioned_gpu_hours", "provisioned", "GPU-h", 1, TABLE_NEUTRAL,
				 0},
				BOTH},
	[RUNREC_CARRY] = {{"carried_over_gpu_hours", "carried", "GPU-h", 1, TABLE_LOWER, 0}, TIMED},
	[RUNREC_CARRY_JOBS] = {{"carried_over_jobs", "carried", "jobs", 0, TABLE_LOWER, 0}, TIMED},
	[RUNREC_WAIT] = {{"wait_mean_s", "wait", "mean", 1, TABLE_LOWER, TABLE_C_SECONDS}, TIMED},
	[RUNREC_WAIT_P50] = {{"wait_p50_s", "wait", "p50", 0, TABLE_LOWER, TABLE_C_SECONDS}, TIMED},
	[RUNREC_WAIT_P95] = {{"wait_p95_s", "wait", "p95", 0, TABLE_LOWER, TABLE_C_SECONDS}, TIMED},
	[RUNREC_SLOWDOWN] = {{"slowdown_mean", "slowdown", "mean", 3, TABLE_LOWER, 0}, TIMED},
	[RUNREC_JCT] = {{"jct_mean_s", "jct", "mean", 1, TABLE_LOWER, TABLE_C_SECONDS}, TIMED},
	[RUNREC_UNPLACEABLE] = {{"unplaceable_jobs", "unplaceable", "jobs", 0, TABLE_LOWER, 0},
				BOTH},
	[RUNREC_PLACED] = {{"placed_jobs", "placed", "jobs", 0, TABLE_NEUTRAL, 0}, BOTH},
	[RUNREC_EVENTS] = {{"events", "events", "", 0, TABLE_NEUTRAL, 0}, BOTH},
	[RUNREC_ALLOC] = {{"alloc_mean", "alloc", "GPU share", 4, TABLE_HIGHER, 0}, BOTH},
	[RUNREC_WINDOW_H] = {{"window_hours", "window", "h", 1, TABLE_NEUTRAL, 0}, BOTH},
	[RUNREC_USD_PLACE] = {{"recoverable_by_placement_usd_per_year", "by placement", "$/yr", 0,
			       TABLE_LOWER, TABLE_C_DOLLARS},
			      BOTH},
	[RUNREC_USD_SIZE] = {{"recoverable_by_sizing_usd_per_year", "by sizing", "$/yr", 0,
			      TABLE_NEUTRAL, TABLE_C_DOLLARS},
			     BOTH},
	[RUNREC_USD_PROV] = {{"provisioned_usd_per_year", "provisioned", "$/yr", 0, TABLE_NEUTRAL,
			      TABLE_C_DOLLARS},
			     BOTH},
	[RUNREC_WHOLE_FREE] = {{"whole_free_nodes", "free nodes", "mean", 1, TABLE_NEUTRAL, 0},
			       TIMED},
	[RUNREC_WHOLE_WANT] = {{"gang_nodes_wanted", "gangs want", "nodes mean", 1, TABLE_LOWER, 0},
			       TIMED},
};

/* The run_metrics key of each class figure, before its "/CLASS". */
static const char *const cls_keys[RUNREC_CLS_N] = {
	[RUNREC_CLS_JOBS] = "jobs",
	[RUNREC_CLS_UNPLACEABLE] = "unplaceable_jobs",
	[RUNREC_CLS_WAIT_P50] = "wait_p50_s",
	[RUNREC_CLS_WAIT_P95] = "wait_p95_s",
	[RUNREC_CLS_SLOWDOWN] = "slowdown_mean",
};

static void cls_none(struct runrec *r)
{
	for (int c = 0; c < JOB_NCLASS; c++)
		for (int k = 0; k < RUNREC_CLS_N; k++)
			r->cls[c][k] = NAN;
}

const char *runrec_col_key(enum runrec_col c)
{
	assert(c < RUNREC_NCOL);
	return cols[c].c.key;
}

int runrec_col_find(const char *key)
{
	for (int c = 0; c < RUNREC_NCOL; c++)
		if (!strcmp(cols[c].c.key, key))
			return c;
	return -1;
}

const struct table_col *runrec_col(enum runrec_col c)
{
	assert(c < RUNREC_NCOL);
	return &cols[c].c;
}

int runrec_col_applies(enum runrec_col c, enum sim_mode mode)
{
	return (cols[c].modes & (mode == SIM_INFLATE ? INFLATE : TIMED)) != 0;
}

int runrec_col_omit(enum runrec_col c, const struct runrec *rows, size_t n)
{
	if (c != RUNREC_WHOLE_FREE && c != RUNREC_WHOLE_WANT)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isnan(rows[i].v[c]))
			return 0;
	return 1;
}

/* ---- from a run ---- */

void runrec_from_result(const struct replay_result *res, struct runrec *r)
{
	const struct metrics *m = &res->m;
	int infl = res->mode == SIM_INFLATE;
	double *v = r->v;
	memset(r, 0, sizeof *r);
	r->policy = res->policy;
	r->seed = res->seed;
	r->wall_s = res->wall_s;
	r->events = res->events;
	r->buckets = m->buckets;
	r->has_buckets = 1;
	r->w0 = m->w0;
	r->w1 = m->w1;
	v[RUNREC_FRAG] = m->frag_mean;
	v[RUNREC_FRAG_MD] = m->frag_md_mean;
	v[RUNREC_UNALLOC] = infl ? m->unalloc_share : NAN;
	v[RUNREC_UNALLOC100] = res->unalloc_at_100;
	v[RUNREC_LOAD] = infl ? m->load : NAN;
	v[RUNREC_FAILED] = infl ? (double)m->failed : NAN;
	v[RUNREC_PRODUCTIVE] = m->gpu_hours[SIM_B_PRODUCTIVE];
	v[RUNREC_STALLED] = infl ? NAN : m->gpu_hours[SIM_B_STALLED];
	v[RUNREC_LOST] = infl ? NAN : m->gpu_hours[SIM_B_LOST];
	v[RUNREC_FAILURES] = infl ? NAN : m->gpu_hours[SIM_B_FAILED];
	v[RUNREC_DOWN] = infl ? NAN : m->gpu_hours[SIM_B_DOWN];
	v[RUNREC_CKPT] = infl ? NAN : m->gpu_hours[SIM_B_CKPT];
	v[RUNREC_BLOCKED] = m->idle_blocked_gpu_hours - m->gpu_hours[SIM_B_FULL];
	v[RUNREC_FULL] = infl ? NAN : m->gpu_hours[SIM_B_FULL];
	v[RUNREC_UNNEEDED] = m->gpu_hours[SIM_B_UNNEEDED];
	v[RUNREC_PROVISIONED] = m->provisioned_gpu_hours;
	v[RUNREC_CARRY] = infl ? NAN : m->carry_gpu_hours;
	v[RUNREC_CARRY_JOBS] = infl ? NAN : (double)m->carry_jobs;
	v[RUNREC_WAIT] = infl ? NAN : m->all.wait_mean;
	v[RUNREC_WAIT_P50] = infl ? NAN : m->all.wait_p50;
	v[RUNREC_WAIT_P95] = infl ? NAN : m->all.wait_p95;
	v[RUNREC_SLOWDOWN] = infl ? NAN : m->all.slowdown_mean;
	v[RUNREC_JCT] = infl ? NAN : m->all.jct_mean;
	v[RUNREC_UNPLACEABLE] = (double)m->all.unplaceable;
	v[RUNREC_PLACED] = (double)res->placed;
	v[RUNREC_EVENTS] = (double)res->events;
	v[RUNREC_ALLOC] = m->alloc_mean;
	v[RUNREC_WINDOW_H] = m->window_hours;
	v[RUNREC_USD_PLACE] = m->usd_year_placement;
	v[RUNREC_USD_SIZE] = m->usd_year_sizing;
	v[RUNREC_USD_PROV] = m->usd_year_provisioned;
	v[RUNREC_WHOLE_FREE] = infl || !m->gang_jobs ? NAN : m->whole_free_mean;
	v[RUNREC_WHOLE_WANT] = infl || !m->gang_jobs ? NAN : m->whole_want_mean;
	cls_none(r);
	for (int c = 0; c < JOB_NCLASS && !infl; c++) {
		const struct metrics_jobs *mj = &m->cls[c];
		if (!mj->jobs)
			continue;
		r->cls[c][RUNREC_CLS_JOBS] = (double)mj->jobs;
		r->cls[c][RUNREC_CLS_UNPLACEABLE] = (double)mj->unplaceable;
		r->cls[c][RUNREC_CLS_WAIT_P50] = mj->wait_p50;
		r->cls[c][RUNREC_CLS_WAIT_P95] = mj->wait_p95;
		r->cls[c][RUNREC_CLS_SLOWDOWN] = mj->slowdown_mean;
	}
}

double runrec_jobs(const struct runrec *r)
{
	double n = 0;
	int any = 0;
	for (int c = 0; c < JOB_NCLASS; c++)
		if (!isnan(r->cls[c][RUNREC_CLS_JOBS])) {
			n += r->cls[c][RUNREC_CLS_JOBS];
			any = 1;
		}
	return any ? n : NAN;
}

void runrec_price(struct runrec *r, const struct metrics_opts *o, uint32_t *assumed)
{
	struct metrics_cost c;
	if (!r->has_buckets)
		return;
	metrics_cost(&r->buckets, o, -1, -1, r->v[RUNREC_WINDOW_H], &c);
	r->v[RUNREC_USD_PLACE] = c.usd_year_placement;
	r->v[RUNREC_USD_SIZE] = c.usd_year_sizing;
	r->v[RUNREC_USD_PROV] = c.usd_year_provisioned;
	if (assumed)
		*assumed |= c.assumed_models;
}

/* ---- storing ---- */

static void dims_text(uint32_t mask, struct sbuf *out)
{
	const char *sep = "";
	for (int d = 0; d < DIM_N; d++)
		if (mask & DIM_BIT(d)) {
			sbuf_printf(out, "%s%s", sep, job_dim_name((enum dim)d));
			sep = ",";
		}
}

/* Every parameter of the run as one JSON object: the provenance a person reads; code reads
 * the columns. */
static void write_params(const struct scenario *sc, const struct replay_trace *t,
			 const struct replay_result *r, struct sbuf *out)
{
	struct json j;
	struct sbuf b = SBUF_INIT;
	char buf[64];
	sbuf_init(&b);
	json_init(&j, out, 0);
	json_obj(&j);
	json_key_str(&j, "voidfit_version", VOIDFIT_VERSION);
	json_key_str(&j, "trace", sc->trace_name.s);
	json_key_str(&j, "policy", r->policy->name);
	json_key(&j, "seed");
	snprintf(buf, sizeof buf, "%" PRIu64, t->seed);
	json_str(&j, buf);
	json_key(&j, "scenario");
	scenario_key(sc, &b);
	json_str(&j, b.s);
	json_end(&j);
	sbuf_release(&b);
}

/* The scenario row of sc on t priced over [w0, w1), a what-if of parent_run at fork_time
 * when change is not NULL (a scenario of its own), into *id. */
static int scenario_put(struct store *st, const struct scenario *sc, const struct replay_trace *t,
			int64_t w0, int64_t w1, int64_t parent_run, int64_t fork_time,
			const char *change, int64_t *id, struct err *e)
{
	struct sbuf key = SBUF_INIT, faults = SBUF_INIT, dims = SBUF_INIT, enr = SBUF_INIT;
	char buf[256];
	int64_t gpus = 0;

	sbuf_init(&key);
	sbuf_init(&faults);
	sbuf_init(&dims);
	sbuf_init(&enr);
	scenario_key(sc, &key);
	if (change) /* a what-if is a scenario of its own */
		sbuf_printf(&key, " fork=%" PRId64 "@%" PRId64 " change=%s", parent_run, fork_time,
			    change);
	for (size_t i = 0; i < sc->nfaults; i++) {
		fault_format(&sc->faults[i], buf, sizeof buf);
		sbuf_printf(&faults, "%s%s", i ? "," : "", buf);
	}
	dims_text(sc->dims, &dims);
	enrich_describe(&t->enr, &enr);
	for (size_t n = 0; n < t->js.nnodes; n++)
		gpus += t->js.nodes[n].ngpu;
	struct store_scenario row = {
		.trace_id = sc->trace_id,
		.key = key.s,
		.mode = sim_mode_name(sc->mode),
		.target = sc->mode == SIM_INFLATE ? sc->target : NAN,
		.queue = sc->mode == SIM_TIMED ? sim_queue_name(sc->queue) : NULL,
		.preempt = sc->preempt,
		.dims = dims.s,
		.sample_nodes = sc->sample_nodes,
		.faults = faults.s,
		.profile_name = enrich_name(sc->profile),
		.profile_version = enrich_version(sc->profile),
		.profile_path = sc->profile_path,
		.profile_text = enrich_text(sc->profile),
		.io_pressure = sc->io_pressure,
		.cluster_path = sc->cluster_path,
		.cluster_text = sc->cluster_path ? sc->cluster_text.s : NULL,
		.nodes = (int64_t)t->js.nnodes,
		.gpus = gpus,
		.jobs = (int64_t)t->js.njobs,
		.window_start = sc->mode == SIM_TIMED ? w0 : -1,
		.window_end = sc->mode == SIM_TIMED ? w1 : -1,
		.enriched = enr.s,
		.parent_run = parent_run,
		.fork_time = fork_time,
		.change = change,
		.resample = sc->resample,
		.block_s = sc->resample ? sc->block_s : -1,
	};
	for (int i = 0; i < SCENARIO_NPARAM; i++) {
		const struct scenario_param *p = &scenario_params[i];
		if (p->type != SCENARIO_FN && p->column && row.nparam < STORE_SCEN_NPARAM)
			row.param[row.nparam++] =
				(struct store_param){p->column, scenario_real(sc, p)};
	}
	int rc = store_scenario_put(st, &row, id, e);
	sbuf_release(&key);
	sbuf_release(&faults);
	sbuf_release(&dims);
	sbuf_release(&enr);
	return rc;
}

int runrec_scenario_put(struct store *st, const struct scenario *sc, const struct replay_trace *t,
			int64_t w0, int64_t w1, int64_t *id, struct err *e)
{
	return scenario_put(st, sc, t, w0, w1, -1, -1, NULL, id, e);
}

int runrec_store(struct store *st, const struct scenario *sc, const struct replay_trace *t,
		 const struct replay_result *r, int64_t *run_id, struct err *e)
{
	return runrec_store_fork(st, sc, t, r, -1, -1, NULL, run_id, e);
}

int runrec_store_fork(struct store *st, const struct scenario *sc, const struct replay_trace *t,
		      const struct replay_result *r, int64_t parent_run, int64_t fork_time,
		      const char *change, int64_t *run_id, struct err *e)
{
	struct sbuf rdims = SBUF_INIT, params = SBUF_INIT;
	struct store_metric m[RUNREC_NCOL + 9 * JOB_NCLASS];
	char ckeys[9 * JOB_NCLASS][48];
	struct store_bucket *b = NULL;
	struct store_point *p = NULL;
	struct runrec rec;
	size_t nm = 0, nb = 0;
	int rc;

	sbuf_init(&rdims);
	sbuf_init(&params);
	dims_text(r->dims, &rdims);
	write_params(sc, t, r, &params);
	runrec_from_result(r, &rec);
	for (int c = 0; c < RUNREC_NCOL; c++)
		if (!isnan(rec.v[c]))
			m[nm++] = (struct store_metric){cols[c].c.key, rec.v[c]};
	/* the job statistics of each class, as KEY/CLASS */
	for (int c = 0, k = 0; c < JOB_NCLASS && r->mode == SIM_TIMED; c++) {
		const struct metrics_jobs *mj = &r->m.cls[c];
		const char *names[9] = {"jobs",         "unplaceable_jobs", "wait_mean_s",
					"wait_p95_s",   "jct_mean_s",       "slowdown_mean",
					"slowdown_p95", "finished_jobs",    "wait_p50_s"};
		double vals[9] = {(double)mj->jobs, (double)mj->unplaceable,
				  mj->wait_mean,    mj->wait_p95,
				  mj->jct_mean,     mj->slowdown_mean,
				  mj->slowdown_p95, (double)mj->finished,
				  mj->wait_p50};
		if (!mj->jobs)
			continue;
		for (int i = 0; i < 9; i++, k++) {
			snprintf(ckeys[k], sizeof ckeys[k], "%s/%s", names[i],
				 job_class_name((enum job_class)c));
			m[nm++] = (struct store_metric){ckeys[k], vals[i]};
		}
	}
	b = xcalloc((size_t)GPUMODEL_MAX * (JOB_NCLASS + 1) * SIM_NBUCKET, sizeof *b);
	for (int g = 0; g < GPUMODEL_MAX; g++)
		for (int c = 0; c <= JOB_NCLASS; c++)
			for (int k = 0; k < SIM_NBUCKET; k++)
				if (r->m.buckets.ms[g][c][k])
					b[nb++] = (struct store_bucket){
						gpumodel_get(g)->name,
						c == SIM_CLS_NONE
							? "none"
							: job_class_name((enum job_class)c),
						sim_bucket_name((enum sim_bucket)k),
						r->m.buckets.ms[g][c][k]};
	p = xcalloc(r->series.n ? r->series.n : 1, sizeof *p);
	for (size_t i = 0; i < r->series.n; i++) {
		const struct sim_sample *q = &r->series.pts[i];
		p[i] = (struct store_point){q->t,        q->load,        q->alloc_share, q->frag,
					    q->frag_md,  q->stall_share, q->queued,      q->running,
					    q->finished, q->failed};
	}
	struct sbuf series = SBUF_INIT;
	sbuf_init(&series);
	if (r->series.n)
		store_series_text(p, r->series.n, &series);
	struct store_run run = {
		.series = series.s,
		.series_len = series.len,
		.trace_id = sc->trace_id,
		.policy = r->policy->name,
		.mode = sim_mode_name(r->mode),
		.seed = r->seed,
		.params_json = params.s,
		.summary_json = "{}",
		.jobs = r->jobs.s,
		.jobs_len = r->jobs.len,
		.dims = rdims.s,
		.voidfit_version = VOIDFIT_VERSION,
	};
	if (!(rc = store_begin(st, e))) {
		if ((rc = scenario_put(st, sc, t, r->m.w0, r->m.w1, parent_run, fork_time, change,
				       &run.scenario_id, e)) ||
		    (rc = store_run_add(st, &run, m, nm, e)) ||
		    (rc = store_run_buckets_add(st, run.id, b, nb, e)))
			store_rollback(st);
		else
			rc = store_commit(st, e);
	}
	if (!rc && run_id)
		*run_id = run.id;
	free(b);
	free(p);
	sbuf_release(&series);
	sbuf_release(&rdims);
	sbuf_release(&params);
	return rc;
}

/* The value of s's parameter column, NaN if s has none. */
static double param_of(const struct store_scenario *s, const char *column)
{
	for (size_t i = 0; i < s->nparam; i++)
		if (!strcmp(s->param[i].column, column))
			return s->param[i].value;
	return NAN;
}

/* The option of a parameter column (its own name if no row fills it). */
static const char *param_name(const char *column)
{
	for (int i = 0; i < SCENARIO_NPARAM; i++)
		if (scenario_params[i].column && !strcmp(scenario_params[i].column, column))
			return scenario_params[i].name;
	return column;
}

void runrec_describe(const struct store_scenario *s, const struct store_scenario *ref,
		     struct sbuf *out)
{
	size_t start = out->len;
#define DIFF_S(f) (ref ? strcmp(s->f ? s->f : "", ref->f ? ref->f : "") != 0 : s->f && *s->f)
#define SEP       (out->len > start ? ", " : "")
	if (!ref) {
		sbuf_adds(out, s->mode);
		if (!strcmp(s->mode, "inflate"))
			sbuf_printf(out, " to %g", s->target);
		else if (s->queue)
			sbuf_printf(out, " %s%s", s->queue, s->preempt ? " with preemption" : "");
	} else {
		if (DIFF_S(queue) || s->preempt != ref->preempt)
			sbuf_printf(out, "%squeue %s%s", SEP, s->queue ? s->queue : "-",
				    s->preempt ? " with preemption" : "");
		if (!strcmp(s->mode, "inflate") && s->target != ref->target)
			sbuf_printf(out, "%starget %g", SEP, s->target);
	}
	if (DIFF_S(faults))
		sbuf_printf(out, "%sfaults %s", SEP, *s->faults ? s->faults : "none");
	double io = isnan(s->io_pressure) ? 1 : s->io_pressure;
	double rio = ref && !isnan(ref->io_pressure) ? ref->io_pressure : 1;
	if (io != rio)
		sbuf_printf(out, "%sio-pressure %g", SEP, io);
	if (DIFF_S(cluster_path))
		sbuf_printf(out, "%scluster %s", SEP,
			    s->cluster_path ? s->cluster_path : "of the trace");
	if (DIFF_S(dims))
		sbuf_printf(out, "%sdims %s", SEP, *s->dims ? s->dims : "each policy's own");
	if (ref ? s->sample_nodes != ref->sample_nodes : s->sample_nodes > 0)
		sbuf_printf(out, "%ssample-nodes %" PRId64, SEP, s->sample_nodes);
	if (DIFF_S(profile_path))
		sbuf_printf(out, "%sprofile %s", SEP,
			    s->profile_path ? s->profile_path : "built-in");
	for (size_t i = 0; ref && i < s->nparam; i++)
		if (param_of(ref, s->param[i].column) != s->param[i].value)
			sbuf_printf(out, "%s%s %g", SEP, param_name(s->param[i].column),
				    s->param[i].value);
	if (ref && (s->window_start != ref->window_start || s->window_end != ref->window_end))
		sbuf_printf(out, "%swindow %" PRId64 "..%" PRId64 " s", SEP, s->window_start,
			    s->window_end);
	if (!ref && s->key && scenario_key_value(s->key, "window", NULL))
		sbuf_printf(out, "%swindow %" PRId64 "..%" PRId64 " s", SEP, s->window_start,
			    s->window_end);
	if (s->resample > 0 && (!ref || s->resample != ref->resample))
		sbuf_printf(out, "%sresample %" PRId64 " (blocks of %" PRId64 " s)", SEP,
			    s->resample, s->block_s);
	if (!ref && s->change)
		sbuf_printf(out, "%swhat-if %s", SEP, s->change);
	if (!ref && s->key && !strncmp(s->key, "legacy:", 7))
		sbuf_printf(out, "%smade before scenarios were recorded", SEP);
	if (ref && out->len == start)
		sbuf_adds(out, "another profile version or parameters");
#undef DIFF_S
#undef SEP
}

/* ---- reading back ---- */

struct find_ctx {
	const char *key;
	int64_t *id;
};

static int find_cb(void *ctx, const struct store_scenario *sc)
{
	struct find_ctx *f = ctx;
	if (!strcmp(sc->key, f->key))
		*f->id = sc->id;
	return 0;
}

int runrec_find_scenario(struct store *st, int64_t trace_id, const char *key, int64_t *id,
			 struct err *e)
{
	struct find_ctx f = {key, id};
	*id = 0;
	return store_scenario_list(st, trace_id, find_cb, &f, e);
}

static int policy_index(const char *name)
{
	for (int i = 0; policy_table[i]; i++)
		if (!strcmp(policy_table[i]->name, name))
			return i;
	return -1;
}

/* A scenario of the listing. */
struct scen {
	int64_t id, trace_id;
	int inflate;
	int64_t sample_nodes;
	int legacy;
	int resample; /* one resample of the trace: chosen only by --scenario or --runs */
	double target;
	int fork; /* a what-if saved from the dashboard */
};

struct scen_list {
	struct scen *v;
	size_t n, cap;
};

static int scen_cb(void *ctx, const struct store_scenario *sc)
{
	struct scen_list *l = ctx;
	xgrow(&l->v, &l->cap, l->n + 1, sizeof *l->v);
	l->v[l->n++] = (struct scen){sc->id,
				     sc->trace_id,
				     !strcmp(sc->mode, "inflate"),
				     sc->sample_nodes,
				     !strncmp(sc->key, "legacy:", 7),
				     sc->resample > 0,
				     sc->target,
				     sc->change != NULL || sc->parent_run > 0};
	return 0;
}

/* The runs of one scenario, as listed. */
struct lrun {
	int64_t id;
	int pol;
	uint64_t seed;
};

struct run_list {
	struct lrun *v;
	size_t n, cap;
	const struct runrec_query *q;
};

static int wanted(const struct runrec_query *q, int pol, uint64_t seed)
{
	int ok = !q->pols;
	for (size_t k = 0; k < q->npol && !ok; k++)
		ok = q->pols[k] == policy_table[pol];
	return ok && (!q->seeds_given || (seed >= q->lo && seed <= q->hi));
}

static int run_cb(void *ctx, const struct store_run *r)
{
	struct run_list *l = ctx;
	int pol = policy_index(r->policy);
	if (pol < 0 || !wanted(l->q, pol, r->seed)) /* a policy this build does not know */
		return 0;
	xgrow(&l->v, &l->cap, l->n + 1, sizeof *l->v);
	l->v[l->n++] = (struct lrun){r->id, pol, r->seed};
	return 0;
}

static int by_policy_seed(const void *a, const void *b)
{
	const struct lrun *x = a, *y = b;
	if (x->pol != y->pol)
		return x->pol < y->pol ? -1 : 1;
	if (x->seed != y->seed)
		return x->seed < y->seed ? -1 : 1;
	return x->id > y->id ? -1 : x->id < y->id; /* newest first */
}

/* Keep the newest run per (policy, seed), sorted by policy then seed; is every policy's
 * set of seeds the same? */
static int dedup(struct run_list *l)
{
	size_t w = 0;
	if (l->n)
		qsort(l->v, l->n, sizeof *l->v, by_policy_seed);
	for (size_t i = 0; i < l->n; i++)
		if (!w || l->v[w - 1].pol != l->v[i].pol || l->v[w - 1].seed != l->v[i].seed)
			l->v[w++] = l->v[i];
	l->n = w;
	/* complete: the first policy's seeds are every policy's */
	size_t first = 0;
	while (first < l->n && l->v[first].pol == l->v[0].pol)
		first++;
	for (size_t g = 0, g2; g < l->n; g = g2) {
		for (g2 = g; g2 < l->n && l->v[g2].pol == l->v[g].pol; g2++)
			;
		if (g2 - g != first)
			return 0;
		for (size_t k = 0; k < first; k++)
			if (l->v[g + k].seed != l->v[k].seed)
				return 0;
	}
	return 1;
}

static int list_runs(struct store *st, int64_t scenario_id, const struct runrec_query *q,
		     struct run_list *l, struct err *e)
{
	l->n = 0;
	l->q = q;
	return store_run_list_scenario(st, scenario_id, run_cb, l, e);
}

static int metric_cb(void *ctx, const struct store_metric *m)
{
	struct runrec *r = ctx;
	int c = runrec_col_find(m->key);
	if (c >= 0) {
		r->v[c] = m->value;
		return 0;
	}
	const char *slash = strchr(m->key, '/');
	for (int k = 0; slash && k < RUNREC_CLS_N; k++) {
		size_t n = strlen(cls_keys[k]);
		if ((size_t)(slash - m->key) != n || strncmp(m->key, cls_keys[k], n))
			continue;
		for (int j = 0; j < JOB_NCLASS; j++)
			if (!strcmp(slash + 1, job_class_name((enum job_class)j)))
				r->cls[j][k] = m->value;
	}
	return 0;
}

static int bucket_cb(void *ctx, const struct store_bucket *b)
{
	struct runrec *r = ctx;
	int g = gpumodel_find(b->model), c = -1, k = -1;
	if (!strcmp(b->cls, "none"))
		c = SIM_CLS_NONE;
	for (int i = 0; i < JOB_NCLASS && c < 0; i++)
		if (!strcmp(b->cls, job_class_name((enum job_class)i)))
			c = i;
	for (int i = 0; i < SIM_NBUCKET && k < 0; i++)
		if (!strcmp(b->bucket, sim_bucket_name((enum sim_bucket)i)))
			k = i;
	if (g < 0 || c < 0 || k < 0)
		return 0; /* a model, class or bucket this build does not know */
	r->buckets.ms[g][c][k] += b->gpu_ms;
	r->has_buckets = 1;
	return 0;
}

/* ---- a full cluster's runs, for a search to take (runrec_find_full) ---- */

struct full_scen {
	const char *key;
	int64_t id, w0, w1;
};

static int full_scen_cb(void *ctx, const struct store_scenario *sc)
{
	struct full_scen *f = ctx;
	if (!strcmp(sc->key, f->key)) {
		f->id = sc->id;
		f->w0 = sc->window_start;
		f->w1 = sc->window_end;
	}
	return 0;
}

struct full_runs {
	const char *policy;
	uint64_t lo, hi;
	int64_t *ids; /* per seed, the newest run of this version, 0: none */
};

static int full_runs_cb(void *ctx, const struct store_run *r)
{
	struct full_runs *f = ctx;
	if (!strcmp(r->policy, f->policy) && r->seed >= f->lo && r->seed <= f->hi &&
	    r->voidfit_version && !strcmp(r->voidfit_version, VOIDFIT_VERSION) &&
	    r->id > f->ids[r->seed - f->lo])
		f->ids[r->seed - f->lo] = r->id;
	return 0;
}

/* Does run r of sc hold every figure a run of sc has, and only those? */
static int full_figures(const struct runrec *r, const struct scenario *sc, int gangs)
{
	for (int c = 0; c < RUNREC_NCOL; c++) {
		int want = runrec_col_applies((enum runrec_col)c, sc->mode);
		if (c == RUNREC_WHOLE_FREE || c == RUNREC_WHOLE_WANT)
			want = want && gangs;
		else if (c == RUNREC_UNALLOC100) /* a curve that reaches 100 % (replay.c) */
			want = want && sc->target >= 1;
		if (want == isnan(r->v[c]))
			return 0;
	}
	return r->has_buckets;
}

int runrec_find_full(struct store *st, const struct scenario *sc, const struct policy_ops *pol,
		     uint64_t lo, uint64_t hi, int64_t *ids, double *fig, int64_t *w0, int64_t *w1,
		     int *found, struct err *e)
{
	size_t nseed = (size_t)(hi - lo) + 1;
	struct sbuf key = SBUF_INIT;
	struct full_scen fs = {.id = 0};
	struct full_runs fr = {pol->name, lo, hi, ids};
	struct runrec *r = xmalloc(sizeof *r);
	struct gang_count gc;
	int rc;

	*found = 0;
	sbuf_init(&key);
	scenario_key(sc, &key);
	fs.key = key.s;
	memset(ids, 0, nseed * sizeof *ids);
	gang_count(&sc->base, &gc);
	if ((rc = store_scenario_list(st, sc->trace_id, full_scen_cb, &fs, e)) || !fs.id ||
	    (rc = store_run_list_scenario(st, fs.id, full_runs_cb, &fr, e)))
		goto out;
	*found = 1;
	for (size_t k = 0; k < nseed && *found && !rc; k++) {
		memset(r, 0, sizeof *r);
		for (int c = 0; c < RUNREC_NCOL; c++)
			r->v[c] = NAN;
		if (!ids[k] || (rc = store_run_metrics(st, ids[k], metric_cb, r, e)) ||
		    (rc = store_run_buckets(st, ids[k], bucket_cb, r, e)) ||
		    !full_figures(r, sc, gc.jobs > 0)) {
			*found = 0;
			break;
		}
		runrec_price(r, &sc->prices, NULL); /* prices are not in the key */
		memcpy(fig + k * RUNREC_NCOL, r->v, sizeof r->v);
	}
	*found = *found && !rc;
	*w0 = sc->mode == SIM_TIMED ? fs.w0 : -1;
	*w1 = sc->mode == SIM_TIMED ? fs.w1 : -1;
out:
	free(r);
	sbuf_release(&key);
	return rc;
}

struct one_scen {
	int64_t id;
	struct runrec_sel *out;
};

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static int one_scen_cb(void *ctx, const struct store_scenario *sc)
{
	struct one_scen *o = ctx;
	if (sc->id != o->id)
		return 0;
	struct runrec_sel *out = o->out;
	const char **f[] = {&out->sc.key,          &out->sc.mode,         &out->sc.queue,
			    &out->sc.dims,         &out->sc.faults,       &out->sc.profile_name,
			    &out->sc.profile_path, &out->sc.cluster_path, &out->sc.enriched,
			    &out->sc.change};
	out->sc = *sc;
	out->sc.profile_text = out->sc.cluster_text = NULL;
	for (size_t i = 0; i < sizeof f / sizeof *f; i++)
		*f[i] = out->strs[i] = dup_or_null(*f[i]);
	return 0;
}

static int name_cb(void *ctx, const struct store_trace_info *t)
{
	struct runrec_sel *out = ctx;
	if (t->id == out->trace_id)
		sbuf_adds(&out->trace_name, t->name);
	return 0;
}

int runrec_select(struct store *st, const char *path, const struct runrec_query *q,
		  struct runrec_sel *out, struct err *e)
{
	struct scen_list sl = {0};
	struct run_list rl = {0};
	int64_t trace_id = -1, chosen = 0;
	int rc;

	memset(out, 0, sizeof *out);
	sbuf_init(&out->trace_name);
	if (!q->scenario_id && !q->run_ids && (rc = store_trace_find(st, q->trace, &trace_id, e)))
		return rc;
	if ((rc = store_scenario_list(st, trace_id, scen_cb, &sl, e)))
		goto out;
	if (q->run_ids) {
		/* every run named, all of one scenario */
		for (size_t i = 0; i < sl.n && !rc; i++) {
			struct run_list all = {0};
			struct runrec_query any = {.mode = -1};
			if ((rc = list_runs(st, sl.v[i].id, &any, &all, e)))
				break;
			for (size_t k = 0; k < all.n; k++)
				for (size_t r = 0; r < q->nrun_ids; r++)
					if (all.v[k].id == q->run_ids[r]) {
						if (chosen && chosen != sl.v[i].id)
							rc = err_set(e, VF_EINPUT,
								     "runs %" PRId64 " and %" PRId64
								     " are of different scenarios: "
								     "name runs of one",
								     q->run_ids[0], q->run_ids[r]);
						chosen = sl.v[i].id;
					}
			free(all.v);
		}
		if (!rc && !chosen)
			rc = err_set(e, VF_EINPUT, "%s: no run %" PRId64, path, q->run_ids[0]);
	} else if (q->scenario_id) {
		for (size_t i = 0; i < sl.n; i++)
			if (sl.v[i].id == q->scenario_id)
				chosen = q->scenario_id;
		if (!chosen)
			rc = err_set(e, VF_EINPUT,
				     "%s: no scenario %" PRId64 " (voidfit runs lists them)", path,
				     q->scenario_id);
	} else {
		/* the newest complete scenario that matches, else the newest that matches */
		int64_t best_any = 0, best_complete = 0, newest_any = 0, newest_complete = 0;
		for (size_t i = 0; i < sl.n && !rc; i++) {
			const struct scen *s = &sl.v[i];
			if (s->resample ||
			    (q->mode >= 0 && s->inflate != (q->mode == SIM_INFLATE)) ||
			    (q->sample_given && s->sample_nodes != (int64_t)q->sample_nodes) ||
			    (q->target_given &&
			     (!s->inflate || fabs(s->target - q->target) > RUNREC_TARGET_EPS)))
				continue;
			if ((rc = list_runs(st, s->id, q, &rl, e)) || !rl.n)
				continue;
			if (s->fork) {
				/* a dashboard's what-if is its parent's variant, never the scenario
				 * a report describes unless named */
				out->nforks++;
				continue;
			}
			out->nscenarios++;
			int64_t newest = 0;
			for (size_t k = 0; k < rl.n; k++)
				newest = rl.v[k].id > newest ? rl.v[k].id : newest;
			int complete = dedup(&rl) && !s->legacy;
			if (newest > newest_any)
				newest_any = newest, best_any = s->id;
			if (complete && newest > newest_complete)
				newest_complete = newest, best_complete = s->id;
		}
		chosen = best_complete ? best_complete : best_any;
		out->newest = 1;
		out->complete = best_complete != 0;
	}
	if (rc || !chosen)
		goto out;

	/* the chosen scenario's runs */
	struct one_scen os = {chosen, out};
	if ((rc = store_scenario_list(st, -1, one_scen_cb, &os, e)))
		goto out;
	out->scenario_id = chosen;
	out->trace_id = out->sc.trace_id;
	out->legacy = out->sc.key && !strncmp(out->sc.key, "legacy:", 7);
	if ((rc = store_trace_list(st, name_cb, out, e)))
		goto out;
	struct runrec_query rq = *q;
	if (q->run_ids) { /* only the runs named */
		rq.pols = NULL;
		rq.seeds_given = 0;
	}
	if ((rc = list_runs(st, chosen, &rq, &rl, e)))
		goto out;
	if (q->run_ids) {
		size_t w = 0;
		for (size_t k = 0; k < rl.n; k++)
			for (size_t r = 0; r < q->nrun_ids; r++)
				if (rl.v[k].id == q->run_ids[r]) {
					rl.v[w++] = rl.v[k];
					break;
				}
		rl.n = w;
	}
	out->partial = !dedup(&rl);
	out->runs = xcalloc(rl.n ? rl.n : 1, sizeof *out->runs);
	for (size_t k = 0; k < rl.n && !rc; k++) {
		struct runrec *r = &out->runs[out->n++];
		for (int c = 0; c < RUNREC_NCOL; c++)
			r->v[c] = NAN;
		cls_none(r);
		r->id = rl.v[k].id;
		r->scenario_id = chosen;
		r->policy = policy_table[rl.v[k].pol];
		r->seed = rl.v[k].seed;
		r->resample = (uint32_t)out->sc.resample;
		r->w0 = out->sc.window_start;
		r->w1 = out->sc.window_end;
		if (!(rc = store_run_metrics(st, r->id, metric_cb, r, e)))
			rc = store_run_buckets(st, r->id, bucket_cb, r, e);
	}
out:
	free(sl.v);
	free(rl.v);
	return rc;
}

void runrec_why(const struct runrec_sel *sel, const struct runrec_query *q, struct sbuf *out)
{
	if (q->run_ids) {
		sbuf_adds(out, "the scenario of the runs named by --runs");
		return;
	}
	if (q->scenario_id) {
		sbuf_adds(out, "named by --scenario");
		return;
	}
	const char *of = "";
	if (q->mode >= 0 || q->target_given || q->sample_given || q->seeds_given || q->pols)
		of = " matching the options";
	if (sel->nscenarios == 1)
		sbuf_printf(out, "the only scenario of the trace%s", of);
	else if (sel->complete)
		sbuf_printf(out,
			    "the newest of %zu scenarios of the trace%s whose policies all have "
			    "the same seeds",
			    sel->nscenarios, of);
	else
		sbuf_printf(out,
			    "the newest of %zu scenarios of the trace%s; none has the same seeds "
			    "for every policy",
			    sel->nscenarios, of);
	if (sel->nscenarios > 1)
		sbuf_adds(out, " (--scenario ID chooses another; 'voidfit runs' lists them)");
	if (sel->nforks)
		sbuf_printf(out,
			    "; %zu what-if%s saved from the dashboard left out (--scenario ID "
			    "shows one)",
			    sel->nforks, sel->nforks == 1 ? "" : "s");
}

void runrec_sel_release(struct runrec_sel *sel)
{
	if (!sel)
		return;
	for (size_t i = 0; i < sizeof sel->strs / sizeof *sel->strs; i++)
		free(sel->strs[i]);
	free(sel->runs);
	sbuf_release(&sel->trace_name);
	memset(sel, 0, sizeof *sel);
}

int runrec_parse_ids(const char *s, int64_t **ids, size_t *n, struct err *e)
{
	size_t cap = 0;
	const char *w = s;
	*ids = NULL;
	*n = 0;
	for (;;) {
		size_t len = strcspn(w, ",");
		char *word = xstrndup(w, len), *dash = strchr(word, '-');
		int64_t a, b;
		int bad;
		if (dash) {
			*dash = '\0';
			bad = parse_i64(word, &a) || parse_i64(dash + 1, &b);
		} else {
			bad = parse_i64(word, &a);
			b = a;
		}
		free(word);
		if (bad || a < 1 || b < a || b - a >= 100000 || *n + (size_t)(b - a) >= 100000) {
			free(*ids);
			*ids = NULL;
			*n = 0;
			return err_set(e, VF_EINPUT,
				       "'%s': not run ids (whole numbers > 0: '3,5-9')", s);
		}
		for (int64_t i = a; i <= b; i++) {
			xgrow(ids, &cap, *n + 1, sizeof **ids);
			(*ids)[(*n)++] = i;
		}
		if (!w[len])
			return 0;
		w += len + 1;
	}
}
