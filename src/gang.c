/*
 * gang.c — gang jobs in a replay before the engine places them (gang.h): held out of the run,
 * unplaceable, each with a reason a planner reads.
 *
 * Why a demand no node holds, and not a job left out: the sim then counts the gang among the
 * jobs that arrived and never ran (its unplaceable count, its per-job row), and the window,
 * the arrivals and every other job's fate are what they are with the gang in the trace.
 */
#include "gang.h"

void gang_count(const struct job_set *js, struct gang_count *c)
{
	c->jobs = 0;
	c->max_workers = 0;
	for (size_t i = 0; i < js->njobs; i++) {
		const struct job *j = &js->jobs[i];
		if (!job_is_gang(j))
			continue;
		c->jobs++;
		if (job_workers(j) > c->max_workers)
			c->max_workers = job_workers(j);
	}
}

int64_t gang_hold(struct job_set *js)
{
	int64_t cpu_max = 0, held = 0;
	for (size_t i = 0; i < js->nnodes; i++)
		if (js->nodes[i].cap[DIM_CPU] > cpu_max)
			cpu_max = js->nodes[i].cap[DIM_CPU];
	for (size_t i = 0; i < js->njobs; i++) {
		struct job *j = &js->jobs[i];
		if (!job_is_gang(j))
			continue;
		j->dem[DIM_CPU] = cpu_max + 1;
		held++;
	}
	return held;
}
