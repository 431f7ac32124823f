/*
 * clusterspec.h — cluster-spec files: a cluster described as node groups x count x
 * capacities, for traces without a node list and for "what if we had 200 more H100 nodes?".
 *
 * Syntax (one group a line; '#' starts a comment; words separated by blanks):
 *     GROUP COUNT MODEL GPUS [DIM=VALUE ...]
 *   GROUP  name of the group: 1-23 characters of [A-Za-z0-9_.-], unique in the file
 *   COUNT  nodes in the group, 1..100000, and at most 100000 in the file
 *   MODEL  GPU model (gpu-models.csv name or alias), or '-' for nodes without GPUs
 *   GPUS   GPUs per node, 0..32 (0 exactly when MODEL is '-')
 *   DIM=VALUE capacities per node, integers >= 0, each at most once: cpu (millicores),
 *          mem (MiB), net (MB/s), sto (MB/s), iocpu (millicores), and hbm (MiB per GPU,
 *          overriding the model's); the ones left out stay -1 for enrichment to fill.
 *          A node with net, sto or iocpu 0 takes no job that uses that dim. rack=K puts
 *          the group's nodes under switches of K nodes each, in order: GROUP-r000, -r001...
 * Example:  h100  200  H100  8  cpu=192000 mem=2097152 net=50000 sto=8000 iocpu=16000
 */
#ifndef VOIDFIT_CLUSTERSPEC_H
#define VOIDFIT_CLUSTERSPEC_H

#include <stddef.h>

#include "job.h"
#include "util.h"

/*
 * Append the nodes of the spec in file path to out, group by group in file order, named
 * GROUP-0000, GROUP-0001, ... (at least four digits), with group set, model and ngpu,
 * cap[gpu] = GPUS * 1000 and cap[hbm] = GPUS * (hbm= or the model's HBM). Returns 0, or
 * VF_EIO (unreadable) / VF_EINPUT (a bad line: "path:line: ..."), and then out is as it was.
 */
int clusterspec_load(const char *path, struct job_set *out, struct err *e);
/* The same from text (len bytes); fname names it in messages. */
int clusterspec_parse(const char *text, size_t len, const char *fname, struct job_set *out,
		      struct err *e);

#endif
