/*
 * pol-random.c — random: a uniformly random feasible node.
 *
 * score(n) = U(key, job id, n) + pol_oversub, where U is a uniform draw in [0, 1) from
 * rng_hash and key is read from the simulation's PRNG state without advancing it. Every
 * node gets an independent draw, so the lowest is a uniformly random feasible node; all
 * choices on one node share its draw, so the first choice wins. Reading the PRNG instead of
 * drawing from it makes pick() and the score loop choose the same node, whatever order
 * the simulator scores in; the simulator's own draws (sampling, enrichment) move the key.
 * pick() draws first and asks whether the job fits only on a node whose draw is below the
 * best score so far (pol_oversub >= 0, so no other can win): a few nodes a job, where
 * asking every node made a replay cost 16 times first-fit's.
 */
#include "cluster.h"
#include "pol-common.h"
#include "policy.h"

/* What U's draws for j share: rng_hash's first two steps (U(n) = draw(key_of(j), n)). */
static uint64_t key_of(const struct policy_ctx *ctx, const struct job *j)
{
	assert(ctx->rng);
	const uint64_t *s = ctx->rng->s;
	return rng_hash_ab(s[0] ^ s[1], s[2] ^ s[3] ^ (uint64_t)j->id);
}

static double draw(uint64_t key, size_t n)
{
	return (double)(rng_hash_c(key, (uint64_t)n) >> 11) * 0x1.0p-53;
}

static double random_score(const struct policy_ctx *ctx, const struct job *j,
			   const struct placement *p)
{
	return draw(key_of(ctx, j), (size_t)p->node) + pol_oversub(ctx, p);
}

static int random_pick(const struct policy_ctx *ctx, const struct job *j, struct placement *out)
{
	const struct cluster *c = ctx->c;
	uint64_t key = key_of(ctx, j);
	double best = 0;
	int found = 0;
	struct placement p;
	for (size_t n = 0; n < c->n; n++) {
		double u = draw(key, n);
		if (found && u >= best) /* its score is at least u */
			continue;
		if (!pol_may_fit(&c->st[n], j) || !cluster_first_choice(c, n, j, &p))
			continue;
		double s = u + pol_oversub(ctx, &p);
		if (!found || s < best) {
			*out = p;
			best = s;
			found = 1;
		}
	}
	return found;
}

const struct policy_ops pol_random_ops = {
	.name = "random",
	.summary = "a uniformly random feasible node",
	.dims = DIMS_HARD,
	.flags = 0,
	.score = random_score,
	.pick = random_pick,
};
