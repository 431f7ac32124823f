/*
 * replay.h — one run of a scenario: prepare the trace for a seed, run one policy on it to the
 * end, keep what the run measured.
 *
 *   replay_prepare   a copy of the scenario's jobs and nodes, enriched for one seed, with its
 *                    target workload (the same for every policy at that seed)
 *   replay_new       a ready sim of one policy on a prepared trace, not yet run (the
 *                    dashboard steps it; replay_run runs it to the end)
 *   replay_run       one sim to the end: its metrics, series and per-job results
 *
 * Nothing here prints or touches the store: progress goes to a callback, errors to struct err.
 * Recording a run is runrec.h's, running a grid of them grid.h's.
 */
#ifndef VOIDFIT_REPLAY_H
#define VOIDFIT_REPLAY_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "enrich.h"
#include "frag.h"
#include "job.h"
#include "metrics.h"
#include "policy.h"
#include "sbuf.h"
#include "scenario.h"
#include "sim.h"
#include "util.h"

/* The jobs and nodes of a scenario made ready for one seed. */
struct replay_trace {
	struct job_set js;         /* owned copy, enriched */
	struct frag_workload wl;   /* target workload of js */
	struct enrich_summary enr; /* what rests on enrichment */
	uint64_t seed;             /* the enrichment seed (the run's seed) */
};

/* Make t a copy of base enriched with sc's profile and io-pressure at seed, and build its
 * target workload. Never fails. Release with replay_trace_release. */
void replay_prepare(struct replay_trace *t, const struct job_set *base, const struct scenario *sc,
		    uint64_t seed);
/* The same without the copy: base's arrays move into t and base is left empty. */
void replay_prepare_take(struct replay_trace *t, struct job_set *base, const struct scenario *sc,
			 uint64_t seed);
/* Free what t owns; t may be NULL. */
void replay_trace_release(struct replay_trace *t);

/* The sim options of sc for policy ops at seed (dims, weights, faults, window, ...). */
void replay_sim_opts(const struct scenario *sc, uint64_t seed, struct sim_opts *o);
/* A new sim of ops on t under sc, not run. Returns 0, or VF_EINPUT (a fault names no node)
 * with e filled; *out NULL then. */
int replay_new(const struct replay_trace *t, const struct scenario *sc,
	       const struct policy_ops *ops, struct sim **out, struct err *e);

/* Called now and then with the share of the run done, in [0, 1]. */
typedef void (*replay_progress_fn)(void *u, double done);

/* One finished run. */
struct replay_result {
	const struct policy_ops *policy;
	uint64_t seed;
	enum sim_mode mode;
	uint32_t dims; /* the dims the policy saw */
	struct metrics m;
	double unalloc_at_100;        /* inflation: unallocated GPU share at 100 % arrived load; NaN
				       * when the target is below 1 or in timed mode */
	double wall_s;                /* seconds the sim took (not recorded: not deterministic) */
	int64_t events;               /* events handled */
	int64_t placed;               /* placements made */
	struct metrics_series series; /* the time series (empty unless records) */
	struct sbuf jobs;             /* per-job results as CSV text (empty unless records) */
	int64_t *fault_jobs; /* per fault of the scenario: jobs it slowed or held (owned) */
	size_t nfaults;
	int gave_up; /* replay_run_giveup: its test ended the run early (nothing else is set but
		      * events, those handled until then) */
};

/* Run ops at t->seed on t under sc; fills r (release with replay_result_release). progress
 * may be NULL. records = 0 leaves r->series and r->jobs empty (a run that is not stored need
 * not keep them). The run stops early when *stop (if stop is not NULL) turns non-zero.
 * Returns 0, VF_EINPUT (a fault names no node) or VF_ESTOP with e filled. */
int replay_run(const struct replay_trace *t, const struct scenario *sc,
	       const struct policy_ops *ops, int records, replay_progress_fn progress, void *u,
	       const volatile sig_atomic_t *stop, struct replay_result *r, struct err *e);

/* A run's give-up test: a run that can no longer give an answer its caller wants stops early,
 * unfinished. Every `every` events (>= 1) test(u, s) is asked, and non-zero ends the run
 * there: replay_run_giveup returns 0 with r->gave_up set and no metrics. obs, where a hook is
 * set, observes the run's sim (obs.u is passed back), for figures test keeps itself. */
struct replay_giveup {
	struct sim_observer obs;
	int (*test)(void *u, const struct sim *s);
	void *u;
	unsigned every;
};

/* replay_run with a give-up test g (or NULL: replay_run itself); r->gave_up says whether
 * it gave up, and then r holds nothing but that and its events (release it all the same). */
int replay_run_giveup(const struct replay_trace *t, const struct scenario *sc,
		      const struct policy_ops *ops, int records, replay_progress_fn progress,
		      void *u, const struct replay_giveup *g, const volatile sig_atomic_t *stop,
		      struct replay_result *r, struct err *e);
/* Free r's buffers; r may be NULL. */
void replay_result_release(struct replay_result *r);

/* Parse "fgd,ragp7" or "all" into policies (*out, *n; caller frees *out). Returns 0, or
 * VF_EINPUT naming the unknown policy and listing the valid ones. */
int replay_parse_policies(const char *s, const struct policy_ops ***out, size_t *n, struct err *e);
/* Parse "A-B" (A <= B, at most REPLAY_MAX_SEEDS seeds) or "N". Returns 0 or VF_EINPUT. */
#define REPLAY_MAX_SEEDS 1000
int replay_parse_seeds(const char *s, uint64_t *lo, uint64_t *hi, struct err *e);
/* The --seed N or --seeds A-B a command was given (either may be NULL; not both) into
 * *lo..*hi, left as they are when neither is. Returns 0 or VF_EINPUT naming the option. */
int replay_seed_opts(const char *seed, const char *seeds, uint64_t *lo, uint64_t *hi,
		     struct err *e);

#endif
