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
 * keys (bound_keys): the bound less a hair, without its divisions (TETRIS_KEY_SLACK), so
 * that a search that would bound every class that may fit bounds only the classes whose
 * key is not above the score of the class with the least key.
 */
#include "pol-common.h"
#include "policy.h"

/* How much a key of tetris's bound widens the dot product it is minus: 1e-9 of it, and
 * 1e-12 more. The products of d_k, 1 / cap_k and the free share and the bound's quotient
 * d_k / cap_k times the same free share each round (and their sums) by a few units of
 * 2^-53 of the dot product; the tie term and pol_oversub add >= 0. */
#define TETRIS_KEY_SLACK 1e-9

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

/* Keys of tetris's bound (policy_ops.bound_keys): minus the dot product by products with
 * the record's max(free_k, 0) / cap_k (wfree) instead of quotients, widened by
 * TETRIS_KEY_SLACK. The demands of the dims not seen are 0, so every dim is summed without
 * a branch; only the HBM a job takes may depend on the node. */
static void tetris_bound_keys(const struct policy_ctx *ctx, const struct job *j, const void *recs,
			      const int32_t *pos, size_t m, double *out)
{
	struct placement p;
	double dem[DIM_N];
	int hbm_seen = !!(ctx->dims & DIM_BIT(DIM_HBM));
	cluster_placement_of(0, j, 0, &p);
	for (int d = 0; d < DIM_N; d++)
		dem[d] = ctx->dims & DIM_BIT(d) ? (double)p.dem[d] : 0;
	for (size_t i = 0; i < m; i++) {
		const struct pol_state_rec *r = (const struct pol_state_rec *)recs + pos[i];
		double dot = 0;
		if (hbm_seen)
			dem[DIM_HBM] =
				(double)((int64_t)j->num_gpu * cluster_hbm_of(r->gpu_hbm, j));
		for (int d = 0; d < DIM_N; d++)
			dot += dem[d] * r->wfree[d];
		out[i] = -(dot * (1 + TETRIS_KEY_SLACK)) - TETRIS_KEY_SLACK * 1e-3;
	}
}

const struct policy_ops pol_tetris_ops = {
	.name = "tetris",
	.summary = "Tetris alignment: largest dot product of demand and free vector",
	.dims = DIM_BIT(DIM_CPU) | DIM_BIT(DIM_MEM) | DIM_BIT(DIM_GPU) | DIM_BIT(DIM_NET),
	.flags = POLICY_F_BY_STATE,
	.pick = NULL,
	POL_BY_LEFT_OPS(tetris),
	.bound_keys = tetris_bound_keys,
};
