# import-k8s.sh — Kubernetes pod and node Lists ('kubectl get pods -A -o json', 'kubectl get
# nodes -o json'; tests/data/k8s-*.json, written in the layout kubectl prints core/v1 Pods
# and Nodes, as the Kubernetes API reference defines them): requests and limits summed,
# init containers, whole and shared GPUs, models from selectors and affinity, times, a pod
# never scheduled; bad items quarantined by the line where they begin; a file cut short.
. "$VOIDFIT_TOP/tests/lib.sh"
d=$VOIDFIT_TOP/tests/data
cp "$d/k8s-pods.json" pods.json
cp "$d/k8s-nodes.json" nodes.json
expect_rc 0 vf import -o f.db pods.json --nodes nodes.json
contains out "pods.json: k8s, 6 rows read, 4 accepted, 2 quarantined"
contains out "nodes.json: k8s, 5 rows read, 4 accepted, 1 quarantined"
contains err "pods.json:71: container 'c': cpu is not a quantity"
contains err "pods.json:78: pod without metadata.creationTimestamp"
contains err "nodes.json:34: node 'broken': no cpu or memory in status.allocatable"
# train-0: init container's 16 CPUs beat 7.5 + 0.5; 32Gi + 512Mi; ends at the last
# finishedAt. infer-share: 4 GiB of a T4 (16 GiB) = 250 milli. pending: never ran. web:
# ends at its deletionTimestamp.
vf export --jobs f.db > jobs
cat > want <<'T'
job,arrival,duration,class,cpu_milli,mem_mib,num_gpu,gpu_milli,hbm_mib,net_mbps,sto_mbps,iocpu_milli,gpu_spec
0,1709287200,3600,train,16000,33280,2,1000,,,,,A100
1,1709287500,,train,2000,3815,1,250,4096,,,,T4
2,1709287560,,train,1000,1024,1,1000,,,,,
3,1709287620,599,cpu,250,123,0,0,,,,,
T
cmp want jobs || { diff want jobs >&2; die "k8s jobs"; }
vf export --nodes f.db > nodes
cat > want <<'T'
node,group,model,cpu_milli,mem_mib,gpu,hbm_mib,net_mbps,sto_mbps,iocpu_milli
gpu-a,,A100,95800,1031586,8,40960,,,
gpu-b,,T4,32000,131072,4,16384,,,
gpu-c,,UNKNOWN,32000,131072,2,16384,,,
cpu-a,,,64000,262144,0,0,,,
T
cmp want nodes || { diff want nodes >&2; die "k8s nodes"; }
vf export --raw -d raw f.db
cmp raw/pods.json pods.json || die "not kept byte for byte"
# the quarantine keeps the whole item, from its first line
sqlite3 f.db "SELECT line, raw FROM quarantine ORDER BY line" > q 2>/dev/null ||
	sqlite3 f.db ".tables" >&2
contains q '"name": "no-time"'
# a List cut short fails the file, naming where the open item began
head -n 60 pods.json > cut.json
expect_rc 1 vf import -o g.db cut.json
contains err "cut.json: the file ends inside the item of line 57 (cut short?)"
[ ! -e g.db ] || die "a failed import left a store"
