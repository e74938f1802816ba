#!/bin/sh
# render_fleet_plot.sh - plot the dashboard's headline queries from a
# Prometheus server into a PNG, for documentation (Grafana is not packaged
# in Debian; this draws the same recording rules the dashboard shows).
#
#   contrib/render_fleet_plot.sh URL START END OUT.png [INSTANCE=NAME]...
#
# URL is the Prometheus server (http://127.0.0.1:9090), START and END Unix
# times, INSTANCE=NAME renames a target in the legends.  Needs curl, jq and
# gnuplot (Debian: gnuplot-nox).  tests/scenario/fleet_e2e.sh runs it with
# FLEET_PLOT=doc/img/fleet.png to make the picture in doc/fleet.md.
set -eu
[ $# -ge 4 ] || { echo "usage: $0 URL START END OUT.png [INSTANCE=NAME]..." >&2; exit 2; }
url=$1 start=$2 end=$3 out=$4; shift 4
for t in curl jq gnuplot; do
	command -v $t >/dev/null 2>&1 || { echo "$0: $t not found" >&2; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fleetplot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/names"
for m in "$@"; do printf '%s\t%s\n' "${m%%=*}" "${m#*=}" >>"$tmp/names"; done

# fetch ID EXPR LEGEND-SUFFIX: one data file per series, $tmp/ID.N.dat
# ("seconds value"), and a line "ID.N<TAB>legend" in $tmp/ID.list.
fetch() {
	curl -sf -G "$url/api/v1/query_range" --data-urlencode "query=$2" \
		--data-urlencode "start=$start" --data-urlencode "end=$end" \
		--data-urlencode "step=1" >"$tmp/$1.json"
	jq -r '.data.result | to_entries[] | .key as $k |
		(.value.metric.instance // "fleet") as $i |
		.value.values[] | [$k, $i, .[0], .[1]] | @tsv' "$tmp/$1.json" |
	awk -F'\t' -v id="$1" -v dir="$tmp" -v s="$start" -v suf="$3" -v names="$tmp/names" '
		BEGIN { while ((getline l < names) > 0) { split(l, kv, "\t"); nm[kv[1]] = kv[2] } }
		{ f = dir "/" id "." $1 ".dat"; print $3 - s, $4 > f
		  if (!($1 in seen)) { seen[$1] = 1; n = ($2 in nm) ? nm[$2] : $2
		    print id "." $1 "\t" n suf > (dir "/" id ".list") } }'
	[ -s "$tmp/$1.list" ] || { echo "$0: no data for $2" >&2; exit 1; }
}
fetch rd 'instance_socket:uncore_dram_read_bytes:rate1m / 1e9' ' read'
fetch wr 'instance_socket:uncore_dram_write_bytes:rate1m / 1e9' ' write'
fetch hit '100 * instance_socket:uncore_llc_hit_ratio:ratio_rate1m' ''
fetch fhit '100 * job:uncore_llc_hit_ratio:ratio_rate1m' ''
fetch frd 'job:uncore_dram_read_bytes:rate1m / 1e9' ' read'
fetch fwr 'job:uncore_dram_write_bytes:rate1m / 1e9' ' write'
fetch ftot 'job:uncore_dram_bytes:rate1m / 1e9' ' read + write'
fetch clk 'instance_socket:uncore_clock_ticks:rate1m / 1e9' ''

# plot LIST... : a gnuplot plot command over the series of the lists.  The
# colour follows the daemon (fleet totals are black, the fleet's reads and
# writes grey), writes are dashed.
colour() {
	case $1 in fleet*) echo '#000000' ;; *)
		n=$(cut -f2 "$tmp/names" | grep -nxF -- "$1" | cut -d: -f1)
		case ${n:-0} in 1) echo '#1f77b4' ;; 2) echo '#ff7f0e' ;; 3) echo '#2ca02c' ;;
		*) echo '#9467bd' ;; esac ;;
	esac
}
plot() {
	sep='plot '
	for l in "$@"; do
		while IFS='	' read -r f legend; do
			base=${legend% read + write}; base=${base% read}; base=${base% write}
			dt=1 lw=2 c=$(colour "$base")
			case $legend in
			'fleet read + write') lw=3 ;;
			'fleet read') c='#7f7f7f' ;;
			'fleet write') c='#7f7f7f' dt=2 ;;
			*' write') dt=2 ;;
			esac
			printf '%s"%s/%s.dat" using 1:2 with lines lw %s dt %s lc rgb "%s" title "%s" noenhanced' \
				"$sep" "$tmp" "$f" "$lw" "$dt" "$c" "$legend"
			sep=', \
  '
		done <<EOF
$(sort -t '	' -k2 "$tmp/$l.list")
EOF
	done
	echo
}
span=$((end - start))
title() { printf 'set title "%s" noenhanced\n' "$1"; }
{
	cat <<EOF
set terminal pngcairo size 1400,900 enhanced font "DejaVu Sans,11"
set output "$out"
set multiplot layout 2,2 title "{/:Bold uncored fleet in Prometheus}: three simulated daemons, recording rules of contrib/prometheus/uncored.rules.yml (windows cut to 5 s)" font ",13"
set grid
set xrange [0:$span]
set format x "%g s"
set key below horizontal font ",10" samplen 3
set yrange [0:*]
EOF
	title "DRAM per daemon, GB/s (instance_socket:uncore_dram_{read,write}_bytes:rate1m)"
	plot rd wr
	title "LLC hit ratio, % ({instance_socket,job}:uncore_llc_hit_ratio:ratio_rate1m)"
	echo 'set yrange [0:105]'
	plot hit fhit
	title "Fleet DRAM, GB/s (job:uncore_dram{,_read,_write}_bytes:rate1m)"
	echo 'set yrange [0:*]'
	plot ftot frd fwr
	title "Uncore clock per daemon, GHz (instance_socket:uncore_clock_ticks:rate1m)"
	echo 'set yrange [0:1.6]'
	plot clk
	echo 'unset multiplot'
} >"$tmp/plot.gp"
gnuplot "$tmp/plot.gp"
echo "$0: wrote $out ($span s of data)"
