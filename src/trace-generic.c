/*
 * trace-generic.c — any delimited text file of jobs or nodes, described by a mapping file
 * (schemas/NAME.map, compiled in, or a path given as --format generic:PATH). voidfit(5),
 * "The mapping language", is the user's manual; in short, one directive a line, '#' starts a
 * comment, "double quotes" name a column (as in SQL), 'single quotes' hold text:
 *   name NAME                   the mapping's name (default: the file's base name)
 *   kind jobs | nodes           what the rows are (default jobs)
 *   header COL,COL,...          the header this mapping recognises (for detection)
 *   delimiter C                 one character, or tab, comma, semicolon, pipe, space
 *   columns COL COL ...         the file has no header: these are its columns, in order
 *   TARGET COLUMN [SCALE]       take TARGET from COLUMN, times SCALE (a number or a unit:
 *                               s ms us min h d for times, KiB MiB GiB ... for memory)
 *   TARGET = EXPRESSION         columns, numbers, + - * / and parentheses ('gpus =
 *                               gpu_per_worker * workers'); a number alone is a constant
 *   TARGET = 'TEXT'             a constant text (a model name) for a column the file lacks
 *   class COLUMN VALUE=CLASS... [*=CLASS]   class by value (infer|train|batch|cpu)
 * Job targets:  arrival start end duration cpu mem num_gpu gpu_milli hbm net sto iocpu
 *               gpu_spec workers (units as voidfit's: s, millicores, MiB, GPU-milli, MiB
 *               per GPU, MB/s). duration, else end - start (start defaults to arrival);
 *               none or empty = never ran. workers: W, the job's workers (none or empty:
 *               1); the demand targets are then each worker's (a trace that records the
 *               job's total divides it: 'num_gpu = gpu_num / node_num'). Without a class
 *               line: GPUs -> train, none -> cpu.
 * Node targets: node (its name) group model cpu mem gpu (count) hbm (per GPU) net sto
 *               iocpu.
 * A value may carry a unit ("12GB", "500m", "2Gi", "1.5h"): it is converted to the target's
 * unit and the SCALE is not applied to it. A time target also takes an ISO 8601 time (a
 * naive one at --tz). An unmapped target is "not recorded" (-1); an expression with an
 * empty column is too. Every source column is kept raw anyway.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "embed.h"
#include "gpumodel.h"
#include "trace.h"

enum {
	G_ARRIVAL,
	G_START,
	G_END,
	G_DURATION,
	G_CPU,
	G_MEM,
	G_NGPU,
	G_MILLI,
	G_HBM,
	G_NET,
	G_STO,
	G_IOCPU,
	G_SPEC,
	G_NAME,
	G_GROUP,
	G_MODEL,
	G_GPU,
	G_WORKERS,
	G_CLASS,
	G_RACK,
	G_NTARGET
};

/* What a target's values are, for the units a value may carry. */
enum unit { U_TIME, U_DUR, U_CPU, U_MEM, U_SHARE, U_COUNT, U_RATE, U_TEXT };

static const struct {
	const char *name;
	enum unit unit;
	int jobs, nodes; /* a target of job mappings, of node mappings */
} targets[G_NTARGET] = {
	{"arrival", U_TIME, 1, 0},  {"start", U_TIME, 1, 0},      {"end", U_TIME, 1, 0},
	{"duration", U_DUR, 1, 0},  {"cpu", U_CPU, 1, 1},         {"mem", U_MEM, 1, 1},
	{"num_gpu", U_COUNT, 1, 0}, {"gpu_milli", U_SHARE, 1, 0}, {"hbm", U_MEM, 1, 1},
	{"net", U_RATE, 1, 1},      {"sto", U_RATE, 1, 1},        {"iocpu", U_CPU, 1, 1},
	{"gpu_spec", U_TEXT, 1, 0}, {"node", U_TEXT, 0, 1},       {"group", U_TEXT, 0, 1},
	{"model", U_TEXT, 0, 1},    {"gpu", U_COUNT, 0, 1},       {"workers", U_COUNT, 1, 0},
	{"class", U_TEXT, 1, 0},    {"rack", U_TEXT, 0, 1},
};

#define JOB_TARGETS                                                                                \
	"arrival start end duration cpu mem num_gpu gpu_milli hbm net sto iocpu gpu_spec workers " \
	"class"
#define NODE_TARGETS "node group model cpu mem gpu hbm net sto iocpu rack"

/* A unit a value or a SCALE may name, and what one of it is in the target's unit. */
struct unit_word {
	const char *word;
	double factor;
};

static const struct unit_word time_units[] = {{"s", 1},     {"sec", 1},          {"ms", 1e-3},
					      {"us", 1e-6}, {"\xc2\xb5s", 1e-6}, {"min", 60},
					      {"h", 3600},  {"d", 86400},        {NULL, 0}};
/* Memory in MiB. K, M, G, T with or without B are powers of 1024, as Slurm and memory
 * vendors write them; Ki, Mi ... the same by name. */
static const struct unit_word mem_units[] = {
	{"B", 1.0 / 1048576}, {"K", 1.0 / 1024}, {"KB", 1.0 / 1024}, {"Ki", 1.0 / 1024},
	{"KiB", 1.0 / 1024},  {"M", 1},          {"MB", 1},          {"Mi", 1},
	{"MiB", 1},           {"G", 1024},       {"GB", 1024},       {"Gi", 1024},
	{"GiB", 1024},        {"T", 1048576},    {"TB", 1048576},    {"Ti", 1048576},
	{"TiB", 1048576},     {NULL, 0}};
/* Bandwidth in MB/s: decimal, as network and storage rates are written. */
static const struct unit_word rate_units[] = {
	{"B/s", 1e-6}, {"KB/s", 1e-3},  {"MB/s", 1},   {"GB/s", 1e3},   {"KB", 1e-3},
	{"MB", 1},     {"GB", 1e3},     {"K", 1e-3},   {"M", 1},        {"G", 1e3},
	{"Gbps", 125}, {"Mbps", 0.125}, {"Gb/s", 125}, {"Mb/s", 0.125}, {NULL, 0}};
static const struct unit_word cpu_units[] = {{"m", 1}, {"cores", 1000}, {NULL, 0}};
static const struct unit_word share_units[] = {{"m", 1}, {"%", 10}, {NULL, 0}};
static const struct unit_word no_units[] = {{NULL, 0}};

static const struct unit_word *units_of(enum unit u)
{
	switch (u) {
	case U_TIME:
	case U_DUR:
		return time_units;
	case U_CPU:
		return cpu_units;
	case U_MEM:
		return mem_units;
	case U_SHARE:
		return share_units;
	case U_RATE:
		return rate_units;
	default:
		return no_units;
	}
}

/* The factor of unit word w (len bytes) for unit u: memory and rate words in any case,
 * others ("m" milli against "M" mega) as written. 0 if none. */
static double unit_factor(enum unit u, const char *w, size_t len)
{
	for (const struct unit_word *x = units_of(u); x->word; x++) {
		if (strlen(x->word) != len)
			continue;
		if (u == U_MEM || u == U_RATE ? !strncasecmp(x->word, w, len)
					      : !strncmp(x->word, w, len))
			return x->factor;
	}
	return 0;
}

/* The unit words of u, for messages: "s ms us min h d". */
static void unit_list(enum unit u, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	for (const struct unit_word *x = units_of(u); x->word && o < len; x++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? " " : "", x->word);
}

/* One step of an expression in postfix order. */
struct op {
	char kind;  /* 'n' number, 'c' column, '+', '-', '*', '/', '~' (negate) */
	double num; /* 'n' */
	int col;    /* 'c': index in map->cols */
};

struct target {
	int line;      /* mapping line that set it, 0 = unmapped */
	int col;       /* TARGET COLUMN [SCALE]: the column (index in cols), else -1 */
	double scale;  /* its SCALE */
	struct op *op; /* TARGET = EXPRESSION, else NULL */
	int nop;
	char *text; /* TARGET = 'TEXT', else NULL */
};

#define MAP_MAX_CLASSES 16

struct trace_map {
	char *name;
	char *src;           /* where it came from, for messages ("jobs.map") */
	int nodes;           /* kind nodes */
	char *header;        /* "a,b,c" or NULL */
	unsigned char delim; /* the field delimiter */
	char **cols;         /* every column a line names */
	int *colline;        /* the mapping line that named it first */
	int ncols;
	char **given; /* header-less: the file's columns by position ('columns') */
	int ngiven;
	struct target t[G_NTARGET];
	char *cls_value[MAP_MAX_CLASSES]; /* "*" = any other value */
	int cls[MAP_MAX_CLASSES];
	int ncls;
};

void trace_map_free(struct trace_map *m)
{
	if (!m)
		return;
	for (int k = 0; k < m->ncols; k++)
		free(m->cols[k]);
	for (int k = 0; k < m->ngiven; k++)
		free(m->given[k]);
	for (int k = 0; k < G_NTARGET; k++)
		FREE_ALL(m->t[k].op, m->t[k].text);
	for (int i = 0; i < m->ncls; i++)
		free(m->cls_value[i]);
	FREE_ALL(m->name, m->src, m->header, m->cols, m->colline, m->given, m);
}

const char *trace_map_name(const struct trace_map *m)
{
	return m->name;
}

int trace_map_is_nodes(const struct trace_map *m)
{
	return m->nodes;
}

unsigned char trace_map_delim(const struct trace_map *m)
{
	return m->delim;
}

int trace_map_has_header(const struct trace_map *m)
{
	return m->ngiven == 0;
}

static int class_find(const char *s)
{
	for (int i = 0; i < JOB_NCLASS; i++)
		if (!strcmp(s, job_class_name((enum job_class)i)))
			return i;
	return -1;
}

/* ---- the mapping's words ---- */

enum tok { T_END, T_WORD, T_COL, T_TEXT, T_NUM, T_OP, T_BAD };

struct lexer {
	const char *p;
	enum tok kind;
	char *s;         /* the token's text (a word, a column name, a text, a number) */
	char op;         /* T_OP: one of = + - * / ( ) , */
	const char *why; /* T_BAD: why */
};

static int word_char(unsigned char c)
{
	return isalnum(c) || c == '_' || c == '.' || c == ':' || c == '%' || c >= 0x80;
}

/* The next token of the line into lx. */
static void lex(struct lexer *lx)
{
	free(lx->s);
	lx->s = NULL;
	while (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\r')
		lx->p++;
	const char *p = lx->p;
	if (!*p || *p == '#') {
		lx->kind = T_END;
		return;
	}
	if (*p == '"' || *p == '\'') {
		char q = *p++;
		size_t cap = strlen(p) + 1, n = 0;
		char *out = xmalloc(cap);
		for (;; p++) {
			if (!*p) {
				free(out);
				lx->kind = T_BAD;
				lx->why = q == '"' ? "a column name's double quote is not closed"
						   : "a text's single quote is not closed";
				return;
			}
			if (*p == q && p[1] == q) /* a doubled quote is one */
				out[n++] = *p++;
			else if (*p == q)
				break;
			else
				out[n++] = *p;
		}
		out[n] = '\0';
		lx->p = p + 1;
		lx->s = out;
		lx->kind = q == '"' ? T_COL : T_TEXT;
		return;
	}
	if (strchr("=+-*/(),", *p)) {
		lx->kind = T_OP;
		lx->op = *p;
		lx->p = p + 1;
		return;
	}
	if (!word_char((unsigned char)*p)) {
		lx->kind = T_BAD;
		lx->why = "a character that is neither a name, a number, a quote nor an operator "
			  "(quote a column name that holds it)";
		return;
	}
	const char *q = p;
	while (word_char((unsigned char)*q))
		q++;
	lx->s = xstrndup(p, (size_t)(q - p));
	lx->p = q;
	lx->kind = isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))
			   ? T_NUM
			   : T_WORD;
}

/* The index of column name in m->cols, added (named first on line) if new. */
static int col_ref(struct trace_map *m, const char *name, int line)
{
	for (int k = 0; k < m->ncols; k++)
		if (!strcmp(m->cols[k], name))
			return k;
	m->cols = xrealloc(m->cols, (size_t)(m->ncols + 1) * sizeof *m->cols);
	m->colline = xrealloc(m->colline, (size_t)(m->ncols + 1) * sizeof *m->colline);
	m->cols[m->ncols] = xstrdup(name);
	m->colline[m->ncols] = line;
	return m->ncols++;
}

/* A number with an optional unit word for target unit u: its value in u's unit (the unit
 * applied). 0, or -1 with why set. */
static int number_with_unit(const char *s, enum unit u, double *v, char *why, size_t len)
{
	char *end;
	double x = strtod(s, &end);
	if (end == s || !isfinite(x)) {
		snprintf(why, len, "'%.40s' is not a number", s);
		return -1;
	}
	if (*end) {
		const char *w = end + (*end == ' ');
		double f = unit_factor(u, w, strlen(w));
		if (f == 0) {
			char list[80];
			unit_list(u, list, sizeof list);
			snprintf(why, len, "'%.40s': '%.16s' is not a unit of this target%s%s%s", s,
				 w, *list ? " (valid: " : " (it takes plain numbers)", list,
				 *list ? ")" : "");
			return -1;
		}
		x *= f;
	}
	*v = x;
	return 0;
}

struct parser {
	struct lexer lx;
	struct trace_map *m;
	int line;
	enum unit unit;
	struct op *op;
	int nop, cap;
	char why[200];
};

static void emit(struct parser *ps, char kind, double num, int col)
{
	if (ps->nop == ps->cap) {
		ps->cap = ps->cap ? 2 * ps->cap : 8;
		ps->op = xrealloc(ps->op, (size_t)ps->cap * sizeof *ps->op);
	}
	ps->op[ps->nop++] = (struct op){kind, num, col};
}

static int p_expr(struct parser *ps, int depth);

static int p_primary(struct parser *ps, int depth)
{
	struct lexer *lx = &ps->lx;
	if (depth > 32) {
		snprintf(ps->why, sizeof ps->why, "parentheses nested deeper than 32");
		return -1;
	}
	if (lx->kind == T_OP && lx->op == '-') {
		lex(lx);
		if (p_primary(ps, depth + 1))
			return -1;
		emit(ps, '~', 0, 0);
		return 0;
	}
	if (lx->kind == T_OP && lx->op == '(') {
		lex(lx);
		if (p_expr(ps, depth + 1))
			return -1;
		if (lx->kind != T_OP || lx->op != ')') {
			snprintf(ps->why, sizeof ps->why,
				 "a '(' is not closed (valid: an operator "
				 "+ - * / or ')')");
			return -1;
		}
		lex(lx);
		return 0;
	}
	if (lx->kind == T_NUM) {
		double v;
		if (number_with_unit(lx->s, ps->unit, &v, ps->why, sizeof ps->why))
			return -1;
		emit(ps, 'n', v, 0);
		lex(lx);
		return 0;
	}
	if (lx->kind == T_WORD || lx->kind == T_COL) {
		emit(ps, 'c', 0, col_ref(ps->m, lx->s, ps->line));
		lex(lx);
		return 0;
	}
	if (lx->kind == T_TEXT)
		snprintf(ps->why, sizeof ps->why,
			 "'%.40s' is a text in single quotes: a column name takes double quotes",
			 lx->s);
	else if (lx->kind == T_BAD)
		snprintf(ps->why, sizeof ps->why, "%s", lx->why);
	else
		snprintf(ps->why, sizeof ps->why,
			 "%s where a value belongs (valid: a column name, \"a quoted one\", a "
			 "number, '-' or '(')",
			 lx->kind == T_END ? "the line ends" : "an operator");
	return -1;
}

/* The binary operators by precedence, loosest first. Each level is left-associative; its
 * operands are the next level's expressions, the last level's are primaries. */
static const char *const p_levels[] = {"+-", "*/"};

static int p_level(struct parser *ps, int depth, size_t level)
{
	if (level == sizeof p_levels / sizeof *p_levels)
		return p_primary(ps, depth);
	if (p_level(ps, depth, level + 1))
		return -1;
	while (ps->lx.kind == T_OP && strchr(p_levels[level], ps->lx.op)) {
		char o = ps->lx.op;
		lex(&ps->lx);
		if (p_level(ps, depth, level + 1))
			return -1;
		emit(ps, o, 0, 0);
	}
	return 0;
}

static int p_expr(struct parser *ps, int depth)
{
	return p_level(ps, depth, 0);
}

/* The delimiter a 'delimiter' line names, or -1. */
static int delim_word(const char *s)
{
	static const struct {
		const char *w;
		char c;
	} named[] = {{"tab", '\t'},      {"\\t", '\t'}, {"comma", ','},
		     {"semicolon", ';'}, {"pipe", '|'}, {"space", ' '}};
	for (size_t i = 0; i < sizeof named / sizeof *named; i++)
		if (!strcmp(s, named[i].w))
			return (unsigned char)named[i].c;
	size_t n = strlen(s);
	if (n == 3 && (s[0] == '\'' || s[0] == '"') && s[2] == s[0])
		return (unsigned char)s[1];
	if (n == 1 && s[0] != '"' && s[0] != '\'' && s[0] != '#' && s[0] != '\n' && s[0] != '\r')
		return (unsigned char)s[0];
	return -1;
}

/* The rest of a line after its first word, without blanks around it or its comment. */
static char *rest_of(char *line, size_t word)
{
	char *s = line + word;
	while (*s == ' ' || *s == '\t')
		s++;
	char *hash = strchr(s, '#');
	if (hash)
		*hash = '\0';
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = '\0';
	return s;
}

#define ERR(...) (rc = err_set(e, VF_EINPUT, __VA_ARGS__))

/* One line of a target: 'TARGET COLUMN [SCALE]', 'TARGET = EXPRESSION' or
 * 'TARGET = 'TEXT''. lx is after TARGET. */
static int target_line(struct trace_map *m, struct lexer *lx, int k, const char *src, int lineno,
		       struct err *e)
{
	int rc = 0;
	struct target *t = &m->t[k];
	enum unit u = targets[k].unit;
	const char *tn = targets[k].name;
	free(t->op);
	free(t->text);
	memset(t, 0, sizeof *t);
	t->col = -1;
	t->scale = 1;
	t->line = lineno;
	if (lx->kind == T_OP && lx->op == '=') {
		lex(lx);
		if (lx->kind == T_TEXT) {
			if (u != U_TEXT)
				return ERR("%s:%d: '%s' takes a number, not the text '%.40s' "
					   "(write %s = 8 for a constant, or name a column in "
					   "double quotes)",
					   src, lineno, tn, lx->s, tn);
			t->text = xstrdup(lx->s);
			lex(lx);
		} else if (u == U_TEXT) {
			if (lx->kind != T_WORD && lx->kind != T_COL)
				return ERR("%s:%d: '%s' takes a column or a 'text' (valid: %s = "
					   "COLUMN, %s = \"A COLUMN\", %s = 'A100')",
					   src, lineno, tn, tn, tn, tn);
			t->col = col_ref(m, lx->s, lineno);
			lex(lx);
		} else {
			struct parser ps = {.lx = *lx, .m = m, .line = lineno, .unit = u};
			lx->s = NULL;
			int bad = p_expr(&ps, 0);
			*lx = ps.lx;
			if (!bad && lx->kind != T_END)
				snprintf(ps.why, sizeof ps.why,
					 "%s after a whole expression (valid: an operator + - * /)",
					 lx->kind == T_BAD ? lx->why : "more words");
			if (bad || lx->kind != T_END) {
				free(ps.op);
				return ERR("%s:%d: '%s = ...': %s", src, lineno, tn, ps.why);
			}
			t->op = ps.op;
			t->nop = ps.nop;
		}
	} else if (lx->kind == T_WORD || lx->kind == T_COL) {
		t->col = col_ref(m, lx->s, lineno);
		lex(lx);
		if (lx->kind == T_NUM || lx->kind == T_WORD) {
			char *end;
			double f = strtod(lx->s, &end);
			if (*end || end == lx->s) {
				/* a unit as a SCALE: plain numbers are in it ("mem ram GB") */
				f = u == U_TEXT ? 0 : unit_factor(u, lx->s, strlen(lx->s));
			}
			if (!(f > 0) || u == U_TEXT) {
				char list[160];
				unit_list(u, list, sizeof list);
				return ERR("%s:%d: '%s': SCALE '%s' is not a positive number%s%s%s",
					   src, lineno, tn, lx->s, *list ? " or a unit (" : "",
					   list, *list ? ")" : "");
			}
			t->scale = f;
			lex(lx);
		}
	} else if (lx->kind == T_BAD) {
		return ERR("%s:%d: '%s': %s", src, lineno, tn, lx->why);
	} else {
		return ERR("%s:%d: '%s' needs a column: '%s COLUMN [SCALE]' or '%s = EXPRESSION'",
			   src, lineno, tn, tn, tn);
	}
	if (lx->kind != T_END)
		return ERR("%s:%d: '%s': more than 'COLUMN [SCALE]' (for arithmetic write '%s = "
			   "EXPRESSION'; quote a column name that holds blanks)",
			   src, lineno, tn, tn);
	return 0;
}

/* Parse mapping text (NUL-terminated, modified in place); src names it in messages, name
 * is the mapping's name unless a 'name' line gives one. */
static int map_parse(char *text, const char *src, const char *name, struct trace_map **out,
		     struct err *e)
{
	struct trace_map *m = xcalloc(1, sizeof *m);
	struct lexer lx = {0};
	int rc = 0, lineno = 0;
	m->delim = ',';
	m->src = xstrdup(src);
	for (int k = 0; k < G_NTARGET; k++)
		m->t[k].col = -1;
	for (char *line = text, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		lx.p = line;
		lex(&lx);
		if (lx.kind == T_END)
			continue;
		if (lx.kind != T_WORD) {
			ERR("%s:%d: a line starts with a directive or a target (valid: name, "
			    "kind, header, delimiter, columns, class, or a target: " JOB_TARGETS
			    "; " NODE_TARGETS ")",
			    src, lineno);
			goto out;
		}
		char *w = lx.s;
		lx.s = NULL;
		size_t wlen = (size_t)(lx.p - line);
		if (!strcmp(w, "name") || !strcmp(w, "header") || !strcmp(w, "delimiter") ||
		    !strcmp(w, "kind")) {
			char *rest = rest_of(line, wlen);
			if (!*rest || (strcmp(w, "header") && strcmp(w, "delimiter") &&
				       strpbrk(rest, " \t"))) {
				ERR("%s:%d: '%s' takes one word", src, lineno, w);
			} else if (!strcmp(w, "name")) {
				free(m->name);
				m->name = xstrdup(rest);
			} else if (!strcmp(w, "header")) {
				free(m->header);
				m->header = xstrdup(rest);
			} else if (!strcmp(w, "kind")) {
				if (strcmp(rest, "jobs") && strcmp(rest, "nodes"))
					ERR("%s:%d: kind '%s' (valid: jobs, nodes)", src, lineno,
					    rest);
				m->nodes = !strcmp(rest, "nodes");
			} else {
				int d = delim_word(rest);
				if (d < 0)
					ERR("%s:%d: delimiter '%s' is not one character (valid: "
					    "tab, "
					    "comma, semicolon, pipe, space, or the character "
					    "itself, "
					    "quoted if it is a quote)",
					    src, lineno, rest);
				m->delim = (unsigned char)d;
			}
			free(w);
			if (rc)
				goto out;
			continue;
		}
		if (!strcmp(w, "columns")) {
			free(w);
			for (int k = 0; k < m->ngiven; k++)
				free(m->given[k]);
			m->ngiven = 0;
			for (lex(&lx); lx.kind != T_END; lex(&lx)) {
				if (lx.kind == T_OP && lx.op == ',')
					continue;
				if (lx.kind != T_WORD && lx.kind != T_COL && lx.kind != T_NUM) {
					ERR("%s:%d: columns: %s (valid: names, \"quoted names\", "
					    "separated by blanks or commas)",
					    src, lineno, lx.kind == T_BAD ? lx.why : "not a name");
					goto out;
				}
				m->given = xrealloc(m->given,
						    (size_t)(m->ngiven + 1) * sizeof *m->given);
				m->given[m->ngiven++] = lx.s;
				lx.s = NULL;
			}
			if (!m->ngiven) {
				ERR("%s:%d: columns names no column", src, lineno);
				goto out;
			}
			continue;
		}
		if (!strcmp(w, "class")) {
			free(w);
			lex(&lx);
			if (lx.kind != T_WORD && lx.kind != T_COL) {
				ERR("%s:%d: class needs a column: class COLUMN VALUE=CLASS ... "
				    "[*=CLASS]",
				    src, lineno);
				goto out;
			}
			m->t[G_CLASS].col = col_ref(m, lx.s, lineno);
			m->t[G_CLASS].line = lineno;
			for (lex(&lx); lx.kind != T_END;) {
				char *val = lx.kind == T_OP && lx.op == '*' ? xstrdup("*")
					    : lx.kind == T_WORD || lx.kind == T_COL ||
							    lx.kind == T_NUM || lx.kind == T_TEXT
						    ? lx.s
						    : NULL;
				if (val == lx.s)
					lx.s = NULL;
				const char *shown = val ? val : "?";
				int c = -1;
				lex(&lx);
				if (val && lx.kind == T_OP && lx.op == '=') {
					lex(&lx);
					c = lx.kind == T_WORD ? class_find(lx.s) : -1;
				}
				if (c < 0 || m->ncls == MAP_MAX_CLASSES) {
					ERR("%s:%d: '%s=%s' is not VALUE=CLASS (valid classes: "
					    "infer, "
					    "train, batch, cpu; at most %d values; quote a value "
					    "that "
					    "holds blanks or '=')",
					    src, lineno, shown, lx.kind == T_WORD ? lx.s : "",
					    MAP_MAX_CLASSES);
					free(val);
					goto out;
				}
				m->cls_value[m->ncls] = val;
				m->cls[m->ncls++] = c;
				lex(&lx);
			}
			continue;
		}
		int k = 0;
		while (k < G_NTARGET && strcmp(targets[k].name, w))
			k++;
		if (k == G_NTARGET || k == G_CLASS) {
			ERR("%s:%d: '%s' is not a mapping line (valid: name, kind, header, "
			    "delimiter, columns, class, or a target: " JOB_TARGETS "; " NODE_TARGETS
			    ")",
			    src, lineno, w);
			free(w);
			goto out;
		}
		free(w);
		lex(&lx);
		if ((rc = target_line(m, &lx, k, src, lineno, e)))
			goto out;
	}
	for (int k = 0; k < G_NTARGET; k++) /* targets of the other kind */
		if (m->t[k].line && !(m->nodes ? targets[k].nodes : targets[k].jobs)) {
			ERR("%s:%d: '%s' is not a target of a %s mapping (valid: %s)%s", src,
			    m->t[k].line, targets[k].name, m->nodes ? "node" : "job",
			    m->nodes ? NODE_TARGETS : JOB_TARGETS,
			    m->nodes ? "" : "; 'kind nodes' makes a node mapping");
			goto out;
		}
	if (m->nodes && !m->t[G_NAME].line) {
		ERR("%s: a node mapping needs 'node COLUMN' (the node's name)", src);
		goto out;
	}
	if (!m->name)
		m->name = xstrdup(name);
out:
	free(lx.s);
	if (rc) {
		trace_map_free(m);
		m = NULL;
	}
	*out = m;
	return rc;
}

static int load_embedded(const char *name, struct trace_map **out, struct err *e)
{
	for (const struct embed_file *f = embed_files; f->name; f++) {
		size_t n = strlen(f->name);
		if (n < 5 || strcmp(f->name + n - 4, ".map") || strncmp(f->name, name, n - 4) ||
		    name[n - 4])
			continue;
		char *text = xstrndup(f->data, f->len);
		char base[128];
		snprintf(base, sizeof base, "%.*s", (int)(n - 4), f->name);
		int rc = map_parse(text, f->name, base, out, e);
		free(text);
		return rc;
	}
	return -1;
}

int trace_map_load(const char *spec, struct trace_map **out, struct err *e)
{
	*out = NULL;
	if (!strchr(spec, '/')) {
		int rc = load_embedded(spec, out, e);
		if (rc >= 0)
			return rc;
	}
	FILE *f = fopen(spec, "rb");
	if (!f)
		return err_set(e, VF_EINPUT,
			       "mapping '%s': neither a built-in mapping nor a readable file",
			       spec);
	char *text = NULL;
	size_t len = 0, cap = 0, n;
	char buf[4096];
	while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
		xgrow(&text, &cap, len + n + 1, 1);
		memcpy(text + len, buf, n);
		len += n;
		if (len > 65536)
			break;
	}
	fclose(f);
	if (len > 65536) {
		free(text);
		return err_set(e, VF_EINPUT, "%s: a mapping file over 64 KiB", spec);
	}
	xgrow(&text, &cap, len + 1, 1);
	text[len] = '\0';
	if (memchr(text, '\0', len)) {
		free(text);
		return err_set(e, VF_EINPUT, "%s: a mapping file holds a NUL byte", spec);
	}
	const char *base = strrchr(spec, '/');
	char name[128];
	snprintf(name, sizeof name, "%s", base ? base + 1 : spec);
	char *dot = strrchr(name, '.');
	if (dot && !strcmp(dot, ".map"))
		*dot = '\0';
	int rc = map_parse(text, spec, name, out, e);
	free(text);
	return rc;
}

/* Does the record equal the mapping's header line, field by field? */
static int header_equal(const struct trace_map *m, const struct csvin_rec *r)
{
	if (!m->header || r->bad)
		return 0;
	const char *h = m->header;
	for (size_t i = 0; i < r->n; i++) {
		const char *f = r->field[i] ? r->field[i] : "";
		size_t n = strlen(f);
		if (strncmp(h, f, n) || (h[n] != ',' && h[n] != '\0'))
			return 0;
		h += n;
		if (*h == ',' && i + 1 < r->n)
			h++;
	}
	return *h == '\0';
}

struct trace_map *trace_map_detect(const struct csvin_rec *first)
{
	for (const struct embed_file *f = embed_files; f->name; f++) {
		size_t n = strlen(f->name);
		if (n < 5 || strcmp(f->name + n - 4, ".map"))
			continue;
		char name[128];
		snprintf(name, sizeof name, "%.*s", (int)(n - 4), f->name);
		struct trace_map *m;
		struct err e;
		if (load_embedded(name, &m, &e))
			continue;
		if (header_equal(m, first))
			return m;
		trace_map_free(m);
	}
	return NULL;
}

/* "'a', 'b', 'c'" of a header (at most len bytes), for a message. */
static void header_list(const struct csvin_rec *h, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < h->n && o + 8 < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s'%.40s'", i ? ", " : "",
				      h->field[i] ? h->field[i] : "");
	if (o >= len)
		snprintf(buf + len - 5, 5, "...");
}

static int generic_start(struct trace_reader *rd, const struct csvin_rec *header, struct err *e)
{
	struct trace_map *m = rd->map;
	if (!m)
		return err_set(e, VF_EINPUT,
			       "the generic format needs a mapping "
			       "(--format generic:NAME)");
	if (!header && !m->ngiven)
		return err_set(e, VF_EINPUT, "mapping '%s': the file has no header", m->name);
	free(rd->col);
	rd->col = xcalloc((size_t)(m->ncols ? m->ncols : 1), sizeof *rd->col);
	rd->ncol = (size_t)m->ncols;
	rd->colname = (const char *const *)m->cols;
	rd->nfields = header ? header->n : (size_t)m->ngiven;
	for (int k = 0; k < m->ncols; k++) {
		rd->col[k] = -1;
		if (header) {
			for (size_t i = 0; i < header->n; i++)
				if (header->field[i] && !strcmp(header->field[i], m->cols[k]))
					rd->col[k] = (int)i;
		} else {
			for (int i = 0; i < m->ngiven; i++)
				if (!strcmp(m->given[i], m->cols[k]))
					rd->col[k] = i;
		}
		if (rd->col[k] >= 0)
			continue;
		if (!header)
			return err_set(
				e, VF_EINPUT,
				"%s:%d: column '%s' is not among the 'columns' of mapping '%s'",
				m->src, m->colline[k], m->cols[k], m->name);
		char list[400];
		header_list(header, list, sizeof list);
		int tabs = header->n == 1 && header->field[0] && strchr(header->field[0], '\t') &&
			   m->delim != '\t';
		return err_set(e, VF_EINPUT,
			       "header lacks column '%s' of mapping '%s' (%s:%d); the header has "
			       "%s%s",
			       m->cols[k], m->name, m->src, m->colline[k], list,
			       tabs ? "; it is one field holding tabs: a tab-separated file "
				      "needs 'delimiter tab' in the mapping"
				    : "; a file without a header needs 'columns' in the mapping");
	}
	return 0;
}

/* Field k's value for a target of unit u into *v: 0, 1 when absent or empty, TRACE_BAD.
 * *unit is set when the value carried a unit (or was a time), which a SCALE then skips. */
static int value(struct trace_reader *rd, const struct csvin_rec *r, int k, enum unit u, double *v,
		 int *unit)
{
	const char *s = trace_field(rd, r, k);
	*unit = 0;
	if (!s)
		return 1;
	if ((u == U_TIME || u == U_DUR) && strlen(s) >= 10 && isdigit((unsigned char)s[0]) &&
	    s[4] == '-') {
		int64_t t;
		if (trace_time_parse(s, rd->tz_offset, &t))
			return trace_bad(
				rd,
				"column '%s': '%.40s' is not a time (valid: ISO 8601 "
				"such as 2020-04-01 09:30:00 or 2020-04-01T09:30:00+08:00, "
				"or a number)",
				rd->colname[k], s);
		*v = (double)t;
		*unit = 1;
		return 0;
	}
	if (u == U_DUR && strchr(s, ':')) { /* [D-]HH:MM:SS, as Slurm writes an elapsed time */
		int d = 0, h, mi, sec, n = 0;
		const char *p = strchr(s, '-') ? s : NULL;
		if ((p && sscanf(s, "%d-%d:%d:%d%n", &d, &h, &mi, &sec, &n) == 4 && !s[n]) ||
		    (!p && sscanf(s, "%d:%d:%d%n", &h, &mi, &sec, &n) == 3 && !s[n])) {
			if (d >= 0 && h >= 0 && mi >= 0 && mi < 60 && sec >= 0 && sec < 61) {
				*v = d * 86400.0 + h * 3600.0 + mi * 60.0 + sec;
				*unit = 1;
				return 0;
			}
		}
		return trace_bad(rd,
				 "column '%s': '%.40s' is not a duration (valid: seconds, "
				 "[D-]HH:MM:SS, or a number with a unit)",
				 rd->colname[k], s);
	}
	char why[200];
	char *end;
	double x = strtod(s, &end);
	if (end != s && !*end && isfinite(x)) {
		*v = x;
		return 0;
	}
	if (number_with_unit(s, u, v, why, sizeof why))
		return trace_bad(rd, "column '%s': %s", rd->colname[k], why);
	*unit = 1;
	return 0;
}

/* Target k of the row into *out (rounded): 0, or -1 in *out when not recorded, or
 * TRACE_BAD. */
static int amount(struct trace_reader *rd, const struct csvin_rec *r, int k, int64_t *out)
{
	const struct target *t = &rd->map->t[k];
	enum unit u = targets[k].unit;
	*out = -1;
	if (!t->line)
		return 0;
	if (!t->op) { /* TARGET COLUMN [SCALE] */
		const char *s = trace_field(rd, r, t->col);
		if (!s)
			return 0;
		size_t n = strlen(s);
		if (isdigit((unsigned char)s[n - 1]) &&
		    !((u == U_TIME || u == U_DUR) && n >= 10 && s[4] == '-') &&
		    !(u == U_DUR && strchr(s, ':')))
			return trace_amount(rd, r, t->col, t->scale, out); /* the fast path */
		double v;
		int unit, rc = value(rd, r, t->col, u, &v, &unit);
		if (rc)
			return rc < 0 ? rc : 0;
		v *= unit ? 1 : t->scale;
		if (v < 0)
			return trace_bad(rd, "column '%s': negative value %s", rd->colname[t->col],
					 s);
		if (v > 9e15)
			return trace_bad(rd, "column '%s': %s is out of range", rd->colname[t->col],
					 s);
		*out = trace_round(v);
		return 0;
	}
	double st[64];
	int n = 0;
	for (int i = 0; i < t->nop; i++) {
		const struct op *o = &t->op[i];
		if (n >= 64)
			return trace_bad(rd, "%s: an expression too long to evaluate",
					 targets[k].name);
		int unit, rc;
		switch (o->kind) {
		case 'n':
			st[n++] = o->num;
			break;
		case 'c':
			rc = value(rd, r, o->col, u, &st[n], &unit);
			if (rc == 1)
				return 0; /* an empty column: not recorded */
			if (rc)
				return rc;
			n++;
			break;
		case '~':
			st[n - 1] = -st[n - 1];
			break;
		default:
			n--;
			if (o->kind == '+')
				st[n - 1] += st[n];
			else if (o->kind == '-')
				st[n - 1] -= st[n];
			else if (o->kind == '*')
				st[n - 1] *= st[n];
			else if (st[n] == 0)
				return trace_bad(rd, "%s (%s:%d): division by zero",
						 targets[k].name, rd->map->src, t->line);
			else
				st[n - 1] /= st[n];
		}
	}
	double v = st[0];
	if (!isfinite(v) || v < 0 || v > 9e15)
		return trace_bad(rd, "%s (%s:%d) comes to %g: %s", targets[k].name, rd->map->src,
				 t->line, v, v < 0 ? "negative" : "out of range");
	*out = trace_round(v);
	return 0;
}

/* Text target k of the row: the constant, the column's field, or NULL. */
static const char *text_of(const struct trace_reader *rd, const struct csvin_rec *r, int k)
{
	const struct target *t = &rd->map->t[k];
	if (t->text)
		return t->text;
	return t->col >= 0 ? trace_field(rd, r, t->col) : NULL;
}

static int generic_nodes_row(struct trace_reader *rd, const struct csvin_rec *r, struct err *e)
{
	struct node n;
	int64_t v[G_NTARGET];
	int rc;
	node_init(&n);
	const char *name = text_of(rd, r, G_NAME);
	const char *group = text_of(rd, r, G_GROUP), *rack = text_of(rd, r, G_RACK);
	if (!name)
		return trace_bad(rd, "no node name");
	if (strlen(name) >= sizeof n.name || (group && strlen(group) >= sizeof n.group) ||
	    (rack && strlen(rack) >= sizeof n.rack))
		return trace_bad(rd, "node name, group or rack too long");
	strcpy(n.name, name);
	if (group)
		strcpy(n.group, group);
	if (rack)
		strcpy(n.rack, rack);
	static const int num[] = {G_CPU, G_MEM, G_GPU, G_HBM, G_NET, G_STO, G_IOCPU};
	for (size_t i = 0; i < sizeof num / sizeof *num; i++)
		if ((rc = amount(rd, r, num[i], &v[num[i]])))
			return rc;
	if (v[G_GPU] > 32) /* CLUSTER_MAX_GPUS */
		return trace_bad(rd, "%lld GPUs on one node", (long long)v[G_GPU]);
	n.cap[DIM_CPU] = v[G_CPU];
	n.cap[DIM_MEM] = v[G_MEM];
	trace_node_model(rd, &n, text_of(rd, r, G_MODEL), v[G_GPU] < 0 ? 0 : v[G_GPU], v[G_HBM]);
	n.cap[DIM_NET] = v[G_NET];
	n.cap[DIM_STO] = v[G_STO];
	n.cap[DIM_IOCPU] = v[G_IOCPU];
	return trace_emit_node(rd, &n, e);
}

static int generic_row(struct trace_reader *rd, const struct csvin_rec *r, struct err *e)
{
	const struct trace_map *m = rd->map;
	if (m->nodes)
		return generic_nodes_row(rd, r, e);
	struct job j;
	int64_t v[G_NTARGET];
	int rc;
	job_init(&j);
	static const int num[] = {G_ARRIVAL, G_START, G_END, G_DURATION, G_CPU,   G_MEM,    G_NGPU,
				  G_MILLI,   G_HBM,   G_NET, G_STO,      G_IOCPU, G_WORKERS};
	for (size_t i = 0; i < sizeof num / sizeof *num; i++)
		if ((rc = amount(rd, r, num[i], &v[num[i]])))
			return rc;
	if (v[G_ARRIVAL] < 0)
		return trace_bad(rd, "no arrival time");
	j.arrival = v[G_ARRIVAL];
	int64_t start = v[G_START] >= 0 ? v[G_START] : j.arrival;
	if (v[G_DURATION] >= 0) {
		j.duration = v[G_DURATION];
	} else if (v[G_END] >= 0) {
		if (v[G_END] < start)
			return trace_bad(rd, "end %lld before start %lld", (long long)v[G_END],
					 (long long)start);
		j.duration = v[G_END] - start;
	}
	if (j.duration < 0)
		j.flags |= JOB_F_NOTRAN;
	j.dem[DIM_CPU] = v[G_CPU];
	j.dem[DIM_MEM] = v[G_MEM];
	int64_t ngpu = v[G_NGPU] < 0 ? 0 : v[G_NGPU];
	if ((rc = trace_job_gpus(rd, &j, ngpu, ngpu ? (v[G_MILLI] < 0 ? 1000 : v[G_MILLI]) : 0)))
		return rc;
	j.dem[DIM_HBM] = v[G_HBM] < 0 ? -1 : v[G_HBM] * (ngpu ? ngpu : 1);
	j.dem[DIM_NET] = v[G_NET];
	j.dem[DIM_STO] = v[G_STO];
	j.dem[DIM_IOCPU] = v[G_IOCPU];
	if (v[G_WORKERS] >= 0 &&
	    (rc = trace_job_workers_set(rd, "workers", (double)v[G_WORKERS], &j)))
		return rc;
	const char *spec = text_of(rd, r, G_SPEC);
	if (spec && (rc = trace_job_spec(rd, &j, spec)))
		return rc;
	j.cls = ngpu ? JOB_TRAIN : JOB_CPU;
	if (m->ncls) {
		const char *c = text_of(rd, r, G_CLASS);
		int found = 0;
		for (int i = 0; i < m->ncls && !found; i++)
			if ((c && !strcmp(c, m->cls_value[i])) || !strcmp(m->cls_value[i], "*")) {
				j.cls = (uint8_t)m->cls[i];
				found = 1;
			}
		if (!found)
			return trace_bad(rd, "column '%s': '%.40s' maps to no class",
					 m->cols[m->t[G_CLASS].col], c ? c : "");
	}
	return trace_emit_job(rd, &j, e);
}

const struct trace_format trace_generic = {
	.name = "generic",
	.summary = "any delimited text file, through a mapping (--format generic:NAME|PATH)",
	.kind = TRACE_JOBS,
	.has_header = 1,
	.start = generic_start,
	.row = generic_row,
};
