/*
 * pol-common.h — small helpers the pol-*.c policies share (private to them, not a module).
 *
 * Every policy normalises a dim by the node's capacity now (faults included) and skips a dim
 * whose capacity is 0. A shared dim (net, sto, iocpu) that a policy sees is a soft limit:
 * a placement that would push it past capacity gets pol_oversub() added to its score, which
 * puts it behind every placement that does not (POL_OVER is larger than any score a policy
 * gives otherwise), and among oversubscribing ones the smaller overshoot wins.
 */
#ifndef VOIDFIT_POL_COMMON_H
#define VOIDFIT_POL_COMMON_H

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "policy.h"

#define POL_OVER 1e9   /* base penalty of oversubscribing a seen shared dim */
#define POL_TIE  1e-12 /* weight of a GPU-choice tie-break inside one node */

static inline const struct node_state *pol_st(const struct policy_ctx *ctx,
					      const struct placement *p)
{
	assert(p->node >= 0 && (size_t)p->node < ctx->c->n);
	return &ctx->c->st[p->node];
}

/* Share of dim d free on the node now (before p); 0 when the capacity is 0. */
static inline double pol_free_now(const struct node_state *s, int d)
{
	return s->cap[d] > 0 ? (double)(s->cap[d] - s->used[d]) / (double)s->cap[d] : 0;
}

/* Share of dim d free after placing p; may be negative on a shared dim. */
static inline double pol_free_after(const struct node_state *s, const struct placement *p, int d)
{
	return s->cap[d] > 0 ? (double)(s->cap[d] - s->used[d] - p->dem[d]) / (double)s->cap[d] : 0;
}

/* Share of dim d the job takes. */
static inline double pol_dem(const struct node_state *s, const struct placement *p, int d)
{
	return s->cap[d] > 0 ? (double)p->dem[d] / (double)s->cap[d] : 0;
}

/* GPU-milli left on the first GPU of p after placing it, / 1000 (0 for CPU-only jobs). */
static inline double pol_gpu_left(const struct node_state *s, const struct placement *p)
{
	for (int g = 0; g < CLUSTER_MAX_GPUS; g++)
		if (p->gpus & (1u << g))
			return (double)(s->gpu_free[g] - p->milli) / 1000.0;
	return 0;
}

/* Sum over the seen dims k of (d_k / cap_k) * (max(free_k, 0) / cap_k), free before placing
 * p: the alignment of demand and free vector that dotprod minimises and tetris maximises. */
static inline double pol_free_dot(const struct policy_ctx *ctx, const struct node_state *s,
				  const struct placement *p)
{
	double dot = 0;
	for (uint32_t m = ctx->dims & DIMS_ALL; m; m &= m - 1) { /* the seen dims, in order */
		int d = __builtin_ctz(m);
		double f = pol_free_now(s, d);
		dot += pol_dem(s, p, d) * (f > 0 ? f : 0);
	}
	return dot;
}

/* pol_oversub on a node of capacity cap with room (cap - used) left, over the seen shared
 * dims of dims (entries below DIM_NET are not read). */
static inline double pol_oversub_of(uint32_t dims, const int64_t *cap, const int64_t *room,
				    const struct placement *p)
{
	double over = 0;
	int any = 0;
	for (int d = DIM_NET; d < DIM_N; d++) {
		if (!(dims & DIM_BIT(d)) || p->dem[d] <= 0 || p->dem[d] <= room[d])
			continue;
		any = 1;
		over += (double)(p->dem[d] - room[d]) / (double)(cap[d] > 0 ? cap[d] : 1);
	}
	return any ? POL_OVER + over : 0;
}

/* 0, or POL_OVER + the summed overshoot (as shares of capacity) when p would push a seen
 * shared dim the job uses past the capacity of a node in state s. */
static inline double pol_oversub_at(const struct policy_ctx *ctx, const struct node_state *s,
				    const struct placement *p)
{
	int64_t room[DIM_N];
	if (!(ctx->dims & DIMS_SHARED))
		return 0; /* what pol_oversub_of gives when it sees no shared dim */
	for (int d = DIM_NET; d < DIM_N; d++)
		room[d] = s->cap[d] - s->used[d];
	return pol_oversub_of(ctx->dims, s->cap, room, p);
}

/* pol_oversub_at on p's node. */
static inline double pol_oversub(const struct policy_ctx *ctx, const struct placement *p)
{
	return pol_oversub_at(ctx, pol_st(ctx, p), p);
}

/* Could j fit on a node in state s, judging by node totals only? A cheap test before
 * cluster_choices: 0 means it surely does not fit. */
static inline int pol_may_fit(const struct node_state *s, const struct job *j)
{
	int64_t cpu = j->dem[DIM_CPU] > 0 ? j->dem[DIM_CPU] : 0;
	int64_t mem = j->dem[DIM_MEM] > 0 ? j->dem[DIM_MEM] : 0;
	int64_t gpu = j->num_gpu > 0 ? (int64_t)j->num_gpu * j->gpu_milli : 0;
	return s->cap[DIM_CPU] - s->used[DIM_CPU] >= cpu &&
	       s->cap[DIM_MEM] - s->used[DIM_MEM] >= mem &&
	       s->cap[DIM_GPU] - s->used[DIM_GPU] >= gpu;
}

/* The demands a placement of j on node n carries, as cluster_choices fills them (no GPUs
 * chosen: gpus is 0). For bounds, which must not depend on the GPU choice. */
static inline void pol_dem_of(const struct cluster *c, size_t n, const struct job *j,
			      struct placement *p)
{
	cluster_placement_of(n, j, cluster_job_hbm(c, n, j), p);
}

/* The least free GPU-milli and, separately, HBM among ngpu GPUs with these free amounts where
 * a share of milli GPU-milli and hbm MiB fits (the GPUs a shared job may take): any such
 * GPU has at least that much of each. Returns 0, leaving them alone, if no GPU has room. */
static inline int pol_least_room_of(const int32_t *gpu_free, const int64_t *hbm_free, int ngpu,
				    int32_t milli, int64_t hbm, int32_t *gmin, int64_t *hmin)
{
	int any = 0;
	for (int g = 0; g < ngpu; g++) {
		if (gpu_free[g] < milli || hbm_free[g] < hbm)
			continue;
		if (!any || gpu_free[g] < *gmin)
			*gmin = gpu_free[g];
		if (!any || hbm_free[g] < *hmin)
			*hmin = hbm_free[g];
		any = 1;
	}
	return any;
}

/* pol_least_room_of over the GPUs of node n. */
static inline int pol_least_room(const struct cluster *c, size_t n, int32_t milli, int64_t hbm,
				 int32_t *gmin, int64_t *hmin)
{
	return pol_least_room_of(c->st[n].gpu_free, c->st[n].hbm_free, c->spec[n].ngpu, milli, hbm,
				 gmin, hmin);
}

/* The least and the most pol_gpu_left of any choice of a job with p's demands on a node in
 * state s with ngpu GPUs: over the GPUs where one of its shares fits (p->milli and p->hbm free), so
 * every choice's first GPU is among them. Both 0 for a CPU-only p, for whole GPUs (the GPUs they
 * fit on are idle: 0 left), or when no GPU has room (no choice). */
static inline void pol_gpu_left_range(const struct node_state *s, int ngpu,
				      const struct placement *p, double *lo, double *hi)
{
	int32_t least = INT32_MAX, most = -1;
	for (int g = 0, ng = p->milli % 1000 ? ngpu : 0; g < ng; g++) {
		/* no branch on whether it fits: a coin toss the CPU would mispredict */
		int fit = (s->gpu_free[g] >= p->milli) & (s->hbm_free[g] >= p->hbm);
		int32_t lv = fit ? s->gpu_free[g] : INT32_MAX, mv = fit ? s->gpu_free[g] : -1;
		least = lv < least ? lv : least;
		most = mv > most ? mv : most;
	}
	*lo = most < 0 ? 0 : (double)(least - p->milli) / 1000.0;
	*hi = most < 0 ? 0 : (double)(most - p->milli) / 1000.0;
}

/* The record of a node that a POL_BY_LEFT policy's bound reads (policy_ops.prep): its state
 * and what of its spec the bound needs, so that the class search bounds classes from
 * copies kept in its own order instead of from nodes scattered in memory; and its GPUs
 * summed up so that the GPU a share may take is found without a pass over them. */
struct pol_state_rec {
	int64_t gpu_used;     /* GPU-milli used (st.used[DIM_GPU], on the first line) */
	double rcap[DIM_N];   /* 1 / the capacity now of each dim (0 where it is 0), for keys */
	double wfree[DIM_N];  /* rcap x max(free, 0): free share per unit of demand, for keys */
	double free[DIM_N];   /* pol_free_now of each dim */
	struct node_state st; /* the node's state (its list of jobs is not read) */
	int64_t gpu_hbm;      /* HBM of one GPU (cluster_gpu_hbm) */
	int32_t ngpu;
	int32_t ndist; /* entries of dist */
	/* The distinct free milli (> 0) of the node's GPUs, ascending, each with the most free
	 * HBM of a GPU with that free milli (at most INT32_MAX): a share of milli > 0 and hbm
	 * <= INT32_MAX fits on some GPU with free milli f iff f >= milli and f's hbm >= hbm. */
	struct {
		int32_t milli, hbm;
	} dist[CLUSTER_MAX_GPUS];
};

static inline void pol_state_prep(const struct policy_ctx *ctx, size_t n, void *rec)
{
	struct pol_state_rec *r = rec;
	memset(r, 0, sizeof *r);
	r->st = ctx->c->st[n];
	r->gpu_hbm = cluster_gpu_hbm(ctx->c, n);
	r->ngpu = ctx->c->spec[n].ngpu;
	for (int d = 0; d < DIM_N; d++) {
		r->free[d] = pol_free_now(&r->st, d);
		r->rcap[d] = r->st.cap[d] > 0 ? 1.0 / (double)r->st.cap[d] : 0;
		r->wfree[d] = r->rcap[d] * (r->free[d] > 0 ? r->free[d] : 0);
	}
	r->gpu_used = r->st.used[DIM_GPU];
	for (int g = 0; g < r->ngpu; g++) {
		int32_t f = r->st.gpu_free[g];
		int32_t h = r->st.hbm_free[g] < INT32_MAX ? (int32_t)r->st.hbm_free[g] : INT32_MAX;
		int i = 0;
		if (f <= 0)
			continue;
		while (i < r->ndist && r->dist[i].milli < f)
			i++;
		if (i < r->ndist && r->dist[i].milli == f) {
			r->dist[i].hbm = h > r->dist[i].hbm ? h : r->dist[i].hbm;
			continue;
		}
		memmove(&r->dist[i + 1], &r->dist[i], (size_t)(r->ndist - i) * sizeof r->dist[0]);
		r->dist[i].milli = f;
		r->dist[i].hbm = h;
		r->ndist++;
	}
}

/* pol_free_dot on the node of record r, from its free shares: a dim with none free adds
 * 0 (d_k / cap_k times 0), so its division is skipped. */
static inline double pol_free_dot_rec(const struct policy_ctx *ctx, const struct pol_state_rec *r,
				      const struct placement *p)
{
	double dot = 0;
	for (uint32_t m = ctx->dims & DIMS_ALL; m; m &= m - 1) {
		int d = __builtin_ctz(m);
		if (r->free[d] > 0)
			dot += pol_dem(&r->st, p, d) * r->free[d];
	}
	return dot;
}

/* What pol_gpu_left_range gives (the most if most, else the least) for a job with p's
 * demands on the node of record r, from its distinct free milli: the first of them from the
 * favoured end where a share fits. */
static inline double pol_rec_left(const struct pol_state_rec *r, const struct placement *p,
				  int most)
{
	double lo, hi;
	int32_t pick = -1;
	if (!(p->milli % 1000))
		return 0;                         /* CPU only, or whole GPUs */
	if (p->milli < 1 || p->hbm > INT32_MAX) { /* beyond what dist tells */
		pol_gpu_left_range(&r->st, r->ngpu, p, &lo, &hi);
		return most ? hi : lo;
	}
	if (most) {
		for (int i = r->ndist; i-- > 0 && r->dist[i].milli >= p->milli;)
			if (r->dist[i].hbm >= p->hbm) {
				pick = r->dist[i].milli;
				break;
			}
	} else {
		for (int i = 0; i < r->ndist; i++)
			if (r->dist[i].milli >= p->milli && r->dist[i].hbm >= p->hbm) {
				pick = r->dist[i].milli;
				break;
			}
	}
	return pick < 0 ? 0 : (double)(pick - p->milli) / 1000.0;
}

/*
 * A policy whose score is of(ctx, s, p, left), where left (the GPU-milli left on the first
 * GPU chosen, / 1000) is the only term that depends on which GPU is chosen: POL_BY_LEFT
 * defines its score() (NAME_score, left of p's GPU) and its bound() (NAME_bound, left of
 * the GPU that favours the job: the most where most is 1, for a score that falls as left
 * grows, else the least). The bound is of() itself over the demands every choice shares,
 * so it never exceeds a choice's score as computed, and equals the best one where every
 * GPU the job may take is a choice. NAME_bound_recs gives the same doubles from the nodes'
 * records (struct pol_state_rec, pol_state_prep), as the class search asks for them: of()
 * reads the state it is given, never the node's (pol_oversub_at, not pol_oversub). It works
 * out the placement's demands once (only the HBM depends on the node) and reads the GPU
 * that favours the job off the record's distinct free milli (pol_rec_left), so a class
 * costs no pass over its GPUs.
 */
#define POL_BY_LEFT(name, of, most)                                                                \
	static double name##_rof(const struct policy_ctx *ctx, const struct pol_state_rec *r,      \
				 const struct placement *p, double left)                           \
	{                                                                                          \
		return of(ctx, &r->st, p, left);                                                   \
	}                                                                                          \
	POL_BY_LEFT_REC(name, of, name##_rof, most)

/* POL_BY_LEFT whose bound from a record is rof(ctx, r, p, left): of() on the record's state,
 * reading what the record keeps worked out (the very same doubles). */
#define POL_BY_LEFT_REC(name, of, rof, most)                                                       \
	static double name##_score(const struct policy_ctx *ctx, const struct job *j,              \
				   const struct placement *p)                                      \
	{                                                                                          \
		(void)j;                                                                           \
		const struct node_state *s = pol_st(ctx, p);                                       \
		return of(ctx, s, p, pol_gpu_left(s, p));                                          \
	}                                                                                          \
	static double name##_bound_at(const struct policy_ctx *ctx, const struct job *j,           \
				      const struct node_state *s, int64_t gpu_hbm, int ngpu)       \
	{                                                                                          \
		struct placement p;                                                                \
		double lo, hi;                                                                     \
		cluster_placement_of(0, j, cluster_hbm_of(gpu_hbm, j), &p);                        \
		pol_gpu_left_range(s, ngpu, &p, &lo, &hi);                                         \
		return of(ctx, s, &p, (most) ? hi : lo);                                           \
	}                                                                                          \
	static double name##_bound(const struct policy_ctx *ctx, const struct job *j, size_t n)    \
	{                                                                                          \
		return name##_bound_at(ctx, j, &ctx->c->st[n], cluster_gpu_hbm(ctx->c, n),         \
				       ctx->c->spec[n].ngpu);                                      \
	}                                                                                          \
	static void name##_bound_recs(const struct policy_ctx *ctx, const struct job *j,           \
				      const void *recs, const int32_t *pos, size_t m, double *out) \
	{                                                                                          \
		struct placement p;                                                                \
		cluster_placement_of(0, j, 0, &p);                                                 \
		for (size_t i = 0; i < m; i++) {                                                   \
			const struct pol_state_rec *r =                                            \
				(const struct pol_state_rec *)recs + pos[i];                       \
			p.hbm = cluster_hbm_of(r->gpu_hbm, j);                                     \
			p.dem[DIM_HBM] = (int64_t)j->num_gpu * p.hbm;                              \
			out[i] = rof(ctx, r, &p, pol_rec_left(r, &p, most));                       \
		}                                                                                  \
	}

/* The policy_ops members POL_BY_LEFT defines: score, bound, and the bound from records in
 * one call (bound_recs, prep). */
#define POL_BY_LEFT_OPS(name)                                                                      \
	.score = name##_score, .bound = name##_bound, .bound_recs = name##_bound_recs,             \
	.prep = pol_state_prep, .prep_size = sizeof(struct pol_state_rec)

/* Is anything allocated on the node (any dim used)? */
static inline int pol_node_used(const struct node_state *s)
{
	for (int d = 0; d < DIM_N; d++)
		if (s->used[d] > 0)
			return 1;
	return 0;
}

#endif
