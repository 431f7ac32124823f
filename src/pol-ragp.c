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
 * that fits the node no more (ctx->node_nofit; 0 without it) and, for a whole-GPU job, the
 * whole-GPU shapes that will lack idle GPUs (share_idle_stopped: most searches for such a
 * job end on it), cheap since only md_after evaluates the target workload: the simulator
 * scores nodes in bound order and stops early. bound2 adds the other shapes that fit now
 * but surely not after (ctx->node_fits: a dim with room for the job but not for the shape
 * too), a few compares per shape: the node is scored only if that comes first too.
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

/* Population standard deviation of k values, from their sum and sum of squares; 0 with
 * fewer than two. */
static double std_of(double sum, double sum2, int k)
{
	if (k < 2)
		return 0;
	double mean = sum / k, var = sum2 / k - mean * mean;
	return var > 0 ? sqrt(var) : 0;
}

/* The free shares over the seen dims, after and now, clamped to [0, 1]: sums for dStd. */
struct shares {
	double sa, sa2, sn, sn2;
	int k;
};

static inline void shares_add(struct shares *h, double fa, double fn)
{
	fa = fa < 0 ? 0 : fa > 1 ? 1 : fa;
	fn = fn < 0 ? 0 : fn > 1 ? 1 : fn;
	h->sa += fa;
	h->sa2 += fa * fa;
	h->sn += fn;
	h->sn2 += fn * fn;
	h->k++;
}

/* std_k(rho'_k) - std_k(rho_k) */
static double shares_dstd(const struct shares *h)
{
	return std_of(h->sa, h->sa2, h->k) - std_of(h->sn, h->sn2, h->k);
}

/* dF + lambda dStd + mu cong + pol_oversub. dStd is the change of the standard deviation
 * of the free shares, clamped to [0, 1], over the seen dims with capacity, one pass for
 * both. ragp_bound takes the same terms with one division per dim: its hair covers the
 * rounding this changes. */
static double ragp_total(const struct policy_ctx *ctx, const struct node_state *s,
			 const struct placement *p, double dF)
{
	double cong = 0;
	struct shares sh = {0};
	for (int d = 0; d < DIM_N; d++) {
		if (!(ctx->dims & DIM_BIT(d)) || s->cap[d] <= 0)
			continue;
		double fa = pol_free_after(s, p, d), fn = pol_free_now(s, d);
		if (d >= DIM_NET)
			cong += congestion(1 - fa);
		shares_add(&sh, fa, fn);
	}
	double sd = shares_dstd(&sh);
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

/* The idle GPUs p takes: its GPUs if it is a whole-GPU job, else 0. */
static int whole_taken(const struct placement *p)
{
	return p->dem[DIM_GPU] > 0 && p->milli == 1000 ? (int)(p->dem[DIM_GPU] / 1000) : 0;
}

/* The summed popularity of the shapes that fit on the node now (ctx->node_fits) but surely
 * not after p: one of cpu, mem or a seen shared dim lacks room for them, or (a whole-GPU
 * job taking idle GPUs) fewer idle GPUs are left than a whole-GPU shape wants. */
static double share_stopped(const struct policy_ctx *ctx, const struct node_state *s,
			    const struct placement *p, int idle)
{
	const struct frag_workload *w = ctx->wl;
	uint64_t fits = ctx->node_fits[p->node][1];
	int taken = whole_taken(p);
	int64_t room[DIM_N];
	for (int d = 0; d < DIM_N; d++)
		room[d] = (d <= DIM_MEM || (d >= DIM_NET && (ctx->dims & DIM_BIT(d))))
				  ? s->cap[d] - s->used[d] - p->dem[d]
				  : INT64_MAX;
	double ps = 0;
	if (w->n < 64)
		fits &= ((uint64_t)1 << w->n) - 1;
	for (; fits; fits &= fits - 1) {
		const struct frag_shape *m = &w->shapes[__builtin_ctzll(fits)];
		const int64_t *md = m->dem;
		int stop = (md[DIM_CPU] > 0) & (md[DIM_CPU] > room[DIM_CPU]);
		stop |= (md[DIM_MEM] > 0) & (md[DIM_MEM] > room[DIM_MEM]);
		stop |= (md[DIM_NET] > 0) & (md[DIM_NET] > room[DIM_NET]);
		stop |= (md[DIM_STO] > 0) & (md[DIM_STO] > room[DIM_STO]);
		stop |= (md[DIM_IOCPU] > 0) & (md[DIM_IOCPU] > room[DIM_IOCPU]);
		if (stop ||
		    (taken && m->num_gpu > 0 && m->gpu_milli == 1000 && idle - taken < m->num_gpu))
			ps += m->p;
	}
	return ps;
}

/* The part of share_stopped that p, on a node with idle GPUs, surely causes if it takes
 * idle GPUs (a whole-GPU job): the whole-GPU shapes that fit now but want more idle GPUs
 * than are left. 0 for other jobs. */
static double share_idle_stopped(const struct policy_ctx *ctx, const struct placement *p, int idle)
{
	const struct frag_workload *w = ctx->wl;
	int left = idle - whole_taken(p);
	if (left == idle || !ctx->node_fits)
		return 0;
	/* the whole-GPU shapes that want more than left (a hand-built w: every shape) */
	uint64_t fits = ctx->node_fits[p->node][1];
	if (w->need)
		fits &= w->whole_over[left > 0 ? left : 0];
	if (w->n < 64)
		fits &= ((uint64_t)1 << w->n) - 1;
	double ps = 0;
	for (; fits; fits &= fits - 1) {
		const struct frag_shape *m = &w->shapes[__builtin_ctzll(fits)];
		if (m->num_gpu > 0 && m->gpu_milli == 1000 && left < m->num_gpu)
			ps += m->p;
	}
	return ps;
}

/*
 * A lower bound of md after, without evaluating the workload. A placement only takes room,
 * so (1) the shapes that do not fit now (popularity ctx->node_nofit) still do not after,
 * and each strands the whole free amount of every dim: md after >= sum_d price_share_d *
 * nofit * free_d after / cap_d (GPU and HBM frees summed over the GPUs, as frag.c does);
 * (2) no dim's stranded amount drops by more than the job takes of it times the popularity
 * of the shapes involved: nofit on the dims stranded all or nothing; on gpu and hbm, nofit
 * plus the CPU-only shapes (they strand all free GPU), plus for a shared job the shapes a
 * GPU it may take could be too small for (frag_share_small, with the least free milli and
 * HBM among the GPUs it may take: pol_least_room): a GPU too small for a shape
 * stays too small, and a whole-GPU job takes idle GPUs, large enough for every shape that
 * fits. md after >= md before - sum_d price_share_d * that * dem_d / cap_d. The larger of
 * the two, and 0. Shapes that fit now but surely not after strand all free capacity after,
 * like those in nofit: they are added to nofit in (1) and to the stranded amounts of the
 * dims other than gpu and hbm in (2); the bound returned adds the whole-GPU shapes short of
 * idle GPUs (share_idle_stopped), and with_stopped, if not NULL, receives it with all such
 * shapes (share_stopped).
 * Without node_nofit: 0.
 */
static double md_after_low(const struct policy_ctx *ctx, const struct node *sp,
			   const struct node_state *s, const struct placement *p, double before,
			   double *with_stopped)
{
	if (!ctx->node_nofit) {
		if (with_stopped)
			*with_stopped = 0;
		return 0;
	}
	const struct frag_workload *w = ctx->wl;
	double pn = ctx->node_nofit[p->node];
	int64_t gtot = -p->dem[DIM_GPU], htot = -p->dem[DIM_HBM];
	int idle = 0;
	for (int g = 0; g < sp->ngpu; g++) {
		gtot += s->gpu_free[g];
		htot += s->hbm_free[g];
		idle += s->gpu_free[g] == 1000;
	}
	/* free after, weighted: fall (all dims) and fother (not gpu, hbm); drop = dother +
	 * gshare * dgpu, gshare what the stranded GPU and HBM can lose per unit taken */
	double fall = 0, fother = 0, dother = 0, dgpu = 0;
	for (int d = 0; d < DIM_N; d++) {
		if (!(ctx->dims & DIM_BIT(d)) || s->cap[d] <= 0)
			continue;
		int64_t fr = d == DIM_GPU   ? gtot
			     : d == DIM_HBM ? htot
					    : s->cap[d] - s->used[d] - p->dem[d];
		double wd = w->price_share[d] / (double)s->cap[d]; /* hair covers rounding */
		double f = fr > 0 ? (double)fr * wd : 0;
		fall += f;
		if (d == DIM_GPU || d == DIM_HBM) {
			dgpu += (double)p->dem[d] * wd;
		} else {
			fother += f;
			dother += pn * (double)p->dem[d] * wd;
		}
	}
	double low1 = pn * fall;
	double gshare = pn + frag_share_cpu(w);
	double low2 = before - (dother + (gshare < 1 ? gshare : 1) * dgpu);
	int shared = p->dem[DIM_GPU] > 0 && p->milli < 1000;
	if (shared && (with_stopped || (low2 > low1 && low2 > 0))) {
		/* a shared job: the shapes its GPU may be too small for lose too */
		int32_t gmin = p->milli;
		int64_t hmin = p->hbm;
		pol_least_room(ctx->c, (size_t)p->node, p->milli, p->hbm, &gmin, &hmin);
		gshare += frag_share_small(ctx->c, (size_t)p->node, w, gmin, hmin);
		low2 = before - (dother + (gshare < 1 ? gshare : 1) * dgpu);
	}
	double pidle = share_idle_stopped(ctx, p, idle);
	double lo1 = (pn + pidle) * fall, lo2 = low2 + pidle * fother;
	double low = lo1 > lo2 ? lo1 : lo2;
	if (with_stopped) {
		double pstop = ctx->node_fits ? share_stopped(ctx, s, p, idle) : 0;
		double l1 = (pn + pstop) * fall, l2 = low2 + pstop * fother;
		*with_stopped = l1 > l2 ? l1 : l2;
		*with_stopped = *with_stopped > 0 ? *with_stopped : 0;
	}
	return low > 0 ? low : 0;
}

/* The score with md after replaced by md_after_low (>= 0 if unknown), less a hair for
 * rounding; the other terms do not depend on the GPU choice. The simulator asks it for
 * every class that may fit, so md_after_low's sums (without the stopped shapes) and
 * ragp_terms' (fast) are taken in one pass over the dims with one division per dim; the
 * hair covers the rounding this changes. */
static double ragp_bound(const struct policy_ctx *ctx, const struct job *j, size_t n)
{
	assert(ctx->wl);
	const struct frag_workload *w = ctx->wl;
	const struct node_state *s = &ctx->c->st[n];
	const struct node *sp = &ctx->c->spec[n];
	struct placement p;
	double before = ragp_before(ctx, n);
	pol_dem_of(ctx->c, n, j, &p);
	double pn = ctx->node_nofit ? ctx->node_nofit[n] : 0;
	int64_t gtot = -p.dem[DIM_GPU], htot = -p.dem[DIM_HBM];
	int idle = 0;
	for (int g = 0; g < sp->ngpu; g++) {
		gtot += s->gpu_free[g];
		htot += s->hbm_free[g];
		idle += s->gpu_free[g] == 1000;
	}
	double fall = 0, fother = 0, dother = 0, dgpu = 0; /* as in md_after_low */
	double cong = 0;
	struct shares sh = {0};
	for (int d = 0; d < DIM_N; d++) {
		if (!(ctx->dims & DIM_BIT(d)) || s->cap[d] <= 0)
			continue;
		double inv = 1.0 / (double)s->cap[d];
		int64_t fr = d == DIM_GPU   ? gtot
			     : d == DIM_HBM ? htot
					    : s->cap[d] - s->used[d] - p.dem[d];
		double wd = w->price_share[d] * inv;
		double f = fr > 0 ? (double)fr * wd : 0;
		fall += f;
		if (d == DIM_GPU || d == DIM_HBM) {
			dgpu += (double)p.dem[d] * wd;
		} else {
			fother += f;
			dother += pn * (double)p.dem[d] * wd;
		}
		double fn = (double)(s->cap[d] - s->used[d]) * inv;
		double fa = fn - (double)p.dem[d] * inv;
		if (d >= DIM_NET)
			cong += congestion(1 - fa);
		shares_add(&sh, fa, fn);
	}
	double low = 0;
	if (ctx->node_nofit) {
		double low1 = pn * fall, gshare = pn + frag_share_cpu(w);
		double low2 = before - (dother + (gshare < 1 ? gshare : 1) * dgpu);
		if (p.dem[DIM_GPU] > 0 && p.milli < 1000 && low2 > low1 && low2 > 0) {
			int32_t gmin = p.milli;
			int64_t hmin = p.hbm;
			pol_least_room(ctx->c, n, p.milli, p.hbm, &gmin, &hmin);
			gshare += frag_share_small(ctx->c, n, w, gmin, hmin);
			low2 = before - (dother + (gshare < 1 ? gshare : 1) * dgpu);
		}
		double pidle = share_idle_stopped(ctx, &p, idle);
		low1 = (pn + pidle) * fall;
		low2 += pidle * fother;
		low = low1 > low2 ? low1 : low2;
		low = low > 0 ? low : 0;
	}
	double dF = w->price_share[DIM_GPU] > 0 ? (low - before) / w->price_share[DIM_GPU]
						: low - before;
	double sd = shares_dstd(&sh);
	double b = dF + ctx->lambda * sd + ctx->mu * cong + pol_oversub(ctx, &p);
	return b - 1e-9 * (fabs(b) + 1);
}

/* bound2: bound plus what the shapes that surely stop fitting (share_stopped) add to md
 * after, over md_after_low without them; dF is the only term that changes, and linearly. */
static double ragp_bound2(const struct policy_ctx *ctx, const struct job *j, size_t n, double bound)
{
	assert(ctx->wl);
	struct placement p;
	const struct node_state *s = &ctx->c->st[n];
	double before = ragp_before(ctx, n), hi;
	pol_dem_of(ctx->c, n, j, &p);
	double lo = md_after_low(ctx, &ctx->c->spec[n], s, &p, before, &hi);
	if (!(hi > lo))
		return bound;
	double ps = ctx->wl->price_share[DIM_GPU];
	double add = ps > 0 ? (hi - lo) / ps : hi - lo;
	return bound + add - 1e-9 * (fabs(bound) + add + 1);
}

const struct policy_ops pol_ragp5_ops = {
	.name = "ragp5",
	.summary = "residual-aware geometric packing over cpu, mem, gpu, hbm, net",
	.dims = DIM_BIT(DIM_CPU) | DIM_BIT(DIM_MEM) | DIM_BIT(DIM_GPU) | DIM_BIT(DIM_HBM) |
		DIM_BIT(DIM_NET),
	.flags = POLICY_F_BY_STATE | POLICY_F_NODE_MD | POLICY_F_DEAR_BOUND,
	.score = ragp_score,
	.pick = NULL,
	.bound = ragp_bound,
	.bound2 = ragp_bound2,
};

const struct policy_ops pol_ragp7_ops = {
	.name = "ragp7",
	.summary = "RAGP-I/O: residual-aware geometric packing over all seven dims",
	.dims = DIMS_ALL,
	/* the article's RAGP-I/O: storage bandwidth and I/O CPU are feasibility */
	.flags = POLICY_F_BY_STATE | POLICY_F_NODE_MD | POLICY_F_IO_ADMIT | POLICY_F_DEAR_BOUND,
	.score = ragp_score,
	.pick = NULL,
	.bound = ragp_bound,
	.bound2 = ragp_bound2,
};
