/*
 * trace-ali.c — Alibaba cluster-trace-v2017 and v2018: batch tasks and machine tables
 * (CPU clusters, no GPUs). Header-less as published; a v2017 batch_task with the header
 * some copies add is read too.
 *
 * Batch tasks make one voidfit job per task with the per-instance request (instances of
 * one task are alike; number_of_instances / instance_num is kept raw only, because a
 * 4 MB sample holds 12 million instances):
 *   cpu = plan * 10 millicores (100 = one core); mem = normalised memory * machine size
 *   (v2017: 1.0 = ALI2017_MEM_MIB; v2018: 100 = ALI2018_MEM_MIB);
 *   arrival = create / start time (s; before the window, i.e. negative: 0; a task that
 *   also ended before the window is quarantined, it cannot be replayed); duration =
 *   end - start; status Waiting or an end of 0 = did not run to an end in the window
 *   (duration -1, JOB_F_NOTRAN); class cpu.
 * Machines: v2017 server_event "add" rows, v2018 machine_meta rows; a machine's first row
 * makes its node (later rows of the same machine are counted, not repeated).
 */
#include <string.h>

#include "trace.h"

/* Normalised memory of 1.0 (v2017) / 100 (v2018): assumed machine sizes, documented in the
 * man page; the raw values are kept. */
#define ALI2017_MEM_MIB 262144 /* 256 GiB */
#define ALI2018_MEM_MIB 524288 /* 512 GiB */

/* One batch task: create/end times, cpu in plan units, normalised mem times mem_scale. */
static int batch_job(struct trace_reader *rd, const struct csvin_rec *r, struct job *j, int k_start,
		     int k_end, int k_status, int k_cpu, int k_mem, double mem_scale)
{
	int64_t start = -1, end;
	double t;
	int rc;
	/* v2017 has tasks created before the window (negative times): they arrive at 0 and
	 * keep their real run time */
	if ((rc = trace_num(rd, r, k_start, &t)) == TRACE_BAD)
		return rc;
	int have_start = rc == 0;
	if (have_start)
		start = trace_round(t);
	if (trace_num(rd, r, k_end, &t) == 0 && t < 0)
		return trace_bad(rd, "ended before the trace window (end time %g s)", t);
	const struct trace_amount_of a[] = {{k_end, 1, &end},
					    {k_cpu, 10, &j->dem[DIM_CPU]},
					    {k_mem, mem_scale, &j->dem[DIM_MEM]}};
	if ((rc = trace_amounts(rd, r, a, sizeof a / sizeof *a)))
		return rc;
	trace_job_gpus(rd, j, 0, 0);
	j->dem[DIM_HBM] = 0;
	j->cls = JOB_CPU;
	const char *status = trace_field(rd, r, k_status);
	j->arrival = start < 0 ? 0 : start;
	if (!have_start || end <= 0 || (status && !strcmp(status, "Waiting"))) {
		j->flags |= JOB_F_NOTRAN; /* no run to an end in the window */
		return 0;
	}
	return trace_job_span(rd, j, start, end, "start time", "end time");
}

/* ---- v2017 batch_task ---- */

static const char *const t17_cols[] = {"task_create_time",
				       "task_end_time",
				       "job_id",
				       "task_id",
				       "number_of_instances",
				       "status",
				       "number_of_cpus_requested_per_instance_in_the_task",
				       "normalized_memory_requested_per_instance_in_the_task",
				       NULL};

static int t17_job(struct trace_reader *rd, const struct csvin_rec *r, struct job *j)
{
	return batch_job(rd, r, j, 0, 1, 5, 6, 7, ALI2017_MEM_MIB);
}

const struct trace_format trace_ali2017_task = {
	.name = "ali2017-task",
	.summary = "Alibaba cluster-trace-v2017 batch_task.csv (header optional)",
	.kind = TRACE_JOBS,
	TRACE_HEADED(2, t17_cols, 8),
	.cells = "nnnnnwoo",
	.job = t17_job,
};

/* ---- machines: first row of each machine makes its node ---- */

static void names_close(struct trace_reader *rd)
{
	trace_nameset_free(rd->state);
}

/* The machine of column k_id, of CPUs (column 4) and normalised memory (column 5, times
 * mem_scale): its node when add and the machine is new. */
static int machine_node(struct trace_reader *rd, const struct csvin_rec *r, int k_id,
			double mem_scale, int add, struct err *e)
{
	int64_t cpu, mem;
	int rc;
	const struct trace_amount_of a[] = {{4, 1000, &cpu}, {5, mem_scale, &mem}};
	if ((rc = trace_amounts(rd, r, a, sizeof a / sizeof *a)))
		return rc;
	if (!add)
		return 0;
	const char *name = trace_field(rd, r, k_id);
	if (!name)
		return trace_bad(rd, "no machine id");
	return trace_cpu_node(rd, name, "machine id", 1, cpu, mem, e);
}

/* v2017 server_event: timestamp,machine_id,event_type,event_detail,cpus,mem,disk */
static const char *const s17_cols[] = {"timestamp",
				       "machine_id",
				       "event_type",
				       "event_detail",
				       "number_of_cpus",
				       "normalized_memory",
				       "normalized_disk_space",
				       NULL};

/* Its event type is one of v2017's (cells: a word). */
static int s17_sniff(const struct csvin_rec *r)
{
	const char *t = r->field[2];
	return !strcmp(t, "add") || !strcmp(t, "remove") || !strcmp(t, "softerror") ||
	       !strcmp(t, "harderror");
}

static int s17_row(struct trace_reader *rd, const struct csvin_rec *r, struct err *e)
{
	const char *type = trace_field(rd, r, 2);
	if (!type)
		return trace_bad(rd, "column 'event_type' is empty");
	return machine_node(rd, r, 1, ALI2017_MEM_MIB, !strcmp(type, "add"), e);
}

const struct trace_format trace_ali2017_server = {
	.name = "ali2017-server",
	.summary = "Alibaba cluster-trace-v2017 server_event.csv (no header): the nodes",
	.kind = TRACE_NODES,
	TRACE_BY_POSITION(s17_cols, "n.w....", s17_sniff),
	.row = s17_row,
	.close = names_close,
};

/* ---- v2018 ---- */

static const char *const t18_cols[] = {
	"task_name",  "instance_num", "job_name", "task_type", "status",
	"start_time", "end_time",     "plan_cpu", "plan_mem",  NULL};

static int t18_job(struct trace_reader *rd, const struct csvin_rec *r, struct job *j)
{
	return batch_job(rd, r, j, 5, 6, 4, 7, 8, ALI2018_MEM_MIB / 100.0);
}

const struct trace_format trace_ali2018_task = {
	.name = "ali2018-task",
	.summary = "Alibaba cluster-trace-v2018 batch_task.csv (no header)",
	.kind = TRACE_JOBS,
	TRACE_BY_POSITION(t18_cols, ".n..woooo", NULL),
	.job = t18_job,
};

static const char *const m18_cols[] = {"machine_id",       "time_stamp", "failure_domain_1",
				       "failure_domain_2", "cpu_num",    "mem_size",
				       "status",           NULL};

static int m18_row(struct trace_reader *rd, const struct csvin_rec *r, struct err *e)
{
	return machine_node(rd, r, 0, ALI2018_MEM_MIB / 100.0, 1, e);
}

const struct trace_format trace_ali2018_machine = {
	.name = "ali2018-machine",
	.summary = "Alibaba cluster-trace-v2018 machine_meta.csv (no header): the nodes",
	.kind = TRACE_NODES,
	TRACE_BY_POSITION(m18_cols, "wn..nnw", NULL),
	.row = m18_row,
	.close = names_close,
};
