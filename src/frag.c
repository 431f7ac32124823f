/*
 * frag.c — GPU fragmentation as the FGD paper measures it (Weng et al., ATC 2023) and its
 * multi-dimensional extension (frag.h, DESIGN.md section 7).
 *
 * The target workload. A shape is (num_gpu, gpu_milli, cpu, gpu_spec), as the FGD simulator
 * keys its "typical pods": memory and the bandwidth dims vary almost per job in real traces
 * and would split one request type into hundreds of one-job shapes. A shape's other demands
 * (mem, hbm, net, sto, iocpu) are the rounded mean of its jobs' known values (-1 if none is
 * known; hbm also -1 unless every job of the shape records it, so the GPU model's share
 * applies as in cluster_job_hbm). Shapes are kept most popular first (ties: smaller
 * num_gpu, gpu_milli, cpu, gpu_spec first) until they cover `coverage` of the jobs;
 * p_m = count_m / (jobs in kept shapes).
 *
 * F_n(m) for node n and shape m, in GPU-milli:
 *   - m fits on n (hard dims: cpu and mem free, allowed GPU model, num_gpu GPUs each with
 *     gpu_milli and the per-GPU HBM free): the free milli of the GPUs that cannot host one
 *     of m's GPUs (free milli < gpu_milli or free HBM < m's per-GPU HBM);
 *   - otherwise, and for CPU-only shapes (they use no GPU, as the FGD paper's x-axis
 *     cases): all of n's free GPU milli.
 * F_n = sum_m p_m F_n(m).
 *
 * Allowed-model-only (w->allowed_only): a GPU shape that does not allow n's GPU model (or n
 * has no GPU) has no term on n, in F_n, in the all-free share and in the multi-dimensional
 * measure. The paper's F_n counts all of n's free GPU for it: a term that a placement
 * changes only in proportion to the GPU-milli placed, so it adds the same bias to every
 * placement on n (p of such shapes x milli placed), large against the state-dependent
 * terms: it steers jobs by GPU model rather than by the shape they leave. (A shape with
 * more GPUs than n has still counts: that term steers small jobs to small nodes and keeps
 * big ones whole, which pays; voidfit.7.)
 *
 * The multi-dimensional measure over a dim mask: m "fits" as above and also on the shared
 * dims of the mask (free >= demand). Stranded S_d(m) is, for gpu and hbm, the free amount
 * on GPUs that cannot host one of m's GPUs (all of it if m does not fit); for the other
 * dims 0 if m fits, else all the free amount. md_n = sum_{d in mask, cap_d > 0}
 * price_share_d * (sum_m p_m S_d(m)) / cap_d, in [0, sum of the mask's price shares].
 *
 * Speed (the policies call this for every candidate placement): shapes share few per-GPU
 * needs (milli, HBM), so one evaluation counts the node's GPUs once per distinct need
 * (w->need, built with the workload), then makes one O(1) pass over the shapes; nothing is
 * allocated. frag_node_after copies the node's free state on the stack and applies the
 * placement, so the cluster is never touched.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "frag.h"
#include "util.h"

/* Documented in frag.h; GPU dominant, from the list prices of a cloud 8-GPU node (GPUs about
 * four fifths of the price, cpu and mem most of the rest), bandwidth small but nonzero so
 * stranded I/O still counts. */
const double frag_default_price_share[DIM_N] = {
	[DIM_CPU] = 0.10, [DIM_MEM] = 0.07, [DIM_GPU] = 0.70,   [DIM_HBM] = 0.05,
	[DIM_NET] = 0.03, [DIM_STO] = 0.03, [DIM_IOCPU] = 0.02,
};

/* A node's free state, as frag sees it (a copy, so a placement can be applied to it). */
struct fstate {
	const struct node *spec;
	int64_t cap[DIM_N];
	int64_t used[DIM_N];
	int32_t gfree[CLUSTER_MAX_GPUS];
	int64_t hfree[CLUSTER_MAX_GPUS];
	int ngpu;
};

static void fstate_load(struct fstate *f, const struct cluster *c, size_t n)
{
	const struct node_state *s = &c->st[n];
	f->spec = &c->spec[n];
	f->ngpu = f->spec->ngpu;
	memcpy(f->cap, s->cap, sizeof f->cap);
	memcpy(f->used, s->used, sizeof f->used);
	memcpy(f->gfree, s->gpu_free, (size_t)f->ngpu * sizeof *f->gfree);
	memcpy(f->hfree, s->hbm_free, (size_t)f->ngpu * sizeof *f->hfree);
}

static void fstate_apply(struct fstate *f, const struct placement *p)
{
	for (int d = 0; d < DIM_N; d++)
		f->used[d] += p->dem[d];
	for (int g = 0; g < f->ngpu; g++)
		if (p->gpus & (1u << g)) {
			f->gfree[g] -= p->milli;
			f->hfree[g] -= p->hbm;
		}
}

#define NEED_MAX 64 /* needs counted once per node; shapes past it are counted alone */

/* GPUs of f meeting a per-GPU need (milli, HBM), and the free milli / HBM of the others. */
struct count {
	int ok;
	int64_t gsmall, hsmall;
};

static void count_need(const struct fstate *f, int32_t milli, int64_t hbm, struct count *c)
{
	c->ok = 0;
	c->gsmall = c->hsmall = 0;
	for (int g = 0; g < f->ngpu; g++) {
		if (f->gfree[g] >= milli && f->hfree[g] >= hbm) {
			c->ok++;
		} else {
			c->gsmall += f->gfree[g];
			c->hsmall += f->hfree[g];
		}
	}
}

/* Per-GPU HBM a need takes on f's node (as cluster_job_hbm). */
static int64_t need_hbm(const struct fstate *f, int32_t milli, int64_t hbm)
{
	if (hbm >= 0)
		return hbm;
	const struct node *sp = f->spec;
	return (sp->ngpu > 0 ? sp->cap[DIM_HBM] / sp->ngpu : 0) * milli / 1000;
}

/*
 * Count the n needs on f into cnt. When every need takes its model's share of HBM and every
 * GPU has at least its free milli's share of HBM free (always so unless jobs state their own
 * HBM), meeting the milli implies meeting the HBM: then the GPUs sorted by free milli answer
 * all needs (sorted by milli, as frag_workload_build leaves them) in one merge. Otherwise
 * each need scans the GPUs.
 */
static void count_needs(const struct fstate *f, const struct frag_need *need, size_t n,
			struct count *cnt)
{
	const struct node *sp = f->spec;
	int64_t ghbm = sp->ngpu > 0 ? sp->cap[DIM_HBM] / sp->ngpu : 0;
	int prop = 1;
	for (size_t t = 0; t < n && prop; t++)
		prop = need[t].hbm < 0;
	int32_t v[CLUSTER_MAX_GPUS];
	int64_t h[CLUSTER_MAX_GPUS];
	for (int g = 0; g < f->ngpu && prop; g++) {
		int32_t gf = f->gfree[g];
		int64_t hf = f->hfree[g];
		prop = 1000 * hf >= ghbm * gf;
		int k = g;
		for (; k > 0 && v[k - 1] > gf; k--) {
			v[k] = v[k - 1];
			h[k] = h[k - 1];
		}
		v[k] = gf;
		h[k] = hf;
	}
	if (!prop) {
		for (size_t t = 0; t < n; t++)
			count_need(f, need[t].milli, need_hbm(f, need[t].milli, need[t].hbm),
				   &cnt[t]);
		return;
	}
	int k = 0;
	int64_t pg = 0, ph = 0;
	for (size_t t = 0; t < n; t++) {
		if (t > 0 && need[t].milli < need[t - 1].milli)
			k = 0, pg = ph = 0; /* not sorted: start over (never from the builder) */
		while (k < f->ngpu && v[k] < need[t].milli) {
			pg += v[k];
			ph += h[k];
			k++;
		}
		cnt[t].ok = f->ngpu - k;
		cnt[t].gsmall = pg;
		cnt[t].hsmall = ph;
	}
}

/*
 * Evaluate the workload on f: returns F_n; if mask is not 0, *md receives the
 * multi-dimensional measure over mask. For the dims other than gpu and hbm a shape strands
 * all or nothing, so they only need the summed popularity of the shapes that do not fit.
 */
static double fstate_eval(const struct fstate *f, const struct frag_workload *w, uint32_t mask,
			  double *md, double *nofit, double *fnofit, uint64_t fits[2])
{
	uint64_t fm = 0, hm = 0;
	int64_t gtot = 0, htot = 0;
	for (int g = 0; g < f->ngpu; g++) {
		gtot += f->gfree[g];
		htot += f->hfree[g];
	}
	const struct node *sp = f->spec;
	size_t nneed = w->need ? (w->nneed < NEED_MAX ? w->nneed : NEED_MAX) : 0;
	struct count cnt[NEED_MAX];
	count_needs(f, w->need, nneed, cnt);
	uint32_t shared = mask & DIMS_SHARED;
	/* "dem > 0 && used + dem > cap" is "dem > lim" with lim = max(cap - used, 0); a shared
	 * dim outside the mask never fails (lim = INT64_MAX) */
	int64_t lim[DIM_N];
	for (int d = 0; d < DIM_N; d++) {
		lim[d] = f->cap[d] > f->used[d] ? f->cap[d] - f->used[d] : 0;
		if ((DIMS_SHARED & DIM_BIT(d)) && !(shared & DIM_BIT(d)))
			lim[d] = INT64_MAX;
	}
	double F = 0, sg = 0, sh = 0, pn = 0, pf = 0;
	for (size_t i = 0; i < w->n; i++) {
		const struct frag_shape *m = &w->shapes[i];
		int fit = !((m->dem[DIM_CPU] > lim[DIM_CPU]) | (m->dem[DIM_MEM] > lim[DIM_MEM]));
		int64_t gsmall = gtot, hsmall = htot;
		if (m->num_gpu > 0) {
			int other = m->gpu_spec &&
				    (sp->model < 0 || !(m->gpu_spec & (1u << sp->model)));
			if (other && w->allowed_only)
				continue;
			if (other || m->num_gpu > f->ngpu)
				fit = 0;
			if (fit) {
				struct count one;
				const struct count *c = &one;
				if (m->need >= 0 && (size_t)m->need < nneed)
					c = &cnt[m->need];
				else
					count_need(f, m->gpu_milli,
						   need_hbm(f, m->gpu_milli,
							    m->dem[DIM_HBM] >= 0
								    ? m->dem[DIM_HBM] / m->num_gpu
								    : -1),
						   &one);
				if (c->ok >= m->num_gpu) {
					gsmall = c->gsmall;
					hsmall = c->hsmall;
				} else {
					fit = 0;
				}
			}
		}
		F += m->p * (double)gsmall;
		if (!fit || m->num_gpu <= 0)
			pf += m->p;
		if (fit && i < 64)
			hm |= (uint64_t)1 << i;
		if (!mask)
			continue;
		if (fit)
			fit = !((m->dem[DIM_NET] > lim[DIM_NET]) |
				(m->dem[DIM_STO] > lim[DIM_STO]) |
				(m->dem[DIM_IOCPU] > lim[DIM_IOCPU]));
		if (fit) {
			if (i < 64)
				fm |= (uint64_t)1 << i;
			sg += m->p * (double)gsmall;
			sh += m->p * (double)hsmall;
		} else {
			pn += m->p;
		}
	}
	if (mask) {
		double sum = 0;
		for (int d = 0; d < DIM_N; d++) {
			if (!(mask & DIM_BIT(d)) || f->cap[d] <= 0)
				continue;
			double s;
			if (d == DIM_GPU)
				s = sg + pn * (double)gtot;
			else if (d == DIM_HBM)
				s = sh + pn * (double)htot;
			else
				s = f->cap[d] > f->used[d] ? pn * (double)(f->cap[d] - f->used[d])
							   : 0;
			sum += w->price_share[d] * s / (double)f->cap[d];
		}
		*md = sum;
		if (nofit)
			*nofit = pn;
	}
	if (fnofit)
		*fnofit = pf;
	if (fits) {
		fits[0] = hm;
		fits[1] = fm;
	}
	return F;
}

double frag_node(const struct cluster *c, size_t n, const struct frag_workload *w)
{
	assert(n < c->n);
	struct fstate f;
	fstate_load(&f, c, n);
	return fstate_eval(&f, w, 0, NULL, NULL, NULL, NULL);
}

double frag_node_after(const struct cluster *c, const struct placement *p, const struct job *j,
		       const struct frag_workload *w)
{
	(void)j; /* p carries everything the job takes */
	assert(p->node >= 0 && (size_t)p->node < c->n);
	struct fstate f;
	fstate_load(&f, c, (size_t)p->node);
	fstate_apply(&f, p);
	return fstate_eval(&f, w, 0, NULL, NULL, NULL, NULL);
}

double frag_node_md(const struct cluster *c, size_t n, const struct frag_workload *w, uint32_t mask)
{
	assert(n < c->n);
	if (!(mask & DIMS_ALL))
		return 0;
	struct fstate f;
	double md = 0;
	fstate_load(&f, c, n);
	fstate_eval(&f, w, mask & DIMS_ALL, &md, NULL, NULL, NULL);
	return md;
}

double frag_node_both(const struct cluster *c, size_t n, const struct frag_workload *w,
		      uint32_t mask, double *md, double *nofit)
{
	return frag_node_eval(c, n, w, mask, md, nofit, NULL, NULL);
}

double frag_node_eval(const struct cluster *c, size_t n, const struct frag_workload *w,
		      uint32_t mask, double *md, double *nofit, double *fnofit, uint64_t fits[2])
{
	assert(n < c->n);
	struct fstate f;
	*md = 0;
	if (nofit)
		*nofit = 0;
	if (fits)
		fits[0] = fits[1] = 0;
	fstate_load(&f, c, n);
	mask &= DIMS_ALL;
	return fstate_eval(&f, w, mask, mask ? md : NULL, nofit, fnofit, fits);
}

double frag_share_small(int64_t ghbm, const struct frag_workload *w, int32_t milli, int64_t hbm)
{
	double p = 0;
	if (w->need_all && hbm >= 0) { /* the same sum, over the few distinct needs */
		for (size_t t = 0; t < w->nneed; t++) {
			const struct frag_need *nd = &w->need[t];
			/* need_hbm > hbm, without its division: floor(x / 1000) > h iff
			 * x >= 1000 (h + 1) */
			if (nd->milli > milli ||
			    (nd->hbm >= 0 ? nd->hbm > hbm : ghbm * nd->milli >= 1000 * (hbm + 1)))
				p += nd->p;
		}
		return p;
	}
	for (size_t i = 0; i < w->n; i++) {
		const struct frag_shape *m = &w->shapes[i];
		if (m->num_gpu <= 0)
			continue;
		int64_t mh = m->dem[DIM_HBM] >= 0 ? m->dem[DIM_HBM] / m->num_gpu
						  : ghbm * m->gpu_milli / 1000; /* need_hbm */
		if (m->gpu_milli > milli || mh > hbm)
			p += m->p;
	}
	return p;
}

double frag_share_cpu(const struct frag_workload *w)
{
	if (w->need_all)
		return w->p_cpu;
	double p = 0;
	for (size_t i = 0; i < w->n; i++)
		if (w->shapes[i].num_gpu <= 0)
			p += w->shapes[i].p;
	return p;
}

double frag_node_md_after(const struct cluster *c, const struct placement *p, const struct job *j,
			  const struct frag_workload *w, uint32_t mask, double *gpu_frag)
{
	(void)j;
	assert(p->node >= 0 && (size_t)p->node < c->n);
	struct fstate f;
	double md = 0, F;
	fstate_load(&f, c, (size_t)p->node);
	fstate_apply(&f, p);
	mask &= DIMS_ALL;
	if (mask) {
		F = fstate_eval(&f, w, mask, &md, NULL, NULL, NULL);
	} else {
		F = gpu_frag ? fstate_eval(&f, w, 0, NULL, NULL, NULL, NULL) : 0;
	}
	if (gpu_frag)
		*gpu_frag = F;
	return md;
}

/* ---- building the target workload ---- */

/* One job's shape key (job: scratch, the group id while the groups are sorted). */
struct keyed {
	int32_t num_gpu, milli;
	int64_t cpu;
	uint32_t spec;
	size_t job;
};

static int cmp_key(const struct keyed *a, const struct keyed *b)
{
	if (a->num_gpu != b->num_gpu)
		return a->num_gpu < b->num_gpu ? -1 : 1;
	if (a->milli != b->milli)
		return a->milli < b->milli ? -1 : 1;
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	if (a->spec != b->spec)
		return a->spec < b->spec ? -1 : 1;
	return 0;
}

/* A distinct key (shape) of the jobs: how many jobs have it, its rank in key order, and,
 * once kept, the sums of its jobs' known demands. */
struct group {
	struct keyed key;
	size_t count, rank;
	int32_t shape; /* index in w->shapes, or -1 when not kept */
};

static uint64_t key_hash(const struct keyed *k)
{
	uint64_t h = (uint64_t)(uint32_t)k->num_gpu * 0x9e3779b97f4a7c15u;
	h ^= (uint64_t)(uint32_t)k->milli + (h << 6) + (h >> 2);
	h ^= (uint64_t)k->cpu * 0xff51afd7ed558ccdu + (h << 6) + (h >> 2);
	h ^= (uint64_t)k->spec + (h << 6) + (h >> 2);
	h ^= h >> 29;
	return h * 0xc4ceb9fe1a85ec53u;
}

static int cmp_group_key(const void *pa, const void *pb)
{
	return cmp_key(&((const struct group *)pa)->key, &((const struct group *)pb)->key);
}

/* More jobs first, then the earlier group in key order. */
static int cmp_group(const void *pa, const void *pb)
{
	const struct group *a = pa, *b = pb;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return a->rank < b->rank ? -1 : a->rank > b->rank;
}

static void job_key(const struct job *j, struct keyed *k)
{
	int ng = j->num_gpu > 0 ? j->num_gpu : 0;
	k->num_gpu = ng;
	k->milli = ng ? j->gpu_milli : 0;
	k->cpu = j->dem[DIM_CPU] > 0 ? j->dem[DIM_CPU] : 0;
	k->spec = ng ? j->gpu_spec : 0;
	k->job = 0;
}

/*
 * The jobs are grouped by key through a hash table (no sort of the jobs: a trace has
 * millions of jobs and few distinct keys), then the groups are ranked in key order and
 * sorted by popularity. Demands are integers and their sums stay far below 2^53, so the
 * means do not depend on the order the jobs are summed in.
 */
int frag_workload_build(struct frag_workload *w, const struct job *jobs, size_t n, double coverage)
{
	memset(w, 0, sizeof *w);
	memcpy(w->price_share, frag_default_price_share, sizeof w->price_share);
	if (n == 0)
		return 0;
	if (!(coverage > 0) || coverage > 1)
		coverage = 1;
	uint32_t *gid = xmalloc(n * sizeof *gid);
	size_t ng = 0, gcap = 0, tcap = 1024;
	struct group *g = NULL;
	uint32_t *tab = xmalloc(tcap * sizeof *tab); /* group index + 1, 0 empty */
	memset(tab, 0, tcap * sizeof *tab);
	for (size_t i = 0; i < n; i++) {
		struct keyed k;
		job_key(&jobs[i], &k);
		size_t t = (size_t)key_hash(&k) & (tcap - 1);
		while (tab[t] && cmp_key(&g[tab[t] - 1].key, &k))
			t = (t + 1) & (tcap - 1);
		if (!tab[t]) {
			xgrow(&g, &gcap, ng + 1, sizeof *g);
			g[ng] = (struct group){.key = k, .count = 0, .shape = -1};
			tab[t] = (uint32_t)++ng;
			if (2 * ng > tcap) { /* rehash into twice the slots */
				tcap *= 2;
				free(tab);
				tab = xmalloc(tcap * sizeof *tab);
				memset(tab, 0, tcap * sizeof *tab);
				for (size_t q = 0; q < ng; q++) {
					size_t u = (size_t)key_hash(&g[q].key) & (tcap - 1);
					while (tab[u])
						u = (u + 1) & (tcap - 1);
					tab[u] = (uint32_t)(q + 1);
				}
			}
			gid[i] = (uint32_t)(ng - 1);
		} else {
			gid[i] = tab[t] - 1;
		}
		g[gid[i]].count++;
	}
	free(tab);
	/* rank in key order; gid must follow the groups as they move */
	for (size_t q = 0; q < ng; q++)
		g[q].key.job = q; /* the group's id while sorting */
	qsort(g, ng, sizeof *g, cmp_group_key);
	for (size_t q = 0; q < ng; q++)
		g[q].rank = q;
	qsort(g, ng, sizeof *g, cmp_group);
	size_t *pos = xmalloc(ng * sizeof *pos); /* group id -> index in g */
	for (size_t q = 0; q < ng; q++)
		pos[g[q].key.job] = q;
	size_t keep = 0, covered = 0;
	while (keep < ng && (double)covered < coverage * (double)n) {
		covered += g[keep].count;
		g[keep].shape = (int32_t)keep;
		keep++;
	}
	double(*sum)[DIM_N] = xcalloc(keep ? keep : 1, sizeof *sum);
	size_t(*known)[DIM_N] = xcalloc(keep ? keep : 1, sizeof *known);
	for (size_t i = 0; i < n; i++) {
		int32_t m = g[pos[gid[i]]].shape;
		if (m < 0)
			continue;
		for (int d = 0; d < DIM_N; d++) {
			int64_t v = jobs[i].dem[d];
			if (v >= 0) {
				sum[m][d] += (double)v;
				known[m][d]++;
			}
		}
	}
	w->shapes = xcalloc(keep ? keep : 1, sizeof *w->shapes);
	w->n = keep;
	for (size_t i = 0; i < keep; i++) {
		struct frag_shape *m = &w->shapes[i];
		const struct keyed *first = &g[i].key;
		m->num_gpu = first->num_gpu;
		m->gpu_milli = first->milli;
		m->gpu_spec = first->spec;
		m->p = (double)g[i].count / (double)covered;
		for (int d = 0; d < DIM_N; d++) {
			m->dem[d] =
				known[i][d] ? (int64_t)(sum[i][d] / (double)known[i][d] + 0.5) : -1;
			if (d == DIM_HBM && known[i][d] < g[i].count)
				m->dem[d] = -1;
		}
		m->dem[DIM_CPU] = first->cpu;
		m->dem[DIM_GPU] = (int64_t)m->num_gpu * m->gpu_milli;
		m->need = -1;
		if (m->num_gpu > 0) {
			struct frag_need nd = {
				m->gpu_milli,
				m->dem[DIM_HBM] >= 0 ? m->dem[DIM_HBM] / m->num_gpu : -1, 0};
			size_t t = 0;
			while (t < w->nneed &&
			       (w->need[t].milli != nd.milli || w->need[t].hbm != nd.hbm))
				t++;
			if (t == w->nneed && t < NEED_MAX) {
				w->need = xrealloc(w->need, (t + 1) * sizeof *w->need);
				w->need[w->nneed++] = nd;
			}
			if (t < w->nneed) {
				m->need = (int32_t)t;
				w->need[t].p += m->p;
			} else {
				w->need_all = -1; /* reset below */
			}
		} else {
			w->p_cpu += m->p;
		}
		if (i < 64 && m->gpu_milli == 1000)
			for (int k = 0; k < m->num_gpu && k <= CLUSTER_MAX_GPUS; k++)
				w->whole_over[k] |= (uint64_t)1 << i;
	}
	free(sum);
	free(known);
	free(pos);
	free(gid);
	w->need_all = w->need_all == 0;
	/* Needs by milli, then HBM (count_needs merges them with the GPUs in that order). */
	int32_t remap[NEED_MAX];
	size_t order[NEED_MAX];
	for (size_t t = 0; t < w->nneed; t++) {
		size_t q = t;
		for (; q > 0 && (w->need[order[q - 1]].milli > w->need[t].milli ||
				 (w->need[order[q - 1]].milli == w->need[t].milli &&
				  w->need[order[q - 1]].hbm > w->need[t].hbm));
		     q--)
			order[q] = order[q - 1];
		order[q] = t;
	}
	struct frag_need sorted[NEED_MAX];
	for (size_t t = 0; t < w->nneed; t++) {
		sorted[t] = w->need[order[t]];
		remap[order[t]] = (int32_t)t;
	}
	if (w->nneed)
		memcpy(w->need, sorted, w->nneed * sizeof *w->need);
	for (size_t i = 0; i < w->n; i++)
		if (w->shapes[i].need >= 0)
			w->shapes[i].need = remap[w->shapes[i].need];
	free(g);
	return 0;
}

void frag_workload_release(struct frag_workload *w)
{
	if (!w)
		return;
	FREE_ALL(w->shapes, w->need);
	w->shapes = NULL;
	w->need = NULL;
	w->n = w->nneed = 0;
}
