#!/bin/sh
# kubernetes_check.sh - the manifests of contrib/kubernetes/ (issue 29):
#   - yamllint --strict with their .yamllint finds nothing, and finds a
#     broken file (negative control);
#   - prometheusrule.yaml and dashboard-configmap.yaml are what
#     generate.sh makes of contrib/prometheus/uncored.rules.yml and
#     contrib/grafana/uncored.json (generate.sh --check), and hold the
#     same rules and the same dashboard, read back as data;
#   - the DaemonSet asks for what the docs promise: drop ALL, add
#     PERFMON, read-only root, seccomp RuntimeDefault, no privilege
#     escalation, /sys read-only from the host at /host/sys, probes on
#     /healthz, requests and limits, a toleration of every taint, an
#     image tag that is the package's version;
#   - the Service, ServiceMonitor and PodMonitor select the DaemonSet's
#     pods and name its port; the namespace carries the pod-security
#     labels doc/fleet.md states; kustomization.yaml lists files that exist.
# No Kubernetes API schema is available offline here: the structure is
# checked against what the objects must say, and the pod template runs
# under podman kube play in tests/scenario/container.sh.
. "${top_srcdir:-.}/tests/lib.sh"

K=$top_srcdir/contrib/kubernetes
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3	# python3-yaml is Debian's
if ! "$PY" -c 'import yaml' 2>/dev/null; then
	skip "the manifests" "python3-yaml is not installed (apt-get install python3-yaml)"
	tap_end
fi

if command -v yamllint >/dev/null 2>&1; then
	out=$(cd "$K" && yamllint --strict -f parsable . 2>&1)
	is "$?$out" 0 "yamllint --strict: nothing to report"
	cp -r "$K" "$T/k" && chmod -R u+w "$T/k"	# distcheck: a read-only tree
	printf 'kind: Service\n' >>"$T/k/service.yaml"	# a key twice
	(cd "$T/k" && yamllint --strict . >/dev/null 2>&1)
	ok $(( $? == 0 )) "yamllint rejects a manifest with a key given twice"
else
	skip "yamllint" "yamllint is not installed (apt-get install yamllint)"
fi

sh "$K/generate.sh" --check 2>"$T/gen"
is "$?$(cat "$T/gen")" 0 "generate.sh --check: the generated manifests are up to date"

"$PY" - "$top_srcdir" >"$T/checks" 2>&1 <<'PYEOF'
import json, os, re, sys, yaml
top = sys.argv[1]
K = os.path.join(top, "contrib", "kubernetes")
def load(n):
    return yaml.safe_load(open(os.path.join(K, n)))
def check(cond, what):
    print(("ok " if cond else "not ok ") + what)

rules = yaml.safe_load(open(os.path.join(top, "contrib/prometheus/uncored.rules.yml")))
pr = load("prometheusrule.yaml")
check(pr["kind"] == "PrometheusRule" and pr["apiVersion"] == "monitoring.coreos.com/v1",
      "prometheusrule.yaml is a monitoring.coreos.com/v1 PrometheusRule")
check(pr["spec"]["groups"] == rules["groups"],
      "... whose groups are uncored.rules.yml's, rule for rule")
alerts = [r["alert"] for g in pr["spec"]["groups"] for r in g["rules"] if "alert" in r]
check("UncoredCountingUnavailable" in alerts, "... with the alert UncoredCountingUnavailable")

dash = json.load(open(os.path.join(top, "contrib/grafana/uncored.json")))
cm = load("dashboard-configmap.yaml")
check(cm["kind"] == "ConfigMap" and cm["metadata"]["labels"].get("grafana_dashboard") == "1",
      "dashboard-configmap.yaml is a ConfigMap labelled grafana_dashboard: \"1\"")
check(json.loads(cm["data"]["uncored.json"]) == dash,
      "... holding contrib/grafana/uncored.json")

ds = load("daemonset.yaml")
check(ds["kind"] == "DaemonSet" and ds["apiVersion"] == "apps/v1", "daemonset.yaml is an apps/v1 DaemonSet")
t = ds["spec"]["template"]
labels = t["metadata"]["labels"]
check(all(labels.get(k) == v for k, v in ds["spec"]["selector"]["matchLabels"].items()),
      "... whose selector matches its pod template")
spec = t["spec"]
c = spec["containers"][0]
sc = c["securityContext"]
check(sc["capabilities"] == {"drop": ["ALL"], "add": ["PERFMON"]}, "capabilities: drop ALL, add PERFMON")
check(sc.get("readOnlyRootFilesystem") is True, "readOnlyRootFilesystem")
check(sc.get("allowPrivilegeEscalation") is False, "allowPrivilegeEscalation false")
check(sc.get("privileged", False) is False, "not privileged")
check(spec["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault", "seccomp RuntimeDefault")
check(not spec.get("hostNetwork") and not spec.get("hostPID") and not spec.get("hostIPC"),
      "no host network, PID or IPC namespace")
vols = {v["name"]: v for v in spec["volumes"]}
mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
m = mounts.get("/host/sys", {})
check(m.get("readOnly") is True and vols.get(m.get("name"), {}).get("hostPath", {}).get("path") == "/sys",
      "/sys from the host, read-only, at /host/sys")
check([v for v in vols.values() if "hostPath" in v] == [vols.get(m.get("name"))],
      "no other hostPath")
lp, rp = c["livenessProbe"]["httpGet"], c["readinessProbe"]["httpGet"]
check(lp["path"] == "/healthz?live=1" and rp["path"] == "/healthz",
      "liveness /healthz?live=1, readiness /healthz")
port = c["ports"][0]
check(lp["port"] == rp["port"] == port["containerPort"] == 9464 and port["name"] == "metrics",
      "probes on the metrics port 9464")
r = c["resources"]
check(all(k in r.get(s, {}) for s in ("requests", "limits") for k in ("cpu", "memory")),
      "CPU and memory requests and limits")
check({"operator": "Exists"} in spec.get("tolerations", []), "tolerates every taint")
m = re.match(r"uncored \(([^)-]+)", open(os.path.join(top, "debian/changelog")).readline())
check(c["image"] == "localhost/uncored:" + m.group(1),
      "image localhost/uncored:%s, the package's version" % m.group(1))
check(spec.get("automountServiceAccountToken") is False, "no service account token")

svc = load("service.yaml")
check(svc["spec"]["selector"].items() <= labels.items(), "the Service selects the DaemonSet's pods")
check(svc["spec"]["ports"][0]["targetPort"] == "metrics", "... on the metrics port")
check(svc["spec"].get("publishNotReadyAddresses") is True,
      "... publishing pods that are not ready (a node with nothing to count)")
sm = load("servicemonitor.yaml")
check(sm["spec"]["selector"]["matchLabels"].items() <= svc["metadata"]["labels"].items(),
      "the ServiceMonitor selects the Service")
pm = load("podmonitor.yaml")
check(pm["spec"]["selector"]["matchLabels"].items() <= labels.items(),
      "the PodMonitor selects the pods")
for n, eps in (("ServiceMonitor", sm["spec"]["endpoints"]), ("PodMonitor", pm["spec"]["podMetricsEndpoints"])):
    e = eps[0]
    check(e["port"] == "metrics" and e["path"] == "/metrics" and
          {"sourceLabels": ["__meta_kubernetes_pod_node_name"], "targetLabel": "instance",
           "action": "replace"} in e["relabelings"],
          n + ": /metrics on port metrics, instance = the node's name")

ns = load("namespace.yaml")
nl = ns["metadata"]["labels"]
check(nl.get("pod-security.kubernetes.io/enforce") == "privileged" and
      nl.get("pod-security.kubernetes.io/warn") == "baseline" and
      nl.get("pod-security.kubernetes.io/audit") == "baseline",
      "namespace: enforce privileged, warn and audit baseline")
names = {load(f)["metadata"].get("namespace") for f in os.listdir(K)
         if f.endswith(".yaml") and f not in ("kustomization.yaml", "namespace.yaml")}
check(names == {ns["metadata"]["name"]}, "every object is in namespace " + ns["metadata"]["name"])
kz = load("kustomization.yaml")
check(all(os.path.exists(os.path.join(K, f)) for f in kz["resources"]) and
      "podmonitor.yaml" not in kz["resources"],
      "kustomization.yaml lists files that exist, and one monitor")
PYEOF
st=$?
ok "$st" "the manifests could be read (python3 yaml)"
while read -r res what; do
	case $res in
	ok) ok 0 "$what" ;;
	not) ok 1 "${what#ok }" ;;
	*) echo "# $res $what" ;;
	esac
done <"$T/checks"
tap_done
