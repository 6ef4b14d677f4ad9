"""A trainable TNE model: the paper's span-pair architecture on a MiniLM encoder.

An NP is the concatenation of the encoder's vectors for its first and last token (first
word-piece of each); separate anchor and complement MLPs (500 units) feed a pair MLP (100 units)
on [anchor; complement; anchor * complement]. Heads:

- ``coupled``: one softmax over no-relation + 24 prepositions per ordered pair;
- ``decoupled``: a link logit (sigmoid) and a preposition softmax used on links.

Targets are multi-label: a pair with two gold prepositions spreads its target over both, so no
gold preposition is dropped. Documents longer than the encoder window are encoded in
overlapping windows, each token taking its vector from the window where it is most central.
Training runs on the CPU, seeded, with a checkpoint per epoch and ``resume``.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

from refbench.core.errors import RefbenchError, UsageError
from refbench.core.io import torch_save_atomic, write_text_atomic
from refbench.models.encoder import minilm_path, quiet_transformers
from refbench.tasks.tne.predictions import Pair
from refbench.tasks.tne.read import PREP_ID, PREPOSITIONS, NPDocument

HEADS = ("coupled", "decoupled")
N_LABELS = len(PREPOSITIONS)


def build(head: str, seed: int) -> Any:
    import torch
    from transformers import AutoModel

    class SpanPair(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            torch.manual_seed(seed)
            self.encoder = AutoModel.from_pretrained(str(minilm_path()), local_files_only=True)
            h = 2 * self.encoder.config.hidden_size
            self.anchor = torch.nn.Sequential(torch.nn.Linear(h, 500), torch.nn.ReLU(),
                                              torch.nn.Dropout(0.1))
            self.complement = torch.nn.Sequential(torch.nn.Linear(h, 500), torch.nn.ReLU(),
                                                  torch.nn.Dropout(0.1))
            self.pair = torch.nn.Sequential(torch.nn.Linear(1500, 100), torch.nn.ReLU())
            self.out = torch.nn.Linear(100, N_LABELS if head == "coupled" else 1 + N_LABELS - 1)
            self.head = head

    return SpanPair()


class TneModel:
    def __init__(self, directory: str | Path | None = None, *, head: str = "coupled",
                 seed: int = 13, window: int = 256, stride: int = 192) -> None:
        import torch
        from transformers import AutoTokenizer

        quiet_transformers()
        self.cfg: dict[str, Any] = {"head": head, "seed": seed, "window": window,
                                    "stride": stride}
        self.dir = Path(directory) if directory else None
        if self.dir is not None and (self.dir / "config.json").is_file():
            self.cfg.update(json.loads((self.dir / "config.json").read_text()))
        if self.cfg["head"] not in HEADS:
            raise UsageError(f"unknown head {self.cfg['head']!r}; choose from {', '.join(HEADS)}")
        self.tok = AutoTokenizer.from_pretrained(str(minilm_path()), local_files_only=True)
        self.net = build(self.cfg["head"], int(self.cfg["seed"]))
        if self.dir is not None and (self.dir / "model.pt").is_file():
            self.net.load_state_dict(torch.load(self.dir / "model.pt", map_location="cpu",
                                                weights_only=True))
        self.net.eval()

    # -- encoding ---------------------------------------------------------------------------
    def token_vectors(self, words: Sequence[str]) -> Any:
        """One vector per input word (its first word-piece), over sliding windows."""
        import torch

        words = [w if w.strip() else "[SEP]" for w in words]
        enc = self.tok(list(words), is_split_into_words=True, add_special_tokens=False)
        ids: list[int] = enc["input_ids"]
        word_ids = enc.word_ids()
        first_piece: dict[int, int] = {}
        for k, w in enumerate(word_ids):
            if w is not None and w not in first_piece:
                first_piece[w] = k
        win, stride = int(self.cfg["window"]) - 2, int(self.cfg["stride"])
        hidden = self.net.encoder.config.hidden_size
        vecs = torch.zeros(len(ids), hidden)
        best = torch.full((len(ids),), -1.0)
        starts = list(range(0, max(1, len(ids) - win) + 1, stride))
        if starts[-1] + win < len(ids):
            starts.append(len(ids) - win)
        for s in starts:
            chunk = ids[s:s + win]
            inp = torch.tensor([[self.tok.cls_token_id, *chunk, self.tok.sep_token_id]])
            out = self.net.encoder(input_ids=inp,
                                   attention_mask=torch.ones_like(inp)).last_hidden_state[0, 1:-1]
            centre = torch.arange(len(chunk), dtype=torch.float)
            centrality = torch.minimum(centre, len(chunk) - 1 - centre)
            take = centrality > best[s:s + len(chunk)]
            idx = torch.arange(s, s + len(chunk))[take]
            vecs = vecs.index_copy(0, idx, out[take])
            best[idx] = centrality[take]
        return vecs[[first_piece.get(w, 0) for w in range(len(words))]]

    def pair_logits(self, doc: NPDocument) -> Any:
        import torch

        tv = self.token_vectors(doc.tokens)
        spans = torch.cat([tv[[n.first_token for n in doc.nps]],
                           tv[[n.last_token for n in doc.nps]]], dim=-1)
        a = self.net.anchor(spans)
        c = self.net.complement(spans)
        n = len(doc.nps)
        aa = a.unsqueeze(1).expand(n, n, -1)
        cc = c.unsqueeze(0).expand(n, n, -1)
        return self.net.out(self.net.pair(torch.cat([aa, cc, aa * cc], dim=-1)))

    # -- targets, loss, decoding --------------------------------------------------------------
    def targets(self, doc: NPDocument) -> Any:
        import torch

        n = len(doc.nps)
        pos = doc.np_index()
        t = torch.zeros(n, n, N_LABELS)
        t[:, :, 0] = 1.0
        for (a, c), preps in (doc.relations or {}).items():
            i, j = pos[a], pos[c]
            t[i, j, 0] = 0.0
            for p in preps:
                t[i, j, PREP_ID[p]] = 1.0 / len(preps)
        return t

    def loss(self, logits: Any, target: Any) -> Any:
        """Cross-entropy with soft multi-label targets; linked pairs weigh ``pos_weight`` times
        more than unlinked ones (about 95% of the pairs have no relation)."""
        import torch

        n = logits.shape[0]
        mask = ~torch.eye(n, dtype=torch.bool)
        logits, target = logits[mask], target[mask]
        link_target = 1.0 - target[:, 0]
        weight = 1.0 + (float(self.cfg.get("pos_weight", 4.0)) - 1.0) * link_target
        if self.cfg["head"] == "coupled":
            per_pair = -(target * torch.log_softmax(logits, -1)).sum(-1)
            return (weight * per_pair).sum() / weight.sum()
        link = torch.nn.functional.binary_cross_entropy_with_logits(
            logits[:, 0], link_target, weight=weight)
        has = link_target > 0
        if not has.any():
            return link
        prep = -(target[has, 1:] * torch.log_softmax(logits[has, 1:], -1)).sum(-1).mean()
        return link + prep

    def decode(self, doc: NPDocument, logits: Any) -> tuple[dict[Pair, str],
                                                             dict[Pair, dict[str, float]]]:
        import torch

        ids = [n.id for n in doc.nps]
        rel: dict[Pair, str] = {}
        scores: dict[Pair, dict[str, float]] = {}
        if self.cfg["head"] == "coupled":
            probs = torch.softmax(logits, -1)
            link_p = 1.0 - probs[:, :, 0]
            prep_p = probs[:, :, 1:]
        else:
            link_p = torch.sigmoid(logits[:, :, 0])
            prep_p = torch.softmax(logits[:, :, 1:], -1)
        best = prep_p.argmax(-1)
        for i, a in enumerate(ids):
            for j, c in enumerate(ids):
                if i == j:
                    continue
                p = PREPOSITIONS[1 + int(best[i, j])]
                scores[(a, c)] = {"no-relation": float(1 - link_p[i, j]),
                                  p: float(prep_p[i, j, int(best[i, j])])}
                if self.cfg["head"] == "coupled":
                    if int(probs[i, j].argmax()) != 0:
                        rel[(a, c)] = PREPOSITIONS[int(probs[i, j].argmax())]
                elif float(link_p[i, j]) > 0.5:
                    rel[(a, c)] = p
        return rel, scores

    def predict(self, docs: Sequence[NPDocument], *, progress: bool = False
                ) -> list[tuple[dict[Pair, str], dict[Pair, dict[str, float]]]]:
        import torch

        out = []
        self.net.eval()
        with torch.inference_mode():
            for doc in tqdm(docs, desc="tne predict", disable=not progress, unit="doc"):
                out.append(self.decode(doc, self.pair_logits(doc)) if len(doc.nps) > 1
                           else ({}, {}))
        return out


def train_tne(train: Sequence[NPDocument], dev: Sequence[NPDocument], out: Path, *,
              head: str = "coupled", epochs: int = 3, lr: float = 5e-5, head_lr: float = 1e-3,
              pos_weight: float = 4.0, seed: int = 13, resume: bool = False,
              max_docs: int | None = None, progress: bool = True) -> dict[str, Any]:
    import torch

    from refbench.tasks.tne.metrics import evaluate_tne
    from refbench.tasks.tne.predictions import TnePrediction

    train = [d for d in train if d.relations is not None and len(d.nps) > 1]
    if not train:
        raise RefbenchError("no labelled training documents")
    out.mkdir(parents=True, exist_ok=True)
    random.seed(seed)
    torch.manual_seed(seed)
    model = TneModel(None, head=head, seed=seed)
    model.cfg["pos_weight"] = pos_weight
    enc_params = list(model.net.encoder.parameters())
    other = [p for n, p in model.net.named_parameters() if not n.startswith("encoder.")]
    optim = torch.optim.AdamW([{"params": enc_params, "lr": lr},
                               {"params": other, "lr": head_lr}], weight_decay=0.01)
    state: dict[str, Any] = {"epoch": 0, "best": -1.0, "log": []}
    ckpt = out / "checkpoint.pt"
    if resume and ckpt.is_file():
        saved = torch.load(ckpt, map_location="cpu", weights_only=False)
        model.net.load_state_dict(saved["model"])
        optim.load_state_dict(saved["optim"])
        state = saved["state"]
    cfg = {**model.cfg, "epochs": epochs, "lr": lr, "head_lr": head_lr, "n_train": len(train),
           "n_dev": len(dev)}
    started = time.perf_counter()
    for epoch in range(state["epoch"], epochs):
        model.net.train()
        order = list(range(len(train)))
        random.Random(seed + epoch).shuffle(order)
        if max_docs:
            order = order[:max_docs]
        bar = tqdm(order, desc=f"tne epoch {epoch + 1}/{epochs}", disable=not progress,
                   unit="doc")
        running = 0.0
        for k, i in enumerate(bar):
            doc = train[i]
            loss = model.loss(model.pair_logits(doc), model.targets(doc))
            optim.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.net.parameters(), 1.0)
            optim.step()
            value = float(loss.detach())
            running = 0.95 * running + 0.05 * value if k else value
            bar.set_postfix(loss=f"{running:.4f}")
        dev_f1 = 0.0
        if dev:
            preds = model.predict(dev)
            r = evaluate_tne(dev, {d.id: TnePrediction(d.id, rel) for d, (rel, _) in
                                   zip(dev, preds, strict=True)})
            dev_f1 = r["labeled_f1"]
        state["log"].append({"epoch": epoch + 1, "dev_labeled_f1": dev_f1, "loss": running,
                             "seconds": round(time.perf_counter() - started, 1)})
        if dev_f1 >= state["best"]:
            state["best"] = dev_f1
            torch_save_atomic(model.net.state_dict(), out / "model.pt")
        state["epoch"] = epoch + 1
        torch_save_atomic({"model": model.net.state_dict(), "optim": optim.state_dict(),
                           "state": state}, ckpt)
        write_text_atomic(out / "config.json", json.dumps(
            {**cfg, "best_dev_labeled_f1": state["best"], "epochs_done": state["epoch"],
             "log": state["log"]}, indent=2) + "\n")
    return json.loads((out / "config.json").read_text())
