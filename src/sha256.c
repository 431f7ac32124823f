/*
 * sha256.c — SHA-256 as in FIPS 180-4, written from the standard: the state is the eight
 * chaining words, the byte count and a partial block (nbuf < 64 between calls).
 *
 * Two block functions give the same result: the portable one below, and one using the x86
 * SHA extensions (SHA-NI), picked by sha256_init when the CPU has them (several times
 * faster; the import hashes every file before it reads it).
 */
#include <string.h>

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <cpuid.h>
#include <immintrin.h>
#define HAVE_SHANI 1
#endif

#include "sha256.h"

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2,
};

static uint32_t ror(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

static void block(uint32_t h[8], const uint8_t *p)
{
	uint32_t w[64];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = k + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) +
			      K[i] + w[i];
		uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		k = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
	h[5] += f;
	h[6] += g;
	h[7] += k;
}

static void blocks(uint32_t h[8], const uint8_t *p, size_t n)
{
	for (; n; n--, p += 64)
		block(h, p);
}

#ifdef HAVE_SHANI
/* n blocks with SHA-NI: the state is kept as the ABEF / CDGH word pairs sha256rnds2 works
 * on; each 4-round group schedules the next message words with sha256msg1/msg2. */
__attribute__((target("sha,sse4.1"))) static void blocks_ni(uint32_t h[8], const uint8_t *p,
							    size_t n)
{
	const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
	__m128i tmp = _mm_loadu_si128((const __m128i *)(const void *)&h[0]); /* A B C D */
	__m128i st1 = _mm_loadu_si128((const __m128i *)(const void *)&h[4]); /* E F G H */
	tmp = _mm_shuffle_epi32(tmp, 0xB1);                                  /* CDAB */
	st1 = _mm_shuffle_epi32(st1, 0x1B);                                  /* EFGH */
	__m128i st0 = _mm_alignr_epi8(tmp, st1, 8);                          /* ABEF */
	st1 = _mm_blend_epi16(st1, tmp, 0xF0);                               /* CDGH */
	for (; n; n--, p += 64) {
		__m128i s0 = st0, s1 = st1, msg, m[4];
		for (int i = 0; i < 4; i++)
			m[i] = _mm_shuffle_epi8(
				_mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i)),
				bswap);
		for (int r = 0; r < 16; r++) {
			msg = _mm_add_epi32(
				m[r & 3],
				_mm_loadu_si128((const __m128i *)(const void *)&K[4 * r]));
			st1 = _mm_sha256rnds2_epu32(st1, st0, msg);
			msg = _mm_shuffle_epi32(msg, 0x0E);
			st0 = _mm_sha256rnds2_epu32(st0, st1, msg);
			if (r < 12) { /* the message words of round group r + 4 */
				__m128i *nx = &m[r & 3];
				__m128i w1 = m[(r + 1) & 3], w2 = m[(r + 2) & 3],
					w3 = m[(r + 3) & 3];
				/* W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16] */
				__m128i x = _mm_sha256msg1_epu32(*nx, w1);
				x = _mm_add_epi32(x, _mm_alignr_epi8(w3, w2, 4));
				*nx = _mm_sha256msg2_epu32(x, w3);
			}
		}
		st0 = _mm_add_epi32(st0, s0);
		st1 = _mm_add_epi32(st1, s1);
	}
	tmp = _mm_shuffle_epi32(st0, 0x1B);    /* FEBA */
	st1 = _mm_shuffle_epi32(st1, 0xB1);    /* DCHG */
	st0 = _mm_blend_epi16(tmp, st1, 0xF0); /* DCBA */
	st1 = _mm_alignr_epi8(st1, tmp, 8);    /* HGFE */
	_mm_storeu_si128((__m128i *)(void *)&h[0], st0);
	_mm_storeu_si128((__m128i *)(void *)&h[4], st1);
}

/* CPUID itself, not __builtin_cpu_supports: clang 14 does not know its "sha" feature. */
static int have_ni(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_SSE4_1) || !(c & bit_SSSE3))
		return 0;
	return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_SHA);
}
#endif

static void run(struct sha256 *c, const uint8_t *p, size_t n)
{
#ifdef HAVE_SHANI
	if (c->hw) {
		blocks_ni(c->h, p, n);
		return;
	}
#endif
	blocks(c->h, p, n);
}

void sha256_init_portable(struct sha256 *c)
{
	static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
				       0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
	memcpy(c->h, iv, sizeof iv);
	c->len = 0;
	c->nbuf = 0;
	c->hw = 0;
}

int sha256_hw(void)
{
#ifdef HAVE_SHANI
	return have_ni();
#else
	return 0;
#endif
}

void sha256_init(struct sha256 *c)
{
	sha256_init_portable(c);
	c->hw = sha256_hw();
}

void sha256_update(struct sha256 *c, const void *data, size_t n)
{
	const uint8_t *p = data;
	c->len += n;
	if (c->nbuf) {
		size_t k = 64 - c->nbuf < n ? 64 - c->nbuf : n;
		memcpy(c->buf + c->nbuf, p, k);
		c->nbuf += k;
		p += k;
		n -= k;
		if (c->nbuf < 64)
			return;
		run(c, c->buf, 1);
		c->nbuf = 0;
	}
	run(c, p, n / 64);
	p += n / 64 * 64;
	n %= 64;
	if (n)
		memcpy(c->buf, p, n);
	c->nbuf = n;
}

void sha256_final(struct sha256 *c, uint8_t out[32])
{
	uint64_t bits = c->len * 8;
	uint8_t pad[72] = {0x80};
	size_t padn = (c->nbuf < 56 ? 56 : 120) - c->nbuf;
	for (int i = 0; i < 8; i++)
		pad[padn + (size_t)i] = (uint8_t)(bits >> (56 - 8 * i));
	sha256_update(c, pad, padn + 8);
	for (int i = 0; i < 8; i++) {
		out[4 * i] = (uint8_t)(c->h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(c->h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(c->h[i] >> 8);
		out[4 * i + 3] = (uint8_t)c->h[i];
	}
}

void sha256_buf(const void *p, size_t n, uint8_t out[32])
{
	struct sha256 c;
	sha256_init(&c);
	sha256_update(&c, p, n);
	sha256_final(&c, out);
}

void sha256_hex(const uint8_t d[32], char hex[65])
{
	static const char digits[] = "0123456789abcdef";
	for (int i = 0; i < 32; i++) {
		hex[2 * i] = digits[d[i] >> 4];
		hex[2 * i + 1] = digits[d[i] & 15];
	}
	hex[64] = '\0';
}
