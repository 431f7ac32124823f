/*
 * sim-place.c — the simulator's policy part (sim-int.h): the policy, its context, what it
 * sees per node beyond the run's measures, and the placement search (sim.c's top comment,
 * "Placement search"). Everything here is made for the policy in force, so a fork that
 * switches policy makes it anew (sim_pol_setup); the policy's own state is cloned when the
 * policy stays.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim-int.h"
#include "util.h"

/* The best choice of j on node n: its score and placement (first of equal scores). */
static int best_on_node(struct sim *s, const struct job *j, size_t n, double *score,
			struct placement *out)
{
	struct placement buf[CLUSTER_MAX_GPUS];
	if (!admits(s->pol.admit, &s->c.st[n], j))
		return 0;
	int k = cluster_choices(&s->c, n, j, buf, CLUSTER_MAX_GPUS), found = 0;
	assert(k <= CLUSTER_MAX_GPUS);
	for (int c = 0; c < k; c++) {
		double sc = s->pol.ops->score(&s->pol.ctx, j, &buf[c]);
		if (!found || sc < *score) {
			*score = sc;
			if (out)
				*out = buf[c];
			found = 1;
		}
	}
	return found;
}

struct eval_ctx {
	struct sim *s;
	const struct job *j;
};

static int eval_node(void *u, int32_t n, double *score)
{
	struct eval_ctx *x = u;
	x->s->k.scored++;
	return best_on_node(x->s, x->j, (size_t)n, score, NULL);
}

static int bound_node(void *u, int32_t n, double *score)
{
	struct eval_ctx *x = u;
	*score = x->s->pol.ops->bound(&x->s->pol.ctx, x->j, (size_t)n);
	return 1;
}

static void bound_recs(void *u, const void *recs, const int32_t *pos, size_t m, double *out)
{
	struct eval_ctx *x = u;
	x->s->pol.ops->bound_recs(&x->s->pol.ctx, x->j, recs, pos, m, out);
}

static void bound_keys(void *u, const void *recs, const int32_t *pos, size_t m, double *out)
{
	struct eval_ctx *x = u;
	x->s->pol.ops->bound_keys(&x->s->pol.ctx, x->j, recs, pos, m, out);
}

/* sim_find_place for a POLICY_F_BY_STATE policy: the lowest (score, node) over the lowest-indexed
 * node of each class of identical nodes (sim-class.h), which is exactly what the loop over
 * every node chooses; then that node's best choice. */
static int find_by_class(struct sim *s, const struct job *j, struct placement *out)
{
	struct sim_key key;
	struct eval_ctx x = {s, j};
	int64_t need[3] = {j->dem[DIM_CPU] > 0 ? j->dem[DIM_CPU] : 0,
			   j->dem[DIM_MEM] > 0 ? j->dem[DIM_MEM] : 0, job_gpu(j)};
	int32_t n;
	double sc, again;
	sim_key_make(&key, j, s->pol.ctx.dims);
	if (!sim_classes_best(&s->pol.cls, &key, need, eval_node,
			      s->pol.ops->bound ? bound_node : NULL,
			      s->pol.ops->bound_recs ? bound_recs : NULL,
			      s->pol.ops->bound_recs && s->pol.ops->bound_keys ? bound_keys : NULL,
			      &x, &n, &sc))
		return 0;
	int ok = best_on_node(s, j, (size_t)n, &again, out);
	assert(ok && again == sc && "a POLICY_F_BY_STATE score must depend on the state only");
	(void)ok;
	return 1;
}

/* Salt of the sampling order's seed, so it draws apart from the run's own PRNG. */
#define SAMPLE_SALT 0x73616d706c65ULL /* "sample" */

/* A node of a sampled search and its bound. */
struct cand {
	double bound;
	int32_t node;
};

/*
 * Up to o.sample_nodes nodes where j fits, met in a seeded random order (a walk from a
 * random node by a random step, cluster_walk_start: every node comes once): Borg's
 * "relaxed randomization" (Verma et al., EuroSys 2015, section 3.4). The nodes in s->pol.cand;
 * returns how many.
 */
static size_t sample_nodes(struct sim *s, const struct job *j)
{
	size_t want = s->o.sample_nodes, m = 0;
	uint64_t a = rng_next(&s->pol.srng), b = rng_next(&s->pol.srng);
	struct cluster_walk w = cluster_walk_start(&s->c, a, b);
	xgrow(&s->pol.cand, &s->pol.candcap, want, sizeof *s->pol.cand);
	xgrow(&s->pol.met, &s->pol.metcap, want, sizeof *s->pol.met);
	for (size_t nmet; m < want && (nmet = cluster_walk(&s->c, j, &w, s->pol.met, want - m));)
		for (size_t k = 0; k < nmet; k++) { /* the nodes met that may hold j */
			struct placement p;
			if (admits(s->pol.admit, &s->c.st[s->pol.met[k]], j) &&
			    cluster_first_choice(&s->c, (size_t)s->pol.met[k], j, &p))
				s->pol.cand[m++] = (struct cand){0, s->pol.met[k]};
		}
	return m;
}

/* (a, an) comes before (b, bn): the lower score, then the lower node. (No branch: in the
 * searches below the answer is a coin toss.) */
static int ahead(double a, int32_t an, double b, int32_t bn)
{
	return (a < b) | ((a == b) & (an < bn));
}

/* sim_find_place with o.sample_nodes: the lowest (score, node) over the sampled nodes. With a
 * bound(), the node with the least bound is taken next, and only while its bound can still
 * beat the best score; once a score is known, the nodes whose bound cannot are dropped, so
 * few are left to choose from. */
static int find_sampled(struct sim *s, const struct job *j, struct placement *out)
{
	if (cluster_next_fit(&s->c, 0, j) == s->c.n)
		return 0; /* no node may hold it: the walk would meet every node in vain */
	size_t m = sample_nodes(s, j);
	const struct policy_ops *ops = s->pol.ops;
	struct cand *cd = s->pol.cand;
	for (size_t i = 0; ops->bound && i < m; i++)
		cd[i].bound = ops->bound(&s->pol.ctx, j, (size_t)cd[i].node);
	double best = 0;
	int32_t bn = -1;
	while (m) {
		size_t at = 0;
		for (size_t i = 1; ops->bound && i < m; i++)
			at = ahead(cd[i].bound, cd[i].node, cd[at].bound, cd[at].node) ? i : at;
		struct cand c = cd[at];
		cd[at] = cd[--m];
		double sc;
		s->k.scored++;
		if (!best_on_node(s, j, (size_t)c.node, &sc, NULL) ||
		    (bn >= 0 && !ahead(sc, c.node, best, bn)))
			continue;
		best = sc;
		bn = c.node;
		size_t w = 0; /* keep the nodes that may still beat it */
		for (size_t i = 0; ops->bound && i < m; i++)
			if (ahead(cd[i].bound, cd[i].node, best, bn))
				cd[w++] = cd[i];
		m = ops->bound ? w : m;
	}
	return bn >= 0 && best_on_node(s, j, (size_t)bn, &best, out);
}

/* The placement the policy picks for j, or 0 if j fits nowhere now. */
int sim_find_place(struct sim *s, const struct job *j, struct placement *out)
{
	if (s->k8s)
		return sim_k8s_find(s, j, out);
	if (s->pol.ops->pick &&
	    !s->pol.admit) /* a pick() knows no admission: the score loop does */
		return s->pol.ops->pick(&s->pol.ctx, j, out);
	struct placement buf[CLUSTER_MAX_GPUS];
	double best = 0;
	int found = 0;
	if (job_gpu(j) > s->c.free_gpu_milli)
		return 0;
	if (s->pol.sampled)
		return find_sampled(s, j, out);
	if (s->pol.use_cls)
		return find_by_class(s, j, out);
	const struct policy_ops *ops = s->pol.ops;
	for (size_t n = cluster_next_fit(&s->c, 0, j); n < s->c.n;
	     n = cluster_next_fit(&s->c, n + 1, j)) {
		if (!admits(s->pol.admit, &s->c.st[n], j))
			continue;
		/* a later node wins no tie: skip it unless its bound is below the best */
		if (found && ops->bound && !(ops->bound(&s->pol.ctx, j, n) < best))
			continue;
		int k = cluster_choices(&s->c, n, j, buf, CLUSTER_MAX_GPUS);
		assert(k <= CLUSTER_MAX_GPUS);
		s->k.scored++;
		for (int c = 0; c < k; c++) {
			double sc = s->pol.ops->score(&s->pol.ctx, j, &buf[c]);
			if (!found ||
			    sc < best) { /* ties: the lowest node, then its first choice */
				best = sc;
				*out = buf[c];
				found = 1;
			}
		}
	}
	return found;
}

int sim_find_place_skip(struct sim *s, const struct job *j, const uint64_t *skip,
			struct placement *out)
{
	double best = 0, sc;
	int found = 0;
	for (size_t n = cluster_next_fit(&s->c, 0, j); n < s->c.n;
	     n = cluster_next_fit(&s->c, n + 1, j)) {
		struct placement p;
		if ((skip[n / 64] >> (n % 64)) & 1)
			continue;
		s->k.scored++;
		if (best_on_node(s, j, n, &sc, &p) && (!found || sc < best)) {
			best = sc;
			*out = p;
			found = 1;
		}
	}
	return found;
}

/* policy_ctx.job_of: the job behind instance jobidx. */
static const struct job *ctx_job_of(const void *u, int32_t jobidx)
{
	const struct sim *s = u;
	assert(jobidx >= 0 && (size_t)jobidx < s->inst.njobs);
	return src_job(s, &s->inst.jobs[jobidx]);
}

/* The policy's own state, when it keeps one (policy_ops.state): a clone of from's, or made
 * anew (from NULL, or from another policy's run); returns 1 if made anew, when every node is
 * still to be told of. */
static int pstate_setup(struct sim *s, const struct sim *from)
{
	const struct policy_state_ops *st = s->pol.ops->state;
	s->pol.state = NULL;
	if (!st)
		return 0;
	if (from && from->pol.ops == s->pol.ops && st->clone) {
		s->pol.state = st->clone(from->pol.state);
		return 0;
	}
	s->pol.ctx.c = &s->c;
	s->pol.state = st->create(&s->pol.ctx, s->js->jobs, s->js->njobs);
	return 1;
}

static void setup_derived(struct sim *s)
{
	s->pol.ctx.c = &s->c;
	s->pol.ctx.wl = s->wl;
	s->pol.ctx.node_frag = s->node.frag;
	s->pol.ctx.node_fnofit = s->wl ? s->node.fnofit : NULL;
	s->pol.ctx.dims = s->o.dims ? s->o.dims : s->pol.ops->dims;
	uint32_t own =
		(s->pol.ops->flags & POLICY_F_IO_ADMIT) ? DIM_BIT(DIM_STO) | DIM_BIT(DIM_IOCPU) : 0;
	s->pol.admit = s->o.io_admission < 0 ? own : s->o.io_admission ? DIMS_SHARED : 0;
	s->pol.admit &= s->pol.ctx.dims & DIMS_SHARED;
	s->pol.ctx.admit = s->pol.admit;
	s->pol.ctx.node_md = s->pol.ctx.node_nofit = NULL;
	s->pol.ctx.node_fits = s->wl ? (const uint64_t(*)[2])s->node.fits : NULL;
	if (s->wl && (s->pol.ops->flags & POLICY_F_NODE_MD)) {
		/* nmd is over all dims; other dims have their own arrays */
		int all = (s->pol.ctx.dims & DIMS_ALL) == DIMS_ALL;
		s->pol.ctx.node_md = all ? s->node.md : s->pol.pmd;
		s->pol.ctx.node_nofit = all ? s->node.nofit : s->pol.pnofit;
		s->pol.ctx.node_fits = (const uint64_t(*)[2])(all ? s->node.fits : s->pol.pfits);
	}
	memcpy(s->pol.ctx.param, s->o.param, sizeof s->pol.ctx.param);
	s->pol.ctx.rng = &s->rng;
	s->pol.ctx.job_of = ctx_job_of;
	s->pol.ctx.job_of_u = s;
	s->pol.ctx.state = s->pol.state;
	if (s->pol.state && s->pol.ops->state->bind)
		s->pol.ops->state->bind(s->pol.state, &s->pol.ctx);
	/* Sampled searches score nodes (identical nodes are pruned by their bound): the
	 * classes would cost more to keep than they save. */
	s->pol.sampled = s->o.sample_nodes && s->o.sample_nodes < s->c.n;
	/* k8s scoring never calls pick(): first-fit's plugin then searches by class, as fgd's,
	 * instead of scoring every feasible node (6x fgd on openb inflation) */
	s->pol.use_cls = (s->pol.ops->flags & POLICY_F_BY_STATE) &&
			 (!s->pol.ops->pick || s->o.scoring == SIM_SCORING_K8S) && !s->pol.sampled;
}

/* The policy's per-node prep records (policy_ops.prep), made for s's policy (none without a
 * workload): filled for every node if fill, else left to the first sim_node_refresh of each. */
static void prep_setup(struct sim *s, int fill)
{
	s->pol.prep = NULL;
	s->pol.ctx.node_prep = NULL;
	if (!s->pol.ops->prep || !s->wl)
		return;
	assert(s->pol.ops->prep_size > 0);
	s->pol.prep = xcalloc(s->c.n ? s->c.n : 1, s->pol.ops->prep_size);
	s->pol.ctx.node_prep = s->pol.prep;
	for (size_t n = 0; fill && n < s->c.n; n++)
		s->pol.ops->prep(&s->pol.ctx, n, s->pol.prep + n * s->pol.ops->prep_size);
}

/* Shape indexes the class search keeps: more for a policy whose bound is dear. */
static size_t shape_indexes(const struct policy_ops *ops)
{
	return ops->flags & POLICY_F_DEAR_BOUND ? SIM_KEYS_DEAR : SIM_KEYS;
}

void sim_pol_setup(struct sim *s, const struct policy_ops *ops, const struct sim *from, int fill)
{
	struct sim_pol *p = &s->pol;
	size_t nn = s->c.n ? s->c.n : 1;
	p->ops = ops;
	if (!from) /* a fork goes on in its original's sampling order */
		rng_seed(&p->srng, rng_hash(s->o.seed, SAMPLE_SALT, 0));
	p->cand = NULL; /* scratch */
	p->met = NULL;
	p->candcap = p->metcap = 0;
	p->skip = NULL;
	p->skipcap = 0;
	p->pmd = p->pnofit = NULL;
	p->pfits = NULL;
	uint32_t dims = s->o.dims ? s->o.dims : ops->dims;
	if (s->wl && (ops->flags & POLICY_F_NODE_MD) && (dims & DIMS_ALL) != DIMS_ALL) {
		p->pmd = xcalloc(nn, sizeof *p->pmd);
		p->pnofit = xcalloc(nn, sizeof *p->pnofit);
		p->pfits = xcalloc(nn, sizeof *p->pfits);
		for (size_t n = 0; fill && n < s->c.n; n++)
			frag_node_eval(&s->c, n, s->wl, dims, &p->pmd[n], &p->pnofit[n], NULL,
				       p->pfits[n]);
	}
	int made = pstate_setup(s, from);
	setup_derived(s);
	for (size_t n = 0; fill && made && ops->state->node && n < s->c.n; n++)
		ops->state->node(p->state, &p->ctx, n);
	prep_setup(s, fill);
	memset(&p->cls, 0, sizeof p->cls);
	if (p->use_cls)
		sim_classes_init(&p->cls, &s->c, shape_indexes(ops),
				 ops->bound && ops->bound_recs ? p->prep : NULL, ops->prep_size);
}

void sim_pol_release(struct sim_pol *p)
{
	sim_classes_release(&p->cls);
	FREE_ALL(p->pmd, p->pnofit, p->pfits, p->prep, p->cand, p->met, p->skip);
	if (p->state)
		p->ops->state->release(p->state);
}
