"""Turning a dual certificate into a :class:`~coflowopt.results.Result`.

Every registered bound ends here: the certificate is checked exactly by
:func:`coflowopt.formulations.certificates.check_certificate` (LP rebuilt from the instance,
dual repaired into exact feasibility, bound recomputed in rational arithmetic) and the
*certified* figure becomes the value.  A bound whose certificate cannot be verified is never
reported as a number: the result then has kind ``None``, certificate status ``"uncertified"``
and the solver's figure only in ``extra["uncertified_value"]``.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import Any

import numpy as np

from ..exceptions import InvalidParameterError
from ..instance import Instance
from ..results import OBJECTIVES, Result
from ..formulations.certificates import (LPCertificate, check_certificate, fraction_str,
                                         unit_factor)

__all__ = ["certified_result", "uncertified_result", "weighted_release_sum", "port_name",
           "check_objective", "check_time_limit"]


def check_objective(objective: str) -> None:
    if objective not in OBJECTIVES:
        raise InvalidParameterError(f"objective must be one of {OBJECTIVES}, got {objective!r}")


def check_time_limit(time_limit, name: str = "time_limit") -> None:
    """Refuse a time limit that is not a number of seconds >= 0 (negative, NaN, a string...).

    0 means "stop at the first check" (the answer found by then, status ``time_limit``), as on
    the command line; ``inf`` means no limit.

    Raises
    ------
    InvalidParameterError
        Mapped to exit 2 by the command line.
    """
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) or \
            not time_limit >= 0:
        raise InvalidParameterError(f"{name} must be a number of seconds >= 0, got "
                                    f"{time_limit!r}")


def weighted_release_sum(instance: Instance) -> Fraction:
    """``sum_k w_k r_k`` exactly (the constant between the two objectives)."""
    return sum((Fraction(float(w)) * Fraction(float(r))
                for w, r in zip(instance.weight.tolist(), instance.release.tolist())),
               Fraction(0))


def port_name(instance: Instance, q: int) -> str:
    """``"ingress i"`` or ``"egress j"`` for a unified port index; ``"resource ID"`` on an
    instance over resources."""
    q = int(q)
    if not instance.is_big_switch:
        return f"resource {instance.resource_names[q]}"
    return f"ingress {q}" if q < instance.num_ingress else f"egress {q - instance.num_ingress}"


def certified_result(instance: Instance, certificate: LPCertificate, *, algorithm: str,
                     objective: str, status: str, params: dict | None = None,
                     solver: dict | None = None, timings: dict | None = None,
                     extra: dict | None = None, message: str = "") -> Result:
    """Check ``certificate`` exactly and wrap the certified figure as a lower-bound Result.

    Parameters
    ----------
    instance : Instance
    certificate : LPCertificate
    algorithm : str
        The registered bound's name.
    objective : {"weighted_completion_time", "weighted_cct"}
        The weighted CCT bound is the certified figure minus ``sum_k w_k r_k`` (exact).
    status : str
        The solver's mapped status (``"optimal"``, ``"time_limit"``...).

    Returns
    -------
    Result
        ``kind="lower_bound"``, ``certificate_status="certified"`` and ``value`` a
        :class:`~fractions.Fraction` when the certificate checks; otherwise see
        :func:`uncertified_result`.
    """
    check_objective(objective)
    timings = dict(timings or {})
    t0 = time.perf_counter()
    chk = check_certificate(instance, certificate, repair=True)
    timings["certify"] = time.perf_counter() - t0
    extra = dict(extra or {})
    extra["certificate_check"] = chk.to_dict()
    if certificate.claimed_value is not None:
        extra["solver_objective"] = float(certificate.claimed_value)
    if not chk.ok:
        return uncertified_result(algorithm=algorithm, objective=objective, status=status,
                                  params=params, solver=solver, timings=timings, extra=extra,
                                  reason=chk.reason, claimed=certificate.claimed_value,
                                  certificate=certificate)
    value = chk.value
    backend, source = certificate_origin(certificate)
    unit = certificate.params.get("unit")
    if unit and any(unit.values()):
        # the LP (and an exported copy of it) is written in these units: its objective times
        # this factor is the bound in the instance's units (proofs/lp_certificates.md, Units)
        extra["lp_unit"] = dict(unit)
        extra["lp_objective_factor"] = float(unit_factor(unit))
    msg = message or (f"certified lower bound on the optimal {objective} "
                      f"(dual of {certificate.formulation}, checked in exact arithmetic"
                      f"{', after repair' if chk.repaired else ''})")
    claimed = certificate.claimed_value
    if claimed is not None and math.isfinite(float(claimed)) and float(claimed) > 0:
        # a dual that needed more than rounding-level repair proves less than the solver's
        # objective: say plainly by how much (a MIP backend's zero duals fall back to the
        # column bounds, e.g. lp-ov 26 instead of 32 on sincronia-t-s4)
        shortfall = (Fraction(float(claimed)) - value) / Fraction(float(claimed))
        extra["certificate_shortfall"] = float(shortfall)
        if shortfall > CERTIFICATE_SHORTFALL_RTOL:
            msg += (f"; WEAKER than the LP: the solver reported {float(claimed):.12g}, its dual "
                    f"certifies only {float(value):.12g} ({float(shortfall):.3g} less, "
                    "relative)")
    if objective == "weighted_cct":
        value = value - weighted_release_sum(instance)
    extra["value_exact"] = fraction_str(value)
    return Result(value=value, kind="lower_bound", objective=objective, status=status,
                  algorithm=algorithm, message=msg, params=dict(params or {}),
                  certificate=certificate, certificate_status="certified",
                  backend=backend, certificate_source=source,
                  solver=dict(solver or {}), timings=timings, extra=extra)


#: A certified value more than this fraction below the solver's objective is reported as a
#: fallback to a weaker bound (duals from an interior point method lose about 1e-9).
CERTIFICATE_SHORTFALL_RTOL = 1e-6

#: Sources of combinatorial certificates (multipliers built by the algorithm, no LP solver).
_CONSTRUCTED = ("isolation", "smith", "bssi", "lagrangian")


def certificate_origin(certificate: LPCertificate) -> tuple[str | None, str]:
    """``(backend, source)`` of a certificate: the LP backend whose duals it holds and
    ``"solver duals"``, or ``(None, "constructed")`` for a combinatorial bound."""
    head = certificate.source.split(":", 1)[0]
    if head in _CONSTRUCTED:
        return None, "constructed"
    return head or None, "solver duals"


def uncertified_result(*, algorithm: str, objective: str, status: str, params: dict | None,
                       solver: dict | None, timings: dict | None, extra: dict | None,
                       reason: str, claimed: Any = None, certificate=None) -> Result:
    """A result that carries no number: the bound could not be certified (or not computed)."""
    extra = dict(extra or {})
    if claimed is not None:
        extra["uncertified_value"] = float(claimed)
    backend, source = (certificate_origin(certificate) if certificate is not None else
                       ((solver or {}).get("name"), None))
    return Result(value=None, kind=None, objective=objective, status=status,
                  algorithm=algorithm, backend=backend, certificate_source=source,
                  message=f"no certified bound: {reason}" +
                          (f" (the solver reported {float(claimed)!r}, NOT a certified bound)"
                           if claimed is not None else ""),
                  params=dict(params or {}), certificate=certificate,
                  certificate_status="uncertified", solver=dict(solver or {}),
                  timings=dict(timings or {}), extra=extra)


def as_float_array(x) -> np.ndarray:
    return np.asarray([float(v) for v in x], dtype=float)
