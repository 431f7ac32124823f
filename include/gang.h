/*
 * gang.h — the gangs of a job set (jobs of W > 1 workers, job.h), counted. The engine
 * places them (sim-gang.c); this is what a command says about a trace's gangs.
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

#endif
