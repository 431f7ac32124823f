/*
 * pol-tetris.c — Tetris alignment (Grandl et al., SIGCOMM 2014): the largest dot product of
 * the job's demand and the node's free vector.
 *
 * score = - sum over seen dims k (cap_k > 0) of (d_k / cap_k) * (max(free_k, 0) / cap_k),
 *           free_k before placement
 *         + POL_TIE * (GPU-milli left on the chosen GPU / 1000)   (tightest GPU)
 *         + pol_oversub                                           (net is seen: shared)
 * Default dims cpu, mem, gpu, net.
 * bound: the score itself with the least GPU-milli left of any GPU the job may take. The
 * dot product reads the node's free vector before placement and the placement's demands
 * (d_k, the GPU total num_gpu x milli), and pol_oversub the demands, which are the same for
 * every choice on the node; the tie term is the only one that depends on the GPU chosen,
 * and it is added, so the choice leaving the least milli on its first GPU scores lowest.
 * Computed by the same code with a left no more than any choice's, it is never above a
 * choice's score in floating point (each operation rounds monotonically), and it is that
 * score exactly when the job takes one share of a GPU (each distinct GPU is a choice) or
 * whole GPUs (0 left), so the simulator scores only the classes that tie with the best.
 */
#include "pol-common.h"
#include "policy.h"

/* The score of a placement with p's demands that leaves left (GPU-milli / 1000) on its
 * first GPU. */
static double tetris_of(const struct policy_ctx *ctx, const struct node_state *s,
			const struct placement *p, double left)
{
	return -pol_free_dot(ctx, s, p) + POL_TIE * left + pol_oversub_at(ctx, s, p);
}

/* tetris_of from the node's record (struct pol_state_rec), its free shares worked out. */
static double tetris_rof(const struct policy_ctx *ctx, const struct pol_state_rec *r,
			 const struct placement *p, double left)
{
	return -pol_free_dot_rec(ctx, r, p) + POL_TIE * left + pol_oversub_at(ctx, &r->st, p);
}

POL_BY_LEFT_REC(tetris, tetris_of, tetris_rof, 0)

const struct policy_ops pol_tetris_ops = {
	.name = "tetris",
	.summary = "Tetris alignment: largest dot product of demand and free vector",
	.dims = DIM_BIT(DIM_CPU) | DIM_BIT(DIM_MEM) | DIM_BIT(DIM_GPU) | DIM_BIT(DIM_NET),
	.flags = POLICY_F_BY_STATE,
	.pick = NULL,
	POL_BY_LEFT_OPS(tetris),
};
