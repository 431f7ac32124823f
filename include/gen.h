/*
 * gen.h — synthetic traces for the standard scenarios, in voidfit's native CSV formats.
 *
 * A scenario fixes the node groups (shares of --nodes), the job mix by class, GPU shares,
 * durations, storage/network demand levels, the offered GPU load, and (hard) faults; llm's
 * jobs are of four kinds instead (training gangs, fine-tuning, inference, evaluation) and
 * its jobs file has a workers column. The
 * output depends only on (scenario, jobs, nodes, seed): the same arguments give the same
 * bytes. Jobs are generated twice from the same seeded stream (a first pass sums GPU-time
 * to set the arrival rate), so nothing is held in memory.
 */
#ifndef VOIDFIT_GEN_H
#define VOIDFIT_GEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util.h"

enum gen_scenario {
	GEN_BALANCED,
	GEN_IRREGULAR,
	GEN_STORAGE_STRESS,
	GEN_HARD,
	GEN_LLM,
	GEN_NSCENARIO,
};

#define GEN_MAX_JOBS  100000000 /* --jobs limit */
#define GEN_MAX_NODES 1000000   /* --nodes limit */

/* The exact CSV headers of the native formats. */
#define GEN_JOBS_HEADER                                                                            \
	"job,arrival,duration,class,cpu_milli,mem_mib,num_gpu,gpu_milli,hbm_mib,net_mbps,"         \
	"sto_mbps,iocpu_milli,gpu_spec"
/* The jobs header of a scenario with gangs (llm): a last column, workers. */
#define GEN_JOBS_HEADER_GANG GEN_JOBS_HEADER ",workers"
#define GEN_NODES_HEADER                                                                           \
	"node,group,model,cpu_milli,mem_mib,gpu,hbm_mib,net_mbps,sto_mbps,iocpu_milli"

struct gen_params {
	int scenario;   /* enum gen_scenario */
	int64_t njobs;  /* 1..GEN_MAX_JOBS */
	int64_t nnodes; /* 1..GEN_MAX_NODES */
	uint64_t seed;
	/* 0, or the jobs draw their requests (class, GPUs, cpu, mem, HBM, net, sto, iocpu,
	 * GPU models) from this many templates, the k-th of popularity 1/k (Zipf), and only
	 * their durations and arrivals each: 1..GEN_MAX_TEMPLATES */
	int64_t templates;
};
#define GEN_MAX_TEMPLATES 1000000

/* "balanced", "irregular", "storage-stress", "hard", "llm"; s < GEN_NSCENARIO. */
const char *gen_scenario_name(int s);
/* One line describing scenario s. */
const char *gen_scenario_summary(int s);
/* The scenario named name, or -1. */
int gen_scenario_find(const char *name);

/* Write the nodes / jobs / faults of p to f (faults: only lines of comment unless the
 * scenario has faults). Return 0, or VF_EIO if writing fails (message names fname). */
int gen_write_nodes(const struct gen_params *p, FILE *f, const char *fname, struct err *e);
int gen_write_jobs(const struct gen_params *p, FILE *f, const char *fname, struct err *e);
int gen_write_faults(const struct gen_params *p, FILE *f, const char *fname, struct err *e);

#define GEN_MAX_FILES 3 /* the most files gen_write writes */

/* The names of the files gen_write writes for scenario (< GEN_NSCENARIO), in the order it
 * writes them, into names; returns how many. */
size_t gen_files(int scenario, const char *names[GEN_MAX_FILES]);

/* Write dir/jobs.csv, dir/nodes.csv and, for a scenario with faults, dir/faults.txt
 * (creating dir if missing; each file written under a temporary name, then renamed; a
 * faults.txt left in dir by an earlier run is removed for scenarios without faults).
 * Returns 0, VF_EINPUT for bad parameters, or VF_EIO. */
int gen_write(const struct gen_params *p, const char *dir, struct err *e);

#endif
