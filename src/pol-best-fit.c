/*
 * pol-best-fit.c — best-fit: the least leftover.
 *
 * score = sum over seen dims k with cap_k > 0 of (free_k - d_k) / cap_k   (all w_k = 1)
 *       + POL_TIE * (GPU-milli left on the chosen GPU / 1000)             (tightest GPU)
 *       + pol_oversub
 * Default dims cpu, gpu.
 */
#include "pol-common.h"
#include "policy.h"

static double bf_score(const struct policy_ctx *ctx, const struct job *j, const struct placement *p)
{
	(void)j;
	const struct node_state *s = pol_st(ctx, p);
	double sum = 0;
	for (int d = 0; d < DIM_N; d++)
		if (ctx->dims & DIM_BIT(d))
			sum += pol_free_after(s, p, d);
	return sum + POL_TIE * pol_gpu_left(s, p) + pol_oversub(ctx, p);
}

const struct policy_ops pol_best_fit_ops = {
	.name = "best-fit",
	.summary = "least leftover: smallest sum of free shares after placement",
	.dims = DIM_BIT(DIM_CPU) | DIM_BIT(DIM_GPU),
	.flags = POLICY_F_BY_STATE,
	.score = bf_score,
	.pick = NULL,
};
