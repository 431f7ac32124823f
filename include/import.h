/*
 * import.h — the import driver: trace files in, one new trace in the store out.
 *
 * One import is one store transaction: every file of the invocation goes into one new
 * trace (jobs and nodes together), with provenance and the raw bytes of each file, and bad
 * rows in quarantine. On any failure the transaction is rolled back and the store is as it
 * was. The driver never prints: it returns counts and the first bad-row messages.
 */
#ifndef VOIDFIT_IMPORT_H
#define VOIDFIT_IMPORT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"
#include "trace.h"
#include "util.h"

/* The largest --gpu-models file read. */
#define IMPORT_MODELS_MAX (1 << 20)

struct import_opts {
	const char *store;   /* store path (made if no file is there: see store_open_wait) */
	const char *format;  /* format name or "generic:NAME|PATH"; NULL = detect per file */
	const char *name;    /* trace name; NULL = the first new file's base name */
	const char *cluster; /* a cluster-spec file adding nodes, or NULL */
	/* a planner's GPU model table (gpumodel_defs_read), kept with the trace, or NULL */
	const char *gpu_models;
	int strict; /* the first bad row fails the import */
	int again;  /* files the store already holds are imported again (into the new trace),
		     * not skipped: --new-trace */
	int tz_set; /* naive time strings are at UTC + tz_offset s (--tz); else UTC */
	int64_t tz_offset;
	int64_t node_procs;     /* swf: processors per node (--node-procs), 0: the log's header */
	size_t max_bad;         /* bad-row messages to keep in the result */
	struct store_wait wait; /* how to wait for a store another process holds */
	/* Set non-zero (by a signal handler) to stop the import: it fails "interrupted" at
	 * the next row, or as soon as a read the signal broke returns; NULL: never. */
	volatile sig_atomic_t *stop;
};

/* One input file: its path ("-" = stdin), whether --nodes named it, and its format
 * (NULL: o->format, else detected). */
struct import_input {
	const char *path;
	int nodes;
	const char *format;
};

struct import_file {
	char *name;   /* path as given ("stdin" for "-") */
	char *format; /* format used, "" for a duplicate */
	int64_t read, accepted, quarantined;
	char *dup_of;  /* a duplicate: the trace already holding the same bytes, else NULL */
	char *skipped; /* not a trace but a file voidfit knows (a fault file): why, else NULL */
};

struct import_result {
	int64_t trace_id; /* the new trace, 0 if nothing was imported */
	char *trace;      /* its name, or NULL */
	struct import_file *files;
	size_t nfiles;
	char **bad; /* the first max_bad "file:line: reason" messages */
	size_t nbad;
	int64_t read, accepted, quarantined; /* totals over the files */
	int64_t jobs, nodes;                 /* what went into the trace */
	size_t nnew;                         /* files imported (not duplicates) */
	size_t swept; /* temporary files of killed imports removed (store_swept) */
	/* GPU models the table does not know, each priced and sized as the UNKNOWN row; name
	 * "-": GPU nodes that name no model; "": the names past TRACE_MODELS_MAX. */
	struct trace_model_note *unknown;
	size_t nunknown;
	int64_t others; /* traces the store held besides the new one */
};

/*
 * Import the inputs into o->store. Returns 0 (res filled; res->nnew may be 0 if every file
 * was a duplicate: nothing was written then), or a VF_E* code with e filled ("FILE:LINE:
 * cause" for input errors), and then the store is unchanged. An import that would store
 * nothing usable fails (VF_EINPUT): an import whose every row is quarantined, job files that
 * make no job, node files that make no node, or a cluster spec beside job files the store
 * already holds (without o->again: it would make a trace of nodes and no job). res is filled as far
 * as the import went either way; release it with import_result_release.
 */
int import_run(const struct import_opts *o, const struct import_input *in, size_t n,
	       struct import_result *res, struct err *e);
/* Free what res holds; res may be NULL. */
void import_result_release(struct import_result *res);

#endif
