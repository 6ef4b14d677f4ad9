"""``refbench llm``: the language models behind ``llm-loglik``, for use outside refbench."""

from __future__ import annotations

from pathlib import Path

import click

from refbench.core.commands import CONTEXT, OUT_DIR, print_json
from refbench.core.help_text import examples


@click.group("llm", context_settings=CONTEXT, epilog=examples(
    "refbench llm export-hf --out models/smollm2-hf"))
def llm() -> None:
    """The causal language models llm-loglik scores with."""


@llm.command("export-hf", context_settings=CONTEXT, epilog=(
    examples(
        "refbench llm export-hf --out models/smollm2-hf",
        "refbench llm export-hf llm-loglik:models/smollm2-hf --out models/m-copy  # "
        "then: vllm serve models/smollm2-hf --dtype float32",
        "refbench llm export-hf model.Q8_0.gguf --out models/m-hf  # needs: a GGUF file")))
@click.argument("spec", required=False)
@click.option("--out", type=OUT_DIR, required=True, help="The Hugging Face folder to write.")
@click.option("--overwrite", is_flag=True, help="Replace --out if it holds files.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def export_hf_cmd(spec: str | None, out: Path, overwrite: bool, as_json: bool) -> None:
    """Write the weights llm-loglik[:SPEC] scores with (SPEC: nothing for the default
    SmolLM2 GGUF, a .gguf file, a Hugging Face folder, or llm-loglik:PATH) as a Hugging Face
    folder (float32 safetensors, config, tokenizer) that an inference server such as vLLM
    loads: the server then scores exactly the weights scored in process."""
    from refbench.public.export import hf_weights

    info = hf_weights(spec, out=out, overwrite=overwrite)
    if as_json:
        print_json(info)
        return
    click.echo(f"wrote {info['architecture']} ({info['parameters']:,} parameters, float32) "
               f"from {info['source']} to {out}")
