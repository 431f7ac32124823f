/*
 * trace-slurm.c — Slurm's own records: accounting from sacct, nodes from scontrol. Both are
 * read as lines (their text is not CSV: '|' and Key=Value), as the sacct(1) and
 * scontrol(1) manual pages define them (Slurm 22.05 and later).
 *
 * slurm-sacct: 'sacct -a -P --format=...' (--parsable2: fields separated by '|', a header
 * naming them). Columns by name, in any order, others ignored (kept raw):
 *   required JobID, Submit, Start, End, and ReqTRES or AllocTRES;
 *   optional Elapsed, State, Partition, QOS, Priority, NNodes, NodeList, Timelimit.
 *   arrival  = Submit (ISO local time, zone --tz, default UTC), as s since the epoch
 *   duration = End - Start; Start Unknown / None = never ran (JOB_F_NOTRAN); End Unknown
 *              (still running) = Elapsed, the time run so far, if the column is there
 *   demand   = AllocTRES of a job that ran (else ReqTRES), each resource AllocTRES lacks
 *              from ReqTRES: cpu x 1000, mem (K, M, G, T suffixes; none = MiB), gres/gpu;
 *              gres/gpu:MODEL names the allowed model
 *   class    = GPUs: train; none: cpu
 * JobID: "123", an array task "123_4" and a heterogeneous job's component "123+0" are
 * jobs; a step "123.batch", "123.extern", "123.0" is folded into its job (accepted, adds
 * nothing: the job's allocation holds its steps), or quarantined when its job's row is
 * not the last job seen. A job on NNodes > 1 nodes (or a TRES node=N > 1) is a gang of
 * W = NNodes workers, each with the job's demand divided by W, rounded up (Slurm counts a
 * multi-node job's TRES over all its nodes).
 *
 * slurm-nodes: 'scontrol show node -o' (one node a line, Key=Value pairs separated by
 * blanks; a value may hold blanks, as OS= does: a word without '=' continues it).
 *   NodeName (required), CPUTot (or CPUs) x 1000, RealMemory (MiB), Gres "gpu:N",
 *   "gpu:MODEL:N", "gpu:MODEL:N(S:0-1)", several joined by ',' (one model a node: mixed
 *   models are quarantined); the first of Partitions is the node's group.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpumodel.h"
#include "trace.h"

enum { C_JOBID, C_SUBMIT, C_START, C_END, C_REQTRES, C_ALLOCTRES, C_ELAPSED, C_NNODES, C_N };

static const char *const sacct_cols[C_N] = {"JobID",   "Submit",    "Start",   "End",
					    "ReqTRES", "AllocTRES", "Elapsed", "NNodes"};

struct sacct {
	int need_header; /* a file starts: its first line names the columns */
	int col[C_N];    /* field of each column, -1 absent */
	size_t nfields;  /* fields a row has */
	int trail;       /* lines end with '|' (sacct -p): one empty field more */
	char job[64];    /* the last job's id, for its steps ("" none) */
	char **f;        /* fields of the current line */
	size_t fcap;
};

/* Split buf at sep in place into s->f; returns the number of fields. */
static size_t split(struct sacct *s, char *buf, char sep)
{
	size_t n = 0;
	for (char *p = buf;;) {
		xgrow(&s->f, &s->fcap, n + 1, sizeof *s->f);
		s->f[n++] = p;
		p = strchr(p, sep);
		if (!p)
			return n;
		*p++ = '\0';
	}
}

static int sacct_sniff(const char *line, size_t len)
{
	/* a header with a JobID column among '|'-separated names */
	if (!memchr(line, '|', len))
		return 0;
	for (const char *p = line; p < line + len;) {
		const char *q = memchr(p, '|', (size_t)(line + len - p));
		size_t n = q ? (size_t)(q - p) : (size_t)(line + len - p);
		if ((n == 5 && !memcmp(p, "JobID", 5)) || (n == 8 && !memcmp(p, "JobIDRaw", 8)))
			return 1;
		if (!q)
			break;
		p = q + 1;
	}
	return 0;
}

static void sacct_close(struct trace_reader *rd)
{
	struct sacct *s = rd->state;
	free(s->f);
}

static int sacct_start(struct trace_reader *rd, const struct csvin_rec *header, struct err *e)
{
	(void)header;
	(void)e;
	struct sacct *s = rd->state;
	s->need_header = 1;
	s->job[0] = '\0';
	return 0;
}

static int sacct_header(struct sacct *s, const char *line, struct err *e)
{
	char *buf = xstrdup(line);
	size_t n = split(s, buf, '|');
	char miss[200] = "";
	s->trail = n > 1 && !*s->f[n - 1]; /* -p (--parsable) ends each line with '|' */
	n -= (size_t)s->trail;
	s->nfields = n;
	for (int k = 0; k < C_N; k++) {
		s->col[k] = -1;
		for (size_t i = 0; i < n; i++)
			if (!strcmp(s->f[i], sacct_cols[k]) ||
			    (k == C_JOBID && s->col[k] < 0 && !strcmp(s->f[i], "JobIDRaw")))
				s->col[k] = (int)i;
	}
	/* JobID wins over JobIDRaw: the raw id of an array task is its own number */
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s->f[i], "JobID"))
			s->col[C_JOBID] = (int)i;
	free(buf);
	for (int k = C_JOBID; k <= C_END; k++)
		if (s->col[k] < 0)
			snprintf(miss + strlen(miss), sizeof miss - strlen(miss), "%s'%s'",
				 *miss ? ", " : "", sacct_cols[k]);
	if (*miss)
		return err_set(e, VF_EINPUT, "header lacks %s of format slurm-sacct", miss);
	if (s->col[C_REQTRES] < 0 && s->col[C_ALLOCTRES] < 0)
		return err_set(e, VF_EINPUT,
			       "header lacks 'ReqTRES' or 'AllocTRES' of format slurm-sacct (the "
			       "jobs' demand)");
	s->need_header = 0;
	return 0;
}

/* Column k of the current line, or NULL when absent or empty. */
static const char *col(const struct sacct *s, int k)
{
	const char *v = s->col[k] >= 0 ? s->f[s->col[k]] : NULL;
	return v && *v ? v : NULL;
}

/* A time column: 0 and *t; 1 when absent, Unknown or None; TRACE_BAD otherwise. */
static int sacct_time(struct trace_reader *rd, struct sacct *s, int k, int64_t *t)
{
	const char *v = col(s, k);
	if (!v || !strcmp(v, "Unknown") || !strcmp(v, "None"))
		return 1;
	if (trace_time_parse(v, rd->tz_offset, t))
		return trace_bad(rd, "column '%s': '%.40s' is not a time (YYYY-MM-DDTHH:MM:SS)",
				 sacct_cols[k], v);
	return 0;
}

/* "[D-]HH:MM:SS", "MM:SS" or "MM:SS.mmm" as s: 0, or -1. */
static int slurm_duration(const char *v, int64_t *out)
{
	long d = 0, a = 0, b = 0, c = 0;
	int n = 0;
	if (strchr(v, '-')) {
		if (sscanf(v, "%ld-%ld:%ld:%ld%n", &d, &a, &b, &c, &n) != 4)
			return -1;
	} else if (sscanf(v, "%ld:%ld:%ld%n", &a, &b, &c, &n) != 3) {
		if (sscanf(v, "%ld:%ld%n", &b, &c, &n) != 2)
			return -1;
	}
	if (v[n] == '.')
		while (v[++n] >= '0' && v[n] <= '9')
			;
	if (v[n] || d < 0 || a < 0 || b < 0 || c < 0 || b > 59 || c > 60)
		return -1;
	*out = (int64_t)d * 86400 + (int64_t)a * 3600 + b * 60 + c;
	return 0;
}

struct tres {
	int64_t cpu, mem_mib, gpus, nodes; /* -1 not given */
	char model[128];                   /* of gres/gpu:MODEL, "" none */
};

/* A memory amount "16G", "500M", "1024" (MiB), "2T", "512K" as MiB, rounded up. */
static int mem_mib(const char *v, int64_t *out)
{
	char *end;
	double x = strtod(v, &end);
	if (end == v || x < 0 || x > 1e15)
		return -1;
	double mib = x;
	switch (*end) {
	case 'K':
		mib = x / 1024, end++;
		break;
	case 'M':
		end++;
		break;
	case 'G':
		mib = x * 1024, end++;
		break;
	case 'T':
		mib = x * 1024 * 1024, end++;
		break;
	case 'P':
		mib = x * 1024 * 1024 * 1024, end++;
		break;
	}
	if (*end)
		return -1;
	*out = (int64_t)(mib + 0.999999);
	return 0;
}

/* Parse "billing=4,cpu=4,gres/gpu:a100=2,gres/gpu=2,mem=16G,node=1". */
static int parse_tres(struct trace_reader *rd, const char *name, const char *v, struct tres *t)
{
	t->cpu = t->mem_mib = t->gpus = t->nodes = -1;
	t->model[0] = '\0';
	while (*v) {
		const char *comma = strchr(v, ',');
		size_t len = comma ? (size_t)(comma - v) : strlen(v);
		char item[128];
		if (len >= sizeof item)
			return trace_bad(rd, "column '%s': item '%.40s' too long", name, v);
		memcpy(item, v, len);
		item[len] = '\0';
		v += len + (comma != NULL);
		char *eq = strchr(item, '=');
		if (!eq)
			return trace_bad(rd, "column '%s': '%s' is not KEY=VALUE", name, item);
		*eq++ = '\0';
		int64_t x;
		double d;
		if (!strcmp(item, "mem")) {
			if (mem_mib(eq, &t->mem_mib))
				return trace_bad(rd, "column '%s': mem '%s' is not an amount", name,
						 eq);
			continue;
		}
		int cpu = !strcmp(item, "cpu"), node = !strcmp(item, "node"),
		    gpu = !strcmp(item, "gres/gpu"), gmodel = !strncmp(item, "gres/gpu:", 9);
		if (!cpu && !node && !gpu && !gmodel)
			continue; /* billing, energy, licences...: kept raw */
		if (parse_double(eq, &d) || d < 0 || d > 1e12)
			return trace_bad(rd, "column '%s': %s '%s' is not a count", name, item, eq);
		x = trace_round(d);
		if (cpu)
			t->cpu = x;
		else if (node)
			t->nodes = x;
		else if (gpu)
			t->gpus = x;
		else if (!*t->model)
			snprintf(t->model, sizeof t->model, "%s", item + 9);
		else if (strcmp(t->model, item + 9))
			return trace_bad(rd, "column '%s': GPUs of two models (%s, %s)", name,
					 t->model, item + 9);
		if (gmodel && t->gpus < 0)
			t->gpus = x;
	}
	return 0;
}

/* Take into t each resource it lacks from from (the GPUs' model goes with their count). */
static void tres_fill(struct tres *t, const struct tres *from)
{
	if (t->cpu < 0)
		t->cpu = from->cpu;
	if (t->mem_mib < 0)
		t->mem_mib = from->mem_mib;
	if (t->nodes < 0)
		t->nodes = from->nodes;
	if (t->gpus < 0) {
		t->gpus = from->gpus;
		memcpy(t->model, from->model, sizeof t->model);
	}
}

static int sacct_row(struct trace_reader *rd, const struct csvin_rec *r, struct err *e)
{
	struct sacct *s = rd->state;
	if (s->need_header)
		return sacct_header(s, r->raw, e) ? VF_EINPUT : TRACE_SKIP;
	char *buf = xstrdup(r->raw);
	size_t n = split(s, buf, '|');
	int rc;
	if (s->trail && n > 1 && !*s->f[n - 1])
		n--;
	if (n != s->nfields) {
		rc = trace_bad(rd, "%zu fields, expected %zu (a '|' inside a field?)", n,
			       s->nfields);
		goto out;
	}
	const char *id = col(s, C_JOBID);
	if (!id) {
		rc = trace_bad(rd, "column 'JobID' is empty");
		goto out;
	}
	const char *dot = strchr(id, '.');
	if (dot) { /* a step: folded into its job */
		size_t jl = (size_t)(dot - id);
		if (!*s->job || strlen(s->job) != jl || memcmp(s->job, id, jl))
			rc = trace_bad(rd, "step '%.40s' of a job whose row is not before it", id);
		else
			rc = 0;
		goto out;
	}
	snprintf(s->job, sizeof s->job, "%s", id);
	struct job j;
	int64_t submit, start, end, dur = -1;
	job_init(&j);
	if ((rc = sacct_time(rd, s, C_SUBMIT, &submit)) != 0) {
		if (rc == 1)
			rc = trace_bad(rd, "column 'Submit' is empty");
		goto out;
	}
	int started = (rc = sacct_time(rd, s, C_START, &start)) == 0;
	if (rc == TRACE_BAD)
		goto out;
	int ended = (rc = sacct_time(rd, s, C_END, &end)) == 0;
	if (rc == TRACE_BAD)
		goto out;
	const char *el = col(s, C_ELAPSED);
	if (started && ended) {
		if (end < start) {
			rc = trace_bad(rd, "End before Start");
			goto out;
		}
		dur = end - start;
	} else if (started && el && slurm_duration(el, &dur)) {
		rc = trace_bad(rd, "column 'Elapsed': '%.40s' is not a duration", el);
		goto out;
	}
	j.arrival = submit;
	if (!started)
		j.flags |= JOB_F_NOTRAN;
	else
		j.duration = dur;
	/* what it got if it ran, else what it asked for: each resource from AllocTRES where
	 * it names it, else from ReqTRES (a Slurm that does not enforce memory limits
	 * allocates "cpu=1,node=1", no mem) */
	const char *alloc = started ? col(s, C_ALLOCTRES) : NULL, *req = col(s, C_REQTRES);
	struct tres t, tr;
	if (!alloc && !req) {
		rc = trace_bad(rd, "no TRES (ReqTRES, AllocTRES): no demand");
		goto out;
	}
	if ((rc = parse_tres(rd, sacct_cols[alloc ? C_ALLOCTRES : C_REQTRES], alloc ? alloc : req,
			     &t)))
		goto out;
	if (alloc && req) {
		if ((rc = parse_tres(rd, sacct_cols[C_REQTRES], req, &tr)))
			goto out;
		tres_fill(&t, &tr);
	}
	int64_t nodes = t.nodes > 0 ? t.nodes : 1;
	const char *nn = col(s, C_NNODES);
	double d;
	if (nn && (parse_double(nn, &d) || d < 1 || d > 1e6)) {
		rc = trace_bad(rd, "column 'NNodes': '%.40s' is not a node count", nn);
		goto out;
	}
	if (nn)
		nodes = trace_round(d);
	/* per node: what voidfit places */
	int64_t cpu = t.cpu >= 0 ? (t.cpu * 1000 + nodes - 1) / nodes : -1,
		mem = t.mem_mib >= 0 ? (t.mem_mib + nodes - 1) / nodes : -1,
		gpus = t.gpus > 0 ? (t.gpus + nodes - 1) / nodes : 0;
	if (nodes > JOB_WORKERS_MAX) {
		rc = trace_bad(rd, "column 'NNodes': %lld nodes, more than %d", (long long)nodes,
			       JOB_WORKERS_MAX);
		goto out;
	}
	j.workers = (int32_t)nodes;
	j.dem[DIM_CPU] = cpu;
	j.dem[DIM_MEM] = mem;
	if ((rc = trace_job_gpus(rd, &j, gpus, gpus ? 1000 : 0)))
		goto out;
	if (*t.model && gpus && (rc = trace_job_spec(rd, &j, t.model)))
		goto out;
	j.cls = gpus ? JOB_TRAIN : JOB_CPU;
	rc = trace_emit_job(rd, &j, e);
out:
	free(buf);
	return rc;
}

const struct trace_format trace_slurm_sacct = {
	.name = "slurm-sacct",
	.summary = "Slurm accounting: 'sacct -a -P' output ('|'-separated, a header)",
	.kind = TRACE_JOBS,
	TRACE_LINES(sacct_sniff),
	.start = sacct_start,
	.state_size = sizeof(struct sacct),
	.row = sacct_row,
	.close = sacct_close,
};

/* ---- nodes: scontrol show node -o ---- */

static int nodes_sniff(const char *line, size_t len)
{
	return len > 9 && !memcmp(line, "NodeName=", 9);
}

/* The value of key in a "K=V K=V" line, into dst (a value runs to the next word holding
 * '='): 0, or -1 when the key is absent. */
static int kv(const char *line, const char *key, char *dst, size_t size)
{
	size_t kl = strlen(key);
	for (const char *p = line; (p = strstr(p, key)); p += kl) {
		if ((p != line && p[-1] != ' ') || p[kl] != '=')
			continue;
		const char *v = p + kl + 1, *end = v;
		for (;;) { /* the value's words, up to the next one that holds '=' */
			const char *sp = strchr(end, ' ');
			if (!sp) {
				end += strlen(end);
				break;
			}
			const char *w = sp + 1;
			size_t wl = strcspn(w, " ");
			if (memchr(w, '=', wl)) {
				end = sp;
				break;
			}
			end = w + wl;
		}
		while (end > v && end[-1] == ' ') /* scontrol pads some pairs with two blanks */
			end--;
		size_t n = (size_t)(end - v);
		if (n >= size)
			n = size - 1;
		memcpy(dst, v, n);
		dst[n] = '\0';
		return 0;
	}
	return -1;
}

/* Gres "gpu:a100:4(S:0-1),gpu:a100:2,mps:100" into a GPU count and model ("" none). */
static int gres_gpus(struct trace_reader *rd, const char *g, int64_t *n, char *model, size_t msize)
{
	*n = 0;
	*model = '\0';
	if (!strcmp(g, "(null)"))
		return 0;
	char buf[512];
	snprintf(buf, sizeof buf, "%s", g);
	for (char *save = NULL, *it = strtok_r(buf, ",", &save); it;
	     it = strtok_r(NULL, ",", &save)) {
		char *paren = strchr(it, '(');
		if (paren)
			*paren = '\0';
		if (strncmp(it, "gpu", 3) || (it[3] && it[3] != ':'))
			continue;
		char *last = strrchr(it, ':');
		const char *m = "";
		double d;
		if (!last || parse_double(last + 1, &d) || d < 0 || d > 1e6)
			return trace_bad(rd, "Gres '%.60s': no GPU count", g);
		*last = '\0';
		if (last > it + 3)
			m = it + 4;
		if (*model && strcmp(model, m))
			return trace_bad(rd, "Gres '%.60s': GPUs of two models on one node", g);
		snprintf(model, msize, "%s", m);
		*n += trace_round(d);
	}
	return 0;
}

static int scontrol_node(struct trace_reader *rd, const struct csvin_rec *r, struct node *n)
{
	char v[256], model[64];
	double d;
	int64_t ngpu;
	if (!nodes_sniff(r->raw, r->rawlen))
		return trace_bad(rd, "not a node line of 'scontrol show node -o' (NodeName=...)");
	kv(r->raw, "NodeName", v, sizeof v);
	if (!*v || strlen(v) >= sizeof n->name)
		return trace_bad(rd, "NodeName '%.60s': empty or longer than %zu bytes", v,
				 sizeof n->name - 1);
	snprintf(n->name, sizeof n->name, "%s", v);
	if (kv(r->raw, "CPUTot", v, sizeof v) && kv(r->raw, "CPUs", v, sizeof v))
		return trace_bad(rd, "node '%s': no CPUTot", n->name);
	if (parse_double(v, &d) || d < 0 || d > 1e9)
		return trace_bad(rd, "node '%s': CPUTot '%.40s' is not a number", n->name, v);
	n->cap[DIM_CPU] = trace_round(d * 1000);
	if (kv(r->raw, "RealMemory", v, sizeof v))
		return trace_bad(rd, "node '%s': no RealMemory", n->name);
	if (parse_double(v, &d) || d < 0 || d > 1e12)
		return trace_bad(rd, "node '%s': RealMemory '%.40s' is not a number", n->name, v);
	n->cap[DIM_MEM] = trace_round(d);
	if (kv(r->raw, "Gres", v, sizeof v))
		strcpy(v, "(null)");
	if (gres_gpus(rd, v, &ngpu, model, sizeof model))
		return TRACE_BAD;
	if (ngpu > 32) /* CLUSTER_MAX_GPUS */
		return trace_bad(rd, "node '%s': %lld GPUs on one node", n->name, (long long)ngpu);
	trace_node_model(rd, n, ngpu && *model ? model : NULL, ngpu, -1);
	if (!kv(r->raw, "Partitions", v, sizeof v)) {
		v[strcspn(v, ",")] = '\0';
		if (strlen(v) < sizeof n->group)
			snprintf(n->group, sizeof n->group, "%s", v);
	}
	return 0;
}

const struct trace_format trace_slurm_nodes = {
	.name = "slurm-nodes",
	.summary = "Slurm nodes: 'scontrol show node -o' output (one node a line)",
	.kind = TRACE_NODES,
	TRACE_LINES(nodes_sniff),
	.node = scontrol_node,
};
