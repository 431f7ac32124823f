/*
 * clusterspec.c — reading cluster-spec files (syntax in clusterspec.h) into nodes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "clusterspec.h"
#include "gpumodel.h"
#include "words.h"

#define SPEC_MAX_BYTES (1 << 20)
/* Nodes in a spec, over all its groups: a replay holds some 800 bytes a node per policy it
 * runs at once (80 MB here; 10 million nodes took 8 GB from a ten-line file), and the
 * largest GPU clusters have tens of thousands of nodes. */
#define SPEC_MAX_NODES 100000

static int valid_group(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n >= sizeof((struct node *)0)->group)
		return 0;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == n;
}

/* One line's words w[0..nw); appends its nodes to out. */
static int parse_line(char **w, int nw, const char *fname, int line, struct job_set *out,
		      size_t first, struct err *e)
{
	int64_t count, gpus, v;
	if (nw < 4)
		return err_set(e, VF_EINPUT, "%s:%d: want 'GROUP COUNT MODEL GPUS [DIM=VALUE...]'",
			       fname, line);
	if (!valid_group(w[0]))
		return err_set(e, VF_EINPUT, "%s:%d: group '%s': want 1-23 of A-Z a-z 0-9 _ . -",
			       fname, line, w[0]);
	for (size_t i = first; i < out->nnodes; i++)
		if (!strcmp(out->nodes[i].group, w[0]))
			return err_set(e, VF_EINPUT, "%s:%d: group '%s' is defined twice", fname,
				       line, w[0]);
	if (parse_i64(w[1], &count) || count < 1 || count > SPEC_MAX_NODES)
		return err_set(e, VF_EINPUT, "%s:%d: count '%s' is not an integer in 1..%d", fname,
			       line, w[1], SPEC_MAX_NODES);
	if (out->nnodes - first + (size_t)count > SPEC_MAX_NODES)
		return err_set(e, VF_EINPUT,
			       "%s:%d: more than %d nodes in the spec (memory grows with them)",
			       fname, line, SPEC_MAX_NODES);
	int model = -1;
	if (strcmp(w[2], "-") && (model = gpumodel_find(w[2])) < 0)
		return err_set(e, VF_EINPUT, "%s:%d: model '%s' is not a known GPU model (or '-')",
			       fname, line, w[2]);
	if (parse_i64(w[3], &gpus) || gpus < 0 || gpus > CLUSTER_MAX_GPUS)
		return err_set(e, VF_EINPUT, "%s:%d: gpus '%s' is not an integer in 0..%d", fname,
			       line, w[3], CLUSTER_MAX_GPUS);
	if ((model < 0) != (gpus == 0))
		return err_set(e, VF_EINPUT, "%s:%d: %s", fname, line,
			       model < 0 ? "nodes without a GPU model ('-') have 0 GPUs"
					 : "a GPU model needs GPUS above 0 (or model '-')");
	struct node n;
	node_init(&n);
	snprintf(n.group, sizeof n.group, "%s", w[0]);
	n.model = (int16_t)model;
	n.ngpu = (int32_t)gpus;
	int64_t hbm = model >= 0 ? gpumodel_get(model)->hbm_mib : 0, per_rack = 0;
	int hbm_set = 0;
	for (int i = 4; i < nw; i++) {
		char *eq = strchr(w[i], '=');
		if (eq)
			*eq = '\0';
		if (eq && !strcmp(w[i], "rack")) {
			if (per_rack)
				return err_set(e, VF_EINPUT, "%s:%d: rack is given twice", fname,
					       line);
			if (parse_i64(eq + 1, &per_rack) || per_rack < 1 ||
			    per_rack > SPEC_MAX_NODES)
				return err_set(e, VF_EINPUT,
					       "%s:%d: rack '%s' is not an integer in 1..%d", fname,
					       line, eq + 1, SPEC_MAX_NODES);
			continue;
		}
		int d = job_dim_find(w[i]);
		if (!eq || d < 0 || d == DIM_GPU)
			return err_set(e, VF_EINPUT,
				       "%s:%d: '%s%s%s': want cpu=, mem=, hbm=, net=, "
				       "sto=, iocpu= or rack=",
				       fname, line, w[i], eq ? "=" : "", eq ? eq + 1 : "");
		if (parse_i64(eq + 1, &v) || v < 0)
			return err_set(e, VF_EINPUT, "%s:%d: %s '%s' is not an integer >= 0", fname,
				       line, w[i], eq + 1);
		if (d == DIM_HBM ? hbm_set : n.cap[d] >= 0)
			return err_set(e, VF_EINPUT, "%s:%d: %s is given twice", fname, line, w[i]);
		if (d == DIM_HBM) {
			if (gpus == 0)
				return err_set(e, VF_EINPUT, "%s:%d: hbm= on nodes without GPUs",
					       fname, line);
			hbm = v;
			hbm_set = 1;
		} else
			n.cap[d] = v;
	}
	n.cap[DIM_GPU] = gpus * 1000;
	n.cap[DIM_HBM] = gpus * hbm;
	for (int64_t k = 0; k < count; k++) {
		snprintf(n.name, sizeof n.name, "%s-%04lld", n.group, (long long)k);
		if (per_rack)
			snprintf(n.rack, sizeof n.rack, "%s-r%03d", n.group,
				 (int)(k / per_rack % SPEC_MAX_NODES));
		job_set_add_node(out, &n);
	}
	return VF_OK;
}

int clusterspec_parse(const char *text, size_t len, const char *fname, struct job_set *out,
		      struct err *e)
{
	int rc, ngroups = 0;
	size_t first = out->nnodes;
	struct words r;
	if ((rc = words_open(&r, text, len, fname, e)))
		return rc;
	while ((rc = words_next(&r, e)) > 0) {
		rc = parse_line(r.w, r.n, fname, r.lineno, out, first, e);
		if (rc)
			break;
		ngroups++;
	}
	if (rc < 0)
		rc = -rc;
	else if (!rc && !ngroups)
		rc = err_set(e, VF_EINPUT, "%s: no node groups", fname);
	words_close(&r);
	if (rc)
		out->nnodes = first;
	return rc;
}

int clusterspec_load(const char *path, struct job_set *out, struct err *e)
{
	struct sbuf b;
	sbuf_init(&b);
	int rc = words_read_file(path, SPEC_MAX_BYTES, "a cluster spec", &b, e);
	if (!rc)
		rc = clusterspec_parse(b.s, b.len, path, out, e);
	sbuf_release(&b);
	return rc;
}
