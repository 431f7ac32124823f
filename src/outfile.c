/*
 * outfile.c — an output file that never destroys what is at its path (outfile.h).
 *
 *   outfile_open     refused: nothing made; or o->f, a temporary beside the path (or a
 *      │             stream: the standard output, a FIFO, a device)
 *      ▼
 *   outfile_close    whole: flushed, synced, closed; a write error is known here
 *      ▼
 *   outfile_commit   in place: linked to a free path, or renamed over the regular file
 *                    that is still the one seen by outfile_open
 *
 *   outfile_abort    at any point: the temporary removed, the path as it was
 *
 * Why a temporary and a rename, and not the file itself: a reader never sees half a file,
 * and a failure (a full disk, a signal) leaves the old file. Why not a rename over anything
 * that is there: a rename replaces what the path names, and a FIFO or a device node (run as
 * root, /dev/null) would become a regular file, for every program of the machine.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

/* This host's name, for temporary names ("localhost" if it has none; no '/'). */
static void host_name(char *buf, size_t n)
{
	if (gethostname(buf, n) != 0 || !buf[0])
		snprintf(buf, n, "localhost");
	buf[n - 1] = '\0';
	for (char *c = buf; *c; c++)
		if (*c == '/')
			*c = '_';
}

char *outfile_temp_name(const char *path, int k)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path) + 1 : 0;
	char host[256];
	host_name(host, sizeof host);
	size_t n = strlen(path) + strlen(host) + 48;
	char *tmp = xmalloc(n);
	snprintf(tmp, n, "%.*s.%s.%s.%ld-%d.tmp", dirlen, path, path + dirlen, host, (long)getpid(),
		 k);
	return tmp;
}

size_t outfile_sweep(const char *path)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path) + 1 : 0;
	char dir[4096], prefix[1024], host[256];
	host_name(host, sizeof host);
	if (snprintf(dir, sizeof dir, "%.*s", dirlen ? dirlen : 1, dirlen ? path : ".") >=
		    (int)sizeof dir ||
	    snprintf(prefix, sizeof prefix, ".%s.%s.", path + dirlen, host) >= (int)sizeof prefix)
		return 0;
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	size_t removed = 0, plen = strlen(prefix);
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *nm = de->d_name;
		long pid;
		int k, end = 0;
		if (strncmp(nm, prefix, plen) != 0 ||
		    sscanf(nm + plen, "%ld-%d.tmp%n", &pid, &k, &end) != 2 ||
		    (nm[plen + end] && strcmp(nm + plen + end, "-journal") != 0) || pid <= 0 ||
		    pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		char full[4096 + 256];
		snprintf(full, sizeof full, "%.*s%s", dirlen, path, nm);
		if (unlink(full) == 0)
			removed++;
	}
	closedir(d);
	return removed;
}

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* The standard output, as o (written there, never closed). */
static int open_stdout(struct outfile *o, const char *path)
{
	o->f = stdout;
	o->is_stdout = 1;
	o->path = xstrdup(strcmp(path, "-") ? path : "standard output");
	return 0;
}

/* A FIFO or a character device at path: opened as it is (no O_CREAT, no O_TRUNC). */
static int open_through(struct outfile *o, const char *path, struct err *e)
{
	struct stat sb;
	int fd = open(path, O_WRONLY | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return err_set(e, VF_EIO, "%s: %s", path, strerror(errno));
	if (fstat(fd, &sb) != 0 || !(S_ISFIFO(sb.st_mode) || S_ISCHR(sb.st_mode))) {
		close(fd);
		return err_set(e, VF_EIO, "%s: changed while it was being opened", path);
	}
	if (!(o->f = fdopen(fd, "w"))) {
		int err = errno;
		close(fd);
		return err_set(e, VF_EIO, "%s: %s", path, strerror(err));
	}
	o->path = xstrdup(path);
	return 0;
}

/* A new file beside path, exclusively: never through a link planted there. */
static int open_temp(struct outfile *o, const char *path, int flags, struct err *e)
{
	struct stat sb;
	int fd = -1;
	outfile_sweep(path);
	for (int k = 0; fd < 0; k++) {
		o->tmp = outfile_temp_name(path, k);
		fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			  flags & OUTFILE_EXEC ? 0777 : 0666);
		if (fd >= 0)
			break;
		int err = errno;
		free(o->tmp);
		o->tmp = NULL;
		if (err != EEXIST || k == 99)
			return err_set(e, VF_EIO, "%s: cannot make a file in its folder: %s", path,
				       strerror(err));
	}
	if (fstat(fd, &sb) != 0 || !(o->f = fdopen(fd, "w"))) {
		int err = errno;
		close(fd);
		unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
		return err_set(e, VF_EIO, "%s: %s", path, strerror(err));
	}
	o->dev = sb.st_dev;
	o->ino = sb.st_ino;
	o->path = xstrdup(path);
	return 0;
}

int outfile_open(struct outfile *o, const char *path, int flags, struct err *e)
{
	struct stat sb, so;
	memset(o, 0, sizeof *o);
	if (!strcmp(path, "-") ||
	    (stat(path, &sb) == 0 && fstat(STDOUT_FILENO, &so) == 0 && same_file(&sb, &so)))
		return open_stdout(o, path);
	if (lstat(path, &sb) != 0) {
		if (errno != ENOENT)
			return err_set(e, VF_EIO, "%s: %s", path, strerror(errno));
		return open_temp(o, path, flags, e);
	}
	if (S_ISLNK(sb.st_mode)) {
		if (!(flags & OUTFILE_FOLLOW))
			return err_set(e, VF_EINPUT, "%s: a symbolic link, not followed", path);
		char *real = realpath(path, NULL);
		if (!real)
			return err_set(e, VF_EIO, "%s: a symbolic link to nothing: %s", path,
				       strerror(errno));
		int rc = outfile_open(o, real, flags & ~OUTFILE_FOLLOW, e);
		free(real);
		return rc;
	}
	if (S_ISFIFO(sb.st_mode) || S_ISCHR(sb.st_mode))
		return open_through(o, path, e);
	if (!S_ISREG(sb.st_mode))
		return err_set(e, VF_EIO, "%s: %s", path,
			       S_ISDIR(sb.st_mode)
				       ? "a directory"
				       : "not a regular file, a FIFO or a character device");
	if (!(flags & OUTFILE_REPLACE))
		return err_set(e, VF_EDUP, "%s: %s", path, strerror(EEXIST));
	int rc = open_temp(o, path, flags, e);
	if (!rc) {
		o->replace = 1;
		o->old_dev = sb.st_dev;
		o->old_ino = sb.st_ino;
	}
	return rc;
}

int outfile_is_stream(const struct outfile *o)
{
	return !o->tmp;
}

int outfile_close(struct outfile *o, struct err *e)
{
	int rc = 0;
	if (!o->f)
		return 0;
	errno = 0;
	if (fflush(o->f) || ferror(o->f) || (o->tmp && fsync(fileno(o->f))))
		rc = err_set(e, VF_EIO, "%s: %s", o->path, strerror(errno ? errno : EIO));
	if (!o->is_stdout && fclose(o->f) && !rc)
		rc = err_set(e, VF_EIO, "%s: %s", o->path, strerror(errno));
	o->f = NULL;
	return rc;
}

int outfile_commit(struct outfile *o, struct err *e)
{
	struct stat sb;
	int rc = outfile_close(o, e);
	if (rc || !o->tmp) {
		outfile_abort(o);
		return rc;
	}
	if (o->replace) {
		if (lstat(o->path, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_dev != o->old_dev ||
		    sb.st_ino != o->old_ino)
			rc = err_set(e, VF_EIO,
				     "%s: changed while it was being written; left as it is",
				     o->path);
		else if (rename(o->tmp, o->path) != 0)
			rc = err_set(e, VF_EIO, "%s: %s", o->path, strerror(errno));
	} else if (link(o->tmp, o->path) != 0) {
		rc = errno == EEXIST ? err_set(e, VF_EDUP,
					       "%s: a file appeared there while it was being "
					       "written; left as it is",
					       o->path)
				     : err_set(e, VF_EIO, "%s: %s", o->path, strerror(errno));
	}
	outfile_abort(o); /* the temporary, if it is still there */
	return rc;
}

void outfile_abort(struct outfile *o)
{
	struct stat sb;
	if (!o)
		return;
	if (o->f && !o->is_stdout)
		fclose(o->f);
	if (o->tmp && lstat(o->tmp, &sb) == 0 && sb.st_dev == o->dev && sb.st_ino == o->ino)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof *o);
}

int outfile_put(const char *path, int flags, const void *buf, size_t n, struct err *e)
{
	struct outfile o;
	int rc = outfile_open(&o, path, flags, e);
	if (rc)
		return rc;
	if (fwrite(buf, 1, n, o.f) != n) {
		rc = err_set(e, VF_EIO, "%s: %s", path, strerror(errno));
		outfile_abort(&o);
		return rc;
	}
	return outfile_commit(&o, e);
}
