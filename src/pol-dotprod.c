/*
 * pol-dotprod.c — the FGD paper's DotProd baseline: the smallest normalised dot product of
 * the node's free vector and the job's demand.
 *
 * score = sum over seen dims k (cap_k > 0) of (d_k / cap_k) * (max(free_k, 0) / cap_k),
 *         free_k before placement
 *       + POL_TIE * (GPU-milli left on the chosen GPU / 1000)   (tightest GPU)
 *       + pol_oversub
 * Default dims cpu, gpu (as the paper).
 */
#include "pol-common.h"
#include "policy.h"

static double dot_score(const struct policy_ctx *ctx, const struct job *j,
			const struct placement *p)
{
	(void)j;
	const struct node_state *s = pol_st(ctx, p);
	return pol_free_dot(ctx, s, p) + POL_TIE * pol_gpu_left(s, p) + pol_oversub(ctx, p);
}

const struct policy_ops pol_dotprod_ops = {
	.name = "dotprod",
	.summary = "smallest dot product of free vector and demand (FGD paper baseline)",
	.dims = DIM_BIT(DIM_CPU) | DIM_BIT(DIM_GPU),
	.flags = POLICY_F_BY_STATE,
	.score = dot_score,
	.pick = NULL,
};
