/*
 * grid.h — a grid of runs of one scenario: policies x seeds. Each seed's trace is prepared
 * once (enrichment, target workload); every (policy, seed) run is a task of its own, run on
 * up to nthreads threads; each finished run is stored (runrec_store) seed by seed, in policy
 * order within a seed, so the store does not depend on the number of threads, and kept as a
 * struct runrec.
 *
 * A grid can be told to stop (a flag a signal handler sets): the runs under way are dropped,
 * none is started, and the rows say which were stored.
 */
#ifndef VOIDFIT_GRID_H
#define VOIDFIT_GRID_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"
#include "resample.h"
#include "runrec.h"
#include "scenario.h"
#include "store.h"

/* Progress of the grid: run (0-based) of nruns, its policy and seed, share done. */
typedef void (*grid_progress_fn)(void *u, size_t run, size_t nruns, const char *policy,
				 uint64_t seed, double done);

struct grid {
	const struct scenario *sc;
	const struct policy_ops *const *pols; /* npol policies */
	size_t npol;
	uint64_t lo, hi;   /* seeds lo..hi */
	unsigned nthreads; /* at most this many runs at once (>= 1) */
	struct store *st;  /* store each run here, or NULL */
	/* Skip (policy, seed) pairs the store already has in this scenario (--resume): they
	 * are read back into the rows instead. */
	int resume;
	grid_progress_fn progress; /* or NULL */
	void *u;
	volatile sig_atomic_t *stop; /* set non-zero (a signal) to stop; NULL: never */
};

/* One cell of the grid. */
struct grid_row {
	struct runrec r; /* its figures (r.id: its stored run, 0 if none) */
	int done;        /* 1 run now, 2 read back (resume), 0 not run (stopped or failed) */
	/* a run now: the jobs each fault of the scenario touched (in the rows' block, freed
	 * with it); NULL without faults or for a run read back */
	int64_t *fault_jobs;
};

/* Run g on base (the scenario's jobs and nodes; consumed: the last seed takes its arrays,
 * leaving it empty; release it all the same). Fills *rows (npol x nseeds, policy-major then
 * seed; the caller frees) and *enr (the first seed's enrichment). Returns 0, or the first
 * run's or store's error, or VF_ESTOP when stopped (the rows say what was done and
 * stored). */
int grid_run(const struct grid *g, struct job_set *base, struct grid_row **rows,
	     struct enrich_summary *enr, struct err *e);

/* The same on nres block resamples of base (timed mode; resample.h): resample r (1..nres)
 * at seed s is resample_jobs of base over g->sc's window (resample_window) with blocks of
 * block_s seconds (0: resample_block_default) and seed resample_seed(s, r), the same trace
 * for every policy, so differences pair by (resample, seed). Each resample is a scenario of
 * its own (g->sc with resample r and its window given), stored as grid_run stores. Fills
 * *rows (npol x nres x nseeds: policy-major, then resample, then seed; r.resample set; the
 * caller frees), *enr (resample 1's first seed) and *block_s_used. base is not changed.
 * Returns as grid_run, or VF_EINPUT when the window or the block is not usable. */
int grid_run_resamples(const struct grid *g, const struct job_set *base, uint32_t nres,
		       int64_t block_s, struct grid_row **rows, struct enrich_summary *enr,
		       int64_t *block_s_used, struct err *e);

#endif
