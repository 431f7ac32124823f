/*
 * k8s.c — policies as kube-scheduler score plugins (k8s.h). The formulas follow the FGD
 * artifact's plugins (the pkg/simulator/plugin score files of kubernetes-scheduler-simulator)
 * and their integer arithmetic: Go's int64() truncates, and its integer division too.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frag.h"
#include "k8s.h"
#include "rng.h"
#include "util.h"

void k8s_spec_of(const struct cluster *c, struct k8s_spec *out)
{
	out->cpu = out->gpu = 0;
	for (size_t n = 0; n < c->n; n++) {
		if (c->spec[n].cap[DIM_CPU] > out->cpu)
			out->cpu = c->spec[n].cap[DIM_CPU];
		if (c->spec[n].cap[DIM_GPU] > out->gpu)
			out->gpu = c->spec[n].cap[DIM_GPU];
	}
	if (out->cpu <= 0)
		out->cpu = 1;
	if (out->gpu <= 0)
		out->gpu = 1000;
}

void k8s_plugin_of(const struct policy_ops *ops, struct k8s_plugin *out)
{
	static const struct {
		const char *name;
		enum k8s_kind kind;
		int normalize;
		enum k8s_gpusel gpusel;
		int by_state;
	} native[] = {
		{"fgd", K8S_FGD, 0, K8S_GPU_SCORE, 1},
		{"dotprod", K8S_DOTPROD, 0, K8S_GPU_BEST, 1},
		{"packing", K8S_PACKING, 0, K8S_GPU_BEST, 1},
		{"clustering", K8S_CLUSTERING, 0, K8S_GPU_BEST, 0},
		{"best-fit", K8S_BEST_FIT, 1, K8S_GPU_BEST, 1},
		{"random", K8S_RANDOM, 0, K8S_GPU_RANDOM, 0},
	};
	memset(out, 0, sizeof *out);
	out->ops = ops;
	out->weight = 1;
	out->kind = K8S_DERIVED;
	out->normalize = 1;
	out->gpusel = K8S_GPU_SCORE;
	out->by_state = (ops->flags & POLICY_F_BY_STATE) != 0;
	for (size_t i = 0; i < sizeof native / sizeof native[0]; i++)
		if (!strcmp(ops->name, native[i].name)) {
			out->kind = native[i].kind;
			out->normalize = native[i].normalize;
			out->gpusel = native[i].gpusel;
			out->by_state = native[i].by_state;
		}
}

int64_t k8s_fgd_of(double dfrag)
{
	/* the artifact: int64(sigmoid((before - after) / 1000) * MaxNodeScore) */
	double x = -dfrag / 1000.0;
	return (int64_t)(1.0 / (1.0 + exp(-x)) * (double)K8S_MAX_SCORE);
}

int64_t k8s_derived_of(double s)
{
	double v = -s * 1e6;
	const double lim = 4611686018427387904.0; /* 2^62 */
	if (!(v < lim))
		return (int64_t)lim;
	if (!(v > -lim))
		return -(int64_t)lim;
	return llround(v);
}

/* GPU-milli free on node n now. */
static int64_t gpu_left(const struct cluster *c, size_t n)
{
	const struct node_state *s = &c->st[n];
	return s->cap[DIM_GPU] - s->used[DIM_GPU];
}

static int64_t cpu_left(const struct cluster *c, size_t n)
{
	const struct node_state *s = &c->st[n];
	return s->cap[DIM_CPU] - s->used[DIM_CPU];
}

static int64_t cpu_dem(const struct job *j)
{
	return j->dem[DIM_CPU] > 0 ? j->dem[DIM_CPU] : 0;
}

static int64_t gpu_dem(const struct job *j)
{
	return j->num_gpu > 0 ? (int64_t)j->num_gpu * j->gpu_milli : 0;
}

static int64_t dotprod(const struct k8s_spec *sp, const struct cluster *c, size_t n,
		       const struct job *j)
{
	double cs = (double)sp->cpu, gs = (double)sp->gpu;
	double dot = ((double)cpu_left(c, n) / cs) * ((double)cpu_dem(j) / cs) +
		     ((double)gpu_left(c, n) / gs) * ((double)gpu_dem(j) / gs);
	return (int64_t)((double)K8S_MAX_SCORE * (1.0 - dot / 2.0));
}

static int64_t best_fit(const struct k8s_spec *sp, const struct cluster *c, size_t n,
			const struct job *j)
{
	double sc = (double)(cpu_left(c, n) - cpu_dem(j)) / (double)sp->cpu * 0.5 +
		    (double)(gpu_left(c, n) - gpu_dem(j)) / (double)sp->gpu * 0.5;
	return (int64_t)((1.0 - sc) * (double)K8S_MAX_SCORE);
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

static int64_t packing(const struct cluster *c, size_t n, const struct job *j)
{
	if (gpu_dem(j) <= 0)
		return 0;
	const struct node_state *s = &c->st[n];
	int ngpu = c->spec[n].ngpu, idle = 0;
	for (int g = 0; g < ngpu; g++)
		idle += s->gpu_free[g] == 1000;
	if (idle == ngpu) /* case 3: an idle node */
		return max64(K8S_MAX_SCORE / 3 - idle, idle);
	/* the GPUs it takes: least free first (stable), those with room */
	int order[CLUSTER_MAX_GPUS], want = j->num_gpu, take = 0, idle_taken = 0;
	int64_t pct = 0;
	for (int g = 0; g < ngpu; g++) {
		int at = g;
		while (at > 0 && s->gpu_free[order[at - 1]] > s->gpu_free[g]) {
			order[at] = order[at - 1];
			at--;
		}
		order[at] = g;
	}
	for (int i = 0; i < ngpu && take < want; i++) {
		int g = order[i];
		if (s->gpu_free[g] < j->gpu_milli)
			continue;
		take++;
		idle_taken += s->gpu_free[g] == 1000;
		pct += (int64_t)s->gpu_free[g] * 100 / 1000;
	}
	if (take < want)
		return 0;
	if (idle_taken > 0) /* case 2 */
		return max64(K8S_MAX_SCORE / 2 - idle_taken, K8S_MAX_SCORE / 3);
	return max64(K8S_MAX_SCORE - pct / 10, K8S_MAX_SCORE / 2); /* case 1 */
}

/* A GPU job's affinity tag: -1 a share of one GPU, k for k whole GPUs; 0 CPU-only. */
static int tag_of(const struct job *j)
{
	if (j->num_gpu <= 0)
		return 0;
	return j->gpu_milli < 1000 ? -1 : j->num_gpu;
}

static int64_t clustering(const struct policy_ctx *ctx, const struct k8s_spec *sp, size_t n,
			  const struct job *j)
{
	int tag = tag_of(j);
	if (!tag)
		return 0;
	const struct cluster *c = ctx->c;
	const struct node_state *s = &c->st[n];
	int tags[CLUSTER_MAX_GPUS + 1], ntags = 0, mine = 0;
	if (ctx->job_of) {
		for (int32_t i = 0; i < s->njobs; i++) {
			int t = tag_of(ctx->job_of(ctx->job_of_u, s->jobs[i]));
			if (!t)
				continue;
			mine |= t == tag;
			int k = 0;
			while (k < ntags && tags[k] != t)
				k++;
			if (k == ntags && ntags < CLUSTER_MAX_GPUS + 1)
				tags[ntags++] = t;
		}
	} else { /* from the GPU state: partly used GPUs hold shares, full ones whole GPUs */
		int share = 0, whole = 0;
		for (int g = 0; g < c->spec[n].ngpu; g++) {
			share |= s->gpu_free[g] > 0 && s->gpu_free[g] < 1000;
			whole |= s->gpu_free[g] == 0;
		}
		ntags = share + whole;
		mine = tag < 0 ? share : whole;
	}
	int64_t fill = K8S_MAX_SCORE / 4 * (sp->gpu - gpu_left(c, n)) / sp->gpu;
	if (mine)
		return fill + (ntags == 1 ? K8S_MAX_SCORE * 3 / 4 : K8S_MAX_SCORE * 2 / 4);
	return fill + (ntags == 0 ? K8S_MAX_SCORE / 4 : 0);
}

/* The choice with the least free milli on its GPU, the first of equal ones. */
static int best_gpu(const struct cluster *c, size_t n, const struct placement *ch, int k)
{
	int best = 0;
	for (int i = 1; i < k; i++) {
		int32_t a = 0, b = 0;
		for (int g = 0; g < CLUSTER_MAX_GPUS; g++) {
			if (ch[i].gpus >> g & 1) {
				a = c->st[n].gpu_free[g];
				break;
			}
		}
		for (int g = 0; g < CLUSTER_MAX_GPUS; g++) {
			if (ch[best].gpus >> g & 1) {
				b = c->st[n].gpu_free[g];
				break;
			}
		}
		if (a < b)
			best = i;
	}
	return best;
}

int64_t k8s_node_score(const struct k8s_plugin *pl, const struct policy_ctx *ctx,
		       const struct k8s_spec *spec, const struct job *j, size_t n,
		       const struct placement *ch, int k, int *pick)
{
	const struct cluster *c = ctx->c;
	*pick = 0;
	if (pl->kind == K8S_FGD || pl->kind == K8S_DERIVED) {
		int64_t best = 0;
		for (int i = 0; i < k; i++) {
			double s = pl->ops->score(ctx, j, &ch[i]);
			int64_t v = pl->kind == K8S_FGD ? k8s_fgd_of(s) : k8s_derived_of(s);
			if (!i || v > best) {
				best = v;
				*pick = i;
			}
		}
		return best;
	}
	if (pl->gpusel == K8S_GPU_BEST)
		*pick = best_gpu(c, n, ch, k);
	switch (pl->kind) {
	case K8S_DOTPROD:
		return dotprod(spec, c, n, j);
	case K8S_PACKING:
		return packing(c, n, j);
	case K8S_CLUSTERING:
		return clustering(ctx, spec, n, j);
	case K8S_BEST_FIT:
		return best_fit(spec, c, n, j);
	default:
		return 0;
	}
}

void k8s_normalize(int64_t *v, size_t n)
{
	if (!n)
		return;
	int64_t hi = v[0], lo = v[0];
	for (size_t i = 1; i < n; i++) {
		hi = v[i] > hi ? v[i] : hi;
		lo = v[i] < lo ? v[i] : lo;
	}
	/* (s - lo) * 100 / (hi - lo) as the artifact computes it, without its int64 overflow
	 * for derived scores: in long double */
	for (size_t i = 0; i < n; i++) {
		if (hi == lo)
			v[i] = 0;
		else
			v[i] = (int64_t)floorl((long double)(v[i] - lo) * K8S_MAX_SCORE /
					       (long double)(hi - lo));
	}
}

int k8s_gpu_weight(const struct cluster *c, size_t n, const struct placement *p)
{
	const struct node_state *s = &c->st[n];
	int first = -1, w = 0;
	for (int g = 0; g < c->spec[n].ngpu && first < 0; g++)
		if (p->gpus >> g & 1)
			first = g;
	if (first < 0)
		return 1;
	for (int g = 0; g < c->spec[n].ngpu; g++)
		w += s->gpu_free[g] == s->gpu_free[first] && s->hbm_free[g] == s->hbm_free[first];
	return w;
}

int k8s_weights_parse(const char *s, struct k8s_plugin *pl, size_t max, size_t *n, const char **bad)
{
	*n = 0;
	const char *w = s;
	while (*w) {
		const char *end = strchr(w, ',');
		size_t len = end ? (size_t)(end - w) : strlen(w);
		const char *eq = memchr(w, '=', len);
		char name[64];
		*bad = w;
		if (!eq || (size_t)(eq - w) >= sizeof name || eq == w || *n >= max)
			return -1;
		memcpy(name, w, (size_t)(eq - w));
		name[eq - w] = 0;
		const struct policy_ops *ops = policy_find(name);
		char num[24];
		size_t nl = len - (size_t)(eq - w) - 1;
		if (!ops || !nl || nl >= sizeof num)
			return -1;
		memcpy(num, eq + 1, nl);
		num[nl] = 0;
		char *e;
		long long v = strtoll(num, &e, 10);
		if (*e || v < 1 || v > 1000000)
			return -1;
		for (size_t i = 0; i < *n; i++)
			if (pl[i].ops == ops)
				return -1;
		k8s_plugin_of(ops, &pl[*n]);
		pl[(*n)++].weight = v;
		w = end ? end + 1 : w + len;
		if (end && !*w)
			return -1;
	}
	return *n ? 0 : -1;
}

void k8s_shuffle_ranks(int32_t *rank, size_t n, uint64_t seed)
{
	/* the artifact's syncClusterResourceList: rand.Perm over the nodes in name order, each
	 * renamed "%04d-" + its name, so name order becomes the permutation's (Fisher-Yates) */
	struct rng r;
	int32_t *perm = xmalloc((n ? n : 1) * sizeof *perm);
	rng_seed(&r, seed);
	for (size_t i = 0; i < n; i++)
		perm[i] = (int32_t)i;
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)rng_below(&r, i);
		int32_t t = perm[i - 1];
		perm[i - 1] = perm[j];
		perm[j] = t;
	}
	for (size_t i = 0; i < n; i++)
		rank[i] = perm[rank[i]];
	free(perm);
}
