/*
 * pol-packing.c — GPU packing: partly used GPUs first, then free GPUs on used nodes, then
 * idle nodes.
 *
 * score = tier + 0.5 * (GPU-milli left on the chosen GPU / 1000)
 *              + 0.25 * mean over seen dims (cap > 0) of the free share after placement
 *       + pol_oversub
 * tier 0: a GPU share placed on a GPU already partly used; 1: the node has something
 * allocated; 2: the node is idle. The other terms are below 1, so tiers never mix; inside
 * a tier less left on the chosen GPU and on the node is better (weights 0.5 and 0.25).
 * Default dims gpu (a CPU-only node then has no free share, so CPU jobs prefer CPU-only
 * nodes within a tier).
 * bound: the score with the least tier and left of any GPU the job may take, so the class
 * search scores only the classes whose bound can beat the best.
 */
#include "pol-common.h"
#include "policy.h"

/* The score of a placement with p's demands in tier tier, leaving left (GPU-milli / 1000) on
 * its first GPU. */
static double packing_of(const struct policy_ctx *ctx, const struct node_state *s,
			 const struct placement *p, int tier, double left)
{
	double fr = 0;
	int nd = 0;
	for (int d = 0; d < DIM_N; d++) {
		if (!(ctx->dims & DIM_BIT(d)) || s->cap[d] <= 0)
			continue;
		double f = pol_free_after(s, p, d);
		fr += f > 0 ? f : 0;
		nd++;
	}
	fr = nd ? fr / nd : 0;
	return tier + 0.5 * left + 0.25 * fr + pol_oversub(ctx, p);
}

static double packing_score(const struct policy_ctx *ctx, const struct job *j,
			    const struct placement *p)
{
	(void)j;
	const struct node_state *s = pol_st(ctx, p);
	int tier = 2;
	if (pol_node_used(s))
		tier = 1;
	if (p->milli > 0 && p->milli < 1000) {
		for (int g = 0; g < CLUSTER_MAX_GPUS; g++)
			if ((p->gpus & (1u << g)) && s->gpu_free[g] < 1000)
				tier = 0;
	}
	return packing_of(ctx, s, p, tier, pol_gpu_left(s, p));
}

/* The score with the least tier and the least left of any GPU a share of j may take on node
 * n (the GPU with the least free milli where it fits: tier 0 if that one is partly used);
 * whole GPUs and CPU-only jobs leave 0 in the node's tier. The sums only grow with the tier
 * and the left, so this never exceeds a choice's score as computed, and is the best one's
 * for a CPU-only job, whole GPUs and one share of a GPU. */
static double packing_bound(const struct policy_ctx *ctx, const struct job *j, size_t n)
{
	const struct node_state *s = &ctx->c->st[n];
	struct placement p;
	int32_t gmin;
	int64_t hmin;
	double left = 0;
	int tier = pol_node_used(s) ? 1 : 2;
	pol_dem_of(ctx->c, n, j, &p);
	if (p.milli > 0 && p.milli < 1000 &&
	    pol_least_room(ctx->c, n, p.milli, p.hbm, &gmin, &hmin)) {
		left = (double)(gmin - p.milli) / 1000.0;
		tier = gmin < 1000 ? 0 : tier;
	}
	return packing_of(ctx, s, &p, tier, left);
}

const struct policy_ops pol_packing_ops = {
	.name = "packing",
	.summary = "GPU packing: partly used GPUs, then used nodes, then idle nodes",
	.dims = DIM_BIT(DIM_GPU),
	.flags = POLICY_F_BY_STATE,
	.score = packing_score,
	.pick = NULL,
	.bound = packing_bound,
};
