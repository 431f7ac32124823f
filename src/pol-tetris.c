/*
 * pol-tetris.c — Tetris alignment (Grandl et al., SIGCOMM 2014): the largest dot product of
 * the job's demand and the node's free vector.
 *
 * score = - sum over seen dims k (cap_k > 0) of (d_k / cap_k) * (max(free_k, 0) / cap_k),
 *           free_k before placement
 *         + POL_TIE * (GPU-milli left on the chosen GPU / 1000)   (tightest GPU)
 *         + pol_oversub                                           (net is seen: shared)
 * Default dims cpu, mem, gpu, net.
 */
#include "pol-common.h"
#include "policy.h"

static double tetris_score(const struct policy_ctx *ctx, const struct job *j,
			   const struct placement *p)
{
	(void)j;
	const struct node_state *s = pol_st(ctx, p);
	return -pol_free_dot(ctx, s, p) + POL_TIE * pol_gpu_left(s, p) + pol_oversub(ctx, p);
}

const struct policy_ops pol_tetris_ops = {
	.name = "tetris",
	.summary = "Tetris alignment: largest dot product of demand and free vector",
	.dims = DIM_BIT(DIM_CPU) | DIM_BIT(DIM_MEM) | DIM_BIT(DIM_GPU) | DIM_BIT(DIM_NET),
	.flags = POLICY_F_BY_STATE,
	.score = tetris_score,
	.pick = NULL,
};
