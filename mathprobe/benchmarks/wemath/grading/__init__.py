"""WE-MATH's grading: the authors' answer extraction (`official`: GRADERS and `grade`), and
VLMEvalKit's judged extractor for what it cannot read (`judge`)."""
from mathprobe.benchmarks.wemath.grading.official import GRADERS, extract_official, grade

__all__ = ["GRADERS", "extract_official", "grade"]
