"""What Prefect's logging shows on a command's console, next to what the command shows itself.

Prefect logs to the console all it sends its API: each flow and task run's start and final
state, a task's failure, the engine's account of a crash, and the progress lines mathprobe logs
for the Prefect UI (a tenth of the questions at a time, each shard's counts, what a --limit
sample is). A command shows all of that its own way (the progress bar and its notes, the report,
one `error:` line), so about 30 timestamped lines surrounded the bar in a terminal, and each note
came twice (the bar's, then the log's). So, on the consoles of Prefect's handlers:

- a line the command prints itself is logged with `extra=SHOWN` and never reaches the console
  where a command shows it (a deployment's worker, which has no bar, prints it as before);
- in a terminal, only warnings and errors reach the console, and none of Prefect's own (its
  account of states and crashes: the command says how it ended): what mathprobe's code warns of
  (a claim that lapsed, a request that waited a minute for a slot, the first failed calls)
  still shows. `--verbose` shows everything, as Prefect does;
- written to a file or a pipe (a job's log), Prefect's lines stay, without the duplicates.

The Prefect API (the UI's log of the run) gets every line either way.
"""
from __future__ import annotations

import logging
import sys
from pathlib import Path

from mathprobe.runs.progress import SHOWN

__all__ = ["SHOWN", "install"]


def install(verbose: bool) -> None:
    """Put the filter on every console handler of Prefect's (call once Prefect is imported)."""
    import prefect
    from prefect.logging.handlers import PrefectConsoleHandler

    quiet = not verbose and _is_terminal()
    folder = str(Path(prefect.__file__).resolve().parent)
    loggers = [logging.getLogger()] + [lg for lg in logging.root.manager.loggerDict.values()
                                       if isinstance(lg, logging.Logger)]
    for handler in {h for lg in loggers for h in lg.handlers
                    if isinstance(h, PrefectConsoleHandler)}:
        for old in [f for f in handler.filters if isinstance(f, _ConsoleFilter)]:
            handler.removeFilter(old)
        handler.addFilter(_ConsoleFilter(quiet, folder))


def _is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


class _ConsoleFilter(logging.Filter):
    def __init__(self, quiet: bool, prefect_folder: str):
        super().__init__()
        self.quiet, self.prefect_folder = quiet, prefect_folder

    def filter(self, record: logging.LogRecord) -> bool:
        if all(getattr(record, k, None) == v for k, v in SHOWN.items()):
            return False
        if not self.quiet:
            return True
        return (record.levelno >= logging.WARNING
                and not str(Path(record.pathname).resolve()).startswith(self.prefect_folder))
