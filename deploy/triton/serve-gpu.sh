#!/usr/bin/env bash
# Serve triton_models/ on a GPU machine with the NGC Triton container (Triton 2.51 = 24.10).
#   deploy/triton/serve-gpu.sh MODEL_DIR [GRPC_PORT]
set -euo pipefail
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
MODEL_DIR="$(cd "${1:?usage: $0 MODEL_DIR [GRPC_PORT]}" && pwd)"
GRPC_PORT="${2:-8001}"
IMAGE="${TRITON_IMAGE:-nvcr.io/nvidia/tritonserver:24.10-py3}"
exec docker run --rm --gpus all --shm-size=8g \
  -p "$((GRPC_PORT - 1)):8000" -p "$GRPC_PORT:8001" -p "$((GRPC_PORT + 1)):8002" \
  -v "$REPO:/opt/mathprobe:ro" -v "$MODEL_DIR:/models/model:ro" \
  -e MATHPROBE_TRITON_MODEL_DIR=/models/model -e MATHPROBE_SYS_PATH=/opt/mathprobe \
  "$IMAGE" bash -c "pip install -q 'torch==2.5.*' 'transformers>=4.46' pillow && \
    tritonserver --model-repository=/opt/mathprobe/triton_models \
      --model-control-mode=explicit --load-model=lmm_generate --load-model=token_logprobs"
