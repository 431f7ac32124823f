/*
 * cmd-dash.c — 'voidfit dash': the live dashboard of a scenario of a store (ui.h draws it,
 * dash.h is its model). 'w' stores a what-if as a run, with the run it was forked from.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "dash.h"
#include "outfile.h"
#include "runrec.h"
#include "ui.h"

/* What check works out of the options, and what exec makes. */
struct dash_state {
	const struct policy_ops *ops, *cops; /* --policy, --compare */
	uint64_t seed;
	struct dash *d;
};

CMD_DECLARE_HOOKS(dash);

const struct cmd_entry cmd_dash_entry = {
	.name = "dash",
	.usage = "STORE [--policy P] [--compare P] [--seed N] [--at TIME] [--speed X] [--paused] "
		 "[--mono] [--ascii] [--frame-log FILE] [--story raid] " SCENARIO_USAGE,
	.summary = "the live dashboard: replay a trace, watch the cluster, try what-ifs",
	.opts = CMD_USES(
		{CMD_O_POLICY, "P",
		 "the policy to replay (default fgd, fast on any store;\n"
		 "the screen says when the one chosen is slow on this store)"},
		{CMD_O_COMPARE, NULL, "a second policy side by side from the start"},
		{CMD_O_SEED, NULL, NULL},
		{CMD_O_AT, NULL, "start at a trace time (3d12h, 90m, 3600, 50%)"},
		{CMD_O_SPEED, NULL,
		 "trace seconds per second (default: the window in about\n"
		 "two minutes); > and < double and halve it"},
		{CMD_O_PAUSED, NULL, "start paused"},
		{CMD_O_MONO, NULL, "no colour, glyphs only (as NO_COLOR does)"},
		{CMD_O_ASCII, NULL, "ASCII glyphs only (as a locale that is not UTF-8 does)"},
		{CMD_O_FRAME_LOG, NULL,
		 "on exit, write each frame's drawing time (ms), wall time and\n"
		 "events so far to F, and the keyframes' bytes"},
		{CMD_O_STORY, NULL,
		 "the RAID-rebuild story of the seed article, guided: the\n"
		 "three GPU nodes whose storage is the most used (at --at,\n"
		 "default 25%) lose 80% of it for 6h, as a what-if beside\n"
		 "the main run; captions point at the stalled GPUs, the\n"
		 "residual shapes and the $ ticker (n: next)"}),
	.layout = {21, 0},
	.help = "Keys: space play/pause, . one event, > < speed, g go to a time, [ ] scrub,\n"
		"p fork under another policy, f fault the selected node, i io-pressure (up to\n"
		"three what-ifs), Tab the next lane, w store its what-if, x drop it, / filter,\n"
		"s sort, + - zoom, Home End, Enter node detail, : command, ? help (and what the\n"
		"screen shows), q quit (asks when a what-if was not stored). A long move shows\n"
		"its progress; any key cancels it.\n",
	.scenario = 1,
	.operand = "STORE",
	.store = CMD_STORE_WRITE,
	CMD_HOOKS(dash, dash_state),
};

struct store_ctx {
	struct store *st;
	const char *path;
	const struct scenario *sc;
	int64_t parent; /* the main lane's stored run, 0 until stored */
};

/* 'w': the main lane's run (once) and the what-if's, with its provenance. */
static int store_lane(void *u, struct dash *d, int lane, char *msg, size_t len)
{
	struct store_ctx *c = u;
	struct replay_result r;
	struct err e = {0};
	struct scenario lsc;
	struct fault *faults;
	int64_t id = 0;
	int rc = 0;
	if (!c->parent) {
		dash_result(d, 0, &r);
		rc = runrec_store(c->st, c->sc, dash_trace(d, 0), &r, &c->parent, &e);
		replay_result_release(&r);
		if (rc) {
			snprintf(msg, len, "%s: %s", c->path, e.msg);
			return rc;
		}
	}
	dash_result(d, lane, &r);
	dash_lane_scenario(d, lane, &lsc, &faults);
	rc = runrec_store_fork(c->st, &lsc, dash_trace(d, lane), &r, c->parent,
			       dash_fork_time(d, lane), dash_change(d, lane), &id, &e);
	free(faults);
	if (rc)
		snprintf(msg, len, "%s: %s", c->path, e.msg);
	else
		snprintf(msg, len,
			 "stored run %" PRId64 " (%s, from run %" PRId64
			 "): by placement $%.0f/yr, by sizing $%.0f/yr",
			 id, dash_change(d, lane), c->parent, r.m.usd_year_placement,
			 r.m.usd_year_sizing);
	replay_result_release(&r);
	return rc;
}

/* --frame-log: "frame draw_ms at events cpu_ms" lines, then "keyframes N bytes B", then with --at
 * "seek S events E": the wall seconds going there took, and the main lane's events then
 * (outfile.h: as every output file). */
static int write_frames(const char *path, const struct dash *d, const struct ui_opts *o,
			double seek_s, int64_t seek_events, struct err *e)
{
	struct outfile out;
	size_t bytes, n = dash_keyframes(d, 0, &bytes);
	int rc = outfile_open(&out, path, OUTFILE_REPLACE, e);
	if (rc)
		return rc;
	for (size_t i = 0; i < o->nframes; i++)
		fprintf(out.f, "frame %.3f %.6f %" PRId64 " %.3f\n", o->frames[i].draw_ms,
			o->frames[i].at, o->frames[i].events, o->frames[i].cpu_ms);
	fprintf(out.f, "keyframes %zu bytes %zu jobs %zu\n", n, bytes, dash_trace(d, 0)->js.njobs);
	if (seek_s >= 0)
		fprintf(out.f, "seek %.6f events %" PRId64 "\n", seek_s, seek_events);
	return outfile_commit(&out, e);
}

static int check_dash(struct cmd_ctx *ctx)
{
	struct dash_state *t = ctx->u;
	const struct cmd_entry *ce = ctx->ce;
	const char *policy = cmd_arg(ctx, 'p'), *compare = cmd_arg(ctx, CMD_K_COMPARE);
	const char *seed = cmd_arg(ctx, 's'), *story = cmd_arg(ctx, CMD_K_STORY);
	struct err e = {0};

	t->seed = 1;
	if (!policy)
		policy = "fgd";
	if (!(t->ops = policy_find(policy)))
		return cmd_usage_error(ce, "--policy '%s': no such policy", policy);
	if (compare && !(t->cops = policy_find(compare)))
		return cmd_usage_error(ce, "--compare '%s': no such policy", compare);
	if (seed && parse_u64(seed, &t->seed))
		return cmd_usage_error(ce, "--seed '%s': not a seed (a whole number >= 0)", seed);
	if (story && strcmp(story, "raid"))
		return cmd_usage_error(ce, "--story '%s': no such story (raid)", story);
	if (scenario_check(&ctx->sc, &e))
		return cmd_usage_error(ce, "%s", e.msg);
	if (ctx->sc.mode != SIM_TIMED)
		return cmd_usage_error(ce, "--mode inflate: the dashboard replays timed runs only");
	return CMD_OK;
}

/* The dashboard's model at its start, and the moves the screen makes first (ui_opts):
 * --at (or the story's 25 %), --compare, the story. 0 or the exit status. */
static int start_dash(struct cmd_ctx *ctx, struct dash_state *t, struct ui_opts *uo)
{
	const char *at = cmd_arg(ctx, CMD_K_AT);
	struct err e = {0};
	if (scenario_load(&ctx->sc, ctx->st, &e) ||
	    dash_new(&ctx->sc, t->ops, t->seed, 0, &t->d, &e))
		return cmd_fail(ctx->ce, "%s", e.msg);
	uo->story = cmd_arg(ctx, CMD_K_STORY) != NULL;
	uo->compare = t->cops;
	if (at || uo->story) {
		if (dash_parse_time(t->d, at ? at : "25%", &uo->at))
			return cmd_usage_error(
				ctx->ce, "--at '%s': not a time (3d12h, 90m, 3600, 50%%)", at);
		uo->has_at = 1;
	}
	return CMD_OK;
}

static int exec_dash(struct cmd_ctx *ctx)
{
	struct dash_state *t = ctx->u;
	const char *frame_log = cmd_arg(ctx, CMD_K_FRAME_LOG);
	struct err e = {0};
	int rc;

	struct store_ctx sctx = {ctx->st, ctx->p.operands[0], &ctx->sc, 0};
	struct ui_opts uo = {.mono = (getenv("NO_COLOR") && getenv("NO_COLOR")[0]) ||
				     cmd_has(ctx, CMD_K_MONO),
			     .ascii = cmd_has(ctx, CMD_K_ASCII) > 0,
			     .speed = cmd_num(ctx, CMD_K_SPEED, 0),
			     .paused = cmd_has(ctx, CMD_K_PAUSED) > 0,
			     .store = store_lane,
			     .store_u = &sctx,
			     .log_frames = frame_log != NULL,
			     .seek_s = -1};
	if ((rc = start_dash(ctx, t, &uo)))
		return rc;
	uo.trace_name = ctx->sc.trace_name.s; /* scenario_load named it */
	int urc = ui_run(t->d, &uo, &e);
	if (frame_log && write_frames(frame_log, t->d, &uo, uo.seek_s, uo.seek_events, &e))
		rc = cmd_fail(ctx->ce, "%s", e.msg);
	else if (urc == VF_EIO || urc == VF_EINPUT)
		rc = cmd_fail(ctx->ce, "%s", e.msg);
	else if (urc > 128)
		rc = urc; /* stopped by a signal: the shell's convention */
	free(uo.frames);
	return rc;
}

static void release_dash(struct cmd_ctx *ctx)
{
	struct dash_state *t = ctx->u;
	dash_free(t->d);
}
