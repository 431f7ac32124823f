/*
 * gpumodel.h — the GPU model table: each model's HBM and its price per GPU-hour in four tiers
 * (on demand, 1-year reserved, spot, owned), each with its source. The table is
 * schemas/gpu-models.csv, compiled in.
 *
 * Model ids are small integers (at most GPUMODEL_MAX), so a job's allowed models fit in a
 * uint32_t mask. A model the table does not know maps to the row named "UNKNOWN", whose
 * price and HBM are a clearly labelled default, never a silent zero.
 *
 * A planner's own table (import --gpu-models FILE, in the layout of gpu-models.csv) adds
 * models after the built-in ones, and aliases to any; it is kept in the store with the
 * trace, and store_open adds a store's models to this process's table (gpumodel_add) before
 * anything reads them. The table is one per process: rows are added on the main thread
 * before any other thread starts, and never change or move once added.
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
/* Number of models compiled in (ids 0 .. n-1); the ids after them are added models. */
int gpumodel_builtin_count(void);
/* The '|'-separated aliases of model id, "" when none. */
const char *gpumodel_aliases(int id);

/* A row of a model table, as read from a file or a store. */
struct gpumodel_def {
	struct gpumodel m;   /* hbm_mib 0 (prices 0, sources NULL): a row of aliases only */
	const char *aliases; /* '|'-separated other spellings, "" when none */
	int line;            /* the line it was read from, for errors */
};
struct gpumodel_defs {
	struct gpumodel_def *v; /* n rows, in file order (owned, strings too) */
	size_t n;
};
/* Parse a planner's model table: the text (size bytes) of file (named in errors). The
 * header names columns of gpu-models.csv in any order (aliases and is_default may be left
 * out); a row gives hbm_mib and every price with its source (a new model), or none of
 * them (aliases of a model). 0, or VF_EINPUT with "FILE:LINE: ..." in e (out then empty).
 * Whether names clash with the table is gpumodel_add's to say. */
int gpumodel_defs_read(const char *file, const char *text, size_t size, struct gpumodel_defs *out,
		       struct err *e);
void gpumodel_def_release(struct gpumodel_def *d);
/* Free ds's rows; ds may be NULL. */
void gpumodel_defs_release(struct gpumodel_defs *ds);
/* Make d known to this process's table and give its id: a new name becomes a model after
 * the others (refused when GPUMODEL_MAX are known); a known name (or alias) takes d's
 * aliases, and a row of a new model that the table already holds with the same HBM,
 * prices and sources is that model. VF_EINPUT ("GPU model 'X': ...", no file:line: the
 * caller says where d comes from) when d gives HBM or prices of a built-in model or others
 * of an added one, an alias names another model, or d is a row of aliases of a model
 * nobody knows. Call it on the main thread before any other starts: the table is not
 * locked. */
int gpumodel_add(const struct gpumodel_def *d, int *id, struct err *e);
/* Parse "V100M16|V100M32" into a mask of model ids; "" gives 0 (any model).
 * Unknown names are an input error in e. */
int gpumodel_mask(const char *spec, uint32_t *mask, struct err *e);

#endif
