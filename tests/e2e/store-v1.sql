-- store-v1.sql: a store made by voidfit at schema version 1 (before migration 002), as
-- 'sqlite3 .dump' writes it (plus the two pragmas a dump leaves out): a 5-job trace 'jobs'
-- of 2 nodes with one quarantined row, and one first-fit run. Load it with sqlite3.
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE traces (
	id INTEGER PRIMARY KEY,
	name TEXT NOT NULL UNIQUE,
	created_at INTEGER NOT NULL,      -- seconds since the epoch
	njobs INTEGER NOT NULL DEFAULT 0, -- rows in job_blocks
	nnodes INTEGER NOT NULL DEFAULT 0 -- rows in nodes
);
INSERT INTO traces VALUES(1,'jobs',1796155244,5,2);
CREATE TABLE files (
	id INTEGER PRIMARY KEY,
	trace_id INTEGER NOT NULL REFERENCES traces(id),
	name TEXT NOT NULL,             -- base name as imported
	format TEXT NOT NULL,           -- detected or given format
	size INTEGER NOT NULL,          -- bytes as imported
	sha256 TEXT NOT NULL,           -- hex of those bytes
	rows_read INTEGER NOT NULL DEFAULT 0,
	rows_accepted INTEGER NOT NULL DEFAULT 0,
	rows_quarantined INTEGER NOT NULL DEFAULT 0,
	imported_at INTEGER NOT NULL,   -- seconds since the epoch
	voidfit_version TEXT NOT NULL,
	raw_mode TEXT,                  -- 'text' or 'opaque'; NULL until the bytes are stored
	raw_eol TEXT,                   -- text: 'lf' or 'crlf', the usual line ending
	raw_final_newline INTEGER,      -- text: 1 if the file ends with a line ending
	raw_lines INTEGER,              -- text: physical lines
	raw_exceptions INTEGER,         -- text: lines kept verbatim
	raw_ncols INTEGER,              -- text: fields of a simple line
	raw_bytes INTEGER               -- bytes stored (must equal size)
);
INSERT INTO files VALUES(1,1,'jobs.csv','native-jobs',333,'92c36385669eb86b46cc6ef43d3a0d48bee4651b9b5c7ea645c47347e74e76cd',6,5,1,1796155244,'0.1.0','text','lf',1,7,0,13,333);
INSERT INTO files VALUES(2,1,'nodes.csv','native-nodes',189,'e507c5118a3e9224f2c3a3b74d4aaa5eb139402392be4298a0f2a2b70436f1da',2,2,0,1796155244,'0.1.0','text','lf',1,3,0,10,189);
CREATE TABLE quarantine (
	file_id INTEGER NOT NULL REFERENCES files(id),
	line INTEGER NOT NULL, -- 1-based line in the file
	reason TEXT NOT NULL,
	raw BLOB NOT NULL
);
INSERT INTO quarantine VALUES(1,7,'column ''arrival'': ''xx'' is not a number',X'6a6261642c78782c312c62617463682c313030302c313032342c312c313030302c2c2c2c2c');
CREATE TABLE nodes (
	trace_id INTEGER NOT NULL REFERENCES traces(id),
	idx INTEGER NOT NULL,
	name TEXT NOT NULL,
	grp TEXT NOT NULL,
	model TEXT,            -- GPU model name, NULL for a node without GPUs
	ngpu INTEGER NOT NULL,
	cpu_milli INTEGER NOT NULL,
	mem_mib INTEGER NOT NULL,
	gpu_milli INTEGER NOT NULL,
	hbm_mib INTEGER NOT NULL,
	net_mbps INTEGER NOT NULL,
	sto_mbps INTEGER NOT NULL,
	iocpu_milli INTEGER NOT NULL,
	enriched INTEGER NOT NULL -- bit mask of the dims enrichment filled in
);
INSERT INTO nodes VALUES(1,0,'n0000','a100','A100',8,128000,1048576,8000,327680,12500,4000,16000,0);
INSERT INTO nodes VALUES(1,1,'n0001','a100','A100',8,128000,1048576,8000,327680,12500,4000,16000,0);
CREATE TABLE raw_blocks (
	file_id INTEGER NOT NULL REFERENCES files(id),
	seq INTEGER NOT NULL,
	data BLOB NOT NULL
);
INSERT INTO raw_blocks VALUES(1,0,X'b7020107fe02c801afb590750244110828b52ffd607e00f50500524a221f806d0e33300333306881cd972e060b1a9856261844c6ac000a00c37be39629ffffeec51361f8b2cc9531c6ea9d39b2ba177592605f6a9834af66255e5f567be78dee91af2f6d55d93b35ec51ba17d39369b52ccd32c6b47a881fe8c3a63f5897cd34d3a0277796961c57d1cd66198d3fdef0840c22743ec03e442b45d58b92307803fd081f6f08011620f02622b2030a06a0e9415041033be2da5e746eb76d6044659de7771f60a9e06b880ca8646d98ecd158e0eb7d6c6f0563');
INSERT INTO raw_blocks VALUES(2,0,X'b7020103f7019b01517d518a61eeec7d28b52ffd20f795040042481b1ea0ab0367eebf55c52db5cd7beff27daffd530df87f755fd9577cfba54c01ffff6f2f8dbfb268d4aa76cbf65dd5271b0bce1f119e84ecfbaad13f60d89350fec6d161fb8ed3146573d5e74f1866821095ff97dbb7e3d48b521173f1ee7ff97b624e08d1c9dc5f7ec00f5e00010e0013b3b54b3020234fb32fb96063a70cb2aa7067c000807a12169c4d278507370f');
CREATE TABLE job_blocks (
	trace_id INTEGER NOT NULL REFERENCES traces(id),
	seq INTEGER NOT NULL,
	nrows INTEGER NOT NULL,
	data BLOB NOT NULL
);
INSERT INTO job_blocks VALUES(1,0,5,X'b70301053a2fa44ddd91538359f528b52ffd203a3501003282060de0e90088002650c1dc2f27650affcf9f2b7dd4cf8bec71c3d603003687e8cc7db84d');
CREATE TABLE runs (
	id INTEGER PRIMARY KEY,
	trace_id INTEGER NOT NULL REFERENCES traces(id),
	policy TEXT NOT NULL,
	mode TEXT NOT NULL,
	seed INTEGER NOT NULL,   -- the uint64 seed, stored as its int64 bit pattern
	params_json TEXT NOT NULL,
	summary_json TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	series BLOB,             -- sealed zblk block of bytes, NULL if none
	jobs BLOB                -- sealed zblk block of bytes, NULL if none
);
INSERT INTO runs VALUES(1,1,'first-fit','timed',1,'{"voidfit_version":"0.1.0","trace":"jobs","trace_id":1,"policy":"first-fit","mode":"timed","seed":"1","target":null,"queue":"fifo","preempt":false,"dims":"cpu,mem,gpu,hbm","dims_override":false,"lambda":0.5,"mu":0.25,"coverage":0.95,"sample_nodes":0,"faults":[],"profile":{"path":null,"name":"default","version":1,"text":"# enrich-v1.profile — voidfit''s built-in enrichment profile (format version 1).\n#\n# FORMAT. One statement a line; ''#'' starts a comment; words are separated by blanks.\n#   name NAME            the profile''s name (required, once)\n#   version N            the profile''s version, a positive integer (required, once)\n#   job CLASSES DIM DIST PARAM=VALUE...     a job demand rule\n#   node TYPES DIM DIST PARAM=VALUE...      a node capacity rule\n# CLASSES: infer, train, batch, cpu, or ''*'' (any), several joined by ''|''.\n# TYPES:   GPU model names (gpu-models.csv; aliases allowed), ''gpu'' (any node with GPUs),\n#          ''cpu'' (a node without GPUs), or ''*'' (any), several joined by ''|''.\n# DIM:     job rules: net, sto, iocpu, cpu, mem; node rules: net, sto, iocpu, cpu, mem.\n#          Units: net and sto MB/s, iocpu and cpu millicores, mem MiB.\n# DIST:    fixed value=V | uniform lo=A hi=B | lognormal median=M sigma=S\n#          (lognormal: exp(ln M + S z), z standard normal).\n# Optional: min=X max=Y clamp the draw; per=gpu multiplies the clamped draw by the job''s\n#          GPUs (num_gpu * gpu_milli / 1000; 1 for a job without GPUs) or the node''s GPU\n#          count (1 without GPUs). The result is rounded to the nearest integer, at least 0.\n# The most specific rule wins: for jobs a class over ''*''; for nodes a model over gpu/cpu\n# over ''*''. Two rules of the same specificity for the same target and dim are an error,\n# and every job class and node kind (gpu, cpu) must be covered on net, sto and iocpu, and\n# every node kind on cpu and mem.\n# A value depends on (name, version, seed, job id or node name, dim) only.\n#\n# NUMBERS. These are assumptions for plausibility, not measurements; replace them with your\n# cluster''s figures (--profile FILE).\n# - Training reads its dataset at tens to hundreds of MB/s per GPU (an ImageNet-class\n#   image pipeline at ~1,000 images/s of ~110 KB each is ~110 MB/s per V100-class GPU);\n#   cross-node gradient traffic is of the same order per GPU. Heavy tail: sigma 0.8-1.\n# - Online inference moves small requests: little network, almost no storage.\n# - Batch GPU jobs (offline inference, best-effort) stream inputs at moderate rates.\n# - CPU-only jobs: light I/O.\n# - iocpu: cores a job spends on I/O (data loaders, RPC); a fraction of a core per GPU.\n# - Node NICs 25-100 Gb/s (3,125-12,500 MB/s); node storage (local NVMe or network\n#   storage share) 2-4 GB/s, 8 GB/s on H100 nodes; iocpu a sixth to a quarter of cores.\n# - Node cpu and mem rules apply only where a trace lacks them (cluster specs, DLRM).\n# - A job whose trace leaves cpu or mem empty is assumed to take one core and 4 GiB per GPU\n#   (per job without GPUs): an assumption, so the replay can place it at all.\n\nname default\nversion 1\n\njob infer        net   lognormal median=20  sigma=1.0 min=1  max=1000 per=gpu\njob infer        sto   lognormal median=5   sigma=1.0 min=0  max=200  per=gpu\njob infer        iocpu lognormal median=200 sigma=0.5 min=50 max=2000 per=gpu\njob train        net   lognormal median=100 sigma=1.0 min=5  max=3000 per=gpu\njob train        sto   lognormal median=150 sigma=0.8 min=10 max=2000 per=gpu\njob train        iocpu lognormal median=500 sigma=0.5 min=100 max=4000 per=gpu\njob batch        net   lognormal median=30  sigma=1.0 min=1  max=1000 per=gpu\njob batch        sto   lognormal median=80  sigma=1.0 min=5  max=1500 per=gpu\njob batch        iocpu lognormal median=300 sigma=0.5 min=50 max=3000 per=gpu\njob cpu          net   lognormal median=10  sigma=1.0 min=1  max=500\njob cpu          sto   lognormal median=20  sigma=1.0 min=1  max=500\njob cpu          iocpu lognormal median=100 sigma=0.5 min=20 max=1000\njob *            cpu   fixed value=1000 per=gpu\njob *            mem   fixed value=4096 per=gpu\n\nnode *           net   fixed value=3125\nnode *           sto   fixed value=2000\nnode *           iocpu fixed value=8000\nnode *           cpu   fixed value=96000\nnode *           mem   fixed value=393216\nnode cpu         sto   fixed value=1000\nnode cpu         iocpu fixed value=4000\nnode A100|G3     net   fixed value=12500\nnode A100|G3     sto   fixed value=4000\nnode A100|G3     iocpu fixed value=16000\nnode A100|G3     cpu   fixed value=128000\nnode A100|G3     mem   fixed value=1048576\nnode H100        net   fixed value=25000\nnode H100        sto   fixed value=8000\nnode H100        iocpu fixed value=24000\nnode H100        cpu   fixed value=192000\nnode H100        mem   fixed value=2097152\nnode V100M16|V100M32|V100|G2 sto fixed value=3000\n"},"enrich_seed":"1","io_pressure":1,"gpu_prices":[],"cluster":null,"nodes":2,"jobs":5}','{"t0":10,"t1":80,"hours":0.019444444444444445,"gpus":16,"events":10,"gpu_hours":{"productive":0.041666666666666664,"stalled":0,"idle_frag":0,"idle_usable":0.26944444444444443,"provisioned":0.3111111111111111},"usd_per_year":{"productive":76962.85714285713,"stalled":0,"idle_frag":0,"idle_usable":497693.14285714284,"provisioned":574656},"mean_fragmentation":0,"md_fragmentation":0,"alloc_mean":0.13392857142857142,"stranded_mean":{"cpu":0,"mem":0,"gpu":0,"hbm":0,"net":0,"sto":0,"iocpu":0},"arrived_load":null,"unallocated_gpu_share":null,"unallocated_gpu_share_at_100":null,"failed_jobs":0,"all":{"jobs":5,"finished":5,"running":0,"queued":0,"unplaceable":0,"skipped":0,"preempted":0,"wait_mean_s":0,"wait_p95_s":0,"jct_mean_s":30,"jct_p95_s":30,"slowdown_mean":1,"slowdown_p95":1,"stalled_gpu_hours":0,"lost_gpu_hours":0,"throughput_per_hour":257.1428571428571},"class":{"infer":{"jobs":0,"finished":0,"running":0,"queued":0,"unplaceable":0,"skipped":0,"preempted":0,"wait_mean_s":0,"wait_p95_s":0,"jct_mean_s":0,"jct_p95_s":0,"slowdown_mean":0,"slowdown_p95":0,"stalled_gpu_hours":0,"lost_gpu_hours":0,"throughput_per_hour":0},"train":{"jobs":5,"finished":5,"running":0,"queued":0,"unplaceable":0,"skipped":0,"preempted":0,"wait_mean_s":0,"wait_p95_s":0,"jct_mean_s":30,"jct_p95_s":30,"slowdown_mean":1,"slowdown_p95":1,"stalled_gpu_hours":0,"lost_gpu_hours":0,"throughput_per_hour":257.1428571428571},"batch":{"jobs":0,"finished":0,"running":0,"queued":0,"unplaceable":0,"skipped":0,"preempted":0,"wait_mean_s":0,"wait_p95_s":0,"jct_mean_s":0,"jct_p95_s":0,"slowdown_mean":0,"slowdown_p95":0,"stalled_gpu_hours":0,"lost_gpu_hours":0,"throughput_per_hour":0},"cpu":{"jobs":0,"finished":0,"running":0,"queued":0,"unplaceable":0,"skipped":0,"preempted":0,"wait_mean_s":0,"wait_p95_s":0,"jct_mean_s":0,"jct_p95_s":0,"slowdown_mean":0,"slowdown_p95":0,"stalled_gpu_hours":0,"lost_gpu_hours":0,"throughput_per_hour":0}},"enriched":"jobs: net 5/5, sto 5/5, iocpu 5/5; nodes: none of 2"}',1796155244,X'b70101cc0ecc0e8e02efadc526606d7f9228b52ffd604c06250800e20a201a80a56d0368c54236bc4534121a44c6282291dd5e3b3e89a9d111c734af96c4b6bb5e1fd3bc5a92ed5e9ebfe3b57bde1ed3bc5a12d5eef83c9e1ed3bc5aac0de295639a574b26225e1ed3bc5a126d930f000d7f6849ad02114f6a801446415c601486911c4f2a51c9c05aa8803c090c02741057071a204300612df48408eb8566a851c9a72095ecb30680834485c6112034460c214440082102420814c8faed8ffab66d8d8bd27aba5b4ed008f191d38581e71dc2d836e4b230f7c1b1cda28c0620f4e6b1ed79b720f6b9ceb6b3eba5776cdfe16e0d21efdd2e9245f519c3839e922bc9fc875f0dc41d6f626dda5dd916ff32503f273a4505a742aeb849c585d4',X'b701019602960295018dc1544dce6c369028b52ffd6016005d040052c8191980476de5973dcf8d0af211bbb1d5885c4744fbfff328522c3a02e4081c06c028900211763bba19b703ddbe7a4dff980aeb2ae146f02e6d66c96c9873729842c254ea9abfcfc267297eee5297fab8f96eaef9ad4be2f013d79ef9d4e007e579f6351f3525cb100e004999e8ae03892565a2bb0e123f612ce598ae15902e2963ba4b482abff57267');
CREATE TABLE run_metrics (
	run_id INTEGER NOT NULL REFERENCES runs(id),
	key TEXT NOT NULL,
	value REAL
);
INSERT INTO run_metrics VALUES(1,'mean_fragmentation',0.0);
INSERT INTO run_metrics VALUES(1,'md_fragmentation',0.0);
INSERT INTO run_metrics VALUES(1,'failed_jobs',0.0);
INSERT INTO run_metrics VALUES(1,'stalled_gpu_hours',0.0);
INSERT INTO run_metrics VALUES(1,'productive_gpu_hours',0.041666666666666664353);
INSERT INTO run_metrics VALUES(1,'idle_frag_gpu_hours',0.0);
INSERT INTO run_metrics VALUES(1,'provisioned_gpu_hours',0.31111111111111111604);
INSERT INTO run_metrics VALUES(1,'wait_mean_s',0.0);
INSERT INTO run_metrics VALUES(1,'slowdown_mean',1.0);
INSERT INTO run_metrics VALUES(1,'jct_mean_s',30.0);
INSERT INTO run_metrics VALUES(1,'unplaceable_jobs',0.0);
INSERT INTO run_metrics VALUES(1,'placed_jobs',5.0);
INSERT INTO run_metrics VALUES(1,'events',10.0);
INSERT INTO run_metrics VALUES(1,'usd_per_year_wasted',0.0);
INSERT INTO run_metrics VALUES(1,'usd_per_year_provisioned',574656.0);
COMMIT;
PRAGMA application_id = 1447446868;
PRAGMA user_version = 1;
