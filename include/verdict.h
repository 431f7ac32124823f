/*
 * verdict.h — the verdict a planner can take to the bill: money that appears on, or
 * disappears from, one. For a baseline policy (the scheduler's today) and candidates:
 *
 *   1. fewer GPUs at the same SLO: each policy's smallest cluster that still meets the SLO
 *      (size.h's search), and the baseline's smallest minus the policy's, in GPUs by model
 *      and $ a year (GPUs x price per GPU-hour x 8760 h);
 *   2. headroom on today's cluster: the largest demand growth g each policy absorbs at the
 *      SLO, priced as the GPUs the baseline would have to buy to absorb the same growth (its
 *      smallest cluster for the grown trace, minus today's).
 *
 * The SLO defaults to the service the baseline gives on the full cluster: its wait p95 (the
 * worst over the seeds) and no more unplaceable jobs. Growth g draws round(g x N) more jobs
 * from the trace's own mix (N: the jobs that ran): each a copy of a uniformly drawn job that
 * ran, arriving at a uniformly drawn second of the trace's arrival span; the draws are one
 * sequence per seed, so the trace at a larger g holds the trace at a smaller one. g is
 * searched by bisection over steps of VERDICT_GROWTH_STEP up to VERDICT_GROWTH_CAP, which
 * assumes, as size does, that a policy that absorbs more demand absorbs less.
 *
 *   verdict_grow      the trace grown by g (also for tests)
 *   verdict_run       both answers for every policy
 *   verdict_sentence  the one sentence a policy's answers make
 *   verdict_memo_*    the runs of the trace's own searches, kept for a verdict asked again
 *
 * Nothing here prints or touches the store.
 */
#ifndef VOIDFIT_VERDICT_H
#define VOIDFIT_VERDICT_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "gpumodel.h"
#include "job.h"
#include "policy.h"
#include "sbuf.h"
#include "scenario.h"
#include "size.h"
#include "util.h"

/* Headroom is searched in steps of 2 % of today's demand, up to +100 %. */
#define VERDICT_GROWTH_STEP 0.02
#define VERDICT_GROWTH_CAP  1.0
/* The level of the interval over resamples. */
#define VERDICT_LEVEL 0.9

struct verdict_opts {
	const struct scenario *sc;            /* loaded (scenario_load) */
	const struct policy_ops *base;        /* the baseline */
	const struct policy_ops *const *pols; /* the candidates (the baseline among them or not) */
	size_t npol;
	uint64_t lo, hi;            /* seeds: the SLO must hold at each */
	const struct size_slo *slo; /* or NULL: the baseline's service on the full cluster */
	int shrink_model;           /* >= 0: retire that GPU model's nodes only; -1: every group */
	int headroom;               /* 1: the second answer too */
	double growth_step, growth_cap; /* 0: VERDICT_GROWTH_STEP, VERDICT_GROWTH_CAP */
	unsigned nthreads; /* runs at once (>= 1); the answers do not depend on it (size.h) */
	size_progress_fn progress; /* or NULL; called from the runs' threads, serialised */
	void *u;
	volatile sig_atomic_t *stop; /* non-zero: stop (VF_ESTOP); NULL: never */
	int giveup; /* 1: a probe stops once it cannot meet the SLO (size_opts.giveup): the
		     * same answers, sooner */
	/* > 0: both answers again on nres block resamples of the trace (timed only; resample.h),
	 * resample r drawn with resample_seed(lo, r) and the same for every policy (paired),
	 * each answered as the trace is (its own default SLO, every seed), its searches
	 * bracketed by the trace's answers (size_opts.hint) */
	uint32_t nres;
	int64_t block_s; /* their block; 0: resample_block_default of the window */
	/* or NULL: resample answers the caller has already (a store's), see below */
	const struct verdict_known *known;
	/* 1..nres: a task of a verdict's sweep, resample `only` alone, its size searches started
	 * from hints (verdict.hints of the trace's answer, as verdict_hints writes it) instead
	 * of the trace's own answer, which is not searched: v gets the policies and their
	 * answers on that resample (r_* at only - 1), no interval. 0: a whole verdict. */
	uint32_t only;
	const char *hints;
	/* or NULL: nfull_runs policies' full-cluster runs the caller has (size_opts.known:
	 * o->sc's trace, every seed), which the trace's own answer takes instead of running
	 * them (the default SLO's and the first answer's); a resample's, on another trace,
	 * never does */
	const struct size_known *full_runs;
	size_t nfull_runs;
	/* or NULL: the runs of the trace's own searches (not its resamples') that a verdict of
	 * the same verdict_memo_key made before, judged instead of replayed; every run made is
	 * put to it, for the next */
	struct verdict_memo *memo;
};

/* ---- the trace's runs, for a verdict asked again ---- */

/* The searches of a verdict on its trace, as a memo keys their runs. */
enum verdict_memo_search {
	VERDICT_M_FEWER,    /* the default SLO's runs and the first answer's sizings */
	VERDICT_M_HEADROOM, /* a growth probe, on the trace grown by its growth */
	VERDICT_M_BUY,      /* the baseline's purchase sizing at a growth */
	VERDICT_M_N
};

/* One run of one of them: search, growth, policy, step and seed decide it (with the memo's
 * key, the scenario and the trace). */
struct verdict_memo_entry {
	int search;    /* enum verdict_memo_search */
	double growth; /* the growth of its trace (0 for VERDICT_M_FEWER) */
	const struct policy_ops *policy;
	unsigned step; /* of the search's plan (size.h) */
	uint64_t seed;
	struct size_memo_run run;
};

/* The runs of a verdict's searches on its trace (verdict_opts.memo): the runs a caller
 * loads (verdict_memo_add), and those verdict_run finds in it or makes. Lookups and puts
 * come from the searches' threads, under mu. */
struct verdict_memo {
	pthread_mutex_t mu;
	struct verdict_memo_entry *e; /* n entries (owned), one per search, growth, policy,
				       * step and seed */
	size_t n, cap;
	size_t hits;  /* runs verdict_run took from it instead of replaying them */
	size_t made;  /* runs it replayed (not in it), and put to it */
	int complete; /* 1: the runs of an earlier verdict of the same key (size_memo.complete) */
};
void verdict_memo_init(struct verdict_memo *m);
/* Free what m owns; m may be NULL. */
void verdict_memo_release(struct verdict_memo *m);
/* Add x, replacing an entry of the same search, growth, policy, step and seed. */
void verdict_memo_add(struct verdict_memo *m, const struct verdict_memo_entry *x);
/* The name of search s ("fewer", "headroom", "buy"), and the search of a name (-1: none). */
const char *verdict_memo_search_name(int s);
int verdict_memo_search_find(const char *name);
/* What decides the runs of o's searches on its trace besides the scenario, the trace and
 * voidfit's version, as text, into out: the baseline, seeds, SLO, shrink model, headroom
 * search and give-up ("baseline=scalar;seeds=1-1;...;giveup=1"). A memo is read only under
 * the key it was made with. */
void verdict_memo_key(const struct verdict_opts *o, struct sbuf *out);

/* Resample answers known already, so that a verdict asked again, or finished by the tasks
 * of its sweep, does not search them again. get: 1, and out[] = {usd_year, growth,
 * buy_usd_year} as verdict_pol's r_usd, r_growth, r_buy hold them, when the answers of
 * policy on resample r of the verdict whose key is key (verdict.key) are known; else 0.
 * Called from verdict_run's thread, once the trace's answer is known. */
struct verdict_known {
	int (*get)(void *u, const char *key, uint32_t r, const char *policy, double out[3]);
	void *u;
	int compute; /* 1: search the resamples not known; 0: leave them out (verdict.missing) */
};

/* One policy's answers. */
struct verdict_pol {
	const struct policy_ops *policy;
	int is_base;
	const struct size_result *size; /* its smallest cluster (in struct verdict's array) */
	int ok; /* the full cluster meets the SLO; else no saving, and size->full says why */
	/* ---- 1. fewer GPUs: the baseline's smallest cluster minus this policy's ---- */
	int64_t fewer;                     /* GPUs (< 0: it needs more than the baseline) */
	int64_t fewer_model[GPUMODEL_MAX]; /* the same by GPU model */
	double usd_year;                   /* their price a year */
	/* ---- 2. headroom (opts.headroom) ---- */
	double growth;  /* the largest growth met, a multiple of the step; -1: not even today's */
	int capped;     /* growth is the cap: it may absorb more */
	double miss_at; /* the growth that missed (growth + step), NaN when capped or -1 */
	struct size_check miss; /* its check (what missed, at which seed) */
	/* a growth the search found (met, the next step missed) and gave up because a step
	 * below it missed (gave_miss): the policy is not monotone in demand there, and growth
	 * was searched below that miss; NaN: none */
	double gave_growth, gave_miss;
	/* what the baseline buys to absorb growth too (0 when growth <= the baseline's) */
	int64_t buy;                     /* GPUs */
	int64_t buy_model[GPUMODEL_MAX]; /* the same by GPU model */
	double buy_usd_year;             /* their price a year */
	int buy_over; /* the baseline misses even on the largest cluster tried (buy is its
		       * GPUs beyond today's: a lower bound) */
	/* the trace's: nodes more than the smallest cluster (size) where the policy misses the
	 * SLO again (size's check above), so that it is a boundary, not a margin; 0: none */
	size_t size_above;
	/* the trace's: nodes more than the purchase's cluster where the baseline misses the SLO
	 * again (checked SIZE_ABOVE steps above it), so that the purchase is a boundary, not
	 * a margin; 0: none of them misses */
	size_t buy_above;
	/* ---- over the resamples (opts.nres): each answer per resample (nres, owned), and
	 * their VERDICT_LEVEL percentile interval (resample_interval; NaN with no value) ---- */
	double *r_usd;    /* usd_year; 0 where the policy misses the SLO, NaN where the
			   * baseline does */
	double *r_growth; /* growth; NaN where not even today's demand is met */
	double *r_buy;    /* buy_usd_year; NaN where usd_year is */
	double usd_lo, usd_hi, growth_lo, growth_hi, buy_lo, buy_hi;
};

/* The searches of a verdict, as verdict.work counts them. */
enum verdict_search {
	VERDICT_W_FEWER,    /* the SLO's run and the sizings of the first answer */
	VERDICT_W_HEADROOM, /* the growth searches */
	VERDICT_W_BUY,      /* the baseline's purchase searches */
	VERDICT_NWORK
};

struct verdict {
	struct size_slo slo; /* the SLO the answers hold (with its unplaceable term) */
	/* the terms headroom holds: no unplaceable term in timed mode; in inflation the draws
	 * that fail, as a share of the draws (see voidfit(7)) */
	struct size_slo slo_grow;
	int slo_default;           /* the SLO is the baseline's service */
	struct size_plan plan;     /* today's cluster's groups */
	struct size_result *sizes; /* npol + 1 sizings, the baseline first */
	struct verdict_pol *p;     /* np answers, the baseline first */
	size_t np;
	int64_t gpus;     /* GPUs of today's cluster */
	int64_t w0, w1;   /* the pricing window of the runs, trace seconds */
	double step, cap; /* the growth search's */
	size_t runs;      /* replays the headroom search made */
	uint32_t nres;    /* resamples answered (opts.nres) */
	int64_t block_s;  /* their block, seconds */
	/* per policy NAME:SIZE_STEP, comma-separated, the baseline first: where a resample's
	 * size searches start (the trace's smallest clusters; 0 for none) */
	struct sbuf hints;
	/* what else than the scenario decides a resample's answers, as text: the baseline,
	 * seeds, SLO, shrink model, headroom search, block and hints (set with resamples) */
	struct sbuf key;
	uint32_t nknown;         /* resamples whose answers were known (opts.known) */
	uint32_t nmissing;       /* those neither known nor searched (known->compute 0) */
	unsigned char *rmissing; /* nres flags: resample r + 1 is missing (owned) */
	size_t gave_up;          /* probe runs that gave up (opts.giveup), resamples included */
	/* The work of each search, resamples included: probes (a step or growth tried at
	 * every seed) and the sim events of their runs, where the time goes */
	struct verdict_work {
		size_t probes;
		int64_t events;
	} work[VERDICT_NWORK];
};

/* A copy of base (jobs and nodes, not enriched) with round(g x N) more jobs drawn from it
 * by seed, as the top of this file says, in arrival order; the new jobs' ids follow the
 * largest of base. g >= 0. Release with job_set_release. */
void verdict_grow(const struct job_set *base, double g, uint64_t seed, struct job_set *out);

/* The policies a verdict answers for into out (room for ncand + 1): base, then each of the
 * candidates once, in their order (verdict.p's order). Returns how many. */
size_t verdict_policies(const struct policy_ops *base, const struct policy_ops *const *cand,
			size_t ncand, const struct policy_ops **out);

/* Both answers for the baseline and every candidate of o into v (release with
 * verdict_release). Returns 0, VF_EINPUT (an SLO that does not apply to the mode, a cluster
 * with nothing to retire, a run's error), or VF_ESTOP. */
int verdict_run(const struct verdict_opts *o, struct verdict *v, struct err *e);
/* Free what v owns; v may be NULL. */
void verdict_release(struct verdict *v);

/* The candidate with the largest saving that meets the SLO (ties: the most headroom, then
 * the first); the baseline when none saves anything. */
size_t verdict_best(const struct verdict *v);

/* The verdict sentence of answer i (i > 0, a candidate) against the baseline, at sc's prices:
 * "Switching scalar -> fgd keeps wait p95 <= 12 min with 96 fewer A100s: $2.1 M/yr less at
 * $2.50/GPU-h on-demand; ..." naming the tier, each price, the window and its scaling to a
 * year, the SLO and the interval. i == 0 (or only the baseline): what the baseline itself
 * needs. Appended to out. */
void verdict_sentence(const struct verdict *v, const struct scenario *sc, size_t i, uint64_t lo,
		      uint64_t hi, struct sbuf *out);

/* The SLO's terms as words ("wait p95 <= 12 min, no more than 3 unplaceable jobs"). */
void verdict_slo_words(const struct size_slo *slo, enum sim_mode mode, struct sbuf *out);

/* |x| in dollars as the sentence gives it: "$2.1 M", "$310 k", "$950". Appended to out. */
void verdict_usd_words(double x, struct sbuf *out);

/* The resamples' words: "20 day-resamples", "8 hour-resamples", "5 resamples of 90 s
 * blocks". Appended to out. */
void verdict_resample_words(uint32_t nres, int64_t block_s, struct sbuf *out);

#endif
