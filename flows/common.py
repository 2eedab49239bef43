"""What every flow shares: progress in the Prefect log, user errors that end a flow run Failed
with their one-line message (no traceback), runs that did not complete ending Failed under a
name that says why (`not_completed`, `call_flow`), and the repair of flow runs a dead process
left RUNNING."""
from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable
from typing import Any
from uuid import UUID

from prefect import get_run_logger

from mathprobe.errors import MathprobeError, RunNotCompleted

# flow runs end without waiting on a heartbeat; a temporary server dies with its command
from mathprobe.flows import _prefect_engine, _temporary_server  # noqa: F401
from mathprobe.runs import progress
from mathprobe.store import Store
from mathprobe.tasks.run_log import LogProgress, current_flow_run_id

__all__ = ["LogProgress", "call_flow", "current_flow_run_id", "fail_cleanly", "not_completed",
           "repair_dead_runs"]

STATE_NAME_MAX = 300       # a state's name carries its reason: what `--watch` prints


def fail_cleanly(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Under `@flow`: a MathprobeError (bad input, a store that cannot be written) ends the flow
    run Failed with the error's one line as its message and in its state's name ('Failed: no
    data directory ...', which `prefect deployment run --watch` prints); Prefect logs it once,
    without a traceback. Calling the flow still raises the error, so the command line prints
    it and exits with its code."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except RunNotCompleted:
            raise
        except MathprobeError as exc:         # Prefect logs the message with the state
            from prefect.states import Failed

            return Failed(name=f"Failed: {exc}"[:STATE_NAME_MAX], message=str(exc), data=exc)
    # the parameters' types resolved where `fn` is defined: Prefect validates the wrapper's
    # parameters in this module's namespace, which lacks the names a flow's module imports
    # (e.g. its parameter types with their choices)
    # (inspect reads __signature__, which typeshed's function type does not declare)
    wrapper.__signature__ = inspect.signature(fn, eval_str=True)  # type: ignore[attr-defined]
    return wrapper


def not_completed(name: str, message: str, result: Any, exit_code: int) -> Any:
    """The final state of a run that did not complete: Failed, named for why with its counts
    ('Incomplete: 2 of 60 calls failed (HTTP 503 ...)'), its message the full account; calling
    the flow raises RunNotCompleted with `result` (`call_flow` returns it)."""
    from prefect.states import Failed

    return Failed(name=name[:STATE_NAME_MAX], message=message,
                  data=RunNotCompleted(message, result, exit_code))


def call_flow(flow: Callable[..., Any], **params: Any) -> Any:
    """A flow's result, run in this process: also the result of a run that did not complete
    (its flow run ended Failed: RunNotCompleted carries it); a user error raises."""
    try:
        return flow(**params)
    except RunNotCompleted as exc:
        return exc.result


class _HandledFailures(logging.Filter):
    """A deployed flow run that ends Failed by our own hand (a user error, a run that did not
    complete) makes Prefect's engine log 'Engine execution exited with unexpected exception'
    with a traceback at ERROR, beside a state whose name and message already say what
    happened: that record is dropped. Any other error passes."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not (record.levelno >= logging.ERROR and isinstance(exc, MathprobeError))


for _name in ("prefect.flow_runs", "prefect.engine", "prefect.flow_engine"):
    if not any(isinstance(f, _HandledFailures) for f in logging.getLogger(_name).filters):
        logging.getLogger(_name).addFilter(_HandledFailures())


def repair_dead_runs(store: Store, run_id: str) -> None:
    """Say what opening the store repaired, and mark Crashed the Prefect flow runs of runs a
    dead process left running (kill -9): the store found them `running` when it took the
    file's write lock, which only a live process can hold."""
    count, files = store.recovered
    if count or files:
        progress.note(run_id, f"stored {count} answer(s) an earlier run saved to "
                     f"{', '.join(map(str, files))} when it could not write the store")
        store.recovered = (0, [])
    dead, store.interrupted = store.interrupted, []
    if not dead:
        return
    get_run_logger().warning("run(s) left running by a process that died, now interrupted: %s",
                             ", ".join(r for r, _ in dead))
    flow_runs = [f for _, f in dead if f and f != current_flow_run_id()]
    if flow_runs:
        _crash(flow_runs)


def _crash(flow_run_ids: list[str]) -> None:
    from prefect.client.orchestration import get_client
    from prefect.states import Crashed, StateType

    with get_client(sync_client=True) as client:
        for fid in flow_run_ids:
            try:
                run = client.read_flow_run(UUID(fid))
            except Exception:         # deleted, or from another Prefect server
                continue
            if run.state is not None and run.state.type in (StateType.RUNNING,
                                                            StateType.PENDING,
                                                            StateType.PAUSED):   # on a batch
                client.set_flow_run_state(fid, Crashed(
                    message="the process running this flow run died (found at the next start "
                            "of its mathprobe run); its run is marked interrupted"), force=True)
