/* test-sha256.c — SHA-256 against the FIPS 180-2 example vectors, in one piece and fed in
 * odd-sized chunks, through both block functions (portable and SHA-NI, when the CPU has it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sha256.h"

/* The digest of p by sha256_buf; the portable code must give the same. */
static void hex_of(const void *p, size_t n, char hex[65])
{
	uint8_t d[32], d2[32];
	struct sha256 c;
	sha256_buf(p, n, d);
	sha256_hex(d, hex);
	sha256_init_portable(&c);
	sha256_update(&c, p, n);
	sha256_final(&c, d2);
	assert_memory_equal(d, d2, 32);
}

static void test_abc(void **state)
{
	(void)state;
	char hex[65];
	hex_of("abc", 3, hex);
	assert_string_equal(hex,
			    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void test_empty(void **state)
{
	(void)state;
	char hex[65];
	hex_of("", 0, hex);
	assert_string_equal(hex,
			    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void test_448_bits(void **state)
{
	(void)state;
	const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	char hex[65];
	assert_int_equal(strlen(m) * 8, 448);
	hex_of(m, strlen(m), hex);
	assert_string_equal(hex,
			    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void test_million_a_in_chunks(void **state)
{
	(void)state;
	char *a = malloc(1000000);
	memset(a, 'a', 1000000);
	struct sha256 c;
	uint8_t d[32];
	char hex[65];
	for (int portable = 0; portable < 2; portable++) {
		if (portable)
			sha256_init_portable(&c);
		else
			sha256_init(&c);
		/* Chunks of 1, 63, 64, 65, ... bytes cross every block-boundary case. */
		size_t off = 0, step = 1;
		while (off < 1000000) {
			size_t k = step < 1000000 - off ? step : 1000000 - off;
			sha256_update(&c, a + off, k);
			off += k;
			step = step * 7 % 131 + 1;
		}
		sha256_final(&c, d);
		sha256_hex(d, hex);
		assert_string_equal(
			hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	}
	hex_of(a, 1000000, hex);
	assert_string_equal(hex,
			    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(a);
}

static void test_padding_edges(void **state)
{
	(void)state;
	/* 55 and 56 bytes: the length fits in the last block, or forces one more. */
	char m[120];
	memset(m, 'a', sizeof m);
	char h55[65], h56[65], h64[65];
	hex_of(m, 55, h55);
	hex_of(m, 56, h56);
	hex_of(m, 64, h64);
	assert_string_equal(h55,
			    "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
	assert_string_equal(h56,
			    "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
	assert_string_equal(h64,
			    "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

/* sha256_hw asks the CPU itself: it agrees with the kernel's flags (sha_ni, sse4_1,
 * ssse3), where /proc/cpuinfo has them. */
static void test_hw_as_the_kernel_says(void **state)
{
	(void)state;
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		skip();
	char line[8192];
	int want = -1;
	while (want < 0 && fgets(line, sizeof line, f))
		if (!strncmp(line, "flags", 5))
			want = strstr(line, " sha_ni") && strstr(line, " sse4_1") &&
			       strstr(line, " ssse3");
	fclose(f);
	if (want < 0)
		skip();
	assert_int_equal(sha256_hw(), want);
}

/* The SHA-NI path itself, on many lengths and alignments against the portable one (skipped
 * on a CPU without the instructions: then sha256_init is the portable code). */
static void test_hw_matches_portable(void **state)
{
	(void)state;
	if (!sha256_hw())
		skip();
	uint8_t buf[1100], a[32], b[32];
	uint32_t x = 12345;
	for (size_t i = 0; i < sizeof buf; i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
	for (size_t n = 0; n < 1000; n += 13) {
		struct sha256 h, p;
		sha256_init(&h);
		sha256_init_portable(&p);
		assert_int_equal(h.hw, 1);
		sha256_update(&h, buf + n % 7, n);
		sha256_update(&p, buf + n % 7, n);
		sha256_final(&h, a);
		sha256_final(&p, b);
		assert_memory_equal(a, b, 32);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_abc),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_448_bits),
		cmocka_unit_test(test_million_a_in_chunks),
		cmocka_unit_test(test_padding_edges),
		cmocka_unit_test(test_hw_as_the_kernel_says),
		cmocka_unit_test(test_hw_matches_portable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
