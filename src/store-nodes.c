/*
 * store-nodes.c — the nodes of a trace, in column blocks of at most STORE_BLOCK_ROWS nodes
 * (node_blocks, schema version 11), so that a trace's nodes cost about what their file
 * does, not a table row each (70-odd bytes a node, more than the raw file's line).
 *
 * A ZBLK_NODES block (rows = nodes) holds the varint NODES_VERSION, then the string
 * columns name, group, model (the GPU model's name, "" for a node without GPUs) and rack
 * ("" for none), then the integer columns ngpu, the seven capacities (DIM_ order) and
 * enriched, each coded against any earlier integer column (a gpu capacity is 1000 x ngpu).
 * Version 2 (schema version 12) follows the varint 2 with a varint of flags: NODES_F_SPLIT,
 * the name as four columns, as a raw text field is (zblk_numsplit): prefix, number (NULL =
 * none), width and suffix, so that "node-0042" after "node-0041" costs next to nothing;
 * NODES_F_TYPES, the nodes by type: a varint k, each node's type (an integer column, < k),
 * and the other columns over the k types (a node's type is all but its name: a cluster
 * has a few) rather than over the nodes. A block is written with its names whichever way
 * is smaller (names that are hashes are smaller whole), by type when its types are at most
 * half its nodes. Version 1 blocks read as before.
 * A store made before version 11 keeps its nodes as rows of the nodes table, one a node in
 * idx order: they are read first, then the blocks in seq order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "gpumodel.h"
#include "store-int.h"

#define NODES_VERSION 2 /* the newest a reader knows */
#define NODES_F_SPLIT 1 /* version 2's flags: names split (zblk_numsplit) */
#define NODES_F_TYPES 2 /* the nodes by type */
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

/* The names of nodes[0..n) as four columns (zblk_numsplit). */
static void put_names(struct zblk_buf *b, const struct node *nodes, size_t n)
{
	struct zblk_str *pre = xmalloc((n ? n : 1) * sizeof *pre),
			*suf = xmalloc((n ? n : 1) * sizeof *suf);
	int64_t *num = xmalloc((n ? n : 1) * 2 * sizeof *num), *width = num + n;
	uint8_t *nul = xmalloc(n ? n : 1);
	for (size_t i = 0; i < n; i++) /* a name ends with its NUL: no digit after it */
		zblk_numsplit((const uint8_t *)nodes[i].name, strlen(nodes[i].name), &pre[i],
			      &num[i], &nul[i], &width[i], &suf[i]);
	zblk_put_str(b, pre, n);
	zblk_put_i64(b, num, nul, n, NULL, NULL, 0);
	zblk_put_i64(b, width, NULL, n, NULL, NULL, 0);
	zblk_put_str(b, suf, n);
	FREE_ALL(pre, suf, num, nul);
}

/* Read back put_names's columns of n names into name[0..n) (NODE_NAME_MAX bytes each,
 * NUL-terminated). 0, or -1 if they are damaged or a name is too long. */
static int get_names(struct zblk_reader *r, char (*name)[NODE_NAME_MAX], size_t n)
{
	struct zblk_str *pre = xmalloc((n ? n : 1) * sizeof *pre),
			*suf = xmalloc((n ? n : 1) * sizeof *suf);
	int64_t *num = xmalloc((n ? n : 1) * 2 * sizeof *num), *width = num + n;
	uint8_t *nul = xmalloc(n ? n : 1);
	int rc = zblk_get_str(r, pre, n) || zblk_get_i64(r, num, nul, n, NULL, NULL, 0) ||
				 zblk_get_i64(r, width, NULL, n, NULL, NULL, 0) ||
				 zblk_get_str(r, suf, n)
			 ? -1
			 : 0;
	for (size_t i = 0; i < n && !rc; i++)
		if (memchr(pre[i].p, 0, pre[i].len) || memchr(suf[i].p, 0, suf[i].len) ||
		    zblk_numjoin(name[i], NODE_NAME_MAX, &pre[i], num[i], nul[i], width[i],
				 &suf[i]) < 0)
			rc = -1;
	FREE_ALL(pre, suf, num, nul);
	return rc;
}

/* Whether nodes a and b are alike but for their names. */
static int same_type(const struct node *a, const struct node *b)
{
	if (a->ngpu != b->ngpu || a->model != b->model || a->enriched != b->enriched ||
	    strcmp(a->group, b->group) || strcmp(a->rack, b->rack))
		return 0;
	for (int d = 0; d < DIM_N; d++)
		if (a->cap[d] != b->cap[d])
			return 0;
	return 1;
}

static uint64_t type_hash(const struct node *a)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (const char *p = a->group; *p; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ULL;
	for (const char *p = a->rack; *p; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ULL;
	h = (h ^ (uint64_t)a->ngpu ^ (uint64_t)a->model << 8 ^ (uint64_t)a->enriched << 24) *
	    0x9e3779b97f4a7c15ULL;
	for (int d = 0; d < DIM_N; d++)
		h = (h ^ (uint64_t)a->cap[d]) * 0x9e3779b97f4a7c15ULL;
	return h ^ h >> 29;
}

/* The types of nodes[0..n) (alike but for their names): idx[i] node i's, rep[g] the first
 * node of type g, in order of first node; returns how many. */
static size_t node_types(const struct node *nodes, size_t n, int64_t *idx, size_t *rep)
{
	size_t tsize = 16, k = 0;
	while (tsize < 2 * n)
		tsize *= 2;
	size_t *table = xcalloc(tsize, sizeof *table); /* type + 1, 0: empty */
	for (size_t i = 0; i < n; i++)
		for (size_t at = type_hash(&nodes[i]) & (tsize - 1);; at = (at + 1) & (tsize - 1)) {
			if (!table[at]) {
				table[at] = ++k;
				rep[k - 1] = i;
				idx[i] = (int64_t)(k - 1);
				break;
			}
			if (same_type(&nodes[rep[table[at] - 1]], &nodes[i])) {
				idx[i] = (int64_t)(table[at] - 1);
				break;
			}
		}
	free(table);
	return k;
}

/* String column c (node_str) of nodes rep[0..rows) (rep NULL: of nodes[0..rows)); str:
 * rows of scratch. */
static void put_strs(struct zblk_buf *b, const struct node *nodes, const size_t *rep, size_t rows,
		     int c, struct zblk_str *str)
{
	for (size_t g = 0; g < rows; g++) {
		const char *x = node_str(&nodes[rep ? rep[g] : g], c);
		str[g] = (struct zblk_str){(const uint8_t *)x, strlen(x)};
	}
	zblk_put_str(b, str, rows);
}

/* Node types for a block: m of them (m = n: each node its own, rep[i] = i), node i of type
 * idx[i] (when m < n), type g as node rep[g] is. */
struct node_typing {
	size_t m;
	int64_t *idx;
	size_t *rep;
};

/* Code nodes[0..n) into one sealed block in out: version 2, with flags (NODES_F_*: with
 * NODES_F_TYPES, by t's types). */
static int encode_nodes(struct store *s, const struct node *nodes, size_t n, unsigned flags,
			const struct node_typing *t, struct zblk_buf *out, struct err *e)
{
	struct zblk_buf b = {0};
	struct zblk_str *str = xmalloc((n ? n : 1) * sizeof *str);
	int64_t *v = xmalloc((n ? n : 1) * NODES_NINT * sizeof *v);
	size_t m = t->m;
	zblk_put_varint(&b, NODES_VERSION);
	zblk_put_varint(&b, flags);
	if (flags & NODES_F_SPLIT)
		put_names(&b, nodes, n);
	else
		put_strs(&b, nodes, NULL, n, 0, str);
	if (flags & NODES_F_TYPES) {
		zblk_put_varint(&b, m);
		zblk_put_i64(&b, t->idx, NULL, n, NULL, NULL, 0);
	}
	for (int c = 1; c < NODES_NSTR; c++)
		put_strs(&b, nodes, t->rep, m, c, str);
	const int64_t *refs[NODES_NINT];
	for (int c = 0; c < NODES_NINT; c++) {
		int64_t *col = v + (size_t)c * m;
		for (size_t g = 0; g < m; g++)
			col[g] = node_int(&nodes[t->rep[g]], c);
		zblk_put_i64(&b, col, NULL, m, refs, NULL, c);
		refs[c] = col;
	}
	zblk_buf_reset(out);
	int rc = zblk_seal(s->z, ZBLK_NODES, n, b.p, b.len, out, e);
	zblk_buf_release(&b);
	FREE_ALL(str, v);
	return rc;
}

/* nodes[0..n)'s block into out, its names split or whole, whichever is smaller (names
 * that are numbers in nearly constant text, "node-0042", or not, hashes); its nodes by
 * type when there are at most half as many types as nodes. alt: scratch. */
static int encode_smaller(struct store *s, const struct node *nodes, size_t n, struct zblk_buf *out,
			  struct zblk_buf *alt, struct err *e)
{
	struct node_typing t = {.idx = xmalloc((n ? n : 1) * sizeof *t.idx),
				.rep = xmalloc((n ? n : 1) * sizeof *t.rep)};
	unsigned types = NODES_F_TYPES;
	t.m = node_types(nodes, n, t.idx, t.rep);
	if (2 * t.m > n) { /* each node its own type */
		types = 0;
		t.m = n;
		for (size_t i = 0; i < n; i++)
			t.rep[i] = i;
	}
	int rc = encode_nodes(s, nodes, n, types | NODES_F_SPLIT, &t, out, e);
	if (!rc && !(rc = encode_nodes(s, nodes, n, types, &t, alt, e)) && alt->len < out->len) {
		struct zblk_buf x = *out;
		*out = *alt;
		*alt = x;
	}
	FREE_ALL(t.idx, t.rep);
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
	struct zblk_buf sealed = {0}, alt = {0};
	for (size_t at = 0; at < n && !rc; at += STORE_BLOCK_ROWS) {
		size_t k = n - at < STORE_BLOCK_ROWS ? n - at : STORE_BLOCK_ROWS;
		if ((rc = encode_smaller(s, nodes + at, k, &sealed, &alt, e)))
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
	zblk_buf_release(&alt);
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
	uint64_t version, flags = 0, m = n;
	zblk_reader_init(&r, raw->p, raw->len);
	if (zblk_get_varint(&r, &version) || version < 1 || version > NODES_VERSION ||
	    (version >= 2 &&
	     (zblk_get_varint(&r, &flags) || flags & ~(uint64_t)(NODES_F_SPLIT | NODES_F_TYPES))))
		return err_set(e, VF_ESTORE, "bad header");
	/* str: n names (unless split), then m rows of each other string column */
	struct zblk_str *str = xmalloc((n ? n : 1) * NODES_NSTR * sizeof *str);
	int64_t *v = xmalloc((n ? n : 1) * (NODES_NINT + 1) * sizeof *v), *idx = v + NODES_NINT * n;
	char(*name)[NODE_NAME_MAX] = xmalloc((n ? n : 1) * sizeof *name);
	const int64_t *refs[NODES_NINT];
	int rc = 0;
	if (flags & NODES_F_SPLIT ? get_names(&r, name, n) : zblk_get_str(&r, str, n))
		rc = err_set(e, VF_ESTORE, "the names are damaged");
	if (!rc && flags & NODES_F_TYPES) {
		if (zblk_get_varint(&r, &m) || m > n ||
		    zblk_get_i64(&r, idx, NULL, n, NULL, NULL, 0))
			rc = err_set(e, VF_ESTORE, "the types are damaged");
		for (size_t i = 0; i < n && !rc; i++)
			if (idx[i] < 0 || (uint64_t)idx[i] >= m)
				rc = err_set(e, VF_ESTORE, "node %zu: type %lld of %llu", i,
					     (long long)idx[i], (unsigned long long)m);
	} else {
		for (size_t i = 0; i < n; i++)
			idx[i] = (int64_t)i;
	}
	for (int c = 1; c < NODES_NSTR && !rc; c++)
		if (zblk_get_str(&r, str + (size_t)c * n, m))
			rc = err_set(e, VF_ESTORE, "string column %d is damaged", c);
	for (int c = 0; c < NODES_NINT && !rc; c++) {
		if (zblk_get_i64(&r, v + (size_t)c * m, NULL, m, refs, NULL, c))
			rc = err_set(e, VF_ESTORE, "column %d is damaged", c);
		refs[c] = v + (size_t)c * m;
	}
	if (!rc && r.pos != r.len)
		rc = err_set(e, VF_ESTORE, "%zu bytes left over", r.len - r.pos);
	for (size_t i = 0; i < n && !rc; i++) {
		struct node nd;
		char model[64];
		size_t g = (size_t)idx[i];
		node_init(&nd);
		if ((flags & NODES_F_SPLIT ? snprintf(nd.name, sizeof nd.name, "%s", name[i]) < 0
					   : str_to(nd.name, sizeof nd.name, &str[i])) ||
		    str_to(nd.group, sizeof nd.group, &str[n + g]) ||
		    str_to(model, sizeof model, &str[2 * n + g]) ||
		    str_to(nd.rack, sizeof nd.rack, &str[3 * n + g])) {
			rc = err_set(e, VF_ESTORE, "node %zu: a name too long", i);
			break;
		}
		nd.model = model_of(model);
		for (int d = 0; d < DIM_N; d++)
			nd.cap[d] = v[(size_t)(1 + d) * m + g];
		int64_t en = v[(size_t)(1 + DIM_N) * m + g], ngpu = v[g];
		if (en < 0 || en > UINT8_MAX) {
			rc = err_set(e, VF_ESTORE, "node %zu: enriched out of range", i);
			break;
		}
		nd.enriched = (uint8_t)en;
		if (!gpus_ok(ngpu)) {
			rc = err_set(e, VF_ESTORE,
				     "node %zu '%s': %lld GPUs, at most %d on one node", i, nd.name,
				     (long long)ngpu, CLUSTER_MAX_GPUS);
			break;
		}
		nd.ngpu = (int32_t)ngpu;
		job_set_add_node(out, &nd);
	}
	FREE_ALL(str, v, name);
	return rc;
}

/* A nodes block's most bytes: its version, flags and types, each string column's header
 * and each node's strings at their longest (a name split in two, a length each), and the
 * integer columns. */
static uint64_t nodes_max_bytes(uint64_t rows)
{
	uint64_t per = 10 + NODE_NAME_MAX + 10 + 10 + 24 + 10 + 64 + 10 + 32;
	return 30 + (NODES_NSTR + 1) * 64 + rows * per + /* + the name's two, the types' */
	       (NODES_NINT + 3) * (uint64_t)zblk_i64_max((size_t)rows);
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
