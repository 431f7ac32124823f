/*
 * store-nodes.c — the nodes of a trace, in column blocks of at most STORE_BLOCK_ROWS nodes
 * (node_blocks, schema version 11), so that a trace's nodes cost about what their file
 * does, not a table row each (70-odd bytes a node, more than the raw file's line).
 *
 * A ZBLK_NODES block (rows = nodes) holds the varint NODES_VERSION, then the string
 * columns name, group, model (the GPU model's name, "" for a node without GPUs) and rack
 * ("" for none), then the integer columns ngpu, the seven capacities (DIM_ order) and
 * enriched, each coded against any earlier integer column (a gpu capacity is 1000 x ngpu).
 * A store made before version 11 keeps its nodes as rows of the nodes table, one a node in
 * idx order: they are read first, then the blocks in seq order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "gpumodel.h"
#include "store-int.h"

#define NODES_VERSION 1
#define NODES_NSTR    4
#define NODES_NINT    (2 + DIM_N) /* ngpu, cap[], enriched */

/* The string column c of node n: name, group, GPU model ("" for none), rack. */
static const char *node_str(const struct node *n, int c)
{
	if (c == 2) {
		const struct gpumodel *gm = n->model >= 0 ? gpumodel_get(n->model) : NULL;
		return gm ? gm->name : "";
	}
	return c == 0 ? n->name : c == 1 ? n->group : n->rack;
}

/* The integer column c of node n. */
static int64_t node_int(const struct node *n, int c)
{
	return c == 0 ? n->ngpu : c <= DIM_N ? n->cap[c - 1] : n->enriched;
}

/* Code nodes[0..n) into one sealed block in out. */
static int encode_nodes(struct store *s, const struct node *nodes, size_t n, struct zblk_buf *out,
			struct err *e)
{
	struct zblk_buf b = {0};
	struct zblk_str *str = xmalloc((n ? n : 1) * sizeof *str);
	int64_t *v = xmalloc((n ? n : 1) * NODES_NINT * sizeof *v);
	zblk_put_varint(&b, NODES_VERSION);
	for (int c = 0; c < NODES_NSTR; c++) {
		for (size_t i = 0; i < n; i++) {
			const char *t = node_str(&nodes[i], c);
			str[i] = (struct zblk_str){(const uint8_t *)t, strlen(t)};
		}
		zblk_put_str(&b, str, n);
	}
	const int64_t *refs[NODES_NINT];
	for (int c = 0; c < NODES_NINT; c++) {
		int64_t *col = v + (size_t)c * n;
		for (size_t i = 0; i < n; i++)
			col[i] = node_int(&nodes[i], c);
		zblk_put_i64(&b, col, NULL, n, refs, NULL, c);
		refs[c] = col;
	}
	zblk_buf_reset(out);
	int rc = zblk_seal(s->z, ZBLK_NODES, n, b.p, b.len, out, e);
	zblk_buf_release(&b);
	FREE_ALL(str, v);
	return rc;
}

int store_nodes_add(struct store *s, int64_t trace_id, const struct node *nodes, size_t n,
		    struct err *e)
{
	sqlite3_stmt *st;
	int64_t seq = 0;
	char sql[128];
	snprintf(sql, sizeof sql, "SELECT count(*) FROM node_blocks WHERE trace_id = %lld",
		 (long long)trace_id);
	int rc = store_query_int(s, sql, &seq, e);
	if (rc || (rc = store_prep(s,
				   "INSERT INTO node_blocks(trace_id, seq, nrows, data) "
				   "VALUES (?,?,?,?)",
				   &st, e)))
		return rc;
	struct zblk_buf sealed = {0};
	for (size_t at = 0; at < n && !rc; at += STORE_BLOCK_ROWS) {
		size_t k = n - at < STORE_BLOCK_ROWS ? n - at : STORE_BLOCK_ROWS;
		if ((rc = encode_nodes(s, nodes + at, k, &sealed, e)))
			break;
		sqlite3_bind_int64(st, 1, trace_id);
		sqlite3_bind_int64(st, 2, seq++);
		sqlite3_bind_int64(st, 3, (int64_t)k);
		sqlite3_bind_blob64(st, 4, sealed.p, sealed.len, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = store_sqlerr(s, e, "add node block");
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	zblk_buf_release(&sealed);
	if (!rc) {
		snprintf(sql, sizeof sql, "UPDATE traces SET nnodes = nnodes + %zu WHERE id = %lld",
			 n, (long long)trace_id);
		if (!(rc = store_exec(s, sql, e)))
			rc = store_seal(s, "traces", trace_id, e);
	}
	return rc;
}

/* Is ngpu a node's GPU count? An import refuses more than a node holds, so more is damage. */
static int gpus_ok(int64_t ngpu)
{
	return ngpu >= 0 && ngpu <= CLUSTER_MAX_GPUS;
}

/* The model id of a stored name (NULL or "": none). */
static int16_t model_of(const char *name)
{
	if (!name || !name[0])
		return -1;
	int m = gpumodel_find(name);
	return (int16_t)(m >= 0 ? m : gpumodel_unknown());
}

/* The rows of the nodes table (a store made before version 11) into out. */
static int load_rows(struct store *s, int64_t trace_id, struct job_set *out, struct err *e)
{
	struct store_rows q;
	int rc = store_rows_begin(
		s, &q,
		"SELECT name, grp, model, ngpu, cpu_milli, mem_mib, gpu_milli, hbm_mib, "
		"net_mbps, sto_mbps, iocpu_milli, enriched, rack FROM nodes "
		"WHERE trace_id = ? ORDER BY idx",
		&trace_id, e);
	sqlite3_stmt *st = q.st;
	while (!rc && store_rows_next(&q)) {
		struct node nd;
		node_init(&nd);
		snprintf(nd.name, sizeof nd.name, "%s", (const char *)sqlite3_column_text(st, 0));
		snprintf(nd.group, sizeof nd.group, "%s", (const char *)sqlite3_column_text(st, 1));
		nd.model = model_of((const char *)sqlite3_column_text(st, 2));
		for (int d = 0; d < DIM_N; d++)
			nd.cap[d] = sqlite3_column_int64(st, 4 + d);
		nd.enriched = (uint8_t)sqlite3_column_int64(st, 11);
		const char *rack = (const char *)sqlite3_column_text(st, 12);
		if (rack)
			snprintf(nd.rack, sizeof nd.rack, "%s", rack);
		int64_t ngpu = sqlite3_column_int64(st, 3);
		if (!gpus_ok(ngpu)) {
			rc = err_set(e, VF_ESTORE,
				     "%s: trace %lld, node %zu '%s': %lld GPUs, at most %d on one "
				     "node (the store is damaged: 'voidfit check' tells more)",
				     s->path, (long long)trace_id, out->nnodes, nd.name,
				     (long long)ngpu, CLUSTER_MAX_GPUS);
			break;
		}
		nd.ngpu = (int32_t)ngpu;
		job_set_add_node(out, &nd);
	}
	return store_rows_end(&q, rc, "load nodes");
}

/* Copy string z into dst (size cap) as a NUL-terminated string: -1 if it does not fit or
 * holds a NUL. */
static int str_to(char *dst, size_t cap, const struct zblk_str *z)
{
	if (z->len >= cap || memchr(z->p, 0, z->len))
		return -1;
	memcpy(dst, z->p, z->len);
	dst[z->len] = '\0';
	return 0;
}

/* Decode one nodes block of n rows (raw: inflated) and append its nodes to out (a
 * struct job_set). */
static int decode_nodes(void *u, const struct zblk_buf *raw, size_t n, struct err *e)
{
	struct job_set *out = u;
	struct zblk_reader r;
	uint64_t version;
	zblk_reader_init(&r, raw->p, raw->len);
	if (zblk_get_varint(&r, &version) || version != NODES_VERSION)
		return err_set(e, VF_ESTORE, "bad header");
	struct zblk_str *str = xmalloc((n ? n : 1) * NODES_NSTR * sizeof *str);
	int64_t *v = xmalloc((n ? n : 1) * NODES_NINT * sizeof *v);
	const int64_t *refs[NODES_NINT];
	int rc = 0;
	for (int c = 0; c < NODES_NSTR && !rc; c++)
		if (zblk_get_str(&r, str + (size_t)c * n, n))
			rc = err_set(e, VF_ESTORE, "string column %d is damaged", c);
	for (int c = 0; c < NODES_NINT && !rc; c++) {
		if (zblk_get_i64(&r, v + (size_t)c * n, NULL, n, refs, NULL, c))
			rc = err_set(e, VF_ESTORE, "column %d is damaged", c);
		refs[c] = v + (size_t)c * n;
	}
	if (!rc && r.pos != r.len)
		rc = err_set(e, VF_ESTORE, "%zu bytes left over", r.len - r.pos);
	for (size_t i = 0; i < n && !rc; i++) {
		struct node nd;
		char model[64];
		node_init(&nd);
		if (str_to(nd.name, sizeof nd.name, &str[i]) ||
		    str_to(nd.group, sizeof nd.group, &str[n + i]) ||
		    str_to(model, sizeof model, &str[2 * n + i]) ||
		    str_to(nd.rack, sizeof nd.rack, &str[3 * n + i])) {
			rc = err_set(e, VF_ESTORE, "node %zu: a name too long", i);
			break;
		}
		nd.model = model_of(model);
		for (int d = 0; d < DIM_N; d++)
			nd.cap[d] = v[(size_t)(1 + d) * n + i];
		int64_t en = v[(size_t)(1 + DIM_N) * n + i];
		if (en < 0 || en > UINT8_MAX) {
			rc = err_set(e, VF_ESTORE, "node %zu: enriched out of range", i);
			break;
		}
		nd.enriched = (uint8_t)en;
		if (!gpus_ok(v[i])) {
			rc = err_set(e, VF_ESTORE,
				     "node %zu '%s': %lld GPUs, at most %d on one node", i, nd.name,
				     (long long)v[i], CLUSTER_MAX_GPUS);
			break;
		}
		nd.ngpu = (int32_t)v[i];
		job_set_add_node(out, &nd);
	}
	FREE_ALL(str, v);
	return rc;
}

/* A nodes block's most bytes: its version, each string column's header and each node's
 * strings at their longest, and the integer columns. */
static uint64_t nodes_max_bytes(uint64_t rows)
{
	uint64_t per = 10 + NODE_NAME_MAX + 10 + 24 + 10 + 64 + 10 + 32;
	return 10 + NODES_NSTR * 64 + rows * per +
	       NODES_NINT * (uint64_t)zblk_i64_max((size_t)rows);
}

int store_nodes_load(struct store *s, int64_t trace_id, struct job_set *out, struct err *e)
{
	const struct store_blocks b = {.table = "node_blocks",
				       .what = "node",
				       .rows = "nodes",
				       .kind = ZBLK_NODES,
				       .max_bytes = nodes_max_bytes,
				       .decode = decode_nodes,
				       .u = out};
	int rc = load_rows(s, trace_id, out, e);
	return rc ? rc : store_blocks_read(s, trace_id, &b, e);
}
