/*
 * resample.h — a block bootstrap over a trace: new traces drawn from the one recorded, to
 * measure how much an answer depends on which days happened to be traced.
 *
 *   resample_block_default  the block length for a window (a day, or an hour on short traces)
 *   resample_window         the window a scenario's runs are priced over, for a job set
 *   resample_jobs           one resampled job set, deterministic by seed
 *   resample_seed           the seed of resample r of a run's seed (commands combine them)
 *   resample_interval       the percentile interval of n values
 *
 * Only for timed replay: in inflation mode the jobs are already drawn with replacement from
 * the trace's mix (the draws sample), so a resample would only shuffle what is drawn again.
 *
 * Nothing here prints, reads the store or keeps state between calls.
 */
#ifndef VOIDFIT_RESAMPLE_H
#define VOIDFIT_RESAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "job.h"
#include "util.h"

#define RESAMPLE_DAY  86400
#define RESAMPLE_HOUR 3600
/* Windows of at least this many seconds are cut into days, shorter ones into hours. */
#define RESAMPLE_DAYS_FROM (7 * RESAMPLE_DAY)
/* Windows shorter than this many hours are cut into this many blocks (rounded up). */
#define RESAMPLE_MIN_BLOCKS 8
/* The most blocks a window may hold (memory: one index per block). */
#define RESAMPLE_MAX_BLOCKS ((int64_t)1 << 22)
/* The most resamples a command runs (each is a replay of every policy and seed). */
#define RESAMPLE_MAX 10000

/* The default block of the window [t0, t1), in seconds: a whole day when the window holds
 * at least a week (RESAMPLE_DAYS_FROM), so that draws keep each day's cycle whole and there
 * are enough days to draw from (7^7 orders); else an hour when it holds at least
 * RESAMPLE_MIN_BLOCKS hours (bursts of submissions stay together, the day's cycle does
 * not); else the window / RESAMPLE_MIN_BLOCKS rounded up (at least 1 s). 0 when t1 <= t0. */
int64_t resample_block_default(int64_t t0, int64_t t1);

/* The window [*t0, *t1) a timed scenario prices js over: win_start..win_end when win_start
 * >= 0 (--window), else the first arrival to the last (sim.h's default), so the jobs that
 * arrive at the last arrival's time fall after it and are kept as they are. Returns 0, or
 * VF_EINPUT when the window is empty (no jobs, or all of them arrive at once). */
int resample_window(const struct job_set *js, int64_t win_start, int64_t win_end, int64_t *t0,
		    int64_t *t1, struct err *e);

/* A block bootstrap of js's jobs over the window [t0, t1) into out (empty on entry: {0}).
 *
 * The window is cut into blocks of block_s seconds from t0: nf = (t1 - t0) / block_s full
 * blocks, then, when block_s does not divide the window, one partial block of the remaining
 * L seconds. Each block place k is filled by a block drawn with replacement: a full place
 * from the nf full blocks (a partial block would leave the rest of the place empty), the
 * partial place from all of them, keeping the drawn block's first L seconds (so the time
 * within a block is kept in both). The jobs of the block drawn for place k are shifted by
 * (k - b) x block_s, their order and everything else kept: a job that runs past its block's
 * end keeps its duration and runs on into the next place, a never-ran job (duration -1,
 * JOB_F_NOTRAN) is drawn like any other, job ids are kept (a job drawn twice appears twice,
 * with the same id, so enrichment gives it the same values). Jobs that arrive before t0 or
 * at t1 and after are kept as they are. The expected number of jobs is the original's when
 * block_s divides the window, and under a steady arrival rate otherwise.
 *
 * The draws depend on (js's jobs, t0, t1, block_s, seed) only. Nodes are copied. out's jobs
 * are in arrival order. Returns 0, or VF_EINPUT (e filled, out left empty) when t1 <= t0,
 * block_s < 1, or the window holds fewer than 2 or more than RESAMPLE_MAX_BLOCKS blocks. */
int resample_jobs(const struct job_set *js, int64_t t0, int64_t t1, int64_t block_s, uint64_t seed,
		  struct job_set *out, struct err *e);

/* The seed of resample r (0-based) for a run of seed: a hash of both, so that resample r of
 * seed s and resample r' of seed s' draw independently. */
uint64_t resample_seed(uint64_t seed, uint64_t r);

/* The equal-tailed percentile interval at level (0 < level < 1, e.g. 0.9) of the values
 * v[0..n), NaNs skipped: *lo and *hi are the (1 - level)/2 and (1 + level)/2 quantiles,
 * linearly interpolated between order statistics (Hyndman and Fan's type 7: the quantile p
 * of m sorted values x_1..x_m is x_h + (h - floor h)(x_{h+1} - x_h), h = 1 + (m - 1)p).
 * Returns the number of values used; *lo and *hi are NaN when it is 0. v is not changed. */
size_t resample_interval(const double *v, size_t n, double level, double *lo, double *hi);

#endif
