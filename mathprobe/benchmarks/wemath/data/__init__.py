"""WE-MATH's data: testmini.json and the knowledge tree loaded and checked row by row into the
item model (`dataset`), and responses made elsewhere: the authors' result format
(`official_results`), VLMEvalKit's (`vlmevalkit_results`) and lmms-eval's
(`lmms_eval_results`)."""
