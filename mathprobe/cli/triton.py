"""`mathprobe triton serve|tiny-model`: serve the Triton model repository on CPU, build a tiny
model (registered on the app by mathprobe.cli.main)."""
from __future__ import annotations

import threading
from pathlib import Path
from typing import Annotated

import typer

from mathprobe.cli.common import err, invocation
from mathprobe.errors import MathprobeError

app = typer.Typer(help="Triton Inference Server: serve the model repository, build a "
                "tiny model.", no_args_is_help=True)


@app.command("serve")
def triton_serve(
    model_dir: Annotated[Path, typer.Option("--model-dir", help="A transformers model directory "
                                            "(config.json, weights, tokenizer/processor).")],
    grpc_port: Annotated[int, typer.Option("--grpc-port", help="Port of the gRPC endpoint "
                                           "(what --triton-url names).")] = 8001,
    http_port: Annotated[int, typer.Option("--http-port", help="Port of the HTTP endpoint "
                                           "(health, metadata).")] = 8000,
    model_repository: Annotated[Path | None, typer.Option(
        "--model-repository", help="The Triton model repository to serve (default: "
        "mathprobe's, triton_models/).")] = None,
    log_file: Annotated[Path | None, typer.Option("--log-file", help="Keep tritonserver's log "
                                                  "in this file (default: not kept).")] = None,
) -> None:
    """Start tritonserver (the nvidia-pytriton binary, CPU) and serve until Ctrl-C / SIGTERM."""
    import signal

    from mathprobe import extras
    from mathprobe.runs import output_paths, preflight

    preflight.check_counts(grpc_port=grpc_port, http_port=http_port)
    if log_file is not None:
        output_paths.output_file("--log-file", log_file)
    extras.require("triton", "mathprobe triton serve")
    from mathprobe.serving.triton_server import MODEL_REPOSITORY, TritonServer

    server = TritonServer(model_dir, model_repository=model_repository or MODEL_REPOSITORY,
                          grpc_port=grpc_port, http_port=http_port, log_file=log_file)
    err.print(f"starting tritonserver on gRPC {server.grpc_url} (models: "
              f"{', '.join(server.models)}; model dir {model_dir}) ...")
    server.start()
    err.print(f"ready: {invocation()} run --model triton:lmm_generate --triton-url {server.grpc_url} ...")
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    try:
        while not stop.is_set() and server.process.poll() is None:
            stop.wait(1)
    finally:
        server.stop()
    if server.process.returncode not in (0, -15, None) and not stop.is_set():
        raise MathprobeError(f"tritonserver exited with code {server.process.returncode}")
    err.print("tritonserver stopped")


@app.command("tiny-model")
def triton_tiny_model(
    out: Annotated[Path, typer.Argument(help="Directory to write the model to.")],
    kind: Annotated[str, typer.Option("--kind", help="vlm (image-text-to-text) or text")] = "vlm",
    seed: Annotated[int, typer.Option("--seed", help="Seed of the random weights (the same "
                                      "seed, the same model).")] = 0,
) -> None:
    """Build a tiny randomly initialised model with an in-process trained tokenizer (offline)."""
    from mathprobe import extras
    from mathprobe.runs import output_paths, preflight

    preflight.check_counts(seed=seed)
    output_paths.output_dir("OUT", out)
    extras.require("triton", "mathprobe triton tiny-model", ("torch", "transformers"))
    from mathprobe.serving import tiny_model

    path = tiny_model.build(out, kind=kind, seed=seed)
    err.print(f"tiny {kind} model written to {path}")
