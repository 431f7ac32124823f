#!/bin/sh
# Download the public trace samples voidfit's tests and tour use, into DIR, laid out as the
# tests expect them (VOIDFIT_TRACES=DIR make check; the README's tour reads DIR too):
#   DIR/clusterdata/cluster-trace-gpu-v2023/csv/openb_*.csv     Alibaba GPU cluster 2023
#   DIR/clusterdata/cluster-trace-gpu-v2025/disaggregated_DLRM_trace.csv   Alibaba 2025
#   DIR/clusterdata/cluster-trace-gpu-v2020/data/pai_*.header   Alibaba PAI 2020 columns
#   DIR/clusterdata-cluster-trace-gpu-v2020-data/pai_machine_spec.csv   PAI 2020 machines
#   DIR/google-clusterdata-2011-2/...   Google 2011: machine_events and the first of the
#                                       500 task_events parts (with --google)
# The Alibaba files come from github.com/alibaba/clusterdata at a fixed commit (and the PAI
# tables from the download links its cluster-trace-gpu-v2020/data/download_data.sh names)
# and are checked against the sha256 sums below; the Google parts are checked against the
# trace's own SHA256SUM file. Terms: the Alibaba traces are for research or study (the
# v2020 data is CC BY 4.0); see each repository's README for how to cite them.
#
# Usage: scripts/fetch-traces.sh [--dry-run] [--google] DIR
#   --dry-run  print what would be fetched (URL, destination, sha256), fetch nothing
#   --google   also fetch the Google 2011 sample (about 60 MB)
# DIR must not exist yet (nothing is overwritten); on a failure it is removed again.
set -eu

usage() {
	echo "usage: scripts/fetch-traces.sh [--dry-run] [--google] DIR" >&2
	exit 2
}
dry=0 google=0 dir=""
for a in "$@"; do
	case $a in
	--dry-run) dry=1 ;;
	--google) google=1 ;;
	-h | --help)
		sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	-*) echo "fetch-traces.sh: '$a': unknown option" >&2; usage ;;
	*) [ -z "$dir" ] || { echo "fetch-traces.sh: '$a': one DIR only" >&2; usage; }; dir=$a ;;
	esac
done
[ -n "$dir" ] || { echo "fetch-traces.sh: no DIR given" >&2; usage; }
if [ -e "$dir" ]; then
	echo "fetch-traces.sh: '$dir': exists already; give a new directory" >&2
	exit 1
fi

ali=https://raw.githubusercontent.com/alibaba/clusterdata/7a6c496e4f4b6ce6150be8f881cb051bf2abff42
oss=https://aliopentrace.oss-cn-beijing.aliyuncs.com/v2020GPUTraces
gcs=https://commondatastorage.googleapis.com/clusterdata-2011-2

# SHA256  DEST  URL ('-': checked another way, below)
list() {
	v23=clusterdata/cluster-trace-gpu-v2023/csv
	v20=clusterdata/cluster-trace-gpu-v2020/data
	cat <<LIST
1ee7ed79c27a3b0861cda8ddba86a004c6aba904caafa329a76ae93ca63834a8 $v23/openb_pod_list_default.csv $ali/cluster-trace-gpu-v2023/csv/openb_pod_list_default.csv
2beca64b4d3dfa342036a34b56a495c6cef9225db836c81f541282cb1df320b5 $v23/openb_node_list_gpu_node.csv $ali/cluster-trace-gpu-v2023/csv/openb_node_list_gpu_node.csv
5a85c2af79c66a1efff8bbcbda430400aae56d8431370d738480967e1a9c6b15 $v23/openb_node_list_all_node.csv $ali/cluster-trace-gpu-v2023/csv/openb_node_list_all_node.csv
fb17bc4b3f412d5280f70f04a1bdf2adfc4429d1e61237a5b106e86206414295 clusterdata/cluster-trace-gpu-v2025/disaggregated_DLRM_trace.csv $ali/cluster-trace-gpu-v2025/disaggregated_DLRM_trace.csv
3ac33aefab9a4d81338794fa145fe280594a379444961a9c639f00181c508567 $v20/pai_job_table.header $ali/cluster-trace-gpu-v2020/data/pai_job_table.header
978bbaabfc8695874c605c01c144b2977f611ceca73aeb72189988cdfbfb0a9c $v20/pai_task_table.header $ali/cluster-trace-gpu-v2020/data/pai_task_table.header
51f2585178eaaf30ad8cc88c50ec9243b0f7d9603603ab7602efccb7aa34f6b0 $v20/pai_instance_table.header $ali/cluster-trace-gpu-v2020/data/pai_instance_table.header
4c9ea25914ff3f0b73be9ff223fb91002e787138165abd3f584ba37281448e1c $v20/pai_machine_spec.header $ali/cluster-trace-gpu-v2020/data/pai_machine_spec.header
300342613103c6192490f8990958903d837053c13adbc6c094d677074fbbb7ad $v20/pai_machine_metric.header $ali/cluster-trace-gpu-v2020/data/pai_machine_metric.header
d3e26eb31fb3b833821373b487266312151a3bfb2f18fc62017a438546cc1362 $v20/pai_sensor_table.header $ali/cluster-trace-gpu-v2020/data/pai_sensor_table.header
320470fa8f77182bc6052c95ff359b75542c748e9516b3d8148a6e2bafc1798d $v20/pai_group_tag_table.header $ali/cluster-trace-gpu-v2020/data/pai_group_tag_table.header
- clusterdata-cluster-trace-gpu-v2020-data/pai_machine_spec.tar.gz $oss/pai_machine_spec.tar.gz
LIST
	if [ $google -eq 1 ]; then
		cat <<LIST
- google-clusterdata-2011-2/SHA256SUM $gcs/SHA256SUM
- google-clusterdata-2011-2/machine_events/part-00000-of-00001.csv.gz $gcs/machine_events/part-00000-of-00001.csv.gz
- google-clusterdata-2011-2/task_events/part-00000-of-00500.csv.gz $gcs/task_events/part-00000-of-00500.csv.gz
LIST
	fi
}

if [ $dry -eq 1 ]; then
	list | while read -r sum dest url; do
		printf '%s -> %s/%s' "$url" "$dir" "$dest"
		[ "$sum" = - ] && echo || echo " (sha256 $sum)"
	done
	exit 0
fi

if command -v curl >/dev/null 2>&1; then
	get() { curl -fsSL --retry 3 -o "$2" "$1"; }
elif command -v wget >/dev/null 2>&1; then
	get() { wget -q -O "$2" "$1"; }
else
	echo "fetch-traces.sh: needs curl or wget" >&2
	exit 1
fi
command -v sha256sum >/dev/null 2>&1 || { echo "fetch-traces.sh: needs sha256sum" >&2; exit 1; }

ok=0
trap '[ $ok -eq 1 ] || rm -rf "$dir"' EXIT
# The pinned PAI machine table, once unpacked (the archive is not in the repository).
spec_sum=251e9e33649155a6a935fdc1dc0e90cd4698206936b60bd8fce60ff2ccd51439
mkdir -p "$dir"
list | while read -r sum dest url; do
	echo "fetch-traces.sh: $url" >&2
	mkdir -p "$dir/$(dirname "$dest")"
	get "$url" "$dir/$dest" || { echo "fetch-traces.sh: '$url': download failed" >&2; exit 1; }
	[ "$sum" = - ] && continue
	got=$(sha256sum "$dir/$dest" | cut -d' ' -f1)
	[ "$got" = "$sum" ] || {
		echo "fetch-traces.sh: '$dest': sha256 $got, not $sum" >&2
		exit 1
	}
done

spec=$dir/clusterdata-cluster-trace-gpu-v2020-data
tar -xzf "$spec/pai_machine_spec.tar.gz" -C "$spec"
f=$(find "$spec" -name pai_machine_spec.csv | head -1)
[ -n "$f" ] || { echo "fetch-traces.sh: no pai_machine_spec.csv in the archive" >&2; exit 1; }
[ "$f" = "$spec/pai_machine_spec.csv" ] || mv "$f" "$spec/pai_machine_spec.csv"
rm -f "$spec/pai_machine_spec.tar.gz"
got=$(sha256sum "$spec/pai_machine_spec.csv" | cut -d' ' -f1)
[ "$got" = "$spec_sum" ] || {
	echo "fetch-traces.sh: 'pai_machine_spec.csv': sha256 $got, not $spec_sum" >&2
	exit 1
}

if [ $google -eq 1 ]; then
	g=$dir/google-clusterdata-2011-2
	for part in machine_events/part-00000-of-00001.csv.gz task_events/part-00000-of-00500.csv.gz; do
		want=$(grep -F "$part" "$g/SHA256SUM" | head -1 | cut -d' ' -f1)
		got=$(sha256sum "$g/$part" | cut -d' ' -f1)
		[ -n "$want" ] && [ "$got" = "$want" ] || {
			echo "fetch-traces.sh: '$part': sha256 $got, not '$want' (SHA256SUM)" >&2
			exit 1
		}
	done
fi
ok=1
echo "fetch-traces.sh: done; run the tests on them with VOIDFIT_TRACES=$dir make check" >&2
