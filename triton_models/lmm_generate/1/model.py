"""Triton Python-backend wrapper of HFModel.generate (see config.pbtxt)."""
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


def _scalar(request, name, default=None):
    tensor = pb_utils.get_input_tensor_by_name(request, name)
    return default if tensor is None else tensor.as_numpy().reshape(-1)[0]


class TritonPythonModel:
    def initialize(self, args):
        config = json.loads(args["model_config"])
        params = {k: v["string_value"] for k, v in config.get("parameters", {}).items()}
        model_dir = os.path.expandvars(params["model_dir"])
        device = (f"cuda:{args['model_instance_device_id']}"
                  if args.get("model_instance_kind") == "GPU" else "cpu")
        self.model = HFModel(model_dir, device=device)
        self.default_max_new = int(params.get("max_new_tokens", 1024))

    def execute(self, requests):
        parsed = []
        for request in requests:
            image = _scalar(request, "IMAGE", b"")
            parsed.append({
                "prompt": _scalar(request, "PROMPT").decode("utf-8"),
                "image": bytes(image) or None,
                "max_new": int(_scalar(request, "MAX_NEW_TOKENS", self.default_max_new)),
                "temperature": float(_scalar(request, "TEMPERATURE", 0.0)),
            })
        # one padded generate() per group of requests that can share it
        groups = {}
        for i, p in enumerate(parsed):
            groups.setdefault((p["image"] is not None, p["max_new"], p["temperature"]), []).append(i)
        results = [None] * len(requests)
        for (_, max_new, temperature), idx in groups.items():
            try:
                outs = self.model.generate([parsed[i]["prompt"] for i in idx],
                                           [parsed[i]["image"] for i in idx],
                                           max_new_tokens=max_new, temperature=temperature)
                for i, out in zip(idx, outs):
                    results[i] = out
            except Exception as exc:  # answer each request of the group with the error
                for i in idx:
                    results[i] = exc
        responses = []
        for p, out in zip(parsed, results):
            if isinstance(out, Exception):
                responses.append(pb_utils.InferenceResponse(
                    output_tensors=[], error=pb_utils.TritonError(f"generation failed: {out}")))
                continue
            responses.append(pb_utils.InferenceResponse(output_tensors=[
                pb_utils.Tensor("TEXT", np.array([[out.text.encode("utf-8")]], dtype=object)),
                pb_utils.Tensor("TOKEN_IDS", np.array([out.token_ids], dtype=np.int64)),
                pb_utils.Tensor("TOKENS", np.array([[t.encode("utf-8") for t in out.tokens]],
                                                   dtype=object)),
                pb_utils.Tensor("LOGPROBS", np.array([out.logprobs], dtype=np.float32)),
                pb_utils.Tensor("INPUT_TOKENS", np.array([[out.input_tokens]], dtype=np.int32)),
                pb_utils.Tensor("USED_IMAGE", np.array(
                    [[p["image"] is not None and self.model.multimodal]], dtype=bool)),
            ]))
        return responses
