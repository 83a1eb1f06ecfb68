"""Experiments: specs, a resumable parallel runner, a results store, reports and plots.

::

    coflowopt bench experiments/specs/gap-small.toml --workers 2 --run-dir runs/gap-small
    coflowopt report runs/gap-small --plots runs/gap-small/plots

Modules
-------
:mod:`.spec`     read and validate a TOML spec (:func:`~.spec.load_spec`)
:mod:`.tasks`    plan tasks (instance x algorithm x repetition) and execute one
:mod:`.runner`   run tasks in spawned worker processes or on a Dask cluster, with time limits
:mod:`.store`    the run folder: append-only JSONL shards, manifest, DuckDB views
:mod:`.report`   ALG/LB and ALG/OPT statistics, wins and losses, runtimes, improvement factors
:mod:`.plots`    CDFs of ratios, ratio against size, per-port Gantt charts (matplotlib, Agg)

The spec format
---------------
A spec is a TOML file.  Top-level keys (all optional except ``instances`` and
``algorithms``)::

    name = "gap-small"                    # default: the file name
    description = "..."
    objective = "weighted_completion_time"   # or "weighted_cct"
    repetitions = 1                       # every task runs this many times (rep 0, 1, ...)
    seed = 0                              # randomised algorithms get seed + repetition
    completion_times = true               # store per-coflow C_k - r_k of every schedule
    warm_up = true                        # run each algorithm once untimed in every worker

    [limits]
    task_seconds = 600                    # hard limit: the task is killed, row "time_limit"
    grace_seconds = 30                    # exact methods: killed at time_limit + grace
    exponential_max_coflows = 8           # tag "exponential": skipped above (unless the
                                          #   function has its own max_coflows default)
    slow_max_flows = 20000                # tag "slow": skipped above this many flows
    memory_mb = 8000                      # address-space cap per worker (default none): a
                                          #   task that needs more fails with MemoryError

Instance sources, one ``[[instances]]`` table each, with exactly one of ``generator``,
``library`` or ``files``; every source takes ``name`` (the group label; must be unique),
``zero_release`` (set every release to 0 and drop deadlines) and ``unit_weights``::

    [[instances]]
    name = "p3-k5"
    generator = "uniform_random"          # a key of coflowopt.generators.GENERATORS
    params = { num_ports = 3, num_coflows = 5, flows_per_coflow = [1, 3] }
    seeds = 100                           # 0..99; or { start = 100, stop = 200 }; or [1, 5]

    [[instances]]
    library = ["papers/sincronia-*", "papers/dissertation-fig5.1"]   # names or globs

    [[instances]]
    name = "fb"
    files = "{shared}/data/FB2010-1Hr-150-0.txt"   # paths or globs, relative to the spec
    format = "coflow-benchmark"           # default auto; time_unit_ms, capacity, split too
    zero_release = true

Strings may use ``{shared}`` (``$COFLOWOPT_SHARED``, else ``shared/`` beside the checkout),
``{repo}`` and ``{spec_dir}``.  Generated instances are rebuilt from (generator, params, seed)
wherever a task runs, and their content hash is checked against the plan.

Algorithms, in one ``[algorithms]`` table::

    [algorithms]
    schedules = "all"        # every ordering x every rate allocation + every policy
    # or a list mixing "all" and entries:
    # schedules = [{ order = "sebf", rates = "madd" }, { policy = "varys" },
    #              { order = "bssi", rates = "greedy", label = "Sincronia",
    #                order_params = { tie_break = "first" } },
    #              { policy = "mymodule:my_policy" }]      # an importable function
    bounds = "all"           # or ["isolated", "port", { name = "time-indexed-lp",
                             #                           params = { slot = 0.5 } }]
    exact = { method = "bnb", time_limit = 5, max_coflows = 8 }   # or a list of such
    skip_tags = []           # leave out algorithms with these registry tags (for "all")
    missing = "error"        # "skip": names not registered (yet) are left out and listed

Every name is checked against :mod:`coflowopt.registry` and every parameter against the
function's signature; an error names the file, the key (``algorithms.schedules[2].rates``) and
the rule.  ``exponential``-tagged algorithms are skipped on instances above their size limit,
``slow``-tagged ones above ``limits.slow_max_flows`` flows (an entry's own ``max_coflows`` /
``max_flows`` overrides both); the plan records every skip with its reason.

Exact methods and bounds get the spec's ``objective`` when they take one; a method that
answers in the other objective is converted by the constant ``sum_k w_k r_k``.
"""

from .spec import AlgorithmSpec, InstanceRef, Spec, SpecError, instance_hash, load_spec, parse_spec

__all__ = ["Spec", "SpecError", "AlgorithmSpec", "InstanceRef", "load_spec", "parse_spec",
           "instance_hash", "run", "plan"]


def run(*args, **kwargs):
    """:func:`coflowopt.experiments.runner.run` (imported lazily)."""
    from .runner import run as _run
    return _run(*args, **kwargs)


def plan(*args, **kwargs):
    """:func:`coflowopt.experiments.tasks.plan` (imported lazily)."""
    from .tasks import plan as _plan
    return _plan(*args, **kwargs)
