/*
 * fuzz-import.c — libFuzzer harness for the import entry point (import_run): the input is
 * one trace file (plain, gzip or zstd; its format detected as for 'voidfit import FILE'),
 * imported into a fresh store. Whatever the bytes, the import must either succeed or fail
 * with a message, without a crash, a leak or undefined behaviour.
 */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "import.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[PATH_MAX - 32], in_path[PATH_MAX], db[PATH_MAX];

static void remove_store(void)
{
	static const char *const ext[] = {"", "-journal", "-wal", "-shm"};
	char p[PATH_MAX + 16];
	for (size_t i = 0; i < sizeof ext / sizeof *ext; i++) {
		snprintf(p, sizeof p, "%s%s", db, ext[i]);
		unlink(p);
	}
}

static void cleanup(void)
{
	remove_store();
	unlink(in_path);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/voidfit-fuzz-import.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror(dir);
		exit(1);
	}
	snprintf(in_path, sizeof in_path, "%s/trace", dir);
	snprintf(db, sizeof db, "%s/s.db", dir);
	atexit(cleanup);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fopen(in_path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f)) {
		perror(in_path);
		abort();
	}
	remove_store();
	struct import_opts o = {.store = db, .max_bad = 4};
	struct import_input in = {.path = in_path};
	struct import_result res;
	struct err e = {0};
	int rc = import_run(&o, &in, 1, &res, &e);
	if (rc && !e.msg[0]) /* a failure always says why */
		abort();
	import_result_release(&res);
	return 0;
}
