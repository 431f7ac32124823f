/* test-zblk.c — column codecs round trip (every codec, NULLs, empty, extremes, references)
 * and sealed blocks detect damage. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "zblk.h"

struct fx {
	struct zblk_buf b, sealed, raw;
	struct zblk_ctx *z;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	f->z = zblk_ctx_new(3);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	zblk_buf_release(&f->b);
	zblk_buf_release(&f->sealed);
	zblk_buf_release(&f->raw);
	zblk_ctx_free(f->z);
	free(f);
	return 0;
}

/* Encode v/nul (n rows), decode, compare; returns the encoded size (tag byte first). */
static size_t roundtrip(struct fx *f, const int64_t *v, const uint8_t *nul, size_t n,
			const int64_t *const *refs, const uint8_t *const *refnul, int nref)
{
	zblk_buf_reset(&f->b);
	zblk_put_i64(&f->b, v, nul, n, refs, refnul, nref);
	assert_true(f->b.len <= zblk_i64_max(n));
	int64_t *out = calloc(n + 1, sizeof *out);
	uint8_t *onul = calloc(n + 1, 1);
	struct zblk_reader r;
	zblk_reader_init(&r, f->b.p, f->b.len);
	assert_int_equal(zblk_get_i64(&r, out, onul, n, refs, refnul, nref), 0);
	assert_int_equal(r.pos, f->b.len);
	for (size_t i = 0; i < n; i++) {
		int isnul = nul && nul[i];
		assert_int_equal(onul[i], isnul);
		if (!isnul)
			assert_true(out[i] == v[i]);
	}
	free(out);
	free(onul);
	return f->b.len;
}

static int codec_of(const struct fx *f)
{
	return f->b.p[0] & 7;
}

static void test_int_codecs(void **state)
{
	struct fx *f = *state;
	enum { N = 1000 };
	int64_t v[N];
	for (int i = 0; i < N; i++) /* constant */
		v[i] = -42;
	assert_true(roundtrip(f, v, NULL, N, NULL, NULL, 0) < 8);
	assert_int_equal(codec_of(f), 0);
	for (int i = 0; i < N; i++) /* a steady count: delta */
		v[i] = 1000000000 + 7 * i;
	roundtrip(f, v, NULL, N, NULL, NULL, 0);
	assert_int_equal(codec_of(f), 2);
	for (int i = 0; i < N; i++) /* a few big values: dictionary */
		v[i] = (int64_t)((i * 7919) % 5) * 1000000007LL;
	roundtrip(f, v, NULL, N, NULL, NULL, 0);
	assert_int_equal(codec_of(f), 3);
	for (int i = 0; i < N; i++) /* small scattered values: plain */
		v[i] = (i * 7919) % 100 - 50;
	roundtrip(f, v, NULL, N, NULL, NULL, 0);
	assert_int_equal(codec_of(f), 1);
	for (int i = 0; i < N; i++) /* more distinct values than one byte indexes */
		v[i] = ((int64_t)(i % 300) << 40);
	roundtrip(f, v, NULL, N, NULL, NULL, 0);
}

static void test_nulls_and_extremes(void **state)
{
	struct fx *f = *state;
	int64_t v[] = {INT64_MIN, 0, INT64_MAX, 0, -1, 1, INT64_MIN, INT64_MAX, 0};
	uint8_t nul[] = {0, 1, 0, 0, 0, 1, 0, 0, 1};
	size_t n = sizeof v / sizeof *v;
	roundtrip(f, v, NULL, n, NULL, NULL, 0);
	roundtrip(f, v, nul, n, NULL, NULL, 0); /* NULL stays distinct from 0 */
	uint8_t all[9];
	memset(all, 1, sizeof all);
	roundtrip(f, v, all, n, NULL, NULL, 0);
	roundtrip(f, v, NULL, 0, NULL, NULL, 0); /* an empty column */
	/* Deltas that overflow int64 wrap and come back. */
	int64_t w[] = {INT64_MAX, INT64_MIN, INT64_MAX, INT64_MIN, 0};
	roundtrip(f, w, NULL, 5, NULL, NULL, 0);
}

static void test_nulls_need_a_bitmap_to_read(void **state)
{
	struct fx *f = *state;
	int64_t v[] = {1, 2, 3};
	uint8_t nul[] = {0, 1, 0};
	zblk_put_i64(&f->b, v, nul, 3, NULL, NULL, 0);
	int64_t out[3];
	struct zblk_reader r;
	zblk_reader_init(&r, f->b.p, f->b.len);
	assert_int_equal(zblk_get_i64(&r, out, NULL, 3, NULL, NULL, 0), -1);
	assert_true(r.bad);
}

static void test_references(void **state)
{
	struct fx *f = *state;
	enum { N = 2000 };
	static int64_t created[N], scheduled[N], ms[N];
	static uint8_t snul[N];
	uint32_t x = 12345;
	for (int i = 0; i < N; i++) {
		x = x * 1103515245 + 12345;
		created[i] = (int64_t)(x >> 8);
		scheduled[i] = created[i] + (x >> 28);
		snul[i] = i % 17 == 0;
		ms[i] = created[i] * 1000;
	}
	size_t alone = roundtrip(f, scheduled, snul, N, NULL, NULL, 0);
	const int64_t *refs[] = {created};
	size_t against = roundtrip(f, scheduled, snul, N, refs, NULL, 1);
	assert_true(against * 2 < alone); /* near copies cost little */
	assert_int_equal(f->b.p[1], 1);   /* and use the reference */
	const uint8_t *rn[] = {snul};
	const int64_t *refs2[] = {scheduled};
	roundtrip(f, created, NULL, N, refs2, rn, 1); /* NULL reference rows */
	/* NULL rows in both the column and its reference: still coded against it */
	static uint8_t cnul[N];
	for (int i = 0; i < N; i++)
		cnul[i] = i % 5 == 0;
	size_t both = roundtrip(f, created, cnul, N, refs2, rn, 1);
	assert_int_equal(f->b.p[1], 1);
	assert_true(both * 2 < roundtrip(f, created, cnul, N, NULL, NULL, 0));
	/* A scaled copy (seconds to ms) is coded as the reference times a multiplier. */
	assert_true(roundtrip(f, ms, NULL, N, refs, NULL, 1) < 16);
}

/* Encode v (n rows, no NULL) against refs under plan p, decode, compare; returns the size. */
static size_t plan_roundtrip(struct fx *f, const int64_t *v, size_t n, const int64_t *const *refs,
			     int nref, struct zblk_plan *p)
{
	zblk_buf_reset(&f->b);
	zblk_put_i64_plan(&f->b, v, NULL, n, refs, NULL, nref, p);
	int64_t *out = calloc(n + 1, sizeof *out);
	struct zblk_reader r;
	zblk_reader_init(&r, f->b.p, f->b.len);
	assert_int_equal(zblk_get_i64(&r, out, NULL, n, refs, NULL, nref), 0);
	assert_int_equal(r.pos, f->b.len);
	for (size_t i = 0; i < n; i++)
		assert_true(out[i] == v[i]);
	free(out);
	return f->b.len;
}

/* A plan is followed while it stays as cheap, searched again when its block costs much
 * more, after ZBLK_PLAN_USES uses, or when its reference is not offered. */
static void test_plans(void **state)
{
	struct fx *f = *state;
	enum { N = 2000 };
	static int64_t noise[N], ref[N], v[N];
	uint64_t s = 12345;
	struct zblk_plan p = {0};
	const int64_t *refs[2] = {noise, ref};
	for (int blk = 0; blk < 2; blk++) {
		for (int i = 0; i < N; i++) {
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			noise[i] = (int64_t)(s >> 40);
			ref[i] = (int64_t)(s >> 20) % 1000003;
			v[i] = 3 * ref[i] + 5; /* a multiple of ref plus a constant */
		}
		size_t sz = plan_roundtrip(f, v, N, refs, 2, &p);
		assert_int_equal(p.ref, 1);
		assert_int_equal(p.uses, blk); /* searched on the first block, then followed */
		assert_int_equal(p.rows, N);
		/* followed or searched, the same bytes as a search here */
		struct zblk_buf b = {0};
		zblk_put_i64(&b, v, NULL, N, refs, NULL, 2);
		assert_int_equal(b.len, sz);
		assert_memory_equal(b.p, f->b.p, sz);
		zblk_buf_release(&b);
	}
	for (int i = 0; i < N; i++) /* now a copy of the other column: the plan costs more */
		v[i] = noise[i];
	zblk_buf_reset(&f->b);
	assert_true(zblk_plan_usable(&p, 2));
	assert_false(zblk_plan_usable(&p, 1)); /* its reference not offered */
	assert_false(zblk_plan_usable(NULL, 2));
	assert_int_equal(zblk_put_i64_follow(&f->b, v, NULL, N, refs, NULL, 2, &p), -1);
	assert_int_equal(f->b.len, 0); /* nothing written when it does not follow */
	assert_int_equal(p.uses, 1);
	assert_true(plan_roundtrip(f, v, N, refs, 2, &p) < 16);
	assert_int_equal(p.ref, 0);
	assert_int_equal(p.uses, 0);
	for (int u = 1; u <= ZBLK_PLAN_USES + 1; u++) { /* followed, then searched again */
		plan_roundtrip(f, v, N, refs, 2, &p);
		assert_int_equal(p.uses, u <= ZBLK_PLAN_USES ? u : 0);
	}
	p.ref = 1; /* a reference not offered: searched */
	plan_roundtrip(f, ref, N, refs, 1, &p);
	assert_int_equal(p.ref, -1);
	assert_int_equal(p.uses, 0);
	/* a plan without a reference, followed: the same bytes as a search */
	for (int i = 0; i < N; i++)
		v[i] = i % 3;
	struct zblk_plan q = {0};
	plan_roundtrip(f, v, N, refs, 0, &q);
	size_t sz = plan_roundtrip(f, v, N, refs, 0, &q);
	assert_int_equal(q.uses, 1);
	struct zblk_buf b = {0};
	zblk_put_i64(&b, v, NULL, N, NULL, NULL, 0);
	assert_int_equal(b.len, sz);
	assert_memory_equal(b.p, f->b.p, sz);
	zblk_buf_release(&b);
	plan_roundtrip(f, v, 0, refs, 2, &p); /* no rows */
	struct zblk_plan none = {0};
	assert_int_equal(zblk_put_i64_follow(&f->b, v, NULL, N, refs, NULL, 2, &none), -1);
}

/* Dictionary columns (few values, in runs), alone and against a reference, searched and then
 * followed by a plan: they come back, and a followed block has the bytes a search gives. */
static void test_dictionary_columns(void **state)
{
	struct fx *f = *state;
	enum { N = 2000 };
	static int64_t noise[N], v[N], w[N];
	uint64_t s = 777;
	for (int blk = 0; blk < 3; blk++) {
		struct zblk_plan alone = {0}, against = {0};
		for (int i = 0; i < N; i++) {
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			noise[i] = (int64_t)(s >> 24);
			v[i] = ((i + blk) / 3 % 7) * 1000 + 11; /* runs of 3 of 7 values */
			w[i] = noise[i] + v[i];                 /* noise plus those values */
		}
		const int64_t *refs[1] = {noise};
		for (int twice = 0; twice < 2; twice++) { /* searched, then followed */
			size_t sz = plan_roundtrip(f, v, N, refs, 0, &alone);
			assert_int_equal(codec_of(f), 3); /* ZC_DICT */
			struct zblk_buf b = {0};
			zblk_put_i64(&b, v, NULL, N, NULL, NULL, 0);
			assert_int_equal(b.len, sz);
			assert_memory_equal(b.p, f->b.p, sz);
			sz = plan_roundtrip(f, w, N, refs, 1, &against);
			assert_int_equal(codec_of(f), 3);
			assert_int_equal(f->b.p[1], 1); /* against noise */
			zblk_buf_reset(&b);
			zblk_put_i64(&b, w, NULL, N, refs, NULL, 1);
			assert_int_equal(b.len, sz);
			assert_memory_equal(b.p, f->b.p, sz);
			zblk_buf_release(&b);
		}
		assert_int_equal(alone.uses, 1);
		assert_int_equal(against.uses, 1);
		roundtrip(f, w, NULL, N, refs, NULL, 1); /* and read back without a plan */
	}
}

static void test_strings(void **state)
{
	struct fx *f = *state;
	const char *words[] = {"LS", "BE", "", "Running", "a,b\"c\r\n", "BE", "LS", "LS"};
	enum { N = 8 };
	struct zblk_str s[N], out[N];
	for (int i = 0; i < N; i++)
		s[i] = (struct zblk_str){(const uint8_t *)words[i], strlen(words[i])};
	for (int variant = 0; variant < 3; variant++) {
		size_t n = variant == 0 ? N : variant == 1 ? 1 : 0;
		zblk_buf_reset(&f->b);
		zblk_put_str(&f->b, s, n);
		struct zblk_reader r;
		zblk_reader_init(&r, f->b.p, f->b.len);
		assert_int_equal(zblk_get_str(&r, out, n), 0);
		assert_int_equal(r.pos, f->b.len);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(out[i].len, s[i].len);
			if (s[i].len)
				assert_memory_equal(out[i].p, s[i].p, s[i].len);
		}
	}
	/* Empty strings: a column of them, one with a last non-empty, and no rows at all
	 * (s not even read then). */
	const struct zblk_str e3[3] = {
		{(const uint8_t *)"", 0}, {(const uint8_t *)"", 0}, {(const uint8_t *)"x", 1}};
	for (int variant = 0; variant < 3; variant++) {
		size_t n = variant == 2 ? 0 : variant == 1 ? 3 : 2;
		zblk_buf_reset(&f->b);
		zblk_put_str(&f->b, variant == 2 ? NULL : e3, n);
		if (variant == 0)
			assert_int_equal(f->b.p[0], 0); /* constant */
		struct zblk_reader r;
		zblk_reader_init(&r, f->b.p, f->b.len);
		assert_int_equal(zblk_get_str(&r, out, n), 0);
		assert_int_equal(r.pos, f->b.len);
		for (size_t i = 0; i < n; i++)
			assert_int_equal(out[i].len, e3[i].len);
		if (variant == 1)
			assert_memory_equal(out[2].p, "x", 1);
	}
	/* Many distinct long strings: raw; binary bytes (NUL) survive. */
	enum { M = 5000 };
	struct zblk_str *many = calloc(M, sizeof *many), *back = calloc(M, sizeof *back);
	char *text = malloc(M * 16);
	for (int i = 0; i < M; i++) {
		int l = snprintf(text + i * 16, 16, "x%d", i * 31);
		text[i * 16 + 1] = i % 2 ? '\0' : 'y';
		many[i] = (struct zblk_str){(const uint8_t *)text + i * 16, (size_t)l};
	}
	zblk_buf_reset(&f->b);
	zblk_put_str(&f->b, many, M);
	assert_int_equal(f->b.p[0], 2); /* raw */
	struct zblk_reader r;
	zblk_reader_init(&r, f->b.p, f->b.len);
	assert_int_equal(zblk_get_str(&r, back, M), 0);
	for (int i = 0; i < M; i++) {
		assert_int_equal(back[i].len, many[i].len);
		assert_memory_equal(back[i].p, many[i].p, many[i].len);
	}
	free(many);
	free(back);
	free(text);
}

/* Strings of every length up to 24 that differ from the others of their column in one byte
 * only, at each position (the comparisons of short strings load overlapping words). */
static void test_strings_one_byte_apart(void **state)
{
	struct fx *f = *state;
	enum { N = 40 };
	char base[32], odd[32];
	struct zblk_str s[N], out[N];
	for (size_t len = 1; len <= 24; len++)
		for (size_t k = 0; k < len; k++)
			for (int where = 0; where < 2; where++) { /* the odd row inside, or last */
				for (size_t i = 0; i < len; i++)
					base[i] = odd[i] = (char)('a' + i % 26);
				odd[k] = 'Z';
				size_t at = where ? N - 1 : N / 2;
				for (size_t i = 0; i < N; i++)
					s[i] = (struct zblk_str){
						(const uint8_t *)(i == at ? odd : base), len};
				zblk_buf_reset(&f->b);
				zblk_put_str(&f->b, s, N);
				assert_int_not_equal(f->b.p[0], 0); /* not constant */
				struct zblk_reader r;
				zblk_reader_init(&r, f->b.p, f->b.len);
				assert_int_equal(zblk_get_str(&r, out, N), 0);
				for (size_t i = 0; i < N; i++) {
					assert_int_equal(out[i].len, len);
					assert_memory_equal(out[i].p, s[i].p, len);
				}
			}
}

static void test_seal_open(void **state)
{
	struct fx *f = *state;
	char raw[5000];
	for (size_t i = 0; i < sizeof raw; i++)
		raw[i] = (char)("abcabcabd"[i % 9]);
	struct err e = {0};
	assert_int_equal(zblk_seal(f->z, ZBLK_BYTES, sizeof raw, raw, sizeof raw, &f->sealed, &e),
			 0);
	assert_true(f->sealed.len < sizeof raw / 4);
	struct zblk_info info;
	assert_int_equal(zblk_open(f->z, f->sealed.p, f->sealed.len, &info, &f->raw, &e), 0);
	assert_int_equal(info.kind, ZBLK_BYTES);
	assert_int_equal(info.rows, sizeof raw);
	assert_int_equal(info.raw_len, sizeof raw);
	assert_int_equal(info.comp_len + 0, info.comp_len);
	assert_true(info.zstd);
	assert_int_equal(f->raw.len, sizeof raw);
	assert_memory_equal(f->raw.p, raw, sizeof raw);
	/* Incompressible bytes are stored as they are. */
	uint8_t noise[300];
	uint32_t x = 1;
	for (size_t i = 0; i < sizeof noise; i++)
		noise[i] = (uint8_t)((x = x * 1664525 + 1013904223) >> 24);
	zblk_buf_reset(&f->sealed);
	assert_int_equal(zblk_seal(f->z, ZBLK_BYTES, 300, noise, 300, &f->sealed, &e), 0);
	assert_int_equal(zblk_open(f->z, f->sealed.p, f->sealed.len, &info, &f->raw, &e), 0);
	assert_false(info.zstd);
	assert_memory_equal(f->raw.p, noise, 300);
	/* An empty block. */
	zblk_buf_reset(&f->sealed);
	assert_int_equal(zblk_seal(f->z, ZBLK_JOBS, 0, "", 0, &f->sealed, &e), 0);
	assert_int_equal(zblk_open(f->z, f->sealed.p, f->sealed.len, &info, &f->raw, &e), 0);
	assert_int_equal(f->raw.len, 0);
}

static void test_damage_detected(void **state)
{
	struct fx *f = *state;
	char raw[2000];
	for (size_t i = 0; i < sizeof raw; i++)
		raw[i] = (char)('a' + i % 13);
	struct err e = {0};
	assert_int_equal(zblk_seal(f->z, ZBLK_RAWTEXT, 7, raw, sizeof raw, &f->sealed, &e), 0);
	/* Flip each byte in turn: the header, the checksum or the payload. */
	for (size_t i = 0; i < f->sealed.len; i++) {
		f->sealed.p[i] ^= 0x20;
		memset(&e, 0, sizeof e);
		assert_int_not_equal(zblk_open(f->z, f->sealed.p, f->sealed.len, NULL, &f->raw, &e),
				     0);
		assert_int_equal(e.code, VF_ESTORE);
		assert_true(e.msg[0] != '\0');
		f->sealed.p[i] ^= 0x20;
	}
	/* Truncated. */
	assert_int_not_equal(zblk_open(f->z, f->sealed.p, f->sealed.len - 1, NULL, &f->raw, &e), 0);
	assert_int_not_equal(zblk_open(f->z, f->sealed.p, 3, NULL, &f->raw, &e), 0);
	assert_int_equal(zblk_open(f->z, f->sealed.p, f->sealed.len, NULL, &f->raw, &e), 0);
	assert_memory_equal(f->raw.p, raw, sizeof raw);
}

/* A sealed block as a forger makes it: header, a checksum anyone can compute, payload. */
static void forge(struct zblk_buf *out, int kind, uint64_t rows, uint64_t raw_len,
		  const uint8_t *pay, size_t n)
{
	uint8_t h[3] = {0xB7, (uint8_t)kind, 1};
	zblk_buf_reset(out);
	zblk_buf_add(out, h, 3);
	zblk_put_varint(out, rows);
	zblk_put_varint(out, raw_len);
	zblk_put_varint(out, n);
	uint64_t sum = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < out->len; i++)
		sum = (sum ^ out->p[i]) * 0x100000001b3ull;
	for (size_t i = 0; i < n; i++)
		sum = (sum ^ pay[i]) * 0x100000001b3ull;
	for (int i = 0; i < 8; i++) {
		uint8_t c = (uint8_t)(sum >> (8 * i));
		zblk_buf_add(out, &c, 1);
	}
	zblk_buf_add(out, pay, n);
}

/* A forged block that claims 2^40 bytes is refused before anything is allocated (it died
 * "out of memory"): its zstd frame says so too but is far too small to inflate to that, or
 * the frame says another size, or none. */
static void test_forged_sizes(void **state)
{
	struct fx *f = *state;
	struct err e = {0};
	/* magic, single segment with an 8-byte content size of 2^40, then one last RLE block
	 * of 1000 bytes of 'x' */
	uint8_t frame[] = {0x28,
			   0xB5,
			   0x2F,
			   0xFD,
			   0xE0,
			   0,
			   0,
			   0,
			   0,
			   0,
			   1,
			   0,
			   0,
			   (uint8_t)(1 | 1 << 1 | 1000 << 3),
			   (uint8_t)(1000 >> 5),
			   0,
			   'x'};
	forge(&f->sealed, ZBLK_JOBS, 10, (uint64_t)1 << 40, frame, sizeof frame);
	assert_int_equal(zblk_open(f->z, f->sealed.p, f->sealed.len, NULL, &f->raw, &e), VF_ESTORE);
	assert_string_equal(e.msg,
			    "block claims 1099511627776 bytes, more than its 17 bytes of zstd "
			    "inflate to");
	assert_true(f->raw.cap < 1 << 20);
	/* the header says 1000 bytes, the frame 2^40 */
	forge(&f->sealed, ZBLK_JOBS, 10, 1000, frame, sizeof frame);
	assert_int_equal(zblk_open(f->z, f->sealed.p, f->sealed.len, NULL, &f->raw, &e), VF_ESTORE);
	assert_string_equal(e.msg, "block frame holds 1099511627776 bytes, the header says 1000");
	/* a frame that gives no size (no content size field, a window descriptor) */
	uint8_t nosize[] = {0x28,
			    0xB5,
			    0x2F,
			    0xFD,
			    0x00,
			    0x50,
			    (uint8_t)(1 | 1 << 1 | 1000 << 3),
			    (uint8_t)(1000 >> 5),
			    0,
			    'x'};
	forge(&f->sealed, ZBLK_BYTES, 1000, 1000, nosize, sizeof nosize);
	assert_int_equal(zblk_open(f->z, f->sealed.p, f->sealed.len, NULL, &f->raw, &e), VF_ESTORE);
	assert_string_equal(e.msg, "block: zstd frame with no content size");
	/* the same frame with its true size opens: the forgery is in the sizes alone */
	frame[10] = 0;
	frame[5] = 1000 & 0xff;
	frame[6] = 1000 >> 8;
	forge(&f->sealed, ZBLK_BYTES, 1000, 1000, frame, sizeof frame);
	assert_int_equal(zblk_open(f->z, f->sealed.p, f->sealed.len, NULL, &f->raw, &e), 0);
	assert_int_equal(f->raw.len, 1000);
	assert_true(f->raw.p[0] == 'x' && f->raw.p[999] == 'x');
}

/* Every column is within zblk_i64_max, the worst case too: values of 10-byte varints with
 * NULLs, two references. */
static void test_column_size_bound(void **state)
{
	struct fx *f = *state;
	size_t n = 5000;
	int64_t *v = malloc(n * sizeof *v), *r1 = malloc(n * sizeof *r1);
	uint8_t *nul = malloc(n), *n1 = malloc(n);
	uint64_t x = 88172645463325252ull;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v[i] = (int64_t)(x | 1ull << 62);
		r1[i] = (int64_t)(x >> 3);
		nul[i] = x % 7 == 0;
		n1[i] = x % 5 == 0;
	}
	const int64_t *refs[2] = {r1, v};
	const uint8_t *refnul[2] = {n1, NULL};
	for (size_t k = 0; k <= n; k += k < 10 ? 1 : 997) {
		roundtrip(f, v, nul, k, refs, refnul, 2);
		roundtrip(f, v, NULL, k, NULL, NULL, 0);
	}
	free(v);
	free(r1);
	free(nul);
	free(n1);
}

static void test_truncated_columns(void **state)
{
	struct fx *f = *state;
	int64_t v[100];
	for (int i = 0; i < 100; i++)
		v[i] = i * i * 1000;
	zblk_put_i64(&f->b, v, NULL, 100, NULL, NULL, 0);
	for (size_t cut = 0; cut < f->b.len; cut++) {
		struct zblk_reader r;
		int64_t out[100];
		zblk_reader_init(&r, f->b.p, cut);
		assert_int_equal(zblk_get_i64(&r, out, NULL, 100, NULL, NULL, 0), -1);
	}
}

/* zblk_skip_str ends where zblk_get_str does, for each string codec (followed by another
 * column, so landing short or long shows), and fails on a truncated column. */
static void test_skip_strings(void **state)
{
	struct fx *f = *state;
	enum { M = 600 };
	struct zblk_str s[M], out[M];
	char text[M][8];
	for (int codec = 0; codec < 3; codec++) {
		for (int i = 0; i < M; i++) {
			int l = codec == 0   ? snprintf(text[i], 8, "same")
				: codec == 1 ? snprintf(text[i], 8, "d%d", i % 7)
					     : snprintf(text[i], 8, "r%d", i * 13);
			s[i] = (struct zblk_str){(const uint8_t *)text[i], (size_t)l};
		}
		zblk_buf_reset(&f->b);
		zblk_put_str(&f->b, s, M);
		assert_int_equal(f->b.p[0], codec == 0 ? 0 : codec == 1 ? 1 : 2);
		size_t col = f->b.len;
		zblk_put_varint(&f->b, 4242);
		struct zblk_reader r, g;
		zblk_reader_init(&r, f->b.p, f->b.len);
		zblk_reader_init(&g, f->b.p, f->b.len);
		assert_int_equal(zblk_skip_str(&r, M), 0);
		assert_int_equal(zblk_get_str(&g, out, M), 0);
		assert_int_equal(r.pos, col);
		assert_int_equal(g.pos, col);
		uint64_t v;
		assert_int_equal(zblk_get_varint(&r, &v), 0);
		assert_int_equal(v, 4242);
		for (size_t cut = 0; cut < col; cut++) {
			zblk_reader_init(&r, f->b.p, cut);
			assert_int_equal(zblk_skip_str(&r, M), -1);
			assert_int_equal(r.bad, 1);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_int_codecs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nulls_and_extremes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nulls_need_a_bitmap_to_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_references, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plans, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dictionary_columns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_strings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_strings_one_byte_apart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_skip_strings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_seal_open, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damage_detected, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forged_sizes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_column_size_bound, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated_columns, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
