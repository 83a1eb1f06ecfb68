"""Instance generators: random workloads, structured patterns and known constructions.

Every generator is a plain function that returns an :class:`~coflowopt.instance.Instance`.
Randomised ones take ``seed`` (an int, or ``None`` for fresh entropy), draw everything from one
``np.random.default_rng(seed)`` stream, are vectorised with numpy, and record what produced the
instance in ``instance.meta["generator"]``::

    {"name": "uniform_random", "params": {...every argument...}, "seed": 7}

With ``seed=None`` the seed actually used is drawn from the OS and recorded, so every instance
can be regenerated from its meta.  Bad arguments raise
:class:`~coflowopt.exceptions.InvalidParameterError` naming the parameter and the rule.

Ranges are ``(lo, hi)`` pairs.  For ``weights``, ``releases`` and ``capacities`` a pair of two
Python ints draws integers uniformly from ``lo..hi`` inclusive and any other pair draws reals
uniformly from ``[lo, hi)``; flow sizes follow ``integer_sizes`` instead.  Generated coflow ids
are ``"0" .. "K-1"``; ports are 0-based; all port capacities are 1 unless stated.

References
----------
Chowdhury's dissertation: Table 3.1 (coflow patterns), Sec. 5.7.1 (Varys deadlines), Fig. 4.6
(the MADD-vs-fairness family); Sincronia technical report, Fig. 4 (Varys is unbounded) and the
``sincronia-coflow/workload-generator`` script ``trace_producer.py`` (FB-UP mode).
"""

from __future__ import annotations

import math
import os
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from . import limits
from .exceptions import InvalidParameterError
from .instance import Instance
from ._index_ranges import concat_ranges, run_offsets

__all__ = ["uniform_random", "one_to_one", "many_to_one", "one_to_many", "all_to_all",
           "shuffle_mix", "facebook_like", "with_deadlines", "sincronia_fig4",
           "madd_fair_family", "fat_tree_coflows", "leaf_spine_coflows", "creek",
           "CREEK_BUCKETS", "CREEK_BUCKET_PROBABILITIES", "PATTERNS", "TOPOLOGY_PATTERNS",
           "GENERATORS"]

#: The structured patterns of Table 3.1 of the dissertation that :func:`shuffle_mix` mixes.
PATTERNS = ("one_to_one", "many_to_one", "one_to_many", "all_to_all")

# Rows of a (rows x ports) random-key matrix are processed in chunks of at most this many
# entries, so that sampling distinct ports never needs more than ~32 MB at once.
_DENSE_CHUNK = 1 << 22


# ------------------------------------------------------------------------------ validation
def _bad(func: str, name: str, rule: str, value: Any) -> InvalidParameterError:
    return InvalidParameterError(f"{func}: {name} must be {rule}, got {value!r}")


def _is_int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def _is_real(x) -> bool:
    return (isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)
            and math.isfinite(float(x)))


#: the largest value of a count parameter (:mod:`coflowopt.limits`; the flow limit for the
#: others): a count beyond what an instance may hold is refused by name before numpy is asked
#: for an array that size
_COUNT_LIMITS = {"num_ports": ("MAX_PORTS", limits.MAX_PORTS),
                 "num_egress": ("MAX_PORTS", limits.MAX_PORTS),
                 "num_coflows": ("MAX_COFLOWS", limits.MAX_COFLOWS)}


def _count(func: str, name: str, value, minimum: int = 1) -> int:
    const, top = _COUNT_LIMITS.get(name, ("MAX_FLOWS", limits.MAX_FLOWS))
    if not _is_int(value) or not minimum <= value <= top:
        raise _bad(func, name, f"an integer >= {minimum} and <= {top} ({const}, "
                               f"coflowopt.limits)", value)
    return int(value)


def _pair(func: str, name: str, value, *, lo_min: float, strict: bool = False,
          integer: bool = False, hi_max: float | None = None) -> tuple:
    """Validate a ``(lo, hi)`` range: ``lo >= lo_min`` (``>`` if strict), ``lo <= hi``; integers
    at most 2^53 (drawn as int64 and stored as floats, which hold every integer up to it)."""
    kind = "integers" if integer else "finite numbers"
    if integer and hi_max is None:
        hi_max = 2 ** 53
    op = ">" if strict else ">="
    rule = f"a pair (lo, hi) of {kind} with {lo_min:g} {'<' if strict else '<='} lo <= hi"
    if hi_max is not None:
        rule += f" <= {hi_max:g}"
    if not (isinstance(value, (tuple, list)) and len(value) == 2):
        raise _bad(func, name, rule, value)
    lo, hi = value
    ok = all((_is_int(v) if integer else _is_real(v)) for v in (lo, hi))
    if ok:
        ok = (lo > lo_min if op == ">" else lo >= lo_min) and lo <= hi
        ok = ok and (hi_max is None or hi <= hi_max)
    if ok and _is_int(lo) and _is_int(hi) and hi > 2 ** 53:
        ok, rule = False, rule + " (integers are drawn as integers: at most 2^53)"
    if not ok:
        raise _bad(func, name, rule, value)
    return (lo, hi)


def _seed(func: str, seed) -> tuple[np.random.Generator, int]:
    """The generator for ``seed`` and the int seed to record (fresh entropy for ``None``)."""
    if seed is None:
        seed = int(np.random.SeedSequence().entropy)
    if not _is_int(seed) or seed < 0:
        raise _bad(func, "seed", "a non-negative integer or None", seed)
    return np.random.default_rng(int(seed)), int(seed)


def _jsonable(x):
    if isinstance(x, (tuple, list)):
        return [_jsonable(v) for v in x]
    if isinstance(x, Mapping):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    if isinstance(x, Path):
        return str(x)
    return x


def _meta(name: str, params: Mapping[str, Any], seed: int | None, **extra) -> dict:
    gen = {"name": name, "params": _jsonable(dict(params))}
    if seed is not None:
        gen["seed"] = seed
    gen.update(_jsonable(extra))
    return {"generator": gen}


# ------------------------------------------------------------------------------ drawing
def _draw_range(rng: np.random.Generator, lo, hi, n: int, integer: bool) -> np.ndarray:
    if integer:
        return rng.integers(int(lo), int(hi) + 1, size=n).astype(float)
    return rng.uniform(float(lo), float(hi), size=n)


def _draw_sizes(rng, size, n: int, integer_sizes: bool) -> np.ndarray:
    return _draw_range(rng, size[0], size[1], n, integer_sizes)


def _distinct_ports(rng: np.random.Generator, counts, m: int, *, sort: bool = False
                    ) -> np.ndarray:
    """For every row k, ``counts[k]`` distinct ports of ``0..m-1``, concatenated row by row.

    Each row is a uniformly random subset in uniformly random order (sorted if ``sort``).
    Rows that need more than half of the ports take a prefix of a random permutation (random
    keys, argsorted); the others draw with replacement and redraw collisions, which is
    cheap when rows are small compared with ``m`` (the usual case with many ports).  The
    redraw keeps the result uniform: the process commutes with relabelling the ports.
    """
    counts = np.asarray(counts, dtype=np.int64)
    ptr = np.concatenate([[0], np.cumsum(counts)])
    out = np.empty(int(ptr[-1]), dtype=np.int64)
    dense = np.flatnonzero(2 * counts > m)
    step = max(1, _DENSE_CHUNK // max(m, 1))
    for i in range(0, dense.size, step):
        rows = dense[i:i + step]
        perm = np.argsort(rng.random((rows.size, m)), axis=1)
        take = np.arange(m)[None, :] < counts[rows][:, None]
        out[concat_ranges(ptr[rows], counts[rows])] = perm[take]
    sparse = np.flatnonzero(2 * counts <= m)
    if sparse.size:
        pos = concat_ranges(ptr[sparse], counts[sparse])
        row = np.repeat(sparse, counts[sparse])
        val = rng.integers(0, m, size=pos.size)
        while True:
            order = np.lexsort((val, row))
            ro, vo = row[order], val[order]
            dup = order[1:][(ro[1:] == ro[:-1]) & (vo[1:] == vo[:-1])]
            if dup.size == 0:
                break
            val[dup] = rng.integers(0, m, size=dup.size)
        out[pos] = val
    if sort and out.size:
        row = np.repeat(np.arange(counts.size), counts)
        out = out[np.lexsort((out, row))]
    return out


def _capacities(func, rng, capacities, m_in: int, m_out: int):
    if capacities is None:
        return np.ones(m_in), np.ones(m_out)
    lo, hi = _pair(func, "capacities", capacities, lo_min=0, strict=True,
                   hi_max=limits.CAPACITY_MAX)
    both_int = _is_int(lo) and _is_int(hi)
    cap = _draw_range(rng, lo, hi, m_in + m_out, both_int)
    return cap[:m_in], cap[m_in:]


def _weights(func, rng, weights, K: int):
    if weights is None:
        return np.ones(K)
    if isinstance(weights, str):
        if weights != "uniform":
            raise _bad(func, "weights", 'None, "uniform" or a pair (lo, hi)', weights)
        # 1 - U[0, 1) lies in (0, 1]: no coflow gets weight 0 by accident.
        return 1.0 - rng.random(K)
    lo, hi = _pair(func, "weights", weights, lo_min=0, hi_max=limits.WEIGHT_MAX)
    return _draw_range(rng, lo, hi, K, _is_int(lo) and _is_int(hi))


def _releases(func, rng, releases, K: int):
    if releases is None:
        return np.zeros(K)
    if isinstance(releases, str):
        rule = 'None, a pair (lo, hi) or "poisson:<rate>" with a finite rate > 0'
        head, _, tail = releases.partition(":")
        try:
            rate = float(tail)
        except ValueError:
            raise _bad(func, "releases", rule, releases) from None
        if head != "poisson" or not (math.isfinite(rate) and rate > 0):
            raise _bad(func, "releases", rule, releases)
        # A Poisson process of coflow arrivals: exponential gaps with mean 1/rate.
        return np.cumsum(rng.exponential(1.0 / rate, size=K))
    lo, hi = _pair(func, "releases", releases, lo_min=0)
    return _draw_range(rng, lo, hi, K, _is_int(lo) and _is_int(hi))


def _build(name: str, params: dict, seed: int | None, *, m_in: int, m_out: int, counts,
           src, dst, size, ingress_capacity=None, egress_capacity=None, weight=None,
           release=None, units: Mapping[str, str] | None = None, **extra) -> Instance:
    counts = np.asarray(counts, dtype=np.int64)
    K = counts.size
    meta = _meta(name, params, seed, **extra)
    if units is not None:
        meta["units"] = dict(units)
    return Instance.from_arrays(
        ingress_capacity=np.ones(m_in) if ingress_capacity is None else ingress_capacity,
        egress_capacity=np.ones(m_out) if egress_capacity is None else egress_capacity,
        coflow_ids=[str(k) for k in range(K)],
        flow_coflow=np.repeat(np.arange(K, dtype=np.int64), counts),
        flow_src=src, flow_dst=dst, flow_size=size, weight=weight, release=release, meta=meta)


# ------------------------------------------------------------------------------ uniform random
def uniform_random(num_ports: int, num_coflows: int, *, flows_per_coflow=(1, 4), size=(1, 10),
                   integer_sizes: bool = True, weights=None, releases=None, capacities=None,
                   num_egress: int | None = None, seed: int | None = None) -> Instance:
    """Coflows of independent random flows: the workhorse of property tests.

    Every coflow draws its number of flows uniformly from ``flows_per_coflow``; every flow
    draws its ingress and egress port uniformly (independently, so a coflow may hold two flows
    on the same port pair) and its size uniformly from ``size``.

    Parameters
    ----------
    num_ports : int >= 1
        Number of ingress ports (and of egress ports unless ``num_egress`` is given).
    num_coflows : int >= 1
        Number of coflows ``K``.
    flows_per_coflow : (int, int), default (1, 4)
        Inclusive range of the number of flows per coflow, ``1 <= lo <= hi``.
    size : (number, number), default (1, 10)
        Flow size range, ``0 < lo <= hi``: integers ``lo..hi`` if ``integer_sizes`` (then both
        must be ints), else reals in ``[lo, hi)``.
    integer_sizes : bool, default True
        Draw whole flow sizes (their schedules can be verified exactly); False: real sizes.
    weights : None, "uniform" or (lo, hi)
        ``None``: all 1.  ``"uniform"``: U(0, 1] (as in the weighted-coflow literature).
        ``(lo, hi)`` with ``0 <= lo``: see the module note on int and real ranges.
    releases : None, (lo, hi) or "poisson:<rate>"
        ``None``: all 0.  ``(lo, hi)``: independent uniform release times.
        ``"poisson:2.5"``: a Poisson arrival process with 2.5 coflows per time unit (the first
        coflow arrives after one exponential gap; releases are non-decreasing).
    capacities : None or (lo, hi)
        ``None``: every port has capacity 1.  ``(lo, hi)`` with ``0 < lo``: heterogeneous
        capacities drawn independently for every ingress and egress port.
    num_egress : int, optional
        Number of egress ports (default ``num_ports``).
    seed : int or None
        Seed of the random generator, recorded in ``meta["generator"]``; ``None`` draws
        fresh entropy (and records the seed it drew).

    Returns
    -------
    Instance

    Raises
    ------
    InvalidParameterError
        Naming the parameter and the rule it breaks.

    Examples
    --------
    >>> inst = uniform_random(4, 6, seed=1)
    >>> inst.num_coflows, inst.num_ingress, inst.meta["generator"]["seed"]
    (6, 4, 1)
    >>> uniform_random(4, 6, seed=1) == inst
    True

    References
    ----------
    Not from a paper: the unstructured baseline used by the property tests.
    """
    f = "uniform_random"
    m_in = _count(f, "num_ports", num_ports)
    m_out = m_in if num_egress is None else _count(f, "num_egress", num_egress)
    K = _count(f, "num_coflows", num_coflows)
    lo_f, hi_f = _pair(f, "flows_per_coflow", flows_per_coflow, lo_min=1, integer=True)
    size = _pair(f, "size", size, lo_min=0, strict=True, integer=bool(integer_sizes))
    params = dict(num_ports=m_in, num_coflows=K, flows_per_coflow=flows_per_coflow, size=size,
                  integer_sizes=bool(integer_sizes), weights=weights, releases=releases,
                  capacities=capacities, num_egress=num_egress)
    rng, s = _seed(f, seed)
    w = _weights(f, rng, weights, K)
    r = _releases(f, rng, releases, K)
    cin, cout = _capacities(f, rng, capacities, m_in, m_out)
    counts = rng.integers(lo_f, hi_f + 1, size=K)
    F = int(counts.sum())
    src = rng.integers(0, m_in, size=F)
    dst = rng.integers(0, m_out, size=F)
    sz = _draw_sizes(rng, size, F, integer_sizes)
    return _build(f, params, s, m_in=m_in, m_out=m_out, counts=counts, src=src, dst=dst,
                  size=sz, ingress_capacity=cin, egress_capacity=cout, weight=w, release=r)


# ------------------------------------------------------------------------------ patterns
def _pattern_flows(kind: str, rng, K: int, m_in: int, m_out: int, width, mappers, reducers,
                   size, integer_sizes: bool):
    """Flows of ``K`` coflows of one pattern: (flows per coflow, src, dst, size), grouped by
    coflow in order."""
    if kind == "all_to_all":
        M = rng.integers(mappers[0], mappers[1] + 1, size=K)
        R = rng.integers(reducers[0], reducers[1] + 1, size=K)
        ins = _distinct_ports(rng, M, m_in, sort=True)
        outs = _distinct_ports(rng, R, m_out, sort=True)
        counts = M * R
        # Flow t of coflow k is mapper t // R_k to reducer t % R_k (mapper-major).
        k_of = np.repeat(np.arange(K), counts)
        t = run_offsets(counts)
        m_ptr = np.cumsum(M) - M
        r_ptr = np.cumsum(R) - R
        src = ins[m_ptr[k_of] + t // R[k_of]]
        dst = outs[r_ptr[k_of] + t % R[k_of]]
        return counts, src, dst, _draw_sizes(rng, size, src.size, integer_sizes)
    w = rng.integers(width[0], width[1] + 1, size=K)
    k_of = np.repeat(np.arange(K), w)
    if kind == "one_to_one":
        # A partial matching: w distinct ingress ports paired with w distinct egress ports.
        src = _distinct_ports(rng, w, m_in)
        dst = _distinct_ports(rng, w, m_out)
        sz = _draw_sizes(rng, size, src.size, integer_sizes)
    elif kind == "many_to_one":
        src = _distinct_ports(rng, w, m_in, sort=True)
        dst = rng.integers(0, m_out, size=K)[k_of]
        sz = _draw_sizes(rng, size, src.size, integer_sizes)
    elif kind == "one_to_many":
        src = rng.integers(0, m_in, size=K)[k_of]
        dst = _distinct_ports(rng, w, m_out, sort=True)
        # A broadcast sends the same data to every receiver: one size per coflow.
        sz = _draw_sizes(rng, size, K, integer_sizes)[k_of]
    else:  # pragma: no cover - guarded by the callers
        raise AssertionError(kind)
    return w, src, dst, sz


def _pattern_common(f: str, num_ports, num_coflows, num_egress, size, integer_sizes):
    m_in = _count(f, "num_ports", num_ports)
    m_out = m_in if num_egress is None else _count(f, "num_egress", num_egress)
    K = _count(f, "num_coflows", num_coflows)
    size = _pair(f, "size", size, lo_min=0, strict=True, integer=bool(integer_sizes))
    return m_in, m_out, K, size


def _width(f: str, name: str, width, limit: int, default_lo: int = 2):
    if width is None:
        width = (min(default_lo, limit), min(4, limit))
    return _pair(f, name, width, lo_min=1, integer=True, hi_max=limit)


def _single_pattern(kind: str, num_ports, num_coflows, width, size, integer_sizes, num_egress,
                    seed) -> Instance:
    m_in, m_out, K, size = _pattern_common(kind, num_ports, num_coflows, num_egress, size,
                                           integer_sizes)
    limit = {"one_to_one": min(m_in, m_out), "many_to_one": m_in,
             "one_to_many": m_out}[kind]
    width = _width(kind, "width", width, limit, default_lo=1 if kind == "one_to_one" else 2)
    params = dict(num_ports=m_in, num_coflows=K, width=width, size=size,
                  integer_sizes=bool(integer_sizes), num_egress=num_egress)
    rng, s = _seed(kind, seed)
    counts, src, dst, sz = _pattern_flows(kind, rng, K, m_in, m_out, width, None, None, size,
                                          integer_sizes)
    return _build(kind, params, s, m_in=m_in, m_out=m_out, counts=counts, src=src, dst=dst,
                  size=sz)


def one_to_one(num_ports: int, num_coflows: int, *, width=None, size=(1, 10),
               integer_sizes: bool = True, num_egress: int | None = None,
               seed: int | None = None) -> Instance:
    """Parallel read/write coflows: each is a random partial permutation (a matching).

    Coflow k has ``w_k`` flows (``w_k`` uniform in ``width``) from ``w_k`` distinct ingress
    ports to ``w_k`` distinct egress ports, paired at random; sizes are independent.

    Parameters
    ----------
    num_ports, num_coflows : int >= 1
        Ingress ports (and egress ports unless ``num_egress`` is given); number of coflows.
    width : (int, int), optional
        Flows per coflow, ``1 <= lo <= hi <= min(num_ports, num_egress)``; default
        ``(1, min(4, ports))``.
    size, integer_sizes, num_egress, seed
        As in :func:`uniform_random`.

    Returns
    -------
    Instance

    Raises
    ------
    InvalidParameterError

    Examples
    --------
    >>> inst = one_to_one(5, 3, width=(3, 3), seed=0)
    >>> [len(set(inst.flow_src[inst.coflow_flows(k)])) for k in range(3)]
    [3, 3, 3]

    References
    ----------
    Chowdhury's dissertation, Table 3.1: "parallel read/write on distributed storage -> many
    one-to-one".
    """
    return _single_pattern("one_to_one", num_ports, num_coflows, width, size, integer_sizes,
                           num_egress, seed)


def many_to_one(num_ports: int, num_coflows: int, *, width=None, size=(1, 10),
                integer_sizes: bool = True, num_egress: int | None = None,
                seed: int | None = None) -> Instance:
    """Aggregation (incast) coflows: ``w_k`` distinct senders, one receiver.

    Parameters
    ----------
    num_ports, num_coflows : int >= 1
        Ingress ports (and egress ports unless ``num_egress`` is given); number of coflows.
    width : (int, int), optional
        Senders per coflow, ``1 <= lo <= hi <= num_ports``; default ``(2, min(4, ports))``.
    size, integer_sizes, num_egress, seed
        As in :func:`uniform_random` (one size per flow).

    Returns
    -------
    Instance

    Raises
    ------
    InvalidParameterError

    Examples
    --------
    >>> inst = many_to_one(6, 4, seed=3)
    >>> bool((inst.num_receivers == 1).all())
    True

    References
    ----------
    Chowdhury's dissertation, Table 3.1 and Appendix B.1 (aggregation = one non-zero column).
    """
    return _single_pattern("many_to_one", num_ports, num_coflows, width, size, integer_sizes,
                           num_egress, seed)


def one_to_many(num_ports: int, num_coflows: int, *, width=None, size=(1, 10),
                integer_sizes: bool = True, num_egress: int | None = None,
                seed: int | None = None) -> Instance:
    """Broadcast coflows: one sender, ``w_k`` distinct receivers, the same size to each.

    Parameters
    ----------
    num_ports, num_coflows : int >= 1
        Ingress ports (and egress ports unless ``num_egress`` is given); number of coflows.
    width : (int, int), optional
        Receivers per coflow, ``1 <= lo <= hi <= num_egress``; default ``(2, min(4, ports))``.
    size, integer_sizes, num_egress, seed
        As in :func:`uniform_random`; one size is drawn per coflow (a broadcast sends the
        same data to every receiver).

    Returns
    -------
    Instance

    Raises
    ------
    InvalidParameterError

    Examples
    --------
    >>> inst = one_to_many(6, 4, seed=3)
    >>> bool((inst.num_senders == 1).all())
    True

    References
    ----------
    Chowdhury's dissertation, Table 3.1 and Appendix B.1 (broadcast = one non-zero row).
    """
    return _single_pattern("one_to_many", num_ports, num_coflows, width, size, integer_sizes,
                           num_egress, seed)


def all_to_all(num_ports: int, num_coflows: int, *, mappers=None, reducers=None, size=(1, 10),
               integer_sizes: bool = True, num_egress: int | None = None,
               seed: int | None = None) -> Instance:
    """Shuffle coflows: ``M_k`` distinct mappers, each sending to all ``R_k`` distinct reducers.

    Flows are ordered mapper-major (mapper ports ascending, then reducer ports ascending).

    Parameters
    ----------
    num_ports, num_coflows : int >= 1
        Ingress ports (and egress ports unless ``num_egress`` is given); number of coflows.
    mappers : (int, int), optional
        ``M_k`` range, ``1 <= lo <= hi <= num_ports``; default ``(2, min(4, ports))``.
    reducers : (int, int), optional
        ``R_k`` range, ``1 <= lo <= hi <= num_egress``; default ``(2, min(4, ports))``.
    size, integer_sizes, num_egress, seed
        As in :func:`uniform_random` (one size per flow).

    Returns
    -------
    Instance

    Raises
    ------
    InvalidParameterError

    Examples
    --------
    >>> inst = all_to_all(8, 2, mappers=(3, 3), reducers=(2, 2), seed=0)
    >>> inst.width.tolist(), inst.num_senders.tolist(), inst.num_receivers.tolist()
    ([6, 6], [3, 3], [2, 2])

    References
    ----------
    Chowdhury's dissertation, Table 3.1 (global barriers / MapReduce shuffle: all-to-all)
    and Sec. 3.1.4 (an M x R shuffle as one coflow).
    """
    f = "all_to_all"
    m_in, m_out, K, size = _pattern_common(f, num_ports, num_coflows, num_egress, size,
                                           integer_sizes)
    mappers = _width(f, "mappers", mappers, m_in)
    reducers = _width(f, "reducers", reducers, m_out)
    params = dict(num_ports=m_in, num_coflows=K, mappers=mappers, reducers=reducers, size=size,
                  integer_sizes=bool(integer_sizes), num_egress=num_egress)
    rng, s = _seed(f, seed)
    counts, src, dst, sz = _pattern_flows(f, rng, K, m_in, m_out, None, mappers, reducers,
                                          size, integer_sizes)
    return _build(f, params, s, m_in=m_in, m_out=m_out, counts=counts, src=src, dst=dst,
                  size=sz)


def shuffle_mix(num_ports: int, num_coflows: int, *, mix: Mapping[str, float] | None = None,
                width=None, size=(1, 10), integer_sizes: bool = True,
                num_egress: int | None = None, seed: int | None = None) -> Instance:
    """A mixture of the four patterns, one pattern drawn per coflow.

    Parameters
    ----------
    num_ports, num_coflows : int >= 1
        Ingress ports (and egress ports unless ``num_egress`` is given); number of coflows.
    mix : mapping from pattern name to weight, optional
        Relative frequencies over :data:`PATTERNS` (non-negative, not all zero; missing
        patterns get 0).  Default: all four equally likely.
    width : (int, int), optional
        Width of one-to-one, many-to-one and one-to-many coflows, and both the mapper and the
        reducer count of all-to-all coflows; ``1 <= lo <= hi <= min(num_ports, num_egress)``,
        default ``(2, min(4, ports))``.
    size, integer_sizes, num_egress, seed
        As in :func:`uniform_random`.

    Returns
    -------
    Instance
        ``meta["generator"]["patterns"]`` lists the pattern of every coflow.

    Raises
    ------
    InvalidParameterError

    Examples
    --------
    >>> inst = shuffle_mix(8, 20, seed=5)
    >>> sorted(set(inst.meta["generator"]["patterns"])) == sorted(PATTERNS)
    True

    References
    ----------
    Chowdhury's dissertation, Table 3.1 (communication patterns of data-parallel jobs).
    """
    f = "shuffle_mix"
    m_in, m_out, K, size = _pattern_common(f, num_ports, num_coflows, num_egress, size,
                                           integer_sizes)
    width = _width(f, "width", width, min(m_in, m_out))
    if mix is None:
        mix = {p: 1.0 for p in PATTERNS}
    rule = (f"a mapping from pattern names {list(PATTERNS)} to non-negative weights, "
            "not all zero")
    if not isinstance(mix, Mapping) or set(mix) - set(PATTERNS) or not all(
            _is_real(v) and v >= 0 for v in mix.values()) or not sum(mix.values()) > 0:
        raise _bad(f, "mix", rule, mix)
    p = np.array([float(mix.get(name, 0.0)) for name in PATTERNS])
    params = dict(num_ports=m_in, num_coflows=K, mix=dict(mix), width=width, size=size,
                  integer_sizes=bool(integer_sizes), num_egress=num_egress)
    rng, s = _seed(f, seed)
    kinds = rng.choice(len(PATTERNS), size=K, p=p / p.sum())
    counts = np.zeros(K, dtype=np.int64)
    parts = []
    for i, kind in enumerate(PATTERNS):
        ks = np.flatnonzero(kinds == i)
        if ks.size == 0:
            continue
        c, src, dst, sz = _pattern_flows(kind, rng, ks.size, m_in, m_out, width, width, width,
                                         size, integer_sizes)
        counts[ks] = c
        parts.append((np.repeat(ks, c), src, dst, sz))
    owner, src, dst, sz = (np.concatenate(a) for a in zip(*parts))
    # Stable sort by owning coflow keeps each coflow's flows in the order its pattern gave.
    order = np.argsort(owner, kind="stable")
    return _build(f, params, s, m_in=m_in, m_out=m_out, counts=counts, src=src[order],
                  dst=dst[order], size=sz[order], patterns=[PATTERNS[i] for i in kinds])


# ------------------------------------------------------------------------------ Facebook-like
def _trace_key(path: Path) -> tuple[str, int, int]:
    st = os.stat(path)
    return str(path.resolve()), st.st_mtime_ns, st.st_size


@lru_cache(maxsize=4)
def _trace_shapes(key: tuple[str, int, int]):
    """What FB-UP keeps of a coflow-benchmark trace, per coflow: its id, its mapper count
    and the per-flow MB of each reducer (``MB / #mappers``, in trace reducer order).

    Locations and arrival times are redrawn by FB-UP, so they are not returned.  The trace is
    read (and validated) by :func:`coflowopt.formats.coflow_benchmark.read_coflow_benchmark`;
    its flows are reducer-major with one flow per mapper, so reducer ``r`` of coflow ``k``
    starts at flow ``flow_ptr[k] + r * M_k``.  Cached by (path, mtime, size).
    """
    from .formats.coflow_benchmark import read_coflow_benchmark

    trace = read_coflow_benchmark(key[0])
    M, R = trace.num_senders, trace.num_receivers
    row_coflow = np.repeat(np.arange(trace.num_coflows), R)
    r = run_offsets(R)
    per_flow = trace.flow_size[trace.flow_ptr[:-1][row_coflow] + r * M[row_coflow]]
    rptr = np.concatenate([[0], np.cumsum(R)])
    return trace.coflow_ids, M, rptr, per_flow


def facebook_like(trace_path, num_coflows: int, *, load: float = 0.9, num_ports: int = 150,
                  bandwidth_mb_per_s: float = 256.0, time_unit_ms: float = 7.8125,
                  integer_division: bool = False, seed: int | None = None) -> Instance:
    """Sincronia's FB-UP workload: the Facebook trace upsampled to a target size and load.

    1. Sample ``num_coflows`` coflows uniformly, with replacement, from the trace.
    2. Give each the same numbers of senders and receivers as its trace coflow, redrawn
       uniformly without replacement among ``num_ports`` ingress (resp. egress) ports, each
       set sorted; the j-th reducer's MB goes to the j-th destination port.
    3. Split every reducer's MB equally over the senders: flow size = MB / #senders.
       Flows are ordered reducer-major, senders ascending (as the script writes them).
    4. Give every flow a Poisson arrival: exponential gaps in ms with mean ``1 / lambda``,
       ``lambda = load * bandwidth * num_ports / mean_flow_size`` flows per second, drawn
       over all flows in generation order.  A coflow's arrival is its last flow's arrival.
    5. ``release = arrival_ms / time_unit_ms``; every port's capacity is
       ``bandwidth_mb_per_s * time_unit_ms / 1000`` MB per time unit (2 with the defaults).

    Parameters
    ----------
    trace_path : str or Path
        A coflow-benchmark trace such as ``FB2010-1Hr-150-0.txt`` (526 coflows), with its
        header line; it is read and validated by
        :func:`~coflowopt.formats.coflow_benchmark.read_coflow_benchmark`.
    num_coflows : int >= 1
        Number of coflows of the generated instance.
    load : float > 0, default 0.9
        Target offered load as a fraction of the total port bandwidth.
    num_ports : int >= 1, default 150
        Ingress ports = egress ports; must be at least the largest sender and receiver count
        of the sampled coflows.
    bandwidth_mb_per_s : float > 0, default 256.0
        Access-link bandwidth (the script's ``ACCESS_LINK_BANDWIDTH = 1024*2/8`` MB/s, 2 Gbps).
    time_unit_ms : float > 0, default 7.8125
        Length of coflowopt's time unit in ms (the coflow-benchmark reader's default).
    integer_division : bool, default False
        ``False``: exact sizes and times.  ``True``: mimic the script's integer arithmetic
        under Python 2: ``int(MB) // #senders`` flow sizes (computed as the floor of the
        float64 split, which is the same except for an MB within one ulp below a multiple of
        #senders), the mean flow size floored, and coflow arrivals truncated to whole ms.
        Flows that become 0 MB are **dropped** (an instance has no 0-size flows) after they
        have counted towards the mean flow size and drawn their arrival, as in the script;
        coflows left without flows are dropped too.  Both counts are recorded in
        ``meta["generator"]["dropped_zero_flows"]`` and ``["dropped_empty_coflows"]``.
        On FB2010-1Hr-150-0 every reducer's MB is a multiple of its mapper count, so nothing
        is dropped there.
    seed : int or None
        Seed of the random generator, recorded in ``meta["generator"]``; ``None`` draws
        fresh entropy (and records the seed it drew).

    Returns
    -------
    Instance
        ``meta["generator"]`` also holds ``trace_coflow`` (the trace id of every coflow),
        ``mean_flow_size_mb`` and ``flow_arrival_rate_per_ms``; ``meta["units"]`` is
        ``{"size": "MB", "time": "<time_unit_ms> ms"}``.

    Raises
    ------
    InvalidParameterError
        For a bad argument, a missing trace file, ``num_ports`` smaller than a sampled
        coflow's sender or receiver count, or a mean flow size of 0 MB under
        ``integer_division`` (the script would divide by zero).
    InvalidInstanceError
        For a malformed trace (naming the file, line and field).

    Notes
    -----
    Differences from ``trace_producer.py`` (``python trace_producer.py N FB-UP LOAD``):

    * Random numbers come from ``np.random.default_rng(seed)``, not numpy's global legacy
      state, and are drawn in a vectorised order (all samples, all sender sets, all receiver
      sets, all gaps), so the output is not bit-identical to the script's for any seed.
    * By default sizes and times are exact (the script's ``/`` is integer division under
      Python 2 and it writes ``int(arrival)``); ``integer_division=True`` restores those.
    * 0 MB flows (only possible with ``integer_division=True``) are dropped instead of being
      written out with size 0.
    * Times are converted to coflowopt time units and capacities derived from the bandwidth;
      the script writes ms and leaves capacities to the simulator.
    * ``num_ports``, the bandwidth and the time unit are parameters (150, 256 MB/s, ms in the
      script).  The trace must have its header line (the script's embedded copy lacks it) and
      pass the reader's checks (e.g. no repeated mapper location in a coflow).

    Examples
    --------
    >>> inst = facebook_like("../shared/data/FB2010-1Hr-150-0.txt", 50,
    ...                      seed=0)  # doctest: +SKIP
    >>> inst.num_coflows, float(inst.ingress_capacity[0])  # doctest: +SKIP
    (50, 2.0)

    References
    ----------
    Sincronia (Agarwal et al., SIGCOMM 2018), Sec. 5.1 "Custom" traces;
    ``sincronia-coflow/workload-generator``, ``trace_producer.py`` (FB-UP mode).
    """
    f = "facebook_like"
    K = _count(f, "num_coflows", num_coflows)
    P = _count(f, "num_ports", num_ports)
    for name, v in (("load", load), ("bandwidth_mb_per_s", bandwidth_mb_per_s),
                    ("time_unit_ms", time_unit_ms)):
        if not (_is_real(v) and v > 0):
            raise _bad(f, name, "a finite number > 0", v)
    if not isinstance(trace_path, (str, Path)):   # Path(True) raised a TypeError
        raise _bad(f, "trace_path", "the path of a coflow-benchmark trace file", trace_path)
    path = Path(trace_path)
    if not path.is_file():
        raise _bad(f, "trace_path", "an existing coflow-benchmark trace file", str(trace_path))
    params = dict(trace_path=str(trace_path), num_coflows=K, load=float(load), num_ports=P,
                  bandwidth_mb_per_s=float(bandwidth_mb_per_s),
                  time_unit_ms=float(time_unit_ms), integer_division=bool(integer_division))
    ids, senders, rptr, per_flow_mb = _trace_shapes(_trace_key(path))
    rng, s = _seed(f, seed)

    pick = rng.integers(0, len(ids), size=K)
    S = senders[pick]
    R = np.diff(rptr)[pick]
    widest = int(max(S.max(), R.max()))
    if widest > P:
        raise _bad(f, "num_ports", f"at least {widest} (the widest sampled coflow)", P)
    src_sets = _distinct_ports(rng, S, P, sort=True)
    dst_sets = _distinct_ports(rng, R, P, sort=True)

    # One row per (coflow, reducer), in trace reducer order: the j-th row of a coflow goes to
    # its j-th (sorted) destination port.  Its flows are the row repeated once per sender
    # (reducer-major); pos is the sender's rank inside the coflow's sorted sender set.
    rows = concat_ranges(rptr[pick], R)
    red_S = np.repeat(S, R)
    F = int(red_S.sum())
    row_of_flow = np.repeat(np.arange(rows.size), red_S)
    pos = run_offsets(red_S)
    src_ptr = np.cumsum(S) - S
    coflow_of_row = np.repeat(np.arange(K), R)
    src = src_sets[src_ptr[coflow_of_row[row_of_flow]] + pos]
    dst = dst_sets[row_of_flow]
    # floor(MB / S) = int(MB) // S for MB > 0 (nested floors), so flooring the float64 split
    # gives the script's sizes unless an MB lies within one ulp below a multiple of S.
    size = per_flow_mb[rows][row_of_flow]
    if integer_division:
        size = np.floor(size)
    counts = S * R

    total = math.fsum(size.tolist())
    mean = math.floor(total) // F if integer_division else total / F
    if not mean > 0:
        raise InvalidParameterError(
            "facebook_like: the sampled flows have mean size 0 MB under integer_division; "
            "use integer_division=False")
    rate_per_ms = float(load) * float(bandwidth_mb_per_s) * P / mean / 1000.0
    start = np.cumsum(rng.exponential(1.0 / rate_per_ms, size=F))
    arrival_ms = start[np.cumsum(counts) - 1]
    if integer_division:
        arrival_ms = np.trunc(arrival_ms)
    release = arrival_ms / float(time_unit_ms)

    dropped_flows = dropped_coflows = 0
    keep_coflow = np.ones(K, dtype=bool)
    if integer_division:
        zero = size == 0
        dropped_flows = int(zero.sum())
        if dropped_flows:
            flow_coflow = np.repeat(np.arange(K), counts)
            counts = np.bincount(flow_coflow[~zero], minlength=K)
            src, dst, size = src[~zero], dst[~zero], size[~zero]
            # Some flow is positive here (the mean is > 0), so some coflow survives.
            keep_coflow = counts > 0
            dropped_coflows = int((~keep_coflow).sum())
            counts = counts[keep_coflow]
    cap = np.full(P, float(bandwidth_mb_per_s) * float(time_unit_ms) / 1000.0)
    return _build(
        f, params, s, m_in=P, m_out=P, counts=counts, src=src, dst=dst, size=size,
        ingress_capacity=cap, egress_capacity=cap, release=release[keep_coflow],
        units={"size": "MB", "time": f"{float(time_unit_ms):g} ms"},
        trace_coflow=[ids[i] for i in pick[keep_coflow]], mean_flow_size_mb=mean,
        flow_arrival_rate_per_ms=rate_per_ms, dropped_zero_flows=dropped_flows,
        dropped_empty_coflows=dropped_coflows)


# ------------------------------------------------------------------------------ deadlines
def with_deadlines(instance: Instance, x: float = 1.0, seed: int | None = None) -> Instance:
    """Varys-style deadlines: ``D_k = release_k + rho_k * (1 + U(0, x))``.

    ``rho_k`` is the coflow's isolated minimum completion time (Varys' Gamma in an empty
    network).  coflowopt deadlines are absolute times, hence the ``release_k`` term; Varys
    states the same deadline relative to the coflow's arrival.

    Parameters
    ----------
    instance : Instance
        Existing deadlines are replaced.
    x : float >= 0, default 1.0
        Slack factor (the dissertation's default is 1; it varies x from 0.1 to 10).
    seed : int or None
        Seed of the deadlines' random generator, recorded in ``meta["deadlines"]``; ``None``
        draws fresh entropy.

    Returns
    -------
    Instance
        A copy with deadlines; ``meta["deadlines"]`` records ``{"name": "with_deadlines",
        "params": {"x": x}, "seed": seed}`` (``meta["generator"]`` is kept).

    Raises
    ------
    InvalidParameterError

    Examples
    --------
    >>> inst = with_deadlines(uniform_random(4, 5, seed=0), x=1.0, seed=1)
    >>> bool((inst.deadline > inst.release + inst.rho * 0.999).all())
    True

    References
    ----------
    Chowdhury's dissertation, Sec. 5.7.1 (Varys deadlines: Gamma_empty * (1 + U(0, x))).
    """
    f = "with_deadlines"
    if not isinstance(instance, Instance):
        raise _bad(f, "instance", "an Instance", type(instance).__name__)
    if not (_is_real(x) and x >= 0):
        raise _bad(f, "x", "a finite number >= 0", x)
    rng, s = _seed(f, seed)
    deadline = instance.release + instance.rho * (1.0 + rng.uniform(0.0, float(x),
                                                                    size=instance.num_coflows))
    meta = {**instance.meta, "deadlines": {"name": f, "params": {"x": float(x)}, "seed": s}}
    return instance.replace(deadline=deadline, meta=meta)


# ------------------------------------------------------------------------------ constructions
def sincronia_fig4(t: int, N: int) -> Instance:
    """Sincronia's instance on which Varys is unboundedly worse than optimal.

    ``t`` ingress and ``t`` egress ports.  Coflows ``"S1".."St"``: one flow of 2 units each,
    ``i -> i``.  Coflows ``"N1".."NN"``: ``t`` unit flows each, ``i -> i`` for every port.
    Every port carries ``2 + N``.  Optimal: the singles in parallel first (all at 2), then the
    others one by one (sum ``2t + 2N + N(N+1)/2``); Varys (SEBF, rho 1 < 2) runs the ``N``
    identical coflows first (sum ``N(N+1)/2 + t(N+2)``).  For ``t > N^(1+eps)`` the ratio
    grows without bound as ``N`` grows.

    Parameters
    ----------
    t : int >= 1
    N : int >= 0

    Returns
    -------
    Instance
        Singles first, then the identical coflows; unit capacities.

    Raises
    ------
    InvalidParameterError

    Notes
    -----
    The figure only says every flow of an identical coflow uses a different ingress and
    egress port; placing them on ``i -> i`` (the singles' pairs) is our choice and does not
    change any completion time above.

    Examples
    --------
    >>> inst = sincronia_fig4(3, 2)
    >>> inst.num_coflows, float(inst.port_loads.sum(axis=0).max())
    (5, 4.0)

    References
    ----------
    Sincronia technical report (Agarwal et al., SIGCOMM 2018), Fig. 4 and Sec. 3.1.
    """
    f = "sincronia_fig4"
    t = _count(f, "t", t)
    N = _count(f, "N", N, minimum=0)
    counts = np.concatenate([np.ones(t, dtype=np.int64), np.full(N, t, dtype=np.int64)])
    ports = np.concatenate([np.arange(t), np.tile(np.arange(t), N)])
    size = np.concatenate([np.full(t, 2.0), np.ones(N * t)])
    inst = _build(f, {"t": t, "N": N}, None, m_in=t, m_out=t, counts=counts, src=ports,
                  dst=ports, size=size)
    ids = [f"S{i + 1}" for i in range(t)] + [f"N{i + 1}" for i in range(N)]
    return inst.replace(coflow_ids=tuple(ids))


def madd_fair_family(N: int) -> Instance:
    """One shuffle where MADD beats per-flow fairness by ``(3N - 1) / (2N)``.

    ``N`` small senders (ingress ``0..N-1``) each send 1 unit to each of 2 receivers; one big
    sender (ingress ``N``) sends ``N`` units to each.  ``rho = 2N``, which MADD attains;
    per-flow fairness finishes at ``3N - 1``.  ``N = 2`` is the 3x2 shuffle of Fig. 3.2.

    Parameters
    ----------
    N : int >= 1

    Returns
    -------
    Instance
        One coflow ``"C1"``, ``N + 1`` ingress and 2 egress ports, unit capacities; flows
        sender-major.

    Raises
    ------
    InvalidParameterError

    Examples
    --------
    >>> inst = madd_fair_family(2)
    >>> inst.rho.tolist(), inst.flow_size.tolist()
    ([4.0], [1.0, 1.0, 1.0, 1.0, 2.0, 2.0])

    References
    ----------
    Chowdhury's dissertation, Fig. 3.2 / 4.3, Fig. 4.6 and Table 4.2 (theoretical speedups
    25%, 33%, 38% for N = 2, 3, 4); the family is the digest's reconstruction (E4).
    """
    N = _count("madd_fair_family", "N", N)
    src = np.repeat(np.arange(N + 1), 2)
    dst = np.tile(np.arange(2), N + 1)
    size = np.concatenate([np.ones(2 * N), np.full(2, float(N))])
    inst = _build("madd_fair_family", {"N": N}, None, m_in=N + 1, m_out=2,
                  counts=[2 * N + 2], src=src, dst=dst, size=size)
    return inst.replace(coflow_ids=("C1",))


# ------------------------------------------------------------------------------ topologies
#: The host-to-host patterns :func:`fat_tree_coflows` and :func:`leaf_spine_coflows` draw
#: coflows from, and the pattern-specific parameters each takes.
TOPOLOGY_PATTERNS = {"uniform_random": ("flows_per_coflow",), "one_to_one": ("width",),
                     "many_to_one": ("width",), "one_to_many": ("width",),
                     "all_to_all": ("mappers", "reducers"), "shuffle_mix": ("width",)}


def _on_topology(f: str, build, topo_params: dict, *, num_coflows, pattern, shape: dict, size,
                 integer_sizes, weights, releases, routing, routing_seed, seed) -> Instance:
    """Random host-to-host coflows (a pattern generator over the topology's hosts, one port
    per host), weights and releases, placed on the topology ``build()`` and routed.

    The coflows are exactly those of ``pattern(num_hosts, num_coflows, seed=seed)``; weights
    and releases come from a second stream (``default_rng([seed, 1])``), so asking for them
    does not change the flows.  Hosts keep their numbers (placement ``modulo`` with as many
    ports as hosts is the identity)."""
    from .topology import ROUTINGS, on_topology
    K = _count(f, "num_coflows", num_coflows)
    if not isinstance(pattern, str) or pattern not in TOPOLOGY_PATTERNS:
        raise _bad(f, "pattern", f"one of {', '.join(TOPOLOGY_PATTERNS)}", pattern)
    for key, value in shape.items():
        if value is not None and key not in TOPOLOGY_PATTERNS[pattern]:
            users = [p for p, keys in TOPOLOGY_PATTERNS.items() if key in keys]
            raise InvalidParameterError(f"{f}: {key} applies to pattern {' / '.join(users)}, "
                                        f"not to {pattern!r}")
    if not isinstance(routing, str) or routing not in ROUTINGS:
        raise _bad(f, "routing", f"one of {', '.join(ROUTINGS)}", routing)
    if not _is_int(routing_seed) or routing_seed < 0:
        raise _bad(f, "routing_seed", "an integer >= 0", routing_seed)
    links = topo_params.pop("_links", None)
    if links is not None:  # before building: a k = 1000 fat-tree would allocate gigabytes
        rule = limits.count_rule("links", links, limits.MAX_RESOURCES, "MAX_RESOURCES")
        if rule:
            shape_of = ", ".join(f"{k}={v}" for k, v in topo_params.items()
                                 if k in ("k", "leaves", "spines", "hosts_per_leaf"))
            raise InvalidParameterError(f"{f}: {shape_of}: {rule}")
    rng, s = _seed(f, seed)
    try:
        topo = build()
    except InvalidParameterError as e:
        raise InvalidParameterError(f"{f}: {e}") from None
    kw = {k: v for k, v in shape.items() if v is not None}
    try:
        base = GENERATORS[pattern](topo.num_hosts, K, size=size, integer_sizes=integer_sizes,
                                   seed=s, **kw)
    except InvalidParameterError as e:
        msg = str(e)
        msg = msg[len(pattern) + 2:] if msg.startswith(f"{pattern}: ") else msg
        raise InvalidParameterError(f"{f}: {msg} (pattern {pattern}, {topo.num_hosts} "
                                    "hosts)") from None
    wr = np.random.default_rng([s, 1])
    w = _weights(f, wr, weights, K)
    r = _releases(f, wr, releases, K)
    params = {**topo_params, "num_coflows": K, "pattern": pattern,
              **{k: v for k, v in shape.items() if v is not None}, "size": size,
              "integer_sizes": bool(integer_sizes), "weights": weights, "releases": releases,
              "routing": routing, "routing_seed": int(routing_seed)}
    meta = _meta(f, params, s)
    meta["generator"].update({k: v for k, v in base.meta["generator"].items()
                              if k not in ("name", "params", "seed")})  # shuffle_mix's patterns
    base = base.replace(weight=w, release=r, meta=meta)
    return on_topology(base, topo, routing=routing, seed=int(routing_seed))


def fat_tree_coflows(k: int = 4, num_coflows: int = 10, *, pattern: str = "uniform_random",
                     flows_per_coflow=None, width=None, mappers=None, reducers=None,
                     size=(1, 10), integer_sizes: bool = True, weights=None, releases=None,
                     capacity: float = 1.0, core_oversubscription: float = 1.0,
                     routing: str = "ecmp", routing_seed: int = 0,
                     seed: int | None = None) -> Instance:
    """Random coflows between the hosts of a k-ary fat-tree, routed over its links
    (``coflowopt generate fat-tree``).

    The topology is :func:`coflowopt.topology.fat_tree` (``k^3/4`` hosts, ``5k^2/4``
    switches, ``k^3`` directed links); the coflows are drawn by the host-to-host generator
    ``pattern`` over ``k^3/4`` ports, port ``h`` being host ``h``, and every flow is routed by
    :func:`coflowopt.topology.route` (ECMP by default).

    Parameters
    ----------
    k : even int >= 2, default 4
        The fat-tree's arity (``k^3/4`` hosts).
    num_coflows : int >= 1, default 10
        Number of coflows.
    pattern : str, default "uniform_random"
        One of :data:`TOPOLOGY_PATTERNS`: ``uniform_random``, ``one_to_one``,
        ``many_to_one``, ``one_to_many``, ``all_to_all``, ``shuffle_mix``.
    flows_per_coflow, width, mappers, reducers : (int, int), optional
        The pattern's shape parameter (``flows_per_coflow`` for ``uniform_random``; ``width``
        for the one-to-one, many-to-one, one-to-many and mixed patterns; ``mappers`` and
        ``reducers`` for ``all_to_all``); default: the pattern's default.
    size, integer_sizes
        As in :func:`uniform_random`.
    weights, releases
        As in :func:`uniform_random`, drawn from a second stream ``default_rng([seed, 1])``
        (so they do not change the flows).
    capacity, core_oversubscription : float
        Link capacity, and the factor by which aggregation-core links are slower
        (:func:`coflowopt.topology.fat_tree`).
    routing : {"ecmp", "shortest"}, default "ecmp"
        ECMP (a seeded hash of the flow picks one of the shortest paths) or the first
        shortest path.
    routing_seed : int >= 0, default 0
        ECMP's hash seed (:func:`coflowopt.topology.ecmp_hash`), independent of ``seed``: the
        same coflows can be routed differently.
    seed : int or None
        Seed of the random generator, recorded in ``meta["generator"]``; ``None`` draws
        fresh entropy (and records the seed it drew).

    Returns
    -------
    Instance
        On resources (the fat-tree's links); ``meta["topology"]`` is the topology record of the
        instance format (version 2), ``meta["generator"]`` the parameters and seed.

    Raises
    ------
    InvalidParameterError
        Naming the parameter and the rule (``k`` odd, a shape parameter the pattern does not
        take, a width beyond the number of hosts...).

    Examples
    --------
    >>> inst = fat_tree_coflows(4, 6, seed=1)
    >>> inst.num_hosts, inst.num_resources, inst.meta["topology"]["kind"]
    (16, 96, 'fat-tree')
    >>> int(inst.max_path_length) <= 6
    True

    References
    ----------
    Al-Fares, Loukissas, Vahdat, SIGCOMM 2008 (the k-ary fat-tree); seed 001 (Creek) evaluates
    on fat-trees with ECMP (k = 4: 16 hosts, 20 switches; k = 24: 3,456 hosts, 720 switches).
    """
    from .topology import fat_tree
    f = "fat-tree"
    topo_params = {"k": k, "capacity": capacity, "core_oversubscription": core_oversubscription,
                   "_links": 3 * k ** 3 // 2 if _is_int(k) and k > 0 else None}
    return _on_topology(
        f, lambda: fat_tree(k, capacity=capacity, core_oversubscription=core_oversubscription),
        topo_params, num_coflows=num_coflows, pattern=pattern,
        shape={"flows_per_coflow": flows_per_coflow, "width": width, "mappers": mappers,
               "reducers": reducers}, size=size, integer_sizes=integer_sizes, weights=weights,
        releases=releases, routing=routing, routing_seed=routing_seed, seed=seed)


def leaf_spine_coflows(leaves: int = 4, spines: int = 2, hosts_per_leaf: int = 4,
                       num_coflows: int = 10, *, oversubscription: float = 1.0,
                       host_capacity: float = 1.0, uplink_capacity: float | None = None,
                       unit_links: bool = False, pattern: str = "uniform_random",
                       flows_per_coflow=None, width=None, mappers=None, reducers=None,
                       size=(1, 10), integer_sizes: bool = True, weights=None, releases=None,
                       routing: str = "ecmp", routing_seed: int = 0,
                       seed: int | None = None) -> Instance:
    """Random coflows between the hosts of a leaf-spine fabric, routed over its links
    (``coflowopt generate leaf-spine``).

    The topology is :func:`coflowopt.topology.leaf_spine` (``leaves * hosts_per_leaf`` hosts,
    ``leaves + spines`` switches; uplinks at ``hosts_per_leaf * host_capacity / (spines *
    oversubscription)`` unless ``uplink_capacity`` is given; ``unit_links`` is seed 002's
    equivalent-topology transform).  Coflows and routing as in :func:`fat_tree_coflows`.

    Parameters
    ----------
    leaves, spines, hosts_per_leaf : int >= 1, defaults 4, 2, 4
        Leaf switches, spine switches and hosts per leaf.
    num_coflows : int >= 1, default 10
        Number of coflows.
    oversubscription, host_capacity, uplink_capacity, unit_links
        As in :func:`coflowopt.topology.leaf_spine`.
    pattern, flows_per_coflow, width, mappers, reducers, size, integer_sizes, weights, \
releases, routing, routing_seed, seed
        As in :func:`fat_tree_coflows`.

    Returns
    -------
    Instance
        On resources (the fabric's links), with ``meta["topology"]`` and ``meta["generator"]``.

    Raises
    ------
    InvalidParameterError

    Examples
    --------
    >>> inst = leaf_spine_coflows(2, 2, 2, 4, oversubscription=2, seed=0)
    >>> inst.num_hosts, inst.num_resources, sorted(set(inst.capacity.tolist()))
    (4, 16, [0.5, 1.0])

    References
    ----------
    Seed 002 ("To sync or not to sync", Globecom 2018): a leaf-spine fabric with flow-by-flow
    ECMP (4 leaves x 30 servers, 3 spines) and the equivalent-topology transform.
    """
    from .topology import leaf_spine
    f = "leaf-spine"
    topo_params = {"leaves": leaves, "spines": spines, "hosts_per_leaf": hosts_per_leaf,
                   "oversubscription": oversubscription, "host_capacity": host_capacity,
                   "uplink_capacity": uplink_capacity, "unit_links": unit_links,
                   "_links": (2 * leaves * (hosts_per_leaf + spines) if all(
                       _is_int(x) and x > 0 for x in (leaves, spines, hosts_per_leaf))
                       else None)}
    return _on_topology(
        f, lambda: leaf_spine(leaves, spines, hosts_per_leaf, host_capacity=host_capacity,
                              oversubscription=oversubscription,
                              uplink_capacity=uplink_capacity, unit_links=bool(unit_links)),
        topo_params, num_coflows=num_coflows, pattern=pattern,
        shape={"flows_per_coflow": flows_per_coflow, "width": width, "mappers": mappers,
               "reducers": reducers}, size=size, integer_sizes=integer_sizes, weights=weights,
        releases=releases, routing=routing, routing_seed=routing_seed, seed=seed)


# ------------------------------------------------------------------------------ Creek
#: Table 2 of seed 001 (Creek): coflow size groups I..V of the many-to-many traces, in MB
#: (``[lo, hi)``; group V, "> 1 TB" in the paper, is closed at 10 TB here: an assumption, the
#: paper gives no upper end).
CREEK_BUCKETS = ((6.0, 1e3), (1e3, 1e4), (1e4, 1e5), (1e5, 1e6), (1e6, 1e7))

#: How often each group is drawn (derivation in :func:`creek`, Notes): 85% in I, 7% in II and
#: 8% at 10 GB or more, spread over III-V so that the expected byte shares are the seed's.
CREEK_BUCKET_PROBABILITIES = (0.85, 0.07, 0.06125, 0.01675, 0.002)


def _power_law(rng, lo: float, hi: float, alpha: float, n: int) -> np.ndarray:
    """``n`` draws of the density ``x^-alpha`` on ``[lo, hi)`` (inverse transform)."""
    u = rng.random(n)
    if alpha == 1.0:
        return lo * (hi / lo) ** u
    e = 1.0 - alpha
    return (lo ** e + u * (hi ** e - lo ** e)) ** (1.0 / e)


def _power_law_mean(lo: float, hi: float, alpha: float) -> float:
    if alpha == 1.0:
        return (hi - lo) / math.log(hi / lo)
    if alpha == 2.0:
        return math.log(hi / lo) / (1.0 / lo - 1.0 / hi)
    return ((1 - alpha) / (2 - alpha) * (hi ** (2 - alpha) - lo ** (2 - alpha))
            / (hi ** (1 - alpha) - lo ** (1 - alpha)))


def _creek_alpha_small(mean: float) -> float:
    """The exponent of group I's power law whose mean is ``mean`` (bisection: the mean falls
    as the exponent grows)."""
    lo, hi = 0.5, 3.0
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if _power_law_mean(*CREEK_BUCKETS[0], mid) > mean:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


#: Group I's exponent: group I carries a quarter of group II's bytes (0.4% vs 1.6% of all),
#: with groups II-V log-uniform.
_CREEK_ALPHA_I = _creek_alpha_small(
    0.25 * CREEK_BUCKET_PROBABILITIES[1] * _power_law_mean(*CREEK_BUCKETS[1], 1.0)
    / CREEK_BUCKET_PROBABILITIES[0])


def _split_evenly(rng, total: np.ndarray, mean: float) -> tuple[np.ndarray, np.ndarray]:
    """Split every ``total[k]`` into ``ceil(total[k] / mean)`` (at least 1) parts of sizes
    ``total[k] u_i / sum u`` with ``u_i ~ U(0.5, 1.5)``: each part at most ``3 mean``,
    and at least ``mean / 6`` when ``total >= mean`` (one part of ``total`` otherwise).  Returns (parts per total, part sizes concatenated)."""
    with np.errstate(over="ignore"):
        parts = np.maximum(1.0, np.ceil(total / mean))
    if parts.sum() > limits.MAX_FLOWS:
        # a tiny mean (mice_mean = 1e-320) would ask for more flows than an instance holds
        raise _bad("creek", "mice_mean / elephant_mean", f"large enough for at most "
                   f"{limits.MAX_FLOWS} flows (MAX_FLOWS, coflowopt.limits): it splits "
                   f"{float(total.sum()):.6g} MB into {float(parts.sum()):.3g} flows", mean)
    n = parts.astype(np.int64)
    k_of = np.repeat(np.arange(total.size), n)
    u = rng.uniform(0.5, 1.5, size=int(n.sum()))
    us = np.bincount(k_of, u, minlength=total.size)
    return n, total[k_of] * u / us[k_of]


def creek(num_ports: int | None = None, num_coflows: int = 100, *, receivers=(2, 6),
          mice_mean: float = 10.0, elephant_mean: float = 5100.0,
          mice_byte_fraction: float = 0.046, capacity: float = 1250.0, releases=None,
          group_probabilities=None, fat_tree_k: int | None = None, routing_seed: int = 0,
          seed: int | None = None) -> Instance:
    """Creek-like many-to-many coflows (seed 001): heavy-tailed coflow sizes in the groups of
    its Table 2, each coflow the union of per-receiver sub-coflows (``coflowopt generate
    creek``).

    Sizes are in MB and times in seconds; ``capacity`` defaults to 10 Gb/s = 1250 MB/s (the
    paper's simulated fabric).  Every coflow:

    1. draws its group from :data:`CREEK_BUCKET_PROBABILITIES` and its size ``S`` in the
       group (:data:`CREEK_BUCKETS`): log-uniform in groups II-V, a power law
       ``x^-alpha`` (``alpha`` about 1.48) in group I;
    2. splits ``S`` into flows: a coflow under 1 GB (group I) is all mice; a larger one puts
       ``mice_byte_fraction`` of its bytes in mice and the rest in elephants; mice are
       ``ceil(bytes / mice_mean)`` flows of about ``mice_mean`` (at most ``3 mice_mean``, so
       under 35 MB), elephants ``ceil(bytes / elephant_mean)`` flows of about
       ``elephant_mean`` (at least ``elephant_mean / 6`` or 954 MB, so over 35 MB); the flows
       are shuffled;
    3. picks ``r`` distinct receivers (``r`` uniform in ``receivers``, at most the number of
       flows and of ports) and ``s = min(ports, ceil(flows / r))`` distinct senders; flow ``t``
       goes from sender ``(t // r) mod s`` to receiver ``t mod r``.  The sub-coflows are the
       receivers' parts: the instance's default sub-coflow index (one per egress port).

    Parameters
    ----------
    num_ports : int >= 1, optional
        Hosts (ingress and egress ports); default 150 (the FB trace's racks), or every host of
        the fat-tree with ``fat_tree_k``.
    num_coflows : int >= 1, default 100
        Number of coflows.
    receivers : (int, int), default (2, 6)
        Receivers (sub-coflows) per coflow, ``1 <= lo <= hi``.
    mice_mean, elephant_mean : float, defaults 10 and 5100 (MB)
        Mean size of a mouse flow (``<= 35 / 3``, so that every mouse stays under 35 MB) and
        of an elephant flow (``>= 210``, so that every elephant is over 35 MB).
    mice_byte_fraction : float, 0 or in [1e-9, 1), default 0.046
        Share of a coflow's bytes in mice, for coflows of 1 GB or more.
    capacity : float > 0, default 1250
        Port (or link) capacity in MB per second.
    releases : None, (lo, hi) or "poisson:<rate>"
        As in :func:`uniform_random` (seconds).
    group_probabilities : five numbers >= 0, not all 0, optional
        Relative frequencies of groups I-V instead of :data:`CREEK_BUCKET_PROBABILITIES`
        (e.g. ``[1, 0, 0, 0, 0]`` for group I only; the calibration then no longer holds).
    fat_tree_k : even int >= 2, optional
        Place the coflows on a k-ary fat-tree (:func:`coflowopt.topology.fat_tree`, links of
        ``capacity``) routed by ECMP with ``routing_seed``, as in the paper's simulations
        (k = 24 there); ``num_ports`` must then be at most ``k^3/4``.
    routing_seed : int >= 0, default 0
        ECMP's hash seed with ``fat_tree_k``.
    seed : int or None
        Seed of the random generator, recorded in ``meta["generator"]``; ``None`` draws
        fresh entropy (and records the seed it drew).

    Returns
    -------
    Instance
        A big switch, or on the fat-tree's links with ``fat_tree_k``; ``meta["generator"]``
        records the parameters, the seed and every coflow's group (``"groups"``, 0-4 for
        I-V).

    Raises
    ------
    InvalidParameterError
        Naming the parameter and the rule.

    Notes
    -----
    *Calibration* (the seed's Sec. III, from the FB trace and data-mining traffic): about 8%
    of coflows are 10 GB or more and carry 98% of the bytes, 15% are 1 GB or more and carry
    99.6%; 3.6% of the flows are over 35 MB and carry 95% of the bytes.  With ``p_I = 0.85``,
    ``p_II = 0.07`` and 8% in III-V, group II's log-uniform mean (3,909 MB) gives 1.6% of the
    bytes when the mean coflow is 17,100 MB; group I's exponent makes its mean 80.5 MB (0.4%);
    ``p_V = 0.002`` and ``p_III``, ``p_IV`` solve the remaining 98% (16,758 MB per coflow).
    The flow split then gives about 85 flows per coflow: 0.046 of the >= 1 GB coflows' bytes
    (99.6% of all) in mice of about 10 MB keeps 95% of the bytes in flows over 35 MB, and
    elephants of about 5,100 MB make them 3.6% of the flows.  Measured on 20,000 coflows
    (``tests/test_creek_generator.py``): within 1 point of 8% / 15% of the coflows, 0.5 point
    of 98%, 0.15 of 99.6%, 0.3 of 3.6% and of 95%.  The targets hold in expectation with the
    defaults only; other ``mice_mean`` / ``elephant_mean`` / ``mice_byte_fraction`` move the
    flow-level figures.  The largest coflows (group V) have tens of thousands of flows.

    Which traces the paper synthesised (TPC-DS query 42, FB-Tao) and how is not in the seed:
    only Table 2's groups and the Sec. III statistics are, so the rest (the distributions
    inside the groups, the flow split, the receivers) is this generator's choice.

    Examples
    --------
    >>> inst = creek(20, 5, seed=3)
    >>> inst.num_coflows, inst.num_ingress, bool((inst.total_size >= 6).all())
    (5, 20, True)
    >>> bool((inst.num_subcoflows == inst.num_receivers).all())
    True

    References
    ----------
    Seed 001 (Creek): Sec. III (coflows in production), Table 2 (size groups), Sec. V-B (a
    k = 24 fat-tree, 10 Gb/s links, ECMP).
    """
    f = "creek"
    if fat_tree_k is not None and not (_is_int(fat_tree_k) and 2 <= fat_tree_k <= 72
                                       and fat_tree_k % 2 == 0):
        # k = 72 is the largest whose k^3 / 4 hosts fit in MAX_PORTS
        raise _bad(f, "fat_tree_k", "an even integer in [2, 72] (k^3 / 4 hosts at most "
                                    f"{limits.MAX_PORTS}, MAX_PORTS) or None", fat_tree_k)
    hosts = None if fat_tree_k is None else int(fat_tree_k) ** 3 // 4
    if num_ports is None:
        m = 150 if hosts is None else hosts
    else:
        m = _count(f, "num_ports", num_ports)
        if hosts is not None and m > hosts:
            raise _bad(f, "num_ports", f"at most the fat-tree's {hosts} hosts", num_ports)
    K = _count(f, "num_coflows", num_coflows)
    r_lo, r_hi = _pair(f, "receivers", receivers, lo_min=1, integer=True)
    for name, v, ok, rule in (
            ("mice_mean", mice_mean, lambda x: limits.SIZE_MIN <= x <= 35 / 3,
             "a number in [1e-9, 35/3] (SIZE_MIN, coflowopt.limits)"),
            ("elephant_mean", elephant_mean, lambda x: 210 <= x <= 1e7,
             "a number in [210, 1e7]"),
            ("mice_byte_fraction", mice_byte_fraction, lambda x: x == 0 or 1e-9 <= x < 1,
             "0 or a number in [1e-9, 1)"),
            ("capacity", capacity, lambda x: x > 0, "a finite number > 0")):
        if not (_is_real(v) and ok(float(v))):
            raise _bad(f, name, rule, v)
    if not _is_int(routing_seed) or routing_seed < 0:
        raise _bad(f, "routing_seed", "an integer >= 0", routing_seed)
    gp = CREEK_BUCKET_PROBABILITIES if group_probabilities is None else group_probabilities
    if not (isinstance(gp, (list, tuple)) and len(gp) == len(CREEK_BUCKETS)
            and all(_is_real(x) and x >= 0 for x in gp) and sum(gp) > 0):
        raise _bad(f, "group_probabilities", "five numbers >= 0 (groups I-V), not all 0",
                   group_probabilities)
    gp = np.asarray(gp, dtype=float) / float(sum(gp))
    params = dict(num_ports=num_ports, num_coflows=K, receivers=(r_lo, r_hi),
                  mice_mean=mice_mean, elephant_mean=elephant_mean,
                  mice_byte_fraction=mice_byte_fraction, capacity=capacity,
                  releases=releases, group_probabilities=group_probabilities,
                  fat_tree_k=fat_tree_k, routing_seed=routing_seed)
    rng, s = _seed(f, seed)
    r = _releases(f, rng, releases, K)
    group = rng.choice(len(CREEK_BUCKETS), size=K, p=gp)
    size = np.empty(K)
    for g, (lo, hi) in enumerate(CREEK_BUCKETS):
        sel = np.flatnonzero(group == g)
        size[sel] = _power_law(rng, lo, hi, _CREEK_ALPHA_I if g == 0 else 1.0, sel.size)
    big = size >= CREEK_BUCKETS[1][0]
    mice = np.where(big, float(mice_byte_fraction) * size, size)
    # a coflow with no mice bytes (mice_byte_fraction = 0) has no mice, not one of size 0; the
    # same draws as before whenever every coflow has mice bytes
    has_m = mice > 0
    n_mice = np.zeros(K, dtype=np.int64)
    n_mice[has_m], mice_sizes = _split_evenly(rng, mice[has_m], float(mice_mean))
    eleph = size - mice
    has_e = big & (eleph > 0)
    n_e = np.zeros(K, dtype=np.int64)
    n_e[has_e], e_sizes = _split_evenly(rng, eleph[has_e], float(elephant_mean))
    counts = n_mice + n_e
    # flows coflow by coflow: its mice, then its elephants, then shuffled inside the coflow
    owner = np.concatenate([np.repeat(np.arange(K), n_mice), np.repeat(np.arange(K), n_e)])
    fsize = np.concatenate([mice_sizes, e_sizes])
    order = np.lexsort((rng.random(owner.size), owner))
    fsize = fsize[order]
    nrec = np.minimum(np.minimum(rng.integers(r_lo, r_hi + 1, size=K), counts), m)
    nsend = np.minimum(m, -(-counts // nrec))
    rec = _distinct_ports(rng, nrec, m)
    snd = _distinct_ports(rng, nsend, m)
    k_of = np.repeat(np.arange(K), counts)
    t = run_offsets(counts)
    dst = rec[np.repeat(np.cumsum(nrec) - nrec, counts) + t % nrec[k_of]]
    src = snd[np.repeat(np.cumsum(nsend) - nsend, counts) + (t // nrec[k_of]) % nsend[k_of]]
    inst = _build(f, params, s, m_in=m, m_out=m, counts=counts, src=src, dst=dst, size=fsize,
                  ingress_capacity=np.full(m, float(capacity)),
                  egress_capacity=np.full(m, float(capacity)), release=r,
                  units={"size": "MB", "time": "s", "capacity": "MB per s"},
                  groups=group.tolist())
    if fat_tree_k is None:
        return inst
    from .topology import fat_tree, on_topology
    return on_topology(inst, fat_tree(int(fat_tree_k), capacity=float(capacity)),
                       routing="ecmp", seed=int(routing_seed))


#: The seeded generators by name, for ``coflowopt generate NAME -p key=value --seed S``: every
#: one takes its parameters as keywords plus ``seed=``.  ``with_deadlines`` (which transforms an
#: instance) and the deterministic constructions are not listed.  ``fat-tree`` and
#: ``leaf-spine`` give instances on resources (a topology's links; written as format version 2).
GENERATORS = {f.__name__: f for f in (uniform_random, one_to_one, many_to_one, one_to_many,
                                      all_to_all, shuffle_mix, facebook_like)}
GENERATORS["fat-tree"] = fat_tree_coflows
GENERATORS["leaf-spine"] = leaf_spine_coflows
GENERATORS["creek"] = creek
