/* test-gpumodel.c — the GPU model table: lookups, aliases, masks, the default; a planner's table
 * read and added. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gpumodel.h"

static void test_required_rows_present(void **state)
{
	(void)state;
	static const char *const names[] = {"T4",  "P100", "V100M16", "V100M32", "V100",
					    "A10", "A100", "H100",    "G1",      "G2",
					    "G3",  "MISC", "UNKNOWN"};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		int id = gpumodel_find(names[i]);
		assert_true(id >= 0);
		assert_string_equal(gpumodel_get(id)->name, names[i]);
	}
	assert_true(gpumodel_count() >= 13);
	assert_true(gpumodel_count() <= GPUMODEL_MAX);
}

static void test_vendor_hbm(void **state)
{
	(void)state;
	/* Vendor datasheets: T4 16 GB, V100 32 GB variant, A10 24 GB, A100 40 GB, H100 80 GB. */
	assert_int_equal(gpumodel_get(gpumodel_find("T4"))->hbm_mib, 16 * 1024);
	assert_int_equal(gpumodel_get(gpumodel_find("V100M16"))->hbm_mib, 16 * 1024);
	assert_int_equal(gpumodel_get(gpumodel_find("V100M32"))->hbm_mib, 32 * 1024);
	assert_int_equal(gpumodel_get(gpumodel_find("A10"))->hbm_mib, 24 * 1024);
	assert_int_equal(gpumodel_get(gpumodel_find("A100"))->hbm_mib, 40 * 1024);
	assert_int_equal(gpumodel_get(gpumodel_find("H100"))->hbm_mib, 80 * 1024);
}

static void test_every_row_priced_and_sourced(void **state)
{
	(void)state;
	int ndefault = 0;
	for (int i = 0; i < gpumodel_count(); i++) {
		const struct gpumodel *m = gpumodel_get(i);
		assert_true(m->hbm_mib > 0);
		for (int t = 0; t < GPUMODEL_NTIER; t++) {
			assert_true(m->usd[t] > 0);
			assert_non_null(m->source[t]);
			assert_true(strlen(m->source[t]) > 10);
			/* Each source is a named listing with its date ("as listed in"), or says
			 * it is not one ("assumed", "derived"). */
			assert_true(strstr(m->source[t], "as listed in") ||
				    gpumodel_price_assumed(m->source[t]));
		}
		/* The tiers are in the order a buyer meets them: owning and spot below
		 * reserved below on demand. */
		assert_true(m->usd[GPUMODEL_RESERVED] < m->usd[GPUMODEL_ON_DEMAND]);
		assert_true(m->usd[GPUMODEL_SPOT] < m->usd[GPUMODEL_RESERVED]);
		assert_true(m->usd[GPUMODEL_OWNED] < m->usd[GPUMODEL_ON_DEMAND]);
		ndefault += m->is_default;
	}
	assert_int_equal(ndefault, 1);
	const struct gpumodel *u = gpumodel_get(gpumodel_unknown());
	assert_string_equal(u->name, "UNKNOWN");
	assert_int_equal(u->is_default, 1);
	assert_true(gpumodel_price_assumed(u->source[GPUMODEL_ON_DEMAND]));
	/* Tier names round-trip; an unknown one is refused. */
	for (int t = 0; t < GPUMODEL_NTIER; t++) {
		enum gpumodel_tier x;
		assert_int_equal(gpumodel_tier_parse(gpumodel_tier_name((enum gpumodel_tier)t), &x),
				 0);
		assert_int_equal(x, t);
	}
	enum gpumodel_tier y;
	assert_int_equal(gpumodel_tier_parse("cheap", &y), -1);
}

static void test_case_and_aliases(void **state)
{
	(void)state;
	assert_int_equal(gpumodel_find("t4"), gpumodel_find("T4"));
	assert_int_equal(gpumodel_find("v100m32"), gpumodel_find("V100M32"));
	assert_int_equal(gpumodel_find("A10G"), gpumodel_find("A10"));
	assert_int_equal(gpumodel_find("a100-40g"), gpumodel_find("A100"));
	assert_int_equal(gpumodel_find("H100"), gpumodel_find("h100-80g"));
	assert_int_equal(gpumodel_find("V100"), gpumodel_find("Tesla-V100"));
	assert_int_not_equal(gpumodel_find("V100"), gpumodel_find("V100M32"));
}

/* The names fleets run, as nvidia-smi, Kubernetes labels and the Alibaba traces spell
 * them, each a model with its HBM (vendor datasheets). */
static void test_fleet_names(void **state)
{
	(void)state;
	static const struct {
		const char *spelling, *model;
		int gib;
	} names[] = {
		{"A100-SXM4-80GB", "A100-80G", 80},
		{"NVIDIA A100-SXM4-80GB", "A100-80G", 80},
		{"NVIDIA-A100-SXM4-80GB", "A100-80G", 80},
		{"NVIDIA A100 80GB PCIe", "A100-80G", 80},
		{"NVIDIA A100-PCIE-40GB", "A100", 40},
		{"A800", "A800", 80},
		{"NVIDIA A800-SXM4-80GB", "A800", 80},
		{"NVIDIA H100 80GB HBM3", "H100", 80},
		{"NVIDIA H100 PCIe", "H100-PCIe", 80},
		{"NVIDIA H100 NVL", "H100-NVL", 94},
		{"H800", "H800", 80},
		{"NVIDIA H20", "H20", 96},
		{"NVIDIA H200", "H200", 141},
		{"NVIDIA B200", "B200", 180},
		{"NVIDIA L40S", "L40S", 48},
		{"NVIDIA L4", "L4", 24},
		{"Tesla T4", "T4", 16},
		{"Tesla V100-SXM2-16GB", "V100M16", 16},
		{"Tesla V100-SXM2-32GB", "V100M32", 32},
		{"Tesla-V100-SXM2-32GB", "V100M32", 32},
		{"NVIDIA A10", "A10", 24},
		{"NVIDIA A30", "A30", 24},
		{"AMD Instinct MI300X", "MI300X", 192},
		{"GPU-series-1", "GPU-series-1", 80},
		{"gpu_series_2", "GPU-series-2", 80},
		{"G2", "G2", 32},
	};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		int id = gpumodel_find(names[i].spelling);
		if (id < 0)
			fail_msg("'%s' is not in the table", names[i].spelling);
		assert_string_equal(gpumodel_get(id)->name, names[i].model);
		assert_int_equal(gpumodel_get(id)->hbm_mib, (int64_t)names[i].gib * 1024);
	}
	/* The ids of the first rows never move: stored masks of allowed models name them. */
	assert_int_equal(gpumodel_find("T4"), 0);
	assert_int_equal(gpumodel_find("UNKNOWN"), 12);
}

static void test_unknown_names(void **state)
{
	(void)state;
	assert_int_equal(gpumodel_find("B300"), -1);
	assert_int_equal(gpumodel_find("NVIDIA"), -1);     /* a brand alone names no model */
	assert_int_equal(gpumodel_find("NVIDIAA100"), -1); /* a brand counts as a word only */
	assert_int_equal(gpumodel_find(""), -1);
	assert_int_equal(gpumodel_find(NULL), -1);
	assert_int_equal(gpumodel_find("T"), -1);   /* a prefix is not a name */
	assert_int_equal(gpumodel_find("T4|"), -1); /* nor is a spec */
	assert_int_equal(gpumodel_find("CPU"), -1); /* PAI's CPU machines have no GPU model */
}

static void test_mask(void **state)
{
	(void)state;
	uint32_t m = 0xdead;
	struct err e = {0};
	assert_int_equal(gpumodel_mask("", &m, &e), 0);
	assert_int_equal(m, 0);
	assert_int_equal(gpumodel_mask(NULL, &m, &e), 0);
	assert_int_equal(m, 0);
	assert_int_equal(gpumodel_mask("V100M16|v100m32", &m, &e), 0);
	assert_int_equal(m, (1u << gpumodel_find("V100M16")) | (1u << gpumodel_find("V100M32")));
	assert_int_equal(gpumodel_mask("G2", &m, &e), 0);
	assert_int_equal(m, 1u << gpumodel_find("G2"));
}

static void test_mask_errors(void **state)
{
	(void)state;
	uint32_t m = 7;
	struct err e = {0};
	assert_int_equal(gpumodel_mask("T4|B300", &m, &e), VF_EINPUT);
	assert_int_equal(e.code, VF_EINPUT);
	assert_string_equal(e.msg, "gpu spec 'T4|B300': unknown GPU model 'B300'");
	assert_int_equal(m, 7); /* untouched on failure */
	assert_int_equal(gpumodel_mask("T4||A10", &m, &e), VF_EINPUT);
	assert_int_equal(gpumodel_mask("T4|", &m, &e), VF_EINPUT);
	assert_int_equal(gpumodel_mask("|T4", &m, &e), VF_EINPUT);
	assert_int_equal(gpumodel_mask("T4|B300", &m, NULL), VF_EINPUT); /* e may be NULL */
}

static const char table_hdr[] = "name,aliases,hbm_mib,on_demand,on_demand_source,reserved,"
				"reserved_source,spot,spot_source,owned,owned_source\n";

/* Parse text after table_hdr into ds; returns what gpumodel_defs_read did. */
static int read_table(const char *rows, struct gpumodel_defs *ds, struct err *e)
{
	char buf[1024];
	snprintf(buf, sizeof buf, "%s%s", table_hdr, rows);
	return gpumodel_defs_read("m.csv", buf, strlen(buf), ds, e);
}

static void test_defs_errors(void **state)
{
	(void)state;
	struct gpumodel_defs ds;
	struct err e = {0};
	assert_int_equal(read_table("X,,512,1,a,1,b,1,c,1,d\n", &ds, &e), 0);
	assert_int_equal(ds.n, 1);
	assert_int_equal(ds.v[0].line, 2);
	assert_int_equal(ds.v[0].m.hbm_mib, 512);
	assert_string_equal(ds.v[0].m.source[GPUMODEL_OWNED], "d");
	gpumodel_defs_release(&ds);
	assert_int_equal(read_table("# c\n\nX,,512,1,a,1,b,1,c,1,\n", &ds, &e), VF_EINPUT);
	assert_string_equal(e.msg, "m.csv:4: 'X': owned_source is empty (a new model gives "
				   "hbm_mib and every price with its source; a row of aliases "
				   "gives none)");
	assert_int_equal(ds.n, 0);
	assert_int_equal(read_table("X,,512\n", &ds, &e), VF_EINPUT);
	assert_string_equal(e.msg, "m.csv:2: 3 fields, the header has more");
	assert_int_equal(read_table("", &ds, &e), VF_EINPUT);
	assert_string_equal(e.msg, "m.csv: no model in it");
	assert_int_equal(gpumodel_defs_read("m.csv", "name\nX\n", 7, &ds, &e), VF_EINPUT);
	assert_string_equal(e.msg, "m.csv:1: the header lacks column 'hbm_mib' (the columns of "
				   "schemas/gpu-models.csv)");
}

static void test_add(void **state)
{
	(void)state;
	struct gpumodel_defs ds;
	struct err e = {0};
	int n = gpumodel_count(), id = -1, id2 = -1;
	assert_int_equal(gpumodel_builtin_count(), n);
	assert_int_equal(n, 27); /* voidfit.1 and voidfit.5: 27 built in, 5 to add */
	assert_int_equal(read_table("RTX-X,rtxx|RTX X,49152,3,a,2,b,1,c,1,d\n"
				    "A100,my-a100,,,,,,,,,\n"
				    "RTX-X,,49152,3,a,2,b,1,c,1,d\n"
				    "RTX-X,,49152,4,a,2,b,1,c,1,d\n"
				    "A100,,40960,1,a,1,b,1,c,1,d\n"
				    "Y,T4,1,1,a,1,b,1,c,1,d\n"
				    "NOPE,x,,,,,,,,,\n",
				    &ds, &e),
			 0);
	assert_int_equal(ds.n, 7);
	/* a new model goes after the built-in ones; its aliases find it */
	assert_int_equal(gpumodel_add(&ds.v[0], &id, &e), 0);
	assert_int_equal(id, n);
	assert_int_equal(gpumodel_count(), n + 1);
	assert_int_equal(gpumodel_find("rtx x"), id);
	assert_int_equal(gpumodel_get(id)->hbm_mib, 49152);
	assert_false(gpumodel_get(id)->is_default);
	/* aliases of a built-in model */
	assert_int_equal(gpumodel_add(&ds.v[1], &id2, &e), 0);
	assert_int_equal(id2, gpumodel_find("A100"));
	assert_int_equal(gpumodel_find("MY_A100"), id2);
	/* the same model again is that model; another for its name is refused */
	assert_int_equal(gpumodel_add(&ds.v[2], &id2, &e), 0);
	assert_int_equal(id2, id);
	assert_int_equal(gpumodel_add(&ds.v[3], &id2, &e), VF_EINPUT);
	assert_string_equal(e.msg, "GPU model 'RTX-X' is known already as 'RTX-X', with another "
				   "HBM, price or source");
	assert_int_equal(gpumodel_add(&ds.v[4], &id2, &e), VF_EINPUT);
	assert_string_equal(e.msg, "GPU model 'A100' is built in as 'A100': a row naming it adds "
				   "aliases only (its HBM and prices stay; --gpu-price sets a "
				   "price)");
	assert_int_equal(gpumodel_add(&ds.v[5], &id2, &e), VF_EINPUT);
	assert_string_equal(e.msg, "GPU model 'Y': alias 'T4' already names model 'T4'");
	assert_int_equal(gpumodel_find("Y"), -1); /* a refused row adds nothing */
	assert_int_equal(gpumodel_add(&ds.v[6], &id2, &e), VF_EINPUT);
	assert_int_equal(gpumodel_count(), n + 1);
	/* the table holds GPUMODEL_MAX models, no more */
	for (int k = gpumodel_count(); k <= GPUMODEL_MAX; k++) {
		struct gpumodel_def d = ds.v[0];
		char name[16];
		snprintf(name, sizeof name, "Z%d", k);
		d.m.name = name;
		d.aliases = "";
		int rc = gpumodel_add(&d, &id2, &e);
		if (k < GPUMODEL_MAX) {
			assert_int_equal(rc, 0);
			assert_int_equal(id2, k);
		} else {
			assert_int_equal(rc, VF_EINPUT);
			assert_non_null(strstr(e.msg, "the table is full (32 models"));
		}
	}
	gpumodel_defs_release(&ds);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_required_rows_present),
		cmocka_unit_test(test_vendor_hbm),
		cmocka_unit_test(test_every_row_priced_and_sourced),
		cmocka_unit_test(test_case_and_aliases),
		cmocka_unit_test(test_fleet_names),
		cmocka_unit_test(test_unknown_names),
		cmocka_unit_test(test_mask),
		cmocka_unit_test(test_mask_errors),
		cmocka_unit_test(test_defs_errors),
		cmocka_unit_test(test_add), /* last: it adds to the process's table */
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
