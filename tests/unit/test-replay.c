/* test-replay.c — the replay driver: option pieces, a small run end to end through the sim
 * and metrics, its record in a store, determinism, and the summary and compare tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "replay.h"

/* Two nodes of one 1-GPU each (model A100), and three whole-GPU jobs of 100 s arriving at
 * 0: two run at once, the third waits 100 s for a free GPU. Every dim is recorded (nothing
 * to enrich, no contention: net, sto, iocpu demand 0). */
struct fx {
	struct job_set js;
	struct enrich_profile *prof;
	struct metrics_opts prices;
	struct replay_spec sp;
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
	assert_int_equal(enrich_load(NULL, &f->prof, &e), 0);
	metrics_opts_init(&f->prices);
	f->sp = (struct replay_spec){
		.trace_name = "tiny",
		.trace_id = 1,
		.mode = SIM_TIMED,
		.target = 1.3,
		.queue = SIM_FIFO,
		.lambda = POLICY_LAMBDA,
		.mu = POLICY_MU,
		.coverage = 0.95,
		.profile = f->prof,
		.io_pressure = 1,
		.prices = &f->prices,
	};
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	job_set_release(&f->js);
	enrich_free(f->prof);
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
	assert_int_equal(replay_parse_policies("fgd,", &v, &n, &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "'' is not a policy"));
}

static void test_scenario_key(void **state)
{
	(void)state;
	struct sbuf a, b, c;
	sbuf_init(&a);
	sbuf_init(&b);
	sbuf_init(&c);
	replay_scenario_key("{\"policy\":\"fgd\",\"seed\":\"1\",\"dims\":\"cpu,gpu\",\"io\":1,"
			    "\"enrich_seed\":\"1\"}",
			    &a);
	replay_scenario_key("{\"policy\":\"scalar\",\"seed\":\"22\",\"dims\":\"gpu\",\"io\":1,"
			    "\"enrich_seed\":\"22\"}",
			    &b);
	replay_scenario_key("{\"policy\":\"fgd\",\"seed\":\"1\",\"dims\":\"cpu,gpu\",\"io\":2,"
			    "\"enrich_seed\":\"1\"}",
			    &c);
	assert_string_equal(a.s, "{\"io\":1,}");
	assert_string_equal(a.s, b.s);
	assert_string_not_equal(a.s, c.s);
	sbuf_release(&a);
	sbuf_release(&b);
	sbuf_release(&c);
}

static void test_run_tiny(void **state)
{
	struct fx *f = *state;
	struct replay_trace t;
	struct replay_result r;
	struct err e;
	double v[REPLAY_NCOL];

	replay_prepare(&t, &f->js, &f->sp, 5);
	assert_int_equal(t.enr.jobs_any, 0); /* hbm -1 is not enriched: it means "its share" */
	assert_int_equal(replay_run(&t, &f->sp, policy_find("first-fit"), 1, NULL, NULL, &r, &e),
			 0);
	replay_values(&r, v);
	/* 2 GPUs for 200 s; 3 jobs x 100 GPU-s of work; the third waited 100 s */
	assert_float_equal(v[REPLAY_PROVISIONED], 400.0 / 3600, 1e-9);
	assert_float_equal(v[REPLAY_PRODUCTIVE], 300.0 / 3600, 1e-9);
	assert_float_equal(v[REPLAY_STALLED], 0, 1e-12);
	assert_float_equal(v[REPLAY_WAIT], 100.0 / 3, 1e-9);
	assert_float_equal(v[REPLAY_SLOWDOWN], 1, 1e-12);
	assert_true(isnan(v[REPLAY_UNALLOC]) && isnan(v[REPLAY_LOAD]) && isnan(v[REPLAY_SAVING]));
	assert_float_equal(v[REPLAY_USD_PROV], 4.10 * 2 * 8760, 1e-6);
	/* the record names every parameter, and the seed as text */
	assert_non_null(strstr(r.params.s, "\"policy\":\"first-fit\""));
	assert_non_null(strstr(r.params.s, "\"seed\":\"5\""));
	assert_non_null(strstr(r.params.s, "\"queue\":\"fifo\""));
	assert_non_null(strstr(r.params.s, "\"trace\":\"tiny\""));
	assert_non_null(strstr(r.params.s, "\"faults\":[]"));
	assert_non_null(strstr(r.summary.s, "\"mean_fragmentation\":"));
	assert_int_equal(strncmp(r.jobs.s, "job_id,state,", 13), 0);
	assert_non_null(strstr(r.jobs.s, "\n2,finished,,train,"));
	assert_int_equal(strncmp(r.series.s, "t,load,", 7), 0);

	/* the same again gives the same bytes */
	struct replay_result r2;
	assert_int_equal(replay_run(&t, &f->sp, policy_find("first-fit"), 1, NULL, NULL, &r2, &e),
			 0);
	assert_string_equal(r.params.s, r2.params.s);
	assert_string_equal(r.summary.s, r2.summary.s);
	assert_string_equal(r.series.s, r2.series.s);
	assert_string_equal(r.jobs.s, r2.jobs.s);
	replay_result_release(&r2);
	/* without records: the same figures, no series or per-job text */
	assert_int_equal(replay_run(&t, &f->sp, policy_find("first-fit"), 0, NULL, NULL, &r2, &e),
			 0);
	assert_int_equal(r2.series.len, 0);
	assert_int_equal(r2.jobs.len, 0);
	assert_string_equal(r.summary.s, r2.summary.s);
	replay_result_release(&r2);
	replay_result_release(&r);
	replay_result_release(NULL);
	replay_trace_release(&t);
	replay_trace_release(NULL);
}

static void test_bad_fault(void **state)
{
	struct fx *f = *state;
	struct replay_trace t;
	struct replay_result r;
	struct err e;
	struct fault flt;
	assert_int_equal(fault_parse("nowhere:sto=0.5@0+1h", &flt, &e), 0);
	f->sp.faults = &flt;
	f->sp.nfaults = 1;
	replay_prepare(&t, &f->js, &f->sp, 1);
	assert_int_equal(replay_run(&t, &f->sp, policy_find("fgd"), 1, NULL, NULL, &r, &e),
			 VF_EINPUT);
	assert_non_null(strstr(e.msg, "nowhere"));
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
	assert_non_null(strstr(r->params_json, "\"target\":1.3"));
	(*n)++;
	return 0;
}

static int metric_cb(void *ctx, const struct store_metric *m)
{
	int *n = ctx;
	assert_true(replay_col_find(m->key) >= 0);
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
	struct replay_row *rows[2];
	struct enrich_summary enr;
	struct err e;
	unsigned threads[2] = {1, 4};
	for (int k = 0; k < 2; k++) {
		struct job_set js;
		mixed_trace(&js);
		progress_calls = 0;
		assert_int_equal(replay_grid(&js, &f->sp, pols, 6, 3, 4, threads[k], NULL,
					     count_progress, NULL, &rows[k], &enr, &e),
				 0);
		assert_true(progress_calls >= 12);
		job_set_release(&js);
	}
	int differ = 0; /* the policies must not all agree, or the test shows little */
	for (int i = 0; i < 12; i++) {
		assert_string_equal(rows[0][i].policy, rows[1][i].policy);
		assert_true(rows[0][i].seed == rows[1][i].seed);
		assert_int_equal(rows[0][i].events, rows[1][i].events);
		for (int c = 0; c < REPLAY_NCOL; c++) {
			double a = rows[0][i].v[c], b = rows[1][i].v[c];
			assert_true((isnan(a) && isnan(b)) || a == b);
		}
		differ |= rows[0][i].v[REPLAY_WAIT] != rows[0][0].v[REPLAY_WAIT];
	}
	assert_true(differ);
	free(rows[0]);
	free(rows[1]);
}

/* Two policies x two seeds in inflation, stored, read back, and tabled. */
static void test_grid_store_table(void **state)
{
	struct fx *f = *state;
	const struct policy_ops *pols[] = {policy_find("fgd"), policy_find("scalar")};
	struct replay_row *rows;
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
	assert_int_equal(store_trace_new(st, "tiny", &f->sp.trace_id, &e), 0);
	assert_int_equal(store_nodes_add(st, f->sp.trace_id, f->js.nodes, f->js.nnodes, &e), 0);
	assert_int_equal(store_commit(st, &e), 0);

	f->sp.mode = SIM_INFLATE;
	progress_calls = 0;
	assert_int_equal(replay_grid(&f->js, &f->sp, pols, 2, 3, 4, 1, st, count_progress, NULL,
				     &rows, &enr, &e),
			 0);
	assert_true(progress_calls >= 4);                   /* at least the end of every run */
	assert_true(f->js.njobs == 0 && f->js.nnodes == 0); /* the last seed took the job set */
	assert_string_equal(rows[0].policy, "fgd");
	assert_true(rows[0].seed == 3 && rows[1].seed == 4);
	assert_string_equal(rows[2].policy, "scalar");
	for (int i = 0; i < 4; i++) {
		assert_true(rows[i].run_id > 0);
		/* 2 GPUs, whole-GPU jobs: at 130 % of capacity requested, nothing is free */
		assert_float_equal(rows[i].v[REPLAY_UNALLOC], 0, 1e-12);
		assert_true(rows[i].v[REPLAY_LOAD] >= 1.3);
	}
	int nruns = 0, nmetrics = 0;
	assert_int_equal(store_run_list(st, f->sp.trace_id, list_cb, &nruns, &e), 0);
	assert_int_equal(nruns, 4);
	assert_int_equal(store_run_metrics(st, rows[0].run_id, metric_cb, &nmetrics, &e), 0);
	assert_true(nmetrics >= 10);
	store_close(st);
	unlink(path);

	/* summary: 4 runs and 2 means; compare: 2 rows, saving against scalar */
	rows[0].v[REPLAY_USD_WASTED] = 10;
	rows[1].v[REPLAY_USD_WASTED] = 20;
	rows[2].v[REPLAY_USD_WASTED] = 100;
	rows[3].v[REPLAY_USD_WASTED] = 300;
	struct table *rep = replay_table(rows, 4, SIM_INFLATE, 0, "tiny");
	assert_int_equal(table_nrows(rep), 6);
	assert_true(table_is_aggregate(rep, 4) && table_is_aggregate(rep, 5));
	assert_string_equal(table_label(rep, 4, 1), "mean");
	table_free(rep);
	rep = replay_table(rows, 4, SIM_INFLATE, 1, "tiny");
	assert_int_equal(table_nrows(rep), 2);
	assert_string_equal(table_label(rep, 0, 1), "3-4");
	size_t nn = table_nnums(rep);
	assert_string_equal(table_num_col(rep, nn - 1)->key, "saving_vs_scalar_usd_per_year");
	assert_float_equal(table_value(rep, 0, nn - 1), 200 - 15, 1e-9);
	assert_float_equal(table_value(rep, 1, nn - 1), 0, 1e-9);
	assert_true(table_is_best(rep, 0, nn - 1));
	table_free(rep);
	free(rows);
}

static void test_cluster_replace(void **state)
{
	struct fx *f = *state;
	struct err e;
	const char good[] = "big 3 H100 8 cpu=192000 mem=2097152\n";
	assert_int_equal(replay_use_cluster(&f->js, good, strlen(good), "c.spec", &e), 0);
	assert_int_equal(f->js.nnodes, 3);
	assert_int_equal(f->js.nodes[2].ngpu, 8);
	assert_int_equal(f->js.njobs, 3);
	const char bad[] = "big x H100 8\n";
	assert_int_not_equal(replay_use_cluster(&f->js, bad, strlen(bad), "c.spec", &e), 0);
	assert_non_null(strstr(e.msg, "c.spec:1"));
	assert_int_equal(f->js.nnodes, 3); /* unchanged */
	assert_int_equal(replay_use_cluster(&f->js, "# none\n", 7, "c.spec", &e), VF_EINPUT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_seeds),
		cmocka_unit_test(test_parse_policies),
		cmocka_unit_test(test_scenario_key),
		cmocka_unit_test_setup_teardown(test_run_tiny, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_fault, setup, teardown),
		cmocka_unit_test_setup_teardown(test_grid_store_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_grid_threads_same_results, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cluster_replace, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
