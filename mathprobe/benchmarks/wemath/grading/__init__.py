"""WE-MATH's grading: the authors' answer extraction (`official`: GRADERS and `grade`), and
VLMEvalKit's judged extractor for what it cannot read (`judge`)."""
from mathprobe.benchmarks.wemath.grading.official import (
    GRADERS,
    answer_outside,
    extract_official,
    grade,
)

__all__ = ["GRADERS", "answer_outside", "extract_official", "grade"]
