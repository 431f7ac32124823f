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

static int exec_dash(int argc, char **argv);
extern const struct cmd_opt cmd_dash_opts[]; /* below */

const struct cmd_entry cmd_dash_entry = {
	.name = "dash",
	.usage = "STORE [--policy P] [--compare P] [--seed N] [--at TIME] [--speed X] [--paused] "
		 "[--mono] [--ascii] [--frame-log FILE] [--story raid] " SCENARIO_USAGE,
	.summary = "the live dashboard: replay a trace, watch the cluster, try what-ifs",
	.help = "  -p, --policy P     the policy to replay (default fgd, fast on any store;\n"
		"                     the screen says when the one chosen is slow on this store)\n"
		"      --compare P    a second policy side by side from the start\n"
		"  -s, --seed N       PRNG and enrichment seed (default 1)\n"
		"      --at TIME      start at a trace time (3d12h, 90m, 3600, 50%)\n"
		"      --speed X      trace seconds per second (default: the window in about\n"
		"                     two minutes); > and < double and halve it\n"
		"      --paused       start paused\n"
		"      --mono         no colour, glyphs only (as NO_COLOR does)\n"
		"      --ascii        ASCII glyphs only (as a locale that is not UTF-8 does)\n"
		"      --frame-log F  on exit, write each frame's drawing time (ms), wall time "
		"and\n"
		"                     events so far to F, and the keyframes' bytes\n"
		"      --story raid   the RAID-rebuild story of the seed article, guided: the\n"
		"                     three GPU nodes whose storage is the most used (at --at,\n"
		"                     default 25%) lose 80% of it for 6h, as a what-if beside\n"
		"                     the main run; captions point at the stalled GPUs, the\n"
		"                     residual shapes and the $ ticker (n: next)\n"
		"\n" SCENARIO_HELP "\n"
		"Keys: space play/pause, . one event, > < speed, g go to a time, [ ] scrub,\n"
		"p fork under another policy, f fault the selected node, i io-pressure (up to\n"
		"three what-ifs), Tab the next lane, w store its what-if, x drop it, / filter,\n"
		"s sort, + - zoom, Home End, Enter node detail, : command, ? help (and what the\n"
		"screen shows), q quit (asks when a what-if was not stored). A long move shows\n"
		"its progress; any key cancels it.\n",
	.opts = cmd_dash_opts,
	.exec_argv = exec_dash,
};

enum { O_COMPARE = CMD_LONG_ONLY, O_AT, O_SPEED, O_MONO, O_ASCII, O_PAUSED, O_FRAMES, O_STORY };

const struct cmd_opt cmd_dash_opts[] = {
	{"policy", 'p', 1},
	{"compare", O_COMPARE, 1},
	{"seed", 's', 1},
	{"at", O_AT, 1},
	{"speed", O_SPEED, 1},
	{"paused", O_PAUSED, 0},
	{"mono", O_MONO, 0},
	{"ascii", O_ASCII, 0},
	{"frame-log", O_FRAMES, 1},
	{"story", O_STORY, 1},
	SCENARIO_OPTS,
	{NULL, 0, 0},
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

/* --frame-log: "frame draw_ms at events" lines, then "keyframes N bytes B", then with --at
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
		fprintf(out.f, "frame %.3f %.6f %" PRId64 "\n", o->frames[i].draw_ms,
			o->frames[i].at, o->frames[i].events);
	fprintf(out.f, "keyframes %zu bytes %zu jobs %zu\n", n, bytes, dash_trace(d, 0)->js.njobs);
	if (seek_s >= 0)
		fprintf(out.f, "seek %.6f events %" PRId64 "\n", seek_s, seek_events);
	return outfile_commit(&out, e);
}

static int exec_dash(int argc, char **argv)
{
	struct cmd_parser p;
	struct scenario sc;
	struct err e = {0};
	const char *policy = "fgd", *compare = NULL, *at = NULL, *seed_arg = NULL,
		   *frame_log = NULL, *story = NULL;
	double speed = 0;
	int c, rc = CMD_OK, mono = getenv("NO_COLOR") && getenv("NO_COLOR")[0], ascii = 0,
	       paused = 0;
	uint64_t seed = 1;
	struct store *st = NULL;
	struct dash *d = NULL;
	const struct policy_ops *ops, *cops = NULL;

	scenario_init(&sc);
	cmd_parser_init(&p, argc, argv);
	while ((c = cmd_getopt(&p, cmd_dash_opts)) != -1 && rc == CMD_OK) {
		switch (c) {
		case 'p':
			policy = p.arg;
			break;
		case O_COMPARE:
			compare = p.arg;
			break;
		case 's':
			seed_arg = p.arg;
			break;
		case O_AT:
			at = p.arg;
			break;
		case O_SPEED:
			rc = cmd_num_opt(&cmd_dash_entry, "speed", p.arg, 1e-3, 1e9, &speed);
			break;
		case O_PAUSED:
			paused = 1;
			break;
		case O_MONO:
			mono = 1;
			break;
		case O_ASCII:
			ascii = 1;
			break;
		case O_FRAMES:
			frame_log = p.arg;
			break;
		case O_STORY:
			story = p.arg;
			break;
		default:
			if (scenario_is_key(c)) {
				if (scenario_set(&sc, c, p.arg, &e))
					rc = cmd_usage_error(&cmd_dash_entry, "%s", e.msg);
				break;
			}
			rc = cmd_opt_error(&cmd_dash_entry, &p);
		}
	}
	if (rc != CMD_OK)
		goto out;
	if (p.nops != 1) {
		rc = cmd_usage_error(&cmd_dash_entry, p.nops ? "one STORE only" : "no STORE given");
		goto out;
	}
	if (!(ops = policy_find(policy))) {
		rc = cmd_usage_error(&cmd_dash_entry, "--policy '%s': no such policy", policy);
		goto out;
	}
	if (compare && !(cops = policy_find(compare))) {
		rc = cmd_usage_error(&cmd_dash_entry, "--compare '%s': no such policy", compare);
		goto out;
	}
	if (seed_arg && parse_u64(seed_arg, &seed)) {
		rc = cmd_usage_error(&cmd_dash_entry,
				     "--seed '%s': not a seed (a whole number >= 0)", seed_arg);
		goto out;
	}
	if (story && strcmp(story, "raid")) {
		rc = cmd_usage_error(&cmd_dash_entry, "--story '%s': no such story (raid)", story);
		goto out;
	}
	if (scenario_check(&sc, &e)) {
		rc = cmd_usage_error(&cmd_dash_entry, "%s", e.msg);
		goto out;
	}
	if (sc.mode != SIM_TIMED) {
		rc = cmd_usage_error(&cmd_dash_entry, "--mode inflate: the dashboard replays timed "
						      "runs only");
		goto out;
	}
	if (store_open(p.operands[0], 0, &st, &e) || scenario_load(&sc, st, &e) ||
	    dash_new(&sc, ops, seed, 0, &d, &e)) {
		rc = cmd_fail(&cmd_dash_entry, "%s", e.msg);
		goto out;
	}
	double seek_s = -1;
	int64_t seek_events = 0;
	if (at || story) {
		int64_t t;
		if (dash_parse_time(d, at ? at : "25%", &t)) {
			rc = cmd_usage_error(&cmd_dash_entry,
					     "--at '%s': not a time (3d12h, 90m, 3600, 50%%)", at);
			goto out;
		}
		double t0 = util_mono();
		dash_goto(d, t);
		seek_s = util_mono() - t0;
		seek_events = sim_counters(dash_sim(d, 0))->events;
	}
	if (cops && dash_compare(d, cops, &e)) {
		rc = cmd_fail(&cmd_dash_entry, "%s", e.msg);
		goto out;
	}
	char names[3 * NODE_NAME_MAX + 4] = "";
	if (story && dash_story_raid(d, names, sizeof names, &e)) {
		rc = cmd_fail(&cmd_dash_entry, "%s", e.msg);
		goto out;
	}
	struct store_ctx ctx = {st, p.operands[0], &sc, 0};
	struct ui_opts uo = {.mono = mono,
			     .ascii = ascii,
			     .speed = speed,
			     .paused = paused,
			     .trace_name = sc.trace_name.s,
			     .story = story != NULL,
			     .filter = story ? names : NULL,
			     .store = store_lane,
			     .store_u = &ctx,
			     .log_frames = frame_log != NULL};
	int urc = ui_run(d, &uo, &e);
	if (frame_log && write_frames(frame_log, d, &uo, seek_s, seek_events, &e)) {
		rc = cmd_fail(&cmd_dash_entry, "%s", e.msg);
		free(uo.frames);
		goto out;
	}
	free(uo.frames);
	if (urc == VF_EIO)
		rc = cmd_fail(&cmd_dash_entry, "%s", e.msg);
	else if (urc > 128)
		rc = urc; /* stopped by a signal: the shell's convention */
out:
	dash_free(d);
	scenario_release(&sc);
	store_close(st);
	cmd_parser_release(&p);
	return rc;
}
