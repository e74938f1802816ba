/*
 * unavail.c - the routes the daemon serves where nothing can be counted
 * ([daemon] unavailable = serve): the reason on /metrics, /healthz and
 * /api/v1/status, and nothing else.  See unavail.h.
 *
 * Nothing here touches hardware or a sampler: there is none.  The page is
 * small and rendered per scrape.
 */
#include "config.h"

#include <errno.h>
#include <json-c/json.h>
#include <string.h>

#include "base/jtext.h"
#include "procstat.h"
#include "jsend.h"
#include "unavail.h"

int unavail_render(struct buf *b, enum prom_fmt fmt, const struct unavail *u)
{
	const char *bl[] = { "version", u->version,
			     "revision", u->revision ? u->revision : "",
			     "build_date", u->build_date ? u->build_date : "",
			     "platform", "none", "backend", "none",
			     "simulated", "false", NULL };
	const char *rl[] = { "reason", u->reason, NULL };
	struct procstat ps;
	struct prom w;

	prom_begin(&w, b, fmt);
	prom_family(&w, "uncored_build_info", PROM_INFO, NULL,
		    "Version, git revision, build date, platform, backend "
		    "(direct: the daemon programs the registers; perf: the "
		    "kernel's uncore PMUs) and whether it runs on the "
		    "simulator.");
	prom_sample_u64(&w, NULL, bl, 1);
	prom_family(&w, "uncored_counting_available", PROM_GAUGE, "",
		    "1 when the daemon counts uncore events, 0 when it found "
		    "no way to any uncore counter and only serves the reason "
		    "([daemon] unavailable = serve).");
	prom_sample_u64(&w, NULL, NULL, 0);
	prom_family(&w, "uncored_counting_unavailable_info", PROM_INFO, NULL,
		    "Why nothing can be counted on this machine: the message "
		    "uncored would exit with without [daemon] unavailable = "
		    "serve.");
	prom_sample_u64(&w, NULL, rl, 1);
	prom_family(&w, "uncored_scrapes_total", PROM_COUNTER, NULL,
		    "Scrapes of /metrics.");
	prom_sample_u64(&w, NULL, NULL, atomic_load(&u->scrapes));
	procstat_read(&ps);	/* renders whatever could be read */
	procstat_render(&w, &ps);
	return prom_end(&w) == -ENOMEM || b->oom ? -ENOMEM : 0;
}

static void h_metrics(void *ctx, const struct http_req *req,
		      struct http_resp *resp)
{
	struct unavail *u = ctx;
	enum prom_fmt fmt = prom_negotiate(http_header(req, "Accept"),
					   &resp->ctype);

	atomic_fetch_add(&u->scrapes, 1);
	if (unavail_render(&resp->body, fmt, u) < 0)
		http_error(resp, 500, "oom", "out of memory rendering /metrics");
}

/* Readiness is the truth (nothing is counted: 503); ?live=1 asks only
 * whether the daemon answers, which it does. */
static void h_healthz(void *ctx, const struct http_req *req,
		      struct http_resp *resp)
{
	struct unavail *u = ctx;
	const char *live = http_query(req, "live");
	struct json_object *o;

	if (live && strcmp(live, "1") != 0 && strcmp(live, "0") != 0) {
		http_error(resp, 400, "bad_request", "live: \"%s\" is not 0 or "
			   "1", live);
		return;
	}
	if (!live || strcmp(live, "1") != 0) {
		http_error(resp, 503, "counting_unavailable", "%s", u->reason);
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "status",
			       json_object_new_string("counting_unavailable"));
	json_object_object_add(o, "reason", json_object_new_string(u->reason));
	send_json(resp, o);
}

static void h_status(void *ctx, const struct http_req *req,
		     struct http_resp *resp)
{
	struct unavail *u = ctx;
	struct json_object *o = json_object_new_object();

	(void)req;
	json_object_object_add(o, "version", json_object_new_string(u->version));
	json_object_object_add(o, "revision", json_object_new_string(
				       u->revision ? u->revision : ""));
	json_object_object_add(o, "counting_available",
			       json_object_new_boolean(0));
	json_object_object_add(o, "reason", json_object_new_string(u->reason));
	json_object_object_add(o, "exit_status",
			       json_object_new_int(u->exit_status));
	send_json(resp, o);
}

const struct http_route unavail_routes[] = {
	{ "/metrics", HTTP_GET, false, h_metrics },
	{ "/healthz", HTTP_GET, false, h_healthz },
	{ "/api/v1/status", HTTP_GET, false, h_status },
};
const size_t unavail_nroutes = sizeof(unavail_routes) / sizeof(unavail_routes[0]);
