/*
 * cluster.c — the live state of a cluster during a replay (cluster.h).
 *
 * Invariants (asserted on every change):
 *   - hard dims: 0 <= used[d] <= cap[d]; per GPU 0 <= gpu_free[i] <= 1000 and
 *     0 <= hbm_free[i] <= the GPU's HBM (cap[hbm] / ngpu of the spec);
 *   - used[d] == sum of the placements' dem[d] on the node, njobs == their number;
 *   - free_gpu_milli == sum over nodes of (spec gpu cap - used gpu);
 *   - each inner node of the max-tree holds the maxima of its two children, and its
 *     tmodels the union of theirs (set once: a node's model never changes).
 * Shared dims may have used > cap (contention): nothing here refuses it.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "util.h"

/* HBM of one GPU of node n (the spec's total HBM split evenly over its GPUs). */
static int64_t gpu_hbm(const struct node *n)
{
	return n->ngpu > 0 ? n->cap[DIM_HBM] / n->ngpu : 0;
}

/* Recompute node n's leaf of the max-tree and its ancestors. */
static void tree_update(struct cluster *c, size_t n)
{
	const struct node_state *s = &c->st[n];
	size_t i = c->tsize + n;
	int64_t best = 0;
	for (int g = 0; g < c->spec[n].ngpu; g++)
		best = s->gpu_free[g] > best ? s->gpu_free[g] : best;
	c->tree[i][0] = s->cap[DIM_CPU] - s->used[DIM_CPU];
	c->tree[i][1] = s->cap[DIM_MEM] - s->used[DIM_MEM];
	c->tree[i][2] = s->cap[DIM_GPU] - s->used[DIM_GPU];
	c->tree[i][3] = best;
	for (i /= 2; i >= 1; i /= 2) {
		int same = 1;
		for (int k = 0; k < 4; k++) {
			int64_t a = c->tree[2 * i][k], b = c->tree[2 * i + 1][k];
			int64_t v = a > b ? a : b;
			same &= c->tree[i][k] == v;
			c->tree[i][k] = v;
		}
		if (same) /* the ancestors hold the maxima already */
			break;
	}
}

static void tree_init(struct cluster *c)
{
	c->tsize = 1;
	while (c->tsize < c->n)
		c->tsize *= 2;
	c->tree = xcalloc(2 * c->tsize, sizeof *c->tree);
	c->tmodels = xcalloc(2 * c->tsize, sizeof *c->tmodels);
	for (size_t i = 0; i < 2 * c->tsize; i++)
		for (int k = 0; k < 4; k++)
			c->tree[i][k] = -1; /* empty leaves never fit */
	for (size_t n = 0; n < c->n; n++) {
		int m = c->spec[n].model;
		assert(m < 32 && "a job's gpu_spec names models by bit");
		c->tmodels[c->tsize + n] = m >= 0 ? 1u << m : 0;
		tree_update(c, n);
	}
	for (size_t i = c->tsize; i-- > 1;)
		c->tmodels[i] = c->tmodels[2 * i] | c->tmodels[2 * i + 1];
}

/* What cluster_next_fit needs of a subtree: the four maxima, and (models != 0) a model. */
struct tree_need {
	int64_t v[4];
	uint32_t models;
};

static int tree_may_fit(const struct cluster *c, size_t i, const struct tree_need *need)
{
	const int64_t *t = c->tree[i];
	return t[0] >= need->v[0] && t[1] >= need->v[1] && t[2] >= need->v[2] &&
	       t[3] >= need->v[3] && (!need->models || (c->tmodels[i] & need->models));
}

static struct tree_need tree_need_of(const struct job *j)
{
	/* the model test as fits_node makes it: for GPU jobs naming models */
	return (struct tree_need){{j->dem[DIM_CPU] > 0 ? j->dem[DIM_CPU] : 0,
				   j->dem[DIM_MEM] > 0 ? j->dem[DIM_MEM] : 0,
				   j->num_gpu > 0 ? (int64_t)j->num_gpu * j->gpu_milli : 0,
				   j->num_gpu > 0 ? j->gpu_milli : 0},
				  j->num_gpu > 0 ? j->gpu_spec : 0};
}

static size_t gcd(size_t a, size_t b)
{
	while (b) {
		size_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

struct cluster_walk cluster_walk_start(const struct cluster *c, uint64_t a, uint64_t b)
{
	size_t n = c->n, step = 1;
	assert(n > 0);
	if (n > 2)
		for (step = 1 + (size_t)(b % (n - 1)); gcd(step, n) != 1;)
			step = step % (n - 1) + 1;
	return (struct cluster_walk){(size_t)(a % n), step, n};
}

size_t cluster_walk(const struct cluster *c, const struct job *j, struct cluster_walk *w,
		    int32_t *out, size_t max)
{
	struct tree_need need = tree_need_of(j);
	size_t m = 0, at = w->at, left = w->left, step = w->step, n = c->n;
	assert(at < n && step > 0 && step < n + (n == 1));
	for (; left && m < max; left--) {
		/* no branch on the test: whether a node passes is a coin toss */
		size_t i = c->tsize + at;
		const int64_t *t = c->tree[i];
		out[m] = (int32_t)at;
		m += (size_t)((t[0] >= need.v[0]) & (t[1] >= need.v[1]) & (t[2] >= need.v[2]) &
			      (t[3] >= need.v[3]) &
			      (!need.models | !!(c->tmodels[i] & need.models)));
		at = at + step >= n ? at + step - n : at + step;
	}
	w->at = at;
	w->left = left;
	return m;
}

size_t cluster_next_fit(const struct cluster *c, size_t from, const struct job *j)
{
	struct tree_need need = tree_need_of(j);
	if (from >= c->n)
		return c->n;
	/* Walk up from the leaf of 'from'; at each step, look into the right siblings. A
	 * subtree passes when some leaf below meets each need, but maybe no single leaf meets
	 * them all: then the descent finds neither child passing and the walk goes on. So the
	 * node returned passes the test itself. */
	size_t i = c->tsize + from;
	if (tree_may_fit(c, i, &need))
		return from;
	for (;;) {
		while (i & 1) { /* a right child: go up until we are a left child */
			i /= 2;
			if (i <= 1)
				return c->n;
		}
		i++; /* the right sibling */
		if (!tree_may_fit(c, i, &need))
			continue;
		while (i < c->tsize) { /* descend to the leftmost passing leaf */
			if (tree_may_fit(c, 2 * i, &need))
				i = 2 * i;
			else if (tree_may_fit(c, 2 * i + 1, &need))
				i = 2 * i + 1;
			else
				break;
		}
		if (i >= c->tsize)
			return i - c->tsize < c->n ? i - c->tsize : c->n;
	}
}

void cluster_init(struct cluster *c, const struct node *nodes, size_t n)
{
	memset(c, 0, sizeof *c);
	c->spec = nodes;
	c->n = n;
	c->st = xcalloc(n ? n : 1, sizeof *c->st);
	for (size_t i = 0; i < n; i++) {
		const struct node *sp = &nodes[i];
		struct node_state *s = &c->st[i];
		assert(sp->ngpu >= 0 && sp->ngpu <= CLUSTER_MAX_GPUS);
		for (int d = 0; d < DIM_N; d++) {
			assert(sp->cap[d] >= 0 &&
			       "enrichment fills every capacity before a replay");
			s->cap[d] = sp->cap[d];
			c->total[d] += sp->cap[d];
		}
		for (int g = 0; g < sp->ngpu; g++) {
			s->gpu_free[g] = 1000;
			s->hbm_free[g] = gpu_hbm(sp);
		}
		c->free_gpu_milli += sp->cap[DIM_GPU];
	}
	tree_init(c);
}

void cluster_release(struct cluster *c)
{
	if (!c)
		return;
	if (c->st)
		for (size_t i = 0; i < c->n; i++)
			free(c->st[i].jobs);
	FREE_ALL(c->st, c->tree, c->tmodels);
	memset(c, 0, sizeof *c);
}

void cluster_clone(struct cluster *dst, const struct cluster *src)
{
	*dst = *src;
	dst->st = xmalloc((src->n ? src->n : 1) * sizeof *dst->st);
	memcpy(dst->st, src->st, src->n * sizeof *dst->st);
	for (size_t i = 0; i < src->n; i++) {
		struct node_state *s = &dst->st[i];
		if (!src->st[i].jobs)
			continue;
		s->jobs = xmalloc((size_t)s->jobcap * sizeof *s->jobs);
		memcpy(s->jobs, src->st[i].jobs, (size_t)s->njobs * sizeof *s->jobs);
	}
	dst->tree = xmalloc(2 * src->tsize * sizeof *dst->tree);
	memcpy(dst->tree, src->tree, 2 * src->tsize * sizeof *dst->tree);
	dst->tmodels = xmalloc(2 * src->tsize * sizeof *dst->tmodels);
	memcpy(dst->tmodels, src->tmodels, 2 * src->tsize * sizeof *dst->tmodels);
}

int64_t cluster_job_hbm(const struct cluster *c, size_t n, const struct job *j)
{
	assert(n < c->n);
	return cluster_hbm_of(gpu_hbm(&c->spec[n]), j);
}

int64_t cluster_gpu_hbm(const struct cluster *c, size_t n)
{
	assert(n < c->n);
	return gpu_hbm(&c->spec[n]);
}

/* Does j fit on node n's cpu and mem, is the node's GPU model allowed, and does the node
 * have each shared dim j uses? A job on a node whose spec lacks one (capacity 0) would run
 * at rate 0 for ever; a fault to 0 ends, so the spec decides, not the capacity now. */
static bool fits_node(const struct cluster *c, size_t n, const struct job *j)
{
	const struct node_state *s = &c->st[n];
	const struct node *sp = &c->spec[n];
	for (int d = DIM_CPU; d <= DIM_MEM; d++) {
		int64_t dem = j->dem[d] > 0 ? j->dem[d] : 0;
		if (s->used[d] + dem > s->cap[d])
			return false;
	}
	for (int d = DIM_NET; d < DIM_N; d++)
		if ((DIMS_SHARED & DIM_BIT(d)) && j->dem[d] > 0 && sp->cap[d] == 0)
			return false;
	if (j->num_gpu > 0) {
		if (j->num_gpu > sp->ngpu)
			return false;
		if (j->gpu_spec && (sp->model < 0 || !(j->gpu_spec & (1u << sp->model))))
			return false;
	}
	return true;
}

static void fill(const struct cluster *c, size_t n, const struct job *j, uint32_t gpus, int64_t hbm,
		 struct placement *p)
{
	(void)c;
	memset(p, 0, sizeof *p);
	cluster_placement_of(n, j, hbm, p);
	p->gpus = gpus;
}

int cluster_choices(const struct cluster *c, size_t n, const struct job *j, struct placement *out,
		    int max)
{
	struct placement first;
	if (!cluster_first_choice(c, n, j, &first))
		return 0;
	if (j->num_gpu != 1 || j->gpu_milli == 1000) { /* CPU only, or whole GPUs: one choice */
		if (max > 0)
			out[0] = first;
		return 1;
	}
	/* A share of one GPU: one choice per distinct (free milli, free HBM). */
	const struct node_state *s = &c->st[n];
	int64_t hbm = cluster_job_hbm(c, n, j);
	int k = 0;
	for (int g = 0; g < c->spec[n].ngpu; g++) {
		if (s->gpu_free[g] < j->gpu_milli || s->hbm_free[g] < hbm)
			continue;
		bool seen = false;
		for (int h = 0; h < g && !seen; h++)
			seen = s->gpu_free[h] == s->gpu_free[g] && s->hbm_free[h] == s->hbm_free[g];
		if (seen)
			continue;
		if (k < max)
			fill(c, n, j, 1u << g, hbm, &out[k]);
		k++;
	}
	return k;
}

int cluster_first_choice(const struct cluster *c, size_t n, const struct job *j,
			 struct placement *out)
{
	assert(n < c->n);
	if (!fits_node(c, n, j))
		return 0;
	const struct node_state *s = &c->st[n];
	const struct node *sp = &c->spec[n];
	if (j->num_gpu <= 0) {
		fill(c, n, j, 0, 0, out);
		return 1;
	}
	assert(j->gpu_milli >= 1 && j->gpu_milli <= 1000);
	if (s->cap[DIM_GPU] - s->used[DIM_GPU] < (int64_t)j->num_gpu * j->gpu_milli)
		return 0;
	int64_t hbm = cluster_job_hbm(c, n, j);
	/* Whole GPUs or a share: the lowest-numbered GPUs that fit (for a share, the first
	 * fitting GPU is the first distinct choice: an equal one before it would fit too). */
	uint32_t gpus = 0;
	int got = 0;
	for (int g = 0; g < sp->ngpu && got < j->num_gpu; g++)
		if (s->gpu_free[g] >= j->gpu_milli && s->hbm_free[g] >= hbm) {
			gpus |= 1u << g;
			got++;
		}
	if (got < j->num_gpu)
		return 0;
	fill(c, n, j, gpus, hbm, out);
	return 1;
}

void cluster_place(struct cluster *c, const struct placement *p, int32_t jobidx)
{
	assert(p->node >= 0 && (size_t)p->node < c->n);
	struct node_state *s = &c->st[p->node];
	for (int d = 0; d < DIM_N; d++) {
		s->used[d] += p->dem[d];
		assert(!(DIMS_HARD & DIM_BIT(d)) || s->used[d] <= s->cap[d]);
	}
	for (int g = 0; g < CLUSTER_MAX_GPUS; g++) {
		if (!(p->gpus & (1u << g)))
			continue;
		assert(g < c->spec[p->node].ngpu);
		s->gpu_free[g] -= p->milli;
		s->hbm_free[g] -= p->hbm;
		assert(s->gpu_free[g] >= 0 && s->hbm_free[g] >= 0);
	}
	c->free_gpu_milli -= p->dem[DIM_GPU];
	if (s->njobs == s->jobcap) {
		s->jobcap = s->jobcap ? 2 * s->jobcap : 4;
		s->jobs = xrealloc(s->jobs, (size_t)s->jobcap * sizeof *s->jobs);
	}
	s->jobs[s->njobs++] = jobidx;
	tree_update(c, (size_t)p->node);
}

void cluster_remove(struct cluster *c, const struct placement *p, int32_t jobidx)
{
	assert(p->node >= 0 && (size_t)p->node < c->n);
	struct node_state *s = &c->st[p->node];
	int32_t i = 0;
	while (i < s->njobs && s->jobs[i] != jobidx)
		i++;
	assert(i < s->njobs && "job not on this node");
	/* Keep the order of the others: observers list a node's jobs in placement order. */
	memmove(&s->jobs[i], &s->jobs[i + 1], (size_t)(s->njobs - i - 1) * sizeof *s->jobs);
	s->njobs--;
	for (int d = 0; d < DIM_N; d++) {
		s->used[d] -= p->dem[d];
		assert(s->used[d] >= 0);
	}
	int64_t hbm_max = gpu_hbm(&c->spec[p->node]);
	(void)hbm_max; /* for the assert */
	for (int g = 0; g < CLUSTER_MAX_GPUS; g++) {
		if (!(p->gpus & (1u << g)))
			continue;
		s->gpu_free[g] += p->milli;
		s->hbm_free[g] += p->hbm;
		assert(s->gpu_free[g] <= 1000 && s->hbm_free[g] <= hbm_max);
	}
	c->free_gpu_milli += p->dem[DIM_GPU];
	tree_update(c, (size_t)p->node);
}

void cluster_set_down(struct cluster *c, size_t n, int down)
{
	const struct node *sp = &c->spec[n];
	struct node_state *st = &c->st[n];
	assert(n < c->n && !st->njobs && "a node goes down empty: its jobs are killed first");
	for (int d = 0; d < DIM_N; d++)
		st->cap[d] = down ? 0 : sp->cap[d];
	for (int g = 0; g < sp->ngpu; g++) {
		st->gpu_free[g] = down ? 0 : 1000;
		st->hbm_free[g] = down ? 0 : gpu_hbm(sp);
	}
	c->free_gpu_milli += down ? -sp->cap[DIM_GPU] : sp->cap[DIM_GPU];
	tree_update(c, n);
}

void cluster_set_cap(struct cluster *c, size_t n, enum dim d, int64_t cap)
{
	assert(n < c->n && d < DIM_N && cap >= 0);
	assert(!(DIMS_HARD & DIM_BIT(d)) || cap >= c->st[n].used[d]);
	assert(d != DIM_GPU && d != DIM_HBM && "per-GPU dims cannot change capacity");
	c->st[n].cap[d] = cap;
	tree_update(c, n);
}
