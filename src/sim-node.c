/*
 * sim-node.c — the simulator's node and fault parts (sim-int.h): per node the run's
 * measures over the scenario's workload (F_n, multi-dim, the shares that fit no more,
 * stranded capacity), their sums, the nodes' spec classes, and the faults that lower a
 * shared dim's capacity or take nodes down (fault.h), with the drawn node failures of
 * o.node_mtbf. sim_node_refresh brings a node's measures, the policy's records of it and its
 * jobs' rates up to date after every change of the node.
 *
 * A node goes down when the first down fault or drawn failure holding it begins and comes
 * back when the last one ends (struct sim_faults' down counts them): going down kills its
 * jobs (sim_kill), then the cluster takes all its capacity away (cluster_set_down), so no
 * search finds room there; coming back restores the spec and lowers the shared dims again
 * under the capacity faults still active. Drawn failures: every node's next failure is one
 * event (EV_NODE_DOWN) an exponential time of mean o.node_mtbf after the node came up (or
 * after the start), its repair (EV_NODE_UP) o.node_repair after it failed; the draws come
 * from a stream of their own (struct sim_faults' frng), seeded by o.seed, so a run without
 * them draws exactly what it drew before, and a fork carries the stream on.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim-int.h"
#include "util.h"

/* Stranded capacity of node n: a dim's free capacity when another hard dim is exhausted
 * (has less free than the smallest demand of the target workload on it). */
static void node_stranded(const struct sim *s, size_t n, int64_t out[DIM_N])
{
	const struct node_state *st = &s->c.st[n];
	uint32_t full = 0;
	for (int d = 0; d < DIM_N; d++) {
		if (!(DIMS_HARD & DIM_BIT(d)) || st->cap[d] == 0)
			continue;
		int64_t fr = st->cap[d] - st->used[d];
		if (d == DIM_GPU || d == DIM_HBM) { /* what one GPU can still give */
			fr = 0;
			for (int g = 0; g < s->c.spec[n].ngpu; g++) {
				int64_t v = d == DIM_GPU ? st->gpu_free[g] : st->hbm_free[g];
				fr = v > fr ? v : fr;
			}
		}
		if (fr < s->node.min_dem[d])
			full |= DIM_BIT(d);
	}
	for (int d = 0; d < DIM_N; d++) {
		int64_t fr = st->cap[d] - st->used[d];
		out[d] = (full & ~DIM_BIT(d)) && fr > 0 ? fr : 0;
	}
}

/* Node n changed (a placement came or went, a fault): bring its F_n, multi-dim measure,
 * stranded capacity and (when contention is on) its jobs' rates up to date. */
/* The share of its demand each shared dim of st can serve (1 where it is not
 * oversubscribed); 1 if any is below 1. */
static int node_ratios(const struct node_state *st, double ratio[DIM_N])
{
	int any = 0;
	for (int d = 0; d < DIM_N; d++) {
		ratio[d] = 1;
		if ((DIMS_SHARED & DIM_BIT(d)) && st->used[d] > st->cap[d]) {
			ratio[d] = (double)st->cap[d] / (double)st->used[d];
			any = 1;
		}
	}
	return any;
}

/* The rate of running gang idx: the least over its workers' nodes. */
static double gang_rate(const struct sim *s, int32_t idx, const struct job *j)
{
	const struct placement *p = s->inst.gw[idx];
	double r = 1, ratio[DIM_N];
	for (int w = 0; w < job_workers(j); w++) {
		node_ratios(&s->c.st[p[w].node], ratio);
		for (int d = 0; d < DIM_N; d++)
			if (ratio[d] < r && j->dem[d] > 0)
				r = ratio[d];
	}
	return r;
}

void sim_node_refresh(struct sim *s, size_t n)
{
	int m = node_model(s, n);
	uint8_t wfree = s->c.st[n].njobs == 0 && s->c.spec[n].ngpu > 0;
	s->node.nwfree += wfree - s->node.wfree[n];
	s->node.wfree[n] = wfree;
	if (s->node.nracks) {
		int64_t g = s->c.st[n].cap[DIM_GPU] - s->c.st[n].used[DIM_GPU];
		s->node.rgfree[s->node.rack[n]] += g - s->node.ngfree[n];
		s->node.ngfree[n] = g;
	}
	if (s->pol.state && s->pol.ops->state->node)
		s->pol.ops->state->node(s->pol.state, &s->pol.ctx, n);
	if (s->wl) {
		double md, f = frag_node_eval(&s->c, n, s->wl, DIMS_ALL, &md, &s->node.nofit[n],
					      &s->node.fnofit[n], s->node.fits[n]);
		if (s->pol.pmd)
			frag_node_eval(&s->c, n, s->wl, s->pol.ctx.dims, &s->pol.pmd[n],
				       &s->pol.pnofit[n], NULL, s->pol.pfits[n]);
		if (m >= 0)
			s->node.sum_frag[m] += f - s->node.frag[n];
		s->node.frag[n] = f;
		s->node.sum_md += md - s->node.md[n];
		s->node.md[n] = md;
	}
	if (s->pol.prep)
		s->pol.ops->prep(&s->pol.ctx, n, s->pol.prep + n * s->pol.ops->prep_size);
	if (s->pol.use_cls)
		sim_classes_update(&s->pol.cls, n);
	int64_t str[DIM_N];
	node_stranded(s, n, str);
	for (int d = 0; d < DIM_N; d++) {
		s->node.sum_str[d] += str[d] - s->node.str[n][d];
		s->node.str[n][d] = str[d];
	}
	if (!s->o.contention || s->o.mode == SIM_INFLATE || s->trial)
		return;
	const struct node_state *st = &s->c.st[n];
	double ratio[DIM_N];
	int any = node_ratios(st, ratio);
	if (!any && !s->node.contended[n])
		return;
	for (int32_t i = 0; i < st->njobs; i++) {
		int32_t idx = st->jobs[i];
		struct sjob *sj = &s->inst.jobs[idx];
		const struct job *j = src_job(s, sj);
		double r = 1;
		for (int d = 0; d < DIM_N; d++)
			if (ratio[d] < r && j->dem[d] > 0)
				r = ratio[d];
		if (job_is_gang(j)) /* a gang goes at the pace of its slowest worker */
			r = gang_rate(s, idx, j);
		sim_set_rate(s, sj, idx, r);
	}
	s->node.contended[n] = (uint8_t)any;
}

/* j starts on node n, under an active fault: count it for each fault it feels. */
void sim_fault_hits(struct sim *s, int32_t n, const struct job *j)
{
	for (size_t i = 0; i < s->fault.n; i++) {
		struct sfault *f = &s->fault.list[i];
		if (!f->active || f->f.down || j->dem[f->f.dim] <= 0)
			continue;
		size_t lo = 0, hi = f->nnodes; /* f->nodes is ascending */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (f->nodes[mid] < n)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < f->nnodes && f->nodes[lo] == n)
			f->jobs_hit++;
	}
}

/* Capacity of node n on dim d now: the spec times the lowest active fault fraction. */
static void fault_apply(struct sim *s, size_t n, enum dim d)
{
	double frac = 1;
	for (size_t i = 0; i < s->fault.n; i++) {
		const struct sfault *f = &s->fault.list[i];
		if (!f->active || f->f.down || f->f.dim != d)
			continue;
		for (size_t k = 0; k < f->nnodes; k++)
			if ((size_t)f->nodes[k] == n && f->f.fraction < frac)
				frac = f->f.fraction;
	}
	if (s->fault.down && s->fault.down[n])
		return; /* no capacity while down: node_down sets it when the node is back */
	cluster_set_cap(&s->c, n, d, (int64_t)floor((double)s->c.spec[n].cap[d] * frac));
	sim_node_refresh(s, n);
	if (s->pol.admit & DIM_BIT(d)) /* admission there may now let waiting jobs in */
		s->freed = s->dirty = 1;
}

/* Node n goes down (begin 1) or comes back (0) for one more or one less reason. */
static void node_down(struct sim *s, size_t n, int begin)
{
	int m = node_model(s, n);
	if (!s->fault.down)
		s->fault.down = xcalloc(s->c.n ? s->c.n : 1, sizeof *s->fault.down);
	if (begin && s->fault.down[n]++)
		return; /* down already */
	if (!begin && --s->fault.down[n])
		return; /* something else holds it down */
	if (begin) {
		while (s->c.st[n].njobs)
			sim_kill(s, s->c.st[n].jobs[s->c.st[n].njobs - 1]);
		s->k.node_failures++;
	}
	cluster_set_down(&s->c, n, begin);
	if (m >= 0)
		s->fault.down_now[m] +=
			begin ? s->c.spec[n].cap[DIM_GPU] : -s->c.spec[n].cap[DIM_GPU];
	if (!begin) {
		for (int d = 0; d < DIM_N; d++)
			if (DIMS_SHARED & DIM_BIT(d))
				fault_apply(s, n, (enum dim)d);
		s->freed = s->dirty = 1;
	}
	sim_node_refresh(s, n);
}

void sim_fault_switch(struct sim *s, size_t i, int begin)
{
	struct sfault *f = &s->fault.list[i];
	f->active = begin;
	if (f->f.down) {
		for (size_t k = 0; k < f->nnodes; k++) {
			size_t n = (size_t)f->nodes[k];
			if (begin)
				f->jobs_hit += s->c.st[n].njobs;
			node_down(s, n, begin);
		}
		NOTIFY(s, on_fault, s->k.now, i, begin);
		return;
	}
	for (size_t k = 0; k < f->nnodes; k++) {
		size_t n = (size_t)f->nodes[k];
		s->fault.on[n] = (uint16_t)(s->fault.on[n] + (begin ? 1 : -1));
		if (begin) {
			const struct node_state *st = &s->c.st[n];
			for (int32_t j = 0; j < st->njobs; j++)
				f->jobs_hit +=
					src_job(s, &s->inst.jobs[st->jobs[j]])->dem[f->f.dim] > 0;
		}
		fault_apply(s, n, f->f.dim);
	}
	NOTIFY(s, on_fault, s->k.now, i, begin);
}

/* Resolve fault f's target (node name, group, or GPU model) and push its events. */
int sim_fault_add(struct sim *s, const struct fault *f, struct err *e)
{
	struct sfault sf = {.f = *f};
	int model = gpumodel_find(f->target);
	for (size_t n = 0; n < s->c.n; n++) {
		const struct node *sp = &s->c.spec[n];
		if (!strcmp(sp->name, f->target) ||
		    (sp->group[0] && !strcmp(sp->group, f->target)) ||
		    (model >= 0 && sp->model == model && sp->ngpu > 0)) {
			sf.nodes = xrealloc(sf.nodes, (sf.nnodes + 1) * sizeof *sf.nodes);
			sf.nodes[sf.nnodes++] = (int32_t)n;
		}
	}
	if (!s->fault.on)
		s->fault.on = xcalloc(s->c.n ? s->c.n : 1, sizeof *s->fault.on);
	if (!sf.nnodes) {
		char buf[160];
		fault_format(f, buf, sizeof buf);
		return err_set(e, VF_EINPUT,
			       "fault '%s': '%s' names no node, group or GPU model here", buf,
			       f->target);
	}
	s->fault.list = xrealloc(s->fault.list, (s->fault.n + 1) * sizeof *s->fault.list);
	size_t i = s->fault.n++;
	s->fault.list[i] = sf;
	int64_t end = f->start + f->duration;
	if (end <= s->k.now)
		return VF_OK; /* already over */
	if (f->start <= s->k.now)
		sim_fault_switch(s, i, 1);
	else if (f->start <= s->t_max) {
		struct evq_event ev = {.time = f->start,
				       .prio = EV_FAULT_START,
				       .kind = EV_FAULT_START,
				       .arg = (int32_t)i};
		evq_push(&s->q, &ev);
		s->fault.nev++;
	}
	if (f->start <= s->t_max && end <= s->t_max) { /* else it lasts the whole run */
		struct evq_event ev = {
			.time = end, .prio = EV_FAULT_END, .kind = EV_FAULT_END, .arg = (int32_t)i};
		evq_push(&s->q, &ev);
		s->fault.nev++;
	}
	return VF_OK;
}

/* Queue node n's next drawn failure (kind EV_NODE_DOWN) or its repair (EV_NODE_UP) after
 * gap seconds (whole, at least 1), unless that is past the horizon. */
static void push_node_event(struct sim *s, size_t n, int kind, double gap)
{
	gap = gap < 1 ? 1 : ceil(gap);
	if (!(gap <= (double)(s->t_max - s->k.now)))
		return;
	struct evq_event ev = {.time = s->k.now + (int64_t)gap,
			       .prio = kind == EV_NODE_DOWN ? EV_FAULT_START : EV_FAULT_END,
			       .kind = kind,
			       .arg = (int32_t)n};
	evq_push(&s->q, &ev);
	if (kind == EV_NODE_DOWN)
		s->fault.nproc++;
	else
		s->fault.nev++; /* a repair may let what is stuck run again */
}

/* An exponential time of mean o.node_mtbf. */
static double draw_uptime(struct sim *s)
{
	return -s->o.node_mtbf * log1p(-rng_unit(&s->fault.frng));
}

void sim_failures_start(struct sim *s)
{
	if (!(s->o.node_mtbf > 0) || s->o.mode != SIM_TIMED)
		return;
	rng_seed(&s->fault.frng, rng_hash(s->o.seed, 0x6e6f6465, 0)); /* "node" */
	for (size_t n = 0; n < s->c.n; n++)
		push_node_event(s, n, EV_NODE_DOWN, draw_uptime(s));
}

void sim_node_fail(struct sim *s, size_t n, int begin)
{
	if (begin) {
		s->fault.nproc--;
		node_down(s, n, 1);
		push_node_event(s, n, EV_NODE_UP, s->o.node_repair);
	} else {
		s->fault.nev--;
		node_down(s, n, 0);
		push_node_event(s, n, EV_NODE_DOWN, draw_uptime(s));
	}
}

static int same_spec(const struct node *a, const struct node *b)
{
	return a->ngpu == b->ngpu && a->model == b->model && !memcmp(a->cap, b->cap, sizeof a->cap);
}

/* nd's racks of c's nodes: ids in name order ("" for a node without one is a rack too,
 * when others have one), none when every node is under the same. */
static void racks_init(struct sim_nodes *nd, const struct cluster *c)
{
	size_t nn = c->n;
	int any = 0;
	for (size_t n = 0; n < nn && !any; n++)
		any = strcmp(c->spec[n].rack, c->spec[0].rack) != 0;
	if (!any)
		return;
	struct sim_named *k = xmalloc(nn * sizeof *k);
	for (size_t n = 0; n < nn; n++)
		k[n] = (struct sim_named){c->spec[n].rack, (int32_t)n};
	qsort(k, nn, sizeof *k, sim_named_cmp);
	nd->rack = xmalloc(nn * sizeof *nd->rack);
	nd->rnodes = xmalloc(nn * sizeof *nd->rnodes);
	nd->rstart = xmalloc((nn + 1) * sizeof *nd->rstart);
	for (size_t i = 0; i < nn; i++) {
		if (!i || strcmp(k[i].name, k[i - 1].name))
			nd->rstart[nd->nracks++] = (int32_t)i;
		nd->rack[k[i].n] = nd->nracks - 1;
		nd->rnodes[i] = k[i].n;
	}
	nd->rstart[nd->nracks] = (int32_t)nn;
	free(k);
	nd->ngfree = xmalloc(nn * sizeof *nd->ngfree);
	nd->rgfree = xcalloc((size_t)nd->nracks, sizeof *nd->rgfree);
	for (size_t n = 0; n < nn; n++) {
		nd->ngfree[n] = c->st[n].cap[DIM_GPU] - c->st[n].used[DIM_GPU];
		nd->rgfree[nd->rack[n]] += nd->ngfree[n];
	}
}

void sim_nodes_init(struct sim_nodes *nd, const struct cluster *c, const struct frag_workload *wl,
		    int64_t gpu_cap[GPUMODEL_MAX])
{
	racks_init(nd, c);
	size_t nn = c->n ? c->n : 1;
	nd->frag = xcalloc(nn, sizeof *nd->frag);
	nd->md = xcalloc(nn, sizeof *nd->md);
	nd->nofit = xcalloc(nn, sizeof *nd->nofit);
	nd->fnofit = xcalloc(nn, sizeof *nd->fnofit);
	nd->fits = xcalloc(nn, sizeof *nd->fits);
	nd->str = xcalloc(nn, sizeof *nd->str);
	nd->contended = xcalloc(nn, 1);
	nd->wfree = xcalloc(nn, 1);
	for (size_t n = 0; n < c->n; n++)
		nd->nwfree += nd->wfree[n] = c->spec[n].ngpu > 0;
	/* One empty node per spec class answers "could it ever fit?". */
	uint32_t present = 0; /* bit m: a node of GPU model m */
	for (size_t n = 0; n < c->n; n++) {
		size_t r = 0;
		while (r < nd->nreps && !same_spec(&nd->reps[r], &c->spec[n]))
			r++;
		if (r == nd->nreps) {
			nd->reps = xrealloc(nd->reps, (nd->nreps + 1) * sizeof *nd->reps);
			nd->reps[nd->nreps++] = c->spec[n];
		}
		int m = c->spec[n].model;
		assert(m < GPUMODEL_MAX);
		if (m >= 0 && c->spec[n].ngpu > 0) {
			gpu_cap[m] += c->spec[n].cap[DIM_GPU];
			present |= 1u << m;
		}
	}
	for (int m = 0; m < GPUMODEL_MAX; m++)
		if (present >> m & 1)
			nd->models[nd->nmodels++] = (int8_t)m;
	cluster_init(&nd->empty, nd->reps, nd->nreps);
	/* The smallest demand of the target workload on each hard dim ("exhausted" in
	 * node_stranded). */
	for (int d = 0; d < DIM_N; d++)
		nd->min_dem[d] = 1;
	if (!wl)
		return;
	int64_t mn[DIM_N];
	for (int d = 0; d < DIM_N; d++)
		mn[d] = INT64_MAX;
	for (size_t i = 0; i < wl->n; i++) {
		const struct frag_shape *sh = &wl->shapes[i];
		for (int d = 0; d < DIM_N; d++) {
			int64_t v = sh->dem[d];
			if (d == DIM_GPU)
				v = sh->num_gpu > 0 ? sh->gpu_milli : 0;
			else if (d == DIM_HBM)
				v = sh->num_gpu > 0 && v > 0 ? v / sh->num_gpu : 0;
			if (v > 0 && v < mn[d])
				mn[d] = v;
		}
	}
	for (int d = 0; d < DIM_N; d++)
		if (mn[d] != INT64_MAX)
			nd->min_dem[d] = mn[d];
}

void sim_nodes_clone(struct sim_nodes *f, const struct sim_nodes *s, size_t nn)
{
	*f = *s;
	f->frag = sim_copy_of(s->frag, nn, nn, sizeof *f->frag);
	f->md = sim_copy_of(s->md, nn, nn, sizeof *f->md);
	f->nofit = sim_copy_of(s->nofit, nn, nn, sizeof *f->nofit);
	f->fnofit = sim_copy_of(s->fnofit, nn, nn, sizeof *f->fnofit);
	f->fits = sim_copy_of(s->fits, nn, nn, sizeof *f->fits);
	f->str = sim_copy_of(s->str, nn, nn, sizeof *f->str);
	f->contended = sim_copy_of(s->contended, nn, nn, 1);
	f->wfree = sim_copy_of(s->wfree, nn, nn, 1);
	f->reps = sim_copy_of(s->reps, s->nreps, s->nreps, sizeof *f->reps);
	cluster_clone(&f->empty, &s->empty);
	f->empty.spec = f->reps;
	if (s->whole.st)
		cluster_clone(&f->whole, &s->whole);
	f->ends = s->ends ? sim_copy_of(s->ends, s->nends, s->endcap, sizeof *f->ends) : NULL;
	f->rel = NULL; /* scratch */
	f->nrel = f->relcap = 0;
	f->hp = NULL;
	f->hpcap = 0;
	f->resv = NULL;
	f->resvcap = 0;
	if (s->nracks) {
		f->rack = sim_copy_of(s->rack, nn, nn, sizeof *f->rack);
		f->rnodes = sim_copy_of(s->rnodes, nn, nn, sizeof *f->rnodes);
		f->rstart = sim_copy_of(s->rstart, (size_t)s->nracks + 1, (size_t)s->nracks + 1,
					sizeof *f->rstart);
		f->ngfree = sim_copy_of(s->ngfree, nn, nn, sizeof *f->ngfree);
		f->rgfree = sim_copy_of(s->rgfree, (size_t)s->nracks, (size_t)s->nracks,
					sizeof *f->rgfree);
	}
	f->fence = NULL; /* scratch */
	f->fencecap = 0;
}

void sim_nodes_release(struct sim_nodes *nd)
{
	FREE_ALL(nd->frag, nd->md, nd->nofit, nd->fnofit, nd->fits, nd->str, nd->contended,
		 nd->wfree, nd->reps, nd->ends, nd->rel, nd->hp, nd->resv, nd->rack, nd->rnodes,
		 nd->rstart, nd->ngfree, nd->rgfree, nd->fence);
	cluster_release(&nd->empty);
	cluster_release(&nd->whole);
}

void sim_faults_clone(struct sim_faults *f, const struct sim_faults *s, size_t nn)
{
	*f = *s;
	f->list = sim_copy_of(s->list, s->n, s->n, sizeof *f->list);
	for (size_t i = 0; i < s->n; i++)
		f->list[i].nodes = sim_copy_of(s->list[i].nodes, s->list[i].nnodes,
					       s->list[i].nnodes, sizeof *f->list[i].nodes);
	f->on = s->on ? sim_copy_of(s->on, nn, nn, sizeof *f->on) : NULL;
	f->down = s->down ? sim_copy_of(s->down, nn, nn, sizeof *f->down) : NULL;
}

void sim_faults_release(struct sim_faults *ft)
{
	for (size_t i = 0; i < ft->n; i++)
		free(ft->list[i].nodes);
	FREE_ALL(ft->list, ft->on, ft->down);
}
