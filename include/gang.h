/*
 * gang.h — what a replay does with a gang job (W > 1 workers, job.h) until the engine places
 * gangs: it holds them out of the run, each one unplaceable with its own reason.
 *
 * This is the one place that decides it: the engine's gang placement replaces
 * gang_hold (and gang_why's use in the per-job results) and nothing else.
 */
#ifndef VOIDFIT_GANG_H
#define VOIDFIT_GANG_H

#include <stddef.h>
#include <stdint.h>

#include "job.h"

/* The gangs of a job set. */
struct gang_count {
	int64_t jobs;        /* jobs with W > 1 */
	int64_t max_workers; /* the largest W among them (0 if none) */
};

/* Count js's gangs into *c. */
void gang_count(const struct job_set *js, struct gang_count *c);

/* Make every gang of js (enriched: every capacity known) unplaceable for the sim: its cpu
 * demand is set above every node's cpu capacity, so the sim refuses it at arrival as no
 * node can hold it, and places no part of it. Call after the target workload is built
 * (which takes each gang's per-worker shape). Returns the gangs held. */
int64_t gang_hold(struct job_set *js);

/* The short reason in a run's per-job results (the "why" column): "gang". */
#define GANG_WHY_NAME "gang"

#endif
