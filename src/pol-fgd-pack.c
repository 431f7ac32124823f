/*
 * pol-fgd-pack.c — fgd-pack: FGD's fragmentation gradient at the resolution the FGD artifact
 * scores it, with ties packed on purpose.
 *
 * The FGD paper's figures come from a scheduler that scores fgd as the integer
 * q(dF) = trunc(100 sigmoid(-dF / 1000)) (k8s.h), so placements within some 40 GPU-milli of
 * fragmentation change tie, and ties go to the node whose name sorts first: that packs, and
 * beats exact fgd (openb GPU nodes, 100 % load: 4.70 % of GPUs unallocated against 7.30 %).
 * fgd-pack keeps the bins and packs the ties by GPU packing instead of by name:
 *   score = -q(F_n after - F_n before + pol_oversub) + (tier + free'_gpu) / 3.5
 * tier 0: a GPU share placed on a GPU already partly used; 1: the node has something
 * allocated; 2: the node is idle (pol-packing.c's tiers); free'_gpu the node's free GPU share
 * after placement (1 on a node without GPUs). The packing term is below 1, so it only orders
 * placements of one bin. Default dims gpu.
 * bound: -q(fgd's bound) (q does not increase with dF) + the packing term with the tier's
 * least value (0 for a share on a used node, whose GPU is not chosen yet): the free GPU
 * share after placement is the same on every GPU.
 */
#include "k8s.h"
#include "pol-common.h"
#include "policy.h"

extern const struct policy_ops pol_fgd_ops;

static double pack_term(const struct policy_ctx *ctx, const struct placement *p)
{
	const struct node_state *s = pol_st(ctx, p);
	int tier = pol_node_used(s) ? 1 : 2;
	if (p->milli > 0 && p->milli < 1000)
		for (int g = 0; g < CLUSTER_MAX_GPUS; g++)
			if ((p->gpus & (1u << g)) && s->gpu_free[g] < 1000)
				tier = 0;
	double fr = s->cap[DIM_GPU] > 0 ? pol_free_after(s, p, DIM_GPU) : 1;
	return (tier + fr) / 3.5;
}

static double fp_score(const struct policy_ctx *ctx, const struct job *j, const struct placement *p)
{
	return -(double)k8s_fgd_of(pol_fgd_ops.score(ctx, j, p)) + pack_term(ctx, p);
}

static double fp_bound(const struct policy_ctx *ctx, const struct job *j, size_t n)
{
	/* the packing term's least value: the tier is known but for a share on a used node (0
	 * or 1), and the free GPU share after does not depend on the GPU chosen */
	struct placement p;
	const struct node_state *s = &ctx->c->st[n];
	pol_dem_of(ctx->c, n, j, &p);
	int tier = !pol_node_used(s) ? 2 : p.milli > 0 && p.milli < 1000 ? 0 : 1;
	double fr = s->cap[DIM_GPU] > 0 ? pol_free_after(s, &p, DIM_GPU) : 1;
	return -(double)k8s_fgd_of(pol_fgd_ops.bound(ctx, j, n)) + (tier + fr) / 3.5;
}

const struct policy_ops pol_fgd_pack_ops = {
	.name = "fgd-pack",
	.summary = "fgd in the FGD artifact's integer bins, ties packed (GPU packing tiers)",
	.dims = DIM_BIT(DIM_GPU),
	.flags = POLICY_F_BY_STATE,
	.score = fp_score,
	.pick = NULL,
	.bound = fp_bound,
};
