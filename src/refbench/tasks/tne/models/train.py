"""Training the TNE span-pair model: one document per step, seeded, resumable at any step.

A CPU epoch over the 3,988 train documents takes tens of minutes to hours, so one training must
span several runs. Every ``checkpoint_every`` steps (and at the end of every epoch) the whole
state goes to ``DIR/checkpoint.pt`` in a form a safe load accepts (weights, optimiser and
scheduler state, torch RNG, position in the epoch, log); ``resume`` continues from it and gives
the same weights as a run that was never interrupted (the epoch's document order comes from the
seed and the epoch number, dropout from the saved RNG). ``max_steps`` stops a run early with a
checkpoint, so long trainings can be cut into slices.

Each epoch ends with a dev evaluation: labeled F1 for the argmax rule and for a grid of link
thresholds; the best (F1, threshold) selects ``DIR/model.pt`` and is written to
``config.json`` (``link_threshold``), which is how :class:`TneModel` decodes.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

from refbench.core.checkpoint import resume_state
from refbench.core.errors import RefbenchError, UsageError
from refbench.core.io import torch_save_atomic, write_text_atomic
from refbench.core.options import Option
from refbench.core.trainer import Trainer, TrainJob, shared_option
from refbench.tasks.tne.models.model import HEADS, TneModel
from refbench.tasks.tne.read import PREP_ID, NPDocument

THRESHOLDS = tuple(round(0.05 * k, 2) for k in range(2, 19))  # 0.10 .. 0.90
# What must match between a checkpoint and the run resuming it.
_FIXED = ("head", "encoder", "lr", "head_lr", "pos_weight", "seed", "n_train", "train_ids_head",
          "warmup_steps", "schedule_steps")


def dev_f1_by_threshold(model: TneModel, dev: Sequence[NPDocument], *,
                        progress: bool = False) -> dict[str, Any]:
    """Labeled F1 on ``dev`` (pairs; a link is right when its preposition is one of the gold
    ones, as :func:`evaluate_tne` counts) for the argmax rule and every threshold."""
    import torch

    n_gold = 0
    counts: dict[str, list[int]] = {}  # rule -> [true positives, predicted]
    for doc, logits in zip(dev, model.logits_all(dev, progress=progress, desc="tne dev"),
                           strict=True):
        gold = doc.relations or {}
        n_gold += len(gold)
        if logits is None:
            continue
        n = len(doc.nps)
        pos = doc.np_index()
        gold_preps = torch.zeros(n, n, len(PREP_ID), dtype=torch.bool)
        for (a, c), preps in gold.items():
            for p in preps:
                gold_preps[pos[a], pos[c], PREP_ID[p]] = True
        link_p, best, _, argmax_link = model.link_probabilities(logits)
        right = gold_preps.gather(-1, best.unsqueeze(-1)).squeeze(-1)
        off_diagonal = ~torch.eye(n, dtype=torch.bool)
        rules: list[tuple[str, Any]] = [("argmax", argmax_link)]
        rules += [(f"{t:.2f}", link_p >= t) for t in THRESHOLDS]
        for name, linked in rules:
            linked = linked & off_diagonal
            tally = counts.setdefault(name, [0, 0])
            tally[0] += int((linked & right).sum())
            tally[1] += int(linked.sum())
    f1 = {name: (2 * tp / (pred + n_gold) if pred + n_gold else 0.0)
          for name, (tp, pred) in counts.items()}
    best_rule = max(f1, key=lambda k: (f1[k], k == "argmax"))
    return {"f1": f1, "best_rule": best_rule, "best_f1": f1.get(best_rule, 0.0),
            "threshold": None if best_rule == "argmax" else float(best_rule)}


def _schedule(step: int, *, warmup: int, total: int) -> float:
    """Linear warm-up, then linear decay to 10% of the rate at ``total`` steps (and flat after,
    so a training extended beyond its planned epochs still learns)."""
    if step < warmup:
        return (step + 1) / warmup
    return max(0.1, 1.0 - 0.9 * (step - warmup) / max(1, total - warmup))


def train_tne(train: Sequence[NPDocument], dev: Sequence[NPDocument], out: Path, *,
              head: str = "coupled", epochs: int = 3, lr: float = 5e-5, head_lr: float = 1e-3,
              pos_weight: float = 4.0, warmup_steps: int = 300, seed: int = 13,
              resume: bool = False, max_steps: int | None = None, checkpoint_every: int = 200,
              encoder: str | None = None, device: str | None = "auto",
              progress: bool = True) -> dict[str, Any]:
    """Train (or continue training) and return the report written to ``DIR/config.json``.
    ``encoder``: a local transformers folder to fine-tune instead of MiniLM."""
    import torch

    if head not in HEADS:
        raise UsageError(f"unknown head {head!r}; choose from {', '.join(HEADS)}")
    train = [d for d in train if d.relations is not None and len(d.nps) > 1]
    if not train:
        raise RefbenchError("no labelled training documents with two or more NPs")
    out = Path(out)
    ckpt = out / "checkpoint.pt"
    saved = resume_state(ckpt, resume=resume, out=out, what="TNE training checkpoint")
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(seed)
    model = TneModel(None, head=head, seed=seed, encoder=encoder, device=device)
    model.cfg["pos_weight"] = pos_weight
    cfg: dict[str, Any] = {**model.cfg, "lr": lr, "head_lr": head_lr, "warmup_steps": warmup_steps,
                           "schedule_steps": epochs * len(train), "n_train": len(train),
                           "n_dev": len(dev), "epochs": epochs,
                           "train_ids_head": [d.id for d in train[:3]]}
    enc_params = list(model.net.encoder.parameters())
    other = [p for n, p in model.net.named_parameters() if not n.startswith("encoder.")]
    optim = torch.optim.AdamW([{"params": enc_params, "lr": lr},
                               {"params": other, "lr": head_lr}], weight_decay=0.01)
    state: dict[str, Any] = {"epoch": 0, "pos": 0, "step": 0, "best": -1.0, "best_epoch": 0,
                             "best_threshold": None, "log": [], "epoch_seconds": 0.0,
                             "running_loss": 0.0}
    # The scheduler first: creating it sets the rates, which the optimiser's state then
    # restores (the other order resumes with the warm-up's first rate for one step).
    sched = torch.optim.lr_scheduler.LambdaLR(optim, lambda s: _schedule(
        s, warmup=warmup_steps, total=int(cfg["schedule_steps"])))
    if saved is not None:
        old = saved.get("config", {})
        cfg["schedule_steps"] = old.get("schedule_steps", cfg["schedule_steps"])
        for key in _FIXED:
            if key in old and old[key] != cfg[key]:
                raise UsageError(f"--resume with {key}={cfg[key]!r}, but the checkpoint was "
                                 f"trained with {key}={old[key]!r}")
        model.net.load_state_dict(saved["model"])
        optim.load_state_dict(saved["optim"])
        sched.load_state_dict(saved["sched"])
        state = saved["state"]
        torch.set_rng_state(saved["torch_rng"])
        if saved.get("cuda_rng") and model.device.type == "cuda":
            torch.cuda.set_rng_state_all(saved["cuda_rng"])

    def save_checkpoint() -> None:
        torch_save_atomic({"model": model.net.state_dict(), "optim": optim.state_dict(),
                           "sched": sched.state_dict(), "torch_rng": torch.get_rng_state(),
                           "cuda_rng": (torch.cuda.get_rng_state_all()
                                        if model.device.type == "cuda" else []),
                           "state": state, "config": cfg}, ckpt)

    def write_config(stopped: str) -> None:
        write_text_atomic(out / "config.json", json.dumps(
            {**cfg, "link_threshold": state["best_threshold"],
             "best_dev_labeled_f1": state["best"], "best_epoch": state["best_epoch"],
             "epochs_done": state["epoch"], "steps_done": state["step"],
             "position_in_epoch": state["pos"], "stopped": stopped, "log": state["log"]},
            indent=2) + "\n")

    stopped = "epochs"
    for epoch in range(state["epoch"], epochs):
        model.net.train()
        order = list(range(len(train)))
        random.Random(seed + epoch).shuffle(order)
        segment_start = time.perf_counter()
        bar = tqdm(total=len(order), initial=state["pos"], desc=f"tne epoch {epoch + 1}/{epochs}",
                   disable=not progress, unit="doc")
        while state["pos"] < len(order):
            if max_steps is not None and state["step"] >= max_steps:
                break
            doc = train[order[state["pos"]]]
            loss = model.loss(model.pair_logits(doc), model.targets(doc))
            optim.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.net.parameters(), 1.0)
            optim.step()
            sched.step()
            value = float(loss.detach())
            state["running_loss"] = (0.98 * state["running_loss"] + 0.02 * value
                                     if state["pos"] else value)
            state["pos"] += 1
            state["step"] += 1
            bar.update(1)
            bar.set_postfix(loss=f"{state['running_loss']:.4f}")
            if checkpoint_every and state["step"] % checkpoint_every == 0:
                state["epoch_seconds"] += time.perf_counter() - segment_start
                segment_start = time.perf_counter()
                save_checkpoint()
        bar.close()
        state["epoch_seconds"] += time.perf_counter() - segment_start
        if state["pos"] < len(order):  # stopped by max_steps inside the epoch
            stopped = "max_steps"
            save_checkpoint()
            break
        evaluated = time.perf_counter()
        result = dev_f1_by_threshold(model, dev, progress=progress) if dev else None
        dev_f1 = result["best_f1"] if result else 0.0
        state["log"].append({
            "epoch": epoch + 1, "step": state["step"], "loss": round(state["running_loss"], 5),
            "train_seconds": round(state["epoch_seconds"], 1),
            "seconds_per_doc": round(state["epoch_seconds"] / len(order), 3),
            "dev_seconds": round(time.perf_counter() - evaluated, 1),
            "dev_labeled_f1": dev_f1,
            "dev_labeled_f1_argmax": result["f1"]["argmax"] if result else None,
            "dev_rule": result["best_rule"] if result else None})
        if dev_f1 >= state["best"]:
            state["best"] = dev_f1
            state["best_epoch"] = epoch + 1
            state["best_threshold"] = result["threshold"] if result else None
            torch_save_atomic(model.net.state_dict(), out / "model.pt")
        state["epoch"] = epoch + 1
        state["pos"] = 0
        state["epoch_seconds"] = 0.0
        save_checkpoint()
        write_config("running")
    write_config(stopped)
    return dict(json.loads((out / "config.json").read_text()))


class TneTrainer(Trainer):
    """``refbench train --model tne``: :func:`train_tne` on TNE documents (the same training
    as ``refbench tne train``)."""

    name = "tne"
    OPTIONS = (
        Option("head", str, "coupled", "the pair head", choices=HEADS, flags=("--head",)),
        shared_option("epochs", 3),
        shared_option("lr", 5e-5, "encoder rate"),
        shared_option("head_lr", 1e-3, "rate of the NP and pair MLPs"),
        Option("pos_weight", float, 4.0, "loss weight of linked pairs against unlinked ones",
               min=0),
        Option("warmup_steps", int, 300, "steps of rising learning rate", min=0),
        Option("limit", int, None, "train on the first N documents only", min=1),
        Option("dev_limit", int, None, "select on the first N dev documents", min=1),
        shared_option("max_steps", None, "stop (with a checkpoint) after this many steps in all"),
        shared_option("checkpoint_every", 200),
        Option("encoder", str, None, "a local transformers folder to fine-tune instead of "
               "MiniLM"),
    )

    def train(self, job: TrainJob) -> dict[str, Any]:
        from refbench.tasks.tne.read import read_documents

        if job.reader_options or job.augment:
            raise UsageError("the TNE trainer reads TNE documents as they are: it takes no "
                             "task options and no --augment")
        docs = read_documents(job.data)
        if job.dev is not None:
            dev = read_documents(job.dev)
        else:
            cut = max(1, len(docs) // 10)
            docs, dev = docs[:-cut], docs[-cut:]
        o = self.option
        return train_tne(docs[:o("limit")] if o("limit") else docs,
                         dev[:o("dev_limit")] if o("dev_limit") else dev, job.out,
                         head=o("head"), epochs=o("epochs"), lr=o("lr"), head_lr=o("head_lr"),
                         pos_weight=o("pos_weight"), warmup_steps=o("warmup_steps"),
                         seed=job.seed, resume=job.resume, max_steps=o("max_steps"),
                         checkpoint_every=o("checkpoint_every"), encoder=o("encoder"),
                         device=job.device, progress=job.progress)

    def done(self, report: dict[str, Any], job: TrainJob) -> str:
        if report["stopped"] == "max_steps":
            return (f"stopped after {report['steps_done']} steps (epoch "
                    f"{report['epochs_done'] + 1}, document {report['position_in_epoch']}); "
                    "continue with --resume")
        return (f"best dev labeled F1 {100 * report['best_dev_labeled_f1']:.1f} (epoch "
                f"{report['best_epoch']}, link threshold {report['link_threshold']}) after "
                f"{report['epochs_done']} epoch(s); model in {job.out}")
