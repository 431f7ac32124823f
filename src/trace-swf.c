/*
 * trace-swf.c — the Standard Workload Format of the Parallel Workloads Archive (Chapin,
 * Cirne, Feitelson et al., "Benchmarks and standards for the evaluation of parallel job
 * schedulers", JSSPP 1999; the archive's page "The Standard Workload Format").
 *
 * One job a line, 18 fields separated by blanks, -1 = unknown:
 *   1 job number, 2 submit time (s), 3 wait time, 4 run time, 5 allocated processors,
 *   6 average CPU time used, 7 used memory (KB per processor), 8 requested processors,
 *   9 requested time, 10 requested memory (KB per processor), 11 status, 12 user,
 *   13 group, 14 executable, 15 queue, 16 partition, 17 preceding job, 18 think time.
 * Lines beginning with ';' are header comments ("; MaxNodes: 128"): not rows.
 *   arrival  = submit time
 *   duration = run time; -1, or a job with no processors allocated, never ran
 *   demand   = cpu: allocated processors (else requested) x 1000 millicores; mem:
 *              requested memory (else used) x processors, KB -> MiB; no GPU (class cpu)
 * Nodes: MaxNodes nodes of MaxProcs / MaxNodes processors each (and MaxMemory KB per
 * processor, when given), named swf-1.., made at the first job line; a log without
 * MaxNodes and MaxProcs takes --cluster.
 * Gangs: SWF counts processors, not nodes. With P processors a node (import's --node-procs,
 * else MaxProcs / MaxNodes when MaxNodes divides MaxProcs), a job of p > P processors
 * spans nodes: it becomes a gang of W = ceil(p / P) workers of ceil(p / W) processors
 * each (the fewest nodes, evenly loaded: W x ceil(p / W) exceeds p by less than W), its
 * memory per worker the per-processor memory times that. A log whose header gives sizes
 * that do not divide (nodes of several sizes) says no P: a job larger than the smaller
 * share is quarantined with the reason, never shrunk; a log that gives no sizes at all
 * keeps every job one worker (the replay judges it against --cluster's nodes).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

#define SWF_FIELDS 18

enum {
	S_JOB,
	S_SUBMIT,
	S_WAIT,
	S_RUN,
	S_PROCS,
	S_CPUT,
	S_USEDMEM,
	S_REQPROCS,
	S_REQTIME,
	S_REQMEM
};

struct swf {
	int64_t max_nodes, max_procs, max_mem; /* from the header, 0 unknown */
	int nodes_made;                        /* the header's nodes were sent */
};

/* Split line into at most max blank-separated fields (pointers into buf, a copy). */
static size_t split_blanks(char *buf, char **f, size_t max)
{
	size_t n = 0;
	char *p = buf;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (!*p)
			return n;
		if (n == max)
			return max + 1;
		f[n++] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r')
			p++;
		if (*p)
			*p++ = '\0';
	}
}

static int sniff(const char *line, size_t len)
{
	if (len && line[0] == ';')
		return 1;
	char buf[512], *f[SWF_FIELDS + 1];
	if (len >= sizeof buf)
		return 0;
	memcpy(buf, line, len);
	buf[len] = '\0';
	if (split_blanks(buf, f, SWF_FIELDS) != SWF_FIELDS)
		return 0;
	for (size_t i = 0; i < SWF_FIELDS; i++)
		if (!trace_is_number(f[i], 0))
			return 0;
	return 1;
}

/* A header comment "; Key: value": keep the sizes it gives. */
static void header(struct swf *s, const char *line)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{"MaxNodes:", offsetof(struct swf, max_nodes)},
		{"MaxProcs:", offsetof(struct swf, max_procs)},
		{"MaxMemory:", offsetof(struct swf, max_mem)},
	};
	line++;
	while (*line == ' ' || *line == '\t')
		line++;
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
		size_t kl = strlen(keys[i].key);
		if (strncmp(line, keys[i].key, kl))
			continue;
		double v;
		char *end;
		v = strtod(line + kl, &end);
		if (end != line + kl && v > 0 && v < 1e12)
			*(int64_t *)(void *)((char *)s + keys[i].off) = (int64_t)v;
	}
}

/* The per-node processors, or -1 when the header did not say. */
static int64_t node_procs(const struct swf *s)
{
	return s->max_nodes > 0 && s->max_procs > 0 ? s->max_procs / s->max_nodes : -1;
}

/* P, the processors of one node a gang's workers are cut by: --node-procs, else the
 * header's when MaxNodes divides MaxProcs; -1 when neither says. */
static int64_t gang_procs(const struct trace_reader *rd, const struct swf *s)
{
	if (rd->node_procs > 0)
		return rd->node_procs;
	int64_t per = node_procs(s);
	return per > 0 && per * s->max_nodes == s->max_procs ? per : -1;
}

static int make_nodes(struct trace_reader *rd, struct swf *s, struct err *e)
{
	s->nodes_made = 1;
	int64_t per = node_procs(s);
	if (per <= 0)
		return 0;
	if (s->max_nodes > 100000) /* a cluster spec's bound (clusterspec.h) */
		return err_set(e, VF_EINPUT, "MaxNodes %lld: more nodes than voidfit replays",
			       (long long)s->max_nodes);
	for (int64_t i = 0; i < s->max_nodes; i++) {
		struct node n;
		int rc;
		node_init(&n);
		snprintf(n.name, sizeof n.name, "swf-%lld", (long long)(i + 1));
		n.cap[DIM_CPU] = per * 1000;
		n.cap[DIM_MEM] = s->max_mem > 0 ? s->max_mem * per / 1024 : -1;
		trace_node_gpus(&n, NULL, 0, -1);
		if ((rc = trace_emit_node(rd, &n, e)))
			return rc;
	}
	return 0;
}

/* Field k as an integer (-1 and other negatives: unknown, -1): 0, or TRACE_BAD. */
static int field(struct trace_reader *rd, char **f, int k, int64_t *v)
{
	static const char *const names[] = {
		"job number",           "submit time",      "wait time",   "run time",
		"allocated processors", "average CPU time", "used memory", "requested processors",
		"requested time",       "requested memory"};
	double d;
	if (parse_double(f[k], &d) || d > 9e15)
		return trace_bad(rd, "field %d (%s): '%.40s' is not a number", k + 1, names[k],
				 f[k]);
	*v = d < 0 ? -1 : trace_round(d);
	return 0;
}

/* The line's fields 1 to S_REQMEM + 1 into v (unknown: -1): 0, or TRACE_BAD when it has
 * not 18 fields or one of those is no number. */
static int line_fields(struct trace_reader *rd, const char *line, int64_t *v)
{
	char *buf = xstrdup(line), *f[SWF_FIELDS + 1];
	size_t n = split_blanks(buf, f, SWF_FIELDS);
	int rc = 0;
	if (n != SWF_FIELDS)
		rc = trace_bad(rd, "%s fields, expected %d",
			       n > SWF_FIELDS ? "more than 18" : "fewer", SWF_FIELDS);
	for (int k = 0; k <= S_REQMEM && !rc; k++)
		rc = field(rd, f, k, &v[k]);
	free(buf);
	return rc;
}

static int swf_row(struct trace_reader *rd, const struct csvin_rec *r, struct err *e)
{
	struct swf *s = rd->state;
	const char *line = r->raw;
	while (*line == ' ' || *line == '\t')
		line++;
	if (*line == ';') {
		header(s, line);
		return TRACE_SKIP;
	}
	int rc;
	if (!s->nodes_made && (rc = make_nodes(rd, s, e)))
		return rc;
	int64_t v[S_REQMEM + 1];
	if ((rc = line_fields(rd, r->raw, v)))
		return rc;
	if (v[S_SUBMIT] < 0)
		return trace_bad(rd, "field 2 (submit time) is unknown");
	struct job j;
	job_init(&j);
	j.arrival = v[S_SUBMIT];
	int64_t procs = v[S_PROCS] > 0 ? v[S_PROCS] : v[S_REQPROCS];
	if (procs <= 0)
		return trace_bad(rd, "neither allocated nor requested processors known");
	int64_t P = gang_procs(rd, s), per = node_procs(s), w = 1, q = procs;
	int ran = v[S_RUN] >= 0 && v[S_PROCS] != 0;
	if (P < 0 && per > 0 && procs > per)
		return trace_bad(rd,
				 "%lld processors, more than MaxProcs / MaxNodes (%lld / %lld, not "
				 "whole): the nodes' size is not known, so neither are the gang's "
				 "workers (--node-procs N gives it)",
				 (long long)procs, (long long)s->max_procs,
				 (long long)s->max_nodes);
	if (P > 0 && procs > P) { /* a gang: the fewest nodes, evenly loaded */
		w = (procs + P - 1) / P;
		if (w > JOB_WORKERS_MAX)
			return trace_bad(rd, "%lld processors: %lld nodes of %lld, more than %d",
					 (long long)procs, (long long)w, (long long)P,
					 JOB_WORKERS_MAX);
		q = (procs + w - 1) / w;
	}
	j.workers = (int32_t)w;
	j.dem[DIM_CPU] = q * 1000;
	int64_t mem = v[S_REQMEM] >= 0 ? v[S_REQMEM] : v[S_USEDMEM];
	j.dem[DIM_MEM] = mem >= 0 ? (mem * q + 1023) / 1024 : -1;
	trace_job_gpus(rd, &j, 0, 0);
	j.cls = JOB_CPU;
	if (ran)
		j.duration = v[S_RUN];
	else
		j.flags |= JOB_F_NOTRAN;
	return trace_emit_job(rd, &j, e);
}

const struct trace_format trace_swf = {
	.name = "swf",
	.summary = "Parallel Workloads Archive standard workload format (*.swf)",
	.kind = TRACE_MIXED,
	TRACE_LINES(sniff),
	.state_size = sizeof(struct swf),
	.row = swf_row,
};
