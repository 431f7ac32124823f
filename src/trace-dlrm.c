/*
 * trace-dlrm.c — Alibaba gpu-v2025 disaggregated DLRM serving instances
 * (disaggregated_DLRM_trace.csv). No node list: take a cluster spec.
 *
 *   arrival  = creation_time (s, rounded); empty = created before the window: 0
 *   duration = end - start, start = scheduled_time (else creation_time, else 0),
 *              end = deletion_time; empty = still running when the window closed:
 *              DLRM_WINDOW_S
 *   demand   = cpu_request vCPU * 1000 millicores, memory_request GiB * 1024 MiB,
 *              gpu_request whole GPUs, net = rdma_request % of one DLRM_NIC_MBPS NIC;
 *              disk_request is disk space (GB), not bandwidth: kept raw only
 *   class    = HN (GPU "heterogeneous" nodes): infer; CN (CPU nodes): cpu
 */
#include <string.h>

#include "trace.h"

/* The trace covers 31 days (its largest time is 2,676,679 s < 31 * 86400). */
#define DLRM_WINDOW_S (31 * 86400)
/* One RDMA NIC: 100 Gb/s = 12,500 MB/s (an assumption: the trace gives only percentages). */
#define DLRM_NIC_MBPS 12500

enum {
	D_SN,
	D_ROLE,
	D_APP,
	D_CPU,
	D_CPULIM,
	D_GPU,
	D_GPULIM,
	D_RDMA,
	D_RDMALIM,
	D_MEM,
	D_MEMLIM,
	D_DISK,
	D_DISKLIM,
	D_MAXINST,
	D_CREATE,
	D_SCHED,
	D_DELETE
};

static const char *const cols[] = {"instance_sn",   "role",
				   "app_name",      "cpu_request",
				   "cpu_limit",     "gpu_request",
				   "gpu_limit",     "rdma_request",
				   "rdma_limit",    "memory_request",
				   "memory_limit",  "disk_request",
				   "disk_limit",    "max_instance_per_node",
				   "creation_time", "scheduled_time",
				   "deletion_time", NULL};

static int instance_job(struct trace_reader *rd, const struct csvin_rec *r, struct job *j)
{
	int64_t gpu, rdma, create, sched, del;
	int rc;
	const struct trace_amount_of a[] = {{D_CPU, 1000, &j->dem[DIM_CPU]},
					    {D_MEM, 1024, &j->dem[DIM_MEM]},
					    {D_GPU, 1, &gpu},
					    {D_RDMA, 1, &rdma},
					    {D_CREATE, 1, &create},
					    {D_SCHED, 1, &sched},
					    {D_DELETE, 1, &del}};
	if ((rc = trace_amounts(rd, r, a, sizeof a / sizeof *a)))
		return rc;
	const char *role = trace_field(rd, r, D_ROLE);
	if (!role || (strcmp(role, "HN") && strcmp(role, "CN")))
		return trace_bad(rd, "column 'role': '%.20s' is not HN or CN", role ? role : "");
	j->cls = !strcmp(role, "HN") ? JOB_INFER : JOB_CPU;
	if ((rc = trace_job_gpus(rd, j, gpu < 0 ? 0 : gpu, gpu > 0 ? 1000 : 0)))
		return rc;
	if (rdma > 100)
		return trace_bad(rd, "column 'rdma_request': %lld%% of a NIC", (long long)rdma);
	j->dem[DIM_NET] = rdma < 0 ? -1 : rdma * DLRM_NIC_MBPS / 100;
	j->arrival = create < 0 ? 0 : create;
	int64_t start = sched >= 0 ? sched : j->arrival;
	int64_t end = del >= 0 ? del : DLRM_WINDOW_S;
	if (sched >= 0 && create >= 0 && sched < create)
		return trace_bad(rd, "scheduled_time %lld before creation_time %lld",
				 (long long)sched, (long long)create);
	return trace_job_span(rd, j, start, end, "its start", "deletion_time");
}

const struct trace_format trace_dlrm = {
	.name = "dlrm",
	.summary = "Alibaba gpu-v2025 DLRM serving instances (disaggregated_DLRM_trace.csv)",
	.kind = TRACE_JOBS,
	TRACE_HEADED(1, cols, 17),
	.job = instance_job,
};
