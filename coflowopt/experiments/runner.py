"""Run a spec: local worker processes by default, a Dask cluster on request.

Every task runs in a *sandbox*: a worker process started with the ``spawn`` method (highspy
and numba are not fork-safe) that executes payloads one after another, warmed up once.  The
caller waits for each answer for at most the task's hard time limit; a task that overruns is
killed with its process (the sandbox restarts for the next task) and recorded with status
``time_limit``; a process that dies (segfault, out of memory) gives a row with status
``crashed``.  So no task can stop the sweep.

Backends
--------
local (default)
    ``workers`` threads in this process, each driving one sandbox.
dask
    Each task is submitted to a ``distributed`` cluster (``Client(address)``; a
    ``LocalCluster`` object works too) as :func:`dask_execute`, which runs it in a sandbox
    owned by the Dask worker thread: the same limits and failure rows as locally.  Instance
    files and the coflowopt version must be the same on every worker machine (the instance
    hash check fails otherwise).

In both backends this process is the single writer of the results store: rows are written
(flush + fsync) as they arrive, in completion order.  A rerun plans the same tasks, skips the
task ids that already have a row and runs the rest.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import queue
import sys
import threading
import time
from dataclasses import dataclass, field
from multiprocessing.connection import wait as _mp_wait
from pathlib import Path
from typing import Any, Callable, Iterable

from ..exceptions import InvalidParameterError
from .spec import Spec
from .store import RunStore, load_rows
from .tasks import (FAILED_STATUSES, InstanceCache, Plan, Task, execute, plan as make_plan,
                    warm_up)

__all__ = ["Sandbox", "RunSummary", "run", "run_tasks", "execute_in_process", "dask_execute"]

#: Seconds a new sandbox may take to start and warm up before it counts as crashed.
STARTUP_SECONDS = 600.0


def _set_parent_death_signal() -> None:
    """Linux: die with the thread that started us, so that ``kill -9`` of the runner does not
    leave workers computing for nobody (best effort; a no-op elsewhere)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            import signal
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except Exception:  # pragma: no cover - best effort
            pass


def _limit_memory(megabytes: int | None) -> None:
    """Cap this process's address space, so that a task that needs too much memory fails
    with ``MemoryError`` (recorded as an error) instead of waking the kernel's OOM killer,
    which may kill any process of the machine."""
    if megabytes:
        import resource
        limit = int(megabytes) * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _sandbox_main(conn, setup: dict) -> None:
    """The worker process: apply the limits, warm up, then execute payloads until told to
    stop."""
    _set_parent_death_signal()
    try:
        _limit_memory(setup.get("memory_mb"))
        if setup.get("warm"):
            warm_up(setup["warm"])
        conn.send({"ready": True, "pid": os.getpid()})
        cache = InstanceCache()
        while True:
            payload = conn.recv()
            if payload is None:
                return
            conn.send(execute(payload, cache))
    except (EOFError, BrokenPipeError, KeyboardInterrupt):
        return


@contextlib.contextmanager
def _children_allowed():
    """Let a daemonic process start the sandbox.

    ``dask worker`` runs its workers under a nanny as *daemonic* processes (Dask's
    ``distributed.worker.daemon``, default true), and multiprocessing refuses to start children
    from a daemonic process ("daemonic processes are not allowed to have children").  The
    sandbox needs a child to enforce hard time limits, and it cannot outlive its parent (it is
    itself daemonic and gets ``PR_SET_PDEATHSIG``), which is what the rule protects against; so
    the flag is lifted while the child starts and restored after.  (Setting
    ``DASK_DISTRIBUTED__WORKER__DAEMON=False`` for the workers does the same.)
    """
    cur = mp.current_process()
    daemon = cur._config.get("daemon")
    if daemon:
        cur._config["daemon"] = False
    try:
        yield
    finally:
        if daemon:
            cur._config["daemon"] = daemon


class Sandbox:
    """One spawned worker process executing task payloads with a hard time limit each.

    Parameters
    ----------
    setup : dict, optional
        ``{"warm": [algorithm dicts to run once, untimed, when the process starts],
        "memory_mb": address-space limit of the process or None}``.
    """

    def __init__(self, setup: dict | None = None):
        self.setup = dict(setup or {})
        self.proc = None
        self.conn = None

    def _start(self) -> None:
        ctx = mp.get_context("spawn")
        parent, child = ctx.Pipe(duplex=True)
        proc = ctx.Process(target=_sandbox_main, args=(child, self.setup), daemon=True,
                           name="coflowopt-sandbox")
        try:
            with _children_allowed():
                proc.start()
        except BaseException:
            parent.close()
            child.close()
            raise
        self.proc = proc
        child.close()
        self.conn = parent
        ready = _mp_wait([self.conn, self.proc.sentinel], timeout=STARTUP_SECONDS)
        if self.conn not in ready:
            code = self.proc.exitcode
            self.kill()
            raise RuntimeError(f"worker process failed to start (exit code {code})")
        self.conn.recv()

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.is_alive()

    def kill(self) -> None:
        if self.proc is not None:
            if self.proc.is_alive():
                self.proc.kill()
            self.proc.join(5)
        if self.conn is not None:
            self.conn.close()
        self.proc = self.conn = None

    def close(self) -> None:
        """Ask the process to stop; kill it if it does not."""
        if self.proc is not None and self.proc.is_alive():
            try:
                self.conn.send(None)
                self.proc.join(5)
            except (OSError, BrokenPipeError):
                pass
        self.kill()

    def run(self, payload: dict, hard_seconds: float) -> dict[str, Any]:
        """Execute one payload; returns its result fields (never raises for the task)."""
        if not self.alive:
            self.kill()
            try:
                self._start()
            except Exception as e:
                return _failure(payload, "crashed", type(e).__name__, str(e))
        t0 = time.perf_counter()
        try:
            self.conn.send(payload)
        except (OSError, BrokenPipeError) as e:
            self.kill()
            return _failure(payload, "crashed", type(e).__name__, str(e))
        ready = _mp_wait([self.conn, self.proc.sentinel], timeout=hard_seconds)
        if self.conn in ready:
            try:
                row = self.conn.recv()
            except (EOFError, OSError):
                pass  # died while answering: report below
            else:
                if (row.get("error") or {}).get("type") == "MemoryError":
                    # the address space may stay fragmented or half used (numba, the instance
                    # cache): the next task gets a fresh process, instead of every later task
                    # of this worker failing with MemoryError too
                    self.close()
                return row
        elapsed = time.perf_counter() - t0
        if not ready:
            self.kill()
            return _failure(payload, "time_limit", "TimeLimit",
                            f"killed after {elapsed:.1f} s (hard limit {hard_seconds:g} s)",
                            seconds=elapsed)
        code = None
        if self.proc is not None:
            self.proc.join(5)  # the sentinel fired: reap it to read the exit code
            code = self.proc.exitcode
        self.kill()
        return _failure(payload, "crashed", "WorkerDied",
                        f"the worker process died (exit code {code}) after {elapsed:.1f} s",
                        seconds=elapsed)


def _failure(payload: dict, status: str, etype: str, message: str,
             seconds: float | None = None) -> dict[str, Any]:
    return {"task_id": payload["task_id"], "status": status, "result_kind": None,
            "value": None, "verified": False, "objective": payload.get("objective"),
            "seconds": None if seconds is None else round(seconds, 6),
            "error": {"type": etype, "message": message, "traceback": None}}


# ------------------------------------------------------------------------------ dask
_DASK_LOCAL = threading.local()


def dask_execute(payload: dict, hard_seconds: float, setup: dict) -> dict[str, Any]:
    """Run one payload on a Dask worker, in a sandbox owned by the calling worker thread."""
    sb = getattr(_DASK_LOCAL, "sandbox", None)
    if sb is None or sb.setup != setup:
        if sb is not None:
            sb.close()
        sb = _DASK_LOCAL.sandbox = Sandbox(setup)
    return sb.run(payload, hard_seconds)


# ------------------------------------------------------------------------------ execution
@dataclass
class RunSummary:
    """What a session did."""

    run_dir: str | None
    planned: int
    already_done: int
    executed: int = 0
    failed: int = 0
    by_status: dict = field(default_factory=dict)
    seconds: float = 0.0
    rows: list = field(default_factory=list)
    skipped: dict = field(default_factory=dict)
    unavailable: list = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        d.pop("rows")
        return d


class _Progress:
    """tqdm on stderr with done / running / failed counts and the time left."""

    def __init__(self, total: int, desc: str, enabled: bool | None):
        from tqdm import tqdm
        self.bar = tqdm(total=total, desc=desc, unit="task", file=sys.stderr,
                        disable=None if enabled is None else not enabled,
                        dynamic_ncols=True, smoothing=0.05)
        self.running = 0
        self.failed = 0

    def update(self, done: int = 0) -> None:
        self.bar.set_postfix(running=self.running, failed=self.failed, refresh=False)
        self.bar.update(done)

    def close(self) -> None:
        self.bar.close()


def _local_backend(tasks: list[Task], workers: int, setup: dict, out: queue.Queue,
                   stop: threading.Event, prog_running: list[int]) -> list[threading.Thread]:
    todo: queue.Queue = queue.Queue()
    for t in tasks:
        todo.put(t)

    def worker():
        sb = Sandbox(setup)
        try:
            while not stop.is_set():
                try:
                    t = todo.get_nowait()
                except queue.Empty:
                    return
                prog_running[0] += 1
                try:
                    res = sb.run(t.payload(), t.hard_seconds)
                finally:
                    prog_running[0] -= 1
                out.put((t, res))
        finally:
            sb.close()
            out.put(None)

    threads = [threading.Thread(target=worker, daemon=True, name=f"coflowopt-worker-{i}")
               for i in range(workers)]
    for th in threads:
        th.start()
    return threads


def execute_in_process(tasks: Iterable[Task]) -> Iterable[tuple[Task, dict]]:
    """Run tasks one by one in this process (no hard time limit: for small, trusted runs such
    as ``coflowopt demo``)."""
    cache = InstanceCache()
    for t in tasks:
        yield t, execute(t.payload(), cache)


def run_tasks(tasks: list[Task], *, workers: int = 2, dask: Any = None, warm: list[dict] = (),
              on_row: Callable[[Task, dict], None], progress: bool | None = None,
              desc: str = "bench", memory_mb: int | None = None) -> None:
    """Execute ``tasks`` and call ``on_row(task, result_fields)`` in this thread as each
    finishes.

    Parameters
    ----------
    tasks : list of Task
    workers : int
        Local sandboxes (ignored with ``dask``); 0 runs everything in this process.
    dask : str or Client or LocalCluster, optional
        A scheduler address, a ``distributed.Client`` or a cluster object.
    warm : list of dict
        Algorithms to warm up in each new sandbox.
    on_row : callable
        Receives every finished task with its result fields (the writer).
    progress : bool or None
        Show the progress bar (``None``: only on a terminal).
    memory_mb : int, optional
        Address-space limit of each worker process (not applied with ``workers=0``).
    """
    bar = _Progress(len(tasks), desc, progress)
    setup = {"warm": list(warm), "memory_mb": memory_mb}

    def deliver(t: Task, res: dict) -> None:
        on_row(t, res)
        if res.get("status") in FAILED_STATUSES:
            bar.failed += 1
        bar.update(1)

    try:
        if dask is not None:
            _run_dask(tasks, dask, setup, deliver, bar)
        elif workers <= 0:
            for t, res in execute_in_process(tasks):
                deliver(t, res)
        else:
            out: queue.Queue = queue.Queue()
            stop = threading.Event()
            running = [0]
            threads = _local_backend(tasks, min(workers, max(1, len(tasks))), setup, out, stop,
                                     running)
            alive = len(threads)
            try:
                while alive:
                    try:
                        item = out.get(timeout=0.5)
                    except queue.Empty:
                        bar.running = running[0]
                        bar.update(0)
                        continue
                    if item is None:
                        alive -= 1
                        continue
                    bar.running = running[0]
                    deliver(*item)
            finally:
                stop.set()
                # results that arrive after an interrupt are not written: their tasks rerun
                for th in threads:
                    th.join(0.1)
    finally:
        bar.close()


def _run_dask(tasks: list[Task], dask: Any, setup: dict, deliver, bar: _Progress) -> None:
    from distributed import Client, as_completed
    own = False
    if isinstance(dask, Client):
        client = dask
    else:
        client = Client(dask) if isinstance(dask, str) else Client(dask)
        own = True
    try:
        by_key = {}
        futures = []
        try:
            slots = max(1, sum(client.nthreads().values()))
        except Exception:  # pragma: no cover - an old or unusual client
            slots = 1
        for t in tasks:
            f = client.submit(dask_execute, t.payload(), t.hard_seconds, setup, pure=False,
                              key=f"coflowopt-{t.task_id}-{os.getpid()}-{time.monotonic_ns()}")
            by_key[f.key] = t
            futures.append(f)
        left = len(futures)
        bar.running = min(slots, left)
        for f in as_completed(futures):
            t = by_key[f.key]
            try:
                res = f.result()
            except Exception as e:  # a Dask-level failure (worker lost): record it
                res = _failure(t.payload(), "crashed", type(e).__name__, str(e))
            left -= 1
            bar.running = min(slots, left)  # the cluster runs as many as it has threads
            deliver(t, res)
            f.release()
    finally:
        if own:
            client.close()


def _is_done(row: dict, retry_failed: bool) -> bool:
    return not (retry_failed and row.get("status") in FAILED_STATUSES)


def run(spec: Spec, run_dir: str | os.PathLike | None, *, workers: int = 2, dask: Any = None,
        fresh: bool = False, retry_failed: bool = False, progress: bool | None = None,
        plan: Plan | None = None) -> RunSummary:
    """Run (or resume) a spec into a run folder.

    Parameters
    ----------
    spec : Spec
    run_dir : path or None
        The run folder (created if needed).  ``None`` keeps the rows in memory only
        (``summary.rows``), as ``coflowopt demo`` does.
    workers : int, default 2
        Local worker processes; 0 runs in this process without hard time limits.
    dask : str, Client or cluster, optional
        Run on a Dask distributed cluster instead.
    fresh : bool
        Delete the folder's previous results and start over.
    retry_failed : bool
        Run again the tasks whose row has status error, time_limit, crashed or
        not_supported (the new row supersedes the old one).
    progress : bool or None
        Progress bar on stderr (``None``: when stderr is a terminal).
    plan : Plan, optional
        A plan already made from ``spec`` (saves rebuilding the instances).

    Returns
    -------
    RunSummary
    """
    t0 = time.perf_counter()
    pl = plan if plan is not None else make_plan(spec)
    warm = [a.to_dict() for a in spec.algorithms] if spec.warm_up else []
    backend = "dask" if dask is not None else ("local" if workers > 0 else "in-process")
    if run_dir is None:
        summary = RunSummary(None, len(pl.tasks), 0, skipped=pl.skipped,
                             unavailable=spec.unavailable)

        def on_row_mem(t: Task, res: dict) -> None:
            row = {**t.row_fields(), **res}
            summary.rows.append(row)
            _count(summary, row)
        if warm and workers <= 0 and dask is None:
            warm_up(warm)
        run_tasks(pl.tasks, workers=workers, dask=dask, warm=warm, on_row=on_row_mem,
                  progress=progress, desc=spec.name, memory_mb=spec.limits.memory_mb)
        summary.seconds = time.perf_counter() - t0
        return summary

    if not fresh:
        check_run_folder(run_dir, spec)
    with RunStore(run_dir, fresh=fresh) as store:
        done = {r["task_id"] for r in load_rows(store.dir) if _is_done(r, retry_failed)}
        todo = [t for t in pl.tasks if t.task_id not in done]
        summary = RunSummary(str(run_dir), len(pl.tasks), len(pl.tasks) - len(todo),
                             skipped=pl.skipped, unavailable=spec.unavailable)
        store.begin(spec, pl, backend=backend,
                    workers=None if dask is not None else workers)
        store.session_counts = {"already_done": summary.already_done, "executed": 0,
                                "failed": 0}

        def on_row(t: Task, res: dict) -> None:
            store.write({**t.row_fields(), **res})
            _count(summary, res)
            store.session_counts.update(executed=summary.executed, failed=summary.failed)
        if warm and workers <= 0 and dask is None and todo:
            warm_up(warm)
        run_tasks(todo, workers=workers, dask=dask, warm=warm, on_row=on_row,
                  progress=progress, desc=spec.name, memory_mb=spec.limits.memory_mb)
    summary.seconds = time.perf_counter() - t0
    return summary


def check_run_folder(run_dir: str | os.PathLike, spec: Spec) -> None:
    """Refuse to run ``spec`` into a folder that holds another spec's run.

    A run folder belongs to one spec (its hash, :attr:`Spec.spec_hash`): rows of two specs in
    one folder would be reported as one run (wrong planned counts, mixed instances).  The same
    spec again resumes; ``fresh=True`` (``--fresh``) starts the folder over.

    Raises
    ------
    InvalidParameterError
        Naming the folder and both hashes.
    """
    from .store import read_manifest
    if not (Path(run_dir) / "manifest.json").is_file():
        return
    old = read_manifest(run_dir).get("spec_hash")
    if old is not None and old != spec.spec_hash:
        raise InvalidParameterError(
            f"{run_dir}: this run folder belongs to another spec (spec hash {old[:12]}, spec "
            f"{read_manifest(run_dir).get('spec_name')!r}); {spec.path or spec.name} has spec "
            f"hash {spec.spec_hash[:12]}: use another --run-dir, or --fresh to start it over")


def _count(summary: RunSummary, res: dict) -> None:
    summary.executed += 1
    st = res.get("status") or "none"
    summary.by_status[st] = summary.by_status.get(st, 0) + 1
    if st in FAILED_STATUSES:
        summary.failed += 1
