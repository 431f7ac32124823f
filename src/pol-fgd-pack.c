/*
 * pol-fgd-pack.c — fgd-pack: FGD's fragmentation gradient within a tolerance, over the
 * shapes each node could host, and ties packed on purpose.
 *
 * The FGD paper's figures come from a scheduler that scores fgd as the integer
 * trunc(100 sigmoid(-dF / 1000)) (k8s.h), so placements within some 40 GPU-milli of
 * fragmentation change tie and go to the node whose name sorts first: that packs, and beats
 * exact fgd (openb GPU nodes, 100 % load: 4.70 % of GPUs unallocated against 7.30 %).
 * fgd-pack makes each piece of that explicit and mends two things the paper's measure gets
 * wrong, keeping a third it gets right:
 *   score = floor((dF - R p_ex(n) g) / w) + (tier + left) / 3.5,   w = T max(g, 1000)
 * dF = F_n after - F_n before + pol_oversub over the policy's own target workload (its state,
 * struct fp_state: the run's fragmentation metrics stay over the scenario's): every
 * shape (coverage 1: the 95 % cut drops the multi-GPU shapes whose room packing keeps) and
 * allowed-model-only (frag.h: a shape that does not allow node n's GPU model does not count
 * on n; the paper's measure counts all of n's free GPU for it, a bias by GPU model that
 * swamps the state). g is the job's GPU-milli: the tolerance T (--fgd-pack-tol, 0.08 by
 * default) is 8 % of what it takes, at least 80 milli (CPU-only jobs too).
 * Reservation: allowed-model-only also drops the term of the paper's F_n that keeps jobs
 * off a model that constrained shapes need: a shape that does not allow n's model counts
 * all of n's free GPU, so placing g milli on n lowers F_n by its popularity x g. Without
 * it, unconstrained jobs fill a scarce model (openb with a third of the GPU pods
 * constrained as the real trace's are, half of them to T4: 5 points more GPUs unallocated
 * than the artifact's fgd). So dF also has - R x p_ex(n) x g, with p_ex(n) the
 * summed popularity of the GPU shapes that do not allow n's model: the same for every
 * placement on n, a preference for the models the constrained shapes leave alone
 * (R, --fgd-pack-reserve, 8 by default).
 * Ties (one bin): tier 0 a GPU share placed on a GPU already partly used, 1 the node has
 * something allocated, 2 the node is idle (pol-packing.c's tiers); then left, the GPU-milli
 * the share leaves on its GPU / 1000 (best fit of the share), or for whole GPUs the node's
 * free GPU share after (1 on a node without GPUs). The term is below 1: it orders one bin.
 * Constants chosen on the tuning set of scripts/fgd-variants.sh and judged on its judging
 * set (voidfit.7, scripts/validate-fgd.sh). Default dims gpu.
 * bound: floor((fgd's bound - the reservation term, which is exact) / w) (floor does not
 * decrease) + the packing term's least value: for a share, at the GPU with the least room
 * that fits it (its tier is the least too).
 */
#include <math.h>
#include <stdlib.h>

#include "frag.h"
#include "gpumodel.h"
#include "pol-common.h"
#include "policy.h"
#include "util.h"

extern const struct policy_ops pol_fgd_ops;

/* T and R are policy parameters (policy.h: POLICY_P_FGD_PACK_TOL, _RESERVE). R's default,
 * 8, is 8 times the paper's weight, chosen on the tuning set's constrained variants (spec10,
 * spec25, spec50 of scripts/fgd-variants.sh: 0.5 left it 1.9-5.0 points above the artifact's
 * fgd on spec25 and spec50, 1 left 3.0 on spec25, 2 and 4 up to 0.24 on one of them, 8
 * within 0.1 on all three, 16 0.8 above on spec25). It does nothing on a trace without model
 * constraints. */

/* The summed popularity of wl's GPU shapes that do not allow GPU model model (or model < 0:
 * a node without one): the term the paper's F_n has and allowed-model-only drops. */
static double excluded_over(const struct frag_workload *wl, int model)
{
	double p = 0;
	for (size_t i = 0; i < wl->n; i++) {
		const struct frag_shape *m = &wl->shapes[i];
		if (m->num_gpu > 0 && m->gpu_spec && (model < 0 || !(m->gpu_spec & (1u << model))))
			p += m->p;
	}
	return p;
}

/* The policy's own target workload; per GPU model (index model + 1), its excluded share,
 * fixed for the run and read at every score; per node, F_n and the all-free share over the
 * workload (not the shapes that fit, which only POLICY_F_NODE_MD policies read). */
struct fp_state {
	struct frag_workload wl;
	double pex[GPUMODEL_MAX + 1];
	double *frag, *fnofit;
};

/* excluded_over for node n's model: from the run's state, or outside a run over ctx's
 * workload. */
static double p_excluded(const struct policy_ctx *ctx, size_t n)
{
	const struct fp_state *t = ctx->state;
	int model = ctx->c->spec[n].model;
	return t ? t->pex[model + 1] : excluded_over(ctx->wl, model);
}

static double bin_of(const struct policy_ctx *ctx, double dfrag, int64_t gpu_milli)
{
	return floor(dfrag / (ctx->param[POLICY_P_FGD_PACK_TOL] *
			      (double)(gpu_milli > 1000 ? gpu_milli : 1000)));
}

static int is_share(int32_t milli)
{
	return milli > 0 && milli < 1000;
}

static double pack_term(const struct policy_ctx *ctx, const struct placement *p)
{
	const struct node_state *s = pol_st(ctx, p);
	int tier = pol_node_used(s) ? 1 : 2;
	double left = s->cap[DIM_GPU] > 0 ? pol_free_after(s, p, DIM_GPU) : 1;
	if (is_share(p->milli)) {
		left = pol_gpu_left(s, p);
		for (int g = 0; g < CLUSTER_MAX_GPUS; g++)
			if ((p->gpus & (1u << g)) && s->gpu_free[g] < 1000)
				tier = 0;
	}
	return (tier + left) / 3.5;
}

static double fp_score(const struct policy_ctx *ctx, const struct job *j, const struct placement *p)
{
	double ex = ctx->param[POLICY_P_FGD_PACK_RESERVE] * p_excluded(ctx, (size_t)p->node) *
		    (double)p->dem[DIM_GPU];
	return bin_of(ctx, pol_fgd_ops.score(ctx, j, p) - ex, p->dem[DIM_GPU]) + pack_term(ctx, p);
}

static double fp_bound(const struct policy_ctx *ctx, const struct job *j, size_t n)
{
	struct placement p;
	const struct node_state *s = &ctx->c->st[n];
	pol_dem_of(ctx->c, n, j, &p);
	int tier = pol_node_used(s) ? 1 : 2;
	double left = s->cap[DIM_GPU] > 0 ? pol_free_after(s, &p, DIM_GPU) : 1;
	int32_t gmin = 1000;
	int64_t hmin = 0;
	if (is_share(p.milli)) {
		/* the GPU with the least room that fits leaves the least, and is partly used if
		 * any such GPU is; where none fits, score() is never called */
		left = 0;
		if (pol_least_room(ctx->c, n, p.milli, p.hbm, &gmin, &hmin)) {
			left = (double)(gmin - p.milli) / 1000.0;
			tier = gmin < 1000 ? 0 : tier;
		}
	}
	double ex =
		ctx->param[POLICY_P_FGD_PACK_RESERVE] * p_excluded(ctx, n) * (double)p.dem[DIM_GPU];
	return bin_of(ctx, pol_fgd_ops.bound(ctx, j, n) - ex, p.dem[DIM_GPU]) + (tier + left) / 3.5;
}

static void *fp_create(const struct policy_ctx *ctx, const struct job *jobs, size_t njobs)
{
	struct fp_state *t = xcalloc(1, sizeof *t);
	size_t nn = ctx->c->n ? ctx->c->n : 1;
	frag_workload_build(&t->wl, jobs, njobs, 1.0);
	t->wl.allowed_only = 1;
	for (int m = -1; m < GPUMODEL_MAX; m++)
		t->pex[m + 1] = excluded_over(&t->wl, m);
	t->frag = xcalloc(nn, sizeof *t->frag);
	t->fnofit = xcalloc(nn, sizeof *t->fnofit);
	return t;
}

static void fp_release(void *st)
{
	struct fp_state *t = st;
	if (!t)
		return;
	frag_workload_release(&t->wl);
	FREE_ALL(t->frag, t->fnofit, t);
}

/* ctx's workload and per-node data are over the own workload (fgd's score and bound read
 * them); no shapes that fit. */
static void fp_bind(void *st, struct policy_ctx *ctx)
{
	struct fp_state *t = st;
	ctx->wl = &t->wl;
	ctx->node_frag = t->frag;
	ctx->node_fnofit = t->fnofit;
	ctx->node_fits = NULL;
}

static void fp_node(void *st, const struct policy_ctx *ctx, size_t n)
{
	struct fp_state *t = st;
	double md;
	t->frag[n] = frag_node_eval(ctx->c, n, &t->wl, 0, &md, NULL, &t->fnofit[n], NULL);
}

static const struct policy_state_ops fp_state_ops = {
	.create = fp_create,
	.release = fp_release,
	.bind = fp_bind,
	.node = fp_node,
};

const struct policy_ops pol_fgd_pack_ops = {
	.name = "fgd-pack",
	.summary = "fgd within 8 % of the job's GPUs, by allowed models, scarce ones kept, ties "
		   "packed",
	.dims = DIM_BIT(DIM_GPU),
	.flags = POLICY_F_BY_STATE,
	.score = fp_score,
	.pick = NULL,
	.bound = fp_bound,
	.state = &fp_state_ops,
};
