/*
 * sim.h — the discrete-event replay engine (DESIGN.md section 5).
 *
 * A struct sim replays the jobs of a job set on its nodes under one placement policy, in
 * one of two modes:
 *   SIM_TIMED    jobs arrive at their trace time, queue if nothing fits (fifo, backfill or
 *                priority classes with optional preemption), run for their trace duration
 *                stretched by contention on shared dims, and leave;
 *   SIM_INFLATE  jobs drawn with replacement from the whole trace (never-ran jobs included,
 *                as the FGD paper does), one a second, no departures and no queue, until
 *                the requested GPU reaches target x capacity; a job that does not fit when
 *                it arrives fails (counted, not queued).
 * The clock is an integer (seconds). Events at equal times go by (time, priority, sequence);
 * the one PRNG lives in the sim, so the same job set, options and seed give the same run.
 *
 * The sim includes neither sqlite3 nor curses: its input is a job set in memory (not owned,
 * read-only, shared by forks: a fork needs random access to the same jobs, which a one-pass
 * iterator cannot give; only the next arrival is ever in the event queue), its output goes
 * through observer hooks, counters, per-job results and snapshots. It can be stepped, run
 * to a time, and forked (what-if).
 * Every function that can fail on input returns 0 or VF_EINPUT with e filled; misuse asserts.
 */
#ifndef VOIDFIT_SIM_H
#define VOIDFIT_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "cluster.h"
#include "fault.h"
#include "gpumodel.h"
#include "job.h"
#include "policy.h"
#include "util.h"

struct sim;

enum sim_mode { SIM_TIMED, SIM_INFLATE };
/* How placements are scored: the policies' formulas, or as kube-scheduler plugins (k8s.h). */
enum sim_scoring { SIM_SCORING_EXACT, SIM_SCORING_K8S };
/* Whom k8s scoring's ties go to: the first node name; the first in a seeded random order of
 * the names (the FGD artifact's simulator, which renames its nodes so); a seeded random one. */
enum sim_tie { SIM_TIE_NAME, SIM_TIE_SHUFFLED, SIM_TIE_RANDOM };
/* Queue disciplines of timed replay. */
enum sim_queue {
	SIM_FIFO,     /* strict arrival order: nothing passes a job that waits */
	SIM_BACKFILL, /* arrival order, but any waiting job that fits now starts */
	SIM_PRIORITY, /* by class (infer, train, batch, cpu), then arrival; backfills */
	SIM_EASY,     /* arrival order; the first job that cannot start gets a reservation at
		       * the earliest time enough room frees up (running jobs' expected ends:
		       * duration x runtime_over), and a later job starts only if it fits now
		       * and does not delay that reservation (EASY backfill, Slurm's default) */
};

struct sim_opts {
	enum sim_mode mode;   /* SIM_TIMED (default) */
	enum sim_queue queue; /* SIM_FIFO (default) */
	int preempt;          /* SIM_PRIORITY: a waiting job may evict lower classes (0) */
	uint64_t seed;        /* the PRNG seed (1) */
	double target;        /* SIM_INFLATE: stop at requested GPU = target x capacity (1.3) */
	uint32_t dims;        /* DIM_BIT()s the policy sees; 0 = the policy's own (0) */
	/* I/O admission: -1 the policy's own (its admit), 1 on every shared dim it sees, 0
	 * off (-1). Under admission a job is placed only where each such dim it uses keeps
	 * used + demand <= capacity (a job wanting more than a whole node's capacity: where
	 * nothing else uses the dim, and the capacity is not 0); otherwise it waits (timed) or
	 * fails (inflation). */
	int io_admission;
	double param[POLICY_NPARAM]; /* policy parameters (policy_param_init) */
	int contention;              /* 1: shared dims slow jobs down (1) */
	int series_points;           /* SIM_TIMED: samples over the arrival span (200; 0 = none) */
	/* Score at most this many feasible nodes per placement, met in a seeded random order
	 * (0 = every node, the default); policies with pick() (first-fit, random) ignore it */
	uint32_t sample_nodes;
	/* SIM_SCORING_K8S: each policy as a kube-scheduler score plugin (k8s.h), the highest
	 * weighted sum wins; ties as k8s_tie says (SIM_TIE_NAME: the first name). k8s_weights
	 * "NAME=W,...": plugins added to the policy's own (weight 1 unless named), or NULL. */
	enum sim_scoring scoring;
	enum sim_tie k8s_tie;
	const char *k8s_weights;
	const struct fault *faults; /* faults of the run (copied by sim_new) */
	size_t nfaults;
	/* SIM_TIMED, node failures and checkpoints (sim.c's top says how they are counted):
	 * node_mtbf > 0: each node fails after an exponential time of mean node_mtbf seconds
	 * (drawn from a stream of its own, seeded by seed) and is down for node_repair seconds
	 * (> 0 when node_mtbf is); 0: no random failures (0). ckpt_every > 0: a job saves its
	 * work every ckpt_every seconds of work, and a killed job resumes from its last save; 0:
	 * it starts again from scratch (0). ckpt_cost: seconds each save pauses the job, taken
	 * as a rate of ckpt_every / (ckpt_every + ckpt_cost) (0). */
	double node_mtbf, node_repair;
	double ckpt_every, ckpt_cost;
	/* SIM_TIMED: the pricing window [win_start, win_end) in trace seconds; -1: the trace's
	 * span, first to last arrival (first arrival + the longest duration when all jobs
	 * arrive at once), the same for every policy of a job set */
	int64_t win_start, win_end;
	/* Gangs (W > 1 workers, job.h): 1: one worker per node; 0 (default): packed, workers
	 * may share a node when they fit */
	int gang_spread;
	/* SIM_EASY: a running job's expected end is its start + duration x runtime_over (1) */
	double runtime_over;
	/* SIM_TIMED: a gang whose workers are on nodes of more than one rack (struct node's
	 * rack) runs at rate 1 / xswitch, the rest of its GPU time stalled (1: no slower) */
	double xswitch;
};
/* The defaults shown above. */
void sim_opts_init(struct sim_opts *o);
/* "fifo", "backfill", "priority", "easy" -> *q; 0, or -1 if s names none. */
int sim_queue_parse(const char *s, enum sim_queue *q);
const char *sim_queue_name(enum sim_queue q);
const char *sim_mode_name(enum sim_mode m);

/* A job's life (see the diagram at the top of sim.c). */
enum sim_job_state {
	SIM_JOB_PENDING,     /* not arrived yet */
	SIM_JOB_QUEUED,      /* arrived, waiting for room */
	SIM_JOB_RUNNING,     /* placed; progressing at its rate (stalled when rate < 1) */
	SIM_JOB_FINISHED,    /* ran to the end of its work */
	SIM_JOB_UNPLACEABLE, /* can never run here (why says so), or failed in inflation */
	SIM_JOB_SKIPPED,     /* the trace says it never ran (JOB_F_NOTRAN): not replayed */
};
/* Why a job is unplaceable. */
enum sim_why {
	SIM_WHY_NONE,
	SIM_WHY_MODEL,   /* no node has an allowed GPU model with enough GPUs */
	SIM_WHY_TOO_BIG, /* no node could hold it even empty (why_dim says on which dim) */
	SIM_WHY_NO_ROOM, /* inflation: it did not fit when it arrived */
	SIM_WHY_GANG,    /* a gang: each worker fits a node, but no set of the cluster's
			  * nodes (of one GPU model) holds all W of them, even empty */
};
const char *sim_job_state_name(enum sim_job_state st);
/* "gpu model", "too big", "no room", "gang". */
const char *sim_why_name(enum sim_why w);

/* What one job (one sampled instance in inflation) did. Times in seconds. */
struct sim_job_result {
	int64_t job_id;       /* the trace job's id */
	int32_t src;          /* index of the job in the job set */
	uint8_t state;        /* enum sim_job_state */
	uint8_t why;          /* enum sim_why, when unplaceable */
	int8_t why_dim;       /* the dim that is too big (SIM_WHY_TOO_BIG), else -1 */
	uint8_t cls;          /* enum job_class */
	int32_t node;         /* node of the current or last run, -1 if never placed */
	int32_t npreempt;     /* times it was preempted */
	int64_t submit;       /* arrival */
	int64_t start, end;   /* of the last run; -1 when not started / not ended */
	int64_t t_alone;      /* trace duration (work to do) */
	double work_left;     /* seconds of work left (running; 0 when finished, and always
			       * in inflation, which has no durations) */
	double rate;          /* progress rate now (running), in [0, 1] */
	double slowdown;      /* finished: (end - start) / t_alone; else 0 */
	int64_t gpu_milli;    /* GPU-milli it holds while running (all its workers) */
	int32_t workers;      /* W: its workers (1 but for a gang) */
	uint32_t gpus;        /* running: the GPUs of its node it holds (bit i: GPU i) */
	double stalled_gpu_s; /* GPU-seconds stalled: g (T_actual - T_alone) / 1000, so far */
	double lost_gpu_s;    /* GPU-seconds of runs undone by preemption */
	int32_t nkilled;      /* times a node failure killed it */
	double fail_gpu_s;    /* GPU-seconds of work those kills lost */
	double saved;         /* seconds of work saved at its last checkpoint */
};

/* One time-series sample (timed: at a fixed cadence; inflation: at each percent of load). */
struct sim_sample {
	int64_t t;              /* clock */
	double load;            /* inflation: requested GPU so far / GPU capacity; timed: 0 */
	double alloc_share;     /* allocated GPU / GPU capacity */
	double frag;            /* sum of F_n / GPU capacity (FGD fragmentation) */
	double frag_md;         /* multi-dimensional fragmentation over all 7 dims (whatever
				 * the policy sees, so runs compare), mean over nodes */
	double stall_share;     /* GPU-milli stalled now / GPU capacity */
	double stranded[DIM_N]; /* stranded capacity of each dim / its capacity */
	int64_t queued, running, finished, failed;
	/* the whole-node measure: GPU nodes with nothing on them, and the workers of the
	 * waiting gangs (the whole nodes they need, spread) */
	int64_t whole_free, whole_want;
};

/* Observer hooks; any may be NULL. They see the sim read-only, at the time of the event. */
struct sim_observer {
	void *u; /* passed back to every hook */
	/* p: its W placements (sim_job_result's workers), one a worker of a gang */
	void (*on_place)(void *u, const struct sim *s, int64_t t, int32_t job,
			 const struct placement *p);
	void (*on_finish)(void *u, const struct sim *s, int64_t t, int32_t job);
	/* job was evicted so that by could run; by -1: killed by its node's failure. */
	void (*on_preempt)(void *u, const struct sim *s, int64_t t, int32_t job, int32_t by);
	void (*on_unplaceable)(void *u, const struct sim *s, int64_t t, int32_t job);
	/* fault number fault of sim_faults() begins (begin = 1) or ends (0). */
	void (*on_fault)(void *u, const struct sim *s, int64_t t, size_t fault, int begin);
	void (*on_sample)(void *u, const struct sim *s, const struct sim_sample *smp);
};

/*
 * Where provisioned GPU time goes, over the pricing window (DESIGN.md section 7). The
 * allocated buckets are per class of the job holding the GPU; the idle ones per class of the
 * waiting GPU job that decides the cause (the first in the order the queue tries them), and
 * SIM_CLS_NONE for idle-unneeded. A GPU job waits for a free GPU of model m because:
 *   SHAPE  enough GPUs of allowed models are free in total, but no node has them in the
 *          shape it needs (fragmentation);
 *   DIM    a node has the GPUs, but another of its hard dims (cpu, mem) is short;
 *   MODEL  m is not a model the job allows;
 *   QUEUE  it (or, under fifo, one of the next waiting GPU jobs) fits now, and the queue
 *          discipline holds it back;
 *   FULL   too few GPUs of allowed models are free for it: the cluster is full.
 * and two that only gangs and EASY backfill give (zero in other runs, so they come last):
 *   RESERVED  under SIM_EASY, a later waiting GPU job fits now but would delay the
 *          reservation of the job at the head: the GPUs are held for that reservation;
 *   GANG   the deciding job is a gang, enough GPUs of allowed models are free for all its
 *          workers, but no set of nodes holds them: the gang waits for nodes.
 */
enum sim_bucket {
	SIM_B_PRODUCTIVE, /* allocated, progressing at full rate */
	SIM_B_STALLED,    /* allocated, lost to rate < 1 (g (1 - r) dt) but checkpoints */
	SIM_B_LOST,       /* progress of runs undone by preemption (their stall stays stalled) */
	SIM_B_FAILED,     /* lost to node failures: progress since the last checkpoint of the
			   * runs they killed (their stall stays stalled) */
	SIM_B_CKPT,       /* allocated, paused for checkpoints (o.ckpt_cost) */
	SIM_B_DOWN,       /* the GPUs of down nodes (class SIM_CLS_NONE) */
	SIM_B_SHAPE,      /* idle-blocked: wrong shape */
	SIM_B_DIM,        /* idle-blocked: another dim short */
	SIM_B_MODEL,      /* idle-blocked: model not allowed */
	SIM_B_QUEUE,      /* idle-blocked: held back by the queue discipline */
	SIM_B_FULL,       /* idle-blocked: too few free GPUs for any waiting GPU job */
	SIM_B_UNNEEDED,   /* idle while no GPU job waits */
	SIM_B_RESERVED,   /* idle-blocked: held for an EASY reservation */
	SIM_B_GANG,       /* idle-blocked: a gang waits for a set of nodes */
	SIM_NBUCKET
};
#define SIM_B_IDLE0  SIM_B_SHAPE /* the first idle bucket */
#define SIM_CLS_NONE JOB_NCLASS  /* class of idle-unneeded and down time */
/* "productive", "stalled", "lost", "blocked_shape", ..., "unneeded". */
const char *sim_bucket_name(enum sim_bucket b);

/* A run's GPU time by bucket, the one shape its cost has before it is priced
 * (metrics_cost): GPU-milli-seconds per GPU model, class (SIM_CLS_NONE: only SIM_B_UNNEEDED)
 * and bucket. Filled by sim_buckets, stored per run (runrec.h), read back by the report. */
struct sim_bucket_ms {
	int64_t ms[GPUMODEL_MAX][JOB_NCLASS + 1][SIM_NBUCKET];
};

/* Time integrals and counts, accumulated as events happen. GPU amounts in GPU-milli;
 * integrals in GPU-milli-seconds (or unit-seconds) over [t0, now]. Per model arrays are
 * indexed by gpumodel id. */
struct sim_counters {
	int64_t t0;     /* first event's time (first arrival) */
	int64_t now;    /* the clock */
	int64_t events; /* events handled (stale ones not counted) */
	int64_t arrived, placed, finished, unplaceable, skipped, preemptions, failed;
	int64_t node_failures;          /* nodes that went down (faults' and drawn failures) */
	int64_t killed;                 /* runs killed by a node going down */
	int64_t gpu_cap[GPUMODEL_MAX];  /* GPU-milli of each model in the cluster */
	int64_t alloc_ms[GPUMODEL_MAX]; /* integral of allocated GPU-milli */
	int64_t prod_ms[GPUMODEL_MAX];  /* productive GPU-milli-s of finished / ended runs */
	int64_t lost_ms[GPUMODEL_MAX];  /* GPU-milli-s of preempted runs */
	int64_t fail_ms[GPUMODEL_MAX];  /* GPU-milli-s of work killed runs lost (since their
					 * last checkpoint) */
	int64_t down_ms[GPUMODEL_MAX];  /* integral of the GPU-milli of down nodes */
	double frag_ms[GPUMODEL_MAX];   /* integral of sum F_n */
	double frag_md_s;               /* integral of the multi-dim fragmentation */
	double stall_ms;                /* integral of stalled GPU-milli (rate < 1) */
	double stranded_s[DIM_N];       /* integral of stranded capacity (dim units) */
	int64_t requested_gpu;          /* inflation: GPU-milli requested by arrivals */
	int64_t alloc_cls[GPUMODEL_MAX][JOB_NCLASS]; /* GPU-milli allocated now, by job class */
	int64_t scored; /* nodes whose choices the placement search scored (none with pick()) */
	/* The whole-node measure: integrals over [t0, now] of the GPU nodes with nothing on
	 * them, and of the workers of the waiting gangs (the whole nodes they need, spread) */
	double whole_free_s, whole_want_s;
	/* The pricing window (timed), and integrals over it per GPU model and class, in
	 * GPU-milli-seconds (sim_buckets turns them into the buckets): */
	int64_t w0, w1;
	int64_t win_alloc_ms[GPUMODEL_MAX][JOB_NCLASS]; /* allocated */
	double win_stall_ms[GPUMODEL_MAX][JOB_NCLASS];  /* stalled, unrounded */
	double win_ckpt_ms[GPUMODEL_MAX][JOB_NCLASS];   /* of it, checkpoints' pauses */
	int64_t win_lost_ms[GPUMODEL_MAX][JOB_NCLASS];  /* progress undone by preemption */
	int64_t win_fail_ms[GPUMODEL_MAX][JOB_NCLASS];  /* progress lost to node failures */
	int64_t win_down_ms[GPUMODEL_MAX];              /* GPUs of down nodes */
	/* idle, per class of the deciding job (SIM_CLS_NONE: unneeded), per idle bucket */
	int64_t win_idle_ms[GPUMODEL_MAX][JOB_NCLASS + 1][SIM_NBUCKET - SIM_B_IDLE0];
	/* At w1: the work still running or waiting (carried over past the window). */
	int64_t carry_jobs;  /* jobs running or waiting at w1 (-1 until the clock passes w1) */
	double carry_gpu_ms; /* their GPU work left, GPU-milli-seconds at full rate */
	/* Timed: jobs running or waiting when the run stopped because nothing could change
	 * any more (no arrival, completion or fault to come: they would run at rate 0 or wait
	 * for ever); 0 when it ended otherwise. They are in carry_jobs. */
	int64_t stuck;
};

/* The buckets of k's window: out->ms[m][c][b] in GPU-milli-seconds, for GPU model m, class c
 * (SIM_CLS_NONE: only SIM_B_UNNEEDED) and bucket b. Per model they sum to gpu_cap x (the part
 * of the window the clock has passed, all of it when over: a run that ended before the
 * window's end idles unneeded to it) exactly: stalled is the rounded integral, lost at most
 * what is left, productive the rest of the allocated time. */
void sim_buckets(const struct sim_counters *k, int over, struct sim_bucket_ms *out);

/*
 * A new simulation of js (not copied: js must outlive the sim and its forks) under ops.
 * wl is the target workload for fragmentation (fgd, ragp, metrics), built by the caller
 * with frag_workload_build (not owned, must outlive the sim); NULL: fragmentation is 0.
 * Every demand and capacity must be known (enrichment ran; asserted), except hbm = -1 which
 * means "the job's GPU share of the GPU's HBM". Fails (VF_EINPUT) on a fault whose target
 * names no node. *out is NULL on failure.
 */
int sim_new(const struct job_set *js, const struct policy_ops *ops, const struct frag_workload *wl,
	    const struct sim_opts *o, struct sim **out, struct err *e);
/* Free s; s may be NULL. */
void sim_free(struct sim *s);
/* Add an observer (at most SIM_MAX_OBSERVERS, asserted). Forks do not inherit observers. */
#define SIM_MAX_OBSERVERS 4
void sim_observe(struct sim *s, const struct sim_observer *obs);

/* Handle the next event. Returns 1 if one was handled, 0 when the run is over. */
int sim_step(struct sim *s);
/* Handle the next event if it is at time <= t (a completion that moved, whose old event
 * is still queued, does not count: sim_next_time may give that event's time). Returns 1 if
 * one was handled, else 0. */
int sim_step_until(struct sim *s, int64_t t);
/* Handle every event at time <= t, then move the clock to t (if later and not over).
 * Returns 1 if events remain, 0 when the run is over. */
int sim_run_until(struct sim *s, int64_t t);
/* Run to the end: every job finished, unplaceable, skipped, or (inflation) the target met;
 * or (timed) nothing can change any more: the clock moves to the window's end if it is not
 * past it, and the jobs still running or waiting are carried over (counters' stuck). */
void sim_run(struct sim *s);
/* 1 when no event is left. */
int sim_done(const struct sim *s);
/* The time of the next event, or -1 when none (it may be a stale completion's: see
 * sim_step_until). */
int64_t sim_next_time(const struct sim *s);

/* Copy of s that continues independently from s's current state: same clock, queue, running
 * jobs, counters and PRNG state. ops (or NULL: s's policy) places every job from now on;
 * fault (or NULL) is added (effective from now if it already began). Observers are not
 * copied. Fails like sim_new on a bad fault. */
int sim_fork(const struct sim *s, const struct policy_ops *ops, const struct fault *fault,
	     struct sim **out, struct err *e);
/* What else a fork may change, from its time on: the dims every policy sees (0: keep; the
 * placement search and I/O admission follow them), the policy parameters (NaN: keep), the queue
 * discipline (-1: keep; the waiting jobs are put in the new order, and preemption is on
 * only when preempt is 1 under SIM_PRIORITY, -1: keep). */
struct sim_change {
	uint32_t dims;
	double param[POLICY_NPARAM];
	int queue, preempt;
};
/* A change that changes nothing. */
void sim_change_init(struct sim_change *ch);
/* sim_fork with ch (NULL: none) applied to the copy. */
int sim_fork_with(const struct sim *s, const struct policy_ops *ops, const struct fault *fault,
		  const struct sim_change *ch, struct sim **out, struct err *e);

/* Read access. */
const struct sim_counters *sim_counters(const struct sim *s);
const struct cluster *sim_cluster(const struct sim *s);
const struct job_set *sim_jobs(const struct sim *s);
const struct policy_ops *sim_policy(const struct sim *s);
const struct sim_opts *sim_options(const struct sim *s); /* faults: the sim's copy */
/* The sim's faults: *n of them, and the first (NULL when none): read fault i with sim_fault,
 * never as returned[i] (they are not contiguous). */
const struct fault *sim_faults(const struct sim *s, size_t *n);
/* Fault i (< the count sim_faults gives). */
const struct fault *sim_fault(const struct sim *s, size_t i);
/* Jobs that fault i of sim_faults() touched so far: jobs with a demand on its dim that ran
 * on one of its nodes while it was active. */
int64_t sim_fault_jobs(const struct sim *s, size_t i);
/* The target workload the sim was made with (NULL: none). */
const struct frag_workload *sim_workload(const struct sim *s);
/* F_n of every node now (frag_node), c->n of them. */
const double *sim_node_frag(const struct sim *s);
/* Number of job instances so far (timed: the job set's jobs; inflation: jobs drawn). */
size_t sim_njobs(const struct sim *s);
/* Result of job instance i (< sim_njobs) now. */
void sim_job_result(const struct sim *s, size_t i, struct sim_job_result *r);
/* Number of the job instances so far whose trace job has class cls (< JOB_NCLASS, the cls of
 * sim_job_result); the others of sim_njobs have a class past JOB_NCLASS. */
size_t sim_njobs_class(const struct sim *s, int cls);
/* A sample of the state now (what on_sample gets). */
void sim_sample_now(const struct sim *s, struct sim_sample *smp);

/* The cluster-wide state now, for a ticker drawn every frame: O(1) reads (no pass over
 * nodes, jobs or the queue), but for why free GPUs idle, which is decided (and kept for the
 * window's integrals, so nothing changes) once per event, from the first waiting GPU jobs.
 * GPU amounts in GPU-milli. */
struct sim_now {
	int64_t gpu_cap; /* GPU-milli in the cluster */
	int64_t alloc;   /* allocated */
	double stalled;  /* lost to rate < 1 now: sum over running jobs of g (1 - r) */
	double frag;     /* sum of F_n */
	double frag_md;  /* multi-dim fragmentation, mean over nodes */
	int idle_cause;  /* why free GPUs idle (an idle enum sim_bucket; SIM_B_UNNEEDED:
			  * no GPU job waits) */
	int64_t queued, running;
};
void sim_now(struct sim *s, struct sim_now *out);
/* Stranded capacity of every node now (c->n rows, in dim units; see node_stranded). */
const int64_t (*sim_node_stranded(const struct sim *s))[DIM_N];

/* A copy of the state now, for a dashboard or a test. Owns its arrays. */
struct sim_snapshot {
	int64_t now;
	size_t nnodes;
	int64_t (*free)[DIM_N]; /* per node: cap - used (negative on a contended shared dim) */
	int64_t (*cap)[DIM_N];  /* per node: capacity now (faults applied) */
	double *frag;           /* per node: F_n */
	size_t nqueued;
	int32_t *queue; /* job instances waiting, in the order they will be tried */
	size_t nrunning;
	int32_t *running; /* job instances running, by increasing index */
	struct sim_counters counters;
};
void sim_snapshot(const struct sim *s, struct sim_snapshot *out);
/* Free what snap owns; snap may be NULL. */
void sim_snapshot_release(struct sim_snapshot *snap);

#endif
