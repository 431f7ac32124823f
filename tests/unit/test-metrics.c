/* test-metrics.c — GPU-hours by bucket, prices and $ per year, job statistics per class,
 * stranded capacity, the inflation curve. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpumodel.h"
#include "metrics.h"
#include "sim.h"

static double zero_score(const struct policy_ctx *ctx, const struct job *j,
			 const struct placement *p)
{
	(void)ctx, (void)j, (void)p;
	return 0;
}
static const struct policy_ops ff_ops = {
	.name = "t-first", .summary = "", .dims = DIMS_HARD, .flags = 0, .score = zero_score};

static void add_node(struct job_set *js, const char *model, int ngpu, int64_t cpu)
{
	struct node n;
	node_init(&n);
	snprintf(n.name, sizeof n.name, "n%zu", js->nnodes);
	n.ngpu = ngpu;
	n.model = (int16_t)gpumodel_find(model);
	int64_t cap[DIM_N] = {cpu, 1 << 20, ngpu * 1000, ngpu * 16384, 1000, 1000, 1000};
	memcpy(n.cap, cap, sizeof cap);
	job_set_add_node(js, &n);
}

static void add_job(struct job_set *js, int64_t arrival, int64_t dur, int64_t cpu, int ngpu,
		    int cls)
{
	struct job j;
	job_init(&j);
	j.id = (int64_t)js->njobs;
	j.arrival = arrival;
	j.duration = dur;
	j.num_gpu = ngpu;
	j.gpu_milli = ngpu ? 1000 : 0;
	int64_t dem[DIM_N] = {cpu, 1024, ngpu * 1000, -1, 0, 0, 0};
	memcpy(j.dem, dem, sizeof dem);
	j.cls = (uint8_t)cls;
	job_set_add_job(js, &j);
}

static struct sim *run(const struct job_set *js)
{
	struct sim *s;
	struct sim_opts o;
	sim_opts_init(&o);
	assert_int_equal(sim_new(js, &ff_ops, NULL, &o, &s, NULL), 0);
	sim_run(s);
	return s;
}

static void close_to(double got, double want)
{
	if (fabs(got - want) > 1e-9 * (fabs(want) > 1 ? fabs(want) : 1))
		fail_msg("got %.12g, wanted %.12g", got, want);
}

static void test_per_year(void **state)
{
	(void)state;
	/* DESIGN.md's check: 1,000 GPUs for a year. $21.9 M a year is $2.50 an hour; at $3 it
	 * is $26.28 M. Over any window, $ per year = $ x 8760 / hours. */
	close_to(metrics_per_year(1000 * 2.5 * 24, 24), 21.9e6);
	close_to(metrics_per_year(1000 * 3.0 * 100, 100), 26.28e6);
	close_to(metrics_per_year(0.1 * 1000 * 2.5 * 24, 24), 2.19e6);
	close_to(metrics_per_year(5, 0), 0);
}

static void test_prices(void **state)
{
	(void)state;
	struct metrics_opts o;
	struct err e = {0};
	int t4 = gpumodel_find("T4");
	metrics_opts_init(&o);
	close_to(metrics_price(&o, t4), gpumodel_get(t4)->usd[GPUMODEL_ON_DEMAND]);
	close_to(metrics_price(NULL, t4), gpumodel_get(t4)->usd[GPUMODEL_ON_DEMAND]);
	o.tier = GPUMODEL_SPOT;
	close_to(metrics_price(&o, t4), gpumodel_get(t4)->usd[GPUMODEL_SPOT]);
	assert_string_equal(metrics_price_source(&o, t4), gpumodel_get(t4)->source[GPUMODEL_SPOT]);
	assert_int_equal(metrics_price_parse(&o, "t4=2.5", &e), 0);
	close_to(metrics_price(&o, t4), 2.5); /* an override wins over the tier */
	assert_string_equal(metrics_price_source(&o, t4), "--gpu-price");
	assert_int_equal(metrics_price_parse(&o, "T4=0", &e), 0);
	close_to(metrics_price(&o, t4), 0);
	assert_int_equal(metrics_price_parse(&o, "XYZ9=1", &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "unknown GPU model 'XYZ9'"));
	assert_int_equal(metrics_price_parse(&o, "T4=-1", &e), VF_EINPUT);
	assert_int_equal(metrics_price_parse(&o, "T4=cheap", &e), VF_EINPUT);
	assert_int_equal(metrics_price_parse(&o, "T4", &e), VF_EINPUT);
	assert_int_equal(metrics_price_parse(&o, "=3", &e), VF_EINPUT);
	/* An unknown model id gets the table's labelled default, never 0. */
	assert_true(metrics_price(NULL, -1) > 0);
}

/* The prices note every table ends with: the tier, the overrides, the assumed models in the
 * table's order. */
static void test_prices_note(void **state)
{
	(void)state;
	struct metrics_opts o;
	struct sbuf b;
	struct err e = {0};
	int t4 = gpumodel_find("T4"), a100 = gpumodel_find("A100");
	sbuf_init(&b);
	metrics_prices_note(NULL, 0, &b);
	assert_string_equal(b.s, "on-demand");
	metrics_opts_init(&o);
	o.tier = GPUMODEL_SPOT;
	sbuf_reset(&b);
	metrics_prices_note(&o, 1u << t4 | 1u << a100, &b);
	char want[128];
	snprintf(want, sizeof want, "spot; assumed (not a list price): %s, %s",
		 gpumodel_get(t4 < a100 ? t4 : a100)->name,
		 gpumodel_get(t4 < a100 ? a100 : t4)->name);
	assert_string_equal(b.s, want);
	assert_int_equal(metrics_price_parse(&o, "T4=2.5", &e), 0);
	sbuf_reset(&b);
	metrics_prices_note(&o, 0, &b);
	assert_string_equal(b.s, "spot with --gpu-price overrides");
	sbuf_release(&b);
}

static void test_buckets_and_dollars(void **state)
{
	(void)state;
	struct job_set js = {0};
	struct metrics_opts o;
	struct metrics m;
	add_node(&js, "T4", 8, 64000);
	add_job(&js, 0, 3600, 1000, 4, JOB_TRAIN); /* 4 of 8 GPUs for the whole hour */
	struct sim *s = run(&js);
	metrics_opts_init(&o);
	assert_int_equal(metrics_price_parse(&o, "T4=3", NULL), 0);
	metrics_compute(s, &o, &m);
	assert_int_equal(m.t1 - m.t0, 3600);
	close_to(m.hours, 1);
	assert_int_equal(m.gpus, 8);
	/* all jobs arrive at once: the window is the longest job */
	assert_int_equal(m.w0, 0);
	assert_int_equal(m.w1, 3600);
	assert_int_equal(m.provisioned_ms, 8LL * 1000 * 3600);
	assert_int_equal(m.bucket_ms[SIM_B_PRODUCTIVE], 4LL * 1000 * 3600);
	assert_int_equal(m.bucket_ms[SIM_B_STALLED], 0);
	assert_int_equal(m.bucket_ms[SIM_B_UNNEEDED], 4LL * 1000 * 3600);
	assert_int_equal(m.buckets.ms[gpumodel_find("T4")][JOB_TRAIN][SIM_B_PRODUCTIVE],
			 4LL * 1000 * 3600);
	close_to(m.gpu_hours[SIM_B_PRODUCTIVE], 4);
	close_to(m.provisioned_gpu_hours, 8);
	close_to(m.usd_year_provisioned, 8 * 3.0 * 8760);
	close_to(m.usd_year[SIM_B_UNNEEDED], 4 * 3.0 * 8760);
	close_to(m.usd_year_sizing, 4 * 3.0 * 8760);
	close_to(m.usd_year_placement, 0);
	close_to(m.alloc_mean, 0.5);
	close_to(m.all.throughput_per_hour, 1);
	sim_free(s);
	job_set_release(&js);
}

/* DESIGN.md's check: 1,000 GPUs at $3 an hour provision $26.28 M a year (the article's
 * $21.9 M holds at $2.50), whatever the window. */
static void test_thousand_gpus(void **state)
{
	(void)state;
	struct metrics *m = calloc(1, sizeof *m);
	struct metrics_opts o;
	int a100 = gpumodel_find("A100");
	metrics_opts_init(&o);
	assert_int_equal(metrics_price_parse(&o, "A100=3", NULL), 0);
	m->window_hours = 24 * 7;
	m->buckets.ms[a100][SIM_CLS_NONE][SIM_B_UNNEEDED] = 1000LL * 1000 * 3600 * 24 * 7;
	metrics_price_all(m, &o);
	close_to(m->usd_year_provisioned, 26.28e6);
	close_to(m->usd_year_sizing, 26.28e6);
	assert_int_equal(m->assumed_models, 0); /* an override is no assumption */
	assert_int_equal(metrics_price_parse(&o, "A100=2.5", NULL), 0);
	metrics_price_all(m, &o);
	close_to(m->usd_year_provisioned, 21.9e6);
	/* a tenth of it stalled: $2.19 M a year recoverable by placement */
	m->buckets.ms[a100][SIM_CLS_NONE][SIM_B_UNNEEDED] = 900LL * 1000 * 3600 * 24 * 7;
	m->buckets.ms[a100][JOB_TRAIN][SIM_B_STALLED] = 100LL * 1000 * 3600 * 24 * 7;
	metrics_price_all(m, &o);
	close_to(m->usd_year_placement, 2.19e6);
	/* G2's price is assumed, and says so */
	metrics_opts_init(&o);
	m->buckets.ms[gpumodel_find("G2")][SIM_CLS_NONE][SIM_B_UNNEEDED] = 1;
	metrics_price_all(m, &o);
	assert_true(m->assumed_models >> gpumodel_find("G2") & 1);
	free(m);
}

/* metrics_cost by model and class: the parts a report's tables show add up to the whole a
 * run's figures give, and $ over the window scale to a year. */
static void test_cost_parts(void **state)
{
	(void)state;
	struct sim_bucket_ms *b = calloc(1, sizeof *b);
	struct metrics_opts o;
	struct metrics_cost all, a, t, train, none;
	int a100 = gpumodel_find("A100"), t4 = gpumodel_find("T4");
	metrics_opts_init(&o);
	assert_int_equal(metrics_price_parse(&o, "A100=3", NULL), 0);
	assert_int_equal(metrics_price_parse(&o, "T4=0.5", NULL), 0);
	b->ms[a100][JOB_TRAIN][SIM_B_STALLED] = 2LL * 1000 * 3600;     /* 2 GPU-h: $6 */
	b->ms[a100][SIM_CLS_NONE][SIM_B_UNNEEDED] = 1LL * 1000 * 3600; /* $3 */
	b->ms[t4][JOB_TRAIN][SIM_B_PRODUCTIVE] = 4LL * 1000 * 3600;    /* $2 */
	metrics_cost(b, &o, -1, -1, 8760, &all);
	metrics_cost(b, &o, a100, -1, 8760, &a);
	metrics_cost(b, &o, t4, -1, 8760, &t);
	metrics_cost(b, &o, -1, JOB_TRAIN, 8760, &train);
	metrics_cost(b, &o, -1, SIM_CLS_NONE, 4380, &none);
	close_to(all.usd[SIM_B_STALLED], 6);
	close_to(all.usd_year_provisioned, 11);
	close_to(all.usd_year_placement, 6);
	close_to(all.usd_year_sizing, 3);
	close_to(a.usd_year_provisioned, 9);
	close_to(t.usd_year_provisioned, 2);
	close_to(t.usd_year[SIM_B_PRODUCTIVE], 2);
	close_to(train.usd_year_provisioned, 8);
	close_to(train.usd_year_sizing, 0);
	close_to(none.usd_year_sizing, 6); /* half a year's window: twice a year */
	close_to(none.usd[SIM_B_UNNEEDED], 3);
	assert_int_equal(all.assumed_models, 0);
	free(b);
}

/* ---- buckets on hand-made clusters: every figure below is worked out by hand ---- */

/* A job of g whole GPUs (0: CPU only) with cpu millicores, arriving at t for d seconds. */
static struct job *job_at(struct job_set *js, int64_t t, int64_t d, int g, int64_t cpu, int cls)
{
	add_job(js, t, d, cpu, g, cls);
	return &js->jobs[js->njobs - 1];
}

/* GPU-milli-seconds of bucket b, over every model and class. */
static int64_t bucket(const struct metrics *m, int b)
{
	return m->bucket_ms[b];
}

/* Run js under o and check that the buckets sum to provisioned, per model. */
static void run_buckets(const struct job_set *js, const struct sim_opts *o, struct metrics *m)
{
	struct sim *s;
	assert_int_equal(sim_new(js, &ff_ops, NULL, o, &s, NULL), 0);
	sim_run(s);
	metrics_compute(s, NULL, m);
	int64_t sum = 0;
	for (int b = 0; b < SIM_NBUCKET; b++) {
		assert_true(m->bucket_ms[b] >= 0);
		sum += m->bucket_ms[b];
	}
	assert_int_equal(sum, m->provisioned_ms);
	assert_int_equal(m->provisioned_ms, m->gpus * 1000 * (m->w1 - m->w0));
	sim_free(s);
}

#define GS(x) ((int64_t)(x)*1000) /* GPU-seconds in GPU-milli-seconds */

/* One node of 2 GPUs. A: 2 GPUs 0-100. B: 1 GPU, arrives at 50, waits for A (no GPU is
 * free, so nothing idles), runs 100-200. C: arrives at 200 (the window's end). */
static void test_one_node(void **state)
{
	(void)state;
	struct job_set js = {0};
	struct sim_opts o;
	struct metrics m;
	sim_opts_init(&o);
	add_node(&js, "T4", 2, 64000);
	job_at(&js, 0, 100, 2, 1000, JOB_TRAIN);
	job_at(&js, 50, 100, 1, 1000, JOB_TRAIN);
	job_at(&js, 200, 10, 1, 1000, JOB_TRAIN);
	run_buckets(&js, &o, &m);
	assert_int_equal(m.w0, 0);
	assert_int_equal(m.w1, 200);
	assert_int_equal(bucket(&m, SIM_B_PRODUCTIVE), GS(200 + 100));
	assert_int_equal(bucket(&m, SIM_B_UNNEEDED), GS(100)); /* B alone, 100-200 */
	assert_int_equal(m.idle_blocked_gpu_hours, 0);
	assert_int_equal(m.carry_jobs, 1); /* C, starting at 200 */
	assert_true(fabs(m.carry_gpu_hours * 3600 - 10) < 1e-9);
	job_set_release(&js);
}

/* Three nodes of 2 GPUs, first-fit: A, B on n0, C, D on n1, E on n2 (1 GPU, 100 s each; B
 * only 10 s); W wants 2 GPUs and waits: 0-10 one GPU is free (n2): too few, FULL; 10-100
 * two are free, on n0 and n2: enough in total, wrong shape, SHAPE; at 100 W takes n0 for
 * 100 s while the other 4 GPUs idle with nothing waiting; a job at 200 ends the window. */
static void test_three_nodes_shape_and_full(void **state)
{
	(void)state;
	struct job_set js = {0};
	struct sim_opts o;
	struct metrics m;
	sim_opts_init(&o);
	for (int i = 0; i < 3; i++)
		add_node(&js, "T4", 2, 64000);
	job_at(&js, 0, 100, 1, 1000, JOB_TRAIN);
	job_at(&js, 0, 10, 1, 1000, JOB_TRAIN);
	job_at(&js, 0, 100, 1, 1000, JOB_TRAIN);
	job_at(&js, 0, 100, 1, 1000, JOB_TRAIN);
	job_at(&js, 0, 100, 1, 1000, JOB_TRAIN);
	job_at(&js, 0, 100, 2, 1000, JOB_INFER);
	job_at(&js, 200, 1, 0, 1000, JOB_CPU);
	run_buckets(&js, &o, &m);
	assert_int_equal(m.w1 - m.w0, 200);
	assert_int_equal(bucket(&m, SIM_B_FULL), GS(1 * 10));
	assert_int_equal(bucket(&m, SIM_B_SHAPE), GS(2 * 90));
	assert_int_equal(bucket(&m, SIM_B_UNNEEDED), GS(4 * 100));
	assert_int_equal(bucket(&m, SIM_B_PRODUCTIVE), GS(100 + 10 + 100 + 100 + 100 + 200));
	/* idle-blocked counts under the waiting job's class, productive under its holder's */
	int t4 = gpumodel_find("T4");
	assert_int_equal(m.buckets.ms[t4][JOB_INFER][SIM_B_SHAPE], GS(180));
	assert_int_equal(m.buckets.ms[t4][JOB_INFER][SIM_B_PRODUCTIVE], GS(200));
	assert_int_equal(m.buckets.ms[t4][SIM_CLS_NONE][SIM_B_UNNEEDED], GS(400));
	/* recoverable by placement: the wrong shape, not the full cluster */
	assert_true(fabs(m.idle_blocked_gpu_hours * 3600 - 190) < 1e-9);
	job_set_release(&js);
}

/* One node of 2 GPUs and 4 cores: a CPU job takes every core 0-100, so the GPU job that
 * waits finds GPUs but no cpu (DIM, 2 GPUs x 100 s); it runs 100-150; a job at 200. */
static void test_other_dim_short(void **state)
{
	(void)state;
	struct job_set js = {0};
	struct sim_opts o;
	struct metrics m;
	sim_opts_init(&o);
	add_node(&js, "T4", 2, 4000);
	job_at(&js, 0, 100, 0, 4000, JOB_CPU);
	job_at(&js, 0, 50, 1, 1000, JOB_TRAIN);
	job_at(&js, 200, 1, 0, 1000, JOB_CPU);
	run_buckets(&js, &o, &m);
	assert_int_equal(bucket(&m, SIM_B_DIM), GS(2 * 100));
	assert_int_equal(bucket(&m, SIM_B_PRODUCTIVE), GS(50));
	assert_int_equal(bucket(&m, SIM_B_UNNEEDED), GS(1 * 50 + 2 * 50));
	job_set_release(&js);
}

/* A T4 node and an A100 node of 1 GPU; two jobs allow only A100: the second waits 0-100
 * while the T4 is free (MODEL), then runs 100-200; a job at 300 ends the window. */
static void test_model_not_allowed(void **state)
{
	(void)state;
	struct job_set js = {0};
	struct sim_opts o;
	struct metrics m;
	int t4 = gpumodel_find("T4"), a100 = gpumodel_find("A100");
	sim_opts_init(&o);
	add_node(&js, "T4", 1, 64000);
	add_node(&js, "A100", 1, 64000);
	job_at(&js, 0, 100, 1, 1000, JOB_TRAIN)->gpu_spec = 1u << a100;
	job_at(&js, 0, 100, 1, 1000, JOB_TRAIN)->gpu_spec = 1u << a100;
	job_at(&js, 300, 1, 0, 1000, JOB_CPU);
	run_buckets(&js, &o, &m);
	assert_int_equal(m.buckets.ms[t4][JOB_TRAIN][SIM_B_MODEL], GS(100));
	assert_int_equal(m.buckets.ms[t4][SIM_CLS_NONE][SIM_B_UNNEEDED], GS(200));
	assert_int_equal(m.buckets.ms[a100][JOB_TRAIN][SIM_B_PRODUCTIVE], GS(200));
	assert_int_equal(m.buckets.ms[a100][SIM_CLS_NONE][SIM_B_UNNEEDED], GS(100));
	job_set_release(&js);
}

/* fifo head-of-line: one node of 2 GPUs; A (1 GPU) runs 0-100; B wants 2 and waits; C (1
 * GPU) would fit but waits behind B: the free GPU is held back by the queue (QUEUE, 0-100);
 * B runs 100-200, C 200-250; a job at 300. Backfill starts C at once instead. */
static void test_queue_discipline(void **state)
{
	(void)state;
	struct job_set js = {0};
	struct sim_opts o;
	struct metrics m;
	sim_opts_init(&o);
	add_node(&js, "T4", 2, 64000);
	job_at(&js, 0, 100, 1, 1000, JOB_TRAIN);
	job_at(&js, 0, 100, 2, 1000, JOB_TRAIN);
	job_at(&js, 0, 50, 1, 1000, JOB_BATCH);
	job_at(&js, 300, 1, 0, 1000, JOB_CPU);
	run_buckets(&js, &o, &m);
	assert_int_equal(bucket(&m, SIM_B_QUEUE), GS(100));
	assert_int_equal(m.buckets.ms[gpumodel_find("T4")][JOB_BATCH][SIM_B_QUEUE], GS(100));
	assert_int_equal(bucket(&m, SIM_B_PRODUCTIVE), GS(100 + 200 + 50));
	assert_int_equal(bucket(&m, SIM_B_UNNEEDED), GS(1 * 50 + 2 * 50));
	o.queue = SIM_BACKFILL; /* C starts at 0 beside A; B waits for both: 0-50 nothing is
				 * free; 50-100 one GPU, too few for B: FULL */
	run_buckets(&js, &o, &m);
	assert_int_equal(bucket(&m, SIM_B_QUEUE), 0);
	assert_int_equal(bucket(&m, SIM_B_FULL), GS(50));
	job_set_release(&js);
}

/* Contention and preemption: two jobs share 1000 MB/s of storage, each wanting 1000, on
 * two GPUs for 200 s at rate 0.5 (stalled half); a batch job evicted by an inference job
 * at 40 s loses its 40 s of progress. */
static void test_stalled_and_lost(void **state)
{
	(void)state;
	struct job_set js = {0};
	struct sim_opts o;
	struct metrics m;
	sim_opts_init(&o);
	add_node(&js, "T4", 2, 64000);
	job_at(&js, 0, 100, 1, 1000, JOB_TRAIN)->dem[DIM_STO] = 1000;
	job_at(&js, 0, 100, 1, 1000, JOB_TRAIN)->dem[DIM_STO] = 1000;
	job_at(&js, 200, 1, 0, 1000, JOB_CPU);
	run_buckets(&js, &o, &m);
	assert_int_equal(bucket(&m, SIM_B_STALLED), GS(2 * 100));
	assert_int_equal(bucket(&m, SIM_B_PRODUCTIVE), GS(2 * 100));
	job_set_release(&js);

	memset(&js, 0, sizeof js);
	add_node(&js, "T4", 1, 64000);
	job_at(&js, 0, 100, 1, 1000, JOB_BATCH);
	job_at(&js, 40, 50, 1, 1000, JOB_INFER);
	job_at(&js, 200, 1, 0, 1000, JOB_CPU);
	o.queue = SIM_PRIORITY;
	o.preempt = 1;
	run_buckets(&js, &o, &m);
	/* 0-40 the batch job (then lost), 40-90 the inference job, 90-190 the batch job again */
	assert_int_equal(bucket(&m, SIM_B_LOST), GS(40));
	assert_int_equal(m.buckets.ms[gpumodel_find("T4")][JOB_BATCH][SIM_B_LOST], GS(40));
	assert_int_equal(bucket(&m, SIM_B_PRODUCTIVE), GS(50 + 100));
	assert_int_equal(bucket(&m, SIM_B_UNNEEDED), GS(10));
	job_set_release(&js);
}

/* A CPU-only trace on a GPU cluster: its jobs queue for cpu, yet no GPU is ever blocked:
 * a GPU that CPU-only shapes cannot use is not waste. */
static void test_cpu_only_trace_blocks_no_gpu(void **state)
{
	(void)state;
	struct job_set js = {0};
	struct sim_opts o;
	struct metrics m;
	sim_opts_init(&o);
	add_node(&js, "A100", 8, 4000);
	for (int i = 0; i < 20; i++)
		job_at(&js, 10 * i, 100, 0, 2000, JOB_CPU);
	run_buckets(&js, &o, &m);
	assert_true(m.all.wait_mean > 0); /* they did queue */
	assert_int_equal(m.idle_blocked_gpu_hours, 0);
	assert_int_equal(bucket(&m, SIM_B_UNNEEDED), m.provisioned_ms);
	job_set_release(&js);
}

/* Two policies of one job set are priced over the same window: the same provisioned GPU
 * time, whatever they do. */
static double spread_score(const struct policy_ctx *ctx, const struct job *j,
			   const struct placement *p)
{
	(void)ctx, (void)j;
	return -(double)p->node; /* the last node first */
}
static const struct policy_ops spread_ops = {
	.name = "t-last", .summary = "", .dims = DIMS_HARD, .flags = 0, .score = spread_score};

static void test_same_window_every_policy(void **state)
{
	(void)state;
	struct job_set js = {0};
	struct sim_opts o;
	struct metrics a, b;
	struct sim *s;
	sim_opts_init(&o);
	add_node(&js, "T4", 4, 64000);
	add_node(&js, "T4", 2, 64000);
	add_node(&js, "T4", 1, 64000);
	for (int i = 0; i < 30; i++)
		job_at(&js, 7 * i, 40 + (i * 13) % 90, 1 + i % 3, 1000, JOB_TRAIN);
	run_buckets(&js, &o, &a);
	assert_int_equal(sim_new(&js, &spread_ops, NULL, &o, &s, NULL), 0);
	sim_run(s);
	metrics_compute(s, NULL, &b);
	sim_free(s);
	assert_int_equal(a.provisioned_ms, b.provisioned_ms);
	assert_int_equal(a.w0, b.w0);
	assert_int_equal(a.w1, b.w1);
	assert_true(a.t1 != b.t1 || memcmp(a.bucket_ms, b.bucket_ms, sizeof a.bucket_ms));
	job_set_release(&js);
}

static void test_job_statistics(void **state)
{
	(void)state;
	struct job_set js = {0};
	struct metrics m;
	add_node(&js, "T4", 1, 4000);
	add_node(&js, "T4", 1, 4000);
	add_job(&js, 0, 100, 1000, 1, JOB_TRAIN);
	add_job(&js, 10, 50, 1000, 1, JOB_TRAIN);
	add_job(&js, 20, 30, 1000, 1, JOB_TRAIN);
	add_job(&js, 25, 10, 1000, 0, JOB_CPU);
	struct sim *s = run(&js); /* fifo: starts 0, 10, 60, 60; ends 100, 60, 90, 70 */
	metrics_compute(s, NULL, &m);
	assert_int_equal(m.all.jobs, 4);
	assert_int_equal(m.all.finished, 4);
	close_to(m.all.wait_mean, (0 + 0 + 40 + 35) / 4.0);
	close_to(m.all.wait_p95, 40);
	close_to(m.all.jct_mean, (100 + 50 + 70 + 45) / 4.0);
	close_to(m.all.jct_p95, 100);
	close_to(m.all.slowdown_mean, 1);
	close_to(m.makespan_s, 100);
	close_to(m.all.throughput_per_hour, 4 / (100 / 3600.0));
	assert_int_equal(m.cls[JOB_TRAIN].jobs, 3);
	close_to(m.cls[JOB_TRAIN].wait_mean, 40 / 3.0);
	assert_int_equal(m.cls[JOB_CPU].jobs, 1);
	close_to(m.cls[JOB_CPU].jct_mean, 45);
	assert_int_equal(m.cls[JOB_INFER].jobs, 0);
	close_to(m.cls[JOB_INFER].wait_mean, 0);
	/* GPU time: 100 + 50 + 30 s of one GPU, all productive, over 2 GPUs x 100 s. */
	/* over the window, arrivals 0 to 25: job 0 for 25 s, job 1 for 15 s */
	assert_int_equal(m.bucket_ms[SIM_B_PRODUCTIVE], (25 + 15) * 1000);
	assert_int_equal(m.provisioned_ms, 2 * 25 * 1000);
	sim_free(s);
	job_set_release(&js);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Nearest-rank p95 of v[0..n) by sorting (v is sorted). */
static double p95_sorted(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_dbl);
	size_t k = (size_t)ceil(0.95 * (double)n);
	return v[k ? k - 1 : 0];
}

/* The overall percentiles come from the classes' values together: they must equal a sort
 * of all the jobs' values, with many ties, the classes' sizes uneven, and some jobs of each
 * class never started. */
static void test_percentiles_over_classes(void **state)
{
	(void)state;
	struct job_set js = {0};
	struct metrics m;
	enum { NJ = 600 };
	double all[NJ], per[JOB_NCLASS][NJ];
	size_t nper[JOB_NCLASS] = {0}, nall = 0;
	add_node(&js, "T4", 1, (int64_t)1 << 30); /* room for every job at once: jct = duration */
	uint64_t x = 12345;
	for (int i = 0; i < NJ; i++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		int cls = (int)((x >> 33) % 7) < 4 ? JOB_BATCH : (int)((x >> 40) % JOB_NCLASS);
		int64_t dur = 1 + (int64_t)((x >> 20) % (i % 3 ? 50 : 5000));
		if (i % 37 == 5) { /* never fits: a gap in its class's values */
			add_job(&js, i, dur, ((int64_t)1 << 30) + 1, 0, cls);
			continue;
		}
		add_job(&js, i, dur, 1, 0, cls);
		all[nall++] = (double)dur;
		per[cls][nper[cls]++] = (double)dur;
	}
	struct sim *s = run(&js);
	metrics_compute(s, NULL, &m);
	assert_int_equal(m.all.finished, nall);
	assert_int_equal(m.all.unplaceable, NJ - nall);
	close_to(m.all.wait_p95, 0);
	close_to(m.all.slowdown_p95, 1);
	close_to(m.all.jct_p95, p95_sorted(all, nall));
	for (int c = 0; c < JOB_NCLASS; c++)
		close_to(m.cls[c].jct_p95, nper[c] ? p95_sorted(per[c], nper[c]) : 0);
	sim_free(s);
	job_set_release(&js);
}

static void test_stranded_behind_full_cpu(void **state)
{
	(void)state;
	struct job_set js = {0};
	struct metrics m;
	add_node(&js, "T4", 2, 4000);
	add_node(&js, "T4", 2, 4000);
	add_job(&js, 0, 100, 4000, 0, JOB_CPU); /* all of node 0's cpu, none of its GPUs */
	struct sim *s = run(&js);
	metrics_compute(s, NULL, &m);
	/* Node 0's GPUs and HBM are free but unusable for 100 s; node 1 strands nothing. */
	close_to(m.stranded_mean[DIM_GPU], 0.5);
	close_to(m.stranded_mean[DIM_HBM], 0.5);
	close_to(m.stranded_mean[DIM_CPU], 0);
	assert_true(m.stranded_mean[DIM_MEM] > 0.49 && m.stranded_mean[DIM_MEM] < 0.5);
	sim_free(s);
	job_set_release(&js);
}

static void test_unalloc_curve(void **state)
{
	(void)state;
	struct sim_sample pts[4] = {{.load = 0, .alloc_share = 0},
				    {.load = 0.015, .alloc_share = 0.015},
				    {.load = 0.03, .alloc_share = 0.02},
				    {.load = 0.041, .alloc_share = 0.025}};
	struct metrics_series ser = {.pts = pts, .n = 4, .cap = 4};
	double out[8];
	assert_int_equal(metrics_unalloc_curve(&ser, 0.05, out, 8), 6);
	close_to(out[0], 1);
	close_to(out[1], 1 - 0.015); /* first sample reaching 1 % */
	close_to(out[2], 1 - 0.02);
	close_to(out[3], 1 - 0.02);
	close_to(out[4], 1 - 0.025);
	close_to(out[5], 1 - 0.025); /* never reached: the last sample */
	assert_int_equal(metrics_unalloc_curve(&ser, 0.05, out, 2), 6);
	struct metrics_series empty = {0};
	metrics_series_release(&empty);
	metrics_series_release(NULL);
	assert_string_equal(sim_bucket_name(SIM_B_SHAPE), "blocked_shape");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_per_year),
		cmocka_unit_test(test_prices),
		cmocka_unit_test(test_prices_note),
		cmocka_unit_test(test_cost_parts),
		cmocka_unit_test(test_buckets_and_dollars),
		cmocka_unit_test(test_thousand_gpus),
		cmocka_unit_test(test_one_node),
		cmocka_unit_test(test_three_nodes_shape_and_full),
		cmocka_unit_test(test_other_dim_short),
		cmocka_unit_test(test_model_not_allowed),
		cmocka_unit_test(test_queue_discipline),
		cmocka_unit_test(test_stalled_and_lost),
		cmocka_unit_test(test_cpu_only_trace_blocks_no_gpu),
		cmocka_unit_test(test_same_window_every_policy),
		cmocka_unit_test(test_job_statistics),
		cmocka_unit_test(test_percentiles_over_classes),
		cmocka_unit_test(test_stranded_behind_full_cpu),
		cmocka_unit_test(test_unalloc_curve),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
