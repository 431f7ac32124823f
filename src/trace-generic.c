/*
 * trace-generic.c — any CSV with a header, described by a mapping file (schemas/NAME.map,
 * compiled in, or a path given as --format generic:PATH).
 *
 * Mapping file: one directive per line; '#' starts a comment; words split on blanks.
 *   name NAME                   the mapping's name (default: the file's base name)
 *   kind jobs | nodes           what the rows are (default jobs)
 *   header COL,COL,...          the header this mapping recognises (for detection; files
 *                               with another header need --format generic:NAME)
 *   TARGET COLUMN [SCALE]       take TARGET from COLUMN, times SCALE (default 1), rounded
 *   class COLUMN VALUE=CLASS... [*=CLASS]   class by value (infer|train|batch|cpu)
 * Job targets:  arrival start end duration cpu mem num_gpu gpu_milli hbm net sto iocpu
 *               gpu_spec (units as voidfit's: s, millicores, MiB, GPU-milli, MiB per GPU,
 *               MB/s). duration, else end - start (start defaults to arrival); none or
 *               empty = never ran. Without a class line: GPUs -> train, none -> cpu.
 * Node targets: node (its name) group model cpu mem gpu (count) hbm (per GPU) net sto
 *               iocpu.
 * An unmapped target is "not recorded" (-1); every source column is kept raw anyway.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embed.h"
#include "gpumodel.h"
#include "trace.h"

enum {
	G_ARRIVAL,
	G_START,
	G_END,
	G_DURATION,
	G_CPU,
	G_MEM,
	G_NGPU,
	G_MILLI,
	G_HBM,
	G_NET,
	G_STO,
	G_IOCPU,
	G_SPEC,
	G_NAME,
	G_GROUP,
	G_MODEL,
	G_GPU,
	G_CLASS,
	G_NTARGET
};

static const char *const targets[G_NTARGET] = {
	"arrival", "start", "end",   "duration", "cpu",  "mem",   "num_gpu", "gpu_milli", "hbm",
	"net",     "sto",   "iocpu", "gpu_spec", "node", "group", "model",   "gpu",       "class"};

#define MAP_MAX_CLASSES 16

struct trace_map {
	char *name;
	int nodes;               /* kind nodes */
	char *header;            /* "a,b,c" or NULL */
	char *column[G_NTARGET]; /* source column of each target, or NULL */
	double scale[G_NTARGET];
	char *cls_value[MAP_MAX_CLASSES]; /* "*" = any other value */
	int cls[MAP_MAX_CLASSES];
	int ncls;
};

void trace_map_free(struct trace_map *m)
{
	if (!m)
		return;
	free(m->name);
	free(m->header);
	for (int k = 0; k < G_NTARGET; k++)
		free(m->column[k]);
	for (int i = 0; i < m->ncls; i++)
		free(m->cls_value[i]);
	free(m);
}

const char *trace_map_name(const struct trace_map *m)
{
	return m->name;
}

int trace_map_is_nodes(const struct trace_map *m)
{
	return m->nodes;
}

static int class_find(const char *s)
{
	for (int i = 0; i < JOB_NCLASS; i++)
		if (!strcmp(s, job_class_name((enum job_class)i)))
			return i;
	return -1;
}

/* Parse mapping text (NUL-terminated, modified in place); src names it in messages, name
 * is the mapping's name unless a 'name' line gives one. */
static int map_parse(char *text, const char *src, const char *name, struct trace_map **out,
		     struct err *e)
{
	struct trace_map *m = xcalloc(1, sizeof *m);
	int rc = 0, lineno = 0;
	for (int k = 0; k < G_NTARGET; k++)
		m->scale[k] = 1;
	for (char *line = text, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		char *w[2 + MAP_MAX_CLASSES], *s2 = NULL;
		int nw = 0;
		for (char *t = strtok_r(line, " \t\r", &s2); t && nw < 2 + MAP_MAX_CLASSES;
		     t = strtok_r(NULL, " \t\r", &s2))
			w[nw++] = t;
		if (!nw)
			continue;
		if (!strcmp(w[0], "name") && nw == 2) {
			free(m->name);
			m->name = xstrdup(w[1]);
		} else if (!strcmp(w[0], "kind") && nw == 2 &&
			   (!strcmp(w[1], "jobs") || !strcmp(w[1], "nodes"))) {
			m->nodes = !strcmp(w[1], "nodes");
		} else if (!strcmp(w[0], "header") && nw == 2) {
			free(m->header);
			m->header = xstrdup(w[1]);
		} else if (!strcmp(w[0], "class") && nw >= 3) {
			m->column[G_CLASS] = xstrdup(w[1]);
			for (int i = 2; i < nw; i++) {
				char *eq = strchr(w[i], '=');
				int c = eq ? class_find(eq + 1) : -1;
				if (c < 0) {
					rc = err_set(e, VF_EINPUT, "%s:%d: '%s' is not VALUE=CLASS",
						     src, lineno, w[i]);
					goto out;
				}
				*eq = '\0';
				m->cls_value[m->ncls] = xstrdup(w[i]);
				m->cls[m->ncls++] = c;
			}
		} else {
			int k = 0;
			while (k < G_NTARGET && strcmp(targets[k], w[0]))
				k++;
			if (k == G_NTARGET || k == G_CLASS || nw < 2 || nw > 3 ||
			    (nw == 3 && parse_double(w[2], &m->scale[k]))) {
				rc = err_set(e, VF_EINPUT, "%s:%d: '%s' is not a mapping line", src,
					     lineno, w[0]);
				goto out;
			}
			free(m->column[k]);
			m->column[k] = xstrdup(w[1]);
		}
	}
	if (!m->name)
		m->name = xstrdup(name);
out:
	if (rc) {
		trace_map_free(m);
		m = NULL;
	}
	*out = m;
	return rc;
}

static int load_embedded(const char *name, struct trace_map **out, struct err *e)
{
	for (const struct embed_file *f = embed_files; f->name; f++) {
		size_t n = strlen(f->name);
		if (n < 5 || strcmp(f->name + n - 4, ".map") || strncmp(f->name, name, n - 4) ||
		    name[n - 4])
			continue;
		char *text = xstrndup(f->data, f->len);
		char base[128];
		snprintf(base, sizeof base, "%.*s", (int)(n - 4), f->name);
		int rc = map_parse(text, f->name, base, out, e);
		free(text);
		return rc;
	}
	return -1;
}

int trace_map_load(const char *spec, struct trace_map **out, struct err *e)
{
	*out = NULL;
	if (!strchr(spec, '/')) {
		int rc = load_embedded(spec, out, e);
		if (rc >= 0)
			return rc;
	}
	FILE *f = fopen(spec, "rb");
	if (!f)
		return err_set(e, VF_EINPUT,
			       "mapping '%s': neither a built-in mapping nor a readable file",
			       spec);
	char *text = NULL;
	size_t len = 0, cap = 0, n;
	char buf[4096];
	while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
		xgrow(&text, &cap, len + n + 1, 1);
		memcpy(text + len, buf, n);
		len += n;
		if (len > 65536)
			break;
	}
	fclose(f);
	if (len > 65536) {
		free(text);
		return err_set(e, VF_EINPUT, "%s: a mapping file over 64 KiB", spec);
	}
	xgrow(&text, &cap, len + 1, 1);
	text[len] = '\0';
	const char *base = strrchr(spec, '/');
	char name[128];
	snprintf(name, sizeof name, "%s", base ? base + 1 : spec);
	char *dot = strrchr(name, '.');
	if (dot && !strcmp(dot, ".map"))
		*dot = '\0';
	int rc = map_parse(text, spec, name, out, e);
	free(text);
	return rc;
}

/* Does the record equal the mapping's header line, field by field? */
static int header_equal(const struct trace_map *m, const struct csvin_rec *r)
{
	if (!m->header || r->bad)
		return 0;
	const char *h = m->header;
	for (size_t i = 0; i < r->n; i++) {
		const char *f = r->field[i] ? r->field[i] : "";
		size_t n = strlen(f);
		if (strncmp(h, f, n) || (h[n] != ',' && h[n] != '\0'))
			return 0;
		h += n;
		if (*h == ',' && i + 1 < r->n)
			h++;
	}
	return *h == '\0';
}

struct trace_map *trace_map_detect(const struct csvin_rec *first)
{
	for (const struct embed_file *f = embed_files; f->name; f++) {
		size_t n = strlen(f->name);
		if (n < 5 || strcmp(f->name + n - 4, ".map"))
			continue;
		char name[128];
		snprintf(name, sizeof name, "%.*s", (int)(n - 4), f->name);
		struct trace_map *m;
		struct err e;
		if (load_embedded(name, &m, &e))
			continue;
		if (header_equal(m, first))
			return m;
		trace_map_free(m);
	}
	return NULL;
}

static int generic_start(struct trace_reader *rd, const struct csvin_rec *header, struct err *e)
{
	struct trace_map *m = rd->map;
	if (!m)
		return err_set(e, VF_EINPUT,
			       "the generic format needs a mapping "
			       "(--format generic:NAME)");
	if (!header)
		return err_set(e, VF_EINPUT, "mapping '%s': the file has no header", m->name);
	free(rd->col);
	rd->col = xcalloc(G_NTARGET, sizeof *rd->col);
	rd->ncol = G_NTARGET;
	rd->colname = (const char *const *)m->column;
	rd->nfields = header->n;
	for (int k = 0; k < G_NTARGET; k++) {
		rd->col[k] = -1;
		if (!m->column[k])
			continue;
		for (size_t i = 0; i < header->n; i++)
			if (header->field[i] && !strcmp(header->field[i], m->column[k]))
				rd->col[k] = (int)i;
		if (rd->col[k] < 0)
			return err_set(e, VF_EINPUT, "header lacks column '%s' of mapping '%s'",
				       m->column[k], m->name);
	}
	return 0;
}

static int amount(struct trace_reader *rd, const struct csvin_rec *r, int k, int64_t *v)
{
	return trace_amount(rd, r, k, rd->map->scale[k], v);
}

static int generic_nodes_row(struct trace_reader *rd, const struct csvin_rec *r, struct err *e)
{
	struct node n;
	int64_t v[G_NTARGET];
	int rc;
	node_init(&n);
	const char *name = trace_field(rd, r, G_NAME);
	const char *group = trace_field(rd, r, G_GROUP);
	if (!name)
		return trace_bad(rd, "no node name");
	if (strlen(name) >= sizeof n.name || (group && strlen(group) >= sizeof n.group))
		return trace_bad(rd, "node name or group too long");
	strcpy(n.name, name);
	if (group)
		strcpy(n.group, group);
	static const int num[] = {G_CPU, G_MEM, G_GPU, G_HBM, G_NET, G_STO, G_IOCPU};
	for (size_t i = 0; i < sizeof num / sizeof *num; i++)
		if ((rc = amount(rd, r, num[i], &v[num[i]])))
			return rc;
	if (v[G_GPU] > 32) /* CLUSTER_MAX_GPUS */
		return trace_bad(rd, "%lld GPUs on one node", (long long)v[G_GPU]);
	n.cap[DIM_CPU] = v[G_CPU];
	n.cap[DIM_MEM] = v[G_MEM];
	trace_node_gpus(&n, trace_field(rd, r, G_MODEL), v[G_GPU] < 0 ? 0 : v[G_GPU], v[G_HBM]);
	n.cap[DIM_NET] = v[G_NET];
	n.cap[DIM_STO] = v[G_STO];
	n.cap[DIM_IOCPU] = v[G_IOCPU];
	return trace_emit_node(rd, &n, e);
}

static int generic_row(struct trace_reader *rd, const struct csvin_rec *r, struct err *e)
{
	const struct trace_map *m = rd->map;
	if (m->nodes)
		return generic_nodes_row(rd, r, e);
	struct job j;
	int64_t v[G_NTARGET];
	int rc;
	job_init(&j);
	static const int num[] = {G_ARRIVAL, G_START, G_END, G_DURATION, G_CPU, G_MEM,
				  G_NGPU,    G_MILLI, G_HBM, G_NET,      G_STO, G_IOCPU};
	for (size_t i = 0; i < sizeof num / sizeof *num; i++)
		if ((rc = amount(rd, r, num[i], &v[num[i]])))
			return rc;
	if (v[G_ARRIVAL] < 0)
		return trace_bad(rd, "no arrival time");
	j.arrival = v[G_ARRIVAL];
	int64_t start = v[G_START] >= 0 ? v[G_START] : j.arrival;
	if (v[G_DURATION] >= 0) {
		j.duration = v[G_DURATION];
	} else if (v[G_END] >= 0) {
		if (v[G_END] < start)
			return trace_bad(rd, "end %lld before start %lld", (long long)v[G_END],
					 (long long)start);
		j.duration = v[G_END] - start;
	}
	if (j.duration < 0)
		j.flags |= JOB_F_NOTRAN;
	j.dem[DIM_CPU] = v[G_CPU];
	j.dem[DIM_MEM] = v[G_MEM];
	int64_t ngpu = v[G_NGPU] < 0 ? 0 : v[G_NGPU];
	if ((rc = trace_job_gpus(rd, &j, ngpu, ngpu ? (v[G_MILLI] < 0 ? 1000 : v[G_MILLI]) : 0)))
		return rc;
	j.dem[DIM_HBM] = v[G_HBM] < 0 ? -1 : v[G_HBM] * (ngpu ? ngpu : 1);
	j.dem[DIM_NET] = v[G_NET];
	j.dem[DIM_STO] = v[G_STO];
	j.dem[DIM_IOCPU] = v[G_IOCPU];
	const char *spec = trace_field(rd, r, G_SPEC);
	if (spec) {
		struct err me = {0};
		if (gpumodel_mask(spec, &j.gpu_spec, &me))
			return trace_bad(rd, "gpu_spec: %s", me.msg);
	}
	j.cls = ngpu ? JOB_TRAIN : JOB_CPU;
	if (m->ncls) {
		const char *c = trace_field(rd, r, G_CLASS);
		int found = 0;
		for (int i = 0; i < m->ncls && !found; i++)
			if ((c && !strcmp(c, m->cls_value[i])) || !strcmp(m->cls_value[i], "*")) {
				j.cls = (uint8_t)m->cls[i];
				found = 1;
			}
		if (!found)
			return trace_bad(rd, "column '%s': '%.40s' maps to no class",
					 m->column[G_CLASS], c ? c : "");
	}
	return trace_emit_job(rd, &j, e);
}

const struct trace_format trace_generic = {
	.name = "generic",
	.summary = "any CSV with a header, through a mapping (--format generic:NAME|PATH)",
	.kind = TRACE_JOBS,
	.has_header = 1,
	.start = generic_start,
	.row = generic_row,
};
