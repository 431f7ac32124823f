/*
 * store-jobs.c — the jobs of a trace in column blocks of STORE_BLOCK_ROWS rows.
 *
 * A ZBLK_JOBS block (rows = jobs) holds varints ncols (JOBS_NCOLS) and rawfile, then, if
 * rawfile is not 0, varints row0 and nraw, then one integer column per struct job field, in
 * the order of col_get/col_set below. Each column may be coded against any earlier one (a
 * job's hbm against its gpu, say) and, when rawfile is set, against the numbers of that
 * imported file's simple lines row0 .. row0 + rows (store-raw.c): its first nraw columns
 * and the differences of neighbouring columns (deletion - scheduled = duration). A job
 * parsed from a line then costs little more than the line did: the store holds the trace
 * once, not twice.
 *
 * Blocks are first staged in a TEMP table, coded without the raw reference (the file may
 * not be complete yet); at commit, store_jobs_settle re-codes each staged block against the
 * trace's text file whose line count is closest to its job count, and moves the smaller
 * form into job_blocks, so the store file is written once. Jobs therefore become visible
 * to store_trace_load at commit. The writer keeps at most one block of jobs in memory.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "store-int.h"

enum {
	COL_ID,
	COL_ARRIVAL,
	COL_DURATION,
	COL_DEM,
	COL_NGPU = COL_DEM + DIM_N,
	COL_GPUMILLI,
	COL_SPEC,
	COL_CLS,
	COL_ENRICHED,
	COL_FLAGS,
	JOBS_NCOLS
};

static int64_t col_get(const struct job *j, int c)
{
	switch (c) {
	case COL_ID:
		return j->id;
	case COL_ARRIVAL:
		return j->arrival;
	case COL_DURATION:
		return j->duration;
	case COL_NGPU:
		return j->num_gpu;
	case COL_GPUMILLI:
		return j->gpu_milli;
	case COL_SPEC:
		return j->gpu_spec;
	case COL_CLS:
		return j->cls;
	case COL_ENRICHED:
		return j->enriched;
	case COL_FLAGS:
		return j->flags;
	default:
		return j->dem[c - COL_DEM];
	}
}

/* Set field c of j to v; -1 if v does not fit the field. */
static int col_set(struct job *j, int c, int64_t v)
{
	switch (c) {
	case COL_ID:
		j->id = v;
		return 0;
	case COL_ARRIVAL:
		j->arrival = v;
		return 0;
	case COL_DURATION:
		j->duration = v;
		return 0;
	case COL_NGPU:
		j->num_gpu = (int32_t)v;
		return v == j->num_gpu ? 0 : -1;
	case COL_GPUMILLI:
		j->gpu_milli = (int32_t)v;
		return v == j->gpu_milli ? 0 : -1;
	case COL_SPEC:
		j->gpu_spec = (uint32_t)v;
		return v == j->gpu_spec ? 0 : -1;
	case COL_CLS:
		j->cls = (uint8_t)v;
		return v == j->cls && v < JOB_NCLASS ? 0 : -1;
	case COL_ENRICHED:
		j->enriched = (uint8_t)v;
		return v == j->enriched ? 0 : -1;
	case COL_FLAGS:
		j->flags = (uint16_t)v;
		return v == j->flags ? 0 : -1;
	default:
		j->dem[c - COL_DEM] = v;
		return 0;
	}
}

struct store_jobs {
	struct store *s;
	int64_t trace_id;
	int64_t seq;   /* next block number */
	int64_t total; /* jobs written */
	struct job jobs[STORE_BLOCK_ROWS];
	size_t n;      /* jobs in the current block */
	int64_t *cols; /* JOBS_NCOLS x STORE_BLOCK_ROWS scratch */
	struct zblk_buf raw, sealed;
};

int store_jobs_begin(struct store *s, int64_t trace_id, struct store_jobs **out, struct err *e)
{
	(void)e;
	struct store_jobs *w = xcalloc(1, sizeof *w);
	w->s = s;
	w->trace_id = trace_id;
	w->cols = xmalloc((size_t)JOBS_NCOLS * STORE_BLOCK_ROWS * sizeof *w->cols);
	*out = w;
	return 0;
}

void store_jobs_abort(struct store_jobs *w)
{
	if (!w)
		return;
	free(w->cols);
	zblk_buf_release(&w->raw);
	zblk_buf_release(&w->sealed);
	free(w);
}

#define MAX_RAW 47 /* raw columns a block may refer to: refs fit in a byte */

/* The differences raw[i] - raw[i-1] and raw[i-1] - raw[i] (NULL if either is), as
 * 2 * (nraw - 1) columns of n into diff and diffnul. */
static void make_diffs(const int64_t *raw, const uint8_t *rawnul, size_t nraw, size_t n,
		       int64_t *diff, uint8_t *diffnul)
{
	for (size_t j = 1; j < nraw; j++)
		for (size_t sign = 0; sign < 2; sign++) {
			size_t a = sign ? j - 1 : j, b = sign ? j : j - 1;
			int64_t *d = diff + (2 * (j - 1) + sign) * n;
			uint8_t *dn = diffnul + (2 * (j - 1) + sign) * n;
			for (size_t i = 0; i < n; i++) {
				dn[i] = rawnul[a * n + i] || rawnul[b * n + i];
				d[i] = (int64_t)((uint64_t)raw[a * n + i] -
						 (uint64_t)raw[b * n + i]);
			}
		}
}

/* The references column c may use: the c earlier job columns, then the nraw raw columns,
 * then their 2 * (nraw - 1) differences. Returns the count. */
static int make_refs(const int64_t *cols, size_t n, int c, const int64_t *raw,
		     const uint8_t *rawnul, size_t nraw, const int64_t *diff,
		     const uint8_t *diffnul, const int64_t **refs, const uint8_t **refnul)
{
	int k = 0;
	for (int j = 0; j < c; j++) {
		refs[k] = cols + (size_t)j * n;
		refnul[k++] = NULL;
	}
	for (size_t j = 0; j < nraw; j++) {
		refs[k] = raw + j * n;
		refnul[k++] = rawnul + j * n;
	}
	for (size_t j = 0; nraw && j < 2 * (nraw - 1); j++) {
		refs[k] = diff + j * n;
		refnul[k++] = diffnul + j * n;
	}
	return k;
}

/* Encode n jobs (cols: JOBS_NCOLS x n) into out, against file rawfile's numbers (raw,
 * rawnul: nraw x n, nraw <= MAX_RAW) when rawfile is not 0. */
static void encode_jobs(struct zblk_buf *out, const int64_t *cols, size_t n, int64_t rawfile,
			int64_t row0, const int64_t *raw, const uint8_t *rawnul, size_t nraw)
{
	const int64_t *refs[JOBS_NCOLS + 3 * MAX_RAW];
	const uint8_t *refnul[JOBS_NCOLS + 3 * MAX_RAW];
	if (!rawfile)
		nraw = 0;
	int64_t *diff = xmalloc(2 * nraw * n * sizeof *diff + 1);
	uint8_t *diffnul = xmalloc(2 * nraw * n + 1);
	make_diffs(raw, rawnul, nraw, n, diff, diffnul);
	zblk_buf_reset(out);
	zblk_put_varint(out, JOBS_NCOLS);
	zblk_put_varint(out, (uint64_t)rawfile);
	if (rawfile) {
		zblk_put_varint(out, (uint64_t)row0);
		zblk_put_varint(out, nraw);
	}
	for (int c = 0; c < JOBS_NCOLS; c++) {
		int k = make_refs(cols, n, c, raw, rawnul, nraw, diff, diffnul, refs, refnul);
		zblk_put_i64(out, cols + (size_t)c * n, NULL, n, refs, refnul, k);
	}
	free(diff);
	free(diffnul);
}

static int flush_jobs(struct store_jobs *w, struct err *e)
{
	if (!w->n)
		return 0;
	for (int c = 0; c < JOBS_NCOLS; c++)
		for (size_t i = 0; i < w->n; i++)
			w->cols[(size_t)c * w->n + i] = col_get(&w->jobs[i], c);
	encode_jobs(&w->raw, w->cols, w->n, 0, 0, NULL, NULL, 0);
	zblk_buf_reset(&w->sealed);
	int rc = zblk_seal(w->s->z, ZBLK_JOBS, w->n, w->raw.p, w->raw.len, &w->sealed, e);
	sqlite3_stmt *st;
	if (rc || (rc = store_prep(w->s,
				   "INSERT INTO temp.pending_jobs(trace_id, seq, nrows, data) "
				   "VALUES (?,?,?,?)",
				   &st, e)))
		return rc;
	sqlite3_bind_int64(st, 1, w->trace_id);
	sqlite3_bind_int64(st, 2, w->seq++);
	sqlite3_bind_int64(st, 3, (int64_t)w->n);
	sqlite3_bind_blob64(st, 4, w->sealed.p, w->sealed.len, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = store_sqlerr(w->s, e, "add job block");
	sqlite3_finalize(st);
	w->total += (int64_t)w->n;
	w->n = 0;
	return rc;
}

int store_jobs_add(struct store_jobs *w, const struct job *j, struct err *e)
{
	w->jobs[w->n++] = *j;
	return w->n == STORE_BLOCK_ROWS ? flush_jobs(w, e) : 0;
}

int store_jobs_end(struct store_jobs *w, struct err *e)
{
	int rc = flush_jobs(w, e);
	if (!rc) {
		char sql[128];
		snprintf(sql, sizeof sql, "UPDATE traces SET njobs = njobs + %lld WHERE id = %lld",
			 (long long)w->total, (long long)w->trace_id);
		rc = store_exec(w->s, sql, e);
	}
	store_jobs_abort(w);
	return rc;
}

/* Decode one jobs block (rows n) and append its jobs to out; *cur is the raw cursor of
 * the file the blocks refer to (opened here on first use, closed by the caller). */
static int decode_jobs(struct store *s, const struct zblk_buf *raw, uint64_t n,
		       struct raw_cursor **cur, int64_t *curfile, struct job_set *out,
		       struct err *e)
{
	struct zblk_reader r;
	uint64_t ncols, rawfile, row0 = 0, nraw = 0;
	zblk_reader_init(&r, raw->p, raw->len);
	if (zblk_get_varint(&r, &ncols) || ncols != JOBS_NCOLS || n > STORE_BLOCK_ROWS ||
	    zblk_get_varint(&r, &rawfile) ||
	    (rawfile && (zblk_get_varint(&r, &row0) || zblk_get_varint(&r, &nraw))) ||
	    nraw > MAX_RAW || row0 > INT64_MAX / 2 || rawfile > INT64_MAX)
		return err_set(e, VF_ESTORE, "jobs block: bad header");
	size_t nn = (size_t)n + 1;
	int64_t *cols = xmalloc(JOBS_NCOLS * nn * sizeof *cols);
	int64_t *rv = xmalloc(nraw * nn * sizeof *rv + 1), *diff = xmalloc(2 * nraw * nn * 8 + 1);
	uint8_t *rn = xmalloc(nraw * nn + 1), *diffnul = xmalloc(2 * nraw * nn + 1);
	const int64_t *refs[JOBS_NCOLS + 3 * MAX_RAW];
	const uint8_t *refnul[JOBS_NCOLS + 3 * MAX_RAW];
	int rc = 0;
	if (rawfile && (int64_t)rawfile != *curfile) {
		raw_cursor_close(*cur);
		*cur = NULL;
		*curfile = 0;
		if (!(rc = raw_cursor_open(s, (int64_t)rawfile, cur, e)))
			*curfile = (int64_t)rawfile;
	}
	if (!rc && rawfile && raw_cursor_ncols(*cur) < nraw)
		rc = err_set(e, VF_ESTORE, "jobs block: refers to %llu fields of a file with %zu",
			     (unsigned long long)nraw, raw_cursor_ncols(*cur));
	if (!rc && rawfile) {
		/* The cursor gives all the file's columns; keep the first nraw. */
		size_t all = raw_cursor_ncols(*cur);
		int64_t *av = xmalloc(all * nn * sizeof *av);
		uint8_t *an = xmalloc(all * nn);
		rc = raw_cursor_numbers(*cur, (int64_t)row0, (size_t)n, av, an, e);
		memcpy(rv, av, nraw * (size_t)n * sizeof *rv);
		memcpy(rn, an, nraw * (size_t)n);
		free(av);
		free(an);
		make_diffs(rv, rn, nraw, (size_t)n, diff, diffnul);
	}
	for (int c = 0; c < JOBS_NCOLS && !rc; c++) {
		int k = make_refs(cols, (size_t)n, c, rv, rn, nraw, diff, diffnul, refs, refnul);
		if (zblk_get_i64(&r, cols + (size_t)c * n, NULL, n, refs, refnul, k))
			rc = err_set(e, VF_ESTORE, "jobs block: column %d is damaged", c);
	}
	if (!rc && r.pos != r.len)
		rc = err_set(e, VF_ESTORE, "jobs block: %zu bytes left over", r.len - r.pos);
	for (size_t i = 0; i < n && !rc; i++) {
		struct job j;
		memset(&j, 0, sizeof j);
		for (int c = 0; c < JOBS_NCOLS && !rc; c++)
			if (col_set(&j, c, cols[(size_t)c * n + i]))
				rc = err_set(e, VF_ESTORE,
					     "jobs block: job %zu: field %d out of range", i, c);
		if (!rc)
			job_set_add_job(out, &j);
	}
	free(cols);
	free(rv);
	free(rn);
	free(diff);
	free(diffnul);
	return rc;
}

static int by_arrival(const void *a, const void *b)
{
	const struct job *x = a, *y = b;
	if (x->arrival != y->arrival)
		return x->arrival < y->arrival ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

int store_trace_load(struct store *s, int64_t trace_id, struct job_set *out, struct err *e)
{
	job_set_release(out);
	sqlite3_stmt *st;
	int rc = store_prep(s, "SELECT nrows, data FROM job_blocks WHERE trace_id = ? ORDER BY seq",
			    &st, e);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, trace_id);
	struct zblk_buf raw = {0};
	struct raw_cursor *cur = NULL;
	int64_t curfile = 0;
	int step;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		struct zblk_info info;
		rc = zblk_open(s->z, sqlite3_column_blob(st, 1),
			       (size_t)sqlite3_column_bytes(st, 1), &info, &raw, e);
		if (!rc &&
		    (info.kind != ZBLK_JOBS || (int64_t)info.rows != sqlite3_column_int64(st, 0)))
			rc = err_set(e, VF_ESTORE, "jobs block: kind or row count does not match");
		if (!rc)
			rc = decode_jobs(s, &raw, info.rows, &cur, &curfile, out, e);
		if (rc)
			err_prefix(e, "%s: trace %lld: ", s->path, (long long)trace_id);
	}
	if (!rc && step != SQLITE_DONE)
		rc = store_sqlerr(s, e, "read job blocks");
	sqlite3_finalize(st);
	zblk_buf_release(&raw);
	raw_cursor_close(cur);
	if (!rc)
		rc = store_nodes_load(s, trace_id, out, e);
	if (rc) {
		job_set_release(out);
		return rc;
	}
	if (out->njobs > 1)
		qsort(out->jobs, out->njobs, sizeof *out->jobs, by_arrival);
	return 0;
}

/* The file of trace_id whose jobs blocks should refer to, or 0: the text file whose line
 * count is closest to the job count (the one the jobs were parsed from). */
static int pick_file(struct store *s, int64_t trace_id, int64_t *file, int64_t *size, struct err *e)
{
	sqlite3_stmt *st;
	*file = 0;
	int rc = store_prep(s,
			    "SELECT f.id, f.size FROM files f JOIN traces t ON t.id = f.trace_id "
			    "WHERE f.trace_id = ? AND f.raw_mode = 'text' AND f.raw_ncols > 0 "
			    "ORDER BY abs(f.raw_lines - t.njobs), f.id LIMIT 1",
			    &st, e);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, trace_id);
	int step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		*file = sqlite3_column_int64(st, 0);
		*size = sqlite3_column_int64(st, 1);
	} else if (step != SQLITE_DONE) {
		rc = store_sqlerr(s, e, "pick raw file");
	}
	sqlite3_finalize(st);
	return rc;
}

/* Re-code one staged block (blob, len) of jobs against raw lines from row cum (offset 0 or
 * 1; *off < 0: try both and set it). *out is blob, or sealed when that is smaller. */
static int recode_block(struct store *s, const void *blob, size_t len, struct raw_cursor *cur,
			int64_t file, int64_t cum, int *off, struct zblk_buf *raw,
			struct zblk_buf *enc, struct zblk_buf *sealed, const void **out,
			size_t *outlen, struct err *e)
{
	struct zblk_info info;
	struct job_set js = {0};
	struct raw_cursor *none = NULL;
	int64_t nonefile = 0;
	*out = blob;
	*outlen = len;
	int rc = zblk_open(s->z, blob, len, &info, raw, e);
	if (!rc && info.kind != ZBLK_JOBS)
		rc = err_set(e, VF_ESTORE, "job block of kind %d", info.kind);
	if (!rc)
		rc = decode_jobs(s, raw, info.rows, &none, &nonefile, &js, e);
	raw_cursor_close(none);
	if (rc || nonefile) { /* already coded against a file: leave it */
		job_set_release(&js);
		return rc;
	}
	size_t n = js.njobs, all = raw_cursor_ncols(cur), nraw = all < MAX_RAW ? all : MAX_RAW;
	int64_t *cols = xmalloc(JOBS_NCOLS * (n + 1) * sizeof *cols);
	int64_t *av = xmalloc(all * (n + 1) * sizeof *av), *rv = xmalloc(nraw * (n + 1) * 8);
	uint8_t *an = xmalloc(all * (n + 1)), *rn = xmalloc(nraw * (n + 1));
	for (int c = 0; c < JOBS_NCOLS; c++)
		for (size_t i = 0; i < n; i++)
			cols[(size_t)c * n + i] = col_get(&js.jobs[i], c);
	rc = raw_cursor_numbers(cur, cum, n + 1, av, an, e);
	size_t best = len;
	int bestoff = -1, last = -1;
	for (int o = 0; o < 2 && !rc; o++) {
		if (*off >= 0 && o != *off)
			continue;
		for (size_t c = 0; c < nraw; c++) {
			memcpy(rv + c * n, av + c * (n + 1) + o, n * sizeof *rv);
			memcpy(rn + c * n, an + c * (n + 1) + o, n);
		}
		encode_jobs(enc, cols, n, file, cum + o, rv, rn, nraw);
		zblk_buf_reset(sealed);
		rc = zblk_seal(s->z, ZBLK_JOBS, n, enc->p, enc->len, sealed, e);
		last = o;
		if (!rc && sealed->len < best) {
			best = sealed->len;
			bestoff = o;
		}
	}
	if (*off < 0)
		*off = bestoff < 0 ? 0 : bestoff;
	if (!rc && bestoff >= 0 && bestoff != last) { /* the best was not the last one tried */
		for (size_t c = 0; c < nraw; c++) {
			memcpy(rv + c * n, av + c * (n + 1) + bestoff, n * sizeof *rv);
			memcpy(rn + c * n, an + c * (n + 1) + bestoff, n);
		}
		encode_jobs(enc, cols, n, file, cum + bestoff, rv, rn, nraw);
		zblk_buf_reset(sealed);
		rc = zblk_seal(s->z, ZBLK_JOBS, n, enc->p, enc->len, sealed, e);
	}
	if (!rc && bestoff >= 0) {
		*out = sealed->p;
		*outlen = sealed->len;
	}
	free(cols);
	free(av);
	free(rv);
	free(an);
	free(rn);
	job_set_release(&js);
	return rc;
}

/* Move trace_id's staged blocks into job_blocks, re-coded where that is smaller. */
static int settle_trace(struct store *s, int64_t trace_id, struct err *e)
{
	int64_t file, size = -1;
	int rc = pick_file(s, trace_id, &file, &size, e);
	sqlite3_stmt *sel = NULL, *ins = NULL;
	struct raw_cursor *cur = NULL;
	struct zblk_buf raw = {0}, enc = {0}, sealed = {0};
	int off = -1, step;
	if (!rc && file)
		rc = raw_cursor_open(s, file, &cur, e);
	if (rc ||
	    (rc = store_prep(s,
			     "SELECT seq, nrows, data FROM temp.pending_jobs "
			     "WHERE trace_id = ? ORDER BY seq",
			     &sel, e)) ||
	    (rc = store_prep(s,
			     "INSERT INTO job_blocks(trace_id, seq, nrows, data) VALUES (?,?,?,?)",
			     &ins, e)))
		goto out;
	zblk_ctx_set_level(s->z, store_zlevel(size));
	sqlite3_bind_int64(sel, 1, trace_id);
	for (int64_t cum = 0; !rc && (step = sqlite3_step(sel)) == SQLITE_ROW;) {
		int64_t nrows = sqlite3_column_int64(sel, 1);
		const void *blob = sqlite3_column_blob(sel, 2), *p = blob;
		size_t len = (size_t)sqlite3_column_bytes(sel, 2), plen = len;
		if (cur)
			rc = recode_block(s, blob, len, cur, file, cum, &off, &raw, &enc, &sealed,
					  &p, &plen, e);
		cum += nrows;
		if (rc)
			break;
		sqlite3_bind_int64(ins, 1, trace_id);
		sqlite3_bind_int64(ins, 2, sqlite3_column_int64(sel, 0));
		sqlite3_bind_int64(ins, 3, nrows);
		sqlite3_bind_blob64(ins, 4, p, plen, SQLITE_STATIC);
		if (sqlite3_step(ins) != SQLITE_DONE)
			rc = store_sqlerr(s, e, "add job block");
		sqlite3_reset(ins);
	}
	if (!rc && step != SQLITE_DONE)
		rc = store_sqlerr(s, e, "read staged job blocks");
	zblk_ctx_set_level(s->z, STORE_ZLEVEL);
out:
	sqlite3_finalize(sel);
	sqlite3_finalize(ins);
	raw_cursor_close(cur);
	zblk_buf_release(&raw);
	zblk_buf_release(&enc);
	zblk_buf_release(&sealed);
	return rc;
}

int store_jobs_settle(struct store *s, struct err *e)
{
	sqlite3_stmt *st;
	int64_t *ids = NULL;
	size_t n = 0, cap = 0;
	int rc =
		store_prep(s, "SELECT DISTINCT trace_id FROM temp.pending_jobs ORDER BY 1", &st, e);
	if (rc)
		return rc;
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		xgrow(&ids, &cap, n + 1, sizeof *ids);
		ids[n++] = sqlite3_column_int64(st, 0);
	}
	if (step != SQLITE_DONE)
		rc = store_sqlerr(s, e, "list staged job blocks");
	sqlite3_finalize(st);
	for (size_t i = 0; i < n && !rc; i++)
		rc = settle_trace(s, ids[i], e);
	free(ids);
	if (!rc && n)
		rc = store_exec(s, "DELETE FROM temp.pending_jobs", e);
	return rc;
}
