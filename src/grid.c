/*
 * grid.c — policies x seeds of one scenario, on a pool of threads (grid.h).
 *
 * Every (policy, seed) cell is a task of its own: one policy over many seeds uses every
 * thread as well as many policies at one seed do. The cells are handed out in the order
 * the runs are kept (seed by seed, policies in order within one), and the caller keeps
 * (and stores) them in that order, so the store sees what a single thread would give it.
 *
 * A seed's trace (its copy of the jobs, enriched, and its target workload) is prepared by
 * the thread that takes its first cell; the other cells of that seed wait for it. The last
 * seed's takes the caller's job set instead of a copy, once every other seed's is made. A
 * trace is released when its cells are run, or kept when runs are stored (storing reads
 * it); at most threads + 1 traces live at once. Threads take the next cell while fewer
 * than `ahead` runs wait to be kept: all of them when nothing is stored (a result is then a
 * few KB), else twice the threads (a stored run holds its series and per-job results).
 * Progress goes through one lock, as the sum of the runs' shares (the bar is drawn by one
 * thread at a time).
 *
 *   slot:  NONE --take()--> PREPARING --prepare_slot()--> READY --release_slot()--> GONE
 */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h"

static int stopped(const struct grid *g)
{
	return g->stop && *g->stop;
}

/* Keep run r in row, and in the store unless there is none (t: its trace, read only
 * then); releases r. */
static int keep_run(const struct grid *g, const struct replay_trace *t, struct grid_row *row,
		    struct replay_result *r, struct err *e)
{
	int rc = 0;
	runrec_from_result(r, &row->r);
	assert(r->nfaults == g->sc->nfaults);
	if (row->fault_jobs)
		memcpy(row->fault_jobs, r->fault_jobs, r->nfaults * sizeof *r->fault_jobs);
	if (g->st)
		rc = runrec_store(g->st, g->sc, t, r, &row->r.id, e);
	row->done = rc ? 0 : 1;
	replay_result_release(r);
	return rc;
}

enum slot_state { SLOT_NONE, SLOT_PREPARING, SLOT_READY, SLOT_GONE };

/* One seed's trace, shared by its cells. */
struct slot {
	uint64_t seed;
	enum slot_state state;
	size_t unrun, unkept; /* its cells not yet run, not yet kept */
	struct replay_trace t;
};

struct pool;

/* One run: a policy at a seed. */
struct cell {
	size_t slot; /* its seed's */
	const struct policy_ops *pol;
	struct grid_row *row;    /* where it is kept */
	struct replay_result *r; /* from its run to its keeping (12 KB: not one per cell) */
	struct err e;
	int rc, done; /* done: run, r or rc and e filled */
	double share; /* of it run so far, for progress */
	struct pool *pool;
};

struct pool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	const struct grid *g;
	struct job_set *base; /* copied for each seed; the last seed takes it */
	struct slot *slots;   /* seeds with cells (the first seed always), in seed order */
	size_t nslot;
	struct cell *cells; /* in keeping order */
	size_t ncell;
	size_t next, kept, ahead; /* cells handed out, kept; how many may wait to be kept */
	size_t prepared;          /* slots whose trace was made (the last takes base after) */
	size_t live, maxlive;     /* slots PREPARING or READY, and the most at once */
	int stop;                 /* a run failed, the caller stops, or no more cells: start none */
	double sum;               /* progress: the cells' shares */
	size_t nruns, before;     /* progress: the grid's runs, those read back (not cells) */
	struct enrich_summary enr; /* the first seed's */
};

/* Report progress of cell c (done of it run); mu held. */
static void note_progress(struct pool *pl, struct cell *c, double done)
{
	if (!pl->g->progress)
		return;
	pl->sum += done - c->share;
	c->share = done;
	double all = (double)pl->before + pl->sum;
	size_t whole = (size_t)all < pl->nruns ? (size_t)all : pl->nruns - 1;
	pl->g->progress(pl->g->u, whole, pl->nruns, c->pol->name, pl->slots[c->slot].seed,
			all - (double)whole);
}

static void cell_progress(void *u, double done)
{
	struct cell *c = u;
	pthread_mutex_lock(&c->pool->mu);
	note_progress(c->pool, c, done);
	pthread_mutex_unlock(&c->pool->mu);
}

/* Make slot s's trace; mu held (released while it works). The last slot takes base, after
 * every other slot has copied it. */
static void prepare_slot(struct pool *pl, size_t s)
{
	struct slot *sl = &pl->slots[s];
	int take = s + 1 == pl->nslot;
	while (take && pl->prepared + 1 < pl->nslot)
		pthread_cond_wait(&pl->cv, &pl->mu);
	pthread_mutex_unlock(&pl->mu);
	if (take)
		replay_prepare_take(&sl->t, pl->base, pl->g->sc, sl->seed);
	else
		replay_prepare(&sl->t, pl->base, pl->g->sc, sl->seed);
	pthread_mutex_lock(&pl->mu);
	if (!s)
		pl->enr = sl->t.enr;
	sl->state = SLOT_READY;
	pl->prepared++;
	pthread_cond_broadcast(&pl->cv);
}

/* Release slot s's trace if nothing needs it any more: its cells all run, and kept when
 * runs are stored (storing reads the trace); mu held (released while it frees). */
static void release_slot(struct pool *pl, size_t s)
{
	struct slot *sl = &pl->slots[s];
	if (sl->state != SLOT_READY || sl->unrun || (pl->g->st && sl->unkept))
		return;
	sl->state = SLOT_GONE;
	pthread_mutex_unlock(&pl->mu);
	replay_trace_release(&sl->t);
	pthread_mutex_lock(&pl->mu);
	pl->live--;
	pthread_cond_broadcast(&pl->cv);
}

/* Take the next cell, make its seed's trace if it is the first, run it. Returns 0, or -1
 * when no cell is left to take (or the grid stops: pl->stop set). mu held. */
static int work(struct pool *pl)
{
	struct cell *c = NULL;
	for (;;) {
		if (pl->stop || stopped(pl->g) || pl->next >= pl->ncell) {
			pl->stop = 1;
			pthread_cond_broadcast(&pl->cv);
			return -1;
		}
		c = &pl->cells[pl->next];
		if (pl->next < pl->kept + pl->ahead &&
		    (pl->slots[c->slot].state != SLOT_NONE || pl->live < pl->maxlive))
			break;
		pthread_cond_wait(&pl->cv, &pl->mu);
	}
	pl->next++;
	struct slot *sl = &pl->slots[c->slot];
	if (sl->state == SLOT_NONE) {
		sl->state = SLOT_PREPARING;
		pl->live++;
		prepare_slot(pl, c->slot);
	}
	while (sl->state != SLOT_READY)
		pthread_cond_wait(&pl->cv, &pl->mu);
	pthread_mutex_unlock(&pl->mu);
	struct replay_result *r = xmalloc(sizeof *r);
	int rc = replay_run(&sl->t, pl->g->sc, c->pol, pl->g->st != NULL,
			    pl->g->progress ? cell_progress : NULL, c, pl->g->stop, r, &c->e);
	if (rc) {
		free(r);
		r = NULL;
	}
	pthread_mutex_lock(&pl->mu);
	c->r = r;
	c->rc = rc;
	c->done = 1;
	pl->stop |= rc != 0;
	note_progress(pl, c, 1);
	sl->unrun--;
	pthread_cond_broadcast(&pl->cv);
	release_slot(pl, c->slot);
	return 0;
}

static void *pool_thread(void *arg)
{
	struct pool *pl = arg;
	pthread_mutex_lock(&pl->mu);
	while (!work(pl))
		;
	pthread_mutex_unlock(&pl->mu);
	return NULL;
}

/* Run pl's cells on up to nthreads threads (none of its own for one), keeping each in its
 * row in cell order. */
static int run_pool(struct pool *pl, unsigned nthreads, struct err *e)
{
	pthread_t *th = xcalloc(nthreads, sizeof *th);
	unsigned nth = 0;
	int rc = 0;
	pthread_mutex_init(&pl->mu, NULL);
	pthread_cond_init(&pl->cv, NULL);
	if (!pl->slots[0].unrun) { /* the first seed's runs are all read back: its enr */
		pthread_mutex_lock(&pl->mu);
		pl->slots[0].state = SLOT_PREPARING;
		pl->live++;
		prepare_slot(pl, 0);
		release_slot(pl, 0);
		pthread_mutex_unlock(&pl->mu);
	}
	for (; nthreads > 1 && nth < nthreads; nth++)
		if (pthread_create(&th[nth], NULL, pool_thread, pl))
			break;
	if (nthreads > 1 && !nth)
		rc = err_set(e, VF_EIO, "cannot start a thread");
	for (size_t i = 0; i < pl->ncell && !rc; i++) {
		struct cell *c = &pl->cells[i];
		pthread_mutex_lock(&pl->mu);
		if (!nth) /* one thread: this one runs the cell it keeps next */
			work(pl);
		while (!c->done && !(pl->stop && pl->next <= i))
			pthread_cond_wait(&pl->cv, &pl->mu);
		int done = c->done;
		pthread_mutex_unlock(&pl->mu);
		if (!done) { /* stopped before it started */
			rc = VF_ESTOP;
			break;
		}
		if (c->rc) {
			rc = c->rc;
			*e = c->e;
		} else {
			rc = keep_run(pl->g, &pl->slots[c->slot].t, c->row, c->r, e);
			free(c->r);
			c->r = NULL;
		}
		pthread_mutex_lock(&pl->mu);
		pl->kept = i + 1;
		pl->stop |= rc != 0;
		pl->slots[c->slot].unkept--;
		pthread_cond_broadcast(&pl->cv);
		release_slot(pl, c->slot);
		pthread_mutex_unlock(&pl->mu);
	}
	pthread_mutex_lock(&pl->mu);
	pl->stop = 1;
	pthread_cond_broadcast(&pl->cv);
	pthread_mutex_unlock(&pl->mu);
	for (unsigned i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	for (size_t i = 0; i < pl->ncell; i++) /* what a failure or a stop left unkept */
		if (pl->cells[i].r) {
			replay_result_release(pl->cells[i].r);
			free(pl->cells[i].r);
		}
	for (size_t s = 0; s < pl->nslot; s++)
		if (pl->slots[s].state == SLOT_READY)
			replay_trace_release(&pl->slots[s].t);
	pthread_cond_destroy(&pl->cv);
	pthread_mutex_destroy(&pl->mu);
	free(th);
	return rc;
}

/* --resume: read back the runs the store has of this scenario into the rows. */
static int read_back(const struct grid *g, struct grid_row *out, size_t nseed, struct err *e)
{
	struct sbuf key = SBUF_INIT;
	struct runrec_sel sel;
	int rc;
	int64_t id = 0;

	sbuf_init(&key);
	scenario_key(g->sc, &key);
	rc = runrec_find_scenario(g->st, g->sc->trace_id, key.s, &id, e);
	sbuf_release(&key);
	if (rc || !id)
		return rc;
	struct runrec_query q = {.scenario_id = id,
				 .mode = -1,
				 .pols = g->pols,
				 .npol = g->npol,
				 .seeds_given = 1,
				 .lo = g->lo,
				 .hi = g->hi};
	if ((rc = runrec_select(g->st, "the store", &q, &sel, e)))
		return rc;
	for (size_t i = 0; i < sel.n; i++)
		for (size_t p = 0; p < g->npol; p++)
			if (sel.runs[i].policy == g->pols[p]) {
				struct grid_row *r =
					&out[p * nseed + (size_t)(sel.runs[i].seed - g->lo)];
				r->r = sel.runs[i];
				r->done = 2;
				r->fault_jobs = NULL;
			}
	runrec_sel_release(&sel);
	return 0;
}

int grid_run(const struct grid *g, struct job_set *base, struct grid_row **rows,
	     struct enrich_summary *enr, struct err *e)
{
	size_t nseed = (size_t)(g->hi - g->lo) + 1, n = g->npol * nseed, nf = g->sc->nfaults;
	/* the rows, then each row's fault counts: one block the caller frees */
	struct grid_row *out = xcalloc(1, n * sizeof *out + n * nf * sizeof(int64_t));
	for (size_t i = 0; nf && i < n; i++)
		out[i].fault_jobs = (int64_t *)(void *)(out + n) + i * nf;
	int rc = 0;

	assert(g->lo <= g->hi && g->npol > 0 && g->nthreads > 0);
	*rows = out;
	memset(enr, 0, sizeof *enr);
	if (g->resume && g->st)
		rc = read_back(g, out, nseed, e);
	if (rc)
		return rc;
	if (stopped(g))
		return VF_ESTOP;
	struct pool pl = {.g = g, .base = base, .nruns = n};
	pl.slots = xcalloc(nseed, sizeof *pl.slots);
	pl.cells = xcalloc(n, sizeof *pl.cells);
	for (size_t k = 0; k < nseed; k++) {
		size_t first = pl.ncell;
		for (size_t p = 0; p < g->npol; p++)
			if (!out[p * nseed + k].done)
				pl.cells[pl.ncell++] = (struct cell){.slot = pl.nslot,
								     .pol = g->pols[p],
								     .row = &out[p * nseed + k],
								     .pool = &pl};
		size_t mine = pl.ncell - first;
		if (!mine && k > 0)
			continue; /* all read back (the first seed's trace is made for enr) */
		pl.slots[pl.nslot++] =
			(struct slot){.seed = g->lo + k, .unrun = mine, .unkept = mine};
	}
	unsigned nth = g->nthreads < pl.ncell ? g->nthreads : (unsigned)(pl.ncell ? pl.ncell : 1);
	pl.before = n - pl.ncell;
	pl.ahead = g->st ? 2 * (size_t)nth : pl.ncell;
	pl.maxlive = (size_t)nth + 1;
	rc = run_pool(&pl, nth, e);
	*enr = pl.enr;
	free(pl.slots);
	free(pl.cells);
	return rc;
}

/* ---- resamples ---- */

/* The progress of one (resample, seed) grid as a share of them all. */
struct sub_progress {
	const struct grid *g;
	size_t before, nruns; /* runs of the grids before this one, of them all */
};

static void sub_progress_fn(void *u, size_t run, size_t nruns, const char *policy, uint64_t seed,
			    double done)
{
	(void)nruns;
	const struct sub_progress *sp = u;
	sp->g->progress(sp->g->u, sp->before + run, sp->nruns, policy, seed, done);
}

int grid_run_resamples(const struct grid *g, const struct job_set *base, uint32_t nres,
		       int64_t block_s, struct grid_row **rows, struct enrich_summary *enr,
		       int64_t *block_s_used, struct err *e)
{
	int64_t t0, t1;
	int rc = resample_window(base, g->sc->win_start, g->sc->win_end, &t0, &t1, e);
	*rows = NULL;
	if (rc)
		return rc;
	if (!block_s)
		block_s = resample_block_default(t0, t1);
	*block_s_used = block_s;
	size_t nseed = (size_t)(g->hi - g->lo) + 1, nf = g->sc->nfaults;
	size_t n = g->npol * nres * nseed;
	struct grid_row *out = xcalloc(1, n * sizeof *out + n * nf * sizeof(int64_t));
	for (size_t i = 0; nf && i < n; i++)
		out[i].fault_jobs = (int64_t *)(void *)(out + n) + i * nf;
	*rows = out;
	for (uint32_t r = 1; r <= nres && !rc; r++) {
		/* a view of g->sc: it shares what sc owns and is never released */
		struct scenario rs = *g->sc;
		rs.resample = r;
		rs.block_s = block_s;
		rs.win_start = t0;
		rs.win_end = t1;
		for (uint64_t s = g->lo; !rc; s++) {
			struct job_set js = {0};
			struct grid_row *sub = NULL;
			struct enrich_summary tmp;
			size_t k = (size_t)(r - 1) * nseed + (size_t)(s - g->lo);
			struct sub_progress sp = {g, k * g->npol, n};
			struct grid gg = *g;
			gg.sc = &rs;
			gg.lo = gg.hi = s;
			if (g->progress) {
				gg.progress = sub_progress_fn;
				gg.u = &sp;
			}
			rc = resample_jobs(base, t0, t1, block_s, resample_seed(s, r), &js, e);
			if (!rc)
				rc = grid_run(&gg, &js, &sub, r == 1 && s == g->lo ? enr : &tmp, e);
			job_set_release(&js);
			for (size_t p = 0; sub && p < g->npol; p++) {
				struct grid_row *to = &out[p * nres * nseed + k];
				int64_t *fj = to->fault_jobs;
				*to = sub[p];
				to->fault_jobs = fj;
				if (nf && sub[p].fault_jobs)
					memcpy(fj, sub[p].fault_jobs, nf * sizeof *fj);
				to->r.resample = r;
			}
			free(sub);
			if (s == g->hi)
				break;
		}
	}
	return rc;
}
