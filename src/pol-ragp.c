/*
 * pol-ragp.c — RAGP, residual-aware geometric packing: "what residual cluster will this
 * placement leave?". voidfit's own definition (the published formulas are not available);
 * ragp5 sees cpu, mem, gpu, hbm, net and ragp7 all seven dims. With S the seen dims:
 *
 *   score = dF + lambda * dStd + mu * sum_{k in S shared} g(u'_k) + pol_oversub
 *
 *   dF    expected stranded capacity added, in units of the node's GPU capacity (GPU-price
 *         equivalents): (md_after - md_before) / price_share_gpu with md = frag_node_md
 *         over S (before: ctx->node_md when the sim keeps it). Its GPU part is
 *         (F_n after - F_n) / cap_gpu, F_n as frag_node, except that a shape also "does not
 *         fit" when a shared dim of S lacks room for it, so GPUs stranded behind a full
 *         NIC count; each other dim k adds (price_share_k / price_share_gpu) times the
 *         change of its stranded share of cap_k;
 *   dStd  std_k(rho'_k) - std_k(rho_k): the residual-shape irregularity this placement
 *         adds; rho_k / rho'_k the free share of k before / after placement, clamped to
 *         [0, 1], over k in S with cap_k > 0; std is the population standard deviation
 *         (0 with fewer than two dims). DESIGN.md's std_k(rho'_k) alone draws jobs to idle
 *         nodes (their residual is flat): the difference left 0.02-0.08 points less GPU
 *         unallocated in the openb inflation benchmark (3 seeds) and scores fewer classes;
 *   u'_k  allocated share after placement of a shared dim (cap_k > 0);
 *   g(u)  = u^2 / (1 - u) for u <= 0.99; above, the tangent at 0.99, up to u = 1
 *         (g(0.99) = 98.01, g(1) = 198.0), so it stays finite; u' > 1 (oversubscription)
 *         also adds pol_oversub, POL_OVER = 1e9 plus the overshoot, which ranks it below
 *         every non-oversubscribing choice for any lambda, mu below ~1e6.
 * All three terms are dimensionless shares of the node, so lambda and mu (POLICY_LAMBDA,
 * POLICY_MU by default) weigh like against like.
 * bound: the score with md_after replaced by a lower bound from the share of the workload
 * that fits the node no more (ctx->node_nofit; 0 without it), cheap since only md_after
 * evaluates the target workload: the simulator scores nodes in bound order and stops early.
 */
#include "frag.h"
#include "pol-common.h"
#include "policy.h"

#define G_KNEE 0.99

static double congestion(double u)
{
	if (u <= G_KNEE)
		return u > 0 ? u * u / (1 - u) : 0;
	const double g0 = G_KNEE * G_KNEE / (1 - G_KNEE);
	const double slope = (2 * G_KNEE - G_KNEE * G_KNEE) / ((1 - G_KNEE) * (1 - G_KNEE));
	return g0 + slope * ((u < 1 ? u : 1) - G_KNEE);
}

/* Population standard deviation of the free shares, clamped to [0, 1], over the dims in
 * mask with capacity: after placing p, or now if p is NULL; 0 with fewer than two dims. */
static double shape_std(uint32_t mask, const struct node_state *s, const struct placement *p)
{
	double sum = 0, sum2 = 0;
	int k = 0;
	for (int d = 0; d < DIM_N; d++) {
		if (!(mask & DIM_BIT(d)) || s->cap[d] <= 0)
			continue;
		double r = p ? pol_free_after(s, p, d) : pol_free_now(s, d);
		r = r < 0 ? 0 : r > 1 ? 1 : r;
		sum += r;
		sum2 += r * r;
		k++;
	}
	if (k < 2)
		return 0;
	double mean = sum / k, var = sum2 / k - mean * mean;
	return var > 0 ? sqrt(var) : 0;
}

/* dF + lambda dStd + mu cong + pol_oversub: one expression for the score and its bound,
 * so the shared terms round alike. */
static double ragp_total(const struct policy_ctx *ctx, const struct node_state *s,
			 const struct placement *p, double dF)
{
	double cong = 0;
	for (int d = DIM_NET; d < DIM_N; d++)
		if ((ctx->dims & DIM_BIT(d)) && s->cap[d] > 0)
			cong += congestion(1 - pol_free_after(s, p, d));
	double sd = shape_std(ctx->dims, s, p) - shape_std(ctx->dims, s, NULL);
	return dF + ctx->lambda * sd + ctx->mu * cong + pol_oversub(ctx, p);
}

static double ragp_before(const struct policy_ctx *ctx, size_t n)
{
	return ctx->node_md ? ctx->node_md[n] : frag_node_md(ctx->c, n, ctx->wl, ctx->dims);
}

static double ragp_score(const struct policy_ctx *ctx, const struct job *j,
			 const struct placement *p)
{
	assert(ctx->wl);
	const struct cluster *c = ctx->c;
	size_t n = (size_t)p->node;
	double before = ragp_before(ctx, n);
	double after = frag_node_md_after(c, p, j, ctx->wl, ctx->dims, NULL);
	double dF = ctx->wl->price_share[DIM_GPU] > 0
			    ? (after - before) / ctx->wl->price_share[DIM_GPU]
			    : after - before;
	return ragp_total(ctx, pol_st(ctx, p), p, dF);
}

/*
 * A lower bound of md after, without evaluating the workload. A placement only takes room,
 * so (1) the shapes that do not fit now (popularity ctx->node_nofit) still do not after,
 * and each strands the whole free amount of every dim: md after >= sum_d price_share_d *
 * nofit * free_d after / cap_d (GPU and HBM frees summed over the GPUs, as frag.c does);
 * (2) no dim's stranded amount drops by more than the job takes of it times the popularity
 * of the shapes involved (nofit on the dims stranded all or nothing; on gpu and hbm a GPU
 * too small for a shape stays too small, so at most 1, the whole workload): md after >=
 * md before - sum_d price_share_d * that * dem_d / cap_d. The larger of the two, and 0.
 * Without node_nofit: 0.
 */
static double md_after_low(const struct policy_ctx *ctx, const struct node *sp,
			   const struct node_state *s, const struct placement *p, double before)
{
	if (!ctx->node_nofit)
		return 0;
	double pn = ctx->node_nofit[p->node];
	int64_t gtot = -p->dem[DIM_GPU], htot = -p->dem[DIM_HBM];
	for (int g = 0; g < sp->ngpu; g++) {
		gtot += s->gpu_free[g];
		htot += s->hbm_free[g];
	}
	double low1 = 0, drop = 0;
	for (int d = 0; d < DIM_N; d++) {
		if (!(ctx->dims & DIM_BIT(d)) || s->cap[d] <= 0)
			continue;
		int64_t fr = d == DIM_GPU   ? gtot
			     : d == DIM_HBM ? htot
					    : s->cap[d] - s->used[d] - p->dem[d];
		double ps = ctx->wl->price_share[d], cap = (double)s->cap[d];
		if (fr > 0)
			low1 += ps * (pn * (double)fr) / cap;
		drop += ps * (d == DIM_GPU || d == DIM_HBM ? 1.0 : pn) * (double)p->dem[d] / cap;
	}
	double low2 = before - drop;
	double low = low1 > low2 ? low1 : low2;
	return low > 0 ? low : 0;
}

/* The score with md after replaced by md_after_low (>= 0 if unknown), less a hair for
 * rounding; the other terms do not depend on the GPU choice. */
static double ragp_bound(const struct policy_ctx *ctx, const struct job *j, size_t n)
{
	assert(ctx->wl);
	struct placement p;
	const struct node_state *s = &ctx->c->st[n];
	double before = ragp_before(ctx, n);
	pol_dem_of(ctx->c, n, j, &p);
	double low = md_after_low(ctx, &ctx->c->spec[n], s, &p, before);
	double dF = ctx->wl->price_share[DIM_GPU] > 0
			    ? (low - before) / ctx->wl->price_share[DIM_GPU]
			    : low - before;
	double b = ragp_total(ctx, s, &p, dF);
	return b - 1e-9 * (fabs(b) + 1);
}

const struct policy_ops pol_ragp5_ops = {
	.name = "ragp5",
	.summary = "residual-aware geometric packing over cpu, mem, gpu, hbm, net",
	.dims = DIM_BIT(DIM_CPU) | DIM_BIT(DIM_MEM) | DIM_BIT(DIM_GPU) | DIM_BIT(DIM_HBM) |
		DIM_BIT(DIM_NET),
	.flags = POLICY_F_BY_STATE | POLICY_F_NODE_MD,
	.score = ragp_score,
	.pick = NULL,
	.bound = ragp_bound,
};

const struct policy_ops pol_ragp7_ops = {
	.name = "ragp7",
	.summary = "RAGP-I/O: residual-aware geometric packing over all seven dims",
	.dims = DIMS_ALL,
	.flags = POLICY_F_BY_STATE | POLICY_F_NODE_MD,
	.score = ragp_score,
	.pick = NULL,
	.bound = ragp_bound,
};
