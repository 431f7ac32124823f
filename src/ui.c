/*
 * ui.c — `voidfit dash` in a terminal (ui.h): the only file that includes curses.
 *
 * The screen is panels, each a const struct ui_panel (a name and a draw function that pulls
 * what it shows from the model, dash.h, and never drives it), laid out by layout():
 *
 *   header    trace, policy (and the what-if's change), clock, share of the window, speed,
 *             playing or paused
 *   cluster   one row per node, or per range of nodes of one GPU model when they outnumber
 *             the rows; with a what-if, a column per lane
 *   metrics   the ticker of each lane, and their differences
 *   log       the newest events
 *   keys      the key bar
 * and overlays over them: help, node detail, the policy picker, a prompt.
 *
 * Keys live in one table (keys[]): the key bar and the help are built from it. Input and
 * drawing run in one loop: each frame (30 a second) draws, replays until its end is near,
 * and reads keys until the next frame begins; a resize redraws. While playing, the cluster
 * panel's rows are computed again in turn within a time budget (rows_refresh).
 *
 * Restoring the terminal: ui_restore() ends curses once; it runs on q, after a signal
 * (SIGINT, SIGTERM and SIGHUP only set a flag that the loop sees within a frame), from the
 * fatal hook (xmalloc's out-of-memory exit) and on SIGABRT (a failed assert), SIGSEGV, SIGBUS
 * and SIGFPE before the
 * default action. The one piece of global state here, whether curses is on, exists for
 * those paths: a signal handler and a hook have no other way to reach it.
 */
#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "esc.h"
#include "fmt.h"
#include "ui.h"

#define MIN_W    80
#define MIN_H    24
#define FRAME_S  (1.0 / 30)
#define LOG_ROWS 5

/* Colour pairs: blue and orange, which colour-blind viewers tell apart (not red/green). */
enum { PAIR_BLUE = 1, PAIR_ORANGE, PAIR_DIM, PAIR_HEAD };

static volatile sig_atomic_t ui_on;  /* curses is active: ui_restore must end it */
static volatile sig_atomic_t ui_sig; /* the signal that asked to stop, or 0 */

static void ui_restore(void)
{
	if (ui_on) {
		ui_on = 0;
		endwin();
		fflush(stdout);
	}
}

static void on_stop_signal(int sig)
{
	ui_sig = sig;
}

/* SIGABRT (a failed assert), SIGSEGV, SIGBUS, SIGFPE: dying anyway, as htop's CRT.c does,
 * give the terminal back first, then die of the signal (a core, the status). */
static void on_abort(int sig)
{
	ui_restore(); /* dying anyway: leave the terminal usable */
	signal(sig, SIG_DFL);
	raise(sig);
}

enum mode { M_MAIN, M_HELP, M_DETAIL, M_PICK, M_PROMPT, M_CONFIRM };
enum prompt { P_GOTO, P_FILTER, P_CMD, P_FAULT, P_IO };

struct ui {
	struct dash *d;
	const struct ui_opts *o;
	int color, ascii;
	int w, h;
	int playing;
	double speed;
	enum mode mode;
	/* cluster panel */
	struct dash_rows rows; /* the filtered, sorted nodes of lane 0 in rows */
	int rows_valid;        /* rows hold for rows_filter, rows_per, rows_rows (regroup) */
	int rows_per, rows_rows;
	char rows_filter[128];
	double rows_cut; /* when regroup last cut them (util_mono) */
	/* the visible rows' blocks as last computed (dash_group), cache[k * DASH_LANES + l] for
	 * row top + k of lane l: see rows_refresh */
	struct dash_node *cache;
	size_t cachecap, cache_top, cache_n, cache_next;
	int cache_ok;    /* cache holds rows cache_top.. (cache_n of them) of the lanes shown */
	int per;         /* nodes per row: 0 = fit them all */
	size_t sel, top; /* selected row and first row shown */
	int rows_shown;  /* cluster rows that fit */
	int cl_y;        /* screen row of the first cluster row */
	char filter[128];
	enum dash_sort sort;
	int help_top, help_page; /* the help's first line shown, and its lines a page */
	int seen_lanes;          /* lanes at the last frame */
	int story;               /* the RAID story's caption shown (1..STORY_STEPS), 0: none */
	int focus; /* the lane Tab moved to: its what-if is the one x, w and the detail take */
	/* overlays */
	int32_t detail;     /* node shown by M_DETAIL */
	int pick;           /* selected policy of M_PICK */
	enum prompt prompt; /* what M_PROMPT asks */
	char line[128];     /* M_PROMPT's text */
	size_t linelen;
	int prefilled;  /* line is the prompt's suggestion: the first key typed replaces it */
	char msg[1200]; /* a message on the key bar until the next key */
	int quit;
	/* a long move under way (dash_set_progress): what it does, and whether its line shows */
	char moving[160];
	int move_shown;
};

/* ---- glyphs ---- */

static const char *const bars_utf[9] = {" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
static const char *const bars_ascii[9] = {" ", ".", ":", "-", "=", "+", "*", "#", "@"};

static const char *bar_glyph(const struct ui *u, double v)
{
	if (v < 0)
		return u->ascii ? "?" : "·";
	int i = (int)lround(v * 8);
	i = i < 0 ? 0 : i > 8 ? 8 : i;
	return (u->ascii ? bars_ascii : bars_utf)[i];
}

static const char *cell_glyph(const struct ui *u, int c)
{
	static const char *const utf[DASH_NCELL] = {"·", "◐", "█", "▒"};
	static const char *const asc[DASH_NCELL] = {".", "o", "#", "!"};
	return (u->ascii ? asc : utf)[c];
}

static void attr_cell(const struct ui *u, int c, int on)
{
	if (!u->color)
		return;
	int a = c == DASH_CELL_STALLED                       ? COLOR_PAIR(PAIR_ORANGE) | A_BOLD
		: c == DASH_CELL_FULL || c == DASH_CELL_PART ? COLOR_PAIR(PAIR_BLUE)
							     : COLOR_PAIR(PAIR_DIM);
	if (on)
		attron(a);
	else
		attroff(a);
}

/* ---- small drawing helpers ---- */

/* Print fmt at (y, x), cut to w columns. */
/* The columns UTF-8 text s takes (one a code point: all this file draws), and the bytes of
 * its first w columns. */
static int cols_of(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

static int bytes_of_cols(const char *s, int w)
{
	int i = 0;
	for (int c = 0; s[i]; i++) {
		if (((unsigned char)s[i] & 0xC0) != 0x80 && c++ == w)
			break;
	}
	return i;
}

/* s in at most w columns into out: as it is when it fits, else cut in its middle ('~' where
 * the cut is), so that a node's name keeps its end, which tells it from its neighbours
 * ("openb~e-0042" rather than "openb-node-0"), and its start. */
static void fit_middle(const char *s, int w, char *out, size_t len)
{
	int n = cols_of(s);
	if (n <= w || w < 3) {
		snprintf(out, len, "%s", s);
		return;
	}
	int tail = w / 2, head = w - 1 - tail;
	size_t hb = (size_t)bytes_of_cols(s, head);
	const char *t = s + bytes_of_cols(s, n - tail);
	struct sbuf b = SBUF_INIT;
	sbuf_init(&b);
	sbuf_printf(&b, "%.*s~%s", (int)hb, s, t);
	snprintf(out, len, "%s", b.s);
	sbuf_release(&b);
}

/* Draw at most w columns of the formatted text at (y, x), escaped: every name on the screen
 * (nodes, models, the trace, messages quoting them) is drawn through here. */
static void put(int y, int x, int w, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void put(int y, int x, int w, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	if (w <= 0)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	struct sbuf e = SBUF_INIT;
	esc_text_s(&e, buf);
	mvaddnstr(y, x, e.s, bytes_of_cols(e.s, w));
	sbuf_release(&e);
}

/* A money figure: "$1.23M". */
static void money(double v, char *buf, size_t len)
{
	fmt_usd_short(v, FMT_USD_SCREEN, buf, len);
}

/* The unit a speed is written in: below `below` trace seconds a second, in `div` seconds (a
 * duration on screen: fmt_duration's FMT_DUR_SCREEN, the same steps). */
static const struct tunit {
	double below, div;
	const char *speed; /* a speed's unit: "34.1 min/s" */
} tunits[] = {
	{120, 1, "s"},
	{7200, 60, "min"},
	{172800, 3600, "h"},
	{HUGE_VAL, 86400, "d"},
};

static const struct tunit *tunit_of(double s)
{
	size_t i = 0;
	while (i + 1 < sizeof tunits / sizeof *tunits && !(s < tunits[i].below))
		i++;
	return &tunits[i];
}

static void duration_text(double s, char *buf, size_t len)
{
	fmt_duration(s, FMT_DUR_SCREEN, buf, len);
}

/* ---- the panels ---- */

struct ui_rect {
	int y, x, h, w;
};

struct ui_panel {
	const char *name;
	void (*draw)(struct ui *u, const struct ui_rect *r);
};

/* Trace seconds per wall second as "34.1 min/s". */
static void speed_text(double v, char *buf, size_t len)
{
	const struct tunit *t = tunit_of(v);
	snprintf(buf, len, "%.3g %s/s", v / t->div, t->speed);
}

/* A lane's short name: "main", "w1".."w3". */
static void lane_name(int l, char *buf, size_t len)
{
	if (l)
		snprintf(buf, len, "w%d", l);
	else
		snprintf(buf, len, "main");
}

/* The what-if that x, w and the detail act on: the focused lane, or the newest what-if
 * while the main lane has the focus; 0 when there is none. */
static int act_lane(const struct ui *u)
{
	int nl = dash_nlanes(u->d);
	return u->focus > 0 && u->focus < nl ? u->focus : nl - 1;
}

static void draw_header(struct ui *u, const struct ui_rect *r)
{
	char tb[32], ch[200] = "", sp[32];
	struct dash_ticker t;
	int nl = dash_nlanes(u->d), f = act_lane(u);
	dash_ticker(u->d, 0, &t);
	dash_time_text(u->d, dash_time(u->d), tb, sizeof tb);
	speed_text(u->speed, sp, sizeof sp);
	if (nl == 2)
		snprintf(ch, sizeof ch, "  vs %s", dash_change(u->d, 1));
	else if (nl > 2)
		snprintf(ch, sizeof ch, "  vs %d what-ifs (w%d %s)", nl - 1, f,
			 dash_change(u->d, f));
	if (u->color)
		attron(COLOR_PAIR(PAIR_HEAD) | A_BOLD);
	else
		attron(A_BOLD);
	mvhline(r->y, r->x, ' ', r->w);
	const char *state = dash_over(u->d) ? "[over]"
			    : u->playing    ? (u->ascii ? "> playing" : "▶ playing")
					    : (u->ascii ? "|| paused" : "⏸ paused");
	const char *trace = u->o->trace_name ? u->o->trace_name : "";
	const char *pol = dash_policy(u->d, 0);
	/* the longest form that fits: in full, shorter, then without the what-if's change
	 * (the lanes' titles name it), so the clock and the play state stay in sight */
	char line[512];
	for (int form = 0; form < 3; form++) {
		if (form == 0)
			snprintf(line, sizeof line,
				 " voidfit dash  %s  policy %s%s  t %s (%.0f%% of window)  %s  %s",
				 trace, pol, ch, tb, t.window_share * 100, sp, state);
		else
			snprintf(line, sizeof line, " %s  %s%s  t %s (%.0f%%)  %s  %s", trace, pol,
				 form == 1 ? ch : "", tb, t.window_share * 100, sp, state);
		if (cols_of(line) <= r->w)
			break;
	}
	put(r->y, r->x, r->w, "%s", line);
	attroff(COLOR_PAIR(PAIR_HEAD) | A_BOLD);
}

/* While playing, the rows of the panel sorted or filtered by the state are cut again this
 * often, and a frame spends this long recomputing the rows' blocks, in turn (rows_refresh):
 * on 6,000 nodes a row covers a hundred and more, and every row changes in every frame. */
#define RESORT_S      0.25
#define ROWS_BUDGET_S 0.0005

/* The rows of the cluster panel (dash_rows): per nodes a row, or (per = 0) as many as make
 * every node fit the rows. */
static void regroup(struct ui *u, int rows)
{
	/* by name under a filter of names or models the rows stay as they are: cut them again
	 * only when what they depend on changed (6,000 nodes sorted 30 times a second) */
	int still = u->sort == DASH_SORT_NAME && strcmp(u->filter, "faulted") &&
		    strcmp(u->filter, "stranded") && strcmp(u->filter, "full");
	int same =
		u->rows_per == u->per && u->rows_rows == rows && !strcmp(u->rows_filter, u->filter);
	/* a sort by the state, or a filter of it, is cut again as the state moves: while
	 * playing, at most every RESORT_S (a sort of 6,000 nodes in every frame) */
	double now = util_mono();
	if (same && u->rows_valid &&
	    (still || (u->playing && u->cache_ok && now - u->rows_cut < RESORT_S)))
		return;
	u->rows_valid = 1;
	u->rows_cut = now;
	u->cache_ok = 0;
	u->rows_per = u->per;
	u->rows_rows = rows;
	snprintf(u->rows_filter, sizeof u->rows_filter, "%s", u->filter);
	dash_rows(u->d, u->filter, u->sort, u->per, rows, &u->rows);
	if (u->sel >= u->rows.nrows)
		u->sel = u->rows.nrows ? u->rows.nrows - 1 : 0;
}

/* The cluster panel's columns at a width: the node's name and model once, then a block per
 * lane shown (its GPU cells, residual shape and marks). As the width shrinks they give way
 * in this order (voidfit.1 says so): the cells from 16 to 8, the shape's letters (bars
 * only), the model column, the lanes but the focused one (Tab shows the others), the
 * cells down to 4. */
struct cols {
	int nw, mw;       /* name, model: columns (mw 0: dropped) */
	int first, nshow; /* lanes shown: first, first + 1, ... (cyclic), nshow of them */
	int bw;           /* a lane's block */
	int gw;           /* its GPU cells */
	int shape;        /* its shape: 2 letters and bars, 1 bars only */
};

#define MARKS_W 4 /* "F1S3" */

static struct cols cols_at(const struct ui *u, int w)
{
	struct cols c = {.nw = w >= 100 ? 18 : 12, .mw = 6};
	int nl = dash_nlanes(u->d);
	int fixed = c.nw + 1 + c.mw + 1, min_bw = 4 + 1 + DIM_N + 1 + MARKS_W + 1;
	c.nshow = nl;
	while (c.nshow > 1 && fixed + c.nshow * min_bw > w) {
		if (c.mw) { /* the model column goes before a lane */
			c.mw = 0;
			fixed = c.nw + 1;
			continue;
		}
		c.nshow--;
	}
	/* the focused lane in sight: from the main one when it fits, else ending at it */
	int f = u->focus < nl ? u->focus : 0;
	c.first = f < c.nshow ? 0 : f - c.nshow + 1;
	c.bw = (w - fixed) / c.nshow;
	int room = c.bw - 1 - MARKS_W - 1; /* cells, a space, the shape */
	if (room >= 16 + 1 + 2 * DIM_N)
		c.gw = 16, c.shape = 2;
	else if (room >= 8 + 1 + 2 * DIM_N)
		c.gw = 8, c.shape = 2;
	else
		c.shape = 1, c.gw = room - 1 - DIM_N > 16 ? 16 : room - 1 - DIM_N;
	if (c.gw < 0)
		c.gw = 0;
	return c;
}

/* The blocks of the visible rows (rows of them from u->top) of the lanes shown into the
 * cache. Paused, or when the rows, the lanes shown or what is selected changed (any key),
 * all of them; while playing, in turn from where the last frame stopped, for ROWS_BUDGET_S
 * at least one row: a frame's drawing stays short whatever the nodes, and every row is at
 * most a few frames old (every visible row is recomputed once before any twice). */
static void rows_refresh(struct ui *u, const struct cols *c, int rows)
{
	int nl = dash_nlanes(u->d);
	size_t n = u->top < u->rows.nrows ? u->rows.nrows - u->top : 0;
	if (n > (size_t)rows)
		n = rows > 0 ? (size_t)rows : 0;
	if (!u->cache_ok || u->cache_top != u->top || u->cache_n != n || !u->playing) {
		u->cache_ok = 0;
		u->cache_next = 0;
	}
	xgrow(&u->cache, &u->cachecap, n * DASH_LANES + 1, sizeof *u->cache);
	double until = util_mono() + ROWS_BUDGET_S;
	for (size_t done = 0; done < n; done++) {
		size_t k = (u->cache_next + done) % n, i = u->top + k;
		size_t a = u->rows.start[i], cnt = u->rows.start[i + 1] - a;
		for (int q = 0; q < c->nshow; q++) {
			int l = (c->first + q) % nl;
			dash_group(u->d, l, u->rows.order + a, cnt,
				   &u->cache[k * DASH_LANES + (size_t)l]);
		}
		if (u->cache_ok && util_mono() > until) {
			u->cache_next = (k + 1) % n;
			break;
		}
	}
	u->cache_ok = 1;
	u->cache_top = u->top;
	u->cache_n = n;
}

/* Lane l's block of visible row `row` at (y, x), c.bw columns at most (rows_refresh computed
 * it). */
static void draw_block(struct ui *u, const struct cols *c, int l, size_t row, int y, int x)
{
	const struct dash_node *dn = &u->cache[row * DASH_LANES + (size_t)l];
	size_t n = dn->nnodes;
	int gw = c->gw, end = x + c->bw - 1;
	/* GPUs: each GPU a cell for a node; for a range, cells in proportion */
	if (n == 1) {
		for (int g = 0; g < dn->ngpu && g < gw; g++) {
			attr_cell(u, dn->cell[g], 1);
			mvaddstr(y, x + g, cell_glyph(u, dn->cell[g]));
			attr_cell(u, dn->cell[g], 0);
		}
	} else if (dn->ngpu) {
		int k = 0;
		static const int order[DASH_NCELL] = {DASH_CELL_STALLED, DASH_CELL_FULL,
						      DASH_CELL_PART, DASH_CELL_FREE};
		double acc = 0;
		for (int q = 0; q < DASH_NCELL; q++) {
			int cc = order[q];
			acc += (double)dn->cells[cc] * gw / dn->ngpu;
			int upto = (int)lround(acc);
			attr_cell(u, cc, 1);
			for (; k < upto && k < gw; k++)
				mvaddstr(y, x + k, cell_glyph(u, cc));
			attr_cell(u, cc, 0);
		}
	}
	int cx = x + gw + (gw > 0);
	/* the residual shape: the free share of each dim; stranded: a capital letter, or
	 * (bars only) bold and orange */
	static const char dimch[DIM_N] = {'c', 'm', 'g', 'h', 'n', 's', 'i'};
	for (int d = 0; d < DIM_N; d++) {
		int str = (dn->stranded >> d) & 1;
		if (str)
			attron(u->color ? COLOR_PAIR(PAIR_ORANGE) | A_BOLD : A_BOLD);
		if (c->shape == 2) {
			mvaddch(y, cx, str ? (chtype)(dimch[d] - 32) : (chtype)dimch[d]);
			cx++;
		}
		mvaddstr(y, cx++, bar_glyph(u, dn->free[d]));
		if (str)
			attroff(u->color ? COLOR_PAIR(PAIR_ORANGE) | A_BOLD : A_BOLD);
	}
	cx++;
	/* marks: active faults, nodes with stranded capacity */
	char marks[32] = "";
	int mlen = 0;
	if (dn->faults)
		mlen += snprintf(marks + mlen, sizeof marks - (size_t)mlen, "F%d", dn->faults);
	if (dn->nstranded)
		snprintf(marks + mlen, sizeof marks - (size_t)mlen, "S%d", dn->nstranded);
	if (dn->faults && u->color)
		attron(COLOR_PAIR(PAIR_ORANGE) | A_BOLD);
	put(y, cx, end - cx, "%s", marks);
	if (dn->faults && u->color)
		attroff(COLOR_PAIR(PAIR_ORANGE) | A_BOLD);
}

static void draw_cluster(struct ui *u, const struct ui_rect *r)
{
	int rows = r->h - 1, nl = dash_nlanes(u->d);
	regroup(u, rows);
	u->rows_shown = rows;
	u->cl_y = r->y + 1;
	/* the selection in sight, and no blank rows below the last (after a zoom out) */
	if (u->sel < u->top)
		u->top = u->sel;
	if (rows > 0 && u->sel >= u->top + (size_t)rows)
		u->top = u->sel - (size_t)rows + 1;
	if (rows > 0 && u->top + (size_t)rows > u->rows.nrows)
		u->top = u->rows.nrows > (size_t)rows ? u->rows.nrows - (size_t)rows : 0;
	struct cols c = cols_at(u, r->w);
	int bx = r->x + c.nw + 1 + (c.mw ? c.mw + 1 : 0);
	rows_refresh(u, &c, rows);
	attron(A_BOLD);
	put(r->y, r->x, bx - r->x - 1, "%zu nodes%s%s", u->rows.norder, u->filter[0] ? " /" : "",
	    u->filter);
	for (int k = 0; k < c.nshow; k++) {
		int l = (c.first + k) % nl;
		char ln[16];
		lane_name(l, ln, sizeof ln);
		if (u->focus == l && nl > 1)
			attron(A_UNDERLINE);
		if (l)
			put(r->y, bx + k * c.bw, c.bw - 1, "%s %s", ln, dash_change(u->d, l));
		else
			put(r->y, bx + k * c.bw, c.bw - 1, "main, sort %s",
			    dash_sort_name(u->sort));
		attroff(A_UNDERLINE);
	}
	attroff(A_BOLD);
	for (int k = 0; k < rows && u->top + (size_t)k < u->rows.nrows; k++) {
		size_t i = u->top + (size_t)k;
		int y = r->y + 1 + k, sel = i == u->sel;
		if (sel)
			attron(A_REVERSE);
		mvhline(y, r->x, ' ', r->w);
		char name[160], fit[160];
		int m = dash_row_name(u->d, &u->rows, i, name, sizeof name);
		fit_middle(name, c.nw, fit, sizeof fit);
		put(y, r->x, c.nw, "%s", fit);
		if (c.mw)
			put(y, r->x + c.nw + 1, c.mw, "%s",
			    m >= 0    ? gpumodel_get(m)->name
			    : m == -1 ? "cpu"
				      : "mixed");
		for (int q = 0; q < c.nshow; q++)
			draw_block(u, &c, (c.first + q) % nl, (size_t)k, y, bx + q * c.bw);
		if (sel)
			attroff(A_REVERSE);
	}
	if (!u->rows.nrows)
		put(r->y + 1, r->x, r->w, "  no node matches '%s'", u->filter);
}

/* ---- the metrics panel ---- */

/* The figures: each a label (with its unit when the value does not carry one), a kind
 * that says how to write it, and a rank: when the rows do not fit, the highest ranks go
 * first, the last row of a rank first (the $/yr breakdown, the sparkline, the peak, then
 * events per second and the buckets only some runs have). Those (failed, checkpoints,
 * down, reserved, gang) show only when a lane has any. */
enum mkind { MK_NUM0, MK_NUM1, MK_MONEY, MK_YEAR, MK_PCT, MK_DUR, MK_SPARK };
enum mrow {
	MR_FRAG,
	MR_PEAK,
	MR_SPARK,
	MR_GPUS,
	MR_STALLED,
	MR_BLOCKED,
	MR_UNNEEDED,
	MR_USED,
	MR_WASTED,
	MR_PLACEMENT,
	MR_SIZING,
	MR_Y_STALLED,
	MR_Y_LOST,
	MR_Y_BLOCKED,
	MR_Y_FAILED,
	MR_Y_CKPT,
	MR_Y_DOWN,
	MR_Y_RESERVED,
	MR_Y_GANG,
	MR_QUEUED,
	MR_RUNNING,
	MR_WAIT,
	MR_EVENTS,
	MR_EPS,
	MR_N
};

static const struct mdef {
	const char *label;
	enum mkind kind;
	int rank;
	int bucket; /* a bucket some runs never have: the row shows when a lane has any of it;
		     * 0 (productive, which every run has): always */
} mdefs[MR_N] = {
	[MR_FRAG] = {"frag now", MK_PCT, 0, 0},
	[MR_PEAK] = {"frag peak", MK_PCT, 4, 0},
	[MR_SPARK] = {"frag 0..peak", MK_SPARK, 5, 0},
	[MR_GPUS] = {"GPUs used", MK_NUM1, 0, 0},
	[MR_STALLED] = {"GPUs stalled", MK_NUM1, 1, 0},
	[MR_BLOCKED] = {"idle blocked", MK_NUM1, 2, 0},
	[MR_UNNEEDED] = {"idle unneeded", MK_NUM1, 2, 0},
	[MR_USED] = {"$ used so far", MK_MONEY, 1, 0},
	[MR_WASTED] = {"$ waste so far", MK_MONEY, 1, 0},
	[MR_PLACEMENT] = {"placement $/yr", MK_YEAR, 0, 0},
	[MR_SIZING] = {"sizing $/yr", MK_YEAR, 0, 0},
	[MR_Y_STALLED] = {"stalled $/yr", MK_YEAR, 6, 0},
	[MR_Y_LOST] = {"lost $/yr", MK_YEAR, 7, 0},
	[MR_Y_BLOCKED] = {"blocked $/yr", MK_YEAR, 7, 0},
	[MR_Y_FAILED] = {"failed $/yr", MK_YEAR, 3, SIM_B_FAILED},
	[MR_Y_CKPT] = {"ckpt $/yr", MK_YEAR, 3, SIM_B_CKPT},
	[MR_Y_DOWN] = {"down $/yr", MK_YEAR, 3, SIM_B_DOWN},
	[MR_Y_RESERVED] = {"reserved $/yr", MK_YEAR, 3, SIM_B_RESERVED},
	[MR_Y_GANG] = {"gang wait $/yr", MK_YEAR, 3, SIM_B_GANG},
	[MR_QUEUED] = {"jobs queued", MK_NUM0, 0, 0},
	[MR_RUNNING] = {"jobs running", MK_NUM0, 0, 0},
	[MR_WAIT] = {"wait p95", MK_DUR, 1, 0},
	[MR_EVENTS] = {"events", MK_NUM0, 2, 0},
	[MR_EPS] = {"events/s", MK_NUM0, 3, 0},
};

static double mvalue(const struct dash_ticker *t, enum mrow r)
{
	switch (r) {
	case MR_FRAG:
		return t->frag * 100;
	case MR_PEAK:
		return t->frag_peak * 100;
	case MR_GPUS:
		return t->gpu_alloc;
	case MR_STALLED:
		return t->gpu_stalled;
	case MR_BLOCKED:
		return t->gpu_blocked;
	case MR_UNNEEDED:
		return t->gpu_unneeded;
	case MR_USED:
		return t->usd_productive;
	case MR_WASTED:
		return t->usd_wasted;
	case MR_PLACEMENT:
		return t->usd_year_placement;
	case MR_SIZING:
		return t->usd_year_sizing;
	case MR_Y_STALLED:
		return t->usd_year[SIM_B_STALLED];
	case MR_Y_LOST:
		return t->usd_year[SIM_B_LOST];
	case MR_Y_BLOCKED:
		return t->usd_year[SIM_B_SHAPE] + t->usd_year[SIM_B_DIM] +
		       t->usd_year[SIM_B_MODEL] + t->usd_year[SIM_B_QUEUE] +
		       t->usd_year[SIM_B_FULL];
	case MR_Y_FAILED:
	case MR_Y_CKPT:
	case MR_Y_DOWN:
	case MR_Y_RESERVED:
	case MR_Y_GANG:
		return t->usd_year[mdefs[r].bucket];
	case MR_QUEUED:
		return (double)t->queued;
	case MR_RUNNING:
		return (double)t->running;
	case MR_WAIT:
		return t->wait_p95;
	case MR_EVENTS:
		return (double)t->events;
	case MR_EPS:
		return t->events_per_s;
	default:
		return 0;
	}
}

/* v written as kind k ("9.7%", "$1.10M", "$4.3k/yr", "12m"); diff: with its sign. */
static void mtext(enum mkind k, double v, int diff, char *buf, size_t len)
{
	char b[24];
	if (k == MK_NUM1 && fabs(v) < 0.05)
		v = 0; /* no "-0.0" */
	const char *sign = diff && v > 0 ? "+" : "";
	switch (k) {
	case MK_PCT:
		snprintf(buf, len, "%s%.1f%%", sign, v);
		return;
	case MK_MONEY:
	case MK_YEAR:
		money(v, b, sizeof b);
		snprintf(buf, len, "%s%s", sign, b);
		return;
	case MK_DUR:
		duration_text(fabs(v), b, sizeof b);
		snprintf(buf, len, "%s%s", diff && v < 0 ? "-" : sign, b);
		return;
	case MK_NUM1:
		snprintf(buf, len, "%s%.1f", sign, v);
		return;
	default:
		snprintf(buf, len, "%s%.0f", sign, v);
		return;
	}
}

/* The metrics panel's width for nl lanes: a label, the main lane's value, then with one
 * what-if its value and the difference, with more each what-if's difference. */
static int metrics_width(int nl)
{
	return nl == 1 ? 31 : nl == 2 ? 15 + 3 * 10 : 15 + 10 + (nl - 1) * 9;
}

static void draw_spark(struct ui *u, int y, int x, int w, double peak)
{
	double sp[DASH_SPARK_N];
	size_t reached = dash_spark(u->d, 0, sp);
	peak = peak > 0 ? peak : 1;
	for (int k = 0; k < w; k++) {
		size_t i = (size_t)k * DASH_SPARK_N / (size_t)w;
		mvaddstr(y, x + k, i < reached ? bar_glyph(u, sp[i] / peak) : " ");
	}
}

static void draw_metrics(struct ui *u, const struct ui_rect *r)
{
	struct dash_ticker t[DASH_LANES];
	int nl = dash_nlanes(u->d), y = r->y;
	for (int l = 0; l < nl; l++)
		dash_ticker(u->d, l, &t[l]);
	/* the rows that fit: drop the highest ranks first */
	int keep[MR_N], nrow = 0, room = r->h - 1;
	for (int i = 0; i < MR_N; i++) {
		keep[i] = !mdefs[i].bucket;
		for (int l = 0; l < nl && !keep[i]; l++)
			keep[i] = t[l].usd[mdefs[i].bucket] != 0;
		nrow += keep[i];
	}
	for (int rank = 7; nrow > room && rank > 0; rank--)
		for (int i = MR_N - 1; i >= 0 && nrow > room; i--)
			if (keep[i] && mdefs[i].rank == rank)
				keep[i] = 0, nrow--;
	attron(A_BOLD);
	if (nl == 1)
		put(y++, r->x, r->w, "metrics ($/yr: at pace so far)");
	else if (nl == 2)
		put(y++, r->x, r->w, "%-15s%10s%10s%10s", "metrics", "main", "what-if", "diff");
	else {
		char hd[128];
		int n = snprintf(hd, sizeof hd, "%-15s%10s", "metrics", "main");
		for (int l = 1; l < nl; l++)
			n += snprintf(hd + n, sizeof hd - (size_t)n, "  w%d-main", l);
		put(y++, r->x, r->w, "%s", hd);
	}
	attroff(A_BOLD);
	for (int i = 0; i < MR_N && y < r->y + r->h; i++) {
		if (!keep[i])
			continue;
		const struct mdef *m = &mdefs[i];
		char label[32], b[DASH_LANES][48], line[256];
		if (i == MR_GPUS)
			snprintf(label, sizeof label, "GPUs used/%.0f", t[0].gpus);
		else
			snprintf(label, sizeof label, "%s", m->label);
		if (m->kind == MK_SPARK) {
			char pk[16];
			snprintf(pk, sizeof pk, "0..%.0f%%", t[0].frag_peak * 100);
			put(y, r->x, r->w, "frag %-10s", pk);
			draw_spark(u, y, r->x + 15, r->w - 15, t[0].frag_peak);
			y++;
			continue;
		}
		int n = snprintf(line, sizeof line, "%-15.15s", label);
		mtext(m->kind, mvalue(&t[0], (enum mrow)i), 0, b[0], sizeof b[0]);
		n += snprintf(line + n, sizeof line - (size_t)n, nl == 1 ? "%16s" : "%10s", b[0]);
		if (nl == 2) {
			mtext(m->kind, mvalue(&t[1], (enum mrow)i), 0, b[1], sizeof b[1]);
			mtext(m->kind, mvalue(&t[1], (enum mrow)i) - mvalue(&t[0], (enum mrow)i), 1,
			      b[2], sizeof b[2]);
			snprintf(line + n, sizeof line - (size_t)n, "%10s%10s", b[1], b[2]);
		} else {
			for (int l = 1; l < nl; l++) {
				mtext(m->kind,
				      mvalue(&t[l], (enum mrow)i) - mvalue(&t[0], (enum mrow)i), 1,
				      b[l], sizeof b[l]);
				n += snprintf(line + n, sizeof line - (size_t)n, "%9s", b[l]);
			}
		}
		put(y++, r->x, r->w, "%s", line);
	}
}

static int wrap(const char *text, int w, int indent, char (*lines)[256], int max);

/* The RAID story's captions (--story raid), with the figures they point at now. */
#define STORY_STEPS 5

static void story_text(struct ui *u, char *buf, size_t len)
{
	struct dash_ticker m, w;
	char a[32], b[32], c[32], pa[16], pb[16];
	int l = dash_nlanes(u->d) > 1 ? 1 : 0;
	dash_ticker(u->d, 0, &m);
	dash_ticker(u->d, l, &w);
	switch (u->story) {
	case 1:
		snprintf(buf, len,
			 "RAID story %d/%d, from the seed article: at 2 a.m. inference latency "
			 "jumps "
			 "60%% while every GPU looks busy; an hour later the cause shows: three "
			 "nodes "
			 "rebuilding RAID, their storage bandwidth collapsed. w1 is this cluster "
			 "with "
			 "%s; main is the cluster as it was. n: next, Esc: end the story.",
			 u->story, STORY_STEPS, l ? dash_change(u->d, l) : "?");
		break;
	case 2:
		snprintf(buf, len,
			 "%d/%d the stalled GPUs: on those nodes the cells turn %s: the GPUs stay "
			 "allocated, the jobs on them run slower, waiting on storage. GPUs stalled "
			 "now: main %.1f, w1 %.1f of %.0f. n: next",
			 u->story, STORY_STEPS, cell_glyph(u, DASH_CELL_STALLED), m.gpu_stalled,
			 w.gpu_stalled, m.gpus);
		break;
	case 3:
		snprintf(
			buf, len,
			"%d/%d the residual shapes: the s bar of the three nodes is empty (storage "
			"used up, contended) while c m g h look healthy: what a scheduler watching "
			"GPUs and memory calls healthy enough. Enter on one shows its sto "
			"contended. n: next",
			u->story, STORY_STEPS);
		break;
	case 4:
		money(m.usd_year[SIM_B_STALLED], a, sizeof a);
		money(w.usd_year[SIM_B_STALLED], b, sizeof b);
		money(w.usd_year[SIM_B_STALLED] - m.usd_year[SIM_B_STALLED], c, sizeof c);
		duration_text(m.wait_p95, pa, sizeof pa);
		duration_text(w.wait_p95, pb, sizeof pb);
		snprintf(
			buf, len,
			"%d/%d the $ ticker: stalled $/yr main %s, w1 %s (%s more): busy GPUs, "
			"paid "
			"for, doing less; wait p95 main %s, w1 %s. More nodes (the autoscaler's "
			"answer) leave it; a policy that sees storage places around the rebuild: p "
			"forks one beside it. n: next",
			u->story, STORY_STEPS, a, b, c, pa, pb);
		break;
	default:
		snprintf(buf, len,
			 "%d/%d end of the story: Esc closes it; the what-if stays (w stores it, x "
			 "drops it, / clears the filter on its nodes).",
			 u->story, STORY_STEPS);
	}
}

static void draw_log(struct ui *u, const struct ui_rect *r)
{
	if (u->story) {
		char text[1024], lines[8][256];
		story_text(u, text, sizeof text);
		int n = wrap(text, r->w - 1, 1, lines, r->h < 8 ? r->h : 8);
		attron(A_BOLD);
		for (int k = 0; k < n; k++)
			put(r->y + k, r->x + 1, r->w - 1, "%s", lines[k]);
		attroff(A_BOLD);
		return;
	}
	struct dash_event ev;
	char buf[256], ln[16];
	int l = u->focus < dash_nlanes(u->d) ? u->focus : 0;
	lane_name(l, ln, sizeof ln);
	attron(A_BOLD);
	put(r->y, r->x, r->w, "events of %s%s%s", ln, l ? ": " : "", l ? dash_change(u->d, l) : "");
	attroff(A_BOLD);
	for (int k = 0; k < r->h - 1 && dash_log(u->d, l, (size_t)k, &ev); k++) {
		dash_event_text(u->d, l, &ev, buf, sizeof buf);
		int hot = ev.kind == DASH_EV_FAULT || ev.kind == DASH_EV_PREEMPT ||
			  ev.kind == DASH_EV_UNPLACEABLE;
		if (hot && u->color)
			attron(COLOR_PAIR(PAIR_ORANGE));
		put(r->y + 1 + k, r->x, r->w, " %s", buf);
		if (hot && u->color)
			attroff(COLOR_PAIR(PAIR_ORANGE));
	}
}

/* ---- keys ---- */

struct ui_key {
	int key;
	const char *name; /* as the key bar and help show it */
	const char *bar;  /* short label for the key bar, or NULL: help only */
	const char *help;
	void (*fn)(struct ui *u);
};

static int unstored(const struct ui *u);

static void k_quit(struct ui *u)
{
	if (unstored(u))
		u->mode = M_CONFIRM;
	else
		u->quit = 1;
}

static void k_play(struct ui *u)
{
	u->playing = !u->playing;
}

static void k_step(struct ui *u)
{
	u->playing = 0;
	if (!dash_step(u->d))
		snprintf(u->msg, sizeof u->msg, "the run is over");
}

static void k_faster(struct ui *u)
{
	u->speed = u->speed * 2 < 1e9 ? u->speed * 2 : u->speed;
}

static void k_slower(struct ui *u)
{
	u->speed = u->speed / 2 > 1e-3 ? u->speed / 2 : u->speed;
}

static int64_t scrub_step(const struct ui *u)
{
	int64_t s = (dash_tend(u->d) - dash_t0(u->d)) / 50;
	return s > 1 ? s : 1;
}

static void ui_goto(struct ui *u, int64_t t);

static void k_back(struct ui *u)
{
	ui_goto(u, dash_time(u->d) - scrub_step(u));
}

static void k_fwd(struct ui *u)
{
	ui_goto(u, dash_time(u->d) + scrub_step(u));
}

static void start_prompt(struct ui *u, enum prompt p, const char *init)
{
	u->mode = M_PROMPT;
	u->prompt = p;
	snprintf(u->line, sizeof u->line, "%s", init);
	u->linelen = strlen(u->line);
	u->prefilled = u->linelen > 0;
}

static void k_goto(struct ui *u)
{
	start_prompt(u, P_GOTO, "");
}

static void k_filter(struct ui *u)
{
	start_prompt(u, P_FILTER, u->filter);
}

static void k_cmd(struct ui *u)
{
	start_prompt(u, P_CMD, "");
}

static void k_fault(struct ui *u)
{
	if (!u->rows.nrows) {
		snprintf(u->msg, sizeof u->msg, "no node selected");
		return;
	}
	start_prompt(u, P_FAULT, "sto=0.5 6h");
}

static void k_io(struct ui *u)
{
	start_prompt(u, P_IO, "2");
}

static void k_pick(struct ui *u)
{
	u->mode = M_PICK;
}

static void k_sort(struct ui *u)
{
	u->sort = (enum dash_sort)((u->sort + 1) % DASH_NSORT);
}

static void k_zoom_in(struct ui *u)
{
	size_t cur = u->rows.nrows ? (u->rows.norder + u->rows.nrows - 1) / u->rows.nrows : 1;
	u->per = cur > 1 ? (int)(cur / 2) : 1;
}

static void k_zoom_out(struct ui *u)
{
	size_t cur = u->per > 0 ? (size_t)u->per : 1;
	u->per = cur * 2 >= u->rows.norder ? 0 : (int)(cur * 2);
}

static void k_detail(struct ui *u)
{
	if (!u->rows.nrows)
		return;
	u->detail = u->rows.order[u->rows.start[u->sel]];
	u->mode = M_DETAIL;
}

static void k_help(struct ui *u)
{
	u->mode = M_HELP;
	u->help_top = 0;
}

static void k_store(struct ui *u)
{
	if (dash_nlanes(u->d) < 2) {
		snprintf(u->msg, sizeof u->msg, "no what-if to store (p, f or i makes one)");
		return;
	}
	if (!u->o->store) {
		snprintf(u->msg, sizeof u->msg, "no store to write to");
		return;
	}
	int l = act_lane(u);
	snprintf(u->msg, sizeof u->msg, "storing w%d: running it to the end...", l);
	mvhline(u->h - 1, 0, ' ', u->w);
	put(u->h - 1, 0, u->w, "%s", u->msg);
	refresh();
	if (!u->o->store(u->o->store_u, u->d, l, u->msg, sizeof u->msg))
		dash_set_stored(u->d, l);
}

static void k_drop(struct ui *u)
{
	if (dash_nlanes(u->d) < 2) {
		snprintf(u->msg, sizeof u->msg, "no what-if to drop");
		return;
	}
	dash_drop_lane(u->d, act_lane(u));
	if (u->focus >= dash_nlanes(u->d))
		u->focus = dash_nlanes(u->d) - 1;
}

static void k_lane(struct ui *u)
{
	u->focus = (u->focus + 1) % dash_nlanes(u->d);
}

/* q: at once, unless a what-if was not stored: then ask (q again quits). */
static int unstored(const struct ui *u)
{
	int n = 0;
	for (int l = 1; l < dash_nlanes(u->d); l++)
		n += !dash_stored(u->d, l);
	return n;
}

static void k_up(struct ui *u)
{
	if (u->sel > 0)
		u->sel--;
}

static void k_down(struct ui *u)
{
	if (u->sel + 1 < u->rows.nrows)
		u->sel++;
}

static void k_pgup(struct ui *u)
{
	size_t k = u->rows_shown > 0 ? (size_t)u->rows_shown : 1;
	u->sel = u->sel > k ? u->sel - k : 0;
}

static void k_pgdn(struct ui *u)
{
	size_t k = u->rows_shown > 0 ? (size_t)u->rows_shown : 1;
	u->sel = u->sel + k < u->rows.nrows ? u->sel + k : (u->rows.nrows ? u->rows.nrows - 1 : 0);
}

static void k_home(struct ui *u)
{
	u->sel = u->top = 0;
}

static void k_end(struct ui *u)
{
	u->sel = u->rows.nrows ? u->rows.nrows - 1 : 0;
}

static const struct ui_key keys[] = {
	{' ', "space", "play", "play or pause", k_play},
	{'.', ".", "step", "step one event", k_step},
	{'>', ">", "fast", "double the speed", k_faster},
	{'<', "<", "slow", "halve the speed", k_slower},
	{'g', "g", "goto", "go to a time (3d12h, 90m, 50%)", k_goto},
	{'[', "[", NULL, "scrub back (a fiftieth of the window)", k_back},
	{']', "]", NULL, "scrub forward", k_fwd},
	{'p', "p", "policy", "what-if: fork under another policy", k_pick},
	{'f', "f", "fault",
	 "what-if: a fault on the selected node (DIM=FRACTION or down, DURATION)", k_fault},
	{'i', "i", "io", "what-if: another io-pressure (replayed from the start)", k_io},
	{'w', "w", NULL, "store the focused what-if (Tab) as a run", k_store},
	{'x', "x", NULL, "drop the focused what-if (Tab)", k_drop},
	{'/', "/", "filter", "filter nodes: name, model, faulted, stranded, full", k_filter},
	{'s', "s", "sort", "sort: name, fragmentation, free GPUs, stalled", k_sort},
	{'+', "+", NULL, "zoom in: fewer nodes per row", k_zoom_in},
	{'-', "-", NULL, "zoom out: more nodes per row", k_zoom_out},
	{'\n', "Enter", NULL, "node detail (Esc back)", k_detail},
	{KEY_ENTER, "Enter", NULL, NULL, k_detail},
	{KEY_UP, "Up", NULL, "select the row above", k_up},
	{'k', "k", NULL, NULL, k_up},
	{KEY_DOWN, "Down", NULL, "select the row below", k_down},
	{'j', "j", NULL, NULL, k_down},
	{KEY_PPAGE, "PgUp", NULL, "a page up", k_pgup},
	{KEY_NPAGE, "PgDn", NULL, "a page down", k_pgdn},
	{KEY_HOME, "Home", NULL, "the first row", k_home},
	{KEY_END, "End", NULL, "the last row", k_end},
	{'\t', "Tab", "lane",
	 "the next lane: the one the cluster panel and the log show, that w, x and Enter take",
	 k_lane},
	{':', ":", "cmd", "command: policy P, fault NODE DIM=F DUR, goto T, io X, drop, store",
	 k_cmd},
	{'?', "?", "help", "this help, and what the screen shows", k_help},
	{'q', "q", "quit", "quit (asks first when a what-if was not stored)", k_quit},
};
#define NKEYS (sizeof keys / sizeof keys[0])

/* The key bar: '? help' and 'q quit' at the right end always, the others from the left
 * while they fit. */
static void draw_keys(struct ui *u, const struct ui_rect *r)
{
	mvhline(r->y, r->x, ' ', r->w);
	if (u->msg[0]) {
		attron(A_BOLD);
		put(r->y, r->x, r->w, " %s", u->msg);
		attroff(A_BOLD);
		return;
	}
	int right = r->x + r->w;
	for (size_t i = 0; i < NKEYS; i++)
		if (keys[i].bar && (keys[i].key == '?' || keys[i].key == 'q'))
			right -= (int)(strlen(keys[i].name) + strlen(keys[i].bar) + 2);
	for (int pass = 0, x = r->x; pass < 2; pass++, x = right) {
		for (size_t i = 0; i < NKEYS; i++) {
			int last = keys[i].key == '?' || keys[i].key == 'q';
			if (!keys[i].bar || last != pass)
				continue;
			int nlen = (int)strlen(keys[i].name),
			    len = nlen + (int)strlen(keys[i].bar) + 2;
			if (!pass && x + len > right)
				break;
			attron(A_REVERSE);
			put(r->y, x, nlen, "%s", keys[i].name);
			attroff(A_REVERSE);
			put(r->y, x + nlen, len - nlen, " %s ", keys[i].bar);
			x += len;
		}
	}
}

static const struct ui_panel panel_header = {"header", draw_header};
static const struct ui_panel panel_cluster = {"cluster", draw_cluster};
static const struct ui_panel panel_metrics = {"metrics", draw_metrics};
static const struct ui_panel panel_log = {"log", draw_log};
static const struct ui_panel panel_keys = {"keys", draw_keys};

/* ---- overlays ---- */

static void box_at(const struct ui_rect *r)
{
	for (int y = r->y; y < r->y + r->h; y++)
		mvhline(y, r->x, ' ', r->w);
	mvhline(r->y, r->x, '-', r->w);
	mvhline(r->y + r->h - 1, r->x, '-', r->w);
	mvvline(r->y, r->x, '|', r->h);
	mvvline(r->y, r->x + r->w - 1, '|', r->h);
}

/* What the screen shows: the second part of the help, as htop's F1 explains its meters. */
static const char *const screen_help[] = {
	"header: the trace, the main run's policy and the focused what-if's change; the trace "
	"clock (days, then h:m:s from the first arrival) and the share of the pricing window "
	"passed; the speed in trace time per wall second; playing or paused.",
	"cluster: one row per node or, when they outnumber the rows, per range of nodes of one GPU "
	"model (first..last); then a block per lane (main, w1..w3).",
	"GPU cells: one per GPU of a node (a range shows them in proportion): FREE free, PART "
	"partly used by shared jobs, FULL fully used, STALLED held by a job slowed below full "
	"rate by a contended net, sto or iocpu.",
	"shape: the free share of each dimension as a bar (full: all free), c m g h n s i = cpu, "
	"mem, gpu, hbm, net, sto, iocpu; a capital letter (bold orange when the letters give "
	"way) marks capacity stranded there.",
	"marks: F2 = 2 faults active on the row's nodes; S3 = 3 of its nodes with stranded "
	"capacity (free but unusable by the jobs waiting).",
	"columns give way as the panel narrows, in this order: the GPU cells from 16 to 8, the "
	"shape's letters, the model, the lanes but the focused one (Tab), the cells to 4.",
	"frag now, peak: FGD fragmentation, as a share of the cluster's GPUs; its sparkline "
	"over the pricing window, from 0 to the peak.",
	"GPUs used/N: GPUs allocated of the N in the cluster; stalled: held by slowed jobs; idle "
	"blocked: free while a GPU job waits; idle unneeded: free and nothing waits.",
	"$ used, waste so far: $ at the scenario's prices over the part of the window passed "
	"(productive, and the rest).",
	"$/yr: a year at the pace so far: by placement and by sizing are the recoverable "
	"figures of voidfit(7); stalled, lost, idle blocked the buckets behind them.",
	"jobs queued, running: now. wait p95: the 95th percentile of the wait of the jobs placed "
	"so far (10% bins); the jobs still queued are not in it.",
	"events: handled so far; events/s: replayed per wall second lately (0 when paused).",
	"lanes: with one what-if the metrics show main, the what-if and the difference; with "
	"more, main then each what-if minus main (w1-main ...). w stores a what-if, x drops it.",
	"a long move (a far g, an io-pressure what-if) shows its progress; any key cancels it.",
};

/* text word-wrapped at w columns into lines[] (at most max), the lines after the first
 * indented by indent. Returns how many. */
static int wrap(const char *text, int w, int indent, char (*lines)[256], int max)
{
	const char *p = text;
	int n = 0;
	while (*p && n < max) {
		int room = w - (n ? indent : 0), cut = (int)strlen(p);
		if (room < 1)
			break;
		if (cols_of(p) > room) {
			cut = bytes_of_cols(p, room);
			while (cut > 0 && p[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = bytes_of_cols(p, room);
		}
		snprintf(lines[n], sizeof lines[0], "%*s%.*s", n ? indent : 0, "", cut, p);
		n++;
		p += cut;
		while (*p == ' ')
			p++;
	}
	return n;
}

/* The help's lines at width w into lines[] (at most max): the keys, then what the screen
 * shows, word-wrapped. Returns how many. */
static int help_lines(const struct ui *u, int w, char (*lines)[256], int max)
{
	int n = 0;
	for (size_t i = 0; i < NKEYS && n < max; i++)
		if (keys[i].help)
			snprintf(lines[n++], sizeof lines[0], "%-6s %s", keys[i].name,
				 keys[i].help);
	if (n < max)
		snprintf(lines[n++], sizeof lines[0], "%-6s %s", "mouse",
			 "click selects a row, the wheel scrolls");
	if (n < max)
		lines[n++][0] = '\0';
	if (n < max)
		snprintf(lines[n++], sizeof lines[0], "THE SCREEN");
	for (size_t i = 0; i < sizeof screen_help / sizeof *screen_help && n < max; i++) {
		char text[1024];
		snprintf(text, sizeof text, "%s", screen_help[i]);
		/* the cell glyphs of this terminal */
		static const char *const names[DASH_NCELL] = {"FREE", "PART", "FULL", "STALLED"};
		for (int c = 0; c < DASH_NCELL; c++) {
			char *p = strstr(text, names[c]);
			if (p) {
				char rest[1024];
				snprintf(rest, sizeof rest, "%s", p + strlen(names[c]));
				snprintf(p, sizeof text - (size_t)(p - text), "%s%s",
					 cell_glyph(u, c), rest);
			}
		}
		n += wrap(text, w, 2, lines + n, max - n);
	}
	return n;
}

#define HELP_MAX 160

/* The help overlay: its lines from help_top, scrolled by Up, Down, PgUp, PgDn, Home, End. */
static void draw_help(struct ui *u)
{
	char lines[HELP_MAX][256];
	struct ui_rect r = {1, 2, u->h - 3, u->w - 4};
	int n = help_lines(u, r.w - 4, lines, HELP_MAX), page = r.h - 4;
	if (u->help_top > n - page)
		u->help_top = n - page > 0 ? n - page : 0;
	if (u->help_top < 0)
		u->help_top = 0;
	u->help_page = page;
	box_at(&r);
	attron(A_BOLD);
	put(r.y + 1, r.x + 2, r.w - 4,
	    "help, lines %d-%d of %d (Up Down PgUp PgDn Home End; other keys close)",
	    u->help_top + 1, u->help_top + page < n ? u->help_top + page : n, n);
	attroff(A_BOLD);
	for (int k = 0; k < page && u->help_top + k < n; k++) {
		const char *l = lines[u->help_top + k];
		int head = !strcmp(l, "THE SCREEN");
		if (head)
			attron(A_BOLD);
		put(r.y + 2 + k, r.x + 2, r.w - 4, "%s", head ? "the screen" : l);
		if (head)
			attroff(A_BOLD);
	}
}

/* The detail of a node (Enter) in the focused lane: each dim with its unit, its GPUs by
 * index, its jobs by class and its share of the fragmentation, the faults, the jobs. */
static void draw_detail(struct ui *u)
{
	int l = u->focus < dash_nlanes(u->d) ? u->focus : 0;
	size_t n = (size_t)u->detail;
	struct dash_detail dd;
	char ln[16];
	dash_detail(u->d, l, n, &dd);
	lane_name(l, ln, sizeof ln);
	struct ui_rect r = {1, 2, u->h - 3, u->w - 4};
	box_at(&r);
	int y = r.y + 1, x = r.x + 2, w = r.w - 4;
	attron(A_BOLD);
	put(y++, x, w, "node %s  %s  %d GPU  (%s; Esc back)", dd.name,
	    dd.model >= 0 ? gpumodel_get(dd.model)->name : "cpu", dd.ngpu, ln);
	attroff(A_BOLD);
	put(y++, x, w, "jobs %d: infer %d, train %d, batch %d, cpu %d; %d slowed by contention",
	    dd.njobs, dd.jobs_by_class[JOB_INFER], dd.jobs_by_class[JOB_TRAIN],
	    dd.jobs_by_class[JOB_BATCH], dd.jobs_by_class[JOB_CPU], dd.slowed);
	put(y++, x, w, "fragmentation (FGD) %.2f GPU, %.1f%% of the cluster's", dd.frag,
	    dd.frag_share * 100);
	put(y++, x, w, "%-6s %14s %14s %14s", "dim", "capacity", "used", "free");
	for (int d = 0; d < DIM_N; d++) {
		char cap[32], used[32], fr[48];
		dash_dim_text((enum dim)d, (double)dd.cap[d], cap, sizeof cap);
		dash_dim_text((enum dim)d, (double)dd.used[d], used, sizeof used);
		if (dd.used[d] > dd.cap[d] && dd.cap[d] > 0)
			snprintf(fr, sizeof fr, "contended %.0f%%",
				 100.0 * (double)dd.used[d] / (double)dd.cap[d]);
		else
			dash_dim_text((enum dim)d, (double)(dd.cap[d] - dd.used[d]), fr, sizeof fr);
		put(y++, x, w, "%-6s %14s %14s %14s%s", job_dim_name((enum dim)d), cap, used, fr,
		    dd.cap[d] != dd.spec[d] ? "  (faulted)" : "");
	}
	/* GPUs by index: its used share and state */
	char gl[512];
	int gn = 0;
	for (int g = 0; g < dd.ngpu && gn < (int)sizeof gl - 24; g++)
		gn += snprintf(gl + gn, sizeof gl - (size_t)gn, "%d:%.0f%%%s ", g,
			       dd.gpu_used[g] * 100,
			       dd.cell[g] == DASH_CELL_STALLED ? " stalled" : "");
	put(y++, x, w, "GPUs used  %s", dd.ngpu ? gl : "none");
	for (int i = 0; i < dd.nfault && i < DASH_DETAIL_FAULTS && y < r.y + r.h - 3; i++)
		put(y++, x, w, "fault %s", dd.fault[i]);
	put(y++, x, w, "%-10s %-6s %9s %6s %10s %s", "job", "class", "GPU each", "rate",
	    "work left", "GPUs (index)");
	for (int i = 0; i < dd.njobs && y < r.y + r.h - 1; i++) {
		struct sim_job_result jr;
		char wl[16], gi[96];
		int gn2 = 0;
		dash_detail_job(u->d, l, n, i, &jr);
		duration_text(jr.work_left, wl, sizeof wl);
		gi[0] = '\0';
		for (int g = 0; g < 32 && gn2 < (int)sizeof gi - 4; g++)
			if ((jr.gpus >> g) & 1)
				gn2 += snprintf(gi + gn2, sizeof gi - (size_t)gn2, "%s%d",
						gn2 ? "," : "", g);
		put(y++, x, w, "%-10lld %-6s %9.3f %6.3f %10s %s", (long long)jr.job_id,
		    job_class_name((enum job_class)jr.cls), (double)jr.gpu_milli / 1000, jr.rate,
		    wl, gn2 ? gi : "-");
	}
}

static void draw_pick(struct ui *u)
{
	int n = 0;
	while (policy_table[n])
		n++;
	struct ui_rect r = {2, u->w / 2 - 20, n + 4, 40};
	box_at(&r);
	attron(A_BOLD);
	put(r.y + 1, r.x + 2, r.w - 4, "fork under policy (Enter, Esc):");
	attroff(A_BOLD);
	for (int i = 0; i < n; i++) {
		if (i == u->pick)
			attron(A_REVERSE);
		put(r.y + 2 + i, r.x + 2, r.w - 4, " %-12s", policy_table[i]->name);
		if (i == u->pick)
			attroff(A_REVERSE);
	}
}

static const char *prompt_label(enum prompt p)
{
	switch (p) {
	case P_GOTO:
		return "goto (3d12h, 90m, 50%): ";
	case P_FILTER:
		return "filter: ";
	case P_CMD:
		return ":";
	case P_FAULT:
		return "fault DIM=FRACTION DURATION: ";
	case P_IO:
		return "io-pressure: ";
	}
	return "";
}

/* ---- long moves: a progress line, any key cancels ---- */

static void layout_draw(struct ui *u);

/* The progress hook (dash.h): after 0.3 s, a line on the key bar with the share done and
 * an estimate of what is left. Any key but a resize cancels, and is not run: keys typed
 * during a move are dropped. */
static int on_progress(void *p, double done, double elapsed)
{
	struct ui *u = p;
	int cancel = 0, resized = 0, ch;
	timeout(0);
	while ((ch = getch()) != ERR) {
		if (ch == KEY_RESIZE)
			resized = 1;
		else
			cancel = 1;
	}
	if (cancel)
		return 1;
	if (elapsed < 0.3)
		return 0;
	char left[32] = "estimating";
	if (done > 0.01) {
		double s = elapsed * (1 - done) / done;
		snprintf(left, sizeof left, "about %.0f s left", s < 1 ? 1 : s);
	}
	snprintf(u->msg, sizeof u->msg, "%s: %.0f%% done in %.0f s, %s; any key cancels", u->moving,
		 done * 100, elapsed, left);
	if (!u->move_shown || resized) {
		u->move_shown = 1;
		layout_draw(u);
		return 0;
	}
	getmaxyx(stdscr, u->h, u->w);
	if (u->w >= MIN_W && u->h >= MIN_H) {
		mvhline(u->h - 1, 0, ' ', u->w);
		attron(A_BOLD);
		put(u->h - 1, 0, u->w, " %s", u->msg);
		attroff(A_BOLD);
		refresh();
	}
	return 0;
}

/* Start a move described by fmt; end it: the message says if it was cancelled, and the
 * keys typed meanwhile are gone. */
static void move_begin(struct ui *u, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void move_begin(struct ui *u, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(u->moving, sizeof u->moving, fmt, ap);
	va_end(ap);
	u->move_shown = 0;
	u->msg[0] = '\0';
}

static void move_end(struct ui *u, int rc)
{
	if (rc == DASH_CANCELLED)
		snprintf(u->msg, sizeof u->msg, "%s: cancelled, nothing moved", u->moving);
	else if (u->move_shown)
		u->msg[0] = '\0';
	u->move_shown = 0;
	u->cache_ok = 0;
	flushinp();
}

static void ui_goto(struct ui *u, int64_t t)
{
	char tb[32];
	dash_time_text(u->d, t, tb, sizeof tb);
	move_begin(u, "going to %s", tb);
	move_end(u, dash_goto(u->d, t));
}

static void ui_fork_io(struct ui *u, double x)
{
	struct err e = {0};
	move_begin(u, "io-pressure %g: replaying from the start", x);
	int rc = dash_fork_io(u->d, x, &e);
	move_end(u, rc);
	if (rc > 0)
		snprintf(u->msg, sizeof u->msg, "%s", e.msg);
}

static void ui_compare(struct ui *u, const struct policy_ops *ops)
{
	struct err e = {0};
	move_begin(u, "compare %s: replaying from the start", ops->name);
	int rc = dash_compare(u->d, ops, &e);
	move_end(u, rc);
	if (rc > 0)
		snprintf(u->msg, sizeof u->msg, "%s", e.msg);
}

/* The moves of the command line (ui_opts), in the screen: what a cancelled one leaves is
 * said on the key bar. 0, or VF_EINPUT when the story cannot be told here. */
static int start_moves(struct ui *u, struct ui_opts *o, struct err *e)
{
	char tb[32];
	o->seek_s = -1;
	if (o->has_at) {
		dash_time_text(u->d, o->at, tb, sizeof tb);
		move_begin(u, "going to %s", tb);
		double t0 = util_mono();
		int rc = dash_goto(u->d, o->at);
		move_end(u, rc);
		if (rc == DASH_CANCELLED) {
			snprintf(u->msg, sizeof u->msg,
				 "going to %s: cancelled, the view stays at the first arrival%s",
				 tb, o->story ? ", and no story" : "");
			return 0; /* the story is told from its time or not at all */
		}
		o->seek_s = util_mono() - t0;
		o->seek_events = dash_events(u->d, 0);
	}
	if (o->compare) {
		move_begin(u, "compare %s: replaying from the start", o->compare->name);
		int rc = dash_compare(u->d, o->compare, e);
		move_end(u, rc);
		if (rc > 0)
			return rc;
		if (rc == DASH_CANCELLED)
			snprintf(u->msg, sizeof u->msg,
				 "compare %s: cancelled, no what-if (p forks one from here)",
				 o->compare->name);
	}
	if (o->story) {
		if (dash_story_raid(u->d, u->filter, sizeof u->filter, e))
			return VF_EINPUT;
		u->story = 1;
	}
	return 0;
}

/* ---- commands (':' and the prompts) ---- */

/* A replay of the window this long or more makes a policy slow on this store: say so. */
#define SLOW_S 10.0

static void warn_slow(struct ui *u, int l)
{
	double s = dash_cost(u->d, l, 0.2);
	if (s >= SLOW_S)
		snprintf(
			u->msg, sizeof u->msg,
			"policy %s is slow on this store: %.0f s or more to replay the window "
			"(timed on its next events; later ones cost more as the cluster fills), so "
			"a far seek takes long (any key cancels it); fgd or first-fit are faster",
			dash_policy(u->d, l), s);
}

static void fork_policy(struct ui *u, const char *name)
{
	struct err e = {0};
	const struct policy_ops *ops = policy_find(name);
	if (!ops) {
		snprintf(u->msg, sizeof u->msg,
			 "policy '%s': no such policy (see voidfit policies)", name);
		return;
	}
	if (dash_fork(u->d, ops, NULL, &e))
		snprintf(u->msg, sizeof u->msg, "%s", e.msg);
	else
		warn_slow(u, dash_nlanes(u->d) - 1);
}

/* A ':' line: dash_command runs the quick forks; the long moves run here with their
 * progress line, and what is the screen's. */
static void run_cmd(struct ui *u, const char *line)
{
	struct dash_cmd_arg a;
	struct err e = {0};
	switch (dash_command(u->d, line, &a, &e)) {
	case DASH_CMD_FORKED:
		warn_slow(u, dash_nlanes(u->d) - 1);
		break;
	case DASH_CMD_GOTO:
		ui_goto(u, a.t);
		break;
	case DASH_CMD_IO:
		ui_fork_io(u, a.x);
		break;
	case DASH_CMD_COMPARE:
		ui_compare(u, a.ops);
		break;
	case DASH_CMD_DROP:
		k_drop(u);
		break;
	case DASH_CMD_STORE:
		k_store(u);
		break;
	case DASH_CMD_QUIT:
		k_quit(u);
		break;
	case DASH_CMD_ERROR:
		snprintf(u->msg, sizeof u->msg, "%s", e.msg);
		break;
	case DASH_CMD_NONE:
		break;
	}
}

static void prompt_done(struct ui *u)
{
	int64_t t;
	u->mode = M_MAIN;
	switch (u->prompt) {
	case P_GOTO:
		if (dash_parse_time(u->d, u->line, &t))
			snprintf(u->msg, sizeof u->msg, "goto '%s': not a time (3d12h, 90m, 50%%)",
				 u->line);
		else
			ui_goto(u, t);
		break;
	case P_FILTER:
		snprintf(u->filter, sizeof u->filter, "%s", u->line);
		u->sel = u->top = 0;
		break;
	case P_CMD:
		run_cmd(u, u->line);
		break;
	case P_FAULT:
		if (u->rows.nrows) {
			struct err e = {0};
			if (dash_fork_node_fault(
				    u->d,
				    dash_node_name(u->d,
						   (size_t)u->rows.order[u->rows.start[u->sel]]),
				    u->line, &e))
				snprintf(u->msg, sizeof u->msg, "%s", e.msg);
		}
		break;
	case P_IO: {
		double x;
		if (parse_double(u->line, &x))
			snprintf(u->msg, sizeof u->msg, "io-pressure '%s': not a number", u->line);
		else
			ui_fork_io(u, x);
		break;
	}
	}
}

/* ---- the loop ---- */

static void layout_draw(struct ui *u)
{
	getmaxyx(stdscr, u->h, u->w);
	erase();
	if (u->w < MIN_W || u->h < MIN_H) {
		put(u->h / 2, 0, u->w, "terminal too small: %dx%d, voidfit dash needs %dx%d", u->w,
		    u->h, MIN_W, MIN_H);
		put(u->h / 2 + 1, 0, u->w, "(q quits)");
		refresh();
		return;
	}
	int nl = dash_nlanes(u->d);
	/* a new what-if takes the focus; a dropped one gives it back */
	if (nl > u->seen_lanes || u->focus >= nl)
		u->focus = nl - 1;
	u->seen_lanes = nl;
	int mw = metrics_width(nl), logrows = u->h >= 32 ? LOG_ROWS : 3;
	int body = u->h - 2 - (logrows + 1);
	struct ui_rect hr = {0, 0, 1, u->w};
	struct ui_rect cr = {1, 0, body, u->w - mw - 1};
	struct ui_rect mr = {1, u->w - mw, body, mw};
	struct ui_rect lr = {1 + body, 0, logrows + 1, u->w};
	struct ui_rect kr = {u->h - 1, 0, 1, u->w};
	panel_header.draw(u, &hr);
	panel_cluster.draw(u, &cr);
	panel_metrics.draw(u, &mr);
	panel_log.draw(u, &lr);
	panel_keys.draw(u, &kr);
	if (u->mode == M_HELP)
		draw_help(u);
	else if (u->mode == M_DETAIL)
		draw_detail(u);
	else if (u->mode == M_PICK)
		draw_pick(u);
	else if (u->mode == M_CONFIRM) {
		int n = unstored(u);
		mvhline(u->h - 1, 0, ' ', u->w);
		attron(A_BOLD);
		put(u->h - 1, 0, u->w,
		    " %d what-if%s not stored: q quits and loses %s, w stores one, any other key "
		    "stays",
		    n, n > 1 ? "s" : "", n > 1 ? "them" : "it");
		attroff(A_BOLD);
	} else if (u->mode == M_PROMPT) {
		const char *label = prompt_label(u->prompt);
		mvhline(u->h - 1, 0, ' ', u->w);
		put(u->h - 1, 0, u->w, "%s", label);
		if (u->prefilled) /* shown selected: typing replaces it */
			attron(A_REVERSE);
		put(u->h - 1, cols_of(label), u->w - cols_of(label), "%s", u->line);
		attroff(A_REVERSE);
		if (u->prefilled)
			put(u->h - 1, cols_of(label) + cols_of(u->line),
			    u->w - cols_of(label) - cols_of(u->line),
			    "  (type to replace, Enter takes it, Ctrl-U clears, Esc cancels)");
	}
	refresh();
}

static void on_mouse(struct ui *u)
{
	MEVENT me;
	if (getmouse(&me) != OK)
		return;
	if (me.bstate & BUTTON4_PRESSED)
		k_up(u);
#ifdef BUTTON5_PRESSED
	else if (me.bstate & BUTTON5_PRESSED)
		k_down(u);
#endif
	else if (me.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_RELEASED)) {
		int k = me.y - u->cl_y;
		if (k >= 0 && k < u->rows_shown && u->top + (size_t)k < u->rows.nrows)
			u->sel = u->top + (size_t)k;
	}
}

static void on_key(struct ui *u, int ch)
{
	u->cache_ok = 0; /* the rows, the lanes or the state shown may change */
	if (ch == KEY_MOUSE) {
		on_mouse(u);
		return;
	}
	if (ch == KEY_RESIZE)
		return;
	if (u->w < MIN_W || u->h < MIN_H) {
		if (ch == 'q')
			u->quit = 1;
		return;
	}
	switch (u->mode) {
	case M_HELP: {
		int page = u->help_page > 1 ? u->help_page : 1;
		if (ch == KEY_UP || ch == 'k')
			u->help_top--;
		else if (ch == KEY_DOWN || ch == 'j')
			u->help_top++;
		else if (ch == KEY_PPAGE)
			u->help_top -= page;
		else if (ch == KEY_NPAGE || ch == ' ')
			u->help_top += page;
		else if (ch == KEY_HOME)
			u->help_top = 0;
		else if (ch == KEY_END)
			u->help_top = HELP_MAX;
		else
			u->mode = M_MAIN;
		return; /* draw_help clamps help_top */
	}
	case M_CONFIRM:
		u->mode = M_MAIN;
		if (ch == 'q' || ch == 'y')
			u->quit = 1;
		else if (ch == 'w') {
			u->focus = 0;
			for (int l = 1; l < dash_nlanes(u->d) && !u->focus; l++)
				if (!dash_stored(u->d, l))
					u->focus = l;
			k_store(u);
		}
		return;
	case M_DETAIL:
		if (ch == 27 || ch == 'q' || ch == '\n' || ch == KEY_ENTER)
			u->mode = M_MAIN;
		return;
	case M_PICK: {
		int n = 0;
		while (policy_table[n])
			n++;
		if (ch == KEY_UP || ch == 'k')
			u->pick = u->pick > 0 ? u->pick - 1 : 0;
		else if (ch == KEY_DOWN || ch == 'j')
			u->pick = u->pick + 1 < n ? u->pick + 1 : n - 1;
		else if (ch == '\n' || ch == KEY_ENTER) {
			u->mode = M_MAIN;
			fork_policy(u, policy_table[u->pick]->name);
		} else if (ch == 27 || ch == 'q')
			u->mode = M_MAIN;
		return;
	}
	case M_PROMPT:
		/* as readline and htop: a suggestion is taken by Enter, replaced by the first
		 * character typed, edited by Backspace; Ctrl-U clears, Esc cancels */
		if (ch == 27) {
			u->mode = M_MAIN;
		} else if (ch == '\n' || ch == KEY_ENTER) {
			prompt_done(u);
		} else if (ch == 21) { /* Ctrl-U */
			u->line[u->linelen = 0] = '\0';
		} else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
			if (u->linelen)
				u->line[--u->linelen] = '\0';
		} else if (ch >= 32 && ch < 127 && u->linelen + 1 < sizeof u->line) {
			if (u->prefilled)
				u->linelen = 0;
			u->line[u->linelen++] = (char)ch;
			u->line[u->linelen] = '\0';
		}
		u->prefilled = 0;
		return;
	case M_MAIN:
		if (u->story && (ch == 'n' || ch == 27)) {
			u->story = ch == 27 || u->story >= STORY_STEPS ? 0 : u->story + 1;
			return;
		}
		break;
	}
	u->msg[0] = '\0';
	for (size_t i = 0; i < NKEYS; i++)
		if (keys[i].key == ch) {
			keys[i].fn(u);
			return;
		}
}

/* The CPU seconds this thread has used: a frame's drawing in CPU time, which a loaded
 * machine's waits for the processor do not lengthen (--frame-log). */
static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Replay for the wall time dt at the speed, until the wall time deadline (the frame's
 * share left for replaying). */
static void play(struct ui *u, double dt, double deadline)
{
	double want = dt * u->speed;
	while (want > 0 && !dash_over(u->d)) {
		int64_t before = dash_time(u->d);
		dash_advance_until(u->d, want, 1024, deadline);
		want -= (double)(dash_time(u->d) - before);
		if (dash_time(u->d) == before || util_mono() > deadline)
			break;
	}
}

int ui_run(struct dash *d, struct ui_opts *o, struct err *e)
{
	struct ui u = {0};
	struct sigaction sa = {0}, old_int, old_term, old_hup, sab = {0}, old_abrt, old_segv,
			 old_bus, old_fpe;
	int rc = 0;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return err_set(e, VF_EIO, "the dashboard needs a terminal (stdin and stdout)");
	setlocale(LC_ALL, "");
	u.d = d;
	u.o = o;
	dash_set_progress(d, on_progress, &u);
	u.ascii = o->ascii || strcmp(nl_langinfo(CODESET), "UTF-8") != 0;
	u.playing = !o->paused;
	u.speed = o->speed;
	if (u.speed <= 0) {
		double span = (double)(dash_tend(d) - dash_t0(d));
		u.speed = span > 0 ? pow(2, ceil(log2(span / 120))) : 1;
		if (u.speed < 1)
			u.speed = 1;
	}

	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	sab.sa_handler = on_abort;
	sigemptyset(&sab.sa_mask);
	sigaction(SIGABRT, &sab, &old_abrt);
	sigaction(SIGSEGV, &sab, &old_segv);
	sigaction(SIGBUS, &sab, &old_bus);
	sigaction(SIGFPE, &sab, &old_fpe);
	util_set_fatal_hook(ui_restore);

	if (!initscr()) {
		rc = err_set(e, VF_EIO, "the terminal: curses cannot start (TERM?)");
		goto out;
	}
	ui_on = 1;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	timeout((int)(FRAME_S * 1000));
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
			  | BUTTON5_PRESSED
#endif
		  ,
		  NULL);
	u.color = !o->mono && has_colors();
	if (u.color) {
		start_color();
		use_default_colors();
		init_pair(PAIR_BLUE, COLOR_BLUE, -1);
		init_pair(PAIR_ORANGE, COLORS >= 256 ? 208 : COLOR_YELLOW, -1);
		init_pair(PAIR_DIM, COLORS >= 256 ? 244 : COLOR_WHITE, -1);
		init_pair(PAIR_HEAD, COLOR_WHITE, COLOR_BLUE);
	}

	if ((rc = start_moves(&u, o, e)))
		goto out;
	warn_slow(&u, 0);
	/* each frame: draw first, then replay until the frame's end is near, then read keys
	 * until the next frame begins (at once when the replay could not keep up). Drawing
	 * right after the wait, the process has just woken: on a loaded machine the scheduler
	 * lets it run then, where after replaying for the rest of the frame it is the one
	 * that waits, and a frame drawn then takes the wait into its time. The frame shows the
	 * state the last one reached. */
	double last = util_mono();
	int dirty = 1; /* something to draw: a key, a resize, playback (paused, nothing moves) */
	while (!u.quit && !ui_sig) {
		double now = util_mono(), frame_end = now + FRAME_S;
		double c_draw = cpu_s();
		if (dirty)
			layout_draw(&u);
		double end = util_mono();
		if (o->log_frames && dirty) {
			xgrow(&o->frames, &o->framecap, o->nframes + 1, sizeof *o->frames);
			o->frames[o->nframes++] =
				(struct ui_frame){(end - now) * 1000, end, dash_events(d, 0),
						  (cpu_s() - c_draw) * 1000};
		}
		dirty = 0;
		if (u.playing && u.mode != M_PROMPT && !dash_over(d)) {
			play(&u, now - last, frame_end - 0.002);
			dirty = 1;
			end = util_mono();
		}
		last = now;
		int wait_ms = (int)((frame_end - end) * 1000);
		timeout(wait_ms > 0 ? wait_ms : 0);
		int ch = getch();
		while (ch != ERR && !u.quit) {
			if (ch == '\r')
				ch = '\n';
			dirty = 1;
			on_key(&u, ch);
			ch = u.quit ? ERR : (timeout(0), getch());
		}
	}
	if (ui_sig)
		rc = 128 + ui_sig;
out:
	dash_set_progress(d, NULL, NULL);
	ui_restore();
	util_set_fatal_hook(NULL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	sigaction(SIGABRT, &old_abrt, NULL);
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	sigaction(SIGFPE, &old_fpe, NULL);
	dash_rows_release(&u.rows);
	free(u.cache);
	return rc;
}
