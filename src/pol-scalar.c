/*
 * pol-scalar.c — scalar balancing: the node whose allocated GPU share (then the other seen
 * dims) would be lowest, spreading load as a utilisation dashboard would.
 *
 * With u_k = (used_k + d_k) / cap_k, the allocated share after placement:
 * score = u_gpu + 1e-6 * mean over the other seen dims (cap > 0) of min(u_k, 1)
 *       - POL_TIE * (GPU-milli left on the chosen GPU / 1000)   (emptiest GPU)
 *       + pol_oversub
 * If gpu is not seen, the primary term is the mean of all seen dims. Default dims cpu, gpu.
 * bound: the score itself with the most GPU-milli left of any GPU the job may take. Every
 * term but the tie term reads only the placement's demands (d_k, the GPU total
 * num_gpu x milli), which are the same for every choice on the node; the tie term is the
 * only one that depends on the GPU chosen, and it is subtracted, so the choice leaving the
 * most milli on its first GPU scores lowest. Computed by the same code with a left no less
 * than any choice's, it is never above a choice's score in floating point (each operation
 * rounds monotonically), and it is that score exactly when the job takes one share of a
 * GPU (each distinct GPU is a choice) or whole GPUs (0 left), so the simulator scores only
 * the classes that tie with the best.
 * keys (bound_keys): the bound is at least u_gpu less the tie term, and u_gpu as computed
 * differs from (used + d) / cap by a few units of 2^-53, so that share taken by one
 * multiplication with the record's 1 / cap, less SCALAR_KEY_SLACK, is never above the bound
 * (0 less it where gpu is not seen or the node has none: the primary term is then >= 0).
 * A search that would bound every class that may fit scores the class with the least key
 * and bounds only the classes whose key is not above that score: a load-spreading policy's
 * best class is among the emptiest, so most classes are left at one multiplication.
 */
#include "pol-common.h"
#include "policy.h"

/* What a key of scalar's bound leaves below the GPU share after placement, (used + d) /
 * cap: far more than floating point takes from either side (a few units of 2^-53 on a share
 * of at most 1) plus the tie term (at most POL_TIE: a share leaves less than one GPU). */
#define SCALAR_KEY_SLACK 1e-9

/* The score of a placement with p's demands that leaves left (GPU-milli / 1000) on its
 * first GPU. */
static double scalar_of(const struct policy_ctx *ctx, const struct node_state *s,
			const struct placement *p, double left)
{
	double rest = 0;
	int nrest = 0;
	for (uint32_t m = ctx->dims & ~DIM_BIT(DIM_GPU) & DIMS_ALL; m; m &= m - 1) {
		int d = __builtin_ctz(m);
		if (s->cap[d] <= 0)
			continue;
		double u = 1 - pol_free_after(s, p, d);
		rest += u < 1 ? u : 1;
		nrest++;
	}
	rest = nrest > 1 ? rest / nrest : rest; /* x / 1 is x: no division for one dim */
	double score = (ctx->dims & DIM_BIT(DIM_GPU))
			       ? (s->cap[DIM_GPU] > 0 ? 1 - pol_free_after(s, p, DIM_GPU) : 0) +
					 1e-6 * rest
			       : rest;
	return score - POL_TIE * left + pol_oversub_at(ctx, s, p);
}

POL_BY_LEFT(scalar, scalar_of, 1)

/* Keys of scalar's bound (policy_ops.bound_keys) below which a class's bound never falls:
 * (used + d) / cap of the GPU, less SCALAR_KEY_SLACK (0 less it where gpu is not seen or
 * the node has none), by one multiplication. A job whose share lies outside 0..1000 gets
 * -infinity: keys do not prune it. */
static void scalar_bound_keys(const struct policy_ctx *ctx, const struct job *j, const void *recs,
			      const int32_t *pos, size_t m, double *out)
{
	struct placement p;
	cluster_placement_of(0, j, 0, &p);
	double dem = (double)p.dem[DIM_GPU], seen = ctx->dims & DIM_BIT(DIM_GPU) ? 1 : 0;
	if (p.milli < 0 || p.milli > 1000) {
		for (size_t i = 0; i < m; i++)
			out[i] = -INFINITY;
		return;
	}
	for (size_t i = 0; i < m; i++) {
		const struct pol_state_rec *r = (const struct pol_state_rec *)recs + pos[i];
		out[i] = seen * (((double)r->gpu_used + dem) * r->rcap[DIM_GPU]) - SCALAR_KEY_SLACK;
	}
}

const struct policy_ops pol_scalar_ops = {
	.name = "scalar",
	.summary = "spread load: lowest allocated GPU share, then cpu",
	.dims = DIM_BIT(DIM_CPU) | DIM_BIT(DIM_GPU),
	.flags = POLICY_F_BY_STATE,
	.pick = NULL,
	POL_BY_LEFT_OPS(scalar),
	.bound_keys = scalar_bound_keys,
};
