/* test-sim.c — the replay engine: timing, queue disciplines, contention, faults,
 * preemption, unplaceable jobs, invariants, determinism, stepping, snapshots and forks. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "frag.h"
#include "gpumodel.h"
#include "metrics.h"
#include "replay.h"
#include "rng.h"
#include "scenario.h"
#include "sim.h"
#include "../../src/sim-int.h" /* the class search's copies of the policy's records */

/* ---- test policies ---- */

static double zero_score(const struct policy_ctx *ctx, const struct job *j,
			 const struct placement *p)
{
	(void)ctx, (void)j, (void)p;
	return 0;
}
static double last_score(const struct policy_ctx *ctx, const struct job *j,
			 const struct placement *p)
{
	(void)ctx, (void)j;
	return -(double)p->node;
}
/* Best fit on GPU then cpu: depends only on the node's state and the job. */
static double fit_score(const struct policy_ctx *ctx, const struct job *j,
			const struct placement *p)
{
	const struct node_state *st = &ctx->c->st[p->node];
	(void)j;
	double g = 0;
	for (int i = 0; i < CLUSTER_MAX_GPUS; i++)
		if (p->gpus & (1u << i))
			g += st->gpu_free[i] - p->milli;
	return g * 1e6 + (double)(st->cap[DIM_CPU] - st->used[DIM_CPU] - p->dem[DIM_CPU]);
}
/* Few distinct values: many ties, so the tie-break (lowest node) decides often. */
static double tie_score(const struct policy_ctx *ctx, const struct job *j,
			const struct placement *p)
{
	(void)j;
	return (double)(ctx->c->st[p->node].njobs > 0);
}
static const struct policy_ops tie_ops = {.name = "t-tie",
					  .summary = "",
					  .dims = DIMS_HARD,
					  .flags = POLICY_F_BY_STATE,
					  .score = tie_score};
static const struct policy_ops tie_ops_slow = {
	.name = "t-tie-slow", .summary = "", .dims = DIMS_HARD, .flags = 0, .score = tie_score};
static const struct policy_ops ff_ops = {
	.name = "t-first", .summary = "", .dims = DIMS_HARD, .flags = 0, .score = zero_score};
static const struct policy_ops last_ops = {
	.name = "t-last", .summary = "", .dims = DIMS_HARD, .flags = 0, .score = last_score};
static const struct policy_ops fit_ops = {.name = "t-fit",
					  .summary = "",
					  .dims = DIMS_HARD,
					  .flags = POLICY_F_BY_STATE,
					  .score = fit_score};
static const struct policy_ops fit_ops_slow = {
	.name = "t-fit-slow", .summary = "", .dims = DIMS_HARD, .flags = 0, .score = fit_score};

/* ---- building job sets ---- */

static void add_node(struct job_set *js, const char *name, const char *model, int ngpu, int64_t cpu,
		     int64_t net, int64_t sto)
{
	struct node n;
	node_init(&n);
	snprintf(n.name, sizeof n.name, "%s", name);
	snprintf(n.group, sizeof n.group, "grp");
	n.ngpu = ngpu;
	n.model = (int16_t)(model ? gpumodel_find(model) : -1);
	int64_t cap[DIM_N] = {cpu, 1 << 20, ngpu * 1000, ngpu * 16384, net, sto, 8000};
	memcpy(n.cap, cap, sizeof cap);
	job_set_add_node(js, &n);
}

static struct job *add_job(struct job_set *js, int64_t arrival, int64_t dur, int64_t cpu, int ngpu,
			   int milli, int cls)
{
	struct job j;
	job_init(&j);
	j.id = (int64_t)js->njobs;
	j.arrival = arrival;
	j.duration = dur;
	j.num_gpu = ngpu;
	j.gpu_milli = ngpu ? milli : 0;
	int64_t dem[DIM_N] = {cpu, 1024, (int64_t)ngpu * j.gpu_milli, -1, 0, 0, 0};
	memcpy(j.dem, dem, sizeof dem);
	j.cls = (uint8_t)cls;
	job_set_add_job(js, &j);
	return &js->jobs[js->njobs - 1];
}

static struct sim *run(const struct job_set *js, const struct policy_ops *ops,
		       const struct sim_opts *o)
{
	struct sim *s;
	struct err e = {0};
	assert_int_equal(sim_new(js, ops, NULL, o, &s, &e), 0);
	sim_run(s);
	return s;
}

static struct sim_job_result res(const struct sim *s, size_t i)
{
	struct sim_job_result r;
	sim_job_result(s, i, &r);
	return r;
}

static void expect_run(const struct sim *s, size_t i, int64_t start, int64_t end, int node)
{
	struct sim_job_result r = res(s, i);
	if (r.start != start || r.end != end || r.node != node)
		fail_msg("job %zu: ran [%lld, %lld] on %d, wanted [%lld, %lld] on %d", i,
			 (long long)r.start, (long long)r.end, r.node, (long long)start,
			 (long long)end, node);
}

/* ---- timing and queue disciplines ---- */

static void fifo_set(struct job_set *js)
{
	memset(js, 0, sizeof *js);
	add_node(js, "n0", "T4", 1, 4000, 1000, 1000);
	add_node(js, "n1", "T4", 1, 4000, 1000, 1000);
	add_job(js, 0, 100, 1000, 1, 1000, JOB_TRAIN);
	add_job(js, 10, 50, 1000, 1, 1000, JOB_TRAIN);
	add_job(js, 20, 30, 1000, 1, 1000, JOB_TRAIN);
	add_job(js, 25, 10, 1000, 0, 0, JOB_CPU);
}

static void test_fifo_blocks_behind_the_head(void **state)
{
	(void)state;
	struct job_set js;
	struct sim_opts o;
	fifo_set(&js);
	sim_opts_init(&o);
	struct sim *s = run(&js, &ff_ops, &o);
	expect_run(s, 0, 0, 100, 0);
	expect_run(s, 1, 10, 60, 1);
	expect_run(s, 2, 60, 90, 1);
	expect_run(s, 3, 60, 70, 0); /* fits at 25, but waits behind job 2 */
	assert_int_equal(res(s, 3).submit, 25);
	const struct sim_counters *k = sim_counters(s);
	assert_int_equal(k->finished, 4);
	assert_int_equal(k->t0, 0);
	assert_int_equal(k->now, 100);
	assert_true(sim_done(s));
	sim_free(s);
	sim_free(NULL);
	job_set_release(&js);
}

static void test_backfill_lets_small_jobs_pass(void **state)
{
	(void)state;
	struct job_set js;
	struct sim_opts o;
	fifo_set(&js);
	sim_opts_init(&o);
	o.queue = SIM_BACKFILL;
	struct sim *s = run(&js, &ff_ops, &o);
	expect_run(s, 2, 60, 90, 1);
	expect_run(s, 3, 25, 35, 0);
	sim_free(s);
	/* The policy decides among feasible nodes: the last node first. */
	s = run(&js, &last_ops, &o);
	expect_run(s, 0, 0, 100, 1);
	expect_run(s, 1, 10, 60, 0);
	expect_run(s, 3, 25, 35, 1);
	sim_free(s);
	job_set_release(&js);
}

static void test_priority_classes(void **state)
{
	(void)state;
	struct job_set js = {0};
	struct sim_opts o;
	add_node(&js, "n0", "T4", 1, 4000, 1000, 1000);
	add_job(&js, 0, 10, 100, 1, 1000, JOB_TRAIN);
	add_job(&js, 1, 10, 100, 1, 1000, JOB_BATCH);
	add_job(&js, 2, 10, 100, 1, 1000, JOB_INFER);
	sim_opts_init(&o);
	struct sim *s = run(&js, &ff_ops, &o);
	expect_run(s, 1, 10, 20, 0);
	expect_run(s, 2, 20, 30, 0);
	sim_free(s);
	o.queue = SIM_PRIORITY;
	s = run(&js, &ff_ops, &o);
	expect_run(s, 2, 10, 20, 0); /* inference first */
	expect_run(s, 1, 20, 30, 0);
	sim_free(s);
	job_set_release(&js);
}

struct hook_log {
	int place, finish, preempt, unplaceable;
	int32_t preempted, by;
};
static void h_place(void *u, const struct sim *s, int64_t t, int32_t job, const struct placement *p)
{
	(void)s, (void)t, (void)job, (void)p;
	((struct hook_log *)u)->place++;
}
static void h_finish(void *u, const struct sim *s, int64_t t, int32_t job)
{
	(void)s, (void)t, (void)job;
	((struct hook_log *)u)->finish++;
}
static void h_preempt(void *u, const struct sim *s, int64_t t, int32_t job, int32_t by)
{
	struct hook_log *l = u;
	(void)s;
	assert_int_equal(t, 10);
	l->preempt++;
	l->preempted = job;
	l->by = by;
}
static void h_unplaceable(void *u, const struct sim *s, int64_t t, int32_t job)
{
	(void)s, (void)t, (void)job;
	((struct hook_log *)u)->unplaceable++;
}

static void test_preemption_loses_work(void **state)
{
	(void)state;
	struct job_set js = {0};
	struct sim_opts o;
	add_node(&js, "n0", "T4", 1, 4000, 1000, 1000);
	add_job(&js, 0, 100, 100, 1, 1000, JOB_BATCH);
	add_job(&js, 10, 20, 100, 1, 1000, JOB_INFER);
	sim_opts_init(&o);
	o.queue = SIM_PRIORITY;
	struct sim *s = run(&js, &ff_ops, &o);
	expect_run(s, 1, 100, 120, 0); /* no preemption: it waits */
	sim_free(s);
	o.preempt = 1;
	add_job(&js, 11, 5, 100, 1, 1000, JOB_TRAIN)->gpu_spec = 1u << gpumodel_find("A100");
	struct hook_log log = {0};
	struct sim_observer ob = {&log, h_place, h_finish, h_preempt, h_unplaceable, NULL, NULL};
	assert_int_equal(sim_new(&js, &ff_ops, NULL, &o, &s, NULL), 0);
	sim_observe(s, &ob);
	sim_observe(s, &ob); /* two observers: every hook runs twice */
	sim_run(s);
	assert_int_equal(log.place, 2 * 3);
	assert_int_equal(log.finish, 2 * 2);
	assert_int_equal(log.preempt, 2);
	assert_int_equal(log.preempted, 0);
	assert_int_equal(log.by, 1);
	assert_int_equal(log.unplaceable, 2);
	expect_run(s, 1, 10, 30, 0);
	expect_run(s, 0, 30, 130, 0); /* restarted from scratch */
	struct sim_job_result r = res(s, 0);
	assert_int_equal(r.npreempt, 1);
	assert_true(r.lost_gpu_s == 10);
	assert_int_equal(sim_counters(s)->preemptions, 1);
	assert_int_equal(sim_counters(s)->lost_ms[gpumodel_find("T4")], 10 * 1000);
	/* Lost work is allocated but not productive. The window is [0, 11) (first to last
	 * arrival): job 0's 10 s before it was evicted are lost, job 1's first second is
	 * productive. */
	struct metrics m;
	metrics_compute(s, NULL, &m);
	assert_int_equal(m.w1 - m.w0, 11);
	assert_int_equal(m.bucket_ms[SIM_B_LOST], 10 * 1000);
	assert_int_equal(m.buckets.ms[gpumodel_find("T4")][JOB_BATCH][SIM_B_LOST] +
				 m.buckets.ms[gpumodel_find("T4")][JOB_TRAIN][SIM_B_LOST],
			 10 * 1000);
	assert_int_equal(m.bucket_ms[SIM_B_PRODUCTIVE], 1 * 1000);
	assert_int_equal(m.bucket_ms[SIM_B_STALLED], 0);
	assert_true(m.all.lost_gpu_hours * 3600 > 9.999 && m.all.lost_gpu_hours * 3600 < 10.001);
	sim_free(s);
	job_set_release(&js);
}

/* ---- contention and faults ---- */

static void test_contention_stretches_jobs(void **state)
{
	(void)state;
	struct job_set js = {0};
	struct sim_opts o;
	add_node(&js, "n0", "T4", 4, 8000, 1000, 1000);
	add_job(&js, 0, 100, 100, 1, 1000, JOB_TRAIN)->dem[DIM_NET] = 600;
	add_job(&js, 0, 40, 100, 1, 1000, JOB_TRAIN)->dem[DIM_NET] = 600;
	add_job(&js, 0, 50, 100, 1, 1000, JOB_TRAIN); /* no net: never slowed */
	sim_opts_init(&o);
	struct sim *s = run(&js, &ff_ops, &o);
	/* Both at 1000/1200: job 1 needs 40 / (5/6) = 48 s; job 0 has then done 40 and runs
	 * the other 60 alone. */
	expect_run(s, 1, 0, 48, 0);
	expect_run(s, 0, 0, 108, 0);
	expect_run(s, 2, 0, 50, 0);
	struct sim_job_result r = res(s, 0);
	assert_true(r.slowdown == 1.08);
	assert_true(r.stalled_gpu_s == 8);
	assert_true(res(s, 1).stalled_gpu_s == 8);
	assert_true(res(s, 2).stalled_gpu_s == 0);
	struct metrics m;
	metrics_compute(s, NULL, &m);
	/* over the window [0, 100): both slowed jobs lose 8 GPU-s each; job 0's last 8 s of
	 * work lie past the window: carried over */
	assert_int_equal(m.bucket_ms[SIM_B_STALLED], 16 * 1000);
	assert_int_equal(m.bucket_ms[SIM_B_PRODUCTIVE], (100 + 48 + 50 - 16) * 1000);
	assert_int_equal(m.carry_jobs, 1);
	assert_true(fabs(m.carry_gpu_hours * 3600 - 8) < 1e-9);
	sim_free(s);
	/* Contention off: trace durations. */
	o.contention = 0;
	s = run(&js, &ff_ops, &o);
	expect_run(s, 0, 0, 100, 0);
	sim_free(s);
	job_set_release(&js);
}

struct fault_log {
	int n;
	int64_t t[4];
	int begin[4];
};
static void log_fault(void *u, const struct sim *s, int64_t t, size_t fault, int begin)
{
	struct fault_log *l = u;
	(void)s, (void)fault;
	if (l->n < 4) {
		l->t[l->n] = t;
		l->begin[l->n++] = begin;
	}
}

static void test_fault_slows_then_recovers(void **state)
{
	(void)state;
	struct job_set js = {0};
	struct sim_opts o;
	struct fault f;
	struct err e = {0};
	add_node(&js, "n0", "T4", 1, 4000, 1000, 1000);
	add_node(&js, "n1", "T4", 1, 4000, 1000, 1000);
	add_job(&js, 0, 100, 100, 1, 1000, JOB_TRAIN)->dem[DIM_STO] = 800;
	assert_int_equal(fault_parse("n0:sto=0.5@20+40", &f, &e), 0);
	sim_opts_init(&o);
	o.faults = &f;
	o.nfaults = 1;
	struct sim *s;
	assert_int_equal(sim_new(&js, &ff_ops, NULL, &o, &s, &e), 0);
	struct fault_log log = {0};
	struct sim_observer ob = {.u = &log, .on_fault = log_fault};
	sim_observe(s, &ob);
	assert_int_equal(sim_run_until(s, 30), 1);
	assert_int_equal(sim_cluster(s)->st[0].cap[DIM_STO], 500);
	assert_int_equal(sim_cluster(s)->st[1].cap[DIM_STO], 1000);
	struct sim_job_result r = res(s, 0);
	assert_true(r.rate == 0.625);
	sim_run(s);
	/* 20 s at 1, 40 s at 500/800 (25 s of work), then 55 s at 1. */
	expect_run(s, 0, 0, 115, 0);
	assert_int_equal(log.n, 2);
	assert_int_equal(log.t[0], 20);
	assert_int_equal(log.begin[0], 1);
	assert_int_equal(log.t[1], 60);
	assert_int_equal(log.begin[1], 0);
	assert_int_equal(sim_cluster(s)->st[0].cap[DIM_STO], 1000);
	sim_free(s);
	/* A group or a GPU model names several nodes; an unknown target is an error. */
	assert_int_equal(fault_parse("grp:sto=0.5@20+40", &f, &e), 0);
	s = run(&js, &ff_ops, &o);
	expect_run(s, 0, 0, 115, 0);
	sim_free(s);
	assert_int_equal(fault_parse("nowhere:sto=0.5@20+40", &f, &e), 0);
	assert_int_equal(sim_new(&js, &ff_ops, NULL, &o, &s, &e), VF_EINPUT);
	assert_null(s);
	assert_non_null(strstr(e.msg, "'nowhere' names no node"));
	job_set_release(&js);
}

/* ---- jobs that cannot run ---- */

static void test_unplaceable_and_skipped(void **state)
{
	(void)state;
	struct job_set js = {0};
	struct sim_opts o;
	add_node(&js, "n0", "T4", 2, 4000, 1000, 1000);
	add_job(&js, 0, 10, 100, 1, 1000, JOB_TRAIN)->gpu_spec = 1u << gpumodel_find("A100");
	add_job(&js, 1, 10, 999999, 0, 0, JOB_CPU);
	add_job(&js, 2, 10, 100, 4, 1000, JOB_TRAIN);
	struct job *nr = add_job(&js, 3, -1, 100, 0, 0, JOB_CPU);
	nr->flags = JOB_F_NOTRAN;
	add_job(&js, 4, 10, 100, 1, 500, JOB_TRAIN);
	sim_opts_init(&o); /* fifo: a job that can never run must not block the queue */
	struct sim *s = run(&js, &ff_ops, &o);
	struct sim_job_result r = res(s, 0);
	assert_int_equal(r.state, SIM_JOB_UNPLACEABLE);
	assert_int_equal(r.why, SIM_WHY_MODEL);
	r = res(s, 1);
	assert_int_equal(r.state, SIM_JOB_UNPLACEABLE);
	assert_int_equal(r.why, SIM_WHY_TOO_BIG);
	assert_int_equal(r.why_dim, DIM_CPU);
	r = res(s, 2);
	assert_int_equal(r.why, SIM_WHY_MODEL); /* no node with 4 GPUs */
	assert_int_equal(res(s, 3).state, SIM_JOB_SKIPPED);
	expect_run(s, 4, 4, 14, 0);
	const struct sim_counters *k = sim_counters(s);
	assert_int_equal(k->unplaceable, 3);
	assert_int_equal(k->skipped, 1);
	assert_int_equal(k->finished, 1);
	assert_string_equal(sim_why_name(SIM_WHY_TOO_BIG), "too big");
	assert_string_equal(sim_job_state_name(SIM_JOB_SKIPPED), "skipped");
	sim_free(s);
	job_set_release(&js);
}

/* ---- runs that always end ---- */

/* A node without storage bandwidth (spec 0) takes no job that needs it: such a job is too
 * big on sto where no node has any; the others run there. */
static void test_node_without_a_shared_dim(void **state)
{
	(void)state;
	struct job_set js = {0};
	struct sim_opts o;
	add_node(&js, "n0", "T4", 2, 4000, 1000, 0);
	add_job(&js, 0, 10, 100, 1, 1000, JOB_TRAIN)->dem[DIM_STO] = 5;
	add_job(&js, 1, 10, 100, 1, 1000, JOB_TRAIN);
	sim_opts_init(&o);
	struct sim *s = run(&js, &ff_ops, &o);
	struct sim_job_result r = res(s, 0);
	assert_int_equal(r.state, SIM_JOB_UNPLACEABLE);
	assert_int_equal(r.why, SIM_WHY_TOO_BIG);
	assert_int_equal(r.why_dim, DIM_STO);
	expect_run(s, 1, 1, 11, 0);
	assert_int_equal(sim_counters(s)->stuck, 0);
	sim_free(s);
	job_set_release(&js);
}

/* A job at rate 0 under a fault that outlasts the run, and one that waits behind it: once the
 * last arrival is in and nothing else runs, nothing can change any more. The run stops (it
 * went on sampling to the fault's end, 9e18 s), moves the clock to the window's end and
 * carries both over. */
static void test_stuck_run_stops(void **state)
{
	(void)state;
	struct job_set js = {0};
	struct sim_opts o;
	struct fault f;
	struct err e = {0};
	struct metrics_series ser = {0};
	struct sim *s;
	add_node(&js, "n0", "T4", 1, 4000, 1000, 1000);
	add_job(&js, 0, 100, 1000, 1, 1000, JOB_TRAIN)->dem[DIM_STO] = 800;
	add_job(&js, 20, 10, 1000, 0, 0, JOB_CPU);
	add_job(&js, 40, 10, 1000, 1, 1000, JOB_TRAIN);
	assert_int_equal(fault_parse("n0:sto=0@10+9000000000000000000", &f, &e), 0);
	sim_opts_init(&o);
	o.faults = &f;
	o.nfaults = 1;
	o.win_end = 1000;
	assert_int_equal(sim_new(&js, &ff_ops, NULL, &o, &s, &e), 0);
	struct sim_observer ob = metrics_series_observer(&ser);
	sim_observe(s, &ob);
	sim_run(s);
	const struct sim_counters *k = sim_counters(s);
	assert_true(sim_done(s));
	assert_int_equal(k->now, 1000);
	assert_int_equal(k->stuck, 2);
	assert_int_equal(k->carry_jobs, 2);
	expect_run(s, 1, 20, 30, 0);
	struct sim_job_result r = res(s, 0);
	assert_int_equal(r.state, SIM_JOB_RUNNING);
	assert_true(r.rate == 0 && r.work_left == 90);
	assert_int_equal(res(s, 2).state, SIM_JOB_QUEUED);
	assert_true(ser.n < 2 * 200);
	/* the window's buckets account for all of it: the GPU stalled from 10 to 1000 */
	struct sim_bucket_ms b;
	sim_buckets(k, 1, &b);
	int m = gpumodel_find("T4");
	assert_int_equal(b.ms[m][JOB_TRAIN][SIM_B_STALLED], 990 * 1000);
	assert_int_equal(b.ms[m][JOB_TRAIN][SIM_B_PRODUCTIVE], 10 * 1000);
	sim_free(s);
	metrics_series_release(&ser);
	job_set_release(&js);
}

/* A job whose end is past the horizon never ends in the run (4e18 s: the run went there and
 * its GPU-ms integrals wrapped negative); with nothing else to come, the run stops. */
static void test_endless_job_stops(void **state)
{
	(void)state;
	struct job_set js = {0};
	struct sim_opts o;
	add_node(&js, "n0", "T4", 1, 4000, 1000, 1000);
	add_job(&js, 0, 4000000000000000000, 1000, 1, 1000, JOB_TRAIN);
	add_job(&js, 0, 10, 1000, 0, 0, JOB_CPU);
	sim_opts_init(&o);
	struct sim *s = run(&js, &ff_ops, &o);
	const struct sim_counters *k = sim_counters(s);
	assert_int_equal(k->stuck, 1);
	assert_int_equal(k->carry_jobs, 1);
	assert_true(k->w1 <= INT64_MAX / 4 && k->now == k->w1); /* the window is cut there */
	int m = gpumodel_find("T4");
	assert_true(k->alloc_ms[m] == 1000 * (k->now - k->t0));
	sim_free(s);
	/* with a window of its own, the run stops at the window's end */
	o.win_end = 500;
	s = run(&js, &ff_ops, &o);
	assert_int_equal(sim_counters(s)->now, 500);
	assert_int_equal(sim_counters(s)->stuck, 1);
	sim_free(s);
	job_set_release(&js);
}

/* Inflation draws until the requested GPU reaches the target: a trace whose jobs ask for no
 * GPU never gets there, and one that takes more than SIM_MAX_DRAWS (2^25) on average is
 * refused too, before a draw. */
static void test_inflation_that_cannot_reach_its_target(void **state)
{
	(void)state;
	struct job_set js = {0};
	struct sim_opts o;
	struct err e = {0};
	struct sim *s;
	add_node(&js, "n0", "T4", 8, 64000, 1000, 1000);
	for (int i = 0; i < 5000; i++)
		add_job(&js, i, 10, 1000, 0, 0, JOB_CPU);
	sim_opts_init(&o);
	o.mode = SIM_INFLATE;
	assert_int_equal(sim_new(&js, &ff_ops, NULL, &o, &s, &e), VF_EINPUT);
	assert_null(s);
	assert_non_null(strstr(e.msg, "inflation: no job of the trace asks for a GPU"));
	/* one GPU job of 1 milli-GPU in 5001: 1.3 x 8000 x 5001 draws on average */
	add_job(&js, 5000, 10, 1000, 1, 1, JOB_TRAIN);
	assert_int_equal(sim_new(&js, &ff_ops, NULL, &o, &s, &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "more than 33554432"));
	/* within reach: the run draws until it gets there */
	o.target = 0.0001;
	s = run(&js, &ff_ops, &o);
	assert_true((double)sim_counters(s)->requested_gpu >= 0.0001 * 8000);
	sim_free(s);
	job_set_release(&js);
}

/* ---- a random workload: invariants, determinism, classes, forks ---- */

/* copies x six nodes (named a0, a1, b0, b1, c0, a2 in the first copy, with a suffix in the
 * others) and njobs random jobs arriving every 10 s on average, divided by copies */
static void random_set_wide(struct job_set *js, uint64_t seed, int njobs, int copies)
{
	struct rng r;
	memset(js, 0, sizeof *js);
	rng_seed(&r, seed);
	for (int k = 0; k < copies; k++) {
		static const char *const names[] = {"a0", "a1", "b0", "b1", "c0", "a2"};
		char nm[6][16];
		for (int i = 0; i < 6; i++)
			snprintf(nm[i], sizeof nm[i], k ? "%s.%d" : "%s", names[i], k);
		add_node(js, nm[0], "T4", 8, 64000, 1000, 800);
		add_node(js, nm[1], "T4", 8, 64000, 1000, 800);
		add_node(js, nm[2], "A100", 2, 32000, 2000, 1000);
		add_node(js, nm[3], "A100", 2, 32000, 2000, 1000);
		add_node(js, nm[4], NULL, 0, 96000, 1000, 1000);
		add_node(js, nm[5], "T4", 8, 64000, 1000, 800);
	}
	int64_t t = 0;
	for (int i = 0; i < njobs; i++) {
		t += (int64_t)rng_below(&r, (uint64_t)(20 / copies + 1));
		int kind = (int)rng_below(&r, 10);
		int ngpu = kind < 4 ? 1 : kind < 6 ? 1 + (int)rng_below(&r, 4) : kind < 7 ? 8 : 0;
		int milli = kind < 4 ? 100 * (1 + (int)rng_below(&r, 9)) : 1000;
		/* one draw a statement: the order of call arguments is the compiler's */
		int64_t dur = 1 + (int64_t)rng_below(&r, 400);
		int64_t cpu = 1000 * (1 + (int64_t)rng_below(&r, 16));
		int cls = (int)rng_below(&r, JOB_NCLASS);
		struct job *j = add_job(js, t, dur, cpu, ngpu, milli, cls);
		j->dem[DIM_NET] = (int64_t)rng_below(&r, 400);
		j->dem[DIM_STO] = (int64_t)rng_below(&r, 300);
		if (rng_below(&r, 50) == 0)
			j->dem[DIM_CPU] = 200000; /* never fits */
		if (rng_below(&r, 40) == 0) {
			j->flags = JOB_F_NOTRAN;
			j->duration = -1;
		}
		if (ngpu && rng_below(&r, 10) == 0)
			j->gpu_spec = 1u << gpumodel_find("A100");
	}
}

static void random_set(struct job_set *js, uint64_t seed, int njobs)
{
	random_set_wide(js, seed, njobs, 1);
}

static int invariant_breaks;
static void check_hard(void *u, const struct sim *s, int64_t t, int32_t job,
		       const struct placement *p)
{
	(void)u, (void)t, (void)job, (void)p;
	const struct cluster *c = sim_cluster(s);
	for (size_t n = 0; n < c->n; n++) {
		for (int d = 0; d < DIM_N; d++)
			if ((DIMS_HARD & DIM_BIT(d)) && c->st[n].used[d] > c->st[n].cap[d])
				invariant_breaks++;
		for (int g = 0; g < c->spec[n].ngpu; g++)
			if (c->st[n].gpu_free[g] < 0 || c->st[n].gpu_free[g] > 1000 ||
			    c->st[n].hbm_free[g] < 0)
				invariant_breaks++;
	}
}

static void test_invariants_every_discipline(void **state)
{
	(void)state;
	struct job_set js;
	struct fault f[2];
	random_set(&js, 42, 600);
	assert_int_equal(fault_parse("a0:net=0.3@500+2h", &f[0], NULL), 0);
	assert_int_equal(fault_parse("A100:sto=0.2@1000+1h", &f[1], NULL), 0);
	for (int q = 0; q < 4; q++) {
		struct sim_opts o;
		struct sim *s;
		sim_opts_init(&o);
		o.queue = q == 3 ? SIM_PRIORITY : (enum sim_queue)q;
		o.preempt = q == 3;
		o.faults = f;
		o.nfaults = 2;
		assert_int_equal(sim_new(&js, q & 1 ? &fit_ops : &ff_ops, NULL, &o, &s, NULL), 0);
		struct sim_observer ob = {.on_place = check_hard};
		invariant_breaks = 0;
		sim_observe(s, &ob);
		sim_run(s);
		assert_int_equal(invariant_breaks, 0);
		int64_t fin = 0, unpl = 0, skip = 0;
		for (size_t i = 0; i < sim_njobs(s); i++) {
			struct sim_job_result r = res(s, i);
			if (r.state == SIM_JOB_FINISHED) {
				fin++;
				assert_true(r.end - r.start >= r.t_alone);
				assert_true(r.start >= r.submit);
			} else if (r.state == SIM_JOB_UNPLACEABLE) {
				unpl++;
				assert_true(r.why == SIM_WHY_MODEL || r.why == SIM_WHY_TOO_BIG);
			} else {
				assert_int_equal(r.state, SIM_JOB_SKIPPED);
				skip++;
			}
		}
		assert_int_equal(fin + unpl + skip, 600);
		assert_true(unpl > 0 && skip > 0);
		struct metrics m;
		metrics_compute(s, NULL, &m);
		int64_t sum = 0;
		for (int b = 0; b < SIM_NBUCKET; b++) {
			assert_true(m.bucket_ms[b] >= 0);
			sum += m.bucket_ms[b];
		}
		assert_int_equal(sum, m.provisioned_ms);
		assert_int_equal(m.provisioned_ms, (int64_t)(3 * 8 + 2 * 2) * 1000 * (m.w1 - m.w0));
		assert_true(m.bucket_ms[SIM_B_STALLED] > 0); /* the workload oversubscribes net */
		if (q == 3)
			assert_true(sim_counters(s)->preemptions > 0);
		sim_free(s);
	}
	job_set_release(&js);
}

static void assert_same_results(const struct sim *a, const struct sim *b)
{
	assert_int_equal(sim_njobs(a), sim_njobs(b));
	for (size_t i = 0; i < sim_njobs(a); i++) {
		/* filled in place: a struct returned by value need not keep its padding */
		struct sim_job_result x, y;
		sim_job_result(a, i, &x);
		sim_job_result(b, i, &y);
		if (memcmp(&x, &y, sizeof x))
			fail_msg("job %zu differs: node %d/%d start %lld/%lld end %lld/%lld", i,
				 x.node, y.node, (long long)x.start, (long long)y.start,
				 (long long)x.end, (long long)y.end);
	}
	/* the same but for the search's work */
	struct sim_counters ka = *sim_counters(a), kb = *sim_counters(b);
	ka.scored = kb.scored = 0;
	assert_memory_equal(&ka, &kb, sizeof ka);
}

static void test_deterministic_and_classes_exact(void **state)
{
	(void)state;
	struct job_set js;
	struct sim_opts o;
	random_set(&js, 7, 500);
	sim_opts_init(&o);
	o.queue = SIM_BACKFILL;
	struct sim *a = run(&js, &fit_ops, &o), *b = run(&js, &fit_ops, &o);
	assert_same_results(a, b);
	/* Scoring one node per class of identical nodes picks what scoring all of them does. */
	struct sim *c = run(&js, &fit_ops_slow, &o);
	assert_same_results(a, c);
	sim_free(a);
	sim_free(b);
	sim_free(c);
	job_set_release(&js);
}

/* ---- what the sim hands a policy ---- */

static int probe_calls, probe_bad;
/* Checks ctx->node_md (the sim's per-node measure over all dims, up to date) and
 * ctx->job_of (the jobs on a node add up to what it uses); scores like first-fit. */
static double probe_score(const struct policy_ctx *ctx, const struct job *j,
			  const struct placement *p)
{
	(void)j;
	const struct node_state *st = &ctx->c->st[p->node];
	probe_calls++;
	if (!ctx->node_md || !ctx->node_nofit || !ctx->job_of) {
		probe_bad++;
		return 0;
	}
	double md, nofit;
	frag_node_both(ctx->c, (size_t)p->node, ctx->wl, DIMS_ALL, &md, &nofit);
	if (ctx->node_md[p->node] != frag_node_md(ctx->c, (size_t)p->node, ctx->wl, DIMS_ALL) ||
	    ctx->node_md[p->node] != md || ctx->node_nofit[p->node] != nofit)
		probe_bad++;
	int64_t cpu = 0, gpu = 0;
	for (int32_t i = 0; i < st->njobs; i++) {
		const struct job *o = ctx->job_of(ctx->job_of_u, st->jobs[i]);
		cpu += o->dem[DIM_CPU];
		gpu += o->num_gpu > 0 ? (int64_t)o->num_gpu * o->gpu_milli : 0;
	}
	if (cpu != st->used[DIM_CPU] || gpu != st->used[DIM_GPU])
		probe_bad++;
	return 0;
}
static const struct policy_ops probe_ops = {.name = "t-probe",
					    .summary = "",
					    .dims = DIMS_ALL,
					    .flags = POLICY_F_NODE_MD,
					    .score = probe_score};

static void test_ctx_node_md_and_job_of(void **state)
{
	(void)state;
	struct job_set js;
	struct frag_workload wl;
	struct sim_opts o;
	struct sim *s;
	random_set(&js, 5, 300);
	frag_workload_build(&wl, js.jobs, js.njobs, 0.95);
	sim_opts_init(&o);
	o.queue = SIM_BACKFILL;
	assert_int_equal(sim_new(&js, &probe_ops, &wl, &o, &s, NULL), 0);
	probe_calls = probe_bad = 0;
	sim_run(s);
	assert_true(probe_calls > 100);
	assert_int_equal(probe_bad, 0);
	sim_free(s);
	frag_workload_release(&wl);
	job_set_release(&js);
}

/* Priority with preemption on an overloaded cluster: passes that follow mere arrivals try
 * only the new jobs (schedule_fresh), and a preemption among them resumes a full pass. The
 * outcome must be what a full pass at every event gives: the same jobs preempted and run
 * where the hand-checked rules say, and every job accounted for. */
static void test_preempt_overload_accounting(void **state)
{
	(void)state;
	struct job_set js = {0};
	struct rng r;
	struct sim_opts o;
	rng_seed(&r, 3);
	add_node(&js, "n0", "T4", 4, 32000, 1000, 1000);
	add_node(&js, "n1", "T4", 4, 32000, 1000, 1000);
	int64_t t = 0;
	for (int i = 0; i < 400; i++) {
		t += (int64_t)rng_below(&r, 3);
		int64_t dur = 50 + (int64_t)rng_below(&r, 200);
		int ngpu = 1 + (int)rng_below(&r, 2);
		add_job(&js, t, dur, 2000, ngpu, 1000, (int)rng_below(&r, JOB_NCLASS));
	}
	sim_opts_init(&o);
	o.queue = SIM_PRIORITY;
	o.preempt = 1;
	struct sim *a = run(&js, &fit_ops, &o), *b = run(&js, &fit_ops_slow, &o);
	assert_same_results(a, b);
	const struct sim_counters *k = sim_counters(a);
	assert_true(k->preemptions > 0);
	assert_int_equal(k->finished, 400);
	/* a preempted job restarted later than it first started, and never ran alongside more
	 * GPUs than the cluster has (the invariant observer below) */
	invariant_breaks = 0;
	struct sim *c;
	assert_int_equal(sim_new(&js, &ff_ops, NULL, &o, &c, NULL), 0);
	struct sim_observer ob = {.on_place = check_hard};
	sim_observe(c, &ob);
	sim_run(c);
	assert_int_equal(invariant_breaks, 0);
	assert_int_equal(sim_counters(c)->finished, 400);
	sim_free(a);
	sim_free(b);
	sim_free(c);
	job_set_release(&js);
}

/* ops scoring every node: no classes, no bound. */
static struct policy_ops full_loop(const struct policy_ops *ops)
{
	struct policy_ops full = *ops;
	full.flags &= POLICY_F_IO_ADMIT; /* admission is feasibility, not search */
	full.bound = NULL;
	return full;
}

/* o for one of the queue cases the search tests run: priority also preempts and has fault
 * f. */
static void queue_case(struct sim_opts *o, enum sim_queue queue, const struct fault *f)
{
	sim_opts_init(o);
	o->queue = queue;
	o->preempt = queue == SIM_PRIORITY;
	o->faults = o->preempt ? f : NULL;
	o->nfaults = (size_t)o->preempt;
}

/* A policy with its own target workload (fgd-pack: every shape, allowed-model-only) places by
 * it; the run's fragmentation stays over the scenario's workload; a fork that switches to the
 * policy builds it. Node 0 has 4 A100s, node 1 4 T4s; 4 of the 5 jobs want an A100. The
 * paper's measure counts the A100 shape against the T4 node, so a whole GPU placed there
 * lowers its F_n by 0.8 x 1000 and fgd takes node 1 for the unconstrained job; allowed-
 * model-only, neither node's F_n changes, and only fgd-pack's reservation term (8 x 0.8 x
 * 1000 off on the T4 node) keeps the A100s, which the constrained jobs fill, for them. */
static void test_policy_own_target(void **state)
{
	(void)state;
	struct job_set js;
	memset(&js, 0, sizeof js);
	add_node(&js, "a", "A100", 4, 64000, 1000, 1000);
	add_node(&js, "t", "T4", 4, 64000, 1000, 1000);
	add_job(&js, 0, 1000, 1000, 1, 1000, 0);
	for (int i = 0; i < 4; i++)
		add_job(&js, 1 + i, 1000, 1000, 1, 1000, 0)->gpu_spec = 1u << gpumodel_find("A100");
	struct frag_workload wl;
	frag_workload_build(&wl, js.jobs, js.njobs, 0.95);
	assert_int_equal(wl.n, 2);
	const struct policy_ops *fp = policy_find("fgd-pack");
	assert_non_null(fp->state); /* its own workload is its state */
	struct sim_opts o;
	sim_opts_init(&o);
	struct sim *a, *b, *f;
	struct sim_job_result r;
	assert_int_equal(sim_new(&js, policy_find("fgd"), &wl, &o, &a, NULL), 0);
	assert_int_equal(sim_new(&js, fp, &wl, &o, &b, NULL), 0);
	assert_int_equal(sim_fork(a, fp, NULL, &f, NULL), 0);
	sim_run(a);
	sim_run(b);
	sim_run(f);
	sim_job_result(a, 0, &r);
	assert_int_equal(r.node, 1);
	sim_job_result(b, 0, &r);
	assert_int_equal(r.node, 1);
	sim_job_result(f, 0, &r);
	assert_int_equal(r.node, 1);
	/* that is the reservation term's doing: --fgd-pack-reserve 0 reaches the policy through
	 * the scenario and replay's options, and the job takes the A100 node */
	struct scenario sc;
	struct sim_opts o0;
	struct sim *g;
	struct err e = {0};
	scenario_init(&sc);
	assert_int_equal(scenario_set(&sc, SCENARIO_K_FP_RESERVE, "0", &e), 0);
	replay_sim_opts(&sc, 1, &o0);
	assert_true(o0.param[POLICY_P_FGD_PACK_RESERVE] == 0);
	assert_true(o0.param[POLICY_P_FGD_PACK_TOL] == POLICY_FGD_PACK_TOL);
	assert_int_equal(sim_new(&js, fp, &wl, &o0, &g, NULL), 0);
	sim_run(g);
	sim_job_result(g, 0, &r);
	assert_int_equal(r.node, 0);
	sim_free(g);
	scenario_release(&sc);
	/* empty again at the end: over the scenario's workload the T4 node strands its 4000
	 * free milli for the A100 shape (4/5 of the jobs); allowed-model-only it would be 0 */
	for (int k = 0; k < 3; k++) {
		const struct sim *x = k == 0 ? a : k == 1 ? b : f;
		assert_true(fabs(sim_node_frag(x)[1] - 4000.0 * 4 / 5) < 1e-6);
		assert_true(fabs(sim_node_frag(x)[1] - frag_node(sim_cluster(x), 1, &wl)) < 1e-9);
	}
	sim_free(a);
	sim_free(b);
	sim_free(f);
	frag_workload_release(&wl);
	job_set_release(&js);
}

/* The bounded class search (the bound() of fgd, ragp, scalar, tetris, best-fit, dotprod and
 * packing: classes scored in bound order until none can beat the best) picks what the full
 * score loop over every node picks. */
static void test_bounded_search_matches_full_loop(void **state)
{
	(void)state;
	static const char *const names[] = {"fgd",     "ragp7",     "ragp5",    "fgd-pack",
					    "scalar",  "tetris",    "best-fit", "dotprod",
					    "packing", "clustering"};
	struct job_set js;
	struct frag_workload wl;
	random_set(&js, 11, 500);
	frag_workload_build(&wl, js.jobs, js.njobs, 0.95);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const struct policy_ops *ops = policy_find(names[i]);
		assert_non_null(ops);
		assert_non_null(ops->bound);
		struct policy_ops full = full_loop(ops);
		struct fault f;
		assert_int_equal(fault_parse("a0:net=0.3@500+2h", &f, NULL), 0);
		for (enum sim_queue q = SIM_FIFO; q <= SIM_PRIORITY; q++) {
			struct sim_opts o;
			struct sim *a, *b;
			queue_case(&o, q, &f);
			assert_int_equal(sim_new(&js, ops, &wl, &o, &a, NULL), 0);
			assert_int_equal(sim_new(&js, &full, &wl, &o, &b, NULL), 0);
			sim_run(a);
			sim_run(b);
			assert_same_results(a, b);
			assert_true(sim_counters(a)->placed > 300);
			sim_free(a);
			sim_free(b);
		}
	}
	/* A fork that switches to ragp5 (its multi-dim measure over its own dims is built for
	 * the fork) still picks what the full loop picks. */
	const struct policy_ops *r5 = policy_find("ragp5");
	struct policy_ops full5 = full_loop(r5);
	struct sim_opts o;
	struct sim *a, *f1, *f2;
	sim_opts_init(&o);
	o.queue = SIM_BACKFILL;
	assert_int_equal(sim_new(&js, policy_find("fgd"), &wl, &o, &a, NULL), 0);
	assert_int_equal(sim_run_until(a, js.jobs[200].arrival), 1);
	assert_int_equal(sim_fork(a, r5, NULL, &f1, NULL), 0);
	assert_int_equal(sim_fork(a, &full5, NULL, &f2, NULL), 0);
	sim_run(f1);
	sim_run(f2);
	assert_same_results(f1, f2);
	sim_free(a);
	sim_free(f1);
	sim_free(f2);
	frag_workload_release(&wl);
	job_set_release(&js);
}

/* --scoring k8s: on nodes named in index order the class search (fgd's bound through the
 * plugin's integer map) picks what the scan of every node picks, in every queue case and in
 * inflation (first-fit too, whose pick() k8s never calls); with the names reversed the scan
 * follows the names. */
static void test_k8s_class_search_matches_scan(void **state)
{
	(void)state;
	static const char *const names[] = {"fgd",      "dotprod",   "packing", "best-fit",
					    "fgd-pack", "first-fit", "scalar",  "tetris"};
	struct job_set js;
	struct frag_workload wl;
	random_set(&js, 12, 500);
	for (size_t n = 0; n < js.nnodes; n++)
		snprintf(js.nodes[n].name, sizeof js.nodes[n].name, "n%02zu", n);
	frag_workload_build(&wl, js.jobs, js.njobs, 0.95);
	struct fault f;
	assert_int_equal(fault_parse("n00:net=0.3@500+2h", &f, NULL), 0);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const struct policy_ops *ops = policy_find(names[i]);
		assert_non_null(ops);
		struct policy_ops full = full_loop(ops);
		for (int q = SIM_FIFO; q <= SIM_PRIORITY + 1; q++) {
			struct sim_opts o;
			struct sim *a, *b;
			queue_case(&o, q <= SIM_PRIORITY ? (enum sim_queue)q : SIM_FIFO, &f);
			if (q > SIM_PRIORITY)
				o.mode = SIM_INFLATE;
			o.scoring = SIM_SCORING_K8S;
			assert_int_equal(sim_new(&js, ops, &wl, &o, &a, NULL), 0);
			assert_int_equal(sim_new(&js, &full, &wl, &o, &b, NULL), 0);
			sim_run(a);
			sim_run(b);
			assert_same_results(a, b);
			assert_true(sim_counters(a)->placed > (q > SIM_PRIORITY ? 5 : 300));
			sim_free(a);
			sim_free(b);
		}
	}
	frag_workload_release(&wl);
	job_set_release(&js);
}

/* --scoring k8s, first-fit: k8s never calls pick(), so its plugin searches by class as fgd's
 * does; on 20 copies of each node it scores under half the nodes the scan does (it scored every
 * feasible node: 6x fgd's time on openb inflation). */
static void test_k8s_first_fit_by_class(void **state)
{
	(void)state;
	struct job_set js;
	random_set_wide(&js, 12, 2000, 20);
	for (size_t n = 0; n < js.nnodes; n++)
		snprintf(js.nodes[n].name, sizeof js.nodes[n].name, "n%03zu", n);
	const struct policy_ops *ops = policy_find("first-fit");
	struct policy_ops full = full_loop(ops);
	struct sim_opts o;
	struct sim *a, *b;
	sim_opts_init(&o);
	o.scoring = SIM_SCORING_K8S;
	assert_int_equal(sim_new(&js, ops, NULL, &o, &a, NULL), 0);
	assert_int_equal(sim_new(&js, &full, NULL, &o, &b, NULL), 0);
	sim_run(a);
	sim_run(b);
	assert_same_results(a, b);
	assert_true(sim_counters(a)->placed > 1000);
	assert_true(sim_counters(a)->scored * 2 < sim_counters(b)->scored);
	sim_free(a);
	sim_free(b);
	job_set_release(&js);
}

/* Jobs placed on a node other than in b. */
static size_t moved_jobs(const struct sim *a, const struct sim *b)
{
	size_t moved = 0;
	for (size_t i = 0; i < sim_njobs(a); i++)
		moved += res(a, i).node != res(b, i).node;
	return moved;
}

/*
 * --sample-nodes: the bounded search over the sampled nodes picks what scoring every
 * sampled node picks (in a fork too, which goes on in the same sampling order); a repeat
 * gives the same; the choices differ from the full search's; a sample as large as the
 * cluster is the full search; and no node ever holds more than it has.
 */
static void test_sampled_search(void **state)
{
	(void)state;
	static const char *const names[] = {"fgd", "ragp7", "ragp5", "clustering"};
	struct job_set js;
	struct frag_workload wl;
	struct fault f;
	random_set_wide(&js, 13, 1500, 6);
	frag_workload_build(&wl, js.jobs, js.njobs, 0.95);
	assert_int_equal(fault_parse("a0.3:sto=0.2@900+3h", &f, NULL), 0);
	for (int i = 0; i < 4; i++) {
		const struct policy_ops *ops = policy_find(names[i]);
		struct policy_ops full = full_loop(ops); /* every sampled node scored */
		for (enum sim_queue q = SIM_BACKFILL; q <= SIM_PRIORITY; q++) {
			struct sim_opts o;
			struct sim *a, *b, *again, *exact;
			queue_case(&o, q, &f);
			o.sample_nodes = 5;
			invariant_breaks = 0;
			assert_int_equal(sim_new(&js, ops, &wl, &o, &a, NULL), 0);
			struct sim_observer ob = {.on_place = check_hard};
			sim_observe(a, &ob);
			assert_int_equal(sim_new(&js, &full, &wl, &o, &b, NULL), 0);
			assert_int_equal(sim_new(&js, ops, &wl, &o, &again, NULL), 0);
			sim_run(a);
			sim_run(b);
			sim_run(again);
			assert_int_equal(invariant_breaks, 0);
			assert_same_results(a, b);
			assert_same_results(a, again);
			assert_true(sim_counters(a)->placed > 1000);
			o.sample_nodes = 0;
			assert_int_equal(sim_new(&js, ops, &wl, &o, &exact, NULL), 0);
			sim_run(exact);
			assert_true(moved_jobs(a, exact) > 100);
			sim_free(b);
			o.sample_nodes = (uint32_t)js.nnodes;
			assert_int_equal(sim_new(&js, ops, &wl, &o, &b, NULL), 0);
			sim_run(b);
			assert_same_results(b, exact);
			sim_free(a);
			sim_free(b);
			sim_free(again);
			sim_free(exact);
		}
	}
	const struct policy_ops *r7 = policy_find("ragp7");
	struct policy_ops full7 = full_loop(r7);
	struct sim_opts o;
	struct sim *a, *f0, *f1, *f2;
	sim_opts_init(&o);
	o.queue = SIM_BACKFILL;
	o.sample_nodes = 4;
	assert_int_equal(sim_new(&js, policy_find("fgd"), &wl, &o, &a, NULL), 0);
	assert_int_equal(sim_run_until(a, js.jobs[700].arrival), 1);
	assert_int_equal(sim_fork(a, NULL, NULL, &f0, NULL), 0);
	assert_int_equal(sim_fork(a, r7, NULL, &f1, NULL), 0);
	assert_int_equal(sim_fork(a, &full7, NULL, &f2, NULL), 0);
	sim_run(a);
	sim_run(f0);
	sim_run(f1);
	sim_run(f2);
	assert_same_results(a, f0); /* the fork goes on in the same sampling order */
	assert_same_results(f1, f2);
	sim_free(a);
	sim_free(f0);
	sim_free(f1);
	sim_free(f2);
	frag_workload_release(&wl);
	job_set_release(&js);
}

/* A sample of one node still finds the only node a job fits on, wherever the walk starts,
 * and a job that fits on no node is still found unplaceable. */
static void test_sampled_finds_the_only_fit(void **state)
{
	(void)state;
	struct job_set js = {0};
	struct frag_workload wl;
	char name[16];
	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof name, "n%d", i);
		add_node(&js, name, i == 33 ? "T4" : NULL, i == 33 ? 4 : 0, 16000, 1000, 1000);
	}
	for (int i = 0; i < 60; i++)
		add_job(&js, 100 * i, 50, 1000, 1 + i % 4, 1000, JOB_TRAIN);
	add_job(&js, 10000, 50, 1000, 8, 1000, JOB_TRAIN); /* more GPUs than any node has */
	frag_workload_build(&wl, js.jobs, js.njobs, 0.95);
	static const char *const names[] = {"ragp7", "tetris", "best-fit"};
	for (int p = 0; p < 3; p++) {
		struct sim_opts o;
		struct sim *s;
		sim_opts_init(&o);
		o.sample_nodes = 1;
		assert_int_equal(sim_new(&js, policy_find(names[p]), &wl, &o, &s, NULL), 0);
		sim_run(s);
		for (size_t i = 0; i < 60; i++) {
			struct sim_job_result r = res(s, i);
			assert_int_equal(r.state, SIM_JOB_FINISHED);
			assert_int_equal(r.node, 33);
			assert_int_equal(r.start, js.jobs[i].arrival);
		}
		assert_int_equal(res(s, 60).state, SIM_JOB_UNPLACEABLE);
		sim_free(s);
	}
	frag_workload_release(&wl);
	job_set_release(&js);
}

/* The bounds of fgd, ragp, scalar, tetris, best-fit, dotprod, packing and clustering (with
 * its state) never exceed the score of any choice on the node, in every state a replay goes
 * through: with faults, preemption, and --dims. ragp's bound reads the record the sim keeps
 * of the node (policy_ops.prep): it must be what a record made afresh gives. */
static const struct policy_ops *bound_real;
static long bound_checks, bound_bad, bound_stale, batch_checks, batch_bad;
static double bound_check_score(const struct policy_ctx *ctx, const struct job *j,
				const struct placement *p)
{
	double sc = bound_real->score(ctx, j, p);
	bound_checks++;
	double b = bound_real->bound(ctx, j, (size_t)p->node);
	if (b > sc)
		bound_bad++;
	if (bound_real->prep && !ctx->node_prep)
		bound_stale++; /* the sim keeps no record for it */
	if (ctx->node_prep) {
		struct policy_ctx fresh = *ctx;
		fresh.node_prep = NULL;
		if (bound_real->bound(&fresh, j, (size_t)p->node) != b)
			bound_stale++;
	}
	if (ctx->node_prep && bound_real->bound_recs) {
		/* many records in one call: each the double bound() gives on its node */
		int32_t pos[3] = {0, p->node, (int32_t)ctx->c->n - 1};
		double out[3];
		bound_real->bound_recs(ctx, j, ctx->node_prep, pos, 3, out);
		for (int i = 0; i < 3; i++)
			batch_bad += out[i] != bound_real->bound(ctx, j, (size_t)pos[i]);
		batch_checks++;
	}
	return sc;
}

static void test_bounds_never_exceed_scores(void **state)
{
	(void)state;
	static const char *const names[] = {"fgd",      "ragp7",   "ragp5",   "scalar",    "tetris",
					    "best-fit", "dotprod", "packing", "clustering"};
	struct job_set js;
	struct frag_workload wl;
	struct fault f[2];
	random_set(&js, 23, 1200);
	frag_workload_build(&wl, js.jobs, js.njobs, 0.95);
	assert_int_equal(fault_parse("a0:net=0.3@500+2h", &f[0], NULL), 0);
	assert_int_equal(fault_parse("A100:sto=0.2@1000+1h", &f[1], NULL), 0);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		bound_real = policy_find(names[i]);
		assert_non_null(bound_real);
		assert_non_null(bound_real->bound);
		/* every node scored (no classes), with what the sim keeps for the policy */
		struct policy_ops chk = {.name = "t-bound",
					 .summary = "",
					 .dims = bound_real->dims,
					 .flags = bound_real->flags & POLICY_F_NODE_MD,
					 .score = bound_check_score,
					 .state = bound_real->state,
					 .prep = bound_real->prep,
					 .prep_size = bound_real->prep_size};
		for (int v = 0; v < 3; v++) {
			struct sim_opts o;
			struct sim *s;
			sim_opts_init(&o);
			o.queue = v == 1 ? SIM_PRIORITY : SIM_BACKFILL;
			o.preempt = v == 1;
			o.faults = f;
			o.nfaults = 2;
			o.dims = v == 2 ? DIMS_ALL : 0; /* fgd then sees shared dims too */
			bound_checks = bound_bad = bound_stale = batch_checks = batch_bad = 0;
			assert_int_equal(sim_new(&js, &chk, &wl, &o, &s, NULL), 0);
			sim_run(s);
			assert_true(bound_checks > 1000);
			assert_int_equal(bound_bad, 0);
			assert_int_equal(bound_stale, 0);
			assert_true(!bound_real->bound_recs || batch_checks > 1000);
			assert_int_equal(batch_bad, 0);
			sim_free(s);
		}
	}
	frag_workload_release(&wl);
	job_set_release(&js);
}

/* The bounds prune: the bounds of fgd, ragp, scalar, tetris, best-fit and dotprod leave
 * fewer nodes to score than the class search without them, and choose the same. */
static void test_bounds_prune(void **state)
{
	(void)state;
	static const char *const names[] = {"fgd",    "ragp7",    "scalar",
					    "tetris", "best-fit", "dotprod"};
	struct job_set js;
	struct frag_workload wl;
	random_set(&js, 31, 800);
	frag_workload_build(&wl, js.jobs, js.njobs, 0.95);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const struct policy_ops *ops = policy_find(names[i]);
		struct policy_ops none = *ops;
		none.bound = NULL;
		struct sim_opts o;
		struct sim *a, *c;
		sim_opts_init(&o);
		o.queue = SIM_BACKFILL;
		assert_int_equal(sim_new(&js, ops, &wl, &o, &a, NULL), 0);
		assert_int_equal(sim_new(&js, &none, &wl, &o, &c, NULL), 0);
		sim_run(a);
		sim_run(c);
		assert_same_results(a, c);
		assert_true(sim_counters(a)->scored < sim_counters(c)->scored);
		sim_free(a);
		sim_free(c);
	}
	frag_workload_release(&wl);
	job_set_release(&js);
}

/* The keys of scalar and tetris (policy_ops.bound_keys: the class with the least key is
 * scored first and only the classes whose key is not above that score are bounded) leave
 * the choices as they are without keys and in the full loop, whether gpu is seen or not,
 * on two copies of the nodes (many classes) and with a fault. */
static void test_keys_match_full_loop(void **state)
{
	(void)state;
	static const char *const names[] = {"scalar", "tetris"};
	static const uint32_t dims[] = {0, DIMS_ALL, DIM_BIT(DIM_CPU) | DIM_BIT(DIM_MEM)};
	struct job_set js;
	struct frag_workload wl;
	random_set_wide(&js, 41, 700, 2);
	frag_workload_build(&wl, js.jobs, js.njobs, 0.95);
	struct fault f;
	assert_int_equal(fault_parse("a0:net=0.3@500+2h", &f, NULL), 0);
	for (size_t x = 0; x < sizeof names / sizeof *names; x++)
		for (size_t d = 0; d < sizeof dims / sizeof *dims; d++)
			for (enum sim_queue q = SIM_FIFO; q <= SIM_PRIORITY; q++) {
				const struct policy_ops *ops = policy_find(names[x]);
				assert_non_null(ops->bound_keys);
				struct policy_ops nokeys = *ops, full = full_loop(ops);
				nokeys.bound_keys = NULL;
				struct sim_opts o;
				struct sim *a, *b, *c;
				queue_case(&o, q, &f);
				o.dims = dims[d];
				assert_int_equal(sim_new(&js, ops, &wl, &o, &a, NULL), 0);
				assert_int_equal(sim_new(&js, &nokeys, &wl, &o, &b, NULL), 0);
				assert_int_equal(sim_new(&js, &full, &wl, &o, &c, NULL), 0);
				sim_run(a);
				sim_run(b);
				sim_run(c);
				assert_same_results(a, b);
				assert_same_results(a, c);
				assert_true(sim_counters(a)->placed > 400);
				sim_free(a);
				sim_free(b);
				sim_free(c);
			}
	frag_workload_release(&wl);
	job_set_release(&js);
}

/* The class search (t-fit, t-tie) chooses what the full loop chooses, and all n jobs end. */
static void assert_index_exact(const struct job_set *js, const struct sim_opts *o, int64_t n)
{
	const struct policy_ops *fast[] = {&fit_ops, &tie_ops},
				*slow[] = {&fit_ops_slow, &tie_ops_slow};
	for (int p = 0; p < 2; p++) {
		struct sim *a = run(js, fast[p], o), *b = run(js, slow[p], o);
		assert_same_results(a, b);
		assert_true(sim_counters(a)->finished == n);
		sim_free(a);
		sim_free(b);
	}
}

/* Many jobs of few shapes on many identical nodes: the per-shape indexes are reused, classes
 * gain and lose their lowest node, ties abound. Choices must still be the full loop's. */
static void test_class_index_exact_under_reuse(void **state)
{
	(void)state;
	struct job_set js = {0};
	struct rng r;
	struct sim_opts o;
	rng_seed(&r, 99);
	for (int i = 0; i < 24; i++) {
		char name[16];
		snprintf(name, sizeof name, "n%02d", i);
		add_node(&js, name, i < 16 ? "T4" : "A100", i < 16 ? 4 : 8, 32000, 1000, 1000);
	}
	static const int shapes[][3] = {{1, 250, 2000},  {1, 500, 4000}, {1, 1000, 4000},
					{2, 1000, 8000}, {0, 0, 2000},   {4, 1000, 16000}};
	int64_t t = 0;
	for (int i = 0; i < 3000; i++) {
		const int *sh = shapes[rng_below(&r, 6)];
		t += (int64_t)rng_below(&r, 6);
		add_job(&js, t, 20 + (int64_t)rng_below(&r, 300), sh[2], sh[0], sh[1], JOB_TRAIN);
	}
	sim_opts_init(&o);
	o.queue = SIM_BACKFILL;
	assert_index_exact(&js, &o, 3000);
	job_set_release(&js);
}

/* Long runs on identical nodes: a shape's index piles up entries of classes since dead and
 * repeated ones (a class whose lowest node went down is logged again) until it is compacted,
 * many times over. Compaction keeps one entry per class, with the class's lowest node now:
 * choices must still be the full loop's. */
static void test_class_index_exact_after_compaction(void **state)
{
	(void)state;
	struct job_set js = {0};
	struct rng r;
	struct sim_opts o;
	rng_seed(&r, 7);
	for (int i = 0; i < 48; i++) {
		char name[16];
		snprintf(name, sizeof name, "n%02d", i);
		add_node(&js, name, "A100", 8, 64000, 1000, 1000);
	}
	static const int shapes[][3] = {
		{1, 500, 2000}, {1, 1000, 4000}, {2, 1000, 8000}, {0, 0, 4000}, {4, 1000, 16000}};
	int64_t t = 0;
	for (int i = 0; i < 20000; i++) {
		const int *sh = shapes[rng_below(&r, 5)];
		t += (int64_t)rng_below(&r, 3);
		add_job(&js, t, 10 + (int64_t)rng_below(&r, 400), sh[2], sh[0], sh[1], JOB_TRAIN);
	}
	sim_opts_init(&o);
	assert_index_exact(&js, &o, 20000);
	job_set_release(&js);
}

/* How many nodes of s whose class's record (sim-class.h) is not the node's own record,
 * byte for byte; -1 when the class search keeps no records. */
static long class_recs_off(const struct sim *s)
{
	const struct sim_classes *k = &s->pol.cls;
	if (!k->lrec || !s->pol.prep)
		return -1;
	size_t sz = s->pol.ops->prep_size;
	long off = 0;
	for (size_t n = 0; n < s->c.n; n++) {
		size_t pos = (size_t)k->hot[k->node_cls[n]].livepos;
		off += memcmp(sim_classes_rec(k, pos), s->pol.prep + n * sz, sz) != 0;
	}
	return off;
}

/* The class search bounds ragp's classes from copies of the policy's per-node records kept
 * per live class: at every step of runs with faults, preemption and --dims, and in a fork
 * that switches to ragp, each node's class holds the node's record (classes die and are
 * moved in the live list, nodes change class, records are filled after the classes). */
static void test_class_records_follow_nodes(void **state)
{
	(void)state;
	struct job_set js;
	struct frag_workload wl;
	struct fault f[2];
	random_set_wide(&js, 31, 1500, 3);
	frag_workload_build(&wl, js.jobs, js.njobs, 0.95);
	assert_int_equal(fault_parse("a0:net=0.3@500+2h", &f[0], NULL), 0);
	assert_int_equal(fault_parse("A100:sto=0.2@1000+1h", &f[1], NULL), 0);
	static const char *const names[] = {"ragp7", "ragp5"};
	for (int v = 0; v < 4; v++) {
		struct sim_opts o;
		struct sim *s, *fk = NULL;
		sim_opts_init(&o);
		o.queue = v == 1 ? SIM_PRIORITY : SIM_BACKFILL;
		o.preempt = v == 1;
		o.faults = f;
		o.nfaults = 2;
		o.dims = v == 2 ? DIMS_ALL : 0;
		const struct policy_ops *ops = policy_find(names[v & 1]);
		assert_int_equal(sim_new(&js, v == 3 ? policy_find("fgd") : ops, &wl, &o, &s, NULL),
				 0);
		long steps = 0;
		for (size_t i = 0; i < js.njobs; i += 50) {
			int more = sim_run_until(s, js.jobs[i].arrival);
			if (v == 3 && !fk && i >= 500) { /* from here on the fork is checked */
				assert_int_equal(sim_fork(s, ops, NULL, &fk, NULL), 0);
				sim_free(s);
				s = fk;
			}
			if (v < 3 || fk) {
				assert_int_equal(class_recs_off(s), 0);
				steps++;
			}
			if (!more)
				break;
		}
		sim_run(s);
		assert_int_equal(class_recs_off(s), 0);
		assert_true(steps > 10 && sim_counters(s)->placed > 1000);
		sim_free(s);
	}
	frag_workload_release(&wl);
	job_set_release(&js);
}

/* A shape asked once gets no index, however many distinct shapes came before (the table of
 * shapes asked before tells 3,000 apart: a byte counter per 4,096 slots took nearly a third
 * of them for shapes asked before, and built them indexes); a shape asked again gets one. */
static void test_class_index_only_for_shapes_asked_again(void **state)
{
	(void)state;
	struct job_set js = {0};
	struct frag_workload wl;
	struct sim_opts o;
	struct sim *s;
	for (int i = 0; i < 8; i++) {
		char name[16];
		snprintf(name, sizeof name, "n%d", i);
		add_node(&js, name, "A100", 8, 256000, 1000, 1000);
	}
	/* one job at a time (each ends before the next comes), each of its own cpu demand:
	 * each shape is asked once, in the first half; the second half asks them again */
	for (int i = 0; i < 6000; i++)
		add_job(&js, 10 * (int64_t)i, 5, 1000 + i % 3000, 1, 500, JOB_TRAIN);
	frag_workload_build(&wl, js.jobs, js.njobs, 0.95);
	sim_opts_init(&o);
	assert_int_equal(sim_new(&js, policy_find("ragp7"), &wl, &o, &s, NULL), 0);
	assert_int_equal(sim_run_until(s, js.jobs[2999].arrival + 8), 1);
	assert_int_equal(sim_counters(s)->placed, 3000);
	assert_int_equal(s->pol.cls.nkeys, 0);
	sim_run(s);
	assert_int_equal(sim_counters(s)->placed, 6000);
	assert_true(s->pol.cls.nkeys > 0);
	sim_free(s);
	frag_workload_release(&wl);
	job_set_release(&js);
}

/* A fork owns every part of its simulation: forked mid-run (priority with preemption,
 * contention on the shared dims, a fault, a policy with its own state; inflation too), the
 * fork runs to the end and is freed before its original goes on, and both give the fresh
 * run's results. A part the two shared (an array a clone forgot) would be changed, then
 * freed, under the original. */
/* A run of js under o, forked half way: the fork, run to the end and freed, then the run
 * itself, equal ref (a full run), so a part the fork shared or copied wrong would show. */
static void fork_half_way(const struct job_set *js, const struct policy_ops *ops,
			  const struct frag_workload *wl, const struct sim_opts *o,
			  const struct sim *ref)
{
	struct sim *a, *f;
	assert_int_equal(sim_new(js, ops, wl, o, &a, NULL), 0);
	/* half way, stepped: the clock stops at an event (sim_run_until's move of the clock to
	 * its time splits the integrals, which may round apart) */
	for (int64_t k = 0; k < sim_counters(ref)->events / 2; k++)
		assert_true(sim_step(a));
	assert_int_equal(sim_fork(a, NULL, NULL, &f, NULL), 0);
	sim_run(f);
	assert_same_results(f, ref);
	sim_free(f);
	sim_run(a);
	assert_same_results(a, ref);
	sim_free(a);
}

static void test_fork_owns_its_parts(void **state)
{
	(void)state;
	static const char *const names[] = {"clustering", "fgd-pack", "ragp5"};
	struct job_set js;
	struct frag_workload wl;
	struct fault ft;
	random_set(&js, 31, 600);
	frag_workload_build(&wl, js.jobs, js.njobs, 0.95);
	assert_int_equal(fault_parse("a0:net=0.3@500+2h", &ft, NULL), 0);
	for (int i = 0; i < 3; i++)
		for (int infl = 0; infl < 2; infl++) {
			const struct policy_ops *ops = policy_find(names[i]);
			struct sim_opts o;
			struct sim *ref;
			sim_opts_init(&o);
			o.mode = infl ? SIM_INFLATE : SIM_TIMED;
			o.target = 0.9;
			o.queue = SIM_PRIORITY;
			o.preempt = 1;
			o.faults = &ft;
			o.nfaults = 1;
			assert_int_equal(sim_new(&js, ops, &wl, &o, &ref, NULL), 0);
			sim_run(ref);
			if (!infl) { /* the parts that hold runs and preemptions are in use */
				assert_true(sim_counters(ref)->preemptions > 0);
				assert_true(sim_counters(ref)->stall_ms > 0);
			}
			fork_half_way(&js, ops, &wl, &o, ref);
			sim_free(ref);
		}
	frag_workload_release(&wl);
	job_set_release(&js);
}

static void test_fork_same_policy_matches(void **state)
{
	(void)state;
	struct job_set js;
	struct sim_opts o;
	struct sim *a, *f, *ref;
	random_set(&js, 11, 400);
	sim_opts_init(&o);
	o.queue = SIM_PRIORITY;
	o.preempt = 1;
	ref = run(&js, &fit_ops, &o);
	assert_int_equal(sim_new(&js, &fit_ops, NULL, &o, &a, NULL), 0);
	int64_t mid = js.jobs[200].arrival;
	sim_run_until(a, mid);
	assert_int_equal(sim_fork(a, NULL, NULL, &f, NULL), 0);
	struct sim_snapshot sa, sf;
	sim_snapshot(a, &sa);
	sim_snapshot(f, &sf);
	assert_int_equal(sa.now, mid);
	assert_int_equal(sf.nnodes, sa.nnodes);
	assert_memory_equal(sf.free, sa.free, sa.nnodes * sizeof *sa.free);
	assert_int_equal(sf.nqueued, sa.nqueued);
	assert_memory_equal(sf.queue, sa.queue, sa.nqueued * sizeof *sa.queue);
	assert_int_equal(sf.nrunning, sa.nrunning);
	assert_true(sa.nrunning > 0);
	assert_memory_equal(sf.running, sa.running, sa.nrunning * sizeof *sa.running);
	assert_memory_equal(&sf.counters, &sa.counters, sizeof sa.counters);
	sim_snapshot_release(&sa);
	sim_snapshot_release(&sf);
	sim_run(f);
	sim_run(a);
	assert_same_results(a, ref); /* forking did not disturb the original */
	assert_same_results(f, ref);
	sim_free(a);
	sim_free(f);
	sim_free(ref);
	job_set_release(&js);
}

/* A fork made at the start with a change gives exactly the run made with that change from
 * the start: the dims (and with them the search and I/O admission), the RAGP weights, the
 * queue discipline. */
static void test_fork_with_changes_from_the_start(void **state)
{
	(void)state;
	struct job_set js;
	struct frag_workload wl;
	const struct policy_ops *ragp = policy_find("ragp5");
	random_set(&js, 23, 300);
	assert_int_equal(frag_workload_build(&wl, js.jobs, js.njobs, 0.95), 0);
	for (int k = 0; k < 4; k++) {
		struct sim_opts o0, o1;
		struct sim_change ch;
		struct sim *a, *f, *ref;
		sim_opts_init(&o0);
		sim_change_init(&ch);
		o1 = o0;
		if (k == 0)
			o1.queue = SIM_BACKFILL, ch.queue = SIM_BACKFILL;
		else if (k == 1)
			o1.dims = ch.dims = DIMS_ALL; /* ragp5 comes to see sto and iocpu */
		else if (k == 2)
			o1.param[POLICY_P_LAMBDA] = ch.param[POLICY_P_LAMBDA] = 2,
			o1.param[POLICY_P_MU] = ch.param[POLICY_P_MU] = 1;
		else
			o1.queue = SIM_PRIORITY, o1.preempt = 1, ch.queue = SIM_PRIORITY,
			ch.preempt = 1;
		assert_int_equal(sim_new(&js, ragp, &wl, &o1, &ref, NULL), 0);
		sim_run(ref);
		assert_int_equal(sim_new(&js, ragp, &wl, &o0, &a, NULL), 0);
		assert_int_equal(sim_fork_with(a, NULL, NULL, &ch, &f, NULL), 0);
		sim_run(f);
		assert_same_results(f, ref);
		sim_free(a);
		sim_free(f);
		sim_free(ref);
	}
	frag_workload_release(&wl);
	job_set_release(&js);
}

/* A fork mid-run that changes the queue discipline and the dims puts the waiting jobs in
 * the new order and keeps every invariant: hard dims never overcommitted, every job ends
 * finished or unplaceable, and backfill lets some waiting job start that fifo held. */
static void test_fork_with_changes_mid_run(void **state)
{
	(void)state;
	struct job_set js;
	struct sim_opts o;
	struct sim_change ch;
	struct sim *a, *f;
	random_set(&js, 29, 400);
	sim_opts_init(&o);
	assert_int_equal(sim_new(&js, &fit_ops, NULL, &o, &a, NULL), 0);
	int64_t mid = js.jobs[200].arrival;
	sim_run_until(a, mid);
	struct sim_snapshot sa;
	sim_snapshot(a, &sa);
	sim_change_init(&ch);
	ch.queue = SIM_BACKFILL;
	ch.dims = DIMS_HARD;
	assert_int_equal(sim_fork_with(a, NULL, NULL, &ch, &f, NULL), 0);
	assert_int_equal(sim_options(f)->queue, SIM_BACKFILL);
	assert_int_equal(sim_options(a)->queue, SIM_FIFO);
	struct sim_observer ob = {.on_place = check_hard};
	invariant_breaks = 0;
	sim_observe(f, &ob);
	sim_step(f);
	struct sim_snapshot sf;
	sim_snapshot(f, &sf);
	assert_true(sf.nqueued <= sa.nqueued + 1); /* backfill starts what fifo held */
	sim_run(f);
	assert_int_equal(invariant_breaks, 0);
	for (size_t i = 0; i < sim_njobs(f); i++) {
		struct sim_job_result r = res(f, i);
		assert_true(r.state == SIM_JOB_FINISHED || r.state == SIM_JOB_UNPLACEABLE ||
			    r.state == SIM_JOB_SKIPPED);
	}
	sim_snapshot_release(&sa);
	sim_snapshot_release(&sf);
	sim_free(a);
	sim_free(f);
	job_set_release(&js);
}

static void test_fork_new_policy_diverges_after(void **state)
{
	(void)state;
	struct job_set js;
	struct sim_opts o;
	struct sim *a, *f;
	random_set(&js, 5, 400);
	sim_opts_init(&o);
	o.queue = SIM_BACKFILL;
	assert_int_equal(sim_new(&js, &ff_ops, NULL, &o, &a, NULL), 0);
	int64_t mid = js.jobs[150].arrival;
	assert_int_equal(sim_run_until(a, mid), 1);
	assert_int_equal(sim_counters(a)->now, mid);
	assert_int_equal(sim_fork(a, &last_ops, NULL, &f, NULL), 0);
	assert_ptr_equal(sim_policy(f), &last_ops);
	sim_run(a);
	sim_run(f);
	int diverged = 0;
	for (size_t i = 0; i < sim_njobs(a); i++) {
		struct sim_job_result x = res(a, i), y = res(f, i);
		if (x.start >= 0 && x.start < mid) {
			assert_int_equal(x.node, y.node);
			assert_int_equal(x.start, y.start);
		}
		if (x.node != y.node || x.start != y.start) {
			diverged++;
			assert_true(x.start >= mid && y.start >= mid);
		}
	}
	assert_true(diverged > 0);
	sim_free(a);
	sim_free(f);
	job_set_release(&js);
}

static void test_fork_with_fault(void **state)
{
	(void)state;
	struct job_set js = {0};
	struct sim_opts o;
	struct sim *a, *f;
	struct fault ft;
	struct err e = {0};
	add_node(&js, "n0", "T4", 1, 4000, 1000, 1000);
	add_job(&js, 0, 100, 100, 1, 1000, JOB_TRAIN)->dem[DIM_STO] = 800;
	sim_opts_init(&o);
	assert_int_equal(sim_new(&js, &ff_ops, NULL, &o, &a, NULL), 0);
	sim_run_until(a, 20);
	/* Began before the fork: effective from the fork's clock, 20 (10 s at 0.625). */
	assert_int_equal(fault_parse("n0:sto=0.5@10+40", &ft, NULL), 0);
	assert_int_equal(sim_fork(a, NULL, &ft, &f, &e), 0);
	size_t nf;
	sim_faults(f, &nf);
	assert_int_equal(nf, 1);
	sim_faults(a, &nf);
	assert_int_equal(nf, 0);
	sim_run(a);
	sim_run(f);
	expect_run(a, 0, 0, 100, 0);
	/* 20 done at 20; 30 s at 0.625 = 18.75 → 38.75 at 50; 61.25 left → ceil → 112. */
	expect_run(f, 0, 0, 112, 0);
	sim_free(f);
	assert_int_equal(fault_parse("zz:sto=0.5@10+40", &ft, NULL), 0);
	assert_int_equal(sim_fork(a, NULL, &ft, &f, &e), VF_EINPUT);
	assert_null(f);
	sim_free(a);
	job_set_release(&js);
}

static void test_step_and_snapshot(void **state)
{
	(void)state;
	struct job_set js;
	struct sim_opts o;
	struct sim *s;
	fifo_set(&js);
	sim_opts_init(&o);
	o.series_points = 0;
	assert_int_equal(sim_new(&js, &ff_ops, NULL, &o, &s, NULL), 0);
	assert_int_equal(sim_next_time(s), 0);
	assert_int_equal(sim_step(s), 1); /* job 0 arrives and starts */
	assert_int_equal(sim_next_time(s), 10);
	sim_run_until(s, 30);
	struct sim_snapshot snap;
	sim_snapshot(s, &snap);
	assert_int_equal(snap.now, 30);
	assert_int_equal(snap.nrunning, 2);
	assert_int_equal(snap.running[0], 0);
	assert_int_equal(snap.running[1], 1);
	assert_int_equal(snap.nqueued, 2); /* job 2 waits for a GPU, job 3 behind it */
	assert_int_equal(snap.queue[0], 2);
	assert_int_equal(snap.queue[1], 3);
	assert_int_equal(snap.free[0][DIM_GPU], 0);
	assert_int_equal(snap.free[0][DIM_CPU], 3000);
	assert_int_equal(snap.cap[1][DIM_NET], 1000);
	assert_int_equal(snap.counters.arrived, 4);
	sim_snapshot_release(&snap);
	sim_snapshot_release(NULL);
	int steps = 0;
	while (sim_step(s))
		steps++;
	assert_int_equal(steps, 4); /* finishes of 1, 2 (with 3 starting at 60), 3, 0 */
	assert_int_equal(sim_step(s), 0);
	assert_int_equal(sim_next_time(s), -1);
	sim_free(s);
	job_set_release(&js);
}

/* A long fifo queue whose head leaves while arrivals join it: jobs run one after the
 * other in arrival order, the queue's order holds at every point, and a fork taken in the
 * middle ends the same. */
static void test_long_fifo_queue_keeps_order(void **state)
{
	(void)state;
	struct job_set js = {0};
	struct sim_opts o;
	struct sim *s, *f;
	add_node(&js, "n0", "T4", 1, 4000, 1000, 1000);
	for (int i = 0; i < 200; i++) /* a burst: all at 0 */
		add_job(&js, 0, 1, 1000, 1, 1000, JOB_TRAIN);
	for (int i = 0; i < 200; i++) /* then one a second, while the burst drains */
		add_job(&js, 100 + i, 1, 1000, 1, 1000, JOB_TRAIN);
	sim_opts_init(&o);
	o.series_points = 0;
	assert_int_equal(sim_new(&js, &ff_ops, NULL, &o, &s, NULL), 0);
	sim_run_until(s, 150);
	struct sim_snapshot snap;
	sim_snapshot(s, &snap);
	assert_int_equal(snap.nrunning, 1);
	assert_int_equal(snap.running[0], 150);
	assert_int_equal(snap.nqueued, 100);
	for (size_t k = 0; k < snap.nqueued; k++)
		assert_int_equal(snap.queue[k], 151 + (int32_t)k);
	sim_snapshot_release(&snap);
	assert_int_equal(sim_fork(s, NULL, NULL, &f, NULL), 0);
	sim_run(s);
	sim_run(f);
	for (size_t i = 0; i < js.njobs; i++)
		expect_run(s, i, (int64_t)i, (int64_t)i + 1, 0);
	assert_same_results(s, f);
	assert_int_equal(sim_counters(s)->finished, 400);
	sim_free(s);
	sim_free(f);
	job_set_release(&js);
}

/* ---- inflation ---- */

static void test_inflation(void **state)
{
	(void)state;
	struct job_set js;
	struct sim_opts o;
	random_set(&js, 3, 300);
	sim_opts_init(&o);
	o.mode = SIM_INFLATE;
	o.target = 1.2;
	o.seed = 9;
	struct sim *a, *b;
	struct metrics_series sa = {0}, sb = {0};
	assert_int_equal(sim_new(&js, &fit_ops, NULL, &o, &a, NULL), 0);
	struct sim_observer ob = metrics_series_observer(&sa);
	sim_observe(a, &ob);
	sim_run(a);
	assert_int_equal(sim_new(&js, &fit_ops, NULL, &o, &b, NULL), 0);
	ob = metrics_series_observer(&sb);
	sim_observe(b, &ob);
	sim_run(b);
	assert_same_results(a, b);
	assert_int_equal(sa.n, 121); /* 0 % .. 120 % */
	const struct sim_counters *k = sim_counters(a);
	double cap = (double)sim_cluster(a)->total[DIM_GPU];
	assert_true((double)k->requested_gpu >= 1.2 * cap);
	assert_true(k->failed > 0);
	assert_int_equal(k->finished, 0);
	double curve[121];
	assert_int_equal(metrics_unalloc_curve(&sa, 1.2, curve, 121), 121);
	assert_true(curve[0] == 1);
	for (int p = 1; p <= 120; p++)
		assert_true(curve[p] <= curve[p - 1]);
	/* Nothing is allocated that was not requested; loads only grow. */
	for (size_t i = 0; i < sa.n; i++) {
		assert_true(sa.pts[i].alloc_share <= sa.pts[i].load + 1e-12);
		assert_true(i == 0 || sa.pts[i].load >= sa.pts[i - 1].load);
		assert_true(sa.pts[i].load * 100 >= (double)i - 1e-9);
	}
	/* Another seed draws other jobs. */
	o.seed = 10;
	struct sim *c = run(&js, &fit_ops, &o);
	int differ = sim_njobs(c) != sim_njobs(a);
	for (size_t i = 0; !differ && i < sim_njobs(a); i++)
		differ = res(a, i).src != res(c, i).src;
	assert_true(differ);
	sim_free(a);
	sim_free(b);
	sim_free(c);
	metrics_series_release(&sa);
	metrics_series_release(&sb);
	job_set_release(&js);
}

/* A run far longer than its arrival span keeps a bounded series: the cadence, span /
 * series_points at first, doubles every 2 x series_points samples, so a job of 10^9 s after
 * arrivals 100 s apart gives some 2 x 10 x log2(10^9 / (2 x 10 x 10)) = 450 samples (10^8
 * at a fixed cadence), still evenly spaced in each stretch and reaching the run's end. */
static void test_series_bounded_in_a_long_run(void **state)
{
	(void)state;
	struct job_set js = {0};
	struct sim_opts o;
	struct metrics_series ser = {0};
	struct sim *s;
	add_node(&js, "n0", "T4", 1, 4000, 1000, 1000);
	add_job(&js, 0, 1000000000, 1000, 1, 1000, JOB_TRAIN);
	add_job(&js, 100, 10, 1000, 0, 0, JOB_CPU);
	sim_opts_init(&o);
	o.series_points = 10;
	assert_int_equal(sim_new(&js, &fit_ops, NULL, &o, &s, NULL), 0);
	struct sim_observer ob = metrics_series_observer(&ser);
	sim_observe(s, &ob);
	sim_run(s);
	assert_true(ser.n > 2 * 10 && ser.n < 2 * 10 * 30);
	assert_true(ser.pts[ser.n - 1].t >= 1000000000 / 2);
	int64_t iv = 10; /* 100 s / 10 points */
	for (size_t i = 1; i < ser.n; i++) {
		int64_t d = ser.pts[i].t - ser.pts[i - 1].t;
		assert_true(d == iv || d == 2 * iv || i + 1 == ser.n);
		iv = d;
	}
	sim_free(s);
	metrics_series_release(&ser);
	job_set_release(&js);
}

/* ---- node failures and checkpoints ---- */

/* One job of 1000 s on a one-GPU node that goes down at 700 for 100 s. The work lost is
 * what it did since its last checkpoint, computed here from the checkpoint interval and
 * the rate a checkpoint's pause leaves (every / (every + cost)), not by the engine. */
static void failure_case(double every, double cost, int64_t want_end)
{
	struct job_set js = {0};
	struct sim_opts o;
	struct fault ft;
	add_node(&js, "n0", "T4", 1, 4000, 1000, 1000);
	add_job(&js, 0, 1000, 100, 1, 1000, JOB_TRAIN);
	assert_int_equal(fault_parse("n0:down@700+100", &ft, NULL), 0);
	sim_opts_init(&o);
	o.faults = &ft;
	o.nfaults = 1;
	o.ckpt_every = every;
	o.ckpt_cost = cost;
	o.win_start = 0;
	o.win_end = 3000;
	struct sim *s = run(&js, &ff_ops, &o);
	double rate = every > 0 && cost > 0 ? every / (every + cost) : 1;
	double done = 700 * rate, keep = every > 0 ? floor(done / every) * every : 0;
	double lost = done - keep; /* seconds of work of one GPU */
	struct sim_job_result r = res(s, 0);
	assert_int_equal(r.state, SIM_JOB_FINISHED);
	assert_int_equal(r.nkilled, 1);
	assert_int_equal(r.npreempt, 0);
	assert_true(fabs(r.fail_gpu_s - lost) < 1e-6);
	assert_true(r.saved == keep);
	expect_run(s, 0, 800, want_end, 0); /* back when the node is, from its checkpoint */
	int t4 = gpumodel_find("T4");
	const struct sim_counters *k = sim_counters(s);
	assert_int_equal(k->killed, 1);
	assert_int_equal(k->node_failures, 1);
	assert_int_equal(k->fail_ms[t4], llround(lost * 1000));
	assert_int_equal(k->down_ms[t4], 100 * 1000);
	struct metrics m;
	metrics_compute(s, NULL, &m);
	/* failed: the lost work; down: the node's GPU for 100 s */
	assert_int_equal(m.bucket_ms[SIM_B_FAILED], llround(lost * 1000));
	assert_int_equal(m.buckets.ms[t4][JOB_TRAIN][SIM_B_FAILED], llround(lost * 1000));
	assert_int_equal(m.buckets.ms[t4][SIM_CLS_NONE][SIM_B_DOWN], 100 * 1000);
	int64_t alloc = (700 + want_end - 800) * 1000;
	assert_int_equal(m.bucket_ms[SIM_B_PRODUCTIVE] + m.bucket_ms[SIM_B_CKPT] +
				 m.bucket_ms[SIM_B_FAILED],
			 alloc);
	/* the checkpoints' pauses: g (1 - rate) over the time allocated; no contention */
	assert_int_equal(m.bucket_ms[SIM_B_CKPT], llround((double)alloc * (1 - rate)));
	assert_int_equal(m.bucket_ms[SIM_B_STALLED], 0);
	int64_t sum = 0;
	for (int b = 0; b < SIM_NBUCKET; b++)
		sum += m.bucket_ms[b];
	assert_int_equal(sum, 3000 * 1000); /* provisioned: one GPU over the window */
	assert_int_equal(m.provisioned_ms, sum);
	sim_free(s);
	job_set_release(&js);
}

static void test_failure_loses_work_since_checkpoint(void **state)
{
	(void)state;
	failure_case(300, 0, 1200); /* saved 600 at 700: 400 left */
	failure_case(0, 0, 1800);   /* no checkpoint: all 1000 again */
	failure_case(250, 0, 1300); /* saved 500: 500 left */
	/* rate 0.75: 525 done at 700, 300 saved, 700 left take ceil(933.3) s */
	failure_case(300, 100, 800 + 934);
}

/* Sum of the buckets of s's window against the provisioned GPU time. */
static void assert_buckets_sum(const struct sim *s)
{
	struct metrics m;
	metrics_compute(s, NULL, &m);
	int64_t sum = 0, cap = 0;
	for (int b = 0; b < SIM_NBUCKET; b++)
		sum += m.bucket_ms[b];
	for (int g = 0; g < GPUMODEL_MAX; g++)
		cap += sim_counters(s)->gpu_cap[g];
	assert_int_equal(sum, cap * (m.w1 - m.w0));
}

static void test_node_failures_seeded(void **state)
{
	(void)state;
	struct job_set js;
	random_set(&js, 41, 800);
	struct sim_opts o;
	sim_opts_init(&o);
	o.queue = SIM_BACKFILL;
	o.node_mtbf = 4000;
	o.node_repair = 300;
	o.ckpt_every = 60;
	o.ckpt_cost = 5;
	struct sim *a = run(&js, &ff_ops, &o), *b = run(&js, &ff_ops, &o);
	assert_true(sim_counters(a)->node_failures > 3);
	assert_true(sim_counters(a)->killed > 0);
	assert_same_results(a, b);
	assert_buckets_sum(a);
	o.seed = 2;
	struct sim *c = run(&js, &ff_ops, &o);
	assert_buckets_sum(c);
	struct sim_counters ka = *sim_counters(a), kc = *sim_counters(c);
	assert_true(ka.node_failures != kc.node_failures || ka.killed != kc.killed ||
		    memcmp(ka.fail_ms, kc.fail_ms, sizeof ka.fail_ms));
	/* without failures, the options change nothing of the first-fit placements but the
	 * checkpoints' pauses */
	sim_free(a);
	sim_free(b);
	sim_free(c);
	job_set_release(&js);
}

/* A fork half way carries the failures on: the down nodes, the killed jobs' checkpoints,
 * the pending repairs and the failure draws (through the parts' clones). */
static void test_fork_carries_failures(void **state)
{
	(void)state;
	struct job_set js;
	struct frag_workload wl;
	struct fault ft;
	random_set(&js, 43, 600);
	frag_workload_build(&wl, js.jobs, js.njobs, 0.95);
	assert_int_equal(fault_parse("grp:down@900+1h", &ft, NULL), 0);
	for (int v = 0; v < 2; v++) {
		struct sim_opts o;
		struct sim *ref;
		sim_opts_init(&o);
		o.queue = SIM_PRIORITY;
		o.preempt = 1;
		o.node_mtbf = v ? 3000 : 0;
		o.node_repair = 600;
		o.ckpt_every = 100;
		o.faults = v ? NULL : &ft;
		o.nfaults = v ? 0 : 1;
		const struct policy_ops *ops = policy_find("fgd");
		assert_int_equal(sim_new(&js, ops, &wl, &o, &ref, NULL), 0);
		sim_run(ref);
		assert_true(sim_counters(ref)->killed > 0);
		assert_buckets_sum(ref);
		fork_half_way(&js, ops, &wl, &o, ref);
		sim_free(ref);
	}
	frag_workload_release(&wl);
	job_set_release(&js);
}

static void test_failure_options_refused(void **state)
{
	(void)state;
	struct job_set js = {0};
	struct sim_opts o;
	struct sim *s;
	struct err e = {0};
	struct fault ft;
	add_node(&js, "n0", "T4", 1, 4000, 1000, 1000);
	add_job(&js, 0, 10, 100, 1, 1000, JOB_TRAIN);
	sim_opts_init(&o);
	o.node_mtbf = 100; /* no repair time */
	assert_int_equal(sim_new(&js, &ff_ops, NULL, &o, &s, &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "repair"));
	sim_opts_init(&o);
	o.mode = SIM_INFLATE;
	assert_int_equal(fault_parse("n0:down@5+10", &ft, NULL), 0);
	o.faults = &ft;
	o.nfaults = 1;
	assert_int_equal(sim_new(&js, &ff_ops, NULL, &o, &s, &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "timed"));
	job_set_release(&js);
}

static void test_names(void **state)
{
	(void)state;
	enum sim_queue q;
	assert_int_equal(sim_queue_parse("backfill", &q), 0);
	assert_int_equal(q, SIM_BACKFILL);
	assert_int_equal(sim_queue_parse("lifo", &q), -1);
	assert_string_equal(sim_queue_name(SIM_PRIORITY), "priority");
	assert_string_equal(sim_mode_name(SIM_INFLATE), "inflate");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fifo_blocks_behind_the_head),
		cmocka_unit_test(test_backfill_lets_small_jobs_pass),
		cmocka_unit_test(test_priority_classes),
		cmocka_unit_test(test_preemption_loses_work),
		cmocka_unit_test(test_contention_stretches_jobs),
		cmocka_unit_test(test_fault_slows_then_recovers),
		cmocka_unit_test(test_unplaceable_and_skipped),
		cmocka_unit_test(test_failure_loses_work_since_checkpoint),
		cmocka_unit_test(test_node_failures_seeded),
		cmocka_unit_test(test_fork_carries_failures),
		cmocka_unit_test(test_failure_options_refused),
		cmocka_unit_test(test_node_without_a_shared_dim),
		cmocka_unit_test(test_stuck_run_stops),
		cmocka_unit_test(test_endless_job_stops),
		cmocka_unit_test(test_inflation_that_cannot_reach_its_target),
		cmocka_unit_test(test_invariants_every_discipline),
		cmocka_unit_test(test_deterministic_and_classes_exact),
		cmocka_unit_test(test_class_index_exact_under_reuse),
		cmocka_unit_test(test_class_index_exact_after_compaction),
		cmocka_unit_test(test_class_records_follow_nodes),
		cmocka_unit_test(test_class_index_only_for_shapes_asked_again),
		cmocka_unit_test(test_fork_same_policy_matches),
		cmocka_unit_test(test_fork_owns_its_parts),
		cmocka_unit_test(test_fork_with_changes_from_the_start),
		cmocka_unit_test(test_fork_with_changes_mid_run),
		cmocka_unit_test(test_fork_new_policy_diverges_after),
		cmocka_unit_test(test_fork_with_fault),
		cmocka_unit_test(test_step_and_snapshot),
		cmocka_unit_test(test_long_fifo_queue_keeps_order),
		cmocka_unit_test(test_inflation),
		cmocka_unit_test(test_series_bounded_in_a_long_run),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_ctx_node_md_and_job_of),
		cmocka_unit_test(test_policy_own_target),
		cmocka_unit_test(test_bounded_search_matches_full_loop),
		cmocka_unit_test(test_k8s_class_search_matches_scan),
		cmocka_unit_test(test_k8s_first_fit_by_class),
		cmocka_unit_test(test_sampled_search),
		cmocka_unit_test(test_sampled_finds_the_only_fit),
		cmocka_unit_test(test_bounds_never_exceed_scores),
		cmocka_unit_test(test_bounds_prune),
		cmocka_unit_test(test_keys_match_full_loop),
		cmocka_unit_test(test_preempt_overload_accounting),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
