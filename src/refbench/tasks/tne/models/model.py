"""A trainable TNE model: the paper's span-pair architecture on a MiniLM encoder.

An NP is the concatenation of the encoder's vectors for its first and last token (first
word-piece of each); separate anchor and complement MLPs (500 units) feed a pair MLP (100 units)
on [anchor; complement; anchor * complement]. Heads:

- ``coupled``: one softmax over no-relation + 24 prepositions per ordered pair;
- ``decoupled``: a link logit (sigmoid) and a preposition softmax used on links.

Targets are multi-label: a pair with two gold prepositions spreads its target over both, so no
gold preposition is dropped. Documents longer than the encoder window are encoded in
overlapping windows, each token taking its vector from the window where it is most central.

A pair is linked when its link probability (coupled: 1 - p(no-relation)) reaches the model's
``link_threshold``, chosen on dev during training (None for the coupled head means the plain
argmax over the 25 classes). Training lives in :mod:`refbench.tasks.tne.models.train`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

from refbench.core.checkpoint import load_safe, load_state_dict
from refbench.core.device import resolve_device
from refbench.core.errors import RefbenchError, UsageError
from refbench.nlp.encoder import minilm_path, quiet_transformers
from refbench.tasks.tne.predictions import Pair
from refbench.tasks.tne.read import PREP_ID, PREPOSITIONS, NPDocument

HEADS = ("coupled", "decoupled")
N_LABELS = len(PREPOSITIONS)


def build(head: str, seed: int, encoder: str | None = None) -> Any:
    """The network; ``encoder`` is a local transformers folder (default: MiniLM)."""
    import torch
    from transformers import AutoModel

    class SpanPair(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            torch.manual_seed(seed)
            self.encoder = AutoModel.from_pretrained(encoder or str(minilm_path()),
                                                     local_files_only=True)
            h = 2 * self.encoder.config.hidden_size
            self.anchor = torch.nn.Sequential(torch.nn.Linear(h, 500), torch.nn.ReLU(),
                                              torch.nn.Dropout(0.1))
            self.complement = torch.nn.Sequential(torch.nn.Linear(h, 500), torch.nn.ReLU(),
                                                  torch.nn.Dropout(0.1))
            self.pair = torch.nn.Sequential(torch.nn.Linear(1500, 100), torch.nn.ReLU())
            self.out = torch.nn.Linear(100, N_LABELS if head == "coupled" else 1 + N_LABELS - 1)
            self.head = head

    return SpanPair()


def read_model_config(directory: Path) -> dict[str, Any]:
    """A trained model folder's ``config.json``; a folder without one (or without
    ``model.pt``) is an error naming it, so no command ever predicts with an untrained net."""
    cfg_path = directory / "config.json"
    if not directory.is_dir():
        raise RefbenchError("no such TNE model folder (train one with refbench tne train)",
                            path=directory)
    if not cfg_path.is_file() or not (directory / "model.pt").is_file():
        missing = "config.json" if not cfg_path.is_file() else "model.pt"
        raise RefbenchError(f"not a trained TNE model folder (no {missing}; train one with "
                            "refbench tne train)", path=directory)
    try:
        cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RefbenchError(f"unreadable model config ({exc})", path=cfg_path) from None
    if not isinstance(cfg, dict):
        raise RefbenchError("model config must be a JSON object", path=cfg_path)
    return cfg

class TneModel:
    """The span-pair network with its tokenizer, loaded from a trained folder (``directory``)
    or freshly initialised (``directory=None``, for training)."""

    def __init__(self, directory: str | Path | None = None, *, head: str = "coupled",
                 seed: int = 13, window: int = 256, stride: int = 192,
                 encoder: str | None = None, device: str | None = "auto") -> None:
        self.cfg: dict[str, Any] = {"head": head, "seed": seed, "window": window,
                                    "stride": stride, "link_threshold": None,
                                    "encoder": encoder}
        self.dir = Path(directory) if directory else None
        if self.dir is not None:
            self.cfg.update(read_model_config(self.dir))
        if self.cfg["head"] not in HEADS:
            raise UsageError(f"unknown head {self.cfg['head']!r}; choose from {', '.join(HEADS)}")
        self.device = resolve_device(device)
        # Read the weights before building the network: a broken file fails fast.
        weights = self.dir / "model.pt" if self.dir is not None else None
        state = load_safe(weights, what="TNE model weights") if weights is not None else None
        from transformers import AutoTokenizer

        quiet_transformers()
        where = self.cfg.get("encoder") or str(minilm_path())
        self.tok = AutoTokenizer.from_pretrained(where, local_files_only=True)
        self.net = build(self.cfg["head"], int(self.cfg["seed"]), where)
        if state is not None:
            load_state_dict(self.net, state, what="TNE model weights", path=weights)
        self.net.to(self.device)
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
        dev = self.device
        vecs = torch.zeros(len(ids), hidden, device=dev)
        best = torch.full((len(ids),), -1.0, device=dev)
        starts = list(range(0, max(1, len(ids) - win) + 1, stride))
        if starts[-1] + win < len(ids):
            starts.append(len(ids) - win)
        for s in starts:
            chunk = ids[s:s + win]
            inp = torch.tensor([[self.tok.cls_token_id, *chunk, self.tok.sep_token_id]],
                               device=dev)
            out = self.net.encoder(input_ids=inp,
                                   attention_mask=torch.ones_like(inp)).last_hidden_state[0, 1:-1]
            centre = torch.arange(len(chunk), dtype=torch.float, device=dev)
            centrality = torch.minimum(centre, len(chunk) - 1 - centre)
            take = centrality > best[s:s + len(chunk)]
            idx = torch.arange(s, s + len(chunk), device=dev)[take]
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
        t = torch.zeros(n, n, N_LABELS, device=self.device)
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
        mask = ~torch.eye(n, dtype=torch.bool, device=logits.device)
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

    def link_probabilities(self, logits: Any) -> tuple[Any, Any, Any, Any]:
        """Per pair, n x n on the CPU: the link probability, the best preposition (index into
        PREPOSITIONS), its probability (coupled: of that class; decoupled: among prepositions),
        and the argmax decision."""
        import torch

        logits = logits.float().cpu()
        if self.cfg["head"] == "coupled":
            probs = torch.softmax(logits, -1)
            link_p = 1.0 - probs[:, :, 0]
            prep_p = probs[:, :, 1:]
            argmax_link = probs.argmax(-1) != 0
        else:
            link_p = torch.sigmoid(logits[:, :, 0])
            prep_p = torch.softmax(logits[:, :, 1:], -1)
            argmax_link = link_p > 0.5
        best_p, best = prep_p.max(-1)
        return link_p, best + 1, best_p, argmax_link

    def linked(self, link_p: Any, argmax_link: Any, threshold: float | None = None) -> Any:
        """Which pairs are linked: ``link_p >= threshold``, or the argmax rule when there is
        no threshold (coupled: a preposition beats no-relation; decoupled: p > 0.5)."""
        t = self.cfg.get("link_threshold") if threshold is None else threshold
        return argmax_link if t is None else link_p >= float(t)

    def decode(self, doc: NPDocument, logits: Any) -> tuple[dict[Pair, str],
                                                             dict[Pair, dict[str, float]]]:
        ids = [n.id for n in doc.nps]
        link_p, best, best_p, argmax_link = self.link_probabilities(logits)
        linked = self.linked(link_p, argmax_link).tolist()
        link_l, best_l, best_pl = link_p.tolist(), best.tolist(), best_p.tolist()
        rel: dict[Pair, str] = {}
        scores: dict[Pair, dict[str, float]] = {}
        for i, a in enumerate(ids):
            for j, c in enumerate(ids):
                if i == j:
                    continue
                p = PREPOSITIONS[best_l[i][j]]
                scores[(a, c)] = {"no-relation": 1.0 - link_l[i][j], p: best_pl[i][j]}
                if linked[i][j]:
                    rel[(a, c)] = p
        return rel, scores

    def logits_all(self, docs: Sequence[NPDocument], *, progress: bool = False,
                   desc: str = "tne predict") -> list[Any]:
        """Pair logits of every document (None for documents with fewer than two NPs)."""
        import torch

        out = []
        self.net.eval()
        with torch.inference_mode():
            for doc in tqdm(docs, desc=desc, disable=not progress, unit="doc"):
                out.append(self.pair_logits(doc).cpu() if len(doc.nps) > 1 else None)
        return out

    def predict(self, docs: Sequence[NPDocument], *, progress: bool = False
                ) -> list[tuple[dict[Pair, str], dict[Pair, dict[str, float]]]]:
        return [self.decode(doc, lg) if lg is not None else ({}, {})
                for doc, lg in zip(docs, self.logits_all(docs, progress=progress), strict=True)]
