"""Errors: every failure of vyre is a :class:`VyreError` carrying the stable numeric code of
``vyre/backend_abi.h`` (``.code``), its name (``.name``, e.g. ``"invalid_argument"``), the whole
message (``.message``) and its actionable last sentence (``.fix``, the text after ``Fix:``).

Each code has its subclass, named after the code (``InvalidArgumentError``, ``NoDeviceError``,
``NotFoundError``, ...), generated from the C++ list of codes, so ``except vyre.errors.NoDeviceError``
works and a code added in C++ gets its class without a change here.
"""
from __future__ import annotations

from . import _vyre


class VyreError(Exception):
    """A vyre error: ``code``, ``name``, ``message``, ``fix``."""

    code: int
    name: str
    message: str
    fix: str

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.name = _vyre.status_names().get(code, "unknown")
        self.message = message
        at = message.rfind("Fix: ")
        self.fix = message[at + len("Fix: "):] if at >= 0 else ""

    def __reduce__(self):  # picklable (multiprocessing)
        return (type(self), (self.code, self.message))


def _class_name(status_name: str) -> str:
    return "".join(part.capitalize() for part in status_name.split("_")) + "Error"


def _make_classes() -> dict[int, type[VyreError]]:
    classes: dict[int, type[VyreError]] = {}
    for code, status_name in _vyre.status_names().items():
        cls = type(_class_name(status_name), (VyreError,), {"__doc__": f"vyre error {code} ({status_name})."})
        cls.__module__ = __name__
        globals()[cls.__name__] = cls
        classes[code] = cls
    return classes


_CLASSES = _make_classes()
_vyre._register_error_classes(_CLASSES)


def error_class(code: int) -> type[VyreError]:
    """The exception class of a stable code (VyreError itself for an unknown code)."""
    return _CLASSES.get(code, VyreError)
