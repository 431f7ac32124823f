/*
 * metrics.h — what a replay cost (DESIGN.md section 7): fragmentation, stranded capacity,
 * slowdown, stalled GPU-hours, queueing delay, JCT, makespan, throughput (overall and per
 * class), and provisioned GPU time by bucket, with its price in $ per year.
 *
 * The sim accumulates time integrals as events happen (sim_counters); metrics_compute turns
 * them and the per-job results into numbers. A series collector (an observer) keeps the
 * sim's samples. No global state: prices come from the GPU model table, in the tier and with
 * the overrides of struct metrics_opts.
 *
 * Buckets (sim.h's enum sim_bucket), per GPU model and job class, exactly:
 *   provisioned = productive + stalled + lost + blocked (shape, dim, model, queue, full)
 *                 + unneeded
 * over the scenario's pricing window (timed; the same for every policy of a scenario). In
 * inflation (no time, one arrival a second) the buckets are the final state held for one
 * hour: allocated GPUs are productive, free GPUs that the target workload's GPU shapes cannot
 * use are blocked (shape), the other free GPUs unneeded.
 *   recoverable by placement = stalled + lost + blocked (but full: only more GPUs help)
 *   recoverable by sizing    = unneeded
 * $ per year of a bucket = its GPU-hours x price x 8760 / window hours.
 */
#ifndef VOIDFIT_METRICS_H
#define VOIDFIT_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "gpumodel.h"
#include "job.h"
#include "sim.h"
#include "sbuf.h"
#include "util.h"

/* A replay whose time-weighted mean allocated GPU share is under this measured an almost
 * idle cluster: its $ are idle time, and what a policy "recovers" or a smaller cluster
 * "saves" there says nothing about placement. summary, report and size warn of it, in
 * their headline, and point to inflation (--mode inflate), which loads the cluster. */
#define METRICS_IDLE_ALLOC 0.01

struct metrics_opts {
	enum gpumodel_tier tier;    /* the table's prices of this tier (GPUMODEL_ON_DEMAND) */
	double price[GPUMODEL_MAX]; /* $ per GPU-hour override of each model; < 0: the table's */
};
/* On-demand prices, no overrides. */
void metrics_opts_init(struct metrics_opts *o);
/* Apply one "--gpu-price MODEL=USD" ("A100=2.5"). Returns 0, or VF_EINPUT (unknown model,
 * bad or negative price) with e filled. */
int metrics_price_parse(struct metrics_opts *o, const char *s, struct err *e);
/* The longest model name of a --gpu-price, with its NUL. */
#define METRICS_MODEL_NAME 64
/* Split "MODEL=USD" without looking MODEL up (a store's models are known only once it is
 * open): 0, or VF_EINPUT (not MODEL=USD, a bad or negative price) with e filled. */
int metrics_price_split(const char *s, char name[METRICS_MODEL_NAME], double *usd, struct err *e);
/* The price of one GPU-hour of model id under o (o may be NULL: on demand). */
double metrics_price(const struct metrics_opts *o, int model);
/* Where that price comes from: "--gpu-price" for an override, else the table's source. */
const char *metrics_price_source(const struct metrics_opts *o, int model);
/* Append to out what prices the figures: the tier's name, " with --gpu-price overrides" when o
 * has any, and "; assumed (not a list price): A100, T4" for the models set in assumed (bit m:
 * model m; the models whose table price is a placeholder). o may be NULL: on demand. */
void metrics_prices_note(const struct metrics_opts *o, uint32_t assumed, struct sbuf *out);
/* 1 if bucket b is recoverable by placement (stalled, lost, blocked but full). */
int metrics_by_placement(enum sim_bucket b);

/* Job statistics of one class, or of all jobs. Times in seconds; means over the jobs they
 * apply to (0 when none). */
struct metrics_jobs {
	int64_t jobs; /* job instances of the class */
	int64_t finished, running, queued, unplaceable, skipped, preempted;
	double wait_mean; /* queueing delay: start - submit, over started jobs */
	double wait_p50;  /* its median */
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
	int64_t t0, t1;    /* replayed span, seconds: first event to last */
	double hours;      /* (t1 - t0) / 3600 */
	double makespan_s; /* t1 - t0 */
	int64_t gpus;      /* physical GPUs */
	/* The pricing window: trace seconds [w0, w1) (timed), or one hour of the final state
	 * (inflation, w0 = w1 = the last arrival). */
	int64_t w0, w1;
	double window_hours;
	/* GPU-milli-seconds of each bucket per GPU model and class (SIM_CLS_NONE: unneeded),
	 * then summed: per bucket, per model and per class; provisioned is their sum. */
	struct sim_bucket_ms buckets;
	int64_t bucket_ms[SIM_NBUCKET];
	int64_t provisioned_ms;
	double gpu_hours[SIM_NBUCKET], provisioned_gpu_hours;
	double idle_blocked_gpu_hours;                      /* the five blocked buckets */
	double usd_year[SIM_NBUCKET], usd_year_provisioned; /* at o's prices */
	double usd_year_placement, usd_year_sizing;         /* the two headline figures */
	uint32_t assumed_models; /* models with GPUs whose price is not a list price (bit m) */
	/* Carried over past the window (timed): jobs running or waiting at w1 and their GPU
	 * work left, GPU-hours at full rate. */
	int64_t carry_jobs;
	double carry_gpu_hours;
	double frag_mean;            /* time-weighted mean FGD fragmentation, [0, 1] */
	double frag_md_mean;         /* time-weighted mean multi-dim fragmentation, [0, 1] */
	double alloc_mean;           /* time-weighted mean allocated GPU share */
	double stranded_mean[DIM_N]; /* time-weighted mean stranded share of each dim */
	/* The whole-node measure, time-weighted means: GPU nodes with nothing on them, and
	 * the workers of the waiting gangs (the whole nodes they need, spread) */
	double whole_free_mean, whole_want_mean;
	int64_t gang_jobs; /* jobs of W > 1 in the job set: the whole-node measure says something */
	struct metrics_jobs all, cls[JOB_NCLASS];
	/* Inflation: the final arrived load and unallocated GPU share, jobs that failed. */
	double load, unalloc_share;
	int64_t failed;
};

/* GPU time priced: what metrics_cost makes of a struct sim_bucket_ms. */
struct metrics_cost {
	double usd[SIM_NBUCKET];      /* $ of each bucket over the window */
	double usd_year[SIM_NBUCKET]; /* the same a year (metrics_per_year) */
	double usd_year_provisioned;  /* every bucket a year, priced per model */
	double usd_year_placement;    /* the buckets metrics_by_placement, a year */
	double usd_year_sizing;       /* unneeded, a year */
	uint32_t assumed_models;      /* models with GPU time whose price is not a list price */
};
/* Price b at o over a window of window_hours hours (0: no per-year figures, all 0), counting
 * only GPU model model and class cls (-1: every model, every class; SIM_CLS_NONE: the
 * unneeded time of no class). The one place GPU time becomes money: a run's metrics, a
 * stored run, the report's tables and the dashboard's ticker all price through it. */
void metrics_cost(const struct sim_bucket_ms *b, const struct metrics_opts *o, int model, int cls,
		  double window_hours, struct metrics_cost *out);
/* Price m's buckets at o: fills m's usd_year fields and assumed_models from m->buckets. */
void metrics_price_all(struct metrics *m, const struct metrics_opts *o);

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
