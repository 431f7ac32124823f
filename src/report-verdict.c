/*
 * report-verdict.c — the line report and compare lead with (report.h, report_verdict_lead):
 * the verdict's first answer where the store holds it, the smallest clusters 'voidfit size'
 * stored for the baseline and other policies at one SLO; else the command that computes
 * the verdict, which the store does not keep.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "report.h"
#include "runrec.h"
#include "store.h"
#include "verdict.h"

/* One stored sizing, what the lead needs of it. */
struct lead_size {
	char *policy,
		*key; /* key: what makes two sizings comparable (SLO, seeds, shrink, prices) */
	char *slo, *tier;
	int64_t gpus_min;
	double usd; /* the GPUs it retires, a year */
	uint64_t lo, hi;
};

struct lead_list {
	struct lead_size *s;
	size_t n, cap;
};

static char *dup_or_empty(const char *s)
{
	return xstrdup(s ? s : "");
}

static int lead_cb(void *ctx, const struct store_sizing *z)
{
	struct lead_list *l = ctx;
	struct sbuf k = SBUF_INIT;
	sbuf_init(&k);
	sbuf_printf(&k, "%s|%llu-%llu|%s|%s|%s", z->slo ? z->slo : "",
		    (unsigned long long)z->seed_lo, (unsigned long long)z->seed_hi,
		    z->shrink ? z->shrink : "", z->price_tier ? z->price_tier : "",
		    z->prices ? z->prices : "");
	xgrow(&l->s, &l->cap, l->n + 1, sizeof *l->s);
	l->s[l->n++] = (struct lead_size){.policy = dup_or_empty(z->policy),
					  .key = xstrdup(k.s),
					  .slo = dup_or_empty(z->slo),
					  .tier = dup_or_empty(z->price_tier),
					  .gpus_min = z->gpus_min,
					  .usd = z->usd_per_year,
					  .lo = z->seed_lo,
					  .hi = z->seed_hi};
	sbuf_release(&k);
	return 0;
}

/* The verdict command on path for sc's scenario: " --mode inflate --target 0.8", or
 * " --resamples 20" (inflation draws with replacement already: no resample), then where
 * sc sets more than its mode, the words that name it (runrec_describe) for the reader to
 * give as options too. */
static void verdict_cmd(const struct store_scenario *sc, const char *path, const char *baseline,
			struct sbuf *out)
{
	const char *q = strpbrk(path, " '\"\\$`") ? "'" : ""; /* quoted where a shell needs it */
	int inflate = sc->mode && !strcmp(sc->mode, "inflate");
	struct sbuf d = SBUF_INIT, m = SBUF_INIT;
	sbuf_init(&d);
	sbuf_init(&m);
	sbuf_printf(out, "voidfit verdict %s%s%s --baseline %s", q, path, q, baseline);
	if (inflate)
		sbuf_printf(out, " --mode inflate --target %g", sc->target);
	else
		sbuf_adds(out, " --resamples 20");
	runrec_describe(sc, NULL, &d);
	if (inflate)
		sbuf_printf(&m, "inflate to %g", sc->target);
	else
		sbuf_adds(&m, "timed fifo"); /* the defaults' words */
	if (strcmp(d.s, m.s))
		sbuf_printf(out, ", with this scenario's options too (%s)", d.s);
	sbuf_release(&d);
	sbuf_release(&m);
}

int report_verdict_lead(struct store *st, const char *path, const struct store_scenario *sc,
			const char *baseline, double alloc, struct sbuf *out, struct err *e)
{
	struct lead_list l = {0};
	int inflate = sc->mode && !strcmp(sc->mode, "inflate");
	int rc = store_sizing_list(st, sc->id, lead_cb, &l, e);
	const struct lead_size *b = NULL, *best = NULL;
	/* the baseline's newest sizing, and the candidate that retires the most beside it */
	for (size_t i = 0; !rc && i < l.n; i++)
		if (!strcmp(l.s[i].policy, baseline))
			b = &l.s[i];
	for (size_t i = 0; b && i < l.n; i++) {
		const struct lead_size *c = &l.s[i];
		if (c != b && strcmp(c->policy, baseline) && !strcmp(c->key, b->key) &&
		    (!best || c->usd > best->usd))
			best = c;
	}
	if (!rc && alloc < METRICS_IDLE_ALLOC) /* (NaN: not) */
		sbuf_printf(
			out,
			"WARNING: the runs allocate %.2f %% of the GPUs on average (under "
			"%.0f %%): the cluster is nearly idle here, so GPUs retired and demand "
			"absorbed measure idle time, not placement; load it with --mode inflate "
			"(the FGD paper's method). ",
			100 * alloc, 100 * METRICS_IDLE_ALLOC);
	if (!rc && best) {
		sbuf_printf(out, "Sized at the same SLO (%s, seed%s %llu",
			    *b->slo ? b->slo : "no more unplaceable jobs",
			    b->lo == b->hi ? "" : "s", (unsigned long long)b->lo);
		if (b->hi != b->lo)
			sbuf_printf(out, "-%llu", (unsigned long long)b->hi);
		sbuf_adds(out, "; voidfit size): ");
		if (best->usd > b->usd) {
			sbuf_printf(out, "switching %s -> %s needs %lld fewer GPUs, ", baseline,
				    best->policy, (long long)(b->gpus_min - best->gpus_min));
			verdict_usd_words(best->usd - b->usd, out);
			sbuf_printf(out, "/yr less at %s prices", b->tier);
		} else {
			sbuf_printf(out, "no policy sized needs fewer GPUs than %s", baseline);
		}
		sbuf_adds(out, inflate ? ". With headroom for more demand: "
				       : ". With headroom for more demand and the interval over "
					 "which days were traced: ");
		verdict_cmd(sc, path, baseline, out);
		sbuf_adds(out, ".");
	} else if (!rc) {
		sbuf_adds(out,
			  "The verdict in money off the bill (GPUs retired at today's service, "
			  "demand absorbed before the next purchase");
		sbuf_adds(out, inflate ? ") is not stored: "
				       : ", with the interval over which days were traced) is not "
					 "stored: ");
		verdict_cmd(sc, path, baseline, out);
		sbuf_adds(out, ".");
	}
	for (size_t i = 0; i < l.n; i++) {
		free(l.s[i].policy);
		free(l.s[i].key);
		free(l.s[i].slo);
		free(l.s[i].tier);
	}
	free(l.s);
	return rc;
}
