#!/usr/bin/env bash
# Serve triton_models/ on CPU with the tritonserver binary of the nvidia-pytriton wheel.
#   deploy/triton/serve-cpu.sh MODEL_DIR [GRPC_PORT]
set -euo pipefail
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
MODEL_DIR="${1:?usage: $0 MODEL_DIR [GRPC_PORT]}"
GRPC_PORT="${2:-8001}"
exec "$REPO/.venv/bin/mathprobe" triton serve --model-dir "$MODEL_DIR" --grpc-port "$GRPC_PORT" \
    --http-port "$((GRPC_PORT - 1))" --log-file "${LOG_FILE:-/tmp/mathprobe-triton.log}"
