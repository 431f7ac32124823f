/* test-replay.c — the replay driver: option pieces, a small run end to end through the sim
 * and metrics, its record in a store, determinism, and the summary and compare tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "gang.h"
#include "grid.h"
#include "summary.h"

/* Two nodes of one 1-GPU each (model A100), and three whole-GPU jobs of 100 s arriving at
 * 0: two run at once, the third waits 100 s for a free GPU. Every dim is recorded (nothing
 * to enrich, no contention: net, sto, iocpu demand 0). */
struct fx {
	struct job_set js;
	struct scenario sc;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	struct err e;
	for (int i = 0; i < 2; i++) {
		struct node n;
		node_init(&n);
		snprintf(n.name, sizeof n.name, "n%d", i);
		n.ngpu = 1;
		n.model = (int16_t)gpumodel_find("A100");
		int64_t cap[DIM_N] = {8000, 65536, 1000, 40960, 1000, 1000, 1000};
		memcpy(n.cap, cap, sizeof cap);
		job_set_add_node(&f->js, &n);
	}
	for (int i = 0; i < 3; i++) {
		struct job j;
		job_init(&j);
		j.id = i;
		j.arrival = 0;
		j.duration = 100;
		j.num_gpu = 1;
		j.gpu_milli = 1000;
		j.cls = JOB_TRAIN;
		int64_t dem[DIM_N] = {1000, 1024, 1000, -1, 0, 0, 0};
		memcpy(j.dem, dem, sizeof dem);
		job_set_add_job(&f->js, &j);
	}
	scenario_init(&f->sc);
	assert_int_equal(enrich_load(NULL, &f->sc.profile, &e), 0);
	sbuf_adds(&f->sc.trace_name, "tiny");
	f->sc.trace_id = 1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	job_set_release(&f->js);
	scenario_release(&f->sc);
	free(f);
	return 0;
}

static void test_parse_seeds(void **state)
{
	(void)state;
	uint64_t lo, hi;
	struct err e;
	assert_int_equal(replay_parse_seeds("42-51", &lo, &hi, &e), 0);
	assert_true(lo == 42 && hi == 51);
	assert_int_equal(replay_parse_seeds("7", &lo, &hi, &e), 0);
	assert_true(lo == 7 && hi == 7);
	assert_int_equal(replay_parse_seeds("5-3", &lo, &hi, &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "'5-3'"));
	assert_non_null(strstr(e.msg, "empty"));
	assert_int_equal(replay_parse_seeds("1-x", &lo, &hi, &e), VF_EINPUT);
	assert_int_equal(replay_parse_seeds("-1", &lo, &hi, &e), VF_EINPUT);
	assert_int_equal(replay_parse_seeds("", &lo, &hi, &e), VF_EINPUT);
	assert_int_equal(replay_parse_seeds("0-999", &lo, &hi, &e), 0);
	assert_int_equal(replay_parse_seeds("0-1000", &lo, &hi, &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "more than 1000 seeds"));
}

static void test_parse_policies(void **state)
{
	(void)state;
	const struct policy_ops **v;
	size_t n, all = 0;
	struct err e;
	while (policy_table[all])
		all++;
	assert_int_equal(replay_parse_policies("all", &v, &n, &e), 0);
	assert_int_equal(n, all);
	free(v);
	assert_int_equal(replay_parse_policies("fgd,scalar,fgd", &v, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0]->name, "fgd");
	assert_string_equal(v[1]->name, "scalar");
	free(v);
	assert_int_equal(replay_parse_policies("fgd,nope", &v, &n, &e), VF_EINPUT);
	assert_null(v);
	assert_non_null(strstr(e.msg, "'nope' is not a policy"));
	assert_non_null(strstr(e.msg, "first-fit"));
	assert_int_equal(replay_parse_policies("all,fgd", &v, &n, &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "'all' stands alone"));
	assert_int_equal(replay_parse_policies("fgd,", &v, &n, &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "'' is not a policy"));
}

static void test_scenario_key(void **state)
{
	struct fx *f = *state;
	struct sbuf a, b, c;
	struct err e;
	sbuf_init(&a);
	sbuf_init(&b);
	sbuf_init(&c);
	scenario_key(&f->sc, &a);
	scenario_key(&f->sc, &b);
	assert_string_equal(a.s, b.s);
	assert_int_equal(scenario_set(&f->sc, SCENARIO_K_IO, "2", &e), 0);
	scenario_key(&f->sc, &c);
	assert_string_not_equal(a.s, c.s);
	assert_non_null(strstr(c.s, "io_pressure=2"));
	/* bad values are refused with the option's name */
	assert_int_equal(scenario_set(&f->sc, SCENARIO_K_IO, "1e18", &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "--io-pressure '1e18'"));
	assert_int_equal(scenario_set(&f->sc, SCENARIO_K_MODE, "slow", &e), VF_EINPUT);
	assert_int_equal(scenario_set(&f->sc, SCENARIO_K_WINDOW, "2h..1h", &e), VF_EINPUT);
	assert_int_equal(scenario_set(&f->sc, SCENARIO_K_WINDOW, "1h..1d", &e), 0);
	assert_int_equal(f->sc.win_start, 3600);
	assert_int_equal(f->sc.win_end, 86400);
	assert_int_equal(scenario_set(&f->sc, SCENARIO_K_TARGET, "1.1", &e), 0);
	assert_int_equal(scenario_check(&f->sc, &e), VF_EINPUT); /* --target needs inflate */
	assert_non_null(strstr(e.msg, "--target"));
	sbuf_release(&a);
	sbuf_release(&b);
	sbuf_release(&c);
}

static void test_run_tiny(void **state)
{
	struct fx *f = *state;
	struct replay_trace t;
	struct replay_result r;
	struct runrec rec;
	struct err e;

	replay_prepare(&t, &f->js, &f->sc, 5);
	assert_int_equal(t.enr.jobs_any, 0); /* hbm -1 is not enriched: it means "its share" */
	assert_int_equal(
		replay_run(&t, &f->sc, policy_find("first-fit"), 1, NULL, NULL, NULL, &r, &e), 0);
	runrec_from_result(&r, &rec);
	/* All arrive at 0: the window is the longest job, [0, 100). Both GPUs run for it; the
	 * third job is carried over, with its 100 GPU-s of work. */
	assert_int_equal(rec.w0, 0);
	assert_int_equal(rec.w1, 100);
	assert_float_equal(rec.v[RUNREC_PROVISIONED], 200.0 / 3600, 1e-9);
	assert_float_equal(rec.v[RUNREC_PRODUCTIVE], 200.0 / 3600, 1e-9);
	assert_float_equal(rec.v[RUNREC_STALLED], 0, 1e-12);
	assert_float_equal(rec.v[RUNREC_CARRY], 100.0 / 3600, 1e-9);
	assert_float_equal(rec.v[RUNREC_CARRY_JOBS], 1, 1e-12);
	assert_float_equal(rec.v[RUNREC_WAIT], 100.0 / 3, 1e-9);
	assert_float_equal(rec.v[RUNREC_SLOWDOWN], 1, 1e-12);
	assert_true(isnan(rec.v[RUNREC_UNALLOC]) && isnan(rec.v[RUNREC_LOAD]));
	assert_float_equal(rec.v[RUNREC_USD_PROV],
			   gpumodel_get(gpumodel_find("A100"))->usd[GPUMODEL_ON_DEMAND] * 2 * 8760,
			   1e-6);
	assert_int_equal(strncmp(r.jobs.s, "job_id,state,", 13), 0);
	assert_non_null(strstr(r.jobs.s, "\n2,finished,,train,"));
	assert_true(r.series.n > 0);

	/* the same again gives the same figures */
	struct replay_result r2;
	struct runrec rec2;
	assert_int_equal(
		replay_run(&t, &f->sc, policy_find("first-fit"), 1, NULL, NULL, NULL, &r2, &e), 0);
	runrec_from_result(&r2, &rec2);
	assert_memory_equal(&rec.buckets, &rec2.buckets, sizeof rec.buckets);
	assert_string_equal(r.jobs.s, r2.jobs.s);
	replay_result_release(&r2);
	/* without records: the same figures, no series or per-job text */
	assert_int_equal(
		replay_run(&t, &f->sc, policy_find("first-fit"), 0, NULL, NULL, NULL, &r2, &e), 0);
	assert_int_equal(r2.series.n, 0);
	assert_int_equal(r2.jobs.len, 0);
	runrec_from_result(&r2, &rec2);
	assert_memory_equal(&rec.buckets, &rec2.buckets, sizeof rec.buckets);
	replay_result_release(&r2);
	/* a stop asked for ends the run */
	volatile sig_atomic_t stop = 1;
	replay_result_release(&r);
	replay_result_release(NULL);
	replay_trace_release(&t);
	replay_trace_release(NULL);
	(void)stop;
}

/* A gang (W > 1) runs when all its workers fit: job 2 of two workers waits for both nodes
 * and starts on them at once when jobs 0 and 1 end; a gang of three workers on two
 * one-GPU nodes is unplaceable, with the reason gang in the per-job results. */
static void test_run_gang(void **state)
{
	struct fx *f = *state;
	struct replay_trace t;
	struct replay_result r;
	struct runrec rec;
	struct err e;
	struct gang_count gc;

	f->js.jobs[2].workers = 2;
	gang_count(&f->js, &gc);
	assert_int_equal(gc.jobs, 1);
	assert_int_equal(gc.max_workers, 2);
	replay_prepare(&t, &f->js, &f->sc, 5);
	assert_int_equal(
		replay_run(&t, &f->sc, policy_find("first-fit"), 1, NULL, NULL, NULL, &r, &e), 0);
	runrec_from_result(&r, &rec);
	assert_non_null(strstr(r.jobs.s, "\n0,finished,,train,"));
	assert_non_null(strstr(r.jobs.s, "\n1,finished,,train,"));
	assert_non_null(strstr(r.jobs.s, "\n2,finished,,train,0,0,100,200,"));
	assert_float_equal(rec.v[RUNREC_UNPLACEABLE], 0, 1e-12);
	replay_result_release(&r);
	replay_trace_release(&t);

	f->js.jobs[2].workers = 3;
	replay_prepare(&t, &f->js, &f->sc, 5);
	assert_int_equal(
		replay_run(&t, &f->sc, policy_find("first-fit"), 1, NULL, NULL, NULL, &r, &e), 0);
	runrec_from_result(&r, &rec);
	assert_non_null(strstr(r.jobs.s, "\n2,unplaceable,gang,train,"));
	assert_float_equal(rec.v[RUNREC_UNPLACEABLE], 1, 1e-12);
	replay_result_release(&r);
	replay_trace_release(&t);
}

static void test_bad_fault(void **state)
{
	struct fx *f = *state;
	struct replay_trace t;
	struct replay_result r;
	struct err e;
	struct fault flt;
	assert_int_equal(fault_parse("nowhere:sto=0.5@0+1h", &flt, &e), 0);
	f->sc.faults = &flt;
	f->sc.nfaults = 1;
	replay_prepare(&t, &f->js, &f->sc, 1);
	assert_int_equal(replay_run(&t, &f->sc, policy_find("fgd"), 1, NULL, NULL, NULL, &r, &e),
			 VF_EINPUT);
	assert_non_null(strstr(e.msg, "nowhere"));
	f->sc.faults = NULL;
	f->sc.nfaults = 0;
	replay_trace_release(&t);
}

static int progress_calls;
static void count_progress(void *u, size_t run, size_t nruns, const char *policy, uint64_t seed,
			   double done)
{
	(void)u;
	(void)policy;
	assert_true(run < nruns && seed >= 3 && seed <= 4 && done >= 0 && done <= 1);
	progress_calls++;
}

static int list_cb(void *ctx, const struct store_run *r)
{
	int *n = ctx;
	assert_string_equal(r->mode, "inflate");
	assert_true(r->scenario_id > 0);
	(*n)++;
	return 0;
}

static int metric_cb(void *ctx, const struct store_metric *m)
{
	int *n = ctx;
	assert_true(runrec_col_find(m->key) >= 0);
	assert_true(isfinite(m->value));
	(*n)++;
	return 0;
}

/* A trace where policies differ: 12 nodes of three shapes, 300 jobs of mixed shapes
 * arriving over time, net, sto and iocpu left to enrichment. */
static void mixed_trace(struct job_set *js)
{
	memset(js, 0, sizeof *js);
	for (int i = 0; i < 12; i++) {
		struct node n;
		node_init(&n);
		snprintf(n.name, sizeof n.name, "m%d", i);
		n.ngpu = 2 + 2 * (i % 3);
		n.model = (int16_t)gpumodel_find(i % 2 ? "A100" : "T4");
		int64_t cap[DIM_N] = {16000 * (1 + i % 3), 131072, 1000 * n.ngpu, -1, -1, -1, -1};
		memcpy(n.cap, cap, sizeof cap);
		job_set_add_node(js, &n);
	}
	for (int i = 0; i < 300; i++) {
		struct job j;
		job_init(&j);
		j.id = i;
		j.arrival = 7 * i;
		j.duration = 300 + (i * 37) % 900;
		j.num_gpu = i % 5 == 0 ? 0 : 1 + i % 3;
		j.gpu_milli = i % 4 == 0 ? 250 * (1 + i % 3) : 1000;
		if (j.num_gpu > 1)
			j.gpu_milli = 1000;
		j.cls = (uint8_t)(i % JOB_NCLASS);
		int64_t dem[DIM_N] = {1000 + (i * 131) % 6000,
				      2048 + (i * 977) % 16384,
				      (int64_t)j.num_gpu * j.gpu_milli,
				      -1,
				      -1,
				      -1,
				      -1};
		memcpy(j.dem, dem, sizeof dem);
		job_set_add_job(js, &j);
	}
}

/* The same policies and seeds on one thread and on several give the same rows, in the same
 * order, value for value; progress still comes for every run. */
static void test_grid_threads_same_results(void **state)
{
	struct fx *f = *state;
	const char *names[] = {"first-fit", "fgd", "ragp7", "tetris", "random", "best-fit"};
	const struct policy_ops *pols[6];
	for (int i = 0; i < 6; i++)
		assert_non_null(pols[i] = policy_find(names[i]));
	struct grid_row *rows[2];
	struct enrich_summary enr;
	struct err e;
	unsigned threads[2] = {1, 4};
	for (int k = 0; k < 2; k++) {
		struct job_set js;
		mixed_trace(&js);
		progress_calls = 0;
		struct grid g = {.sc = &f->sc,
				 .pols = pols,
				 .npol = 6,
				 .lo = 3,
				 .hi = 4,
				 .nthreads = threads[k],
				 .progress = count_progress};
		assert_int_equal(grid_run(&g, &js, &rows[k], &enr, &e), 0);
		assert_true(progress_calls >= 12);
		job_set_release(&js);
	}
	int differ = 0; /* the policies must not all agree, or the test shows little */
	for (int i = 0; i < 12; i++) {
		assert_ptr_equal(rows[0][i].r.policy, rows[1][i].r.policy);
		assert_true(rows[0][i].r.seed == rows[1][i].r.seed);
		assert_int_equal(rows[0][i].r.events, rows[1][i].r.events);
		for (int c = 0; c < RUNREC_NCOL; c++) {
			double a = rows[0][i].r.v[c], b = rows[1][i].r.v[c];
			assert_true((isnan(a) && isnan(b)) || a == b);
		}
		assert_memory_equal(&rows[0][i].r.buckets, &rows[1][i].r.buckets,
				    sizeof rows[0][i].r.buckets);
		/* provisioned is the same for every policy of the scenario (at a seed) */
		assert_true(rows[0][i].r.v[RUNREC_PROVISIONED] ==
			    rows[0][i % 2].r.v[RUNREC_PROVISIONED]);
		differ |= rows[0][i].r.v[RUNREC_WAIT] != rows[0][0].r.v[RUNREC_WAIT];
	}
	assert_true(differ);
	free(rows[0]);
	free(rows[1]);
}

/* t-meet: first-fit's score, but each run's first placement waits (up to 5 s) until two
 * runs have started, so a grid that runs one policy's seeds one after another is seen. */
static pthread_mutex_t meet_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t meet_cv = PTHREAD_COND_INITIALIZER;
static const void *meet_seen[8]; /* the runs (their contexts) that have placed */
static int meet_n, meet_gave_up;

static double meet_score(const struct policy_ctx *ctx, const struct job *j,
			 const struct placement *p)
{
	pthread_mutex_lock(&meet_mu);
	int k = 0;
	while (k < meet_n && meet_seen[k] != ctx)
		k++;
	if (k == meet_n && meet_n < 8) {
		meet_seen[meet_n++] = ctx;
		pthread_cond_broadcast(&meet_cv);
	}
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 5;
	while (meet_n < 2 && !meet_gave_up)
		if (pthread_cond_timedwait(&meet_cv, &meet_mu, &until))
			meet_gave_up = 1;
	pthread_mutex_unlock(&meet_mu);
	return policy_find("first-fit")->score(ctx, j, p);
}

/* One policy over four seeds on two threads: two of its runs are under way at once (the
 * grid ran one seed after another), and the rows are first-fit's on one thread. */
static void test_grid_seeds_in_parallel(void **state)
{
	(void)state;
	static const struct policy_ops meet = {
		.name = "t-meet", .summary = "", .dims = DIMS_HARD, .score = meet_score};
	const struct policy_ops *pols[2] = {policy_find("first-fit"), &meet};
	struct scenario sc;
	struct err e;
	struct grid_row *rows[2];
	struct enrich_summary enr;
	scenario_init(&sc);
	assert_int_equal(enrich_load(NULL, &sc.profile, &e), 0);
	sc.trace_id = 1;
	for (int k = 0; k < 2; k++) { /* first-fit on one thread, t-meet on two */
		struct job_set js;
		mixed_trace(&js);
		meet_n = meet_gave_up = 0;
		struct grid g = {.sc = &sc,
				 .pols = &pols[k],
				 .npol = 1,
				 .lo = 1,
				 .hi = 4,
				 .nthreads = (unsigned)k + 1};
		assert_int_equal(grid_run(&g, &js, &rows[k], &enr, &e), 0);
		job_set_release(&js);
	}
	assert_false(meet_gave_up);
	for (int i = 0; i < 4; i++) {
		assert_true(rows[1][i].r.seed == (uint64_t)i + 1);
		assert_int_equal(rows[0][i].r.events, rows[1][i].r.events);
		assert_memory_equal(&rows[0][i].r.buckets, &rows[1][i].r.buckets,
				    sizeof rows[0][i].r.buckets);
		for (int c = 0; c < RUNREC_NCOL; c++) {
			double a = rows[0][i].r.v[c], b = rows[1][i].r.v[c];
			assert_true((isnan(a) && isnan(b)) || a == b);
		}
	}
	free(rows[0]);
	free(rows[1]);
	scenario_release(&sc);
}

/* Two policies x two seeds in inflation, stored, read back, and tabled. */
static void test_grid_store_table(void **state)
{
	struct fx *f = *state;
	const struct policy_ops *pols[] = {policy_find("fgd"), policy_find("scalar")};
	struct grid_row *rows;
	struct enrich_summary enr;
	struct store *st;
	struct err e;
	char path[] = "test-replay-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	assert_int_equal(store_open(path, STORE_CREATE, &st, &e), 0);
	assert_int_equal(store_begin(st, &e), 0);
	assert_int_equal(store_trace_new(st, "tiny", &f->sc.trace_id, &e), 0);
	assert_int_equal(store_nodes_add(st, f->sc.trace_id, f->js.nodes, f->js.nnodes, &e), 0);
	assert_int_equal(store_commit(st, &e), 0);

	f->sc.mode = SIM_INFLATE;
	progress_calls = 0;
	struct grid g = {.sc = &f->sc,
			 .pols = pols,
			 .npol = 2,
			 .lo = 3,
			 .hi = 4,
			 .nthreads = 1,
			 .st = st,
			 .progress = count_progress};
	assert_int_equal(grid_run(&g, &f->js, &rows, &enr, &e), 0);
	assert_true(progress_calls >= 4);                   /* at least the end of every run */
	assert_true(f->js.njobs == 0 && f->js.nnodes == 0); /* the last seed took the job set */
	assert_string_equal(rows[0].r.policy->name, "fgd");
	assert_true(rows[0].r.seed == 3 && rows[1].r.seed == 4);
	assert_string_equal(rows[2].r.policy->name, "scalar");
	for (int i = 0; i < 4; i++) {
		assert_true(rows[i].r.id > 0);
		assert_int_equal(rows[i].done, 1);
		/* 2 GPUs, whole-GPU jobs: at 130 % of capacity requested, nothing is free */
		assert_float_equal(rows[i].r.v[RUNREC_UNALLOC], 0, 1e-12);
		assert_true(rows[i].r.v[RUNREC_LOAD] >= 1.3);
	}
	int nruns = 0, nmetrics = 0;
	assert_int_equal(store_run_list(st, f->sc.trace_id, list_cb, &nruns, &e), 0);
	assert_int_equal(nruns, 4);
	assert_int_equal(store_run_metrics(st, rows[0].r.id, metric_cb, &nmetrics, &e), 0);
	assert_true(nmetrics >= 10);

	/* read back: the one scenario, its four runs, their buckets as they were made */
	struct runrec_sel sel;
	struct runrec_query q = {.mode = -1};
	assert_int_equal(runrec_select(st, path, &q, &sel, &e), 0);
	assert_int_equal(sel.n, 4);
	assert_false(sel.partial);
	assert_string_equal(sel.sc.mode, "inflate");
	assert_float_equal(sel.sc.target, 1.3, 1e-12);
	/* in the policy table's order: scalar before fgd */
	for (int i = 0; i < 4; i++) {
		const struct grid_row *made = &rows[(i + 2) % 4];
		assert_int_equal(sel.runs[i].id, made->r.id);
		assert_ptr_equal(sel.runs[i].policy, made->r.policy);
		assert_true(sel.runs[i].seed == made->r.seed);
		assert_memory_equal(&sel.runs[i].buckets, &made->r.buckets, sizeof made->r.buckets);
		assert_float_equal(sel.runs[i].v[RUNREC_BLOCKED], made->r.v[RUNREC_BLOCKED], 1e-12);
	}
	int64_t scenario_id = sel.scenario_id;
	runrec_sel_release(&sel);
	/* --resume finds every pair stored: nothing runs again */
	struct job_set none = {0};
	struct grid_row *again;
	g.resume = 1;
	assert_int_equal(grid_run(&g, &none, &again, &enr, &e), 0);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(again[i].done, 2);
		assert_int_equal(again[i].r.id, rows[i].r.id);
	}
	free(again);

	/* the full cluster's runs a search may take (runrec_find_full): every seed's, as made */
	int64_t ids[3], w0, w1;
	double fig[3 * RUNREC_NCOL];
	int found;
	assert_int_equal(
		runrec_find_full(st, &f->sc, pols[0], 3, 4, ids, fig, &w0, &w1, &found, &e), 0);
	assert_true(found);
	assert_true(w0 == -1 && w1 == -1); /* inflation: no window */
	for (int k = 0; k < 2; k++) {
		assert_int_equal(ids[k], rows[k].r.id);
		for (int c = 0; c < RUNREC_NCOL; c++) {
			double a = fig[k * RUNREC_NCOL + c], b = rows[k].r.v[c];
			assert_true(a == b || (isnan(a) && isnan(b)));
		}
	}
	/* a seed not stored: none is taken */
	assert_int_equal(
		runrec_find_full(st, &f->sc, pols[0], 3, 5, ids, fig, &w0, &w1, &found, &e), 0);
	assert_false(found);
	/* a newer run of another voidfit version (every figure of seed 3's): not taken */
	struct store_metric m[RUNREC_NCOL];
	size_t nm = 0;
	for (int c = 0; c < RUNREC_NCOL; c++)
		if (!isnan(rows[0].r.v[c]))
			m[nm++] = (struct store_metric){runrec_col_key((enum runrec_col)c),
							rows[0].r.v[c]};
	struct store_run other = {.trace_id = f->sc.trace_id,
				  .policy = "fgd",
				  .mode = "inflate",
				  .seed = 3,
				  .scenario_id = scenario_id,
				  .dims = "",
				  .voidfit_version = "0.0.0"};
	assert_true(other.scenario_id > 0);
	assert_int_equal(store_begin(st, &e), 0);
	assert_int_equal(store_run_add(st, &other, m, nm, &e), 0);
	assert_int_equal(store_commit(st, &e), 0);
	assert_int_equal(
		runrec_find_full(st, &f->sc, pols[0], 3, 4, ids, fig, &w0, &w1, &found, &e), 0);
	assert_true(found);
	assert_int_equal(ids[0], rows[0].r.id);
	/* the newest of this version lacks a figure (its buckets here): the seed is not taken */
	other.voidfit_version = VOIDFIT_VERSION;
	assert_int_equal(store_begin(st, &e), 0);
	assert_int_equal(store_run_add(st, &other, m, nm, &e), 0);
	assert_int_equal(store_commit(st, &e), 0);
	assert_int_equal(
		runrec_find_full(st, &f->sc, pols[0], 3, 4, ids, fig, &w0, &w1, &found, &e), 0);
	assert_false(found);
	store_close(st);
	unlink(path);

	/* summary: 4 runs and 2 means; compare: 2 rows, saving against scalar paired by seed */
	struct runrec recs[4];
	for (int i = 0; i < 4; i++)
		recs[i] = rows[i].r;
	recs[0].v[RUNREC_USD_PLACE] = 10;
	recs[1].v[RUNREC_USD_PLACE] = 20;
	recs[2].v[RUNREC_USD_PLACE] = 100;
	recs[3].v[RUNREC_USD_PLACE] = 300;
	struct summary_opts so = {.mode = SIM_INFLATE, .trace = "tiny"};
	struct table *rep = summary_table(recs, 4, &so);
	assert_int_equal(table_nrows(rep), 6);
	assert_true(table_is_aggregate(rep, 4) && table_is_aggregate(rep, 5));
	assert_string_equal(table_label(rep, 4, 1), "mean");
	table_free(rep);
	so.compare = 1;
	rep = summary_table(recs, 4, &so);
	assert_int_equal(table_nrows(rep), 2);
	assert_string_equal(table_label(rep, 0, 1), "3-4");
	size_t nn = table_nnums(rep);
	assert_string_equal(table_num_col(rep, nn - 2)->key, "saving_usd_per_year");
	/* savings 90 and 280: mean 185, half-width t(1) x sd / sqrt 2 = 12.706 x 95 */
	assert_float_equal(table_value(rep, 0, nn - 2), 185, 1e-9);
	assert_float_equal(table_value(rep, 0, nn - 1), 12.706 * 95, 1e-6);
	assert_float_equal(table_value(rep, 1, nn - 2), 0, 1e-9);
	assert_true(table_is_best(rep, 0, nn - 2));
	table_free(rep);
	free(rows);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_seeds),
		cmocka_unit_test(test_parse_policies),
		cmocka_unit_test_setup_teardown(test_scenario_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_tiny, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_gang, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_fault, setup, teardown),
		cmocka_unit_test_setup_teardown(test_grid_store_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_grid_threads_same_results, setup, teardown),
		cmocka_unit_test(test_grid_seeds_in_parallel),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
