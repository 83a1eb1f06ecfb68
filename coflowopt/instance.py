"""The instance model: a big switch with ingress and egress ports, and coflows of flows.

An :class:`Instance` is immutable and stores everything as flat numpy arrays, so that a trace with
700,000 flows costs a few tens of megabytes and every derived quantity is one vectorised pass.

Conventions (used throughout coflowopt)
---------------------------------------
* Ingress ports are ``0 .. m_in-1``, egress ports ``0 .. m_out-1``.  Where one index space is
  convenient (loads, bottlenecks, the ordering LP) ingress port ``i`` is *port* ``i`` and egress
  port ``j`` is *port* ``m_in + j``; this is Sincronia's ``[2m]`` numbering.
* Coflow ``k`` owns the flows ``flow_ptr[k] : flow_ptr[k+1]`` (CSR layout), in the order they were
  given; a flow's *position* is its index inside its coflow.
* Sizes and capacities share one data unit (MB for the traces); a port of capacity ``c`` moves
  ``c`` units per time unit.  Releases and deadlines are absolute times in that time unit.
* A deadline is absolute: coflow ``k`` meets it iff its completion time ``C_k <= deadline_k``.
  ``NaN`` means no deadline.

References
----------
Varys (Chowdhury, Zhong, Stoica, SIGCOMM 2014), Eq. (1) for Gamma; Sincronia technical report,
section 2.2 and Table 1 for d_k^p, OCT and the [2m] port numbering; Chowdhury's dissertation,
Appendix A.3.1 for length, width, size, skew and the SN/LN/SW/LW bins.
"""

from __future__ import annotations

import functools
import importlib.machinery
import importlib.util
import math
import os
import sys
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import numpy as np

from . import limits
from .exceptions import InvalidInstanceError, InvalidParameterError, NotSupportedError

if TYPE_CHECKING:
    import scipy.sparse as sp

__all__ = ["Instance", "Coflow", "COFLOW_BINS"]

#: The four coflow classes of Varys/Aalo/HUG (Tables 5.3, 6.3, 7.2 of the dissertation).
COFLOW_BINS = ("SN", "LN", "SW", "LW")


@dataclass(frozen=True)
class Coflow:
    """One coflow in plain Python form, for building small instances by hand.

    ``flows`` is a sequence of ``(ingress, egress, size)`` triples; ``subcoflows``, if given,
    one sub-coflow label per flow (:attr:`Instance.flow_subcoflow`; default one sub-coflow per
    egress port).
    """

    id: str
    flows: Sequence[tuple[int, int, float]]
    weight: float = 1.0
    release: float = 0.0
    deadline: float | None = None
    subcoflows: Sequence[int] | None = None


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    a.setflags(write=False)
    return a


@functools.cache
def _sparsetools():
    """scipy's compiled sparse routines, ``scipy.sparse._sparsetools``, loaded from their file
    without running ``scipy.sparse``'s package import (~0.1 s of a process's start: it clones
    numpy for the array API); ``None`` when they cannot be loaded so (the caller then imports
    scipy.sparse).  The same compiled code as scipy.sparse's, so the same bits."""
    need = ("coo_tocsr", "csr_has_sorted_indices", "csr_sort_indices", "csr_sum_duplicates")
    name = "scipy.sparse._sparsetools"
    mod = sys.modules.get(name)
    if mod is None:
        try:
            spec = importlib.util.find_spec("scipy")      # finds the package, runs nothing
            base = os.path.join(os.path.dirname(spec.origin), "sparse", "_sparsetools")
            path = next(base + s for s in importlib.machinery.EXTENSION_SUFFIXES
                        if os.path.isfile(base + s))
            loader = importlib.machinery.ExtensionFileLoader(name, path)
            mod = importlib.util.module_from_spec(
                importlib.util.spec_from_file_location(name, path, loader=loader))
            loader.exec_module(mod)
        except Exception:       # no scipy file layout we know: scipy.sparse's own import
            return None
    return mod if all(hasattr(mod, f) for f in need) else None


def _csr_sum_duplicates(rows: np.ndarray, cols: np.ndarray, vals: np.ndarray,
                        shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(indptr, indices, data)`` of ``scipy.sparse.csr_matrix((vals, (rows, cols)), shape)``
    with its duplicates summed, bit for bit (tested), through scipy's compiled routines
    without importing scipy.sparse (:func:`_sparsetools`).

    Why scipy's own routines and not a numpy sum: scipy sums each (row, column)'s duplicates
    in the order ``std::sort`` leaves them after sorting the row's columns, and libstdc++'s
    sort is an unstable introsort above 16 entries a row: the order is not the flows' order,
    and with fractional sizes the sums then differ in the last bit (30 % of the entries of
    random coflows of 20-80 fractional flows; none on the FB trace, by luck of its sizes).
    """
    st = _sparsetools()
    K, P = shape
    if st is None:
        import scipy.sparse as sp
        m = sp.csr_matrix((vals, (rows, cols)), shape=shape)
        m.sum_duplicates()
        return m.indptr, m.indices, m.data
    nnz = int(vals.size)
    idx = np.int32 if max(nnz, K, P) < np.iinfo(np.int32).max else np.int64
    indptr = np.empty(K + 1, dtype=idx)
    indices = np.empty(nnz, dtype=idx)
    data = np.empty(nnz, dtype=np.float64)
    # what csr_matrix((vals, (rows, cols))) runs: coo_tocsr (each row's entries in input
    # order), then sum_duplicates: the sort only when some row is unsorted, then the sums
    # (the index type changes no comparison, so no order)
    st.coo_tocsr(K, P, nnz, np.ascontiguousarray(rows, dtype=idx),
                 np.ascontiguousarray(cols, dtype=idx),
                 np.ascontiguousarray(vals, dtype=np.float64), indptr, indices, data)
    if not st.csr_has_sorted_indices(K, indptr, indices):
        st.csr_sort_indices(K, indptr, indices, data)
    st.csr_sum_duplicates(K, P, indptr, indices, data)
    n = int(indptr[-1])
    return indptr, indices[:n].copy(), data[:n].copy()


@dataclass(frozen=True, eq=False)
class Instance:
    """An offline coflow scheduling instance on the big-switch model.

    Build one with :meth:`from_coflows` (small, by hand), :meth:`from_arrays` (vectorised), or a
    reader in :mod:`coflowopt.formats`.  The constructor validates every rule -- the model's and
    the numeric ranges and counts of :mod:`coflowopt.limits` -- and raises
    :class:`~coflowopt.exceptions.InvalidInstanceError` naming the field that breaks it.

    Attributes
    ----------
    ingress_capacity, egress_capacity : ndarray of float, shape (m_in,), (m_out,)
        Port capacities (data units per time unit), each in ``[1e-9, 1e12]``.
    coflow_ids : tuple of str
        Unique identifiers, in instance order.
    weight, release, deadline : ndarray of float, shape (K,)
        Weight 0 or in ``[1e-9, 1e9]``; release time 0 or in ``[1e-30, 1e35]``; absolute
        deadline after the release and at most ``1e35`` (NaN for none).
    flow_ptr : ndarray of int64, shape (K+1,)
        Coflow ``k`` owns flows ``flow_ptr[k]:flow_ptr[k+1]``; every coflow has at least one.
    flow_src, flow_dst : ndarray of int64, shape (F,)
        Ingress and egress port of each flow.
    flow_size : ndarray of float, shape (F,)
        Size of each flow, in ``[1e-9, 1e12]``.  Also ``(max release + sum_f size_f / c_f) /
        min_f size_f / c_f <= 1e12`` with ``c_f`` the smaller capacity of the flow's two ports
        (:data:`coflowopt.limits.DYNAMIC_RANGE_MAX`, which keeps float64 event times
        meaningful).
    meta : dict
        Free-form provenance (source file, units, generator and seed).  Not part of equality.
    flow_subcoflow : ndarray of int64, shape (F,), or None
        Sub-coflow label of every flow inside its coflow (Creek, seed 001: a many-to-many
        coflow is the union of per-receiver many-to-one *sub-coflows*): flows of one coflow
        with the same label form one sub-coflow; a label is an integer in ``0 .. width_k - 1``
        and only which flows share one matters, so labels are stored renumbered ``0, 1, ...``
        in order of first appearance in the coflow.  ``None`` (the default, and what an index
        with the default's sub-coflows is stored as) means one sub-coflow per destination
        (egress port, or destination host on resources).  Read it through
        :attr:`subcoflow_index` / :attr:`flow_subcoflow_id`.
    """

    ingress_capacity: np.ndarray
    egress_capacity: np.ndarray
    coflow_ids: tuple[str, ...]
    weight: np.ndarray
    release: np.ndarray
    deadline: np.ndarray
    flow_ptr: np.ndarray
    flow_src: np.ndarray
    flow_dst: np.ndarray
    flow_size: np.ndarray
    meta: dict = field(default_factory=dict)
    resource_capacity: np.ndarray | None = None
    path_ptr: np.ndarray | None = None
    path_resource: np.ndarray | None = None
    resource_ids: tuple[str, ...] | None = None
    host_ids: tuple[str, ...] | None = None
    flow_subcoflow: np.ndarray | None = None

    # ------------------------------------------------------------------ construction
    def __post_init__(self):
        f = object.__setattr__
        f(self, "ingress_capacity", _readonly(np.asarray(self.ingress_capacity, dtype=float)))
        f(self, "egress_capacity", _readonly(np.asarray(self.egress_capacity, dtype=float)))
        f(self, "coflow_ids", tuple(self.coflow_ids))
        f(self, "weight", _readonly(np.asarray(self.weight, dtype=float)))
        f(self, "release", _readonly(np.asarray(self.release, dtype=float)))
        f(self, "deadline", _readonly(np.asarray(self.deadline, dtype=float)))
        f(self, "flow_ptr", _readonly(np.asarray(self.flow_ptr, dtype=np.int64)))
        f(self, "flow_src", _readonly(np.asarray(self.flow_src, dtype=np.int64)))
        f(self, "flow_dst", _readonly(np.asarray(self.flow_dst, dtype=np.int64)))
        f(self, "flow_size", _readonly(np.asarray(self.flow_size, dtype=float)))
        f(self, "meta", dict(self.meta))
        general = (self.resource_capacity, self.path_ptr, self.path_resource)
        if any(x is not None for x in general):
            if any(x is None for x in general):
                raise InvalidInstanceError(
                    "an instance on resources needs resource_capacity, path_ptr and "
                    "path_resource together", field="resources",
                    file=self.meta.get("source_file"))
            f(self, "resource_capacity",
              _readonly(np.asarray(self.resource_capacity, dtype=float)))
            f(self, "path_ptr", _readonly(np.asarray(self.path_ptr, dtype=np.int64)))
            f(self, "path_resource", _readonly(np.asarray(self.path_resource, dtype=np.int64)))
            if self.resource_ids is not None:
                f(self, "resource_ids", tuple(self.resource_ids))
            if self.host_ids is not None:
                f(self, "host_ids", tuple(self.host_ids))
        elif self.resource_ids is not None or self.host_ids is not None:
            raise InvalidInstanceError("resource_ids and host_ids belong to an instance on "
                                       "resources (give resource_capacity and paths)",
                                       field="resources", file=self.meta.get("source_file"))
        self._validate()

    def _validate(self) -> None:
        def bad(rule: str, fld: str):
            raise InvalidInstanceError(rule, field=fld, file=self.meta.get("source_file"))

        if not self.is_big_switch:
            if self.ingress_capacity.size or self.egress_capacity.size:
                bad("an instance on resources has no ingress or egress ports (its flows run "
                    "between hosts over resources)", "ingress")
        for name, cap in (() if not self.is_big_switch else
                          (("ingress", self.ingress_capacity),
                           ("egress", self.egress_capacity))):
            if cap.ndim != 1 or cap.size == 0:
                bad("there must be at least one port", name)
            badc = np.flatnonzero(~(np.isfinite(cap) & (cap > 0)))
            if badc.size:
                bad(f"capacity must be a finite number > 0, got {float(cap[badc[0]])!r}",
                    f"{name}[{badc[0]}]")
        K = len(self.coflow_ids)
        if K == 0:
            bad("an instance needs at least one coflow", "coflows")
        for name in ("weight", "release", "deadline"):
            arr = getattr(self, name)
            if arr.shape != (K,):
                bad(f"expected {K} values (one per coflow), got shape {arr.shape}", name)
        seen: dict[str, int] = {}
        for k, cid in enumerate(self.coflow_ids):
            if not isinstance(cid, str) or cid == "":
                bad("coflow id must be a non-empty string", f"coflows[{k}].id")
            if cid in seen:
                bad(f"duplicate coflow id {cid!r} (first used by coflows[{seen[cid]}])",
                    f"coflows[{k}].id")
            seen[cid] = k
        w = np.flatnonzero(~(np.isfinite(self.weight) & (self.weight >= 0)))
        if w.size:
            bad(f"weight must be a finite number >= 0, got {float(self.weight[w[0]])!r}",
                f"coflows[{w[0]}].weight")
        r = np.flatnonzero(~(np.isfinite(self.release) & (self.release >= 0)))
        if r.size:
            bad(f"release must be a finite number >= 0, got {float(self.release[r[0]])!r}",
                f"coflows[{r[0]}].release")
        has_d = ~np.isnan(self.deadline)
        d = np.flatnonzero(has_d & ~(np.isfinite(self.deadline) & (self.deadline > self.release)))
        if d.size:
            bad(f"deadline must be a finite time after the release {float(self.release[d[0]])!r}, "
                f"got {float(self.deadline[d[0]])!r} (deadlines are absolute times)",
                f"coflows[{d[0]}].deadline")
        ptr = self.flow_ptr
        F = self.flow_size.shape[0]
        if ptr.shape != (K + 1,) or ptr[0] != 0 or ptr[-1] != F:
            bad(f"flow_ptr must have K+1={K + 1} entries from 0 to F={F}", "flow_ptr")
        counts = np.diff(ptr)
        e = np.flatnonzero(counts <= 0)
        if e.size:
            bad("every coflow needs at least one flow", f"coflows[{e[0]}].flows")
        for name, arr in (("flow_src", self.flow_src), ("flow_dst", self.flow_dst)):
            if arr.shape != (F,):
                bad(f"expected {F} entries, got shape {arr.shape}", name)
        k_of = np.repeat(np.arange(K), counts)
        pos = np.arange(F) - ptr[k_of]
        if self.is_big_switch:
            ends = ((self.flow_src, self.num_ingress, "ingress port", "[0]"),
                    (self.flow_dst, self.num_egress, "egress port", "[1]"))
        else:
            self._validate_resources(bad, k_of, pos)
            ends = ((self.flow_src, self.num_hosts, "source host", ".src"),
                    (self.flow_dst, self.num_hosts, "destination host", ".dst"))
        for arr, m, side, col in ends:
            out = np.flatnonzero((arr < 0) | (arr >= m))
            if out.size:
                i = out[0]
                bad(f"{side} {arr[i]} out of range 0..{m - 1}",
                    f"coflows[{k_of[i]}].flows[{pos[i]}]{col}")
        s = np.flatnonzero(~(np.isfinite(self.flow_size) & (self.flow_size > 0)))
        if s.size:
            i = s[0]
            bad(f"flow size must be a finite number > 0, got {float(self.flow_size[i])!r}",
                f"coflows[{k_of[i]}].flows[{pos[i]}]{self._size_field}")
        self._validate_limits(bad, k_of, pos)
        if self.flow_subcoflow is not None:
            self._validate_subcoflow(bad, k_of, pos)

    @property
    def _size_field(self) -> str:
        return "[2]" if self.is_big_switch else ".size"

    def _validate_resources(self, bad, k_of: np.ndarray, pos: np.ndarray) -> None:
        """The rules of an instance on resources: capacities, names, and every flow's path (a
        non-empty list of distinct resource indices)."""
        cap = self.resource_capacity
        if cap.ndim != 1 or cap.size == 0:
            bad("there must be at least one resource", "resources")
        rule = limits.count_rule("resources", int(cap.size), limits.MAX_RESOURCES,
                                 "MAX_RESOURCES")
        if rule:
            bad(rule, "resources")
        badc = np.flatnonzero(~(np.isfinite(cap) & (cap > 0)))
        if badc.size:
            bad(f"capacity must be a finite number > 0, got {float(cap[badc[0]])!r}",
                f"resources[{badc[0]}].capacity")
        i = limits.first_out_of_range(cap, "capacity")
        if i is not None:
            bad(f"capacity {limits.value_rule(float(cap[i]), 'capacity')}",
                f"resources[{i}].capacity")
        R = int(cap.size)
        for name, ids, n in (("resources", self.resource_ids, R),
                             ("hosts", self.host_ids, None)):
            if ids is None:
                continue
            if n is not None and len(ids) != n:
                bad(f"expected {n} ids (one per resource), got {len(ids)}", name)
            seen: dict[str, int] = {}
            for j, x in enumerate(ids):
                if not isinstance(x, str) or x == "":
                    bad("an id must be a non-empty string", f"{name}[{j}].id")
                if x in seen:
                    bad(f"duplicate id {x!r} (first used by {name}[{seen[x]}])",
                        f"{name}[{j}].id")
                seen[x] = j
        if self.host_ids is None or len(self.host_ids) == 0:
            bad("an instance on resources names its hosts (host_ids)", "hosts")
        F = self.flow_size.shape[0]
        ptr, res = self.path_ptr, self.path_resource
        if ptr.shape != (F + 1,) or ptr[0] != 0 or ptr[-1] != res.shape[0] or res.ndim != 1:
            bad(f"path_ptr must have F+1={F + 1} entries from 0 to the number of path entries",
                "path_ptr")
        length = np.diff(ptr)
        e = np.flatnonzero(length <= 0)
        if e.size:
            i = e[0]
            bad("a path must list at least one resource",
                f"coflows[{k_of[i]}].flows[{pos[i]}].path")
        e = np.flatnonzero(length > limits.MAX_PATH_LENGTH)
        if e.size:
            i = e[0]
            bad(f"a path of {length[i]} resources exceeds the limit of "
                f"{limits.MAX_PATH_LENGTH} (MAX_PATH_LENGTH, coflowopt.limits)",
                f"coflows[{k_of[i]}].flows[{pos[i]}].path")
        flow_of = np.repeat(np.arange(F, dtype=np.int64), length)
        out = np.flatnonzero((res < 0) | (res >= R))
        if out.size:
            j = out[0]
            i = flow_of[j]
            bad(f"resource index {res[j]} out of range 0..{R - 1}",
                f"coflows[{k_of[i]}].flows[{pos[i]}].path[{j - ptr[i]}]")
        key = flow_of * R + res
        order = np.argsort(key, kind="stable")
        rep = np.flatnonzero(np.diff(key[order]) == 0)
        if rep.size:
            j = int(order[rep[0] + 1])
            i = flow_of[j]
            bad(f"resource {res[j]} appears twice in one path (a flow occupies a resource "
                "once)", f"coflows[{k_of[i]}].flows[{pos[i]}].path[{j - ptr[i]}]")

    def _validate_subcoflow(self, bad, k_of: np.ndarray, pos: np.ndarray) -> None:
        """The sub-coflow index: one integer label per flow in ``0 .. width - 1`` of its
        coflow; stored as ``None`` when it equals the default (one per destination), so that
        equality and hashes see one form of the default."""
        F = self.num_flows
        a = np.asarray(self.flow_subcoflow)
        if a.shape != (F,):
            bad(f"expected {F} sub-coflow labels (one per flow), got shape {a.shape}",
                "flow_subcoflow")
        if a.dtype.kind == "f":
            off = np.flatnonzero(~np.isfinite(a) | (a != np.round(a)))
            if off.size:
                i = off[0]
                bad(f"a sub-coflow label must be an integer, got {float(a[i])!r}",
                    f"coflows[{k_of[i]}].flows[{pos[i]}].subcoflow")
        elif a.dtype.kind not in "iu":
            i = 0
            bad(f"a sub-coflow label must be an integer, got {str(a.flat[0])!r} ({a.dtype})",
                f"coflows[{k_of[i]}].flows[{pos[i]}].subcoflow")
        width = np.diff(self.flow_ptr)[k_of]
        out = np.flatnonzero((a < 0) | (a >= width))
        if out.size:
            i = out[0]
            bad(f"sub-coflow label {int(a[i])} out of range 0..{width[i] - 1} (at most one "
                "sub-coflow per flow of the coflow)",
                f"coflows[{k_of[i]}].flows[{pos[i]}].subcoflow")
        a = _first_appearance(self.flow_coflow, a.astype(np.int64))
        object.__setattr__(self, "flow_subcoflow",
                           None if np.array_equal(a, self._default_subcoflow()) else
                           _readonly(a))

    def _default_subcoflow(self) -> np.ndarray:
        """One sub-coflow per destination (egress port / destination host) of each coflow,
        numbered in order of first appearance in the coflow."""
        return _first_appearance(self.flow_coflow, self.flow_dst)

    def _validate_limits(self, bad, k_of: np.ndarray, pos: np.ndarray) -> None:
        """The ranges and counts of :mod:`coflowopt.limits` (after the model's own rules, so
        that a negative size is still reported as such)."""
        for what, n, limit, name in (("ingress ports", self.num_ingress, limits.MAX_PORTS,
                                      "MAX_PORTS"),
                                     ("egress ports", self.num_egress, limits.MAX_PORTS,
                                      "MAX_PORTS"),
                                     ("coflows", self.num_coflows, limits.MAX_COFLOWS,
                                      "MAX_COFLOWS"),
                                     ("flows", self.num_flows, limits.MAX_FLOWS, "MAX_FLOWS")):
            rule = limits.count_rule(what, n, limit, name)
            if rule:
                bad(rule, what.split()[-1] if what != "flows" else "flows")
        sf = self._size_field
        checks = [(self.ingress_capacity, "capacity", "capacity", lambda i: f"ingress[{i}]"),
                  (self.egress_capacity, "capacity", "capacity", lambda i: f"egress[{i}]"),
                  (self.weight, "weight", "weight", lambda i: f"coflows[{i}].weight"),
                  (self.release, "time", "release", lambda i: f"coflows[{i}].release")]
        has_d = np.flatnonzero(~np.isnan(self.deadline))
        checks.append((self.deadline[has_d], "time", "deadline",
                       lambda i: f"coflows[{has_d[i]}].deadline"))
        checks.append((self.flow_size, "size", "flow size",
                       lambda i: f"coflows[{k_of[i]}].flows[{pos[i]}]{sf}"))
        for values, kind, label, where in checks:
            i = limits.first_out_of_range(values, kind)
            if i is not None:
                bad(f"{label} {limits.value_rule(float(values[i]), kind)}", where(i))
        flow_cap = self.flow_bottleneck_capacity
        d = limits.dynamic_range(self.flow_size, flow_cap, self.release)
        if not d <= limits.DYNAMIC_RANGE_MAX:
            t = self.flow_size / flow_cap
            i = int(np.argmin(t))
            # name the term that makes the span: a release date far out (a typo, a unit
            # mix-up) is the field to fix, not the flows
            kr = int(np.argmax(self.release)) if self.num_coflows else 0
            late = self.num_coflows and self.release[kr] > t.sum()
            bad(f"the instance spans {d:.3g} times its shortest processing time (flow "
                f"coflows[{k_of[i]}].flows[{pos[i]}]: size / capacity = {t[i]:.3g}), more than "
                f"DYNAMIC_RANGE_MAX = {limits.DYNAMIC_RANGE_MAX:g} (coflowopt.limits): float64 "
                "event times could not resolve it (the span is the latest release plus the "
                "sum of every flow's size / capacity"
                + (f"; the latest release, {self.release[kr]:.3g}, is most of it)" if late
                   else ")"), f"coflows[{kr}].release" if late else "flows")

    @classmethod
    def from_arrays(cls, *, ingress_capacity, egress_capacity, coflow_ids, flow_coflow,
                    flow_src, flow_dst, flow_size, weight=None, release=None, deadline=None,
                    meta: Mapping[str, Any] | None = None,
                    flow_subcoflow=None) -> "Instance":
        """Build an instance from flat per-flow arrays.

        Parameters
        ----------
        ingress_capacity, egress_capacity : array_like of float
        coflow_ids : sequence of str, length K
        flow_coflow : array_like of int, length F
            Coflow index of every flow.  Must be non-decreasing (flows grouped by coflow, in
            coflow order); flows keep their given order inside each coflow.
        flow_src, flow_dst, flow_size : array_like, length F
        weight, release, deadline : array_like of float, length K, optional
            Defaults: weight 1, release 0, no deadline (NaN).
        meta : mapping, optional
        flow_subcoflow : array_like of int, length F, optional
            Sub-coflow label of every flow inside its coflow (default: one sub-coflow per
            egress port; see the class attributes).

        Raises
        ------
        InvalidInstanceError
            If a rule of the model is broken.
        """
        K = len(coflow_ids)
        fc = np.asarray(flow_coflow, dtype=np.int64)
        if fc.size and (np.any(np.diff(fc) < 0) or fc[0] < 0 or fc[-1] >= K):
            raise InvalidInstanceError(
                "flows must be grouped by coflow in coflow order (non-decreasing indices "
                f"in 0..{K - 1})", field="flow_coflow")
        ptr = np.zeros(K + 1, dtype=np.int64)
        np.cumsum(np.bincount(fc, minlength=K), out=ptr[1:])
        return cls(
            ingress_capacity=ingress_capacity, egress_capacity=egress_capacity,
            coflow_ids=tuple(str(c) for c in coflow_ids),
            weight=np.ones(K) if weight is None else weight,
            release=np.zeros(K) if release is None else release,
            deadline=np.full(K, np.nan) if deadline is None else deadline,
            flow_ptr=ptr, flow_src=flow_src, flow_dst=flow_dst, flow_size=flow_size,
            meta=dict(meta or {}), flow_subcoflow=flow_subcoflow)

    @classmethod
    def from_paths(cls, *, resource_capacity, coflow_ids, flow_coflow, flow_src, flow_dst,
                   flow_size, path_ptr, path_resource, host_ids, resource_ids=None,
                   weight=None, release=None, deadline=None,
                   meta: Mapping[str, Any] | None = None,
                   flow_subcoflow=None) -> "Instance":
        """Build an instance whose flows run over shared resources (a topology).

        Parameters
        ----------
        resource_capacity : array_like of float, shape (R,)
            Capacity of every resource (a link), finite and > 0.
        coflow_ids, flow_coflow, flow_size, weight, release, deadline, meta, flow_subcoflow
            As in :meth:`from_arrays` (the default sub-coflows are per destination host).
        flow_src, flow_dst : array_like of int, shape (F,)
            Source and destination host of every flow (indices into ``host_ids``); they name
            the flow's ends, while its path decides what it occupies.
        path_ptr, path_resource : array_like of int
            CSR paths: flow ``f`` occupies the resources
            ``path_resource[path_ptr[f]:path_ptr[f+1]]`` (distinct, non-empty), each at the
            flow's rate.
        host_ids : sequence of str
        resource_ids : sequence of str, optional

        Examples
        --------
        Two flows sharing the middle link of a line ``a -> b -> c``:

        >>> inst = Instance.from_paths(resource_capacity=[1.0, 2.0, 1.0],
        ...     coflow_ids=["A", "B"], flow_coflow=[0, 1], flow_src=[0, 1], flow_dst=[1, 0],
        ...     flow_size=[2.0, 2.0], path_ptr=[0, 2, 4], path_resource=[0, 1, 1, 2],
        ...     host_ids=["a", "c"])
        >>> inst.is_big_switch, inst.rho.tolist(), inst.max_path_length
        (False, [2.0, 2.0], 2)
        """
        K = len(coflow_ids)
        fc = np.asarray(flow_coflow, dtype=np.int64)
        if fc.size and (np.any(np.diff(fc) < 0) or fc[0] < 0 or fc[-1] >= K):
            raise InvalidInstanceError(
                "flows must be grouped by coflow in coflow order (non-decreasing indices "
                f"in 0..{K - 1})", field="flow_coflow")
        ptr = np.zeros(K + 1, dtype=np.int64)
        np.cumsum(np.bincount(fc, minlength=K), out=ptr[1:])
        return cls(
            ingress_capacity=np.empty(0), egress_capacity=np.empty(0),
            coflow_ids=tuple(str(c) for c in coflow_ids),
            weight=np.ones(K) if weight is None else weight,
            release=np.zeros(K) if release is None else release,
            deadline=np.full(K, np.nan) if deadline is None else deadline,
            flow_ptr=ptr, flow_src=flow_src, flow_dst=flow_dst, flow_size=flow_size,
            meta=dict(meta or {}), resource_capacity=resource_capacity, path_ptr=path_ptr,
            path_resource=path_resource,
            resource_ids=None if resource_ids is None else tuple(resource_ids),
            host_ids=tuple(host_ids), flow_subcoflow=flow_subcoflow)

    @classmethod
    def from_coflows(cls, coflows: Iterable[Coflow | Mapping[str, Any]], *,
                     num_ingress: int | None = None, num_egress: int | None = None,
                     ingress_capacity=None, egress_capacity=None,
                     meta: Mapping[str, Any] | None = None) -> "Instance":
        """Build a (small) instance from coflow objects or dicts.

        Port counts default to one more than the largest index used; capacities default to 1.

        Examples
        --------
        >>> inst = Instance.from_coflows([
        ...     Coflow("A", [(0, 0, 1.0)]),
        ...     Coflow("B", [(0, 0, 2.0), (1, 1, 2.0)]),
        ... ])
        >>> inst.num_coflows, inst.num_flows, inst.rho.tolist()
        (2, 3, [1.0, 2.0])
        """
        cs = [c if isinstance(c, Coflow) else Coflow(**c) for c in coflows]
        src, dst, size, fc, labels = [], [], [], [], []
        for k, c in enumerate(cs):
            for fl in c.flows:
                if len(fl) != 3:
                    raise InvalidInstanceError("a flow is (ingress, egress, size)",
                                               field=f"coflows[{k}].flows")
                src.append(fl[0])
                dst.append(fl[1])
                size.append(fl[2])
                fc.append(k)
            if c.subcoflows is None:   # the default: one sub-coflow per egress port
                labels.extend(_first_appearance(np.zeros(len(c.flows), dtype=np.int64),
                                                np.asarray([f[1] for f in c.flows],
                                                           dtype=np.int64)).tolist())
            elif len(c.subcoflows) != len(c.flows):
                raise InvalidInstanceError(f"expected {len(c.flows)} sub-coflow labels (one "
                                           f"per flow), got {len(c.subcoflows)}",
                                           field=f"coflows[{k}].subcoflows")
            else:
                labels.extend(c.subcoflows)
        if ingress_capacity is None:
            m_in = num_ingress if num_ingress is not None else (max(src) + 1 if src else 1)
            ingress_capacity = np.ones(m_in)
        if egress_capacity is None:
            m_out = num_egress if num_egress is not None else (max(dst) + 1 if dst else 1)
            egress_capacity = np.ones(m_out)
        return cls.from_arrays(
            ingress_capacity=ingress_capacity, egress_capacity=egress_capacity,
            coflow_ids=[c.id for c in cs], flow_coflow=np.asarray(fc, dtype=np.int64),
            flow_src=np.asarray(src, dtype=np.int64), flow_dst=np.asarray(dst, dtype=np.int64),
            flow_size=np.asarray(size, dtype=float),
            weight=[c.weight for c in cs], release=[c.release for c in cs],
            deadline=[np.nan if c.deadline is None else c.deadline for c in cs], meta=meta,
            flow_subcoflow=(None if all(c.subcoflows is None for c in cs) else
                            np.asarray(labels)))

    # ------------------------------------------------------------------ sizes
    @property
    def num_coflows(self) -> int:
        return len(self.coflow_ids)

    @property
    def num_flows(self) -> int:
        return int(self.flow_size.shape[0])

    @property
    def num_ingress(self) -> int:
        return int(self.ingress_capacity.shape[0])

    @property
    def num_egress(self) -> int:
        return int(self.egress_capacity.shape[0])

    @property
    def num_ports(self) -> int:
        """The number of resources: ingress plus egress ports on a big switch (the size of
        Sincronia's [2m] port set), links on a topology.  The length of :attr:`capacity`."""
        if self.resource_capacity is not None:
            return int(self.resource_capacity.shape[0])
        return self.num_ingress + self.num_egress

    @property
    def num_resources(self) -> int:
        """The number of resources (the length of :attr:`capacity`); ports on a big switch."""
        return self.num_ports

    @property
    def is_big_switch(self) -> bool:
        """True when every flow uses exactly its ingress and its egress port (the model of
        coflowopt's first releases); False for an instance on general resources (a topology)."""
        return self.resource_capacity is None

    @property
    def num_hosts(self) -> int:
        """Hosts that flows run between on a topology; on a big switch, the larger port count."""
        if self.host_ids is not None:
            return len(self.host_ids)
        return max(self.num_ingress, self.num_egress)

    def require_big_switch(self, what: str) -> None:
        """Raise :class:`~coflowopt.exceptions.NotSupportedError` unless this is a big switch.

        ``what`` names the algorithm, format or command that assumes one.
        """
        if not self.is_big_switch:
            raise NotSupportedError(
                f"{what} is defined on the big switch only (tag big_switch_only); this "
                f"instance runs its flows over {self.num_resources} resources "
                f"(paths of up to {self.max_path_length})")

    @property
    def has_releases(self) -> bool:
        return bool(np.any(self.release > 0))

    @property
    def has_deadlines(self) -> bool:
        return bool(np.any(~np.isnan(self.deadline)))

    @property
    def uniform_capacity(self) -> bool:
        """True when every ingress and egress port has the same capacity."""
        c = self.capacity
        return bool(np.all(c == c[0]))

    # ------------------------------------------------------------------ per-flow views
    @cached_property
    def flow_coflow(self) -> np.ndarray:
        """Coflow index of every flow, shape (F,)."""
        return _readonly(np.repeat(np.arange(self.num_coflows, dtype=np.int64),
                                   np.diff(self.flow_ptr)))

    @cached_property
    def flow_position(self) -> np.ndarray:
        """Position of every flow inside its coflow, shape (F,)."""
        return _readonly(np.arange(self.num_flows, dtype=np.int64)
                         - self.flow_ptr[self.flow_coflow])

    @cached_property
    def subcoflow_index(self) -> np.ndarray:
        """Sub-coflow label of every flow inside its coflow, shape (F,): the stored
        :attr:`flow_subcoflow`, or the default (one sub-coflow per destination), numbered in
        order of first appearance in the coflow."""
        if self.flow_subcoflow is not None:
            return self.flow_subcoflow
        return _readonly(self._default_subcoflow())

    @cached_property
    def flow_subcoflow_id(self) -> np.ndarray:
        """Global sub-coflow number of every flow, shape (F,): ``0 .. S-1``, coflow by coflow
        (a coflow's sub-coflows are consecutive, in label order)."""
        key = self.flow_coflow * (int(self.flow_ptr[-1]) + 1) + self.subcoflow_index
        return _readonly(np.unique(key, return_inverse=True)[1].astype(np.int64).ravel())

    @cached_property
    def num_subcoflows(self) -> np.ndarray:
        """Number of sub-coflows of every coflow, shape (K,).

        Examples
        --------
        >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1), (0, 1, 1), (1, 0, 1)])])
        >>> inst.num_subcoflows.tolist(), inst.flow_subcoflow_id.tolist()
        ([2], [0, 1, 0])
        """
        sid = self.flow_subcoflow_id
        owner = np.zeros(int(sid.max()) + 1 if sid.size else 0, dtype=np.int64)
        owner[sid] = self.flow_coflow   # the coflow of every sub-coflow
        return _readonly(np.bincount(owner, minlength=self.num_coflows).astype(np.int64))

    @cached_property
    def capacity(self) -> np.ndarray:
        """Capacity of every resource, shape (R,): on a big switch the ports in the unified
        numbering (ingress ``i`` is ``i``, egress ``j`` is ``m_in + j``), on a topology the
        links in the order of ``resources``."""
        if self.resource_capacity is not None:
            return self.resource_capacity
        return _readonly(np.concatenate([self.ingress_capacity, self.egress_capacity]))

    @cached_property
    def flow_egress_port(self) -> np.ndarray:
        """Egress port of every flow in the unified numbering (``m_in + flow_dst``).

        Raises :class:`~coflowopt.exceptions.NotSupportedError` on a topology, whose flows
        have paths instead (:attr:`flow_resource`)."""
        self.require_big_switch("flow_egress_port")
        return _readonly(self.flow_dst + self.num_ingress)

    @cached_property
    def flow_resource_ptr(self) -> np.ndarray:
        """CSR pointer of the flow-to-resource incidence, shape (F+1,): flow ``f`` uses the
        resources ``flow_resource[flow_resource_ptr[f]:flow_resource_ptr[f+1]]``.

        On a big switch every path is ``[ingress, m_in + egress]``, so this is ``0, 2, 4, ...``.
        """
        if self.path_ptr is not None:
            return self.path_ptr
        return _readonly(np.arange(0, 2 * self.num_flows + 1, 2, dtype=np.int64))

    @cached_property
    def flow_resource(self) -> np.ndarray:
        """The resources of every flow's path, concatenated (see :attr:`flow_resource_ptr`)."""
        if self.path_resource is not None:
            return self.path_resource
        return _readonly(np.stack([self.flow_src, self.flow_dst + self.num_ingress],
                                  axis=1).ravel())

    @cached_property
    def path_length(self) -> np.ndarray:
        """Number of resources on each flow's path, shape (F,) (2 on a big switch)."""
        return _readonly(np.diff(self.flow_resource_ptr))

    @property
    def max_path_length(self) -> int:
        """The longest path, ``L`` (2 on a big switch): guarantees of greedy rate allocations
        scale with it (``proofs/resource-model-guarantees.md``)."""
        return 2 if self.is_big_switch else int(self.path_length.max())

    @cached_property
    def resource_flow_matrix(self) -> sp.csr_matrix:
        """The incidence as a sparse (F, R) 0/1 matrix: ``rates @ M`` is the load on every
        resource for per-flow ``rates``."""
        import scipy.sparse as sp  # lazily: ~0.1 s of import, paid only where a matrix is built
        F, R = self.num_flows, self.num_resources
        data = np.ones(self.flow_resource.shape[0])
        return sp.csr_matrix((data, self.flow_resource, self.flow_resource_ptr), shape=(F, R))

    @cached_property
    def flow_bottleneck_capacity(self) -> np.ndarray:
        """The smallest capacity on every flow's path, shape (F,): the fastest the flow can go
        alone."""
        if self.is_big_switch:
            cap = self.capacity
            return _readonly(np.minimum(cap[self.flow_src], cap[self.num_ingress + self.flow_dst]))
        return _readonly(np.minimum.reduceat(self.capacity[self.flow_resource],
                                             self.flow_resource_ptr[:-1]))

    @cached_property
    def resource_names(self) -> tuple[str, ...]:
        """A name per resource: ``ingress i`` / ``egress j`` on a big switch, the ids of
        ``resources`` on a topology (``r<index>`` when none were given)."""
        if self.is_big_switch:
            return tuple([f"ingress {i}" for i in range(self.num_ingress)]
                         + [f"egress {j}" for j in range(self.num_egress)])
        if self.resource_ids is not None:
            return self.resource_ids
        return tuple(f"r{i}" for i in range(self.num_resources))

    def flow_index(self, coflow_position: int, flow_position: int) -> int:
        """Global index of flow ``flow_position`` of coflow ``coflow_position``."""
        lo, hi = self.flow_ptr[coflow_position], self.flow_ptr[coflow_position + 1]
        if not 0 <= flow_position < hi - lo:
            raise IndexError(f"coflow {coflow_position} has {hi - lo} flows")
        return int(lo + flow_position)

    def coflow_flows(self, k: int) -> slice:
        """Slice of the flow arrays that belongs to coflow ``k``."""
        return slice(int(self.flow_ptr[k]), int(self.flow_ptr[k + 1]))

    # ------------------------------------------------------------------ derived quantities
    @cached_property
    def _port_loads_csr(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(indptr, indices, data)`` of :attr:`port_loads_sparse`, canonical (each row's
        columns ascending, no duplicates), built without importing scipy.sparse: the arrays
        :attr:`rho`, :attr:`bottleneck_port` and BSSI read (scipy.sparse's import is ~0.1 s of
        a process's start)."""
        K, P = self.num_coflows, self.num_ports
        n = 2 * self.num_flows if self.is_big_switch else int(self.flow_resource.size)
        # Why a dense count when the sizes are integers: scipy sorts each row's column indices
        # to sum the duplicates, 0.5 of the 0.77 s BSSI took on the Facebook trace on a k=16
        # fat-tree (4.1 million (coflow, link) entries); a bincount over k * R + p takes 0.09 s.
        # Only for integral sizes whose total is exact in float64: then every order of
        # summation gives the same bits, so the matrix is scipy's, bit for bit (tested); and
        # only while the K x R count stays small beside the entries.
        dense = (K * P <= max(1 << 22, 2 * n) and K * P <= 1 << 25
                 and float(self.flow_size.sum()) < 2.0 ** 53
                 and np.array_equal(self.flow_size, np.floor(self.flow_size)))
        # the entries (coflow, resource, size): on a big switch every flow's ingress port
        # first, then every flow's egress port (the order scipy's sums depend on); written
        # once in the index type the sums take, without int64 intermediates (1.4 million
        # entries on the FB trace)
        idx = np.int64 if dense or max(n, K, P) >= np.iinfo(np.int32).max else np.int32
        rows, cols, vals = np.empty(n, dtype=idx), np.empty(n, dtype=idx), np.empty(n)
        if self.is_big_switch:
            F = self.num_flows
            rows[:F] = rows[F:] = self.flow_coflow
            cols[:F], cols[F:] = self.flow_src, self.flow_egress_port
            vals[:F] = vals[F:] = self.flow_size
        else:
            rows[:] = np.repeat(self.flow_coflow, self.path_length)
            cols[:] = self.flow_resource
            vals[:] = np.repeat(self.flow_size, self.path_length)
        if dense:
            key = rows * P + cols
            sums = np.bincount(key, weights=vals, minlength=K * P)
            nz = np.flatnonzero(sums)
            indptr = np.zeros(K + 1, dtype=np.int64)
            np.cumsum(np.bincount(nz // P, minlength=K), out=indptr[1:])
            return indptr, nz % P, sums[nz]
        return _csr_sum_duplicates(rows, cols, vals, (K, P))

    @cached_property
    def port_loads_sparse(self) -> sp.csr_matrix:
        """d_k^p as a sparse (K, R) matrix: data coflow k sends through resource p (port p of
        the unified numbering on a big switch)."""
        import scipy.sparse as sp  # lazily (see resource_flow_matrix)
        indptr, indices, data = self._port_loads_csr
        return sp.csr_matrix((data, indices, indptr), shape=(self.num_coflows, self.num_ports))

    @cached_property
    def port_loads(self) -> np.ndarray:
        """d_k^p as a dense (K, m_in + m_out) array (Sincronia's v_k^p)."""
        indptr, indices, data = self._port_loads_csr
        dense = np.zeros((self.num_coflows, self.num_ports))
        dense[np.repeat(np.arange(self.num_coflows), np.diff(indptr)), indices] = data
        return _readonly(dense)

    @cached_property
    def _port_times(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(row, col, t)``: the non-zero ``t = d_k^p / c_p`` in :attr:`_port_loads_csr`'s
        order (coflow by coflow, ports ascending), each computed as
        ``port_loads_sparse @ scipy.sparse.diags(1.0 / capacity)`` computes it, ``d * fl(1 /
        c)`` (not ``d / c``), so that :attr:`rho` and BSSI keep scipy's bits (tested)."""
        indptr, indices, data = self._port_loads_csr
        row = np.repeat(np.arange(self.num_coflows, dtype=np.int64), np.diff(indptr))
        col = indices.astype(np.int64)
        return _readonly(row), _readonly(col), _readonly(data * (1.0 / self.capacity)[col])

    @cached_property
    def rho(self) -> np.ndarray:
        """Isolated minimum completion time rho_k = max_p d_k^p / c_p, shape (K,).

        This is Varys' Gamma (Eq. 1) in an empty fabric and Sincronia's OCT: the time coflow k
        needs when it is alone, achieved by MADD (every flow at rate d_ij / rho_k).
        """
        # every coflow has a flow, so every row has an entry and reduceat's starts are distinct
        return _readonly(np.maximum.reduceat(self._port_times[2], self._port_loads_csr[0][:-1]))

    @cached_property
    def bottleneck_port(self) -> np.ndarray:
        """The port attaining rho_k (first index on ties), unified numbering, shape (K,)."""
        row, col, t = self._port_times
        hit = np.flatnonzero(t == self.rho[row])     # columns ascend within a row
        r = row[hit]
        first = hit[np.concatenate([[True], r[1:] != r[:-1]])]
        return _readonly(col[first])

    @cached_property
    def length(self) -> np.ndarray:
        """Size of each coflow's largest flow (the dissertation's *length*)."""
        return _readonly(np.maximum.reduceat(self.flow_size, self.flow_ptr[:-1]))

    @cached_property
    def width(self) -> np.ndarray:
        """Number of flows of each coflow (the dissertation's *width*)."""
        return _readonly(np.diff(self.flow_ptr))

    @cached_property
    def total_size(self) -> np.ndarray:
        """Sum of each coflow's flow sizes (the dissertation's *size*)."""
        return _readonly(np.add.reduceat(self.flow_size, self.flow_ptr[:-1]))

    @cached_property
    def skew(self) -> np.ndarray:
        """Coefficient of variation (population std / mean) of each coflow's flow sizes."""
        mean = self.total_size / self.width
        dev = self.flow_size - mean[self.flow_coflow]
        var = np.add.reduceat(dev * dev, self.flow_ptr[:-1]) / self.width
        return _readonly(np.sqrt(var) / mean)

    @cached_property
    def num_senders(self) -> np.ndarray:
        """Distinct ingress ports (source hosts on resources) used by each coflow."""
        return self._distinct_per_coflow(self.flow_src)

    @cached_property
    def num_receivers(self) -> np.ndarray:
        """Distinct egress ports (destination hosts on resources) used by each coflow."""
        return self._distinct_per_coflow(self.flow_dst)

    def _distinct_per_coflow(self, ports: np.ndarray) -> np.ndarray:
        key = np.unique(self.flow_coflow * (int(ports.max()) + 1) + ports)
        return _readonly(np.bincount(key // (int(ports.max()) + 1),
                                     minlength=self.num_coflows).astype(np.int64))

    def bins(self, short_threshold: float = 5.0, narrow_max_flows: int = 50) -> np.ndarray:
        """SN/LN/SW/LW class of every coflow.

        Short means the longest flow is < ``short_threshold`` (5 MB in the papers); narrow means
        at most ``narrow_max_flows`` flows (50).  Returns an array of the strings in
        :data:`COFLOW_BINS`.
        """
        short = self.length < short_threshold
        narrow = self.width <= narrow_max_flows
        out = np.where(short, np.where(narrow, "SN", "SW"), np.where(narrow, "LN", "LW"))
        return out

    def resource_summary(self) -> dict[str, Any]:
        """The most loaded resource (total data over capacity) and how many flows cross it,
        for ``coflowopt info`` on a topology (and on a big switch, where it is a port)."""
        load = np.asarray(self.port_loads_sparse.sum(axis=0)).ravel() / self.capacity
        p = int(np.argmax(load))
        crossing = int(np.count_nonzero(self.flow_resource == p))
        return {"resource": p, "id": self.resource_names[p],
                "capacity": _plain(float(self.capacity[p])),
                "load_over_capacity": _plain(float(load[p])), "flows": crossing}

    def summary(self) -> dict[str, Any]:
        """Counts and totals that identify an instance (used by ``coflowopt info``)."""
        bins = self.bins()
        if not self.is_big_switch:
            topo = self.meta.get("topology") or {}
            nodes = topo.get("nodes")
            out = {"coflows": self.num_coflows, "model": "resources",
                   "hosts": self.num_hosts,
                   "switches": (sum(1 for n in nodes if not n.get("host"))
                                if isinstance(nodes, list) else None),
                   "resources": self.num_resources,
                   "links": self.num_resources,
                   "topology": {k: topo[k] for k in ("kind", "params", "routing", "seed",
                                                     "placement") if k in topo} or None,
                   "max_path_length": self.max_path_length,
                   "mean_path_length": _plain(float(self.path_length.mean())),
                   "hosts_used": {"source": int(np.unique(self.flow_src).size),
                                  "destination": int(np.unique(self.flow_dst).size)},
                   "most_loaded_resource": self.resource_summary()}
        else:
            out = {"coflows": self.num_coflows,
                   "ports": max(self.num_ingress, self.num_egress),
                   "ingress_ports": self.num_ingress,
                   "egress_ports": self.num_egress,
                   "ports_used": {"ingress": int(np.unique(self.flow_src).size),
                                  "egress": int(np.unique(self.flow_dst).size)}}
        return {**out, **self._totals(bins)}

    def _totals(self, bins) -> dict[str, Any]:
        return {
            "flows": self.num_flows,
            "total_size": _plain(math.fsum(self.flow_size.tolist())),
            "size_unit": self.meta.get("units", {}).get("size"),
            "time_unit": self.meta.get("units", {}).get("time"),
            "uniform_capacity": self.uniform_capacity,
            "release_span": [_plain(float(self.release.min())),
                             _plain(float(self.release.max()))],
            "coflows_with_deadline": int(np.sum(~np.isnan(self.deadline))),
            "sum_weight": _plain(math.fsum(self.weight.tolist())),
            "sum_rho": _plain(math.fsum(self.rho.tolist())),
            "isolated_bound": _plain(math.fsum((self.weight * (self.release + self.rho)).tolist())),
            "max_flows_per_coflow": int(self.width.max()),
            "single_flow_coflows": int(np.sum(self.width == 1)),
            "bins": {b: int(np.sum(bins == b)) for b in COFLOW_BINS},
        }

    # ------------------------------------------------------------------ transformations
    def replace(self, **changes) -> "Instance":
        """A copy with some fields replaced (validated again)."""
        fields = {k: getattr(self, k) for k in self.__dataclass_fields__}
        fields.update(changes)
        return Instance(**fields)

    def with_releases(self, release) -> "Instance":
        """A copy with the given release times (a scalar applies to every coflow).

        Deadlines that would no longer lie after the release are dropped only if you pass
        ``release`` explicitly with deadlines removed; here they are kept and re-validated.
        """
        r = np.broadcast_to(np.asarray(release, dtype=float), (self.num_coflows,)).copy()
        return self.replace(release=r, meta={**self.meta, "releases": "replaced"})

    def without_deadlines(self) -> "Instance":
        return self.replace(deadline=np.full(self.num_coflows, np.nan))

    def with_weights(self, weight) -> "Instance":
        w = np.broadcast_to(np.asarray(weight, dtype=float), (self.num_coflows,)).copy()
        return self.replace(weight=w)

    def scaled(self, size_factor: float = 1.0, time_factor: float = 1.0) -> "Instance":
        """Scale sizes by ``size_factor`` and all times (releases, deadlines) by ``time_factor``.

        Scaling both by the same factor scales every completion time by it.
        """
        if not (size_factor > 0 and time_factor > 0):
            raise InvalidParameterError("size_factor and time_factor must be > 0")
        return self.replace(flow_size=self.flow_size * size_factor,
                            release=self.release * time_factor,
                            deadline=self.deadline * time_factor)

    def select_coflows(self, indices: Sequence[int]) -> "Instance":
        """The sub-instance made of the given coflows, in the given order (ports unchanged)."""
        idx = np.asarray(indices, dtype=np.int64)
        if idx.ndim != 1 or idx.size == 0:
            raise InvalidParameterError("indices must be a non-empty 1-d sequence")
        if len(np.unique(idx)) != idx.size:
            raise InvalidParameterError("indices must not repeat a coflow")
        counts = np.diff(self.flow_ptr)[idx]
        starts = self.flow_ptr[idx]
        fidx = np.concatenate([np.arange(s, s + c) for s, c in zip(starts, counts)])
        if not self.is_big_switch:
            lengths = self.path_length[fidx]
            pptr = np.zeros(fidx.size + 1, dtype=np.int64)
            np.cumsum(lengths, out=pptr[1:])
            # the path entries of the chosen flows, in the chosen order
            entry = np.repeat(self.flow_resource_ptr[fidx] - pptr[:-1], lengths) + \
                np.arange(int(pptr[-1]))
            return Instance.from_paths(
                resource_capacity=self.resource_capacity,
                coflow_ids=[self.coflow_ids[i] for i in idx],
                flow_coflow=np.repeat(np.arange(idx.size), counts),
                flow_src=self.flow_src[fidx], flow_dst=self.flow_dst[fidx],
                flow_size=self.flow_size[fidx], path_ptr=pptr,
                path_resource=self.flow_resource[entry], host_ids=self.host_ids,
                resource_ids=self.resource_ids, weight=self.weight[idx],
                release=self.release[idx], deadline=self.deadline[idx], meta=self.meta,
                flow_subcoflow=None if self.flow_subcoflow is None else
                self.flow_subcoflow[fidx])
        return Instance.from_arrays(
            ingress_capacity=self.ingress_capacity, egress_capacity=self.egress_capacity,
            coflow_ids=[self.coflow_ids[i] for i in idx],
            flow_coflow=np.repeat(np.arange(idx.size), counts),
            flow_src=self.flow_src[fidx], flow_dst=self.flow_dst[fidx],
            flow_size=self.flow_size[fidx], weight=self.weight[idx],
            release=self.release[idx], deadline=self.deadline[idx], meta=self.meta,
            flow_subcoflow=None if self.flow_subcoflow is None else self.flow_subcoflow[fidx])

    def relabel_ports(self, ingress_perm: Sequence[int], egress_perm: Sequence[int]) -> "Instance":
        """Rename ports: ingress ``i`` becomes ``ingress_perm[i]`` (likewise egress)."""
        self.require_big_switch("relabel_ports")
        pi = np.asarray(ingress_perm, dtype=np.int64)
        pe = np.asarray(egress_perm, dtype=np.int64)
        if sorted(pi.tolist()) != list(range(self.num_ingress)) or \
                sorted(pe.tolist()) != list(range(self.num_egress)):
            raise InvalidParameterError("port permutations must be permutations of 0..m-1")
        cin = np.empty_like(self.ingress_capacity)
        cin[pi] = self.ingress_capacity
        cout = np.empty_like(self.egress_capacity)
        cout[pe] = self.egress_capacity
        return self.replace(ingress_capacity=cin, egress_capacity=cout,
                            flow_src=pi[self.flow_src], flow_dst=pe[self.flow_dst])

    # ------------------------------------------------------------------ comparison
    def __eq__(self, other: object) -> bool:
        """Exact equality of the model (capacities, coflows, flows); ``meta`` is ignored."""
        if not isinstance(other, Instance):
            return NotImplemented
        def same(a, b):
            return a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=True))
        return (self.coflow_ids == other.coflow_ids
                and same(self.ingress_capacity, other.ingress_capacity)
                and same(self.egress_capacity, other.egress_capacity)
                and same(self.weight, other.weight) and same(self.release, other.release)
                and same(self.deadline, other.deadline) and same(self.flow_ptr, other.flow_ptr)
                and same(self.flow_src, other.flow_src) and same(self.flow_dst, other.flow_dst)
                and same(self.flow_size, other.flow_size)
                and (self.flow_subcoflow is None) == (other.flow_subcoflow is None)
                and (self.flow_subcoflow is None
                     or same(self.flow_subcoflow, other.flow_subcoflow))
                and self.is_big_switch == other.is_big_switch
                and (self.is_big_switch or (
                    same(self.resource_capacity, other.resource_capacity)
                    and same(self.path_ptr, other.path_ptr)
                    and same(self.path_resource, other.path_resource)
                    and self.resource_ids == other.resource_ids
                    and self.host_ids == other.host_ids)))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        if not self.is_big_switch:
            return (f"Instance({self.num_coflows} coflows, {self.num_flows} flows, "
                    f"{self.num_hosts} hosts, {self.num_resources} resources)")
        return (f"Instance({self.num_coflows} coflows, {self.num_flows} flows, "
                f"{self.num_ingress}x{self.num_egress} ports)")


def _first_appearance(coflow: np.ndarray, label: np.ndarray) -> np.ndarray:
    """Labels renumbered ``0, 1, ...`` inside each coflow in order of first appearance: the
    one form of a partition of every coflow's flows (vectorised).

    >>> _first_appearance(np.array([0, 0, 0, 1, 1]), np.array([7, 3, 7, 5, 5])).tolist()
    [0, 1, 0, 0, 0]
    """
    if label.size == 0:
        return np.zeros(0, dtype=np.int64)
    m = int(label.max()) + 1
    _, first, inv = np.unique(coflow * m + label, return_index=True, return_inverse=True)
    pair_coflow = coflow[first]
    order = np.lexsort((first, pair_coflow))           # pairs by coflow, then first flow
    start = np.searchsorted(pair_coflow[order], pair_coflow[order])
    rank = np.empty(first.size, dtype=np.int64)
    rank[order] = np.arange(first.size) - start
    return rank[inv.ravel()]


def _plain(x: float) -> int | float:
    """A float as a plain JSON number: an int when it is integral (exactly)."""
    if isinstance(x, float) and x.is_integer() and abs(x) < 2 ** 53:
        return int(x)
    return x
