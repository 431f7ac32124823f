/*
 * sim-queue.c — the simulator's waiting-queue part (sim-int.h): the waiting instances in
 * the order of the queue discipline, their fit shapes, and the schedule passes that try
 * them (sim.c's top comment, "The waiting queue" and "Decisions": fifo, backfill,
 * priority, preemption).
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim-int.h"
#include "util.h"

/* Order of trial: arrival (instance index), or class then arrival for SIM_PRIORITY. */
static int wait_before(const struct sim *s, int32_t a, int32_t b)
{
	if (s->o.queue == SIM_PRIORITY) {
		uint8_t ca = src_job(s, &s->inst.jobs[a])->cls,
			cb = src_job(s, &s->inst.jobs[b])->cls;
		if (ca != cb)
			return ca < cb;
	}
	return a < b;
}

/* A fit shape in the hash of shapes: what decides whether a job fits anywhere (its hard
 * dims and GPU shape), kept in the entry, so a lookup reads no job record (a cache miss
 * each, on a large run); id numbers the shapes in order of first appearance. */
struct fitkey {
	int64_t cpu, mem, hbm;
	int64_t io[3]; /* net, sto, iocpu demand on the dims under I/O admission, else 0 */
	int32_t num_gpu, gpu_milli;
	uint32_t gpu_spec;
	int32_t workers; /* W: a gang of W fits where one worker may */
	int32_t id;
};

/* Whether a job fits anywhere depends on its hard dims and GPU shape only. */
static uint64_t fit_hash(const struct fitkey *k)
{
	uint64_t h = rng_hash((uint64_t)k->num_gpu << 32 | (uint32_t)k->gpu_milli, k->gpu_spec,
			      (uint64_t)k->cpu);
	h = rng_hash(h, (uint64_t)k->io[0], rng_hash((uint64_t)k->io[1], (uint64_t)k->io[2], 0));
	if (k->workers > 1)
		h = rng_hash(h, (uint64_t)k->workers, 0);
	return rng_hash(h, (uint64_t)k->mem, (uint64_t)k->hbm);
}

static int same_fit(const struct fitkey *a, const struct fitkey *b)
{
	return a->num_gpu == b->num_gpu && a->gpu_milli == b->gpu_milli &&
	       a->gpu_spec == b->gpu_spec && a->cpu == b->cpu && a->mem == b->mem &&
	       a->hbm == b->hbm && a->workers == b->workers && !memcmp(a->io, b->io, sizeof a->io);
}

/* The id of job instance idx's fit shape (numbered in order of first appearance). */
static int32_t shape_of(struct sim *s, int32_t idx)
{
	if (s->wq.jshape[idx] >= 0)
		return s->wq.jshape[idx];
	const struct job *j = src_job(s, &s->inst.jobs[idx]);
	struct fitkey k = {j->dem[DIM_CPU], j->dem[DIM_MEM], j->dem[DIM_HBM], {0, 0, 0}, j->num_gpu,
			   j->gpu_milli,    j->gpu_spec,     job_workers(j),  -1};
	for (int d = DIM_NET; d < DIM_N; d++) /* under admission, these decide a fit too */
		k.io[d - DIM_NET] = (s->pol.admit & DIM_BIT(d)) ? j->dem[d] : 0;
	if (2 * (s->wq.nshapes + 1) > s->wq.stabcap) { /* grow and rehash */
		size_t cap = s->wq.stabcap ? 2 * s->wq.stabcap : 256;
		struct fitkey *t = xmalloc(cap * sizeof *t);
		for (size_t i = 0; i < cap; i++)
			t[i].id = -1;
		for (size_t i = 0; i < s->wq.stabcap; i++) {
			if (s->wq.stab[i].id < 0)
				continue;
			size_t p = fit_hash(&s->wq.stab[i]) & (cap - 1);
			while (t[p].id >= 0)
				p = (p + 1) & (cap - 1);
			t[p] = s->wq.stab[i];
		}
		free(s->wq.stab);
		s->wq.stab = t;
		s->wq.stabcap = cap;
	}
	size_t p = fit_hash(&k) & (s->wq.stabcap - 1);
	while (s->wq.stab[p].id >= 0 && !same_fit(&s->wq.stab[p], &k))
		p = (p + 1) & (s->wq.stabcap - 1);
	if (s->wq.stab[p].id < 0) {
		k.id = (int32_t)s->wq.nshapes++;
		s->wq.stab[p] = k;
		xgrow(&s->wq.sfail, &s->wq.sfailcap, s->wq.nshapes, sizeof *s->wq.sfail);
		s->wq.sfail[s->wq.nshapes - 1] = 0;
	}
	return s->wq.jshape[idx] = s->wq.stab[p].id;
}

/* The first place in s->wq.wait whose job does not come before job idx. */
static size_t wait_pos(const struct sim *s, int32_t idx)
{
	size_t lo = 0, hi = s->wq.nwait;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (wait_before(s, s->wq.wait[mid], idx))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Room for one more job at the end of s->wq.wait: the queue moves to the front of its arrays
 * when at least half of them is free there (so each move is paid by as many jobs taken
 * off), else the arrays grow. */
static void wait_room(struct sim *s)
{
	if (!s->wq.nwait) {
		s->wq.whead = 0;
		s->wq.wait = s->wq.wbuf;
		s->wq.wshape = s->wq.wsbuf;
	}
	if (s->wq.whead + s->wq.nwait < s->wq.waitcap)
		return;
	if (!s->wq.whead || s->wq.whead < s->wq.nwait) {
		s->wq.waitcap = s->wq.waitcap ? 2 * s->wq.waitcap : 64;
		s->wq.wbuf = xrealloc(s->wq.wbuf, s->wq.waitcap * sizeof *s->wq.wbuf);
		s->wq.wsbuf = xrealloc(s->wq.wsbuf, s->wq.waitcap * sizeof *s->wq.wsbuf);
	}
	memmove(s->wq.wbuf, s->wq.wbuf + s->wq.whead, s->wq.nwait * sizeof *s->wq.wbuf);
	memmove(s->wq.wsbuf, s->wq.wsbuf + s->wq.whead, s->wq.nwait * sizeof *s->wq.wsbuf);
	s->wq.whead = 0;
	s->wq.wait = s->wq.wbuf;
	s->wq.wshape = s->wq.wsbuf;
}

/* Close the gap left in s->wq.wait by the jobs gone from positions [w, r), keeping the order
 * of the others: the shorter side moves, so the head of a long fifo queue leaves in O(1). */
static void wait_close(struct sim *s, size_t w, size_t r)
{
	size_t gap = r - w, tail = s->wq.nwait - r;
	assert(w <= r && r <= s->wq.nwait);
	if (!gap)
		return;
	if (w <= tail) {
		memmove(&s->wq.wait[gap], &s->wq.wait[0], w * sizeof *s->wq.wait);
		memmove(&s->wq.wshape[gap], &s->wq.wshape[0], w * sizeof *s->wq.wshape);
		s->wq.wait += gap;
		s->wq.wshape += gap;
		s->wq.whead += gap;
	} else {
		memmove(&s->wq.wait[w], &s->wq.wait[r], tail * sizeof *s->wq.wait);
		memmove(&s->wq.wshape[w], &s->wq.wshape[r], tail * sizeof *s->wq.wshape);
	}
	s->wq.nwait -= gap;
}

/* Instance idx leaves the queue (it starts or is unplaceable). */
static void wait_left(struct sim *s, int32_t idx)
{
	const struct job *j = src_job(s, &s->inst.jobs[idx]);
	s->wq.queued--;
	if (job_is_gang(j))
		s->wq.want -= job_workers(j);
}

void sim_wait_add(struct sim *s, int32_t idx)
{
	wait_room(s);
	/* arrivals mostly go last: skip the search then */
	size_t lo = s->wq.nwait && !wait_before(s, s->wq.wait[s->wq.nwait - 1], idx)
			    ? wait_pos(s, idx)
			    : s->wq.nwait;
	memmove(&s->wq.wait[lo + 1], &s->wq.wait[lo], (s->wq.nwait - lo) * sizeof *s->wq.wait);
	memmove(&s->wq.wshape[lo + 1], &s->wq.wshape[lo],
		(s->wq.nwait - lo) * sizeof *s->wq.wshape);
	s->wq.wait[lo] = idx;
	s->wq.wshape[lo] = shape_of(s, idx);
	s->wq.nwait++;
	s->inst.jobs[idx].state = SIM_JOB_QUEUED;
	s->wq.queued++;
	if (job_is_gang(src_job(s, &s->inst.jobs[idx])))
		s->wq.want += job_workers(src_job(s, &s->inst.jobs[idx]));
	s->dirty = 1;
}

/* A run of g GPU-milli from start, preempted or killed now after done seconds of progress:
 * what of that progress lies in the window (at most its time in the window) is lost. */
void sim_window_lost(struct sim *s, int64_t win[GPUMODEL_MAX][JOB_NCLASS], int m, int c, int64_t g,
		     int64_t start, double done)
{
	if (s->o.mode != SIM_TIMED)
		return;
	int64_t a = start > s->k.w0 ? start : s->k.w0;
	int64_t b = s->k.now < s->k.w1 ? s->k.now : s->k.w1;
	double in = b > a ? (double)(b - a) : 0;
	if (done > in)
		done = in;
	if (done > 0)
		win[m][c] += llround((double)g * done);
}

/* Try to make room for job idx by evicting lower classes: on the lowest-indexed node where
 * evicting them (lowest class first, then the latest started) lets it fit, evict just
 * enough. Returns 1 if it did. */
static int preempt_for(struct sim *s, int32_t idx)
{
	const struct job *j = src_job(s, &s->inst.jobs[idx]);
	struct placement p;
	if (j->cls + 1 >= JOB_NCLASS || job_is_gang(j))
		return 0; /* no lower class to evict; a gang waits rather than evict (room for
			   * one worker would not start it) */
	for (size_t n = 0; n < s->c.n; n++) {
		struct node_state *st = &s->c.st[n];
		int32_t victims[256];
		int nv = 0;
		int64_t cpu = st->cap[DIM_CPU] - st->used[DIM_CPU];
		int64_t mem = st->cap[DIM_MEM] - st->used[DIM_MEM];
		int64_t gpu = st->cap[DIM_GPU] - st->used[DIM_GPU];
		for (int32_t i = 0; i < st->njobs && nv < 256; i++) {
			const struct job *v = src_job(s, &s->inst.jobs[st->jobs[i]]);
			if (v->cls <= j->cls)
				continue;
			int seen = 0; /* a gang's second worker here: evicted with the first */
			for (int b = 0; b < nv && !seen; b++)
				seen = victims[b] == st->jobs[i];
			if (!seen)
				victims[nv++] = st->jobs[i];
			cpu += v->dem[DIM_CPU] > 0 ? v->dem[DIM_CPU] : 0;
			mem += v->dem[DIM_MEM] > 0 ? v->dem[DIM_MEM] : 0;
			gpu += job_gpu(v);
		}
		/* Not even the totals would do: no need to look closer. */
		if (!nv || cpu < (j->dem[DIM_CPU] > 0 ? j->dem[DIM_CPU] : 0) ||
		    mem < (j->dem[DIM_MEM] > 0 ? j->dem[DIM_MEM] : 0) || gpu < job_gpu(j))
			continue;
		/* Order: lowest class (highest cls) first, then latest start, then highest index.
		 */
		for (int a = 1; a < nv; a++)
			for (int b = a; b > 0; b--) {
				const struct sjob *x = &s->inst.jobs[victims[b - 1]],
						  *y = &s->inst.jobs[victims[b]];
				int xc = src_job(s, x)->cls, yc = src_job(s, y)->cls;
				int swap = yc > xc || (yc == xc && (y->start > x->start ||
								    (y->start == x->start &&
								     victims[b] > victims[b - 1])));
				if (!swap)
					break;
				int32_t t = victims[b];
				victims[b] = victims[b - 1];
				victims[b - 1] = t;
			}
		/* Would evicting them all do? Try it on the node's state, then put it back. */
		struct node_state saved = *st;
		for (int v = 0; v < nv; v++) {
			const struct placement *pw;
			struct placement one;
			int np = sim_job_placements(s, victims[v], &pw, &one);
			for (int w = 0; w < np; w++) {
				const struct placement *vp = &pw[w];
				if (vp->node != (int32_t)n)
					continue; /* a gang's worker elsewhere */
				for (int d = 0; d < DIM_N; d++)
					st->used[d] -= vp->dem[d];
				for (int g = 0; g < CLUSTER_MAX_GPUS; g++)
					if (vp->gpus & (1u << g)) {
						st->gpu_free[g] += vp->milli;
						st->hbm_free[g] += vp->hbm;
					}
			}
		}
		int could = admits(s->pol.admit, st, j) && cluster_first_choice(&s->c, n, j, &p);
		*st = saved;
		if (!could)
			continue;
		for (int v = 0; v < nv && !(admits(s->pol.admit, st, j) &&
					    cluster_first_choice(&s->c, n, j, &p));
		     v++) {
			int32_t vi = victims[v];
			struct sjob *vj = &s->inst.jobs[vi];
			int m = node_model(s, n);
			double done = (double)src_job(s, vj)->duration - saved_of(s, vi) -
				      work_now(s, vj);
			int64_t g = sim_stop_job(s, vi);
			int64_t lost = g * (s->k.now - vj->start);
			sim_add_preempt(s, vi, lost);
			if (m >= 0) {
				s->k.lost_ms[m] += lost;
				sim_window_lost(s, s->k.win_lost_ms, m, cls_of(src_job(s, vj)), g,
						vj->start, done);
			}
			s->k.preemptions++;
			vj->state = SIM_JOB_QUEUED;
			NOTIFY(s, on_preempt, s->k.now, vi, idx);
			/* s->wq.wait is being compacted by sim_schedule(): queue it after the pass.
			 */
			xgrow(&s->wq.requeue, &s->wq.requeuecap, s->wq.nrequeue + 1,
			      sizeof *s->wq.requeue);
			s->wq.requeue[s->wq.nrequeue++] = vi;
		}
		return 1;
	}
	return 0;
}

/* Where job idx is in s->wq.wait (it must be there). */
static size_t wait_find(const struct sim *s, int32_t idx)
{
	size_t lo = wait_pos(s, idx);
	assert(lo < s->wq.nwait && s->wq.wait[lo] == idx);
	return lo;
}

/* The rest of a full pass, from queue position start on (the jobs before it stay): start
 * what can start, in the discipline's order. A shape that failed in this pass fails again
 * (placements in a pass only take room), so it is not searched twice. (This assumes a
 * policy's pick() fails only when no node is feasible on the hard dims, as policy.h says; a
 * preemption frees room, and then the next pass tries everything again.) */
static void pass_from(struct sim *s, size_t start)
{
	size_t w = start;
	/* SIM_EASY: the first job that could not start, and its reservation (made when a job
	 * behind it first fits: most passes have none, and a reservation costs a release of
	 * the running jobs in order of their ends) */
	int32_t head = -1;
	int64_t t_res = -1;
	int reserved = 0;
	for (size_t r = start; r < s->wq.nwait; r++) {
		if (s->o.queue == SIM_FIFO && w > 0) {
			/* The head waits: so does everything behind it. */
			wait_close(s, w, r);
			w = s->wq.nwait;
			break;
		}
		int32_t idx = s->wq.wait[r], sh = s->wq.wshape[r];
		if (s->wq.sfail[sh] == s->wq.pass) { /* its shape failed in this pass already */
			s->wq.wait[w] = idx;
			s->wq.wshape[w++] = sh;
			continue;
		}
		struct sjob *sj = &s->inst.jobs[idx];
		struct placement *p = sim_place_room(s, idx);
		if (!(sj->flags & SJ_CHECKED) && sim_job_never_fits(s, idx)) {
			wait_left(s, idx);
			sim_mark_unplaceable(s, idx);
			continue;
		}
		if (sim_try_place(s, idx, p)) {
			int W = job_workers(src_job(s, sj));
			if (head >= 0 && !reserved) { /* a gang's workers leave while it is made */
				if (W > 1)
					sim_unplace_gang(s, idx, p, W);
				t_res = sim_easy_reserve(s, head);
				if (W > 1)
					sim_replace_gang(s, idx, p, W);
				reserved = 1;
			}
			if (head >= 0 &&
			    !sim_easy_admit(s, head, t_res, idx, p, job_workers(src_job(s, sj)))) {
				/* it would delay the head's reservation: it waits (its shape did
				 * not fail: a shorter job of it may pass) */
				if (job_is_gang(src_job(s, sj)))
					sim_unplace_gang(s, idx, p, job_workers(src_job(s, sj)));
				s->wq.wait[w] = idx;
				s->wq.wshape[w++] = sh;
				continue;
			}
			wait_left(s, idx);
			sim_start_placed(s, idx, p);
			continue;
		}
		/* A shape that could not make room cannot later in the pass either: the jobs
		 * after it are of its class or lower, so they may evict no more than it could. */
		if (s->o.queue == SIM_PRIORITY && s->o.preempt && preempt_for(s, idx) &&
		    sim_try_place(s, idx, p)) {
			/* The evicted jobs join the queue after this pass (s->wq.requeue). */
			wait_left(s, idx);
			sim_start_placed(s, idx, p);
			continue;
		}
		if (s->o.queue == SIM_EASY && head < 0)
			head = idx;
		s->wq.sfail[sh] = s->wq.pass;
		s->wq.wait[w] = idx;
		s->wq.wshape[w++] = sh;
	}
	s->wq.nwait = w;
	for (size_t i = 0; i < s->wq.nrequeue; i++)
		sim_wait_add(s, s->wq.requeue[i]);
	s->wq.nrequeue = 0;
}

/*
 * sim_schedule() when no room was freed since the last pass: every job that waited then failed
 * then and fails now (the cluster only got fuller; with preemption, what it could evict
 * grew by no more than what was placed), so only the jobs that arrived since are tried, in
 * the queue's order: the same outcome as a full pass, without walking the queue. When one
 * of them makes room by preemption, the rest of the queue is tried as the full pass would,
 * the shapes of the jobs before it counting as failed in this pass.
 */
static void schedule_fresh(struct sim *s)
{
	int preempt = s->o.queue == SIM_PRIORITY && s->o.preempt;
	s->dirty = 0;
	for (size_t a = 1; a < s->wq.nfresh; a++) /* in queue order (class first for priority) */
		for (size_t b = a; b > 0 && wait_before(s, s->wq.fresh[b], s->wq.fresh[b - 1]);
		     b--) {
			int32_t t = s->wq.fresh[b];
			s->wq.fresh[b] = s->wq.fresh[b - 1];
			s->wq.fresh[b - 1] = t;
		}
	for (size_t f = 0; f < s->wq.nfresh; f++) {
		int32_t idx = s->wq.fresh[f];
		struct sjob *sj = &s->inst.jobs[idx];
		if (sj->state != SIM_JOB_QUEUED)
			continue;
		size_t pos = wait_find(s, idx);
		if (s->o.queue == SIM_FIFO && pos > 0)
			continue; /* behind the head */
		struct placement *p = sim_place_room(s, idx);
		int gone = 0, made_room = 0;
		if (!(sj->flags & SJ_CHECKED) && sim_job_never_fits(s, idx)) {
			sim_mark_unplaceable(s, idx);
			gone = 1;
		} else if (sim_try_place(s, idx, p)) {
			sim_start_placed(s, idx, p);
			gone = 1;
		} else if (preempt && preempt_for(s, idx) && sim_try_place(s, idx, p)) {
			sim_start_placed(s, idx, p);
			gone = made_room = 1;
		}
		if (gone) {
			wait_close(s, pos, pos + 1);
			wait_left(s, idx);
		}
		if (made_room) {
			s->wq.pass++;
			for (size_t i = 0; i < pos; i++)
				s->wq.sfail[s->wq.wshape[i]] = s->wq.pass;
			pass_from(s, pos);
			break;
		}
	}
	s->wq.nfresh = 0;
}

void sim_schedule(struct sim *s)
{
	s->idle.stale = 1;
	/* EASY: a new job behind the head may start only within the head's reservation,
	 * which a full pass makes */
	if (!s->freed && s->o.queue != SIM_EASY) {
		schedule_fresh(s);
		return;
	}
	s->freed = 0;
	s->wq.nfresh = 0;
	s->dirty = 0;
	s->wq.pass++;
	pass_from(s, 0);
}

/* The fit shapes depend on the admitted dims: after a change of dims, forget them and give
 * the waiting jobs theirs again (a new pass, so no shape counts as failed in it). */
void sim_wait_reshape(struct sim *s)
{
	if (!s->wq.jshape)
		return;
	for (size_t i = 0; i < s->inst.njobs; i++)
		s->wq.jshape[i] = -1;
	for (size_t i = 0; i < s->wq.stabcap; i++)
		s->wq.stab[i].id = -1;
	s->wq.nshapes = 0;
	for (size_t i = 0; i < s->wq.nwait; i++)
		s->wq.wshape[i] = shape_of(s, s->wq.wait[i]);
	s->wq.pass++;
}

/* The waiting jobs in the order of the queue discipline now in force. */
void sim_wait_requeue_all(struct sim *s)
{
	for (size_t a = 1; a < s->wq.nwait; a++)
		for (size_t b = a; b > 0 && wait_before(s, s->wq.wait[b], s->wq.wait[b - 1]); b--) {
			int32_t t = s->wq.wait[b], u = s->wq.wshape[b];
			s->wq.wait[b] = s->wq.wait[b - 1];
			s->wq.wshape[b] = s->wq.wshape[b - 1];
			s->wq.wait[b - 1] = t;
			s->wq.wshape[b - 1] = u;
		}
}

void sim_wait_clone(struct sim_wait *f, const struct sim_wait *s, size_t njobs, size_t jobcap)
{
	*f = *s;
	f->wait = f->wbuf = sim_copy_of(s->wait, s->nwait, s->waitcap, sizeof *f->wbuf);
	f->wshape = f->wsbuf = sim_copy_of(s->wshape, s->nwait, s->waitcap, sizeof *f->wsbuf);
	f->whead = 0;
	f->jshape = s->jshape ? sim_copy_of(s->jshape, njobs, jobcap, sizeof *f->jshape) : NULL;
	f->stab = sim_copy_of(s->stab, s->stabcap, s->stabcap, sizeof *f->stab);
	f->sfail = sim_copy_of(s->sfail, s->nshapes, s->sfailcap, sizeof *f->sfail);
	f->requeue = NULL; /* scratch of a pass */
	f->nrequeue = f->requeuecap = 0;
	f->fresh = sim_copy_of(s->fresh, s->nfresh, s->freshcap, sizeof *f->fresh);
	f->pl = NULL; /* scratch */
	f->plcap = 0;
}

void sim_wait_release(struct sim_wait *w)
{
	FREE_ALL(w->wbuf, w->wsbuf, w->jshape, w->stab, w->sfail, w->requeue, w->fresh, w->pl);
}

struct placement *sim_place_room(struct sim *s, int32_t idx)
{
	size_t w = (size_t)job_workers(src_job(s, &s->inst.jobs[idx]));
	xgrow(&s->wq.pl, &s->wq.plcap, w, sizeof *s->wq.pl);
	return s->wq.pl;
}
