/*
 * store-raw.c — imported files kept losslessly, so 'export --raw' gives them back byte for
 * byte.
 *
 * Opaque mode (a .gz or .zst input): the bytes as given, in sealed ZBLK_BYTES blocks of
 * RAW_CHUNK bytes.
 *
 * Text mode: the file is cut into physical lines at '\n'. A line's terminator is "\n",
 * "\r\n" or none (the last line of a file without a final newline, or a fragment of a line
 * longer than RAW_LONG_LINE). A block holds RAW_BLOCK_LINES lines (the first only
 * RAW_FIRST_LINES, so the worker starts sooner) or RAW_BLOCK_BYTES. The first block
 * decides the file's usual line ending (the more frequent one) and its field count (the
 * most frequent comma count + 1 among lines without a quote character). A line is
 * "simple" when it has the usual ending, no '"' and that many fields; simple lines are stored as
 * columns, every other line verbatim (with its terminator) as an exception at its line index. Each
 * field is split into a text prefix, a number (the first run of digits, with a '-' before it when
 * that re-renders the same, and its zero-padded width when it has leading zeros) and a text suffix,
 * so "openb-pod-0042", "120.0" and "2057225.0000000002" all become small integers plus constant-ish
 * text; the numbers of a column may be coded against an earlier column's (scheduled vs created).
 * The coding choices of each number and width column are planned on one block and followed by the
 * next ones while they stay as cheap (zblk_plan).
 *
 * Text block layout (ZBLK_RAWTEXT, rows = lines): lines, ncols, exceptions (varints); their line
 * indices (integer column); exception bytes (string column); then for each of ncols
 * columns over the simple lines: prefix (string), number (integer, NULL = none), width
 * (integer, 0 = canonical), suffix (string).
 *
 * Shapes (schema version 12): fields that repeat together (a job's class, cpu, memory and
 * GPUs) may be coded jointly (store-shape.c proposes which). ncols then carries RAW_F_SHAPE,
 * and after the exceptions come the varints m >= 2, the m fields (the first's index, then
 * each one's distance from the one before less 1) and k <= the simple lines, then each
 * simple line's shape (integer column, < k). Each of the m fields has its four columns over
 * the k shapes instead of the lines, its numbers coded against the m fields before it; the
 * others over the lines as above, against the columns before them as the lines have them.
 * The fields are planned on a file's first two blocks and every RAW_SHAPE_PLAN-th, coding
 * the block both ways and keeping the smaller; the blocks between follow the plan.
 *
 * Invariant of a writer: blk holds the bytes of the nln complete lines of the current block
 * followed by the partial line [cur, blk.len); memory is bounded by RAW_QUEUE + 1 times
 * RAW_BLOCK_BYTES + RAW_LONG_LINE plus the caller's chunk, whatever the file size.
 *
 * Threads: a text file of more than one block is coded on a second core. A full block is
 * handed to a worker thread (its own zstd context) that hashes, splits, codes and seals the
 * blocks in order, while the caller goes on filling the next. Up to RAW_QUEUE blocks are with the
 * worker (a ring: block b in q[b % RAW_QUEUE]), so neither thread waits for the other while
 * their speeds vary; the caller takes block b back (waiting if it is not coded yet) only when
 * it needs its slot, to hand over block b + RAW_QUEUE, or at the end, and inserts it then,
 * so SQLite is used from one thread and what is inserted when depends only on the order of
 * writes: the store's bytes do not depend on thread timing.
 *
 * Job blocks (store-jobs.c) of jobs parsed from this file's lines wait in tasks until the
 * next hand-over, go with that block (inflight), and once it is taken back (ready) are coded
 * against the numbers of their lines by the caller's thread while the worker codes the next
 * blocks, then inserted after it. The worker keeps the numbers of the last RAW_WIN text
 * blocks in win[]: it writes block b's into win[b % RAW_WIN] while the caller reads those of
 * the blocks a ready job block may refer to (the one it went with, b - RAW_QUEUE when b is
 * handed, and the two before), which are never a slot being written. Which job block goes
 * with which text block depends only on the order of writes and jobs, so their bytes too are
 * independent of timing.
 *
 * The sha256 of every byte written is kept as the blocks are handed over (store_raw_finish),
 * so an importer need not read a file twice to know it. The blocks are hashed in order, one
 * at a time (hashing, under mu), by whichever thread gets there first: the caller while it
 * waits for the worker, else the worker before it codes the block. The digest depends only
 * on the bytes and their order, so it too is independent of timing.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__) && defined(__GNUC__)
#include <emmintrin.h>
#endif

#include "sha256.h"
#include "store-int.h"

#define RAW_CHUNK       (1 << 20) /* opaque bytes per block */
#define RAW_BLOCK_LINES 8192      /* lines per text block */
#define RAW_FIRST_LINES 512       /* lines of a file's first text block */
#define RAW_BLOCK_BYTES (4 << 20) /* bytes of lines per text block */
#define RAW_LONG_LINE   (1 << 20) /* a longer partial line is cut into fragments */
#define RAW_MAX_COLS    1024      /* lines with more fields are exceptions */
#define RAW_REFS        8         /* a column's numbers may refer to the 8 before it */
#define RAW_F_SHAPE     (1 << 11) /* in a text block's ncols: some fields coded jointly */
#define RAW_SHAPE_PLAN  16        /* blocks between plans of the fields coded jointly */

enum { TERM_NONE, TERM_LF, TERM_CRLF };

struct line {
	size_t off, len; /* content in blk, terminator excluded */
	uint8_t term;    /* TERM_* */
};

/* Text blocks handed to the worker and not yet taken back: the caller runs up to this many
 * blocks ahead of it, so neither waits for the other while their speeds vary. */
#define RAW_QUEUE 3

/* Text blocks whose numbers are kept: a job block refers to the block it was handed over
 * with and the two before it, while the worker may be filling any of the RAW_QUEUE after
 * it. */
#define RAW_WIN (RAW_QUEUE + 3)

/* Bytes of the worker's heap asked for in huge pages. */
#define RAW_WORKER_HEAP ((size_t)16 << 20)

/* The numbers of one coded text block, kept for the job blocks coded after it. */
struct numslot {
	int64_t line0; /* file line (0-based) of the block's first line */
	size_t n, ns;  /* lines, simple lines; n = 0: empty */
	int64_t *num;  /* ncols x ns, column-major, 0 where NULL */
	uint8_t *nul;  /* ncols x ns: 1 = no number */
	int32_t *sidx; /* n: each line's simple-line index, -1 for an exception */
	size_t cellcap, lncap;
};

/* The coding state of a file's text blocks, used by whichever thread codes them (one at a
 * time, in block order). */
struct text_scratch {
	struct zblk_buf raw;    /* the block before sealing */
	struct zblk_plan *plan; /* 2 x ncols: number and width plans, kept across blocks */
	/* scratch of code_text, kept across blocks (allocating megabytes a block costs page
	 * faults) */
	void *sc[12];
	size_t sccap[12];
	struct raw_shape shape; /* the fields coded jointly (store-shape.c) */
	struct zblk_buf alt;    /* a planned block coded the other way */
};

/* A block being coded (by the worker, or inline for a file's last block). */
struct text_job {
	struct zblk_buf blk; /* the lines' bytes */
	struct line *ln;     /* its lines */
	size_t nln, lncap;
	uint64_t blkno;          /* the file's text block number: its numbers go to */
	struct numslot *win;     /* win[blkno % RAW_WIN] (the writer's) */
	int64_t line0;           /* file line of its first line */
	int eol, ncols;          /* the file's usual line end and field count */
	size_t nexc;             /* out: exceptions */
	struct zblk_buf sealed;  /* out: the block */
	struct text_scratch *ts; /* the writer's */
	int rc;                  /* out: 0 or the zblk_seal error (err) */
	struct err err;
};

struct store_raw {
	struct store *s;
	int64_t file_id;
	int opaque;
	int64_t seq;               /* next block number */
	int64_t bytes;             /* bytes written so far */
	int64_t lines, exceptions; /* text: totals so far */
	struct zblk_buf blk;       /* see the invariant above */
	size_t cur;                /* start of the partial line in blk */
	struct line *ln;           /* complete lines of the block */
	size_t nln, lncap;
	int decided;     /* eol and ncols chosen (after the first block) */
	int eol;         /* TERM_LF or TERM_CRLF */
	int ncols;       /* fields of a simple line; 0 = none are simple */
	int last_nl;     /* the last byte written was '\n' */
	int level;       /* zstd level of this file's blocks */
	struct sha256 h; /* of every byte written: text blocks' on either thread (hashing) */
	struct zblk_buf raw, sealed; /* scratch for encoding */
	int64_t handed;              /* lines handed to code_text so far */
	uint64_t nblocks;            /* text blocks handed to code_text so far */
	/* Job blocks from this file's lines, in order: waiting for the next hand-over
	 * (tasks), handed over with text block b (inflight[b % RAW_QUEUE]), or whose lines are
	 * all coded (ready: coded and inserted on this thread, from the numbers in win). */
	struct jobs_task *tasks, *inflight[RAW_QUEUE], *ready;
	struct store_jobs *jw;       /* the jobs writer adding jobs from this file's lines */
	struct jobs_coder *jc;       /* the file's job coding choices, kept across blocks */
	struct numslot win[RAW_WIN]; /* the numbers of the last RAW_WIN text blocks */
	int64_t *rv;                 /* JOBS_MAX_RAW x STORE_BLOCK_ROWS: a job block's */
	uint8_t *rn;                 /* lines' numbers, gathered from win */
	/* The worker (thread_live once started) and the ring of blocks handed to it: block b
	 * is in q[b % RAW_QUEUE]; blocks [drained, nblocks) are handed and not taken back,
	 * [drained, coded) of them coded, [0, hashed) of all hashed (hashed > drained: a
	 * block is hashed before its slot is taken back). posted (= nblocks once handed),
	 * coded, hashed, hashing (a thread is adding block hashed to h) and quit are shared
	 * (mu). */
	struct text_job q[RAW_QUEUE];
	struct text_scratch ts;
	uint64_t drained, coded, posted, hashed;
	int hashing;
	struct zblk_ctx *wz;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int thread_live, quit;
};

int store_raw_begin(struct store *s, int64_t file_id, int opaque, struct store_raw **out,
		    struct err *e)
{
	sqlite3_stmt *st;
	int64_t size = -1;
	int rc = store_prep(s, "SELECT size FROM files WHERE id = ?", &st, e);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, file_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		size = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	struct store_raw *w = xcalloc(1, sizeof *w);
	w->s = s;
	w->file_id = file_id;
	w->opaque = !!opaque;
	w->eol = TERM_LF;
	sha256_init(&w->h);
	/* Compressed input gains nothing from a hard level. */
	w->level = opaque ? STORE_ZLEVEL : store_zlevel(size);
	*out = w;
	return 0;
}

static void stop_worker(struct store_raw *w)
{
	if (!w->thread_live)
		return;
	pthread_mutex_lock(&w->mu);
	w->quit = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->th, NULL);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	w->thread_live = 0;
}

static void free_tasks(struct jobs_task *t)
{
	while (t) {
		struct jobs_task *next = t->next;
		jobs_task_free(t);
		t = next;
	}
}

void store_raw_abort(struct store_raw *w)
{
	if (!w)
		return;
	if (w->jw)
		store_jobs_src_gone(w->jw, w);
	stop_worker(w);
	free_tasks(w->tasks);
	for (int i = 0; i < RAW_QUEUE; i++)
		free_tasks(w->inflight[i]);
	free_tasks(w->ready);
	jobs_coder_free(w->jc);
	for (int i = 0; i < RAW_WIN; i++) {
		free(w->win[i].num);
		free(w->win[i].nul);
		free(w->win[i].sidx);
	}
	free(w->rv);
	free(w->rn);
	zblk_ctx_free(w->wz);
	for (int i = 0; i < RAW_QUEUE; i++) {
		zblk_buf_release(&w->q[i].blk);
		zblk_buf_release(&w->q[i].sealed);
		free(w->q[i].ln);
	}
	zblk_buf_release(&w->ts.raw);
	free(w->ts.plan);
	raw_shape_free(&w->ts.shape);
	zblk_buf_release(&w->ts.alt);
	for (size_t i = 0; i < sizeof w->ts.sc / sizeof *w->ts.sc; i++)
		free(w->ts.sc[i]);
	zblk_buf_release(&w->blk);
	zblk_buf_release(&w->raw);
	zblk_buf_release(&w->sealed);
	free(w->ln);
	free(w);
}

/* Insert the sealed block (p, n) as the file's next one. */
static int insert_sealed(struct store_raw *w, const void *p, size_t n, struct err *e)
{
	sqlite3_stmt *st;
	int rc;
	if ((rc = store_prep(w->s, "INSERT INTO raw_blocks(file_id, seq, data) VALUES (?,?,?)", &st,
			     e)))
		return rc;
	sqlite3_bind_int64(st, 1, w->file_id);
	sqlite3_bind_int64(st, 2, w->seq++);
	sqlite3_bind_blob64(st, 3, p, n, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = store_sqlerr(w->s, e, "add raw block");
	sqlite3_finalize(st);
	return rc;
}

static int insert_block(struct store_raw *w, int kind, uint64_t rows, struct err *e)
{
	zblk_buf_reset(&w->sealed);
	zblk_ctx_set_level(w->s->z, w->level);
	int rc = zblk_seal(w->s->z, kind, rows, w->raw.p, w->raw.len, &w->sealed, e);
	zblk_ctx_set_level(w->s->z, STORE_ZLEVEL);
	return rc ? rc : insert_sealed(w, w->sealed.p, w->sealed.len, e);
}

/* Number of commas in a line, or -1 if it has a quote character. */
static int commas(const uint8_t *p, size_t n)
{
	int c = 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i] == ',')
			c++;
		else if (p[i] == '"')
			return -1;
	}
	return c;
}

static void decide(struct store_raw *w)
{
	size_t lf = 0, crlf = 0;
	size_t *hist = xcalloc(RAW_MAX_COLS, sizeof *hist);
	for (size_t i = 0; i < w->nln; i++) {
		lf += w->ln[i].term == TERM_LF;
		crlf += w->ln[i].term == TERM_CRLF;
	}
	w->eol = crlf > lf ? TERM_CRLF : TERM_LF;
	for (size_t i = 0; i < w->nln; i++) {
		if (w->ln[i].term != w->eol)
			continue;
		int c = commas(w->blk.p + w->ln[i].off, w->ln[i].len);
		if (c >= 0 && c < RAW_MAX_COLS)
			hist[c]++;
	}
	size_t best = 0;
	w->ncols = 0;
	for (int c = 0; c < RAW_MAX_COLS; c++)
		if (hist[c] > best) {
			best = hist[c];
			w->ncols = c + 1;
		}
	free(hist);
	w->decided = 1;
}

/* Split a line of len bytes at its commas into field[0], field[stride], ... if it is
 * simple (no quote, exactly ncols fields): 1, else 0 (field may have been written). */
static int split_line(const uint8_t *p, size_t len, size_t ncols, struct zblk_str *field,
		      size_t stride)
{
	size_t c = 0, start = 0, q = 0;
#if defined(__SSE2__) && defined(__GNUC__)
	/* 16 bytes a step: any quote makes an exception; the commas by their mask */
	const __m128i quote = _mm_set1_epi8('"'), comma = _mm_set1_epi8(',');
	for (; q + 16 <= len; q += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + q));
		if (_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)))
			return 0;
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, comma));
		for (; m; m &= m - 1) {
			size_t at = q + (size_t)__builtin_ctz(m);
			if (c + 1 >= ncols)
				return 0;
			field[c++ * stride] = (struct zblk_str){p + start, at - start};
			start = at + 1;
		}
	}
#endif
	for (; q < len; q++) {
		if (p[q] == '"')
			return 0;
		if (p[q] == ',') {
			if (c + 1 >= ncols)
				return 0;
			field[c++ * stride] = (struct zblk_str){p + start, q - start};
			start = q + 1;
		}
	}
	if (c + 1 != ncols)
		return 0;
	field[c * stride] = (struct zblk_str){p + start, len - start};
	return 1;
}

/* Scratch buffer i of ts, at least need bytes (its contents are not kept). */
static void *scratch(struct text_scratch *ts, int i, size_t need)
{
	if (need > ts->sccap[i]) {
		free(ts->sc[i]);
		ts->sc[i] = xmalloc(need);
		ts->sccap[i] = need;
	}
	return ts->sc[i];
}

/* The numbers of the up to RAW_REFS columns before column c of num and nul (column-major,
 * rows a column), nearest first, into refs and refnul: a column's numbers may be coded
 * against them. Returns how many. */
static int refs_before(const int64_t *num, const uint8_t *nul, size_t rows, size_t c,
		       const int64_t **refs, const uint8_t **refnul)
{
	int nref = 0;
	for (size_t r = c; r-- > 0 && nref < RAW_REFS; nref++) {
		refs[nref] = num + r * rows;
		refnul[nref] = nul + r * rows;
	}
	return nref;
}

/* Code job j's lines into ts->raw (see the top of the file): exceptions excidx/exc
 * (j->nexc), the simple lines' fields (field c of line k at field[c * j->nln + k]), the
 * fields of sh jointly (NULL: none); their numbers go to j's numbers slot. */
static void put_text(struct text_job *j, const struct zblk_str *field, const int64_t *excidx,
		     const struct zblk_str *exc, const struct raw_shape *sh)
{
	struct text_scratch *ts = j->ts;
	struct numslot *slot = &j->win[j->blkno % RAW_WIN];
	size_t n = j->nln, ncols = (size_t)j->ncols, nexc = j->nexc, ns = slot->ns;
	size_t nsel = sh ? sh->nsel : 0, nk = sh ? sh->k : 0;
	zblk_buf_reset(&ts->raw);
	zblk_put_varint(&ts->raw, n);
	zblk_put_varint(&ts->raw, ncols | (nsel ? RAW_F_SHAPE : 0));
	zblk_put_varint(&ts->raw, nexc);
	zblk_put_i64(&ts->raw, excidx, NULL, nexc, NULL, NULL, 0);
	zblk_put_str(&ts->raw, exc, nexc);
	/* the shape: its fields (each the difference from the one before, less 1), how many
	 * shapes, and each line's */
	if (nsel) {
		zblk_put_varint(&ts->raw, nsel);
		for (size_t x = 0; x < nsel; x++)
			zblk_put_varint(&ts->raw, x ? sh->sel[x] - sh->sel[x - 1] - 1 : sh->sel[0]);
		zblk_put_varint(&ts->raw, nk);
		int64_t *didx = scratch(ts, 8, (ns + 1) * sizeof *didx);
		for (size_t k = 0; k < ns; k++)
			didx[k] = sh->idx[k];
		zblk_put_i64(&ts->raw, didx, NULL, ns, NULL, NULL, 0);
	}
	/* the shapes' cells, nk x nsel, for refs among them */
	int64_t *snum = scratch(ts, 9, (nk * nsel + 1) * sizeof *snum);
	uint8_t *snul = scratch(ts, 10, nk * nsel + 1);
	int64_t *swidth = scratch(ts, 11, (nk + 1) * sizeof *swidth);
	int64_t *num = slot->num, *width = scratch(ts, 4, (ns + 1) * sizeof *width);
	uint8_t *nul = slot->nul;
	struct zblk_str *pre = scratch(ts, 6, (ns + nk + 1) * sizeof *pre),
			*suf = scratch(ts, 7, (ns + nk + 1) * sizeof *suf);
	const int64_t *refs[RAW_REFS];
	const uint8_t *refnul[RAW_REFS];
	for (size_t c = 0, x = 0; c < ncols; c++) {
		int64_t *cn = num + c * ns;
		uint8_t *cnul = nul + c * ns;
		for (size_t k = 0; k < ns; k++) {
			const struct zblk_str *f = &field[c * n + k];
			zblk_numsplit(f->p, f->len, &pre[k], &cn[k], &cnul[k], &width[k], &suf[k]);
		}
		if (x < nsel && sh->sel[x] == c) {
			/* a shape's field: its cells on the shapes' first lines, coded against
			 * the shape's fields before it */
			int64_t *gn = snum + x * nk;
			uint8_t *gu = snul + x * nk;
			struct zblk_str *gp = pre + ns, *gs = suf + ns; /* past the lines' */
			for (size_t g = 0; g < nk; g++) {
				size_t r = sh->rep[g];
				gn[g] = cn[r];
				gu[g] = cnul[r];
				swidth[g] = width[r];
				gp[g] = pre[r];
				gs[g] = suf[r];
			}
			int nref = refs_before(snum, snul, nk, x, refs, refnul);
			zblk_put_str(&ts->raw, gp, nk);
			zblk_put_i64(&ts->raw, gn, gu, nk, refs, refnul, nref);
			zblk_put_i64(&ts->raw, swidth, NULL, nk, NULL, NULL, 0);
			zblk_put_str(&ts->raw, gs, nk);
			x++;
			continue;
		}
		int nref = refs_before(num, nul, ns, c, refs, refnul);
		zblk_put_str(&ts->raw, pre, ns);
		zblk_put_i64_plan(&ts->raw, cn, cnul, ns, refs, refnul, nref, &ts->plan[2 * c]);
		zblk_put_i64_plan(&ts->raw, width, NULL, ns, NULL, NULL, 0, &ts->plan[2 * c + 1]);
		zblk_put_str(&ts->raw, suf, ns);
	}
}

/* Hash, split, code and seal job j's lines with z (any thread: touches only j, its ts, h
 * and numbers slot, and z). */
static void code_text(struct text_job *j, struct zblk_ctx *z)
{
	size_t n = j->nln, ncols = (size_t)j->ncols, nexc = 0, ns = 0;
	struct text_scratch *ts = j->ts;
	int64_t *excidx = scratch(ts, 0, (n + 1) * sizeof *excidx);
	struct zblk_str *exc = scratch(ts, 1, (n + 1) * sizeof *exc);
	/* One pass: a line is split as it is checked. Field c of simple line k goes to
	 * field[c * n + k] (stride n: ns is not known until the end). */
	struct zblk_str *field = scratch(ts, 2, (n * ncols + 1) * sizeof *field);
	struct numslot *slot = &j->win[j->blkno % RAW_WIN];
	if (n + 1 > slot->lncap) {
		free(slot->sidx);
		slot->lncap = n + 1;
		slot->sidx = xmalloc(slot->lncap * sizeof *slot->sidx);
	}
	for (size_t i = 0; i < n; i++) {
		const struct line *l = &j->ln[i];
		const uint8_t *p = j->blk.p + l->off;
		if (ncols && l->term == j->eol && split_line(p, l->len, ncols, field + ns, n)) {
			slot->sidx[i] = (int32_t)ns++;
			continue;
		}
		slot->sidx[i] = -1;
		excidx[nexc] = (int64_t)i;
		/* The terminator follows the content in blk (a fragment has none). */
		exc[nexc++] = (struct zblk_str){p, l->len + (l->term == TERM_CRLF ? 2 : l->term)};
	}
	j->nexc = nexc;
	if (ns * ncols + 1 > slot->cellcap) {
		free(slot->num);
		free(slot->nul);
		slot->cellcap = ns * ncols + 1;
		slot->num = xmalloc(slot->cellcap * sizeof *slot->num);
		slot->nul = xmalloc(slot->cellcap);
	}
	slot->line0 = j->line0;
	slot->n = n;
	slot->ns = ns;
	/* The blocks of a file are coded in order by one thread, so plans carried from block
	 * to block give the same bytes whatever the timing. ncols is fixed per file. */
	if (!ts->plan)
		ts->plan = xcalloc(2 * ncols + 1, sizeof *ts->plan);
	/* The first block is short (RAW_FIRST_LINES): the second, the first full one, plans
	 * afresh rather than follow plans found on few lines. */
	if (j->blkno == 1)
		memset(ts->plan, 0, (2 * ncols + 1) * sizeof *ts->plan);
	/* Which fields go jointly is planned on the first two blocks and every
	 * RAW_SHAPE_PLAN-th, coding the block both ways: the smaller is kept, and its choice
	 * followed until the next plan. */
	struct raw_shape *sh = &ts->shape;
	zblk_buf_reset(&j->sealed);
	if (j->blkno <= 1 || j->blkno % RAW_SHAPE_PLAN == 0) {
		raw_shape_plan(sh, field, n, ns, ncols);
		if (sh->nsel) {
			put_text(j, field, excidx, exc, sh);
			zblk_buf_reset(&ts->alt);
			j->rc = zblk_seal(z, ZBLK_RAWTEXT, n, ts->raw.p, ts->raw.len, &ts->alt,
					  &j->err);
			if (j->rc)
				return;
		}
		put_text(j, field, excidx, exc, NULL);
		j->rc = zblk_seal(z, ZBLK_RAWTEXT, n, ts->raw.p, ts->raw.len, &j->sealed, &j->err);
		if (!j->rc && sh->nsel && ts->alt.len < j->sealed.len) {
			struct zblk_buf t = j->sealed;
			j->sealed = ts->alt;
			ts->alt = t;
		} else {
			sh->nsel = 0;
		}
		return;
	}
	put_text(j, field, excidx, exc, raw_shape_follow(sh, field, n, ns) ? sh : NULL);
	j->rc = zblk_seal(z, ZBLK_RAWTEXT, n, ts->raw.p, ts->raw.len, &j->sealed, &j->err);
}

/* The numbers of the task's jobs' lines (t->lines, or t->line0 + i) from text blocks
 * t->upto - 2 .. t->upto (the ones it may refer to; the worker may be filling the next),
 * into w->rv and w->rn (nraw x t->n). Returns 1, or 0 when a line is in none of them (a job
 * block spanning longer lines than text blocks hold): it is then coded alone, since its
 * reader would find the numbers that line has. */
static int gather(struct store_raw *w, const struct jobs_task *t, size_t nraw)
{
	size_t n = t->n;
	uint64_t b = t->upto > 2 ? t->upto - 2 : 0;
	const struct numslot *sl = NULL;
	/* Runs of jobs on consecutive lines of one slot, copied a column at a time. */
	for (size_t i = 0; i < n;) {
		int64_t l = t->lines ? t->lines[i] : t->line0 + (int64_t)i;
		for (; b <= t->upto && b < w->nblocks; b++) {
			sl = &w->win[b % RAW_WIN];
			if (l < sl->line0 + (int64_t)sl->n)
				break;
		}
		if (b > t->upto || b >= w->nblocks || l < sl->line0)
			return 0;
		size_t run = 1, room = (size_t)(sl->line0 + (int64_t)sl->n - l);
		while (run < n - i && run < room &&
		       (t->lines ? t->lines[i + run] : l + (int64_t)run) == l + (int64_t)run)
			run++;
		size_t at = (size_t)(l - sl->line0);
		for (size_t c = 0; c < nraw; c++) {
			const int64_t *sn = sl->num + c * sl->ns;
			const uint8_t *su = sl->nul + c * sl->ns;
			int64_t *dv = w->rv + c * n + i;
			uint8_t *dn = w->rn + c * n + i;
			if (sl->ns == sl->n) { /* no exception: line l is simple line l - line0 */
				/* num is 0 where NULL, as a NULL row must read */
				memcpy(dv, sn + at, run * sizeof *dv);
				memcpy(dn, su + at, run);
				continue;
			}
			for (size_t k = 0; k < run; k++) {
				int32_t x = sl->sidx[at + k];
				dv[k] = x < 0 || su[x] ? 0 : sn[x];
				dn[k] = x < 0 ? 1 : su[x];
			}
		}
		i += run;
	}
	return 1;
}

/* Code the ready job blocks against their lines' numbers and insert them, in order. */
static int code_ready(struct store_raw *w, struct err *e)
{
	int rc = 0;
	size_t nraw = (size_t)w->ncols < JOBS_MAX_RAW ? (size_t)w->ncols : JOBS_MAX_RAW;
	if (w->ready && !w->jc)
		w->jc = jobs_coder_new();
	if (w->ready && nraw && !w->rv) {
		w->rv = xmalloc(JOBS_MAX_RAW * STORE_BLOCK_ROWS * sizeof *w->rv);
		w->rn = xmalloc(JOBS_MAX_RAW * STORE_BLOCK_ROWS);
	}
	zblk_ctx_set_level(w->s->z, w->level);
	for (struct jobs_task *t = w->ready; t && !rc; t = t->next) {
		int against = nraw && gather(w, t, nraw);
		jobs_task_code(t, w->jc, against ? w->file_id : 0, w->rv, w->rn, nraw, w->s->z);
		rc = jobs_task_insert(w->s, t, e);
	}
	zblk_ctx_set_level(w->s->z, STORE_ZLEVEL);
	free_tasks(w->ready);
	w->ready = NULL;
	return rc;
}

/* Append list b to list *a. */
static void tasks_append(struct jobs_task **a, struct jobs_task *b)
{
	while (*a)
		a = &(*a)->next;
	*a = b;
}

/* Add block hashed (handed, not taken back) to the file's hash, the next in order: with mu
 * held and no other thread hashing, released while hashing. */
static void hash_locked(struct store_raw *w)
{
	assert(!w->hashing && w->hashed < w->posted);
	w->hashing = 1;
	const struct text_job *j = &w->q[w->hashed % RAW_QUEUE];
	pthread_mutex_unlock(&w->mu);
	sha256_update(&w->h, j->blk.p, j->blk.len);
	pthread_mutex_lock(&w->mu);
	w->hashing = 0;
	w->hashed++;
	pthread_cond_broadcast(&w->cv);
}

static void *worker(void *arg)
{
	struct store_raw *w = arg;
	/* Its scratch and the numbers of RAW_WIN blocks, megabytes, come from this thread's
	 * own heap: in huge pages they fault a few times, not thousands (heap_prefer_huge).
	 * Packed there, not each rounded up to whole huge pages, they fault 250 to 1,300
	 * times less on 40 MB files, with up to 7 MB less peak memory. */
	heap_prefer_huge(RAW_WORKER_HEAP);
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (w->coded == w->posted && !w->quit)
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->quit)
			break;
		/* the block's bytes into the hash first, unless the caller is at it */
		while (w->hashed <= w->coded && !w->hashing)
			hash_locked(w);
		struct text_job *j = &w->q[w->coded % RAW_QUEUE];
		pthread_mutex_unlock(&w->mu);
		code_text(j, w->wz);
		pthread_mutex_lock(&w->mu);
		w->coded++;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* Take back the oldest block handed over (waiting for the worker to code it) and insert
 * it; the job blocks that went with it become ready. */
static int drain_one(struct store_raw *w, struct err *e)
{
	assert(w->drained < w->nblocks);
	if (w->thread_live) {
		/* waiting for the worker, hash the blocks it has not begun */
		pthread_mutex_lock(&w->mu);
		while (w->coded <= w->drained || w->hashed <= w->drained)
			if (!w->hashing && w->hashed < w->posted)
				hash_locked(w);
			else
				pthread_cond_wait(&w->cv, &w->mu);
		pthread_mutex_unlock(&w->mu);
	} else {
		for (; w->hashed <= w->drained; w->hashed++) {
			const struct text_job *h = &w->q[w->hashed % RAW_QUEUE];
			sha256_update(&w->h, h->blk.p, h->blk.len);
		}
	}
	size_t i = w->drained++ % RAW_QUEUE;
	struct text_job *j = &w->q[i];
	tasks_append(&w->ready, w->inflight[i]);
	w->inflight[i] = NULL;
	if (j->rc) {
		*e = j->err;
		return j->rc;
	}
	w->lines += (int64_t)j->nln;
	w->exceptions += (int64_t)j->nexc;
	return insert_sealed(w, j->sealed.p, j->sealed.len, e);
}

/* Take back and insert every block handed over, each followed by its job blocks. */
static int drain_all(struct store_raw *w, struct err *e)
{
	int rc = 0;
	while (!rc && w->drained < w->nblocks)
		if (!(rc = drain_one(w, e)))
			rc = code_ready(w, e);
	return rc;
}

/* Hand the block's complete lines over (to the worker, or coded here when final and no
 * worker runs: a one-block file needs no thread); keep the partial line in blk. The job
 * blocks waiting for lines go with them. The caller takes a block back only when the ring
 * is full or at the end, and then inserts it and codes and inserts the job blocks that went
 * with it (while the worker codes the next blocks): what is inserted when depends only on
 * the order of writes, not on thread timing. */
static int flush_text(struct store_raw *w, int final, struct err *e)
{
	int rc;
	if (!w->nln) { /* no lines left: the waiting job blocks' lines are all coded */
		if ((rc = drain_all(w, e)))
			return rc;
		for (struct jobs_task *t = w->tasks; t; t = t->next)
			t->upto = w->nblocks ? w->nblocks - 1 : 0;
		tasks_append(&w->ready, w->tasks);
		w->tasks = NULL;
		return code_ready(w, e);
	}
	/* the slot of the block handed RAW_QUEUE blocks ago is needed */
	if (w->nblocks - w->drained == RAW_QUEUE && (rc = drain_one(w, e)))
		return rc;
	if (!w->decided)
		decide(w);
	size_t slot = w->nblocks % RAW_QUEUE;
	struct text_job *j = &w->q[slot];
	/* Swap the buffers: the job takes the lines, blk keeps the partial one. */
	struct zblk_buf b = j->blk;
	j->blk = w->blk;
	w->blk = b;
	struct line *l = j->ln;
	size_t lcap = j->lncap;
	j->ln = w->ln;
	j->lncap = w->lncap;
	w->ln = l;
	w->lncap = lcap;
	j->nln = w->nln;
	j->line0 = w->handed;
	w->handed += (int64_t)w->nln;
	j->blkno = w->nblocks++;
	j->win = w->win;
	j->ts = &w->ts;
	j->eol = w->eol;
	j->ncols = w->ncols;
	for (struct jobs_task *t = w->tasks; t; t = t->next)
		t->upto = j->blkno;
	assert(!w->inflight[slot]);
	w->inflight[slot] = w->tasks;
	w->tasks = NULL;
	zblk_buf_reset(&w->blk);
	zblk_buf_add(&w->blk, j->blk.p + w->cur, j->blk.len - w->cur);
	j->blk.len = w->cur;
	w->cur = 0;
	w->nln = 0;
	if (final && !w->thread_live) {
		zblk_ctx_set_level(w->s->z, w->level);
		code_text(j, w->s->z);
		zblk_ctx_set_level(w->s->z, STORE_ZLEVEL);
		return drain_all(w, e);
	}
	if (!w->thread_live) {
		w->wz = zblk_ctx_new(w->level);
		pthread_mutex_init(&w->mu, NULL);
		pthread_cond_init(&w->cv, NULL);
		/* Signals are for the caller's thread (a read it waits in must return). */
		sigset_t all, old;
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		int prc = pthread_create(&w->th, NULL, worker, w);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (prc) {
			pthread_cond_destroy(&w->cv);
			pthread_mutex_destroy(&w->mu);
			return err_set(e, VF_EIO, "cannot start a thread");
		}
		w->thread_live = 1;
	}
	pthread_mutex_lock(&w->mu);
	w->posted = w->nblocks;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	/* the job blocks of the block taken back above, while the worker codes */
	if ((rc = code_ready(w, e)) || !final)
		return rc;
	return drain_all(w, e);
}

static void push_line(struct store_raw *w, size_t end, uint8_t term)
{
	xgrow(&w->ln, &w->lncap, w->nln + 1, sizeof *w->ln);
	size_t len = end - w->cur - (term == TERM_CRLF ? 2 : term);
	w->ln[w->nln++] = (struct line){w->cur, len, term};
	w->cur = end;
}

/* Cut p into lines as it goes into blk: the bytes of a run of lines are copied at once,
 * when a block is handed over and at the end (pend: the first byte not yet in blk; vlen:
 * blk's length with the bytes before p). */
static int write_text(struct store_raw *w, const uint8_t *p, size_t n, struct err *e)
{
	const uint8_t *pend = p;
	size_t vlen = w->blk.len;
	while (n) {
		const uint8_t *nl = memchr(p, '\n', n);
		size_t k = nl ? (size_t)(nl - p) + 1 : n;
		if (!nl && vlen - w->cur + k > RAW_LONG_LINE)
			k = RAW_LONG_LINE - (vlen - w->cur);
		p += k;
		n -= k;
		vlen += k;
		if (nl) {
			/* the byte before the newline: pending, or blk's last if it is the first */
			uint8_t b = 0;
			if (p - pend >= 2)
				b = p[-2];
			else if (w->blk.len)
				b = w->blk.p[w->blk.len - 1];
			int cr = vlen - w->cur >= 2 && b == '\r';
			push_line(w, vlen, cr ? TERM_CRLF : TERM_LF);
		} else if (vlen - w->cur >= RAW_LONG_LINE) {
			push_line(w, vlen, TERM_NONE);
		}
		if (w->nln >= (w->nblocks ? RAW_BLOCK_LINES : RAW_FIRST_LINES) ||
		    w->cur >= RAW_BLOCK_BYTES) {
			zblk_buf_add(&w->blk, pend, (size_t)(p - pend));
			pend = p;
			int rc = flush_text(w, 0, e);
			if (rc)
				return rc;
			vlen = w->blk.len;
		}
	}
	zblk_buf_add(&w->blk, pend, (size_t)(p - pend));
	return 0;
}

static int write_opaque(struct store_raw *w, const uint8_t *p, size_t n, struct err *e)
{
	sha256_update(&w->h, p, n);
	while (n) {
		size_t k = RAW_CHUNK - w->blk.len < n ? RAW_CHUNK - w->blk.len : n;
		zblk_buf_add(&w->blk, p, k);
		p += k;
		n -= k;
		if (w->blk.len == RAW_CHUNK) {
			zblk_buf_reset(&w->raw);
			zblk_buf_add(&w->raw, w->blk.p, w->blk.len);
			int rc = insert_block(w, ZBLK_BYTES, w->blk.len, e);
			if (rc)
				return rc;
			w->blk.len = 0;
		}
	}
	return 0;
}

int store_raw_write(struct store_raw *w, const void *buf, size_t n, struct err *e)
{
	if (!n)
		return 0;
	w->bytes += (int64_t)n;
	w->last_nl = ((const uint8_t *)buf)[n - 1] == '\n';
	return w->opaque ? write_opaque(w, buf, n, e) : write_text(w, buf, n, e);
}

int raw_is_text(const struct store_raw *w)
{
	return !w->opaque;
}

void raw_attach_jobs(struct store_raw *w, struct store_jobs *jw)
{
	w->jw = jw;
}

void raw_queue_jobs(struct store_raw *w, struct jobs_task *t)
{
	struct jobs_task **p = &w->tasks;
	while (*p)
		p = &(*p)->next;
	t->next = NULL;
	*p = t;
}

int store_raw_end(struct store_raw *w, struct err *e)
{
	return store_raw_finish(w, NULL, NULL, e);
}

int store_raw_finish(struct store_raw *w, uint8_t sha256[32], int64_t *size, struct err *e)
{
	int rc = 0;
	if (w->jw) { /* the jobs block still being filled from these lines comes with them */
		rc = store_jobs_src_end(w->jw, w, e);
		w->jw = NULL;
		if (rc) {
			store_raw_abort(w);
			return rc;
		}
	}
	if (w->opaque && w->blk.len) {
		zblk_buf_reset(&w->raw);
		zblk_buf_add(&w->raw, w->blk.p, w->blk.len);
		rc = insert_block(w, ZBLK_BYTES, w->blk.len, e);
	} else if (!w->opaque) {
		if (w->blk.len > w->cur)
			push_line(w, w->blk.len, TERM_NONE);
		rc = flush_text(w, 1, e);
		if (!rc)
			rc = drain_all(w, e);
	}
	sqlite3_stmt *st = NULL;
	if (!rc)
		rc = store_prep(
			w->s,
			"UPDATE files SET raw_mode = ?, raw_eol = ?, raw_final_newline = ?, "
			"raw_lines = ?, raw_exceptions = ?, raw_ncols = ?, raw_bytes = ? "
			"WHERE id = ?",
			&st, e);
	if (!rc) {
		sqlite3_bind_text(st, 1, w->opaque ? "opaque" : "text", -1, SQLITE_STATIC);
		if (w->opaque) {
			for (int i = 2; i <= 6; i++)
				sqlite3_bind_null(st, i);
		} else {
			sqlite3_bind_text(st, 2, w->eol == TERM_CRLF ? "crlf" : "lf", -1,
					  SQLITE_STATIC);
			sqlite3_bind_int(st, 3, w->bytes == 0 || w->last_nl);
			sqlite3_bind_int64(st, 4, w->lines);
			sqlite3_bind_int64(st, 5, w->exceptions);
			sqlite3_bind_int(st, 6, w->ncols);
		}
		sqlite3_bind_int64(st, 7, w->bytes);
		sqlite3_bind_int64(st, 8, w->file_id);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = store_sqlerr(w->s, e, "record raw file");
	}
	sqlite3_finalize(st);
	if (!rc)
		rc = store_seal(w->s, "files", w->file_id, e);
	if (!rc && sha256) { /* every block is taken back: the hash has seen every byte */
		assert(w->opaque || w->hashed == w->nblocks);
		sha256_final(&w->h, sha256);
	}
	if (!rc && size)
		*size = w->bytes;
	store_raw_abort(w);
	return rc;
}

/* ---- reading back ---- */

/* Where decoded bytes go. */
struct sink {
	int (*put)(void *ctx, const void *p, size_t n, struct err *e);
	void *ctx;
	struct zblk_buf buf; /* output batched into ~64 KiB writes */
};

static int sink_flush(struct sink *k, struct err *e)
{
	int rc = k->buf.len ? k->put(k->ctx, k->buf.p, k->buf.len, e) : 0;
	k->buf.len = 0;
	return rc;
}

static int sink_add(struct sink *k, const void *p, size_t n, struct err *e)
{
	zblk_buf_add(&k->buf, p, n);
	return k->buf.len >= (64 << 10) ? sink_flush(k, e) : 0;
}

/* A text block, decoded. Its arrays are kept from one block to the next (a cursor reads
 * hundreds: allocating megabytes a block costs page faults). */
struct text_block {
	size_t n, ncols, nexc, ns;  /* lines, fields, exceptions, simple lines */
	int64_t *excidx;            /* nexc line indices, increasing */
	struct zblk_str *exc;       /* nexc verbatim lines (pointing into the raw buffer) */
	int64_t *num, *width;       /* ncols x ns, column-major */
	uint8_t *nul;               /* ncols x ns: 1 = no number */
	struct zblk_str *pre, *suf; /* ncols x ns; NULL after a numbers-only parse */
	size_t exccap, cellcap;     /* rows allocated for excidx/exc and for the cells */
	/* fields coded jointly: each simple line's shape, and the shapes' cells (k x the
	 * shape's fields; one field's width, prefix and suffix at a time) */
	int64_t *idx, *snum, *swidth;
	uint8_t *snul;
	struct zblk_str *spre, *ssuf;
	size_t idxcap, scap;
};

static void text_block_free(struct text_block *b)
{
	FREE_ALL(b->excidx, b->exc, b->num, b->width, b->nul, b->pre, b->suf, b->idx, b->snum,
		 b->swidth, b->snul, b->spre, b->ssuf);
	memset(b, 0, sizeof *b);
}

/* The shapes of a text block (r after its exceptions): the fields sel[0..*nsel), *nk
 * shapes, each simple line's (b->idx); room for their cells. 0, or -1 if they are
 * damaged. */
static int shape_parse(struct zblk_reader *r, struct text_block *b, size_t *sel, size_t *nsel,
		       size_t *nk)
{
	uint64_t m, d, k;
	if (zblk_get_varint(r, &m) || m < 2 || m > b->ncols)
		return -1;
	for (size_t x = 0; x < m; x++) {
		if (zblk_get_varint(r, &d) || d >= b->ncols)
			return -1;
		sel[x] = x ? sel[x - 1] + 1 + (size_t)d : (size_t)d;
		if (sel[x] >= b->ncols)
			return -1;
	}
	if (zblk_get_varint(r, &k) || k < 1 || k > b->ns)
		return -1;
	*nsel = (size_t)m;
	*nk = (size_t)k;
	if (b->ns + 1 > b->idxcap) {
		free(b->idx);
		b->idxcap = b->ns + 1;
		b->idx = xmalloc(b->idxcap * sizeof *b->idx);
	}
	if (m * k + 1 > b->scap) {
		FREE_ALL(b->snum, b->snul, b->swidth, b->spre, b->ssuf);
		b->scap = m * k + 1;
		b->snum = xmalloc(b->scap * sizeof *b->snum);
		b->snul = xmalloc(b->scap);
		b->swidth = xmalloc(b->scap * sizeof *b->swidth);
		b->spre = xmalloc(b->scap * sizeof *b->spre);
		b->ssuf = xmalloc(b->scap * sizeof *b->ssuf);
	}
	if (zblk_get_i64(r, b->idx, NULL, b->ns, NULL, NULL, 0))
		return -1;
	for (size_t i = 0; i < b->ns; i++)
		if (b->idx[i] < 0 || (uint64_t)b->idx[i] >= k)
			return -1;
	return 0;
}

/* Field c of a text block, the x-th of its shapes' fields: the nk shapes' cells (coded
 * against the shapes' fields before it), then each simple line's from its shape. 0 or
 * -1. */
static int shape_field(struct zblk_reader *r, struct text_block *b, size_t c, size_t x, size_t nk,
		       int numbers)
{
	const int64_t *refs[RAW_REFS];
	const uint8_t *refnul[RAW_REFS];
	int nref = refs_before(b->snum, b->snul, nk, x, refs, refnul);
	int64_t *gn = b->snum + x * nk;
	uint8_t *gu = b->snul + x * nk;
	if ((numbers ? zblk_skip_str(r, nk) : zblk_get_str(r, b->spre, nk)) ||
	    zblk_get_i64(r, gn, gu, nk, refs, refnul, nref) ||
	    zblk_get_i64(r, b->swidth, NULL, nk, NULL, NULL, 0) ||
	    (numbers ? zblk_skip_str(r, nk) : zblk_get_str(r, b->ssuf, nk)))
		return -1;
	for (size_t g = 0; g < nk; g++)
		if (b->swidth[g] < 0 || b->swidth[g] > ZBLK_NUM_WIDTH_MAX)
			return -1;
	size_t ns = b->ns;
	for (size_t i = 0; i < ns; i++) {
		size_t g = (size_t)b->idx[i];
		b->num[c * ns + i] = gn[g];
		b->nul[c * ns + i] = gu[g];
		b->width[c * ns + i] = b->swidth[g];
		if (!numbers) {
			b->pre[c * ns + i] = b->spre[g];
			b->suf[c * ns + i] = b->ssuf[g];
		}
	}
	return 0;
}

/* Parse a text block into b (reusing its memory). numbers: only what the numbers of its
 * lines need (exception indices, numbers and NULLs); the strings are skipped, not read. */
static int text_block_parse(struct zblk_reader *r, uint64_t rows, struct text_block *b, int numbers,
			    struct err *e)
{
	uint64_t n, ncols, ne, shaped;
	if (zblk_get_varint(r, &n) || zblk_get_varint(r, &ncols) || zblk_get_varint(r, &ne) ||
	    (shaped = ncols & RAW_F_SHAPE, ncols &= ~(uint64_t)RAW_F_SHAPE, n != rows) ||
	    ncols > RAW_MAX_COLS || n > RAW_BLOCK_LINES || ne > n)
		return err_set(e, VF_ESTORE, "text block: bad header");
	b->n = (size_t)n;
	b->ncols = (size_t)ncols;
	b->nexc = (size_t)ne;
	b->ns = b->n - b->nexc;
	size_t ns = b->ns, cells = ns * b->ncols + 1;
	if (b->nexc + 1 > b->exccap) {
		b->exccap = b->nexc + 1;
		free(b->excidx);
		free(b->exc);
		b->excidx = xmalloc(b->exccap * sizeof *b->excidx);
		b->exc = xmalloc(b->exccap * sizeof *b->exc);
	}
	if (cells > b->cellcap) {
		b->cellcap = cells;
		free(b->num);
		free(b->width);
		free(b->nul);
		free(b->pre);
		free(b->suf);
		b->num = xmalloc(cells * sizeof *b->num);
		b->width = xmalloc(cells * sizeof *b->width);
		b->nul = xmalloc(cells);
		b->pre = b->suf = NULL;
	}
	if (!numbers && !b->pre) {
		b->pre = xmalloc(b->cellcap * sizeof *b->pre);
		b->suf = xmalloc(b->cellcap * sizeof *b->suf);
	}
	if (zblk_get_i64(r, b->excidx, NULL, b->nexc, NULL, NULL, 0) ||
	    (numbers ? zblk_skip_str(r, b->nexc) : zblk_get_str(r, b->exc, b->nexc)))
		return err_set(e, VF_ESTORE, "text block: bad exceptions");
	for (size_t j = 0; j < b->nexc; j++)
		if (b->excidx[j] < 0 || (uint64_t)b->excidx[j] >= n ||
		    (j && b->excidx[j] <= b->excidx[j - 1]))
			return err_set(e, VF_ESTORE, "text block: bad exception index");
	size_t sel[RAW_MAX_COLS], nsel = 0, nk = 0;
	if (shaped && shape_parse(r, b, sel, &nsel, &nk))
		return err_set(e, VF_ESTORE, "text block: bad shapes");
	const int64_t *refs[RAW_REFS];
	const uint8_t *refnul[RAW_REFS];
	for (size_t c = 0, x = 0; c < b->ncols; c++) {
		if (x < nsel && sel[x] == c) {
			if (shape_field(r, b, c, x++, nk, numbers))
				return err_set(e, VF_ESTORE, "text block: column %zu is damaged",
					       c + 1);
			continue;
		}
		int nref = refs_before(b->num, b->nul, ns, c, refs, refnul);
		if ((numbers ? zblk_skip_str(r, ns) : zblk_get_str(r, b->pre + c * ns, ns)) ||
		    zblk_get_i64(r, b->num + c * ns, b->nul + c * ns, ns, refs, refnul, nref) ||
		    zblk_get_i64(r, b->width + c * ns, NULL, ns, NULL, NULL, 0) ||
		    (numbers ? zblk_skip_str(r, ns) : zblk_get_str(r, b->suf + c * ns, ns)))
			return err_set(e, VF_ESTORE, "text block: column %zu is damaged", c + 1);
		for (size_t k = 0; k < ns; k++)
			if (b->width[c * ns + k] < 0 || b->width[c * ns + k] > ZBLK_NUM_WIDTH_MAX)
				return err_set(e, VF_ESTORE, "text block: bad number width");
	}
	if (r->pos != r->len)
		return err_set(e, VF_ESTORE, "text block: %zu bytes left over", r->len - r->pos);
	return 0;
}

static int decode_text(struct zblk_reader *r, uint64_t rows, int eol, struct sink *k, struct err *e)
{
	struct text_block b = {0};
	int rc = text_block_parse(r, rows, &b, 0, e);
	const char *eolstr = eol == TERM_CRLF ? "\r\n" : "\n";
	for (size_t i = 0, j = 0, s = 0; i < b.n && !rc; i++) {
		if (j < b.nexc && (uint64_t)b.excidx[j] == i) {
			rc = sink_add(k, b.exc[j].p, b.exc[j].len, e);
			j++;
			continue;
		}
		for (size_t c = 0; c < b.ncols && !rc; c++) {
			size_t x = c * b.ns + s;
			char t[32];
			int tl = 0;
			if (!b.nul[x])
				tl = snprintf(t, sizeof t, "%0*" PRId64, (int)b.width[x], b.num[x]);
			if ((c && (rc = sink_add(k, ",", 1, e))) ||
			    (rc = sink_add(k, b.pre[x].p, b.pre[x].len, e)) ||
			    (rc = sink_add(k, t, (size_t)tl, e)) ||
			    (rc = sink_add(k, b.suf[x].p, b.suf[x].len, e)))
				break;
		}
		s++;
		if (!rc)
			rc = sink_add(k, eolstr, strlen(eolstr), e);
	}
	text_block_free(&b);
	return rc;
}

/* ---- the numbers of a text file's lines, for job blocks coded against them ---- */

struct raw_cursor {
	struct store *s;
	sqlite3_stmt *st;     /* the file's blocks in order */
	size_t ncols;         /* fields of a simple line */
	struct zblk_buf raw;  /* the current block, inflated */
	struct text_block tb; /* the current block, decoded (tb.n = 0 before the first) */
	int32_t *sidx;        /* tb.n: each line's simple-line index in tb, -1: exception */
	size_t sidxcap;
	int64_t base; /* file line of tb's first line */
	int64_t seq;  /* the seq the next block must have */
	int64_t id;   /* the file's */
	int done;     /* no block after tb */
};

int raw_cursor_open(struct store *s, int64_t file_id, struct raw_cursor **out, struct err *e)
{
	sqlite3_stmt *st;
	*out = NULL;
	int rc = store_prep(s, "SELECT raw_ncols FROM files WHERE id = ? AND raw_mode = 'text'",
			    &st, e);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, file_id);
	int64_t ncols = -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		ncols = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (ncols < 0 || ncols > RAW_MAX_COLS)
		return err_set(e, VF_ESTORE, "file %lld: no text lines to refer to",
			       (long long)file_id);
	struct raw_cursor *c = xcalloc(1, sizeof *c);
	c->s = s;
	c->ncols = (size_t)ncols;
	c->id = file_id;
	if ((rc = store_prep(s, "SELECT data, seq FROM raw_blocks WHERE file_id = ? ORDER BY seq",
			     &c->st, e))) {
		free(c);
		return rc;
	}
	sqlite3_bind_int64(c->st, 1, file_id);
	*out = c;
	return 0;
}

size_t raw_cursor_ncols(const struct raw_cursor *c)
{
	return c->ncols;
}

void raw_cursor_close(struct raw_cursor *c)
{
	if (!c)
		return;
	sqlite3_finalize(c->st);
	text_block_free(&c->tb);
	zblk_buf_release(&c->raw);
	FREE_ALL(c->sidx, c);
}

/* Move to the next block; sets done at the end. */
static int cursor_next(struct raw_cursor *c, struct err *e)
{
	c->base += (int64_t)c->tb.n;
	c->tb.n = 0;
	int step = sqlite3_step(c->st);
	if (step == SQLITE_DONE) {
		c->done = 1;
		return 0;
	}
	if (step != SQLITE_ROW)
		return store_sqlerr(c->s, e, "read raw blocks");
	/* a block gone would shift every line after it */
	if (sqlite3_column_int64(c->st, 1) != c->seq++)
		return err_set(e, VF_ESTORE, "file %lld: raw block %lld is not there",
			       (long long)c->id, (long long)c->seq - 1);
	struct zblk_info info;
	int rc = zblk_open(c->s->z, sqlite3_column_blob(c->st, 0),
			   (size_t)sqlite3_column_bytes(c->st, 0), &info, &c->raw, e);
	if (!rc && info.kind != ZBLK_RAWTEXT)
		rc = err_set(e, VF_ESTORE, "raw block of kind %d in a text file", info.kind);
	if (!rc) {
		struct zblk_reader r;
		zblk_reader_init(&r, c->raw.p, c->raw.len);
		rc = text_block_parse(&r, info.rows, &c->tb, 1, e);
	}
	if (!rc && c->tb.ncols != c->ncols && c->tb.ns)
		rc = err_set(e, VF_ESTORE, "raw block has %zu fields, the file %zu", c->tb.ncols,
			     c->ncols);
	if (rc) {
		c->tb.n = 0;
		return rc;
	}
	if (c->tb.n > c->sidxcap) {
		free(c->sidx);
		c->sidxcap = RAW_BLOCK_LINES;
		c->sidx = xmalloc(c->sidxcap * sizeof *c->sidx);
	}
	for (size_t i = 0, x = 0, k = 0; i < c->tb.n; i++) {
		if (x < c->tb.nexc && (uint64_t)c->tb.excidx[x] == i) {
			c->sidx[i] = -1;
			x++;
		} else {
			c->sidx[i] = (int32_t)k++;
		}
	}
	return 0;
}

int raw_cursor_numbers(struct raw_cursor *c, int64_t line0, const int64_t *lines, size_t n,
		       size_t ncols, int64_t *num, uint8_t *nul, struct err *e)
{
	assert(ncols <= c->ncols);
	/* Runs of rows on consecutive lines inside one decoded block, copied a column at a
	 * time (without lines, a run is every row left in the block). */
	for (size_t i = 0; i < n;) {
		int64_t line = lines ? lines[i] : line0 + (int64_t)i;
		while (!c->done && line >= c->base + (int64_t)c->tb.n) {
			int rc = cursor_next(c, e);
			if (rc)
				return rc;
		}
		if (line < c->base) /* job blocks out of order: a damaged store */
			return err_set(e, VF_ESTORE,
				       "file %lld: a job block refers to line %lld, "
				       "before the last one read",
				       (long long)c->id, (long long)line + 1);
		if (c->done) /* jobs come from lines the file has: its blocks are not all there */
			return err_set(e, VF_ESTORE,
				       "file %lld: a job block refers to line %lld, past the %lld "
				       "lines stored",
				       (long long)c->id, (long long)line + 1, (long long)c->base);
		size_t at = (size_t)(line - c->base), run = c->tb.n - at;
		if (run > n - i)
			run = n - i;
		if (lines) {
			size_t k = 1;
			while (k < run && lines[i + k] == line + (int64_t)k)
				k++;
			run = k;
		}
		for (size_t col = 0; col < ncols; col++) {
			const int64_t *sn = c->tb.num + col * c->tb.ns;
			const uint8_t *su = c->tb.nul + col * c->tb.ns;
			int64_t *dn = num + col * n + i;
			uint8_t *du = nul + col * n + i;
			for (size_t k = 0; k < run; k++) {
				int32_t x = c->sidx[at + k];
				dn[k] = x < 0 || su[x] ? 0 : sn[x];
				du[k] = x < 0 || su[x];
			}
		}
		i += run;
	}
	return 0;
}

static int raw_decode(struct store *s, int64_t file_id, struct sink *k, struct err *e)
{
	sqlite3_stmt *st;
	int64_t eol = TERM_LF;
	int rc = store_prep(s, "SELECT raw_eol, raw_mode FROM files WHERE id = ?", &st, e);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, file_id);
	int step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		const char *m = (const char *)sqlite3_column_text(st, 0);
		eol = m && !strcmp(m, "crlf") ? TERM_CRLF : TERM_LF;
		if (sqlite3_column_type(st, 1) == SQLITE_NULL)
			rc = err_set(e, VF_ESTORE, "file %lld: its bytes were not stored",
				     (long long)file_id);
	} else {
		rc = step == SQLITE_DONE ? err_set(e, VF_EINPUT, "file %lld: not in the store",
						   (long long)file_id)
					 : store_sqlerr(s, e, "find file");
	}
	sqlite3_finalize(st);
	if (rc ||
	    (rc = store_prep(s, "SELECT seq, data FROM raw_blocks WHERE file_id = ? ORDER BY seq",
			     &st, e)))
		return rc;
	sqlite3_bind_int64(st, 1, file_id);
	struct zblk_buf raw = {0};
	int64_t want = 0;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		struct zblk_info info;
		const void *blob = sqlite3_column_blob(st, 1);
		size_t len = (size_t)sqlite3_column_bytes(st, 1);
		if (sqlite3_column_int64(st, 0) != want++) {
			rc = err_set(e, VF_ESTORE, "block %lld is missing", (long long)want - 1);
			break;
		}
		if ((rc = zblk_open(s->z, blob, len, &info, &raw, e)))
			break;
		if (info.kind == ZBLK_BYTES && info.rows == raw.len) {
			rc = sink_add(k, raw.p, raw.len, e);
		} else if (info.kind == ZBLK_RAWTEXT) {
			struct zblk_reader r;
			zblk_reader_init(&r, raw.p, raw.len);
			rc = decode_text(&r, info.rows, (int)eol, k, e);
		} else {
			rc = err_set(e, VF_ESTORE, "block of kind %d in a raw file", info.kind);
		}
		if (rc)
			err_prefix(e, "block %lld: ", (long long)want - 1);
	}
	if (!rc && step != SQLITE_DONE)
		rc = store_sqlerr(s, e, "read raw blocks");
	if (!rc)
		rc = sink_flush(k, e);
	if (rc)
		err_prefix(e, "file %lld: ", (long long)file_id);
	sqlite3_finalize(st);
	zblk_buf_release(&raw);
	return rc;
}

/* Bytes written out, hashed and counted as they go. */
struct tee {
	FILE *out;
	struct sha256 h;
	int64_t len;
};

static int put_file(void *ctx, const void *p, size_t n, struct err *e)
{
	struct tee *t = ctx;
	if (fwrite(p, 1, n, t->out) != n)
		return err_set(e, VF_EIO, "write failed: %s", strerror(errno));
	sha256_update(&t->h, p, n);
	t->len += (int64_t)n;
	return 0;
}

int store_raw_export(struct store *s, int64_t file_id, FILE *out, struct err *e)
{
	sqlite3_stmt *st;
	int rc = store_prep(s, "SELECT name, size, sha256 FROM files WHERE id = ?", &st, e);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, file_id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return err_set(e, VF_EINPUT, "file %lld: not in the store", (long long)file_id);
	}
	char *name = xstrdup((const char *)sqlite3_column_text(st, 0));
	int64_t size = sqlite3_column_int64(st, 1);
	char want[65], got[65];
	snprintf(want, sizeof want, "%s", (const char *)sqlite3_column_text(st, 2));
	sqlite3_finalize(st);
	struct tee t;
	t.out = out;
	t.len = 0;
	sha256_init(&t.h);
	struct sink k = {put_file, &t, {0}};
	rc = raw_decode(s, file_id, &k, e);
	zblk_buf_release(&k.buf);
	uint8_t d[32];
	sha256_final(&t.h, d);
	sha256_hex(d, got);
	/* What was written must be what was imported: a block gone at the end, or a cell such
	 * as raw_eol changed, decodes without error into other bytes. */
	if (!rc && t.len != size)
		rc = err_set(
			e, VF_ESTORE,
			"file '%s': %lld bytes rebuilt from the store, %lld were imported (the "
			"store is damaged: 'voidfit check' tells more)",
			name, (long long)t.len, (long long)size);
	else if (!rc && strcmp(got, want))
		rc = err_set(e, VF_ESTORE,
			     "file '%s': the bytes rebuilt from the store are not those imported "
			     "(sha256 %.12s, imported %.12s; 'voidfit check' tells more)",
			     name, got, want);
	free(name);
	return rc;
}

struct digest {
	struct sha256 h;
	int64_t len;
};

static int put_digest(void *ctx, const void *p, size_t n, struct err *e)
{
	(void)e;
	struct digest *d = ctx;
	sha256_update(&d->h, p, n);
	d->len += (int64_t)n;
	return 0;
}

int store_raw_digest(struct store *s, int64_t file_id, uint8_t sha256[32], int64_t *len,
		     struct err *e)
{
	struct digest d;
	sha256_init(&d.h);
	d.len = 0;
	struct sink k = {put_digest, &d, {0}};
	int rc = raw_decode(s, file_id, &k, e);
	zblk_buf_release(&k.buf);
	sha256_final(&d.h, sha256);
	*len = d.len;
	return rc;
}
