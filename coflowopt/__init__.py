"""coflowopt: offline coflow scheduling with certified bounds, verified schedules and proven optima."""

from .exceptions import *  # noqa: F401,F403
from .instance import COFLOW_BINS, Coflow, Instance
from .schedule import Schedule, Segment

__version__ = "0.1.0"

__all__ = ["Instance", "Coflow", "COFLOW_BINS", "Schedule", "Segment", "__version__"]
