# enrich-v2.profile — voidfit's built-in enrichment profile (format version 2: levels=).
#
# FORMAT. One statement a line; '#' starts a comment; words are separated by blanks.
#   name NAME            the profile's name (required, once)
#   version N            the profile's version, a positive integer (required, once)
#   job CLASSES DIM DIST PARAM=VALUE...     a job demand rule
#   node TYPES DIM DIST PARAM=VALUE...      a node capacity rule
# CLASSES: infer, train, batch, cpu, or '*' (any), several joined by '|'.
# TYPES:   GPU model names (gpu-models.csv; aliases allowed), 'gpu' (any node with GPUs),
#          'cpu' (a node without GPUs), or '*' (any), several joined by '|'.
# DIM:     job rules: net, sto, iocpu, cpu, mem; node rules: net, sto, iocpu, cpu, mem.
#          Units: net and sto MB/s, iocpu and cpu millicores, mem MiB.
# DIST:    fixed value=V | uniform lo=A hi=B | lognormal median=M sigma=S
#          (lognormal: exp(ln M + S z), z standard normal).
# Optional: min=X max=Y clamp the draw; per=gpu multiplies the clamped draw by the job's
#          GPUs (num_gpu * gpu_milli / 1000; 1 for a job without GPUs) or the node's GPU
#          count (1 without GPUs); levels=L1,L2,... (ascending, at most 32) then snaps the
#          value to the nearest level (halfway: the higher; below L1: L1; above the last:
#          the last), the values a request may take. The result is rounded to the nearest
#          integer, at least 0.
# The most specific rule wins: for jobs a class over '*'; for nodes a model over gpu/cpu
# over '*'. Two rules of the same specificity for the same target and dim are an error,
# and every job class and node kind (gpu, cpu) must be covered on net, sto and iocpu, and
# every node kind on cpu and mem.
# A value depends on (name, version, seed, job id or node name, dim) only.
#
# NUMBERS. These are assumptions for plausibility, not measurements; replace them with your
# cluster's figures (--profile FILE).
# - Training reads its dataset at tens to hundreds of MB/s per GPU (an ImageNet-class
#   image pipeline at ~1,000 images/s of ~110 KB each is ~110 MB/s per V100-class GPU);
#   cross-node gradient traffic is of the same order per GPU. Heavy tail: sigma 0.8-1.
# - Online inference moves small requests: little network, almost no storage.
# - Batch GPU jobs (offline inference, best-effort) stream inputs at moderate rates.
# - CPU-only jobs: light I/O.
# - iocpu: cores a job spends on I/O (data loaders, RPC); a fraction of a core per GPU.
# - Node NICs 25-100 Gb/s (3,125-12,500 MB/s); node storage (local NVMe or network
#   storage share) 2-4 GB/s, 8 GB/s on H100 nodes; iocpu a sixth to a quarter of cores.
# - Node cpu and mem rules apply only where a trace lacks them (cluster specs, DLRM).
# - Request levels: real requests take few values. The Alibaba gpu-v2025 DLRM trace records
#   network and disk requests: rdma_request takes 7 values (1, 10, 25, 50, 51, 75, 100) over
#   23,871 instances, cpu_request 10 (whole cores), and its 160 distinct request vectors
#   cover them all; openb's 8,152 pods have 151 distinct (cpu, mem, gpu) shapes. So a job's
#   net and sto are drawn as before, per GPU, then snapped to a 1-2-5 ladder of MB/s (the
#   round figures a user writes in a request: 1, 2, 5, 10, 20, 50, ...), and its iocpu to
#   whole cores (0 for a job whose I/O takes less than half a core). Node capacities are
#   fixed values already.
# - A job whose trace leaves cpu or mem empty is assumed to take one core and 4 GiB per GPU
#   (per job without GPUs): an assumption, so the replay can place it at all.

name default
version 2

job infer        net   lognormal median=20  sigma=1.0 min=1  max=1000 per=gpu levels=1,2,5,10,20,50,100,200,500,1000,2000,5000,10000,20000,50000
job infer        sto   lognormal median=5   sigma=1.0 min=0  max=200  per=gpu levels=1,2,5,10,20,50,100,200,500,1000,2000,5000,10000,20000,50000
job infer        iocpu lognormal median=200 sigma=0.5 min=50 max=2000 per=gpu levels=0,1000,2000,3000,4000,6000,8000,12000,16000,24000,32000
job train        net   lognormal median=100 sigma=1.0 min=5  max=3000 per=gpu levels=1,2,5,10,20,50,100,200,500,1000,2000,5000,10000,20000,50000
job train        sto   lognormal median=150 sigma=0.8 min=10 max=2000 per=gpu levels=1,2,5,10,20,50,100,200,500,1000,2000,5000,10000,20000,50000
job train        iocpu lognormal median=500 sigma=0.5 min=100 max=4000 per=gpu levels=0,1000,2000,3000,4000,6000,8000,12000,16000,24000,32000
job batch        net   lognormal median=30  sigma=1.0 min=1  max=1000 per=gpu levels=1,2,5,10,20,50,100,200,500,1000,2000,5000,10000,20000,50000
job batch        sto   lognormal median=80  sigma=1.0 min=5  max=1500 per=gpu levels=1,2,5,10,20,50,100,200,500,1000,2000,5000,10000,20000,50000
job batch        iocpu lognormal median=300 sigma=0.5 min=50 max=3000 per=gpu levels=0,1000,2000,3000,4000,6000,8000,12000,16000,24000,32000
job cpu          net   lognormal median=10  sigma=1.0 min=1  max=500 levels=1,2,5,10,20,50,100,200,500,1000,2000,5000,10000,20000,50000
job cpu          sto   lognormal median=20  sigma=1.0 min=1  max=500 levels=1,2,5,10,20,50,100,200,500,1000,2000,5000,10000,20000,50000
job cpu          iocpu lognormal median=100 sigma=0.5 min=20 max=1000 levels=0,1000,2000,3000,4000,6000,8000,12000,16000,24000,32000
job *            cpu   fixed value=1000 per=gpu
job *            mem   fixed value=4096 per=gpu

node *           net   fixed value=3125
node *           sto   fixed value=2000
node *           iocpu fixed value=8000
node *           cpu   fixed value=96000
node *           mem   fixed value=393216
node cpu         sto   fixed value=1000
node cpu         iocpu fixed value=4000
node A100|G3     net   fixed value=12500
node A100|G3     sto   fixed value=4000
node A100|G3     iocpu fixed value=16000
node A100|G3     cpu   fixed value=128000
node A100|G3     mem   fixed value=1048576
node H100        net   fixed value=25000
node H100        sto   fixed value=8000
node H100        iocpu fixed value=24000
node H100        cpu   fixed value=192000
node H100        mem   fixed value=2097152
node V100M16|V100M32|V100|G2 sto fixed value=3000
