"""The ``coflowopt`` command line.

Exit codes (the same for every subcommand):

0
    success.  A run stopped by a time limit is a success too: read ``status``
    (``time_limit``) and ``kind`` in the output.
1
    a *finding*: a schedule failed verification, or the problem is proven infeasible
    (also: ``bound``: a method's certificate did not check; ``adversarial``: a rejected
    schedule or a bound above a proven optimum; ``bench``, ``report``, ``demo``: a task failed
    (error, crash, time limit, rejected schedule) or the rows are inconsistent).
2
    bad usage or bad input: one line on standard error names the file, line, field or flag
    (as typed, e.g. ``--to``, ``-p num_ports``, ``--order-param foo``) and the rule broken.
3
    internal error (a bug): the traceback is printed; please report it.
4
    solver failure: a solver (HiGHS, an OR-Tools worker) failed in a way that left no usable
    result; one line on standard error says which and how.  Not a problem with the input.
    Also running out of memory (``MemoryError``: the run needed more than the machine or its
    address-space limit gives; one line says what could not be allocated).
130
    interrupted (Ctrl-C): one line, also when the interrupt lands inside a compiled kernel.

Every command takes ``--json``: standard output is then one JSON document and nothing else
(logs, progress and solver output go to standard error); human-readable text otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from . import __version__
from .exceptions import (CoflowOptError, InfeasibleScheduleError, InputError,
                         InvalidParameterError, NotSupportedError, SolverError)

EXIT_OK, EXIT_REJECTED, EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_SOLVER = 0, 1, 2, 3, 4
#: interrupted (Ctrl-C, SIGINT): 128 + 2, as a shell reports it
EXIT_INTERRUPTED = 130

#: The exit codes, as ``coflowopt --help`` prints them (the module docstring says more).
EXIT_CODES_HELP = """exit codes:
  0  success (a run stopped by a time limit too: read status and kind)
  1  a finding: a schedule failed verification, a problem is proven infeasible, a certificate
     did not check, or (bench, report, demo) a task failed or rows are inconsistent
  2  bad usage or bad input: one line on stderr names the file, line, field or flag
  3  internal error (a bug): the traceback is printed
  4  solver failure: a solver failed without a usable result (not the input's fault),
     or the run ran out of memory
  130  interrupted (Ctrl-C): one line on stderr

--json: stdout is one JSON document and nothing else; logs and progress go to stderr."""

#: ``--format`` / ``--to`` values (coflowopt.formats.INSTANCE_FORMATS; listed here so that building
#: the parser imports no numpy; a test keeps the two in step).
INSTANCE_FORMAT_NAMES = ("json", "coflow-benchmark", "fb", "sincronia")

#: ``--topology KIND:KEY=VALUE,...`` kinds, ``--routing`` and ``--placement`` values
#: (coflowopt.topology's builders, ROUTINGS and PLACEMENTS; listed here so that building the
#: parser imports no numpy; a test keeps them in step).
TOPOLOGY_KINDS = ("fat-tree", "leaf-spine")
ROUTING_NAMES = ("ecmp", "shortest")
PLACEMENT_NAMES = ("modulo", "random")
#: an example of each kind, for messages
TOPOLOGY_EXAMPLES = {"fat-tree": "fat-tree:k=16",
                     "leaf-spine": "leaf-spine:leaves=10,spines=4,hosts_per_leaf=15,"
                                   "oversubscription=2"}
#: instance formats that hold a big switch only (ports, no paths)
BIG_SWITCH_FORMATS = ("coflow-benchmark", "fb", "sincronia")

#: Above this many pieces the JSON segment form gets large (the FB greedy schedule: 1.8 M pieces,
#: 56 M rate entries, ~1 GB); we then say so and suggest the columnar .npz form.
JSON_PIECES_NOTE = 200_000

_COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {}


def command(name: str):
    def deco(f):
        _COMMANDS[name] = f
        return f
    return deco


class UsageError(CoflowOptError):
    """Bad command-line usage (exit code 2)."""


# --------------------------------------------------------------------------------- helpers
def emit(args, payload: dict[str, Any], text: str) -> None:
    if getattr(args, "json", False):
        json.dump(payload, sys.stdout, indent=2, allow_nan=False, default=_json_default)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(text.rstrip("\n") + "\n")


def _json_default(x):
    import numpy as np
    from fractions import Fraction
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating, Fraction)):
        v = float(x)
        return None if math.isnan(v) else v
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(f"not JSON serialisable: {type(x).__name__}")


#: the namespace attribute in which _StoreOnce notes the options given (removed after parsing)
_GIVEN = "_coflowopt_given"


class _StoreOnce(argparse._StoreAction):
    """argparse's default action (one value per option), refusing an option given twice:
    argparse would keep the last value and drop the first silently (``--time-limit 5
    --time-limit 60`` ran with 60)."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault(_GIVEN, set())
        if self.option_strings and self.dest in given:
            parser.error(f"argument {'/'.join(self.option_strings)}: given twice (give it "
                         "once; a later value would silently replace the first)")
        given.add(self.dest)
        super().__call__(parser, namespace, values, option_string)


class Parser(argparse.ArgumentParser):
    """argparse with the project's error contract: exit 2 and ONE line on standard error
    (argparse's default prints the usage block first; the usage is one ``--help`` away); an
    option that takes one value may be given once (:class:`_StoreOnce`)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.register("action", None, _StoreOnce)
        self.register("action", "store", _StoreOnce)

    def parse_known_args(self, args=None, namespace=None):
        namespace, extra = super().parse_known_args(args, namespace)
        namespace.__dict__.pop(_GIVEN, None)
        return namespace, extra

    def error(self, message: str):
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def seconds(text: str) -> float:
    """argparse type of every time flag (``--time-limit``, ``--budget``...): a finite number
    of seconds >= 0.  NaN, infinity and negative values are usage errors (exit 2); to run
    without a limit, leave the flag out."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text!r}") from None
    if not math.isfinite(v) or v < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds >= 0, got {text!r}"
                                         " (leave the flag out for no limit)")
    return v


def check_schedule_file(flag: str, path: str | None, slotted: bool = False) -> None:
    """Refuse (before any work) a schedule file to write whose name does not say its format:
    ``.json`` or columnar ``.npz``."""
    if path and not path.lower().endswith((".json", ".npz")):
        raise UsageError(f"{flag} {path}: a {'slotted ' if slotted else ''}schedule file ends "
                         "in .json or .npz")


def output_file(text: str) -> str:
    """argparse type of every flag naming a file to write (``--out``, ``--certificate``,
    ``--cct-csv``...).  Checked when the command line is read, before any work: a search or a
    branch and bound of minutes must not end in a failed write.  The directory must exist (it
    is not created: a typo in it would otherwise scatter files), the name must not be a
    directory, and an existing file must be writable."""
    import os
    if not text.strip():
        # a name of only spaces is legal on POSIX but never meant: it would be written silently
        raise argparse.ArgumentTypeError("needs a file name" + (f" (got {text!r})" if text else ""))
    _refuse_control_characters(text)
    if text == "-":
        # a Unix tool's standard output; coflowopt's standard output is its report (JSON with
        # --json), so a file named '-' would be written instead, silently
        raise argparse.ArgumentTypeError("'-' (standard output) is not a file here: standard "
                                         "output carries the command's report; give a file name")
    if text.endswith(("/", os.sep)) or os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text} is a directory; give a file name")
    import stat
    try:
        mode = os.stat(text).st_mode
    except OSError:
        mode = None
    if mode is not None and (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
        # the write would block until a reader opens the pipe (a socket cannot be opened)
        raise argparse.ArgumentTypeError(f"{text} is a {'pipe' if stat.S_ISFIFO(mode) else 'socket'}"
                                         ", not a file; give a file name")
    parent = os.path.dirname(os.path.abspath(text))
    if not os.path.isdir(parent):
        raise argparse.ArgumentTypeError(
            f"{text}: {parent} is not a directory" if os.path.exists(parent)
            else f"{text}: directory {parent} does not exist (it is not created)")
    if os.path.exists(text) and not os.access(text, os.W_OK):
        raise argparse.ArgumentTypeError(f"{text}: the file exists and is not writable")
    if not os.path.exists(text) and not os.access(parent, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"{text}: cannot create a file in {parent} "
                                         "(no write permission)")
    return text


@contextlib.contextmanager
def writing(flag: str, path: str):
    """Around the write of an output file: an OSError the write raises (a full disk, /dev/full,
    a folder removed meanwhile) names the flag and the file, exit 2 (a bare "[Errno 28] No
    space left on device" named neither); checks before the work are :func:`output_file`'s."""
    try:
        yield
    except OSError as e:
        raise UsageError(f"{flag} {path}: cannot write it ({e.strerror or e})") from None


def _refuse_control_characters(text: str) -> None:
    """A name with a newline, tab or other control character is legal on POSIX but never
    meant (a pasted line break), and every later message naming the file would span lines."""
    bad = next((c for c in text if ord(c) < 32 or ord(c) == 127), None)
    if bad is not None:
        raise argparse.ArgumentTypeError(f"{text!r}: a file name with the control character "
                                         f"{bad!r}; give a name without one")


def output_dir(text: str) -> str:
    """argparse type of every flag naming a folder to write into (``--out DIR``, ``--plots``,
    ``--run-dir``): an existing directory, or a path whose nearest existing ancestor is a
    writable directory (the folder is created).  Checked before any work, as
    :func:`output_file`."""
    import os
    if not text.strip():
        raise argparse.ArgumentTypeError("needs a folder name" + (f" (got {text!r})" if text
                                                                  else ""))
    _refuse_control_characters(text)
    if os.path.exists(text):
        if not os.path.isdir(text):
            raise argparse.ArgumentTypeError(f"{text} exists and is not a directory")
        if not os.access(text, os.W_OK | os.X_OK):
            raise argparse.ArgumentTypeError(f"{text}: no write permission")
        return text
    up = os.path.dirname(os.path.abspath(text))
    while not os.path.exists(up):
        up = os.path.dirname(up)
    if not os.path.isdir(up):
        raise argparse.ArgumentTypeError(f"{text}: {up} is not a directory")
    if not os.access(up, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"{text}: cannot create it in {up} (no write permission)")
    return text


def nonblank(text: str) -> str:
    """argparse type of a free-text value (a name to record, a folder to read): an empty or
    blank value is refused, not taken for the default or for the current folder."""
    if not text.strip():
        raise argparse.ArgumentTypeError("needs a value" + (f" (got {text!r})" if text else ""))
    return text


def file_stem(text: str) -> str:
    """argparse type of a flag naming the stem of files written into a folder (``adversarial
    --name``): a plain name, so that the files land in that folder under that name (an empty
    stem would silently fall back to the default, a path would leave the folder)."""
    import os
    if not text.strip():
        raise argparse.ArgumentTypeError("needs a name" + (f" (got {text!r})" if text else ""))
    if "/" in text or os.sep in text or text in (".", "..") or text.startswith("-"):
        raise argparse.ArgumentTypeError(f"{text}: a plain file stem, without '/', not '.' or "
                                         "'..', not starting with '-'")
    return text


def positive_number(text: str) -> float:
    """argparse type of a finite number > 0 (capacities, time units)."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not math.isfinite(v) or v <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text!r}")
    return v


class KeyValues(argparse.Action):
    """``--param KEY=VALUE`` (repeatable) that remembers which spelling the user typed
    (``-p`` or ``--param``), so that error messages name the flag as typed."""

    def __call__(self, parser, namespace, values, option_string=None):
        items = list(getattr(namespace, self.dest, None) or [])
        items.append(values)
        setattr(namespace, self.dest, items)
        setattr(namespace, f"{self.dest}_flag", option_string or self.option_strings[0])


def param_flag(args, dest: str, default: str) -> str:
    """The spelling of a :class:`KeyValues` flag the user typed (``default`` if not given)."""
    return getattr(args, f"{dest}_flag", None) or default


def parse_params(items: Sequence[str] | None, what: str) -> dict[str, Any]:
    """``key=value`` pairs; values parsed as JSON when possible (numbers, true, lists).

    ``what`` is the flag as typed (``-p``, ``--order-param``); a key given twice is an error
    rather than a silent overwrite."""
    out: dict[str, Any] = {}
    for item in items or ():
        if "=" not in item:
            raise UsageError(f"{what} {item}: must be KEY=VALUE")
        k, v = item.split("=", 1)
        key = k.strip().replace("-", "_")
        if not key:
            raise UsageError(f"{what} {item}: the key before '=' is empty")
        if key in out:
            raise UsageError(f"{what} {key}: given twice")
        try:
            out[key] = json.loads(v, parse_constant=_no_constant, parse_float=_finite_float)
        except json.JSONDecodeError:
            out[key] = v
        except ValueError as e:   # NaN / Infinity, or a number beyond float64's range
            raise UsageError(f"{what} {key}: {e}") from None
    return out


def _no_constant(name: str):
    """``json.loads`` would read ``NaN`` / ``Infinity`` as floats; a parameter value never is
    one (a time limit is omitted, not infinite)."""
    raise ValueError(f"{name} is not a value a parameter takes (numbers must be finite)")


def _finite_float(text: str) -> float:
    """A JSON number as a float, refusing one that overflows to infinity (``1e400``) rather
    than rounding it silently."""
    v = float(text)
    if not math.isfinite(v):
        raise ValueError(f"{text} is beyond float64's range (numbers must be finite)")
    return v


def check_params(func: Callable, params: dict[str, Any], flag: str, owner: str, *,
                 skip: int = 1, required: bool = False, reserved: Sequence[str] = ()) -> None:
    """Refuse keys that ``func`` does not take (naming the key as ``FLAG KEY`` and the
    accepted ones), and values of the wrong type where the signature says the type (a numeric
    default or an ``int`` annotation needs a number, a ``bool`` default needs true/false);
    with ``required``, also refuse missing required keyword arguments.  The rules are
    :func:`coflowopt.introspect.parameter_problem`'s (experiment specs use them too).

    ``skip`` positional parameters (the instance, the order) are not user parameters, and
    ``reserved`` ones are set by other flags (``seed`` by ``--seed``).  A function that takes
    ``**kwargs`` accepts any key (it forwards them).
    """
    from .introspect import parameter_problem

    p = parameter_problem(func, params, skip=skip, required=required, reserved=reserved)
    if p is None:
        return
    if p.kind == "required":
        raise UsageError(f"{flag} {p.key}: required by {owner} (give {flag} {p.key}=VALUE; "
                         f"accepted: {p.accepted})")
    raise UsageError(f"{flag} {p.key}: {owner} {p.rule}")


def blame(flag: str, params: dict[str, Any], owner: str, e: BaseException, *,
          rename: dict[str, str] | None = None) -> "UsageError":
    """A usage error for a parameter value that ``owner`` refused: names ``FLAG KEY`` for the
    key the message mentions first (``-p num_ports``), or the flag alone.  ``rename`` maps keys
    that come from their own flag (``time_limit`` -> ``--time-limit``) to that flag."""
    import re
    msg = " ".join(str(e).split())
    if msg.startswith(owner.split()[-1] + ": "):  # the function's own name prefix, once
        msg = msg[len(owner.split()[-1]) + 2:]
    hits = [(m.start(), k) for k in params
            for m in [re.search(rf"(?<![\w.]){re.escape(k)}(?!\w)", msg)] if m]
    key = min(hits)[1] if hits else None
    # an instance the parameters produced names its own field (coflows[3].release); a
    # generator's parameter for that field is its plural (releases, weights)
    leaf = str(getattr(e, "field", None) or "").rsplit(".", 1)[-1]
    if key is None and leaf and leaf + "s" in params:
        key = leaf + "s"
    where = (rename or {}).get(key) or (f"{flag} {key}" if key else flag)
    return UsageError(f"{where}: {owner}: {msg}")


def nonnegative_int(text: str) -> int:
    """argparse type of a seed or a count: an integer >= 0."""
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text!r}")
    return v


def lookup(kind: str, name: str, flag: str):
    """A registered algorithm, or a usage error naming ``flag`` and the valid names."""
    from .registry import get_algorithm
    try:
        return get_algorithm(kind, name)
    except CoflowOptError as e:
        raise UsageError(f"{flag} {name}: {e}") from None


def refuse_big_switch_only(alg, inst, flag: str, what: str) -> None:
    """A usage error naming ``flag`` when ``alg`` is tagged ``big_switch_only`` and ``inst``
    runs over resources (a topology): the registry's guard would raise NotSupportedError from
    inside the run; this says it before, with the flag and the names that do run."""
    if inst.is_big_switch or "big_switch_only" not in alg.tags:
        return
    from .registry import algorithms
    ok = sorted(a.name for a in algorithms(alg.kind) if "big_switch_only" not in a.tags)
    raise UsageError(f"{flag} {alg.name}: {alg.kind} {alg.name!r} is defined on the big switch "
                     f"only (tag big_switch_only), and {what} runs its flows over "
                     f"{describe_resources(inst)}; {alg.kind} methods that run on resources: "
                     f"{', '.join(ok) or 'none yet'}")


def instance_words(args) -> str:
    """``FILE`` or ``FILE placed by --topology SPEC``, for messages."""
    spec = getattr(args, "topology", None)
    return args.instance + (f" placed by --topology {spec}" if spec else "")


def describe_resources(inst) -> str:
    """``96 resources (the links of a fat-tree, paths of up to 6)``, for messages."""
    kind = (inst.meta.get("topology") or {}).get("kind")
    where = f"the links of a {kind}, " if isinstance(kind, str) else ""
    return f"{inst.num_resources} resources ({where}paths of up to {inst.max_path_length})"


def add_instance_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("instance reading")
    g.add_argument("--format", default="auto", choices=["auto", *INSTANCE_FORMAT_NAMES],
                   help="instance format: auto (default), json, coflow-benchmark (fb), sincronia")
    g.add_argument("--time-unit-ms", type=positive_number, default=None,
                   help="trace formats: milliseconds per time unit (default 7.8125: 1 MB at "
                        "1 Gbps)")
    g.add_argument("--capacity", type=positive_number, default=None,
                   help="trace formats: port capacity in MB per time unit (default 1)")
    g.add_argument("--zero-release", action="store_true",
                   help="set every release time to 0 (the offline setting of Sincronia's "
                        "evaluation)")
    g = p.add_argument_group("placing a host-to-host (big-switch) instance onto a topology")
    g.add_argument("--topology", metavar="KIND:KEY=VALUE,...",
                   help="place the instance's ports (hosts or racks) onto a topology and route "
                        "every flow before running, e.g. fat-tree:k=16 or leaf-spine:leaves=10,"
                        "spines=4,hosts_per_leaf=15,oversubscription=2 (the parameters of "
                        "coflowopt.topology.fat_tree / leaf_spine)")
    g.add_argument("--routing", choices=ROUTING_NAMES, default=None,
                   help="with --topology: ecmp (default; a seeded hash of the flow picks one of "
                        "the shortest paths) or shortest (the first shortest path)")
    g.add_argument("--routing-seed", type=nonnegative_int, default=None, metavar="N",
                   help="with --topology and ECMP: the hash seed (default 0)")
    g.add_argument("--placement", choices=PLACEMENT_NAMES, default=None,
                   help="with --topology: port p goes to host p mod hosts (modulo, default) or "
                        "to a seeded random host (random)")
    g.add_argument("--placement-seed", type=nonnegative_int, default=None, metavar="N",
                   help="with --placement random: its seed (default 0)")


def parse_topology(spec: str):
    """The :class:`coflowopt.topology.Topology` of a ``--topology`` value
    ``KIND:KEY=VALUE,...`` (``fat-tree:k=16``), or a usage error naming the flag, the key and
    the rule."""
    import inspect
    from . import limits, topology
    builders = {k: topology.BUILDERS[k] for k in TOPOLOGY_KINDS}
    kind, _, rest = spec.partition(":")
    kind = kind.strip()
    examples = " or ".join(TOPOLOGY_EXAMPLES.values())
    if kind not in builders:
        raise UsageError(f"--topology {spec}: unknown topology kind {kind!r}; valid: "
                         f"{', '.join(TOPOLOGY_KINDS)} (e.g. {examples})")
    items = rest.split(",") if rest.strip() else []
    if any(not item.strip() for item in items):
        raise UsageError(f"--topology {spec}: an empty KEY=VALUE between commas (write "
                         f"KIND:KEY=VALUE,KEY=VALUE, e.g. {TOPOLOGY_EXAMPLES[kind]})")
    params = parse_params([item.strip() for item in items], "--topology")
    builder = builders[kind]
    check_params(builder, params, "--topology", f"topology {kind}", skip=0)
    missing = [q.name for q in inspect.signature(builder).parameters.values()
               if q.default is q.empty and q.name not in params]
    if missing:
        raise UsageError(f"--topology {spec}: {kind} needs "
                         f"{', '.join(m + '=VALUE' for m in missing)} (e.g. --topology "
                         f"{TOPOLOGY_EXAMPLES[kind]})")
    ints = {k: v for k, v in params.items() if isinstance(v, int) and not isinstance(v, bool)}
    if kind == "fat-tree" and ints.get("k", 0) > 0:
        links, key = 3 * ints["k"] ** 3 // 2, "k"
    elif kind == "leaf-spine" and all(ints.get(k, 0) > 0 for k in
                                      ("leaves", "spines", "hosts_per_leaf")):
        links, key = 2 * ints["leaves"] * (ints["hosts_per_leaf"] + ints["spines"]), "leaves"
    else:
        links, key = 0, None
    rule = limits.count_rule("links", links, limits.MAX_RESOURCES, "MAX_RESOURCES")
    if rule:  # said before building: a k = 1000 fat-tree would allocate gigabytes
        raise UsageError(f"--topology {key}: {spec}: {rule}")
    try:
        return builder(**params)
    except (CoflowOptError, TypeError, ValueError) as e:
        raise blame("--topology", params, f"topology {kind}", e) from None


def topology_from_args(args):
    """The topology of ``--topology`` (checked with ``--routing``, ``--routing-seed``,
    ``--placement``, ``--placement-seed`` before any file is read), or None; without
    ``--topology`` the other four flags are refused (they would be ignored)."""
    spec = getattr(args, "topology", None)
    given = [flag for flag, dest in (("--routing", "routing"), ("--routing-seed", "routing_seed"),
                                     ("--placement", "placement"),
                                     ("--placement-seed", "placement_seed"))
             if getattr(args, dest, None) is not None]
    if spec is None:
        if given:
            raise UsageError(f"{given[0]}: applies with --topology only (it places a "
                             "host-to-host instance onto a topology)")
        return None
    if args.routing_seed is not None and (args.routing or "ecmp") != "ecmp":
        raise UsageError(f"--routing-seed: seeds ECMP's hash; --routing {args.routing} has no "
                         "seed")
    if args.placement_seed is not None and args.placement != "random":
        raise UsageError("--placement-seed: seeds --placement random only")
    if getattr(args, "capacity", None) is not None:
        raise UsageError("--capacity: with --topology the links' capacities replace the ports' "
                         "(set them in the spec, e.g. fat-tree:k=4,capacity=2)")
    return parse_topology(spec)


def place_on_topology(inst, topo, args, path: str):
    """``inst`` placed on ``topo`` (:func:`topology_from_args`) and routed; ``inst`` itself
    when ``topo`` is None.  An instance already on a topology is refused."""
    if topo is None:
        return inst
    if not inst.is_big_switch:
        raise UsageError(f"--topology {args.topology}: {path} is already on a topology (it runs "
                         f"its flows over {describe_resources(inst)}); --topology places a "
                         "host-to-host (big-switch) instance")
    from .topology import on_topology
    return on_topology(inst, topo, routing=args.routing or "ecmp", seed=args.routing_seed or 0,
                       placement=args.placement or "modulo",
                       placement_seed=args.placement_seed or 0)


def load_instance(args, path: str | None = None):
    from .formats import read_instance
    path = path or args.instance
    topo = topology_from_args(args)
    require_regular_file(path)
    fmt = args.format if args.format != "auto" else _detect_format(path)
    opts = {}
    if fmt not in ("json",):
        if args.time_unit_ms is not None:
            opts["time_unit_ms"] = args.time_unit_ms
        if args.capacity is not None:
            opts["capacity"] = args.capacity
    elif args.time_unit_ms is not None or args.capacity is not None:
        given = " and ".join(f for f, v in (("--time-unit-ms", args.time_unit_ms),
                                             ("--capacity", args.capacity)) if v is not None)
        raise UsageError(f"{given}: {path} is JSON, which states its own capacities and has no "
                         "time unit; --time-unit-ms and --capacity apply to reading a trace "
                         "(coflow-benchmark, sincronia), and --time-unit-ms also to the trace "
                         "that convert --to writes")
    inst = read_instance(path, format=fmt, **opts)
    if args.zero_release:
        # inst.with_releases(0.0).without_deadlines() in one copy: each copy validates the
        # whole instance again (0.3 s on the 5.2 million flows of Custom-4000, issue 17)
        import numpy as np
        inst = inst.replace(release=np.zeros(inst.num_coflows),
                            deadline=np.full(inst.num_coflows, np.nan),
                            meta={**inst.meta, "releases": "replaced"})
    return place_on_topology(inst, topo, args, path)


def require_regular_file(path: str) -> None:
    """A usage error unless ``path`` is an existing regular file (or a link to one).

    A pipe or a device (``/dev/stdin``, a shell's ``<(...)``) cannot be read twice, and the
    readers read a file's first bytes to tell its format before parsing it: the parser would
    then see the rest and report a misleading "not valid JSON"."""
    import os
    import stat
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except OSError as e:
        raise UsageError(f"{path}: cannot read it ({e.strerror})") from None
    if stat.S_ISDIR(mode):
        raise UsageError(f"{path}: is a directory, not a file")
    if not stat.S_ISREG(mode):
        raise UsageError(f"{path}: not a regular file (a pipe or a device); coflowopt reads an "
                         "input file more than once, so write it to a file first")


def _detect_format(path: str) -> str:
    """:func:`coflowopt.formats.detect_format` with command-line words in its messages (the
    library's messages name the Python API: ``format=``, ``read_schedule``)."""
    from .formats import SCHEDULE_FORMATS, detect_format
    try:
        return detect_format(path)
    except InvalidParameterError as e:
        if "schedule" in str(e) or path.lower().endswith(tuple(SCHEDULE_FORMATS)):
            raise UsageError(f"{path}: this is a schedule, not an instance (check a schedule "
                             "with: coflowopt verify INSTANCE SCHEDULE)") from None
        raise UsageError(f"{path}: cannot tell the instance format from the file (its second "
                         "line has neither coflow-benchmark 'location:MB' fields nor Sincronia's"
                         f" plain numbers); give --format one of "
                         f"{', '.join(INSTANCE_FORMAT_NAMES)}") from None


def progress(total: int, desc: str, args):
    from tqdm import tqdm
    return tqdm(total=total, desc=desc, unit="run", file=sys.stderr,
                disable=None if not getattr(args, "json", False) else True, leave=False)


# --------------------------------------------------------------------------------- commands
@command("info")
def cmd_info(args) -> int:
    inst = load_instance(args)
    s = inst.summary()
    s["file"] = args.instance
    s["format"] = inst.meta.get("source_format")
    if inst.is_big_switch:
        head = [f"{args.instance}: {s['coflows']} coflows, {s['flows']} flows, "
                f"{s['ingress_ports']} ingress x {s['egress_ports']} egress ports "
                f"({s['ports_used']['ingress']} / {s['ports_used']['egress']} used)"]
    else:
        head = _resources_info(inst, s, args.instance)
    lines = head + [
        f"total size {s['total_size']} {s['size_unit'] or 'units'}; releases "
        f"{s['release_span'][0]} .. {s['release_span'][1]}"
        f"{' (time unit ' + s['time_unit'] + ')' if s['time_unit'] else ''}; "
        f"{'uniform' if s['uniform_capacity'] else 'heterogeneous'} capacities",
        f"sum of weights {s['sum_weight']}; isolated bound sum w (r + rho) = "
        f"{s['isolated_bound']} (lower_bound)",
        "bins (short: longest flow < 5, narrow: <= 50 flows): " +
        ", ".join(f"{b} {n}" for b, n in s["bins"].items())]
    emit(args, s, "\n".join(lines))
    return EXIT_OK


def _resources_info(inst, s: dict, name: str) -> list[str]:
    """The head of ``info`` on an instance over resources (a topology); fills ``switches`` in
    ``s`` when the topology record gives a builder's kind and parameters but no node list."""
    topo = inst.meta.get("topology") or {}
    if s.get("switches") is None and topo.get("kind") in TOPOLOGY_KINDS and \
            "nodes" not in topo:
        from .topology import Topology
        try:
            built = Topology.from_dict(topo)
        except (CoflowOptError, TypeError, ValueError):
            built = None  # a record that does not rebuild: the count stays unknown (null)
        # only when the record's topology is this instance's (same links); otherwise null
        if built is not None and built.num_links == inst.num_resources and \
                built.link_names == inst.resource_names:
            s["switches"] = built.num_switches
    t = s.get("topology") or {}
    params = ",".join(f"{k}={v}" for k, v in (t.get("params") or {}).items())
    on = f"on a {t['kind']}{' (' + params + ')' if params else ''}: " if t.get("kind") else \
        "on resources: "
    route = ""
    if t.get("routing"):
        route = f"; routing {t['routing']}" + (f" (seed {t['seed']})" if t.get("seed") is not
                                                None else "")
        route += f", placement {t['placement']}" if t.get("placement") else ""
    m = s["most_loaded_resource"]
    return [f"{name}: {s['coflows']} coflows, {s['flows']} flows {on}{s['hosts']} hosts, "
            f"{'?' if s['switches'] is None else s['switches']} switches, {s['links']} links "
            f"(resources){route}",
            f"paths: {s['max_path_length']} resources at most, {s['mean_path_length']:.4g} on "
            f"average; hosts used: {s['hosts_used']['source']} sources, "
            f"{s['hosts_used']['destination']} destinations",
            f"most loaded resource: {m['id']} (resource {m['resource']}, capacity "
            f"{m['capacity']}): load {m['load_over_capacity']} (data / capacity), crossed by "
            f"{m['flows']} flows"]


#: convert's explicit overrides of a writer's refusal (NotSupportedError.remedy): the flag, and
#: what it does (in the refusal's message)
_CONVERT_REMEDIES = {
    "drop_weights": ("--drop-weights", "write every weight as 1"),
    "drop_deadlines": ("--drop-deadlines", "write the instance without its deadlines"),
    "drop_subcoflows": ("--drop-subcoflows", "write the default sub-coflows (one per egress "
                        "port)"),
    "allow_fractional": ("--allow-fractional", "write the sizes as decimals (which the C++ "
                         "simulator cannot read)"),
}


def _drop_fields(args, inst):
    """The instance without the fields convert's --drop-* flags name, and what went: a field
    is dropped only when asked, and the output says how many coflows it changed."""
    import numpy as np
    dropped = []
    if args.drop_weights:
        n = int(np.sum(inst.weight != 1))
        inst = inst.with_weights(1) if n else inst
        dropped.append({"field": "weights", "coflows": n})
    if args.drop_deadlines:
        n = int(np.sum(~np.isnan(inst.deadline)))
        inst = inst.without_deadlines() if n else inst
        dropped.append({"field": "deadlines", "coflows": n})
    if args.drop_subcoflows:
        n = 0
        if inst.flow_subcoflow is not None:
            n = int(np.unique(inst.flow_coflow[inst.flow_subcoflow
                                               != inst._default_subcoflow()]).size)
            inst = inst.replace(flow_subcoflow=None)
        dropped.append({"field": "sub-coflows", "coflows": n})
    return inst, dropped


@command("convert")
def cmd_convert(args) -> int:
    from .formats import write_instance
    if args.to in BIG_SWITCH_FORMATS and getattr(args, "topology", None):
        raise UsageError(f"--to {args.to}: the {args.to} format holds a big switch only (ports, "
                         "no paths), and --topology places the instance on a topology; write "
                         "--to json (version 2)")
    read_args = args
    if args.to not in ("auto", "json") and args.time_unit_ms is not None:
        require_regular_file(args.instance)
        if (args.format if args.format != "auto" else _detect_format(args.instance)) == "json":
            # JSON has no time unit to read: --time-unit-ms is then the written trace's only
            read_args = argparse.Namespace(**{**vars(args), "time_unit_ms": None})
    inst = load_instance(read_args)
    if args.to in BIG_SWITCH_FORMATS and not inst.is_big_switch:
        raise UsageError(f"--to {args.to}: the {args.to} format holds a big switch only (ports, "
                         f"no paths), and {args.instance} runs its flows over "
                         f"{describe_resources(inst)}; write --to json (version 2)")
    opts = {}
    if args.to not in ("auto", "json") and args.time_unit_ms is not None:
        opts["time_unit_ms"] = args.time_unit_ms
    if args.to == "auto" and not args.output.lower().endswith(".json"):
        raise UsageError(f"--to: cannot tell which format to write {args.output} in from its "
                         f"name; give --to one of {', '.join(INSTANCE_FORMAT_NAMES)}")
    if args.allow_fractional:
        if args.to != "sincronia":
            raise UsageError("--allow-fractional: only --to sincronia refuses fractional sizes "
                             "(its C++ simulator reads integers); the other formats write them")
        opts["allow_fractional"] = True
    inst, dropped = _drop_fields(args, inst)
    try:
        with writing("output", args.output):
            write_instance(inst, args.output, format=args.to, **opts)
    except NotSupportedError as e:
        # the writer's message names the Python call that overrides it; here, the flag
        flag = _CONVERT_REMEDIES.get(e.remedy)
        if flag is None:
            raise
        raise UsageError(f"{args.instance}: {e.rule}; give {flag[0]} to {flag[1]}") from None
    payload = {"input": args.instance, "output": args.output, "coflows": inst.num_coflows,
               "flows": inst.num_flows, "dropped": dropped}
    text = f"wrote {args.output} ({inst.num_coflows} coflows, {inst.num_flows} flows"
    text += "".join(f"; dropped {d['field']} ({d['coflows']} "
                    f"{'coflow' if d['coflows'] == 1 else 'coflows'} had them)" for d in dropped)
    if not inst.is_big_switch:
        payload.update({"model": "resources", "hosts": inst.num_hosts,
                        "resources": inst.num_resources,
                        "topology": (inst.meta.get("topology") or {}).get("kind")})
        text += f" over {describe_resources(inst)}; format version 2"
    emit(args, payload, text + ")")
    return EXIT_OK


def _generator_name(name: str, table) -> str:
    """``fat_tree`` for ``fat-tree``, ``uniform-random`` for ``uniform_random``."""
    if name not in table:
        name = next((n for n in (name.replace("_", "-"), name.replace("-", "_")) if n in table),
                    name)
    return name


def _generator_text(name: str, gen) -> list[str]:
    import inspect

    from .introspect import format_parameters, parameters
    doc = (inspect.getdoc(gen) or "").split("\n\n")[0].replace("\n", " ")
    return [f"{name}: {doc}", *format_parameters(parameters(gen, skip=("seed",)), "  ")]


class GeneratorHelp(argparse.Action):
    """``generate --help``: the usage; ``generate NAME --help``: also NAME's parameters (the
    positional is parsed before the flag, so the action sees it)."""

    def __init__(self, option_strings, dest, **kw):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kw)

    def __call__(self, parser, namespace, values, option_string=None):
        parser.print_help()
        name = getattr(namespace, "generator", None)
        if name:
            from . import generators
            table = generators.GENERATORS
            key = _generator_name(name, table)
            if key in table:
                print("\nparameters (-p KEY=VALUE; the seed is --seed):")
                print("\n".join(_generator_text(key, table[key])))
            else:
                parser.exit(EXIT_BAD_INPUT, f"coflowopt generate: error: unknown generator "
                            f"{name!r}; valid: {', '.join(sorted(table))}\n")
        parser.exit()


def subcommand_without_help(subparsers, name: str, help_: str) -> argparse.ArgumentParser:
    """:func:`add_command` with the help flag left to the caller."""
    sp = subparsers.add_parser(name, help=help_, description=help_, add_help=False)
    sp.add_argument("--json", action="store_true", help="machine-readable output")
    return sp


@command("generate")
def cmd_generate(args) -> int:
    from . import generators
    from .formats import write_instance
    table = generators.GENERATORS
    if args.list:
        if args.generator or args.param or args.out:
            raise UsageError("--list: give it alone (it lists every generator and exits)")
        from .introspect import parameters
        rows = [{"name": n, "parameters": parameters(table[n], skip=("seed",))}
                for n in sorted(table)]
        emit(args, {"generators": rows},
             "\n\n".join("\n".join(_generator_text(n, table[n])) for n in sorted(table)))
        return EXIT_OK
    if not args.generator:
        raise UsageError("GENERATOR: give a generator name (coflowopt generate --list)")
    if not args.out:
        raise UsageError("--out/-o: required (the file to write)")
    if not args.out.lower().endswith(".json"):
        raise UsageError(f"--out {args.out}: generate writes coflowopt-instance JSON, version 2 "
                         "on a topology (a .json file); coflowopt convert writes a big switch's "
                         "trace formats")
    name = args.generator
    name = _generator_name(name, table)
    if name not in table:
        raise UsageError(f"unknown generator {args.generator!r}; valid: {', '.join(sorted(table))}")
    args.generator = name
    flag = param_flag(args, "param", "-p")
    params = parse_params(args.param, flag)
    gen = table[args.generator]
    if "seed" in params:
        raise UsageError(f"{flag} seed: give the seed with --seed")
    check_params(gen, params, flag, f"generator {args.generator}", skip=0, required=True,
                 reserved=("seed",))
    try:
        inst = gen(**params, seed=args.seed)
    except (CoflowOptError, TypeError, ValueError) as e:
        # a value the generator refused (or met with the wrong type deep inside, where numpy's
        # message says what): the user's parameter, not a bug
        raise blame(flag, params, f"generator {args.generator}", e) from None
    with writing("--out", args.out):
        write_instance(inst, args.out)
    payload = {"generator": args.generator, "params": params, "seed": args.seed,
               "output": args.out, "coflows": inst.num_coflows, "flows": inst.num_flows}
    text = f"wrote {args.out}: {inst!r} from {args.generator} (seed {args.seed})"
    if not inst.is_big_switch:
        topo = inst.meta.get("topology") or {}
        switches = sum(1 for n in topo.get("nodes") or () if not n.get("host"))
        payload.update({"model": "resources", "hosts": inst.num_hosts, "switches": switches,
                        "links": inst.num_resources, "topology": topo.get("kind"),
                        "routing": topo.get("routing"), "routing_seed": topo.get("seed")})
        text += (f"; {topo.get('kind')}: {inst.num_hosts} hosts, {switches} switches, "
                 f"{inst.num_resources} links, routing {topo.get('routing')}")
    emit(args, payload, text)
    return EXIT_OK


def _result_text(res, inst) -> str:
    lines = [f"{res.algorithm}: {res.status}"]
    if res.kind is not None:
        rep = res.report
        lines.append(f"  {res.objective} = {float(res.value):.10g}  [{res.kind}, verified "
                     f"{rep.mode}]")
        lines.append(f"  weighted CCT {float(rep.weighted_cct):.10g}; average CCT "
                     f"{rep.average_cct:.10g}; makespan {float(rep.makespan):.10g}; "
                     f"{rep.num_pieces} pieces" +
                     (f", verified in {res.extra['streamed']['windows']} windows as produced "
                      "(not held)" if "streamed" in res.extra else ""))
    else:
        lines.append("  " + res.message)
    if res.timings:
        lines.append("  time: " + ", ".join(f"{k} {v:.3f}s" for k, v in res.timings.items()))
    return "\n".join(lines)


@command("schedule")
def cmd_schedule(args) -> int:
    from .api import run_schedule
    from .formats import write_schedule
    order_params = parse_params(args.order_param, "--order-param")
    rate_params = parse_params(args.rate_param, "--rate-param")
    policy_params = parse_params(args.policy_param, "--policy-param")
    if args.policy is not None:
        # a policy decides both the order and the rates: --order/--rates would be ignored
        given = [f for f, v in (("--order", args.order), ("--rates", args.rates),
                                ("--order-param", args.order_param),
                                ("--rate-param", args.rate_param)) if v]
        if given:
            raise UsageError(f"--policy {args.policy} cannot be combined with "
                             f"{' / '.join(given)} (a policy sets the order and the rates "
                             "itself)")
        alg = lookup("policy", args.policy, "--policy")
        check_params(alg.func, policy_params, "--policy-param", f"policy {alg.name}")
    else:
        if args.order is None or args.rates is None:
            missing = "--rates" if args.order else "--order" if args.rates else \
                "--order and --rates"
            raise UsageError(f"{missing}: give --order NAME --rates NAME, or --policy NAME")
        if args.policy_param:
            raise UsageError("--policy-param applies to --policy only")
        oalg = lookup("ordering", args.order, "--order")
        ralg = lookup("rates", args.rates, "--rates")
        check_params(oalg.func, order_params, "--order-param", f"ordering {oalg.name}")
        check_params(ralg.func, rate_params, "--rate-param", f"rates {ralg.name}", skip=2)
    check_schedule_file("--out", args.out)
    check_schedule_file("--slotted", args.slotted, slotted=True)
    if not args.slotted:
        given = [f for f, v in (("--slot", args.slot), ("--slotted-method", args.slotted_method))
                 if v is not None]
        if given:
            raise UsageError(f"{' / '.join(given)} applies to --slotted FILE only")
    inst = load_instance(args)
    if args.slotted:
        from .exceptions import NotSupportedError
        from .slotted import integral_capacities
        try:  # before scheduling: the instance must be in the integral model
            integral_capacities(inst, args.slot or 1.0)
        except NotSupportedError as e:
            raise NotSupportedError(f"--slotted: {e}") from None
    if args.policy is not None:
        refuse_big_switch_only(alg, inst, "--policy", instance_words(args))
    else:
        refuse_big_switch_only(oalg, inst, "--order", instance_words(args))
        refuse_big_switch_only(ralg, inst, "--rates", instance_words(args))
    # what has a windowed form (per-flow fairness, WSS, Varys, MADD), written to .npz, goes
    # window by window to the verifier and the file as the kernel produces it: never held
    # (per-flow fairness: 2e8 pieces, 6.4 GB, on the FB trace); without --out it is streamed
    # to the verifier alone (run_schedule, keep_schedule=False)
    from .api import POLICY_WINDOWS, RATES_WINDOWS, has_windows
    stream = bool(args.out and args.out.lower().endswith(".npz") and not args.slotted
                  and not args.exact and (
                      has_windows(args.policy, policy_params, POLICY_WINDOWS)
                      if args.policy is not None
                      else has_windows(args.rates, rate_params, RATES_WINDOWS)))
    try:
        res = run_schedule(inst, order=args.order, rates=args.rates, policy=args.policy,
                           order_params=order_params, rate_params=rate_params,
                           policy_params=policy_params, objective=args.objective,
                           verify_mode="exact" if args.exact else "float",
                           keep_schedule=bool((args.out and not stream) or args.slotted),
                           stream_to=args.out if stream else None)
    except InvalidParameterError as e:
        # a parameter value the algorithm refused: name the flags that carried values
        given = [f for f, v in (("--policy-param", args.policy_param),
                                ("--order-param", args.order_param),
                                ("--rate-param", args.rate_param)) if v]
        if not given:
            raise
        raise blame(" / ".join(given), {**order_params, **rate_params, **policy_params},
                    args.policy or f"{args.order}+{args.rates}", e) from None
    if args.out and args.out.endswith(".json") and res.schedule.num_pieces > JSON_PIECES_NOTE:
        print(f"coflowopt schedule: note: {res.schedule.num_pieces} pieces; the JSON segment "
              "form of a schedule this size can take a gigabyte (--out FILE.npz is the compact "
              "columnar form, read by the verifier too)", file=sys.stderr)
    if args.out and not stream:
        t0 = time.perf_counter()
        with writing("--out", args.out):
            write_schedule(res.schedule, inst, args.out)
        res.timings["write"] = time.perf_counter() - t0
    payload = res.to_dict(per_coflow=True)
    payload["instance"] = args.instance
    payload["coflow_ids"] = list(inst.coflow_ids)
    if args.out:
        payload["schedule_file"] = args.out
    text = _result_text(res, inst) + (f"\n  wrote {args.out}" if args.out else "")
    ok = res.kind is not None
    if args.cct_csv and ok and res.report is not None:
        from .formats.completion_csv import write_completion_csv
        with writing("--cct-csv", args.cct_csv):
            write_completion_csv(args.cct_csv, inst,
                                 {res.algorithm: res.report.coflow_completion},
                                 algorithm_column=False)
        payload["cct_csv"] = args.cct_csv
        text += f"\n  wrote per-coflow completion times to {args.cct_csv}"
    if args.slotted and ok:
        from .formats import write_slotted_schedule
        from .slotted_rounding import round_fluid_schedule
        t0 = time.perf_counter()
        rnd = round_fluid_schedule(inst, res.schedule, slot=args.slot or 1.0,
                                   method=args.slotted_method or "auto",
                                   objective=args.objective, fluid_report=res.report)
        with writing("--slotted", args.slotted):
            write_slotted_schedule(rnd.schedule, inst, args.slotted)
        res.timings["slotted"] = time.perf_counter() - t0
        payload["timings"] = {k: round(float(v), 6) for k, v in res.timings.items()}
        payload["slotted"] = {**rnd.to_dict(), "file": args.slotted}
        text += (f"\n  slotted (integral model, slot {rnd.schedule.slot:g}, {rnd.method}): "
                 f"{args.objective} = {rnd.integral_value}, rounding loss {rnd.loss:.6g}, "
                 f"{rnd.report.num_slots} slots; wrote {args.slotted}")
        ok = rnd.report.ok
    emit(args, payload, text)
    return EXIT_OK if ok else EXIT_REJECTED


@command("verify")
def cmd_verify(args) -> int:
    from .formats import read_schedule, schedule_file_model
    from .verify import verify_schedule
    inst = load_instance(args)
    require_regular_file(args.schedule)
    if schedule_file_model(args.schedule) == "integral":
        return _verify_slotted(args, inst)
    sched = read_schedule(args.schedule, inst)
    rep = verify_schedule(inst, sched, mode="exact" if args.exact else "float")
    d = rep.to_dict(per_coflow=True)
    d["kind"] = "feasible" if rep.ok else None
    d["objective"] = args.objective
    d["value"] = d[args.objective] if rep.ok else None
    d["instance"], d["schedule"] = args.instance, args.schedule
    d["coflow_ids"] = list(inst.coflow_ids)
    if rep.ok:
        text = (f"{args.schedule}: {rep.summary()} [feasible]\n  average CCT "
                f"{rep.average_cct:.10g}; makespan {float(rep.makespan):.10g}; "
                f"{rep.num_pieces} pieces")
    else:
        text = f"{args.schedule}: {rep.summary()}\n" + "\n".join(
            f"  {v.kind}: {v.message}" + (f" (segment {v.segment})" if v.segment is not None
                                          else "") for v in rep.violations[:20])
    emit(args, d, text)
    return EXIT_OK if rep.ok else EXIT_REJECTED


def _verify_slotted(args, inst) -> int:
    """``verify`` of a slotted schedule file (its ``format`` says so): the integral model's
    verifier, in exact integers (``--exact`` changes nothing)."""
    from .exceptions import NotSupportedError
    from .formats import read_slotted_schedule
    from .slotted import verify_slotted
    sched = read_slotted_schedule(args.schedule, inst)
    try:
        rep = verify_slotted(inst, sched)
    except NotSupportedError as e:  # the instance is not in the model at this slot length
        raise NotSupportedError(f"{args.schedule}: {e}") from None
    d = rep.to_dict(per_coflow=True)
    d["kind"] = "feasible" if rep.ok else None
    d["objective"] = args.objective
    d["value"] = d[args.objective] if rep.ok else None
    d["instance"], d["schedule"] = args.instance, args.schedule
    d["coflow_ids"] = list(inst.coflow_ids)
    if rep.ok:
        text = (f"{args.schedule}: {rep.summary()} [feasible]\n  weighted CCT "
                f"{rep.weighted_cct}; makespan {rep.makespan}; {sched.num_entries} entries")
    else:
        text = f"{args.schedule}: {rep.summary()}\n" + "\n".join(
            f"  {kind}: {msg}" for kind, msg in rep.violations[:20])
    emit(args, d, text)
    return EXIT_OK if rep.ok else EXIT_REJECTED


@command("algorithms")
def cmd_algorithms(args) -> int:
    from .registry import algorithms
    if args.name is not None:
        return _describe_algorithm(args)
    algs = algorithms(args.kind)
    rows = [a.to_dict() for a in algs]
    text = "\n".join(f"{a.kind:9s} {a.name:22s} {a.summary}" +
                     (f"\n{'':32s}guarantee: {a.guarantee}" if a.guarantee else "") +
                     f"\n{'':32s}tags: {', '.join(sorted(a.tags)) or '-'}; ref: {a.reference}"
                     for a in algs)
    emit(args, {"algorithms": rows}, text)
    return EXIT_OK


def _describe_algorithm(args) -> int:
    """``coflowopt algorithms NAME``: every entry of that name (or alias) with its parameters
    (from the signature and the numpydoc docstring), guarantee, tags and reference."""
    import difflib

    from .introspect import describe_algorithm, format_parameters
    from .registry import algorithms
    want = args.name.strip()
    hits = [a for a in algorithms(args.kind) if want == a.name or want in a.aliases]
    if not hits:
        names = sorted({a.name for a in algorithms(args.kind)})
        close = difflib.get_close_matches(want, names, n=3)
        raise UsageError(f"NAME {want!r}: no registered algorithm of that name"
                         + (f" of kind {args.kind}" if args.kind else "")
                         + (f"; did you mean {', '.join(close)}?" if close else
                            "; coflowopt algorithms lists them"))
    rows = [describe_algorithm(a) for a in hits]
    text = []
    for a, row in zip(hits, rows):
        text += [f"{a.kind} {a.name}" + (f" (aliases: {', '.join(a.aliases)})" if a.aliases
                                          else ""),
                 f"  {a.summary}",
                 f"  guarantee: {a.guarantee or 'none claimed'}",
                 f"  tags: {', '.join(sorted(a.tags)) or '-'}",
                 f"  reference: {a.reference}",
                 f"  function: {row['function']}",
                 "  parameters:", *format_parameters(row["parameters"], "    "), ""]
    emit(args, {"algorithms": rows}, "\n".join(text).rstrip())
    return EXIT_OK


@command("demo")
def cmd_demo(args) -> int:
    from .demo import run_demo
    announce = None if args.json else (lambda line: print(line, file=sys.stderr, flush=True))
    rows, failures = run_demo(progress=lambda total: progress(total, "demo", args),
                              include_slow=args.all, announce=announce)
    from .demo import format_table
    emit(args, {"rows": rows, "failures": failures}, format_table(rows))
    return EXIT_OK if not failures else EXIT_REJECTED


# --------------------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="coflowopt", description=(
        "Offline coflow scheduling on the big switch and on topologies (flows over shared "
        "resources: generate fat-tree / leaf-spine, or --topology on any command that reads an "
        "instance): verified schedules, certified lower bounds and proven optima."),
        epilog=EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"coflowopt {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    def add(name, help_):
        return add_command(sub, name, help_)

    sp = add("info", "summarise an instance (counts, sizes, bins, isolated bound)")
    sp.add_argument("instance", help="the instance file (format from its content or --format)")
    add_instance_options(sp)

    sp = add("convert", "convert an instance between formats")
    sp.add_argument("instance", help="the instance file to read")
    sp.add_argument("output", type=output_file,
                    help="the file to write (format from --to or its name)")
    sp.add_argument("--to", default="auto", choices=["auto", *INSTANCE_FORMAT_NAMES],
                    help="output format (default: from the file name, .json only)")
    sp.add_argument("--drop-weights", action="store_true",
                    help="write every weight as 1 (the trace formats have no weights and refuse "
                         "a weighted instance without this flag)")
    sp.add_argument("--drop-deadlines", action="store_true",
                    help="write the instance without deadlines (the trace formats have none)")
    sp.add_argument("--drop-subcoflows", action="store_true",
                    help="write the default sub-coflows, one per egress port (the trace "
                         "formats hold no other)")
    sp.add_argument("--allow-fractional", action="store_true",
                    help="--to sincronia: write fractional sizes as decimals (the Sincronia "
                         "C++ simulator reads integers only, so it refuses them by default)")
    add_instance_options(sp)

    sp = subcommand_without_help(sub, "generate", "generate a random or structured instance")
    sp.add_argument("generator", nargs="?", metavar="GENERATOR",
                    help="generator name (--list shows them; GENERATOR --help its parameters)")
    sp.add_argument("--help", "-h", action=GeneratorHelp,
                    help="show this help (after a GENERATOR: that generator's parameters)")
    sp.add_argument("--list", action="store_true",
                    help="list the generators with their parameters and exit")
    sp.add_argument("--param", "-p", action=KeyValues, metavar="KEY=VALUE",
                    help="generator parameter (repeatable), e.g. -p num_ports=4")
    sp.add_argument("--seed", type=nonnegative_int, default=0, help="random seed (default 0)")
    sp.add_argument("--out", "-o", type=output_file, help="output file (required unless --list)")

    sp = add("schedule", "schedule an instance, verify the schedule, optionally write it")
    sp.add_argument("instance", help="the instance file")
    sp.add_argument("--order", help="ordering name (coflowopt algorithms --kind ordering)")
    sp.add_argument("--rates", help="rate allocation name (coflowopt algorithms --kind rates)")
    sp.add_argument("--policy", help="a whole policy instead of --order/--rates")
    sp.add_argument("--order-param", action="append", metavar="KEY=VALUE",
                    help="a parameter of the ordering (repeatable; coflowopt algorithms NAME "
                         "lists them)")
    sp.add_argument("--rate-param", action="append", metavar="KEY=VALUE",
                    help="a parameter of the rate allocation (repeatable)")
    sp.add_argument("--policy-param", action="append", metavar="KEY=VALUE",
                    help="a parameter of the policy (repeatable)")
    sp.add_argument("--objective", default="weighted_completion_time",
                    help="weighted_completion_time (sum w C, default) or weighted_cct "
                         "(sum w (C - r))",
                    choices=["weighted_completion_time", "weighted_cct"])
    sp.add_argument("--out", "-o", type=output_file,
                    help="write the schedule (.json segments or .npz pieces)")
    sp.add_argument("--cct-csv", metavar="FILE", type=output_file,
                    help="write per-coflow completion times as CSV (id, release, completion, "
                         "cct, slowdown), as coflowsim and Sincronia's simulator do")
    sp.add_argument("--exact", action="store_true", help="verify in exact rational arithmetic")
    sp.add_argument("--slotted", metavar="FILE", type=output_file,
                    help="also round the verified schedule to the integral matching model "
                         "(whole units per slot; sizes and capacity x slot must be whole) and "
                         "write it as a slotted schedule (.json slots or .npz entries); the "
                         "output reports its verified value and the rounding loss (integral / "
                         "fluid objective)")
    sp.add_argument("--slot", type=positive_number, metavar="LENGTH",
                    help="slot length for --slotted (default 1)")
    sp.add_argument("--slotted-method", choices=["carry", "colouring", "greedy"],
                    help="for --slotted: carry (default: units that do not fit a slot wait "
                         "for later slots), colouring (big switch: each overflowing slot "
                         "becomes the fewest slots, by Konig edge colouring) or greedy "
                         "(first-fit blocks)")
    add_instance_options(sp)

    sp = add("verify", "verify a schedule file against an instance (a slotted schedule, "
                       "format coflowopt-slotted-schedule, in the integral model)")
    sp.add_argument("instance", help="the instance file")
    sp.add_argument("schedule", help="the schedule file (coflowopt-schedule JSON/npz, or a "
                                     "coflowopt-slotted-schedule)")
    sp.add_argument("--exact", action="store_true", help="exact rational arithmetic")
    sp.add_argument("--objective", default="weighted_completion_time",
                    help="weighted_completion_time (sum w C, default) or weighted_cct "
                         "(sum w (C - r))",
                    choices=["weighted_completion_time", "weighted_cct"])
    add_instance_options(sp)

    sp = add("algorithms", "list the registered algorithms with guarantees and references; "
                           "with NAME, that algorithm's parameters")
    sp.add_argument("name", nargs="?", metavar="NAME",
                    help="an algorithm's name or alias: print its parameters (name, type, "
                         "default, meaning), guarantee, tags and reference")
    sp.add_argument("--kind", choices=["ordering", "rates", "policy", "bound", "exact", "slotted"],
                    help="only algorithms of this kind")

    sp = add("demo", "schedule the embedded default instances with every algorithm, verify "
                     "each schedule and print a table")
    sp.add_argument("--all", action="store_true", help="include slow/exponential algorithms")

    # commands defined in their own modules (coflowopt/commands/*.py)
    import importlib
    import pkgutil
    from . import commands
    this = sys.modules[__name__]
    for mod in sorted(m.name for m in pkgutil.iter_modules(commands.__path__)):
        importlib.import_module(f"{commands.__name__}.{mod}").add_parser(sub, this)
    return p


def command_parsers(parser: argparse.ArgumentParser | None = None):
    """(name, parser) of every subcommand, and of every action of one that has actions
    (``"lib status"``...): what the command-line contract test and ``tools/fuzz_cli_flags.py``
    walk to reach every flag."""
    sub = next(a for a in (parser or build_parser())._actions if a.dest == "command")
    for name, sp in sub.choices.items():
        nested = [a for a in sp._actions if isinstance(a, argparse._SubParsersAction)]
        if nested:
            yield from ((f"{name} {n}", s) for a in nested for n, s in a.choices.items())
        else:
            yield name, sp


def add_command(subparsers, name: str, help_: str) -> argparse.ArgumentParser:
    """A subparser with the common ``--json`` flag."""
    sp = subparsers.add_parser(name, help=help_, description=help_)
    sp.add_argument("--json", action="store_true", help="machine-readable output")
    return sp


def main_in_fork(argv: Sequence[str], limit: int | None = None) -> tuple[int, str, str]:
    """Run :func:`main` on ``argv`` in a forked child whose file descriptors 1 and 2 are fresh
    files, as a process started from the shell would: its exit status and what it wrote to
    each (a solver banner written to fd 1, a traceback), without paying the interpreter's and
    coflowopt's start for every case.  ``limit``: seconds before the child gets ``SIGALRM``
    (exit status -14).  POSIX only; for the command-line tests and ``tools/fuzz_cli_flags.py``.
    """
    import os
    import signal
    import tempfile
    fo, fe = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        os.dup2(fo.fileno(), 1)
        os.dup2(fe.fileno(), 2)
        if limit:
            signal.alarm(limit)
        code = 3
        try:
            sys.argv = ["coflowopt", *argv]
            code = main(list(argv))
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 2
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code if isinstance(code, int) else 3)
    _, status = os.waitpid(pid, 0)
    fo.seek(0)
    fe.seek(0)
    return os.waitstatus_to_exitcode(status), fo.read().decode(), fe.read().decode()


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:
            # argparse would blame the top-level parser ("coflowopt: error: unrecognized
            # arguments"); name the command whose options they are not, and its --help
            _innermost_parser(parser, args).error("unrecognized arguments: " + " ".join(extra))
    except SystemExit as e:
        # argparse has printed its one line (or --help): main returns exit codes, it does not
        # raise them, so in-process callers see the same code as a shell
        return e.code if isinstance(e.code, int) else EXIT_BAD_INPUT
    if args.command is None:
        print(f"coflowopt: error: give a COMMAND ({', '.join(sorted(_subcommands(parser)))}); "
              "see coflowopt --help", file=sys.stderr)
        return EXIT_BAD_INPUT
    if getattr(args, "solver_log", False):
        # an environment variable rather than a parameter: it reaches every model, also those
        # built deep inside a method or in a worker process
        import os
        from .formulations.highs import SOLVER_LOG_ENV
        os.environ[SOLVER_LOG_ENV] = "1"
    try:
        handler = getattr(args, "handler", None) or _COMMANDS[args.command]
        return handler(args)
    except BrokenPipeError:  # pragma: no cover - e.g. `coflowopt ... | head`
        sys.stderr.close()
        return EXIT_OK
    except InfeasibleScheduleError as e:
        print(f"coflowopt {args.command}: {_one_line(e)}", file=sys.stderr)
        return EXIT_REJECTED
    except SolverError as e:
        # the solver, not the input, failed: its own exit code, so that scripts can retry
        # or switch backends rather than "fix" a valid input
        print(f"coflowopt {args.command}: solver failure: {_one_line(e)}", file=sys.stderr)
        return EXIT_SOLVER
    except MemoryError as e:
        # the machine's (or the address-space limit's) memory, not the input and not a bug
        # in the sense of exit 3: one line, no traceback (numpy says what it could not
        # allocate; a bare MemoryError says nothing more)
        print(f"coflowopt {args.command}: out of memory: "
              f"{_one_line(e) if str(e) else 'an allocation failed'} (this run needs more "
              "memory than it was given; see the README's memory figures)", file=sys.stderr)
        return EXIT_SOLVER
    except (CoflowOptError, OSError) as e:
        # every bad input / usage error: exit 2 with the located message
        print(f"coflowopt {args.command}: error: {_one_line(e)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except ModuleNotFoundError as e:
        # an optional extra that is not installed (matplotlib, duckdb, dask, pyomo...): the
        # user's environment, not a bug
        print(f"coflowopt {args.command}: error: this needs the optional package "
              f"{e.name or e}, which is not installed (pip install 'coflowopt[all]')",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(f"coflowopt {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as e:  # a bug, not bad input: say so, with the traceback
        if _interrupted(e):
            # Ctrl-C inside a compiled kernel reaches Python as the SystemError of numba's
            # dispatcher ("returned a result with an exception set") around the interrupt
            print(f"coflowopt {args.command}: interrupted", file=sys.stderr)
            return EXIT_INTERRUPTED
        import traceback
        traceback.print_exc()
        print(f"coflowopt {args.command}: internal error (please report it)", file=sys.stderr)
        return EXIT_INTERNAL


def _interrupted(e: BaseException) -> bool:
    """Whether a KeyboardInterrupt is in ``e``'s chain of causes and contexts."""
    seen = set()
    while e is not None and id(e) not in seen:
        if isinstance(e, KeyboardInterrupt):
            return True
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return False


def _one_line(e: BaseException) -> str:
    """The message of ``e`` on one line (the contract: one line on standard error)."""
    return " ".join(str(e).split("\n")).strip() or type(e).__name__


def _innermost_parser(parser: argparse.ArgumentParser, args) -> argparse.ArgumentParser:
    """The (sub)parser of the command that ``args`` selected (``coflowopt lib status``: the
    ``status`` parser), following each level's subparsers by the name it stored."""
    while True:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        name = getattr(args, subs[0].dest, None) if subs and subs[0].dest else None
        if not subs or name not in subs[0].choices:
            return parser
        parser = subs[0].choices[name]


def _subcommands(parser: argparse.ArgumentParser) -> list[str]:
    return [n for a in parser._actions if isinstance(a, argparse._SubParsersAction)
            for n in a.choices]


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
