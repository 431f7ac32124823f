/* test-scenario.c — the table of scenario parameters: the parser, the key, and the man
 * pages that must name every row. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "enrich.h"
#include "scenario.h"
#include "words.h"

/* The key of a default scenario, as every stored run before the table has it. */
static void test_key_unchanged(void **state)
{
	(void)state;
	struct scenario sc;
	struct sbuf k = SBUF_INIT;
	scenario_init(&sc);
	sc.trace_id = 3;
	sbuf_init(&k);
	scenario_key(&sc, &k);
	assert_string_equal(k.s, "trace=3;mode=timed;queue=fifo;preempt=0;dims=;lambda=0.5;mu=0.25;"
				 "coverage=0.94999999999999996;sample_nodes=0;faults=;profile=;"
				 "io_pressure=1;cluster=;io_admission=default");
	struct err e = {0};
	char mode[] = "inflate", mu[] = "2", scoring[] = "k8s", tie[] = "random";
	assert_int_equal(scenario_set(&sc, SCENARIO_K_MODE, mode, &e), 0);
	assert_int_equal(scenario_set(&sc, SCENARIO_K_MU, mu, &e), 0);
	assert_int_equal(scenario_set(&sc, SCENARIO_K_SCORING, scoring, &e), 0);
	assert_int_equal(scenario_set(&sc, SCENARIO_K_TIE, tie, &e), 0);
	sc.resample = 2;
	sc.block_s = 3600;
	sbuf_reset(&k);
	scenario_key(&sc, &k);
	assert_string_equal(k.s,
			    "trace=3;mode=inflate;target=1.3;dims=;lambda=0.5;mu=2;"
			    "coverage=0.94999999999999996;sample_nodes=0;faults=;profile=;"
			    "io_pressure=1;cluster=;io_admission=default;resample=2;block=3600;"
			    "scoring=k8s;tie=random;weights=");
	assert_int_equal(scenario_key_value(k.s, "window", NULL), 0);
	assert_int_equal(scenario_key_value(k.s, "tie", NULL), 1);
	sbuf_release(&k);
	scenario_release(&sc);
}

/* fgd-pack's tolerance and reservation weight enter the key only when given another value
 * than their defaults, after every other field; lambda and mu always. */
static void test_key_policy_params(void **state)
{
	(void)state;
	struct scenario sc;
	struct sbuf k = SBUF_INIT, k0 = SBUF_INIT;
	struct err e = {0};
	scenario_init(&sc);
	sbuf_init(&k);
	sbuf_init(&k0);
	scenario_key(&sc, &k0);
	assert_null(strstr(k0.s, "fgd_pack"));
	assert_int_equal(scenario_set(&sc, SCENARIO_K_FP_TOL, "0.08", &e), 0);
	assert_int_equal(scenario_set(&sc, SCENARIO_K_FP_RESERVE, "8", &e), 0);
	scenario_key(&sc, &k);
	assert_string_equal(k.s, k0.s);
	assert_int_equal(scenario_set(&sc, SCENARIO_K_FP_RESERVE, "0", &e), 0);
	sbuf_reset(&k);
	scenario_key(&sc, &k);
	assert_int_equal(k.len, k0.len + strlen(";fgd_pack_reserve=0"));
	assert_string_equal(k.s + k0.len, ";fgd_pack_reserve=0");
	assert_int_equal(scenario_set(&sc, SCENARIO_K_FP_TOL, "0.04", &e), 0);
	sbuf_reset(&k);
	scenario_key(&sc, &k);
	assert_string_equal(k.s + k0.len, ";fgd_pack_tol=0.040000000000000001;fgd_pack_reserve=0");
	assert_int_equal(scenario_set(&sc, SCENARIO_K_FP_TOL, "0", &e), VF_EINPUT);
	assert_string_equal(e.msg, "--fgd-pack-tol '0': not a number in [0.001, 100]");
	/* each fills its policy parameter, and replay copies them all */
	for (int i = 0; i < SCENARIO_NPARAM; i++) {
		const struct scenario_param *p = &scenario_params[i];
		if (p->pol >= 0)
			assert_ptr_equal(&sc.param[p->pol], (const char *)&sc + p->offset);
	}
	sbuf_release(&k);
	sbuf_release(&k0);
	scenario_release(&sc);
}

/* A REAL row is parsed, checked against its range and set through the table alone. */
static void test_real_rows(void **state)
{
	(void)state;
	struct scenario sc;
	struct err e = {0};
	scenario_init(&sc);
	const struct scenario_param *p = scenario_param_find("coverage");
	assert_non_null(p);
	assert_int_equal(p->type, SCENARIO_REAL);
	assert_true(scenario_real(&sc, p) == p->def);
	assert_int_equal(scenario_set(&sc, p->key, "0.5", &e), 0);
	assert_true(sc.coverage == 0.5);
	assert_int_equal(scenario_set(&sc, p->key, "1.5", &e), VF_EINPUT);
	assert_string_equal(e.msg, "--coverage '1.5': not a number in [0.01, 1]");
	assert_int_equal(scenario_set(&sc, SCENARIO_K_LAMBDA, "-1", &e), VF_EINPUT);
	assert_string_equal(e.msg, "--lambda '-1': not a number >= 0");
	assert_null(scenario_param_find("nope"));
	for (int i = 0; i < SCENARIO_NPARAM; i++) {
		assert_true(scenario_is_key(scenario_params[i].key));
		assert_ptr_equal(scenario_param_find(scenario_params[i].name), &scenario_params[i]);
	}
	scenario_release(&sc);
}

/* The window field of a key, read as a field and not found inside another. */
static void test_key_value(void **state)
{
	(void)state;
	struct sbuf v = SBUF_INIT;
	sbuf_init(&v);
	const char *k = "trace=1;mode=timed;xwindow=9;window=10..20;io_admission=on fork=2@5 "
			"change=dims cpu";
	assert_int_equal(scenario_key_value(k, "window", &v), 1);
	assert_string_equal(v.s, "10..20");
	assert_int_equal(scenario_key_value(k, "change", NULL), 0);
	assert_int_equal(scenario_key_value("trace=1;xwindow=9", "window", NULL), 0);
	sbuf_release(&v);
}

/* The line enrich_describe writes (a store keeps it as text) reads back as counts. */
static void test_enrich_parse(void **state)
{
	(void)state;
	struct enrich_summary s;
	assert_int_equal(enrich_describe_parse("jobs: none of 5; nodes: none of 2", &s), 0);
	assert_true(s.jobs_any == 0 && s.nodes_any == 0 && s.njobs == 5 && s.nnodes == 2);
	assert_int_equal(enrich_describe_parse("jobs: net 5/5, sto 3/5; nodes: none of 2", &s), 0);
	assert_true(s.jobs_any == 5 && s.jobs[DIM_STO] == 3 && s.nodes_any == 0);
	struct sbuf b = SBUF_INIT;
	sbuf_init(&b);
	enrich_describe(&s, &b);
	assert_string_equal(b.s, "jobs: net 5/5, sto 3/5; nodes: none of 2");
	sbuf_release(&b);
	assert_int_equal(enrich_describe_parse("jobs: none; nodes: none of 2", &s), -1);
	assert_int_equal(enrich_describe_parse("unknown", &s), -1);
}

/* man/NAME read whole into out. */
static void read_man(const char *name, struct sbuf *out)
{
	const char *top = getenv("VOIDFIT_TOP");
	char path[4096];
	struct err e = {0};
	snprintf(path, sizeof path, "%s/man/%s", top && *top ? top : ".", name);
	if (words_read_file(path, (size_t)16 << 20, "a man page", out, &e))
		fail_msg("%s", e.msg);
}

/* 1 if text has word as a whole word (not inside a longer name). */
static int has_word(const char *text, const char *word)
{
	size_t n = strlen(word);
	for (const char *t = strstr(text, word); t; t = strstr(t + 1, word)) {
		char b = t == text ? ' ' : t[-1], a = t[n];
		int inb = (b >= 'a' && b <= 'z') || b == '_' || b == '-';
		int ina = (a >= 'a' && a <= 'z') || a == '_' || a == '-';
		if (!inb && !ina)
			return 1;
	}
	return 0;
}

/* 1 if text has an .It line naming want ("Fl -mode") as a whole word. */
static int has_item(const char *text, const char *want)
{
	size_t n = strlen(want);
	for (const char *t = strstr(text, want); t; t = strstr(t + 1, want)) {
		const char *bol = t;
		while (bol > text && bol[-1] != '\n')
			bol--;
		if (!strncmp(bol, ".It ", 4) && (t[n] == ' ' || t[n] == '\n'))
			return 1;
	}
	return 0;
}

/* Every row's option is in voidfit(1), its key in voidfit(5) or voidfit(7), its column in
 * voidfit(5). */
static void test_man_pages(void **state)
{
	(void)state;
	struct sbuf m1 = SBUF_INIT, m5 = SBUF_INIT, m7 = SBUF_INIT;
	char want[128];
	sbuf_init(&m1);
	sbuf_init(&m5);
	sbuf_init(&m7);
	read_man("voidfit.1", &m1);
	read_man("voidfit.5", &m5);
	read_man("voidfit.7", &m7);
	for (int i = 0; i < SCENARIO_NPARAM; i++) {
		const struct scenario_param *p = &scenario_params[i];
		snprintf(want, sizeof want, "Fl -%s", p->name);
		if (!has_item(m1.s, want))
			fail_msg("man/voidfit.1 has no '.It ... %s'", want);
		if (p->key_name && !has_word(m5.s, p->key_name) && !has_word(m7.s, p->key_name))
			fail_msg("neither man/voidfit.5 nor voidfit.7 names the key '%s' of --%s",
				 p->key_name, p->name);
		if (p->column && !has_word(m5.s, p->column))
			fail_msg("man/voidfit.5 has no column '%s' of --%s", p->column, p->name);
	}
	sbuf_release(&m1);
	sbuf_release(&m5);
	sbuf_release(&m7);
}

/* An option of a few words takes each, in its enum's order, and names them all when the
 * value is none. */
static void test_words(void **state)
{
	(void)state;
	static const struct {
		int key;
		const char *arg, *why;
		int value;
	} cases[] = {
		{SCENARIO_K_MODE, "inflate", NULL, SIM_INFLATE},
		{SCENARIO_K_MODE, "x", "--mode 'x': not timed or inflate", 0},
		{SCENARIO_K_SCORING, "k8s", NULL, SIM_SCORING_K8S},
		{SCENARIO_K_SCORING, "", "--scoring '': not exact or k8s", 0},
		{SCENARIO_K_TIE, "shuffled", NULL, SIM_TIE_SHUFFLED},
		{SCENARIO_K_TIE, "Name", "--tie-break 'Name': not name, shuffled or random", 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct scenario sc;
		struct err e = {0};
		scenario_init(&sc);
		int rc = scenario_set(&sc, cases[i].key, cases[i].arg, &e);
		if (cases[i].why) {
			assert_int_equal(rc, VF_EINPUT);
			assert_string_equal(e.msg, cases[i].why);
		} else {
			assert_int_equal(rc, 0);
			int got = cases[i].key == SCENARIO_K_MODE      ? (int)sc.mode
				  : cases[i].key == SCENARIO_K_SCORING ? (int)sc.scoring
								       : (int)sc.tie;
			assert_int_equal(got, cases[i].value);
		}
		scenario_release(&sc);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_unchanged), cmocka_unit_test(test_key_policy_params),
		cmocka_unit_test(test_real_rows),     cmocka_unit_test(test_key_value),
		cmocka_unit_test(test_enrich_parse),  cmocka_unit_test(test_man_pages),
		cmocka_unit_test(test_words),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
