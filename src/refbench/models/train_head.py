"""Training ``encoder-head``: features once (cached on disk), then epochs of the small head.

The sentence vectors of the train and dev instances are extracted first (the cost that
matters on a CPU; ``DIR/features/`` or a shared ``cache`` folder, resumable), then the head
trains for ``epochs`` passes with AdamW and a cross-entropy over each instance's candidates.
After every epoch the dev accuracy is measured and the best head so far is kept in
``DIR/head.pt`` (ties keep the earlier one); ``DIR/checkpoint/state.pt`` holds the head, the
optimiser, the RNG state and the log, so ``--resume`` continues after the last finished epoch.
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from refbench.core.checkpoint import (
    python_rng_state,
    set_python_rng_state,
)
from refbench.core.device import resolve_device
from refbench.core.errors import RefbenchError
from refbench.core.io import finite, torch_save_atomic, write_text_atomic
from refbench.core.options import Option
from refbench.core.trainer import TrainJob, shared_option
from refbench.core.types import ChoiceInstance
from refbench.models.augment import ChoiceTrainer, best_dev
from refbench.models.encoder_head import (
    FeatureCache,
    InstanceTexts,
    build_head,
    instance_texts,
    tensorise,
)
from refbench.models.selection import training_prologue


@dataclass(frozen=True)
class HeadSettings:
    epochs: int = 15
    lr: float = 3e-4
    batch_size: int = 32
    hidden: int = 64
    rank: int = 16
    dropout: float = 0.3
    weight_decay: float = 0.05
    seed: int = 13


class EncoderHeadTrainer(ChoiceTrainer):
    """``refbench train --model encoder-head``: :func:`train_encoder_head` (it scores dev after
    every epoch, so it takes no eval_every, patience, max_steps or max_length)."""

    name = "encoder-head"
    # The defaults are the recipe of the recorded KITMUS rows (docs/kitmus-head.md:
    # benchmarks/kitmus_head.py --epochs 10 --rank 0); rank 16 is --train-arg rank=16.
    OPTIONS = (
        shared_option("epochs", 10),
        shared_option("lr", 3e-4),
        shared_option("batch_size", 32),
        Option("rank", int, 0, "rank of the learnt interactions between the entity, "
               "background and pronoun vectors (0: the named features only)", min=0),
        Option("features", str, None, "the sentence-vector cache folder (default "
               "DIR/features)", flags=("--features",)),
    )

    def fit(self, train: list[ChoiceInstance], dev: list[ChoiceInstance],
            job: TrainJob) -> dict[str, Any]:
        features = self.option("features")
        return train_encoder_head(
            train, dev, job.out, settings=HeadSettings(
                epochs=self.option("epochs"), lr=self.option("lr"), seed=job.seed,
                batch_size=self.option("batch_size"), rank=self.option("rank")),
            cache=Path(features) if features else None, resume=job.resume,
            device=job.device, progress=job.progress)

    def done(self, report: dict[str, Any], job: TrainJob) -> str:
        return best_dev(report, f"encoder-head:{job.out}")


def _accuracy(net: Any, tensors: dict[str, Any], gold: Any) -> float:
    import torch

    net.eval()
    with torch.inference_mode():
        right = (net(tensors).argmax(-1) == gold).float().mean().item()
    net.train()
    return float(right)


def extract(instances: Sequence[ChoiceInstance], cache: FeatureCache, *,
            progress: bool = False) -> tuple[list[InstanceTexts], float, int]:
    """The instances' texts with their vectors cached: (texts, seconds, texts encoded)."""
    start = time.perf_counter()
    before = cache.encoded
    texts = [instance_texts(x) for x in instances]
    cache.embed((t for x in texts for t in (x.expression, *x.own, *x.background)),
                progress=progress)
    return texts, time.perf_counter() - start, cache.encoded - before


def train_encoder_head(train: Sequence[ChoiceInstance], dev: Sequence[ChoiceInstance],
                       out: Path, *, settings: HeadSettings = HeadSettings(),
                       cache: Path | None = None, resume: bool = False,
                       device: str | None = "auto", progress: bool = True) -> dict[str, Any]:
    """Train, select on ``dev`` after every epoch, save; returns the report
    (``DIR/config.json``), which also holds the measured costs."""
    import torch

    ckpt = out / "checkpoint" / "state.pt"
    train, dev, saved = training_prologue(train, dev, out=out, resume=resume, checkpoint=ckpt,
                                          what="encoder-head training", need_dev=True)
    out.mkdir(parents=True, exist_ok=True)
    features = FeatureCache(cache or out / "features")
    train_texts, t_train, n_train_enc = extract(train, features, progress=progress)
    dev_texts, t_dev, n_dev_enc = extract(dev, features, progress=progress)
    dev_ = resolve_device(device)
    tr = {k: v.to(dev_) for k, v in tensorise(train_texts, features).items()}
    dv = {k: v.to(dev_) for k, v in tensorise(dev_texts, features).items()}
    gold_tr = torch.tensor([x.gold for x in train], device=dev_)
    gold_dv = torch.tensor([x.gold for x in dev], device=dev_)
    s = settings
    random.seed(s.seed)
    net = build_head(s.hidden, s.rank, s.dropout, s.seed).to(dev_)
    net.train()
    optim = torch.optim.AdamW(net.parameters(), lr=s.lr, weight_decay=s.weight_decay)
    state: dict[str, Any] = {"epoch": 0, "best": -1.0, "best_epoch": 0, "log": []}
    if saved is not None:
        if saved["settings"] != asdict(s) or saved["n_train"] != len(train):
            raise RefbenchError("the checkpoint was made with other settings or data; start "
                                "afresh in another folder", path=ckpt)
        net.load_state_dict(saved["model"])
        optim.load_state_dict(saved["optim"])
        set_python_rng_state(saved["py_rng"])
        torch.set_rng_state(saved["torch_rng"])
        state = saved["state"]
    if state["epoch"] == 0 and not state["log"]:  # the untrained head, as a reference
        acc = _accuracy(net, dv, gold_dv)
        state["log"].append({"epoch": 0, "dev_accuracy": acc, "loss": None, "seconds": 0.0})
        state["best"] = acc
        torch_save_atomic(net.state_dict(), out / "head.pt")
    epoch_seconds: list[float] = []
    for epoch in range(state["epoch"], s.epochs):
        start = time.perf_counter()
        order = list(range(len(train)))
        random.Random(s.seed + epoch).shuffle(order)
        total = 0.0
        for i in range(0, len(order), s.batch_size):
            idx = torch.tensor(order[i:i + s.batch_size], device=dev_)
            batch = {k: v[idx] for k, v in tr.items()}
            loss = torch.nn.functional.cross_entropy(net(batch), gold_tr[idx])
            optim.zero_grad()
            loss.backward()
            optim.step()
            total += float(loss.detach()) * len(idx)
        acc = _accuracy(net, dv, gold_dv)
        seconds = time.perf_counter() - start
        epoch_seconds.append(seconds)
        state["log"].append({"epoch": epoch + 1, "dev_accuracy": acc,
                             "loss": total / len(train), "seconds": round(seconds, 3)})
        if acc > state["best"]:
            state.update(best=acc, best_epoch=epoch + 1)
            torch_save_atomic(net.state_dict(), out / "head.pt")
        state["epoch"] = epoch + 1
        torch_save_atomic({"model": net.state_dict(), "optim": optim.state_dict(),
                           "py_rng": python_rng_state(), "torch_rng": torch.get_rng_state(),
                           "state": state, "settings": asdict(s), "n_train": len(train)}, ckpt)
        write_text_atomic(out / "progress.json",
                          json.dumps(finite(state["log"]), indent=1, allow_nan=False) + "\n")
        if progress:
            print(f"epoch {epoch + 1}/{s.epochs}: loss {total / len(train):.4f}, dev {acc:.4f}"
                  f" (best {state['best']:.4f} at epoch {state['best_epoch']})", flush=True,
                  file=sys.stderr)
    report = {**asdict(s), "encoder": "all-MiniLM-L6-v2 (frozen, mean-pooled)",
              "n_train": len(train), "n_dev": len(dev),
              "tasks": sorted({x.task for x in train}),
              "best_dev_accuracy": state["best"], "best_epoch": state["best_epoch"],
              "epochs_done": state["epoch"], "log": state["log"],
              "costs": {"feature_seconds_train": round(t_train, 1),
                        "feature_seconds_dev": round(t_dev, 1),
                        "texts_encoded_train": n_train_enc, "texts_encoded_dev": n_dev_enc,
                        "texts_cached": len(features.vectors),
                        "seconds_per_epoch": round(sum(epoch_seconds) / len(epoch_seconds), 3)
                        if epoch_seconds else None}}
    write_text_atomic(out / "config.json", json.dumps(finite(report), indent=2) + "\n")
    return report
