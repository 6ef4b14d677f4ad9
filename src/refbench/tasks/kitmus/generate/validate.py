"""Re-check a KITMUS suite, refbench's or the official release.

Checks: (0) every format and view of a subtask split holds the same instance ids, no file is
missing where other splits or views have one, and nothing else stands where a file belongs;
(1) every format and view names the same answer for every instance (native JSONL, CoNLL,
e2e jsonlines, GAP TSV), knowledge-text-only views name the same entities; (2) each document's
annotation is well formed (its parts found from structure, ``structure.locate``: the pronoun in
exactly one cluster, holding exactly one entity); (3) train/validation/test share no names
(and, with native files, no occupations, locations, templates or noise); (4) answer positions
are balanced: in no subtask split does a position baseline (``first``: the answer is the first
name of the meet sentence; ``last``/``nearest``: the last) have a 95% interval that excludes
chance.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tqdm import tqdm

from refbench.core.errors import RefbenchError
from refbench.core.inputs import format_name
from refbench.core.io import read_lines
from refbench.formats.conll2012 import ConllDocument, read_conll
from refbench.formats.e2e_jsonlines import read_jsonlines
from refbench.formats.gap_tsv import read_gap
from refbench.metrics.intervals import wilson
from refbench.tasks.kitmus.instance import SPLITS, SUBTASK_DIR, VIEWS
from refbench.tasks.kitmus.native import read_native
from refbench.tasks.kitmus.score.gold import instance_key
from refbench.tasks.kitmus.structure import StructureError, locate_or_none

# The checks, as named in the report.
FILES = "every file holds every instance"
AGREE = "formats and views agree"
ANNOTATION = "annotation well formed"
OVERLAP = "split overlap"
BALANCE = "answer-position balance"
MIN_FOR_BALANCE = 50  # fewer instances than this: shares are reported, not tested


class _Collector:
    def __init__(self) -> None:
        self.answers: dict[str, dict[str, str]] = defaultdict(dict)  # key -> source -> name
        self.entities: dict[str, dict[str, frozenset[str]]] = defaultdict(dict)
        self.positions: dict[str, Counter[int]] = defaultdict(Counter)
        self.pools: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        self.violations: list[str] = []
        self.by_check: Counter[str] = Counter()
        self.instances: set[str] = set()
        # (variant/subtask/split) -> source (format/view) -> instance keys it holds
        self.held: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        self.files = 0

    def bad(self, where: str, what: str, *, check: str) -> None:
        self.violations.append(f"{where}: {what}")
        self.by_check[check] += 1


def _resolve(clusters: list[list[tuple[Any, str, bool]]], where: str,
             col: _Collector) -> tuple[str | None, frozenset[str]]:
    """From clusters of (position, surface, is_pronoun): the answer name and entity names."""
    names = frozenset(s for c in clusters for _, s, p in c if not p)
    with_pron = [c for c in clusters if any(p for _, _, p in c)]
    if not with_pron:
        return None, names
    if len(with_pron) != 1:
        col.bad(where, f"the pronoun is in {len(with_pron)} clusters", check=ANNOTATION)
        return None, names
    antecedents = {s for _, s, p in with_pron[0] if not p}
    if len(antecedents) != 1:
        col.bad(where, f"the pronoun's cluster holds {len(antecedents)} entities", check=ANNOTATION)
        return None, names
    return next(iter(antecedents)), names


def _meet_position(clusters: list[list[tuple[Any, str, bool]]]) -> int | None:
    """Answer position among the entities in the sentence that names them all (the meet)."""
    by_sentence: dict[int, list[tuple[int, int]]] = defaultdict(list)
    pron_cluster = next((k for k, c in enumerate(clusters) if any(p for _, _, p in c)), None)
    for k, c in enumerate(clusters):
        for pos, _, p in c:
            if not p:
                by_sentence[pos[0]].append((pos[1], k))
    full = [s for s, items in by_sentence.items() if len({k for _, k in items}) == len(clusters)]
    if not full or pron_cluster is None:
        return None
    order = [k for _, k in sorted(by_sentence[max(full)])]
    return order.index(pron_cluster) if pron_cluster in order else None


def _structured_clusters(doc: ConllDocument, where: str, col: _Collector
                         ) -> list[list[tuple[Any, str, bool]]] | None:
    """Clusters of (position, surface, is_pronoun); the pronoun is found by
    :func:`structure.locate` (never by spelling). None, with a violation, if malformed."""
    refs = [(m.sentence, m.start, m.end, cid) for cid, ms in doc.clusters.items() for m in ms]
    try:
        found = locate_or_none(refs)
    except StructureError as exc:
        col.bad(where, str(exc), check=ANNOTATION)
        return None
    pronoun = found.pronoun[:3] if found is not None else None
    return [[((m.sentence, m.start), doc.words(m), (m.sentence, m.start, m.end) == pronoun)
             for m in ms] for _, ms in sorted(doc.clusters.items())]


def _conll(path: Path, source: str, col: _Collector) -> set[str]:
    return {_document(doc, path, source, col) for doc in read_conll(path)}


def _jsonlines(path: Path, source: str, col: _Collector) -> set[str]:
    return {_document(jdoc.to_conll_document(path=path), path, source, col)
            for jdoc in read_jsonlines(path)}


def _document(doc: ConllDocument, path: Path, source: str, col: _Collector) -> str:
    key = instance_key(doc.doc_id)
    clusters = _structured_clusters(doc, f"{path}: {doc.doc_id}", col)
    if clusters is None:
        return key
    answer, names = _resolve(clusters, f"{path}: {doc.doc_id}", col)
    col.entities[key][source] = names
    if source.startswith("conll/"):
        col.pools[key.rsplit("/", 1)[-1].split(":")[0]]["names"].update(names)
    if answer is not None:
        col.answers[key][source] = answer
        pos = _meet_position(clusters)
        if pos is not None and source == "conll/full-text":
            col.positions[_group(path)][pos] += 1
    return key


def _gap(path: Path, source: str, col: _Collector) -> set[str]:
    keys = set()
    for row in read_gap(path):
        key = instance_key(row.id)
        keys.add(key)
        if row.a_coref == row.b_coref:
            col.bad(f"{path}:{row.line}", f"{row.id}: A-coref and B-coref are both "
                    f"{'TRUE' if row.a_coref else 'FALSE'}", check=ANNOTATION)
            continue
        col.answers[key][source] = row.a if row.a_coref else row.b
    return keys


def _native(path: Path, source: str, col: _Collector) -> set[str]:
    split = path.name.split(".")[0]
    keys = set()
    for inst in read_native(path):
        key = instance_key(inst.id)
        keys.add(key)
        col.answers[key][source] = inst.entities[inst.answer].name
        col.entities[key][source] = frozenset(e.name for e in inst.entities)
        pools = col.pools[split]
        pools["names"].update(e.name for e in inst.entities)
        pools["occupations"].update(e.occupation for e in inst.entities)
        pools[f"locations:{inst.location_kind}"].add(inst.location)
        for kind, ids in inst.templates.items():
            pools[f"templates:{kind}"].update(ids)
        if inst.noise_id:
            pools[f"noise:{inst.noise_id.split(':')[0]}"].add(inst.noise_id)
    return keys


def _txt(path: Path, source: str, col: _Collector) -> set[str]:
    """``.txt``: blocks of an id line and a text line, separated by blank lines."""
    keys = set()
    block: list[str] = []
    for number, line in [*read_lines(path), (-1, "")]:
        if line.strip():
            block.append(line)
            continue
        if block:
            keys.add(instance_key(block[0].strip()))
            if len(block) != 2:
                col.bad(f"{path}:{number}", f"expected an id line and a text line, found "
                        f"{len(block)} line(s)", check=FILES)
        block = []
    return keys


Reader = Callable[[Path, str, _Collector], set[str]]
_FORMATS: dict[str, tuple[str, Reader]] = {
    ".v4_gold_conll": ("conll", _conll), ".jsonlines": ("jsonlines", _jsonlines),
    ".tsv": ("tsv", _gap), ".txt": ("txt", _txt)}


def _group(path: Path) -> str:
    """variant/subtask/split of a suite file (views share it)."""
    subtask = path.parent.parent if path.parent.name in VIEWS else path.parent
    return f"{subtask.parent.name}/{subtask.name}/{path.name.split('.')[0]}"


def _layout(subtask: Path, col: _Collector) -> list[tuple[Path, Reader, str]]:
    """The files of a subtask as (path, reader, source), with violations for folders where
    files belong and for formats or views present for one split and missing for another."""
    found: list[tuple[Path, Reader, str]] = []
    for entry in sorted(subtask.rglob("*")):
        name = format_name(entry)
        in_view = entry.parent.name in VIEWS and entry.parent.parent == subtask
        fmt = next((f for e, f in _FORMATS.items() if name.endswith(e)), None)
        native = entry.parent == subtask and name.endswith(".jsonl")
        if not (in_view and fmt) and not native:
            continue
        if not entry.is_file():
            col.bad(str(entry), "expected a file, found a folder or something else", check=FILES)
            continue
        if fmt is not None and in_view:
            found.append((entry, fmt[1], f"{fmt[0]}/{entry.parent.name}"))
        else:
            found.append((entry, _native, "jsonl"))
    splits = {p.name.split(".")[0] for p, _, _ in found}
    sources = {src for _, _, src in found}
    have = {(p.name.split(".")[0], src) for p, _, src in found}
    for split in sorted(splits):
        for src in sorted(sources):
            if (split, src) not in have:
                col.bad(str(subtask), f"{split}: no {src} file although other splits have one",
                        check=FILES)
    views = {src.split("/")[1] for src in sources if "/" in src}
    for name in sorted({src.split("/")[0] for src in sources if "/" in src}):
        for view in sorted(views):
            if name == "tsv" and view == "knowledge-text-only":
                continue  # a GAP row needs the pronoun
            if f"{name}/{view}" not in sources:
                col.bad(str(subtask), f"no {name} file in {view} although other views have one",
                        check=FILES)
    return found


def _check_holdings(col: _Collector) -> None:
    """Every format and view of a subtask split holds the same instance ids."""
    for group, by_source in sorted(col.held.items()):
        union = set().union(*by_source.values())
        for source, keys in sorted(by_source.items()):
            missing = sorted(union - keys)
            if missing:
                col.bad(group, f"{source} holds {len(keys)} instances, the other files "
                        f"{len(union)}; missing: {', '.join(missing[:5])}"
                        + (" ..." if len(missing) > 5 else ""), check=FILES)


def validate_suite(directory: str | Path, *, progress: bool = True) -> dict[str, Any]:
    root = Path(directory)
    if not root.is_dir():
        raise RefbenchError("suite folder not found", path=root)
    subtasks = sorted(p for p in root.rglob("*") if p.is_dir() and SUBTASK_DIR.match(p.name))
    if not subtasks:
        raise RefbenchError("no subtask_<n>_ents folders found: not a KITMUS suite", path=root)
    col = _Collector()
    files = [f for sub in subtasks for f in _layout(sub, col)]
    for f, reader, source in tqdm(files, desc="kitmus validate", unit="file",
                                  disable=not progress):
        col.files += 1
        keys = reader(f, source, col)
        col.instances |= keys
        col.held[_group(f)][source] |= keys
    _check_holdings(col)
    _check_agreement(col)
    overlap, notes = _check_overlap(col)
    balance = _check_balance(col)
    checks = {
        FILES: _status(col, FILES),
        AGREE: _status(col, AGREE),
        ANNOTATION: _status(col, ANNOTATION),
        OVERLAP: _status(col, OVERLAP),
        BALANCE: balance["status"],
    }
    return {
        "directory": str(root),
        "files": col.files,
        "subtasks": len(subtasks),
        "instances": len(col.instances),
        "checks": checks,
        "split_overlap": overlap,
        "notes": notes,
        "answer_positions": balance["positions"],
        "position_baselines": balance["position_baselines"],
        "violations": col.violations,
        "ok": not col.violations,
    }


def _status(col: _Collector, check: str) -> str:
    n = col.by_check[check]
    return "ok" if n == 0 else f"{n} violation(s)"


def _check_agreement(col: _Collector) -> None:
    for key in sorted(col.instances):
        answers = col.answers.get(key, {})
        if len(set(answers.values())) > 1:
            col.bad(key, "formats disagree on the answer: "
                    + ", ".join(f"{s}={a}" for s, a in sorted(answers.items())), check=AGREE)
        entity_sets = col.entities.get(key, {})
        if len(set(entity_sets.values())) > 1:
            col.bad(key, "formats disagree on the entities: "
                    + ", ".join(f"{s}={sorted(e)}" for s, e in sorted(entity_sets.items())),
                    check=AGREE)


def _check_overlap(col: _Collector) -> tuple[dict[str, dict[str, int]], list[str]]:
    """Items shared between splits, per pool (names; occupations; locations, templates and noise
    per kind). A pool with fewer distinct items than splits cannot be split (the official
    resources have one background-knowledge and one entity-knowledge template): its sharing is
    forced, listed as a note, not a violation. Any other shared item is a violation."""
    splits = sorted(col.pools)
    pool_names = sorted({pool for sp in splits for pool in col.pools[sp]})
    everywhere = {pool: set().union(*(col.pools[sp].get(pool, set()) for sp in splits))
                  for pool in pool_names}
    forced = sorted(p for p in pool_names if len(splits) > 1 and len(everywhere[p]) < len(SPLITS))
    out: dict[str, dict[str, int]] = {}
    for i, a in enumerate(splits):
        for b in splits[i + 1:]:
            counts: Counter[str] = Counter()
            for pool in pool_names:
                n = len(col.pools[a].get(pool, set()) & col.pools[b].get(pool, set()))
                counts[pool.split(":")[0]] += n
                if n and pool not in forced:
                    col.bad(f"splits {a}/{b}", f"{n} {pool} item(s) occur in both",
                            check=OVERLAP)
            out[f"{a}/{b}"] = {k: counts[k] for k in sorted(counts)}
    notes = [f"{pool}: only {len(everywhere[pool])} item(s) in all splits together, so every "
             "split shares them (the resources are too small to split this pool)"
             for pool in forced]
    return out, notes


def _check_balance(col: _Collector) -> dict[str, Any]:
    """Per subtask split: the answer's share at each meet-sentence position, and the position
    baselines (``first`` picks position 0; ``last`` and ``nearest`` the last position, since
    the pronoun follows the meet sentence) with their 95% Wilson intervals. An interval that
    excludes chance (1/k) is a violation."""
    positions: dict[str, dict[str, float]] = {}
    baselines: dict[str, dict[str, dict[str, Any]]] = {}
    flagged = 0
    for name, counts in sorted(col.positions.items()):
        total = sum(counts.values())
        match = SUBTASK_DIR.match(name.split("/")[1])
        k = int(match.group(1)) if match else max(counts) + 1
        chance = 1 / k
        positions[name] = {str(i): round(counts[i] / total, 4) for i in range(k)}
        baselines[name] = {}
        for baseline, pos in (("first", 0), ("last", k - 1)):
            lo, hi = wilson(counts[pos], total) or (0.0, 1.0)
            baselines[name][baseline] = {"accuracy": round(counts[pos] / total, 4),
                                         "ci95": [round(lo, 4), round(hi, 4)]}
            if total >= MIN_FOR_BALANCE and not lo <= chance <= hi:
                flagged += 1
                col.bad(name, f"the {baseline} baseline (answer at meet position {pos}) scores "
                        f"{counts[pos] / total:.4f}, 95% interval {lo:.3f}-{hi:.3f}, which "
                        f"excludes chance ({chance:.3f}): answer positions are unbalanced",
                        check=BALANCE)
    return {"status": "ok" if not flagged else f"{flagged} position baseline(s) off chance",
            "positions": positions, "position_baselines": baselines}
