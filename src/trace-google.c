/*
 * trace-google.c — Google cluster-usage trace 2011: task_events and machine_events
 * (header-less, many part files, times in microseconds).
 *
 * task_events is stateful. One voidfit job per task (job ID, task index):
 *   arrival  = its first SUBMIT (or, if the trace starts later, its first event), in s;
 *   duration = the sum of its running spells, SCHEDULE -> EVICT | FAIL | FINISH | KILL |
 *              LOST, in s; a task still running when the trace ends runs to the last
 *              timestamp seen; never scheduled = -1, JOB_F_NOTRAN;
 *   demand   = the latest CPU / memory request, normalised 0-1, times GOOGLE_CPU_MILLI /
 *              GOOGLE_MEM_MIB; class cpu (the 2011 trace has no GPUs).
 * A task is emitted at FINISH, KILL or LOST (after EVICT and FAIL it may be resubmitted),
 * and the rest at the end of the import, so memory holds only the tasks alive at once and
 * a task whose events span part files comes out whole.
 *
 * Invariants of the task table: open addressing with linear probing, load <= 1/2, no
 * tombstones (removal shifts the following entries back).
 *
 * machine_events: timestamp,machine ID,event type (0 ADD, 1 REMOVE, 2 UPDATE),platform
 * ID,CPUs,memory. A machine's first ADD makes its node; other rows are counted.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

/* A normalised 1.0: assumed machine sizes (the trace hides them), documented in the man
 * page; the raw values are kept. */
#define GOOGLE_CPU_MILLI 32000  /* 32 cores */
#define GOOGLE_MEM_MIB   131072 /* 128 GiB */

enum {
	EV_SUBMIT,
	EV_SCHEDULE,
	EV_EVICT,
	EV_FAIL,
	EV_FINISH,
	EV_KILL,
	EV_LOST,
	EV_UPDATE_PENDING,
	EV_UPDATE_RUNNING
};

struct gtask {
	int64_t jobid, index; /* key; jobid -1 = empty slot */
	double submit;        /* s */
	double sched;         /* start of the current running spell, -1 when not running */
	double run;           /* s run so far */
	double cpu, mem;      /* latest normalised requests, -1 unknown */
};

struct gstate {
	struct gtask *t;
	size_t cap, n;
	double last; /* latest timestamp seen, s */
};

static const char *const task_cols[] = {"timestamp",
					"missing_info",
					"job_id",
					"task_index",
					"machine_id",
					"event_type",
					"user",
					"scheduling_class",
					"priority",
					"cpu_request",
					"memory_request",
					"disk_space_request",
					"different_machine_restriction",
					NULL};

static size_t slot_of(const struct gstate *s, int64_t jobid, int64_t index)
{
	uint64_t h = (uint64_t)jobid * 0x9e3779b97f4a7c15u ^ (uint64_t)index * 0xc2b2ae3d27d4eb4fu;
	return (size_t)(h ^ (h >> 29)) & (s->cap - 1);
}

static void grow(struct gstate *s)
{
	size_t cap = s->cap ? 2 * s->cap : 1024;
	struct gtask *old = s->t;
	size_t oldcap = s->cap;
	s->t = xmalloc(cap * sizeof *s->t);
	for (size_t i = 0; i < cap; i++)
		s->t[i].jobid = -1;
	s->cap = cap;
	for (size_t i = 0; i < oldcap; i++) {
		if (old[i].jobid < 0)
			continue;
		size_t j = slot_of(s, old[i].jobid, old[i].index);
		while (s->t[j].jobid >= 0)
			j = (j + 1) & (cap - 1);
		s->t[j] = old[i];
	}
	free(old);
}

/* The task's slot, created (with submit time t) if absent. */
static struct gtask *task_get(struct gstate *s, int64_t jobid, int64_t index, double t)
{
	if (2 * (s->n + 1) > s->cap)
		grow(s);
	size_t j = slot_of(s, jobid, index);
	for (; s->t[j].jobid >= 0; j = (j + 1) & (s->cap - 1))
		if (s->t[j].jobid == jobid && s->t[j].index == index)
			return &s->t[j];
	struct gtask *g = &s->t[j];
	g->jobid = jobid;
	g->index = index;
	g->submit = t;
	g->sched = -1;
	g->run = 0;
	g->cpu = g->mem = -1;
	s->n++;
	return g;
}

static void task_remove(struct gstate *s, struct gtask *g)
{
	size_t i = (size_t)(g - s->t);
	s->t[i].jobid = -1;
	s->n--;
	/* backward shift: move up every following entry whose home is not in (i, j] */
	for (size_t j = (i + 1) & (s->cap - 1); s->t[j].jobid >= 0; j = (j + 1) & (s->cap - 1)) {
		size_t home = slot_of(s, s->t[j].jobid, s->t[j].index);
		int keep = i <= j ? (i < home && home <= j) : (i < home || home <= j);
		if (keep)
			continue;
		s->t[i] = s->t[j];
		s->t[j].jobid = -1;
		i = j;
	}
}

static int emit(struct trace_reader *rd, const struct gtask *g, struct err *e)
{
	struct job j;
	job_init(&j);
	j.arrival = trace_round(g->submit);
	if (g->run > 0 || g->sched != -1) /* it ran: -2 marks a spell just ended */
		j.duration = trace_round(g->run);
	else
		j.flags |= JOB_F_NOTRAN;
	j.dem[DIM_CPU] = g->cpu < 0 ? -1 : trace_round(g->cpu * GOOGLE_CPU_MILLI);
	j.dem[DIM_MEM] = g->mem < 0 ? -1 : trace_round(g->mem * GOOGLE_MEM_MIB);
	trace_job_gpus(rd, &j, 0, 0);
	j.dem[DIM_HBM] = 0;
	j.cls = JOB_CPU;
	return trace_emit_job(rd, &j, e);
}

static void task_close(struct trace_reader *rd)
{
	struct gstate *s = rd->state;
	free(s->t);
}

/* Its event type (cells: a number) is one of task_events' (0-8). */
static int task_sniff(const struct csvin_rec *r)
{
	double ev;
	return !parse_double(r->field[5], &ev) && ev >= 0 && ev <= 8;
}

/* Field f (read as v) as an ID, exactly: a double holds every integer only up to 2^53, so
 * past that the digits are read as they are. -1 if it is not a whole number below 2^63. */
static int exact_id(const char *f, double v, int64_t *out)
{
	if (v != floor(v) || v >= 0x1p63)
		return -1;
	if (v < 0x1p53) {
		*out = (int64_t)v;
		return 0;
	}
	return parse_i64(f, out) ? -1 : 0;
}

static int task_row(struct trace_reader *rd, const struct csvin_rec *r, struct err *e)
{
	struct gstate *s = rd->state;
	double ts, job, idx, ev, cpu = -1, mem = -1;
	int rc;
	if ((rc = trace_num(rd, r, 0, &ts)) || (rc = trace_num(rd, r, 2, &job)) ||
	    (rc = trace_num(rd, r, 3, &idx)) || (rc = trace_num(rd, r, 5, &ev)))
		return rc == 1 ? trace_bad(rd, "timestamp, job ID, task index or event type is "
					       "empty")
			       : rc;
	if ((rc = trace_num(rd, r, 9, &cpu)) == TRACE_BAD ||
	    (rc = trace_num(rd, r, 10, &mem)) == TRACE_BAD)
		return rc;
	if (ts < 0 || job < 0 || idx < 0 || cpu < -1 || mem < -1)
		return trace_bad(rd, "negative timestamp, ID or request");
	int64_t jid, tix;
	if (exact_id(r->field[2], job, &jid) || exact_id(r->field[3], idx, &tix))
		return trace_bad(rd, "job ID or task index is not a whole number below 2^63");
	if (ev != floor(ev) || ev > EV_UPDATE_RUNNING)
		return trace_bad(rd, "column 'event_type': %g is not an event (0-8)", ev);
	double t = ts / 1e6;
	if (t > 1e12) /* 2^63-1 µs: "after the end of the trace" */
		t = s->last;
	if (t > s->last)
		s->last = t;
	struct gtask *g = task_get(s, jid, tix, t);
	if (cpu >= 0)
		g->cpu = cpu;
	if (mem >= 0)
		g->mem = mem;
	switch ((int)ev) {
	case EV_SCHEDULE:
		if (g->sched < 0)
			g->sched = t;
		return 0;
	case EV_EVICT:
	case EV_FAIL:
		if (g->sched >= 0)
			g->run += t - g->sched;
		g->sched = -1;
		return 0;
	case EV_FINISH:
	case EV_KILL:
	case EV_LOST:
		if (g->sched >= 0) {
			g->run += t - g->sched;
			g->sched = -2; /* ran, now over: emit gives it a duration */
		}
		rc = emit(rd, g, e);
		task_remove(s, g);
		return rc;
	default:
		return 0;
	}
}

static int by_submit(const void *a, const void *b)
{
	const struct gtask *x = a, *y = b;
	int c = util_cmp_double(x->submit, y->submit);
	if (!c)
		c = util_cmp_i64(x->jobid, y->jobid);
	return c ? c : util_cmp_i64(x->index, y->index);
}

/* The tasks still open at the end, in (submit, job ID, task index) order, so the job ids
 * do not depend on the hash table. */
static int task_finish(struct trace_reader *rd, struct err *e)
{
	struct gstate *s = rd->state;
	size_t n = 0;
	int rc = 0;
	for (size_t i = 0; i < s->cap; i++)
		if (s->t[i].jobid >= 0)
			s->t[n++] = s->t[i];
	if (n)
		qsort(s->t, n, sizeof *s->t, by_submit);
	for (size_t i = 0; i < n && !rc; i++) {
		struct gtask *g = &s->t[i];
		if (g->sched >= 0)
			g->run += s->last - g->sched;
		rc = emit(rd, g, e);
	}
	free(s->t);
	memset(s, 0, sizeof *s);
	return rc;
}

const struct trace_format trace_google_task = {
	.name = "google-task",
	.summary = "Google 2011 task_events part files (no header); stateful across parts",
	.kind = TRACE_JOBS,
	TRACE_BY_POSITION(task_cols, "n.nn.n.......", task_sniff),
	.state_size = sizeof(struct gstate),
	.row = task_row,
	.finish = task_finish,
	.close = task_close,
};

static const char *const machine_cols[] = {"timestamp", "machine_id", "event_type", "platform_id",
					   "cpus",      "memory",     NULL};

/* Its event type (cells: a number) is one of machine_events' (0-2). */
static int machine_sniff(const struct csvin_rec *r)
{
	double ev;
	return !parse_double(r->field[2], &ev) && ev >= 0 && ev <= 2;
}

static int machine_row(struct trace_reader *rd, const struct csvin_rec *r, struct err *e)
{
	int64_t ev, cpu, mem;
	int rc;
	const struct trace_amount_of a[] = {
		{2, 1, &ev}, {4, GOOGLE_CPU_MILLI, &cpu}, {5, GOOGLE_MEM_MIB, &mem}};
	if ((rc = trace_amounts(rd, r, a, sizeof a / sizeof *a)))
		return rc;
	const char *id = trace_field(rd, r, 1);
	if (!id || ev < 0 || ev > 2)
		return trace_bad(rd, "no machine ID, or an event type other than 0, 1, 2");
	return trace_cpu_node(rd, id, "machine ID", ev == 0, cpu, mem, e);
}

static void machine_close(struct trace_reader *rd)
{
	trace_nameset_free(rd->state);
}

const struct trace_format trace_google_machine = {
	.name = "google-machine",
	.summary = "Google 2011 machine_events part files (no header): the nodes",
	.kind = TRACE_NODES,
	TRACE_BY_POSITION(machine_cols, "nnn...", machine_sniff),
	.row = machine_row,
	.close = machine_close,
};
