/*
 * driver.c — runs a libFuzzer harness without libFuzzer: each FILE argument, or each file
 * of a DIR argument, is one input to LLVMFuzzerTestOneInput. 'make check' runs the seed
 * corpus this way with the ordinary compiler (and CI under the sanitizers), so that the
 * harnesses build and the seeds pass everywhere; 'make fuzz' links the harnesses with
 * libFuzzer instead.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return 1;
	}
	size_t cap = 1 << 16, n = 0, got;
	uint8_t *buf = malloc(cap);
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0)
		if ((n += got) == cap)
			buf = realloc(buf, cap *= 2);
	int bad = ferror(f) || !buf;
	fclose(f);
	if (bad) {
		fprintf(stderr, "%s: read failed\n", path);
		free(buf);
		return 1;
	}
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int nrun = 0, rc = 0;
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *de;
		if (stat(argv[i], &st) || !S_ISDIR(st.st_mode)) {
			rc |= run_file(argv[i]);
			nrun++;
			continue;
		}
		if (!(d = opendir(argv[i]))) {
			perror(argv[i]);
			return 1;
		}
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			char p[4096];
			snprintf(p, sizeof p, "%s/%s", argv[i], de->d_name);
			rc |= run_file(p);
			nrun++;
		}
		closedir(d);
	}
	printf("%d inputs\n", nrun);
	return rc;
}
