/*
 * pol-fgd.c — Fragmentation Gradient Descent (Weng et al., ATC 2023): the placement that
 * raises the node's expected fragmentation F_n least.
 *
 * score = frag_node_after(p) - F_n   (GPU-milli; F_n from ctx->node_frag, else frag_node)
 *       + pol_oversub
 * Shared jobs: each GPU choice gives its own F_n after, so the GPU that raises it least
 * wins. Default dims gpu.
 * bound: F_n after is >= 0, so (0 - F_n) + pol_oversub bounds the score from below; the
 * simulator skips nodes whose F_n is too small to beat the best placement found.
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
	return 0.0 - before + pol_oversub(ctx, &p);
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
