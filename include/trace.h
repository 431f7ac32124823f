/*
 * trace.h — trace formats: how the rows of one kind of trace file become jobs and nodes.
 *
 * Each format is one const struct trace_format in a src/trace-*.c file, listed in the
 * NULL-terminated trace_formats[] table (trace.c). A format names its columns, the
 * required ones first, then the optional ones (a file may lack them: their fields read as
 * absent, NULL). Formats with a header are recognised by their column names: the formats
 * whose required columns are all there match, the one naming the most of the header wins.
 * Header-less ones are recognised by their column count and a look at the first row: what
 * each column holds (cells), and what cells cannot say (sniff).
 *
 * A format maps a row by the function that fits it: job (the row makes one job), node (one
 * node), node_cols (a node list, as data), or row (anything else: a row that makes several
 * things, or none, or state); the reader makes, initialises and sends what job and node
 * fill. A format with none of them keeps its rows raw.
 *
 * A reader (struct trace_reader) holds one format's state for a whole import, across all
 * of that import's files, so a stateful format (Google task_events, whose tasks span part
 * files) sees every row in order and emits its last jobs at trace_reader_finish.
 * Formats never print: a row they cannot use is TRACE_BAD with a reason; the import driver
 * quarantines it.
 */
#ifndef VOIDFIT_TRACE_H
#define VOIDFIT_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "csvin.h"
#include "job.h"
#include "util.h"

enum trace_kind {
	TRACE_JOBS,  /* rows are (or make) jobs */
	TRACE_NODES, /* rows are nodes */
	TRACE_AUX,   /* rows are kept raw and counted, nothing more (PAI job, instance tables) */
	TRACE_MIXED, /* rows are jobs or nodes, each says which (a Kubernetes List) */
};

/* A row's result besides 0 (accepted) and VF_E* (fatal): the row is bad and goes to
 * quarantine; the reason is in the reader's why[]. */
#define TRACE_BAD (-1)
/* A row's result: the line is no row (a comment, a line inside a JSON item): not counted. */
#define TRACE_SKIP (-2)

/* Where a reader sends what it makes. A sink returns 0, VF_E* (the import fails), or
 * TRACE_BAD when it refuses what the row made (a node name already taken), with the reason
 * set by trace_bad on the reader: the row is then quarantined as any bad row. */
struct trace_sink {
	void *ctx;
	int (*job)(void *ctx, const struct job *j, struct err *e);
	int (*node)(void *ctx, const struct node *n, struct err *e);
};

struct trace_map; /* a generic format's column mapping (trace-generic.c) */
struct trace_node_cols;
struct trace_reader;

struct trace_format {
	const char *name;    /* "openb-pods", used by --format */
	const char *summary; /* one line: what files it reads */
	enum trace_kind kind;
	int has_header; /* 1: the first record names the columns; 2: it may (optional header) */
	const char *const *columns; /* known column names, NULL-terminated */
	int nrequired; /* columns[0..nrequired) are required, the rest optional (a header-less
			* format has them all, by position) */
	/* Header-less formats: what a first record must hold to look like ours (its n already
	 * equals the column count), one letter a column: 'n' a number, 'o' a number or empty,
	 * 'w' a word (not empty, not a number), 't' anything but a number (empty too), '.'
	 * anything. NULL: the count is enough. */
	const char *cells;
	/* ... and, when cells cannot say it (an event type's values), a look at the record
	 * once cells matched: does it look like ours? NULL: cells is enough. */
	int (*sniff)(const struct csvin_rec *r);
	/* Map the file's columns (header, or NULL) itself; NULL: by fmt->columns. */
	int (*start)(struct trace_reader *rd, const struct csvin_rec *header, struct err *e);
	/* Bytes of rd->state, zeroed before open and freed after close (0: none, or what open
	 * sets up and close frees). */
	size_t state_size;
	/* Set up rd->state (may be NULL); 0 or VF_E*. */
	int (*open)(struct trace_reader *rd, struct err *e);
	/* Map one data record: 0 (accepted; what it made went to the sink), TRACE_BAD (why in
	 * rd->why), or VF_E* (the import fails). NULL: the rows are kept raw and counted once
	 * their field count is right (TRACE_AUX), or job, node or node_cols maps them. */
	int (*row)(struct trace_reader *rd, const struct csvin_rec *r, struct err *e);
	/* Instead of row, for a format each of whose rows makes one job: fill j (as job_init
	 * left it) from r: 0 (the reader sends j to the sink, as accepted) or TRACE_BAD (why in
	 * rd->why). */
	int (*job)(struct trace_reader *rd, const struct csvin_rec *r, struct job *j);
	/* The same for a format each of whose rows makes one node (n as node_init left it). */
	int (*node)(struct trace_reader *rd, const struct csvin_rec *r, struct node *n);
	/* A node list that trace_node_row maps: which columns hold what (row is NULL). */
	const struct trace_node_cols *node_cols;
	/* 1: the file is read as lines, not CSV (csvin_set_lines): r->raw is the line, r->n
	 * is 1, and every line, the first too, goes to row (which may TRACE_SKIP it). */
	int lines;
	/* A line format: does this first line (raw text, even if it is no valid CSV) look
	 * like ours? Line formats are tried first. */
	int (*sniff_line)(const char *line, size_t len);
	/* The end of one file: 0, or VF_E* (a file cut short); may be NULL. */
	int (*end)(struct trace_reader *rd, struct err *e);
	/* Emit what the state still holds, at the end of the import; may be NULL. */
	int (*finish)(struct trace_reader *rd, struct err *e);
	/* Free what rd->state holds (and rd->state itself, without state_size); may be NULL. */
	void (*close)(struct trace_reader *rd);
};

/* How a format is read, the fields that go together, for its trace_format: a CSV whose header
 * names cols (the first nreq required; has_header 2: the header is optional), one read by
 * position with no header (cols its columns, cells and sniff telling its first record), or
 * lines (sniff telling the first line). */
#define TRACE_HEADED(hdr, cols, nreq) .has_header = (hdr), .columns = (cols), .nrequired = (nreq)
#define TRACE_BY_POSITION(cols, cells_, sniff_)                                                    \
	.columns = (cols), .cells = (cells_), .sniff = (sniff_)
#define TRACE_LINES(sniff) .lines = 1, .sniff_line = (sniff)

/* A GPU model name the table does not know, and what it covered (TRACE_MODELS_MAX names
 * a reader keeps; the rest count under the empty name ""). A node with GPUs and no model
 * name counts under "-". */
#define TRACE_MODELS_MAX 32
struct trace_model_note {
	char name[48];
	int64_t nodes, gpus; /* nodes of that model, and their GPUs */
	int64_t jobs;        /* jobs that name it */
};

/* One format's reading state for one import. */
struct trace_reader {
	const struct trace_format *fmt;
	struct trace_sink sink;
	struct trace_map *map; /* generic format's mapping, or NULL */
	int *col;    /* col[k]: file column of fmt->columns[k] (or map column), -1 absent */
	size_t ncol; /* entries in col */
	const char *const *colname; /* colname[k]: the name of column k, for messages */
	size_t nfields;             /* fields a data record must have */
	void *state;                /* the format's own */
	int64_t rows;               /* data rows seen */
	char why[256];              /* reason of the last TRACE_BAD */
	int64_t tz_offset;  /* naive time strings are at UTC + tz_offset s (import's --tz) */
	int tz_set;         /* 1 when --tz gave tz_offset; 0: UTC */
	int64_t node_procs; /* swf: processors per node (import's --node-procs), 0: unsaid */
	struct trace_model_note unknown[TRACE_MODELS_MAX]; /* models taken as UNKNOWN */
	size_t nunknown;
	/* A row that spans lines (a JSON item) sets where it began and its text, for the
	 * quarantine; 0 / NULL: the record's own (reset before each row). */
	int64_t row_line;
	const char *row_raw;
	size_t row_rawlen;
};

/* The formats, NULL-terminated. */
extern const struct trace_format *const trace_formats[];

/* The format named name, or NULL. */
const struct trace_format *trace_format_find(const char *name);
/* Detect the format of a file from its first record: returns the format and sets
 * *header to 1 if that record is a header. NULL if no format matches. */
const struct trace_format *trace_detect(const struct csvin_rec *first, int *header);

/* Does r name fmt's columns (all the required ones)? The number of fmt's columns it
 * names, required or optional, else 0. */
int trace_header_matches(const struct trace_format *fmt, const struct csvin_rec *r);
/* For a first record that no format matched: the format with a header that comes closest
 * (the largest share of its required columns there, at least one; then the most columns),
 * described into buf as "openb-pods, which lacks 'num_gpu', 'gpu_milli'". NULL (buf "")
 * when no format's required columns are named at all. */
const struct trace_format *trace_closest(const struct csvin_rec *first, char *buf, size_t len);
/* Make a reader of fmt sending to sink; map is for the generic format (owned by the reader
 * from then on, else NULL). Returns 0 or VF_E*. */
int trace_reader_new(const struct trace_format *fmt, struct trace_map *map,
		     const struct trace_sink *sink, struct trace_reader **out, struct err *e);
/* Start a file: header is its header record (NULL for a header-less file). Maps the
 * format's columns to the file's (an optional one absent: -1); missing required columns
 * are VF_EINPUT ("header lacks 'num_gpu', 'gpu_milli' of format openb-pods"). */
int trace_reader_start(struct trace_reader *rd, const struct csvin_rec *header, struct err *e);
/* One data record: 0, TRACE_BAD (reason in rd->why) or VF_E*. Checks the field count. */
int trace_reader_row(struct trace_reader *rd, const struct csvin_rec *r, struct err *e);
/* End of the import: emit what the format still holds. */
int trace_reader_finish(struct trace_reader *rd, struct err *e);
/* Free rd; may be NULL. */
void trace_reader_free(struct trace_reader *rd);

/* ---- helpers for trace-*.c ---- */

/* Field k (the format's column k, through rd->col) of r, or NULL when absent or empty. */
const char *trace_field(const struct trace_reader *rd, const struct csvin_rec *r, int k);
/* Copy column k, a name, into dst (size bytes with the NUL): 0 when copied; when absent or
 * empty, 1 (dst untouched), or TRACE_BAD if required ("column 'sn' is empty"); TRACE_BAD
 * when longer than size - 1 ("column 'sn': name longer than 47 bytes"). */
int trace_name(struct trace_reader *rd, const struct csvin_rec *r, int k, char *dst, size_t size,
	       int required);
/* Column k as a number: 0 (set *v), 1 when absent or empty (v untouched), TRACE_BAD when
 * not a number (why: "column 'cpu_milli': 'abc' is not a number"). */
int trace_num(struct trace_reader *rd, const struct csvin_rec *r, int k, double *v);
/* Column k as an amount times scale, rounded: 0 (set *out), or TRACE_BAD when not a number
 * or negative. Absent or empty gives -1 (not recorded). */
int trace_amount(struct trace_reader *rd, const struct csvin_rec *r, int k, double scale,
		 int64_t *out);
/* One amount a row reads: column k times scale into *out, as trace_amount reads it. */
struct trace_amount_of {
	int k;
	double scale;
	int64_t *out;
};
/* trace_amount of each of a[0..n), in order: 0, or the first one's TRACE_BAD (the rest not
 * read). */
int trace_amounts(struct trace_reader *rd, const struct csvin_rec *r,
		  const struct trace_amount_of *a, size_t n);
/* An ISO 8601 time ("2020-04-01 09:30:00", "2020-04-01T09:30:00.5Z", "...+08:00",
 * "2020-04-01") into seconds since the epoch (fractions rounded): a time without a zone is
 * at UTC + tz_offset seconds. 0, or -1 when s is not such a time. */
int trace_time_parse(const char *s, int64_t tz_offset, int64_t *out);
/* A --tz value: "UTC", "Z", "+08:00", "-0530", "+8" into seconds east of UTC; 0 or -1. */
int trace_tz_parse(const char *s, int64_t *offset);
/* 1 if s is a whole number or a decimal one (for sniffing header-less files), else 0;
 * empty_ok: NULL or "" counts as one. */
int trace_is_number(const char *s, int empty_ok);
/* A set of names (nodes seen), to keep the first of repeated node rows; each name may
 * carry a value (where it was seen). */
struct trace_nameset;
/* Add name: 1 if it was new, 0 if already there. *set may be NULL (created). */
int trace_nameset_add(struct trace_nameset **set, const char *name);
/* Add name with a copy of value (NULL: ""): 1 if it was new; 0 if already there, and then
 * *first (if first is not NULL) is the value it came with, valid until the set is freed. */
int trace_nameset_put(struct trace_nameset **set, const char *name, const char *value,
		      const char **first);
void trace_nameset_free(struct trace_nameset *set);
/* Set rd->why; returns TRACE_BAD. */
int trace_bad(struct trace_reader *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Round a number of the trace's unit to an int64 (half away from zero). */
int64_t trace_round(double v);
/* Send a job / node to the sink. */
int trace_emit_job(struct trace_reader *rd, const struct job *j, struct err *e);
int trace_emit_node(struct trace_reader *rd, const struct node *n, struct err *e);
/* Fill n's GPU fields from a model name (empty or "CPU": no GPUs) and a GPU count:
 * model id (unknown names, and no name on a node with GPUs, map to the UNKNOWN row), cap
 * gpu = ngpu*1000, cap hbm = ngpu * model HBM, or hbm_per_gpu MiB each if > 0. */
void trace_node_gpus(struct node *n, const char *model, int64_t ngpu, int64_t hbm_per_gpu);
/* trace_node_gpus, and a note in rd->unknown of a GPU node whose model the table does not
 * know (or that names none): such a node is priced and sized as the UNKNOWN row, never
 * left at $0 and 0 HBM. */
void trace_node_model(struct trace_reader *rd, struct node *n, const char *model, int64_t ngpu,
		      int64_t hbm_per_gpu);
/* j->gpu_spec from "A100|H800": a name the table does not know allows the UNKNOWN row
 * (where nodes of unknown models go) and is noted in rd->unknown; an empty name ("T4||")
 * is TRACE_BAD. spec NULL or "": any model. */
int trace_job_spec(struct trace_reader *rd, struct job *j, const char *spec);
/* A job's GPU request from a GPU count and a per-GPU share; TRACE_BAD (why set) if it
 * makes no sense (negative, share over 1000, a multi-GPU job with a share < 1000). */
int trace_job_gpus(struct trace_reader *rd, struct job *j, int64_t num_gpu, int64_t gpu_milli);

/* j->duration = end - start: 0, or TRACE_BAD when end < start ("END_NAME 9 before
 * START_NAME 10": the names of the two times in the row's own words). */
int trace_job_span(struct trace_reader *rd, struct job *j, int64_t start, int64_t end,
		   const char *start_name, const char *end_name);

/* The columns of a node row: its name, CPU and memory (times their scales), GPU count
 * and GPU model. */
struct trace_node_cols {
	int name, cpu, mem, gpu, model;
	double cpu_scale, mem_scale;
};
/* A node of such a row to the sink: 0, TRACE_BAD (no name, a bad amount, more GPUs than
 * a node holds: CLUSTER_MAX_GPUS) or VF_E*. Its GPUs and HBM by trace_node_model. */
int trace_node_row(struct trace_reader *rd, const struct csvin_rec *r,
		   const struct trace_node_cols *c, struct err *e);
/* A node of CPU and memory only, named name (what: its column in messages), to the sink
 * when add and the name is new to the import (rd->state, a trace_nameset: the first row of
 * a machine makes its node): 0, TRACE_BAD when the name is longer than a node's ("WHAT
 * longer than 47 bytes"; checked also when not add), or VF_E*. */
int trace_cpu_node(struct trace_reader *rd, const char *name, const char *what, int add,
		   int64_t cpu, int64_t mem, struct err *e);

/* j->workers from column k, a whole number of workers: 0 (set; absent or empty: 1), or
 * TRACE_BAD (why set) when it is no number, not whole, below 1 or above JOB_WORKERS_MAX. */
int trace_job_workers(struct trace_reader *rd, const struct csvin_rec *r, int k, struct job *j);
/* The same from a value already read (a count, or a column's arithmetic); name is the
 * column for the message. */
int trace_job_workers_set(struct trace_reader *rd, const char *name, double w, struct job *j);

/* ---- the generic format's mappings (trace-generic.c) ---- */

/* Load a mapping: spec is the name of a built-in mapping (schemas/NAME.map) or a path to a
 * .map file. Returns 0 or VF_EINPUT / VF_EIO. */
int trace_map_load(const char *spec, struct trace_map **out, struct err *e);
/* The built-in mapping whose header line matches this first record, or NULL (a new
 * mapping the caller owns). */
struct trace_map *trace_map_detect(const struct csvin_rec *first);
/* The mapping's name (for provenance: "generic:NAME"). */
const char *trace_map_name(const struct trace_map *m);
/* 1 if the mapping's rows are nodes, 0 if jobs. */
int trace_map_is_nodes(const struct trace_map *m);
/* The field delimiter of the files it maps (',' unless a 'delimiter' line says). */
unsigned char trace_map_delim(const struct trace_map *m);
/* 1 if its files have a header, 0 if it names their columns itself ('columns'). */
int trace_map_has_header(const struct trace_map *m);
void trace_map_free(struct trace_map *m);
extern const struct trace_format trace_generic;

#endif
