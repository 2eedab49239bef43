"""CMMaTH's error analysis (Li et al. 2024, section 5.3): the four error types the paper finds in
GPT-4V's answers to CMMaTH-testmini, described in its words, and its Figure 6, their
distribution for one model (the distribution every report draws). A refusal or an empty answer
to a problem is a Reject Error by rule, without a labeller."""
from __future__ import annotations

from mathprobe.error_taxonomy import ErrorTaxonomy, ErrorType

SOURCE = "CMMaTH (Li et al. 2024), section 5.3, Figure 6"

TAXONOMY = ErrorTaxonomy(
    source=SOURCE,
    types=(
        ErrorType("Perception Error", "the model's erroneous interpretation and utilization of "
                  "diagram content during reasoning: incorrect OCR, misidentified numerical, "
                  "geometric or logical relationships"),
        ErrorType("Reasoning Error", "the model misinterprets symbols or uses incorrect logic or "
                  "knowledge for inference"),
        ErrorType("Calculation Error", "incorrect mathematical operations, such as writing or "
                  "solving equations incorrectly"),
        ErrorType("Reject Error", "the model's inability to solve a problem that is actually "
                  "solvable (reflects instruction following)"),
    ),
    protocol=("label the error that decides the answer: the first wrong step of the response; "
              "a response that declines or gives up on the problem is a Reject Error."),
    distribution="CMMaTH Figure 6: the distribution of error types",
    no_attempt="Reject Error",
)
