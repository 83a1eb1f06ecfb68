"""The results store: a run folder of append-only JSONL shards plus a manifest, read by DuckDB.

Layout of a run folder::

    runs/NAME/
      manifest.json          the run: spec, spec hash, versions, machine, seeds, sessions
      plan.json              the planned task ids, what the spec left out (and why), and the
                             recipe of every instance by hash (to rebuild it for analysis)
      results/part-0000.jsonl   one shard per session (invocation), one row per line
      results/part-0001.jsonl   ...
      .lock                  held (flock) while a session runs

Durability: the one writer (the coordinating process, never the workers) appends each row as
one line and flushes and fsyncs it before counting the task done, so a run killed with
``kill -9`` keeps every row it reported.  A row cut short by the kill (a torn last line) is
ignored by every reader and its task runs again.  Each session writes a new shard, so a
session never appends after a torn line.  The logical table has one row per task id: the last
written (a rerun with ``--retry-failed`` supersedes failed rows; nothing else writes a task
twice).

Row schema (:data:`SCHEMA`, the DuckDB column types):

=================== ========= ==============================================================
column              type      meaning
=================== ========= ==============================================================
run_id, session     str, int  the run and the session that wrote the row
task_id             str       hash of (instance hash, algorithm identity, repetition,
                              objective): equal on every rerun of the same computation
instance_key        str       readable instance name (``small/seed=3``, ``library:...``)
instance_group      str       the ``[[instances]]`` block
instance_hash       str       SHA-256 of the instance's model data
instance_params     JSON      generator parameters and seed (``{}`` for files)
coflows, flows      int       K and F
ingress_ports,      int       port counts
egress_ports
max_port_load       float     max over ports of load / capacity (a makespan lower bound)
total_size          float     sum of flow sizes
has_releases        bool      some release is > 0
algorithm           str       label (``sebf+madd``, ``varys``, ``ordering-lp``, ``bnb``)
algorithm_kind      str       ``schedule``, ``bound`` or ``exact``
params              JSON      the algorithm's identity (names, parameters, soft time limit)
repetition, seed    int       repetition index; seed given to randomised algorithms
objective           str       ``weighted_completion_time`` or ``weighted_cct``
value               float     the number (``None`` when there is none)
value_exact         str       the exact fraction when the algorithm computed one
result_kind         str       ``lower_bound``, ``feasible``, ``optimal`` or ``None``
status              str       the algorithm's status (``verified``, ``optimal``,
                              ``time_limit``...) or the task's: ``error``, ``time_limit``
                              (killed), ``crashed`` (worker died), ``not_supported``
verified            bool      schedule accepted by the verifier / bound certificate checked
bound, gap          float     an exact method's proven bound and relative gap
certificate_status  str       as the algorithm reports it
message             str       the algorithm's message (truncated)
seconds             float     wall time of the algorithm and its verification in the worker
load_seconds        float     time to build (or fetch from cache) the instance
timings             JSON      the algorithm's own timings
error               JSON      ``{type, message, traceback}`` for failed tasks
cct                 float[]   per coflow ``C_k - r_k`` of a verified schedule (optional)
metrics             JSON      with ``cct``: summary statistics of the verified completion
                              times (:func:`coflowopt.experiments.tasks.completion_metrics`:
                              slowdown CCT/OCT and normalised FCT (mean, p50, p90, p99,
                              max), Jain's index over OCT/CCT, throughput, makespan, mean
                              CCT); absent in rows written before it existed
model               str       ``integral`` in a ``model = "integral"`` spec (slotted schedules
                              judged by ``verify_slotted``, optima of the integral model);
                              absent (``NULL``) in fluid runs
worker              str       ``host:pid`` of the worker
finished_at         str       UTC time the row was written
=================== ========= ==============================================================
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import platform
import subprocess
from fractions import Fraction
from pathlib import Path
from typing import Any, Iterator, Mapping

from ..exceptions import InputError
from ..results import KINDS, SCHEDULE_OBJECTIVES

__all__ = ["SCHEMA", "RunStore", "load_rows", "read_manifest", "read_plan", "row_problem",
           "connect", "environment", "git_commit", "clean"]

SCHEMA: dict[str, str] = {
    "run_id": "VARCHAR", "session": "INTEGER", "task_id": "VARCHAR",
    "instance_key": "VARCHAR", "instance_group": "VARCHAR", "instance_hash": "VARCHAR",
    "instance_params": "JSON", "coflows": "INTEGER", "flows": "BIGINT",
    "ingress_ports": "INTEGER", "egress_ports": "INTEGER", "max_port_load": "DOUBLE",
    "total_size": "DOUBLE", "has_releases": "BOOLEAN", "algorithm": "VARCHAR",
    "algorithm_kind": "VARCHAR", "params": "JSON", "repetition": "INTEGER", "seed": "BIGINT",
    "objective": "VARCHAR", "value": "DOUBLE", "value_exact": "VARCHAR",
    "result_kind": "VARCHAR", "status": "VARCHAR", "verified": "BOOLEAN", "bound": "DOUBLE",
    "gap": "DOUBLE", "certificate_status": "VARCHAR", "message": "VARCHAR",
    "seconds": "DOUBLE", "load_seconds": "DOUBLE", "timings": "JSON", "error": "JSON",
    "cct": "DOUBLE[]", "metrics": "JSON", "worker": "VARCHAR", "finished_at": "VARCHAR", "model": "VARCHAR",
}


def clean(x: Any) -> Any:
    """JSON-ready: numpy scalars to Python, non-finite floats to ``None``."""
    if isinstance(x, dict):
        return {str(k): clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [clean(v) for v in x]
    if isinstance(x, bool) or x is None or isinstance(x, str):
        return x
    if isinstance(x, int):
        return x
    try:
        import numpy as np
        if isinstance(x, np.integer):
            return int(x)
        if isinstance(x, np.bool_):
            return bool(x)
        if isinstance(x, np.ndarray):
            return clean(x.tolist())
    except ImportError:  # pragma: no cover
        pass
    try:
        v = float(x)
    except (TypeError, ValueError):
        return str(x)
    return v if math.isfinite(v) else None


def _utcnow() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def _atomic_write_json(path: Path, data: Any) -> None:
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(clean(data), fh, indent=1, allow_nan=False)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def git_commit() -> dict[str, Any]:
    """``git rev-parse HEAD`` of the checkout coflowopt runs from, or ``"unknown"``."""
    repo = Path(__file__).resolve().parents[2]
    if not (repo / ".git").exists():
        return {"commit": "unknown", "dirty": None}
    try:
        commit = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"],
                                capture_output=True, text=True, timeout=10).stdout.strip()
        status = subprocess.run(["git", "-C", str(repo), "status", "--porcelain",
                                 "--untracked-files=no"],
                                capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return {"commit": "unknown", "dirty": None}
    return {"commit": commit or "unknown", "dirty": bool(status.strip()) if commit else None}


def environment() -> dict[str, Any]:
    """Versions and machine facts for the manifest."""
    from importlib import metadata
    from .. import __version__
    versions = {"coflowopt": __version__, "python": platform.python_version()}
    for pkg in ("numpy", "scipy", "highspy", "numba", "duckdb", "dask", "distributed",
                "matplotlib"):
        try:
            versions[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            versions[pkg] = None
    return {"versions": versions, "git": git_commit(),
            "machine": {"platform": platform.platform(), "machine": platform.machine(),
                        "processor": platform.processor(), "cpu_count": os.cpu_count(),
                        "hostname": platform.node()}}


def read_manifest(run_dir: str | Path) -> dict[str, Any]:
    """The manifest of a run folder.

    Raises
    ------
    InputError
        If the folder is not a run folder.
    """
    p = Path(run_dir) / "manifest.json"
    if not p.is_file():
        raise InputError("not a run folder (no manifest.json)", file=str(run_dir))
    return _json_object(p)


def read_plan(run_dir: str | Path) -> dict[str, Any] | None:
    """The plan of a run folder (``plan.json``), or None if it has none.

    Raises
    ------
    InputError
        If ``plan.json`` is not a JSON object with a list of task ids under ``tasks`` (and,
        if present, an object of recipes under ``recipes``).
    """
    p = Path(run_dir) / "plan.json"
    if not p.is_file():
        return None
    plan = _json_object(p)
    tasks = plan.get("tasks")
    if not (isinstance(tasks, list) and all(isinstance(t, str) for t in tasks)):
        raise InputError("must be a list of task ids (strings)", file=str(p), field="tasks")
    recipes = plan.get("recipes", {})
    if not (isinstance(recipes, dict)
            and all(isinstance(v, dict) and "recipe" in v for v in recipes.values())):
        raise InputError("must map instance hashes to {\"key\": ..., \"recipe\": ...}",
                         file=str(p), field="recipes")
    return plan


def _json_object(path: Path) -> dict[str, Any]:
    """A JSON file of the run folder that must hold one object (manifest, plan)."""
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", file=str(path)) from None
    except ValueError as e:
        line = getattr(e, "lineno", None)
        raise InputError(f"not valid JSON ({getattr(e, 'msg', e)})", file=str(path),
                         line=line) from None
    except RecursionError:
        raise InputError("not valid JSON (arrays or objects nested too deeply)",
                         file=str(path)) from None
    if not isinstance(doc, dict):
        raise InputError(f"must be a JSON object, got {type(doc).__name__}", file=str(path))
    return doc


def _shards(run_dir: Path) -> list[Path]:
    shards = sorted((run_dir / "results").glob("part-*.jsonl"))
    for shard in shards:
        if not shard.is_file():
            raise InputError("not a file (a results shard is a file of JSON lines)",
                             file=str(shard))
    return shards


#: The values a row's enumerated columns may take (None: the column may also be null).
ROW_CHOICES: dict[str, tuple] = {
    "algorithm_kind": ("schedule", "bound", "exact"),
    "result_kind": (*KINDS, None),
    "objective": SCHEDULE_OBJECTIVES,
    "model": ("integral", None),
}
#: Columns every row has (the runner writes them for failed tasks too).
ROW_REQUIRED = ("task_id", "instance_key", "instance_hash", "algorithm", "algorithm_kind",
                "objective", "status")
#: Numeric columns that cannot be negative.
ROW_NONNEGATIVE = ("session", "coflows", "flows", "ingress_ports", "egress_ports",
                   "max_port_load", "total_size", "repetition", "value", "bound", "gap",
                   "seconds", "load_seconds")


def _number_tree(x: Any) -> bool:
    """A JSON number, null, or a list / object of them (nested): metrics and timings."""
    if x is None or (isinstance(x, (int, float)) and not isinstance(x, bool)
                     and math.isfinite(x)):
        return True
    if isinstance(x, list):
        return all(_number_tree(v) for v in x)
    if isinstance(x, dict):
        return all(_number_tree(v) for v in x.values())
    return False


def row_problem(row: Any) -> tuple[str, str] | None:
    """``(field, rule)`` for the first column of a results row that breaks the row schema
    (:data:`SCHEMA`, :data:`ROW_CHOICES`, :data:`ROW_REQUIRED`), or None for a good row.

    The report computes every table from these columns, so a run folder edited or damaged
    by hand is refused here, naming the column, rather than failing (or counting a wrong
    number) deep inside a table.
    """
    if not isinstance(row, dict):
        return "", f"must be a JSON object (one row), got {type(row).__name__}"
    for key in ROW_REQUIRED:
        if row.get(key) is None:
            return key, "is missing (every row has it)"
    for key, v in row.items():
        t = SCHEMA.get(key)
        if t is None or v is None:
            continue
        if t == "VARCHAR":
            ok, want = isinstance(v, str), "a string"
        elif t in ("INTEGER", "BIGINT"):
            ok, want = isinstance(v, int) and not isinstance(v, bool), "an integer"
        elif t == "DOUBLE":
            ok = (isinstance(v, (int, float)) and not isinstance(v, bool)
                  and math.isfinite(v))
            want = "a finite number"
        elif t == "BOOLEAN":
            ok, want = isinstance(v, bool), "true or false"
        elif t == "DOUBLE[]":
            ok, want = (isinstance(v, list) and _number_tree(v)
                        and None not in v), "a list of finite numbers"
        elif key in ("metrics", "timings"):
            ok, want = isinstance(v, dict) and _number_tree(v), \
                "an object of finite numbers (nested)"
        elif key in ("params", "instance_params"):
            ok, want = isinstance(v, dict), "an object"
        elif key == "error":
            ok = (isinstance(v, dict) and isinstance(v.get("type"), str)
                  and isinstance(v.get("message"), str))
            want = 'an object {"type": str, "message": str, ...}'
        else:
            ok, want = True, ""
        if not ok:
            return key, f"must be {want} or null, got {json.dumps(v)[:40]}"
        if key in ROW_CHOICES and v not in ROW_CHOICES[key]:
            return key, f"must be one of {', '.join(map(str, ROW_CHOICES[key]))}, got {v!r}"
        if key in ROW_NONNEGATIVE and v < 0:
            return key, f"must be >= 0, got {v!r}"
    if isinstance(row.get("value_exact"), str):
        try:
            Fraction(row["value_exact"])
        except (ValueError, ZeroDivisionError):
            return "value_exact", ("must be an exact number such as '7/2' or '3.5', got "
                                   f"{row['value_exact'][:40]!r}")
    cct, k = row.get("cct"), row.get("coflows")
    if cct is not None and k is not None and len(cct) != k:
        return "cct", f"must have one entry per coflow ({k}), got {len(cct)}"
    return None


def iter_physical_rows(run_dir: str | Path) -> Iterator[tuple[str, int, dict | None]]:
    """Every line of every shard: ``(shard name, line number, row)``, row None for a torn
    last line.

    The one writer appends whole lines (:class:`RunStore`), so the only line that may not
    be a row is a shard's last one cut short by a kill (no newline); it is yielded as None.

    Raises
    ------
    InputError
        Naming the shard, the line and the column, for any other line that is not a row of
        the schema (:func:`row_problem`).
    """
    for shard in _shards(Path(run_dir)):
        with open(shard, "rb") as fh:
            for i, line in enumerate(fh, 1):
                if not line.endswith(b"\n"):
                    yield shard.name, i, None      # torn: the writer was killed mid-line
                    continue
                try:
                    row = json.loads(line)
                except (ValueError, RecursionError) as e:
                    from ..formats._files import json_value_error_rule
                    why = ("arrays or objects nested too deeply" if isinstance(e, RecursionError)
                           else e.msg if isinstance(e, json.JSONDecodeError)
                           else json_value_error_rule(e))   # bad UTF-8, > 4,300 digits
                    raise InputError(f"not a JSON line ({why}); only a torn last line (no "
                                     "newline, after a kill) is skipped",
                                     file=str(shard), line=i) from None
                bad = row_problem(row)
                if bad is not None:
                    raise InputError(bad[1], file=str(shard), line=i, field=bad[0] or None)
                yield shard.name, i, row


def load_rows(run_dir: str | Path, *, stats: dict | None = None) -> list[dict[str, Any]]:
    """The logical results table: the last row written for every task id.

    A torn last line of a shard (after a kill) is skipped and counted in
    ``stats["unreadable"]``; ``stats["physical"]`` counts readable lines and
    ``stats["superseded"]`` the rows replaced by a later one of the same task.

    Raises
    ------
    InputError
        For any other line that is not a row (:func:`iter_physical_rows`).
    """
    by_id: dict[str, dict] = {}
    st = {"physical": 0, "unreadable": 0, "superseded": 0}
    for _, _, row in iter_physical_rows(run_dir):
        if row is None:
            st["unreadable"] += 1
            continue
        st["physical"] += 1
        if row["task_id"] in by_id:
            st["superseded"] += 1
            del by_id[row["task_id"]]  # keep insertion order = write order of the survivor
        by_id[row["task_id"]] = row
    if stats is not None:
        stats.update(st)
    return list(by_id.values())


class RunStore:
    """A run folder opened for one session (see the module docstring).

    Use as a context manager: it takes the folder's lock, opens a new shard and records the
    session in the manifest; on exit it closes the shard and records how the session ended.
    """

    def __init__(self, run_dir: str | Path, *, fresh: bool = False):
        self.dir = Path(run_dir)
        self.fresh = fresh
        self._fh = None
        self._lock = None
        self.session = None
        self.manifest: dict[str, Any] = {}

    # -------------------------------------------------------------- session lifecycle
    def __enter__(self) -> "RunStore":
        import fcntl
        self.dir.mkdir(parents=True, exist_ok=True)
        self._lock = open(self.dir / ".lock", "w")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as e:
            self._lock.close()
            raise InputError("another session is running in this run folder (its .lock is "
                             "held)", file=str(self.dir)) from e
        if self.fresh:
            for p in _shards(self.dir):
                p.unlink()
            for name in ("manifest.json", "plan.json"):
                (self.dir / name).unlink(missing_ok=True)
        (self.dir / "results").mkdir(exist_ok=True)
        return self

    def __exit__(self, exc_type, exc, tb):
        if self._fh is not None:
            self._fh.close()
            self._fh = None
        if self.session is not None and self.manifest:
            s = self.manifest["sessions"][-1]
            s["ended"] = _utcnow()
            s["outcome"] = ("completed" if exc_type is None else
                            "interrupted" if exc_type is KeyboardInterrupt else
                            f"failed: {exc_type.__name__}")
            s.update(getattr(self, "session_counts", {}))
            _atomic_write_json(self.dir / "manifest.json", self.manifest)
        if self._lock is not None:
            self._lock.close()
        return False

    def begin(self, spec, plan, *, backend: str, workers: int | None) -> None:
        """Write the manifest (creating it on the first session) and the plan; open the
        session's shard."""
        path = self.dir / "manifest.json"
        now = _utcnow()
        if path.is_file():
            self.manifest = read_manifest(self.dir)
        else:
            created = _dt.datetime.now(_dt.timezone.utc)
            self.manifest = {"format": "coflowopt-run", "version": 1,
                             "run_id": f"{spec.name}-{created:%Y%m%dT%H%M%SZ}",
                             "created": now, "sessions": []}
        env = environment()
        self.session = len(_shards(self.dir))
        self.manifest.update({
            "spec_name": spec.name, "spec_path": spec.path, "spec_hash": spec.spec_hash,
            "spec": spec.raw, "objective": spec.objective, "seeds": spec.seeds(),
            "model": getattr(spec, "model", "fluid"),
            "algorithms": [a.to_dict() for a in spec.algorithms],
            "unavailable_algorithms": spec.unavailable, **env})
        self.manifest["sessions"].append({
            "session": self.session, "started": now, "backend": backend, "workers": workers,
            "spec_hash": spec.spec_hash, "git": env["git"], "versions": env["versions"],
            "machine": env["machine"], "planned": len(plan.tasks)})
        _atomic_write_json(path, self.manifest)
        recipes = {t.instance_hash: {"key": t.instance.key, "recipe": t.instance.recipe}
                   for t in plan.tasks}
        _atomic_write_json(self.dir / "plan.json", {
            "tasks": sorted(plan.task_ids), "instances": plan.instances,
            "skipped": plan.skipped, "recipes": recipes})
        shard = self.dir / "results" / f"part-{self.session:04d}.jsonl"
        self._fh = open(shard, "a", encoding="utf-8")

    @property
    def run_id(self) -> str:
        return self.manifest["run_id"]

    # -------------------------------------------------------------- rows
    def existing(self) -> list[dict[str, Any]]:
        return load_rows(self.dir)

    def write(self, row: Mapping[str, Any]) -> dict[str, Any]:
        """Append one row durably (flush + fsync) and return it as written."""
        full = {"run_id": self.run_id, "session": self.session, **row,
                "finished_at": _utcnow()}
        line = json.dumps(clean(full), allow_nan=False, separators=(",", ":"))
        self._fh.write(line + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())
        return full


def connect(run_dir: str | Path, database: str = ":memory:"):
    """A DuckDB connection with views over a run folder.

    Views: ``results_physical`` (every readable shard line, with its ``filename``),
    ``results`` (one row per task id: the last written) and ``manifest`` (one row, the
    manifest's fields as JSON).

    Examples
    --------
    >>> con = connect("runs/gap-small")                                  # doctest: +SKIP
    >>> con.sql("select algorithm, median(value) from results group by 1").show()  # doctest: +SKIP
    """
    import duckdb
    run_dir = Path(run_dir)
    read_manifest(run_dir)  # fails clearly on a folder that is not a run
    con = duckdb.connect(database)
    cols = ", ".join(f"'{k}': '{v}'" for k, v in SCHEMA.items())
    glob_ = str(run_dir / "results" / "part-*.jsonl").replace("'", "''")
    if _shards(run_dir):
        con.execute(f"""create or replace view results_physical as
            select * from read_json('{glob_}', format='newline_delimited', ignore_errors=true,
                                    filename=true, columns={{{cols}}})
            where task_id is not null""")
    else:
        con.execute("create or replace view results_physical as select " +
                    ", ".join(f"null::{v} as {k}" for k, v in SCHEMA.items()) +
                    ", null::varchar as filename where false")
    # within a shard a task appears once; across shards the later session wins
    con.execute("""create or replace view results as
        select * exclude (rn) from (
          select *, row_number() over (partition by task_id order by session desc,
                                       filename desc) as rn
          from results_physical) where rn = 1""")
    man = str(run_dir / "manifest.json").replace("'", "''")
    con.execute(f"create or replace view manifest as select * from read_json_auto('{man}')")
    return con
