"""The one exception hierarchy of coflowopt.

Every error coflowopt raises on purpose derives from :class:`CoflowOptError`.  Each class also
derives from the built-in exception that callers would naturally catch (``ValueError`` for bad
data, ``ImportError`` for a missing optional backend), so ``except ValueError`` keeps working.

Errors about input data name *where* the problem is (file, line, field) and *which rule* was
broken; :class:`InputError` carries those pieces separately so that tools can read them.
"""

from __future__ import annotations

__all__ = [
    "CoflowOptError",
    "InputError",
    "InvalidInstanceError",
    "InvalidScheduleError",
    "InfeasibleScheduleError",
    "InvalidParameterError",
    "NotSupportedError",
    "SolverNotAvailableError",
    "SolverError",
]


class CoflowOptError(Exception):
    """Root of every error raised on purpose by coflowopt."""


class InputError(CoflowOptError, ValueError):
    """Bad input data, located as precisely as possible.

    Parameters
    ----------
    rule : str
        The rule that was broken, in words ("size must be > 0").
    file : str, optional
        The file the data came from.
    line : int, optional
        1-based line number in ``file``.
    field : str, optional
        The field, e.g. ``coflows[3].flows[2][2]`` or ``reducer 4 of coflow 17``.
    """

    def __init__(self, rule: str, *, file: str | None = None, line: int | None = None,
                 field: str | None = None):
        self.rule = rule
        self.file = file
        self.line = line
        self.field = field
        where = []
        if file is not None:
            where.append(str(file) + (f":{line}" if line is not None else ""))
        elif line is not None:
            where.append(f"line {line}")
        if field is not None:
            where.append(field)
        prefix = ", ".join(where)
        super().__init__(f"{prefix}: {rule}" if prefix else rule)


class InvalidInstanceError(InputError):
    """An instance breaks a rule of the model (port out of range, size <= 0, ...)."""


class InvalidScheduleError(InputError):
    """A schedule is malformed (not readable as piecewise-constant rates for this instance)."""


class InfeasibleScheduleError(CoflowOptError, ValueError):
    """A well-formed schedule that the verifier rejected; ``report`` holds the verdict."""

    def __init__(self, message: str, report=None):
        super().__init__(message)
        self.report = report


class InvalidParameterError(CoflowOptError, ValueError):
    """A parameter of a public function has a bad value; the message names it and the rule."""


class NotSupportedError(CoflowOptError, ValueError):
    """The algorithm or format cannot handle this input (e.g. release dates, fractional sizes).

    Parameters
    ----------
    message : str
        The whole message (for a Python caller: it names the call that overrides the refusal,
        where there is one).
    rule : str, optional
        The refusal without that Python remedy (default: ``message``).
    remedy : str, optional
        The name of the explicit override a front end offers instead (``"drop_weights"``,
        ``"drop_deadlines"``, ``"drop_subcoflows"``, ``"allow_fractional"``): the command line
        maps it to its flag (``--drop-weights`` ...), so that its users are never told a Python
        call.
    """

    def __init__(self, message: str, *, rule: str | None = None, remedy: str | None = None):
        super().__init__(message)
        self.rule = message if rule is None else rule
        self.remedy = remedy


class SolverNotAvailableError(CoflowOptError, ImportError):
    """An optional solver backend is not installed."""


class SolverError(CoflowOptError, RuntimeError):
    """A solver failed in a way that leaves no usable bound or incumbent."""
