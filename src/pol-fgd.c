/*
 * pol-fgd.c — Fragmentation Gradient Descent (Weng et al., ATC 2023): the placement that
 * raises the node's expected fragmentation F_n least.
 *
 * score = frag_node_after(p) - F_n   (GPU-milli; F_n from ctx->node_frag, else frag_node)
 *       + pol_oversub
 * Shared jobs: each GPU choice gives its own F_n after, so the GPU that raises it least
 * wins. Default dims gpu.
 * bound: the larger of two lower bounds of F_n after - F_n, plus pol_oversub:
 *   - F_n after is >= 0, so -F_n;
 *   - a placement taking g GPU-milli lowers F_n(m) by g for the shapes whose F_n(m) is all
 *     the free GPU (CPU-only shapes, and shapes that do not fit: ctx->node_fnofit); for a
 *     shape that fits it can only lower the free milli of GPUs already too small for m,
 *     which a whole-GPU job never touches (it takes idle GPUs, which are large enough for
 *     every shape that fits) and a shared job does only when m wants more milli or HBM per
 *     GPU than the GPU it takes has (frag_share_small, with the least room of the GPUs it
 *     may take). So F_n after - F_n >= -g (fnofit + that share), less a hair for rounding.
 *     A CPU-only job (g = 0) lowers no term, and F_n sums its terms in a fixed order, so
 *     F_n after - F_n >= 0 holds exactly: its bound is 0 (+ pol_oversub), no hair, and the
 *     nodes where nothing changes tie at 0 and go by index.
 * The simulator skips nodes whose bound cannot beat the best placement found.
 */
#include "frag.h"
#include "pol-common.h"
#include "policy.h"

static double fgd_score(const struct policy_ctx *ctx, const struct job *j,
			const struct placement *p)
{
	assert(ctx->wl);
	double before = ctx->node_frag ? ctx->node_frag[p->node]
				       : frag_node(ctx->c, (size_t)p->node, ctx->wl);
	return frag_node_after(ctx->c, p, j, ctx->wl) - before + pol_oversub(ctx, p);
}

static double fgd_bound(const struct policy_ctx *ctx, const struct job *j, size_t n)
{
	assert(ctx->wl);
	struct placement p;
	double before = ctx->node_frag ? ctx->node_frag[n] : frag_node(ctx->c, n, ctx->wl);
	pol_dem_of(ctx->c, n, j, &p);
	double b = 0.0 - before;
	if (p.dem[DIM_GPU] == 0) {
		b = 0; /* exact: every F_n(m) term after is >= the one before, and sums round alike
			*/
	} else if (ctx->node_fnofit) {
		double g = (double)p.dem[DIM_GPU], share = ctx->node_fnofit[n];
		double hair = 1e-9 * (before + g + 1), low = -(g * share) - hair;
		int32_t gmin = p.milli;
		int64_t hmin = p.hbm;
		if (low > b && p.milli < 1000) { /* else it cannot help */
			pol_least_room(ctx->c, n, p.milli, p.hbm, &gmin, &hmin);
			share += frag_share_small(cluster_gpu_hbm(ctx->c, n), ctx->wl, gmin, hmin);
			low = -(g * share) - hair;
		}
		b = low > b ? low : b;
	}
	return b + pol_oversub(ctx, &p);
}

const struct policy_ops pol_fgd_ops = {
	.name = "fgd",
	.summary = "fragmentation gradient descent: least increase of expected fragmentation",
	.dims = DIM_BIT(DIM_GPU),
	.flags = POLICY_F_BY_STATE,
	.score = fgd_score,
	.pick = NULL,
	.bound = fgd_bound,
};
