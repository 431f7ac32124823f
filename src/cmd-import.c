/*
 * cmd-import.c — 'voidfit import': read trace files into a store (import.h does the work;
 * this file parses options and prints).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "cmd.h"
#include "import.h"
#include "trace.h"

/* Bad rows printed as "file:line: reason" before the counts. */
#define IMPORT_SHOW_BAD 10

/* From this many input bytes on, the heap is asked for HUGE_HEAP bytes in huge pages. */
#define HUGE_HEAP_FROM ((int64_t)16 << 20)
#define HUGE_HEAP      ((size_t)24 << 20)

static int exec_import(int argc, char **argv);
extern const struct cmd_opt cmd_import_opts[]; /* below */
enum { O_NAME = CMD_LONG_ONLY, O_STRICT };

const struct cmd_entry cmd_import_entry = {
	.name = "import",
	.usage = "[-q] [-o STORE] [--format FMT] [--name NAME] [--cluster FILE] "
		 "[--nodes NODEFILE]... [--strict] FILE...",
	.summary = "read trace files (plain, .gz, .zst, - for stdin) into a store",
	.help = "  -o, --output STORE  the store to write (default voidfit.db; created if absent)\n"
		"  --format FMT        the format of every FILE, instead of detecting it;\n"
		"                      'generic:NAME' maps columns with schemas/NAME.map or a\n"
		"                      .map file; 'voidfit import --format list' lists formats\n"
		"  --nodes NODEFILE    a node list (its format is detected); may be repeated\n"
		"  --cluster FILE      add the nodes of a cluster-spec file\n"
		"  --name NAME         the new trace's name (default: the first file's base name)\n"
		"  --strict            fail on the first bad row (exit 1, store unchanged)\n"
		"  -q, --quiet         print nothing but errors\n",
	.exec = exec_import,
	.opts = cmd_import_opts,
};

const struct cmd_opt cmd_import_opts[] = {
	{"output", 'o', 1},  {"format", 'F', 1},      {"nodes", 'N', 1}, {"cluster", 'C', 1},
	{"name", O_NAME, 1}, {"strict", O_STRICT, 0}, {"quiet", 'q', 0}, {NULL, 0, 0},
};

static void list_formats(void)
{
	for (const struct trace_format *const *f = trace_formats; *f; f++)
		printf("%-16s %s\n", (*f)->name, (*f)->summary);
}

#ifdef __GLIBC__
/* The summed size of the inputs that are regular files (stdin and the unreadable: 0). */
static int64_t input_bytes(const struct import_input *in, size_t n)
{
	int64_t sum = 0;
	struct stat st;
	for (size_t i = 0; i < n; i++)
		if (strcmp(in[i].path, "-") && stat(in[i].path, &st) == 0 && S_ISREG(st.st_mode))
			sum += (int64_t)st.st_size;
	return sum;
}
#endif

static int exec_import(int argc, char **argv)
{
	struct import_opts o = {.store = "voidfit.db", .max_bad = IMPORT_SHOW_BAD};
	struct cmd_parser p;
	struct import_input *in = xcalloc((size_t)argc + 1, sizeof *in);
	size_t n = 0, nnodes = 0;
	int quiet = 0, c, rc = CMD_OK;

	cmd_parser_init(&p, argc, argv);
	while ((c = cmd_getopt(&p, cmd_import_opts)) != -1) {
		switch (c) {
		case 'o':
			o.store = p.arg;
			break;
		case 'F':
			o.format = p.arg;
			break;
		case 'N': /* after the operands, so the trace is named after a job file */
			in[argc - 1 - nnodes++] = (struct import_input){p.arg, 1};
			break;
		case 'C':
			o.cluster = p.arg;
			break;
		case O_NAME:
			o.name = p.arg;
			break;
		case O_STRICT:
			o.strict = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		default:
			rc = cmd_opt_error(&cmd_import_entry, &p);
			goto out;
		}
	}
	if (o.format && !strcmp(o.format, "list")) {
		list_formats();
		goto out;
	}
	if (o.format && strncmp(o.format, "generic:", 8) && !trace_format_find(o.format)) {
		rc = cmd_usage_error(&cmd_import_entry,
				     "format '%s' is not known ('--format list' lists them)",
				     o.format);
		goto out;
	}
	for (int i = 0; i < p.nops; i++)
		in[n++] = (struct import_input){p.operands[i], 0};
	for (size_t i = 0; i < nnodes; i++) /* the --nodes files, in their order */
		in[n++] = in[argc - 1 - i];
	if (!n && !o.cluster) {
		rc = cmd_usage_error(&cmd_import_entry, "no file to import");
		goto out;
	}

	struct import_result res;
	struct err e = {0};
	/* A store this import would create must not be left behind, empty, when it fails. */
	int existed = access(o.store, F_OK) == 0;
#ifdef __GLIBC__
	/* An import allocates and frees the same few megabytes for every block, on two
	 * threads: glibc would give them back to the kernel each time (madvise, munmap: TLB
	 * shootdowns across cores) only to fault them in again. Keep them; peak memory is
	 * bounded by the blocks either way. */
	mallopt(M_TRIM_THRESHOLD, 32 << 20);
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	/* The blocks of a big file first touch some 12 MB of fresh heap: 3,000 page faults
	 * of 4 KiB, a tenth of the import's time in a virtual machine, where in huge pages
	 * they are a few. A small import stays in small pages (2 MiB pages for a few KB
	 * would only grow it). */
	if (input_bytes(in, n) >= HUGE_HEAP_FROM)
		heap_prefer_huge(HUGE_HEAP);
#endif
	int irc = import_run(&o, in, n, &res, &e);
	if (!quiet || irc) {
		for (size_t i = 0; i < res.nbad; i++)
			fprintf(stderr, "%s\n", res.bad[i]);
		if (res.quarantined > (int64_t)res.nbad)
			fprintf(stderr,
				"... and %lld more bad rows (all in the quarantine table)\n",
				(long long)(res.quarantined - (int64_t)res.nbad));
	}
	if (irc) {
		rc = cmd_fail(&cmd_import_entry, "%s", e.msg);
		if (existed) {
			fprintf(stderr, "voidfit import: nothing imported; %s is unchanged\n",
				o.store);
		} else {
			unlink(o.store);
			fprintf(stderr, "voidfit import: nothing imported; %s was not created\n",
				o.store);
		}
		import_result_release(&res);
		goto out;
	}
	for (size_t i = 0; i < res.nfiles; i++) {
		const struct import_file *f = &res.files[i];
		if (f->skipped)
			fprintf(stderr, "%s: %s, skipped\n", f->name, f->skipped);
		else if (f->dup_of)
			fprintf(stderr, "%s: already imported (trace '%s'), skipped\n", f->name,
				f->dup_of);
		else if (!quiet)
			printf("%s: %s, %lld rows read, %lld accepted, %lld quarantined\n", f->name,
			       f->format, (long long)f->read, (long long)f->accepted,
			       (long long)f->quarantined);
	}
	if (!res.trace_id) {
		rc = cmd_fail(&cmd_import_entry,
			      "nothing new: every file is already in %s (or skipped)", o.store);
	} else if (!quiet) {
		printf("trace '%s' (id %lld) in %s: %zu file%s, %lld rows read = %lld accepted + "
		       "%lld quarantined; %lld jobs, %lld nodes\n",
		       res.trace, (long long)res.trace_id, o.store, res.nnew,
		       res.nnew == 1 ? "" : "s", (long long)res.read, (long long)res.accepted,
		       (long long)res.quarantined, (long long)res.jobs, (long long)res.nodes);
	}
	import_result_release(&res);
out:
	cmd_parser_release(&p);
	free(in);
	return rc;
}
