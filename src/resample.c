/*
 * resample.c — the block bootstrap over a trace and the percentile interval (resample.h).
 *
 * Blocks are cut at fixed offsets from the window's start and put back at fixed places,
 * rather than drawn from any start second (a moving or stationary bootstrap), so that a job
 * keeps its time within the block: with day blocks, the day's cycle of submissions.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "resample.h"
#include "rng.h"

int64_t resample_block_default(int64_t t0, int64_t t1)
{
	if (t1 <= t0 || (t0 < 0 && t1 > INT64_MAX + t0))
		return 0;
	int64_t w = t1 - t0;
	if (w >= RESAMPLE_DAYS_FROM)
		return RESAMPLE_DAY;
	if (w >= RESAMPLE_MIN_BLOCKS * RESAMPLE_HOUR)
		return RESAMPLE_HOUR;
	return (w + RESAMPLE_MIN_BLOCKS - 1) / RESAMPLE_MIN_BLOCKS;
}

int resample_window(const struct job_set *js, int64_t win_start, int64_t win_end, int64_t *t0,
		    int64_t *t1, struct err *e)
{
	if (win_start >= 0) {
		*t0 = win_start;
		*t1 = win_end;
	} else if (js->njobs) {
		*t0 = js->jobs[0].arrival;
		*t1 = js->jobs[js->njobs - 1].arrival;
	} else {
		*t0 = *t1 = 0;
	}
	if (*t1 <= *t0)
		return err_set(e, VF_EINPUT,
			       "resample: the window is empty (%s): give --window START..END",
			       js->njobs ? "every job arrives at once" : "no jobs");
	return VF_OK;
}

/* The index of the first job of js arriving at t or later (jobs are in arrival order). */
static size_t first_at(const struct job_set *js, int64_t t)
{
	size_t lo = 0, hi = js->njobs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (js->jobs[mid].arrival < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Append the jobs [from, to) of js shifted by dt seconds. */
static void add_shifted(struct job_set *out, const struct job_set *js, size_t from, size_t to,
			int64_t dt)
{
	for (size_t i = from; i < to; i++) {
		struct job j = js->jobs[i];
		j.arrival += dt;
		job_set_add_job(out, &j);
	}
}

int resample_jobs(const struct job_set *js, int64_t t0, int64_t t1, int64_t block_s, uint64_t seed,
		  struct job_set *out, struct err *e)
{
	if (t1 <= t0 || (t0 < 0 && t1 > INT64_MAX + t0))
		return err_set(e, VF_EINPUT, "resample: window %lld..%lld is empty", (long long)t0,
			       (long long)t1);
	if (block_s < 1)
		return err_set(e, VF_EINPUT, "resample: block of %lld s: it must be 1 s or more",
			       (long long)block_s);
	int64_t w = t1 - t0, nf = w / block_s, rest = w % block_s;
	int64_t nb = nf + (rest > 0);
	if (nb < 2 || nb > RESAMPLE_MAX_BLOCKS)
		return err_set(e, VF_EINPUT,
			       "resample: block of %lld s: the window of %lld s holds %lld blocks "
			       "(2 to %lld)",
			       (long long)block_s, (long long)w, (long long)nb,
			       (long long)RESAMPLE_MAX_BLOCKS);

	/* first[b] = the first job of block b; first[nb] = the first at t1 or later */
	size_t *first = xmalloc(((size_t)nb + 1) * sizeof *first);
	for (int64_t b = 0; b < nb; b++)
		first[b] = first_at(js, t0 + b * block_s);
	first[nb] = first_at(js, t1);

	struct rng r;
	rng_seed(&r, seed);
	job_set_reserve(out, js->njobs);
	add_shifted(out, js, 0, first[0], 0);
	for (int64_t k = 0; k < nb; k++) {
		if (k < nf) {
			int64_t b = (int64_t)rng_below(&r, (uint64_t)nf);
			add_shifted(out, js, first[b], first[b + 1], (k - b) * block_s);
		} else { /* the partial place: the first rest seconds of any block */
			int64_t b = (int64_t)rng_below(&r, (uint64_t)nb);
			size_t end = first_at(js, t0 + b * block_s + rest);
			if (end > first[b + 1])
				end = first[b + 1];
			add_shifted(out, js, first[b], end, (k - b) * block_s);
		}
	}
	add_shifted(out, js, first[nb], js->njobs, 0);
	free(first);
	for (size_t i = 0; i < js->nnodes; i++)
		job_set_add_node(out, &js->nodes[i]);
	return VF_OK;
}

uint64_t resample_seed(uint64_t seed, uint64_t r)
{
	return rng_hash(seed, r, 0x7265736d706c65ULL); /* "resmple": apart from other hashes */
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The type 7 quantile p of the m sorted values x. */
static double quantile(const double *x, size_t m, double p)
{
	double h = (double)(m - 1) * p;
	size_t i = (size_t)floor(h);
	if (i + 1 >= m)
		return x[m - 1];
	return x[i] + (h - (double)i) * (x[i + 1] - x[i]);
}

size_t resample_interval(const double *v, size_t n, double level, double *lo, double *hi)
{
	assert(level > 0 && level < 1);
	double *x = xmalloc((n ? n : 1) * sizeof *x);
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (!isnan(v[i]))
			x[m++] = v[i];
	*lo = *hi = NAN;
	if (m) {
		qsort(x, m, sizeof *x, cmp_double);
		*lo = quantile(x, m, (1 - level) / 2);
		*hi = quantile(x, m, (1 + level) / 2);
	}
	free(x);
	return m;
}
