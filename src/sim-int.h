/*
 * sim-int.h — the simulator's parts; private to sim*.c (the engine's public face is sim.h).
 *
 * struct sim is the event loop's few scalars (sim.c) and one sub-struct per part. A part
 * owns its memory, and the file that keeps its state owns its life cycle:
 *
 *   part              file         what it holds
 *   inst  sim_insts   sim.c        job instances, their runs (slots), preemptions, rates
 *   wq    sim_wait    sim-queue.c  the waiting queue, fit shapes, the passes' scratch
 *   node  sim_nodes   sim-node.c   per node F_n, multi-dim, stranded; sums; spec classes
 *   fault sim_faults  sim-node.c   the faults, which nodes they hit, active per node
 *   pol   sim_pol     sim-place.c  the policy, its context and what it sees per node
 *   k8s   sim_k8s     sim-k8s.c    kube-scheduler plugins (--scoring k8s), or NULL
 *   idle  sim_idle    sim-idle.c   why free GPUs idle now (no memory of its own)
 *   (gangs: a running gang's worker placements are in inst, sim.c; their search, the
 *   rollback, the "whole cluster empty" check and the EASY reservation are sim-gang.c's)
 *
 * The rule (a new owned array cannot be forgotten by a fork): every pointer a simulation
 * owns lives in a part, next to the line of that part's clone function that copies it (or,
 * for scratch and what the policy derives, the line that makes it anew), and in the
 * FREE_ALL list of the part's release, which follows its clone; struct sim itself
 * owns no array but the cluster and the event queue, which have their own clone. A fork is
 * then a copy of the scalars and the sum of the parts' clones (sim_fork_with), and a
 * release the sum of their releases (sim_free). A part without memory of its own (idle) is
 * copied with the struct.
 */
#ifndef VOIDFIT_SIM_INT_H
#define VOIDFIT_SIM_INT_H

#include <assert.h>
#include <string.h>

#include "evq.h"
#include "frag.h"
#include "sim-class.h"
#include "sim.h"
#include "util.h"

/* Event kinds; the first five are also their priorities. A drawn node failure (EV_NODE_DOWN)
 * goes with the priority of a fault start, its repair (EV_NODE_UP) with a fault end's. */
enum { EV_FINISH, EV_FAULT_END, EV_FAULT_START, EV_ARRIVE, EV_SAMPLE, EV_NODE_DOWN, EV_NODE_UP };

/* One job instance (timed: one per trace job; inflation: one per draw). 32 bytes, two to a
 * cache line of the 2 MiB-aligned array of a large run (a million of them take 32 MB of
 * fresh memory). A running job's progress is implied (its duration of work at rate 1
 * since its start) until contention changes its rate; then it is kept in a slot of struct
 * sim_insts' runs. The arrival and the preemptions are in its isubmit and pre, where
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
			int32_t run;   /* RUNNING: its slot in struct sim_insts' runs */
			uint32_t gpus; /* RUNNING: the GPUs it holds on its node */
		};
	};
};

enum {
	SJ_CHECKED = 1, /* sim_never_fits() has been asked */
	SJ_SLOWED = 2,  /* RUNNING: its rate changed in this run, so it has a slot in runs
			 * (else its rate is 1 since its start: run_now) */
	SJ_NOEND = 4,   /* RUNNING: no completion is queued (rate 0, or its end is past
			 * t_max): counted in struct sim_insts' nnoend */
	SJ_XSWITCH = 8, /* RUNNING: a gang across racks, slowed by o.xswitch (sim.c) */
};
static_assert(sizeof(struct sjob) <= 32, "two instances to a cache line");

/* A running instance's progress: a slot of struct sim_insts' runs, taken when its rate
 * first changes (sim_set_rate) and given back when it stops. */
struct srun {
	int64_t t_upd; /* time work was last brought up to date */
	double work;   /* seconds of work left at t_upd */
	double rate;   /* progress rate now */
};

/* An instance's interruptions (struct sim_insts' pre): preemptions and node failures. */
struct spre {
	int64_t lost_ms; /* GPU-milli-s of runs undone by preemption */
	int32_t n;       /* times preempted */
	int32_t nkill;   /* times killed by a node failure */
	int64_t fail_ms; /* GPU-milli-s of work those kills lost */
	double saved;    /* seconds of work saved at the last checkpoint: a run starts there */
};

/* The job instances (sim.c). */
struct sim_insts {
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
	struct spre *pre; /* interruptions per instance, precap long (none past it); NULL
			   * until the first */
	size_t precap;
	int64_t running;                            /* RUNNING instances */
	int64_t nnoend;                             /* running instances with SJ_NOEND */
	double stall_now;                           /* sum over running jobs of g (1 - r) */
	double stall_cls[GPUMODEL_MAX][JOB_NCLASS]; /* stall_now split by model and class */
	double ckpt_cls[GPUMODEL_MAX][JOB_NCLASS];  /* of stall_cls, checkpoints' pauses */
	/* Per instance, a running gang's W worker placements (worker 0's is also in its sjob:
	 * node, gpus), else NULL; gwcap long, NULL until the first gang starts */
	struct placement **gw;
	size_t gwcap;
};
/* f a copy of s, whose instances are of js's jobs (a gang's worker placements). */
void sim_insts_clone(struct sim_insts *f, const struct sim_insts *s, const struct job_set *js);
void sim_insts_release(struct sim_insts *in);

struct fitkey;

/* The waiting queue and the scratch of its passes (sim-queue.c). */
struct sim_wait {
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
	int32_t *requeue; /* preempted during a sim_schedule() pass, queued after it */
	size_t nrequeue, requeuecap;
	int32_t *fresh; /* arrived since the last schedule pass */
	size_t nfresh, freshcap;
	struct placement *pl; /* room for a gang's placements (scratch) */
	size_t plcap;
	int64_t queued; /* QUEUED instances (in wait, or in requeue during a pass) */
	int64_t want;   /* workers of the waiting gangs: the whole nodes they need, spread */
};
/* f a copy of s, whose instances' fit shapes are njobs long in room for jobcap. */
void sim_wait_clone(struct sim_wait *f, const struct sim_wait *s, size_t njobs, size_t jobcap);
void sim_wait_release(struct sim_wait *w);

/* The per-node measures of the run, over the scenario's workload, their sums, and the
 * nodes' spec classes (sim-node.c). */
struct sim_nodes {
	double *frag;          /* F_n per node */
	double *md;            /* multi-dim fragmentation per node */
	double *nofit;         /* share of the target workload that fits no more, per node */
	double *fnofit;        /* share of the workload whose F_n(m) is all free GPU, per node
				* (frag_node_eval) */
	uint64_t (*fits)[2];   /* shapes (< 64) of the target workload that fit, per node */
	int64_t (*str)[DIM_N]; /* stranded capacity per node */
	uint8_t *contended;    /* node had a rate < 1 at its last refresh */
	uint8_t *wfree;        /* node has GPUs and nothing on it (the whole-node measure) */
	int64_t nwfree;        /* such nodes */
	double sum_frag[GPUMODEL_MAX];
	double sum_md;
	int64_t sum_str[DIM_N];
	int64_t alloc_now[GPUMODEL_MAX];
	/* The GPU models of the nodes, ascending (node_model); the per-model sums of the
	 * others stay 0, so advance() does not integrate them. */
	int8_t models[GPUMODEL_MAX];
	int nmodels;
	int64_t min_dem[DIM_N]; /* smallest demand of the target workload per hard dim */
	struct node *reps;      /* one node of each spec class (owned) */
	size_t nreps;
	struct cluster empty; /* reps, empty: "could it ever fit?" (sim_never_fits) */
	/* Every node, empty, when the job set has a gang ("could W workers ever fit?"); n =
	 * 0 when unused */
	struct cluster whole;
	/* SIM_EASY: the running instances by expected end (start + ceil(duration x
	 * o.runtime_over)), then index, kept as they start and stop (sim_easy_track); and,
	 * scratch of a pass, the jobs that end by the head's reservation (sim-gang.c) */
	struct send {
		int64_t t;
		int32_t idx;
	} * ends;
	size_t nends, endcap;
	int32_t *rel;
	size_t nrel, relcap;
	struct placement *hp; /* the head's first-fit placement at its reservation */
	size_t hpcap;
	uint64_t *resv; /* its nodes, a bitmap: a job off them cannot delay it */
	size_t resvcap;
	/* Racks (struct node's rack), when the nodes are under more than one (else nracks 0
	 * and the arrays NULL): each node's rack id (the racks in name order), and the nodes
	 * of rack r, ascending, at rnodes[rstart[r] .. rstart[r + 1]) */
	int32_t *rack, *rnodes, *rstart;
	int32_t nracks;
	/* With racks: each node's free GPU-milli (capacity now minus used) as sim_node_refresh
	 * last saw it, and their sum by rack, so a gang skips a rack too short of GPUs for it
	 * without trying its nodes. */
	int64_t *ngfree, *rgfree;
	uint64_t *fence; /* scratch of sim_place_gang: two node bitmaps, one after the other */
	size_t fencecap;
};
/* The measures' arrays for nn nodes (zero), the spec classes of c's nodes, the models and,
 * with a workload wl, its smallest demands; gpu_cap[m] gets the GPU-milli of model m. */
void sim_nodes_init(struct sim_nodes *nd, const struct cluster *c, const struct frag_workload *wl,
		    int64_t gpu_cap[GPUMODEL_MAX]);
void sim_nodes_clone(struct sim_nodes *f, const struct sim_nodes *s, size_t nn);
void sim_nodes_release(struct sim_nodes *nd);

/* A fault and the nodes it hits. */
struct sfault {
	struct fault f;
	int32_t *nodes; /* ascending */
	size_t nnodes;
	int active;
	int64_t jobs_hit; /* jobs with a demand on f.dim that ran on its nodes while active */
};

/* The faults (sim-node.c). */
struct sim_faults {
	struct sfault *list;
	size_t n;
	uint16_t *on; /* per node: active faults (NULL until a fault is added) */
	int64_t nev;  /* fault starts and ends queued, and repairs of drawn failures */
	/* Nodes down: per node, the down faults and drawn failures holding it down (NULL until
	 * the first down fault or o.node_mtbf); the GPU-milli of down nodes per model. */
	uint16_t *down;
	int64_t down_now[GPUMODEL_MAX];
	struct rng frng; /* o.node_mtbf: the failure draws, a stream of their own */
	int64_t nproc;   /* drawn failures queued (one per node that is up) */
};
void sim_faults_clone(struct sim_faults *f, const struct sim_faults *s, size_t nn);
void sim_faults_release(struct sim_faults *ft);

struct cand;

/* The policy, its context, and what it sees per node besides the run's measures: all
 * made for the policy, and made anew for a fork's (sim-place.c). */
struct sim_pol {
	const struct policy_ops *ops;
	struct policy_ctx ctx;
	uint32_t admit; /* shared dims under I/O admission (ctx.admit) */
	int sampled;    /* o.sample_nodes is below the number of nodes: find_sampled */
	int use_cls;    /* POLICY_F_BY_STATE, no pick() (or k8s: never calls it), not sampled */
	struct sim_classes cls; /* classes of identical nodes, when use_cls */
	double *pmd, *pnofit;   /* node md and nofit over the policy's dims, when they are not
				 * all and it is POLICY_F_NODE_MD (else NULL) */
	uint64_t (*pfits)[2];   /* the same for the node fits, with pmd */
	unsigned char *prep;    /* per node, the policy's prep record (policy_ops.prep), or NULL */
	void *state;            /* the policy's own state (policy_ops.state), or NULL */
	struct rng srng;        /* the order nodes are sampled in (o.sample_nodes) */
	/* o.sample_nodes: the nodes of one search, and the nodes met on its walk that may
	 * hold the job (scratch) */
	struct cand *cand;
	int32_t *met;
	size_t candcap, metcap;
	uint64_t *skip; /* a spread gang's nodes so far, a bitmap (scratch) */
	size_t skipcap;
};
/* s's policy part for the policy ops, from the rest of s (its options, cluster, workload
 * and node measures); from: the simulation s is a fork of (its policy state is cloned when
 * the policy stays), or NULL. With fill, every node's records are filled now (a fork),
 * else sim_node_refresh fills them. */
void sim_pol_setup(struct sim *s, const struct policy_ops *ops, const struct sim *from, int fill);
void sim_pol_release(struct sim_pol *p);
/* The placement the policy picks for j, or 0 if j fits nowhere now. */
int sim_find_place(struct sim *s, const struct job *j, struct placement *out);
/* The policy's best placement of j among the nodes with no bit in skip (a node bitmap, the
 * score loop of every policy, for a gang's spread workers), or 0. */
int sim_find_place_skip(struct sim *s, const struct job *j, const uint64_t *skip,
			struct placement *out);

/* Why free GPUs idle now (idle_cause, an idle enum sim_bucket), the class of the waiting
 * GPU job that decides it and the models it allows (0: any); stale once an event may have
 * changed it (sim_classify_idle, sim-idle.c). */
struct sim_idle {
	int stale;
	uint8_t cause, cls;
	uint32_t mask;
};
void sim_classify_idle(struct sim *s);
/* The clock passes the window's end: count the work still running or waiting there. */
void sim_carry_over(struct sim *s);

struct sim_k8s;
/* Set up s->k8s for o.scoring (s->pol set); rng: the draws so far (a fork's), or NULL to
 * seed them. Returns 0 or VF_EINPUT for bad o.k8s_weights. */
int sim_k8s_setup(struct sim *s, const struct rng *rng, struct err *e);
void sim_k8s_release(struct sim_k8s *k);
/* The draws so far of k. */
const struct rng *sim_k8s_rng(const struct sim_k8s *k);
int sim_k8s_find(struct sim *s, const struct job *j, struct placement *out);

struct sim {
	const struct job_set *js;
	const struct frag_workload *wl;
	struct sim_opts o;
	struct rng rng;
	struct cluster c;
	struct evq q;
	struct sim_counters k;
	struct sim_insts inst;
	struct sim_wait wq;
	struct sim_nodes node;
	struct sim_faults fault;
	struct sim_pol pol;
	struct sim_idle idle;
	struct sim_k8s *k8s; /* o.scoring SIM_SCORING_K8S: its plugins and scratch; else NULL */
	size_t next_arrival; /* timed: next job-set index to arrive */
	int dirty;           /* something may start at the next schedule */
	int freed;           /* room was freed since the last full schedule pass */
	int over;
	int trial;         /* a gang's workers are being tried: node refreshes leave rates alone */
	int64_t t_max;     /* the horizon (sim_new): no event past it is queued */
	int64_t nsamples;  /* timed samples emitted (the cadence doubles every 2 x points) */
	int64_t sample_iv; /* timed sampling cadence, 0 = none */
	int next_pct;      /* inflation: next percent of load to sample */
	struct sim_observer obs[SIM_MAX_OBSERVERS];
	int nobs;
};

#define NOTIFY(s, hook, ...)                                                                       \
	do {                                                                                       \
		for (int oi_ = 0; oi_ < (s)->nobs; oi_++)                                          \
			if ((s)->obs[oi_].hook)                                                    \
				(s)->obs[oi_].hook((s)->obs[oi_].u, (s), __VA_ARGS__);             \
	} while (0)

/* ---- gangs (sim-gang.c) ---- */

/* Place instance idx's W workers (a gang) as the policy picks them, one at a time on the
 * cluster as it stands after the previous ones, all of one GPU model (the first's), one per
 * node under o.gang_spread; with racks, under one rack first where one can hold them all
 * (sim-gang.c's top says in which order). On success they are on the cluster, in out (W long), and
 * the caller starts the gang (sim_start_gang); else the cluster is back as it was, byte for byte,
 * and 0. */
int sim_place_gang(struct sim *s, int32_t idx, struct placement *out);
/* Are the n placements p on nodes under more than one rack? */
int sim_gang_spans(const struct sim *s, const struct placement *p, int n);
/* Does j fit on c as it stands (each worker at its first choice, first fit; the same model
 * and spread rules)? c is left as it was; out (room for W, or NULL) gets the placements. */
int sim_gang_fits(const struct sim *s, struct cluster *c, const struct job *j, int32_t idx,
		  struct placement *out);
/* Instance idx (a gang) never fits this cluster, even empty: sets its why. */
int sim_gang_never_fits(struct sim *s, struct sjob *sj);
/* Start gang idx at the W placements p (already on the cluster, from sim_place_gang). */
void sim_start_gang(struct sim *s, int32_t idx, const struct placement *p);
/* The placements instance idx (running) holds, into *p (W of them for a gang, one else);
 * returns how many. */
int sim_job_placements(const struct sim *s, int32_t idx, const struct placement **p,
		       struct placement *one);
/* SIM_EASY: the reservation of waiting job head (which fits nowhere now): the earliest
 * expected time enough room frees up (s->node.rel: the jobs ended by then); -1 if no time
 * will do (it must wait for something the running jobs' ends do not give). */
int64_t sim_easy_reserve(struct sim *s, int32_t head);
/* SIM_EASY: may job idx, about to start at p (np placements) now, without delaying the
 * head's reservation at t_res? If it may and ends by t_res, it joins s->node.rel. */
int sim_easy_admit(struct sim *s, int32_t head, int64_t t_res, int32_t idx,
		   const struct placement *p, int np);
/* SIM_EASY: instance idx starts (on) or stops: into or out of s->node.ends. */
void sim_easy_track(struct sim *s, int32_t idx, int on);
/* s->node.ends anew from the running instances (a fork that takes up SIM_EASY). */
void sim_easy_rebuild(struct sim *s);
/* Take gang idx's n placed workers p off the cluster again (sim_place_gang's rollback). */
void sim_unplace_gang(struct sim *s, int32_t idx, const struct placement *p, int n);
/* Put them back as sim_place_gang had them. */
void sim_replace_gang(struct sim *s, int32_t idx, const struct placement *p, int n);
/* Instance idx's placement now: 1 with *p set (a gang: its W workers on the cluster,
 * not started), or 0 if it fits nowhere. pl has room for W. Start it with sim_start_placed
 * or give it back with sim_unplace_gang (a gang's; one placement takes nothing). */
int sim_try_place(struct sim *s, int32_t idx, struct placement *pl);
void sim_start_placed(struct sim *s, int32_t idx, const struct placement *pl);
/* Scratch of room for instance idx's placements (W of them), owned by the wait part. */
struct placement *sim_place_room(struct sim *s, int32_t idx);
/* Instance idx never fits here, even on the empty cluster (a gang: its W workers). */
int sim_job_never_fits(struct sim *s, int32_t idx);

/* ---- shared by the parts (sim.c) ---- */

/* Node n changed (a placement came or went, a fault): bring its measures, the policy's
 * records and (when contention is on) its jobs' rates up to date (sim-node.c). */
void sim_node_refresh(struct sim *s, size_t n);
/* Running instance sj (idx) runs at rate r from now (sim.c). */
void sim_set_rate(struct sim *s, struct sjob *sj, int32_t idx, double r);
/* Start instance idx at p; take it off its node, returning the GPU-milli it held (sim.c). */
void sim_start_job(struct sim *s, int32_t idx, const struct placement *p);
int64_t sim_stop_job(struct sim *s, int32_t idx);
/* Can instance sj never run on this cluster, even empty? Sets its why (sim.c). */
int sim_never_fits(struct sim *s, struct sjob *sj);
void sim_mark_unplaceable(struct sim *s, int32_t idx);
/* Count a preemption of instance idx that lost lost GPU-milli-s (sim.c). */
void sim_add_preempt(struct sim *s, int32_t idx, int64_t lost);
/* Queue job idx; try the waiting jobs (sim-queue.c). */
void sim_wait_add(struct sim *s, int32_t idx);
void sim_schedule(struct sim *s);
/* After a fork's change of the admitted dims or of the queue discipline (sim-queue.c). */
void sim_wait_reshape(struct sim *s);
void sim_wait_requeue_all(struct sim *s);
/* Faults (sim-node.c): add f, switch fault i on or off; starting j on node n under a
 * fault counts it there. */
int sim_fault_add(struct sim *s, const struct fault *f, struct err *e);
void sim_fault_switch(struct sim *s, size_t i, int begin);
void sim_fault_hits(struct sim *s, int32_t n, const struct job *j);
/* Node failures (sim-node.c): with o.node_mtbf, queue every node's first failure; a drawn
 * failure (begin 1) or repair (0) of node n. */
void sim_failures_start(struct sim *s);
void sim_node_fail(struct sim *s, size_t n, int begin);
/* Kill running instance idx (its node failed): it gives back what it holds, loses its work
 * since its last checkpoint and queues again (sim.c). */
void sim_kill(struct sim *s, int32_t idx);
/* Count what of the progress done (seconds) of a run of g GPU-milli from start lies in the
 * window (at most its time there) into win[m][c] (sim-queue.c). */
void sim_window_lost(struct sim *s, int64_t win[GPUMODEL_MAX][JOB_NCLASS], int m, int c, int64_t g,
		     int64_t start, double done);

/* A node's name (or rack) with its index, to sort by name, then index, with qsort and
 * sim_named_cmp: no global, which sizing threads would share. */
struct sim_named {
	const char *name;
	int32_t n;
};
static inline int sim_named_cmp(const void *a, const void *b)
{
	const struct sim_named *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->n > y->n) - (x->n < y->n);
}

/* A copy of the n elements of size sz at p, in room for cap of them (at least one). */
static inline void *sim_copy_of(const void *p, size_t n, size_t cap, size_t sz)
{
	void *q = xmalloc((cap ? cap : 1) * sz);
	if (n)
		memcpy(q, p, n * sz);
	return q;
}

static inline const struct job *src_job(const struct sim *s, const struct sjob *sj)
{
	return &s->js->jobs[sj->src];
}

static inline int node_model(const struct sim *s, size_t n)
{
	int m = s->c.spec[n].model;
	assert(m < GPUMODEL_MAX);
	return m >= 0 && s->c.spec[n].ngpu > 0 ? m : -1;
}

static inline int64_t job_gpu(const struct job *j)
{
	return j->num_gpu > 0 ? (int64_t)j->num_gpu * j->gpu_milli : 0;
}

/* GPU-milli of all of j's workers. */
static inline int64_t inst_gpu(const struct job *j)
{
	return job_gpu(j) * job_workers(j);
}

/* I/O admission: may j go on a node in state st, judging by the shared dims in admit? Each
 * such dim j uses must keep used + demand <= capacity; a demand above the whole capacity
 * counts as the capacity (the job may run where nothing else uses the dim), and a capacity
 * of 0 admits nothing. */
static inline int admits(uint32_t admit, const struct node_state *st, const struct job *j)
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

/* The class j's GPU time counts under (classes past JOB_NCLASS count as batch). */
static inline int cls_of(const struct job *j)
{
	return j->cls < JOB_NCLASS ? j->cls : JOB_BATCH;
}

/* Rebuild j's placement on its node from the job and the GPUs it holds. */
static inline void job_placement(const struct sim *s, const struct sjob *sj, struct placement *p)
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
 * sim_start_job began it with (its duration of work at rate 1 since its start). */
static inline struct srun run_now(const struct sim *s, const struct sjob *sj)
{
	if (sj->flags & SJ_SLOWED)
		return s->inst.runs[sj->run];
	const struct job *j = src_job(s, sj);
	return (struct srun){
		.t_upd = sj->start, .work = (double)(j->duration > 0 ? j->duration : 0), .rate = 1};
}

/* Seconds of work instance idx saved at its last checkpoint: its runs start there. */
static inline double saved_of(const struct sim *s, int32_t idx)
{
	return (size_t)idx < s->inst.precap ? s->inst.pre[idx].saved : 0;
}

/* Work left by running instance sj now. */
static inline double work_now(const struct sim *s, const struct sjob *sj)
{
	struct srun ru = run_now(s, sj);
	double w = ru.work - ru.rate * (double)(s->k.now - ru.t_upd);
	return w > 0 ? w : 0;
}

#endif
