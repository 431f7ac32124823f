/*
 * store.h — the voidfit store: one SQLite file holding imported traces (lossless raw files,
 * provenance, quarantined rows, nodes, jobs in compressed column blocks) and replay runs.
 *
 * Summary tables (traces, files, nodes, runs, run_metrics, quarantine) are plain SQL so a
 * planner can query them with sqlite3; bulk data is in zstd column blocks (zblk.h), each
 * with its codec, lengths and checksum. PRAGMA application_id marks the file as a voidfit
 * store and user_version is its schema version; migrations are schemas/NNN-*.sql.
 *
 * Writes happen inside store_begin()/store_commit(): an interrupted import leaves the store
 * exactly as it was. Every function returns 0 or a VF_E* code with e filled.
 */
#ifndef VOIDFIT_STORE_H
#define VOIDFIT_STORE_H

#include <stdint.h>
#include <stdio.h>

#include "job.h"
#include "sbuf.h"
#include "util.h"

struct store;

enum {
	STORE_CREATE = 1, /* make a new store if no file is at the path (import only) */
	STORE_RDONLY = 2, /* open read-only */
	/* open to be checked (store_check): a store holding schema objects the migrations do
	 * not make is opened, not refused, and reads are not verified */
	STORE_CHECK = 4,
};

/* How long an opener waits for a store another process holds (a writer, or readers when
 * it commits), and whom it tells. */
#define STORE_WAIT_DEFAULT 60.0 /* seconds */
struct store_wait {
	double seconds; /* give up after this long; 0: at once */
	/* Called once, when a wait has lasted a moment, with "waiting for PATH (another
	 * voidfit is writing it)"; NULL: wait silently. */
	void (*waiting)(void *ctx, const char *msg);
	void *ctx;
};

/* Open the store at path, bringing an older schema up to date (in one transaction per
 * migration; read-only too, where the file can be written). Only STORE_CREATE makes a
 * store, and only where no file is: it is built under a temporary name in the same folder
 * and put at path by its first store_commit (refused if a file appeared there meanwhile);
 * until then path does not exist, and store_close (or an exit) removes the temporary
 * file. Any file found at path is left as it was unless it is a voidfit store: an empty
 * file, another program's SQLite file, a store of a newer schema are VF_ESTORE; a missing
 * file without STORE_CREATE is VF_EIO; a store that cannot be written is VF_EIO unless
 * STORE_RDONLY. w: how to wait (NULL: STORE_WAIT_DEFAULT, silently). */
int store_open_wait(const char *path, int flags, const struct store_wait *w, struct store **out,
		    struct err *e);
/* A store is a file planners send each other, so it is opened in SQLite's defensive mode
 * with trusted_schema off, and one holding schema objects the migrations do not make
 * (triggers, views, tables, indexes, or theirs made otherwise) is VF_ESTORE before any
 * table is read (unless STORE_CHECK). Every read of a table whose rows are sealed
 * (row_sums) first verifies the whole table in the reader's snapshot, once: each row
 * against its checksum, the count and total against row_sums, SQLite's integrity check of
 * the table and its indexes; a mismatch fails the read
 * with VF_ESTORE naming the table and pointing to 'voidfit check'. */

/* A new store: how many temporary files of killed imports of it (this host's, their
 * process gone) were removed when it was made; 0 for an existing store. */
size_t store_swept(const struct store *s);
/* store_open_wait with w = NULL. */
int store_open(const char *path, int flags, struct store **out, struct err *e);
/* Close s; s may be NULL. Rolls back an open transaction; a new store that never
 * committed is removed (its temporary file, if it is still the file this process made). */
void store_close(struct store *s);

/* One write transaction (BEGIN IMMEDIATE ... COMMIT). The first commit of a new store
 * puts it in place (see store_open_wait); if that fails, the store is not there. */
int store_begin(struct store *s, struct err *e);
int store_commit(struct store *s, struct err *e);
void store_rollback(struct store *s);
/* One read transaction: every read between them sees the store as it was at the first,
 * whatever other processes commit meanwhile (a report of one state). Not inside a write
 * transaction; store_read_end on a store not reading does nothing. */
int store_read_begin(struct store *s, struct err *e);
void store_read_end(struct store *s);
/* Can this process write s now? Takes the write lock and changes the header inside a
 * transaction it rolls back, so that a store that is read-only (the file, or its folder
 * where the journal goes), busy past the wait, or on a full disk fails here, before work
 * whose results would be lost. 0, or VF_EIO / VF_ESTORE with the cause in e. */
int store_can_write(struct store *s, struct err *e);

/* ---- traces: one import makes one trace (jobs and nodes imported together) ---- */
int store_trace_new(struct store *s, const char *name, int64_t *id, struct err *e);
/* Find a trace by name or id (as text); NULL or "" means the newest. */
int store_trace_find(struct store *s, const char *name_or_id, int64_t *id, struct err *e);

/* ---- files: provenance of each imported file, and its bytes, losslessly ---- */
struct store_file {
	int64_t id; /* set by store_file_add */
	int64_t trace_id;
	const char *name;   /* base name, as imported */
	const char *format; /* detected or given format name */
	int64_t size;       /* bytes of the file as imported (compressed if it was) */
	uint8_t sha256[32]; /* of those bytes */
	int64_t rows_read, rows_accepted, rows_quarantined;
	int64_t imported_at; /* seconds since the epoch */
};
/* Add f (counts may be 0 now); sets f->id. */
int store_file_add(struct store *s, struct store_file *f, struct err *e);
/* Record f's final counts (read = accepted + quarantined is asserted), size and sha256
 * (known for sure only once the file is read). */
int store_file_finish(struct store *s, const struct store_file *f, struct err *e);
/* Is a file with this sha256 already in the store? Returns 1 (and its trace's name in
 * trace_name, if not NULL, at most len bytes) or 0; negative never (errors go to e). */
int store_file_seen(struct store *s, const uint8_t sha256[32], char *trace_name, size_t len,
		    struct err *e);
/* Is a file of this size already in the store? 1 or 0; errors go to e (then 0). */
int store_file_size_seen(struct store *s, int64_t size, struct err *e);

/* Raw bytes of a file, kept so 'export --raw' gives it back byte for byte. Text CSV is
 * kept as compressed column blocks (with the odd lines kept verbatim); a compressed input
 * (.gz, .zst) is kept as it came. Write the file's bytes in order, in any chunks. */
struct store_raw;
int store_raw_begin(struct store *s, int64_t file_id, int opaque, struct store_raw **out,
		    struct err *e);
int store_raw_write(struct store_raw *w, const void *buf, size_t n, struct err *e);
/* Flush and free w. */
int store_raw_end(struct store_raw *w, struct err *e);
/* As store_raw_end, and give the sha256 and the count of every byte written (either may
 * be NULL), so a file need not be read twice to be hashed. */
int store_raw_finish(struct store_raw *w, uint8_t sha256[32], int64_t *size, struct err *e);
/* Free w without writing the rest; w may be NULL. */
void store_raw_abort(struct store_raw *w);
/* Write the file's original bytes to out, and make sure they are: their count and
 * sha256 against those recorded at import (a mismatch, from a damaged store, is
 * VF_ESTORE naming the file; out then holds wrong bytes, for the caller to remove). */
int store_raw_export(struct store *s, int64_t file_id, FILE *out, struct err *e);

/* A bad row: where (file id, 1-based line), why, and its raw text. */
int store_quarantine_add(struct store *s, int64_t file_id, int64_t line, const char *reason,
			 const char *raw, size_t rawlen, struct err *e);

/* ---- nodes and jobs of a trace ---- */
int store_nodes_add(struct store *s, int64_t trace_id, const struct node *nodes, size_t n,
		    struct err *e);
/* Jobs are appended through a writer that fills column blocks of at most STORE_BLOCK_ROWS
 * rows, so memory stays bounded by the block size, not the trace. A block of jobs parsed
 * from a text file's lines (store_jobs_add_line) is coded against the numbers of those
 * lines (a job costs little more than its line did); other blocks are coded alone.
 * store_trace_load sees jobs once they are committed. */
#define STORE_BLOCK_ROWS 4096
struct store_jobs;
int store_jobs_begin(struct store *s, int64_t trace_id, struct store_jobs **out, struct err *e);
int store_jobs_add(struct store_jobs *w, const struct job *j, struct err *e);
/* As store_jobs_add, for a job parsed from line (1-based) of the text file that src is
 * writing (src NULL: as store_jobs_add). A change of src ends the block being filled;
 * store_raw_end(src) ends it too, and inserts the blocks of src's jobs with its own, so
 * call it before store_jobs_end. */
int store_jobs_add_line(struct store_jobs *w, const struct job *j, struct store_raw *src,
			int64_t line, struct err *e);
int store_jobs_end(struct store_jobs *w, struct err *e);
void store_jobs_abort(struct store_jobs *w);
/* Load a trace's jobs (sorted by arrival, then id) and nodes into out (emptied first). */
int store_trace_load(struct store *s, int64_t trace_id, struct job_set *out, struct err *e);

/* ---- a trace's own GPU models (store-models.c) ---- */
struct gpumodel_def;
/* Keep the n rows d of a planner's model table (import --gpu-models) with trace_id, each
 * with ids[i], the model id it has in the trace's jobs (gpumodel_add gave it); in the
 * caller's transaction. store_open adds every trace's rows to the process's table
 * (gpumodel_add) before it returns: a row it cannot add, or one that gets another id than
 * it was stored with, fails the open (VF_EINPUT, VF_ESTORE). */
int store_gpu_models_add(struct store *s, int64_t trace_id, const struct gpumodel_def *d,
			 const int *ids, size_t n, struct err *e);

/* ---- replay runs ---- */
struct store_metric {
	const char *key; /* "mean_fragmentation", "stalled_gpu_hours", ... */
	double value;
};
struct store_run {
	int64_t id; /* set by store_run_add */
	int64_t trace_id;
	const char *policy; /* policy name */
	const char *mode;   /* "timed" or "inflate" */
	uint64_t seed;
	const char *params_json;  /* every parameter of the run, as a JSON object */
	const char *summary_json; /* the run's summary, as a JSON object */
	const void *series;       /* time series, any bytes (compressed by the store) */
	size_t series_len;
	const void *jobs; /* per-job results, any bytes (compressed by the store) */
	size_t jobs_len;
	int64_t scenario_id;         /* its scenario (store_scenario_put), 0 for none */
	const char *dims;            /* the dims the policy saw ("cpu,gpu") */
	const char *voidfit_version; /* the version that made it */
	int64_t created_at;          /* read back: when it was stored, seconds since the epoch */
};
/* Store run r and its metrics (one row each in run_metrics); sets r->id. */
int store_run_add(struct store *s, struct store_run *r, const struct store_metric *m, size_t nm,
		  struct err *e);

/* ---- reading back: listings for info, check, compare (added by the store owner) ---- */

/* Callbacks return 0 to go on, non-zero to stop (that value is then returned). */
struct store_trace_info {
	int64_t id;
	const char *name;
	int64_t created_at; /* seconds since the epoch */
	int64_t njobs, nnodes;
};
/* Every trace, oldest first. */
int store_trace_list(struct store *s, int (*cb)(void *ctx, const struct store_trace_info *t),
		     void *ctx, struct err *e);
/* Every file of trace_id (-1: of all traces), in import order; strings valid during cb. */
int store_file_list(struct store *s, int64_t trace_id,
		    int (*cb)(void *ctx, const struct store_file *f), void *ctx, struct err *e);

/* Every run of trace_id (-1: all), in id order. series/jobs are NULL in r (see
 * store_run_data); strings valid during cb. */
int store_run_list(struct store *s, int64_t trace_id,
		   int (*cb)(void *ctx, const struct store_run *r), void *ctx, struct err *e);
/* The metrics of run run_id, in the order they were added. */
int store_run_metrics(struct store *s, int64_t run_id,
		      int (*cb)(void *ctx, const struct store_metric *m), void *ctx, struct err *e);
/* A run's series (which = 0) or per-job bytes (which = 1), inflated into *out (malloc'd,
 * the caller frees; NULL with *n = 0 when the run has none). */
int store_run_data(struct store *s, int64_t run_id, int which, void **out, size_t *n,
		   struct err *e);

/* Sizes: the file (page_count * page_size) and the bytes of every imported file. */
struct store_sizes {
	int64_t store_bytes; /* the SQLite file */
	int64_t raw_bytes;   /* sum of the imported files' sizes */
	int64_t free_bytes;  /* free pages */
};
int store_sizes(struct store *s, struct store_sizes *out, struct err *e);

/* Verify the store: SQLite integrity; application_id and user_version; every table and
 * index the migrations make, as they make it; foreign keys; every row of the sealed
 * tables (every table but the blocks': traces, files, quarantine, nodes, scenarios, runs,
 * run_blobs, run_metrics, run_buckets, sizings, sizing_models) against its checksum, and
 * each table's row count and total against row_sums; every file's rows read = accepted +
 * quarantined and its quarantined rows; every block's checksum and decoding; every file's
 * bytes against its size and sha256; job and node row counts against their traces.
 * Calls report once per thing checked or problem found (ok = 1 if fine; what names it,
 * "file 'jobs.csv'"; detail says what was found, or the problem when not ok). Returns 0
 * and sets *nbad to the number of problems found; an error only if checking could not go
 * on (then also counted in nbad). Reads as a store opened with STORE_CHECK does, however s
 * was opened: a sealed table is not verified before it is read, its bad rows are listed. */
int store_check(struct store *s,
		void (*report)(void *ctx, int ok, const char *what, const char *detail), void *ctx,
		int *nbad, struct err *e);

/* The sha256 and length of the bytes store_raw_export would write for file_id. */
int store_raw_digest(struct store *s, int64_t file_id, uint8_t sha256[32], int64_t *len,
		     struct err *e);

/* ---- scenarios, and the buckets and series of runs (store-scen.c) ---- */

/* Most parameter columns of a scenario row. */
#define STORE_SCEN_NPARAM 8

/* A scenario row: what defines a run but its policy and seed. Reals that do not apply are
 * NaN (NULL in the store), integers -1. Strings are valid during a callback. */
struct store_scenario {
	int64_t id, trace_id;
	const char *key;   /* canonical text of the parameters (scenario_key) */
	const char *mode;  /* "timed" or "inflate" */
	double target;     /* inflate */
	const char *queue; /* timed */
	int preempt;
	const char *dims; /* "" when each policy sees its own */
	/* Numbers of scenario parameters with a column of their own (scenario.h's table names
	 * the column each fills): put takes those given (a column the table lacks is an
	 * error), list gives every one, NaN for NULL; the names are static. */
	struct store_param {
		const char *column;
		double value;
	} param[STORE_SCEN_NPARAM];
	size_t nparam;
	int64_t sample_nodes;
	const char *faults;                                     /* comma-separated, "" for none */
	const char *profile_name, *profile_path, *profile_text; /* path NULL: built-in */
	int64_t profile_version;
	double io_pressure;
	const char *cluster_path, *cluster_text; /* NULL: the trace's nodes */
	int64_t nodes, gpus, jobs;
	int64_t window_start, window_end; /* timed; -1 */
	const char *enriched;             /* which values rest on enrichment */
	int64_t parent_run, fork_time;    /* a what-if forked from a run, -1 otherwise */
	const char *change;               /* what the what-if changed, or NULL */
	int64_t created_at;
	int64_t resample; /* r >= 1: the trace's r-th block resample (resample.h); 0: as traced */
	int64_t block_s;  /* resampled: its block in seconds; -1 */
	int64_t nruns;    /* read back: its runs */
};
/* The id of the scenario with sc's trace and key, adding sc when there is none. */
int store_scenario_put(struct store *s, const struct store_scenario *sc, int64_t *id,
		       struct err *e);
/* Every scenario of trace_id (-1: all), oldest first, with its number of runs. */
int store_scenario_list(struct store *s, int64_t trace_id,
			int (*cb)(void *ctx, const struct store_scenario *sc), void *ctx,
			struct err *e);

/* One bucket of a run: GPU-milli-seconds of model and class in bucket. */
struct store_bucket {
	const char *model, *cls, *bucket;
	int64_t gpu_ms;
};
/* One point of a run's time series. */
struct store_point {
	int64_t t;
	double load, alloc_share, frag, frag_md, stall_share;
	int64_t queued, running, finished, failed;
};
/* Add run_id's buckets (in the caller's transaction). */
int store_run_buckets_add(struct store *s, int64_t run_id, const struct store_bucket *b, size_t nb,
			  struct err *e);
/* The CSV text of a series of n points (the bytes of store_run's series) into out. */
void store_series_text(const struct store_point *p, size_t n, struct sbuf *out);
/* Run run_id's buckets, and its series in order (from its series block; a run without one
 * has no point). */
int store_run_buckets(struct store *s, int64_t run_id,
		      int (*cb)(void *ctx, const struct store_bucket *b), void *ctx, struct err *e);
int store_run_series(struct store *s, int64_t run_id,
		     int (*cb)(void *ctx, const struct store_point *p), void *ctx, struct err *e);
/* Every run of scenario_id, in id order (series and jobs NULL in r). */
int store_run_list_scenario(struct store *s, int64_t scenario_id,
			    int (*cb)(void *ctx, const struct store_run *r), void *ctx,
			    struct err *e);
/* Delete run id with its metrics, buckets and series (in the caller's transaction);
 * VF_EINPUT if there is no such run. A scenario left without runs goes too, unless a
 * sizing rests on it. */
int store_run_delete(struct store *s, int64_t id, struct err *e);

/* ---- sizings: what 'voidfit size' found (store-size.c) ---- */

/* One GPU model of a sizing: its nodes and GPUs in the full cluster and the smallest. */
struct store_sizing_model {
	const char *model;
	int64_t nodes_full, nodes_min, gpus_full, gpus_min;
};
/* The smallest cluster one policy needs to meet an SLO on one scenario. Strings are valid
 * during a callback. */
struct store_sizing {
	int64_t id; /* set by store_sizing_put */
	int64_t scenario_id, trace_id;
	const char *policy;
	const char *slo; /* as 'voidfit size --slo' reads it; "" for the unplaceable rule alone */
	uint64_t seed_lo, seed_hi; /* it holds at every seed of seed_lo..seed_hi */
	const char *shrink;        /* the GPU model shrunk alone, "" for every GPU group */
	int64_t nodes_full, nodes_min, gpus_full, gpus_min, gpus_retired;
	double usd_per_year;    /* the retired GPUs a year, at price_tier and prices */
	const char *price_tier; /* "on-demand", ... */
	const char *prices;     /* the --gpu-price overrides, comma-separated, "" for none */
	int64_t probes;         /* cluster sizes tried */
	/* the larger sizes tried to check the answer (-1: not known, a sizing of an older
	 * voidfit), the nodes of the first that missed the SLO (0: none) and what it missed */
	int64_t checked_above, miss_above_nodes;
	const char *miss_above;                  /* "" if none (NULL reads as "") */
	int64_t created_at;                      /* seconds since the epoch */
	const struct store_sizing_model *models; /* nmodels, one per GPU model of the cluster */
	size_t nmodels;
};
/* Store z and its models (in the caller's transaction), replacing the sizing of the same scenario,
 * policy, SLO, seeds and shrink; sets z->id. */
int store_sizing_put(struct store *s, struct store_sizing *z, struct err *e);
/* Every sizing of scenario_id (-1: of all), in id order, with its models. */
int store_sizing_list(struct store *s, int64_t scenario_id,
		      int (*cb)(void *ctx, const struct store_sizing *z), void *ctx, struct err *e);

/* ---- a verdict's answers on block resamples, in a task store (store-answer.c) ---- */

/* One policy's answers on resample r of a trace (voidfit(5): resample_answers, a table of
 * task stores only). Strings are the caller's. */
struct store_answer {
	int64_t trace_id;
	const char *scen_key;    /* the trace's scenario (scenario_key) */
	const char *verdict_key; /* the verdict's (verdict.key) */
	int64_t resample;        /* r >= 1 */
	const char *policy;
	double usd_year, growth, buy_usd_year; /* NaN: none (NULL in the store) */
};
/* Add a to task store s (in the caller's transaction) with its checksum. */
int store_answer_put(struct store *s, const struct store_answer *a, struct err *e);
/* The numbers of the answer of a's trace, keys, resample and policy into a, and *found 1;
 * *found 0 when there is none; VF_ESTORE when its row does not match its checksum. */
int store_answer_get(struct store *s, struct store_answer *a, int *found, struct err *e);
/* The answers task store s holds into *n: 0 when it has no such table (a task store made
 * before there were, or a store). */
int store_answers_count(struct store *s, int64_t *n, struct err *e);
/* Check every answer of s against its checksum, counted into *n (0 when s has no such
 * table): 0, or VF_ESTORE naming the first that does not match. */
int store_answers_verify(struct store *s, int64_t *n, struct err *e);

/* ---- the runs of a verdict's searches on its trace, in its sweep's trace.db
 * (store-answer.c) ---- */

/* One run (voidfit(5): trace_probes, a table of task stores only, and its figures in
 * trace_probe_figures). Strings and arrays are the caller's (or, read, valid during the
 * callback). */
struct store_probe {
	int64_t trace_id;
	const char *scen_key;    /* the trace's scenario (scenario_key) */
	const char *verdict_key; /* the key of the verdict's searches (verdict_memo_key) */
	const char *search;      /* which of them: "fewer", "headroom", "buy" */
	double growth;           /* the growth of its trace */
	const char *policy;
	int64_t step;
	uint64_t seed;
	int64_t w0, w1; /* its pricing window */
	int gave_up;    /* 1: it stopped once it could no longer meet the SLO */
	int64_t events; /* sim events it handled */
	size_t nfig;    /* its figures: keys and values (NaN: NULL in the store) */
	const char *const *fig_key;
	const double *fig;
};
/* Add p and its figures to task store s (in the caller's transaction), each row with its
 * checksum. */
int store_probe_put(struct store *s, const struct store_probe *p, struct err *e);
/* Remove every run of task store s (in the caller's transaction). */
int store_probes_clear(struct store *s, struct err *e);
/* Call cb with every run of s, in the order they were put, each row checked against its
 * checksum and every figure of a run there: 0 (also when s has no such table), cb's
 * non-zero return, or VF_ESTORE naming the first row that does not match. */
int store_probe_list(struct store *s, int (*cb)(void *ctx, const struct store_probe *p), void *ctx,
		     struct err *e);

/* ---- task stores of a sweep, and merging them (store-merge.c) ---- */

/* The trace's digest into hex: the sha256 of its files' sha256s (hex, sorted, one a line),
 * the same in every store that holds the trace. VF_ESTORE if it has no file rows. */
int store_trace_digest(struct store *s, int64_t trace_id, char hex[65], struct err *e);
/* The digest of how trace_id was imported: the sha256 of its jobs and nodes as a replay
 * loads them (every field, in load order), so that the same files imported with another
 * format, mapping or option differ. */
int store_trace_content(struct store *s, int64_t trace_id, char hex[65], struct err *e);
/* Make the empty store task (in its transaction) a task store of trace_id of from: the trace
 * row (same id and name, no jobs or nodes) and its file rows, sealed, and the task row
 * with the trace's digest and content digest (store_trace_content), not yet finished. */
int store_task_init(struct store *task, struct store *from, int64_t trace_id, struct err *e);
/* Mark task finished (in its transaction): its runs and the time in the task row. A task
 * store not finished is never merged. */
int store_task_seal(struct store *task, int64_t trace_id, struct err *e);
/* The trace digest the task row of the finished task store at path names, into hex.
 * Returns 0, VF_ESTORE (no finished task store) or the error of opening path. */
int store_task_digest(const char *path, char hex[65], struct err *e);
/* What a task store holds (store_task_verify). */
struct store_task_info {
	char sha256[65];  /* its trace's digest, recomputed from its file rows */
	int finished;     /* 1: sealed (its task row is there); 0: a task still running, stopped
			   * or killed, whose runs so far are kept */
	int64_t runs;     /* the runs it holds */
	char version[64]; /* the voidfit that sealed it ("" if not sealed) */
	char *pairs;      /* its runs' "POLICY SEED" lines, sorted (owned: free it) */
};
/* Check the task store t, finished or not: SQLite's quick check, its trace row and digest,
 * and, when sealed, that its task row names that digest and the runs it holds. Returns 0 or
 * VF_ESTORE naming t's path and what is wrong; out->pairs is set either way (free it). */
int store_task_verify(struct store *t, struct store_task_info *out, struct err *e);
/* Compact task store t (VACUUM; no transaction open): a replay's store is about half free
 * pages after it, and the task store goes over the network to be merged. */
int store_task_compact(struct store *t, struct err *e);
/* What merging one task store did. */
struct store_merge_count {
	int64_t trace_id; /* the store's trace of the task's runs */
	int64_t added;    /* runs copied in */
	int64_t skipped;  /* runs the store had already (same scenario, policy and seed) */
};
/* A merge into s, in s's transaction: store_merge_begin verifies s's sealed tables and
 * reads which runs s has. */
struct store_merge;
int store_merge_begin(struct store *s, struct store_merge **out, struct err *e);
/* Check the task store at path (every row read against its seal) and copy its runs that
 * the store lacks into it. VF_ESTORE names path and what is wrong (not a finished task
 * store, damaged, another voidfit version, cannot be opened); VF_EINPUT when the store has
 * no trace of its files' digest imported the same way (content digest) (both sha256s
 * named); VF_EIO when the store itself cannot be written (a full disk): no task store can
 * be merged then. A run added before a failure stays known as added: roll the transaction
 * back. */
int store_merge_task(struct store_merge *m, const char *path, struct store_merge_count *out,
		     struct err *e);
/* Free m; m may be NULL. */
void store_merge_end(struct store_merge *m);

#endif
