"""Numbers read from RLI_* environment settings, checked one way everywhere."""
from __future__ import annotations

import math
import os

from core.errors import BadSetting


def positive_number(name: str, default: float, unit: str, kind: type = float) -> float:
    """The setting `name` when it is set (a positive, finite `kind`), else `default`; BadSetting
    names the setting and what it holds otherwise."""
    raw = os.environ.get(name)
    if not raw:
        return default
    try:
        value = kind(raw)
    except ValueError:
        raise BadSetting(f"{name} must be a number of {unit}, got {raw!r}") from None
    if not (value > 0 and math.isfinite(value)):
        raise BadSetting(f"{name} must be a positive number of {unit}, got {raw!r}")
    return value


CORES_ENV = "RLI_CORES"


def usable_cores() -> int:
    """The cores this process may keep busy: RLI_CORES when set, else every core of the machine.
    A batch worker is one of several on the machine (core.batch.executors sets it to its share), so
    the OCR and model threads it starts must fit in that share: OpenMP threads beyond it spin."""
    return int(positive_number(CORES_ENV, max(1, os.cpu_count() or 1), "cores", int))


def share_of_cores(parts: int) -> int:
    """The cores each of `parts` processes or threads started by this process may keep busy (at least one)."""
    return max(1, usable_cores() // parts)
