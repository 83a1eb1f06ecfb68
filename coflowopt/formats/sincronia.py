"""The Sincronia simulator's trace format (sincronia-coflow/workload-generator output).

Format (workload-generator README.md, "Output Format"; read by the simulators' ``main.cpp``)::

    Line 1: <NUM_PORTS> <NUM_COFLOWS>
    Line i: <CoflowID> <Arrival ms> <NumFlows> <NumSources> <NumDestinations>
            (<src> <dst> <size MB>) x NumFlows

Ports are 0-based on both sides, ``0 .. NUM_PORTS-1``; flows keep their file order.  Units are
those of :mod:`.coflow_benchmark`: sizes in MB, ``release = arrival_ms / time_unit_ms``
(default 7.8125 ms, the time 1 MB takes at 128 MiB/s), capacity in MB per time unit (default 1).
Coflow ids are the id tokens as strings.

The C++ simulator reads every field with ``fscanf("%d")``, so its sizes are integers; the reader
here also accepts decimal sizes (they are what ``write_sincronia(..., allow_fractional=True)``
writes).  The generator's FB-UP mode computes sizes with Python 2 integer division
(``destination_datas[j] / num_sources``) and can emit 0 MB flows: those are an error unless
``on_zero_size="drop"`` drops them explicitly and records how many, per coflow, in ``meta``.

References
----------
sincronia-coflow/workload-generator, README.md and trace_producer.py (the writer);
sincronia-coflow/simulator, offlinesim/main.cpp (the reader).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .._numbers import plain_number
from ..exceptions import InvalidParameterError, NotSupportedError
from ..instance import Instance
from .coflow_benchmark import (DEFAULT_TIME_UNIT_MS, _check_units, _check_writable, _Coflows,
                               _trace_lines, _unit_meta)

__all__ = ["read_sincronia", "write_sincronia", "FORMAT_NAME"]

FORMAT_NAME = "sincronia"
_ZERO_SIZE = ("error", "drop")
#: The C++ reader stores sizes in an ``int``.
_INT_MAX = 2 ** 31 - 1


def read_sincronia(path: str | Path, *, capacity: float = 1.0,
                   time_unit_ms: float = DEFAULT_TIME_UNIT_MS,
                   on_zero_size: str = "error") -> Instance:
    """Read a trace in the Sincronia simulator's format.

    Parameters
    ----------
    path : str or Path
    capacity : float
        Capacity of every ingress and egress port, in MB per time unit (default 1).
    time_unit_ms : float
        Length of one time unit in ms; ``release = arrival_ms / time_unit_ms``.
    on_zero_size : {"error", "drop"}
        What to do with 0 MB flows.  ``"drop"`` removes them and records
        ``meta["dropped_zero_size"] = {coflow_id: count}`` (only coflows that lost flows) and
        ``meta["dropped_zero_size_total"]``; a coflow left without flows is still an error.

    Returns
    -------
    Instance
        ``NUM_PORTS`` ports on each side, weights 1, no deadlines; ``meta`` holds
        ``source_file``, ``source_format``, ``units`` and ``time_unit_ms``.

    Raises
    ------
    InvalidInstanceError
        Naming file, line and field, for: a header that is not two integers; a coflow count
        that disagrees with the body; fewer than five fields, or a field count that is not
        ``5 + 3 * NumFlows``; ids, arrivals, counts or ports that are not non-negative integers;
        ``NumFlows`` = 0; duplicate coflow ids; a port outside ``0..NUM_PORTS-1``;
        ``NumSources``/``NumDestinations`` that differ from the distinct sources/destinations of
        the flows (all flows as written, before any zero-size flow is dropped); a size that is
        not a finite decimal number > 0 (>= 0 with ``on_zero_size="drop"``); a size, release,
        port, coflow or flow count outside :mod:`coflowopt.limits`; a file that is not a text
        file (named as what it is).
    InvalidParameterError
        For a bad ``capacity``, ``time_unit_ms`` or ``on_zero_size``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.txt"
    >>> _ = p.write_text("4 1\\n0 0 2 1 2 3 0 5 3 1 7\\n")
    >>> inst = read_sincronia(p)
    >>> inst.flow_src.tolist(), inst.flow_dst.tolist(), inst.flow_size.tolist()
    ([3, 3], [0, 1], [5.0, 7.0])

    References
    ----------
    sincronia-coflow/workload-generator README.md; sincronia-coflow/simulator offlinesim/main.cpp.
    """
    _check_units(capacity, time_unit_ms)
    if on_zero_size not in _ZERO_SIZE:
        raise InvalidParameterError(f"on_zero_size must be one of {_ZERO_SIZE}, "
                                    f"got {on_zero_size!r}")
    drop = on_zero_size == "drop"
    num_ports, body = _trace_lines(path, ("NUM_PORTS", "NUM_COFLOWS"), "Sincronia")
    read = _Coflows(time_unit_ms)
    dropped: dict[str, int] = {}
    for where, toks in body:
        n = len(toks)
        if n < 5:
            where.bad("expected '<CoflowID> <Arrival ms> <NumFlows> <NumSources> "
                      f"<NumDestinations> (<src> <dst> <size>)...', got only {n} field(s)")
        cid = read.head(where, toks)
        nf = where.uint(toks[2], "NumFlows")
        if nf == 0:
            where.bad("a coflow needs at least one flow", "NumFlows")
        if n - 5 != 3 * nf:
            where.bad(f"NumFlows is {nf}, so 5 + 3*{nf} = {5 + 3 * nf} fields are expected, "
                      f"got {n} ({(n - 5) / 3:g} flow triples)", "NumFlows")
        read.reserve(where, nf)
        n_src = where.uint(toks[3], "NumSources")
        n_dst = where.uint(toks[4], "NumDestinations")
        s = where.ports(toks[5::3], "flows[{}].src", num_ports)
        d = where.ports(toks[6::3], "flows[{}].dst", num_ports)
        z = where.sizes(toks[7::3], "flows[{}].size", allow_zero=drop)
        positive = np.flatnonzero(z > 0)  # zero sizes are dropped (or refused) below
        where.in_range(z[positive], "size", "size", "flows[{}].size", positive)
        for name, declared, ports in (("NumSources", n_src, s), ("NumDestinations", n_dst, d)):
            actual = np.unique(ports).size
            if actual != declared:
                where.bad(f"{name} is {declared} but the flows use {actual} distinct "
                          f"{'sources' if name == 'NumSources' else 'destinations'}", name)
        if drop:
            keep = z > 0
            if not keep.all():
                if not keep.any():
                    where.bad(f"all {nf} flows have size 0, so dropping them would leave the "
                              "coflow without flows", "flows")
                dropped[cid] = int(nf - keep.sum())
                s, d, z = s[keep], d[keep], z[keep]
        read.flows(s, d, z)
    meta = _unit_meta(path, FORMAT_NAME, time_unit_ms)
    if drop:
        meta["dropped_zero_size"] = dropped
        meta["dropped_zero_size_total"] = sum(dropped.values())
    return read.build(path, num_ports, capacity, meta)


def write_sincronia(instance: Instance, path: str | Path, *,
                    time_unit_ms: float = DEFAULT_TIME_UNIT_MS,
                    allow_fractional: bool = False) -> None:
    """Write an instance in the Sincronia simulator's trace format.

    ``read_sincronia(path, capacity=c, time_unit_ms=time_unit_ms)`` gives back an equal
    instance (``c`` the instance's capacity), and a file written here is written back byte for
    byte.  Integral sizes are written as integers, others with the shortest float repr.

    Parameters
    ----------
    instance : Instance
    path : str or Path
    time_unit_ms : float
        Arrival ms = release * time_unit_ms, written as the integer that reads back exactly.
    allow_fractional : bool
        The C++ simulator reads sizes with ``%d`` into an ``int``, so by default a size that is
        not an integer in ``1 .. 2**31-1`` is refused; ``True`` writes it anyway (the file then
        reads back here but not in the C++ simulator).

    Raises
    ------
    NotSupportedError
        Naming the coflow and the rule, unless: ingress and egress port counts are equal; all
        capacities are equal; weights are 1 and there are no deadlines; ids are non-negative
        integers; each release is ``a / time_unit_ms`` for an integer ``a`` >= 0; sizes are
        integers the C++ reader can hold (unless ``allow_fractional``).
    InvalidParameterError
        For a bad ``time_unit_ms``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("0", [(3, 0, 5.0), (3, 1, 7.0)])],
    ...                              num_ingress=4, num_egress=4)
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.txt"
    >>> write_sincronia(inst, p)
    >>> p.read_text()
    '4 1\\n0 0 2 1 2 3 0 5 3 1 7\\n'

    References
    ----------
    sincronia-coflow/workload-generator README.md; sincronia-coflow/simulator offlinesim/main.cpp.
    """
    _check_units(1.0, time_unit_ms)
    arrivals = _check_writable(instance, FORMAT_NAME, time_unit_ms=time_unit_ms)
    z = instance.flow_size
    if not allow_fractional:
        bad = np.flatnonzero((z != np.round(z)) | (z > _INT_MAX))
        if bad.size:
            i = int(bad[0])
            k = int(instance.flow_coflow[i])
            rule = (f"cannot write this instance as {FORMAT_NAME}: flow "
                    f"{instance.flow_position[i]} of coflow {instance.coflow_ids[k]!r} has size "
                    f"{float(z[i])!r}, but the C++ simulator reads sizes with %d (integers up "
                    f"to {_INT_MAX})")
            raise NotSupportedError(f"{rule}; write_sincronia(..., allow_fractional=True) in "
                                    "Python writes it anyway", rule=rule,
                                    remedy="allow_fractional")
    src, dst = instance.flow_src.tolist(), instance.flow_dst.tolist()
    if np.all((z == np.round(z)) & (z < 2 ** 53)):
        sizes = list(map(str, z.astype(np.int64).tolist()))
    else:
        sizes = [str(plain_number(v)) for v in z.tolist()]
    ptr = instance.flow_ptr.tolist()
    n_src, n_dst = instance.num_senders.tolist(), instance.num_receivers.tolist()
    out = [f"{instance.num_ingress} {instance.num_coflows}"]
    for k, cid in enumerate(instance.coflow_ids):
        lo, hi = ptr[k], ptr[k + 1]
        triples = " ".join(f"{src[i]} {dst[i]} {sizes[i]}" for i in range(lo, hi))
        out.append(f"{cid} {arrivals[k]} {hi - lo} {n_src[k]} {n_dst[k]} {triples}")
    Path(path).write_text("\n".join(out) + "\n", encoding="utf-8")
