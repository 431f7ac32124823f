/*
 * pol-clustering.c — GPU-type affinity (Gandiva; the FGD paper's Clustering baseline):
 * put a job with jobs of the same GPU request type, keep types apart.
 *
 * A GPU job's type is "a share of one GPU" (any gpu_milli < 1000) or "k whole GPUs", one type
 * per k. Splitting shares by their exact size made types so many that affinity kept few jobs
 * together (openb GPU nodes, inflation to 130 %, seeds 42-44: 13.8 % of GPUs unallocated at
 * full load with exact types, 8.9 % with these, against 8.5 % in the FGD paper). CPU-only
 * jobs have no type: as in the FGD paper's simulator they score the same on every node
 * (score = pol_oversub, so the lowest feasible node wins), and they count as neither same
 * nor other on a node (packing them by "type" onto GPU nodes that run CPU jobs stranded
 * GPUs). For a GPU job, with same / other = the node's GPU jobs of its type / of other types:
 *   score = tier + 0.5 * (free GPU share of the node after placement)   (pack inside a tier)
 *         + POL_TIE * (GPU-milli left on the chosen GPU / 1000)        (pack the shared GPU)
 *         + pol_oversub
 *   tier 0: same > 0, other = 0; 1: same > 0, other > 0; 2: the node runs no GPU job;
 *   3: only other types (the order of the FGD simulator's Clustering baseline).
 * In a simulation the policy keeps, as its state (ctx->state, struct cl_state), the GPU jobs
 * of each type on every node, counted again from the node's jobs (ctx->job_of) whenever the
 * node changes. Outside one (no state) the node's jobs come from ctx->job_of; when that is
 * NULL too the types are guessed from the GPU state: a partly used GPU means share jobs, a
 * fully used GPU whole-GPU jobs (same / other are then 0 or 1).
 * Not POLICY_F_BY_STATE: the score depends on which jobs a node runs. Default dims gpu.
 * Only the tie term depends on the GPU chosen, so bound() is the score with that term at 0:
 * the simulator's searches skip the nodes whose bound cannot beat the best so far (the full
 * loop and the sampled one, sim.c's top comment) and choose what scoring them all would.
 */
#include <stdlib.h>
#include <string.h>

#include "pol-common.h"
#include "policy.h"
#include "util.h"

/* A GPU job's type: 0 a share of one GPU, k k whole GPUs (at most a node's). */
#define CL_TYPES (CLUSTER_MAX_GPUS + 1)
static int type_of(const struct job *j)
{
	assert(j->num_gpu > 0 && j->num_gpu <= CLUSTER_MAX_GPUS);
	return j->gpu_milli < 1000 ? 0 : j->num_gpu;
}

/* Per node, its GPU jobs of each type ([CL_TYPES]: of every type). */
struct cl_state {
	int32_t (*n)[CL_TYPES + 1];
	size_t nn;
};

static void *cl_create(const struct policy_ctx *ctx, const struct job *jobs, size_t njobs)
{
	(void)jobs;
	(void)njobs;
	struct cl_state *t = xcalloc(1, sizeof *t);
	t->nn = ctx->c->n ? ctx->c->n : 1;
	t->n = xcalloc(t->nn, sizeof *t->n);
	return t;
}

static void *cl_clone(const void *st)
{
	const struct cl_state *s = st;
	struct cl_state *t = xcalloc(1, sizeof *t);
	t->nn = s->nn;
	t->n = xmalloc(t->nn * sizeof *t->n);
	memcpy(t->n, s->n, t->nn * sizeof *t->n);
	return t;
}

static void cl_release(void *st)
{
	struct cl_state *t = st;
	if (!t)
		return;
	FREE_ALL(t->n, t);
}

static void cl_node(void *st, const struct policy_ctx *ctx, size_t n)
{
	struct cl_state *t = st;
	const struct node_state *s = &ctx->c->st[n];
	assert(ctx->job_of && n < t->nn);
	memset(t->n[n], 0, sizeof t->n[n]);
	for (int32_t i = 0; i < s->njobs; i++) {
		const struct job *o = ctx->job_of(ctx->job_of_u, s->jobs[i]);
		if (o->num_gpu <= 0)
			continue;
		t->n[n][type_of(o)]++;
		t->n[n][CL_TYPES]++;
	}
}

static const struct policy_state_ops cl_state_ops = {
	.create = cl_create,
	.clone = cl_clone,
	.release = cl_release,
	.node = cl_node,
};

/* a and b are GPU jobs of the same request type */
static int same_type(const struct job *a, const struct job *b)
{
	if (a->gpu_milli < 1000 || b->gpu_milli < 1000)
		return a->gpu_milli < 1000 && b->gpu_milli < 1000;
	return a->num_gpu == b->num_gpu;
}

/* The score of j at p with left (GPU-milli left on p's first GPU / 1000): the tie term is
 * the only one that depends on which GPU p takes. */
static double clustering_of(const struct policy_ctx *ctx, const struct job *j,
			    const struct placement *p, double left)
{
	if (j->num_gpu <= 0) /* no type: no affinity */
		return pol_oversub(ctx, p);
	const struct node_state *s = pol_st(ctx, p);
	const struct node *sp = &ctx->c->spec[p->node];
	int same = 0, other = 0;
	if (ctx->state) {
		const struct cl_state *t = ctx->state;
		same = t->n[p->node][type_of(j)];
		other = t->n[p->node][CL_TYPES] - same;
	} else if (ctx->job_of) {
		for (int32_t i = 0; i < s->njobs; i++) {
			const struct job *o = ctx->job_of(ctx->job_of_u, s->jobs[i]);
			if (o->num_gpu <= 0)
				continue;
			if (same_type(o, j))
				same++;
			else
				other++;
		}
	} else {
		int share = 0, whole = 0;
		for (int g = 0; g < sp->ngpu; g++) {
			share |= s->gpu_free[g] > 0 && s->gpu_free[g] < 1000;
			whole |= s->gpu_free[g] == 0;
		}
		if (j->gpu_milli < 1000) {
			same = share;
			other = whole;
		} else {
			same = whole;
			other = share;
		}
	}
	int tier = same > 0 ? (other > 0) : !other ? 2 : 3;
	double fr = s->cap[DIM_GPU] > 0 ? pol_free_after(s, p, DIM_GPU) : 0;
	double score = tier + 0.5 * fr;
	return score + POL_TIE * left + pol_oversub(ctx, p);
}

static double clustering_score(const struct policy_ctx *ctx, const struct job *j,
			       const struct placement *p)
{
	if (j->num_gpu <= 0) /* no GPU to find the left of */
		return pol_oversub(ctx, p);
	return clustering_of(ctx, j, p, pol_gpu_left(pol_st(ctx, p), p));
}

/* The score with the tie term at its least, 0 (left is never negative): the tier, the free
 * share after and the overshoot are the same for every choice on node n, and the sums only
 * grow with the tie term, so this never exceeds a choice's score as computed and equals it
 * for a CPU-only job and whole GPUs. O(1) with the policy's state: no scan of the GPUs, and
 * p without its HBM, which the score does not read. */
static double clustering_bound(const struct policy_ctx *ctx, const struct job *j, size_t n)
{
	struct placement p;
	cluster_placement_of(n, j, 0, &p);
	return clustering_of(ctx, j, &p, 0);
}

const struct policy_ops pol_clustering_ops = {
	.name = "clustering",
	.summary = "GPU-type affinity: nodes running jobs of the same GPU request type",
	.dims = DIM_BIT(DIM_GPU),
	.flags = 0,
	.score = clustering_score,
	.pick = NULL,
	.bound = clustering_bound,
	.state = &cl_state_ops,
};
