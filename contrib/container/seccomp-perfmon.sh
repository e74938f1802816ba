#!/bin/sh
# seccomp-perfmon.sh - a seccomp profile that lets a container holding
# CAP_PERFMON call perf_event_open(2), made from a runtime's default
# profile (the containers/common format podman and CRI-O use).
#
# Docker's default profile (moby) and containerd's allow perf_event_open
# to a container with CAP_PERFMON; the one of containers/common 0.50
# (Debian 12: podman 4.3, golang-github-containers-common) allows it only
# with CAP_SYS_ADMIN, so there an uncored container given CAP_PERFMON
# alone gets EPERM from seccomp before the kernel is even asked.  This
# adds what moby adds and changes nothing else: perf_event_open is
# allowed when the container holds CAP_PERFMON, and refused (EPERM) as
# before when it holds neither that nor CAP_SYS_ADMIN.
#
# Usage: seccomp-perfmon.sh [DEFAULT.json] >uncored-seccomp.json
#   (default /usr/share/containers/seccomp.json), then
#   podman run --security-opt seccomp=uncored-seccomp.json ...
# On Kubernetes with CRI-O, install it on the nodes and use a Localhost
# seccompProfile instead of RuntimeDefault (contrib/kubernetes/
# daemonset.yaml).  Needs jq.
set -eu
in=${1:-/usr/share/containers/seccomp.json}
jq '
  def perf: (.names | index("perf_event_open")) != null;
  .syscalls |= (map(
      if perf and .action == "SCMP_ACT_ERRNO" and (.excludes.caps // []) != []
      then (.names -= ["perf_event_open"]),
           (.names = ["perf_event_open"] | .excludes.caps += ["CAP_PERFMON"])
      else . end)
    + [{ names: ["perf_event_open"], action: "SCMP_ACT_ALLOW", args: [],
         comment: "perf_event_open for CAP_PERFMON, as moby and containerd allow it",
         includes: { caps: ["CAP_PERFMON"] }, excludes: {} }])
' "$in"
