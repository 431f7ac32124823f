/*
 * sim-k8s.c — the simulator's k8s part (sim-int.h): placement as kube-scheduler score
 * plugins (--scoring k8s, k8s.h). Every feasible node gets each plugin's integer score,
 * NormalizeScore where the plugin has it, the weighted sum; the highest wins, ties by node
 * name or at random. One plugin that depends on the node's state only, with nodes in name
 * order and ties by name, searches by class as find_by_class does (sim-place.c).
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "k8s.h"
#include "sim-int.h"
#include "util.h"

#define K8S_SALT       0x6b3873ULL     /* "k8s": its draws apart from the run's own PRNG */
#define K8S_NAMES_SALT 0x6e616d6573ULL /* "names": the order of --tie-break shuffled */

struct sim_k8s {
	struct k8s_plugin pl[K8S_MAX_PLUGINS];
	size_t npl;
	size_t main;          /* whose GPU selection places: the largest weight (first) */
	struct k8s_spec spec; /* the largest node, for the plugins' normalisation */
	/* One plugin that depends on the node's state only, nodes in name order, ties by
	 * name: the class search (the lowest index of a class is then its first name) */
	int fast;
	int32_t *rank;  /* per node: its place in name order */
	struct rng rng; /* random ties, the random plugin, random GPUs */
	int32_t *cand;  /* scratch, c.n long: the feasible nodes of a scan */
	int64_t *raw;   /* scratch, npl x c.n: their scores per plugin */
};

void sim_k8s_release(struct sim_k8s *k)
{
	if (!k)
		return;
	FREE_ALL(k->rank, k->cand, k->raw, k);
}

/* Set up s->k8s for o.scoring (s->pol.ops, s->c and s->pol.use_cls set); rng: the draws so far (a
 * fork's), or NULL to seed them. Returns 0 or VF_EINPUT for bad o.k8s_weights. */
int sim_k8s_setup(struct sim *s, const struct rng *rng, struct err *e)
{
	sim_k8s_release(s->k8s);
	s->k8s = NULL;
	if (s->o.scoring != SIM_SCORING_K8S)
		return VF_OK;
	struct sim_k8s *k = xcalloc(1, sizeof *k);
	struct k8s_plugin more[K8S_MAX_PLUGINS];
	size_t nmore = 0;
	const char *bad = NULL;
	if (s->o.k8s_weights &&
	    k8s_weights_parse(s->o.k8s_weights, more, K8S_MAX_PLUGINS - 1, &nmore, &bad)) {
		free(k);
		return err_set(e, VF_EINPUT, "--k8s-weights '%s': not NAME=WEIGHT,... at '%s'",
			       s->o.k8s_weights, bad);
	}
	k8s_plugin_of(s->pol.ops, &k->pl[0]);
	k->npl = 1;
	for (size_t i = 0; i < nmore; i++) {
		if (more[i].ops == s->pol.ops)
			k->pl[0].weight = more[i].weight;
		else
			k->pl[k->npl++] = more[i];
	}
	for (size_t i = 1; i < k->npl; i++)
		k->main = k->pl[i].weight > k->pl[k->main].weight ? i : k->main;
	k8s_spec_of(&s->c, &k->spec);
	size_t nn = s->c.n ? s->c.n : 1;
	k->rank = xmalloc(nn * sizeof *k->rank);
	k->cand = xmalloc(nn * sizeof *k->cand);
	k->raw = xmalloc(nn * k->npl * sizeof *k->raw);
	int sorted = 1;
	struct sim_named *order = xmalloc(nn * sizeof *order);
	for (size_t n = 0; n < s->c.n; n++)
		order[n] = (struct sim_named){s->c.spec[n].name, (int32_t)n};
	qsort(order, s->c.n, sizeof *order, sim_named_cmp);
	for (size_t r = 0; r < s->c.n; r++) {
		k->rank[order[r].n] = (int32_t)r;
		sorted &= order[r].n == (int32_t)r;
	}
	free(order);
	/* shuffled: each seed its order of the names; the class search knows index order only */
	if (s->o.k8s_tie == SIM_TIE_SHUFFLED) {
		k8s_shuffle_ranks(k->rank, s->c.n, rng_hash(s->o.seed, K8S_NAMES_SALT, 0));
		sorted = 0;
	}
	k->fast = k->npl == 1 && k->pl[0].by_state && s->pol.use_cls &&
		  s->o.k8s_tie == SIM_TIE_NAME && sorted;
	if (rng)
		k->rng = *rng;
	else
		rng_seed(&k->rng, rng_hash(s->o.seed, K8S_SALT, 0));
	s->k8s = k;
	return VF_OK;
}

/* The placement on node n that plugin main's GPU selection takes; its raw score in *raw if
 * raw is not NULL. 0 if j does not fit on n. */
static int k8s_choose(struct sim *s, const struct job *j, size_t n, struct placement *out,
		      int64_t *raw)
{
	struct sim_k8s *k = s->k8s;
	struct placement buf[CLUSTER_MAX_GPUS];
	int nc = cluster_choices(&s->c, n, j, buf, CLUSTER_MAX_GPUS), pick = 0;
	if (!nc)
		return 0;
	const struct k8s_plugin *pl = &k->pl[k->main];
	int64_t v = k8s_node_score(pl, &s->pol.ctx, &k->spec, j, n, buf, nc, &pick);
	if (raw)
		*raw = v;
	if (pl->gpusel == K8S_GPU_RANDOM && nc > 1) { /* a random GPU, not a random state */
		int w[CLUSTER_MAX_GPUS], tot = 0;
		for (int i = 0; i < nc; i++)
			tot += w[i] = k8s_gpu_weight(&s->c, n, &buf[i]);
		int64_t r = (int64_t)rng_below(&k->rng, (uint64_t)tot);
		for (pick = 0; pick < nc - 1 && r >= w[pick]; pick++)
			r -= w[pick];
	}
	*out = buf[pick];
	return 1;
}

struct k8s_eval {
	struct sim *s;
	const struct job *j;
};

/* The class search's score: the negated integer, so the lowest wins. */
static int k8s_eval_node(void *u, int32_t n, double *score)
{
	struct k8s_eval *x = u;
	struct sim_k8s *k = x->s->k8s;
	struct placement buf[CLUSTER_MAX_GPUS];
	int nc = cluster_choices(&x->s->c, (size_t)n, x->j, buf, CLUSTER_MAX_GPUS), pick;
	x->s->k.scored++;
	if (!nc)
		return 0;
	*score = -(double)k8s_node_score(&k->pl[0], &x->s->pol.ctx, &k->spec, x->j, (size_t)n, buf,
					 nc, &pick);
	return 1;
}

/* The policy's bound through the plugin's map, which is monotone, so it stays a bound. */
static int k8s_bound_node(void *u, int32_t n, double *score)
{
	struct k8s_eval *x = u;
	const struct k8s_plugin *pl = &x->s->k8s->pl[0];
	double b = x->s->pol.ops->bound(&x->s->pol.ctx, x->j, (size_t)n);
	*score = -(double)(pl->kind == K8S_FGD ? k8s_fgd_of(b) : k8s_derived_of(b));
	return 1;
}

/* One plugin that scores by state: the best class, as find_by_class. */
static int k8s_by_class(struct sim *s, const struct job *j, struct placement *out)
{
	struct sim_key key;
	struct k8s_eval x = {s, j};
	const struct k8s_plugin *pl = &s->k8s->pl[0];
	int64_t need[3] = {j->dem[DIM_CPU] > 0 ? j->dem[DIM_CPU] : 0,
			   j->dem[DIM_MEM] > 0 ? j->dem[DIM_MEM] : 0, job_gpu(j)};
	int32_t n;
	double sc;
	int bounded = s->pol.ops->bound && (pl->kind == K8S_FGD || pl->kind == K8S_DERIVED);
	sim_key_make(&key, j, s->pol.ctx.dims);
	if (!sim_classes_best(&s->pol.cls, &key, need, k8s_eval_node,
			      bounded ? k8s_bound_node : NULL, NULL, NULL, &x, &n, &sc))
		return 0;
	int64_t raw = 0;
	int ok = k8s_choose(s, j, (size_t)n, out, &raw);
	assert(ok && -(double)raw == sc && "a by-state plugin must depend on the state only");
	(void)ok;
	return 1;
}

/* Every feasible node: each plugin's score, NormalizeScore where the plugin has it, the
 * weighted sum; the highest wins, ties by name or at random. */
static int k8s_scan(struct sim *s, const struct job *j, struct placement *out)
{
	struct sim_k8s *k = s->k8s;
	size_t m = 0, cap = s->c.n;
	for (size_t n = cluster_next_fit(&s->c, 0, j); n < s->c.n;
	     n = cluster_next_fit(&s->c, n + 1, j)) {
		struct placement buf[CLUSTER_MAX_GPUS];
		int nc = cluster_choices(&s->c, n, j, buf, CLUSTER_MAX_GPUS), pick;
		if (!nc)
			continue;
		s->k.scored++;
		for (size_t p = 0; p < k->npl; p++)
			k->raw[p * cap + m] = k8s_node_score(&k->pl[p], &s->pol.ctx, &k->spec, j, n,
							     buf, nc, &pick);
		k->cand[m++] = (int32_t)n;
	}
	if (!m)
		return 0;
	for (size_t p = 0; p < k->npl; p++) {
		int64_t *v = &k->raw[p * cap];
		if (k->pl[p].kind == K8S_RANDOM) { /* PreScore draws one feasible node */
			memset(v, 0, m * sizeof *v);
			v[rng_below(&k->rng, m)] = K8S_MAX_SCORE;
		} else if (k->pl[p].normalize) {
			k8s_normalize(v, m);
		}
	}
	size_t best = 0, ties = 0;
	int64_t top = 0;
	for (size_t i = 0; i < m; i++) {
		int64_t t = 0;
		for (size_t p = 0; p < k->npl; p++)
			t += k->pl[p].weight * k->raw[p * cap + i];
		if (!i || t > top) {
			top = t;
			best = i;
			ties = 1;
		} else if (t == top) {
			ties++;
			if (s->o.k8s_tie == SIM_TIE_RANDOM
				    ? rng_below(&k->rng, ties) == 0
				    : k->rank[k->cand[i]] < k->rank[k->cand[best]])
				best = i;
		}
	}
	return k8s_choose(s, j, (size_t)k->cand[best], out, NULL);
}

int sim_k8s_find(struct sim *s, const struct job *j, struct placement *out)
{
	if (job_gpu(j) > s->c.free_gpu_milli)
		return 0;
	return s->k8s->fast ? k8s_by_class(s, j, out) : k8s_scan(s, j, out);
}

const struct rng *sim_k8s_rng(const struct sim_k8s *k)
{
	return &k->rng;
}
