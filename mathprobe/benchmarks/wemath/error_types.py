"""WE-MATH's error analysis (Qiao et al. 2024, Appendix E.2): the four error types of its Table 9
with their definitions verbatim, its protocol (only the first error of a response counts), and
its Figure 11 (the types counted across the 67 knowledge concepts) with the correspondence of
multi-step errors to the one-step sub-problems of the same concepts: views
`wemath_error_concepts` and `wemath_error_steps` (sql/wemath/)."""
from __future__ import annotations

from mathprobe.error_taxonomy import ErrorTaxonomy, ErrorType
from mathprobe.figures import ErrorFigure

SOURCE = "WE-MATH (Qiao et al. 2024), Appendix E.2, Table 9"

TAXONOMY = ErrorTaxonomy(
    source=SOURCE,
    types=(
        ErrorType("Knowledge Error", "For a specific knowledge concept, the model is unclear or "
                  "confused about it, or it misuses another knowledge concept to solve the "
                  "problem."),
        ErrorType("Reason Error", "Errors that occur in the logical reasoning process while "
                  "using knowledge concepts to solve the problem step by step."),
        ErrorType("Visual Error", "Errors in visual perception, where the model incorrectly "
                  "identifies shapes or numbers in an image."),
        ErrorType("Hallucination", "The thought process introduces factors that are not "
                  "consistent with the facts, which are not mentioned in the context of the "
                  "image or question."),
    ),
    protocol=("a response can hold several errors; \"we consider the first error that occurs "
              "in the reasoning steps as the key error and include only this error in our "
              "statistics\" (WE-MATH, Appendix E.2). Label only the first error."),
    distribution="WE-MATH error types (Appendix E.2, Table 9)",
    figures=(
        ErrorFigure(
            "figure11", "WE-MATH Figure 11: error types across the 67 knowledge concepts",
            "matrix", "wemath_error_concepts", row="concept", group="category", count="n",
            note="first error of each wrong answer; a one-step question counts under its "
                 "concept, a multi-step (composite) question under each concept of its problem "
                 "(matched to its one-step sub-problems); view wemath_error_concepts"),
        ErrorFigure(
            "steps", "WE-MATH multi-step errors and their one-step sub-problems", "listing",
            "wemath_error_steps",
            columns=(("problem_id", "problem"), ("multi_error_type", "composite: error type"),
                     ("step", "one-step question"), ("step_concept", "its concept"),
                     ("step_verdict", "its verdict"), ("step_error_type", "its error type")),
            order="problem_id, step",
            note="each labelled wrong composite question beside the one-step questions of the "
                 "same concepts (view wemath_error_steps)"),
    ),
)
