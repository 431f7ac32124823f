/*
 * replay.h — what 'voidfit replay' and 'voidfit compare' share: run one policy x seed on a
 * prepared trace, turn its metrics into the table columns, record it in the store.
 *
 *   replay_prepare   copy of the trace's jobs and nodes, enriched for one seed, with its
 *                    target workload (the same for every policy at that seed)
 *   replay_run       one sim to the end, its metrics, params JSON, summary JSON, series and
 *                    per-job results as CSV text
 *   replay_store     that run in the store (one transaction)
 *   replay_grid      policies x seeds: prepare each seed once, run, store, keep the values
 *   replay_table     the summary table (one row per run, or per policy for compare)
 *
 * Nothing here prints: progress goes to a callback, errors to struct err.
 */
#ifndef VOIDFIT_REPLAY_H
#define VOIDFIT_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "enrich.h"
#include "fault.h"
#include "frag.h"
#include "job.h"
#include "metrics.h"
#include "policy.h"
#include "table.h"
#include "sbuf.h"
#include "sim.h"
#include "store.h"
#include "util.h"

/* Everything that defines a run besides its policy and seed (none of it owned). */
struct replay_spec {
	const char *trace_name;     /* as found in the store */
	int64_t trace_id;           /* its id in the store */
	enum sim_mode mode;         /* SIM_TIMED or SIM_INFLATE */
	double target;              /* inflation target (share of GPU capacity) */
	enum sim_queue queue;       /* timed: queue discipline */
	int preempt;                /* timed, priority queue: preemption on */
	uint32_t dims;              /* DIM_BIT()s every policy sees; 0 = each policy's own */
	double lambda, mu;          /* RAGP weights */
	double coverage;            /* target workload coverage */
	unsigned sample_nodes;      /* nodes scored per placement at most (0 = all) */
	const struct fault *faults; /* nfaults faults */
	size_t nfaults;             /* how many */
	const struct enrich_profile *profile; /* loaded profile (the default if none given) */
	const char *profile_path;             /* --profile, or NULL for the built-in one */
	double io_pressure;                   /* multiplies net and sto demand */
	const struct metrics_opts *prices;    /* GPU-hour prices (overrides applied) */
	const char *const *price_specs;       /* the --gpu-price words, for the record */
	size_t nprice_specs;
	const char *cluster_path; /* --cluster file, or NULL: the trace's nodes */
	const char *cluster_text; /* its content, recorded so the run can be reproduced */
};

/* The jobs and nodes of a trace made ready for one seed. */
struct replay_trace {
	struct job_set js;         /* owned copy, enriched */
	struct frag_workload wl;   /* target workload of js */
	struct enrich_summary enr; /* what rests on enrichment */
	uint64_t seed;             /* the enrichment seed (the run's seed) */
};

/* Make t a copy of base enriched with sp->profile, seed and sp->io_pressure, and build its
 * target workload. Never fails. Release with replay_trace_release. */
void replay_prepare(struct replay_trace *t, const struct job_set *base,
		    const struct replay_spec *sp, uint64_t seed);
/* The same without the copy: base's arrays move into t and base is left empty. */
void replay_prepare_take(struct replay_trace *t, struct job_set *base, const struct replay_spec *sp,
			 uint64_t seed);
/* Free what t owns; t may be NULL. */
void replay_trace_release(struct replay_trace *t);

/* Called now and then with the share of the run done, in [0, 1]. */
typedef void (*replay_progress_fn)(void *u, double done);

/* One finished run. */
struct replay_result {
	const struct policy_ops *policy;
	uint64_t seed;
	enum sim_mode mode;
	struct metrics m;
	double unalloc_at_100; /* inflation: unallocated GPU share at 100 % arrived load; NaN
				* when the target is below 1 or in timed mode */
	double wall_s;         /* seconds the sim took (not recorded: not deterministic) */
	int64_t events;        /* events handled */
	int64_t placed;        /* placements made */
	struct sbuf params;    /* params_json */
	struct sbuf summary;   /* summary_json */
	struct sbuf series;    /* the time series as CSV text */
	struct sbuf jobs;      /* per-job results as CSV text */
};

/* Run ops at t->seed on t under sp; fills r (release with replay_result_release). progress
 * may be NULL. records = 0 leaves r->series and r->jobs empty (a run that is not stored need
 * not write them). Returns 0, or VF_EINPUT (a fault names no node) with e filled. */
int replay_run(const struct replay_trace *t, const struct replay_spec *sp,
	       const struct policy_ops *ops, int records, replay_progress_fn progress, void *u,
	       struct replay_result *r, struct err *e);
/* Free r's buffers; r may be NULL. */
void replay_result_release(struct replay_result *r);

/* Store r as a run of sp->trace_id, with its metrics (the table columns), in one
 * transaction. Returns 0 or the store's error; sets *run_id if not NULL. */
int replay_store(struct store *s, const struct replay_spec *sp, const struct replay_result *r,
		 int64_t *run_id, struct err *e);

/* ---- the summary table ---- */

/* Number columns of the summary, in order; REPLAY_SAVING only in compare tables. */
enum replay_col {
	REPLAY_FRAG,        /* mean_fragmentation */
	REPLAY_FRAG_MD,     /* md_fragmentation */
	REPLAY_UNALLOC,     /* unallocated_gpu_share (inflate, at the target) */
	REPLAY_UNALLOC100,  /* unallocated_gpu_share_at_100 */
	REPLAY_LOAD,        /* arrived_load */
	REPLAY_FAILED,      /* failed_jobs */
	REPLAY_STALLED,     /* stalled_gpu_hours */
	REPLAY_PRODUCTIVE,  /* productive_gpu_hours */
	REPLAY_IDLE_FRAG,   /* idle_frag_gpu_hours */
	REPLAY_PROVISIONED, /* provisioned_gpu_hours */
	REPLAY_WAIT,        /* wait_mean_s */
	REPLAY_SLOWDOWN,    /* slowdown_mean */
	REPLAY_JCT,         /* jct_mean_s */
	REPLAY_UNPLACEABLE, /* unplaceable_jobs */
	REPLAY_PLACED,      /* placed_jobs: placements made (a preempted job counts again) */
	REPLAY_EVENTS,      /* events: events the sim handled */
	REPLAY_USD_WASTED,  /* usd_per_year_wasted: (stalled + idle_frag) x price x 8760 / h */
	REPLAY_USD_PROV,    /* usd_per_year_provisioned */
	REPLAY_SAVING,      /* saving_vs_scalar_usd_per_year */
	REPLAY_NCOL
};

/* The key of column c ("stalled_gpu_hours"). */
const char *replay_col_key(enum replay_col c);
/* The column whose key is key, or -1. */
int replay_col_find(const char *key);
/* The values of r's columns (vals[REPLAY_NCOL]; REPLAY_SAVING is NaN). */
void replay_values(const struct replay_result *r, double *vals);

/* A summary table for mode: labels policy, seed (and mode, trace: JSON and CSV only);
 * compare adds the saving column and marks the best per column. Columns that do not apply
 * to the mode are left out of the text table but kept in JSON and CSV. */
struct table *replay_table_new(enum sim_mode mode, int compare);
/* Add a row: policy, seed label ("42", "mean", or "42-51"), vals[REPLAY_NCOL]. */
void replay_table_add(struct table *rep, const char *policy, const char *seed, const char *mode,
		      const char *trace, const double *vals, int aggregate);
/* Add the notes saying which values were enriched (desc: enrich_describe's text, or NULL
 * when unknown) and which figures rest on them to rep. */
void replay_enrich_note(struct table *rep, const char *desc);
/* With k > 0, add to rep the note that each placement scored at most k nodes
 * (--sample-nodes). */
void replay_sample_note(struct table *rep, unsigned k);
/* The sample_nodes of a run's parameters (JSON, or its scenario key); 0 if absent. */
unsigned replay_params_sample_nodes(const char *params);

/* ---- a grid of runs: policies x seeds ---- */

/* What is kept of one run once it is stored: its policy, seed and column values. */
struct replay_row {
	const char *policy; /* policy name (static: the policy table's) */
	uint64_t seed;
	double v[REPLAY_NCOL]; /* column values; v[REPLAY_SAVING] NaN */
	int64_t run_id;        /* stored run, or 0 */
	double wall_s;         /* seconds the sim took */
	int64_t events;        /* events it handled */
};

/* Progress of the grid: run (0-based) of nruns, its policy and seed, share done. */
typedef void (*replay_grid_progress_fn)(void *u, size_t run, size_t nruns, const char *policy,
					uint64_t seed, double done);

/* Run every policy of pols (npol) at every seed lo..hi on base under sp; store each run in
 * st unless st is NULL. A seed's policies run on up to nthreads threads at once (each run
 * alone is what one thread gives: the results, their order and the store do not depend on
 * nthreads; memory grows with it, one sim each); progress is then called from one thread
 * at a time, with the runs' shares summed. base is consumed: the last seed takes its arrays
 * (no copy) and leaves it empty (release it all the same: after an error it may still hold
 * them). Fills *rows (npol x nseeds, policy-major then seed; caller frees) and *enr (the
 * first seed's enrichment). Returns 0, or the first run's or store's error (the runs stored
 * before it stay). */
int replay_grid(struct job_set *base, const struct replay_spec *sp,
		const struct policy_ops *const *pols, size_t npol, uint64_t lo, uint64_t hi,
		unsigned nthreads, struct store *st, replay_grid_progress_fn progress, void *u,
		struct replay_row **rows, struct enrich_summary *enr, struct err *e);

/* The table of rows (n of them, grouped by policy as replay_grid makes them): one row each,
 * then, when some policy has several seeds, each policy's mean as an aggregate row. With
 * compare, one row per policy only (its mean over seeds, seed label "A-B"), the saving
 * against scalar's wasted $/yr, and the best per column marked. trace names the trace in
 * JSON and CSV. */
struct table *replay_table(const struct replay_row *rows, size_t n, enum sim_mode mode, int compare,
			   const char *trace);

/* ---- command-line pieces shared by replay and compare ---- */

/* Parse "fgd,ragp7" or "all" into policies (*out, *n; caller frees *out). Returns 0, or
 * VF_EINPUT naming the unknown policy and listing the valid ones. */
int replay_parse_policies(const char *s, const struct policy_ops ***out, size_t *n, struct err *e);
/* Parse "A-B" (A <= B, at most REPLAY_MAX_SEEDS seeds) or "N". Returns 0 or VF_EINPUT. */
#define REPLAY_MAX_SEEDS 1000
int replay_parse_seeds(const char *s, uint64_t *lo, uint64_t *hi, struct err *e);
/* The name of trace id in st into out (the id as text if the store has no name for it). */
void replay_trace_name(struct store *st, int64_t id, struct sbuf *out);
/* What makes runs comparable: a run's params_json without its policy, dims, seed and
 * enrich_seed, into out. Runs with the same key differ only in policy and seed. */
void replay_scenario_key(const char *params_json, struct sbuf *out);
/* Read all of file path into out. Returns 0 or VF_EIO. */
int replay_read_file(const char *path, struct sbuf *out, struct err *e);
/* Replace the nodes of js by those of a cluster spec (text of len bytes, named fname).
 * Returns 0 or VF_EINPUT (js unchanged). */
int replay_use_cluster(struct job_set *js, const char *text, size_t len, const char *fname,
		       struct err *e);

#endif
