/*
 * replay.c — one replay run from trace to record: prepare the job set for a seed (copy,
 * enrich, target workload), run the sim, compute the metrics, write the run's parameters,
 * summary, series and per-job results, store it, and lay out the summary table.
 *
 * Every text produced here is deterministic: the same trace, spec, policy and seed give the
 * same bytes (the wall time is kept in the result but never written).
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clusterspec.h"
#include "json.h"
#include "replay.h"
#include "words.h"

#define PROGRESS_EVERY 64 /* sim steps between progress calls */

/* ---- preparing a trace ---- */

/* Enrich t->js for seed and build its target workload. */
static void prepare(struct replay_trace *t, const struct replay_spec *sp, uint64_t seed)
{
	t->seed = seed;
	enrich_apply(sp->profile, seed, sp->io_pressure, &t->js);
	enrich_summarize(&t->js, &t->enr);
	frag_workload_build(&t->wl, t->js.jobs, t->js.njobs, sp->coverage);
}

void replay_prepare(struct replay_trace *t, const struct job_set *base,
		    const struct replay_spec *sp, uint64_t seed)
{
	memset(t, 0, sizeof *t);
	job_set_reserve(&t->js, base->njobs);
	for (size_t i = 0; i < base->njobs; i++)
		job_set_add_job(&t->js, &base->jobs[i]);
	for (size_t i = 0; i < base->nnodes; i++)
		job_set_add_node(&t->js, &base->nodes[i]);
	prepare(t, sp, seed);
}

void replay_prepare_take(struct replay_trace *t, struct job_set *base, const struct replay_spec *sp,
			 uint64_t seed)
{
	memset(t, 0, sizeof *t);
	t->js = *base;
	memset(base, 0, sizeof *base);
	prepare(t, sp, seed);
}

void replay_trace_release(struct replay_trace *t)
{
	if (!t)
		return;
	frag_workload_release(&t->wl);
	job_set_release(&t->js);
}

/* ---- the run's record ---- */

static void dims_text(uint32_t mask, struct sbuf *out)
{
	int first = 1;
	for (int d = 0; d < DIM_N; d++) {
		if (!(mask & DIM_BIT(d)))
			continue;
		if (!first)
			sbuf_addc(out, ',');
		sbuf_adds(out, job_dim_name((enum dim)d));
		first = 0;
	}
}

static void write_params(const struct replay_trace *t, const struct replay_spec *sp,
			 const struct policy_ops *ops, struct sbuf *out)
{
	struct json j;
	struct sbuf dims = SBUF_INIT;
	char buf[256];

	sbuf_init(&dims);
	dims_text(sp->dims ? sp->dims : ops->dims, &dims);
	json_init(&j, out, 0);
	json_obj(&j);
	json_key(&j, "voidfit_version");
	json_str(&j, VOIDFIT_VERSION);
	json_key(&j, "trace");
	json_str(&j, sp->trace_name);
	json_key(&j, "trace_id");
	json_int(&j, sp->trace_id);
	json_key(&j, "policy");
	json_str(&j, ops->name);
	json_key(&j, "mode");
	json_str(&j, sim_mode_name(sp->mode));
	json_key(&j, "seed");
	snprintf(buf, sizeof buf, "%" PRIu64, t->seed);
	json_str(&j, buf); /* a string: a uint64 does not fit a JSON double */
	json_key(&j, "target");
	json_num(&j, sp->mode == SIM_INFLATE ? sp->target : NAN);
	json_key(&j, "queue");
	json_str(&j, sp->mode == SIM_TIMED ? sim_queue_name(sp->queue) : NULL);
	json_key(&j, "preempt");
	json_bool(&j, sp->preempt);
	json_key(&j, "dims");
	json_str(&j, dims.s);
	json_key(&j, "dims_override");
	json_bool(&j, sp->dims != 0);
	json_key(&j, "lambda");
	json_num(&j, sp->lambda);
	json_key(&j, "mu");
	json_num(&j, sp->mu);
	json_key(&j, "coverage");
	json_num(&j, sp->coverage);
	json_key(&j, "sample_nodes");
	json_int(&j, sp->sample_nodes);
	json_key(&j, "faults");
	json_arr(&j);
	for (size_t i = 0; i < sp->nfaults; i++) {
		fault_format(&sp->faults[i], buf, sizeof buf);
		json_str(&j, buf);
	}
	json_end(&j);
	json_key(&j, "profile");
	json_obj(&j);
	json_key(&j, "path");
	json_str(&j, sp->profile_path);
	json_key(&j, "name");
	json_str(&j, enrich_name(sp->profile));
	json_key(&j, "version");
	json_int(&j, enrich_version(sp->profile));
	json_key(&j, "text");
	json_str(&j, enrich_text(sp->profile));
	json_end(&j);
	json_key(&j, "enrich_seed");
	snprintf(buf, sizeof buf, "%" PRIu64, t->seed);
	json_str(&j, buf);
	json_key(&j, "io_pressure");
	json_num(&j, sp->io_pressure);
	json_key(&j, "gpu_prices");
	json_arr(&j);
	for (size_t i = 0; i < sp->nprice_specs; i++)
		json_str(&j, sp->price_specs[i]);
	json_end(&j);
	json_key(&j, "cluster");
	if (sp->cluster_path) {
		json_obj(&j);
		json_key(&j, "path");
		json_str(&j, sp->cluster_path);
		json_key(&j, "text");
		json_str(&j, sp->cluster_text);
		json_end(&j);
	} else {
		json_null(&j);
	}
	json_key(&j, "nodes");
	json_int(&j, (int64_t)t->js.nnodes);
	json_key(&j, "jobs");
	json_int(&j, (int64_t)t->js.njobs);
	json_end(&j);
	sbuf_release(&dims);
}

static void jobs_stats(struct json *j, const struct metrics_jobs *s)
{
	json_obj(j);
	json_key(j, "jobs");
	json_int(j, s->jobs);
	json_key(j, "finished");
	json_int(j, s->finished);
	json_key(j, "running");
	json_int(j, s->running);
	json_key(j, "queued");
	json_int(j, s->queued);
	json_key(j, "unplaceable");
	json_int(j, s->unplaceable);
	json_key(j, "skipped");
	json_int(j, s->skipped);
	json_key(j, "preempted");
	json_int(j, s->preempted);
	json_key(j, "wait_mean_s");
	json_num(j, s->wait_mean);
	json_key(j, "wait_p95_s");
	json_num(j, s->wait_p95);
	json_key(j, "jct_mean_s");
	json_num(j, s->jct_mean);
	json_key(j, "jct_p95_s");
	json_num(j, s->jct_p95);
	json_key(j, "slowdown_mean");
	json_num(j, s->slowdown_mean);
	json_key(j, "slowdown_p95");
	json_num(j, s->slowdown_p95);
	json_key(j, "stalled_gpu_hours");
	json_num(j, s->stalled_gpu_hours);
	json_key(j, "lost_gpu_hours");
	json_num(j, s->lost_gpu_hours);
	json_key(j, "throughput_per_hour");
	json_num(j, s->throughput_per_hour);
	json_end(j);
}

static void write_summary(const struct replay_trace *t, const struct replay_result *r,
			  struct sbuf *out)
{
	const struct metrics *m = &r->m;
	struct json j;
	struct sbuf enr = SBUF_INIT;

	sbuf_init(&enr);
	enrich_describe(&t->enr, &enr);
	json_init(&j, out, 0);
	json_obj(&j);
	json_key(&j, "t0");
	json_int(&j, m->t0);
	json_key(&j, "t1");
	json_int(&j, m->t1);
	json_key(&j, "hours");
	json_num(&j, m->hours);
	json_key(&j, "gpus");
	json_int(&j, m->gpus);
	json_key(&j, "events");
	json_int(&j, r->events);
	json_key(&j, "gpu_hours");
	json_obj(&j);
	for (int b = 0; b < MB_N; b++) {
		json_key(&j, metrics_bucket_name((enum metrics_bucket)b));
		json_num(&j, m->gpu_hours[b]);
	}
	json_key(&j, "provisioned");
	json_num(&j, m->provisioned_gpu_hours);
	json_end(&j);
	json_key(&j, "usd_per_year");
	json_obj(&j);
	for (int b = 0; b < MB_N; b++) {
		json_key(&j, metrics_bucket_name((enum metrics_bucket)b));
		json_num(&j, m->usd_year[b]);
	}
	json_key(&j, "provisioned");
	json_num(&j, m->usd_year_provisioned);
	json_end(&j);
	json_key(&j, "mean_fragmentation");
	json_num(&j, m->frag_mean);
	json_key(&j, "md_fragmentation");
	json_num(&j, m->frag_md_mean);
	json_key(&j, "alloc_mean");
	json_num(&j, m->alloc_mean);
	json_key(&j, "stranded_mean");
	json_obj(&j);
	for (int d = 0; d < DIM_N; d++) {
		json_key(&j, job_dim_name((enum dim)d));
		json_num(&j, m->stranded_mean[d]);
	}
	json_end(&j);
	json_key(&j, "arrived_load");
	json_num(&j, r->mode == SIM_INFLATE ? m->load : NAN);
	json_key(&j, "unallocated_gpu_share");
	json_num(&j, r->mode == SIM_INFLATE ? m->unalloc_share : NAN);
	json_key(&j, "unallocated_gpu_share_at_100");
	json_num(&j, r->unalloc_at_100);
	json_key(&j, "failed_jobs");
	json_int(&j, m->failed);
	json_key(&j, "all");
	jobs_stats(&j, &m->all);
	json_key(&j, "class");
	json_obj(&j);
	for (int c = 0; c < JOB_NCLASS; c++) {
		json_key(&j, job_class_name((enum job_class)c));
		jobs_stats(&j, &m->cls[c]);
	}
	json_end(&j);
	json_key(&j, "enriched");
	json_str(&j, enr.s);
	json_end(&j);
	sbuf_release(&enr);
}

static void write_series(const struct metrics_series *ser, struct sbuf *out)
{
	sbuf_adds(out, "t,load,alloc_share,frag,frag_md,stall_share,queued,running,finished,"
		       "failed\n");
	for (size_t i = 0; i < ser->n; i++) {
		const struct sim_sample *p = &ser->pts[i];
		sbuf_printf(out,
			    "%" PRId64 ",%.6g,%.6g,%.6g,%.6g,%.6g,%" PRId64 ",%" PRId64 ",%" PRId64
			    ",%" PRId64 "\n",
			    p->t, p->load, p->alloc_share, p->frag, p->frag_md, p->stall_share,
			    p->queued, p->running, p->finished, p->failed);
	}
}

static void write_jobs(const struct sim *s, struct sbuf *out)
{
	struct sim_job_result jr;
	sbuf_adds(out, "job_id,state,why,class,node,submit,start,end,t_alone,slowdown,"
		       "stalled_gpu_s,preemptions\n");
	for (size_t i = 0; i < sim_njobs(s); i++) {
		sim_job_result(s, i, &jr);
		sbuf_printf(out,
			    "%" PRId64 ",%s,%s,%s,%" PRId32 ",%" PRId64 ",%" PRId64 ",%" PRId64
			    ",%" PRId64 ",%.6g,%.6g,%" PRId32 "\n",
			    jr.job_id, sim_job_state_name((enum sim_job_state)jr.state),
			    jr.state == SIM_JOB_UNPLACEABLE ? sim_why_name((enum sim_why)jr.why)
							    : "",
			    job_class_name((enum job_class)jr.cls), jr.node, jr.submit, jr.start,
			    jr.end, jr.t_alone, jr.slowdown, jr.stalled_gpu_s, jr.npreempt);
	}
}

/* ---- running ---- */

static double progress_of(const struct sim *s, const struct replay_spec *sp)
{
	const struct sim_counters *c = sim_counters(s);
	if (sp->mode == SIM_INFLATE) {
		double cap = 0;
		for (int m = 0; m < GPUMODEL_MAX; m++)
			cap += (double)c->gpu_cap[m];
		return cap > 0 ? (double)c->requested_gpu / (sp->target * cap) : 1;
	}
	size_t n = sim_njobs(s);
	double done = (double)(c->finished + c->unplaceable + c->skipped);
	return n ? done / (double)n : 1;
}

int replay_run(const struct replay_trace *t, const struct replay_spec *sp,
	       const struct policy_ops *ops, int records, replay_progress_fn progress, void *u,
	       struct replay_result *r, struct err *e)
{
	struct sim_opts o;
	struct sim *s = NULL;
	struct metrics_series ser = {0};
	int rc;

	memset(r, 0, sizeof *r);
	sbuf_init(&r->params);
	sbuf_init(&r->summary);
	sbuf_init(&r->series);
	sbuf_init(&r->jobs);
	r->policy = ops;
	r->seed = t->seed;
	r->mode = sp->mode;
	r->unalloc_at_100 = NAN;

	sim_opts_init(&o);
	o.mode = sp->mode;
	o.queue = sp->queue;
	o.preempt = sp->preempt;
	o.seed = t->seed;
	o.target = sp->target;
	o.dims = sp->dims;
	o.lambda = sp->lambda;
	o.mu = sp->mu;
	o.coverage = sp->coverage;
	o.sample_nodes = sp->sample_nodes;
	o.faults = sp->faults;
	o.nfaults = sp->nfaults;
	rc = sim_new(&t->js, ops, &t->wl, &o, &s, e);
	if (rc)
		goto out;
	struct sim_observer obs = metrics_series_observer(&ser);
	sim_observe(s, &obs);

	double t_start = util_mono();
	for (uint64_t n = 1; sim_step(s); n++)
		if (progress && n % PROGRESS_EVERY == 0)
			progress(u, progress_of(s, sp));
	r->wall_s = util_mono() - t_start;
	if (progress)
		progress(u, 1);

	metrics_compute(s, sp->prices, &r->m);
	r->events = sim_counters(s)->events;
	r->placed = sim_counters(s)->placed;
	if (sp->mode == SIM_INFLATE && sp->target >= 1) {
		double curve[1024];
		size_t n = metrics_unalloc_curve(&ser, sp->target, curve, 1024);
		if (n > 100)
			r->unalloc_at_100 = curve[100];
	}
	write_params(t, sp, ops, &r->params);
	write_summary(t, r, &r->summary);
	if (records) {
		write_series(&ser, &r->series);
		write_jobs(s, &r->jobs);
	}
out:
	metrics_series_release(&ser);
	sim_free(s);
	if (rc)
		replay_result_release(r);
	return rc;
}

void replay_result_release(struct replay_result *r)
{
	if (!r)
		return;
	sbuf_release(&r->params);
	sbuf_release(&r->summary);
	sbuf_release(&r->series);
	sbuf_release(&r->jobs);
}

/* ---- columns ---- */

struct colspec {
	struct report_col c;
	int modes; /* 1: shown in timed text, 2: shown in inflate text */
};

#define TIMED   1
#define INFLATE 2
static const struct colspec cols[REPLAY_NCOL] = {
	[REPLAY_FRAG] = {{"mean_fragmentation", "frag", "mean", 4, REPORT_LOWER, 0},
			 TIMED | INFLATE},
	[REPLAY_FRAG_MD] = {{"md_fragmentation", "md frag", "mean", 4, REPORT_LOWER, 0},
			    TIMED | INFLATE},
	[REPLAY_UNALLOC] = {{"unallocated_gpu_share", "unalloc", "GPU share", 4, REPORT_LOWER, 0},
			    INFLATE},
	[REPLAY_UNALLOC100] = {{"unallocated_gpu_share_at_100", "unalloc@100%", "GPU share", 4,
				REPORT_LOWER, 0},
			       INFLATE},
	[REPLAY_LOAD] = {{"arrived_load", "load", "arrived", 3, REPORT_NEUTRAL, 0}, INFLATE},
	[REPLAY_FAILED] = {{"failed_jobs", "failed", "jobs", 1, REPORT_LOWER, 0}, INFLATE},
	[REPLAY_STALLED] = {{"stalled_gpu_hours", "stalled", "GPU-h", 1, REPORT_LOWER, 0}, TIMED},
	[REPLAY_PRODUCTIVE] = {{"productive_gpu_hours", "productive", "GPU-h", 1, REPORT_HIGHER, 0},
			       TIMED},
	[REPLAY_IDLE_FRAG] = {{"idle_frag_gpu_hours", "idle frag", "GPU-h", 1, REPORT_LOWER, 0},
			      TIMED},
	[REPLAY_PROVISIONED] = {{"provisioned_gpu_hours", "provisioned", "GPU-h", 1, REPORT_NEUTRAL,
				 0},
				TIMED},
	[REPLAY_WAIT] = {{"wait_mean_s", "wait", "mean s", 1, REPORT_LOWER, 0}, TIMED},
	[REPLAY_SLOWDOWN] = {{"slowdown_mean", "slowdown", "mean", 3, REPORT_LOWER, 0}, TIMED},
	[REPLAY_JCT] = {{"jct_mean_s", "jct", "mean s", 1, REPORT_LOWER, 0}, 0},
	[REPLAY_UNPLACEABLE] = {{"unplaceable_jobs", "unplaceable", "jobs", 0, REPORT_LOWER, 0}, 0},
	[REPLAY_PLACED] = {{"placed_jobs", "placed", "jobs", 0, REPORT_NEUTRAL, 0}, 0},
	[REPLAY_EVENTS] = {{"events", "events", "", 0, REPORT_NEUTRAL, 0}, 0},
	[REPLAY_USD_WASTED] = {{"usd_per_year_wasted", "wasted", "$/yr", 0, REPORT_LOWER, 0},
			       TIMED},
	[REPLAY_USD_PROV] = {{"usd_per_year_provisioned", "provisioned", "$/yr", 0, REPORT_NEUTRAL,
			      0},
			     0},
	[REPLAY_SAVING] = {{"saving_vs_scalar_usd_per_year", "saving vs scalar", "$/yr", 0,
			    REPORT_HIGHER, 0},
			   TIMED | INFLATE},
};

const char *replay_col_key(enum replay_col c)
{
	assert(c < REPLAY_NCOL);
	return cols[c].c.key;
}

int replay_col_find(const char *key)
{
	for (int c = 0; c < REPLAY_NCOL; c++)
		if (!strcmp(cols[c].c.key, key))
			return c;
	return -1;
}

void replay_values(const struct replay_result *r, double *v)
{
	const struct metrics *m = &r->m;
	int infl = r->mode == SIM_INFLATE;
	v[REPLAY_FRAG] = m->frag_mean;
	v[REPLAY_FRAG_MD] = m->frag_md_mean;
	v[REPLAY_UNALLOC] = infl ? m->unalloc_share : NAN;
	v[REPLAY_UNALLOC100] = r->unalloc_at_100;
	v[REPLAY_LOAD] = infl ? m->load : NAN;
	v[REPLAY_FAILED] = (double)m->failed;
	v[REPLAY_STALLED] = m->gpu_hours[MB_STALLED];
	v[REPLAY_PRODUCTIVE] = m->gpu_hours[MB_PRODUCTIVE];
	v[REPLAY_IDLE_FRAG] = m->gpu_hours[MB_IDLE_FRAG];
	v[REPLAY_PROVISIONED] = m->provisioned_gpu_hours;
	v[REPLAY_WAIT] = m->all.wait_mean;
	v[REPLAY_SLOWDOWN] = m->all.slowdown_mean;
	v[REPLAY_JCT] = m->all.jct_mean;
	v[REPLAY_UNPLACEABLE] = (double)m->all.unplaceable;
	v[REPLAY_PLACED] = (double)r->placed;
	v[REPLAY_EVENTS] = (double)r->events;
	v[REPLAY_USD_WASTED] = m->usd_year[MB_STALLED] + m->usd_year[MB_IDLE_FRAG];
	v[REPLAY_USD_PROV] = m->usd_year_provisioned;
	v[REPLAY_SAVING] = NAN;
}

struct report *replay_report_new(enum sim_mode mode, int compare)
{
	static const struct report_col labels[] = {
		{.key = "policy", .head = "policy"},
		{.key = "seed", .head = "seed", .flags = REPORT_C_INT},
		{.key = "mode", .head = "mode", .flags = REPORT_C_TEXT_HIDE},
		{.key = "trace", .head = "trace", .flags = REPORT_C_TEXT_HIDE},
	};
	struct report_col nums[REPLAY_NCOL];
	size_t n = 0;
	int shown = mode == SIM_INFLATE ? INFLATE : TIMED;
	for (int c = 0; c < REPLAY_NCOL; c++) {
		if (c == REPLAY_SAVING && !compare)
			continue;
		nums[n] = cols[c].c;
		if (!(cols[c].modes & shown))
			nums[n].flags |= REPORT_C_TEXT_HIDE;
		n++;
	}
	struct report *rep = report_new(labels, 4, nums, n);
	report_set_mark_best(rep, compare);
	return rep;
}

void replay_report_add(struct report *rep, const char *policy, const char *seed, const char *mode,
		       const char *trace, const double *vals, int aggregate)
{
	const char *labels[] = {policy, seed, mode, trace};
	double v[REPLAY_NCOL];
	size_t n = 0;
	for (int c = 0; c < REPLAY_NCOL; c++) {
		if (c == REPLAY_SAVING && report_nnums(rep) < REPLAY_NCOL)
			continue;
		v[n++] = vals[c];
	}
	assert(n == report_nnums(rep));
	report_add_row(rep, labels, v, aggregate);
}

void replay_enrich_note(struct report *rep, const char *desc)
{
	struct sbuf b = SBUF_INIT;
	sbuf_init(&b);
	sbuf_printf(&b, "enriched values: %s", desc ? desc : "unknown");
	report_add_note(rep, b.s);
	/* enrich_describe says "none of N" for a part without enriched values */
	if (!desc || !strstr(desc, "jobs: none") || !strstr(desc, "nodes: none"))
		report_add_note(rep, "these rest on enriched values: md frag, stalled, productive, "
				     "wait, slowdown, $/yr, and placements by policies that see "
				     "net, sto or iocpu");
	sbuf_release(&b);
}

void replay_sample_note(struct report *rep, unsigned k)
{
	struct sbuf b = SBUF_INIT;
	if (!k)
		return;
	sbuf_init(&b);
	sbuf_printf(&b,
		    "each placement scored at most %u feasible nodes, met in a seeded random "
		    "order (--sample-nodes): an approximation of each policy but first-fit and "
		    "random",
		    k);
	report_add_note(rep, b.s);
	sbuf_release(&b);
}

unsigned replay_params_sample_nodes(const char *params)
{
	const char *p = strstr(params, "\"sample_nodes\":");
	return p ? (unsigned)strtoul(p + strlen("\"sample_nodes\":"), NULL, 10) : 0;
}

/* ---- storing ---- */

int replay_store(struct store *s, const struct replay_spec *sp, const struct replay_result *r,
		 int64_t *run_id, struct err *e)
{
	double v[REPLAY_NCOL];
	struct store_metric m[REPLAY_NCOL];
	size_t nm = 0;
	int rc;

	replay_values(r, v);
	for (int c = 0; c < REPLAY_NCOL; c++)
		if (!isnan(v[c]))
			m[nm++] = (struct store_metric){cols[c].c.key, v[c]};
	struct store_run run = {
		.trace_id = sp->trace_id,
		.policy = r->policy->name,
		.mode = sim_mode_name(r->mode),
		.seed = r->seed,
		.params_json = r->params.s,
		.summary_json = r->summary.s,
		.series = r->series.s,
		.series_len = r->series.len,
		.jobs = r->jobs.s,
		.jobs_len = r->jobs.len,
	};
	rc = store_begin(s, e);
	if (rc)
		return rc;
	rc = store_run_add(s, &run, m, nm, e);
	if (rc) {
		store_rollback(s);
		return rc;
	}
	rc = store_commit(s, e);
	if (!rc && run_id)
		*run_id = run.id;
	return rc;
}

/* ---- grid ---- */

struct grid_progress {
	replay_grid_progress_fn fn;
	void *u;
	size_t run, nruns;
	const char *policy;
	uint64_t seed;
};

static void grid_progress(void *u, double done)
{
	struct grid_progress *g = u;
	g->fn(g->u, g->run, g->nruns, g->policy, g->seed, done);
}

/* Keep run r (of policy p, seed) in row, and in st unless st is NULL; releases r. */
static int keep_run(struct replay_row *row, const struct policy_ops *p, uint64_t seed,
		    struct replay_result *r, struct store *st, const struct replay_spec *sp,
		    struct err *e)
{
	int rc = 0;
	row->policy = p->name;
	row->seed = seed;
	row->wall_s = r->wall_s;
	row->events = r->events;
	replay_values(r, row->v);
	if (st)
		rc = replay_store(st, sp, r, &row->run_id, e);
	replay_result_release(r);
	return rc;
}

/*
 * One seed's policies on several threads. Threads take the next policy while fewer than
 * `ahead` results wait to be kept: all of them when nothing is stored (a result is then a
 * few KB), else twice the threads (a stored run holds its series and per-job results). The
 * caller keeps (and stores) the results in policy order, so the store sees what a single
 * thread would give it. Progress goes through one lock, as the sum of the runs' shares
 * (the bar is drawn by one thread at a time).
 */
struct pool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	const struct replay_trace *t;
	const struct replay_spec *sp;
	const struct policy_ops *const *pols;
	int records;
	size_t npol, next, kept, ahead;
	int stop; /* a run failed, or the caller stops: start no more */
	struct pool_run {
		struct replay_result r;
		struct err e;
		int rc, done;
		double share; /* of it run so far */
		struct pool *pool;
	} * run;
	struct grid_progress *g; /* NULL: no progress */
	size_t run0;             /* grid run number of policy 0 */
};

static void pool_progress(void *u, double done)
{
	struct pool_run *pr = u;
	struct pool *pl = pr->pool;
	pthread_mutex_lock(&pl->mu);
	pr->share = done;
	double sum = 0;
	for (size_t p = 0; p < pl->npol; p++)
		sum += pl->run[p].share;
	size_t whole = (size_t)sum < pl->npol ? (size_t)sum : pl->npol - 1;
	pl->g->fn(pl->g->u, pl->run0 + whole, pl->g->nruns, pl->pols[pr - pl->run]->name,
		  pl->t->seed, sum - (double)whole);
	pthread_mutex_unlock(&pl->mu);
}

static void *pool_thread(void *arg)
{
	struct pool *pl = arg;
	pthread_mutex_lock(&pl->mu);
	for (;;) {
		while (!pl->stop && pl->next < pl->npol && pl->next >= pl->kept + pl->ahead)
			pthread_cond_wait(&pl->cv, &pl->mu);
		if (pl->stop || pl->next >= pl->npol)
			break;
		struct pool_run *pr = &pl->run[pl->next++];
		pthread_mutex_unlock(&pl->mu);
		int rc = replay_run(pl->t, pl->sp, pl->pols[pr - pl->run], pl->records,
				    pl->g ? pool_progress : NULL, pr, &pr->r, &pr->e);
		pthread_mutex_lock(&pl->mu);
		pr->rc = rc;
		pr->done = 1;
		pl->stop |= rc != 0;
		pthread_cond_broadcast(&pl->cv);
	}
	pthread_mutex_unlock(&pl->mu);
	return NULL;
}

/* Run pols on t with up to nthreads threads, keeping each result in rows[p * stride] in
 * policy order. */
static int run_pool(const struct replay_trace *t, const struct replay_spec *sp,
		    const struct policy_ops *const *pols, size_t npol, unsigned nthreads,
		    struct store *st, struct grid_progress *g, struct replay_row *rows,
		    size_t stride, struct err *e)
{
	struct pool pl = {.t = t,
			  .sp = sp,
			  .pols = pols,
			  .records = st != NULL,
			  .npol = npol,
			  .ahead = st ? 2 * (size_t)nthreads : npol,
			  .g = g && g->fn ? g : NULL,
			  .run0 = g ? g->run : 0};
	pl.run = xcalloc(npol, sizeof *pl.run);
	for (size_t p = 0; p < npol; p++)
		pl.run[p].pool = &pl;
	pthread_mutex_init(&pl.mu, NULL);
	pthread_cond_init(&pl.cv, NULL);
	pthread_t *th = xcalloc(nthreads, sizeof *th);
	unsigned nth = 0;
	int rc = 0;
	for (; nth < nthreads; nth++)
		if (pthread_create(&th[nth], NULL, pool_thread, &pl))
			break;
	if (!nth)
		rc = err_set(e, VF_EIO, "cannot start a thread");
	for (size_t p = 0; p < npol && !rc; p++) {
		pthread_mutex_lock(&pl.mu);
		while (!pl.run[p].done)
			pthread_cond_wait(&pl.cv, &pl.mu);
		pthread_mutex_unlock(&pl.mu);
		if (pl.run[p].rc) {
			rc = pl.run[p].rc;
			*e = pl.run[p].e;
		} else {
			rc = keep_run(&rows[p * stride], pols[p], t->seed, &pl.run[p].r, st, sp, e);
		}
		pthread_mutex_lock(&pl.mu);
		pl.kept = p + 1;
		pl.stop |= rc != 0;
		pthread_cond_broadcast(&pl.cv);
		pthread_mutex_unlock(&pl.mu);
	}
	for (unsigned i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	for (size_t p = 0; p < npol; p++) /* what a failure left unkept */
		if (pl.run[p].done && !pl.run[p].rc && p >= pl.kept)
			replay_result_release(&pl.run[p].r);
	pthread_cond_destroy(&pl.cv);
	pthread_mutex_destroy(&pl.mu);
	free(th);
	free(pl.run);
	return rc;
}

int replay_grid(struct job_set *base, const struct replay_spec *sp,
		const struct policy_ops *const *pols, size_t npol, uint64_t lo, uint64_t hi,
		unsigned nthreads, struct store *st, replay_grid_progress_fn progress, void *u,
		struct replay_row **rows, struct enrich_summary *enr, struct err *e)
{
	size_t nseed = (size_t)(hi - lo) + 1;
	struct replay_row *out = xcalloc(npol * nseed, sizeof *out);
	struct grid_progress g = {progress, u, 0, npol * nseed, NULL, 0};
	int rc = 0;

	assert(lo <= hi && npol > 0);
	*rows = out;
	for (size_t k = 0; k < nseed && !rc; k++) {
		struct replay_trace t;
		if (k + 1 < nseed)
			replay_prepare(&t, base, sp, lo + k);
		else
			replay_prepare_take(&t, base, sp, lo + k);
		if (k == 0)
			*enr = t.enr;
		if (nthreads > 1 && npol > 1) {
			g.run = k * npol;
			rc = run_pool(&t, sp, pols, npol,
				      nthreads < npol ? nthreads : (unsigned)npol, st, &g, &out[k],
				      nseed, e);
		} else {
			for (size_t p = 0; p < npol && !rc; p++) {
				struct replay_result r;
				g.run = k * npol + p;
				g.policy = pols[p]->name;
				g.seed = lo + k;
				rc = replay_run(&t, sp, pols[p], st != NULL,
						progress ? grid_progress : NULL, &g, &r, e);
				if (!rc)
					rc = keep_run(&out[p * nseed + k], pols[p], lo + k, &r, st,
						      sp, e);
			}
		}
		replay_trace_release(&t);
	}
	return rc;
}

/* Mean of each column over rows[0..n) (NaN where any is NaN). */
static void mean_row(const struct replay_row *rows, size_t n, double *v)
{
	for (int c = 0; c < REPLAY_NCOL; c++) {
		double sum = 0;
		for (size_t i = 0; i < n; i++)
			sum += rows[i].v[c];
		v[c] = sum / (double)n;
	}
}

struct report *replay_table(const struct replay_row *rows, size_t n, enum sim_mode mode,
			    int compare, const char *trace)
{
	struct report *rep = replay_report_new(mode, compare);
	const char *mname = sim_mode_name(mode);
	char seed[64];
	double scalar_waste = NAN;
	int multi = 0;

	/* groups of one policy: rows [g, g2) */
	for (size_t g = 0, g2; g < n; g = g2) {
		for (g2 = g; g2 < n && !strcmp(rows[g2].policy, rows[g].policy); g2++)
			;
		if (g2 - g > 1)
			multi = 1;
		if (!strcmp(rows[g].policy, "scalar")) {
			double v[REPLAY_NCOL];
			mean_row(rows + g, g2 - g, v);
			scalar_waste = v[REPLAY_USD_WASTED];
		}
	}
	if (!compare) {
		for (size_t i = 0; i < n; i++) {
			snprintf(seed, sizeof seed, "%" PRIu64, rows[i].seed);
			replay_report_add(rep, rows[i].policy, seed, mname, trace, rows[i].v, 0);
		}
		if (!multi)
			return rep;
	}
	for (size_t g = 0, g2; g < n; g = g2) {
		double v[REPLAY_NCOL];
		for (g2 = g; g2 < n && !strcmp(rows[g2].policy, rows[g].policy); g2++)
			;
		if (!compare && g2 - g < 2)
			continue;
		mean_row(rows + g, g2 - g, v);
		v[REPLAY_SAVING] = scalar_waste - v[REPLAY_USD_WASTED];
		if (g2 - g == 1)
			snprintf(seed, sizeof seed, "%" PRIu64, rows[g].seed);
		else if (compare)
			snprintf(seed, sizeof seed, "%" PRIu64 "-%" PRIu64, rows[g].seed,
				 rows[g2 - 1].seed);
		else
			snprintf(seed, sizeof seed, "mean");
		replay_report_add(rep, rows[g].policy, seed, mname, trace, v, !compare);
	}
	return rep;
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
		if (!ops) {
			struct sbuf valid = SBUF_INIT;
			sbuf_init(&valid);
			for (const struct policy_ops *const *p = policy_table; *p; p++)
				sbuf_printf(&valid, "%s, ", (*p)->name);
			sbuf_adds(&valid, "all");
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

struct name_ctx {
	int64_t id;
	struct sbuf *out;
};

static int name_cb(void *ctx, const struct store_trace_info *t)
{
	struct name_ctx *n = ctx;
	if (t->id != n->id)
		return 0;
	sbuf_adds(n->out, t->name);
	return 1;
}

void replay_trace_name(struct store *st, int64_t id, struct sbuf *out)
{
	struct name_ctx n = {id, out};
	struct err e;
	size_t len = out->len;
	if (store_trace_list(st, name_cb, &n, &e) != 1 || out->len == len)
		sbuf_printf(out, "%lld", (long long)id);
}

void replay_scenario_key(const char *params, struct sbuf *out)
{
	static const char *const drop[] = {"\"policy\":\"", "\"dims\":\"", "\"seed\":\"",
					   "\"enrich_seed\":\"", NULL};
	const char *p = params;
	while (*p) {
		int hit = 0;
		for (const char *const *d = drop; *d && !hit; d++) {
			size_t n = strlen(*d);
			if (strncmp(p, *d, n) || (p > params && p[-1] != ',' && p[-1] != '{'))
				continue;
			/* skip the key and its string value (these values hold no quotes) */
			const char *q = strchr(p + n, '"');
			if (!q)
				break;
			p = q + 1;
			if (*p == ',')
				p++;
			hit = 1;
		}
		if (!hit)
			sbuf_addc(out, *p++);
	}
}

int replay_read_file(const char *path, struct sbuf *out, struct err *e)
{
	return words_read_file(path, SIZE_MAX, "a file to read", out, e);
}

int replay_use_cluster(struct job_set *js, const char *text, size_t len, const char *fname,
		       struct err *e)
{
	struct job_set spec = {0};
	int rc = clusterspec_parse(text, len, fname, &spec, e);
	if (rc) {
		job_set_release(&spec);
		return rc;
	}
	if (!spec.nnodes) {
		job_set_release(&spec);
		return err_set(e, VF_EINPUT, "%s: no node groups", fname);
	}
	free(js->nodes);
	js->nodes = spec.nodes;
	js->nnodes = spec.nnodes;
	js->nodecap = spec.nodecap;
	spec.nodes = NULL;
	spec.nnodes = spec.nodecap = 0;
	job_set_release(&spec);
	return 0;
}
