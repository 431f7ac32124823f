/*
 * trace-pai.c — Alibaba gpu-v2020 (PAI): header-less job, task and instance tables and
 * pai_machine_spec.csv. Column names are those of the published pai_*.header files.
 *
 * Tasks (pai_task_table) make the jobs, one voidfit job per task of W = inst_num workers (an
 * instance is what the scheduler places; a task's instances are one distributed job, started
 * together: a gang when inst_num > 1), each worker with the task's per-instance plan:
 *   cpu = plan_cpu * 10 millicores (100 = one core), mem = plan_mem GB * 1024 MiB,
 *   GPUs from plan_gpu (100 = one GPU): <= 100 is one GPU at share plan_gpu * 10; more is
 *   ceil(plan_gpu / 100) whole GPUs; empty = none. gpu_type names the allowed model
 *   (a name the GPU table does not know allows any).
 *   arrival = start_time; duration = end_time - start_time (s); 0 or empty = missing:
 *   no start = never ran (arrival 0, JOB_F_NOTRAN); no end = no end in the window
 *   (duration -1, JOB_F_NOTRAN).
 *   class = GPU: train; no GPU: cpu.
 * Job and instance tables are kept raw and counted (field count checked), not mapped.
 * Machines: machine,gpu_type,cap_cpu (cores),cap_mem (GB),cap_gpu (count); gpu_type CPU
 * means no GPUs.
 */
#include <string.h>

#include "gpumodel.h"
#include "trace.h"

/* An instance count beyond this is a corrupt row, not a task. */
#define PAI_MAX_INST 100000

enum { T_JOB, T_TASK, T_INST, T_STATUS, T_START, T_END, T_CPU, T_MEM, T_GPU, T_TYPE };

static const char *const task_cols[] = {"job_name",   "task_name", "inst_num", "status",
					"start_time", "end_time",  "plan_cpu", "plan_mem",
					"plan_gpu",   "gpu_type",  NULL};

static int task_job(struct trace_reader *rd, const struct csvin_rec *r, struct job *j)
{
	int64_t inst, start, end, gpu;
	int rc;
	const struct trace_amount_of a[] = {{T_INST, 1, &inst},
					    {T_START, 1, &start},
					    {T_END, 1, &end},
					    {T_CPU, 10, &j->dem[DIM_CPU]},
					    {T_MEM, 1024, &j->dem[DIM_MEM]},
					    {T_GPU, 10, &gpu}};
	if ((rc = trace_amounts(rd, r, a, sizeof a / sizeof *a)))
		return rc;
	if (inst < 1)
		return trace_bad(rd, "column 'inst_num': no instances");
	if (inst > PAI_MAX_INST)
		return trace_bad(rd, "column 'inst_num': %lld instances", (long long)inst);
	if (gpu <= 0)
		rc = trace_job_gpus(rd, j, 0, 0);
	else if (gpu <= 1000)
		rc = trace_job_gpus(rd, j, 1, gpu);
	else
		rc = trace_job_gpus(rd, j, (gpu + 999) / 1000, 1000);
	if (rc)
		return rc;
	j->cls = j->num_gpu ? JOB_TRAIN : JOB_CPU;
	j->workers = (int32_t)inst;
	const char *type = trace_field(rd, r, T_TYPE);
	int id = type ? gpumodel_find(type) : -1;
	if (id >= 0 && id < 32 && !gpumodel_get(id)->is_default)
		j->gpu_spec = 1u << id;
	j->arrival = start > 0 ? start : 0;
	if (start <= 0 || end <= 0) { /* never ran, or no end in the window */
		j->flags |= JOB_F_NOTRAN;
		return 0;
	}
	return trace_job_span(rd, j, start, end, "start_time", "end_time");
}

const struct trace_format trace_pai_task = {
	.name = "pai-task",
	.summary = "Alibaba gpu-v2020 pai_task_table (no header): the jobs",
	.kind = TRACE_JOBS,
	TRACE_BY_POSITION(task_cols, "..owooo...", NULL),
	.job = task_job,
};

static const char *const job_cols[] = {"job_name",   "inst_id",  "user", "status",
				       "start_time", "end_time", NULL};

const struct trace_format trace_pai_job = {
	.name = "pai-job",
	.summary = "Alibaba gpu-v2020 pai_job_table (no header): kept raw",
	.kind = TRACE_AUX,
	TRACE_BY_POSITION(job_cols, "t..woo", NULL),
};

static const char *const inst_cols[] = {"job_name", "task_name", "inst_name",  "worker_name",
					"inst_id",  "status",    "start_time", "end_time",
					"machine",  NULL};

const struct trace_format trace_pai_instance = {
	.name = "pai-instance",
	.summary = "Alibaba gpu-v2020 pai_instance_table (no header): kept raw",
	.kind = TRACE_AUX,
	TRACE_BY_POSITION(inst_cols, ".t...woo.", NULL),
};

enum { M_NAME, M_TYPE, M_CPU, M_MEM, M_GPU };

static const char *const machine_cols[] = {"machine", "gpu_type", "cap_cpu",
					   "cap_mem", "cap_gpu",  NULL};

static const struct trace_node_cols machine_row = {M_NAME, M_CPU, M_MEM, M_GPU, M_TYPE, 1000, 1024};

const struct trace_format trace_pai_machine = {
	.name = "pai-machine",
	.summary = "Alibaba gpu-v2020 pai_machine_spec.csv (no header): the nodes",
	.kind = TRACE_NODES,
	TRACE_BY_POSITION(machine_cols, ".wnnn", NULL),
	.node_cols = &machine_row,
};
