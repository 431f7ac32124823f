/* test-outfile.c — output files: new, replaced, refused, written through, raced, swept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "outfile.h"

/* Each test runs in a directory of its own (in the one it starts in), removed after. */
static int enter(void **state)
{
	char cwd[4096], *dir;
	if (!getcwd(cwd, sizeof cwd - 32))
		return -1;
	dir = malloc(strlen(cwd) + 32);
	sprintf(dir, "%s/test-outfile.XXXXXX", cwd);
	if (!mkdtemp(dir))
		return -1;
	*state = dir;
	return chdir(dir);
}

static int leave(void **state)
{
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", (char *)*state);
	free(*state);
	return chdir("..") || system(cmd);
}

static char *slurp(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	buf[n] = '\0';
	if (f)
		fclose(f);
	return buf;
}

/* Names in the current directory, sorted, joined by blanks. */
static char *listing(void)
{
	static char buf[512];
	FILE *p = popen("ls -A | sort | tr '\\n' ' '", "r");
	size_t n = fread(buf, 1, sizeof buf - 1, p);
	buf[n] = '\0';
	pclose(p);
	return buf;
}

static void test_new_and_replace(void **state)
{
	(void)state;
	struct err e = {0};
	struct outfile o;
	assert_int_equal(outfile_put("a.txt", 0, "one", 3, &e), 0);
	assert_string_equal(slurp("a.txt"), "one");
	/* a regular file is replaced only when allowed */
	assert_int_equal(outfile_put("a.txt", 0, "two", 3, &e), VF_EDUP);
	assert_string_equal(e.msg, "a.txt: File exists");
	assert_int_equal(outfile_put("a.txt", OUTFILE_REPLACE, "two", 3, &e), 0);
	assert_string_equal(slurp("a.txt"), "two");
	/* nothing is at the path until the commit; an abort leaves the path as it was */
	assert_int_equal(outfile_open(&o, "b.txt", 0, &e), 0);
	assert_false(outfile_is_stream(&o));
	fputs("half", o.f);
	assert_int_equal(access("b.txt", F_OK), -1);
	outfile_abort(&o);
	outfile_abort(&o);
	assert_string_equal(listing(), "a.txt ");
	/* modes: the umask applies; OUTFILE_EXEC makes a script */
	mode_t old = umask(022);
	assert_int_equal(outfile_put("x.sh", OUTFILE_EXEC, "#!/bin/sh\n", 10, &e), 0);
	umask(old);
	struct stat sb;
	assert_int_equal(stat("x.sh", &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0755);
}

static void test_refused(void **state)
{
	(void)state;
	struct err e = {0};
	assert_int_equal(symlink("target", "link"), 0);
	assert_int_equal(outfile_put("link", OUTFILE_REPLACE, "x", 1, &e), VF_EINPUT);
	assert_string_equal(e.msg, "link: a symbolic link, not followed");
	assert_int_equal(access("target", F_OK), -1);
	/* followed: a link to nothing is refused, one to a file writes the file */
	assert_int_equal(outfile_put("link", OUTFILE_FOLLOW | OUTFILE_REPLACE, "x", 1, &e), VF_EIO);
	assert_int_equal(outfile_put("target", 0, "old", 3, &e), 0);
	assert_int_equal(outfile_put("link", OUTFILE_FOLLOW | OUTFILE_REPLACE, "new", 3, &e), 0);
	struct stat sb;
	assert_int_equal(lstat("link", &sb), 0);
	assert_true(S_ISLNK(sb.st_mode));
	assert_string_equal(slurp("target"), "new");
	assert_int_equal(mkdir("d", 0777), 0);
	assert_int_equal(outfile_put("d", OUTFILE_REPLACE, "x", 1, &e), VF_EIO);
	assert_string_equal(e.msg, "d: a directory");
	assert_int_equal(outfile_put("no/such/dir/f", 0, "x", 1, &e), VF_EIO);
	assert_string_equal(listing(), "d link target ");
}

static void test_fifo_through(void **state)
{
	(void)state;
	struct err e = {0};
	char buf[16] = "";
	assert_int_equal(mkfifo("ff", 0666), 0);
	int rd = open("ff", O_RDONLY | O_NONBLOCK); /* a reader, so opening to write won't wait */
	assert_true(rd >= 0);
	struct outfile o;
	assert_int_equal(outfile_open(&o, "ff", 0, &e), 0);
	assert_true(outfile_is_stream(&o));
	fputs("through", o.f);
	assert_int_equal(outfile_commit(&o, &e), 0);
	assert_int_equal(read(rd, buf, sizeof buf - 1), 7);
	assert_string_equal(buf, "through");
	close(rd);
	struct stat sb;
	assert_int_equal(lstat("ff", &sb), 0);
	assert_true(S_ISFIFO(sb.st_mode));
	assert_string_equal(listing(), "ff ");
}

static void test_races(void **state)
{
	(void)state;
	struct err e = {0};
	struct outfile o;
	/* a file that appears at a new path meanwhile is left alone */
	assert_int_equal(outfile_open(&o, "n.txt", OUTFILE_REPLACE, &e), 0);
	fputs("mine", o.f);
	assert_int_equal(outfile_put("n.txt", 0, "theirs", 6, &e), 0);
	assert_int_equal(outfile_commit(&o, &e), VF_EDUP);
	assert_string_equal(slurp("n.txt"), "theirs");
	/* the file to replace, replaced meanwhile by a link: the link is left alone */
	assert_int_equal(outfile_open(&o, "n.txt", OUTFILE_REPLACE, &e), 0);
	fputs("mine", o.f);
	assert_int_equal(unlink("n.txt"), 0);
	assert_int_equal(symlink("elsewhere", "n.txt"), 0);
	assert_int_equal(outfile_commit(&o, &e), VF_EIO);
	struct stat sb;
	assert_int_equal(lstat("n.txt", &sb), 0);
	assert_true(S_ISLNK(sb.st_mode));
	assert_string_equal(listing(), "n.txt ");
}

static void test_sweep(void **state)
{
	(void)state;
	pid_t dead = fork();
	if (!dead)
		_exit(0);
	waitpid(dead, NULL, 0);
	/* a dead process's temporary (and journal) beside r.txt, a live one's, another name's */
	char *t = outfile_temp_name("r.txt", 0);
	char host[300], d[400], dj[420], other[400];
	snprintf(host, sizeof host, "%s", t + strlen(".r.txt."));
	*strrchr(host, '.') = '\0';
	*strrchr(host, '.') = '\0';
	snprintf(d, sizeof d, ".r.txt.%s.%ld-0.tmp", host, (long)dead);
	snprintf(dj, sizeof dj, "%s-journal", d);
	snprintf(other, sizeof other, ".q.txt.%s.%ld-0.tmp", host, (long)dead);
	FILE *f;
	assert_non_null(f = fopen(t, "w"));
	fclose(f);
	assert_non_null(f = fopen(d, "w"));
	fclose(f);
	assert_non_null(f = fopen(dj, "w"));
	fclose(f);
	assert_non_null(f = fopen(other, "w"));
	fclose(f);
	/* this process's own is not swept: it is alive */
	assert_int_equal(outfile_sweep("r.txt"), 2);
	assert_int_equal(access(t, F_OK), 0);
	assert_int_equal(access(d, F_OK), -1);
	assert_int_equal(access(dj, F_OK), -1);
	assert_int_equal(access(other, F_OK), 0);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_new_and_replace, enter, leave),
		cmocka_unit_test_setup_teardown(test_refused, enter, leave),
		cmocka_unit_test_setup_teardown(test_fifo_through, enter, leave),
		cmocka_unit_test_setup_teardown(test_races, enter, leave),
		cmocka_unit_test_setup_teardown(test_sweep, enter, leave),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
