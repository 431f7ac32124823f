/*
 * sim-idle.c — the simulator's idle part (sim-int.h): why free GPUs idle now, what the run
 * carries over past its window, and the buckets of GPU time (sim.h, enum sim_bucket).
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim-int.h"

/* Waiting GPU jobs after the first that sim_classify_idle tries, under fifo. */
#define IDLE_LOOKAHEAD 16

/* Does j fit on some node now (hard dims, GPU shape and I/O admission; a policy could place
 * it)? */
static int fits_now(const struct sim *s, const struct job *j)
{
	struct placement p;
	for (size_t n = cluster_next_fit(&s->c, 0, j); n < s->c.n;
	     n = cluster_next_fit(&s->c, n + 1, j))
		if (admits(s->pol.admit, &s->c.st[n], j) && cluster_first_choice(&s->c, n, j, &p))
			return 1;
	return 0;
}

/* Why GPU job j, which fits nowhere now, cannot use the free GPUs of the models it allows. */
static int blocked_cause(const struct sim *s, const struct job *j)
{
	/* the GPU shape alone: cpu, mem or a dim under admission is what a node lacks */
	struct job relaxed = *j;
	relaxed.dem[DIM_CPU] = relaxed.dem[DIM_MEM] = 0;
	for (int d = DIM_NET; d < DIM_N; d++)
		if (s->pol.admit & DIM_BIT(d))
			relaxed.dem[d] = 0;
	if (fits_now(s, &relaxed))
		return SIM_B_DIM;
	int64_t free = 0;
	for (int i = 0; i < s->node.nmodels; i++) {
		int m = s->node.models[i];
		if (!j->gpu_spec || ((j->gpu_spec >> m) & 1))
			free += s->k.gpu_cap[m] - s->node.alloc_now[m];
	}
	return free >= job_gpu(j) ? SIM_B_SHAPE : SIM_B_FULL;
}

/* Decide why free GPUs idle now: the first waiting GPU job in the queue's order decides it
 * (QUEUE if it fits now, or under fifo if one of the next IDLE_LOOKAHEAD waiting GPU jobs
 * does), and UNNEEDED when no GPU job waits. */
void sim_classify_idle(struct sim *s)
{
	const struct job *head = NULL;
	size_t h = 0;
	s->idle.stale = 0;
	s->idle.cause = SIM_B_UNNEEDED;
	s->idle.cls = SIM_CLS_NONE;
	s->idle.mask = 0;
	for (; h < s->wq.nwait && !head; h++) {
		const struct job *j = src_job(s, &s->inst.jobs[s->wq.wait[h]]);
		if (job_gpu(j) > 0)
			head = j;
	}
	if (!head)
		return;
	s->idle.cls = (uint8_t)cls_of(head);
	s->idle.mask = head->gpu_spec;
	/* the pass tried every waiting job but those behind a fifo head: they alone may fit */
	int tried = s->o.queue != SIM_FIFO || h == 1;
	if (!tried && fits_now(s, head)) {
		s->idle.cause = SIM_B_QUEUE;
		return;
	}
	s->idle.cause = (uint8_t)blocked_cause(s, head);
	if (s->o.queue != SIM_FIFO)
		return;
	for (size_t i = h, k = 0; i < s->wq.nwait && k < IDLE_LOOKAHEAD; i++) {
		const struct job *b = src_job(s, &s->inst.jobs[s->wq.wait[i]]);
		if (job_gpu(b) == 0)
			continue;
		k++;
		if (fits_now(s, b)) {
			s->idle.cause = SIM_B_QUEUE;
			s->idle.cls = (uint8_t)cls_of(b);
			s->idle.mask = b->gpu_spec;
			return;
		}
	}
}

/* The clock passes the window's end: count the work still running or waiting there. */
void sim_carry_over(struct sim *s)
{
	int64_t t = s->k.now, jobs = 0;
	double ms = 0;
	for (size_t n = 0; n < s->c.n; n++) {
		const struct node_state *st = &s->c.st[n];
		for (int32_t i = 0; i < st->njobs; i++) {
			const struct sjob *sj = &s->inst.jobs[st->jobs[i]];
			struct srun ru = run_now(s, sj);
			double w = ru.work - ru.rate * (double)(t - ru.t_upd);
			jobs++;
			ms += (double)job_gpu(src_job(s, sj)) * (w > 0 ? w : 0);
		}
	}
	for (size_t i = 0; i < s->wq.nwait; i++) {
		const struct job *j = src_job(s, &s->inst.jobs[s->wq.wait[i]]);
		jobs++;
		ms += (double)job_gpu(j) * (double)(j->duration > 0 ? j->duration : 0);
	}
	s->k.carry_jobs = jobs;
	s->k.carry_gpu_ms = ms;
}

const char *sim_bucket_name(enum sim_bucket b)
{
	static const char *const n[SIM_NBUCKET] = {"productive",    "stalled",      "lost",
						   "blocked_shape", "blocked_dim",  "blocked_model",
						   "blocked_queue", "blocked_full", "unneeded"};
	return (unsigned)b < SIM_NBUCKET ? n[b] : "?";
}

void sim_buckets(const struct sim_counters *k, int over, struct sim_bucket_ms *out)
{
	memset(out, 0, sizeof *out);
	/* a run over before the window's end: nothing waits in the rest of it */
	int64_t from = k->now > k->w0 ? k->now : k->w0;
	int64_t rest = over && k->w1 > from ? k->w1 - from : 0;
	for (int m = 0; m < GPUMODEL_MAX; m++) {
		for (int c = 0; c < JOB_NCLASS; c++) {
			int64_t alloc = k->win_alloc_ms[m][c];
			int64_t st = llround(k->win_stall_ms[m][c]);
			st = st < 0 ? 0 : st > alloc ? alloc : st;
			int64_t lost = k->win_lost_ms[m][c];
			lost = lost > alloc - st ? alloc - st : lost;
			out->ms[m][c][SIM_B_STALLED] = st;
			out->ms[m][c][SIM_B_LOST] = lost;
			out->ms[m][c][SIM_B_PRODUCTIVE] = alloc - st - lost;
		}
		for (int c = 0; c <= JOB_NCLASS; c++)
			for (int b = SIM_B_IDLE0; b < SIM_NBUCKET; b++)
				out->ms[m][c][b] = k->win_idle_ms[m][c][b - SIM_B_IDLE0];
		out->ms[m][SIM_CLS_NONE][SIM_B_UNNEEDED] += k->gpu_cap[m] * rest;
	}
}
