"""Exceptions that the CLI turns into one clear line and exit code 2."""


class RocportError(Exception):
    """A user-facing failure: bad input, a missing path, an unwritable output."""


class InputError(RocportError):
    """The input path, option or file content cannot be used."""


class OutputError(RocportError):
    """An output cannot be written."""


class ToolError(RocportError):
    """An external tool (hipcc, rocminfo, a profiler) is missing or failed."""
