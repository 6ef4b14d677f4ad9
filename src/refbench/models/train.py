"""Training the cross-encoder on CPU: seeded, dev-set early stopping, checkpoints, resume.

Every epoch ends with a dev evaluation; the best model is kept in ``DIR/model.pt`` and the full
training state (model, optimiser, scheduler, RNG, epoch, best score) in ``DIR/checkpoint/``, so
``--resume`` continues from the last finished epoch. The state holds only tensors, numbers,
strings and containers, and is read back with ``torch.load(weights_only=True)``
(:mod:`refbench.core.checkpoint`): a checkpoint file can never run code. ``--resume`` without
a checkpoint is an error, and so is starting afresh over one.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

from refbench.core.checkpoint import (
    python_rng_state,
    set_python_rng_state,
)
from refbench.core.errors import UsageError
from refbench.core.io import finite, torch_save_atomic, write_text_atomic
from refbench.core.options import Option
from refbench.core.trainer import TrainJob, shared_option
from refbench.core.types import ChoiceInstance
from refbench.models.augment import ChoiceTrainer, best_dev, held_out_split
from refbench.models.cross_encoder import DEFAULT_EVIDENCE_WORDS, HEADS, CrossEncoderModel
from refbench.models.selection import training_prologue

__all__ = ["CrossEncoderTrainer", "held_out_split", "train_cross_encoder"]


class CrossEncoderTrainer(ChoiceTrainer):
    """``refbench train --model cross-encoder``: :func:`train_cross_encoder` with its options."""

    name = "cross-encoder"
    OPTIONS = (
        Option("head", str, "joint", "the pair head", choices=HEADS, flags=("--head",)),
        shared_option("epochs", 3),
        shared_option("lr", 3e-5),
        shared_option("head_lr", None, "rate of the head and the prior's weight (default: lr)"),
        shared_option("batch_size", 8, "instances per step (each brings all its candidates)"),
        shared_option("max_length", 128),
        Option("evidence_words", int, DEFAULT_EVIDENCE_WORDS, "words of description selected "
               "per candidate (free-text tasks)", min=1, flags=("--evidence-words",)),
        shared_option("max_steps", None),
        shared_option("eval_every", None),
        shared_option("patience", 2),
        Option("freeze_layers", int, 0, "keep the embeddings and the lowest N encoder layers "
               "fixed", min=0, flags=("--freeze-layers",)),
    )

    def fit(self, train: list[ChoiceInstance], dev: list[ChoiceInstance],
            job: TrainJob) -> dict[str, Any]:
        o = self.option
        return train_cross_encoder(
            train, dev, job.out, head=o("head"), epochs=o("epochs"), lr=o("lr"),
            head_lr=o("head_lr"), batch_size=o("batch_size"), max_length=o("max_length"),
            evidence_words=o("evidence_words"), reader_options=job.reader_options,
            seed=job.seed, eval_every=o("eval_every"), patience=o("patience"),
            freeze_layers=o("freeze_layers"), max_steps=o("max_steps"), resume=job.resume,
            device=job.device, progress=job.progress)

    def done(self, report: dict[str, Any], job: TrainJob) -> str:
        return best_dev(report, f"cross-encoder:{job.out}")


def _accuracy(model: CrossEncoderModel, data: Sequence[ChoiceInstance]) -> float:
    model.net.eval()
    correct = 0
    for i in range(0, len(data), 32):
        batch = data[i:i + 32]
        for inst, out in zip(batch, model.predict(batch), strict=True):
            correct += out.answer == inst.gold
    model.net.train()
    return correct / len(data) if data else 0.0


def train_cross_encoder(
    train: Sequence[ChoiceInstance],
    dev: Sequence[ChoiceInstance],
    out: Path,
    *,
    head: str = "joint",
    epochs: int = 3,
    lr: float = 3e-5,
    head_lr: float | None = None,
    batch_size: int = 8,
    max_length: int = 128,
    evidence_words: int = DEFAULT_EVIDENCE_WORDS,
    reader_options: dict[str, Any] | None = None,
    seed: int = 13,
    patience: int = 2,
    eval_every: int | None = None,
    freeze_layers: int = 0,
    max_steps: int | None = None,
    resume: bool = False,
    device: str | None = "auto",
    progress: bool = True,
) -> dict[str, Any]:
    """Train and save; ``batch_size`` counts instances (each brings all its candidates).

    ``reader_options`` (AltEntities ``input_type``, ``max_words``) are recorded so that
    ``refbench run --model cross-encoder:DIR`` reads test data the way training data was read.
    ``eval_every`` N steps (and once before the first step) the dev set is scored too, the best
    model is kept and ``patience`` counts evaluations; so when fine-tuning never beats the
    untrained network (prior alone) on dev, the untrained network is what is saved.
    ``freeze_layers`` keeps the embeddings and the lowest N transformer layers fixed.
    """
    import torch

    if head not in HEADS:
        raise UsageError(f"unknown head {head!r}; choose from {', '.join(HEADS)}")
    ckpt = out / "checkpoint"
    train, dev, saved = training_prologue(train, dev, out=out, resume=resume,
                                          checkpoint=ckpt / "state.pt",
                                          what="cross-encoder training")
    out.mkdir(parents=True, exist_ok=True)
    domains = sorted({str(x.metadata["domain"]) for x in train if x.metadata.get("domain")})
    cfg = {"head": head, "max_length": max_length, "evidence_words": evidence_words,
           "reader": dict(reader_options or {}), "seed": seed, "lr": lr, "head_lr": head_lr,
           "eval_every": eval_every, "freeze_layers": freeze_layers,
           "batch_size": batch_size, "epochs": epochs, "n_train": len(train), "n_dev": len(dev),
           "tasks": sorted({x.task for x in train}), "train_domains": domains}
    random.seed(seed)
    torch.manual_seed(seed)
    model = CrossEncoderModel(None, head=head, max_length=max_length,
                              evidence_words=evidence_words, seed=seed, device=device)
    model.keep_selections = True  # selected once for all epochs and dev evaluations
    model.warm([*train, *dev], progress=progress)
    net = model.net
    net.train()
    if freeze_layers:
        frozen = [net.encoder.embeddings, *net.encoder.encoder.layer[:freeze_layers]]
        for module in frozen:
            for p in module.parameters():
                p.requires_grad_(False)
    # The head and the prior's weight are a few hundred numbers starting from zero and 20:
    # at the encoder's rate they barely move in an epoch, hence their own rate.
    encoder = [p for p in net.encoder.parameters() if p.requires_grad]
    own = [p for n, p in net.named_parameters() if not n.startswith("encoder.")]
    optim = torch.optim.AdamW([{"params": encoder, "lr": lr},
                               {"params": own, "lr": head_lr if head_lr is not None else lr}],
                              weight_decay=0.01)
    steps_per_epoch = (len(train) + batch_size - 1) // batch_size
    total = steps_per_epoch * epochs if max_steps is None else min(max_steps,
                                                                   steps_per_epoch * epochs)
    sched = torch.optim.lr_scheduler.LambdaLR(
        optim, lambda s: min(1.0, (s + 1) / max(1, total // 10)) * max(0.0, 1 - s / max(1, total)))
    state: dict[str, Any] = {"epoch": 0, "step": 0, "best": -1.0, "bad_epochs": 0, "log": []}
    if saved is not None:
        net.load_state_dict(saved["model"])
        optim.load_state_dict(saved["optim"])
        sched.load_state_dict(saved["sched"])
        set_python_rng_state(saved["py_rng"])
        torch.set_rng_state(saved["torch_rng"])
        state = saved["state"]
    started = time.perf_counter()
    loss_fn_bce = torch.nn.BCEWithLogitsLoss()

    def evaluate(epoch: int, loss: float | None) -> None:
        dev_acc = _accuracy(model, dev) if dev else 0.0
        state["log"].append({"epoch": epoch, "step": state["step"], "dev_accuracy": dev_acc,
                             "loss": loss, "seconds": round(time.perf_counter() - started, 1)})
        if dev_acc > state["best"] or not dev:
            state["best"] = dev_acc
            state["bad_epochs"] = 0
            torch_save_atomic(net.state_dict(), out / "model.pt")
        else:
            state["bad_epochs"] += 1
        # The log so far, for watching a long training (model.pt is the best so far).
        write_text_atomic(out / "progress.json", json.dumps(finite(state["log"]), indent=1,
                                                            allow_nan=False) + "\n")

    if eval_every and dev and state["step"] == 0:
        evaluate(0, None)
    for epoch in range(state["epoch"], epochs):
        order = list(range(len(train)))
        random.Random(seed + epoch).shuffle(order)
        bar = tqdm(range(0, len(order), batch_size), desc=f"epoch {epoch + 1}/{epochs}",
                   disable=not progress, unit="batch")
        running = 0.0
        for bi, i in enumerate(bar):
            if (max_steps is not None and state["step"] >= max_steps) or (
                    eval_every and state["bad_epochs"] >= patience):
                break
            batch = [train[j] for j in order[i:i + batch_size]]
            logits = model.logits(batch)
            loss = torch.zeros((), device=model.device)
            pos = 0
            for inst in batch:
                n_cand = len(inst.candidates)
                lg = logits[pos:pos + n_cand]
                pos += n_cand
                if head == "joint":
                    loss = loss + torch.nn.functional.cross_entropy(
                        lg.unsqueeze(0), torch.tensor([inst.gold], device=model.device))
                else:
                    target = torch.zeros(n_cand, device=model.device)
                    target[inst.gold] = 1.0
                    loss = loss + loss_fn_bce(lg, target)
            loss = loss / len(batch)
            optim.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            optim.step()
            sched.step()
            state["step"] += 1
            value = float(loss.detach())
            running = 0.9 * running + 0.1 * value if bi else value
            bar.set_postfix(loss=f"{running:.3f}")
            if eval_every and dev and state["step"] % eval_every == 0:
                evaluate(epoch + 1, running)
        if not (eval_every and state["log"] and state["log"][-1]["step"] == state["step"]):
            evaluate(epoch + 1, running)
        state["epoch"] = epoch + 1
        ckpt.mkdir(exist_ok=True)
        torch_save_atomic({"model": net.state_dict(), "optim": optim.state_dict(),
                           "sched": sched.state_dict(), "py_rng": python_rng_state(),
                           "torch_rng": torch.get_rng_state(), "state": state},
                          ckpt / "state.pt")
        write_text_atomic(out / "config.json", json.dumps(
            {**cfg, "best_dev_accuracy": state["best"], "epochs_done": state["epoch"],
             "log": state["log"]}, indent=2) + "\n")
        if state["bad_epochs"] >= patience or (max_steps is not None
                                               and state["step"] >= max_steps):
            break
    return json.loads((out / "config.json").read_text())
