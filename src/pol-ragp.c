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
 * that fits the node no more (ctx->node_nofit; 0 without it) and the shapes that fit now
 * but will lack GPUs (idle_stops): for a whole-GPU job those the idle GPUs it takes leave
 * short, for a shared job that has room on idle GPUs only the whole-GPU shapes (most
 * searches for such jobs end on these), cheap since only md_after evaluates the target
 * workload: the simulator scores nodes in bound order and stops early. It reads a record
 * of the node (ragp_rec, kept by the simulator through ragp_prep) rather than the node's
 * state, since a search bounds many nodes for each one it scores; the class search bounds
 * all the classes that may fit in one call (ragp_bound_recs: what depends on the job alone
 * once), from copies of the records it keeps in class order, each bound the same double as
 * ragp_bound's.
 */
#include <string.h>

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
	return dF + ctx->param[POLICY_P_LAMBDA] * sd + ctx->param[POLICY_P_MU] * cong +
	       pol_oversub(ctx, p);
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
 * The summed popularity of the GPU shapes that fit on node n now (ctx->node_fits[n][1]) and
 * surely no more once a job turns idle GPUs busy leaving left idle, for each left below
 * idle (the node's idle GPUs; left 0 alone when there are none): in whole[left], the
 * whole-GPU shapes that want more than left idle GPUs, which any job that takes only idle
 * GPUs stops; in all[left] also the shapes that every idle GPU meets now (free milli and
 * HBM per GPU, as frag.c counts) and that the GPUs a whole-GPU job takes, idle before and
 * with no milli free after, leave with too few: a shape that ok GPUs meet then has
 * ok - (idle - left). Each sum in the order of the shapes, so all[left] >= whole[left].
 */
static void idle_stops(const struct policy_ctx *ctx, size_t n, int idle, double *whole, double *all)
{
	const struct frag_workload *w = ctx->wl;
	const struct node_state *s = &ctx->c->st[n];
	int ngpu = ctx->c->spec[n].ngpu, nleft = idle > 0 ? idle : 1;
	int64_t ghbm = cluster_gpu_hbm(ctx->c, n);
	uint64_t fits = ctx->node_fits[n][1];
	if (w->n < 64)
		fits &= ((uint64_t)1 << w->n) - 1;
	for (int left = 0; left < nleft; left++)
		whole[left] = all[left] = 0;
	for (; fits; fits &= fits - 1) {
		const struct frag_shape *m = &w->shapes[__builtin_ctzll(fits)];
		if (m->num_gpu <= 0)
			continue;
		int32_t mm = m->gpu_milli;
		int64_t mh = m->dem[DIM_HBM] >= 0 ? m->dem[DIM_HBM] / m->num_gpu
						  : ghbm * mm / 1000; /* frag.c's need_hbm */
		int ok = 0, idle_ok = mm > 0;
		for (int g = 0; g < ngpu; g++) {
			int met = s->gpu_free[g] >= mm && s->hbm_free[g] >= mh;
			ok += met;
			idle_ok &= met || s->gpu_free[g] != 1000;
		}
		for (int left = 0; left < nleft; left++) {
			int wh = mm == 1000 && left < m->num_gpu;
			if (wh)
				whole[left] += m->p;
			if (wh || (idle_ok && ok - (idle - left) < m->num_gpu))
				all[left] += m->p;
		}
	}
}

/* What ragp_bound needs of a node apart from the job (ragp_prep). Over the dims outside
 * dmask inv is 0, and so is what the bound works out from it, so a pass over every dim adds
 * nothing for them. */
struct ragp_rec {
	double before, pn;    /* md now (ragp_before), node_nofit (0 without) */
	double std_now;       /* std of the free shares now, as shares_dstd takes it */
	uint32_t dmask;       /* the seen dims with capacity */
	int32_t k;            /* how many */
	int32_t idle;         /* idle GPUs */
	int32_t gnmax;        /* the most free milli of a GPU not idle, -1 if none */
	int64_t gpu_hbm;      /* HBM of one GPU (cluster_job_hbm) */
	int64_t gfree, hfree; /* free GPU-milli and HBM summed over the GPUs */
	double inv[DIM_N];    /* 1 / cap */
	int64_t fr[DIM_N];    /* cap - used over the seen dims */
	/* read less often: */
	int32_t ngpu;
	int32_t gpu_free[CLUSTER_MAX_GPUS]; /* per GPU (pol_least_room_of) */
	int64_t hbm_free[CLUSTER_MAX_GPUS];
	int64_t cap[DIM_N]; /* over the seen dims (pol_oversub_of) */
	/* idle_stops(left) for left < idle, or 0: all (pidle), and whole (pwhole) */
	double pidle[CLUSTER_MAX_GPUS + 1];
	double pwhole[CLUSTER_MAX_GPUS + 1];
};

static void ragp_prep(const struct policy_ctx *ctx, size_t n, void *out)
{
	const struct node_state *s = &ctx->c->st[n];
	const struct node *sp = &ctx->c->spec[n];
	struct ragp_rec *r = out;
	memset(r, 0, sizeof *r);
	r->before = ragp_before(ctx, n);
	r->pn = ctx->node_nofit ? ctx->node_nofit[n] : 0;
	r->gpu_hbm = cluster_gpu_hbm(ctx->c, n);
	r->ngpu = sp->ngpu;
	for (int g = 0; g < sp->ngpu; g++) {
		r->gpu_free[g] = s->gpu_free[g];
		r->hbm_free[g] = s->hbm_free[g];
		r->gfree += s->gpu_free[g];
		r->hfree += s->hbm_free[g];
		r->idle += s->gpu_free[g] == 1000;
	}
	r->gnmax = -1;
	for (int g = 0; g < sp->ngpu; g++)
		if (s->gpu_free[g] < 1000 && s->gpu_free[g] > r->gnmax)
			r->gnmax = s->gpu_free[g];
	struct shares sh = {0};
	for (int d = 0; d < DIM_N; d++) {
		if (!(ctx->dims & DIM_BIT(d)))
			continue;
		r->cap[d] = s->cap[d];
		r->fr[d] = s->cap[d] - s->used[d];
		if (s->cap[d] <= 0)
			continue;
		r->dmask |= DIM_BIT(d);
		r->k++;
		r->inv[d] = 1.0 / (double)s->cap[d];
		double fn = (double)r->fr[d] * r->inv[d];
		shares_add(&sh, fn, fn);
	}
	r->std_now = std_of(sh.sn, sh.sn2, sh.k);
	/* left < 0 (a job that cannot fit) reads left 0; without node_fits, all 0 */
	if (ctx->node_fits)
		idle_stops(ctx, n, r->idle, r->pwhole, r->pidle);
}

/* What ragp_bound takes of the job, the same on every node. */
struct ragp_job {
	int32_t milli;     /* GPU-milli a GPU of it takes (0 for a CPU-only job) */
	int32_t taken;     /* the idle GPUs a whole-GPU job takes, else 0 */
	int shared;        /* a share of one GPU */
	int64_t hbm;       /* the HBM it takes of each GPU (cluster_hbm_of), -1: by the node's */
	double dem[DIM_N]; /* what it takes of each dim but hbm (cluster_placement_of) */
	double share_cpu;  /* frag_share_cpu of the workload */
};

static void ragp_job_of(const struct policy_ctx *ctx, const struct job *j, struct ragp_job *q)
{
	q->milli = j->num_gpu > 0 ? j->gpu_milli : 0;
	q->taken = j->num_gpu > 0 && q->milli == 1000 ? j->num_gpu : 0;
	q->shared = j->num_gpu > 0 && q->milli < 1000;
	/* whole numbers: the arithmetic below is exact as in int64_t */
	for (int d = 0; d < DIM_N; d++)
		q->dem[d] = (double)(j->dem[d] > 0 ? j->dem[d] : 0);
	q->dem[DIM_GPU] = (double)((int64_t)j->num_gpu * q->milli);
	q->dem[DIM_HBM] = 0;
	q->hbm = j->num_gpu <= 0 ? 0 : j->dem[DIM_HBM] >= 0 ? cluster_hbm_of(0, j) : -1;
	q->share_cpu = ctx->node_nofit ? frag_share_cpu(ctx->wl) : 0;
}

/*
 * The score with md after replaced by a lower bound of it that does not evaluate the
 * workload, less a hair for rounding; the other terms do not depend on the GPU choice. A
 * placement only takes room, so (1) the shapes that do not fit now (popularity pn,
 * ctx->node_nofit) still do not after, and each strands the whole free amount of every
 * dim: md after >= sum_d price_share_d * pn * free_d after / cap_d (GPU and HBM frees
 * summed over the GPUs, as frag.c does); (2) no dim's stranded amount drops by more than
 * the job takes of it times the popularity of the shapes involved: pn on the dims stranded
 * all or nothing; on gpu and hbm, pn plus the CPU-only shapes (they strand all free GPU),
 * plus for a shared job the shapes a GPU it may take could be too small for
 * (frag_share_small, with the least free milli and HBM among the GPUs it may take:
 * pol_least_room): a GPU too small for a shape stays too small, and a whole-GPU job takes
 * idle GPUs, large enough for every shape that fits. md after >= md before - sum_d
 * price_share_d * that * dem_d / cap_d. The larger of the two, and 0. The shapes that fit
 * now but surely not after (idle_stops: for a whole-GPU job r->pidle, for a shared job whose
 * GPUs can only be idle ones r->pwhole) strand all free capacity after, like those in pn:
 * they are added to pn in (1) and to the stranded amounts of the dims other than gpu and
 * hbm in (2) (their stranded GPU and HBM do not drop: the GPUs the job takes met them, or
 * they are among the small ones of a shared job). Without node_nofit md after's bound is 0.
 * The simulator asks it for every class that may fit, so it reads the node's ragp_rec r and
 * the job's part q, and both sums and ragp_total's terms are taken in one pass over the
 * dims with one division per dim; the hair covers the rounding this changes. (Inlined
 * always: GCC would otherwise call it from ragp_bound_recs's loop.)
 */
static inline __attribute__((always_inline)) double ragp_bound_of(const struct policy_ctx *ctx,
								  const struct job *j,
								  const struct ragp_job *q,
								  const struct ragp_rec *r)
{
	const struct frag_workload *w = ctx->wl;
	int32_t milli = q->milli;
	int64_t hbm = q->hbm >= 0 ? q->hbm : cluster_hbm_of(r->gpu_hbm, j);
	double dem[DIM_N];
#pragma GCC unroll 7
	for (int d = 0; d < DIM_N; d++)
		dem[d] = q->dem[d];
	dem[DIM_HBM] = (double)((int64_t)j->num_gpu * hbm);
	double before = r->before, pn = r->pn;
	/* free after, weighted: fall (all dims) and fother (not gpu, hbm); drop = dother +
	 * gshare dgpu, gshare what the stranded GPU and HBM can lose per unit taken */
	double fall = 0, fother = 0, dother = 0, dgpu = 0;
	double cong = 0, sa = 0, sa2 = 0;
	int over = 0;
#pragma GCC unroll 7 /* each dim's role is then known where it is compiled */
	for (int d = 0; d < DIM_N; d++) {
		/* the free amount as frag.c takes it (GPU and HBM summed over the GPUs), the
		 * dim's price share over cap, and the free share now: worked out here, not
		 * kept, so a bound reads less (outside dmask inv is 0, and so are they) */
		double fs = (double)(d == DIM_GPU ? r->gfree : d == DIM_HBM ? r->hfree : r->fr[d]);
		double wd = w->price_share[d] * r->inv[d], fn = (double)r->fr[d] * r->inv[d];
		double left = fs - dem[d];
		double f = left > 0 ? left * wd : 0;
		fall += f;
		if (d == DIM_GPU || d == DIM_HBM) {
			dgpu += dem[d] * wd;
		} else {
			fother += f;
			dother += pn * dem[d] * wd;
		}
		double fa = fn - dem[d] * r->inv[d];
		if (d >= DIM_NET && (r->dmask & DIM_BIT(d)))
			cong += congestion(1 - fa);
		if (d >= DIM_NET && (ctx->dims & DIM_BIT(d)))
			over |= dem[d] > 0 && dem[d] > (double)r->fr[d];
		fa = fa < 0 ? 0 : fa > 1 ? 1 : fa;
		sa += fa;
		sa2 += fa * fa;
	}
	double low = 0;
	if (ctx->node_nofit) {
		double low1 = pn * fall, gshare = pn + q->share_cpu;
		double low2 = before - (dother + (gshare < 1 ? gshare : 1) * dgpu);
		if (q->shared && low2 > low1 && low2 > 0) {
			int32_t gmin = milli;
			int64_t hmin = hbm;
			pol_least_room_of(r->gpu_free, r->hbm_free, r->ngpu, milli, hbm, &gmin,
					  &hmin);
			gshare += frag_share_small(r->gpu_hbm, w, gmin, hmin);
			low2 = before - (dother + (gshare < 1 ? gshare : 1) * dgpu);
		}
		/* the idle GPUs a whole-GPU job takes, or a shared job for which no GPU but an
		 * idle one has milli enough (r->gnmax) */
		int left = r->idle - j->num_gpu;
		left = left > 0 ? left : 0;
		double pidle = q->taken                        ? r->pidle[left]
			       : q->shared && r->gnmax < milli ? r->pwhole[left]
							       : 0;
		low1 = (pn + pidle) * fall;
		low2 += pidle * fother;
		low = low1 > low2 ? low1 : low2;
		low = low > 0 ? low : 0;
	}
	double dF = w->price_share[DIM_GPU] > 0 ? (low - before) / w->price_share[DIM_GPU]
						: low - before;
	double sd = std_of(sa, sa2, r->k) - r->std_now;
	double b = dF + ctx->param[POLICY_P_LAMBDA] * sd + ctx->param[POLICY_P_MU] * cong;
	if (over) { /* rare: the overshoot as pol_oversub_of takes it (it reads no node) */
		struct placement p;
		cluster_placement_of(0, j, hbm, &p);
		b += pol_oversub_of(ctx->dims, r->cap, r->fr, &p);
	}
	return b - 1e-9 * (fabs(b) + 1);
}

static double ragp_bound(const struct policy_ctx *ctx, const struct job *j, size_t n)
{
	assert(ctx->wl);
	const struct ragp_rec *r = (const struct ragp_rec *)ctx->node_prep + n;
	struct ragp_rec own;
	struct ragp_job q;
	if (!ctx->node_prep) { /* a ctx the simulator does not keep */
		ragp_prep(ctx, n, &own);
		r = &own;
	}
	ragp_job_of(ctx, j, &q);
	return ragp_bound_of(ctx, j, &q, r);
}

/* ragp_bound on many records: the job's part once. The records of the classes that may fit
 * lie apart, so what the bound will read of the record RAGP_AHEAD records ahead is fetched
 * meanwhile: its hot part, one prefetch per 128 bytes (x86 caches fetch 64-byte lines in
 * pairs: it measured a little faster than one per line), and for a shared job the first
 * GPUs' free milli and HBM and the first entries of pwhole, for a whole-GPU job the first
 * entries of pidle (the colder fields a bound of such a job reads). */
#define RAGP_AHEAD 4
#define RAGP_HOT   offsetof(struct ragp_rec, ngpu)
static void ragp_bound_recs(const struct policy_ctx *ctx, const struct job *j, const void *recs,
			    const int32_t *pos, size_t m, double *out)
{
	assert(ctx->wl);
	const struct ragp_rec *r = recs;
	struct ragp_job q;
	size_t cold[4], ncold = 0;
	ragp_job_of(ctx, j, &q);
	if (q.shared) {
		cold[ncold++] = offsetof(struct ragp_rec, gpu_free);
		cold[ncold++] = offsetof(struct ragp_rec, hbm_free);
		cold[ncold++] = offsetof(struct ragp_rec, pwhole);
	} else if (q.taken) {
		cold[ncold++] = offsetof(struct ragp_rec, pidle);
	}
	for (size_t i = 0; i < m; i++) {
		if (i + RAGP_AHEAD < m) {
			const char *a = (const char *)(r + pos[i + RAGP_AHEAD]);
			for (size_t b = 0; b < RAGP_HOT; b += 128)
				__builtin_prefetch(a + b);
			for (size_t c = 0; c < ncold; c++)
				__builtin_prefetch(a + cold[c]);
		}
		out[i] = ragp_bound_of(ctx, j, &q, r + pos[i]);
	}
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
	.prep = ragp_prep,
	.prep_size = sizeof(struct ragp_rec),
	.bound_recs = ragp_bound_recs,
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
	.prep = ragp_prep,
	.prep_size = sizeof(struct ragp_rec),
	.bound_recs = ragp_bound_recs,
};
