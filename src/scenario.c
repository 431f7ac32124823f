/*
 * scenario.c — the options that define a scenario, their defaults, and loading what they name
 * (scenario.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "clusterspec.h"
#include "gpumodel.h"
#include "k8s.h"
#include "policy.h"
#include "scenario.h"
#include "sha256.h"
#include "words.h"

#define ROW(ID, SHORT, NAME, ARG, USAGE, HELP, TYPE, FIELD, LO, HI, DEF, UNIT, KEY, COLUMN, POL)   \
	{                                                                                          \
		NAME, SCENARIO_K_##ID, ARG, HELP, SCENARIO_##TYPE,                                 \
			offsetof(struct scenario, FIELD), LO, HI, DEF, UNIT, KEY, COLUMN, POL      \
	}
const struct scenario_param scenario_params[SCENARIO_NPARAM] = {
	SCENARIO_PARAMS(ROW, SCENARIO_SEP_COMMA)};
#undef ROW

const struct scenario_param *scenario_param_find(const char *name)
{
	for (int i = 0; i < SCENARIO_NPARAM; i++)
		if (!strcmp(scenario_params[i].name, name))
			return &scenario_params[i];
	return NULL;
}

/* The double of a REAL row in sc. */
static double *real_at(struct scenario *sc, const struct scenario_param *p)
{
	return (double *)(void *)((char *)sc + p->offset);
}

double scenario_real(const struct scenario *sc, const struct scenario_param *p)
{
	return *(const double *)(const void *)((const char *)sc + p->offset);
}

void scenario_init(struct scenario *sc)
{
	struct sim_opts o;
	sim_opts_init(&o); /* the engine's defaults are the scenario's */
	memset(sc, 0, sizeof *sc);
	sc->mode = o.mode;
	sc->target = o.target;
	sc->queue = o.queue;
	sc->preempt = o.preempt;
	for (int i = 0; i < SCENARIO_NPARAM; i++)
		if (scenario_params[i].type != SCENARIO_FN)
			*real_at(sc, &scenario_params[i]) = scenario_params[i].def;
	sc->sample_nodes = o.sample_nodes;
	sc->io_admission = o.io_admission;
	sc->io_pressure = 1;
	sc->win_start = o.win_start;
	sc->win_end = o.win_end;
	sc->gang_spread = o.gang_spread;
	sc->runtime_over = o.runtime_over;
	metrics_opts_init(&sc->prices);
	sbuf_init(&sc->trace_name);
	sbuf_init(&sc->cluster_text);
}

void scenario_release(struct scenario *sc)
{
	if (!sc)
		return;
	FREE_ALL(sc->faults, sc->price_specs);
	enrich_free(sc->profile);
	job_set_release(&sc->base);
	sbuf_release(&sc->trace_name);
	sbuf_release(&sc->cluster_text);
	sc->faults = NULL;
	sc->price_specs = NULL;
	sc->profile = NULL;
}

int scenario_is_key(int key)
{
	return key == SCENARIO_K_MODE || key == SCENARIO_K_TARGET ||
	       (key >= SCENARIO_K_FIRST && key < SCENARIO_K_LAST);
}

/* The words of an option whose value is one of them, in the order of its enum. */
static const char *const mode_words[] = {"timed", "inflate", NULL};
static const char *const scoring_words[] = {"exact", "k8s", NULL};
static const char *const tie_words[] = {"name", "shuffled", "random", NULL};

/* s as the index of one of words (NULL-terminated) into *out, or VF_EINPUT naming --name
 * and the words ("not a, b or c"). */
static int word_in(const char *name, const char *s, const char *const *words, int *out,
		   struct err *e)
{
	struct sbuf list = SBUF_INIT;
	int n = 0;
	for (; words[n]; n++)
		if (!strcmp(s, words[n])) {
			*out = n;
			return VF_OK;
		}
	sbuf_init(&list);
	for (int i = 0; i < n; i++)
		sbuf_printf(&list, "%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ", words[i]);
	int rc = err_set(e, VF_EINPUT, "--%s '%s': not %s", name, s, list.s);
	sbuf_release(&list);
	return rc;
}

/* s as a number in [lo, hi] into *out, or VF_EINPUT naming --name. */
static int num_in(const char *name, const char *s, double lo, double hi, double *out, struct err *e)
{
	double v;
	if (parse_double(s, &v) || !isfinite(v) || v < lo || (hi > lo && v > hi)) {
		if (hi > lo)
			return err_set(e, VF_EINPUT, "--%s '%s': not a number in [%.15g, %.15g]",
				       name, s, lo, hi);
		return err_set(e, VF_EINPUT, "--%s '%s': not a number >= %g", name, s, lo);
	}
	*out = v;
	return VF_OK;
}

int scenario_parse_window(const char *s, int64_t *start, int64_t *end, struct err *e)
{
	const char *dots = strstr(s, "..");
	if (!dots)
		return err_set(e, VF_EINPUT, "--window '%s': not START..END", s);
	char *a = xstrndup(s, (size_t)(dots - s));
	int bad = fault_parse_duration(a, start) || fault_parse_duration(dots + 2, end);
	free(a);
	if (bad)
		return err_set(e, VF_EINPUT,
			       "--window '%s': START and END are times (90, 15m, 6h, 2d)", s);
	if (*end <= *start)
		return err_set(e, VF_EINPUT, "--window '%s': END is not after START", s);
	return VF_OK;
}

int scenario_set(struct scenario *sc, int key, const char *arg, struct err *e)
{
	unsigned v;
	double d;
	int rc = VF_OK, w;

	for (int i = 0; i < SCENARIO_NPARAM; i++) {
		const struct scenario_param *p = &scenario_params[i];
		if (p->key == key && p->type != SCENARIO_FN)
			return num_in(p->name, arg, p->lo, p->hi, real_at(sc, p), e);
	}
	switch (key) {
	case SCENARIO_K_MODE:
		if ((rc = word_in("mode", arg, mode_words, &w, e)))
			return rc;
		sc->mode = (enum sim_mode)w;
		sc->given |= SCENARIO_G_MODE;
		return VF_OK;
	case SCENARIO_K_TARGET:
		sc->given |= SCENARIO_G_TARGET;
		return num_in("target", arg, 0.01, 10, &sc->target, e);
	case SCENARIO_K_QUEUE:
		sc->given |= SCENARIO_G_QUEUE;
		if (sim_queue_parse(arg, &sc->queue))
			return err_set(e, VF_EINPUT,
				       "--queue '%s': not fifo, backfill, priority or easy", arg);
		return VF_OK;
	case SCENARIO_K_PREEMPT:
		sc->preempt = 1;
		sc->given |= SCENARIO_G_PREEMPT;
		return VF_OK;
	case SCENARIO_K_TRACE:
		sc->trace_arg = arg;
		return VF_OK;
	case SCENARIO_K_DIMS:
		if (job_dims_parse(arg, &sc->dims) || !sc->dims)
			return err_set(e, VF_EINPUT,
				       "--dims '%s': not a list of dims (cpu, mem, gpu, hbm, net, "
				       "sto, iocpu; all; hard)",
				       arg);
		return VF_OK;
	case SCENARIO_K_SAMPLE:
		rc = num_in("sample-nodes", arg, 0, 1e9, &d, e);
		if (!rc && d != floor(d))
			rc = err_set(e, VF_EINPUT, "--sample-nodes '%s': not a whole number", arg);
		v = rc ? 0 : (unsigned)d;
		if (!rc)
			sc->sample_nodes = v;
		sc->given |= SCENARIO_G_SAMPLE;
		return rc;
	case SCENARIO_K_ADMIT:
		if (strcmp(arg, "on") && strcmp(arg, "off"))
			return err_set(e, VF_EINPUT, "--io-admission '%s': want on or off", arg);
		sc->io_admission = !strcmp(arg, "on");
		return VF_OK;
	case SCENARIO_K_FAULT:
		xgrow(&sc->faults, &sc->faultcap, sc->nfaults + 1, sizeof *sc->faults);
		if ((rc = fault_parse(arg, &sc->faults[sc->nfaults], e)))
			err_prefix(e, "--fault ");
		else
			sc->nfaults++;
		return rc;
	case SCENARIO_K_FAULT_FILE:
		sc->fault_file = arg;
		return VF_OK;
	case SCENARIO_K_PROFILE:
		sc->profile_path = arg;
		return VF_OK;
	case SCENARIO_K_IO:
		return num_in("io-pressure", arg, 0, SCENARIO_IO_MAX, &sc->io_pressure, e);
	case SCENARIO_K_PRICE: {
		/* a model of the store's own table is known once the store is open: then
		 * scenario_prices names what is still unknown */
		char name[METRICS_MODEL_NAME];
		double usd;
		if ((rc = metrics_price_split(arg, name, &usd, e)) ||
		    (gpumodel_find(name) >= 0 && (rc = metrics_price_parse(&sc->prices, arg, e)))) {
			err_prefix(e, "--gpu-price ");
			return rc;
		}
		xgrow(&sc->price_specs, &sc->pricecap, sc->nprice_specs + 1,
		      sizeof *sc->price_specs);
		sc->price_specs[sc->nprice_specs++] = arg;
		return VF_OK;
	}
	case SCENARIO_K_TIER:
		if (gpumodel_tier_parse(arg, &sc->prices.tier))
			return err_set(e, VF_EINPUT,
				       "--price-tier '%s': not on-demand, reserved, spot or owned",
				       arg);
		return VF_OK;
	case SCENARIO_K_CLUSTER:
		sc->cluster_path = arg;
		return VF_OK;
	case SCENARIO_K_WINDOW:
		sc->given |= SCENARIO_G_WINDOW;
		return scenario_parse_window(arg, &sc->win_start, &sc->win_end, e);
	case SCENARIO_K_SCORING:
		if (!(rc = word_in("scoring", arg, scoring_words, &w, e)))
			sc->scoring = (enum sim_scoring)w;
		return rc;
	case SCENARIO_K_TIE:
		sc->given |= SCENARIO_G_K8S;
		if (!(rc = word_in("tie-break", arg, tie_words, &w, e)))
			sc->tie = (enum sim_tie)w;
		return rc;
	case SCENARIO_K_WEIGHTS: {
		struct k8s_plugin pl[K8S_MAX_PLUGINS];
		size_t n;
		const char *bad;
		sc->given |= SCENARIO_G_K8S;
		if (k8s_weights_parse(arg, pl, K8S_MAX_PLUGINS - 1, &n, &bad))
			return err_set(e, VF_EINPUT,
				       "--k8s-weights '%s': not POLICY=WEIGHT,... (weights 1 to "
				       "1000000, each policy once) at '%s'",
				       arg, bad);
		sc->k8s_weights = arg;
		return VF_OK;
	}
	case SCENARIO_K_MTBF:
	case SCENARIO_K_REPAIR:
	case SCENARIO_K_CKPT:
	case SCENARIO_K_CKPT_COST: {
		int64_t t;
		int pos = key == SCENARIO_K_MTBF || key == SCENARIO_K_REPAIR;
		const char *name = key == SCENARIO_K_MTBF     ? "node-mtbf"
				   : key == SCENARIO_K_REPAIR ? "node-repair"
				   : key == SCENARIO_K_CKPT   ? "checkpoint-every"
							      : "checkpoint-cost";
		if (fault_parse_duration(arg, &t) || (pos && !t))
			return err_set(e, VF_EINPUT, "--%s '%s': not a%s time (90, 15m, 6h, 2d)",
				       name, arg, pos ? " positive" : "");
		*(key == SCENARIO_K_MTBF     ? &sc->node_mtbf
		  : key == SCENARIO_K_REPAIR ? &sc->node_repair
		  : key == SCENARIO_K_CKPT   ? &sc->ckpt_every
					     : &sc->ckpt_cost) = (double)t;
		return VF_OK;
	}
	case SCENARIO_K_SPREAD:
		sc->gang_spread = 1;
		return VF_OK;
	case SCENARIO_K_OVERESTIMATE:
		sc->given |= SCENARIO_G_OVERESTIMATE;
		return num_in("runtime-overestimate", arg, 0.01, 1000, &sc->runtime_over, e);
	default:
		return err_set(e, VF_EINPUT, "not a scenario option");
	}
}

int scenario_check(const struct scenario *sc, struct err *e)
{
	if ((sc->given & SCENARIO_G_TARGET) && sc->mode != SIM_INFLATE)
		return err_set(e, VF_EINPUT, "--target applies to --mode inflate only");
	if ((sc->given & SCENARIO_G_QUEUE) && sc->mode != SIM_TIMED)
		return err_set(e, VF_EINPUT, "--queue applies to --mode timed only");
	if (sc->preempt && sc->queue != SIM_PRIORITY)
		return err_set(e, VF_EINPUT, "--preempt needs --queue priority");
	if ((sc->node_mtbf > 0) != (sc->node_repair > 0))
		return err_set(e, VF_EINPUT, "--node-mtbf and --node-repair go together");
	if (sc->ckpt_cost > 0 && !(sc->ckpt_every > 0))
		return err_set(e, VF_EINPUT, "--checkpoint-cost needs --checkpoint-every");
	if ((sc->node_mtbf > 0 || sc->ckpt_every > 0) && sc->mode != SIM_TIMED)
		return err_set(e, VF_EINPUT,
			       "--node-mtbf and --checkpoint-every apply to --mode timed only");
	if ((sc->given & SCENARIO_G_WINDOW) && sc->mode != SIM_TIMED)
		return err_set(e, VF_EINPUT, "--window applies to --mode timed only");
	if ((sc->given & SCENARIO_G_OVERESTIMATE) && sc->queue != SIM_EASY)
		return err_set(e, VF_EINPUT, "--runtime-overestimate needs --queue easy");
	if ((sc->given & SCENARIO_G_K8S) && sc->scoring != SIM_SCORING_K8S)
		return err_set(e, VF_EINPUT, "--tie-break and --k8s-weights need --scoring k8s");
	if (sc->scoring == SIM_SCORING_K8S && sc->sample_nodes)
		return err_set(e, VF_EINPUT,
			       "--sample-nodes applies to --scoring exact only (k8s scores every "
			       "feasible node)");
	return VF_OK;
}

/* Replace the nodes of js by those of a cluster spec (text of len bytes, named fname). */
static int use_cluster(struct job_set *js, const char *text, size_t len, const char *fname,
		       struct err *e)
{
	struct job_set spec = {0};
	int rc = clusterspec_parse(text, len, fname, &spec, e);
	if (!rc && !spec.nnodes)
		rc = err_set(e, VF_EINPUT, "%s: no node groups", fname);
	if (rc) {
		job_set_release(&spec);
		return rc;
	}
	free(js->nodes);
	js->nodes = spec.nodes;
	js->nnodes = spec.nnodes;
	js->nodecap = spec.nodecap;
	spec.nodes = NULL;
	spec.nnodes = spec.nodecap = 0;
	job_set_release(&spec);
	return VF_OK;
}

struct name_ctx {
	int64_t id;
	struct sbuf *out;
};

static int name_cb(void *ctx, const struct store_trace_info *t)
{
	struct name_ctx *n = ctx;
	if (t->id != n->id)
		return 0;
	sbuf_adds(n->out, t->name);
	return 1;
}

/* The name of trace id in st into out (the id as text if the store has none for it). */
static void trace_name(struct store *st, int64_t id, struct sbuf *out)
{
	struct name_ctx n = {id, out};
	struct err e;
	size_t len = out->len;
	if (store_trace_list(st, name_cb, &n, &e) != 1 || out->len == len)
		sbuf_printf(out, "%" PRId64, id);
}

/* Read and parse the files sc names: the --cluster spec (its nodes into nodes), the
 * --fault-file (its faults after sc's) and the profile. */
static int load_files(struct scenario *sc, struct job_set *nodes, struct err *e)
{
	struct sbuf text = SBUF_INIT;
	int rc = VF_OK;

	sbuf_init(&text);
	if (sc->cluster_path) {
		sbuf_reset(&sc->cluster_text);
		if ((rc = words_read_file(sc->cluster_path, SCENARIO_FILE_MAX, "a cluster spec",
					  &sc->cluster_text, e)) ||
		    (rc = use_cluster(nodes, sc->cluster_text.s, sc->cluster_text.len,
				      sc->cluster_path, e)))
			goto out;
	}
	if (sc->fault_file &&
	    ((rc = words_read_file(sc->fault_file, SCENARIO_FILE_MAX, "a fault file", &text, e)) ||
	     (rc = fault_parse_text(text.s, text.len, sc->fault_file, &sc->faults, &sc->nfaults,
				    e))))
		goto out;
	sc->faultcap = sc->nfaults;
	enrich_free(sc->profile);
	sc->profile = NULL;
	rc = enrich_load(sc->profile_path, &sc->profile, e);
out:
	sbuf_release(&text);
	return rc;
}

int scenario_prices(struct scenario *sc, struct err *e)
{
	for (size_t i = 0; i < sc->nprice_specs; i++) {
		int rc = metrics_price_parse(&sc->prices, sc->price_specs[i], e);
		if (rc) {
			err_prefix(e, "--gpu-price ");
			return rc;
		}
	}
	return VF_OK;
}

int scenario_load(struct scenario *sc, struct store *st, struct err *e)
{
	int rc;
	if ((rc = scenario_prices(sc, e)) ||
	    (rc = store_trace_find(st, sc->trace_arg, &sc->trace_id, e)))
		return rc;
	sbuf_reset(&sc->trace_name);
	trace_name(st, sc->trace_id, &sc->trace_name);
	job_set_release(&sc->base);
	if ((rc = store_trace_load(st, sc->trace_id, &sc->base, e)) ||
	    (rc = load_files(sc, &sc->base, e)))
		return rc;
	if (!sc->base.nnodes)
		return err_set(e, VF_EINPUT,
			       "trace '%s' has no nodes: give a cluster with --cluster FILE (a "
			       "cluster spec, voidfit(5)) or import a node list with the trace",
			       sc->trace_name.s);
	if (!sc->base.njobs)
		return err_set(
			e, VF_EINPUT,
			"trace '%s' has no jobs: import a job or pod list with its node list "
			"('voidfit import --format list' shows the formats)",
			sc->trace_name.s);
	return VF_OK;
}

int scenario_check_files(struct scenario *sc, struct err *e)
{
	struct job_set nodes = {0};
	int rc = load_files(sc, &nodes, e);
	job_set_release(&nodes);
	return rc;
}

/* The dims of mask as "cpu,gpu". */
static void dims_text(uint32_t mask, struct sbuf *out)
{
	const char *sep = "";
	for (int d = 0; d < DIM_N; d++) {
		if (!(mask & DIM_BIT(d)))
			continue;
		sbuf_printf(out, "%s%s", sep, job_dim_name((enum dim)d));
		sep = ",";
	}
}

/* The SHA-256 of p[0..n) in hex. */
static void add_sha(struct sbuf *out, const void *p, size_t n)
{
	uint8_t d[32];
	char hex[65];
	sha256_buf(p, n, d);
	sha256_hex(d, hex);
	sbuf_adds(out, hex);
}

/* Each option's part of the key, in the table's order. */
static void key_part(const struct scenario *sc, int key, struct sbuf *out)
{
	char buf[256];
	switch (key) {
	case SCENARIO_K_TRACE:
		sbuf_printf(out, "trace=%" PRId64, sc->trace_id);
		break;
	case SCENARIO_K_MODE:
		sbuf_printf(out, ";mode=%s", sim_mode_name(sc->mode));
		break;
	case SCENARIO_K_TARGET:
		if (sc->mode == SIM_INFLATE)
			sbuf_printf(out, ";target=%.17g", sc->target);
		break;
	case SCENARIO_K_QUEUE:
		if (sc->mode != SIM_INFLATE)
			sbuf_printf(out, ";queue=%s", sim_queue_name(sc->queue));
		break;
	case SCENARIO_K_PREEMPT:
		if (sc->mode != SIM_INFLATE)
			sbuf_printf(out, ";preempt=%d", sc->preempt);
		break;
	case SCENARIO_K_DIMS:
		sbuf_adds(out, ";dims=");
		dims_text(sc->dims, out);
		break;
	case SCENARIO_K_SAMPLE:
		sbuf_printf(out, ";sample_nodes=%u", sc->sample_nodes);
		break;
	case SCENARIO_K_FAULT: /* --fault-file's faults are among them once loaded */
		sbuf_adds(out, ";faults=");
		for (size_t i = 0; i < sc->nfaults; i++) {
			fault_format(&sc->faults[i], buf, sizeof buf);
			sbuf_printf(out, "%s%s", i ? "," : "", buf);
		}
		break;
	case SCENARIO_K_PROFILE:
		sbuf_adds(out, ";profile=");
		if (sc->profile) {
			const char *t = enrich_text(sc->profile);
			add_sha(out, t, strlen(t));
		}
		break;
	case SCENARIO_K_IO:
		sbuf_printf(out, ";io_pressure=%.17g", sc->io_pressure);
		break;
	case SCENARIO_K_CLUSTER:
		sbuf_adds(out, ";cluster=");
		if (sc->cluster_path)
			add_sha(out, sc->cluster_text.s, sc->cluster_text.len);
		break;
	case SCENARIO_K_WINDOW:
		if (sc->win_start >= 0)
			sbuf_printf(out, ";window=%" PRId64 "..%" PRId64, sc->win_start,
				    sc->win_end);
		break;
	case SCENARIO_K_ADMIT:
		/* always: the default is each policy's own, which changed once (ragp7 now
		 * admits) */
		sbuf_printf(out, ";io_admission=%s",
			    sc->io_admission < 0 ? "default"
			    : sc->io_admission   ? "on"
						 : "off");
		/* a resample is set by a command, not an option, and comes here; the trace as
		 * recorded adds nothing, so the keys of earlier runs stay as they were */
		if (sc->resample > 0)
			sbuf_printf(out, ";resample=%" PRIu32 ";block=%" PRId64, sc->resample,
				    sc->block_s);
		break;
	case SCENARIO_K_SCORING:
		/* exact scoring adds nothing, so the keys of earlier runs stay as they were */
		if (sc->scoring == SIM_SCORING_K8S)
			sbuf_printf(out, ";scoring=k8s;tie=%s;weights=%s",
				    sc->tie == SIM_TIE_RANDOM     ? "random"
				    : sc->tie == SIM_TIE_SHUFFLED ? "shuffled"
								  : "name",
				    sc->k8s_weights ? sc->k8s_weights : "");
		break;
	case SCENARIO_K_MTBF: /* none adds nothing, so the keys of earlier runs stay */
		if (sc->node_mtbf > 0)
			sbuf_printf(out, ";failures=%.17g/%.17g", sc->node_mtbf, sc->node_repair);
		break;
	case SCENARIO_K_CKPT:
		if (sc->ckpt_every > 0 || sc->ckpt_cost > 0)
			sbuf_printf(out, ";checkpoint=%.17g/%.17g", sc->ckpt_every, sc->ckpt_cost);
		break;
	case SCENARIO_K_SPREAD: /* the defaults add nothing: earlier keys stay as they were */
		if (sc->gang_spread)
			sbuf_adds(out, ";gang_spread=1");
		break;
	case SCENARIO_K_OVERESTIMATE:
		if (sc->runtime_over != 1)
			sbuf_printf(out, ";runtime_overestimate=%.17g", sc->runtime_over);
		break;
	default: /* in another's part (--fault-file, --tie-break), or not in the key */
		break;
	}
}

void scenario_key(const struct scenario *sc, struct sbuf *out)
{
	for (int i = 0; i < SCENARIO_NPARAM; i++) {
		const struct scenario_param *p = &scenario_params[i];
		if (p->type == SCENARIO_REAL_IF && scenario_real(sc, p) == p->def)
			continue; /* the default adds nothing: earlier keys stay as they were */
		if (p->type != SCENARIO_FN && p->key_name)
			sbuf_printf(out, ";%s=%.17g", p->key_name, scenario_real(sc, p));
		else
			key_part(sc, p->key, out);
	}
}

int scenario_key_value(const char *key, const char *name, struct sbuf *out)
{
	size_t n = strlen(name);
	/* fields are NAME=VALUE separated by ';', and no value holds a ';' (faults, weights
	 * and names of dims do not); a what-if's key goes on after a blank */
	for (const char *f = key; f && *f; f = strchr(f, ';') ? strchr(f, ';') + 1 : NULL) {
		if (strncmp(f, name, n) || f[n] != '=')
			continue;
		const char *v = f + n + 1;
		size_t len = strcspn(v, "; ");
		if (out)
			sbuf_add(out, v, len);
		return 1;
	}
	return 0;
}
