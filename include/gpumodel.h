/*
 * gpumodel.h — the GPU model table: each model's HBM and default price per GPU-hour, with the
 * source of the price. The table is schemas/gpu-models.csv, compiled in.
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

struct gpumodel {
	const char *name;         /* "V100M32" */
	int64_t hbm_mib;          /* memory of one GPU */
	double usd_per_hour;      /* default price of one GPU-hour */
	const char *price_source; /* where the price comes from */
	int is_default;           /* 1 for the UNKNOWN row */
};

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
