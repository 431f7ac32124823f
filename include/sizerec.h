/*
 * sizerec.h — a sizing's record: what 'voidfit size' found (size.h's results), as a table
 * for a person and as rows of the store, beside runrec, which does the same for runs.
 *
 *   sizerec_table     the policies whose full cluster meets the SLO, their smallest cluster
 *                     by GPU model, the GPUs retired and their $ a year, and the notes that
 *                     say how to read them
 *   sizerec_store     the same in the store: the scenario's row and a sizing per policy, in
 *                     one transaction (store_sizing_put)
 *   sizerec_miss      why a size missed the SLO, as a person reads it
 *
 * Nothing here prints.
 */
#ifndef VOIDFIT_SIZEREC_H
#define VOIDFIT_SIZEREC_H

#include <stddef.h>
#include <stdint.h>

#include "sbuf.h"
#include "size.h"
#include "store.h"
#include "table.h"
#include "util.h"

/* Why check c of slo missed, into out: "wait_p95<=15m: 17.2m at seed 2", the unplaceable
 * jobs against full's (the full cluster's check), or that no node was left. */
void sizerec_miss(const struct size_slo *slo, const struct size_check *c,
		  const struct size_check *full, struct sbuf *out);

/* What voids the figures of res (o->npol), as a warning into out, nothing when nothing
 * does: the policies whose full cluster is almost idle (its mean allocated GPU share under
 * METRICS_IDLE_ALLOC: their retired GPUs are the idle ones, not what placement frees), and
 * an SLO that bounds no wait (size_slo_bounds_wait). */
void sizerec_warning(const struct size_opts *o, const struct size_result *res, struct sbuf *out);
/* The warning about an SLO that bounds no wait, into out ("" when it bounds one). */
void sizerec_wait_warning(const struct size_slo *slo, enum sim_mode mode, struct sbuf *out);

/* The table of the results res of o (one per policy) whose full cluster meets the SLO,
 * best marked (none under sizerec_warning's SLO, an idle cluster's unranked), with its notes;
 * slo_text is the SLO as size_slo_text gives it. The caller frees it with table_free. */
struct table *sizerec_table(const struct size_opts *o, const struct size_result *res,
			    const char *slo_text);

/* 0 if st takes a sizing now (a write transaction begins), before a search whose result
 * would otherwise be lost; else the cause in e. */
int sizerec_can_store(struct store *st, struct err *e);

/* Store the results res of o whose full cluster meets the SLO, with the scenario's row,
 * in one transaction: *scenario_id the scenario's id, *nstored how many sizings (0 and
 * nothing written when no full cluster meets it). shrink: the --shrink model's name, ""
 * for every group. Returns 0, or the store's error in e (nothing stored). */
int sizerec_store(struct store *st, const struct size_opts *o, const struct size_result *res,
		  const char *slo_text, const char *shrink, int64_t *scenario_id, size_t *nstored,
		  struct err *e);

#endif
