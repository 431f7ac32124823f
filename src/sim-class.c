/*
 * sim-class.c — classes of identical nodes for the simulator's placement search
 * (sim-class.h).
 *
 * Invariants: node_cls[n] is the live class whose key equals node n's spec class and state;
 * a live class's count is its number of member nodes (> 0) and its heap holds every member
 * (plus stale or duplicate entries, dropped lazily: an entry is stale when its node's class
 * is no longer this one). Dead records are off the hash table and the live list.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim-class.h"
#include "util.h"

static_assert((SIM_SEEN & (SIM_SEEN - 1)) == 0, "SIM_SEEN is a power of two");

struct sim_class {
	uint32_t gen; /* bumped each time the record is (re)used for a new class */
	uint64_t hash;
	int32_t spec;    /* spec class */
	int32_t count;   /* member nodes */
	int32_t livepos; /* position in the live list */
	int32_t *heap;   /* min-heap of member node indices (lazy) */
	size_t nheap, heapcap;
	int64_t cap[DIM_N], used[DIM_N];
	int32_t gpu_free[CLUSTER_MAX_GPUS];
	int64_t hbm_free[CLUSTER_MAX_GPUS];
};

/* A class's best score for one shape, with the class's lowest node when it was scored. */
struct kent {
	double score; /* the class's best score (level 2), or a lower bound of it */
	int32_t rep;
	int32_t id;
	uint32_t gen;
	int32_t level; /* 0: bound, 2: the score */
};

struct sim_kidx {
	struct sim_key key;
	struct kent *h; /* min-heap on (score, rep); entries of dead classes dropped lazily */
	size_t n, cap;
	size_t logpos; /* log entries before this one are in h */
	int stale;     /* the log was trimmed past logpos: rebuild h */
	uint64_t used; /* tick of the last query */
	/* Every live class that may fit and has no entry in h has a bound above cut: left out
	 * at the last fill (kidx_fill_cut) or catch-up. INFINITY: none left out. */
	double cut;
};

static void log_class(struct sim_classes *k, int32_t id);
static void kidx_release(struct sim_kidx *x);

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdULL;
}

static uint64_t node_hash(const struct sim_classes *k, size_t n)
{
	const struct node_state *s = &k->c->st[n];
	uint64_t h = mix(0, (uint64_t)k->spec_cls[n]);
	for (int d = 0; d < DIM_N; d++)
		h = mix(mix(h, (uint64_t)s->cap[d]), (uint64_t)s->used[d]);
	for (int g = 0; g < k->c->spec[n].ngpu; g++)
		h = mix(mix(h, (uint64_t)s->gpu_free[g]), (uint64_t)s->hbm_free[g]);
	return h;
}

static int same(const struct sim_classes *k, const struct sim_class *x, size_t n)
{
	const struct node_state *s = &k->c->st[n];
	int ng = k->c->spec[n].ngpu;
	return x->spec == k->spec_cls[n] && !memcmp(x->cap, s->cap, sizeof x->cap) &&
	       !memcmp(x->used, s->used, sizeof x->used) &&
	       !memcmp(x->gpu_free, s->gpu_free, (size_t)ng * sizeof *s->gpu_free) &&
	       !memcmp(x->hbm_free, s->hbm_free, (size_t)ng * sizeof *s->hbm_free);
}

static void heap_push(struct sim_class *x, int32_t v)
{
	xgrow(&x->heap, &x->heapcap, x->nheap + 1, sizeof *x->heap);
	size_t i = x->nheap++;
	while (i > 0 && x->heap[(i - 1) / 2] > v) {
		x->heap[i] = x->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	x->heap[i] = v;
}

static void heap_pop(struct sim_class *x)
{
	int32_t last = x->heap[--x->nheap];
	size_t i = 0, n = x->nheap;
	for (;;) {
		size_t l = 2 * i + 1, m = l;
		if (l >= n)
			break;
		if (l + 1 < n && x->heap[l + 1] < x->heap[l])
			m = l + 1;
		if (x->heap[m] >= last)
			break;
		x->heap[i] = x->heap[m];
		i = m;
	}
	if (n)
		x->heap[i] = last;
}

static void tab_grow(struct sim_classes *k)
{
	size_t cap = k->tabcap ? k->tabcap * 2 : 64;
	while (cap < 4 * (k->nlive + 1))
		cap *= 2;
	free(k->tab);
	k->tab = xmalloc(cap * sizeof *k->tab);
	for (size_t i = 0; i < cap; i++)
		k->tab[i] = -1;
	k->tabcap = cap;
	k->tabused = 0;
	for (size_t i = 0; i < k->nlive; i++) {
		int32_t id = k->live[i];
		size_t p = k->cls[id].hash & (cap - 1);
		while (k->tab[p] != -1)
			p = (p + 1) & (cap - 1);
		k->tab[p] = id;
		k->tabused++;
	}
}

/* The live class of node n's state, created if none. */
static int32_t find_or_add(struct sim_classes *k, size_t n)
{
	uint64_t h = node_hash(k, n);
	if (2 * (k->tabused + 1) > k->tabcap)
		tab_grow(k);
	size_t mask = k->tabcap - 1, p = h & mask;
	ptrdiff_t slot = -1;
	for (; k->tab[p] != -1; p = (p + 1) & mask) {
		int32_t id = k->tab[p];
		if (id == -2) {
			if (slot < 0)
				slot = (ptrdiff_t)p;
			continue;
		}
		if (k->cls[id].hash == h && same(k, &k->cls[id], n))
			return id;
	}
	if (slot < 0) {
		slot = (ptrdiff_t)p;
		k->tabused++;
	}
	int32_t id;
	if (k->nfree)
		id = k->freeids[--k->nfree];
	else {
		xgrow(&k->cls, &k->clscap, k->ncls + 1, sizeof *k->cls);
		id = (int32_t)k->ncls++;
		memset(&k->cls[id], 0, sizeof k->cls[id]);
	}
	struct sim_class *x = &k->cls[id];
	const struct node_state *s = &k->c->st[n];
	x->hash = h;
	x->spec = k->spec_cls[n];
	x->count = 0;
	x->nheap = 0;
	x->gen++;
	memcpy(x->cap, s->cap, sizeof x->cap);
	memcpy(x->used, s->used, sizeof x->used);
	memcpy(x->gpu_free, s->gpu_free, sizeof x->gpu_free);
	memcpy(x->hbm_free, s->hbm_free, sizeof x->hbm_free);
	size_t lc = k->livecap;
	xgrow(&k->live, &k->livecap, k->nlive + 1, sizeof *k->live);
	if (k->livecap > lc) { /* the arrays by live position grow with it, and only then */
		lc = k->livecap;
		k->lrep = xrealloc(k->lrep, lc * sizeof *k->lrep);
		k->lfree = xrealloc(k->lfree, lc * sizeof *k->lfree);
		if (k->prep)
			k->lrec = xrealloc(k->lrec, lc * k->recsize);
	}
	x->livepos = (int32_t)k->nlive;
	xgrow(&k->hot, &k->hotcap, k->ncls, sizeof *k->hot);
	k->hot[id].gen = x->gen;
	k->hot[id].livepos = x->livepos;
	k->lrep[k->nlive] = INT32_MAX;
	k->lfree[k->nlive][0] = s->cap[DIM_CPU] - s->used[DIM_CPU];
	k->lfree[k->nlive][1] = s->cap[DIM_MEM] - s->used[DIM_MEM];
	k->lfree[k->nlive][2] = s->cap[DIM_GPU] - s->used[DIM_GPU];
	if (k->prep)
		memcpy(k->lrec + k->nlive * k->recsize, k->prep + n * k->recsize, k->recsize);
	k->live[k->nlive++] = id;
	k->tab[slot] = id;
	log_class(k, id);
	return id;
}

static void log_class(struct sim_classes *k, int32_t id)
{
	xgrow(&k->log, &k->logcap, k->nlog + 1, sizeof *k->log);
	k->log[k->nlog].id = id;
	k->log[k->nlog].gen = k->cls[id].gen;
	k->nlog++;
}

static void drop_class(struct sim_classes *k, int32_t id)
{
	struct sim_class *x = &k->cls[id];
	size_t mask = k->tabcap - 1, p = x->hash & mask;
	while (k->tab[p] != id)
		p = (p + 1) & mask;
	k->tab[p] = -2;
	int32_t moved = k->live[--k->nlive];
	k->live[x->livepos] = moved;
	k->lrep[x->livepos] = k->lrep[k->nlive];
	memcpy(k->lfree[x->livepos], k->lfree[k->nlive], sizeof k->lfree[0]);
	if (k->prep)
		memcpy(k->lrec + (size_t)x->livepos * k->recsize, k->lrec + k->nlive * k->recsize,
		       k->recsize);
	k->cls[moved].livepos = x->livepos;
	k->hot[moved].livepos = x->livepos;
	k->hot[id].livepos = -1;
	xgrow(&k->freeids, &k->freecap, k->nfree + 1, sizeof *k->freeids);
	k->freeids[k->nfree++] = id;
}

static void join(struct sim_classes *k, size_t n)
{
	int32_t id = find_or_add(k, n);
	struct sim_class *x = &k->cls[id];
	k->node_cls[n] = id;
	x->count++;
	/* Rebuild a heap that is mostly stale entries, so memory stays bounded. */
	if (x->nheap > 2 * (size_t)x->count + 16) {
		size_t w = 0;
		k->gen++;
		for (size_t i = 0; i < x->nheap; i++) {
			int32_t v = x->heap[i];
			if (k->node_cls[v] == id && k->mark[v] != k->gen) {
				k->mark[v] = k->gen;
				x->heap[w++] = v;
			}
		}
		int32_t *tmp = x->heap;
		size_t cnt = w;
		x->heap = NULL;
		x->nheap = x->heapcap = 0;
		for (size_t i = 0; i < cnt; i++)
			heap_push(x, tmp[i]);
		free(tmp);
	}
	heap_push(x, (int32_t)n);
	if ((int32_t)n < k->lrep[x->livepos]) {
		/* A lower tie-break: the indexes must see this class again (unless new). */
		if (k->lrep[x->livepos] != INT32_MAX)
			log_class(k, id);
		k->lrep[x->livepos] = (int32_t)n;
	}
}

void sim_classes_init(struct sim_classes *k, const struct cluster *c, size_t maxkeys,
		      const void *prep, size_t recsize)
{
	size_t nn = c->n ? c->n : 1;
	memset(k, 0, sizeof *k);
	k->c = c;
	k->prep = prep;
	k->recsize = prep ? recsize : 0;
	assert(!prep || recsize > 0);
	k->maxkeys = maxkeys ? maxkeys : 1;
	k->node_cls = xmalloc(nn * sizeof *k->node_cls);
	k->spec_cls = xmalloc(nn * sizeof *k->spec_cls);
	k->mark = xcalloc(nn, sizeof *k->mark);
	for (size_t n = 0; n < c->n; n++) {
		const struct node *a = &c->spec[n];
		int32_t sc = (int32_t)n;
		/* Spec class: the first node with the same spec (few distinct specs in practice).
		 */
		for (size_t m = 0; m < n; m++) {
			const struct node *b = &c->spec[m];
			if (k->spec_cls[m] == (int32_t)m && a->ngpu == b->ngpu &&
			    a->model == b->model && !memcmp(a->cap, b->cap, sizeof a->cap)) {
				sc = (int32_t)m;
				break;
			}
		}
		k->spec_cls[n] = sc;
	}
	for (size_t n = 0; n < c->n; n++)
		join(k, n);
}

void sim_classes_release(struct sim_classes *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->ncls; i++)
		free(k->cls[i].heap);
	for (size_t i = 0; i < k->nkeys; i++)
		kidx_release(&k->keys[i]);
	if (k->scan)
		kidx_release(k->scan);
	FREE_ALL(k->cls, k->node_cls, k->spec_cls, k->freeids, k->live, k->lrep, k->lfree, k->lrec,
		 k->tab, k->mark, k->log, k->hot, k->fit, k->fitval, k->keys, k->khash, k->scan,
		 k->seen);
	memset(k, 0, sizeof *k);
}

/* Take node n's record (k->prep) as its class's: every member's record is the same, but a
 * record may be filled after its node joined (sim_pol_setup's records without fill). */
static void take_rec(struct sim_classes *k, size_t n)
{
	if (k->prep) {
		size_t pos = (size_t)k->cls[k->node_cls[n]].livepos;
		memcpy(k->lrec + pos * k->recsize, k->prep + n * k->recsize, k->recsize);
	}
}

void sim_classes_update(struct sim_classes *k, size_t n)
{
	int32_t old = k->node_cls[n];
	struct sim_class *x = &k->cls[old];
	if (same(k, x, n)) {
		take_rec(k, n);
		return;
	}
	k->node_cls[n] = -1;
	if (--x->count == 0)
		drop_class(k, old);
	else if (k->lrep[x->livepos] == (int32_t)n) {
		while (k->node_cls[x->heap[0]] != old)
			heap_pop(x);
		k->lrep[x->livepos] = x->heap[0];
	}
	join(k, n);
	take_rec(k, n);
}

size_t sim_classes_count(const struct sim_classes *k)
{
	return k->nlive;
}

void sim_key_make(struct sim_key *key, const struct job *j, uint32_t mask)
{
	memset(key, 0, sizeof *key);
	mask |= DIMS_HARD;
	uint64_t h = 0;
	for (int d = 0; d < DIM_N; d++) {
		key->dem[d] = (mask & DIM_BIT(d)) ? j->dem[d] : -2;
		h = mix(h, (uint64_t)key->dem[d]);
	}
	key->num_gpu = j->num_gpu;
	key->gpu_milli = j->gpu_milli;
	key->gpu_spec = j->gpu_spec;
	key->cls = j->cls;
	h = mix(mix(h, (uint64_t)key->num_gpu), (uint64_t)key->gpu_milli);
	key->hash = mix(mix(h, key->gpu_spec), key->cls);
}

static int key_eq(const struct sim_key *a, const struct sim_key *b)
{
	return a->hash == b->hash && a->num_gpu == b->num_gpu && a->gpu_milli == b->gpu_milli &&
	       a->gpu_spec == b->gpu_spec && a->cls == b->cls &&
	       !memcmp(a->dem, b->dem, sizeof a->dem);
}

/* ---- per-shape indexes ---- */

static int kent_before(const struct kent *a, const struct kent *b)
{
	return a->score < b->score || (a->score == b->score && a->rep < b->rep);
}

static void kent_sift_down(struct sim_kidx *x, size_t i)
{
	struct kent e = x->h[i];
	for (;;) {
		size_t l = 2 * i + 1, m = l;
		if (l >= x->n)
			break;
		if (l + 1 < x->n && kent_before(&x->h[l + 1], &x->h[l]))
			m = l + 1;
		if (!kent_before(&x->h[m], &e))
			break;
		x->h[i] = x->h[m];
		i = m;
	}
	x->h[i] = e;
}

static void kent_push(struct sim_kidx *x, const struct kent *e)
{
	xgrow(&x->h, &x->cap, x->n + 1, sizeof *x->h);
	size_t i = x->n++;
	while (i > 0 && kent_before(e, &x->h[(i - 1) / 2])) {
		x->h[i] = x->h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	x->h[i] = *e;
}

static void kent_pop(struct sim_kidx *x)
{
	x->h[0] = x->h[--x->n];
	if (x->n)
		kent_sift_down(x, 0);
}

static void kidx_release(struct sim_kidx *x)
{
	free(x->h);
	memset(x, 0, sizeof *x);
}

static int class_live(const struct sim_classes *k, int32_t id, uint32_t gen)
{
	return k->hot[id].gen == gen && k->hot[id].livepos >= 0;
}

static int may_fit(const struct sim_classes *k, size_t pos, const int64_t need[3])
{
	const int64_t *fr = k->lfree[pos];
	return fr[0] >= need[0] && fr[1] >= need[1] && fr[2] >= need[2];
}

/* How a search values classes: ev scores a node; bd bounds a node, or bds the classes'
 * records, many at once (one of them, or neither: classes are scored). */
struct how {
	sim_class_eval ev, bd;
	sim_class_bounds bds;
	sim_class_bounds keys; /* with bds: lower bounds of its bounds, cheaper (or NULL) */
	void *u;
};

static int bounded(const struct how *h)
{
	return h->bd || h->bds;
}

/* The bound of the class at live position pos: 1 and *sc, or 0 if it surely does not fit. */
static int bound_pos(struct sim_classes *k, const struct how *h, size_t pos, double *sc)
{
	if (h->bds) {
		int32_t p = (int32_t)pos;
		h->bds(h->u, k->lrec, &p, 1, sc);
		return 1;
	}
	return h->bd(h->u, k->lrep[pos], sc);
}

/* Push live class id's entry to x if it may fit: its bound when bounded (scored when it
 * comes to the top), else its score. */
static void kidx_eval(struct sim_classes *k, struct sim_kidx *x, int32_t id, const int64_t need[3],
		      const struct how *h)
{
	size_t pos = (size_t)k->hot[id].livepos;
	double sc;
	if (!may_fit(k, pos, need))
		return;
	if (bounded(h)) {
		if (!bound_pos(k, h, pos, &sc) || sc > x->cut)
			return; /* it cannot beat the class the cut was made at */
	} else if (!h->ev(h->u, k->lrep[pos], &sc)) {
		return; /* the class's state never changes: it will never fit */
	}
	struct kent e = {sc, k->lrep[pos], id, k->hot[id].gen, bounded(h) ? 0 : 2};
	kent_push(x, &e);
}

/* The live positions whose classes may fit need, in k->fit; returns their number. Without
 * a branch per class: whether one fits is a coin toss the CPU would mispredict. */
static size_t fit_list(struct sim_classes *k, const int64_t need[3])
{
	xgrow(&k->fit, &k->fitcap, k->nlive ? k->nlive : 1, sizeof *k->fit);
	size_t m = 0;
	for (size_t i = 0; i < k->nlive; i++) {
		const int64_t *fr = k->lfree[i];
		k->fit[m] = (int32_t)i;
		m += (size_t)((fr[0] >= need[0]) & (fr[1] >= need[1]) & (fr[2] >= need[2]));
	}
	return m;
}

/*
 * With keys (struct how), keep in k->fit only the m positions there that can beat the
 * class with the least key that fits: that class is scored (or, if it does not
 * fit, the next, up to 4 tries) and a class whose key is above its score has a bound above
 * it. Returns the new count; *cut is that score (INFINITY: none scored, none dropped) and
 * *at its live position. A class scored that does not fit is dropped: its state never
 * changes, so it never will.
 */
static size_t keys_cut(struct sim_classes *k, size_t m, const struct how *h, double *cut,
		       int32_t *at)
{
	double *key = k->fitval;
	*cut = INFINITY;
	*at = -1;
	h->keys(h->u, k->lrec, k->fit, m, key);
	for (int tries = 0; tries < 4 && *at < 0; tries++) {
		/* the first least key (any class that fits makes a sound cut): no branch, as
		 * which class has it is a coin toss */
		size_t b = m;
		double least = INFINITY;
		for (size_t f = 0; f < m; f++) {
			int less = key[f] < least;
			least = less ? key[f] : least;
			b = less ? f : b;
		}
		if (b == m)
			break;
		if (h->ev(h->u, k->lrep[k->fit[b]], cut))
			*at = k->fit[b];
		else
			key[b] = INFINITY; /* dropped below, once a class is scored */
	}
	if (*at < 0) {
		*cut = INFINITY;
		return m;
	}
	size_t w = 0;
	for (size_t f = 0; f < m; f++) {
		k->fit[w] = k->fit[f];
		w += key[f] <= *cut;
	}
	return w;
}

/* Set x's entries, in no order, to every live class that may fit, valued by its bound
 * (level 0) when bounded, else by its score (level 2). With records, the bounds are taken
 * in one call, in live order, so the records are read in the order they lie; with keys,
 * only the classes keys_cut keeps are bounded (the one it scored goes in exact), and the
 * return is its cut: every class that may fit and is left out has a bound above it.
 * INFINITY: none left out. */
static double kidx_values(struct sim_classes *k, struct sim_kidx *x, const int64_t need[3],
			  const struct how *h)
{
	size_t m = fit_list(k, need);
	xgrow(&x->h, &x->cap, m ? m : 1, sizeof *x->h);
	x->n = 0;
	if (h->bds) {
		double cut = INFINITY;
		int32_t at = -1;
		xgrow(&k->fitval, &k->fitvalcap, m ? m : 1, sizeof *k->fitval);
		if (h->keys && m > 1)
			m = keys_cut(k, m, h, &cut, &at);
		h->bds(h->u, k->lrec, k->fit, m, k->fitval);
		for (size_t f = 0; f < m; f++) {
			size_t i = (size_t)k->fit[f];
			int32_t id = k->live[i];
			int exact = (int32_t)i == at;
			x->h[x->n++] = (struct kent){exact ? cut : k->fitval[f], k->lrep[i], id,
						     k->hot[id].gen, exact ? 2 : 0};
		}
		return cut;
	}
	for (size_t f = 0; f < m; f++) {
		double sc;
		size_t i = (size_t)k->fit[f];
		if (!(h->bd ? h->bd : h->ev)(h->u, k->lrep[i], &sc))
			continue;
		int32_t id = k->live[i];
		x->h[x->n++] = (struct kent){sc, k->lrep[i], id, k->hot[id].gen, h->bd ? 0 : 2};
	}
	return INFINITY;
}

static void kidx_heapify(struct sim_kidx *x)
{
	for (size_t i = x->n / 2; i-- > 0;)
		kent_sift_down(x, i);
}

/* Fill x from every live class that may fit, then heapify once: cheaper than a push per
 * class. */
static void kidx_fill(struct sim_classes *k, struct sim_kidx *x, const int64_t need[3],
		      const struct how *h)
{
	kidx_values(k, x, need, h);
	kidx_heapify(x);
	x->cut = INFINITY;
}

/*
 * Fill x with the bounds of every live class that may fit, like kidx_fill, but keep only
 * the classes that can still win: the class with the least (bound, node) is scored first,
 * and a class whose bound is above that score cannot beat it (x->cut). Most classes go
 * there, so far fewer are heapified. The scored class goes in exact (level 2).
 */
static void kidx_fill_cut(struct sim_classes *k, struct sim_kidx *x, const int64_t need[3],
			  const struct how *h)
{
	assert(bounded(h));
	x->cut = kidx_values(k, x, need, h); /* the keys' cut, if any */
	for (int tries = 0; tries < 4 && x->n; tries++) {
		size_t m = 0;
		for (size_t i = 1; i < x->n; i++)
			if (kent_before(&x->h[i], &x->h[m]))
				m = i;
		struct kent best = x->h[m];
		x->h[m] = x->h[--x->n];
		if (best.level < 2 && !h->ev(h->u, best.rep, &best.score))
			continue; /* it does not fit: try the next least */
		best.level = 2;
		size_t w = 0;
		for (size_t i = 0; i < x->n; i++)
			if (x->h[i].score <= best.score)
				x->h[w++] = x->h[i];
		x->n = w;
		x->h[x->n++] = best;
		x->cut = best.score < x->cut ? best.score : x->cut;
		break;
	}
	kidx_heapify(x);
}

/*
 * The top of x: the live class with the lowest (score, lowest node). A bound entry that
 * comes to the top gets its score and is pushed back (or dropped if the class does not
 * fit): an exact entry on top is then no worse than any bound below it, hence than any
 * class in x. Returns -1 when a class left out of x (x->cut) may beat it now (the classes
 * the cut was made by are gone): x is then to be filled again.
 */
static int kidx_top(struct sim_classes *k, struct sim_kidx *x, const struct how *h, int32_t *node,
		    double *score)
{
	/* An entry re-valued on top is put back by sifting it down from the top: one pass,
	 * where a pop and a push take two. (Any new value keeps the root's heap order above;
	 * a bound or score only grows, so it moves down.) */
	while (x->n) {
		struct kent *e = &x->h[0];
		if (!class_live(k, e->id, e->gen)) {
			kent_pop(x);
			continue;
		}
		int32_t cur = k->lrep[k->hot[e->id].livepos];
		if (cur != e->rep) {
			/* The class's lowest node moved. Up: same score, later tie-break, so it
			 * goes back. Down: the log had it scored again with the new node already.
			 */
			if (cur > e->rep) {
				e->rep = cur;
				kent_sift_down(x, 0);
			} else {
				kent_pop(x);
			}
			continue;
		}
		if (e->level < 2) {
			double sc;
			/* the next top is a child of this one: have its node's state fetched
			 * while this one is scored (scoring starts with a miss there) */
			for (size_t c = 1; c <= 2 && c < x->n; c++)
				for (size_t b = 0; b < sizeof *k->c->st; b += 128)
					__builtin_prefetch((const char *)&k->c->st[x->h[c].rep] +
							   b);
			if (h->ev(h->u, e->rep, &sc)) {
				e->score = sc;
				e->level = 2;
				kent_sift_down(x, 0);
			} else {
				kent_pop(x);
			}
			continue;
		}
		if (e->score > x->cut)
			return -1;
		*node = e->rep;
		*score = e->score;
		return 1;
	}
	return x->cut < INFINITY ? -1 : 0;
}

/*
 * Keep one entry per live class in x, then heapify. A class has several when the log had it
 * again (its lowest node went down): they hold the same value, since every member scores
 * alike, so the one kept takes the class's lowest node now; an exact entry is kept before a
 * bound. Each live class has its own lowest node, so marking that node marks the class.
 * (Dropping only the dead entries left so many repeated ones that a long replay compacted
 * at nearly every query.)
 */
static void kidx_compact(struct sim_classes *k, struct sim_kidx *x)
{
	k->gen++;
	size_t w = 0;
	for (int level = 2; level >= 0; level -= 2)
		for (size_t i = w; i < x->n; i++) {
			struct kent e = x->h[i];
			if (e.level != level || !class_live(k, e.id, e.gen))
				continue;
			int32_t cur = k->lrep[k->hot[e.id].livepos];
			if (k->mark[cur] == k->gen)
				continue;
			k->mark[cur] = k->gen;
			e.rep = cur;
			x->h[i] = x->h[w];
			x->h[w++] = e;
		}
	x->n = w;
	kidx_heapify(x);
}

/* An index catches up with at most so many log entries per live class; past that it is
 * rebuilt from the live classes. Most entries of a long gap are of classes dead since, which
 * cost a look each, against a bound for each class that may fit in a rebuild. */
#define CATCHUP_PER_CLASS 4

/* Keep the log short: an index that has more than CATCHUP_PER_CLASS entries per live class
 * to catch up on is rebuilt instead, so older entries serve no one (their indexes go
 * stale). */
static void log_trim(struct sim_classes *k)
{
	size_t keep = CATCHUP_PER_CLASS * k->nlive + 1;
	if (k->nlog < 2 * keep + 1024)
		return;
	size_t lo = k->nlog - keep;
	memmove(k->log, k->log + lo, keep * sizeof *k->log);
	k->nlog = keep;
	for (size_t i = 0; i < k->nkeys; i++) {
		struct sim_kidx *x = &k->keys[i];
		x->stale |= x->logpos < lo;
		x->logpos = x->logpos < lo ? 0 : x->logpos - lo;
	}
}

static int best(struct sim_classes *k, const struct sim_key *key, const int64_t need[3],
		const struct how *h, int32_t *node, double *score)
{
	struct sim_kidx *x = NULL;
	k->queries++;
	for (size_t i = 0; i < k->nkeys && !x; i++)
		if (k->khash[i] == key->hash && key_eq(&k->keys[i].key, key))
			x = &k->keys[i];
	if (x)
		k->reuses++;
	void (*fill)(struct sim_classes *, struct sim_kidx *, const int64_t *, const struct how *) =
		bounded(h) ? kidx_fill_cut : kidx_fill;
	if (!k->seen)
		k->seen = xcalloc(SIM_SEEN, sizeof *k->seen);
	uint32_t *seen = &k->seen[key->hash & (SIM_SEEN - 1)],
		 tag = (uint32_t)(key->hash >> 32) | 1;
	int first = !x && *seen != tag;
	*seen = tag;
	if (!x && (first || (k->queries > 4096 && k->reuses * 20 < k->queries))) {
		/* A shape not seen before, or shapes hardly repeat: score every class, or with
		 * bounds, the classes in bound order until the best is known. */
		if (bounded(h)) {
			if (!k->scan)
				k->scan = xcalloc(1, sizeof *k->scan);
			kidx_fill_cut(k, k->scan, need, h);
			int found = kidx_top(k, k->scan, h, node, score);
			assert(found >= 0); /* nothing changed since the cut */
			return found;
		}
		int found = 0;
		for (size_t i = 0; i < k->nlive; i++) {
			double sc;
			int32_t rep = k->lrep[i];
			if (!may_fit(k, i, need) || !h->ev(h->u, rep, &sc))
				continue;
			if (!found || sc < *score || (sc == *score && rep < *node)) {
				*score = sc;
				*node = rep;
				found = 1;
			}
		}
		return found;
	}
	if (!x) {
		if (!k->keys) {
			k->keys = xcalloc(k->maxkeys, sizeof *k->keys);
			k->khash = xcalloc(k->maxkeys, sizeof *k->khash);
		}
		/* a new one while there are slots and room, else the least recently used */
		if (!k->nkeys ||
		    (k->nkeys < k->maxkeys && (k->nkeys + 1) * (k->nlive + 1) <= SIM_KEY_ENTRIES))
			x = &k->keys[k->nkeys++];
		else {
			x = &k->keys[0];
			for (size_t i = 1; i < k->nkeys; i++)
				if (k->keys[i].used < x->used)
					x = &k->keys[i];
			kidx_release(x);
		}
		x->key = *key;
		k->khash[x - k->keys] = key->hash;
		x->logpos = k->nlog;
		x->stale = 0;
		fill(k, x, need, h);
	} else if (x->stale || k->nlog - x->logpos > CATCHUP_PER_CLASS * k->nlive) {
		/* Far more changes than classes since it was last asked: rebuilding is cheaper. */
		x->logpos = k->nlog;
		x->stale = 0;
		fill(k, x, need, h);
	} else {
		for (size_t p = x->logpos; p < k->nlog; p++)
			if (class_live(k, k->log[p].id, k->log[p].gen))
				kidx_eval(k, x, k->log[p].id, need, h);
		x->logpos = k->nlog;
	}
	x->used = ++k->tick;
	if (x->n > 2 * k->nlive + 64) /* mostly dead or repeated classes */
		kidx_compact(k, x);
	log_trim(k);
	int found = kidx_top(k, x, h, node, score);
	if (found < 0) { /* a class left out may win now: every class again */
		x->logpos = k->nlog;
		x->stale = 0;
		fill(k, x, need, h);
		found = kidx_top(k, x, h, node, score);
		assert(found >= 0); /* the class the cut is made at is in x, exact */
	}
	return found;
}

int sim_classes_best(struct sim_classes *k, const struct sim_key *key, const int64_t need[3],
		     sim_class_eval ev, sim_class_eval bd, sim_class_bounds bds,
		     sim_class_bounds keys, void *u, int32_t *node, double *score)
{
	int recs = bds && k->prep;
	struct how h = {ev, recs ? NULL : bd, recs ? bds : NULL, recs ? keys : NULL, u};
	return best(k, key, need, &h, node, score);
}
