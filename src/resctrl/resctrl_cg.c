/*
 * resctrl_cg.c - cgroup patterns and Kubernetes ids (see resctrl_cg.h).
 *
 * Kubelet naming (kubernetes pkg/kubelet/cm/cgroup_manager_linux.go): a
 * pod's cgroup component is "pod" + UID; under the systemd driver each
 * component has '-' replaced by '_' (escapeSystemdCgroupName) and the
 * slice names are joined with '-' ("kubepods-burstable-pod<uid>.slice");
 * a container's scope is "<runtime prefix>-<id>.scope" with the prefix
 * "cri-containerd" for containerd and "crio" for CRI-O
 * (SystemdPathPrefixOfRuntime).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "resctrl_cg.h"

/* Length of the component at p (up to '/' or the end). */
static size_t comp_len(const char *p)
{
	return strcspn(p, "/");
}

static bool comp_match(const char *pat, size_t plen, const char *s, size_t slen)
{
	char pb[256], sb[256];

	if (plen >= sizeof pb || slen >= sizeof sb)
		return false;
	memcpy(pb, pat, plen);
	pb[plen] = '\0';
	memcpy(sb, s, slen);
	sb[slen] = '\0';
	return fnmatch(pb, sb, FNM_PERIOD) == 0;
}

bool rdtcg_match(const char *pat, const char *path)
{
	for (;;) {
		size_t pl = comp_len(pat), sl = comp_len(path);
		if (pl == 2 && !strncmp(pat, "**", 2)) {
			const char *rest = pat[2] ? pat + 3 : pat + 2;
			if (!*rest)
				return true;	/* trailing ** matches the rest */
			/* zero components, then one more at a time */
			for (const char *s = path;;) {
				if (rdtcg_match(rest, s))
					return true;
				size_t l = comp_len(s);
				if (!s[l])
					return false;
				s += l + 1;
			}
		}
		if (!*pat || !*path)
			return !*pat && !*path;
		if (!comp_match(pat, pl, path, sl))
			return false;
		pat += pl;
		path += sl;
		if (!*pat || !*path)
			return !*pat && !*path;
		pat++;
		path++;
	}
}

const char *rdtcg_pattern_error(const char *pat)
{
	if (!*pat)
		return "an empty pattern";
	if (*pat == '/')
		return "a pattern is relative to the cgroup root: no leading '/'";
	for (const char *p = pat;;) {
		size_t l = comp_len(p);
		if (l == 0)
			return "an empty component (\"//\" or a trailing '/')";
		if ((l == 1 && p[0] == '.') || (l == 2 && !strncmp(p, "..", 2)))
			return "\".\" and \"..\" are not allowed";
		if (l >= 256)
			return "a component longer than 255 bytes";
		const char *ss = memchr(p, '*', l);
		if (ss && ss + 1 < p + l && ss[1] == '*' && l != 2)
			return "\"**\" must be a whole component";
		if (!p[l])
			return NULL;
		p += l + 1;
	}
}

static void copy_n(char *dst, size_t cap, const char *src, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* A container id: 64 lower-case hex digits, as the runtimes make them. */
static bool is_ctr_id(const char *s, size_t n)
{
	if (n != 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return true;
}

void rdtcg_k8s_ids(const char *path, char pod[64], char ctr[128])
{
	static const char *const rt[] = { "cri-containerd-", "crio-", "docker-" };

	pod[0] = ctr[0] = '\0';
	for (const char *p = path; *p;) {
		size_t l = comp_len(p);
		const char *pp = NULL;
		size_t pn = 0;

		/* "...-pod<uid>.slice" (systemd) or "pod<uid>" (cgroupfs) */
		if (l > 6 && !strncmp(p + l - 6, ".slice", 6)) {
			for (const char *q = p; q + 3 < p + l; q++)
				if ((q == p || q[-1] == '-') && !strncmp(q, "pod", 3)) {
					pp = q + 3;
					pn = (size_t)(p + l - 6 - pp);
				}
		} else if (l > 3 && !strncmp(p, "pod", 3)) {
			pp = p + 3;
			pn = l - 3;
		}
		if (pp && pn > 0 && pn < 64 && !strchr("-_", pp[0])) {
			copy_n(pod, 64, pp, pn);
			for (char *c = pod; *c; c++)
				if (*c == '_')
					*c = '-';
		}
		for (size_t i = 0; i < sizeof rt / sizeof rt[0]; i++) {
			size_t rl = strlen(rt[i]);
			if (l > rl + 6 && !strncmp(p, rt[i], rl) &&
			    !strncmp(p + l - 6, ".scope", 6))
				copy_n(ctr, 128, p + rl, l - rl - 6);
		}
		if (is_ctr_id(p, l))
			copy_n(ctr, 128, p, l);
		p += l;
		if (*p)
			p++;
	}
}

int rdtcg_split(const char *list, char ***pat, size_t *npat)
{
	const char *p = list ? list : "";

	for (;;) {
		p += strspn(p, " \t,");
		if (!*p)
			return 0;
		size_t l = strcspn(p, " \t,");
		char **np = realloc(*pat, (*npat + 1) * sizeof *np);

		if (!np)
			return -ENOMEM;
		*pat = np;
		if (!(np[*npat] = strndup(p, l)))
			return -ENOMEM;
		if (rdtcg_pattern_error(np[(*npat)++]))
			return -EINVAL;
		p += l;
	}
}
