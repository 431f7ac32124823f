/*
 * sha256.h — SHA-256 (FIPS 180-4), streaming: the provenance hash of imported files.
 */
#ifndef VOIDFIT_SHA256_H
#define VOIDFIT_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256 {
	uint32_t h[8];   /* the chaining state */
	uint64_t len;    /* bytes hashed so far */
	uint8_t buf[64]; /* a partial block */
	size_t nbuf;     /* bytes in buf, < 64 */
	int hw;          /* 1: blocks go through the CPU's SHA instructions */
};

/* Start a hash. */
void sha256_init(struct sha256 *c);
/* Start a hash that never uses the SHA instructions (for tests of the portable code). */
void sha256_init_portable(struct sha256 *c);
/* 1 if this CPU has the SHA instructions sha256_init will use, else 0. */
int sha256_hw(void);
/* Hash n more bytes of p (p may be NULL when n is 0). */
void sha256_update(struct sha256 *c, const void *p, size_t n);
/* Finish and write the 32-byte digest; c must be initialised again before reuse. */
void sha256_final(struct sha256 *c, uint8_t out[32]);
/* One-shot hash of n bytes. */
void sha256_buf(const void *p, size_t n, uint8_t out[32]);
/* Write the 64 lowercase hex digits of d and a NUL to hex (65 bytes). */
void sha256_hex(const uint8_t d[32], char hex[65]);

#endif
