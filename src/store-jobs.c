/*
 * store-jobs.c — the jobs of a trace in column blocks of at most STORE_BLOCK_ROWS rows.
 *
 * A ZBLK_JOBS block (rows = jobs) holds varints ncols and rawfile, then, if rawfile is not 0,
 * varints line0 and nraw, then, when ncols carries JOBS_F_LINES (a block whose jobs' lines
 * are not consecutive), an integer column of the gaps between their lines, then ncols
 * integer columns, one per struct job field, in the order of the COL_ enum below
 * (flush_jobs, col_set). ncols is JOBS_NCOLS, or JOBS_NCOLS_GANG in a
 * block holding a gang (a job of W > 1 workers): its last column is then every job's W. A
 * block of one-worker jobs has no such column, so it is byte for byte what it was before
 * jobs had workers (schema version 9 marks a store that may hold the longer blocks). Each column
 * may be coded against any earlier one (a job's hbm against its gpu, say) and, when rawfile is set,
 * against the numbers of the imported file's physical lines its jobs came from (0-based: line0 +
 * i, or line0 plus the gaps up to job i plus i; store-raw.c; a line kept verbatim has none): their
 * first nraw fields and the differences of neighbouring fields (deletion - scheduled = duration).
 * A job parsed from a line then costs little more than the line did: the store holds the trace
 * once, not twice, even where quarantined rows or lines that make no job come between jobs. The
 * gpu column holds gpu demand minus num_gpu x gpu_milli (JOBS_F_GPU; schema version 11 marks a
 * store whose blocks may carry either flag).
 *
 * Writing: jobs fill one block. A block whose jobs came from a text file's lines
 * (store_jobs_add_line) goes, when full, when its lines would span more than JOBS_SPAN_LINES or
 * when the file or the source changes, to that file's raw writer; once the text block holding its
 * lines is coded, it is coded against the numbers split from those lines (each file's first block
 * tries alone too and keeps the smaller; its later blocks follow) and inserted with the file's
 * blocks (store-raw.c). A block of jobs from no text file is coded alone here and inserted at once.
 * Blocks are numbered (seq) when they are ended, in the order jobs were added, and which text block
 * a job block waits for depends only on that order, so the bytes do not depend on thread timing.
 * The writer keeps at most one block of jobs in memory; a raw writer at most the few that wait for
 * their lines.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__) && defined(__GNUC__)
#include <emmintrin.h>
#endif

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
	JOBS_NCOLS,
	COL_WORKERS = JOBS_NCOLS, /* only in a block with a gang */
	JOBS_NCOLS_GANG
};
/* ncols' flags: a column of the jobs' line gaps follows the header (the lines are not line0,
 * line0 + 1, ...); the gpu column holds each job's gpu demand minus num_gpu x gpu_milli (0
 * wherever a trace reader made it, as trace_job_gpus does) */
#define JOBS_F_LINES 64
#define JOBS_F_GPU   128
/* Lines a block's jobs may span, as a text block's RAW_BLOCK_LINES, so that they stay in
 * the text blocks the job block may refer to (store-raw.c: else it is coded alone). */
#define JOBS_SPAN_LINES 8192

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
	case COL_WORKERS:
		j->workers = (int32_t)v;
		return v >= 1 && v <= JOB_WORKERS_MAX ? 0 : -1;
	default:
		j->dem[c - COL_DEM] = v;
		return 0;
	}
}

struct store_jobs {
	struct store *s;
	int64_t trace_id;
	int64_t seq;           /* next block number */
	int64_t total;         /* jobs written */
	int64_t *cols;         /* the current block's jobs, column-major: field c of job i at
				* cols[c * STORE_BLOCK_ROWS + i] (COL_ order, as col_set) */
	size_t n;              /* jobs in the current block */
	int gang;              /* 1 once a job of the current block has W > 1 */
	struct store_raw *src; /* the text file the block's jobs came from, or NULL */
	int64_t line0;         /* 0-based line of the block's first job in src */
	int64_t *lines;        /* 0-based line in src of each job of the block */
	int gaps;              /* 1 once a job's line is not the one after the last job's */
	const struct store_raw *last_src; /* the file of the last job added from a file */
	int64_t last;                     /* and the 0-based line it came from */
	struct jobs_coder *own;           /* plans of the blocks coded here (alone) */
};

int store_jobs_begin(struct store *s, int64_t trace_id, struct store_jobs **out, struct err *e)
{
	(void)e;
	struct store_jobs *w = xcalloc(1, sizeof *w);
	w->s = s;
	w->trace_id = trace_id;
	w->own = jobs_coder_new();
	w->cols = xmalloc((size_t)JOBS_NCOLS_GANG * STORE_BLOCK_ROWS * sizeof *w->cols);
	w->lines = xmalloc(STORE_BLOCK_ROWS * sizeof *w->lines);
	*out = w;
	return 0;
}

void store_jobs_abort(struct store_jobs *w)
{
	if (!w)
		return;
	if (w->src)
		raw_attach_jobs(w->src, NULL);
	jobs_coder_free(w->own);
	FREE_ALL(w->cols, w->lines, w);
}

#define MAX_RAW JOBS_MAX_RAW

/* o = x - y (wrapping) and o = x | y (a NULL flag: not 0) over n rows: separate
 * loops on unaliased columns, 16 bytes a step where SSE2 is there. */
static void sub_cols(int64_t *restrict o, const int64_t *restrict x, const int64_t *restrict y,
		     size_t n)
{
	size_t i = 0;
#if defined(__SSE2__) && defined(__GNUC__)
	for (; i + 2 <= n; i += 2)
		_mm_storeu_si128(
			(__m128i *)(void *)(o + i),
			_mm_sub_epi64(_mm_loadu_si128((const __m128i *)(const void *)(x + i)),
				      _mm_loadu_si128((const __m128i *)(const void *)(y + i))));
#endif
	for (; i < n; i++)
		o[i] = (int64_t)((uint64_t)x[i] - (uint64_t)y[i]);
}

static void or_cols(uint8_t *restrict o, const uint8_t *restrict x, const uint8_t *restrict y,
		    size_t n)
{
	size_t i = 0;
#if defined(__SSE2__) && defined(__GNUC__)
	for (; i + 16 <= n; i += 16)
		_mm_storeu_si128(
			(__m128i *)(void *)(o + i),
			_mm_or_si128(_mm_loadu_si128((const __m128i *)(const void *)(x + i)),
				     _mm_loadu_si128((const __m128i *)(const void *)(y + i))));
#endif
	for (; i < n; i++)
		o[i] = x[i] | y[i];
}

/* Difference column d (of 2 * (nraw - 1)): raw[j] - raw[j-1] for even d, raw[j-1] - raw[j]
 * for odd, j = d / 2 + 1, NULL if either is; n rows into diff and diffnul at column d. */
static void make_diff(const int64_t *raw, const uint8_t *rawnul, size_t n, size_t d, int64_t *diff,
		      uint8_t *diffnul)
{
	size_t j = d / 2 + 1, sign = d % 2;
	size_t a = sign ? j - 1 : j, b = sign ? j : j - 1;
	sub_cols(diff + d * n, raw + a * n, raw + b * n, n);
	or_cols(diffnul + d * n, rawnul + a * n, rawnul + b * n, n);
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

/* Encode n jobs (cols: ncols x n, ncols JOBS_NCOLS or JOBS_NCOLS_GANG) into out, against
 * file rawfile's numbers (raw, rawnul: nraw x n, nraw <= MAX_RAW) when rawfile is not 0,
 * guided by and updating the column plans plan[JOBS_NCOLS_GANG]; diff and diffnul are scratch
 * of 2 * MAX_RAW x n. */
static void encode_jobs(struct zblk_buf *out, const int64_t *cols, int ncols, size_t n,
			int64_t rawfile, int64_t row0, const int64_t *lines, const int64_t *raw,
			const uint8_t *rawnul, size_t nraw, struct zblk_plan *plan, int64_t *diff,
			uint8_t *diffnul)
{
	const int64_t *refs[JOBS_NCOLS_GANG + 3 * MAX_RAW];
	const uint8_t *refnul[JOBS_NCOLS_GANG + 3 * MAX_RAW];
	uint8_t made[2 * MAX_RAW] = {0}; /* the difference columns filled so far */
	if (!rawfile)
		nraw = 0;
	size_t ndiff = nraw ? 2 * (nraw - 1) : 0;
	/* Difference columns are made when first needed: a column that follows its plan
	 * needs at most two. */
	zblk_buf_reset(out);
	zblk_put_varint(out, (uint64_t)ncols | JOBS_F_GPU | (rawfile && lines ? JOBS_F_LINES : 0));
	zblk_put_varint(out, (uint64_t)rawfile);
	if (rawfile) {
		zblk_put_varint(out, (uint64_t)row0);
		zblk_put_varint(out, nraw);
	}
	if (rawfile && lines) {      /* gap i: lines[i] - lines[i - 1] - 1, 0 for the first */
		int64_t *gap = diff; /* free until the first difference column is made */
		gap[0] = 0;
		for (size_t i = 1; i < n; i++)
			gap[i] = lines[i] - lines[i - 1] - 1;
		zblk_put_i64(out, gap, NULL, n, NULL, NULL, 0);
	}
	for (int c = 0; c < ncols; c++) {
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
}

struct jobs_coder {
	struct zblk_plan plan[JOBS_NCOLS_GANG];
	int mode;      /* 0 not chosen yet, 1 against the file, 2 alone */
	int64_t *diff; /* encode_jobs' scratch, 2 * MAX_RAW x STORE_BLOCK_ROWS */
	uint8_t *diffnul;
};

struct jobs_coder *jobs_coder_new(void)
{
	struct jobs_coder *c = xcalloc(1, sizeof *c);
	c->diff = xmalloc(2 * MAX_RAW * STORE_BLOCK_ROWS * sizeof *c->diff);
	c->diffnul = xmalloc(2 * MAX_RAW * STORE_BLOCK_ROWS);
	return c;
}

void jobs_coder_free(struct jobs_coder *c)
{
	if (!c)
		return;
	FREE_ALL(c->diff, c->diffnul, c);
}

void jobs_task_free(struct jobs_task *t)
{
	if (!t)
		return;
	zblk_buf_release(&t->enc);
	zblk_buf_release(&t->sealed);
	FREE_ALL(t->cols, t->lines, t);
}

void jobs_task_code(struct jobs_task *t, struct jobs_coder *c, int64_t rawfile, const int64_t *rv,
		    const uint8_t *rn, size_t nraw, struct zblk_ctx *z)
{
	/* JOBS_F_GPU: the gpu demand against the product of its two other columns, which no
	 * reference (a multiple of one column) gives */
	int64_t *gpu = t->cols + (size_t)(COL_DEM + DIM_GPU) * t->n;
	const int64_t *ng = t->cols + (size_t)COL_NGPU * t->n,
		      *gm = t->cols + (size_t)COL_GPUMILLI * t->n;
	for (size_t i = 0; i < t->n; i++)
		gpu[i] = (int64_t)((uint64_t)gpu[i] - (uint64_t)ng[i] * (uint64_t)gm[i]);
	if ((!rawfile || !nraw) && c->mode == 1) {
		/* A block of a file coded against its lines whose lines are not at hand: alone,
		 * with plans of its own, so the file's plans stay as they were. */
		struct zblk_plan own[JOBS_NCOLS_GANG];
		memset(own, 0, sizeof own);
		encode_jobs(&t->enc, t->cols, t->ncols, t->n, 0, 0, NULL, NULL, NULL, 0, own,
			    c->diff, c->diffnul);
		zblk_buf_reset(&t->sealed);
		t->rc = zblk_seal(z, ZBLK_JOBS, t->n, t->enc.p, t->enc.len, &t->sealed, &t->err);
		return;
	}
	if (!rawfile || !nraw)
		c->mode = 2;
	if (nraw > MAX_RAW)
		nraw = MAX_RAW;
	if (c->mode == 0) {
		/* The first block: against the file, then alone, each searching afresh; the
		 * smaller wins and the later blocks follow it (and its plans). */
		struct zblk_plan aplan[JOBS_NCOLS_GANG];
		memset(aplan, 0, sizeof aplan);
		encode_jobs(&t->enc, t->cols, t->ncols, t->n, rawfile, t->line0, t->lines, rv, rn,
			    nraw, aplan, c->diff, c->diffnul);
		zblk_buf_reset(&t->sealed);
		t->rc = zblk_seal(z, ZBLK_JOBS, t->n, t->enc.p, t->enc.len, &t->sealed, &t->err);
		if (t->rc)
			return;
		struct zblk_buf keep = t->sealed;
		t->sealed = (struct zblk_buf){0};
		memset(c->plan, 0, sizeof c->plan);
		encode_jobs(&t->enc, t->cols, t->ncols, t->n, 0, 0, NULL, NULL, NULL, 0, c->plan,
			    c->diff, c->diffnul);
		t->rc = zblk_seal(z, ZBLK_JOBS, t->n, t->enc.p, t->enc.len, &t->sealed, &t->err);
		c->mode = 2;
		if (!t->rc && keep.len <= t->sealed.len) {
			zblk_buf_release(&t->sealed);
			t->sealed = keep;
			memcpy(c->plan, aplan, sizeof aplan);
			c->mode = 1;
		} else {
			zblk_buf_release(&keep);
		}
		return;
	}
	if (c->mode == 2)
		encode_jobs(&t->enc, t->cols, t->ncols, t->n, 0, 0, NULL, NULL, NULL, 0, c->plan,
			    c->diff, c->diffnul);
	else
		encode_jobs(&t->enc, t->cols, t->ncols, t->n, rawfile, t->line0, t->lines, rv, rn,
			    nraw, c->plan, c->diff, c->diffnul);
	zblk_buf_reset(&t->sealed);
	t->rc = zblk_seal(z, ZBLK_JOBS, t->n, t->enc.p, t->enc.len, &t->sealed, &t->err);
}

int jobs_task_insert(struct store *s, struct jobs_task *t, struct err *e)
{
	if (t->rc) {
		*e = t->err;
		return t->rc;
	}
	sqlite3_stmt *st;
	int rc = store_prep(
		s, "INSERT INTO job_blocks(trace_id, seq, nrows, data) VALUES (?,?,?,?)", &st, e);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, t->trace_id);
	sqlite3_bind_int64(st, 2, t->seq);
	sqlite3_bind_int64(st, 3, (int64_t)t->n);
	sqlite3_bind_blob64(st, 4, t->sealed.p, t->sealed.len, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = store_sqlerr(s, e, "add job block");
	sqlite3_finalize(st);
	return rc;
}

/* End the block being filled: to its file's raw writer, or coded alone and inserted. */
static int flush_jobs(struct store_jobs *w, struct err *e)
{
	if (!w->n)
		return 0;
	struct jobs_task *t = xcalloc(1, sizeof *t);
	size_t n = w->n;
	t->trace_id = w->trace_id;
	t->seq = w->seq++;
	t->line0 = w->line0;
	if (w->gaps) {
		t->lines = xmalloc(n * sizeof *t->lines);
		memcpy(t->lines, w->lines, n * sizeof *t->lines);
	}
	w->gaps = 0;
	t->n = n;
	t->ncols = w->gang ? JOBS_NCOLS_GANG : JOBS_NCOLS;
	if (n == STORE_BLOCK_ROWS) { /* a full block: its columns as they are */
		t->cols = w->cols;
		w->cols = xmalloc((size_t)JOBS_NCOLS_GANG * STORE_BLOCK_ROWS * sizeof *w->cols);
	} else {
		t->cols = xmalloc((size_t)t->ncols * n * sizeof *t->cols);
		for (size_t c = 0; c < (size_t)t->ncols; c++)
			memcpy(t->cols + c * n, w->cols + c * STORE_BLOCK_ROWS,
			       n * sizeof *t->cols);
	}
	w->total += (int64_t)n;
	w->n = 0;
	w->gang = 0;
	if (w->src) {
		raw_queue_jobs(w->src, t);
		return 0;
	}
	jobs_task_code(t, w->own, 0, NULL, NULL, 0, w->s->z);
	int rc = jobs_task_insert(w->s, t, e);
	jobs_task_free(t);
	return rc;
}

int store_jobs_add_line(struct store_jobs *w, const struct job *j, struct store_raw *src,
			int64_t line, struct err *e)
{
	int rc;
	if (src && (!raw_is_text(src) || line < 1))
		src = NULL;
	/* A job of an earlier line than the last one's (no reader does this) is coded alone: a
	 * reader of the blocks goes forward only. */
	if (src && src == w->last_src && line - 1 < w->last)
		src = NULL;
	/* A block's jobs span at most JOBS_SPAN_LINES lines. */
	if (src && src == w->src && w->n && line - 1 - w->line0 >= JOBS_SPAN_LINES &&
	    (rc = flush_jobs(w, e)))
		return rc;
	if (src != w->src) {
		if ((rc = flush_jobs(w, e)))
			return rc;
		if (w->src)
			raw_attach_jobs(w->src, NULL);
		w->src = src;
		if (src)
			raw_attach_jobs(src, w);
	}
	if (!w->n)
		w->line0 = src ? line - 1 : 0;
	if (src) {
		w->gaps |= line - 1 != w->line0 + (int64_t)w->n;
		w->lines[w->n] = line - 1;
		w->last_src = src;
		w->last = line - 1;
	}
	/* The inverse of col_set, straight into the block's columns */
	int64_t *o = w->cols + w->n++;
	o[COL_ID * STORE_BLOCK_ROWS] = j->id;
	o[COL_ARRIVAL * STORE_BLOCK_ROWS] = j->arrival;
	o[COL_DURATION * STORE_BLOCK_ROWS] = j->duration;
	for (size_t d = 0; d < DIM_N; d++)
		o[(COL_DEM + d) * STORE_BLOCK_ROWS] = j->dem[d];
	o[COL_NGPU * STORE_BLOCK_ROWS] = j->num_gpu;
	o[COL_GPUMILLI * STORE_BLOCK_ROWS] = j->gpu_milli;
	o[COL_SPEC * STORE_BLOCK_ROWS] = j->gpu_spec;
	o[COL_CLS * STORE_BLOCK_ROWS] = j->cls;
	o[COL_ENRICHED * STORE_BLOCK_ROWS] = j->enriched;
	o[COL_FLAGS * STORE_BLOCK_ROWS] = j->flags;
	o[COL_WORKERS * STORE_BLOCK_ROWS] = job_workers(j);
	w->gang |= job_is_gang(j);
	static_assert(COL_WORKERS + 1 == JOBS_NCOLS_GANG, "store_jobs_add_line fills every column");
	return w->n == STORE_BLOCK_ROWS ? flush_jobs(w, e) : 0;
}

int store_jobs_add(struct store_jobs *w, const struct job *j, struct err *e)
{
	return store_jobs_add_line(w, j, NULL, 0, e);
}

int store_jobs_src_end(struct store_jobs *w, struct store_raw *src, struct err *e)
{
	if (w->last_src == src)
		w->last_src = NULL;
	if (w->src != src)
		return 0;
	int rc = flush_jobs(w, e);
	w->src = NULL;
	return rc;
}

void store_jobs_src_gone(struct store_jobs *w, struct store_raw *src)
{
	if (w->src == src)
		w->src = NULL;
	if (w->last_src == src)
		w->last_src = NULL;
}

int store_jobs_end(struct store_jobs *w, struct err *e)
{
	int rc = flush_jobs(w, e);
	if (!rc) {
		char sql[128];
		snprintf(sql, sizeof sql, "UPDATE traces SET njobs = njobs + %lld WHERE id = %lld",
			 (long long)w->total, (long long)w->trace_id);
		if (!(rc = store_exec(w->s, sql, e)))
			rc = store_seal(w->s, "traces", w->trace_id, e);
	}
	store_jobs_abort(w);
	return rc;
}

/* Scratch of decode_jobs, kept across the blocks of a load. */
struct load_scratch {
	int64_t *cols, *rv, *diff; /* JOBS_NCOLS_GANG x n, MAX_RAW x n, 2 * MAX_RAW x n */
	int64_t *lines;            /* n */
	uint8_t *rn, *diffnul;
};

static void load_scratch_release(struct load_scratch *l)
{
	FREE_ALL(l->cols, l->rv, l->diff, l->lines, l->rn, l->diffnul);
}

/* Decode one jobs block (rows n) and append its jobs to out; *cur is the raw cursor of
 * the file the blocks refer to (opened here on first use, closed by the caller). */
static int decode_jobs(struct store *s, const struct zblk_buf *raw, uint64_t n,
		       struct raw_cursor **cur, int64_t *curfile, struct load_scratch *l,
		       struct job_set *out, struct err *e)
{
	struct zblk_reader r;
	uint64_t ncols, rawfile, line0 = 0, nraw = 0;
	zblk_reader_init(&r, raw->p, raw->len);
	if (zblk_get_varint(&r, &ncols))
		return err_set(e, VF_ESTORE, "jobs block: bad header");
	int gaps = (ncols & JOBS_F_LINES) != 0, product = (ncols & JOBS_F_GPU) != 0;
	ncols &= ~(uint64_t)(JOBS_F_LINES | JOBS_F_GPU);
	if ((ncols != JOBS_NCOLS && ncols != JOBS_NCOLS_GANG) || n > STORE_BLOCK_ROWS ||
	    zblk_get_varint(&r, &rawfile) || (gaps && !rawfile) ||
	    (rawfile && (zblk_get_varint(&r, &line0) || zblk_get_varint(&r, &nraw))) ||
	    nraw > MAX_RAW || line0 > INT64_MAX / 2 || rawfile > INT64_MAX)
		return err_set(e, VF_ESTORE, "jobs block: bad header");
	if (!l->cols) { /* at most a full block of every column */
		size_t nn = STORE_BLOCK_ROWS + 1;
		l->cols = xmalloc(JOBS_NCOLS_GANG * nn * sizeof *l->cols);
		l->rv = xmalloc(MAX_RAW * nn * sizeof *l->rv);
		l->diff = xmalloc(2 * MAX_RAW * nn * sizeof *l->diff);
		l->lines = xmalloc(nn * sizeof *l->lines);
		l->rn = xmalloc(MAX_RAW * nn);
		l->diffnul = xmalloc(2 * MAX_RAW * nn);
	}
	int64_t *cols = l->cols, *rv = l->rv, *diff = l->diff;
	uint8_t *rn = l->rn, *diffnul = l->diffnul;
	const int64_t *refs[JOBS_NCOLS_GANG + 3 * MAX_RAW];
	const uint8_t *refnul[JOBS_NCOLS_GANG + 3 * MAX_RAW];
	int rc = 0;
	/* The jobs' lines from their gaps: each at least the one before (-1), the first line0,
	 * none past what the reader can count. */
	int64_t *lines = NULL;
	if (gaps) {
		lines = l->lines;
		if (zblk_get_i64(&r, lines, NULL, n, NULL, NULL, 0))
			return err_set(e, VF_ESTORE, "jobs block: its lines are damaged");
		int64_t at = (int64_t)line0;
		for (size_t i = 0; i < n; i++) {
			int64_t g = lines[i];
			if (i ? g < -1 || g > INT64_MAX / 4 - at : g != 0)
				return err_set(e, VF_ESTORE, "jobs block: job %zu: bad line gap",
					       i);
			at += i ? g + 1 : 0;
			lines[i] = at;
		}
	}
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
		rc = raw_cursor_numbers(*cur, (int64_t)line0, lines, (size_t)n, (size_t)nraw, rv,
					rn, e);
		make_diffs(rv, rn, nraw, (size_t)n, diff, diffnul);
	}
	for (int c = 0; c < (int)ncols && !rc; c++) {
		int k = make_refs(cols, (size_t)n, c, rv, rn, nraw, diff, diffnul, refs, refnul);
		if (zblk_get_i64(&r, cols + (size_t)c * n, NULL, n, refs, refnul, k))
			rc = err_set(e, VF_ESTORE, "jobs block: column %d is damaged", c);
	}
	if (!rc && product) {
		int64_t *gpu = cols + (size_t)(COL_DEM + DIM_GPU) * n;
		const int64_t *ng = cols + (size_t)COL_NGPU * n,
			      *gm = cols + (size_t)COL_GPUMILLI * n;
		for (size_t i = 0; i < n; i++)
			gpu[i] = (int64_t)((uint64_t)gpu[i] + (uint64_t)ng[i] * (uint64_t)gm[i]);
	}
	if (!rc && r.pos != r.len)
		rc = err_set(e, VF_ESTORE, "jobs block: %zu bytes left over", r.len - r.pos);
	for (size_t i = 0; i < n && !rc; i++) {
		struct job j;
		memset(&j, 0, sizeof j);
		j.workers = 1; /* a block without the column holds one-worker jobs */
		for (int c = 0; c < (int)ncols && !rc; c++)
			if (col_set(&j, c, cols[(size_t)c * n + i]))
				rc = err_set(e, VF_ESTORE,
					     "jobs block: job %zu: field %d out of range", i, c);
		if (!rc)
			job_set_add_job(out, &j);
	}
	return rc;
}

static int by_arrival(const void *a, const void *b)
{
	const struct job *x = a, *y = b;
	if (x->arrival != y->arrival)
		return x->arrival < y->arrival ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Does the header of the sealed block blob[0..len) of b claim no more rows than a block
 * holds, and no more bytes than its writer writes for them (b->max_bytes)? Checked before
 * zblk_open allocates what it claims. A header that does not parse passes: zblk_open says
 * what is wrong with it. */
static int block_size_ok(const struct store_blocks *b, const void *blob, size_t len, struct err *e)
{
	struct zblk_info info;
	if (zblk_peek(blob, len, &info))
		return 0;
	if (info.rows > STORE_BLOCK_ROWS)
		return err_set(e, VF_ESTORE, "block claims %llu %s, more than the %d a block holds",
			       (unsigned long long)info.rows, b->rows, STORE_BLOCK_ROWS);
	uint64_t max = b->max_bytes(info.rows);
	if (info.raw_len > max)
		return err_set(e, VF_ESTORE,
			       "block claims %llu bytes for %llu %s, more than they take (%llu)",
			       (unsigned long long)info.raw_len, (unsigned long long)info.rows,
			       b->rows, (unsigned long long)max);
	return 0;
}

int store_blocks_read(struct store *s, int64_t trace_id, const struct store_blocks *b,
		      struct err *e)
{
	sqlite3_stmt *st;
	char sql[128];
	snprintf(sql, sizeof sql, "SELECT nrows, data, seq FROM %s WHERE trace_id = ? ORDER BY seq",
		 b->table);
	int rc = store_prep(s, sql, &st, e);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, trace_id);
	struct zblk_buf raw = {0};
	int64_t seq = 0;
	int step;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		struct zblk_info info;
		const void *blob = sqlite3_column_blob(st, 1);
		size_t len = (size_t)sqlite3_column_bytes(st, 1);
		if (sqlite3_column_int64(st, 2) != seq++) /* a block gone, or one twice */
			rc = err_set(e, VF_ESTORE, "not there, or twice");
		if (!rc)
			rc = block_size_ok(b, blob, len, e);
		if (!rc)
			rc = zblk_open(s->z, blob, len, &info, &raw, e);
		if (!rc &&
		    (info.kind != b->kind || (int64_t)info.rows != sqlite3_column_int64(st, 0)))
			rc = err_set(e, VF_ESTORE, "kind or row count does not match");
		if (!rc)
			rc = b->decode(b->u, &raw, (size_t)info.rows, e);
		if (rc)
			err_prefix(e, "%s: trace %lld: %s block %lld: ", s->path,
				   (long long)trace_id, b->what, (long long)seq - 1);
	}
	if (!rc && step != SQLITE_DONE)
		rc = store_sqlerr(s, e, "read blocks");
	sqlite3_finalize(st);
	zblk_buf_release(&raw);
	return rc;
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

/* The jobs and nodes loaded are those the trace's row counts (its row is sealed; job
 * blocks are not rows of a sealed table, and a block gone is only seen here). */
static int check_counts(struct store *s, int64_t trace_id, const struct job_set *js, struct err *e)
{
	sqlite3_stmt *st;
	int rc = store_prep(s, "SELECT njobs, nnodes FROM traces WHERE id = ?", &st, e);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, trace_id);
	int step = sqlite3_step(st);
	if (step == SQLITE_ROW && (sqlite3_column_int64(st, 0) != (int64_t)js->njobs ||
				   sqlite3_column_int64(st, 1) != (int64_t)js->nnodes))
		rc = err_set(e, VF_ESTORE,
			     "%s: trace %lld: %zu jobs and %zu nodes stored, %lld and %lld "
			     "recorded: the store was damaged or changed outside voidfit ('voidfit "
			     "check %s' tells more)",
			     s->path, (long long)trace_id, js->njobs, js->nnodes,
			     (long long)sqlite3_column_int64(st, 0),
			     (long long)sqlite3_column_int64(st, 1), s->path);
	else if (step == SQLITE_DONE)
		rc = err_set(e, VF_EINPUT, "trace %lld: not in %s", (long long)trace_id, s->path);
	else if (step != SQLITE_ROW)
		rc = store_sqlerr(s, e, "read trace");
	sqlite3_finalize(st);
	return rc;
}

/* decode_jobs' state across the blocks of a load (store_blocks.u). */
struct jobs_load {
	struct store *s;
	struct raw_cursor *cur;
	int64_t curfile;
	struct load_scratch scratch;
	struct job_set *out;
};

static int decode_jobs_block(void *u, const struct zblk_buf *raw, size_t rows, struct err *e)
{
	struct jobs_load *l = u;
	return decode_jobs(l->s, raw, rows, &l->cur, &l->curfile, &l->scratch, l->out, e);
}

/* A job block's most bytes: its four varints, then at most JOBS_NCOLS_GANG integer columns
 * and the gaps of their lines (flush_jobs). */
static uint64_t jobs_max_bytes(uint64_t rows)
{
	return 4 * 10 + (uint64_t)(JOBS_NCOLS_GANG + 1) * zblk_i64_max((size_t)rows);
}

int store_trace_load(struct store *s, int64_t trace_id, struct job_set *out, struct err *e)
{
	job_set_release(out);
	int64_t njobs = trace_block_rows(s, trace_id);
	if (njobs > 0) /* one allocation, not a doubling series of copies */
		job_set_reserve(out, (size_t)njobs);
	struct jobs_load l = {.s = s, .out = out};
	const struct store_blocks b = {.table = "job_blocks",
				       .what = "job",
				       .rows = "jobs",
				       .kind = ZBLK_JOBS,
				       .max_bytes = jobs_max_bytes,
				       .decode = decode_jobs_block,
				       .u = &l};
	int rc = store_blocks_read(s, trace_id, &b, e);
	raw_cursor_close(l.cur);
	load_scratch_release(&l.scratch);
	if (!rc)
		rc = store_nodes_load(s, trace_id, out, e);
	if (!rc)
		rc = check_counts(s, trace_id, out, e);
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
