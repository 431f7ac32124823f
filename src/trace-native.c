/*
 * trace-native.c — voidfit's own CSV formats (what 'voidfit gen' writes), which carry all
 * seven dimensions in voidfit's units. An empty cell means "not recorded" (-1).
 *
 * jobs:  job,arrival,duration,class,cpu_milli,mem_mib,num_gpu,gpu_milli,hbm_mib,net_mbps,
 *        sto_mbps,iocpu_milli,gpu_spec[,workers]
 *        arrival, duration: integer s (empty duration = never ran); class: infer|train|
 *        batch|cpu; hbm_mib: per GPU; gpu_spec: model names joined by '|'; workers: W, the
 *        job's workers (optional, empty = 1), each with the demand of the other columns.
 * nodes: node,group,model,cpu_milli,mem_mib,gpu,hbm_mib,net_mbps,sto_mbps,iocpu_milli[,rack]
 *        gpu: GPU count; hbm_mib per GPU (empty = the model's, from the GPU table); rack:
 *        the rack or switch the node is under (optional, empty = none said).
 */
#include <stdlib.h>
#include <string.h>

#include "gpumodel.h"
#include "trace.h"

enum {
	J_NAME,
	J_ARR,
	J_DUR,
	J_CLASS,
	J_CPU,
	J_MEM,
	J_NGPU,
	J_MILLI,
	J_HBM,
	J_NET,
	J_STO,
	J_IOCPU,
	J_SPEC,
	J_WORKERS
};

/* The last gpu_spec mapped and its mask: a trace repeats a few specs ("" matches none). */
struct spec_memo {
	char spec[64];
	uint32_t mask;
};

static const char *const job_cols[] = {"job",       "arrival",  "duration", "class",
				       "cpu_milli", "mem_mib",  "num_gpu",  "gpu_milli",
				       "hbm_mib",   "net_mbps", "sto_mbps", "iocpu_milli",
				       "gpu_spec",  "workers",  NULL};

/* trace_job_spec of spec (NULL: any model), or the mask the last spec made when it is the
 * same (rd->state, a spec_memo). */
static int job_spec(struct trace_reader *rd, struct job *j, const char *spec)
{
	struct spec_memo *m = rd->state;
	int rc;
	if (!spec)
		return 0;
	if (!strcmp(spec, m->spec)) {
		j->gpu_spec = m->mask;
		return 0;
	}
	if ((rc = trace_job_spec(rd, j, spec)))
		return rc;
	/* A spec with an unknown name is not kept: each job naming it is counted. */
	if (strlen(spec) < sizeof m->spec && !(j->gpu_spec & (1u << gpumodel_unknown()))) {
		strcpy(m->spec, spec);
		m->mask = j->gpu_spec;
	}
	return 0;
}

static int native_job(struct trace_reader *rd, const struct csvin_rec *r, struct job *j)
{
	int64_t v[J_SPEC];
	int rc;
	if (!trace_field(rd, r, J_NAME))
		return trace_bad(rd, "column 'job' is empty");
	for (int k = J_ARR; k < J_SPEC; k++) {
		if (k == J_CLASS)
			continue;
		if ((rc = trace_amount(rd, r, k, 1, &v[k])))
			return rc;
	}
	if (v[J_ARR] < 0)
		return trace_bad(rd, "column 'arrival' is empty");
	j->arrival = v[J_ARR];
	j->duration = v[J_DUR];
	if (j->duration < 0)
		j->flags |= JOB_F_NOTRAN;
	const char *cls = trace_field(rd, r, J_CLASS);
	int c = JOB_NCLASS;
	for (int i = 0; cls && c == JOB_NCLASS && i < JOB_NCLASS; i++)
		if (!strcmp(cls, job_class_name((enum job_class)i)))
			c = i;
	if (c == JOB_NCLASS)
		return trace_bad(rd, "column 'class': '%.40s' is not infer, train, batch or cpu",
				 cls ? cls : "");
	j->cls = (uint8_t)c;
	j->dem[DIM_CPU] = v[J_CPU];
	j->dem[DIM_MEM] = v[J_MEM];
	int64_t ngpu = v[J_NGPU] < 0 ? 0 : v[J_NGPU];
	int64_t milli = v[J_MILLI] < 0 ? (ngpu ? 1000 : 0) : v[J_MILLI];
	if ((rc = trace_job_gpus(rd, j, ngpu, milli)))
		return rc;
	j->dem[DIM_HBM] = v[J_HBM] < 0 ? -1 : v[J_HBM] * (ngpu ? ngpu : 1);
	j->dem[DIM_NET] = v[J_NET];
	j->dem[DIM_STO] = v[J_STO];
	j->dem[DIM_IOCPU] = v[J_IOCPU];
	if ((rc = trace_job_workers(rd, r, J_WORKERS, j)))
		return rc;
	return job_spec(rd, j, trace_field(rd, r, J_SPEC));
}

const struct trace_format trace_native_jobs = {
	.name = "native-jobs",
	.summary = "voidfit's own job CSV (voidfit gen), all seven dimensions",
	.kind = TRACE_JOBS,
	TRACE_HEADED(1, job_cols, 13),
	.state_size = sizeof(struct spec_memo),
	.job = native_job,
};

enum { N_NAME, N_GROUP, N_MODEL, N_CPU, N_MEM, N_GPU, N_HBM, N_NET, N_STO, N_IOCPU, N_RACK };

static const char *const node_cols[] = {"node",     "group",       "model",   "cpu_milli",
					"mem_mib",  "gpu",         "hbm_mib", "net_mbps",
					"sto_mbps", "iocpu_milli", "rack",    NULL};

static int native_node(struct trace_reader *rd, const struct csvin_rec *r, struct node *n)
{
	int64_t v[N_IOCPU + 1];
	int rc;
	if (trace_name(rd, r, N_NAME, n->name, sizeof n->name, 1) == TRACE_BAD ||
	    trace_name(rd, r, N_GROUP, n->group, sizeof n->group, 0) == TRACE_BAD ||
	    trace_name(rd, r, N_RACK, n->rack, sizeof n->rack, 0) == TRACE_BAD)
		return TRACE_BAD;
	for (int k = N_CPU; k <= N_IOCPU; k++)
		if ((rc = trace_amount(rd, r, k, 1, &v[k])))
			return rc;
	n->cap[DIM_CPU] = v[N_CPU];
	n->cap[DIM_MEM] = v[N_MEM];
	trace_node_model(rd, n, trace_field(rd, r, N_MODEL), v[N_GPU] < 0 ? 0 : v[N_GPU], v[N_HBM]);
	n->cap[DIM_NET] = v[N_NET];
	n->cap[DIM_STO] = v[N_STO];
	n->cap[DIM_IOCPU] = v[N_IOCPU];
	return 0;
}

const struct trace_format trace_native_nodes = {
	.name = "native-nodes",
	.summary = "voidfit's own node CSV (voidfit gen), all seven dimensions",
	.kind = TRACE_NODES,
	TRACE_HEADED(1, node_cols, 10),
	.node = native_node,
};
