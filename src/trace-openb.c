/*
 * trace-openb.c — Alibaba gpu-v2023 ("openb"): pod lists and node lists.
 *
 * Pods: name,cpu_milli,memory_mib,num_gpu,gpu_milli, then the optional gpu_spec,qos,
 * pod_phase,creation_time,deletion_time,scheduled_time (times in s): public variants of the
 * trace lack some or all of them.
 *   arrival  = creation_time (0 without that column)
 *   duration = deletion_time - scheduled_time; empty scheduled_time = never ran
 *              (-1, JOB_F_NOTRAN); without either column: -1 (unknown, not flagged)
 *   demand   = cpu_milli, memory_mib, gpu = num_gpu * gpu_milli; gpu_spec = allowed models
 *              (without it: any)
 *   class    = no GPU: cpu; LS: infer; BE: batch; Guaranteed, Burstable, other or no qos
 *              column: train
 * Nodes: sn,cpu_milli,memory_mib,gpu,model (gpu = GPU count; HBM from the model table).
 */
#include <string.h>

#include "gpumodel.h"
#include "trace.h"

enum { P_NAME, P_CPU, P_MEM, P_NGPU, P_MILLI, P_SPEC, P_QOS, P_PHASE, P_CREATE, P_DELETE, P_SCHED };

static const char *const pod_cols[] = {
	"name", "cpu_milli", "memory_mib",    "num_gpu",       "gpu_milli",      "gpu_spec",
	"qos",  "pod_phase", "creation_time", "deletion_time", "scheduled_time", NULL};

static int pods_job(struct trace_reader *rd, const struct csvin_rec *r, struct job *j)
{
	int64_t ngpu, milli, create, del, sched;
	int rc;
	const struct trace_amount_of a[] = {
		{P_CPU, 1, &j->dem[DIM_CPU]}, {P_MEM, 1, &j->dem[DIM_MEM]}, {P_NGPU, 1, &ngpu},
		{P_MILLI, 1, &milli},         {P_CREATE, 1, &create},       {P_DELETE, 1, &del},
		{P_SCHED, 1, &sched}};
	if ((rc = trace_amounts(rd, r, a, sizeof a / sizeof *a)))
		return rc;
	if (ngpu < 0)
		ngpu = 0;
	if ((rc = trace_job_gpus(rd, j, ngpu, ngpu ? milli : 0)))
		return rc;
	const char *spec = trace_field(rd, r, P_SPEC);
	if (spec && (rc = trace_job_spec(rd, j, spec)))
		return rc;
	const char *qos = trace_field(rd, r, P_QOS);
	if (!ngpu)
		j->cls = JOB_CPU;
	else if (qos && !strcmp(qos, "LS"))
		j->cls = JOB_INFER;
	else if (qos && !strcmp(qos, "BE"))
		j->cls = JOB_BATCH;
	else
		j->cls = JOB_TRAIN;
	j->arrival = 0;
	if (rd->col[P_CREATE] >= 0) {
		if (create < 0)
			return trace_bad(rd, "column 'creation_time' is empty");
		j->arrival = create;
	}
	if (rd->col[P_DELETE] < 0 || rd->col[P_SCHED] < 0) /* how long it ran: unknown */
		return 0;
	if (sched < 0) {
		j->flags |= JOB_F_NOTRAN;
		return 0;
	}
	if (del < 0)
		return trace_bad(rd, "scheduled but no deletion_time");
	return trace_job_span(rd, j, sched, del, "scheduled_time", "deletion_time");
}

const struct trace_format trace_openb_pods = {
	.name = "openb-pods",
	.summary = "Alibaba gpu-v2023 pod list (openb_pod_list_*.csv)",
	.kind = TRACE_JOBS,
	TRACE_HEADED(1, pod_cols, 5),
	.job = pods_job,
};

enum { N_SN, N_CPU, N_MEM, N_GPU, N_MODEL };

static const char *const node_cols[] = {"sn", "cpu_milli", "memory_mib", "gpu", "model", NULL};

static const struct trace_node_cols node_row = {N_SN, N_CPU, N_MEM, N_GPU, N_MODEL, 1, 1};

const struct trace_format trace_openb_nodes = {
	.name = "openb-nodes",
	.summary = "Alibaba gpu-v2023 node list (openb_node_list_*.csv)",
	.kind = TRACE_NODES,
	TRACE_HEADED(1, node_cols, 5),
	.node_cols = &node_row,
};
