"""The verifier's reports (``VerificationReport.to_dict()``) on 33 checks of the Facebook trace's
schedules, pickled, to compare two revisions (issue 17; helper-93's 20 corrupted schedules,
helper-96's 13 more):

* 7 intact: SEBF + MADD with the trace's releases, the same with coflowsim's backfilling, BSSI +
  greedy at zero releases, each one-shot (``verify_schedule``) and in windows
  (``verify_in_windows``); the first 8 windows of per-flow fairness through
  ``WindowedVerifier``;
* 26 corrupted: on the SEBF + MADD and backfilling schedules, one-shot and windowed, five rates
  raised by 1, five by a factor 1 + 1e-7, a piece repeated, five flows short by 1e-8, a piece
  at 1e9 for 1e-9 inside a piece; on fairness's windows (inside window 3) rates raised by 1,
  by 1e-7, a piece repeated, a spike of 1e9 for 1e-9, a negative rate, a piece starting
  before its window.

The schedules are ``experiments/bench_verify.py``'s cache (``--cache``: ``sebf_madd_trace.npz``,
``sebf_madd-coflowsim_trace.npz``, ``bssi_greedy_zero.npz``, ``fair_trace-windows_8.pkl``).

Usage (under each revision, e.g. ``PYTHONPATH=<old tree>``; then compare the two pickles)::

    python experiments/bench_verify_reports.py OUT.pkl on|off|auto [--cache DIR]
    python experiments/bench_verify_reports.py --compare A.pkl B.pkl

``on`` / ``off``: the verifier's second thread forced on or off (``verify._THREADS``).
"""
import sys, pickle, numpy as np
if sys.argv[1] == "--compare":
    a, b = (pickle.load(open(p, "rb")) for p in sys.argv[2:4])
    same = [k for k in a if k in b and a[k] == b[k]]
    print(f"{len(same)} of {len(a)} identical; differing: {[k for k in a if k not in same]}")
    sys.exit(0 if len(same) == len(a) == len(b) else 1)
import os
CACHE = (sys.argv[sys.argv.index("--cache") + 1] if "--cache" in sys.argv
         else os.environ.get("TMPDIR", "/tmp") + "/coflowopt-bench-verify")  # bench_verify.py's
from coflowopt.formats import read_instance
from coflowopt.schedule import Schedule
from coflowopt.verify import verify_schedule, verify_in_windows, WindowedVerifier
inst = read_instance(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'shared', 'data', 'FB2010-1Hr-150-0.txt'))
inst0 = inst.with_releases(np.zeros(inst.num_coflows))
res = {}
import coflowopt.verify as _V
_V._THREADS = {"on": True, "off": False, "auto": None}[sys.argv[2]]
def note(key, rep):
    res[key] = rep.to_dict()
    print(key, rep.violation_counts, rep.overload_time, flush=True)
# intact held schedules
for name, ins in (('sebf_madd_trace', inst), ('sebf_madd-coflowsim_trace', inst), ('bssi_greedy_zero', inst0)):
    z = np.load(f'{CACHE}/{name}.npz')
    sc = Schedule(*(np.array(z[k]) for k in ('flow', 'start', 'end', 'rate')))
    for nm, fn in (('one', verify_schedule), ('win', verify_in_windows)):
        note((name, 'intact', nm), fn(ins, sc))
# corrupted held schedules (as helper-93's check, same seeds)
for name in ('sebf_madd-coflowsim_trace', 'sebf_madd_trace'):
    z = np.load(f'{CACHE}/{name}.npz')
    f, s, e, r = (np.array(z[k]) for k in ('flow', 'start', 'end', 'rate'))
    n = f.size
    rng = np.random.default_rng(0)
    J = rng.choice(n, 5, replace=False)
    cases = {}
    r1 = r.copy(); r1[J] += 1.0
    cases['raised'] = (f, s, e, r1)
    r1b = r.copy(); r1b[J] *= 1 + 1e-7
    cases['raised_little'] = (f, s, e, r1b)
    cases['overlap'] = tuple(np.insert(a, J[0] + 1, a[J[0]]) for a in (f, s, e, r))
    r3 = r.copy(); r3[np.isin(f, f[J])] *= 1 - 1e-8
    cases['short'] = (f, s, e, r3)
    j = int(J[1]); mid = s[j] + (e[j] - s[j]) / 2
    cases['spike'] = (np.insert(f, j, f[j]), np.insert(s, j, mid), np.insert(e, j, mid + 1e-9),
                      np.insert(r, j, 1e9))
    for c, (a, b, cc, d) in cases.items():
        sc = Schedule(a, b, cc, d)
        for nm, fn in (('one', verify_schedule), ('win', verify_in_windows)):
            note((name, c, nm), fn(inst, sc))
    del cases, f, s, e, r
# fair's first 8 windows, intact and corrupted (each corruption inside one window)
w = pickle.load(open(f'{CACHE}/fair_trace-windows_8.pkl', 'rb'))
def fair(kind):
    v = WindowedVerifier(inst)
    rng = np.random.default_rng(1)
    for k, (a, b, f, s, e, r) in enumerate(w):
        f, s, e, r = f.copy(), s.copy(), e.copy(), r.copy()
        if k == 3:
            J = rng.choice(f.size, 5, replace=False)
            if kind == 'raised':
                r[J] += 1.0
            elif kind == 'raised_little':
                r[J] *= 1 + 1e-7
            elif kind == 'overlap':
                f, s, e, r = (np.insert(x, J[0] + 1, x[J[0]]) for x in (f, s, e, r))
            elif kind == 'spike':
                j = int(J[1]); mid = s[j] + (e[j] - s[j]) / 2
                f, s, e, r = (np.insert(x, j, y) for x, y in ((f, f[j]), (s, mid), (e, mid + 1e-9), (r, 1e9)))
            elif kind == 'negative':
                r[J[0]] = -r[J[0]]
            elif kind == 'early':
                s[J[0]] = a - 1.0     # outside its window: malformed
        v.add(a, b, Schedule(f, s, e, r))
    note(('fair8', kind, 'windows'), v.report())
for kind in ('intact', 'raised', 'raised_little', 'overlap', 'spike', 'negative', 'early'):
    fair(kind)
pickle.dump(res, open(sys.argv[1], 'wb'))
