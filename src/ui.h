/*
 * ui.h — the terminal side of `voidfit dash` (private to ui*.c and cmd-dash.c): the one
 * module that includes curses. It draws what dash.h's model answers, turns keys and the
 * mouse into calls on the model, and restores the terminal on every way out: a quit, a
 * signal (SIGINT, SIGTERM, SIGHUP), a fatal error (util.h's fatal hook, which xmalloc runs)
 * and a crash (a failed assert: SIGABRT; SIGSEGV, SIGBUS, SIGFPE).
 */
#ifndef VOIDFIT_UI_H
#define VOIDFIT_UI_H

#include <stddef.h>

#include "dash.h"

struct ui_opts {
	int mono;     /* glyphs only, no colour (--mono, or NO_COLOR set) */
	int ascii;    /* ASCII glyphs (--ascii, or a locale that is not UTF-8) */
	double speed; /* trace seconds per wall second; <= 0: the window in about 2 minutes */
	int paused;   /* start paused */
	const char *trace_name;
	/* The moves asked for on the command line, made once the screen is up, each with the
	 * progress line of a move made in it (any key cancels it): go to trace second at
	 * (has_at: --at, or the story's 25 %), a what-if under compare (or NULL) from the
	 * start, then the RAID story (story: its what-if, its captions over the log, n for
	 * the next one, the panel filtered to its nodes). */
	int has_at;
	int64_t at;
	const struct policy_ops *compare;
	int story;
	/* Out: the wall seconds going to at took (-1: not asked, or cancelled) and the main
	 * lane's events then. */
	double seek_s;
	int64_t seek_events;
	/* Store lane l as a run ('w'): 0 with a line saying what was stored in msg, or an
	 * error code with the message in msg. NULL: 'w' says there is no store. */
	int (*store)(void *u, struct dash *d, int lane, char *msg, size_t len);
	void *store_u;
	/* Out, when frames is not NULL (--frame-log): per frame, the ms its drawing took, the
	 * wall second it ended at, the main lane's events so far and the CPU ms the drawing
	 * took; nframes of them. */
	struct ui_frame {
		double draw_ms, at;
		int64_t events;
		double cpu_ms;
	} * frames;
	size_t nframes, framecap;
	int log_frames; /* fill frames */
};

/* Run the dashboard on d until 'q' or a signal. Returns 0 on q, 128 + the signal after
 * one, VF_EIO with e filled when the terminal cannot be used (not a terminal, or curses
 * fails to start), or VF_EINPUT with e filled when the story cannot be told on this
 * cluster (dash_story_raid). The terminal is restored in every case. */
int ui_run(struct dash *d, struct ui_opts *o, struct err *e);

#endif
