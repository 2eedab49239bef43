"""ConceptMath's data: the four systems' JSON lines and the few-shot exemplars loaded and
checked row by row into the item model (`dataset`), and responses made elsewhere in the
authors' inference format, with what their evaluation writes (`official_results`)."""
