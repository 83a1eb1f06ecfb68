"""The ``coflowopt`` command's entry point (``python -m coflowopt`` too): on Linux it first
restarts itself once with glibc's transparent-huge-page tunable, then runs
:func:`coflowopt.cli.main`.

Why: the event-loop kernels read their arrays at random (the greedy kernel's slot, path and
rank records: hundreds of MB on the Facebook trace on a k=16 fat-tree), and with 4 kB pages
nearly every such read also misses the TLB.  numpy already asks for huge pages for its own
large arrays (``madvise(MADV_HUGEPAGE)``), but the arrays numba allocates inside a kernel come
from ``malloc`` and get 4 kB pages where the kernel's transparent huge pages are in their
``madvise`` mode (Debian's and Ubuntu's default; this machine's).  glibc >= 2.35 advises huge
pages for its own mappings when started with ``GLIBC_TUNABLES=glibc.malloc.hugetlb=1``, which
can only be set before the process starts: hence one ``execve`` of the same command line,
before anything heavy is imported (30-70 ms).  Measured on this machine (2026-11-28, the same
pieces and values either way, ``experiments/results/benchmark-log.md``), BSSI + greedy on the
FB trace on the k=16 fat-tree, whole processes alternating: at load ~3 user CPU 0.81-0.91x;
on a quiet host, six pairs, user CPU 10.99 -> 10.02 s (mean) but system time 0.97 -> 1.58 s
(the kernel zeroes each huge page as it is first touched) and wall 11.82 -> 11.45 s, within
the host's spread; the verifier's share 1.74 -> 1.45 s; minor page faults 128,000 -> 28,000.

Nothing is restarted when the tunable is already set, when the kernel's THP mode is not
``madvise`` (``always`` needs no advice, ``never`` ignores it), on another C library or system,
or with ``COFLOWOPT_HUGEPAGES=0``; an ``execve`` that fails is ignored.  The library itself
(``import coflowopt``) never does this: only the command.

The command (``argv`` None) also uses the ahead-of-time compiled kernels when they have been
built for the current sources (``python -m coflowopt._aot build``; :mod:`coflowopt._aot`), so
that the commands they cover do not import numba; without them, or with ``COFLOWOPT_AOT=0``,
nothing changes.
"""

from __future__ import annotations

import os
import sys

#: glibc's tunable (glibc >= 2.35): ``madvise(MADV_HUGEPAGE)`` on malloc's mmap'd chunks and heap
TUNABLE = "glibc.malloc.hugetlb=1"
#: the kernel's THP mode
THP_MODE_FILE = "/sys/kernel/mm/transparent_hugepage/enabled"


def hugepage_environment(environ=None, *, platform: str | None = None,
                         libc: str | None = None, thp_mode: str | None = None
                         ) -> dict[str, str] | None:
    """The environment to restart the command with, or None when no restart is wanted.

    ``platform``, ``libc`` (``os.confstr("CS_GNU_LIBC_VERSION")``, e.g. ``"glibc 2.36"``) and
    ``thp_mode`` (the content of :data:`THP_MODE_FILE`) are read from the system unless given
    (the tests give them).

    Examples
    --------
    >>> env = hugepage_environment({"PATH": "/bin"}, platform="linux", libc="glibc 2.36",
    ...                            thp_mode="always [madvise] never")
    >>> env["GLIBC_TUNABLES"]
    'glibc.malloc.hugetlb=1'
    >>> hugepage_environment({"COFLOWOPT_HUGEPAGES": "0"}, platform="linux",
    ...                      libc="glibc 2.36", thp_mode="always [madvise] never") is None
    True
    """
    environ = dict(os.environ if environ is None else environ)
    platform = sys.platform if platform is None else platform
    if platform != "linux" or environ.get("COFLOWOPT_HUGEPAGES", "1") == "0":
        return None
    tunables = environ.get("GLIBC_TUNABLES", "")
    if "glibc.malloc.hugetlb" in tunables:
        return None                      # set already (by the user, or by our own restart)
    if libc is None:
        try:
            libc = os.confstr("CS_GNU_LIBC_VERSION") or ""
        except (ValueError, OSError):
            return None
    name, _, version = libc.partition(" ")
    try:
        major, minor = (int(v) for v in version.split(".")[:2])
    except ValueError:
        return None
    if name != "glibc" or (major, minor) < (2, 35):
        return None
    if thp_mode is None:
        try:
            with open(THP_MODE_FILE, encoding="ascii") as f:
                thp_mode = f.read()
        except OSError:
            return None
    if "[madvise]" not in thp_mode:
        return None
    environ["GLIBC_TUNABLES"] = f"{tunables}:{TUNABLE}" if tunables else TUNABLE
    return environ


def restart_with_hugepages() -> None:
    """Replace this process by the same command line with :func:`hugepage_environment`'s
    environment, when it gives one; otherwise (or if ``execve`` fails) return."""
    env = hugepage_environment()
    argv = getattr(sys, "orig_argv", None)
    if env is None or not argv or not sys.executable:
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(sys.executable, argv, env)
    except OSError:
        return


def main(argv=None) -> int:
    """The ``coflowopt`` command."""
    if argv is None:
        restart_with_hugepages()
        # the ahead-of-time compiled kernels, when built for these sources (coflowopt._aot)
        from ._aot import activate_when_imported
        activate_when_imported()
    from .cli import main as cli_main
    return cli_main(argv)
