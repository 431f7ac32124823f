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
 * drawing run in one loop: each frame (30 a second) replays until its drawing is due, draws,
 * and reads keys until the next frame begins; a resize redraws.
 *
 * Restoring the terminal: ui_restore() ends curses once; it runs on q, after a signal
 * (SIGINT, SIGTERM and SIGHUP only set a flag that the loop sees within a frame), from the
 * fatal hook (xmalloc's out-of-memory exit) and on SIGABRT (a failed assert) before the
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
#include <unistd.h>

#include "esc.h"
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

static void on_abort(int sig)
{
	ui_restore(); /* dying anyway: leave the terminal usable */
	signal(sig, SIG_DFL);
	raise(sig);
}

enum mode { M_MAIN, M_HELP, M_DETAIL, M_PICK, M_PROMPT };
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
	int32_t *order; /* the filtered, sorted nodes of lane 0 */
	size_t norder;
	int per;           /* nodes per row: 0 = fit them all */
	size_t sel, top;   /* selected row and first row shown */
	int rows_shown;    /* cluster rows that fit */
	int cl_y;          /* screen row of the first cluster row */
	size_t nrows;      /* rows of the current grouping */
	size_t *row_start; /* each row's first index in order (nrows + 1 entries) */
	size_t rowcap;
	char filter[128];
	enum dash_sort sort;
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
	double a = fabs(v);
	const char *sign = v < 0 ? "-" : "";
	if (a >= 1e9)
		snprintf(buf, len, "%s$%.2fB", sign, a / 1e9);
	else if (a >= 1e6)
		snprintf(buf, len, "%s$%.2fM", sign, a / 1e6);
	else if (a >= 1e3)
		snprintf(buf, len, "%s$%.1fk", sign, a / 1e3);
	else
		snprintf(buf, len, "%s$%.0f", sign, a);
}

static void duration_text(double s, char *buf, size_t len)
{
	if (s < 120)
		snprintf(buf, len, "%.0fs", s);
	else if (s < 7200)
		snprintf(buf, len, "%.0fm", s / 60);
	else if (s < 172800)
		snprintf(buf, len, "%.1fh", s / 3600);
	else
		snprintf(buf, len, "%.1fd", s / 86400);
}

/* ---- the panels ---- */

struct ui_rect {
	int y, x, h, w;
};

struct ui_panel {
	const char *name;
	void (*draw)(struct ui *u, const struct ui_rect *r);
};

static void draw_header(struct ui *u, const struct ui_rect *r)
{
	char tb[32], ch[200] = "";
	struct dash_ticker t;
	dash_ticker(u->d, 0, &t);
	dash_time_text(u->d, dash_time(u->d), tb, sizeof tb);
	if (dash_nlanes(u->d) > 1)
		snprintf(ch, sizeof ch, "  vs %s", dash_change(u->d, 1));
	if (u->color)
		attron(COLOR_PAIR(PAIR_HEAD) | A_BOLD);
	else
		attron(A_BOLD);
	mvhline(r->y, r->x, ' ', r->w);
	const char *state = dash_over(u->d) ? "[over]"
			    : u->playing    ? (u->ascii ? "> playing" : "▶ playing")
					    : (u->ascii ? "|| paused" : "⏸ paused");
	const char *trace = u->o->trace_name ? u->o->trace_name : "";
	const char *pol = sim_policy(dash_sim(u->d, 0))->name;
	/* the longest form that fits: in full, shorter, then without the what-if's change
	 * (the lanes' titles name it), so the clock and the play state stay in sight */
	char line[512];
	for (int form = 0; form < 3; form++) {
		if (form == 0)
			snprintf(line, sizeof line,
				 " voidfit dash  %s  policy %s%s  t %s (%.0f%% of window)  x%.4g  "
				 "%s",
				 trace, pol, ch, tb, t.window_share * 100, u->speed, state);
		else
			snprintf(line, sizeof line, " %s  %s%s  t %s (%.0f%%)  x%.4g  %s", trace,
				 pol, form == 1 ? ch : "", tb, t.window_share * 100, u->speed,
				 state);
		if (cols_of(line) <= r->w)
			break;
	}
	put(r->y, r->x, r->w, "%s", line);
	attroff(COLOR_PAIR(PAIR_HEAD) | A_BOLD);
}

/* The grouping of lane 0's filtered nodes into rows: ranges of at most per nodes of one GPU
 * model (per = 0: as many as make every node fit the rows). */
static void regroup(struct ui *u, int rows)
{
	const struct cluster *c = sim_cluster(dash_sim(u->d, 0));
	free(u->order);
	u->order = xmalloc((c->n ? c->n : 1) * sizeof *u->order);
	u->norder = dash_order(u->d, 0, u->filter, u->sort, u->order);
	size_t per = u->per > 0 ? (size_t)u->per : 1;
	if (u->per <= 0 && rows > 0) {
		/* the fewest nodes per row that fit, each model starting a row */
		for (per = (u->norder + (size_t)rows - 1) / (size_t)rows; per < u->norder; per++) {
			size_t n = 0, i = 0;
			while (i < u->norder) {
				size_t j = i + 1;
				int m = c->spec[u->order[i]].ngpu ? c->spec[u->order[i]].model : -1;
				while (j < u->norder && j - i < per &&
				       (c->spec[u->order[j]].ngpu ? c->spec[u->order[j]].model
								  : -1) == m)
					j++;
				n++;
				i = j;
			}
			if (n <= (size_t)rows)
				break;
		}
		if (per < 1)
			per = 1;
	}
	xgrow(&u->row_start, &u->rowcap, u->norder + 2, sizeof *u->row_start);
	u->nrows = 0;
	for (size_t i = 0; i < u->norder;) {
		size_t j = i + 1;
		int m = c->spec[u->order[i]].ngpu ? c->spec[u->order[i]].model : -1;
		while (j < u->norder && j - i < per &&
		       (c->spec[u->order[j]].ngpu ? c->spec[u->order[j]].model : -1) == m)
			j++;
		u->row_start[u->nrows++] = i;
		i = j;
	}
	u->row_start[u->nrows] = u->norder;
	if (u->sel >= u->nrows)
		u->sel = u->nrows ? u->nrows - 1 : 0;
}

/* One row of the cluster panel for lane l: the nodes of row i. */
static void draw_row(struct ui *u, int l, size_t i, int y, int x, int w)
{
	struct dash_node dn;
	size_t a = u->row_start[i], n = u->row_start[i + 1] - a;
	dash_group(u->d, l, u->order + a, n, &dn);
	int selected = i == u->sel;
	if (selected)
		attron(A_REVERSE);
	mvhline(y, x, ' ', w);
	int nw = w >= 60 ? 18 : 12;
	put(y, x, nw, "%s", dn.name);
	int cx = x + nw + 1;
	put(y, cx, 7, "%s",
	    dn.model >= 0 ? gpumodel_get(dn.model)->name
	    : dn.ngpu     ? "mixed"
			  : "cpu");
	cx += 8;
	/* GPUs: each GPU a cell for a node; for a range, cells in proportion. The residual
	 * shape needs 2 x DIM_N columns and the marks a few: the cells give way first. */
	int room = x + w - cx, gw = room >= 16 + 1 + 2 * DIM_N + 6 ? 16 : 8, shape = 1;
	if (room < gw + 1 + 2 * DIM_N + 4) {
		shape = 0;
		gw = room - 5 < 16 ? room - 5 : 16;
	}
	if (n == 1) {
		for (int g = 0; g < dn.ngpu && g < gw; g++) {
			attr_cell(u, dn.cell[g], 1);
			mvaddstr(y, cx + g, cell_glyph(u, dn.cell[g]));
			attr_cell(u, dn.cell[g], 0);
		}
	} else if (dn.ngpu) {
		int k = 0;
		static const int order[DASH_NCELL] = {DASH_CELL_STALLED, DASH_CELL_FULL,
						      DASH_CELL_PART, DASH_CELL_FREE};
		double acc = 0;
		for (int q = 0; q < DASH_NCELL; q++) {
			int c = order[q];
			acc += (double)dn.cells[c] * gw / dn.ngpu;
			int upto = (int)lround(acc);
			attr_cell(u, c, 1);
			for (; k < upto && k < gw; k++)
				mvaddstr(y, cx + k, cell_glyph(u, c));
			attr_cell(u, c, 0);
		}
	}
	cx += gw + 1;
	/* the residual shape: the free share of each dim */
	static const char dimch[DIM_N] = {'c', 'm', 'g', 'h', 'n', 's', 'i'};
	if (shape) {
		for (int d = 0; d < DIM_N; d++) {
			int str = (dn.stranded >> d) & 1;
			if (str && u->color)
				attron(COLOR_PAIR(PAIR_ORANGE));
			mvaddch(y, cx + 2 * d, str ? (chtype)(dimch[d] - 32) : (chtype)dimch[d]);
			mvaddstr(y, cx + 2 * d + 1, bar_glyph(u, dn.free[d]));
			if (str && u->color)
				attroff(COLOR_PAIR(PAIR_ORANGE));
		}
		cx += 2 * DIM_N + 1;
	}
	/* marks: faults, stranded nodes, the range's size */
	char marks[64] = "";
	int mlen = 0;
	if (dn.faults)
		mlen += snprintf(marks + mlen, sizeof marks - (size_t)mlen, "F%d ", dn.faults);
	if (dn.nstranded)
		mlen += snprintf(marks + mlen, sizeof marks - (size_t)mlen, "S%d ", dn.nstranded);
	if (n > 1)
		snprintf(marks + mlen, sizeof marks - (size_t)mlen, "x%zu", n);
	if (dn.faults && u->color)
		attron(COLOR_PAIR(PAIR_ORANGE) | A_BOLD);
	put(y, cx, x + w - cx, "%s", marks);
	if (dn.faults && u->color)
		attroff(COLOR_PAIR(PAIR_ORANGE) | A_BOLD);
	if (selected)
		attroff(A_REVERSE);
}

static void draw_cluster(struct ui *u, const struct ui_rect *r)
{
	int rows = r->h - 1;
	regroup(u, rows);
	u->rows_shown = rows;
	u->cl_y = r->y + 1;
	if (u->sel < u->top)
		u->top = u->sel;
	if (rows > 0 && u->sel >= u->top + (size_t)rows)
		u->top = u->sel - (size_t)rows + 1;
	int nl = dash_nlanes(u->d), cw = r->w / nl;
	attron(A_BOLD);
	for (int l = 0; l < nl; l++)
		put(r->y, r->x + l * cw, cw - 1,
		    "%s %s  %zu nodes%s%s  sort %s  (GPU %s free %s part %s full %s stalled)",
		    l ? "what-if:" : "nodes", l ? dash_change(u->d, 1) : "", u->norder,
		    u->filter[0] ? " /" : "", u->filter, dash_sort_name(u->sort),
		    cell_glyph(u, DASH_CELL_FREE), cell_glyph(u, DASH_CELL_PART),
		    cell_glyph(u, DASH_CELL_FULL), cell_glyph(u, DASH_CELL_STALLED));
	attroff(A_BOLD);
	for (int k = 0; k < rows && u->top + (size_t)k < u->nrows; k++)
		for (int l = 0; l < nl; l++)
			draw_row(u, l, u->top + (size_t)k, r->y + 1 + k, r->x + l * cw, cw - 1);
	if (!u->nrows)
		put(r->y + 1, r->x, r->w, "  no node matches '%s'", u->filter);
}

/* One metric line: label, then each lane's value, then the difference. */
static void mline(int y, const struct ui_rect *r, int nl, const char *label, const double *v,
		  int is_money, int prec)
{
	char b[3][32];
	for (int l = 0; l < nl; l++) {
		if (is_money)
			money(v[l], b[l], sizeof b[l]);
		else
			snprintf(b[l], sizeof b[l], "%.*f", prec, v[l]);
	}
	if (nl == 1) {
		put(y, r->x, r->w, "%-14s %12s", label, b[0]);
		return;
	}
	if (is_money)
		money(v[1] - v[0], b[2], sizeof b[2]);
	else
		snprintf(b[2], sizeof b[2], "%.*f", prec, v[1] - v[0]);
	put(y, r->x, r->w, "%-11s%9s %9s %s%s", label, b[0], b[1], v[1] - v[0] > 0 ? "+" : "",
	    b[2]);
}

static void draw_metrics(struct ui *u, const struct ui_rect *r)
{
	struct dash_ticker t[DASH_LANES];
	int nl = dash_nlanes(u->d), y = r->y;
	double v[DASH_LANES] = {0};
	for (int l = 0; l < nl; l++)
		dash_ticker(u->d, l, &t[l]);
#define ROW(label, expr, m, prec)                                                                  \
	do {                                                                                       \
		if (y >= r->y + r->h)                                                              \
			break;                                                                     \
		for (int l = 0; l < nl; l++)                                                       \
			v[l] = (expr);                                                             \
		mline(y++, r, nl, label, v, m, prec);                                              \
	} while (0)
	attron(A_BOLD);
	if (nl == 1)
		put(y++, r->x, r->w, "metrics");
	else
		put(y++, r->x, r->w, "%-11s%9s %9s %s", "metrics", "main", "what-if", "diff");
	attroff(A_BOLD);
	ROW("frag (FGD)", t[l].frag, 0, 3);
	ROW("frag peak", t[l].frag_peak, 0, 3);
	/* the sparkline of lane 0's fragmentation over the window */
	if (y < r->y + r->h) {
		double sp[DASH_SPARK_N];
		size_t reached = dash_spark(u->d, 0, sp);
		int w = r->w;
		double peak = t[0].frag_peak > 0 ? t[0].frag_peak : 1;
		for (int k = 0; k < w; k++) {
			size_t i = (size_t)k * DASH_SPARK_N / (size_t)w;
			mvaddstr(y, r->x + k, i < reached ? bar_glyph(u, sp[i] / peak) : " ");
		}
		y++;
	}
	ROW("GPUs alloc", t[l].gpu_alloc, 0, 1);
	ROW("GPUs stalled", t[l].gpu_stalled, 0, 1);
	ROW("idle blocked", t[l].gpu_blocked, 0, 1);
	ROW("idle unneeded", t[l].gpu_unneeded, 0, 1);
	ROW("$ productive", t[l].usd_productive, 1, 0);
	ROW("$ wasted", t[l].usd_wasted, 1, 0);
	ROW("$/yr stalled", t[l].usd_year[SIM_B_STALLED], 1, 0);
	ROW("$/yr lost", t[l].usd_year[SIM_B_LOST], 1, 0);
	ROW("$/yr blocked",
	    t[l].usd_year[SIM_B_SHAPE] + t[l].usd_year[SIM_B_DIM] + t[l].usd_year[SIM_B_MODEL] +
		    t[l].usd_year[SIM_B_QUEUE] + t[l].usd_year[SIM_B_FULL],
	    1, 0);
	ROW("$/yr unneeded", t[l].usd_year[SIM_B_UNNEEDED], 1, 0);
	ROW("by placement", t[l].usd_year_placement, 1, 0);
	ROW("by sizing", t[l].usd_year_sizing, 1, 0);
	ROW("queue", (double)t[l].queued, 0, 0);
	ROW("running", (double)t[l].running, 0, 0);
	if (y < r->y + r->h) {
		char a[2][16];
		for (int l = 0; l < nl; l++)
			duration_text(t[l].wait_p95, a[l], sizeof a[l]);
		put(y++, r->x, r->w, nl == 1 ? "%-14s %12s" : "%-11s%9s %9s", "wait p95", a[0],
		    nl > 1 ? a[1] : "");
	}
	ROW("events", (double)t[l].events, 0, 0);
	ROW("events/s", t[l].events_per_s, 0, 0);
#undef ROW
}

static void draw_log(struct ui *u, const struct ui_rect *r)
{
	struct dash_event ev;
	char buf[256];
	attron(A_BOLD);
	put(r->y, r->x, r->w, "events%s", dash_nlanes(u->d) > 1 ? " (what-if)" : "");
	attroff(A_BOLD);
	int l = dash_nlanes(u->d) - 1;
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

static void k_quit(struct ui *u)
{
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
	if (!u->nrows) {
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
	size_t cur = u->nrows ? (u->norder + u->nrows - 1) / u->nrows : 1;
	u->per = cur > 1 ? (int)(cur / 2) : 1;
}

static void k_zoom_out(struct ui *u)
{
	size_t cur = u->per > 0 ? (size_t)u->per : 1;
	u->per = cur * 2 >= u->norder ? 0 : (int)(cur * 2);
}

static void k_detail(struct ui *u)
{
	if (!u->nrows)
		return;
	u->detail = u->order[u->row_start[u->sel]];
	u->mode = M_DETAIL;
}

static void k_help(struct ui *u)
{
	u->mode = M_HELP;
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
	snprintf(u->msg, sizeof u->msg, "storing: running both lanes to the end...");
	mvhline(u->h - 1, 0, ' ', u->w);
	put(u->h - 1, 0, u->w, "%s", u->msg);
	refresh();
	u->o->store(u->o->store_u, u->d, 1, u->msg, sizeof u->msg);
}

static void k_drop(struct ui *u)
{
	if (dash_nlanes(u->d) < 2)
		snprintf(u->msg, sizeof u->msg, "no what-if to drop");
	dash_drop(u->d);
}

static void k_up(struct ui *u)
{
	if (u->sel > 0)
		u->sel--;
}

static void k_down(struct ui *u)
{
	if (u->sel + 1 < u->nrows)
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
	u->sel = u->sel + k < u->nrows ? u->sel + k : (u->nrows ? u->nrows - 1 : 0);
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
	{'f', "f", "fault", "what-if: a fault on the selected node (DIM=FRACTION DURATION)",
	 k_fault},
	{'i', "i", "io", "what-if: another io-pressure (replayed from the start)", k_io},
	{'w', "w", NULL, "store the what-if as a run", k_store},
	{'x', "x", NULL, "drop the what-if", k_drop},
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
	{':', ":", "cmd", "command: policy P, fault NODE DIM=F DUR, goto T, io X, drop, store",
	 k_cmd},
	{'?', "?", "help", "this help", k_help},
	{'q', "q", "quit", "quit", k_quit},
};
#define NKEYS (sizeof keys / sizeof keys[0])

static void draw_keys(struct ui *u, const struct ui_rect *r)
{
	mvhline(r->y, r->x, ' ', r->w);
	if (u->msg[0]) {
		attron(A_BOLD);
		put(r->y, r->x, r->w, " %s", u->msg);
		attroff(A_BOLD);
		return;
	}
	int x = r->x;
	for (size_t i = 0; i < NKEYS && x < r->x + r->w; i++) {
		if (!keys[i].bar)
			continue;
		attron(A_REVERSE);
		put(r->y, x, r->x + r->w - x, "%s", keys[i].name);
		attroff(A_REVERSE);
		x += (int)strlen(keys[i].name);
		put(r->y, x, r->x + r->w - x, " %s ", keys[i].bar);
		x += (int)strlen(keys[i].bar) + 2;
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

static void draw_help(struct ui *u)
{
	struct ui_rect r = {1, 2, u->h - 3, u->w - 4};
	box_at(&r);
	attron(A_BOLD);
	put(r.y + 1, r.x + 2, r.w - 4, "voidfit dash: keys (any key closes)");
	attroff(A_BOLD);
	int y = r.y + 3;
	for (size_t i = 0; i < NKEYS && y < r.y + r.h - 2; i++) {
		if (!keys[i].help)
			continue;
		put(y++, r.x + 2, r.w - 4, "%-7s %s", keys[i].name, keys[i].help);
	}
	if (y < r.y + r.h - 2)
		put(y + 1, r.x + 2, r.w - 4, "mouse: click selects a row, the wheel scrolls");
}

static void draw_detail(struct ui *u)
{
	const struct sim *s = dash_sim(u->d, dash_nlanes(u->d) - 1);
	const struct cluster *c = sim_cluster(s);
	size_t n = (size_t)u->detail;
	const struct node_state *st = &c->st[n];
	const struct node *sp = &c->spec[n];
	struct ui_rect r = {1, 2, u->h - 3, u->w - 4};
	box_at(&r);
	int y = r.y + 1, x = r.x + 2, w = r.w - 4;
	attron(A_BOLD);
	put(y++, x, w, "node %s  %s  %d GPU  %d jobs  (Esc back)%s", sp->name,
	    sp->ngpu ? gpumodel_get(sp->model)->name : "cpu", sp->ngpu, st->njobs,
	    dash_nlanes(u->d) > 1 ? "  [what-if]" : "");
	attroff(A_BOLD);
	put(y++, x, w, "%-6s %14s %14s %14s", "dim", "capacity", "used", "free");
	for (int d = 0; d < DIM_N; d++)
		put(y++, x, w, "%-6s %14lld %14lld %14lld%s", job_dim_name((enum dim)d),
		    (long long)st->cap[d], (long long)st->used[d],
		    (long long)(st->cap[d] - st->used[d]),
		    st->cap[d] != sp->cap[d] ? "  (faulted)" : "");
	char gl[256];
	int gn = 0;
	for (int g = 0; g < sp->ngpu && g < CLUSTER_MAX_GPUS && gn < (int)sizeof gl - 8; g++)
		gn += snprintf(gl + gn, sizeof gl - (size_t)gn, "%d:%.2f ", g,
			       (1000 - st->gpu_free[g]) / 1000.0);
	gl[gn] = '\0';
	put(y++, x, w, "GPU used share  %s", sp->ngpu ? gl : "-");
	size_t nf;
	const struct fault *f = sim_faults(s, &nf);
	for (size_t i = 0; i < nf && y < r.y + r.h - 3; i++) {
		char fb[160];
		int64_t now = sim_counters(s)->now;
		if (strcmp(f[i].target, sp->name) && strcmp(f[i].target, sp->group) &&
		    !(sp->ngpu && gpumodel_find(f[i].target) == sp->model))
			continue;
		fault_format(&f[i], fb, sizeof fb);
		put(y++, x, w, "fault %s%s", fb,
		    now >= f[i].start && now < f[i].start + f[i].duration ? "  (active)" : "");
	}
	put(y++, x, w, "%-10s %-6s %8s %6s %10s %s", "job", "class", "GPU", "rate", "work left",
	    "GPUs");
	for (int32_t i = 0; i < st->njobs && y < r.y + r.h - 1; i++) {
		struct sim_job_result jr;
		char wl[16];
		sim_job_result(s, (size_t)st->jobs[i], &jr);
		duration_text(jr.work_left, wl, sizeof wl);
		put(y++, x, w, "%-10lld %-6s %8.3f %6.3f %10s %#x", (long long)jr.job_id,
		    job_class_name((enum job_class)jr.cls), (double)jr.gpu_milli / 1000, jr.rate,
		    wl, jr.gpus);
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

/* ---- commands (':' and the prompts) ---- */

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
}

/* "sto=0.5 6h" on node: a fault from now. */
static void fork_fault(struct ui *u, const char *node, const char *spec)
{
	char buf[256];
	struct fault f;
	struct err e = {0};
	char dimfrac[64], dur[32];
	if (sscanf(spec, "%63s %31s", dimfrac, dur) != 2) {
		snprintf(u->msg, sizeof u->msg, "fault '%s': give DIM=FRACTION DURATION", spec);
		return;
	}
	snprintf(buf, sizeof buf, "%s:%s@%lld+%s", node, dimfrac,
		 (long long)sim_counters(dash_sim(u->d, 0))->now, dur);
	if (fault_parse(buf, &f, &e) || dash_fork(u->d, NULL, &f, &e))
		snprintf(u->msg, sizeof u->msg, "%s", e.msg);
}

static void run_cmd(struct ui *u, const char *line)
{
	char w1[64] = "", w2[64] = "", rest[128] = "";
	int n = sscanf(line, "%63s %63s %127[^\n]", w1, w2, rest);
	struct err e = {0};
	int64_t t;
	if (n < 1)
		return;
	if (!strcmp(w1, "policy") && n >= 2)
		fork_policy(u, w2);
	else if (!strcmp(w1, "compare") && n >= 2) {
		const struct policy_ops *ops = policy_find(w2);
		if (!ops)
			snprintf(u->msg, sizeof u->msg, "policy '%s': no such policy", w2);
		else
			ui_compare(u, ops);
	} else if (!strcmp(w1, "fault") && n >= 3)
		fork_fault(u, w2, rest);
	else if (!strcmp(w1, "goto") && n >= 2) {
		if (dash_parse_time(u->d, w2, &t))
			snprintf(u->msg, sizeof u->msg, "goto '%s': not a time (3d12h, 90m, 50%%)",
				 w2);
		else
			ui_goto(u, t);
	} else if (!strcmp(w1, "io") && n >= 2) {
		double x;
		if (parse_double(w2, &x))
			snprintf(u->msg, sizeof u->msg, "io '%s': not a number", w2);
		else
			ui_fork_io(u, x);
	} else if ((!strcmp(w1, "dims") || !strcmp(w1, "lambda") || !strcmp(w1, "mu") ||
		    !strcmp(w1, "queue")) &&
		   n >= 2) {
		struct sim_change ch;
		double x = 0;
		enum sim_queue q = SIM_FIFO;
		int bad = 0;
		sim_change_init(&ch);
		if (!strcmp(w1, "dims"))
			bad = job_dims_parse(w2, &ch.dims) || !ch.dims;
		else if (!strcmp(w1, "queue")) {
			bad = sim_queue_parse(w2, &q);
			ch.queue = (int)q;
			ch.preempt = n >= 3 && !strcmp(rest, "preempt");
		} else {
			bad = parse_double(w2, &x) || x < 0;
			if (!strcmp(w1, "lambda"))
				ch.lambda = x;
			else
				ch.mu = x;
		}
		if (bad)
			snprintf(u->msg, sizeof u->msg, "%s '%s': not a value for it", w1, w2);
		else if (dash_fork_with(u->d, NULL, NULL, &ch, &e))
			snprintf(u->msg, sizeof u->msg, "%s", e.msg);
	} else if (!strcmp(w1, "drop"))
		k_drop(u);
	else if (!strcmp(w1, "store"))
		k_store(u);
	else if (!strcmp(w1, "quit") || !strcmp(w1, "q"))
		u->quit = 1;
	else
		snprintf(u->msg, sizeof u->msg,
			 "'%s': not a command (policy P, compare P, fault NODE DIM=F DUR, goto T, "
			 "io X, dims D, lambda L, mu M, queue Q [preempt], drop, store, quit)",
			 line);
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
		if (u->nrows)
			fork_fault(u,
				   sim_cluster(dash_sim(u->d, 0))
					   ->spec[u->order[u->row_start[u->sel]]]
					   .name,
				   u->line);
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
	int mw = nl > 1 ? 44 : 30;
	int body = u->h - 2 - (LOG_ROWS + 1);
	struct ui_rect hr = {0, 0, 1, u->w};
	struct ui_rect cr = {1, 0, body, u->w - mw - 1};
	struct ui_rect mr = {1, u->w - mw, body, mw};
	struct ui_rect lr = {1 + body, 0, LOG_ROWS + 1, u->w};
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
	else if (u->mode == M_PROMPT) {
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
		if (k >= 0 && k < u->rows_shown && u->top + (size_t)k < u->nrows)
			u->sel = u->top + (size_t)k;
	}
}

static void on_key(struct ui *u, int ch)
{
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
	case M_HELP:
		u->mode = M_MAIN;
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
		break;
	}
	u->msg[0] = '\0';
	for (size_t i = 0; i < NKEYS; i++)
		if (keys[i].key == ch) {
			keys[i].fn(u);
			return;
		}
}

/* Replay for the wall time dt at the speed, until the wall time deadline (the frame's
 * share left for replaying). */
static void play(struct ui *u, double dt, double deadline)
{
	double want = dt * u->speed;
	while (want > 0 && !dash_over(u->d)) {
		int64_t before = dash_time(u->d);
		dash_advance(u->d, want, 1024);
		want -= (double)(dash_time(u->d) - before);
		if (dash_time(u->d) == before || util_mono() > deadline)
			break;
	}
}

int ui_run(struct dash *d, struct ui_opts *o, struct err *e)
{
	struct ui u = {0};
	struct sigaction sa = {0}, old_int, old_term, old_hup, sab = {0}, old_abrt;
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

	/* each frame: replay until the frame's drawing is due, draw, then read keys until the
	 * next frame begins (at once when the replay could not keep up) */
	double last = util_mono(), draw_s = 0;
	while (!u.quit && !ui_sig) {
		double now = util_mono(), frame_end = now + FRAME_S;
		if (u.playing && u.mode != M_PROMPT)
			play(&u, now - last, frame_end - draw_s - 0.002);
		last = now;
		double t_draw = util_mono();
		layout_draw(&u);
		double end = util_mono();
		draw_s = end - t_draw;
		if (o->log_frames) {
			xgrow(&o->frames, &o->framecap, o->nframes + 1, sizeof *o->frames);
			o->frames[o->nframes++] = (struct ui_frame){
				draw_s * 1000, end, sim_counters(dash_sim(d, 0))->events};
		}
		int wait_ms = (int)((frame_end - end) * 1000);
		timeout(wait_ms > 0 ? wait_ms : 0);
		int ch = getch();
		while (ch != ERR && !u.quit) {
			if (ch == '\r')
				ch = '\n';
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
	free(u.order);
	free(u.row_start);
	return rc;
}
