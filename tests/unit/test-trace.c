/* test-trace.c — trace formats: detection, the units and class rules of each mapping, bad
 * rows, and the stateful Google reader across part files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpumodel.h"
#include "trace.h"

/* A record built from "a,b,,c" (no quoting; an empty cell is NULL, as csvin gives it). */
struct rec {
	struct csvin_rec r;
	char *buf;
	const char *f[64];
	size_t len[64];
};

static struct csvin_rec *mk(struct rec *x, const char *text, int64_t line)
{
	memset(x, 0, sizeof *x);
	x->buf = xstrdup(text);
	size_t n = 0;
	char *p = x->buf;
	for (;;) {
		char *c = strchr(p, ',');
		if (c)
			*c = '\0';
		x->f[n] = *p ? p : NULL;
		x->len[n] = strlen(p);
		n++;
		if (!c)
			break;
		p = c + 1;
	}
	x->r.n = n;
	x->r.field = x->f;
	x->r.len = x->len;
	x->r.line = line;
	x->r.raw = text;
	x->r.rawlen = strlen(text);
	return &x->r;
}

struct sink {
	struct job_set set;
};

static int on_job(void *ctx, const struct job *j, struct err *e)
{
	(void)e;
	job_set_add_job(&((struct sink *)ctx)->set, j);
	return 0;
}

static int on_node(void *ctx, const struct node *n, struct err *e)
{
	(void)e;
	job_set_add_node(&((struct sink *)ctx)->set, n);
	return 0;
}

/* A reader of the format named name, started on header (NULL: header-less). */
static struct trace_reader *reader(const char *name, const char *header, struct sink *s)
{
	struct trace_sink ts = {s, on_job, on_node};
	struct trace_reader *rd;
	struct err e = {0};
	const struct trace_format *f = trace_format_find(name);
	assert_non_null(f);
	assert_int_equal(trace_reader_new(f, NULL, &ts, &rd, &e), 0);
	struct rec h;
	assert_int_equal(trace_reader_start(rd, header ? mk(&h, header, 1) : NULL, &e), 0);
	if (header)
		free(h.buf);
	return rd;
}

/* Feed one row; returns trace_reader_row's result. */
static int feed(struct trace_reader *rd, const char *row)
{
	struct rec x;
	struct err e = {0};
	int rc = trace_reader_row(rd, mk(&x, row, 2), &e);
	free(x.buf);
	return rc;
}

static const char *detect(const char *first, int *header)
{
	struct rec x;
	const struct trace_format *f = trace_detect(mk(&x, first, 1), header);
	free(x.buf);
	return f ? f->name : "none";
}

static const char pods_h[] = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,"
			     "pod_phase,creation_time,deletion_time,scheduled_time";
static const char dlrm_h[] = "instance_sn,role,app_name,cpu_request,cpu_limit,gpu_request,"
			     "gpu_limit,rdma_request,rdma_limit,memory_request,memory_limit,"
			     "disk_request,disk_limit,max_instance_per_node,creation_time,"
			     "scheduled_time,deletion_time";

static void test_detection(void **state)
{
	(void)state;
	int h;
	assert_string_equal(detect(pods_h, &h), "openb-pods");
	assert_int_equal(h, 1);
	/* pod lists without the time columns are openb pods too */
	assert_string_equal(detect("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,"
				   "pod_phase",
				   &h),
			    "openb-pods");
	assert_string_equal(detect("sn,cpu_milli,memory_mib,gpu,model", &h), "openb-nodes");
	assert_string_equal(detect(dlrm_h, &h), "dlrm");
	/* header-less files: by column count and a look at the first row */
	assert_string_equal(detect("7399a758eb02,CPU,96,512,0", &h), "pai-machine");
	assert_int_equal(h, 0);
	assert_string_equal(detect("j1,worker,2,Terminated,1000,1600,600,29.3,50,V100", &h),
			    "pai-task");
	assert_string_equal(detect("j1,i1,u1,Terminated,1000,1600", &h), "pai-job");
	assert_string_equal(detect("600000000,,3418309,0,4155527081,0,u,3,9,,,,", &h),
			    "google-task");
	assert_string_equal(detect("0,5,0,p1,0.5,0.2493", &h), "google-machine");
	assert_string_equal(detect("M1,10,j_1,1,Terminated,157213,157295,100,0.3", &h),
			    "ali2018-task");
	assert_string_equal(detect("m_1,0,1,2,96,100,USING", &h), "ali2018-machine");
	assert_string_equal(detect("6459,6524,3,4,15740,Terminated,50,0.0079", &h), "ali2017-task");
	assert_string_equal(detect("task_create_time,task_end_time,job_id,task_id,"
				   "number_of_instances,status,number_of_cpus_requested_per_"
				   "instance_in_the_task,normalized_memory_requested_per_instance_"
				   "in_the_task",
				   &h),
			    "ali2017-task");
	assert_int_equal(h, 1);
	assert_string_equal(detect("hello,world", &h), "none");
	assert_string_equal(detect("Dear planner", &h), "none");
	/* the five columns a pod needs are enough, in any order, among others */
	assert_string_equal(detect("name,cpu_milli,memory_mib,num_gpu,gpu_milli", &h),
			    "openb-pods");
	assert_int_equal(h, 1);
	assert_string_equal(detect("gpu_milli,qos,num_gpu,memory_mib,extra,cpu_milli,name", &h),
			    "openb-pods");
	assert_string_equal(detect("name,cpu_milli,memory_mib,num_gpu", &h), "none");
}

/* A header-less format's cells say one thing of each column, by position: as many letters
 * as columns, each one the detection heeds ('n' a number, 'o' a number or empty, 'w' a
 * word, 't' anything but a number). */
static void test_detection_cells(void **state)
{
	(void)state;
	for (const struct trace_format *const *f = trace_formats; *f; f++) {
		if (!(*f)->cells)
			continue;
		size_t n = 0;
		while ((*f)->columns[n])
			n++;
		assert_int_equal(strlen((*f)->cells), n);
		assert_int_equal(strspn((*f)->cells, "nowt."), n);
	}
	int h;
	assert_string_equal(detect("j1,i1,u1,Terminated,1000,1600", &h), "pai-job");
	assert_string_equal(detect("j1,i1,u1,Terminated,,1600", &h), "pai-job"); /* 'o' */
	assert_string_equal(detect("1,i1,u1,Terminated,1000,1600", &h), "none"); /* 't' */
	assert_string_equal(detect("j1,i1,u1,,1000,1600", &h), "none");          /* 'w' */
	assert_string_equal(detect("j1,i1,u1,5,1000,1600", &h), "none");         /* 'w' */
	assert_string_equal(detect("j1,i1,u1,Terminated,x,1600", &h), "none");   /* 'o' */
	assert_string_equal(detect("7399a758eb02,CPU,96,,0", &h), "none");       /* 'n' */
	assert_string_equal(detect("6459,6524,3,4,15740,Terminated,50,", &h), "ali2017-task");
	/* cells, then the event type's values */
	assert_string_equal(detect("0,m1,add,,64,0.5,0.3", &h), "ali2017-server");
	assert_string_equal(detect("0,m1,fix,,64,0.5,0.3", &h), "none");
	assert_string_equal(detect("0,5,3,p1,0.5,0.2493", &h), "none");
}

static const char *closest(const char *first, char *buf, size_t len)
{
	struct rec x;
	const struct trace_format *f = trace_closest(mk(&x, first, 1), buf, len);
	free(x.buf);
	return f ? f->name : "none";
}

/* No format matches: the one nearest (largest share of its required columns) is named with
 * what it lacks. */
static void test_closest_format(void **state)
{
	(void)state;
	char buf[256];
	assert_string_equal(closest("name,cpu_milli,memory_mib,num_gpu", buf, sizeof buf),
			    "openb-pods");
	assert_string_equal(buf, "openb-pods, which lacks 'gpu_milli'");
	assert_string_equal(closest("sn,cpu_milli,memory_mib", buf, sizeof buf), "openb-nodes");
	assert_string_equal(buf, "openb-nodes, which lacks 'gpu', 'model'");
	/* 3 of dlrm's 17 required columns weigh less than 1 of openb-pods' 5 */
	assert_string_equal(closest("instance_sn,role,app_name,name", buf, sizeof buf),
			    "openb-pods");
	assert_string_equal(closest("instance_sn,role,app_name", buf, sizeof buf), "dlrm");
	assert_non_null(strstr(buf, "dlrm, which lacks 'cpu_request', 'cpu_limit', "));
	assert_string_equal(closest("hello,world", buf, sizeof buf), "none");
	assert_string_equal(buf, "");
	/* a short buffer is cut, not overrun */
	char small[12];
	assert_string_equal(closest("sn", small, sizeof small), "openb-nodes");
	assert_string_equal(small, "openb-nodes");
}

/* A forced format's header lacking required columns: every missing one is named. */
static void test_header_lacks_columns(void **state)
{
	(void)state;
	struct trace_sink ts = {NULL, on_job, on_node};
	struct trace_reader *rd;
	struct err e = {0};
	struct rec h;
	assert_int_equal(trace_reader_new(trace_format_find("openb-pods"), NULL, &ts, &rd, &e), 0);
	assert_int_equal(trace_reader_start(rd, mk(&h, "cpu_milli,num_gpu,qos", 1), &e), VF_EINPUT);
	assert_string_equal(e.msg, "header lacks 'name', 'memory_mib', 'gpu_milli' of format "
				   "openb-pods");
	free(h.buf);
	trace_reader_free(rd);
}

static void test_openb_pods_units_and_classes(void **state)
{
	(void)state;
	struct sink s = {0};
	struct trace_reader *rd = reader("openb-pods", pods_h, &s);
	assert_int_equal(feed(rd, "p0,12000,16384,1,460,,LS,Running,100,1100,200"), 0);
	assert_int_equal(feed(rd, "p1,6000,8192,2,1000,V100M16|V100M32,Burstable,Running,5,9,5"),
			 0);
	assert_int_equal(feed(rd, "p2,1000,1024,1,1000,,BE,Pending,30,40,"), 0);
	assert_int_equal(feed(rd, "p3,1000,1024,0,0,,LS,Running,1,2,1"), 0);
	assert_int_equal(s.set.njobs, 4);
	struct job *j = s.set.jobs;
	assert_int_equal(j[0].cls, JOB_INFER);
	assert_int_equal(j[0].arrival, 100);
	assert_int_equal(j[0].duration, 900); /* deletion - scheduled */
	assert_int_equal(j[0].dem[DIM_GPU], 460);
	assert_int_equal(j[0].dem[DIM_HBM], -1); /* the trace does not say */
	assert_int_equal(j[0].dem[DIM_NET], -1);
	assert_int_equal(j[1].cls, JOB_TRAIN);
	assert_int_equal(j[1].dem[DIM_GPU], 2000);
	uint32_t mask;
	assert_int_equal(gpumodel_mask("V100M16|V100M32", &mask, NULL), 0);
	assert_int_equal(j[1].gpu_spec, mask);
	assert_int_equal(j[2].cls, JOB_BATCH);
	assert_int_equal(j[2].duration, -1);
	assert_true(j[2].flags & JOB_F_NOTRAN);
	assert_int_equal(j[3].cls, JOB_CPU);
	/* bad rows: reasons name the column */
	assert_int_equal(feed(rd, "p4,abc,1,0,0,,LS,Running,1,2,1"), TRACE_BAD);
	assert_string_equal(rd->why, "column 'cpu_milli': 'abc' is not a number");
	assert_int_equal(feed(rd, "p5,1,-1,0,0,,LS,Running,1,2,1"), TRACE_BAD);
	assert_string_equal(rd->why, "column 'memory_mib': negative value -1");
	assert_int_equal(feed(rd, "p6,1,1,0,0,,LS,Running,1,2"), TRACE_BAD);
	assert_string_equal(rd->why, "10 columns, expected 11");
	assert_int_equal(feed(rd, "p7,1,1,1,1200,,LS,Running,1,2,1"), TRACE_BAD);
	assert_string_equal(rd->why, "GPU share 1200 outside 1..1000");
	assert_int_equal(feed(rd, "p8,1,1,0,0,,LS,Running,10,5,8"), TRACE_BAD);
	assert_int_equal(s.set.njobs, 4);
	/* numbers that are not plain integers go through strtod, rounded */
	assert_int_equal(feed(rd, "p10,1.5e3,007,0,0,,LS,Running,2.5,4,2.5"), 0);
	assert_int_equal(s.set.jobs[4].dem[DIM_CPU], 1500);
	assert_int_equal(s.set.jobs[4].dem[DIM_MEM], 7);
	assert_int_equal(s.set.jobs[4].arrival, 3);
	assert_int_equal(s.set.jobs[4].duration, 1); /* 4 - round(2.5) */
	assert_int_equal(feed(rd, "p11,-0.5,1,0,0,,LS,Running,1,2,1"), TRACE_BAD);
	/* but not hex floats nor leading blanks (csvin keeps them only inside quotes) */
	assert_int_equal(feed(rd, "p12,0x1p3,1,0,0,,LS,Running,1,2,1"), TRACE_BAD);
	assert_string_equal(rd->why, "column 'cpu_milli': '0x1p3' is not a number");
	assert_int_equal(feed(rd, "p13,1, 12,0,0,,LS,Running,1,2,1"), TRACE_BAD);
	assert_string_equal(rd->why, "column 'memory_mib': ' 12' is not a number");
	assert_int_equal(feed(rd, "p14,1,12,0,0,,LS,Running,1,2,\t1"), TRACE_BAD);
	assert_int_equal(feed(rd, "p15,1,12,0,0,,LS,Running,1,2,0x10"), TRACE_BAD);
	assert_int_equal(feed(rd, "p16,1,12,0,0,,LS,Running,1,2,inf"), TRACE_BAD);
	s.set.njobs = 4;
	trace_reader_free(rd);

	/* a pod list without times: arrival 0, duration unknown but not "never ran" */
	rd = reader("openb-pods",
		    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase", &s);
	assert_int_equal(feed(rd, "p9,1000,1024,1,500,,LS,Running"), 0);
	j = &s.set.jobs[4];
	assert_int_equal(j->arrival, 0);
	assert_int_equal(j->duration, -1);
	assert_false(j->flags & JOB_F_NOTRAN);
	trace_reader_free(rd);

	/* only the five required columns: no qos (a GPU pod trains), any model */
	rd = reader("openb-pods", "name,cpu_milli,memory_mib,num_gpu,gpu_milli", &s);
	assert_int_equal(feed(rd, "q0,8000,16384,2,1000"), 0);
	assert_int_equal(feed(rd, "q1,2000,4096,0,0"), 0);
	assert_int_equal(feed(rd, "q2,x,4096,0,0"), TRACE_BAD);
	assert_string_equal(rd->why, "column 'cpu_milli': 'x' is not a number");
	j = &s.set.jobs[5];
	assert_int_equal(j[0].dem[DIM_CPU], 8000);
	assert_int_equal(j[0].dem[DIM_GPU], 2000);
	assert_int_equal(j[0].cls, JOB_TRAIN);
	assert_int_equal(j[0].gpu_spec, 0);
	assert_int_equal(j[0].arrival, 0);
	assert_int_equal(j[0].duration, -1);
	assert_false(j[0].flags & JOB_F_NOTRAN);
	assert_int_equal(j[1].cls, JOB_CPU);
	trace_reader_free(rd);

	/* creation times but no scheduled_time column: arrivals kept, durations unknown, not
	 * "never ran" (as an empty scheduled_time cell would say) */
	rd = reader("openb-pods",
		    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time,"
		    "deletion_time",
		    &s);
	assert_int_equal(feed(rd, "r0,1000,1024,1,500,60,900"), 0);
	j = &s.set.jobs[7];
	assert_int_equal(j->arrival, 60);
	assert_int_equal(j->duration, -1);
	assert_false(j->flags & JOB_F_NOTRAN);
	assert_int_equal(feed(rd, "r1,1000,1024,1,500,,900"), TRACE_BAD);
	assert_string_equal(rd->why, "column 'creation_time' is empty");
	assert_int_equal(s.set.njobs, 8);
	trace_reader_free(rd);
	job_set_release(&s.set);
}

static void test_openb_nodes_hbm_from_model(void **state)
{
	(void)state;
	struct sink s = {0};
	struct trace_reader *rd = reader("openb-nodes", "sn,cpu_milli,memory_mib,gpu,model", &s);
	assert_int_equal(feed(rd, "n0,96000,393216,8,V100M32"), 0);
	assert_int_equal(feed(rd, "n1,32000,262144,0,"), 0);
	assert_int_equal(feed(rd, "n2,32000,262144,2,NOSUCH"), 0);
	struct node *n = s.set.nodes;
	assert_int_equal(n[0].cap[DIM_GPU], 8000);
	assert_int_equal(n[0].cap[DIM_HBM], 8 * 32768);
	assert_int_equal(n[0].ngpu, 8);
	assert_int_equal(n[0].cap[DIM_NET], -1);
	assert_int_equal(n[1].model, -1);
	assert_int_equal(n[1].cap[DIM_HBM], 0);
	assert_int_equal(n[2].model, gpumodel_unknown()); /* labelled default, not zero */
	assert_int_equal(n[2].cap[DIM_HBM], 2 * gpumodel_get(gpumodel_unknown())->hbm_mib);
	trace_reader_free(rd);
	job_set_release(&s.set);
}

static void test_dlrm_units_and_window(void **state)
{
	(void)state;
	struct sink s = {0};
	struct trace_reader *rd = reader("dlrm", dlrm_h, &s);
	assert_int_equal(feed(rd, "i0,HN,app_0,12,12,1,1,25,25,120.0,120.0,640.0,800.0,8,,,"), 0);
	assert_int_equal(feed(rd, "i1,CN,app_1,96,96,0,0,1,1,480.0,480.0,425.0,500.0,-1,"
				  "2676636.0,2676679.0,2676700.4"),
			 0);
	struct job *j = s.set.jobs;
	assert_int_equal(j[0].cls, JOB_INFER);
	assert_int_equal(j[0].dem[DIM_CPU], 12000);
	assert_int_equal(j[0].dem[DIM_MEM], 120 * 1024);
	assert_int_equal(j[0].dem[DIM_GPU], 1000);
	assert_int_equal(j[0].dem[DIM_NET], 25 * 12500 / 100); /* % of a 100 Gb/s NIC */
	assert_int_equal(j[0].dem[DIM_STO], -1);               /* disk_request is space */
	assert_int_equal(j[0].arrival, 0);                     /* before the window */
	assert_int_equal(j[0].duration, 31 * 86400);           /* to its end */
	assert_int_equal(j[1].cls, JOB_CPU);
	assert_int_equal(j[1].arrival, 2676636);
	assert_int_equal(j[1].duration, 2676700 - 2676679);
	assert_int_equal(feed(rd, "i2,XN,app_1,1,1,0,0,1,1,1,1,1,1,-1,,,"), TRACE_BAD);
	assert_int_equal(feed(rd, "i3,CN,app_1,1,1,0,0,1,1,1,1,1,1,-1,10,5,20"), TRACE_BAD);
	trace_reader_free(rd);
	job_set_release(&s.set);
}

static void test_google_tasks_span_part_files(void **state)
{
	(void)state;
	struct sink s = {0};
	struct trace_reader *rd = reader("google-task", NULL, &s);
	/* part 0: task (7,0) submitted and scheduled; (7,1) submitted only */
	assert_int_equal(feed(rd, "0,,7,0,,0,u,0,0,0.5,0.25,0,0"), 0);
	assert_int_equal(feed(rd, "1000000,,7,0,1,1,u,0,0,,,,"), 0);
	assert_int_equal(feed(rd, "2000000,,7,1,,0,u,0,0,0.25,0.25,0,0"), 0);
	assert_int_equal(s.set.njobs, 0);
	/* part 1 (a new file for the same reader) */
	struct err e = {0};
	assert_int_equal(trace_reader_start(rd, NULL, &e), 0);
	assert_int_equal(feed(rd, "4000000,,7,0,1,2,u,0,0,,,,"), 0); /* EVICT: ran 3 s */
	assert_int_equal(feed(rd, "6000000,,7,0,2,1,u,0,0,,,,"), 0); /* SCHEDULE again */
	assert_int_equal(feed(rd, "9500000,,7,0,2,4,u,0,0,,,,"), 0); /* FINISH: 3.5 s more */
	assert_int_equal(s.set.njobs, 1);
	assert_int_equal(s.set.jobs[0].arrival, 0);
	assert_int_equal(s.set.jobs[0].duration, 7); /* 6.5 s, rounded half away from zero */
	assert_int_equal(s.set.jobs[0].dem[DIM_CPU], 16000);
	assert_int_equal(s.set.jobs[0].dem[DIM_MEM], 32768);
	assert_int_equal(feed(rd, "1,,7,0,2,12,u,0,0,,,,"), TRACE_BAD);
	assert_int_equal(trace_reader_finish(rd, &e), 0);
	assert_int_equal(s.set.njobs, 2); /* (7,1) never ran */
	assert_int_equal(s.set.jobs[1].arrival, 2);
	assert_true(s.set.jobs[1].flags & JOB_F_NOTRAN);
	trace_reader_free(rd);
	job_set_release(&s.set);
}

/* IDs past 2^53, where a double no longer tells neighbours apart, stay apart; an ID that is
 * not a whole number is refused. */
static void test_google_ids_exact(void **state)
{
	(void)state;
	struct sink s = {0};
	struct trace_reader *rd = reader("google-task", NULL, &s);
	/* 2^53 and 2^53 + 1: one double, two jobs */
	assert_int_equal(feed(rd, "0,,9007199254740992,0,,0,u,0,0,0.5,0.25,0,0"), 0);
	assert_int_equal(feed(rd, "0,,9007199254740993,0,,0,u,0,0,0.25,0.25,0,0"), 0);
	assert_int_equal(feed(rd, "1000000,,9007199254740992,0,1,1,u,0,0,,,,"), 0);
	assert_int_equal(feed(rd, "2000000,,9007199254740993,0,1,1,u,0,0,,,,"), 0);
	assert_int_equal(feed(rd, "5000000,,9007199254740993,0,1,4,u,0,0,,,,"), 0);
	assert_int_equal(feed(rd, "7000000,,9007199254740992,0,1,4,u,0,0,,,,"), 0);
	assert_int_equal(s.set.njobs, 2);
	assert_int_equal(s.set.jobs[0].duration, 3); /* 2^53 + 1: scheduled at 2 s, done at 5 */
	assert_int_equal(s.set.jobs[0].dem[DIM_CPU], 8000);
	assert_int_equal(s.set.jobs[1].duration, 6); /* 2^53: 1 s to 7 s */
	assert_int_equal(s.set.jobs[1].dem[DIM_CPU], 16000);
	assert_int_equal(feed(rd, "0,,7.5,0,,0,u,0,0,0.5,0.25,0,0"), TRACE_BAD);
	assert_int_equal(feed(rd, "0,,9223372036854775808,0,,0,u,0,0,0.5,0.25,0,0"), TRACE_BAD);
	assert_string_equal(rd->why, "job ID or task index is not a whole number below 2^63");
	trace_reader_free(rd);
	job_set_release(&s.set);
}

static void test_pai_task_instances_and_gpus(void **state)
{
	(void)state;
	struct sink s = {0};
	struct trace_reader *rd = reader("pai-task", NULL, &s);
	assert_int_equal(feed(rd, "j,t,3,Terminated,10,20,600,2,250,T4"), 0);
	assert_int_equal(s.set.njobs, 1); /* one job of 3 workers, each an instance */
	struct job *j = s.set.jobs;
	assert_int_equal(j[0].workers, 3);
	assert_int_equal(j[0].dem[DIM_CPU], 6000);
	assert_int_equal(j[0].dem[DIM_MEM], 2048);
	assert_int_equal(j[0].num_gpu, 3); /* 2.5 GPUs: three whole ones */
	assert_int_equal(j[0].gpu_milli, 1000);
	assert_int_equal(j[0].cls, JOB_TRAIN);
	assert_int_equal(j[0].gpu_spec, 1u << gpumodel_find("T4"));
	assert_int_equal(feed(rd, "j,t,0,Terminated,10,20,600,2,25,T4"), TRACE_BAD);
	assert_string_equal(rd->why, "column 'inst_num': no instances");
	trace_reader_free(rd);
	job_set_release(&s.set);
}

/* Native job rows: each job gets its own gpu_spec's models however specs repeat or
 * alternate, and a bad spec after good ones is still refused. */
static void test_native_jobs_specs(void **state)
{
	(void)state;
	struct sink s = {0};
	struct trace_reader *rd =
		reader("native-jobs",
		       "job,arrival,duration,class,cpu_milli,mem_mib,num_gpu,gpu_milli,hbm_mib,"
		       "net_mbps,sto_mbps,iocpu_milli,gpu_spec",
		       &s);
	static const char *const spec[] = {"T4|A10", "T4|A10", "A100", "", "T4|A10", "A100"};
	for (size_t i = 0; i < sizeof spec / sizeof *spec; i++) {
		char row[160];
		snprintf(row, sizeof row, "j%zu,%zu,60,train,1000,1024,1,1000,,10,10,100,%s", i, i,
			 spec[i]);
		assert_int_equal(feed(rd, row), 0);
	}
	assert_int_equal(s.set.njobs, 6);
	uint32_t t4a10 = 1u << gpumodel_find("T4") | 1u << gpumodel_find("A10");
	uint32_t a100 = 1u << gpumodel_find("A100");
	uint32_t want[] = {t4a10, t4a10, a100, 0, t4a10, a100};
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(s.set.jobs[i].gpu_spec, want[i]);
	/* A name the table lacks allows the UNKNOWN row, where nodes of that name go, and is
	 * counted, each time (a spec naming it is not memoised). */
	for (int i = 0; i < 2; i++)
		assert_int_equal(feed(rd, "j9,9,60,train,1000,1024,1,1000,,10,10,100,A100|B200x"),
				 0);
	assert_int_equal(s.set.jobs[7].gpu_spec, a100 | 1u << gpumodel_unknown());
	assert_int_equal(rd->nunknown, 1);
	assert_string_equal(rd->unknown[0].name, "B200x");
	assert_int_equal(rd->unknown[0].jobs, 2);
	assert_int_equal(feed(rd, "j9,9,60,train,1000,1024,1,1000,,10,10,100,A100||T4"), TRACE_BAD);
	assert_non_null(strstr(rd->why, "gpu spec 'A100||T4': '' is not a GPU model name"));
	assert_int_equal(feed(rd, "j9,9,60,tran,1000,1024,1,1000,,10,10,100,A100"), TRACE_BAD);
	assert_non_null(strstr(rd->why, "'tran' is not infer, train, batch or cpu"));
	trace_reader_free(rd);
	job_set_release(&s.set);
}

static void test_helpers(void **state)
{
	(void)state;
	assert_int_equal(trace_round(2.5), 3);
	assert_int_equal(trace_round(-2.5), -3);
	assert_int_equal(trace_round(2.4999), 2);
	assert_true(trace_is_number("1e3", 0));
	assert_false(trace_is_number("", 0));
	assert_true(trace_is_number(NULL, 1));
	assert_false(trace_is_number("12a", 1));
	assert_false(trace_is_number(" 12", 0));
	assert_false(trace_is_number("0x1p3", 0));
	struct trace_nameset *set = NULL;
	char name[32];
	for (int i = 0; i < 1000; i++) {
		snprintf(name, sizeof name, "m%d", i);
		assert_int_equal(trace_nameset_add(&set, name), 1);
	}
	assert_int_equal(trace_nameset_add(&set, "m500"), 0);
	assert_int_equal(trace_nameset_add(&set, "m1000"), 1);
	trace_nameset_free(set);
	/* with values: the first one stays, through growth */
	set = NULL;
	const char *first = NULL;
	assert_int_equal(trace_nameset_put(&set, "n0", "a.csv:2", &first), 1);
	assert_null(first);
	for (int i = 1; i < 500; i++) {
		char where[32];
		snprintf(name, sizeof name, "n%d", i);
		snprintf(where, sizeof where, "a.csv:%d", i + 2);
		assert_int_equal(trace_nameset_put(&set, name, where, NULL), 1);
	}
	assert_int_equal(trace_nameset_put(&set, "n0", "b.csv:9", &first), 0);
	assert_string_equal(first, "a.csv:2");
	assert_int_equal(trace_nameset_put(&set, "n321", "b.csv:10", &first), 0);
	assert_string_equal(first, "a.csv:323");
	assert_int_equal(trace_nameset_add(&set, "n7"), 0);
	assert_int_equal(trace_nameset_add(&set, "x"), 1);
	assert_int_equal(trace_nameset_put(&set, "x", "c.csv:1", &first), 0);
	assert_string_equal(first, "");
	trace_nameset_free(set);
	trace_nameset_free(NULL);
	trace_reader_free(NULL);
	assert_null(trace_format_find("nosuch"));
}

/* The row helpers: trace_amounts reads in order and stops at the first bad amount, leaving
 * the rest unread; trace_job_span names the two times in the row's words. */
static void test_row_helpers(void **state)
{
	(void)state;
	struct sink s = {0};
	struct trace_reader *rd = reader("dlrm", dlrm_h, &s);
	struct rec r;
	int64_t cpu = -7, mem = -7, gpu = -7;
	const struct trace_amount_of a[] = {{3, 1000, &cpu}, {9, 1024, &mem}, {5, 1, &gpu}};
	mk(&r, "i1,HN,a,1.5,,,,,,x,,,,,,,", 2);
	assert_int_equal(trace_amounts(rd, &r.r, a, 3), TRACE_BAD);
	assert_string_equal(rd->why, "column 'memory_request': 'x' is not a number");
	assert_int_equal(cpu, 1500);
	assert_int_equal(gpu, -7);
	free(r.buf);
	mk(&r, "i1,HN,a,1.5,,2,,,,2,,,,,,,", 2);
	assert_int_equal(trace_amounts(rd, &r.r, a, 3), 0);
	assert_int_equal(mem, 2048);
	assert_int_equal(gpu, 2);
	free(r.buf);
	struct job j;
	job_init(&j);
	assert_int_equal(trace_job_span(rd, &j, 20, 15, "scheduled_time", "deletion_time"),
			 TRACE_BAD);
	assert_string_equal(rd->why, "deletion_time 15 before scheduled_time 20");
	assert_int_equal(trace_job_span(rd, &j, 20, 35, "a", "b"), 0);
	assert_int_equal(j.duration, 15);
	trace_reader_free(rd);
	job_set_release(&s.set);
}

/* The first of rd's columns that the file has. */
static int first_mapped(const struct trace_reader *rd)
{
	int k = 0;
	while ((size_t)k < rd->ncol && rd->col[k] < 0)
		k++;
	assert_true((size_t)k < rd->ncol);
	return k;
}

/* trace_num's fast decimal path gives exactly strtod's double, on edge cases and on many
 * random decimals (the slow path takes what the fast one declines). */
static void test_num_matches_strtod(void **state)
{
	(void)state;
	struct sink s = {0};
	struct trace_reader *rd = reader("dlrm", dlrm_h, &s);
	int k = first_mapped(rd);
	static const char *const edge[] = {"0",
					   "-0",
					   "-0.0",
					   "0.1",
					   "0.3",
					   "120.0",
					   "2057225.0000000002",
					   "1234567890.12345",
					   "999999999999999",
					   "9007199254740993",
					   "0.000000000000001",
					   "00012.50",
					   "1e3",
					   "5.",
					   ".5",
					   "-7.25",
					   "123456789012.345",
					   "0.1234567890123456789"};
	char text[64], row[64 * 17 + 17];
	uint32_t x = 7;
	for (size_t t = 0; t < 20000; t++) {
		if (t < sizeof edge / sizeof *edge) {
			snprintf(text, sizeof text, "%s", edge[t]);
		} else { /* digits, maybe a point, maybe a minus: up to 18 digits */
			size_t n = 0, nd = 1 + (x >> 8) % 18, dot = (x >> 16) % (nd + 1);
			if ((x >> 4) % 5 == 0)
				text[n++] = '-';
			for (size_t i = 0; i < nd; i++) {
				x = x * 1103515245u + 12345u;
				if (i == dot && i)
					text[n++] = '.';
				text[n++] = (char)('0' + (x >> 16) % 10);
			}
			text[n] = '\0';
		}
		x = x * 1103515245u + 12345u;
		row[0] = '\0';
		for (int f = 0; f < 17; f++) {
			strcat(row, f ? "," : "");
			strcat(row, text);
		}
		struct rec r;
		double got = -1, want = strtod(text, NULL);
		assert_int_equal(trace_num(rd, mk(&r, row, 2), k, &got), 0);
		free(r.buf);
		if (memcmp(&got, &want, sizeof got))
			fail_msg("'%s': %.17g, strtod %.17g", text, got, want);
	}
	trace_reader_free(rd);
	job_set_release(&s.set);
}

/* trace_amount's fast paths give exactly what strtod, the scale and trace_round give (or
 * refuse what they refuse), on edge cases (eight digits read as one word among them) and on
 * many random numbers of up to 22 digits, long fractions around .4 and .5 and .6 among
 * them. */
static void test_amount_matches_strtod(void **state)
{
	(void)state;
	struct sink s = {0};
	struct trace_reader *rd = reader("dlrm", dlrm_h, &s);
	int k = first_mapped(rd);
	static const char *const edge[] = {
		"0", "-0", "-0.0", "-1", "-0.5", "2.5", "0.5", "120.0", "475.00000000000006",
		"2057225.0000000002", "0.49999999999999999", "0.50000000000000001",
		"0.39999999999999999999", "0.60000000000000000001", "2.4999999999999999999",
		"999999999999999.69999", "999999999999999.3", "99999999999999.9999999",
		"1234567890123456", "1234567890123456.7", "9000000000000001", "9000000000000.5",
		"12.", ".5", "1e3", "00012.50", "12.34.5", "12.3x", "12.7777777777777777x", "+5",
		"abc",
		/* eight digits and more: a word at a time */
		"12345678", "00000000", "99999999", "12537496", "12345678.5", "123456789012345",
		"1234567/", "1234567:", "12345678x", "1234567a8", "1234567.8"};
	static const double scales[] = {1, 1000, 1024};
	char text[64], row[64 * 17 + 17];
	uint32_t x = 11;
	for (size_t t = 0; t < 30000; t++) {
		size_t ne = sizeof edge / sizeof *edge;
		if (t < ne * 3) {
			snprintf(text, sizeof text, "%s", edge[t / 3]);
		} else { /* digits, maybe a point, maybe a minus: up to 22 digits */
			size_t n = 0, nd = 1 + (x >> 8) % 22, dot = (x >> 16) % (nd + 1);
			if ((x >> 4) % 9 == 0)
				text[n++] = '-';
			int run =
				(x >> 20) % 4; /* a fraction of one repeated digit (4, 5, 9 or 0) */
			for (size_t i = 0; i < nd; i++) {
				x = x * 1103515245u + 12345u;
				if (i == dot && i)
					text[n++] = '.';
				char d = (char)('0' + (x >> 16) % 10);
				if (run && dot && i > dot)
					d = "0459"[run];
				text[n++] = d;
			}
			text[n] = '\0';
		}
		x = x * 1103515245u + 12345u;
		double scale = scales[t % 3];
		row[0] = '\0';
		for (int f = 0; f < 17; f++) {
			strcat(row, f ? "," : "");
			strcat(row, text);
		}
		char *end;
		double v = strtod(text, &end);
		int want_bad = *end || v < 0 || v * scale > 9e15;
		int64_t want = want_bad ? 0 : trace_round(v * scale), got = -7;
		struct rec r;
		int rc = trace_amount(rd, mk(&r, row, 2), k, scale, &got);
		free(r.buf);
		if (want_bad ? rc == 0 : rc != 0 || got != want)
			fail_msg("'%s' x %g: rc %d, %lld; strtod gives %s%lld", text, scale, rc,
				 (long long)got, want_bad ? "a bad row " : "", (long long)want);
	}
	trace_reader_free(rd);
	job_set_release(&s.set);
}

static void test_generic_mapping_errors(void **state)
{
	(void)state;
	struct trace_map *m;
	struct err e = {0};
	assert_int_equal(trace_map_load("simple-jobs", &m, &e), 0);
	assert_string_equal(trace_map_name(m), "simple-jobs");
	assert_int_equal(trace_map_is_nodes(m), 0);
	trace_map_free(m);
	FILE *f = fopen("bad.map", "w");
	fputs("kind jobs\ncpu\n", f);
	fclose(f);
	assert_int_equal(trace_map_load("./bad.map", &m, &e), VF_EINPUT);
	remove("bad.map");
	assert_string_equal(e.msg,
			    "./bad.map:2: 'cpu' needs a column: 'cpu COLUMN [SCALE]' or 'cpu = "
			    "EXPRESSION'");
	f = fopen("bad2.map", "w");
	fputs("class q a=gpu\n", f);
	fclose(f);
	assert_int_equal(trace_map_load("./bad2.map", &m, &e), VF_EINPUT);
	remove("bad2.map");
	assert_non_null(strstr(e.msg, "'a=gpu' is not VALUE=CLASS"));
}

/* ISO 8601 times with and without a zone, and --tz values. */
static void test_times(void **state)
{
	(void)state;
	int64_t t, off;
	assert_int_equal(trace_time_parse("1970-01-01", 0, &t), 0);
	assert_int_equal(t, 0);
	assert_int_equal(trace_time_parse("2020-04-01 09:30:00", 0, &t), 0);
	assert_int_equal(t, 1585733400); /* date -u -d '2020-04-01 09:30:00' +%s */
	assert_int_equal(trace_time_parse("2020-04-01T09:30:00Z", 3600, &t), 0);
	assert_int_equal(t, 1585733400); /* a zone wins over --tz */
	assert_int_equal(trace_time_parse("2020-04-01 17:30:00+08:00", 0, &t), 0);
	assert_int_equal(t, 1585733400);
	assert_int_equal(trace_time_parse("2020-04-01T04:00:00.6-0530", 0, &t), 0);
	assert_int_equal(t, 1585733401);
	assert_int_equal(trace_time_parse("2020-04-01 17:30", 8 * 3600, &t), 0);
	assert_int_equal(t, 1585733400); /* naive: at --tz */
	assert_int_equal(trace_time_parse("2024-02-29 00:00:00", 0, &t), 0);
	assert_int_equal(t, 1709164800);
	assert_int_equal(trace_time_parse("2020-13-01", 0, &t), -1);
	assert_int_equal(trace_time_parse("2020-04-01 25:00", 0, &t), -1);
	assert_int_equal(trace_time_parse("2020-04-01 09:30:00 CEST", 0, &t), -1);
	assert_int_equal(trace_time_parse("20200401", 0, &t), -1);
	assert_int_equal(trace_tz_parse("+08:00", &off), 0);
	assert_int_equal(off, 8 * 3600);
	assert_int_equal(trace_tz_parse("-0530", &off), 0);
	assert_int_equal(off, -(5 * 3600 + 1800));
	assert_int_equal(trace_tz_parse("UTC", &off), 0);
	assert_int_equal(off, 0);
	assert_int_equal(trace_tz_parse("Europe/Paris", &off), -1);
	assert_int_equal(trace_tz_parse("+25", &off), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detection),
		cmocka_unit_test(test_detection_cells),
		cmocka_unit_test(test_row_helpers),
		cmocka_unit_test(test_closest_format),
		cmocka_unit_test(test_header_lacks_columns),
		cmocka_unit_test(test_openb_pods_units_and_classes),
		cmocka_unit_test(test_openb_nodes_hbm_from_model),
		cmocka_unit_test(test_dlrm_units_and_window),
		cmocka_unit_test(test_google_tasks_span_part_files),
		cmocka_unit_test(test_google_ids_exact),
		cmocka_unit_test(test_pai_task_instances_and_gpus),
		cmocka_unit_test(test_native_jobs_specs),
		cmocka_unit_test(test_helpers),
		cmocka_unit_test(test_num_matches_strtod),
		cmocka_unit_test(test_amount_matches_strtod),
		cmocka_unit_test(test_generic_mapping_errors),
		cmocka_unit_test(test_times),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
