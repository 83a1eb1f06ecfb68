"""The ahead-of-time compiled kernels (``coflowopt._aot``): the argument check that guards the
module, the fallback to the JIT when the module is absent or stale, a quick build of two
kernels, and (when the full module is built for these sources) the same pieces as the JIT.

Each run that activates the module runs in a subprocess: activation changes the process's
kernels, and numba may already be loaded in the test process."""

from __future__ import annotations

import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from coflowopt import _aot


def _run(code: str, env_extra: dict) -> str:
    env = dict(os.environ, **env_extra)
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def _have_compiler() -> bool:
    import importlib.util
    try:
        if importlib.util.find_spec("numba.pycc") is None:
            return False
    except ImportError:
        return False
    return any(shutil.which(c) for c in ("cc", "gcc", "clang"))


# ----------------------------------------------------------------------- the argument check
def test_matches_arrays_by_dtype_layout_and_writability():
    c = ["array", "int64", 1, "C", False]
    assert _aot._matches(c, np.zeros(3, dtype=np.int64))
    assert not _aot._matches(c, np.zeros(3, dtype=np.int32))        # another dtype
    assert not _aot._matches(c, np.zeros(3))                         # float64
    assert not _aot._matches(c, np.zeros(6, dtype=np.int64)[::2])    # strided: "A"
    assert not _aot._matches(c, np.zeros((3, 1), dtype=np.int64))   # 2-d
    ro = np.zeros(3, dtype=np.int64)
    ro.flags.writeable = False
    assert not _aot._matches(c, ro)                                  # compiled to write
    assert _aot._matches(["array", "int64", 1, "C", True], ro)
    assert _aot._matches(["array", "int64", 1, "C", True], np.zeros(3, dtype=np.int64))
    assert _aot._matches(["array", "int64", 1, "A", False], np.zeros(6, dtype=np.int64)[::2])
    f = ["array", "float64", 2, "F", False]
    assert _aot._matches(f, np.zeros((3, 2), order="F"))
    assert not _aot._matches(f, np.zeros((3, 2)))
    assert not _aot._matches(c, [1, 2, 3])


def test_matches_scalars_and_tuples_as_numba_types_them():
    i, x, b = ["scalar", "int64"], ["scalar", "float64"], ["scalar", "bool"]
    assert _aot._matches(i, 3) and _aot._matches(i, np.int64(3))
    assert not _aot._matches(i, True) and not _aot._matches(i, np.int32(3))
    assert not _aot._matches(i, 3.0)
    assert _aot._matches(x, 3.0) and _aot._matches(x, np.float64(3))
    assert not _aot._matches(x, 3) and not _aot._matches(x, np.float32(3))
    assert _aot._matches(b, False) and _aot._matches(b, np.bool_(True))
    assert not _aot._matches(b, 0)
    t = ["tuple", [["array", "int64", 1, "C", False], i]]
    assert _aot._matches(t, (np.zeros(2, dtype=np.int64), 4))
    assert not _aot._matches(t, [np.zeros(2, dtype=np.int64), 4])
    assert not _aot._matches(t, (np.zeros(2, dtype=np.int64),))


# ----------------------------------------------------------------------- absent, stale
def test_absent_module_leaves_the_jit(tmp_path):
    out = _run("""
        import sys
        from coflowopt import _aot
        print(_aot.activate(), _aot.load() is None)
        from coflowopt.rates import _madd_kernel as k
        print(type(k.window_sums).__name__)
        """, {"COFLOWOPT_AOT_DIR": str(tmp_path)})
    assert out.split() == ["False", "True", "_LazyKernel"]


def test_stale_module_is_never_loaded(tmp_path):
    """A module built from other sources has another name; one whose sidecar names another
    key (a half-written or hand-copied build) is refused as well."""
    key = _aot.source_key()
    name = _aot.module_name(key)
    assert name != _aot.module_name("0" * 64)
    env = {"COFLOWOPT_AOT_DIR": str(tmp_path)}
    so = tmp_path / (name + importlib.machinery.EXTENSION_SUFFIXES[0])
    so.write_bytes(b"not a module")
    (tmp_path / (name + ".json")).write_text(json.dumps({"key": "0" * 64, "entries": []}))
    out = _run("""
        from coflowopt import _aot
        print(_aot.load() is None, _aot.activate())
        """, env)
    assert out.split() == ["True", "False"]
    # the right key but an unreadable module: refused, not a crash
    (tmp_path / (name + ".json")).write_text(json.dumps({"key": key, "entries": []}))
    out = _run("""
        from coflowopt import _aot
        print(_aot.load() is None, _aot.activate())
        """, env)
    assert out.split() == ["True", "False"]


def test_disabled_by_environment(tmp_path):
    out = _run("""
        import sys
        from coflowopt import _aot
        _aot.activate_when_imported()
        import coflowopt.rates
        print(_aot.active(), any(isinstance(f, _aot._ActivateOnImport) for f in sys.meta_path))
        """, {"COFLOWOPT_AOT_DIR": str(tmp_path), "COFLOWOPT_AOT": "0"})
    assert out.split() == ["False", "False"]


# ----------------------------------------------------------------------- a quick build
_WINDOW_SUMS = """
    import sys
    import numpy as np
    from coflowopt import _aot
    print(_aot.activate())
    from coflowopt.rates import _madd_kernel as k
    rng = np.random.default_rng(3)
    F = 50
    flow = rng.integers(0, F, 400).astype(np.int64)
    amount = rng.random(400)
    sent, seen, here = np.zeros(F), np.zeros(F, dtype=bool), np.zeros(F, dtype=np.int64)
    r = k.window_sums(flow, amount, sent, seen, here)
    print("numba" in sys.modules, repr(r), sent.tobytes().hex()[:64], int(here.sum()))
    # another dtype: the JIT kernel (numba loads now), the same values
    sent2, seen2, here2 = np.zeros(F), np.zeros(F, dtype=bool), np.zeros(F, dtype=np.int64)
    r2 = k.window_sums(flow.astype(np.int32), amount, sent2, seen2, here2)
    print("numba" in sys.modules, np.array_equal(sent, sent2), repr(r) == repr(r2))
"""


@pytest.mark.slow
@pytest.mark.skipif(not _have_compiler(), reason="no C compiler or numba.pycc")
def test_quick_build_is_used_and_falls_back_on_other_types(tmp_path):
    """Build ``window_sums`` alone, use it without numba, and take the JIT for arguments it
    was not compiled for; the JIT alone gives the same result."""
    env = {"COFLOWOPT_AOT_DIR": str(tmp_path)}
    _run("""
        from coflowopt import _aot
        _aot.build(verbose=False, only=["window_sums"])
        """, env)
    aot = _run(_WINDOW_SUMS, env).splitlines()
    jit = _run(_WINDOW_SUMS, {"COFLOWOPT_AOT": "0"}).splitlines()
    assert aot[0] == "True" and jit[0] == "False"
    assert aot[1].startswith("False ")          # numba not imported: the compiled kernel
    assert jit[1].startswith("True ")
    assert aot[1].split(" ", 1)[1] == jit[1].split(" ", 1)[1]
    assert aot[2] == "True True True"


# ----------------------------------------------------------------------- the full module
_PIECES = """
    import hashlib, sys
    import numpy as np
    from coflowopt import _aot
    active = _aot.activate()
    from coflowopt.generators import uniform_random
    from coflowopt.orderings.heuristics import sebf
    from coflowopt.rates.madd import madd, run_madd_windows
    from coflowopt.rates.greedy import greedy
    from coflowopt.schedule import Schedule
    from coflowopt.verify import verify_schedule

    def digest(s):
        o = np.lexsort((s.rate, s.end, s.start, s.flow))
        h = hashlib.sha256()
        for a in (s.flow, s.start, s.end, s.rate):
            h.update(np.ascontiguousarray(np.asarray(a)[o]).tobytes())
        return h.hexdigest()[:20]

    out = [str(active)]
    for seed in range(4):
        inst = uniform_random(num_ports=6, num_coflows=25, seed=seed)
        order = sebf(inst)
        for s in (madd(inst, order), greedy(inst, order)):
            assert verify_schedule(inst, s).ok
            out.append(digest(s))
        parts = []
        run_madd_windows(inst, np.argsort(order), lambda s, a, b: parts.append(s), sebf=True,
                         backfill="varys", window=7)
        whole = Schedule(*(np.concatenate([getattr(p, c) for p in parts])
                           for c in ("flow", "start", "end", "rate")))
        assert verify_schedule(inst, whole).ok
        out.append(f"{len(parts)}:{digest(whole)}")
    out.append(str("numba" in sys.modules))
    print(" ".join(out))
"""


@pytest.mark.skipif(_aot.load() is None,
                    reason="no compiled kernels for these sources (python -m coflowopt._aot build)")
def test_built_module_gives_the_jit_pieces():
    """The module built for these sources (the user's ``python -m coflowopt._aot build``)
    and the JIT give the same pieces bit for bit, held and in sink mode, verified."""
    aot = _run(_PIECES, {}).split()
    jit = _run(_PIECES, {"COFLOWOPT_AOT": "0"}).split()
    assert aot[0] == "True" and jit[0] == "False"
    assert aot[1:-1] == jit[1:-1]
    assert len({p.split(":")[0] for p in aot[1:-1] if ":" in p}) >= 1
    assert aot[-1] == "False"    # every kernel call went to the module: numba never loaded


@pytest.mark.skipif(_aot.load() is None,
                    reason="no compiled kernels for these sources (python -m coflowopt._aot build)")
def test_an_exception_in_the_sink_is_raised_after_the_kernel():
    """The sink's callback cannot unwind the compiled kernel: its exception is kept and raised
    when the kernel returns, as the JIT's objmode raises it (the next run works)."""
    out = _run("""
        import sys
        import numpy as np
        from coflowopt import _aot
        print(_aot.activate())
        from coflowopt.generators import uniform_random
        from coflowopt.orderings.heuristics import sebf
        from coflowopt.rates.madd import run_madd_windows
        inst = uniform_random(num_ports=6, num_coflows=25, seed=1)
        rank = np.argsort(sebf(inst))
        calls = []

        def boom(s, a, b):
            calls.append(1)
            raise KeyError("from the sink")
        try:
            run_madd_windows(inst, rank, boom, sebf=True, backfill="varys", window=7)
        except KeyError as e:
            print("raised", e, len(calls))
        got = run_madd_windows(inst, rank, lambda s, a, b: None, sebf=True, backfill="varys",
                               window=7)
        print(got["windows"] > 1, "numba" in sys.modules)
        """, {})
    assert out.split("\n")[:3] == ["True", "raised 'from the sink' 1", "True False"]


@pytest.mark.skipif(_aot.load() is None,
                    reason="no compiled kernels for these sources (python -m coflowopt._aot build)")
def test_a_kernel_outside_the_module_compiles_no_typed_list_internals():
    """A kernel the module does not hold (per-flow fairness), run with the module active on
    plain chunk lists, held and in sink mode: the same pieces as the JIT alone, and numba
    compiles nothing of its typed lists (``len()`` of one from Python did, in every process,
    with the command's 'compiling kernels' notice)."""
    code = """
        import hashlib
        import numpy as np
        from numba.core import event
        from coflowopt import _aot
        active = _aot.activate()
        from coflowopt.generators import uniform_random
        from coflowopt.policies.flow_level import fair, maxmin_windows
        from coflowopt.schedule import Schedule
        from coflowopt.verify import verify_schedule
        compiled = []

        class Seen(event.Listener):
            def on_start(self, ev):
                d = (ev.data or {}).get("dispatcher")
                compiled.append(getattr(getattr(d, "py_func", None), "__module__", "?"))

            def on_end(self, ev):
                pass
        event.register("numba:compile", Seen())

        def digest(s):
            h = hashlib.sha256()
            for a in (s.flow, s.start, s.end, s.rate):
                h.update(np.ascontiguousarray(a).tobytes())
            return h.hexdigest()[:20]
        out = [str(active)]
        for seed in range(2):
            inst = uniform_random(num_ports=5, num_coflows=20, seed=seed)
            s = fair(inst)
            assert verify_schedule(inst, s).ok
            parts = []
            maxmin_windows(inst, lambda w, a, b: parts.append(w), window=16)
            whole = Schedule(*(np.concatenate([getattr(p, c) for p in parts])
                               for c in ("flow", "start", "end", "rate")))
            assert verify_schedule(inst, whole).ok
            out += [digest(s), f"{len(parts)}:{digest(whole)}"]
        out.append(str(sum(m.startswith("numba.typed") for m in compiled)))
        print(" ".join(out))
        """
    _run(code, {})      # a first run may compile (and cache) the JIT kernels it needs
    aot = _run(code, {}).split()
    jit = _run(code, {"COFLOWOPT_AOT": "0"}).split()
    assert aot[0] == "True" and jit[0] == "False"
    assert aot[1:-1] == jit[1:-1]
    assert aot[-1] == "0"   # the second run: nothing compiled of numba's typed lists


def test_a_failed_build_step_is_one_line_and_installs_nothing(tmp_path, monkeypatch, capsys):
    """A build step that fails (its own messages go to the terminal) ends the command with
    exit 1 and one line naming the step, not a traceback; no module is written."""
    import subprocess

    def fail(cmd, **kw):
        raise subprocess.CalledProcessError(3, cmd)
    monkeypatch.setenv("COFLOWOPT_AOT_DIR", str(tmp_path))
    monkeypatch.setattr(subprocess, "run", fail)
    assert _aot._main(["build"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("coflowopt: the ahead-of-time build failed: its _discover step "
                              "exited 3")
    assert "Traceback" not in "\n".join(err)
    assert not [p for p in tmp_path.iterdir() if p.suffix in (".so", ".json")]
