/*
 * metrics.h — what a replay cost (DESIGN.md section 7): fragmentation, stranded capacity,
 * slowdown, stalled GPU-hours, queueing delay, JCT, makespan, throughput (overall and per
 * class), and GPU-hours by bucket with their price in $ and $ per year.
 *
 * The sim accumulates time integrals as events happen (sim_counters); metrics_compute turns
 * them and the per-job results into numbers. A series collector (an observer) keeps the
 * sim's samples. No global state: prices come from the GPU model table with overrides in
 * struct metrics_opts.
 *
 * GPU-hours by bucket, exactly: provisioned = productive + stalled + idle_frag + idle_usable
 *   provisioned  GPUs x replayed hours (replayed = makespan: first arrival to last event)
 *   productive   sum over runs that finished of g T_alone, plus work done by running jobs
 *   stalled      allocated - productive: time at rate < 1, and runs lost to preemption
 *   idle_frag    integral of sum_n F_n (free GPU the target workload cannot use), <= idle
 *   idle_usable  the rest of the idle GPU time
 * All are computed per GPU model in integer GPU-milli-seconds, so the sum is exact. In
 * inflation (no durations, one arrival a second) allocated time counts as productive.
 */
#ifndef VOIDFIT_METRICS_H
#define VOIDFIT_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "gpumodel.h"
#include "job.h"
#include "sim.h"
#include "util.h"

struct metrics_opts {
	double price[GPUMODEL_MAX]; /* $ per GPU-hour override of each model; < 0: the table's */
};
/* No overrides. */
void metrics_opts_init(struct metrics_opts *o);
/* Apply one "--gpu-price MODEL=USD" ("A100=2.5"). Returns 0, or VF_EINPUT (unknown model,
 * bad or negative price) with e filled. */
int metrics_price_parse(struct metrics_opts *o, const char *s, struct err *e);
/* The price of one GPU-hour of model id under o. */
double metrics_price(const struct metrics_opts *o, int model);

enum metrics_bucket { MB_PRODUCTIVE, MB_STALLED, MB_IDLE_FRAG, MB_IDLE_USABLE, MB_N };
/* "productive", "stalled", "idle_frag", "idle_usable". */
const char *metrics_bucket_name(enum metrics_bucket b);

/* Job statistics of one class, or of all jobs. Times in seconds; means over the jobs they
 * apply to (0 when none). */
struct metrics_jobs {
	int64_t jobs; /* job instances of the class */
	int64_t finished, running, queued, unplaceable, skipped, preempted;
	double wait_mean; /* queueing delay: start - submit, over started jobs */
	double wait_p95;
	double jct_mean; /* end - submit, over finished jobs */
	double jct_p95;
	double slowdown_mean; /* (end - start) / T_alone, over finished jobs with T_alone > 0 */
	double slowdown_p95;
	double stalled_gpu_hours;   /* sum g (T_actual - T_alone), finished and running */
	double lost_gpu_hours;      /* GPU-hours of runs undone by preemption */
	double throughput_per_hour; /* finished / replayed hours */
};

struct metrics {
	int mode;          /* enum sim_mode */
	int64_t t0, t1;    /* replayed window, seconds */
	double hours;      /* (t1 - t0) / 3600 */
	double makespan_s; /* t1 - t0 */
	int64_t gpus;      /* physical GPUs */
	/* GPU-hours of each bucket, and provisioned (their exact sum, in GPU-milli-s). */
	double gpu_hours[MB_N];
	double provisioned_gpu_hours;
	int64_t bucket_ms[MB_N]; /* the same in GPU-milli-seconds (exact) */
	int64_t provisioned_ms;
	double usd[MB_N], usd_provisioned;           /* over the replayed window */
	double usd_year[MB_N], usd_year_provisioned; /* x 8760 / hours */
	double frag_mean;            /* time-weighted mean FGD fragmentation, [0, 1] */
	double frag_md_mean;         /* time-weighted mean multi-dim fragmentation, [0, 1] */
	double alloc_mean;           /* time-weighted mean allocated GPU share */
	double stranded_mean[DIM_N]; /* time-weighted mean stranded share of each dim */
	struct metrics_jobs all, cls[JOB_NCLASS];
	/* Inflation: the final arrived load and unallocated GPU share, jobs that failed. */
	double load, unalloc_share;
	int64_t failed;
};

/* Compute m from s's counters and job results now (usually at the end of sim_run; at any
 * step for a dashboard). Never fails. */
void metrics_compute(const struct sim *s, const struct metrics_opts *o, struct metrics *m);

/* $ per year of a cost over a window of hours: usd x 8760 / hours (0 when hours is 0). */
double metrics_per_year(double usd, double hours);

/* A time series: the sim's samples, kept by an observer. */
struct metrics_series {
	struct sim_sample *pts;
	size_t n, cap;
};
/* An observer that appends every sample to ser (which must outlive the sim). */
struct sim_observer metrics_series_observer(struct metrics_series *ser);
/* Free ser's points; ser may be NULL. */
void metrics_series_release(struct metrics_series *ser);

/* Inflation: the unallocated GPU share at each whole percent of arrived load 0..target
 * (out[p] for p = 0..n-1, n = floor(target x 100) + 1), read off the series: out[p] is
 * 1 - alloc_share of the first sample whose load reaches p % (the last sample's if none
 * does). Returns n; writes at most max. */
size_t metrics_unalloc_curve(const struct metrics_series *ser, double target, double *out,
			     size_t max);

#endif
