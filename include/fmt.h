/*
 * fmt.h — figures for a person: durations, numbers with thousands separators, dollars and
 * shares. Every writer formats through here (the result tables of table.h, the report's cells,
 * the summaries' notes, the sentences of size and verdict), so that a figure is formatted in
 * one place and two outputs that print the same figure print it the same way.
 *
 * Each function writes into buf (len bytes, truncated to fit, always NUL-terminated) and
 * returns buf, so it can be a printf argument. None prints a negative zero: a value that
 * rounds to zero prints without its sign, so output does not depend on the sign of a
 * rounded-away value.
 */
#ifndef VOIDFIT_FMT_H
#define VOIDFIT_FMT_H

#include <stddef.h>

/* v with decimals fixed decimals ("%.*f"), "-" for NaN, no "-0.00". */
char *fmt_fixed(double v, int decimals, char *buf, size_t len);
/* fmt_fixed with the whole part in groups of three: "-1,234,567.5"; "-" for NaN. */
char *fmt_thousands(double v, int decimals, char *buf, size_t len);
/* Whole dollars with thousands separators: "$1,234,567", "-$12"; "-" for NaN. */
char *fmt_usd(double v, char *buf, size_t len);
/* Dollars and cents, a price per GPU-hour: "$3.06", "-$0.50"; "-" for NaN. */
char *fmt_price(double v, char *buf, size_t len);
/* A share (0.123) as a percentage with one decimal: "12.3 %"; "-" for NaN. */
char *fmt_share(double v, char *buf, size_t len);

/* How dollars read in short, in thousands (k), millions (M) or billions (B). */
enum fmt_usd {
	FMT_USD_AXIS,   /* a chart's tick: "$1.5M", "$250k", "$-2M", "$40" (%g) */
	FMT_USD_SCREEN, /* the dashboard: "$1.60M", "-$12.5k", "$2.00B", "$40" */
	FMT_USD_WORDS,  /* verdict's sentences, the size alone: "$1.6 M", "$250 k", "$40" */
};
/* v dollars in short, in style st. */
char *fmt_usd_short(double v, enum fmt_usd st, char *buf, size_t len);
/* An interval of dollars as FMT_USD_WORDS says them, both ends in the unit of the larger:
 * "$1.6-2.5 M", "$40-950", "$-0.3 M to $2.5 M" (a negative low end). */
char *fmt_usd_range(double lo, double hi, char *buf, size_t len);

/* How a duration reads. The first two give the two largest units, the smaller rounded; the
 * others one unit, with a decimal past a bound. */
enum fmt_dur {
	/* result tables and notes: "42s", "0.2s" (under 10 s, not whole), "15m 20s",
	 * "3h 5m", "3d 4h", "1,002d 3h", "0s"; the pair is chosen on the value rounded to the
	 * finer unit below it (59m 59s stays minutes); "inf" */
	FMT_DUR_UNITS,
	/* the report's cells and axes: "3d 4h", "2h 5m", "12m 30s", "40s", "0.4s" (under 1 s),
	 * "0"; the pair is chosen after rounding to its smaller unit (59.6 s is "1m") */
	FMT_DUR_ROUNDED,
	/* size's reasons: "42s", "17.2m", "2.5h", "3.0d" (one decimal past 1 min) */
	FMT_DUR_DECIMAL,
	/* verdict's sentences: "45 s", "12 min", "12.5 min", "3.2 h" */
	FMT_DUR_WORDS,
	/* the dashboard: "45s", "12m", "3.2h", "4.5d" (whole up to 2 h) */
	FMT_DUR_SCREEN,
	/* the dashboard's clock, whole seconds: "3d04:05:06", "-0d00:01:30" */
	FMT_DUR_CLOCK,
};
/* s seconds in style st; "-" for NaN. */
char *fmt_duration(double s, enum fmt_dur st, char *buf, size_t len);

#endif
