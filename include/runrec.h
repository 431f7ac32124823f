/*
 * runrec.h — a run's record in the store, and reading runs back.
 *
 *   runrec_store    a finished run in one transaction: its scenario (a row, shared by every
 *                   policy and seed of it), the run row, its figures (run_metrics, one row per
 *                   RUNREC_* column), its GPU time by bucket, model and class (run_buckets),
 *                   its series (run_series) and its per-job results (a compressed block)
 *   runrec_select   the one choice every command makes: which scenario and which of its runs
 *                   (--scenario ID, --runs IDS, or the newest complete scenario), read back
 *                   with their figures and buckets
 *   runrec_price    the $ figures of a run read back, at any prices (buckets are stored in
 *                   GPU-milli-seconds, so a report reprices without replaying)
 *
 * Nothing here prints.
 */
#ifndef VOIDFIT_RUNREC_H
#define VOIDFIT_RUNREC_H

#include <stddef.h>
#include <stdint.h>

#include "enrich.h"
#include "metrics.h"
#include "policy.h"
#include "replay.h"
#include "scenario.h"
#include "store.h"
#include "table.h"
#include "util.h"

/* The figures of a run: its run_metrics keys, and the summary table's number columns. */
enum runrec_col {
	RUNREC_FRAG,        /* mean_fragmentation */
	RUNREC_FRAG_MD,     /* md_fragmentation */
	RUNREC_UNALLOC,     /* unallocated_gpu_share (inflate, at the target) */
	RUNREC_UNALLOC100,  /* unallocated_gpu_share_at_100 */
	RUNREC_LOAD,        /* arrived_load */
	RUNREC_FAILED,      /* failed_jobs */
	RUNREC_PRODUCTIVE,  /* productive_gpu_hours */
	RUNREC_STALLED,     /* stalled_gpu_hours */
	RUNREC_LOST,        /* lost_gpu_hours */
	RUNREC_FAILURES,    /* failures_gpu_hours: work lost to node failures (bucket failed) */
	RUNREC_DOWN,        /* down_gpu_hours: GPUs of down nodes (bucket down) */
	RUNREC_CKPT,        /* checkpoint_gpu_hours: checkpoints' pauses (bucket checkpoint) */
	RUNREC_BLOCKED,     /* idle_blocked_gpu_hours: wrong shape, dim, model or queue */
	RUNREC_FULL,        /* idle_full_gpu_hours: blocked by a full cluster */
	RUNREC_UNNEEDED,    /* idle_unneeded_gpu_hours */
	RUNREC_PROVISIONED, /* provisioned_gpu_hours */
	RUNREC_CARRY,       /* carried_over_gpu_hours */
	RUNREC_CARRY_JOBS,  /* carried_over_jobs */
	RUNREC_WAIT,        /* wait_mean_s */
	RUNREC_WAIT_P50,    /* wait_p50_s: the median wait */
	RUNREC_WAIT_P95,    /* wait_p95_s */
	RUNREC_SLOWDOWN,    /* slowdown_mean */
	RUNREC_JCT,         /* jct_mean_s */
	RUNREC_UNPLACEABLE, /* unplaceable_jobs */
	RUNREC_PLACED,      /* placed_jobs: placements made (a preempted job counts again) */
	RUNREC_EVENTS,      /* events: events the sim handled */
	RUNREC_ALLOC,       /* alloc_mean: mean allocated GPU share */
	RUNREC_WINDOW_H,    /* window_hours: the pricing window */
	RUNREC_USD_PLACE,   /* recoverable_by_placement_usd_per_year */
	RUNREC_USD_SIZE,    /* recoverable_by_sizing_usd_per_year */
	RUNREC_USD_PROV,    /* provisioned_usd_per_year */
	/* The whole-node measure (timed; NaN, not stored, for a trace without gangs): */
	RUNREC_WHOLE_FREE, /* whole_free_nodes: mean GPU nodes with nothing on them */
	RUNREC_WHOLE_WANT, /* gang_nodes_wanted: mean workers of the waiting gangs */
	RUNREC_NCOL
};
/* The service one job class got in a run (timed): run_metrics keys "KEY/CLASS"
 * ("wait_p95_s/infer"), stored beside the run's figures. */
enum runrec_cls {
	RUNREC_CLS_JOBS,        /* jobs/CLASS: its job instances */
	RUNREC_CLS_UNPLACEABLE, /* unplaceable_jobs/CLASS */
	RUNREC_CLS_WAIT_P50,    /* wait_p50_s/CLASS */
	RUNREC_CLS_WAIT_P95,    /* wait_p95_s/CLASS */
	RUNREC_CLS_SLOWDOWN,    /* slowdown_mean/CLASS */
	RUNREC_CLS_N
};
/* The key of column c ("stalled_gpu_hours"). */
const char *runrec_col_key(enum runrec_col c);
/* The column whose key is key, or -1. */
int runrec_col_find(const char *key);
/* Column c of the summary tables: its key, header, unit, decimals and direction. */
const struct table_col *runrec_col(enum runrec_col c);
/* 1 if column c applies to mode (some are timed only, some inflate only). */
int runrec_col_applies(enum runrec_col c, enum sim_mode mode);
struct runrec;
/* 1 if column c is left out of a table of the n runs rows: a figure of gangs (the
 * whole-node measure) that none of them has, so tables of runs without gangs keep their
 * columns as they were. */
int runrec_col_omit(enum runrec_col c, const struct runrec *rows, size_t n);

/* The id of sc's scenario row in st (after scenario_load; t: a trace of it prepared for
 * any seed; w0, w1: its pricing window, as a run measured it), adding the row when there is
 * none, in the caller's transaction. */
int runrec_scenario_put(struct store *st, const struct scenario *sc, const struct replay_trace *t,
			int64_t w0, int64_t w1, int64_t *id, struct err *e);
/* Store r, a run of sc on the prepared trace t, in st in one transaction. Returns 0 or the
 * store's error; sets *run_id if not NULL. */
int runrec_store(struct store *st, const struct scenario *sc, const struct replay_trace *t,
		 const struct replay_result *r, int64_t *run_id, struct err *e);
/* The same for a what-if run of the dashboard, made from run parent_run (stored) at trace
 * second fork_time (-1: replayed from the start) with change ("policy ragp7"): its
 * scenario row records the three, under a key of its own. */
int runrec_store_fork(struct store *st, const struct scenario *sc, const struct replay_trace *t,
		      const struct replay_result *r, int64_t parent_run, int64_t fork_time,
		      const char *change, int64_t *run_id, struct err *e);

/* A run, as read back or as just run. */
struct runrec {
	int64_t id;          /* stored run, or 0 */
	int64_t scenario_id; /* its scenario, or 0 */
	const struct policy_ops *policy;
	uint64_t seed;
	uint32_t resample;     /* its trace's block resample (resample.h), 0: as traced */
	double v[RUNREC_NCOL]; /* the figures (NaN: does not apply, or not stored) */
	/* each class's service, RUNREC_CLS_* (NaN: no job of it, inflation, or not stored) */
	double cls[JOB_NCLASS][RUNREC_CLS_N];
	int64_t w0, w1;               /* the pricing window, trace seconds (timed) */
	struct sim_bucket_ms buckets; /* its GPU time by model, class and bucket */
	int has_buckets;              /* 0 for a run made before buckets were stored */
	double wall_s;                /* seconds the sim took (a run just made) */
	int64_t events;               /* events it handled */
};
/* The job instances of run r (timed: the sum of its classes' jobs), or NaN when not stored
 * (inflation, a run made before classes were read back). */
double runrec_jobs(const struct runrec *r);
/* r's figures and buckets from a finished run. */
void runrec_from_result(const struct replay_result *res, struct runrec *r);
/* Set r's $ columns from its buckets at prices o (and *assumed |= the models with GPUs whose
 * price is not a list price, when assumed is not NULL). */
void runrec_price(struct runrec *r, const struct metrics_opts *o, uint32_t *assumed);

/* Which runs a command looks at. */
struct runrec_query {
	const char *trace;      /* --trace, or NULL: the newest trace */
	int64_t scenario_id;    /* --scenario, or 0 */
	const int64_t *run_ids; /* --runs, or NULL */
	size_t nrun_ids;
	int mode;                             /* -1 any, else enum sim_mode */
	const struct policy_ops *const *pols; /* only these policies (NULL: all) */
	size_t npol;
	int seeds_given; /* only seeds lo..hi */
	uint64_t lo, hi;
	int sample_given; /* only scenarios with this sample_nodes */
	unsigned sample_nodes;
	int target_given; /* only inflation scenarios of this target */
	double target;
};
/* Two inflation targets this close are the same one, read back. */
#define RUNREC_TARGET_EPS 1e-9

/* The runs of one scenario, read back. */
struct runrec_sel {
	int64_t scenario_id, trace_id;
	struct sbuf trace_name;
	struct store_scenario sc; /* its row (strings owned by strs) */
	char *strs[12];
	struct runrec *runs; /* newest run per (policy, seed), by policy table order then seed */
	size_t n;
	int partial;       /* some policy lacks a seed another has */
	int legacy;        /* runs made before buckets were stored */
	int newest;        /* chosen as the newest complete scenario (no --scenario/--runs) */
	int complete;      /* newest: some matching scenario had the same seeds for all */
	size_t nscenarios; /* scenarios of the trace matching the query (forks aside) */
	size_t nforks;     /* newest: what-ifs of the dashboard that matched, left out */
};
/* Choose and read the runs q names (scenario_id, or run_ids, all of one scenario; else the
 * newest scenario of the trace whose every policy has the same seeds, else the newest one,
 * flagged partial; a what-if saved from the dashboard only when named). path names the store in
 * errors. Returns 0 with out->n = 0 when the trace has no matching run, or an error (VF_EINPUT: an
 * id that is not there, runs of several scenarios). */
int runrec_select(struct store *st, const char *path, const struct runrec_query *q,
		  struct runrec_sel *out, struct err *e);
/* Why runrec_select chose sel's scenario for q, in a few words, into out ("the newest of 3
 * scenarios of the trace whose policies all have the same seeds; 1 what-if saved from the
 * dashboard left out (--scenario ID shows one)"). */
void runrec_why(const struct runrec_sel *sel, const struct runrec_query *q, struct sbuf *out);
/* What scenario s is, in a few words, into out: with ref NULL its mode and every parameter
 * set otherwise than by default ("timed fifo, faults n7:sto=0.5@3600+6h, io-pressure 2");
 * else only what s sets differently from ref. */
void runrec_describe(const struct store_scenario *s, const struct store_scenario *ref,
		     struct sbuf *out);
/* The id of trace_id's scenario of key (scenario_key) into *id, 0 when there is none. */
int runrec_find_scenario(struct store *st, int64_t trace_id, const char *key, int64_t *id,
			 struct err *e);
/* The runs a search may take instead of replaying the full cluster (size_opts.known): of
 * sc's scenario (loaded: its key as scenario_key makes it, on sc->trace_id), by pol at
 * each seed lo..hi, made by this voidfit (runs.voidfit_version is VOIDFIT_VERSION) and
 * holding every figure such a run has (each column of sc's mode, the whole-node pair when
 * the trace has gangs, no other), the newest of a seed's. *found = 1 only when every seed
 * has one: then ids gets their ids and fig (nseed x RUNREC_NCOL) their figures, NaN where
 * the run has NaN, the $ ones priced from their buckets at sc's prices as a replay prices
 * them, and *w0, *w1 the scenario's pricing window (-1 in inflation). Returns 0 or the
 * store's error. */
int runrec_find_full(struct store *st, const struct scenario *sc, const struct policy_ops *pol,
		     uint64_t lo, uint64_t hi, int64_t *ids, double *fig, int64_t *w0, int64_t *w1,
		     int *found, struct err *e);
/* Parse run ids "3,5-9" into *ids (*n of them, at most 100000; the caller frees *ids).
 * Returns 0 or VF_EINPUT. */
int runrec_parse_ids(const char *s, int64_t **ids, size_t *n, struct err *e);
/* Free what sel owns; sel may be NULL. */
void runrec_sel_release(struct runrec_sel *sel);

#endif
