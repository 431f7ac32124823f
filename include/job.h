/*
 * job.h — the resource model: the seven dimensions, a job's demand, a node's capacity, and
 * a job set (the jobs and nodes of one trace, in memory).
 *
 * Units (DESIGN.md section 2): cpu millicores, mem MiB, gpu GPU-milli (1000 = one GPU),
 * hbm MiB of GPU memory, net and sto MB/s, iocpu millicores. A value of -1 in a demand or a
 * capacity means "not recorded" (kept distinct from 0); enrichment fills it before a replay.
 */
#ifndef VOIDFIT_JOB_H
#define VOIDFIT_JOB_H

#include <stddef.h>
#include <stdint.h>

enum dim { DIM_CPU, DIM_MEM, DIM_GPU, DIM_HBM, DIM_NET, DIM_STO, DIM_IOCPU, DIM_N };

#define DIM_BIT(d) (1u << (d))
/* Hard dimensions are never overcommitted; shared ones may be, and then contend. */
#define DIMS_HARD   (DIM_BIT(DIM_CPU) | DIM_BIT(DIM_MEM) | DIM_BIT(DIM_GPU) | DIM_BIT(DIM_HBM))
#define DIMS_SHARED (DIM_BIT(DIM_NET) | DIM_BIT(DIM_STO) | DIM_BIT(DIM_IOCPU))
#define DIMS_ALL    (DIMS_HARD | DIMS_SHARED)

/* Job classes, in priority order (online inference first). */
enum job_class { JOB_INFER, JOB_TRAIN, JOB_BATCH, JOB_CPU, JOB_NCLASS };

struct job {
	int64_t id;         /* index in its trace, from 0, stable across loads */
	int64_t arrival;    /* seconds from the trace's start */
	int64_t duration;   /* seconds of running alone; -1 = never ran (kept, not replayed) */
	int64_t dem[DIM_N]; /* demand; gpu and hbm are totals over the job's GPUs; -1 = unknown */
	int32_t num_gpu;    /* GPUs wanted; 0 = CPU only */
	int32_t gpu_milli;  /* share of each of those GPUs, 1..1000 (1000 for whole GPUs) */
	uint32_t gpu_spec;  /* bitmask of allowed GPU model ids (gpumodel.h); 0 = any model */
	int32_t workers;    /* W: the workers that start and end together, each with all of the
			     * demand above (per worker); 1 = a one-node job, 0 read as 1
			     * (job_workers) so a zeroed job is one; at most JOB_WORKERS_MAX */
	uint8_t cls;        /* enum job_class */
	uint8_t enriched;   /* DIM_BIT()s of the dims enrichment filled in */
	uint16_t flags;     /* JOB_F_* */
};

/* The most workers a job may have: more is a damaged row, not a job (the largest public
 * traces' gangs are a few thousand nodes). */
#define JOB_WORKERS_MAX 65536

enum {
	JOB_F_NOTRAN = 1, /* the trace says the job never ran (no duration) */
};

#define NODE_NAME_MAX 48

struct node {
	char name[NODE_NAME_MAX]; /* from the trace, or group-index for a cluster spec */
	char group[24];           /* node group (cluster spec) or "" */
	char rack[32];            /* rack or network switch under which it sits, or "" (none
				   * said): a gang under one switch talks faster (sim.h) */
	int64_t cap[DIM_N];       /* capacity; gpu = ngpu*1000, hbm = total MiB; -1 = unknown */
	int32_t ngpu;             /* physical GPUs */
	int16_t model;            /* gpumodel id, -1 for a node without GPUs */
	uint8_t enriched;         /* DIM_BIT()s of the capacities enrichment filled in */
};

/* The jobs and nodes of one trace, as loaded into memory. */
struct job_set {
	struct job *jobs; /* njobs jobs, in arrival order (ties: trace order) */
	size_t njobs, jobcap;
	struct node *nodes; /* nnodes nodes, in trace order */
	size_t nnodes, nodecap;
};

/* Append a copy of *j / *n; never fails (dies on out of memory). */
void job_set_add_job(struct job_set *s, const struct job *j);
void job_set_add_node(struct job_set *s, const struct node *n);
/* Free the arrays; s may be NULL; leaves s empty. */
void job_set_release(struct job_set *s);
/* Room for at least njobs jobs in s->jobs (kept ones kept), in one xmalloc_big; never
 * fails. For a loader that knows the count: no doubling series of copies. */
void job_set_reserve(struct job_set *s, size_t njobs);

/* "cpu", "mem", "gpu", "hbm", "net", "sto", "iocpu"; dim < DIM_N. */
const char *job_dim_name(enum dim d);
/* The dim named s, or -1. */
int job_dim_find(const char *s);
/* Parse "cpu,mem,gpu" (or "all", "hard") into a DIM_BIT mask; 0 on success, -1 if bad. */
int job_dims_parse(const char *s, uint32_t *mask);
/* "infer", "train", "batch", "cpu". */
const char *job_class_name(enum job_class c);
/* W of j: its workers, 1 for a job that names none (0). */
static inline int32_t job_workers(const struct job *j)
{
	return j->workers > 1 ? j->workers : 1;
}
/* Is j a gang (W > 1: needs W nodes' worth of workers started at once)? */
static inline int job_is_gang(const struct job *j)
{
	return j->workers > 1;
}
/* A job with every demand unknown (-1), duration -1, class JOB_BATCH, gpu_milli 0, one
 * worker. */
void job_init(struct job *j);
void node_init(struct node *n);

#endif
