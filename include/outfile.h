/*
 * outfile.h — an output file that never destroys what is at its path.
 *
 * Every command that writes a file (report -o, export, sweep -o, gen -o) opens it here, and
 * what happens depends on what is at the path:
 *
 *   nothing, a regular file   written to a temporary file beside it, created with
 *                             O_CREAT|O_EXCL|O_NOFOLLOW (mode 0666, or 0777 with
 *                             OUTFILE_EXEC, less the umask), put in place only once whole
 *                             (outfile_commit): linked to a free path, so that a file that
 *                             appears there meanwhile is never replaced; renamed over a
 *                             regular file only with OUTFILE_REPLACE (else VF_EDUP)
 *   "-", the standard output  written to the standard output ("/dev/stdout", or the very
 *                             file the standard output is redirected to)
 *   a FIFO, a character       written through: never truncated, replaced or removed
 *   device (/dev/null)
 *   a symbolic link           refused, unless OUTFILE_FOLLOW: then what it points to, as
 *                             above
 *   anything else             refused: a directory, a block device, a socket
 *
 * Temporaries are named ".NAME.HOST.PID-N.tmp". A command killed while writing (SIGKILL
 * gives no chance to clean up) leaves its temporary: the next outfile_open of the same path
 * removes those of this host whose process is gone (outfile_sweep; new stores use the same
 * names and the same sweep).
 *
 * The life of one: outfile_open, then writes to o->f, then outfile_commit (or outfile_abort,
 * which leaves the path as it was). Nothing here prints.
 */
#ifndef VOIDFIT_OUTFILE_H
#define VOIDFIT_OUTFILE_H

#include <stdio.h>
#include <sys/types.h>

#include "util.h"

enum {
	OUTFILE_REPLACE = 1, /* a regular file at the path may be replaced */
	OUTFILE_FOLLOW = 2,  /* a symbolic link at the path: write what it points to */
	OUTFILE_EXEC = 4,    /* a new file is executable (mode 0777 less the umask) */
};

struct outfile {
	FILE *f;       /* where to write; NULL before outfile_open and once closed */
	char *path;    /* the path written: as given, what a followed link points to, or
			* "standard output" for "-" */
	char *tmp;     /* the temporary beside path; NULL when written through */
	int replace;   /* a regular file was at path: commit renames over it (else links) */
	int is_stdout; /* f is the standard output (not closed, only flushed) */
	dev_t dev;     /* the temporary's device, */
	ino_t ino;     /* and inode: only that file is ever removed */
	dev_t old_dev; /* with replace, the device of the file replaced, */
	ino_t old_ino; /* and its inode: a file put there meanwhile is not replaced */
};

/* Open path for writing as the table above says, with flags OUTFILE_*. Returns 0 (then write
 * to o->f), VF_EDUP (a regular file is there and no OUTFILE_REPLACE), VF_EINPUT (a symbolic
 * link and no OUTFILE_FOLLOW) or VF_EIO (anything else: a directory, a block device, a
 * system error); on error o holds nothing (outfile_abort is harmless). */
int outfile_open(struct outfile *o, const char *path, int flags, struct err *e);
/* Is o written through (the standard output, a FIFO, a device) rather than put in place? */
int outfile_is_stream(const struct outfile *o);
/* Finish writing: flush, and for a temporary sync it to disk and close it. Returns 0 or
 * VF_EIO (a write error, a full disk); o stays to be committed or aborted. */
int outfile_close(struct outfile *o, struct err *e);
/* outfile_close if needed, then put the temporary in place: linked to a path that was free
 * (VF_EDUP if a file appeared there), renamed over the regular file that was there (VF_EIO if
 * it was changed meanwhile). Releases o, on success as on failure (the path is then as it
 * was). */
int outfile_commit(struct outfile *o, struct err *e);
/* Close o and remove its temporary: the path is as it was. o may be NULL, zeroed or done. */
void outfile_abort(struct outfile *o);
/* Write n bytes of buf to path, all or nothing (outfile_open, write, outfile_commit). */
int outfile_put(const char *path, int flags, const void *buf, size_t n, struct err *e);

/* The name of a temporary file beside path, "DIR/.NAME.HOST.PID-K.tmp" (the caller frees):
 * the host and process in it say whose it is (outfile_sweep), k makes it unique in the
 * process. */
char *outfile_temp_name(const char *path, int k);
/* Remove the temporaries beside path (and SQLite's "-journal" files of them) that a process
 * of this host left and that is gone; another host's, or a live process's, are left alone.
 * Returns how many were removed. */
size_t outfile_sweep(const char *path);

#endif
