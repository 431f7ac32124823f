/*
 * pol-scalar.c — scalar balancing: the node whose allocated GPU share (then the other seen
 * dims) would be lowest, spreading load as a utilisation dashboard would.
 *
 * With u_k = (used_k + d_k) / cap_k, the allocated share after placement:
 * score = u_gpu + 1e-6 * mean over the other seen dims (cap > 0) of min(u_k, 1)
 *       - POL_TIE * (GPU-milli left on the chosen GPU / 1000)   (emptiest GPU)
 *       + pol_oversub
 * If gpu is not seen, the primary term is the mean of all seen dims. Default dims cpu, gpu.
 */
#include "pol-common.h"
#include "policy.h"

static double scalar_score(const struct policy_ctx *ctx, const struct job *j,
			   const struct placement *p)
{
	(void)j;
	const struct node_state *s = pol_st(ctx, p);
	double rest = 0;
	int nrest = 0;
	for (int d = 0; d < DIM_N; d++) {
		if (!(ctx->dims & DIM_BIT(d)) || d == DIM_GPU || s->cap[d] <= 0)
			continue;
		double u = 1 - pol_free_after(s, p, d);
		rest += u < 1 ? u : 1;
		nrest++;
	}
	rest = nrest ? rest / nrest : 0;
	double score = (ctx->dims & DIM_BIT(DIM_GPU))
			       ? (s->cap[DIM_GPU] > 0 ? 1 - pol_free_after(s, p, DIM_GPU) : 0) +
					 1e-6 * rest
			       : rest;
	return score - POL_TIE * pol_gpu_left(s, p) + pol_oversub(ctx, p);
}

const struct policy_ops pol_scalar_ops = {
	.name = "scalar",
	.summary = "spread load: lowest allocated GPU share, then cpu",
	.dims = DIM_BIT(DIM_CPU) | DIM_BIT(DIM_GPU),
	.flags = POLICY_F_BY_STATE,
	.score = scalar_score,
	.pick = NULL,
};
