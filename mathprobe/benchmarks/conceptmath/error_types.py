"""ConceptMath's error analysis (Wu et al. 2024, Table 4): for the unmastered concepts of a model,
the reason of its errors, Calculation Error or Knowledge Error, each with an example question
and answer. The paper names the two types without defining them in words: their definitions
here are the paper's own examples. mathprobe adds "Other Error" for an error that is neither
(a misread question, no answer, a refusal). Table 4 is the view `conceptmath_error_examples`
(sql/conceptmath/): the report's unmastered concepts, their error types and one example each."""
from __future__ import annotations

from mathprobe.error_taxonomy import ErrorTaxonomy, ErrorType
from mathprobe.figures import ErrorFigure

SOURCE = "ConceptMath (Wu et al. 2024), Table 4"

TAXONOMY = ErrorTaxonomy(
    source=SOURCE,
    types=(
        ErrorType("Calculation Error", "named in Table 4 without a definition in words; its "
                  "examples: \"16 + 18 + 16 + 18 = 72\" (Perimeter), \"pi x 3^2 x 5 = 30 pi\" "
                  "(Cylinders): the method is right, a computation in it is wrong."),
        ErrorType("Knowledge Error", "named in Table 4 without a definition in words; its "
                  "examples: height = perimeter minus width (Perimeter), n x 120 = 360 "
                  "(Polygons): the concept itself (a formula, a property) is misused."),
    ),
    added=(ErrorType("Other Error", "an error that is neither a Calculation Error nor a "
                     "Knowledge Error: a misread question, a missing or unreadable final "
                     "answer, a refusal.", source="mathprobe, for what fits neither type"),),
    protocol="label the first wrong step of the response: the error that decides its answer.",
    distribution="ConceptMath error reasons (Table 4's types)",
    no_attempt="Other Error",
    figures=(
        ErrorFigure(
            "table4", "ConceptMath Table 4: error reasons of the unmastered concepts", "listing",
            "conceptmath_error_examples",
            columns=(("system", "system"), ("concept", "concept"), ("accuracy", "concept acc."),
                     ("error_type", "error type"), ("n", "errors"),
                     ("question", "example question"),
                     ("answer", "the model's answer (its first wrong step)")),
            order="system, rank, error_type",
            note="the 10 lowest level-3 concepts of each system (conceptmath_unmastered), each "
                 "error type with its count and one example (the first by item id); view "
                 "conceptmath_error_examples"),
    ),
)
