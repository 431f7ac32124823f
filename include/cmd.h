/*
 * cmd.h — voidfit's subcommands. Each lives in src/cmd-NAME.c and exports one
 * const struct cmd_entry, listed in cmd_table (main.c). Only main.c and cmd-*.c print or
 * exit; a command returns its exit status: 0 success, 1 runtime failure, 2 usage error.
 */
#ifndef VOIDFIT_CMD_H
#define VOIDFIT_CMD_H

#include <stdio.h>

enum { CMD_OK = 0, CMD_FAIL = 1, CMD_USAGE = 2 };

struct cmd_entry {
	const char *name;    /* "import" */
	const char *usage;   /* arguments after "voidfit NAME", as in the man page SYNOPSIS */
	const char *summary; /* one line for 'voidfit -h' */
	const char *help;    /* option lines for 'voidfit NAME -h' (after the usage line) */
	int (*exec)(int argc, char **argv); /* argv[0] is the command name */
};

extern const struct cmd_entry *const cmd_table[]; /* NULL-terminated */

/* Print "usage: voidfit NAME USAGE" and the help text of ce to f. */
void cmd_print_help(const struct cmd_entry *ce, FILE *f);
/* Print "voidfit NAME: " + message to stderr and return CMD_USAGE, with the usage line. */
int cmd_usage_error(const struct cmd_entry *ce, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Print "voidfit NAME: " + message to stderr; returns CMD_FAIL. */
int cmd_fail(const struct cmd_entry *ce, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* 1 if argv has -h or --help before any "--"; commands call this first. */
int cmd_wants_help(int argc, char **argv);

/* Options: commands parse with cmd_getopt (long and short options, operands in any order,
 * no global state). */
struct cmd_opt {
	const char *name; /* long name without "--", e.g. "format" */
	int key;          /* returned value; a printable char doubles as the short option */
	int has_arg;      /* 0 none, 1 required */
};
struct cmd_parser {
	int argc;
	char **argv;
	int ind;             /* next argv index to read */
	const char *arg;     /* the current option's argument */
	const char *bad;     /* the offending word, after '?' */
	char **operands;     /* operands in order (owned; freed by cmd_parser_release) */
	int nops;            /* number of operands */
	int dashdash;        /* "--" seen: the rest are operands */
	const char *pending; /* rest of a short-option cluster */
	char shortbad[3];    /* "-x" for an unknown short option */
};
/* Start parsing argv[1..]. */
void cmd_parser_init(struct cmd_parser *p, int argc, char **argv);
/* Next option's key; -1 at the end (then p->operands holds the operands); '?' for an
 * unknown option or a missing argument (p->bad names it). */
int cmd_getopt(struct cmd_parser *p, const struct cmd_opt *opts);
/* Free p's operand array. */
void cmd_parser_release(struct cmd_parser *p);

/* s, the value of option --name of ce, as a number in [lo, hi] (no upper limit when
 * hi <= lo) in *out: 0, or a usage error naming the option and the range. */
int cmd_num_opt(const struct cmd_entry *ce, const char *name, const char *s, double lo, double hi,
		double *out);
/* The same for a whole number (an error too if it has a fraction). */
int cmd_whole_opt(const struct cmd_entry *ce, const char *name, const char *s, double lo, double hi,
		  unsigned *out);

#endif
