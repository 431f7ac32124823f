/*
 * gpumodel.h — the GPU model table: each model's HBM and its price per GPU-hour in four tiers
 * (on demand, 1-year reserved, spot, owned), each with its source. The table is
 * schemas/gpu-models.csv, compiled in.
 *
 * Model ids are small integers (at most GPUMODEL_MAX), so a job's allowed models fit in a
 * uint32_t mask. A model the table does not know maps to the row named "UNKNOWN", whose
 * price and HBM are a clearly labelled default, never a silent zero.
 */
#ifndef VOIDFIT_GPUMODEL_H
#define VOIDFIT_GPUMODEL_H

#include <stdint.h>

#include "util.h"

#define GPUMODEL_MAX 32

/* Price tiers of a GPU-hour. */
enum gpumodel_tier {
	GPUMODEL_ON_DEMAND,
	GPUMODEL_RESERVED,
	GPUMODEL_SPOT,
	GPUMODEL_OWNED,
	GPUMODEL_NTIER
};

struct gpumodel {
	const char *name;                   /* "V100M32" */
	int64_t hbm_mib;                    /* memory of one GPU */
	double usd[GPUMODEL_NTIER];         /* price of one GPU-hour in each tier, > 0 */
	const char *source[GPUMODEL_NTIER]; /* where each price comes from, and when */
	int is_default;                     /* 1 for the UNKNOWN row */
};

/* "on-demand", "reserved", "spot", "owned". */
const char *gpumodel_tier_name(enum gpumodel_tier t);
/* The tier named s into *t: 0, or -1 if s names none. */
int gpumodel_tier_parse(const char *s, enum gpumodel_tier *t);
/* 1 when a price source is not a list price (it begins "assumed" or "derived"). */
int gpumodel_price_assumed(const char *source);

/* Number of models in the table. */
int gpumodel_count(void);
/* Model id, 0 <= id < gpumodel_count(). */
const struct gpumodel *gpumodel_get(int id);
/* Id of the model named s (case-insensitive; aliases such as "V100" allowed), or -1. */
int gpumodel_find(const char *s);
/* Id of the UNKNOWN row: what an unrecognised model name maps to. */
int gpumodel_unknown(void);
/* Parse "V100M16|V100M32" into a mask of model ids; "" gives 0 (any model).
 * Unknown names are an input error in e. */
int gpumodel_mask(const char *spec, uint32_t *mask, struct err *e);

#endif
