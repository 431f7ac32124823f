/*
 * sim.c — the discrete-event replay engine (sim.h).
 *
 * A job instance's life; the function behind each transition in brackets:
 *
 *   PENDING --arrive [on_arrive]--> QUEUED --fits [start_job]--> RUNNING
 *                                     ^  |                        |  ^ rate < 1: stalled,
 *                                     |  | never fits             |  | rate = 1 again
 *                                     |  v [never_fits]           |  | [node_refresh]
 *                                     | UNPLACEABLE               |--+
 *                                     |                           |
 *                                     +-- preempted [preempt] ----+
 *                                                                 | work done [on_finish]
 *                                                                 v
 *                                                              FINISHED
 *   A trace job that never ran (JOB_F_NOTRAN) goes PENDING -> SKIPPED in timed mode.
 *   Inflation: QUEUED is skipped: a drawn job either starts or fails (UNPLACEABLE, no room),
 *   and never finishes.
 *
 * Time and events: the clock is an integer second. Events are (time, prio, seq): finishes
 * first (they free room), then fault ends, fault starts, arrivals, samples. The queue of
 * waiting jobs is tried once the last event of a second is handled (schedule), so all
 * departures and arrivals of a second are seen together. Timed arrivals are not queued: the
 * next one is read from the job set (in arrival order) and comes before the queue's top when
 * (time, prio) says so; in inflation only the next draw is queued. So the queue stays as
 * small as the running set.
 *
 * Contention: on a node whose summed demand on a shared dim exceeds its capacity, every job
 * with a demand there runs at r = min over such dims of C / sum(d) (= a/d with a = d C/sum).
 * Work left is kept in seconds (double) with the time it was last brought up to date; when
 * a rate changes the work is brought up to date and the completion moves to
 * now + ceil(work / r) (1e-9 s slack for rounding) through a new event: the job's version
 * stamp goes up, so the old event is recognised as stale and dropped. Rates change only at
 * events on that node (node_refresh), never by a sweep of the cluster.
 *
 * Placement search: a policy with pick() chooses itself. Otherwise every feasible node (from
 * cluster_next_fit, which skips nodes without enough free cpu, mem or GPU, or of a GPU model
 * the job does not allow, in O(log n)) and
 * each of its choices (cluster_choices) is scored; the lowest score wins, ties to the lowest
 * node, then its first choice. For a POLICY_F_BY_STATE policy only the lowest-indexed node
 * of each class of identical nodes is scored, and per job shape the classes' scores are
 * kept in an index, so a placement scores only the classes that changed (sim-class.h); the
 * choice is the same as the full loop's (tests check it against the full loop). A policy
 * with a bound() (fgd, ragp) has classes entered in its index by their cheap lower bound and
 * scored only when one comes to the top, so classes that cannot beat the best are never
 * scored. The sim keeps per node F_n, the multi-dim measure over all dims, the share of the
 * target workload that no longer fits, the share whose F_n(m) is all free GPU, and which
 * shapes fit (policy_ctx node_frag, node_md, node_nofit, node_fnofit, node_fits): the
 * bounds' cheap per-node data, and the policy's own record of each node (policy_ops.prep:
 * ragp's), refreshed with them. A policy with its own target workload
 * (policy_ops.target_coverage: fgd-pack) gets F_n and the all-free share over that one
 * instead (own_target), while the run's metrics stay over the scenario's. With
 * o.sample_nodes, a search scores only the first nodes where the job fits on a seeded random
 * walk over the nodes (find_sampled), node by node, in bound order when there is a bound.
 *
 * The waiting queue: a full pass (after room was freed) walks it in order, but a job whose
 * fit shape already failed in the pass is not searched again, and under fifo the pass stops
 * at the blocked head. Without freed room only the newly arrived jobs are tried
 * (schedule_fresh), with preemption too; a preemption there resumes a full pass.
 *
 * Decisions:
 *   - fifo: the queue head must start before anything behind it; backfill: every waiting
 *     job is tried in arrival order and starts if it fits (no reservation for the head);
 *     priority: tried by class (infer, train, batch, cpu), then arrival, backfilling.
 *   - preemption (priority only, optional): a waiting job that fits nowhere evicts, on the
 *     lowest-indexed node where evicting all lower-class jobs would let it fit, the lower
 *     classes lowest class first, latest start first, until it fits. The evicted jobs go
 *     back to the queue and restart from scratch: their GPU time so far is lost (counted in
 *     lost_ms, and in the stalled bucket). A pass that evicts is followed by another in the
 *     same second until one evicts nothing (maybe_schedule).
 *   - a job is unplaceable when it fits no node of the cluster even empty (checked once,
 *     the first time it cannot start); it leaves the queue, so it never blocks fifo.
 *   - trace jobs that never ran (JOB_F_NOTRAN or duration < 0) are skipped in timed mode
 *     (counted), but are part of the inflation pool: the FGD paper samples from all pods,
 *     and they are demand the cluster had to face.
 *   - faults lower a shared dim's capacity only (fault.h); the capacity is
 *     floor(spec x lowest active fraction).
 *   - the time series is sampled every (last arrival - first arrival) / series_points
 *     seconds in timed mode, and at each whole percent of arrived load in inflation.
 *
 * Ending: a timed run ends when every job has finished, is unplaceable or skipped; or when
 * nothing can change any more (stuck): no arrival is left, no fault starts or ends, and no
 * running job has a completion to come. A job never goes where its node's spec lacks a
 * shared dim it uses (cluster_choices), but a fault to 0 that outlasts the run leaves it at
 * rate 0, and a rate tiny enough puts its end past the horizon t_max (t0 + INT64_MAX / 4 /
 * the cluster's GPU-milli: far past any trace, near enough that no time wraps and no GPU-ms
 * integral leaves an int64); such a job has no completion queued (SJ_NOEND, push_finish).
 * A stuck run moves the clock to the window's end (nothing changes until then) and carries
 * what runs or waits over (end_stuck, counted in k.stuck); it no longer samples on for ever.
 * The window ends at t_max at the latest. Inflation draws until its target (inflate_check
 * refuses a trace whose jobs ask for no GPU, or that would need more than SIM_MAX_DRAWS).
 *
 * Memory: O(jobs + nodes + faults) for a run, bounded whatever it simulates: one sjob (32
 * bytes) and, once slowed or preempted, a run slot and a preemption record per instance
 * (inflation: at most SIM_MAX_DRAWS instances, 40 bytes each with their draw); the event
 * queue holds at most 2 x (running + 2 + 2 x faults) + 1024 events (stale completions are
 * purged past that, sim_step); the waiting queue and the fit shapes at most one entry per
 * instance; the time series 2 x series_points samples per doubling of the cadence, so at
 * most 2 x series_points x 62 however long the run (test_series_bounded_in_a_long_run).
 *
 * Invariants: every RUNNING instance is in its node's job list and holds its placement; the
 * cluster's hard dims are never overcommitted (cluster.c asserts); counters' integrals run
 * over [t0, now]; node_frag[n] is frag_node() of node n's current state.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "evq.h"
#include "frag.h"
#include "k8s.h"
#include "sim-class.h"
#include "sim.h"

enum { EV_FINISH, EV_FAULT_END, EV_FAULT_START, EV_ARRIVE, EV_SAMPLE };

/* The horizon (struct sim's t_max): t0 + SIM_SPAN_MAX / the cluster's GPU-milli, at most
 * SIM_T_MAX. Far past any trace's end, and near enough that a time plus an interval never
 * wraps and no GPU-milli-second integral (the cluster's GPU-milli x the span at most) leaves
 * an int64. */
#define SIM_T_MAX    (INT64_MAX / 4)
#define SIM_SPAN_MAX (INT64_MAX / 4)
/* Inflation draws at most this many jobs (40 bytes each: 1.3 GB): sim_new refuses a target
 * that would take more on average, and a run stops drawing there. A 100,000-node cluster of
 * 8-GPU nodes at 1.3 takes about 1.5 M draws of jobs of 0.7 GPU on average. */
#define SIM_MAX_DRAWS ((size_t)1 << 25)

/* A fit shape in the hash of shapes: what decides whether a job fits anywhere (its hard
 * dims and GPU shape), kept in the entry, so a lookup reads no job record (a cache miss
 * each, on a large run); id numbers the shapes in order of first appearance. */
struct fitkey {
	int64_t cpu, mem, hbm;
	int64_t io[3]; /* net, sto, iocpu demand on the dims under I/O admission, else 0 */
	int32_t num_gpu, gpu_milli;
	uint32_t gpu_spec;
	int32_t id;
};

/* One job instance (timed: one per trace job; inflation: one per draw). 32 bytes, two to a
 * cache line of the 2 MiB-aligned array of a large run (a million of them take 32 MB of
 * fresh memory). A running job's progress is implied (its duration of work at rate 1
 * since its start) until contention changes its rate; then it is kept in a slot of struct
 * sim's runs. The arrival and the preemptions are in struct sim's isubmit and pre, where
 * most runs need no array. */
struct sjob {
	int32_t src;    /* index in the job set */
	uint8_t state;  /* enum sim_job_state */
	uint8_t why;    /* enum sim_why */
	int8_t why_dim; /* too-big dim, or -1 */
	uint8_t flags;  /* SJ_* */
	uint32_t ver;   /* bumped whenever a pushed finish event becomes stale */
	int32_t node;   /* node of the current or last run, -1 */
	int64_t start;  /* start of the current or last run, -1 */
	union {
		int64_t end; /* FINISHED: end of the run (sim_job_result gives -1 otherwise) */
		struct {
			int32_t run;   /* RUNNING: its slot in struct sim's runs */
			uint32_t gpus; /* RUNNING: the GPUs it holds on its node */
		};
	};
};

enum {
	SJ_CHECKED = 1, /* never_fits() has been asked */
	SJ_SLOWED = 2,  /* RUNNING: its rate changed in this run, so it has a slot in runs
			 * (else its rate is 1 since its start: run_now) */
	SJ_NOEND = 4,   /* RUNNING: no completion is queued (rate 0, or its end is past
			 * t_max): counted in struct sim's nnoend */
};
static_assert(sizeof(struct sjob) <= 32, "two instances to a cache line");

/* A running instance's progress: a slot of struct sim's runs, taken when its rate first
 * changes (set_rate) and given back when it stops. */
struct srun {
	int64_t t_upd; /* time work was last brought up to date */
	double work;   /* seconds of work left at t_upd */
	double rate;   /* progress rate now */
};

/* An instance's preemptions (struct sim's pre). */
struct spre {
	int64_t lost_ms; /* GPU-milli-s of runs undone by preemption */
	int32_t n;       /* times preempted */
};

/* A fault and the nodes it hits. */
struct sfault {
	struct fault f;
	int32_t *nodes; /* ascending */
	size_t nnodes;
	int active;
	int64_t jobs_hit; /* jobs with a demand on f.dim that ran on its nodes while active */
};

/* A policy's own target workload (policy_ops.target_coverage) and what the policy context
 * holds per node over it: F_n and the all-free share (not the shapes that fit, which only
 * POLICY_F_NODE_MD policies read). The run's fragmentation metrics stay over the
 * scenario's workload (nfrag and the rest). */
struct own_target {
	struct frag_workload wl;
	double *frag, *fnofit;
};

static void own_refresh(struct own_target *t, const struct cluster *c, size_t n)
{
	double md;
	t->frag[n] = frag_node_eval(c, n, &t->wl, 0, &md, NULL, &t->fnofit[n], NULL);
}

struct sim {
	const struct job_set *js;
	const struct policy_ops *ops;
	const struct frag_workload *wl;
	struct sim_opts o;
	struct policy_ctx ctx;
	struct rng rng;
	struct rng srng; /* the order nodes are sampled in (o.sample_nodes) */
	struct cluster c;
	struct node *reps; /* one node of each spec class (owned) */
	size_t nreps;
	struct cluster empty; /* reps, empty: "could it ever fit?" (never_fits) */
	struct evq q;
	struct sim_classes cls; /* classes of identical nodes, when use_cls */
	int use_cls;       /* POLICY_F_BY_STATE, no pick() (or k8s: never calls it), not sampled */
	uint32_t admit;    /* shared dims under I/O admission (ctx.admit) */
	int sampled;       /* o.sample_nodes is below the number of nodes: find_sampled */
	struct sjob *jobs; /* instances */
	size_t njobs, jobcap;
	/* Inflation: each instance's arrival (its draw), isubcap long; timed: NULL, an
	 * instance arrives at its trace job's arrival (on_arrive asserts it). */
	int64_t *isubmit;
	size_t isubcap;
	size_t ncls[JOB_NCLASS]; /* instances whose trace job has class i */
	struct srun *runs;       /* slots of the running instances, runcap long, nruns used */
	size_t nruns, runcap;
	/* The free slots of runs below nruns, a stack (not a list through the slots: taking
	 * one reads no cold slot) */
	int32_t *rfree;
	size_t nrfree, rfreecap;
	struct spre *pre; /* preemptions per instance, precap long (none past it); NULL until
			   * the first */
	size_t precap;
	/* The waiting instances in the order they are tried, and the fit shape of each: wait
	 * and wshape point at whead in wbuf and wsbuf (owned, waitcap long), so the jobs taken
	 * off the front of a long queue move whead, not the queue (wait_close). */
	int32_t *wait, *wshape;
	int32_t *wbuf, *wsbuf;
	size_t nwait, whead, waitcap;
	int32_t *jshape;     /* timed: fit shape of each instance, -1 until asked */
	struct fitkey *stab; /* hash of fit shapes (id -1: empty), stabcap long */
	size_t stabcap, nshapes;
	uint32_t *sfail; /* per shape id: the pass in which it failed */
	size_t sfailcap;
	uint32_t pass;    /* full schedule passes so far */
	int32_t *requeue; /* preempted during a schedule() pass, queued after it */
	size_t nrequeue, requeuecap;
	size_t next_arrival; /* timed: next job-set index to arrive */
	struct sfault *faults;
	size_t nfaults;
	uint16_t *nfault_on;    /* per node: active faults (NULL until a fault is added) */
	double *nfrag;          /* F_n per node */
	double *nmd;            /* multi-dim fragmentation per node */
	double *nnofit;         /* share of the target workload that fits no more, per node */
	double *nfnofit;        /* share of the workload whose F_n(m) is all free GPU, per node
				 * (frag_node_eval) */
	uint64_t (*nfits)[2];   /* shapes (< 64) of the target workload that fit, per node */
	uint64_t (*pfits)[2];   /* the same over the policy's dims, with pmd */
	double *pmd, *pnofit;   /* the same two over the policy's dims, when they are not all
				 * and it is POLICY_F_NODE_MD (else NULL) */
	struct own_target *own; /* the policy's own target workload (own_setup), or NULL */
	unsigned char *nprep;   /* per node, the policy's prep record (policy_ops.prep), or NULL */
	int64_t (*nstr)[DIM_N]; /* stranded capacity per node */
	uint8_t *contended;     /* node had a rate < 1 at its last refresh */
	double sum_frag[GPUMODEL_MAX];
	double sum_md;
	int64_t sum_str[DIM_N];
	int64_t alloc_now[GPUMODEL_MAX];
	/* The GPU models of the nodes, ascending (node_model); the per-model sums of the
	 * others stay 0, so advance() does not integrate them. */
	int8_t models[GPUMODEL_MAX];
	int nmodels;
	double stall_now;                           /* sum over running jobs of g (1 - r) */
	double stall_cls[GPUMODEL_MAX][JOB_NCLASS]; /* stall_now split by model and class */
	/* Why free GPUs idle now (idle_cause, an idle enum sim_bucket), the class of the
	 * waiting GPU job that decides it and the models it allows (0: any); stale once an
	 * event may have changed it (classify_idle) */
	int idle_stale;
	uint8_t idle_cause, idle_cls;
	uint32_t idle_mask;
	int64_t nsamples;       /* timed samples emitted (the cadence doubles every 2 x points) */
	int64_t min_dem[DIM_N]; /* smallest demand of the target workload per hard dim */
	int64_t running, queued;
	int dirty;      /* something may start at the next schedule */
	int freed;      /* room was freed since the last full schedule pass */
	int32_t *fresh; /* arrived since the last schedule pass */
	size_t nfresh, freshcap;
	int over;
	int64_t t_max;     /* the horizon (sim_new): no event past it is queued */
	int64_t nnoend;    /* running instances with SJ_NOEND */
	int64_t nfault_ev; /* fault starts and ends queued */
	int64_t sample_iv; /* timed sampling cadence, 0 = none */
	int next_pct;      /* inflation: next percent of load to sample */
	/* o.sample_nodes: the nodes of one search, and the nodes met on its walk that may
	 * hold the job */
	struct cand *cand;
	int32_t *met;
	size_t candcap, metcap;
	struct sim_k8s *k8s; /* o.scoring SIM_SCORING_K8S: its plugins and scratch; else NULL */
	struct sim_counters k;
	struct sim_observer obs[SIM_MAX_OBSERVERS];
	int nobs;
};

void sim_opts_init(struct sim_opts *o)
{
	memset(o, 0, sizeof *o);
	o->mode = SIM_TIMED;
	o->queue = SIM_FIFO;
	o->seed = 1;
	o->target = 1.3;
	o->lambda = POLICY_LAMBDA;
	o->mu = POLICY_MU;
	o->contention = 1;
	o->series_points = 200;
	o->win_start = o->win_end = -1;
	o->io_admission = -1;
}

static const char *const queue_names[] = {"fifo", "backfill", "priority"};

int sim_queue_parse(const char *s, enum sim_queue *q)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(s, queue_names[i])) {
			*q = (enum sim_queue)i;
			return 0;
		}
	return -1;
}

const char *sim_queue_name(enum sim_queue q)
{
	return (unsigned)q < 3 ? queue_names[q] : "?";
}

const char *sim_mode_name(enum sim_mode m)
{
	return m == SIM_INFLATE ? "inflate" : "timed";
}

const char *sim_job_state_name(enum sim_job_state st)
{
	static const char *const n[] = {"pending",  "queued",      "running",
					"finished", "unplaceable", "skipped"};
	return (unsigned)st < 6 ? n[st] : "?";
}

const char *sim_why_name(enum sim_why w)
{
	static const char *const n[] = {"", "gpu model", "too big", "no room"};
	return (unsigned)w < 4 ? n[w] : "?";
}

/* ---- small helpers ---- */

static void job_assert_enriched(const struct job *j)
{
	for (int d = 0; d < DIM_N; d++)
		assert((j->dem[d] >= 0 || d == DIM_HBM) &&
		       "enrichment fills every demand before a replay");
	(void)j;
}

static const struct job *src_job(const struct sim *s, const struct sjob *sj)
{
	return &s->js->jobs[sj->src];
}

static int node_model(const struct sim *s, size_t n)
{
	int m = s->c.spec[n].model;
	assert(m < GPUMODEL_MAX);
	return m >= 0 && s->c.spec[n].ngpu > 0 ? m : -1;
}

static int64_t job_gpu(const struct job *j)
{
	return j->num_gpu > 0 ? (int64_t)j->num_gpu * j->gpu_milli : 0;
}

/* Rebuild j's placement on its node from the job and the GPUs it holds. */
/* The class j's GPU time counts under (classes past JOB_NCLASS count as batch). */
/* I/O admission: may j go on a node in state st, judging by the shared dims in admit? Each
 * such dim j uses must keep used + demand <= capacity; a demand above the whole capacity
 * counts as the capacity (the job may run where nothing else uses the dim), and a capacity
 * of 0 admits nothing. */
static int admits(uint32_t admit, const struct node_state *st, const struct job *j)
{
	for (int d = DIM_NET; admit && d < DIM_N; d++) {
		int64_t dem = j->dem[d];
		if (!(admit & DIM_BIT(d)) || dem <= 0)
			continue;
		int64_t cap = st->cap[d];
		if (cap <= 0 || st->used[d] + (dem < cap ? dem : cap) > cap)
			return 0;
	}
	return 1;
}

static int cls_of(const struct job *j)
{
	return j->cls < JOB_NCLASS ? j->cls : JOB_BATCH;
}

static void job_placement(const struct sim *s, const struct sjob *sj, struct placement *p)
{
	const struct job *j = src_job(s, sj);
	assert(sj->state == SIM_JOB_RUNNING);
	memset(p, 0, sizeof *p);
	p->node = sj->node;
	p->gpus = sj->gpus;
	p->milli = j->num_gpu > 0 ? j->gpu_milli : 0;
	p->hbm = cluster_job_hbm(&s->c, (size_t)sj->node, j);
	for (int d = 0; d < DIM_N; d++)
		p->dem[d] = j->dem[d] > 0 ? j->dem[d] : 0;
	p->dem[DIM_GPU] = job_gpu(j);
	p->dem[DIM_HBM] = j->num_gpu > 0 ? (int64_t)j->num_gpu * p->hbm : 0;
}

/* The progress of running instance sj: its slot once its rate has changed, else what
 * start_job began it with (its duration of work at rate 1 since its start). */
static struct srun run_now(const struct sim *s, const struct sjob *sj)
{
	if (sj->flags & SJ_SLOWED)
		return s->runs[sj->run];
	const struct job *j = src_job(s, sj);
	return (struct srun){
		.t_upd = sj->start, .work = (double)(j->duration > 0 ? j->duration : 0), .rate = 1};
}

/* Work left by running instance sj now. */
static double work_now(const struct sim *s, const struct sjob *sj)
{
	struct srun ru = run_now(s, sj);
	double w = ru.work - ru.rate * (double)(s->k.now - ru.t_upd);
	return w > 0 ? w : 0;
}

/* ---- time integrals ---- */

static void classify_idle(struct sim *s);
static void carry_over(struct sim *s);

/* The window's integrals over [a, b), a part of the window in which nothing changes. */
static void advance_window(struct sim *s, int64_t a, int64_t b)
{
	int64_t dt = b - a;
	if (s->idle_stale)
		classify_idle(s);
	for (int i = 0; i < s->nmodels; i++) {
		int m = s->models[i];
		for (int c = 0; c < JOB_NCLASS; c++) {
			s->k.win_alloc_ms[m][c] += s->k.alloc_cls[m][c] * dt;
			s->k.win_stall_ms[m][c] += s->stall_cls[m][c] * (double)dt;
		}
		int64_t idle = (s->k.gpu_cap[m] - s->alloc_now[m]) * dt;
		int cause = s->idle_cause;
		if (cause != SIM_B_UNNEEDED && s->idle_mask && !((s->idle_mask >> m) & 1))
			cause = SIM_B_MODEL;
		int cls = cause == SIM_B_UNNEEDED ? SIM_CLS_NONE : s->idle_cls;
		s->k.win_idle_ms[m][cls][cause - SIM_B_IDLE0] += idle;
	}
}

static void advance(struct sim *s, int64_t t)
{
	if (t <= s->k.now)
		return;
	int64_t dt = t - s->k.now;
	if (s->o.mode == SIM_TIMED) {
		int64_t a = s->k.now > s->k.w0 ? s->k.now : s->k.w0;
		int64_t b = t < s->k.w1 ? t : s->k.w1;
		if (a < b)
			advance_window(s, a, b);
		if (s->k.now <= s->k.w1 && t > s->k.w1 && s->k.carry_jobs < 0)
			carry_over(s);
	}
	for (int i = 0; i < s->nmodels; i++) {
		int m = s->models[i];
		s->k.alloc_ms[m] += s->alloc_now[m] * dt;
		s->k.frag_ms[m] += s->sum_frag[m] * (double)dt;
	}
	s->k.frag_md_s += s->sum_md * (double)dt;
	s->k.stall_ms += s->stall_now * (double)dt;
	for (int d = 0; d < DIM_N; d++)
		s->k.stranded_s[d] += (double)s->sum_str[d] * (double)dt;
	s->k.now = t;
}

/* ---- per-node derived state ---- */

/* Stranded capacity of node n: a dim's free capacity when another hard dim is exhausted
 * (has less free than the smallest demand of the target workload on it). */
static void node_stranded(const struct sim *s, size_t n, int64_t out[DIM_N])
{
	const struct node_state *st = &s->c.st[n];
	uint32_t full = 0;
	for (int d = 0; d < DIM_N; d++) {
		if (!(DIMS_HARD & DIM_BIT(d)) || st->cap[d] == 0)
			continue;
		int64_t fr = st->cap[d] - st->used[d];
		if (d == DIM_GPU || d == DIM_HBM) { /* what one GPU can still give */
			fr = 0;
			for (int g = 0; g < s->c.spec[n].ngpu; g++) {
				int64_t v = d == DIM_GPU ? st->gpu_free[g] : st->hbm_free[g];
				fr = v > fr ? v : fr;
			}
		}
		if (fr < s->min_dem[d])
			full |= DIM_BIT(d);
	}
	for (int d = 0; d < DIM_N; d++) {
		int64_t fr = st->cap[d] - st->used[d];
		out[d] = (full & ~DIM_BIT(d)) && fr > 0 ? fr : 0;
	}
}

/* Queue running instance sj's completion in x seconds (whole, as a double: it may be
 * infinite), unless that is past the horizon: then it never finishes in this run (SJ_NOEND),
 * like a job at rate 0. A completion queued before must be stale already (ver bumped). */
static void push_finish(struct sim *s, struct sjob *sj, int32_t idx, double x)
{
	int noend = !(x <= (double)(s->t_max - s->k.now));
	if (noend != !!(sj->flags & SJ_NOEND)) {
		sj->flags ^= SJ_NOEND;
		s->nnoend += noend ? 1 : -1;
	}
	if (noend)
		return;
	struct evq_event ev = {.time = s->k.now + (int64_t)(x > 0 ? x : 0),
			       .prio = EV_FINISH,
			       .kind = EV_FINISH,
			       .ver = sj->ver,
			       .arg = idx,
			       .aux = sj->node};
	evq_push(&s->q, &ev);
}

static void set_rate(struct sim *s, struct sjob *sj, int32_t idx, double r)
{
	struct srun cur = run_now(s, sj);
	if (r == cur.rate)
		return;
	if (!(sj->flags & SJ_SLOWED)) { /* its first change: it gets a slot */
		int32_t k;
		if (s->nrfree) {
			k = s->rfree[--s->nrfree];
		} else {
			xgrow(&s->runs, &s->runcap, s->nruns + 1, sizeof *s->runs);
			k = (int32_t)s->nruns++;
		}
		s->runs[k] = cur;
		sj->run = k;
		sj->flags |= SJ_SLOWED;
	}
	struct srun *ru = &s->runs[sj->run];
	const struct job *j = src_job(s, sj);
	double g = (double)job_gpu(j);
	ru->work = work_now(s, sj);
	ru->t_upd = s->k.now;
	s->stall_now += g * (ru->rate - r);
	int m = node_model(s, (size_t)sj->node);
	if (m >= 0)
		s->stall_cls[m][cls_of(j)] += g * (ru->rate - r);
	ru->rate = r;
	sj->ver++;
	push_finish(s, sj, idx, r > 0 ? ceil(ru->work / r - 1e-9) : INFINITY);
}

/* Node n changed (a placement came or went, a fault): bring its F_n, multi-dim measure,
 * stranded capacity and (when contention is on) its jobs' rates up to date. */
static void node_refresh(struct sim *s, size_t n)
{
	int m = node_model(s, n);
	if (s->own)
		own_refresh(s->own, &s->c, n);
	if (s->wl) {
		double md, f = frag_node_eval(&s->c, n, s->wl, DIMS_ALL, &md, &s->nnofit[n],
					      &s->nfnofit[n], s->nfits[n]);
		if (s->pmd)
			frag_node_eval(&s->c, n, s->wl, s->ctx.dims, &s->pmd[n], &s->pnofit[n],
				       NULL, s->pfits[n]);
		if (m >= 0)
			s->sum_frag[m] += f - s->nfrag[n];
		s->nfrag[n] = f;
		s->sum_md += md - s->nmd[n];
		s->nmd[n] = md;
	}
	if (s->nprep)
		s->ops->prep(&s->ctx, n, s->nprep + n * s->ops->prep_size);
	if (s->use_cls)
		sim_classes_update(&s->cls, n);
	int64_t str[DIM_N];
	node_stranded(s, n, str);
	for (int d = 0; d < DIM_N; d++) {
		s->sum_str[d] += str[d] - s->nstr[n][d];
		s->nstr[n][d] = str[d];
	}
	if (!s->o.contention || s->o.mode == SIM_INFLATE)
		return;
	const struct node_state *st = &s->c.st[n];
	double ratio[DIM_N];
	int any = 0;
	for (int d = 0; d < DIM_N; d++) {
		ratio[d] = 1;
		if ((DIMS_SHARED & DIM_BIT(d)) && st->used[d] > st->cap[d]) {
			ratio[d] = (double)st->cap[d] / (double)st->used[d];
			any = 1;
		}
	}
	if (!any && !s->contended[n])
		return;
	for (int32_t i = 0; i < st->njobs; i++) {
		int32_t idx = st->jobs[i];
		struct sjob *sj = &s->jobs[idx];
		const struct job *j = src_job(s, sj);
		double r = 1;
		for (int d = 0; d < DIM_N; d++)
			if (ratio[d] < r && j->dem[d] > 0)
				r = ratio[d];
		set_rate(s, sj, idx, r);
	}
	s->contended[n] = (uint8_t)any;
}

/* ---- observers ---- */

#define NOTIFY(s, hook, ...)                                                                       \
	do {                                                                                       \
		for (int oi_ = 0; oi_ < (s)->nobs; oi_++)                                          \
			if ((s)->obs[oi_].hook)                                                    \
				(s)->obs[oi_].hook((s)->obs[oi_].u, (s), __VA_ARGS__);             \
	} while (0)

void sim_sample_now(const struct sim *s, struct sim_sample *smp)
{
	memset(smp, 0, sizeof *smp);
	double gcap = (double)s->c.total[DIM_GPU];
	smp->t = s->k.now;
	if (s->o.mode == SIM_INFLATE && gcap > 0)
		smp->load = (double)s->k.requested_gpu / gcap;
	double alloc = 0, frag = 0;
	for (int m = 0; m < GPUMODEL_MAX; m++) {
		alloc += (double)s->alloc_now[m];
		frag += s->sum_frag[m];
	}
	if (gcap > 0) {
		smp->alloc_share = alloc / gcap;
		smp->frag = frag / gcap;
		smp->stall_share = s->stall_now / gcap;
	}
	smp->frag_md = s->c.n ? s->sum_md / (double)s->c.n : 0;
	for (int d = 0; d < DIM_N; d++)
		smp->stranded[d] =
			s->c.total[d] > 0 ? (double)s->sum_str[d] / (double)s->c.total[d] : 0;
	smp->queued = s->queued;
	smp->running = s->running;
	smp->finished = s->k.finished;
	smp->failed = s->k.failed;
}

static void emit_sample(struct sim *s)
{
	struct sim_sample smp;
	if (!s->nobs)
		return;
	sim_sample_now(s, &smp);
	NOTIFY(s, on_sample, &smp);
}

/* ---- placement ---- */

/* The best choice of j on node n: its score and placement (first of equal scores). */
static int best_on_node(struct sim *s, const struct job *j, size_t n, double *score,
			struct placement *out)
{
	struct placement buf[CLUSTER_MAX_GPUS];
	if (!admits(s->admit, &s->c.st[n], j))
		return 0;
	int k = cluster_choices(&s->c, n, j, buf, CLUSTER_MAX_GPUS), found = 0;
	assert(k <= CLUSTER_MAX_GPUS);
	for (int c = 0; c < k; c++) {
		double sc = s->ops->score(&s->ctx, j, &buf[c]);
		if (!found || sc < *score) {
			*score = sc;
			if (out)
				*out = buf[c];
			found = 1;
		}
	}
	return found;
}

struct eval_ctx {
	struct sim *s;
	const struct job *j;
};

static int eval_node(void *u, int32_t n, double *score)
{
	struct eval_ctx *x = u;
	x->s->k.scored++;
	return best_on_node(x->s, x->j, (size_t)n, score, NULL);
}

static int bound_node(void *u, int32_t n, double *score)
{
	struct eval_ctx *x = u;
	*score = x->s->ops->bound(&x->s->ctx, x->j, (size_t)n);
	return 1;
}

/* find_place for a POLICY_F_BY_STATE policy: the lowest (score, node) over the lowest-indexed
 * node of each class of identical nodes (sim-class.h), which is exactly what the loop over
 * every node chooses; then that node's best choice. */
static int find_by_class(struct sim *s, const struct job *j, struct placement *out)
{
	struct sim_key key;
	struct eval_ctx x = {s, j};
	int64_t need[3] = {j->dem[DIM_CPU] > 0 ? j->dem[DIM_CPU] : 0,
			   j->dem[DIM_MEM] > 0 ? j->dem[DIM_MEM] : 0, job_gpu(j)};
	int32_t n;
	double sc, again;
	sim_key_make(&key, j, s->ctx.dims);
	sim_class_eval bd = s->ops->bound ? bound_node : NULL;
	if (!sim_classes_best(&s->cls, &key, need, eval_node, bd, &x, &n, &sc))
		return 0;
	int ok = best_on_node(s, j, (size_t)n, &again, out);
	assert(ok && again == sc && "a POLICY_F_BY_STATE score must depend on the state only");
	(void)ok;
	return 1;
}

/* Salt of the sampling order's seed, so it draws apart from the run's own PRNG. */
#define SAMPLE_SALT 0x73616d706c65ULL /* "sample" */

/* A node of a sampled search and its bound. */
struct cand {
	double bound;
	int32_t node;
};

/*
 * Up to o.sample_nodes nodes where j fits, met in a seeded random order (a walk from a
 * random node by a random step, cluster_walk_start: every node comes once): Borg's
 * "relaxed randomization" (Verma et al., EuroSys 2015, section 3.4). The nodes in s->cand;
 * returns how many.
 */
static size_t sample_nodes(struct sim *s, const struct job *j)
{
	size_t want = s->o.sample_nodes, m = 0;
	uint64_t a = rng_next(&s->srng), b = rng_next(&s->srng);
	struct cluster_walk w = cluster_walk_start(&s->c, a, b);
	xgrow(&s->cand, &s->candcap, want, sizeof *s->cand);
	xgrow(&s->met, &s->metcap, want, sizeof *s->met);
	for (size_t nmet; m < want && (nmet = cluster_walk(&s->c, j, &w, s->met, want - m));)
		for (size_t k = 0; k < nmet; k++) { /* the nodes met that may hold j */
			struct placement p;
			if (admits(s->admit, &s->c.st[s->met[k]], j) &&
			    cluster_first_choice(&s->c, (size_t)s->met[k], j, &p))
				s->cand[m++] = (struct cand){0, s->met[k]};
		}
	return m;
}

/* (a, an) comes before (b, bn): the lower score, then the lower node. (No branch: in the
 * searches below the answer is a coin toss.) */
static int ahead(double a, int32_t an, double b, int32_t bn)
{
	return (a < b) | ((a == b) & (an < bn));
}

/* find_place with o.sample_nodes: the lowest (score, node) over the sampled nodes. With a
 * bound(), the node with the least bound is taken next, and only while its bound can still
 * beat the best score; once a score is known, the nodes whose bound cannot are dropped, so
 * few are left to choose from. */
static int find_sampled(struct sim *s, const struct job *j, struct placement *out)
{
	if (cluster_next_fit(&s->c, 0, j) == s->c.n)
		return 0; /* no node may hold it: the walk would meet every node in vain */
	size_t m = sample_nodes(s, j);
	const struct policy_ops *ops = s->ops;
	struct cand *cd = s->cand;
	for (size_t i = 0; ops->bound && i < m; i++)
		cd[i].bound = ops->bound(&s->ctx, j, (size_t)cd[i].node);
	double best = 0;
	int32_t bn = -1;
	while (m) {
		size_t at = 0;
		for (size_t i = 1; ops->bound && i < m; i++)
			at = ahead(cd[i].bound, cd[i].node, cd[at].bound, cd[at].node) ? i : at;
		struct cand c = cd[at];
		cd[at] = cd[--m];
		double sc;
		s->k.scored++;
		if (!best_on_node(s, j, (size_t)c.node, &sc, NULL) ||
		    (bn >= 0 && !ahead(sc, c.node, best, bn)))
			continue;
		best = sc;
		bn = c.node;
		size_t w = 0; /* keep the nodes that may still beat it */
		for (size_t i = 0; ops->bound && i < m; i++)
			if (ahead(cd[i].bound, cd[i].node, best, bn))
				cd[w++] = cd[i];
		m = ops->bound ? w : m;
	}
	return bn >= 0 && best_on_node(s, j, (size_t)bn, &best, out);
}

/* ---- placement as kube-scheduler score plugins (--scoring k8s, k8s.h) ---- */

#define K8S_SALT       0x6b3873ULL     /* "k8s": its draws apart from the run's own PRNG */
#define K8S_NAMES_SALT 0x6e616d6573ULL /* "names": the order of --tie-break shuffled */

struct sim_k8s {
	struct k8s_plugin pl[K8S_MAX_PLUGINS];
	size_t npl;
	size_t main;          /* whose GPU selection places: the largest weight (first) */
	struct k8s_spec spec; /* the largest node, for the plugins' normalisation */
	/* One plugin that depends on the node's state only, nodes in name order, ties by
	 * name: the class search (the lowest index of a class is then its first name) */
	int fast;
	int32_t *rank;  /* per node: its place in name order */
	struct rng rng; /* random ties, the random plugin, random GPUs */
	int32_t *cand;  /* scratch, c.n long: the feasible nodes of a scan */
	int64_t *raw;   /* scratch, npl x c.n: their scores per plugin */
};

/* A node's name with its index: sorted without a global, which sizing threads would share */
struct named_node {
	const char *name;
	int32_t n;
};
static int by_name(const void *a, const void *b)
{
	const struct named_node *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->n > y->n) - (x->n < y->n);
}

static void k8s_release(struct sim_k8s *k)
{
	if (!k)
		return;
	free(k->rank);
	free(k->cand);
	free(k->raw);
	free(k);
}

/* Set up s->k8s for o.scoring (s->ops, s->c and s->use_cls set); rng: the draws so far (a
 * fork's), or NULL to seed them. Returns 0 or VF_EINPUT for bad o.k8s_weights. */
static int k8s_setup(struct sim *s, const struct rng *rng, struct err *e)
{
	k8s_release(s->k8s);
	s->k8s = NULL;
	if (s->o.scoring != SIM_SCORING_K8S)
		return VF_OK;
	struct sim_k8s *k = xcalloc(1, sizeof *k);
	struct k8s_plugin more[K8S_MAX_PLUGINS];
	size_t nmore = 0;
	const char *bad = NULL;
	if (s->o.k8s_weights &&
	    k8s_weights_parse(s->o.k8s_weights, more, K8S_MAX_PLUGINS - 1, &nmore, &bad)) {
		free(k);
		return err_set(e, VF_EINPUT, "--k8s-weights '%s': not NAME=WEIGHT,... at '%s'",
			       s->o.k8s_weights, bad);
	}
	k8s_plugin_of(s->ops, &k->pl[0]);
	k->npl = 1;
	for (size_t i = 0; i < nmore; i++) {
		if (more[i].ops == s->ops)
			k->pl[0].weight = more[i].weight;
		else
			k->pl[k->npl++] = more[i];
	}
	for (size_t i = 1; i < k->npl; i++)
		k->main = k->pl[i].weight > k->pl[k->main].weight ? i : k->main;
	k8s_spec_of(&s->c, &k->spec);
	size_t nn = s->c.n ? s->c.n : 1;
	k->rank = xmalloc(nn * sizeof *k->rank);
	k->cand = xmalloc(nn * sizeof *k->cand);
	k->raw = xmalloc(nn * k->npl * sizeof *k->raw);
	int sorted = 1;
	struct named_node *order = xmalloc(nn * sizeof *order);
	for (size_t n = 0; n < s->c.n; n++)
		order[n] = (struct named_node){s->c.spec[n].name, (int32_t)n};
	qsort(order, s->c.n, sizeof *order, by_name);
	for (size_t r = 0; r < s->c.n; r++) {
		k->rank[order[r].n] = (int32_t)r;
		sorted &= order[r].n == (int32_t)r;
	}
	free(order);
	/* shuffled: each seed its order of the names; the class search knows index order only */
	if (s->o.k8s_tie == SIM_TIE_SHUFFLED) {
		k8s_shuffle_ranks(k->rank, s->c.n, rng_hash(s->o.seed, K8S_NAMES_SALT, 0));
		sorted = 0;
	}
	k->fast = k->npl == 1 && k->pl[0].by_state && s->use_cls && s->o.k8s_tie == SIM_TIE_NAME &&
		  sorted;
	if (rng)
		k->rng = *rng;
	else
		rng_seed(&k->rng, rng_hash(s->o.seed, K8S_SALT, 0));
	s->k8s = k;
	return VF_OK;
}

/* The placement on node n that plugin main's GPU selection takes; its raw score in *raw if
 * raw is not NULL. 0 if j does not fit on n. */
static int k8s_choose(struct sim *s, const struct job *j, size_t n, struct placement *out,
		      int64_t *raw)
{
	struct sim_k8s *k = s->k8s;
	struct placement buf[CLUSTER_MAX_GPUS];
	int nc = cluster_choices(&s->c, n, j, buf, CLUSTER_MAX_GPUS), pick = 0;
	if (!nc)
		return 0;
	const struct k8s_plugin *pl = &k->pl[k->main];
	int64_t v = k8s_node_score(pl, &s->ctx, &k->spec, j, n, buf, nc, &pick);
	if (raw)
		*raw = v;
	if (pl->gpusel == K8S_GPU_RANDOM && nc > 1) { /* a random GPU, not a random state */
		int w[CLUSTER_MAX_GPUS], tot = 0;
		for (int i = 0; i < nc; i++)
			tot += w[i] = k8s_gpu_weight(&s->c, n, &buf[i]);
		int64_t r = (int64_t)rng_below(&k->rng, (uint64_t)tot);
		for (pick = 0; pick < nc - 1 && r >= w[pick]; pick++)
			r -= w[pick];
	}
	*out = buf[pick];
	return 1;
}

struct k8s_eval {
	struct sim *s;
	const struct job *j;
};

/* The class search's score: the negated integer, so the lowest wins. */
static int k8s_eval_node(void *u, int32_t n, double *score)
{
	struct k8s_eval *x = u;
	struct sim_k8s *k = x->s->k8s;
	struct placement buf[CLUSTER_MAX_GPUS];
	int nc = cluster_choices(&x->s->c, (size_t)n, x->j, buf, CLUSTER_MAX_GPUS), pick;
	x->s->k.scored++;
	if (!nc)
		return 0;
	*score = -(double)k8s_node_score(&k->pl[0], &x->s->ctx, &k->spec, x->j, (size_t)n, buf, nc,
					 &pick);
	return 1;
}

/* The policy's bound through the plugin's map, which is monotone, so it stays a bound. */
static int k8s_bound_node(void *u, int32_t n, double *score)
{
	struct k8s_eval *x = u;
	const struct k8s_plugin *pl = &x->s->k8s->pl[0];
	double b = x->s->ops->bound(&x->s->ctx, x->j, (size_t)n);
	*score = -(double)(pl->kind == K8S_FGD ? k8s_fgd_of(b) : k8s_derived_of(b));
	return 1;
}

/* One plugin that scores by state: the best class, as find_by_class. */
static int k8s_by_class(struct sim *s, const struct job *j, struct placement *out)
{
	struct sim_key key;
	struct k8s_eval x = {s, j};
	const struct k8s_plugin *pl = &s->k8s->pl[0];
	int64_t need[3] = {j->dem[DIM_CPU] > 0 ? j->dem[DIM_CPU] : 0,
			   j->dem[DIM_MEM] > 0 ? j->dem[DIM_MEM] : 0, job_gpu(j)};
	int32_t n;
	double sc;
	int bounded = s->ops->bound && (pl->kind == K8S_FGD || pl->kind == K8S_DERIVED);
	sim_key_make(&key, j, s->ctx.dims);
	if (!sim_classes_best(&s->cls, &key, need, k8s_eval_node, bounded ? k8s_bound_node : NULL,
			      &x, &n, &sc))
		return 0;
	int64_t raw = 0;
	int ok = k8s_choose(s, j, (size_t)n, out, &raw);
	assert(ok && -(double)raw == sc && "a by-state plugin must depend on the state only");
	(void)ok;
	return 1;
}

/* Every feasible node: each plugin's score, NormalizeScore where the plugin has it, the
 * weighted sum; the highest wins, ties by name or at random. */
static int k8s_scan(struct sim *s, const struct job *j, struct placement *out)
{
	struct sim_k8s *k = s->k8s;
	size_t m = 0, cap = s->c.n;
	for (size_t n = cluster_next_fit(&s->c, 0, j); n < s->c.n;
	     n = cluster_next_fit(&s->c, n + 1, j)) {
		struct placement buf[CLUSTER_MAX_GPUS];
		int nc = cluster_choices(&s->c, n, j, buf, CLUSTER_MAX_GPUS), pick;
		if (!nc)
			continue;
		s->k.scored++;
		for (size_t p = 0; p < k->npl; p++)
			k->raw[p * cap + m] =
				k8s_node_score(&k->pl[p], &s->ctx, &k->spec, j, n, buf, nc, &pick);
		k->cand[m++] = (int32_t)n;
	}
	if (!m)
		return 0;
	for (size_t p = 0; p < k->npl; p++) {
		int64_t *v = &k->raw[p * cap];
		if (k->pl[p].kind == K8S_RANDOM) { /* PreScore draws one feasible node */
			memset(v, 0, m * sizeof *v);
			v[rng_below(&k->rng, m)] = K8S_MAX_SCORE;
		} else if (k->pl[p].normalize) {
			k8s_normalize(v, m);
		}
	}
	size_t best = 0, ties = 0;
	int64_t top = 0;
	for (size_t i = 0; i < m; i++) {
		int64_t t = 0;
		for (size_t p = 0; p < k->npl; p++)
			t += k->pl[p].weight * k->raw[p * cap + i];
		if (!i || t > top) {
			top = t;
			best = i;
			ties = 1;
		} else if (t == top) {
			ties++;
			if (s->o.k8s_tie == SIM_TIE_RANDOM
				    ? rng_below(&k->rng, ties) == 0
				    : k->rank[k->cand[i]] < k->rank[k->cand[best]])
				best = i;
		}
	}
	return k8s_choose(s, j, (size_t)k->cand[best], out, NULL);
}

static int k8s_find(struct sim *s, const struct job *j, struct placement *out)
{
	if (job_gpu(j) > s->c.free_gpu_milli)
		return 0;
	return s->k8s->fast ? k8s_by_class(s, j, out) : k8s_scan(s, j, out);
}

/* The placement the policy picks for j, or 0 if j fits nowhere now. */
static int find_place(struct sim *s, const struct job *j, struct placement *out)
{
	if (s->k8s)
		return k8s_find(s, j, out);
	if (s->ops->pick && !s->admit) /* a pick() knows no admission: the score loop does */
		return s->ops->pick(&s->ctx, j, out);
	struct placement buf[CLUSTER_MAX_GPUS];
	double best = 0;
	int found = 0;
	if (job_gpu(j) > s->c.free_gpu_milli)
		return 0;
	if (s->sampled)
		return find_sampled(s, j, out);
	if (s->use_cls)
		return find_by_class(s, j, out);
	for (size_t n = cluster_next_fit(&s->c, 0, j); n < s->c.n;
	     n = cluster_next_fit(&s->c, n + 1, j)) {
		if (!admits(s->admit, &s->c.st[n], j))
			continue;
		int k = cluster_choices(&s->c, n, j, buf, CLUSTER_MAX_GPUS);
		assert(k <= CLUSTER_MAX_GPUS);
		s->k.scored++;
		for (int c = 0; c < k; c++) {
			double sc = s->ops->score(&s->ctx, j, &buf[c]);
			if (!found ||
			    sc < best) { /* ties: the lowest node, then its first choice */
				best = sc;
				*out = buf[c];
				found = 1;
			}
		}
	}
	return found;
}

/* j starts on node n, under an active fault: count it for each fault it feels. */
static void count_fault_hits(struct sim *s, int32_t n, const struct job *j)
{
	for (size_t i = 0; i < s->nfaults; i++) {
		struct sfault *f = &s->faults[i];
		if (!f->active || j->dem[f->f.dim] <= 0)
			continue;
		size_t lo = 0, hi = f->nnodes; /* f->nodes is ascending */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (f->nodes[mid] < n)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < f->nnodes && f->nodes[lo] == n)
			f->jobs_hit++;
	}
}

static void start_job(struct sim *s, int32_t idx, const struct placement *p)
{
	struct sjob *sj = &s->jobs[idx];
	const struct job *j = src_job(s, sj);
	cluster_place(&s->c, p, idx);
	sj->state = SIM_JOB_RUNNING;
	sj->node = p->node;
	sj->start = s->k.now;
	sj->run = -1; /* until its rate changes (set_rate) */
	sj->gpus = p->gpus;
	sj->flags &= (uint8_t) ~(SJ_SLOWED | SJ_NOEND);
	sj->ver++;
	int m = node_model(s, (size_t)p->node);
	if (m >= 0) {
		s->alloc_now[m] += p->dem[DIM_GPU];
		s->k.alloc_cls[m][cls_of(j)] += p->dem[DIM_GPU];
	}
	if (s->nfault_on && s->nfault_on[p->node])
		count_fault_hits(s, p->node, j);
	s->running++;
	s->k.placed++;
	if (s->o.mode == SIM_TIMED)
		push_finish(s, sj, idx, (double)(j->duration > 0 ? j->duration : 0));
	node_refresh(s, (size_t)p->node);
	NOTIFY(s, on_place, s->k.now, idx, p);
}

/* Take sj off its node (finish or preemption); returns the GPU-milli it held. */
static int64_t stop_job(struct sim *s, int32_t idx)
{
	struct sjob *sj = &s->jobs[idx];
	struct placement p;
	job_placement(s, sj, &p);
	int m = node_model(s, (size_t)p.node), c = cls_of(src_job(s, sj));
	if (sj->flags & SJ_SLOWED) { /* (at rate 1 it stalls nothing: stall_now - 0) */
		double st = (double)p.dem[DIM_GPU] * (1 - s->runs[sj->run].rate);
		s->stall_now -= st;
		if (m >= 0)
			s->stall_cls[m][c] -= st;
		xgrow(&s->rfree, &s->rfreecap, s->nrfree + 1, sizeof *s->rfree);
		s->rfree[s->nrfree++] = sj->run; /* the slot is free */
	}
	if (sj->flags & SJ_NOEND) {
		sj->flags &= (uint8_t)~SJ_NOEND;
		s->nnoend--;
	}
	sj->ver++;
	cluster_remove(&s->c, &p, idx);
	if (m >= 0) {
		s->alloc_now[m] -= p.dem[DIM_GPU];
		s->k.alloc_cls[m][c] -= p.dem[DIM_GPU];
	}
	s->running--;
	node_refresh(s, (size_t)p.node);
	s->dirty = 1;
	s->freed = 1;
	return p.dem[DIM_GPU];
}

/* Can j never run on this cluster, even empty? Sets sj's why. */
static int never_fits(struct sim *s, struct sjob *sj)
{
	const struct job *j = src_job(s, sj);
	struct placement p;
	sj->flags |= SJ_CHECKED;
	for (size_t k = 0; k < s->empty.n; k++)
		if (admits(s->admit, &s->empty.st[k], j) &&
		    cluster_first_choice(&s->empty, k, j, &p))
			return 0;
	sj->why = SIM_WHY_TOO_BIG;
	sj->why_dim = -1;
	if (j->num_gpu > 0) {
		int model_ok = 0;
		for (size_t k = 0; k < s->empty.n && !model_ok; k++) {
			const struct node *sp = &s->empty.spec[k];
			model_ok = sp->ngpu >= j->num_gpu &&
				   (!j->gpu_spec ||
				    (sp->model >= 0 && (j->gpu_spec >> sp->model) & 1));
		}
		if (!model_ok) {
			sj->why = SIM_WHY_MODEL;
			return 1;
		}
	}
	/* The first dim no allowed node has enough of: a hard dim, or a shared dim j uses that
	 * every allowed node lacks (cluster_choices). */
	for (int d = 0; d < DIM_N && sj->why_dim < 0; d++) {
		int ok = 0;
		for (size_t k = 0; k < s->empty.n && !ok; k++) {
			const struct node *sp = &s->empty.spec[k];
			if (j->num_gpu > 0 && (sp->ngpu < j->num_gpu || sp->model < 0 ||
					       (j->gpu_spec && !((j->gpu_spec >> sp->model) & 1))))
				continue;
			int64_t need = d == DIM_GPU   ? job_gpu(j)
				       : d == DIM_HBM ? (int64_t)j->num_gpu *
								cluster_job_hbm(&s->empty, k, j)
						      : (j->dem[d] > 0 ? j->dem[d] : 0);
			ok = DIMS_HARD & DIM_BIT(d) ? need <= sp->cap[d] : !need || sp->cap[d] > 0;
		}
		if (!ok)
			sj->why_dim = (int8_t)d;
	}
	return 1;
}

static void mark_unplaceable(struct sim *s, int32_t idx)
{
	s->jobs[idx].state = SIM_JOB_UNPLACEABLE;
	s->k.unplaceable++;
	NOTIFY(s, on_unplaceable, s->k.now, idx);
}

/* ---- why free GPUs idle ---- */

/* Waiting GPU jobs after the first that classify_idle tries, under fifo. */
#define IDLE_LOOKAHEAD 16

/* Does j fit on some node now (hard dims, GPU shape and I/O admission; a policy could place
 * it)? */
static int fits_now(const struct sim *s, const struct job *j)
{
	struct placement p;
	for (size_t n = cluster_next_fit(&s->c, 0, j); n < s->c.n;
	     n = cluster_next_fit(&s->c, n + 1, j))
		if (admits(s->admit, &s->c.st[n], j) && cluster_first_choice(&s->c, n, j, &p))
			return 1;
	return 0;
}

/* Why GPU job j, which fits nowhere now, cannot use the free GPUs of the models it allows. */
static int blocked_cause(const struct sim *s, const struct job *j)
{
	/* the GPU shape alone: cpu, mem or a dim under admission is what a node lacks */
	struct job relaxed = *j;
	relaxed.dem[DIM_CPU] = relaxed.dem[DIM_MEM] = 0;
	for (int d = DIM_NET; d < DIM_N; d++)
		if (s->admit & DIM_BIT(d))
			relaxed.dem[d] = 0;
	if (fits_now(s, &relaxed))
		return SIM_B_DIM;
	int64_t free = 0;
	for (int i = 0; i < s->nmodels; i++) {
		int m = s->models[i];
		if (!j->gpu_spec || ((j->gpu_spec >> m) & 1))
			free += s->k.gpu_cap[m] - s->alloc_now[m];
	}
	return free >= job_gpu(j) ? SIM_B_SHAPE : SIM_B_FULL;
}

/* Decide why free GPUs idle now: the first waiting GPU job in the queue's order decides it
 * (QUEUE if it fits now, or under fifo if one of the next IDLE_LOOKAHEAD waiting GPU jobs
 * does), and UNNEEDED when no GPU job waits. */
static void classify_idle(struct sim *s)
{
	const struct job *head = NULL;
	size_t h = 0;
	s->idle_stale = 0;
	s->idle_cause = SIM_B_UNNEEDED;
	s->idle_cls = SIM_CLS_NONE;
	s->idle_mask = 0;
	for (; h < s->nwait && !head; h++) {
		const struct job *j = src_job(s, &s->jobs[s->wait[h]]);
		if (job_gpu(j) > 0)
			head = j;
	}
	if (!head)
		return;
	s->idle_cls = (uint8_t)cls_of(head);
	s->idle_mask = head->gpu_spec;
	/* the pass tried every waiting job but those behind a fifo head: they alone may fit */
	int tried = s->o.queue != SIM_FIFO || h == 1;
	if (!tried && fits_now(s, head)) {
		s->idle_cause = SIM_B_QUEUE;
		return;
	}
	s->idle_cause = (uint8_t)blocked_cause(s, head);
	if (s->o.queue != SIM_FIFO)
		return;
	for (size_t i = h, k = 0; i < s->nwait && k < IDLE_LOOKAHEAD; i++) {
		const struct job *b = src_job(s, &s->jobs[s->wait[i]]);
		if (job_gpu(b) == 0)
			continue;
		k++;
		if (fits_now(s, b)) {
			s->idle_cause = SIM_B_QUEUE;
			s->idle_cls = (uint8_t)cls_of(b);
			s->idle_mask = b->gpu_spec;
			return;
		}
	}
}

/* The clock passes the window's end: count the work still running or waiting there. */
static void carry_over(struct sim *s)
{
	int64_t t = s->k.now, jobs = 0;
	double ms = 0;
	for (size_t n = 0; n < s->c.n; n++) {
		const struct node_state *st = &s->c.st[n];
		for (int32_t i = 0; i < st->njobs; i++) {
			const struct sjob *sj = &s->jobs[st->jobs[i]];
			struct srun ru = run_now(s, sj);
			double w = ru.work - ru.rate * (double)(t - ru.t_upd);
			jobs++;
			ms += (double)job_gpu(src_job(s, sj)) * (w > 0 ? w : 0);
		}
	}
	for (size_t i = 0; i < s->nwait; i++) {
		const struct job *j = src_job(s, &s->jobs[s->wait[i]]);
		jobs++;
		ms += (double)job_gpu(j) * (double)(j->duration > 0 ? j->duration : 0);
	}
	s->k.carry_jobs = jobs;
	s->k.carry_gpu_ms = ms;
}

const char *sim_bucket_name(enum sim_bucket b)
{
	static const char *const n[SIM_NBUCKET] = {"productive",    "stalled",      "lost",
						   "blocked_shape", "blocked_dim",  "blocked_model",
						   "blocked_queue", "blocked_full", "unneeded"};
	return (unsigned)b < SIM_NBUCKET ? n[b] : "?";
}

void sim_buckets(const struct sim_counters *k, int over,
		 int64_t out[GPUMODEL_MAX][JOB_NCLASS + 1][SIM_NBUCKET])
{
	memset(out, 0, sizeof(int64_t) * GPUMODEL_MAX * (JOB_NCLASS + 1) * SIM_NBUCKET);
	/* a run over before the window's end: nothing waits in the rest of it */
	int64_t from = k->now > k->w0 ? k->now : k->w0;
	int64_t rest = over && k->w1 > from ? k->w1 - from : 0;
	for (int m = 0; m < GPUMODEL_MAX; m++) {
		for (int c = 0; c < JOB_NCLASS; c++) {
			int64_t alloc = k->win_alloc_ms[m][c];
			int64_t st = llround(k->win_stall_ms[m][c]);
			st = st < 0 ? 0 : st > alloc ? alloc : st;
			int64_t lost = k->win_lost_ms[m][c];
			lost = lost > alloc - st ? alloc - st : lost;
			out[m][c][SIM_B_STALLED] = st;
			out[m][c][SIM_B_LOST] = lost;
			out[m][c][SIM_B_PRODUCTIVE] = alloc - st - lost;
		}
		for (int c = 0; c <= JOB_NCLASS; c++)
			for (int b = SIM_B_IDLE0; b < SIM_NBUCKET; b++)
				out[m][c][b] = k->win_idle_ms[m][c][b - SIM_B_IDLE0];
		out[m][SIM_CLS_NONE][SIM_B_UNNEEDED] += k->gpu_cap[m] * rest;
	}
}

/* ---- the waiting queue ---- */

/* Order of trial: arrival (instance index), or class then arrival for SIM_PRIORITY. */
static int wait_before(const struct sim *s, int32_t a, int32_t b)
{
	if (s->o.queue == SIM_PRIORITY) {
		uint8_t ca = src_job(s, &s->jobs[a])->cls, cb = src_job(s, &s->jobs[b])->cls;
		if (ca != cb)
			return ca < cb;
	}
	return a < b;
}

/* Whether a job fits anywhere depends on its hard dims and GPU shape only. */
static uint64_t fit_hash(const struct fitkey *k)
{
	uint64_t h = rng_hash((uint64_t)k->num_gpu << 32 | (uint32_t)k->gpu_milli, k->gpu_spec,
			      (uint64_t)k->cpu);
	h = rng_hash(h, (uint64_t)k->io[0], rng_hash((uint64_t)k->io[1], (uint64_t)k->io[2], 0));
	return rng_hash(h, (uint64_t)k->mem, (uint64_t)k->hbm);
}

static int same_fit(const struct fitkey *a, const struct fitkey *b)
{
	return a->num_gpu == b->num_gpu && a->gpu_milli == b->gpu_milli &&
	       a->gpu_spec == b->gpu_spec && a->cpu == b->cpu && a->mem == b->mem &&
	       a->hbm == b->hbm && !memcmp(a->io, b->io, sizeof a->io);
}

/* The id of job instance idx's fit shape (numbered in order of first appearance). */
static int32_t shape_of(struct sim *s, int32_t idx)
{
	if (s->jshape[idx] >= 0)
		return s->jshape[idx];
	const struct job *j = src_job(s, &s->jobs[idx]);
	struct fitkey k = {j->dem[DIM_CPU], j->dem[DIM_MEM], j->dem[DIM_HBM], {0, 0, 0},
			   j->num_gpu,      j->gpu_milli,    j->gpu_spec,     -1};
	for (int d = DIM_NET; d < DIM_N; d++) /* under admission, these decide a fit too */
		k.io[d - DIM_NET] = (s->admit & DIM_BIT(d)) ? j->dem[d] : 0;
	if (2 * (s->nshapes + 1) > s->stabcap) { /* grow and rehash */
		size_t cap = s->stabcap ? 2 * s->stabcap : 256;
		struct fitkey *t = xmalloc(cap * sizeof *t);
		for (size_t i = 0; i < cap; i++)
			t[i].id = -1;
		for (size_t i = 0; i < s->stabcap; i++) {
			if (s->stab[i].id < 0)
				continue;
			size_t p = fit_hash(&s->stab[i]) & (cap - 1);
			while (t[p].id >= 0)
				p = (p + 1) & (cap - 1);
			t[p] = s->stab[i];
		}
		free(s->stab);
		s->stab = t;
		s->stabcap = cap;
	}
	size_t p = fit_hash(&k) & (s->stabcap - 1);
	while (s->stab[p].id >= 0 && !same_fit(&s->stab[p], &k))
		p = (p + 1) & (s->stabcap - 1);
	if (s->stab[p].id < 0) {
		k.id = (int32_t)s->nshapes++;
		s->stab[p] = k;
		xgrow(&s->sfail, &s->sfailcap, s->nshapes, sizeof *s->sfail);
		s->sfail[s->nshapes - 1] = 0;
	}
	return s->jshape[idx] = s->stab[p].id;
}

/* The first place in s->wait whose job does not come before job idx. */
static size_t wait_pos(const struct sim *s, int32_t idx)
{
	size_t lo = 0, hi = s->nwait;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (wait_before(s, s->wait[mid], idx))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Room for one more job at the end of s->wait: the queue moves to the front of its arrays
 * when at least half of them is free there (so each move is paid by as many jobs taken
 * off), else the arrays grow. */
static void wait_room(struct sim *s)
{
	if (!s->nwait) {
		s->whead = 0;
		s->wait = s->wbuf;
		s->wshape = s->wsbuf;
	}
	if (s->whead + s->nwait < s->waitcap)
		return;
	if (!s->whead || s->whead < s->nwait) {
		s->waitcap = s->waitcap ? 2 * s->waitcap : 64;
		s->wbuf = xrealloc(s->wbuf, s->waitcap * sizeof *s->wbuf);
		s->wsbuf = xrealloc(s->wsbuf, s->waitcap * sizeof *s->wsbuf);
	}
	memmove(s->wbuf, s->wbuf + s->whead, s->nwait * sizeof *s->wbuf);
	memmove(s->wsbuf, s->wsbuf + s->whead, s->nwait * sizeof *s->wsbuf);
	s->whead = 0;
	s->wait = s->wbuf;
	s->wshape = s->wsbuf;
}

/* Close the gap left in s->wait by the jobs gone from positions [w, r), keeping the order
 * of the others: the shorter side moves, so the head of a long fifo queue leaves in O(1). */
static void wait_close(struct sim *s, size_t w, size_t r)
{
	size_t gap = r - w, tail = s->nwait - r;
	assert(w <= r && r <= s->nwait);
	if (!gap)
		return;
	if (w <= tail) {
		memmove(&s->wait[gap], &s->wait[0], w * sizeof *s->wait);
		memmove(&s->wshape[gap], &s->wshape[0], w * sizeof *s->wshape);
		s->wait += gap;
		s->wshape += gap;
		s->whead += gap;
	} else {
		memmove(&s->wait[w], &s->wait[r], tail * sizeof *s->wait);
		memmove(&s->wshape[w], &s->wshape[r], tail * sizeof *s->wshape);
	}
	s->nwait -= gap;
}

static void wait_add(struct sim *s, int32_t idx)
{
	wait_room(s);
	/* arrivals mostly go last: skip the search then */
	size_t lo = s->nwait && !wait_before(s, s->wait[s->nwait - 1], idx) ? wait_pos(s, idx)
									    : s->nwait;
	memmove(&s->wait[lo + 1], &s->wait[lo], (s->nwait - lo) * sizeof *s->wait);
	memmove(&s->wshape[lo + 1], &s->wshape[lo], (s->nwait - lo) * sizeof *s->wshape);
	s->wait[lo] = idx;
	s->wshape[lo] = shape_of(s, idx);
	s->nwait++;
	s->jobs[idx].state = SIM_JOB_QUEUED;
	s->queued++;
	s->dirty = 1;
}

/* Count a preemption of instance idx that lost lost GPU-milli-s (s->pre grows
 * zero-filled). */
static void add_preempt(struct sim *s, int32_t idx, int64_t lost)
{
	if ((size_t)idx >= s->precap) {
		size_t old = s->precap;
		xgrow(&s->pre, &s->precap, s->njobs > (size_t)idx ? s->njobs : (size_t)idx + 1,
		      sizeof *s->pre);
		memset(s->pre + old, 0, (s->precap - old) * sizeof *s->pre);
	}
	s->pre[idx].lost_ms += lost;
	s->pre[idx].n++;
}

/* A run of g GPU-milli from start, preempted now after done seconds of progress: what of
 * that progress lies in the window (at most its time in the window) is lost. */
static void window_lost(struct sim *s, int m, int c, int64_t g, int64_t start, double done)
{
	if (s->o.mode != SIM_TIMED)
		return;
	int64_t a = start > s->k.w0 ? start : s->k.w0;
	int64_t b = s->k.now < s->k.w1 ? s->k.now : s->k.w1;
	double in = b > a ? (double)(b - a) : 0;
	if (done > in)
		done = in;
	if (done > 0)
		s->k.win_lost_ms[m][c] += llround((double)g * done);
}

/* Try to make room for job idx by evicting lower classes: on the lowest-indexed node where
 * evicting them (lowest class first, then the latest started) lets it fit, evict just
 * enough. Returns 1 if it did. */
static int preempt_for(struct sim *s, int32_t idx)
{
	const struct job *j = src_job(s, &s->jobs[idx]);
	struct placement p;
	if (j->cls + 1 >= JOB_NCLASS)
		return 0; /* no lower class to evict */
	for (size_t n = 0; n < s->c.n; n++) {
		struct node_state *st = &s->c.st[n];
		int32_t victims[256];
		int nv = 0;
		int64_t cpu = st->cap[DIM_CPU] - st->used[DIM_CPU];
		int64_t mem = st->cap[DIM_MEM] - st->used[DIM_MEM];
		int64_t gpu = st->cap[DIM_GPU] - st->used[DIM_GPU];
		for (int32_t i = 0; i < st->njobs && nv < 256; i++) {
			const struct job *v = src_job(s, &s->jobs[st->jobs[i]]);
			if (v->cls <= j->cls)
				continue;
			victims[nv++] = st->jobs[i];
			cpu += v->dem[DIM_CPU] > 0 ? v->dem[DIM_CPU] : 0;
			mem += v->dem[DIM_MEM] > 0 ? v->dem[DIM_MEM] : 0;
			gpu += job_gpu(v);
		}
		/* Not even the totals would do: no need to look closer. */
		if (!nv || cpu < (j->dem[DIM_CPU] > 0 ? j->dem[DIM_CPU] : 0) ||
		    mem < (j->dem[DIM_MEM] > 0 ? j->dem[DIM_MEM] : 0) || gpu < job_gpu(j))
			continue;
		/* Order: lowest class (highest cls) first, then latest start, then highest index.
		 */
		for (int a = 1; a < nv; a++)
			for (int b = a; b > 0; b--) {
				const struct sjob *x = &s->jobs[victims[b - 1]],
						  *y = &s->jobs[victims[b]];
				int xc = src_job(s, x)->cls, yc = src_job(s, y)->cls;
				int swap = yc > xc || (yc == xc && (y->start > x->start ||
								    (y->start == x->start &&
								     victims[b] > victims[b - 1])));
				if (!swap)
					break;
				int32_t t = victims[b];
				victims[b] = victims[b - 1];
				victims[b - 1] = t;
			}
		/* Would evicting them all do? Try it on the node's state, then put it back. */
		struct node_state saved = *st;
		for (int v = 0; v < nv; v++) {
			struct placement vp;
			job_placement(s, &s->jobs[victims[v]], &vp);
			for (int d = 0; d < DIM_N; d++)
				st->used[d] -= vp.dem[d];
			for (int g = 0; g < CLUSTER_MAX_GPUS; g++)
				if (vp.gpus & (1u << g)) {
					st->gpu_free[g] += vp.milli;
					st->hbm_free[g] += vp.hbm;
				}
		}
		int could = admits(s->admit, st, j) && cluster_first_choice(&s->c, n, j, &p);
		*st = saved;
		if (!could)
			continue;
		for (int v = 0;
		     v < nv && !(admits(s->admit, st, j) && cluster_first_choice(&s->c, n, j, &p));
		     v++) {
			int32_t vi = victims[v];
			struct sjob *vj = &s->jobs[vi];
			int m = node_model(s, n);
			double done = (double)src_job(s, vj)->duration - work_now(s, vj);
			int64_t g = stop_job(s, vi);
			int64_t lost = g * (s->k.now - vj->start);
			add_preempt(s, vi, lost);
			if (m >= 0) {
				s->k.lost_ms[m] += lost;
				window_lost(s, m, cls_of(src_job(s, vj)), g, vj->start, done);
			}
			s->k.preemptions++;
			vj->state = SIM_JOB_QUEUED;
			NOTIFY(s, on_preempt, s->k.now, vi, idx);
			/* s->wait is being compacted by schedule(): queue it after the pass. */
			xgrow(&s->requeue, &s->requeuecap, s->nrequeue + 1, sizeof *s->requeue);
			s->requeue[s->nrequeue++] = vi;
		}
		return 1;
	}
	return 0;
}

/* Where job idx is in s->wait (it must be there). */
static size_t wait_find(const struct sim *s, int32_t idx)
{
	size_t lo = wait_pos(s, idx);
	assert(lo < s->nwait && s->wait[lo] == idx);
	return lo;
}

/* The rest of a full pass, from queue position start on (the jobs before it stay): start
 * what can start, in the discipline's order. A shape that failed in this pass fails again
 * (placements in a pass only take room), so it is not searched twice. (This assumes a
 * policy's pick() fails only when no node is feasible on the hard dims, as policy.h says; a
 * preemption frees room, and then the next pass tries everything again.) */
static void pass_from(struct sim *s, size_t start)
{
	size_t w = start;
	for (size_t r = start; r < s->nwait; r++) {
		if (s->o.queue == SIM_FIFO && w > 0) {
			/* The head waits: so does everything behind it. */
			wait_close(s, w, r);
			w = s->nwait;
			break;
		}
		int32_t idx = s->wait[r], sh = s->wshape[r];
		if (s->sfail[sh] == s->pass) { /* its shape failed in this pass already */
			s->wait[w] = idx;
			s->wshape[w++] = sh;
			continue;
		}
		struct sjob *sj = &s->jobs[idx];
		const struct job *j = src_job(s, sj);
		struct placement p;
		if (!(sj->flags & SJ_CHECKED) && never_fits(s, sj)) {
			s->queued--;
			mark_unplaceable(s, idx);
			continue;
		}
		if (find_place(s, j, &p)) {
			s->queued--;
			start_job(s, idx, &p);
			continue;
		}
		/* A shape that could not make room cannot later in the pass either: the jobs
		 * after it are of its class or lower, so they may evict no more than it could. */
		if (s->o.queue == SIM_PRIORITY && s->o.preempt && preempt_for(s, idx) &&
		    find_place(s, j, &p)) {
			/* The evicted jobs join the queue after this pass (s->requeue). */
			s->queued--;
			start_job(s, idx, &p);
			continue;
		}
		s->sfail[sh] = s->pass;
		s->wait[w] = idx;
		s->wshape[w++] = sh;
	}
	s->nwait = w;
	for (size_t i = 0; i < s->nrequeue; i++)
		wait_add(s, s->requeue[i]);
	s->nrequeue = 0;
}

/*
 * schedule() when no room was freed since the last pass: every job that waited then failed
 * then and fails now (the cluster only got fuller; with preemption, what it could evict
 * grew by no more than what was placed), so only the jobs that arrived since are tried, in
 * the queue's order: the same outcome as a full pass, without walking the queue. When one
 * of them makes room by preemption, the rest of the queue is tried as the full pass would,
 * the shapes of the jobs before it counting as failed in this pass.
 */
static void schedule_fresh(struct sim *s)
{
	struct placement p;
	int preempt = s->o.queue == SIM_PRIORITY && s->o.preempt;
	s->dirty = 0;
	for (size_t a = 1; a < s->nfresh; a++) /* in queue order (class first for priority) */
		for (size_t b = a; b > 0 && wait_before(s, s->fresh[b], s->fresh[b - 1]); b--) {
			int32_t t = s->fresh[b];
			s->fresh[b] = s->fresh[b - 1];
			s->fresh[b - 1] = t;
		}
	for (size_t f = 0; f < s->nfresh; f++) {
		int32_t idx = s->fresh[f];
		struct sjob *sj = &s->jobs[idx];
		if (sj->state != SIM_JOB_QUEUED)
			continue;
		size_t pos = wait_find(s, idx);
		if (s->o.queue == SIM_FIFO && pos > 0)
			continue; /* behind the head */
		const struct job *j = src_job(s, sj);
		int gone = 0, made_room = 0;
		if (!(sj->flags & SJ_CHECKED) && never_fits(s, sj)) {
			mark_unplaceable(s, idx);
			gone = 1;
		} else if (find_place(s, j, &p)) {
			start_job(s, idx, &p);
			gone = 1;
		} else if (preempt && preempt_for(s, idx) && find_place(s, j, &p)) {
			start_job(s, idx, &p);
			gone = made_room = 1;
		}
		if (gone) {
			wait_close(s, pos, pos + 1);
			s->queued--;
		}
		if (made_room) {
			s->pass++;
			for (size_t i = 0; i < pos; i++)
				s->sfail[s->wshape[i]] = s->pass;
			pass_from(s, pos);
			break;
		}
	}
	s->nfresh = 0;
}

static void schedule(struct sim *s)
{
	s->idle_stale = 1;
	if (!s->freed) {
		schedule_fresh(s);
		return;
	}
	s->freed = 0;
	s->nfresh = 0;
	s->dirty = 0;
	s->pass++;
	pass_from(s, 0);
}

/* ---- events ---- */

/* Inflation: queue the next draw. Timed arrivals are not queued: they are read in order
 * from the job set (peek_event), which saves a push and a pop per job. */
static void push_arrival(struct sim *s)
{
	if (s->o.mode != SIM_INFLATE)
		return;
	double cap = (double)s->c.total[DIM_GPU];
	if ((double)s->k.requested_gpu >= s->o.target * cap || !s->js->njobs ||
	    s->njobs >= SIM_MAX_DRAWS)
		return;
	struct evq_event ev = {.time = (int64_t)s->njobs + 1, .prio = EV_ARRIVE, .kind = EV_ARRIVE};
	evq_push(&s->q, &ev);
}

/* The next event into *out: the queue's, or the next timed arrival when it comes first.
 * Only arrivals have prio EV_ARRIVE and at most one is pending, so (time, prio) orders them
 * against the queue as the queue would. Returns 0 if there is none, 1 from the queue, 2 the
 * arrival. */
static int peek_event(const struct sim *s, struct evq_event *out)
{
	const struct evq_event *top = evq_peek(&s->q);
	if (s->o.mode != SIM_INFLATE && s->next_arrival < s->js->njobs) {
		int64_t t = s->js->jobs[s->next_arrival].arrival;
		if (!top || t < top->time || (t == top->time && EV_ARRIVE < top->prio)) {
			*out = (struct evq_event){.time = t, .prio = EV_ARRIVE, .kind = EV_ARRIVE};
			return 2;
		}
	}
	if (!top)
		return 0;
	*out = *top;
	return 1;
}

/* peek_event, and take the event: an arrival is taken by on_arrive. */
static int pop_event(struct sim *s, struct evq_event *out)
{
	int r = peek_event(s, out);
	if (r == 1)
		evq_pop(&s->q, out);
	return r != 0;
}

static int32_t new_instance(struct sim *s, int32_t src)
{
	xgrow(&s->jobs, &s->jobcap, s->njobs + 1, sizeof *s->jobs);
	xgrow(&s->isubmit, &s->isubcap, s->njobs + 1, sizeof *s->isubmit);
	struct sjob *sj = &s->jobs[s->njobs];
	memset(sj, 0, sizeof *sj);
	sj->src = src;
	sj->why_dim = -1;
	sj->node = -1;
	s->isubmit[s->njobs] = s->k.now;
	if (s->js->jobs[src].cls < JOB_NCLASS)
		s->ncls[s->js->jobs[src].cls]++;
	sj->start = sj->end = -1;
	return (int32_t)s->njobs++;
}

static void on_arrive(struct sim *s)
{
	s->k.arrived++;
	if (s->o.mode == SIM_INFLATE) {
		int32_t src = (int32_t)rng_below(&s->rng, s->js->njobs);
		int32_t idx = new_instance(s, src);
		const struct job *j = &s->js->jobs[src];
		struct placement p;
		s->k.requested_gpu += job_gpu(j);
		if (find_place(s, j, &p)) {
			start_job(s, idx, &p);
		} else {
			s->jobs[idx].why = SIM_WHY_NO_ROOM;
			s->k.failed++;
			mark_unplaceable(s, idx);
		}
		double cap = (double)s->c.total[DIM_GPU];
		while (cap > 0 && s->next_pct <= (int)floor(s->o.target * 100 + 1e-9) &&
		       (double)s->k.requested_gpu * 100 >= (double)s->next_pct * cap) {
			emit_sample(s);
			s->next_pct++;
		}
	} else {
		int32_t idx = (int32_t)s->next_arrival++;
		const struct job *j = &s->js->jobs[idx];
		if ((j->flags & JOB_F_NOTRAN) || j->duration < 0) {
			s->jobs[idx].state = SIM_JOB_SKIPPED;
			s->k.skipped++;
		} else {
			assert(s->k.now == j->arrival); /* the submit time sim_job_result gives */
			wait_add(s, idx);
			xgrow(&s->fresh, &s->freshcap, s->nfresh + 1, sizeof *s->fresh);
			s->fresh[s->nfresh++] = idx;
		}
	}
	push_arrival(s);
}

static void on_finish(struct sim *s, int32_t idx)
{
	struct sjob *sj = &s->jobs[idx];
	const struct job *j = src_job(s, sj);
	int m = node_model(s, (size_t)sj->node);
	int64_t g = stop_job(s, idx);
	sj->state = SIM_JOB_FINISHED;
	sj->end = s->k.now;
	int64_t ran = sj->end - sj->start;
	if (m >= 0)
		s->k.prod_ms[m] += g * (j->duration < ran ? j->duration : ran);
	s->k.finished++;
	NOTIFY(s, on_finish, s->k.now, idx);
}

/* Capacity of node n on dim d now: the spec times the lowest active fault fraction. */
static void fault_apply(struct sim *s, size_t n, enum dim d)
{
	double frac = 1;
	for (size_t i = 0; i < s->nfaults; i++) {
		const struct sfault *f = &s->faults[i];
		if (!f->active || f->f.dim != d)
			continue;
		for (size_t k = 0; k < f->nnodes; k++)
			if ((size_t)f->nodes[k] == n && f->f.fraction < frac)
				frac = f->f.fraction;
	}
	cluster_set_cap(&s->c, n, d, (int64_t)floor((double)s->c.spec[n].cap[d] * frac));
	node_refresh(s, n);
	if (s->admit & DIM_BIT(d)) /* admission there may now let waiting jobs in */
		s->freed = s->dirty = 1;
}

static void fault_switch(struct sim *s, size_t i, int begin)
{
	struct sfault *f = &s->faults[i];
	f->active = begin;
	for (size_t k = 0; k < f->nnodes; k++) {
		size_t n = (size_t)f->nodes[k];
		s->nfault_on[n] = (uint16_t)(s->nfault_on[n] + (begin ? 1 : -1));
		if (begin) {
			const struct node_state *st = &s->c.st[n];
			for (int32_t j = 0; j < st->njobs; j++)
				f->jobs_hit += src_job(s, &s->jobs[st->jobs[j]])->dem[f->f.dim] > 0;
		}
		fault_apply(s, n, f->f.dim);
	}
	NOTIFY(s, on_fault, s->k.now, i, begin);
}

/* Resolve fault f's target (node name, group, or GPU model) and push its events. */
static int fault_add(struct sim *s, const struct fault *f, struct err *e)
{
	struct sfault sf = {.f = *f};
	int model = gpumodel_find(f->target);
	for (size_t n = 0; n < s->c.n; n++) {
		const struct node *sp = &s->c.spec[n];
		if (!strcmp(sp->name, f->target) ||
		    (sp->group[0] && !strcmp(sp->group, f->target)) ||
		    (model >= 0 && sp->model == model && sp->ngpu > 0)) {
			sf.nodes = xrealloc(sf.nodes, (sf.nnodes + 1) * sizeof *sf.nodes);
			sf.nodes[sf.nnodes++] = (int32_t)n;
		}
	}
	if (!s->nfault_on)
		s->nfault_on = xcalloc(s->c.n ? s->c.n : 1, sizeof *s->nfault_on);
	if (!sf.nnodes) {
		char buf[160];
		fault_format(f, buf, sizeof buf);
		return err_set(e, VF_EINPUT,
			       "fault '%s': '%s' names no node, group or GPU model here", buf,
			       f->target);
	}
	s->faults = xrealloc(s->faults, (s->nfaults + 1) * sizeof *s->faults);
	size_t i = s->nfaults++;
	s->faults[i] = sf;
	int64_t end = f->start + f->duration;
	if (end <= s->k.now)
		return VF_OK; /* already over */
	if (f->start <= s->k.now)
		fault_switch(s, i, 1);
	else if (f->start <= s->t_max) {
		struct evq_event ev = {.time = f->start,
				       .prio = EV_FAULT_START,
				       .kind = EV_FAULT_START,
				       .arg = (int32_t)i};
		evq_push(&s->q, &ev);
		s->nfault_ev++;
	}
	if (f->start <= s->t_max && end <= s->t_max) { /* else it lasts the whole run */
		struct evq_event ev = {
			.time = end, .prio = EV_FAULT_END, .kind = EV_FAULT_END, .arg = (int32_t)i};
		evq_push(&s->q, &ev);
		s->nfault_ev++;
	}
	return VF_OK;
}

/* ---- life cycle ---- */

static int same_spec(const struct node *a, const struct node *b)
{
	return a->ngpu == b->ngpu && a->model == b->model && !memcmp(a->cap, b->cap, sizeof a->cap);
}

/* policy_ctx.job_of: the job behind instance jobidx. */
static const struct job *ctx_job_of(const void *u, int32_t jobidx)
{
	const struct sim *s = u;
	assert(jobidx >= 0 && (size_t)jobidx < s->njobs);
	return src_job(s, &s->jobs[jobidx]);
}

/* The policy's own target workload, when it declares one; its per-node data is filled by
 * node_refresh (own_refresh). */
static void own_setup(struct sim *s)
{
	s->own = NULL;
	if (!(s->ops->target_coverage > 0))
		return;
	assert(!(s->ops->flags & POLICY_F_NODE_MD));
	struct own_target *t = xcalloc(1, sizeof *t);
	size_t nn = s->c.n ? s->c.n : 1;
	frag_workload_build(&t->wl, s->js->jobs, s->js->njobs, s->ops->target_coverage);
	t->wl.allowed_only = s->ops->target_allowed_only;
	t->frag = xcalloc(nn, sizeof *t->frag);
	t->fnofit = xcalloc(nn, sizeof *t->fnofit);
	s->own = t;
}

static void own_free(struct own_target *t)
{
	if (!t)
		return;
	frag_workload_release(&t->wl);
	free(t->frag);
	free(t->fnofit);
	free(t);
}

static void setup_derived(struct sim *s)
{
	s->ctx.c = &s->c;
	s->ctx.wl = s->wl;
	s->ctx.node_frag = s->nfrag;
	s->ctx.node_fnofit = s->wl ? s->nfnofit : NULL;
	s->ctx.dims = s->o.dims ? s->o.dims : s->ops->dims;
	uint32_t own =
		(s->ops->flags & POLICY_F_IO_ADMIT) ? DIM_BIT(DIM_STO) | DIM_BIT(DIM_IOCPU) : 0;
	s->admit = s->o.io_admission < 0 ? own : s->o.io_admission ? DIMS_SHARED : 0;
	s->admit &= s->ctx.dims & DIMS_SHARED;
	s->ctx.admit = s->admit;
	s->ctx.node_md = s->ctx.node_nofit = NULL;
	s->ctx.node_fits = s->wl ? (const uint64_t(*)[2])s->nfits : NULL;
	if (s->wl && (s->ops->flags & POLICY_F_NODE_MD)) {
		/* nmd is over all dims; other dims have their own arrays */
		int all = (s->ctx.dims & DIMS_ALL) == DIMS_ALL;
		s->ctx.node_md = all ? s->nmd : s->pmd;
		s->ctx.node_nofit = all ? s->nnofit : s->pnofit;
		s->ctx.node_fits = (const uint64_t(*)[2])(all ? s->nfits : s->pfits);
	}
	if (s->own) {
		s->ctx.wl = &s->own->wl;
		s->ctx.node_frag = s->own->frag;
		s->ctx.node_fnofit = s->own->fnofit;
		s->ctx.node_fits = NULL;
	}
	s->ctx.lambda = s->o.lambda;
	s->ctx.mu = s->o.mu;
	s->ctx.rng = &s->rng;
	s->ctx.job_of = ctx_job_of;
	s->ctx.job_of_u = s;
	/* Sampled searches score nodes (identical nodes are pruned by their bound): the
	 * classes would cost more to keep than they save. */
	s->sampled = s->o.sample_nodes && s->o.sample_nodes < s->c.n;
	/* k8s scoring never calls pick(): first-fit's plugin then searches by class, as fgd's,
	 * instead of scoring every feasible node (6x fgd on openb inflation) */
	s->use_cls = (s->ops->flags & POLICY_F_BY_STATE) &&
		     (!s->ops->pick || s->o.scoring == SIM_SCORING_K8S) && !s->sampled;
}

/* The policy's per-node prep records (policy_ops.prep), made for s's policy (none without a
 * workload): filled for every node if fill, else left to the first node_refresh of each. */
static void prep_setup(struct sim *s, int fill)
{
	s->nprep = NULL;
	s->ctx.node_prep = NULL;
	if (!s->ops->prep || !s->wl)
		return;
	assert(s->ops->prep_size > 0);
	s->nprep = xcalloc(s->c.n ? s->c.n : 1, s->ops->prep_size);
	s->ctx.node_prep = s->nprep;
	for (size_t n = 0; fill && n < s->c.n; n++)
		s->ops->prep(&s->ctx, n, s->nprep + n * s->ops->prep_size);
}

/* Shape indexes the class search keeps: more for a policy whose bound is dear. */
static size_t shape_indexes(const struct policy_ops *ops)
{
	return ops->flags & POLICY_F_DEAR_BOUND ? SIM_KEYS_DEAR : SIM_KEYS;
}

/* Can inflation reach its target in SIM_MAX_DRAWS draws, as an average draw asks? A trace
 * whose jobs ask for no GPU never would: it would draw until memory runs out. */
static int inflate_check(const struct sim *s, struct err *e)
{
	double need = s->o.target * (double)s->c.total[DIM_GPU], pool = 0;
	for (size_t i = 0; i < s->js->njobs; i++)
		pool += (double)job_gpu(&s->js->jobs[i]);
	if (need <= 0 || !s->js->njobs)
		return VF_OK; /* nothing to draw */
	if (pool <= 0)
		return err_set(e, VF_EINPUT,
			       "inflation: no job of the trace asks for a GPU, so no draw brings "
			       "the load nearer its target of %g",
			       s->o.target);
	double draws = need / (pool / (double)s->js->njobs);
	if (draws > (double)SIM_MAX_DRAWS)
		return err_set(e, VF_EINPUT,
			       "inflation: a target of %g takes about %.3g draws of this trace's "
			       "jobs (%.3g GPU each on average), more than %zu",
			       s->o.target, draws, pool / (double)s->js->njobs / 1000,
			       (size_t)SIM_MAX_DRAWS);
	return VF_OK;
}

int sim_new(const struct job_set *js, const struct policy_ops *ops, const struct frag_workload *wl,
	    const struct sim_opts *o, struct sim **out, struct err *e)
{
	struct sim *s = xcalloc(1, sizeof *s);
	int rc = VF_OK;
	*out = NULL;
	assert(ops && ops->score);
	s->js = js;
	s->ops = ops;
	s->wl = wl;
	s->o = *o;
	s->o.faults = NULL;
	s->o.nfaults = 0;
	rng_seed(&s->rng, o->seed);
	rng_seed(&s->srng, rng_hash(o->seed, SAMPLE_SALT, 0));
	cluster_init(&s->c, js->nodes, js->nnodes);
	evq_init(&s->q);
	size_t nn = js->nnodes ? js->nnodes : 1;
	s->nfrag = xcalloc(nn, sizeof *s->nfrag);
	s->nmd = xcalloc(nn, sizeof *s->nmd);
	s->nnofit = xcalloc(nn, sizeof *s->nnofit);
	s->nfnofit = xcalloc(nn, sizeof *s->nfnofit);
	s->nfits = xcalloc(nn, sizeof *s->nfits);
	if (wl && (ops->flags & POLICY_F_NODE_MD) &&
	    ((o->dims ? o->dims : ops->dims) & DIMS_ALL) != DIMS_ALL) {
		s->pmd = xcalloc(nn, sizeof *s->pmd);
		s->pnofit = xcalloc(nn, sizeof *s->pnofit);
		s->pfits = xcalloc(nn, sizeof *s->pfits);
	}
	s->nstr = xcalloc(nn, sizeof *s->nstr);
	s->contended = xcalloc(nn, 1);
	own_setup(s);
	setup_derived(s);
	prep_setup(s, 0);
	if (s->use_cls)
		sim_classes_init(&s->cls, &s->c, shape_indexes(ops));
	if ((rc = k8s_setup(s, NULL, e)))
		goto fail;
	/* One empty node per spec class answers "could it ever fit?". */
	uint32_t present = 0; /* bit m: a node of GPU model m */
	for (size_t n = 0; n < js->nnodes; n++) {
		size_t r = 0;
		while (r < s->nreps && !same_spec(&s->reps[r], &js->nodes[n]))
			r++;
		if (r == s->nreps) {
			s->reps = xrealloc(s->reps, (s->nreps + 1) * sizeof *s->reps);
			s->reps[s->nreps++] = js->nodes[n];
		}
		int m = node_model(s, n);
		if (m >= 0) {
			s->k.gpu_cap[m] += js->nodes[n].cap[DIM_GPU];
			present |= 1u << m;
		}
	}
	for (int m = 0; m < GPUMODEL_MAX; m++)
		if (present >> m & 1)
			s->models[s->nmodels++] = (int8_t)m;
	cluster_init(&s->empty, s->reps, s->nreps);
	/* The smallest demand of the target workload on each hard dim ("exhausted" below). */
	for (int d = 0; d < DIM_N; d++)
		s->min_dem[d] = 1;
	if (wl) {
		int64_t mn[DIM_N];
		for (int d = 0; d < DIM_N; d++)
			mn[d] = INT64_MAX;
		for (size_t i = 0; i < wl->n; i++) {
			const struct frag_shape *sh = &wl->shapes[i];
			for (int d = 0; d < DIM_N; d++) {
				int64_t v = sh->dem[d];
				if (d == DIM_GPU)
					v = sh->num_gpu > 0 ? sh->gpu_milli : 0;
				else if (d == DIM_HBM)
					v = sh->num_gpu > 0 && v > 0 ? v / sh->num_gpu : 0;
				if (v > 0 && v < mn[d])
					mn[d] = v;
			}
		}
		for (int d = 0; d < DIM_N; d++)
			if (mn[d] != INT64_MAX)
				s->min_dem[d] = mn[d];
	}
	for (size_t n = 0; n < js->nnodes; n++)
		node_refresh(s, n);
	if (o->mode != SIM_TIMED) /* timed: checked in the pass below */
		for (size_t i = 0; i < js->njobs; i++)
			job_assert_enriched(&js->jobs[i]);
	if (o->mode == SIM_TIMED) {
		s->jobcap = js->njobs;
		s->njobs = 0;
		s->jobs = xmalloc_big((js->njobs ? js->njobs : 1) * sizeof *s->jobs);
		s->jshape = xmalloc_big((js->njobs ? js->njobs : 1) * sizeof *s->jshape);
		/* new_instance() in one pass, without its growth check: every field written */
		for (size_t i = 0; i < js->njobs; i++) {
			assert(i == 0 || js->jobs[i].arrival >= js->jobs[i - 1].arrival);
			job_assert_enriched(&js->jobs[i]);
			if (js->jobs[i].cls < JOB_NCLASS)
				s->ncls[js->jobs[i].cls]++;
			s->jobs[i] = (struct sjob){.src = (int32_t)i,
						   .why_dim = -1,
						   .node = -1,
						   .start = -1,
						   .end = -1};
			s->jshape[i] = -1;
		}
		s->njobs = js->njobs;
		s->k.now = js->njobs ? js->jobs[0].arrival : 0;
		if (o->series_points > 0 && js->njobs) {
			int64_t span = js->jobs[js->njobs - 1].arrival - js->jobs[0].arrival;
			s->sample_iv = span / o->series_points;
			if (s->sample_iv < 1)
				s->sample_iv = 1;
			struct evq_event ev = {
				.time = s->k.now, .prio = EV_SAMPLE, .kind = EV_SAMPLE};
			evq_push(&s->q, &ev);
		}
	}
	s->k.t0 = s->k.now;
	int64_t span = SIM_SPAN_MAX / (s->c.total[DIM_GPU] > 0 ? s->c.total[DIM_GPU] : 1);
	s->t_max = s->k.t0 < SIM_T_MAX - span ? s->k.t0 + span : SIM_T_MAX;
	s->k.carry_jobs = -1;
	s->idle_stale = 1;
	if (o->mode == SIM_TIMED) {
		s->k.w0 = o->win_start >= 0 ? o->win_start : s->k.t0;
		s->k.w1 = o->win_end >= 0 ? o->win_end
					  : (js->njobs ? js->jobs[js->njobs - 1].arrival : s->k.t0);
		if (o->win_end < 0 && s->k.w1 <= s->k.w0) { /* all arrive at once */
			int64_t dmax = 1;
			for (size_t i = 0; i < js->njobs; i++)
				dmax = js->jobs[i].duration > dmax ? js->jobs[i].duration : dmax;
			s->k.w1 = dmax < s->t_max - s->k.w0 ? s->k.w0 + dmax : s->t_max;
		}
		if (s->k.w1 > s->t_max) /* the run never reaches past it */
			s->k.w1 = s->k.w0 < s->t_max ? s->t_max : s->k.w0;
	}
	for (size_t i = 0; i < o->nfaults && !rc; i++)
		rc = fault_add(s, &o->faults[i], e);
	if (rc || (o->mode == SIM_INFLATE && (rc = inflate_check(s, e))))
		goto fail;
	push_arrival(s);
	*out = s;
	return VF_OK;
fail:
	sim_free(s);
	return rc;
}

void sim_free(struct sim *s)
{
	if (!s)
		return;
	cluster_release(&s->c);
	cluster_release(&s->empty);
	sim_classes_release(&s->cls);
	evq_release(&s->q);
	for (size_t i = 0; i < s->nfaults; i++)
		free(s->faults[i].nodes);
	free(s->faults);
	free(s->nfault_on);
	free(s->reps);
	free(s->jobs);
	free(s->isubmit);
	free(s->runs);
	free(s->rfree);
	free(s->pre);
	free(s->wbuf);
	free(s->wsbuf);
	free(s->jshape);
	free(s->stab);
	free(s->sfail);
	free(s->requeue);
	free(s->fresh);
	free(s->cand);
	free(s->met);
	free(s->nfrag);
	free(s->nmd);
	free(s->nnofit);
	free(s->nfnofit);
	free(s->pmd);
	free(s->pnofit);
	free(s->nfits);
	free(s->pfits);
	free(s->nprep);
	free(s->nstr);
	free(s->contended);
	own_free(s->own);
	k8s_release(s->k8s);
	free(s);
}

void sim_observe(struct sim *s, const struct sim_observer *obs)
{
	assert(s->nobs < SIM_MAX_OBSERVERS);
	s->obs[s->nobs++] = *obs;
}

/* Is there anything left to replay? */
static int work_left(const struct sim *s)
{
	if (s->o.mode == SIM_INFLATE)
		return evq_len(&s->q) > 0;
	return s->next_arrival < s->js->njobs || s->running > 0 || s->queued > 0;
}

/* Timed: can nothing change any more? No arrival is left, no fault starts or ends, no
 * running instance has a completion to come (each runs at rate 0, or ends past t_max), and
 * the last schedule pass has run: the waiting jobs would wait for ever. Only samples may be
 * queued, and they would go on to the horizon. */
static int stuck(const struct sim *s)
{
	return s->o.mode == SIM_TIMED && !s->dirty && s->next_arrival >= s->js->njobs &&
	       s->running == s->nnoend && !s->nfault_ev;
}

/* End a stuck run: nothing changes to the window's end, so the clock goes there (the
 * window's integrals are those of the state now), and what runs or waits is carried over. */
static void end_stuck(struct sim *s)
{
	if (s->k.now < s->k.w1)
		advance(s, s->k.w1);
	if (s->k.carry_jobs < 0)
		carry_over(s);
	s->k.stuck = s->running + s->queued;
	s->over = 1;
}

static int event_live(const struct evq_event *ev, void *u)
{
	const struct sim *s = u;
	return ev->kind != EV_FINISH ||
	       (s->jobs[ev->arg].ver == ev->ver && s->jobs[ev->arg].state == SIM_JOB_RUNNING);
}

/* Take the completions that moved (stale) off the top of the queue: what is next is then
 * a live event. */
static void drop_stale(struct sim *s)
{
	struct evq_event nx;
	while (peek_event(s, &nx) == 1 && !event_live(&nx, s))
		evq_pop(&s->q, &nx);
}

/*
 * Schedule once the queue has changed and every event of this instant is handled (the
 * next live one is later). A pass that preempts requeues the jobs it evicted, and they may
 * start in a pass of their own: passes repeat until one leaves nothing to do. Each
 * preemption trades running work of a lower class for a higher one, so this ends; the
 * bound is a guard. How many passes run depends on the state only, not on how the caller
 * steps nor on the stale events still queued.
 */
#define SCHED_MAX_PASSES 64
static void maybe_schedule(struct sim *s)
{
	struct evq_event nx;
	if (!s->dirty)
		return;
	drop_stale(s);
	if (peek_event(s, &nx) && nx.time <= s->k.now)
		return;
	for (int i = 0; s->dirty && i < SCHED_MAX_PASSES; i++)
		schedule(s);
	s->dirty = 0;
}

/* A hint, no effect on results: ask for the records the next event will read while this
 * one is handled. A finish reads its job's instance and trace job, cold since it started
 * (a cache miss each on a large run; a timed instance's job is at its own index), and its
 * node's state (the event carries the node): the lines of used[], of the first GPUs'
 * free milli and HBM, and of the job list. */
static void prefetch_next(const struct sim *s)
{
#if defined(__GNUC__)
	const struct evq_event *top = evq_peek(&s->q);
	if (!top || top->kind != EV_FINISH)
		return;
	const char *sj = (const char *)&s->jobs[top->arg];
	__builtin_prefetch(sj);
	__builtin_prefetch(sj + sizeof(struct sjob) - 1);
	if (s->o.mode == SIM_TIMED) {
		const char *j = (const char *)&s->js->jobs[top->arg];
		__builtin_prefetch(j);
		__builtin_prefetch(j + sizeof(struct job) - 1);
	}
	const struct node_state *st = &s->c.st[top->aux];
	__builtin_prefetch(&st->used);
	__builtin_prefetch(&st->gpu_free);
	__builtin_prefetch(&st->hbm_free);
	__builtin_prefetch(&st->hbm_free[8]);
	__builtin_prefetch(&st->jobs);
#else
	(void)s;
#endif
}

int sim_step(struct sim *s)
{
	/* Contention moves completions; the old events stay in the queue until popped. When
	 * they outnumber the live ones (at most one per running job, the next arrival, the
	 * next sample, two per fault), purge them so the queue stays small. */
	size_t live = (size_t)s->running + 2 + 2 * s->nfaults;
	if (evq_len(&s->q) > 2 * live + 1024)
		evq_filter(&s->q, event_live, s);

	for (;;) {
		if (s->over)
			return 0;
		if (s->o.mode == SIM_INFLATE && s->next_pct == 0) {
			emit_sample(s); /* load 0 */
			s->next_pct = 1;
		}
		maybe_schedule(s);
		struct evq_event ev;
		if (work_left(s) && stuck(s)) {
			end_stuck(s);
			return 0;
		}
		if (!work_left(s) || !pop_event(s, &ev)) {
			s->over = 1;
			return 0;
		}
		prefetch_next(s);
		if (ev.kind == EV_FINISH &&
		    (s->jobs[ev.arg].ver != ev.ver || s->jobs[ev.arg].state != SIM_JOB_RUNNING))
			continue; /* stale: the job's completion moved */
		advance(s, ev.time);
		switch (ev.kind) {
		case EV_FINISH:
			on_finish(s, ev.arg);
			break;
		case EV_FAULT_END:
		case EV_FAULT_START:
			s->nfault_ev--;
			fault_switch(s, (size_t)ev.arg, ev.kind == EV_FAULT_START);
			break;
		case EV_ARRIVE:
			on_arrive(s);
			break;
		case EV_SAMPLE:
			emit_sample(s);
			/* a bounded series however long the run: the cadence doubles every
			 * 2 x series_points samples */
			if (++s->nsamples % (2 * s->o.series_points) == 0 &&
			    s->sample_iv <= s->t_max / 2)
				s->sample_iv *= 2;
			if (work_left(s) && s->sample_iv <= s->t_max - s->k.now) {
				struct evq_event nx = {.time = s->k.now + s->sample_iv,
						       .prio = EV_SAMPLE,
						       .kind = EV_SAMPLE};
				evq_push(&s->q, &nx);
			}
			break;
		default:
			assert(!"unknown event");
		}
		if (ev.kind != EV_SAMPLE)
			s->k.events++;
		s->idle_stale = 1;
		maybe_schedule(s);
		return 1;
	}
}

int64_t sim_next_time(const struct sim *s)
{
	struct evq_event nx;
	return s->over || !work_left(s) || !peek_event(s, &nx) ? -1 : nx.time;
}

int sim_step_until(struct sim *s, int64_t t)
{
	/* the top may be a completion that moved (stale): sim_step would skip it and handle
	 * the next live event, which may be past t */
	drop_stale(s);
	int64_t nt = sim_next_time(s);
	return nt >= 0 && nt <= t && sim_step(s);
}

int sim_run_until(struct sim *s, int64_t t)
{
	while (sim_step_until(s, t))
		;
	if (!s->over && work_left(s)) {
		maybe_schedule(s);
		advance(s, t);
	}
	return !sim_done(s);
}

void sim_run(struct sim *s)
{
	while (sim_step(s))
		;
}

int sim_done(const struct sim *s)
{
	return s->over || !work_left(s);
}

/* A copy of the n elements of size sz at p, in room for cap of them (at least one). */
static void *copy_of(const void *p, size_t n, size_t cap, size_t sz)
{
	void *q = xmalloc((cap ? cap : 1) * sz);
	if (n)
		memcpy(q, p, n * sz);
	return q;
}

void sim_change_init(struct sim_change *ch)
{
	ch->dims = 0;
	ch->lambda = ch->mu = NAN;
	ch->queue = ch->preempt = -1;
}

/* The fit shapes depend on the admitted dims: after a change of dims, forget them and give
 * the waiting jobs theirs again (a new pass, so no shape counts as failed in it). */
static void reshape(struct sim *s)
{
	if (!s->jshape)
		return;
	for (size_t i = 0; i < s->njobs; i++)
		s->jshape[i] = -1;
	for (size_t i = 0; i < s->stabcap; i++)
		s->stab[i].id = -1;
	s->nshapes = 0;
	for (size_t i = 0; i < s->nwait; i++)
		s->wshape[i] = shape_of(s, s->wait[i]);
	s->pass++;
}

/* The waiting jobs in the order of the queue discipline now in force. */
static void requeue_all(struct sim *s)
{
	for (size_t a = 1; a < s->nwait; a++)
		for (size_t b = a; b > 0 && wait_before(s, s->wait[b], s->wait[b - 1]); b--) {
			int32_t t = s->wait[b], u = s->wshape[b];
			s->wait[b] = s->wait[b - 1];
			s->wshape[b] = s->wshape[b - 1];
			s->wait[b - 1] = t;
			s->wshape[b - 1] = u;
		}
}

int sim_fork(const struct sim *s, const struct policy_ops *ops, const struct fault *fault,
	     struct sim **out, struct err *e)
{
	return sim_fork_with(s, ops, fault, NULL, out, e);
}

int sim_fork_with(const struct sim *s, const struct policy_ops *ops, const struct fault *fault,
		  const struct sim_change *ch, struct sim **out, struct err *e)
{
	struct sim *f = xmalloc(sizeof *f);
	int rc = VF_OK;
	size_t nn = s->c.n ? s->c.n : 1;
	*f = *s;
	f->nobs = 0;
	cluster_clone(&f->c, &s->c);
	f->reps = copy_of(s->reps, s->nreps, s->nreps, sizeof *f->reps);
	cluster_clone(&f->empty, &s->empty);
	f->empty.spec = f->reps;
	evq_clone(&f->q, &s->q);
	f->jobs = copy_of(s->jobs, s->njobs, s->jobcap, sizeof *f->jobs);
	f->isubmit =
		s->isubmit ? copy_of(s->isubmit, s->njobs, s->isubcap, sizeof *f->isubmit) : NULL;
	f->runs = copy_of(s->runs, s->nruns, s->runcap, sizeof *f->runs);
	f->rfree = copy_of(s->rfree, s->nrfree, s->rfreecap, sizeof *f->rfree);
	f->pre = s->pre ? copy_of(s->pre, s->precap, s->precap, sizeof *f->pre) : NULL;
	f->wait = f->wbuf = copy_of(s->wait, s->nwait, s->waitcap, sizeof *f->wbuf);
	f->wshape = f->wsbuf = copy_of(s->wshape, s->nwait, s->waitcap, sizeof *f->wsbuf);
	f->whead = 0;
	f->jshape = s->jshape ? copy_of(s->jshape, s->njobs, s->jobcap, sizeof *f->jshape) : NULL;
	f->stab = copy_of(s->stab, s->stabcap, s->stabcap, sizeof *f->stab);
	f->sfail = copy_of(s->sfail, s->nshapes, s->sfailcap, sizeof *f->sfail);
	f->requeue = NULL;
	f->nrequeue = f->requeuecap = 0;
	f->cand = NULL; /* scratch */
	f->met = NULL;
	f->candcap = f->metcap = 0;
	f->fresh = copy_of(s->fresh, s->nfresh, s->freshcap, sizeof *f->fresh);
	f->faults = xmalloc((s->nfaults ? s->nfaults : 1) * sizeof *f->faults);
	for (size_t i = 0; i < s->nfaults; i++) {
		f->faults[i] = s->faults[i];
		f->faults[i].nodes = xmalloc(s->faults[i].nnodes * sizeof(int32_t));
		memcpy(f->faults[i].nodes, s->faults[i].nodes,
		       s->faults[i].nnodes * sizeof(int32_t));
	}
	f->nfault_on =
		s->nfault_on ? copy_of(s->nfault_on, s->c.n, s->c.n, sizeof *f->nfault_on) : NULL;
	f->nfrag = copy_of(s->nfrag, s->c.n, s->c.n, sizeof *f->nfrag);
	f->nmd = copy_of(s->nmd, s->c.n, s->c.n, sizeof *f->nmd);
	f->nnofit = copy_of(s->nnofit, s->c.n, s->c.n, sizeof *f->nnofit);
	f->nfnofit = copy_of(s->nfnofit, s->c.n, s->c.n, sizeof *f->nfnofit);
	f->nfits = copy_of(s->nfits, s->c.n, s->c.n, sizeof *f->nfits);
	f->nstr = copy_of(s->nstr, s->c.n, s->c.n, sizeof *f->nstr);
	f->contended = copy_of(s->contended, s->c.n, s->c.n, 1);
	if (ops)
		f->ops = ops;
	uint32_t admit_was = f->admit;
	int queue_was = f->o.queue;
	if (ch) {
		if (ch->dims)
			f->o.dims = ch->dims;
		if (!isnan(ch->lambda))
			f->o.lambda = ch->lambda;
		if (!isnan(ch->mu))
			f->o.mu = ch->mu;
		if (ch->queue >= 0)
			f->o.queue = (enum sim_queue)ch->queue;
		if (ch->preempt >= 0)
			f->o.preempt = ch->preempt;
		f->o.preempt &= f->o.queue == SIM_PRIORITY;
	}
	f->pmd = f->pnofit = NULL;
	f->pfits = NULL;
	uint32_t dims = f->o.dims ? f->o.dims : f->ops->dims;
	if (f->wl && (f->ops->flags & POLICY_F_NODE_MD) && (dims & DIMS_ALL) != DIMS_ALL) {
		f->pmd = xmalloc(nn * sizeof *f->pmd);
		f->pnofit = xmalloc(nn * sizeof *f->pnofit);
		f->pfits = xmalloc(nn * sizeof *f->pfits);
		for (size_t n = 0; n < f->c.n; n++)
			frag_node_eval(&f->c, n, f->wl, dims, &f->pmd[n], &f->pnofit[n], NULL,
				       f->pfits[n]);
	}
	own_setup(f);
	for (size_t n = 0; f->own && n < f->c.n; n++)
		own_refresh(f->own, &f->c, n);
	setup_derived(f);
	prep_setup(f, 1);
	memset(&f->cls, 0, sizeof f->cls);
	if (f->use_cls)
		sim_classes_init(&f->cls, &f->c, shape_indexes(f->ops));
	if (f->admit != admit_was)
		reshape(f);
	if ((int)f->o.queue != queue_was)
		requeue_all(f);
	if (ch) { /* the waiting jobs meet the new rules at the next schedule: a full pass */
		f->freed = 1;
		f->dirty = f->nwait > 0;
		f->idle_stale = 1;
	}
	f->k8s = NULL;
	rc = k8s_setup(f, s->k8s ? &s->k8s->rng : NULL, e);
	if (rc || (fault && (rc = fault_add(f, fault, e)))) {
		sim_free(f);
		f = NULL;
	}
	*out = f;
	return rc;
}

/* ---- read access ---- */

const struct sim_counters *sim_counters(const struct sim *s)
{
	return &s->k;
}

const struct cluster *sim_cluster(const struct sim *s)
{
	return &s->c;
}

const struct job_set *sim_jobs(const struct sim *s)
{
	return s->js;
}

const struct policy_ops *sim_policy(const struct sim *s)
{
	return s->ops;
}

const struct sim_opts *sim_options(const struct sim *s)
{
	return &s->o;
}

const struct fault *sim_faults(const struct sim *s, size_t *n)
{
	*n = s->nfaults;
	return s->nfaults ? &s->faults[0].f : NULL;
}

const struct fault *sim_fault(const struct sim *s, size_t i)
{
	assert(i < s->nfaults);
	return &s->faults[i].f;
}

int64_t sim_fault_jobs(const struct sim *s, size_t i)
{
	assert(i < s->nfaults);
	return s->faults[i].jobs_hit;
}

const struct frag_workload *sim_workload(const struct sim *s)
{
	return s->wl;
}

const double *sim_node_frag(const struct sim *s)
{
	return s->nfrag;
}

size_t sim_njobs(const struct sim *s)
{
	return s->njobs;
}

size_t sim_njobs_class(const struct sim *s, int cls)
{
	assert(cls >= 0 && cls < JOB_NCLASS);
	return s->ncls[cls];
}

void sim_job_result(const struct sim *s, size_t i, struct sim_job_result *r)
{
	assert(i < s->njobs);
	const struct sjob *sj = &s->jobs[i];
	const struct job *j = src_job(s, sj);
	memset(r, 0, sizeof *r);
	r->job_id = j->id;
	r->src = sj->src;
	r->state = sj->state;
	r->why = sj->why;
	r->why_dim = sj->why_dim;
	r->cls = j->cls;
	r->node = sj->node;
	r->npreempt = i < s->precap ? s->pre[i].n : 0;
	r->submit = s->isubmit ? s->isubmit[i] : j->arrival;
	r->start = sj->start;
	r->end = sj->state == SIM_JOB_FINISHED ? sj->end : -1;
	r->t_alone = j->duration;
	r->gpu_milli = job_gpu(j);
	r->gpus = sj->state == SIM_JOB_RUNNING ? sj->gpus : 0;
	r->lost_gpu_s = (double)(i < s->precap ? s->pre[i].lost_ms : 0) / 1000;
	double g = (double)r->gpu_milli;
	if (sj->state == SIM_JOB_RUNNING && s->o.mode == SIM_INFLATE) {
		r->rate = 1; /* inflation has no durations: nothing progresses or stalls */
	} else if (sj->state == SIM_JOB_RUNNING) {
		r->work_left = work_now(s, sj);
		r->rate = run_now(s, sj).rate;
		double elapsed = (double)(s->k.now - sj->start);
		double done = (double)j->duration - r->work_left;
		r->stalled_gpu_s = elapsed > done ? g * (elapsed - done) / 1000 : 0;
	} else if (sj->state == SIM_JOB_FINISHED) {
		int64_t ran = sj->end - sj->start;
		r->slowdown = j->duration > 0 ? (double)ran / (double)j->duration : 1;
		r->stalled_gpu_s = ran > j->duration ? g * (double)(ran - j->duration) / 1000 : 0;
	}
}

void sim_now(struct sim *s, struct sim_now *out)
{
	memset(out, 0, sizeof *out);
	if (s->idle_stale)
		classify_idle(s); /* what advance_window would decide: the state is the same */
	out->gpu_cap = s->c.total[DIM_GPU];
	for (int i = 0; i < s->nmodels; i++) {
		out->alloc += s->alloc_now[s->models[i]];
		out->frag += s->sum_frag[s->models[i]];
	}
	out->stalled = s->stall_now;
	out->frag_md = s->c.n ? s->sum_md / (double)s->c.n : 0;
	out->idle_cause = s->idle_cause;
	out->queued = s->queued;
	out->running = s->running;
}

const int64_t (*sim_node_stranded(const struct sim *s))[DIM_N]
{
	return (const int64_t(*)[DIM_N])s->nstr;
}

void sim_snapshot(const struct sim *s, struct sim_snapshot *out)
{
	size_t nn = s->c.n ? s->c.n : 1;
	memset(out, 0, sizeof *out);
	out->now = s->k.now;
	out->nnodes = s->c.n;
	out->free = xmalloc(nn * sizeof *out->free);
	out->cap = xmalloc(nn * sizeof *out->cap);
	out->frag = xmalloc(nn * sizeof *out->frag);
	for (size_t n = 0; n < s->c.n; n++) {
		for (int d = 0; d < DIM_N; d++) {
			out->cap[n][d] = s->c.st[n].cap[d];
			out->free[n][d] = s->c.st[n].cap[d] - s->c.st[n].used[d];
		}
		out->frag[n] = s->nfrag[n];
	}
	out->nqueued = s->nwait;
	out->queue = xmalloc((s->nwait ? s->nwait : 1) * sizeof *out->queue);
	memcpy(out->queue, s->wait, s->nwait * sizeof *out->queue);
	out->running = xmalloc((size_t)(s->running ? s->running : 1) * sizeof *out->running);
	for (size_t i = 0; i < s->njobs; i++)
		if (s->jobs[i].state == SIM_JOB_RUNNING)
			out->running[out->nrunning++] = (int32_t)i;
	assert(out->nrunning == (size_t)s->running);
	out->counters = s->k;
}

void sim_snapshot_release(struct sim_snapshot *snap)
{
	if (!snap)
		return;
	free(snap->free);
	free(snap->cap);
	free(snap->frag);
	free(snap->queue);
	free(snap->running);
	memset(snap, 0, sizeof *snap);
}
