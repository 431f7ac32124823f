/*
 * cmd-import.c — 'voidfit import': read trace files into a store (import.h does the work;
 * this file parses options and prints).
 */
#include <signal.h>
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
#include "json.h"
#include "sbuf.h"
#include "trace.h"

/* Bad rows printed as "file:line: reason" before the counts. */
#define IMPORT_SHOW_BAD 10

/* From this many input bytes on, the heap is asked for HUGE_HEAP bytes in huge pages. */
#define HUGE_HEAP_FROM ((int64_t)16 << 20)
#define HUGE_HEAP      ((size_t)24 << 20)

static int exec_import(int argc, char **argv);
extern const struct cmd_opt cmd_import_opts[]; /* below */

const struct cmd_entry cmd_import_entry = {
	.name = "import",
	.usage = "[-q] [--json] [-o STORE] [--format FMT] [--name NAME] [--cluster FILE] "
		 "[--nodes NODEFILE]... [--strict] [--tz ZONE] [--wait SECONDS] FILE...",
	.summary = "read trace files (plain, .gz, .zst, - for stdin) into a store",
	.help = "  -o, --output STORE  the store to write (default voidfit.db; made if no file\n"
		"                      is there, and put in place only if the import succeeds)\n"
		"  --format FMT        the format of every FILE, instead of detecting it;\n"
		"                      'generic:NAME' maps columns with schemas/NAME.map or a\n"
		"                      .map file; 'voidfit import --format list' lists formats\n"
		"  --nodes NODEFILE    a node list (its format is detected); may be repeated\n"
		"  --cluster FILE      add the nodes of a cluster-spec file\n"
		"  --name NAME         the new trace's name (default: the first file's base name)\n"
		"  --strict            fail on the first bad row (exit 1, store unchanged)\n"
		"  --tz ZONE           the zone of times written without one (Slurm's):\n"
		"                      UTC (the default) or +HH:MM / -HH:MM\n"
		"  --wait SECONDS      how long to wait for a store another voidfit holds\n"
		"                      (default 60; 0: fail at once)\n"
		"  --json              write the outcome as one JSON object (keys: store, ok,\n"
		"                      error, trace, trace_id, files, read, accepted,\n"
		"                      quarantined, jobs, nodes)\n"
		"  -q, --quiet         print nothing but errors\n",
	.exec = exec_import,
	.opts = cmd_import_opts,
};

enum { OPT_WAIT = CMD_LONG_ONLY, OPT_JSON, OPT_NAME, OPT_STRICT, OPT_TZ };

const struct cmd_opt cmd_import_opts[] = {
	{"output", 'o', 1},    {"format", 'F', 1},        {"nodes", 'N', 1}, {"cluster", 'C', 1},
	{"name", OPT_NAME, 1}, {"strict", OPT_STRICT, 0}, {"quiet", 'q', 0}, {"wait", OPT_WAIT, 1},
	{"json", OPT_JSON, 0}, {"tz", OPT_TZ, 1},         {NULL, 0, 0},
};

/* The outcome as JSON: on failure (error not NULL), how far the import went, with
 * nothing stored. */
static void print_json(const char *store, const struct import_result *res, const char *error)
{
	struct sbuf b = {0};
	struct json j;
	json_init(&j, &b, 1);
	json_obj(&j);
	json_key(&j, "store");
	json_str(&j, store);
	json_key(&j, "ok");
	json_bool(&j, !error && res->trace_id);
	json_key(&j, "error");
	json_str(&j, error ? error : res->trace_id ? NULL : "nothing new");
	json_key(&j, "trace");
	json_str(&j, res->trace_id ? res->trace : NULL);
	json_key(&j, "trace_id");
	if (res->trace_id)
		json_int(&j, res->trace_id);
	else
		json_null(&j);
	json_key(&j, "files");
	json_arr(&j);
	for (size_t i = 0; i < res->nfiles; i++) {
		const struct import_file *f = &res->files[i];
		json_obj(&j);
		json_key(&j, "name");
		json_str(&j, f->name);
		json_key(&j, "format");
		json_str(&j, *f->format ? f->format : NULL);
		json_key(&j, "read");
		json_int(&j, f->read);
		json_key(&j, "accepted");
		json_int(&j, f->accepted);
		json_key(&j, "quarantined");
		json_int(&j, f->quarantined);
		json_key(&j, "duplicate_of");
		json_str(&j, f->dup_of);
		json_key(&j, "skipped");
		json_str(&j, f->skipped);
		json_end(&j);
	}
	json_end(&j);
	json_key(&j, "read");
	json_int(&j, res->read);
	json_key(&j, "accepted");
	json_int(&j, res->accepted);
	json_key(&j, "quarantined");
	json_int(&j, res->quarantined);
	json_key(&j, "jobs");
	json_int(&j, res->trace_id ? res->jobs : 0);
	json_key(&j, "nodes");
	json_int(&j, res->trace_id ? res->nodes : 0);
	json_end(&j);
	fputs(b.s, stdout);
	fputc('\n', stdout);
	fflush(stdout);
	sbuf_release(&b);
}

static void say_waiting(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "voidfit import: %s\n", msg);
}

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
	struct import_opts o = {.store = "voidfit.db",
				.max_bad = IMPORT_SHOW_BAD,
				.wait = {STORE_WAIT_DEFAULT, say_waiting, NULL},
				.stop = &cmd_stop_signal};
	struct cmd_stop stop; /* a signal stops the import at the next row: it rolls back and
			       * removes the store it was making, then the signal is raised again */
	struct cmd_parser p;
	struct import_input *in = xcalloc((size_t)argc + 1, sizeof *in);
	size_t n = 0, nnodes = 0;
	int quiet = 0, asjson = 0, c, rc = CMD_OK;

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
		case OPT_NAME:
			o.name = p.arg;
			break;
		case OPT_STRICT:
			o.strict = 1;
			break;
		case OPT_TZ:
			if (trace_tz_parse(p.arg, &o.tz_min)) {
				rc = cmd_usage_error(
					&cmd_import_entry,
					"'--tz %s' is not a zone: UTC or +HH:MM / -HH:MM", p.arg);
				goto out;
			}
			break;
		case 'q':
			quiet = 1;
			break;
		case OPT_JSON:
			asjson = 1;
			break;
		case OPT_WAIT:
			if ((rc = cmd_num_opt(&cmd_import_entry, "wait", p.arg, 0, 0,
					      &o.wait.seconds)))
				goto out;
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
	cmd_stop_catch(&stop);
	int irc = import_run(&o, in, n, &res, &e);
	cmd_stop_release(&stop);
	if (res.swept)
		fprintf(stderr,
			"voidfit import: removed %zu temporary file%s that a killed import of %s "
			"left in its folder\n",
			res.swept, res.swept == 1 ? "" : "s", o.store);
	if (!quiet || irc) {
		for (size_t i = 0; i < res.nbad; i++)
			fprintf(stderr, "%s\n", res.bad[i]);
		if (res.quarantined > (int64_t)res.nbad)
			fprintf(stderr,
				"... and %lld more bad rows (all in the quarantine table)\n",
				(long long)(res.quarantined - (int64_t)res.nbad));
	}
	if (asjson)
		print_json(o.store, &res, irc ? e.msg : NULL);
	if (irc) {
		rc = cmd_fail(&cmd_import_entry, "%s", e.msg);
		/* The import changed nothing it did not make, and removed what it made. */
		fprintf(stderr, "voidfit import: nothing imported; %s %s\n", o.store,
			access(o.store, F_OK) == 0 ? "is unchanged" : "was not created");
		import_result_release(&res);
		if (cmd_stop_signal) { /* die of it, as the caller expects */
			cmd_parser_release(&p);
			free(in);
			signal(cmd_stop_signal, SIG_DFL);
			raise(cmd_stop_signal);
		}
		goto out;
	}
	for (size_t i = 0; i < res.nfiles; i++) {
		const struct import_file *f = &res.files[i];
		if (f->skipped)
			fprintf(stderr, "%s: %s, skipped\n", f->name, f->skipped);
		else if (f->dup_of)
			fprintf(stderr, "%s: already imported (trace '%s'), skipped\n", f->name,
				f->dup_of);
		else if (!quiet && !asjson)
			printf("%s: %s, %lld rows read, %lld accepted, %lld quarantined\n", f->name,
			       f->format, (long long)f->read, (long long)f->accepted,
			       (long long)f->quarantined);
	}
	if (!res.trace_id) {
		rc = cmd_fail(&cmd_import_entry,
			      "nothing new: every file is already in %s (or skipped)", o.store);
	} else if (!quiet && !asjson) {
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
