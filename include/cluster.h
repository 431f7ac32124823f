/*
 * cluster.h — the live state of a cluster during a replay: what each node has free, per GPU,
 * and which placements it holds.
 *
 * Invariants (checked by asserts in cluster_place / cluster_remove):
 *   - on hard dims, used[d] <= cap[d] always; per GPU, 0 <= gpu_free <= 1000 and
 *     0 <= hbm_free <= the GPU's HBM;
 *   - shared dims (net, sto, iocpu) may have used[d] > cap[d]: that is contention;
 *   - used[] is the sum of the dem[] of the placements on the node.
 * The cluster knows nothing of time, queues or policies; the simulator drives it.
 */
#ifndef VOIDFIT_CLUSTER_H
#define VOIDFIT_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job.h"

#define CLUSTER_MAX_GPUS 32 /* GPUs on one node; placements use a uint32_t mask */

/* Where a job sits: a node, and which of its GPUs, and how much of each. */
struct placement {
	int32_t node;       /* node index */
	uint32_t gpus;      /* bit i set: the job uses GPU i of the node */
	int32_t milli;      /* GPU-milli taken on each GPU in gpus (1000 for whole GPUs) */
	int64_t hbm;        /* HBM MiB taken on each GPU in gpus */
	int64_t dem[DIM_N]; /* what the job takes of each node dim (gpu, hbm: totals) */
};

struct node_state {
	int64_t cap[DIM_N];                 /* capacity now: the spec, lowered by faults */
	int64_t used[DIM_N];                /* sum of the placements' dem[] */
	int32_t gpu_free[CLUSTER_MAX_GPUS]; /* free GPU-milli of each GPU */
	int64_t hbm_free[CLUSTER_MAX_GPUS]; /* free HBM MiB of each GPU */
	int32_t njobs;                      /* placements on the node */
	int32_t *jobs;                      /* the jobs' indices (njobs of them, owned) */
	int32_t jobcap;                     /* allocated length of jobs */
};

struct cluster {
	const struct node *spec; /* n nodes (not owned: the job set's) */
	size_t n;
	struct node_state *st;  /* n states (owned) */
	int64_t total[DIM_N];   /* sum of the spec capacities */
	int64_t free_gpu_milli; /* free GPU-milli over the whole cluster */
	/* A max-tree over the nodes of (free cpu, free mem, free gpu, largest free share of one
	 * GPU), kept by place/remove/set_cap, for cluster_next_fit. tree[1] is the root and
	 * node i's leaf is tree[tsize + i]. */
	int64_t (*tree)[4];
	size_t tsize;
	/* Parallel to tree: the GPU models (bit gpumodel id) of the nodes below, fixed by the
	 * specs, so a job limited to some models skips the subtrees of other models. */
	uint32_t *tmodels;
};

/* Set up c for nodes (not copied; must outlive c, unchanged), everything free. Every spec
 * capacity must be known (>= 0: enrichment runs first; asserted). A GPU's HBM is
 * cap[hbm] / ngpu. */
void cluster_init(struct cluster *c, const struct node *nodes, size_t n);
/* Free what c owns; c may be NULL. */
void cluster_release(struct cluster *c);
/* Make dst an independent copy of src (for forking a simulation). */
void cluster_clone(struct cluster *dst, const struct cluster *src);

/* Per-GPU HBM job j takes on node n: the trace's value (dem[hbm] / num_gpu) when known, else
 * its GPU share of one of the node's GPUs (gpu_milli / 1000 of cap[hbm] / ngpu); 0 for a
 * CPU-only job. */
int64_t cluster_job_hbm(const struct cluster *c, size_t n, const struct job *j);
/* HBM of one of node n's GPUs (its spec's HBM split evenly; 0 without GPUs). */
int64_t cluster_gpu_hbm(const struct cluster *c, size_t n);
/* cluster_job_hbm on a node whose GPUs have gpu_hbm MiB each (cluster_gpu_hbm). */
static inline int64_t cluster_hbm_of(int64_t gpu_hbm, const struct job *j)
{
	if (j->num_gpu <= 0)
		return 0;
	if (j->dem[DIM_HBM] >= 0)
		return j->dem[DIM_HBM] / j->num_gpu;
	return gpu_hbm * j->gpu_milli / 1000;
}
/* *p: j on node n, on no GPU yet (gpus 0), taking hbm MiB on each of its GPUs: what it
 * takes of every dim. */
static inline void cluster_placement_of(size_t n, const struct job *j, int64_t hbm,
					struct placement *p)
{
	p->node = (int32_t)n;
	p->gpus = 0;
	p->milli = j->num_gpu > 0 ? j->gpu_milli : 0;
	p->hbm = hbm;
	for (int d = 0; d < DIM_N; d++)
		p->dem[d] = j->dem[d] > 0 ? j->dem[d] : 0;
	p->dem[DIM_GPU] = (int64_t)j->num_gpu * p->milli;
	p->dem[DIM_HBM] = (int64_t)j->num_gpu * hbm;
}

/*
 * The distinct ways j can be placed on node n without overcommitting a hard dim and within
 * j's allowed GPU models. Writes at most max placements to out and returns how many there
 * are (0: j does not fit on n). A whole-GPU job has one way (the lowest-numbered free GPUs);
 * a shared job one per distinct (free milli, free HBM) among the GPUs it fits on, the
 * lowest-numbered GPU of each. Shared dims are not checked here (policies see them), but
 * for one: j never goes on a node whose spec has capacity 0 on a shared dim j uses.
 * Choices come in order of their lowest GPU index. A demand of -1 counts as 0; a placement's
 * dem[gpu] is num_gpu * gpu_milli and dem[hbm] num_gpu * cluster_job_hbm().
 */
int cluster_choices(const struct cluster *c, size_t n, const struct job *j, struct placement *out,
		    int max);

/* The first of cluster_choices(c, n, j, ...) in *out, without counting the others: 1 if j
 * fits on n, else 0 (out untouched). For policies that take the first feasible choice. */
int cluster_first_choice(const struct cluster *c, size_t n, const struct job *j,
			 struct placement *out);

/* The first node index >= from that may hold j: its free cpu, mem and GPU and its largest
 * free share of one GPU are enough, and its GPU model is one j allows (necessary, not
 * sufficient: check with cluster_choices). c->n if there is none. O(log n) per node
 * skipped over in bulk. */
size_t cluster_next_fit(const struct cluster *c, size_t from, const struct job *j);

/* A walk over the nodes: node at, then at + step, and so on, modulo the number of nodes,
 * for left more nodes. With step prime to the number of nodes and left at most that, it
 * meets each node once at most. */
struct cluster_walk {
	size_t at, step, left;
};
/* A walk over all of c's nodes (c->n > 0), once each: from node a mod c->n, by the first
 * step prime to c->n from 1 + b mod (c->n - 1) on. Two random a, b make a random order. */
struct cluster_walk cluster_walk_start(const struct cluster *c, uint64_t a, uint64_t b);
/* Walk w on until max nodes that pass cluster_next_fit's test for j (necessary, not
 * sufficient) are met, or it ends; those nodes, in the order met, into out; returns how
 * many. One read of each node's summary, without a branch on it: far cheaper per node than
 * cluster_first_choice, on walks where most nodes fail. */
size_t cluster_walk(const struct cluster *c, const struct job *j, struct cluster_walk *w,
		    int32_t *out, size_t max);

/* Take p for job index jobidx. p must come from cluster_choices on the current state. */
void cluster_place(struct cluster *c, const struct placement *p, int32_t jobidx);
/* Give back p of job index jobidx. */
void cluster_remove(struct cluster *c, const struct placement *p, int32_t jobidx);

/* Set node n's capacity on dim d to cap (a fault or its end). On a hard dim the caller must
 * not lower it below what is used; gpu and hbm (per-GPU state) cannot change (asserted). */
void cluster_set_cap(struct cluster *c, size_t n, enum dim d, int64_t cap);

#endif
