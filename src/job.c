/*
 * job.c — job sets, and the names of dimensions and classes.
 */
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "util.h"

static const char *const dim_names[DIM_N] = {"cpu", "mem", "gpu", "hbm", "net", "sto", "iocpu"};
static const char *const class_names[JOB_NCLASS] = {"infer", "train", "batch", "cpu"};

void job_set_add_job(struct job_set *s, const struct job *j)
{
	xgrow(&s->jobs, &s->jobcap, s->njobs + 1, sizeof *s->jobs);
	s->jobs[s->njobs++] = *j;
}

void job_set_reserve(struct job_set *s, size_t njobs)
{
	if (njobs <= s->jobcap)
		return;
	struct job *a = xmalloc_big(njobs * sizeof *a);
	if (s->njobs)
		memcpy(a, s->jobs, s->njobs * sizeof *a);
	free(s->jobs);
	s->jobs = a;
	s->jobcap = njobs;
}

void job_set_add_node(struct job_set *s, const struct node *n)
{
	xgrow(&s->nodes, &s->nodecap, s->nnodes + 1, sizeof *s->nodes);
	s->nodes[s->nnodes++] = *n;
}

void job_set_release(struct job_set *s)
{
	if (!s)
		return;
	FREE_ALL(s->jobs, s->nodes);
	memset(s, 0, sizeof *s);
}

const char *job_dim_name(enum dim d)
{
	return dim_names[d];
}

int job_dim_find(const char *s)
{
	for (int d = 0; d < DIM_N; d++)
		if (!strcmp(s, dim_names[d]))
			return d;
	return -1;
}

int job_dims_parse(const char *s, uint32_t *mask)
{
	uint32_t m = 0;
	char buf[128];
	if (!s || strlen(s) >= sizeof buf)
		return -1;
	strcpy(buf, s);
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int d = job_dim_find(t);
		if (d >= 0)
			m |= DIM_BIT(d);
		else if (!strcmp(t, "all"))
			m |= DIMS_ALL;
		else if (!strcmp(t, "hard"))
			m |= DIMS_HARD;
		else if (!strcmp(t, "shared"))
			m |= DIMS_SHARED;
		else
			return -1;
	}
	if (!m)
		return -1;
	*mask = m;
	return 0;
}

const char *job_class_name(enum job_class c)
{
	return c < JOB_NCLASS ? class_names[c] : "?";
}

void job_init(struct job *j)
{
	memset(j, 0, sizeof *j);
	for (int d = 0; d < DIM_N; d++)
		j->dem[d] = -1;
	j->duration = -1;
	j->cls = JOB_BATCH;
	j->workers = 1;
}

void node_init(struct node *n)
{
	memset(n, 0, sizeof *n);
	for (int d = 0; d < DIM_N; d++)
		n->cap[d] = -1;
	n->model = -1;
}
