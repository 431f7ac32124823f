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
#ifdef __SSE2__
#include <emmintrin.h>
#endif

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

/* The bound takes the dims in pairs, (cpu, mem), (gpu, hbm), (net, sto), (iocpu, none), two
 * doubles at a time: one SSE2 register each where the target has them (GCC's vector
 * extension; elsewhere the compiler splits them). Lane by lane the arithmetic is that of
 * doubles: the same roundings. */
#define RAGP_PAIRS ((DIM_N + 1) / 2)
#define RAGP_LANES (2 * RAGP_PAIRS)
typedef double ragp_v2 __attribute__((vector_size(16)));
typedef int64_t ragp_m2 __attribute__((vector_size(16))); /* a comparison's lanes: 0 or -1 */
static_assert(DIM_GPU == 2 && DIM_HBM == 3 && DIM_NET == 4 && DIM_N == 7,
	      "pair 1 is (gpu, hbm), pairs 2 and 3 the shared dims");

/* Two doubles from p, which need not be aligned for a vector (records are as malloc aligns
 * them, or as a caller's buffer is). */
static inline ragp_v2 v2_load(const double *p)
{
	ragp_v2 v;
	memcpy(&v, p, sizeof v);
	return v;
}

/* Lane by lane, m ? a : b. */
static inline ragp_v2 v2_sel(ragp_m2 m, ragp_v2 a, ragp_v2 b)
{
	return (ragp_v2)(((ragp_m2)a & m) | ((ragp_m2)b & ~m));
}

/* Lane by lane, a > b ? a : b and a < b ? a : b: SSE2's maxpd and minpd, which compilers
 * do not make of v2_sel. */
static inline ragp_v2 v2_max(ragp_v2 a, ragp_v2 b)
{
#ifdef __SSE2__
	return _mm_max_pd(a, b);
#else
	return v2_sel(a > b, a, b);
#endif
}

static inline ragp_v2 v2_min(ragp_v2 a, ragp_v2 b)
{
#ifdef __SSE2__
	return _mm_min_pd(a, b);
#else
	return v2_sel(a < b, a, b);
#endif
}

static inline double v2_sum(ragp_v2 v)
{
	return v[0] + v[1];
}

/* {v2_sum(a), v2_sum(b)} */
static inline ragp_v2 v2_sums(ragp_v2 a, ragp_v2 b)
{
#ifdef __SSE2__
	return _mm_unpacklo_pd(a, b) + _mm_unpackhi_pd(a, b);
#else
	return (ragp_v2){a[0] + a[1], b[0] + b[1]};
#endif
}

/* congestion() on both lanes, without a branch: lane by lane the value it gives. */
static inline ragp_v2 v2_congestion(ragp_v2 u)
{
	const ragp_v2 zero = {0, 0}, one = {1, 1}, knee = {G_KNEE, G_KNEE};
	const double g0 = G_KNEE * G_KNEE / (1 - G_KNEE);
	const double slope = (2 * G_KNEE - G_KNEE * G_KNEE) / ((1 - G_KNEE) * (1 - G_KNEE));
	ragp_v2 below = v2_sel(u > zero, u * u / (one - u), zero);
	ragp_v2 above = g0 + slope * (v2_min(u, one) - knee);
	return v2_sel(u <= knee, below, above);
}

/* What ragp_bound needs of a node apart from the job (ragp_prep). The part every bound reads
 * comes first, by dim pair (lane 7 is no dim: 0). Over the dims outside dmask inv is 0, and
 * so is what the bound works out from it, so a pass over every dim adds nothing for them. */
struct ragp_rec {
	double fr[RAGP_LANES];  /* cap - used over the seen dims */
	double inv[RAGP_LANES]; /* 1 / cap over dmask, else 0 */
	double fgh[2];          /* free GPU-milli and HBM summed over the GPUs */
	double before, pn;      /* md now (ragp_before), node_nofit (0 without) */
	double std_now;         /* std of the free shares now, as shares_dstd takes it */
	/* pair 3's terms for a job that takes none of it, as the bound would work them out:
	 * its weighted free amount, clamped free share and its square, and congestion */
	double c3[4];
	uint32_t dmask;  /* the seen dims with capacity */
	int32_t k;       /* how many */
	int32_t idle;    /* idle GPUs */
	int32_t gnmax;   /* the most free milli of a GPU not idle, -1 if none */
	int64_t gpu_hbm; /* HBM of one GPU (cluster_job_hbm) */
	/* read less often: */
	int32_t ngpu;
	int32_t gpu_free[CLUSTER_MAX_GPUS]; /* per GPU (pol_least_room_of) */
	int64_t hbm_free[CLUSTER_MAX_GPUS];
	int64_t cap[DIM_N], room[DIM_N]; /* cap, cap - used over the seen dims (pol_oversub_of) */
	/* idle_stops(left) for left < idle, or 0: all (pidle), and whole (pwhole) */
	double pidle[CLUSTER_MAX_GPUS + 1];
	double pwhole[CLUSTER_MAX_GPUS + 1];
};

static void ragp_prep(const struct policy_ctx *ctx, size_t n, void *out)
{
	const struct node_state *s = &ctx->c->st[n];
	const struct node *sp = &ctx->c->spec[n];
	struct ragp_rec *r = out;
	int64_t gfree = 0, hfree = 0;
	memset(r, 0, sizeof *r);
	r->before = ragp_before(ctx, n);
	r->pn = ctx->node_nofit ? ctx->node_nofit[n] : 0;
	r->gpu_hbm = cluster_gpu_hbm(ctx->c, n);
	r->ngpu = sp->ngpu;
	for (int g = 0; g < sp->ngpu; g++) {
		r->gpu_free[g] = s->gpu_free[g];
		r->hbm_free[g] = s->hbm_free[g];
		gfree += s->gpu_free[g];
		hfree += s->hbm_free[g];
		r->idle += s->gpu_free[g] == 1000;
	}
	r->fgh[0] = (double)gfree;
	r->fgh[1] = (double)hfree;
	r->gnmax = -1;
	for (int g = 0; g < sp->ngpu; g++)
		if (s->gpu_free[g] < 1000 && s->gpu_free[g] > r->gnmax)
			r->gnmax = s->gpu_free[g];
	struct shares sh = {0};
	for (int d = 0; d < DIM_N; d++) {
		if (!(ctx->dims & DIM_BIT(d)))
			continue;
		r->cap[d] = s->cap[d];
		r->room[d] = s->cap[d] - s->used[d];
		r->fr[d] = (double)r->room[d];
		if (s->cap[d] <= 0)
			continue;
		r->dmask |= DIM_BIT(d);
		r->k++;
		r->inv[d] = 1.0 / (double)s->cap[d];
		double fn = r->fr[d] * r->inv[d];
		shares_add(&sh, fn, fn);
	}
	r->std_now = std_of(sh.sn, sh.sn2, sh.k);
	double fa = r->fr[DIM_IOCPU] * r->inv[DIM_IOCPU];
	r->c3[0] = (r->fr[DIM_IOCPU] > 0 ? r->fr[DIM_IOCPU] : 0) *
		   (ctx->wl->price_share[DIM_IOCPU] * r->inv[DIM_IOCPU]);
	r->c3[3] = r->dmask & DIM_BIT(DIM_IOCPU) ? congestion(1 - fa) : 0;
	fa = fa > 0 ? fa : 0;
	fa = fa < 1 ? fa : 1;
	r->c3[1] = fa;
	r->c3[2] = fa * fa;
	/* left < 0 (a job that cannot fit) reads left 0; without node_fits, all 0 */
	if (ctx->node_fits)
		idle_stops(ctx, n, r->idle, r->pwhole, r->pidle);
}

/* What ragp_bound takes of the job, the same on every node. */
struct ragp_job {
	int32_t milli; /* GPU-milli a GPU of it takes (0 for a CPU-only job) */
	int32_t taken; /* the idle GPUs a whole-GPU job takes, else 0 */
	int shared;    /* a share of one GPU */
	int64_t hbm;   /* the HBM it takes of each GPU (cluster_hbm_of), -1: by the node's */
	/* what it takes of each dim (cluster_placement_of), by pair; of hbm only when hbm >= 0 */
	ragp_v2 dem[RAGP_PAIRS];
	ragp_v2 ps[RAGP_PAIRS]; /* the workload's price_share */
	ragp_m2 over[2];        /* pairs 2 and 3: a seen shared dim it takes of (-1) */
	int pairs;              /* the pairs to work out: with a seen dim, and not pair 3 when
				 * the job takes none of it (ragp_rec.c3) */
	double ips;             /* 1 / the workload's price_share of gpu, or 1 if 0 */
	double share_cpu;       /* frag_share_cpu of the workload */
};

/* The lanes of pairs 2 and 3 in a record's dmask, by dmask >> DIM_NET. */
#define RAGP_CM(m)                                                                                 \
	{                                                                                          \
		{-((m)&1), -((m) >> 1 & 1)},                                                       \
		{                                                                                  \
			-((m) >> 2 & 1), 0                                                         \
		}                                                                                  \
	}
static const ragp_m2 ragp_cmask[8][2] = {RAGP_CM(0), RAGP_CM(1), RAGP_CM(2), RAGP_CM(3),
					 RAGP_CM(4), RAGP_CM(5), RAGP_CM(6), RAGP_CM(7)};

/* 1 / k for the k of a record (std_of's divisions, as multiplications) */
static const double ragp_ik[DIM_N + 1] = {0,       1,       1.0 / 2, 1.0 / 3,
					  1.0 / 4, 1.0 / 5, 1.0 / 6, 1.0 / 7};

static void ragp_job_of(const struct policy_ctx *ctx, const struct job *j, struct ragp_job *q)
{
	double dem[RAGP_LANES] = {0}, ps[RAGP_LANES] = {0};
	q->milli = j->num_gpu > 0 ? j->gpu_milli : 0;
	q->taken = j->num_gpu > 0 && q->milli == 1000 ? j->num_gpu : 0;
	q->shared = j->num_gpu > 0 && q->milli < 1000;
	q->hbm = j->num_gpu <= 0 ? 0 : j->dem[DIM_HBM] >= 0 ? cluster_hbm_of(0, j) : -1;
	/* whole numbers: the arithmetic below is exact as in int64_t */
	for (int d = 0; d < DIM_N; d++) {
		dem[d] = (double)(j->dem[d] > 0 ? j->dem[d] : 0);
		ps[d] = ctx->wl->price_share[d];
	}
	dem[DIM_GPU] = (double)((int64_t)j->num_gpu * q->milli);
	dem[DIM_HBM] = q->hbm >= 0 ? (double)((int64_t)j->num_gpu * q->hbm) : 0;
	for (int i = 0; i < RAGP_PAIRS; i++) {
		q->dem[i] = v2_load(dem + 2 * i);
		q->ps[i] = v2_load(ps + 2 * i);
	}
	for (int i = 0; i < 2; i++)
		for (int l = 0; l < 2; l++) {
			int d = DIM_NET + 2 * i + l;
			q->over[i][l] = -(d < DIM_N && (ctx->dims & DIM_BIT(d)) && dem[d] > 0);
		}
	q->pairs = (ctx->dims & DIM_BIT(DIM_IOCPU)) && dem[DIM_IOCPU] > 0 ? RAGP_PAIRS : 3;
	while (q->pairs > 0 && !(ctx->dims & (3u << (2 * (q->pairs - 1)))))
		q->pairs--;
	q->ips = ctx->wl->price_share[DIM_GPU] > 0 ? 1 / ctx->wl->price_share[DIM_GPU] : 1;
	q->share_cpu = ctx->node_nofit ? frag_share_cpu(ctx->wl) : 0;
}

/* pol_least_room_of on r's GPUs, without a branch per GPU: whether one has room is a coin
 * toss the CPU would mispredict. */
static inline void least_room(const struct ragp_rec *r, int32_t milli, int64_t hbm, int32_t *gmin,
			      int64_t *hmin)
{
	int32_t gm = INT32_MAX;
	int64_t hm = INT64_MAX;
	for (int g = 0; g < r->ngpu; g++) {
		int ok = (r->gpu_free[g] >= milli) & (r->hbm_free[g] >= hbm);
		int32_t gv = ok ? r->gpu_free[g] : INT32_MAX;
		int64_t hv = ok ? r->hbm_free[g] : INT64_MAX;
		gm = gv < gm ? gv : gm;
		hm = hv < hm ? hv : hm;
	}
	if (gm != INT32_MAX) {
		*gmin = gm;
		*hmin = hm;
	}
}

/* frag_share_small for one job on many nodes: the values it took, by their arguments. */
#define RAGP_MEMO 64
struct ragp_memo {
	int64_t ghbm, hbm;
	int32_t milli; /* -1: empty */
	double p;
};

static inline double share_small(struct ragp_memo *memo, int64_t ghbm,
				 const struct frag_workload *w, int32_t milli, int64_t hbm)
{
	if (!memo)
		return frag_share_small(ghbm, w, milli, hbm);
	uint64_t h = ((uint64_t)ghbm * 0x9e3779b97f4a7c15ULL) ^
		     ((uint64_t)hbm * 0xff51afd7ed558ccdULL) ^ (uint64_t)milli;
	struct ragp_memo *e = &memo[(h ^ h >> 29) & (RAGP_MEMO - 1)];
	if (e->milli != milli || e->hbm != hbm || e->ghbm != ghbm) {
		e->milli = milli;
		e->hbm = hbm;
		e->ghbm = ghbm;
		e->p = frag_share_small(ghbm, w, milli, hbm);
	}
	return e->p;
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
 * dim pairs, with a multiplication by 1 / cap for each division; the hair covers the
 * rounding this changes. ragp_bound_part gives the bound but its dStd term and the hair,
 * and the variance of the free shares after, whose square root ragp_bound_end takes (and
 * ragp_bound_end2 on two bounds at once). (Inlined always: GCC would otherwise call it
 * from ragp_bound_recs's loop.)
 */
static inline __attribute__((always_inline)) double
ragp_bound_part(const struct policy_ctx *ctx, const struct job *j, const struct ragp_job *q,
		const struct ragp_rec *r, struct ragp_memo *memo, double *var)
{
	const struct frag_workload *w = ctx->wl;
	const ragp_v2 zero = {0, 0}, one = {1, 1};
	int32_t milli = q->milli;
	int64_t hbm = q->hbm;
	ragp_v2 dem[RAGP_PAIRS];
#pragma GCC unroll 4
	for (int i = 0; i < RAGP_PAIRS; i++)
		dem[i] = q->dem[i];
	if (hbm < 0) {
		hbm = cluster_hbm_of(r->gpu_hbm, j);
		dem[1][1] = (double)((int64_t)j->num_gpu * hbm);
	}
	double before = r->before, pn = r->pn;
	/* free after, weighted: fgpu (gpu, hbm) and fother (the others); drop = pn dother +
	 * gshare dgpu, gshare what the stranded GPU and HBM can lose per unit taken */
	ragp_v2 fgpu = zero, fother = zero, dother = zero, dgpu = zero;
	ragp_v2 cong = zero, sa = zero, sa2 = zero;
	ragp_m2 over = {0, 0};
#pragma GCC unroll 4 /* each pair's role is then known where it is compiled */
	for (int i = 0; i < RAGP_PAIRS; i++) {
		if (i >= q->pairs)
			break;
		/* the free amount as frag.c takes it (GPU and HBM summed over the GPUs), the
		 * dim's price share over cap, and the free share after */
		ragp_v2 fr = v2_load(r->fr + 2 * i), inv = v2_load(r->inv + 2 * i);
		ragp_v2 fs = i == 1 ? v2_load(r->fgh) : fr;
		ragp_v2 wd = q->ps[i] * inv, left = fs - dem[i];
		ragp_v2 f = v2_max(left, zero) * wd;
		if (i == 1) {
			fgpu = f;
			dgpu = dem[i] * wd;
		} else {
			fother += f;
			dother += dem[i] * wd;
		}
		ragp_v2 fa = (fr - dem[i]) * inv;
		if (i >= 2) {
			cong += (ragp_v2)((ragp_m2)v2_congestion(one - fa) &
					  ragp_cmask[(r->dmask >> DIM_NET) & 7][i - 2]);
			over |= (dem[i] > fr) & q->over[i - 2];
		}
		fa = v2_min(v2_max(fa, zero), one);
		sa += fa;
		sa2 += fa * fa;
	}
	ragp_v2 f2 = v2_sums(fother, fgpu), s12 = v2_sums(sa, sa2), d2 = v2_sums(dgpu, dother);
	double fo = f2[0], s1 = s12[0], s2 = s12[1], cg = v2_sum(cong);
	if (q->pairs < RAGP_PAIRS) { /* 0 if the dims leave iocpu out */
		fo += r->c3[0];
		s1 += r->c3[1];
		s2 += r->c3[2];
		cg += r->c3[3];
	}
	double fl = fo + f2[1]; /* every dim */
	double low = 0;
	if (ctx->node_nofit) {
		double dg = d2[0], dot = pn * d2[1];
		double low1 = pn * fl, gshare = pn + q->share_cpu;
		double low2 = before - (dot + (gshare < 1 ? gshare : 1) * dg);
		if (q->shared && low2 > low1 && low2 > 0) {
			int32_t gmin = milli;
			int64_t hmin = hbm;
			least_room(r, milli, hbm, &gmin, &hmin);
			gshare += share_small(memo, r->gpu_hbm, w, gmin, hmin);
			low2 = before - (dot + (gshare < 1 ? gshare : 1) * dg);
		}
		/* the idle GPUs a whole-GPU job takes, or a shared job for which no GPU but an
		 * idle one has milli enough (r->gnmax) */
		int left = r->idle - j->num_gpu;
		left = left > 0 ? left : 0;
		double pidle = q->taken                        ? r->pidle[left]
			       : q->shared && r->gnmax < milli ? r->pwhole[left]
							       : 0;
		low1 = (pn + pidle) * fl;
		low2 += pidle * fo;
		low = low1 > low2 ? low1 : low2;
		low = low > 0 ? low : 0;
	}
	double dF = (low - before) * q->ips;
	/* std_of, 0 with fewer than two dims: var is then 0 or less */
	double ik = ragp_ik[r->k], mean = s1 * ik;
	*var = s2 * ik - mean * mean;
	double b = dF + ctx->param[POLICY_P_MU] * cg;
	if (over[0] | over[1]) { /* rare: the overshoot as pol_oversub_of takes it */
		struct placement p;
		cluster_placement_of(0, j, hbm, &p);
		b += pol_oversub_of(ctx->dims, r->cap, r->room, &p);
	}
	return b;
}

/* The bound from ragp_bound_part's part and var: its dStd term (std_of, which is 0 with
 * fewer than two dims: var is then 0 or less), and the hair. */
static inline double ragp_bound_end(const struct policy_ctx *ctx, double part, double var,
				    const struct ragp_rec *r)
{
	double b = part + ctx->param[POLICY_P_LAMBDA] * (sqrt(var > 0 ? var : 0) - r->std_now);
	return b - 1e-9 * (fabs(b) + 1);
}

/* ragp_bound_end of two bounds, lane by lane the same doubles. */
static inline ragp_v2 ragp_bound_end2(const struct policy_ctx *ctx, ragp_v2 part, ragp_v2 var,
				      const struct ragp_rec *r0, const struct ragp_rec *r1)
{
	const ragp_v2 zero = {0, 0}, one = {1, 1}, std_now = {r0->std_now, r1->std_now};
	var = v2_max(var, zero);
#ifdef __SSE2__
	ragp_v2 sd = _mm_sqrt_pd(var);
#else
	ragp_v2 sd = {sqrt(var[0]), sqrt(var[1])};
#endif
	ragp_v2 b = part + ctx->param[POLICY_P_LAMBDA] * (sd - std_now);
	return b - 1e-9 * (v2_max(b, -b) + one);
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
	double var;
	ragp_job_of(ctx, j, &q);
	double part = ragp_bound_part(ctx, j, &q, r, NULL, &var);
	return ragp_bound_end(ctx, part, var, r);
}

/* ragp_bound on many records: the job's part once, and for a shared job on enough records,
 * frag_share_small by its arguments (memo). The records of the classes that may fit lie
 * apart, so what the bound will read of the record RAGP_AHEAD records ahead is fetched
 * meanwhile: each line of its hot part (one prefetch per 128 bytes left the line that
 * x86's pairing of lines misses when a record does not start a pair), and for a shared job
 * the first GPUs' free milli and HBM and the first entries of pwhole, for a whole-GPU job
 * the first entries of pidle (the colder fields a bound of such a job reads). */
#define RAGP_AHEAD 4
#define RAGP_HOT   offsetof(struct ragp_rec, ngpu)
static void ragp_bound_recs(const struct policy_ctx *ctx, const struct job *j, const void *recs,
			    const int32_t *pos, size_t m, double *out)
{
	assert(ctx->wl);
	const struct ragp_rec *r = recs;
	struct ragp_job q;
	size_t cold[4], ncold = 0;
	struct ragp_memo memo[RAGP_MEMO], *mp = NULL;
	ragp_job_of(ctx, j, &q);
	if (q.shared && m > 4 * RAGP_MEMO) {
		for (size_t e = 0; e < RAGP_MEMO; e++)
			memo[e].milli = -1;
		mp = memo;
	}
	if (q.shared) {
		cold[ncold++] = offsetof(struct ragp_rec, gpu_free);
		cold[ncold++] = offsetof(struct ragp_rec, hbm_free);
		cold[ncold++] = offsetof(struct ragp_rec, pwhole);
	} else if (q.taken) {
		cold[ncold++] = offsetof(struct ragp_rec, pidle);
	}
	size_t i = 0;
	for (; i + 1 < m; i += 2) {
		for (size_t k = i + RAGP_AHEAD; k < i + RAGP_AHEAD + 2 && k < m; k++) {
			const char *a = (const char *)(r + pos[k]);
			for (size_t b = 0; b < RAGP_HOT + 63; b += 64)
				__builtin_prefetch(a + b);
			for (size_t c = 0; c < ncold; c++)
				__builtin_prefetch(a + cold[c]);
		}
		const struct ragp_rec *r0 = r + pos[i], *r1 = r + pos[i + 1];
		double v0, v1, p0 = ragp_bound_part(ctx, j, &q, r0, mp, &v0);
		double p1 = ragp_bound_part(ctx, j, &q, r1, mp, &v1);
		ragp_v2 b = ragp_bound_end2(ctx, (ragp_v2){p0, p1}, (ragp_v2){v0, v1}, r0, r1);
		out[i] = b[0];
		out[i + 1] = b[1];
	}
	if (i < m) {
		double part, var;
		part = ragp_bound_part(ctx, j, &q, r + pos[i], mp, &var);
		out[i] = ragp_bound_end(ctx, part, var, r + pos[i]);
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
