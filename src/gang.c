/*
 * gang.c — the gangs of a job set, counted (gang.h).
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
