"""The steps of an evaluation shared by every benchmark, independent of how they are
orchestrated: load (`loading`), ask (`asking`), grade (`grading`), import results made
elsewhere (`importing`), the judge stage (`judging`) and probe runs (`probing`). Flows call them
from Prefect tasks; `mathprobe import` calls the same ones directly."""
from mathprobe.runs.asking import (
                                         Budget,
                                         LazyRequests,
                                         build_request,
                                         check_backend,
                                         read_image,
                                         respond,
                                         send,
)
from mathprobe.runs.grading import grade_run
from mathprobe.runs.importing import import_official, import_results
from mathprobe.runs.loading import prepare

__all__ = ["Budget", "LazyRequests", "build_request", "check_backend", "grade_run",
           "import_official", "import_results", "prepare", "read_image", "respond", "send"]
