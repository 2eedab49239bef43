"""Triton Python-backend wrapper of HFModel.score (see config.pbtxt)."""
# The python backend's embedded interpreter ignores PYTHONPATH; the launcher passes the venv's
# site-packages (mathprobe included) in MATHPROBE_SYS_PATH instead (mathprobe/serving/triton_server.py).
# They go FIRST, ahead of the base interpreter's own site-packages (which may hold another numpy).
import os
import site
import sys

_before = list(sys.path)
for _path in os.environ.get("MATHPROBE_SYS_PATH", "").split(os.pathsep):
    if _path:
        site.addsitedir(_path)            # processes .pth files (editable installs) too
sys.path[:] = [p for p in sys.path if p not in _before] + _before

import json

import numpy as np
import triton_python_backend_utils as pb_utils

from mathprobe.serving.hf_runtime import HFModel


class TritonPythonModel:
    def initialize(self, args):
        config = json.loads(args["model_config"])
        params = {k: v["string_value"] for k, v in config.get("parameters", {}).items()}
        device = (f"cuda:{args['model_instance_device_id']}"
                  if args.get("model_instance_kind") == "GPU" else "cpu")
        self.model = HFModel(os.path.expandvars(params["model_dir"]), device=device)

    def execute(self, requests):
        responses = []
        for request in requests:
            text = pb_utils.get_input_tensor_by_name(request, "TEXT").as_numpy().reshape(-1)[0]
            prefix = pb_utils.get_input_tensor_by_name(request, "PREFIX")
            prefix = prefix.as_numpy().reshape(-1)[0].decode("utf-8") if prefix is not None else ""
            try:
                s = self.model.score(text.decode("utf-8"), prefix=prefix)
            except Exception as exc:
                responses.append(pb_utils.InferenceResponse(
                    output_tensors=[], error=pb_utils.TritonError(f"scoring failed: {exc}")))
                continue
            responses.append(pb_utils.InferenceResponse(output_tensors=[
                pb_utils.Tensor("TOKEN_IDS", np.array([s.token_ids], dtype=np.int64)),
                pb_utils.Tensor("TOKENS", np.array([[t.encode("utf-8") for t in s.tokens]],
                                                   dtype=object)),
                pb_utils.Tensor("LOGPROBS", np.array([s.logprobs], dtype=np.float32)),
            ]))
        return responses
