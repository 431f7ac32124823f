/*
 * size.h — right-sizing, Verma et al.'s cluster compaction: for each policy, the smallest
 * cluster on which a scenario's trace still meets a service-level objective (SLO) and leaves
 * no more jobs unplaceable than the full cluster does, and what the GPUs it retires cost a
 * year.
 *
 * The cluster shrinks by node groups: nodes of one GPU model and one capacity (as the trace
 * or --cluster gives them, before enrichment). Step k of S, where S is the node count of the
 * largest group that shrinks, keeps ceil(k n / S) of a group's n nodes: every group keeps
 * its share of the cluster, step S is the full cluster, and one step removes at most one
 * node from each group. Which nodes go is a seeded random order per group and seed, and the
 * nodes kept at a step are a subset of those kept at the next, so a larger step is always a
 * larger cluster. CPU-only nodes never go: the price model has GPU prices only, and the
 * question is which GPUs to retire. With a shrink model, only that model's groups shrink.
 *
 * The SLO holds at a step when it holds at every seed. The search is a bisection over the
 * steps, which assumes that a cluster that meets the SLO still meets it with more nodes; a
 * policy need not behave so exactly, and size_probe lets a caller check any step on its
 * own. Threads that outnumber the runs of a round run ahead the steps the bisection may
 * try next, so that the answer is that of one thread's search on any number of threads.
 *
 *   size_slo_parse   "wait_p95<=15m,slowdown_mean<=1.5" into terms
 *   size_plan_init   the groups of a cluster and its steps
 *   size_plan_nodes  the nodes kept at a step for a seed
 *   size_probe       one step of one policy at every seed: does it meet the SLO?
 *   size_run         the search, for every policy, on threads
 *
 * Nothing here prints or touches the store.
 */
#ifndef VOIDFIT_SIZE_H
#define VOIDFIT_SIZE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"
#include "runrec.h"
#include "sbuf.h"
#include "scenario.h"
#include "util.h"

/* ---- the SLO ---- */

/* Terms of one SLO at most (size_slo_parse refuses more). */
#define SIZE_MAX_TERMS 16

/* One term: a run figure (a runrec.h column), <= or >= a bound. */
struct size_term {
	int col;      /* enum runrec_col */
	int ge;       /* 1: the figure must be >= the bound; 0: <= */
	int full;     /* 1: the bound is the figure on the full cluster (same policy and seed) */
	double bound; /* else the bound, in the column's unit (seconds for a *_s column) */
};

struct size_slo {
	struct size_term t[SIZE_MAX_TERMS];
	size_t n;
};

/* Append the terms of s to slo: comma-separated "NAME<=VALUE" or "NAME>=VALUE", NAME a run
 * figure (runrec_col_key, "_s" left off or not: wait_p95, slowdown_mean, carried_over_jobs),
 * VALUE a number, a duration for a figure in seconds (90, 15m, 6h, 2d), or "full" (the
 * figure on the full cluster). Returns 0 or VF_EINPUT naming the term and what is wrong
 * (a figure that is not one lists them all). */
int size_slo_parse(const char *s, struct size_slo *slo, struct err *e);
/* VF_EINPUT naming the first term whose figure does not apply to mode (wait_p95 in
 * inflation), else 0. */
int size_slo_check(const struct size_slo *slo, enum sim_mode mode, struct err *e);
/* 1 unless slo, in a timed replay (mode), has no upper bound on a wait: wait_p95, wait_p50,
 * wait_mean, slowdown_mean, jct_mean or the work carried past the window. Without one a
 * smaller cluster only queues the same jobs longer, so the smallest that meets the SLO is
 * where the queue still drains, not a service. */
int size_slo_bounds_wait(const struct size_slo *slo, enum sim_mode mode);
/* The short name of t's figure into out ("wait_p95": its key without "_s"). */
void size_term_name(const struct size_term *t, struct sbuf *out);
/* t as size_slo_parse reads it, durations in their largest whole unit ("wait_p95<=15m"). */
void size_term_text(const struct size_term *t, struct sbuf *out);
/* The terms of slo, comma-separated; "" when it has none. */
void size_slo_text(const struct size_slo *slo, struct sbuf *out);

/* ---- the cluster's groups and steps ---- */

struct size_group {
	int model;    /* gpumodel id; -1 for CPU-only nodes */
	int32_t ngpu; /* GPUs per node */
	size_t n;     /* nodes in the full cluster */
	size_t *idx;  /* their indexes in the full cluster's node list, ascending */
	int shrinks;  /* 1 if the search removes some of them */
};

struct size_plan {
	struct size_group *g; /* ng groups, in the order their first node comes */
	size_t ng;
	unsigned steps; /* S: the full cluster is step S, one node of each group step 1 */
	size_t nnodes;  /* nodes of the full cluster */
	int64_t gpus;   /* GPUs of the full cluster */
};

/* The groups of nodes (n of them). shrink_model >= 0: only that GPU model's groups shrink.
 * Returns 0, or VF_EINPUT when nothing can shrink (no GPU node, or none of shrink_model:
 * the message lists the models the cluster has). Release with size_plan_release. */
int size_plan_init(struct size_plan *p, const struct node *nodes, size_t n, int shrink_model,
		   struct err *e);
/* Free what p owns; p may be NULL. */
void size_plan_release(struct size_plan *p);
/* Nodes group g keeps at step (0..steps): ceil(step n / steps) if it shrinks, else n. */
size_t size_plan_kept(const struct size_plan *p, size_t g, unsigned step);
/* The nodes of all (the full cluster's list) kept at step for seed, in all's order, into
 * out (room for p->nnodes). Returns how many. */
size_t size_plan_nodes(const struct size_plan *p, const struct node *all, unsigned step,
		       uint64_t seed, struct node *out);

/* ---- the search ---- */

/* A policy's full-cluster runs that a caller already has (a replay stored them, or it ran
 * them for its own use): size_run takes them as its round 0 would have made them. */
struct size_known {
	const struct policy_ops *policy;
	/* every seed lo..hi of size_opts, lo first, RUNREC_NCOL figures a seed as a complete
	 * run gives them (runrec_from_result): NaN exactly where such a run has NaN */
	const double *fig;
	int64_t w0, w1; /* the pricing window of seed lo's run (struct size_result) */
};

/* What the search reads of one run (a policy at a step and a seed): its figures, its
 * pricing window, whether it gave up (size_opts.giveup) and its sim events. */
struct size_memo_run {
	double fig[RUNREC_NCOL]; /* as run_one leaves them: NaN where such a run has NaN */
	int64_t w0, w1;          /* its pricing window (0, 0 for a run that gave up) */
	int gave_up;
	int64_t events;
};

/* Runs a caller has from an earlier search of the same question (a verdict asked again):
 * get returns 1 and fills *out when the run of policy at step and seed is known, else 0;
 * put, if not NULL, is given every run the search makes. Both are called from the search's
 * threads at once: they lock what they share. A run found is judged as if just made and
 * counted as made (in probes, events and gave_up), so that every answer and count is that
 * of the search that made it, provided the caller keys its runs by everything else that
 * decides them (the scenario, the plan, the seeds, the SLO, giveup). */
struct size_memo {
	int (*get)(void *u, const struct policy_ops *policy, unsigned step, uint64_t seed,
		   struct size_memo_run *out);
	void (*put)(void *u, const struct policy_ops *policy, unsigned step, uint64_t seed,
		    const struct size_memo_run *run);
	void *u;
	/* 1: get knows every run the search needs (an earlier search of the same question on
	 * no more threads), so that a run a round would make only ahead of need, on a thread
	 * that would otherwise wait, is not made when get lacks it; the bisection asks for it
	 * again where it turns out to be needed */
	int complete;
};

/* Progress: share of the search done (an estimate), the policy and step of a run. */
typedef void (*size_progress_fn)(void *u, double done, const char *policy, unsigned step,
				 size_t nodes);

struct size_opts {
	const struct scenario *sc;    /* loaded (scenario_load): sc->base is the full cluster */
	const struct size_plan *plan; /* of sc->base's nodes */
	const struct policy_ops *const *pols;
	size_t npol;
	uint64_t lo, hi; /* seeds */
	const struct size_slo *slo;
	unsigned nthreads;         /* runs at once (>= 1) */
	size_progress_fn progress; /* or NULL */
	void *u;
	volatile sig_atomic_t *stop; /* set non-zero (a signal) to stop; NULL: never */
	/* 1: a probe's run stops as soon as it can no longer meet the SLO (its unplaceable
	 * jobs, or the waits of the jobs started, already past a bound; size.c says why this
	 * changes no answer). The check's figures of such a probe are NaN but the one that gave
	 * up, a lower bound: size's own tables of the steps below keep giveup 0. */
	int giveup;
	/* or NULL; else per policy a step (1..steps) where its size is likely (another trace's
	 * answer), 0 for none: the first probes are the step t below it (t = tol, 1 at least)
	 * and it; where both meet the SLO the search gallops down, 2 t, 4 t... below the last
	 * that met, where both miss up, t, 2 t... above the last that missed, until a probe
	 * turns, then bisects the bracket left. On a policy that is monotone in the steps the
	 * answer is the same (to within tol); elsewhere it may be another boundary (above_miss
	 * says so). */
	const unsigned *hint;
	/* 1: skip the last round, the SIZE_ABOVE steps above each size found (above_checked
	 * stays 0), for a caller that reads only the sizes */
	int no_above;
	/* > 1: the bisection stops once the step that meets the SLO (min) and the one that
	 * misses (below) are at most tol steps apart, for a caller that needs the size only to
	 * within that: min is then at most tol - 1 steps above the smallest that meets it on a
	 * monotone policy. 0 or 1: to the step. */
	unsigned tol;
	/* or NULL; else nknown policies' full-cluster runs at every seed (at most one entry a
	 * policy; a policy of none is run): round 0 runs nothing for them and judges their
	 * figures as its own, so every answer is the same; the runs are counted in
	 * size_result.reused, not in probes, events or gave_up */
	const struct size_known *known;
	size_t nknown;
	/* or NULL: runs of any step, at any seed, looked up before they are run (struct
	 * size_memo; known's first, through the same lookup, but counted as reused); the runs
	 * made are put to it */
	const struct size_memo *memo;
	/* Inflation (sc->mode SIM_INFLATE): every step draws the same demand, sc->target x the
	 * GPU capacity of inflate_gpus GPUs (0: the plan's full cluster's), not of the nodes it
	 * keeps, so that a smaller cluster is asked what today's serves (its target is scaled
	 * by inflate_gpus over its GPUs; a step that keeps none misses). A caller asks more
	 * demand with more GPUs: verdict's growth g, today's GPUs x (1 + g). */
	double inflate_gpus;
	/* 1: the SLO bounds the unplaceable jobs itself, and size adds no rule of its own (no
	 * more than the full cluster's): verdict's in inflation, where a draw that fails counts
	 * as unplaceable, so that a cluster larger than today's (a purchase's copies) fails
	 * none and its rule would ask a smaller one to fail none either */
	int own_unplaceable;
};

/* Events between two give-up tests of a run (size_opts.giveup). */
#define SIZE_GIVEUP_EVERY 64

/* Term index of the unplaceable rule in struct size_check (after the SLO's terms). */
#define SIZE_UNPLACEABLE(slo) ((slo)->n)

/* One step of one policy, judged over the seeds. */
struct size_check {
	unsigned step;
	size_t nodes; /* nodes kept */
	int pass;     /* every term and the unplaceable rule hold at every seed */
	/* when !pass: the first term missed (SIZE_UNPLACEABLE for the unplaceable rule; -1 when
	 * the step leaves no node to run on), at which seed, and its figure there */
	int term;
	uint64_t seed;
	double value;
	/* each term's worst figure over the seeds (the largest for <=, the smallest for >=),
	 * then the most unplaceable jobs; NaN where no seed was run */
	double worst[SIZE_MAX_TERMS + 1];
	int64_t events; /* sim events its runs handled, every seed (a run that gave up: until
			 * then) */
};

/* What the search found for one policy. */
#define SIZE_ABOVE 2 /* steps above the size found that are checked to meet the SLO too */

struct size_result {
	const struct policy_ops *policy;
	int full_ok;             /* the full cluster meets the SLO at every seed */
	struct size_check full;  /* the full cluster */
	struct size_check min;   /* the smallest step found (the full cluster when none) */
	int has_smaller;         /* min.step > 0: the step below was tried, and missed */
	struct size_check below; /* that step */
	size_t *kept;            /* nodes each group keeps at min.step (plan->ng; owned) */
	int64_t gpus;            /* GPUs kept */
	double usd_year;         /* the retired GPUs at sc->prices, per year (8760 h) */
	uint32_t assumed;        /* models retired whose price is not a list price (bit m) */
	size_t probes; /* steps run, the full cluster included unless it was known (size_opts.known;
			* not a step run ahead unused) */
	size_t reused; /* full-cluster runs taken from size_opts.known (every seed's), not run */
	/* The bisection assumes more nodes never miss what fewer meet; the SIZE_ABOVE steps
	 * above min are tried too (fewer if the full cluster comes first): above_checked of
	 * them, and above_miss, the first that misses (then above is its check), or 0. */
	unsigned above_checked;
	int above_miss;
	struct size_check above;
	int64_t w0, w1; /* the pricing window of its runs, trace seconds */
	/* the full cluster's mean allocated GPU share, the mean over the seeds: under
	 * METRICS_IDLE_ALLOC the cluster is idle and the GPUs "retired" say nothing */
	double full_alloc;
	size_t gave_up; /* runs of its probes that gave up (size_opts.giveup), as probes counts */
	int64_t events; /* sim events of its probes' runs, as probes counts */
};

/* Run o->pols[p] at step for every seed of o and judge it. full: the full cluster's
 * figures of that policy (one runrec.h figure array per seed, lo first), or NULL when step
 * is the full cluster (then every "full" bound is met). fig, if not NULL, receives each
 * seed's figures (RUNREC_NCOL doubles a seed; with o->giveup a seed's run that gave up has
 * NaN but for the figure that gave it up). Returns 0, or a run's error (VF_EINPUT,
 * VF_ESTOP). */
int size_probe(const struct size_opts *o, size_t p, unsigned step, const double *full,
	       struct size_check *out, double *fig, struct err *e);

/* The full cluster's runs of o->pols[p] at every seed, as size_run's round 0 makes them
 * (o->giveup and o->slo play no part), for a caller that needs their figures before a
 * search and hands them to it after (size_opts.known): k->fig gets them (fig: room for
 * nseed x RUNREC_NCOL, the caller's), k->policy and the window set; *events, if not NULL,
 * gets their sim events. Returns 0, or a run's error (VF_EINPUT, VF_ESTOP). */
int size_full_runs(const struct size_opts *o, size_t p, double *fig, struct size_known *k,
		   int64_t *events, struct err *e);

/* The search for every policy of o: *out gets o->npol results (free with
 * size_results_free). Returns 0, or the first run's error, or VF_ESTOP when stopped. A
 * policy whose full cluster misses the SLO is not searched (full_ok = 0). */
int size_run(const struct size_opts *o, struct size_result **out, struct err *e);
void size_results_free(struct size_result *r, size_t n);

#endif
