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
 * Blocks are first staged in a TEMP table in a cheap form (stage_encode, then zstd's
 * fastest level: the file may not be complete yet, so they cannot be coded against it);
 * at commit, store_jobs_settle codes each staged block, once, against the trace's text
 * file whose line count is closest to its job count (or alone, if that was smaller for the
 * first block), into job_blocks, so the store file is written once. Jobs therefore become visible
 * to store_trace_load at commit. The writer keeps at most one block of jobs in memory.
 */
#include <assert.h>
#include <pthread.h>
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

/* Difference column d (of 2 * (nraw - 1)): raw[j] - raw[j-1] for even d, raw[j-1] - raw[j]
 * for odd, j = d / 2 + 1, NULL if either is; n rows into diff and diffnul at column d. */
static void make_diff(const int64_t *raw, const uint8_t *rawnul, size_t n, size_t d, int64_t *diff,
		      uint8_t *diffnul)
{
	size_t j = d / 2 + 1, sign = d % 2;
	size_t a = sign ? j - 1 : j, b = sign ? j : j - 1;
	int64_t *o = diff + d * n;
	uint8_t *on = diffnul + d * n;
	for (size_t i = 0; i < n; i++) {
		on[i] = rawnul[a * n + i] || rawnul[b * n + i];
		o[i] = (int64_t)((uint64_t)raw[a * n + i] - (uint64_t)raw[b * n + i]);
	}
}

/* All 2 * (nraw - 1) difference columns (make_diff). */
static void make_diffs(const int64_t *raw, const uint8_t *rawnul, size_t nraw, size_t n,
		       int64_t *diff, uint8_t *diffnul)
{
	for (size_t d = 0; nraw && d < 2 * (nraw - 1); d++)
		make_diff(raw, rawnul, n, d, diff, diffnul);
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
 * rawnul: nraw x n, nraw <= MAX_RAW) when rawfile is not 0, guided by and updating the
 * column plans plan[JOBS_NCOLS]. */
static void encode_jobs(struct zblk_buf *out, const int64_t *cols, size_t n, int64_t rawfile,
			int64_t row0, const int64_t *raw, const uint8_t *rawnul, size_t nraw,
			struct zblk_plan *plan)
{
	const int64_t *refs[JOBS_NCOLS + 3 * MAX_RAW];
	const uint8_t *refnul[JOBS_NCOLS + 3 * MAX_RAW];
	uint8_t made[2 * MAX_RAW] = {0}; /* the difference columns filled so far */
	if (!rawfile)
		nraw = 0;
	size_t ndiff = nraw ? 2 * (nraw - 1) : 0;
	/* Difference columns are made when first needed: a column that follows its plan
	 * needs at most two. */
	int64_t *diff = xmalloc(ndiff * n * sizeof *diff + 1);
	uint8_t *diffnul = xmalloc(ndiff * n + 1);
	zblk_buf_reset(out);
	zblk_put_varint(out, JOBS_NCOLS);
	zblk_put_varint(out, (uint64_t)rawfile);
	if (rawfile) {
		zblk_put_varint(out, (uint64_t)row0);
		zblk_put_varint(out, nraw);
	}
	for (int c = 0; c < JOBS_NCOLS; c++) {
		int k = make_refs(cols, n, c, raw, rawnul, nraw, diff, diffnul, refs, refnul);
		size_t d0 = (size_t)c + nraw; /* refs[d0 + d] is difference column d */
		const int64_t *v = cols + (size_t)c * n;
		if (zblk_plan_usable(&plan[c], k)) {
			int want[2] = {plan[c].ref, plan[c].ref2};
			for (int i = 0; i < 2; i++)
				if (want[i] >= (int)d0 && !made[want[i] - d0]) {
					make_diff(raw, rawnul, n, (size_t)want[i] - d0, diff,
						  diffnul);
					made[want[i] - d0] = 1;
				}
			if (!zblk_put_i64_follow(out, v, NULL, n, refs, refnul, k, &plan[c]))
				continue;
		}
		for (size_t d = 0; d < ndiff; d++)
			if (!made[d]) {
				make_diff(raw, rawnul, n, d, diff, diffnul);
				made[d] = 1;
			}
		plan[c].rows = 0; /* followed or not, search */
		zblk_put_i64_plan(out, v, NULL, n, refs, refnul, k, &plan[c]);
	}
	free(diff);
	free(diffnul);
}

/* Staged form of n jobs (cols: JOBS_NCOLS x n): per column, the zigzag varints of each
 * value's difference from the one before it. Cheap both ways, and a few times smaller than
 * the bare array; the real coding waits for commit. */
static void stage_encode(struct zblk_buf *out, const int64_t *cols, size_t n)
{
	xgrow(&out->p, &out->cap, out->len + (size_t)JOBS_NCOLS * n * 10, 1);
	uint8_t *q = out->p + out->len;
	for (size_t c = 0; c < JOBS_NCOLS; c++) {
		uint64_t prev = 0;
		for (size_t i = 0; i < n; i++) {
			uint64_t v = (uint64_t)cols[c * n + i], d = v - prev;
			uint64_t z = (d << 1) ^ (uint64_t) - (int64_t)(d >> 63);
			prev = v;
			while (z >= 0x80) {
				*q++ = (uint8_t)(z | 0x80);
				z >>= 7;
			}
			*q++ = (uint8_t)z;
		}
	}
	out->len = (size_t)(q - out->p);
}

/* Inverse of stage_encode into cols; 0, or -1 if p is not n jobs' worth exactly. */
static int stage_decode(const uint8_t *p, size_t len, int64_t *cols, size_t n)
{
	const uint8_t *q = p, *end = p + len;
	for (size_t c = 0; c < JOBS_NCOLS; c++) {
		uint64_t prev = 0;
		for (size_t i = 0; i < n; i++) {
			uint64_t z = 0;
			for (int shift = 0;; shift += 7) { /* a varint, inline: 70,000 a block */
				if (q == end || shift > 63)
					return -1;
				uint8_t b = *q++;
				z |= (uint64_t)(b & 0x7f) << shift;
				if (!(b & 0x80))
					break;
			}
			prev += (z >> 1) ^ (uint64_t) - (int64_t)(z & 1);
			cols[c * n + i] = (int64_t)prev;
		}
	}
	return q == end ? 0 : -1;
}

static int flush_jobs(struct store_jobs *w, struct err *e)
{
	if (!w->n)
		return 0;
	for (int c = 0; c < JOBS_NCOLS; c++)
		for (size_t i = 0; i < w->n; i++)
			w->cols[(size_t)c * w->n + i] = col_get(&w->jobs[i], c);
	zblk_buf_reset(&w->raw);
	stage_encode(&w->raw, w->cols, w->n);
	/* zstd's fastest level still takes it to a third or less: less temp file I/O */
	zblk_buf_reset(&w->sealed);
	zblk_ctx_set_level(w->s->z, 1);
	int rc = zblk_seal(w->s->z, ZBLK_BYTES, w->n, w->raw.p, w->raw.len, &w->sealed, e);
	zblk_ctx_set_level(w->s->z, STORE_ZLEVEL);
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

/* The rows of trace_id's job blocks (what a load will decode), or 0 if unknown; never more
 * than full blocks hold, so a damaged count cannot ask for absurd memory. */
static int64_t trace_block_rows(struct store *s, int64_t trace_id)
{
	sqlite3_stmt *st;
	struct err ignored;
	int64_t n = 0;
	if (store_prep(s,
		       "SELECT min(sum(max(nrows, 0)), count(*) * ?2) FROM job_blocks "
		       "WHERE trace_id = ?1",
		       &st, &ignored))
		return 0;
	sqlite3_bind_int64(st, 1, trace_id);
	sqlite3_bind_int64(st, 2, STORE_BLOCK_ROWS);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
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
	int64_t njobs = trace_block_rows(s, trace_id);
	if (njobs > 0) /* one allocation, not a doubling series of copies */
		xgrow(&out->jobs, &out->jobcap, (size_t)njobs, sizeof *out->jobs);
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
	/* Most traces are stored in arrival order already: sort only when they are not. */
	for (size_t i = 1; i < out->njobs; i++) {
		if (by_arrival(&out->jobs[i - 1], &out->jobs[i]) > 0) {
			qsort(out->jobs, out->njobs, sizeof *out->jobs, by_arrival);
			break;
		}
	}
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

/* One staged block on its way into job_blocks: its jobs and the raw numbers they may be
 * coded against (filled by the settling thread), then its coded form (by either thread). */
struct settle_job {
	int64_t seq, nrows, cum; /* block number, jobs, simple-line index of its first job */
	size_t n, all, nraw;     /* jobs; the raw file's columns, of which nraw are used */
	int64_t *cols;           /* JOBS_NCOLS x n */
	int64_t *av;             /* all x (n + 1) raw numbers from line cum on (NULL: none) */
	uint8_t *an;
	int off; /* in: 0 / 1 offset into av, 2 alone, -1 try all; out: the one chosen */
	struct zblk_plan plan[JOBS_NCOLS]; /* in: column plans to follow; out: its own */
	struct zblk_buf enc, sealed;
	int rc;
	struct err err;
};

static void settle_job_free(struct settle_job *j)
{
	free(j->cols);
	free(j->av);
	free(j->an);
	zblk_buf_release(&j->enc);
	zblk_buf_release(&j->sealed);
	memset(j, 0, sizeof *j);
}

/* Make d (freed first) a deep copy of s, without s's coded form. */
static void settle_job_clone(struct settle_job *d, const struct settle_job *s)
{
	settle_job_free(d);
	*d = *s;
	d->enc = d->sealed = (struct zblk_buf){0};
	size_t n1 = s->n + 1;
	d->cols = xmalloc(JOBS_NCOLS * n1 * sizeof *d->cols);
	memcpy(d->cols, s->cols, JOBS_NCOLS * n1 * sizeof *d->cols);
	if (s->av) {
		d->av = xmalloc(s->all * n1 * sizeof *d->av + 1);
		memcpy(d->av, s->av, s->all * n1 * sizeof *d->av);
		d->an = xmalloc(s->all * n1 + 1);
		memcpy(d->an, s->an, s->all * n1);
	}
}

/* Fill j from the staged block (blob, len: a sealed ZBLK_BYTES block of stage_encode's
 * form) and, when cur is not NULL and
 * j->off is not 2, the raw numbers of its lines. */
static int settle_prepare(struct store *s, const void *blob, size_t len, struct raw_cursor *cur,
			  struct zblk_buf *raw, struct settle_job *j, struct err *e)
{
	struct zblk_info info;
	int rc = zblk_open(s->z, blob, len, &info, raw, e);
	if (rc)
		return rc;
	if (info.kind != ZBLK_BYTES || j->nrows < 0 || j->nrows > STORE_BLOCK_ROWS ||
	    (int64_t)info.rows != j->nrows)
		return err_set(e, VF_ESTORE, "staged job block %lld is damaged", (long long)j->seq);
	size_t n = j->n = (size_t)j->nrows;
	j->cols = xmalloc(JOBS_NCOLS * (n + 1) * sizeof *j->cols);
	if (stage_decode(raw->p, raw->len, j->cols, n))
		return err_set(e, VF_ESTORE, "staged job block %lld is damaged", (long long)j->seq);
	j->all = cur ? raw_cursor_ncols(cur) : 0;
	j->nraw = j->all < MAX_RAW ? j->all : MAX_RAW;
	if (!cur)
		j->off = 2;
	if (j->off == 2)
		return 0;
	j->av = xmalloc(j->all * (n + 1) * sizeof *j->av + 1);
	j->an = xmalloc(j->all * (n + 1) + 1);
	return raw_cursor_numbers(cur, j->cum, n + 1, j->av, j->an, e);
}

/* Code j into j->sealed with z (any thread: touches only j and z): against the raw lines
 * at offset j->off, or alone (2); j->off < 0 (the first block): try both offsets and
 * alone, keep the smallest and set j->off, which the later blocks then follow, so each
 * is coded once. */
static void settle_code(struct settle_job *j, int64_t file, struct zblk_ctx *z)
{
	size_t n = j->n, nraw = j->nraw;
	int64_t *rv = xmalloc(nraw * (n + 1) * 8 + 1);
	uint8_t *rn = xmalloc(nraw * (n + 1) + 1);
	size_t best = SIZE_MAX;
	int bestoff = -1, last = -1;
	j->rc = 0;
	for (int o = 0; o < 4 && !j->rc; o++) {
		int use = o;
		if (o == 3) { /* after trying all: code the best again if it was not the last */
			if (j->off >= 0 || bestoff == last)
				break;
			use = bestoff;
		} else if (j->off >= 0 && o != j->off) {
			continue;
		}
		for (size_t c = 0; use < 2 && c < nraw; c++) {
			memcpy(rv + c * n, j->av + c * (n + 1) + use, n * sizeof *rv);
			memcpy(rn + c * n, j->an + c * (n + 1) + use, n);
		}
		if (j->off < 0) /* each trial searches afresh; the last one's plans are kept */
			memset(j->plan, 0, sizeof j->plan);
		if (use < 2)
			encode_jobs(&j->enc, j->cols, n, file, j->cum + use, rv, rn, nraw, j->plan);
		else
			encode_jobs(&j->enc, j->cols, n, 0, 0, NULL, NULL, 0, j->plan);
		zblk_buf_reset(&j->sealed);
		j->rc = zblk_seal(z, ZBLK_JOBS, n, j->enc.p, j->enc.len, &j->sealed, &j->err);
		last = use;
		if (!j->rc && j->sealed.len < best) {
			best = j->sealed.len;
			bestoff = use;
		}
	}
	j->off = bestoff;
	free(rv);
	free(rn);
}

/* The blocks of one round of settle_trace and who codes them: the settling thread makes
 * jobs [0, navail) available one by one as it reads them; it and the helper thread each
 * take the next one not yet taken (next) and code it; the round ends when ndone == navail
 * and no more will come. Who codes a block does not change its bytes. */
#define SETTLE_ROUND 4

struct settle_helper {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct zblk_ctx *z;
	struct settle_job *job; /* SETTLE_ROUND jobs */
	size_t navail, next, ndone;
	int64_t file;
	int quit;
};

/* Take and code available jobs until none is left (mu held on entry and on return). */
static void settle_take(struct settle_helper *h, struct zblk_ctx *z)
{
	while (h->next < h->navail) {
		size_t i = h->next++;
		pthread_mutex_unlock(&h->mu);
		settle_code(&h->job[i], h->file, z);
		pthread_mutex_lock(&h->mu);
		h->ndone++;
		pthread_cond_broadcast(&h->cv);
	}
}

static void *settle_helper_main(void *arg)
{
	struct settle_helper *h = arg;
	pthread_mutex_lock(&h->mu);
	for (;;) {
		while (h->next >= h->navail && !h->quit)
			pthread_cond_wait(&h->cv, &h->mu);
		if (h->next >= h->navail)
			break;
		settle_take(h, h->z);
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

static int settle_insert(struct store *s, sqlite3_stmt *ins, int64_t trace_id, struct settle_job *j,
			 struct err *e)
{
	if (j->rc) {
		*e = j->err;
		return j->rc;
	}
	sqlite3_bind_int64(ins, 1, trace_id);
	sqlite3_bind_int64(ins, 2, j->seq);
	sqlite3_bind_int64(ins, 3, j->nrows);
	sqlite3_bind_blob64(ins, 4, j->sealed.p, j->sealed.len, SQLITE_STATIC);
	int rc = sqlite3_step(ins) != SQLITE_DONE ? store_sqlerr(s, e, "add job block") : 0;
	sqlite3_reset(ins);
	return rc;
}

/* Code trace_id's staged blocks into job_blocks. The first block (which picks the offset)
 * is a round of its own, its trials coded by both threads; after it, blocks go in rounds
 * of SETTLE_ROUND: this thread reads them
 * (SQLite and the raw cursor stay on it) while the helper thread starts coding them, then
 * helps code the rest; all are inserted in order here, so the store's bytes do not depend
 * on thread timing. */
static int settle_trace(struct store *s, int64_t trace_id, struct err *e)
{
	int64_t file, size = -1;
	int rc = pick_file(s, trace_id, &file, &size, e);
	sqlite3_stmt *sel = NULL, *ins = NULL;
	struct raw_cursor *cur = NULL;
	struct zblk_buf raw = {0};
	struct settle_job job[SETTLE_ROUND];
	struct settle_helper h = {.file = file, .job = job};
	int off = -1, step = SQLITE_ROW, live = 0, rounds = 0;
	/* Column plans: the first block of every other round searches afresh (so plans follow
	 * the data) and its plans guide the blocks of the rounds until the next search; each
	 * block gets its own copy, so which thread codes which block does not change the
	 * bytes. */
	struct zblk_plan plan[JOBS_NCOLS];
	memset(job, 0, sizeof job);
	memset(plan, 0, sizeof plan);
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
	int64_t cum = 0;
	while (!rc && step != SQLITE_DONE) {
		/* A round: one block while the offset is not chosen, else up to SETTLE_ROUND;
		 * a statement stepped again after SQLITE_DONE would start over. */
		size_t nj = 0, want = off < 0 ? 1 : SETTLE_ROUND, ntrial = 0;
		if (!live) {
			h.z = zblk_ctx_new(store_zlevel(size));
			pthread_mutex_init(&h.mu, NULL);
			pthread_cond_init(&h.cv, NULL);
			if (pthread_create(&h.th, NULL, settle_helper_main, &h)) {
				pthread_cond_destroy(&h.cv);
				pthread_mutex_destroy(&h.mu);
				rc = err_set(e, VF_EIO, "cannot start a thread");
				break;
			}
			live = 1;
		}
		for (; nj < want && !rc; nj++) {
			if ((step = sqlite3_step(sel)) != SQLITE_ROW) {
				if (step != SQLITE_DONE)
					rc = store_sqlerr(s, e, "read staged job blocks");
				break;
			}
			struct settle_job *j = &job[nj];
			settle_job_free(j);
			j->seq = sqlite3_column_int64(sel, 0);
			j->nrows = sqlite3_column_int64(sel, 1);
			j->cum = cum;
			j->off = off;
			if (nj || (rounds & 1))
				memcpy(j->plan, plan, sizeof plan);
			else /* a search */
				memset(j->plan, 0, sizeof plan);
			cum += j->nrows;
			rc = settle_prepare(s, sqlite3_column_blob(sel, 2),
					    (size_t)sqlite3_column_bytes(sel, 2), cur, &raw, j, e);
			if (!rc && off >= 0) { /* the helper may start on it */
				pthread_mutex_lock(&h.mu);
				h.navail = nj + 1;
				pthread_cond_broadcast(&h.cv);
				pthread_mutex_unlock(&h.mu);
			}
		}
		if (!rc && nj && off < 0) {
			/* The first block: its three trials (offset 0, 1, alone) as three jobs
			 * coded on both threads; the smallest is kept, as settle_code would. */
			if (job[0].off < 0) {
				for (ntrial = 1; ntrial < 3; ntrial++)
					settle_job_clone(&job[ntrial], &job[0]);
				for (size_t t = 0; t < ntrial; t++)
					job[t].off = (int)t;
			}
			pthread_mutex_lock(&h.mu);
			h.navail = ntrial ? ntrial : 1;
			pthread_cond_broadcast(&h.cv);
			pthread_mutex_unlock(&h.mu);
		}
		if (live) { /* code what is left, wait for the helper, end the round */
			pthread_mutex_lock(&h.mu);
			settle_take(&h, s->z);
			while (h.ndone < h.navail)
				pthread_cond_wait(&h.cv, &h.mu);
			h.navail = h.next = h.ndone = 0;
			pthread_mutex_unlock(&h.mu);
		} else if (!rc && nj) {
			settle_code(&job[0], file, s->z);
		}
		if (rc || !nj)
			break;
		if (ntrial) {
			size_t b = 0;
			for (size_t t = 0; t < ntrial; t++) {
				if (job[t].rc) {
					b = t;
					break;
				}
				if (job[t].sealed.len < job[b].sealed.len)
					b = t;
			}
			struct settle_job tmp = job[0];
			job[0] = job[b];
			job[b] = tmp;
		}
		if (off < 0)
			off = job[0].off;
		if (!(rounds++ & 1))
			memcpy(plan, job[0].plan, sizeof plan);
		for (size_t i = 0; i < nj && !rc; i++)
			rc = settle_insert(s, ins, trace_id, &job[i], e);
	}
	zblk_ctx_set_level(s->z, STORE_ZLEVEL);
out:
	if (live) {
		pthread_mutex_lock(&h.mu);
		h.quit = 1;
		pthread_cond_broadcast(&h.cv);
		pthread_mutex_unlock(&h.mu);
		pthread_join(h.th, NULL);
		pthread_cond_destroy(&h.cv);
		pthread_mutex_destroy(&h.mu);
	}
	zblk_ctx_free(h.z);
	for (size_t i = 0; i < SETTLE_ROUND; i++)
		settle_job_free(&job[i]);
	sqlite3_finalize(sel);
	sqlite3_finalize(ins);
	raw_cursor_close(cur);
	zblk_buf_release(&raw);
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
