"""How a command ends: its exit status (mathprobe.errors.Exit, documented here for --help; a run
report's status is mathprobe.errors.run_exit_code), a user error's traceback kept off the console,
and the frames of a reported error released."""
from __future__ import annotations

import logging
import traceback

from mathprobe.errors import MathprobeError

EXIT_CODES = """Exit status: 0 completed; 1 internal error (a bug: traceback printed); 2 user
error (bad argument, data, key or file: one 'error:' line, nothing asked); 3 incomplete (calls
failed for good: re-drive them with --retry-failed); 4 stopped by --max-cost; 5 the store could
not be written (full disk: answers in flight saved, run again); 130 interrupted (Ctrl-C)."""


def quiet_user_error_tracebacks() -> None:
    """Prefect logs a failed task's or flow's traceback to the console; for a MathprobeError
    (a user error, said in one line at the end) the console handlers get the message only
    (--debug leaves them alone)."""
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, _NoUserErrorTraceback) for f in handler.filters):
            handler.addFilter(_NoUserErrorTraceback())


class _NoUserErrorTraceback(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], MathprobeError):
            record.exc_info, record.exc_text = None, None
        return True


def release_frames(exc: BaseException | None) -> None:
    """Clear the local variables of the frames an error passed through. They hold the objects
    that were in use (the store's DuckDB connection among them), and Prefect keeps a failed
    run's exception, so without this they stay alive until the interpreter exits, where native
    extensions report them as leaked (duckdb 2's nanobind prints 'nanobind: leaked ...')."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if exc.__traceback__ is not None:
            traceback.clear_frames(exc.__traceback__)
        exc = exc.__cause__ or exc.__context__
