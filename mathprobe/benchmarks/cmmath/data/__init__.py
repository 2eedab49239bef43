"""CMMaTH's data: the cmmath.json records loaded and checked one by one into the item model
(`dataset`), their knowledge points (`knowledge_points`) and options (`options`), the
published prompt and judge texts of the data directory (`published_texts`), and responses made
elsewhere in the authors' result format, with their judge's verdicts (`official_results`)."""
