/*
 * trace-k8s.c — Kubernetes: 'kubectl get pods -A -o json' and 'kubectl get nodes -o json'
 * (a List whose items are Pods or Nodes, core/v1 as the Kubernetes API reference defines
 * them), one format for both: each item says what it is by its "kind".
 *
 * The file is read as lines. A small scanner follows the List's nesting (brackets outside
 * strings) only to find where each element of "items" begins and ends; each item's text
 * is then parsed by jansson, alone. So memory holds one item at a time (its text and its
 * jansson tree), whatever the size of the List, and a bad item is quarantined with the
 * line where it begins and its text.
 *
 * Pod -> job:
 *   arrival  = metadata.creationTimestamp (s since the epoch)
 *   duration = the latest containerStatuses[].state.terminated.finishedAt (else
 *              metadata.deletionTimestamp) - status.startTime; no end: still running,
 *              unknown (-1); no spec.nodeName and no startTime: never scheduled, never ran
 *   demand   = per resource, the sum over spec.containers of requests (a resource with a
 *              limit but no request: the limit, as the API defaults it), or the largest
 *              of spec.initContainers if larger: cpu, memory, nvidia.com/gpu (whole GPUs),
 *              aliyun.com/gpu-mem (GiB of one shared GPU: its share of the allowed
 *              model's HBM, and that HBM as the hbm demand)
 *   models   = spec.nodeSelector["nvidia.com/gpu.product"], or the values of a required
 *              node affinity term "nvidia.com/gpu.product In [...]"
 *   class    = GPUs: train; none: cpu
 * Node -> node: metadata.name, status.allocatable (else capacity) cpu, memory,
 * nvidia.com/gpu; the model from the label nvidia.com/gpu.product, its HBM from the label
 * nvidia.com/gpu.memory (MiB) when present, else from the model table.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gpumodel.h"
#include "trace.h"

#define K8S_PRODUCT "nvidia.com/gpu.product"

struct k8s {
	int depth;         /* brackets open, outside strings */
	int in_str, esc;   /* inside a string; after a backslash in one */
	int items;         /* inside the List's "items" array (at depth 2) */
	char key[8];       /* the start of the last string at depth 1 ("items"?) */
	size_t keylen;     /* its length so far (more than fits: not "items") */
	int in_item;       /* inside an item */
	int64_t item_line; /* the line where it begins */
	char *buf;         /* its text so far */
	size_t len, cap;
};

static int k8s_sniff(const char *line, size_t len)
{
	size_t i = 0;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	return i < len && line[i] == '{';
}

static void k8s_close(struct trace_reader *rd)
{
	struct k8s *s = rd->state;
	free(s->buf);
}

static int k8s_start(struct trace_reader *rd, const struct csvin_rec *header, struct err *e)
{
	(void)header;
	(void)e;
	struct k8s *s = rd->state;
	char *buf = s->buf;
	size_t cap = s->cap;
	memset(s, 0, sizeof *s);
	s->buf = buf;
	s->cap = cap;
	return 0;
}

static int k8s_end(struct trace_reader *rd, struct err *e)
{
	struct k8s *s = rd->state;
	if (s->in_item)
		return err_set(e, VF_EINPUT,
			       "the file ends inside the item of line %lld (cut short?)",
			       (long long)s->item_line);
	if (s->depth || s->in_str)
		return err_set(e, VF_EINPUT, "the file ends inside its JSON (cut short?)");
	return 0;
}

/* A Kubernetes quantity ("500m", "2", "1.5Gi", "1e9", "64G") in base units: 0, or -1. */
static int quantity(const char *v, double *out)
{
	static const struct {
		const char *suf;
		double mul;
	} suf[] = {{"Ki", 1024.0},
		   {"Mi", 1048576.0},
		   {"Gi", 1073741824.0},
		   {"Ti", 1099511627776.0},
		   {"Pi", 1125899906842624.0},
		   {"Ei", 1152921504606846976.0},
		   {"m", 1e-3},
		   {"k", 1e3},
		   {"M", 1e6},
		   {"G", 1e9},
		   {"T", 1e12},
		   {"P", 1e15},
		   {"E", 1e18},
		   {"", 1}};
	char *end;
	double x = strtod(v, &end);
	if (end == v || x < 0 || x > 1e18)
		return -1;
	for (size_t i = 0; i < sizeof suf / sizeof *suf; i++)
		if (!strcmp(end, suf[i].suf)) {
			*out = x * suf[i].mul;
			return 0;
		}
	return -1;
}

/* A resource of a requests / limits object: a string quantity or a number. */
static int resource(json_t *obj, const char *name, double *out)
{
	json_t *v = json_object_get(obj, name);
	if (!v)
		return 1;
	if (json_is_number(v)) {
		*out = json_number_value(v);
		return *out < 0 ? -1 : 0;
	}
	return json_is_string(v) ? quantity(json_string_value(v), out) : -1;
}

enum { R_CPU, R_MEM, R_GPU, R_GPUMEM, R_N };
static const char *const res_names[R_N] = {"cpu", "memory", "nvidia.com/gpu", "aliyun.com/gpu-mem"};

/* The container's demand per resource into d (-1 none): requests, else limits. */
static int container_demand(struct trace_reader *rd, json_t *c, double d[R_N])
{
	json_t *res = json_object_get(c, "resources");
	json_t *req = json_object_get(res, "requests"), *lim = json_object_get(res, "limits");
	for (int k = 0; k < R_N; k++) {
		int rc = resource(req, res_names[k], &d[k]);
		if (rc == 1)
			rc = resource(lim, res_names[k], &d[k]);
		if (rc == 1)
			d[k] = -1;
		else if (rc)
			return trace_bad(rd, "container '%.40s': %s is not a quantity",
					 json_string_value(json_object_get(c, "name")),
					 res_names[k]);
	}
	return 0;
}

/* A time field (RFC 3339) of obj: 0 and *t; 1 when absent; TRACE_BAD when not a time. */
static int time_of(struct trace_reader *rd, json_t *obj, const char *name, int64_t *t)
{
	json_t *v = json_object_get(obj, name);
	if (!v || json_is_null(v))
		return 1;
	const char *s = json_string_value(v);
	if (!s || trace_time_parse(s, 0, t))
		return trace_bad(rd, "%s is not a time", name);
	return 0;
}

/* The allowed models of a pod, '|'-joined into buf ("" any). */
static void pod_models(json_t *spec, char *buf, size_t len)
{
	buf[0] = '\0';
	const char *sel = json_string_value(
		json_object_get(json_object_get(spec, "nodeSelector"), K8S_PRODUCT));
	if (sel) {
		snprintf(buf, len, "%s", sel);
		return;
	}
	json_t *terms = json_object_get(
		json_object_get(json_object_get(json_object_get(spec, "affinity"), "nodeAffinity"),
				"requiredDuringSchedulingIgnoredDuringExecution"),
		"nodeSelectorTerms");
	size_t i, j, k;
	json_t *t, *ex, *v;
	json_array_foreach(terms, i, t)
	{
		json_array_foreach(json_object_get(t, "matchExpressions"), j, ex)
		{
			const char *key = json_string_value(json_object_get(ex, "key"));
			const char *op = json_string_value(json_object_get(ex, "operator"));
			if (!key || !op || strcmp(key, K8S_PRODUCT) || strcmp(op, "In"))
				continue;
			json_array_foreach(json_object_get(ex, "values"), k, v)
			{
				const char *m = json_string_value(v);
				size_t used = strlen(buf);
				if (m && used + strlen(m) + 2 < len)
					snprintf(buf + used, len - used, "%s%s", used ? "|" : "",
						 m);
			}
		}
	}
}

static int pod(struct trace_reader *rd, json_t *item, struct err *e)
{
	json_t *meta = json_object_get(item, "metadata"), *spec = json_object_get(item, "spec"),
	       *status = json_object_get(item, "status");
	struct job j;
	double sum[R_N] = {0}, init[R_N] = {0}, d[R_N];
	size_t i;
	json_t *c;
	int rc;
	job_init(&j);
	if ((rc = time_of(rd, meta, "creationTimestamp", &j.arrival)))
		return rc == 1 ? trace_bad(rd, "pod without metadata.creationTimestamp") : rc;
	if (!json_array_size(json_object_get(spec, "containers")))
		return trace_bad(rd, "pod without spec.containers");
	json_array_foreach(json_object_get(spec, "containers"), i, c)
	{
		if (container_demand(rd, c, d))
			return TRACE_BAD;
		for (int k = 0; k < R_N; k++)
			sum[k] += d[k] > 0 ? d[k] : 0;
	}
	json_array_foreach(json_object_get(spec, "initContainers"), i, c)
	{
		if (container_demand(rd, c, d))
			return TRACE_BAD;
		for (int k = 0; k < R_N; k++)
			if (d[k] > init[k])
				init[k] = d[k];
	}
	for (int k = 0; k < R_N; k++)
		if (init[k] > sum[k])
			sum[k] = init[k];
	j.dem[DIM_CPU] = trace_round(sum[R_CPU] * 1000);
	j.dem[DIM_MEM] = trace_round(sum[R_MEM] / 1048576.0 + 0.4999);
	char models[256];
	pod_models(spec, models, sizeof models);
	if (*models && (rc = trace_job_spec(rd, &j, models)))
		return rc;
	int64_t ngpu = trace_round(sum[R_GPU]);
	if (ngpu) {
		if ((rc = trace_job_gpus(rd, &j, ngpu, 1000)))
			return rc;
	} else if (sum[R_GPUMEM] > 0) { /* a share of one GPU, by its memory (GiB) */
		int id = gpumodel_unknown();
		for (int m = 0; m < gpumodel_count(); m++)
			if (j.gpu_spec == 1u << m)
				id = m;
		int64_t hbm = trace_round(sum[R_GPUMEM] * 1024), cap = gpumodel_get(id)->hbm_mib;
		int64_t milli = cap > 0 ? (hbm * 1000 + cap - 1) / cap : 1000;
		if ((rc = trace_job_gpus(rd, &j, 1, milli > 1000 ? 1000 : milli)))
			return rc;
		j.dem[DIM_HBM] = hbm;
	} else {
		trace_job_gpus(rd, &j, 0, 0);
	}
	j.cls = j.num_gpu ? JOB_TRAIN : JOB_CPU;
	int64_t start, end = -1, t;
	int started = (rc = time_of(rd, status, "startTime", &start)) == 0;
	if (rc == TRACE_BAD)
		return rc;
	if (!started || !json_string_value(json_object_get(spec, "nodeName"))) {
		j.flags |= JOB_F_NOTRAN;
		return trace_emit_job(rd, &j, e);
	}
	json_array_foreach(json_object_get(status, "containerStatuses"), i, c)
	{
		json_t *term = json_object_get(json_object_get(c, "state"), "terminated");
		if ((rc = time_of(rd, term, "finishedAt", &t)) == TRACE_BAD)
			return rc;
		if (!rc && t > end)
			end = t;
	}
	if (end < 0 && (rc = time_of(rd, meta, "deletionTimestamp", &end)) == TRACE_BAD)
		return rc;
	if (end >= 0) {
		if (end < start)
			return trace_bad(rd, "ends before its startTime");
		j.duration = end - start;
	}
	return trace_emit_job(rd, &j, e);
}

static int node(struct trace_reader *rd, json_t *item, struct err *e)
{
	json_t *meta = json_object_get(item, "metadata"), *status = json_object_get(item, "status");
	json_t *alloc = json_object_get(status, "allocatable");
	json_t *labels = json_object_get(meta, "labels");
	struct node n;
	double cpu, mem, gpu = 0, hbm;
	const char *name = json_string_value(json_object_get(meta, "name"));
	node_init(&n);
	if (!name || !*name || strlen(name) >= sizeof n.name)
		return trace_bad(rd, "node name empty or longer than %zu bytes", sizeof n.name - 1);
	snprintf(n.name, sizeof n.name, "%s", name);
	if (!alloc)
		alloc = json_object_get(status, "capacity");
	if (resource(alloc, "cpu", &cpu) || resource(alloc, "memory", &mem))
		return trace_bad(rd, "node '%s': no cpu or memory in status.allocatable", name);
	if (resource(alloc, "nvidia.com/gpu", &gpu) < 0)
		return trace_bad(rd, "node '%s': nvidia.com/gpu is not a quantity", name);
	if (gpu > 32) /* CLUSTER_MAX_GPUS */
		return trace_bad(rd, "node '%s': %.0f GPUs on one node", name, gpu);
	n.cap[DIM_CPU] = trace_round(cpu * 1000);
	n.cap[DIM_MEM] = trace_round(mem / 1048576.0 - 0.4999); /* whole MiB it holds */
	const char *model = json_string_value(json_object_get(labels, K8S_PRODUCT));
	const char *hbms = json_string_value(json_object_get(labels, "nvidia.com/gpu.memory"));
	int64_t ngpu = trace_round(gpu);
	trace_node_model(rd, &n, ngpu ? model : NULL, ngpu,
			 hbms && !quantity(hbms, &hbm) ? trace_round(hbm) : -1);
	return trace_emit_node(rd, &n, e);
}

/* One item's text is whole: parse it and make its job or node. */
static int item(struct trace_reader *rd, struct k8s *s, struct err *e)
{
	json_error_t je;
	rd->row_line = s->item_line;
	rd->row_raw = s->buf;
	rd->row_rawlen = s->len;
	json_t *it = json_loadb(s->buf, s->len, 0, &je);
	if (!it)
		return trace_bad(rd, "not JSON: %s (line %d of the item)", je.text, je.line);
	const char *kind = json_string_value(json_object_get(it, "kind"));
	int rc;
	if (!kind)
		kind = json_object_get(json_object_get(it, "spec"), "containers") ? "Pod" : "Node";
	if (!strcmp(kind, "Pod"))
		rc = pod(rd, it, e);
	else if (!strcmp(kind, "Node"))
		rc = node(rd, it, e);
	else
		rc = trace_bad(rd, "a %.40s, neither a Pod nor a Node", kind);
	json_decref(it);
	return rc;
}

static void append(struct k8s *s, const char *p, size_t n)
{
	xgrow(&s->buf, &s->cap, s->len + n + 2, 1);
	memcpy(s->buf + s->len, p, n);
	s->len += n;
	s->buf[s->len] = '\0';
}

static int k8s_row(struct trace_reader *rd, const struct csvin_rec *r, struct err *e)
{
	struct k8s *s = rd->state;
	const char *line = r->raw;
	size_t from = 0; /* where this line's part of an item begins */
	int rc = TRACE_SKIP;
	if (s->in_item)
		append(s, "\n", 1);
	for (size_t i = 0; i < r->rawlen; i++) {
		char c = line[i];
		if (s->in_str) {
			if (s->esc)
				s->esc = 0;
			else if (c == '\\')
				s->esc = 1;
			else if (c == '"')
				s->in_str = 0;
			else if (s->depth == 1 && s->keylen < sizeof s->key)
				s->key[s->keylen++] = c;
			else if (s->depth == 1)
				s->keylen = sizeof s->key + 1;
			continue;
		}
		if (c == '"') {
			s->in_str = 1;
			if (s->depth == 1)
				s->keylen = 0;
		} else if (c == '{' || c == '[') {
			if (s->depth == 2 && s->items && c == '{' && !s->in_item) {
				if (rc != TRACE_SKIP) /* two items end on one line */
					return trace_bad(rd, "two items on line %lld",
							 (long long)r->line);
				s->in_item = 1;
				s->item_line = r->line;
				s->len = 0;
				from = i;
			}
			if (s->depth == 1 && c == '[' && s->keylen == 5 &&
			    !memcmp(s->key, "items", 5))
				s->items = 1;
			if (++s->depth > 512)
				return err_set(e, VF_EINPUT, "line %lld: JSON nested too deep",
					       (long long)r->line);
		} else if (c == '}' || c == ']') {
			if (!s->depth)
				return err_set(e, VF_EINPUT, "line %lld: '%c' closes nothing",
					       (long long)r->line, c);
			if (--s->depth == 2 && s->in_item && c == '}') {
				append(s, line + from, i + 1 - from);
				s->in_item = 0;
				rc = item(rd, s, e);
				if (rc == TRACE_BAD || rc > 0)
					return rc;
			}
			if (s->depth == 1)
				s->items = 0;
		}
	}
	if (s->in_item)
		append(s, line + from, r->rawlen - from);
	return rc;
}

const struct trace_format trace_k8s = {
	.name = "k8s",
	.summary = "Kubernetes: 'kubectl get pods -A -o json', 'kubectl get nodes -o json'",
	.kind = TRACE_MIXED,
	TRACE_LINES(k8s_sniff),
	.start = k8s_start,
	.state_size = sizeof(struct k8s),
	.row = k8s_row,
	.end = k8s_end,
	.close = k8s_close,
};
