/*
 * pol-best-fit.c — best-fit: the least leftover.
 *
 * score = sum over seen dims k with cap_k > 0 of (free_k - d_k) / cap_k   (all w_k = 1)
 *       + POL_TIE * (GPU-milli left on the chosen GPU / 1000)             (tightest GPU)
 *       + pol_oversub
 * Default dims cpu, gpu.
 * bound: the score itself with the least GPU-milli left of any GPU the job may take. The sum
 * and pol_oversub read only the node's state and the placement's demands (d_k, the GPU
 * total num_gpu x milli), which are the same for every choice on the node; the tie term is
 * the only one that depends on the GPU chosen, and it is added, so the choice leaving the
 * least milli on its first GPU scores lowest. Computed by the same code with a left no more
 * than any choice's, it is never above a choice's score in floating point (each operation
 * rounds monotonically), and it is that score exactly when the job takes one share of a GPU
 * (each distinct GPU is a choice) or whole GPUs (0 left).
 */
#include "pol-common.h"
#include "policy.h"

/* The score of a placement with p's demands that leaves left (GPU-milli / 1000) on its
 * first GPU. */
static double bf_of(const struct policy_ctx *ctx, const struct node_state *s,
		    const struct placement *p, double left)
{
	double sum = 0;
	for (int d = 0; d < DIM_N; d++)
		if (ctx->dims & DIM_BIT(d))
			sum += pol_free_after(s, p, d);
	return sum + POL_TIE * left + pol_oversub_at(ctx, s, p);
}

POL_BY_LEFT(bf, bf_of, 0)

const struct policy_ops pol_best_fit_ops = {
	.name = "best-fit",
	.summary = "least leftover: smallest sum of free shares after placement",
	.dims = DIM_BIT(DIM_CPU) | DIM_BIT(DIM_GPU),
	.flags = POLICY_F_BY_STATE,
	.pick = NULL,
	POL_BY_LEFT_OPS(bf),
};
