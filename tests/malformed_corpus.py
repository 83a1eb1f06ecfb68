"""The malformed-input corpus: generate it, and run it through the command line.

Every case is a file (or a directory) derived deterministically from three valid seeds -- a
2-coflow instance in each of the three instance formats, and a valid schedule of it in both
schedule formats and both slotted schedule formats (the integral model) -- plus the
``coflowopt`` command that reads it: ``coflowopt info`` for the instance readers (instance JSON,
coflow-benchmark, Sincronia) and ``coflowopt verify SEED FILE`` for the schedule readers
(schedule JSON, schedule ``.npz``, slotted JSON, slotted ``.npz``).  The cases cover
truncations, wrong types, NaN / infinities / -0 / 1e308 / subnormal / negative numbers, values
just outside :mod:`coflowopt.limits`, huge declared counts and shapes, long fractions and
integers, wrong kinds of file (directories, empty and binary files, ``.npy`` and ``.npz`` files,
an instance where a schedule belongs and the reverse), bad UTF-8, deep nesting and duplicate
ids or keys; and a few valid files (the seeds, and values at the edges of the ranges) as
controls.

The contract checked for every case (:func:`check`): the process exits 2 with exactly one line
on standard error that names the file (or the flag) and the rule and holds no traceback, or it
exits 0 or 1 with a JSON verdict on standard output -- within :data:`TIMEOUT` seconds -- and, where
a case says what it expects (an error, a rejection, an acceptance, words of the message), that.

Usage::

    python tests/malformed_corpus.py generate DIR      # writes DIR/manifest.json and the files
    python tests/malformed_corpus.py run DIR           # runs every case, prints a JSON summary

``run`` forks one child process per case from a warm parent (so each case is a real process with
its own exit code, standard streams and time limit, without paying the interpreter start-up each
time); ``tests/test_malformed_corpus.py`` runs it and, in addition, a sample of cases through the
installed ``coflowopt`` console script as a user would.
"""

from __future__ import annotations

import io
import json
import os
import signal
import sys
import time
import zipfile
from pathlib import Path

import numpy as np

#: seconds a case may take (the slowest case takes well under one)
TIMEOUT = 5.0

READERS = ("instance-json", "instance-json-v2", "coflow-benchmark", "sincronia",
           "schedule-json", "schedule-npz", "slotted-json", "slotted-npz")

# ------------------------------------------------------------------------------------ seeds
SEED_INSTANCE = (
    '{"format": "coflowopt-instance", "version": 1, "ingress": [1, 1], "egress": [1, 1], '
    '"coflows": [\n'
    '  {"id": "A", "weight": 1, "release": 0, "deadline": null, '
    '"flows": [[0, 0, 2], [1, 1, 1]]},\n'
    '  {"id": "B", "weight": 2, "release": 1, "deadline": null, "flows": [[1, 0, 3]]}\n'
    ']}\n')
# by hand: A's flows at rate 1 on [0, 2) and [0, 1); B's flow (ingress 1 -> egress 0, size 3,
# released at 1) on [2, 5), when egress 0 is free.  sum w C = 1 * 2 + 2 * 5 = 12.
SEED_SCHEDULE = (
    '{"format": "coflowopt-schedule", "version": 1, "segments": [\n'
    '  {"start": 0, "end": 1, "rates": [[0, 0, 1], [0, 1, 1]]},\n'
    '  {"start": 1, "end": 2, "rates": [[0, 0, 1]]},\n'
    '  {"start": 2, "end": 5, "rates": [[1, 0, 1]]}\n'
    ']}\n')
SEED_VALUE = 12
# version 2 (flows over resources): hosts h0, h1 around one switch s; A sends h0 -> h1 (2) and
# h1 -> h0 (1), B sends h0 -> h1 (3), released at 1
SEED_INSTANCE_V2 = (
    '{"format": "coflowopt-instance", "version": 2, "resources": [{"id": "h0>s", "capacity": 1}, '
    '{"id": "s>h1", "capacity": 2}, {"id": "h1>s", "capacity": 1}, {"id": "s>h0", "capacity": 1}'
    '], "coflows": [\n'
    '  {"id": "A", "weight": 1, "release": 0, "deadline": null, "flows": [{"src": "h0", '
    '"dst": "h1", "size": 2, "path": [0, 1]}, {"src": "h1", "dst": "h0", "size": 1, '
    '"path": [2, 3]}]},\n'
    '  {"id": "B", "weight": 2, "release": 1, "deadline": null, "flows": [{"src": "h0", '
    '"dst": "h1", "size": 3, "path": [0, 1]}]}\n'
    '], "topology": {"kind": "graph", "params": {}, "routing": "given", "seed": null, '
    '"placement": "modulo", "nodes": [\n'
    '  {"id": "h0", "host": true},\n  {"id": "h1", "host": true},\n  {"id": "s", "host": false}'
    '\n], "links": [\n'
    '  {"id": "h0>s", "src": "h0", "dst": "s", "capacity": 1},\n'
    '  {"id": "s>h1", "src": "s", "dst": "h1", "capacity": 2},\n'
    '  {"id": "h1>s", "src": "h1", "dst": "s", "capacity": 1},\n'
    '  {"id": "s>h0", "src": "s", "dst": "h0", "capacity": 1}\n]}}\n')
# the integral model (unit slots): A's flows in slot 0, A's first flow again in slot 1, B's flow
# (released at 1; egress 0 busy in slot 1) in slots 2-4.  sum w C = 1 * 2 + 2 * 5 = 12.
SEED_SLOTTED = (
    '{"format": "coflowopt-slotted-schedule", "version": 1, "slot": 1, "slots": [\n'
    '  [[0, 0, 1], [0, 1, 1]],\n'
    '  [[0, 0, 1]],\n'
    '  [[1, 0, 1]],\n'
    '  [[1, 0, 1]],\n'
    '  [[1, 0, 1]]\n'
    ']}\n')
# coflow 1: mappers 0 and 1 to reducer 2 (10 MB, 5 MB per flow), at 0 ms; coflow 2: mapper 2 to
# reducers 0 and 1, at 100 ms
SEED_COFLOW_BENCHMARK = "3 2\n1 0 2 0 1 1 2:10.0\n2 100 1 2 2 0:4.0 1:6.0\n"
# coflow 0: 3 -> 0 (5 MB) and 3 -> 1 (7 MB); coflow 1: 2 -> 0 (4 MB), at 50 ms
SEED_SINCRONIA = "4 2\n0 0 2 1 2 3 0 5 3 1 7\n1 50 1 1 1 2 0 4\n"


def seed_npz_arrays() -> dict[str, np.ndarray]:
    """The seed schedule as the ``.npz`` piece columns."""
    return {"format": np.array("coflowopt-schedule-pieces"), "version": np.array(1),
            "num_flows": np.array(3), "num_coflows": np.array(2),
            "flow": np.array([0, 1, 2]), "coflow": np.array([0, 0, 1]),
            "flow_position": np.array([0, 1, 0]), "start": np.array([0.0, 0.0, 2.0]),
            "end": np.array([2.0, 1.0, 5.0]), "rate": np.array([1.0, 1.0, 1.0])}


def seed_slotted_arrays() -> dict[str, np.ndarray]:
    """The seed slotted schedule as the ``.npz`` entry columns."""
    return {"format": np.array("coflowopt-slotted-schedule-entries"), "version": np.array(1),
            "slot": np.array(1.0), "num_flows": np.array(3), "num_coflows": np.array(2),
            "slot_index": np.array([0, 0, 1, 2, 3, 4]), "flow": np.array([0, 1, 0, 2, 2, 2]),
            "coflow": np.array([0, 0, 0, 1, 1, 1]), "flow_position": np.array([0, 1, 0, 0, 0, 0]),
            "units": np.array([1, 1, 1, 1, 1, 1])}


def npz_bytes(arrays: dict[str, np.ndarray], compress: bool = False) -> bytes:
    """What ``np.savez`` (``np.savez_compressed``) writes, with a fixed time stamp on every
    member (``np.savez`` stamps the current time, so its bytes change from run to run)."""
    return zip_of({f"{k}.npy": npy_bytes(v) for k, v in arrays.items()}, compress)


def npy_bytes(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, a)
    return buf.getvalue()


def zip_of(members: dict[str, bytes], compress: bool = False) -> bytes:
    buf = io.BytesIO()
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(buf, "w", compression=method) as zf:
        for name, data in members.items():
            zf.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data,
                        compress_type=method)
    return buf.getvalue()


def npy_header_only(shape: tuple, dtype: str = "<f8", data: bytes = b"") -> bytes:
    """A ``.npy`` member that declares ``shape`` but holds only ``data``."""
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": dtype, "fortran_order": False,
                                               "shape": shape})
    return buf.getvalue() + data


def doc(text: str):
    return json.loads(text)


def dumps(d) -> str:
    return json.dumps(d)


# ------------------------------------------------------------------------------------ cases
class Cases:
    """Collects the cases of one reader: a file's bytes (or a directory), the command and what
    is expected."""

    def __init__(self, reader: str):
        self.reader = reader
        self.cases: list[dict] = []

    def add(self, name: str, content: bytes | str | None, *, expect: str = "error",
            message: tuple[str, ...] = (), ext: str | None = None, extra: tuple = ()):
        """``content`` None makes a directory; ``expect`` is ``error`` (exit 2), ``rejected``
        (exit 1), ``ok`` (exit 0), ``verdict`` (exit 0 or 1) or ``any`` (one of those, each
        under its contract); ``message`` are words the error must contain (besides the file's
        name)."""
        ext = ext or {"instance-json": ".json", "instance-json-v2": ".json",
                      "coflow-benchmark": ".txt", "sincronia": ".txt",
                      "schedule-json": ".json", "schedule-npz": ".npz",
                      "slotted-json": ".json", "slotted-npz": ".npz"}[self.reader]
        slug = "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-")
        fname = f"{self.reader}--{len(self.cases):03d}-{slug}{ext}"
        if isinstance(content, str):
            content = content.encode("utf-8")
        self.cases.append({"reader": self.reader, "name": name, "file": fname,
                           "content": content, "expect": expect, "message": list(message),
                           "extra": list(extra)})


def _text_mutations(c: Cases, seed: str, rng: np.random.Generator) -> None:
    """Cases every text reader gets: kinds of file, encodings, truncations."""
    c.add("empty file", "")
    c.add("directory", None, message=("directory",))
    c.add("binary garbage", rng.integers(0, 256, 300, dtype=np.uint8).tobytes())
    c.add("NUL bytes", seed.encode()[:20] + b"\x00\x00" + seed.encode()[20:])
    c.add("bad UTF-8 inside", seed.encode()[:30] + b"\xff\xfe" + seed.encode()[30:])
    c.add("UTF-16 encoded", seed.encode("utf-16"))
    c.add(".npy file", npy_bytes(np.arange(6.0)), message=(".npy",))
    c.add(".npz file", npz_bytes(seed_npz_arrays()), message=("zip",))
    # a truncation may happen to leave a valid file: an error or a verdict
    for frac in (0.1, 0.33, 0.5, 0.77, 0.95):
        c.add(f"truncated at {frac:.0%}", seed[:int(len(seed) * frac)], expect="any")
    c.add("last byte cut", seed[:-2], expect="any")


def instance_json_cases(rng) -> Cases:
    c = Cases("instance-json")
    base = SEED_INSTANCE
    c.add("seed (control)", base, expect="ok")
    _text_mutations(c, base, rng)

    def edit(fn, name, expect="error", message=()):
        d = doc(base)
        fn(d)
        c.add(name, dumps(d), expect=expect, message=message)

    def size(v):
        return lambda d: d["coflows"][0]["flows"][0].__setitem__(2, v)

    c.add("size NaN", base.replace("[0, 0, 2]", "[0, 0, NaN]"), message=("NaN",))
    c.add("size Infinity", base.replace("[0, 0, 2]", "[0, 0, Infinity]"))
    c.add("size 1e999 literal", base.replace("[0, 0, 2]", "[0, 0, 1e999]"))
    edit(size(-0.0), "size -0", message=("> 0",))
    edit(size(0), "size 0", message=("> 0",))
    edit(size(-2), "size negative", message=("> 0",))
    # the case: sizes near 1e308 made `info` overflow in fsum
    edit(lambda d: [f.__setitem__(2, 1.5e308) for cf in d["coflows"] for f in cf["flows"]],
         "sizes near 1e308", message=("SIZE_MIN..SIZE_MAX",))
    edit(size(5e-324), "size subnormal", message=("SIZE_MIN..SIZE_MAX",))
    edit(size(1e-10), "size below SIZE_MIN", message=("SIZE_MIN..SIZE_MAX",))
    edit(size(1e-9), "size at SIZE_MIN (control)", expect="ok")
    edit(size(1.0000001e12), "size above SIZE_MAX", message=("SIZE_MIN..SIZE_MAX",))
    edit(size("2"), "size a string", message=("number",))
    edit(size(True), "size a boolean", message=("number",))
    edit(size(None), "size null", message=("number",))
    edit(size(int("9" * 400)), "size a 400-digit integer")
    c.add("size a 5000-digit integer", base.replace("[0, 0, 2]", "[0, 0, " + "7" * 5000 + "]"),
          message=("digits",))
    edit(lambda d: d["ingress"].__setitem__(0, 0), "capacity 0", message=("capacity",))
    edit(lambda d: d["egress"].__setitem__(1, 1e13), "capacity 1e13",
         message=("CAPACITY_MIN..CAPACITY_MAX",))
    edit(lambda d: d["egress"].__setitem__(1, 1e-300), "capacity 1e-300",
         message=("CAPACITY_MIN..CAPACITY_MAX",))
    edit(lambda d: d.__setitem__("ingress", [1] * 100_001), "100,001 ingress ports",
         message=("MAX_PORTS",))
    edit(lambda d: d["coflows"][1].__setitem__("weight", -1), "weight negative",
         message=("weight",))
    edit(lambda d: d["coflows"][1].__setitem__("weight", 1e-320), "weight subnormal",
         message=("WEIGHT_MIN..WEIGHT_MAX",))
    edit(lambda d: d["coflows"][1].__setitem__("weight", 1e10), "weight 1e10",
         message=("WEIGHT_MIN..WEIGHT_MAX",))
    edit(lambda d: d["coflows"][1].__setitem__("release", 1e36), "release 1e36",
         message=("TIME_MIN..TIME_MAX",))
    edit(lambda d: d["coflows"][1].__setitem__("release", -1e-200), "release -1e-200",
         message=("release",))
    edit(lambda d: d["coflows"][1].__setitem__("deadline", 0.5), "deadline before release",
         message=("deadline",))
    # sizes 1e-9 and 1e9 together: ratio 1e18, beyond DYNAMIC_RANGE_MAX
    edit(lambda d: (size(1e-9)(d), d["coflows"][1]["flows"][0].__setitem__(2, 1e9)),
         "sizes 1e-9 and 1e9 together", message=("DYNAMIC_RANGE_MAX",))
    edit(lambda d: d["coflows"][0]["flows"][0].__setitem__(0, 10 ** 30), "port index 1e30",
         message=("out of range",))
    edit(lambda d: d["coflows"][0]["flows"][0].__setitem__(1, -1), "port index -1",
         message=("out of range",))
    edit(lambda d: d["coflows"][1].__setitem__("id", "A"), "duplicate coflow id",
         message=("duplicate",))
    c.add("duplicate key", base.replace('"weight": 2,', '"weight": 2, "weight": 3,'),
          message=("duplicate key",))
    edit(lambda d: d["coflows"][0].__setitem__("size", 1), "unknown key", message=("unknown",))
    edit(lambda d: d.__setitem__("version", 2), "version 2", message=("version",))
    edit(lambda d: d.pop("format"), "format missing", message=("format",))
    edit(lambda d: d["coflows"][0].__setitem__("flows", []), "coflow without flows")
    edit(lambda d: d.__setitem__("coflows", {}), "coflows an object")
    c.add("deep nesting", '{"format": "coflowopt-instance", "coflows": ' + "[" * 100_000 +
          "]" * 100_000 + "}", message=("nest",))
    c.add("schedule given as instance", SEED_SCHEDULE, message=("schedule",))
    c.add("trace given as instance", SEED_COFLOW_BENCHMARK, message=("text file",))
    return c


def instance_json_v2_cases(rng) -> Cases:
    """Version 2 (flows over resources): paths, resources, capacities, hosts and the topology
    record.  Every error names the field (``coflows[0].flows[1].path[1]``, ``resources[1]
    .capacity``, ``topology.links[0].src``) and the rule."""
    c = Cases("instance-json-v2")
    base = SEED_INSTANCE_V2
    c.add("seed (control)", base, expect="ok")
    _text_mutations(c, base, rng)

    def edit(fn, name, expect="error", message=()):
        d = doc(base)
        fn(d)
        c.add(name, dumps(d), expect=expect, message=message)

    def flow(k, j, key, value):
        return lambda d: d["coflows"][k]["flows"][j].__setitem__(key, value)

    def cap(i, value):
        return lambda d: (d["resources"][i].__setitem__("capacity", value),
                          d["topology"]["links"][i].__setitem__("capacity", value))

    F01, F00 = "coflows[0].flows[1]", "coflows[0].flows[0]"
    # paths
    edit(flow(0, 1, "path", [2, 4]), "path index out of range",
         message=(f"{F01}.path[1]", "out of range"))
    edit(flow(0, 1, "path", [-1, 3]), "path index -1", message=(f"{F01}.path[0]", "out of range"))
    edit(flow(0, 1, "path", [2, 10 ** 30]), "path index 1e30",
         message=(f"{F01}.path[1]", "out of range"))
    edit(flow(0, 0, "path", []), "empty path", message=(f"{F00}.path", "non-empty"))
    edit(flow(0, 0, "path", [0, 1, 0]), "repeated resource in a path",
         message=(f"{F00}.path[2]", "twice"))
    edit(flow(0, 0, "path", "0,1"), "path a string", message=(f"{F00}.path",))
    edit(flow(0, 0, "path", None), "path null", message=(f"{F00}.path",))
    edit(flow(0, 0, "path", [0, 1.0]), "path index a float",
         message=(f"{F00}.path[1]", "integer"))
    edit(flow(0, 0, "path", [True, 1]), "path index a boolean",
         message=(f"{F00}.path[0]", "integer"))
    edit(flow(0, 0, "path", ["0", 1]), "path index a string",
         message=(f"{F00}.path[0]", "integer"))
    edit(flow(0, 0, "path", [[0], 1]), "path index a list", message=(f"{F00}.path[0]",))
    edit(lambda d: d["coflows"][1]["flows"][0].pop("path"), "path missing",
         message=("coflows[1].flows[0]", "path"))
    c.add("path nested 100,000 deep", base.replace('"path": [2, 3]', '"path": ' + "[" * 100_000 +
                                                   "]" * 100_000), message=("nest",))
    # capacities
    edit(cap(1, 0), "capacity 0", message=("resources[1].capacity", "> 0"))
    edit(cap(1, -2), "capacity negative", message=("resources[1].capacity", "> 0"))
    c.add("capacity Infinity", base.replace('"s>h1", "capacity": 2}, {"id": "h1>s"',
                                            '"s>h1", "capacity": Infinity}, {"id": "h1>s"'),
          message=("Infinity",))
    c.add("capacity 1e999", base.replace('"s>h1", "capacity": 2}, {"id": "h1>s"',
                                         '"s>h1", "capacity": 1e999}, {"id": "h1>s"'),
          message=("resources[1].capacity", "finite"))
    c.add("capacity NaN", base.replace('"s>h1", "capacity": 2}, {"id": "h1>s"',
                                       '"s>h1", "capacity": NaN}, {"id": "h1>s"'),
          message=("NaN",))
    edit(cap(1, "2"), "capacity a string", message=("resources[1].capacity", "number"))
    edit(cap(1, None), "capacity null", message=("resources[1].capacity", "number"))
    edit(cap(1, True), "capacity a boolean", message=("resources[1].capacity", "number"))
    edit(cap(1, 1e13), "capacity 1e13",
         message=("resources[1].capacity", "CAPACITY_MIN..CAPACITY_MAX"))
    edit(cap(1, 5e-324), "capacity subnormal",
         message=("resources[1].capacity", "CAPACITY_MIN..CAPACITY_MAX"))
    edit(cap(1, 1e-9), "capacity at CAPACITY_MIN (control)", expect="ok")
    edit(lambda d: d["resources"][2].pop("capacity"), "capacity missing",
         message=("resources[2].capacity", "capacity"))
    # resources
    edit(lambda d: d.pop("resources"), "resources missing", message=("resources", "non-empty"))
    edit(lambda d: d.__setitem__("resources", []), "resources empty",
         message=("resources", "non-empty"))
    edit(lambda d: d.__setitem__("resources", {"h0>s": 1}), "resources an object",
         message=("resources",))
    edit(lambda d: d["resources"].__setitem__(2, 1.0), "resource a number",
         message=("resources[2]", "object"))
    edit(lambda d: (d["resources"][1].__setitem__("id", "h0>s"),
                    d["topology"]["links"][1].__setitem__("id", "h0>s")),
         "duplicate resource id", message=("resources[1].id", "duplicate"))
    edit(lambda d: d["resources"][0].__setitem__("id", ""), "resource id empty",
         message=("resources[0].id", "non-empty"))
    edit(lambda d: d["resources"][0].__setitem__("bandwidth", 1), "resource unknown key",
         message=("resources[0]", "unknown"))
    c.add("resource duplicate key", base.replace('"capacity": 2}', '"capacity": 2, '
                                                 '"capacity": 3}', 1),
          message=("duplicate key",))
    # hosts (src / dst)
    edit(flow(0, 0, "src", "h9"), "src an unknown host", message=(f"{F00}.src", "not a host"))
    edit(flow(1, 0, "dst", "s"), "dst a switch", message=("coflows[1].flows[0].dst", "not a host"))
    edit(flow(0, 1, "dst", ""), "dst empty", message=(f"{F01}.dst", "non-empty"))
    edit(flow(0, 1, "src", None), "src null", message=(f"{F01}.src",))
    edit(flow(0, 1, "src", ["h0"]), "src a list", message=(f"{F01}.src",))
    # flows and coflows
    edit(lambda d: d["coflows"][0]["flows"].__setitem__(0, [0, 1, 2]),
         "flow a version-1 triple", message=(F00, "object"))
    edit(flow(0, 0, "rate", 1), "flow unknown key", message=(F00, "unknown"))
    edit(flow(0, 1, "size", 0), "size 0", message=(f"{F01}.size", "> 0"))
    edit(flow(0, 1, "size", "1"), "size a string", message=(f"{F01}.size", "number"))
    edit(flow(0, 1, "size", 1.5e308), "size 1.5e308",
         message=(f"{F01}.size", "SIZE_MIN..SIZE_MAX"))
    edit(lambda d: d["coflows"][1].__setitem__("deadline", 0.5), "deadline before release",
         message=("coflows[1]", "deadline"))
    edit(lambda d: d["coflows"][1].__setitem__("id", "A"), "duplicate coflow id",
         message=("duplicate",))
    edit(lambda d: d["coflows"][1].__setitem__("flows", []), "coflow without flows",
         message=("coflows[1].flows",))
    # the topology record
    edit(lambda d: d["topology"]["links"].pop(), "topology: fewer links than resources",
         message=("topology.links", "one link per resource"))
    edit(lambda d: d["topology"]["links"][1].__setitem__("capacity", 1), "topology: link "
         "capacity differs from its resource", message=("topology.links[1].capacity",
                                                        "differs"))
    edit(lambda d: d["topology"]["links"][0].__setitem__("id", "x"), "topology: link id differs "
         "from its resource", message=("topology.links[0].id", "differs"))
    edit(lambda d: d["topology"]["links"][0].__setitem__("src", "nowhere"),
         "topology: link from an unknown node", message=("topology.links[0].src", "not a node"))
    edit(lambda d: d["topology"]["nodes"][1].__setitem__("id", "h0"),
         "topology: duplicate node", message=("topology.nodes[1].id", "duplicate"))
    edit(lambda d: d["topology"]["nodes"][0].__setitem__("host", "yes"),
         "topology: host flag a string", message=("topology.nodes[0]",))
    edit(lambda d: d["topology"].__setitem__("nodes", {"h0": True}), "topology: nodes an object",
         message=("topology.nodes",))
    edit(lambda d: d["topology"]["links"].__setitem__(0, "h0>s"), "topology: link a string",
         message=("topology.links[0]",))
    edit(lambda d: d["topology"].__setitem__("wiring", 1), "topology: unknown key",
         message=("topology", "unknown"))
    edit(lambda d: d["topology"].__setitem__("params", [4]), "topology: params a list",
         message=("topology.params",))
    edit(lambda d: d.__setitem__("topology", "fat-tree"), "topology a string",
         message=("topology",))
    # versions and shapes
    edit(lambda d: d.__setitem__("version", 3), "version 3", message=("version",))
    edit(lambda d: d.__setitem__("version", "2"), "version a string", message=("version",))
    edit(lambda d: (d.pop("resources"), d.__setitem__("ingress", [1, 1]),
                    d.__setitem__("egress", [1, 1])), "version 2 with ingress and egress",
         message=("version",))
    edit(lambda d: d.__setitem__("ingress", [1, 1]), "version 2 with an ingress list",
         message=("unknown",))
    # a path of MAX_PATH_LENGTH resources, and one more (on 70 resources, no topology record)
    long = doc(base)
    long.pop("topology")
    long["resources"] = [{"id": f"r{i}", "capacity": 1} for i in range(70)]
    long["coflows"][0]["flows"][0]["path"] = list(range(64))
    c.add("path of 64 resources (control)", dumps(long), expect="ok")
    long["coflows"][0]["flows"][0]["path"] = list(range(65))
    c.add("path of 65 resources", dumps(long), message=(f"{F00}.path", "MAX_PATH_LENGTH"))
    # a file the writer made from a generated fat-tree instance (control)
    c.add("generated fat-tree k=4 (control)", _generated_fat_tree(), expect="ok")
    c.add("instance v1 given as v2 (control)", SEED_INSTANCE, expect="ok")
    c.add("schedule given as instance", SEED_SCHEDULE, message=("schedule",))
    return c


def _generated_fat_tree() -> str:
    from coflowopt.formats import dumps_instance
    from coflowopt.generators import fat_tree_coflows
    return dumps_instance(fat_tree_coflows(4, 3, seed=0))


def trace_cases(reader: str, seed: str, rng) -> Cases:
    c = Cases(reader)
    fb = reader == "coflow-benchmark"
    c.add("seed (control)", seed, expect="ok")
    _text_mutations(c, seed, rng)
    lines = seed.splitlines()

    def line2(text, name, expect="error", message=()):
        c.add(name, "\n".join([lines[0], text, *lines[2:]]) + "\n", expect=expect,
              message=message)

    ports = lines[0].split()[0]

    def header(text, name, message=()):
        c.add(name, "\n".join([text.replace("P", ports), *lines[1:]]) + "\n",
              message=message)

    c.add("JSON instance given as trace", SEED_INSTANCE, message=("JSON",))
    header("P", "header one field", message=("header",))
    header("P 2 1", "header three fields", message=("header",))
    header("x 2", "header not a number")
    header("-3 2", "header negative")
    header("1000001 2", "header a million ports", message=("MAX_PORTS",))
    header("P 100000000000", "header 1e11 coflows", message=("MAX_COFLOWS",))
    header("P 5", "header more coflows than lines", message=("only 2",))
    header("P 1", "header fewer coflows than lines")
    header("P " + "9" * 5000, "header 5000-digit count")
    if fb:
        tail = " ".join(lines[1].split()[1:])
        line2("1 0 2 0 1 1000000 2:10.0", "a million reducers declared, one present",
              message=("num_reducers",))
        line2("1 0 1000000 0 1 1 2:10.0", "a million mappers declared, two present",
              message=("num_mappers",))
        line2("1 0 2 0 1 1 2:NaN", "MB NaN")
        line2("1 0 2 0 1 1 2:inf", "MB inf")
        line2("1 0 2 0 1 1 2:1e308", "MB 1e308", message=("SIZE_MIN..SIZE_MAX",))
        line2("1 0 2 0 1 1 2:1e-320", "MB subnormal")
        line2("1 0 2 0 1 1 2:-0", "MB -0", message=("> 0",))
        line2("1 0 2 0 1 1 2:-5", "MB negative")
        line2("1 0 2 0 1 1 2:2e-9", "MB / 2 mappers at SIZE_MIN (control)", expect="ok")
        line2("1 0 2 0 1 1 2:1.5e-9", "MB / 2 mappers below SIZE_MIN",
              message=("SIZE_MIN..SIZE_MAX",))
        line2("1 0 2 0 1 1 2", "reducer without MB")
        line2("1 0 2 0 1 1 7:10.0", "reducer port out of range", message=("out of range",))
        line2("1 0 2 0 0 1 2:10.0", "duplicate mapper", message=("duplicate",))
        line2("2 " + tail, "duplicate coflow id", message=("duplicate",))
        line2("1 " + "9" * 30 + " 2 0 1 1 2:10.0", "arrival 1e30 ms")
        line2("1 1.5 2 0 1 1 2:10.0", "arrival not an integer")
        line2("1 0 2 0 1 1 2:" + "1" * 5000, "MB with 5000 digits")
    else:
        line2("0 0 2 1 2 3 0 5 3 1", "one token short", message=("NumFlows",))
        line2("0 0 1000000 1 2 3 0 5 3 1 7", "a million flows declared, two present",
              message=("NumFlows",))
        line2("0 0 2 1 2 3 0 NaN 3 1 7", "size NaN")
        line2("0 0 2 1 2 3 0 inf 3 1 7", "size inf")
        line2("0 0 2 1 2 3 0 1e308 3 1 7", "size 1e308", message=("SIZE_MIN..SIZE_MAX",))
        line2("0 0 2 1 2 3 0 1e-320 3 1 7", "size subnormal", message=("SIZE_MIN..SIZE_MAX",))
        line2("0 0 2 1 2 3 0 -0 3 1 7", "size -0", message=("> 0",))
        line2("0 0 2 1 2 3 0 0 3 1 7", "size 0", message=("> 0",))
        line2("0 0 2 1 2 3 0 -5 3 1 7", "size negative")
        line2("0 0 2 1 2 3 0 1e-9 3 1 1e-9", "sizes at SIZE_MIN (control)", expect="ok")
        line2("0 0 2 2 2 3 0 5 3 1 7", "NumSources wrong", message=("NumSources",))
        line2("0 0 2 1 2 3 9 5 3 1 7", "port out of range", message=("out of range",))
        line2("1 0 2 1 2 3 0 5 3 1 7", "duplicate coflow id", message=("duplicate",))
        line2("0 " + "9" * 30 + " 2 1 2 3 0 5 3 1 7", "arrival 1e30 ms")
        line2("0 0 2 1 2 3 0 " + "1" * 5000 + " 3 1 7", "size with 5000 digits")
    # only ASCII digits and ASCII whitespace, as the reference readers (Java's \\s+ and
    # Double.parseDouble, C++'s >>) take them; Python's float() and str.split() take more
    if fb:
        line2("1 0 2 0 1 1 2:\uff11\uff10", "MB in fullwidth digits", message=("decimal",))
        line2("1 0 2 0 1 1 2:\u0661\u0660.0", "MB in Arabic-Indic digits", message=("decimal",))
        line2("1\u00a00 2 0 1 1 2:10.0", "no-break space between fields", message=("U+00A0",))
        line2("1 0 2 0 1 1\u20032:10.0", "em space between fields", message=("U+2003",))
        line2("1 0 2 0 1 1\x1f2:10.0", "unit separator between fields", message=("U+001F",))
    else:
        line2("0 0 2 1 2 3 0 \uff15 3 1 7", "size in fullwidth digits", message=("decimal",))
        line2("0 0 2 1 2 3 0 \u0665 3 1 7", "size in Arabic-Indic digits", message=("decimal",))
        line2("0\u00a00 2 1 2 3 0 5 3 1 7", "no-break space between fields", message=("U+00A0",))
        line2("0 0 2 1 2 3 0 5 3 1\u30007", "ideographic space between fields",
              message=("U+3000",))
        line2("0 0 2 1 2 3 0 5 3 1 7\x1c", "file separator ending a line", message=("U+001C",))
    c.add("ideographic space on a line after the last coflow", seed + "\u3000\n",
          message=("U+3000",))
    # the command-line units: a capacity or time unit that takes values out of range
    c.add("--capacity 1e-300", seed, extra=("--capacity", "1e-300"),
          message=("capacity", "CAPACITY_MIN"))
    c.add("--capacity nan", seed, extra=("--capacity", "nan"), message=("capacity",))
    c.add("--time-unit-ms 1e-300", seed, extra=("--time-unit-ms", "1e-300"),
          message=("TIME_MIN..TIME_MAX",))
    return c


def big_trace_cases(c: Cases) -> None:
    """Declared counts that would allocate far more than the file holds."""
    fb = c.reader == "coflow-benchmark"
    ports = 100_000
    if fb:
        # every location present: 1e5 mappers x 1e5 reducers = 1e10 flows from 1.2 MB of text
        locs = " ".join(map(str, range(ports)))
        red = " ".join(f"{i}:1" for i in range(ports))
        c.add("1e5 mappers x 1e5 reducers (1e10 flows)",
              f"{ports} 1\n1 0 {ports} {locs} {ports} {red}\n", message=("MAX_FLOWS",))
        # the case: a line with a million reducers (all present)
        red = " ".join(f"{i}:1" for i in range(1_000_000))
        c.add("a million reducers, all present",
              f"1000000 1\n1 0 1 0 1000000 {red}\n", message=("MAX_PORTS",))
        red = " ".join(f"{i}:1" for i in range(ports))
        c.add("1e5 reducers, all present (control)", f"{ports} 1\n1 0 1 0 {ports} {red}\n",
              expect="ok")
    else:
        trip = " ".join(f"0 {i} 1" for i in range(ports))
        c.add("1e5 flows on one line (control)", f"{ports} 1\n0 0 {ports} 1 {ports} {trip}\n",
              expect="ok")


def schedule_json_cases(rng) -> Cases:
    c = Cases("schedule-json")
    base = SEED_SCHEDULE
    c.add("seed (control)", base, expect="ok")
    _text_mutations(c, base, rng)

    def seg(i, key, value, name, expect="error", message=()):
        d = doc(base)
        d["segments"][i][key] = value
        c.add(name, dumps(d), expect=expect, message=message)

    def rate(value, name, expect="error", message=()):
        d = doc(base)
        d["segments"][2]["rates"][0][2] = value
        c.add(name, dumps(d), expect=expect, message=message)

    c.add("end NaN", base.replace('"end": 5', '"end": NaN'), message=("NaN",))
    c.add("end Infinity", base.replace('"end": 5', '"end": Infinity'))
    c.add("end 1e999", base.replace('"end": 5', '"end": 1e999'), message=("finite",))
    seg(2, "end", 1e36, "end 1e36", message=("TIME_MIN..TIME_MAX",))
    seg(2, "end", 1e308, "end 1e308", message=("TIME_MIN..TIME_MAX",))
    seg(0, "start", -0.0, "start -0 (control)", expect="ok")
    seg(0, "start", 5e-324, "start subnormal", message=("TIME_MIN..TIME_MAX",))
    seg(2, "end", "5/1", "end as fraction (control)", expect="ok")
    # the case: a 5,000-digit fraction crashed verify with Python's digit limit
    seg(2, "end", "5" + "0" * 4999 + "/1" + "0" * 4999, "end a 5000-digit fraction",
        message=("digits", "MAX_NUMBER_DIGITS"))
    c.add("end a 5000-digit integer", base.replace('"end": 5', '"end": 5' + "0" * 4999),
          message=("digits",))
    seg(2, "end", "5/0", "zero denominator", message=("denominator",))
    seg(2, "end", "five", "end a word")
    seg(2, "end", None, "end null")
    seg(2, "end", [5], "end a list")
    rate(-1, "negative rate", expect="rejected")
    rate(2, "rate above capacity", expect="rejected")
    rate(1e20, "rate 1e20", message=("RATE_MIN..RATE_MAX",))
    rate(1e-320, "rate subnormal", message=("RATE_MIN..RATE_MAX",))
    rate("1/3", "rate 1/3 (undersends)", expect="rejected")
    seg(2, "start", 6, "start after end", expect="rejected")
    seg(1, "rates", [[0, 0, 1], [0, 0, 1]], "one flow twice in a segment", expect="rejected")
    seg(2, "rates", [[5, 0, 1]], "coflow position out of range", message=("coflow position",))
    seg(2, "rates", [[1, 9, 1]], "flow position out of range", message=("flow position",))
    seg(2, "rates", [[1, 0]], "entry too short")
    seg(2, "extra", 1, "unknown segment key", message=("unknown",))
    c.add("duplicate key", base.replace('"start": 2,', '"start": 2, "start": 3,'),
          message=("duplicate key",))
    c.add("deep nesting", '{"format": "coflowopt-schedule", "version": 1, "segments": ' +
          "[" * 100_000 + "]" * 100_000 + "}", message=("nest",))
    c.add("instance given as schedule", SEED_INSTANCE, message=("instance",))
    c.add("trace given as schedule", SEED_SINCRONIA, message=("text file",))
    c.add("50,000 segments that undersend (control: a verdict in seconds)",
          '{"format": "coflowopt-schedule", "version": 1, "segments": [\n' +
          ",\n".join(f'  {{"start": {i}, "end": {i + 1}, "rates": [[0, 0, 1e-6]]}}'
                     for i in range(50_000)) + "\n]}\n", expect="rejected")
    return c


def schedule_npz_cases(rng) -> Cases:
    c = Cases("schedule-npz")
    good = seed_npz_arrays()
    c.add("seed (control)", npz_bytes(good), expect="ok")
    c.add("seed compressed (control)", npz_bytes(good, compress=True), expect="ok")

    def arrays(name, expect="error", message=(), **changes):
        a = {**good, **changes}
        a = {k: v for k, v in a.items() if v is not None}
        c.add(name, npz_bytes(a), expect=expect, message=message)

    c.add("empty file", b"", message=("empty",))
    c.add("directory", None, message=("directory",))
    # the case: a .npy given as a schedule crashed the npz reader
    c.add(".npy file", npy_bytes(np.arange(6.0)), message=(".npy",))
    c.add("JSON schedule named .npz", SEED_SCHEDULE, message=("JSON",))
    c.add("text", "hello\n", message=("text",))
    c.add("binary garbage", rng.integers(0, 256, 300, dtype=np.uint8).tobytes())
    c.add("zip magic then garbage", b"PK\x03\x04" + rng.integers(0, 256, 200, np.uint8).tobytes())
    whole = npz_bytes(good)
    for frac in (0.2, 0.5, 0.9):
        c.add(f"truncated at {frac:.0%}", whole[:int(len(whole) * frac)])
    # the case: an npz declaring a 1e11-element array made verify allocate 745 GiB
    members = {f"{k}.npy": npy_bytes(v) for k, v in good.items()}
    c.add("declares 1e11 starts", zip_of({**members, "start.npy": npy_header_only(
        (100_000_000_000,), data=b"\0" * 24)}), message=("declares shape",))
    c.add("declares 3 starts, holds 2", zip_of({**members, "start.npy": npy_header_only(
        (3,), data=b"\0" * 16)}), message=("declares shape",))
    c.add("pickled objects", zip_of({**members, "rate.npy": npy_header_only(
        (3,), dtype="|O", data=b"\0" * 24)}), message=("pickles",))
    c.add("member not .npy", zip_of({**members, "notes.txt": b"hello"}), message=("member",))
    c.add("200 members", zip_of({**members, **{f"x{i}.npy": npy_bytes(np.zeros(1))
                                             for i in range(200)}}), message=("members",))
    arrays("start missing", start=None, message=("missing",))
    arrays("extra array", extra=np.zeros(3), message=("unknown",))
    arrays("format wrong", format=np.array("coflowopt-schedule"), message=("format",))
    arrays("version 2", version=np.array(2), message=("version",))
    arrays("num_flows wrong", num_flows=np.array(4), message=("num_flows",))
    arrays("start 2-d", start=np.zeros((3, 1)), message=("1-d",))
    arrays("lengths differ", rate=np.ones(2), message=("one entry per piece",))
    arrays("start complex", start=np.zeros(3, complex), message=("dtype",))
    arrays("start strings", start=np.array(["0", "0", "2"]), message=("dtype",))
    arrays("start NaN", start=np.array([0.0, np.nan, 2.0]), message=("finite",))
    arrays("rate inf", rate=np.array([1.0, np.inf, 1.0]), message=("finite",))
    arrays("rate subnormal", rate=np.array([1.0, 1e-320, 1.0]), message=("RATE_MIN..RATE_MAX",))
    arrays("rate 1e308", rate=np.array([1.0, 1e308, 1.0]), message=("RATE_MIN..RATE_MAX",))
    arrays("end 1e308", end=np.array([2.0, 1.0, 1e308]), message=("TIME_MIN..TIME_MAX",))
    arrays("flow out of range", flow=np.array([0, 1, 7]), message=("flow",))
    arrays("flow_position out of range", flow_position=np.array([0, 5, 0]),
           message=("flow position",))
    arrays("coflow negative", coflow=np.array([0, -1, 1]), message=("coflow position",))
    arrays("flow inconsistent", flow=np.array([1, 0, 2]), message=("flow_ptr",))
    arrays("negative rate", expect="rejected", rate=np.array([1.0, 1.0, -1.0]))
    arrays("start after end", expect="rejected", start=np.array([0.0, 0.0, 6.0]))
    arrays("rates as float32 (control)", expect="ok", rate=np.ones(3, np.float32))
    return c


def slotted_json_cases(rng) -> Cases:
    """The integral model's slotted schedules (``coflowopt verify`` picks the integral verifier
    from the document's ``format``)."""
    c = Cases("slotted-json")
    base = SEED_SLOTTED
    c.add("seed (control)", base, expect="ok")
    _text_mutations(c, base, rng)

    def top(key, value, name, expect="error", message=()):
        d = doc(base)
        if value is None:
            del d[key]
        else:
            d[key] = value
        c.add(name, dumps(d), expect=expect, message=message)

    def entry(t, j, k, value, name, expect="error", message=()):
        d = doc(base)
        d["slots"][t][j][k] = value
        c.add(name, dumps(d), expect=expect, message=message)

    def slots(change, name, expect="error", message=()):
        d = doc(base)
        change(d["slots"])
        c.add(name, dumps(d), expect=expect, message=message)

    top("version", 2, "version 2", message=("version",))
    top("format", "coflowopt-slotted", "format misspelt", message=("format",))
    top("slot", None, "slot missing", message=("missing",))
    top("extra", 1, "unknown top-level key", message=("unknown",))
    top("slot", 0, "slot 0", message=("slot", "> 0"))
    top("slot", -1, "slot negative", message=("slot", "> 0"))
    top("slot", "1", "slot a string", message=("slot",))
    top("slot", 1e36, "slot 1e36", message=("TIME_MIN..TIME_MAX",))
    top("slot", 5e-324, "slot subnormal", message=("TIME_MIN..TIME_MAX",))
    c.add("slot 1e999", base.replace('"slot": 1,', '"slot": 1e999,'), message=("finite",))
    c.add("slot NaN", base.replace('"slot": 1,', '"slot": NaN,'), message=("NaN",))
    top("slot", 1e35, "5 slots of 1e35 end beyond TIME_MAX", message=("TIME_MAX",))
    top("slot", 0.5, "slot 0.5: half units per slot", message=("whole units",))
    top("slot", 2, "slot 2 (control)", expect="ok")
    top("slots", {"0": []}, "slots an object", message=("slots",))
    slots(lambda s: s.__setitem__(1, {"a": 1}), "a slot an object", message=("slots[1]",))
    entry(2, 0, 2, 1.0, "units 1.0", message=("whole",))
    entry(2, 0, 2, -1, "units negative", message=(">= 0",))
    entry(2, 0, 2, "1", "units a string", message=("slots[2][0][2]",))
    entry(2, 0, 2, True, "units true", message=("slots[2][0][2]",))
    entry(2, 0, 2, None, "units null", message=("slots[2][0][2]",))
    entry(2, 0, 2, 10 ** 13, "units 1e13", message=("SIZE_MAX",))
    c.add("units a 5000-digit integer", base.replace("[[1, 0, 1]],\n  [[1, 0, 1]]\n",
                                                     "[[1, 0, 1]],\n  [[1, 0, 1" + "0" * 4999 +
                                                     "]]\n"), message=("digits",))
    entry(2, 0, 0, 5, "coflow position out of range", message=("coflow position",))
    entry(2, 0, 0, -1, "coflow position negative", message=("coflow position",))
    entry(2, 0, 1, 9, "flow position out of range", message=("flow position",))
    slots(lambda s: s[2].__setitem__(0, [1, 0]), "entry too short", message=("entry",))
    slots(lambda s: s[2].__setitem__(0, {"c": 1}), "entry an object", message=("entry",))
    slots(lambda s: s[0].append([0, 0, 1]), "a flow twice in a slot", message=("twice",))
    c.add("duplicate key", base.replace('"slot": 1,', '"slot": 1, "slot": 2,'),
          message=("duplicate key",))
    c.add("deep nesting", '{"format": "coflowopt-slotted-schedule", "version": 1, "slot": 1, '
          '"slots": ' + "[" * 100_000 + "]" * 100_000 + "}", message=("nest",))
    # well formed, and the integral verifier's verdicts
    slots(lambda s: (s[0].append([1, 0, 1]), s.pop()), "B before its release",
          expect="rejected")
    slots(lambda s: (s[1].append([1, 0, 1]), s.pop()), "egress 0 twice in slot 1",
          expect="rejected")
    slots(lambda s: s.pop(), "B undersends", expect="rejected")
    slots(lambda s: s.append([[1, 0, 1]]), "B oversends", expect="rejected")
    slots(lambda s: (s[1].append([0, 1, 0]), s.extend([[], []])),
          "a zero entry and idle slots (control)", expect="ok")
    slots(lambda s: s.insert(2, []), "an idle slot before B (control)", expect="ok")
    c.add("100,000 idle slots first (control: a verdict in seconds)",
          base.replace('"slots": [\n', '"slots": [\n' + "  [],\n" * 100_000), expect="ok")
    c.add("fluid schedule (dispatched to the fluid verifier; control)", SEED_SCHEDULE,
          expect="ok")
    c.add("instance given as slotted schedule", SEED_INSTANCE, message=("instance",))
    return c


def slotted_npz_cases(rng) -> Cases:
    c = Cases("slotted-npz")
    good = seed_slotted_arrays()
    c.add("seed (control)", npz_bytes(good), expect="ok")
    c.add("seed compressed (control)", npz_bytes(good, compress=True), expect="ok")

    def arrays(name, expect="error", message=(), **changes):
        a = {**good, **changes}
        a = {k: v for k, v in a.items() if v is not None}
        c.add(name, npz_bytes(a), expect=expect, message=message)

    c.add("empty file", b"", message=("empty",))
    c.add("directory", None, message=("directory",))
    c.add(".npy file", npy_bytes(np.arange(6)), message=(".npy",))
    c.add("JSON slotted schedule named .npz", SEED_SLOTTED, message=("JSON",))
    c.add("text", "hello\n", message=("text",))
    c.add("binary garbage", rng.integers(0, 256, 300, dtype=np.uint8).tobytes())
    whole = npz_bytes(good)
    for frac in (0.2, 0.5, 0.9):
        c.add(f"truncated at {frac:.0%}", whole[:int(len(whole) * frac)])
    members = {f"{k}.npy": npy_bytes(v) for k, v in good.items()}
    c.add("declares 1e11 slot indices", zip_of({**members, "slot_index.npy": npy_header_only(
        (100_000_000_000,), dtype="<i8", data=b"\0" * 48)}), message=("declares shape",))
    c.add("pickled units", zip_of({**members, "units.npy": npy_header_only(
        (6,), dtype="|O", data=b"\0" * 48)}), message=("pickles",))
    c.add("member not .npy", zip_of({**members, "notes.txt": b"hello"}), message=("member",))
    arrays("units missing", units=None, message=("missing",))
    arrays("extra array", extra=np.zeros(6), message=("unknown",))
    arrays("version 2", version=np.array(2), message=("version",))
    arrays("slot 0", slot=np.array(0.0), message=("slot", "> 0"))
    arrays("slot NaN", slot=np.array(np.nan), message=("finite",))
    arrays("slot 1e36", slot=np.array(1e36), message=("TIME_MIN..TIME_MAX",))
    arrays("slot a string", slot=np.array("1"), message=("slot",))
    arrays("num_flows wrong", num_flows=np.array(4), message=("num_flows",))
    arrays("units 2-d", units=np.ones((6, 1), np.int64), message=("1-d",))
    arrays("lengths differ", units=np.ones(5, np.int64), message=("one entry per",))
    arrays("units float", units=np.ones(6), message=("dtype",))
    arrays("units strings", units=np.array(["1"] * 6), message=("dtype",))
    arrays("units negative", units=np.array([1, 1, 1, 1, 1, -1]), message=(">= 0",))
    arrays("slot index negative", slot_index=np.array([0, 0, -1, 2, 3, 4]), message=(">= 0",))
    arrays("units 1e13", units=np.array([1, 1, 1, 1, 1, 10 ** 13]), message=("SIZE_MAX",))
    arrays("slots of 1e20 up to index 2**62 end beyond TIME_MAX", slot=np.array(1e20),
           slot_index=np.array([0, 0, 1, 2, 3, 2 ** 62]), message=("TIME_MAX",))
    arrays("flow out of range", flow=np.array([0, 1, 0, 2, 2, 7]), message=("flow",))
    arrays("flow_position out of range", flow_position=np.array([0, 5, 0, 0, 0, 0]),
           message=("flow position",))
    arrays("coflow negative", coflow=np.array([0, -1, 0, 1, 1, 1]), message=("coflow position",))
    arrays("flow inconsistent", flow=np.array([1, 0, 0, 2, 2, 2]), message=("flow_ptr",))
    arrays("a (slot, flow) twice", slot_index=np.array([0, 0, 0, 2, 3, 4]), message=("twice",))
    arrays("B before its release", expect="rejected", slot_index=np.array([0, 0, 1, 0, 3, 4]))
    arrays("B undersends", expect="rejected", units=np.array([1, 1, 1, 1, 1, 0]))
    arrays("units as uint8 (control)", expect="ok", units=np.ones(6, np.uint8))
    c.add("fluid .npz schedule (dispatched to the fluid verifier; control)",
          npz_bytes(seed_npz_arrays()), expect="ok")
    return c


def all_cases() -> list[Cases]:
    rng = np.random.default_rng(20261123)
    fb = trace_cases("coflow-benchmark", SEED_COFLOW_BENCHMARK, rng)
    big_trace_cases(fb)
    sin = trace_cases("sincronia", SEED_SINCRONIA, rng)
    big_trace_cases(sin)
    # the version-2 cases draw from their own stream, so that adding them left every other
    # reader's files byte for byte as they were
    v2 = instance_json_v2_cases(np.random.default_rng(20261125))
    # the slotted cases too (the integral model), for the same reason
    slotted = np.random.default_rng(20261201)
    return [instance_json_cases(rng), v2, fb, sin, schedule_json_cases(rng),
            schedule_npz_cases(rng), slotted_json_cases(slotted), slotted_npz_cases(slotted)]


# ------------------------------------------------------------------------------------ generate
def command(case: dict, directory: Path) -> list[str]:
    """The ``coflowopt`` arguments (without the program name) that read ``case``'s file."""
    path = str(directory / case["file"])
    reader = case["reader"]
    if reader in ("instance-json", "instance-json-v2"):
        args = ["info", path]
    elif reader in ("coflow-benchmark", "sincronia"):
        args = ["info", path, "--format", reader]
    else:
        args = ["verify", str(directory / "seed-instance.json"), path]
    return args + ["--json"] + case["extra"]


def generate(directory: str | Path) -> list[dict]:
    """Write every case's file into ``directory`` and ``manifest.json``; return the manifest.

    Deterministic: the same files, byte for byte, on every run.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "seed-instance.json").write_text(SEED_INSTANCE)
    manifest = []
    for cases in all_cases():
        for case in cases.cases:
            path = directory / case["file"]
            if case["content"] is None:
                path.mkdir(exist_ok=True)
            else:
                path.write_bytes(case["content"])
            entry = {k: v for k, v in case.items() if k != "content"}
            entry["args"] = command(case, directory)
            manifest.append(entry)
    (directory / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return manifest


# ------------------------------------------------------------------------------------ check
def check(case: dict, rc: int | None, out: str, err: str) -> list[str]:
    """Everything wrong with one run of ``case`` (empty when it keeps the contract)."""
    problems = []
    if rc is None:
        return [f"timed out after {TIMEOUT} s"]
    if "Traceback" in err or "Traceback" in out:
        problems.append("a traceback")
    if rc == 2:
        lines = err.splitlines()
        if len(lines) != 1:
            problems.append(f"exit 2 with {len(lines)} lines on stderr")
        words = case["message"] + ([case["file"]] if not case["extra"] else [])
        for w in words:
            if w not in err:
                problems.append(f"the message does not name {w!r}")
        if out.strip():
            problems.append("exit 2 with output on stdout")
    elif rc in (0, 1):
        try:
            verdict = json.loads(out)
        except ValueError:
            problems.append(f"exit {rc} without a JSON verdict on stdout")
        else:
            if not isinstance(verdict, dict):
                problems.append("the verdict is not a JSON object")
    else:
        problems.append(f"exit {rc}")
    want = {"error": (2,), "rejected": (1,), "ok": (0,), "verdict": (0, 1),
            "any": (0, 1, 2)}[case["expect"]]
    if rc not in want:
        problems.append(f"exit {rc}, expected {case['expect']} "
                        f"(exit {' or '.join(map(str, want))})")
    return problems


def _run_forked(args: list[str]) -> tuple[int | None, str, str, float]:
    """Run ``coflowopt`` ``args`` in a child forked from this (warm) process; return (exit code
    or None on a time-out, stdout, stderr, seconds)."""
    import tempfile
    with tempfile.TemporaryFile() as fo, tempfile.TemporaryFile() as fe:
        t0 = time.perf_counter()
        pid = os.fork()
        if pid == 0:  # the child: real file descriptors 1 and 2, a real exit code
            code = 3
            try:
                os.dup2(fo.fileno(), 1)
                os.dup2(fe.fileno(), 2)
                from coflowopt.cli import main
                code = main(args)
                sys.stdout.flush()
                sys.stderr.flush()
            except BaseException:  # noqa: BLE001 - anything escaping main is a failure
                import traceback
                traceback.print_exc()
                sys.stderr.flush()
            finally:
                os._exit(code if isinstance(code, int) else 3)
        rc: int | None = None
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                rc = os.waitstatus_to_exitcode(status)
                break
            if time.perf_counter() - t0 > TIMEOUT:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                break
            time.sleep(0.002)
        seconds = time.perf_counter() - t0
        fo.seek(0)
        fe.seek(0)
        return rc, fo.read().decode("utf-8", "replace"), fe.read().decode("utf-8", "replace"), \
            seconds


def run(directory: str | Path) -> dict:
    """Run every case of ``directory/manifest.json`` in its own forked process; return a
    summary: per reader the number of cases, exit codes, tracebacks, time-outs and problems."""
    manifest = json.loads((Path(directory) / "manifest.json").read_text())
    import coflowopt.cli  # noqa: F401 - warm the parent, so that each child starts fast
    import coflowopt.formats  # noqa: F401
    import coflowopt.verify  # noqa: F401
    summary: dict = {r: {"cases": 0, "exit": {}, "tracebacks": 0, "timeouts": 0,
                         "slowest_s": 0.0} for r in READERS}
    problems = []
    for case in manifest:
        rc, out, err, seconds = _run_forked(case["args"])
        s = summary[case["reader"]]
        s["cases"] += 1
        s["exit"][str(rc)] = s["exit"].get(str(rc), 0) + 1
        s["tracebacks"] += "Traceback" in err
        s["timeouts"] += rc is None
        s["slowest_s"] = round(max(s["slowest_s"], seconds), 3)
        for p in check(case, rc, out, err):
            problems.append({"case": case["file"], "problem": p, "stderr": err[-500:]})
    return {"readers": summary, "problems": problems}


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("generate", "run"):
        print(__doc__.split("Usage::")[1], file=sys.stderr)
        sys.exit(2)
    if sys.argv[1] == "generate":
        m = generate(sys.argv[2])
        print(f"{len(m)} cases in {sys.argv[2]}", file=sys.stderr)
    else:
        json.dump(run(sys.argv[2]), sys.stdout, indent=1)
        sys.stdout.write("\n")
