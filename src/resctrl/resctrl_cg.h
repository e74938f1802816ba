/*
 * resctrl_cg.h - which cgroups get a resctrl MON group, and their labels
 * (issue 31 §2).  Pure string functions, no file access: the [resctrl]
 * cgroup patterns are matched against cgroup v2 paths (relative to the
 * cgroup root, no leading '/'), and a Kubernetes pod UID and container id
 * are read from a path the kubelet named.  Facts and decisions:
 * doc/resctrl.md.
 */
#ifndef UNCORED_RESCTRL_CG_H
#define UNCORED_RESCTRL_CG_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Does the cgroup path match pattern?  Both are '/'-separated; in the
 * pattern, a component "**" matches any number (zero included) of whole
 * components, and other components are fnmatch(3) patterns ('*', '?',
 * [...]) that never match across '/'.  As in .gitignore, a trailing
 * "a/ **" (no space) matches what is below a, not a itself.  "system.slice/ *.service" (without
 * the space) matches "system.slice/cron.service";
 * "kubepods.slice/ ** /cri-containerd-*.scope" a container at any depth.
 */
bool rdtcg_match(const char *pattern, const char *path);

/*
 * Checks a pattern from the config: non-empty, relative, no empty, "." or
 * ".." component, "**" only as a whole component.  NULL when good, else a
 * static message saying what is wrong.
 */
const char *rdtcg_pattern_error(const char *pattern);

/*
 * Splits the config's list of patterns (separated by blanks or commas)
 * and appends each, copied, to *pat (*npat of them).  0, -ENOMEM, or
 * -EINVAL at the first pattern rdtcg_pattern_error() refuses (it is
 * appended too: the caller frees *pat[0..*npat) in every case).
 */
int rdtcg_split(const char *list, char ***pat, size_t *npat);

/*
 * The pod UID (with '-', as the API shows it) and container id found in
 * a cgroup path the kubelet made, with the systemd driver
 * (".../kubepods-burstable-pod<uid with _>.slice/cri-containerd-<id>.scope",
 * also "crio-<id>.scope", "docker-<id>.scope") or the cgroupfs driver
 * (".../pod<uid>/<id>").  Either is "" when not found.  The buffers get
 * at most 64 and 128 bytes (NUL included) and are always terminated.
 */
void rdtcg_k8s_ids(const char *path, char pod[64], char ctr[128]);

#endif
