/*
 * import.c — the import driver: for each file, read its records through csvin, detect or
 * take its format, map rows through one trace_reader per format, and write provenance, raw
 * bytes, jobs, nodes and quarantined rows, all inside one store transaction; a file
 * already in the store (same sha256) is reported and adds nothing.
 *
 * Per file:  a stored file of its size? ─yes─▶ hash it: seen? ─yes─▶ reported, skipped
 *                      │no                                 │no
 *                      ▼◀──────────────────────────────────┘
 *                      ▼
 *            first record ─▶ format (forced / detected) ─▶ store_file_add, store_raw_begin
 *                      ▼
 *            records ─▶ trace_reader_row ─▶ accepted (jobs, nodes) | quarantined
 *                      ▼
 *            store_raw_finish (the file's sha256, hashed as it was stored), store_file_finish
 * After the files: trace_reader_finish (stateful formats emit the rest), cluster spec
 * nodes, store_nodes_add, store_jobs_end, store_commit. Any error: store_rollback.
 *
 * Files are hashed while they are stored, not read twice: a file can only duplicate a stored
 * file of its size, so only then (rare: re-importing a folder) is it hashed first, and
 * skipped unread if the hash is known. stdin is spooled to a temporary file, to learn its
 * size.
 *
 * Invariants: the raw bytes a csvin reads before the file's store row exists wait in
 * pend[] (at most the first record plus a block); afterwards they go straight to the
 * store. read = accepted + quarantined for every file, however far its import went: a row
 * is counted read once it is accepted or quarantined (a row that fails the import is
 * neither).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cluster.h"
#include "clusterspec.h"
#include "csvin.h"
#include "fault.h"
#include "gpumodel.h"
#include "import.h"
#include "sha256.h"
#include "store.h"
#include "trace.h"
#include "words.h"

struct slot {
	const struct trace_format *fmt;
	char *map; /* generic mapping name, or NULL */
	struct trace_reader *rd;
};

struct imp {
	const struct import_opts *o;
	struct store *s;
	struct import_result *res;
	int64_t trace_id;
	struct store_jobs *jw;
	struct job_set nodes;
	struct slot *slot;
	size_t nslot, slotcap;
	struct store_raw *raw;           /* the current file's raw writer, once it exists */
	int64_t line;                    /* the line of the record being mapped (0: none) */
	const char *file;                /* the current file's name */
	struct trace_reader *rd;         /* the reader of the record being mapped */
	struct trace_nameset *node_seen; /* node names, each with the file:line it came from */
	unsigned char *pend;             /* raw bytes read before it existed */
	size_t npend, pendcap;
	int want_jobs, want_nodes; /* a file of jobs / of nodes was read: the trace needs them */
	int want_any; /* a file of jobs and nodes was read: the trace needs one or the other */
	struct gpumodel_defs models; /* the rows of o->gpu_models */
	int *model_ids;              /* the id each has in this process's table */
};

static int sink_job(void *ctx, const struct job *j, struct err *e)
{
	struct imp *im = ctx;
	struct job c = *j;
	c.id = im->res->jobs++;
	/* A job of the record being mapped is coded against that record's line. */
	return store_jobs_add_line(im->jw, &c, im->line ? im->raw : NULL, im->line, e);
}

static int sink_node(void *ctx, const struct node *n, struct err *e)
{
	struct imp *im = ctx;
	/* The simulator holds at most CLUSTER_MAX_GPUS GPUs a node: refuse more here, where
	 * the row can be named, as a bad row (or, for a node made when a file ends, an error). */
	if (n->ngpu < 0 || n->ngpu > CLUSTER_MAX_GPUS) {
		if (im->line && im->rd)
			return trace_bad(im->rd, "node '%s': %d GPUs, at most %d on one node",
					 n->name, (int)n->ngpu, CLUSTER_MAX_GPUS);
		return err_set(e, VF_EINPUT, "node '%s': %d GPUs, at most %d on one node", n->name,
			       (int)n->ngpu, CLUSTER_MAX_GPUS);
	}
	char where[600];
	const char *first;
	snprintf(where, sizeof where, "%s:%lld", im->file, (long long)im->line);
	if (!trace_nameset_put(&im->node_seen, n->name, where, &first))
		return im->line ? trace_bad(im->rd, "node '%s' repeats %s", n->name, first)
				: err_set(e, VF_EINPUT, "node '%s' repeats %s", n->name, first);
	job_set_add_node(&im->nodes, n);
	im->res->nodes++;
	return 0;
}

static int sink_raw(void *ctx, const void *buf, size_t n, struct err *e)
{
	struct imp *im = ctx;
	if (im->raw)
		return store_raw_write(im->raw, buf, n, e);
	xgrow(&im->pend, &im->pendcap, im->npend + n, 1);
	memcpy(im->pend + im->npend, buf, n);
	im->npend += n;
	return 0;
}

/* The trace name for a file: its base name without .gz / .zst and .csv. */
static char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	char *s = xstrdup(b ? b + 1 : path);
	static const char *const ext[] = {".gz", ".zst", ".csv"};
	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(s), k = strlen(ext[i]);
		if (n > k && !strcmp(s + n - k, ext[i]))
			s[n - k] = '\0';
	}
	return s;
}

/* Make the trace (at the first new file): o->name, or the base name made unique. */
static int ensure_trace(struct imp *im, const char *path, struct err *e)
{
	if (im->trace_id)
		return 0;
	int rc;
	if (im->o->name) {
		rc = store_trace_new(im->s, im->o->name, &im->trace_id, e);
		if (rc)
			return rc;
		im->res->trace = xstrdup(im->o->name);
	} else {
		char *base = base_name(path);
		char name[300];
		snprintf(name, sizeof name, "%s", base);
		for (int i = 2;; i++) {
			rc = store_trace_new(im->s, name, &im->trace_id, e);
			if (rc != VF_EDUP)
				break;
			snprintf(name, sizeof name, "%s-%d", base, i);
		}
		free(base);
		if (rc)
			return rc;
		im->res->trace = xstrdup(name);
	}
	im->res->trace_id = im->trace_id;
	return store_jobs_begin(im->s, im->trace_id, &im->jw, e);
}

/* The reader of fmt (and mapping map, owned from here on) for this import. */
static int get_reader(struct imp *im, const struct trace_format *fmt, struct trace_map *map,
		      struct trace_reader **out, struct err *e)
{
	const char *mname = map ? trace_map_name(map) : NULL;
	for (size_t i = 0; i < im->nslot; i++) {
		struct slot *sl = &im->slot[i];
		if (sl->fmt == fmt && (!mname || (sl->map && !strcmp(sl->map, mname)))) {
			trace_map_free(map);
			*out = sl->rd;
			return 0;
		}
	}
	struct trace_sink sink = {im, sink_job, sink_node};
	struct trace_reader *rd = NULL;
	int rc = trace_reader_new(fmt, map, &sink, &rd, e);
	if (rc)
		return rc;
	rd->tz_offset = im->o->tz_offset;
	rd->tz_set = im->o->tz_set;
	rd->node_procs = im->o->node_procs;
	xgrow(&im->slot, &im->slotcap, im->nslot + 1, sizeof *im->slot);
	im->slot[im->nslot++] = (struct slot){fmt, mname ? xstrdup(mname) : NULL, rd};
	*out = rd;
	return 0;
}

/* The format forced on the input: its own, else --format (not for a --nodes file). */
static const char *forced_format(const struct imp *im, const struct import_input *in)
{
	return in->format ? in->format : in->nodes ? NULL : im->o->format;
}

/* The file's format: forced (--format; map is the forced mapping, loaded already, owned
 * from here on) or detected from the first record. */
static int pick_format(struct imp *im, const struct import_input *in, const char *name,
		       const struct csvin_rec *first, struct trace_map *map,
		       struct trace_reader **rd, int *header, char *fmtname, size_t fmtlen,
		       struct err *e)
{
	const char *force = forced_format(im, in);
	const struct trace_format *fmt = NULL;
	*header = 0;
	if (map) {
		fmt = &trace_generic;
		*header = trace_map_has_header(map);
	} else if (force) {
		fmt = trace_format_find(force);
		if (!fmt)
			return err_set(e, VF_EINPUT, "format '%s' is not known", force);
		if (fmt == &trace_generic)
			return err_set(e, VF_EINPUT,
				       "format generic needs a mapping: generic:NAME");
		*header = fmt->has_header == 1 ||
			  (fmt->has_header == 2 && trace_header_matches(fmt, first));
	} else {
		fmt = trace_detect(first, header);
		if (!fmt) {
			map = trace_map_detect(first);
			if (map) { /* a built-in mapping: comma-separated, with a header */
				fmt = &trace_generic;
				*header = 1;
			}
		}
		if (!fmt) {
			char head[120], near[600];
			snprintf(head, sizeof head, "%.*s",
				 (int)(first->rawlen < 80 ? first->rawlen : 80), first->raw);
			for (char *q = head; *q; q++) /* keep the message printable */
				if ((unsigned char)*q < 0x20 || (unsigned char)*q >= 0x7f)
					*q = '?';
			trace_closest(first, near, sizeof near);
			return err_set(
				e, VF_EINPUT,
				"%s:%lld: not a trace format voidfit knows (first line '%s', "
				"%zu fields%s%s); give --format",
				name, (long long)first->line, head, first->n,
				*near ? "; closest: " : "", near);
		}
	}
	int nodes = map ? trace_map_is_nodes(map)
			: fmt->kind == TRACE_NODES || fmt->kind == TRACE_MIXED;
	if (in->nodes && !nodes) {
		trace_map_free(map);
		return err_set(e, VF_EINPUT, "%s: --nodes names it, but it is a %s file", name,
			       fmt->name);
	}
	/* a file of jobs and nodes both (k8s, SWF) needs only one of them: a pod list alone or
	 * a log without a header of nodes is a trace all the same */
	if (nodes && (in->nodes || map || fmt->kind == TRACE_NODES))
		im->want_nodes = 1;
	else if (nodes)
		im->want_any = 1;
	else if (fmt->kind == TRACE_JOBS)
		im->want_jobs = 1;
	if (map)
		snprintf(fmtname, fmtlen, "generic:%s", trace_map_name(map));
	else
		snprintf(fmtname, fmtlen, "%s", fmt->name);
	return get_reader(im, fmt, map, rd, e);
}

/* A temporary file for a spool in dir, removed once closed (its name is unlinked at once). */
static FILE *spool_file(const char *dir)
{
	size_t n = strlen(dir) + 32;
	char *path = xmalloc(n);
	snprintf(path, n, "%s/.voidfit-spool.XXXXXX", dir);
	int fd = mkstemp(path), err = errno;
	FILE *f = NULL;
	if (fd >= 0) {
		unlink(path);
		if (!(f = fdopen(fd, "w+b"))) {
			err = errno;
			close(fd);
		}
	}
	free(path);
	errno = err;
	return f;
}

/* Open the input: a regular file, or else (stdin, a pipe) its bytes spooled to a
 * temporary file in $TMPDIR, else /tmp (so its size is known, and it can be read twice);
 * *size is its size if known (else -1). */
static int open_input(const char *path, FILE **out, int64_t *size, struct err *e)
{
	FILE *in = stdin, *f;
	struct stat sb;
	const char *name = strcmp(path, "-") ? path : "stdin", *dir = getenv("TMPDIR");
	const char *env = dir && *dir ? " (TMPDIR)" : "";
	*out = NULL;
	*size = -1;
	if (!*env)
		dir = "/tmp";
	if (strcmp(path, "-") && !(in = fopen(path, "rb")))
		return err_set(e, VF_EIO, "%s: cannot open: %s", path, strerror(errno));
	if (in != stdin && fstat(fileno(in), &sb) == 0 && S_ISREG(sb.st_mode)) {
		*size = (int64_t)sb.st_size;
		*out = in;
		return 0;
	}
	if (!(f = spool_file(dir))) {
		int err = errno;
		if (in != stdin)
			fclose(in);
		return err_set(e, VF_EIO, "%s: cannot make a temporary file in %s%s: %s", name, dir,
			       env, strerror(err));
	}
	char buf[65536];
	size_t n;
	int rc = 0;
	while (!rc && !ferror(in) && (n = fread(buf, 1, sizeof buf, in)) > 0)
		if (fwrite(buf, 1, n, f) != n)
			rc = err_set(e, VF_EIO, "%s: cannot spool to %s%s: %s", name, dir, env,
				     strerror(errno));
	if (!rc && ferror(in))
		rc = err_set(e, VF_EIO, "%s: read error: %s", name, strerror(errno));
	if (!rc && fflush(f))
		rc = err_set(e, VF_EIO, "%s: cannot spool to %s%s: %s", name, dir, env,
			     strerror(errno));
	if (in != stdin)
		fclose(in);
	if (rc) {
		fclose(f);
		return rc;
	}
	rewind(f);
	if (fstat(fileno(f), &sb) == 0)
		*size = (int64_t)sb.st_size;
	*out = f;
	return 0;
}

/* A fault file ('voidfit gen --scenario hard' writes one beside its trace, so importing all of DIR
 * meets it): its first line is gen's comment or a fault. */
static int is_fault_file(const struct csvin_rec *first)
{
	struct fault f;
	char line[256];
	if (first->rawlen >= sizeof line)
		return 0;
	memcpy(line, first->raw, first->rawlen);
	line[first->rawlen] = '\0';
	return !strncmp(line, "# faults", 8) || fault_parse(line, &f, NULL) == 0;
}

static void keep_bad(struct imp *im, const char *name, int64_t line, const char *why)
{
	struct import_result *r = im->res;
	if (r->nbad >= im->o->max_bad)
		return;
	char msg[512];
	snprintf(msg, sizeof msg, "%s:%lld: %s", name, (long long)line, why);
	r->bad = xrealloc(r->bad, (r->nbad + 1) * sizeof *r->bad);
	r->bad[r->nbad++] = xstrdup(msg);
}

/* Is f (of size bytes, -1 if unknown) a file the store already holds? Returns 1 (dup set to
 * the trace holding it, f rewound), 0 or an error. Only a file of a stored file's size is
 * read to be hashed. */
static int seen_before(struct imp *im, FILE *f, const char *name, int64_t size, char *dup,
		       size_t len, struct err *e)
{
	uint8_t sha[32];
	int64_t n;
	int rc, seen;
	e->code = 0;
	if (size >= 0 && !store_file_size_seen(im->s, size, e))
		return e->code;
	if ((rc = csvin_hash_stream(f, name, sha, &n, e)))
		return rc;
	rewind(f);
	seen = store_file_seen(im->s, sha, dup, len, e);
	return e->code ? e->code : seen;
}

static int import_one(struct imp *im, const struct import_input *in, struct err *e)
{
	const char *name = strcmp(in->path, "-") ? in->path : "stdin";
	struct import_result *res = im->res;
	struct store_file sf = {0};
	struct csvin *c = NULL;
	struct csvin_rec *r;
	struct trace_reader *rd = NULL;
	struct trace_map *map = NULL;
	FILE *f = NULL;
	char fmtname[160], dup[256];
	int header, rc = 0;

	res->files = xrealloc(res->files, (res->nfiles + 1) * sizeof *res->files);
	struct import_file *fr = &res->files[res->nfiles++];
	memset(fr, 0, sizeof *fr);
	fr->name = xstrdup(name);
	fr->format = xstrdup("");

	if ((rc = open_input(in->path, &f, &sf.size, e)))
		goto out;
	if (!im->o->again && (rc = seen_before(im, f, name, sf.size, dup, sizeof dup, e)) == 1) {
		fr->dup_of = xstrdup(dup);
		rc = 0;
		goto out;
	}
	if (rc)
		goto out;
	im->npend = 0;
	const char *force = forced_format(im, in);
	if (force && !strncmp(force, "generic:", 8) && (rc = trace_map_load(force + 8, &map, e)))
		goto out;
	if ((rc = csvin_open(name, f, &c, e)))
		goto out;
	csvin_set_raw(c, sink_raw, im);
	if (map)
		csvin_set_delim(c, trace_map_delim(map));
	if ((rc = csvin_next(c, &r, e)))
		goto out;
	if (!r) {
		rc = err_set(e, VF_EINPUT, "%s: empty file (no header, no rows)", name);
		goto out;
	}
	if (is_fault_file(r)) {
		fr->skipped = xstrdup("a fault file (for 'replay --faults'), not a trace");
		goto out;
	}
	rc = pick_format(im, in, name, r, map, &rd, &header, fmtname, sizeof fmtname, e);
	map = NULL; /* pick_format's now */
	if (rc)
		goto out;
	free(fr->format);
	fr->format = xstrdup(fmtname);
	if (rd->fmt->lines)
		csvin_set_lines(c);
	if ((rc = trace_reader_start(rd, header ? r : NULL, e))) {
		err_prefix(e, "%s:%lld: ", name, (long long)r->line);
		goto out;
	}
	if ((rc = ensure_trace(im, name, e)))
		goto out;
	const char *slash = strrchr(name, '/');
	sf.trace_id = im->trace_id;
	sf.name = slash ? slash + 1 : name;
	sf.format = fmtname;
	sf.imported_at = util_now();
	if ((rc = store_file_add(im->s, &sf, e)))
		goto out;
	if ((rc = store_raw_begin(im->s, sf.id, csvin_compression(c) != CSVIN_PLAIN, &im->raw, e)))
		goto out;
	if (im->npend && (rc = store_raw_write(im->raw, im->pend, im->npend, e)))
		goto out;
	im->npend = 0;
	im->file = name;
	im->rd = rd;
	if (header && (rc = csvin_next(c, &r, e)))
		goto out;
	if (!r) {
		rc = err_set(e, VF_EINPUT, "%s: a header and no rows", name);
		goto out;
	}
	while (r) {
		if (im->o->stop && *im->o->stop) {
			rc = err_set(e, VF_EIO, "%s:%lld: interrupted", name, (long long)r->line);
			goto out;
		}
		im->line = r->line;
		im->rd = rd;
		int rr = trace_reader_row(rd, r, e);
		im->line = 0;
		im->rd = NULL;
		if (rr == TRACE_SKIP) {
			/* no row: a comment, or a line inside a JSON item */
		} else if (rr == TRACE_BAD) {
			if (im->o->strict) {
				rc = err_set(e, VF_EINPUT,
					     "%s:%lld: %s (--strict: nothing imported)", name,
					     (long long)r->line, rd->why);
				goto out;
			}
			int64_t line = rd->row_line ? rd->row_line : r->line;
			sf.rows_read++;
			sf.rows_quarantined++;
			keep_bad(im, name, line, rd->why);
			if ((rc = store_quarantine_add(im->s, sf.id, line, rd->why,
						       rd->row_raw ? rd->row_raw : r->raw,
						       rd->row_raw ? rd->row_rawlen : r->rawlen,
						       e)))
				goto out;
		} else if (rr) {
			err_prefix(e, "%s:%lld: ", name, (long long)r->line);
			rc = rr;
			goto out;
		} else {
			sf.rows_read++;
			sf.rows_accepted++;
		}
		if ((rc = csvin_next(c, &r, e)))
			goto out;
	}
	if (rd->fmt->end && (rc = rd->fmt->end(rd, e))) {
		err_prefix(e, "%s: ", name);
		goto out;
	}
	rc = store_raw_finish(im->raw, sf.sha256, &sf.size, e);
	im->raw = NULL;
	if (rc)
		goto out;
	if ((rc = store_file_finish(im->s, &sf, e)))
		goto out;
	res->nnew++;
out:
	fr->read = sf.rows_read;
	fr->accepted = sf.rows_accepted;
	fr->quarantined = sf.rows_quarantined;
	res->read += sf.rows_read;
	res->accepted += sf.rows_accepted;
	res->quarantined += sf.rows_quarantined;
	store_raw_abort(im->raw);
	im->raw = NULL;
	trace_map_free(map);
	csvin_close(c);
	if (f)
		fclose(f);
	return rc;
}

/* The nodes of a cluster-spec file, and the file itself (provenance, raw bytes; its rows
 * are the nodes it made). Specs are not deduplicated: one what-if may serve many traces. */
static int add_cluster(struct imp *im, const char *path, struct err *e)
{
	struct store_file sf = {0};
	struct store_raw *w = NULL;
	char *text = NULL;
	size_t len = 0, cap = 0, n;
	char buf[65536];
	int rc = 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return err_set(e, VF_EIO, "%s: cannot open: %s", path, strerror(errno));
	while ((n = fread(buf, 1, sizeof buf, f)) > 0 && len <= CSVIN_RECORD_MAX * 16) {
		xgrow(&text, &cap, len + n, 1);
		memcpy(text + len, buf, n);
		len += n;
	}
	if (ferror(f))
		rc = err_set(e, VF_EIO, "%s: read error: %s", path, strerror(errno));
	else if (len > CSVIN_RECORD_MAX * 16)
		rc = err_set(e, VF_EINPUT, "%s: a cluster spec over 16 MiB", path);
	fclose(f);
	size_t before = im->nodes.nnodes;
	if (rc || (rc = clusterspec_parse(text ? text : "", len, path, &im->nodes, e)))
		goto out;
	const char *slash = strrchr(path, '/');
	sf.trace_id = im->trace_id;
	sf.name = slash ? slash + 1 : path;
	sf.format = "cluster-spec";
	sf.size = (int64_t)len;
	sha256_buf(text ? text : "", len, sf.sha256);
	sf.rows_read = sf.rows_accepted = (int64_t)(im->nodes.nnodes - before);
	sf.imported_at = util_now();
	im->res->nodes += sf.rows_read;
	if ((rc = store_file_add(im->s, &sf, e)) ||
	    (rc = store_raw_begin(im->s, sf.id, 0, &w, e)) ||
	    (len && (rc = store_raw_write(w, text, len, e))))
		goto out;
	rc = store_raw_end(w, e);
	w = NULL;
	if (rc || (rc = store_file_finish(im->s, &sf, e)))
		goto out;
	struct import_result *res = im->res;
	res->files = xrealloc(res->files, (res->nfiles + 1) * sizeof *res->files);
	res->files[res->nfiles++] = (struct import_file){.name = xstrdup(path),
							 .format = xstrdup(sf.format),
							 .read = sf.rows_read,
							 .accepted = sf.rows_read};
	res->read += sf.rows_read;
	res->accepted += sf.rows_read;
	res->nnew++;
out:
	store_raw_abort(w);
	free(text);
	return rc;
}

/* A trace holding a file that was skipped as a duplicate, and its jobs. */
struct dup_jobs {
	const char *file, *name;
	int64_t njobs;
};

/* store_trace_list: the jobs of the trace dj->name. */
static int dup_trace_jobs(void *ctx, const struct store_trace_info *t)
{
	struct dup_jobs *dj = ctx;
	if (!strcmp(t->name, dj->name))
		dj->njobs = t->njobs;
	return 0;
}

/* store_trace_list: count the traces besides the new one. */
static int count_trace(void *ctx, const struct store_trace_info *t)
{
	struct import_result *res = ctx;
	res->others += t->id != res->trace_id;
	return 0;
}

/* Add rd's notes of unknown GPU models to res's, merged by name. */
static void note_unknown(struct import_result *res, const struct trace_reader *rd)
{
	for (size_t i = 0; i < rd->nunknown; i++) {
		const struct trace_model_note *m = &rd->unknown[i];
		size_t k = 0;
		while (k < res->nunknown && strcmp(res->unknown[k].name, m->name))
			k++;
		if (k == res->nunknown) {
			res->unknown = xrealloc(res->unknown, (k + 1) * sizeof *res->unknown);
			memset(&res->unknown[k], 0, sizeof *res->unknown);
			memcpy(res->unknown[k].name, m->name, sizeof m->name);
			res->nunknown++;
		}
		res->unknown[k].nodes += m->nodes;
		res->unknown[k].gpus += m->gpus;
		res->unknown[k].jobs += m->jobs;
	}
}

/* Read o->gpu_models and add its models to the table, after the store's own (store_open
 * added them): the import's names then find them. */
static int add_models(struct imp *im, struct err *e)
{
	const char *path = im->o->gpu_models;
	struct sbuf b = SBUF_INIT;
	int rc = words_read_file(path, IMPORT_MODELS_MAX, "a GPU model table", &b, e);
	if (!rc)
		rc = gpumodel_defs_read(path, b.s ? b.s : "", b.len, &im->models, e);
	sbuf_release(&b);
	if (rc)
		return rc;
	im->model_ids = xcalloc(im->models.n, sizeof *im->model_ids);
	for (size_t i = 0; i < im->models.n && !rc; i++)
		if ((rc = gpumodel_add(&im->models.v[i], &im->model_ids[i], e)))
			err_prefix(e, "%s:%d: ", path, im->models.v[i].line);
	return rc;
}

int import_run(const struct import_opts *o, const struct import_input *in, size_t n,
	       struct import_result *res, struct err *e)
{
	struct imp im = {0};
	int rc, began = 0;
	memset(res, 0, sizeof *res);
	im.o = o;
	im.res = res;
	for (size_t i = 0; i <= n; i++) { /* a bad mapping fails first */
		const char *f = i < n ? in[i].format : o->format;
		struct trace_map *m;
		if (f && !strncmp(f, "generic:", 8)) {
			if ((rc = trace_map_load(f + 8, &m, e)))
				goto out;
			trace_map_free(m);
		}
	}
	if ((rc = store_open_wait(o->store, STORE_CREATE, &o->wait, &im.s, e)) ||
	    (o->gpu_models && (rc = add_models(&im, e))))
		goto out;
	res->swept = store_swept(im.s);
	if ((rc = store_begin(im.s, e)))
		goto out;
	began = 1;
	for (size_t i = 0; i < n; i++)
		if ((rc = import_one(&im, &in[i], e)))
			goto out;
	for (size_t i = 0; i < im.nslot; i++)
		if ((rc = trace_reader_finish(im.slot[i].rd, e)))
			goto out;
	if (o->cluster) {
		if ((rc = ensure_trace(&im, o->cluster, e)) ||
		    (rc = add_cluster(&im, o->cluster, e)))
			goto out;
	}
	/* A job file skipped as already stored, and a trace of other files with no job: the
	 * new trace would be a default with nothing to replay. */
	struct dup_jobs dj = {NULL, NULL, 0};
	for (size_t i = 0; i < res->nfiles && !dj.name; i++)
		if (res->files[i].dup_of) {
			dj.file = res->files[i].name;
			dj.name = res->files[i].dup_of;
		}
	if (im.trace_id && dj.name && !res->jobs &&
	    !(rc = store_trace_list(im.s, dup_trace_jobs, &dj, e)) && dj.njobs) {
		rc = err_set(e, VF_EINPUT,
			     "'%s' is already in %s (trace '%s'), so the new trace would hold "
			     "nodes and no job; give --new-trace to import it again with these "
			     "nodes as a new trace",
			     dj.file, o->store, dj.name);
		goto out;
	}
	if (rc)
		goto out;
	if (!im.trace_id) { /* every file was a duplicate: write nothing */
		store_rollback(im.s);
		began = 0;
		goto out;
	}
	if (res->read && !res->accepted) {
		rc = err_set(e, VF_EINPUT,
			     "every row (%lld) was quarantined; nothing is imported (the reasons "
			     "are above; a mapping or --format may fit the files)",
			     (long long)res->read);
		goto out;
	}
	if (im.want_jobs && !res->jobs) {
		rc = err_set(e, VF_EINPUT,
			     "no job: the job files' %lld accepted rows made no job; nothing is "
			     "imported",
			     (long long)res->accepted);
		goto out;
	}
	if (im.want_nodes && !res->nodes) {
		rc = err_set(
			e, VF_EINPUT,
			"no node: the node files made no node (%lld rows quarantined); nothing "
			"is imported",
			(long long)res->quarantined);
		goto out;
	}
	if (im.want_any && !res->jobs && !res->nodes) {
		rc = err_set(e, VF_EINPUT,
			     "no job and no node: the files' %lld accepted rows made neither; "
			     "nothing is imported",
			     (long long)res->accepted);
		goto out;
	}
	for (size_t i = 0; i < im.nslot; i++)
		note_unknown(res, im.slot[i].rd);
	if (im.models.n && (rc = store_gpu_models_add(im.s, im.trace_id, im.models.v, im.model_ids,
						      im.models.n, e))) {
		err_prefix(e, "%s: ", o->gpu_models);
		goto out;
	}
	if (im.nodes.nnodes &&
	    (rc = store_nodes_add(im.s, im.trace_id, im.nodes.nodes, im.nodes.nnodes, e)))
		goto out;
	if ((rc = store_trace_list(im.s, count_trace, res, e)))
		goto out;
	rc = store_jobs_end(im.jw, e);
	im.jw = NULL;
	if (rc)
		goto out;
	rc = store_commit(im.s, e);
	began = 0;
out:
	store_jobs_abort(im.jw);
	if (rc && began)
		store_rollback(im.s);
	if (rc) {
		res->trace_id = 0;
		res->nnew = 0;
	}
	if (rc && o->stop && *o->stop) /* what failed did so because of the signal */
		err_set(e, VF_EIO, "interrupted");
	store_close(im.s);
	for (size_t i = 0; i < im.nslot; i++) {
		trace_reader_free(im.slot[i].rd);
		free(im.slot[i].map);
	}
	free(im.slot);
	free(im.pend);
	trace_nameset_free(im.node_seen);
	job_set_release(&im.nodes);
	gpumodel_defs_release(&im.models);
	free(im.model_ids);
	return rc;
}

void import_result_release(struct import_result *res)
{
	if (!res)
		return;
	for (size_t i = 0; i < res->nfiles; i++)
		FREE_ALL(res->files[i].name, res->files[i].format, res->files[i].dup_of,
			 res->files[i].skipped);
	for (size_t i = 0; i < res->nbad; i++)
		free(res->bad[i]);
	FREE_ALL(res->files, res->bad, res->trace, res->unknown);
	memset(res, 0, sizeof *res);
}
