/*
 * sweep.h — a sweep: a grid of replays (traces x what-ifs x targets x seeds, every policy in
 * each, or one policy a task) written as tasks that an existing engine runs past one
 * machine, each task writing its own small task store (store.h: store_task_init), which
 * 'voidfit merge' folds into the store.
 *
 * A sweep directory holds
 *   tasks          one voidfit command a line; line N writes runs/N.db (its log: logs/N.log)
 *   sweep.id       the sweep's identity: digests of the task list and of the traces, and
 *                  the runs a task stores; status and merge check the directory against it
 *   parallel.sh    runs the tasks status calls not done with GNU parallel (ssh hosts)
 *   slurm.sh       submits them to Slurm as job arrays of slurm.sbatch (as many as the
 *                  cluster's MaxArraySize needs), then the merge, after them
 *   slurm.sbatch   the array job: array task I runs C tasks of the list it is given
 *   runs/, logs/   what the tasks write
 *
 * A task writes runs/N.db.part, keeping each run as it ends, and renames it runs/N.db once
 * its runs are in and the store is compacted and sealed (sweep_task_end): a task killed or
 * stopped half-way leaves only the .part file, which merge refuses and the task run again
 * resumes.
 *
 * Nothing here prints.
 */
#ifndef VOIDFIT_SWEEP_H
#define VOIDFIT_SWEEP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sbuf.h"
#include "store.h"
#include "util.h"

/* Most tasks a sweep writes. */
#define SWEEP_MAX_TASKS 1000000
/* Largest what-if file. */
#define SWEEP_WHATIF_MAX ((size_t)16 << 20)
/* The suffix of a task store being written. */
#define SWEEP_PART ".part"

/* A variation of the scenario: the words of a what-if line. */
struct sweep_whatif {
	char **words;     /* owned */
	size_t n;         /* how many */
	char where[1100]; /* "FILE:LINE" */
};

struct sweep {
	char *store;             /* the store's absolute path (owned) */
	const char *policies;    /* --policies as given */
	const char *const *pols; /* the policies' names (not owned) */
	size_t npol;             /* how many */
	int split;               /* one task a policy (else every policy in each task) */
	uint64_t lo, hi;         /* seeds lo..hi */
	char **targets;          /* inflation targets as text (owned); none: timed */
	size_t ntargets;         /* how many */
	const char **traces;     /* --trace values (strings not owned); none: the newest */
	size_t ntraces;          /* how many */
	char (*digests)[65];     /* the digest of each trace (ntraces, or 1; not owned) */
	struct sweep_whatif *wi; /* what-if lines; none: the scenario as it is */
	size_t nwi;              /* how many */
	const char *bindir;      /* put first on the tasks' PATH, or NULL */
	/* or NULL: the grid above; else the task lines as they are (nlines, each ending in a
	 * newline, each "voidfit VERB STORE ..."), each task storing per_task rows: the
	 * resamples of a verdict (voidfit verdict --sweep) */
	const char *lines;
	size_t nlines, per_task;
	const char *verb; /* the command of a task line; NULL: "replay" */
	int no_merge;     /* the task stores are not merged (a verdict's: it reads them
			   * from the directory); Slurm's last job only checks them */
	/* Slurm */
	size_t cells;             /* tasks an array task runs, one after another (>= 1) */
	const char *mem, *time;   /* #SBATCH --mem and --time (NULL: none) */
	const char *const *sbopt; /* more sbatch options, written as #SBATCH lines */
	size_t nsbopt;            /* how many */
};

/* A blank, then s as one word for sh (quoted where it needs it), appended to b. */
void sweep_add_word(struct sbuf *b, const char *s);
/* The directory of this voidfit, for the tasks' PATH (NULL if unknown; the caller frees). */
char *sweep_bin_dir(void);
/* An empty sweep: seeds 1..1, no target, trace, what-if. */
void sweep_init(struct sweep *w);
/* Free what w owns; w may be NULL. */
void sweep_release(struct sweep *w);
/* Add targets "X[,X...]", each X a number or LO..HI/STEP (LO, LO+STEP, ... up to HI; each
 * printed with the decimals given, so 0.5..1.3/0.05 gives 0.65, not 0.65000000000000002).
 * Returns 0 or VF_EINPUT naming the bad item. */
int sweep_add_targets(struct sweep *w, const char *spec, struct err *e);
/* Add the lines of what-if file path: scenario options, words separated by blanks; '#'
 * starts a comment, lines without words are skipped (words.h). The words are not checked here
 * ('voidfit sweep' checks them as scenario options, and may rewrite them, before
 * sweep_write). Returns 0, VF_EIO or VF_EINPUT (no line). */
int sweep_add_whatif(struct sweep *w, const char *path, struct err *e);
/* The number of tasks of w. */
size_t sweep_ntasks(const struct sweep *w);
/* Create dir with tasks, sweep.id, parallel.sh, slurm.sh, slurm.sbatch, runs/ and logs/.
 * A dir holding this very sweep (the same identity) has its scripts written anew (other
 * resources, options) and keeps its task stores; one holding another sweep, or what one
 * left (a joblog, task stores, logs, with no task list), is refused. Sets *same when dir
 * held this sweep. Returns 0, VF_EINPUT (refused) or VF_EIO. */
int sweep_write(const struct sweep *w, const char *dir, int *same, struct err *e);

/* ---- a task's store (replay --into) ---- */

/* A task store being written. */
struct sweep_task {
	struct store *t; /* the task store, open at path + SWEEP_PART; NULL when none */
	char *path;      /* where it goes once sealed (owned) */
	int replace;     /* a file was at path: it is replaced; else the path must stay free */
	dev_t dev;       /* the device of the file replaced, */
	ino_t ino;       /* and its inode: a file put there meanwhile is not replaced */
	int64_t resumed; /* runs kept from a stopped or killed run of the task (its .part) */
};

/* Start a task store of trace_id of from (a store opened at from_path) for path. What is at
 * path already is refused, unless it is a finished task store of the same trace (a task run
 * again) or, with force, a regular file; the store read (by device and inode: a link,
 * another name of it) is never replaced, nor anything that is not a regular file. An
 * unfinished task store of the same trace at path + SWEEP_PART (a run of the task stopped or
 * killed) is reopened, its runs kept (k->resumed: run the grid with resume); anything else
 * there is removed and a new one made. Returns 0, VF_EINPUT (a path refused; nothing made)
 * or the store's error. */
int sweep_task_begin(struct store *from, const char *from_path, int64_t trace_id, const char *path,
		     int force, struct sweep_task *k, struct err *e);
/* How a task ends. */
enum sweep_end {
	SWEEP_END_FAIL, /* remove the task store */
	SWEEP_END_DONE, /* compact and seal it, put it at its path */
	SWEEP_END_KEEP, /* stopped (a signal: a time limit, a cancel): keep path + SWEEP_PART, its
			 * runs so far, for the task run again to resume */
};
/* End task store k as how says. DONE: compacted, sealed, closed and put at k->path: renamed
 * over the file that was there (if it is still the same), linked to a path that was free
 * (not over a file that appeared meanwhile). Releases k (which may be zeroed). Returns 0 or
 * an error (then nothing new is at the path). */
int sweep_task_end(struct sweep_task *k, int64_t trace_id, enum sweep_end how, struct err *e);

/* ---- what a sweep directory says ---- */

/* The identity of a sweep (DIR/sweep.id). */
struct sweep_id {
	char id[65];        /* the sweep: its task list and traces */
	char tasks[65];     /* the sha256 of DIR/tasks */
	int64_t runs;       /* the runs each task stores */
	char (*traces)[65]; /* the traces' digests (owned) */
	size_t ntraces;     /* how many */
};
/* Read dir's identity and check its task list against it. Returns 0, VF_EINPUT (not a
 * sweep, no or a bad sweep.id, a task list changed since) or VF_EIO. */
int sweep_id_read(const char *dir, struct sweep_id *out, struct err *e);
void sweep_id_release(struct sweep_id *id);
/* Check the task store at path (a task of the sweep of id, whose line of the task list is
 * line, or NULL): whole (SQLite's quick check), finished, of one of the sweep's traces, made
 * by this voidfit, holding as many runs as a task of the sweep stores, and those of its line
 * (its policies at its seed). Returns 0 or VF_ESTORE saying what is wrong. */
int sweep_task_check(const struct sweep_id *id, const char *path, const char *line, struct err *e);
/* Line n (1-based) of dir's task list into out: 0, or -1 when there is none. */
int sweep_task_line(const char *dir, size_t n, struct sbuf *out);

enum sweep_state {
	SWEEP_DONE,    /* runs/N.db is there and checks */
	SWEEP_FAILED,  /* a log, no store: the task ended without its store */
	SWEEP_INVALID, /* runs/N.db is there but does not check (damaged, cut, another's) */
	SWEEP_PARTIAL, /* runs/N.db.part: running, or stopped or killed half-way */
	SWEEP_MISSING, /* neither: not run yet */
	SWEEP_NSTATES
};
struct sweep_status {
	size_t n;                    /* tasks */
	enum sweep_state *state;     /* per task, 0-based (task N is state[N - 1]) */
	char **last;                 /* per task: the last line of its log, or why its store is
				      * invalid, or NULL */
	size_t count[SWEEP_NSTATES]; /* tasks in each state */
};
/* The number of tasks of sweep dir (lines of dir/tasks) into *n. VF_EINPUT: not a sweep. */
int sweep_count_tasks(const char *dir, size_t *n, struct err *e);
/* Read dir's identity, its tasks and what they left, each task store checked
 * (sweep_task_check). Returns 0, VF_EINPUT (no sweep there, or its identity does not hold)
 * or VF_EIO. */
int sweep_status_read(const char *dir, struct sweep_status *out, struct err *e);
void sweep_status_release(struct sweep_status *s);
/* The tasks of s not done (failed, invalid, running or killed, missing) as a list sbatch
 * --array takes: "3,5-9,12", every one of them, no blank; "" when all are done. */
void sweep_status_todo(const struct sweep_status *s, struct sbuf *out);

/* If path is a task store of a sweep (DIR/runs/N.db with DIR/tasks), set dir to DIR and *n
 * to N and return 1; else 0. */
int sweep_task_of(const char *path, struct sbuf *dir, size_t *n);

#endif
