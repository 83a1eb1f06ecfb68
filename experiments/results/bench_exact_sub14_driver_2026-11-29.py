import sys, json, os
sys.path.insert(0, "/work/main/experiments")
import bench_exact as be
from coflowopt.exact import branch_and_bound as B
sub_max, cap, fam, K, seed = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
orig = B._Search.sub_bound
def sub_bound(self, U, need):
    old = B.SUB_NODES
    if bin(U).count("1") > 12:
        B.SUB_NODES = cap
    try:
        return orig(self, U, need)
    finally:
        B.SUB_NODES = old
B._Search.sub_bound = sub_bound
be.CLOCK = "cpu"
r = be.run_bnb(be.family(K, seed, fam), 60, sub_max=sub_max)
r.update(sub_max=sub_max, cap=cap, fam=fam, K=K, seed=seed, load=os.getloadavg()[0])
print(json.dumps(r), flush=True)
