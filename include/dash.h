/*
 * dash.h — the dashboard's model: what `voidfit dash` shows, without curses.
 *
 * A struct dash holds a scenario replayed under one policy (the main lane) and up to three
 * what-ifs beside it (lanes 1..3: another policy, an added fault or another io-pressure)
 * that run in lockstep. It steps the sims and answers what each panel shows:
 *
 *   dash_node / dash_group   a node's (or a range of nodes') residual shape over the seven
 *                            dims, its GPUs as cells, stranded marks, active faults
 *   dash_ticker              the metrics now, O(1) per frame: read from sim_now,
 *                            sim_counters and sim_buckets, never from the jobs
 *   dash_log                 the last events (placements, preemptions, faults, unplaceable
 *                            jobs), kept by sim observer hooks
 *   dash_rows, dash_detail   the cluster panel's rows, a node's detail with units
 *   dash_command             the ':' line: the quick forks run here, the long moves and
 *                            what is the screen's come back to the caller
 * The screen (ui.c) reads this model only: it calls no sim_* function.
 *
 * Time: the view is at a trace second; every lane has handled all its events at or before
 * it (dash_goto), or one more event (dash_step). Going back restores the nearest earlier
 * keyframe (a sim_fork copy, taken at intervals, within a memory budget: when the budget
 * is met every other keyframe goes and the interval doubles) and steps forward from there.
 * Runs are deterministic, and the view never moves a sim's clock between events, so the
 * state reached is the one a straight run reaches: tests check it.
 *
 *   dash_new --> [dash_goto | dash_step | dash_advance]* --> dash_free
 *                 |                ^
 *                 +-- dash_fork ---+-- dash_drop (what-if gone) / dash_whatif_result
 *
 * Nothing here prints; nothing includes curses.
 */
#ifndef VOIDFIT_DASH_H
#define VOIDFIT_DASH_H

#include <stddef.h>
#include <stdint.h>

#include "fault.h"
#include "metrics.h"
#include "policy.h"
#include "replay.h"
#include "scenario.h"
#include "sim.h"
#include "util.h"

/* Default memory budget of one lane's keyframes. */
#define DASH_KEYFRAME_BYTES ((size_t)256 << 20)
/* Most keyframes a lane keeps, whatever the budget: beyond, they thin out the same way. */
#define DASH_KEYFRAME_MAX 32
/* Events the log keeps. */
#define DASH_LOG_MAX 256
/* Points of the fragmentation sparkline over the pricing window. */
#define DASH_SPARK_N 240
/* Lanes: the main run and up to three what-ifs. */
#define DASH_LANES 4

struct dash;

/* A GPU cell of the cluster panel. */
enum dash_cell {
	DASH_CELL_FREE,    /* no job on it */
	DASH_CELL_PART,    /* shared jobs hold part of it */
	DASH_CELL_FULL,    /* all of it held */
	DASH_CELL_STALLED, /* held by a job progressing at rate < 1 */
	DASH_NCELL
};

/* What the cluster panel shows of one node or of a range of nodes. */
struct dash_node {
	char name[64];         /* node name, or "first..last" for a range */
	int model;             /* gpumodel id, -1 for CPU nodes (or mixed in a range) */
	size_t nnodes;         /* nodes it covers (1 for a node) */
	double free[DIM_N];    /* free share of each dim's capacity now, in [0, 1] (a contended
				* shared dim counts 0), summed over the nodes then divided */
	double frag;           /* F_n / the GPU capacity (summed over the range) */
	int ngpu;              /* GPUs */
	int cells[DASH_NCELL]; /* GPUs in each state */
	uint8_t cell[CLUSTER_MAX_GPUS]; /* a single node: each GPU's enum dash_cell */
	uint32_t stranded;              /* DIM_BIT()s with stranded capacity (on any node) */
	int nstranded;                  /* nodes with stranded capacity */
	int faults;                     /* active faults on its nodes */
	int full;                       /* nodes with no free GPU (of those with GPUs) */
	int njobs;                      /* jobs running on it */
};

/* The metrics now of one lane (dash_ticker). $ at the scenario's prices. */
struct dash_ticker {
	int64_t now;                       /* the sim's clock */
	int64_t t0, w0, w1;                /* first arrival; the pricing window */
	double window_share;               /* share of the window the clock has passed, [0, 1] */
	double frag;                       /* FGD fragmentation now, [0, 1] */
	double frag_peak;                  /* its peak so far */
	double gpus;                       /* GPUs in the cluster */
	double gpu_alloc;                  /* GPUs allocated now */
	double gpu_stalled;                /* GPUs lost to rate < 1 now */
	double gpu_blocked;                /* free GPUs idle-blocked now (a GPU job waits) */
	double gpu_unneeded;               /* free GPUs idle-unneeded now */
	int idle_cause;                    /* enum sim_bucket of the free GPUs */
	double usd[SIM_NBUCKET];           /* $ of each bucket so far (over the window passed) */
	double usd_year[SIM_NBUCKET];      /* its rate, $ per year at the pace so far */
	double usd_productive, usd_wasted; /* $ so far: productive, the rest */
	double usd_year_placement, usd_year_sizing; /* $/yr recoverable, at the pace so far */
	int64_t queued, running, finished, unplaceable, preemptions, events;
	double wait_p95;     /* s, over the placements so far (log histogram: within 5 %) */
	double events_per_s; /* events replayed per wall second, lately (0 while paused) */
	int over;            /* the run is over */
};

/* One entry of the event log. A gang's start is one entry naming its workers' nodes. */
enum dash_ev { DASH_EV_PLACE, DASH_EV_PREEMPT, DASH_EV_FAULT, DASH_EV_UNPLACEABLE };
#define DASH_EV_NODES 8 /* a gang's workers whose nodes an entry keeps */
struct dash_event {
	int64_t t;
	uint8_t kind;    /* enum dash_ev */
	uint8_t begin;   /* fault: begins (1) or ends (0) */
	int32_t job;     /* job instance (place, preempt, unplaceable) */
	int32_t node;    /* node (place: the first worker's, preempt), -1 */
	int32_t by;      /* preempt: the job it made room for; -1: killed, its node down */
	int32_t fault;   /* fault: index in sim_faults() */
	int32_t workers; /* place: its workers W (1 but for a gang) */
	int32_t wnode[DASH_EV_NODES]; /* place: the nodes of its first workers (W at most) */
};

/* Sort orders of the cluster panel (dash_order). */
enum dash_sort { DASH_SORT_NAME, DASH_SORT_FRAG, DASH_SORT_FREE, DASH_SORT_STALLED, DASH_NSORT };
/* "name", "fragmentation", "free GPUs", "stalled". */
const char *dash_sort_name(enum dash_sort s);

/* A new dashboard of sc (after scenario_load; not copied, must outlive d) under ops at
 * seed: the trace prepared (replay_prepare) and a sim made (replay_new), at the first
 * arrival. kf_bytes: the keyframe budget per lane (0: DASH_KEYFRAME_BYTES). Returns 0, or
 * VF_EINPUT (a fault of sc names no node) with e filled; *out is NULL then. */
int dash_new(const struct scenario *sc, const struct policy_ops *ops, uint64_t seed,
	     size_t kf_bytes, struct dash **out, struct err *e);
/* Free d; d may be NULL. */
void dash_free(struct dash *d);

/* Lanes in use (1, and one more per what-if: at most DASH_LANES). */
int dash_nlanes(const struct dash *d);
/* Lane l's sim (read-only) and its prepared trace. */
const struct sim *dash_sim(const struct dash *d, int l);
const struct replay_trace *dash_trace(const struct dash *d, int l);
/* What lane l changed ("policy ragp7", "fault n3:sto=0.5@7200+6h", "io-pressure 2"), or
 * NULL for the main lane; the trace second it was forked at (-1: from the start). */
const char *dash_change(const struct dash *d, int l);
int64_t dash_fork_time(const struct dash *d, int l);

/* The view's trace second; the first and last arrival. */
int64_t dash_time(const struct dash *d);
int64_t dash_t0(const struct dash *d);
int64_t dash_tend(const struct dash *d);
/* 1 when every lane's run is over. */
int dash_over(const struct dash *d);

/* A move that may take long (dash_goto, dash_fork_io, dash_compare: a replay to a point)
 * calls the progress hook every 50 ms or so with the share done, in [0, 1], and the wall
 * seconds so far; the hook returns nonzero to cancel the move. */
typedef int (*dash_progress_fn)(void *u, double done, double elapsed);
/* Returned by a move the hook cancelled. */
#define DASH_CANCELLED (-1)
/* Set the hook (fn NULL: none, the default; moves are not cancellable then). */
void dash_set_progress(struct dash *d, dash_progress_fn fn, void *u);

/* Move the view to trace second t: every lane handles its events at or before t, going
 * back through a keyframe when t is before the view. Returns 0, or DASH_CANCELLED when the
 * progress hook cancelled it: every lane and the view are then as they were (a copy of
 * each lane's sim is taken first while a hook is set). */
int dash_goto(struct dash *d, int64_t t);
/* Handle the main lane's next event (counted in sim_counters' events: a time-series
 * sample is stepped past), and the what-if's events up to its time. Returns 0 when the run
 * is over. */
int dash_step(struct dash *d);
/* Move the view forward by dt seconds (playback), handling at most max_events events of
 * all lanes (0: no limit), so a frame stays short at any speed; the view stops at the
 * last event handled when the limit is met (no lane is past it; a what-if may be a little
 * behind it, and catches up next time). Returns events handled. */
int64_t dash_advance(struct dash *d, double dt, int64_t max_events);
/* The same, stopping as well when the monotonic clock (util_mono) passes deadline (0:
 * none): playback keeps its frame rate whatever an event costs. The what-ifs follow the
 * main lane event by event, so each costs the frame its share. */
int64_t dash_advance_until(struct dash *d, double dt, int64_t max_events, double deadline);
/* Parse a time of the view: "3d12h", "90m", "3600" (trace seconds from the first
 * arrival), or "50%" (of the span to the last arrival). 0, or -1 if s is not one. */
int dash_parse_time(const struct dash *d, const char *s, int64_t *t);

/* The wall seconds lane l would take to replay the whole window, estimated from a trial
 * of its next events on a copy (at most 256 events or budget_s seconds): to say when a
 * policy chosen is slow on this store (ragp7's exact search on a trace whose requests do
 * not repeat). Its events are taken as two per job. A floor rather than a forecast: a
 * policy's cost per event grows as the cluster fills. -1 when the lane has no event left. */
double dash_cost(const struct dash *d, int l, double budget_s);

/* Keyframes of lane l now, and the bytes they take. */
size_t dash_keyframes(const struct dash *d, int l, size_t *bytes);

/* What-if: a new lane (the last) forked from the main one now, under ops (or NULL: the
 * same policy) with fault (or NULL) added. Returns 0 or VF_EINPUT (the fault names no
 * node, or DASH_LANES lanes are in use already: nothing changes then). */
/* The same with more changes (ch, or NULL: none): the dims every policy sees, the RAGP
 * weights, the queue discipline (sim_fork_with). */
int dash_fork_with(struct dash *d, const struct policy_ops *ops, const struct fault *fault,
		   const struct sim_change *ch, struct err *e);
int dash_fork(struct dash *d, const struct policy_ops *ops, const struct fault *fault,
	      struct err *e);
/* The same with n faults at once (a RAID rebuild on three nodes). */
int dash_fork_faults(struct dash *d, const struct fault *faults, size_t n, struct err *e);
/* What-if at another io-pressure: demand is re-enriched, so the new lane is a fresh
 * trace prepared at io_pressure x, replayed from the start to the view's time (not a fork
 * of the main lane's state, which holds the old demands). Returns 0 or VF_EINPUT. */
int dash_fork_io(struct dash *d, double x, struct err *e);
/* A new lane under policy ops from the beginning (--compare), the view unmoved.
 * dash_fork_io and dash_compare return DASH_CANCELLED, with no what-if, when the progress
 * hook cancels the replay to the view. */
int dash_compare(struct dash *d, const struct policy_ops *ops, struct err *e);
/* Drop what-if l (1..lanes-1): the lanes after it move down one. */
void dash_drop_lane(struct dash *d, int l);
/* Drop every what-if. */
void dash_drop(struct dash *d);
/* Whether lane l was stored as a run (set by the caller that stored it): a what-if not
 * stored is lost on quitting. */
int dash_stored(const struct dash *d, int l);
void dash_set_stored(struct dash *d, int l);
/* Lane l run to the end on a copy (the view unmoved), as a replay_result to store
 * (runrec_store; release it with replay_result_release). */
void dash_result(const struct dash *d, int l, struct replay_result *r);
/* The scenario of lane l into *out: a shallow copy of the dashboard's, with the what-if's
 * io-pressure, and its fault added to the faults (a new array in *faults, which the caller
 * frees; NULL when there is none). For runrec_store; never scenario_release it. */
void dash_lane_scenario(const struct dash *d, int l, struct scenario *out, struct fault **faults);

/* The panels. */
/* The ticker of lane l. */
void dash_ticker(const struct dash *d, int l, struct dash_ticker *t);
/* Node n of lane l. */
void dash_node(const struct dash *d, int l, size_t n, struct dash_node *out);
/* The nodes order[0..n) of lane l as one row (n >= 1). */
void dash_group(const struct dash *d, int l, const int32_t *order, size_t n, struct dash_node *out);
/* A node's detail (Enter) in lane l. */
#define DASH_DETAIL_FAULTS 4
struct dash_detail {
	char name[64];
	int model; /* gpumodel id, -1 for a CPU node */
	int ngpu;
	int64_t cap[DIM_N];  /* capacity now (a fault lowers it) */
	int64_t spec[DIM_N]; /* capacity of its spec */
	int64_t used[DIM_N]; /* demand placed; a shared dim (net, sto, iocpu) may exceed its
			      * capacity: contended, its jobs slowed */
	double gpu_used[CLUSTER_MAX_GPUS]; /* each GPU's used share, [0, 1], by index */
	uint8_t cell[CLUSTER_MAX_GPUS];    /* each GPU's enum dash_cell */
	int njobs;
	int jobs_by_class[JOB_NCLASS];
	int slowed;        /* its jobs running at rate < 1 */
	double frag;       /* its FGD fragmentation F_n, in GPUs */
	double frag_share; /* of the cluster's, [0, 1] (0 when the cluster's is 0) */
	int faults;        /* faults active on it */
	int nfault;        /* faults of the run on it (active or not), the first DASH_DETAIL_FAULTS
			    * of them in fault[] ("n3:sto=0.5@7200+6h (active)") */
	char fault[DASH_DETAIL_FAULTS][160];
};
void dash_detail(const struct dash *d, int l, size_t n, struct dash_detail *out);
/* Job i (< njobs) running on node n of lane l. */
void dash_detail_job(const struct dash *d, int l, size_t n, int i, struct sim_job_result *r);
/* v of dim k (job.h's units) in a unit a reader takes in: "32 cores", "256 GiB", "2.5 GPU",
 * "2000 MB/s". */
void dash_dim_text(enum dim k, double v, char *buf, size_t len);

/* The RAID-rebuild story (voidfit dash --story raid): the three GPU nodes whose storage is
 * the most used now lose it to a rebuild, DASH_RAID_FRACTION of their bandwidth left for
 * DASH_RAID_SECONDS from now, as a what-if of the main lane; their names, comma-separated
 * (a filter of dash_order), into names. Returns 0 or VF_EINPUT (no GPU node has storage
 * bandwidth, or the lanes are full). */
#define DASH_RAID_NODES    3
#define DASH_RAID_FRACTION 0.2
#define DASH_RAID_SECONDS  (6 * 3600)
int dash_story_raid(struct dash *d, char *names, size_t len, struct err *e);

/* The n GPU nodes (or fewer) of lane l whose dim k is the most used now, as a share of its
 * capacity, into out, the busiest first; returns how many. */
size_t dash_busiest(const struct dash *d, int l, enum dim k, size_t n, int32_t *out);

/* The nodes of lane l that match filter (NULL or "": all; else a node name or model
 * containing it, or any of a list "n1,n7,n9", or "faulted", "stranded", "full"), by GPU model then
 * sort, into out (room for every node); returns how many. */
size_t dash_order(const struct dash *d, int l, const char *filter, enum dash_sort sort,
		  int32_t *out);
/* The cluster panel's rows: lane 0's nodes that match filter, in sort's order
 * (dash_order), in ranges of at most per nodes of one GPU model (per <= 0: the fewest a row
 * that make them fit rows). Reuses r's arrays; start[i] is row i's first index in order,
 * start[nrows] == norder. Release with dash_rows_release. */
struct dash_rows {
	int32_t *order;
	size_t norder, ordercap;
	size_t *start;
	size_t nrows, startcap;
};
void dash_rows(const struct dash *d, const char *filter, enum dash_sort sort, int per, int rows,
	       struct dash_rows *r);
void dash_rows_release(struct dash_rows *r);
/* Row i's name ("n7", or "n0010..n0014" for a range) into buf; returns its GPU model: an
 * id, -1 for CPU nodes, -2 for a mix. */
int dash_row_name(const struct dash *d, const struct dash_rows *r, size_t i, char *buf, size_t len);
/* Node n's name; lane l's policy; lane l's events so far. */
const char *dash_node_name(const struct dash *d, size_t n);
const char *dash_policy(const struct dash *d, int l);
int64_t dash_events(const struct dash *d, int l);

/* A ':' command line (dash_command): the forks that are quick run there; what takes long
 * (goto, io, compare: the caller runs them with its progress line) or is the screen's
 * (drop, store, quit) comes back with its argument. */
enum dash_cmd {
	DASH_CMD_NONE,    /* an empty line */
	DASH_CMD_FORKED,  /* policy P, fault NODE DIM=F DUR, dims, lambda, mu, queue: done */
	DASH_CMD_GOTO,    /* goto T: t */
	DASH_CMD_IO,      /* io X: x */
	DASH_CMD_COMPARE, /* compare P: ops */
	DASH_CMD_DROP,
	DASH_CMD_STORE,
	DASH_CMD_QUIT,
	DASH_CMD_ERROR /* e says what is wrong */
};
struct dash_cmd_arg {
	int64_t t;
	double x;
	const struct policy_ops *ops;
};
enum dash_cmd dash_command(struct dash *d, const char *line, struct dash_cmd_arg *a, struct err *e);
/* A what-if: a fault on node from now, spec "DIM=FRACTION DURATION" ("sto=0.5 6h") or "down
 * DURATION" (the node fails: its jobs are killed and queue again). 0, or VF_EINPUT with e
 * filled. */
int dash_fork_node_fault(struct dash *d, const char *node, const char *spec, struct err *e);

/* The fragmentation sparkline of lane l: out[i] for the i-th of DASH_SPARK_N slices of the
 * window (-1: not reached yet); returns the slices reached. */
size_t dash_spark(const struct dash *d, int l, double *out);
/* The event log of lane l: the i-th newest event (i < n) into *ev; returns 0 past the
 * end. */
int dash_log(const struct dash *d, int l, size_t i, struct dash_event *ev);
/* One line of text for ev of lane l ("3d04:12 place job 123 on n7 (2 GPU)"). */
void dash_event_text(const struct dash *d, int l, const struct dash_event *ev, char *buf,
		     size_t len);
/* Trace second t as "3d04:12:09" (from the first arrival). */
void dash_time_text(const struct dash *d, int64_t t, char *buf, size_t len);

#endif
