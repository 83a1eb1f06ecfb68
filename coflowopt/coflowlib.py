"""CoflowLib: benchmark instances with proven optima and certificates anyone can check.

The library lives in ``instances/coflowlib/`` (its README documents the layout; the files are
written by ``instances/coflowlib/make_coflowlib.py``).  One manifest,
``manifest.provenance.json``, lists the families (how each was made: generator, parameters,
seeds, or the source folder) and every instance with its status:

* ``optimal``: the best schedule's value is the optimum, proved by a certificate of an optimum
  (:func:`coflowopt.certificate_files.optimum_certificate`) that ``tools/check_certificate.py``
  confirms, or by a lower-bound certificate whose value the best schedule, verified in exact
  arithmetic, meets;
* ``open``: the best verified schedule (``best.verified``: ``exact``, the default, or
  ``float``: the verifier's float mode with its tolerances, for schedules too large to check
  exactly in a routine check or that miss exactness by rounding), the best bound with a
  certificate file, and the gap ``best / bound``.

Each instance has ``<id>.instance`` (coflowopt-instance JSON), ``<id>.best.schedule.json``
(coflowopt-schedule JSON, exact fractions) or, where the schedule is too large to store (the
FB-trace samples: 10^5-10^6 pieces, 10-200 MB as JSON), ``<id>.best.order.json`` (an *order
document*, format ``coflowlib-order``: a coflow order and a registered rate allocation; the best
schedule is that allocation run on that order, rebuilt and verified exactly by every check),
and ``<id>.certificate`` (certificate JSON).  The
families of the integral matching model (manifest entries with ``model: "integral"``, slot
``slot``) store ``<id>.best.slotted.json`` (a coflowopt-slotted-schedule, judged by
:func:`coflowopt.slotted.verify_slotted`) and a certificate of the integral model (the fluid
bound rounded up to the objective lattice, :func:`coflowopt.certificate_files.
integral_certificate`); their optimum is the integral one.  The
instance and certificate files do not end in ``.json`` so that :mod:`coflowopt.library` (the
papers' examples, every ``*.json`` with a provenance sidecar) does not list them; every reader
of coflowopt and the checker read them by content.

Commands: ``coflowopt lib status`` (:func:`status_rows`), ``coflowopt lib check``
(:func:`check_library`), ``coflowopt lib submit`` (:func:`submit`).

Examples
--------
>>> rows = status_rows(load_manifest())
>>> rows[0]["family"], rows[0]["instances"] >= 1
('adversarial', True)
"""

from __future__ import annotations

import importlib.util
import json
import math
import shutil
from fractions import Fraction
from pathlib import Path
from typing import Any

from .exceptions import InvalidParameterError

__all__ = ["MANIFEST", "MANIFEST_FORMAT", "ORDER_FORMAT", "coflowlib_dir", "load_manifest",
           "save_manifest", "status_rows", "check_library", "submit", "load_checker",
           "instance_path", "order_document", "best_schedule", "Refused"]

MANIFEST = "manifest.provenance.json"


class Refused(Exception):
    """A submitted schedule that is not recorded (rejected, or no improvement): exit 1."""

MANIFEST_FORMAT = "coflowlib-manifest"
#: An order document: ``{"format": "coflowlib-order", "version": 1, "order": [coflow ids],
#: "rates": NAME}`` (optional ``rate_params``, an object of keyword arguments, and
#: ``algorithm``): the schedule ``rates(instance, order, **rate_params)``.
ORDER_FORMAT = "coflowlib-order"


def coflowlib_dir(path: str | Path | None = None) -> Path:
    """The CoflowLib folder (``instances/coflowlib`` by default)."""
    if path is not None:
        d = Path(path)
    else:
        from .library import library_dir
        d = library_dir() / "coflowlib"
    if not (d / MANIFEST).is_file():
        raise InvalidParameterError(f"{d}: not a CoflowLib folder (no {MANIFEST})")
    return d


def _read_json(path) -> Any:
    """A JSON file's document; InvalidParameterError naming the file and what is wrong (not
    UTF-8, not JSON, nested too deep, an integer beyond the digits limit)."""
    from .formats._files import json_value_error_rule
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except json.JSONDecodeError as e:
        raise InvalidParameterError(f"{path}:{e.lineno}: not valid JSON: {e.msg} "
                                    f"(column {e.colno})") from None
    except ValueError as e:          # UnicodeDecodeError, an integer of > 4,300 digits
        raise InvalidParameterError(f"{path}: {json_value_error_rule(e)}") from None
    except RecursionError:
        raise InvalidParameterError(f"{path}: arrays or objects nested too deeply") from None


def _peek_json(path) -> Any:
    """A file's JSON document, or None when it is not one (the readers that follow name what
    is wrong with it): which kind of document a submitted file is."""
    try:
        return _read_json(path)
    except (OSError, InvalidParameterError):
        return None


def _rule_of_entry(e: Any) -> str | None:
    """What is wrong with a manifest entry (the fields status, check and submit read), or
    None."""
    if not isinstance(e, dict):
        return "must be an object"
    for key in ("family", "instance", "certificate", "status"):
        if not isinstance(e.get(key), str) or not e[key]:
            return f"{key}: must be a non-empty string"
    gap = e.get("gap")
    if isinstance(gap, bool) or not isinstance(gap, (int, float)) or not math.isfinite(gap):
        return "gap: must be a finite number"
    for key in ("best", "bound"):
        if not isinstance(e.get(key), dict):
            return f"{key}: must be an object"
        v = e[key].get("value")
        try:
            if not isinstance(v, str):
                raise ValueError
            Fraction(v)
        except (ValueError, ZeroDivisionError):
            return f"{key}.value: must be a rational written as a string ('p' or 'p/q')"
    if not isinstance(e["best"].get("algorithm"), str):
        return "best.algorithm: must be a string"
    if not any(isinstance(e["best"].get(k), str) and e["best"][k]
               for k in ("schedule", "slotted", "order")):
        return "best: names no file (schedule, slotted or order)"
    if e["best"].get("verified", "exact") not in ("exact", "float"):
        return "best.verified: must be 'exact' or 'float'"
    if e.get("model", "fluid") not in ("fluid", "integral"):
        return "model: must be 'fluid' or 'integral'"
    base = e.get("baselines") or {}
    if not isinstance(base, dict) or not all(
            isinstance(b, dict) and (b.get("ratio") is None or (
                isinstance(b["ratio"], (int, float)) and not isinstance(b["ratio"], bool)))
            for b in base.values()):
        return "baselines: must be an object of objects with a numeric ratio"
    return None


def load_manifest(d: str | Path | None = None) -> dict[str, Any]:
    d = coflowlib_dir(d)
    path = d / MANIFEST
    m = _read_json(path)
    if not isinstance(m, dict) or m.get("format") != MANIFEST_FORMAT:
        raise InvalidParameterError(f"{path}: not a {MANIFEST_FORMAT} document")
    if not isinstance(m.get("release"), str):
        raise InvalidParameterError(f"{path}, release: must be a string")
    if not isinstance(m.get("instances"), dict):
        raise InvalidParameterError(f"{path}, instances: must be an object (id -> entry)")
    for iid, e in m["instances"].items():
        rule = _rule_of_entry(e)
        if rule:
            raise InvalidParameterError(f"{path}, instances[{iid!r}]: {rule}")
    m["_dir"] = str(d)
    return m


def save_manifest(m: dict[str, Any], d: str | Path) -> None:
    doc = {k: v for k, v in m.items() if not k.startswith("_")}
    tmp = Path(d) / (MANIFEST + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=1, sort_keys=True)
        fh.write("\n")
    tmp.replace(Path(d) / MANIFEST)


def instance_path(m: dict[str, Any], iid: str) -> Path:
    if iid not in m["instances"]:
        example = f"e.g. {min(m['instances'])!r}; " if m["instances"] else "the library is empty; "
        raise InvalidParameterError(f"unknown CoflowLib instance {iid!r} ({example}"
                                    "'coflowopt lib status --json' lists them)")
    return Path(m["_dir"]) / m["instances"][iid]["instance"]


def status_rows(m: dict[str, Any]) -> list[dict[str, Any]]:
    """The leaderboard: per family, how many instances, how many solved (proven optimal), the
    mean and largest gap (best / certified bound; 1 when proven), the algorithm that holds
    most best schedules, and the recorded heuristics' mean ratio to the best known value (the
    best heuristic: the smallest mean)."""
    fams: dict[str, list] = {}
    for e in m["instances"].values():
        fams.setdefault(e["family"], []).append(e)
    rows = []
    for fam in sorted(fams):
        es = fams[fam]
        gaps = [float(e["gap"]) for e in es]
        algs: dict[str, int] = {}
        for e in es:
            algs[e["best"]["algorithm"]] = algs.get(e["best"]["algorithm"], 0) + 1
        best_alg = max(sorted(algs), key=lambda a: algs[a])
        # heuristics: mean ratio to the best known value over the family
        ratios: dict[str, list[float]] = {}
        for e in es:
            for name, b in (e.get("baselines") or {}).items():
                if b.get("ratio") is not None:
                    ratios.setdefault(name, []).append(b["ratio"])
        means = {n: sum(v) / len(v) for n, v in ratios.items() if len(v) == len(es)}
        heur = min(sorted(means), key=lambda n: means[n]) if means else None
        rows.append({"family": fam, "instances": len(es),
                     "solved": sum(1 for e in es if e["status"] == "optimal"),
                     "mean_gap": sum(gaps) / len(gaps), "max_gap": max(gaps),
                     "model": es[0].get("model", "fluid"), "best_algorithm": best_alg, "best_algorithm_count": algs[best_alg],
                     "best_heuristic": heur,
                     "best_heuristic_mean_ratio": None if heur is None else means[heur],
                     "heuristic_mean_ratios": dict(sorted(means.items()))})
    return rows


def load_checker():
    """``tools/check_certificate.py`` as a module (it imports nothing from coflowopt)."""
    from .library import library_dir
    path = library_dir().parent / "tools" / "check_certificate.py"
    if not path.is_file():
        raise InvalidParameterError(f"{path}: the standalone checker is missing (CoflowLib "
                                    "checks need a source checkout)")
    spec = importlib.util.spec_from_file_location("_coflowopt_check_certificate", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def order_document(instance, order, rates: str, algorithm: str | None = None,
                   rate_params: dict[str, Any] | None = None) -> dict[str, Any]:
    """The order document of the schedule ``rates(instance, order, **rate_params)``
    (``order``: coflow indices, first served first).

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2.0)]), Coflow("B", [(0, 0, 1.0)])])
    >>> doc = order_document(inst, [1, 0], "greedy")
    >>> doc["order"], best_schedule(inst, doc).num_pieces
    (['B', 'A'], 2)
    """
    doc = {"format": ORDER_FORMAT, "version": 1,
           "order": [str(instance.coflow_ids[int(k)]) for k in order], "rates": rates}
    if rate_params:
        doc["rate_params"] = dict(rate_params)
    if algorithm:
        doc["algorithm"] = algorithm
    return doc


def _order_of(instance, doc: dict[str, Any], where: str):
    """The coflow indices and the rate allocation of an order document (bad input raises
    InvalidParameterError naming ``where`` and the rule)."""
    from .registry import get_algorithm
    if doc.get("version") != 1 or not isinstance(doc.get("order"), list) \
            or not isinstance(doc.get("rates"), str):
        raise InvalidParameterError(f"{where}: a {ORDER_FORMAT} document needs version 1, "
                                    "'order' (a list of coflow ids) and 'rates' (a name)")
    index = {str(c): k for k, c in enumerate(instance.coflow_ids)}
    order = [index.get(str(c)) for c in doc["order"]]
    if None in order or len(set(order)) != len(order) or len(order) != instance.num_coflows:
        raise InvalidParameterError(f"{where}: 'order' must list every coflow id of the "
                                    f"instance once ({instance.num_coflows} coflows)")
    import functools
    import coflowopt.rates  # noqa: F401 (registers the rate allocations)
    try:
        func = get_algorithm("rates", doc["rates"]).func
    except Exception:  # noqa: BLE001 - an unknown name is bad input
        raise InvalidParameterError(f"{where}: 'rates' {doc['rates']!r} is not a registered "
                                    "rate allocation (coflowopt algorithms --kind rates)") from None
    from .introspect import parameter_problem
    params = doc.get("rate_params", {})
    if not isinstance(params, dict):
        raise InvalidParameterError(f"{where}: 'rate_params' must be an object of parameters "
                                    f"of {doc['rates']!r}, got {params!r}")
    bad = parameter_problem(func, params, skip=2)   # the command line's rules
    if bad is not None:
        raise InvalidParameterError(f"{where}: 'rate_params.{bad.key}': {doc['rates']} "
                                    f"{bad.rule}")
    return order, functools.partial(func, **params)


def best_schedule(instance, doc_or_path):
    """The schedule an order document describes (a dict, or the path of the file), or the
    schedule of a coflowopt-schedule JSON file (read exactly)."""
    from .formats.schedule_io import read_schedule_json
    if isinstance(doc_or_path, dict):
        doc, where = doc_or_path, "order document"
    else:
        where = str(doc_or_path)
        doc = _peek_json(doc_or_path)
        if not (isinstance(doc, dict) and doc.get("format") == ORDER_FORMAT):
            return read_schedule_json(doc_or_path, instance, exact=True)
    order, func = _order_of(instance, doc, where)
    import numpy as np
    return func(instance, np.asarray(order, dtype=np.int64))


def _is_order_document(path) -> bool:
    doc = _peek_json(path)
    return isinstance(doc, dict) and doc.get("format") == ORDER_FORMAT


def best_file(e: dict[str, Any]) -> str:
    """The stored best of a manifest entry: its schedule file, slotted schedule or order
    document."""
    return e["best"].get("schedule") or e["best"].get("slotted") or e["best"]["order"]


def is_integral(e: dict[str, Any]) -> bool:
    """Whether a manifest entry is of the integral matching model (slotted schedules)."""
    return e.get("model", "fluid") == "integral"


def _verify_best(inst, path: Path, mode: str = "exact", integral: bool = False):
    """The verifier's report on a stored or submitted best: the fluid verifier, or for the
    integral model the slotted verifier (exact integers) on a coflowopt-slotted-schedule."""
    if integral:
        from .formats.slotted_schedule import read_slotted_schedule
        from .slotted import verify_slotted
        return verify_slotted(inst, read_slotted_schedule(path, inst))
    from .verify import verify_schedule
    return verify_schedule(inst, best_schedule(inst, path), mode=mode)


def check_entry(m: dict[str, Any], iid: str, checker) -> str | None:
    """Re-verify one instance's best schedule and certificate; the reason it fails, or
    None."""
    from .formats.instance_json import read_instance_json
    e = m["instances"][iid]
    d = Path(m["_dir"])
    try:
        inst = read_instance_json(d / e["instance"])
        integral = is_integral(e)
        mode = "exact" if integral else e["best"].get("verified", "exact")
        rep = _verify_best(inst, d / best_file(e), mode, integral)
    except (OSError, ValueError, KeyError, TypeError, UnicodeDecodeError) as ex:
        # a missing or malformed file or manifest entry (the readers' errors are ValueErrors)
        return f"cannot read: {ex}"
    except Exception as ex:  # noqa: BLE001 - the entry fails; the rest are still checked
        # not the library's data but the code that checks it (an AttributeError while the
        # verifier was being edited was reported as "cannot read" before)
        return f"internal error while checking (please report it): {type(ex).__name__}: {ex}"
    if not rep.ok:
        return (f"best {'slotted ' if integral else ''}schedule rejected by the verifier "
                f"({'integral model' if integral else mode}): {rep.violations[:1]}")
    best = Fraction(e["best"]["value"])
    value = Fraction(rep.weighted_completion_time)
    # float mode: the verifier's float64 sum (recorded as its exact value at the build) may
    # differ in the last bits on another platform
    if value != best and (mode == "exact" or abs(value - best) > best * Fraction(1, 10**9)):
        return f"best schedule is worth {rep.weighted_completion_time}, manifest says {best}"
    cpath = d / e["certificate"]
    try:
        idoc = _read_json(d / e["instance"])
        cdoc = _read_json(cpath)
        checker.check(idoc, cdoc)
    except checker.Rejected as ex:
        return f"certificate REJECTED: {ex}"
    except (checker.Unreadable, OSError, InvalidParameterError) as ex:
        return f"certificate unreadable: {ex}"
    except checker.MALFORMED as ex:   # as the checker's own exit 2: a field no rule names
        return f"certificate unreadable: {cpath}: malformed ({type(ex).__name__}: {ex})"
    claim = cdoc["claim"]
    cval = Fraction(claim["value"])
    model = "integral" if integral else "fluid"
    if claim.get("model", "fluid") != model:
        return f"the certificate is of the {claim.get('model', 'fluid')} model, the entry " \
               f"of the {model} model"
    if integral and Fraction(claim["slot"]) != Fraction(rep.slot):
        return f"the certificate's slot {claim['slot']} is not the schedule's {rep.slot}"
    if e["status"] == "optimal":
        # an optimum certificate, or a lower bound met by the best schedule verified exactly
        if cval != best or not (claim["kind"] == "optimum" or
                                (claim["kind"] == "lower_bound" and mode == "exact")):
            return f"status optimal but the certificate claims {claim['kind']} {cval}"
    elif claim["kind"] != "lower_bound" or cval != Fraction(e["bound"]["value"]):
        return f"the certificate claims {claim['kind']} {cval}, manifest bound " \
               f"{e['bound']['value']}"
    if best < Fraction(e["bound"]["value"]):
        return "best schedule below the certified bound"
    return None


def _check_submission_kind(path, iid: str, integral: bool) -> None:
    """A slotted schedule for an instance of the integral model, a fluid schedule or order
    document for the others (InvalidParameterError naming the file and the rule)."""
    from .slotted import SLOTTED_FORMAT
    doc = _peek_json(path)        # None: the readers name what is wrong with the file
    fmt = doc.get("format") if isinstance(doc, dict) else None
    if integral and fmt is not None and fmt != SLOTTED_FORMAT:
        raise InvalidParameterError(f"{path}: a {fmt} document, but {iid} is of the integral "
                                    f"model: submit a {SLOTTED_FORMAT} (coflowopt slotted "
                                    "--out)")
    if not integral and fmt == SLOTTED_FORMAT:
        raise InvalidParameterError(f"{path}: a slotted schedule, but {iid} is of the fluid "
                                    "model: submit a coflowopt-schedule or a coflowlib-order "
                                    "document")


def check_library(m: dict[str, Any], families: list[str] | None = None
                  ) -> list[tuple[str, str | None]]:
    """``[(instance id, failure reason or None)]`` over the library (or some families)."""
    checker = load_checker()
    out = []
    for iid in sorted(m["instances"]):
        if families and m["instances"][iid]["family"] not in families:
            continue
        out.append((iid, check_entry(m, iid, checker)))
    return out


def submit(m: dict[str, Any], iid: str, schedule_path: str | Path, algorithm: str
           ) -> dict[str, Any]:
    """Verify a schedule of a CoflowLib instance (exactly; in float mode where the entry's own
    best is float-verified and exact arithmetic refuses it) and record it when it improves the
    best known value (the file is copied to ``<id>.best.schedule.json``, or, for an order
    document, ``<id>.best.order.json``; the manifest updated).

    Raises
    ------
    InvalidParameterError
        Unknown instance or unreadable schedule (bad input).
    Refused
        The schedule is rejected by the verifier, or does not improve the best known value.
    """
    from .exceptions import CoflowOptError
    from .formats.instance_json import read_instance_json
    ipath = instance_path(m, iid)
    e = m["instances"][iid]
    inst = read_instance_json(ipath)
    integral = is_integral(e)
    _check_submission_kind(schedule_path, iid, integral)
    # the verifier's mode: exact; for an entry whose best is float-verified (the large FB
    # samples, whose float schedules exact arithmetic refuses by rounding), float when exact
    # refuses -- the library's own best was refused here before, so no better one of those
    # entries could ever be recorded
    entry_mode = "exact" if integral else e["best"].get("verified", "exact")
    mode = "exact"
    try:
        if entry_mode == "float":
            # the schedule read (or an order document rebuilt) once for both verifications
            from .verify import verify_schedule
            sched = best_schedule(inst, Path(schedule_path))
            rep = verify_schedule(inst, sched, mode="exact")
            if not rep.ok:
                mode = "float"
                rep = verify_schedule(inst, sched, mode="float")
        else:
            rep = _verify_best(inst, Path(schedule_path), integral=integral)
    except CoflowOptError as ex:   # named once: the readers' messages start with the path
        msg = str(ex)
        raise InvalidParameterError(msg if msg.startswith(str(schedule_path))
                                    else f"{schedule_path}: {msg}") from None
    if integral and rep.slot != float(Fraction(e.get("slot", 1))):
        raise InvalidParameterError(f"{schedule_path}: slot {rep.slot:g}, but {iid} is of the "
                                    f"integral model with slot {e.get('slot', 1)}")
    if not rep.ok:
        v = rep.violations[0] if getattr(rep, "violations", None) else "infeasible"
        raise Refused(f"rejected: the verifier ({'integral model' if integral else mode + ' mode'})"
                      f" refuses the schedule: {v}")
    value = Fraction(rep.weighted_completion_time)
    best = Fraction(e["best"]["value"])
    if value < Fraction(e["bound"]["value"]):
        raise Refused(f"rejected: value {value} is below the certified bound "
                         f"{e['bound']['value']} (verifier or certificate bug: please report)")
    # in float mode the value's last bits are the platform's (lib check allows 1e-9 relative):
    # an improvement must be larger than that
    margin = best * Fraction(1, 10**9) if mode == "float" else 0
    if value >= best - margin:
        raise Refused(f"not recorded: value {value} ({float(value):.12g}, {mode} mode) does not "
                      f"improve the best known {best} ({float(best):.12g}, "
                      f"{e['best']['algorithm']})"
                      + (" by more than 1e-9 relative" if margin else ""))
    d = Path(m["_dir"])
    stem = e["certificate"].removesuffix(".certificate")
    key = "slotted" if integral else \
        "order" if _is_order_document(schedule_path) else "schedule"
    rel = f"{stem}.best.{key}.json"
    shutil.copyfile(schedule_path, d / rel)
    old = best_file(e)
    if old != rel and (d / old).is_file():
        (d / old).unlink()
    bound = Fraction(e["bound"]["value"])
    e["best"] = {"value": str(value), "value_float": float(value), "algorithm": algorithm,
                 key: rel, "submitted": True}
    if mode == "float":
        e["best"]["verified"] = "float"
    e["gap"] = float(value / bound) if bound > 0 else None
    if value == bound:
        e["status_note"] = ("the submitted schedule meets the certified bound: optimal "
                            "(regenerate the certificate to mark it so)")
    save_manifest(m, d)
    return {"instance": iid, "recorded": True, "value": str(value), "value_float": float(value),
            "previous": str(best), "gap": e["gap"]}
