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
 */
#include "pol-common.h"
#include "policy.h"

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
	return tier + 0.5 * pol_gpu_left(s, p) + 0.25 * fr + pol_oversub(ctx, p);
}

const struct policy_ops pol_packing_ops = {
	.name = "packing",
	.summary = "GPU packing: partly used GPUs, then used nodes, then idle nodes",
	.dims = DIM_BIT(DIM_GPU),
	.flags = POLICY_F_BY_STATE,
	.score = packing_score,
	.pick = NULL,
};
