/*
 * zblk.c — column encodings and sealed (zstd + checksum) blocks; see zblk.h.
 *
 * Integer column, uncompressed layout:
 *   u8 tag      codec (low 3 bits: ZC_*) | 8 if a NULL bitmap follows | 16 if ref2
 *   u8 ref      0, or 1 + the index of the reference column the values are relative to
 *   [mult]      if ref: zz(multiplier) varint; values are coded as v - mult * ref
 *   [ref2,mult2] if tag & 16: u8 (1 + index) and zz varint of a second reference, used on
 *               the rows where the first one is NULL
 *   [bitmap]    (n + 7) / 8 bytes, bit i set = row i is NULL
 *   payload     over the m non-NULL rows' values x (x = v - mult * ref where the ref
 *               row is not NULL, else v - mult2 * ref2 where that is not NULL, else v):
 *               CONST  zz(x0) | PLAIN  zz(x_i)... | DELTA  zz(x0), zz(x_i - x_i-1)...
 *               DICT   k, zz(d_j)..., then m indices (u8 when k <= 256, else u16 LE)
 *               NONE   nothing (m = 0)
 * zz is the zigzag map (0, -1, 1, -2 ... -> 0, 1, 2, 3 ...), all arithmetic wraps mod 2^64.
 *
 * String column: u8 tag, then CONST: len, bytes | DICT: k, k lengths (an integer column),
 * the k strings' bytes, n indices (u8 / u16 LE) | RAW: n lengths (integer column), bytes.
 *
 * Sealed block: u8 magic 0xB7, u8 kind, u8 flags (1 = zstd), varints rows, raw_len,
 * comp_len, then the u64 LE checksum (FNV-1a 64 of every header byte before it and of the
 * payload), then comp_len payload bytes.
 */
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "zblk.h"

enum { ZC_CONST, ZC_PLAIN, ZC_DELTA, ZC_DICT, ZC_NONE, ZC_N };
enum { ZS_CONST, ZS_DICT, ZS_RAW };
#define DICT_MAX  4096 /* beyond this many distinct values a dictionary does not pay */
#define SAMPLE    256  /* rows (spread out) that rank the references of a long column */
#define KEEP      2    /* references then costed on every row */
#define BLK_MAGIC 0xB7

/* ---- buffers and varints ---- */

void zblk_buf_add(struct zblk_buf *b, const void *p, size_t n)
{
	if (!n)
		return;
	xgrow(&b->p, &b->cap, b->len + n, 1);
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

void zblk_buf_reset(struct zblk_buf *b)
{
	b->len = 0;
}

void zblk_buf_release(struct zblk_buf *b)
{
	if (!b)
		return;
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

/* Room for n more bytes at the end of b: where they go (b->len is not moved). */
static uint8_t *buf_room(struct zblk_buf *b, size_t n)
{
	xgrow(&b->p, &b->cap, b->len + n, 1);
	return b->p + b->len;
}

/* Write v as a varint at q (at most 10 bytes); returns the byte after it. */
static inline uint8_t *varint_at(uint8_t *q, uint64_t v)
{
	while (v >= 0x80) {
		*q++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*q++ = (uint8_t)v;
	return q;
}

void zblk_put_varint(struct zblk_buf *b, uint64_t v)
{
	uint8_t *q = varint_at(buf_room(b, 10), v);
	b->len = (size_t)(q - b->p);
}

static size_t varlen(uint64_t v)
{
	/* bytes of a varint by the count of leading zero bits: (64 - clz + 6) / 7 */
	static const uint8_t by_clz[64] = {10, 9, 9, 9, 9, 9, 9, 9, 8, 8, 8, 8, 8, 8, 8, 7,
					   7,  7, 7, 7, 7, 7, 6, 6, 6, 6, 6, 6, 6, 5, 5, 5,
					   5,  5, 5, 5, 4, 4, 4, 4, 4, 4, 4, 3, 3, 3, 3, 3,
					   3,  3, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1};
	return by_clz[__builtin_clzll(v | 1)];
}

static uint64_t zz(uint64_t x)
{
	return (x << 1) ^ (uint64_t) - (int64_t)(x >> 63);
}

static uint64_t unzz(uint64_t u)
{
	return (u >> 1) ^ (uint64_t) - (int64_t)(u & 1);
}

void zblk_reader_init(struct zblk_reader *r, const void *p, size_t len)
{
	r->p = p;
	r->len = len;
	r->pos = 0;
	r->bad = 0;
}

int zblk_get_varint(struct zblk_reader *r, uint64_t *v)
{
	if (r->bad)
		return -1;
	const uint8_t *p = r->p + r->pos, *end = r->p + r->len;
	uint64_t x = 0;
	for (int shift = 0; p < end && shift < 64; shift += 7) {
		uint8_t c = *p++;
		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			r->pos = (size_t)(p - r->p);
			*v = x;
			return 0;
		}
	}
	r->bad = 1;
	return -1;
}

/* zblk_get_varint with the one-byte case inline. */
static inline int get_varint_fast(struct zblk_reader *r, uint64_t *v)
{
	if (r->pos < r->len && r->p[r->pos] < 0x80 && !r->bad) {
		*v = r->p[r->pos++];
		return 0;
	}
	return zblk_get_varint(r, v);
}

int zblk_get_bytes(struct zblk_reader *r, size_t n, const uint8_t **out)
{
	if (r->bad || r->len - r->pos < n) {
		r->bad = 1;
		return -1;
	}
	*out = r->p + r->pos;
	r->pos += n;
	return 0;
}

static int get_u8(struct zblk_reader *r, unsigned *v)
{
	const uint8_t *p;
	if (zblk_get_bytes(r, 1, &p))
		return -1;
	*v = p[0];
	return 0;
}

/* ---- a small open-addressing set of uint64, for dictionaries ---- */

struct u64set {
	uint64_t *key;
	uint32_t *idx; /* dictionary index + 1; 0 = empty slot */
	size_t mask;   /* slots - 1; the set doubles before it is half full */
};

/* A set for up to want values, starting small (most columns have few distinct values:
 * clearing a table for the most a block could hold would cost more than filling it). */
static void u64set_init(struct u64set *h, size_t want)
{
	size_t cap = 16;
	while (cap < 2 * want && cap < 2048)
		cap *= 2;
	h->key = xmalloc(cap * sizeof *h->key);
	h->idx = xcalloc(cap, sizeof *h->idx);
	h->mask = cap - 1;
}

static void u64set_release(struct u64set *h)
{
	FREE_ALL(h->key, h->idx);
}

static size_t u64set_slot(const struct u64set *h, uint64_t x)
{
	return (size_t)((x * 0x9E3779B97F4A7C15ull) >> 32) & h->mask;
}

/* Twice the slots, the same entries. */
static void u64set_grow(struct u64set *h)
{
	struct u64set o = *h;
	size_t cap = 2 * (o.mask + 1);
	h->key = xmalloc(cap * sizeof *h->key);
	h->idx = xcalloc(cap, sizeof *h->idx);
	h->mask = cap - 1;
	for (size_t j = 0; j <= o.mask; j++) {
		if (!o.idx[j])
			continue;
		size_t i = u64set_slot(h, o.key[j]);
		while (h->idx[i])
			i = (i + 1) & h->mask;
		h->key[i] = o.key[j];
		h->idx[i] = o.idx[j];
	}
	u64set_release(&o);
}

/* Index of x, adding it as index *k if new (then ++*k). */
static uint32_t u64set_put(struct u64set *h, uint64_t x, uint32_t *k)
{
	size_t i = u64set_slot(h, x);
	while (h->idx[i]) {
		if (h->key[i] == x)
			return h->idx[i] - 1;
		i = (i + 1) & h->mask;
	}
	h->key[i] = x;
	h->idx[i] = ++*k;
	if ((size_t)*k * 2 > h->mask)
		u64set_grow(h);
	return *k - 1;
}

/* ---- integer columns ---- */

/* Bytes each codec needs for x[0..m); SIZE_MAX when it cannot be used or is not costed:
 * mode COST_REF costs plain and constant only, COST_DELTA delta and constant only,
 * COST_ALL all of them. */
enum { COST_REF, COST_ALL, COST_DELTA };

/* A column's dictionary as int_costs finds it, kept for put_payload when the dictionary
 * wins, so it is not found twice (ix NULL: none kept). */
struct dict {
	uint32_t *ix; /* each value's index into d */
	uint64_t *d;  /* the k distinct values, in order of first appearance */
	uint32_t k;
};

static void dict_free(struct dict *dc)
{
	FREE_ALL(dc->ix, dc->d);
	*dc = (struct dict){0};
}

/* dc (may be NULL): where to keep the dictionary when it is costed (dc is freed first). */
static void int_costs(const uint64_t *x, size_t m, size_t cost[ZC_N], int mode, struct dict *dc)
{
	if (dc)
		dict_free(dc);
	for (int c = 0; c < ZC_N; c++)
		cost[c] = SIZE_MAX;
	if (m == 0) {
		cost[ZC_NONE] = 0;
		return;
	}
	size_t plain = varlen(zz(x[0])), delta = plain, same = 1;
	if (mode == COST_DELTA) {
		for (size_t i = 1; i < m; i++) {
			delta += varlen(zz(x[i] - x[i - 1]));
			same &= x[i] == x[0];
		}
		plain = SIZE_MAX;
	} else if (mode != COST_REF) {
		for (size_t i = 1; i < m; i++) {
			plain += varlen(zz(x[i]));
			delta += varlen(zz(x[i] - x[i - 1]));
			same &= x[i] == x[0];
		}
	} else { /* against a reference: plain and constant only, the common outcomes */
		for (size_t i = 1; i < m; i++) {
			plain += varlen(zz(x[i]));
			same &= x[i] == x[0];
		}
		delta = SIZE_MAX;
	}
	if (same) {
		cost[ZC_CONST] = varlen(zz(x[0]));
		return;
	}
	cost[ZC_PLAIN] = plain;
	cost[ZC_DELTA] = delta;
	if (mode != COST_ALL)
		return;
	struct u64set h;
	uint32_t k = 0;
	size_t dsz = 0;
	if (m > 4 * SAMPLE) { /* many distinct values early on: no dictionary */
		u64set_init(&h, SAMPLE);
		for (size_t i = 0; i < SAMPLE; i++)
			u64set_put(&h, x[i], &k);
		u64set_release(&h);
		if (k > SAMPLE / 2)
			return;
		k = 0;
	}
	u64set_init(&h, m < DICT_MAX ? m : DICT_MAX);
	/* the indices and values as put_payload would find them: the same set, same order */
	uint32_t *ix = dc ? xmalloc(m * sizeof *ix) : NULL;
	uint64_t *d = dc ? xmalloc((DICT_MAX + 1) * sizeof *d) : NULL;
	for (size_t i = 0; i < m && k <= DICT_MAX; i++) {
		if (i && x[i] == x[i - 1]) { /* a run: nothing new (and no lookup) */
			if (ix)
				ix[i] = ix[i - 1];
			continue;
		}
		uint32_t before = k, at = u64set_put(&h, x[i], &k);
		if (ix)
			ix[i] = at;
		if (k != before) {
			dsz += varlen(zz(x[i]));
			if (d)
				d[k - 1] = x[i];
		}
		if (k == DICT_MAX && i + 1 < m) { /* the set is full: stop before it overflows */
			k = DICT_MAX + 1;
			break;
		}
	}
	u64set_release(&h);
	if (dc && k <= DICT_MAX) {
		*dc = (struct dict){ix, d, k};
		ix = NULL;
		d = NULL;
	}
	free(ix);
	free(d);
	if (k <= DICT_MAX)
		cost[ZC_DICT] = varlen(k) + dsz + m * (k <= 256 ? 1 : 2);
}

static int best_codec(const size_t cost[ZC_N], size_t *sz)
{
	int best = ZC_PLAIN;
	for (int c = 0; c < ZC_N; c++)
		if (cost[c] < cost[best])
			best = c;
	*sz = cost[best];
	return best;
}

/* What the values of a column are coded against: mult1 * ref1 where ref1's row is not NULL,
 * else mult2 * ref2 where that one is not NULL, else nothing. */
struct refsel {
	const int64_t *r1, *r2; /* NULL: none */
	const uint8_t *n1, *n2; /* NULL rows of r1 / r2 (NULL: none) */
	uint64_t m1, m2;
};

static uint64_t refval(const struct refsel *s, size_t i)
{
	if (s->r1 && !(s->n1 && s->n1[i]))
		return (uint64_t)s->r1[i] * s->m1;
	if (s->r2 && !(s->n2 && s->n2[i]))
		return (uint64_t)s->r2[i] * s->m2;
	return 0;
}

/* The values of the non-NULL rows relative to s (wrapping); returns m. */
static size_t residuals(const int64_t *v, const uint8_t *nul, size_t n, const struct refsel *s,
			uint64_t *x)
{
	size_t m = 0;
	/* The common shapes first, each a loop the compiler can make tight: no NULLs and no
	 * reference, or one reference without NULLs. */
	if (!nul && !s->r1 && !s->r2) {
		for (size_t i = 0; i < n; i++)
			x[i] = (uint64_t)v[i];
		return n;
	}
	if (!nul && s->r1 && !s->n1) {
		const int64_t *r = s->r1;
		uint64_t k = s->m1;
		for (size_t i = 0; i < n; i++)
			x[i] = (uint64_t)v[i] - (uint64_t)r[i] * k;
		return n;
	}
	/* At most one reference, with NULL rows: every row is written at x[m] (m <= i < n)
	 * and counted only when not NULL, so the loops have no unpredictable branch. */
	if (!s->r2) {
		const int64_t *r = s->r1;
		const uint8_t *n1 = s->n1;
		uint64_t k = s->m1;
		if (!r) {
			for (size_t i = 0; i < n; i++) {
				x[m] = (uint64_t)v[i];
				m += !nul[i];
			}
		} else if (!n1) {
			for (size_t i = 0; i < n; i++) {
				x[m] = (uint64_t)v[i] - (uint64_t)r[i] * k;
				m += !nul[i];
			}
		} else if (!nul) {
			for (size_t i = 0; i < n; i++)
				x[i] = (uint64_t)v[i] - (n1[i] ? 0 : (uint64_t)r[i] * k);
			m = n;
		} else {
			for (size_t i = 0; i < n; i++) {
				x[m] = (uint64_t)v[i] - (n1[i] ? 0 : (uint64_t)r[i] * k);
				m += !nul[i];
			}
		}
		return m;
	}
	for (size_t i = 0; i < n; i++) {
		if (nul && nul[i])
			continue;
		x[m++] = (uint64_t)v[i] - refval(s, i);
	}
	return m;
}

/* The multiplier a that best fits v = a * ref + b, guessed from the first two rows (where
 * only[] marks the row, if given) with different ref values: the slope if it is a whole
 * number (1 for a copy or an offset, 1000 for seconds to ms, -1 for "end - start"), else 1;
 * when ref looks constant over the first rows, the first row's ratio v / ref if whole. */
static uint64_t guess_mult(const int64_t *v, const uint8_t *nul, size_t n, const int64_t *ref,
			   const uint8_t *refnul, const uint8_t *only)
{
	const int64_t big = INT64_C(1) << 61;
	int64_t v0 = 0, r0 = 0;
	int have = 0, tries = 0;
	for (size_t i = 0; i < n && tries < 64; i++) { /* a constant ref: give up soon */
		/* Runs of NULL rows (a mostly-empty column) are skipped with memchr. */
		if (refnul && refnul[i]) {
			const uint8_t *q = memchr(refnul + i, 0, n - i);
			if (!q)
				break;
			i = (size_t)(q - refnul);
		}
		if (nul && nul[i]) {
			const uint8_t *q = memchr(nul + i, 0, n - i);
			if (!q)
				break;
			i = (size_t)(q - nul);
		}
		if ((refnul && refnul[i]) || (only && !only[i]))
			continue;
		tries++;
		if (v[i] >= big || v[i] <= -big || ref[i] >= big || ref[i] <= -big)
			return 1;
		if (!have) {
			v0 = v[i];
			r0 = ref[i];
			have = 1;
		} else if (ref[i] != r0) {
			int64_t dv = v[i] - v0, dr = ref[i] - r0;
			return dv % dr == 0 && dv != 0 ? (uint64_t)(dv / dr) : 1;
		}
	}
	/* ref looked constant: the ratio of the first row, if whole. */
	return have && r0 != 0 && v0 != 0 && v0 % r0 == 0 ? (uint64_t)(v0 / r0) : 1;
}

/* ref_cost's tally of the residuals so far: their plain bytes, and whether all are one. */
struct cost {
	size_t plain, first, same;
	uint64_t x0;
};

/* Add residual x to c: 1 once the plain coding is past limit and no constant one. */
static inline int cost_add(struct cost *c, uint64_t x, size_t limit)
{
	if (c->first) {
		c->x0 = x;
		c->first = 0;
	}
	c->same &= x == c->x0;
	c->plain += varlen(zz(x));
	return !c->same && c->plain >= limit;
}

/* Bytes of the plain (or constant) coding of v against s, without building the residuals,
 * over every step-th row; gives up (SIZE_MAX) once past limit. */
static size_t ref_cost(const int64_t *v, const uint8_t *nul, size_t n, size_t step,
		       const struct refsel *s, size_t limit)
{
	struct cost c = {0, 1, 1, 0};
	if (!s->r2 && !nul) { /* the usual case, as refval without its branches */
		const int64_t *r1 = s->r1;
		const uint8_t *n1 = s->n1;
		uint64_t m1 = s->m1;
		for (size_t i = 0; i < n; i += step) {
			uint64_t r = r1 && !(n1 && n1[i]) ? (uint64_t)r1[i] * m1 : 0;
			if (cost_add(&c, (uint64_t)v[i] - r, limit))
				return SIZE_MAX;
		}
	} else {
		for (size_t i = 0; i < n; i += step)
			if (!(nul && nul[i]) && cost_add(&c, (uint64_t)v[i] - refval(s, i), limit))
				return SIZE_MAX;
	}
	return c.same ? varlen(zz(c.x0)) : c.plain;
}

/* dc: the dictionary int_costs kept for these x, or NULL (or none kept): found here. */
static void put_payload(struct zblk_buf *b, int codec, const uint64_t *x, size_t m,
			const struct dict *dc)
{
	switch (codec) {
	case ZC_NONE:
		break;
	case ZC_CONST:
		zblk_put_varint(b, zz(x[0]));
		break;
	case ZC_PLAIN: { /* room for them all at once: this runs for every number stored */
		uint8_t *q = buf_room(b, m * 10);
		for (size_t i = 0; i < m; i++)
			q = varint_at(q, zz(x[i]));
		b->len = (size_t)(q - b->p);
		break;
	}
	case ZC_DELTA: {
		uint8_t *q = varint_at(buf_room(b, m * 10), zz(x[0]));
		for (size_t i = 1; i < m; i++)
			q = varint_at(q, zz(x[i] - x[i - 1]));
		b->len = (size_t)(q - b->p);
		break;
	}
	case ZC_DICT: {
		struct u64set h = {0};
		uint32_t k = 0, *ix;
		uint64_t *d;
		if (dc && dc->ix) {
			ix = dc->ix;
			d = dc->d;
			k = dc->k;
		} else {
			u64set_init(&h, m < DICT_MAX ? m : DICT_MAX);
			ix = xmalloc(m * sizeof *ix);
			d = xmalloc((DICT_MAX + 1) * sizeof *d);
		}
		for (size_t i = 0; !(dc && dc->ix) && i < m; i++) {
			if (i && x[i] == x[i - 1]) { /* a run: the same index, no lookup */
				ix[i] = ix[i - 1];
				continue;
			}
			uint32_t before = k;
			ix[i] = u64set_put(&h, x[i], &k);
			if (k != before)
				d[k - 1] = x[i];
		}
		assert(k <= DICT_MAX);
		zblk_put_varint(b, k);
		for (uint32_t j = 0; j < k; j++)
			zblk_put_varint(b, zz(d[j]));
		uint8_t *q = buf_room(b, 2 * m);
		for (size_t i = 0; i < m; i++) {
			*q++ = (uint8_t)ix[i];
			if (k > 256)
				*q++ = (uint8_t)(ix[i] >> 8);
		}
		b->len = (size_t)(q - b->p);
		if (!(dc && dc->ix)) {
			free(d);
			free(ix);
			u64set_release(&h);
		}
		break;
	}
	default:
		assert(0);
	}
}

void zblk_put_i64(struct zblk_buf *b, const int64_t *v, const uint8_t *nul, size_t n,
		  const int64_t *const *refs, const uint8_t *const *refnul, int nref)
{
	zblk_put_i64_plan(b, v, nul, n, refs, refnul, nref, NULL);
}

/* Header bytes of a coding against sel beyond the two of every column. */
static size_t sel_bytes(const struct refsel *s)
{
	return (s->r1 ? varlen(zz(s->m1)) : 0) + (s->r2 ? 1 + varlen(zz(s->m2)) : 0);
}

/* Code v as plan p says (its references, their multipliers guessed again, the codec
 * family); the residuals into x, the codec into *codec; returns the bytes. codec NULL:
 * only sel, x and m (returns 0). */
static size_t plan_try(const struct zblk_plan *p, const int64_t *v, const uint8_t *nul, size_t n,
		       const int64_t *const *refs, const uint8_t *const *refnul, struct refsel *sel,
		       uint64_t *x, size_t *m, int *codec, struct dict *dc)
{
	size_t cost[ZC_N], sz;
	*sel = (struct refsel){0};
	if (p->ref >= 0) {
		sel->r1 = refs[p->ref];
		sel->n1 = refnul ? refnul[p->ref] : NULL;
		sel->m1 = guess_mult(v, nul, n, sel->r1, sel->n1, NULL);
	}
	if (p->ref2 >= 0) {
		sel->r2 = refs[p->ref2];
		sel->n2 = refnul ? refnul[p->ref2] : NULL;
		sel->m2 = guess_mult(v, nul, n, sel->r2, sel->n2, sel->n1);
	}
	*m = residuals(v, nul, n, sel, x);
	if (!codec) /* the references and residuals only */
		return 0;
	/* Only the planned codec (and constant, which costs nothing to check) is costed. */
	int mode = p->codec == ZC_DICT ? COST_ALL : p->codec == ZC_DELTA ? COST_DELTA : COST_REF;
	*codec = best_codec((int_costs(x, *m, cost, mode, dc), cost), &sz);
	return sz + sel_bytes(sel);
}

/* Append the column: codec over the m residuals x of v against sel (references ref and
 * ref2, -1: none), with the NULL bitmap of nul when m < n. */
static void put_column(struct zblk_buf *b, int codec, int ref, int ref2, const struct refsel *s,
		       const uint8_t *nul, size_t n, const uint64_t *x, size_t m,
		       const struct dict *dc)
{
	uint8_t hdr[2] = {(uint8_t)(codec | (m < n ? 8 : 0) | (ref2 >= 0 ? 16 : 0)),
			  (uint8_t)(ref + 1)};
	zblk_buf_add(b, hdr, 2);
	if (ref >= 0)
		zblk_put_varint(b, zz(s->m1));
	if (ref2 >= 0) {
		uint8_t r2 = (uint8_t)(ref2 + 1);
		zblk_buf_add(b, &r2, 1);
		zblk_put_varint(b, zz(s->m2));
	}
	if (m < n) {
		size_t nb = (n + 7) / 8;
		xgrow(&b->p, &b->cap, b->len + nb, 1);
		uint8_t *bm = b->p + b->len;
		memset(bm, 0, nb);
		for (size_t i = 0; i < n; i++)
			if (nul[i])
				bm[i / 8] |= (uint8_t)(1u << (i % 8));
		b->len += nb;
	}
	put_payload(b, codec, x, m, dc); /* x: the residuals against s, or the values (none) */
}

/* Is a plan's cost sz for n rows still about as cheap as the block it was found on? Kept
 * while the block costs at most an eighth more per row. */
static int plan_holds(const struct zblk_plan *plan, size_t sz, size_t n)
{
	return (uint64_t)sz * plan->rows <= ((uint64_t)plan->bytes * 9 / 8 + 8) * n;
}

int zblk_put_i64_follow(struct zblk_buf *b, const int64_t *v, const uint8_t *nul, size_t n,
			const int64_t *const *refs, const uint8_t *const *refnul, int nref,
			struct zblk_plan *plan)
{
	assert(nref >= 0 && nref < 256);
	if (!zblk_plan_usable(plan, nref))
		return -1;
	uint64_t *x = xmalloc((n ? n : 1) * sizeof *x);
	struct refsel sel;
	size_t m;
	int codec, rc = -1;
	if (plan->codec != ZC_DICT) {
		/* Plain or delta (or constant): code the column, then see what it cost, rather
		 * than costing it first: the same bytes as plan_try and put_column give, with
		 * one pass over the values fewer. */
		size_t start = b->len, sz;
		const uint64_t *xv = x;
		if (plan->ref < 0 && plan->ref2 < 0 && !nul) { /* the residuals are v itself */
			sel = (struct refsel){0};
			m = n;
			xv = (const uint64_t *)(const void *)v;
		} else {
			plan_try(plan, v, nul, n, refs, refnul, &sel, x, &m, NULL, NULL);
		}
		size_t d = 1; /* the first row unlike the first: most columns have one early */
		while (d < m && xv[d] == xv[0])
			d++;
		if (d < m) {
			codec = plan->codec == ZC_DELTA ? ZC_DELTA : ZC_PLAIN;
			put_column(b, codec, plan->ref, plan->ref2, &sel, nul, n, xv, m, NULL);
			sz = b->len - start - 2 - (m < n ? (n + 7) / 8 : 0); /* payload + sel */
			if (plan_holds(plan, sz, n)) {
				plan->uses++;
				rc = 0;
			} else {
				b->len = start;
			}
			free(x);
			return rc;
		}
		codec = m ? ZC_CONST : ZC_NONE;
		sz = (m ? varlen(zz(xv[0])) : 0) + sel_bytes(&sel);
		if (plan_holds(plan, sz, n)) {
			put_column(b, codec, plan->ref, plan->ref2, &sel, nul, n, xv, m, NULL);
			plan->uses++;
			rc = 0;
		}
		free(x);
		return rc;
	}
	struct dict dc = {0};
	size_t sz = plan_try(plan, v, nul, n, refs, refnul, &sel, x, &m, &codec, &dc);
	if (plan_holds(plan, sz, n)) {
		put_column(b, codec, plan->ref, plan->ref2, &sel, nul, n, x, m, &dc);
		plan->uses++;
		rc = 0;
	}
	dict_free(&dc);
	free(x);
	return rc;
}

int zblk_plan_usable(const struct zblk_plan *plan, int nref)
{
	return plan && plan->rows && plan->uses < ZBLK_PLAN_USES && plan->ref < nref &&
	       plan->ref2 < nref;
}

void zblk_put_i64_plan(struct zblk_buf *b, const int64_t *v, const uint8_t *nul, size_t n,
		       const int64_t *const *refs, const uint8_t *const *refnul, int nref,
		       struct zblk_plan *plan)
{
	assert(nref >= 0 && nref < 256); /* the reference is stored in a byte */
	uint64_t *x = xmalloc((n ? n : 1) * sizeof *x);
	struct refsel sel = {0}, none = {0};
	size_t cost[ZC_N], bestsz, sz, m;
	int codec, ref = -1, ref2 = -1;
	if (zblk_put_i64_follow(b, v, nul, n, refs, refnul, nref, plan) == 0) {
		free(x);
		return;
	}
	struct dict dc = {0}; /* of x: the values, then the residuals if a reference is chosen */
	m = residuals(v, nul, n, &none, x);
	codec = best_codec((int_costs(x, m, cost, COST_ALL, &dc), cost), &bestsz);
	/* References are compared without the (costly) dictionary estimate; the one chosen
	 * gets it afterwards. With many references and rows, they are ranked on SAMPLE rows
	 * spread over the column and only the best few are costed on all of them. */
	int order[256], nord = nref;
	for (int k = 0; k < nord; k++)
		order[k] = k;
	if (n > 4 * SAMPLE && nord > KEEP) {
		size_t sc[256];
		for (int k = 0; k < nord; k++) {
			const uint8_t *rn = refnul ? refnul[k] : NULL;
			struct refsel t = {.r1 = refs[k], .n1 = rn};
			t.m1 = guess_mult(v, nul, n, refs[k], rn, NULL);
			sc[k] = ref_cost(v, nul, n, n / SAMPLE, &t, SIZE_MAX);
		}
		for (int i = 0; i < KEEP; i++) /* partial selection sort: the KEEP cheapest */
			for (int j = i + 1; j < nord; j++)
				if (sc[order[j]] < sc[order[i]]) {
					int t = order[i];
					order[i] = order[j];
					order[j] = t;
				}
		nord = KEEP;
	}
	for (int i = 0; i < nord && bestsz > m / 8 + 1; i++) {
		int k = order[i];
		const uint8_t *rn = refnul ? refnul[k] : NULL;
		struct refsel t = {
			refs[k], NULL, rn, NULL, guess_mult(v, nul, n, refs[k], rn, NULL), 0};
		sz = ref_cost(v, nul, n, 1, &t, bestsz);
		if (sz != SIZE_MAX && sz + varlen(zz(t.m1)) < bestsz) {
			bestsz = sz + varlen(zz(t.m1));
			ref = k;
			sel = t;
		}
	}
	/* Where the chosen reference has NULL rows, a second one may cover them (a duration
	 * is end - start, or window - start when the end is missing). */
	size_t holes = 0;
	for (size_t i = 0; ref >= 0 && sel.n1 && i < n; i++)
		holes += !(nul && nul[i]) && sel.n1[i];
	if (holes >= 16 && holes > m / 32) {
		/* Only the hole rows differ between candidates: cost them there. */
		size_t *hix = xmalloc(holes * sizeof *hix), nh = 0, best = 0;
		for (size_t i = 0; i < n; i++)
			if (!(nul && nul[i]) && sel.n1[i]) {
				hix[nh++] = i;
				best += varlen(zz((uint64_t)v[i]));
			}
		for (int k = 0; k < nref; k++) {
			if (k == ref)
				continue;
			const int64_t *r2 = refs[k];
			const uint8_t *n2 = refnul ? refnul[k] : NULL;
			uint64_t m2 = guess_mult(v, nul, n, r2, n2, sel.n1);
			size_t c = 1 + varlen(zz(m2));
			for (size_t h = 0; h < nh && c < best; h++) {
				size_t i = hix[h];
				uint64_t r = n2 && n2[i] ? 0 : (uint64_t)r2[i] * m2;
				c += varlen(zz((uint64_t)v[i] - r));
			}
			if (c < best) {
				best = c;
				ref2 = k;
				sel.r2 = r2;
				sel.n2 = n2;
				sel.m2 = m2;
			}
		}
		free(hix);
	}
	if (ref >= 0) { /* x then holds the residuals the payload is written from */
		residuals(v, nul, n, &sel, x);
		codec = best_codec((int_costs(x, m, cost, COST_ALL, &dc), cost), &sz);
	} else {
		sz = bestsz;
	}
	if (plan)
		*plan = (struct zblk_plan){ref, ref2, codec, 0, sz + sel_bytes(&sel), n ? n : 1};
	put_column(b, codec, ref, ref2, &sel, nul, n, x, m, &dc);
	dict_free(&dc);
	free(x);
}

static int bad(struct zblk_reader *r)
{
	r->bad = 1;
	return -1;
}

size_t zblk_i64_max(size_t n)
{
	/* tag, ref, mult, ref2, mult2 (1 + 1 + 10 + 1 + 10), the NULL bitmap, then a payload no
	 * dearer than PLAIN's 10 bytes a value (the cheapest codec is taken); DICT's bound,
	 * k <= n values of 10 bytes, its count and 2-byte indices, is 12 a value */
	return 23 + (n + 7) / 8 + 10 + 12 * n;
}

int zblk_get_i64(struct zblk_reader *r, int64_t *v, uint8_t *nul, size_t n,
		 const int64_t *const *refs, const uint8_t *const *refnul, int nref)
{
	unsigned tag, ref;
	if (get_u8(r, &tag) || get_u8(r, &ref))
		return -1;
	int codec = (int)(tag & 7);
	if (codec >= ZC_N || (tag & ~31u) || (int)ref > nref || ((tag & 16) && !ref))
		return bad(r);
	uint64_t mult = 1, mult2 = 1;
	unsigned ref2 = 0;
	if (ref && zblk_get_varint(r, &mult))
		return -1;
	mult = unzz(mult);
	if ((tag & 16) &&
	    (get_u8(r, &ref2) || !ref2 || (int)ref2 > nref || zblk_get_varint(r, &mult2)))
		return bad(r);
	mult2 = unzz(mult2);
	const uint8_t *bm = NULL;
	if ((tag & 8) && zblk_get_bytes(r, (n + 7) / 8, &bm))
		return -1;
	if (bm && !nul)
		return bad(r);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		int isnul = bm && (bm[i / 8] >> (i % 8) & 1);
		if (nul)
			nul[i] = (uint8_t)isnul;
		m += !isnul;
	}
	if ((codec == ZC_NONE) != (m == 0))
		return bad(r);
	/* Decode the m values into the first m slots of v, then spread them to their rows. */
	uint64_t u = 0, prev = 0, k = 0;
	const uint8_t *ix = NULL;
	uint64_t *d = NULL;
	int rc = -1;
	if (codec == ZC_CONST && zblk_get_varint(r, &u))
		return -1;
	if (codec == ZC_DICT) {
		if (zblk_get_varint(r, &k) || k == 0 || k > 65536)
			return bad(r);
		d = xmalloc(k * sizeof *d);
		for (uint64_t j = 0; j < k; j++) {
			if (zblk_get_varint(r, &u))
				goto out;
			d[j] = unzz(u);
		}
		if (zblk_get_bytes(r, m * (k <= 256 ? 1 : 2), &ix))
			goto out;
	}
	/* One loop per codec: this runs for every number of every imported line. */
	if (codec == ZC_CONST) {
		for (size_t i = 0; i < m; i++)
			v[i] = (int64_t)unzz(u);
	} else if (codec == ZC_PLAIN || codec == ZC_DELTA) {
		uint64_t add = codec == ZC_DELTA;
		for (size_t i = 0; i < m; i++) {
			if (get_varint_fast(r, &u))
				goto out;
			prev = unzz(u) + (i ? prev * add : 0);
			v[i] = (int64_t)prev;
		}
	} else if (codec == ZC_DICT) {
		for (size_t i = 0; i < m; i++) {
			uint64_t j = k <= 256 ? ix[i]
					      : (uint64_t)ix[2 * i] | (uint64_t)ix[2 * i + 1] << 8;
			if (j >= k) {
				bad(r);
				goto out;
			}
			v[i] = (int64_t)d[j];
		}
	}
	struct refsel sel = {0};
	if (ref)
		sel = (struct refsel){refs[ref - 1],
				      ref2 ? refs[ref2 - 1] : NULL,
				      refnul ? refnul[ref - 1] : NULL,
				      ref2 && refnul ? refnul[ref2 - 1] : NULL,
				      mult,
				      mult2};
	if (m == n && ref && !sel.n1) { /* the common case: no NULL rows, one full reference */
		for (size_t i = 0; i < n; i++)
			v[i] = (int64_t)((uint64_t)v[i] + (uint64_t)sel.r1[i] * mult);
	} else if (m < n || ref) {
		for (size_t i = n, j = m; i-- > 0;) {
			if (nul && nul[i]) {
				v[i] = 0;
				continue;
			}
			uint64_t x = (uint64_t)v[--j];
			if (ref)
				x += refval(&sel, i);
			v[i] = (int64_t)x;
		}
	}
	rc = 0;
out:
	free(d);
	return rc;
}

/* ---- string columns ---- */

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const uint8_t *s = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3ull;
	return h;
}
#define FNV_INIT 0xcbf29ce484222325ull

static void put_lengths(struct zblk_buf *b, const struct zblk_str *s, size_t n)
{
	int64_t *len = xmalloc((n ? n : 1) * sizeof *len);
	for (size_t i = 0; i < n; i++)
		len[i] = (int64_t)s[i].len;
	zblk_put_i64(b, len, NULL, n, NULL, NULL, 0);
	free(len);
}

/* Are the n bytes at a and b the same, for w <= n <= 2 w (w 4 or 8)? Two w-byte loads each,
 * of the head and of the tail, that overlap. */
static inline int ends_eq(const uint8_t *a, const uint8_t *b, size_t n, size_t w)
{
	uint64_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;
	memcpy(&x0, a, w);
	memcpy(&y0, b, w);
	memcpy(&x1, a + n - w, w);
	memcpy(&y1, b + n - w, w);
	return ((x0 ^ y0) | (x1 ^ y1)) == 0;
}

/* Are the n bytes at a and b the same? Up to 16 bytes (most strings of a column: prefixes,
 * suffixes, names) by two loads each that overlap, not a call to memcmp. */
static inline int bytes_eq(const uint8_t *a, const uint8_t *b, size_t n)
{
	if (n >= 8 && n <= 16)
		return ends_eq(a, b, n, 8);
	if (n >= 4 && n < 8)
		return ends_eq(a, b, n, 4);
	if (n < 4)
		return n == 0 || (a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1]);
	return !memcmp(a, b, n);
}

/* Are a and b the same bytes? */
static inline int str_eq(const struct zblk_str *a, const struct zblk_str *b)
{
	return a->len == b->len && bytes_eq(a->p, b->p, a->len);
}

void zblk_put_str(struct zblk_buf *b, const struct zblk_str *s, size_t n)
{
	size_t same = n > 0;
	/* The common case, without hashing; most such columns hold short or empty strings. */
	const size_t len0 = n ? s[0].len : 0;
	const uint8_t *p0 = n ? s[0].p : NULL;
	if (len0 == 0) {
		/* no early exit: a loop the compiler can unroll, and most such columns are
		 * empty throughout */
		size_t any = 0;
		for (size_t i = 1; i < n; i++)
			any |= s[i].len;
		same = n > 0 && any == 0;
	} else {
		for (size_t i = 1; i < n && same; i++)
			same = s[i].len == len0 && bytes_eq(s[i].p, p0, len0);
	}
	if (same) {
		uint8_t tag = ZS_CONST;
		zblk_buf_add(b, &tag, 1);
		zblk_put_varint(b, s[0].len);
		zblk_buf_add(b, s[0].p, s[0].len);
		return;
	}
	/* Distinct strings by hash, confirmed by comparison (a hash collision just makes a
	 * second entry with the same hash impossible to find: fall back to raw then). */
	uint64_t *hash = xmalloc((n ? n : 1) * sizeof *hash);
	size_t total = 0;
	for (size_t i = 0; i < n; i++) {
		hash[i] = fnv1a(FNV_INIT, s[i].p, s[i].len);
		total += s[i].len;
	}
	struct u64set h;
	u64set_init(&h, n < DICT_MAX ? n : DICT_MAX);
	uint32_t k = 0, *ix = xmalloc((n ? n : 1) * sizeof *ix);
	size_t *first = xmalloc((DICT_MAX + 1) * sizeof *first), dictbytes = 0;
	int dict_ok = n > 0;
	for (size_t i = 0; i < n && dict_ok; i++) {
		if (i && hash[i] == hash[i - 1]) {
			/* a run: the same index, confirmed against the row before (equal to
			 * its entry's first row) */
			ix[i] = ix[i - 1];
			if (!str_eq(&s[i - 1], &s[i]))
				dict_ok = 0;
			continue;
		}
		uint32_t before = k;
		ix[i] = u64set_put(&h, hash[i], &k);
		if (k != before) {
			first[k - 1] = i;
			dictbytes += s[i].len + 1;
		} else if (!str_eq(&s[first[ix[i]]], &s[i])) {
			dict_ok = 0;
		}
		if (k >= DICT_MAX)
			dict_ok = 0;
	}
	if (dict_ok && k == 1) {
		uint8_t tag = ZS_CONST;
		zblk_buf_add(b, &tag, 1);
		zblk_put_varint(b, s[0].len);
		zblk_buf_add(b, s[0].p, s[0].len);
	} else if (dict_ok && dictbytes + n * (k <= 256 ? 1 : 2) < total + n) {
		uint8_t tag = ZS_DICT;
		zblk_buf_add(b, &tag, 1);
		zblk_put_varint(b, k);
		struct zblk_str *d = xmalloc(k * sizeof *d);
		for (uint32_t j = 0; j < k; j++)
			d[j] = s[first[j]];
		put_lengths(b, d, k);
		for (uint32_t j = 0; j < k; j++)
			zblk_buf_add(b, d[j].p, d[j].len);
		uint8_t *q = buf_room(b, 2 * n);
		for (size_t i = 0; i < n; i++) {
			*q++ = (uint8_t)ix[i];
			if (k > 256)
				*q++ = (uint8_t)(ix[i] >> 8);
		}
		b->len = (size_t)(q - b->p);
		free(d);
	} else {
		uint8_t tag = ZS_RAW;
		zblk_buf_add(b, &tag, 1);
		put_lengths(b, s, n);
		for (size_t i = 0; i < n; i++)
			zblk_buf_add(b, s[i].p, s[i].len);
	}
	free(first);
	free(ix);
	u64set_release(&h);
	free(hash);
}

/* Read n lengths and then their bytes into s. */
static int get_strings(struct zblk_reader *r, struct zblk_str *s, size_t n)
{
	int64_t *len = xmalloc((n ? n : 1) * sizeof *len);
	int rc = zblk_get_i64(r, len, NULL, n, NULL, NULL, 0);
	for (size_t i = 0; i < n && !rc; i++) {
		if (len[i] < 0 || (uint64_t)len[i] > r->len - r->pos)
			rc = bad(r);
		else
			rc = zblk_get_bytes(r, (size_t)len[i], &s[i].p);
		s[i].len = (size_t)len[i];
	}
	free(len);
	return rc;
}

int zblk_get_str(struct zblk_reader *r, struct zblk_str *s, size_t n)
{
	unsigned tag;
	uint64_t k;
	if (get_u8(r, &tag))
		return -1;
	if (tag == ZS_CONST) {
		const uint8_t *p;
		if (zblk_get_varint(r, &k) || k > r->len - r->pos || zblk_get_bytes(r, k, &p))
			return bad(r);
		for (size_t i = 0; i < n; i++) {
			s[i].p = p;
			s[i].len = k;
		}
		return 0;
	}
	if (tag == ZS_RAW)
		return get_strings(r, s, n);
	if (tag != ZS_DICT || zblk_get_varint(r, &k) || k == 0 || k > 65536)
		return bad(r);
	struct zblk_str *d = xmalloc(k * sizeof *d);
	const uint8_t *ix;
	int rc = get_strings(r, d, k);
	if (!rc)
		rc = zblk_get_bytes(r, n * (k <= 256 ? 1 : 2), &ix);
	for (size_t i = 0; i < n && !rc; i++) {
		uint64_t j = k <= 256 ? ix[i] : (uint64_t)ix[2 * i] | (uint64_t)ix[2 * i + 1] << 8;
		if (j >= k)
			rc = bad(r);
		else
			s[i] = d[j];
	}
	free(d);
	return rc;
}

/* Skip the bytes of n strings whose lengths come next (a raw column or a dictionary). */
static int skip_strings(struct zblk_reader *r, size_t n)
{
	int64_t *len = xmalloc((n ? n : 1) * sizeof *len);
	int rc = zblk_get_i64(r, len, NULL, n, NULL, NULL, 0);
	uint64_t total = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		if (len[i] < 0 || (uint64_t)len[i] > r->len - r->pos)
			rc = bad(r);
		total += (uint64_t)len[i];
	}
	free(len);
	const uint8_t *p;
	if (!rc && (total > r->len - r->pos || zblk_get_bytes(r, (size_t)total, &p)))
		rc = bad(r);
	return rc;
}

int zblk_skip_str(struct zblk_reader *r, size_t n)
{
	unsigned tag;
	uint64_t k;
	const uint8_t *p;
	if (get_u8(r, &tag))
		return -1;
	if (tag == ZS_CONST)
		return zblk_get_varint(r, &k) || k > r->len - r->pos || zblk_get_bytes(r, k, &p)
			       ? bad(r)
			       : 0;
	if (tag == ZS_RAW)
		return skip_strings(r, n);
	if (tag != ZS_DICT || zblk_get_varint(r, &k) || k == 0 || k > 65536)
		return bad(r);
	/* The indices are not checked against k: nothing reads them. */
	if (skip_strings(r, (size_t)k) || zblk_get_bytes(r, n * (k <= 256 ? 1 : 2), &p))
		return bad(r);
	return 0;
}

/* ---- text fields as numbers ---- */

void zblk_numsplit(const uint8_t *p, size_t n, struct zblk_str *pre, int64_t *num, uint8_t *nul,
		   int64_t *width, struct zblk_str *suf)
{
	size_t a = 0;
	while (a < n && (unsigned)(p[a] - '0') > 9)
		a++;
	size_t b = a;
	uint64_t u = 0; /* the digits' value, read as they are found (wraps past 19 digits) */
	for (unsigned d; (d = (unsigned)(p[b] - '0')) <= 9; b++)
		u = u * 10 + d;
	if (a == n || b - a > 18) {
		*pre = (struct zblk_str){p, n};
		*num = 0;
		*nul = 1;
		*width = 0;
		*suf = (struct zblk_str){p + n, 0};
		return;
	}
	int64_t v = (int64_t)u;
	int canonical = b - a == 1 || p[a] != '0';
	if (canonical && v != 0 && a > 0 && p[a - 1] == '-') {
		a--;
		v = -v;
	}
	*pre = (struct zblk_str){p, a};
	*num = v;
	*nul = 0;
	*width = canonical ? 0 : (int64_t)(b - a);
	*suf = (struct zblk_str){p + b, n - b};
}

int zblk_numjoin(char *out, size_t cap, const struct zblk_str *pre, int64_t num, int nul,
		 int64_t width, const struct zblk_str *suf)
{
	char t[32];
	int tl = 0;
	if (width < 0 || width > ZBLK_NUM_WIDTH_MAX)
		return -1;
	if (!nul)
		tl = snprintf(t, sizeof t, "%0*" PRId64, (int)width, num);
	size_t len = pre->len + (size_t)tl + suf->len;
	if (len >= cap)
		return -1;
	memcpy(out, pre->p, pre->len);
	memcpy(out + pre->len, t, (size_t)tl);
	memcpy(out + pre->len + tl, suf->p, suf->len);
	out[len] = '\0';
	return (int)len;
}

/* ---- sealed blocks ---- */

struct zblk_ctx {
	ZSTD_CCtx *cctx; /* reused for every block */
	ZSTD_DCtx *dctx;
	int level;
};

struct zblk_ctx *zblk_ctx_new(int level)
{
	struct zblk_ctx *z = xcalloc(1, sizeof *z);
	z->cctx = ZSTD_createCCtx();
	z->dctx = ZSTD_createDCtx();
	if (!z->cctx || !z->dctx)
		xmalloc(SIZE_MAX); /* dies with the out-of-memory message */
	z->level = level;
	return z;
}

void zblk_ctx_set_level(struct zblk_ctx *z, int level)
{
	assert(level >= 1 && level <= 22);
	z->level = level;
}

void zblk_ctx_free(struct zblk_ctx *z)
{
	if (!z)
		return;
	ZSTD_freeCCtx(z->cctx);
	ZSTD_freeDCtx(z->dctx);
	free(z);
}

static void put_u64le(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

int zblk_seal(struct zblk_ctx *z, int kind, uint64_t rows, const void *raw, size_t rawlen,
	      struct zblk_buf *out, struct err *e)
{
	assert(kind >= 1 && kind <= ZBLK_KIND_MAX);
	size_t start = out->len, bound = ZSTD_compressBound(rawlen);
	if (ZSTD_isError(bound))
		return err_set(e, VF_EIO, "block of %zu bytes: too large to compress", rawlen);
	uint8_t *tmp = xmalloc(bound);
	size_t clen = ZSTD_compressCCtx(z->cctx, tmp, bound, raw, rawlen, z->level);
	if (ZSTD_isError(clen)) {
		free(tmp);
		return err_set(e, VF_EIO, "zstd: %s", ZSTD_getErrorName(clen));
	}
	int use = clen < rawlen;
	uint8_t h[3] = {BLK_MAGIC, (uint8_t)kind, (uint8_t)use};
	zblk_buf_add(out, h, 3);
	zblk_put_varint(out, rows);
	zblk_put_varint(out, rawlen);
	zblk_put_varint(out, use ? clen : rawlen);
	uint64_t sum = fnv1a(FNV_INIT, out->p + start, out->len - start);
	const void *pay = use ? (const void *)tmp : raw;
	size_t plen = use ? clen : rawlen;
	sum = fnv1a(sum, pay, plen);
	uint8_t cs[8];
	put_u64le(cs, sum);
	zblk_buf_add(out, cs, 8);
	zblk_buf_add(out, pay, plen);
	free(tmp);
	return 0;
}

/* Parse the header; returns the header length (payload offset) or 0 if malformed. */
static size_t parse_header(const void *blob, size_t n, struct zblk_info *info)
{
	struct zblk_reader r;
	const uint8_t *h;
	zblk_reader_init(&r, blob, n);
	if (zblk_get_bytes(&r, 3, &h) || h[0] != BLK_MAGIC || h[1] < 1 || h[1] > ZBLK_KIND_MAX ||
	    h[2] > 1)
		return 0;
	info->kind = h[1];
	info->zstd = h[2];
	if (zblk_get_varint(&r, &info->rows) || zblk_get_varint(&r, &info->raw_len) ||
	    zblk_get_varint(&r, &info->comp_len) || zblk_get_bytes(&r, 8, &h))
		return 0;
	info->checksum = 0;
	for (int i = 0; i < 8; i++)
		info->checksum |= (uint64_t)h[i] << (8 * i);
	if (info->comp_len != n - r.pos || (!info->zstd && info->raw_len != info->comp_len))
		return 0;
	return r.pos;
}

int zblk_peek(const void *blob, size_t n, struct zblk_info *info)
{
	return parse_header(blob, n, info) ? 0 : -1;
}

int zblk_open(struct zblk_ctx *z, const void *blob, size_t n, struct zblk_info *info,
	      struct zblk_buf *raw, struct err *e)
{
	struct zblk_info tmp;
	if (!info)
		info = &tmp;
	size_t off = parse_header(blob, n, info);
	if (!off)
		return err_set(e, VF_ESTORE, "block header is damaged");
	const uint8_t *p = blob;
	uint64_t sum = fnv1a(FNV_INIT, p, off - 8);
	sum = fnv1a(sum, p + off, n - off);
	if (sum != info->checksum)
		return err_set(e, VF_ESTORE, "block checksum mismatch (%016llx, expected %016llx)",
			       (unsigned long long)sum, (unsigned long long)info->checksum);
	zblk_buf_reset(raw);
	/* The sizes are checked before anything is allocated: the checksum is no seal (anyone
	 * can compute it), and a header may claim a terabyte. */
	unsigned long long fcs = info->zstd ? ZSTD_getFrameContentSize(p + off, n - off) : 0;
	if (info->zstd && (fcs == ZSTD_CONTENTSIZE_UNKNOWN || fcs == ZSTD_CONTENTSIZE_ERROR))
		return err_set(e, VF_ESTORE, "block: zstd frame with no content size");
	if (info->zstd && fcs != info->raw_len)
		return err_set(e, VF_ESTORE, "block frame holds %llu bytes, the header says %llu",
			       fcs, (unsigned long long)info->raw_len);
	if (info->raw_len > (uint64_t)1 << 40 ||
	    info->raw_len / ZBLK_ZSTD_RATIO_MAX > info->comp_len)
		return err_set(
			e, VF_ESTORE,
			"block claims %llu bytes, more than its %llu bytes of zstd inflate to",
			(unsigned long long)info->raw_len, (unsigned long long)info->comp_len);
	xgrow(&raw->p, &raw->cap, (size_t)info->raw_len + 1, 1);
	if (!info->zstd) {
		zblk_buf_add(raw, p + off, n - off);
		return 0;
	}
	size_t got = ZSTD_decompressDCtx(z->dctx, raw->p, raw->cap, p + off, n - off);
	if (ZSTD_isError(got))
		return err_set(e, VF_ESTORE, "block: zstd: %s", ZSTD_getErrorName(got));
	if (got != info->raw_len)
		return err_set(e, VF_ESTORE, "block inflated to %zu bytes, expected %llu", got,
			       (unsigned long long)info->raw_len);
	raw->len = got;
	return 0;
}
