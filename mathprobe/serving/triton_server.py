"""Start and stop `tritonserver` on a model repository, with the binary that the nvidia-pytriton
wheel ships (CPU machines; on GPU machines the NGC container is the usual way: deploy/triton/).

The recipe, checked on this workplace's machines: the wheel's python backend and the Python
3.11 stub go into one backend directory; the running interpreter's library directory comes FIRST
on LD_LIBRARY_PATH (else the stub loads the system libpython and venv C extensions fail), then
the wheel's bundled libraries. The stub's embedded interpreter ignores PYTHONPATH, so the venv's
site-packages (mathprobe's too) travel in MATHPROBE_SYS_PATH, which each model.py adds to
sys.path, to import torch, transformers and `mathprobe.serving.hf_runtime`.
"""
from __future__ import annotations

import os
import shutil
import signal
import site
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

from mathprobe.errors import MathprobeError
from mathprobe.paths import TRITON_MODELS
from mathprobe.ports import free_port

MODEL_REPOSITORY = TRITON_MODELS
MODELS = ("lmm_generate", "token_logprobs")


def _pytriton() -> Path:
    """The folder of the nvidia-pytriton wheel: found, not imported (only its tritonserver binary
    and python backend are used; its Python API would import zmq, sh, wrapt, ...)."""
    import importlib.util

    spec = importlib.util.find_spec("pytriton")
    if spec is None or not spec.submodule_search_locations:
        raise MathprobeError("the nvidia-pytriton wheel is not installed: pip install "
                             "'mathprobe[triton]'; on GPU machines the NGC Triton container is "
                             "the usual way (deploy/triton/README.md)")
    return Path(next(iter(spec.submodule_search_locations))).resolve()


def backend_directory(cache: Path | None = None) -> Path:
    """The python backend plus this interpreter's stub, assembled once in a cache directory."""
    root = _pytriton() / "tritonserver"
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    stub = root / "python_backend_stubs" / version / "triton_python_backend_stub"
    if not stub.is_file():
        raise MathprobeError(f"no Triton python backend stub for Python {version} in {root}")
    cache = cache or Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "mathprobe"
    target = cache / f"triton-backends-py{version}" / "python"
    if not (target / "triton_python_backend_stub").is_file():
        tmp = target.with_name(f"python.tmp{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(root / "backends" / "python", tmp)
        shutil.copy2(stub, tmp / "triton_python_backend_stub")
        shutil.rmtree(target, ignore_errors=True)
        tmp.rename(target)
    return target.parent


def server_env(model_dir: str | Path | None) -> dict[str, str]:
    env = dict(os.environ)
    libs = [sysconfig.get_config_var("LIBDIR"), str(_pytriton().parent / "nvidia_pytriton.libs")]
    env["LD_LIBRARY_PATH"] = os.pathsep.join(
        [p for p in libs if p] + ([env["LD_LIBRARY_PATH"]] if env.get("LD_LIBRARY_PATH") else []))
    # site-packages holds mathprobe itself (a wheel) or its editable finder (a .pth file);
    # PYTHONPATH's folders too, which the stub's embedded interpreter would not read
    paths = [*site.getsitepackages(), *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))]
    env["MATHPROBE_SYS_PATH"] = os.pathsep.join(dict.fromkeys(paths))
    if model_dir is not None:
        env["MATHPROBE_TRITON_MODEL_DIR"] = str(Path(model_dir).resolve())
    return env


class TritonServer:
    """`with TritonServer(model_dir=...) as server:` ... `server.grpc_url` ..."""

    def __init__(self, model_dir: str | Path | None = None, *,
                 model_repository: str | Path = MODEL_REPOSITORY, models: tuple[str, ...] = MODELS,
                 grpc_port: int | None = None, http_port: int | None = None,
                 log_file: str | Path | None = None):
        self.model_dir = model_dir
        self.model_repository = Path(model_repository).resolve()
        self.models = models
        self.grpc_port = grpc_port or free_port()
        self.http_port = http_port or free_port()
        self.log_file = Path(log_file) if log_file else None
        self.proc: subprocess.Popen | None = None

    @property
    def grpc_url(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    def command(self) -> list[str]:
        binary = _pytriton() / "tritonserver" / "bin" / "tritonserver"
        return [str(binary), f"--model-repository={self.model_repository}",
                f"--backend-directory={backend_directory()}",
                f"--grpc-port={self.grpc_port}", f"--http-port={self.http_port}",
                "--allow-metrics=false", "--model-control-mode=explicit",
                *(f"--load-model={m}" for m in self.models), "--log-verbose=0"]

    @property
    def process(self) -> subprocess.Popen:
        """The tritonserver process `start` launched."""
        if self.proc is None:
            raise RuntimeError("tritonserver is not started")
        return self.proc

    def start(self, timeout_s: float = 300) -> TritonServer:
        if self.model_dir is not None and not (Path(self.model_dir) / "config.json").is_file():
            raise MathprobeError(f"{self.model_dir}: not a transformers model directory "
                                 "(no config.json); build a tiny one with `mathprobe triton "
                                 "tiny-model DIR`")
        out = open(self.log_file, "ab") if self.log_file else subprocess.DEVNULL
        self.proc = subprocess.Popen(self.command(), env=server_env(self.model_dir),
                                     stdout=out, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        self._wait_ready(timeout_s)
        return self

    def _wait_ready(self, timeout_s: float) -> None:
        import tritonclient.grpc as grpcclient

        client = grpcclient.InferenceServerClient(self.grpc_url)
        deadline = time.monotonic() + timeout_s
        try:
            while time.monotonic() < deadline:
                code = self.process.poll()
                if code is not None:
                    raise MathprobeError(f"tritonserver exited with code {code} "
                                         f"while starting; {self._log_hint()}")
                try:
                    if client.is_server_ready() and all(client.is_model_ready(m) for m in self.models):
                        return
                except Exception:
                    pass
                time.sleep(0.3)
        finally:
            client.close()
        self.stop()
        raise MathprobeError(f"tritonserver not ready after {timeout_s:.0f} s; {self._log_hint()}")

    def _log_hint(self) -> str:
        if self.log_file and self.log_file.is_file():
            tail = self.log_file.read_text(errors="replace")[-2000:]
            return f"log {self.log_file}:\n{tail}"
        return "pass log_file / --log-file to keep the server's log"

    def stop(self, timeout_s: float = 30) -> None:
        """SIGTERM (Triton unloads models and exits), SIGKILL if it does not within timeout_s."""
        if self.proc is None or self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def kill(self) -> None:
        """Kill the server and its model processes at once (as a crash would)."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def __enter__(self) -> TritonServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
