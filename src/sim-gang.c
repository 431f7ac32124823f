/*
 * sim-gang.c — gangs in the simulator (sim-int.h): the search for a gang's W workers and
 * its exact rollback, the check that a gang could ever fit, and the EASY reservation.
 *
 * A gang is one instance whose W workers each take the job's per-worker demand (job.h). The
 * policy places them one at a time (sim_find_place on the cluster as the previous workers
 * left it, each placed and its node refreshed, so a policy that looks at fragmentation sees
 * them), all of one GPU model, one per node under o.gang_spread. If a worker finds no node,
 * the workers placed so far are taken off in reverse order and their nodes refreshed: the
 * cluster is then as it was (cluster_remove undoes cluster_place exactly; test-sim compares
 * the node states). Where the nodes are under more than one rack (or switch, struct node's
 * rack), a gang is kept under one when some rack can hold it: the racks where a first fit
 * of all W workers succeeds now are the candidates; the policy's best node for one worker
 * among their nodes names the rack tried first, and the policy places all the workers on
 * that rack's nodes alone; if one does not fit there (a policy may pack worse than first
 * fit), the rack is dropped and the policy's best among the rest names the next. Only when
 * no rack takes the gang are the workers placed as without racks, across switches (and
 * then slowed by o.xswitch, sim.c). Without racks nothing of this runs. Contention rates
 * are not touched while the workers are tried (struct sim's trial): the running jobs never
 * see a gang that does not start.
 *
 * The EASY reservation (Lifka 1995; Slurm's sched/backfill with one reservation): the head
 * of the queue, which fits nowhere now, is given the earliest time t_res at which it would
 * fit if the running jobs ended at their expected ends (start + duration x
 * o.runtime_over, at the earliest now), in order. The cluster then is the cluster now
 * without the jobs of a list (s->node.rel): those that end by t_res. A later job that fits
 * now may start if it is expected to end by t_res (it joins the list), or if the head still
 * fits at t_res with it there too. The cluster then is not copied (a copy per pass of a
 * 6,000-node cluster cost more than the rest of the pass): the list is taken off the live
 * cluster to ask whether the head fits, and put back at once; only the order of a node's
 * job list may change. What is free now is free then, so a placement now is valid then.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim-int.h"
#include "util.h"

/* j as one worker: the per-worker demand, of GPU model m when m >= 0 and it uses GPUs. */
static void worker_of(const struct job *j, int m, struct job *wj)
{
	*wj = *j;
	wj->workers = 1;
	if (m >= 0 && j->num_gpu > 0)
		wj->gpu_spec = 1u << m;
}

/* Take the first n of the placements p (of job idx) off s's cluster, last first, and
 * refresh their nodes. */
static void unplace(struct sim *s, int32_t idx, const struct placement *p, int n)
{
	while (n-- > 0) {
		cluster_remove(&s->c, &p[n], idx);
		sim_node_refresh(s, (size_t)p[n].node);
	}
}

void sim_unplace_gang(struct sim *s, int32_t idx, const struct placement *p, int n)
{
	s->trial = 1;
	unplace(s, idx, p, n);
	s->trial = 0;
}

void sim_replace_gang(struct sim *s, int32_t idx, const struct placement *p, int n)
{
	s->trial = 1;
	for (int w = 0; w < n; w++) {
		cluster_place(&s->c, &p[w], idx);
		sim_node_refresh(s, (size_t)p[w].node);
	}
	s->trial = 0;
}

/* Place the workers of idx as model m's (m < 0: the first picks), on nodes without a bit
 * in fence (a node bitmap; NULL: any node); returns how many were placed: all W, or fewer
 * after a failure, which the caller rolls back. */
static int place_workers(struct sim *s, int32_t idx, const struct job *j, int m,
			 struct placement *out, const uint64_t *fence)
{
	int W = job_workers(j);
	struct job wj;
	worker_of(j, m, &wj);
	size_t words = (s->c.n + 63) / 64;
	if (s->o.gang_spread || fence) {
		xgrow(&s->pol.skip, &s->pol.skipcap, words ? words : 1, sizeof *s->pol.skip);
		if (fence)
			memcpy(s->pol.skip, fence, words * sizeof *s->pol.skip);
		else
			memset(s->pol.skip, 0, (words ? words : 1) * sizeof *s->pol.skip);
	}
	for (int w = 0; w < W; w++) {
		int ok;
		if (fence) {
			ok = sim_find_place_skip(s, &wj, s->pol.skip, &out[w]);
		} else {
			ok = sim_find_place(s, &wj, &out[w]);
			if (ok && s->o.gang_spread &&
			    (s->pol.skip[out[w].node / 64] >> (out[w].node % 64) & 1))
				ok = sim_find_place_skip(s, &wj, s->pol.skip, &out[w]);
		}
		if (!ok)
			return w;
		if (w == 0 && m < 0)
			worker_of(j, node_model(s, (size_t)out[0].node), &wj);
		cluster_place(&s->c, &out[w], idx);
		sim_node_refresh(s, (size_t)out[w].node);
		if (s->o.gang_spread)
			s->pol.skip[out[w].node / 64] |= 1ull << (out[w].node % 64);
	}
	return W;
}

static int fits_on(const struct sim *s, struct cluster *c, const struct job *j, int32_t idx,
		   struct placement *out, const int32_t *list, size_t nlist);

/* Set (on 1) or clear (0) the bits of rack r's nodes in bitmap b. */
static void rack_bits(const struct sim *s, int32_t r, uint64_t *b, int on)
{
	for (int32_t k = s->node.rstart[r]; k < s->node.rstart[r + 1]; k++) {
		int32_t n = s->node.rnodes[k];
		if (on)
			b[n / 64] |= 1ull << (n % 64);
		else
			b[n / 64] &= ~(1ull << (n % 64));
	}
}

/* The gang under one rack: of the racks that can hold all its workers now (first fit),
 * the one of the policy's best node among them is tried first (the policy places every
 * worker there), then the one of its best among the racks left, and so on. W (placed, in
 * out) or 0 (the cluster as it was). */
static int place_one_rack(struct sim *s, int32_t idx, const struct job *j, struct placement *out)
{
	int W = job_workers(j), any = 0;
	size_t words = (s->c.n + 63) / 64;
	xgrow(&s->node.fence, &s->node.fencecap, 2 * words, sizeof *s->node.fence);
	uint64_t *left = s->node.fence, *one = s->node.fence + words;
	memset(left, 0xff, words * sizeof *left); /* a bit: not on a rack left to try */
	for (int32_t r = 0; r < s->node.nracks; r++) {
		assert(s->node.rgfree[r] >= 0);
		if (job_gpu(j) * W > s->node.rgfree[r])
			continue; /* too few free GPUs under it: no fit to try */
		const int32_t *list = s->node.rnodes + s->node.rstart[r];
		if (fits_on(s, &s->c, j, idx, out, list,
			    (size_t)(s->node.rstart[r + 1] - s->node.rstart[r]))) {
			rack_bits(s, r, left, 0);
			any = 1;
		}
	}
	struct job wj;
	worker_of(j, -1, &wj);
	struct placement p0;
	while (any && sim_find_place_skip(s, &wj, left, &p0)) {
		int32_t r = s->node.rack[p0.node];
		memset(one, 0xff, words * sizeof *one);
		rack_bits(s, r, one, 0);
		rack_bits(s, r, left, 1);
		int n = place_workers(s, idx, j, -1, out, one);
		if (n == W)
			return W;
		unplace(s, idx, out, n);
	}
	return 0;
}

int sim_gang_spans(const struct sim *s, const struct placement *p, int n)
{
	for (int w = 1; s->node.nracks && w < n; w++)
		if (s->node.rack[p[w].node] != s->node.rack[p[0].node])
			return 1;
	return 0;
}

int sim_place_gang(struct sim *s, int32_t idx, struct placement *out)
{
	const struct job *j = src_job(s, &s->inst.jobs[idx]);
	int W = job_workers(j);
	if (job_gpu(j) * W > s->c.free_gpu_milli)
		return 0;
	s->trial = 1;
	if (s->node.nracks && place_one_rack(s, idx, j, out) == W) {
		s->trial = 0;
		return 1;
	}
	int n = place_workers(s, idx, j, -1, out, NULL),
	    first = n ? node_model(s, (size_t)out[0].node) : -1;
	if (n < W)
		unplace(s, idx, out, n);
	/* the first worker's model had too few nodes: another model allowed may have them */
	for (int i = 0; n < W && j->num_gpu > 0 && i < s->node.nmodels; i++) {
		int m = s->node.models[i];
		if (m == first || (j->gpu_spec && !((j->gpu_spec >> m) & 1)))
			continue;
		if ((n = place_workers(s, idx, j, m, out, NULL)) < W)
			unplace(s, idx, out, n);
	}
	s->trial = 0;
	return n == W;
}

/* First fit of j's W workers on c, of model m (< 0: any), one per node with spread, over
 * the nlist nodes of list (NULL: every node): how many were placed (into p), all left on c. */
static int first_fit(const struct sim *s, struct cluster *c, const struct job *j, int m,
		     int32_t idx, struct placement *p, const int32_t *list, size_t nlist)
{
	int W = job_workers(j), w = 0;
	struct job wj;
	worker_of(j, m, &wj);
	if (list) {
		for (size_t k = 0; k < nlist && w < W; k++)
			while (w < W && admits(s->pol.admit, &c->st[list[k]], &wj) &&
			       cluster_first_choice(c, (size_t)list[k], &wj, &p[w])) {
				cluster_place(c, &p[w++], idx);
				if (s->o.gang_spread)
					break;
			}
		return w;
	}
	size_t n = cluster_next_fit(c, 0, &wj);
	while (w < W && n < c->n) {
		if (admits(s->pol.admit, &c->st[n], &wj) &&
		    cluster_first_choice(c, n, &wj, &p[w])) {
			cluster_place(c, &p[w++], idx);
			if (!s->o.gang_spread)
				continue; /* the same node may take another */
		}
		n = cluster_next_fit(c, n + 1, &wj);
	}
	return w;
}

/* sim_gang_fits on the nlist nodes of list (NULL: every node). */
static int fits_on(const struct sim *s, struct cluster *c, const struct job *j, int32_t idx,
		   struct placement *out, const int32_t *list, size_t nlist)
{
	int W = job_workers(j), n = 0;
	if (job_gpu(j) * W > c->free_gpu_milli)
		return 0;
	struct placement *p = out ? out : xmalloc((size_t)W * sizeof *p);
	if (j->num_gpu <= 0 || s->node.nmodels <= 1) {
		n = first_fit(s, c, j, -1, idx, p, list, nlist);
	} else {
		for (int i = 0; i < s->node.nmodels && n < W; i++) {
			int m = s->node.models[i];
			if (j->gpu_spec && !((j->gpu_spec >> m) & 1))
				continue;
			n = first_fit(s, c, j, m, idx, p, list, nlist);
			if (n < W)
				while (n > 0)
					cluster_remove(c, &p[--n], idx);
		}
	}
	int ok = n == W;
	while (n > 0)
		cluster_remove(c, &p[--n], idx);
	if (!out)
		free(p);
	return ok;
}

int sim_gang_fits(const struct sim *s, struct cluster *c, const struct job *j, int32_t idx,
		  struct placement *out)
{
	return fits_on(s, c, j, idx, out, NULL, 0);
}

int sim_gang_never_fits(struct sim *s, struct sjob *sj)
{
	const struct job *j = src_job(s, sj);
	if (sim_never_fits(s, sj))
		return 1;
	if (sim_gang_fits(s, &s->node.whole, j, (int32_t)(sj - s->inst.jobs), NULL))
		return 0;
	sj->why = SIM_WHY_GANG;
	sj->why_dim = -1;
	return 1;
}

int sim_job_placements(const struct sim *s, int32_t idx, const struct placement **p,
		       struct placement *one)
{
	const struct sjob *sj = &s->inst.jobs[idx];
	const struct job *j = src_job(s, sj);
	if (job_is_gang(j)) {
		assert(s->inst.gw && s->inst.gw[idx]);
		*p = s->inst.gw[idx];
		return job_workers(j);
	}
	job_placement(s, sj, one);
	*p = one;
	return 1;
}

/* Expected end of running instance sj: start + ceil(duration x o.runtime_over). One
 * overdue is expected at any moment: it goes with the first released. */
static int64_t expected_end(const struct sim *s, const struct sjob *sj)
{
	const struct job *j = src_job(s, sj);
	double d = ceil((double)(j->duration > 0 ? j->duration : 0) * s->o.runtime_over);
	return d < (double)(s->t_max - sj->start) ? sj->start + (int64_t)d : s->t_max;
}

/* (a, idx) comes before (b, idx): the earlier end, then the lower index. */
static int end_before(const struct send *a, const struct send *b)
{
	return a->t < b->t || (a->t == b->t && a->idx < b->idx);
}

/* The first place in s->node.ends not before e. */
static size_t end_pos(const struct sim *s, const struct send *e)
{
	size_t lo = 0, hi = s->node.nends;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (end_before(&s->node.ends[mid], e))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void sim_easy_track(struct sim *s, int32_t idx, int on)
{
	struct send e = {expected_end(s, &s->inst.jobs[idx]), idx};
	size_t at = end_pos(s, &e);
	if (on) {
		xgrow(&s->node.ends, &s->node.endcap, s->node.nends + 1, sizeof *s->node.ends);
		memmove(&s->node.ends[at + 1], &s->node.ends[at],
			(s->node.nends - at) * sizeof *s->node.ends);
		s->node.ends[at] = e;
		s->node.nends++;
	} else {
		assert(at < s->node.nends && s->node.ends[at].idx == idx);
		memmove(&s->node.ends[at], &s->node.ends[at + 1],
			(s->node.nends - at - 1) * sizeof *s->node.ends);
		s->node.nends--;
	}
}

void sim_easy_rebuild(struct sim *s)
{
	s->node.nends = 0;
	for (size_t i = 0; s->o.queue == SIM_EASY && i < s->inst.njobs; i++)
		if (s->inst.jobs[i].state == SIM_JOB_RUNNING)
			sim_easy_track(s, (int32_t)i, 1);
}

/* Take the jobs of the reservation's list off s's cluster (off) or put them back, in
 * reverse order: the cluster as the reservation expects it, and back. Nothing else sees
 * it meanwhile (no node refresh): only the head's fit is asked. */
static void release(struct sim *s, int off)
{
	for (size_t k = 0; k < s->node.nrel; k++) {
		int32_t e = s->node.rel[off ? k : s->node.nrel - 1 - k];
		const struct placement *p;
		struct placement one;
		int np = sim_job_placements(s, e, &p, &one);
		for (int w = 0; w < np; w++)
			if (off)
				cluster_remove(&s->c, &p[w], e);
			else
				cluster_place(&s->c, &p[np - 1 - w], e);
	}
}

/* Does head fit on s's cluster as it stands (the cluster at its reservation)? If so,
 * s->node.resv marks the nodes of its first-fit placement there. */
static int head_fits(struct sim *s, int32_t head)
{
	const struct job *j = src_job(s, &s->inst.jobs[head]);
	size_t W = (size_t)job_workers(j), words = (s->c.n + 63) / 64;
	xgrow(&s->node.hp, &s->node.hpcap, W, sizeof *s->node.hp);
	if (!sim_gang_fits(s, &s->c, j, head, s->node.hp))
		return 0;
	xgrow(&s->node.resv, &s->node.resvcap, words ? words : 1, sizeof *s->node.resv);
	memset(s->node.resv, 0, (words ? words : 1) * sizeof *s->node.resv);
	for (size_t w = 0; w < W; w++)
		s->node.resv[s->node.hp[w].node / 64] |= 1ull << (s->node.hp[w].node % 64);
	return 1;
}

int64_t sim_easy_reserve(struct sim *s, int32_t head)
{
	size_t n = s->node.nends;
	assert(n == (size_t)s->inst.running);
	xgrow(&s->node.rel, &s->node.relcap, n + 1, sizeof *s->node.rel);
	int64_t t_res = -1;
	s->node.nrel = 0;
	for (size_t i = 0; i < n && t_res < 0;) {
		/* the overdue are expected now, with the first to end */
		int64_t t = s->node.ends[i].t > s->k.now ? s->node.ends[i].t : s->k.now;
		for (; i < n && s->node.ends[i].t <= t; i++) {
			const struct placement *p;
			struct placement one;
			int32_t e = s->node.ends[i].idx;
			int np = sim_job_placements(s, e, &p, &one);
			for (int w = 0; w < np; w++)
				cluster_remove(&s->c, &p[w], e);
			s->node.rel[s->node.nrel++] = e;
		}
		if (head_fits(s, head))
			t_res = t;
	}
	release(s, 0);
	if (t_res < 0)
		s->node.nrel = 0;
	return t_res;
}

int sim_easy_admit(struct sim *s, int32_t head, int64_t t_res, int32_t idx,
		   const struct placement *p, int np)
{
	const struct job *j = src_job(s, &s->inst.jobs[idx]);
	if (t_res < 0)
		return 1; /* no end of a running job makes room for the head: nothing to delay */
	double d = ceil((double)(j->duration > 0 ? j->duration : 0) * s->o.runtime_over);
	if (d <= (double)(t_res - s->k.now)) { /* gone before the reservation */
		xgrow(&s->node.rel, &s->node.relcap, s->node.nrel + 1, sizeof *s->node.rel);
		s->node.rel[s->node.nrel++] = idx;
		return 1;
	}
	int one = !job_is_gang(j); /* a gang's workers are on the cluster already */
	int touch = 0;             /* does it take room on a node the head's reservation uses? */
	for (int w = 0; w < np && !touch; w++)
		touch = (s->node.resv[p[w].node / 64] >> (p[w].node % 64)) & 1;
	if (!touch)
		return 1; /* the head's placement at t_res stays as it was */
	for (int w = 0; one && w < np; w++)
		cluster_place(&s->c, &p[w], idx);
	release(s, 1);
	int ok = head_fits(s, head);
	release(s, 0);
	for (int w = np; one && w-- > 0;)
		cluster_remove(&s->c, &p[w], idx);
	return ok;
}
