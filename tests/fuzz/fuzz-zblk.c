/*
 * fuzz-zblk.c — libFuzzer harness for the store's block decoder (zblk.h).
 *
 * Input: byte 0 picks the path (bit 0: the rest after the op list is a sealed block for
 * zblk_open, else the uncompressed column bytes themselves, so that the fuzzer reaches the
 * column codecs without forging checksums); byte 1 the row count (1..64); byte 2 the
 * number of ops (0..15) and then one byte per op: which column reader runs next (integer
 * column with references to the columns read before it, string column, skipped string
 * column, varint). Every integer column that decodes is coded again with zblk_put_i64 and
 * must decode to the same values: the codecs round-trip whatever the reader accepts. The
 * input is also sealed and opened again, and must come back byte for byte.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zblk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAXN = 64, MAXCOLS = 8 };

static struct zblk_ctx *ctx(void)
{
	static struct zblk_ctx *z;
	if (!z)
		z = zblk_ctx_new(1);
	return z;
}

/* Code column v/nul of n rows again against the same references and read it back. */
static void roundtrip(const int64_t *v, const uint8_t *nul, size_t n, const int64_t *const *refs,
		      const uint8_t *const *refnul, int nref)
{
	struct zblk_buf b = {0};
	struct zblk_reader r;
	int64_t v2[MAXN];
	uint8_t nul2[MAXN];
	zblk_put_i64(&b, v, nul, n, refs, refnul, nref);
	zblk_reader_init(&r, b.p, b.len);
	if (zblk_get_i64(&r, v2, nul2, n, refs, refnul, nref) || r.pos != r.len)
		abort();
	for (size_t i = 0; i < n; i++)
		if (nul[i] != nul2[i] || (!nul[i] && v[i] != v2[i]))
			abort();
	zblk_buf_release(&b);
}

static void columns(const uint8_t *ops, size_t nops, size_t n, const uint8_t *p, size_t len)
{
	static int64_t v[MAXCOLS][MAXN];
	static uint8_t nul[MAXCOLS][MAXN];
	const int64_t *refs[MAXCOLS];
	const uint8_t *refnul[MAXCOLS];
	struct zblk_str s[MAXN];
	struct zblk_reader r;
	int ncols = 0;
	uint64_t x;
	zblk_reader_init(&r, p, len);
	for (size_t k = 0; k < nops && !r.bad; k++) {
		switch (ops[k] % 4) {
		case 0: {
			/* References: up to MAXCOLS - 1 of the columns just before this one, so
			 * never the slot it overwrites. */
			int most = ncols < MAXCOLS - 1 ? ncols : MAXCOLS - 1;
			int nref = (ops[k] >> 2) % (most + 1), slot = ncols % MAXCOLS;
			for (int i = 0; i < nref; i++) {
				refs[i] = v[(ncols - 1 - i) % MAXCOLS];
				refnul[i] = nul[(ncols - 1 - i) % MAXCOLS];
			}
			if (zblk_get_i64(&r, v[slot], nul[slot], n, refs, refnul, nref))
				break;
			roundtrip(v[slot], nul[slot], n, refs, refnul, nref);
			ncols++;
			break;
		}
		case 1:
			if (!zblk_get_str(&r, s, n))
				for (size_t i = 0; i < n; i++) /* inside the buffer */
					if (s[i].len && (s[i].p < p || s[i].p + s[i].len > p + len))
						abort();
			break;
		case 2:
			zblk_skip_str(&r, n);
			break;
		default:
			zblk_get_varint(&r, &x);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3)
		return 0;
	size_t n = 1 + data[1] % MAXN, nops = data[2] % 16;
	if (size < 3 + nops)
		return 0;
	const uint8_t *ops = data + 3, *p = ops + nops;
	size_t len = size - 3 - nops;
	struct err e;
	struct zblk_buf raw = {0}, sealed = {0};
	if (data[0] & 1) {
		struct zblk_info info;
		if (!zblk_open(ctx(), p, len, &info, &raw, &e))
			columns(ops, nops, n, raw.p, raw.len);
	} else {
		columns(ops, nops, n, p, len);
	}
	/* Seal and open: the same bytes again. */
	if (zblk_seal(ctx(), ZBLK_BYTES, size, data, size, &sealed, &e) ||
	    zblk_open(ctx(), sealed.p, sealed.len, NULL, &raw, &e) || raw.len != size ||
	    (size && memcmp(raw.p, data, size)))
		abort();
	zblk_buf_release(&raw);
	zblk_buf_release(&sealed);
	return 0;
}
