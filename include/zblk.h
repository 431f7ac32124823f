/*
 * zblk.h — compressed column blocks: the bulk format of the store.
 *
 * A block is built in two steps. First columns are encoded, one after another, into an
 * uncompressed buffer (zblk_put_i64, zblk_put_str, zblk_put_varint, raw bytes). Then
 * zblk_seal compresses the buffer with zstd and prefixes a header that records the block's
 * kind, row count, raw and compressed lengths and a 64-bit FNV-1a checksum of the header and
 * the compressed bytes. zblk_open checks and inflates a sealed block; a zblk_reader then reads
 * the columns back in the order they were written.
 *
 * Integer columns keep NULL distinct from 0 (a bitmap) and choose per column the smallest of
 * constant, plain zigzag varint, delta zigzag varint and dictionary; they may also be coded
 * as the difference from an earlier column of the same rows (a "reference"), which makes a
 * copy or a near copy of another column nearly free. String columns choose constant,
 * dictionary or raw (lengths + bytes).
 */
#ifndef VOIDFIT_ZBLK_H
#define VOIDFIT_ZBLK_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* A growable byte buffer. */
struct zblk_buf {
	uint8_t *p;      /* the bytes (NULL while empty and unallocated) */
	size_t len, cap; /* bytes used, bytes allocated */
};
void zblk_buf_add(struct zblk_buf *b, const void *p, size_t n);
void zblk_buf_reset(struct zblk_buf *b);   /* empty, keeping the memory */
void zblk_buf_release(struct zblk_buf *b); /* free; b may be NULL */
/* Append an unsigned LEB128 varint. */
void zblk_put_varint(struct zblk_buf *b, uint64_t v);

/* A cursor over an uncompressed block; bad is set by the first read past the end or of a
 * malformed column, after which every read fails. */
struct zblk_reader {
	const uint8_t *p; /* the bytes (not owned) */
	size_t len, pos;  /* length, read position */
	int bad;          /* 1 once a read failed */
};
void zblk_reader_init(struct zblk_reader *r, const void *p, size_t len);
/* Read a varint / n raw bytes (*out points into the buffer); 0 or -1 (bad). */
int zblk_get_varint(struct zblk_reader *r, uint64_t *v);
int zblk_get_bytes(struct zblk_reader *r, size_t n, const uint8_t **out);

/*
 * Integer column of n rows: v[i], NULL where nul[i] is non-zero (nul may be NULL: none).
 * refs/refnul: nref (< 256) earlier columns of the same n rows (refnul[k] may be NULL) the
 * encoder may code against (as v - m * ref, m a guessed multiplier); the reader must pass the same
 * ones, in the same order. v of NULL rows is ignored (read back as 0).
 */
void zblk_put_i64(struct zblk_buf *b, const int64_t *v, const uint8_t *nul, size_t n,
		  const int64_t *const *refs, const uint8_t *const *refnul, int nref);
/* A column plan: the choices zblk_put_i64_plan made for a column (references, codec
 * family) and what they cost, kept from one block to the next of the same column so that
 * later blocks skip the search. Zero-initialise it (no plan yet). */
#define ZBLK_PLAN_USES 16 /* a plan is searched again after this many uses */
struct zblk_plan {
	int ref, ref2, codec; /* -1: no reference */
	int uses;             /* blocks coded by it since the search */
	size_t bytes, rows;   /* the coded size and row count it was found on; rows 0: none */
};
/* As zblk_put_i64, guided by *plan when it has one: the planned references and codec
 * family are used while the block costs at most an eighth more per row than the block
 * the plan came from and the plan has been used fewer than ZBLK_PLAN_USES times; otherwise
 * (or with no plan yet) the full search runs and its choices become the plan. plan may be NULL
 * (always search). The output depends only on the arguments and *plan, so the same sequence of
 * calls gives the same bytes. */
void zblk_put_i64_plan(struct zblk_buf *b, const int64_t *v, const uint8_t *nul, size_t n,
		       const int64_t *const *refs, const uint8_t *const *refnul, int nref,
		       struct zblk_plan *plan);
/* Whether zblk_put_i64_follow may follow plan (it has one, not used up, whose references
 * are among the nref offered); plan may be NULL (0). */
int zblk_plan_usable(const struct zblk_plan *plan, int nref);
/* The first half of zblk_put_i64_plan: code the column as *plan says if it is usable and
 * still about as cheap: 0, the column appended to b. Else -1 and b unchanged; only the
 * planned references (plan->ref, plan->ref2) are read, so a caller may fill just those
 * before trying, and all of them before falling back to zblk_put_i64_plan. */
int zblk_put_i64_follow(struct zblk_buf *b, const int64_t *v, const uint8_t *nul, size_t n,
			const int64_t *const *refs, const uint8_t *const *refnul, int nref,
			struct zblk_plan *plan);
/* The most bytes zblk_put_i64 (or _plan, _follow) writes for a column of n rows: a reader
 * that knows its rows bounds a block with it before inflating one. */
size_t zblk_i64_max(size_t n);
/* Read an integer column of n rows into v and nul (nul may be NULL only if the column has
 * no NULL). 0 or -1 (r->bad set). */
int zblk_get_i64(struct zblk_reader *r, int64_t *v, uint8_t *nul, size_t n,
		 const int64_t *const *refs, const uint8_t *const *refnul, int nref);

/* A byte string (not NUL-terminated). */
struct zblk_str {
	const uint8_t *p;
	size_t len;
};
/* String column of n rows. */
void zblk_put_str(struct zblk_buf *b, const struct zblk_str *s, size_t n);
/* Read a string column of n rows; s[i].p points into r's buffer. 0 or -1. */
int zblk_get_str(struct zblk_reader *r, struct zblk_str *s, size_t n);
/* Move past a string column of n rows without reading its strings (their lengths and
 * the column's structure are still checked). 0 or -1 (r->bad set). */
int zblk_skip_str(struct zblk_reader *r, size_t n);

/* A text field as a prefix, a number and a suffix: the number is the first run of at most
 * 18 digits, with the '-' before it when that renders the same, and width its digits when
 * they have leading zeros (0: printed as is); nul 1 and the whole field as prefix when
 * there is none. So "openb-pod-0042", "120.0" and "-3" are small integers between nearly
 * constant text. p[n] must not be a digit (a separator, a terminator). */
#define ZBLK_NUM_WIDTH_MAX 20
void zblk_numsplit(const uint8_t *p, size_t n, struct zblk_str *pre, int64_t *num, uint8_t *nul,
		   int64_t *width, struct zblk_str *suf);
/* The field zblk_numsplit split, as a NUL-terminated string in out (cap bytes): its length,
 * or -1 if it does not fit or width is out of range. */
int zblk_numjoin(char *out, size_t cap, const struct zblk_str *pre, int64_t num, int nul,
		 int64_t width, const struct zblk_str *suf);

/* Block kinds (what the rows of a block are). */
enum {
	ZBLK_BYTES = 1,   /* opaque bytes: rows = byte count */
	ZBLK_RAWTEXT = 2, /* lines of a text file (store-raw.c) */
	ZBLK_JOBS = 3,    /* struct job rows (store-jobs.c) */
	ZBLK_NODES = 4,   /* struct node rows (store-nodes.c) */
	ZBLK_KIND_MAX = 4,
};

/* Compression context: one reused ZSTD_CCtx and ZSTD_DCtx. */
struct zblk_ctx;
/* New context compressing at zstd level (1..22). Never fails (dies on out of memory). */
struct zblk_ctx *zblk_ctx_new(int level);
void zblk_ctx_free(struct zblk_ctx *z); /* z may be NULL */
/* Compress the next blocks at zstd level (1..22). */
void zblk_ctx_set_level(struct zblk_ctx *z, int level);

/* What a sealed block's header says. */
struct zblk_info {
	int kind;          /* ZBLK_* */
	int zstd;          /* 1 compressed, 0 stored as is (zstd did not help) */
	uint64_t rows;     /* rows the block holds */
	uint64_t raw_len;  /* bytes once inflated */
	uint64_t comp_len; /* bytes of payload in the blob */
	uint64_t checksum; /* FNV-1a 64 of the header fields and the payload */
};

/* Append the sealed form of raw (kind, rows) to out. 0, or VF_EIO if zstd fails. */
int zblk_seal(struct zblk_ctx *z, int kind, uint64_t rows, const void *raw, size_t rawlen,
	      struct zblk_buf *out, struct err *e);
/* Check and inflate a sealed block into raw (reset first); fills info (may be NULL).
 * VF_ESTORE with a message for a bad header, a checksum mismatch or a zstd failure, and,
 * before anything is allocated, for a size the zstd frame does not give too or that its
 * payload cannot inflate to (ZBLK_ZSTD_RATIO_MAX): a forged header asks for no memory. */
#define ZBLK_ZSTD_RATIO_MAX 32768 /* 128 KiB from a 4-byte RLE block at best */
int zblk_open(struct zblk_ctx *z, const void *blob, size_t n, struct zblk_info *info,
	      struct zblk_buf *raw, struct err *e);
/* Read only the header of a sealed block (no checksum check); 0 or -1. */
int zblk_peek(const void *blob, size_t n, struct zblk_info *info);

#endif
