/*
 * fmt.c — figures for a person (fmt.h). Everything goes through fmt_fixed, the one place
 * that rounds a value to its decimals and drops the sign of a negative zero.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"

char *fmt_fixed(double v, int decimals, char *buf, size_t len)
{
	if (isnan(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	snprintf(buf, len, "%.*f", decimals, v);
	/* "-0.00" would make equal runs print differently */
	if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1))
		memmove(buf, buf + 1, strlen(buf));
	return buf;
}

char *fmt_thousands(double v, int decimals, char *buf, size_t len)
{
	char raw[64];
	fmt_fixed(v, decimals, raw, sizeof raw);
	const char *d = raw + (raw[0] == '-');
	size_t whole = strcspn(d, "."), o = 0;
	if (d != raw && o + 1 < len)
		buf[o++] = '-';
	for (size_t i = 0; d[i] && o + 1 < len; i++) {
		buf[o++] = d[i];
		if (i + 1 < whole && (whole - i - 1) % 3 == 0 && o + 1 < len)
			buf[o++] = ',';
	}
	buf[o] = '\0';
	return buf;
}

/* "$" before the figure num, after its sign. */
static char *dollars(const char *num, char *buf, size_t len)
{
	if (num[0] == '-' && num[1])
		snprintf(buf, len, "-$%s", num + 1);
	else if (num[0] == '-')
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "$%s", num);
	return buf;
}

char *fmt_usd(double v, char *buf, size_t len)
{
	char num[64];
	return dollars(fmt_thousands(v, 0, num, sizeof num), buf, len);
}

char *fmt_price(double v, char *buf, size_t len)
{
	char num[64];
	return dollars(fmt_fixed(v, 2, num, sizeof num), buf, len);
}

char *fmt_share(double v, char *buf, size_t len)
{
	char num[64];
	if (isnan(v))
		return fmt_fixed(v, 1, buf, len);
	snprintf(buf, len, "%s %%", fmt_fixed(v * 100, 1, num, sizeof num));
	return buf;
}

/* One step of dollars in short: from from dollars on, in from (1 under 1,000). */
struct usd_unit {
	double from;
	int prec; /* decimals; -1: the shortest (%g) */
	const char *suffix;
};

static const struct usd_unit usd_axis[] = {
	{1e9, -1, "B"}, {1e6, -1, "M"}, {1e3, -1, "k"}, {0, -1, ""}};
static const struct usd_unit usd_screen[] = {
	{1e9, 2, "B"}, {1e6, 2, "M"}, {1e3, 1, "k"}, {0, 0, ""}};
static const struct usd_unit usd_words[] = {{1e6, 1, " M"}, {1e3, 0, " k"}, {0, 0, ""}};

char *fmt_usd_short(double v, enum fmt_usd st, char *buf, size_t len)
{
	const struct usd_unit *u = st == FMT_USD_AXIS     ? usd_axis
				   : st == FMT_USD_SCREEN ? usd_screen
							  : usd_words;
	double a = fabs(v);
	while (u->from > 0 && !(a >= u->from))
		u++;
	double div = u->from > 0 ? u->from : 1;
	if (st == FMT_USD_AXIS) /* the sign after the "$", as %g puts it */
		snprintf(buf, len, "$%g%s", v / div, u->suffix);
	else
		snprintf(buf, len, "%s$%.*f%s", st == FMT_USD_SCREEN && v < 0 ? "-" : "", u->prec,
			 a / div, u->suffix);
	return buf;
}

char *fmt_usd_range(double lo, double hi, char *buf, size_t len)
{
	const struct usd_unit *u = usd_words;
	double a = fmax(fabs(lo), fabs(hi));
	while (u->from > 0 && !(a >= u->from))
		u++;
	double div = u->from > 0 ? u->from : 1;
	char l[32], h[32];
	fmt_fixed(lo / div, u->prec, l, sizeof l);
	fmt_fixed(hi / div, u->prec, h, sizeof h);
	if (lo < 0)
		snprintf(buf, len, "$%s%s to $%s%s", l, u->suffix, h, u->suffix);
	else
		snprintf(buf, len, "$%s-%s%s", l, h, u->suffix);
	return buf;
}

/* "<a><ua>" or "<a><ua> <b><ub>" (b left out unless > 0); a with thousands separators when
 * grouped. */
static void two_units(const char *sign, double a, const char *ua, double b, const char *ub,
		      int grouped, char *buf, size_t len)
{
	char n[48];
	if (grouped)
		fmt_thousands(a, 0, n, sizeof n);
	else
		snprintf(n, sizeof n, "%.0f", a);
	if (b > 0)
		snprintf(buf, len, "%s%s%s %.0f%s", sign, n, ua, b, ub);
	else
		snprintf(buf, len, "%s%s%s", sign, n, ua);
}

/* FMT_DUR_UNITS of s >= 0. */
static void dur_units(double s, char *buf, size_t len)
{
	if (isinf(s)) {
		snprintf(buf, len, "inf");
		return;
	}
	long long t = llround(s), m = llround(s / 60), h = llround(s / 3600);
	if (s < 9.95 && fabs(s - (double)t) >= 0.05)
		snprintf(buf, len, "%.1fs", s);
	else if (t < 60)
		snprintf(buf, len, "%llds", t);
	else if (t < 3600)
		two_units("", (double)(t / 60), "m", (double)(t % 60), "s", 1, buf, len);
	else if (m < 24 * 60)
		two_units("", (double)(m / 60), "h", (double)(m % 60), "m", 1, buf, len);
	else
		two_units("", (double)(h / 24), "d", (double)(h % 24), "h", 1, buf, len);
}

/* FMT_DUR_ROUNDED of s. */
static void dur_rounded(double s, char *buf, size_t len)
{
	static const struct {
		double sec;
		const char *unit;
	} u[] = {{86400, "d"}, {3600, "h"}, {60, "m"}, {1, "s"}};
	const char *sign = s < 0 ? "-" : "";
	double a = fabs(s);
	if (a == 0) {
		snprintf(buf, len, "0");
		return;
	}
	if (a < 1) {
		snprintf(buf, len, "%s%.1fs", sign, a);
		return;
	}
	/* the unit is chosen after rounding, so 59.6 s is 1m, not 60s */
	a = round(a);
	for (size_t i = 0; i < 3; i++) {
		double total = round(a / u[i + 1].sec); /* in the smaller unit */
		if (total * u[i + 1].sec < u[i].sec)
			continue;
		double per = u[i].sec / u[i + 1].sec;
		double big = floor(total / per);
		two_units(sign, big, u[i].unit, total - big * per, u[i + 1].unit, 0, buf, len);
		return;
	}
	snprintf(buf, len, "%s%.0fs", sign, a);
}

/* One unit with a decimal: the first row whose bound s is under. */
struct dur_unit {
	double below, div;
	int prec;           /* decimals of the figure in div seconds */
	int whole_prec;     /* instead, when the figure is whole (-1: prec) */
	const char *suffix; /* after the figure */
};

static const struct dur_unit dur_decimal[] = {
	{60, 1, 0, -1, "s"},
	{3600, 60, 1, -1, "m"},
	{86400, 3600, 1, -1, "h"},
	{HUGE_VAL, 86400, 1, -1, "d"},
};

static const struct dur_unit dur_words[] = {
	{120, 1, 0, -1, " s"},
	{7200, 60, 1, 0, " min"},
	{HUGE_VAL, 3600, 1, -1, " h"},
};

static const struct dur_unit dur_screen[] = {
	{120, 1, 0, -1, "s"},
	{7200, 60, 0, -1, "m"},
	{172800, 3600, 1, -1, "h"},
	{HUGE_VAL, 86400, 1, -1, "d"},
};

static void dur_one_unit(double s, const struct dur_unit *u, char *buf, size_t len)
{
	while (!(s < u->below) && u->below != HUGE_VAL)
		u++;
	int prec = u->whole_prec >= 0 && fmod(s, u->div) == 0 ? u->whole_prec : u->prec;
	snprintf(buf, len, "%.*f%s", prec, s / u->div, u->suffix);
}

char *fmt_duration(double s, enum fmt_dur st, char *buf, size_t len)
{
	if (isnan(s)) {
		snprintf(buf, len, "-");
		return buf;
	}
	switch (st) {
	case FMT_DUR_UNITS:
		if (s < 0) {
			dur_units(-s, buf + 1, len - 1);
			if (strcmp(buf + 1, "0s"))
				buf[0] = '-';
			else
				memmove(buf, buf + 1, strlen(buf + 1) + 1);
		} else {
			dur_units(s, buf, len);
		}
		break;
	case FMT_DUR_ROUNDED:
		dur_rounded(s, buf, len);
		break;
	case FMT_DUR_DECIMAL:
		dur_one_unit(s, dur_decimal, buf, len);
		break;
	case FMT_DUR_WORDS:
		dur_one_unit(s, dur_words, buf, len);
		break;
	case FMT_DUR_SCREEN:
		dur_one_unit(s, dur_screen, buf, len);
		break;
	case FMT_DUR_CLOCK: {
		int64_t a = (int64_t)fabs(s);
		snprintf(buf, len, "%s%" PRId64 "d%02d:%02d:%02d", s < 0 ? "-" : "", a / 86400,
			 (int)(a / 3600 % 24), (int)(a / 60 % 60), (int)(a % 60));
		break;
	}
	}
	return buf;
}
