"""Errors a user can act on: each names the file, the row and the field at fault, and the exit
status the command line ends with."""
from __future__ import annotations

from enum import IntEnum
from pathlib import Path


class Exit(IntEnum):
    """The command line's exit statuses (README, `mathprobe --help`)."""
    COMPLETED = 0        # every item answered (or the command did what it was asked)
    INTERNAL = 1         # a bug: a traceback is printed
    USER_ERROR = 2       # bad arguments, data, key, file: one `error:` line, nothing asked
    INCOMPLETE = 3       # some calls failed for good (infra_failed / judge_failed): --retry-failed
    STOPPED_BUDGET = 4   # --max-cost reached before every item was asked
    STORE_FAILED = 5     # the store could not be written (full disk): answers spooled
    INTERRUPTED = 130    # Ctrl-C


def run_exit_code(report: dict) -> int:
    """A run report's exit status (the command's, and its flow run's final state): 0 completed;
    3 calls failed for good (the run's or its judge's); 4 --max-cost reached."""
    if report["run"]["status"] == "stopped_max_cost":
        return Exit.STOPPED_BUDGET
    judged_failed = any(j["n_judge_failed"] or j["n_infra_failed"] or j.get("n_truncated")
                        for j in report.get("judges", []))
    if report["run"]["status"] != "completed" or judged_failed:
        return Exit.INCOMPLETE
    return Exit.COMPLETED


class MathprobeError(Exception):
    """An error meant for the user, printed without a traceback by the command line."""
    exit_code: int = Exit.USER_ERROR


class RunNotCompleted(MathprobeError):
    """A run that ended without every answer: calls failed for good, or --max-cost stopped it.
    Its flow run ends Failed, under a state name that says so (never a green Completed);
    calling the flow raises this, carrying what the run returned (`result`, e.g. its report)
    and the exit status it ends the command with."""

    def __init__(self, message: str, result: object = None, exit_code: int = Exit.INCOMPLETE):
        super().__init__(message)
        self.result, self.exit_code = result, exit_code

    def __reduce__(self):              # pickled with its result (a persisted flow result)
        return type(self), (str(self), self.result, self.exit_code)


class StoreWriteError(MathprobeError):
    """The store could not be written; the answers in flight were spooled (mathprobe.store.spool)."""
    exit_code = Exit.STORE_FAILED
    reason: str | None = None          # the disk's or the file's words, when it refused


class DataError(MathprobeError):
    """Malformed benchmark or response data."""

    def __init__(self, file: str | Path, message: str, *, row: int | None = None,
                 field: str | None = None, item: str | None = None):
        self.file, self.row, self.field, self.item = str(file), row, field, item
        where = [self.file]
        if row is not None:
            where.append(f"row {row}" + (f" ({item})" if item else ""))
        if field is not None:
            where.append(f"field '{field}'")
        super().__init__(": ".join(where) + ": " + message)
