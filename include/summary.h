/*
 * summary.h — the summary tables of runs that replay and compare print: one row per run (or
 * per policy, its mean over seeds), the figures of runrec.h's columns that apply to the mode,
 * and for a comparison each policy's saving against a baseline, paired by seed, with its 95 %
 * confidence interval. Notes under the table say what the figures rest on: the window, the
 * prices and which are assumed, enrichment, node sampling, an incomplete set of seeds.
 */
#ifndef VOIDFIT_SUMMARY_H
#define VOIDFIT_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "fault.h"
#include "metrics.h"
#include "policy.h"
#include "runrec.h"
#include "table.h"

struct summary_opts {
	enum sim_mode mode;
	int compare;                       /* one row per policy, with the saving */
	const struct policy_ops *baseline; /* compare: the saving's reference (scalar) */
	const char *trace;                 /* trace name, in JSON and CSV */
};

/* The table of rows (n of them, grouped by policy, seeds ascending). Without compare: a row
 * each, then each policy's mean as an aggregate row where it has several seeds. With
 * compare: one row per policy (its mean, seed label "A-B"), its saving of recoverable $/yr
 * against the baseline paired by seed and the saving's 95 % interval, the best per column
 * marked. */
struct table *summary_table(const struct runrec *rows, size_t n, const struct summary_opts *o);

/* Add the notes: the pricing window (hours, from w0 to w1 in trace seconds; or the inflation
 * state held an hour), the provisioned GPU-hours, the price tier, the models whose price is
 * assumed (mask), the enrichment (desc: enrich_describe's text, or NULL when unknown), and
 * with k > 0 that placements scored at most k nodes. */
void summary_notes(struct table *t, enum sim_mode mode, int64_t w0, int64_t w1,
		   double provisioned_gpu_h, const struct metrics_opts *prices, uint32_t assumed,
		   const char *enriched, unsigned k);

/* Add the note of runs on nres block resamples of blocks of block_s seconds: what was
 * resampled and how. */
void summary_resample_note(struct table *t, uint32_t nres, int64_t block_s);

/* What the warnings look at besides the runs' figures. */
struct summary_check {
	/* the mean run time of the trace's jobs (their duration alone), seconds; NaN when not
	 * known: each run's mean jct - mean wait stands in */
	double run_mean_s;
	const struct fault *faults; /* the scenario's faults (nfaults of them), or NULL */
	size_t nfaults;
	/* per row: the jobs each fault touched (nfaults values), or NULL when not known (a run
	 * read back); NULL: none known */
	const int64_t *const *fault_jobs;
	/* the trace's gang jobs (W > 1) and their largest W: held unplaceable by the replay
	 * (gang.h); 0: none */
	int64_t gangs, gang_max_workers;
};

/* The warnings about runs rows[0..n) (grouped by policy, as summary_table takes them), each
 * a line "warning: ..." without its newline: every job unplaceable; a policy whose mean
 * allocated GPU share is under 1 %; an overload (a policy's mean wait over ten times the
 * mean run time); a fault that touched no job in any run. With faults and their counts,
 * also a note (not a warning) of how many jobs each fault touched. Each line is added to t
 * as a note when t is not NULL, and appended to lines with a newline when lines is not
 * NULL. ck may be NULL. Returns the number of warnings. Replay prints them on stderr;
 * compare and report call it on the runs they read back. */
size_t summary_warnings(const struct runrec *rows, size_t n, const struct summary_check *ck,
			struct table *t, struct sbuf *lines);

#endif
