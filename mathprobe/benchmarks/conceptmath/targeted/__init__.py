"""ConceptMath's targeted improvement (paper Sec. 2.4, Table 5), from evaluation to training data
and back: the weakest concepts of a run (`weakest`), a concept classifier that scales to a
corpus (`classifier`, the `select` extra), the selection of concept-specific training data from
a corpus without benchmark contamination (`corpus`, `overlap`, `dedup`, `select`), and Table 5
from a run before and a run after (`table5`, over the view macro `conceptmath_targeted`).
docs/targeted-improvement.md walks the loop."""
