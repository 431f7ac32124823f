/* test-resample.c — the block bootstrap (reproducible by seed, blocks drawn with
 * replacement, order kept within a block, the job count kept on average, the partial block
 * and the jobs outside the window) and the percentile interval against an independent
 * computation. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "resample.h"
#include "rng.h"
#include "util.h"

static void add(struct job_set *s, int64_t id, int64_t arrival, int64_t duration)
{
	struct job j;
	job_init(&j);
	j.id = id;
	j.arrival = arrival;
	j.duration = duration;
	j.num_gpu = (int32_t)(id % 4);
	if (duration < 0)
		j.flags = JOB_F_NOTRAN;
	job_set_add_job(s, &j);
}

static int same_jobs(const struct job_set *a, const struct job_set *b)
{
	if (a->njobs != b->njobs)
		return 0;
	for (size_t i = 0; i < a->njobs; i++)
		if (a->jobs[i].id != b->jobs[i].id || a->jobs[i].arrival != b->jobs[i].arrival)
			return 0;
	return 1;
}

static void check_sorted(const struct job_set *s)
{
	for (size_t i = 1; i < s->njobs; i++)
		assert_true(s->jobs[i - 1].arrival <= s->jobs[i].arrival);
}

/* 10 blocks of 100 s, block b holding b + 1 jobs: a trace where blocks differ */
static void uneven(struct job_set *s)
{
	int64_t id = 0;
	for (int64_t b = 0; b < 10; b++)
		for (int64_t i = 0; i <= b; i++, id++)
			add(s, id, 100 * b + 7 * i, 50 + id);
	struct node n;
	node_init(&n);
	strcpy(n.name, "n0");
	job_set_add_node(s, &n);
}

static void test_seed_determines(void **state)
{
	(void)state;
	struct job_set js = {0}, a = {0}, b = {0}, c = {0};
	struct err e = {0};
	uneven(&js);
	assert_int_equal(resample_jobs(&js, 0, 1000, 100, 42, &a, &e), 0);
	assert_int_equal(resample_jobs(&js, 0, 1000, 100, 42, &b, &e), 0);
	assert_true(same_jobs(&a, &b));
	assert_int_equal(a.nnodes, 1);
	assert_string_equal(a.nodes[0].name, "n0");
	/* some other seed draws another trace (10^10 orders: the same one is no chance) */
	int differ = 0;
	for (uint64_t s = 43; s < 46; s++) {
		job_set_release(&c);
		assert_int_equal(resample_jobs(&js, 0, 1000, 100, s, &c, &e), 0);
		differ += !same_jobs(&a, &c);
	}
	assert_int_equal(differ, 3);
	/* the seeds of resamples differ by resample and by seed */
	assert_true(resample_seed(1, 0) != resample_seed(1, 1));
	assert_true(resample_seed(1, 0) != resample_seed(2, 0));
	assert_true(resample_seed(1, 1) == resample_seed(1, 1));
	job_set_release(&a);
	job_set_release(&b);
	job_set_release(&c);
	job_set_release(&js);
}

/* One job per block at offset 13: every resample is nb of them, one per place at the same
 * offset, drawn with replacement (repeats happen, and every job is drawn some time). */
static void test_one_job_per_block(void **state)
{
	(void)state;
	enum { NB = 6 };
	struct job_set js = {0}, out = {0};
	struct err e = {0};
	for (int64_t b = 0; b < NB; b++)
		add(&js, b, 1000 + 60 * b + 13, 500);
	int seen[NB] = {0}, repeats = 0;
	for (uint64_t s = 1; s <= 200; s++) {
		assert_int_equal(resample_jobs(&js, 1000, 1000 + 60 * NB, 60, s, &out, &e), 0);
		assert_int_equal(out.njobs, NB);
		int count[NB] = {0};
		for (size_t k = 0; k < NB; k++) {
			const struct job *j = &out.jobs[k];
			assert_int_equal(j->arrival, 1000 + 60 * (int64_t)k + 13);
			assert_true(j->id >= 0 && j->id < NB);
			assert_int_equal(j->duration, 500); /* past its block's end: kept */
			count[j->id]++;
			seen[j->id]++;
		}
		for (int b = 0; b < NB; b++)
			repeats += count[b] > 1;
		job_set_release(&out);
	}
	for (int b = 0; b < NB; b++) /* 1200 draws of 6: each about 200 times */
		assert_true(seen[b] > 120 && seen[b] < 280);
	assert_true(repeats > 100); /* without replacement there would be none */
	job_set_release(&js);
}

/* Jobs of a block keep their order, equal arrivals included, and their other fields. */
static void test_order_within_block(void **state)
{
	(void)state;
	struct job_set js = {0}, out = {0};
	struct err e = {0};
	/* block 0: ids 0..4 at 10, 10, 10, 20, 90; block 1: ids 5..9 at 110, 110, 150, 150, 199 */
	const int64_t at[10] = {10, 10, 10, 20, 90, 110, 110, 150, 150, 199};
	for (int64_t i = 0; i < 10; i++)
		add(&js, i, at[i], i == 3 ? -1 : 1000);
	for (uint64_t s = 1; s <= 20; s++) {
		assert_int_equal(resample_jobs(&js, 0, 200, 100, s, &out, &e), 0);
		assert_int_equal(out.njobs, 10);
		check_sorted(&out);
		for (size_t k = 0; k < 2; k++) {
			const struct job *j = &out.jobs[5 * k];
			int64_t b = j->id / 5;
			for (int64_t i = 0; i < 5; i++) {
				assert_int_equal(j[i].id, 5 * b + i);
				assert_int_equal(j[i].arrival,
						 at[5 * b + i] + (int64_t)(k - b) * 100);
				assert_int_equal(j[i].num_gpu, (5 * b + i) % 4);
				/* a never-ran job is drawn like any other, still never-ran */
				assert_int_equal(j[i].duration, 5 * b + i == 3 ? -1 : 1000);
				assert_int_equal(j[i].flags, 5 * b + i == 3 ? JOB_F_NOTRAN : 0);
			}
		}
		job_set_release(&out);
	}
	job_set_release(&js);
}

/* Over many resamples the number of jobs averages the original's. */
static void test_count_averages(void **state)
{
	(void)state;
	struct job_set js = {0}, out = {0};
	struct err e = {0};
	uneven(&js); /* 55 jobs; a draw holds 10 blocks of 1..10 jobs: sd 2.87 x sqrt 10 */
	enum { N = 4000 };
	double sum = 0;
	for (uint64_t s = 0; s < N; s++) {
		assert_int_equal(resample_jobs(&js, 0, 1000, 100, resample_seed(9, s), &out, &e),
				 0);
		sum += (double)out.njobs;
		check_sorted(&out);
		job_set_release(&out);
	}
	/* the mean's sd is 9.08 / sqrt(4000) = 0.14: 1.0 is seven of them */
	assert_true(fabs(sum / N - 55.0) < 1.0);
	job_set_release(&js);
}

/* A window that blocks do not divide: full places draw full blocks, the partial place the
 * first seconds of any block; jobs outside the window stay where they are. */
static void test_partial_block_and_outside(void **state)
{
	(void)state;
	struct job_set js = {0}, out = {0};
	struct err e = {0};
	/* window [100, 350): full blocks [100,200) [200,300), partial [300,350) */
	add(&js, 0, 5, 10);    /* before the window */
	add(&js, 1, 100, 10);  /* block 0, in its first 50 s */
	add(&js, 2, 180, 10);  /* block 0, after */
	add(&js, 3, 210, 10);  /* block 1, in its first 50 s */
	add(&js, 4, 260, 10);  /* block 1, after */
	add(&js, 5, 340, 10);  /* the partial block */
	add(&js, 6, 350, 10);  /* at the window's end: kept */
	add(&js, 7, 9000, 10); /* after */
	int partial_from[3] = {0};
	for (uint64_t s = 1; s <= 300; s++) {
		assert_int_equal(resample_jobs(&js, 100, 350, 100, s, &out, &e), 0);
		check_sorted(&out);
		assert_int_equal(out.jobs[0].id, 0);
		assert_int_equal(out.jobs[0].arrival, 5);
		assert_int_equal(out.jobs[out.njobs - 1].id, 7);
		assert_int_equal(out.jobs[out.njobs - 2].id, 6);
		assert_int_equal(out.jobs[out.njobs - 2].arrival, 350);
		for (size_t i = 1; i + 2 < out.njobs; i++) {
			const struct job *j = &out.jobs[i];
			assert_true(j->arrival >= 100 && j->arrival < 350);
			if (j->arrival < 300) { /* a full place: a full block, whole */
				assert_true(j->id >= 1 && j->id <= 4);
			} else { /* the partial place: at most its 50 s, from any block */
				assert_true(j->id == 1 || j->id == 3 || j->id == 5);
				assert_true((j->arrival - 100) % 100 < 50);
				partial_from[j->id / 2]++;
			}
		}
		job_set_release(&out);
	}
	for (int i = 0; i < 3; i++) /* every block's first 50 s fills it now and then */
		assert_true(partial_from[i] > 50);
	job_set_release(&js);
}

static void test_unusable(void **state)
{
	(void)state;
	struct job_set js = {0}, out = {0};
	struct err e = {0};
	uneven(&js);
	assert_int_equal(resample_jobs(&js, 10, 10, 1, 1, &out, &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "empty"));
	assert_int_equal(resample_jobs(&js, 0, 1000, 0, 1, &out, &e), VF_EINPUT);
	assert_int_equal(resample_jobs(&js, 0, 1000, 1000, 1, &out, &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "holds 1 blocks"));
	assert_int_equal(resample_jobs(&js, 0, 1000, 2000, 1, &out, &e), VF_EINPUT);
	assert_int_equal(resample_jobs(&js, INT64_MIN, INT64_MAX, 1, 1, &out, &e), VF_EINPUT);
	assert_int_equal(out.njobs, 0);
	assert_int_equal(out.nnodes, 0);
	/* the window: the first to the last arrival, or --window */
	int64_t t0, t1;
	assert_int_equal(resample_window(&js, -1, -1, &t0, &t1, &e), 0);
	assert_int_equal(t0, 0);
	assert_int_equal(t1, 900 + 7 * 9);
	assert_int_equal(resample_window(&js, 50, 70, &t0, &t1, &e), 0);
	assert_int_equal(t0, 50);
	assert_int_equal(t1, 70);
	struct job_set once = {0};
	add(&once, 0, 5, 1);
	add(&once, 1, 5, 1);
	assert_int_equal(resample_window(&once, -1, -1, &t0, &t1, &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "at once"));
	job_set_release(&once);
	job_set_release(&js);
}

static void test_block_default(void **state)
{
	(void)state;
	assert_int_equal(resample_block_default(0, 7 * 86400), 86400);
	assert_int_equal(resample_block_default(100, 100 + 30 * 86400), 86400);
	assert_int_equal(resample_block_default(0, 7 * 86400 - 1), 3600);
	assert_int_equal(resample_block_default(0, 34 * 3600), 3600);
	assert_int_equal(resample_block_default(0, 8 * 3600), 3600);
	assert_int_equal(resample_block_default(0, 8 * 3600 - 1), 3600); /* rounded up */
	assert_int_equal(resample_block_default(0, 800), 100);
	assert_int_equal(resample_block_default(0, 801), 101);
	assert_int_equal(resample_block_default(0, 2), 1);
	assert_int_equal(resample_block_default(5, 5), 0);
	/* every default of a window of 2 s or more is usable */
	struct job_set js = {0}, out = {0};
	struct err e = {0};
	add(&js, 0, 0, 1);
	const int64_t w[] = {2, 3, 9, 800, 28799, 28800, 86400 * 7 - 1, 86400 * 7, 86400 * 40};
	for (size_t i = 0; i < sizeof w / sizeof *w; i++) {
		assert_int_equal(
			resample_jobs(&js, 0, w[i], resample_block_default(0, w[i]), 1, &out, &e),
			0);
		job_set_release(&out);
	}
	job_set_release(&js);
}

/* The interval, against values worked out by hand and against a computation by ranks (no
 * sort: the k-th smallest is the value with k - 1 below it). */
static double kth(const double *v, size_t n, size_t k)
{
	for (size_t i = 0; i < n; i++) {
		size_t below = 0, equal = 0;
		for (size_t j = 0; j < n; j++) {
			below += v[j] < v[i];
			equal += v[j] == v[i];
		}
		if (below <= k && k < below + equal)
			return v[i];
	}
	return NAN;
}

static void test_interval(void **state)
{
	(void)state;
	double lo, hi;
	const double ten[10] = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
	/* p = 0.05: h = 9 x 0.05 = 0.45 -> 1 + 0.45 (2 - 1); p = 0.95: 8.55 -> 9 + 0.55 */
	assert_int_equal(resample_interval(ten, 10, 0.9, &lo, &hi), 10);
	assert_float_equal(lo, 1.45, 1e-12);
	assert_float_equal(hi, 9.55, 1e-12);
	assert_float_equal(ten[0], 10, 0); /* not sorted in place */
	const double some[5] = {3, NAN, 1, NAN, 2};
	assert_int_equal(resample_interval(some, 5, 0.5, &lo, &hi), 3);
	assert_float_equal(lo, 1.5, 1e-12); /* h = 0.5 */
	assert_float_equal(hi, 2.5, 1e-12); /* h = 1.5 */
	const double one = 4;
	assert_int_equal(resample_interval(&one, 1, 0.9, &lo, &hi), 1);
	assert_float_equal(lo, 4, 0);
	assert_float_equal(hi, 4, 0);
	assert_int_equal(resample_interval(NULL, 0, 0.9, &lo, &hi), 0);
	assert_true(isnan(lo) && isnan(hi));

	struct rng r;
	rng_seed(&r, 5);
	double v[101];
	for (size_t n = 2; n <= 101; n += 11) {
		for (size_t i = 0; i < n; i++)
			v[i] = floor(rng_unit(&r) * 20); /* ties */
		const double levels[] = {0.5, 0.8, 0.9, 0.95, 0.99};
		for (size_t l = 0; l < 5; l++) {
			assert_int_equal(resample_interval(v, n, levels[l], &lo, &hi), n);
			for (int side = 0; side < 2; side++) {
				double p = side ? (1 + levels[l]) / 2 : (1 - levels[l]) / 2;
				double h = (double)(n - 1) * p;
				size_t k = (size_t)h;
				double a = kth(v, n, k), b = k + 1 < n ? kth(v, n, k + 1) : a;
				double want = a + (h - (double)k) * (b - a);
				assert_float_equal(side ? hi : lo, want, 1e-9);
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed_determines),
		cmocka_unit_test(test_one_job_per_block),
		cmocka_unit_test(test_order_within_block),
		cmocka_unit_test(test_count_averages),
		cmocka_unit_test(test_partial_block_and_outside),
		cmocka_unit_test(test_unusable),
		cmocka_unit_test(test_block_default),
		cmocka_unit_test(test_interval),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
