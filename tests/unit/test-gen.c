/* test-gen.c — synthetic scenarios: exact headers, determinism, counts, the documented
 * offered load and storage levels, valid fields, faults syntax, parameter errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "gen.h"
#include "gpumodel.h"
#include "job.h"

typedef int (*writer_fn)(const struct gen_params *, FILE *, const char *, struct err *);

/* Run writer into memory; returns the text (free it). */
static char *run(writer_fn w, const struct gen_params *p, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	struct err e = {0};
	FILE *f = open_memstream(&buf, &n);
	assert_non_null(f);
	assert_int_equal(w(p, f, "mem", &e), 0);
	fclose(f);
	if (len)
		*len = n;
	return buf;
}

static void test_scenario_names(void **state)
{
	(void)state;
	static const char *const names[] = {"balanced", "irregular", "storage-stress", "hard",
					    "llm"};
	for (int s = 0; s < GEN_NSCENARIO; s++) {
		assert_string_equal(gen_scenario_name(s), names[s]);
		assert_int_equal(gen_scenario_find(names[s]), s);
		assert_true(strlen(gen_scenario_summary(s)) > 10);
	}
	assert_int_equal(gen_scenario_find("Balanced"), -1);
	assert_int_equal(gen_scenario_find(""), -1);
}

static void test_deterministic(void **state)
{
	(void)state;
	for (int s = 0; s < GEN_NSCENARIO; s++) {
		struct gen_params p = {.scenario = s, .njobs = 500, .nnodes = 40, .seed = 7};
		size_t n1, n2;
		char *a = run(gen_write_jobs, &p, &n1), *b = run(gen_write_jobs, &p, &n2);
		assert_int_equal(n1, n2);
		assert_memory_equal(a, b, n1);
		p.seed = 8;
		char *c = run(gen_write_jobs, &p, &n2);
		assert_true(n1 != n2 || memcmp(a, c, n1));
		free(a);
		free(b);
		free(c);
	}
}

/* The nodes do not depend on --jobs, nor the first jobs' shapes on the seed's job count. */
static void test_nodes_independent_of_jobs(void **state)
{
	(void)state;
	struct gen_params p = {.scenario = GEN_IRREGULAR, .njobs = 100, .nnodes = 50, .seed = 3},
			  q = {.scenario = GEN_IRREGULAR, .njobs = 9000, .nnodes = 50, .seed = 3};
	size_t n1, n2;
	char *a = run(gen_write_nodes, &p, &n1), *b = run(gen_write_nodes, &q, &n2);
	assert_int_equal(n1, n2);
	assert_memory_equal(a, b, n1);
	free(a);
	free(b);
}

static int count_lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void test_nodes(void **state)
{
	(void)state;
	for (int s = 0; s < GEN_NSCENARIO; s++) {
		for (int64_t nn = 1; nn <= 130; nn += 43) {
			struct gen_params p = {.scenario = s, .njobs = 10, .nnodes = nn, .seed = 1};
			char *t = run(gen_write_nodes, &p, NULL);
			assert_int_equal(count_lines(t), nn + 1);
			assert_memory_equal(t, GEN_NODES_HEADER "\n", strlen(GEN_NODES_HEADER) + 1);
			int64_t k = 0, gpus = 0;
			char *save = NULL;
			for (char *l = strtok_r(strchr(t, '\n') + 1, "\n", &save); l;
			     l = strtok_r(NULL, "\n", &save), k++) {
				char name[32], group[32], model[32];
				long long cpu, mem, gpu, hbm, net, sto, io;
				char want[32];
				/* model may be empty: read it as the text between the commas */
				int n = sscanf(l,
					       "%31[^,],%31[^,],%31[^,],%lld,%lld,%lld,%lld,%lld,%"
					       "lld,%lld",
					       name, group, model, &cpu, &mem, &gpu, &hbm, &net,
					       &sto, &io);
				if (n != 10) {
					n = sscanf(l,
						   "%31[^,],%31[^,],,%lld,%lld,%lld,%lld,%lld,%lld,"
						   "%lld",
						   name, group, &cpu, &mem, &gpu, &hbm, &net, &sto,
						   &io);
					assert_int_equal(n, 9);
					assert_int_equal(gpu, 0);
					assert_int_equal(hbm, 0);
				} else {
					assert_true(gpumodel_find(model) >= 0);
					assert_int_equal(
						hbm, gpumodel_get(gpumodel_find(model))->hbm_mib);
					assert_true(gpu >= 1 && gpu <= 8);
				}
				snprintf(want, sizeof want, "n%04lld", (long long)k);
				assert_string_equal(name, want);
				assert_true(cpu > 0 && mem > 0 && net > 0 && sto > 0 && io > 0);
				gpus += gpu;
			}
			assert_int_equal(k, nn);
			assert_true(gpus > 0); /* even one node is a GPU node */
			free(t);
		}
	}
}

struct jobstats {
	int64_t njobs, last_arrival;
	double gpu_seconds, sto_per_gpu_sum, sto_gpus;
	int64_t cls[JOB_NCLASS], with_spec, with_hbm;
};

static void parse_jobs(char *t, struct jobstats *st)
{
	memset(st, 0, sizeof *st);
	assert_memory_equal(t, GEN_JOBS_HEADER "\n", strlen(GEN_JOBS_HEADER) + 1);
	int64_t prev = 0;
	char *save = NULL;
	for (char *l = strtok_r(strchr(t, '\n') + 1, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		char *f[13];
		int nf = 0;
		/* split keeping empty fields */
		for (char *c = l;; c++) {
			f[nf++] = c;
			c = strchr(c, ',');
			if (!c || nf == 13)
				break;
			*c = '\0';
		}
		assert_int_equal(nf, 13);
		char want[24];
		snprintf(want, sizeof want, "j%06lld", (long long)st->njobs + 1);
		assert_string_equal(f[0], want);
		long long arr = atoll(f[1]), dur = atoll(f[2]);
		assert_true(arr >= prev);
		prev = arr;
		assert_true(dur >= 30 && dur <= 3 * 86400);
		int c = -1;
		for (int k = 0; k < JOB_NCLASS; k++)
			if (!strcmp(f[3], job_class_name((enum job_class)k)))
				c = k;
		assert_true(c >= 0);
		st->cls[c]++;
		long long ng = atoll(f[6]), milli = atoll(f[7]);
		assert_true(atoll(f[4]) >= 1000 && atoll(f[5]) > 0);
		if (c == JOB_CPU) {
			assert_int_equal(ng, 0);
			assert_int_equal(milli, 0);
		} else {
			assert_true(ng >= 1 && ng <= 8);
			assert_true(milli >= 100 && milli <= 1000);
			assert_true(ng == 1 || milli == 1000);
		}
		if (*f[8]) {
			st->with_hbm++;
			assert_true(atoll(f[8]) >= 1024 && atoll(f[8]) <= 16384);
		}
		for (int k = 9; k < 12; k++)
			assert_true(*f[k] && atoll(f[k]) >= 0); /* always explicit */
		if (*f[12]) {
			uint32_t m;
			struct err e = {0};
			assert_int_equal(gpumodel_mask(f[12], &m, &e), 0);
			st->with_spec++;
		}
		double g = ng * milli / 1000.0;
		st->gpu_seconds += g * (double)dur;
		if (c == JOB_TRAIN) {
			st->sto_per_gpu_sum += (double)atoll(f[10]);
			st->sto_gpus += g;
		}
		st->njobs++;
	}
	st->last_arrival = prev;
}

static int64_t cluster_gpus(const struct gen_params *p)
{
	char *t = run(gen_write_nodes, p, NULL);
	int64_t gpus = 0;
	for (char *l = strchr(t, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
		const char *c = l + 1;
		for (int k = 0; k < 5; k++)
			c = strchr(c, ',') + 1;
		gpus += atoll(c);
	}
	free(t);
	return gpus;
}

static void test_jobs_and_load(void **state)
{
	(void)state;
	static const double load[GEN_NSCENARIO] = {0.85, 0.85, 0.85, 0.90};
	struct jobstats st[GEN_NSCENARIO];
	for (int s = 0; s <= GEN_HARD; s++) { /* llm's jobs: test_llm */
		struct gen_params p = {.scenario = s, .njobs = 3000, .nnodes = 64, .seed = 11};
		char *t = run(gen_write_jobs, &p, NULL);
		parse_jobs(t, &st[s]);
		free(t);
		assert_int_equal(st[s].njobs, 3000);
		for (int c = 0; c < JOB_NCLASS; c++)
			assert_true(st[s].cls[c] > 200);
		assert_true(st[s].with_spec > 10);
		assert_true(st[s].with_hbm > 100);
		/* Offered GPU load over the arrival horizon, as documented (Poisson noise). */
		double offered =
			st[s].gpu_seconds / ((double)cluster_gpus(&p) * (double)st[s].last_arrival);
		assert_true(offered > load[s] * 0.93 && offered < load[s] * 1.07);
	}
	/* Storage-stress: jobs ask four times the storage per GPU at the median; the largest
	 * demands are cut to the roomiest node's storage (2000 MB/s), so the mean grows less. */
	double bal = st[GEN_BALANCED].sto_per_gpu_sum / st[GEN_BALANCED].sto_gpus;
	double str = st[GEN_STORAGE_STRESS].sto_per_gpu_sum / st[GEN_STORAGE_STRESS].sto_gpus;
	assert_true(bal > 80 && bal < 200);
	print_message("storage per GPU: balanced %.1f, storage-stress %.1f MB/s\n", bal, str);
	assert_true(str / bal > 2.5 && str / bal < 4.0);
	/* Class mix of balanced: 30/35/20/15 %. */
	assert_in_range(st[GEN_BALANCED].cls[JOB_TRAIN], 950, 1150);
	assert_in_range(st[GEN_BALANCED].cls[JOB_CPU], 380, 520);
}

/* A one-node cluster of the first group never gets jobs wider than its node. */
static void test_small_cluster(void **state)
{
	(void)state;
	struct gen_params p = {.scenario = GEN_IRREGULAR, .njobs = 400, .nnodes = 1, .seed = 5};
	int gpus_per_node = (int)cluster_gpus(&p);
	assert_true(gpus_per_node >= 1 && gpus_per_node < 8);
	char *t = run(gen_write_jobs, &p, NULL);
	for (char *l = strchr(t, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
		const char *c = l + 1;
		for (int k = 0; k < 6; k++)
			c = strchr(c, ',') + 1;
		assert_true(atoi(c) <= gpus_per_node);
	}
	free(t);
}

/* Every job fits at least one node (GPUs, cpu, mem, allowed model), however small the
 * cluster, so no job can wait forever. */
static void test_every_job_fits(void **state)
{
	(void)state;
	static const int64_t sizes[] = {1, 2, 3, 7, 64};
	for (int s = 0; s < GEN_NSCENARIO; s++) {
		for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
			struct gen_params p = {
				.scenario = s, .njobs = 1500, .nnodes = sizes[z], .seed = 99};
			struct {
				long long cpu, mem, gpu;
				int model;
			} nd[64];
			int nn = 0;
			char *t = run(gen_write_nodes, &p, NULL);
			for (char *l = strchr(t, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
				char model[32] = "";
				const char *c = strchr(strchr(l + 1, ',') + 1, ',');
				sscanf(strchr(l + 1, ',') + 1, "%*[^,],%31[^,]", model);
				if (c[1] == ',')
					model[0] = '\0';
				c = strchr(c + 1, ',') + 1;
				assert_int_equal(sscanf(c, "%lld,%lld,%lld", &nd[nn].cpu,
							&nd[nn].mem, &nd[nn].gpu),
						 3);
				nd[nn].model = *model ? gpumodel_find(model) : -1;
				nn++;
			}
			free(t);
			assert_int_equal(nn, sizes[z]);
			t = run(gen_write_jobs, &p, NULL);
			for (char *l = strchr(t, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
				long long cpu, mem, ng;
				char spec[64] = "";
				const char *c = l + 1;
				for (int k = 0; k < 4; k++)
					c = strchr(c, ',') + 1;
				assert_int_equal(sscanf(c, "%lld,%lld,%lld", &cpu, &mem, &ng), 3);
				const char *last = c; /* gpu_spec, the 13th field */
				for (int k = 4; k < 12; k++)
					last = strchr(last, ',') + 1;
				sscanf(last, "%63[^,\n]", spec);
				uint32_t mask = 0;
				assert_int_equal(gpumodel_mask(spec, &mask, NULL), 0);
				int fits = 0;
				for (int k = 0; k < nn && !fits; k++)
					fits = nd[k].cpu >= cpu && nd[k].mem >= mem &&
					       nd[k].gpu >= ng &&
					       (!ng || !mask ||
						(nd[k].model >= 0 && (mask & (1u << nd[k].model))));
				assert_true(fits);
			}
			free(t);
		}
	}
}

/* llm: the workers column; gangs of 2-64 whole nodes, never more than the cluster has;
 * other jobs on one node; the gangs hold most of the GPU time; the offered load counts
 * every worker. */
static void test_llm(void **state)
{
	(void)state;
	static const int64_t nodes[] = {64, 5, 1};
	for (size_t z = 0; z < sizeof nodes / sizeof *nodes; z++) {
		struct gen_params p = {
			.scenario = GEN_LLM, .njobs = 4000, .nnodes = nodes[z], .seed = 11};
		char *t = run(gen_write_jobs, &p, NULL);
		assert_memory_equal(t, GEN_JOBS_HEADER_GANG "\n", strlen(GEN_JOBS_HEADER_GANG) + 1);
		int64_t njobs = 0, gangs = 0, maxw = 0, cls[JOB_NCLASS] = {0};
		double gang_s = 0, all_s = 0, last = 0;
		char *save = NULL;
		for (char *l = strtok_r(strchr(t, '\n') + 1, "\n", &save); l;
		     l = strtok_r(NULL, "\n", &save)) {
			char cl[16];
			long long arr, dur, cpu, mem, ng, milli;
			assert_int_equal(sscanf(l, "%*[^,],%lld,%lld,%15[^,],%lld,%lld,%lld,%lld",
						&arr, &dur, cl, &cpu, &mem, &ng, &milli),
					 7);
			long long w = atoll(strrchr(l, ',') + 1);
			int c = -1;
			for (int k = 0; k < JOB_NCLASS; k++)
				if (!strcmp(cl, job_class_name((enum job_class)k)))
					c = k;
			assert_true(c >= 0 && c != JOB_CPU);
			cls[c]++;
			assert_true(ng >= 1 && ng <= 8 && milli == 1000);
			assert_true(w >= 1 && w <= 64 && w <= nodes[z]);
			if (w > 1) {
				gangs++;
				assert_int_equal(c, JOB_TRAIN);
				assert_int_equal(ng, 8); /* whole nodes */
				gang_s += (double)(w * ng * dur);
			}
			maxw = w > maxw ? w : maxw;
			all_s += (double)(w * ng * dur);
			last = (double)arr;
			njobs++;
		}
		free(t);
		assert_int_equal(njobs, 4000);
		if (nodes[z] == 1) {
			assert_int_equal(gangs, 0); /* no gang wider than a one-node cluster */
			continue;
		}
		assert_int_equal(maxw, nodes[z] < 64 ? nodes[z] : 64);
		/* 6 % of the jobs are pretraining gangs (binomial noise) */
		assert_in_range(gangs, 180, 300);
		assert_in_range(cls[JOB_BATCH], 1850, 2150);
		print_message("llm on %lld nodes: %lld gangs, %.0f %% of GPU time\n",
			      (long long)nodes[z], (long long)gangs, 100 * gang_s / all_s);
		if (nodes[z] == 64) /* a smaller cluster cuts the gangs to its size */
			assert_true(gang_s > 0.5 * all_s);
		double offered = all_s / ((double)cluster_gpus(&p) * last);
		assert_true(offered > 0.85 * 0.85 && offered < 0.85 * 1.15);
	}
}

static void test_faults(void **state)
{
	(void)state;
	struct gen_params p = {.scenario = GEN_HARD, .njobs = 2000, .nnodes = 64, .seed = 1};
	char *t = run(gen_write_faults, &p, NULL);
	int nsto = 0, nnet = 0, ngroup = 0;
	long long prev = -1;
	char *save = NULL;
	for (char *l = strtok_r(t, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (*l == '#')
			continue;
		char who[32], dim[8], dur[16];
		double frac;
		long long start;
		assert_int_equal(
			sscanf(l, "%31[^:]:%7[^=]=%lf@%lld+%15s", who, dim, &frac, &start, dur), 5);
		assert_true(start >= prev);
		prev = start;
		if (!strcmp(dim, "sto")) {
			assert_true(frac == 0.5);
			if (who[0] == 'n') {
				assert_string_equal(dur, "6h");
				nsto++;
			} else {
				assert_string_equal(who, "t4");
				assert_string_equal(dur, "2h");
				ngroup++;
			}
		} else {
			assert_string_equal(dim, "net");
			assert_true(frac == 0.25);
			assert_string_equal(dur, "30m");
			nnet++;
		}
	}
	/* 58 GPU nodes of 64: 10% rounded up is 6; 5% of 64 rounded up is 4. */
	assert_int_equal(nsto, 6);
	assert_int_equal(nnet, 4);
	assert_int_equal(ngroup, 1);
	free(t);
	p.scenario = GEN_BALANCED;
	t = run(gen_write_faults, &p, NULL);
	for (char *l = t; *l; l = strchr(l, '\n') + 1)
		assert_int_equal(*l, '#');
	free(t);
}

static void test_write_dir(void **state)
{
	(void)state;
	struct err e = {0};
	struct gen_params p = {.scenario = GEN_HARD, .njobs = 50, .nnodes = 8, .seed = 2};
	struct stat sb;
	assert_int_equal(gen_write(&p, "t-gen-out", &e), 0);
	assert_int_equal(stat("t-gen-out/faults.txt", &sb), 0);
	assert_int_equal(stat("t-gen-out/jobs.csv", &sb), 0);
	assert_int_not_equal(stat("t-gen-out/jobs.csv.tmp", &sb), 0);
	p.scenario = GEN_BALANCED;
	assert_int_equal(gen_write(&p, "t-gen-out", &e), 0);
	assert_int_not_equal(stat("t-gen-out/faults.txt", &sb), 0); /* stale one removed */
	remove("t-gen-out/jobs.csv");
	remove("t-gen-out/nodes.csv");
	remove("t-gen-out");
	p.njobs = 0;
	assert_int_equal(gen_write(&p, "t-gen-out", &e), VF_EINPUT);
	assert_string_equal(e.msg, "jobs '0': want 1..100000000");
	p.njobs = 5;
	p.nnodes = GEN_MAX_NODES + 1;
	assert_int_equal(gen_write(&p, "t-gen-out", &e), VF_EINPUT);
	assert_string_equal(e.msg, "nodes '1000001': want 1..1000000");
	p.nnodes = 5;
	assert_int_equal(gen_write(&p, "no-such-dir/sub", &e), VF_EIO);
	assert_non_null(strstr(e.msg, "no-such-dir/sub: "));
}

/* gen_files lists what gen_write writes, in its order: faults.txt only for hard. */
static void test_files(void **state)
{
	(void)state;
	const char *names[GEN_MAX_FILES];
	for (int s = 0; s < GEN_NSCENARIO; s++) {
		size_t n = gen_files(s, names);
		assert_int_equal(n, s == GEN_HARD ? 3 : 2);
		assert_string_equal(names[0], "nodes.csv");
		assert_string_equal(names[1], "jobs.csv");
		if (s == GEN_HARD)
			assert_string_equal(names[2], "faults.txt");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scenario_names),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_nodes_independent_of_jobs),
		cmocka_unit_test(test_nodes),
		cmocka_unit_test(test_jobs_and_load),
		cmocka_unit_test(test_small_cluster),
		cmocka_unit_test(test_every_job_fits),
		cmocka_unit_test(test_llm),
		cmocka_unit_test(test_faults),
		cmocka_unit_test(test_write_dir),
		cmocka_unit_test(test_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
