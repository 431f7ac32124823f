/*
 * store-shape.c — which fields of a text block's lines are coded jointly (store-raw.c).
 *
 * A trace's lines repeat a few request shapes: the cpu, memory, GPUs and class of a job go
 * together, and so do the role, app and limits of an instance. Coded a column at a time,
 * each of those fields pays for its own choice on every line; coded as one, a line pays for
 * one choice among the shapes the block holds, and each shape's fields are written once.
 *
 * raw_shape_plan proposes a set of fields from a guess of what each costs (choice_bits: the
 * lines' choices where they change from the line before, order 0, as a compressor that
 * sees runs pays for them). A field with more distinct texts than a quarter of the lines is
 * never taken (times, names, ids), nor is a set grown past that many shapes; of the others,
 * only the RAW_SHAPE_CAND costliest alone are considered, so that a file of many fields
 * plans in about the time its lines take to split. It starts from the pair of fields that
 * gains most (among the RAW_SHAPE_PAIRS costliest), a shape's fields then costing the
 * choice of a shape plus, per shape, each field's choice among its distinct texts, and adds
 * each other field that gains, the cheapest alone first. A set of fewer than two fields is
 * no set: one field alone is what a column's own dictionary does already. The guess only
 * proposes: the text writer codes a planned block both ways and keeps the smaller
 * (store-raw.c). raw_shape_follow groups a later block by the fields a plan chose.
 *
 * The shapes are numbered by how many lines have them, most first (ties by their first
 * line), so the common ones take the small numbers. Everything here depends only on the
 * lines' bytes: a block codes the same whichever thread codes it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store-int.h"

#define RAW_SHAPE_CAND  24 /* fields a plan considers at most */
#define RAW_SHAPE_PAIRS 12 /* of which it tries in pairs */

void raw_shape_free(struct raw_shape *sh)
{
	FREE_ALL(sh->sel, sh->idx, sh->rep, sh->tmp, sh->trep, sh->tcnt, sh->table, sh->hash);
	memset(sh, 0, sizeof *sh);
}

static uint64_t hash_bytes(const uint8_t *p, size_t n, uint64_t h)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	h = (h ^ n) * 0x9e3779b97f4a7c15ULL;
	return h ^ h >> 31;
}

/* Room for blocks of ns lines. */
static void reserve(struct raw_shape *sh, size_t ns)
{
	if (ns <= sh->cap)
		return;
	FREE_ALL(sh->idx, sh->rep, sh->tmp, sh->trep, sh->tcnt, sh->table, sh->hash);
	sh->cap = ns;
	for (sh->tsize = 16; sh->tsize < 2 * ns;)
		sh->tsize *= 2;
	sh->idx = xmalloc(ns * sizeof *sh->idx);
	sh->rep = xmalloc(ns * sizeof *sh->rep);
	sh->tmp = xmalloc(ns * sizeof *sh->tmp);
	sh->trep = xmalloc(ns * sizeof *sh->trep);
	sh->tcnt = xmalloc(ns * sizeof *sh->tcnt);
	sh->hash = xmalloc(ns * sizeof *sh->hash);
	sh->table = xmalloc(sh->tsize * sizeof *sh->table);
}

/* Group the ns lines by (prev[i], the text of col[i]) (prev NULL: by the text alone):
 * out[i] the group of line i, rep[g] its first line, numbered in order of first line.
 * Returns the number of groups, or 0 when there would be more than cap. */
static size_t group_by(struct raw_shape *sh, const struct zblk_str *col, size_t ns,
		       const uint32_t *prev, uint32_t *out, uint32_t *rep, size_t cap)
{
	size_t mask = sh->tsize - 1, k = 0;
	uint32_t *table = sh->table; /* group + 1, 0: empty */
	memset(table, 0, sh->tsize * sizeof *table);
	for (size_t i = 0; i < ns; i++) {
		uint64_t seed =
			0xcbf29ce484222325ULL ^ (prev ? prev[i] * 0xff51afd7ed558ccdULL : 0);
		uint64_t h = hash_bytes(col[i].p, col[i].len, seed);
		for (size_t at = (size_t)h & mask;; at = (at + 1) & mask) {
			uint32_t g = table[at];
			if (!g) {
				if (k == cap)
					return 0;
				table[at] = (uint32_t)++k;
				sh->hash[k - 1] = h;
				rep[k - 1] = (uint32_t)i;
				out[i] = (uint32_t)(k - 1);
				break;
			}
			const struct zblk_str *r = &col[rep[g - 1]];
			if (sh->hash[g - 1] == h && (!prev || prev[rep[g - 1]] == prev[i]) &&
			    r->len == col[i].len && !memcmp(r->p, col[i].p, r->len)) {
				out[i] = g - 1;
				break;
			}
		}
	}
	return k;
}

/* The guessed bits of the lines' choices among k groups (out): where a line's group is
 * not the line before's, whether it changes and which group, order 0. chg: k of scratch. */
static double choice_bits(const uint32_t *out, size_t ns, size_t k, uint32_t *chg)
{
	size_t m = 0;
	memset(chg, 0, k * sizeof *chg);
	for (size_t i = 0; i < ns; i++)
		if (!i || out[i] != out[i - 1]) {
			chg[out[i]]++;
			m++;
		}
	double p = (double)m / (double)ns, b = 0;
	if (p < 1)
		b = (double)ns * -(p * log2(p) + (1 - p) * log2(1 - p));
	for (size_t g = 0; g < k; g++)
		if (chg[g])
			b += chg[g] * log2((double)m / chg[g]);
	return b;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Number sh's k groups of sh->idx most lines first, ties by first line. */
static void renumber(struct raw_shape *sh, size_t ns, size_t k)
{
	uint64_t *key = sh->hash; /* (UINT32_MAX - lines) << 32 | first line */
	uint32_t *cnt = sh->tcnt;
	memset(cnt, 0, k * sizeof *cnt);
	for (size_t i = 0; i < ns; i++)
		cnt[sh->idx[i]]++;
	for (size_t g = 0; g < k; g++)
		key[g] = (uint64_t)(UINT32_MAX - cnt[g]) << 32 | sh->rep[g];
	qsort(key, k, sizeof *key, cmp_u64);
	for (size_t g = 0; g < k; g++) {
		uint32_t r = (uint32_t)key[g];
		sh->tmp[sh->idx[r]] = (uint32_t)g; /* old number -> new */
		sh->trep[g] = r;
	}
	for (size_t i = 0; i < ns; i++)
		sh->idx[i] = sh->tmp[sh->idx[i]];
	memcpy(sh->rep, sh->trep, k * sizeof *sh->rep);
	sh->k = k;
}

#define SWAP(a, b)                                                                                 \
	do {                                                                                       \
		uint32_t *t_ = (a);                                                                \
		(a) = (b);                                                                         \
		(b) = t_;                                                                          \
	} while (0)

void raw_shape_plan(struct raw_shape *sh, const struct zblk_str *field, size_t stride, size_t ns,
		    size_t ncols)
{
	size_t cap = ns / 4;
	sh->nsel = sh->k = 0;
	if (ns < 16 || ncols < 2)
		return;
	reserve(sh, ns);
	if (ncols > sh->selcap) {
		free(sh->sel);
		sh->selcap = ncols;
		sh->sel = xmalloc(ncols * sizeof *sh->sel);
	}
	/* each field alone: the bits of its choices, log2 of its distinct texts; the
	 * candidates (neither constant nor too varied) by those bits, fewest first */
	double *alone = xmalloc(ncols * sizeof *alone), *lk = xmalloc(ncols * sizeof *lk);
	size_t *cand = xmalloc(ncols * sizeof *cand), nc = 0;
	for (size_t c = 0; c < ncols; c++) {
		size_t k = group_by(sh, field + c * stride, ns, NULL, sh->tmp, sh->trep, cap);
		if (k < 2)
			continue;
		alone[c] = choice_bits(sh->tmp, ns, k, sh->tcnt);
		lk[c] = log2((double)k);
		size_t at = nc++;
		for (; at > 0 && alone[cand[at - 1]] > alone[c]; at--)
			cand[at] = cand[at - 1];
		cand[at] = c;
	}
	/* only the costliest candidates, which have the most to gain: the pairs are tried among
	 * the RAW_SHAPE_PAIRS costliest, the rest among the RAW_SHAPE_CAND costliest (a wide
	 * file's plan costs about what its splitting does) */
	if (nc > RAW_SHAPE_CAND) {
		memmove(cand, cand + nc - RAW_SHAPE_CAND, RAW_SHAPE_CAND * sizeof *cand);
		nc = RAW_SHAPE_CAND;
	}
	size_t p0 = nc > RAW_SHAPE_PAIRS ? nc - RAW_SHAPE_PAIRS : 0;
	/* the pair that gains most */
	size_t pa = 0, pb = 0, k = 0, nsel = 0;
	double best = 0;
	for (size_t x = p0; x < nc; x++) {
		size_t a = cand[x];
		group_by(sh, field + a * stride, ns, NULL, sh->idx, sh->rep, cap);
		for (size_t y = x + 1; y < nc; y++) {
			size_t b = cand[y];
			size_t kn = group_by(sh, field + b * stride, ns, sh->idx, sh->tmp, sh->trep,
					     cap);
			if (!kn)
				continue;
			double gain = alone[a] + alone[b] - choice_bits(sh->tmp, ns, kn, sh->tcnt) -
				      kn * (lk[a] + lk[b]);
			if (gain > best) {
				best = gain;
				pa = a;
				pb = b;
			}
		}
	}
	double cost = 0, idxbits = 0;
	if (best > 0) {
		group_by(sh, field + pa * stride, ns, NULL, sh->tmp, sh->trep, cap);
		k = group_by(sh, field + pb * stride, ns, sh->tmp, sh->idx, sh->rep, cap);
		cost = choice_bits(sh->idx, ns, k, sh->tcnt);
		idxbits = lk[pa] + lk[pb];
		sh->sel[nsel++] = pa;
		sh->sel[nsel++] = pb;
	}
	/* then each other candidate that gains, fewest bits first */
	for (size_t x = 0; x < nc && nsel; x++) {
		size_t c = cand[x];
		if (c == pa || c == pb)
			continue;
		size_t kn = group_by(sh, field + c * stride, ns, sh->idx, sh->tmp, sh->trep, cap);
		if (!kn)
			continue;
		double with = choice_bits(sh->tmp, ns, kn, sh->tcnt);
		if (with - cost + kn * (idxbits + lk[c]) - k * idxbits >= alone[c])
			continue;
		SWAP(sh->idx, sh->tmp);
		SWAP(sh->rep, sh->trep);
		k = kn;
		cost = with;
		idxbits += lk[c];
		sh->sel[nsel++] = c;
	}
	FREE_ALL(alone, lk, cand);
	if (nsel < 2)
		return;
	for (size_t a = 1; a < nsel; a++) /* fields in column order */
		for (size_t b = a; b > 0 && sh->sel[b - 1] > sh->sel[b]; b--) {
			size_t t = sh->sel[b];
			sh->sel[b] = sh->sel[b - 1];
			sh->sel[b - 1] = t;
		}
	sh->nsel = nsel;
	renumber(sh, ns, k);
}

int raw_shape_follow(struct raw_shape *sh, const struct zblk_str *field, size_t stride, size_t ns)
{
	size_t k = 0;
	if (!sh->nsel || ns < 16)
		return 0;
	reserve(sh, ns);
	for (size_t x = 0; x < sh->nsel; x++) {
		k = group_by(sh, field + sh->sel[x] * stride, ns, x ? sh->idx : NULL, sh->tmp,
			     sh->trep, ns / 4);
		if (!k)
			return 0;
		SWAP(sh->idx, sh->tmp);
		SWAP(sh->rep, sh->trep);
	}
	renumber(sh, ns, k);
	return 1;
}
