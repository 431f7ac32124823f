/*
 * enrich.h — enrichment: the demand and capacity values a trace does not record (net, sto,
 * iocpu; node cpu, mem, gpu, hbm where missing), drawn from a profile (DESIGN.md section 2).
 *
 * A profile is a small versioned text file (format in schemas/enrich-v2.profile, the
 * built-in default) of rules "job CLASS DIM DIST ..." and "node TYPE DIM DIST ...". A value
 * depends only on (profile name and version, seed, job id or node name, dim): never on row
 * order, nor on other rules. Enriched values are marked in job.enriched / node.enriched.
 */
#ifndef VOIDFIT_ENRICH_H
#define VOIDFIT_ENRICH_H

#include <stddef.h>
#include <stdint.h>

#include "job.h"
#include "sbuf.h"
#include "util.h"

struct enrich_profile; /* opaque; immutable once loaded */

/* Most values a rule's levels= may list. */
#define ENRICH_LEVELS_MAX 32

/* The request level x snaps to: of levels[0..n) (ascending, n > 0), the nearest to x (the
 * higher of two equally near; the lowest below levels[0], the highest above the last). A
 * rule with levels= draws, clamps, scales per GPU, then snaps: demands then repeat, as real
 * requests do. */
double enrich_snap(const double *levels, size_t n, double x);
/* The built-in profile's ladders: net and sto MB/s on a 1-2-5 series (1 .. 50,000), iocpu
 * in whole cores (0 .. 32 cores); 'voidfit gen' draws on them too. */
#define ENRICH_BW_NLEVELS   15
#define ENRICH_CORE_NLEVELS 11
extern const double enrich_bw_levels[ENRICH_BW_NLEVELS];
extern const double enrich_core_levels[ENRICH_CORE_NLEVELS];

/* Load the profile in file path, or the built-in default when path is NULL. On success sets
 * *out (free with enrich_free) and returns 0; otherwise returns VF_EIO (unreadable file) or
 * VF_EINPUT (bad text; the message carries "path:line:") and leaves *out NULL. */
int enrich_load(const char *path, struct enrich_profile **out, struct err *e);
/* The same from text (len bytes, need not be NUL-terminated); fname names it in messages
 * (e.g. a profile stored with a run). */
int enrich_parse(const char *text, size_t len, const char *fname, struct enrich_profile **out,
		 struct err *e);
/* Free p; p may be NULL. */
void enrich_free(struct enrich_profile *p);

/* The profile's name and version (its "name" and "version" lines), and its full text (for
 * recording with a run); all owned by p. */
const char *enrich_name(const struct enrich_profile *p);
int enrich_version(const struct enrich_profile *p);
const char *enrich_text(const struct enrich_profile *p);

/*
 * Enrich set in place, once (a second call would scale by io_pressure again):
 *  - every job demand of -1 on a dim that a rule covers (always net, sto, iocpu; cpu and mem
 *    if the profile has rules for them) gets a drawn value and its DIM_BIT in enriched;
 *  - every node capacity of -1 gets a value: gpu = ngpu * 1000; hbm = ngpu * the model's HBM
 *    (the UNKNOWN row's for an unknown model, 0 without GPUs); cpu, mem, net, sto, iocpu
 *    from the rules; each with its DIM_BIT in enriched;
 *  - then net and sto demand of every job, recorded or enriched, is multiplied by
 *    io_pressure (>= 0; 1 leaves them) and rounded to the nearest integer.
 * Recorded values (>= 0) are never replaced. Never fails: a loaded profile covers every
 * class and node type.
 */
void enrich_apply(const struct enrich_profile *p, uint64_t seed, double io_pressure,
		  struct job_set *set);

/* How many jobs / nodes of a set rest on enrichment, per dim (from the enriched bits). */
struct enrich_summary {
	size_t njobs, nnodes; /* size of the set */
	size_t jobs_any;      /* jobs with at least one enriched dim */
	size_t nodes_any;     /* nodes with at least one enriched dim */
	size_t jobs[DIM_N];   /* jobs whose demand on dim d is enriched */
	size_t nodes[DIM_N];  /* nodes whose capacity on dim d is enriched */
};
void enrich_summarize(const struct job_set *set, struct enrich_summary *s);
/* Append one line (no newline) for a report to out, e.g.
 * "jobs: net 2000/2000, sto 2000/2000, iocpu 2000/2000; nodes: none of 64", naming only the
 * dims with enriched values, in dim order. */
void enrich_describe(const struct enrich_summary *s, struct sbuf *out);
/* Read back a line enrich_describe wrote (as a store keeps it) into s: the counts per dim
 * and the totals; jobs_any and nodes_any are 0 for a part with none, else at least the
 * largest count. Returns 0, or -1 if text is not such a line. */
int enrich_describe_parse(const char *text, struct enrich_summary *s);

#endif
