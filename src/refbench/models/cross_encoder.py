"""``cross-encoder``: MiniLM fine-tuned to score (candidate evidence, expression) pairs.

Each candidate ``k`` becomes one pair: its evidence (description, or its own sentences and the
background sentences about them) and the expression's sentence with the expression replaced by
the candidate (pronoun tasks, KnowRef eq. 1) or the expression itself (free text). Heads:

- ``joint``: one logit per pair, softmax over the candidates of an instance (cross-entropy);
- ``binary``: one logit per pair, sigmoid, trained with binary cross-entropy; at inference the
  highest-scoring candidate wins.

A trained model lives in a folder: ``config.json``, ``model.pt`` (best dev checkpoint), and
``checkpoint/`` for resuming. ``cross-encoder:DIR`` loads it; a bare ``cross-encoder`` is the
untrained MiniLM with a freshly initialised head (seeded), useful only as a control.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.types import ChoiceInstance
from refbench.models.base import ChoiceModel, ModelOutput, argmax, file_fingerprint
from refbench.models.encoder import minilm_path, quiet_transformers
from refbench.models.text import candidate_evidence, marked_expression_sentence

HEADS = ("joint", "binary")


def pair_texts(inst: ChoiceInstance) -> list[tuple[str, str]]:
    out = []
    for k, cand in enumerate(inst.candidates):
        if inst.expression_offset is not None:
            query = marked_expression_sentence(inst, replacement=cand.text)
        else:
            query = inst.expression
        out.append((candidate_evidence(inst, k), query))
    return out


def build_network(head: str, seed: int) -> Any:
    import torch
    from transformers import AutoModel

    class PairScorer(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            torch.manual_seed(seed)
            self.encoder = AutoModel.from_pretrained(str(minilm_path()), local_files_only=True)
            hidden = self.encoder.config.hidden_size
            self.dropout = torch.nn.Dropout(0.1)
            self.head = torch.nn.Linear(hidden, 1)
            self.kind = head

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            out = self.encoder(input_ids=input_ids, attention_mask=attention_mask,
                               token_type_ids=token_type_ids).last_hidden_state
            m = attention_mask.unsqueeze(-1).to(out.dtype)
            pooled = (out * m).sum(1) / m.sum(1).clamp(min=1e-9)
            return self.head(self.dropout(pooled)).squeeze(-1)

    return PairScorer()


class CrossEncoderModel(ChoiceModel):
    name = "cross-encoder"
    batch_size = 32

    def __init__(self, argument: str | None = None, **options: Any) -> None:
        super().__init__(argument, **options)
        import torch
        from transformers import AutoTokenizer

        quiet_transformers()
        self.dir = Path(argument) if argument else None
        cfg: dict[str, Any] = {"head": options.get("head", "joint"),
                               "max_length": int(options.get("max_length", 128)),
                               "seed": int(options.get("seed", 0))}
        if self.dir is not None:
            cfg_path = self.dir / "config.json"
            if not cfg_path.is_file():
                raise RefbenchError("not a trained cross-encoder folder (no config.json); "
                                    "train one with refbench train --model cross-encoder",
                                    path=self.dir)
            cfg.update(json.loads(cfg_path.read_text()))
        if cfg["head"] not in HEADS:
            raise RefbenchError(f"unknown head {cfg['head']!r}; choose from {', '.join(HEADS)}")
        self.cfg = cfg
        self.tokenizer = AutoTokenizer.from_pretrained(str(minilm_path()), local_files_only=True)
        self.net = build_network(cfg["head"], int(cfg["seed"]))
        if self.dir is not None:
            state = torch.load(self.dir / "model.pt", map_location="cpu", weights_only=True)
            self.net.load_state_dict(state)
        self.net.eval()

    def config(self) -> dict[str, Any]:
        weights = file_fingerprint(self.dir / "model.pt") if self.dir else "untrained"
        return {"name": self.name, "head": self.cfg["head"], "max_length": self.cfg["max_length"],
                "weights": weights, "seed": self.cfg.get("seed")}

    def encode_pairs(self, pairs: Sequence[tuple[str, str]]) -> Any:
        return self.tokenizer([a for a, _ in pairs], [b for _, b in pairs], padding=True,
                              truncation=True, max_length=self.cfg["max_length"],
                              return_tensors="pt")

    def logits(self, pairs: Sequence[tuple[str, str]]) -> Any:
        enc = self.encode_pairs(pairs)
        return self.net(enc["input_ids"], enc["attention_mask"], enc["token_type_ids"])

    def predict(self, batch: Sequence[ChoiceInstance]) -> list[ModelOutput]:
        import torch

        pairs = [pair_texts(inst) for inst in batch]
        flat = [p for ps in pairs for p in ps]
        with torch.inference_mode():
            scores = self.logits(flat).tolist() if flat else []
        out, i = [], 0
        for ps in pairs:
            s = tuple(float(x) for x in scores[i:i + len(ps)])
            i += len(ps)
            out.append(ModelOutput(argmax(s), s))
        return out
