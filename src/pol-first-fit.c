/*
 * pol-first-fit.c — first-fit: the first feasible node in node order (its first choice).
 *
 * score = pol_oversub (0 unless --dims adds a shared dim the job would oversubscribe), so
 * ties, i.e. everything, go to the lowest node index. pick() walks the nodes that may fit in
 * order (cluster_next_fit skips the others in bulk) and stops at the first one that fits
 * without oversubscribing.
 */
#include "cluster.h"
#include "pol-common.h"
#include "policy.h"

static double ff_score(const struct policy_ctx *ctx, const struct job *j, const struct placement *p)
{
	(void)j;
	return pol_oversub(ctx, p);
}

static int ff_pick(const struct policy_ctx *ctx, const struct job *j, struct placement *out)
{
	const struct cluster *c = ctx->c;
	double best = 0;
	int found = 0;
	struct placement p;
	for (size_t n = cluster_next_fit(c, 0, j); n < c->n; n = cluster_next_fit(c, n + 1, j)) {
		if (!cluster_first_choice(c, n, j, &p))
			continue;
		double s = pol_oversub(ctx, &p);
		if (!found || s < best) {
			*out = p;
			best = s;
			found = 1;
		}
		if (s == 0)
			break;
	}
	return found;
}

const struct policy_ops pol_first_fit_ops = {
	.name = "first-fit",
	.summary = "the first feasible node in node order",
	.dims = DIMS_HARD,
	.flags = POLICY_F_BY_STATE,
	.score = ff_score,
	.pick = ff_pick,
};
